//! `json_scanner`: the JSON scanner and value view, differential against serde_json, plus
//! the writer's string round trip and a whole-document rewrite.
//!
//! Invariants, for any UTF-8 input:
//! - `Json::new` accepts exactly when `serde_json::from_str::<Value>` accepts, for inputs
//!   nested at most 60 deep (serde_json's own limit is 128, ours 64). Agreed differences,
//!   none of which shows up as a mismatch:
//!   * lone surrogate escapes (`"\ud800"`, `"\udc00"`, `"\ud800\u0041"`): we reject them
//!     (`LoneSurrogate`); serde_json rejects them too when it builds a `Value` ("lone
//!     leading surrogate in hex escape" / "unexpected end of hex escape"). Only
//!     serde_json's byte-string mode accepts them (as WTF-8), which we do not use.
//!   * numbers beyond the f64 range (`1e400`, 400-digit integers): valid JSON, which we
//!     accept; serde_json rejects them ("number out of range") unless built with
//!     `arbitrary_precision`, which this crate enables for exactly that reason.
//!   * serde_json's private marker keys (`"$serde_json::private::RawValue"`, `...::Number`)
//!     make it expect a special value, so it may reject valid JSON we accept: such
//!     documents are not compared.
//!   * nesting: compared only up to depth 60; deeper inputs only must not panic, and an
//!     accepted one must be at most 64 deep.
//! - for an accepted document the view agrees with serde_json's `Value`: kinds, array
//!   lengths and elements, object members (in order, duplicates included), numbers (i64,
//!   u64 and f64 readings), strings;
//! - every string and key: `unescape_into`, `chars`, `decoded_len`, `eq_str` and
//!   `as_plain` agree with serde_json's decoded text; re-escaping it with `JsonWriter`
//!   gives one line of JSON that decodes to the same text; a buffer one byte short makes
//!   `finish` report the exact size needed;
//! - rewriting the document with `JsonWriter` yields text serde_json reads as an equal
//!   value, and `Json::new` accepts it;
//! - a document `d` deep is accepted with `max_depth = d` and rejected (TooDeep) with
//!   `d - 1`.

use picomcp::json::{Json, JsonErrorKind, JsonKind, JsonStr, JsonWriter};
use serde_json::Value;

/// Nesting depth of JSON-ish text: brackets outside strings, strings skipped with their
/// escapes. Exact for valid JSON; an approximation otherwise.
pub fn depth(s: &[u8]) -> usize {
    let (mut d, mut max, mut i) = (0usize, 0usize, 0);
    while i < s.len() {
        match s[i] {
            b'"' => {
                i += 1;
                while i < s.len() && s[i] != b'"' {
                    i += if s[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'[' | b'{' => {
                d += 1;
                max = max.max(d);
            }
            b']' | b'}' => d = d.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    max
}

pub fn run(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let ours = Json::new(text);
    let d = depth(data);
    if d > 60 {
        if ours.is_ok() {
            assert!(d <= 64, "accepted a document {d} deep");
        }
        // Deeper limits must not panic either.
        let _ = Json::with_max_depth(text, picomcp::json::MAX_DEPTH_CAP);
        return;
    }
    if ours.is_ok_and(has_serde_magic_key) {
        return;
    }
    let theirs = serde_json::from_str::<Value>(text);
    match (&ours, &theirs) {
        (Ok(_), Ok(_)) | (Err(_), Err(_)) => {}
        (Ok(_), Err(e)) => panic!("we accept, serde_json rejects ({e}): {text:?}"),
        (Err(e), Ok(_)) => panic!("we reject ({e:?}), serde_json accepts: {text:?}"),
    }
    if let Err(e) = ours {
        assert!(e.offset <= text.len(), "error offset past the end");
        return;
    }
    let (v, value) = (ours.unwrap(), theirs.unwrap());
    assert_eq!(v.as_raw(), text.trim_matches([' ', '\t', '\r', '\n']));
    compare(v, &value);

    // Whole-document rewrite through the writer.
    let mut buf = vec![0u8; text.len() * 2 + 16];
    let mut w = JsonWriter::new(&mut buf);
    rewrite(&mut w, v);
    let n = w.finish().expect("rewrite fits twice the input");
    let out = std::str::from_utf8(&buf[..n]).expect("writer output is UTF-8");
    assert!(!out.contains('\n'), "writer output has a raw newline");
    let again: Value = serde_json::from_str(out).expect("rewritten document is JSON");
    assert_eq!(again, value, "rewrite changed the value: {out}");
    Json::new(out).expect("we accept our own output");

    // Depth limits are exact.
    if d >= 1 {
        Json::with_max_depth(text, d).expect("accepted at its own depth");
        let e = Json::with_max_depth(text, d - 1).expect_err("accepted one level too shallow");
        assert_eq!(e.kind, JsonErrorKind::TooDeep);
    }
}

/// True when an object key is one of serde_json's private marker names
/// (`$serde_json::private::RawValue`, `$serde_json::private::Number`, enabled by the
/// `raw_value` and `arbitrary_precision` features): serde_json then expects a special
/// value there and may reject valid JSON.
pub fn has_serde_magic_key(v: Json<'_>) -> bool {
    match v.kind() {
        JsonKind::Object => v.members().any(|(k, val)| {
            k.chars()
                .collect::<String>()
                .starts_with("$serde_json::private::")
                || has_serde_magic_key(val)
        }),
        JsonKind::Array => v.elements().any(has_serde_magic_key),
        _ => false,
    }
}

fn compare(v: Json<'_>, value: &Value) {
    match (v.kind(), value) {
        (JsonKind::Null, Value::Null) => assert!(v.is_null()),
        (JsonKind::Bool, Value::Bool(b)) => assert_eq!(v.as_bool(), Some(*b)),
        (JsonKind::Number, Value::Number(n)) => {
            assert_eq!(
                v.as_i64(),
                n.as_i64().filter(|_| v.is_integer()),
                "as_i64 {n}"
            );
            assert_eq!(
                v.as_u64(),
                n.as_u64().filter(|_| v.is_integer()),
                "as_u64 {n}"
            );
            let ours = v.as_f64().expect("a number reads as f64");
            // serde_json (arbitrary_precision) keeps the digits but normalizes the
            // exponent (1E3 → 1e+3); both must read as the same f64.
            let raw: f64 = n.as_str().parse().unwrap();
            assert_eq!(ours.to_bits(), raw.to_bits(), "as_f64 {n}");
            let integer = !v.as_raw().contains(['.', 'e', 'E']);
            assert_eq!(v.is_integer(), integer);
        }
        (JsonKind::String, Value::String(s)) => check_string(v.as_str().unwrap(), s),
        (JsonKind::Array, Value::Array(a)) => {
            let els: Vec<Json<'_>> = v.elements().collect();
            assert_eq!(els.len(), a.len(), "array length");
            for (e, x) in els.iter().zip(a) {
                compare(*e, x);
            }
        }
        (JsonKind::Object, Value::Object(m)) => {
            let members: Vec<(JsonStr<'_>, Json<'_>)> = v.members().collect();
            let mut keys: Vec<String> = Vec::new();
            for (k, val) in &members {
                let key: String = k.chars().collect();
                check_string(*k, &key);
                // serde_json keeps the last of duplicate keys; `get` returns the first.
                let last = members
                    .iter()
                    .rev()
                    .find(|(k2, _)| k2.eq_str(&key))
                    .unwrap()
                    .1;
                if last.as_raw().as_ptr() == val.as_raw().as_ptr() {
                    compare(*val, m.get(&key).expect("member known to serde_json"));
                }
                let first = v.get(&key).expect("get finds a member");
                assert!(members.iter().find(|(k2, _)| k2.eq_str(&key)).unwrap().1 == first);
                keys.push(key);
            }
            keys.sort();
            keys.dedup();
            assert_eq!(keys.len(), m.len(), "distinct member count");
        }
        (k, x) => panic!("kind {k:?} vs serde_json {x:?} for {}", v.as_raw()),
    }
}

/// Checks one string (or key) against its decoded text and round-trips it.
fn check_string(s: JsonStr<'_>, want: &str) {
    assert_eq!(s.decoded_len(), want.len(), "decoded_len of {:?}", s.raw());
    assert!(s.eq_str(want), "eq_str of {:?}", s.raw());
    assert_eq!(s.chars().collect::<String>(), want);
    assert_eq!(s.is_escaped(), s.raw().contains('\\'));
    assert_eq!(s.as_plain().is_some(), !s.is_escaped());
    let mut buf = vec![0u8; want.len()];
    assert_eq!(
        s.unescape_into(&mut buf).expect("exact buffer is enough"),
        want
    );
    if !want.is_empty() {
        let e = s.unescape_into(&mut buf[..want.len() - 1]).unwrap_err();
        assert_eq!(e.required, want.len());
    }
    if let Some(last) = want.chars().last() {
        assert!(
            !s.eq_str(&want[..want.len() - last.len_utf8()]),
            "eq_str of a prefix"
        );
    }

    // Re-escape and read back.
    let mut out = vec![0u8; want.len() * 6 + 2];
    let mut w = JsonWriter::new(&mut out);
    w.string(want);
    let n = w.finish().expect("6 bytes per byte is enough");
    let text = std::str::from_utf8(&out[..n]).unwrap();
    assert!(
        !text.bytes().any(|c| c < 0x20),
        "raw control character in {text:?}"
    );
    let back: String = serde_json::from_str(text).expect("escaped string is JSON");
    assert_eq!(back, want);
    let j = Json::new(text).expect("we accept our escaped string");
    assert!(j.as_str().unwrap().eq_str(want));
    if n > 0 {
        let mut short = vec![0u8; n - 1];
        let mut w = JsonWriter::new(&mut short);
        w.string(want);
        assert_eq!(w.finish().unwrap_err().required, n, "size report");
    }
}

/// Writes `v` with the writer's structural calls (strings decoded and re-escaped).
fn rewrite(w: &mut JsonWriter<'_>, v: Json<'_>) {
    match v.kind() {
        JsonKind::Null => w.null(),
        JsonKind::Bool => w.bool(v.as_bool().unwrap()),
        JsonKind::Number => w.raw(v),
        JsonKind::String => w.string(&v.as_str().unwrap().chars().collect::<String>()),
        JsonKind::Array => {
            w.begin_array();
            for e in v.elements() {
                rewrite(w, e);
            }
            w.end_array();
        }
        JsonKind::Object => {
            w.begin_object();
            for (k, val) in v.members() {
                if k.is_escaped() {
                    w.key(&k.chars().collect::<String>());
                } else {
                    w.key_raw(k);
                }
                rewrite(w, val);
            }
            w.end_object();
        }
    }
}
