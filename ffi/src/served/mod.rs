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

use picomcp_core::json::Json;
use picomcp_core::server::{
    Access, Call, CompleteTarget, Completion, Content, Handled, PromptMessage, ReadTarget,
    ResourceContents, ResultError, Role, Server, Text, ToolResult,
};
use picomcp_core::session::{Event, InboundId};
use picomcp_core::uri::{MAX_VARS, UriTemplate};

use crate::boundary::{FfiResult, input, opt_str_arg, out, str_arg};
use crate::convert;
use crate::server::{
    picomcp_server, picomcp_server_error, picomcp_server_error_kind, report, server_ref,
};
use crate::session::{
    Block, detach, json_arg, opt_json_arg, picomcp_session, with_session, with_session_views,
};
use crate::status::picomcp_status;
use crate::types::{picomcp_event, picomcp_event_kind, picomcp_str};

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

// ---------------------------------------------------------------------------------------
// Polling
// ---------------------------------------------------------------------------------------

/// Like `picomcp_session_poll_event`, with `server`'s layer in between: list requests
/// (`tools/list`, `resources/list`, `resources/templates/list`, `prompts/list`) and calls
/// that fail the layer's checks (unknown tool, arguments that do not match the
/// `inputSchema`, unknown URI, missing prompt argument, ...) are answered here, as the
/// negotiated revision asks, and produce no event. A call that passed is a
/// `PICOMCP_EVENT_KIND_CALL_TOOL`, `_CALL_READ`, `_CALL_PROMPT` or `_CALL_COMPLETE` event
/// (`id`, `method`, `method_name`, `json` = the params) with its details in `*out_call`;
/// answer it with the matching `picomcp_server_respond_*`. Every other event comes out
/// as `picomcp_session_poll_event` gives it (`*out_call` zeroed).
///
/// `out->kind` is `PICOMCP_EVENT_KIND_NONE` when there is nothing more. The views follow
/// the rule of `picomcp_session_poll_event`.
///
/// # Safety
/// `session` must be a live session; `server` NULL or a `picomcp_server`; `out_event`
/// and `out_call` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_poll_served(
    session: *mut picomcp_session,
    server: *const picomcp_server,
    out_event: *mut picomcp_event,
    out_call: *mut picomcp_call,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe { poll_served(session, server, Access::ALL, out_event, out_call) }
}

/// `picomcp_session_poll_served` for a caller granted `granted` (bit `i` is scope `i` of
/// `endpoint`'s `picomcp_auth_config.scopes`: `picomcp_principal.granted` of the request
/// delivered to this session): the lists leave out what the definitions' `scopes` do not
/// allow, and a call, read or get of such a definition is refused (-32602, naming the
/// scopes needed). `endpoint` NULL or without authorization: everything is allowed.
///
/// # Safety
/// As `picomcp_session_poll_served`; `endpoint` NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_poll_served_as(
    session: *mut picomcp_session,
    server: *const picomcp_server,
    endpoint: *mut crate::endpoint::picomcp_endpoint,
    granted: u64,
    out_event: *mut picomcp_event,
    out_call: *mut picomcp_call,
) -> picomcp_status {
    let access = if endpoint.is_null() {
        Access::ALL
    } else {
        // SAFETY: caller contract.
        match unsafe { crate::endpoint::scope_names(endpoint) } {
            Ok(Some(names)) => Access::new(names, granted),
            Ok(None) => Access::ALL,
            Err(st) => return st,
        }
    };
    // SAFETY: caller contract.
    unsafe { poll_served(session, server, access, out_event, out_call) }
}

/// The body of both polling functions.
///
/// # Safety
/// As `picomcp_session_poll_served`.
unsafe fn poll_served(
    session: *mut picomcp_session,
    server: *const picomcp_server,
    access: Access<'static>,
    out_event: *mut picomcp_event,
    out_call: *mut picomcp_call,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_session(session, |b| {
            let srv = *server_ref(server)?;
            let (o, c) = (out(out_event)?, out(out_call)?);
            *o = picomcp_event::EMPTY;
            *c = picomcp_call::EMPTY;
            poll(b, &srv, access, o, c);
            Ok(())
        })
    }
}

/// `*out_value` = the member `key` of the current call's arguments: those of the
/// `PICOMCP_EVENT_KIND_CALL_TOOL` or `_CALL_PROMPT` event `picomcp_session_poll_served`
/// returned last. The same view as `picomcp_json_get(call.arguments, key, ...)`, without
/// validating the arguments once more (the session did when the request arrived), so the
/// cheap way to read them; and a string value given back unchanged as a text block with
/// `text_is_json` (an echo) is not validated again by the answering function either.
/// `PICOMCP_STATUS_NOT_FOUND` when there is no such member, or no current call: only
/// this function and the answering functions (`picomcp_server_respond_*`) keep the call
/// current, any other call on the session ends it. The view is valid as the event's.
///
/// # Safety
/// `session` must be a live session; `key` readable; `out_value` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_argument(
    session: *mut picomcp_session,
    key: picomcp_str,
    out_value: *mut picomcp_str,
) -> picomcp_status {
    // SAFETY: caller contract; reading changes no event text.
    unsafe {
        with_session_views(session, |b| {
            let (o, k) = (out(out_value)?, str_arg(key)?);
            *o = picomcp_str::NONE;
            let v = b
                .args
                .and_then(|a| a.get(k))
                .ok_or(picomcp_status::NotFound)?;
            b.remember(v);
            *o = picomcp_str::new(v.as_raw());
            Ok(())
        })
    }
}

/// Takes events until one is for the host.
fn poll(
    b: &mut Block,
    srv: &Server<'static>,
    access: Access<'static>,
    o: &mut picomcp_event,
    c: &mut picomcp_call,
) {
    let Block {
        session,
        scratch,
        args,
        ..
    } = b;
    while let Some((event, mut cmds)) = session.poll_event_split() {
        let request = match event {
            Event::Request { method, params, .. } => Some((method, params)),
            _ => None,
        };
        let call = match srv.handle_as(event, &mut cmds, access) {
            Handled::Answered => continue,
            Handled::Event(ev) => {
                *o = convert::event_to_c(ev, scratch);
                return;
            }
            Handled::Call(call) => call,
        };
        let id = call.id();
        if call_to_c(srv, &call, scratch, o, c).is_none() {
            // Decoded text always fits the scratch region (a line's size); if it did
            // not, the client still gets an answer.
            *c = picomcp_call::EMPTY;
            let _ = cmds.respond_error(
                id,
                picomcp_core::error::ErrorCode::INTERNAL_ERROR,
                "Internal error: the request does not fit",
                None,
            );
            continue;
        }
        // The arguments `picomcp_session_argument` reads (validated when the request
        // was parsed, so not again).
        let a = match &call {
            Call::Tool(t) => Some(t.arguments),
            Call::Prompt(p) => Some(p.arguments),
            _ => None,
        };
        // SAFETY: the arguments are text of this session's event, unchanged while the
        // event's views are valid; every call that may end them clears `args` first.
        *args = a.map(|a| unsafe { detach(a) });
        o.id = id.to_bits();
        if let Some((method, params)) = request {
            o.method = convert::method_to_c(method);
            o.method_name = picomcp_str::new(method.as_str());
            o.json = picomcp_str::from_opt(params.map(|p| p.as_raw()));
        }
        return;
    }
}

/// Fills the event kind and the call; `None` when decoded text does not fit `scratch`.
fn call_to_c(
    srv: &Server<'static>,
    call: &Call<'_>,
    scratch: &mut [u8],
    o: &mut picomcp_event,
    c: &mut picomcp_call,
) -> Option<()> {
    use picomcp_call_target as T;
    use picomcp_event_kind as K;
    match call {
        Call::Tool(t) => {
            o.kind = K::CallTool as u32;
            c.target = T::Tool as u32;
            c.index = t.tool;
            c.arguments = picomcp_str::new(t.arguments.as_raw());
            c.meta = picomcp_str::from_opt(t.meta().map(|m| m.as_raw()));
        }
        Call::Prompt(p) => {
            o.kind = K::CallPrompt as u32;
            c.target = T::Prompt as u32;
            c.index = p.prompt;
            c.arguments = picomcp_str::new(p.arguments.as_raw());
        }
        Call::Read(r) => {
            o.kind = K::CallRead as u32;
            let uri = r.uri().as_bytes();
            let copy = scratch.get_mut(..uri.len())?;
            copy.copy_from_slice(uri);
            let copy = core::str::from_utf8(copy).ok()?;
            c.uri = picomcp_str::new(copy);
            match r.target {
                ReadTarget::Resource(i) => {
                    c.target = T::Resource as u32;
                    c.index = i;
                }
                ReadTarget::Template(i) => {
                    c.target = T::Template as u32;
                    c.index = i;
                    // The call's own match, redone on the copy so the values point there.
                    let t = srv.catalog().templates.get(i)?;
                    if let Some(vars) = UriTemplate::new(t.uri_template).ok()?.match_uri(copy) {
                        for (slot, (name, value)) in c.vars.iter_mut().zip(vars.iter()) {
                            *slot = picomcp_var {
                                name: picomcp_str::new(name),
                                value: picomcp_str::new(value),
                            };
                            c.var_count += 1;
                        }
                    }
                }
            }
        }
        Call::Complete(q) => {
            o.kind = K::CallComplete as u32;
            let (target, index) = match q.target {
                CompleteTarget::Prompt(i) => (T::Prompt, i),
                CompleteTarget::Template(i) => (T::Template, i),
            };
            c.target = target as u32;
            c.index = index;
            let split = q.argument.decoded_len().min(scratch.len());
            let (a, v) = scratch.split_at_mut(split);
            c.argument = picomcp_str::new(q.argument.unescape_into(a).ok()?);
            c.value = picomcp_str::new(q.value.unescape_into(v).ok()?);
            c.context = picomcp_str::from_opt(q.context.map(|j| j.as_raw()));
        }
    }
    Some(())
}

// ---------------------------------------------------------------------------------------
// Answers
// ---------------------------------------------------------------------------------------

/// The status (and C error) of a refused answer.
fn result_error(e: ResultError, err: *mut picomcp_server_error) -> picomcp_status {
    result_error_with(e, None, err)
}

/// As [`result_error`], with the schema's reason for `InvalidStructured` in the message.
fn result_error_with(
    e: ResultError,
    detail: Option<picomcp_core::schema::Invalid>,
    err: *mut picomcp_server_error,
) -> picomcp_status {
    use picomcp_server_error_kind as K;
    let (kind, status) = match e {
        ResultError::Respond(r) => (K::Respond, convert::respond_error(r)),
        ResultError::UnknownDefinition => (K::UnknownDefinition, picomcp_status::UnknownDefinition),
        ResultError::MissingStructured => (K::MissingStructured, picomcp_status::MissingStructured),
        ResultError::InvalidStructured => (K::InvalidStructured, picomcp_status::InvalidStructured),
        ResultError::NotInRevision(_) => (K::NotInRevision, picomcp_status::NotInRevision),
        ResultError::InvalidContent => (K::InvalidContent, picomcp_status::InvalidBlock),
        _ => (K::Other, picomcp_status::Unknown),
    };
    let mut c = picomcp_server_error::NONE;
    c.kind = kind as u32;
    match detail {
        Some(d) => c.set_message(format_args!("{e}: {d}")),
        None => c.set_message(format_args!("{e}")),
    }
    // SAFETY: the exported function's caller passes NULL or a writable error.
    unsafe { report(err, c) };
    status
}

/// Text of a block: plain, or a JSON string value written as it is.
///
/// # Safety
/// As [`str_arg`].
unsafe fn text_from_c<'r>(s: picomcp_str, is_json: bool, b: &Block) -> FfiResult<Text<'r>> {
    if !is_json {
        // SAFETY: forwarded caller contract.
        return Ok(Text::Plain(unsafe { str_arg(s) }?));
    }
    // A value `picomcp_session_argument` returned, given back as it was (an echo): the
    // session validated it, and it is unchanged while the event's views are valid.
    let j: Json<'r> = match b.known(s) {
        Some(j) => j,
        // SAFETY: forwarded caller contract.
        None => unsafe { json_arg(s) }?,
    };
    j.as_str().map(Text::Json).ok_or(picomcp_status::WrongType)
}

/// A C content block in the core's form.
///
/// # Safety
/// The views `c`'s kind names must be readable.
unsafe fn content_from_c<'r>(c: &picomcp_content, b: &Block) -> FfiResult<Content<'r>> {
    use picomcp_content_kind as K;
    // SAFETY: caller contract for the views (every read below).
    unsafe {
        Ok(match c.kind {
            k if k == K::Text as u32 => Content::Text(text_from_c(c.text, c.text_is_json, b)?),
            k if k == K::Image as u32 => Content::Image {
                data: str_arg(c.data)?,
                mime_type: str_arg(c.mime_type)?,
            },
            k if k == K::Audio as u32 => Content::Audio {
                data: str_arg(c.data)?,
                mime_type: str_arg(c.mime_type)?,
            },
            k if k == K::ResourceLink as u32 => Content::ResourceLink {
                uri: str_arg(c.uri)?,
                name: str_arg(c.name)?,
                mime_type: opt_str_arg(c.mime_type)?,
                description: opt_str_arg(c.description)?,
            },
            k if k == K::Resource as u32 => Content::Resource(contents(
                c.uri,
                c.mime_type,
                c.text,
                c.text_is_json,
                c.data,
                b,
            )?),
            k if k == K::Json as u32 => Content::Json(json_arg(c.json)?),
            _ => return Err(picomcp_status::InvalidBlock),
        })
    }
}

/// Resource contents: text, or base64 `blob` when that is present.
///
/// # Safety
/// The views must be readable.
unsafe fn contents<'r>(
    uri: picomcp_str,
    mime_type: picomcp_str,
    text: picomcp_str,
    text_is_json: bool,
    blob: picomcp_str,
    b: &Block,
) -> FfiResult<ResourceContents<'r>> {
    // SAFETY: caller contract for the views (every read below).
    unsafe {
        let uri = str_arg(uri)?;
        let mime_type = opt_str_arg(mime_type)?;
        Ok(match opt_str_arg(blob)? {
            Some(b) => ResourceContents::blob(uri, mime_type, b),
            None => ResourceContents {
                uri,
                mime_type,
                data: text_from_c(text, text_is_json, b)?,
                blob: false,
            },
        })
    }
}

/// A C array as a slice of at most `PICOMCP_SERVER_MAX_BLOCKS` entries.
///
/// # Safety
/// `p` must point to `n` readable entries when `n > 0`.
unsafe fn blocks<'a, T>(p: *const T, n: usize) -> FfiResult<&'a [T]> {
    if n == 0 {
        return Ok(&[]);
    }
    if n > PICOMCP_SERVER_MAX_BLOCKS {
        return Err(picomcp_status::TooManyBlocks);
    }
    if p.is_null() {
        return Err(picomcp_status::NullArgument);
    }
    // SAFETY: non-NULL, at most 16 entries; readability is the caller's promise.
    Ok(unsafe { core::slice::from_raw_parts(p, n) })
}

const NO_CONTENT: Content<'static> = Content::Text(Text::Plain(""));

/// Answers a `PICOMCP_EVENT_KIND_CALL_TOOL` (`id` from the event, `tool` =
/// `picomcp_call.index`) with `result`, shaped for the negotiated revision:
/// `structuredContent` from 2025-06-18 on (checked against the tool's `outputSchema`
/// first), `isError`, `_meta`; blocks the revision lacks are refused.
///
/// A refused answer sends nothing and the request stays open (answer it again, for
/// example with a text block and `is_error`): `PICOMCP_STATUS_INVALID_STRUCTURED` (with
/// `*err` naming the JSON Pointer of the field and what was expected),
/// `_MISSING_STRUCTURED`, `_NOT_IN_REVISION`, `_INVALID_BLOCK`, `_UNKNOWN_DEFINITION`,
/// `_TOO_MANY_BLOCKS`, or a session status as `picomcp_session_respond` (`QUEUE_FULL`:
/// drain and retry). `err` may be NULL. The current event's views stay valid.
///
/// # Safety
/// `server` NULL or a `picomcp_server`; `session` a live session; `result` NULL or
/// readable with readable blocks and views; `err` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_server_respond_tool(
    server: *const picomcp_server,
    session: *mut picomcp_session,
    id: u32,
    tool: usize,
    result: *const picomcp_tool_result,
    err: *mut picomcp_server_error,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe { report(err, picomcp_server_error::NONE) };
    // SAFETY: caller contract.
    unsafe {
        with_session_views(session, |b| {
            let srv = server_ref(server)?;
            let r = input(result)?;
            let src = blocks(r.content, r.content_count)?;
            let mut buf = [NO_CONTENT; PICOMCP_SERVER_MAX_BLOCKS];
            for (slot, c) in buf.iter_mut().zip(src) {
                *slot = content_from_c(c, b)?;
            }
            let content = &buf[..src.len()];
            let structured = opt_json_arg(r.structured)?;
            let mut tr = match structured {
                Some(s) if r.content.is_null() => ToolResult::structured(s),
                Some(s) => ToolResult::structured(s).with_content(content),
                None => ToolResult::content(content),
            };
            if r.is_error {
                tr = tr.with_error();
            }
            if let Some(m) = opt_json_arg(r.meta)? {
                tr = tr.with_meta(m);
            }
            let mut cmds = b.session.commands();
            srv.respond_tool(&mut cmds, InboundId::from_bits(id), tool, &tr)
                .map_err(|e| {
                    // The reason (JSON Pointer, what was expected), asked for only now.
                    let detail = match (e, structured) {
                        (ResultError::InvalidStructured, Some(v)) => {
                            srv.validate_structured(tool, v).err()
                        }
                        _ => None,
                    };
                    result_error_with(e, detail, err)
                })
        })
    }
}

/// Answers a `PICOMCP_EVENT_KIND_CALL_READ` with `count` contents (at most
/// `PICOMCP_SERVER_MAX_BLOCKS`). Statuses as `picomcp_session_respond`.
///
/// # Safety
/// `server` NULL or a `picomcp_server`; `session` a live session; `contents` must point
/// to `count` readable entries with readable views.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_server_respond_read(
    server: *const picomcp_server,
    session: *mut picomcp_session,
    id: u32,
    contents: *const picomcp_resource_contents,
    count: usize,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_session_views(session, |b| {
            let srv = server_ref(server)?;
            let src = blocks(contents, count)?;
            let none = ResourceContents::text("", None, "");
            let mut buf = [none; PICOMCP_SERVER_MAX_BLOCKS];
            for (slot, c) in buf.iter_mut().zip(src) {
                *slot = self::contents(c.uri, c.mime_type, c.text, c.text_is_json, c.blob, b)?;
            }
            let mut cmds = b.session.commands();
            srv.respond_read(&mut cmds, InboundId::from_bits(id), &buf[..src.len()])
                .map_err(convert::respond_error)
        })
    }
}

/// Answers a `PICOMCP_EVENT_KIND_CALL_PROMPT` (`prompt` = `picomcp_call.index`) with
/// `count` messages (at most `PICOMCP_SERVER_MAX_BLOCKS`); the prompt's description
/// comes from its definition. `PICOMCP_STATUS_NOT_IN_REVISION` for a block the revision
/// lacks, `_INVALID_BLOCK`, `_UNKNOWN_DEFINITION`, else as `picomcp_session_respond`.
///
/// # Safety
/// `server` NULL or a `picomcp_server`; `session` a live session; `messages` must point
/// to `count` readable entries with readable views.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_server_respond_prompt(
    server: *const picomcp_server,
    session: *mut picomcp_session,
    id: u32,
    prompt: usize,
    messages: *const picomcp_prompt_message,
    count: usize,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_session_views(session, |b| {
            let srv = server_ref(server)?;
            let src = blocks(messages, count)?;
            let none = PromptMessage::user("");
            let mut buf = [none; PICOMCP_SERVER_MAX_BLOCKS];
            for (slot, m) in buf.iter_mut().zip(src) {
                let role = match m.role {
                    r if r == picomcp_prompt_role::User as u32 => Role::User,
                    r if r == picomcp_prompt_role::Assistant as u32 => Role::Assistant,
                    _ => return Err(picomcp_status::InvalidArgument),
                };
                *slot = PromptMessage {
                    role,
                    content: content_from_c(&m.content, b)?,
                };
            }
            let mut cmds = b.session.commands();
            srv.respond_prompt(
                &mut cmds,
                InboundId::from_bits(id),
                prompt,
                &buf[..src.len()],
            )
            .map_err(|e| result_error(e, core::ptr::null_mut()))
        })
    }
}

/// Answers a `PICOMCP_EVENT_KIND_CALL_COMPLETE` with suggestions (the first
/// `PICOMCP_SERVER_MAX_COMPLETIONS` are sent; more set `hasMore`). Statuses as
/// `picomcp_session_respond`.
///
/// # Safety
/// `server` NULL or a `picomcp_server`; `session` a live session; `completion` readable,
/// its `values` pointing to `value_count` readable views.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_server_respond_completion(
    server: *const picomcp_server,
    session: *mut picomcp_session,
    id: u32,
    completion: *const picomcp_completion,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_session_views(session, |b| {
            let srv = server_ref(server)?;
            let c = input(completion)?;
            let n = c.value_count.min(PICOMCP_SERVER_MAX_COMPLETIONS);
            let src: &[picomcp_str] = if n == 0 {
                &[]
            } else if c.values.is_null() {
                return Err(picomcp_status::NullArgument);
            } else {
                core::slice::from_raw_parts(c.values, n)
            };
            let mut buf: [&str; PICOMCP_SERVER_MAX_COMPLETIONS] =
                [""; PICOMCP_SERVER_MAX_COMPLETIONS];
            for (slot, v) in buf.iter_mut().zip(src) {
                *slot = str_arg(*v)?;
            }
            let done = Completion {
                values: &buf[..n],
                total: c.has_total.then_some(c.total),
                has_more: c.has_more || c.value_count > n,
            };
            let mut cmds = b.session.commands();
            srv.respond_completion(&mut cmds, InboundId::from_bits(id), &done)
                .map_err(convert::respond_error)
        })
    }
}

/// Decodes the percent-escapes (`%2F` → `/`, RFC 3986; `+` stays `+`) of `text`, e.g. a
/// template variable of a `picomcp_call`, into `buf` with a terminating NUL. `*out_len`
/// = the decoded length (without the NUL); `cap >= text.len + 1` always suffices.
/// `PICOMCP_STATUS_BUFFER_TOO_SMALL`: `*out_len` = the capacity needed (decoded length +
/// 1), `buf` unchanged. A `%` without two hex digits: `PICOMCP_STATUS_INVALID_ARGUMENT`;
/// decoded bytes that are not UTF-8: `PICOMCP_STATUS_INVALID_UTF8`. `%00` decodes to a
/// NUL character: use `*out_len`, not `strlen`, when that matters.
///
/// # Safety
/// `text` must be readable; `buf` must point to `cap` writable bytes (NULL with 0);
/// `out_len` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_percent_decode(
    text: picomcp_str,
    buf: *mut core::ffi::c_char,
    cap: usize,
    out_len: *mut usize,
) -> picomcp_status {
    crate::boundary::boundary(|| {
        // SAFETY: caller contract for every pointer.
        let (t, n, b) = unsafe {
            (
                str_arg(text)?,
                out(out_len)?,
                crate::boundary::out_bytes(buf.cast::<u8>(), cap)?,
            )
        };
        *n = 0;
        use picomcp_core::uri::{DecodeError, percent_decode};
        let Some(room) = b.len().checked_sub(1) else {
            // No room even for the NUL: measure only.
            return match percent_decode(t, &mut []) {
                Ok(_) => {
                    *n = 1;
                    Err(picomcp_status::BufferTooSmall)
                }
                Err(DecodeError::InsufficientSize { required }) => {
                    *n = required + 1;
                    Err(picomcp_status::BufferTooSmall)
                }
                Err(DecodeError::NotUtf8) => Err(picomcp_status::InvalidUtf8),
                Err(_) => Err(picomcp_status::InvalidArgument),
            };
        };
        match percent_decode(t, &mut b[..room]) {
            Ok(d) => {
                let len = d.len();
                b[len] = 0;
                *n = len;
                Ok(())
            }
            Err(DecodeError::InsufficientSize { required }) => {
                *n = required + 1;
                Err(picomcp_status::BufferTooSmall)
            }
            Err(DecodeError::NotUtf8) => Err(picomcp_status::InvalidUtf8),
            Err(_) => Err(picomcp_status::InvalidArgument),
        }
    })
}
