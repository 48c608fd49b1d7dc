//! The legacy era (2024-11-05 … 2025-11-25) on either side: a request's checks against
//! the negotiated revision and capabilities, the methods the core answers itself
//! (`ping`, `logging/setLevel`, `resources/subscribe`), and the server's `initialize`.

use super::ConfigText;
use super::arena::LEGACY_OWNER;
use super::events::{Entry, EventQueue};
use super::route::Core;
use super::types::Violation;
use crate::error::ErrorCode;
use crate::json::{Json, JsonStr};
use crate::jsonrpc::{self, Id};
use crate::protocol::{Caps, LogLevel, Method, MethodKind, ProtocolVersion, Role, write_declared};

impl Core<'_> {
    /// A request under the legacy era's rules; one the host must answer gets a slot and
    /// is queued as [`Event::Request`](super::Event::Request).
    pub(crate) fn on_legacy_request(
        &mut self,
        ev: &mut EventQueue<'_>,
        id: Id<'_>,
        name: JsonStr<'_>,
        params: Option<Json<'_>>,
    ) {
        let peer = self.role.peer();
        let Some(method) =
            Method::from_json_str(name).filter(|m| m.spec().kind == MethodKind::Request)
        else {
            self.refuse(
                ev,
                Some(id),
                ErrorCode::METHOD_NOT_FOUND,
                "Method not found",
                Violation::UnknownMethod,
            );
            return;
        };
        if method == Method::Ping {
            if self.inbound.in_flight(&id) {
                let why = super::inbound::Refused::DuplicateId;
                return self.refuse_unslotted(ev, id, method, why);
            }
            return self.reply_empty(id);
        }
        let version = self.life.version();
        let in_version = method.exists_in(version.unwrap_or(ProtocolVersion::LATEST_LEGACY))
            && method.spec().since.is_legacy();
        if !method.spec().direction.allows(peer) || !in_version {
            self.reply_error(Some(id), ErrorCode::METHOD_NOT_FOUND, "Method not found");
            let v = if in_version {
                Violation::NotNegotiated(method)
            } else {
                Violation::NotInVersion(method)
            };
            self.violation(ev, v);
            return;
        }
        if self.role == Role::Server && method == Method::Initialize {
            self.on_initialize(ev, id, params);
            return;
        }
        if self.role == Role::Server && version.is_none() {
            self.refuse(
                ev,
                Some(id),
                ErrorCode::INVALID_REQUEST,
                "Invalid Request: server not initialized",
                Violation::NotInitialized(method),
            );
            return;
        }
        if !self.gate_ok(method, self.role) {
            self.refuse(
                ev,
                Some(id),
                ErrorCode::METHOD_NOT_FOUND,
                "Method not found: capability not declared",
                Violation::NotNegotiated(method),
            );
            return;
        }
        match method {
            Method::LoggingSetLevel => self.on_set_level(ev, id, params),
            Method::ResourcesSubscribe | Method::ResourcesUnsubscribe => {
                self.on_legacy_subscribe(ev, id, method, params)
            }
            _ => {
                let p = params.unwrap_or(Json::EMPTY_OBJECT);
                #[cfg(feature = "client")]
                if self.role == Role::Client
                    && let Some(why) = self.client_feature_refusal(method, p)
                {
                    self.refuse(
                        ev,
                        Some(id),
                        ErrorCode::INVALID_PARAMS,
                        why,
                        Violation::InvalidParams(method),
                    );
                    return;
                }
                match self.inbound.open(&id, method, p) {
                    Ok(i) => {
                        let entry = Entry::Request {
                            id: self.inbound.handle(i),
                            method,
                            has_params: params.is_some(),
                        };
                        ev.push(entry, &[params.map_or("", |p| p.as_raw())]);
                    }
                    Err(why) => self.refuse_unslotted(ev, id, method, why),
                }
            }
        }
    }

    #[cfg(feature = "client")]
    /// Client: why an `elicitation/create` or `sampling/createMessage` from the server
    /// must be refused with -32602 (the message sent): a mode or tools we did not declare
    /// (DIGEST §10.2: "clients answer an undeclared mode with -32602"), or, with
    /// `content-rules`, params that break the revision's content rules.
    fn client_feature_refusal(&self, method: Method, p: Json<'_>) -> Option<&'static str> {
        use crate::protocol::content;
        let version = self
            .life
            .version()
            .unwrap_or(ProtocolVersion::LATEST_LEGACY);
        match method {
            Method::ElicitationCreate => {
                #[cfg(feature = "content-rules")]
                if content::check_elicitation(p, version, false).is_err() {
                    return Some(
                        "Invalid params: requestedSchema is not a flat object of primitives allowed in this revision",
                    );
                }
                let declared = content::elicitation_needs(p, version)
                    .is_some_and(|c| self.own_caps.contains(c));
                (!declared).then_some("Invalid params: elicitation mode not declared by the client")
            }
            Method::SamplingCreateMessage => {
                #[cfg(feature = "content-rules")]
                if content::check_sampling(p, version).is_err() {
                    return Some("Invalid params: malformed tools, toolChoice or tool content");
                }
                (content::sampling_uses_tools(p) && !self.own_caps.contains(Caps::SAMPLING_TOOLS))
                    .then_some("Invalid params: sampling tools not declared by the client")
            }
            _ => None,
        }
    }

    /// Server: `initialize`. Answered by the core; queues
    /// [`Event::Negotiated`](super::Event::Negotiated).
    fn on_initialize(&mut self, ev: &mut EventQueue<'_>, id: Id<'_>, params: Option<Json<'_>>) {
        if !matches!(self.life, super::Lifecycle::Waiting { .. }) {
            self.refuse(
                ev,
                Some(id),
                ErrorCode::INVALID_REQUEST,
                "Invalid Request: already initialized",
                Violation::DuplicateInitialize,
            );
            return;
        }
        let params = params.unwrap_or(Json::EMPTY_OBJECT);
        let Some(requested) = params.get("protocolVersion").and_then(|v| v.as_str()) else {
            self.refuse(
                ev,
                Some(id),
                ErrorCode::INVALID_PARAMS,
                "Invalid params: protocolVersion must be a string",
                Violation::InvalidParams(Method::Initialize),
            );
            return;
        };
        let chosen = ProtocolVersion::from_json_str(requested)
            .filter(|v| v.is_legacy() && self.versions.contains(*v))
            .or(self.versions.newest_legacy())
            .unwrap_or(ProtocolVersion::LATEST_LEGACY);
        self.peer_caps = params
            .get("capabilities")
            .filter(|c| c.is_object())
            .map_or(Caps::NONE, Caps::from_json)
            .in_version(chosen);
        self.life.initialize_answered(chosen);
        self.own_caps = self.own_caps.declared(Role::Server, chosen);
        let t = ConfigText::of(&self.info, &self.info_spans);
        let r = self.outbox.push_with(|w| {
            jsonrpc::encode_result_with(w, id, |w| {
                w.begin_object();
                w.key("protocolVersion");
                w.string(chosen.as_str());
                w.key("capabilities");
                write_declared(
                    w,
                    Json::from_validated(t.capabilities),
                    Role::Server,
                    chosen,
                );
                w.key("serverInfo");
                w.begin_object();
                w.key("name");
                w.raw(Json::from_validated(t.name));
                w.key("version");
                w.raw(Json::from_validated(t.version));
                w.end_object();
                if let Some(i) = t.instructions {
                    w.key("instructions");
                    w.raw(Json::from_validated(i));
                }
                w.end_object();
            })
        });
        if r.is_ok() {
            self.stats.messages_out += 1;
        }
        ev.push(Entry::Negotiated { version: chosen }, &[params.as_raw()]);
    }

    /// `logging/setLevel`, answered by the core.
    fn on_set_level(&mut self, ev: &mut EventQueue<'_>, id: Id<'_>, params: Option<Json<'_>>) {
        let level = params
            .and_then(|p| p.get("level"))
            .and_then(|l| l.as_str())
            .and_then(|s| s.as_plain())
            .and_then(LogLevel::parse);
        match level {
            Some(l) => {
                self.log_level = Some(l);
                self.reply_empty(id);
            }
            None => {
                self.refuse(
                    ev,
                    Some(id),
                    ErrorCode::INVALID_PARAMS,
                    "Invalid params: unknown log level",
                    Violation::InvalidParams(Method::LoggingSetLevel),
                );
            }
        }
    }

    /// `resources/subscribe` / `resources/unsubscribe`, answered by the core so that
    /// [`Change::ResourceUpdated`](super::Change::ResourceUpdated) can be delivered in
    /// either era.
    fn on_legacy_subscribe(
        &mut self,
        ev: &mut EventQueue<'_>,
        id: Id<'_>,
        method: Method,
        params: Option<Json<'_>>,
    ) {
        let Some(uri) = params.and_then(|p| p.get("uri")).and_then(|u| u.as_str()) else {
            self.refuse(
                ev,
                Some(id),
                ErrorCode::INVALID_PARAMS,
                "Invalid params: uri must be a string",
                Violation::InvalidParams(method),
            );
            return;
        };
        let same = |o: u16, b: &[u8]| {
            o == LEGACY_OWNER
                && JsonStr::from_validated(core::str::from_utf8(b).unwrap_or(""), true)
                    .chars()
                    .eq(uri.chars())
        };
        let known = self.arena.iter(&self.info).any(|(o, b)| same(o, b));
        if method == Method::ResourcesSubscribe
            && !known
            && !self
                .arena
                .add(&mut self.info, LEGACY_OWNER, uri.raw().as_bytes())
        {
            self.refuse(
                ev,
                Some(id),
                ErrorCode::INTERNAL_ERROR,
                "Internal error: subscription limit reached",
                Violation::TooManySubscriptions,
            );
            return;
        }
        if method == Method::ResourcesUnsubscribe {
            self.arena.remove_where(&mut self.info, same);
        }
        self.reply_empty(id);
    }
}
