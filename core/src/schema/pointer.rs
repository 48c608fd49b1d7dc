//! JSON Pointers: the bounded path buffers errors carry, and `$ref` resolution
//! (RFC 6901 tokens with `~0`/`~1`, inside a URI fragment with percent escapes).

// Without `schema-full` the keywords outside the subset are compiled out; what only they
// use stays (unused) rather than gaining a `cfg` of its own.
#![cfg_attr(
    not(feature = "schema-full"),
    allow(dead_code, unused_imports, unused_variables)
)]

use core::fmt;

use super::keywords::{Kw, Shape};
use crate::json::{Json, JsonKind, JsonStr};

/// What a truncated [`InlineStr`] ends with.
pub(crate) const ELLIPSIS: &str = "…";

/// A string in an inline buffer of `N` bytes. Text that does not fit is dropped and
/// [`InlineStr::finish`] ends the kept prefix with "…"; the logical length keeps counting
/// so that [`InlineStr::truncate`] can come back to a shorter prefix.
#[derive(Clone, Copy)]
pub(crate) struct InlineStr<const N: usize> {
    buf: [u8; N],
    /// Bytes stored (whole characters, at most `N`).
    used: usize,
    /// Bytes the text would have; more than `used` when some were dropped.
    len: usize,
}

impl<const N: usize> InlineStr<N> {
    pub(crate) const fn new() -> Self {
        InlineStr {
            buf: [0; N],
            used: 0,
            len: 0,
        }
    }

    /// The logical length (a mark for [`InlineStr::truncate`]).
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Goes back to a length returned by [`InlineStr::len`].
    pub(crate) fn truncate(&mut self, len: usize) {
        if len < self.len {
            self.len = len;
            self.used = self.used.min(len);
        }
    }

    pub(crate) fn push_char(&mut self, c: char) {
        let mut tmp = [0u8; 4];
        self.push_bytes(c.encode_utf8(&mut tmp).as_bytes());
    }

    pub(crate) fn push_str(&mut self, s: &str) {
        for c in s.chars() {
            self.push_char(c);
        }
    }

    fn push_bytes(&mut self, b: &[u8]) {
        if self.len == self.used && N - self.used >= b.len() {
            self.buf[self.used..self.used + b.len()].copy_from_slice(b);
            self.used += b.len();
        }
        self.len = self.len.saturating_add(b.len());
    }

    /// Appends one JSON Pointer reference token (`/` + the name with `~` as `~0` and `/`
    /// as `~1`).
    pub(crate) fn push_token(&mut self, name: JsonStr<'_>) {
        self.push_char('/');
        for c in name.chars() {
            match c {
                '~' => self.push_str("~0"),
                '/' => self.push_str("~1"),
                c => self.push_char(c),
            }
        }
    }

    /// Appends `/index`.
    pub(crate) fn push_index(&mut self, index: usize) {
        self.push_char('/');
        let mut digits = [0u8; 20];
        let mut n = index;
        let mut i = digits.len();
        loop {
            i -= 1;
            digits[i] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        self.push_bytes(&digits[i..]);
    }

    /// The kept text, ending with "…" when some was dropped.
    pub(crate) fn finish(mut self) -> Self {
        if self.len > self.used {
            let mut cut = self.used.min(N.saturating_sub(ELLIPSIS.len()));
            while cut > 0 && cut < self.used && (self.buf[cut] & 0xC0) == 0x80 {
                cut -= 1;
            }
            if N >= ELLIPSIS.len() {
                self.buf[cut..cut + ELLIPSIS.len()].copy_from_slice(ELLIPSIS.as_bytes());
                cut += ELLIPSIS.len();
            }
            self.used = cut;
            self.len = cut;
        }
        self
    }

    pub(crate) fn as_str(&self) -> &str {
        core::str::from_utf8(&self.buf[..self.used]).unwrap_or("")
    }
}

impl<const N: usize> fmt::Debug for InlineStr<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl<const N: usize> fmt::Write for InlineStr<N> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.push_str(s);
        Ok(())
    }
}

/// Where a JSON Pointer step landed, as far as the schema walk is concerned.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Place {
    /// A subschema the check walk visits (so it is checked already).
    Schema,
    /// An object whose member values are subschemas (`properties`, `$defs`, …).
    SchemaMap,
    /// An array of subschemas (`allOf`, `prefixItems`, …).
    SchemaList,
    /// Anything else (inside `enum`, under an unknown keyword, …).
    Other,
}

/// The place reached from `place` through the member `key` holding `value`.
fn step_member(place: Place, key: impl FnOnce() -> Option<Kw>, value: Json<'_>) -> Place {
    match place {
        Place::SchemaMap => Place::Schema,
        Place::SchemaList | Place::Other => Place::Other,
        Place::Schema => match key().map(Kw::shape) {
            Some(Shape::Schema) => Place::Schema,
            Some(Shape::SchemaOrList) if value.kind() == JsonKind::Array => Place::SchemaList,
            Some(Shape::SchemaOrList) => Place::Schema,
            Some(Shape::SchemaMap) => Place::SchemaMap,
            Some(Shape::SchemaList) => Place::SchemaList,
            Some(Shape::Value) | None => Place::Other,
        },
    }
}

/// The result of following a local `$ref`.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Resolved<'a> {
    /// The value the pointer names and whether the check walk reaches it on its own.
    Found(Json<'a>, Place),
    /// The reference does not start with `#` (remote or relative URI).
    NotLocal,
    /// A fragment that is not a JSON Pointer (an anchor such as `#foo`).
    NotPointer,
    /// Nothing at that pointer.
    Missing,
}

/// Follows `reference` (a `$ref` value, raw JSON string text) from `root`.
pub(crate) fn resolve<'a>(root: Json<'a>, reference: JsonStr<'_>) -> Resolved<'a> {
    if let Some(plain) = reference.as_plain()
        && !plain.contains(['%', '~'])
    {
        return resolve_plain(root, plain);
    }
    let mut chars = reference.chars();
    if chars.next() != Some('#') {
        return Resolved::NotLocal;
    }
    let frag = chars.utf8_bytes();
    let mut bytes = Percent::new(frag);
    match bytes.peek() {
        None => return Resolved::Found(root, Place::Schema),
        Some(b'/') => {}
        Some(_) => return Resolved::NotPointer,
    }
    let mut node = root;
    let mut place = Place::Schema;
    // Tokens: each starts after a '/'.
    while bytes.peek() == Some(b'/') {
        bytes.next();
        let token = bytes.clone();
        // Advance `bytes` past this token.
        while matches!(bytes.peek(), Some(c) if c != b'/') {
            bytes.next();
        }
        let token = Token { inner: token };
        match node.kind() {
            JsonKind::Object => {
                let Some((key, value)) = node.members().find(|(k, _)| token.eq_key(*k)) else {
                    return Resolved::Missing;
                };
                place = step_member(place, || Kw::of(key), value);
                node = value;
            }
            JsonKind::Array => {
                let Some(index) = token.index() else {
                    return Resolved::Missing;
                };
                let Some(value) = node.elements().nth(index) else {
                    return Resolved::Missing;
                };
                place = if place == Place::SchemaList {
                    Place::Schema
                } else {
                    Place::Other
                };
                node = value;
            }
            _ => return Resolved::Missing,
        }
    }
    Resolved::Found(node, place)
}

/// [`resolve`] for a reference without JSON, percent or `~` escapes (the common case:
/// `#/$defs/name`), token by token with [`Json::get`].
fn resolve_plain<'a>(root: Json<'a>, reference: &str) -> Resolved<'a> {
    let Some(frag) = reference.strip_prefix('#') else {
        return Resolved::NotLocal;
    };
    if frag.is_empty() {
        return Resolved::Found(root, Place::Schema);
    }
    let Some(frag) = frag.strip_prefix('/') else {
        return Resolved::NotPointer;
    };
    let mut node = root;
    let mut place = Place::Schema;
    for token in frag.split('/') {
        match node.kind() {
            JsonKind::Object => {
                let Some(value) = node.get(token) else {
                    return Resolved::Missing;
                };
                place = step_member(place, || Kw::from_name(token), value);
                node = value;
            }
            JsonKind::Array => {
                let index = match token.as_bytes() {
                    [b'0'] => Some(0),
                    [b'1'..=b'9', ..] => token.parse::<usize>().ok(),
                    _ => None,
                };
                let Some(value) = index.and_then(|i| node.elements().nth(i)) else {
                    return Resolved::Missing;
                };
                place = if place == Place::SchemaList {
                    Place::Schema
                } else {
                    Place::Other
                };
                node = value;
            }
            _ => return Resolved::Missing,
        }
    }
    Resolved::Found(node, place)
}

/// The fragment after `#`: `Unescape` hands back characters; this is the decoded rest.
trait Utf8Bytes {
    fn utf8_bytes(self) -> Decoded<Self>
    where
        Self: Sized;
}

impl<I: Iterator<Item = char> + Clone> Utf8Bytes for I {
    fn utf8_bytes(self) -> Decoded<Self> {
        Decoded {
            chars: self,
            pending: [0; 4],
            at: 0,
            n: 0,
        }
    }
}

/// The UTF-8 bytes of a character iterator.
#[derive(Clone)]
struct Decoded<I> {
    chars: I,
    pending: [u8; 4],
    at: u8,
    n: u8,
}

impl<I: Iterator<Item = char>> Iterator for Decoded<I> {
    type Item = u8;
    fn next(&mut self) -> Option<u8> {
        if self.at == self.n {
            let c = self.chars.next()?;
            self.n = c.encode_utf8(&mut self.pending).len() as u8;
            self.at = 0;
        }
        let b = self.pending[self.at as usize];
        self.at += 1;
        Some(b)
    }
}

/// Percent-decoding over the bytes of the fragment. RFC 6901 §6: the fragment is
/// percent-decoded first, then read as a JSON Pointer (so `%2F` is a separator and a
/// literal `/` in a name is written `~1`).
#[derive(Clone)]
struct Percent<I> {
    inner: I,
    peeked: Option<Option<u8>>,
}

impl<I: Iterator<Item = u8> + Clone> Percent<I> {
    fn new(inner: I) -> Self {
        Percent {
            inner,
            peeked: None,
        }
    }

    fn decode_one(inner: &mut I) -> Option<u8> {
        let b = inner.next()?;
        if b != b'%' {
            return Some(b);
        }
        let mut look = inner.clone();
        let hex = |c: u8| match c {
            b'0'..=b'9' => Some(c - b'0'),
            b'a'..=b'f' => Some(c - b'a' + 10),
            b'A'..=b'F' => Some(c - b'A' + 10),
            _ => None,
        };
        match (look.next().and_then(hex), look.next().and_then(hex)) {
            (Some(h), Some(l)) => {
                *inner = look;
                Some(h << 4 | l)
            }
            _ => Some(b'%'),
        }
    }

    fn peek(&mut self) -> Option<u8> {
        if self.peeked.is_none() {
            self.peeked = Some(Self::decode_one(&mut self.inner));
        }
        self.peeked.flatten()
    }
}

impl<I: Iterator<Item = u8> + Clone> Iterator for Percent<I> {
    type Item = u8;
    fn next(&mut self) -> Option<u8> {
        match self.peeked.take() {
            Some(v) => v,
            None => Self::decode_one(&mut self.inner),
        }
    }
}

/// One reference token: the percent-decoded bytes up to the next `/`, with `~1` → `/`
/// and `~0` → `~`.
#[derive(Clone)]
struct Token<I> {
    inner: Percent<I>,
}

impl<I: Iterator<Item = u8> + Clone> Token<I> {
    fn bytes(&self) -> impl Iterator<Item = u8> + '_ {
        let mut it = self.inner.clone();
        core::iter::from_fn(move || {
            let b = it.peek()?;
            if b == b'/' {
                return None;
            }
            it.next();
            if b == b'~' {
                return match it.peek() {
                    Some(b'0') => {
                        it.next();
                        Some(b'~')
                    }
                    Some(b'1') => {
                        it.next();
                        Some(b'/')
                    }
                    _ => Some(b'~'),
                };
            }
            Some(b)
        })
    }

    fn eq_key(&self, key: JsonStr<'_>) -> bool {
        if let Some(plain) = key.as_plain() {
            return self.bytes().eq(plain.bytes());
        }
        self.bytes().eq(key.chars().utf8_bytes())
    }

    /// The token as an array index (decimal, no leading zeros).
    fn index(&self) -> Option<usize> {
        let mut n: usize = 0;
        let mut count = 0;
        let mut leading_zero = false;
        for b in self.bytes() {
            if !b.is_ascii_digit() || leading_zero {
                return None;
            }
            if count == 0 && b == b'0' {
                leading_zero = true;
            }
            n = n.checked_mul(10)?.checked_add((b - b'0') as usize)?;
            count += 1;
        }
        (count > 0).then_some(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found<'a>(root: &'a str, r: &'a str) -> Option<(&'a str, Place)> {
        let root = Json::new(root).unwrap();
        let r = Json::new(r).unwrap().as_str().unwrap();
        match resolve(root, r) {
            Resolved::Found(j, p) => Some((j.as_raw(), p)),
            _ => None,
        }
    }

    #[test]
    fn resolves_pointers() {
        let doc = r#"{"$defs":{"a/b":{"x":1},"c~d":2,"e%f":3,"é":4},"allOf":[true,{"y":[5]}],"items":[true]}"#;
        assert_eq!(found(doc, r##""#""##).map(|f| f.1), Some(Place::Schema));
        assert_eq!(
            found(doc, r##""#/$defs/a~1b""##),
            Some((r#"{"x":1}"#, Place::Schema))
        );
        assert_eq!(
            found(doc, r##""#/$defs/c~0d""##),
            Some(("2", Place::Schema))
        );
        assert_eq!(
            found(doc, r##""#/$defs/e%25f""##),
            Some(("3", Place::Schema))
        );
        assert_eq!(
            found(doc, r##""#/$defs/%C3%A9""##),
            Some(("4", Place::Schema))
        );
        assert_eq!(
            found(doc, r##""#/$defs/\u00e9""##),
            Some(("4", Place::Schema))
        );
        assert_eq!(
            found(doc, r##""#/allOf/1/y/0""##),
            Some(("5", Place::Other))
        );
        assert_eq!(
            found(doc, r##""#/allOf/0""##),
            Some(("true", Place::Schema))
        );
        assert_eq!(
            found(doc, r##""#/items/0""##),
            Some(("true", Place::Schema))
        );
        assert_eq!(found(doc, r##""#/allOf/01""##), None);
        assert_eq!(found(doc, r##""#/allOf/2""##), None);
        assert_eq!(found(doc, r##""#/nope""##), None);
        assert_eq!(found(doc, r##""#foo""##), None);
        assert_eq!(found(doc, r#""other.json#""#), None);
    }

    #[test]
    fn inline_truncates() {
        let mut s = InlineStr::<8>::new();
        s.push_str("/abc");
        let mark = s.len();
        s.push_str("/défgh");
        assert_eq!(s.finish().as_str(), "/abc/…");
        s.truncate(mark);
        assert_eq!(s.finish().as_str(), "/abc");
        s.push_index(12);
        assert_eq!(s.as_str(), "/abc/12");
    }
}
