//! Caller-supplied memory: every byte and slot a session will ever use.

use core::ops::{Deref, DerefMut};

use crate::jsonrpc::ID_CAPACITY;
use crate::protocol::{Caps, Method};

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

/// One request the peer sent us that we still owe an answer to. Opaque; size it with
/// [`Storage`] (about 280 bytes each).
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
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum InboundState {
    Free,
    /// Waiting for the host's response.
    Open,
    /// The peer cancelled it; a response is dropped.
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
    };
}

impl Default for InboundSlot {
    fn default() -> Self {
        Self::EMPTY
    }
}

/// One request we sent that awaits the peer's response. Opaque; size it with [`Storage`].
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
}

impl Default for OutboundSlot {
    fn default() -> Self {
        Self::EMPTY
    }
}

/// All memory a [`Session`](super::Session) uses. Nothing is allocated after
/// construction; every bound of the session is the size of one of these.
///
/// | field | bounds | suggested size |
/// |---|---|---|
/// | `rx` | the longest inbound line ([`Limits::max_line`](crate::Limits::max_line) is `rx.len()`) | 1 MiB desktop, 1–4 KiB firmware |
/// | `tx` | encoded output waiting for [`poll_transmit`](super::Session::poll_transmit) | ≥ 2 × your largest response |
/// | `events` | events waiting for [`poll_event`](super::Session::poll_event): each needs its line plus 48 bytes | ≥ `rx.len()` + 64 |
/// | `inbound` | requests from the peer awaiting our response | 16–64 |
/// | `outbound` | our requests awaiting the peer | 4–64 |
/// | `info` | the copied configuration text (info, capabilities, instructions) | see [`Config::info_len`](super::Config::info_len) |
pub struct Storage<'s> {
    /// Receive buffer for a partial line.
    pub rx: Slice<'s, u8>,
    /// Transmit queue.
    pub tx: Slice<'s, u8>,
    /// Event queue.
    pub events: Slice<'s, u8>,
    /// Inbound request table.
    pub inbound: Slice<'s, InboundSlot>,
    /// Outbound request table.
    pub outbound: Slice<'s, OutboundSlot>,
    /// Copy of the configuration text.
    pub info: Slice<'s, u8>,
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
            inbound: Slice::Owned(vec![InboundSlot::EMPTY; inbound]),
            outbound: Slice::Owned(vec![OutboundSlot::EMPTY; outbound]),
            info: Slice::Owned(vec![0; info_len]),
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
            inbound: zeroed(inbound, InboundSlot::EMPTY, oom)?,
            outbound: zeroed(outbound, OutboundSlot::EMPTY, oom)?,
            info: zeroed(info_len, 0, oom)?,
        })
    }
}

/// Storage in plain arrays, for `static` or stack use without an allocator.
///
/// `LINE`: longest line; `TX`: transmit queue; `EV`: event queue; `IN`/`OUT`: request
/// tables; `INFO`: configuration text.
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
> {
    rx: [u8; LINE],
    tx: [u8; TX],
    events: [u8; EV],
    inbound: [InboundSlot; IN],
    outbound: [OutboundSlot; OUT],
    info: [u8; INFO],
}

impl<
    const LINE: usize,
    const TX: usize,
    const EV: usize,
    const IN: usize,
    const OUT: usize,
    const INFO: usize,
> StaticStorage<LINE, TX, EV, IN, OUT, INFO>
{
    /// Zeroed storage (usable in a `static`).
    pub const fn new() -> Self {
        StaticStorage {
            rx: [0; LINE],
            tx: [0; TX],
            events: [0; EV],
            inbound: [InboundSlot::EMPTY; IN],
            outbound: [OutboundSlot::EMPTY; OUT],
            info: [0; INFO],
        }
    }

    /// Borrows every array as a [`Storage`].
    pub fn as_storage(&mut self) -> Storage<'_> {
        Storage {
            rx: Slice::Borrowed(&mut self.rx),
            tx: Slice::Borrowed(&mut self.tx),
            events: Slice::Borrowed(&mut self.events),
            inbound: Slice::Borrowed(&mut self.inbound),
            outbound: Slice::Borrowed(&mut self.outbound),
            info: Slice::Borrowed(&mut self.info),
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
> Default for StaticStorage<LINE, TX, EV, IN, OUT, INFO>
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
