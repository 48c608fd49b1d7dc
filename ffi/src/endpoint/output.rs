//! What an endpoint hands back: a session's output collected onto its streams, the next
//! thing to write on a stream (head, body bytes, end) and how much was written, a stream
//! whose connection went away, the endpoint's deadlines and their expiry, and whether a
//! session slot is in use.

use core::ptr;

use picomcp_core::http::endpoint::{Poll, StreamHandle};

use crate::boundary::out;
use crate::http::picomcp_http_head;
use crate::session::{picomcp_session, with_session};
use crate::status::picomcp_status;
use crate::types::PICOMCP_NO_DEADLINE;

use super::{picomcp_endpoint, picomcp_http_response, picomcp_response_kind, with_endpoint};

/// Takes the output of the session in `slot` and puts each message on its stream. Call
/// after every activity of that session (a delivered body, timers, late answers).
///
/// # Safety
/// `endpoint` and `session` live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_endpoint_collect(
    endpoint: *mut picomcp_endpoint,
    now_ms: u64,
    slot: usize,
    session: *mut picomcp_session,
) -> picomcp_status {
    // SAFETY: caller contract for both objects (distinct blocks: no aliasing).
    unsafe {
        with_endpoint(endpoint, |e| {
            if slot >= e.ep.slot_count() {
                return Err(picomcp_status::InvalidArgument);
            }
            match with_session(session, |s| {
                e.ep.collect(now_ms, slot, &mut s.session);
                Ok(())
            }) {
                picomcp_status::Ok => Ok(()),
                st => Err(st),
            }
        })
    }
}

/// The next thing to write for `stream`; see `picomcp_response_kind`.
///
/// # Safety
/// `endpoint` live; `out_response` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_endpoint_poll_response(
    endpoint: *mut picomcp_endpoint,
    now_ms: u64,
    stream: u64,
    out_response: *mut picomcp_http_response,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_endpoint(endpoint, |b| {
            let o = out(out_response)?;
            let mut r = picomcp_http_response {
                kind: picomcp_response_kind::Wait as u32,
                head: picomcp_http_head::EMPTY,
                body: ptr::null(),
                body_len: 0,
            };
            match b.ep.poll_response(now_ms, StreamHandle::from_bits(stream)) {
                Poll::Head(h) => {
                    r.kind = picomcp_response_kind::Head as u32;
                    r.head = picomcp_http_head::of(h.status, h.body, h.headers());
                }
                Poll::Body(bytes) => {
                    r.kind = picomcp_response_kind::Body as u32;
                    r.body = bytes.as_ptr();
                    r.body_len = bytes.len();
                }
                Poll::Wait => {}
                Poll::End => r.kind = picomcp_response_kind::End as u32,
            }
            *o = r;
            Ok(())
        })
    }
}

/// `n` bytes of the last body of `stream` were written.
///
/// # Safety
/// `endpoint` live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_endpoint_advance(
    endpoint: *mut picomcp_endpoint,
    stream: u64,
    n: usize,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_endpoint(endpoint, |b| {
            b.ep.advance(StreamHandle::from_bits(stream), n);
            Ok(())
        })
    }
}

/// The connection carrying `stream` went away before the end.
///
/// # Safety
/// `endpoint` live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_endpoint_detach(
    endpoint: *mut picomcp_endpoint,
    stream: u64,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_endpoint(endpoint, |b| {
            b.ep.detach(StreamHandle::from_bits(stream));
            Ok(())
        })
    }
}

/// When `picomcp_endpoint_handle_timeout` next has work (`PICOMCP_NO_DEADLINE`: never).
///
/// # Safety
/// `endpoint` live; `out_deadline_ms` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_endpoint_poll_timeout(
    endpoint: *mut picomcp_endpoint,
    out_deadline_ms: *mut u64,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_endpoint(endpoint, |b| {
            *out(out_deadline_ms)? = b.ep.poll_timeout().unwrap_or(PICOMCP_NO_DEADLINE);
            Ok(())
        })
    }
}

/// Time has passed: idle sessions expire, keep-alive comments become due.
///
/// # Safety
/// `endpoint` live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_endpoint_handle_timeout(
    endpoint: *mut picomcp_endpoint,
    now_ms: u64,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_endpoint(endpoint, |b| {
            b.ep.handle_timeout(now_ms);
            Ok(())
        })
    }
}

/// Whether `slot` holds a live session or is lent to a request (tick only those).
///
/// # Safety
/// `endpoint` live; `out_in_use` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_endpoint_slot_in_use(
    endpoint: *mut picomcp_endpoint,
    slot: usize,
    out_in_use: *mut bool,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_endpoint(endpoint, |b| {
            *out(out_in_use)? = b.ep.slot_in_use(slot);
            Ok(())
        })
    }
}
