//! Canonical JSON: one byte sequence for every way of writing the same value, without a
//! heap, streamed into a sink (the client's tool pins hash it; docs/DESIGN.md, "Tool
//! pinning").
//!
//! The form (close to RFC 8785, JCS):
//! - no whitespace;
//! - object members sorted by their decoded names (Unicode code point order, which is
//!   UTF-8 byte order), members with equal names kept in document order;
//! - strings decoded, then written with only `"` `\\` and the control characters escaped
//!   (`\b \f \n \r \t`, else `\u00xx` in lowercase hex); everything else as raw UTF-8;
//! - numbers: an integer as written (JSON integers have no leading zeros), with `-0` as
//!   `0`; any other number as its `f64` value: an integral value below 2^53 as an
//!   integer (`1.0` and `1e2` become `1` and `100`), else Rust's shortest round-trip
//!   decimal; a number beyond `f64` (`1e400`) as written;
//! - `true`, `false`, `null` as they are.
//!
//! Sorting without a buffer is repeated minimum selection over the members: O(n²)
//! member visits per object. An object of more than [`CANONICAL_MAX_MEMBERS`] members is
//! written in document order instead, and nesting beyond [`CANONICAL_MAX_DEPTH`] is
//! written as the raw text: both stay deterministic (the same text gives the same bytes),
//! so at worst a reordering there reads as a change, never a change as none.

use core::cmp::Ordering;
use core::fmt;

use super::{Json, JsonKind, JsonStr};

/// Objects with more members than this keep their document order (bounds the O(n²)
/// sort).
pub const CANONICAL_MAX_MEMBERS: usize = 128;

/// Nesting deeper than this is written as the raw text (bounds the recursion; the
/// session's scanner already refuses lines deeper than its `max_depth`).
pub const CANONICAL_MAX_DEPTH: usize = 64;

/// Streams the canonical form of `value` into `sink`, piece by piece.
///
/// ```
/// use picomcp::json::{Json, write_canonical};
/// let mut out = Vec::new();
/// let v = Json::new(r#"{ "b": 1.0, "a": "\u0041\n" }"#).unwrap();
/// write_canonical(v, &mut |b: &[u8]| out.extend_from_slice(b));
/// assert_eq!(out, br#"{"a":"A\n","b":1}"#);
/// ```
pub fn write_canonical<S: FnMut(&[u8])>(value: Json<'_>, sink: &mut S) {
    canon(value, sink, 0);
}

fn canon<S: FnMut(&[u8])>(v: Json<'_>, sink: &mut S, depth: usize) {
    if depth >= CANONICAL_MAX_DEPTH {
        sink(v.as_raw().as_bytes());
        return;
    }
    match v.kind() {
        JsonKind::Object => object(v, sink, depth),
        JsonKind::Array => {
            sink(b"[");
            for (i, e) in v.elements().enumerate() {
                if i > 0 {
                    sink(b",");
                }
                canon(e, sink, depth + 1);
            }
            sink(b"]");
        }
        JsonKind::String => match v.as_str() {
            Some(s) => string(s, sink),
            None => sink(v.as_raw().as_bytes()),
        },
        JsonKind::Number => number(v, sink),
        JsonKind::Bool | JsonKind::Null => sink(v.as_raw().as_bytes()),
    }
}

/// `(name, position)` order: decoded names by code point, then document order.
fn key_cmp(a: (JsonStr<'_>, usize), b: (JsonStr<'_>, usize)) -> Ordering {
    a.0.chars().cmp(b.0.chars()).then(a.1.cmp(&b.1))
}

fn object<S: FnMut(&[u8])>(v: Json<'_>, sink: &mut S, depth: usize) {
    let n = v.members().count();
    sink(b"{");
    if n > CANONICAL_MAX_MEMBERS {
        for (i, (k, val)) in v.members().enumerate() {
            if i > 0 {
                sink(b",");
            }
            member(k, val, sink, depth);
        }
        sink(b"}");
        return;
    }
    let mut last: Option<(JsonStr<'_>, usize)> = None;
    for emitted in 0..n {
        let mut best: Option<(JsonStr<'_>, usize, Json<'_>)> = None;
        for (i, (k, val)) in v.members().enumerate() {
            if last.is_some_and(|l| key_cmp((k, i), l) != Ordering::Greater) {
                continue;
            }
            if best.is_none_or(|(bk, bi, _)| key_cmp((k, i), (bk, bi)) == Ordering::Less) {
                best = Some((k, i, val));
            }
        }
        let Some((k, i, val)) = best else { break };
        if emitted > 0 {
            sink(b",");
        }
        member(k, val, sink, depth);
        last = Some((k, i));
    }
    sink(b"}");
}

fn member<S: FnMut(&[u8])>(k: JsonStr<'_>, val: Json<'_>, sink: &mut S, depth: usize) {
    string(k, sink);
    sink(b":");
    canon(val, sink, depth + 1);
}

fn string<S: FnMut(&[u8])>(s: JsonStr<'_>, sink: &mut S) {
    sink(b"\"");
    if let Some(plain) = s.as_plain().filter(|p| !p.bytes().any(|b| b < 0x20)) {
        sink(plain.as_bytes());
    } else {
        for c in s.chars() {
            let esc: &[u8] = match c {
                '"' => b"\\\"",
                '\\' => b"\\\\",
                '\u{8}' => b"\\b",
                '\u{c}' => b"\\f",
                '\n' => b"\\n",
                '\r' => b"\\r",
                '\t' => b"\\t",
                c if (c as u32) < 0x20 => {
                    const HEX: &[u8; 16] = b"0123456789abcdef";
                    let b = c as u8;
                    sink(&[
                        b'\\',
                        b'u',
                        b'0',
                        b'0',
                        HEX[(b >> 4) as usize],
                        HEX[(b & 15) as usize],
                    ]);
                    continue;
                }
                c => {
                    let mut buf = [0u8; 4];
                    sink(c.encode_utf8(&mut buf).as_bytes());
                    continue;
                }
            };
            sink(esc);
        }
    }
    sink(b"\"");
}

/// 2^53: below it every integer is exact in an `f64`.
const EXACT: f64 = 9_007_199_254_740_992.0;

fn number<S: FnMut(&[u8])>(v: Json<'_>, sink: &mut S) {
    let raw = v.as_raw();
    if v.is_integer() {
        sink(if raw == "-0" { b"0" } else { raw.as_bytes() });
        return;
    }
    match v.as_f64() {
        Some(f) if f.is_finite() => {
            if f > -EXACT && f < EXACT && f == (f as i64) as f64 {
                let i = f as i64;
                let mut digits = [0u8; 20];
                if i < 0 {
                    sink(b"-");
                }
                sink(super::fmt_u64(i.unsigned_abs(), &mut digits));
            } else {
                let mut w = Sink(sink);
                let _ = fmt::write(&mut w, format_args!("{f}"));
            }
        }
        _ => sink(raw.as_bytes()),
    }
}

/// `fmt::Write` into the sink.
struct Sink<'a, S>(&'a mut S);

impl<S: FnMut(&[u8])> fmt::Write for Sink<'_, S> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        (self.0)(s.as_bytes());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::string::String;
    use std::vec::Vec;

    use super::*;

    fn canonical(text: &str) -> String {
        let mut out = Vec::new();
        write_canonical(Json::new(text).unwrap(), &mut |b: &[u8]| {
            out.extend_from_slice(b)
        });
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn table() {
        let cases: &[(&str, &str)] = &[
            (
                r#" { "b" : 1 , "a" : [ true , null ] } "#,
                r#"{"a":[true,null],"b":1}"#,
            ),
            (r#"{"\u0062":1,"a":2}"#, r#"{"a":2,"b":1}"#),
            (r#""\u00e9\/x""#, "\"\u{e9}/x\""),
            (
                r#""tab\u0009 nl\n q\" bs\\ bel\u0007""#,
                r#""tab\t nl\n q\" bs\\ bel\u0007""#,
            ),
            ("1.0", "1"),
            ("1e2", "100"),
            ("-0", "0"),
            ("-0.0", "0"),
            ("-2.50", "-2.5"),
            ("12345678901234567890123", "12345678901234567890123"),
            ("1e400", "1e400"),
            // Equal names keep their document order.
            (r#"{"a":2,"a":1}"#, r#"{"a":2,"a":1}"#),
            (r#"{"é":1,"z":2,"A":3}"#, "{\"A\":3,\"z\":2,\"\u{e9}\":1}"),
            (
                r#"{"x":{"d":1,"c":{"b":1,"a":2}}}"#,
                r#"{"x":{"c":{"a":2,"b":1},"d":1}}"#,
            ),
        ];
        for (input, want) in cases {
            assert_eq!(canonical(input), *want, "{input}");
        }
    }

    #[test]
    fn spellings_of_one_value_agree() {
        let a = canonical(r#"{"name":"t","inputSchema":{"type":"object","properties":{}}}"#);
        let b = canonical(
            "{ \"inputSchema\": {\"properties\": {}, \"type\": \"obj\\u0065ct\"},\n \"name\": \"t\" }",
        );
        assert_eq!(a, b);
    }

    #[test]
    fn bounds_keep_output_deterministic() {
        let mut wide = String::from("{");
        for i in (0..CANONICAL_MAX_MEMBERS + 1).rev() {
            if i != CANONICAL_MAX_MEMBERS {
                wide.push(',');
            }
            wide.push_str(&std::format!("\"k{i}\":{i}"));
        }
        wide.push('}');
        // Document order beyond the limit (no sort), the same bytes every time.
        let out = canonical(&wide);
        assert!(out.starts_with(&std::format!("{{\"k{}\":", CANONICAL_MAX_MEMBERS)));
        assert_eq!(out, canonical(&wide));
        let deep = std::format!("{}1{}", "[".repeat(100), "]".repeat(100));
        let v = Json::with_max_depth(&deep, 128).unwrap();
        let mut out = Vec::new();
        write_canonical(v, &mut |b: &[u8]| out.extend_from_slice(b));
        assert_eq!(out, deep.as_bytes());
    }
}
