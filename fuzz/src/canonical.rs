//! `canonical`: the canonical JSON writer (`json::write_canonical`) and the tool digest
//! (`session::tool_digest`) the client's pins use (docs/DESIGN.md, "Tool pinning").
//!
//! Invariants, for any input that `Json::new` accepts:
//! - the canonical form never panics and is valid JSON (`Json::new` accepts it) that
//!   serde_json reads as a value equal to the input's, numbers compared as `f64` (the
//!   form rewrites `1.0` as `1`); duplicate member names keep every member;
//! - it is a fixed point: the canonical form of the canonical form is itself;
//! - the tool digest of the input equals the digest of its canonical form (so any
//!   respelling of a definition pins the same).

use picomcp::json::{Json, write_canonical};
use picomcp::session::tool_digest;
use serde_json::Value;

fn canonical(v: Json<'_>) -> Vec<u8> {
    let mut out = Vec::new();
    write_canonical(v, &mut |b: &[u8]| out.extend_from_slice(b));
    out
}

/// serde_json values equal, numbers as f64.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let (x, y) = (x.as_f64(), y.as_f64());
            x == y || x.is_some_and(|v| v.is_nan()) || x.is_some_and(|v| v.is_infinite())
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

pub fn run(data: &[u8]) {
    let Ok(text) = core::str::from_utf8(data) else {
        return;
    };
    let Ok(v) = Json::with_max_depth(text, 60) else {
        return;
    };
    let c = canonical(v);
    let c_text = core::str::from_utf8(&c).expect("canonical form is UTF-8");
    let cv = Json::with_max_depth(c_text, 64).expect("canonical form is valid JSON");
    assert_eq!(canonical(cv), c, "canonical form is a fixed point");
    assert_eq!(tool_digest(v), tool_digest(cv), "digest of a respelling");
    // Duplicate names: serde_json keeps the last, so only compare documents without.
    if let (Ok(a), Ok(b)) = (
        serde_json::from_str::<Value>(text),
        serde_json::from_str::<Value>(c_text),
    ) && !has_duplicates(v)
    {
        assert!(same(&a, &b), "canonical form changed the value: {text} -> {c_text}");
    }
}

fn has_duplicates(v: Json<'_>) -> bool {
    let mut seen: Vec<String> = Vec::new();
    for (k, m) in v.members() {
        let k = k.to_string();
        if seen.contains(&k) || has_duplicates(m) {
            return true;
        }
        seen.push(k);
    }
    v.elements().any(has_duplicates)
}
