//! Calls as events: `picomcp_session_poll_served` runs the server layer on each event of
//! a session and hands the host either a call (with its `picomcp_call`) or the plain
//! event; `picomcp_session_argument` reads a call's arguments without validating them
//! twice.

use picomcp_core::server::{Access, Call, CompleteTarget, Handled, ReadTarget, Server};
use picomcp_core::session::Event;
use picomcp_core::uri::UriTemplate;

use crate::boundary::{out, str_arg};
use crate::convert;
use crate::server::{picomcp_server, server_ref};
use crate::session::{Block, detach, picomcp_session, with_session, with_session_views};
use crate::status::picomcp_status;
use crate::types::{picomcp_event, picomcp_event_kind, picomcp_str};

use super::{picomcp_call, picomcp_call_target, picomcp_var};

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
