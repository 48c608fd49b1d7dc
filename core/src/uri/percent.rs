//! Percent-encoding (RFC 3986 §2.1): decoding into a caller buffer, and the character
//! classes the URI template expansion encodes by.

use core::fmt;

/// Why [`percent_decode`] failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecodeError {
    /// A `%` at byte offset `at` is not followed by two hexadecimal digits.
    InvalidEscape {
        /// Byte offset of the `%` in the input.
        at: usize,
    },
    /// The decoded bytes are not UTF-8 (for example `%C0%AE`, an overlong `.`).
    NotUtf8,
    /// `out` is too small; `required` bytes would have worked (never more than the input).
    InsufficientSize {
        /// Bytes needed.
        required: usize,
    },
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::InvalidEscape { at } => write!(f, "invalid percent escape at byte {at}"),
            DecodeError::NotUtf8 => f.write_str("percent-decoded text is not UTF-8"),
            DecodeError::InsufficientSize { required } => {
                write!(f, "buffer too small: {required} bytes required")
            }
        }
    }
}

impl core::error::Error for DecodeError {}

/// The value of one hexadecimal digit.
pub(crate) fn hex_value(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// The byte a `%XX` escape at `s[at]` stands for, or `None` when it is not one.
pub(crate) fn escape_at(s: &[u8], at: usize) -> Option<u8> {
    let hi = hex_value(*s.get(at + 1)?)?;
    let lo = hex_value(*s.get(at + 2)?)?;
    Some(hi << 4 | lo)
}

/// Decodes every `%XX` escape of `s` into `out` and returns the text.
///
/// Only `%XX` is decoded (`+` stays a `+`: RFC 3986, not HTML forms). A `%` without two
/// hex digits is [`DecodeError::InvalidEscape`]; a result that is not UTF-8 is
/// [`DecodeError::NotUtf8`]. `%00` decodes to a NUL character: callers that hand the text
/// to a file system check for it (the [`roots`](crate::uri::roots) helper refuses it).
/// The result is never longer than `s`, so `out.len() >= s.len()` always suffices.
///
/// ```
/// let mut buf = [0u8; 32];
/// assert_eq!(picomcp::uri::percent_decode("a%20b%2Fc", &mut buf), Ok("a b/c"));
/// assert!(picomcp::uri::percent_decode("100%", &mut buf).is_err());
/// ```
pub fn percent_decode<'b>(s: &str, out: &'b mut [u8]) -> Result<&'b str, DecodeError> {
    let bytes = s.as_bytes();
    let mut n = 0;
    let mut i = 0;
    // First pass: validate and count, so `InsufficientSize` reports the exact need.
    while i < bytes.len() {
        if bytes[i] == b'%' {
            escape_at(bytes, i).ok_or(DecodeError::InvalidEscape { at: i })?;
            i += 3;
        } else {
            i += 1;
        }
        n += 1;
    }
    if n > out.len() {
        return Err(DecodeError::InsufficientSize { required: n });
    }
    let mut i = 0;
    let mut w = 0;
    while i < bytes.len() {
        let (b, step) = match bytes[i] {
            b'%' => (escape_at(bytes, i).unwrap_or(b'%'), 3),
            b => (b, 1),
        };
        if let Some(slot) = out.get_mut(w) {
            *slot = b;
        }
        w += 1;
        i += step;
    }
    core::str::from_utf8(&out[..n]).map_err(|_| DecodeError::NotUtf8)
}

/// RFC 3986 `unreserved`: ALPHA / DIGIT / "-" / "." / "_" / "~".
pub(crate) fn is_unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

/// RFC 3986 `reserved`: gen-delims / sub-delims.
pub(crate) fn is_reserved(b: u8) -> bool {
    matches!(
        b,
        b':' | b'/'
            | b'?'
            | b'#'
            | b'['
            | b']'
            | b'@'
            | b'!'
            | b'$'
            | b'&'
            | b'\''
            | b'('
            | b')'
            | b'*'
            | b'+'
            | b','
            | b';'
            | b'='
    )
}
