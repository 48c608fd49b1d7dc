//! The client side: [`write_request`] and [`ClientResponse`].

use super::chunked::{ChunkError, ChunkedDecoder};
use super::head::parse_length;
use super::{Cursor, header_tokens, put_header_line};
use crate::InsufficientSize;
use crate::http::{Header, Method};

/// Writes a request: `METHOD target HTTP/1.1`, `Host`, `headers` (any `Host`,
/// `Content-Length`, `Transfer-Encoding` or `Connection` among them is left out, as is a
/// name that is not a token; values are cut at CR or LF), `Content-Length` when there is
/// a body or the method is `POST`, the blank line and `body`. Returns the bytes written.
///
/// [`Method::Other`] has no token and is written as `GET`.
///
/// # Errors
/// [`InsufficientSize`] when `out` is too short; nothing usable is written.
pub fn write_request(
    method: Method,
    target: &str,
    host: &str,
    headers: &[Header<'_>],
    body: &[u8],
    out: &mut [u8],
) -> Result<usize, InsufficientSize> {
    let token = match method {
        Method::Other => "GET",
        m => m.as_str(),
    };
    let target = match target.find(['\r', '\n', ' ']) {
        Some(i) => &target[..i],
        None => target,
    };
    let mut c = Cursor::new(out);
    c.put(token.as_bytes());
    c.put(b" ");
    c.put(if target.is_empty() {
        b"/"
    } else {
        target.as_bytes()
    });
    c.put(b" HTTP/1.1\r\n");
    put_header_line(&mut c, "Host", host.as_bytes());
    for h in headers {
        if ["host", "content-length", "transfer-encoding", "connection"]
            .iter()
            .any(|n| h.name.eq_ignore_ascii_case(n))
        {
            continue;
        }
        put_header_line(&mut c, h.name, h.value);
    }
    if !body.is_empty() || method == Method::Post {
        c.put(b"Content-Length: ");
        c.put_decimal(body.len() as u64);
        c.put(b"\r\n");
    }
    c.put(b"\r\n");
    c.put(body);
    c.finish()
}

/// How the body of a response is delimited (RFC 9112 §6.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResponseBody {
    /// No body (an answer to `HEAD`, 1xx, 204, 304).
    None,
    /// Exactly this many bytes.
    Length(u64),
    /// Chunked (an SSE stream, usually).
    Chunked,
    /// Until the server closes the connection.
    UntilClose,
}

/// A parsed response head, borrowed from the bytes given to
/// [`ClientResponse::parse_head`].
#[derive(Clone, Copy, Debug)]
pub struct ResponseHeadView<'a> {
    /// The status code.
    pub status: u16,
    /// The reason phrase.
    pub reason: &'a str,
    /// The header fields, in order.
    pub headers: &'a [Header<'a>],
    /// Bytes of the head (drop them; the body follows).
    pub head_len: usize,
    /// How the body is delimited.
    pub body: ResponseBody,
    /// Whether the connection can carry another request after this response.
    pub keep_alive: bool,
}

impl<'a> ResponseHeadView<'a> {
    /// The first header of this name (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&'a [u8]> {
        self.headers
            .iter()
            .find(|h| h.name.eq_ignore_ascii_case(name))
            .map(|h| h.value)
    }

    /// Whether this is an interim (1xx) response: a final one follows on the same bytes.
    pub fn is_interim(&self) -> bool {
        (100..200).contains(&self.status)
    }
}

/// Why a response could not be read (the server's fault).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ResponseError {
    /// Not an HTTP/1.x response head.
    Malformed,
    /// More header fields than the header array holds.
    TooManyHeaders,
    /// The head is longer than the limit given to [`ClientResponse::new`].
    HeadTooLarge {
        /// The limit.
        limit: usize,
    },
    /// `Content-Length` values that disagree, or not digits.
    BadContentLength,
    /// A chunked body that does not decode.
    BadChunk(ChunkError),
    /// The connection ended before the body did.
    Incomplete,
}

impl core::fmt::Display for ResponseError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            ResponseError::Malformed => f.write_str("malformed response head"),
            ResponseError::TooManyHeaders => f.write_str("too many response header fields"),
            ResponseError::HeadTooLarge { limit } => {
                write!(f, "response head longer than {limit} bytes")
            }
            ResponseError::BadContentLength => f.write_str("invalid response content-length"),
            ResponseError::BadChunk(e) => write!(f, "response body: {e}"),
            ResponseError::Incomplete => f.write_str("connection closed inside the response"),
        }
    }
}

impl core::error::Error for ResponseError {}

/// Body bytes found by [`ClientResponse::read_body`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BodyPiece<'i> {
    /// Bytes of the input taken; offer the rest in the next call.
    pub consumed: usize,
    /// Body data in those bytes (borrowed from the input, possibly empty).
    pub data: &'i [u8],
}

#[derive(Clone, Copy, Debug)]
enum Phase {
    Head,
    Length(u64),
    Chunked(ChunkedDecoder),
    UntilClose,
    Done,
    Failed(ResponseError),
}

/// Reads one response on the client side, on bytes the caller keeps: the head first
/// ([`parse_head`](Self::parse_head), given the bytes received so far until it returns
/// the head), then the body in pieces ([`read_body`](Self::read_body), which removes a
/// chunked coding incrementally, so an endless SSE stream needs no buffer for its
/// whole), then [`is_done`](Self::is_done). Nothing is copied.
///
/// ```
/// use picomcp::http::codec::{ClientResponse, CodecLimits, ResponseBody, write_request};
/// use picomcp::http::{Header, Method};
///
/// let mut out = [0u8; 256];
/// let accept = [Header { name: "Accept", value: b"application/json, text/event-stream" }];
/// let n = write_request(Method::Post, "/mcp", "localhost:8080", &accept, b"{}", &mut out).unwrap();
/// assert!(out[..n].starts_with(b"POST /mcp HTTP/1.1\r\nHost: localhost:8080\r\n"));
/// // send(fd, &out[..n]) …, then recv into `wire`:
/// let wire = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n9\r\ndata: 1\n\n\r\n0\r\n\r\n";
/// let mut resp = ClientResponse::new(Method::Post, &CodecLimits::default());
/// let mut headers = [Header::EMPTY; 16];
/// let head = resp.parse_head(wire, &mut headers).unwrap().unwrap();
/// assert_eq!((head.status, head.body), (200, ResponseBody::Chunked));
/// let mut rest = &wire[head.head_len..];
/// let mut body = Vec::new();
/// while !resp.is_done() {
///     let piece = resp.read_body(rest).unwrap();
///     body.extend_from_slice(piece.data); // or feed it to sse::Decoder
///     rest = &rest[piece.consumed..];
/// }
/// assert_eq!(body, b"data: 1\n\n");
/// ```
#[derive(Clone, Debug)]
pub struct ClientResponse {
    phase: Phase,
    head_request: bool,
    max_head_bytes: usize,
    max_chunk_ext: usize,
    max_trailer_bytes: usize,
}

impl ClientResponse {
    /// A reader for the response to a request of `method` (the answer to `HEAD` has no
    /// body), with a head of at most `max_head_bytes` and the chunk limits of `limits`.
    pub fn new(method: Method, limits: &super::CodecLimits) -> Self {
        ClientResponse {
            phase: Phase::Head,
            head_request: method == Method::Head,
            max_head_bytes: limits.max_head_bytes,
            max_chunk_ext: limits.max_chunk_ext,
            max_trailer_bytes: limits.max_trailer_bytes,
        }
    }

    /// Whether the whole body has been read.
    pub fn is_done(&self) -> bool {
        matches!(self.phase, Phase::Done)
    }

    /// Parses the response head at the start of `input` (all bytes received so far).
    /// `Ok(None)`: incomplete, call again with more. An interim (1xx) head is returned
    /// too; drop its `head_len` bytes and call again for the final one.
    ///
    /// # Errors
    /// A [`ResponseError`] for a malformed or oversized head; the reader stays failed.
    pub fn parse_head<'a, const N: usize>(
        &mut self,
        input: &'a [u8],
        headers: &'a mut [Header<'a>; N],
    ) -> Result<Option<ResponseHeadView<'a>>, ResponseError> {
        match self.phase {
            Phase::Head => {}
            Phase::Failed(e) => return Err(e),
            _ => return Err(ResponseError::Malformed),
        }
        let r = self.head(input, headers);
        if let Err(e) = r {
            self.phase = Phase::Failed(e);
        }
        r
    }

    fn head<'a, const N: usize>(
        &mut self,
        input: &'a [u8],
        headers: &'a mut [Header<'a>; N],
    ) -> Result<Option<ResponseHeadView<'a>>, ResponseError> {
        let window = &input[..input.len().min(self.max_head_bytes)];
        let mut raw = [httparse::EMPTY_HEADER; N];
        let mut resp = httparse::Response::new(&mut raw);
        let head_len = match resp.parse(window) {
            Ok(httparse::Status::Complete(n)) => n,
            Ok(httparse::Status::Partial) if input.len() >= self.max_head_bytes => {
                return Err(ResponseError::HeadTooLarge {
                    limit: self.max_head_bytes,
                });
            }
            Ok(httparse::Status::Partial) => return Ok(None),
            Err(httparse::Error::TooManyHeaders) => return Err(ResponseError::TooManyHeaders),
            Err(_) => return Err(ResponseError::Malformed),
        };
        let status = resp.code.unwrap_or(0);
        let minor = resp.version.unwrap_or(1);
        let mut length: Option<u64> = None;
        let (mut te, mut chunked_last) = (false, false);
        let (mut close, mut keep) = (false, false);
        let mut n = 0;
        for (slot, h) in headers.iter_mut().zip(resp.headers.iter()) {
            *slot = Header {
                name: h.name,
                value: h.value,
            };
            n += 1;
            if h.name.eq_ignore_ascii_case("content-length") {
                let v = parse_length(h.value).ok_or(ResponseError::BadContentLength)?;
                if length.is_some_and(|l| l != v) {
                    return Err(ResponseError::BadContentLength);
                }
                length = Some(v);
            } else if h.name.eq_ignore_ascii_case("transfer-encoding") {
                for t in header_tokens(h.value) {
                    te = true;
                    chunked_last = t.eq_ignore_ascii_case(b"chunked");
                }
            } else if h.name.eq_ignore_ascii_case("connection") {
                for t in header_tokens(h.value) {
                    close |= t.eq_ignore_ascii_case(b"close");
                    keep |= t.eq_ignore_ascii_case(b"keep-alive");
                }
            }
        }
        let interim = (100..200).contains(&status);
        let body = if self.head_request || interim || status == 204 || status == 304 {
            ResponseBody::None
        } else if te && chunked_last {
            ResponseBody::Chunked
        } else if te {
            ResponseBody::UntilClose
        } else if let Some(l) = length {
            ResponseBody::Length(l)
        } else {
            ResponseBody::UntilClose
        };
        let keep_alive =
            (if minor == 1 { !close } else { keep && !close }) && body != ResponseBody::UntilClose;
        if !interim || status == 101 {
            self.phase = match body {
                ResponseBody::None | ResponseBody::Length(0) => Phase::Done,
                ResponseBody::Length(l) => Phase::Length(l),
                ResponseBody::Chunked => Phase::Chunked(ChunkedDecoder::new(
                    self.max_chunk_ext,
                    self.max_trailer_bytes,
                )),
                ResponseBody::UntilClose => Phase::UntilClose,
            };
        }
        Ok(Some(ResponseHeadView {
            status,
            reason: resp.reason.unwrap_or(""),
            headers: &headers[..n],
            head_len,
            body,
            keep_alive,
        }))
    }

    /// Reads body bytes from `input` (the bytes after the head, then whatever follows):
    /// returns how many were taken and the body data among them. Call until
    /// [`is_done`](Self::is_done) (or, for a body that ends with the connection, until
    /// [`handle_eof`](Self::handle_eof)). Bytes after the body are not taken.
    ///
    /// # Errors
    /// [`ResponseError::BadChunk`] for a chunked body that does not decode.
    pub fn read_body<'i>(&mut self, input: &'i [u8]) -> Result<BodyPiece<'i>, ResponseError> {
        match &mut self.phase {
            Phase::Head | Phase::Done => Ok(BodyPiece {
                consumed: 0,
                data: &[],
            }),
            Phase::Failed(e) => Err(*e),
            Phase::UntilClose => Ok(BodyPiece {
                consumed: input.len(),
                data: input,
            }),
            Phase::Length(left) => {
                let take = (input.len() as u64).min(*left) as usize;
                *left -= take as u64;
                if *left == 0 {
                    self.phase = Phase::Done;
                }
                Ok(BodyPiece {
                    consumed: take,
                    data: &input[..take],
                })
            }
            Phase::Chunked(dec) => match dec.decode(input) {
                Ok(step) => {
                    if dec.is_done() {
                        self.phase = Phase::Done;
                    }
                    Ok(BodyPiece {
                        consumed: step.consumed,
                        data: &input[step.data],
                    })
                }
                Err(e) => {
                    self.phase = Phase::Failed(ResponseError::BadChunk(e));
                    Err(ResponseError::BadChunk(e))
                }
            },
        }
    }

    /// The connection ended: a body delimited by the close is now complete.
    ///
    /// # Errors
    /// [`ResponseError::Incomplete`] when the head or a delimited body was not over.
    pub fn handle_eof(&mut self) -> Result<(), ResponseError> {
        match self.phase {
            Phase::Done => Ok(()),
            Phase::UntilClose => {
                self.phase = Phase::Done;
                Ok(())
            }
            Phase::Failed(e) => Err(e),
            _ => {
                self.phase = Phase::Failed(ResponseError::Incomplete);
                Err(ResponseError::Incomplete)
            }
        }
    }
}
