//! The Streamable HTTP endpoint, server role: every rule of both eras between an HTTP
//! [`Request`] and the core [`Session`]s that serve it (DIGEST §12, MODERN §5.3, §13;
//! docs/DESIGN.md, "Streamable HTTP").
//!
//! The host owns a pool of `Session`s, each with its `Storage`, indexed by *slot*. The
//! endpoint owns the rest in caller memory ([`EndpointStorage`]): the slot table (which
//! slot is a legacy session, with its id and idle clock, or is lent to one 2026-07-28
//! request) and the response streams (SSE or JSON, with a bounded replay buffer each).
//!
//! One request, start to end:
//!
//! 1. [`Endpoint::handle_request`] checks `Host`/`Origin`, the method, `Accept`,
//!    `Content-Type`, size, session and version headers, and either answers at once
//!    ([`Outcome::Respond`]: a status, maybe a JSON-RPC error body), or says which slot's
//!    session must get the body ([`Outcome::Deliver`]), or opens a GET stream
//!    ([`Outcome::Stream`]).
//! 2. For `Deliver`: when `fresh`, start a new `Session` (and application state) in the
//!    slot; hand it the body with [`Session::handle_message`]; run the application on
//!    its events as usual; then [`Endpoint::collect`] takes the session's output and
//!    puts each message on exactly one stream. Call `collect` for a slot after *any*
//!    activity on its session (timers, answers that come later).
//! 3. Serve the stream: [`Endpoint::poll_response`] gives the head once it is decided,
//!    then body bytes ([`Endpoint::advance`] after writing them), [`Poll::Wait`] while
//!    nothing is pending and [`Poll::End`] when the response is complete. A `Deliver`
//!    without a stream (notifications, responses) is answered `202` ([`Head::accepted`]).
//!    When the connection goes away first, call [`Endpoint::detach`].
//! 4. [`Endpoint::poll_timeout`] / [`Endpoint::handle_timeout`]: idle session expiry and
//!    SSE keep-alive comments.
//!
//! Nothing allocates, nothing reads a clock; every table and buffer is the caller's.

mod checks;
mod config;
mod sessions;
mod streams;

pub use checks::{
    LOOPBACK_HOSTS, accepts, decode_header, header_matches, host_allowed, is_json, origin_allowed,
    origins_allowed, trim_ows,
};
pub use config::{EndpointConfig, EndpointError, EndpointStorage, ParamHeader, ResponseMode};
pub use sessions::{
    AdoptError, ENTROPY_LEN, SESSION_ID_LEN, SessionRecord, SessionStore, SlotEntry, StoreFull,
};
pub use streams::{MAX_IDS, StreamSlot};

use sessions::SlotState;
use streams::{Kind, Mode};

use super::auth::{AUTH_TEXT, Principal};
use super::{BodyLength, Header, Method as HttpMethod, Request, ResponseHead};
use crate::Limits;
use crate::error::ErrorCode;
use crate::json::{Json, JsonWriter};
use crate::jsonrpc::{self, Id, Message};
use crate::protocol::{Method, ProtocolVersion};
use crate::session::{Session, Slice};

/// Names one stream; stale once the stream has ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreamHandle {
    index: u32,
    number: u32,
}

impl StreamHandle {
    /// The handle as one number, for hosts that keep it outside Rust (the C ABI).
    pub fn to_bits(self) -> u64 {
        (u64::from(self.number) << 32) | u64::from(self.index)
    }

    /// A handle from [`to_bits`](Self::to_bits). Any value is safe to pass to the
    /// endpoint: one that names no open stream is stale ([`Poll::End`]).
    pub fn from_bits(bits: u64) -> Self {
        StreamHandle {
            index: bits as u32,
            number: (bits >> 32) as u32,
        }
    }
}

/// A response head with its headers held inline.
#[derive(Clone, Copy, Debug)]
pub struct Head<'a> {
    /// The status.
    pub status: u16,
    /// How the body is delimited.
    pub body: BodyLength,
    headers: [Header<'a>; 3],
    n: usize,
}

impl<'a> Head<'a> {
    fn new(status: u16, body: BodyLength) -> Self {
        let empty = Header {
            name: "",
            value: b"",
        };
        Head {
            status,
            body,
            headers: [empty; 3],
            n: 0,
        }
    }

    fn with(mut self, name: &'a str, value: &'a [u8]) -> Self {
        if self.n < self.headers.len() {
            self.headers[self.n] = Header { name, value };
            self.n += 1;
        }
        self
    }

    /// `202 Accepted` with no body: the answer to a POST of notifications or responses.
    pub fn accepted() -> Head<'static> {
        Head::new(202, BodyLength::None)
    }

    /// The headers.
    pub fn headers(&self) -> &[Header<'a>] {
        &self.headers[..self.n]
    }

    /// As the codec takes it.
    pub fn response(&self) -> ResponseHead<'_> {
        ResponseHead {
            status: self.status,
            headers: self.headers(),
            body: self.body,
        }
    }
}

/// What to do with one request.
#[derive(Debug)]
pub enum Outcome<'a> {
    /// Answer now: this head and body (empty or a JSON-RPC error); nothing else to do.
    Respond {
        /// The head.
        head: Head<'a>,
        /// The body.
        body: &'a [u8],
    },
    /// Hand the body to the session in `slot` (a new one first when `fresh`), run the
    /// application, [`Endpoint::collect`], then serve `stream`, or answer
    /// [`Head::accepted`] when there is none.
    Deliver {
        /// The slot of the host's session pool.
        slot: usize,
        /// Start a new `Session` (and application state) in the slot first.
        fresh: bool,
        /// The stream that carries the answer (`None`: answer 202 after delivering).
        stream: Option<StreamHandle>,
    },
    /// A GET stream (new or resumed): serve it with [`Endpoint::poll_response`].
    Stream(StreamHandle),
}

/// The next thing to write for a stream.
#[derive(Debug)]
pub enum Poll<'a> {
    /// Write this response head (once, first).
    Head(Head<'a>),
    /// Write these body bytes, then call [`Endpoint::advance`] with how many were written.
    Body(&'a [u8]),
    /// Nothing now: wait for more output (`collect`) or a timeout.
    Wait,
    /// The response is complete (SSE streams: end the chunked body); the handle is stale.
    End,
}

/// Counters: what the endpoint refused, expired or could not deliver.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EndpointStats {
    /// Requests answered with a 4xx or 5xx status by the endpoint itself.
    pub refused: u64,
    /// Legacy sessions started.
    pub sessions_opened: u64,
    /// Legacy sessions ended by idle expiry.
    pub sessions_expired: u64,
    /// Legacy sessions evicted (least recently used) to make room for a new one.
    pub sessions_evicted: u64,
    /// Legacy sessions ended with DELETE.
    pub sessions_deleted: u64,
    /// Server messages that had no stream to go to (dropped).
    pub unroutable: u64,
    /// Server messages dropped because their stream's buffer was full (the stream ends).
    pub overflowed: u64,
    /// `Last-Event-ID` values that named no stream of the session (nothing replayed).
    pub resume_misses: u64,
    /// Requests refused by authorization (400, 401, 403 with a challenge); also counted
    /// in `refused`.
    pub unauthorized: u64,
}

/// A refusal before anything reached a session.
struct Refusal<'r> {
    status: u16,
    id: Option<Id<'r>>,
    code: ErrorCode,
    message: &'static str,
}

fn refuse(status: u16, message: &'static str) -> Refusal<'static> {
    Refusal {
        status,
        id: None,
        code: ErrorCode(-32000),
        message,
    }
}

/// Size of the buffer for the endpoint's own error bodies (ids are at most 128 bytes).
const SCRATCH: usize = 400;

/// The server side of Streamable HTTP over caller memory; see the module docs.
pub struct Endpoint<'e> {
    config: EndpointConfig<'e>,
    slots: Slice<'e, SlotEntry>,
    streams: Slice<'e, StreamSlot>,
    bytes: Slice<'e, u8>,
    per_stream: usize,
    scratch: [u8; SCRATCH],
    next_number: u32,
    /// The stream whose POST was delivered last and not yet collected.
    current: Option<usize>,
    stats: EndpointStats,
    /// Authorization: the metadata document or a challenge, and the principal of the
    /// request taken last (`authorized`: it was verified).
    auth_text: [u8; AUTH_TEXT],
    principal: Principal,
    authorized: bool,
}

mod authorize;
mod post;
mod serve;

impl<'e> Endpoint<'e> {
    /// An endpoint over `storage`.
    ///
    /// # Errors
    /// [`EndpointError`] when a table is empty or a stream's bytes are too few.
    pub fn new(
        config: EndpointConfig<'e>,
        storage: EndpointStorage<'e>,
    ) -> Result<Self, EndpointError> {
        if storage.slots.is_empty() || storage.streams.is_empty() {
            return Err(EndpointError::Empty);
        }
        if !config.path.starts_with('/') {
            return Err(EndpointError::BadPath);
        }
        let per_stream = storage.bytes.len() / storage.streams.len();
        let required = config.max_body.saturating_add(128);
        if per_stream < required {
            return Err(EndpointError::StreamTooSmall { required });
        }
        if let Some(auth) = &config.auth {
            authorize::check_config(auth)?;
        }
        Ok(Endpoint {
            config,
            slots: storage.slots,
            streams: storage.streams,
            bytes: storage.bytes,
            per_stream,
            scratch: [0; SCRATCH],
            next_number: 1,
            current: None,
            stats: EndpointStats::default(),
            auth_text: [0; AUTH_TEXT],
            principal: Principal::EMPTY,
            authorized: false,
        })
    }

    // ---- getters ----

    /// The configuration.
    pub fn config(&self) -> &EndpointConfig<'e> {
        &self.config
    }

    /// Counters.
    pub fn stats(&self) -> EndpointStats {
        self.stats
    }

    // ---- commands ----

    /// Replaces [`EndpointConfig::tools`]: for a host whose tools change while it serves
    /// (a binding that registers a tool after its HTTP handler was made), so that the
    /// `Mcp-Param-*` checks of later requests follow the tools served then.
    pub fn set_tools(&mut self, tools: Option<&'e dyn crate::http::params::ToolSchemas>) {
        self.config.tools = tools;
    }

    /// True when `slot` holds a live session or is lent to a request (a host ticks only
    /// those).
    pub fn slot_in_use(&self, slot: usize) -> bool {
        self.slots
            .get(slot)
            .is_some_and(|e| e.state != SlotState::Free)
    }

    /// The number of slots (the size of the host's session pool).
    pub fn slot_count(&self) -> usize {
        self.slots.len()
    }

    /// Legacy sessions open now.
    pub fn sessions(&self) -> usize {
        self.slots
            .iter()
            .filter(|e| e.state == SlotState::Legacy)
            .count()
    }

    /// Streams open now.
    pub fn open_streams(&self) -> usize {
        self.streams.iter().filter(|s| s.live).count()
    }

    // ---- inputs ----

    /// Takes one HTTP request; see [`Outcome`]. `entropy` is fresh random bytes, used
    /// only when the request starts a legacy session (its `Mcp-Session-Id`).
    ///
    /// With [`EndpointConfig::auth`] set, use [`handle_request_as`](Self::handle_request_as):
    /// here no token can be verified, so every request to the endpoint is answered 401.
    pub fn handle_request<'r>(
        &mut self,
        now: u64,
        req: &Request<'r>,
        entropy: &[u8; ENTROPY_LEN],
    ) -> Outcome<'_> {
        self.handle_request_as(now, req, entropy, None)
    }

    /// The routing of one request once authorization (if any) let it through.
    fn route_checked<'r>(
        &mut self,
        now: u64,
        req: &Request<'r>,
        entropy: &[u8; ENTROPY_LEN],
    ) -> Outcome<'_> {
        let result = self.route_request(now, req, entropy);
        match result {
            Ok(outcome) => outcome,
            Err(r) => self.refusal(r),
        }
    }

    fn route_request<'r>(
        &mut self,
        now: u64,
        req: &Request<'r>,
        entropy: &[u8; ENTROPY_LEN],
    ) -> Result<Outcome<'static>, Refusal<'r>> {
        if req.path() != self.config.path {
            return Err(refuse(404, "Not Found"));
        }
        self.check_host(req)?;
        match req.method {
            HttpMethod::Post => self.post(now, req, entropy),
            HttpMethod::Get => self.get(now, req),
            HttpMethod::Delete => {
                let slot = self.session_of(now, req)?;
                self.end_session(slot);
                self.stats.sessions_deleted += 1;
                Ok(Outcome::Respond {
                    head: Head::new(200, BodyLength::None),
                    body: &[],
                })
            }
            _ => Err(refuse(405, "Method Not Allowed")),
        }
    }

    /// `Host` and `Origin` against the allowlist (DNS rebinding): 400 without `Host`, 403
    /// for a host or origin not allowed. Checked first, before any token (an invalid
    /// `Origin` MUST get 403, DIGEST §12.2).
    fn check_host<'r>(&self, req: &Request<'r>) -> Result<(), Refusal<'r>> {
        if !self.config.check_hosts {
            return Ok(());
        }
        let extra = self.config.allowed_hosts;
        match req.single_header("host") {
            Ok(None) => return Err(refuse(400, "Bad Request: no Host header")),
            Err(_) => return Err(refuse(400, "Bad Request: repeated Host header")),
            Ok(Some(h)) if !host_allowed(h, extra) => {
                return Err(refuse(403, "Forbidden: Host not allowed"));
            }
            Ok(Some(_)) => {}
        }
        // Every `Origin` line, not the first only: one allowed origin must not carry
        // another that is not (a browser sends one; anything else is forged).
        if !checks::origins_allowed(req, extra) {
            return Err(refuse(403, "Forbidden: Origin not allowed"));
        }
        Ok(())
    }

    /// Writes a refusal's head and JSON-RPC error body.
    fn refusal(&mut self, r: Refusal<'_>) -> Outcome<'_> {
        self.stats.refused += 1;
        let mut w = JsonWriter::new(&mut self.scratch);
        jsonrpc::encode_error(&mut w, r.id, r.code, r.message, None);
        let n = match w.finish() {
            Ok(n) => n,
            Err(_) => {
                let mut w = JsonWriter::new(&mut self.scratch);
                jsonrpc::encode_error(&mut w, None, r.code, r.message, None);
                w.finish().unwrap_or(0)
            }
        };
        let mut head =
            Head::new(r.status, BodyLength::Fixed(n)).with("Content-Type", b"application/json");
        if r.status == 405 {
            head = head.with("Allow", self.allow());
        }
        Outcome::Respond {
            head,
            body: &self.scratch[..n],
        }
    }

    fn allow(&self) -> &'static [u8] {
        if self.config.get_stream {
            b"GET, POST, DELETE"
        } else {
            b"POST, DELETE"
        }
    }

    /// The legacy session a request names: 400 without `Mcp-Session-Id`, 404 for an
    /// unknown or expired one, and under authorization for one another principal started
    /// (as unknown: no probing of others' ids). Touches its idle clock.
    fn session_of<'r>(&mut self, now: u64, req: &Request<'r>) -> Result<usize, Refusal<'r>> {
        let id = match req.single_header("mcp-session-id") {
            Ok(Some(id)) => id,
            Ok(None) => {
                return Err(refuse(
                    400,
                    "Bad Request: Mcp-Session-Id header is required",
                ));
            }
            Err(_) => return Err(refuse(400, "Bad Request: repeated Mcp-Session-Id header")),
        };
        let idle = self.config.session_idle_ms;
        let found = self
            .slots
            .iter()
            .position(|e| e.state == SlotState::Legacy && sessions::same_id(id, &e.id));
        let found = found.filter(|&slot| self.owns(slot));
        match found {
            Some(slot)
                if now.saturating_sub(self.slots[slot].last) < idle || self.has_attached(slot) =>
            {
                self.slots[slot].last = now;
                self.slots[slot].used = true;
                Ok(slot)
            }
            Some(slot) => {
                self.end_session(slot);
                self.stats.sessions_expired += 1;
                Err(refuse(404, "Not Found: session expired"))
            }
            None => Err(refuse(404, "Not Found: unknown session")),
        }
    }

    /// `MCP-Protocol-Version` on a legacy request: absent means 2025-03-26 (DIGEST
    /// §12.5); present, it must be a legacy revision this endpoint serves.
    fn check_version<'r>(&self, req: &Request<'r>) -> Result<(), Refusal<'r>> {
        let v = match req.single_header("mcp-protocol-version") {
            Ok(Some(v)) => v,
            Ok(None) => return Ok(()),
            Err(_) => {
                return Err(refuse(
                    400,
                    "Bad Request: repeated MCP-Protocol-Version header",
                ));
            }
        };
        let known = core::str::from_utf8(v)
            .ok()
            .and_then(|v| ProtocolVersion::parse(v.trim()))
            .is_some_and(|v| v.is_legacy() && self.config.versions.contains(v));
        if known {
            Ok(())
        } else {
            Err(refuse(400, "Bad Request: unsupported MCP-Protocol-Version"))
        }
    }

    /// Whether the request taken now may use the session in `slot`: without
    /// authorization any may; with it, only the verified principal that started it (a
    /// session without a recorded owner is no one's).
    fn owns(&self, slot: usize) -> bool {
        if self.config.auth.is_none() {
            return true;
        }
        self.authorized
            && self.slots[slot]
                .owner
                .is_some_and(|o| o == self.principal.owner_key())
    }

    fn has_attached(&self, slot: usize) -> bool {
        self.streams
            .iter()
            .any(|s| s.live && s.attached && s.slot as usize == slot)
    }

    /// Ends a legacy session: frees its slot and ends its streams.
    fn end_session(&mut self, slot: usize) {
        self.slots[slot].state = SlotState::Free;
        for i in 0..self.streams.len() {
            let s = &mut self.streams[i];
            if s.live && s.slot as usize == slot {
                if s.attached {
                    s.closed = true;
                } else {
                    self.free_stream(i);
                }
            }
        }
    }

    /// A slot for a new session or stateless request: a free one, else an expired one,
    /// else (evicted) the least recently used legacy session without a connected stream
    /// that was never used after `initialize` (not even `notifications/initialized`),
    /// else the least recently used one.
    /// So a flood of sessions opened and abandoned evicts its own kind first.
    fn allocate_slot(&mut self, now: u64) -> Option<usize> {
        if let Some(i) = self.slots.iter().position(|e| e.state == SlotState::Free) {
            return Some(i);
        }
        self.expire(now);
        if let Some(i) = self.slots.iter().position(|e| e.state == SlotState::Free) {
            return Some(i);
        }
        let victim = (0..self.slots.len())
            .filter(|&i| {
                matches!(
                    self.slots[i].state,
                    SlotState::Legacy | SlotState::Initializing
                ) && !self.has_attached(i)
            })
            .min_by_key(|&i| (self.slots[i].used, self.slots[i].last))?;
        self.end_session(victim);
        self.stats.sessions_evicted += 1;
        Some(victim)
    }

    /// Ends every legacy session idle for `session_idle_ms` with no connected stream.
    fn expire(&mut self, now: u64) {
        let idle = self.config.session_idle_ms;
        for i in 0..self.slots.len() {
            let e = self.slots[i];
            if matches!(e.state, SlotState::Legacy | SlotState::Initializing)
                && now.saturating_sub(e.last) >= idle
                && !self.has_attached(i)
            {
                self.end_session(i);
                self.stats.sessions_expired += 1;
            }
        }
    }

    /// Opens a stream for `slot`: a free entry, else the oldest stream nobody is reading.
    fn open_stream<'r>(&mut self, now: u64, slot: usize, kind: Kind) -> Result<usize, Refusal<'r>> {
        let free = self.streams.iter().position(|s| !s.live).or_else(|| {
            let oldest = (0..self.streams.len())
                .filter(|&i| !self.streams[i].attached)
                .min_by_key(|&i| self.streams[i].opened)?;
            self.free_stream(oldest);
            Some(oldest)
        });
        let Some(i) = free else {
            return Err(refuse(503, "Service Unavailable: too many open streams"));
        };
        let number = self.next_number;
        self.next_number = self.next_number.wrapping_add(1).max(1);
        self.streams[i] = StreamSlot {
            live: true,
            number,
            slot: slot as u32,
            kind,
            opened: now,
            last_io: now,
            ..StreamSlot::EMPTY
        };
        if self.config.response_mode == ResponseMode::Sse
            && self.slots[slot].state == SlotState::Legacy
        {
            // Decided now: the head (and priming event) can go before any message.
            self.streams[i].mode = Mode::Sse;
            self.prime(i);
        }
        Ok(i)
    }

    fn free_stream(&mut self, i: usize) {
        let s = self.streams[i];
        if !s.live {
            return;
        }
        self.streams[i].live = false;
        if self.current == Some(i) {
            self.current = None;
        }
        let slot = s.slot as usize;
        let e = &mut self.slots[slot];
        if (s.modern && e.state == SlotState::Stateless)
            || (s.initialize && e.state == SlotState::Initializing)
        {
            e.state = SlotState::Free;
        }
    }

    fn handle(&self, i: usize) -> StreamHandle {
        StreamHandle {
            index: i as u32,
            number: self.streams[i].number,
        }
    }

    fn stream_of(&self, h: StreamHandle) -> Option<usize> {
        let i = h.index as usize;
        let s = self.streams.get(i)?;
        (s.live && s.number == h.number).then_some(i)
    }

    /// Takes the output of the session in `slot` and puts each message on its stream:
    /// a response on the stream of the POST that carried its request; a progress
    /// notification on the stream of the request that gave the token; anything else
    /// produced while a POST was being delivered on that POST's stream; other messages
    /// on the session's GET stream (kept there, bounded, until a client reads it), else
    /// on the session's newest open POST stream. A message with nowhere to go is
    /// dropped and counted ([`EndpointStats::unroutable`]). Call after every activity of
    /// the session.
    pub fn collect(&mut self, now: u64, slot: usize, session: &mut Session<'_>) {
        loop {
            let pending = session.pending_transmit();
            // The host build's SIMD search (memchr); a byte loop on bare metal.
            #[cfg(not(target_os = "none"))]
            let found = memchr::memchr(b'\n', pending);
            #[cfg(target_os = "none")]
            let found = pending.iter().position(|&b| b == b'\n');
            let Some(nl) = found else {
                break;
            };
            self.route(now, slot, &pending[..nl], session.version());
            session.advance_transmit(nl + 1);
        }
        if self
            .current
            .is_some_and(|c| self.streams[c].slot as usize == slot)
        {
            self.current = None;
        }
        if let Some(e) = self.slots.get_mut(slot)
            && e.state == SlotState::Legacy
        {
            e.version = session.version().or(e.version);
        }
    }

    /// The earliest time [`handle_timeout`](Self::handle_timeout) has work: a session's
    /// idle expiry or a stream's keep-alive.
    pub fn poll_timeout(&self) -> Option<u64> {
        let idle = self.config.session_idle_ms;
        let sessions = self
            .slots
            .iter()
            .filter(|e| matches!(e.state, SlotState::Legacy | SlotState::Initializing))
            .map(|e| e.last.saturating_add(idle))
            .min();
        let keep = self
            .streams
            .iter()
            .filter(|s| {
                s.live && s.attached && s.head_sent && s.mode == Mode::Sse && s.comment.is_none()
            })
            .map(|s| s.last_io.saturating_add(self.config.keepalive_ms))
            .min();
        match (sessions, keep) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Time has passed: expires idle sessions, makes keep-alive comments due.
    pub fn handle_timeout(&mut self, now: u64) {
        self.expire(now);
        let every = self.config.keepalive_ms;
        for s in self.streams.iter_mut() {
            if s.live
                && s.attached
                && s.head_sent
                && s.mode == Mode::Sse
                && s.comment.is_none()
                && now.saturating_sub(s.last_io) >= every
            {
                s.comment = Some(0);
                s.last_io = now;
            }
        }
    }
}

/// A JSON value's raw text, for hashing ids and tokens.
fn raw_of(j: Json<'_>) -> &str {
    j.as_raw()
}

/// The HTTP status of a 2026-07-28 JSON response (MODERN §13.2): 404 for an unknown
/// method, 400 for parse, shape and header errors, 200 otherwise.
fn modern_status(line: &[u8], limits: &Limits) -> u16 {
    let Ok(text) = core::str::from_utf8(line) else {
        return 200;
    };
    match jsonrpc::parse(text, limits) {
        Ok(Message::Error(e)) => match e.error.code {
            -32601 => 404,
            -32700 | -32600 | -32602 | -32020 | -32021 | -32022 => 400,
            _ => 200,
        },
        _ => 200,
    }
}

fn is_method(m: crate::json::JsonStr<'_>, want: Method) -> bool {
    Method::from_json_str(m) == Some(want)
}
