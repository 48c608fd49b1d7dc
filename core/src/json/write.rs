//! A bounded JSON writer: builds objects, arrays, strings and numbers into a caller buffer.

use core::fmt::{self, Write as _};

use super::scan::BitStack;
use super::value::{Json, JsonStr};
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
        JsonWriter { buf, len: 0, has_elem: BitStack::new(), after_key: false, nesting_overflow: false }
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
        if self.len > self.buf.len() || self.nesting_overflow {
            Err(InsufficientSize { required: self.len })
        } else {
            Ok(self.len)
        }
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
        let b = s.as_bytes();
        let mut start = 0;
        for (i, &c) in b.iter().enumerate() {
            let esc: &[u8] = match c {
                b'"' => b"\\\"",
                b'\\' => b"\\\\",
                b'\n' => b"\\n",
                b'\r' => b"\\r",
                b'\t' => b"\\t",
                0x08 => b"\\b",
                0x0c => b"\\f",
                0..=0x1f => b"",
                _ => continue,
            };
            self.put(&b[start..i]);
            if esc.is_empty() {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                self.put(&[b'\\', b'u', b'0', b'0', HEX[(c >> 4) as usize], HEX[(c & 15) as usize]]);
            } else {
                self.put(esc);
            }
            start = i + 1;
        }
        self.put(&b[start..]);
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

    /// Writes an already-validated JSON value unchanged.
    pub fn raw(&mut self, v: Json<'_>) {
        self.value_prefix();
        self.put(v.as_raw().as_bytes());
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

fn fmt_u64(mut v: u64, tmp: &mut [u8; 20]) -> &[u8] {
    let mut i = tmp.len();
    loop {
        i -= 1;
        tmp[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    &tmp[i..]
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
