//! `Session`: the core session, owned by a Python object.

use picomcp::Limits;
use picomcp::error::ErrorCode;
use picomcp::protocol::{Caps, LogLevel, Method, ProtocolVersion, Role, Versions};
use picomcp::session::{
    Change, Config, InboundId, OutboundId, RequestOptions, Session as Core, Storage,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use crate::errors::{self, ConfigError};
use crate::event::Event;
use crate::json::{Codec, validate, validate_object};

/// One MCP connection: newline-delimited JSON-RPC in, framed lines, events and deadlines
/// out. It performs no I/O and reads no clock: pass the time (any monotonic milliseconds)
/// to every input.
///
/// After every input (`handle_bytes`, `handle_eof`, `handle_timeout`) and command, drain
/// the outputs: `poll_event()` until `None` (answering requests as they come), write
/// `poll_transmit()` to the peer, then ask `poll_timeout()` when to call
/// `handle_timeout` next.
///
/// Caller mistakes raise (`SendError`, `RespondError`, `QueueFull`, `ValueError`); a
/// misbehaving peer never raises: it becomes a `peer_violation` event, and whatever
/// JSON-RPC error the peer is owed is already queued.
#[pyclass(module = "picomcp")]
pub(crate) struct Session {
    pub(crate) core: Core<'static>,
    pub(crate) codec: Codec,
}

/// How many times `lock` lets go of the GIL before giving up (then the borrow error
/// stands: a session call re-entered from inside a session call on the same thread).
const LOCK_TRIES: u32 = 100_000;

/// The session, borrowed mutably, for the commands that a worker thread gives (the Python
/// helper's threads answer their calls). Another thread may hold the session inside a
/// call that runs Python code meanwhile (`json.loads` of a request's params, a finalizer
/// the collector runs) and so let go of the GIL: this waits, without the GIL, until that
/// call is over, instead of failing. Take it after every conversion of Python values, and
/// drop it before raising: a borrow held while no Python code runs is never seen by
/// another thread.
pub(crate) fn lock<'py>(session: &Bound<'py, Session>) -> PyResult<PyRefMut<'py, Session>> {
    waiting(session, || session.try_borrow_mut())
}

/// The session, borrowed shared, waiting as `lock` does: what the stdio loop's
/// threads read (`phase`, `version`, `poll_timeout`, `request_info`) while another thread
/// may hold the session inside a call that runs Python code.
pub(crate) fn lock_ref<'py>(session: &Bound<'py, Session>) -> PyResult<PyRef<'py, Session>> {
    waiting(session, || session.try_borrow())
}

/// Tries `take` until it borrows the session, letting go of the GIL between tries.
fn waiting<T, E: Into<PyErr>>(
    session: &Bound<'_, Session>,
    mut take: impl FnMut() -> Result<T, E>,
) -> PyResult<T> {
    let mut tries = 0;
    loop {
        match take() {
            Ok(s) => return Ok(s),
            Err(e) if tries >= LOCK_TRIES => return Err(e.into()),
            Err(_) => {
                tries += 1;
                session.py().detach(std::thread::yield_now);
            }
        }
    }
}

/// The session's maximum JSON depth (a limit) and its codec, read under `lock`: what
/// converting a command's Python values needs before the command takes the session.
pub(crate) fn depth_codec(session: &Bound<'_, Session>) -> PyResult<(usize, Codec)> {
    let s = lock(session)?;
    Ok((s.core.limits().max_depth, s.codec.clone_ref(session.py())))
}

fn role(name: &str) -> PyResult<Role> {
    Role::from_name(name).ok_or_else(|| {
        ConfigError::new_err(format!(
            "role must be \"server\" or \"client\", not {name:?}"
        ))
    })
}

pub(crate) fn versions(list: Option<Vec<String>>) -> PyResult<Versions> {
    let Some(list) = list else {
        return Ok(Versions::ALL);
    };
    let mut out = [ProtocolVersion::V2024_11_05; 5];
    let mut n = 0;
    for s in &list {
        let v = ProtocolVersion::parse(s)
            .ok_or_else(|| ConfigError::new_err(format!("unknown protocol version {s:?}")))?;
        if !out[..n].contains(&v) {
            out[n] = v;
            n += 1;
        }
    }
    Ok(Versions::of(&out[..n]))
}

fn method(name: &str) -> PyResult<Method> {
    Method::from_name(name)
        .ok_or_else(|| PyValueError::new_err(format!("unknown MCP method {name:?}")))
}

fn level(name: &str) -> PyResult<LogLevel> {
    LogLevel::parse(name).ok_or_else(|| {
        PyValueError::new_err(format!(
            "unknown log level {name:?} (debug, info, notice, warning, error, critical, alert, emergency)"
        ))
    })
}

impl Session {
    fn max_depth(&self) -> usize {
        self.core.limits().max_depth
    }

    /// Capabilities as the core read them (`Caps`), as the object the peer declares: the
    /// core's own rendering (`Caps::json`, as Node shows them) through `json.loads`. Only
    /// what the core recognises: unknown members and extensions are not kept.
    fn caps_value(&self, py: Python<'_>, caps: Caps) -> PyResult<Py<PyAny>> {
        let text = caps.json().to_string();
        self.codec.value(py, validate(&text, self.max_depth())?)
    }
}

#[pymethods]
impl Session {
    /// Creates a session. `capabilities` is our capabilities object (a `dict` or JSON
    /// text), sent verbatim and enforced in both directions. `versions` lists the
    /// revisions we accept (default: all five, both eras). `state_key` (server, bytes, at
    /// least 16) seals the 2026-07-28 `requestState` for `state_ttl_ms`.
    #[new]
    #[pyo3(signature = (role, name, version, capabilities=None, *, instructions=None,
        versions=None, max_line=Limits::DEFAULT.max_line, max_depth=Limits::DEFAULT.max_depth,
        max_id_len=Limits::DEFAULT.max_id_len, inbound_slots=16, outbound_slots=16,
        request_timeout_ms=None, probe_timeout_ms=3000, state_key=None, state_ttl_ms=600_000,
        now_ms=0))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        role: &str,
        name: &str,
        version: &str,
        capabilities: Option<&Bound<'_, PyAny>>,
        instructions: Option<&str>,
        versions: Option<Vec<String>>,
        max_line: usize,
        max_depth: usize,
        max_id_len: usize,
        inbound_slots: usize,
        outbound_slots: usize,
        request_timeout_ms: Option<u64>,
        probe_timeout_ms: u64,
        state_key: Option<Vec<u8>>,
        state_ttl_ms: u64,
        now_ms: u64,
    ) -> PyResult<Self> {
        let codec = Codec::new(py)?;
        let caps_text = match capabilities {
            Some(c) => codec.object_text(py, c)?,
            None => "{}".to_owned(),
        };
        let caps = validate_object(&caps_text, max_depth, "capabilities")?;
        let mut config = match self::role(role)? {
            Role::Server => Config::server(name, version, caps),
            Role::Client => Config::client(name, version, caps),
        };
        config.instructions = instructions;
        config.versions = self::versions(versions)?;
        config.limits = Limits {
            max_line,
            max_depth,
            max_id_len,
            ..Limits::DEFAULT
        };
        config.request_timeout_ms = request_timeout_ms;
        config.probe_timeout_ms = probe_timeout_ms;
        // Copied by the core: the key need not outlive the constructor.
        config.state_key = state_key.as_deref();
        config.state_ttl_ms = state_ttl_ms;
        let storage =
            Storage::try_owned(max_line, inbound_slots, outbound_slots, config.info_len())
                .map_err(|e| ConfigError::new_err(e.to_string()))?;
        let core =
            Core::new(&config, storage, now_ms).map_err(|e| ConfigError::new_err(e.to_string()))?;
        Ok(Session { core, codec })
    }

    // ---- getters ----

    /// `"server"` or `"client"`.
    #[getter]
    fn role(&self) -> &'static str {
        self.core.role().name()
    }

    /// `"initializing"`, `"awaiting_initialized"`, `"operating"` or `"closed"`.
    #[getter]
    fn phase(slf: &Bound<'_, Self>) -> PyResult<&'static str> {
        Ok(lock_ref(slf)?.core.phase().name())
    }

    /// The negotiated revision (`"2025-11-25"`), or `None` before negotiation.
    #[getter]
    fn version(slf: &Bound<'_, Self>) -> PyResult<Option<&'static str>> {
        Ok(lock_ref(slf)?.core.version().map(ProtocolVersion::as_str))
    }

    /// `"opening"` (not decided yet), `"legacy"` (initialize handshake) or `"modern"`
    /// (2026-07-28).
    #[getter]
    fn era(&self) -> &'static str {
        self.core.era().name()
    }

    /// Server, legacy era: the level the client set with `logging/setLevel`, if any.
    #[getter]
    fn log_level(&self) -> Option<&'static str> {
        self.core.log_level().map(LogLevel::as_str)
    }

    /// Counters: `lines_in`, `messages_out`, `violations`.
    #[getter]
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = self.core.stats();
        let d = PyDict::new(py);
        d.set_item("lines_in", s.lines_in)?;
        d.set_item("messages_out", s.messages_out)?;
        d.set_item("violations", s.violations)?;
        Ok(d)
    }

    /// The limits in force: `max_line`, `max_depth`, `max_id_len`, `max_batch`.
    #[getter]
    fn limits<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let l = self.core.limits();
        let d = PyDict::new(py);
        d.set_item("max_line", l.max_line)?;
        d.set_item("max_depth", l.max_depth)?;
        d.set_item("max_id_len", l.max_id_len)?;
        d.set_item("max_batch", l.max_batch)?;
        Ok(d)
    }

    /// True while the peer's request `id` still waits for our answer.
    fn is_open(&self, id: u32) -> bool {
        self.core.is_open(InboundId::from_bits(id))
    }

    /// True when somebody subscribed to `uri` (`resources/subscribe` or a
    /// `subscriptions/listen` stream).
    fn is_subscribed(&self, uri: &str) -> bool {
        self.core.is_subscribed(uri)
    }

    /// The peer's capabilities from the handshake, as the core read them (`{}` before it,
    /// and in 2026-07-28, where each request declares its own:
    /// `request_info(id)["client_capabilities"]`).
    #[getter]
    fn peer_capabilities(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.caps_value(py, self.core.peer_capabilities())
    }

    /// What the session knows of the peer's open request `id` (`None` once answered):
    /// `method`, `modern`, `log_level`, `has_progress_token`, `cancelled`, and
    /// `client_capabilities`: what a 2026-07-28 request declared in its `_meta` (the
    /// client's capabilities as the core read them, `{}` when none), or in the legacy era
    /// the session's (`peer_capabilities`).
    fn request_info<'py>(slf: &Bound<'py, Self>, id: u32) -> PyResult<Option<Bound<'py, PyDict>>> {
        let py = slf.py();
        let this = lock_ref(slf)?;
        let Some(info) = this.core.request_info(InboundId::from_bits(id)) else {
            return Ok(None);
        };
        let d = PyDict::new(py);
        d.set_item("method", info.method.as_str())?;
        d.set_item("modern", info.modern)?;
        d.set_item("log_level", info.log_level.map(LogLevel::as_str))?;
        d.set_item("has_progress_token", info.has_progress_token)?;
        d.set_item("cancelled", info.cancelled)?;
        let caps = if info.modern {
            info.client_capabilities
        } else {
            this.core.peer_capabilities()
        };
        d.set_item("client_capabilities", this.caps_value(py, caps)?)?;
        Ok(Some(d))
    }

    // ---- inputs ----

    /// Feeds bytes read from the peer; returns how many were taken. Fewer than
    /// `len(data)` means a bounded queue is full: drain `poll_event()` and
    /// `poll_transmit()`, then offer the rest again; or that the session is closed
    /// (`phase == "closed"`), and then it takes nothing more.
    fn handle_bytes(slf: &Bound<'_, Self>, now_ms: u64, data: &[u8]) -> PyResult<usize> {
        Ok(lock(slf)?.core.handle_bytes(now_ms, data))
    }

    /// Feeds one whole message (a JSON-RPC message or batch, as an HTTP body carries it;
    /// no newline needed). False when the session is busy (a bounded queue is full:
    /// drain `poll_event()` and the output, then offer it again); nothing was taken then.
    fn handle_message(&mut self, now_ms: u64, data: &[u8]) -> bool {
        self.core.handle_message(now_ms, data).is_ok()
    }

    /// The peer closed its stream.
    fn handle_eof(slf: &Bound<'_, Self>, now_ms: u64) -> PyResult<()> {
        lock(slf)?.core.handle_eof(now_ms);
        Ok(())
    }

    /// Time passed: expire timeouts (call when `poll_timeout()` is due).
    fn handle_timeout(slf: &Bound<'_, Self>, now_ms: u64) -> PyResult<()> {
        lock(slf)?.core.handle_timeout(now_ms);
        Ok(())
    }

    // ---- outputs ----

    /// Everything queued for the peer, as framed lines (`b""` when nothing is queued).
    /// The bytes are taken: write all of them.
    fn poll_transmit<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyBytes>> {
        let mut s = lock(slf)?;
        let out = PyBytes::new(slf.py(), s.core.pending_transmit());
        let n = out.as_bytes().len();
        s.core.advance_transmit(n);
        Ok(out)
    }

    /// The next event, or `None`.
    fn poll_event(&mut self, py: Python<'_>) -> PyResult<Option<Event>> {
        let codec = &self.codec;
        match self.core.poll_event() {
            Some(ev) => Event::copy(py, codec, ev).map(Some),
            None => Ok(None),
        }
    }

    /// True when `poll_event()` has something.
    fn has_events(&self) -> bool {
        self.core.has_events()
    }

    /// When `handle_timeout` is next due (milliseconds on the caller's clock), or `None`.
    fn poll_timeout(slf: &Bound<'_, Self>) -> PyResult<Option<u64>> {
        Ok(lock_ref(slf)?.core.poll_timeout())
    }

    // ---- commands: answering the peer ----

    /// Answers the peer's request `id` with a result object (`dict` or JSON text). A
    /// request the peer cancelled is finished silently, as the spec requires.
    fn respond(slf: &Bound<'_, Self>, id: u32, result: &Bound<'_, PyAny>) -> PyResult<()> {
        let (depth, codec) = depth_codec(slf)?;
        let text = codec.object_text(slf.py(), result)?;
        let json = validate_object(&text, depth, "result")?;
        let done = lock(slf)?.core.respond(InboundId::from_bits(id), json);
        done.map_err(errors::respond)
    }

    /// Answers the peer's request `id` with a JSON-RPC error. `data` is any JSON value.
    #[pyo3(signature = (id, code, message, data=None))]
    fn respond_error(
        slf: &Bound<'_, Self>,
        id: u32,
        code: i32,
        message: &str,
        data: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let (depth, codec) = depth_codec(slf)?;
        let text = data.map(|d| codec.value_text(slf.py(), d)).transpose()?;
        let data = text.as_deref().map(|t| validate(t, depth)).transpose()?;
        let done =
            lock(slf)?
                .core
                .respond_error(InboundId::from_bits(id), ErrorCode(code), message, data);
        done.map_err(errors::respond)
    }

    /// 2026-07-28: answers -32021 (missing client capability) naming `required`.
    fn respond_missing_capability(
        &mut self,
        py: Python<'_>,
        id: u32,
        required: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let text = self.codec.object_text(py, required)?;
        let json = validate_object(&text, self.max_depth(), "required")?;
        self.core
            .respond_missing_capability(InboundId::from_bits(id), json)
            .map_err(errors::respond)
    }

    /// 2026-07-28: answers `resultType: "input_required"` (MRTR) with `input_requests`
    /// (key -> `{method, params}`) and/or an opaque `request_state`.
    #[pyo3(signature = (id, input_requests=None, request_state=None))]
    fn respond_input_required(
        &mut self,
        py: Python<'_>,
        id: u32,
        input_requests: Option<&Bound<'_, PyAny>>,
        request_state: Option<&str>,
    ) -> PyResult<()> {
        let text = input_requests
            .map(|r| self.codec.object_text(py, r))
            .transpose()?;
        let json = text
            .as_deref()
            .map(|t| validate_object(t, self.max_depth(), "input_requests"))
            .transpose()?;
        self.core
            .respond_input_required(InboundId::from_bits(id), json, request_state)
            .map_err(errors::respond)
    }

    /// Reports progress on the peer's request `id` (only if it asked for progress;
    /// values must increase).
    #[pyo3(signature = (id, progress, total=None, message=None))]
    fn progress(
        &mut self,
        id: u32,
        progress: f64,
        total: Option<f64>,
        message: Option<&str>,
    ) -> PyResult<()> {
        self.core
            .progress(InboundId::from_bits(id), progress, total, message)
            .map_err(errors::send)
    }

    /// Server: sends `notifications/message` if the client's level lets it through.
    /// With `id`, the message belongs to that request (2026-07-28 sends it only when the
    /// request asked for logs). Returns whether it was sent.
    #[pyo3(signature = (level, data, logger=None, id=None))]
    fn log(
        &mut self,
        py: Python<'_>,
        level: &str,
        data: &Bound<'_, PyAny>,
        logger: Option<&str>,
        id: Option<u32>,
    ) -> PyResult<bool> {
        let level = self::level(level)?;
        let text = self.codec.value_text(py, data)?;
        let data = validate(&text, self.max_depth())?;
        match id {
            Some(id) => self
                .core
                .log_for(InboundId::from_bits(id), level, logger, data),
            None => self.core.log(level, logger, data),
        }
        .map_err(errors::send)
    }

    /// Server: announces a change once; the core delivers it as the era wants, or not at
    /// all when nobody asked. `change` is a notification method
    /// (`"notifications/tools/list_changed"`, `.../prompts/list_changed`,
    /// `.../resources/list_changed`, or `"notifications/resources/updated"` with `uri`).
    /// Returns how many notifications were queued.
    #[pyo3(signature = (change, uri=None))]
    fn notify(&mut self, change: &str, uri: Option<&str>) -> PyResult<usize> {
        let m = method(change)?;
        let change = match Change::from_notification(m, uri) {
            Some(c) => c,
            None if m == Method::ResourcesUpdated => {
                return Err(PyValueError::new_err(
                    "notifications/resources/updated needs a uri",
                ));
            }
            None => {
                return Err(PyValueError::new_err(format!(
                    "{change} is not a change notification (or takes no uri)"
                )));
            }
        };
        self.core.notify(change).map_err(errors::send)
    }

    // ---- commands: asking the peer ----

    /// Sends a request; returns its handle (events about it carry this `id`).
    /// `progress=True` adds a progress token and routes the peer's progress to us.
    #[pyo3(signature = (now_ms, method, params=None, *, timeout_ms=None, progress=false,
        reset_timeout_on_progress=false, max_total_ms=None))]
    #[allow(clippy::too_many_arguments)]
    fn send_request(
        &mut self,
        py: Python<'_>,
        now_ms: u64,
        method: &str,
        params: Option<&Bound<'_, PyAny>>,
        timeout_ms: Option<u64>,
        progress: bool,
        reset_timeout_on_progress: bool,
        max_total_ms: Option<u64>,
    ) -> PyResult<u32> {
        let method = self::method(method)?;
        let text = params.map(|p| self.codec.object_text(py, p)).transpose()?;
        let params = text
            .as_deref()
            .map(|t| validate_object(t, self.max_depth(), "params"))
            .transpose()?;
        let opts = RequestOptions {
            timeout_ms,
            progress,
            reset_timeout_on_progress,
            max_total_ms,
        };
        self.core
            .send_request(now_ms, method, params, opts)
            .map(OutboundId::to_bits)
            .map_err(errors::send)
    }

    /// Sends a notification (checked against the negotiated capabilities).
    #[pyo3(signature = (method, params=None))]
    fn send_notification(
        &mut self,
        py: Python<'_>,
        method: &str,
        params: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let method = self::method(method)?;
        let text = params.map(|p| self.codec.object_text(py, p)).transpose()?;
        let params = text
            .as_deref()
            .map(|t| validate_object(t, self.max_depth(), "params"))
            .transpose()?;
        self.core
            .send_notification(method, params)
            .map_err(errors::send)
    }

    /// Cancels our request `id` (sends `notifications/cancelled`); a late answer is
    /// dropped.
    #[pyo3(signature = (id, reason=None))]
    fn cancel(&mut self, id: u32, reason: Option<&str>) -> PyResult<()> {
        self.core
            .cancel(OutboundId::from_bits(id), reason)
            .map_err(errors::send)
    }

    /// Client, 2026-07-28: answers an `input_required` event; the core re-issues the
    /// request with `inputResponses` (a `dict` keyed like the event's `requests`).
    fn answer_input(
        &mut self,
        py: Python<'_>,
        now_ms: u64,
        id: u32,
        responses: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let text = self.codec.object_text(py, responses)?;
        let json = validate_object(&text, self.max_depth(), "responses")?;
        self.core
            .answer_input(now_ms, OutboundId::from_bits(id), json)
            .map_err(errors::send)
    }

    /// Client, 2026-07-28: opens a `subscriptions/listen` stream with the filter
    /// `notifications` (e.g. `{"toolsListChanged": True}`); returns its handle.
    fn listen(&mut self, py: Python<'_>, notifications: &Bound<'_, PyAny>) -> PyResult<u32> {
        let text = self.codec.object_text(py, notifications)?;
        let json = validate_object(&text, self.max_depth(), "notifications")?;
        self.core
            .listen(json)
            .map(OutboundId::to_bits)
            .map_err(errors::send)
    }

    /// Ends the session locally (a `closed` event follows; later input is ignored).
    fn close(&mut self) {
        self.core.close()
    }

    fn __repr__(&self) -> String {
        format!(
            "<picomcp.Session role={} phase={} version={}>",
            self.role(),
            self.core.phase().name(),
            self.core
                .version()
                .map(ProtocolVersion::as_str)
                .unwrap_or("-")
        )
    }
}
