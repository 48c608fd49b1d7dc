//! Caller-supplied memory: every byte and slot a session will ever use.

use core::ops::{Deref, DerefMut};

pub use super::events::EventSlot;
pub use super::inbound::InboundSlot;
pub use super::outbound::OutboundSlot;
#[cfg(feature = "client")]
use super::pins::ToolPin;
use crate::jsonrpc::ID_CAPACITY;

/// A slice the session uses: borrowed from the caller, or owned with the `alloc` feature
/// (smoltcp's `ManagedSlice` idea).
pub enum Slice<'s, T> {
    /// Memory the caller owns (a static array, a stack array, an arena).
    Borrowed(&'s mut [T]),
    /// A vector allocated once, at construction.
    #[cfg(feature = "alloc")]
    Owned(alloc::vec::Vec<T>),
}

impl<T> Deref for Slice<'_, T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        match self {
            Slice::Borrowed(s) => s,
            #[cfg(feature = "alloc")]
            Slice::Owned(v) => v,
        }
    }
}

impl<T> DerefMut for Slice<'_, T> {
    fn deref_mut(&mut self) -> &mut [T] {
        match self {
            Slice::Borrowed(s) => s,
            #[cfg(feature = "alloc")]
            Slice::Owned(v) => v,
        }
    }
}

impl<T> AsRef<[T]> for Slice<'_, T> {
    fn as_ref(&self) -> &[T] {
        self
    }
}

impl<T> AsMut<[T]> for Slice<'_, T> {
    fn as_mut(&mut self) -> &mut [T] {
        self
    }
}

impl<'s, T> From<&'s mut [T]> for Slice<'s, T> {
    fn from(s: &'s mut [T]) -> Self {
        Slice::Borrowed(s)
    }
}

/// A request id or progress token copied out of a line, so it can be echoed later.
#[derive(Clone, Copy)]
pub(crate) struct RawId {
    pub(crate) len: u8,
    pub(crate) bytes: [u8; ID_CAPACITY],
}

impl RawId {
    pub(crate) const EMPTY: RawId = RawId {
        len: 0,
        bytes: [0; ID_CAPACITY],
    };

    pub(crate) fn set(&mut self, raw: &str) -> bool {
        if raw.len() > ID_CAPACITY {
            return false;
        }
        self.bytes[..raw.len()].copy_from_slice(raw.as_bytes());
        self.len = raw.len() as u8;
        true
    }

    pub(crate) fn as_str(&self) -> &str {
        core::str::from_utf8(&self.bytes[..self.len as usize]).unwrap_or("0")
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// All memory a [`Session`](super::Session) uses. Nothing is allocated after
/// construction; every bound of the session is the size of one of these.
///
/// | field | bounds | suggested size |
/// |---|---|---|
/// | `rx` | the longest inbound line ([`Limits::max_line`](crate::Limits::max_line) is `rx.len()`) | 1 MiB desktop, 1–4 KiB firmware |
/// | `tx` | encoded output waiting for [`poll_transmit`](super::Session::poll_transmit) | ≥ 2 × your largest response |
/// | `events` | the text of events waiting for [`poll_event`](super::Session::poll_event) (each holds at most its line's bytes) | ≥ `rx.len()` |
/// | `event_slots` | the events themselves, one [`EventSlot`] each (at least 4) | [`Storage::event_slots_for`]`(events.len())` |
/// | `inbound` | requests from the peer awaiting our response | 16–64 |
/// | `outbound` | our requests awaiting the peer | 4–64 |
/// | `info` | the copied configuration text (info, capabilities, instructions) | see [`Config::info_len`](super::Config::info_len) |
/// | `pins` | client: tool pins, one per tool name ([`Storage::DEFAULT_PINS`] in `owned`); entries that are `Some` are preloaded; empty turns pinning off | the tools you expect, with room |
pub struct Storage<'s> {
    /// Receive buffer for a partial line.
    pub rx: Slice<'s, u8>,
    /// Transmit queue.
    pub tx: Slice<'s, u8>,
    /// Event queue: the events' text.
    pub events: Slice<'s, u8>,
    /// Event queue: the events.
    pub event_slots: Slice<'s, EventSlot>,
    /// Inbound request table.
    pub inbound: Slice<'s, InboundSlot>,
    /// Outbound request table.
    pub outbound: Slice<'s, OutboundSlot>,
    /// Copy of the configuration text.
    pub info: Slice<'s, u8>,
    /// Client: the tool pins (docs/DESIGN.md, "Tool pinning"); `Some` entries are pins
    /// from an earlier session, checked like pins recorded in this one.
    #[cfg(feature = "client")]
    pub pins: Slice<'s, Option<ToolPin>>,
}

impl Storage<'_> {
    /// The pins `Storage::owned` and `Storage::try_owned` allocate.
    pub const DEFAULT_PINS: usize = 256;

    /// A number of event slots that suits an event text queue of `event_bytes` bytes (one
    /// per 64 bytes, at least 16 and at most 1024): what `Storage::owned` and the
    /// C API use. The cap keeps a large line limit from committing memory for slots no
    /// stream can fill between two drains (1 MiB lines would otherwise take 32,768 slots,
    /// 1 MiB of written memory); when the slots run out first, `handle_bytes` takes fewer
    /// bytes until the host drains, as with a full text queue.
    pub const fn event_slots_for(event_bytes: usize) -> usize {
        let n = event_bytes / 64;
        if n < 16 {
            16
        } else if n > 1024 {
            1024
        } else {
            n
        }
    }
}

#[cfg(feature = "alloc")]
impl Storage<'static> {
    /// Allocates every buffer once: `max_line` bytes of receive buffer, a transmit queue
    /// and event queue of `2 × max_line`, the given table sizes and `info_len` bytes of
    /// configuration text.
    pub fn owned(max_line: usize, inbound: usize, outbound: usize, info_len: usize) -> Self {
        use alloc::vec;
        Storage {
            rx: Slice::Owned(vec![0; max_line]),
            tx: Slice::Owned(vec![0; 2 * max_line + 1024]),
            events: Slice::Owned(vec![0; 2 * max_line + 1024]),
            event_slots: Slice::Owned(vec![
                EventSlot::EMPTY;
                Storage::event_slots_for(2 * max_line + 1024)
            ]),
            inbound: Slice::Owned(vec![InboundSlot::EMPTY; inbound]),
            outbound: Slice::Owned(vec![OutboundSlot::EMPTY; outbound]),
            info: Slice::Owned(vec![0; info_len]),
            #[cfg(feature = "client")]
            pins: Slice::Owned(vec![None; Storage::DEFAULT_PINS]),
        }
    }
    /// As [`owned`](Self::owned), for sizes that come from somewhere else (a binding's
    /// caller, a command line): an oversized request table or an allocation the system
    /// refuses is an error instead of an abort.
    ///
    /// # Errors
    /// [`ConfigError::TableTooLarge`](super::ConfigError::TableTooLarge) for more than
    /// 65535 slots; [`ConfigError::OutOfMemory`](super::ConfigError::OutOfMemory) when the
    /// sizes overflow or the allocator fails.
    pub fn try_owned(
        max_line: usize,
        inbound: usize,
        outbound: usize,
        info_len: usize,
    ) -> Result<Self, super::ConfigError> {
        use super::ConfigError;
        if inbound > u16::MAX as usize || outbound > u16::MAX as usize {
            return Err(ConfigError::TableTooLarge);
        }
        let queue = max_line.checked_mul(2).and_then(|n| n.checked_add(1024));
        let total = queue
            .and_then(|q| q.checked_mul(2))
            .and_then(|n| n.checked_add(max_line))
            .and_then(|n| n.checked_add(info_len));
        let (Some(queue), Some(total)) = (queue, total) else {
            return Err(ConfigError::OutOfMemory {
                required: usize::MAX,
            });
        };
        let oom = ConfigError::OutOfMemory { required: total };
        fn zeroed<T: Clone>(
            n: usize,
            v: T,
            oom: super::ConfigError,
        ) -> Result<Slice<'static, T>, super::ConfigError> {
            // A probe reservation (never written, so never committed) shows the allocator
            // can give `n` elements; the buffer itself is `vec![v; n]`, which for zero
            // bytes is `calloc`: pages are committed only as the session touches them.
            let mut probe: alloc::vec::Vec<T> = alloc::vec::Vec::new();
            probe.try_reserve_exact(n).map_err(|_| oom)?;
            drop(probe);
            Ok(Slice::Owned(alloc::vec![v; n]))
        }
        Ok(Storage {
            rx: zeroed(max_line, 0, oom)?,
            tx: zeroed(queue, 0, oom)?,
            events: zeroed(queue, 0, oom)?,
            event_slots: zeroed(Storage::event_slots_for(queue), EventSlot::EMPTY, oom)?,
            inbound: zeroed(inbound, InboundSlot::EMPTY, oom)?,
            outbound: zeroed(outbound, OutboundSlot::EMPTY, oom)?,
            info: zeroed(info_len, 0, oom)?,
            #[cfg(feature = "client")]
            pins: zeroed(Storage::DEFAULT_PINS, None, oom)?,
        })
    }
}

/// Storage in plain arrays, for `static` or stack use without an allocator.
///
/// `LINE`: longest line; `TX`: transmit queue; `EV`: event text queue; `IN`/`OUT`:
/// request tables; `INFO`: configuration text; `SLOTS`: event slots (default 16);
/// `PINS`: client tool pins (default 0: pinning off).
///
/// ```
/// use picomcp::session::StaticStorage;
/// let mut mem: StaticStorage<1024, 4096, 2048, 4, 4, 512> = StaticStorage::new();
/// let storage = mem.as_storage();
/// assert_eq!(storage.rx.len(), 1024);
/// ```
pub struct StaticStorage<
    const LINE: usize,
    const TX: usize,
    const EV: usize,
    const IN: usize,
    const OUT: usize,
    const INFO: usize,
    const SLOTS: usize = 16,
    const PINS: usize = 0,
> {
    rx: [u8; LINE],
    tx: [u8; TX],
    events: [u8; EV],
    event_slots: [EventSlot; SLOTS],
    inbound: [InboundSlot; IN],
    outbound: [OutboundSlot; OUT],
    info: [u8; INFO],
    #[cfg(feature = "client")]
    pins: [Option<ToolPin>; PINS],
}

impl<
    const LINE: usize,
    const TX: usize,
    const EV: usize,
    const IN: usize,
    const OUT: usize,
    const INFO: usize,
    const SLOTS: usize,
    const PINS: usize,
> StaticStorage<LINE, TX, EV, IN, OUT, INFO, SLOTS, PINS>
{
    /// Zeroed storage (usable in a `static`).
    pub const fn new() -> Self {
        StaticStorage {
            rx: [0; LINE],
            tx: [0; TX],
            events: [0; EV],
            event_slots: [EventSlot::EMPTY; SLOTS],
            inbound: [InboundSlot::EMPTY; IN],
            outbound: [OutboundSlot::EMPTY; OUT],
            info: [0; INFO],
            #[cfg(feature = "client")]
            pins: [None; PINS],
        }
    }

    /// Borrows every array as a [`Storage`].
    pub fn as_storage(&mut self) -> Storage<'_> {
        Storage {
            rx: Slice::Borrowed(&mut self.rx),
            tx: Slice::Borrowed(&mut self.tx),
            events: Slice::Borrowed(&mut self.events),
            event_slots: Slice::Borrowed(&mut self.event_slots),
            inbound: Slice::Borrowed(&mut self.inbound),
            outbound: Slice::Borrowed(&mut self.outbound),
            info: Slice::Borrowed(&mut self.info),
            #[cfg(feature = "client")]
            pins: Slice::Borrowed(&mut self.pins),
        }
    }
}

impl<
    const LINE: usize,
    const TX: usize,
    const EV: usize,
    const IN: usize,
    const OUT: usize,
    const INFO: usize,
    const SLOTS: usize,
    const PINS: usize,
> Default for StaticStorage<LINE, TX, EV, IN, OUT, INFO, SLOTS, PINS>
{
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(all(test, feature = "alloc"))]
mod tests {
    use super::Storage;
    use crate::session::ConfigError;

    #[test]
    fn try_owned_refuses_instead_of_aborting() {
        let s = Storage::try_owned(1024, 4, 4, 256).ok().unwrap();
        assert_eq!((s.rx.len(), s.inbound.len(), s.info.len()), (1024, 4, 256));
        assert!(matches!(
            Storage::try_owned(1024, 70_000, 4, 256),
            Err(ConfigError::TableTooLarge)
        ));
        // Sizes that overflow, and an allocation no system grants.
        assert!(matches!(
            Storage::try_owned(usize::MAX / 2, 1, 1, 0),
            Err(ConfigError::OutOfMemory { .. })
        ));
        assert!(matches!(
            Storage::try_owned(isize::MAX as usize / 8, 1, 1, 0),
            Err(ConfigError::OutOfMemory { .. })
        ));
    }
}
