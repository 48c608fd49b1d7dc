//! [`Commands`]: the host's commands as a borrow of everything but the event queue, and
//! the commands both roles share (requests, notifications, cancellation).

use super::Session;
use super::route::Core;
use super::types::{OutboundId, Phase, RequestOptions, SendError};
use crate::json::{Json, JsonStr, JsonWriter};
use crate::jsonrpc;
use crate::protocol::{Caps, Method, MethodKind, ProtocolVersion, Role};

/// The commands of a [`Session`], borrowing everything but its event queue: what
/// [`Session::poll_event_split`] hands out beside an event, so that the host can answer
/// a request (or send, cancel, log, report progress) while the event's text is still
/// borrowed. Each method is the [`Session`] method of the same name.
///
/// [`close`](Session::close) is not here (it queues an event): drop the event first.
pub struct Commands<'a, 's> {
    pub(crate) core: &'a mut Core<'s>,
}

impl<'a, 's> Commands<'a, 's> {
    pub(crate) fn new(core: &'a mut Core<'s>) -> Self {
        Commands { core }
    }

    /// Where the lifecycle is.
    pub fn phase(&self) -> Phase {
        self.core.life.phase()
    }

    /// The negotiated revision, once agreed.
    pub fn version(&self) -> Option<ProtocolVersion> {
        self.core.life.version()
    }
}

/// Arena owner tag for the `requestedSchema` of our form elicitation in slot `i`.
pub(crate) const SCHEMA_TAG: u16 = 0x2000;

impl Core<'_> {
    /// Whether we may send `method` now (role, lifecycle, revision, capabilities).
    pub(crate) fn check_send(&self, method: Method, kind: MethodKind) -> Result<(), SendError> {
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
        if self.life.is_modern() && self.role == Role::Server && kind == MethodKind::Request {
            // A modern server never sends requests: ask for input with
            // `respond_input_required` instead.
            return Err(SendError::NotInVersion(method));
        }
        let version = self.life.version();
        match self.life.phase() {
            Phase::Closed => return Err(SendError::WrongPhase(Phase::Closed)),
            Phase::Operating => {}
            // Before the handshake only ping (and, for a server, logging) may flow.
            phase => {
                let early_ok = method == Method::Ping
                    || (self.role == Role::Server
                        && method == Method::LogMessage
                        && version.is_some());
                if !early_ok {
                    return Err(SendError::WrongPhase(phase));
                }
            }
        }
        if let Some(v) = version
            && !method.exists_in(v)
        {
            return Err(SendError::NotInVersion(method));
        }
        if !self.gate_ok(method, self.role.peer()) {
            return Err(SendError::NotNegotiated(method));
        }
        Ok(())
    }

    pub(crate) fn send_request(
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
        let schema = self.check_client_feature(method, params)?;
        let Some(index) = self.outbound.vacant() else {
            return Err(SendError::TooManyRequests);
        };
        let id = self.outbound.next_id();
        let modern = self.life.is_modern();
        // Keep the params of a request that may need an MRTR retry (checked first, so
        // that a full arena is our error, not a surprise when the server asks for input),
        // or the `requestedSchema` of a form elicitation (its answer is checked against it).
        let retain = (modern && method.allows_input_required()) || schema.is_some();
        let kept = schema.unwrap_or(params.map_or("{}", |p| p.as_raw()));
        if retain && self.arena.free() < kept.len() + 4 {
            return Err(SendError::ArenaFull {
                required: kept.len() + 4,
            });
        }
        let token = opts.progress.then_some(id);
        self.push_request(id, method, params, token, modern, None)
            .map_err(SendError::Full)?;
        let owner = if schema.is_some() {
            SCHEMA_TAG | index as u16
        } else {
            index as u16
        };
        let retained = retain && self.arena.add(&mut self.info, owner, kept.as_bytes());
        self.outbound.consume_id();
        let handle = self.outbound.open(index, method, id, now, opts);
        self.outbound.slot_mut(index).retained = retained;
        Ok(handle)
    }

    /// A server's request for a client feature: the capability of the mode asked for
    /// (URL-mode elicitation needs `elicitation.url`, a form `elicitation.form` or an
    /// empty `elicitation`; sampling with `tools`/`toolChoice` needs `sampling.tools`) and,
    /// with `content-rules`, the content rules of the revision. Returns the raw
    /// `requestedSchema` of a form elicitation, which the core keeps to check the answer.
    fn check_client_feature<'p>(
        &self,
        method: Method,
        params: Option<Json<'p>>,
    ) -> Result<Option<&'p str>, SendError> {
        use crate::protocol::content::{self, ElicitationMode};
        let p = params.unwrap_or(Json::EMPTY_OBJECT);
        let version = self
            .life
            .version()
            .unwrap_or(ProtocolVersion::LATEST_LEGACY);
        match method {
            Method::ElicitationCreate => {
                let schema = match content::elicitation_mode(p) {
                    ElicitationMode::Url => None,
                    ElicitationMode::Form => p.get("requestedSchema").map(|s| s.as_raw()),
                };
                match content::elicitation_needs(p, version) {
                    None => return Err(SendError::NotInVersion(method)),
                    Some(cap) if !self.peer_caps.contains(cap) => {
                        return Err(SendError::NotNegotiated(method));
                    }
                    Some(_) => {}
                }
                #[cfg(feature = "content-rules")]
                content::check_elicitation(p, version, false).map_err(SendError::InvalidContent)?;
                Ok(schema.filter(|_| cfg!(feature = "content-rules")))
            }
            Method::SamplingCreateMessage => {
                if content::sampling_uses_tools(p) {
                    if !version.has(crate::protocol::Feature::SamplingTools) {
                        return Err(SendError::NotInVersion(method));
                    }
                    if !self.peer_caps.contains(Caps::SAMPLING_TOOLS) {
                        return Err(SendError::NotNegotiated(method));
                    }
                }
                #[cfg(feature = "content-rules")]
                content::check_sampling(p, version).map_err(SendError::InvalidContent)?;
                Ok(None)
            }
            _ => Ok(None),
        }
    }

    pub(crate) fn send_notification(
        &mut self,
        method: Method,
        params: Option<Json<'_>>,
    ) -> Result<(), SendError> {
        if params.is_some_and(|p| !p.is_object()) {
            return Err(SendError::ParamsNotObject);
        }
        if self.role == Role::Server {
            // Change notifications go through `notify`, which knows the era's rules.
            let change = match method {
                Method::ToolsListChanged => Some(super::Change::ToolsListChanged),
                Method::PromptsListChanged => Some(super::Change::PromptsListChanged),
                Method::ResourcesListChanged => Some(super::Change::ResourcesListChanged),
                Method::ResourcesUpdated => {
                    let uri = params
                        .and_then(|p| p.get("uri"))
                        .and_then(|u| u.as_str())
                        .and_then(|u| u.as_plain());
                    Some(super::Change::ResourceUpdated(
                        uri.ok_or(SendError::ParamsNotObject)?,
                    ))
                }
                _ => None,
            };
            if let Some(c) = change {
                return self.notify(c).map(|_| ());
            }
            if method == Method::LogMessage && self.life.is_modern() {
                return Err(SendError::Reserved(method)); // use log_for
            }
        }
        self.check_send(method, MethodKind::Notification)?;
        if matches!(
            method,
            Method::Initialized | Method::Cancelled | Method::Progress
        ) {
            return Err(SendError::Reserved(method));
        }
        self.push(|w| jsonrpc::encode_notification(w, method.as_str(), params))
            .map_err(SendError::Full)
    }

    pub(crate) fn cancel(&mut self, id: OutboundId, reason: Option<&str>) -> Result<(), SendError> {
        let wire = self
            .outbound
            .get(id)
            .ok_or(SendError::UnknownRequest)?
            .wire_id;
        self.push_cancelled(wire, reason).map_err(SendError::Full)?;
        self.finish_outbound(id.index as usize);
        Ok(())
    }

    /// `notifications/cancelled` for our request with wire id `wire`.
    pub(crate) fn push_cancelled(
        &mut self,
        wire: u64,
        reason: Option<&str>,
    ) -> Result<(), crate::error::InsufficientSize> {
        self.push(|w| {
            jsonrpc::encode_notification_with(w, Method::Cancelled.as_str(), |w| {
                w.begin_object();
                w.key("requestId");
                w.u64(wire);
                if let Some(r) = reason {
                    w.key("reason");
                    w.string(r);
                }
                w.end_object();
            })
        })
    }

    /// Frees an outbound slot and whatever it kept in the arena.
    pub(crate) fn finish_outbound(&mut self, i: usize) {
        let s = *self.outbound.slot(i);
        if s.retained || s.has_state {
            let tag = super::client::STATE_TAG | i as u16;
            let schema = SCHEMA_TAG | i as u16;
            self.arena.remove_where(&mut self.info, |o, _| {
                o == i as u16 || o == tag || o == schema
            });
        }
        self.outbound.free(i);
    }
}

/// `_meta` members a request writer puts itself: never copied from the caller's params.
pub(crate) fn is_envelope_key(k: JsonStr<'_>) -> bool {
    k.eq_str("progressToken")
        || k.eq_str(super::meta::KEY_VERSION)
        || k.eq_str(super::meta::KEY_CAPS)
        || k.eq_str(super::meta::KEY_CLIENT_INFO)
}

/// Writes `{"name": .., "version": ..}` from already escaped JSON strings.
pub(crate) fn write_info(w: &mut JsonWriter<'_>, name: &str, version: &str) {
    w.begin_object();
    w.key("name");
    w.raw(Json::from_validated(name));
    w.key("version");
    w.raw(Json::from_validated(version));
    w.end_object();
}

host_commands! {
    /// Sends a request to the peer. The core assigns the id; the response arrives as
    /// [`Event::Response`](super::Event::Response) or
    /// [`Event::ErrorResponse`](super::Event::ErrorResponse) with the returned handle.
    ///
    /// # Errors
    /// [`SendError`] when the lifecycle, direction, negotiated capabilities or a bound
    /// forbids it; nothing is queued.
    fn send_request(
        &mut self,
        now: u64,
        method: Method,
        params: Option<Json<'_>>,
        opts: RequestOptions,
    ) -> Result<OutboundId, SendError>;

    /// Sends a notification to the peer, checked against the negotiated capabilities
    /// (e.g. `notifications/tools/list_changed` needs our `tools.listChanged`).
    ///
    /// # Errors
    /// [`SendError`]; nothing is queued.
    fn send_notification(
        &mut self,
        method: Method,
        params: Option<Json<'_>>,
    ) -> Result<(), SendError>;

    /// Cancels one of our requests: queues `notifications/cancelled`; a late response
    /// is dropped.
    ///
    /// # Errors
    /// [`SendError::UnknownRequest`] for a finished request; [`SendError::Full`].
    fn cancel(&mut self, id: OutboundId, reason: Option<&str>) -> Result<(), SendError>;
}
