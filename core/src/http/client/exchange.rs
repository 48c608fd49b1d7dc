//! What one exchange of the HTTP client is: the client's configuration, the kinds of
//! exchanges and responses, what to do next, the errors, and the per-exchange state
//! ([`Exchange`]) a caller keeps next to its connection. The shared state and the rules
//! that move it are in the [parent module](super).

use crate::InsufficientSize;
use crate::error::ErrorCode;
use crate::http::{Cursor, reason_phrase};

/// The code of the JSON-RPC error a request answered by an HTTP error status (without a
/// JSON-RPC response in its body) ends with: the first of JSON-RPC's
/// implementation-defined server errors.
pub const HTTP_ERROR_CODE: ErrorCode = ErrorCode(-32000);

/// Bytes of a request id (as written in the message, quotes included) an [`Exchange`]
/// keeps; a longer one is [`WriteError::RequestIdTooLong`].
pub const MAX_REQUEST_ID: usize = 64;

/// Header fields the caller may add to every request (credentials, say); more are
/// [`WriteError::TooManyHeaders`].
pub const MAX_EXTRA_HEADERS: usize = 16;

/// Where the MCP endpoint is, and the bounds of the client's retries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClientConfig<'c> {
    /// The request target: path and query of the MCP endpoint (`/mcp`).
    pub target: &'c str,
    /// The `Host` header (`host:port`).
    pub host: &'c str,
    /// Times a request's SSE stream is resumed before the request is given up
    /// ([`Next::Lost`]).
    pub max_resumes: u8,
    /// The wait before a reconnection when the server sent no `retry` hint.
    pub default_retry_ms: u32,
}

impl<'c> ClientConfig<'c> {
    /// The endpoint at `target` on `host`, with 10 resumptions per request and a 500 ms
    /// wait when the server gives no `retry` hint.
    pub fn new(target: &'c str, host: &'c str) -> Self {
        ClientConfig {
            target,
            host,
            max_resumes: 10,
            default_retry_ms: 500,
        }
    }
}

/// What an [`Exchange`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExchangeKind {
    /// A POST of one message.
    Post,
    /// A GET resuming the SSE stream of a POSTed request.
    Resume,
    /// The GET stream of server-initiated messages.
    ServerStream,
    /// The DELETE that ends the session.
    Delete,
}

/// What the head of a response says its body is ([`HttpClient::handle_response_head`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResponseKind {
    /// An interim (1xx) head: read the next head.
    Interim,
    /// A success without a body (202 for a notification): nothing for the session.
    Accepted,
    /// A success with a body that is not an SSE stream: read it whole, then give it to
    /// [`HttpClient::handle_message`] (one JSON message).
    Json,
    /// An SSE stream: give the data of every event whose data is not empty to
    /// [`HttpClient::handle_message`].
    EventStream,
    /// An error status: read the body whole, give it to [`HttpClient::handle_message`]
    /// when it is not empty (it may be the JSON-RPC answer), then call
    /// [`HttpClient::handle_end`].
    Error {
        /// The status code.
        status: u16,
    },
}

/// What to do once a response has ended ([`HttpClient::handle_end`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    /// Nothing more for this exchange.
    Done,
    /// The request was answered by an HTTP error and no JSON-RPC response: hand the
    /// session [`Exchange::write_error_answer`] so that it ends the request now.
    AnswerWithError {
        /// The status code.
        status: u16,
    },
    /// An HTTP error status the session will not see (a notification refused, a GET or
    /// DELETE refused, a resumption refused): worth a log line.
    Refused {
        /// The status code.
        status: u16,
    },
    /// Wait this long, then GET again with `Last-Event-ID` ([`HttpClient::write_get`]):
    /// a request's stream to resume, or the server stream to reopen.
    Reconnect {
        /// Milliseconds to wait (the server's `retry` hint, or the configured default).
        after_ms: u32,
    },
    /// The request's stream ended without its answer and cannot be resumed (a 2026-07-28
    /// stream, no event id, or resumed too often): its answer will not come.
    Lost,
}

/// Why a request could not be written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum WriteError {
    /// The output buffer is too short: `required` bytes are enough.
    InsufficientSize {
        /// Bytes that suffice.
        required: usize,
    },
    /// More extra headers than [`MAX_EXTRA_HEADERS`].
    TooManyHeaders {
        /// The limit.
        limit: usize,
    },
    /// The request's id is longer than [`MAX_REQUEST_ID`] bytes as written.
    RequestIdTooLong {
        /// The limit.
        limit: usize,
    },
}

impl From<InsufficientSize> for WriteError {
    fn from(e: InsufficientSize) -> Self {
        WriteError::InsufficientSize {
            required: e.required,
        }
    }
}

impl core::fmt::Display for WriteError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            WriteError::InsufficientSize { required } => {
                write!(f, "request buffer too small: {required} bytes needed")
            }
            WriteError::TooManyHeaders { limit } => {
                write!(f, "more than {limit} extra header fields")
            }
            WriteError::RequestIdTooLong { limit } => {
                write!(f, "request id longer than {limit} bytes")
            }
        }
    }
}

impl core::error::Error for WriteError {}

/// Why what a response said could not be kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum CaptureError {
    /// The `Mcp-Session-Id` the server issued does not fit the session id buffer.
    SessionIdTooLong {
        /// Bytes needed.
        required: usize,
    },
    /// The `Mcp-Session-Id` is empty or not visible ASCII (0x21–0x7E, DIGEST §12.6).
    InvalidSessionId,
    /// The negotiated `protocolVersion` does not fit the version buffer.
    VersionTooLong {
        /// Bytes needed.
        required: usize,
    },
}

impl core::fmt::Display for CaptureError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            CaptureError::SessionIdTooLong { required } => {
                write!(f, "session id too long: {required} bytes")
            }
            CaptureError::InvalidSessionId => f.write_str("session id not visible ascii"),
            CaptureError::VersionTooLong { required } => {
                write!(f, "protocol version too long: {required} bytes")
            }
        }
    }
}

impl core::error::Error for CaptureError {}

/// One request written ([`HttpClient::write_post`], [`HttpClient::write_delete`]).
#[derive(Clone, Copy, Debug)]
pub struct Started {
    /// The state of the exchange: keep it with the connection, pass it to the
    /// `handle_*` calls of its response.
    pub exchange: Exchange,
    /// Bytes of the request written at the start of the output buffer.
    pub len: usize,
}

/// One HTTP exchange in flight: a POST of a message (and the GETs resuming its stream),
/// the server stream, or the DELETE. Small and `Copy`: the caller keeps it next to its
/// connection while the shared state stays in the [`HttpClient`].
#[derive(Clone, Copy, Debug)]
pub struct Exchange {
    pub(super) kind: ExchangeKind,
    pub(super) id: [u8; MAX_REQUEST_ID],
    pub(super) id_len: Option<u8>,
    pub(super) initialize: bool,
    pub(super) modern: bool,
    pub(super) status: u16,
    pub(super) body: Option<ResponseKind>,
    pub(super) answered: bool,
    pub(super) resumes: u8,
    pub(super) retry_ms: Option<u32>,
}

impl Exchange {
    pub(super) fn new(kind: ExchangeKind) -> Self {
        Exchange {
            kind,
            id: [0; MAX_REQUEST_ID],
            id_len: None,
            initialize: false,
            modern: false,
            status: 0,
            body: None,
            answered: false,
            resumes: 0,
            retry_ms: None,
        }
    }

    /// What this exchange is.
    pub fn kind(&self) -> ExchangeKind {
        self.kind
    }

    /// The id of the request POSTed, as written in the message (`7`, `"a"`); `None` for
    /// a notification, a response, or an exchange that is not a POST.
    pub fn request_id(&self) -> Option<&str> {
        let n = usize::from(self.id_len?);
        core::str::from_utf8(self.id.get(..n)?).ok()
    }

    /// Whether the server owes an answer on this exchange (a request was POSTed).
    pub fn expects_answer(&self) -> bool {
        self.id_len.is_some()
    }

    /// Whether the JSON-RPC response to the request has been seen.
    pub fn is_answered(&self) -> bool {
        self.answered
    }

    /// Whether the message POSTed is a 2026-07-28 one (it named its version in `_meta`).
    pub fn is_modern(&self) -> bool {
        self.modern
    }

    /// The status of the response, once its head was handled.
    pub fn status(&self) -> Option<u16> {
        (self.status != 0).then_some(self.status)
    }

    /// Writes the JSON-RPC error that ends the request when [`Next::AnswerWithError`]
    /// says so: `{"jsonrpc":"2.0","id":ID,"error":{"code":-32000,"message":"HTTP 404 Not
    /// Found"}}` (the id is `null` for an exchange without one). Returns the bytes
    /// written.
    ///
    /// # Errors
    /// [`InsufficientSize`] when `out` is too short (128 bytes plus the id suffice).
    pub fn write_error_answer(
        &self,
        status: u16,
        out: &mut [u8],
    ) -> Result<usize, InsufficientSize> {
        write_error_answer(self.request_id().unwrap_or("null"), status, out)
    }

    pub(super) fn ok(&self) -> bool {
        (200..300).contains(&self.status)
    }
}

/// Writes the JSON-RPC error for a request whose id is `request_id` (as written) answered
/// by HTTP `status` without a JSON-RPC response: code [`HTTP_ERROR_CODE`], message
/// `HTTP <status> <reason>`. Returns the bytes written.
///
/// # Errors
/// [`InsufficientSize`] when `out` is too short.
pub fn write_error_answer(
    request_id: &str,
    status: u16,
    out: &mut [u8],
) -> Result<usize, InsufficientSize> {
    let mut c = Cursor::new(out);
    c.put(br#"{"jsonrpc":"2.0","id":"#);
    c.put(request_id.as_bytes());
    c.put(br#","error":{"code":-"#);
    c.put_decimal(u64::from(HTTP_ERROR_CODE.0.unsigned_abs()));
    c.put(br#","message":"HTTP "#);
    c.put_decimal(u64::from(status));
    let reason = reason_phrase(status);
    if !reason.is_empty() {
        c.put(b" ");
        c.put(reason.as_bytes());
    }
    c.put(br#""}}"#);
    c.finish()
}
