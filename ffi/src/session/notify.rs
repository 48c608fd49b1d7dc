//! A server's messages to its client outside answers: log messages (legacy sessions, or
//! tied to one request in 2026-07-28), resource and list-change notifications, and
//! whether the client subscribed to a resource (so a host keeps change timers only while
//! somebody listens).

use picomcp_core::json::{Json, JsonWriter};
use picomcp_core::session::InboundId;

use crate::boundary::{opt_str_arg, out, str_arg};
use crate::convert;
use crate::status::picomcp_status;
use crate::types::*;

use super::{Block, json_arg, picomcp_session, with_session, with_session_views};

/// Server: sends `notifications/message` at `level` (a `picomcp_log_level`) with
/// `data_json` (any JSON value) and optional `logger`, unless the client set a higher
/// level with `logging/setLevel`. `*out_sent` (may be NULL) says whether it was sent.
/// Without the `logging` capability: `PICOMCP_STATUS_NOT_NEGOTIATED`. In the 2026-07-28
/// era log messages belong to a request: this sends nothing (use
/// `picomcp_session_log_for`).
///
/// # Safety
/// `session` must be a live session; the strings must be readable; `out_sent` NULL or
/// writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_log(
    session: *mut picomcp_session,
    level: u32,
    logger: picomcp_str,
    data_json: picomcp_str,
    out_sent: *mut bool,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_session(session, |b| {
            let level = convert::log_level_from_c(level)?;
            let logger = opt_str_arg(logger)?;
            let data = json_arg(data_json)?;
            let sent = b
                .session
                .log(level, logger, data)
                .map_err(convert::send_error)?;
            if let Some(o) = out_sent.as_mut() {
                *o = sent;
            }
            Ok(())
        })
    }
}

/// Like `picomcp_session_log` with `text` (plain UTF-8, escaped for you) as the data:
/// the common case of a log line. The escaped text must fit `max_line` bytes, else
/// `PICOMCP_STATUS_BUFFER_TOO_SMALL` (use `picomcp_session_log` for longer data).
///
/// # Safety
/// As `picomcp_session_log`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_log_text(
    session: *mut picomcp_session,
    level: u32,
    logger: picomcp_str,
    text: picomcp_str,
    out_sent: *mut bool,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe { log_text(session, None, level, logger, text, out_sent) }
}

/// Server: a log message about the peer's request `id` (for example progress of a tool
/// call). 2026-07-28: sent only when that request asked for log messages (its `_meta`
/// log level) at `level` or below. Legacy era: as `picomcp_session_log`. `*out_sent` (may
/// be NULL) says whether it was sent. A finished request: `PICOMCP_STATUS_UNKNOWN_REQUEST`.
///
/// # Safety
/// As `picomcp_session_log`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_log_for(
    session: *mut picomcp_session,
    id: u32,
    level: u32,
    logger: picomcp_str,
    data_json: picomcp_str,
    out_sent: *mut bool,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_session(session, |b| {
            let level = convert::log_level_from_c(level)?;
            let logger = opt_str_arg(logger)?;
            let data = json_arg(data_json)?;
            let sent = b
                .session
                .log_for(InboundId::from_bits(id), level, logger, data)
                .map_err(convert::send_error)?;
            if let Some(o) = out_sent.as_mut() {
                *o = sent;
            }
            Ok(())
        })
    }
}

/// `picomcp_session_log_for` with plain `text` as the data.
///
/// # Safety
/// As `picomcp_session_log`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_log_for_text(
    session: *mut picomcp_session,
    id: u32,
    level: u32,
    logger: picomcp_str,
    text: picomcp_str,
    out_sent: *mut bool,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe { log_text(session, Some(id), level, logger, text, out_sent) }
}

/// `log` / `log_for` with text quoted as a JSON string in the scratch area (a whole line
/// fits; longer text could not be sent anyway).
///
/// # Safety
/// As `picomcp_session_log`.
unsafe fn log_text(
    session: *mut picomcp_session,
    id: Option<u32>,
    level: u32,
    logger: picomcp_str,
    text: picomcp_str,
    out_sent: *mut bool,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_session(session, |b| {
            let level = convert::log_level_from_c(level)?;
            let logger = opt_str_arg(logger)?;
            let text = str_arg(text)?;
            let Block {
                session, scratch, ..
            } = b;
            let mut w = JsonWriter::new(scratch);
            w.string(text);
            let n = w.finish().map_err(|_| picomcp_status::BufferTooSmall)?;
            let quoted =
                core::str::from_utf8(&scratch[..n]).map_err(|_| picomcp_status::InvalidUtf8)?;
            let data = Json::new(quoted).map_err(|_| picomcp_status::InvalidJson)?;
            let sent = match id {
                None => session.log(level, logger, data),
                Some(id) => session.log_for(InboundId::from_bits(id), level, logger, data),
            }
            .map_err(convert::send_error)?;
            if let Some(o) = out_sent.as_mut() {
                *o = sent;
            }
            Ok(())
        })
    }
}

/// Announces a change (a `picomcp_change`; `uri` for `PICOMCP_CHANGE_RESOURCE_UPDATED`,
/// else absent). The session delivers it the right way for the era, or not at all when
/// nobody asked for it; `*out_count` (may be NULL) = notifications queued. Without the
/// matching capability flag: `PICOMCP_STATUS_NOT_NEGOTIATED`.
///
/// # Safety
/// `session` must be a live session; `uri` readable; `out_count` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_notify(
    session: *mut picomcp_session,
    change: u32,
    uri: picomcp_str,
    out_count: *mut usize,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_session(session, |b| {
            let uri = opt_str_arg(uri)?;
            let c = convert::change_from_c(change, uri)?;
            let n = b.session.notify(c).map_err(convert::send_error)?;
            if let Some(o) = out_count.as_mut() {
                *o = n;
            }
            Ok(())
        })
    }
}

/// `*out_subscribed` = true when the peer subscribed to `uri` (legacy
/// `resources/subscribe`, or a 2026-07-28 `subscriptions/listen` naming it), so that
/// `picomcp_session_notify(PICOMCP_CHANGE_RESOURCE_UPDATED, uri)` would send something.
/// A host that changes a resource on a timer needs the timer only while this holds (and
/// can otherwise wait for input without a deadline: a blocking read, no `poll`).
///
/// # Safety
/// `session` must be a live session; `uri` readable; `out_subscribed` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_is_subscribed(
    session: *mut picomcp_session,
    uri: picomcp_str,
    out_subscribed: *mut bool,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_session_views(session, |b| {
            let uri = str_arg(uri)?;
            *out(out_subscribed)? = b.session.is_subscribed(uri);
            Ok(())
        })
    }
}
