//! Our side of a conversation: requests to the peer (their responses come back as
//! events carrying the handle returned here), notifications, cancelling one of our
//! requests, and progress on one of the peer's.

use picomcp_core::session::{InboundId, OutboundId, RequestOptions};

use crate::boundary::{opt_str_arg, out, str_arg};
use crate::convert;
use crate::status::picomcp_status;
use crate::types::*;

use super::{opt_json_arg, picomcp_session, with_session};

/// Sends a request to the peer. `method` is the wire name (e.g. `"sampling/createMessage"`);
/// `params_json` a JSON object or absent (`ptr == NULL`); `options` NULL for defaults.
/// `*out_id` receives the handle the response event will carry.
///
/// # Safety
/// `session` must be a live session; the strings must be readable; `options` NULL or
/// readable; `out_id` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_send_request(
    session: *mut picomcp_session,
    now_ms: u64,
    method: picomcp_str,
    params_json: picomcp_str,
    options: *const picomcp_request_options,
    out_id: *mut u32,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_session(session, |b| {
            let id = out(out_id)?;
            let m = convert::method_from_name(str_arg(method)?)?;
            let params = opt_json_arg(params_json)?;
            let o = options.as_ref().copied().unwrap_or_default();
            // The update keeps this compiling when the core adds options.
            #[allow(clippy::needless_update)]
            let opts = RequestOptions {
                timeout_ms: (o.timeout_ms != 0).then_some(o.timeout_ms),
                progress: o.progress,
                reset_timeout_on_progress: o.reset_timeout_on_progress,
                max_total_ms: (o.max_total_ms != 0).then_some(o.max_total_ms),
                ..RequestOptions::default()
            };
            let h = b
                .session
                .send_request(now_ms, m, params, opts)
                .map_err(convert::send_error)?;
            *id = h.to_bits();
            Ok(())
        })
    }
}

/// Sends a notification (e.g. `"notifications/tools/list_changed"`), checked against the
/// negotiated capabilities. `params_json`: a JSON object or absent.
///
/// # Safety
/// `session` must be a live session; the strings must be readable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_send_notification(
    session: *mut picomcp_session,
    method: picomcp_str,
    params_json: picomcp_str,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_session(session, |b| {
            let m = convert::method_from_name(str_arg(method)?)?;
            let params = opt_json_arg(params_json)?;
            b.session
                .send_notification(m, params)
                .map_err(convert::send_error)
        })
    }
}

/// Cancels our request `id`: queues `notifications/cancelled` (with `reason` unless
/// absent); a late response is dropped.
///
/// # Safety
/// `session` must be a live session; `reason` must be readable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_cancel(
    session: *mut picomcp_session,
    id: u32,
    reason: picomcp_str,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_session(session, |b| {
            let reason = opt_str_arg(reason)?;
            b.session
                .cancel(OutboundId::from_bits(id), reason)
                .map_err(convert::send_error)
        })
    }
}

/// Reports progress on the peer's request `id` (which must carry a progress token,
/// else `PICOMCP_STATUS_NO_PROGRESS_TOKEN`). `progress` must be finite and increase;
/// `total` NaN for none, else finite; `message` absent for none (sent from 2025-03-26 on).
///
/// # Safety
/// `session` must be a live session; `message` must be readable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_progress(
    session: *mut picomcp_session,
    id: u32,
    progress: f64,
    total: f64,
    message: picomcp_str,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_session(session, |b| {
            let message = opt_str_arg(message)?;
            let total = (!total.is_nan()).then_some(total);
            b.session
                .progress(InboundId::from_bits(id), progress, total, message)
                .map_err(convert::send_error)
        })
    }
}
