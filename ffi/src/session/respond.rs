//! Answering the peer's requests: with a result's text, with a result written straight
//! into the transmit queue by a callback (`picomcp_session_respond_with`), or with a
//! JSON-RPC error. These calls leave the current event's views valid, so an answer may
//! be built from the request's own params.

use core::ffi::c_void;

use picomcp_core::error::ErrorCode;
use picomcp_core::session::InboundId;

use crate::boundary::str_arg;
use crate::convert;
use crate::json::{picomcp_writer, write_through};
use crate::status::picomcp_status;
use crate::types::*;

use super::{json_arg, opt_json_arg, picomcp_session, with_session};

/// Answers the peer's request `id` (from a `PICOMCP_EVENT_REQUEST`) with `result_json`,
/// the text of a JSON object. The text is copied into the transmit queue.
///
/// A request the peer cancelled is finished silently (`PICOMCP_STATUS_OK`, nothing sent).
/// Answering twice, or with a stale handle: `PICOMCP_STATUS_UNKNOWN_REQUEST`. Transmit
/// queue full: `PICOMCP_STATUS_QUEUE_FULL` (drain it and retry).
///
/// The answering functions (`respond`, `respond_with`, `respond_error`,
/// `respond_missing_capability`, `respond_input_required`) are the one exception to "views
/// die at the next call": they leave the current event's views valid, so `result_json`
/// may be (or be built from) the request's params.
///
/// # Safety
/// `session` must be a live session; `result_json` must be readable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_respond(
    session: *mut picomcp_session,
    id: u32,
    result_json: picomcp_str,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_session(session, |b| {
            let result = json_arg(result_json)?;
            b.session
                .respond(InboundId::from_bits(id), result)
                .map_err(convert::respond_error)
        })
    }
}

/// The callback of `picomcp_session_respond_with`: writes one JSON object with the
/// `picomcp_writer_*` functions on `w`.
pub type picomcp_write_fn = Option<unsafe extern "C" fn(w: *mut picomcp_writer, ctx: *mut c_void)>;

/// Answers the peer's request `id` with a result written by `write` **directly into the
/// transmit queue**: no result buffer, no copy, no second validation. `write(w, ctx)` must
/// write exactly one JSON object with the `picomcp_writer_*` functions on `w` (not
/// `picomcp_writer_init` or `_finish`) and nothing else; it may be called twice (again
/// after the queue was compacted), so it must write the same object each time and have no
/// other effects. It must not call functions that take the session.
///
/// A callback that does not write one complete object (or whose writer call failed):
/// `PICOMCP_STATUS_WRITER_STATE`, and nothing is sent. Other statuses as
/// `picomcp_session_respond` (`PICOMCP_STATUS_QUEUE_FULL`: drain and retry). The views of
/// the current event stay valid during the callback (see `picomcp_session_respond`).
///
/// # Safety
/// `session` must be a live session; `write` a function as described; `ctx` is passed to
/// it unchanged.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_respond_with(
    session: *mut picomcp_session,
    id: u32,
    write: picomcp_write_fn,
    ctx: *mut c_void,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_session(session, |b| {
            let write = write.ok_or(picomcp_status::NullArgument)?;
            let failed = core::cell::Cell::new(0i32);
            b.busy = true;
            let r = b.session.respond_with(InboundId::from_bits(id), |jw| {
                let st = write_through(jw, write, ctx);
                if st != 0 {
                    failed.set(st);
                }
            });
            b.busy = false;
            match failed.get() {
                0 => r.map_err(convert::respond_error),
                st => Err(picomcp_status::from_i32(st).unwrap_or(picomcp_status::WriterState)),
            }
        })
    }
}

/// Answers the peer's request `id` with a JSON-RPC error: `code` (e.g. -32602),
/// `message` (plain text; it is escaped for you) and optional `data_json` (`ptr == NULL`:
/// none). Statuses as `picomcp_session_respond`.
///
/// # Safety
/// `session` must be a live session; the strings must be readable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_respond_error(
    session: *mut picomcp_session,
    id: u32,
    code: i32,
    message: picomcp_str,
    data_json: picomcp_str,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_session(session, |b| {
            let message = str_arg(message)?;
            let data = opt_json_arg(data_json)?;
            b.session
                .respond_error(InboundId::from_bits(id), ErrorCode(code), message, data)
                .map_err(convert::respond_error)
        })
    }
}
