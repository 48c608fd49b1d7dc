//! JSON strings as written: [`JsonStr`] (the text between the quotes, escapes kept) and
//! [`Unescape`], which decodes it.

use core::fmt;

use crate::error::InsufficientSize;

/// `a == b` for short texts (keys, method names): an inline loop beats a `memcmp` call.
#[inline(always)]
pub(crate) fn short_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

/// Whether a string's raw text has an escape. Most strings are short, and a plain loop
/// beats `memchr`'s set-up on them; a long one (an echoed text, base64) goes to `memchr`
/// on hosts, which searches 16 or 32 bytes per step, and on hosts one of 8 to 32 bytes is
/// tested a word at a time.
#[inline]
#[allow(
    clippy::manual_contains,
    reason = "`contains` is memchr, slower on the short strings this loop is for"
)]
pub(super) fn has_backslash(raw: &str) -> bool {
    let b = raw.as_bytes();
    #[cfg(not(target_os = "none"))]
    {
        if b.len() > 32 {
            return memchr::memchr(b'\\', b).is_some();
        }
        // 8 to 32 bytes: whole words with the zero-byte trick (exact for "is there one"),
        // the last word overlapping the one before it; no byte loop.
        if let Some(last) = b.last_chunk::<8>() {
            const LO: u64 = 0x0101_0101_0101_0101;
            let hit = |w: &[u8; 8]| {
                let x = u64::from_le_bytes(*w) ^ (LO * u64::from(b'\\'));
                x.wrapping_sub(LO) & !x & (LO << 7)
            };
            let (words, _) = b.as_chunks::<8>();
            return words.iter().fold(hit(last), |m, w| m | hit(w)) != 0;
        }
    }
    b.iter().any(|&c| c == b'\\')
}

/// A JSON string as it appears in the text (between the quotes, escapes not decoded).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct JsonStr<'a> {
    pub(super) raw: &'a str,
    pub(super) escaped: bool,
}

impl JsonStr<'static> {
    /// The empty string.
    pub const EMPTY: JsonStr<'static> = JsonStr {
        raw: "",
        escaped: false,
    };
}

impl<'a> JsonStr<'a> {
    /// Wraps the inside of a string the scanner has validated.
    pub(crate) fn from_validated(raw: &'a str, escaped: bool) -> Self {
        JsonStr { raw, escaped }
    }

    /// The text between the quotes, escapes as written.
    pub fn raw(&self) -> &'a str {
        self.raw
    }

    /// True when the string contains at least one backslash escape.
    pub fn is_escaped(&self) -> bool {
        self.escaped
    }

    /// The string itself when it has no escapes (then no decoding is needed).
    pub fn as_plain(&self) -> Option<&'a str> {
        if self.escaped { None } else { Some(self.raw) }
    }

    /// The decoded characters.
    pub fn chars(&self) -> Unescape<'a> {
        Unescape {
            raw: self.raw.as_bytes(),
            pos: 0,
            text: self.raw,
        }
    }

    /// The length of the decoded string in UTF-8 bytes.
    pub fn decoded_len(&self) -> usize {
        if self.escaped {
            self.chars().map(char::len_utf8).sum()
        } else {
            self.raw.len()
        }
    }

    /// Compares the decoded string with `s`, without copying.
    pub fn eq_str(&self, s: &str) -> bool {
        if !self.escaped {
            return short_eq(self.raw.as_bytes(), s.as_bytes());
        }
        self.chars().eq(s.chars())
    }

    /// Decodes the string into `buf` and returns it.
    ///
    /// # Errors
    /// [`InsufficientSize`] with the number of bytes needed when `buf` is too small.
    pub fn unescape_into<'b>(&self, buf: &'b mut [u8]) -> Result<&'b str, InsufficientSize> {
        let need = self.decoded_len();
        if need > buf.len() {
            return Err(InsufficientSize { required: need });
        }
        let mut n = 0;
        for c in self.chars() {
            n += c.encode_utf8(&mut buf[n..]).len();
        }
        // Only whole chars were written, so this cannot fail.
        core::str::from_utf8(&buf[..n]).map_err(|_| InsufficientSize { required: need })
    }
}

impl fmt::Debug for JsonStr<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "\"{}\"", self.raw)
    }
}

impl fmt::Display for JsonStr<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for c in self.chars() {
            fmt::Write::write_char(f, c)?;
        }
        Ok(())
    }
}

/// Iterator decoding a [`JsonStr`]; see [`JsonStr::chars`].
#[derive(Clone)]
pub struct Unescape<'a> {
    raw: &'a [u8],
    text: &'a str,
    pos: usize,
}

impl Unescape<'_> {
    fn hex4(&self, at: usize) -> u32 {
        let mut v = 0u32;
        for i in 0..4 {
            let c = self.raw.get(at + i).copied().unwrap_or(b'0');
            let h = match c {
                b'0'..=b'9' => c - b'0',
                b'a'..=b'f' => c - b'a' + 10,
                b'A'..=b'F' => c - b'A' + 10,
                _ => 0,
            };
            v = (v << 4) | h as u32;
        }
        v
    }
}

impl Iterator for Unescape<'_> {
    type Item = char;
    fn next(&mut self) -> Option<char> {
        let c = *self.raw.get(self.pos)?;
        if c != b'\\' {
            let ch = self.text.get(self.pos..)?.chars().next()?;
            self.pos += ch.len_utf8();
            return Some(ch);
        }
        let e = *self.raw.get(self.pos + 1)?;
        self.pos += 2;
        Some(match e {
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let hi = self.hex4(self.pos);
                self.pos += 4;
                if (0xD800..0xDC00).contains(&hi) {
                    let lo = self.hex4(self.pos + 2);
                    self.pos += 6;
                    let cp = 0x10000 + ((hi - 0xD800) << 10) + (lo.wrapping_sub(0xDC00) & 0x3FF);
                    char::from_u32(cp).unwrap_or('\u{FFFD}')
                } else {
                    char::from_u32(hi).unwrap_or('\u{FFFD}')
                }
            }
            other => other as char,
        })
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::string::String;
    use std::vec::Vec;

    use super::*;

    use crate::json::Json;

    fn j(text: &str) -> Json<'_> {
        Json::new(text).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    #[test]
    fn has_backslash_at_every_length_and_offset() {
        // Bytes next to `\` (0x5c) and with the high bit set, which the word test must not
        // take for one.
        let plain: Vec<u8> = (0..80)
            .map(|i| [b'[', b']', 0x5d, 0x5b, 0xdc, b'a', 0x7f, b'"'][i % 8])
            .collect();
        for len in 0..plain.len() {
            let text = String::from_utf8_lossy(&plain[..len]).into_owned();
            assert!(!has_backslash(&text), "len {len}");
            for at in 0..text.len() {
                if !text.is_char_boundary(at) {
                    continue;
                }
                let mut t = String::from(&text[..at]);
                t.push('\\');
                t.push_str(&text[at..]);
                assert!(has_backslash(&t), "len {len} at {at}");
            }
        }
    }

    #[test]
    fn strings() {
        // (JSON text, decoded)
        let table: &[(&str, &str)] = &[
            (r#""""#, ""),
            (r#""plain""#, "plain"),
            (r#""\"\\\/\b\f\n\r\t""#, "\"\\/\u{8}\u{c}\n\r\t"),
            (r#""\u0041\u00e9\u20AC""#, "Aé€"),
            (r#""\ud83d\ude00 \uD83D\uDE00""#, "😀 😀"),
            (r#""\u0000\u001f""#, "\u{0}\u{1f}"),
            (r#""é😀\u00e9""#, "é😀é"),
            (r#""a\\nb""#, "a\\nb"),
            (r#""\\u0041""#, "\\u0041"),
            (r#""\uDBFF\uDFFF""#, "\u{10FFFF}"),
        ];
        for &(text, want) in table {
            let s = j(text).as_str().unwrap();
            assert_eq!(s.raw(), &text[1..text.len() - 1]);
            assert_eq!(s.is_escaped(), text.contains('\\'), "{text}");
            assert_eq!(s.as_plain(), (!s.is_escaped()).then_some(s.raw()));
            assert_eq!(s.chars().collect::<String>(), want, "{text}");
            assert_eq!(s.decoded_len(), want.len(), "{text}");
            assert!(s.eq_str(want), "{text} eq {want:?}");
            let mut longer = String::from(want);
            longer.push('x');
            assert!(!s.eq_str(&longer), "{text}");
            if let Some(c) = want.chars().next() {
                assert!(!s.eq_str(&want[c.len_utf8()..]), "{text}");
            }
            assert_eq!(std::format!("{s}"), want);
            assert_eq!(std::format!("{s:?}"), text);
            // unescape_into: exact fit works, one byte less reports the exact need.
            let mut buf = [0u8; 64];
            assert_eq!(s.unescape_into(&mut buf[..want.len()]).unwrap(), want);
            if !want.is_empty() {
                assert_eq!(
                    s.unescape_into(&mut buf[..want.len() - 1]),
                    Err(InsufficientSize {
                        required: want.len()
                    })
                );
            }
        }
        assert!(j("1").as_str().is_none());
        assert!(j("null").as_str().is_none());
    }
}
