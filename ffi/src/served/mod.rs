//! Serving a session with a `picomcp_server`: calls as events
//! (`picomcp_session_poll_served`) and the answers to them as C structs
//! (`picomcp_server_respond_*`).
//!
//! # Events, not callbacks
//!
//! `picomcp_session_poll_served` runs the core's `Server::handle` on each event: list
//! requests and calls that fail their checks are answered inside it and never seen; a
//! call that passed comes out as a `PICOMCP_EVENT_KIND_CALL_*` event plus a
//! `picomcp_call` (the definition's index, the arguments, the URI and variables, ...);
//! everything else comes out as the usual `picomcp_event`. The host answers a call
//! whenever it likes (a timer, another thread's result) with the matching
//! `picomcp_server_respond_*`, which shape the result for the negotiated revision.
//! Events keep the host's control flow its own, as the rest of the C API does.
//!
//! Decoded text of a call (the URI, a completion's argument and value) is written into
//! the session's scratch region, like the decoded text of ordinary events; so every view
//! in a `picomcp_call` lives as long as the views of its `picomcp_event`.
//!
//! # Modules
//!
//! This file holds the C types of calls and answers. `poll` turns events into calls,
//! `answer` turns the host's answers into results, and `percent` decodes template
//! variables; the modules are declared in the order of `include/picomcp.h`.

use picomcp_core::uri::MAX_VARS;

use crate::types::picomcp_str;

// cbindgen writes functions module by module, in declaration order, and the header must
// keep its order: the blank lines stop rustfmt from sorting these declarations.

mod poll;

mod answer;

mod percent;

pub use answer::*;
pub use percent::*;
pub use poll::*;

/// Most template variables a `picomcp_call` carries.
pub const PICOMCP_SERVER_MAX_VARS: usize = 16;
/// Most content blocks (tool results), messages (prompts) or resource contents (reads)
/// in one answer: the answer functions convert them on the stack.
pub const PICOMCP_SERVER_MAX_BLOCKS: usize = 16;
/// Most completion values one answer sends (the specification's limit); more set
/// `hasMore`.
pub const PICOMCP_SERVER_MAX_COMPLETIONS: usize = 100;

const _: () = assert!(MAX_VARS <= PICOMCP_SERVER_MAX_VARS);

/// What a `picomcp_call.index` counts in.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum picomcp_call_target {
    /// Not a call.
    None = 0,
    /// `picomcp_catalog.tools` (`CALL_TOOL`).
    Tool = 1,
    /// `picomcp_catalog.resources` (`CALL_READ` of a resource's URI).
    Resource = 2,
    /// `picomcp_catalog.templates` (`CALL_READ` of a URI that matches a template, or
    /// `CALL_COMPLETE` of a template variable).
    Template = 3,
    /// `picomcp_catalog.prompts` (`CALL_PROMPT`, or `CALL_COMPLETE` of a prompt
    /// argument).
    Prompt = 4,
}

/// A template variable as matched: `name` from the template, `value` from the URI
/// (still percent-encoded, as it appears there: decode it with `picomcp_percent_decode`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct picomcp_var {
    /// The variable's name.
    pub name: picomcp_str,
    /// Its value in the URI.
    pub value: picomcp_str,
}

/// The details of a `PICOMCP_EVENT_KIND_CALL_*` event (filled by
/// `picomcp_session_poll_served`; all zero for other events). Its views are valid as
/// long as the event's: until the next call that takes the session, except the
/// answering functions (`picomcp_server_respond_*`, `picomcp_session_respond*`), which
/// leave them valid, so an answer may quote them.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct picomcp_call {
    /// The table `index` counts in (a `picomcp_call_target`).
    pub target: u32,
    /// The definition's index in its table.
    pub index: usize,
    /// `CALL_TOOL`, `CALL_PROMPT`: the arguments, a JSON object (`{}` when the request
    /// had none); read them with `picomcp_json_get` / `picomcp_json_pointer`.
    pub arguments: picomcp_str,
    /// `CALL_TOOL`: the request's `_meta` (JSON), or absent.
    pub meta: picomcp_str,
    /// `CALL_READ`: the URI, decoded from its JSON string.
    pub uri: picomcp_str,
    /// `CALL_READ` of a template: how many `vars` are set.
    pub var_count: usize,
    /// `CALL_READ` of a template: its variables, in template order.
    pub vars: [picomcp_var; PICOMCP_SERVER_MAX_VARS],
    /// `CALL_COMPLETE`: the argument (or variable) name, decoded.
    pub argument: picomcp_str,
    /// `CALL_COMPLETE`: what the user typed so far, decoded.
    pub value: picomcp_str,
    /// `CALL_COMPLETE`: the request's `context` (JSON, e.g. `{"arguments":{...}}`), or
    /// absent.
    pub context: picomcp_str,
}

impl picomcp_call {
    /// Not a call.
    pub(crate) const EMPTY: picomcp_call = picomcp_call {
        target: 0,
        index: 0,
        arguments: picomcp_str::NONE,
        meta: picomcp_str::NONE,
        uri: picomcp_str::NONE,
        var_count: 0,
        vars: [picomcp_var {
            name: picomcp_str::NONE,
            value: picomcp_str::NONE,
        }; PICOMCP_SERVER_MAX_VARS],
        argument: picomcp_str::NONE,
        value: picomcp_str::NONE,
        context: picomcp_str::NONE,
    };
}

/// The kind of a `picomcp_content` block.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum picomcp_content_kind {
    /// `text`: `text` (or, with `text_is_json`, a JSON string copied byte for byte).
    Text = 1,
    /// `image`: `data` (base64) and `mime_type`.
    Image = 2,
    /// `audio` (2025-03-26 on): `data` (base64) and `mime_type`.
    Audio = 3,
    /// `resource_link` (2025-06-18 on): `uri`, `name`, optional `mime_type` and
    /// `description`.
    ResourceLink = 4,
    /// `resource` (an embedded resource): `uri`, optional `mime_type`, and `text` (text
    /// contents) or `data` (base64 contents, written as `blob`).
    Resource = 5,
    /// A block written as given: `json`, an object with a `type`.
    Json = 6,
}

/// A content block of a tool result or prompt message. Only the fields its `kind`
/// names are read; views need only live during the answering call.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct picomcp_content {
    /// A `picomcp_content_kind`.
    pub kind: u32,
    /// `TEXT`, `RESOURCE`: the text (plain UTF-8; the writer escapes it).
    pub text: picomcp_str,
    /// `text` is a JSON string value, quotes included (e.g. a view of an argument from
    /// `picomcp_json_get`): it is written as it is, without decoding it first.
    pub text_is_json: bool,
    /// `IMAGE`, `AUDIO`, `RESOURCE` (binary): base64 data.
    pub data: picomcp_str,
    /// The MIME type (required for `IMAGE` and `AUDIO`, else optional).
    pub mime_type: picomcp_str,
    /// `RESOURCE_LINK`, `RESOURCE`: the URI.
    pub uri: picomcp_str,
    /// `RESOURCE_LINK`: the name.
    pub name: picomcp_str,
    /// `RESOURCE_LINK`: a description (optional).
    pub description: picomcp_str,
    /// `JSON`: the block.
    pub json: picomcp_str,
}

/// One item of a `resources/read` result.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct picomcp_resource_contents {
    /// The resource's URI (e.g. `picomcp_call.uri`).
    pub uri: picomcp_str,
    /// Its MIME type, or absent.
    pub mime_type: picomcp_str,
    /// Text contents (used when `blob` is absent).
    pub text: picomcp_str,
    /// `text` is a JSON string value, quotes included, written as it is.
    pub text_is_json: bool,
    /// Binary contents, base64-encoded, or absent.
    pub blob: picomcp_str,
}

/// The answer to a `CALL_TOOL`: content blocks, structured content, or both.
///
/// Structured content alone (`content` NULL) is also written as a JSON text block (and
/// is the only content before 2025-06-18); with blocks too, the blocks are sent instead
/// of that text. Structured content is checked against the tool's `outputSchema` first.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct picomcp_tool_result {
    /// The content blocks. NULL: none (with `structured`, its JSON text is the one
    /// block); not NULL with a count of 0: an empty `content` array.
    pub content: *const picomcp_content,
    /// Number of `content` blocks (at most `PICOMCP_SERVER_MAX_BLOCKS`).
    pub content_count: usize,
    /// Structured content: a JSON object, or absent.
    pub structured: picomcp_str,
    /// A tool execution error (`isError: true`): the model sees it.
    pub is_error: bool,
    /// `_meta`: a JSON object, or absent.
    pub meta: picomcp_str,
}

/// Who says a prompt message.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum picomcp_prompt_role {
    /// `user`.
    User = 1,
    /// `assistant`.
    Assistant = 2,
}

/// One message of a `prompts/get` result.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct picomcp_prompt_message {
    /// A `picomcp_prompt_role`.
    pub role: u32,
    /// What is said.
    pub content: picomcp_content,
}

/// The answer to a `CALL_COMPLETE`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct picomcp_completion {
    /// Suggestions, best first (NULL when `value_count` is 0); at most
    /// `PICOMCP_SERVER_MAX_COMPLETIONS` are sent, more set `hasMore`.
    pub values: *const picomcp_str,
    /// Number of `values`.
    pub value_count: usize,
    /// `total` is known.
    pub has_total: bool,
    /// How many suggestions there are in all (when `has_total`).
    pub total: usize,
    /// More exist than were sent.
    pub has_more: bool,
}
