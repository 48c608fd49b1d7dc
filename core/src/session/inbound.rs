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
    /// `id` has no `\`: its text alone tells it apart ([`has_id`](Self::has_id)).
    /// (It fills a padding byte: the slot stays 288 bytes on 64-bit targets.)
    pub(crate) id_plain: bool,
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
        id_plain: true,
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

    /// Whether this slot's request has the wire id `w` ([`Id::same`]). This runs for every
    /// open slot on every incoming request, so it compares the stored bytes: when neither
    /// id has an escape (`\`), the same text is the same id and different texts are
    /// different ids ([`same_text`](Self::same_text)). Only an id with an escape pays for
    /// the unescaping comparison.
    #[inline]
    fn has_id(&self, w: &WireId<'_, '_>) -> bool {
        if self.id_plain && !w.escaped {
            return self.same_text(w);
        }
        self.wire_id().same(w.id)
    }

    /// Hosts: the stored text is `w`'s, compared by length, then the first eight bytes as
    /// one word, then the rest (no `memcmp` call per open slot).
    #[cfg(not(target_os = "none"))]
    #[inline(always)]
    fn same_text(&self, w: &WireId<'_, '_>) -> bool {
        let len = self.id.len as usize;
        len == w.bytes.len()
            && head(&self.id.bytes) & w.mask == w.head
            && (len <= 8 || self.id.bytes.get(8..len) == w.bytes.get(8..))
    }

    /// Bare-metal targets: a plain comparison (the word compare costs flash, and a
    /// device's table has a slot or two).
    #[cfg(target_os = "none")]
    #[inline(always)]
    fn same_text(&self, w: &WireId<'_, '_>) -> bool {
        &self.id.bytes[..self.id.len as usize] == w.bytes
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
    /// Slots that hold a request or stream ([`InboundSlot::live`]): with none, a new id
    /// needs no comparison (a `ping` answered at once, the first request).
    live: u16,
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
            live: 0,
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
        let w = WireId::new(id);
        self.slots
            .iter()
            .position(|s| s.state == state && s.has_id(&w))
    }

    /// True when a request or stream with this id is in flight.
    pub(crate) fn in_flight(&self, id: &Id<'_>) -> bool {
        self.live != 0 && self.in_flight_wire(&WireId::new(id))
    }

    fn in_flight_wire(&self, w: &WireId<'_, '_>) -> bool {
        self.live != 0 && self.slots.iter().any(|s| s.live() && s.has_id(w))
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
        let w = WireId::new(id);
        if self.in_flight_wire(&w) {
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
        slot.id_plain = !w.escaped;
        if let Some(t) = token {
            slot.token.set(t.as_raw());
        }
        self.opened = self.opened.wrapping_add(1);
        self.live += 1;
        self.last = index as u16;
        Ok(index)
    }

    /// How many requests were opened so far, and the slot of the last one.
    pub(crate) fn opened(&self) -> (u32, usize) {
        (self.opened, self.last as usize)
    }

    /// The request in slot `index` was cancelled by the peer: its slot is reclaimed.
    pub(crate) fn cancel(&mut self, index: usize) {
        let s = &mut self.slots[index];
        if s.live() {
            self.live = self.live.saturating_sub(1);
        }
        s.state = InboundState::Cancelled;
    }

    /// The request in slot `index` is finished.
    pub(crate) fn free(&mut self, index: usize) {
        if let Some(s) = self.slots.get_mut(index) {
            if s.live() {
                self.live = self.live.saturating_sub(1);
            }
            s.state = InboundState::Free;
        }
    }
}

/// An incoming request id, prepared once for the comparison with every slot's
/// ([`InboundSlot::has_id`]).
struct WireId<'i, 'a> {
    id: &'i Id<'a>,
    bytes: &'a [u8],
    /// Hosts: the first eight bytes (zero-padded) as a word, and the mask of the bytes in
    /// use ([`InboundSlot::same_text`]).
    #[cfg(not(target_os = "none"))]
    head: u64,
    #[cfg(not(target_os = "none"))]
    mask: u64,
    /// Has a `\`.
    escaped: bool,
}

impl<'i, 'a> WireId<'i, 'a> {
    fn new(id: &'i Id<'a>) -> Self {
        let bytes = id.as_raw().as_bytes();
        #[cfg(not(target_os = "none"))]
        let (head, mask) = {
            let mut word = [0u8; 8];
            for (d, s) in word.iter_mut().zip(bytes) {
                *d = *s;
            }
            let mask = match bytes.len() {
                n @ 0..8 => (1u64 << (8 * n)) - 1,
                _ => u64::MAX,
            };
            (u64::from_le_bytes(word), mask)
        };
        WireId {
            id,
            bytes,
            #[cfg(not(target_os = "none"))]
            head,
            #[cfg(not(target_os = "none"))]
            mask,
            escaped: bytes.contains(&b'\\'),
        }
    }
}

/// The first eight bytes of a stored id as a word (in the order [`WireId`] reads them).
#[cfg(not(target_os = "none"))]
#[inline(always)]
fn head(bytes: &[u8; crate::jsonrpc::ID_CAPACITY]) -> u64 {
    let mut word = [0u8; 8];
    word.copy_from_slice(&bytes[..8]);
    u64::from_le_bytes(word)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The in-flight check agrees with [`Id::same`] for every pair of ids: integers and
    /// strings, texts of up to, exactly and past the eight bytes compared as one word
    /// (differing inside and after them), and escapes on either side.
    #[test]
    fn in_flight_agrees_with_id_same() {
        let ids = [
            "1",
            "-1",
            "12345678",
            "12345679",
            "123456789",
            "1234567890123",
            "1234567890124",
            r#""1""#,
            r#""""#,
            r#""a""#,
            r#""abcdef""#,
            r#""abcdeg""#,
            r#""abcdefgh""#,
            r#""abcdefghij""#,
            r#""abcdefghik""#,
            r#""\u0061""#,
            r#""\u0061bcdefghij""#,
            r#""abcdefgh\u0069j""#,
            r#""a\"b""#,
        ];
        for stored in ids {
            let stored = Id::parse(stored).unwrap();
            let mut slots = [InboundSlot::EMPTY; 2];
            let mut table = InboundTable::new(Slice::Borrowed(&mut slots));
            let i = table
                .open(&stored, Method::ToolsList, Json::EMPTY_OBJECT)
                .ok()
                .unwrap();
            for wire in ids {
                let wire = Id::parse(wire).unwrap();
                let same = stored.same(&wire);
                assert_eq!(table.in_flight(&wire), same, "{stored:?} {wire:?}");
                assert_eq!(
                    table.find(&wire, InboundState::Open),
                    same.then_some(i),
                    "{stored:?} {wire:?}"
                );
            }
        }
    }

    /// The count of live slots follows opens, cancels and frees: an id is in flight
    /// exactly while its slot is open.
    #[test]
    fn in_flight_follows_the_slots() {
        let (a, b) = (Id::parse("1").unwrap(), Id::parse(r#""b""#).unwrap());
        let mut slots = [InboundSlot::EMPTY; 2];
        let mut t = InboundTable::new(Slice::Borrowed(&mut slots));
        assert!(!t.in_flight(&a));
        let ia = t
            .open(&a, Method::ToolsList, Json::EMPTY_OBJECT)
            .ok()
            .unwrap();
        let ib = t
            .open(&b, Method::ToolsList, Json::EMPTY_OBJECT)
            .ok()
            .unwrap();
        assert!(t.in_flight(&a) && t.in_flight(&b));
        assert!(matches!(
            t.open(&a, Method::ToolsList, Json::EMPTY_OBJECT),
            Err(Refused::DuplicateId)
        ));
        t.cancel(ia);
        assert!(!t.in_flight(&a) && t.in_flight(&b));
        t.free(ia);
        t.free(ib);
        assert!(!t.in_flight(&a) && !t.in_flight(&b));
        let ia = t
            .open(&a, Method::ToolsList, Json::EMPTY_OBJECT)
            .ok()
            .unwrap();
        assert!(t.in_flight(&a) && !t.in_flight(&b));
        t.free(ia);
        t.free(ia);
        assert!(!t.in_flight(&a));
        assert_eq!(t.live, 0);
    }
}
