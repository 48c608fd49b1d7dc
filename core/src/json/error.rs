//! Why a text is not JSON, and where: the scanner's error type and its constructors.

use core::fmt;

/// Why a text is not accepted as JSON, and where (byte offset).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JsonError {
    /// What is wrong.
    pub kind: JsonErrorKind,
    /// Byte offset in the input where the problem was found.
    pub offset: usize,
}

/// The kinds of [`JsonError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum JsonErrorKind {
    /// The input ended inside a value.
    UnexpectedEnd,
    /// A byte that cannot appear here.
    UnexpectedByte,
    /// A malformed number (leading zero, missing digits, `NaN`, ...).
    InvalidNumber,
    /// A backslash escape RFC 8259 does not define, or a `\u` with bad hex digits.
    InvalidEscape,
    /// A `\u` escape naming half of a surrogate pair without its other half.
    LoneSurrogate,
    /// A raw control character (U+0000..U+001F) inside a string.
    ControlCharacter,
    /// Nesting deeper than the configured limit.
    TooDeep,
    /// Something other than whitespace after the value.
    TrailingCharacters,
    /// The input is empty or only whitespace.
    Empty,
}

impl JsonErrorKind {
    /// True for limit violations (the text may be valid JSON we refuse to handle).
    pub fn is_limit(self) -> bool {
        matches!(self, JsonErrorKind::TooDeep)
    }
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.kind {
            JsonErrorKind::UnexpectedEnd => "unexpected end of input",
            JsonErrorKind::UnexpectedByte => "unexpected character",
            JsonErrorKind::InvalidNumber => "invalid number",
            JsonErrorKind::InvalidEscape => "invalid escape sequence",
            JsonErrorKind::LoneSurrogate => "unpaired surrogate escape",
            JsonErrorKind::ControlCharacter => "raw control character in string",
            JsonErrorKind::TooDeep => "nesting too deep",
            JsonErrorKind::TrailingCharacters => "trailing characters after the value",
            JsonErrorKind::Empty => "empty input",
        };
        write!(f, "{what} at byte {}", self.offset)
    }
}

impl core::error::Error for JsonError {}

/// A [`JsonError`] of `kind` at `offset`.
#[inline]
pub(super) fn error(kind: JsonErrorKind, offset: usize) -> JsonError {
    JsonError { kind, offset }
}

/// The input ended inside a value: reported at its end.
#[cold]
pub(super) fn eof(b: &[u8]) -> JsonError {
    error(JsonErrorKind::UnexpectedEnd, b.len())
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::string::String;
    use std::vec::Vec;

    use super::JsonErrorKind::*;
    use super::*;
    use crate::json::Json;

    #[test]
    fn errors_display_and_classify() {
        let e = Json::new("[1,]").unwrap_err();
        assert_eq!(std::format!("{e}"), "unexpected character at byte 3");
        let kinds = [
            UnexpectedEnd,
            UnexpectedByte,
            InvalidNumber,
            InvalidEscape,
            LoneSurrogate,
            ControlCharacter,
            TooDeep,
            TrailingCharacters,
            Empty,
        ];
        let mut msgs: Vec<String> = kinds
            .iter()
            .map(|&kind| std::format!("{}", JsonError { kind, offset: 9 }))
            .collect();
        assert!(msgs.iter().all(|m| m.ends_with(" at byte 9")));
        msgs.sort();
        msgs.dedup();
        assert_eq!(msgs.len(), kinds.len(), "each kind has its own message");
        assert_eq!(kinds.iter().filter(|k| k.is_limit()).count(), 1);
    }
}
