//! Streamable HTTP, part one: the HTTP/1.1 connection codec (server side) over caller
//! memory, and the value types the endpoint ([`crate::endpoint`]) shares with it.
//!
//! A `picomcp_http_connection` is one block: a header (magic word, poison flag, the
//! core `ServerConnection`, the C views of the current request's headers) followed by
//! the receive buffer. Sizes come from `picomcp_http_connection_storage_size`; the
//! memory is the caller's (a static array, calloc at start), so a socket loop serves
//! HTTP with no malloc.

use core::ffi::c_void;
use core::mem::{align_of, size_of};
use core::ptr;

use picomcp_core::http::codec::{
    CodecLimits, ServerConnection, write_chunk, write_error_response, write_last_chunk,
};
use picomcp_core::http::{BodyLength, Header, Method, ResponseHead};

use crate::boundary::{
    Block, FfiResult, boundary, in_bytes, input, out, out_bytes, str_arg, with_block,
};
use crate::status::picomcp_status;
use crate::types::{PICOMCP_NO_DEADLINE, PICOMCP_SESSION_MAX_ALIGN, picomcp_str};

/// The most header fields a request view holds (`picomcp_http_limits.max_headers` is
/// capped to it).
pub const PICOMCP_HTTP_MAX_HEADERS: usize = 64;
/// The most header fields a `picomcp_http_head` holds.
pub const PICOMCP_HTTP_HEAD_MAX_HEADERS: usize = 6;

/// Request methods (`picomcp_http_request.method`).
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum picomcp_http_method {
    /// `GET`.
    Get = 0,
    /// `POST`.
    Post = 1,
    /// `DELETE`.
    Delete = 2,
    /// `OPTIONS`.
    Options = 3,
    /// `HEAD`.
    Head = 4,
    /// Any other method.
    Other = 5,
}

/// How a response body is delimited (`picomcp_http_head.body`).
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum picomcp_http_body {
    /// No body.
    None = 0,
    /// Exactly `body_len` bytes (`Content-Length`).
    Fixed = 1,
    /// An SSE stream of unknown length (chunked on HTTP/1.1).
    Stream = 2,
}

/// What `picomcp_http_connection_poll_request` found (`picomcp_http_request.kind`).
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum picomcp_http_poll {
    /// No complete request yet: read more (or close the socket when the connection's
    /// state says `closed`).
    None = 0,
    /// A complete request: serve it, then `picomcp_http_connection_finish_request`.
    Request = 1,
    /// The peer sent something that cannot be served: send the answer
    /// `picomcp_http_write_error_response(error_status, true, ...)` writes, then close.
    Error = 2,
}

/// One header field. `name` is text; `value` is bytes (HTTP allows obs-text).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct picomcp_http_header {
    /// The field name.
    pub name: picomcp_str,
    /// The value's first byte.
    pub value: *const u8,
    /// The value's length.
    pub value_len: usize,
}

impl picomcp_http_header {
    const EMPTY: picomcp_http_header = picomcp_http_header {
        name: picomcp_str {
            ptr: ptr::null(),
            len: 0,
        },
        value: ptr::null(),
        value_len: 0,
    };

    fn of(h: &Header<'_>) -> Self {
        picomcp_http_header {
            name: picomcp_str::new(h.name),
            value: h.value.as_ptr(),
            value_len: h.value.len(),
        }
    }

    /// The Rust view of a C header.
    ///
    /// # Safety
    /// The name and value must be readable for `'a`.
    pub(crate) unsafe fn to_rust<'a>(self) -> FfiResult<Header<'a>> {
        // SAFETY: forwarded caller contract.
        let (name, value) = unsafe { (str_arg(self.name)?, in_bytes(self.value, self.value_len)?) };
        Ok(Header { name, value })
    }
}

/// A request view: what `picomcp_http_connection_poll_request` fills, and what
/// `picomcp_endpoint_handle_request` takes (a host with another HTTP parser fills it
/// itself). The views stay valid until `picomcp_http_connection_finish_request` or
/// the next input to the connection.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct picomcp_http_request {
    /// A `picomcp_http_poll` value (only from `poll_request`).
    pub kind: u32,
    /// With `PICOMCP_HTTP_POLL_ERROR`: the status code to answer (400, 408, 411, 413, 414,
    /// 431, 501, 505).
    pub error_status: u16,
    /// A `picomcp_http_method` value.
    pub method: u32,
    /// The request target (path and query).
    pub target: picomcp_str,
    /// The header fields, in the order received.
    pub headers: *const picomcp_http_header,
    /// How many.
    pub header_count: usize,
    /// The whole body (already dechunked).
    pub body: *const u8,
    /// Its length.
    pub body_len: usize,
}

impl picomcp_http_request {
    const EMPTY: picomcp_http_request = picomcp_http_request {
        kind: picomcp_http_poll::None as u32,
        error_status: 0,
        method: picomcp_http_method::Other as u32,
        target: picomcp_str {
            ptr: ptr::null(),
            len: 0,
        },
        headers: ptr::null(),
        header_count: 0,
        body: ptr::null(),
        body_len: 0,
    };
}

/// A response head: status, up to `PICOMCP_HTTP_HEAD_MAX_HEADERS` header fields and the
/// body's framing. The endpoint fills it; a host may build one too (e.g. a 503).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct picomcp_http_head {
    /// The status code.
    pub status: u16,
    /// A `picomcp_http_body` value.
    pub body: u32,
    /// With `PICOMCP_HTTP_BODY_FIXED`: the body's length.
    pub body_len: usize,
    /// The header fields (`Content-Length`, `Transfer-Encoding` and `Connection` are
    /// the codec's: left out if given).
    pub headers: [picomcp_http_header; PICOMCP_HTTP_HEAD_MAX_HEADERS],
    /// How many of `headers` are used.
    pub header_count: usize,
}

impl picomcp_http_head {
    pub(crate) const EMPTY: picomcp_http_head = picomcp_http_head {
        status: 0,
        body: 0,
        body_len: 0,
        headers: [picomcp_http_header::EMPTY; PICOMCP_HTTP_HEAD_MAX_HEADERS],
        header_count: 0,
    };

    /// The C view of a core head (views valid as long as `h`'s).
    pub(crate) fn of(status: u16, body: BodyLength, headers: &[Header<'_>]) -> Self {
        let mut c = Self::EMPTY;
        c.status = status;
        (c.body, c.body_len) = match body {
            BodyLength::None => (picomcp_http_body::None as u32, 0),
            BodyLength::Fixed(n) => (picomcp_http_body::Fixed as u32, n),
            BodyLength::Stream => (picomcp_http_body::Stream as u32, 0),
        };
        for (slot, h) in c.headers.iter_mut().zip(headers) {
            *slot = picomcp_http_header::of(h);
            c.header_count += 1;
        }
        c
    }
}

/// The codec's limits (`picomcp_http_limits_init` fills the defaults). Timeouts of
/// `PICOMCP_NO_DEADLINE` mean no limit.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct picomcp_http_limits {
    /// Header fields in one head (431 beyond; at most `PICOMCP_HTTP_MAX_HEADERS`).
    pub max_headers: usize,
    /// Bytes of a head (431 beyond).
    pub max_head_bytes: usize,
    /// Bytes of a request target (414 beyond).
    pub max_target_bytes: usize,
    /// Bytes of a request body (413 beyond).
    pub max_body: usize,
    /// Milliseconds from the first byte of a head to its end (408 after).
    pub head_timeout_ms: u64,
    /// Milliseconds from a head to the end of its body (408 after).
    pub body_timeout_ms: u64,
    /// Milliseconds a kept-alive connection may wait for its next request.
    pub idle_timeout_ms: u64,
    /// Refuse a `POST` without a length with 411 (else read it as empty).
    pub length_required: bool,
}

fn limits_to_c(l: &CodecLimits) -> picomcp_http_limits {
    picomcp_http_limits {
        max_headers: l.max_headers,
        max_head_bytes: l.max_head_bytes,
        max_target_bytes: l.max_target_bytes,
        max_body: l.max_body,
        head_timeout_ms: l.head_timeout_ms.unwrap_or(PICOMCP_NO_DEADLINE),
        body_timeout_ms: l.body_timeout_ms.unwrap_or(PICOMCP_NO_DEADLINE),
        idle_timeout_ms: l.idle_timeout_ms.unwrap_or(PICOMCP_NO_DEADLINE),
        length_required: l.length_required,
    }
}

fn limits_from_c(c: &picomcp_http_limits) -> CodecLimits {
    let t = |ms: u64| (ms != PICOMCP_NO_DEADLINE).then_some(ms);
    CodecLimits {
        max_headers: c.max_headers.min(PICOMCP_HTTP_MAX_HEADERS),
        max_head_bytes: c.max_head_bytes,
        max_target_bytes: c.max_target_bytes,
        max_body: c.max_body,
        head_timeout_ms: t(c.head_timeout_ms),
        body_timeout_ms: t(c.body_timeout_ms),
        idle_timeout_ms: t(c.idle_timeout_ms),
        length_required: c.length_required,
        ..CodecLimits::default()
    }
}

/// What a connection is doing (`picomcp_http_connection_state` fills it).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct picomcp_http_state {
    /// The connection is over: close the socket.
    pub closed: bool,
    /// The response being written will close the connection.
    pub will_close: bool,
    /// The client waits for `100 Continue` (`picomcp_http_connection_write_continue`).
    pub wants_continue: bool,
    /// The response's body goes chunked (`picomcp_http_connection_write_body` does it).
    pub chunked: bool,
    /// The response may have a body (not for `HEAD`, 204, 304).
    pub body_allowed: bool,
    /// Bytes received and not yet consumed.
    pub buffered: usize,
}

/// An HTTP/1.1 server connection (opaque), in caller memory: see
/// `picomcp_http_connection_storage_size`. Not thread-safe.
pub struct picomcp_http_connection {
    _private: [u8; 0],
}

const CONN_LIVE: u64 = 0x7069_636f_6874_7031; // "picoht p1"
const CONN_DEAD: u64 = 0x7069_636f_6874_7030;

#[repr(C)]
struct ConnBlock {
    magic: u64,
    poisoned: bool,
    conn: ServerConnection<'static>,
    headers: [picomcp_http_header; PICOMCP_HTTP_MAX_HEADERS],
}

const _: () = assert!(align_of::<ConnBlock>() <= PICOMCP_SESSION_MAX_ALIGN);

fn conn_layout(rx_bytes: usize) -> FfiResult<usize> {
    let total = size_of::<ConnBlock>()
        .checked_add(rx_bytes)
        .and_then(|t| t.checked_next_multiple_of(align_of::<ConnBlock>()))
        .ok_or(picomcp_status::InvalidArgument)?;
    if total > isize::MAX as usize || rx_bytes == 0 {
        return Err(picomcp_status::InvalidArgument);
    }
    Ok(total)
}

/// Runs `f` on a live, unpoisoned block ([`with_block`]).
///
/// # Safety
/// As [`with_block`].
unsafe fn with_conn(
    c: *mut picomcp_http_connection,
    f: impl FnOnce(&mut ConnBlock) -> FfiResult,
) -> picomcp_status {
    // SAFETY: forwarded caller contract.
    unsafe { with_block(c.cast::<ConnBlock>(), f) }
}

// SAFETY: `#[repr(C)]` with `magic: u64` first; the init function writes `CONN_LIVE`.
unsafe impl Block for ConnBlock {
    const LIVE: u64 = CONN_LIVE;
    fn poisoned(&mut self) -> &mut bool {
        &mut self.poisoned
    }
}

/// Fills `limits` with the codec's defaults: 32 headers, 8 KiB head, 2 KiB target,
/// 1 MiB body, 10 s for a head, 30 s for a body, 60 s idle, 411 for a `POST` without
/// length.
///
/// # Safety
/// `limits` must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_http_limits_init(
    limits: *mut picomcp_http_limits,
) -> picomcp_status {
    boundary(|| {
        // SAFETY: caller contract.
        *unsafe { out(limits) }? = limits_to_c(&CodecLimits::default());
        Ok(())
    })
}

/// The memory a connection with a receive buffer of `rx_bytes` needs: `*out_size` bytes
/// aligned to `*out_align` (at most 8). Size the buffer for the largest head plus the
/// largest body accepted (`max_head_bytes + max_body`).
///
/// # Safety
/// The out pointers must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_http_connection_storage_size(
    rx_bytes: usize,
    out_size: *mut usize,
    out_align: *mut usize,
) -> picomcp_status {
    boundary(|| {
        // SAFETY: caller contract.
        let (size, align) = unsafe { (out(out_size)?, out(out_align)?) };
        *size = conn_layout(rx_bytes)?;
        *align = align_of::<ConnBlock>();
        Ok(())
    })
}

/// Starts a connection (just accepted, at `now_ms`) in `mem`: `size` bytes, aligned as
/// `picomcp_http_connection_storage_size` said; everything after the header is the
/// receive buffer. `limits` NULL: the defaults. The memory is the connection's until
/// `picomcp_http_connection_deinit`; a connection block may be initialised again after
/// that (one per accepted socket, from a fixed pool).
///
/// # Safety
/// `mem` must be valid for writes of `size` bytes until deinit; `limits` NULL or
/// readable; `out_conn` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_http_connection_init(
    mem: *mut c_void,
    size: usize,
    limits: *const picomcp_http_limits,
    now_ms: u64,
    out_conn: *mut *mut picomcp_http_connection,
) -> picomcp_status {
    boundary(|| {
        // SAFETY: caller contract.
        let o = unsafe { out(out_conn) }?;
        *o = ptr::null_mut();
        if mem.is_null() {
            return Err(picomcp_status::NullArgument);
        }
        let limits = if limits.is_null() {
            CodecLimits::default()
        } else {
            // SAFETY: caller contract (non-NULL here).
            limits_from_c(unsafe { input(limits) }?)
        };
        if !(mem as usize).is_multiple_of(align_of::<ConnBlock>()) {
            return Err(picomcp_status::MemoryMisaligned);
        }
        let header = size_of::<ConnBlock>();
        if size <= header || size > isize::MAX as usize {
            return Err(picomcp_status::MemoryTooSmall);
        }
        let mem = mem.cast::<u8>();
        // SAFETY: `mem` is valid for `size` bytes (caller contract); the receive buffer
        // is the part after the header, disjoint from it, zeroed so it is initialised.
        let rx: &'static mut [u8] = unsafe {
            ptr::write_bytes(mem.add(header), 0, size - header);
            core::slice::from_raw_parts_mut(mem.add(header), size - header)
        };
        let block = ConnBlock {
            magic: CONN_LIVE,
            poisoned: false,
            conn: ServerConnection::new(rx, limits, now_ms),
            headers: [picomcp_http_header::EMPTY; PICOMCP_HTTP_MAX_HEADERS],
        };
        // SAFETY: aligned for ConnBlock and at least its size (checked above).
        unsafe { mem.cast::<ConnBlock>().write(block) };
        *o = mem.cast();
        Ok(())
    })
}

/// Ends a connection; its memory is the caller's again.
///
/// # Safety
/// `conn` must be NULL or a connection `picomcp_http_connection_init` made whose memory
/// is still valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_http_connection_deinit(
    conn: *mut picomcp_http_connection,
) -> picomcp_status {
    // SAFETY: caller contract. (ServerConnection holds no resources: no drop needed.)
    unsafe {
        with_conn(conn, |b| {
            b.magic = CONN_DEAD;
            Ok(())
        })
    }
}

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
