//! The client side of both eras: the dual-era connect (`server/discover` probe with
//! fallback to `initialize`), the per-request `_meta` envelope, MRTR retries and
//! `subscriptions/listen`.

use super::commands::{is_envelope_key, write_info};
use super::events::{Entry, EventQueue};
use super::meta::{
    KEY_CAPS, KEY_CLIENT_INFO, KEY_SUBSCRIPTION, KEY_VERSION, input_requests_allowed,
};
use super::outbox::Outbox;
use super::route::Core;
use super::types::{CloseReason, OutboundId, RequestOptions, SendError, Violation};
use super::{Commands, ConfigText, Session};
use crate::error::InsufficientSize;
use crate::json::{Json, JsonStr, JsonWriter, fmt_u64};
use crate::jsonrpc::{self, ErrorObject, Id};
use crate::protocol::{Caps, Method, ProtocolVersion, Role, write_declared};

#[cfg(feature = "client")]
/// The most `input_required` rounds one request may go through.
pub(crate) const MAX_ROUNDS: u8 = 8;
/// Arena owner tag for a request's `requestState` (the params use the bare slot index).
pub(crate) const STATE_TAG: u16 = 0x4000;

impl Core<'_> {
    #[cfg(feature = "client")]
    /// Starts the connection: the `server/discover` probe when we speak 2026-07-28,
    /// else `initialize`.
    pub(crate) fn connect(&mut self, now: u64) {
        if !self.versions.contains(ProtocolVersion::V2026_07_28) {
            return self.send_initialize(now);
        }
        let id = self.outbound.next_id();
        self.outbound.consume_id();
        let legacy = self.versions.newest_legacy().is_some();
        let wait = if legacy {
            self.probe_timeout_ms
        } else {
            self.outbound.default_timeout.unwrap_or(u64::MAX / 2)
        };
        self.life.probe_sent(id, now.saturating_add(wait));
        let r = self.push_request(id, Method::ServerDiscover, None, None, true, None);
        debug_assert!(r.is_ok());
    }

    #[cfg(feature = "client")]
    /// The probe failed (error, invalid result, timeout): fall back to `initialize`.
    pub(crate) fn probe_fallback(&mut self, ev: &mut EventQueue<'_>, now: u64) {
        if self.versions.newest_legacy().is_some() {
            self.send_initialize(now);
        } else {
            self.close(ev, CloseReason::NoCommonVersion);
        }
    }

    #[cfg(feature = "client")]
    /// The answer to our `server/discover` (wire id `wire`) or `initialize`.
    pub(crate) fn on_handshake_response(
        &mut self,
        ev: &mut EventQueue<'_>,
        now: u64,
        wire: u64,
        outcome: Result<Json<'_>, ErrorObject<'_>>,
    ) {
        if self.life.probe_id() == Some(wire) {
            self.on_probe_response(ev, now, outcome);
        } else {
            self.on_initialize_response(ev, outcome);
        }
    }

    #[cfg(feature = "client")]
    fn on_probe_response(
        &mut self,
        ev: &mut EventQueue<'_>,
        now: u64,
        outcome: Result<Json<'_>, ErrorObject<'_>>,
    ) {
        let result = match outcome {
            Ok(r) => r,
            // -32022 means "modern server, but not our version"; we only speak one modern
            // revision, so there is no other to retry with: fall back.
            Err(_) => return self.probe_fallback(ev, now),
        };
        let ours = ProtocolVersion::V2026_07_28;
        let supported = result.get("supportedVersions").is_some_and(|v| {
            v.elements()
                .any(|e| e.as_str().is_some_and(|s| s.eq_str(ours.as_str())))
        });
        let caps = result.get("capabilities").filter(|c| c.is_object());
        let (true, Some(caps)) = (supported, caps) else {
            return self.probe_fallback(ev, now);
        };
        self.life.negotiated(ours);
        self.own_caps = self.own_caps.declared(Role::Client, ours);
        self.peer_caps = Caps::from_json(caps).in_version(ours);
        ev.push(Entry::Negotiated { version: ours }, &[result.as_raw()]);
        ev.push(Entry::Ready { version: ours }, &[]);
    }

    #[cfg(feature = "client")]
    fn on_initialize_response(
        &mut self,
        ev: &mut EventQueue<'_>,
        outcome: Result<Json<'_>, ErrorObject<'_>>,
    ) {
        let result = match outcome {
            Ok(r) => r,
            Err(e) => return self.close(ev, CloseReason::InitializeRejected { code: e.code }),
        };
        let version = result
            .get("protocolVersion")
            .and_then(|v| v.as_str())
            .and_then(ProtocolVersion::from_json_str)
            .filter(|v| v.is_legacy() && self.versions.contains(*v));
        let Some(version) = version else {
            return self.close(ev, CloseReason::UnsupportedVersion);
        };
        self.life.negotiated(version);
        self.own_caps = self.own_caps.declared(Role::Client, version);
        self.peer_caps = result
            .get("capabilities")
            .filter(|c| c.is_object())
            .map_or(Caps::NONE, Caps::from_json)
            .in_version(version);
        let _ = self.push(|w| jsonrpc::encode_notification(w, Method::Initialized.as_str(), None));
        ev.push(Entry::Negotiated { version }, &[result.as_raw()]);
        ev.push(Entry::Ready { version }, &[]);
    }

    #[cfg(feature = "client")]
    fn send_initialize(&mut self, now: u64) {
        let id = self.outbound.next_id();
        self.outbound.consume_id();
        let deadline = self.outbound.default_timeout.map(|t| now.saturating_add(t));
        self.life.initialize_sent(id, deadline);
        let proposal = self
            .versions
            .newest_legacy()
            .unwrap_or(ProtocolVersion::LATEST_LEGACY);
        let t = ConfigText::of(&self.info, &self.info_spans);
        let r = self.outbox.push_with(|w| {
            let mut digits = [0u8; 20];
            let wire = wire_id(id, &mut digits);
            jsonrpc::encode_request_with(w, wire, Method::Initialize.as_str(), |w| {
                w.begin_object();
                w.key("protocolVersion");
                w.string(proposal.as_str());
                w.key("capabilities");
                write_declared(
                    w,
                    Json::from_validated(t.capabilities),
                    Role::Client,
                    proposal,
                );
                w.key("clientInfo");
                write_info(w, t.name, t.version);
                w.end_object();
            })
        });
        if r.is_ok() {
            self.stats.messages_out += 1;
        }
    }

    /// Writes a request line. In the modern era `params` gain the envelope; `token` adds
    /// `_meta.progressToken`.
    pub(crate) fn push_request(
        &mut self,
        id: u64,
        method: Method,
        params: Option<Json<'_>>,
        token: Option<u64>,
        modern: bool,
        input: Option<(Json<'_>, Option<&str>)>,
    ) -> Result<(), InsufficientSize> {
        let t = ConfigText::of(&self.info, &self.info_spans);
        let request = Request {
            id,
            method,
            params,
            token,
            envelope: modern.then(|| t.envelope()),
            input,
            member: None,
        };
        request.write(&mut self.outbox)?;
        self.stats.messages_out += 1;
        Ok(())
    }

    #[cfg(feature = "client")]
    /// A modern client's response handling: `resultType` decides between a final answer,
    /// an MRTR round, and an invalid result.
    pub(crate) fn on_modern_result(&mut self, ev: &mut EventQueue<'_>, i: usize, result: Json<'_>) {
        let slot = *self.outbound.slot(i);
        let id = self.outbound.handle(i);
        if slot.listen {
            // The graceful end of one of our listen streams.
            self.finish_outbound(i);
            ev.push(Entry::SubscriptionEnded { id }, &[]);
            return;
        }
        let kind = result.get("resultType").and_then(|t| t.as_str());
        if kind.is_none_or(|k| k.eq_str("complete")) {
            if slot.method == Method::ToolsList {
                self.check_pins(ev, result);
            }
            self.finish_outbound(i);
            ev.push(Entry::Response { id }, &[result.as_raw()]);
            return;
        }
        let input = kind.is_some_and(|k| k.eq_str("input_required"));
        let requests = result.get("inputRequests").filter(|r| r.is_object());
        let state = result.get("requestState").and_then(|s| s.as_str());
        let declared = requests.is_none_or(|r| input_requests_allowed(self.own_caps, r));
        #[cfg(feature = "content-rules")]
        let declared =
            declared && requests.is_none_or(|r| super::meta::input_requests_content(r).is_ok());
        let ok = input
            && slot.method.allows_input_required()
            && slot.retained
            && slot.rounds < MAX_ROUNDS
            && (requests.is_some() || state.is_some())
            && declared;
        if !ok {
            self.finish_outbound(i);
            self.violation(ev, Violation::InvalidResult);
            ev.push(Entry::InvalidResult { id }, &[result.as_raw()]);
            return;
        }
        // Keep the request open for the retry; remember the state to echo.
        let tag = STATE_TAG | i as u16;
        self.arena.remove_where(&mut self.info, |o, _| o == tag);
        let has_state =
            state.is_some_and(|s| self.arena.add(&mut self.info, tag, s.raw().as_bytes()));
        let s = self.outbound.slot_mut(i);
        s.has_state = has_state;
        s.awaiting_input = true;
        s.deadline = None;
        let entry = Entry::InputRequired {
            id,
            has_requests: requests.is_some(),
        };
        ev.push(entry, &[requests.map_or("", |r| r.as_raw())]);
    }

    #[cfg(feature = "client")]
    pub(crate) fn answer_input(
        &mut self,
        now: u64,
        id: OutboundId,
        responses: Json<'_>,
    ) -> Result<(), SendError> {
        if !responses.is_object() {
            return Err(SendError::ParamsNotObject);
        }
        let slot = *self.outbound.get(id).ok_or(SendError::UnknownRequest)?;
        if !slot.awaiting_input {
            return Err(SendError::UnknownRequest);
        }
        let i = id.index as usize;
        let wire = self.outbound.next_id();
        let info = &self.info;
        let stored = |tag: u16| {
            self.arena
                .get(info, tag)
                .and_then(|b| core::str::from_utf8(b).ok())
        };
        let request = Request {
            id: wire,
            method: slot.method,
            params: stored(i as u16).map(Json::from_validated),
            token: slot.has_token.then_some(wire),
            envelope: Some(ConfigText::of(info, &self.info_spans).envelope()),
            input: Some((
                responses,
                slot.has_state
                    .then(|| stored(STATE_TAG | i as u16))
                    .flatten(),
            )),
            member: None,
        };
        request.write(&mut self.outbox).map_err(SendError::Full)?;
        self.stats.messages_out += 1;
        self.outbound.consume_id();
        let s = self.outbound.slot_mut(i);
        s.wire_id = wire;
        s.awaiting_input = false;
        s.rounds += 1;
        s.has_progress = false;
        s.deadline = slot.timeout_ms.map(|t| now.saturating_add(t));
        Ok(())
    }

    #[cfg(feature = "client")]
    pub(crate) fn listen(&mut self, notifications: Json<'_>) -> Result<OutboundId, SendError> {
        if self.role != Role::Client || !self.life.is_modern() || !self.life.is_operating() {
            return Err(SendError::NotInVersion(Method::SubscriptionsListen));
        }
        if !notifications.is_object() {
            return Err(SendError::ParamsNotObject);
        }
        let Some(index) = self.outbound.vacant() else {
            return Err(SendError::TooManyRequests);
        };
        let id = self.outbound.next_id();
        let t = ConfigText::of(&self.info, &self.info_spans);
        let request = Request {
            id,
            method: Method::SubscriptionsListen,
            params: None,
            token: None,
            envelope: Some(t.envelope()),
            input: None,
            member: Some(("notifications", notifications)),
        };
        request.write(&mut self.outbox).map_err(SendError::Full)?;
        self.stats.messages_out += 1;
        self.outbound.consume_id();
        let opts = RequestOptions {
            timeout_ms: None,
            ..RequestOptions::default()
        };
        let handle = self
            .outbound
            .open(index, Method::SubscriptionsListen, id, 0, opts);
        let s = self.outbound.slot_mut(index);
        s.listen = true;
        // A stream has no timeout.
        (s.timeout_ms, s.deadline) = (None, None);
        Ok(handle)
    }

    #[cfg(feature = "client")]
    /// The acknowledgement of one of our listen streams.
    pub(crate) fn on_listen_ack(&mut self, ev: &mut EventQueue<'_>, params: Json<'_>) {
        let Some(sub) = params
            .get("_meta")
            .and_then(|m| m.get(KEY_SUBSCRIPTION))
            .and_then(|s| s.as_u64())
        else {
            return;
        };
        let Some(i) = self.outbound.listen(sub) else {
            return;
        };
        let id = self.outbound.handle(i);
        let n = params.get("notifications").unwrap_or(Json::EMPTY_OBJECT);
        ev.push(Entry::SubscriptionAck { id }, &[n.as_raw()]);
    }

    #[cfg(feature = "client")]
    /// A modern server ends one of our listen streams with `notifications/cancelled`.
    pub(crate) fn on_listen_cancelled(&mut self, ev: &mut EventQueue<'_>, rid: Id<'_>) {
        let Some(i) = rid
            .as_raw()
            .parse::<u64>()
            .ok()
            .and_then(|w| self.outbound.listen(w))
        else {
            return;
        };
        let id = self.outbound.handle(i);
        self.finish_outbound(i);
        ev.push(Entry::SubscriptionEnded { id }, &[]);
    }
}

/// Our integer wire id as an [`Id`], written into `digits`.
fn wire_id(id: u64, digits: &mut [u8; 20]) -> Id<'_> {
    Id::from_raw(core::str::from_utf8(fmt_u64(id, digits)).unwrap_or("0"))
}

/// One request line of ours, in every shape the client sends.
struct Request<'a> {
    id: u64,
    method: Method,
    /// The caller's params (their `_meta` is merged with ours).
    params: Option<Json<'a>>,
    /// `_meta.progressToken`.
    token: Option<u64>,
    /// 2026-07-28: `(name, version, capabilities)` for the `_meta` envelope.
    envelope: Option<(&'a str, &'a str, &'a str)>,
    /// An MRTR retry: `inputResponses` and the echoed `requestState`.
    input: Option<(Json<'a>, Option<&'a str>)>,
    /// One more params member (`subscriptions/listen`'s `notifications`).
    member: Option<(&'a str, Json<'a>)>,
}

impl Request<'_> {
    /// Queues the line: `params` members (minus `_meta` and, on a retry, the previous
    /// `inputResponses`/`requestState`), the retry members, and `_meta` with the caller's
    /// own keys, the progress token and, in the modern era, the envelope.
    fn write(&self, outbox: &mut Outbox<'_>) -> Result<(), InsufficientSize> {
        let bare = self.params.is_none()
            && self.token.is_none()
            && self.envelope.is_none()
            && self.input.is_none()
            && self.member.is_none();
        outbox.push_with(|w: &mut JsonWriter<'_>| {
            let mut digits = [0u8; 20];
            let wire = wire_id(self.id, &mut digits);
            if bare {
                jsonrpc::encode_request(w, wire, self.method.as_str(), None);
            } else {
                jsonrpc::encode_request_with(w, wire, self.method.as_str(), |w| self.params(w));
            }
        })
    }

    fn params(&self, w: &mut JsonWriter<'_>) {
        let (params, input) = (self.params, self.input);
        let meta = params
            .and_then(|p| p.get("_meta"))
            .filter(|m| m.is_object());
        w.begin_object();
        let skip = |k: JsonStr<'_>| {
            k.eq_str("_meta")
                || (input.is_some() && (k.eq_str("inputResponses") || k.eq_str("requestState")))
        };
        if let Some(p) = params {
            for (k, v) in p.members().filter(|(k, _)| !skip(*k)) {
                w.key_raw(k);
                w.raw(v);
            }
        }
        if let Some((responses, state)) = input {
            w.key("inputResponses");
            w.raw(responses);
            if let Some(s) = state {
                w.key("requestState");
                w.string_raw(JsonStr::from_validated(s, true));
            }
        }
        if let Some((k, v)) = self.member {
            w.key(k);
            w.raw(v);
        }
        if meta.is_some() || self.token.is_some() || self.envelope.is_some() {
            w.key("_meta");
            w.begin_object();
            if let Some(m) = meta {
                for (k, v) in m.members().filter(|(k, _)| !is_envelope_key(*k)) {
                    w.key_raw(k);
                    w.raw(v);
                }
            }
            if let Some(t) = self.token {
                w.key("progressToken");
                w.u64(t);
            }
            if let Some((name, ver, caps)) = self.envelope {
                w.key(KEY_VERSION);
                w.string(ProtocolVersion::V2026_07_28.as_str());
                w.key(KEY_CAPS);
                write_declared(
                    w,
                    Json::from_validated(caps),
                    Role::Client,
                    ProtocolVersion::V2026_07_28,
                );
                w.key(KEY_CLIENT_INFO);
                write_info(w, name, ver);
            }
            w.end_object();
        }
        w.end_object();
    }
}

#[cfg(feature = "client")]
host_commands! {
    /// Client, 2026-07-28: answers an [`Event::InputRequired`](super::Event::InputRequired).
    /// `responses` maps each key of `inputRequests` to its answer; the core re-issues the
    /// original request with a new wire id, these `inputResponses` and the echoed
    /// `requestState`. The handle stays the same.
    ///
    /// # Errors
    /// [`SendError::UnknownRequest`] when the request is not waiting for input;
    /// [`SendError::ParamsNotObject`]; [`SendError::Full`].
    fn answer_input(
        &mut self,
        now: u64,
        id: OutboundId,
        responses: Json<'_>,
    ) -> Result<(), SendError>;

    /// Client, 2026-07-28: opens a `subscriptions/listen` stream with the filter
    /// `notifications` (e.g. `{"toolsListChanged":true}`). The acknowledgement arrives
    /// as [`Event::SubscriptionAcknowledged`](super::Event::SubscriptionAcknowledged), then
    /// tagged notifications as [`Event::Notification`](super::Event::Notification);
    /// [`cancel`](Session::cancel) ends it.
    ///
    /// # Errors
    /// [`SendError::NotInVersion`] outside the modern era; as
    /// [`send_request`](Session::send_request) otherwise.
    fn listen(&mut self, notifications: Json<'_>) -> Result<OutboundId, SendError>;
}
