//! The seal of 2026-07-28 `requestState` (MODERN §8.4: state is attacker-controlled, a
//! server must integrity-protect it and should bind it to an expiry and the originating
//! request).
//!
//! The sealed text is `s1.<expiry>.<mac>.<state>`: `expiry` in the session's ms (decimal),
//! `mac` HMAC-SHA256 in base64url without padding (43 characters), `state` the host's
//! text unchanged. The MAC covers a domain tag, the method, a 64-bit digest of the
//! request's salient params (`name` of `tools/call` and `prompts/get`, `uri` of
//! `resources/read`), the expiry and the state's characters (decoded, so that a client's
//! different but equivalent JSON escaping does not break it). Everything before the
//! state is ASCII, so the whole stays a plain JSON string.

use hmac::{Hmac, KeyInit, Mac};
use sha2::{Digest, Sha256};

use crate::json::{Json, JsonStr};
use crate::protocol::Method;

/// Shortest key accepted (128 bits).
pub(crate) const MIN_KEY: usize = 16;
/// Length of the base64url MAC.
const MAC_LEN: usize = 43;
const DOMAIN: &[u8] = b"picomcp/requestState/v1\0";

/// The key, as HMAC uses it: keys longer than SHA-256's block are hashed first (RFC 2104),
/// so storing the hash is equivalent and bounded.
#[derive(Clone, Copy)]
pub(crate) struct Key {
    bytes: [u8; 64],
    len: u8,
}

impl Key {
    /// `None` for a key shorter than [`MIN_KEY`].
    pub(crate) fn new(key: &[u8]) -> Option<Key> {
        if key.len() < MIN_KEY {
            return None;
        }
        let mut bytes = [0u8; 64];
        let len = if key.len() > 64 {
            bytes[..32].copy_from_slice(&Sha256::digest(key));
            32
        } else {
            bytes[..key.len()].copy_from_slice(key);
            key.len()
        };
        Some(Key {
            bytes,
            len: len as u8,
        })
    }

    /// `None` only if HMAC refused the key, which it never does (any length is valid).
    fn mac(
        &self,
        method: Method,
        binding: u64,
        expiry: u64,
        state: JsonStr<'_>,
    ) -> Option<[u8; MAC_LEN]> {
        let mut m =
            <Hmac<Sha256> as KeyInit>::new_from_slice(&self.bytes[..self.len as usize]).ok()?;
        m.update(DOMAIN);
        m.update(method.as_str().as_bytes());
        m.update(b"\0");
        m.update(&binding.to_be_bytes());
        m.update(&expiry.to_be_bytes());
        let mut utf8 = [0u8; 4];
        for c in state.chars() {
            m.update(c.encode_utf8(&mut utf8).as_bytes());
        }
        let tag = m.finalize().into_bytes();
        let mut out = [0u8; MAC_LEN];
        base64url(&tag, &mut out);
        Some(out)
    }

    /// The seal prefix `s1.<expiry>.<mac>.` for `state`, written into `buf`.
    pub(crate) fn seal<'b>(
        &self,
        method: Method,
        binding: u64,
        expiry: u64,
        state: &str,
        buf: &'b mut [u8; 72],
    ) -> Option<&'b str> {
        let mac = self.mac(
            method,
            binding,
            expiry,
            JsonStr::from_validated(state, false),
        )?;
        let mut n = 0;
        let mut put = |b: &[u8]| {
            buf[n..n + b.len()].copy_from_slice(b);
            n += b.len();
        };
        put(b"s1.");
        let mut digits = [0u8; 20];
        put(crate::json::fmt_u64(expiry, &mut digits));
        put(b".");
        put(&mac);
        put(b".");
        core::str::from_utf8(&buf[..n]).ok()
    }

    /// Verifies a sealed state (`raw`: the JSON string body as received) and returns the
    /// host's state (a slice of `raw`, still escaped as received).
    pub(crate) fn open<'a>(
        &self,
        method: Method,
        binding: u64,
        now: u64,
        state: JsonStr<'a>,
    ) -> Result<&'a str, Unsealed> {
        let raw = state.raw();
        let rest = raw.strip_prefix("s1.").ok_or(Unsealed::Invalid)?;
        let dot = rest.find('.').ok_or(Unsealed::Invalid)?;
        let (exp_text, rest) = rest.split_at(dot);
        let expiry = parse_u64(exp_text).ok_or(Unsealed::Invalid)?;
        let rest = &rest[1..];
        let (mac, rest) = (
            rest.get(..MAC_LEN).ok_or(Unsealed::Invalid)?,
            rest.get(MAC_LEN..).ok_or(Unsealed::Invalid)?,
        );
        let plain = rest.strip_prefix('.').ok_or(Unsealed::Invalid)?;
        let want = self
            .mac(
                method,
                binding,
                expiry,
                JsonStr::from_validated(plain, state.is_escaped()),
            )
            .ok_or(Unsealed::Invalid)?;
        // Constant time in the MAC's bytes.
        let diff = want
            .iter()
            .zip(mac.as_bytes())
            .fold(0u8, |d, (a, b)| d | (a ^ b));
        if diff != 0 {
            return Err(Unsealed::Invalid);
        }
        if now > expiry {
            return Err(Unsealed::Expired);
        }
        Ok(plain)
    }
}

/// Why a state failed verification.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unsealed {
    /// Not ours, altered, or sealed for another request.
    Invalid,
    /// Past its expiry.
    Expired,
}

/// The digest of a request's salient params that a state is bound to.
pub(crate) fn binding(method: Method, params: Json<'_>) -> u64 {
    let key = match method {
        Method::ResourcesRead => "uri",
        _ => "name",
    };
    let mut h = Sha256::new();
    if let Some(s) = params.get(key).and_then(|v| v.as_str()) {
        let mut utf8 = [0u8; 4];
        for c in s.chars() {
            h.update(c.encode_utf8(&mut utf8).as_bytes());
        }
    }
    let d = h.finalize();
    let mut b = [0u8; 8];
    b.copy_from_slice(&d[..8]);
    u64::from_be_bytes(b)
}

fn parse_u64(s: &str) -> Option<u64> {
    if s.is_empty() || s.len() > 20 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// Base64url without padding of 32 bytes (43 characters).
fn base64url(bytes: &[u8], out: &mut [u8; MAC_LEN]) {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut n = 0;
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let v = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for k in 0..=chunk.len() {
            if n < MAC_LEN {
                out[n] = A[((v >> (18 - 6 * k)) & 63) as usize];
                n += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;

    #[test]
    fn round_trip_and_tamper() {
        let k = Key::new(b"0123456789abcdef0123456789abcdef").unwrap();
        let mut buf = [0u8; 72];
        let prefix = k
            .seal(Method::ToolsCall, 7, 1000, "step=2", &mut buf)
            .unwrap();
        assert_eq!(prefix.len(), 3 + 4 + 1 + 43 + 1);
        let sealed = std::format!("{prefix}step=2");
        let s = JsonStr::from_validated(&sealed, false);
        assert_eq!(k.open(Method::ToolsCall, 7, 999, s), Ok("step=2"));
        assert_eq!(
            k.open(Method::ToolsCall, 7, 1001, s),
            Err(Unsealed::Expired)
        );
        assert_eq!(k.open(Method::ToolsCall, 8, 999, s), Err(Unsealed::Invalid));
        assert_eq!(
            k.open(Method::PromptsGet, 7, 999, s),
            Err(Unsealed::Invalid)
        );
        let forged = sealed.replace("step=2", "step=9");
        let f = JsonStr::from_validated(&forged, false);
        assert_eq!(k.open(Method::ToolsCall, 7, 999, f), Err(Unsealed::Invalid));
        assert!(Key::new(b"short").is_none());
    }

    #[test]
    fn base64url_of_known_bytes() {
        // 256 one bits: 42 full sextets, then 1111 padded with two zero bits.
        let mut out = [0u8; MAC_LEN];
        base64url(&[0xFF; 32], &mut out);
        assert!(out[..42].iter().all(|&c| c == b'_'));
        assert_eq!(out[42], b'8');
        // 0x00 0x10 0x83 -> "ABCD" (RFC 4648 alphabet order).
        let mut bytes = [0u8; 32];
        bytes[..3].copy_from_slice(&[0x00, 0x10, 0x83]);
        base64url(&bytes, &mut out);
        assert_eq!(&out[..4], b"ABCD");
    }
}
