//! The client side of both eras: the dual-era connect (`server/discover` probe with
//! fallback to `initialize`), the per-request `_meta` envelope, MRTR retries and
//! `subscriptions/listen`.

use super::modern::{Era, KEY_CAPS, KEY_CLIENT_INFO, KEY_SUBSCRIPTION, KEY_VERSION};
use super::types::{CloseReason, OutboundId, SendError, Violation};
use super::{Core, EvKind, Header, Phase};
use crate::error::InsufficientSize;
use crate::json::{Json, JsonStr, JsonWriter};
use crate::jsonrpc::ErrorObject;
use crate::protocol::{Caps, Method, ProtocolVersion};

/// The most `input_required` rounds one request may go through.
pub(crate) const MAX_ROUNDS: u8 = 8;
/// Arena owner tag for a request's `requestState` (the params use the bare slot index).
const STATE_TAG: u16 = 0x4000;

impl Core<'_> {
    /// Starts the connection: the `server/discover` probe when we speak 2026-07-28,
    /// else `initialize`.
    pub(super) fn connect(&mut self, now: u64) {
        if self.versions.contains(ProtocolVersion::V2026_07_28) {
            let id = self.next_id;
            self.consume_id();
            self.probe_id = Some(id);
            let legacy = self.versions.newest_legacy().is_some();
            self.init_deadline = Some(now.saturating_add(if legacy {
                self.probe_timeout_ms
            } else {
                self.default_timeout.unwrap_or(u64::MAX / 2)
            }));
            let r = self.push_request(id, Method::ServerDiscover, None, None, true, None);
            debug_assert!(r.is_ok());
        } else {
            self.era = Era::Legacy;
            self.send_initialize(now);
        }
    }

    /// The probe failed (error, invalid result, timeout): fall back to `initialize`.
    pub(super) fn probe_fallback(&mut self, now: u64) {
        self.probe_id = None;
        self.init_deadline = None;
        if self.versions.newest_legacy().is_some() {
            self.era = Era::Legacy;
            self.send_initialize(now);
        } else {
            self.close(CloseReason::NoCommonVersion);
        }
    }

    pub(super) fn on_probe_response(
        &mut self,
        now: u64,
        outcome: Result<Json<'_>, ErrorObject<'_>>,
    ) {
        let result = match outcome {
            Ok(r) => r,
            // -32022 means "modern server, but not our version"; we only speak one modern
            // revision, so there is no other to retry with: fall back.
            Err(_) => return self.probe_fallback(now),
        };
        let ours = ProtocolVersion::V2026_07_28;
        let supported = result.get("supportedVersions").is_some_and(|v| {
            v.elements()
                .any(|e| e.as_str().is_some_and(|s| s.eq_str(ours.as_str())))
        });
        let caps = result.get("capabilities").filter(|c| c.is_object());
        let (true, Some(caps)) = (supported, caps) else {
            return self.probe_fallback(now);
        };
        self.probe_id = None;
        self.init_deadline = None;
        self.era = Era::Modern;
        self.version = Some(ours);
        self.peer_caps = Caps::from_json(caps);
        self.phase = Phase::Operating;
        let mut h = Header::new(EvKind::Negotiated);
        h.small[0] = ours as u8;
        h.a = (0, result.as_raw().len() as u32);
        self.event(h, result.as_raw());
        let mut h = Header::new(EvKind::Ready);
        h.small[0] = ours as u8;
        self.event(h, "");
    }

    /// Writes a request line. In the modern era `params` gain the envelope; `token` adds
    /// `_meta.progressToken`.
    pub(super) fn push_request(
        &mut self,
        id: u64,
        method: Method,
        params: Option<Json<'_>>,
        token: Option<u64>,
        modern: bool,
        input: Option<(Json<'_>, Option<&str>)>,
    ) -> Result<(), InsufficientSize> {
        let info = &self.info;
        let envelope = modern.then(|| super::ConfigText::of(info, &self.info_spans).envelope());
        write_request(
            &mut self.outbox,
            id,
            method,
            params,
            token,
            envelope,
            input,
            None,
        )?;
        self.stats.messages_out += 1;
        Ok(())
    }

    /// Writes a `subscriptions/listen` request with the filter in `params.notifications`.
    pub(super) fn push_listen(
        &mut self,
        id: u64,
        filter: Json<'_>,
    ) -> Result<(), InsufficientSize> {
        let info = &self.info;
        let envelope = super::ConfigText::of(info, &self.info_spans).envelope();
        let member = Some(("notifications", filter));
        write_request(
            &mut self.outbox,
            id,
            Method::SubscriptionsListen,
            None,
            None,
            Some(envelope),
            None,
            member,
        )?;
        self.stats.messages_out += 1;
        Ok(())
    }

    /// A modern client's response handling: `resultType` decides between a final answer,
    /// an MRTR round, and an invalid result.
    pub(super) fn on_modern_result(&mut self, i: usize, result: Json<'_>) {
        let slot = self.outbound[i];
        let handle = OutboundId {
            index: i as u16,
            generation: slot.generation,
        };
        let kind = result.get("resultType").and_then(|t| t.as_str());
        let complete = kind.is_none_or(|k| k.eq_str("complete"));
        if complete {
            self.finish_outbound(i);
            let mut h = Header::new(EvKind::Response);
            h.handle = handle.to_bits();
            h.a = (0, result.as_raw().len() as u32);
            self.event(h, result.as_raw());
            return;
        }
        let input = kind.is_some_and(|k| k.eq_str("input_required"));
        let requests = result.get("inputRequests").filter(|r| r.is_object());
        let state = result.get("requestState").and_then(|s| s.as_str());
        let declared = requests.is_none_or(|r| Core::input_requests_allowed(self.own_caps, r));
        let ok = input
            && slot.method.allows_input_required()
            && slot.retained
            && slot.rounds < MAX_ROUNDS
            && (requests.is_some() || state.is_some())
            && declared;
        if !ok {
            self.finish_outbound(i);
            self.violation(Violation::InvalidResult);
            let mut h = Header::new(EvKind::InvalidResult);
            h.handle = handle.to_bits();
            h.a = (0, result.as_raw().len() as u32);
            self.event(h, result.as_raw());
            return;
        }
        // Keep the request open for the retry; remember the state to echo.
        let tag = STATE_TAG | i as u16;
        self.arena.remove_where(&mut self.info, |o, _| o == tag);
        let mut has_state = false;
        if let Some(s) = state {
            has_state = self.arena.add(&mut self.info, tag, s.raw().as_bytes());
        }
        let s = &mut self.outbound[i];
        s.has_state = has_state;
        s.awaiting_input = true;
        s.deadline = None;
        let mut h = Header::new(EvKind::InputRequired);
        h.handle = handle.to_bits();
        let payload = requests.map_or("", |r| r.as_raw());
        if requests.is_some() {
            h.a = (0, payload.len() as u32);
        }
        self.event(h, payload);
    }

    /// Re-issues a request that got `input_required`, with the host's answers.
    pub(super) fn answer_input(
        &mut self,
        now: u64,
        id: OutboundId,
        responses: Json<'_>,
    ) -> Result<(), SendError> {
        if !responses.is_object() {
            return Err(SendError::ParamsNotObject);
        }
        let slot = *self.outbound_slot(id).ok_or(SendError::UnknownRequest)?;
        if !slot.awaiting_input {
            return Err(SendError::UnknownRequest);
        }
        let i = id.index as usize;
        let wire = self.next_id;
        let info = &self.info;
        let envelope = super::ConfigText::of(info, &self.info_spans).envelope();
        let stored = |tag: u16| {
            self.arena
                .get(info, tag)
                .and_then(|b| core::str::from_utf8(b).ok())
        };
        let params = stored(i as u16).map(Json::from_validated);
        let state = if slot.has_state {
            stored(STATE_TAG | i as u16)
        } else {
            None
        };
        let token = slot.has_token.then_some(wire);
        write_request(
            &mut self.outbox,
            wire,
            slot.method,
            params,
            token,
            Some(envelope),
            Some((responses, state)),
            None,
        )
        .map_err(SendError::Full)?;
        self.stats.messages_out += 1;
        self.consume_id();
        let s = &mut self.outbound[i];
        s.wire_id = wire;
        s.awaiting_input = false;
        s.rounds += 1;
        s.has_progress = false;
        s.deadline = slot.timeout_ms.map(|t| now.saturating_add(t));
        Ok(())
    }

    /// Frees an outbound slot and whatever it kept in the arena.
    pub(super) fn finish_outbound(&mut self, i: usize) {
        let s = self.outbound[i];
        if s.retained || s.has_state {
            self.arena.remove_where(&mut self.info, |o, _| {
                o == i as u16 || o == (STATE_TAG | i as u16)
            });
        }
        self.free_outbound(i as u16);
    }

    /// A notification tagged with one of our listen streams, or its acknowledgement.
    pub(super) fn on_listen_ack(&mut self, params: Json<'_>) -> bool {
        let Some(sub) = params
            .get("_meta")
            .and_then(|m| m.get(KEY_SUBSCRIPTION))
            .and_then(|s| s.as_u64())
        else {
            return false;
        };
        let Some(i) = self
            .outbound
            .iter()
            .position(|s| s.active && s.listen && s.wire_id == sub)
        else {
            return false;
        };
        let handle = OutboundId {
            index: i as u16,
            generation: self.outbound[i].generation,
        };
        let n = params.get("notifications").unwrap_or(Json::EMPTY_OBJECT);
        let mut h = Header::new(EvKind::SubscriptionAck);
        h.handle = handle.to_bits();
        h.a = (0, n.as_raw().len() as u32);
        self.event(h, n.as_raw());
        true
    }

    pub(super) fn on_error_for(&mut self, i: usize, e: ErrorObject<'_>) {
        let handle = OutboundId {
            index: i as u16,
            generation: self.outbound[i].generation,
        };
        self.finish_outbound(i);
        self.error_event(handle, e);
    }
}

/// Writes one request: `params` members (minus `_meta` and, on a retry, the previous
/// `inputResponses`/`requestState`), the retry members, and `_meta` with the caller's own
/// keys, the progress token and, in the modern era, the envelope.
#[allow(clippy::too_many_arguments)] // one writer for every request shape; the call sites name each part
fn write_request(
    outbox: &mut super::outbox::Outbox<'_>,
    id: u64,
    method: Method,
    params: Option<Json<'_>>,
    token: Option<u64>,
    envelope: Option<(&str, &str, &str)>,
    input: Option<(Json<'_>, Option<&str>)>,
    member: Option<(&str, Json<'_>)>,
) -> Result<(), InsufficientSize> {
    outbox.push_with(|w: &mut JsonWriter<'_>| {
        w.begin_object();
        w.key("jsonrpc");
        w.string("2.0");
        w.key("id");
        w.u64(id);
        w.key("method");
        w.string(method.as_str());
        let meta = params
            .and_then(|p| p.get("_meta"))
            .filter(|m| m.is_object());
        if params.is_none()
            && token.is_none()
            && envelope.is_none()
            && input.is_none()
            && member.is_none()
        {
            w.end_object();
            return;
        }
        w.key("params");
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
        if let Some((k, v)) = member {
            w.key(k);
            w.raw(v);
        }
        if meta.is_some() || token.is_some() || envelope.is_some() {
            w.key("_meta");
            w.begin_object();
            let ours = |k: JsonStr<'_>| {
                k.eq_str("progressToken")
                    || k.eq_str(KEY_VERSION)
                    || k.eq_str(KEY_CAPS)
                    || k.eq_str(KEY_CLIENT_INFO)
            };
            if let Some(m) = meta {
                for (k, v) in m.members().filter(|(k, _)| !ours(*k)) {
                    w.key_raw(k);
                    w.raw(v);
                }
            }
            if let Some(t) = token {
                w.key("progressToken");
                w.u64(t);
            }
            if let Some((name, ver, caps)) = envelope {
                w.key(KEY_VERSION);
                w.string(ProtocolVersion::V2026_07_28.as_str());
                w.key(KEY_CAPS);
                w.raw(Json::from_validated(caps));
                w.key(KEY_CLIENT_INFO);
                w.begin_object();
                w.key("name");
                w.raw(Json::from_validated(name));
                w.key("version");
                w.raw(Json::from_validated(ver));
                w.end_object();
            }
            w.end_object();
        }
        w.end_object();
        w.end_object();
    })
}
