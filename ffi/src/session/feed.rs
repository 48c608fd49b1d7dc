//! What a session takes in: bytes read from the peer (newline framing), whole messages
//! from a transport that frames them itself (an HTTP body), the peer's end of input, and
//! the passing of time. Every input may queue output and events: drain both after each
//! (`poll`).

use crate::boundary::{in_bytes, out};
use crate::status::picomcp_status;

use super::{picomcp_session, with_session};

/// Feeds bytes read from the peer. `*out_taken` receives how many were taken: fewer than
/// `len` means the transmit or event queue is full — drain both
/// (`picomcp_session_poll_transmit`, `picomcp_session_poll_event`), then offer the rest
/// again. `bytes` may be NULL when `len` is 0.
///
/// # Safety
/// `session` must be a live session; `bytes` must point to `len` readable bytes;
/// `out_taken` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_handle_bytes(
    session: *mut picomcp_session,
    now_ms: u64,
    bytes: *const u8,
    len: usize,
    out_taken: *mut usize,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_session(session, |b| {
            let taken = out(out_taken)?;
            let data = in_bytes(bytes, len)?;
            *taken = b.session.handle_bytes(now_ms, data);
            Ok(())
        })
    }
}

/// Takes one whole message (no newline framing): what a transport that delimits
/// messages itself hands over, e.g. the body of an HTTP POST (`picomcp_endpoint`'s
/// `PICOMCP_OUTCOME_KIND_DELIVER`). `PICOMCP_STATUS_QUEUE_FULL`: nothing was taken —
/// drain the session's events and output, then offer it again.
///
/// # Safety
/// `session` must be a live session; `bytes` must point to `len` readable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_handle_message(
    session: *mut picomcp_session,
    now_ms: u64,
    bytes: *const u8,
    len: usize,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_session(session, |b| {
            let data = in_bytes(bytes, len)?;
            b.session
                .handle_message(now_ms, data)
                .map_err(|_| picomcp_status::QueueFull)
        })
    }
}

/// The peer closed its side of the stream: a final line without `\n` is processed, then
/// a `PICOMCP_EVENT_CLOSED` event is queued.
///
/// # Safety
/// `session` must be a live session.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_handle_eof(
    session: *mut picomcp_session,
    now_ms: u64,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_session(session, |b| {
            b.session.handle_eof(now_ms);
            Ok(())
        })
    }
}

/// Time has passed: expires our requests whose deadline is `now_ms` or earlier. Call it
/// when the deadline from `picomcp_session_poll_timeout` is reached.
///
/// # Safety
/// `session` must be a live session.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_handle_timeout(
    session: *mut picomcp_session,
    now_ms: u64,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_session(session, |b| {
            b.session.handle_timeout(now_ms);
            Ok(())
        })
    }
}
