//! The inbound request table: the peer's requests we still owe an answer to, the
//! streams (`subscriptions/listen`) we keep open for it, and handles to both.

use super::storage::{RawId, Slice};
use super::types::InboundId;
use crate::json::Json;
use crate::jsonrpc::Id;
use crate::protocol::{Caps, LogLevel, Method};

/// One request the peer sent us that we still owe an answer to. Opaque; size it with
/// [`Storage`](super::Storage) (about 280 bytes each).
#[derive(Clone, Copy)]
pub struct InboundSlot {
    pub(crate) generation: u16,
    pub(crate) state: InboundState,
    pub(crate) method: Method,
    pub(crate) id: RawId,
    pub(crate) token: RawId,
    pub(crate) last_progress: f64,
    /// `last_progress` holds a value (the first progress may be any number).
    pub(crate) has_progress: bool,
    /// Served under 2026-07-28.
    pub(crate) modern: bool,
    /// The client capabilities declared on this request (2026-07-28).
    pub(crate) client_caps: Caps,
    /// The `logLevel` of this request (2026-07-28), as `LogLevel as u8`; 0xFF for none.
    pub(crate) log_level: u8,
    /// Honoured listen filter bits (2026-07-28 `subscriptions/listen`).
    pub(crate) listen: u8,
    /// A member of the open 2025-03-26 batch: its response is staged.
    pub(crate) in_batch: bool,
    /// 2026-07-28 with a seal key: the digest of the salient params a sealed
    /// `requestState` is bound to.
    #[cfg(feature = "seal")]
    pub(crate) binding: u64,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum InboundState {
    Free,
    /// Waiting for the host's response.
    Open,
    /// The peer cancelled it: the slot is free for a new request, but until it is
    /// reused (or the host answers) its handle still names the request, so that the
    /// host's answer to it is dropped quietly instead of being refused.
    Cancelled,
    /// An open `subscriptions/listen` stream (answered only when we close it).
    Listening,
}

impl InboundSlot {
    /// An empty slot, for initialising arrays.
    pub const EMPTY: InboundSlot = InboundSlot {
        generation: 0,
        state: InboundState::Free,
        method: Method::Initialize,
        id: RawId::EMPTY,
        token: RawId::EMPTY,
        last_progress: 0.0,
        has_progress: false,
        modern: false,
        client_caps: Caps::NONE,
        log_level: 0xFF,
        listen: 0,
        in_batch: false,
        #[cfg(feature = "seal")]
        binding: 0,
    };

    /// The request's id as received.
    pub(crate) fn wire_id(&self) -> Id<'_> {
        Id::from_raw(self.id.as_str())
    }

    /// The `logLevel` the request asked for (2026-07-28).
    pub(crate) fn log_level(&self) -> Option<LogLevel> {
        LogLevel::from_index(self.log_level)
    }

    /// Whether this slot's request has the wire id `id` ([`Id::same`]), comparing the
    /// stored bytes first: equal text is the same id, and two texts without an escape
    /// that differ are different ids, so only ids with a `\` pay for the unescaping
    /// comparison (and none pays for viewing the stored bytes as text: this runs for
    /// every open slot on every incoming request).
    fn has_id(&self, id: &Id<'_>) -> bool {
        let stored = &self.id.bytes[..self.id.len as usize];
        let wire = id.as_raw().as_bytes();
        if stored == wire {
            return true;
        }
        if !stored.contains(&b'\\') && !wire.contains(&b'\\') {
            return false;
        }
        self.wire_id().same(id)
    }

    /// Holds a request or stream (not free, not a cancelled leftover).
    fn live(&self) -> bool {
        matches!(self.state, InboundState::Open | InboundState::Listening)
    }
}

impl Default for InboundSlot {
    fn default() -> Self {
        Self::EMPTY
    }
}

/// Why a request could not get a slot.
pub(crate) enum Refused {
    /// Its id is the id of a request still in flight.
    DuplicateId,
    /// Every slot is taken.
    Full,
}

/// The table over the caller's [`InboundSlot`]s.
pub(crate) struct InboundTable<'s> {
    slots: Slice<'s, InboundSlot>,
    /// Requests opened so far (a batch tells its own members by this).
    opened: u32,
    last: u16,
}

impl<'s> InboundTable<'s> {
    pub(crate) fn new(mut slots: Slice<'s, InboundSlot>) -> Self {
        for s in slots.iter_mut() {
            *s = InboundSlot::EMPTY;
        }
        InboundTable {
            slots,
            opened: 0,
            last: 0,
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.slots.len()
    }

    pub(crate) fn slot(&self, index: usize) -> &InboundSlot {
        &self.slots[index]
    }

    pub(crate) fn slot_mut(&mut self, index: usize) -> &mut InboundSlot {
        &mut self.slots[index]
    }

    /// The handle of slot `index`.
    pub(crate) fn handle(&self, index: usize) -> InboundId {
        InboundId {
            index: index as u16,
            generation: self.slots[index].generation,
        }
    }

    /// The slot `id` names: an open request or stream, or a cancelled one whose slot
    /// was not reused yet.
    pub(crate) fn get(&self, id: InboundId) -> Option<&InboundSlot> {
        self.slots
            .get(id.index as usize)
            .filter(|s| s.state != InboundState::Free && s.generation == id.generation)
    }

    /// The slot in `state` whose request has the wire id `id`.
    pub(crate) fn find(&self, id: &Id<'_>, state: InboundState) -> Option<usize> {
        self.slots
            .iter()
            .position(|s| s.state == state && s.has_id(id))
    }

    /// True when a request or stream with this id is in flight.
    pub(crate) fn in_flight(&self, id: &Id<'_>) -> bool {
        self.slots.iter().any(|s| s.live() && s.has_id(id))
    }

    /// True when a new request would get a slot.
    pub(crate) fn has_room(&self) -> bool {
        self.slots.iter().any(|s| !s.live())
    }

    /// Opens a slot for a request we must answer: a free one, else the leftover of a
    /// cancelled one (so a cancelled handle stays recognisable as long as possible).
    pub(crate) fn open(
        &mut self,
        id: &Id<'_>,
        method: Method,
        params: Json<'_>,
    ) -> Result<usize, Refused> {
        if self.in_flight(id) {
            return Err(Refused::DuplicateId);
        }
        let index = self
            .slots
            .iter()
            .position(|s| s.state == InboundState::Free)
            .or_else(|| self.slots.iter().position(|s| !s.live()))
            .ok_or(Refused::Full)?;
        let token = params
            .get("_meta")
            .and_then(|m| m.get("progressToken"))
            .filter(|t| t.as_str().is_some() || t.is_integer());
        let slot = &mut self.slots[index];
        let generation = slot.generation.wrapping_add(1);
        *slot = InboundSlot::EMPTY;
        slot.generation = generation;
        slot.state = InboundState::Open;
        slot.method = method;
        slot.id.set(id.as_raw());
        if let Some(t) = token {
            slot.token.set(t.as_raw());
        }
        self.opened = self.opened.wrapping_add(1);
        self.last = index as u16;
        Ok(index)
    }

    /// How many requests were opened so far, and the slot of the last one.
    pub(crate) fn opened(&self) -> (u32, usize) {
        (self.opened, self.last as usize)
    }

    /// The request in slot `index` was cancelled by the peer: its slot is reclaimed.
    pub(crate) fn cancel(&mut self, index: usize) {
        self.slots[index].state = InboundState::Cancelled;
    }

    /// The request in slot `index` is finished.
    pub(crate) fn free(&mut self, index: usize) {
        if let Some(s) = self.slots.get_mut(index) {
            s.state = InboundState::Free;
        }
    }
}
