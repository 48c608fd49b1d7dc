//! A connection's output: `100 Continue`, a response head, body bytes (plain or chunked)
//! and the end of a response into a caller buffer (or the size needed), closing after
//! the response, finishing a request, and the two writers that need no connection (an
//! error response, one chunk).

use picomcp_core::http::codec::{write_chunk, write_error_response, write_last_chunk};
use picomcp_core::http::{BodyLength, Header, ResponseHead};

use crate::boundary::{FfiResult, boundary, in_bytes, input, out, out_bytes};
use crate::status::picomcp_status;

use super::{PICOMCP_HTTP_HEAD_MAX_HEADERS, picomcp_http_connection, picomcp_http_head, with_conn};

/// Writes into `out` the bytes `f` produces, or reports the size needed.
fn write_out(
    buf: *mut u8,
    cap: usize,
    out_len: *mut usize,
    f: impl FnOnce(&mut [u8]) -> Result<usize, picomcp_core::InsufficientSize>,
) -> FfiResult {
    // SAFETY: the callers pass their own callers' pointers under the same contract.
    let (n, o) = unsafe { (out(out_len)?, out_bytes(buf, cap)?) };
    match f(o) {
        Ok(w) => {
            *n = w;
            Ok(())
        }
        Err(e) => {
            *n = e.required;
            Err(picomcp_status::BufferTooSmall)
        }
    }
}

/// Writes `HTTP/1.1 100 Continue` when the client waits for it (0 bytes otherwise).
///
/// # Safety
/// `conn` live; `out` `cap` writable bytes; `out_len` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_http_connection_write_continue(
    conn: *mut picomcp_http_connection,
    now_ms: u64,
    out: *mut u8,
    cap: usize,
    out_len: *mut usize,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_conn(conn, |b| {
            write_out(out, cap, out_len, |o| b.conn.write_continue(now_ms, o))
        })
    }
}

/// Writes the head of the response to the current request (status line, `head`'s
/// fields, the framing, `Connection: close` when closing). `PICOMCP_STATUS_BUFFER_TOO_SMALL`:
/// `*out_len` receives the size needed, nothing changed.
///
/// # Safety
/// `conn` live; `head` readable with readable views; `out` `cap` writable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_http_connection_write_head(
    conn: *mut picomcp_http_connection,
    head: *const picomcp_http_head,
    out: *mut u8,
    cap: usize,
    out_len: *mut usize,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_conn(conn, |b| {
            let h = input(head)?;
            let n = h.header_count;
            if n > PICOMCP_HTTP_HEAD_MAX_HEADERS {
                return Err(picomcp_status::InvalidArgument);
            }
            let mut headers = [Header::EMPTY; PICOMCP_HTTP_HEAD_MAX_HEADERS];
            for (slot, c) in headers.iter_mut().zip(&h.headers[..n]) {
                *slot = c.to_rust()?;
            }
            let body = match h.body {
                0 => BodyLength::None,
                1 => BodyLength::Fixed(h.body_len),
                2 => BodyLength::Stream,
                _ => return Err(picomcp_status::InvalidArgument),
            };
            let rh = ResponseHead {
                status: h.status,
                headers: &headers[..n],
                body,
            };
            write_out(out, cap, out_len, |o| b.conn.write_head(&rh, o))
        })
    }
}

/// Writes body bytes of the current response as the head said: as they are, in one
/// chunk when chunked, or nothing when no body is allowed (`HEAD`). `out` needs
/// `len + 20` bytes at most.
///
/// # Safety
/// `conn` live; `data` `len` readable bytes; `out` `cap` writable bytes; `out_len`
/// writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_http_connection_write_body(
    conn: *mut picomcp_http_connection,
    data: *const u8,
    len: usize,
    out: *mut u8,
    cap: usize,
    out_len: *mut usize,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_conn(conn, |b| {
            let d = in_bytes(data, len)?;
            let (allowed, chunked) = (b.conn.body_allowed(), b.conn.is_chunked());
            write_out(out, cap, out_len, |o| {
                if !allowed || d.is_empty() {
                    Ok(0)
                } else if chunked {
                    write_chunk(d, o)
                } else if o.len() < d.len() {
                    Err(picomcp_core::InsufficientSize { required: d.len() })
                } else {
                    o[..d.len()].copy_from_slice(d);
                    Ok(d.len())
                }
            })
        })
    }
}

/// Writes the end of the current response's body: the last chunk when chunked,
/// nothing otherwise. Then call `picomcp_http_connection_finish_request`.
///
/// # Safety
/// `conn` live; `out` `cap` writable bytes; `out_len` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_http_connection_write_end(
    conn: *mut picomcp_http_connection,
    out: *mut u8,
    cap: usize,
    out_len: *mut usize,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_conn(conn, |b| {
            let last = b.conn.body_allowed() && b.conn.is_chunked();
            write_out(out, cap, out_len, |o| {
                if last { write_last_chunk(o) } else { Ok(0) }
            })
        })
    }
}

/// Makes the current (or next) response close the connection.
///
/// # Safety
/// `conn` live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_http_connection_close_after_response(
    conn: *mut picomcp_http_connection,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_conn(conn, |b| {
            b.conn.close_after_response();
            Ok(())
        })
    }
}

/// The whole response to the current request is written: its bytes leave the buffer
/// (the request's views die), and a pipelined request comes out of the next
/// `poll_request`; or the connection closes (state `closed`).
///
/// # Safety
/// `conn` live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_http_connection_finish_request(
    conn: *mut picomcp_http_connection,
    now_ms: u64,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_conn(conn, |b| {
            b.conn.finish_request(now_ms);
            Ok(())
        })
    }
}

/// Writes a complete error response (`status`, a text body, `Connection: close` when
/// `close`): the answer to `PICOMCP_HTTP_POLL_ERROR`, or a host's own 503. 128 bytes
/// always suffice.
///
/// # Safety
/// `out` `cap` writable bytes; `out_len` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_http_write_error_response(
    status: u16,
    close: bool,
    out: *mut u8,
    cap: usize,
    out_len: *mut usize,
) -> picomcp_status {
    boundary(|| {
        write_out(out, cap, out_len, |o| {
            write_error_response(status, close, o)
        })
    })
}

/// Writes `len` bytes as one chunk of a chunked body (`len + 20` bytes suffice);
/// `picomcp_http_connection_write_body` does this for the connection's response.
///
/// # Safety
/// `data` `len` readable bytes; `out` `cap` writable bytes; `out_len` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_http_write_chunk(
    data: *const u8,
    len: usize,
    out: *mut u8,
    cap: usize,
    out_len: *mut usize,
) -> picomcp_status {
    boundary(|| {
        // SAFETY: caller contract.
        let d = unsafe { in_bytes(data, len) }?;
        write_out(out, cap, out_len, |o| write_chunk(d, o))
    })
}
