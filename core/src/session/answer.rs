//! The server side of both eras, as the host drives it: answers to the peer's requests
//! (all through one path, [`Core::answer`]), progress, log messages and change
//! notifications.

use super::arena::{self, LEGACY_OWNER};
use super::inbound::InboundState;
use super::meta::{
    Change, L_PROMPTS, L_RESOURCES, L_SUBSCRIBE, L_TOOLS, input_requests_allowed, uri_matches,
};
use super::outbox::Outbox;
use super::route::Core;
use super::types::{InboundId, RequestInfo, RespondError, SendError};
use super::{Commands, Session};
use crate::error::{ErrorCode, InsufficientSize};
use crate::json::{Json, JsonStr, JsonWriter};
use crate::jsonrpc::{self, Id};
use crate::protocol::{Caps, LogLevel, Method, MethodKind, ProtocolVersion, Role};

impl Core<'_> {
    /// The one answer path: every reply to a request the host owes (result, error,
    /// missing capability, `input_required`) goes through here. `encode` writes the whole
    /// message for the request's wire id; it gets the core for decorating a modern result
    /// (`None` when the reply is staged for a batch, which is never modern).
    ///
    /// A request the peer cancelled was finished by the core when the cancellation
    /// arrived (its slot is free for new requests): answering it sends nothing, returns
    /// `Ok(())` (the spec says its response must not be sent) and forgets the handle.
    fn answer(
        &mut self,
        id: InboundId,
        encode: impl Fn(&mut JsonWriter<'_>, Id<'_>, Option<&Core<'_>>),
    ) -> Result<(), RespondError> {
        let slot = self.inbound.get(id).ok_or(RespondError::UnknownRequest)?;
        match slot.state {
            InboundState::Cancelled => {
                self.inbound.free(id.index as usize);
                return Ok(());
            }
            InboundState::Open => {}
            _ => return Err(RespondError::UnknownRequest),
        }
        let (raw, in_batch) = (slot.id, slot.in_batch);
        let wire = Id::from_raw(raw.as_str());
        if in_batch {
            // A batch member: its reply goes into the batch's array.
            self.stage(&|w: &mut JsonWriter<'_>| encode(w, wire, None))
                .map_err(RespondError::Full)?;
            self.inbound.free(id.index as usize);
            self.batch_member_done();
            return Ok(());
        }
        // The transmit queue is taken out while `encode` reads the rest of the core.
        let mut out = Outbox::detached();
        core::mem::swap(&mut out, &mut self.outbox);
        let this: &Core<'_> = self;
        let r = out.push_with(|w| encode(w, wire, Some(this)));
        core::mem::swap(&mut out, &mut self.outbox);
        r.map_err(RespondError::Full)?;
        self.stats.messages_out += 1;
        self.inbound.free(id.index as usize);
        Ok(())
    }

    pub(crate) fn respond(&mut self, id: InboundId, result: Json<'_>) -> Result<(), RespondError> {
        if !result.is_object() {
            return Err(RespondError::ResultNotObject);
        }
        self.respond_with(id, |w| w.raw(result))
    }

    pub(crate) fn respond_with(
        &mut self,
        id: InboundId,
        f: impl Fn(&mut JsonWriter<'_>),
    ) -> Result<(), RespondError> {
        let (modern, method) = match self.inbound.get(id) {
            Some(s) => (s.modern, s.method),
            None => return Err(RespondError::UnknownRequest),
        };
        self.answer(id, |w, wire, core| {
            jsonrpc::encode_result_with(w, wire, |w| {
                let start = w.len();
                f(w);
                if let (true, Some(c)) = (modern, core) {
                    c.decorate_result(w, start, method);
                }
            })
        })
    }

    pub(crate) fn respond_error(
        &mut self,
        id: InboundId,
        code: ErrorCode,
        message: &str,
        data: Option<Json<'_>>,
    ) -> Result<(), RespondError> {
        let modern = self.inbound.get(id).is_some_and(|s| s.modern);
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
        self.answer(id, |w, wire, _| {
            jsonrpc::encode_error(w, Some(wire), code, message, data)
        })
    }

    pub(crate) fn respond_missing_capability(
        &mut self,
        id: InboundId,
        required: Json<'_>,
    ) -> Result<(), RespondError> {
        if !required.is_object() {
            return Err(RespondError::ResultNotObject);
        }
        self.answer(id, |w, wire, _| {
            let message = "Missing required client capability";
            jsonrpc::encode_error_with(
                w,
                Some(wire),
                ErrorCode::MISSING_CLIENT_CAPABILITY,
                message,
                |w| {
                    w.begin_object();
                    w.key("requiredCapabilities");
                    w.raw(required);
                    w.end_object();
                },
            )
        })
    }

    pub(crate) fn respond_input_required(
        &mut self,
        id: InboundId,
        input_requests: Option<Json<'_>>,
        request_state: Option<&str>,
    ) -> Result<(), RespondError> {
        let slot = self.inbound.get(id).ok_or(RespondError::UnknownRequest)?;
        let allowed = slot.modern
            && slot.method.allows_input_required()
            && (input_requests.is_some() || request_state.is_some())
            && input_requests.is_none_or(|r| input_requests_allowed(slot.client_caps, r));
        if !allowed {
            return Err(RespondError::InputNotAllowed);
        }
        #[cfg(feature = "content-rules")]
        if let Some(r) = input_requests {
            super::meta::input_requests_content(r).map_err(RespondError::InvalidContent)?;
        }
        // With a seal key the state goes out as `s1.<expiry>.<mac>.<state>` (seal.rs).
        #[cfg(feature = "seal")]
        let mut prefix = [0u8; 72];
        #[allow(unused_mut)]
        let mut seal: &str = "";
        #[cfg(feature = "seal")]
        if let (Some(key), Some(s)) = (self.state_key, request_state) {
            let expiry = self.now.saturating_add(self.state_ttl_ms);
            // (HMAC takes any key: sealing does not fail; never send a state unsealed.)
            seal = key
                .seal(slot.method, slot.binding, expiry, s, &mut prefix)
                .ok_or(RespondError::InputNotAllowed)?;
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
                w.string_fmt(format_args!("{seal}{s}"));
            }
            w.end_object();
        })
    }

    pub(crate) fn progress(
        &mut self,
        id: InboundId,
        progress: f64,
        total: Option<f64>,
        message: Option<&str>,
    ) -> Result<(), SendError> {
        let slot = self.inbound.get(id).ok_or(SendError::UnknownRequest)?;
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
        let with_message = message.is_some()
            && self
                .life
                .version()
                .is_some_and(|v| v >= ProtocolVersion::V2025_03_26);
        self.push(|w| {
            jsonrpc::encode_notification_with(w, Method::Progress.as_str(), |w| {
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
            })
        })
        .map_err(SendError::Full)?;
        let slot = self.inbound.slot_mut(id.index as usize);
        slot.last_progress = progress;
        slot.has_progress = true;
        Ok(())
    }

    fn push_log(
        &mut self,
        level: LogLevel,
        logger: Option<&str>,
        data: Json<'_>,
    ) -> Result<(), InsufficientSize> {
        self.push(|w| {
            jsonrpc::encode_notification_with(w, Method::LogMessage.as_str(), |w| {
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
            })
        })
    }

    pub(crate) fn log(
        &mut self,
        level: LogLevel,
        logger: Option<&str>,
        data: Json<'_>,
    ) -> Result<bool, SendError> {
        if self.life.is_modern() {
            return Ok(false);
        }
        self.check_send(Method::LogMessage, MethodKind::Notification)?;
        if self.log_level.is_some_and(|min| level < min) {
            return Ok(false);
        }
        self.push_log(level, logger, data)
            .map_err(SendError::Full)?;
        Ok(true)
    }

    pub(crate) fn log_for(
        &mut self,
        id: InboundId,
        level: LogLevel,
        logger: Option<&str>,
        data: Json<'_>,
    ) -> Result<bool, SendError> {
        let slot = self.inbound.get(id).ok_or(SendError::UnknownRequest)?;
        if !slot.modern {
            return self.log(level, logger, data);
        }
        if slot.state != InboundState::Open {
            return Ok(false);
        }
        if !self.own_caps.contains(Caps::LOGGING) {
            return Err(SendError::NotNegotiated(Method::LogMessage));
        }
        match slot.log_level() {
            Some(min) if level >= min => {
                self.push_log(level, logger, data)
                    .map_err(SendError::Full)?;
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    pub(crate) fn notify(&mut self, change: Change<'_>) -> Result<usize, SendError> {
        let (method, bit, cap) = match change {
            Change::ToolsListChanged => {
                (Method::ToolsListChanged, L_TOOLS, Caps::TOOLS_LIST_CHANGED)
            }
            Change::PromptsListChanged => (
                Method::PromptsListChanged,
                L_PROMPTS,
                Caps::PROMPTS_LIST_CHANGED,
            ),
            Change::ResourcesListChanged => (
                Method::ResourcesListChanged,
                L_RESOURCES,
                Caps::RESOURCES_LIST_CHANGED,
            ),
            Change::ResourceUpdated(_) => (
                Method::ResourcesUpdated,
                L_SUBSCRIBE,
                Caps::RESOURCES_SUBSCRIBE,
            ),
        };
        if self.role != Role::Server {
            return Err(SendError::WrongDirection(method));
        }
        if !self.own_caps.contains(cap) {
            return Err(SendError::NotNegotiated(method));
        }
        let uri = match change {
            Change::ResourceUpdated(u) => Some(u),
            _ => None,
        };
        match self.life.era() {
            super::Era::Opening => Ok(0),
            super::Era::Legacy => {
                if !self.life.is_operating() {
                    return Ok(0);
                }
                if let Some(u) = uri
                    && !self
                        .arena
                        .iter(&self.info)
                        .any(|(o, b)| o == LEGACY_OWNER && uri_matches(b, u))
                {
                    return Ok(0);
                }
                self.push_change(method, uri, None)
                    .map_err(SendError::Full)?;
                Ok(1)
            }
            super::Era::Modern => self
                .deliver_to_listeners(method, bit, uri)
                .map_err(SendError::Full),
        }
    }

    pub(crate) fn is_open(&self, id: InboundId) -> bool {
        self.inbound
            .get(id)
            .is_some_and(|s| s.state == InboundState::Open)
    }

    pub(crate) fn request_info(&self, id: InboundId) -> Option<RequestInfo> {
        let s = self.inbound.get(id)?;
        Some(RequestInfo {
            method: s.method,
            modern: s.modern,
            client_capabilities: s.client_caps,
            log_level: s.log_level(),
            has_progress_token: !s.token.is_empty(),
            cancelled: s.state == InboundState::Cancelled,
        })
    }

    pub(crate) fn is_subscribed(&self, uri: &str) -> bool {
        self.arena.iter(&self.info).any(|(owner, b)| {
            let live = owner == arena::LEGACY_OWNER
                || (usize::from(owner) < self.inbound.len()
                    && self.inbound.slot(owner as usize).state == InboundState::Listening);
            live && JsonStr::from_validated(core::str::from_utf8(b).unwrap_or(""), true).eq_str(uri)
        })
    }
}

host_commands! {
    /// Answers a request with a result object.
    ///
    /// # Errors
    /// [`RespondError`]; nothing is queued on error. A request the peer cancelled was
    /// already finished by the core: the first answer to it sends nothing and returns
    /// `Ok(())` (after that, or once its slot served a newer request,
    /// [`RespondError::UnknownRequest`], as for any finished request).
    fn respond(&mut self, id: InboundId, result: Json<'_>) -> Result<(), RespondError>;

    /// Answers a request with a result written directly into the transmit queue by `f`
    /// (which must write exactly one JSON object and may be called twice).
    ///
    /// # Errors
    /// As [`respond`](Session::respond).
    fn respond_with(
        &mut self,
        id: InboundId,
        f: impl Fn(&mut JsonWriter<'_>),
    ) -> Result<(), RespondError>;

    /// Answers a request with an error.
    ///
    /// In a 2026-07-28 request, -32002 (resource not found, removed in that revision) is
    /// sent as -32602.
    ///
    /// # Errors
    /// As [`respond`](Session::respond); [`RespondError::ReservedCode`] for a code in
    /// -32099..=-32020 (use [`respond_missing_capability`](Session::respond_missing_capability)
    /// for -32021; -32042 is allowed in the legacy era).
    fn respond_error(
        &mut self,
        id: InboundId,
        code: ErrorCode,
        message: &str,
        data: Option<Json<'_>>,
    ) -> Result<(), RespondError>;

    /// 2026-07-28: answers that the request needs a client capability it did not declare
    /// (-32021). `required` is a capabilities object naming the missing pieces, e.g.
    /// `{"elicitation":{}}`.
    ///
    /// # Errors
    /// As [`respond`](Session::respond); [`RespondError::ResultNotObject`] when `required`
    /// is not an object.
    fn respond_missing_capability(
        &mut self,
        id: InboundId,
        required: Json<'_>,
    ) -> Result<(), RespondError>;

    /// 2026-07-28: answers `tools/call`, `prompts/get` or `resources/read` with an
    /// `input_required` result (MRTR): `input_requests` maps keys to `{method, params}`
    /// (`elicitation/create`, `sampling/createMessage`, `roots/list`), `request_state` is
    /// opaque text the client echoes back. At least one of the two must be given.
    ///
    /// # Errors
    /// [`RespondError::InputNotAllowed`] for another method, a legacy request, or an input
    /// kind the request's client capabilities did not declare; otherwise as
    /// [`respond`](Session::respond).
    fn respond_input_required(
        &mut self,
        id: InboundId,
        input_requests: Option<Json<'_>>,
        request_state: Option<&str>,
    ) -> Result<(), RespondError>;

    /// Announces a change; the core delivers it the right way for the era, or not at all
    /// when nobody asked for it. Returns how many notifications were queued.
    ///
    /// # Errors
    /// [`SendError::NotNegotiated`] when our capabilities do not include the matching
    /// flag (`tools.listChanged`, `resources.subscribe`, ...); [`SendError::Full`].
    fn notify(&mut self, change: Change<'_>) -> Result<usize, SendError>;

    /// Server: sends `notifications/message` for the legacy era, if logging was declared
    /// and `level` is at or above the level the client set with `logging/setLevel`.
    /// In the 2026-07-28 era log messages belong to a request: this sends nothing and
    /// returns `Ok(false)`; use [`log_for`](Session::log_for). Returns whether it was sent.
    ///
    /// # Errors
    /// [`SendError::NotNegotiated`] without the `logging` capability; [`SendError::Full`].
    fn log(
        &mut self,
        level: LogLevel,
        logger: Option<&str>,
        data: Json<'_>,
    ) -> Result<bool, SendError>;

    /// Server: a log message about the request `id`. 2026-07-28: sent only when that
    /// request asked for log messages (`_meta` logLevel) at `level` or below. Legacy: as
    /// [`log`](Session::log). Returns whether it was sent.
    ///
    /// # Errors
    /// As [`log`](Session::log); [`SendError::UnknownRequest`] for a finished request.
    fn log_for(
        &mut self,
        id: InboundId,
        level: LogLevel,
        logger: Option<&str>,
        data: Json<'_>,
    ) -> Result<bool, SendError>;

    /// Reports progress on a request the peer sent with a progress token. Values must
    /// increase.
    ///
    /// # Errors
    /// [`SendError::NoProgressToken`], [`SendError::ProgressNotIncreasing`],
    /// [`SendError::UnknownRequest`], [`SendError::Full`].
    fn progress(
        &mut self,
        id: InboundId,
        progress: f64,
        total: Option<f64>,
        message: Option<&str>,
    ) -> Result<(), SendError>;
}

host_queries! {
    /// True when a response to `id` is still owed.
    fn is_open(&self, id: InboundId) -> bool;

    /// What the core knows about an open request from the peer (or one it cancelled,
    /// while its handle is still recognisable: `cancelled` is then true).
    fn request_info(&self, id: InboundId) -> Option<RequestInfo>;

    /// True when the client subscribed to `uri` (legacy `resources/subscribe`, or a
    /// 2026-07-28 `subscriptions/listen` naming it), so a
    /// [`Change::ResourceUpdated`] for it would be delivered.
    fn is_subscribed(&self, uri: &str) -> bool;
}
