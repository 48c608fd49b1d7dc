//! The outbound request table: our requests awaiting the peer, their wire ids,
//! deadlines and progress, and handles to them.

use super::storage::Slice;
use super::types::{OutboundId, RequestOptions};
use crate::protocol::Method;

/// One request we sent that awaits the peer's response. Opaque; size it with
/// [`Storage`](super::Storage).
#[derive(Clone, Copy)]
pub struct OutboundSlot {
    pub(crate) generation: u16,
    /// The request may get `input_required`: its params are kept in the arena.
    pub(crate) retained: bool,
    /// MRTR rounds so far.
    pub(crate) rounds: u8,
    /// `requestState` from the last `input_required` is kept in the arena too.
    pub(crate) has_state: bool,
    /// A `subscriptions/listen` request.
    pub(crate) listen: bool,
    /// Got `input_required`; waiting for the host's `answer_input`.
    pub(crate) awaiting_input: bool,
    pub(crate) active: bool,
    pub(crate) method: Method,
    pub(crate) wire_id: u64,
    pub(crate) deadline: Option<u64>,
    pub(crate) hard_deadline: Option<u64>,
    pub(crate) timeout_ms: Option<u64>,
    pub(crate) reset_on_progress: bool,
    pub(crate) has_token: bool,
    pub(crate) last_progress: f64,
    /// `last_progress` holds a value.
    pub(crate) has_progress: bool,
}

impl OutboundSlot {
    /// An empty slot, for initialising arrays.
    pub const EMPTY: OutboundSlot = OutboundSlot {
        generation: 0,
        retained: false,
        rounds: 0,
        has_state: false,
        listen: false,
        awaiting_input: false,
        active: false,
        method: Method::Initialize,
        wire_id: 0,
        deadline: None,
        hard_deadline: None,
        timeout_ms: None,
        reset_on_progress: false,
        has_token: false,
        last_progress: 0.0,
        has_progress: false,
    };

    fn expired(&self, now: u64) -> bool {
        self.deadline.is_some_and(|d| d <= now) || self.hard_deadline.is_some_and(|d| d <= now)
    }
}

impl Default for OutboundSlot {
    fn default() -> Self {
        Self::EMPTY
    }
}

/// What a progress notification did to its request.
pub(crate) enum ProgressCheck {
    /// Accepted (the timeout restarted when the request asked for that).
    Accepted,
    /// The value is not a number or did not increase.
    NotIncreasing,
}

/// The table over the caller's [`OutboundSlot`]s, and the wire ids we hand out.
pub(crate) struct OutboundTable<'s> {
    slots: Slice<'s, OutboundSlot>,
    next_id: u64,
    /// Which of our last 64 request ids got their answer: bit `k` is id `next_id - 1 - k`.
    /// Tells a duplicate response (a violation) from a late one (after a timeout or a
    /// cancellation, which is normal).
    answered: u64,
    /// Default timeout of a request (`Config::request_timeout_ms`).
    pub(crate) default_timeout: Option<u64>,
}

impl<'s> OutboundTable<'s> {
    pub(crate) fn new(mut slots: Slice<'s, OutboundSlot>, default_timeout: Option<u64>) -> Self {
        for s in slots.iter_mut() {
            *s = OutboundSlot::EMPTY;
        }
        OutboundTable {
            slots,
            next_id: 0,
            answered: 0,
            default_timeout,
        }
    }

    pub(crate) fn slot(&self, index: usize) -> &OutboundSlot {
        &self.slots[index]
    }

    pub(crate) fn slot_mut(&mut self, index: usize) -> &mut OutboundSlot {
        &mut self.slots[index]
    }

    /// The handle of slot `index`.
    pub(crate) fn handle(&self, index: usize) -> OutboundId {
        OutboundId {
            index: index as u16,
            generation: self.slots[index].generation,
        }
    }

    /// The active request `id` names.
    pub(crate) fn get(&self, id: OutboundId) -> Option<&OutboundSlot> {
        self.slots
            .get(id.index as usize)
            .filter(|s| s.active && s.generation == id.generation)
    }

    // ---- wire ids ----

    /// The wire id the next request gets.
    pub(crate) fn next_id(&self) -> u64 {
        self.next_id
    }

    /// Uses up `next_id` (after a request with that id was queued).
    pub(crate) fn consume_id(&mut self) {
        self.next_id += 1;
        self.answered <<= 1;
    }

    pub(crate) fn mark_answered(&mut self, wire: u64) {
        let k = self.next_id.wrapping_sub(1).wrapping_sub(wire);
        if k < 64 {
            self.answered |= 1 << k;
        }
    }

    pub(crate) fn was_answered(&self, wire: u64) -> bool {
        let k = self.next_id.wrapping_sub(1).wrapping_sub(wire);
        k < 64 && self.answered & (1 << k) != 0
    }

    // ---- slots ----

    /// A free slot.
    pub(crate) fn vacant(&self) -> Option<usize> {
        self.slots.iter().position(|s| !s.active)
    }

    /// Fills the vacant slot `index` for a request sent with wire id `wire` at `now`.
    pub(crate) fn open(
        &mut self,
        index: usize,
        method: Method,
        wire: u64,
        now: u64,
        opts: RequestOptions,
    ) -> OutboundId {
        let timeout = opts.timeout_ms.or(self.default_timeout);
        let slot = &mut self.slots[index];
        *slot = OutboundSlot {
            generation: slot.generation.wrapping_add(1),
            active: true,
            method,
            wire_id: wire,
            timeout_ms: timeout,
            deadline: timeout.map(|t| now.saturating_add(t)),
            hard_deadline: opts.max_total_ms.map(|t| now.saturating_add(t)),
            reset_on_progress: opts.reset_timeout_on_progress,
            has_token: opts.progress,
            ..OutboundSlot::EMPTY
        };
        self.handle(index)
    }

    /// The active request with wire id `wire` that waits for a response.
    pub(crate) fn awaiting(&self, wire: u64) -> Option<usize> {
        self.slots
            .iter()
            .position(|s| s.active && s.wire_id == wire && !s.awaiting_input)
    }

    /// The open `subscriptions/listen` request with wire id `wire`.
    pub(crate) fn listen(&self, wire: u64) -> Option<usize> {
        self.slots
            .iter()
            .position(|s| s.active && s.listen && s.wire_id == wire)
    }

    /// The request whose progress token (its wire id) is `wire`, if it asked for progress;
    /// `Err(true)` when an active request has that id but asked for none.
    pub(crate) fn by_token(&self, wire: u64) -> Result<usize, bool> {
        if let Some(i) = self
            .slots
            .iter()
            .position(|s| s.active && s.has_token && s.wire_id == wire)
        {
            return Ok(i);
        }
        Err(self
            .slots
            .iter()
            .any(|s| s.active && !s.has_token && s.wire_id == wire))
    }

    /// Records progress `value` on slot `i` at `now`.
    pub(crate) fn progress(&mut self, i: usize, value: f64, now: u64) -> ProgressCheck {
        let slot = &mut self.slots[i];
        if value.is_nan() || (slot.has_progress && value <= slot.last_progress) {
            return ProgressCheck::NotIncreasing;
        }
        slot.last_progress = value;
        slot.has_progress = true;
        if slot.reset_on_progress
            && let Some(t) = slot.timeout_ms
        {
            let d = now.saturating_add(t);
            slot.deadline = Some(slot.hard_deadline.map_or(d, |h| h.min(d)));
        }
        ProgressCheck::Accepted
    }

    /// The earliest deadline of an active request.
    pub(crate) fn next_deadline(&self) -> Option<u64> {
        // A plain loop: the iterator chain (filter, flat_map, flatten, min) it replaced
        // cost 70 instructions per call on a Cortex-M even with no slot, and a device
        // asks once per step, that is once per received byte.
        let mut next: Option<u64> = None;
        for s in self.slots.iter().filter(|s| s.active) {
            for d in [s.deadline, s.hard_deadline].into_iter().flatten() {
                next = Some(next.map_or(d, |n| n.min(d)));
            }
        }
        next
    }

    /// The first active request whose deadline is `now` or earlier.
    pub(crate) fn expired(&self, now: u64) -> Option<usize> {
        self.slots.iter().position(|s| s.active && s.expired(now))
    }

    /// Slot `index` is finished.
    pub(crate) fn free(&mut self, index: usize) {
        if let Some(s) = self.slots.get_mut(index) {
            s.active = false;
        }
    }
}
