//! Zero-copy views of validated JSON: [`Json`] for any value. Its strings are
//! [`JsonStr`]s (`string.rs`), its members and elements are walked by the iterators of
//! `iter.rs`.

use core::fmt;

use super::JsonError;
use super::iter::{Elements, Members};
use super::scan::{DEFAULT_MAX_DEPTH, Scanner};
use super::skip_valid::{skip_valid, skip_valid_string_escaped};
use super::string::{JsonStr, has_backslash};

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
pub struct Json<'a>(pub(super) &'a str);

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
        Ok(Json(trim_json_ws(text)))
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
        // `get`, not indexing: both ends are quotes, so it never fails, and the failure
        // path of a `str` index (with its formatting) stays out of device images.
        let inner = self.0.get(1..self.0.len() - 1)?;
        Some(JsonStr {
            raw: inner,
            escaped: has_backslash(inner),
        })
    }

    /// True when the number is written as an integer (no fraction, no exponent).
    pub fn is_integer(&self) -> bool {
        self.kind() == JsonKind::Number && !self.0.bytes().any(|c| matches!(c, b'.' | b'e' | b'E'))
    }

    /// The number as `i64`, if it is an integer in range.
    pub fn as_i64(&self) -> Option<i64> {
        if self.kind() != JsonKind::Number {
            return None;
        }
        // A validated JSON number: an optional `-`, then digits, then maybe a fraction or
        // an exponent, whose first byte (`.`, `e`, `E`) is the first non-digit: not an
        // integer. One pass; a loop rather than `str::parse`, whose generic code is
        // 0.2 KiB more on a device.
        let (neg, digits) = match self.0.strip_prefix('-') {
            Some(d) => (true, d),
            None => (false, self.0),
        };
        let mut v: i64 = 0;
        for c in digits.bytes() {
            let d = c.wrapping_sub(b'0');
            if d > 9 {
                return None;
            }
            let d = i64::from(d);
            v = v.checked_mul(10)?;
            v = if neg {
                v.checked_sub(d)?
            } else {
                v.checked_add(d)?
            };
        }
        Some(v)
    }

    /// The number as `u64`, if it is a non-negative integer in range.
    pub fn as_u64(&self) -> Option<u64> {
        if self.is_integer() {
            self.0.parse().ok()
        } else {
            None
        }
    }

    /// The number as `f64` (rounded as usual; huge exponents give infinity).
    pub fn as_f64(&self) -> Option<f64> {
        if self.kind() == JsonKind::Number {
            self.0.parse().ok()
        } else {
            None
        }
    }

    /// The number as `f64` through a compact conversion that does not link `core`'s
    /// `f64::from_str` (about 15 KiB of flash and 1.7 KiB of stack on a Cortex-M):
    /// correctly rounded (ties to even) for up to 19 significant digits, with digits
    /// beyond the 19th dropped, in a few hundred bytes of code and about 0.3 KiB of stack
    /// (small big integers). The session uses it for progress values; firmware can use
    /// it for its own numbers.
    pub fn as_f64_compact(&self) -> Option<f64> {
        if self.kind() == JsonKind::Number {
            Some(super::number::parse_f64(self.0.as_bytes()))
        } else {
            None
        }
    }

    /// Looks up a member of an object by its (unescaped) name; the first match wins.
    /// Returns `None` for a missing member or when this is not an object.
    pub fn get(&self, key: &str) -> Option<Json<'a>> {
        self.members().find(|(k, _)| k.eq_str(key)).map(|(_, v)| v)
    }

    /// Whether an object has a member whose name satisfies `is_name`. Unlike
    /// [`get`](Json::get) it stops at the matching name without finding where its value
    /// ends (a long value after the name is not scanned).
    pub(crate) fn has_key(&self, is_name: impl Fn(JsonStr<'a>) -> bool) -> bool {
        if self.kind() != JsonKind::Object {
            return false;
        }
        let b = self.0.as_bytes();
        let mut pos = 1;
        loop {
            let ks = skip_ws(b, pos);
            if b.get(ks) != Some(&b'"') {
                return false;
            }
            let (ke, escaped) = skip_valid_string_escaped(b, ks);
            let Some(raw) = self.0.get(ks + 1..ke - 1) else {
                return false;
            };
            if is_name(JsonStr { raw, escaped }) {
                return true;
            }
            let mut vs = ke;
            while matches!(b.get(vs), Some(b' ' | b'\n' | b'\r' | b'\t' | b':')) {
                vs += 1;
            }
            pos = skip_valid(b, vs);
        }
    }

    /// The members of an object in order (empty when this is not an object).
    pub fn members(&self) -> Members<'a> {
        let pos = if self.kind() == JsonKind::Object {
            1
        } else {
            self.0.len()
        };
        Members { text: self.0, pos }
    }

    /// The elements of an array in order (empty when this is not an array).
    pub fn elements(&self) -> Elements<'a> {
        let pos = if self.kind() == JsonKind::Array {
            1
        } else {
            self.0.len()
        };
        Elements { text: self.0, pos }
    }

    /// Deserializes the value into a type with serde-json-core (no allocation). Borrowed
    /// `&str` fields only work for strings without escapes (an escaped one is an error);
    /// use `heapless::String` for text that may be escaped. Escaped strings are decoded in
    /// a [`DESERIALIZE_SCRATCH`](Self::DESERIALIZE_SCRATCH)-byte stack buffer; for longer
    /// ones use [`Json::deserialize_with`].
    ///
    /// serde-json-core 0.7 decodes each `\u` escape on its own, so a string with an
    /// escaped surrogate pair (`"\ud83d\ude00"`, what `json.dumps` writes for 😀 by
    /// default) fails with `InvalidEscapeSequence`; the raw character (`"😀"`) works. Read
    /// such strings with [`JsonStr::unescape_into`], which decodes pairs.
    ///
    /// # Errors
    /// The serde-json-core error when the value does not fit `T`.
    pub fn deserialize<T: serde::Deserialize<'a>>(&self) -> Result<T, serde_json_core::de::Error> {
        let mut scratch = [0u8; Self::DESERIALIZE_SCRATCH];
        self.deserialize_with(&mut scratch)
    }

    /// The size of the stack buffer [`Json::deserialize`] decodes escaped strings in.
    pub const DESERIALIZE_SCRATCH: usize = 256;

    /// Like [`Json::deserialize`], decoding each escaped string in `scratch`, which must
    /// hold the longest escaped string once decoded.
    ///
    /// # Errors
    /// The serde-json-core error when the value does not fit `T`
    /// (`EscapedStringIsTooLong` when `scratch` is too small).
    pub fn deserialize_with<T: serde::Deserialize<'a>>(
        &self,
        scratch: &mut [u8],
    ) -> Result<T, serde_json_core::de::Error> {
        serde_json_core::from_str_escaped(self.0, scratch).map(|(v, _)| v)
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

/// `pos` moved past JSON whitespace and commas (the separators the value walk skips).
pub(super) fn skip_ws(b: &[u8], mut pos: usize) -> usize {
    while matches!(b.get(pos), Some(b' ' | b'\n' | b'\r' | b'\t' | b',')) {
        pos += 1;
    }
    pos
}

/// `text` without the JSON whitespace around it.
pub(crate) fn trim_json_ws(text: &str) -> &str {
    let ws = |c: &u8| matches!(c, b' ' | b'\t' | b'\r' | b'\n');
    let b = text.as_bytes();
    let start = b.iter().position(|c| !ws(c)).unwrap_or(b.len());
    let end = b.iter().rposition(|c| !ws(c)).map_or(start, |e| e + 1);
    text.get(start..end).unwrap_or("")
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::vec::Vec;

    use super::*;

    fn j(text: &str) -> Json<'_> {
        Json::new(text).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    #[test]
    fn new_trims_and_kinds() {
        assert_eq!(j(" \t\r\n{} \n").as_raw(), "{}");
        for (text, kind) in [
            ("null", JsonKind::Null),
            ("true", JsonKind::Bool),
            ("false", JsonKind::Bool),
            ("-1", JsonKind::Number),
            ("0.5", JsonKind::Number),
            ("\"x\"", JsonKind::String),
            ("[]", JsonKind::Array),
            ("{}", JsonKind::Object),
        ] {
            assert_eq!(j(text).kind(), kind, "{text}");
            assert_eq!(j(text).is_null(), kind == JsonKind::Null);
            assert_eq!(j(text).is_object(), kind == JsonKind::Object);
        }
        assert_eq!(Json::EMPTY_OBJECT.kind(), JsonKind::Object);
        assert!(Json::NULL.is_null());
        assert_eq!(j("true").as_bool(), Some(true));
        assert_eq!(j("false").as_bool(), Some(false));
        assert_eq!(j("null").as_bool(), None);
        assert_eq!(j("\"true\"").as_bool(), None);
        assert_eq!(std::format!("{}", j(" [1, 2] ")), "[1, 2]");
        assert_eq!(std::format!("{:?}", j("[1]")), "Json([1])");
    }

    #[test]
    fn get() {
        let v = j(
            r#"{ "a" : 1 , "b" : [1, {"c":2}], "s":"}\"{,", "\u0069d": "x", "d":{"a":9}, "a": 2, "": 0 }"#,
        );
        let table: &[(&str, Option<&str>)] = &[
            ("a", Some("1")), // the first of duplicate members wins
            ("b", Some(r#"[1, {"c":2}]"#)),
            ("s", Some(r#""}\"{,""#)),
            ("id", Some(r#""x""#)), // escaped key
            ("\\u0069d", None),     // compared decoded, not raw
            ("d", Some(r#"{"a":9}"#)),
            ("", Some("0")),
            ("c", None), // nested members are not found
            ("A", None),
            ("aa", None),
        ];
        for &(key, want) in table {
            assert_eq!(v.get(key).map(|x| x.as_raw()), want, "get({key:?})");
        }
        assert_eq!(v.get("d").unwrap().get("a").unwrap().as_i64(), Some(9));
        for not_obj in ["[1]", "1", "\"a\"", "null", "{}"] {
            assert_eq!(j(not_obj).get("a"), None, "{not_obj}");
        }
    }

    #[test]
    fn numbers() {
        struct Row(&'static str, Option<i64>, Option<u64>, Option<f64>, bool);
        let table = [
            Row("0", Some(0), Some(0), Some(0.0), true),
            Row("-0", Some(0), None, Some(-0.0), true),
            Row("42", Some(42), Some(42), Some(42.0), true),
            Row("-42", Some(-42), None, Some(-42.0), true),
            Row(
                "9223372036854775807",
                Some(i64::MAX),
                Some(i64::MAX as u64),
                Some(9.223372036854776e18),
                true,
            ),
            Row(
                "-9223372036854775808",
                Some(i64::MIN),
                None,
                Some(-9.223372036854776e18),
                true,
            ),
            Row(
                "9223372036854775808",
                None,
                Some(1 << 63),
                Some(9.223372036854776e18),
                true,
            ),
            Row(
                "18446744073709551615",
                None,
                Some(u64::MAX),
                Some(1.8446744073709552e19),
                true,
            ),
            Row(
                "18446744073709551616",
                None,
                None,
                Some(1.8446744073709552e19),
                true,
            ),
            Row(
                "-9223372036854775809",
                None,
                None,
                Some(-9.223372036854776e18),
                true,
            ),
            Row("1.5", None, None, Some(1.5), false),
            Row("1.0", None, None, Some(1.0), false),
            Row("1e2", None, None, Some(100.0), false),
            Row("1E-2", None, None, Some(0.01), false),
            Row("-2.5e+3", None, None, Some(-2500.0), false),
            Row("1e400", None, None, Some(f64::INFINITY), false),
            Row("\"1\"", None, None, None, false),
            Row("true", None, None, None, false),
            Row("[1]", None, None, None, false),
        ];
        for Row(text, i, u, f, int) in table {
            let v = j(text);
            assert_eq!(v.as_i64(), i, "{text} as i64");
            assert_eq!(v.as_u64(), u, "{text} as u64");
            assert_eq!(v.as_f64(), f, "{text} as f64");
            assert_eq!(v.is_integer(), int, "{text} is_integer");
        }
        assert!(j("-0").as_f64().unwrap().is_sign_negative());
    }

    #[derive(serde::Deserialize, Debug, PartialEq)]
    #[serde(rename_all = "camelCase")]
    struct Args<'a> {
        name: &'a str,
        text: heapless::String<32>,
        count: u32,
        ratio: f64,
        is_error: Option<bool>,
        tags: heapless::Vec<heapless::String<8>, 4>,
        inner: Inner,
    }

    #[derive(serde::Deserialize, Debug, PartialEq)]
    struct Inner {
        id: i64,
    }

    #[test]
    fn deserialize() {
        let v = j(
            r#"{"name":"echo","text":"a \"b\"\n\u00e9\t","count":3,"ratio":0.25,"tags":["x","y\\z"],"inner":{"id":-7},"extra":[1,{"z":null}]}"#,
        );
        let a: Args<'_> = v.deserialize().unwrap();
        assert_eq!(a.name, "echo");
        assert_eq!(
            a.text.as_str(),
            "a \"b\"\né\t",
            "escapes are decoded, not copied raw"
        );
        assert_eq!(
            (a.count, a.ratio, a.is_error, a.inner.id),
            (3, 0.25, None, -7)
        );
        assert_eq!(
            a.tags.iter().map(|t| t.as_str()).collect::<Vec<_>>(),
            ["x", "y\\z"]
        );
        // A member view deserializes on its own.
        let inner: Inner = v.get("inner").unwrap().deserialize().unwrap();
        assert_eq!(inner, Inner { id: -7 });
        // A borrowed &str cannot hold an escaped string: an error, never the raw escapes.
        let e =
            j(r#"{"name":"e\u0063ho","text":"","count":0,"ratio":0,"tags":[],"inner":{"id":0}}"#);
        assert!(e.deserialize::<Args<'_>>().is_err());
        // Type mismatches and overflowing capacities are errors.
        assert!(j(r#"{"id":"7"}"#).deserialize::<Inner>().is_err());
        assert!(j(r#"{"id":1.5}"#).deserialize::<Inner>().is_err());
        assert!(
            j(r#"["123456789"]"#)
                .deserialize::<heapless::Vec<heapless::String<8>, 1>>()
                .is_err()
        );
        // Escaped strings longer than the default scratch need deserialize_with.
        let long = std::format!("[\"{}\"]", "\\n".repeat(Json::DESERIALIZE_SCRATCH + 1));
        let long = j(&long);
        assert!(
            long.deserialize::<heapless::Vec<heapless::String<512>, 1>>()
                .is_err()
        );
        let mut scratch = [0u8; 512];
        let got: heapless::Vec<heapless::String<512>, 1> =
            long.deserialize_with(&mut scratch).unwrap();
        assert_eq!(got[0].len(), Json::DESERIALIZE_SCRATCH + 1);
        assert!(got[0].bytes().all(|b| b == b'\n'));
    }

    #[test]
    fn deserialize_surrogate_pair_limitation() {
        // serde-json-core 0.7.0 decodes each `\u` escape on its own, so a valid surrogate
        // pair fails to deserialize (JsonStr::unescape_into decodes it fine). Known
        // upstream limitation; this test flags when it changes.
        let v = j(r#"["\ud83d\ude00"]"#);
        assert!(
            v.deserialize::<heapless::Vec<heapless::String<8>, 1>>()
                .is_err()
        );
        let mut buf = [0u8; 8];
        assert_eq!(
            v.elements()
                .next()
                .unwrap()
                .as_str()
                .unwrap()
                .unescape_into(&mut buf)
                .unwrap(),
            "😀"
        );
    }
}
