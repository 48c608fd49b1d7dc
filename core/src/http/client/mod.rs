//! The client side of Streamable HTTP, sans-IO: what an MCP client must do on the wire,
//! in both eras (DIGEST §12, MODERN §5.7, §13), without sockets, threads or a heap.
//!
//! A client session writes JSON-RPC messages and reads JSON-RPC messages. Over HTTP each
//! message it writes becomes one POST, and what comes back (202, one JSON body, or the
//! events of an SSE stream) becomes messages for it again. The rules in between are the
//! same for every host, so they live here and a host (a std program, a C host, a device
//! with a TCP stack) keeps only its connections:
//!
//! - **Headers of a POST** ([`HttpClient::write_post`]). A 2026-07-28 message carries
//!   `MCP-Protocol-Version` from its own `_meta`, `Mcp-Method` and `Mcp-Name` (encoded
//!   with the base64 sentinel when needed, [`headers::encode_value`]) and never a session
//!   id; a legacy message carries the version the `initialize` answer negotiated and the
//!   `Mcp-Session-Id` the server issued.
//! - **What a response means** ([`HttpClient::handle_response_head`],
//!   [`HttpClient::handle_message`]): 202, a JSON body (one message), an SSE stream
//!   (events whose non-empty data are messages) or an error status (its body is for the
//!   session only when it is the JSON-RPC response to the request). The session id is
//!   captured from the head, the negotiated version from the `initialize` answer.
//! - **What to do next** ([`HttpClient::handle_end`] → [`Next`]): a request answered by an
//!   HTTP error without a JSON-RPC answer must still end, with the error
//!   [`Exchange::write_error_answer`] writes (code -32000, `HTTP 404 Not Found`), so the
//!   session need not wait for its timeout and a `server/discover` probe falls back to
//!   `initialize` at once (MODERN §5.7); a legacy request's SSE stream that ended before
//!   its answer and had an event id is resumed with GET and `Last-Event-ID` after the
//!   `retry` hint, a bounded number of times (2026-07-28 streams are not resumable,
//!   MODERN §13.1); the GET stream of server-initiated messages is opened after
//!   `initialize` ([`HttpClient::poll_server_stream`]; 405 means the server has none) and
//!   reopened with `Last-Event-ID` when it ends; DELETE ends a session that has an id
//!   ([`HttpClient::write_delete`]).
//!
//! - **`Mcp-Param-*` headers** ([`param_headers`]): a 2026-07-28 `tools/call` mirrors the
//!   arguments its tool's `inputSchema` marks with `x-mcp-header` (MODERN §13.2, §13.3),
//!   built from the schema the server listed in `tools/list`; the caller passes them to
//!   `write_post` as extra headers. A tool whose annotations are invalid must not be
//!   called over HTTP ([`WriteParamsError::Schema`]).
//!
//! Several exchanges can be in flight at once: the per-exchange state is an [`Exchange`],
//! a small `Copy` value the caller keeps next to its connection; what they share (the
//! session id, the version, the GET stream) is the [`HttpClient`], behind `&mut self`
//! (one lock in a threaded host). Request bytes are written with the codec
//! ([`codec::write_request`](crate::http::codec::write_request)) into the caller's
//! buffer; responses are read with
//! [`ClientResponse`](crate::http::codec::ClientResponse) and
//! [`sse::Decoder`](crate::http::sse::Decoder). Time is the caller's: [`Next::Reconnect`]
//! says how long to wait.
//!
//! ```
//! use picomcp::http::client::{ClientConfig, HttpClient, Next, ResponseKind};
//! use picomcp::http::codec::{ClientResponse, CodecLimits};
//! use picomcp::http::{Header, Method};
//!
//! let (mut sid, mut ver) = ([0u8; 128], [0u8; 32]);
//! let mut client = HttpClient::new(
//!     ClientConfig::new("/mcp", "localhost:8080"),
//!     &mut sid[..],
//!     &mut ver[..],
//! );
//! let mut out = [0u8; 1024];
//! let init = br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}"#;
//! let started = client.write_post(init, &[], &mut out).unwrap();
//! let mut ex = started.exchange;
//! assert!(out[..started.len].starts_with(b"POST /mcp HTTP/1.1\r\nHost: localhost:8080\r\n"));
//! // send(fd, &out[..started.len]) …, then recv:
//! let wire = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nMcp-Session-Id: s1\r\n\
//!     Content-Length: 62\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"protocolVersion\":\"2025-06-18\"}}";
//! let mut resp = ClientResponse::new(Method::Post, &CodecLimits::default());
//! let mut fields = [Header::EMPTY; 16];
//! let head = resp.parse_head(wire, &mut fields).unwrap().unwrap();
//! assert_eq!(client.handle_response_head(&mut ex, &head), Ok(ResponseKind::Json));
//! let body = &wire[head.head_len..];
//! assert_eq!(client.handle_message(&mut ex, body), Ok(true)); // hand it to the session
//! assert_eq!(client.handle_end(&mut ex, None, None), Next::Done);
//! assert_eq!((client.session_id(), client.protocol_version()), (Some("s1"), Some("2025-06-18")));
//! assert!(client.poll_server_stream().is_some()); // now open the GET stream
//!
//! // A later legacy POST carries both.
//! let n = client.write_post(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#, &[], &mut out).unwrap().len;
//! let text = core::str::from_utf8(&out[..n]).unwrap();
//! assert!(text.contains("\r\nMCP-Protocol-Version: 2025-06-18\r\nMcp-Session-Id: s1\r\n"));
//! ```

use crate::http::codec::{ResponseBody, ResponseHeadView, write_request};
use crate::http::headers::{self, message_headers};
use crate::http::params::{self, WriteParamsError};
use crate::http::{Header, Method};
use crate::json::{Json, JsonStr};
use crate::session::Slice;

/// The `Mcp-Param-*` headers of a POST of `message` into `out` (names and values in
/// `buf`); returns how many. Only a 2026-07-28 `tools/call` has any: `schema_of` is
/// asked for the `inputSchema` (JSON text, as the server listed it in `tools/list`) of
/// the tool it names; a tool the client never saw a schema for gets none (MODERN §13.3).
///
/// # Errors
/// [`WriteParamsError`]: the schema's annotations are invalid (the tool must not be
/// called over HTTP), an argument its annotation's type cannot carry, or `buf`/`out`
/// too small.
pub fn param_headers<'s, 'b>(
    message: &[u8],
    schema_of: impl FnOnce(JsonStr<'_>) -> Option<&'s str>,
    buf: &'b mut [u8],
    out: &mut [Header<'b>],
) -> Result<usize, WriteParamsError> {
    let Some(json) = core::str::from_utf8(message)
        .ok()
        .and_then(|t| Json::new(t).ok())
    else {
        return Ok(0);
    };
    let mh = message_headers(json);
    if !mh.request || mh.method != Some("tools/call") || mh.protocol_version.is_none() {
        return Ok(0);
    }
    let Some(schema) = mh.name.and_then(schema_of).and_then(|s| Json::new(s).ok()) else {
        return Ok(0);
    };
    let arguments = json.get("params").and_then(|p| p.get("arguments"));
    params::write_headers(schema, arguments, buf, out)
}

mod exchange;
pub use exchange::*;

/// The headers the client itself adds to one request, at most.
const OWN_HEADERS: usize = 6;

/// `Accept` of a GET (the server stream or a resumption).
const ACCEPT_SSE: &str = "text/event-stream";

/// Where the GET stream of server-initiated messages stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ServerStream {
    /// `initialize` has not succeeded yet.
    NotYet,
    /// To be opened ([`HttpClient::poll_server_stream`]).
    Due,
    /// Handed to the caller.
    Opened,
    /// The server has none (405).
    None,
}

/// The state an MCP client over Streamable HTTP shares across its exchanges: where the
/// endpoint is, the session id the server issued, the negotiated version (legacy era),
/// and the GET stream. See the [module docs](self) for the call order.
///
/// Both buffers are the caller's: the session id and the version are kept there, and one
/// that does not fit is a [`CaptureError`]. 128 bytes for a session id (a UUID is 36, a
/// JWT can be longer) and 32 for a version are ample.
pub struct HttpClient<'c> {
    config: ClientConfig<'c>,
    session_id: Slice<'c, u8>,
    session_id_len: Option<usize>,
    version: Slice<'c, u8>,
    version_len: Option<usize>,
    server_stream: ServerStream,
}

impl core::fmt::Debug for HttpClient<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("HttpClient")
            .field("config", &self.config)
            // The id is a credential of sorts (DIGEST §12.6): not in logs.
            .field("has_session_id", &self.session_id_len.is_some())
            .field("protocol_version", &self.protocol_version())
            .field("server_stream", &self.server_stream)
            .finish()
    }
}

impl<'c> HttpClient<'c> {
    /// A client of the endpoint `config` names, keeping the session id in `session_id`
    /// and the negotiated version in `version`.
    pub fn new(
        config: ClientConfig<'c>,
        session_id: impl Into<Slice<'c, u8>>,
        version: impl Into<Slice<'c, u8>>,
    ) -> Self {
        HttpClient {
            config,
            session_id: session_id.into(),
            session_id_len: None,
            version: version.into(),
            version_len: None,
            server_stream: ServerStream::NotYet,
        }
    }

    /// The configuration.
    pub fn config(&self) -> &ClientConfig<'c> {
        &self.config
    }

    /// The `Mcp-Session-Id` the server issued, once it did.
    pub fn session_id(&self) -> Option<&str> {
        let n = self.session_id_len?;
        core::str::from_utf8(self.session_id.get(..n)?).ok()
    }

    /// The revision the `initialize` answer negotiated (legacy era), once it came.
    pub fn protocol_version(&self) -> Option<&str> {
        let n = self.version_len?;
        core::str::from_utf8(self.version.get(..n)?).ok()
    }

    /// Writes the POST of one message into `out`: `Content-Type`, `Accept` (both media
    /// types), `extra` (the caller's, e.g. `Authorization`), then the MCP headers of the
    /// message's era (see the [module docs](self)), and the message as the body. Returns
    /// the bytes and the [`Exchange`] to keep for its response.
    ///
    /// A message that is not JSON is POSTed as it is, with no MCP headers of its own.
    ///
    /// # Errors
    /// [`WriteError::InsufficientSize`] (nothing usable is written; `required` is
    /// enough), [`WriteError::TooManyHeaders`], [`WriteError::RequestIdTooLong`].
    pub fn write_post(
        &self,
        message: &[u8],
        extra: &[Header<'_>],
        out: &mut [u8],
    ) -> Result<Started, WriteError> {
        if extra.len() > MAX_EXTRA_HEADERS {
            return Err(WriteError::TooManyHeaders {
                limit: MAX_EXTRA_HEADERS,
            });
        }
        let json = core::str::from_utf8(message)
            .ok()
            .and_then(|t| Json::new(t).ok());
        let mh = json.map(message_headers).unwrap_or_default();
        let modern_version = mh.protocol_version.and_then(|v| v.as_plain());
        let mut exchange = Exchange::new(ExchangeKind::Post);
        if mh.request {
            if let Some(id) = json.and_then(|j| j.get("id")) {
                let raw = id.as_raw().as_bytes();
                let slot =
                    exchange
                        .id
                        .get_mut(..raw.len())
                        .ok_or(WriteError::RequestIdTooLong {
                            limit: MAX_REQUEST_ID,
                        })?;
                slot.copy_from_slice(raw);
                // MAX_REQUEST_ID fits a u8.
                exchange.id_len = u8::try_from(raw.len()).ok();
            }
            exchange.initialize = mh.method == Some("initialize");
        }
        exchange.modern = modern_version.is_some();

        // The `Mcp-Name` value is decoded and encoded at the end of `out`, before the
        // request is written at its start.
        let name = if mh.request { mh.name } else { None }.filter(|_| exchange.modern);
        let decoded = name.map_or(0, |n| n.decoded_len());
        let scratch = if name.is_some() {
            decoded + max_encoded_len(decoded)
        } else {
            0
        };
        let Some(front_len) = out.len().checked_sub(scratch) else {
            // Count the request with the longest value the name can take.
            let need = self.post_len(
                message,
                extra,
                &mh,
                exchange.modern,
                max_encoded_len(decoded),
            );
            return Err(WriteError::InsufficientSize {
                required: need.saturating_add(scratch),
            });
        };
        let (front, tail) = out.split_at_mut(front_len);
        let name_value = match name {
            Some(n) => {
                let (dec, enc) = tail.split_at_mut(decoded);
                n.unescape_into(dec)
                    .ok()
                    .and_then(|d| headers::encode_value(d, enc).ok())
            }
            None => None,
        };

        let mut hs = [Header::EMPTY; MAX_EXTRA_HEADERS + OWN_HEADERS];
        let mut n = 0;
        for h in extra {
            hs[n] = *h;
            n += 1;
        }
        let own = self.post_headers(&mh, modern_version, name_value);
        for h in own.iter().flatten() {
            hs[n] = *h;
            n += 1;
        }
        let len = write_request(
            Method::Post,
            self.config.target,
            self.config.host,
            &hs[..n],
            message,
            front,
        )
        .map_err(|e| WriteError::InsufficientSize {
            required: e.required.saturating_add(scratch),
        })?;
        Ok(Started { exchange, len })
    }

    /// The client's own headers of a POST, in order.
    fn post_headers<'h>(
        &'h self,
        mh: &headers::MessageHeaders<'h>,
        modern_version: Option<&'h str>,
        name_value: Option<&'h str>,
    ) -> [Option<Header<'h>>; OWN_HEADERS] {
        let h = |name: &'static str, value: &'h str| {
            Some(Header {
                name,
                value: value.as_bytes(),
            })
        };
        let mut own = [None; OWN_HEADERS];
        own[0] = h("Content-Type", "application/json");
        own[1] = h("Accept", headers::ACCEPT_POST);
        if let Some(v) = modern_version {
            // 2026-07-28: stateless; a request names itself in its headers.
            own[2] = h(headers::PROTOCOL_VERSION, v);
            if mh.request {
                own[3] = mh.method.and_then(|m| h(headers::METHOD, m));
                own[4] = name_value.and_then(|v| h(headers::NAME, v));
            }
        } else {
            own[2] = self
                .protocol_version()
                .and_then(|v| h(headers::PROTOCOL_VERSION, v));
            own[3] = self.session_id().and_then(|v| h(headers::SESSION_ID, v));
        }
        own
    }

    /// Bytes of a POST whose `Mcp-Name` value (if any) is `name_len` bytes.
    fn post_len(
        &self,
        message: &[u8],
        extra: &[Header<'_>],
        mh: &headers::MessageHeaders<'_>,
        modern: bool,
        name_len: usize,
    ) -> usize {
        let modern_version = mh.protocol_version.and_then(|v| v.as_plain());
        let mut hs = [Header::EMPTY; MAX_EXTRA_HEADERS + OWN_HEADERS];
        let mut n = 0;
        for h in extra.iter().take(MAX_EXTRA_HEADERS) {
            hs[n] = *h;
            n += 1;
        }
        let own = self.post_headers(mh, modern_version, None);
        for h in own.iter().flatten() {
            hs[n] = *h;
            n += 1;
        }
        let base = match write_request(
            Method::Post,
            self.config.target,
            self.config.host,
            &hs[..n],
            message,
            &mut [],
        ) {
            Ok(len) => len,
            Err(e) => e.required,
        };
        let name_line = if modern && mh.request && mh.name.is_some() {
            headers::NAME.len() + 4 + name_len
        } else {
            0
        };
        base.saturating_add(name_line)
    }

    /// Writes a GET on `exchange`: resuming the stream of a POSTed request (after
    /// [`Next::Reconnect`]; the exchange becomes a [`ExchangeKind::Resume`]) or opening the
    /// server stream ([`poll_server_stream`](Self::poll_server_stream), and again after
    /// its [`Next::Reconnect`]). Headers: `extra`, `Accept: text/event-stream`, the
    /// session id and the negotiated version when there are, and `Last-Event-ID` when
    /// `last_event_id` is given (the last id any of the exchange's streams carried).
    /// Returns the bytes written.
    ///
    /// # Errors
    /// [`WriteError::InsufficientSize`], [`WriteError::TooManyHeaders`].
    pub fn write_get(
        &self,
        exchange: &mut Exchange,
        last_event_id: Option<&str>,
        extra: &[Header<'_>],
        out: &mut [u8],
    ) -> Result<usize, WriteError> {
        let len = self.write_bodiless(Method::Get, last_event_id, extra, out)?;
        if exchange.kind != ExchangeKind::ServerStream {
            exchange.kind = ExchangeKind::Resume;
        }
        exchange.status = 0;
        exchange.body = None;
        Ok(len)
    }

    /// Writes the DELETE that ends the session, when the server issued a session id
    /// (`Ok(None)` otherwise: there is nothing to end). Headers: `extra`, the session id,
    /// the negotiated version.
    ///
    /// # Errors
    /// [`WriteError::InsufficientSize`], [`WriteError::TooManyHeaders`].
    pub fn write_delete(
        &self,
        extra: &[Header<'_>],
        out: &mut [u8],
    ) -> Result<Option<Started>, WriteError> {
        if self.session_id().is_none() {
            return Ok(None);
        }
        let len = self.write_bodiless(Method::Delete, None, extra, out)?;
        Ok(Some(Started {
            exchange: Exchange::new(ExchangeKind::Delete),
            len,
        }))
    }

    fn write_bodiless(
        &self,
        method: Method,
        last_event_id: Option<&str>,
        extra: &[Header<'_>],
        out: &mut [u8],
    ) -> Result<usize, WriteError> {
        if extra.len() > MAX_EXTRA_HEADERS {
            return Err(WriteError::TooManyHeaders {
                limit: MAX_EXTRA_HEADERS,
            });
        }
        let mut hs = [Header::EMPTY; MAX_EXTRA_HEADERS + OWN_HEADERS];
        let mut n = 0;
        for h in extra {
            hs[n] = *h;
            n += 1;
        }
        if method == Method::Get {
            hs[n] = header("Accept", ACCEPT_SSE);
            n += 1;
        }
        if let Some(id) = self.session_id() {
            hs[n] = header(headers::SESSION_ID, id);
            n += 1;
        }
        if let Some(v) = self.protocol_version() {
            hs[n] = header(headers::PROTOCOL_VERSION, v);
            n += 1;
        }
        if let Some(id) = last_event_id {
            hs[n] = header(headers::LAST_EVENT_ID, id);
            n += 1;
        }
        Ok(write_request(
            method,
            self.config.target,
            self.config.host,
            &hs[..n],
            b"",
            out,
        )?)
    }

    /// Reads the head of a response on `exchange`: keeps the `Mcp-Session-Id` the server
    /// issued (the first one; every later legacy request carries it) and says what the
    /// body is. Call with every head, interim ones included ([`ResponseKind::Interim`]:
    /// read the next).
    ///
    /// # Errors
    /// A [`CaptureError`] when the session id does not fit its buffer or is not visible
    /// ASCII; the exchange is then unusable (end its connection).
    pub fn handle_response_head(
        &mut self,
        exchange: &mut Exchange,
        head: &ResponseHeadView<'_>,
    ) -> Result<ResponseKind, CaptureError> {
        if head.is_interim() {
            return Ok(ResponseKind::Interim);
        }
        if let (None, Some(id)) = (self.session_id_len, head.header(headers::SESSION_ID)) {
            if id.is_empty() || id.iter().any(|b| !(0x21..=0x7e).contains(b)) {
                return Err(CaptureError::InvalidSessionId);
            }
            let slot = self
                .session_id
                .get_mut(..id.len())
                .ok_or(CaptureError::SessionIdTooLong { required: id.len() })?;
            slot.copy_from_slice(id);
            self.session_id_len = Some(id.len());
        }
        exchange.status = head.status;
        let sse = head
            .header("content-type")
            .and_then(|t| t.get(..ACCEPT_SSE.len()))
            .is_some_and(|t| t.eq_ignore_ascii_case(ACCEPT_SSE.as_bytes()));
        let kind = if !exchange.ok() {
            ResponseKind::Error {
                status: head.status,
            }
        } else if sse {
            ResponseKind::EventStream
        } else if matches!(head.body, ResponseBody::None | ResponseBody::Length(0)) {
            ResponseKind::Accepted
        } else {
            ResponseKind::Json
        };
        exchange.body = Some(kind);
        Ok(kind)
    }

    /// Takes one message that came on `exchange` (an SSE event's data, or a whole JSON or
    /// error body): notes whether it answers the request, and keeps the negotiated
    /// `result.protocolVersion` of an `initialize` answer. Returns whether the message is
    /// for the session: every SSE event's data; a success body of a request; an error
    /// body only when it is the JSON-RPC response to the request.
    ///
    /// # Errors
    /// [`CaptureError::VersionTooLong`] when the negotiated version does not fit its
    /// buffer (the message is still noted as the answer).
    pub fn handle_message(
        &mut self,
        exchange: &mut Exchange,
        message: &[u8],
    ) -> Result<bool, CaptureError> {
        let parsed = core::str::from_utf8(message)
            .ok()
            .and_then(|t| Json::new(t).ok());
        let answers = match (exchange.request_id(), parsed) {
            (Some(id), Some(m)) => {
                m.get("method").is_none() && m.get("id").is_some_and(|i| i.as_raw() == id)
            }
            _ => false,
        };
        let deliver = match exchange.body {
            Some(ResponseKind::EventStream) => true,
            _ => answers || (exchange.ok() && exchange.expects_answer()),
        };
        if answers {
            exchange.answered = true;
            if exchange.initialize && !exchange.modern {
                let version = parsed
                    .and_then(|m| m.get("result"))
                    .and_then(|r| r.get("protocolVersion"))
                    .and_then(|v| v.as_str())
                    .and_then(|v| v.as_plain());
                if let Some(v) = version {
                    let slot = self
                        .version
                        .get_mut(..v.len())
                        .ok_or(CaptureError::VersionTooLong { required: v.len() })?;
                    slot.copy_from_slice(v.as_bytes());
                    self.version_len = Some(v.len());
                }
            }
        }
        Ok(deliver)
    }

    /// The response on `exchange` has ended (its body is over, or its SSE stream was cut):
    /// says what to do next. `last_event_id` is the last SSE event id seen on the
    /// exchange's streams so far (keep it across reconnections), `retry_ms` the last
    /// `retry` hint of this stream.
    pub fn handle_end(
        &mut self,
        exchange: &mut Exchange,
        last_event_id: Option<&str>,
        retry_ms: Option<u32>,
    ) -> Next {
        if retry_ms.is_some() {
            exchange.retry_ms = retry_ms;
        }
        let status = exchange.status;
        let ok = exchange.ok();
        let stream = exchange.body == Some(ResponseKind::EventStream);
        match exchange.kind {
            ExchangeKind::Post if !ok => {
                if exchange.expects_answer() && !exchange.answered {
                    Next::AnswerWithError { status }
                } else {
                    Next::Refused { status }
                }
            }
            ExchangeKind::Post => {
                if exchange.initialize && self.server_stream == ServerStream::NotYet {
                    self.server_stream = ServerStream::Due;
                }
                if stream && exchange.expects_answer() && !exchange.answered {
                    self.resume(exchange, last_event_id)
                } else {
                    Next::Done
                }
            }
            ExchangeKind::Resume if exchange.answered => Next::Done,
            ExchangeKind::Resume if !ok => Next::Refused { status },
            ExchangeKind::Resume => self.resume(exchange, last_event_id),
            ExchangeKind::ServerStream if status == 405 => {
                self.server_stream = ServerStream::None;
                Next::Done
            }
            ExchangeKind::ServerStream if ok && stream => Next::Reconnect {
                after_ms: exchange.retry_ms.unwrap_or(self.config.default_retry_ms),
            },
            ExchangeKind::ServerStream => Next::Refused { status },
            ExchangeKind::Delete if ok || status == 405 => Next::Done,
            ExchangeKind::Delete => Next::Refused { status },
        }
    }

    /// A request's stream ended before its answer: resume it (legacy, with an event id,
    /// within the bound) or give it up.
    fn resume(&self, exchange: &mut Exchange, last_event_id: Option<&str>) -> Next {
        if exchange.modern || last_event_id.is_none() || exchange.resumes >= self.config.max_resumes
        {
            return Next::Lost;
        }
        exchange.resumes += 1;
        Next::Reconnect {
            after_ms: exchange.retry_ms.unwrap_or(self.config.default_retry_ms),
        }
    }

    /// The GET stream of server-initiated messages, once it is due (after a successful
    /// `initialize` POST): `Some` once, with the exchange to pass to
    /// [`write_get`](Self::write_get). Never again after that; not at all for a client
    /// that never initialized (2026-07-28 has no GET stream, MODERN §13.1).
    pub fn poll_server_stream(&mut self) -> Option<Exchange> {
        if self.server_stream != ServerStream::Due {
            return None;
        }
        self.server_stream = ServerStream::Opened;
        Some(Exchange::new(ExchangeKind::ServerStream))
    }

    /// Whether the server said it offers no GET stream (405).
    pub fn has_no_server_stream(&self) -> bool {
        self.server_stream == ServerStream::None
    }
}

fn header<'h>(name: &'static str, value: &'h str) -> Header<'h> {
    Header {
        name,
        value: value.as_bytes(),
    }
}

/// The longest [`headers::encode_value`] output for a value of `len` bytes.
fn max_encoded_len(len: usize) -> usize {
    "=?base64??=".len() + len.div_ceil(3) * 4
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_answer_text() {
        let mut out = [0u8; 128];
        let n = write_error_answer("7", 404, &mut out).unwrap();
        assert_eq!(
            &out[..n],
            br#"{"jsonrpc":"2.0","id":7,"error":{"code":-32000,"message":"HTTP 404 Not Found"}}"#
        );
        let n = write_error_answer(r#""a""#, 599, &mut out).unwrap();
        assert_eq!(
            &out[..n],
            br#"{"jsonrpc":"2.0","id":"a","error":{"code":-32000,"message":"HTTP 599"}}"#
        );
        // A short buffer says exactly what the text needs.
        let need = write_error_answer("7", 404, &mut []).unwrap_err().required;
        let text =
            r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32000,"message":"HTTP 404 Not Found"}}"#;
        assert_eq!(need, text.len());
    }

    /// A 2026-07-28 `tools/call` mirrors its annotated arguments, from the schema the
    /// server listed; legacy calls, other methods and unknown tools get none; the POST
    /// then carries them next to the client's own headers.
    #[test]
    fn param_headers_of_modern_tool_calls() {
        const SCHEMA: &str = r#"{"type":"object","properties":{"city":{"type":"string","x-mcp-header":"City"},"n":{"type":"integer","x-mcp-header":"N"}}}"#;
        let modern = br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"lookup","arguments":{"city":"Z\u00fcrich","n":7},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
        let schema_of = |name: JsonStr<'_>| name.eq_str("lookup").then_some(SCHEMA);
        let (mut buf, mut hs) = ([0u8; 256], [Header::EMPTY; params::MAX_PARAMS]);
        let n = param_headers(modern, schema_of, &mut buf, &mut hs).unwrap();
        assert_eq!(n, 2);
        assert_eq!(
            (hs[0].name, hs[0].value),
            ("Mcp-Param-City", &b"=?base64?WsO8cmljaA==?="[..])
        );
        assert_eq!((hs[1].name, hs[1].value), ("Mcp-Param-N", &b"7"[..]));
        let (mut sid, mut ver) = ([0u8; 16], [0u8; 16]);
        let client = HttpClient::new(
            ClientConfig::new("/mcp", "localhost"),
            &mut sid[..],
            &mut ver[..],
        );
        let mut out = [0u8; 1024];
        let len = client.write_post(modern, &hs[..n], &mut out).unwrap().len;
        let text = core::str::from_utf8(&out[..len]).unwrap();
        assert!(
            text.contains("\r\nMcp-Param-City: =?base64?WsO8cmljaA==?=\r\nMcp-Param-N: 7\r\n"),
            "{text}"
        );
        assert!(text.contains("\r\nMcp-Name: lookup\r\n"), "{text}");

        let legacy = br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"lookup","arguments":{"city":"x"}}}"#;
        let none = |m: &[u8]| {
            let (mut buf, mut hs) = ([0u8; 256], [Header::EMPTY; params::MAX_PARAMS]);
            param_headers(m, schema_of, &mut buf, &mut hs)
        };
        assert_eq!(none(legacy), Ok(0));
        let other = br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"other","arguments":{"city":"x"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
        assert_eq!(none(other), Ok(0));
        let (mut buf, mut hs) = ([0u8; 256], [Header::EMPTY; params::MAX_PARAMS]);
        let bad = |_: JsonStr<'_>| {
            Some(r#"{"type":"object","properties":{"x":{"type":"number","x-mcp-header":"X"}}}"#)
        };
        assert_eq!(
            param_headers(modern, bad, &mut buf, &mut hs),
            Err(WriteParamsError::Schema(params::AnnotationError::WrongType))
        );
    }

    #[test]
    fn max_encoded_len_bounds_encode_value() {
        for v in ["", "a", "lookup", " x", "Zürich", "日本語日本語"] {
            assert!(headers::encoded_len(v) <= max_encoded_len(v.len()), "{v}");
        }
    }

    #[test]
    fn exchange_is_small() {
        assert!(core::mem::size_of::<Exchange>() <= 96);
    }
}
