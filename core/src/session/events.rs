//! The bounded event queue: fixed headers plus the copied JSON text each event borrows.

use super::storage::Slice;

/// Size of one encoded event header.
pub(crate) const HEADER: usize = 40;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum EvKind {
    Negotiated = 1,
    Ready,
    Request,
    Notification,
    Response,
    ErrorResponse,
    TimedOut,
    Cancelled,
    Progress,
    Violation,
    Closed,
    InputRequired,
    SubscriptionAck,
    InvalidResult,
    SubscriptionEnded,
}

impl EvKind {
    fn from_u8(v: u8) -> Option<EvKind> {
        use EvKind::*;
        Some(match v {
            1 => Negotiated,
            2 => Ready,
            3 => Request,
            4 => Notification,
            5 => Response,
            6 => ErrorResponse,
            7 => TimedOut,
            8 => Cancelled,
            9 => Progress,
            10 => Violation,
            11 => Closed,
            12 => InputRequired,
            13 => SubscriptionAck,
            14 => InvalidResult,
            15 => SubscriptionEnded,
            _ => return None,
        })
    }
}

/// The fixed part of a queued event. Spans are offsets into the event's own payload;
/// `a_len == u32::MAX` means "absent".
#[derive(Clone, Copy, Debug)]
pub(crate) struct Header {
    pub(crate) kind: EvKind,
    pub(crate) small: [u8; 3],
    pub(crate) handle: u32,
    pub(crate) a: (u32, u32),
    pub(crate) b: (u32, u32),
    pub(crate) code: i64,
    pub(crate) extra: u32,
}

const ABSENT: (u32, u32) = (0, u32::MAX);

impl Header {
    pub(crate) fn new(kind: EvKind) -> Header {
        Header {
            kind,
            small: [0; 3],
            handle: 0,
            a: ABSENT,
            b: ABSENT,
            code: 0,
            extra: 0,
        }
    }

    fn encode(&self, payload_len: u32, out: &mut [u8]) {
        out[0] = self.kind as u8;
        out[1..4].copy_from_slice(&self.small);
        out[4..8].copy_from_slice(&self.handle.to_le_bytes());
        out[8..12].copy_from_slice(&self.a.0.to_le_bytes());
        out[12..16].copy_from_slice(&self.a.1.to_le_bytes());
        out[16..20].copy_from_slice(&self.b.0.to_le_bytes());
        out[20..24].copy_from_slice(&self.b.1.to_le_bytes());
        out[24..32].copy_from_slice(&self.code.to_le_bytes());
        out[32..36].copy_from_slice(&self.extra.to_le_bytes());
        out[36..40].copy_from_slice(&payload_len.to_le_bytes());
    }

    fn decode(b: &[u8]) -> Option<(Header, u32)> {
        let u = |i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
        let mut code = [0u8; 8];
        code.copy_from_slice(&b[24..32]);
        Some((
            Header {
                kind: EvKind::from_u8(b[0])?,
                small: [b[1], b[2], b[3]],
                handle: u(4),
                a: (u(8), u(12)),
                b: (u(16), u(20)),
                code: i64::from_le_bytes(code),
                extra: u(32),
            },
            u(36),
        ))
    }
}

pub(crate) struct EventQueue<'s> {
    buf: Slice<'s, u8>,
    head: usize,
    tail: usize,
}

impl<'s> EventQueue<'s> {
    pub(crate) fn new(buf: Slice<'s, u8>) -> Self {
        EventQueue {
            buf,
            head: 0,
            tail: 0,
        }
    }

    pub(crate) fn capacity(&self) -> usize {
        self.buf.len()
    }

    pub(crate) fn free(&self) -> usize {
        self.buf.len() - (self.tail - self.head)
    }

    /// Queues an event whose payload is `payload`. Returns false when it does not fit.
    pub(crate) fn push(&mut self, h: &Header, payload: &str) -> bool {
        let need = HEADER + payload.len();
        if need > self.free() {
            return false;
        }
        if self.buf.len() - self.tail < need {
            self.buf.copy_within(self.head..self.tail, 0);
            self.tail -= self.head;
            self.head = 0;
        }
        let t = self.tail;
        h.encode(payload.len() as u32, &mut self.buf[t..t + HEADER]);
        self.buf[t + HEADER..t + need].copy_from_slice(payload.as_bytes());
        self.tail += need;
        true
    }

    /// Queues an event whose payload is `a` followed by `b`.
    pub(crate) fn push_two(&mut self, h: &Header, a: &str, b: &str) -> bool {
        let need = HEADER + a.len() + b.len();
        if need > self.free() {
            return false;
        }
        if self.buf.len() - self.tail < need {
            self.buf.copy_within(self.head..self.tail, 0);
            self.tail -= self.head;
            self.head = 0;
        }
        let t = self.tail;
        h.encode((a.len() + b.len()) as u32, &mut self.buf[t..t + HEADER]);
        self.buf[t + HEADER..t + HEADER + a.len()].copy_from_slice(a.as_bytes());
        self.buf[t + HEADER + a.len()..t + need].copy_from_slice(b.as_bytes());
        self.tail += need;
        true
    }

    /// The payload length of the next event.
    pub(crate) fn peek_len(&self) -> Option<usize> {
        if self.head == self.tail {
            return None;
        }
        Header::decode(&self.buf[self.head..self.head + HEADER]).map(|(_, n)| n as usize)
    }

    /// Takes the next event; its payload stays valid until the next push.
    pub(crate) fn pop(&mut self) -> Option<(Header, &str)> {
        if self.head == self.tail {
            return None;
        }
        let h0 = self.head;
        let (h, len) = Header::decode(&self.buf[h0..h0 + HEADER])?;
        let start = h0 + HEADER;
        let end = start + len as usize;
        self.head = end;
        if self.head == self.tail {
            self.head = 0;
            self.tail = 0;
        }
        // Payloads are copied from validated `&str`s, so this never fails.
        let payload = core::str::from_utf8(&self.buf[start..end]).unwrap_or("");
        Some((h, payload))
    }
}
