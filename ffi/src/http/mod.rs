//! Streamable HTTP, part one: the HTTP/1.1 connection codec (server side) over caller
//! memory, and the value types the endpoint ([`crate::endpoint`]) shares with it.
//!
//! A `picomcp_http_connection` is one block: a header (magic word, poison flag, the
//! core `ServerConnection`, the C views of the current request's headers) followed by
//! the receive buffer. Sizes come from `picomcp_http_connection_storage_size`; the
//! memory is the caller's (a static array, calloc at start), so a socket loop serves
//! HTTP with no malloc.
//!
//! # Modules
//!
//! This file holds the C types, the block header (magic word, poison) and the entry
//! point every connection function goes through (`with_conn`). `lifecycle` sizes,
//! creates and ends a connection, `receive` takes bytes in and hands out requests,
//! `send` writes responses; the modules are declared in the order of
//! `include/picomcp.h`.

use core::mem::{align_of, size_of};
use core::ptr;

use picomcp_core::http::codec::{CodecLimits, ServerConnection};
use picomcp_core::http::{BodyLength, Header};

use crate::boundary::{Block, FfiResult, in_bytes, str_arg, with_block};
use crate::status::picomcp_status;
use crate::types::{PICOMCP_NO_DEADLINE, PICOMCP_SESSION_MAX_ALIGN, picomcp_str};

// cbindgen writes functions module by module, in declaration order, and the header must
// keep its order: the blank lines stop rustfmt from sorting these declarations.

mod lifecycle;

mod receive;

mod send;

pub use lifecycle::*;
pub use receive::*;
pub use send::*;

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
