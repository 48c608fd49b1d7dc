//! A blocking Streamable HTTP server: sockets and threads around the core's HTTP/1.1
//! codec ([`picomcp::http::codec`]) and endpoint ([`picomcp::http::endpoint`]). It
//! carries no protocol logic: every MCP and HTTP rule is the core's; this module reads
//! and writes sockets, keeps the clock and wakes streams.
//!
//! Shape: one thread per connection (at most [`HttpOptions::max_connections`]; one more
//! is answered 503 and closed), one timer thread, and one lock around the endpoint and
//! the application's sessions. A connection thread parses a request with its own
//! [`ServerConnection`], takes the lock to hand it to the endpoint (and the session to
//! the application), then writes the answer outside the lock: a client that never reads
//! blocks only its own thread. Streams wait on a condition variable that every
//! `collect` signals. Sockets get `TCP_NODELAY` (SSE events are small and latency
//! matters more than packet count).
//!
//! The application implements [`Service`]: a pool of sessions by slot, each with its own
//! state; the endpoint says which slot a request goes to and when a slot must start
//! afresh.

use std::io::{self, Read, Write};
use std::net::{TcpListener, TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use picomcp::http::auth::{AuthInput, Claims, Principal, Rejected, ScopePolicy, Verifier};
use picomcp::http::codec::{
    CodecLimits, ServerConnection, chunk_overhead, write_chunk, write_last_chunk,
};
use picomcp::http::endpoint::{
    ENTROPY_LEN, Endpoint, EndpointConfig, EndpointStorage, Head, Outcome, Poll, StreamHandle,
};
use picomcp::http::{Header, Method, Request, ResponseHead};
use picomcp::session::Session;

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

struct State<S> {
    ep: Endpoint<'static>,
    svc: S,
    random: Random,
}

struct Shared<S> {
    state: Mutex<State<S>>,
    wake: Condvar,
    start: Instant,
    options: HttpOptions,
    connections: AtomicUsize,
}

impl<S> Shared<S> {
    fn now(&self) -> u64 {
        self.start.elapsed().as_millis() as u64
    }

    fn lock(&self) -> MutexGuard<'_, State<S>> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
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
/// When the endpoint refuses its configuration.
pub fn serve_on<S: Service>(
    listener: TcpListener,
    config: EndpointConfig<'static>,
    storage: EndpointStorage<'static>,
    svc: S,
    options: HttpOptions,
) -> io::Result<()> {
    let ep = Endpoint::new(config, storage)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, format!("{e:?}")))?;
    let shared = Arc::new(Shared {
        state: Mutex::new(State {
            ep,
            svc,
            random: Random::new(),
        }),
        wake: Condvar::new(),
        start: Instant::now(),
        options,
        connections: AtomicUsize::new(0),
    });
    let timer = Arc::clone(&shared);
    std::thread::spawn(move || timers(&timer));
    for stream in listener.incoming() {
        let Ok(stream) = stream else { continue };
        let _ = stream.set_nodelay(true);
        if shared.connections.fetch_add(1, Ordering::SeqCst) >= shared.options.max_connections {
            shared.connections.fetch_sub(1, Ordering::SeqCst);
            let mut s = stream;
            let _ = s.write_all(
                b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            );
            continue;
        }
        let conn = Arc::clone(&shared);
        std::thread::spawn(move || {
            let _ = connection(&conn, stream);
            conn.connections.fetch_sub(1, Ordering::SeqCst);
        });
    }
    Ok(())
}

/// The timer thread: session expiry, keep-alives, the application's timers.
fn timers<S: Service>(shared: &Shared<S>) {
    let mut guard = shared.lock();
    loop {
        let now = shared.now();
        let st = &mut *guard;
        st.ep.handle_timeout(now);
        let mut next = st.ep.poll_timeout();
        for slot in 0..st.ep.slot_count() {
            if !st.ep.slot_in_use(slot) {
                continue;
            }
            let due = st.svc.tick(slot, now);
            if let Some(s) = st.svc.session(slot) {
                st.ep.collect(now, slot, s);
            }
            next = min(next, due);
        }
        shared.wake.notify_all();
        let wait = next.map_or(1000, |t| t.saturating_sub(now).clamp(1, 1000));
        guard = shared
            .wake
            .wait_timeout(guard, Duration::from_millis(wait))
            .map(|(g, _)| g)
            .unwrap_or_else(|p| p.into_inner().0);
    }
}

fn min(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// A request copied out of the codec's buffer, so the codec can write the answer.
struct Owned {
    method: Method,
    target: String,
    headers: Vec<(String, Vec<u8>)>,
    body: Vec<u8>,
}

fn connection<S: Service>(shared: &Shared<S>, mut stream: TcpStream) -> io::Result<()> {
    let limits = shared.options.codec;
    let mut rx = vec![0u8; limits.max_head_bytes + limits.max_body + 1024];
    let mut conn = ServerConnection::new(&mut rx, limits, shared.now());
    stream.set_read_timeout(Some(Duration::from_millis(500)))?;
    loop {
        let owned = loop {
            let mut headers = [Header::EMPTY; 64];
            match conn.poll_request(shared.now(), &mut headers) {
                Ok(Some(r)) => {
                    break Owned {
                        method: r.method,
                        target: r.target.to_owned(),
                        headers: r
                            .headers
                            .iter()
                            .map(|h| (h.name.to_owned(), h.value.to_vec()))
                            .collect(),
                        body: r.body.to_vec(),
                    };
                }
                Ok(None) => {}
                Err(e) => {
                    let mut out = [0u8; 512];
                    if let Ok(n) = e.write_response(&mut out) {
                        let _ = stream.write_all(&out[..n]);
                    }
                    return Ok(());
                }
            }
            if conn.is_closed() {
                return Ok(());
            }
            if conn.wants_continue() {
                let mut out = [0u8; 64];
                let n = conn.write_continue(shared.now(), &mut out).unwrap_or(0);
                stream.write_all(&out[..n])?;
            }
            let buf = conn.receive_buffer();
            match stream.read(buf) {
                Ok(0) => conn.handle_eof(shared.now()),
                Ok(n) => conn.commit_received(shared.now(), n),
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                    ) =>
                {
                    conn.handle_timeout(shared.now());
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => return Ok(()),
            }
        };
        let headers: Vec<Header<'_>> = owned
            .headers
            .iter()
            .map(|(n, v)| Header { name: n, value: v })
            .collect();
        let req = Request {
            method: owned.method,
            target: &owned.target,
            headers: &headers,
            body: &owned.body,
        };
        answer(shared, &mut conn, &mut stream, &req)?;
        conn.finish_request(shared.now());
        if conn.is_closed() {
            return Ok(());
        }
    }
}

/// Serves one request to its end.
fn answer<S: Service>(
    shared: &Shared<S>,
    conn: &mut ServerConnection<'_>,
    stream: &mut TcpStream,
    req: &Request<'_>,
) -> io::Result<()> {
    let mut out = Vec::new();
    let handle = {
        let mut guard = shared.lock();
        let st = &mut *guard;
        let now = shared.now();
        let entropy = st.random.bytes();
        let mut verifier = ServiceVerifier(&st.svc);
        let auth = AuthInput {
            unix_s: unix_now(),
            verifier: &mut verifier,
            policy: st.svc.scope_policy(),
        };
        match st.ep.handle_request_as(now, req, &entropy, Some(auth)) {
            Outcome::Respond { head, body } => {
                put_head(conn, &head.response(), &mut out);
                out.extend_from_slice(body);
                None
            }
            Outcome::Stream(h) => Some(h),
            Outcome::Deliver {
                slot,
                fresh,
                stream: h,
            } => {
                if fresh {
                    st.svc.reset(slot, now);
                }
                let principal = st.ep.principal().copied();
                st.svc.principal(slot, principal.as_ref());
                let delivered = deliver(st, slot, now, req.body);
                shared.wake.notify_all();
                match (delivered, h) {
                    (true, None) => {
                        put_head(conn, &Head::accepted().response(), &mut out);
                        None
                    }
                    (true, Some(h)) => Some(h),
                    (false, h) => {
                        if let Some(h) = h {
                            st.ep.detach(h);
                        }
                        let busy = ResponseHead {
                            status: 503,
                            headers: &[],
                            body: picomcp::http::BodyLength::None,
                        };
                        put_head(conn, &busy, &mut out);
                        None
                    }
                }
            }
        }
    };
    stream.write_all(&out)?;
    match handle {
        Some(h) => serve_stream(shared, conn, stream, h),
        None => Ok(()),
    }
}

/// Hands the body to the slot's session and runs the application; false when the
/// session stays busy.
fn deliver<S: Service>(st: &mut State<S>, slot: usize, now: u64, body: &[u8]) -> bool {
    for _ in 0..2 {
        let Some(s) = st.svc.session(slot) else {
            return false;
        };
        match s.handle_message(now, body) {
            Ok(()) => {
                st.svc.run(slot, now);
                if let Some(s) = st.svc.session(slot) {
                    st.ep.collect(now, slot, s);
                }
                return true;
            }
            Err(_) => {
                st.svc.run(slot, now);
                if let Some(s) = st.svc.session(slot) {
                    st.ep.collect(now, slot, s);
                }
            }
        }
    }
    false
}

fn put_head(conn: &mut ServerConnection<'_>, head: &ResponseHead<'_>, out: &mut Vec<u8>) {
    let mut buf = vec![0u8; 1024];
    loop {
        match conn.write_head(head, &mut buf) {
            Ok(n) => {
                out.extend_from_slice(&buf[..n]);
                return;
            }
            Err(e) => buf.resize(e.required, 0),
        }
    }
}

fn put_body(conn: &ServerConnection<'_>, data: &[u8], out: &mut Vec<u8>) {
    if !conn.body_allowed() {
        return;
    }
    if conn.is_chunked() {
        let at = out.len();
        out.resize(at + data.len() + chunk_overhead(data.len()), 0);
        let n = write_chunk(data, &mut out[at..]).unwrap_or(0);
        out.truncate(at + n);
    } else {
        out.extend_from_slice(data);
    }
}

/// Writes a stream's head and body as they come, until it ends or the peer goes.
fn serve_stream<S: Service>(
    shared: &Shared<S>,
    conn: &mut ServerConnection<'_>,
    stream: &mut TcpStream,
    h: StreamHandle,
) -> io::Result<()> {
    let mut guard = shared.lock();
    loop {
        let mut out = Vec::new();
        let mut done = false;
        loop {
            let now = shared.now();
            match guard.ep.poll_response(now, h) {
                Poll::Head(head) => put_head(conn, &head.response(), &mut out),
                Poll::Body(b) => {
                    let n = b.len();
                    put_body(conn, b, &mut out);
                    guard.ep.advance(h, n);
                }
                Poll::Wait => break,
                Poll::End => {
                    if conn.is_chunked() && conn.body_allowed() {
                        let mut last = [0u8; 8];
                        let n = write_last_chunk(&mut last).unwrap_or(0);
                        out.extend_from_slice(&last[..n]);
                    }
                    done = true;
                    break;
                }
            }
        }
        if !out.is_empty() {
            drop(guard);
            let written = stream.write_all(&out).and_then(|()| stream.flush());
            guard = shared.lock();
            if let Err(e) = written {
                guard.ep.detach(h);
                return Err(e);
            }
        }
        if done {
            return Ok(());
        }
        if peer_closed(stream) {
            guard.ep.detach(h);
            conn.close_after_response();
            return Ok(());
        }
        guard = shared
            .wake
            .wait_timeout(guard, Duration::from_millis(250))
            .map(|(g, _)| g)
            .unwrap_or_else(|p| p.into_inner().0);
    }
}

/// True when the peer has closed its side (a zero-byte peek without blocking).
fn peer_closed(stream: &TcpStream) -> bool {
    if stream.set_nonblocking(true).is_err() {
        return false;
    }
    let mut b = [0u8; 1];
    let closed = matches!(stream.peek(&mut b), Ok(0));
    let _ = stream.set_nonblocking(false);
    closed
}

/// Random bytes for session ids: the OS's generator, read once per id.
struct Random {
    file: Option<std::fs::File>,
    fallback: u64,
}

impl Random {
    fn new() -> Self {
        Random {
            file: std::fs::File::open("/dev/urandom").ok(),
            fallback: 0,
        }
    }

    fn bytes(&mut self) -> [u8; ENTROPY_LEN] {
        let mut out = [0u8; ENTROPY_LEN];
        if let Some(f) = self.file.as_mut()
            && f.read_exact(&mut out).is_ok()
        {
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
