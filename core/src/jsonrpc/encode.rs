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
pub fn encode_error(w: &mut JsonWriter<'_>, id: Option<Id<'_>>, code: ErrorCode, message: &str, data: Option<Json<'_>>) {
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
    if let Some(d) = data {
        w.key("data");
        w.raw(d);
    }
    w.end_object();
    w.end_object();
}
