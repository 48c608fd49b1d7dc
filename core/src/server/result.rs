//! The host's answers, shaped for the negotiated revision: tool results (text, content
//! blocks, structured content checked against `outputSchema`), resource contents, prompt
//! messages and completions.

use core::fmt;

use super::{Server, has};
use crate::json::{Json, JsonKind, JsonStr, JsonWriter};
use crate::protocol::{Feature, ProtocolVersion};
use crate::schema::{Invalid, Schema};
use crate::session::{Commands, InboundId, RespondError};

/// Text for a result: plain, or a JSON string still escaped as it arrived (echoed byte
/// for byte, without decoding it first).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Text<'r> {
    /// Plain text; the writer escapes it.
    Plain(&'r str),
    /// A JSON string's text as it arrived.
    Json(JsonStr<'r>),
}

impl<'r> From<&'r str> for Text<'r> {
    fn from(s: &'r str) -> Self {
        Text::Plain(s)
    }
}

impl<'r> From<JsonStr<'r>> for Text<'r> {
    fn from(s: JsonStr<'r>) -> Self {
        Text::Json(s)
    }
}

impl Text<'_> {
    fn write(&self, w: &mut JsonWriter<'_>) {
        match self {
            Text::Plain(s) => w.string(s),
            Text::Json(s) => w.string_raw(*s),
        }
    }
}

/// The contents of a resource: in a `resources/read` result, or embedded in a tool
/// result or prompt message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResourceContents<'r> {
    /// The resource's URI.
    pub uri: &'r str,
    /// Its MIME type.
    pub mime_type: Option<&'r str>,
    /// Text contents, or (when `blob` is true) base64-encoded binary contents.
    pub data: Text<'r>,
    /// `data` is base64 (`blob`), not text.
    pub blob: bool,
}

impl<'r> ResourceContents<'r> {
    /// Text contents.
    pub fn text(uri: &'r str, mime_type: Option<&'r str>, text: impl Into<Text<'r>>) -> Self {
        ResourceContents {
            uri,
            mime_type,
            data: text.into(),
            blob: false,
        }
    }

    /// Binary contents, already base64-encoded.
    pub fn blob(uri: &'r str, mime_type: Option<&'r str>, base64: &'r str) -> Self {
        ResourceContents {
            uri,
            mime_type,
            data: Text::Plain(base64),
            blob: true,
        }
    }

    fn write(&self, w: &mut JsonWriter<'_>) {
        w.begin_object();
        w.key("uri");
        w.string(self.uri);
        if let Some(m) = self.mime_type {
            w.key("mimeType");
            w.string(m);
        }
        w.key(if self.blob { "blob" } else { "text" });
        self.data.write(w);
        w.end_object();
    }
}

/// One content block of a tool result or prompt message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Content<'r> {
    /// `text`.
    Text(Text<'r>),
    /// `image`: base64 data and its MIME type.
    Image {
        /// Base64 data.
        data: &'r str,
        /// MIME type.
        mime_type: &'r str,
    },
    /// `audio` (2025-03-26 on): base64 data and its MIME type.
    Audio {
        /// Base64 data.
        data: &'r str,
        /// MIME type.
        mime_type: &'r str,
    },
    /// `resource_link` (2025-06-18 on).
    ResourceLink {
        /// The linked resource's URI.
        uri: &'r str,
        /// Its name.
        name: &'r str,
        /// Its MIME type.
        mime_type: Option<&'r str>,
        /// A description.
        description: Option<&'r str>,
    },
    /// `resource`: an embedded resource.
    Resource(ResourceContents<'r>),
    /// A block written as given (a JSON object with a `type`), for kinds this enum does
    /// not name.
    Json(Json<'r>),
}

impl<'r> Content<'r> {
    /// A text block.
    pub fn text(text: impl Into<Text<'r>>) -> Self {
        Content::Text(text.into())
    }

    /// The revision feature this block needs, if any (a [`Content::Json`] block by its
    /// `type`).
    fn needs(&self) -> Option<Feature> {
        match self {
            Content::Audio { .. } => Some(Feature::AudioContent),
            Content::ResourceLink { .. } => Some(Feature::ResourceLinks),
            Content::Json(j) => {
                let kind = j.get("type").and_then(|t| t.as_str())?;
                if kind.eq_str("audio") {
                    Some(Feature::AudioContent)
                } else if kind.eq_str("resource_link") {
                    Some(Feature::ResourceLinks)
                } else {
                    None
                }
            }
            _ => None,
        }
    }

    fn check(&self, v: Option<ProtocolVersion>) -> Result<(), ResultError> {
        if let Some(f) = self.needs()
            && !has(v, f)
        {
            return Err(ResultError::NotInRevision(f));
        }
        if let Content::Json(j) = self
            && (j.kind() != JsonKind::Object || j.get("type").and_then(|t| t.as_str()).is_none())
        {
            return Err(ResultError::InvalidContent);
        }
        Ok(())
    }

    fn write(&self, w: &mut JsonWriter<'_>) {
        let kind = |w: &mut JsonWriter<'_>, k: &str| {
            w.begin_object();
            w.key("type");
            w.string(k);
        };
        match self {
            Content::Text(t) => {
                kind(w, "text");
                w.key("text");
                t.write(w);
            }
            Content::Image { data, mime_type } | Content::Audio { data, mime_type } => {
                kind(
                    w,
                    if matches!(self, Content::Image { .. }) {
                        "image"
                    } else {
                        "audio"
                    },
                );
                w.key("data");
                w.string(data);
                w.key("mimeType");
                w.string(mime_type);
            }
            Content::ResourceLink {
                uri,
                name,
                mime_type,
                description,
            } => {
                kind(w, "resource_link");
                w.key("uri");
                w.string(uri);
                w.key("name");
                w.string(name);
                if let Some(d) = description {
                    w.key("description");
                    w.string(d);
                }
                if let Some(m) = mime_type {
                    w.key("mimeType");
                    w.string(m);
                }
            }
            Content::Resource(r) => {
                kind(w, "resource");
                w.key("resource");
                r.write(w);
            }
            Content::Json(j) => {
                w.raw(*j);
                return;
            }
        }
        w.end_object();
    }
}

/// The blocks of a result: one inline, or a slice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Blocks<'r> {
    None,
    One(Content<'r>),
    Many(&'r [Content<'r>]),
}

impl<'r> Blocks<'r> {
    fn as_slice(&self) -> &[Content<'r>] {
        match self {
            Blocks::None => &[],
            Blocks::One(c) => core::slice::from_ref(c),
            Blocks::Many(s) => s,
        }
    }
}

/// The answer to a [`ToolCall`](super::ToolCall).
///
/// ```
/// use picomcp::server::{Content, ToolResult};
/// use picomcp::json::Json;
/// let a = ToolResult::text("done");
/// let b = ToolResult::error("the file does not exist");
/// let c = ToolResult::structured(Json::new(r#"{"sum":3}"#).unwrap());
/// let blocks = [Content::text("two"), Content::text("blocks")];
/// let d = ToolResult::content(&blocks);
/// # let _ = (a, b, c, d);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolResult<'r> {
    blocks: Blocks<'r>,
    structured: Option<Json<'r>>,
    is_error: bool,
    meta: Option<Json<'r>>,
}

impl<'r> ToolResult<'r> {
    /// One text block.
    pub fn text(text: impl Into<Text<'r>>) -> Self {
        ToolResult {
            blocks: Blocks::One(Content::Text(text.into())),
            structured: None,
            is_error: false,
            meta: None,
        }
    }

    /// A tool execution error (`isError: true`) with one text block: the model sees it.
    pub fn error(text: impl Into<Text<'r>>) -> Self {
        ToolResult {
            is_error: true,
            ..Self::text(text)
        }
    }

    /// These content blocks.
    pub fn content(blocks: &'r [Content<'r>]) -> Self {
        ToolResult {
            blocks: Blocks::Many(blocks),
            structured: None,
            is_error: false,
            meta: None,
        }
    }

    /// Structured content (checked against the tool's `outputSchema`), also written as a
    /// JSON text block for clients that do not read `structuredContent` (and as the only
    /// content before 2025-06-18).
    pub fn structured(value: Json<'r>) -> Self {
        ToolResult {
            blocks: Blocks::None,
            structured: Some(value),
            is_error: false,
            meta: None,
        }
    }

    /// With these content blocks instead of the JSON text of the structured content.
    pub fn with_content(mut self, blocks: &'r [Content<'r>]) -> Self {
        self.blocks = Blocks::Many(blocks);
        self
    }

    /// Marked as a tool execution error (`isError: true`).
    pub fn with_error(mut self) -> Self {
        self.is_error = true;
        self
    }

    /// With `_meta` (a JSON object).
    pub fn with_meta(mut self, meta: Json<'r>) -> Self {
        self.meta = Some(meta);
        self
    }
}

/// Who says a prompt message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// `user`.
    User,
    /// `assistant`.
    Assistant,
}

/// One message of a `prompts/get` result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PromptMessage<'r> {
    /// Who says it.
    pub role: Role,
    /// What is said.
    pub content: Content<'r>,
}

impl<'r> PromptMessage<'r> {
    /// A user message with one text block.
    pub fn user(text: impl Into<Text<'r>>) -> Self {
        PromptMessage {
            role: Role::User,
            content: Content::Text(text.into()),
        }
    }
}

/// The answer to a [`CompleteCall`](super::CompleteCall).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Completion<'r> {
    /// Suggestions, best first (at most 100 are sent, as the spec allows).
    pub values: &'r [&'r str],
    /// How many there are in all, if known.
    pub total: Option<usize>,
    /// More exist than were sent.
    pub has_more: bool,
}

/// Why the layer refused a host's answer (nothing was sent; the request is still open).
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum ResultError {
    /// The session refused it (unknown request, transmit queue full, ...).
    Respond(RespondError),
    /// No definition has this index.
    UnknownDefinition,
    /// The tool has an `outputSchema` but the (non-error) result has no structured content.
    MissingStructured,
    /// The structured content does not match the tool's `outputSchema`
    /// ([`Server::validate_structured`] says where and why).
    InvalidStructured,
    /// A content block the negotiated revision does not have.
    NotInRevision(Feature),
    /// A [`Content::Json`] block that is not an object with a `type`.
    InvalidContent,
}

impl From<RespondError> for ResultError {
    fn from(e: RespondError) -> Self {
        ResultError::Respond(e)
    }
}

impl fmt::Display for ResultError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ResultError::Respond(e) => write!(f, "{e}"),
            ResultError::UnknownDefinition => f.write_str("no definition has this index"),
            ResultError::MissingStructured => {
                f.write_str("the tool has an outputSchema: the result needs structured content")
            }
            ResultError::InvalidStructured => {
                f.write_str("structured content does not match the tool's outputSchema")
            }
            ResultError::NotInRevision(feat) => {
                write!(f, "the negotiated revision does not have {}", feat.name())
            }
            ResultError::InvalidContent => {
                f.write_str("a JSON content block must be an object with a `type`")
            }
        }
    }
}

impl core::error::Error for ResultError {}

/// `{"content":[{"type":"text","text":…}],"isError":true}`.
pub(super) fn error_text(w: &mut JsonWriter<'_>, text: &str) {
    w.begin_object();
    w.key("content");
    w.begin_array();
    Content::Text(Text::Plain(text)).write(w);
    w.end_array();
    w.key("isError");
    w.bool(true);
    w.end_object();
}

pub(super) fn completion(
    w: &mut JsonWriter<'_>,
    values: &[&str],
    total: Option<usize>,
    more: bool,
) {
    /// The most values one answer may carry (the spec's limit).
    const MAX: usize = 100;
    w.begin_object();
    w.key("completion");
    w.begin_object();
    w.key("values");
    w.begin_array();
    for v in values.iter().take(MAX) {
        w.string(v);
    }
    w.end_array();
    if let Some(t) = total {
        w.key("total");
        w.u64(t as u64);
    }
    w.key("hasMore");
    w.bool(more || values.len() > MAX);
    w.end_object();
    w.end_object();
}

impl Server<'_> {
    /// Checks `value` against the `outputSchema` of tool `tool` (`Ok` when the tool has
    /// none): where [`ResultError::InvalidStructured`] comes from, with the details.
    ///
    /// # Errors
    /// [`Invalid`]: the JSON Pointer of the field and what was expected.
    pub fn validate_structured(&self, tool: usize, value: Json<'_>) -> Result<(), Invalid> {
        match self.catalog.tools.get(tool).and_then(|t| t.output_schema) {
            Some(schema) => Schema::trusted(Json::from_validated(schema))
                .validate_within(value, self.options.schema_depth),
            None => Ok(()),
        }
    }

    /// Answers a [`ToolCall`](super::ToolCall) of tool `tool` with `result`.
    ///
    /// Structured content is checked against the tool's `outputSchema` first; it is
    /// written as `structuredContent` (2025-06-18 on) and, unless the result has its own
    /// blocks, as a JSON text block. Blocks the revision does not have are refused.
    ///
    /// # Errors
    /// [`ResultError`]; nothing is sent, and the request is still open (answer it again,
    /// e.g. with [`ToolResult::error`]).
    pub fn respond_tool(
        &self,
        cmds: &mut Commands<'_, '_>,
        id: InboundId,
        tool: usize,
        result: &ToolResult<'_>,
    ) -> Result<(), ResultError> {
        let def = self
            .catalog
            .tools
            .get(tool)
            .ok_or(ResultError::UnknownDefinition)?;
        let v = cmds.version();
        for b in result.blocks.as_slice() {
            b.check(v)?;
        }
        match (def.output_schema, result.structured) {
            (Some(_), Some(value)) => self
                .validate_structured(tool, value)
                .map_err(|_| ResultError::InvalidStructured)?,
            (Some(_), None) if !result.is_error => return Err(ResultError::MissingStructured),
            _ => {}
        }
        if let Some(m) = result.meta
            && !m.is_object()
        {
            return Err(ResultError::InvalidContent);
        }
        let structured = has(v, Feature::StructuredContent);
        cmds.respond_with(id, |w| {
            w.begin_object();
            w.key("content");
            w.begin_array();
            match (result.blocks, result.structured) {
                (Blocks::None, Some(value)) => {
                    // The JSON text of the structured content, for clients that do not
                    // read `structuredContent`.
                    w.begin_object();
                    w.key("type");
                    w.string("text");
                    w.key("text");
                    w.string(value.as_raw());
                    w.end_object();
                }
                (blocks, _) => {
                    for b in blocks.as_slice() {
                        b.write(w);
                    }
                }
            }
            w.end_array();
            if let (true, Some(value)) = (structured, result.structured) {
                w.key("structuredContent");
                w.raw(value);
            }
            if result.is_error {
                w.key("isError");
                w.bool(true);
            }
            if let Some(m) = result.meta {
                w.key("_meta");
                w.raw(m);
            }
            w.end_object();
        })?;
        Ok(())
    }

    /// Answers a [`ReadCall`](super::ReadCall) with the resource's contents.
    ///
    /// # Errors
    /// As [`Commands::respond_with`].
    pub fn respond_read(
        &self,
        cmds: &mut Commands<'_, '_>,
        id: InboundId,
        contents: &[ResourceContents<'_>],
    ) -> Result<(), RespondError> {
        cmds.respond_with(id, |w| {
            w.begin_object();
            w.key("contents");
            w.begin_array();
            for c in contents {
                c.write(w);
            }
            w.end_array();
            w.end_object();
        })
    }

    /// Answers a [`PromptCall`](super::PromptCall) with messages (and the prompt's
    /// description, from its definition).
    ///
    /// # Errors
    /// [`ResultError::NotInRevision`] for a block the revision does not have;
    /// [`ResultError::UnknownDefinition`]; otherwise as [`Commands::respond_with`].
    pub fn respond_prompt(
        &self,
        cmds: &mut Commands<'_, '_>,
        id: InboundId,
        prompt: usize,
        messages: &[PromptMessage<'_>],
    ) -> Result<(), ResultError> {
        let def = self
            .catalog
            .prompts
            .get(prompt)
            .ok_or(ResultError::UnknownDefinition)?;
        let v = cmds.version();
        for m in messages {
            m.content.check(v)?;
        }
        cmds.respond_with(id, |w| {
            w.begin_object();
            if let Some(d) = def.description {
                w.key("description");
                w.string(d);
            }
            w.key("messages");
            w.begin_array();
            for m in messages {
                w.begin_object();
                w.key("role");
                w.string(match m.role {
                    Role::User => "user",
                    Role::Assistant => "assistant",
                });
                w.key("content");
                m.content.write(w);
                w.end_object();
            }
            w.end_array();
            w.end_object();
        })?;
        Ok(())
    }

    /// Answers a [`CompleteCall`](super::CompleteCall).
    ///
    /// # Errors
    /// As [`Commands::respond_with`].
    pub fn respond_completion(
        &self,
        cmds: &mut Commands<'_, '_>,
        id: InboundId,
        completion: &Completion<'_>,
    ) -> Result<(), RespondError> {
        cmds.respond_with(id, |w| {
            completion_result(w, completion);
        })
    }
}

fn completion_result(w: &mut JsonWriter<'_>, c: &Completion<'_>) {
    completion(w, c.values, c.total, c.has_more);
}
