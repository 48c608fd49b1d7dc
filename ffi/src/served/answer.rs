//! The host's answers to calls, as C structs: a tool's result, a read's contents, a
//! prompt's messages, a completion's values. Each is converted on the stack (bounded by
//! `PICOMCP_SERVER_MAX_BLOCKS` / `_COMPLETIONS`) and shaped by the core for the
//! negotiated revision; a refused answer reports a status and, optionally, a C error.

use picomcp_core::json::Json;
use picomcp_core::server::{
    Completion, Content, PromptMessage, ResourceContents, ResultError, Role, Text, ToolResult,
};
use picomcp_core::session::InboundId;

use crate::boundary::{FfiResult, input, opt_str_arg, str_arg};
use crate::convert;
use crate::server::{
    picomcp_server, picomcp_server_error, picomcp_server_error_kind, report, server_ref,
};
use crate::session::{Block, json_arg, opt_json_arg, picomcp_session, with_session_views};
use crate::status::picomcp_status;
use crate::types::picomcp_str;

use super::{
    PICOMCP_SERVER_MAX_BLOCKS, PICOMCP_SERVER_MAX_COMPLETIONS, picomcp_completion, picomcp_content,
    picomcp_content_kind, picomcp_prompt_message, picomcp_prompt_role, picomcp_resource_contents,
    picomcp_tool_result,
};

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
