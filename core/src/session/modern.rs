//! The 2026-07-28 ("modern") era on the server side: per-request `_meta` envelope
//! validation, `server/discover`, `subscriptions/listen` streams, result decoration.

use super::ConfigText;
use super::events::{Entry, EventQueue};
use super::meta::{
    KEY_CAPS, KEY_LOG_LEVEL, KEY_SERVER_INFO, KEY_SUBSCRIPTION, KEY_VERSION, L_PROMPTS,
    L_RESOURCES, L_SUBSCRIBE, L_TOOLS, uri_matches,
};
use super::route::Core;
use super::types::Violation;
use crate::error::{ErrorCode, InsufficientSize};
use crate::json::{Json, JsonKind, JsonStr, JsonWriter, fmt_u64};
use crate::jsonrpc::{self, Id};
use crate::protocol::{Caps, LogLevel, Method, MethodKind, ProtocolVersion, Role, write_declared};

impl Core<'_> {
    /// -32022 with the versions we serve (`modern_only`: only the modern ones).
    pub(crate) fn reply_unsupported_version(
        &mut self,
        ev: &mut EventQueue<'_>,
        id: Id<'_>,
        requested: Option<JsonStr<'_>>,
        modern_only: bool,
    ) {
        let versions = self.versions;
        let r = self.push(|w| {
            let message = "Unsupported protocol version";
            jsonrpc::encode_error_with(
                w,
                Some(id),
                ErrorCode::UNSUPPORTED_PROTOCOL_VERSION,
                message,
                |w| {
                    w.begin_object();
                    w.key("supported");
                    self_versions(w, versions, modern_only);
                    w.key("requested");
                    match requested {
                        Some(r) => w.string_raw(r),
                        None => w.string(""),
                    }
                    w.end_object();
                },
            )
        });
        let _ = r;
        self.violation(ev, Violation::UnsupportedVersion);
    }

    #[cfg(feature = "modern")]
    /// A request that claims the modern era (the server serves 2026-07-28): its envelope,
    /// version, method and the params the core checks, in that order; one the host must
    /// answer gets a slot and is queued as [`Event::Request`](super::Event::Request).
    pub(crate) fn on_modern_request(
        &mut self,
        ev: &mut EventQueue<'_>,
        id: Id<'_>,
        name: JsonStr<'_>,
        params: Json<'_>,
    ) {
        let method = Method::from_json_str(name);
        let bad_envelope = |this: &mut Self, ev: &mut EventQueue<'_>, msg: &str| {
            this.reply_error(Some(id), ErrorCode::INVALID_PARAMS, msg);
            this.violation(ev, Violation::BadEnvelope(method.unwrap_or(Method::Ping)));
        };
        // The envelope: `_meta` with the version and the client capabilities.
        let Some(meta) = params.get("_meta").filter(|m| m.is_object()) else {
            return bad_envelope(self, ev, "Invalid params: _meta must be an object");
        };
        let Some(requested) = meta.get(KEY_VERSION).and_then(|v| v.as_str()) else {
            return bad_envelope(
                self,
                ev,
                "Invalid params: _meta io.modelcontextprotocol/protocolVersion must be a string",
            );
        };
        let Some(caps) = meta.get(KEY_CAPS).filter(|c| c.is_object()) else {
            return bad_envelope(
                self,
                ev,
                "Invalid params: _meta is missing io.modelcontextprotocol/clientCapabilities",
            );
        };
        // The version: one we serve.
        let version = ProtocolVersion::from_json_str(requested)
            .filter(|v| !v.is_legacy() && self.versions.contains(*v));
        let Some(version) = version else {
            return self.reply_unsupported_version(ev, id, Some(requested), true);
        };
        // The method: in this version's table, with server-capability gating.
        let method = match method {
            Some(m)
                if m.spec().kind == MethodKind::Request
                    && m.exists_in(version)
                    && m.spec().direction.allows(Role::Client) =>
            {
                m
            }
            _ => {
                self.refuse(
                    ev,
                    Some(id),
                    ErrorCode::METHOD_NOT_FOUND,
                    "Method not found",
                    Violation::UnknownMethod,
                );
                return;
            }
        };
        let gated = match method {
            Method::ServerDiscover | Method::SubscriptionsListen => true,
            m => match m.gate_in(version) {
                crate::protocol::Gate::Server(c) => self.own_caps.contains(c),
                _ => true,
            },
        };
        if !gated {
            self.refuse(
                ev,
                Some(id),
                ErrorCode::METHOD_NOT_FOUND,
                "Method not found: capability not advertised",
                Violation::NotNegotiated(method),
            );
            return;
        }
        // The params the core checks itself.
        let log_level = match meta.get(KEY_LOG_LEVEL) {
            None => None,
            Some(l) => match l
                .as_str()
                .and_then(|s| s.as_plain())
                .and_then(LogLevel::parse)
            {
                Some(l) => Some(l),
                None => {
                    self.refuse(
                        ev,
                        Some(id),
                        ErrorCode::INVALID_PARAMS,
                        "Invalid params: unknown logLevel",
                        Violation::InvalidParams(method),
                    );
                    return;
                }
            },
        };
        if method == Method::ServerDiscover {
            self.reply_discover(id);
            return;
        }
        if self.life.latch_modern() {
            self.own_caps = self
                .own_caps
                .declared(Role::Server, ProtocolVersion::V2026_07_28);
        }
        if method == Method::SubscriptionsListen {
            self.open_listen(ev, id, params);
            return;
        }
        // A sealed `requestState` is verified, and the host sees the params without the
        // seal: the text before the state, the host's own state, the text after it.
        #[allow(unused_mut)]
        let mut parts = [params.as_raw(), "", ""];
        #[cfg(feature = "seal")]
        let raw = params.as_raw();
        #[cfg(feature = "seal")]
        let binding = match self.unseal_state(method, params) {
            Ok((b, Some((at, plain, end)))) => {
                parts = [&raw[..at], plain, &raw[end..]];
                b
            }
            Ok((b, None)) => b,
            Err(msg) => {
                self.refuse(
                    ev,
                    Some(id),
                    ErrorCode::INVALID_PARAMS,
                    msg,
                    Violation::InvalidParams(method),
                );
                return;
            }
        };
        match self.inbound.open(&id, method, params) {
            Ok(i) => {
                let slot = self.inbound.slot_mut(i);
                slot.modern = true;
                slot.client_caps = Caps::from_json(caps).in_version(ProtocolVersion::V2026_07_28);
                slot.log_level = log_level.map_or(0xFF, |l| l as u8);
                #[cfg(feature = "seal")]
                {
                    slot.binding = binding;
                }
                let entry = Entry::Request {
                    id: self.inbound.handle(i),
                    method,
                    has_params: true,
                };
                ev.push(entry, &parts);
            }
            Err(why) => self.refuse_unslotted(ev, id, method, why),
        }
    }

    #[cfg(all(feature = "modern", feature = "seal"))]
    /// With a seal key, for a request that may carry `requestState`: the binding digest
    /// of its params, and, when it carries a state, where the state's JSON string body
    /// starts and ends in the params text and the host's state inside it.
    ///
    /// # Errors
    /// The -32602 message for a state that is not a string, not ours, altered, bound to
    /// another request, or expired (MODERN §6, §8.4: "tampered `requestState`").
    #[allow(clippy::type_complexity)]
    fn unseal_state<'p>(
        &self,
        method: Method,
        params: Json<'p>,
    ) -> Result<(u64, Option<(usize, &'p str, usize)>), &'static str> {
        let Some(key) = self.state_key.filter(|_| method.allows_input_required()) else {
            return Ok((0, None));
        };
        let binding = super::seal::binding(method, params);
        let Some(state) = params.get("requestState") else {
            return Ok((binding, None));
        };
        let state = state
            .as_str()
            .ok_or("Invalid params: requestState must be a string")?;
        let plain = key
            .open(method, binding, self.now, state)
            .map_err(|e| match e {
                super::seal::Unsealed::Expired => "Invalid params: requestState expired",
                super::seal::Unsealed::Invalid => {
                    "Invalid params: requestState failed verification"
                }
            })?;
        // Offsets of the string body in the params text (both borrow the same line).
        let base = params.as_raw().as_ptr() as usize;
        let at = state.raw().as_ptr() as usize - base;
        let end = at + state.raw().len();
        Ok((binding, Some((at, plain, end))))
    }

    #[cfg(feature = "modern")]
    fn reply_discover(&mut self, id: Id<'_>) {
        let t = ConfigText::of(&self.info, &self.info_spans);
        let versions = self.versions;
        let (ttl, public) = (self.cache_ttl_ms, self.cache_public);
        let r = self.outbox.push_with(|w| {
            jsonrpc::encode_result_with(w, id, |w| {
                w.begin_object();
                w.key("resultType");
                w.string("complete");
                w.key("supportedVersions");
                self_versions(w, versions, true);
                w.key("capabilities");
                write_declared(
                    w,
                    Json::from_validated(t.capabilities),
                    Role::Server,
                    ProtocolVersion::V2026_07_28,
                );
                if let Some(i) = t.instructions {
                    w.key("instructions");
                    w.raw(Json::from_validated(i));
                }
                w.key("ttlMs");
                w.u64(ttl);
                w.key("cacheScope");
                w.string(if public { "public" } else { "private" });
                w.key("_meta");
                w.begin_object();
                w.key(KEY_SERVER_INFO);
                w.begin_object();
                w.key("name");
                w.raw(Json::from_validated(t.name));
                w.key("version");
                w.raw(Json::from_validated(t.version));
                w.end_object();
                w.end_object();
                w.end_object();
            })
        });
        if r.is_ok() {
            self.stats.messages_out += 1;
        }
    }

    #[cfg(feature = "modern")]
    fn open_listen(&mut self, ev: &mut EventQueue<'_>, id: Id<'_>, params: Json<'_>) {
        let Some(filter) = params.get("notifications").filter(|n| n.is_object()) else {
            self.refuse(
                ev,
                Some(id),
                ErrorCode::INVALID_PARAMS,
                "Invalid params: notifications must be an object",
                Violation::InvalidParams(Method::SubscriptionsListen),
            );
            return;
        };
        let flag = |k: &str| filter.get(k).and_then(|v| v.as_bool()) == Some(true);
        let mut bits = 0u8;
        if flag("toolsListChanged") && self.own_caps.contains(Caps::TOOLS_LIST_CHANGED) {
            bits |= L_TOOLS;
        }
        if flag("promptsListChanged") && self.own_caps.contains(Caps::PROMPTS_LIST_CHANGED) {
            bits |= L_PROMPTS;
        }
        if flag("resourcesListChanged") && self.own_caps.contains(Caps::RESOURCES_LIST_CHANGED) {
            bits |= L_RESOURCES;
        }
        let uris = filter.get("resourceSubscriptions").filter(|u| {
            u.kind() == JsonKind::Array && self.own_caps.contains(Caps::RESOURCES_SUBSCRIBE)
        });
        let uri_bytes: usize = uris.map_or(0, |u| {
            u.elements()
                .filter_map(|e| e.as_str())
                .map(|s| s.raw().len() + 4)
                .sum()
        });
        if uri_bytes > 0 {
            bits |= L_SUBSCRIBE;
        }
        if uri_bytes > self.arena.free() {
            self.refuse(
                ev,
                Some(id),
                ErrorCode::INTERNAL_ERROR,
                "Internal error: subscription limit reached",
                Violation::TooManySubscriptions,
            );
            return;
        }
        let index = match self.inbound.open(&id, Method::SubscriptionsListen, params) {
            Ok(i) => i,
            Err(why) => return self.refuse_unslotted(ev, id, Method::SubscriptionsListen, why),
        };
        let slot = self.inbound.slot_mut(index);
        slot.modern = true;
        slot.state = super::inbound::InboundState::Listening;
        slot.listen = bits;
        if let Some(u) = uris {
            for s in u.elements().filter_map(|e| e.as_str()) {
                // Stored escaped, as received; compared after unescaping.
                let _ = self
                    .arena
                    .add(&mut self.info, index as u16, s.raw().as_bytes());
            }
        }
        // The acknowledgement: the honoured subset, tagged with the listen id.
        let (arena, info) = (&self.arena, &self.info);
        let method = Method::SubscriptionsAcknowledged.as_str();
        let r = self.outbox.push_with(|w| {
            jsonrpc::encode_notification_with(w, method, |w| {
                w.begin_object();
                w.key("notifications");
                w.begin_object();
                for (bit, name) in [
                    (L_TOOLS, "toolsListChanged"),
                    (L_PROMPTS, "promptsListChanged"),
                    (L_RESOURCES, "resourcesListChanged"),
                ] {
                    if bits & bit != 0 {
                        w.key(name);
                        w.bool(true);
                    }
                }
                if bits & L_SUBSCRIBE != 0 {
                    w.key("resourceSubscriptions");
                    w.begin_array();
                    for (_, uri) in arena.iter(info).filter(|(o, _)| *o == index as u16) {
                        w.string_raw(JsonStr::from_validated(
                            core::str::from_utf8(uri).unwrap_or(""),
                            true,
                        ));
                    }
                    w.end_array();
                }
                w.end_object();
                subscription_meta(w, id);
                w.end_object();
            })
        });
        if r.is_ok() {
            self.stats.messages_out += 1;
        }
        if bits == 0 {
            // Nothing can ever be delivered on this stream: end it at once (the graceful
            // closing result) rather than hold a request slot for nothing.
            self.close_listen(index);
        }
    }

    /// Delivers a change to every listen stream that asked for it (filter bit `bit`, and
    /// for a resource `uri` among its subscriptions); returns how many were queued.
    pub(crate) fn deliver_to_listeners(
        &mut self,
        method: Method,
        bit: u8,
        uri: Option<&str>,
    ) -> Result<usize, InsufficientSize> {
        let mut sent = 0;
        for i in 0..self.inbound.len() {
            let s = *self.inbound.slot(i);
            if s.state != super::inbound::InboundState::Listening || s.listen & bit == 0 {
                continue;
            }
            if let Some(u) = uri
                && !self
                    .arena
                    .iter(&self.info)
                    .any(|(o, b)| o == i as u16 && uri_matches(b, u))
            {
                continue;
            }
            self.push_change(method, uri, Some(s.wire_id()))?;
            sent += 1;
        }
        Ok(sent)
    }

    /// A change notification; `sub` tags it with a listen stream.
    pub(crate) fn push_change(
        &mut self,
        method: Method,
        uri: Option<&str>,
        sub: Option<Id<'_>>,
    ) -> Result<(), InsufficientSize> {
        if uri.is_none() && sub.is_none() {
            return self.push(|w| jsonrpc::encode_notification(w, method.as_str(), None));
        }
        self.push(|w| {
            jsonrpc::encode_notification_with(w, method.as_str(), |w| {
                w.begin_object();
                if let Some(u) = uri {
                    w.key("uri");
                    w.string(u);
                }
                if let Some(id) = sub {
                    subscription_meta(w, id);
                }
                w.end_object();
            })
        })
    }

    /// Ends a listen stream the client cancelled.
    pub(crate) fn end_listen(&mut self, index: usize) {
        self.arena
            .remove_where(&mut self.info, |o, _| o == index as u16);
        self.inbound.free(index);
    }

    /// On a local close: the graceful closing result of every open listen stream.
    pub(crate) fn close_listens(&mut self) {
        for i in 0..self.inbound.len() {
            if self.inbound.slot(i).state == super::inbound::InboundState::Listening {
                self.close_listen(i);
            }
        }
    }

    /// Ends one listen stream with its graceful closing result.
    fn close_listen(&mut self, i: usize) {
        let raw = self.inbound.slot(i).id;
        let id = Id::from_raw(raw.as_str());
        let _ = self.push(|w| {
            jsonrpc::encode_result_with(w, id, |w| {
                w.begin_object();
                w.key("resultType");
                w.string("complete");
                subscription_meta(w, id);
                w.end_object();
            })
        });
        self.end_listen(i);
    }

    /// Adds what a 2026-07-28 result must carry to the object the host just wrote at
    /// `start..` in `w`: `resultType` (default `complete`), `_meta` serverInfo (when the
    /// host wrote no `_meta`), and for a complete result of a cacheable request `ttlMs` and
    /// `cacheScope` (when absent).
    pub(crate) fn decorate_result(&self, w: &mut JsonWriter<'_>, start: usize, method: Method) {
        let Some(bytes) = w.written().and_then(|b| b.get(start..)) else {
            return; // overflowed: the push fails anyway and is retried
        };
        let Ok(text) = core::str::from_utf8(bytes) else {
            return;
        };
        let Ok(obj) = Json::new(text) else {
            return;
        };
        if !obj.is_object() {
            return;
        }
        let result_type = obj.get("resultType").and_then(|t| t.as_str());
        let complete = result_type.is_none_or(|t| t.eq_str("complete"));
        let has = |k: &str| obj.get(k).is_some();
        let (add_type, add_meta) = (result_type.is_none(), !has("_meta"));
        let add_cache = complete && method.is_cacheable();
        let (add_ttl, add_scope) = (add_cache && !has("ttlMs"), add_cache && !has("cacheScope"));
        let empty = obj.members().next().is_none();
        if !(add_type || add_meta || add_ttl || add_scope) {
            return;
        }
        let end = w.len();
        w.truncate(end - 1); // drop the closing brace
        let mut first = empty;
        let mut sep = |w: &mut JsonWriter<'_>| {
            if !first {
                w.put(b",");
            }
            first = false;
        };
        if add_type {
            sep(w);
            w.put(b"\"resultType\":\"complete\"");
        }
        if add_ttl {
            sep(w);
            w.put(b"\"ttlMs\":");
            let mut tmp = [0u8; 20];
            w.put(fmt_u64(self.cache_ttl_ms, &mut tmp));
        }
        if add_scope {
            sep(w);
            w.put(if self.cache_public {
                b"\"cacheScope\":\"public\""
            } else {
                b"\"cacheScope\":\"private\""
            });
        }
        if add_meta {
            sep(w);
            w.put(b"\"_meta\":{\"");
            w.put(KEY_SERVER_INFO.as_bytes());
            w.put(b"\":{\"name\":");
            let t = ConfigText::of(&self.info, &self.info_spans);
            w.put(t.name.as_bytes());
            w.put(b",\"version\":");
            w.put(t.version.as_bytes());
            w.put(b"}}");
        }
        w.put(b"}");
    }
}

/// `"_meta":{"io.modelcontextprotocol/subscriptionId": id}` (inside an open object).
fn subscription_meta(w: &mut JsonWriter<'_>, id: Id<'_>) {
    w.key("_meta");
    w.begin_object();
    w.key(KEY_SUBSCRIPTION);
    w.raw(id.as_json());
    w.end_object();
}

fn self_versions(w: &mut JsonWriter<'_>, versions: crate::protocol::Versions, modern_only: bool) {
    w.begin_array();
    for v in versions
        .iter()
        .rev()
        .filter(|v| !modern_only || !v.is_legacy())
    {
        w.string(v.as_str());
    }
    w.end_array();
}
