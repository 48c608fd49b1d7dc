//! Encoders for the four message kinds. They write one JSON object (no newline).

use super::Id;
use crate::error::ErrorCode;
use crate::json::{Json, JsonWriter};

fn head(w: &mut JsonWriter<'_>) {
    w.begin_object();
    w.key("jsonrpc");
    w.string("2.0");
}

/// Writes a request. `id` is written exactly as given.
pub fn encode_request(w: &mut JsonWriter<'_>, id: Id<'_>, method: &str, params: Option<Json<'_>>) {
    head(w);
    w.key("id");
    w.raw(id.as_json());
    w.key("method");
    w.string(method);
    if let Some(p) = params {
        w.key("params");
        w.raw(p);
    }
    w.end_object();
}

/// Writes a notification.
pub fn encode_notification(w: &mut JsonWriter<'_>, method: &str, params: Option<Json<'_>>) {
    head(w);
    w.key("method");
    w.string(method);
    if let Some(p) = params {
        w.key("params");
        w.raw(p);
    }
    w.end_object();
}

/// Writes a success response; the id is echoed byte for byte.
pub fn encode_result(w: &mut JsonWriter<'_>, id: Id<'_>, result: Json<'_>) {
    head(w);
    w.key("id");
    w.raw(id.as_json());
    w.key("result");
    w.raw(result);
    w.end_object();
}

/// Writes an error response. With `id: None` (the id could not be read) the `id`
/// member is left out, as MCP 2025-11-25 specifies.
pub fn encode_error(
    w: &mut JsonWriter<'_>,
    id: Option<Id<'_>>,
    code: ErrorCode,
    message: &str,
    data: Option<Json<'_>>,
) {
    error_start(w, id, code, message);
    if let Some(d) = data {
        w.key("data");
        w.raw(d);
    }
    w.end_object();
    w.end_object();
}

/// Writes a request whose `params` object `params` writes. `id` is written exactly as given.
pub fn encode_request_with(
    w: &mut JsonWriter<'_>,
    id: Id<'_>,
    method: &str,
    params: impl FnOnce(&mut JsonWriter<'_>),
) {
    head(w);
    w.key("id");
    w.raw(id.as_json());
    w.key("method");
    w.string(method);
    w.key("params");
    params(w);
    w.end_object();
}

/// Writes a notification whose `params` object `params` writes.
pub fn encode_notification_with(
    w: &mut JsonWriter<'_>,
    method: &str,
    params: impl FnOnce(&mut JsonWriter<'_>),
) {
    head(w);
    w.key("method");
    w.string(method);
    w.key("params");
    params(w);
    w.end_object();
}

/// Writes a success response whose result `result` writes; the id is echoed byte for
/// byte.
pub fn encode_result_with(
    w: &mut JsonWriter<'_>,
    id: Id<'_>,
    result: impl FnOnce(&mut JsonWriter<'_>),
) {
    head(w);
    w.key("id");
    w.raw(id.as_json());
    w.key("result");
    result(w);
    w.end_object();
}

/// Writes an error response whose `data` `data` writes (see [`encode_error`]).
pub fn encode_error_with(
    w: &mut JsonWriter<'_>,
    id: Option<Id<'_>>,
    code: ErrorCode,
    message: &str,
    data: impl FnOnce(&mut JsonWriter<'_>),
) {
    error_start(w, id, code, message);
    w.key("data");
    data(w);
    w.end_object();
    w.end_object();
}

/// The envelope of an error response up to its `message`, with the error object left open.
fn error_start(w: &mut JsonWriter<'_>, id: Option<Id<'_>>, code: ErrorCode, message: &str) {
    head(w);
    if let Some(id) = id {
        w.key("id");
        w.raw(id.as_json());
    }
    w.key("error");
    w.begin_object();
    w.key("code");
    w.i64(code.0 as i64);
    w.key("message");
    w.string(message);
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::string::String;
    use std::vec;

    use super::*;
    use crate::Limits;
    use crate::error::InsufficientSize;
    use crate::jsonrpc::{Message, parse};

    fn enc(f: impl Fn(&mut JsonWriter<'_>)) -> String {
        let mut buf = vec![0u8; 4096];
        let mut w = JsonWriter::new(&mut buf);
        f(&mut w);
        let n = w.finish().unwrap();
        let s = String::from_utf8(buf[..n].to_vec()).unwrap();
        assert!(!s.contains('\n'), "one line: {s}");
        s
    }

    fn id(raw: &str) -> Id<'_> {
        Id::parse(raw).unwrap()
    }

    #[test]
    fn exact_bytes() {
        let p = Json::new(r#"{"a": [1, "x"]}"#).unwrap();
        assert_eq!(
            enc(|w| encode_request(w, id("1"), "ping", None)),
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#
        );
        assert_eq!(
            enc(|w| encode_request(w, id(r#""r-1""#), "tools/call", Some(p))),
            r#"{"jsonrpc":"2.0","id":"r-1","method":"tools/call","params":{"a": [1, "x"]}}"#
        );
        assert_eq!(
            enc(|w| encode_notification(w, "n/x", None)),
            r#"{"jsonrpc":"2.0","method":"n/x"}"#
        );
        assert_eq!(
            enc(|w| encode_notification(w, "a\"b\n", Some(Json::EMPTY_OBJECT))),
            r#"{"jsonrpc":"2.0","method":"a\"b\n","params":{}}"#
        );
        assert_eq!(
            enc(|w| encode_result(w, id("-3"), Json::EMPTY_OBJECT)),
            r#"{"jsonrpc":"2.0","id":-3,"result":{}}"#
        );
        assert_eq!(
            enc(|w| encode_error(w, None, ErrorCode::PARSE_ERROR, "Parse error", None)),
            r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}"#
        );
        assert_eq!(
            enc(|w| encode_error(
                w,
                Some(id("7")),
                ErrorCode(-32602),
                "bad \"x\"",
                Some(Json::new("[1]").unwrap())
            )),
            r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"bad \"x\"","data":[1]}}"#
        );
    }

    #[test]
    fn with_forms_match_the_plain_ones() {
        let p = Json::new(r#"{"a":1}"#).unwrap();
        assert_eq!(
            enc(|w| encode_request_with(w, id("1"), "x", |w| w.raw(p))),
            enc(|w| encode_request(w, id("1"), "x", Some(p)))
        );
        assert_eq!(
            enc(|w| encode_notification_with(w, "n", |w| w.raw(p))),
            enc(|w| encode_notification(w, "n", Some(p)))
        );
        assert_eq!(
            enc(|w| encode_result_with(w, id("\"k\""), |w| w.raw(p))),
            enc(|w| encode_result(w, id("\"k\""), p))
        );
        assert_eq!(
            enc(|w| encode_error_with(w, Some(id("2")), ErrorCode(-32021), "m", |w| w.raw(p))),
            enc(|w| encode_error(w, Some(id("2")), ErrorCode(-32021), "m", Some(p)))
        );
    }

    #[test]
    fn ids_echo_byte_exact() {
        for raw in [
            "0",
            "-1",
            "123456789012345678901234567890123456789",
            "-98765432109876543210",
            r#""""#,
            r#""a\"b\\c\u00e9\n\/""#,
            r#""\ud83d\ude00""#,
            r#""é😀""#,
        ] {
            let line = std::format!(r#"{{"jsonrpc":"2.0","id":{raw},"method":"x"}}"#);
            let Ok(Message::Request(req)) = parse(&line, &Limits::DEFAULT) else {
                panic!("{line}")
            };
            assert_eq!(req.id.as_raw(), raw);
            let ok = enc(|w| encode_result(w, req.id, Json::EMPTY_OBJECT));
            assert_eq!(
                ok,
                std::format!(r#"{{"jsonrpc":"2.0","id":{raw},"result":{{}}}}"#)
            );
            let Ok(Message::Response(resp)) = parse(&ok, &Limits::DEFAULT) else {
                panic!("{ok}")
            };
            assert_eq!(resp.id.as_raw(), raw);
            assert!(resp.id.same(&req.id));
            let err = enc(|w| encode_error(w, Some(req.id), ErrorCode::INTERNAL_ERROR, "x", None));
            assert!(err.contains(&std::format!(r#""id":{raw},"#)), "{err}");
            let Ok(Message::Error(e)) = parse(&err, &Limits::DEFAULT) else {
                panic!("{err}")
            };
            assert_eq!(e.id.unwrap().as_raw(), raw);
            assert_eq!(e.error.code, -32603);
        }
    }

    #[test]
    fn round_trips_through_parse() {
        let params = Json::new(r#"{"name":"echo","arguments":{"text":"a\nb"}}"#).unwrap();
        let line = enc(|w| encode_request(w, id("5"), "tools/\"call\"", Some(params)));
        let Ok(Message::Request(r)) = parse(&line, &Limits::DEFAULT) else {
            panic!("{line}")
        };
        assert!(r.method.eq_str("tools/\"call\""));
        assert_eq!(r.params, Some(params));
        let line = enc(|w| encode_notification(w, "notifications/progress", Some(params)));
        let Ok(Message::Notification(n)) = parse(&line, &Limits::DEFAULT) else {
            panic!("{line}")
        };
        assert!(n.method.eq_str("notifications/progress"));
        assert_eq!(n.params, Some(params));
        let data = Json::new(r#"{"supported":["2025-11-25"]}"#).unwrap();
        let line = enc(|w| {
            encode_error(
                w,
                None,
                ErrorCode(-32022),
                "Unsupported\tversion",
                Some(data),
            )
        });
        let Ok(Message::Error(e)) = parse(&line, &Limits::DEFAULT) else {
            panic!("{line}")
        };
        assert_eq!(
            (e.id, e.error.code, e.error.data),
            (None, -32022, Some(data))
        );
        assert!(e.error.message.eq_str("Unsupported\tversion"));
    }

    #[test]
    fn too_small_buffer_reports_exact_size() {
        let p = Json::new(r#"{"k":"v"}"#).unwrap();
        let full = enc(|w| {
            encode_error(
                w,
                Some(id("\"abc\"")),
                ErrorCode::INVALID_PARAMS,
                "bad\n",
                Some(p),
            )
        });
        for cap in 0..full.len() {
            let mut buf = vec![0u8; cap];
            let mut w = JsonWriter::new(&mut buf);
            encode_error(
                &mut w,
                Some(id("\"abc\"")),
                ErrorCode::INVALID_PARAMS,
                "bad\n",
                Some(p),
            );
            assert_eq!(
                w.finish(),
                Err(InsufficientSize {
                    required: full.len()
                })
            );
        }
    }
}
