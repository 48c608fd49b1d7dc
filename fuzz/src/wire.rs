//! Reading JSON-RPC text with serde_json, independently of picomcp: top-level members
//! with their raw text (duplicates kept), and the shape check every output line must pass.

use std::fmt;

use serde::de::{Deserializer, MapAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;

/// An object's members in order, duplicates kept, values as raw text.
pub struct Members(pub Vec<(String, Box<RawValue>)>);

impl<'de> serde::Deserialize<'de> for Members {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Members;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Members, A::Error> {
                let mut v = Vec::new();
                while let Some((k, val)) = m.next_entry::<String, Box<RawValue>>()? {
                    v.push((k, val));
                }
                Ok(Members(v))
            }
        }
        d.deserialize_map(V)
    }
}

impl Members {
    pub fn parse(text: &str) -> Option<Members> {
        serde_json::from_str(text).ok()
    }
    /// The raw text of every member called `key`.
    pub fn all(&self, key: &str) -> Vec<&str> {
        self.0
            .iter()
            .filter(|(k, _)| k == key)
            .map(|(_, v)| v.get())
            .collect()
    }
    /// The raw text of the member `key` when it appears exactly once.
    pub fn one(&self, key: &str) -> Option<&str> {
        match self.all(key).as_slice() {
            [v] => Some(v),
            _ => None,
        }
    }
    pub fn has(&self, key: &str) -> bool {
        self.0.iter().any(|(k, _)| k == key)
    }
}

pub fn value(raw: &str) -> Value {
    serde_json::from_str(raw).expect("raw member text is JSON")
}

/// True when raw JSON text is an integer lexeme (any length) or a string: a valid id.
pub fn is_id(raw: &str) -> bool {
    match value(raw) {
        Value::String(_) => true,
        Value::Number(n) => !n.as_str().contains(['.', 'e', 'E']),
        _ => false,
    }
}

/// What one output line is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// A request with its raw id and method.
    Request {
        id: String,
        method: String,
    },
    Notification {
        method: String,
    },
    /// A result or error response; `id` is `None` for an error without (or with a null) id.
    Response {
        id: Option<String>,
        error: Option<i64>,
    },
}

const ENVELOPE: [&str; 6] = ["jsonrpc", "id", "method", "params", "result", "error"];

/// Checks that `obj` (raw text of one JSON object) is exactly one JSON-RPC 2.0 message
/// of the four shapes and returns what it is; panics with `what` otherwise.
pub fn classify(obj: &str, what: &str) -> Kind {
    let m = Members::parse(obj).unwrap_or_else(|| panic!("{what}: not a JSON object: {obj}"));
    for (k, _) in &m.0 {
        assert!(
            ENVELOPE.contains(&k.as_str()),
            "{what}: unexpected member {k:?}: {obj}"
        );
        assert_eq!(m.all(k).len(), 1, "{what}: duplicate member {k:?}: {obj}");
    }
    assert_eq!(
        m.one("jsonrpc"),
        Some("\"2.0\""),
        "{what}: jsonrpc must be \"2.0\": {obj}"
    );
    if let Some(method) = m.one("method") {
        let Value::String(method) = value(method) else {
            panic!("{what}: method not a string: {obj}")
        };
        assert!(
            !m.has("result") && !m.has("error"),
            "{what}: method with result/error: {obj}"
        );
        if let Some(p) = m.one("params") {
            assert!(value(p).is_object(), "{what}: params not an object: {obj}");
        }
        return match m.one("id") {
            Some(id) => {
                assert!(is_id(id), "{what}: bad request id: {obj}");
                Kind::Request {
                    id: id.to_string(),
                    method,
                }
            }
            None => Kind::Notification { method },
        };
    }
    assert!(!m.has("params"), "{what}: params without method: {obj}");
    match (m.one("result"), m.one("error")) {
        (Some(r), None) => {
            assert!(value(r).is_object(), "{what}: result not an object: {obj}");
            let id = m
                .one("id")
                .unwrap_or_else(|| panic!("{what}: result without id: {obj}"));
            assert!(is_id(id), "{what}: bad response id: {obj}");
            Kind::Response {
                id: Some(id.to_string()),
                error: None,
            }
        }
        (None, Some(e)) => {
            let e_m =
                Members::parse(e).unwrap_or_else(|| panic!("{what}: error not an object: {obj}"));
            for (k, _) in &e_m.0 {
                assert!(
                    ["code", "message", "data"].contains(&k.as_str()),
                    "{what}: unexpected error member {k:?}: {obj}"
                );
                assert_eq!(e_m.all(k).len(), 1, "{what}: duplicate error member: {obj}");
            }
            let code = e_m
                .one("code")
                .and_then(|c| value(c).as_i64())
                .unwrap_or_else(|| panic!("{what}: error.code not an integer: {obj}"));
            assert!(
                e_m.one("message").is_some_and(|m| value(m).is_string()),
                "{what}: error.message not a string: {obj}"
            );
            let id = match m.one("id") {
                None | Some("null") => None,
                Some(id) => {
                    assert!(is_id(id), "{what}: bad error id: {obj}");
                    Some(id.to_string())
                }
            };
            Kind::Response {
                id,
                error: Some(code),
            }
        }
        _ => panic!("{what}: neither request, notification, result nor error: {obj}"),
    }
}
