//! `jsonrpc_parse`: the JSON-RPC line parser and `peek_id`, checked against serde_json,
//! plus an encode → parse round trip of everything that parses.
//!
//! Layout: `[limits] line`. The low two bits of `limits` pick `max_id_len`
//! (128, 8, 16, 40), the next two `max_depth` (64, 1, 2, 5).
//!
//! Invariants:
//! - `parse` and `peek_id` never panic (`peek_id` also on non-UTF-8 bytes);
//! - when `peek_id` finds an id in a line, it finds nothing or that same id in every
//!   prefix (a cut never yields a wrong id);
//! - `Ok(Request)` exactly when serde_json sees one well-formed request: one object,
//!   envelope members once each, `"jsonrpc":"2.0"`, a string or integer id no longer
//!   than `max_id_len`, a string method, params absent or an object, no result/error,
//!   nesting within `max_depth`; same for notifications and success responses; the id
//!   raw text and method agree with serde_json's reading, and `peek_id` finds the id;
//! - a parse error's id, when given, is `peek_id`'s; a -32700 error means serde_json
//!   rejects the text too; a response-like error needs no reply;
//! - re-encoding a parsed request / notification / response / error with `encode_*` and
//!   parsing the result gives the same kind, the same id raw text, the same method (as
//!   decoded text), code and message, and params/result/data equal as JSON values; the
//!   error reply for a parse error parses as an error with the same id and code.

use picomcp::Limits;
use picomcp::error::ErrorCode;
use picomcp::json::{Json, JsonWriter};
use picomcp::jsonrpc::{
    Message, encode_error, encode_notification, encode_request, encode_result, parse, peek_id,
};
use serde_json::Value;

use crate::json_scanner::{depth, has_serde_magic_key};
use crate::wire::{Members, is_id, value};

pub fn limits_from(b: u8) -> Limits {
    Limits {
        max_id_len: [128, 8, 16, 40][(b & 3) as usize],
        max_depth: [64, 1, 2, 5][((b >> 2) & 3) as usize],
        ..Limits::DEFAULT
    }
}

pub fn run(data: &[u8]) {
    let Some((&sel, line)) = data.split_first() else {
        return;
    };
    let limits = limits_from(sel);
    let whole = peek_id(line, limits.max_depth).map(|i| i.as_raw());
    // A prefix cannot see a duplicate id later in the line, so only a line with an id
    // constrains its prefixes.
    if line.len() <= 512 && whole.is_some() {
        for cut in 0..line.len() {
            if let Some(p) = peek_id(&line[..cut], limits.max_depth) {
                assert_eq!(
                    Some(p.as_raw()),
                    whole,
                    "peek_id of a {cut}-byte prefix gives another id"
                );
            }
        }
    }
    let Ok(text) = std::str::from_utf8(line) else {
        return;
    };
    let parsed = parse(text, &limits);
    // serde_json's private marker keys change what it reads: no oracle for those.
    if Json::with_max_depth(text, 256).is_ok_and(has_serde_magic_key) {
        return;
    }
    let expect = expected(text, &limits);
    match &parsed {
        Ok(Message::Request(r)) => {
            assert_eq!(
                expect,
                Some(Shape::Request(
                    r.id.as_raw().into(),
                    r.method.chars().collect()
                )),
                "parse gave a request: {text:?}"
            );
            assert_eq!(whole, Some(r.id.as_raw()), "peek_id misses the request id");
        }
        Ok(Message::Notification(n)) => {
            assert_eq!(
                expect,
                Some(Shape::Notification(n.method.chars().collect())),
                "parse gave a notification: {text:?}"
            );
        }
        Ok(Message::Response(r)) => {
            assert_eq!(
                expect,
                Some(Shape::Response(r.id.as_raw().into())),
                "parse gave a response: {text:?}"
            );
        }
        Ok(_) => {
            assert_eq!(expect, None, "parse gave another message: {text:?}");
        }
        Err(e) => {
            assert_eq!(expect, None, "parse rejected ({e:?}): {text:?}");
            if let Some(id) = e.id {
                assert_eq!(Some(id.as_raw()), whole, "error id differs from peek_id");
            }
            if e.code() == ErrorCode::PARSE_ERROR {
                assert!(
                    serde_json::from_str::<Value>(text).is_err(),
                    "-32700 for text serde_json accepts: {text:?}"
                );
            }
            if e.response_like {
                assert!(!e.needs_reply());
            }
            let _ = e.kind.message();
            // The reply we would send parses back as an error with the same id and code.
            let (buf, n) = write(|w| encode_error(w, e.id, e.code(), e.kind.message(), None));
            let reply = std::str::from_utf8(&buf[..n]).unwrap();
            match parse(reply, &Limits::DEFAULT) {
                Ok(Message::Error(r)) => {
                    assert_eq!(r.id.map(|i| i.as_raw()), e.id.map(|i| i.as_raw()));
                    assert_eq!(r.error.code, i64::from(e.code()));
                }
                other => panic!("error reply {reply} parses as {other:?}"),
            }
        }
    }
    if let Ok(m) = parsed {
        round_trip(m, 0);
    }
}

#[derive(Debug, PartialEq, Eq)]
enum Shape {
    Request(String, String),
    Notification(String),
    Response(String),
}

/// What serde_json says the line is, when it is one of the three clean shapes.
fn expected(text: &str, limits: &Limits) -> Option<Shape> {
    if serde_json::from_str::<Value>(text).is_err() || depth(text.as_bytes()) > limits.max_depth {
        return None;
    }
    let m = Members::parse(text)?;
    const ENVELOPE: [&str; 6] = ["jsonrpc", "id", "method", "params", "result", "error"];
    let version = m.one("jsonrpc").map(value);
    if ENVELOPE.iter().any(|k| m.all(k).len() > 1) || version != Some(Value::from("2.0")) {
        return None;
    }
    let id_ok = |id: &str| is_id(id) && id.len() <= limits.max_id_len;
    if let Some(method) = m.one("method") {
        let Value::String(method) = value(method) else {
            return None;
        };
        if m.has("result")
            || m.has("error")
            || m.one("params").is_some_and(|p| !value(p).is_object())
        {
            return None;
        }
        return match m.one("id") {
            None => Some(Shape::Notification(method)),
            Some(id) if id_ok(id) => Some(Shape::Request(id.into(), method)),
            Some(_) => None,
        };
    }
    match (m.one("id"), m.one("result"), m.has("error")) {
        // Responses are not held to max_id_len (they carry our own ids).
        (Some(id), Some(r), false) if is_id(id) && value(r).is_object() => {
            Some(Shape::Response(id.into()))
        }
        _ => None,
    }
}

fn write(f: impl FnOnce(&mut JsonWriter<'_>)) -> (Vec<u8>, usize) {
    let mut buf = vec![0u8; 1 << 16];
    let mut w = JsonWriter::new(&mut buf);
    f(&mut w);
    let n = w.finish().expect("encoded message fits 64 KiB");
    (buf, n)
}

fn same_json(a: Option<Json<'_>>, b: Option<Json<'_>>) {
    let v = |j: Option<Json<'_>>| j.map(|j| serde_json::from_str::<Value>(j.as_raw()).unwrap());
    assert_eq!(v(a), v(b));
}

fn round_trip(m: Message<'_>, level: usize) {
    let big = Limits {
        max_id_len: 128,
        ..Limits::DEFAULT
    };
    match m {
        Message::Request(r) => {
            let method: String = r.method.chars().collect();
            let (buf, n) = write(|w| encode_request(w, r.id, &method, r.params));
            let t = std::str::from_utf8(&buf[..n]).unwrap();
            let Ok(Message::Request(r2)) = parse(t, &big) else {
                panic!("re-encoded request {t} does not parse as a request")
            };
            assert_eq!(r2.id.as_raw(), r.id.as_raw());
            assert!(r2.method.eq_str(&method));
            same_json(r.params, r2.params);
        }
        Message::Notification(nf) => {
            let method: String = nf.method.chars().collect();
            let (buf, n) = write(|w| encode_notification(w, &method, nf.params));
            let t = std::str::from_utf8(&buf[..n]).unwrap();
            let Ok(Message::Notification(n2)) = parse(t, &big) else {
                panic!("re-encoded notification {t} does not parse as one")
            };
            assert!(n2.method.eq_str(&method));
            same_json(nf.params, n2.params);
        }
        Message::Response(r) => {
            let (buf, n) = write(|w| encode_result(w, r.id, r.result));
            let t = std::str::from_utf8(&buf[..n]).unwrap();
            let Ok(Message::Response(r2)) = parse(t, &big) else {
                panic!("re-encoded response {t} does not parse as one")
            };
            assert_eq!(r2.id.as_raw(), r.id.as_raw());
            same_json(Some(r.result), Some(r2.result));
        }
        Message::Error(e) => {
            let Ok(code) = ErrorCode::try_from(e.error.code) else {
                return;
            };
            let message: String = e.error.message.chars().collect();
            let (buf, n) = write(|w| encode_error(w, e.id, code, &message, e.error.data));
            let t = std::str::from_utf8(&buf[..n]).unwrap();
            let Ok(Message::Error(e2)) = parse(t, &big) else {
                panic!("re-encoded error {t} does not parse as one")
            };
            assert_eq!(e2.id.map(|i| i.as_raw()), e.id.map(|i| i.as_raw()));
            assert_eq!(e2.error.code, e.error.code);
            assert!(e2.error.message.eq_str(&message));
            same_json(e.error.data, e2.error.data);
        }
        Message::Batch(b) => {
            assert_eq!(b.len(), b.iter().count());
            assert_eq!(b.is_empty(), b.iter().next().is_none());
            if level > 0 {
                return;
            }
            for m in b.iter().take(64).flatten() {
                assert!(!matches!(m, Message::Batch(_)), "nested batch parsed");
                round_trip(m, level + 1);
            }
        }
    }
}
