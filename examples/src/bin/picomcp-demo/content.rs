//! Resources, prompts and completion. (Subscriptions are kept by the core, which answers
//! `resources/subscribe`, `resources/unsubscribe` and `subscriptions/listen` itself.)

use picomcp::error::ErrorCode;
use picomcp::json::{Json, JsonKind, JsonStr, JsonWriter};
use picomcp::protocol::Feature;
use picomcp::session::{InboundId, RespondError, Session};

use super::catalog::{self, Body, PNG_BASE64, Prompt, RESOURCES, TEMPLATE};
use super::diag::stack_format;

/// Longest URI we look up (decoded).
const MAX_URI: usize = 512;

/// The decoded URI in `params.uri`, in `buf`. `Err` is the message of a -32602.
fn uri_param<'a, 'b>(
    params: Json<'a>,
    buf: &'b mut [u8],
) -> Result<(JsonStr<'a>, Option<&'b str>), &'static str> {
    let raw = params
        .get("uri")
        .and_then(|u| u.as_str())
        .ok_or("Invalid params: `uri` must be a string")?;
    Ok((raw, raw.unescape_into(buf).ok()))
}

/// Resource not found: -32002 up to 2025-11-25, -32602 from 2026-07-28; `data` is `{uri}`.
fn not_found(s: &mut Session<'_>, id: InboundId, raw: JsonStr<'_>) -> Result<(), RespondError> {
    let code = if super::has(s, Feature::ResourceNotFoundInvalidParams) {
        ErrorCode::INVALID_PARAMS
    } else {
        ErrorCode::RESOURCE_NOT_FOUND
    };
    let mut buf = [0u8; MAX_URI * 2 + 16];
    let mut w = JsonWriter::new(&mut buf);
    w.begin_object();
    w.key("uri");
    w.string_raw(raw);
    w.end_object();
    let data = match w.finish() {
        Ok(n) => std::str::from_utf8(&buf[..n])
            .ok()
            .and_then(|t| Json::new(t).ok()),
        Err(_) => None,
    };
    let message = stack_format!(600, "Resource not found: {raw}");
    s.respond_error(id, code, message.as_str(), data)
}

pub(crate) fn read_resource(
    s: &mut Session<'_>,
    id: InboundId,
    params: Json<'_>,
) -> Result<(), RespondError> {
    let mut buf = [0u8; MAX_URI];
    let (raw, uri) = match uri_param(params, &mut buf) {
        Ok(u) => u,
        Err(msg) => return s.respond_error(id, ErrorCode::INVALID_PARAMS, msg, None),
    };
    let Some(uri) = uri else {
        return not_found(s, id, raw);
    };
    if let Some(r) = RESOURCES.iter().find(|r| r.uri == uri) {
        return s.respond_with(id, |w| {
            w.begin_object();
            w.key("contents");
            w.begin_array();
            w.begin_object();
            w.key("uri");
            w.string(r.uri);
            w.key("mimeType");
            w.string(r.mime);
            match r.body {
                Body::Text(t) => {
                    w.key("text");
                    w.string(t);
                }
                Body::Blob(b) => {
                    w.key("blob");
                    w.string(b);
                }
            }
            w.end_object();
            w.end_array();
            w.end_object();
        });
    }
    let Some(item) = catalog::template_id(uri) else {
        return not_found(s, id, raw);
    };
    // The text is itself JSON: {"id":…,"templateTest":true,"data":"Data for ID: …"}.
    let mut text = [0u8; MAX_URI * 2 + 96];
    let mut w = JsonWriter::new(&mut text);
    w.begin_object();
    w.key("id");
    w.string(item);
    w.key("templateTest");
    w.bool(true);
    w.key("data");
    w.string_fmt(format_args!("Data for ID: {item}"));
    w.end_object();
    let n = w.finish().unwrap_or(0);
    let text = std::str::from_utf8(&text[..n]).unwrap_or("{}");
    s.respond_with(id, |w| {
        w.begin_object();
        w.key("contents");
        w.begin_array();
        w.begin_object();
        w.key("uri");
        w.string(uri);
        w.key("mimeType");
        w.string("application/json");
        w.key("text");
        w.string(text);
        w.end_object();
        w.end_array();
        w.end_object();
    })
}

fn text_message(w: &mut JsonWriter<'_>, text: &str) {
    w.begin_object();
    w.key("role");
    w.string("user");
    w.key("content");
    w.begin_object();
    w.key("type");
    w.string("text");
    w.key("text");
    w.string(text);
    w.end_object();
    w.end_object();
}

pub(crate) fn get_prompt(
    s: &mut Session<'_>,
    id: InboundId,
    params: Json<'_>,
) -> Result<(), RespondError> {
    let Some(name) = params.get("name").and_then(|n| n.as_str()) else {
        return s.respond_error(
            id,
            ErrorCode::INVALID_PARAMS,
            "Invalid params: `name` must be a string",
            None,
        );
    };
    let Some(def) = catalog::find_prompt(name) else {
        let msg = stack_format!(200, "Invalid params: unknown prompt {name}");
        return s.respond_error(id, ErrorCode::INVALID_PARAMS, msg.as_str(), None);
    };
    let args = params.get("arguments").unwrap_or(Json::EMPTY_OBJECT);
    if args.kind() != JsonKind::Object && !args.is_null() {
        return s.respond_error(
            id,
            ErrorCode::INVALID_PARAMS,
            "Invalid params: `arguments` must be an object",
            None,
        );
    }
    // Every argument we declare is a required string.
    let mut values = [None; 2];
    for (i, a) in def.args.iter().enumerate() {
        match args.get(a.name).and_then(|v| v.as_str()) {
            Some(v) => values[i] = Some(v),
            None => {
                let msg = stack_format!(
                    120,
                    "Invalid params: missing required argument `{}`",
                    a.name
                );
                return s.respond_error(id, ErrorCode::INVALID_PARAMS, msg.as_str(), None);
            }
        }
    }
    let description = def.description;
    s.respond_with(id, |w: &mut JsonWriter<'_>| {
        w.begin_object();
        w.key("description");
        w.string(description);
        w.key("messages");
        w.begin_array();
        match def.prompt {
            Prompt::Simple => text_message(w, "This is a simple prompt for testing."),
            Prompt::WithArguments => {
                w.begin_object();
                w.key("role");
                w.string("user");
                w.key("content");
                w.begin_object();
                w.key("type");
                w.string("text");
                w.key("text");
                match values {
                    [Some(a), Some(b)] => w.string_fmt(format_args!(
                        "Prompt with arguments: arg1='{a}', arg2='{b}'"
                    )),
                    _ => w.string("Prompt with arguments"),
                }
                w.end_object();
                w.end_object();
            }
            Prompt::EmbeddedResource => {
                w.begin_object();
                w.key("role");
                w.string("user");
                w.key("content");
                w.begin_object();
                w.key("type");
                w.string("resource");
                w.key("resource");
                w.begin_object();
                w.key("uri");
                match values[0] {
                    Some(uri) => w.string_raw(uri),
                    None => w.string(""),
                }
                w.key("mimeType");
                w.string("text/plain");
                w.key("text");
                w.string("Embedded resource content for testing.");
                w.end_object();
                w.end_object();
                w.end_object();
                text_message(w, "Please process the embedded resource above.");
            }
            Prompt::Image => {
                w.begin_object();
                w.key("role");
                w.string("user");
                w.key("content");
                w.begin_object();
                w.key("type");
                w.string("image");
                w.key("data");
                w.string(PNG_BASE64);
                w.key("mimeType");
                w.string("image/png");
                w.end_object();
                w.end_object();
                text_message(w, "Please analyze the image above.");
            }
        }
        w.end_array();
        w.end_object();
    })
}

/// Candidate completions, by what is being completed.
const ARG1: &[&str] = &["paris", "park", "party", "hello", "help", "testValue1"];
const ARG2: &[&str] = &["world", "word", "work", "testValue2"];
const URIS: &[&str] = &[
    "test://static-text",
    "test://static-binary",
    "test://watched-resource",
    "test://template/1/data",
];
const IDS: &[&str] = &["1", "2", "3", "42", "123"];

pub(crate) fn complete(
    s: &mut Session<'_>,
    id: InboundId,
    params: Json<'_>,
) -> Result<(), RespondError> {
    let reference = params.get("ref").unwrap_or(Json::NULL);
    let kind = reference.get("type").and_then(|t| t.as_str());
    let argument = params.get("argument").unwrap_or(Json::NULL);
    let (Some(kind), Some(arg)) = (kind, argument.get("name").and_then(|n| n.as_str())) else {
        return s.respond_error(
            id,
            ErrorCode::INVALID_PARAMS,
            "Invalid params: `ref.type` and `argument.name` must be strings",
            None,
        );
    };
    let mut buf = [0u8; 256];
    let value = argument
        .get("value")
        .and_then(|v| v.as_str())
        .and_then(|v| v.unescape_into(&mut buf).ok())
        .unwrap_or("");
    let candidates: &[&str] = if kind.eq_str("ref/prompt") {
        let Some(def) = reference
            .get("name")
            .and_then(|n| n.as_str())
            .and_then(catalog::find_prompt)
        else {
            return s.respond_error(
                id,
                ErrorCode::INVALID_PARAMS,
                "Invalid params: unknown prompt",
                None,
            );
        };
        match (def.prompt, arg) {
            (Prompt::WithArguments, a) if a.eq_str("arg1") => ARG1,
            (Prompt::WithArguments, a) if a.eq_str("arg2") => ARG2,
            (Prompt::EmbeddedResource, a) if a.eq_str("resourceUri") => URIS,
            _ => &[],
        }
    } else if kind.eq_str("ref/resource") {
        let Some(uri) = reference.get("uri").and_then(|u| u.as_str()) else {
            return s.respond_error(
                id,
                ErrorCode::INVALID_PARAMS,
                "Invalid params: `ref.uri` must be a string",
                None,
            );
        };
        if uri.eq_str(TEMPLATE) {
            if arg.eq_str("id") { IDS } else { &[] }
        } else if RESOURCES.iter().any(|r| uri.eq_str(r.uri)) {
            &[] // a plain resource has no arguments to complete
        } else {
            return s.respond_error(
                id,
                ErrorCode::INVALID_PARAMS,
                "Invalid params: unknown resource",
                None,
            );
        }
    } else {
        return s.respond_error(
            id,
            ErrorCode::INVALID_PARAMS,
            "Invalid params: `ref.type` must be ref/prompt or ref/resource",
            None,
        );
    };
    let matches = || candidates.iter().filter(|c| c.starts_with(value));
    let total = matches().count();
    s.respond_with(id, |w: &mut JsonWriter<'_>| {
        w.begin_object();
        w.key("completion");
        w.begin_object();
        w.key("values");
        w.begin_array();
        for c in matches().take(100) {
            w.string(c);
        }
        w.end_array();
        w.key("total");
        w.u64(total as u64);
        w.key("hasMore");
        w.bool(total > 100);
        w.end_object();
        w.end_object();
    })
}
