//! What a session hands out: pending output (copied, or viewed without a copy and then
//! advanced), the next event (whose views last until the next call on the session), and
//! the next deadline for `picomcp_session_handle_timeout`.

use crate::boundary::{out, out_bytes};
use crate::convert;
use crate::status::picomcp_status;
use crate::types::*;

use super::{Block, picomcp_session, with_session};

/// Copies as many whole pending lines as fit into `out` (each ends with `\n`).
/// `*out_len` receives the number of bytes written; 0 means nothing is pending.
///
/// `PICOMCP_STATUS_BUFFER_TOO_SMALL`: even the first pending line does not fit;
/// `*out_len` receives its size and nothing is consumed.
///
/// # Safety
/// `session` must be a live session; `out` must point to `cap` writable bytes (NULL only
/// with `cap` 0); `out_len` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_poll_transmit(
    session: *mut picomcp_session,
    out_buf: *mut u8,
    cap: usize,
    out_len: *mut usize,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_session(session, |b| {
            let n = out(out_len)?;
            *n = 0;
            let buf = out_bytes(out_buf, cap)?;
            match b.session.poll_transmit(buf) {
                Ok(Some(k)) => *n = k,
                Ok(None) => {}
                Err(e) => {
                    *n = e.required;
                    return Err(picomcp_status::BufferTooSmall);
                }
            }
            Ok(())
        })
    }
}

/// The pending output without copying: `*out` views the bytes waiting to be written
/// (whole lines; `len` 0 when nothing is pending), valid until the next call on the
/// session. After writing some of them, report how many with
/// `picomcp_session_advance_transmit`.
///
/// # Safety
/// `session` must be a live session; `out` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_pending_transmit(
    session: *mut picomcp_session,
    out_view: *mut picomcp_str,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_session(session, |b| {
            let o = out(out_view)?;
            let p = b.session.pending_transmit();
            *o = picomcp_str {
                ptr: p.as_ptr().cast(),
                len: p.len(),
            };
            Ok(())
        })
    }
}

/// Marks `n` bytes of `picomcp_session_pending_transmit` as written.
/// `PICOMCP_STATUS_INVALID_ARGUMENT` when `n` is more than is pending (nothing changes).
///
/// # Safety
/// `session` must be a live session.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_advance_transmit(
    session: *mut picomcp_session,
    n: usize,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_session(session, |b| {
            if n > b.session.pending_transmit().len() {
                return Err(picomcp_status::InvalidArgument);
            }
            b.session.advance_transmit(n);
            Ok(())
        })
    }
}

/// Takes the next event into `*out`; `out->kind` is `PICOMCP_EVENT_NONE` when there is
/// none. **The strings in `*out` are valid until the next call that takes this session**
/// (including the next `picomcp_session_poll_event`): read what you need, then issue
/// commands (`respond`, ...).
///
/// # Safety
/// `session` must be a live session; `out` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_poll_event(
    session: *mut picomcp_session,
    out_event: *mut picomcp_event,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_session(session, |b| {
            let o = out(out_event)?;
            *o = picomcp_event::EMPTY;
            let Block {
                session, scratch, ..
            } = b;
            if let Some(ev) = session.poll_event() {
                *o = convert::event_to_c(ev, scratch);
            }
            Ok(())
        })
    }
}

/// `*out` = true when `picomcp_session_poll_event` would return an event.
///
/// # Safety
/// `session` must be a live session; `out` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_has_events(
    session: *mut picomcp_session,
    out_has: *mut bool,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_session(session, |b| {
            *out(out_has)? = b.session.has_events();
            Ok(())
        })
    }
}

/// `*out_deadline_ms` = when `picomcp_session_handle_timeout` should next be called (same
/// clock as the `now_ms` you pass in), or `PICOMCP_NO_DEADLINE` when nothing is pending.
///
/// # Safety
/// `session` must be a live session; `out_deadline_ms` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_poll_timeout(
    session: *mut picomcp_session,
    out_deadline_ms: *mut u64,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_session(session, |b| {
            *out(out_deadline_ms)? = b.session.poll_timeout().unwrap_or(PICOMCP_NO_DEADLINE);
            Ok(())
        })
    }
}
