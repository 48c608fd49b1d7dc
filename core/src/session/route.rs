//! The connection state behind a [`Session`](super::Session), and the route of one
//! incoming message: [`Core::on_frame`] parses a line and hands each message to its
//! handler ([`Core::on_request`] picks the era's), and the core's own replies (errors,
//! `ping`) leave through [`Core::reply`].
//!
//! A request from bytes to its event: `Session::handle_bytes` (framing) →
//! `Core::on_frame` (parse) → `Core::on_request` (era) → `on_legacy_request` /
//! `on_modern_request` (checks; opens its slot in the inbound table and queues
//! [`Event::Request`](super::Event::Request)).

use super::events::{Entry, EventQueue, PER_LINE};
use super::inbound::{InboundState, InboundTable, Refused};
use super::lifecycle::{Lapsed, Lifecycle};
use super::meta::modern_claim;
use super::outbound::{OutboundTable, ProgressCheck};
use super::types::{CloseReason, Stats, Violation};
use super::{Arena, BatchState, Outbox, reply_reserve};
use crate::Limits;
use crate::error::{ErrorCode, InsufficientSize};
use crate::framing::{Frame, RawFrame};
use crate::json::{Json, JsonStr, JsonWriter};
use crate::jsonrpc::{self, ErrorObject, Id, Message, ParseError};
use crate::protocol::{Caps, Gate, LogLevel, Method, MethodKind, ProtocolVersion, Role, Versions};

/// Everything of a session but its decoder and event queue: what the host's commands
/// change, and what the input path updates (queueing events into the `EventQueue` it is
/// handed).
pub(crate) struct Core<'s> {
    pub(crate) role: Role,
    pub(crate) limits: Limits,
    pub(crate) versions: Versions,
    pub(crate) own_caps: Caps,
    pub(crate) peer_caps: Caps,
    pub(crate) life: Lifecycle,
    pub(crate) info: super::Slice<'s, u8>,
    /// (start, len) of name, version, capabilities, instructions in `info`.
    pub(crate) info_spans: [(usize, usize); 4],
    pub(crate) outbox: Outbox<'s>,
    pub(crate) inbound: InboundTable<'s>,
    pub(crate) outbound: OutboundTable<'s>,
    pub(crate) log_level: Option<LogLevel>,
    pub(crate) stats: Stats,
    pub(crate) arena: Arena,
    pub(crate) cache_ttl_ms: u64,
    pub(crate) cache_public: bool,
    pub(crate) probe_timeout_ms: u64,
    pub(crate) batch: BatchState,
    /// The latest `now` the host gave (the clock of sealed `requestState` expiries).
    #[cfg(feature = "seal")]
    pub(crate) now: u64,
    /// 2026-07-28 server: the `requestState` seal key (`Config::state_key`).
    #[cfg(feature = "seal")]
    pub(crate) state_key: Option<super::seal::Key>,
    #[cfg(feature = "seal")]
    pub(crate) state_ttl_ms: u64,
    /// Client: the tool pins (`Storage::pins`).
    #[cfg(feature = "client")]
    pub(crate) pins: super::pins::PinTable<'s>,
}

impl Core<'_> {
    /// Time as the host reports it (kept monotonic; only the seal needs it).
    pub(crate) fn saw_time(&mut self, now: u64) {
        #[cfg(feature = "seal")]
        {
            self.now = self.now.max(now);
        }
        let _ = now;
    }

    /// Room to handle a line of `line_len` bytes: its automatic replies and its events.
    pub(crate) fn has_room(&self, ev: &EventQueue<'_>, line_len: usize, is_batch: bool) -> bool {
        if is_batch && self.batch.open {
            return false;
        }
        let info = if self.role == Role::Server && matches!(self.life, Lifecycle::Waiting { .. }) {
            self.info_spans.iter().map(|s| s.1).sum()
        } else {
            0
        };
        let entries = if is_batch {
            PER_LINE + 2 * self.limits.max_batch
        } else {
            PER_LINE
        };
        self.outbox.free() >= reply_reserve(line_len, info).min(self.outbox.capacity())
            && ev.text_free() >= line_len.min(ev.text_capacity())
            && ev.free() >= entries.min(ev.capacity())
            // A full request table while the host has not seen some requests yet: wait
            // for it to drain and answer them rather than rejecting with -32603. Once the
            // event queue is empty, the -32603 rule applies.
            && (ev.is_empty() || self.inbound.has_room())
    }

    /// Queues one message written by `f` (which may be called twice).
    pub(crate) fn push(&mut self, f: impl Fn(&mut JsonWriter<'_>)) -> Result<(), InsufficientSize> {
        self.outbox.push_with(f)?;
        self.stats.messages_out += 1;
        Ok(())
    }

    pub(crate) fn violation(&mut self, ev: &mut EventQueue<'_>, v: Violation) {
        self.stats.violations += 1;
        ev.push(Entry::Violation(v), &[]);
    }

    pub(crate) fn close(&mut self, ev: &mut EventQueue<'_>, reason: CloseReason) {
        if self.life.close(reason) {
            ev.push(Entry::Closed(reason), &[]);
        }
    }

    /// Queues a reply the core writes itself (an error, `ping`): into the open batch's
    /// staging area while a batch line is processed, else as a line of its own.
    pub(crate) fn reply(&mut self, f: impl Fn(&mut JsonWriter<'_>)) {
        if self.batch.staging {
            let _ = self.stage(&f);
            return;
        }
        let _ = self.push(f);
    }

    /// Refuses a peer's message: answers it with a JSON-RPC error (when it has an id to
    /// echo) and reports the peer's fault `v` as an event.
    pub(crate) fn refuse(
        &mut self,
        ev: &mut EventQueue<'_>,
        id: Option<Id<'_>>,
        code: ErrorCode,
        message: &str,
        v: Violation,
    ) {
        self.reply_error(id, code, message);
        self.violation(ev, v);
    }

    pub(crate) fn reply_error(&mut self, id: Option<Id<'_>>, code: ErrorCode, message: &str) {
        self.reply(|w| jsonrpc::encode_error(w, id, code, message, None));
    }

    /// The core's reply with an empty result (`ping`, `logging/setLevel`, subscribe).
    pub(crate) fn reply_empty(&mut self, id: Id<'_>) {
        self.reply(|w| jsonrpc::encode_result(w, id, Json::EMPTY_OBJECT));
    }

    /// A request that got no slot: the error reply and the violation.
    pub(crate) fn refuse_unslotted(
        &mut self,
        ev: &mut EventQueue<'_>,
        id: Id<'_>,
        method: Method,
        why: Refused,
    ) {
        match why {
            Refused::DuplicateId => {
                self.refuse(
                    ev,
                    Some(id),
                    ErrorCode::INVALID_REQUEST,
                    "Invalid Request: duplicate id of a request in flight",
                    Violation::DuplicateRequestId,
                );
            }
            Refused::Full => {
                let msg = if method == Method::SubscriptionsListen {
                    "Internal error: subscription limit reached"
                } else {
                    "Internal error: too many requests in flight"
                };
                self.refuse(
                    ev,
                    Some(id),
                    ErrorCode::INTERNAL_ERROR,
                    msg,
                    Violation::TooManyRequests,
                );
            }
        }
    }

    /// One frame from the decoder, its line still bytes: checked for UTF-8 here, right
    /// before the parser reads it (docs/DESIGN.md, "Framing is bytes"), then as
    /// [`on_frame`](Self::on_frame). A line that is not UTF-8 is -32700 as before.
    #[inline]
    pub(crate) fn on_raw_frame(&mut self, ev: &mut EventQueue<'_>, now: u64, frame: RawFrame<'_>) {
        self.on_frame(ev, now, frame.validate(self.limits.max_depth));
    }

    /// One frame from the decoder: parse it and hand each message to its handler.
    pub(crate) fn on_frame(&mut self, ev: &mut EventQueue<'_>, now: u64, frame: Frame<'_>) {
        let line = match frame {
            Frame::Line(line) => line,
            Frame::InvalidUtf8 { id, .. } => {
                let kind = jsonrpc::ParseErrorKind::InvalidUtf8;
                self.reply_error(id, kind.code(), kind.message());
                let replied = Some(kind.code());
                return self.violation(ev, Violation::Malformed { kind, replied });
            }
            Frame::TooLong { limit, id } => {
                let kind = jsonrpc::ParseErrorKind::LineTooLong;
                self.reply_error(id, kind.code(), kind.message());
                return self.violation(ev, Violation::LineTooLong { limit });
            }
        };
        match jsonrpc::parse(line, &self.limits) {
            Ok(Message::Batch(b)) => self.on_batch(ev, now, b),
            Ok(m) => self.on_message(ev, now, m),
            Err(e) => self.on_parse_error(ev, e),
        }
    }

    /// One message that is not a batch (a batch hands each element here).
    pub(crate) fn on_message(&mut self, ev: &mut EventQueue<'_>, now: u64, m: Message<'_>) {
        match m {
            Message::Request(r) => self.on_request(ev, r.id, r.method, r.params),
            Message::Notification(n) => self.on_notification(ev, now, n.method, n.params),
            Message::Response(r) => self.on_response(ev, now, Some(r.id), Ok(r.result)),
            Message::Error(e) => self.on_response(ev, now, e.id, Err(e.error)),
            Message::Batch(_) => {
                self.refuse(
                    ev,
                    None,
                    ErrorCode::INVALID_REQUEST,
                    "Invalid Request: nested batch",
                    Violation::BatchNotAllowed,
                );
            }
        }
    }

    pub(crate) fn on_parse_error(&mut self, ev: &mut EventQueue<'_>, e: ParseError<'_>) {
        let replied = if e.needs_reply() {
            self.reply_error(e.id, e.code(), e.kind.message());
            Some(e.code())
        } else {
            None
        };
        self.violation(
            ev,
            Violation::Malformed {
                kind: e.kind,
                replied,
            },
        );
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
    pub(crate) fn gate_ok(&self, method: Method, receiver: Role) -> bool {
        let v = self
            .life
            .version()
            .unwrap_or(ProtocolVersion::LATEST_LEGACY);
        match method.gate_in(v) {
            Gate::None => true,
            Gate::Server(c) => self.caps_of(Role::Server).contains(c),
            Gate::Client(c) => self.caps_of(Role::Client).contains(c),
            Gate::Receiver(c) => self.caps_of(receiver).contains(c),
        }
    }

    /// A request: decides its era (latching it where the request decides) and hands it
    /// to that era's handler.
    pub(crate) fn on_request(
        &mut self,
        ev: &mut EventQueue<'_>,
        id: Id<'_>,
        name: JsonStr<'_>,
        params: Option<Json<'_>>,
    ) {
        if self.role == Role::Server && !self.life.is_legacy() {
            // (`Session::new` keeps only the revisions of the compiled eras.)
            let serves_modern =
                cfg!(feature = "modern") && self.versions.contains(ProtocolVersion::V2026_07_28);
            let serves_legacy = cfg!(feature = "legacy") && self.versions.newest_legacy().is_some();
            let is = |m: Method| Method::from_json_str(name) == Some(m);
            if modern_claim(params) {
                if serves_modern {
                    #[cfg(feature = "modern")]
                    if let Some(p) = params {
                        self.on_modern_request(ev, id, name, p);
                    }
                    return;
                }
                // A legacy-only server: answer the probe at once so that clients fall
                // back to `initialize` without waiting.
                if is(Method::ServerDiscover) {
                    self.refuse(ev, Some(id), ErrorCode::METHOD_NOT_FOUND, "Method not found: this server speaks the legacy protocol only (initialize)", Violation::NotNegotiated(Method::ServerDiscover));
                    return;
                }
            } else if self.life.is_modern()
                || !serves_legacy
                || (serves_modern
                    && (is(Method::ServerDiscover) || is(Method::SubscriptionsListen)))
            {
                // A claim-less request to a modern-only (or modern-latched) server, or a
                // claim-less request for a modern-only method (a malformed modern
                // request: -32602, and it does not latch the legacy era).
                if is(Method::Initialize) {
                    let requested = params
                        .and_then(|p| p.get("protocolVersion"))
                        .and_then(|v| v.as_str());
                    self.reply_unsupported_version(ev, id, requested, true);
                } else {
                    self.reply_error(
                        Some(id),
                        ErrorCode::INVALID_PARAMS,
                        "Invalid params: missing _meta io.modelcontextprotocol/protocolVersion",
                    );
                    let m = Method::from_json_str(name).unwrap_or(Method::Ping);
                    self.violation(ev, Violation::BadEnvelope(m));
                }
                return;
            }
            // Claim-less traffic latches the legacy era.
            self.life.latch_legacy();
        }
        if self.role == Role::Client && self.life.is_modern() {
            // A modern server never sends requests, and a modern client never answers.
            self.violation(ev, Violation::UnexpectedMessage);
        } else {
            // (Without `legacy` a server answered above; a client gets no requests.)
            #[cfg(feature = "legacy")]
            self.on_legacy_request(ev, id, name, params);
        }
    }

    /// A notification: the ones the core handles itself, then the host's.
    fn on_notification(
        &mut self,
        ev: &mut EventQueue<'_>,
        now: u64,
        name: JsonStr<'_>,
        params: Option<Json<'_>>,
    ) {
        let Some(method) =
            Method::from_json_str(name).filter(|m| m.spec().kind == MethodKind::Notification)
        else {
            return; // unknown notifications are ignored
        };
        if self.role == Role::Server && self.life.is_modern() && method != Method::Cancelled {
            return; // a modern client sends no other notification
        }
        let p = params.unwrap_or(Json::EMPTY_OBJECT);
        match method {
            Method::SubscriptionsAcknowledged => {
                #[cfg(feature = "client")]
                if self.role == Role::Client {
                    self.on_listen_ack(ev, p);
                }
                return;
            }
            Method::Initialized if self.role == Role::Server => {
                if let Some(version) = self.life.initialized() {
                    ev.push(Entry::Ready { version }, &[]);
                }
                return;
            }
            Method::Cancelled => {
                let Some(rid) = p
                    .get("requestId")
                    .filter(|r| r.as_str().is_some() || r.is_integer())
                else {
                    return;
                };
                let rid = Id::from_raw(rid.as_raw());
                #[cfg(feature = "client")]
                if self.role == Role::Client {
                    self.on_listen_cancelled(ev, rid);
                    return;
                }
                self.on_cancelled(ev, rid, p.get("reason").and_then(|r| r.as_str()));
                return;
            }
            Method::Progress => return self.on_progress(ev, now, p),
            _ => {}
        }
        let peer = self.role.peer();
        if !method.spec().direction.allows(peer)
            || self.life.version().is_some_and(|v| !method.exists_in(v))
            || !self.gate_ok(method, self.role)
        {
            self.violation(ev, Violation::NotNegotiated(method));
            return;
        }
        let entry = Entry::Notification {
            method,
            has_params: params.is_some(),
        };
        ev.push(entry, &[params.map_or("", |p| p.as_raw())]);
    }

    /// The peer cancelled one of its requests: the core finishes it (a response to it
    /// must not be sent) and frees its slot.
    fn on_cancelled(&mut self, ev: &mut EventQueue<'_>, rid: Id<'_>, reason: Option<JsonStr<'_>>) {
        if let Some(i) = self.inbound.find(&rid, InboundState::Listening) {
            self.end_listen(i);
            return;
        }
        let Some(i) = self.inbound.find(&rid, InboundState::Open) else {
            return;
        };
        let in_batch = self.inbound.slot(i).in_batch;
        self.inbound.cancel(i);
        if in_batch {
            self.batch_member_done();
        }
        let entry = Entry::Cancelled {
            id: self.inbound.handle(i),
            has_reason: reason.is_some(),
        };
        ev.push(entry, &[reason.map_or("", |r| r.raw())]);
    }

    /// `notifications/progress` for one of our requests.
    fn on_progress(&mut self, ev: &mut EventQueue<'_>, now: u64, p: Json<'_>) {
        // Our tokens are the request's integer id: anything else names no request of
        // ours. A token below `next_id` without an active request is a late one (the
        // request finished, timed out or was cancelled) and is dropped.
        let wire = p.get("progressToken").and_then(|t| t.as_u64());
        let found = wire.map(|w| self.outbound.by_token(w));
        let i = match found {
            Some(Ok(i)) => i,
            Some(Err(untokened)) => {
                if untokened || wire.is_some_and(|w| w >= self.outbound.next_id()) {
                    self.violation(ev, Violation::UnknownProgressToken);
                }
                return;
            }
            None => return self.violation(ev, Violation::UnknownProgressToken),
        };
        let value = p
            .get("progress")
            .and_then(|v| v.as_f64_compact())
            .unwrap_or(f64::NAN);
        match self.outbound.progress(i, value, now) {
            ProgressCheck::NotIncreasing => self.violation(ev, Violation::ProgressNotIncreasing),
            ProgressCheck::Accepted => {
                let id = self.outbound.handle(i);
                ev.push(Entry::Progress { id }, &[p.as_raw()]);
            }
        }
    }

    /// A response or error response: correlated with one of our requests.
    fn on_response(
        &mut self,
        ev: &mut EventQueue<'_>,
        now: u64,
        id: Option<Id<'_>>,
        outcome: Result<Json<'_>, ErrorObject<'_>>,
    ) {
        if self.role == Role::Server && !self.life.is_legacy() {
            // Responses only answer server→client requests, which exist only in the
            // legacy era: drop them.
            self.violation(ev, Violation::UnexpectedMessage);
            return;
        }
        let Some(id) = id else {
            if let Err(e) = outcome {
                self.violation(ev, Violation::UncorrelatedError { code: e.code });
            }
            return;
        };
        let wire = if id.is_string() {
            None
        } else {
            id.as_raw().parse::<u64>().ok()
        };
        let Some(wire) = wire else {
            self.violation(ev, Violation::UnknownResponseId);
            return;
        };
        #[cfg(feature = "client")]
        if self.role == Role::Client
            && (self.life.probe_id() == Some(wire) || self.life.init_id() == Some(wire))
        {
            self.outbound.mark_answered(wire);
            self.on_handshake_response(ev, now, wire, outcome);
            return;
        }
        let Some(i) = self.outbound.awaiting(wire) else {
            if wire >= self.outbound.next_id() {
                self.violation(ev, Violation::UnknownResponseId);
            } else if self.outbound.was_answered(wire) {
                self.violation(ev, Violation::DuplicateResponse);
            }
            // Otherwise it is a late answer to a request that timed out or was cancelled.
            return;
        };
        self.outbound.mark_answered(wire);
        let id = self.outbound.handle(i);
        match outcome {
            #[cfg(feature = "client")]
            Ok(result) if self.life.is_modern() => self.on_modern_result(ev, i, result),
            Ok(result) => {
                #[cfg(feature = "content-rules")]
                let valid = self.answer_matches_request(i, result);
                #[cfg(not(feature = "content-rules"))]
                let valid = true;
                #[cfg(feature = "client")]
                if self.role == Role::Client && self.outbound.slot(i).method == Method::ToolsList {
                    self.check_pins(ev, result);
                }
                self.finish_outbound(i);
                if !valid {
                    self.violation(ev, Violation::InvalidResult);
                    ev.push(Entry::InvalidResult { id }, &[result.as_raw()]);
                    return;
                }
                ev.push(Entry::Response { id }, &[result.as_raw()]);
            }
            Err(e) => {
                self.finish_outbound(i);
                let (m, d) = (e.message.raw(), e.data.map_or("", |d| d.as_raw()));
                let entry = Entry::ErrorResponse {
                    id,
                    code: e.code,
                    message_len: m.len() as u32,
                    has_data: e.data.is_some(),
                };
                ev.push(entry, &[m, d]);
            }
        }
    }

    #[cfg(feature = "content-rules")]
    /// Server, legacy: an answer to our form `elicitation/create` matches the
    /// `requestedSchema` kept for it in the arena (owner: `SCHEMA_TAG` | the slot index).
    /// Anything else is not checked here.
    fn answer_matches_request(&self, i: usize, result: Json<'_>) -> bool {
        let slot = self.outbound.slot(i);
        if slot.method != Method::ElicitationCreate || !slot.retained {
            return true;
        }
        let schema = self
            .arena
            .get(&self.info, super::commands::SCHEMA_TAG | i as u16)
            .and_then(|b| core::str::from_utf8(b).ok())
            .map(Json::from_validated);
        schema
            .is_none_or(|s| crate::protocol::content::check_elicitation_content(s, result).is_ok())
    }

    /// Time passed: the handshake's deadline, then our requests' deadlines.
    pub(crate) fn on_timeout(&mut self, ev: &mut EventQueue<'_>, now: u64) {
        if self.life.is_closed() {
            return;
        }
        match self.life.lapse(now) {
            #[cfg(feature = "client")]
            Some(Lapsed::Probe) => return self.probe_fallback(ev, now),
            // (Only a client probes.)
            #[cfg(not(feature = "client"))]
            Some(Lapsed::Probe) => {}
            Some(Lapsed::Initialize) => return self.close(ev, CloseReason::InitializeTimedOut),
            None => {}
        }
        while let Some(i) = self.outbound.expired(now) {
            if self.outbox.free() < 200 || ev.free() == 0 {
                return; // try again at the next call, after the host drained
            }
            let (wire, id) = (self.outbound.slot(i).wire_id, self.outbound.handle(i));
            let _ = self.push_cancelled(wire, Some("timed out"));
            self.finish_outbound(i);
            ev.push(Entry::TimedOut { id }, &[]);
        }
    }
}
