//! The validating JSON scanner: RFC 8259, iterative, with a nesting limit.
//!
//! The scanner never recurses, so no input can exhaust the stack; nesting is tracked in a
//! fixed bit stack of [`MAX_DEPTH_CAP`] levels. It works on `&str`, so UTF-8 validity is
//! already guaranteed by the type; what it checks is the JSON grammar: no raw control
//! characters in strings, only the escapes RFC 8259 lists, `\u` surrogates correctly paired,
//! numbers without leading zeros, no `NaN`/`Infinity`, no trailing characters.

use core::fmt;

/// The largest nesting limit a scanner can be configured with.
pub const MAX_DEPTH_CAP: usize = 256;

/// The nesting limit used by [`Json::new`](super::Json::new) and the default [`Limits`](crate::Limits).
pub const DEFAULT_MAX_DEPTH: usize = 64;

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

/// A fixed stack of one bit per nesting level (1 = object, 0 = array).
#[derive(Clone, Copy)]
pub(crate) struct BitStack {
    words: [u64; MAX_DEPTH_CAP / 64],
    len: usize,
}

impl BitStack {
    pub(crate) const fn new() -> Self {
        BitStack { words: [0; MAX_DEPTH_CAP / 64], len: 0 }
    }
    /// Pushes a bit; returns false when the stack is full.
    pub(crate) fn push(&mut self, bit: bool) -> bool {
        if self.len >= MAX_DEPTH_CAP {
            return false;
        }
        let (w, b) = (self.len / 64, self.len % 64);
        if bit {
            self.words[w] |= 1 << b;
        } else {
            self.words[w] &= !(1 << b);
        }
        self.len += 1;
        true
    }
    pub(crate) fn pop(&mut self) {
        self.len = self.len.saturating_sub(1);
    }
    pub(crate) fn top(&self) -> Option<bool> {
        if self.len == 0 {
            return None;
        }
        let i = self.len - 1;
        Some(self.words[i / 64] & (1 << (i % 64)) != 0)
    }
    pub(crate) fn set_top(&mut self, bit: bool) {
        if self.len > 0 {
            let i = self.len - 1;
            if bit {
                self.words[i / 64] |= 1 << (i % 64);
            } else {
                self.words[i / 64] &= !(1 << (i % 64));
            }
        }
    }
    pub(crate) fn len(&self) -> usize {
        self.len
    }
}

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

const fn string_stops() -> [bool; 256] {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 0x20 {
        t[i] = true;
        i += 1;
    }
    t[b'"' as usize] = true;
    t[b'\\' as usize] = true;
    t
}
/// Bytes that end the fast path inside a string.
static STRING_STOPS: [bool; 256] = string_stops();

fn hex_val(c: u8) -> Option<u16> {
    match c {
        b'0'..=b'9' => Some((c - b'0') as u16),
        b'a'..=b'f' => Some((c - b'a' + 10) as u16),
        b'A'..=b'F' => Some((c - b'A' + 10) as u16),
        _ => None,
    }
}

impl<'a> Scanner<'a> {
    pub(crate) fn new(b: &'a [u8]) -> Self {
        Scanner { b, pos: 0 }
    }

    fn err(&self, kind: JsonErrorKind) -> JsonError {
        JsonError { kind, offset: self.pos }
    }

    fn eof(&self) -> JsonError {
        JsonError { kind: JsonErrorKind::UnexpectedEnd, offset: self.b.len() }
    }

    #[inline]
    pub(crate) fn skip_ws(&mut self) {
        while let Some(&c) = self.b.get(self.pos) {
            if c == b' ' || c == b'\n' || c == b'\r' || c == b'\t' {
                self.pos += 1;
            } else {
                break;
            }
        }
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
            Some(_) => Err(self.err(JsonErrorKind::UnexpectedByte)),
            None => Err(self.eof()),
        }
    }

    fn read_u_escape(&mut self) -> Result<u16, JsonError> {
        // pos is at the 'u'
        let mut v: u16 = 0;
        for i in 1..=4 {
            let Some(&c) = self.b.get(self.pos + i) else {
                return Err(self.eof());
            };
            let Some(h) = hex_val(c) else {
                return Err(JsonError { kind: JsonErrorKind::InvalidEscape, offset: self.pos + i });
            };
            v = (v << 4) | h;
        }
        self.pos += 5;
        Ok(v)
    }

    /// Scans a string; `pos` must be at the opening quote.
    pub(crate) fn scan_string(&mut self) -> Result<StrSpan, JsonError> {
        if self.peek() != Some(b'"') {
            return Err(match self.peek() {
                None => self.eof(),
                Some(_) => self.err(JsonErrorKind::UnexpectedByte),
            });
        }
        self.pos += 1;
        let start = self.pos;
        let mut escaped = false;
        loop {
            // Fast path: skip ordinary bytes.
            while let Some(&c) = self.b.get(self.pos) {
                if STRING_STOPS[c as usize] {
                    break;
                }
                self.pos += 1;
            }
            let Some(&c) = self.b.get(self.pos) else {
                return Err(self.eof());
            };
            match c {
                b'"' => {
                    let end = self.pos;
                    self.pos += 1;
                    return Ok(StrSpan { start, end, escaped });
                }
                b'\\' => {
                    escaped = true;
                    self.pos += 1;
                    let Some(&e) = self.b.get(self.pos) else {
                        return Err(self.eof());
                    };
                    match e {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => self.pos += 1,
                        b'u' => {
                            let at = self.pos - 1;
                            let v = self.read_u_escape()?;
                            if (0xDC00..0xE000).contains(&v) {
                                return Err(JsonError { kind: JsonErrorKind::LoneSurrogate, offset: at });
                            }
                            if (0xD800..0xDC00).contains(&v) {
                                // Must be followed by \u low surrogate.
                                if self.b.get(self.pos) == Some(&b'\\') && self.b.get(self.pos + 1) == Some(&b'u') {
                                    self.pos += 1;
                                    let lo = self.read_u_escape()?;
                                    if !(0xDC00..0xE000).contains(&lo) {
                                        return Err(JsonError { kind: JsonErrorKind::LoneSurrogate, offset: at });
                                    }
                                } else if self.pos >= self.b.len() || (self.b.get(self.pos) == Some(&b'\\') && self.pos + 1 >= self.b.len()) {
                                    return Err(self.eof());
                                } else {
                                    return Err(JsonError { kind: JsonErrorKind::LoneSurrogate, offset: at });
                                }
                            }
                        }
                        _ => return Err(self.err(JsonErrorKind::InvalidEscape)),
                    }
                }
                _ => return Err(self.err(JsonErrorKind::ControlCharacter)),
            }
        }
    }

    fn digits(&mut self) -> usize {
        let s = self.pos;
        while let Some(c) = self.peek() {
            if c.is_ascii_digit() {
                self.pos += 1;
            } else {
                break;
            }
        }
        self.pos - s
    }

    /// Scans a number; returns whether it is an integer (no fraction, no exponent).
    pub(crate) fn scan_number(&mut self) -> Result<bool, JsonError> {
        let mut integer = true;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek() {
            Some(b'0') => {
                self.pos += 1;
                if matches!(self.peek(), Some(b'0'..=b'9')) {
                    return Err(self.err(JsonErrorKind::InvalidNumber));
                }
            }
            Some(b'1'..=b'9') => {
                self.digits();
            }
            None => return Err(self.eof()),
            Some(_) => return Err(self.err(JsonErrorKind::InvalidNumber)),
        }
        if self.peek() == Some(b'.') {
            integer = false;
            self.pos += 1;
            if self.digits() == 0 {
                return Err(if self.pos >= self.b.len() { self.eof() } else { self.err(JsonErrorKind::InvalidNumber) });
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            integer = false;
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if self.digits() == 0 {
                return Err(if self.pos >= self.b.len() { self.eof() } else { self.err(JsonErrorKind::InvalidNumber) });
            }
        }
        Ok(integer)
    }

    fn literal(&mut self, lit: &[u8]) -> Result<(), JsonError> {
        for (i, &c) in lit.iter().enumerate() {
            match self.b.get(self.pos + i) {
                Some(&x) if x == c => {}
                Some(_) => return Err(JsonError { kind: JsonErrorKind::UnexpectedByte, offset: self.pos + i }),
                None => return Err(self.eof()),
            }
        }
        self.pos += lit.len();
        Ok(())
    }

    /// Scans one object key and the following `:`. `pos` must be at the key's quote
    /// (after whitespace).
    fn key_colon(&mut self) -> Result<(), JsonError> {
        self.scan_string()?;
        self.skip_ws();
        self.expect(b':')
    }

    /// Scans one complete value starting at `pos` (leading whitespace allowed), which sits
    /// at nesting level `base_depth` (0 for a whole document); containers may add levels
    /// up to `max_depth` in total.
    pub(crate) fn scan_value(&mut self, base_depth: usize, max_depth: usize) -> Result<(), JsonError> {
        let max_depth = max_depth.min(MAX_DEPTH_CAP);
        let mut stack = BitStack::new();
        loop {
            // Expect a value.
            self.skip_ws();
            let Some(c) = self.peek() else {
                return Err(self.eof());
            };
            match c {
                b'{' | b'[' => {
                    let is_obj = c == b'{';
                    if base_depth + stack.len() + 1 > max_depth || !stack.push(is_obj) {
                        return Err(self.err(JsonErrorKind::TooDeep));
                    }
                    self.pos += 1;
                    self.skip_ws();
                    let close = if is_obj { b'}' } else { b']' };
                    if self.peek() == Some(close) {
                        self.pos += 1;
                        stack.pop();
                    } else {
                        if is_obj {
                            self.key_colon()?;
                        }
                        continue;
                    }
                }
                b'"' => {
                    self.scan_string()?;
                }
                b'-' | b'0'..=b'9' => {
                    self.scan_number()?;
                }
                b't' => self.literal(b"true")?,
                b'f' => self.literal(b"false")?,
                b'n' => self.literal(b"null")?,
                _ => return Err(self.err(JsonErrorKind::UnexpectedByte)),
            }
            // After a value: close containers or move to the next element.
            loop {
                let Some(is_obj) = stack.top() else {
                    return Ok(());
                };
                self.skip_ws();
                match self.peek() {
                    Some(b',') => {
                        self.pos += 1;
                        if is_obj {
                            self.skip_ws();
                            self.key_colon()?;
                        }
                        break;
                    }
                    Some(b'}') if is_obj => {
                        self.pos += 1;
                        stack.pop();
                    }
                    Some(b']') if !is_obj => {
                        self.pos += 1;
                        stack.pop();
                    }
                    Some(_) => return Err(self.err(JsonErrorKind::UnexpectedByte)),
                    None => return Err(self.eof()),
                }
            }
        }
    }

    /// Scans a whole document: one value with only whitespace around it.
    pub(crate) fn scan_document(&mut self, max_depth: usize) -> Result<(), JsonError> {
        self.skip_ws();
        if self.pos >= self.b.len() {
            return Err(JsonError { kind: JsonErrorKind::Empty, offset: self.pos });
        }
        self.scan_value(0, max_depth)?;
        self.skip_ws();
        if self.pos < self.b.len() {
            return Err(self.err(JsonErrorKind::TrailingCharacters));
        }
        Ok(())
    }
}

/// Skips one value in text that is already known to be valid JSON; returns the offset
/// after it. This is the fast path used by the value view.
pub(crate) fn skip_valid(b: &[u8], mut pos: usize) -> usize {
    while matches!(b.get(pos), Some(b' ' | b'\n' | b'\r' | b'\t')) {
        pos += 1;
    }
    match b.get(pos) {
        Some(b'"') => skip_valid_string(b, pos),
        Some(b'{' | b'[') => {
            let mut depth = 0usize;
            while let Some(&c) = b.get(pos) {
                match c {
                    b'"' => {
                        pos = skip_valid_string(b, pos);
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth = depth.saturating_sub(1);
                        if depth == 0 {
                            return pos + 1;
                        }
                    }
                    _ => {}
                }
                pos += 1;
            }
            pos
        }
        Some(_) => {
            while let Some(&c) = b.get(pos) {
                if matches!(c, b',' | b'}' | b']' | b' ' | b'\n' | b'\r' | b'\t') {
                    break;
                }
                pos += 1;
            }
            pos
        }
        None => pos,
    }
}

/// `pos` at the opening quote of a valid string; returns the offset after the closing quote.
pub(crate) fn skip_valid_string(b: &[u8], mut pos: usize) -> usize {
    pos += 1;
    while let Some(&c) = b.get(pos) {
        match c {
            b'"' => return pos + 1,
            b'\\' => pos += 2,
            _ => pos += 1,
        }
    }
    pos
}
