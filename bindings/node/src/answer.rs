//! The host's answers as the core's types: content blocks, tool results, resource
//! contents and prompt messages read from their JSON (the protocol's shapes), borrowing
//! it. Text is passed to the core still escaped (`Text::Json`), so it is written back
//! byte for byte; the other strings are decoded into a call-local arena when they have
//! escapes.

use picomcp::json::{Json, JsonKind, JsonStr};
use picomcp::server::{Content, PromptMessage, ResourceContents, Role, Text};

use crate::arena::Strings;
use crate::session::err;

fn bad(what: &str, why: &str) -> napi::Error {
    err("TypeError", format!("{what} {why}"))
}

/// True when every member of `j` is one of `keys`.
fn only(j: Json<'_>, keys: &[&str]) -> bool {
    j.members().all(|(k, _)| keys.iter().any(|x| k.eq_str(x)))
}

fn string<'a>(j: Json<'a>, key: &str) -> Option<JsonStr<'a>> {
    j.get(key).and_then(|v| v.as_str())
}

/// Resource contents `{uri, mimeType?, text | blob}`.
pub(crate) fn contents<'a>(
    j: Json<'a>,
    strings: &'a Strings,
) -> napi::Result<ResourceContents<'a>> {
    let what = "resource contents";
    if !j.is_object() {
        return Err(bad(what, "must be objects"));
    }
    let uri = string(j, "uri").ok_or_else(|| bad(what, "need a string `uri`"))?;
    let mime_type = match j.get("mimeType") {
        None => None,
        Some(m) if m.is_null() => None,
        Some(m) => Some(
            strings.text(
                m.as_str()
                    .ok_or_else(|| bad(what, "need a string `mimeType`"))?,
            ),
        ),
    };
    let (data, blob) = match (string(j, "text"), string(j, "blob")) {
        (Some(t), None) => (t, false),
        (None, Some(b)) => (b, true),
        _ => return Err(bad(what, "need a string `text` or `blob` (one of them)")),
    };
    Ok(ResourceContents {
        uri: strings.text(uri),
        mime_type,
        data: Text::Json(data),
        blob,
    })
}

/// One content block. The kinds the core names become its variants (so that the layer
/// checks them against the revision); a block with other members, or of another kind, is
/// passed as written (`Content::Json`).
pub(crate) fn block<'a>(j: Json<'a>, strings: &'a Strings) -> napi::Result<Content<'a>> {
    if !j.is_object() {
        return Err(bad("a content block", "must be an object"));
    }
    let kind = string(j, "type");
    let s = |key| string(j, key).map(|v| strings.text(v));
    let block = match kind.map(|k| k.raw()) {
        Some("text") if only(j, &["type", "text"]) => {
            string(j, "text").map(|t| Content::Text(Text::Json(t)))
        }
        Some(k @ ("image" | "audio")) if only(j, &["type", "data", "mimeType"]) => {
            match (s("data"), s("mimeType")) {
                (Some(data), Some(mime_type)) if k == "image" => {
                    Some(Content::Image { data, mime_type })
                }
                (Some(data), Some(mime_type)) => Some(Content::Audio { data, mime_type }),
                _ => None,
            }
        }
        Some("resource_link") if only(j, &["type", "uri", "name", "mimeType", "description"]) => {
            match (s("uri"), s("name")) {
                (Some(uri), Some(name)) => Some(Content::ResourceLink {
                    uri,
                    name,
                    mime_type: s("mimeType"),
                    description: s("description"),
                }),
                _ => None,
            }
        }
        Some("resource") if only(j, &["type", "resource"]) => match j.get("resource") {
            Some(r) if r.is_object() && only(r, &["uri", "mimeType", "text", "blob"]) => {
                contents(r, strings).ok().map(Content::Resource)
            }
            _ => None,
        },
        _ => None,
    };
    Ok(block.unwrap_or(Content::Json(j)))
}

/// The blocks of an array.
pub(crate) fn blocks<'a>(
    j: Json<'a>,
    strings: &'a Strings,
    what: &str,
) -> napi::Result<Vec<Content<'a>>> {
    if j.kind() != JsonKind::Array {
        return Err(bad(what, "must be an array of content blocks"));
    }
    j.elements().map(|b| block(b, strings)).collect()
}

/// A prompt message `{role, content}`.
pub(crate) fn message<'a>(j: Json<'a>, strings: &'a Strings) -> napi::Result<PromptMessage<'a>> {
    let what = "a prompt message";
    if !j.is_object() {
        return Err(bad(what, "must be an object"));
    }
    let role = match string(j, "role").map(|r| r.raw()) {
        Some("user") => Role::User,
        Some("assistant") => Role::Assistant,
        _ => return Err(bad(what, "needs `role` \"user\" or \"assistant\"")),
    };
    let content = j
        .get("content")
        .ok_or_else(|| bad(what, "needs `content`"))?;
    Ok(PromptMessage {
        role,
        content: block(content, strings)?,
    })
}
