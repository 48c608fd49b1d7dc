//! A Streamable HTTP server: one thread's readiness loop around the core's HTTP/1.1
//! codec ([`picomcp::http::codec`]) and endpoint ([`picomcp::http::endpoint`]). It
//! carries no protocol logic: every MCP and HTTP rule is the core's; this module reads
//! and writes sockets, keeps the clock and wakes streams.
//!
//! Shape: one thread runs a readiness loop (`epoll` through `mio`) over every
//! connection's [`ServerConnection`](picomcp::http::codec::ServerConnection);
//! the endpoint and the application's sessions belong to that thread, so no lock is on
//! the request path. At most [`HttpOptions::max_connections`] sockets are served (one
//! more is answered 503 and closed). A request is parsed in place in its connection's
//! buffer, handed to the endpoint (and its body to the session), and its answer written
//! with one `write`; a client that never reads holds only its own output, which is
//! bounded (one response, or its stream's buffer in the endpoint). Streams with nothing
//! to send are parked and woken by any activity of a session. Sockets get `TCP_NODELAY`
//! (SSE events are small and latency matters more than packet count).
//!
//! The application implements [`Service`]: a pool of sessions by slot, each with its own
//! state; the endpoint says which slot a request goes to and when a slot must start
//! afresh.

use std::io::{self, Read};
use std::net::{TcpListener, ToSocketAddrs};

use picomcp::http::auth::{Claims, Principal, Rejected, ScopePolicy, Verifier};
use picomcp::http::codec::CodecLimits;
use picomcp::http::endpoint::{ENTROPY_LEN, Endpoint, EndpointConfig, EndpointStorage};
use picomcp::session::Session;

mod event_loop;

/// The application behind the endpoint: sessions by slot, each with its own state.
pub trait Service: Send + 'static {
    /// Starts a fresh session (and fresh application state) in `slot`.
    fn reset(&mut self, slot: usize, now: u64);
    /// The session in `slot` (after [`reset`](Self::reset)).
    fn session(&mut self, slot: usize) -> Option<&mut Session<'static>>;
    /// Handles every pending event of the session in `slot` (answers requests).
    fn run(&mut self, slot: usize, now: u64);
    /// Time-driven work of the slot at `now`; returns when it next has some.
    fn tick(&mut self, slot: usize, now: u64) -> Option<u64>;
    /// The endpoint has ended the session in `slot` (expired, evicted, deleted, or the
    /// end of a 2026-07-28 request): its memory may go until the next
    /// [`reset`](Self::reset). Called within about 50 ms of the end; the default keeps it.
    fn release(&mut self, slot: usize) {
        let _ = slot;
    }

    // ---- authorization (under `EndpointConfig::auth`; docs/DESIGN.md, "Authorization") ----

    /// Verifies a Bearer token (signature, issuer: the host's business) and reports its
    /// claims; the endpoint then checks audience, expiry and scopes. The token is valid
    /// for this call only: never keep or forward it. Default: every token refused.
    fn verify(&self, token: &str, claims: &mut Claims<'_>) -> Result<(), Rejected> {
        let _ = (token, claims);
        Err(Rejected("the server has no token verifier"))
    }
    /// The scopes each tool, resource and prompt needs (the server layer,
    /// `picomcp::server::Server`), asked before a request reaches a session. Default none.
    fn scope_policy(&self) -> Option<&dyn ScopePolicy> {
        None
    }
    /// The verified principal of the request about to be delivered to `slot` (`None`
    /// without authorization): hand it to `Server::handle_as` and the handlers.
    fn principal(&mut self, slot: usize, principal: Option<&Principal>) {
        let _ = (slot, principal);
    }
}

/// A [`Service`]'s `verify` as the endpoint's [`Verifier`].
struct ServiceVerifier<'s, S>(&'s S);

impl<S: Service> Verifier for ServiceVerifier<'_, S> {
    fn verify(&mut self, token: &str, claims: &mut Claims<'_>) -> Result<(), Rejected> {
        self.0.verify(token, claims)
    }
}

/// Now in Unix seconds (token expiry is absolute time).
fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Socket-level options.
#[derive(Clone, Copy, Debug)]
pub struct HttpOptions {
    /// Connections served at once.
    pub max_connections: usize,
    /// The codec's limits (its `max_body` should equal the endpoint's).
    pub codec: CodecLimits,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            max_connections: 256,
            codec: CodecLimits::default(),
        }
    }
}

/// Binds `addr` (use 127.0.0.1 unless the deployment says otherwise: the endpoint's
/// `Host`/`Origin` allowlist is loopback-only by default) and serves forever.
///
/// # Errors
/// When the address cannot be bound.
pub fn serve<S: Service>(
    addr: impl ToSocketAddrs,
    config: EndpointConfig<'static>,
    storage: EndpointStorage<'static>,
    svc: S,
    options: HttpOptions,
) -> io::Result<()> {
    let listener = TcpListener::bind(addr)?;
    serve_on(listener, config, storage, svc, options)
}

/// As [`serve`], on a listener the caller bound.
///
/// # Errors
/// When the endpoint refuses its configuration, or the readiness loop cannot poll.
pub fn serve_on<S: Service>(
    listener: TcpListener,
    config: EndpointConfig<'static>,
    storage: EndpointStorage<'static>,
    svc: S,
    options: HttpOptions,
) -> io::Result<()> {
    let ep = Endpoint::new(config, storage)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, format!("{e:?}")))?;
    event_loop::Loop::new(ep, svc, options).run(listener)
}

/// Random bytes for session ids: the OS's generator, read 4 KiB at a time (every request
/// gets fresh bytes, as the endpoint asks, and each byte is handed out once; one `read`
/// per 256 requests instead of one per request).
struct Random {
    file: Option<std::fs::File>,
    pool: Box<[u8; POOL]>,
    at: usize,
    fallback: u64,
}

const POOL: usize = 4096;

impl Random {
    fn new() -> Self {
        Random {
            file: std::fs::File::open("/dev/urandom").ok(),
            pool: Box::new([0; POOL]),
            at: POOL,
            fallback: 0,
        }
    }

    fn bytes(&mut self) -> [u8; ENTROPY_LEN] {
        let mut out = [0u8; ENTROPY_LEN];
        if self.at + ENTROPY_LEN > POOL
            && let Some(f) = self.file.as_mut()
            && f.read_exact(&mut self.pool[..]).is_ok()
        {
            self.at = 0;
        }
        if self.at + ENTROPY_LEN <= POOL {
            out.copy_from_slice(&self.pool[self.at..self.at + ENTROPY_LEN]);
            // Used once: never handed out again.
            self.pool[self.at..self.at + ENTROPY_LEN].fill(0);
            self.at += ENTROPY_LEN;
            return out;
        }
        // No OS generator: the standard library's per-process random hash keys.
        use std::hash::{BuildHasher, Hasher};
        for half in out.chunks_mut(8) {
            let mut h = std::collections::hash_map::RandomState::new().build_hasher();
            self.fallback = self.fallback.wrapping_add(1);
            h.write_u64(self.fallback);
            half.copy_from_slice(&h.finish().to_le_bytes());
        }
        out
    }
}
