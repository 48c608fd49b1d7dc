//! Response streams: one per POST that carries requests, one per GET. Each owns an
//! equal share of the caller's stream bytes, which hold the stream's SSE events (or the
//! one JSON body) back to back: the part before `sent` has been handed to the host, the
//! rest waits. Delivered events stay as the replay buffer until room is needed, so a
//! client that resumes with `Last-Event-ID` gets what followed that event on that stream,
//! and never another stream's.

use crate::http::sse;

/// How many JSON-RPC ids one stream waits for at most (a 2025-03-26 batch's requests).
pub const MAX_IDS: usize = 16;

/// What a stream is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// The answer to one POST.
    Post,
    /// A GET stream of a legacy session.
    Get,
}

/// How a POST is answered (GET streams are always SSE).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Not decided until its first message.
    Undecided,
    /// One `application/json` body.
    Json,
    /// `text/event-stream`.
    Sse,
}

/// One stream's bookkeeping; its bytes live in the endpoint's shared byte store.
#[derive(Clone, Copy, Debug)]
pub struct StreamSlot {
    pub(crate) live: bool,
    /// Unique across the endpoint's life (never 0): the first part of event ids.
    pub(crate) number: u32,
    pub(crate) slot: u32,
    pub(crate) kind: Kind,
    pub(crate) mode: Mode,
    /// 2026-07-28 (stateless): not resumable; losing the connection cancels.
    pub(crate) modern: bool,
    /// The POST carried `initialize`: its success mints the session id.
    pub(crate) initialize: bool,
    /// Hashes of the request ids still waiting for their response.
    pub(crate) ids: [u64; MAX_IDS],
    pub(crate) waiting: u8,
    /// Hash of the progress token of a request on this stream (0: none).
    pub(crate) progress: u64,
    pub(crate) status: u16,
    pub(crate) head_sent: bool,
    /// Every response is in: end the stream once delivered.
    pub(crate) finished: bool,
    /// Ended from our side (session gone, overflow): end now.
    pub(crate) closed: bool,
    /// A connection is reading the stream.
    pub(crate) attached: bool,
    /// Bytes stored, and bytes handed to the host.
    pub(crate) len: usize,
    pub(crate) sent: usize,
    /// Sequence number of the first stored event and of the next one.
    pub(crate) first_seq: u32,
    pub(crate) next_seq: u32,
    /// Last time bytes were handed out or a keep-alive was due.
    pub(crate) last_io: u64,
    /// Bytes of the keep-alive comment already handed out (`None`: none due).
    pub(crate) comment: Option<u8>,
    /// When the stream was opened (the oldest detached stream is reclaimed first).
    pub(crate) opened: u64,
    /// End this connection once what is pending is out, keeping the stream (SSE polling).
    pub(crate) interrupt: bool,
}

impl StreamSlot {
    /// A free slot.
    pub const EMPTY: StreamSlot = StreamSlot {
        live: false,
        number: 0,
        slot: 0,
        kind: Kind::Post,
        mode: Mode::Undecided,
        modern: false,
        initialize: false,
        ids: [0; MAX_IDS],
        waiting: 0,
        progress: 0,
        status: 200,
        head_sent: false,
        finished: false,
        closed: false,
        attached: true,
        len: 0,
        sent: 0,
        first_seq: 1,
        next_seq: 1,
        last_io: 0,
        comment: None,
        opened: 0,
        interrupt: false,
    };

    pub(crate) fn waits_for(&self, hash: u64) -> Option<usize> {
        self.ids[..self.waiting as usize]
            .iter()
            .position(|&h| h == hash)
    }

    /// Marks the id at `i` answered.
    pub(crate) fn answered(&mut self, i: usize) {
        let n = self.waiting as usize;
        self.ids.copy_within(i + 1..n, i);
        self.waiting -= 1;
        if self.waiting == 0 && self.kind == Kind::Post {
            self.finished = true;
        }
    }
}

/// The keep-alive comment.
pub(crate) const KEEP_ALIVE: &[u8] = b": keep-alive\n\n";

/// FNV-1a: request ids and progress tokens are matched by the hash of their raw text
/// (the core echoes ids byte for byte).
pub(crate) fn hash(raw: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in raw.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h | 1
}

/// Writes `n` in decimal; returns the digits.
fn decimal(n: u32, buf: &mut [u8; 10]) -> &str {
    let mut i = buf.len();
    let mut n = n;
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    core::str::from_utf8(&buf[i..]).unwrap_or("0")
}

/// An event id `number-seq` in `buf`.
pub(crate) fn event_id(number: u32, seq: u32, buf: &mut [u8; 24]) -> &str {
    let mut a = [0u8; 10];
    let mut b = [0u8; 10];
    let x = decimal(number, &mut a).as_bytes();
    let y = decimal(seq, &mut b).as_bytes();
    buf[..x.len()].copy_from_slice(x);
    buf[x.len()] = b'-';
    buf[x.len() + 1..x.len() + 1 + y.len()].copy_from_slice(y);
    core::str::from_utf8(&buf[..x.len() + 1 + y.len()]).unwrap_or("")
}

/// Parses an event id written by [`event_id`].
pub(crate) fn parse_event_id(value: &[u8]) -> Option<(u32, u32)> {
    let text = core::str::from_utf8(value).ok()?;
    let (a, b) = text.trim().split_once('-')?;
    Some((a.parse().ok()?, b.parse().ok()?))
}

/// Why a message could not be stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Full;

impl StreamSlot {
    /// Drops delivered events from the front until `need` more bytes fit (or nothing
    /// delivered is left). Returns whether they fit.
    fn make_room(&mut self, region: &mut [u8], need: usize) -> bool {
        while self.len + need > region.len() {
            // The first whole event that lies before `sent`.
            let end = match region[..self.sent].windows(2).position(|w| w == b"\n\n") {
                Some(i) => i + 2,
                None => return false,
            };
            region.copy_within(end..self.len, 0);
            self.len -= end;
            self.sent -= end;
            self.first_seq = self.first_seq.wrapping_add(1);
        }
        true
    }

    /// Appends a JSON body (JSON mode).
    pub(crate) fn push_json(&mut self, region: &mut [u8], line: &[u8]) -> Result<(), Full> {
        if self.len + line.len() > region.len() {
            return Err(Full);
        }
        region[self.len..self.len + line.len()].copy_from_slice(line);
        self.len += line.len();
        Ok(())
    }

    /// Appends one message as an SSE event with the next id.
    pub(crate) fn push_event(&mut self, region: &mut [u8], line: &[u8]) -> Result<(), Full> {
        let mut idb = [0u8; 24];
        let id = event_id(self.number, self.next_seq, &mut idb);
        let need = sse::event_len(Some(id), None, line);
        if !self.make_room(region, need) {
            return Err(Full);
        }
        let n =
            sse::write_event(&mut region[self.len..], Some(id), None, line).map_err(|_| Full)?;
        self.len += n;
        self.next_seq = self.next_seq.wrapping_add(1);
        Ok(())
    }

    /// Appends the priming event (an id and a `retry` hint, empty data), sequence 0.
    pub(crate) fn push_priming(&mut self, region: &mut [u8], retry_ms: u32) -> Result<(), Full> {
        let mut idb = [0u8; 24];
        let id = event_id(self.number, 0, &mut idb);
        let n = sse::write_retry(&mut region[self.len..], Some(id), retry_ms).map_err(|_| Full)?;
        self.len += n;
        self.first_seq = 0;
        Ok(())
    }

    /// Rewinds delivery to just after event `seq` (a resumption). Events already dropped
    /// from the replay buffer cannot be replayed: delivery restarts at the oldest kept.
    pub(crate) fn rewind_after(&mut self, region: &[u8], seq: u32) {
        let mut at = 0;
        let mut s = self.first_seq;
        while at < self.len && s <= seq && seq.wrapping_sub(s) < u32::MAX / 2 {
            match region[at..self.len].windows(2).position(|w| w == b"\n\n") {
                Some(i) => at += i + 2,
                None => break,
            }
            s = s.wrapping_add(1);
        }
        self.sent = at;
    }
}

impl super::Endpoint<'_> {
    /// Makes the numbers of the streams opened from now on start at `first` (never 0).
    /// A stream's number is the first part of each of its event ids (`<number>-<seq>`),
    /// so processes of one deployment that take disjoint ranges (process `k`:
    /// `(k << 24) + 1`, room for 16 million streams each before a range wraps into the
    /// next) hand out event ids that name their process: a `GET` with `Last-Event-ID` can
    /// then be routed to the one process whose replay buffer holds that stream
    /// ([`resumes_stream`](Self::resumes_stream); docs/DESIGN.md, "Shared stores").
    pub fn set_first_stream_number(&mut self, first: u32) {
        self.next_number = first.max(1);
    }

    /// The stream number a `Last-Event-ID` value names, if it is one of this endpoint's
    /// event ids (`<number>-<seq>`): what a host or balancer routes a resumption by.
    pub fn resumes_stream(last_event_id: &[u8]) -> Option<u32> {
        parse_event_id(last_event_id).map(|(number, _)| number)
    }
}
