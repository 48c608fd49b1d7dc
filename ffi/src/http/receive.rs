//! A connection's input: socket bytes into the receive buffer (written in place or
//! copied), end of input and time, then the parsed request (head, headers, body) as C
//! views, and what the connection is doing.

use picomcp_core::http::{Header, Method};

use crate::boundary::{FfiResult, in_bytes, out};
use crate::status::picomcp_status;
use crate::types::{PICOMCP_NO_DEADLINE, picomcp_str};

use super::{
    PICOMCP_HTTP_MAX_HEADERS, picomcp_http_connection, picomcp_http_header, picomcp_http_method,
    picomcp_http_poll, picomcp_http_request, picomcp_http_state, with_conn,
};

/// Where to read socket bytes: `*out_ptr`, `*out_len` bytes of the receive buffer
/// (`*out_len` 0: the buffer is full; serve the request first). Then
/// `picomcp_http_connection_commit_received` with how many were read.
///
/// # Safety
/// `conn` live; the out pointers writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_http_connection_receive_buffer(
    conn: *mut picomcp_http_connection,
    out_ptr: *mut *mut u8,
    out_len: *mut usize,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_conn(conn, |b| {
            let (p, l) = (out(out_ptr)?, out(out_len)?);
            let buf = b.conn.receive_buffer();
            *p = buf.as_mut_ptr();
            *l = buf.len();
            Ok(())
        })
    }
}

/// `n` bytes were read into the receive buffer.
///
/// # Safety
/// `conn` live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_http_connection_commit_received(
    conn: *mut picomcp_http_connection,
    now_ms: u64,
    n: usize,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_conn(conn, |b| {
            if n > b.conn.receive_buffer().len() {
                return Err(picomcp_status::InvalidArgument);
            }
            b.conn.commit_received(now_ms, n);
            Ok(())
        })
    }
}

/// Copies socket bytes in (instead of reading into the receive buffer); `*out_taken`
/// receives how many fit.
///
/// # Safety
/// `conn` live; `bytes` `len` readable bytes; `out_taken` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_http_connection_handle_bytes(
    conn: *mut picomcp_http_connection,
    now_ms: u64,
    bytes: *const u8,
    len: usize,
    out_taken: *mut usize,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_conn(conn, |b| {
            let t = out(out_taken)?;
            *t = b.conn.handle_bytes(now_ms, in_bytes(bytes, len)?);
            Ok(())
        })
    }
}

/// The peer closed its side.
///
/// # Safety
/// `conn` live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_http_connection_handle_eof(
    conn: *mut picomcp_http_connection,
    now_ms: u64,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_conn(conn, |b| {
            b.conn.handle_eof(now_ms);
            Ok(())
        })
    }
}

/// The deadline of `picomcp_http_connection_poll_timeout` has passed.
///
/// # Safety
/// `conn` live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_http_connection_handle_timeout(
    conn: *mut picomcp_http_connection,
    now_ms: u64,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_conn(conn, |b| {
            b.conn.handle_timeout(now_ms);
            Ok(())
        })
    }
}

/// When the connection's next timer is due (`PICOMCP_NO_DEADLINE`: none).
///
/// # Safety
/// `conn` live; `out_deadline_ms` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_http_connection_poll_timeout(
    conn: *mut picomcp_http_connection,
    out_deadline_ms: *mut u64,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_conn(conn, |b| {
            *out(out_deadline_ms)? = b.conn.poll_timeout().unwrap_or(PICOMCP_NO_DEADLINE);
            Ok(())
        })
    }
}

/// The next complete request (`out->kind`: none yet, a request, or an error to answer).
/// The same request comes back until `picomcp_http_connection_finish_request`. Its views
/// point into the connection and stay valid until then (writing the response does not
/// move them).
///
/// # Safety
/// `conn` live; `out_request` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_http_connection_poll_request(
    conn: *mut picomcp_http_connection,
    now_ms: u64,
    out_request: *mut picomcp_http_request,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_conn(conn, |b| {
            let r = out(out_request)?;
            *r = picomcp_http_request::EMPTY;
            let mut headers = [Header::EMPTY; PICOMCP_HTTP_MAX_HEADERS];
            match b.conn.poll_request(now_ms, &mut headers) {
                Ok(None) => {}
                Err(e) => {
                    r.kind = picomcp_http_poll::Error as u32;
                    r.error_status = e.status();
                }
                Ok(Some(req)) => {
                    for (slot, h) in b.headers.iter_mut().zip(req.headers) {
                        *slot = picomcp_http_header::of(h);
                    }
                    r.kind = picomcp_http_poll::Request as u32;
                    r.method = method_to_c(req.method) as u32;
                    r.target = picomcp_str::new(req.target);
                    r.headers = b.headers.as_ptr();
                    r.header_count = req.headers.len();
                    r.body = req.body.as_ptr();
                    r.body_len = req.body.len();
                }
            }
            Ok(())
        })
    }
}

fn method_to_c(m: Method) -> picomcp_http_method {
    match m {
        Method::Get => picomcp_http_method::Get,
        Method::Post => picomcp_http_method::Post,
        Method::Delete => picomcp_http_method::Delete,
        Method::Options => picomcp_http_method::Options,
        Method::Head => picomcp_http_method::Head,
        Method::Other => picomcp_http_method::Other,
    }
}

pub(crate) fn method_from_c(m: u32) -> FfiResult<Method> {
    Ok(match m {
        0 => Method::Get,
        1 => Method::Post,
        2 => Method::Delete,
        3 => Method::Options,
        4 => Method::Head,
        5 => Method::Other,
        _ => return Err(picomcp_status::InvalidArgument),
    })
}

/// The state flags of the connection.
///
/// # Safety
/// `conn` live; `out_state` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_http_connection_state(
    conn: *mut picomcp_http_connection,
    out_state: *mut picomcp_http_state,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_conn(conn, |b| {
            *out(out_state)? = picomcp_http_state {
                closed: b.conn.is_closed(),
                will_close: b.conn.will_close(),
                wants_continue: b.conn.wants_continue(),
                chunked: b.conn.is_chunked(),
                body_allowed: b.conn.body_allowed(),
                buffered: b.conn.buffered(),
            };
            Ok(())
        })
    }
}
