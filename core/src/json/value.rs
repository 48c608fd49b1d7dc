//! Zero-copy views of validated JSON: [`Json`] for any value, [`JsonStr`] for strings.

use core::fmt;

use super::scan::{DEFAULT_MAX_DEPTH, JsonError, Scanner, skip_valid, skip_valid_string};
use crate::error::InsufficientSize;

/// A JSON value, borrowed from the text it was found in, that is known to be valid.
///
/// A `Json` can only be made by validation ([`Json::new`]) or by the parsers of this crate,
/// so every accessor can assume the grammar holds. Nothing is decoded until asked for:
/// member lookup and iteration skip over the raw text, strings stay escaped until
/// [`JsonStr::unescape_into`] or [`JsonStr::eq_str`].
///
/// ```
/// use picomcp::json::Json;
/// let v = Json::new(r#"{"name":"echo","arguments":{"text":"hi\n"},"n":[1,2.5]}"#).unwrap();
/// assert_eq!(v.get("name").and_then(|n| n.as_str()).unwrap().as_plain(), Some("echo"));
/// let text = v.get("arguments").unwrap().get("text").unwrap().as_str().unwrap();
/// let mut buf = [0u8; 16];
/// assert_eq!(text.unescape_into(&mut buf).unwrap(), "hi\n");
/// assert_eq!(v.get("n").unwrap().elements().count(), 2);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Json<'a>(&'a str);

/// The type of a [`Json`] value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonKind {
    /// `null`
    Null,
    /// `true` or `false`
    Bool,
    /// A number.
    Number,
    /// A string.
    String,
    /// An array.
    Array,
    /// An object.
    Object,
}

impl<'a> Json<'a> {
    /// Validates `text` as one JSON document (surrounding whitespace allowed) with the
    /// default nesting limit of 64.
    ///
    /// # Errors
    /// [`JsonError`] with the kind and byte offset of the first problem.
    pub fn new(text: &'a str) -> Result<Self, JsonError> {
        Self::with_max_depth(text, DEFAULT_MAX_DEPTH)
    }

    /// Like [`Json::new`] with an explicit nesting limit (at most
    /// [`MAX_DEPTH_CAP`](super::MAX_DEPTH_CAP)).
    ///
    /// # Errors
    /// [`JsonError`] with the kind and byte offset of the first problem.
    pub fn with_max_depth(text: &'a str, max_depth: usize) -> Result<Self, JsonError> {
        let mut sc = Scanner::new(text.as_bytes());
        sc.scan_document(max_depth)?;
        Ok(Json(text.trim_matches(|c| matches!(c, ' ' | '\t' | '\r' | '\n'))))
    }

    /// Wraps text that a scanner of this crate has already validated.
    pub(crate) fn from_validated(text: &'a str) -> Self {
        Json(text)
    }

    /// The empty object `{}`.
    pub const EMPTY_OBJECT: Json<'static> = Json("{}");
    /// `null`.
    pub const NULL: Json<'static> = Json("null");

    /// The raw JSON text of this value (no surrounding whitespace).
    pub fn as_raw(&self) -> &'a str {
        self.0
    }

    /// The type of the value.
    pub fn kind(&self) -> JsonKind {
        match self.0.as_bytes().first() {
            Some(b'{') => JsonKind::Object,
            Some(b'[') => JsonKind::Array,
            Some(b'"') => JsonKind::String,
            Some(b't' | b'f') => JsonKind::Bool,
            Some(b'n') => JsonKind::Null,
            _ => JsonKind::Number,
        }
    }

    /// True for `null`.
    pub fn is_null(&self) -> bool {
        self.kind() == JsonKind::Null
    }

    /// True for an object.
    pub fn is_object(&self) -> bool {
        self.kind() == JsonKind::Object
    }

    /// The boolean, if this is `true` or `false`.
    pub fn as_bool(&self) -> Option<bool> {
        match self.0 {
            "true" => Some(true),
            "false" => Some(false),
            _ => None,
        }
    }

    /// The string, if this is a string.
    pub fn as_str(&self) -> Option<JsonStr<'a>> {
        if self.kind() != JsonKind::String {
            return None;
        }
        let inner = &self.0[1..self.0.len() - 1];
        Some(JsonStr { raw: inner, escaped: inner.as_bytes().contains(&b'\\') })
    }

    /// True when the number is written as an integer (no fraction, no exponent).
    pub fn is_integer(&self) -> bool {
        self.kind() == JsonKind::Number && !self.0.bytes().any(|c| matches!(c, b'.' | b'e' | b'E'))
    }

    /// The number as `i64`, if it is an integer in range.
    pub fn as_i64(&self) -> Option<i64> {
        if self.is_integer() { self.0.parse().ok() } else { None }
    }

    /// The number as `u64`, if it is a non-negative integer in range.
    pub fn as_u64(&self) -> Option<u64> {
        if self.is_integer() { self.0.parse().ok() } else { None }
    }

    /// The number as `f64` (rounded as usual; huge exponents give infinity).
    pub fn as_f64(&self) -> Option<f64> {
        if self.kind() == JsonKind::Number { self.0.parse().ok() } else { None }
    }

    /// Looks up a member of an object by its (unescaped) name; the first match wins.
    /// Returns `None` for a missing member or when this is not an object.
    pub fn get(&self, key: &str) -> Option<Json<'a>> {
        self.members().find(|(k, _)| k.eq_str(key)).map(|(_, v)| v)
    }

    /// The members of an object in order (empty when this is not an object).
    pub fn members(&self) -> Members<'a> {
        let pos = if self.kind() == JsonKind::Object { 1 } else { self.0.len() };
        Members { text: self.0, pos }
    }

    /// The elements of an array in order (empty when this is not an array).
    pub fn elements(&self) -> Elements<'a> {
        let pos = if self.kind() == JsonKind::Array { 1 } else { self.0.len() };
        Elements { text: self.0, pos }
    }

    /// Deserializes the value into a type with serde-json-core (no allocation). Borrowed
    /// `&str` fields only work for strings without escapes; use `heapless::String` for
    /// text that may be escaped.
    ///
    /// # Errors
    /// The serde-json-core error when the value does not fit `T`.
    pub fn deserialize<T: serde::Deserialize<'a>>(&self) -> Result<T, serde_json_core::de::Error> {
        serde_json_core::from_str(self.0).map(|(v, _)| v)
    }
}

impl fmt::Debug for Json<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Json({})", self.0)
    }
}

impl fmt::Display for Json<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

fn skip_ws(b: &[u8], mut pos: usize) -> usize {
    while matches!(b.get(pos), Some(b' ' | b'\n' | b'\r' | b'\t' | b',')) {
        pos += 1;
    }
    pos
}

/// Iterator over an object's members; see [`Json::members`].
#[derive(Clone)]
pub struct Members<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Iterator for Members<'a> {
    type Item = (JsonStr<'a>, Json<'a>);
    fn next(&mut self) -> Option<Self::Item> {
        let b = self.text.as_bytes();
        let ks = skip_ws(b, self.pos);
        if b.get(ks) != Some(&b'"') {
            self.pos = b.len();
            return None;
        }
        let ke = skip_valid_string(b, ks);
        let key_raw = self.text.get(ks + 1..ke - 1)?;
        let mut vs = ke;
        while matches!(b.get(vs), Some(b' ' | b'\n' | b'\r' | b'\t' | b':')) {
            vs += 1;
        }
        let ve = skip_valid(b, vs);
        self.pos = ve;
        let key = JsonStr { raw: key_raw, escaped: key_raw.as_bytes().contains(&b'\\') };
        Some((key, Json(self.text.get(vs..ve)?)))
    }
}

/// Iterator over an array's elements; see [`Json::elements`].
#[derive(Clone)]
pub struct Elements<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Iterator for Elements<'a> {
    type Item = Json<'a>;
    fn next(&mut self) -> Option<Self::Item> {
        let b = self.text.as_bytes();
        let vs = skip_ws(b, self.pos);
        if matches!(b.get(vs), None | Some(b']')) {
            self.pos = b.len();
            return None;
        }
        let ve = skip_valid(b, vs);
        self.pos = ve;
        Some(Json(self.text.get(vs..ve)?))
    }
}

/// A JSON string as it appears in the text (between the quotes, escapes not decoded).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct JsonStr<'a> {
    raw: &'a str,
    escaped: bool,
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
        Unescape { raw: self.raw.as_bytes(), pos: 0, text: self.raw }
    }

    /// The length of the decoded string in UTF-8 bytes.
    pub fn decoded_len(&self) -> usize {
        if self.escaped { self.chars().map(char::len_utf8).sum() } else { self.raw.len() }
    }

    /// Compares the decoded string with `s`, without copying.
    pub fn eq_str(&self, s: &str) -> bool {
        if !self.escaped {
            return self.raw == s;
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
