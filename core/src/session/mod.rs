//! The sans-IO session: one MCP connection, client or server role.
//!
//! See [`Session`] for the call-order contract.

mod arena;
mod batch;
mod client;
mod codes;
mod events;
mod flat;
mod modern;
mod names;
mod outbox;
mod storage;
mod types;

pub use flat::{EventId, EventKind, FlatEvent};
pub use modern::{Change, Era};
pub use storage::{InboundSlot, OutboundSlot, Slice, StaticStorage, Storage};
pub use types::{
    CloseReason, Config, ConfigError, Event, InboundId, OutboundId, Phase, RequestInfo,
    RequestOptions, RespondError, SendError, Stats, Violation,
};

use arena::Arena;
use batch::BatchState;
use codes::{decode_close, decode_violation, encode_close, encode_violation};
use events::{EvKind, EventQueue, HEADER, Header};
use modern::modern_claim;
use outbox::Outbox;
use storage::InboundState;

use crate::Limits;
use crate::error::{ErrorCode, InsufficientSize};
use crate::framing::{Frame, LineDecoder};
use crate::json::{Json, JsonStr, JsonWriter, MAX_DEPTH_CAP};
use crate::jsonrpc::{self, ID_CAPACITY, Id, Message, ParseError};
use crate::protocol::{Caps, Gate, LogLevel, Method, MethodKind, ProtocolVersion, Role, Versions};

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
///   with [`advance_transmit`](Self::advance_transmit)), [`poll_event`](Self::poll_event),
///   [`poll_timeout`](Self::poll_timeout).
///
/// **Drain contract:** after every input or command, write out everything
/// `poll_transmit` gives, take every event from `poll_event` (answering requests as you
/// go), then ask `poll_timeout` when to call `handle_timeout` next. An event borrows the
/// session until your next call on it: take what you need (handles are `Copy`), then
/// issue commands.
///
/// **Backpressure:** `handle_bytes` returns how many bytes it took. Fewer than offered
/// means the transmit or event queue is full: drain both, then offer the rest again.
pub struct Session<'s> {
    decoder: LineDecoder<Slice<'s, u8>>,
    core: Core<'s>,
}

/// Everything but the decoder, so a decoded line can borrow the decoder while the rest
/// of the state is updated.
struct Core<'s> {
    role: Role,
    limits: Limits,
    versions: Versions,
    own_caps: Caps,
    peer_caps: Caps,
    phase: Phase,
    version: Option<ProtocolVersion>,
    info: Slice<'s, u8>,
    /// (start, len) of name, version, capabilities, instructions in `info`.
    info_spans: [(usize, usize); 4],
    outbox: Outbox<'s>,
    events: EventQueue<'s>,
    inbound: Slice<'s, InboundSlot>,
    outbound: Slice<'s, OutboundSlot>,
    next_id: u64,
    /// Which of our last 64 request ids got their answer: bit `k` is id `next_id - 1 - k`.
    /// Tells a duplicate response (a violation) from a late one (after a timeout or a
    /// cancellation, which is normal).
    answered: u64,
    /// Client: the wire id of our `initialize`.
    init_id: Option<u64>,
    init_deadline: Option<u64>,
    log_level: Option<LogLevel>,
    default_timeout: Option<u64>,
    stats: Stats,
    era: Era,
    arena: Arena,
    cache_ttl_ms: u64,
    cache_public: bool,
    probe_timeout_ms: u64,
    /// Client: the wire id of our pending `server/discover` probe.
    probe_id: Option<u64>,
    batch: BatchState,
}

impl<'s> Session<'s> {
    /// Creates a session. A client queues its `initialize` request at once.
    ///
    /// # Errors
    /// [`ConfigError`] when the configuration is inconsistent or a buffer is too small.
    pub fn new(config: &Config<'_>, storage: Storage<'s>, now: u64) -> Result<Self, ConfigError> {
        let l = config.limits;
        if !config.capabilities.is_object() {
            return Err(ConfigError::CapabilitiesNotObject);
        }
        if config.versions.is_empty() {
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
        let ev_need = l.max_line + 4 * HEADER;
        if storage.events.len() < ev_need {
            return Err(ConfigError::BufferTooSmall {
                which: "events",
                required: ev_need,
            });
        }
        let Storage {
            rx,
            tx,
            events,
            mut inbound,
            mut outbound,
            mut info,
        } = storage;
        for s in inbound.iter_mut() {
            *s = InboundSlot::EMPTY;
        }
        for s in outbound.iter_mut() {
            *s = OutboundSlot::EMPTY;
        }
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
        let mut core = Core {
            role: config.role,
            limits: l,
            versions: config.versions,
            own_caps: Caps::from_json(config.capabilities),
            peer_caps: Caps::NONE,
            phase: Phase::Initializing,
            version: None,
            info,
            info_spans: spans,
            outbox: Outbox::new(tx),
            events: EventQueue::new(events),
            inbound,
            outbound,
            next_id: 0,
            answered: 0,
            init_id: None,
            init_deadline: None,
            log_level: None,
            default_timeout: config.request_timeout_ms,
            stats: Stats::default(),
            era: Era::Opening,
            arena: Arena::new(at, config.arena_bytes),
            cache_ttl_ms: config.cache_ttl_ms,
            cache_public: config.cache_public,
            probe_timeout_ms: config.probe_timeout_ms,
            probe_id: None,
            batch: BatchState::new(at + config.arena_bytes, config.batch_bytes),
        };
        if config.instructions.is_none() {
            core.info_spans[3] = (0, 0);
        }
        if core.role == Role::Client {
            core.connect(now);
        }
        Ok(Session {
            decoder: LineDecoder::new(rx, l.max_depth),
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
        self.core.phase
    }

    /// The negotiated revision, once agreed.
    pub fn version(&self) -> Option<ProtocolVersion> {
        self.core.version
    }

    /// The peer's capabilities (empty before the handshake).
    pub fn peer_capabilities(&self) -> Caps {
        self.core.peer_caps
    }

    /// Our capabilities.
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

    /// True when a response to `id` is still owed.
    pub fn is_open(&self, id: InboundId) -> bool {
        self.core
            .inbound_slot(id)
            .is_some_and(|s| s.state == InboundState::Open)
    }

    // ---- inputs ----

    /// Feeds bytes read from the peer; returns how many were taken.
    ///
    /// Call after reading from the transport, then drain the outputs. Returns fewer than
    /// `bytes.len()` when the transmit or event queue is full: drain them and offer the
    /// rest again.
    pub fn handle_bytes(&mut self, now: u64, bytes: &[u8]) -> usize {
        let mut taken = 0;
        while taken < bytes.len() && self.core.phase != Phase::Closed {
            let input = &bytes[taken..];
            // Check room for the frame these bytes complete *before* taking them, so that
            // every byte reported as taken has been fully handled.
            if !self.core.has_room(self.decoder.max_line(), false)
                && let Some(p) = self.decoder.peek(input)
                && !self.core.has_room(p.line_len, p.batch)
            {
                break;
            }
            if self.decoder.peek(input).is_some_and(|p| p.batch) && self.core.batch_busy() {
                break;
            }
            let d = self.decoder.decode(input);
            taken += d.consumed;
            if let Some(frame) = d.frame {
                self.core.stats.lines_in += 1;
                self.core.on_frame(now, frame);
            }
        }
        taken
    }

    /// The peer closed its side of the stream. A final line without `\n` is processed,
    /// then [`Event::Closed`] is queued.
    pub fn handle_eof(&mut self, now: u64) {
        if self.core.phase == Phase::Closed {
            return;
        }
        if self.decoder.buffered() > 0 && !self.decoder.is_discarding() {
            let d = self.decoder.decode(b"\n");
            if let Some(f) = d.frame {
                self.core.stats.lines_in += 1;
                self.core.on_frame(now, f);
            }
        }
        self.decoder.reset();
        let reason = if self.core.probe_id.is_some() {
            CloseReason::PeerClosedDuringProbe
        } else {
            CloseReason::PeerClosed
        };
        self.core.close(reason);
    }

    /// Time has passed: expires requests whose deadline is `now` or earlier.
    pub fn handle_timeout(&mut self, now: u64) {
        self.core.on_timeout(now);
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

    /// The next event, if any. It borrows the session until the next call on it.
    pub fn poll_event(&mut self) -> Option<Event<'_>> {
        let (h, payload) = self.core.events.pop()?;
        Some(make_event(&h, payload))
    }

    /// Like [`poll_event`](Self::poll_event), but copies the event's text into `scratch`,
    /// so the event does not borrow the session and commands can be issued while it is
    /// in use. `scratch` of [`Limits::max_line`] bytes is always enough.
    ///
    /// # Errors
    /// [`InsufficientSize`] when `scratch` is too small; the event stays queued.
    pub fn poll_event_copied<'b>(
        &mut self,
        scratch: &'b mut [u8],
    ) -> Result<Option<Event<'b>>, InsufficientSize> {
        let Some(len) = self.core.events.peek_len() else {
            return Ok(None);
        };
        if len > scratch.len() {
            return Err(InsufficientSize { required: len });
        }
        let Some((h, payload)) = self.core.events.pop() else {
            return Ok(None);
        };
        scratch[..len].copy_from_slice(payload.as_bytes());
        let text = core::str::from_utf8(&scratch[..len]).unwrap_or("");
        Ok(Some(make_event(&h, text)))
    }

    /// True when [`poll_event`](Self::poll_event) would return an event.
    pub fn has_events(&self) -> bool {
        self.core.events.peek_len().is_some()
    }

    /// When [`handle_timeout`](Self::handle_timeout) should next be called.
    pub fn poll_timeout(&self) -> Option<u64> {
        if self.core.phase == Phase::Closed {
            return None;
        }
        let mut t = self.core.init_deadline;
        for s in self.core.outbound.iter().filter(|s| s.active) {
            for d in [s.deadline, s.hard_deadline].into_iter().flatten() {
                t = Some(t.map_or(d, |t: u64| t.min(d)));
            }
        }
        t
    }

    // ---- commands ----

    /// Answers a request with a result object.
    ///
    /// # Errors
    /// [`RespondError`]; nothing is queued on error. A request the peer cancelled is
    /// silently finished (`Ok`), as the spec says its response must not be sent.
    pub fn respond(&mut self, id: InboundId, result: Json<'_>) -> Result<(), RespondError> {
        if !result.is_object() {
            return Err(RespondError::ResultNotObject);
        }
        self.respond_with(id, |w| w.raw(result))
    }

    /// Answers a request with a result written directly into the transmit queue by `f`
    /// (which must write exactly one JSON object and may be called twice).
    ///
    /// # Errors
    /// As [`respond`](Self::respond).
    pub fn respond_with(
        &mut self,
        id: InboundId,
        f: impl Fn(&mut JsonWriter<'_>),
    ) -> Result<(), RespondError> {
        let c = &mut self.core;
        let slot = *c.inbound_slot(id).ok_or(RespondError::UnknownRequest)?;
        match slot.state {
            InboundState::Cancelled => {
                c.free_inbound(id.index);
                if slot.in_batch {
                    c.batch_member_done();
                }
                return Ok(());
            }
            InboundState::Open => {}
            _ => return Err(RespondError::UnknownRequest),
        }
        let g = |w: &mut JsonWriter<'_>, cr: &Core<'_>| {
            w.begin_object();
            w.key("jsonrpc");
            w.string("2.0");
            w.key("id");
            w.raw(Json::from_validated(slot.id.as_str()));
            w.key("result");
            let start = w.len();
            f(w);
            if slot.modern {
                cr.decorate_result(w, start, slot.method);
            }
            w.end_object();
        };
        if slot.in_batch {
            let staged = |w: &mut JsonWriter<'_>| {
                w.begin_object();
                w.key("jsonrpc");
                w.string("2.0");
                w.key("id");
                w.raw(Json::from_validated(slot.id.as_str()));
                w.key("result");
                f(w);
                w.end_object();
            };
            c.stage(&staged).map_err(RespondError::Full)?;
            c.free_inbound(id.index);
            c.batch_member_done();
            return Ok(());
        }
        let mut out = Outbox::detached();
        core::mem::swap(&mut out, &mut c.outbox);
        let cr: &Core<'_> = c;
        let r = out.push_with(|w| g(w, cr));
        core::mem::swap(&mut out, &mut c.outbox);
        r.map_err(RespondError::Full)?;
        c.stats.messages_out += 1;
        c.free_inbound(id.index);
        Ok(())
    }

    /// Answers a request with an error.
    ///
    /// In a 2026-07-28 request, -32002 (resource not found, removed in that revision) is
    /// sent as -32602.
    ///
    /// # Errors
    /// As [`respond`](Self::respond); [`RespondError::ReservedCode`] for a code in
    /// -32099..=-32020 (use [`respond_missing_capability`](Self::respond_missing_capability)
    /// for -32021; -32042 is allowed in the legacy era).
    pub fn respond_error(
        &mut self,
        id: InboundId,
        code: ErrorCode,
        message: &str,
        data: Option<Json<'_>>,
    ) -> Result<(), RespondError> {
        let modern = self.core.inbound_slot(id).is_some_and(|s| s.modern);
        if (-32099..=-32020).contains(&code.0)
            && (modern || code != ErrorCode::URL_ELICITATION_REQUIRED)
        {
            return Err(RespondError::ReservedCode(code));
        }
        let code = if modern && code == ErrorCode::RESOURCE_NOT_FOUND {
            ErrorCode::INVALID_PARAMS
        } else {
            code
        };
        self.respond_error_unchecked(id, code, message, data)
    }

    fn respond_error_unchecked(
        &mut self,
        id: InboundId,
        code: ErrorCode,
        message: &str,
        data: Option<Json<'_>>,
    ) -> Result<(), RespondError> {
        let c = &mut self.core;
        let slot = *c.inbound_slot(id).ok_or(RespondError::UnknownRequest)?;
        match slot.state {
            InboundState::Cancelled => {
                c.free_inbound(id.index);
                if slot.in_batch {
                    c.batch_member_done();
                }
                return Ok(());
            }
            InboundState::Open => {}
            _ => return Err(RespondError::UnknownRequest),
        }
        let raw = slot.id;
        let f = |w: &mut JsonWriter<'_>| {
            jsonrpc::encode_error(w, Some(Id::from_raw(raw.as_str())), code, message, data)
        };
        if slot.in_batch {
            // A batch member: its error goes into the batch reply.
            c.stage(&f).map_err(RespondError::Full)?;
            c.free_inbound(id.index);
            c.batch_member_done();
            return Ok(());
        }
        c.outbox.push_with(f).map_err(RespondError::Full)?;
        c.stats.messages_out += 1;
        c.free_inbound(id.index);
        Ok(())
    }

    /// 2026-07-28: answers that the request needs a client capability it did not declare
    /// (-32021). `required` is a capabilities object naming the missing pieces, e.g.
    /// `{"elicitation":{}}`.
    ///
    /// # Errors
    /// As [`respond`](Self::respond); [`RespondError::ResultNotObject`] when `required`
    /// is not an object.
    pub fn respond_missing_capability(
        &mut self,
        id: InboundId,
        required: Json<'_>,
    ) -> Result<(), RespondError> {
        if !required.is_object() {
            return Err(RespondError::ResultNotObject);
        }
        let c = &mut self.core;
        let slot = *c.inbound_slot(id).ok_or(RespondError::UnknownRequest)?;
        if slot.state == InboundState::Cancelled {
            c.free_inbound(id.index);
            if slot.in_batch {
                c.batch_member_done();
            }
            return Ok(());
        }
        let f = |w: &mut JsonWriter<'_>| {
            w.begin_object();
            w.key("jsonrpc");
            w.string("2.0");
            w.key("id");
            w.raw(Json::from_validated(slot.id.as_str()));
            w.key("error");
            w.begin_object();
            w.key("code");
            w.i64(ErrorCode::MISSING_CLIENT_CAPABILITY.0);
            w.key("message");
            w.string("Missing required client capability");
            w.key("data");
            w.begin_object();
            w.key("requiredCapabilities");
            w.raw(required);
            w.end_object();
            w.end_object();
            w.end_object();
        };
        if slot.in_batch {
            // A batch member: its error goes into the batch reply.
            c.stage(&f).map_err(RespondError::Full)?;
            c.free_inbound(id.index);
            c.batch_member_done();
            return Ok(());
        }
        c.outbox.push_with(f).map_err(RespondError::Full)?;
        c.stats.messages_out += 1;
        c.free_inbound(id.index);
        Ok(())
    }

    /// 2026-07-28: answers `tools/call`, `prompts/get` or `resources/read` with an
    /// `input_required` result (MRTR): `input_requests` maps keys to `{method, params}`
    /// (`elicitation/create`, `sampling/createMessage`, `roots/list`), `request_state` is
    /// opaque text the client echoes back. At least one of the two must be given.
    ///
    /// # Errors
    /// [`RespondError::InputNotAllowed`] for another method, a legacy request, or an input
    /// kind the request's client capabilities did not declare; otherwise as
    /// [`respond`](Self::respond).
    pub fn respond_input_required(
        &mut self,
        id: InboundId,
        input_requests: Option<Json<'_>>,
        request_state: Option<&str>,
    ) -> Result<(), RespondError> {
        let slot = *self
            .core
            .inbound_slot(id)
            .ok_or(RespondError::UnknownRequest)?;
        let allowed = slot.modern
            && slot.method.allows_input_required()
            && (input_requests.is_some() || request_state.is_some())
            && input_requests.is_none_or(|r| Core::input_requests_allowed(slot.client_caps, r));
        if !allowed {
            return Err(RespondError::InputNotAllowed);
        }
        self.respond_with(id, |w| {
            w.begin_object();
            w.key("resultType");
            w.string("input_required");
            if let Some(r) = input_requests {
                w.key("inputRequests");
                w.raw(r);
            }
            if let Some(s) = request_state {
                w.key("requestState");
                w.string(s);
            }
            w.end_object();
        })
    }

    /// Announces a change; the core delivers it the right way for the era, or not at all
    /// when nobody asked for it. Returns how many notifications were queued.
    ///
    /// # Errors
    /// [`SendError::NotNegotiated`] when our capabilities do not include the matching
    /// flag (`tools.listChanged`, `resources.subscribe`, ...); [`SendError::Full`].
    pub fn notify(&mut self, change: Change<'_>) -> Result<usize, SendError> {
        self.core.notify(change)
    }

    /// What the core knows about an open request from the peer.
    pub fn request_info(&self, id: InboundId) -> Option<RequestInfo> {
        let s = self.core.inbound_slot(id)?;
        Some(RequestInfo {
            method: s.method,
            modern: s.modern,
            client_capabilities: s.client_caps,
            log_level: if s.log_level == 0xFF {
                None
            } else {
                LogLevel::from_index(s.log_level)
            },
            has_progress_token: !s.token.is_empty(),
            cancelled: s.state == InboundState::Cancelled,
        })
    }

    /// True when the client subscribed to `uri` (legacy `resources/subscribe`, or a
    /// 2026-07-28 `subscriptions/listen` naming it), so a
    /// [`Change::ResourceUpdated`] for it would be delivered.
    pub fn is_subscribed(&self, uri: &str) -> bool {
        let c = &self.core;
        c.arena.iter(&c.info).any(|(owner, b)| {
            let live = owner == arena::LEGACY_OWNER
                || c.inbound
                    .get(owner as usize)
                    .is_some_and(|s| s.state == InboundState::Listening);
            live && JsonStr::from_validated(core::str::from_utf8(b).unwrap_or(""), true).eq_str(uri)
        })
    }

    /// The era of the connection (latched by the first message that decides it).
    pub fn era(&self) -> Era {
        self.core.era
    }

    /// Sends a request to the peer. The core assigns the id; the response arrives as
    /// [`Event::Response`] or [`Event::ErrorResponse`] with the returned handle.
    ///
    /// # Errors
    /// [`SendError`] when the lifecycle, direction, negotiated capabilities or a bound
    /// forbids it; nothing is queued.
    pub fn send_request(
        &mut self,
        now: u64,
        method: Method,
        params: Option<Json<'_>>,
        opts: RequestOptions,
    ) -> Result<OutboundId, SendError> {
        self.core.send_request(now, method, params, opts)
    }

    /// Sends a notification to the peer, checked against the negotiated capabilities
    /// (e.g. `notifications/tools/list_changed` needs our `tools.listChanged`).
    ///
    /// # Errors
    /// [`SendError`]; nothing is queued.
    pub fn send_notification(
        &mut self,
        method: Method,
        params: Option<Json<'_>>,
    ) -> Result<(), SendError> {
        if params.is_some_and(|p| !p.is_object()) {
            return Err(SendError::ParamsNotObject);
        }
        if self.core.role == Role::Server {
            // Change notifications go through `notify`, which knows the era's rules.
            let change = match method {
                Method::ToolsListChanged => Some(Change::ToolsListChanged),
                Method::PromptsListChanged => Some(Change::PromptsListChanged),
                Method::ResourcesListChanged => Some(Change::ResourcesListChanged),
                Method::ResourcesUpdated => {
                    let uri = params
                        .and_then(|p| p.get("uri"))
                        .and_then(|u| u.as_str())
                        .and_then(|u| u.as_plain());
                    Some(Change::ResourceUpdated(
                        uri.ok_or(SendError::ParamsNotObject)?,
                    ))
                }
                _ => None,
            };
            if let Some(c) = change {
                return self.core.notify(c).map(|_| ());
            }
            if method == Method::LogMessage && self.core.era == Era::Modern {
                return Err(SendError::Reserved(method)); // use log_for
            }
        }
        self.core.check_send(method, MethodKind::Notification)?;
        if matches!(
            method,
            Method::Initialized | Method::Cancelled | Method::Progress
        ) {
            return Err(SendError::Reserved(method));
        }
        self.core
            .push(|w| jsonrpc::encode_notification(w, method.as_str(), params))
            .map_err(SendError::Full)
    }

    /// Server: sends `notifications/message` for the legacy era, if logging was declared
    /// and `level` is at or above the level the client set with `logging/setLevel`.
    /// In the 2026-07-28 era log messages belong to a request: this sends nothing and
    /// returns `Ok(false)`; use [`log_for`](Self::log_for). Returns whether it was sent.
    ///
    /// # Errors
    /// [`SendError::NotNegotiated`] without the `logging` capability; [`SendError::Full`].
    pub fn log(
        &mut self,
        level: LogLevel,
        logger: Option<&str>,
        data: Json<'_>,
    ) -> Result<bool, SendError> {
        if self.core.era == Era::Modern {
            return Ok(false);
        }
        self.core
            .check_send(Method::LogMessage, MethodKind::Notification)?;
        if self.core.log_level.is_some_and(|min| level < min) {
            return Ok(false);
        }
        self.core
            .push_log(level, logger, data)
            .map_err(SendError::Full)?;
        Ok(true)
    }

    /// Server: a log message about the request `id`. 2026-07-28: sent only when that
    /// request asked for log messages (`_meta` logLevel) at `level` or below. Legacy: as
    /// [`log`](Self::log). Returns whether it was sent.
    ///
    /// # Errors
    /// As [`log`](Self::log); [`SendError::UnknownRequest`] for a finished request.
    pub fn log_for(
        &mut self,
        id: InboundId,
        level: LogLevel,
        logger: Option<&str>,
        data: Json<'_>,
    ) -> Result<bool, SendError> {
        let slot = *self
            .core
            .inbound_slot(id)
            .ok_or(SendError::UnknownRequest)?;
        if !slot.modern {
            return self.log(level, logger, data);
        }
        if slot.state != InboundState::Open {
            return Ok(false);
        }
        if !self.core.own_caps.contains(Caps::LOGGING) {
            return Err(SendError::NotNegotiated(Method::LogMessage));
        }
        match LogLevel::from_index(slot.log_level) {
            Some(min) if level >= min => {
                self.core
                    .push_log(level, logger, data)
                    .map_err(SendError::Full)?;
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    /// Client, 2026-07-28: answers an [`Event::InputRequired`]. `responses` maps each key
    /// of `inputRequests` to its answer; the core re-issues the original request with a
    /// new wire id, these `inputResponses` and the echoed `requestState`. The handle stays
    /// the same.
    ///
    /// # Errors
    /// [`SendError::UnknownRequest`] when the request is not waiting for input;
    /// [`SendError::ParamsNotObject`]; [`SendError::Full`].
    pub fn answer_input(
        &mut self,
        now: u64,
        id: OutboundId,
        responses: Json<'_>,
    ) -> Result<(), SendError> {
        self.core.answer_input(now, id, responses)
    }

    /// Client, 2026-07-28: opens a `subscriptions/listen` stream with the filter
    /// `notifications` (e.g. `{"toolsListChanged":true}`). The acknowledgement arrives
    /// as [`Event::SubscriptionAcknowledged`], then tagged notifications as
    /// [`Event::Notification`]; [`cancel`](Self::cancel) ends it.
    ///
    /// # Errors
    /// [`SendError::NotInVersion`] outside the modern era; as
    /// [`send_request`](Self::send_request) otherwise.
    pub fn listen(&mut self, notifications: Json<'_>) -> Result<OutboundId, SendError> {
        let c = &mut self.core;
        if c.role != Role::Client || c.era != Era::Modern || c.phase != Phase::Operating {
            return Err(SendError::NotInVersion(Method::SubscriptionsListen));
        }
        if !notifications.is_object() {
            return Err(SendError::ParamsNotObject);
        }
        let Some(index) = c.outbound.iter().position(|s| !s.active) else {
            return Err(SendError::TooManyRequests);
        };
        let id = c.next_id;
        c.push_listen(id, notifications).map_err(SendError::Full)?;
        c.consume_id();
        let slot = &mut c.outbound[index];
        *slot = OutboundSlot {
            generation: slot.generation.wrapping_add(1),
            ..OutboundSlot::EMPTY
        };
        slot.active = true;
        slot.listen = true;
        slot.method = Method::SubscriptionsListen;
        slot.wire_id = id;
        Ok(OutboundId {
            index: index as u16,
            generation: slot.generation,
        })
    }

    /// Cancels one of our requests: queues `notifications/cancelled`; a late response
    /// is dropped.
    ///
    /// # Errors
    /// [`SendError::UnknownRequest`] for a finished request; [`SendError::Full`].
    pub fn cancel(&mut self, id: OutboundId, reason: Option<&str>) -> Result<(), SendError> {
        let c = &mut self.core;
        let slot = c.outbound_slot(id).ok_or(SendError::UnknownRequest)?;
        let wire = slot.wire_id;
        c.push_cancelled(wire, reason).map_err(SendError::Full)?;
        c.finish_outbound(id.index as usize);
        Ok(())
    }

    /// Reports progress on a request the peer sent with a progress token. Values must
    /// increase.
    ///
    /// # Errors
    /// [`SendError::NoProgressToken`], [`SendError::ProgressNotIncreasing`],
    /// [`SendError::UnknownRequest`], [`SendError::Full`].
    pub fn progress(
        &mut self,
        id: InboundId,
        progress: f64,
        total: Option<f64>,
        message: Option<&str>,
    ) -> Result<(), SendError> {
        let c = &mut self.core;
        let slot = c.inbound_slot(id).ok_or(SendError::UnknownRequest)?;
        if slot.state != InboundState::Open {
            return Err(SendError::UnknownRequest);
        }
        if slot.token.is_empty() {
            return Err(SendError::NoProgressToken);
        }
        // Not finite: JSON has no NaN or infinity (it would go out as `null`).
        if !progress.is_finite()
            || total.is_some_and(|t| !t.is_finite())
            || (slot.has_progress && progress <= slot.last_progress)
        {
            return Err(SendError::ProgressNotIncreasing);
        }
        let token = slot.token;
        let with_message =
            message.is_some() && c.version.is_some_and(|v| v >= ProtocolVersion::V2025_03_26);
        c.push(|w| {
            w.begin_object();
            w.key("jsonrpc");
            w.string("2.0");
            w.key("method");
            w.string(Method::Progress.as_str());
            w.key("params");
            w.begin_object();
            w.key("progressToken");
            w.raw(Json::from_validated(token.as_str()));
            w.key("progress");
            w.f64(progress);
            if let Some(t) = total {
                w.key("total");
                w.f64(t);
            }
            if let (true, Some(m)) = (with_message, message) {
                w.key("message");
                w.string(m);
            }
            w.end_object();
            w.end_object();
        })
        .map_err(SendError::Full)?;
        c.inbound[id.index as usize].last_progress = progress;
        c.inbound[id.index as usize].has_progress = true;
        Ok(())
    }

    /// Ends the session locally: queues [`Event::Closed`]`(Local)`; later input is ignored.
    pub fn close(&mut self) {
        if self.core.role == Role::Server && self.core.era == Era::Modern {
            self.core.close_listens();
        }
        self.core.close(CloseReason::Local);
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
fn reply_reserve(line: usize, info: usize) -> usize {
    (line + 320).max(info + 640)
}

fn span_str(payload: &str, s: (u32, u32)) -> Option<&str> {
    if s.1 == u32::MAX {
        return None;
    }
    payload.get(s.0 as usize..(s.0 as usize + s.1 as usize))
}

fn make_event<'a>(h: &Header, payload: &'a str) -> Event<'a> {
    let json = |s| span_str(payload, s).map(Json::from_validated);
    let jstr = |s| span_str(payload, s).map(|t| JsonStr::from_validated(t, t.contains('\\')));
    let method = || {
        crate::protocol::METHODS
            .get(h.small[0] as usize)
            .map_or(Method::Ping, |m| m.method)
    };
    let version = || {
        ProtocolVersion::ALL
            .get(h.small[0] as usize)
            .copied()
            .unwrap_or(ProtocolVersion::LATEST_LEGACY)
    };
    let inbound = InboundId::from_bits(h.handle);
    let outbound = OutboundId::from_bits(h.handle);
    match h.kind {
        EvKind::Negotiated => Event::Negotiated {
            version: version(),
            peer: json(h.a).unwrap_or(Json::EMPTY_OBJECT),
        },
        EvKind::Ready => Event::Ready { version: version() },
        EvKind::Request => Event::Request {
            id: inbound,
            method: method(),
            params: json(h.a),
        },
        EvKind::Notification => Event::Notification {
            method: method(),
            params: json(h.a),
        },
        EvKind::Response => Event::Response {
            id: outbound,
            result: json(h.a).unwrap_or(Json::EMPTY_OBJECT),
        },
        EvKind::ErrorResponse => Event::ErrorResponse {
            id: outbound,
            code: h.code,
            message: jstr(h.b).unwrap_or(JsonStr::from_validated("", false)),
            data: json(h.a),
        },
        EvKind::TimedOut => Event::TimedOut { id: outbound },
        EvKind::Cancelled => Event::Cancelled {
            id: inbound,
            reason: jstr(h.b),
        },
        EvKind::Progress => {
            let params = json(h.a).unwrap_or(Json::EMPTY_OBJECT);
            Event::Progress {
                id: outbound,
                progress: params
                    .get("progress")
                    .and_then(|p| p.as_f64_compact())
                    .unwrap_or(0.0),
                total: params.get("total").and_then(|p| p.as_f64_compact()),
                params,
            }
        }
        EvKind::Violation => Event::PeerViolation(decode_violation(h)),
        EvKind::Closed => Event::Closed(decode_close(h)),
        EvKind::InputRequired => Event::InputRequired {
            id: outbound,
            input_requests: json(h.a),
        },
        EvKind::SubscriptionAck => Event::SubscriptionAcknowledged {
            id: outbound,
            notifications: json(h.a).unwrap_or(Json::EMPTY_OBJECT),
        },
        EvKind::InvalidResult => Event::InvalidResult {
            id: outbound,
            result: json(h.a).unwrap_or(Json::EMPTY_OBJECT),
        },
        EvKind::SubscriptionEnded => Event::SubscriptionEnded { id: outbound },
    }
}

impl<'s> Core<'s> {
    fn has_room(&self, line_len: usize, is_batch: bool) -> bool {
        if is_batch && self.batch_busy() {
            return false;
        }
        let info = if self.role == Role::Server && self.phase == Phase::Initializing {
            self.info_spans.iter().map(|s| s.1).sum()
        } else {
            0
        };
        self.outbox.free() >= reply_reserve(line_len, info).min(self.outbox.capacity())
            && self.events.free() >= (line_len + 4 * HEADER).min(self.events.capacity())
            // A full request table while the host has not seen some requests yet: wait
            // for it to drain and answer them rather than rejecting with -32603. Once the
            // event queue is empty, the -32603 rule applies.
            && (self.events.peek_len().is_none() || self.inbound.iter().any(|s| s.state == InboundState::Free))
    }

    fn push(&mut self, f: impl Fn(&mut JsonWriter<'_>)) -> Result<(), InsufficientSize> {
        self.outbox.push_with(f)?;
        self.stats.messages_out += 1;
        Ok(())
    }

    fn event(&mut self, h: Header, payload: &str) {
        // Room was reserved in `has_room`; an event that still does not fit is a bug in
        // the reservation, never a reason to panic.
        let _ = self.events.push(&h, payload);
    }

    fn violation(&mut self, v: Violation) {
        self.stats.violations += 1;
        let h = encode_violation(v);
        self.event(h, "");
    }

    fn close(&mut self, reason: CloseReason) {
        if self.phase == Phase::Closed {
            return;
        }
        self.phase = Phase::Closed;
        self.init_deadline = None;
        let h = encode_close(reason);
        let _ = self.events.push(&h, "");
    }

    fn reply_error(&mut self, id: Option<Id<'_>>, code: ErrorCode, message: &str) {
        let f = |w: &mut JsonWriter<'_>| jsonrpc::encode_error(w, id, code, message, None);
        if self.batch.staging {
            let _ = self.stage(&f);
            return;
        }
        let _ = self.push(f);
    }

    fn reply_result(&mut self, id: Id<'_>, f: impl Fn(&mut JsonWriter<'_>)) {
        let g = |w: &mut JsonWriter<'_>| {
            w.begin_object();
            w.key("jsonrpc");
            w.string("2.0");
            w.key("id");
            w.raw(id.as_json());
            w.key("result");
            f(w);
            w.end_object();
        };
        if self.batch.staging {
            let _ = self.stage(&g);
            return;
        }
        let _ = self.push(|w| {
            w.begin_object();
            w.key("jsonrpc");
            w.string("2.0");
            w.key("id");
            w.raw(id.as_json());
            w.key("result");
            f(w);
            w.end_object();
        });
    }

    fn on_frame(&mut self, now: u64, frame: Frame<'_>) {
        match frame {
            Frame::Line(line) => self.on_line(now, line),
            Frame::InvalidUtf8 { id, .. } => {
                let kind = jsonrpc::ParseErrorKind::InvalidUtf8;
                self.reply_error(id, kind.code(), kind.message());
                self.violation(Violation::Malformed {
                    kind,
                    replied: Some(kind.code()),
                });
            }
            Frame::TooLong { limit, id } => {
                let kind = jsonrpc::ParseErrorKind::LineTooLong;
                self.reply_error(id, kind.code(), kind.message());
                self.violation(Violation::LineTooLong { limit });
            }
        }
    }

    fn on_line(&mut self, now: u64, line: &str) {
        match jsonrpc::parse(line, &self.limits) {
            Ok(Message::Request(r)) => self.on_request(now, r.id, r.method, r.params),
            Ok(Message::Notification(n)) => self.on_notification(now, n.method, n.params),
            Ok(Message::Response(r)) => self.on_response(now, Some(r.id), Ok(r.result)),
            Ok(Message::Error(e)) => self.on_response(now, e.id, Err(e.error)),
            Ok(Message::Batch(b)) => self.on_batch(now, b),
            Err(e) => self.on_parse_error(e),
        }
    }

    fn on_parse_error(&mut self, e: ParseError<'_>) {
        let replied = if e.needs_reply() {
            self.reply_error(e.id, e.code(), e.kind.message());
            Some(e.code())
        } else {
            None
        };
        self.violation(Violation::Malformed {
            kind: e.kind,
            replied,
        });
    }

    /// Capabilities of the server and client sides, as negotiated.
    fn caps_of(&self, side: Role) -> Caps {
        if side == self.role {
            self.own_caps
        } else {
            self.peer_caps
        }
    }

    /// Whether a method's gate is satisfied, given who receives it.
    fn gate_ok(&self, method: Method, receiver: Role) -> bool {
        let v = self.version.unwrap_or(ProtocolVersion::LATEST_LEGACY);
        match method.gate_in(v) {
            Gate::None => true,
            Gate::Server(c) => self.caps_of(Role::Server).contains(c),
            Gate::Client(c) => self.caps_of(Role::Client).contains(c),
            Gate::Receiver(c) => self.caps_of(receiver).contains(c),
        }
    }

    fn on_request(&mut self, now: u64, id: Id<'_>, name: JsonStr<'_>, params: Option<Json<'_>>) {
        if self.role == Role::Server && self.era != Era::Legacy {
            let serves_modern = self.versions.contains(ProtocolVersion::V2026_07_28);
            let serves_legacy = self.versions.newest_legacy().is_some();
            let is = |m: Method| Method::from_json_str(name) == Some(m);
            if modern_claim(params) {
                if serves_modern {
                    if let Some(p) = params {
                        self.on_modern_request(id, name, p);
                    }
                    return;
                }
                // A legacy-only server: answer the probe at once so that clients fall
                // back to `initialize` without waiting.
                if is(Method::ServerDiscover) {
                    self.reply_error(Some(id), ErrorCode::METHOD_NOT_FOUND, "Method not found: this server speaks the legacy protocol only (initialize)");
                    self.violation(Violation::NotNegotiated(Method::ServerDiscover));
                    return;
                }
            } else if self.era == Era::Modern
                || !serves_legacy
                || (serves_modern
                    && (is(Method::ServerDiscover) || is(Method::SubscriptionsListen)))
            {
                // (A claim-less request for a modern-only method is a malformed modern
                // request: -32602, and it does not latch the legacy era.)
                // A claim-less request to a modern-only (or modern-latched) server.
                if is(Method::Initialize) {
                    let requested = params
                        .and_then(|p| p.get("protocolVersion"))
                        .and_then(|v| v.as_str());
                    self.reply_unsupported_version(id, requested, true);
                } else {
                    self.reply_error(
                        Some(id),
                        ErrorCode::INVALID_PARAMS,
                        "Invalid params: missing _meta io.modelcontextprotocol/protocolVersion",
                    );
                    self.violation(Violation::BadEnvelope(
                        Method::from_json_str(name).unwrap_or(Method::Ping),
                    ));
                }
                return;
            }
            // Claim-less traffic latches the legacy era.
            self.era = Era::Legacy;
        }
        if self.role == Role::Client && self.era == Era::Modern {
            // A modern server never sends requests, and a modern client never answers.
            self.violation(Violation::UnexpectedMessage);
            return;
        }
        self.on_legacy_request(now, id, name, params);
    }

    fn on_legacy_request(
        &mut self,
        now: u64,
        id: Id<'_>,
        name: JsonStr<'_>,
        params: Option<Json<'_>>,
    ) {
        let peer = self.role.peer();
        let Some(method) =
            Method::from_json_str(name).filter(|m| m.spec().kind == MethodKind::Request)
        else {
            self.reply_error(Some(id), ErrorCode::METHOD_NOT_FOUND, "Method not found");
            self.violation(Violation::UnknownMethod);
            return;
        };
        if method == Method::Ping {
            if self.id_in_flight(&id) {
                self.reply_error(
                    Some(id),
                    ErrorCode::INVALID_REQUEST,
                    "Invalid Request: duplicate id of a request in flight",
                );
                self.violation(Violation::DuplicateRequestId);
                return;
            }
            self.reply_result(id, |w| {
                w.begin_object();
                w.end_object();
            });
            return;
        }
        let in_version = method.exists_in(self.version.unwrap_or(ProtocolVersion::LATEST_LEGACY))
            && method.spec().since.is_legacy();
        if !method.spec().direction.allows(peer) || !in_version {
            self.reply_error(Some(id), ErrorCode::METHOD_NOT_FOUND, "Method not found");
            let v = if in_version {
                Violation::NotNegotiated(method)
            } else {
                Violation::NotInVersion(method)
            };
            self.violation(v);
            return;
        }
        if self.role == Role::Server && method == Method::Initialize {
            self.on_initialize(now, id, params);
            return;
        }
        if self.role == Role::Server && self.phase == Phase::Initializing {
            self.reply_error(
                Some(id),
                ErrorCode::INVALID_REQUEST,
                "Invalid Request: server not initialized",
            );
            self.violation(Violation::NotInitialized(method));
            return;
        }
        if !self.gate_ok(method, self.role) {
            self.reply_error(
                Some(id),
                ErrorCode::METHOD_NOT_FOUND,
                "Method not found: capability not declared",
            );
            self.violation(Violation::NotNegotiated(method));
            return;
        }
        match method {
            Method::LoggingSetLevel => {
                let level = params
                    .and_then(|p| p.get("level"))
                    .and_then(|l| l.as_str())
                    .and_then(|s| s.as_plain())
                    .and_then(LogLevel::parse);
                match level {
                    Some(l) => {
                        self.log_level = Some(l);
                        self.reply_result(id, |w| {
                            w.begin_object();
                            w.end_object();
                        });
                    }
                    None => {
                        self.reply_error(
                            Some(id),
                            ErrorCode::INVALID_PARAMS,
                            "Invalid params: unknown log level",
                        );
                        self.violation(Violation::InvalidParams(method));
                    }
                }
            }
            Method::ResourcesSubscribe | Method::ResourcesUnsubscribe => {
                self.on_legacy_subscribe(id, method, params)
            }
            _ => {
                if let Some(index) =
                    self.track_inbound(id, method, params.unwrap_or(Json::EMPTY_OBJECT))
                {
                    self.request_event(index, method, params);
                }
            }
        }
    }

    /// Records a request we must answer; on failure the error reply is already queued.
    fn id_in_flight(&self, id: &Id<'_>) -> bool {
        self.inbound
            .iter()
            .any(|s| s.state != InboundState::Free && Id::from_raw(s.id.as_str()).same(id))
    }

    fn track_inbound(&mut self, id: Id<'_>, method: Method, params: Json<'_>) -> Option<usize> {
        if self.id_in_flight(&id) {
            self.reply_error(
                Some(id),
                ErrorCode::INVALID_REQUEST,
                "Invalid Request: duplicate id of a request in flight",
            );
            self.violation(Violation::DuplicateRequestId);
            return None;
        }
        let Some(index) = self
            .inbound
            .iter()
            .position(|s| s.state == InboundState::Free)
        else {
            let msg = if method == Method::SubscriptionsListen {
                "Internal error: subscription limit reached"
            } else {
                "Internal error: too many requests in flight"
            };
            self.reply_error(Some(id), ErrorCode::INTERNAL_ERROR, msg);
            self.violation(Violation::TooManyRequests);
            return None;
        };
        let token = params
            .get("_meta")
            .and_then(|m| m.get("progressToken"))
            .filter(|t| t.as_str().is_some() || t.is_integer());
        let slot = &mut self.inbound[index];
        let generation = slot.generation.wrapping_add(1);
        *slot = InboundSlot::EMPTY;
        slot.generation = generation;
        slot.state = InboundState::Open;
        slot.method = method;
        slot.id.set(id.as_raw());
        if let Some(t) = token {
            slot.token.set(t.as_raw());
        }
        Some(index)
    }

    fn on_initialize(&mut self, _now: u64, id: Id<'_>, params: Option<Json<'_>>) {
        if self.phase != Phase::Initializing {
            self.reply_error(
                Some(id),
                ErrorCode::INVALID_REQUEST,
                "Invalid Request: already initialized",
            );
            self.violation(Violation::DuplicateInitialize);
            return;
        }
        let params = params.unwrap_or(Json::EMPTY_OBJECT);
        let Some(requested) = params.get("protocolVersion").and_then(|v| v.as_str()) else {
            self.reply_error(
                Some(id),
                ErrorCode::INVALID_PARAMS,
                "Invalid params: protocolVersion must be a string",
            );
            self.violation(Violation::InvalidParams(Method::Initialize));
            return;
        };
        let chosen = ProtocolVersion::from_json_str(requested)
            .filter(|v| v.is_legacy() && self.versions.contains(*v))
            .or(self.versions.newest_legacy())
            .unwrap_or(ProtocolVersion::LATEST_LEGACY);
        self.peer_caps = params
            .get("capabilities")
            .filter(|c| c.is_object())
            .map_or(Caps::NONE, Caps::from_json);
        self.version = Some(chosen);
        self.phase = Phase::AwaitingInitialized;
        let t = ConfigText::of(&self.info, &self.info_spans);
        let (name, ver, caps, instr) = (t.name, t.version, t.capabilities, t.instructions);
        let r = self.outbox.push_with(|w| {
            w.begin_object();
            w.key("jsonrpc");
            w.string("2.0");
            w.key("id");
            w.raw(id.as_json());
            w.key("result");
            w.begin_object();
            w.key("protocolVersion");
            w.string(chosen.as_str());
            w.key("capabilities");
            w.raw(Json::from_validated(caps));
            w.key("serverInfo");
            w.begin_object();
            w.key("name");
            w.raw(Json::from_validated(name));
            w.key("version");
            w.raw(Json::from_validated(ver));
            w.end_object();
            if let Some(i) = instr {
                w.key("instructions");
                w.raw(Json::from_validated(i));
            }
            w.end_object();
            w.end_object();
        });
        if r.is_ok() {
            self.stats.messages_out += 1;
        }
        let mut h = Header::new(EvKind::Negotiated);
        h.small[0] = chosen as u8;
        h.a = (0, params.as_raw().len() as u32);
        self.event(h, params.as_raw());
    }

    fn on_notification(&mut self, _now: u64, name: JsonStr<'_>, params: Option<Json<'_>>) {
        let Some(method) =
            Method::from_json_str(name).filter(|m| m.spec().kind == MethodKind::Notification)
        else {
            return; // unknown notifications are ignored
        };
        if self.role == Role::Server && self.era == Era::Modern && method != Method::Cancelled {
            return; // a modern client sends no other notification
        }
        if method == Method::SubscriptionsAcknowledged {
            if self.role == Role::Client {
                let _ = self.on_listen_ack(params.unwrap_or(Json::EMPTY_OBJECT));
            }
            return;
        }
        match method {
            Method::Initialized if self.role == Role::Server => {
                if self.phase == Phase::AwaitingInitialized {
                    self.phase = Phase::Operating;
                    let mut h = Header::new(EvKind::Ready);
                    h.small[0] = self.version.unwrap_or(ProtocolVersion::LATEST_LEGACY) as u8;
                    self.event(h, "");
                }
                return;
            }
            Method::Cancelled => {
                let p = params.unwrap_or(Json::EMPTY_OBJECT);
                let Some(rid) = p
                    .get("requestId")
                    .filter(|r| r.as_str().is_some() || r.is_integer())
                else {
                    return;
                };
                let rid = Id::from_raw(rid.as_raw());
                if self.role == Role::Client {
                    // A modern server ends one of our listen streams this way.
                    let wire = rid.as_raw().parse::<u64>().ok();
                    if let Some(i) = self
                        .outbound
                        .iter()
                        .position(|s| s.active && s.listen && Some(s.wire_id) == wire)
                    {
                        let handle = OutboundId {
                            index: i as u16,
                            generation: self.outbound[i].generation,
                        };
                        self.finish_outbound(i);
                        let mut h = Header::new(EvKind::SubscriptionEnded);
                        h.handle = handle.to_bits();
                        self.event(h, "");
                    }
                    return;
                }
                if let Some(i) = self.inbound.iter().position(|s| {
                    s.state == InboundState::Listening && Id::from_raw(s.id.as_str()).same(&rid)
                }) {
                    self.end_listen(i);
                    return;
                }
                let found = self.inbound.iter().position(|s| {
                    s.state == InboundState::Open && Id::from_raw(s.id.as_str()).same(&rid)
                });
                if let Some(i) = found {
                    self.inbound[i].state = InboundState::Cancelled;
                    let handle = InboundId {
                        index: i as u16,
                        generation: self.inbound[i].generation,
                    };
                    let mut h = Header::new(EvKind::Cancelled);
                    h.handle = handle.to_bits();
                    let reason = p.get("reason").and_then(|r| r.as_str());
                    let payload = reason.map_or("", |r| r.raw());
                    if reason.is_some() {
                        h.b = (0, payload.len() as u32);
                    }
                    self.event(h, payload);
                }
                return;
            }
            Method::Progress => {
                let p = params.unwrap_or(Json::EMPTY_OBJECT);
                // Our tokens are the request's integer id: anything else names no request
                // of ours. A token below `next_id` without an active request is a late one
                // (the request finished, timed out or was cancelled) and is dropped.
                let wire = p.get("progressToken").and_then(|t| t.as_u64());
                let found = wire.and_then(|w| {
                    self.outbound
                        .iter()
                        .position(|s| s.active && s.has_token && s.wire_id == w)
                });
                let Some(i) = found else {
                    // An active request of ours that did not ask for progress.
                    let untokened = |w: u64| {
                        self.outbound
                            .iter()
                            .any(|s| s.active && !s.has_token && s.wire_id == w)
                    };
                    if wire.is_none_or(|w| w >= self.next_id || untokened(w)) {
                        self.violation(Violation::UnknownProgressToken);
                    }
                    return;
                };
                let value = p
                    .get("progress")
                    .and_then(|v| v.as_f64_compact())
                    .unwrap_or(f64::NAN);
                let slot = &mut self.outbound[i];
                if value.is_nan() || (slot.has_progress && value <= slot.last_progress) {
                    self.violation(Violation::ProgressNotIncreasing);
                    return;
                }
                slot.last_progress = value;
                slot.has_progress = true;
                if slot.reset_on_progress
                    && let Some(t) = slot.timeout_ms
                {
                    let d = _now.saturating_add(t);
                    slot.deadline = Some(slot.hard_deadline.map_or(d, |h| h.min(d)));
                }
                let mut h = Header::new(EvKind::Progress);
                h.handle = OutboundId {
                    index: i as u16,
                    generation: slot.generation,
                }
                .to_bits();
                h.a = (0, p.as_raw().len() as u32);
                self.event(h, p.as_raw());
                return;
            }
            _ => {}
        }
        let peer = self.role.peer();
        if !method.spec().direction.allows(peer)
            || self.version.is_some_and(|v| !method.exists_in(v))
            || !self.gate_ok(method, self.role)
        {
            self.violation(Violation::NotNegotiated(method));
            return;
        }
        let mut h = Header::new(EvKind::Notification);
        h.small[0] = method as u8;
        let payload = params.map_or("", |p| p.as_raw());
        if params.is_some() {
            h.a = (0, payload.len() as u32);
        }
        self.event(h, payload);
    }

    /// Uses up `next_id` (after a request with that id was queued).
    pub(super) fn consume_id(&mut self) {
        self.next_id += 1;
        self.answered <<= 1;
    }

    fn mark_answered(&mut self, wire: u64) {
        let k = self.next_id.wrapping_sub(1).wrapping_sub(wire);
        if k < 64 {
            self.answered |= 1 << k;
        }
    }

    fn was_answered(&self, wire: u64) -> bool {
        let k = self.next_id.wrapping_sub(1).wrapping_sub(wire);
        k < 64 && self.answered & (1 << k) != 0
    }

    fn on_response(
        &mut self,
        now: u64,
        id: Option<Id<'_>>,
        outcome: Result<Json<'_>, jsonrpc::ErrorObject<'_>>,
    ) {
        if self.role == Role::Server && self.era != Era::Legacy {
            // Responses only answer server→client requests, which exist only in the
            // legacy era: drop them.
            self.violation(Violation::UnexpectedMessage);
            return;
        }
        let Some(id) = id else {
            if let Err(e) = outcome {
                self.violation(Violation::UncorrelatedError { code: e.code });
            }
            return;
        };
        let wire = if id.is_string() {
            None
        } else {
            id.as_raw().parse::<u64>().ok()
        };
        let Some(wire) = wire else {
            self.violation(Violation::UnknownResponseId);
            return;
        };
        if self.role == Role::Client && self.probe_id == Some(wire) {
            self.mark_answered(wire);
            self.on_probe_response(now, outcome);
            return;
        }
        if self.role == Role::Client && self.init_id == Some(wire) {
            self.mark_answered(wire);
            self.on_initialize_response(now, outcome);
            return;
        }
        let Some(i) = self
            .outbound
            .iter()
            .position(|s| s.active && s.wire_id == wire && !s.awaiting_input)
        else {
            if wire >= self.next_id {
                self.violation(Violation::UnknownResponseId);
            } else if self.was_answered(wire) {
                self.violation(Violation::DuplicateResponse);
            }
            // Otherwise it is a late answer to a request that timed out or was cancelled.
            return;
        };
        self.mark_answered(wire);
        let handle = OutboundId {
            index: i as u16,
            generation: self.outbound[i].generation,
        };
        match outcome {
            Ok(result) if self.era == Era::Modern && self.outbound[i].listen => {
                let _ = result;
                self.finish_outbound(i);
                let mut h = Header::new(EvKind::SubscriptionEnded);
                h.handle = handle.to_bits();
                self.event(h, "");
            }
            Ok(result) if self.era == Era::Modern => self.on_modern_result(i, result),
            Ok(result) => {
                self.finish_outbound(i);
                let mut h = Header::new(EvKind::Response);
                h.handle = handle.to_bits();
                h.a = (0, result.as_raw().len() as u32);
                self.event(h, result.as_raw());
            }
            Err(e) => self.on_error_for(i, e),
        }
    }

    fn error_event(&mut self, handle: OutboundId, e: jsonrpc::ErrorObject<'_>) {
        // Payload: the message, then the data.
        let mut h = Header::new(EvKind::ErrorResponse);
        h.handle = handle.to_bits();
        h.code = e.code;
        let m = e.message.raw();
        let d = e.data.map_or("", |d| d.as_raw());
        h.b = (0, m.len() as u32);
        if e.data.is_some() {
            h.a = (m.len() as u32, d.len() as u32);
        }
        let _ = self.events.push_two(&h, m, d);
    }

    fn on_initialize_response(
        &mut self,
        _now: u64,
        outcome: Result<Json<'_>, jsonrpc::ErrorObject<'_>>,
    ) {
        self.init_id = None;
        self.init_deadline = None;
        let result = match outcome {
            Ok(r) => r,
            Err(e) => {
                self.close(CloseReason::InitializeRejected { code: e.code });
                return;
            }
        };
        let version = result
            .get("protocolVersion")
            .and_then(|v| v.as_str())
            .and_then(ProtocolVersion::from_json_str)
            .filter(|v| v.is_legacy() && self.versions.contains(*v));
        let Some(version) = version else {
            self.close(CloseReason::UnsupportedVersion);
            return;
        };
        self.version = Some(version);
        self.peer_caps = result
            .get("capabilities")
            .filter(|c| c.is_object())
            .map_or(Caps::NONE, Caps::from_json);
        let _ = self.push(|w| jsonrpc::encode_notification(w, Method::Initialized.as_str(), None));
        self.phase = Phase::Operating;
        let mut h = Header::new(EvKind::Negotiated);
        h.small[0] = version as u8;
        h.a = (0, result.as_raw().len() as u32);
        self.event(h, result.as_raw());
        let mut h = Header::new(EvKind::Ready);
        h.small[0] = version as u8;
        self.event(h, "");
    }

    fn send_initialize(&mut self, now: u64) {
        let id = self.next_id;
        self.consume_id();
        self.init_id = Some(id);
        self.init_deadline = self.default_timeout.map(|t| now.saturating_add(t));
        let proposal = self
            .versions
            .newest_legacy()
            .unwrap_or(ProtocolVersion::LATEST_LEGACY);
        let (name, ver, caps) = ConfigText::of(&self.info, &self.info_spans).envelope();
        let r = self.outbox.push_with(|w| {
            w.begin_object();
            w.key("jsonrpc");
            w.string("2.0");
            w.key("id");
            w.u64(id);
            w.key("method");
            w.string("initialize");
            w.key("params");
            w.begin_object();
            w.key("protocolVersion");
            w.string(proposal.as_str());
            w.key("capabilities");
            w.raw(Json::from_validated(caps));
            w.key("clientInfo");
            w.begin_object();
            w.key("name");
            w.raw(Json::from_validated(name));
            w.key("version");
            w.raw(Json::from_validated(ver));
            w.end_object();
            w.end_object();
            w.end_object();
        });
        if r.is_ok() {
            self.stats.messages_out += 1;
        }
    }

    fn check_send(&self, method: Method, kind: MethodKind) -> Result<(), SendError> {
        if method.spec().kind != kind {
            return Err(SendError::WrongDirection(method));
        }
        if !method.spec().direction.allows(self.role) || method == Method::ServerDiscover {
            return Err(SendError::WrongDirection(method));
        }
        if matches!(
            method,
            Method::Initialize | Method::SubscriptionsListen | Method::SubscriptionsAcknowledged
        ) {
            return Err(SendError::Reserved(method));
        }
        if self.era == Era::Modern && self.role == Role::Server && kind == MethodKind::Request {
            // A modern server never sends requests: ask for input with
            // `respond_input_required` instead.
            return Err(SendError::NotInVersion(method));
        }
        match self.phase {
            Phase::Closed => return Err(SendError::WrongPhase(self.phase)),
            Phase::Operating => {}
            // Before the handshake only ping (and, for a server, logging) may flow.
            _ => {
                let early_ok = method == Method::Ping
                    || (self.role == Role::Server
                        && method == Method::LogMessage
                        && self.version.is_some());
                if !early_ok {
                    return Err(SendError::WrongPhase(self.phase));
                }
            }
        }
        if let Some(v) = self.version
            && !method.exists_in(v)
        {
            return Err(SendError::NotInVersion(method));
        }
        if !self.gate_ok(method, self.role.peer()) {
            return Err(SendError::NotNegotiated(method));
        }
        Ok(())
    }

    fn send_request(
        &mut self,
        now: u64,
        method: Method,
        params: Option<Json<'_>>,
        opts: RequestOptions,
    ) -> Result<OutboundId, SendError> {
        self.check_send(method, MethodKind::Request)?;
        if params.is_some_and(|p| !p.is_object()) {
            return Err(SendError::ParamsNotObject);
        }
        let Some(index) = self.outbound.iter().position(|s| !s.active) else {
            return Err(SendError::TooManyRequests);
        };
        let id = self.next_id;
        let progress = opts.progress;
        let modern = self.era == Era::Modern;
        // Keep the params of a request that may need an MRTR retry (checked first, so
        // that a full arena is our error, not a surprise when the server asks for input).
        let retain = modern && method.allows_input_required();
        let kept = params.map_or("{}", |p| p.as_raw());
        if retain && self.arena.free() < kept.len() + 4 {
            return Err(SendError::ArenaFull {
                required: kept.len() + 4,
            });
        }
        self.push_request(id, method, params, progress.then_some(id), modern, None)
            .map_err(SendError::Full)?;
        let retained = retain
            && self
                .arena
                .add(&mut self.info, index as u16, kept.as_bytes());
        self.consume_id();
        let timeout = opts.timeout_ms.or(self.default_timeout);
        let slot = &mut self.outbound[index];
        slot.generation = slot.generation.wrapping_add(1);
        slot.active = true;
        slot.method = method;
        slot.wire_id = id;
        slot.timeout_ms = timeout;
        slot.deadline = timeout.map(|t| now.saturating_add(t));
        slot.hard_deadline = opts.max_total_ms.map(|t| now.saturating_add(t));
        slot.reset_on_progress = opts.reset_timeout_on_progress;
        slot.has_token = progress;
        slot.has_progress = false;
        slot.retained = retained;
        slot.rounds = 0;
        slot.has_state = false;
        slot.listen = false;
        slot.awaiting_input = false;
        Ok(OutboundId {
            index: index as u16,
            generation: slot.generation,
        })
    }

    fn push_log(
        &mut self,
        level: LogLevel,
        logger: Option<&str>,
        data: Json<'_>,
    ) -> Result<(), InsufficientSize> {
        self.push(|w| {
            w.begin_object();
            w.key("jsonrpc");
            w.string("2.0");
            w.key("method");
            w.string(Method::LogMessage.as_str());
            w.key("params");
            w.begin_object();
            w.key("level");
            w.string(level.as_str());
            if let Some(l) = logger {
                w.key("logger");
                w.string(l);
            }
            w.key("data");
            w.raw(data);
            w.end_object();
            w.end_object();
        })
    }

    fn push_cancelled(&mut self, wire: u64, reason: Option<&str>) -> Result<(), InsufficientSize> {
        self.push(|w| {
            w.begin_object();
            w.key("jsonrpc");
            w.string("2.0");
            w.key("method");
            w.string(Method::Cancelled.as_str());
            w.key("params");
            w.begin_object();
            w.key("requestId");
            w.u64(wire);
            if let Some(r) = reason {
                w.key("reason");
                w.string(r);
            }
            w.end_object();
            w.end_object();
        })
    }

    fn on_timeout(&mut self, now: u64) {
        if self.phase == Phase::Closed {
            return;
        }
        if self.init_deadline.is_some_and(|d| d <= now) {
            self.init_deadline = None;
            if self.probe_id.is_some() {
                self.probe_fallback(now);
            } else {
                self.close(CloseReason::InitializeTimedOut);
            }
            return;
        }
        for i in 0..self.outbound.len() {
            let s = self.outbound[i];
            if !s.active {
                continue;
            }
            let expired =
                s.deadline.is_some_and(|d| d <= now) || s.hard_deadline.is_some_and(|d| d <= now);
            if !expired {
                continue;
            }
            if self.outbox.free() < 200 || self.events.free() < HEADER {
                return; // try again at the next call, after the host drained
            }
            let _ = self.push_cancelled(s.wire_id, Some("timed out"));
            self.finish_outbound(i);
            let mut h = Header::new(EvKind::TimedOut);
            h.handle = OutboundId {
                index: i as u16,
                generation: s.generation,
            }
            .to_bits();
            self.event(h, "");
        }
    }

    fn inbound_slot(&self, id: InboundId) -> Option<&InboundSlot> {
        self.inbound
            .get(id.index as usize)
            .filter(|s| s.state != InboundState::Free && s.generation == id.generation)
    }

    fn outbound_slot(&self, id: OutboundId) -> Option<&OutboundSlot> {
        self.outbound
            .get(id.index as usize)
            .filter(|s| s.active && s.generation == id.generation)
    }

    fn free_inbound(&mut self, index: u16) {
        if let Some(s) = self.inbound.get_mut(index as usize) {
            s.state = InboundState::Free;
        }
    }

    fn free_outbound(&mut self, index: u16) {
        if let Some(s) = self.outbound.get_mut(index as usize) {
            s.active = false;
        }
    }
}
