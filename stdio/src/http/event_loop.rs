//! The readiness loop behind [`serve_on`](super::serve_on): one thread, one `epoll`
//! instance (through `mio`), every connection a [`ServerConnection`] in a table. The
//! endpoint and the application's sessions belong to this thread alone, so nothing on
//! the request path takes a lock.
//!
//! One request: the socket becomes readable; its bytes go into the connection's codec;
//! the parsed request (borrowed from the codec's buffer, never copied) goes to the
//! endpoint and, when the endpoint says so, its body to the slot's session and the
//! application; the answer is appended to the connection's output buffer and written
//! with one `write`. A stream that has nothing to send yet is *parked*; any activity of
//! a session (`collect`) or of the endpoint's timers wakes the parked streams, which
//! then pull what is theirs.
//!
//! Bounds, all from [`HttpOptions`](super::HttpOptions) and the endpoint's config: at
//! most `max_connections` sockets (one more is answered 503 and closed); each
//! connection's input is bounded by its codec (head, body, slow-loris timeouts) and its
//! output by one response or by the stream's bounded buffer in the endpoint: nothing
//! more is pulled until what was pulled is written. A peer that stops reading for the
//! codec's `idle_timeout_ms` while output waits is closed (its stream detached).

use std::io::{self, Read, Write};
use std::time::Instant;

use mio::net::{TcpListener, TcpStream};
use mio::{Events, Interest, Token};
use picomcp::http::codec::{
    CodecLimits, ServerConnection, chunk_overhead, write_chunk, write_last_chunk,
};
use picomcp::http::endpoint::{Endpoint, Head, Outcome, Poll, StreamHandle};
use picomcp::http::{BodyLength, Header, ResponseHead};
use picomcp::session::Slice;

use super::{HttpOptions, Random, Service};

const LISTENER: Token = Token(usize::MAX);

/// How often connection timers, session expiry and keep-alives are looked at (ms).
const SWEEP_MS: u64 = 50;

/// Headers parsed per request at most (the codec's `max_headers` caps it too).
const MAX_HEADERS: usize = 64;

/// What a connection is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Waiting for (or parsing) a request.
    Reading,
    /// Writing the response stream `h` of the current request.
    Streaming(StreamHandle),
    /// Write what is pending, then close.
    Closing,
}

struct Conn {
    stream: TcpStream,
    codec: ServerConnection<'static>,
    out: Vec<u8>,
    sent: usize,
    /// The socket may have unread bytes (edge-triggered readiness: read until short).
    readable: bool,
    state: State,
    /// In the parked list (a stream waiting for output).
    parked: bool,
    /// Since when output has been waiting for the socket without progress.
    stalled_since: Option<u64>,
}

/// The loop's state: every connection, the endpoint and the application.
pub(super) struct Loop<S> {
    ep: Endpoint<'static>,
    svc: S,
    random: Random,
    start: Instant,
    limits: CodecLimits,
    max_connections: usize,
    conns: Vec<Option<Conn>>,
    free: Vec<usize>,
    open: usize,
    /// Receive buffers of closed connections, for the next ones.
    spare: Vec<Slice<'static, u8>>,
    parked: Vec<usize>,
    /// A session produced output or the endpoint changed: wake the parked streams.
    dirty: bool,
    /// The application's next wake per slot, and the earliest of them.
    due: Vec<Option<u64>>,
    next_due: Option<u64>,
    /// Slots the application was told to start (so it is told when they end).
    started: Vec<bool>,
    next_sweep: u64,
    ep_next: Option<u64>,
}

fn min(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

impl<S: Service> Loop<S> {
    pub(super) fn new(ep: Endpoint<'static>, svc: S, options: HttpOptions) -> Self {
        let slots = ep.slot_count();
        Loop {
            ep,
            svc,
            random: Random::new(),
            start: Instant::now(),
            limits: options.codec,
            max_connections: options.max_connections,
            conns: Vec::new(),
            free: Vec::new(),
            open: 0,
            spare: Vec::new(),
            parked: Vec::new(),
            dirty: false,
            due: vec![None; slots],
            next_due: None,
            started: vec![false; slots],
            next_sweep: 0,
            ep_next: None,
        }
    }

    fn now(&self) -> u64 {
        self.start.elapsed().as_millis() as u64
    }

    /// Serves on `listener` until polling fails.
    pub(super) fn run(&mut self, listener: std::net::TcpListener) -> io::Result<()> {
        listener.set_nonblocking(true)?;
        let mut listener = TcpListener::from_std(listener);
        let mut poll = mio::Poll::new()?;
        poll.registry()
            .register(&mut listener, LISTENER, Interest::READABLE)?;
        let mut events = Events::with_capacity(256);
        loop {
            let now = self.now();
            // The endpoint's timers (expiry, keep-alives) are applied by the sweep; its
            // `poll_timeout` may stay in the past (a session kept by its reader), so it
            // is not a wake-up time here. A due time of the application's that has passed
            // is run right after the poll.
            let due = self.next_due.map(|t| t.max(now + 1));
            let wake = min(Some(self.next_sweep), due).unwrap_or(now + SWEEP_MS);
            let timeout = std::time::Duration::from_millis(wake.saturating_sub(now));
            if let Err(e) = poll.poll(&mut events, Some(timeout)) {
                if e.kind() == io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(e);
            }
            for ev in events.iter() {
                if ev.token() == LISTENER {
                    self.accept(&listener, &poll);
                    continue;
                }
                let i = ev.token().0;
                if let Some(Some(c)) = self.conns.get_mut(i) {
                    if ev.is_readable() || ev.is_read_closed() || ev.is_error() {
                        c.readable = true;
                    }
                    self.drive(i, &poll);
                }
            }
            self.wake_parked(&poll);
            let now = self.now();
            if self.next_due.is_some_and(|t| t <= now) {
                self.timers(now);
                self.wake_parked(&poll);
            }
            if now >= self.next_sweep {
                self.sweep(now, &poll);
                self.next_sweep = now + SWEEP_MS;
            }
        }
    }

    fn accept(&mut self, listener: &TcpListener, poll: &mio::Poll) {
        loop {
            let (mut stream, _) = match listener.accept() {
                Ok(s) => s,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                // Out of descriptors and the like: try again on the next readiness.
                Err(_) => return,
            };
            if self.open >= self.max_connections {
                // Best effort on a fresh socket: its send buffer is empty.
                let _ = stream.write_all(
                    b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                );
                continue;
            }
            let _ = stream.set_nodelay(true);
            let i = self.free.pop().unwrap_or_else(|| {
                self.conns.push(None);
                self.conns.len() - 1
            });
            if poll
                .registry()
                .register(
                    &mut stream,
                    Token(i),
                    Interest::READABLE | Interest::WRITABLE,
                )
                .is_err()
            {
                self.free.push(i);
                continue;
            }
            let size = self.limits.max_head_bytes + self.limits.max_body + 1024;
            let buf = match self.spare.pop() {
                Some(b) if b.len() == size => b,
                _ => Slice::Owned(vec![0; size]),
            };
            let now = self.now();
            self.conns[i] = Some(Conn {
                stream,
                codec: ServerConnection::with_buffer(buf, self.limits, now),
                out: Vec::new(),
                sent: 0,
                readable: true,
                state: State::Reading,
                parked: false,
                stalled_since: None,
            });
            self.open += 1;
        }
    }

    fn close(&mut self, i: usize, poll: &mio::Poll) {
        let Some(mut c) = self.conns[i].take() else {
            return;
        };
        if let State::Streaming(h) = c.state {
            self.ep.detach(h);
            self.dirty = true;
        }
        let _ = poll.registry().deregister(&mut c.stream);
        if self.spare.len() < self.max_connections.min(64) {
            self.spare.push(c.codec.into_buffer());
        }
        self.free.push(i);
        self.open -= 1;
    }

    /// Moves connection `i` forward as far as it can go without blocking.
    fn drive(&mut self, i: usize, poll: &mio::Poll) {
        loop {
            let now = self.now();
            let Some(c) = self.conns[i].as_mut() else {
                return;
            };
            if c.sent < c.out.len() {
                match c.stream.write(&c.out[c.sent..]) {
                    Ok(0) => return self.close(i, poll),
                    Ok(n) => {
                        c.sent += n;
                        c.stalled_since = None;
                    }
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                        c.stalled_since.get_or_insert(now);
                        return;
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(_) => return self.close(i, poll),
                }
                if c.sent < c.out.len() {
                    continue;
                }
                c.out.clear();
                c.sent = 0;
            }
            match c.state {
                State::Closing => return self.close(i, poll),
                State::Streaming(h) => {
                    if c.readable && peer_gone(c, now) {
                        return self.close(i, poll);
                    }
                    if !self.pump(i, h, now) {
                        return;
                    }
                }
                State::Reading => {
                    if !self.read_request(i, now) {
                        return;
                    }
                }
            }
            let c = self.conns[i].as_ref().expect("driven connection");
            if c.codec.is_closed() && c.out.is_empty() && c.state == State::Reading {
                return self.close(i, poll);
            }
        }
    }

    /// Pulls what stream `h` has into the output; false when there is nothing to do
    /// until a wake.
    fn pump(&mut self, i: usize, h: StreamHandle, now: u64) -> bool {
        let Loop { ep, conns, .. } = self;
        let c = conns[i].as_mut().expect("pumped connection");
        loop {
            match ep.poll_response(now, h) {
                Poll::Head(head) => put_head(&mut c.codec, &head.response(), &mut c.out),
                Poll::Body(b) => {
                    let n = b.len();
                    put_body(&c.codec, b, &mut c.out);
                    ep.advance(h, n);
                    // Write this before pulling more: output stays bounded by the stream.
                    return true;
                }
                Poll::Wait => {
                    if !c.parked {
                        c.parked = true;
                        self.parked.push(i);
                    }
                    return !c.out.is_empty();
                }
                Poll::End => {
                    if c.codec.is_chunked() && c.codec.body_allowed() {
                        let mut last = [0u8; 8];
                        let n = write_last_chunk(&mut last).unwrap_or(0);
                        c.out.extend_from_slice(&last[..n]);
                    }
                    c.codec.finish_request(now);
                    c.state = if c.codec.is_closed() {
                        State::Closing
                    } else {
                        State::Reading
                    };
                    return true;
                }
            }
        }
    }

    /// Reads and serves the next request; false when it must wait for the socket.
    fn read_request(&mut self, i: usize, now: u64) -> bool {
        let Loop {
            ep,
            svc,
            random,
            conns,
            due,
            next_due,
            started,
            dirty,
            ..
        } = self;
        let c = conns[i].as_mut().expect("read connection");
        let mut headers = [Header::EMPTY; MAX_HEADERS];
        let outcome = match c.codec.poll_request(now, &mut headers) {
            Ok(Some(req)) => {
                *dirty = true;
                let entropy = random.bytes();
                let mut verifier = super::ServiceVerifier(&*svc);
                let auth = picomcp::http::auth::AuthInput {
                    unix_s: super::unix_now(),
                    verifier: &mut verifier,
                    policy: svc.scope_policy(),
                };
                match ep.handle_request_as(now, &req, &entropy, Some(auth)) {
                    Outcome::Respond { head, body } => {
                        put_head(&mut c.codec, &head.response(), &mut c.out);
                        if c.codec.body_allowed() {
                            c.out.extend_from_slice(body);
                        }
                        None
                    }
                    Outcome::Stream(h) => Some(Ok(h)),
                    Outcome::Deliver {
                        slot,
                        fresh,
                        stream,
                    } => {
                        if fresh {
                            svc.reset(slot, now);
                            started[slot] = true;
                        }
                        let principal = ep.principal().copied();
                        svc.principal(slot, principal.as_ref());
                        let delivered = deliver(ep, svc, slot, now, req.body);
                        let wake = svc.tick(slot, now);
                        if let Some(s) = svc.session(slot) {
                            ep.collect(now, slot, s);
                        }
                        due[slot] = wake;
                        *next_due = min(*next_due, wake);
                        match (delivered, stream) {
                            (true, Some(h)) => Some(Ok(h)),
                            (true, None) => Some(Err(202)),
                            (false, h) => {
                                if let Some(h) = h {
                                    ep.detach(h);
                                }
                                Some(Err(503))
                            }
                        }
                    }
                }
            }
            Ok(None) => {
                if c.codec.is_closed() {
                    c.state = State::Closing;
                    return true;
                }
                if c.codec.wants_continue() {
                    let mut buf = [0u8; 64];
                    let n = c.codec.write_continue(now, &mut buf).unwrap_or(0);
                    c.out.extend_from_slice(&buf[..n]);
                }
                if !c.readable {
                    return !c.out.is_empty();
                }
                let room = c.codec.receive_buffer();
                let want = room.len();
                if want == 0 {
                    // Full (the codec reports the limit next) or at end of input.
                    c.readable = false;
                    return true;
                }
                match c.stream.read(room) {
                    Ok(0) => {
                        c.readable = false;
                        c.codec.handle_eof(now);
                    }
                    Ok(n) => {
                        // A short read drained the socket: wait for the next edge.
                        c.readable = n == want;
                        c.codec.commit_received(now, n);
                    }
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                        c.readable = false;
                        return !c.out.is_empty();
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(_) => {
                        c.readable = false;
                        c.state = State::Closing;
                        c.out.clear();
                        c.sent = 0;
                    }
                }
                return true;
            }
            Err(e) => {
                let mut buf = [0u8; 512];
                if let Ok(n) = e.write_response(&mut buf) {
                    c.out.extend_from_slice(&buf[..n]);
                }
                c.state = State::Closing;
                return true;
            }
        };
        match outcome {
            None => c.codec.finish_request(now),
            Some(Ok(h)) => c.state = State::Streaming(h),
            Some(Err(status)) => {
                let accepted = Head::accepted();
                let head = if status == 202 {
                    accepted.response()
                } else {
                    ResponseHead {
                        status,
                        headers: &[],
                        body: BodyLength::None,
                    }
                };
                put_head(&mut c.codec, &head, &mut c.out);
                c.codec.finish_request(now);
            }
        }
        if c.codec.is_closed() {
            c.state = State::Closing;
        }
        true
    }

    /// Drives every parked stream once after any change.
    fn wake_parked(&mut self, poll: &mio::Poll) {
        if !self.dirty || self.parked.is_empty() {
            self.dirty = false;
            return;
        }
        self.dirty = false;
        let parked = std::mem::take(&mut self.parked);
        for &i in &parked {
            if let Some(c) = self.conns[i].as_mut() {
                c.parked = false;
            }
        }
        for i in parked {
            if self.conns[i].is_some() {
                self.drive(i, poll);
            }
        }
    }

    /// The application's timers that are due.
    fn timers(&mut self, now: u64) {
        let mut next = None;
        for slot in 0..self.due.len() {
            if self.due[slot].is_some_and(|t| t <= now) {
                let wake = self.svc.tick(slot, now);
                if let Some(s) = self.svc.session(slot) {
                    self.ep.collect(now, slot, s);
                }
                self.due[slot] = wake;
                self.dirty = true;
            }
            next = min(next, self.due[slot]);
        }
        self.next_due = next;
    }

    /// Connection timeouts, stalled writers, the endpoint's timers, ended slots.
    fn sweep(&mut self, now: u64, poll: &mio::Poll) {
        let stall = self.limits.idle_timeout_ms;
        for i in 0..self.conns.len() {
            let Some(c) = self.conns[i].as_mut() else {
                continue;
            };
            if stall.is_some_and(|t| c.stalled_since.is_some_and(|s| now.saturating_sub(s) >= t)) {
                self.close(i, poll);
                continue;
            }
            if c.state == State::Reading && c.codec.poll_timeout().is_some_and(|t| t <= now) {
                c.codec.handle_timeout(now);
                self.drive(i, poll);
            }
        }
        if self.ep_next.is_none_or(|t| t <= now) {
            self.ep.handle_timeout(now);
            self.dirty = true;
        }
        self.ep_next = self.ep.poll_timeout();
        for slot in 0..self.started.len() {
            if self.started[slot] && !self.ep.slot_in_use(slot) {
                self.started[slot] = false;
                self.due[slot] = None;
                self.svc.release(slot);
            }
        }
        self.wake_parked(poll);
    }
}

/// True when the peer of a streaming connection has closed its side (bytes it sends
/// meanwhile wait in the codec for the next request).
fn peer_gone(c: &mut Conn, now: u64) -> bool {
    let room = c.codec.receive_buffer();
    let want = room.len();
    if want == 0 {
        c.readable = false;
        return false;
    }
    match c.stream.read(room) {
        Ok(0) => true,
        Ok(n) => {
            c.readable = n == want;
            c.codec.commit_received(now, n);
            false
        }
        Err(e) if e.kind() == io::ErrorKind::Interrupted => false,
        Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
            c.readable = false;
            false
        }
        Err(_) => true,
    }
}

/// Hands the body to the slot's session and runs the application; false when the
/// session stays busy.
fn deliver<S: Service>(
    ep: &mut Endpoint<'static>,
    svc: &mut S,
    slot: usize,
    now: u64,
    body: &[u8],
) -> bool {
    for _ in 0..2 {
        let Some(s) = svc.session(slot) else {
            return false;
        };
        let taken = s.handle_message(now, body).is_ok();
        svc.run(slot, now);
        if let Some(s) = svc.session(slot) {
            ep.collect(now, slot, s);
        }
        if taken {
            return true;
        }
    }
    false
}

fn put_head(conn: &mut ServerConnection<'_>, head: &ResponseHead<'_>, out: &mut Vec<u8>) {
    let mut buf = [0u8; 1024];
    match conn.write_head(head, &mut buf) {
        Ok(n) => out.extend_from_slice(&buf[..n]),
        Err(e) => {
            let mut big = vec![0u8; e.required];
            if let Ok(n) = conn.write_head(head, &mut big) {
                out.extend_from_slice(&big[..n]);
            }
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
