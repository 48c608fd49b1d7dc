//! The fast path of the envelope scan (64-bit targets): valid messages in one pass, no
//! error reporting.
//!
//! [`scan`] reads the top-level object the way the exact scan of
//! [`parse`](super::parse) does (the same member spans, duplicates and error-object
//! members), but built on the scanner's fast path
//! ([`scan_fast`](crate::json::scan_fast)), which keeps offsets in registers and returns
//! `Option` instead of carrying a `JsonError` through every token. It returns `None` for
//! anything it does not accept: invalid JSON, an escaped member name, nesting the fast
//! scanner leaves to the exact one. The caller then runs the exact scan from the start,
//! so the two together give exactly the exact scan's results and errors; only valid
//! messages, nearly all of the traffic, take this path.

use super::envelope::{Member, Spans};
use crate::json::MAX_DEPTH_CAP;
use crate::json::scan_fast::{number_end, skip_ws, string_end, value_end};

/// Scans the object at `pos` (at `{`) as a whole message's envelope, recording the
/// envelope members in `top` and the first `error` member's object members in
/// `error_object` (both must be [`Spans::NONE`]). Returns the offset after the closing
/// `}`, or `None` when the exact scan must decide (then `top` and `error_object` hold
/// partial results that the caller discards).
#[inline]
pub(super) fn scan(
    b: &[u8],
    pos: usize,
    max_depth: usize,
    top: &mut Spans,
    error_object: &mut Spans,
) -> Option<usize> {
    members::<true>(b, pos, 1, max_depth, top, error_object)
}

/// The bit (in [`ENVELOPE`](super::envelope::ENVELOPE) order, that is [`Member`] order) of
/// the envelope member an unescaped key names, 0 for any other key. A `match` on the
/// bytes compiles to a switch on the length and one or two word compares, where a search
/// of the name table compares the key with each name in turn.
#[inline(always)]
fn envelope_bit(key: &[u8]) -> u8 {
    1 << match key {
        b"jsonrpc" => Member::JsonRpc as u8,
        b"id" => Member::Id as u8,
        b"method" => Member::Method as u8,
        b"params" => Member::Params as u8,
        b"result" => Member::Result as u8,
        b"error" => Member::Error as u8,
        _ => return 0,
    }
}

/// The bit (in [`ERROR_MEMBERS`](super::envelope::ERROR_MEMBERS) order) of the error object
/// member an unescaped key names, 0 for any other key.
#[inline(always)]
fn error_member_bit(key: &[u8]) -> u8 {
    match key {
        b"code" => 1,
        b"message" => 2,
        b"data" => 4,
        _ => 0,
    }
}

/// The little-endian word of the first 8 bytes of `s` (zeros past its end).
const fn word(s: &[u8]) -> u64 {
    let mut w = 0u64;
    let mut i = 0;
    while i < s.len() && i < 8 {
        w |= (s[i] as u64) << (8 * i);
        i += 1;
    }
    w
}

/// A member name written the common way (no escape, the `:` right after the closing
/// quote), found by comparing the word at the opening quote (`pos`) with the names'
/// words: the member's bit and the offset after the colon. Where the general path
/// ([`any_name`]) searches for the closing quote, whose offset comes from the bytes and
/// so delays every load after it, this one gives a constant offset per name. `None` for
/// any other name or spelling, which [`any_name`] reads with the same result.
#[inline(always)]
fn known_name<const ENVELOPE: bool>(b: &[u8], pos: usize) -> Option<(u8, usize)> {
    const LOW5: u64 = (1 << 40) - 1;
    const LOW7: u64 = (1 << 56) - 1;
    const ID: u64 = word(b"\"id\":");
    const ERROR: u64 = word(b"\"error\":");
    const METHOD: u64 = word(b"\"method\"");
    const PARAMS: u64 = word(b"\"params\"");
    const RESULT: u64 = word(b"\"result\"");
    const JSONRPC: u64 = word(b"\"jsonrpc");
    const CODE: u64 = word(b"\"code\":");
    const DATA: u64 = word(b"\"data\":");
    const MESSAGE: u64 = word(b"\"message");
    let w = u64::from_le_bytes(*b.get(pos..)?.first_chunk::<8>()?);
    // The bytes after the word: `:` after an 8-byte quoted name, `":` after a 9-byte one.
    let colon_at_8 = b.get(pos + 8) == Some(&b':');
    let quote_colon_at_8 = b.get(pos + 8..pos + 10) == Some(b"\":");
    let (member, end) = if ENVELOPE {
        match w {
            _ if w & LOW5 == ID => (Member::Id as u8, 5),
            ERROR => (Member::Error as u8, 8),
            METHOD if colon_at_8 => (Member::Method as u8, 9),
            PARAMS if colon_at_8 => (Member::Params as u8, 9),
            RESULT if colon_at_8 => (Member::Result as u8, 9),
            JSONRPC if quote_colon_at_8 => (Member::JsonRpc as u8, 10),
            _ => return None,
        }
    } else {
        match w & LOW7 {
            CODE => (0, 7),
            DATA => (2, 7),
            _ if w == MESSAGE && quote_colon_at_8 => (1, 10),
            _ => return None,
        }
    };
    Some((1 << member, pos + end))
}

/// Any member name at `pos` (which must be its opening quote), whitespace and the colon:
/// the bit of the member it names (0 for none) and the offset after the colon.
#[inline(always)]
fn any_name<const ENVELOPE: bool>(b: &[u8], pos: usize) -> Option<(u8, usize)> {
    if b.get(pos) != Some(&b'"') {
        return None;
    }
    let key_start = pos + 1;
    let key_end = string_end(b, key_start)?;
    let mut pos = key_end + 1;
    if b.get(pos) != Some(&b':') {
        pos = skip_ws(b, pos);
        if b.get(pos) != Some(&b':') {
            return None;
        }
    }
    let key = b.get(key_start..key_end)?;
    // A name with an escape could still name a member once unescaped: that rare case
    // is the exact scan's.
    let which = if ENVELOPE {
        envelope_bit(key)
    } else {
        error_member_bit(key)
    };
    if which == 0 && key.contains(&b'\\') {
        return None;
    }
    Some((which, pos + 1))
}

/// An object at nesting level `depth` whose named members are recorded in `found`: with
/// `ERROR_OBJECT` the envelope members, and the first `error` member's object goes to
/// `error_object`; without, the members of an error object.
#[inline(always)]
fn members<const ERROR_OBJECT: bool>(
    b: &[u8],
    pos: usize,
    depth: usize,
    max_depth: usize,
    found: &mut Spans,
    error_object: &mut Spans,
) -> Option<usize> {
    if max_depth < depth || b.get(pos) != Some(&b'{') {
        return None;
    }
    // Containers a member value may open.
    let room = max_depth.min(MAX_DEPTH_CAP).saturating_sub(depth);
    let mut pos = skip_ws(b, pos + 1);
    if b.get(pos) == Some(&b'}') {
        return Some(pos + 1);
    }
    loop {
        let (which, after_colon) = match known_name::<ERROR_OBJECT>(b, pos) {
            Some(known) => known,
            None => any_name::<ERROR_OBJECT>(b, pos)?,
        };
        pos = skip_ws(b, after_colon);
        found.dup |= found.seen & which;
        found.seen |= which;
        let value_start = pos;
        pos = if ERROR_OBJECT
            && which == 1 << Member::Error as u8
            && found.dup & which == 0
            && b.get(pos) == Some(&b'{')
        {
            let mut unused = Spans::NONE;
            members::<false>(b, pos, depth + 1, max_depth, error_object, &mut unused)?
        } else if b.get(pos) == Some(&b'"') {
            // Most envelope values are short strings or numbers (`id`, `code`): no call
            // into the value scanner; and nearly every message has `"jsonrpc":"2.0"`.
            if ERROR_OBJECT
                && which == 1 << Member::JsonRpc as u8
                && b.get(pos..pos + 5) == Some(b"\"2.0\"")
            {
                pos + 5
            } else {
                string_end(b, pos + 1)? + 1
            }
        } else if matches!(b.get(pos), Some(b'-' | b'0'..=b'9')) {
            number_end(b, pos)?
        } else {
            value_end(b, pos, room)?
        };
        // Every value is complete here: one that is not followed by `,` or `}` fails below.
        if found.complete & which == 0 && which != 0 {
            found.complete |= which;
            found.spans[which.trailing_zeros() as usize] = (value_start, pos);
        }
        pos = skip_ws(b, pos);
        match b.get(pos) {
            Some(b',') => pos = skip_ws(b, pos + 1),
            Some(b'}') => return Some(pos + 1),
            _ => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::vec::Vec;

    use super::super::envelope::scan_envelope_exact;
    use super::*;

    /// Where the fast path accepts, it agrees with the exact scan in every recorded span,
    /// flag and the end offset; on the valid inputs it accepts.
    fn agree(line: &[u8], max_depth: usize) -> bool {
        // The callers start at the `{`, after any whitespace.
        let at = skip_ws(line, 0);
        let (mut top, mut err) = (Spans::NONE, Spans::NONE);
        let fast = scan(line, at, max_depth, &mut top, &mut err);
        let (etop, eerr, exact) = scan_envelope_exact(line, at, max_depth);
        if let Some(end) = fast {
            assert_eq!(
                exact,
                Ok(end),
                "{}",
                std::string::String::from_utf8_lossy(line)
            );
            assert_eq!(
                (top, err),
                (etop, eerr),
                "{}",
                std::string::String::from_utf8_lossy(line)
            );
        }
        fast.is_some()
    }

    #[test]
    fn member_bits_follow_the_name_tables() {
        use super::super::envelope::{ENVELOPE, ERROR_MEMBERS};
        for (i, n) in ENVELOPE.iter().enumerate() {
            assert_eq!(envelope_bit(n.as_bytes()), 1 << i, "{n}");
            assert_eq!(error_member_bit(n.as_bytes()), 0, "{n}");
        }
        for (i, n) in ERROR_MEMBERS.iter().enumerate() {
            assert_eq!(error_member_bit(n.as_bytes()), 1 << i, "{n}");
            assert_eq!(envelope_bit(n.as_bytes()), 0, "{n}");
        }
        for k in [
            "", "i", "ID", "ids", "jsonrpc ", "Method", "err", "codes", "dat",
        ] {
            assert_eq!(envelope_bit(k.as_bytes()), 0, "{k}");
            assert_eq!(error_member_bit(k.as_bytes()), 0, "{k}");
        }
    }

    #[test]
    fn agrees_with_the_exact_scan() {
        let valid: &[&str] = &[
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":"a\"b","method":"tools/call","params":{"name":"x","arguments":{"t":"a\\b\n","n":[1,2.5e3,-0,true,false,null,{}]}}}"#,
            r#" { "jsonrpc" : "2.0" , "id" : 7 , "result" : { "a" : [ ] } } "#,
            r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"m","data":{"k":[1]},"code":1}}"#,
            r#"{"id":1,"id":2,"method":"a","method":{"x":1},"params":[],"other":{"id":3}}"#,
            r#"{"jsonrpc":"2.0","error":{"code":1},"error":{"message":"second"}}"#,
            r#"{"jsonrpc":"2.0","error":[1,2],"id":null}"#,
            // Names next to the ones read by word compare, and their spaced spellings.
            r#"{"idx":1,"ids":2,"id" :3,"i":4,"methods":"a","method" :"b","param":{},"results":{},"errors":1}"#,
            r#"{"jsonrpcx":"2.0","jsonrpc" :"2.0","jsonrpc":"2.00","jsonrpc":"2.0 ","jsonrpc":2.0}"#,
            r#"{"jsonrpc":"2.0","error":{"codes":1,"code" :2,"messages":"m","message" :"x","datum":1,"data" :2}}"#,
            r#"{"jsonrpc":"2.0","error":{"message":"x","code":-1,"data":null}}"#,
            r#"{"jsonrpc":"\u0032.0","id":"\"","result":{}}"#,
            r#"{}"#,
            r#"{"a":{"b":{"c":{"d":[[[[1]]]]}}},"params":"\u00e9\u20ac"}"#,
        ];
        // Left to the exact scan: escaped names, surrogate escapes.
        let exact_only: &[&str] = &[
            r#"{"jsonrpc":"2.0","\u0069d":1,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"s":"\ud83d\ude00"}}"#,
        ];
        for line in valid {
            assert!(agree(line.as_bytes(), 64), "fast path refused {line}");
            // Tight nesting limits: at the limit and one below.
            for depth in 0..8 {
                agree(line.as_bytes(), depth);
            }
        }
        for line in exact_only {
            assert!(!agree(line.as_bytes(), 64), "fast path took {line}");
        }
        // Every prefix, and every byte replaced by bytes that matter to the grammar.
        for line in valid.iter().chain(exact_only) {
            let b = line.as_bytes();
            for n in 0..b.len() {
                agree(&b[..n], 64);
            }
            for i in 0..b.len() {
                for c in [
                    b'"', b'\\', b'{', b'}', b'[', b']', b',', b':', b' ', b'1', b'x', 0x01,
                ] {
                    let mut m: Vec<u8> = b.to_vec();
                    m[i] = c;
                    agree(&m, 64);
                    agree(&m, 2);
                }
            }
        }
    }
}
