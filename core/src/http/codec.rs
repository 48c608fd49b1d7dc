//! The HTTP/1.1 connection codec of Streamable HTTP, on `httparse`: TCP bytes in,
//! requests out; response heads and chunked SSE bytes out (server side); requests out and
//! responses in (client side). With it, a host that has only sockets (C, a device with a
//! TCP stack) serves or calls MCP over HTTP with no HTTP library.
//!
//! - Server: [`ServerConnection`] over a caller-owned receive buffer: keep-alive,
//!   pipelining, `Content-Length` and chunked request bodies (dechunked in place),
//!   `Expect: 100-continue`, limits on headers, head, target and body
//!   ([`CodecLimits`]), slow-client timers on the caller's clock. What the peer got wrong
//!   is a [`RequestError`] that knows its status code; [`write_error_response`] answers it.
//! - Response bytes: [`ServerConnection::write_head`], then [`write_chunk`] /
//!   [`write_last_chunk`] for an SSE stream.
//! - Client: [`write_request`], then [`ClientResponse`] reads the head and the body
//!   (`Content-Length`, chunked, or until close), and
//!   [`sse::Decoder`](crate::http::sse::Decoder) turns an SSE body into events.
//!
//! Nothing allocates; every output goes into a caller `&mut [u8]` and a short one is an
//! [`InsufficientSize`] error. Nothing reads a clock: time is milliseconds passed in.
//!
//! One step of a server loop (a real host reads a socket instead of the slice):
//!
//! ```
//! use picomcp::http::codec::{CodecLimits, ServerConnection, write_chunk, write_last_chunk};
//! use picomcp::http::{BodyLength, Header, Method, ResponseHead};
//!
//! let mut rx = [0u8; 4096];
//! let mut conn = ServerConnection::new(&mut rx, CodecLimits::default(), 0);
//! let wire = b"POST /mcp HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\n{}";
//! // recv(fd, conn.receive_buffer()) …
//! let room = conn.receive_buffer();
//! room[..wire.len()].copy_from_slice(wire);
//! conn.commit_received(5, wire.len());
//!
//! let mut out = [0u8; 512];
//! let mut headers = [Header::EMPTY; 16];
//! let request = conn.poll_request(5, &mut headers).unwrap().unwrap();
//! assert_eq!((request.method, request.path(), request.body), (Method::Post, "/mcp", &b"{}"[..]));
//! let ct = [Header { name: "Content-Type", value: b"text/event-stream" }];
//! let head = ResponseHead { status: 200, headers: &ct, body: BodyLength::Stream };
//! let mut n = conn.write_head(&head, &mut out).unwrap();
//! assert!(conn.is_chunked());
//! n += write_chunk(b"data: {}\n\n", &mut out[n..]).unwrap();
//! n += write_last_chunk(&mut out[n..]).unwrap();
//! // send(fd, &out[..n]) …
//! assert!(out[..n].starts_with(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"));
//! assert!(out[..n].ends_with(b"\r\n\r\na\r\ndata: {}\n\n\r\n0\r\n\r\n"));
//! conn.finish_request(6);
//! assert!(!conn.is_closed()); // keep-alive: the next request may come
//! assert_eq!(conn.poll_timeout(), Some(6 + 60_000));
//! ```

mod chunked;
mod client;
mod head;
mod server;

pub use chunked::{
    ChunkError, ChunkStep, ChunkedDecoder, LAST_CHUNK, chunk_overhead, write_chunk,
    write_last_chunk,
};
pub use client::{
    BodyPiece, ClientResponse, ResponseBody, ResponseError, ResponseHeadView, write_request,
};
pub use server::ServerConnection;

use crate::InsufficientSize;
use crate::http::reason_phrase;

/// The limits of one connection. Reaching any of them is a typed error
/// ([`RequestError`]), answered with its status code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CodecLimits {
    /// Header fields in one head (431 beyond). The header array given to
    /// [`ServerConnection::poll_request`] caps it too.
    pub max_headers: usize,
    /// Bytes of a head, request line to blank line (431 beyond; 414 when the request
    /// line alone does not fit). The receive buffer's length caps it too.
    pub max_head_bytes: usize,
    /// Bytes of a request target (414 beyond).
    pub max_target_bytes: usize,
    /// Bytes of a (decoded) request body (413 beyond). What the receive buffer can hold
    /// after the head caps it too.
    pub max_body: usize,
    /// Bytes of the extensions of one chunk-size line (400 beyond).
    pub max_chunk_ext: usize,
    /// Bytes of the trailer section of a chunked body (400 beyond).
    pub max_trailer_bytes: usize,
    /// Milliseconds from the first byte of a head to its blank line (slow-loris guard;
    /// 408 after). `None`: no limit.
    pub head_timeout_ms: Option<u64>,
    /// Milliseconds from a complete head (or the `100 Continue`) to the end of its body
    /// (408 after). `None`: no limit.
    pub body_timeout_ms: Option<u64>,
    /// Milliseconds a kept-alive connection may wait for its next request (then it closes
    /// without an answer). `None`: no limit.
    pub idle_timeout_ms: Option<u64>,
    /// Whether a `POST` with neither `Content-Length` nor chunked coding is refused with
    /// 411 (true) or read as an empty body (false, what RFC 9112 §6.3 allows).
    pub length_required: bool,
}

impl Default for CodecLimits {
    /// 32 headers, 8 KiB head, 2 KiB target, 1 MiB body, 256 B of chunk extensions,
    /// 1 KiB of trailers; 10 s for a head, 30 s for a body, 60 s idle; 411 for a `POST`
    /// without length.
    fn default() -> Self {
        CodecLimits {
            max_headers: 32,
            max_head_bytes: 8 * 1024,
            max_target_bytes: 2 * 1024,
            max_body: 1024 * 1024,
            max_chunk_ext: 256,
            max_trailer_bytes: 1024,
            head_timeout_ms: Some(10_000),
            body_timeout_ms: Some(30_000),
            idle_timeout_ms: Some(60_000),
            length_required: true,
        }
    }
}

/// Why a request could not be served: the peer's fault, each kind with the status code
/// to answer ([`status`](Self::status)). The connection is over after any of them
/// ([`must_close`](Self::must_close)): the codec cannot tell where the next request
/// would start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RequestError {
    /// Not an HTTP/1.x head (bad request line, header syntax, bare CR): 400.
    Malformed,
    /// `Content-Length` repeated, a list, or not digits: 400.
    BadContentLength,
    /// `Transfer-Encoding` with `Content-Length`, in HTTP/1.0, or without `chunked`
    /// last (the body's end cannot be known: request smuggling): 400.
    ConflictingFraming,
    /// An HTTP/1.1 request without exactly one `Host`: 400.
    BadHost,
    /// A chunked body that does not decode: 400.
    BadChunk(ChunkError),
    /// A `POST` without `Content-Length` or chunked coding
    /// ([`CodecLimits::length_required`]): 411.
    LengthRequired,
    /// The body is over [`CodecLimits::max_body`] or what the buffer holds: 413.
    BodyTooLarge,
    /// The request target is over [`CodecLimits::max_target_bytes`], or the request
    /// line over the head limit: 414.
    TargetTooLong,
    /// The head is over [`CodecLimits::max_head_bytes`] or the buffer: 431.
    HeadTooLarge,
    /// More header fields than [`CodecLimits::max_headers`] (or the header array): 431.
    TooManyHeaders,
    /// A transfer coding other than `chunked` alone: 501.
    UnsupportedTransferEncoding,
    /// Not HTTP/1.0 or HTTP/1.1: 505.
    UnsupportedVersion,
    /// The head did not arrive within [`CodecLimits::head_timeout_ms`]: 408.
    HeadTimeout,
    /// The body did not arrive within [`CodecLimits::body_timeout_ms`]: 408.
    BodyTimeout,
}

impl RequestError {
    /// The status code that answers this error.
    pub fn status(&self) -> u16 {
        match self {
            RequestError::Malformed
            | RequestError::BadContentLength
            | RequestError::ConflictingFraming
            | RequestError::BadHost
            | RequestError::BadChunk(_) => 400,
            RequestError::LengthRequired => 411,
            RequestError::BodyTooLarge => 413,
            RequestError::TargetTooLong => 414,
            RequestError::HeadTooLarge | RequestError::TooManyHeaders => 431,
            RequestError::UnsupportedTransferEncoding => 501,
            RequestError::UnsupportedVersion => 505,
            RequestError::HeadTimeout | RequestError::BodyTimeout => 408,
        }
    }

    /// Whether the connection must close after the answer: always, today (kept so that
    /// a later, recoverable kind needs no API change).
    pub fn must_close(&self) -> bool {
        true
    }

    /// Writes the answer to this error ([`write_error_response`] with its status and
    /// `Connection: close`); returns the bytes written.
    ///
    /// # Errors
    /// [`InsufficientSize`] when `out` is too short (128 bytes always suffice).
    pub fn write_response(&self, out: &mut [u8]) -> Result<usize, InsufficientSize> {
        write_error_response(self.status(), self.must_close(), out)
    }
}

impl core::fmt::Display for RequestError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let what = match self {
            RequestError::Malformed => "malformed request head",
            RequestError::BadContentLength => "invalid or repeated content-length",
            RequestError::ConflictingFraming => "ambiguous body framing (transfer-encoding)",
            RequestError::BadHost => "missing or repeated host header",
            RequestError::BadChunk(e) => return write!(f, "{e} (400)"),
            RequestError::LengthRequired => "post without content-length",
            RequestError::BodyTooLarge => "request body too large",
            RequestError::TargetTooLong => "request target too long",
            RequestError::HeadTooLarge => "request head too large",
            RequestError::TooManyHeaders => "too many header fields",
            RequestError::UnsupportedTransferEncoding => "unsupported transfer-encoding",
            RequestError::UnsupportedVersion => "unsupported http version",
            RequestError::HeadTimeout => "request head not received in time",
            RequestError::BodyTimeout => "request body not received in time",
        };
        write!(f, "{what} ({})", self.status())
    }
}

impl core::error::Error for RequestError {}

/// Writes a complete error response: the status line, `Content-Type: text/plain`, the
/// length, `Connection: close` when `close`, and the reason phrase as the body. Returns
/// the bytes written.
///
/// # Errors
/// [`InsufficientSize`] when `out` is too short; nothing usable is written.
pub fn write_error_response(
    status: u16,
    close: bool,
    out: &mut [u8],
) -> Result<usize, InsufficientSize> {
    let reason = reason_phrase(status);
    let mut c = Cursor::new(out);
    put_status_line(&mut c, status);
    c.put(b"Content-Type: text/plain; charset=utf-8\r\nContent-Length: ");
    c.put_decimal(reason.len() as u64 + 1);
    c.put(b"\r\n");
    if close {
        c.put(b"Connection: close\r\n");
    }
    c.put(b"\r\n");
    c.put(reason.as_bytes());
    c.put(b"\n");
    c.finish()
}

/// Appends to `out`, or counts the size the whole output needs.
pub(crate) struct Cursor<'o> {
    out: &'o mut [u8],
    at: usize,
    overflow: bool,
}

impl<'o> Cursor<'o> {
    pub(crate) fn new(out: &'o mut [u8]) -> Self {
        Cursor {
            out,
            at: 0,
            overflow: false,
        }
    }

    pub(crate) fn put(&mut self, bytes: &[u8]) {
        let end = self.at.saturating_add(bytes.len());
        if !self.overflow && end <= self.out.len() {
            self.out[self.at..end].copy_from_slice(bytes);
        } else {
            self.overflow = true;
        }
        self.at = end;
    }

    pub(crate) fn put_decimal(&mut self, mut n: u64) {
        let mut d = [0u8; 20];
        let mut i = d.len();
        loop {
            i -= 1;
            d[i] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        self.put(&d[i..]);
    }

    pub(crate) fn finish(self) -> Result<usize, InsufficientSize> {
        if self.overflow {
            Err(InsufficientSize { required: self.at })
        } else {
            Ok(self.at)
        }
    }
}

/// `HTTP/1.1 NNN Reason\r\n` (a status outside 100..=999 is written as 500).
fn put_status_line(c: &mut Cursor<'_>, status: u16) {
    let status = if (100..=999).contains(&status) {
        status
    } else {
        500
    };
    c.put(b"HTTP/1.1 ");
    c.put_decimal(u64::from(status));
    c.put(b" ");
    c.put(reason_phrase(status).as_bytes());
    c.put(b"\r\n");
}

/// Whether `name` is a token (RFC 9110 §5.6.2), the only header names the codec writes.
fn is_token(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// `Name: value\r\n`, unless `name` is not a token; the value is cut at its first CR or
/// LF (no header injection).
fn put_header_line(c: &mut Cursor<'_>, name: &str, value: &[u8]) {
    if !is_token(name) {
        return;
    }
    let end = value
        .iter()
        .position(|&b| b == b'\r' || b == b'\n')
        .unwrap_or(value.len());
    c.put(name.as_bytes());
    c.put(b": ");
    c.put(&value[..end]);
    c.put(b"\r\n");
}

/// The elements of a comma-separated header value, trimmed of spaces and tabs, empty
/// ones skipped.
fn header_tokens(value: &[u8]) -> impl Iterator<Item = &[u8]> {
    value
        .split(|&b| b == b',')
        .map(|t| t.trim_ascii())
        .filter(|t| !t.is_empty())
}
