//! `--http ADDR`: the same server over Streamable HTTP (path `/mcp`). One [`Session`]
//! and one [`Server`] (the demo's per-session state: timers, questions to the client)
//! per slot of the pool; the core's endpoint decides which slot serves a request and
//! the std driver (`picomcp_stdio::http`) does the sockets. Nothing here knows HTTP.

use picomcp::Limits;
use picomcp::http::auth::{AuthConfig, Claims, Principal, Rejected, ScopePolicy};
use picomcp::http::endpoint::{EndpointConfig, EndpointStorage};
use picomcp::server::Access;
use picomcp::session::{Config, Session, Slice, Storage};
use picomcp_stdio::http::{HttpOptions, Service, serve};

use crate::auth::{self, AuthArgs, JwtVerifier};

use crate::{INBOUND_SLOTS, OUTBOUND_SLOTS, Server, catalog};

/// Sessions served at once: legacy sessions plus 2026-07-28 requests in flight. Each
/// holds about 3 × `--max-line` bytes of session storage while it lives ([`storage`]),
/// so this bounds the server's memory (about 100 MB at the default 1 MiB when every slot
/// is busy; `--max-line 65536` makes it 7 MB); an ended session's storage is freed.
const SLOTS: usize = 32;
/// Response streams open at once (each `--max-line` + 4 KiB, touched only as used).
const STREAMS: usize = 64;
/// How often a 2026-07-28 slot checks for list changes of other slots (ms).
const LIST_POLL_MS: u64 = 100;

struct Slot {
    session: Session<'static>,
    server: Server,
}

struct Demo {
    config: Config<'static>,
    max_line: usize,
    slots: Vec<Option<Slot>>,
    scratch: Vec<u8>,
    /// `--auth-issuer`: the token verifier and the endpoint's auth configuration.
    auth: Option<(JwtVerifier, AuthConfig<'static>)>,
    /// The verified principal of the request being delivered.
    principal: Option<Principal>,
}

impl Service for Demo {
    fn reset(&mut self, slot: usize, now: u64) {
        // The previous session's memory goes first, so the new one can reuse it.
        self.slots[slot] = None;
        let storage = storage(self.max_line, self.config.info_len());
        self.slots[slot] = Session::new(&self.config, storage, now)
            .ok()
            .map(|session| Slot {
                session,
                server: Server::new_at(now),
            });
    }

    fn verify(&self, token: &str, claims: &mut Claims<'_>) -> Result<(), Rejected> {
        match &self.auth {
            Some((v, _)) => v.verify(token, claims),
            None => Err(Rejected("no verifier")),
        }
    }

    fn scope_policy(&self) -> Option<&dyn ScopePolicy> {
        static LAYER: std::sync::OnceLock<picomcp::server::Server<'static>> =
            std::sync::OnceLock::new();
        Some(LAYER.get_or_init(crate::layer))
    }

    fn principal(&mut self, _slot: usize, principal: Option<&Principal>) {
        self.principal = principal.copied();
    }

    fn session(&mut self, slot: usize) -> Option<&mut Session<'static>> {
        self.slots.get_mut(slot)?.as_mut().map(|s| &mut s.session)
    }

    fn run(&mut self, slot: usize, now: u64) {
        let Some(Some(Slot { session, server })) = self.slots.get_mut(slot) else {
            return;
        };
        server.access = match (&self.auth, &self.principal) {
            (Some((_, config)), Some(p)) => p.access(config),
            (Some(_), None) => Access::new(auth::SCOPES, 0),
            (None, _) => Access::ALL,
        };
        while let Ok(Some(event)) = session.poll_event_copied(&mut self.scratch) {
            server.on_event(session, event, now);
        }
        server.tick(session, now);
    }

    fn release(&mut self, slot: usize) {
        if let Some(s) = self.slots.get_mut(slot) {
            *s = None;
        }
    }

    fn tick(&mut self, slot: usize, now: u64) -> Option<u64> {
        let Some(Some(Slot { session, server })) = self.slots.get_mut(slot) else {
            return None;
        };
        server.tick(session, now);
        while let Ok(Some(event)) = session.poll_event_copied(&mut self.scratch) {
            server.on_event(session, event, now);
        }
        let wake = server.next_wake(session.is_subscribed(catalog::WATCHED_URI));
        // A 2026-07-28 slot (one request, or a `subscriptions/listen` stream) looks for
        // list changes other slots triggered (`test_trigger_*`) a few times a second.
        let modern = session.version().is_some_and(|v| !v.is_legacy());
        match (modern, wake) {
            (true, Some(w)) => Some(w.min(now + LIST_POLL_MS)),
            (true, None) => Some(now + LIST_POLL_MS),
            (false, w) => w,
        }
    }
}

/// A session's storage sized for HTTP, about 3 × `max_line` where `Storage::owned` gives
/// stdio sessions 5 ×: a body comes whole ([`Session::handle_message`]), so the
/// receive buffer is never filled (the session still requires it to be `max_line`
/// long; its pages stay untouched), and the driver takes each output right after the
/// session produced it ([`Endpoint::collect`](picomcp::http::endpoint::Endpoint::collect)),
/// so the event and transmit queues need one message each, not a backlog.
fn storage(max_line: usize, info_len: usize) -> Storage<'static> {
    let events = max_line + 1024;
    Storage {
        rx: Slice::Owned(vec![0; max_line]),
        tx: Slice::Owned(vec![0; (max_line + 320).max(info_len + 640) + 4096]),
        events: Slice::Owned(vec![0; events]),
        event_slots: Slice::Owned(vec![
            picomcp::session::EventSlot::EMPTY;
            Storage::event_slots_for(events)
        ]),
        inbound: Slice::Owned(vec![picomcp::session::InboundSlot::EMPTY; INBOUND_SLOTS]),
        outbound: Slice::Owned(vec![picomcp::session::OutboundSlot::EMPTY; OUTBOUND_SLOTS]),
        info: Slice::Owned(vec![0; info_len]),
        // A server checks no tool pins (they are the client role's).
        pins: Slice::Owned(Vec::new()),
    }
}

/// Serves forever on `addr`; returns only when it cannot bind.
pub(crate) fn run(
    addr: &str,
    config: Config<'static>,
    max_line: usize,
    auth_args: &AuthArgs,
) -> std::io::Result<()> {
    let auth = auth::config(auth_args, addr);
    let endpoint = EndpointConfig {
        max_body: max_line,
        limits: Limits {
            max_line,
            ..Limits::DEFAULT
        },
        versions: config.versions,
        // The tools' x-mcp-header annotations: their Mcp-Param-* headers are checked.
        tools: Some(&catalog::CATALOG),
        auth,
        ..EndpointConfig::default()
    };
    let storage = EndpointStorage::owned(SLOTS, STREAMS, max_line + 4096);
    let demo = Demo {
        config,
        max_line,
        slots: (0..SLOTS).map(|_| None).collect(),
        scratch: vec![0; max_line],
        auth: auth.map(|c| {
            let issuer = auth_args.issuer.clone().unwrap_or_default();
            (JwtVerifier::new(issuer, auth_args.jwks.clone()), c)
        }),
        principal: None,
    };
    let mut options = HttpOptions::default();
    options.codec.max_body = max_line;
    diag!(Info, "serving Streamable HTTP on http://{addr}/mcp");
    if let Some(a) = &auth {
        diag!(
            Info,
            "OAuth 2.1 protected resource {} (issuer {})",
            a.resource,
            a.authorization_servers[0]
        );
    }
    serve(addr, endpoint, storage, demo, options)
}
