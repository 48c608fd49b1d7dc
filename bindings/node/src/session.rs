//! `NativeSession`: the core session, owned by a JavaScript object.

use napi::Env;
use napi::JsString;
use napi::bindgen_prelude::{Buffer, BufferSlice};
use napi_derive::napi;
use picomcp::Limits;
use picomcp::error::ErrorCode;
use picomcp::json::Json;
use picomcp::protocol::{LogLevel, Method, ProtocolVersion, Role, Versions};
use picomcp::session::{
    Change, Config, InboundId, OutboundId, RequestOptions, Session as Core, Storage,
};

use crate::event::Event;

/// An error whose message starts with the name of the package's error class, and
/// optionally the core's error variant in brackets (`SendError[NotInVersion]: ...`);
/// `lib/errors.js` rethrows it as that class, with the variant as its `kind`.
pub(crate) fn err(class: &str, msg: impl core::fmt::Display) -> napi::Error {
    napi::Error::from_reason(format!("{class}: {msg}"))
}

/// The name of an enum value's variant (`Full` of `Full(..)`): the core's words for
/// what went wrong, which the vectors' `expect_error` names.
pub(crate) fn variant(e: &impl core::fmt::Debug) -> String {
    let d = format!("{e:?}");
    d.split(['(', ' ', '{']).next().unwrap_or("").to_owned()
}

fn send(e: picomcp::session::SendError) -> napi::Error {
    let class = match e {
        picomcp::session::SendError::Full(_) => "QueueFull",
        _ => "SendError",
    };
    err(&format!("{class}[{}]", variant(&e)), e)
}

pub(crate) fn respond(e: picomcp::session::RespondError) -> napi::Error {
    let class = match e {
        picomcp::session::RespondError::Full(_) => "QueueFull",
        _ => "RespondError",
    };
    err(&format!("{class}[{}]", variant(&e)), e)
}

/// Milliseconds from JavaScript (a number) as the core's clock.
fn ms(v: f64, what: &str) -> napi::Result<u64> {
    if (0.0..=9_007_199_254_740_991.0).contains(&v) {
        Ok(v as u64)
    } else {
        Err(err(
            "TypeError",
            format!("{what} must be a non-negative number of milliseconds"),
        ))
    }
}

/// A size or count from JavaScript: a whole number, not negative (default when absent).
fn count(v: Option<f64>, what: &str, default: usize) -> napi::Result<usize> {
    match v {
        None => Ok(default),
        Some(v) if v.fract() == 0.0 && (0.0..=9_007_199_254_740_991.0).contains(&v) => {
            Ok(v as usize)
        }
        Some(_) => Err(err(
            "ConfigError",
            format!("{what} must be a whole number of at least 0"),
        )),
    }
}

fn json<'t>(text: &'t str, max_depth: usize, what: &str) -> napi::Result<Json<'t>> {
    Json::with_max_depth(text, max_depth)
        .map_err(|e| err("TypeError", format!("{what}: invalid JSON: {e}")))
}

fn object<'t>(text: &'t str, max_depth: usize, what: &str) -> napi::Result<Json<'t>> {
    let v = json(text, max_depth, what)?;
    if !v.is_object() {
        return Err(err("TypeError", format!("{what} must be a JSON object")));
    }
    Ok(v)
}

fn method(name: &str) -> napi::Result<Method> {
    Method::from_name(name).ok_or_else(|| err("TypeError", format!("unknown MCP method {name:?}")))
}

/// How a session is set up. JSON members are text.
#[napi(object)]
pub struct SessionOptions {
    /// `"server"` or `"client"`.
    pub role: String,
    pub name: String,
    pub version: String,
    /// Our capabilities object, as JSON text (default `{}`).
    pub capabilities_json: Option<String>,
    pub instructions: Option<String>,
    /// Accepted revisions (default: all five, both eras).
    pub versions: Option<Vec<String>>,
    pub max_line: Option<f64>,
    pub max_depth: Option<f64>,
    pub max_id_len: Option<f64>,
    pub inbound_slots: Option<f64>,
    pub outbound_slots: Option<f64>,
    pub request_timeout_ms: Option<f64>,
    pub probe_timeout_ms: Option<f64>,
    /// Server, 2026-07-28: the `requestState` seal key (at least 16 bytes).
    pub state_key: Option<Buffer>,
    /// Server, 2026-07-28: how long a sealed `requestState` stays valid (default 600000).
    pub state_ttl_ms: Option<f64>,
    pub now_ms: Option<f64>,
}

/// One MCP connection, sans-IO (see `lib/index.js` for the JavaScript-valued wrapper).
#[napi]
pub struct NativeSession {
    pub(crate) core: Core<'static>,
}

#[napi]
impl NativeSession {
    #[napi(constructor)]
    pub fn new(o: SessionOptions) -> napi::Result<Self> {
        let Some(role) = Role::from_name(&o.role) else {
            return Err(err(
                "ConfigError",
                format!("role must be \"server\" or \"client\", not {:?}", o.role),
            ));
        };
        let limits = Limits {
            max_line: count(o.max_line, "maxLine", Limits::DEFAULT.max_line)?,
            max_depth: count(o.max_depth, "maxDepth", Limits::DEFAULT.max_depth)?,
            max_id_len: count(o.max_id_len, "maxIdLen", Limits::DEFAULT.max_id_len)?,
            ..Limits::DEFAULT
        };
        let caps_text = o.capabilities_json.as_deref().unwrap_or("{}");
        let caps = object(caps_text, limits.max_depth, "capabilities")?;
        let mut config = match role {
            Role::Server => Config::server(&o.name, &o.version, caps),
            Role::Client => Config::client(&o.name, &o.version, caps),
        };
        config.instructions = o.instructions.as_deref();
        if let Some(list) = &o.versions {
            let mut out = [ProtocolVersion::V2024_11_05; 5];
            let mut n = 0;
            for s in list {
                let v = ProtocolVersion::parse(s)
                    .ok_or_else(|| err("ConfigError", format!("unknown protocol version {s:?}")))?;
                if !out[..n].contains(&v) {
                    out[n] = v;
                    n += 1;
                }
            }
            config.versions = Versions::of(&out[..n]);
        }
        config.limits = limits;
        config.request_timeout_ms = o
            .request_timeout_ms
            .map(|v| ms(v, "requestTimeoutMs"))
            .transpose()?;
        if let Some(v) = o.probe_timeout_ms {
            config.probe_timeout_ms = ms(v, "probeTimeoutMs")?;
        }
        // Copied by the core: the key need not outlive the constructor.
        config.state_key = o.state_key.as_deref();
        if let Some(v) = o.state_ttl_ms {
            config.state_ttl_ms = ms(v, "stateTtlMs")?;
        }
        let storage = Storage::try_owned(
            limits.max_line,
            count(o.inbound_slots, "inboundSlots", 16)?,
            count(o.outbound_slots, "outboundSlots", 16)?,
            config.info_len(),
        )
        .map_err(|e| err("ConfigError", e))?;
        let now = ms(o.now_ms.unwrap_or(0.0), "nowMs")?;
        let core = Core::new(&config, storage, now).map_err(|e| err("ConfigError", e))?;
        Ok(NativeSession { core })
    }

    // ---- getters ----

    /// `"server"` or `"client"`.
    #[napi(getter)]
    pub fn role(&self) -> &'static str {
        self.core.role().name()
    }

    /// `"initializing"`, `"awaiting_initialized"`, `"operating"` or `"closed"`.
    #[napi(getter)]
    pub fn phase(&self) -> &'static str {
        self.core.phase().name()
    }

    /// The negotiated revision, or null before negotiation.
    #[napi(getter)]
    pub fn version(&self) -> Option<&'static str> {
        self.core.version().map(ProtocolVersion::as_str)
    }

    /// `"opening"`, `"legacy"` or `"modern"`.
    #[napi(getter)]
    pub fn era(&self) -> &'static str {
        self.core.era().name()
    }

    /// Server, legacy era: the level set with `logging/setLevel`, if any.
    #[napi(getter)]
    pub fn log_level(&self) -> Option<&'static str> {
        self.core.log_level().map(LogLevel::as_str)
    }

    /// True while the peer's request `id` waits for our answer.
    #[napi]
    pub fn is_open(&self, id: u32) -> bool {
        self.core.is_open(InboundId::from_bits(id))
    }

    /// True when somebody subscribed to `uri`.
    #[napi]
    pub fn is_subscribed(&self, uri: String) -> bool {
        self.core.is_subscribed(&uri)
    }

    /// The peer's open request `id`: was it cancelled, did it ask for progress, is it
    /// modern, which log level did it ask for, which client capabilities count for it.
    /// Null once answered.
    #[napi]
    pub fn request_info(&self, id: u32) -> Option<RequestInfo> {
        self.core
            .request_info(InboundId::from_bits(id))
            .map(|i| RequestInfo {
                method: i.method.as_str().into(),
                modern: i.modern,
                log_level: i.log_level.map(|l| l.as_str().into()),
                has_progress_token: i.has_progress_token,
                cancelled: i.cancelled,
                // The core's reading (the flags its capability gate checks), as in Python.
                client_capabilities_json: if i.modern {
                    i.client_capabilities
                } else {
                    self.core.peer_capabilities()
                }
                .json()
                .to_string(),
            })
    }

    // ---- inputs ----

    /// Feeds bytes from the peer; returns how many were taken (fewer: drain events and
    /// output, then offer the rest again).
    #[napi]
    pub fn handle_bytes(&mut self, now_ms: f64, data: Buffer) -> napi::Result<u32> {
        let now = ms(now_ms, "nowMs")?;
        Ok(self.core.handle_bytes(now, &data) as u32)
    }

    /// Takes one whole message (an HTTP body: one JSON-RPC message or a 2025-03-26
    /// batch); false when the session has no room for it yet (drain events, answer, then
    /// offer it again).
    #[napi]
    pub fn handle_message(&mut self, now_ms: f64, message: Buffer) -> napi::Result<bool> {
        let now = ms(now_ms, "nowMs")?;
        Ok(self.core.handle_message(now, &message).is_ok())
    }

    /// The peer closed its stream.
    #[napi]
    pub fn handle_eof(&mut self, now_ms: f64) -> napi::Result<()> {
        self.core.handle_eof(ms(now_ms, "nowMs")?);
        Ok(())
    }

    /// Time passed: expire timeouts.
    #[napi]
    pub fn handle_timeout(&mut self, now_ms: f64) -> napi::Result<()> {
        self.core.handle_timeout(ms(now_ms, "nowMs")?);
        Ok(())
    }

    // ---- outputs ----

    /// Everything queued for the peer as framed lines (empty when nothing is queued);
    /// the bytes are taken.
    #[napi]
    pub fn poll_transmit<'e>(&mut self, env: &'e Env) -> napi::Result<BufferSlice<'e>> {
        // Copied straight into a buffer Node owns (no intermediate vector).
        let pending = self.core.pending_transmit();
        let n = pending.len();
        let out = BufferSlice::copy_from(env, pending)?;
        self.core.advance_transmit(n);
        Ok(out)
    }

    /// Everything queued for the peer as a string (empty when nothing is queued); the
    /// bytes are taken. What the stdio server writes: a string lives in the JavaScript
    /// heap, so it is freed with the young garbage it belongs to, where a `Buffer` per
    /// write is memory outside the heap that waits for the next scavenge (and piles up
    /// between scavenges when the server allocates little else).
    #[napi]
    pub fn poll_transmit_text<'e>(&mut self, env: &'e Env) -> napi::Result<JsString<'e>> {
        let pending = self.core.pending_transmit();
        let n = pending.len();
        // The core writes JSON text: UTF-8 (checked, not assumed).
        let text = core::str::from_utf8(pending)
            .map_err(|e| napi::Error::from_reason(format!("output is not UTF-8: {e}")))?;
        let out = env.create_string(text)?;
        self.core.advance_transmit(n);
        Ok(out)
    }

    /// The next event, or null.
    #[napi]
    pub fn poll_event(&mut self) -> Option<Event> {
        self.core.poll_event().map(Event::copy)
    }

    /// When `handleTimeout` is next due, or null.
    #[napi]
    pub fn poll_timeout(&self) -> Option<f64> {
        self.core.poll_timeout().map(|t| t as f64)
    }

    // ---- commands ----

    /// Answers the peer's request with a result object (JSON text).
    #[napi]
    pub fn respond(&mut self, id: u32, result_json: String) -> napi::Result<()> {
        let d = self.core.limits().max_depth;
        let result = object(&result_json, d, "result")?;
        self.core
            .respond(InboundId::from_bits(id), result)
            .map_err(respond)
    }

    /// Answers the peer's request with a JSON-RPC error (`dataJson`: any JSON value).
    #[napi]
    pub fn respond_error(
        &mut self,
        id: u32,
        code: i32,
        message: String,
        data_json: Option<String>,
    ) -> napi::Result<()> {
        let d = self.core.limits().max_depth;
        let data = data_json
            .as_deref()
            .map(|t| json(t, d, "data"))
            .transpose()?;
        self.core
            .respond_error(InboundId::from_bits(id), ErrorCode(code), &message, data)
            .map_err(respond)
    }

    /// 2026-07-28: answers -32021 naming the required client capabilities.
    #[napi]
    pub fn respond_missing_capability(
        &mut self,
        id: u32,
        required_json: String,
    ) -> napi::Result<()> {
        let d = self.core.limits().max_depth;
        let required = object(&required_json, d, "required")?;
        self.core
            .respond_missing_capability(InboundId::from_bits(id), required)
            .map_err(respond)
    }

    /// 2026-07-28: answers `input_required` (MRTR).
    #[napi]
    pub fn respond_input_required(
        &mut self,
        id: u32,
        input_requests_json: Option<String>,
        request_state: Option<String>,
    ) -> napi::Result<()> {
        let d = self.core.limits().max_depth;
        let requests = input_requests_json
            .as_deref()
            .map(|t| object(t, d, "inputRequests"))
            .transpose()?;
        self.core
            .respond_input_required(InboundId::from_bits(id), requests, request_state.as_deref())
            .map_err(respond)
    }

    /// Progress on the peer's request (only if it asked; values must increase).
    #[napi]
    pub fn progress(
        &mut self,
        id: u32,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    ) -> napi::Result<()> {
        self.core
            .progress(
                InboundId::from_bits(id),
                progress,
                total,
                message.as_deref(),
            )
            .map_err(send)
    }

    /// Server: `notifications/message` if the client's level lets it through (with `id`:
    /// tied to that request). Returns whether it was sent.
    #[napi]
    pub fn log(
        &mut self,
        level: String,
        data_json: String,
        logger: Option<String>,
        id: Option<u32>,
    ) -> napi::Result<bool> {
        let level = LogLevel::parse(&level)
            .ok_or_else(|| err("TypeError", format!("unknown log level {level:?}")))?;
        let d = self.core.limits().max_depth;
        let data = json(&data_json, d, "data")?;
        match id {
            Some(id) => self
                .core
                .log_for(InboundId::from_bits(id), level, logger.as_deref(), data),
            None => self.core.log(level, logger.as_deref(), data),
        }
        .map_err(send)
    }

    /// Server: announces a change (`notifications/tools/list_changed`, ...,
    /// `notifications/resources/updated` with `uri`); returns how many notifications
    /// were queued.
    #[napi]
    pub fn notify(&mut self, change: String, uri: Option<String>) -> napi::Result<u32> {
        let Some(change) = Change::from_notification(method(&change)?, uri.as_deref()) else {
            return Err(err(
                "TypeError",
                format!(
                    "{change} is not a change notification (resources/updated needs a uri, the others take none)"
                ),
            ));
        };
        self.core.notify(change).map(|n| n as u32).map_err(send)
    }

    /// Sends a request; returns its handle.
    #[napi]
    pub fn send_request(
        &mut self,
        now_ms: f64,
        method: String,
        params_json: Option<String>,
        options: Option<RequestOptionsJs>,
    ) -> napi::Result<u32> {
        let now = ms(now_ms, "nowMs")?;
        let method = self::method(&method)?;
        let d = self.core.limits().max_depth;
        let params = params_json
            .as_deref()
            .map(|t| object(t, d, "params"))
            .transpose()?;
        let o = options.unwrap_or_default();
        let opts = RequestOptions {
            timeout_ms: o.timeout_ms.map(|v| ms(v, "timeoutMs")).transpose()?,
            progress: o.progress.unwrap_or(false),
            reset_timeout_on_progress: o.reset_timeout_on_progress.unwrap_or(false),
            max_total_ms: o.max_total_ms.map(|v| ms(v, "maxTotalMs")).transpose()?,
        };
        self.core
            .send_request(now, method, params, opts)
            .map(OutboundId::to_bits)
            .map_err(send)
    }

    /// Sends a notification.
    #[napi]
    pub fn send_notification(
        &mut self,
        method: String,
        params_json: Option<String>,
    ) -> napi::Result<()> {
        let method = self::method(&method)?;
        let d = self.core.limits().max_depth;
        let params = params_json
            .as_deref()
            .map(|t| object(t, d, "params"))
            .transpose()?;
        self.core.send_notification(method, params).map_err(send)
    }

    /// Cancels our request.
    #[napi]
    pub fn cancel(&mut self, id: u32, reason: Option<String>) -> napi::Result<()> {
        self.core
            .cancel(OutboundId::from_bits(id), reason.as_deref())
            .map_err(send)
    }

    /// Client, 2026-07-28: answers an `input_required` event.
    #[napi]
    pub fn answer_input(
        &mut self,
        now_ms: f64,
        id: u32,
        responses_json: String,
    ) -> napi::Result<()> {
        let now = ms(now_ms, "nowMs")?;
        let d = self.core.limits().max_depth;
        let responses = object(&responses_json, d, "responses")?;
        self.core
            .answer_input(now, OutboundId::from_bits(id), responses)
            .map_err(send)
    }

    /// Client, 2026-07-28: opens a `subscriptions/listen` stream; returns its handle.
    #[napi]
    pub fn listen(&mut self, notifications_json: String) -> napi::Result<u32> {
        let d = self.core.limits().max_depth;
        let filter = object(&notifications_json, d, "notifications")?;
        self.core
            .listen(filter)
            .map(OutboundId::to_bits)
            .map_err(send)
    }

    /// Frees the session's buffers now, rather than when the garbage collector gets to
    /// the object: the session becomes a closed one with no room (the HTTP handler
    /// releases a slot's session once the endpoint has ended it).
    #[napi]
    pub fn release(&mut self) -> napi::Result<()> {
        let caps = json("{}", 4, "capabilities")?;
        let mut config = match self.core.role() {
            Role::Client => Config::client("", "", caps),
            _ => Config::server("", "", caps),
        };
        config.limits = Limits {
            max_line: 16,
            ..Limits::DEFAULT
        };
        let storage =
            Storage::try_owned(16, 1, 1, config.info_len()).map_err(|e| err("ConfigError", e))?;
        let mut core = Core::new(&config, storage, 0).map_err(|e| err("ConfigError", e))?;
        core.close();
        self.core = core;
        Ok(())
    }

    /// Ends the session locally.
    #[napi]
    pub fn close(&mut self) {
        self.core.close()
    }
}

/// What the session knows of the peer's open request.
#[napi(object)]
pub struct RequestInfo {
    pub method: String,
    pub modern: bool,
    pub log_level: Option<String>,
    pub has_progress_token: bool,
    pub cancelled: bool,
    /// The client capabilities that count for the request, as the core read them
    /// (`Caps::json`): what a 2026-07-28 request declared, else the session's.
    pub client_capabilities_json: String,
}

/// Options of `sendRequest`.
#[napi(object)]
#[derive(Default)]
pub struct RequestOptionsJs {
    pub timeout_ms: Option<f64>,
    pub progress: Option<bool>,
    pub reset_timeout_on_progress: Option<bool>,
    pub max_total_ms: Option<f64>,
}
