//! The client loop: one [`Session`] in the client role driven by the blocking
//! [`Driver`] over the child's pipes. [`Probe::request`] sends one request and runs the
//! session until its answer; everything that arrives meanwhile (server requests,
//! notifications, violations) is answered or recorded by [`Probe::handle`]. The checks
//! themselves live in [`crate::checks`].

use std::io::{Read, Write};
use std::time::{Duration, Instant};

use picomcp::ErrorCode;
use picomcp::json::Json;
use picomcp::protocol::{Caps, Method, ProtocolVersion, Versions, meta};
use picomcp::session::{
    CloseReason, Config, Event, InboundId, OutboundId, Phase, RequestOptions, SendError, Session,
    Storage, ToolDigest, Violation,
};
use picomcp_stdio::{BackgroundWriter, Driver, Step};

use crate::checks::handshake::ServerInfo;
use crate::cli::Args;
use crate::describe::{describe_close, describe_notification, describe_violation};
use crate::pins::PinFile;
use crate::report::Report;
use crate::text::{
    clip, elapsed_ms, failed_note, json_text, parse_json, raw_object, string_member,
};

/// What the probe declares; it answers `roots/list`, sampling and elicitation itself.
const CLIENT_CAPS: &str = r#"{"roots":{"listChanged":true},"sampling":{},"elicitation":{}}"#;
/// The canned answer to `sampling/createMessage`.
const SAMPLING_RESULT: &str = r#"{"role":"assistant","content":{"type":"text","text":"This is a canned reply from picomcp-probe."},"model":"picomcp-probe","stopReason":"endTurn"}"#;
/// The answer to an `elicitation/create` the probe cannot fill in.
const ELICITATION_DECLINE: &str = r#"{"action":"decline"}"#;

/// A request that reports progress may run this many timeouts in total.
pub(crate) const PROGRESS_BUDGET: u64 = 6;

/// An event, copied out of the driver's scratch buffer so the session can be commanded
/// while it is handled.
pub(crate) enum Incoming {
    Negotiated {
        version: ProtocolVersion,
        result: String,
    },
    Ready,
    Response {
        id: OutboundId,
        result: String,
    },
    ErrorResponse {
        id: OutboundId,
        code: i64,
        message: String,
    },
    TimedOut(OutboundId),
    Request {
        id: InboundId,
        method: Method,
        params: Option<String>,
    },
    Notification {
        method: Method,
        params: Option<String>,
    },
    Progress {
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    },
    Cancelled {
        reason: Option<String>,
    },
    /// 2026-07-28: the server needs input (MRTR) before it answers request `id`.
    InputRequired {
        id: OutboundId,
        requests: Option<String>,
    },
    /// 2026-07-28: the server's result was not valid for the request.
    InvalidResult {
        id: OutboundId,
        result: String,
    },
    /// 2026-07-28: a `subscriptions/listen` stream was acknowledged.
    SubscriptionAck {
        id: OutboundId,
        notifications: String,
    },
    /// 2026-07-28: the server ended a `subscriptions/listen` stream.
    SubscriptionEnded(OutboundId),
    /// A listed tool differs from its pin (`--pin`).
    ToolChanged {
        name: String,
        old: ToolDigest,
        new: ToolDigest,
    },
    /// Some listed tools could not be checked against pins.
    PinsIncomplete {
        unpinned: u16,
        unreported: u16,
    },
    Violation(Violation),
    Closed(CloseReason),
    /// Nothing to act on (an event kind this probe does not know).
    Nothing,
    /// The wake-up time passed to [`Probe::next`] was reached.
    Wake,
    /// The session is closed and every event was delivered, or the pipe broke.
    Ended,
}

impl Incoming {
    pub(crate) fn from_event(event: Event<'_>) -> Incoming {
        let owned = |j: Option<Json<'_>>| j.map(|j| j.as_raw().to_owned());
        match event {
            Event::Negotiated { version, peer } => Incoming::Negotiated {
                version,
                result: peer.as_raw().to_owned(),
            },
            Event::Ready { .. } => Incoming::Ready,
            Event::Response { id, result } => Incoming::Response {
                id,
                result: result.as_raw().to_owned(),
            },
            Event::ErrorResponse {
                id, code, message, ..
            } => Incoming::ErrorResponse {
                id,
                code,
                message: message.to_string(),
            },
            Event::TimedOut { id } => Incoming::TimedOut(id),
            Event::Request { id, method, params } => Incoming::Request {
                id,
                method,
                params: owned(params),
            },
            Event::Notification { method, params } => Incoming::Notification {
                method,
                params: owned(params),
            },
            Event::Progress {
                progress,
                total,
                params,
                ..
            } => Incoming::Progress {
                progress,
                total,
                message: string_member(params, "message"),
            },
            Event::Cancelled { reason, .. } => Incoming::Cancelled {
                reason: reason.map(|r| r.to_string()),
            },
            Event::InputRequired { id, input_requests } => Incoming::InputRequired {
                id,
                requests: owned(input_requests),
            },
            Event::InvalidResult { id, result } => Incoming::InvalidResult {
                id,
                result: result.as_raw().to_owned(),
            },
            Event::SubscriptionAcknowledged { id, notifications } => Incoming::SubscriptionAck {
                id,
                notifications: notifications.as_raw().to_owned(),
            },
            Event::SubscriptionEnded { id } => Incoming::SubscriptionEnded(id),
            Event::ToolChanged { name, old, new } => Incoming::ToolChanged {
                name: name.to_string(),
                old,
                new,
            },
            Event::PinsIncomplete {
                unpinned,
                unreported,
            } => Incoming::PinsIncomplete {
                unpinned,
                unreported,
            },
            Event::PeerViolation(v) => Incoming::Violation(v),
            Event::Closed(reason) => Incoming::Closed(reason),
            _ => Incoming::Nothing,
        }
    }
}

/// How a request ended.
pub(crate) enum Reply {
    Result(String),
    Error {
        code: i64,
        message: String,
    },
    TimedOut,
    /// 2026-07-28: a result the session judged invalid for the request.
    Invalid(String),
    /// The probe could not go on with the request (it was cancelled).
    Abandoned(String),
    /// The session refused to send it (e.g. the capability was not declared).
    Refused(SendError),
    /// The connection ended first.
    Ended,
}

/// The answer to one request, and how long it took.
pub(crate) struct Answer {
    pub(crate) reply: Reply,
    pub(crate) ms: f64,
}

/// One client session with the server under test.
pub(crate) struct Probe {
    pub(crate) session: Session<'static>,
    pub(crate) driver: Driver<BackgroundWriter>,
    pub(crate) timeout_ms: u64,
    /// When the server was started (the handshake time includes its start-up).
    pub(crate) started: Instant,
    pub(crate) report: Report,
    /// `notifications/initialized` was sent.
    pub(crate) ready: bool,
    /// Writing or reading the pipes failed; the session cannot be driven any more.
    pub(crate) broken: bool,
    /// Progress notifications for the request in flight.
    pub(crate) progress: usize,
    /// 2026-07-28: input rounds (MRTR) of the request in flight.
    pub(crate) input_rounds: usize,
    /// This is the second connection, after the server exited on the discover probe.
    pub(crate) restarted: bool,
    /// Why the session closed, once it did.
    pub(crate) close_reason: Option<CloseReason>,
    /// `--pin FILE`: the path, and the pins read from it (`None`: the file is new).
    pub(crate) pin_path: Option<std::path::PathBuf>,
    pub(crate) pins: Option<PinFile>,
    /// Tools the session reported changed against the preloaded pins.
    pub(crate) changed: Vec<(String, ToolDigest, ToolDigest)>,
    /// `--lint-results`.
    pub(crate) lint_results: bool,
    /// The server sent `notifications/tools/list_changed`: the tools are listed again
    /// at the end of the tools check, and checked against the pins.
    pub(crate) tools_list_changed: bool,
}

impl Probe {
    /// Creates the client session; it queues `initialize` at once.
    /// `restarted`: the server exited on the `server/discover` probe, so this second
    /// connection uses the legacy handshake only.
    pub(crate) fn new(
        stdin: impl Write + Send + 'static,
        stdout: impl Read + Send + 'static,
        args: &Args,
        restarted: bool,
        started: Instant,
        pins: Option<&PinFile>,
    ) -> Result<Probe, String> {
        let caps = Json::new(CLIENT_CAPS).map_err(|e| format!("bad client capabilities: {e}"))?;
        let mut config = Config::client("picomcp-probe", env!("CARGO_PKG_VERSION"), caps);
        config.request_timeout_ms = Some(args.timeout_ms);
        // A shorter request timeout also shortens the wait for the server/discover probe.
        config.probe_timeout_ms = config.probe_timeout_ms.min(args.timeout_ms);
        if let Some(v) = args.protocol {
            config.versions = Versions::of(&[v]);
        } else if restarted {
            config.versions = Versions::LEGACY;
        }
        let max_line = config.limits.max_line;
        // A server that stops reading its input must not block the probe: the writer gives up
        // after --timeout-ms without progress.
        let stdin = BackgroundWriter::new(stdin, Duration::from_millis(args.timeout_ms));
        let driver = Driver::new(stdout, stdin, max_line);
        let mut storage = Storage::owned(max_line, 8, 4, config.info_len());
        // A saved pin file preloads the session's pins: a changed tool is the core's
        // `ToolChanged` event on the first list (more pins than the table holds are
        // compared by the probe alone, in `check_pins`).
        for (slot, pin) in storage
            .pins
            .iter_mut()
            .zip(pins.iter().flat_map(|p| p.session_pins()))
        {
            *slot = Some(pin);
        }
        let session = Session::new(&config, storage, driver.now())
            .map_err(|e| format!("cannot create the session: {e}"))?;
        Ok(Probe {
            session,
            driver,
            timeout_ms: args.timeout_ms,
            started,
            report: Report {
                strict_lint: args.strict_lint,
                ..Report::default()
            },
            ready: false,
            broken: false,
            progress: 0,
            input_rounds: 0,
            restarted,
            close_reason: None,
            pin_path: args.pin.clone(),
            pins: pins.cloned(),
            changed: Vec::new(),
            lint_results: args.lint_results,
            tools_list_changed: false,
        })
    }

    /// Runs every check the server's capabilities allow.
    pub(crate) fn run(&mut self) {
        if !self.handshake() {
            return;
        }
        let steps: [fn(&mut Probe); 6] = [
            Probe::check_ping,
            Probe::check_logging,
            Probe::check_tools,
            Probe::check_resources,
            Probe::check_prompts,
            Probe::check_subscriptions,
        ];
        for step in steps {
            if self.session.phase() == Phase::Closed || self.broken {
                break;
            }
            step(self);
        }
        // Let late notifications arrive.
        if !self.broken && self.session.phase() != Phase::Closed {
            let _ = self.request(Method::Ping, None, self.options(false));
        }
    }

    /// Closes the server's stdin (by dropping the driver) and hands the report over.
    pub(crate) fn finish(mut self) -> Report {
        if !self.broken {
            let _ = self.driver.flush(&mut self.session);
        }
        let Probe { driver, report, .. } = self;
        drop(driver);
        report
    }

    /// The options of every request: `--timeout-ms`; with `progress`, a progress token,
    /// the timeout restarted by each notification, and [`PROGRESS_BUDGET`] in total.
    pub(crate) fn options(&self, progress: bool) -> RequestOptions {
        RequestOptions {
            timeout_ms: Some(self.timeout_ms),
            progress,
            reset_timeout_on_progress: progress,
            max_total_ms: progress.then_some(self.timeout_ms.saturating_mul(PROGRESS_BUDGET)),
        }
    }

    /// The next event, copied, or [`Incoming::Wake`] once the driver's clock reaches `wake`.
    pub(crate) fn next(&mut self, wake: Option<u64>) -> Incoming {
        if self.broken {
            return Incoming::Ended;
        }
        match self.driver.next(&mut self.session, wake) {
            Ok(Step::Event { event, .. }) => Incoming::from_event(event),
            Ok(Step::Wake { .. }) => Incoming::Wake,
            Ok(Step::Closed) => Incoming::Ended,
            Err(e) => {
                // The session keeps unsent bytes, so the driver would fail again: stop here.
                self.broken = true;
                self.report
                    .closed
                    .get_or_insert_with(|| format!("I/O error on the server's pipes: {e}"));
                Incoming::Ended
            }
        }
    }

    /// Sends one request and runs the session until its answer; whatever else arrives
    /// meanwhile is handled (server requests answered, notifications recorded).
    pub(crate) fn request(
        &mut self,
        method: Method,
        params: Option<&str>,
        options: RequestOptions,
    ) -> Answer {
        let start = Instant::now();
        let reply = self.exchange(method, params, options);
        Answer {
            reply,
            ms: elapsed_ms(start),
        }
    }

    pub(crate) fn exchange(
        &mut self,
        method: Method,
        params: Option<&str>,
        options: RequestOptions,
    ) -> Reply {
        let params = self.with_log_level(params);
        let params = match params.as_deref().map(parse_json).transpose() {
            Ok(p) => p,
            Err(e) => return Reply::Abandoned(format!("probe bug: bad params: {e}")),
        };
        self.progress = 0;
        self.input_rounds = 0;
        let id = match self
            .session
            .send_request(self.driver.now(), method, params, options)
        {
            Ok(id) => id,
            Err(e) => return Reply::Refused(e),
        };
        loop {
            match self.next(None) {
                Incoming::Response { id: got, result } if got == id => {
                    return Reply::Result(result);
                }
                Incoming::ErrorResponse {
                    id: got,
                    code,
                    message,
                } if got == id => {
                    return Reply::Error { code, message };
                }
                Incoming::TimedOut(got) if got == id => return Reply::TimedOut,
                Incoming::InvalidResult { id: got, result } if got == id => {
                    return Reply::Invalid(result);
                }
                Incoming::InputRequired { id: got, requests } if got == id => {
                    if let Err(why) = self.fulfil_input(id, method, requests.as_deref()) {
                        let _ = self.session.cancel(id, Some("the probe cannot answer"));
                        return Reply::Abandoned(why);
                    }
                }
                Incoming::Ended => return Reply::Ended,
                other => self.handle(other),
            }
        }
    }

    /// 2026-07-28: each request asks for log messages itself (`_meta` logLevel); the
    /// probe asks for `info` and above when the server declares logging.
    pub(crate) fn with_log_level(&self, params: Option<&str>) -> Option<String> {
        let logging = self.session.peer_capabilities().contains(Caps::LOGGING);
        if !self.is_modern() || !logging {
            return params.map(str::to_owned);
        }
        let original = params.and_then(|p| parse_json(p).ok());
        Some(json_text(|w| {
            w.begin_object();
            for (k, v) in original.iter().flat_map(|p| p.members()) {
                w.key_raw(k);
                w.raw(v);
            }
            w.key("_meta");
            w.begin_object();
            w.key(meta::LOG_LEVEL);
            w.string("info");
            w.end_object();
            w.end_object();
        }))
    }

    /// 2026-07-28: answers the input requests of one MRTR round (as
    /// [`canned_answer`] would answer the legacy requests) and lets the session retry.
    pub(crate) fn fulfil_input(
        &mut self,
        id: OutboundId,
        method: Method,
        requests: Option<&str>,
    ) -> Result<(), String> {
        self.input_rounds += 1;
        let requests = requests.and_then(|r| parse_json(r).ok());
        let mut answers: Vec<(String, String)> = Vec::new();
        for (key, request) in requests.iter().flat_map(|r| r.members()) {
            let kind = request.get("method").and_then(|m| m.as_str());
            let known = kind.and_then(Method::from_json_str);
            let name = kind.map_or_else(|| "an untyped request".to_string(), |k| k.to_string());
            match known.and_then(|m| canned_answer(m, request.get("params"))) {
                Some((answer, note)) => {
                    answers.push((key.to_string(), answer));
                    self.report
                        .traffic
                        .push(format!("→ input for {method}: {name} {note}"));
                }
                None => self
                    .report
                    .traffic
                    .push(format!("→ input for {method}: cannot answer {name}")),
            }
        }
        let responses = raw_object(&answers);
        let responses = parse_json(&responses).map_err(|e| format!("probe bug: {e}"))?;
        self.session
            .answer_input(self.driver.now(), id, responses)
            .map_err(|e| format!("cannot retry with the input: {e}"))
    }

    /// The server exited while the `server/discover` probe was pending.
    pub(crate) fn exited_on_probe(&self) -> bool {
        self.close_reason == Some(CloseReason::PeerClosedDuringProbe)
    }

    /// The session speaks 2026-07-28 with the server.
    pub(crate) fn is_modern(&self) -> bool {
        self.session.version().is_some_and(|v| !v.is_legacy())
    }

    /// Handles an event that is not the answer being waited for.
    pub(crate) fn handle(&mut self, incoming: Incoming) {
        match incoming {
            Incoming::Negotiated { version, result } => {
                self.report.server = ServerInfo::from_negotiated(version, &result)
            }
            Incoming::Ready => self.ready = true,
            Incoming::Request { id, method, params } => {
                self.answer_server(id, method, params.as_deref())
            }
            Incoming::Notification { method, params } => {
                self.tools_list_changed |= method == Method::ToolsListChanged;
                self.report
                    .traffic
                    .push(describe_notification(method, params.as_deref()));
            }
            Incoming::Progress {
                progress,
                total,
                message,
            } => {
                self.progress += 1;
                let total = total.map(|t| format!("/{t}")).unwrap_or_default();
                let message = message
                    .map(|m| format!(" {}", clip(&m, 60)))
                    .unwrap_or_default();
                self.report
                    .traffic
                    .push(format!("← progress {progress}{total}{message}"));
            }
            Incoming::Cancelled { reason } => {
                let reason = reason.map(|r| format!(": {r}")).unwrap_or_default();
                self.report.traffic.push(format!(
                    "← the server cancelled one of its requests{reason}"
                ));
            }
            Incoming::ToolChanged { name, old, new } => self.changed.push((name, old, new)),
            Incoming::PinsIncomplete {
                unpinned,
                unreported,
            } => self.report.traffic.push(format!(
                "pins: {unpinned} tools found no free pin, {unreported} changes not reported yet"
            )),
            Incoming::Violation(v) => self.report.violations.push(describe_violation(
                v,
                self.ready,
                self.session.version(),
            )),
            Incoming::Closed(reason) => {
                self.close_reason = Some(reason);
                if reason != CloseReason::Local {
                    let why = describe_close(reason, self.timeout_ms);
                    self.report.closed.get_or_insert(why);
                }
            }
            Incoming::InputRequired { id, .. } => {
                // Not the request in flight: nothing will answer it, so give it up.
                let _ = self.session.cancel(id, None);
                self.report
                    .traffic
                    .push("← input_required for a request the probe no longer waits for".into());
            }
            Incoming::SubscriptionAck { notifications, .. } => {
                self.report
                    .traffic
                    .push(format!("← subscription acknowledged: {notifications}"));
            }
            Incoming::SubscriptionEnded(_) => {
                self.report
                    .traffic
                    .push("← the server ended a subscription".into());
            }
            Incoming::Response { .. }
            | Incoming::ErrorResponse { .. }
            | Incoming::TimedOut(_)
            | Incoming::InvalidResult { .. } => {
                self.report
                    .traffic
                    .push("← an answer to a request the probe no longer waits for".into());
            }
            Incoming::Nothing | Incoming::Wake | Incoming::Ended => {}
        }
    }

    /// Answers a request from the server (legacy era) with [`canned_answer`].
    pub(crate) fn answer_server(&mut self, id: InboundId, method: Method, params: Option<&str>) {
        let params = params.and_then(|p| parse_json(p).ok());
        let Some((result, note)) = canned_answer(method, params) else {
            let r = self.session.respond_error(
                id,
                ErrorCode::METHOD_NOT_FOUND,
                "Method not found",
                None,
            );
            let note = failed_note(r);
            self.report.traffic.push(format!(
                "→ {method}: not supported by the probe (-32601){note}"
            ));
            return;
        };
        let r = match parse_json(&result) {
            Ok(json) => self.session.respond(id, json),
            Err(_) => self
                .session
                .respond_error(id, ErrorCode::INTERNAL_ERROR, "probe bug", None),
        };
        self.report
            .traffic
            .push(format!("→ {method} {note}{}", failed_note(r)));
    }
}

/// The probe's answer to a server's request for input: no roots, a canned sampling reply,
/// and an elicitation accepted with the form's defaults when every required field has one
/// (SEP-1034: a client applies the defaults of the fields it leaves alone), else declined;
/// URL-mode elicitation is declined. Returns the result and a note for the report.
pub(crate) fn canned_answer(method: Method, params: Option<Json<'_>>) -> Option<(String, String)> {
    match method {
        Method::RootsList => Some((r#"{"roots":[]}"#.into(), "answered: no roots".into())),
        Method::SamplingCreateMessage => {
            let prompt = params
                .and_then(|p| p.get("messages"))
                .and_then(|m| m.elements().last())
                .and_then(|m| m.get("content"))
                .and_then(|c| string_member(c, "text"))
                .map(|t| format!(" to {:?}", clip(&t, 50)))
                .unwrap_or_default();
            Some((
                SAMPLING_RESULT.into(),
                format!("answered: canned assistant text{prompt}"),
            ))
        }
        Method::ElicitationCreate => {
            let message = params
                .and_then(|p| string_member(p, "message"))
                .unwrap_or_default();
            let message = clip(&message, 60);
            Some(match params.and_then(form_defaults) {
                Some(content) => (
                    format!(r#"{{"action":"accept","content":{content}}}"#),
                    format!("accepted with the form's defaults {message:?}"),
                ),
                None => (ELICITATION_DECLINE.into(), format!("declined {message:?}")),
            })
        }
        _ => None,
    }
}

/// The content of a form elicitation filled with its defaults: every property that has a
/// `default`, as an object; `None` when a required property has none, or the request is
/// not a form (URL mode).
fn form_defaults(params: Json<'_>) -> Option<String> {
    if params
        .get("mode")
        .and_then(|m| m.as_str())
        .is_some_and(|m| !m.eq_str("form"))
    {
        return None;
    }
    let schema = params.get("requestedSchema")?;
    let properties = schema.get("properties");
    let defaults: Vec<(String, String)> = properties
        .iter()
        .flat_map(|p| p.members())
        .filter_map(|(name, prop)| {
            let value = prop.get("default")?;
            Some((json_string(name)?, value.as_raw().to_string()))
        })
        .collect();
    let all_required_filled = schema
        .get("required")
        .iter()
        .flat_map(|r| r.elements())
        .all(|r| {
            r.as_str()
                .and_then(json_string)
                .is_some_and(|r| defaults.iter().any(|(d, _)| *d == r))
        });
    all_required_filled.then(|| raw_object(&defaults))
}

/// A JSON string's decoded text.
fn json_string(s: picomcp::json::JsonStr<'_>) -> Option<String> {
    let mut buf = vec![0u8; s.decoded_len()];
    s.unescape_into(&mut buf).ok().map(str::to_string)
}
