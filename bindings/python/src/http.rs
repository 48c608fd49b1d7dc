//! `Endpoint`: the core's Streamable HTTP endpoint (`picomcp::http::endpoint`), owning
//! its storage. Every HTTP and MCP rule is the core's; this copies requests in and heads
//! and body bytes out. Stream handles cross as numbers (`StreamHandle::to_bits`).

use picomcp::Limits;
use picomcp::http::auth::{AuthConfig, AuthInput, Claims, Principal, Rejected};
use picomcp::http::endpoint::{
    ENTROPY_LEN, Endpoint as Core, EndpointConfig, EndpointStorage, Head, Outcome as CoreOutcome,
    Poll, ResponseMode, StreamHandle,
};
use picomcp::http::params::ToolSchemas;
use picomcp::http::{BodyLength, Header, Method, Request};
use picomcp::json::JsonStr;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString};

use crate::errors::ConfigError;
use crate::server::ServerLayer;
use crate::session::{self, Session};

/// What to do with one request (`Endpoint.handle_request`).
///
/// `kind` is `"respond"` (answer now with `status`, `headers` and `body`; nothing else
/// to do), `"deliver"` (hand the body to the session in `slot` with
/// `Session.handle_message`, a new session first when `fresh`; run the application;
/// `Endpoint.collect`; then serve `stream`, or answer 202 with `headers` when `stream`
/// is `None`) or `"stream"` (serve `stream` with `Endpoint.poll_response`).
///
/// Under authorization, `principal` is the verified caller of a `"deliver"` or
/// `"stream"`: a `dict` with `subject`, `client_id`, `scopes` (the granted names) and
/// `expires_at` (Unix seconds); never the token. `None` otherwise.
#[pyclass(module = "picomcp", frozen, get_all)]
pub(crate) struct Outcome {
    principal: Option<Py<PyDict>>,
    kind: &'static str,
    status: u16,
    headers: Vec<(Py<PyBytes>, Py<PyBytes>)>,
    body: Py<PyBytes>,
    slot: Option<usize>,
    fresh: bool,
    stream: Option<u64>,
}

#[pymethods]
impl Outcome {
    fn __repr__(&self) -> String {
        format!(
            "<picomcp.Outcome {} status={} slot={:?} fresh={} stream={:?}>",
            self.kind, self.status, self.slot, self.fresh, self.stream
        )
    }
}

/// The server side of Streamable HTTP (both eras): a pool of `slots` session slots and
/// `streams` response streams, in memory it owns. It performs no I/O and reads no clock.
///
/// One request: `handle_request` -> an `Outcome`; for `"deliver"`, the host hands the
/// body to the slot's `Session` (`handle_message`), runs its application, then
/// `collect(slot, session)`; a stream is served with `poll_response` (a head, body bytes
/// to write then `advance`, `"wait"` until the next `collect` or timeout, `"end"`), and
/// `detach` when the connection goes first. Call `collect` after any activity of a
/// slot's session (answers that come later, timers), and `handle_timeout` when
/// `poll_timeout` is due (session expiry, SSE keep-alives).
#[pyclass(module = "picomcp")]
pub(crate) struct Endpoint {
    core: Core<'static>,
    /// What `EndpointConfig::tools` points at (`set_tools`).
    tools: &'static Tools,
}

/// One tool whose `inputSchema` carries an `x-mcp-header` annotation: its name and schema.
type Annotated = (Box<str>, Box<str>);

/// The served tools as the endpoint consults them (`EndpointConfig::tools`: the
/// `Mcp-Param-*` headers of their `x-mcp-header` annotations are checked). The endpoint
/// borrows it for the life of the process, so each table is kept for that long: one
/// per distinct set of annotated tools given to `set_tools` (only the annotated tools are
/// kept; a server whose tools never change keeps one).
#[derive(Debug, Default)]
struct Tools(std::sync::Mutex<&'static [Annotated]>);

impl Tools {
    fn table(&self) -> &'static [Annotated] {
        *self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl ToolSchemas for Tools {
    fn input_schema(&self, tool: JsonStr<'_>) -> Option<&str> {
        self.table()
            .iter()
            .find(|(name, _)| tool.eq_str(name))
            .map(|(_, schema)| &**schema)
    }
}

/// Names of the headers a head needs: the endpoint's own plus the body's length, as
/// ASGI takes them (lowercase names, byte values).
fn head_headers(py: Python<'_>, head: &Head<'_>) -> Vec<(Py<PyBytes>, Py<PyBytes>)> {
    let mut out: Vec<(Py<PyBytes>, Py<PyBytes>)> = head
        .headers()
        .iter()
        .map(|h| {
            (
                PyBytes::new(py, h.name.to_ascii_lowercase().as_bytes()).unbind(),
                PyBytes::new(py, h.value).unbind(),
            )
        })
        .collect();
    let length = match head.body {
        BodyLength::None => Some(0),
        BodyLength::Fixed(n) => Some(n),
        BodyLength::Stream => None,
    };
    if let Some(n) = length {
        out.push((
            PyBytes::new(py, b"content-length").unbind(),
            PyBytes::new(py, n.to_string().as_bytes()).unbind(),
        ));
    }
    out
}

/// A header name or value given as `bytes` or `str`.
fn bytes_of(v: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    if let Ok(b) = v.cast::<PyBytes>() {
        return Ok(b.as_bytes().to_vec());
    }
    if let Ok(s) = v.cast::<PyString>() {
        return Ok(s.to_cow()?.as_bytes().to_vec());
    }
    Err(PyValueError::new_err(
        "header names and values must be bytes or str",
    ))
}

fn mode(name: &str) -> PyResult<ResponseMode> {
    match name {
        "auto" => Ok(ResponseMode::Auto),
        "json" => Ok(ResponseMode::Json),
        "sse" => Ok(ResponseMode::Sse),
        _ => Err(ConfigError::new_err(format!(
            "response_mode must be \"auto\", \"json\" or \"sse\", not {name:?}"
        ))),
    }
}

/// The `auth` dict of `Endpoint(...)` as the core's configuration (strings kept for the
/// life of the process, as the endpoint borrows them).
fn auth_config(d: &Bound<'_, PyDict>) -> PyResult<AuthConfig<'static>> {
    fn leak(s: String) -> &'static str {
        Box::leak(s.into_boxed_str())
    }
    fn list(v: Option<Vec<String>>) -> &'static [&'static str] {
        Box::leak(
            v.unwrap_or_default()
                .into_iter()
                .map(leak)
                .collect::<Vec<_>>()
                .into_boxed_slice(),
        )
    }
    let get = |k: &str| d.get_item(k).map(|v| v.filter(|v| !v.is_none()));
    let resource: String = get("resource")?
        .ok_or_else(|| ConfigError::new_err("auth: `resource` is required"))?
        .extract()?;
    let servers: Option<Vec<String>> = get("authorization_servers")?
        .map(|v| v.extract())
        .transpose()?;
    let mut c = AuthConfig::new(leak(resource), list(servers));
    c.scopes = list(get("scopes")?.map(|v| v.extract()).transpose()?);
    c.scopes_supported = list(get("scopes_supported")?.map(|v| v.extract()).transpose()?);
    if let Some(r) = get("required")? {
        c.required = leak(r.extract()?);
    }
    if let Some(l) = get("leeway_s")? {
        c.leeway_s = l.extract()?;
    }
    if let Some(r) = get("require_expiry")? {
        c.require_expiry = r.extract()?;
    }
    if let Some(n) = get("resource_name")? {
        c.resource_name = Some(leak(n.extract()?));
    }
    c.check()
        .map_err(|e| ConfigError::new_err(format!("auth: {e:?}")))?;
    Ok(c)
}

/// Reports a verifier's claims `dict` to the core.
fn report(c: &Bound<'_, PyAny>, claims: &mut Claims<'_>) -> Result<(), Rejected> {
    let bad = |_| Rejected("the verifier's claims are not a dict of the expected types");
    let get = |k: &str| c.get_item(k).ok().filter(|v| !v.is_none());
    let text = |k: &str| {
        get(k)
            .map(|v| v.extract::<String>())
            .transpose()
            .map_err(bad)
    };
    if let Some(s) = text("sub")? {
        claims.subject(&s);
    }
    if let Some(s) = text("client_id")?.or(text("azp")?) {
        claims.client_id(&s);
    }
    let strings = |k: &str| -> Result<Vec<String>, Rejected> {
        match get(k) {
            None => Ok(Vec::new()),
            Some(v) => match v.extract::<String>() {
                Ok(s) => Ok(vec![s]),
                Err(_) => v.extract::<Vec<String>>().map_err(bad),
            },
        }
    };
    for a in strings("aud")? {
        claims.audience(&a);
    }
    let number = |k: &str| get(k).map(|v| v.extract::<f64>()).transpose().map_err(bad);
    if let Some(e) = number("exp")? {
        claims.expires_at(e.max(0.0) as u64);
    }
    if let Some(n) = number("nbf")? {
        claims.not_before(n.max(0.0) as u64);
    }
    for s in strings("scope")?.into_iter().chain(strings("scp")?) {
        claims.scope(&s);
    }
    Ok(())
}

/// A verified principal as `Outcome.principal`.
fn principal_dict<'py>(
    py: Python<'py>,
    p: &Principal,
    config: &AuthConfig<'_>,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("subject", p.subject())?;
    d.set_item("client_id", p.client_id())?;
    let scopes: Vec<&str> = config
        .scopes
        .iter()
        .enumerate()
        .filter(|(i, _)| *i < 64 && p.granted() & (1u64 << i) != 0)
        .map(|(_, s)| *s)
        .collect();
    d.set_item("scopes", scopes)?;
    d.set_item("expires_at", p.expires_at())?;
    Ok(d)
}

#[pymethods]
impl Endpoint {
    /// Creates an endpoint. `max_body` bounds a request body (413 beyond) and each
    /// stream's buffer (`max_body` + 4 KiB). `path` is the MCP path (other paths get 404).
    /// `check_hosts` refuses a `Host`/`Origin` other than the loopback names and
    /// `allowed_hosts` (403), against DNS rebinding. `versions` lists the revisions served.
    ///
    /// `auth` makes the endpoint an OAuth 2.1 protected resource (docs/DESIGN.md,
    /// "Authorization"): a `dict` with `resource` (the canonical URI, the tokens'
    /// audience), `authorization_servers` (issuer URLs), `scopes` (every scope name the
    /// server knows, at most 64), `scopes_supported` (advertised), `required` (scopes
    /// every request needs, space-delimited), `leeway_s` (default 60), `require_expiry`
    /// (default true), `resource_name`. Then pass `verifier` to `handle_request`.
    #[new]
    #[pyo3(signature = (*, slots=32, streams=64, max_body=1 << 20, path="/mcp",
        check_hosts=true, allowed_hosts=None, session_idle_ms=600_000, keepalive_ms=15_000,
        retry_ms=1000, response_mode="auto", get_stream=true, versions=None, auth=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        slots: usize,
        streams: usize,
        max_body: usize,
        path: &str,
        check_hosts: bool,
        allowed_hosts: Option<Vec<String>>,
        session_idle_ms: u64,
        keepalive_ms: u64,
        retry_ms: u32,
        response_mode: &str,
        get_stream: bool,
        versions: Option<Vec<String>>,
        auth: Option<Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let defaults = EndpointConfig::default();
        // Kept for the life of the process, as the endpoint borrows it (a few words).
        let tools: &'static Tools = Box::leak(Box::default());
        // The core borrows its configuration for the endpoint's life: a path or host list
        // other than the defaults is kept for the life of the process (a few bytes).
        let path: &'static str = if path == defaults.path {
            defaults.path
        } else {
            Box::leak(path.to_owned().into_boxed_str())
        };
        let allowed_hosts: &'static [&'static str] = match allowed_hosts {
            Some(list) if !list.is_empty() => Box::leak(
                list.into_iter()
                    .map(|h| &*Box::leak(h.into_boxed_str()))
                    .collect::<Vec<&'static str>>()
                    .into_boxed_slice(),
            ),
            _ => &[],
        };
        let config = EndpointConfig {
            path,
            check_hosts,
            allowed_hosts,
            max_body,
            limits: Limits {
                max_line: max_body,
                ..Limits::DEFAULT
            },
            session_idle_ms,
            keepalive_ms,
            retry_ms,
            response_mode: mode(response_mode)?,
            get_stream,
            versions: session::versions(versions)?,
            auth: auth.map(|a| auth_config(&a)).transpose()?,
            tools: Some(tools),
            ..defaults
        };
        let per_stream = max_body
            .checked_add(4096)
            .ok_or_else(|| ConfigError::new_err("max_body is too large"))?;
        let storage = EndpointStorage::owned(slots, streams, per_stream);
        let core = Core::new(config, storage)
            .map_err(|e| ConfigError::new_err(format!("endpoint: {e:?}")))?;
        Ok(Endpoint { core, tools })
    }

    /// The tools the endpoint serves, from `layer` (the `ServerLayer` the sessions use;
    /// `None`: none): the `Mcp-Param-{Name}` header of each `x-mcp-header` annotation in
    /// their `inputSchema` is then checked on 2026-07-28 `tools/call`s (a missing or
    /// different one is refused before any session sees the call). Call it again when
    /// the tools change; a call with the same annotated tools changes nothing.
    #[pyo3(signature = (layer))]
    fn set_tools(&mut self, layer: Option<PyRef<'_, ServerLayer>>) {
        let table: Vec<Annotated> = layer
            .as_ref()
            .map(|l| {
                l.core()
                    .catalog()
                    .tools
                    .iter()
                    // Most tools have no annotation: the endpoint needs only the others.
                    .filter(|t| t.input_schema.contains("x-mcp-header"))
                    .map(|t| (t.name.into(), t.input_schema.into()))
                    .collect()
            })
            .unwrap_or_default();
        if *self.tools.table() != *table {
            let kept: &'static [Annotated] = Box::leak(table.into_boxed_slice());
            *self
                .tools
                .0
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner) = kept;
        }
    }

    /// The number of session slots (the size of the host's session pool).
    #[getter]
    fn slot_count(&self) -> usize {
        self.core.slot_count()
    }

    /// Legacy sessions open now.
    #[getter]
    fn sessions(&self) -> usize {
        self.core.sessions()
    }

    /// Streams open now.
    #[getter]
    fn open_streams(&self) -> usize {
        self.core.open_streams()
    }

    /// Counters: `refused`, `sessions_opened`, `sessions_expired`, `sessions_evicted`,
    /// `sessions_deleted`, `unroutable`, `overflowed`, `resume_misses`.
    #[getter]
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = self.core.stats();
        let d = PyDict::new(py);
        d.set_item("refused", s.refused)?;
        d.set_item("sessions_opened", s.sessions_opened)?;
        d.set_item("sessions_expired", s.sessions_expired)?;
        d.set_item("sessions_evicted", s.sessions_evicted)?;
        d.set_item("sessions_deleted", s.sessions_deleted)?;
        d.set_item("unroutable", s.unroutable)?;
        d.set_item("overflowed", s.overflowed)?;
        d.set_item("resume_misses", s.resume_misses)?;
        Ok(d)
    }

    /// True when `slot` holds a live session or is lent to a request.
    fn slot_in_use(&self, slot: usize) -> bool {
        self.core.slot_in_use(slot)
    }

    /// Takes one HTTP request: `method` (`"POST"`, ...), `target` (path and query),
    /// `headers` (`(name, value)` pairs, `bytes` or `str`, as received), the whole
    /// `body`, and `entropy` (`ENTROPY_LEN` fresh random bytes, e.g. `os.urandom`: used
    /// only for a new session's id). Returns an `Outcome`.
    ///
    /// Under `auth`: `verifier(token)` checks a Bearer token's signature (or introspects
    /// it) and returns its claims as a `dict` (`sub`, `client_id` or `azp`, `aud` (a
    /// `str` or list), `exp`, `nbf`, `scope` (space-delimited) or `scp` (a list)), or
    /// `None` (or raises) to reject it; the endpoint then checks audience, expiry and
    /// scopes itself. `unix_s` is now in Unix seconds (default: the system clock).
    /// `layer` (a `ServerLayer`) gives the scopes of each tool, resource and prompt, so
    /// a call outside the grant is answered 403 before any session sees it.
    #[pyo3(signature = (now_ms, method, target, headers, body, entropy, *, verifier=None,
        unix_s=None, layer=None))]
    #[allow(clippy::needless_pass_by_value, clippy::too_many_arguments)]
    fn handle_request(
        &mut self,
        py: Python<'_>,
        now_ms: u64,
        method: &str,
        target: &str,
        headers: Vec<(Bound<'_, PyAny>, Bound<'_, PyAny>)>,
        body: &[u8],
        entropy: &[u8],
        verifier: Option<Bound<'_, PyAny>>,
        unix_s: Option<u64>,
        layer: Option<PyRef<'_, ServerLayer>>,
    ) -> PyResult<Outcome> {
        let entropy: &[u8; ENTROPY_LEN] = entropy
            .try_into()
            .map_err(|_| PyValueError::new_err(format!("entropy must be {ENTROPY_LEN} bytes")))?;
        let mut owned = Vec::with_capacity(headers.len());
        for (n, v) in &headers {
            // A name that is not text cannot be any header the endpoint reads.
            if let Ok(name) = String::from_utf8(bytes_of(n)?) {
                owned.push((name, bytes_of(v)?));
            }
        }
        let fields: Vec<Header<'_>> = owned
            .iter()
            .map(|(n, v)| Header { name: n, value: v })
            .collect();
        let req = Request {
            method: Method::from_token(method),
            target,
            headers: &fields,
            body,
        };
        let empty = || PyBytes::new(py, b"").unbind();
        let mut verify = |token: &str, claims: &mut Claims<'_>| -> Result<(), Rejected> {
            let Some(v) = &verifier else {
                return Err(Rejected("the server has no token verifier"));
            };
            match v.call1((token,)) {
                Ok(c) if !c.is_none() => report(&c, claims),
                _ => Err(Rejected("the verifier refused the token")),
            }
        };
        let unix_s = unix_s.unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs())
        });
        let policy = layer.as_ref().map(|l| l.core());
        let input = AuthInput {
            unix_s,
            verifier: &mut verify,
            policy: policy.map(|p| p as &dyn picomcp::http::auth::ScopePolicy),
        };
        let outcome = self
            .core
            .handle_request_as(now_ms, &req, entropy, Some(input));
        let mut out = match outcome {
            CoreOutcome::Respond { head, body } => Outcome {
                principal: None,
                kind: "respond",
                status: head.status,
                headers: head_headers(py, &head),
                body: PyBytes::new(py, body).unbind(),
                slot: None,
                fresh: false,
                stream: None,
            },
            CoreOutcome::Deliver {
                slot,
                fresh,
                stream,
            } => {
                let head = Head::accepted();
                Outcome {
                    principal: None,
                    kind: "deliver",
                    status: head.status,
                    headers: head_headers(py, &head),
                    body: empty(),
                    slot: Some(slot),
                    fresh,
                    stream: stream.map(StreamHandle::to_bits),
                }
            }
            CoreOutcome::Stream(h) => Outcome {
                principal: None,
                kind: "stream",
                status: 0,
                headers: Vec::new(),
                body: empty(),
                slot: None,
                fresh: false,
                stream: Some(h.to_bits()),
            },
        };
        if let (Some(p), Some(config)) = (self.core.principal(), self.core.config().auth) {
            out.principal = Some(principal_dict(py, p, &config)?.unbind());
        }
        Ok(out)
    }

    /// Takes the output of `session` (the one in `slot`) and puts each message on its
    /// stream. Call after every activity of the session.
    fn collect(&mut self, now_ms: u64, slot: usize, mut session: PyRefMut<'_, Session>) {
        self.core.collect(now_ms, slot, &mut session.core);
    }

    /// The next thing to write for `stream`: `("head", (status, headers))` once,
    /// `("body", bytes)` (write them, then `advance(stream, len)`), `("wait", None)`
    /// (nothing until the next `collect` or timeout) or `("end", None)` (the response
    /// is complete; the handle is stale).
    fn poll_response<'py>(
        &mut self,
        py: Python<'py>,
        now_ms: u64,
        stream: u64,
    ) -> PyResult<(&'static str, Py<PyAny>)> {
        Ok(
            match self
                .core
                .poll_response(now_ms, StreamHandle::from_bits(stream))
            {
                Poll::Head(head) => {
                    let value = (head.status, head_headers(py, &head));
                    ("head", value.into_pyobject(py)?.into_any().unbind())
                }
                Poll::Body(b) => ("body", PyBytes::new(py, b).into_any().unbind()),
                Poll::Wait => ("wait", py.None()),
                Poll::End => ("end", py.None()),
            },
        )
    }

    /// Marks `n` bytes of the last body of `stream` as written.
    fn advance(&mut self, stream: u64, n: usize) {
        self.core.advance(StreamHandle::from_bits(stream), n);
    }

    /// The connection carrying `stream` went away before `"end"`.
    fn detach(&mut self, stream: u64) {
        self.core.detach(StreamHandle::from_bits(stream));
    }

    /// SSE polling (2025-11-25): ends the connections of the legacy session in `slot`
    /// whose responses are still pending (the client resumes with `Last-Event-ID`).
    /// Returns how many.
    fn interrupt(&mut self, slot: usize) -> usize {
        self.core.interrupt(slot)
    }

    /// When `handle_timeout` is next due (the caller's milliseconds), or `None`.
    fn poll_timeout(&self) -> Option<u64> {
        self.core.poll_timeout()
    }

    /// Time passed: expires idle sessions, makes keep-alive comments due.
    fn handle_timeout(&mut self, now_ms: u64) {
        self.core.handle_timeout(now_ms)
    }

    fn __repr__(&self) -> String {
        format!(
            "<picomcp.Endpoint slots={} sessions={} streams={}>",
            self.core.slot_count(),
            self.core.sessions(),
            self.core.open_streams()
        )
    }
}
