//! `NativeEndpoint`: the core's Streamable HTTP endpoint (`picomcp::http::endpoint`),
//! owning its storage, for a JavaScript HTTP server.
//!
//! A thin wrapper like the rest: every HTTP and MCP rule (routing, header checks,
//! sessions and their ids, which stream a message goes on, SSE framing, replay,
//! keep-alive) is the core's. JavaScript reads the request and writes what this says;
//! `lib/server.js` (`Server.httpHandler`) is that adapter for `node:http`.

use std::collections::HashMap;

use napi::bindgen_prelude::Buffer;
use napi_derive::napi;
use picomcp::Limits;
use picomcp::http::auth::{self, AuthConfig, AuthInput, Claims, Rejected};
use picomcp::http::endpoint::{
    ENTROPY_LEN, Endpoint, EndpointConfig, EndpointStorage, Head, Outcome, Poll, ResponseMode,
    StreamHandle,
};
use picomcp::http::params::ToolSchemas;
use picomcp::http::{BodyLength, Header, Method, Request};
use picomcp::json::{Json, JsonStr};
use picomcp::protocol::{ProtocolVersion, Versions};

use crate::server::NativeServer;
use crate::session::{NativeSession, err};

/// How an endpoint is set up (every member optional; the core's defaults otherwise).
#[napi(object)]
#[derive(Default)]
pub struct EndpointOptions {
    /// The MCP path (default `/mcp`).
    pub path: Option<String>,
    /// Check `Host`/`Origin` against loopback names and `allowedHosts` (default true).
    pub check_hosts: Option<bool>,
    /// Host names accepted besides the loopback ones.
    pub allowed_hosts: Option<Vec<String>>,
    /// The largest body taken (default 1 MiB); also the parse limit of bodies.
    pub max_body: Option<f64>,
    pub session_idle_ms: Option<f64>,
    pub keepalive_ms: Option<f64>,
    pub retry_ms: Option<f64>,
    /// `"auto"` (default), `"json"` or `"sse"`.
    pub response_mode: Option<String>,
    /// Offer the GET stream of legacy sessions (default true).
    pub get_stream: Option<bool>,
    /// The revisions served (default all).
    pub versions: Option<Vec<String>>,
    /// Session slots (default 32).
    pub slots: Option<f64>,
    /// Response streams open at once (default 64).
    pub streams: Option<f64>,
    /// Bytes of each stream (default `maxBody` + 4096).
    pub stream_bytes: Option<f64>,
    /// OAuth 2.1 protected resource (docs/DESIGN.md, "Authorization").
    pub auth: Option<AuthOptions>,
}

/// `auth` of `EndpointOptions`: the canonical resource URI (the tokens' audience), the
/// authorization servers, every scope name, the advertised ones, the scopes every
/// request needs (space-delimited), the expiry leeway, whether `exp` is required.
#[napi(object)]
#[derive(Default)]
pub struct AuthOptions {
    pub resource: String,
    pub authorization_servers: Vec<String>,
    pub scopes: Option<Vec<String>>,
    pub scopes_supported: Option<Vec<String>>,
    pub required: Option<String>,
    pub leeway_s: Option<f64>,
    pub require_expiry: Option<bool>,
    pub resource_name: Option<String>,
}

/// The verified caller of a `deliver` or `stream` under `auth` (never the token).
#[napi(object)]
pub struct PrincipalJs {
    pub subject: String,
    pub client_id: String,
    pub scopes: Vec<String>,
    pub expires_at: Option<f64>,
}

/// A borrow as `'static`.
///
/// # Safety
/// `r` must point into a heap allocation that outlives every use of the result.
unsafe fn forever<T: ?Sized>(r: &T) -> &'static T {
    // SAFETY: the caller's promise above.
    unsafe { &*(r as *const T) }
}

fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

fn leak_list(v: Option<Vec<String>>) -> &'static [&'static str] {
    Box::leak(
        v.unwrap_or_default()
            .into_iter()
            .map(leak)
            .collect::<Vec<_>>()
            .into_boxed_slice(),
    )
}

fn auth_config(a: AuthOptions) -> napi::Result<AuthConfig<'static>> {
    let mut c = AuthConfig::new(leak(a.resource), leak_list(Some(a.authorization_servers)));
    c.scopes = leak_list(a.scopes);
    c.scopes_supported = leak_list(a.scopes_supported);
    if let Some(r) = a.required {
        c.required = leak(r);
    }
    if let Some(l) = a.leeway_s {
        c.leeway_s = number(Some(l), "auth.leewayS", 60)?;
    }
    if let Some(r) = a.require_expiry {
        c.require_expiry = r;
    }
    c.resource_name = a.resource_name.map(leak);
    c.check()
        .map_err(|e| err("ConfigError", format!("auth: {e:?}")))?;
    Ok(c)
}

/// What to do with one request (`kind`: `"respond"`, `"deliver"` or `"stream"`).
#[napi(object)]
pub struct EndpointOutcome {
    pub kind: String,
    pub principal: Option<PrincipalJs>,
    /// respond: the status.
    pub status: Option<u32>,
    /// respond: header names and values, alternating.
    pub headers: Option<Vec<String>>,
    /// respond: the body.
    pub body: Option<Buffer>,
    /// deliver: the session slot.
    pub slot: Option<u32>,
    /// deliver: start a new session in the slot first.
    pub fresh: Option<bool>,
    /// deliver, stream: the stream to serve (deliver without one: answer 202).
    pub stream: Option<u32>,
}

/// The next thing to write for a stream (`kind`: `"head"`, `"body"`, `"wait"`, `"end"`).
#[napi(object)]
pub struct EndpointPoll {
    pub kind: String,
    /// head: the status.
    pub status: Option<u32>,
    /// head: header names and values, alternating (no framing headers).
    pub headers: Option<Vec<String>>,
    /// head: the body's length when fixed (`Content-Length`); null for a stream or none.
    pub content_length: Option<f64>,
    /// head: true when the body is a stream (SSE), sent as it comes.
    pub streaming: Option<bool>,
    /// body: bytes to write, then `advance(stream, data.length)`.
    pub data: Option<Buffer>,
}

/// The endpoint's counters.
#[napi(object)]
pub struct EndpointStatsJs {
    pub refused: f64,
    pub sessions_opened: f64,
    pub sessions_expired: f64,
    pub sessions_evicted: f64,
    pub sessions_deleted: f64,
    pub unroutable: f64,
    pub overflowed: f64,
    pub resume_misses: f64,
}

/// The Streamable HTTP endpoint over storage it owns; streams are named by numbers.
#[napi]
pub struct NativeEndpoint {
    // `core` borrows `tools` (as `'static`): fields drop in declaration order.
    core: Endpoint<'static>,
    handles: HashMap<u32, StreamHandle>,
    next: u32,
    tools: Option<Box<AnnotatedTools>>,
}

/// The input schemas of the served tools that have `x-mcp-header` annotations (the
/// others need no `Mcp-Param-*` check), copied from a `NativeServer` by `setTools`.
#[derive(Debug)]
struct AnnotatedTools(Vec<(Box<str>, Box<str>)>);

impl ToolSchemas for AnnotatedTools {
    fn input_schema(&self, tool: JsonStr<'_>) -> Option<&str> {
        self.0
            .iter()
            .find(|(name, _)| tool.eq_str(name))
            .map(|(_, schema)| &**schema)
    }
}

fn number(v: Option<f64>, what: &str, default: u64) -> napi::Result<u64> {
    match v {
        None => Ok(default),
        Some(v) if v.fract() == 0.0 && (0.0..=9_007_199_254_740_991.0).contains(&v) => Ok(v as u64),
        Some(_) => Err(err(
            "ConfigError",
            format!("{what} must be a whole number of at least 0"),
        )),
    }
}

fn ms(v: f64) -> napi::Result<u64> {
    number(Some(v), "nowMs", 0).map_err(|_| {
        err(
            "TypeError",
            "nowMs must be a non-negative number of milliseconds",
        )
    })
}

/// Text as the bytes it stands for: header values arrive from Node as latin1 strings
/// (one char per byte); anything beyond U+00FF is kept as UTF-8.
fn bytes_of(s: &str) -> Vec<u8> {
    if s.chars().all(|c| (c as u32) < 256) {
        s.chars().map(|c| c as u32 as u8).collect()
    } else {
        s.as_bytes().to_vec()
    }
}

/// Header bytes as a latin1 string for Node (one char per byte).
fn latin1(b: &[u8]) -> String {
    b.iter().map(|&c| c as char).collect()
}

fn head_headers(head: &Head<'_>) -> Vec<String> {
    head.headers()
        .iter()
        .flat_map(|h| [h.name.to_owned(), latin1(h.value)])
        .collect()
}

#[napi]
impl NativeEndpoint {
    #[napi(constructor)]
    pub fn new(o: Option<EndpointOptions>) -> napi::Result<Self> {
        let o = o.unwrap_or_default();
        let d = EndpointConfig::default();
        // The config borrows its strings for the endpoint's life: a few bytes per endpoint.
        let path: &'static str = match o.path {
            Some(p) => Box::leak(p.into_boxed_str()),
            None => d.path,
        };
        let allowed_hosts: &'static [&'static str] = match o.allowed_hosts {
            Some(list) => Box::leak(
                list.into_iter()
                    .map(|h| &*Box::leak(h.into_boxed_str()))
                    .collect::<Vec<&'static str>>()
                    .into_boxed_slice(),
            ),
            None => &[],
        };
        let max_body = number(o.max_body, "maxBody", d.max_body as u64)? as usize;
        let response_mode = match o.response_mode.as_deref() {
            None | Some("auto") => ResponseMode::Auto,
            Some("json") => ResponseMode::Json,
            Some("sse") => ResponseMode::Sse,
            Some(m) => {
                return Err(err(
                    "ConfigError",
                    format!("responseMode must be \"auto\", \"json\" or \"sse\", not {m:?}"),
                ));
            }
        };
        let versions = match &o.versions {
            None => d.versions,
            Some(list) => {
                let mut out = [ProtocolVersion::V2024_11_05; 5];
                let mut n = 0;
                for s in list {
                    let v = ProtocolVersion::parse(s).ok_or_else(|| {
                        err("ConfigError", format!("unknown protocol version {s:?}"))
                    })?;
                    if !out[..n].contains(&v) {
                        out[n] = v;
                        n += 1;
                    }
                }
                Versions::of(&out[..n])
            }
        };
        let config = EndpointConfig {
            path,
            check_hosts: o.check_hosts.unwrap_or(d.check_hosts),
            allowed_hosts,
            max_body,
            limits: Limits {
                max_line: max_body,
                ..Limits::DEFAULT
            },
            session_idle_ms: number(o.session_idle_ms, "sessionIdleMs", d.session_idle_ms)?,
            keepalive_ms: number(o.keepalive_ms, "keepaliveMs", d.keepalive_ms)?,
            retry_ms: number(o.retry_ms, "retryMs", d.retry_ms.into())?.min(u32::MAX.into()) as u32,
            response_mode,
            get_stream: o.get_stream.unwrap_or(d.get_stream),
            versions,
            param_headers: &[],
            tools: None,
            auth: o.auth.map(auth_config).transpose()?,
        };
        let slots = number(o.slots, "slots", 32)? as usize;
        let streams = number(o.streams, "streams", 64)? as usize;
        let per_stream = number(o.stream_bytes, "streamBytes", max_body as u64 + 4096)? as usize;
        let storage = EndpointStorage::owned(slots, streams, per_stream);
        let core = Endpoint::new(config, storage)
            .map_err(|e| err("ConfigError", format!("endpoint: {e:?}")))?;
        Ok(NativeEndpoint {
            core,
            handles: HashMap::new(),
            next: 1,
            tools: None,
        })
    }

    /// The tools served (those of `server`): the `x-mcp-header` annotations of their
    /// input schemas are checked as `Mcp-Param-*` headers of 2026-07-28 `tools/call`s
    /// (the core's rule, MODERN §13.2). Called again whenever the tools change.
    #[napi]
    pub fn set_tools(&mut self, server: &NativeServer) {
        let annotated: Vec<(Box<str>, Box<str>)> = server
            .tools()
            .iter()
            .filter(|t| t.input_schema.contains("x-mcp-header"))
            .map(|t| (t.name.into(), t.input_schema.into()))
            .collect();
        let tools = (!annotated.is_empty()).then(|| Box::new(AnnotatedTools(annotated)));
        // SAFETY: the box moves into `self.tools` below and is neither changed nor dropped
        // before `core` stops borrowing it: the next `set_tools` points `core` elsewhere
        // first, and `core` is dropped before `tools` (field order).
        let borrowed = tools
            .as_deref()
            .map(|t| unsafe { forever(t) } as &dyn ToolSchemas);
        self.core.set_tools(borrowed);
        self.tools = tools;
    }

    /// Bytes of entropy `handleRequest` takes.
    #[napi(getter)]
    pub fn entropy_len(&self) -> u32 {
        ENTROPY_LEN as u32
    }

    /// The number of session slots.
    #[napi(getter)]
    pub fn slot_count(&self) -> u32 {
        self.core.slot_count() as u32
    }

    /// True when `slot` holds a live session or serves a request.
    #[napi]
    pub fn slot_in_use(&self, slot: u32) -> bool {
        self.core.slot_in_use(slot as usize)
    }

    /// Legacy sessions open now.
    #[napi(getter)]
    pub fn sessions(&self) -> u32 {
        self.core.sessions() as u32
    }

    /// Streams open now.
    #[napi(getter)]
    pub fn open_streams(&self) -> u32 {
        self.core.open_streams() as u32
    }

    /// Counters.
    #[napi]
    pub fn stats(&self) -> EndpointStatsJs {
        let s = self.core.stats();
        EndpointStatsJs {
            refused: s.refused as f64,
            sessions_opened: s.sessions_opened as f64,
            sessions_expired: s.sessions_expired as f64,
            sessions_evicted: s.sessions_evicted as f64,
            sessions_deleted: s.sessions_deleted as f64,
            unroutable: s.unroutable as f64,
            overflowed: s.overflowed as f64,
            resume_misses: s.resume_misses as f64,
        }
    }

    fn name(&mut self, h: StreamHandle) -> u32 {
        let id = self.next;
        self.next = self.next.wrapping_add(1).max(1);
        self.handles.insert(id, h);
        id
    }

    /// The Bearer token the endpoint would take from this request (the `Authorization`
    /// header only), for a host whose verifier is asynchronous: verify it, then pass its
    /// claims to `handleRequest`. `null` when there is none (or it is malformed: the
    /// endpoint then answers the request itself).
    #[napi]
    pub fn bearer_token(
        &self,
        method: String,
        target: String,
        headers: Vec<String>,
    ) -> Option<String> {
        let values = header_values(&headers);
        let fields = header_fields(&headers, &values);
        let req = Request {
            method: Method::from_token(&method),
            target: &target,
            headers: &fields,
            body: &[],
        };
        auth::bearer_token(&req).ok().flatten().map(str::to_owned)
    }

    /// Takes one request: `headers` as Node's `rawHeaders` (names and values
    /// alternating), `entropy` `entropyLen` fresh random bytes. Under `auth`:
    /// `claimsJson` is what the host's verifier made of `bearerToken(...)` (the claims as
    /// JSON text; `null`: rejected), `unixS` now in Unix seconds (default the system
    /// clock), `layer` the server layer whose per-tool scopes apply before any session.
    #[napi]
    #[allow(clippy::too_many_arguments)]
    pub fn handle_request(
        &mut self,
        now_ms: f64,
        method: String,
        target: String,
        headers: Vec<String>,
        body: Buffer,
        entropy: Buffer,
        claims_json: Option<String>,
        unix_s: Option<f64>,
        layer: Option<&NativeServer>,
    ) -> napi::Result<EndpointOutcome> {
        let now = ms(now_ms)?;
        let entropy: &[u8; ENTROPY_LEN] = entropy.as_ref().try_into().map_err(|_| {
            err(
                "TypeError",
                format!("entropy must be {ENTROPY_LEN} random bytes"),
            )
        })?;
        let values = header_values(&headers);
        let fields = header_fields(&headers, &values);
        let req = Request {
            method: Method::from_token(&method),
            target: &target,
            headers: &fields,
            body: &body,
        };
        let mut verify = |_token: &str, claims: &mut Claims<'_>| -> Result<(), Rejected> {
            match claims_json.as_deref().map(Json::new) {
                Some(Ok(j)) if j.is_object() => {
                    claims.report_json(j);
                    Ok(())
                }
                _ => Err(Rejected("the verifier refused the token")),
            }
        };
        let unix_s = match unix_s {
            Some(u) => number(Some(u), "unixS", 0)?,
            None => std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
        };
        let policy = layer.map(|l| l.core() as &dyn auth::ScopePolicy);
        let input = AuthInput {
            unix_s,
            verifier: &mut verify,
            policy,
        };
        let mut out = match self.core.handle_request_as(now, &req, entropy, Some(input)) {
            Outcome::Respond { head, body } => EndpointOutcome {
                principal: None,
                kind: "respond".into(),
                status: Some(head.status.into()),
                headers: Some(head_headers(&head)),
                body: Some(body.to_vec().into()),
                slot: None,
                fresh: None,
                stream: None,
            },
            Outcome::Deliver {
                slot,
                fresh,
                stream,
            } => EndpointOutcome {
                principal: None,
                kind: "deliver".into(),
                status: None,
                headers: None,
                body: None,
                slot: Some(slot as u32),
                fresh: Some(fresh),
                stream: stream.map(|h| self.name(h)),
            },
            Outcome::Stream(h) => EndpointOutcome {
                principal: None,
                kind: "stream".into(),
                status: None,
                headers: None,
                body: None,
                slot: None,
                fresh: None,
                stream: Some(self.name(h)),
            },
        };
        if let (Some(p), Some(c)) = (self.core.principal(), self.core.config().auth) {
            out.principal = Some(PrincipalJs {
                subject: p.subject().to_owned(),
                client_id: p.client_id().to_owned(),
                scopes: c
                    .scopes
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| *i < 64 && p.granted() & (1u64 << i) != 0)
                    .map(|(_, s)| (*s).to_owned())
                    .collect(),
                expires_at: p.expires_at().map(|e| e as f64),
            });
        }
        Ok(out)
    }

    /// Takes the output of the session in `slot` and routes it to its streams. Call after
    /// any activity of that session.
    #[napi]
    pub fn collect(
        &mut self,
        now_ms: f64,
        slot: u32,
        session: &mut NativeSession,
    ) -> napi::Result<()> {
        self.core
            .collect(ms(now_ms)?, slot as usize, &mut session.core);
        Ok(())
    }

    /// The next thing to write for `stream`; `"end"` (or an unknown stream) ends it.
    #[napi]
    pub fn poll_response(&mut self, now_ms: f64, stream: u32) -> napi::Result<EndpointPoll> {
        let now = ms(now_ms)?;
        let none = |kind: &str| EndpointPoll {
            kind: kind.into(),
            status: None,
            headers: None,
            content_length: None,
            streaming: None,
            data: None,
        };
        let Some(&h) = self.handles.get(&stream) else {
            return Ok(none("end"));
        };
        Ok(match self.core.poll_response(now, h) {
            Poll::Head(head) => EndpointPoll {
                kind: "head".into(),
                status: Some(head.status.into()),
                headers: Some(head_headers(&head)),
                content_length: match head.body {
                    BodyLength::Fixed(n) => Some(n as f64),
                    _ => None,
                },
                streaming: Some(matches!(head.body, BodyLength::Stream)),
                data: None,
            },
            Poll::Body(b) => EndpointPoll {
                data: Some(b.to_vec().into()),
                ..none("body")
            },
            Poll::Wait => none("wait"),
            Poll::End => {
                self.handles.remove(&stream);
                none("end")
            }
        })
    }

    /// `n` bytes of the last body were written.
    #[napi]
    pub fn advance(&mut self, stream: u32, n: u32) {
        if let Some(&h) = self.handles.get(&stream) {
            self.core.advance(h, n as usize);
        }
    }

    /// The connection of `stream` went away before its end.
    #[napi]
    pub fn detach(&mut self, stream: u32) {
        if let Some(h) = self.handles.remove(&stream) {
            self.core.detach(h);
        }
    }

    /// When `handleTimeout` is next due, or null.
    #[napi]
    pub fn poll_timeout(&self) -> Option<f64> {
        self.core.poll_timeout().map(|t| t as f64)
    }

    /// Time passed: idle sessions expire, keep-alive comments fall due.
    #[napi]
    pub fn handle_timeout(&mut self, now_ms: f64) -> napi::Result<()> {
        self.core.handle_timeout(ms(now_ms)?);
        Ok(())
    }
}

/// The values of Node's `rawHeaders` (names and values alternating) as bytes.
fn header_values(raw: &[String]) -> Vec<Vec<u8>> {
    raw.iter().skip(1).step_by(2).map(|v| bytes_of(v)).collect()
}

/// The fields of `rawHeaders`, each name with its value from [`header_values`].
fn header_fields<'a>(raw: &'a [String], values: &'a [Vec<u8>]) -> Vec<Header<'a>> {
    raw.iter()
        .step_by(2)
        .zip(values.iter())
        .map(|(name, value)| Header { name, value })
        .collect()
}
