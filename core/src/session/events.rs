//! The bounded event queue: typed entries ([`EventSlot`]) in one caller array, and the
//! JSON text each event borrows in a byte ring beside it.
//!
//! An entry is the `Copy` part of an [`Event`] (its kind, handles, method, codes,
//! [`Violation`], [`CloseReason`]); its text is the event's payload, copied from the
//! line it came from. Where an event has two texts (an error response's message and
//! data) the entry records where the first ends.

#[cfg(feature = "client")]
use super::pins::ToolDigest;
use super::storage::Slice;
use super::types::{CloseReason, Event, InboundId, OutboundId, Violation};
use crate::framing::line_str;
use crate::json::{Json, JsonStr};
use crate::protocol::{Method, ProtocolVersion};

/// The events one line may queue at most (a request's violation, the handshake's
/// `Negotiated` and `Ready`, ...): room for this many entries is kept before a line is
/// taken.
pub(crate) const PER_LINE: usize = 4;

/// One queued event, without its text. Opaque; size the array with
/// [`Storage`](super::Storage) (32 bytes each on 64-bit targets).
#[derive(Clone, Copy)]
pub struct EventSlot {
    entry: Entry,
    /// Bytes of text this event owns in the ring.
    len: u32,
}

impl EventSlot {
    /// An empty slot, for initialising arrays.
    pub const EMPTY: EventSlot = EventSlot {
        entry: Entry::TimedOut {
            id: OutboundId {
                index: 0,
                generation: 0,
            },
        },
        len: 0,
    };
}

impl Default for EventSlot {
    fn default() -> Self {
        Self::EMPTY
    }
}

/// The `Copy` part of an [`Event`]. "Text" is the event's payload; `has_*` says whether
/// an optional text is present (an absent one is stored as no bytes).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Entry {
    /// Text: the peer's side of the handshake.
    Negotiated {
        version: ProtocolVersion,
    },
    Ready {
        version: ProtocolVersion,
    },
    /// Text: the params.
    Request {
        id: InboundId,
        method: Method,
        has_params: bool,
    },
    /// Text: the params.
    Notification {
        method: Method,
        has_params: bool,
    },
    /// Text: the result.
    Response {
        id: OutboundId,
    },
    /// Text: the message (escaped string body, `message_len` bytes), then the data.
    ErrorResponse {
        id: OutboundId,
        code: i64,
        message_len: u32,
        has_data: bool,
    },
    TimedOut {
        id: OutboundId,
    },
    /// Text: the reason (escaped string body).
    Cancelled {
        id: InboundId,
        has_reason: bool,
    },
    /// Text: the params of `notifications/progress`.
    Progress {
        id: OutboundId,
    },
    /// Text: the `inputRequests` map.
    InputRequired {
        id: OutboundId,
        has_requests: bool,
    },
    /// Text: the honoured filter.
    SubscriptionAck {
        id: OutboundId,
    },
    /// Text: the result.
    InvalidResult {
        id: OutboundId,
    },
    SubscriptionEnded {
        id: OutboundId,
    },
    /// Text: the old digest (32 hex digits), the new one, then the tool name (string
    /// body; `escaped` when it has escapes).
    #[cfg(feature = "client")]
    ToolChanged {
        escaped: bool,
    },
    #[cfg(feature = "client")]
    PinsIncomplete {
        unpinned: u16,
        unreported: u16,
    },
    Violation(Violation),
    Closed(CloseReason),
}

impl Entry {
    /// The public event, borrowing `text`.
    pub(crate) fn event(self, text: &str) -> Event<'_> {
        let json = || Json::from_validated(text);
        let opt = |has: bool| has.then(json);
        match self {
            Entry::Negotiated { version } => Event::Negotiated {
                version,
                peer: json(),
            },
            Entry::Ready { version } => Event::Ready { version },
            Entry::Request {
                id,
                method,
                has_params,
            } => Event::Request {
                id,
                method,
                params: opt(has_params),
            },
            Entry::Notification { method, has_params } => Event::Notification {
                method,
                params: opt(has_params),
            },
            Entry::Response { id } => Event::Response { id, result: json() },
            Entry::ErrorResponse {
                id,
                code,
                message_len,
                has_data,
            } => {
                // `split_at_checked`: the queue wrote the message at this length, so it
                // never fails, and a device image keeps no `str` slicing panic path.
                let (m, d) = text
                    .split_at_checked(message_len as usize)
                    .unwrap_or((text, ""));
                Event::ErrorResponse {
                    id,
                    code,
                    message: jstr(m),
                    data: has_data.then(|| Json::from_validated(d)),
                }
            }
            Entry::TimedOut { id } => Event::TimedOut { id },
            Entry::Cancelled { id, has_reason } => Event::Cancelled {
                id,
                reason: has_reason.then(|| jstr(text)),
            },
            Entry::Progress { id } => {
                let params = json();
                Event::Progress {
                    id,
                    progress: params
                        .get("progress")
                        .and_then(|p| p.as_f64_compact())
                        .unwrap_or(0.0),
                    total: params.get("total").and_then(|p| p.as_f64_compact()),
                    params,
                }
            }
            Entry::InputRequired { id, has_requests } => Event::InputRequired {
                id,
                input_requests: opt(has_requests),
            },
            Entry::SubscriptionAck { id } => Event::SubscriptionAcknowledged {
                id,
                notifications: json(),
            },
            Entry::InvalidResult { id } => Event::InvalidResult { id, result: json() },
            Entry::SubscriptionEnded { id } => Event::SubscriptionEnded { id },
            #[cfg(feature = "client")]
            Entry::ToolChanged { escaped } => {
                let digest = |r: core::ops::Range<usize>| {
                    text.get(r)
                        .and_then(ToolDigest::from_hex)
                        .unwrap_or_default()
                };
                Event::ToolChanged {
                    old: digest(0..32),
                    new: digest(32..64),
                    name: JsonStr::from_validated(text.get(64..).unwrap_or(""), escaped),
                }
            }
            #[cfg(feature = "client")]
            Entry::PinsIncomplete {
                unpinned,
                unreported,
            } => Event::PinsIncomplete {
                unpinned,
                unreported,
            },
            Entry::Violation(v) => Event::PeerViolation(v),
            Entry::Closed(r) => Event::Closed(r),
        }
    }
}

/// Entries in a ring over `slots`; their texts, in the same order, in `text`
/// (`[t_head, t_tail)` is in use; space is reclaimed by moving it to the front).
pub(crate) struct EventQueue<'s> {
    slots: Slice<'s, EventSlot>,
    head: usize,
    count: usize,
    text: Slice<'s, u8>,
    t_head: usize,
    t_tail: usize,
}

impl<'s> EventQueue<'s> {
    pub(crate) fn new(slots: Slice<'s, EventSlot>, text: Slice<'s, u8>) -> Self {
        EventQueue {
            slots,
            head: 0,
            count: 0,
            text,
            t_head: 0,
            t_tail: 0,
        }
    }

    /// Entries the queue can hold.
    pub(crate) fn capacity(&self) -> usize {
        self.slots.len()
    }

    /// Text bytes the queue can hold.
    pub(crate) fn text_capacity(&self) -> usize {
        self.text.len()
    }

    /// Entries still free.
    pub(crate) fn free(&self) -> usize {
        self.slots.len() - self.count
    }

    /// Text bytes still free.
    pub(crate) fn text_free(&self) -> usize {
        self.text.len() - (self.t_tail - self.t_head)
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Queues an event whose text is `parts` joined. Returns false when it does not fit
    /// (room is reserved before a line is taken, so this is a bug, never a panic).
    pub(crate) fn push(&mut self, entry: Entry, parts: &[&str]) -> bool {
        let need: usize = parts.iter().map(|p| p.len()).sum();
        if self.count == self.slots.len() || need > self.text_free() {
            return false;
        }
        if self.text.len() - self.t_tail < need {
            self.text.copy_within(self.t_head..self.t_tail, 0);
            self.t_tail -= self.t_head;
            self.t_head = 0;
        }
        for p in parts {
            let t = self.t_tail;
            self.text[t..t + p.len()].copy_from_slice(p.as_bytes());
            self.t_tail += p.len();
        }
        let at = (self.head + self.count) % self.slots.len();
        self.slots[at] = EventSlot {
            entry,
            len: need as u32,
        };
        self.count += 1;
        true
    }

    /// The text length of the next event.
    pub(crate) fn peek_len(&self) -> Option<usize> {
        (self.count > 0).then(|| self.slots[self.head].len as usize)
    }

    /// Takes the next event; its text stays valid until the next push.
    pub(crate) fn pop(&mut self) -> Option<(Entry, &str)> {
        let (entry, start, end) = self.take()?;
        Some((entry, text_str(&self.text[start..end], &self.text[start..])))
    }

    /// [`pop`](Self::pop) with the text as bytes, for a caller that copies it elsewhere
    /// and views the copy as text there: one UTF-8 check instead of two.
    pub(crate) fn pop_bytes(&mut self) -> Option<(Entry, &[u8])> {
        let (entry, start, end) = self.take()?;
        Some((entry, &self.text[start..end]))
    }

    /// Takes the next entry; returns it with the span of its text.
    fn take(&mut self) -> Option<(Entry, usize, usize)> {
        if self.count == 0 {
            return None;
        }
        let EventSlot { entry, len } = self.slots[self.head];
        self.head = (self.head + 1) % self.slots.len();
        self.count -= 1;
        let start = self.t_head;
        let end = start + len as usize;
        self.t_head = end;
        if self.count == 0 {
            self.head = 0;
            self.t_head = 0;
            self.t_tail = 0;
        }
        Some((entry, start, end))
    }
}

/// An event's text as `&str`. It was copied from validated `&str`s, so this never fails,
/// but safe code must check it (the core forbids `unsafe`): the check is the line
/// framing's ([`line_str`]), which on hosts runs `simdutf8` over whole 64-byte blocks
/// of `ahead` (the buffer from the text on) and costs about a fifth of
/// `core::str::from_utf8` on a 1 KiB text.
#[inline]
pub(crate) fn text_str<'t>(text: &'t [u8], ahead: &'t [u8]) -> &'t str {
    line_str(text, ahead).unwrap_or("")
}

/// Escaped string text as a [`JsonStr`].
fn jstr(t: &str) -> JsonStr<'_> {
    JsonStr::from_validated(t, t.contains('\\'))
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::collections::VecDeque;
    use std::string::String;

    /// Texts come back exactly as pushed, whatever lies after them in the ring (the UTF-8
    /// check may read on to a 64-byte boundary): multi-byte characters at every offset,
    /// texts moved to the front of the ring, stale bytes that start inside a character.
    #[test]
    fn texts_come_back_whatever_follows_them() {
        let mut slots = [EventSlot::EMPTY; 4];
        let mut ring = [0u8; 200];
        let mut q = EventQueue::new(Slice::Borrowed(&mut slots), Slice::Borrowed(&mut ring));
        let pieces = ["é", "x", "€", "𝄞", "ab"];
        let entry = Entry::TimedOut {
            id: OutboundId {
                index: 0,
                generation: 0,
            },
        };
        let mut queued = VecDeque::new();
        for round in 0..2000usize {
            let mut text = String::new();
            for k in 0..(round * 7) % 45 {
                text.push_str(pieces[(round + k * k) % pieces.len()]);
            }
            let mut at = text.len() / 2;
            while !text.is_char_boundary(at) {
                at += 1;
            }
            let parts = [&text[..at], &text[at..]];
            if q.push(entry, &parts) {
                queued.push_back(text);
            }
            if round % 3 != 0 || q.free() == 0 || q.text_free() < 180 {
                let Some(want) = queued.pop_front() else {
                    continue;
                };
                if round % 2 == 0 {
                    let (e, t) = q.pop().unwrap();
                    assert_eq!((e, t), (entry, want.as_str()));
                } else {
                    let (_, t) = q.pop_bytes().unwrap();
                    assert_eq!(t, want.as_bytes());
                }
            }
        }
    }
}
