//! The response side: each message a session wrote goes to exactly one stream, and the
//! host drains streams as heads, body bytes, waits and ends.

use super::sessions::SlotState;
use super::streams::{self, KEEP_ALIVE, Kind, Mode};
use super::{BodyLength, Endpoint, Head, Poll, ResponseMode, StreamHandle, modern_status, raw_of};
use crate::jsonrpc::{self, Message};
use crate::protocol::{Method, ProtocolVersion};

impl<'e> Endpoint<'e> {
    /// Puts one message the session in `slot` wrote on its stream.
    pub(super) fn route(
        &mut self,
        now: u64,
        slot: usize,
        line: &[u8],
        version: Option<ProtocolVersion>,
    ) {
        let limits = self.config.limits;
        let live_slot = self
            .slots
            .get(slot)
            .is_some_and(|e| e.state != SlotState::Free);
        let parsed = crate::framing::to_str(line)
            .ok()
            .and_then(|t| jsonrpc::parse(t, &limits).ok());
        let (Some(message), true) = (parsed, live_slot) else {
            self.stats.unroutable += 1;
            return;
        };
        let ours = |s: &streams::StreamSlot| s.live && s.slot as usize == slot;
        let target = match message {
            Message::Response(r) => self.answer(slot, raw_of(r.id.as_json())),
            Message::Error(e) => match e.id {
                Some(id) => self.answer(slot, raw_of(id.as_json())),
                // An error about the whole message (no id to echo): it ends the answer.
                None => self
                    .current
                    .filter(|&c| ours(&self.streams[c]))
                    .inspect(|&c| {
                        let s = &mut self.streams[c];
                        s.waiting = 0;
                        s.finished = s.kind == Kind::Post;
                    }),
            },
            Message::Batch(b) => {
                let mut target = None;
                for r in b.iter().flatten() {
                    let id = match r {
                        Message::Response(r) => Some(r.id),
                        Message::Error(e) => e.id,
                        _ => None,
                    };
                    if let Some(id) = id
                        && let Some(t) = self.answer(slot, raw_of(id.as_json()))
                    {
                        target = Some(t);
                    }
                }
                target.or_else(|| self.current.filter(|&c| ours(&self.streams[c])))
            }
            Message::Notification(n) => {
                let token = if Method::from_json_str(n.method) == Some(Method::Progress) {
                    n.params
                        .and_then(|p| p.get("progressToken"))
                        .map(|t| streams::hash(raw_of(t)))
                } else {
                    None
                };
                self.side_target(slot, token)
            }
            Message::Request(_) => self.side_target(slot, None),
        };
        let Some(i) = target else {
            self.stats.unroutable += 1;
            return;
        };
        self.push(now, i, line, version);
    }

    /// The stream waiting for the response with this id; marks it answered.
    fn answer(&mut self, slot: usize, raw_id: &str) -> Option<usize> {
        let h = streams::hash(raw_id);
        let i = self
            .streams
            .iter()
            .position(|s| s.live && s.slot as usize == slot && s.waits_for(h).is_some())?;
        let k = self.streams[i].waits_for(h)?;
        self.streams[i].answered(k);
        Some(i)
    }

    /// Where a server notification or request goes (see [`Endpoint::collect`]).
    fn side_target(&self, slot: usize, token: Option<u64>) -> Option<usize> {
        let json_only = self.config.response_mode == ResponseMode::Json;
        let carries = |s: &streams::StreamSlot| {
            s.live
                && s.slot as usize == slot
                && s.kind == Kind::Post
                && !s.finished
                && !s.closed
                && s.mode != Mode::Json
                && !json_only
        };
        if let Some(t) = token
            && let Some(i) = self
                .streams
                .iter()
                .position(|s| carries(s) && s.progress == t)
        {
            return Some(i);
        }
        if let Some(c) = self.current
            && carries(&self.streams[c])
        {
            return Some(c);
        }
        // A lent (2026-07-28) slot has exactly one stream: its POST's.
        if self.slots[slot].state == SlotState::Stateless {
            return self.streams.iter().position(carries);
        }
        if let Some(g) = self
            .streams
            .iter()
            .position(|s| s.live && s.slot as usize == slot && s.kind == Kind::Get && !s.closed)
        {
            return Some(g);
        }
        (0..self.streams.len())
            .filter(|&i| carries(&self.streams[i]))
            .max_by_key(|&i| self.streams[i].number)
    }

    /// The priming event of a legacy SSE stream (2025-11-25 and later): an id to resume
    /// from and the `retry` hint.
    pub(super) fn prime(&mut self, i: usize) {
        let s = self.streams[i];
        let version = self.slots[s.slot as usize].version;
        if s.modern || version.is_none_or(|v| v < ProtocolVersion::V2025_11_25) {
            return;
        }
        let retry = self.config.retry_ms;
        let at = i * self.per_stream;
        let region = &mut self.bytes[at..at + self.per_stream];
        let _ = self.streams[i].push_priming(region, retry);
    }

    /// Appends one message to stream `i`, deciding JSON or SSE at its first message.
    fn push(&mut self, now: u64, i: usize, line: &[u8], version: Option<ProtocolVersion>) {
        let s = self.streams[i];
        if s.initialize && s.finished {
            // The answer to `initialize`: a result starts the session, an error frees it.
            let e = &mut self.slots[s.slot as usize];
            if e.state == SlotState::Initializing && !line_is_error(line) {
                e.state = SlotState::Legacy;
                e.version = version;
                e.last = now;
                self.stats.sessions_opened += 1;
            }
        }
        if s.mode == Mode::Undecided {
            let mode = match self.config.response_mode {
                ResponseMode::Json => Mode::Json,
                ResponseMode::Sse => Mode::Sse,
                ResponseMode::Auto if s.finished => Mode::Json,
                ResponseMode::Auto => Mode::Sse,
            };
            self.streams[i].mode = mode;
            if mode == Mode::Json && s.modern {
                self.streams[i].status = modern_status(line, &self.config.limits);
            }
            if mode == Mode::Sse {
                self.prime(i);
            }
        }
        let at = i * self.per_stream;
        let region = &mut self.bytes[at..at + self.per_stream];
        let s = &mut self.streams[i];
        let pushed = match s.mode {
            Mode::Json if s.len == 0 => s.push_json(region, line),
            Mode::Json => Err(streams::Full),
            _ => s.push_event(region, line),
        };
        if pushed.is_err() {
            self.stats.overflowed += 1;
            s.closed = true;
            if !s.attached {
                self.free_stream(i);
            }
        }
    }

    // ---- outputs ----

    /// The next thing to write for stream `h`; see [`Poll`].
    pub fn poll_response(&mut self, now: u64, h: StreamHandle) -> Poll<'_> {
        let Some(i) = self.stream_of(h) else {
            return Poll::End;
        };
        let s = self.streams[i];
        if !s.head_sent {
            if s.closed {
                self.free_stream(i);
                return Poll::End;
            }
            if s.mode == Mode::Undecided {
                return Poll::Wait;
            }
            self.streams[i].head_sent = true;
            self.streams[i].last_io = now;
            let (ctype, body): (&'static [u8], _) = match s.mode {
                Mode::Json => (b"application/json", BodyLength::Fixed(s.len)),
                _ => (b"text/event-stream", BodyLength::Stream),
            };
            let mut head = Head::new(s.status, body).with("Content-Type", ctype);
            if s.mode == Mode::Sse {
                head = head.with("Cache-Control", b"no-cache");
            }
            let e = &self.slots[s.slot as usize];
            if s.initialize && e.state == SlotState::Legacy {
                head = head.with("Mcp-Session-Id", e.id_str().as_bytes());
            }
            return Poll::Head(head);
        }
        if let Some(k) = s.comment {
            return Poll::Body(&KEEP_ALIVE[k as usize..]);
        }
        if s.sent >= s.len && s.interrupt && !s.finished && !s.closed {
            // SSE polling: this connection ends; the stream waits for `Last-Event-ID`.
            let s = &mut self.streams[i];
            s.interrupt = false;
            s.attached = false;
            return Poll::End;
        }
        if s.sent < s.len {
            self.streams[i].last_io = now;
            let at = i * self.per_stream;
            return Poll::Body(&self.bytes[at + s.sent..at + s.len]);
        }
        if s.closed || s.finished || s.mode == Mode::Json {
            self.free_stream(i);
            return Poll::End;
        }
        Poll::Wait
    }

    /// SSE polling (2025-11-25): ends the connections of the POST streams of the legacy
    /// session in `slot` that still wait for their response, without ending the streams.
    /// An undecided answer becomes SSE with its priming event (an id and the `retry`
    /// hint); [`Poll::End`] comes once what is pending is out, and the client resumes
    /// with `GET` and `Last-Event-ID`, where the rest of the stream, response included,
    /// is waiting. Lets a server free connections during long work. Streams without an
    /// event id to resume from (before 2025-11-25) are left alone. Returns how many.
    pub fn interrupt(&mut self, slot: usize) -> usize {
        let mut n = 0;
        for i in 0..self.streams.len() {
            let s = self.streams[i];
            if !s.live
                || s.slot as usize != slot
                || s.kind != Kind::Post
                || s.modern
                || s.finished
                || s.closed
                || !s.attached
            {
                continue;
            }
            if s.mode == Mode::Undecided {
                self.streams[i].mode = Mode::Sse;
                self.prime(i);
            }
            let s = &mut self.streams[i];
            if s.mode == Mode::Sse && (s.first_seq == 0 || s.next_seq > 1) {
                s.interrupt = true;
                n += 1;
            }
        }
        n
    }

    /// Marks `n` bytes of the last [`Poll::Body`] of `h` as written.
    pub fn advance(&mut self, h: StreamHandle, n: usize) {
        let Some(i) = self.stream_of(h) else {
            return;
        };
        let s = &mut self.streams[i];
        if let Some(k) = s.comment {
            let k = k as usize + n;
            s.comment = (k < KEEP_ALIVE.len()).then_some(k as u8);
            return;
        }
        s.sent = (s.sent + n).min(s.len);
    }

    /// The connection carrying `h` is gone before [`Poll::End`]. A legacy stream stays
    /// (its events wait for a resumption with `Last-Event-ID`, within its buffer); a
    /// 2026-07-28 stream ends, which cancels its request: the slot is lent anew, and
    /// the host starts a fresh session there on its next use.
    pub fn detach(&mut self, h: StreamHandle) {
        let Some(i) = self.stream_of(h) else {
            return;
        };
        let s = self.streams[i];
        if s.modern || s.closed || (s.finished && s.sent >= s.len) || s.mode == Mode::Json {
            self.free_stream(i);
        } else {
            self.streams[i].attached = false;
            self.streams[i].comment = None;
        }
    }
}

fn line_is_error(line: &[u8]) -> bool {
    let limits = crate::Limits::DEFAULT;
    core::str::from_utf8(line)
        .ok()
        .and_then(|t| jsonrpc::parse(t, &limits).ok())
        .is_some_and(|m| matches!(m, Message::Error(_)))
}
