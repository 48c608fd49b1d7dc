//! The server side of an HTTP/1.1 connection: [`ServerConnection`].

use super::chunked::ChunkedDecoder;
use super::head::{Framing, HeadInfo, find_head_end, inspect, origin_form};
use super::{CodecLimits, Cursor, RequestError, put_header_line, put_status_line};
use crate::InsufficientSize;
use crate::http::{BodyLength, Header, Method, Request, ResponseHead};
use crate::session::Slice;

#[derive(Clone, Copy, Debug)]
enum BodyState {
    /// The body ends at this buffer offset.
    Length { end: usize },
    /// Decoded body bytes end at `write`; raw bytes follow it up to `len`.
    Chunked { dec: ChunkedDecoder, write: usize },
}

#[derive(Clone, Copy, Debug)]
enum Phase {
    /// Between requests, nothing buffered, since this time.
    Idle { since: u64 },
    /// Receiving a head whose first byte came at `since`; no blank line before `scan`.
    Head { since: u64, scan: usize },
    /// Receiving the body of a parsed head (the body timer runs from `since`).
    Body {
        head: HeadInfo,
        since: u64,
        body: BodyState,
    },
    /// A whole request: its body is `head_len..body_end`; the next request starts at `end`.
    Ready {
        head: HeadInfo,
        body_end: usize,
        end: usize,
    },
    /// The peer misbehaved; answer the error and close.
    Failed(RequestError),
    /// The connection is over (idle timeout, end of input, or the last response is done).
    Closed,
}

/// How the body of the response being written is framed, set by
/// [`ServerConnection::write_head`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ResponseInfo {
    chunked: bool,
    body_allowed: bool,
}

/// The server side of one HTTP/1.1 connection over a caller-owned receive buffer: TCP
/// bytes in, [`Request`]s out; response heads out. Sans-IO: it never reads a socket or a
/// clock.
///
/// The buffer bounds everything a request holds at once: its head and its (dechunked)
/// body, plus any pipelined bytes after it. Nothing else is allocated.
///
/// # Call order
/// - **Input:** read from the socket into [`receive_buffer`](Self::receive_buffer) and
///   report the count with [`commit_received`](Self::commit_received) (or hand bytes
///   from elsewhere to [`handle_bytes`](Self::handle_bytes)); [`handle_eof`](Self::handle_eof)
///   when the peer shut its side; [`handle_timeout`](Self::handle_timeout) when
///   [`poll_timeout`](Self::poll_timeout)'s deadline has passed.
/// - **After every input,** call [`poll_request`](Self::poll_request):
///   - `Ok(Some(request))`: serve it: [`write_head`](Self::write_head), then the body
///     (for a stream, each piece through [`write_chunk`](super::write_chunk) when
///     [`is_chunked`](Self::is_chunked), then [`write_last_chunk`](super::write_last_chunk)),
///     then [`finish_request`](Self::finish_request). A pipelined request behind it comes
///     out of the next `poll_request`.
///   - `Ok(None)`: nothing complete yet; if [`is_closed`](Self::is_closed), close the
///     socket. While [`wants_continue`](Self::wants_continue), the client waits for
///     [`write_continue`](Self::write_continue).
///   - `Err(e)`: send [`RequestError::write_response`], then close the socket.
///
/// Time is milliseconds on any clock of the caller's, the same one for every call.
pub struct ServerConnection<'b> {
    buf: Slice<'b, u8>,
    len: usize,
    limits: CodecLimits,
    phase: Phase,
    eof: bool,
    close_requested: bool,
    continue_sent: bool,
    response: Option<ResponseInfo>,
}

impl core::fmt::Debug for ServerConnection<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ServerConnection")
            .field("capacity", &self.buf.len())
            .field("len", &self.len)
            .field("limits", &self.limits)
            .field("phase", &self.phase)
            .field("eof", &self.eof)
            .field("close_requested", &self.close_requested)
            .field("continue_sent", &self.continue_sent)
            .field("response", &self.response)
            .finish()
    }
}

impl<'b> ServerConnection<'b> {
    /// A connection that has just been accepted at `now`, receiving into `buf` (which
    /// bounds the head plus body of one request: size it at least
    /// [`CodecLimits::max_head_bytes`] plus the largest body you accept).
    pub fn new(buf: &'b mut [u8], limits: CodecLimits, now: u64) -> Self {
        Self::with_buffer(Slice::Borrowed(buf), limits, now)
    }

    /// As [`new`](Self::new), over a buffer that is either borrowed or (with the `alloc`
    /// feature) owned: a host that keeps connections in a table (an event loop) gives
    /// each its own buffer and takes it back with [`into_buffer`](Self::into_buffer)
    /// for the next connection.
    pub fn with_buffer(buf: Slice<'b, u8>, limits: CodecLimits, now: u64) -> Self {
        ServerConnection {
            buf,
            len: 0,
            limits,
            phase: Phase::Idle { since: now },
            eof: false,
            close_requested: false,
            continue_sent: false,
            response: None,
        }
    }

    /// The receive buffer back, for the next connection (its contents are stale).
    pub fn into_buffer(self) -> Slice<'b, u8> {
        self.buf
    }

    // ---- getters

    /// The limits this connection enforces.
    pub fn limits(&self) -> &CodecLimits {
        &self.limits
    }

    /// Bytes received and not yet consumed by a finished request.
    pub fn buffered(&self) -> usize {
        self.len
    }

    /// Whether the connection is over: close the socket (after writing any response
    /// under way). True after an error, an idle timeout, the peer's end of input between
    /// requests, or [`finish_request`](Self::finish_request) of a response that closes.
    pub fn is_closed(&self) -> bool {
        matches!(self.phase, Phase::Closed | Phase::Failed(_))
    }

    /// Whether the connection will close after the current response (the client asked
    /// for it, HTTP/1.0 without keep-alive, [`close_after_response`](Self::close_after_response),
    /// or an error).
    pub fn will_close(&self) -> bool {
        match self.phase {
            Phase::Ready { head, .. } | Phase::Body { head, .. } => {
                !head.keep_alive || self.close_requested
            }
            Phase::Idle { .. } | Phase::Head { .. } => self.close_requested,
            Phase::Failed(_) | Phase::Closed => true,
        }
    }

    /// Whether the client sent `Expect: 100-continue` and waits for
    /// [`write_continue`](Self::write_continue) before sending the body.
    pub fn wants_continue(&self) -> bool {
        match self.phase {
            Phase::Body { head, body, .. } => {
                let started = match body {
                    BodyState::Length { .. } => self.len > head.head_len,
                    BodyState::Chunked { write, .. } => {
                        self.len > head.head_len || write > head.head_len
                    }
                };
                head.expect_continue && !self.continue_sent && !started
            }
            _ => false,
        }
    }

    /// After [`write_head`](Self::write_head): whether the body must be sent in chunks
    /// ([`write_chunk`](super::write_chunk), then [`write_last_chunk`](super::write_last_chunk)).
    /// False for a fixed body, no body, and a stream to an HTTP/1.0 client (written as
    /// is, ended by closing the connection).
    pub fn is_chunked(&self) -> bool {
        self.response.is_some_and(|r| r.chunked)
    }

    /// After [`write_head`](Self::write_head): whether a body may follow the head (false
    /// for an answer to `HEAD`, for 1xx, 204 and 304).
    pub fn body_allowed(&self) -> bool {
        self.response.is_some_and(|r| r.body_allowed)
    }

    /// When [`handle_timeout`](Self::handle_timeout) should next be called: the end of
    /// the keep-alive idle time, of the head's or of the body's allowance. `None` while a
    /// request is being served or once closed.
    pub fn poll_timeout(&self) -> Option<u64> {
        let (since, limit) = match self.phase {
            Phase::Idle { since } => (since, self.limits.idle_timeout_ms),
            Phase::Head { since, .. } => (since, self.limits.head_timeout_ms),
            Phase::Body { since, .. } => (since, self.limits.body_timeout_ms),
            _ => return None,
        };
        limit.map(|t| since.saturating_add(t))
    }

    // ---- inputs

    /// The free end of the receive buffer: read from the socket into it, then call
    /// [`commit_received`](Self::commit_received) with the count. Empty once closed, or
    /// when the buffer is full (then [`poll_request`](Self::poll_request) reports the
    /// limit that was reached).
    pub fn receive_buffer(&mut self) -> &mut [u8] {
        if self.is_closed() || self.eof {
            return &mut [];
        }
        let len = self.len;
        &mut self.buf[len..]
    }

    /// Records that `n` bytes were written into [`receive_buffer`](Self::receive_buffer)
    /// at `now` (more than it offered counts as what it offered). Then call
    /// [`poll_request`](Self::poll_request).
    pub fn commit_received(&mut self, now: u64, n: usize) {
        let n = n.min(self.receive_buffer().len());
        self.len += n;
        if n > 0 && matches!(self.phase, Phase::Idle { .. }) {
            self.phase = Phase::Head {
                since: now,
                scan: 0,
            };
        }
        self.handle_timeout(now);
    }

    /// Copies as much of `bytes` as fits into the receive buffer and commits it; returns
    /// the count taken (offer the rest after the next [`finish_request`](Self::finish_request)).
    /// The same path as [`receive_buffer`](Self::receive_buffer) plus
    /// [`commit_received`](Self::commit_received), for hosts whose bytes arrive elsewhere.
    pub fn handle_bytes(&mut self, now: u64, bytes: &[u8]) -> usize {
        let room = self.receive_buffer();
        let n = room.len().min(bytes.len());
        room[..n].copy_from_slice(&bytes[..n]);
        self.commit_received(now, n);
        n
    }

    /// The peer closed its sending side. A request already complete is still served; a
    /// partial one is dropped and the connection is closed (no answer is possible).
    pub fn handle_eof(&mut self, now: u64) {
        self.eof = true;
        if self.len == 0 && matches!(self.phase, Phase::Idle { .. }) {
            self.phase = Phase::Closed;
        }
        self.handle_timeout(now);
    }

    /// Applies the timers at `now`: a head or body not complete in time fails with
    /// [`RequestError::HeadTimeout`] / [`RequestError::BodyTimeout`] (answer 408); a
    /// connection idle past [`CodecLimits::idle_timeout_ms`] closes without an answer.
    pub fn handle_timeout(&mut self, now: u64) {
        let Some(deadline) = self.poll_timeout() else {
            return;
        };
        if now < deadline {
            return;
        }
        self.phase = match self.phase {
            Phase::Idle { .. } => Phase::Closed,
            Phase::Head { .. } => Phase::Failed(RequestError::HeadTimeout),
            Phase::Body { .. } => Phase::Failed(RequestError::BodyTimeout),
            p => p,
        };
    }

    // ---- outputs

    /// The next complete request, parsed from the receive buffer; its header views go
    /// into `headers` (at most `N`, and at most [`CodecLimits::max_headers`]). The same
    /// request comes back until [`finish_request`](Self::finish_request).
    ///
    /// `headers` is borrowed for as long as the request: declare the array inside the
    /// serving loop. The call also uses `N` of httparse's header slots on the stack.
    ///
    /// # Errors
    /// A [`RequestError`] when the peer sent something that cannot be served (its
    /// [`status`](RequestError::status) is the answer); the connection is then over and
    /// the same error comes back on every call.
    pub fn poll_request<'a, const N: usize>(
        &'a mut self,
        now: u64,
        headers: &'a mut [Header<'a>; N],
    ) -> Result<Option<Request<'a>>, RequestError> {
        if let Err(e) = self.advance::<N>(now) {
            self.phase = Phase::Failed(e);
        }
        match self.phase {
            Phase::Failed(e) => Err(e),
            Phase::Ready { head, body_end, .. } => {
                let buf: &'a [u8] = &self.buf;
                let mut raw = [httparse::EMPTY_HEADER; N];
                let mut req = httparse::Request::new(&mut raw);
                match req.parse(&buf[..head.head_len]) {
                    Ok(httparse::Status::Complete(_)) => {}
                    _ => return Err(RequestError::Malformed),
                }
                let target = origin_form(req.path.unwrap_or("/"));
                let mut n = 0;
                for (slot, h) in headers.iter_mut().zip(req.headers.iter()) {
                    *slot = Header {
                        name: h.name,
                        value: h.value,
                    };
                    n += 1;
                }
                Ok(Some(Request {
                    method: head.method,
                    target,
                    headers: &headers[..n],
                    body: &buf[head.head_len..body_end],
                }))
            }
            _ => Ok(None),
        }
    }

    /// Writes the head of the response to the current request into `out`: the status
    /// line, `head.headers` (any `Content-Length`, `Transfer-Encoding` or `Connection`
    /// among them is left out, as is a header whose name is not a token; a value is cut
    /// at its first CR or LF), then the framing from `head.body` (`Content-Length`, or
    /// `Transfer-Encoding: chunked` for a stream to an HTTP/1.1 client) and
    /// `Connection: close` when the connection will close. Returns the bytes written.
    ///
    /// Then send the body if [`body_allowed`](Self::body_allowed) (chunked if
    /// [`is_chunked`](Self::is_chunked)), then call [`finish_request`](Self::finish_request).
    ///
    /// # Errors
    /// [`InsufficientSize`] when `out` is too short; nothing changes.
    pub fn write_head(
        &mut self,
        head: &ResponseHead<'_>,
        out: &mut [u8],
    ) -> Result<usize, InsufficientSize> {
        let info = match self.phase {
            Phase::Ready { head, .. } => head,
            _ => HeadInfo {
                head_len: 0,
                minor: 1,
                method: Method::Get,
                keep_alive: false,
                expect_continue: false,
            },
        };
        let no_body_status = head.status < 200 || head.status == 204 || head.status == 304;
        let stream = head.body == BodyLength::Stream && !no_body_status;
        let is_head = info.method == Method::Head;
        let close =
            !info.keep_alive || self.close_requested || (stream && info.minor == 0 && !is_head);
        let mut c = Cursor::new(out);
        put_status_line(&mut c, head.status);
        for h in head.headers {
            if ["content-length", "transfer-encoding", "connection"]
                .iter()
                .any(|n| h.name.eq_ignore_ascii_case(n))
            {
                continue;
            }
            put_header_line(&mut c, h.name, h.value);
        }
        if !no_body_status {
            match head.body {
                BodyLength::None => c.put(b"Content-Length: 0\r\n"),
                BodyLength::Fixed(n) => {
                    c.put(b"Content-Length: ");
                    c.put_decimal(n as u64);
                    c.put(b"\r\n");
                }
                BodyLength::Stream if info.minor == 1 => c.put(b"Transfer-Encoding: chunked\r\n"),
                BodyLength::Stream => {}
            }
        }
        if close {
            c.put(b"Connection: close\r\n");
        } else if info.minor == 0 {
            c.put(b"Connection: keep-alive\r\n");
        }
        c.put(b"\r\n");
        let n = c.finish()?;
        self.close_requested |= close;
        self.response = Some(ResponseInfo {
            chunked: stream && info.minor == 1 && !is_head,
            body_allowed: !no_body_status && !is_head,
        });
        Ok(n)
    }

    /// Writes `HTTP/1.1 100 Continue` (and its blank line) when
    /// [`wants_continue`](Self::wants_continue); returns the bytes written (0 when it
    /// was not wanted). The body timer restarts at `now`.
    ///
    /// # Errors
    /// [`InsufficientSize`] when `out` is too short; nothing changes.
    pub fn write_continue(&mut self, now: u64, out: &mut [u8]) -> Result<usize, InsufficientSize> {
        if !self.wants_continue() {
            return Ok(0);
        }
        let n = super::chunked::put(out, b"HTTP/1.1 100 Continue\r\n\r\n")?;
        self.continue_sent = true;
        if let Phase::Body { since, .. } = &mut self.phase {
            *since = now;
        }
        Ok(n)
    }

    // ---- commands

    /// Makes the current (or next) response close the connection: `write_head` adds
    /// `Connection: close` and [`finish_request`](Self::finish_request) closes.
    pub fn close_after_response(&mut self) {
        self.close_requested = true;
    }

    /// Ends the current request once its whole response has been written: its bytes
    /// leave the buffer, and the next (pipelined) request is parsed by the next
    /// [`poll_request`](Self::poll_request); or the connection closes
    /// ([`is_closed`](Self::is_closed)) if the response said so. Does nothing when no
    /// request is complete.
    pub fn finish_request(&mut self, now: u64) {
        let Phase::Ready { head, end, .. } = self.phase else {
            return;
        };
        self.response = None;
        self.continue_sent = false;
        if !head.keep_alive || self.close_requested {
            self.phase = Phase::Closed;
            return;
        }
        let end = end.min(self.len);
        self.buf.copy_within(end..self.len, 0);
        self.len -= end;
        self.phase = if self.len > 0 {
            Phase::Head {
                since: now,
                scan: 0,
            }
        } else if self.eof {
            Phase::Closed
        } else {
            Phase::Idle { since: now }
        };
    }

    // ---- internals

    /// Parses as far as the buffer allows, moving through the phases.
    fn advance<const N: usize>(&mut self, now: u64) -> Result<(), RequestError> {
        loop {
            match self.phase {
                Phase::Idle { since } => {
                    if self.len == 0 {
                        return Ok(());
                    }
                    self.phase = Phase::Head { since, scan: 0 };
                }
                Phase::Head { since, scan } => {
                    let limit = self.limits.max_head_bytes.min(self.buf.len());
                    let window = &self.buf[..self.len.min(limit)];
                    let Some(end) = find_head_end(window, scan) else {
                        if window.len() >= limit {
                            return Err(if window.contains(&b'\n') {
                                RequestError::HeadTooLarge
                            } else {
                                RequestError::TargetTooLong
                            });
                        }
                        if self.eof {
                            self.phase = Phase::Closed;
                            return Ok(());
                        }
                        self.phase = Phase::Head {
                            since,
                            scan: window.len().saturating_sub(2),
                        };
                        return Ok(());
                    };
                    let max_headers = N.min(self.limits.max_headers);
                    let mut raw = [httparse::EMPTY_HEADER; N];
                    let Some((head, framing)) =
                        inspect(&self.buf[..end], &mut raw[..max_headers], &self.limits)?
                    else {
                        // The blank line was one of the empty lines allowed before a
                        // request line: look further.
                        self.phase = Phase::Head {
                            since,
                            scan: end - 1,
                        };
                        continue;
                    };
                    let room = self.limits.max_body.min(self.buf.len() - head.head_len);
                    let body = match framing {
                        Framing::Length(n) if n > room as u64 => {
                            return Err(RequestError::BodyTooLarge);
                        }
                        Framing::Length(n) => BodyState::Length {
                            end: head.head_len + n as usize,
                        },
                        Framing::Chunked => BodyState::Chunked {
                            dec: ChunkedDecoder::new(
                                self.limits.max_chunk_ext,
                                self.limits.max_trailer_bytes,
                            ),
                            write: head.head_len,
                        },
                    };
                    self.phase = Phase::Body {
                        head,
                        since: now,
                        body,
                    };
                }
                Phase::Body {
                    head,
                    body: BodyState::Length { end },
                    ..
                } => {
                    if self.len < end {
                        if self.eof {
                            self.phase = Phase::Closed;
                        }
                        return Ok(());
                    }
                    self.phase = Phase::Ready {
                        head,
                        body_end: end,
                        end,
                    };
                }
                Phase::Body {
                    head,
                    since,
                    body: BodyState::Chunked { mut dec, mut write },
                } => {
                    let room = self.limits.max_body.min(self.buf.len() - head.head_len);
                    let mut read = write;
                    let mut result = Ok(());
                    while read < self.len && !dec.is_done() {
                        let step = match dec.decode(&self.buf[read..self.len]) {
                            Ok(s) => s,
                            Err(e) => {
                                result = Err(RequestError::BadChunk(e));
                                break;
                            }
                        };
                        let data = read + step.data.start..read + step.data.end;
                        if write - head.head_len + data.len() > room {
                            result = Err(RequestError::BodyTooLarge);
                            break;
                        }
                        let n = data.len();
                        self.buf.copy_within(data, write);
                        write += n;
                        read += step.consumed;
                    }
                    self.buf.copy_within(read..self.len, write);
                    self.len -= read - write;
                    result?;
                    if dec.is_done() {
                        self.phase = Phase::Ready {
                            head,
                            body_end: write,
                            end: write,
                        };
                    } else {
                        if self.len == self.buf.len() {
                            return Err(RequestError::BodyTooLarge);
                        }
                        self.phase = if self.eof {
                            Phase::Closed
                        } else {
                            Phase::Body {
                                head,
                                since,
                                body: BodyState::Chunked { dec, write },
                            }
                        };
                        return Ok(());
                    }
                }
                Phase::Ready { .. } | Phase::Failed(_) | Phase::Closed => return Ok(()),
            }
        }
    }
}
