//! The validating JSON scanner: RFC 8259, iterative, with a nesting limit.
//!
//! The scanner never recurses, so no input can exhaust the stack; nesting is tracked in a
//! fixed bit stack of [`MAX_DEPTH_CAP`] levels. It works on `&str`, so UTF-8 validity is
//! already guaranteed by the type; what it checks is the JSON grammar: no raw control
//! characters in strings, only the escapes RFC 8259 lists, `\u` surrogates correctly paired,
//! numbers without leading zeros, no `NaN`/`Infinity`, no trailing characters.

use super::bit_stack::BitStack;
use super::error::{JsonError, JsonErrorKind};
use super::error::{eof, error};
use super::string_stop::{find_string_stop, find_string_stop_byte};

/// The largest nesting limit a scanner can be configured with.
pub const MAX_DEPTH_CAP: usize = 256;

/// The nesting limit used by [`Json::new`](super::Json::new) and the default [`Limits`](crate::Limits).
pub const DEFAULT_MAX_DEPTH: usize = 64;

/// Where a scanned string lies, and whether it contains escapes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct StrSpan {
    /// Offset of the first byte after the opening quote.
    pub(crate) start: usize,
    /// Offset of the closing quote.
    pub(crate) end: usize,
    pub(crate) escaped: bool,
}

/// A cursor over JSON text. All methods leave `pos` after what they consumed.
pub(crate) struct Scanner<'a> {
    pub(crate) b: &'a [u8],
    pub(crate) pos: usize,
}

// The scanning itself is done by free functions over `(bytes, offset)` that return the
// new offset, so that the offset stays in a register on the hot paths.

fn hex_val(c: u8) -> Option<u16> {
    match c {
        b'0'..=b'9' => Some((c - b'0') as u16),
        b'a'..=b'f' => Some((c - b'a' + 10) as u16),
        b'A'..=b'F' => Some((c - b'A' + 10) as u16),
        _ => None,
    }
}

#[inline(always)]
fn is_ws(c: u8) -> bool {
    matches!(c, b' ' | b'\n' | b'\r' | b'\t')
}

#[inline(always)]
fn skip_ws_at(b: &[u8], mut pos: usize) -> usize {
    while let Some(&c) = b.get(pos) {
        if !is_ws(c) {
            break;
        }
        pos += 1;
    }
    pos
}

/// Reads the 4 hex digits of a `\u` escape; `pos` is at the `u`.
fn u_escape(b: &[u8], pos: usize) -> Result<u16, JsonError> {
    let mut v: u16 = 0;
    for i in 1..=4 {
        let Some(&c) = b.get(pos + i) else {
            return Err(eof(b));
        };
        let Some(h) = hex_val(c) else {
            return Err(error(JsonErrorKind::InvalidEscape, pos + i));
        };
        v = (v << 4) | h;
    }
    Ok(v)
}

/// Checks one escape; `pos` is at its backslash. Returns the offset after it (after both
/// halves of a surrogate pair).
fn escape_end(b: &[u8], at: usize) -> Result<usize, JsonError> {
    let mut pos = at + 1;
    let Some(&e) = b.get(pos) else {
        return Err(eof(b));
    };
    match e {
        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => Ok(pos + 1),
        b'u' => {
            let v = u_escape(b, pos)?;
            pos += 5;
            if (0xDC00..0xE000).contains(&v) {
                return Err(error(JsonErrorKind::LoneSurrogate, at));
            }
            if (0xD800..0xDC00).contains(&v) {
                // Must be followed by a \u low surrogate.
                if b.get(pos) == Some(&b'\\') && b.get(pos + 1) == Some(&b'u') {
                    let lo = u_escape(b, pos + 1)?;
                    if !(0xDC00..0xE000).contains(&lo) {
                        return Err(error(JsonErrorKind::LoneSurrogate, at));
                    }
                    pos += 6;
                } else if pos >= b.len() || (b.get(pos) == Some(&b'\\') && pos + 1 >= b.len()) {
                    return Err(eof(b));
                } else {
                    return Err(error(JsonErrorKind::LoneSurrogate, at));
                }
            }
            Ok(pos)
        }
        _ => Err(error(JsonErrorKind::InvalidEscape, pos)),
    }
}

/// Scans a string's contents; `pos` is just after the opening quote. Returns the offset
/// of the closing quote and whether there were escapes.
#[inline(always)]
fn string_end(b: &[u8], pos: usize) -> Result<(usize, bool), JsonError> {
    let (pos, c) = find_string_stop_byte(b, pos);
    if c == Some(b'"') {
        return Ok((pos, false));
    }
    string_end_slow(b, pos)
}

/// [`string_end`] from the first stop byte that is not the closing quote.
#[inline(never)]
fn string_end_slow(b: &[u8], mut pos: usize) -> Result<(usize, bool), JsonError> {
    let mut escaped = false;
    loop {
        match b.get(pos) {
            Some(b'"') => return Ok((pos, escaped)),
            Some(b'\\') => {
                escaped = true;
                pos = escape_end(b, pos)?;
            }
            Some(_) => return Err(error(JsonErrorKind::ControlCharacter, pos)),
            None => return Err(eof(b)),
        }
        pos = find_string_stop(b, pos);
    }
}

#[inline(always)]
pub(super) fn digits_end(b: &[u8], mut pos: usize) -> usize {
    while let Some(c) = b.get(pos) {
        if !c.is_ascii_digit() {
            break;
        }
        pos += 1;
    }
    pos
}

/// Scans a number starting at `pos`; returns its end and whether it is an integer (no
/// fraction, no exponent).
#[inline(always)]
fn number_end(b: &[u8], mut pos: usize) -> Result<(usize, bool), JsonError> {
    if b.get(pos) == Some(&b'-') {
        pos += 1;
    }
    match b.get(pos) {
        Some(b'0') => {
            pos += 1;
            if matches!(b.get(pos), Some(b'0'..=b'9')) {
                return Err(error(JsonErrorKind::InvalidNumber, pos));
            }
        }
        Some(b'1'..=b'9') => pos = digits_end(b, pos + 1),
        None => return Err(eof(b)),
        Some(_) => return Err(error(JsonErrorKind::InvalidNumber, pos)),
    }
    if !matches!(b.get(pos), Some(b'.' | b'e' | b'E')) {
        return Ok((pos, true));
    }
    number_tail(b, pos)
}

/// The fraction and exponent of a number; `pos` is at `.`, `e` or `E`.
pub(super) fn number_tail(b: &[u8], mut pos: usize) -> Result<(usize, bool), JsonError> {
    let bad = |pos: usize| {
        if pos >= b.len() {
            eof(b)
        } else {
            error(JsonErrorKind::InvalidNumber, pos)
        }
    };
    if b.get(pos) == Some(&b'.') {
        let end = digits_end(b, pos + 1);
        if end == pos + 1 {
            return Err(bad(end));
        }
        pos = end;
    }
    if matches!(b.get(pos), Some(b'e' | b'E')) {
        pos += 1;
        if matches!(b.get(pos), Some(b'+' | b'-')) {
            pos += 1;
        }
        let end = digits_end(b, pos);
        if end == pos {
            return Err(bad(end));
        }
        pos = end;
    }
    Ok((pos, false))
}

/// Checks the literal `lit` at `pos`; returns the offset after it.
#[inline(always)]
fn literal_end(b: &[u8], pos: usize, lit: &[u8]) -> Result<usize, JsonError> {
    if b.get(pos..pos + lit.len()) == Some(lit) {
        return Ok(pos + lit.len());
    }
    Err(literal_error(b, pos, lit))
}

#[cold]
fn literal_error(b: &[u8], pos: usize, lit: &[u8]) -> JsonError {
    for (i, &c) in lit.iter().enumerate() {
        match b.get(pos + i) {
            Some(&x) if x == c => {}
            Some(_) => return error(JsonErrorKind::UnexpectedByte, pos + i),
            None => return eof(b),
        }
    }
    eof(b)
}

/// Scans an object key (at `pos`, after whitespace) and the following `:`; returns the
/// offset after the colon.
#[inline(always)]
fn key_colon_end(b: &[u8], pos: usize) -> Result<usize, JsonError> {
    match b.get(pos) {
        Some(b'"') => {}
        Some(_) => return Err(error(JsonErrorKind::UnexpectedByte, pos)),
        None => return Err(eof(b)),
    }
    let (end, _) = string_end(b, pos + 1)?;
    let pos = skip_ws_at(b, end + 1);
    match b.get(pos) {
        Some(b':') => Ok(pos + 1),
        Some(_) => Err(error(JsonErrorKind::UnexpectedByte, pos)),
        None => Err(eof(b)),
    }
}

/// Scans one complete value starting at `pos` (leading whitespace allowed) that sits at
/// nesting level `base_depth`; returns the offset after it. See [`Scanner::scan_value`].
#[inline(always)]
fn value_end(
    b: &[u8],
    pos: usize,
    base_depth: usize,
    max_depth: usize,
) -> Result<usize, JsonError> {
    // Containers this value may open.
    let room = max_depth.min(MAX_DEPTH_CAP).saturating_sub(base_depth);
    #[cfg(target_pointer_width = "64")]
    if let Some(end) = super::scan_fast::value_end(b, pos, room) {
        return Ok(end);
    }
    value_end_exact(b, pos, room)
}

/// [`value_end`] with exact errors; `room` is the number of containers the value may open.
#[inline(never)]
fn value_end_exact(b: &[u8], mut pos: usize, room: usize) -> Result<usize, JsonError> {
    let mut stack = BitStack::new();
    // Whether the innermost open container is an object (meaningless when none is open).
    let mut in_obj = false;
    loop {
        // Expect a value.
        pos = skip_ws_at(b, pos);
        let Some(&c) = b.get(pos) else {
            return Err(eof(b));
        };
        match c {
            b'"' => pos = string_end(b, pos + 1)?.0 + 1,
            b'{' | b'[' => {
                let is_obj = c == b'{';
                if stack.len() >= room || !stack.push(is_obj) {
                    return Err(error(JsonErrorKind::TooDeep, pos));
                }
                in_obj = is_obj;
                pos = skip_ws_at(b, pos + 1);
                let close = if is_obj { b'}' } else { b']' };
                if b.get(pos) == Some(&close) {
                    pos += 1;
                    stack.pop();
                    in_obj = stack.top() == Some(true);
                } else {
                    if is_obj {
                        pos = key_colon_end(b, pos)?;
                    }
                    continue;
                }
            }
            b'-' | b'0'..=b'9' => pos = number_end(b, pos)?.0,
            b't' => pos = literal_end(b, pos, b"true")?,
            b'f' => pos = literal_end(b, pos, b"false")?,
            b'n' => pos = literal_end(b, pos, b"null")?,
            _ => return Err(error(JsonErrorKind::UnexpectedByte, pos)),
        }
        // After a value: close containers or move to the next element.
        loop {
            if stack.len() == 0 {
                return Ok(pos);
            }
            pos = skip_ws_at(b, pos);
            match b.get(pos) {
                Some(b',') => {
                    pos += 1;
                    if in_obj {
                        pos = key_colon_end(b, skip_ws_at(b, pos))?;
                    }
                    break;
                }
                Some(b'}') if in_obj => {}
                Some(b']') if !in_obj => {}
                Some(_) => return Err(error(JsonErrorKind::UnexpectedByte, pos)),
                None => return Err(eof(b)),
            }
            pos += 1;
            stack.pop();
            in_obj = stack.top() == Some(true);
        }
    }
}

impl<'a> Scanner<'a> {
    pub(crate) fn new(b: &'a [u8]) -> Self {
        Scanner { b, pos: 0 }
    }

    #[inline]
    pub(crate) fn skip_ws(&mut self) {
        self.pos = skip_ws_at(self.b, self.pos);
    }

    #[inline]
    pub(crate) fn peek(&self) -> Option<u8> {
        self.b.get(self.pos).copied()
    }

    pub(crate) fn expect(&mut self, c: u8) -> Result<(), JsonError> {
        match self.peek() {
            Some(x) if x == c => {
                self.pos += 1;
                Ok(())
            }
            Some(_) => Err(error(JsonErrorKind::UnexpectedByte, self.pos)),
            None => Err(eof(self.b)),
        }
    }

    /// Scans a string; `pos` must be at the opening quote.
    #[inline]
    pub(crate) fn scan_string(&mut self) -> Result<StrSpan, JsonError> {
        match self.peek() {
            Some(b'"') => {}
            Some(_) => return Err(error(JsonErrorKind::UnexpectedByte, self.pos)),
            None => return Err(eof(self.b)),
        }
        let start = self.pos + 1;
        let (end, escaped) = string_end(self.b, start)?;
        self.pos = end + 1;
        Ok(StrSpan {
            start,
            end,
            escaped,
        })
    }

    /// Scans a number; returns whether it is an integer (no fraction, no exponent).
    #[cfg(test)]
    pub(crate) fn scan_number(&mut self) -> Result<bool, JsonError> {
        let (end, integer) = number_end(self.b, self.pos)?;
        self.pos = end;
        Ok(integer)
    }

    /// Scans one complete value starting at `pos` (leading whitespace allowed), which sits
    /// at nesting level `base_depth` (0 for a whole document); containers may add levels
    /// up to `max_depth` in total.
    #[inline]
    pub(crate) fn scan_value(
        &mut self,
        base_depth: usize,
        max_depth: usize,
    ) -> Result<(), JsonError> {
        self.pos = value_end(self.b, self.pos, base_depth, max_depth)?;
        Ok(())
    }

    /// Scans a whole document: one value with only whitespace around it.
    pub(crate) fn scan_document(&mut self, max_depth: usize) -> Result<(), JsonError> {
        self.skip_ws();
        if self.pos >= self.b.len() {
            return Err(error(JsonErrorKind::Empty, self.pos));
        }
        self.scan_value(0, max_depth)?;
        self.skip_ws();
        if self.pos < self.b.len() {
            return Err(error(JsonErrorKind::TrailingCharacters, self.pos));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::string::String;

    use super::JsonErrorKind::*;
    use super::*;
    use crate::json::Json;

    /// `table!(f; input => expected, ...)` calls `f(line, input, expected)` for each row, so
    /// a failing row names its own source line.
    macro_rules! table {
        ($f:expr; $($input:expr => $expected:expr),* $(,)?) => {{
            $( $f(line!(), $input, $expected); )*
        }};
    }

    /// Where the fast path accepts a value, the exact scanner accepts the same value.
    fn fast_agrees(line: u32, input: &[u8]) {
        #[cfg(target_pointer_width = "64")]
        for room in [0, 1, 2, 64] {
            if let Some(end) = super::super::scan_fast::value_end(input, 0, room) {
                assert_eq!(
                    value_end_exact(input, 0, room),
                    Ok(end),
                    "row {line}: {input:?} room {room}"
                );
            }
        }
        let _ = (line, input);
    }

    fn accepts(line: u32, input: &[u8], _: ()) {
        fast_agrees(line, input);
        let text = core::str::from_utf8(input).unwrap();
        assert!(
            Json::new(text).is_ok(),
            "row {line}: {text:?} must be accepted, got {:?}",
            Json::new(text)
        );
    }

    fn rejects(line: u32, input: &[u8], (kind, offset): (JsonErrorKind, usize)) {
        fast_agrees(line, input);
        let text = core::str::from_utf8(input).unwrap();
        assert_eq!(
            Json::new(text).map(|_| ()),
            Err(JsonError { kind, offset }),
            "row {line}: {text:?}"
        );
    }

    /// `n` levels of `open`/`close`; an object's innermost level is `{}`.
    fn nested(open: &str, close: &str, n: usize) -> String {
        if open == "[" {
            return open.repeat(n) + &close.repeat(n);
        }
        open.repeat(n - 1) + "{}" + &close.repeat(n - 1)
    }

    #[test]
    fn accepts_rfc8259() {
        table!(accepts;
            // numbers
            b"0" => (), b"-0" => (), b"1" => (), b"-1" => (), b"10" => (), b"1234567890" => (),
            b"1.5" => (), b"-1.5e10" => (), b"1E+2" => (), b"1e-2" => (), b"1E2" => (), b"0.0" => (),
            b"0e0" => (), b"-0.0e-0" => (), b"123456789012345678901234567890" => (), b"1e400" => (),
            // literals
            b"true" => (), b"false" => (), b"null" => (),
            // strings
            b"\"\"" => (), b"\"a\"" => (), br#""\"\\\/\b\f\n\r\t""# => (), br#""\u0000""# => (),
            br#""\uD83D\uDE00""# => (), br#""\ud83d\ude00""# => (), br#""\uFFFF\uE000\uD7FF""# => (),
            "\"é😀\u{2028}\"".as_bytes() => (), b"\"\x7f\"" => (), br#""\u007f""# => (),
            br#""\\u0000""# => (), br#""a\\""# => (),
            // containers
            b"[]" => (), b"{}" => (), b"[1,[2,[3]]]" => (), br#"{"a":{"b":[]}}"# => (),
            br#"{"":0}"# => (), br#"{"a":1,"a":2}"# => (), br#"[{},[],"",0,true,false,null]"# => (),
            br#"{"a":[{"b":"}"},"]"]}"# => (),
            // whitespace anywhere between tokens
            b" \t\r\n [ 1 , 2 ] \n" => (), b"{ \"a\" : 1 ,\n\"b\"\t:\r[ ] }" => (), b"[ ]" => (), b"{ }" => (),
        );
    }

    #[test]
    fn rejects_with_kind_and_offset() {
        table!(rejects;
            // empty
            b"" => (Empty, 0), b"   " => (Empty, 3), b"\n\t\r " => (Empty, 4),
            // not JSON numbers
            b"NaN" => (UnexpectedByte, 0), b"Infinity" => (UnexpectedByte, 0), b"-Infinity" => (InvalidNumber, 1),
            b"+1" => (UnexpectedByte, 0), b".5" => (UnexpectedByte, 0), b"01" => (InvalidNumber, 1),
            b"00" => (InvalidNumber, 1), b"-01" => (InvalidNumber, 2), b"[01]" => (InvalidNumber, 2),
            b"1." => (UnexpectedEnd, 2), b"1.e1" => (InvalidNumber, 2), b"1.x" => (InvalidNumber, 2),
            b"1e" => (UnexpectedEnd, 2), b"1e+" => (UnexpectedEnd, 3), b"1ex" => (InvalidNumber, 2),
            b"-" => (UnexpectedEnd, 1), b"-a" => (InvalidNumber, 1), b"0x10" => (TrailingCharacters, 1),
            b"1 2" => (TrailingCharacters, 2), b"[1 2]" => (UnexpectedByte, 3), b"[-]" => (InvalidNumber, 2),
            // strings
            b"\"a" => (UnexpectedEnd, 2), b"\"" => (UnexpectedEnd, 1), b"\"\x00\"" => (ControlCharacter, 1),
            b"\"a\nb\"" => (ControlCharacter, 2), b"\"\x1f\"" => (ControlCharacter, 1), b"\"\t\"" => (ControlCharacter, 1),
            b"\"\r\"" => (ControlCharacter, 1), b"\"abc\x08\"" => (ControlCharacter, 4),
            br#""\a""# => (InvalidEscape, 2), br#""\'""# => (InvalidEscape, 2), br#""\U0041""# => (InvalidEscape, 2),
            br#""\x41""# => (InvalidEscape, 2), br#""\0""# => (InvalidEscape, 2),
            br#""\u12""# => (InvalidEscape, 5), br#""\u00G0""# => (InvalidEscape, 5), br#""\u+123""# => (InvalidEscape, 3),
            br#""\u"# => (UnexpectedEnd, 3), br#""\u00"# => (UnexpectedEnd, 5), b"\"\\" => (UnexpectedEnd, 2),
            // surrogates must be paired (the offset is the backslash of the first escape)
            br#""\uD800""# => (LoneSurrogate, 1), br#""\uDC00""# => (LoneSurrogate, 1), br#""\udfff""# => (LoneSurrogate, 1),
            br#""ab\uD800\u0041""# => (LoneSurrogate, 3), br#""\uD800\uD800""# => (LoneSurrogate, 1),
            br#""\uD800\n""# => (LoneSurrogate, 1), br#""\uD800x""# => (LoneSurrogate, 1),
            br#""\uDE00\uD83D""# => (LoneSurrogate, 1), br#"{"\uD800":1}"# => (LoneSurrogate, 2),
            br#""\uD800"# => (UnexpectedEnd, 7), br#""\uD800\"# => (UnexpectedEnd, 8), br#""\uD800\u"# => (UnexpectedEnd, 9),
            br#""\uD800\uDC"# => (UnexpectedEnd, 11), br#""\uD800\uDCxx""# => (InvalidEscape, 11),
            // literals
            b"tru" => (UnexpectedEnd, 3), b"trUe" => (UnexpectedByte, 2), b"nul" => (UnexpectedEnd, 3),
            b"nulll" => (TrailingCharacters, 4), b"True" => (UnexpectedByte, 0), b"fals" => (UnexpectedEnd, 4),
            b"undefined" => (UnexpectedByte, 0),
            // structure
            b"[" => (UnexpectedEnd, 1), b"{" => (UnexpectedEnd, 1), b"[1" => (UnexpectedEnd, 2), b"[1," => (UnexpectedEnd, 3),
            b"[1,]" => (UnexpectedByte, 3), b"[,1]" => (UnexpectedByte, 1), b"[,]" => (UnexpectedByte, 1),
            br#"{"a"}"# => (UnexpectedByte, 4), br#"{"a":}"# => (UnexpectedByte, 5), br#"{"a":1,}"# => (UnexpectedByte, 7),
            br#"{,}"# => (UnexpectedByte, 1), b"{a:1}" => (UnexpectedByte, 1), b"{'a':1}" => (UnexpectedByte, 1),
            b"{1:2}" => (UnexpectedByte, 1), br#"{"a":1]"# => (UnexpectedByte, 6), b"[1}" => (UnexpectedByte, 2),
            br#"{"a" 1}"# => (UnexpectedByte, 5), br#"{"a"::1}"# => (UnexpectedByte, 5), br#"{"a":1 "b":2}"# => (UnexpectedByte, 7),
            b"]" => (UnexpectedByte, 0), b"}" => (UnexpectedByte, 0), b":" => (UnexpectedByte, 0),
            br#"{"a":1}}"# => (TrailingCharacters, 7), b"{}x" => (TrailingCharacters, 2), b"[]]" => (TrailingCharacters, 2),
            b"{}\x00" => (TrailingCharacters, 2), b"{} {}" => (TrailingCharacters, 3), b"1,2" => (TrailingCharacters, 1),
            b"// c\n1" => (UnexpectedByte, 0), b"[1]/*c*/" => (TrailingCharacters, 3), b"[1,/*c*/2]" => (UnexpectedByte, 3),
            // only the four RFC whitespace bytes are whitespace
            b"\x0c1" => (UnexpectedByte, 0), b"[1,\x0b2]" => (UnexpectedByte, 3), "\u{a0}1".as_bytes() => (UnexpectedByte, 0),
            "\u{feff}{}".as_bytes() => (UnexpectedByte, 0),
        );
    }

    #[test]
    fn depth_limit() {
        for (open, close) in [("[", "]"), ("{\"k\":", "}")] {
            let ok = nested(open, close, DEFAULT_MAX_DEPTH);
            assert!(Json::new(&ok).is_ok(), "{open} x {DEFAULT_MAX_DEPTH}");
            let deep = nested(open, close, DEFAULT_MAX_DEPTH + 1);
            let e = Json::new(&deep).unwrap_err();
            assert_eq!(e.kind, TooDeep);
            assert_eq!(
                e.offset,
                DEFAULT_MAX_DEPTH * open.len(),
                "offset of the first bracket too many"
            );
            assert!(e.kind.is_limit());
        }
        // Scalars do not count as a level; empty containers do.
        assert!(Json::with_max_depth("1", 0).is_ok());
        assert_eq!(
            Json::with_max_depth("[]", 0).unwrap_err(),
            JsonError {
                kind: TooDeep,
                offset: 0
            }
        );
        assert!(Json::with_max_depth("[1,2]", 1).is_ok());
        assert_eq!(
            Json::with_max_depth("[[]]", 1).unwrap_err(),
            JsonError {
                kind: TooDeep,
                offset: 1
            }
        );
        assert_eq!(
            Json::with_max_depth(r#"{"a":{}}"#, 1).unwrap_err(),
            JsonError {
                kind: TooDeep,
                offset: 5
            }
        );
        assert!(Json::with_max_depth(r#"[[],{},[{}]]"#, 3).is_ok());
        assert_eq!(
            Json::with_max_depth(r#"[[],{},[{"a":[]}]]"#, 3)
                .unwrap_err()
                .kind,
            TooDeep
        );
        // Sequential containers at the limit do not accumulate depth.
        let wide = String::from("[") + &["[[]]"; 100].join(",") + "]";
        assert!(Json::with_max_depth(&wide, 3).is_ok());
        // Limits above the cap are clamped to it.
        assert!(Json::with_max_depth(&nested("[", "]", MAX_DEPTH_CAP), 10_000).is_ok());
        let e = Json::with_max_depth(&nested("[", "]", MAX_DEPTH_CAP + 1), 10_000).unwrap_err();
        assert_eq!((e.kind, e.offset), (TooDeep, MAX_DEPTH_CAP));
        // A syntax error before the limit is reported as such.
        assert_eq!(Json::with_max_depth("[[x", 1).unwrap_err().kind, TooDeep);
        assert_eq!(
            Json::with_max_depth("[x[", 1).unwrap_err().kind,
            UnexpectedByte
        );
        // Very deep input is rejected without recursion.
        let huge = "[".repeat(1_000_000);
        assert_eq!(Json::new(&huge).unwrap_err().kind, TooDeep);
    }

    #[test]
    fn every_control_character_is_rejected_raw_and_accepted_escaped() {
        for c in 0u8..0x20 {
            let raw = [b'"', b'a', c, b'"'];
            let text = core::str::from_utf8(&raw).unwrap();
            assert_eq!(
                Json::new(text).unwrap_err(),
                JsonError {
                    kind: ControlCharacter,
                    offset: 2
                },
                "{c:#x}"
            );
            let esc = std::format!("\"\\u{:04x}\"", c);
            assert!(Json::new(&esc).is_ok(), "{esc}");
        }
        for c in 0x20u8..0x80 {
            let raw = [b'"', c, b'"'];
            let text = core::str::from_utf8(&raw).unwrap();
            let expect_ok = c != b'"' && c != b'\\';
            assert_eq!(Json::new(text).is_ok(), expect_ok, "{c:#x}");
        }
    }

    #[test]
    fn every_escape_letter() {
        for c in 0x20u8..0x7f {
            let raw = [b'"', b'\\', c, b'"'];
            let text = core::str::from_utf8(&raw).unwrap();
            let r = Json::new(text);
            match c {
                b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {
                    assert!(r.is_ok(), "{text}")
                }
                b'u' => assert_eq!(r.unwrap_err().kind, InvalidEscape),
                _ => assert_eq!(
                    r.unwrap_err(),
                    JsonError {
                        kind: InvalidEscape,
                        offset: 2
                    },
                    "{text}"
                ),
            }
        }
    }

    #[test]
    fn surrogate_ranges() {
        // Every high surrogate pairs with every low one; nothing else pairs.
        for hi in [0xD800u32, 0xD9AB, 0xDBFF] {
            for lo in [0xDC00u32, 0xDD00, 0xDFFF] {
                assert!(Json::new(&std::format!("\"\\u{hi:04X}\\u{lo:04x}\"")).is_ok());
            }
            for lo in [0x0041u32, 0xD800, 0xDBFF, 0xE000, 0xFFFF] {
                let e = Json::new(&std::format!("\"\\u{hi:04X}\\u{lo:04X}\"")).unwrap_err();
                assert_eq!(
                    e,
                    JsonError {
                        kind: LoneSurrogate,
                        offset: 1
                    }
                );
            }
        }
        for cp in [0xD7FFu32, 0xE000, 0x0000, 0xFFFE] {
            assert!(Json::new(&std::format!("\"\\u{cp:04x}\"")).is_ok());
        }
    }

    #[test]
    fn scanner_parts() {
        let mut sc = Scanner::new(br#""a\nb" x"#);
        let s = sc.scan_string().unwrap();
        assert_eq!((s.start, s.end, s.escaped, sc.pos), (1, 5, true, 6));
        let mut sc = Scanner::new(br#""plain""#);
        let s = sc.scan_string().unwrap();
        assert_eq!((s.start, s.end, s.escaped), (1, 6, false));
        assert_eq!(
            Scanner::new(b"x").scan_string().unwrap_err().kind,
            UnexpectedByte
        );
        assert_eq!(
            Scanner::new(b"").scan_string().unwrap_err().kind,
            UnexpectedEnd
        );
        for (num, integer, end) in [
            ("-12,", true, 3),
            ("0.5]", false, 3),
            ("1e3 ", false, 3),
            ("7", true, 1),
        ] {
            let mut sc = Scanner::new(num.as_bytes());
            assert_eq!(sc.scan_number().unwrap(), integer, "{num}");
            assert_eq!(sc.pos, end, "{num}");
        }
        // scan_value at a nesting base stops after one value.
        let mut sc = Scanner::new(br#"  {"a":[1]} , 2"#);
        sc.scan_value(0, 2).unwrap();
        assert_eq!(sc.pos, 11);
        let mut sc = Scanner::new(br#"{"a":[1]}"#);
        assert_eq!(sc.scan_value(1, 2).unwrap_err().kind, TooDeep);
    }

    #[test]
    fn deep_mixed_nesting() {
        // Alternating arrays and objects, 200 levels, closed correctly: fine up to the cap.
        let (mut open, mut close) = (String::new(), String::new());
        for i in 0..200 {
            if i % 3 == 0 {
                open.push_str("{\"k\":");
                close.insert(0, '}');
            } else {
                open.push('[');
                close.insert(0, ']');
            }
        }
        let doc = std::format!("{open}1{close}");
        assert!(Json::with_max_depth(&doc, MAX_DEPTH_CAP).is_ok());
        assert_eq!(Json::with_max_depth(&doc, 199).unwrap_err().kind, TooDeep);
        // Swapping any one closing bracket for the other kind is caught at its offset.
        for i in [0, 1, 2, 63, 64, 65, 130, 199] {
            let mut bad = close.clone().into_bytes();
            bad[i] = if bad[i] == b']' { b'}' } else { b']' };
            let doc = std::format!("{open}1{}", String::from_utf8(bad).unwrap());
            let e = Json::with_max_depth(&doc, MAX_DEPTH_CAP).unwrap_err();
            assert_eq!(
                (e.kind, e.offset),
                (UnexpectedByte, open.len() + 1 + i),
                "close {i}"
            );
        }
    }
}
