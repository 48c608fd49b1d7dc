//! The sans-IO session: one MCP connection, client or server role.
//!
//! See [`Session`] for the call-order contract. The module is split along one line:
//!
//! | file | owns |
//! |---|---|
//! | `mod.rs` | the public [`Session`]: construction, getters, inputs, outputs |
//! | `commands.rs` | [`Commands`], the host's commands while it holds an event; the commands both roles share |
//! | `lifecycle.rs` | the lifecycle enum and every transition of it |
//! | `inbound.rs`, `outbound.rs` | the request tables (slots, handles, deadlines, reclaim) |
//! | `route.rs` | the connection state (`Core`): one incoming message to its handler, the core's own replies |
//! | `answer.rs` | server side, both eras: the one answer path and the answer commands |
//! | `legacy.rs` | the legacy era: `initialize`, the core's own methods, server notifications |
//! | `meta.rs` | the 2026-07-28 vocabulary both sides share (`_meta` keys, codes, [`Change`]) |
//! | `modern.rs` | server side of 2026-07-28: envelope, `server/discover`, `subscriptions/listen`, result decoration |
//! | `client.rs` | client side of both eras: probe and `initialize`, responses, MRTR, listen |
//! | `batch.rs` | 2025-03-26 JSON-RPC batches |
//! | `events.rs`, `outbox.rs`, `arena.rs` | the queues and stores in caller memory |
//! | `storage.rs`, `types.rs` | caller memory, public value types |

// A build without every role and era (the Cargo features, core/README.md) leaves some
// shared helpers unused; the full build, which clippy checks with -D warnings, uses all.
#![cfg_attr(
    not(all(
        feature = "server",
        feature = "client",
        feature = "legacy",
        feature = "modern"
    )),
    allow(unused_imports, unused_variables, unused_mut, dead_code)
)]

/// Writes each host command once for both facades, [`Session`] and [`Commands`]: the
/// implementation is the `Core` method of the same name.
macro_rules! host_commands {
    ($( $(#[$doc:meta])* fn $name:ident(&mut self $(, $arg:ident : $ty:ty)* $(,)?) -> $ret:ty; )*) => {
        impl<'s> Session<'s> {
            $( $(#[$doc])* pub fn $name(&mut self $(, $arg: $ty)*) -> $ret {
                self.core.$name($($arg),*)
            } )*
        }
        impl<'a, 's> Commands<'a, 's> {
            $( $(#[$doc])* pub fn $name(&mut self $(, $arg: $ty)*) -> $ret {
                self.core.$name($($arg),*)
            } )*
        }
    };
}

/// As `host_commands`, for `&self` queries.
macro_rules! host_queries {
    ($( $(#[$doc:meta])* fn $name:ident(&self $(, $arg:ident : $ty:ty)* $(,)?) -> $ret:ty; )*) => {
        impl<'s> Session<'s> {
            $( $(#[$doc])* pub fn $name(&self $(, $arg: $ty)*) -> $ret {
                self.core.$name($($arg),*)
            } )*
        }
        impl<'a, 's> Commands<'a, 's> {
            $( $(#[$doc])* pub fn $name(&self $(, $arg: $ty)*) -> $ret {
                self.core.$name($($arg),*)
            } )*
        }
    };
}

mod answer;
mod arena;
mod batch;
mod client;
mod commands;
mod events;
mod flat;
mod inbound;
#[cfg(feature = "legacy")]
mod legacy;
mod lifecycle;
pub(crate) mod meta;
mod modern;
mod names;
mod outbound;
mod outbox;
mod pins;
mod route;
#[cfg(feature = "seal")]
mod seal;
mod storage;
mod types;

pub use commands::Commands;
pub use flat::{EventId, EventKind, FlatEvent};
pub use lifecycle::Era;
pub use meta::Change;
pub use pins::{PINNED_MEMBERS, ToolDigest, ToolPin};
#[cfg(feature = "client")]
pub use pins::{tool_digest, tool_name_key};
pub use storage::{EventSlot, InboundSlot, OutboundSlot, Slice, StaticStorage, Storage};
pub use types::{
    CloseReason, Config, ConfigError, Event, InboundId, OutboundId, Phase, RequestInfo,
    RequestOptions, RespondError, SendError, Stats, Violation,
};

use arena::Arena;
use batch::BatchState;
use events::EventQueue;
use inbound::InboundTable;
use lifecycle::Lifecycle;
use outbound::OutboundTable;
use outbox::Outbox;
use route::Core;

use crate::Limits;
use crate::error::InsufficientSize;
use crate::framing::LineDecoder;
use crate::json::{Json, JsonWriter, MAX_DEPTH_CAP};
use crate::jsonrpc::ID_CAPACITY;
use crate::protocol::{Caps, LogLevel, ProtocolVersion, Role, Versions};

/// Protocol state for one MCP connection over one newline-delimited byte stream.
///
/// `Session` performs no I/O, reads no clock and allocates nothing. Its methods come in
/// four groups:
/// - getters (`&self`): [`role`](Self::role), [`phase`](Self::phase),
///   [`version`](Self::version), [`peer_capabilities`](Self::peer_capabilities), ...
/// - inputs: [`handle_bytes`](Self::handle_bytes), [`handle_eof`](Self::handle_eof),
///   [`handle_timeout`](Self::handle_timeout);
/// - commands: [`respond`](Self::respond), [`respond_error`](Self::respond_error),
///   [`send_request`](Self::send_request), [`send_notification`](Self::send_notification),
///   [`cancel`](Self::cancel), [`progress`](Self::progress), [`log`](Self::log),
///   [`close`](Self::close);
/// - outputs: [`poll_transmit`](Self::poll_transmit) (or [`pending_transmit`](Self::pending_transmit)
///   with [`advance_transmit`](Self::advance_transmit)), [`poll_event`](Self::poll_event)
///   (or [`poll_event_split`](Self::poll_event_split)), [`poll_timeout`](Self::poll_timeout).
///
/// **Drain contract:** after every input or command, write out everything
/// `poll_transmit` gives, take every event from `poll_event` (answering requests as you
/// go), then ask `poll_timeout` when to call `handle_timeout` next. An event from
/// `poll_event` borrows the session until your next call on it: take what you need
/// (handles are `Copy`), then issue commands; or take it with
/// [`poll_event_split`](Self::poll_event_split), which hands you the event together with
/// [`Commands`] that can answer it while its text is still borrowed.
///
/// **Backpressure:** `handle_bytes` returns how many bytes it took. Fewer than offered
/// means the transmit or event queue is full: drain both, then offer the rest again.
pub struct Session<'s> {
    decoder: LineDecoder<Slice<'s, u8>>,
    /// Kept apart from `core` so that an event can borrow it while commands change the
    /// rest ([`poll_event_split`](Self::poll_event_split)).
    events: EventQueue<'s>,
    core: Core<'s>,
}

impl<'s> Session<'s> {
    /// Creates a session. A client queues its `initialize` request at once.
    ///
    /// # Errors
    /// [`ConfigError`] when the configuration is inconsistent or a buffer is too small.
    pub fn new(config: &Config<'_>, storage: Storage<'s>, now: u64) -> Result<Self, ConfigError> {
        let l = config.limits;
        let compiled = match config.role {
            Role::Server => cfg!(feature = "server"),
            Role::Client => cfg!(feature = "client"),
        };
        if !compiled {
            return Err(ConfigError::RoleNotCompiled);
        }
        if !config.capabilities.is_object() {
            return Err(ConfigError::CapabilitiesNotObject);
        }
        // Only the revisions of the compiled eras are served (the `legacy` and `modern`
        // Cargo features); a configuration left with none has no versions.
        let versions = compiled_versions(config.versions);
        if versions.is_empty() {
            return Err(ConfigError::NoVersions);
        }
        if l.max_line == 0
            || l.max_depth == 0
            || l.max_depth > MAX_DEPTH_CAP
            || l.max_id_len > ID_CAPACITY
            || l.max_id_len < 8
        {
            return Err(ConfigError::BadLimit);
        }
        if storage.rx.len() != l.max_line {
            return Err(ConfigError::LineMismatch);
        }
        if storage.inbound.len() > u16::MAX as usize || storage.outbound.len() > u16::MAX as usize {
            return Err(ConfigError::TableTooLarge);
        }
        let info_need = config.info_len();
        if storage.info.len() < info_need {
            return Err(ConfigError::BufferTooSmall {
                which: "info",
                required: info_need,
            });
        }
        let tx_need = reply_reserve(
            l.max_line,
            info_need - config.arena_bytes - config.batch_bytes,
        );
        if storage.tx.len() < tx_need {
            return Err(ConfigError::BufferTooSmall {
                which: "tx",
                required: tx_need,
            });
        }
        if storage.events.len() < l.max_line {
            return Err(ConfigError::BufferTooSmall {
                which: "events",
                required: l.max_line,
            });
        }
        if storage.event_slots.len() < events::PER_LINE {
            return Err(ConfigError::BufferTooSmall {
                which: "event_slots",
                required: events::PER_LINE,
            });
        }
        let Storage {
            rx,
            tx,
            events,
            event_slots,
            inbound,
            outbound,
            mut info,
            #[cfg(feature = "client")]
            pins,
        } = storage;
        // Copy the configuration text, escaped as JSON string bodies where needed.
        let mut spans = [(0usize, 0usize); 4];
        let mut at = 0;
        let texts: [(&str, bool); 4] = [
            (config.name, true),
            (config.version, true),
            (config.capabilities.as_raw(), false),
            (config.instructions.unwrap_or(""), true),
        ];
        for (i, (t, quote)) in texts.iter().enumerate() {
            let mut w = JsonWriter::new(&mut info[at..]);
            if *quote {
                w.string(t);
            } else {
                w.raw(Json::from_validated(t));
            }
            let n = w.finish().map_err(|e| ConfigError::BufferTooSmall {
                which: "info",
                required: at + e.required,
            })?;
            spans[i] = (at, n);
            at += n;
        }
        if at + config.arena_bytes > info.len() {
            return Err(ConfigError::BufferTooSmall {
                which: "info",
                required: at + config.arena_bytes,
            });
        }
        if config.instructions.is_none() {
            spans[3] = (0, 0);
        }
        #[cfg(feature = "seal")]
        let state_key = match config.state_key {
            None => None,
            Some(k) => Some(seal::Key::new(k).ok_or(ConfigError::StateKey)?),
        };
        #[cfg(not(feature = "seal"))]
        if config.state_key.is_some() {
            return Err(ConfigError::StateKey);
        }
        let mut core = Core {
            role: config.role,
            limits: l,
            versions,
            own_caps: Caps::from_json(config.capabilities),
            peer_caps: Caps::NONE,
            life: Lifecycle::SERVER,
            info,
            info_spans: spans,
            outbox: Outbox::new(tx),
            inbound: InboundTable::new(inbound),
            outbound: OutboundTable::new(outbound, config.request_timeout_ms),
            log_level: None,
            stats: Stats::default(),
            arena: Arena::new(at, config.arena_bytes),
            cache_ttl_ms: config.cache_ttl_ms,
            cache_public: config.cache_public,
            probe_timeout_ms: config.probe_timeout_ms,
            batch: BatchState::new(at + config.arena_bytes, config.batch_bytes),
            #[cfg(feature = "seal")]
            now,
            #[cfg(feature = "seal")]
            state_key,
            #[cfg(feature = "seal")]
            state_ttl_ms: config.state_ttl_ms,
            #[cfg(feature = "client")]
            pins: pins::PinTable::new(pins),
        };
        #[cfg(feature = "client")]
        if core.role == Role::Client {
            core.connect(now);
        }
        Ok(Session {
            decoder: LineDecoder::new(rx, l.max_depth),
            events: EventQueue::new(event_slots, events),
            core,
        })
    }

    // ---- getters ----

    /// Our role.
    pub fn role(&self) -> Role {
        self.core.role
    }

    /// Where the lifecycle is.
    pub fn phase(&self) -> Phase {
        self.core.life.phase()
    }

    /// The negotiated revision, once agreed.
    pub fn version(&self) -> Option<ProtocolVersion> {
        self.core.life.version()
    }

    /// The era of the connection (latched by the first message that decides it).
    pub fn era(&self) -> Era {
        self.core.life.era()
    }

    /// The peer's capabilities (empty before the handshake), masked by the negotiated
    /// revision ([`Caps::in_version`]): a member the revision does not define (a 2025-03-26
    /// client's `elicitation`, a 2024-11-05 server's `completions`) is not there.
    pub fn peer_capabilities(&self) -> Caps {
        self.core.peer_caps
    }

    /// Our capabilities: as configured until the revision is negotiated, then as we
    /// declared them in it ([`Caps::declared`]), which is what the capability gate checks.
    pub fn capabilities(&self) -> Caps {
        self.core.own_caps
    }

    /// The limits in force.
    pub fn limits(&self) -> &Limits {
        &self.core.limits
    }

    /// The logging level the client set with `logging/setLevel`, if any.
    pub fn log_level(&self) -> Option<LogLevel> {
        self.core.log_level
    }

    /// Counters.
    pub fn stats(&self) -> Stats {
        self.core.stats
    }

    /// Client: the tool pins recorded so far, preloaded ones included (docs/DESIGN.md,
    /// "Tool pinning"). Store them and put them in a later session's
    /// [`Storage::pins`] to check its tools against them.
    #[cfg(feature = "client")]
    pub fn pins(&self) -> impl Iterator<Item = ToolPin> + '_ {
        self.core.pins.iter()
    }

    // ---- inputs ----

    /// Feeds bytes read from the peer; returns how many were taken.
    ///
    /// Call after reading from the transport, then drain the outputs. Returns fewer than
    /// `bytes.len()` when the transmit or event queue is full: drain them and offer the
    /// rest again.
    pub fn handle_bytes(&mut self, now: u64, bytes: &[u8]) -> usize {
        self.core.saw_time(now);
        // Bytes that complete no line need no room checks: stored (or skipped) at once.
        if !self.core.life.is_closed() && self.decoder.take_partial(bytes) {
            return bytes.len();
        }
        let mut taken = 0;
        let max_line = self.decoder.max_line();
        while taken < bytes.len() && !self.core.life.is_closed() {
            let input = &bytes[taken..];
            // Check room for the frame these bytes complete *before* taking them, so that
            // every byte reported as taken has been fully handled.
            if !self.core.has_room(&self.events, max_line, false)
                && let Some(p) = self.decoder.peek(input)
                && !self.core.has_room(&self.events, p.line_len, p.batch)
            {
                break;
            }
            // (The flag first: `peek` is a newline search, needless while no batch is open.)
            if self.core.batch.open && self.decoder.peek(input).is_some_and(|p| p.batch) {
                break;
            }
            // Lines come as bytes; `on_raw_frame` checks their UTF-8 right before parsing.
            let d = self.decoder.decode_bytes(input);
            taken += d.consumed;
            if let Some(frame) = d.frame {
                self.core.stats.lines_in += 1;
                self.core.on_raw_frame(&mut self.events, now, frame);
            }
        }
        taken
    }

    /// Feeds one whole message (or a 2025-03-26 batch) that arrived framed by something
    /// other than a newline, such as the body of an HTTP POST. Unlike
    /// [`handle_bytes`](Self::handle_bytes) the message may contain raw newlines (JSON
    /// whitespace: pretty-printed JSON is a legal body); it goes through the same parse
    /// path as a line. A message longer than [`Limits::max_line`] or not UTF-8 is refused
    /// as a line would be (an error reply and a [`Violation`] event).
    ///
    /// # Errors
    /// [`Busy`] when the transmit or event queue has no room for the message's replies
    /// and events: drain both and offer it again. Nothing was taken.
    pub fn handle_message(&mut self, now: u64, message: &[u8]) -> Result<(), Busy> {
        use crate::framing::Frame;
        self.core.saw_time(now);
        if self.core.life.is_closed() {
            return Ok(());
        }
        let max_line = self.decoder.max_line();
        let depth = self.core.limits.max_depth;
        let is_batch = message.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[');
        let len = if message.len() > max_line {
            0
        } else {
            message.len()
        };
        if !self.core.has_room(&self.events, len, is_batch) {
            return Err(Busy);
        }
        let frame = if message.len() > max_line {
            Frame::TooLong {
                limit: max_line,
                id: crate::jsonrpc::peek_id(&message[..max_line], depth),
            }
        } else {
            match crate::framing::to_str(message) {
                Ok(text) => Frame::Line(text),
                Err(valid) => Frame::InvalidUtf8 {
                    line: message,
                    id: crate::jsonrpc::peek_id(&message[..valid], depth),
                },
            }
        };
        self.core.stats.lines_in += 1;
        self.core.on_frame(&mut self.events, now, frame);
        Ok(())
    }

    /// The peer closed its side of the stream. A final line without `\n` is processed,
    /// then [`Event::Closed`] is queued.
    pub fn handle_eof(&mut self, now: u64) {
        self.core.saw_time(now);
        if self.core.life.is_closed() {
            return;
        }
        if self.decoder.buffered() > 0 && !self.decoder.is_discarding() {
            let d = self.decoder.decode(b"\n");
            if let Some(f) = d.frame {
                self.core.stats.lines_in += 1;
                self.core.on_frame(&mut self.events, now, f);
            }
        }
        self.decoder.reset();
        let reason = self.core.life.eof_reason();
        self.core.close(&mut self.events, reason);
    }

    /// Time has passed: expires requests whose deadline is `now` or earlier.
    pub fn handle_timeout(&mut self, now: u64) {
        self.core.saw_time(now);
        self.core.on_timeout(&mut self.events, now);
    }

    // ---- outputs ----

    /// Copies as many whole pending lines as fit into `out` (each ends with `\n`).
    /// Returns `Ok(None)` when nothing is pending.
    ///
    /// # Errors
    /// [`InsufficientSize`] when even the first pending line does not fit in `out`.
    pub fn poll_transmit(&mut self, out: &mut [u8]) -> Result<Option<usize>, InsufficientSize> {
        let r = self.core.outbox.poll_into(out);
        if self.core.batch.ready {
            self.core.batch_maybe_finish();
        }
        r
    }

    /// The pending output bytes, without copying; pass how many you wrote to
    /// [`advance_transmit`](Self::advance_transmit).
    pub fn pending_transmit(&self) -> &[u8] {
        self.core.outbox.pending()
    }

    /// Marks `n` bytes of [`pending_transmit`](Self::pending_transmit) as written.
    pub fn advance_transmit(&mut self, n: usize) {
        self.core.outbox.consume(n);
        if self.core.batch.ready {
            self.core.batch_maybe_finish();
        }
    }

    /// The next event, if any. It borrows the session until the next call on it; use
    /// [`poll_event_split`](Self::poll_event_split) to answer it while holding it.
    pub fn poll_event(&mut self) -> Option<Event<'_>> {
        let (entry, text) = self.events.pop()?;
        Some(entry.event(text))
    }

    /// The next event together with [`Commands`] for the rest of the session: the event
    /// borrows only the event queue, the commands borrow everything else, so a host can
    /// answer a request straight from the event's params without copying them
    /// (quinn's `SendStream<'a>` shape).
    ///
    /// ```
    /// # use picomcp::json::Json;
    /// # use picomcp::session::{Config, Event, Session, StaticStorage};
    /// # let mut config = Config::server("echo", "1", Json::new(r#"{"tools":{}}"#).unwrap());
    /// # config.limits.max_line = 1024;
    /// # let mut mem: StaticStorage<1024, 4096, 2048, 4, 1, 16384> = StaticStorage::new();
    /// # let mut session = Session::new(&config, mem.as_storage(), 0).unwrap();
    /// while let Some((event, mut commands)) = session.poll_event_split() {
    ///     if let Event::Request { id, params, .. } = event {
    ///         // `params` still borrows the event queue while we answer with it.
    ///         let args = params.and_then(|p| p.get("arguments"));
    ///         commands.respond(id, args.unwrap_or(Json::EMPTY_OBJECT)).ok();
    ///     }
    /// }
    /// ```
    pub fn poll_event_split(&mut self) -> Option<(Event<'_>, Commands<'_, 's>)> {
        let (entry, text) = self.events.pop()?;
        Some((entry.event(text), Commands::new(&mut self.core)))
    }

    /// Like [`poll_event`](Self::poll_event), but copies the event's text into `scratch`,
    /// so the event does not borrow the session and commands can be issued while it is
    /// in use. `scratch` of [`Limits::max_line`] bytes is always enough. (Up to 63 bytes of
    /// `scratch` after the text are zeroed: the UTF-8 check of the copy runs over whole
    /// 64-byte blocks.)
    /// [`poll_event_split`](Self::poll_event_split) does the same without the copy.
    ///
    /// # Errors
    /// [`InsufficientSize`] when `scratch` is too small; the event stays queued.
    pub fn poll_event_copied<'b>(
        &mut self,
        scratch: &'b mut [u8],
    ) -> Result<Option<Event<'b>>, InsufficientSize> {
        let Some(len) = self.events.peek_len() else {
            return Ok(None);
        };
        if len > scratch.len() {
            return Err(InsufficientSize { required: len });
        }
        let Some((entry, text)) = self.events.pop_bytes() else {
            return Ok(None);
        };
        scratch[..len].copy_from_slice(text);
        // The copy is checked as UTF-8 once, here (not also in the queue). Zeros up to the
        // next 64-byte boundary let the check run over whole blocks ([`events::text_str`]).
        let padded = len.next_multiple_of(64).min(scratch.len());
        scratch[len..padded].fill(0);
        let scratch = &scratch[..padded];
        Ok(Some(
            entry.event(events::text_str(&scratch[..len], scratch)),
        ))
    }

    /// True when [`poll_event`](Self::poll_event) would return an event.
    pub fn has_events(&self) -> bool {
        !self.events.is_empty()
    }

    /// When [`handle_timeout`](Self::handle_timeout) should next be called.
    pub fn poll_timeout(&self) -> Option<u64> {
        if self.core.life.is_closed() {
            return None;
        }
        let ours = self.core.outbound.next_deadline();
        match (self.core.life.deadline(), ours) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Commands for this session, as [`poll_event_split`](Self::poll_event_split) hands
    /// them out.
    pub fn commands(&mut self) -> Commands<'_, 's> {
        Commands::new(&mut self.core)
    }

    /// Ends the session locally: queues [`Event::Closed`]`(Local)`; later input is ignored.
    pub fn close(&mut self) {
        if self.core.role == Role::Server && self.core.life.is_modern() {
            self.core.close_listens();
        }
        self.core.close(&mut self.events, CloseReason::Local);
    }
}

/// [`Session::handle_message`] could not take the message now: the transmit or event
/// queue is too full for its replies and events. Drain both and offer it again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Busy;

impl core::fmt::Display for Busy {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("the session's queues are full; drain them and retry")
    }
}

/// The configuration text copied into `Storage::info`: each piece is already JSON
/// (`name`, `version` and `instructions` as escaped strings, `capabilities` an object).
#[derive(Clone, Copy)]
struct ConfigText<'a> {
    name: &'a str,
    version: &'a str,
    capabilities: &'a str,
    instructions: Option<&'a str>,
}

impl<'a> ConfigText<'a> {
    /// Reads the pieces from `info` (borrowing only that field, so the transmit queue can
    /// be written at the same time).
    fn of(info: &'a [u8], spans: &[(usize, usize); 4]) -> Self {
        let text = |(s, n): (usize, usize)| core::str::from_utf8(&info[s..s + n]).unwrap_or("null");
        ConfigText {
            name: text(spans[0]),
            version: text(spans[1]),
            capabilities: text(spans[2]),
            instructions: (spans[3].1 > 0).then(|| text(spans[3])),
        }
    }

    /// `(name, version, capabilities)`, as the request envelope needs them.
    fn envelope(&self) -> (&'a str, &'a str, &'a str) {
        (self.name, self.version, self.capabilities)
    }
}

/// Transmit space an automatic reply to a line of `line` bytes may need.
/// `wanted` without the revisions of an era this build leaves out (the `legacy` and
/// `modern` Cargo features).
fn compiled_versions(wanted: Versions) -> Versions {
    let mut list = ProtocolVersion::ALL;
    let mut n = 0;
    for v in wanted.iter() {
        if (v.is_legacy() && cfg!(feature = "legacy"))
            || (!v.is_legacy() && cfg!(feature = "modern"))
        {
            list[n] = v;
            n += 1;
        }
    }
    Versions::of(&list[..n])
}

fn reply_reserve(line: usize, info: usize) -> usize {
    (line + 320).max(info + 640)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The storage types the firmware budgets for: these must not grow.
    #[test]
    fn slot_sizes() {
        extern crate std;
        std::println!(
            "inbound {} outbound {} event {}",
            size_of::<InboundSlot>(),
            size_of::<OutboundSlot>(),
            size_of::<EventSlot>()
        );
        assert!(size_of::<EventSlot>() <= 32);
        assert!(size_of::<InboundSlot>() <= 288);
        assert!(size_of::<OutboundSlot>() <= 88);
    }
}
