//! The host's answers as Python values (content blocks and resource contents as `dict`s
//! in the protocol's shape), copied into owned Rust values the core's result types can
//! borrow.

use picomcp::json::Json;
use picomcp::server::{Content, PromptMessage, ResourceContents, Role, Text};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

use crate::json::Codec;

/// Text of a block. A Python `str` holding a lone surrogate has no UTF-8 form (and the
/// core refuses its `\u` escape as JSON): it raises `UnicodeEncodeError`.
pub(crate) struct OwnedText(String);

impl OwnedText {
    fn from_str(s: &Bound<'_, PyString>) -> PyResult<Self> {
        Ok(OwnedText(s.to_cow()?.into_owned()))
    }

    fn view(&self) -> Text<'_> {
        Text::Plain(&self.0)
    }
}

/// `{"uri", "mimeType"?, "text" | "blob"}`.
pub(crate) struct OwnedContents {
    uri: String,
    mime_type: Option<String>,
    data: OwnedText,
    blob: bool,
}

impl OwnedContents {
    pub(crate) fn view(&self) -> ResourceContents<'_> {
        ResourceContents {
            uri: &self.uri,
            mime_type: self.mime_type.as_deref(),
            data: self.data.view(),
            blob: self.blob,
        }
    }
}

/// One content block.
pub(crate) enum OwnedContent {
    Text(OwnedText),
    Image {
        data: String,
        mime_type: String,
    },
    Audio {
        data: String,
        mime_type: String,
    },
    Link {
        uri: String,
        name: String,
        mime_type: Option<String>,
        description: Option<String>,
    },
    Resource(OwnedContents),
    /// Any other block, as JSON text (validated).
    Json(String),
}

impl OwnedContent {
    pub(crate) fn view(&self) -> Content<'_> {
        match self {
            OwnedContent::Text(t) => Content::Text(t.view()),
            OwnedContent::Image { data, mime_type } => Content::Image { data, mime_type },
            OwnedContent::Audio { data, mime_type } => Content::Audio { data, mime_type },
            OwnedContent::Link {
                uri,
                name,
                mime_type,
                description,
            } => Content::ResourceLink {
                uri,
                name,
                mime_type: mime_type.as_deref(),
                description: description.as_deref(),
            },
            OwnedContent::Resource(r) => Content::Resource(r.view()),
            OwnedContent::Json(j) => Content::Json(Json::new(j).unwrap_or(Json::EMPTY_OBJECT)),
        }
    }
}

/// A `dict`'s members, for shape checks.
struct Members<'py> {
    dict: Bound<'py, PyDict>,
}

impl<'py> Members<'py> {
    /// True when every key is one of `allowed`.
    fn only(&self, allowed: &[&str]) -> bool {
        self.dict.keys().iter().all(|k| {
            k.cast::<PyString>()
                .ok()
                .and_then(|s| s.to_cow().ok().map(|s| allowed.contains(&s.as_ref())))
                .unwrap_or(false)
        })
    }

    fn str(&self, key: &str) -> Option<Bound<'py, PyString>> {
        self.dict
            .get_item(key)
            .ok()
            .flatten()
            .and_then(|v| v.cast_into::<PyString>().ok())
    }

    /// A member that is a `str` with a UTF-8 form: `Some(Some(_))`; absent: `Some(None)`;
    /// anything else: `None`.
    fn opt_string(&self, key: &str) -> Option<Option<String>> {
        match self.dict.get_item(key).ok().flatten() {
            None => Some(None),
            Some(v) => v
                .cast::<PyString>()
                .ok()
                .and_then(|s| s.to_cow().ok().map(|s| Some(s.into_owned()))),
        }
    }

    fn string(&self, key: &str) -> Option<String> {
        self.opt_string(key).flatten()
    }
}

fn members<'py>(v: &Bound<'py, PyAny>, what: &str) -> PyResult<Members<'py>> {
    let dict = v
        .cast::<PyDict>()
        .map_err(|_| PyTypeError::new_err(format!("{what} must be a dict")))?
        .clone();
    Ok(Members { dict })
}

/// Resource contents in exactly the protocol's shape, else `None`.
fn contents_of(m: &Members<'_>) -> PyResult<Option<OwnedContents>> {
    if !m.only(&["uri", "mimeType", "text", "blob"]) {
        return Ok(None);
    }
    let (Some(uri), Some(mime_type)) = (m.string("uri"), m.opt_string("mimeType")) else {
        return Ok(None);
    };
    let (text, blob) = (m.str("text"), m.string("blob"));
    let (data, blob) = match (
        text,
        blob,
        m.dict.contains("text")?,
        m.dict.contains("blob")?,
    ) {
        (Some(t), None, true, false) => (OwnedText::from_str(&t)?, false),
        (None, Some(b), false, true) => (OwnedText(b), true),
        _ => return Ok(None),
    };
    Ok(Some(OwnedContents {
        uri,
        mime_type,
        data,
        blob,
    }))
}

/// One `resources/read` contents item: `{"uri", "mimeType"?, "text" | "blob"}`.
pub(crate) fn contents(v: &Bound<'_, PyAny>) -> PyResult<OwnedContents> {
    let m = members(v, "resource contents")?;
    contents_of(&m)?.ok_or_else(|| {
        PyValueError::new_err(
            "resource contents must be {\"uri\": str, \"mimeType\": str (optional), \
             and one of \"text\": str or \"blob\": str (base64)}",
        )
    })
}

/// One content block. The kinds the core names (`text`, `image`, `audio`,
/// `resource_link`, `resource`), in exactly their shape, are checked against the
/// negotiated revision by the core; any other `dict` (another kind, or extra members
/// such as `annotations`) is written as its JSON.
pub(crate) fn block(
    codec: &Codec,
    v: &Bound<'_, PyAny>,
    max_depth: usize,
) -> PyResult<OwnedContent> {
    let m = members(v, "a content block")?;
    let kind = m.string("type");
    let typed = match kind.as_deref() {
        Some("text") if m.only(&["type", "text"]) => match m.str("text") {
            Some(t) => Some(OwnedContent::Text(OwnedText::from_str(&t)?)),
            None => None,
        },
        Some(k @ ("image" | "audio")) if m.only(&["type", "data", "mimeType"]) => {
            match (m.string("data"), m.string("mimeType")) {
                (Some(data), Some(mime_type)) if k == "image" => {
                    Some(OwnedContent::Image { data, mime_type })
                }
                (Some(data), Some(mime_type)) => Some(OwnedContent::Audio { data, mime_type }),
                _ => None,
            }
        }
        Some("resource_link") if m.only(&["type", "uri", "name", "mimeType", "description"]) => {
            match (
                m.string("uri"),
                m.string("name"),
                m.opt_string("mimeType"),
                m.opt_string("description"),
            ) {
                (Some(uri), Some(name), Some(mime_type), Some(description)) => {
                    Some(OwnedContent::Link {
                        uri,
                        name,
                        mime_type,
                        description,
                    })
                }
                _ => None,
            }
        }
        Some("resource") if m.only(&["type", "resource"]) => match m.dict.get_item("resource")? {
            Some(r) if r.is_instance_of::<PyDict>() => {
                contents_of(&members(&r, "resource")?)?.map(OwnedContent::Resource)
            }
            _ => None,
        },
        _ => None,
    };
    if let Some(t) = typed {
        return Ok(t);
    }
    let text = codec.value_text(v.py(), v)?;
    crate::json::validate_object(&text, max_depth, "a content block")?;
    Ok(OwnedContent::Json(text))
}

/// A list of content blocks.
pub(crate) fn blocks(
    codec: &Codec,
    v: &Bound<'_, PyAny>,
    max_depth: usize,
) -> PyResult<Vec<OwnedContent>> {
    if v.is_instance_of::<PyString>() || v.is_instance_of::<PyDict>() {
        return Err(PyTypeError::new_err(
            "content must be a list of content blocks",
        ));
    }
    v.try_iter()?
        .map(|b| block(codec, &b?, max_depth))
        .collect()
}

/// A prompt message: `{"role": "user" | "assistant", "content": BLOCK}`.
pub(crate) fn message(
    codec: &Codec,
    v: &Bound<'_, PyAny>,
    max_depth: usize,
) -> PyResult<(Role, OwnedContent)> {
    let m = members(v, "a prompt message")?;
    let role = match m.string("role").as_deref() {
        Some("user") => Role::User,
        Some("assistant") => Role::Assistant,
        _ => {
            return Err(PyValueError::new_err(
                "a prompt message's role must be \"user\" or \"assistant\"",
            ));
        }
    };
    let content = m
        .dict
        .get_item("content")?
        .ok_or_else(|| PyValueError::new_err("a prompt message needs content"))?;
    Ok((role, block(codec, &content, max_depth)?))
}

/// The core's view of owned messages.
pub(crate) fn message_views(messages: &[(Role, OwnedContent)]) -> Vec<PromptMessage<'_>> {
    messages
        .iter()
        .map(|(role, c)| PromptMessage {
            role: *role,
            content: c.view(),
        })
        .collect()
}
