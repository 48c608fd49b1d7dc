//! A bounded JSON writer: builds objects, arrays, strings and numbers into a caller buffer.

use core::fmt::{self, Write as _};

use super::bit_stack::BitStack;
use super::string::JsonStr;
use super::value::Json;
use crate::error::InsufficientSize;

/// Writes JSON into a fixed byte buffer with correct escaping; output never contains a raw
/// newline, so every document it writes fits on one line.
///
/// Commas are inserted automatically. When the buffer is too small, writing carries on
/// *counting* bytes without storing them, so [`JsonWriter::finish`] can report exactly how
/// many bytes the document needs ([`InsufficientSize::required`]).
///
/// ```
/// use picomcp::json::JsonWriter;
/// let mut buf = [0u8; 64];
/// let mut w = JsonWriter::new(&mut buf);
/// w.begin_object();
/// w.key("text"); w.string("a \"quote\"\n");
/// w.key("sum"); w.i64(5);
/// w.end_object();
/// let n = w.finish().unwrap();
/// assert_eq!(&buf[..n], br#"{"text":"a \"quote\"\n","sum":5}"#);
/// ```
pub struct JsonWriter<'b> {
    buf: &'b mut [u8],
    len: usize,
    /// One bit per open container: true once it has a first element.
    has_elem: BitStack,
    after_key: bool,
    nesting_overflow: bool,
}

impl<'b> JsonWriter<'b> {
    /// A writer that fills `buf` from the start.
    pub fn new(buf: &'b mut [u8]) -> Self {
        JsonWriter {
            buf,
            len: 0,
            has_elem: BitStack::new(),
            after_key: false,
            nesting_overflow: false,
        }
    }

    /// Bytes written (or needed, after an overflow) so far.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when nothing has been written.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// True once the buffer was too small for what was written.
    pub fn overflowed(&self) -> bool {
        self.len > self.buf.len()
    }

    /// Ends writing: the number of bytes written.
    ///
    /// # Errors
    /// [`InsufficientSize`] with the total size the document needs.
    pub fn finish(self) -> Result<usize, InsufficientSize> {
        if self.nesting_overflow {
            // No buffer is large enough: nesting beyond the writer's depth cap.
            Err(InsufficientSize {
                required: usize::MAX,
            })
        } else if self.len > self.buf.len() {
            Err(InsufficientSize { required: self.len })
        } else {
            Ok(self.len)
        }
    }

    /// The bytes written so far, unless the buffer overflowed.
    pub(crate) fn written(&self) -> Option<&[u8]> {
        self.buf.get(..self.len)
    }

    /// Drops bytes written after `len` (only to rewrite the tail of a value).
    pub(crate) fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
    }

    /// Appends raw bytes (the caller guarantees they are valid JSON in this position).
    pub(crate) fn put(&mut self, bytes: &[u8]) {
        let end = self.len + bytes.len();
        if end <= self.buf.len() {
            self.buf[self.len..end].copy_from_slice(bytes);
        }
        self.len = end;
    }

    fn put_byte(&mut self, b: u8) {
        if self.len < self.buf.len() {
            self.buf[self.len] = b;
        }
        self.len += 1;
    }

    /// Writes the separator a new value needs in the current position.
    fn value_prefix(&mut self) {
        if self.after_key {
            self.after_key = false;
            return;
        }
        if self.has_elem.len() > 0 {
            if self.has_elem.top() == Some(true) {
                self.put_byte(b',');
            } else {
                self.has_elem.set_top(true);
            }
        }
    }

    /// Opens an object (`{`).
    pub fn begin_object(&mut self) {
        self.value_prefix();
        self.put_byte(b'{');
        if !self.has_elem.push(false) {
            self.nesting_overflow = true;
        }
    }

    /// Closes the innermost object (`}`).
    pub fn end_object(&mut self) {
        self.has_elem.pop();
        self.put_byte(b'}');
    }

    /// Opens an array (`[`).
    pub fn begin_array(&mut self) {
        self.value_prefix();
        self.put_byte(b'[');
        if !self.has_elem.push(false) {
            self.nesting_overflow = true;
        }
    }

    /// Closes the innermost array (`]`).
    pub fn end_array(&mut self) {
        self.has_elem.pop();
        self.put_byte(b']');
    }

    /// Writes an object member name; the next call writes its value.
    pub fn key(&mut self, name: &str) {
        self.value_prefix();
        self.escaped(name);
        self.put_byte(b':');
        self.after_key = true;
    }

    /// Writes a member name that is already a JSON string body (escapes kept as they are).
    pub fn key_raw(&mut self, name: JsonStr<'_>) {
        self.value_prefix();
        self.put_byte(b'"');
        self.put(name.raw().as_bytes());
        self.put(b"\":");
        self.after_key = true;
    }

    /// Writes a string value, escaping `"`, `\` and control characters.
    pub fn string(&mut self, s: &str) {
        self.value_prefix();
        self.escaped(s);
    }

    /// Writes a string value from pieces written with [`fmt::Write`] (escaped as it goes).
    pub fn string_fmt(&mut self, args: fmt::Arguments<'_>) {
        self.value_prefix();
        self.put_byte(b'"');
        let _ = Escaper(self).write_fmt(args);
        self.put_byte(b'"');
    }

    /// Writes a string that is already escaped JSON (as read from a peer), unchanged.
    pub fn string_raw(&mut self, s: JsonStr<'_>) {
        self.value_prefix();
        self.put_byte(b'"');
        self.put(s.raw().as_bytes());
        self.put_byte(b'"');
    }

    fn escaped(&mut self, s: &str) {
        self.put_byte(b'"');
        self.escape_body(s);
        self.put_byte(b'"');
    }

    fn escape_body(&mut self, s: &str) {
        // The bytes JSON requires escaped are the scanner's string stops (`"`, `\`,
        // control characters), so the plain runs between them are found the scanner's
        // way: a word at a time on hosts.
        let b = s.as_bytes();
        let mut start = 0;
        loop {
            let (i, stop) = super::string_stop::find_string_stop_byte(b, start);
            self.put(&b[start..i]);
            let Some(c) = stop else { break };
            let esc: &[u8] = match c {
                b'"' => b"\\\"",
                b'\\' => b"\\\\",
                b'\n' => b"\\n",
                b'\r' => b"\\r",
                b'\t' => b"\\t",
                0x08 => b"\\b",
                0x0c => b"\\f",
                _ => b"",
            };
            if esc.is_empty() {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                self.put(&[
                    b'\\',
                    b'u',
                    b'0',
                    b'0',
                    HEX[(c >> 4) as usize],
                    HEX[(c & 15) as usize],
                ]);
            } else {
                self.put(esc);
            }
            start = i + 1;
        }
    }

    /// Writes an integer.
    pub fn i64(&mut self, v: i64) {
        self.value_prefix();
        let mut tmp = [0u8; 20];
        let s = fmt_u64(v.unsigned_abs(), &mut tmp);
        if v < 0 {
            self.put_byte(b'-');
        }
        self.put(s);
    }

    /// Writes an unsigned integer.
    pub fn u64(&mut self, v: u64) {
        self.value_prefix();
        let mut tmp = [0u8; 20];
        let s = fmt_u64(v, &mut tmp);
        self.put(s);
    }

    /// Writes a floating-point number; NaN and infinities (not JSON) become `null`.
    pub fn f64(&mut self, v: f64) {
        self.value_prefix();
        if !v.is_finite() {
            self.put(b"null");
        } else if v > -1e15 && v < 1e15 && (v as i64) as f64 == v {
            let _ = write!(Plain(self), "{}", v as i64);
        } else {
            let _ = write!(Plain(self), "{v}");
        }
    }

    /// Writes `true` or `false`.
    pub fn bool(&mut self, v: bool) {
        self.value_prefix();
        self.put(if v { b"true" } else { b"false" });
    }

    /// Writes `null`.
    pub fn null(&mut self) {
        self.value_prefix();
        self.put(b"null");
    }

    /// Writes an already-validated JSON value unchanged, except that line breaks between
    /// its tokens (the only place valid JSON can have them) become spaces, so the output
    /// stays on one line.
    pub fn raw(&mut self, v: Json<'_>) {
        self.value_prefix();
        let b = v.as_raw().as_bytes();
        if !b.contains(&b'\n') && !b.contains(&b'\r') {
            self.put(b);
            return;
        }
        let mut start = 0;
        while let Some(i) = b[start..].iter().position(|&c| c == b'\n' || c == b'\r') {
            self.put(&b[start..start + i]);
            self.put_byte(b' ');
            start += i + 1;
        }
        self.put(&b[start..]);
    }

    /// Abandons the document: [`finish`](Self::finish) will fail, so nothing written is
    /// used (for callers that detect a mistake half way).
    pub fn abort(&mut self) {
        self.nesting_overflow = true;
    }

    /// Serializes a value with serde-json-core into the rest of the buffer.
    pub fn serialize<T: serde::Serialize + ?Sized>(&mut self, v: &T) {
        self.value_prefix();
        let start = self.len.min(self.buf.len());
        match serde_json_core::to_slice(v, &mut self.buf[start..]) {
            Ok(n) if self.len <= self.buf.len() => self.len += n,
            // The size is unknown: count one byte past the end so `finish` reports overflow.
            _ => self.len = self.len.max(self.buf.len()) + 1,
        }
    }
}

/// `v` in decimal, written at the end of `tmp`.
pub(crate) fn fmt_u64(mut v: u64, tmp: &mut [u8; 20]) -> &[u8] {
    let mut i = tmp.len();
    loop {
        let (q, digit) = div_rem_10(v);
        i -= 1;
        tmp[i] = b'0' + digit;
        v = q;
        if v == 0 {
            break;
        }
    }
    &tmp[i..]
}

/// `(v / 10, v % 10)`.
#[cfg(target_pointer_width = "64")]
fn div_rem_10(v: u64) -> (u64, u8) {
    (v / 10, (v % 10) as u8)
}

/// `(v / 10, v % 10)` by long division in 16-bit steps: on a 32-bit target a `u64`
/// division is a call into about 0.9 KiB of library code (the compiler does not turn a
/// 64-bit division by a constant into multiplications at `opt-level = "z"`), a `u32`
/// one is an instruction.
#[cfg(not(target_pointer_width = "64"))]
fn div_rem_10(v: u64) -> (u64, u8) {
    div_rem_10_narrow(v)
}

#[cfg(any(test, not(target_pointer_width = "64")))]
fn div_rem_10_narrow(v: u64) -> (u64, u8) {
    let (mut q, mut r) = (0u64, 0u32);
    for shift in [48u32, 32, 16, 0] {
        let cur = (r << 16) | ((v >> shift) as u32 & 0xffff);
        q = (q << 16) | u64::from(cur / 10);
        r = cur % 10;
    }
    (q, r as u8)
}

struct Plain<'w, 'b>(&'w mut JsonWriter<'b>);
impl fmt::Write for Plain<'_, '_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0.put(s.as_bytes());
        Ok(())
    }
}

struct Escaper<'w, 'b>(&'w mut JsonWriter<'b>);
impl fmt::Write for Escaper<'_, '_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0.escape_body(s);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn narrow_division_by_ten() {
        let mut v = 0x9e37_79b9_7f4a_7c15u64;
        for x in [
            0,
            9,
            10,
            65535,
            65536,
            655_359,
            u64::from(u32::MAX),
            u64::MAX - 1,
            u64::MAX,
        ] {
            assert_eq!(super::div_rem_10_narrow(x), (x / 10, (x % 10) as u8), "{x}");
        }
        for _ in 0..10_000 {
            v ^= v << 13;
            v ^= v >> 7;
            v ^= v << 17;
            assert_eq!(super::div_rem_10_narrow(v), (v / 10, (v % 10) as u8), "{v}");
        }
    }

    extern crate std;
    use std::string::String;
    use std::vec;
    use std::vec::Vec;

    use super::*;

    /// Runs `f` on a writer over a buffer of `cap` bytes; returns the result and the text.
    fn write_with(
        cap: usize,
        f: impl Fn(&mut JsonWriter<'_>),
    ) -> (Result<usize, InsufficientSize>, Vec<u8>) {
        let mut buf = vec![0u8; cap];
        let mut w = JsonWriter::new(&mut buf);
        f(&mut w);
        let r = w.finish();
        let n = *r.as_ref().unwrap_or(&0);
        (r, buf[..n].to_vec())
    }

    fn write(f: impl Fn(&mut JsonWriter<'_>)) -> String {
        let (r, out) = write_with(4096, f);
        r.unwrap();
        String::from_utf8(out).unwrap()
    }

    fn string_of(s: &str) -> String {
        write(|w| w.string(s))
    }

    #[test]
    fn escapes_every_control_character() {
        let short = [
            (0x08u8, "\\b"),
            (0x09, "\\t"),
            (0x0a, "\\n"),
            (0x0c, "\\f"),
            (0x0d, "\\r"),
        ];
        for c in 0u8..0x20 {
            let s = std::format!("a{}b", c as char);
            let want = match short.iter().find(|(b, _)| *b == c) {
                Some((_, e)) => std::format!("\"a{e}b\""),
                None => std::format!("\"a\\u{c:04x}b\""),
            };
            assert_eq!(string_of(&s), want, "{c:#x}");
        }
        assert_eq!(string_of("\""), r#""\"""#);
        assert_eq!(string_of("\\"), r#""\\""#);
        assert_eq!(string_of(r#"a"b\c"#), r#""a\"b\\c""#);
        // Not escaped: '/', DEL, non-ASCII (U+2028 included; it is valid inside JSON strings).
        assert_eq!(string_of("/\u{7f}é😀\u{2028}"), "\"/\u{7f}é😀\u{2028}\"");
        assert_eq!(string_of(""), "\"\"");
    }

    /// The plain runs between escapes are found a word at a time: every byte that needs an
    /// escape, at every offset of a string longer than the words and blocks searched, is
    /// escaped as the byte-at-a-time rule says, and nothing else is.
    #[test]
    fn escapes_at_every_offset() {
        fn reference(s: &str) -> String {
            let mut out = String::from("\"");
            for c in s.chars() {
                match c {
                    '"' => out.push_str("\\\""),
                    '\\' => out.push_str("\\\\"),
                    '\n' => out.push_str("\\n"),
                    '\r' => out.push_str("\\r"),
                    '\t' => out.push_str("\\t"),
                    '\u{8}' => out.push_str("\\b"),
                    '\u{c}' => out.push_str("\\f"),
                    c if (c as u32) < 0x20 => out.push_str(&std::format!("\\u{:04x}", c as u32)),
                    c => out.push(c),
                }
            }
            out.push('"');
            out
        }
        for stop in [0x00u8, 0x01, 0x08, 0x0a, 0x1f, b'"', b'\\'] {
            for len in [1usize, 7, 8, 9, 16, 17, 40, 70] {
                for at in 0..len {
                    let mut b = std::vec![b'x'; len];
                    b[at] = stop;
                    if at + 2 < len {
                        b[at + 2] = b'"';
                    }
                    let s = core::str::from_utf8(&b).unwrap();
                    assert_eq!(string_of(s), reference(s), "{stop:#x} at {at} of {len}");
                }
            }
        }
        let mixed = "é😀 plain words that run past a block \u{2028}\u{7f}/ then \" and \\ end";
        assert_eq!(string_of(mixed), reference(mixed));
    }

    #[test]
    fn output_never_contains_a_raw_newline_and_round_trips() {
        let all: String = (0u8..0x80)
            .map(char::from)
            .chain(['é', '\u{2028}', '😀'])
            .collect();
        let out = write(|w| {
            w.begin_object();
            w.key(&all);
            w.string(&all);
            w.key("f");
            w.string_fmt(format_args!("{all}|{}", 5));
            w.end_object();
        });
        assert!(
            !out.bytes().any(|b| b < 0x20),
            "no raw control bytes: {out:?}"
        );
        let v = Json::new(&out).unwrap();
        let (k, val) = v.members().next().unwrap();
        assert!(k.eq_str(&all));
        assert!(val.as_str().unwrap().eq_str(&all));
        assert!(
            v.get("f")
                .unwrap()
                .as_str()
                .unwrap()
                .eq_str(&(all.clone() + "|5"))
        );
    }

    #[test]
    fn integers() {
        for (v, want) in [
            (0i64, "0"),
            (-1, "-1"),
            (7, "7"),
            (i64::MAX, "9223372036854775807"),
            (i64::MIN, "-9223372036854775808"),
        ] {
            assert_eq!(write(|w| w.i64(v)), want);
        }
        for (v, want) in [(0u64, "0"), (10, "10"), (u64::MAX, "18446744073709551615")] {
            assert_eq!(write(|w| w.u64(v)), want);
        }
    }

    #[test]
    fn floats() {
        for (v, want) in [
            (0.0f64, "0"),
            (-0.0, "0"),
            (1.0, "1"),
            (-3.0, "-3"),
            (0.5, "0.5"),
            (-2.25, "-2.25"),
            (0.1, "0.1"),
            (f64::NAN, "null"),
            (f64::INFINITY, "null"),
            (f64::NEG_INFINITY, "null"),
        ] {
            assert_eq!(write(|w| w.f64(v)), want, "{v}");
        }
        // Whatever the notation, the output is JSON and reads back as the same number.
        for v in [
            1e15,
            1e16,
            -1e15 + 0.5,
            123456.789,
            1e300,
            -1e-300,
            5e-324,
            f64::MAX,
            f64::MIN_POSITIVE,
            1.0 / 3.0,
        ] {
            let out = write(|w| w.f64(v));
            let parsed = Json::new(&out).unwrap_or_else(|e| panic!("{v}: {out} {e}"));
            assert_eq!(parsed.kind(), super::super::JsonKind::Number);
            assert_eq!(parsed.as_f64(), Some(v), "{out}");
        }
    }

    #[test]
    fn nesting_and_commas() {
        assert_eq!(
            write(|w| {
                w.begin_object();
                w.key("a");
                w.begin_array();
                w.i64(1);
                w.u64(2);
                w.begin_object();
                w.key("b");
                w.null();
                w.end_object();
                w.begin_array();
                w.end_array();
                w.end_array();
                w.key("c");
                w.begin_object();
                w.end_object();
                w.key("d");
                w.bool(true);
                w.key("e");
                w.bool(false);
                w.end_object();
            }),
            r#"{"a":[1,2,{"b":null},[]],"c":{},"d":true,"e":false}"#
        );
        assert_eq!(
            write(|w| {
                w.begin_array();
                for _ in 0..3 {
                    w.begin_object();
                    w.end_object();
                    w.begin_array();
                    w.end_array();
                }
                w.end_array();
            }),
            "[{},[],{},[],{},[]]"
        );
        assert_eq!(write(|w| w.null()), "null");
        assert_eq!(write(|w| w.bool(true)), "true");
        // Deep nesting up to the cap works; beyond it the writer reports failure.
        let deep = write(|w| {
            for _ in 0..MAX_DEPTH_CAP_FOR_TEST {
                w.begin_array();
            }
            for _ in 0..MAX_DEPTH_CAP_FOR_TEST {
                w.end_array();
            }
        });
        assert_eq!(deep.len(), 2 * MAX_DEPTH_CAP_FOR_TEST);
        let (r, _) = write_with(4096, |w| {
            for _ in 0..=MAX_DEPTH_CAP_FOR_TEST {
                w.begin_array();
            }
        });
        assert!(r.is_err());
    }

    const MAX_DEPTH_CAP_FOR_TEST: usize = crate::json::MAX_DEPTH_CAP;

    #[test]
    fn raw_values_and_escaped_strings_pass_through() {
        let src = Json::new(r#"{"k\u0041y":"v\n\u00e9","n":[1, 2]}"#).unwrap();
        let (k, v) = src.members().next().unwrap();
        let out = write(|w| {
            w.begin_object();
            w.key_raw(k);
            w.string_raw(v.as_str().unwrap());
            w.key("n");
            w.raw(src.get("n").unwrap());
            w.key("all");
            w.raw(src);
            w.end_object();
        });
        assert_eq!(
            out,
            r#"{"k\u0041y":"v\n\u00e9","n":[1, 2],"all":{"k\u0041y":"v\n\u00e9","n":[1, 2]}}"#
        );
        assert!(Json::new(&out).is_ok());
        assert_eq!(
            write(|w| w.string_fmt(format_args!("{}-{:?}", "a\"", "q"))),
            r#""a\"-\"q\"""#
        );
        // A multi-line value is written on one line (same length: each break becomes a space).
        let pretty = Json::new("{\r\n  \"a\": [\n    1,\r    \"x\\ny\"\n  ]\n}").unwrap();
        let out = write(|w| w.raw(pretty));
        assert_eq!(out, "{    \"a\": [     1,     \"x\\ny\"   ] }");
        assert_eq!(
            Json::new(&out)
                .unwrap()
                .get("a")
                .unwrap()
                .elements()
                .count(),
            2
        );
    }

    fn everything(w: &mut JsonWriter<'_>) {
        w.begin_object();
        w.key("s\"");
        w.string("line\nbreak\u{1}é");
        w.key("n");
        w.begin_array();
        w.i64(-12);
        w.u64(u64::MAX);
        w.f64(0.25);
        w.f64(1e300);
        w.f64(f64::NAN);
        w.bool(true);
        w.null();
        w.end_array();
        w.key("fmt");
        w.string_fmt(format_args!("{}\t{}", 1, "x"));
        w.key("raw");
        w.raw(Json::EMPTY_OBJECT);
        w.key_raw(Json::new(r#""\u0041""#).unwrap().as_str().unwrap());
        w.string_raw(Json::new(r#""\n""#).unwrap().as_str().unwrap());
        w.end_object();
    }

    #[test]
    fn insufficient_size_is_exact_for_every_buffer_size() {
        let full = write(everything);
        assert!(Json::new(&full).is_ok());
        for cap in 0..full.len() {
            let mut buf = vec![0u8; cap];
            let mut w = JsonWriter::new(&mut buf);
            everything(&mut w);
            assert_eq!(w.len(), full.len());
            assert!(w.overflowed());
            assert_eq!(
                w.finish(),
                Err(InsufficientSize {
                    required: full.len()
                }),
                "cap {cap}"
            );
        }
        let (r, out) = write_with(full.len(), everything);
        assert_eq!(r, Ok(full.len()));
        assert_eq!(out, full.as_bytes());
        // A fresh writer is empty.
        let mut buf = [0u8; 4];
        let w = JsonWriter::new(&mut buf);
        assert!(w.is_empty() && !w.overflowed());
        assert_eq!(w.finish(), Ok(0));
    }

    #[derive(serde::Serialize)]
    struct Content<'a> {
        #[serde(rename = "type")]
        kind: &'a str,
        text: &'a str,
        n: i32,
        ok: Option<bool>,
    }

    #[test]
    fn serialize() {
        let c = Content {
            kind: "text",
            text: "a\"b\\c\nd\u{1}",
            n: -3,
            ok: None,
        };
        let out = write(|w| {
            w.begin_object();
            w.key("content");
            w.begin_array();
            w.serialize(&c);
            w.serialize(&c);
            w.end_array();
            w.key("x");
            w.serialize(&5u8);
            w.end_object();
        });
        let v = Json::new(&out).unwrap_or_else(|e| panic!("{out}: {e}"));
        let items: Vec<_> = v.get("content").unwrap().elements().collect();
        assert_eq!(items.len(), 2);
        for item in items {
            assert!(item.get("text").unwrap().as_str().unwrap().eq_str(c.text));
            assert_eq!(item.get("type").unwrap().as_raw(), "\"text\"");
            assert_eq!(item.get("n").unwrap().as_i64(), Some(-3));
        }
        assert_eq!(v.get("x").unwrap().as_raw(), "5");
        assert!(!out.contains('\n'));
        // Too small: an error whose `required` is more than the buffer (the exact size is
        // unknown for serde output), at any buffer size.
        let need = out.len();
        for cap in [0, 5, 12, need - 1] {
            let (r, _) = write_with(cap, |w| {
                w.begin_object();
                w.key("content");
                w.begin_array();
                w.serialize(&c);
                w.serialize(&c);
                w.end_array();
                w.key("x");
                w.serialize(&5u8);
                w.end_object();
            });
            let req = r.unwrap_err().required;
            assert!(req > cap, "cap {cap}: required {req}");
        }
    }
}
