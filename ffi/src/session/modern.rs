//! The commands of the 2026-07-28 revision: answering "missing required client
//! capability" and `input_required` (MRTR) on the server side, answering the input a
//! server asked for and opening a `subscriptions/listen` stream on the client side, and
//! what the session knows about one of the peer's open requests.

use picomcp_core::session::{InboundId, OutboundId};

use crate::boundary::{opt_str_arg, out};
use crate::convert;
use crate::status::picomcp_status;
use crate::types::*;

use super::{json_arg, opt_json_arg, picomcp_session, with_session};

/// 2026-07-28: answers the peer's request `id` with "missing required client capability"
/// (-32021). `required_json` is a capabilities object naming what is missing, e.g.
/// `{"elicitation":{}}`. Statuses as `picomcp_session_respond`.
///
/// # Safety
/// `session` must be a live session; `required_json` readable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_respond_missing_capability(
    session: *mut picomcp_session,
    id: u32,
    required_json: picomcp_str,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_session(session, |b| {
            let required = json_arg(required_json)?;
            b.session
                .respond_missing_capability(InboundId::from_bits(id), required)
                .map_err(convert::respond_error)
        })
    }
}

/// 2026-07-28: answers `tools/call`, `prompts/get` or `resources/read` with an
/// `input_required` result (MRTR). `input_requests_json` maps keys to
/// `{"method":...,"params":...}` (or is absent); `request_state` is opaque text the
/// client echoes back (or absent); at least one must be given. Not allowed for the request:
/// `PICOMCP_STATUS_INPUT_NOT_ALLOWED`.
///
/// # Safety
/// `session` must be a live session; the strings readable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_respond_input_required(
    session: *mut picomcp_session,
    id: u32,
    input_requests_json: picomcp_str,
    request_state: picomcp_str,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_session(session, |b| {
            let requests = opt_json_arg(input_requests_json)?;
            let state = opt_str_arg(request_state)?;
            b.session
                .respond_input_required(InboundId::from_bits(id), requests, state)
                .map_err(convert::respond_error)
        })
    }
}

/// What the session knows about the peer's open request `id` (era, the request's own
/// client capabilities and log level in 2026-07-28, progress token, cancelled).
/// `PICOMCP_STATUS_UNKNOWN_REQUEST` when it is not open.
///
/// # Safety
/// `session` must be a live session; `out_info` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_request_info(
    session: *mut picomcp_session,
    id: u32,
    out_info: *mut picomcp_request_info,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_session(session, |b| {
            let o = out(out_info)?;
            let info = b
                .session
                .request_info(InboundId::from_bits(id))
                .ok_or(picomcp_status::UnknownRequest)?;
            *o = convert::request_info_to_c(info);
            Ok(())
        })
    }
}

/// Client, 2026-07-28: answers a `PICOMCP_EVENT_INPUT_REQUIRED` for our request `id`.
/// `responses_json` maps each key of `inputRequests` to its answer; the session re-issues
/// the request (same handle) with them.
///
/// # Safety
/// `session` must be a live session; `responses_json` readable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_answer_input(
    session: *mut picomcp_session,
    now_ms: u64,
    id: u32,
    responses_json: picomcp_str,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_session(session, |b| {
            let responses = json_arg(responses_json)?;
            b.session
                .answer_input(now_ms, OutboundId::from_bits(id), responses)
                .map_err(convert::send_error)
        })
    }
}

/// Client, 2026-07-28: opens a `subscriptions/listen` stream with the filter
/// `notifications_json` (e.g. `{"toolsListChanged":true}`). `*out_id` = its handle; the
/// acknowledgement arrives as `PICOMCP_EVENT_SUBSCRIPTION_ACKNOWLEDGED`, then
/// notifications; `picomcp_session_cancel` ends it.
///
/// # Safety
/// `session` must be a live session; `notifications_json` readable; `out_id` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_listen(
    session: *mut picomcp_session,
    notifications_json: picomcp_str,
    out_id: *mut u32,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_session(session, |b| {
            let o = out(out_id)?;
            let filter = json_arg(notifications_json)?;
            *o = b
                .session
                .listen(filter)
                .map_err(convert::send_error)?
                .to_bits();
            Ok(())
        })
    }
}
