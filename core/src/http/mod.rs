//! Streamable HTTP, sans-IO: the types an HTTP/1.1 connection codec and the MCP endpoint
//! share.
//!
//! Two layers, each usable without the other:
//!
//! - [`codec`]: an HTTP/1.1 connection (TCP bytes in, [`Request`]s out; response heads,
//!   fixed bodies and chunked SSE bytes out), on `httparse`. A host that has only sockets
//!   (C, a device with a TCP stack) serves HTTP with it and no HTTP library.
//! - [`endpoint`]: the Streamable HTTP rules of both protocol eras (DIGEST §12, MODERN
//!   §5.3, §5.7, §13) over a [`Request`] the host got from anywhere: from [`codec`], or
//!   from uvicorn, `node:http` or hyper through an adapter.
//!
//! - [`client`]: the client side's Streamable HTTP rules of both eras (which headers a
//!   POST carries, the session id and negotiated version, what a response means, when an
//!   HTTP error ends a request, resuming SSE streams, the GET stream, DELETE), over the
//!   [`codec`]'s client half, for any host that has sockets.
//! - [`headers`]: the MCP header fields (names, what a POST of a message carries, the
//!   value encoding), shared by both roles.
//! - [`sse`]: Server-Sent Events framing.
//! - [`auth`]: the endpoint as an OAuth 2.1 protected resource (metadata document, Bearer
//!   challenges, the audience, expiry and scope rules around the host's token verifier).
//! - [`oauth`]: the rules of a client's authorization (challenges, discovery order,
//!   resource and issuer checks, scope selection, step-up).
//!
//! Neither allocates: every buffer and table is the caller's, every limit configuration.

pub mod auth;
pub mod client;
pub mod codec;
pub mod endpoint;
pub mod headers;
pub mod oauth;
pub mod params;
pub mod sse;

use crate::InsufficientSize;

/// The request methods the MCP endpoint tells apart; anything else is [`Method::Other`]
/// (answered 405 by the endpoint).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// `GET`: opens the server-to-client SSE stream, or resumes one.
    Get,
    /// `POST`: one JSON-RPC message (or a 2025-03-26 batch) from the client.
    Post,
    /// `DELETE`: ends a legacy-era session.
    Delete,
    /// `OPTIONS`: CORS preflight.
    Options,
    /// `HEAD`.
    Head,
    /// Any other method token.
    Other,
}

impl Method {
    /// The method of a request-line token (case-sensitive, as RFC 9110 §9.1 says).
    pub fn from_token(token: &str) -> Method {
        match token {
            "GET" => Method::Get,
            "POST" => Method::Post,
            "DELETE" => Method::Delete,
            "OPTIONS" => Method::Options,
            "HEAD" => Method::Head,
            _ => Method::Other,
        }
    }

    /// The token of this method (`"OTHER"` for [`Method::Other`]).
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
            Method::Delete => "DELETE",
            Method::Options => "OPTIONS",
            Method::Head => "HEAD",
            Method::Other => "OTHER",
        }
    }
}

/// One header field as received or to be sent. Names compare case-insensitively; values
/// are bytes (HTTP allows obs-text), read as text with [`Header::value_str`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header<'a> {
    /// The field name as it was written.
    pub name: &'a str,
    /// The field value, without surrounding whitespace.
    pub value: &'a [u8],
}

impl<'a> Header<'a> {
    /// An empty header (no name, no value): the filler of a header array, e.g. the one
    /// [`codec::ServerConnection::poll_request`] writes into (`[Header::EMPTY; 32]`).
    pub const EMPTY: Header<'a> = Header {
        name: "",
        value: b"",
    };

    /// The value as UTF-8 text, or `None` when it is not.
    pub fn value_str(&self) -> Option<&'a str> {
        core::str::from_utf8(self.value).ok()
    }
}

/// One complete HTTP request, borrowed from whoever parsed it.
#[derive(Clone, Copy, Debug)]
pub struct Request<'a> {
    /// The method.
    pub method: Method,
    /// The request target as sent (origin form: path and query, e.g. `/mcp?x=1`).
    pub target: &'a str,
    /// Every header field in the order received (repeated names stay separate).
    pub headers: &'a [Header<'a>],
    /// The whole body (the codec has already removed any chunked transfer coding).
    pub body: &'a [u8],
}

impl<'a> Request<'a> {
    /// The first header of this name (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&'a [u8]> {
        self.headers
            .iter()
            .find(|h| h.name.eq_ignore_ascii_case(name))
            .map(|h| h.value)
    }

    /// The value of a header that may appear only once (`Mcp-Session-Id`,
    /// `MCP-Protocol-Version`, `Mcp-Method`, ...): `Ok(None)` when absent.
    ///
    /// # Errors
    /// [`RepeatedHeader`] when the name appears more than once: repeated field lines
    /// mean their comma-joined list (RFC 9110 §5.3), never one valid value, and taking
    /// the first (as [`header`](Self::header) does) would let a request say one thing to
    /// an intermediary that reads the last and another to the endpoint.
    pub fn single_header(&self, name: &str) -> Result<Option<&'a [u8]>, RepeatedHeader> {
        let mut found = self.headers_named(name);
        let first = found.next();
        if found.next().is_some() {
            return Err(RepeatedHeader);
        }
        Ok(first)
    }

    /// Every header of this name (case-insensitive), in order.
    pub fn headers_named<'n>(&self, name: &'n str) -> impl Iterator<Item = &'a [u8]> + 'n
    where
        'a: 'n,
    {
        self.headers
            .iter()
            .filter(move |h| h.name.eq_ignore_ascii_case(name))
            .map(|h| h.value)
    }

    /// The path of the target, without the query.
    pub fn path(&self) -> &'a str {
        self.target.split('?').next().unwrap_or("")
    }
}

/// A header that may appear once appeared more than once
/// ([`Request::single_header`]): the endpoint refuses the request (400).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RepeatedHeader;

/// How the body of a response is delimited on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BodyLength {
    /// No body (204, 304, a 202 for notifications, or any answer to `HEAD`).
    None,
    /// A body of exactly this many bytes (`Content-Length`).
    Fixed(usize),
    /// A stream of unknown length: an SSE stream. HTTP/1.1 sends it chunked.
    Stream,
}

/// The head of one response: status, headers and how its body is delimited. The codec
/// adds `Content-Length` or `Transfer-Encoding: chunked` (from `body`) and `Connection`
/// itself; the endpoint never writes those.
#[derive(Clone, Copy, Debug)]
pub struct ResponseHead<'a> {
    /// The status code.
    pub status: u16,
    /// Header fields, in order.
    pub headers: &'a [Header<'a>],
    /// How the body is delimited.
    pub body: BodyLength,
}

/// The reason phrase the codec writes for a status code (HTTP/1.1 allows any; clients
/// ignore it).
pub fn reason_phrase(status: u16) -> &'static str {
    match status {
        200 => "OK",
        202 => "Accepted",
        204 => "No Content",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        406 => "Not Acceptable",
        408 => "Request Timeout",
        409 => "Conflict",
        411 => "Length Required",
        413 => "Content Too Large",
        414 => "URI Too Long",
        415 => "Unsupported Media Type",
        422 => "Unprocessable Content",
        429 => "Too Many Requests",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        503 => "Service Unavailable",
        505 => "HTTP Version Not Supported",
        _ => "",
    }
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
