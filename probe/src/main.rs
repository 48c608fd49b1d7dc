//! `picomcp-probe`: starts an MCP server over stdio, connects to it as a client, checks
//! every feature the server declares, answers the server's own requests, and prints a
//! report.
//!
//! ```text
//! picomcp-probe [--timeout-ms N] [--protocol VERSION] [--json] [-- SERVER_CMD ARGS...]
//! ```
//!
//! Without a server command it probes the Rust demo server, `picomcp-demo`, found next to
//! this executable. Exit status: 0 when every check passed and the server broke no rule,
//! 1 otherwise, 2 on a usage or spawn error.
//!
//! It doubles as an example of the client role: one [`Session`] driven by the blocking
//! [`Driver`] over the child's pipes. Every request goes through
//! [`Session::send_request`], so a feature the server did not declare is refused by the
//! session itself, and the probe shows it as skipped.

use std::io::Read;
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitCode, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use picomcp::ErrorCode;
use picomcp::json::{Json, JsonKind, JsonWriter, MAX_DEPTH_CAP};
use picomcp::protocol::{Caps, Method, ProtocolVersion, Versions};
use picomcp::session::{
    CloseReason, Config, Event, InboundId, OutboundId, Phase, RequestOptions, SendError, Session,
    Storage, Violation,
};
use picomcp_stdio::{BackgroundWriter, Driver, Step};

const USAGE: &str = "\
usage: picomcp-probe [--timeout-ms N] [--protocol VERSION] [--json] [-- SERVER_CMD ARGS...]

Starts an MCP server over stdio, checks every feature it declares and prints a report.
Without SERVER_CMD it probes the Rust demo server (picomcp-demo, next to this binary).

  --timeout-ms N        timeout of each request in milliseconds (default 10000; also
                        the server/discover probe's wait when below its 3 s); in
                        2026-07-28 also how long the server may take to exit after
                        stdin EOF (at least 2 s; 2 s before 2026-07-28, not counted)
  --protocol VERSION    propose and accept only this revision (e.g. 2024-11-05)
  --json                print a machine-readable summary instead of the report
  -h, --help            print this help

exit status: 0 when every check passed and no violation was seen, 1 otherwise,
2 on a usage or spawn error";

/// What the probe declares; it answers `roots/list`, sampling and elicitation itself.
const CLIENT_CAPS: &str = r#"{"roots":{"listChanged":true},"sampling":{},"elicitation":{}}"#;
/// The canned answer to `sampling/createMessage`.
const SAMPLING_RESULT: &str = r#"{"role":"assistant","content":{"type":"text","text":"This is a canned reply from picomcp-probe."},"model":"picomcp-probe","stopReason":"endTurn"}"#;
/// The answer to `elicitation/create`.
const ELICITATION_RESULT: &str = r#"{"action":"decline"}"#;
/// 2026-07-28: the `_meta` key with which a request asks for log messages.
const LOG_LEVEL_KEY: &str = "io.modelcontextprotocol/logLevel";
/// 2026-07-28: the result `_meta` key with the server's identity.
const SERVER_INFO_KEY: &str = "io.modelcontextprotocol/serverInfo";
const DEFAULT_TIMEOUT_MS: u64 = 10_000;
/// A request that reports progress may run this many timeouts in total.
const PROGRESS_BUDGET: u64 = 6;
/// At most this many resources are read and prompts fetched.
const MAX_ITEMS: usize = 10;
/// At most this many pages of a paginated list are fetched.
const MAX_PAGES: usize = 10;
/// The least time the server gets to exit once its stdin is closed. Where exiting counts
/// (2026-07-28, the demo servers) it gets `--timeout-ms` when that is longer: some SDK
/// servers wait for in-flight handlers before they exit (rmcp up to 5 s), which is slow
/// but not a violation.
const EXIT_GRACE: Duration = Duration::from_secs(2);
/// The widest check name that still aligns the columns of the text report.
const NAME_WIDTH: usize = 64;
/// Server traffic lines shown in the text report.
const MAX_TRAFFIC: usize = 40;
/// Lines of the server's stderr shown when the probe fails.
const STDERR_TAIL: usize = 20;
/// Bytes of the server's stderr kept.
const STDERR_KEEP: usize = 64 * 1024;
/// Traffic lines and violations kept for the report (all are counted): a server that
/// floods the probe must not grow its memory or its report without bound.
const MAX_KEPT: usize = 200;
/// Tools called (resources and prompts: [`MAX_ITEMS`]); the demo servers have 16.
const MAX_TOOL_CALLS: usize = 32;
/// After this many tool calls without an answer in time, the rest are skipped.
const MAX_TOOL_TIMEOUTS: usize = 2;

fn main() -> ExitCode {
    let args = match parse_args(std::env::args().skip(1)) {
        Ok(args) => args,
        Err(ArgsError::Help) => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(ArgsError::Usage(msg)) => {
            eprintln!("picomcp-probe: {msg}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let command = if args.command.is_empty() {
        match demo_command() {
            Ok(c) => c,
            Err(msg) => {
                eprintln!("picomcp-probe: {msg}");
                return ExitCode::from(2);
            }
        }
    } else {
        args.command.clone()
    };
    let (mut server, mut report) = match probe_server(&args, &command) {
        Ok(done) => done,
        Err(msg) => {
            eprintln!("picomcp-probe: {msg}");
            return ExitCode::from(2);
        }
    };
    report.command = command;
    // Exiting on EOF is the demo server's contract and a 2026-07-28 SHOULD.
    // Where it counts, a slow exit is given up to --timeout-ms; elsewhere it is only noted.
    let strict = report.server.is_demo() || report.server.modern;
    let grace = if strict {
        EXIT_GRACE.max(Duration::from_millis(args.timeout_ms))
    } else {
        EXIT_GRACE
    };
    let (exit, ms) = server.shutdown(strict, grace);
    report
        .section("shutdown")
        .check("exit after stdin EOF", exit, Some(ms));
    let totals = report.totals();
    if totals.passed() {
        report.stderr.clear();
    } else {
        report.stderr = server.stderr_tail(STDERR_TAIL);
    }
    if args.json {
        println!("{}", report.to_json(&totals));
    } else {
        print!("{}", report.to_text(&totals));
    }
    if totals.passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// Starts the server and probes it. A server that exits on the `server/discover` probe
/// (some legacy servers exit on any request before `initialize`) is started once more and
/// probed with the legacy handshake only.
fn probe_server(args: &Args, command: &[String]) -> Result<(Server, Report), String> {
    let mut restarted = false;
    loop {
        let started = Instant::now();
        let (mut server, stdin, stdout) = Server::spawn(command)
            .map_err(|e| format!("cannot start `{}`: {e}", command.join(" ")))?;
        let mut probe = match Probe::new(stdin, stdout, args, restarted, started) {
            Ok(probe) => probe,
            Err(msg) => {
                let mut report = Report::default();
                report
                    .section("handshake")
                    .check("connect", Outcome::Failed(msg), None);
                return Ok((server, report));
            }
        };
        probe.run();
        if probe.exited_on_probe() && !restarted {
            drop(probe.finish());
            let _ = server.shutdown(false, EXIT_GRACE);
            restarted = true;
            continue;
        }
        return Ok((server, probe.finish()));
    }
}

// ---- command line ----

struct Args {
    timeout_ms: u64,
    /// Propose (and accept) only this revision.
    protocol: Option<ProtocolVersion>,
    json: bool,
    command: Vec<String>,
}

enum ArgsError {
    Help,
    Usage(String),
}

/// Options come first; the server command follows `--` (or starts at the first word that
/// is not an option).
fn parse_args(mut it: impl Iterator<Item = String>) -> Result<Args, ArgsError> {
    let mut args = Args {
        timeout_ms: DEFAULT_TIMEOUT_MS,
        protocol: None,
        json: false,
        command: Vec::new(),
    };
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "-h" | "--help" => return Err(ArgsError::Help),
            "--json" => args.json = true,
            "--timeout-ms" => {
                let value = it
                    .next()
                    .ok_or_else(|| ArgsError::Usage("--timeout-ms needs a value".into()))?;
                args.timeout_ms = value.parse().ok().filter(|n| *n > 0).ok_or_else(|| {
                    ArgsError::Usage(format!("--timeout-ms: `{value}` is not a positive number"))
                })?;
            }
            "--protocol" => {
                let value = it
                    .next()
                    .ok_or_else(|| ArgsError::Usage("--protocol needs a value".into()))?;
                let version = ProtocolVersion::parse(&value).ok_or_else(|| {
                    ArgsError::Usage(format!("--protocol: unknown revision `{value}`"))
                })?;
                args.protocol = Some(version);
            }
            "--" => {
                args.command.extend(it.by_ref());
                break;
            }
            s if s.starts_with('-') => {
                return Err(ArgsError::Usage(format!("unknown option `{s}`")));
            }
            _ => {
                args.command.push(arg);
                args.command.extend(it.by_ref());
                break;
            }
        }
    }
    Ok(args)
}

/// The Rust demo server: `picomcp-demo` next to this executable.
fn demo_command() -> Result<Vec<String>, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot locate this executable: {e}"))?;
    let demo = exe.with_file_name(format!("picomcp-demo{}", std::env::consts::EXE_SUFFIX));
    if !demo.is_file() {
        return Err(format!(
            "the demo server {} is missing: build it with `cargo build -p picomcp-examples` \
             (same profile as the probe), or name a server after `--`",
            demo.display()
        ));
    }
    Ok(vec![demo.to_string_lossy().into_owned()])
}

// ---- the server process ----

struct Server {
    child: Child,
    /// The tail of the server's stderr, collected by a thread.
    stderr: Arc<Mutex<Vec<u8>>>,
}

impl Server {
    fn spawn(command: &[String]) -> std::io::Result<(Server, ChildStdin, ChildStdout)> {
        let mut child = Command::new(&command[0])
            .args(&command[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()?;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            let _ = child.kill();
            return Err(std::io::Error::other("the child's pipes are missing"));
        };
        let kept = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&kept);
        thread::spawn(move || collect_stderr(stderr, &sink));
        Ok((
            Server {
                child,
                stderr: kept,
            },
            stdin,
            stdout,
        ))
    }

    /// Waits for the server to exit (its stdin is already closed); kills it after
    /// `grace`. A kill fails the check only when `strict`.
    fn shutdown(&mut self, strict: bool, grace: Duration) -> (Outcome, f64) {
        let start = Instant::now();
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) if status.success() => {
                    return (Outcome::Ok(status.to_string()), elapsed_ms(start));
                }
                Ok(Some(status)) => {
                    return (Outcome::Failed(status.to_string()), elapsed_ms(start));
                }
                Ok(None) if start.elapsed() < grace => thread::sleep(Duration::from_millis(5)),
                Ok(None) => break,
                Err(e) => {
                    return (
                        Outcome::Failed(format!("cannot wait for the server: {e}")),
                        elapsed_ms(start),
                    );
                }
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        let msg = format!(
            "still running {:.1} s after stdin EOF: killed",
            grace.as_secs_f64()
        );
        let outcome = if strict {
            Outcome::Failed(msg)
        } else {
            Outcome::Skipped(format!("{msg} (not counted before 2026-07-28)"))
        };
        (outcome, elapsed_ms(start))
    }

    fn stderr_tail(&self, lines: usize) -> Vec<String> {
        let buf = self.stderr.lock().unwrap_or_else(|e| e.into_inner());
        let text = String::from_utf8_lossy(&buf);
        let all: Vec<&str> = text.lines().collect();
        all[all.len().saturating_sub(lines)..]
            .iter()
            .map(|l| l.to_string())
            .collect()
    }
}

fn collect_stderr(mut stderr: impl Read, sink: &Mutex<Vec<u8>>) {
    let mut chunk = [0u8; 4096];
    while let Ok(n) = stderr.read(&mut chunk) {
        if n == 0 {
            return;
        }
        let mut buf = sink.lock().unwrap_or_else(|e| e.into_inner());
        buf.extend_from_slice(&chunk[..n]);
        if buf.len() > STDERR_KEEP {
            let excess = buf.len() - STDERR_KEEP;
            buf.drain(..excess);
        }
    }
}

/// The server's stdout, read to its end after the probe is done with it: a server that
/// writes while it shuts down (timers, late notifications) must not die of `EPIPE`
/// because the probe closed the pipe first.
struct DrainOnDrop(Option<ChildStdout>);

impl Read for DrainOnDrop {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match &mut self.0 {
            Some(out) => out.read(buf),
            None => Ok(0),
        }
    }
}

impl Drop for DrainOnDrop {
    fn drop(&mut self) {
        if let Some(mut out) = self.0.take() {
            thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
        }
    }
}

// ---- the session ----

/// An event, copied out of the driver's scratch buffer so the session can be commanded
/// while it is handled.
enum Incoming {
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
    fn from_event(event: Event<'_>) -> Incoming {
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
            Event::PeerViolation(v) => Incoming::Violation(v),
            Event::Closed(reason) => Incoming::Closed(reason),
            _ => Incoming::Nothing,
        }
    }
}

/// How a request ended.
enum Reply {
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
struct Answer {
    reply: Reply,
    ms: f64,
}

/// One client session with the server under test.
struct Probe {
    session: Session<'static>,
    driver: Driver<BackgroundWriter>,
    timeout_ms: u64,
    /// When the server was started (the handshake time includes its start-up).
    started: Instant,
    report: Report,
    /// `notifications/initialized` was sent.
    ready: bool,
    /// Writing or reading the pipes failed; the session cannot be driven any more.
    broken: bool,
    /// Progress notifications for the request in flight.
    progress: usize,
    /// 2026-07-28: input rounds (MRTR) of the request in flight.
    input_rounds: usize,
    /// This is the second connection, after the server exited on the discover probe.
    restarted: bool,
    /// Why the session closed, once it did.
    close_reason: Option<CloseReason>,
}

impl Probe {
    /// Creates the client session; it queues `initialize` at once.
    /// `restarted`: the server exited on the `server/discover` probe, so this second
    /// connection uses the legacy handshake only.
    fn new(
        stdin: ChildStdin,
        stdout: ChildStdout,
        args: &Args,
        restarted: bool,
        started: Instant,
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
        let driver = Driver::new(DrainOnDrop(Some(stdout)), stdin, max_line);
        let storage = Storage::owned(max_line, 8, 4, config.info_len());
        let session = Session::new(&config, storage, driver.now())
            .map_err(|e| format!("cannot create the session: {e}"))?;
        Ok(Probe {
            session,
            driver,
            timeout_ms: args.timeout_ms,
            started,
            report: Report::default(),
            ready: false,
            broken: false,
            progress: 0,
            input_rounds: 0,
            restarted,
            close_reason: None,
        })
    }

    /// Runs every check the server's capabilities allow.
    fn run(&mut self) {
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
    fn finish(mut self) -> Report {
        if !self.broken {
            let _ = self.driver.flush(&mut self.session);
        }
        let Probe { driver, report, .. } = self;
        drop(driver);
        report
    }

    fn options(&self, progress: bool) -> RequestOptions {
        RequestOptions {
            timeout_ms: Some(self.timeout_ms),
            progress,
            reset_timeout_on_progress: progress,
            max_total_ms: progress.then_some(self.timeout_ms.saturating_mul(PROGRESS_BUDGET)),
        }
    }

    // ---- driving the session ----

    /// The next event, copied, or [`Incoming::Wake`] once the driver's clock reaches `wake`.
    fn next(&mut self, wake: Option<u64>) -> Incoming {
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
    fn request(&mut self, method: Method, params: Option<&str>, options: RequestOptions) -> Answer {
        let start = Instant::now();
        let reply = self.exchange(method, params, options);
        Answer {
            reply,
            ms: elapsed_ms(start),
        }
    }

    fn exchange(&mut self, method: Method, params: Option<&str>, options: RequestOptions) -> Reply {
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
    fn with_log_level(&self, params: Option<&str>) -> Option<String> {
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
            w.key(LOG_LEVEL_KEY);
            w.string("info");
            w.end_object();
            w.end_object();
        }))
    }

    /// 2026-07-28: answers the input requests of one MRTR round (as
    /// [`canned_answer`] would answer the legacy requests) and lets the session retry.
    fn fulfil_input(
        &mut self,
        id: OutboundId,
        method: Method,
        requests: Option<&str>,
    ) -> Result<(), String> {
        self.input_rounds += 1;
        let requests = requests.and_then(|r| parse_json(r).ok());
        let mut answers: Vec<(String, &'static str)> = Vec::new();
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
        let responses = json_text(|w| {
            w.begin_object();
            for (key, answer) in &answers {
                w.key(key);
                match parse_json(answer) {
                    Ok(a) => w.raw(a),
                    Err(_) => w.null(),
                }
            }
            w.end_object();
        });
        let responses = parse_json(&responses).map_err(|e| format!("probe bug: {e}"))?;
        self.session
            .answer_input(self.driver.now(), id, responses)
            .map_err(|e| format!("cannot retry with the input: {e}"))
    }

    /// The server exited while the `server/discover` probe was pending.
    fn exited_on_probe(&self) -> bool {
        self.close_reason == Some(CloseReason::PeerClosedDuringProbe)
    }

    /// The session speaks 2026-07-28 with the server.
    fn is_modern(&self) -> bool {
        self.session.version().is_some_and(|v| !v.is_legacy())
    }

    /// Handles an event that is not the answer being waited for.
    fn handle(&mut self, incoming: Incoming) {
        match incoming {
            Incoming::Negotiated { version, result } => {
                self.report.server = ServerInfo::from_negotiated(version, &result)
            }
            Incoming::Ready => self.ready = true,
            Incoming::Request { id, method, params } => {
                self.answer_server(id, method, params.as_deref())
            }
            Incoming::Notification { method, params } => {
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
    fn answer_server(&mut self, id: InboundId, method: Method, params: Option<&str>) {
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
        let r = match parse_json(result) {
            Ok(json) => self.session.respond(id, json),
            Err(_) => self
                .session
                .respond_error(id, ErrorCode::INTERNAL_ERROR, "probe bug", None),
        };
        self.report
            .traffic
            .push(format!("→ {method} {note}{}", failed_note(r)));
    }

    // ---- the checks ----

    /// Waits for the `initialize` result and `notifications/initialized`.
    fn handshake(&mut self) -> bool {
        loop {
            match self.next(None) {
                Incoming::Ready => break,
                Incoming::Ended => {
                    let why = self
                        .report
                        .closed
                        .take()
                        .unwrap_or_else(|| "the connection closed".into());
                    self.report
                        .section("handshake")
                        .check("connect", Outcome::Failed(why), None);
                    return false;
                }
                other => self.handle(other),
            }
        }
        self.ready = true;
        let ms = elapsed_ms(self.started);
        let info = &self.report.server;
        let name = if info.modern {
            "server/discover"
        } else {
            "initialize"
        };
        let outcome = match &info.problem {
            Some(problem) => Outcome::Failed(problem.clone()),
            None => Outcome::Ok(format!(
                "{}, time includes the server's start-up",
                info.protocol
            )),
        };
        self.report
            .section("handshake")
            .check(name, outcome, Some(ms));
        if self.restarted {
            let note = "the server exited on the server/discover probe: restarted for initialize";
            self.report.info(note.into());
        }
        true
    }

    fn check_ping(&mut self) {
        let answer = self.request(Method::Ping, None, self.options(false));
        let outcome = judge(answer.reply, self.timeout_ms, |r| {
            if r.is_object() {
                Outcome::Ok("round trip".into())
            } else {
                Outcome::Failed("result is not an object".into())
            }
        });
        self.report
            .section("ping")
            .check("ping", outcome, Some(answer.ms));
    }

    fn check_logging(&mut self) {
        if self.is_modern() {
            self.report.section("logging");
            if self.session.peer_capabilities().contains(Caps::LOGGING) {
                let note = "2026-07-28 has no logging/setLevel: each request asks for level info";
                self.report.info(note.into());
            } else {
                let skipped = Outcome::Skipped("skipped: not declared".into());
                self.report.check("_meta logLevel", skipped, None);
            }
            return;
        }
        let params = json_text(|w| {
            w.begin_object();
            w.key("level");
            w.string("info");
            w.end_object();
        });
        let answer = self.request(Method::LoggingSetLevel, Some(&params), self.options(false));
        let outcome = judge(answer.reply, self.timeout_ms, |_| {
            Outcome::Ok("level info".into())
        });
        self.report
            .section("logging")
            .check("logging/setLevel", outcome, Some(answer.ms));
    }

    fn check_tools(&mut self) {
        self.report.section("tools");
        let Some(items) = self.list(
            Method::ToolsList,
            "tools",
            "tool",
            &[NAME, ("inputSchema", JsonKind::Object)],
        ) else {
            return;
        };
        let tools: Vec<Tool> = items.iter().filter_map(|raw| Tool::parse(raw)).collect();
        for tool in &tools {
            let line = format!(
                "{}  {}{}",
                tool.name,
                clip(&tool.description, 60),
                paren(&tool.params)
            );
            self.report.info(line);
            self.report.tools.push(tool.name.clone());
        }
        if tools.len() > MAX_TOOL_CALLS {
            self.report.info(format!(
                "only the first {MAX_TOOL_CALLS} of {} are called",
                tools.len()
            ));
        }
        let demo = self.report.server.is_demo();
        let mut timeouts = 0;
        for tool in tools.iter().take(MAX_TOOL_CALLS) {
            if self.session.phase() == Phase::Closed || self.broken {
                break;
            }
            if timeouts >= MAX_TOOL_TIMEOUTS {
                let why = format!("skipped: {timeouts} earlier calls got no answer in time");
                self.report.check(
                    format!("tools/call {}", tool.name),
                    Outcome::Skipped(why),
                    None,
                );
                continue;
            }
            let timed_out = match DEMO_CASES.iter().find(|c| demo && c.tool == tool.name) {
                Some(case) => self.call_demo_tool(case),
                None => self.call_tool(tool),
            };
            timeouts += usize::from(timed_out);
        }
    }

    /// Calls a tool with arguments generated from its input schema. An error answer to
    /// generated arguments is not held against the server (see [`refused`]). Returns
    /// whether the call timed out.
    fn call_tool(&mut self, tool: &Tool) -> bool {
        let name = format!("tools/call {}", tool.name);
        let arguments = match (&tool.arguments, tool.task_required) {
            (_, true) => Err("skipped: the tool requires task augmentation".to_string()),
            (Ok(a), false) => Ok(a.clone()),
            (Err(why), false) => Err(format!("skipped: {why}")),
        };
        let arguments = match arguments {
            Ok(a) => a,
            Err(why) => {
                self.report.check(name, Outcome::Skipped(why), None);
                return false;
            }
        };
        let answer = self.call(&tool.name, &arguments);
        let timed_out = matches!(answer.reply, Reply::TimedOut);
        let progress = self.progress;
        let generated = arguments != "{}";
        let outcome = match answer.reply {
            Reply::Error { code, message } if generated && code != METHOD_NOT_FOUND => {
                refused(&arguments, code, &message)
            }
            reply => judge(reply, self.timeout_ms, |r| match ToolResult::parse(r) {
                Err(e) => Outcome::Failed(e),
                Ok(res) if tool.output_schema && !res.is_error && res.structured.is_none() => {
                    Outcome::Failed(
                        "the tool declares an outputSchema but returned no structuredContent"
                            .into(),
                    )
                }
                Ok(res) => Outcome::Ok(format!(
                    "{arguments} → {}{}",
                    res.summary,
                    progress_note(progress, self.input_rounds)
                )),
            }),
        };
        self.report.check(name, outcome, Some(answer.ms));
        timed_out
    }

    /// Calls one of the demo server's tools with fixed arguments and checks the result
    /// against the demo contract (DEMO_SERVER.md). Returns whether the call timed out.
    fn call_demo_tool(&mut self, case: &DemoCase) -> bool {
        let answer = self.call(case.tool, case.arguments);
        let timed_out = matches!(answer.reply, Reply::TimedOut);
        let progress = self.progress;
        let outcome = judge(answer.reply, self.timeout_ms, |r| {
            match ToolResult::parse(r) {
                Err(e) => Outcome::Failed(e),
                Ok(res) if res.is_error => Outcome::Failed(format!("isError: {}", res.summary)),
                Ok(res) => match (case.expect)(&res) {
                    Err(e) => Outcome::Failed(e),
                    Ok(()) if progress != case.progress => Outcome::Failed(format!(
                        "expected {} progress notifications, got {progress}",
                        case.progress
                    )),
                    Ok(()) => Outcome::Ok(format!(
                        "{} → {}{}",
                        case.arguments,
                        res.summary,
                        progress_note(progress, self.input_rounds)
                    )),
                },
            }
        });
        self.report.check(
            format!("tools/call {}", case.tool),
            outcome,
            Some(answer.ms),
        );
        timed_out
    }

    /// `tools/call` asking for progress; the timeout restarts with every progress
    /// notification, up to [`PROGRESS_BUDGET`] timeouts in total.
    fn call(&mut self, tool: &str, arguments: &str) -> Answer {
        let params = match parse_json(arguments) {
            Ok(args) => json_text(|w| {
                w.begin_object();
                w.key("name");
                w.string(tool);
                w.key("arguments");
                w.raw(args);
                w.end_object();
            }),
            Err(e) => {
                return Answer {
                    reply: Reply::Abandoned(format!("probe bug: {e}")),
                    ms: 0.0,
                };
            }
        };
        self.request(Method::ToolsCall, Some(&params), self.options(true))
    }

    fn check_resources(&mut self) {
        self.report.section("resources");
        if let Some(items) = self.list(
            Method::ResourcesList,
            "resources",
            "resource",
            &[("uri", JsonKind::String), NAME],
        ) {
            let uris: Vec<String> = items
                .iter()
                .filter_map(|r| parse_json(r).ok().and_then(|r| string_member(r, "uri")))
                .collect();
            for raw in &items {
                self.report.info(describe_resource(raw, "uri"));
            }
            if uris.len() > MAX_ITEMS {
                self.report.info(format!(
                    "only the first {MAX_ITEMS} of {} are read",
                    uris.len()
                ));
            }
            for uri in uris.iter().take(MAX_ITEMS) {
                self.read_resource(uri, false);
            }
            self.report.resources = uris;
        }
        if let Some(items) = self.list(
            Method::ResourcesTemplatesList,
            "resourceTemplates",
            "template",
            &[("uriTemplate", JsonKind::String), NAME],
        ) {
            for raw in &items {
                self.report.info(describe_resource(raw, "uriTemplate"));
            }
            let templates: Vec<String> = items
                .iter()
                .filter_map(|t| {
                    parse_json(t)
                        .ok()
                        .and_then(|t| string_member(t, "uriTemplate"))
                })
                .collect();
            if templates.len() > MAX_ITEMS {
                self.report.info(format!(
                    "only the first {MAX_ITEMS} of {} are read",
                    templates.len()
                ));
            }
            for t in templates.iter().take(MAX_ITEMS) {
                self.read_template(t);
            }
        }
    }

    /// `resources/read` of a template with every variable set to "1": an error answer
    /// is not held against the server (the made-up value may not exist), except -32601.
    fn read_template(&mut self, template: &str) {
        self.read_resource(&expand_template(template, "1"), true);
    }

    /// `resources/read`; `generated`: the URI was made up by the probe.
    fn read_resource(&mut self, uri: &str, generated: bool) {
        let params = json_text(|w| {
            w.begin_object();
            w.key("uri");
            w.string(uri);
            w.end_object();
        });
        let answer = self.request(Method::ResourcesRead, Some(&params), self.options(false));
        let modern = self.is_modern();
        let outcome = match answer.reply {
            Reply::Error { code, message } if generated && code != METHOD_NOT_FOUND => {
                Outcome::Skipped(format!(
                    "the server refused the generated URI: error {code}: {}",
                    clip(&message, 80)
                ))
            }
            reply => judge(reply, self.timeout_ms, |r| match cache_problem(r) {
                Some(problem) if modern => Outcome::Failed(problem),
                _ => summarize_contents(r),
            }),
        };
        self.report
            .check(format!("resources/read {uri}"), outcome, Some(answer.ms));
    }

    fn check_prompts(&mut self) {
        self.report.section("prompts");
        let Some(items) = self.list(Method::PromptsList, "prompts", "prompt", &[NAME]) else {
            return;
        };
        let prompts: Vec<Prompt> = items.iter().filter_map(|raw| Prompt::parse(raw)).collect();
        for p in &prompts {
            self.report.info(format!(
                "{}  {}{}",
                p.name,
                clip(&p.description, 60),
                paren(&p.params)
            ));
            self.report.prompts.push(p.name.clone());
        }
        if prompts.len() > MAX_ITEMS {
            self.report.info(format!(
                "only the first {MAX_ITEMS} of {} are fetched",
                prompts.len()
            ));
        }
        for p in prompts.iter().take(MAX_ITEMS) {
            self.get_prompt(p);
        }
    }

    /// `prompts/get` with every required argument set to "hello".
    fn get_prompt(&mut self, prompt: &Prompt) {
        let params = json_text(|w| {
            w.begin_object();
            w.key("name");
            w.string(&prompt.name);
            if !prompt.required.is_empty() {
                w.key("arguments");
                w.begin_object();
                for arg in &prompt.required {
                    w.key(arg);
                    w.string("hello");
                }
                w.end_object();
            }
            w.end_object();
        });
        let answer = self.request(Method::PromptsGet, Some(&params), self.options(false));
        let generated = !prompt.required.is_empty();
        let outcome = match answer.reply {
            Reply::Error { code, message } if generated && code != METHOD_NOT_FOUND => {
                refused("(all \"hello\")", code, &message)
            }
            reply => judge(reply, self.timeout_ms, summarize_messages),
        };
        self.report.check(
            format!("prompts/get {}", prompt.name),
            outcome,
            Some(answer.ms),
        );
    }

    /// 2026-07-28: opens a `subscriptions/listen` stream for every change the server can
    /// announce, waits for its acknowledgement, then cancels it.
    fn check_subscriptions(&mut self) {
        if !self.is_modern() {
            return;
        }
        self.report.section("subscriptions");
        let caps = self.session.peer_capabilities();
        let watched = self
            .report
            .resources
            .first()
            .filter(|_| caps.contains(Caps::RESOURCES_SUBSCRIBE))
            .cloned();
        let flags = [
            ("toolsListChanged", Caps::TOOLS_LIST_CHANGED),
            ("promptsListChanged", Caps::PROMPTS_LIST_CHANGED),
            ("resourcesListChanged", Caps::RESOURCES_LIST_CHANGED),
        ];
        let wanted: Vec<&str> = flags
            .iter()
            .filter(|(_, c)| caps.contains(*c))
            .map(|(k, _)| *k)
            .collect();
        if wanted.is_empty() && watched.is_none() {
            let why = "skipped: the server declares no listChanged or subscribe".to_string();
            return self
                .report
                .check("subscriptions/listen", Outcome::Skipped(why), None);
        }
        let filter = json_text(|w| {
            w.begin_object();
            for key in &wanted {
                w.key(key);
                w.bool(true);
            }
            if let Some(uri) = &watched {
                w.key("resourceSubscriptions");
                w.begin_array();
                w.string(uri);
                w.end_array();
            }
            w.end_object();
        });
        let start = Instant::now();
        let outcome = self.listen(&filter);
        self.report
            .check("subscriptions/listen", outcome, Some(elapsed_ms(start)));
    }

    /// Opens a listen stream with `filter` and waits for its acknowledgement.
    fn listen(&mut self, filter: &str) -> Outcome {
        let id = match parse_json(filter).map(|f| self.session.listen(f)) {
            Ok(Ok(id)) => id,
            Ok(Err(e)) => return Outcome::Skipped(format!("skipped: {e}")),
            Err(e) => return Outcome::Failed(format!("probe bug: {e}")),
        };
        let deadline = self.driver.now().saturating_add(self.timeout_ms);
        let outcome = loop {
            match self.next(Some(deadline)) {
                Incoming::SubscriptionAck {
                    id: got,
                    notifications,
                } if got == id => {
                    break judge_ack(filter, &notifications);
                }
                Incoming::ErrorResponse {
                    id: got,
                    code,
                    message,
                } if got == id => {
                    break Outcome::Failed(format!("error {code}: {}", clip(&message, 100)));
                }
                Incoming::Response { id: got, .. } | Incoming::SubscriptionEnded(got)
                    if got == id =>
                {
                    break Outcome::Failed("the stream ended before its acknowledgement".into());
                }
                Incoming::Wake => {
                    break Outcome::Failed(format!(
                        "no acknowledgement within {} ms",
                        self.timeout_ms
                    ));
                }
                Incoming::Ended => {
                    break Outcome::Failed(
                        "the connection closed before the acknowledgement".into(),
                    );
                }
                other => self.handle(other),
            }
        };
        let _ = self.session.cancel(id, None);
        outcome
    }

    /// Fetches every page of a list (`tools/list`, ...), up to [`MAX_PAGES`], and records
    /// the check. Each item must be an object with the `required` members, of the kinds
    /// given. Returns the raw items, or `None` when the list failed or was skipped.
    fn list(
        &mut self,
        method: Method,
        key: &str,
        noun: &str,
        required: &[(&str, JsonKind)],
    ) -> Option<Vec<String>> {
        let mut items = Vec::new();
        let mut cursor: Option<String> = None;
        let (mut pages, mut ms) = (0, 0.0);
        let outcome = loop {
            let params = cursor.as_deref().map(|c| {
                json_text(|w| {
                    w.begin_object();
                    w.key("cursor");
                    w.string(c);
                    w.end_object();
                })
            });
            let answer = self.request(method, params.as_deref(), self.options(false));
            pages += 1;
            ms += answer.ms;
            let mut next = None;
            let modern = self.is_modern();
            let outcome = judge(answer.reply, self.timeout_ms, |r| {
                let Some(list) = r.get(key).filter(|l| l.kind() == JsonKind::Array) else {
                    return Outcome::Failed(format!("the result has no `{key}` array"));
                };
                if let Some(problem) = cache_problem(r).filter(|_| modern) {
                    return Outcome::Failed(problem);
                }
                for (i, item) in list.elements().enumerate() {
                    let n = items.len() + i;
                    if !item.is_object() {
                        return Outcome::Failed(format!("item {n} of `{key}` is not an object"));
                    }
                    for (m, kind) in required {
                        match item.get(m) {
                            None => {
                                return Outcome::Failed(format!(
                                    "item {n} of `{key}` has no `{m}`"
                                ));
                            }
                            Some(v) if v.kind() != *kind => {
                                return Outcome::Failed(format!(
                                    "`{m}` of item {n} of `{key}` is not {}",
                                    kind_name(*kind)
                                ));
                            }
                            Some(_) => {}
                        }
                    }
                }
                items.extend(list.elements().map(|e| e.as_raw().to_owned()));
                next = string_member(r, "nextCursor");
                Outcome::Ok(String::new())
            });
            match (outcome, next) {
                (Outcome::Ok(_), Some(c)) if pages < MAX_PAGES => cursor = Some(c),
                (Outcome::Ok(_), more) => {
                    let pages = if pages > 1 {
                        format!(" in {pages} pages")
                    } else {
                        String::new()
                    };
                    let stopped = if more.is_some() {
                        " (stopped: more pages follow)"
                    } else {
                        ""
                    };
                    break Outcome::Ok(format!("{}{pages}{stopped}", count(items.len(), noun)));
                }
                (other, _) => break other,
            }
        };
        let ok = matches!(outcome, Outcome::Ok(_));
        self.report.check(method.as_str(), outcome, Some(ms));
        ok.then_some(items)
    }
}

const METHOD_NOT_FOUND: i64 = ErrorCode::METHOD_NOT_FOUND.0 as i64;

/// The `name` every listed tool, prompt and resource must have.
const NAME: (&str, JsonKind) = ("name", JsonKind::String);

/// `a string`, `an object`: for the report.
fn kind_name(kind: JsonKind) -> &'static str {
    match kind {
        JsonKind::Null => "null",
        JsonKind::Bool => "a boolean",
        JsonKind::Number => "a number",
        JsonKind::String => "a string",
        JsonKind::Array => "an array",
        JsonKind::Object => "an object",
    }
}

/// The probe's answer to a server's request for input: no roots, a canned sampling reply,
/// a declined elicitation. Returns the result and a note for the report.
fn canned_answer(method: Method, params: Option<Json<'_>>) -> Option<(&'static str, String)> {
    match method {
        Method::RootsList => Some((r#"{"roots":[]}"#, "answered: no roots".into())),
        Method::SamplingCreateMessage => {
            let prompt = params
                .and_then(|p| p.get("messages"))
                .and_then(|m| m.elements().last())
                .and_then(|m| m.get("content"))
                .and_then(|c| string_member(c, "text"))
                .map(|t| format!(" to {:?}", clip(&t, 50)))
                .unwrap_or_default();
            Some((
                SAMPLING_RESULT,
                format!("answered: canned assistant text{prompt}"),
            ))
        }
        Method::ElicitationCreate => {
            let message = params
                .and_then(|p| string_member(p, "message"))
                .unwrap_or_default();
            Some((
                ELICITATION_RESULT,
                format!("declined {:?}", clip(&message, 60)),
            ))
        }
        _ => None,
    }
}

/// A URI from an RFC 6570 template with every expression (`{id}`, `{+path}`, `{?q}`...)
/// replaced by `value`; a query or fragment expression becomes nothing.
fn expand_template(template: &str, value: &str) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let Some(close) = rest[open..].find('}') else {
            out.push_str(&rest[open..]);
            return out;
        };
        let expr = &rest[open + 1..open + close];
        if !matches!(expr.chars().next(), Some('?' | '&' | '#')) {
            out.push_str(value);
        }
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    out
}

/// An error answer to a call with generated arguments: the arguments may well be what
/// the server objects to, so it is not held against it (except -32601 for a method the
/// server declared).
fn refused(arguments: &str, code: i64, message: &str) -> Outcome {
    Outcome::Skipped(format!(
        "the server refused the generated arguments {arguments}: error {code}: {}",
        clip(message, 80)
    ))
}

/// 2026-07-28: what is wrong with the caching members every cacheable result (discover,
/// the lists, `resources/read`) must carry, if anything.
fn cache_problem(r: Json<'_>) -> Option<String> {
    let ttl_ok = r.get("ttlMs").and_then(|t| t.as_u64()).is_some();
    let scope = r.get("cacheScope").and_then(|s| s.as_str());
    let scope_ok = scope.is_some_and(|s| s.eq_str("public") || s.eq_str("private"));
    match (ttl_ok, scope_ok) {
        (true, true) => None,
        (false, _) => {
            Some("the result lacks ttlMs (an integer >= 0), required on cacheable results".into())
        }
        (_, false) => Some("the result lacks cacheScope (\"public\" or \"private\")".into()),
    }
}

/// Compares a `subscriptions/listen` acknowledgement with the filter asked for: the
/// server may drop types, never add them.
fn judge_ack(asked: &str, acknowledged: &str) -> Outcome {
    let asked = parse_json(asked).map(filter_entries).unwrap_or_default();
    let acked = parse_json(acknowledged)
        .map(filter_entries)
        .unwrap_or_default();
    let extra: Vec<&String> = acked.iter().filter(|a| !asked.contains(a)).collect();
    if !extra.is_empty() {
        return Outcome::Failed(format!("acknowledged what was not asked for: {extra:?}"));
    }
    let dropped: Vec<&String> = asked.iter().filter(|a| !acked.contains(a)).collect();
    let dropped = if dropped.is_empty() {
        String::new()
    } else {
        format!("; dropped {dropped:?}")
    };
    Outcome::Ok(format!("acknowledged {}{dropped}", acked.join(", ")))
}

/// The entries of a subscription filter: `toolsListChanged`, `resourceSubscriptions[uri]`.
fn filter_entries(filter: Json<'_>) -> Vec<String> {
    let mut entries = Vec::new();
    for (key, value) in filter.members() {
        if value.as_bool() == Some(true) {
            entries.push(key.to_string());
        }
        for item in value.elements() {
            let item = item
                .as_str()
                .map_or_else(|| item.as_raw().to_owned(), |s| s.to_string());
            entries.push(format!("{key}[{item}]"));
        }
    }
    entries
}

/// Turns a reply into an outcome; `check` judges a successful result.
fn judge(reply: Reply, timeout_ms: u64, check: impl FnOnce(Json<'_>) -> Outcome) -> Outcome {
    match reply {
        Reply::Result(text) => match parse_json(&text) {
            Ok(result) => check(result),
            Err(e) => Outcome::Failed(format!("unreadable result: {e}")),
        },
        Reply::Error { code, message } => {
            Outcome::Failed(format!("error {code}: {}", clip(&message, 100)))
        }
        Reply::TimedOut => Outcome::Failed(format!("no answer within {timeout_ms} ms (cancelled)")),
        Reply::Invalid(result) => {
            Outcome::Failed(format!("invalid result: {}", clip(&result, 100)))
        }
        Reply::Abandoned(why) => Outcome::Failed(why),
        Reply::Refused(SendError::NotInVersion(_)) => {
            Outcome::Skipped("skipped: not part of the negotiated revision".into())
        }
        Reply::Refused(SendError::NotNegotiated(_)) => {
            Outcome::Skipped("skipped: not declared".into())
        }
        Reply::Refused(SendError::WrongPhase(Phase::Closed)) => {
            Outcome::Skipped("skipped: the connection is closed".into())
        }
        Reply::Refused(e) => Outcome::Skipped(format!("skipped: {e}")),
        Reply::Ended => Outcome::Failed("the connection closed before the answer".into()),
    }
}

// ---- what the server offers ----

/// A tool from `tools/list`, with the arguments the probe would call it with.
struct Tool {
    name: String,
    description: String,
    /// Parameter names, required ones marked `*`.
    params: String,
    /// Generated arguments (a JSON object), or why none could be generated.
    arguments: Result<String, String>,
    output_schema: bool,
    /// `execution.taskSupport` is `required` (2025-11-25): a plain call must fail.
    task_required: bool,
}

impl Tool {
    fn parse(raw: &str) -> Option<Tool> {
        let tool = parse_json(raw).ok()?;
        let schema = tool.get("inputSchema")?;
        let required = required_names(schema);
        let params = schema
            .get("properties")
            .map(|p| {
                p.members()
                    .map(|(k, _)| mark_required(&k.to_string(), &required))
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .unwrap_or_default();
        let task = tool
            .get("execution")
            .and_then(|e| e.get("taskSupport"))
            .and_then(|t| t.as_str());
        Some(Tool {
            name: string_member(tool, "name")?,
            description: first_line(&string_member(tool, "description").unwrap_or_default()),
            params,
            arguments: generate_arguments(schema),
            output_schema: tool.get("outputSchema").is_some_and(|s| s.is_object()),
            task_required: task.is_some_and(|t| t.eq_str("required")),
        })
    }
}

/// A prompt from `prompts/list`.
struct Prompt {
    name: String,
    description: String,
    params: String,
    required: Vec<String>,
}

impl Prompt {
    fn parse(raw: &str) -> Option<Prompt> {
        let prompt = parse_json(raw).ok()?;
        let mut all = Vec::new();
        let mut required = Vec::new();
        for arg in prompt
            .get("arguments")
            .map(|a| a.elements())
            .into_iter()
            .flatten()
        {
            let Some(name) = string_member(arg, "name") else {
                continue;
            };
            if arg.get("required").and_then(|r| r.as_bool()) == Some(true) {
                required.push(name.clone());
            }
            all.push(name);
        }
        Some(Prompt {
            name: string_member(prompt, "name")?,
            description: first_line(&string_member(prompt, "description").unwrap_or_default()),
            params: all
                .iter()
                .map(|a| mark_required(a, &required))
                .collect::<Vec<_>>()
                .join(", "),
            required,
        })
    }
}

/// A fixed call of a demo server tool, and what its result must be.
struct DemoCase {
    tool: &'static str,
    arguments: &'static str,
    /// Progress notifications expected.
    progress: usize,
    expect: fn(&ToolResult) -> Result<(), String>,
}

const DEMO_CASES: [DemoCase; 3] = [
    DemoCase {
        tool: "echo",
        arguments: r#"{"text":"hello"}"#,
        progress: 0,
        expect: expect_echo,
    },
    DemoCase {
        tool: "add",
        arguments: r#"{"a":1,"b":2}"#,
        progress: 0,
        expect: expect_sum,
    },
    DemoCase {
        tool: "sleep",
        arguments: r#"{"ms":10,"steps":2}"#,
        progress: 2,
        expect: expect_slept,
    },
];

fn expect_text(res: &ToolResult, want: &str) -> Result<(), String> {
    match &res.text {
        Some(t) if t == want => Ok(()),
        Some(t) => Err(format!("expected the text {want:?}, got {:?}", clip(t, 60))),
        None => Err("expected a text block".into()),
    }
}

fn expect_echo(res: &ToolResult) -> Result<(), String> {
    expect_text(res, "hello")
}

fn expect_slept(res: &ToolResult) -> Result<(), String> {
    expect_text(res, "slept")
}

/// `{"sum":3}` as structured content, or as the text block where structured content does
/// not exist (before 2025-06-18).
fn expect_sum(res: &ToolResult) -> Result<(), String> {
    let json = res
        .structured
        .as_deref()
        .or(res.text.as_deref())
        .unwrap_or("");
    let sum = parse_json(json)
        .ok()
        .and_then(|s| s.get("sum"))
        .and_then(|s| s.as_f64());
    match sum {
        Some(s) if (s - 3.0).abs() < 1e-9 => Ok(()),
        Some(s) => Err(format!("expected the sum 3, got {s}")),
        None => Err("expected {\"sum\":3} as structuredContent or text".into()),
    }
}

/// The `type` of every content block the revisions define.
const CONTENT_TYPES: [&str; 5] = ["text", "image", "audio", "resource", "resource_link"];

/// The parts of a `CallToolResult` the probe looks at.
struct ToolResult {
    is_error: bool,
    summary: String,
    /// The first block's text, when it is a text block.
    text: Option<String>,
    structured: Option<String>,
}

impl ToolResult {
    fn parse(r: Json<'_>) -> Result<ToolResult, String> {
        let content = r
            .get("content")
            .filter(|c| c.kind() == JsonKind::Array)
            .ok_or_else(|| "the result has no `content` array".to_string())?;
        let blocks: Vec<Json<'_>> = content.elements().collect();
        for (i, block) in blocks.iter().enumerate() {
            match block_type(*block) {
                Some(ty) if CONTENT_TYPES.contains(&ty.as_str()) => {}
                Some(ty) => {
                    return Err(format!(
                        "content block {i} has the unknown type `{}`",
                        clip(&ty, 40)
                    ));
                }
                None => return Err(format!("content block {i} has no `type` string")),
            }
        }
        let is_error = r.get("isError").and_then(|e| e.as_bool()) == Some(true);
        let structured = r.get("structuredContent").map(|s| s.as_raw().to_owned());
        let mut parts: Vec<String> = blocks.iter().take(3).map(|b| describe_block(*b)).collect();
        if blocks.len() > 3 {
            parts.push(format!("+{} more", blocks.len() - 3));
        }
        if blocks.is_empty() {
            parts.push("no content".into());
        }
        if structured.is_some() {
            parts.push("structuredContent".into());
        }
        let summary = format!(
            "{}{}",
            if is_error { "isError: " } else { "" },
            parts.join(", ")
        );
        let text = blocks
            .first()
            .filter(|b| block_type(**b).as_deref() == Some("text"))
            .and_then(|b| string_member(*b, "text"));
        Ok(ToolResult {
            is_error,
            summary,
            text,
            structured,
        })
    }
}

/// Generates arguments for the required parameters of an input schema: the `const` or
/// first `enum` value when there is one, else "hello" for strings, 1 for numbers (moved
/// into `minimum..maximum`) and `true` for booleans.
fn generate_arguments(schema: Json<'_>) -> Result<String, String> {
    let props = schema.get("properties");
    let mut values = Vec::new();
    for name in required_names(schema) {
        let prop = props
            .and_then(|p| p.get(&name))
            .ok_or_else(|| format!("required `{name}` has no schema"))?;
        let value =
            generate_value(prop).ok_or_else(|| format!("cannot generate a value for `{name}`"))?;
        values.push((name, value));
    }
    let text = json_text(|w| {
        w.begin_object();
        for (name, value) in &values {
            w.key(name);
            match parse_json(value) {
                Ok(v) => w.raw(v),
                Err(_) => w.null(),
            }
        }
        w.end_object();
    });
    Ok(text)
}

/// One generated value as JSON text.
fn generate_value(prop: Json<'_>) -> Option<String> {
    if let Some(c) = prop.get("const") {
        return Some(c.as_raw().to_owned());
    }
    if let Some(first) = prop.get("enum").and_then(|e| e.elements().next()) {
        return Some(first.as_raw().to_owned());
    }
    let ty = match prop.get("type") {
        Some(t) if t.kind() == JsonKind::Array => t
            .elements()
            .find(|t| !t.as_str().is_some_and(|s| s.eq_str("null")))?,
        Some(t) => t,
        None => return prop.get("default").map(|d| d.as_raw().to_owned()),
    };
    let ty = ty.as_str()?.to_string();
    let bound = |key: &str| prop.get(key).and_then(|v| v.as_f64());
    match ty.as_str() {
        "string" => Some("\"hello\"".into()),
        "boolean" => Some("true".into()),
        "number" | "integer" => {
            let mut n = 1.0_f64;
            if let Some(min) = bound("minimum").filter(|m| n < *m) {
                n = if ty == "integer" { min.ceil() } else { min };
            }
            if let Some(max) = bound("maximum").filter(|m| n > *m) {
                n = if ty == "integer" { max.floor() } else { max };
            }
            Some(json_text(|w| w.f64(n)))
        }
        _ => prop.get("default").map(|d| d.as_raw().to_owned()),
    }
}

fn required_names(schema: Json<'_>) -> Vec<String> {
    schema
        .get("required")
        .map(|r| {
            r.elements()
                .filter_map(|n| n.as_str())
                .map(|n| n.to_string())
                .collect()
        })
        .unwrap_or_default()
}

fn mark_required(name: &str, required: &[String]) -> String {
    if required.iter().any(|r| r == name) {
        format!("{name}*")
    } else {
        name.to_string()
    }
}

// ---- describing what came back ----

fn block_type(block: Json<'_>) -> Option<String> {
    string_member(block, "type")
}

fn describe_block(block: Json<'_>) -> String {
    let ty = block_type(block).unwrap_or_else(|| "untyped".into());
    let base64_len = |key: &str| {
        block
            .get(key)
            .and_then(|d| d.as_str())
            .map_or(0, |d| d.raw().len())
    };
    match ty.as_str() {
        "text" => format!(
            "text {:?}",
            clip(&string_member(block, "text").unwrap_or_default(), 50)
        ),
        "image" | "audio" => {
            let mime = string_member(block, "mimeType").unwrap_or_default();
            format!("{ty} {mime} ({} bytes of base64)", base64_len("data"))
        }
        "resource" => {
            let uri = block
                .get("resource")
                .and_then(|r| string_member(r, "uri"))
                .unwrap_or_default();
            format!("resource {uri}")
        }
        "resource_link" => format!("link {}", string_member(block, "uri").unwrap_or_default()),
        other => format!("{other} block"),
    }
}

/// Judges a `resources/read` result: a `contents` array of text or blob items.
fn summarize_contents(r: Json<'_>) -> Outcome {
    let Some(contents) = r.get("contents").filter(|c| c.kind() == JsonKind::Array) else {
        return Outcome::Failed("the result has no `contents` array".into());
    };
    let mut parts = Vec::new();
    for item in contents.elements() {
        let mime = string_member(item, "mimeType")
            .map(|m| format!("{m}, "))
            .unwrap_or_default();
        let part = match (
            item.get("text").and_then(|t| t.as_str()),
            item.get("blob").and_then(|b| b.as_str()),
        ) {
            (Some(text), None) => format!("{mime}{} bytes of text", text.decoded_len()),
            (None, Some(blob)) => format!("{mime}{} bytes of base64", blob.raw().len()),
            _ => return Outcome::Failed("a content item has neither `text` nor `blob`".into()),
        };
        if item.get("uri").is_none() {
            return Outcome::Failed("a content item has no `uri`".into());
        }
        parts.push(part);
    }
    match parts.len() {
        0 => Outcome::Ok("no contents".into()),
        1 => Outcome::Ok(parts.remove(0)),
        n => Outcome::Ok(format!("{}: {}", count(n, "item"), parts.join("; "))),
    }
}

/// Judges a `prompts/get` result: a `messages` array of `{role, content}`.
fn summarize_messages(r: Json<'_>) -> Outcome {
    let Some(messages) = r.get("messages").filter(|m| m.kind() == JsonKind::Array) else {
        return Outcome::Failed("the result has no `messages` array".into());
    };
    let all: Vec<Json<'_>> = messages.elements().collect();
    if let Some(i) = all
        .iter()
        .position(|m| m.get("role").is_none() || m.get("content").is_none())
    {
        return Outcome::Failed(format!("message {i} lacks `role` or `content`"));
    }
    let first = all.first().map(|m| {
        let role = string_member(*m, "role").unwrap_or_default();
        let content = m.get("content").map(describe_block).unwrap_or_default();
        format!(", first: {role} {content}")
    });
    Outcome::Ok(format!(
        "{}{}",
        count(all.len(), "message"),
        first.unwrap_or_default()
    ))
}

fn describe_resource(raw: &str, uri_key: &str) -> String {
    let Ok(r) = parse_json(raw) else {
        return raw.to_string();
    };
    let uri = string_member(r, uri_key).unwrap_or_default();
    let name = string_member(r, "name").unwrap_or_default();
    let mime = string_member(r, "mimeType")
        .map(|m| format!("  {m}"))
        .unwrap_or_default();
    format!("{uri}  {name}{mime}")
}

fn describe_notification(method: Method, params: Option<&str>) -> String {
    let params = params.and_then(|p| parse_json(p).ok());
    match (method, params) {
        (Method::LogMessage, Some(p)) => {
            let level = string_member(p, "level").unwrap_or_default();
            let logger = string_member(p, "logger")
                .map(|l| format!(" {l}"))
                .unwrap_or_default();
            let data = p.get("data").map(|d| {
                d.as_str()
                    .map_or_else(|| d.as_raw().to_owned(), |s| s.to_string())
            });
            format!(
                "← log [{level}]{logger}: {}",
                clip(&data.unwrap_or_default(), 80)
            )
        }
        (Method::ResourcesUpdated, Some(p)) => {
            format!("← {method} {}", string_member(p, "uri").unwrap_or_default())
        }
        _ => format!("← {method}"),
    }
}

fn describe_violation(v: Violation, ready: bool, version: Option<ProtocolVersion>) -> String {
    match v {
        Violation::Malformed { kind, replied } => {
            let replied = replied
                .map(|c| format!("; the probe answered {c}"))
                .unwrap_or_default();
            format!(
                "sent a line that is not a valid message ({}){replied}",
                kind.message()
            )
        }
        Violation::LineTooLong { limit } => format!("sent a line longer than {limit} bytes"),
        Violation::UnknownMethod => {
            "sent a request for a method that does not exist (answered -32601)".into()
        }
        Violation::NotNegotiated(m) if !ready => {
            format!(
                "sent {m} before the handshake finished (only logging and ping may come that early)"
            )
        }
        Violation::NotNegotiated(m) if version.is_some_and(|v| !m.exists_in(v)) => {
            let v = version.map_or("", |v| v.as_str());
            format!("sent {m}, which does not exist in the negotiated revision {v}")
        }
        Violation::NotNegotiated(m) => {
            format!("sent {m}, which needs a capability that was not negotiated")
        }
        Violation::NotInitialized(m) => format!("sent {m} before the handshake"),
        Violation::DuplicateRequestId => "reused the id of a request still in flight".into(),
        Violation::TooManyRequests => "sent more concurrent requests than the probe accepts".into(),
        Violation::InvalidParams(m) => format!("sent {m} with invalid params"),
        Violation::UnknownResponseId => "answered a request the probe never sent".into(),
        Violation::UncorrelatedError { code } => {
            format!(
                "sent an error without an id (code {code}): it could not read something the probe sent"
            )
        }
        Violation::BatchNotAllowed => {
            "sent a JSON-RPC batch, which the negotiated revision does not allow".into()
        }
        Violation::ProgressNotIncreasing => "sent a progress value that did not increase".into(),
        other => format!("{other:?}"),
    }
}

fn describe_close(reason: CloseReason, timeout_ms: u64) -> String {
    match reason {
        CloseReason::PeerClosed => "the server closed its output".into(),
        CloseReason::UnsupportedVersion => {
            "the server chose a protocol revision the probe does not support".into()
        }
        CloseReason::InitializeRejected { code } => {
            format!("the server answered initialize with error {code}")
        }
        CloseReason::InitializeTimedOut => {
            format!("no answer to initialize within {timeout_ms} ms")
        }
        CloseReason::PeerClosedDuringProbe => {
            "the server exited on the server/discover probe (and again after a restart)".into()
        }
        CloseReason::NoCommonVersion => {
            "the server supports no protocol revision the probe speaks".into()
        }
        other => format!("{other:?}"),
    }
}

/// ` (2 progress notifications, 1 input round)`, or nothing.
fn progress_note(progress: usize, input_rounds: usize) -> String {
    let mut parts = Vec::new();
    if progress > 0 {
        parts.push(count(progress, "progress notification"));
    }
    if input_rounds > 0 {
        parts.push(count(input_rounds, "input round"));
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!(" ({})", parts.join(", "))
    }
}

/// `3 tools`, `1 tool`.
fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

fn failed_note<E: std::fmt::Display>(r: Result<(), E>) -> String {
    r.err()
        .map(|e| format!(" (could not answer: {e})"))
        .unwrap_or_default()
}

/// What `initialize` told about the server.
#[derive(Default)]
struct ServerInfo {
    name: String,
    version: String,
    title: Option<String>,
    protocol: String,
    /// The revision is 2026-07-28 (`server/discover`, no `initialize`).
    modern: bool,
    /// The capabilities object as sent.
    capabilities: String,
    instructions: Option<String>,
    /// What is wrong with the `initialize` or `server/discover` result, if anything.
    problem: Option<String>,
}

impl ServerInfo {
    /// From the `initialize` result (legacy) or the `server/discover` result (2026-07-28),
    /// where the identity is `_meta["io.modelcontextprotocol/serverInfo"]` (a top-level
    /// `serverInfo`, as pre-release servers send it, is accepted too).
    fn from_negotiated(version: ProtocolVersion, result: &str) -> ServerInfo {
        let modern = !version.is_legacy();
        let r = parse_json(result).ok();
        let meta_info = r
            .and_then(|r| r.get("_meta"))
            .and_then(|m| m.get(SERVER_INFO_KEY));
        let info = meta_info.or_else(|| r.and_then(|r| r.get("serverInfo")));
        let is_string = |key: &str| {
            info.and_then(|i| i.get(key))
                .is_some_and(|v| v.kind() == JsonKind::String)
        };
        let has_caps = r
            .and_then(|r| r.get("capabilities"))
            .is_some_and(|c| c.is_object());
        let problem = if !has_caps {
            Some("the result lacks the capabilities object".to_string())
        } else if modern {
            r.and_then(cache_problem)
        } else if !is_string("name") || !is_string("version") {
            Some("the result lacks serverInfo.name or serverInfo.version".to_string())
        } else {
            None
        };
        ServerInfo {
            problem,
            name: info
                .and_then(|i| string_member(i, "name"))
                .unwrap_or_default(),
            version: info
                .and_then(|i| string_member(i, "version"))
                .unwrap_or_default(),
            title: info.and_then(|i| string_member(i, "title")),
            protocol: version.as_str().to_owned(),
            modern,
            capabilities: r
                .and_then(|r| r.get("capabilities"))
                .map_or("{}".into(), |c| c.as_raw().to_owned()),
            instructions: r.and_then(|r| string_member(r, "instructions")),
        }
    }

    /// The server is one of our demo servers (`picomcp-demo-<lang>`).
    fn is_demo(&self) -> bool {
        self.name.starts_with("picomcp-demo")
    }
}

/// `{"tools":{"listChanged":true},"logging":{}}` → `tools(listChanged) logging`.
fn summarize_capabilities(caps: &str) -> String {
    let Ok(caps) = parse_json(caps) else {
        return caps.to_string();
    };
    let parts: Vec<String> = caps
        .members()
        .map(|(key, value)| {
            let subs: Vec<String> = value
                .members()
                .filter(|(_, v)| v.as_bool() != Some(false))
                .map(|(k, _)| k.to_string())
                .collect();
            if subs.is_empty() {
                key.to_string()
            } else {
                format!("{key}({})", subs.join(", "))
            }
        })
        .collect();
    if parts.is_empty() {
        "(none)".into()
    } else {
        parts.join(" ")
    }
}

// ---- the report ----

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mark {
    Ok,
    Failed,
    Skipped,
    /// Not a check: something the server offers.
    Info,
}

/// The result of one check.
enum Outcome {
    Ok(String),
    Failed(String),
    Skipped(String),
}

struct Line {
    mark: Mark,
    name: String,
    detail: String,
    ms: Option<f64>,
}

struct Section {
    title: &'static str,
    lines: Vec<Line>,
}

impl Section {
    /// The width of the name column: the longest check name, up to [`NAME_WIDTH`].
    fn name_width(&self) -> usize {
        let checks = self.lines.iter().filter(|l| l.mark != Mark::Info);
        checks
            .map(|l| l.name.chars().count())
            .max()
            .unwrap_or(0)
            .min(NAME_WIDTH)
    }
}

/// Everything the probe found, printed at the end as text or JSON.
#[derive(Default)]
struct Report {
    command: Vec<String>,
    server: ServerInfo,
    sections: Vec<Section>,
    /// Server notifications and requests, in order.
    traffic: Capped,
    violations: Capped,
    /// Why the connection ended early, if it did.
    closed: Option<String>,
    tools: Vec<String>,
    resources: Vec<String>,
    prompts: Vec<String>,
    /// The tail of the server's stderr (kept only when the probe failed).
    stderr: Vec<String>,
}

/// A list that keeps its first [`MAX_KEPT`] entries and counts all of them.
#[derive(Default)]
struct Capped {
    kept: Vec<String>,
    total: usize,
}

impl Capped {
    fn push(&mut self, entry: String) {
        self.total += 1;
        if self.kept.len() < MAX_KEPT {
            self.kept.push(entry);
        }
    }

    fn len(&self) -> usize {
        self.total
    }

    fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// Entries counted but not kept.
    fn dropped(&self) -> usize {
        self.total - self.kept.len()
    }
}

struct Totals {
    checks: usize,
    ok: usize,
    failed: usize,
    skipped: usize,
    violations: usize,
}

impl Totals {
    fn passed(&self) -> bool {
        self.failed == 0 && self.violations == 0
    }
}

impl Report {
    /// Starts a section (or continues the last one if it has this title).
    fn section(&mut self, title: &'static str) -> &mut Self {
        if self.sections.last().is_none_or(|s| s.title != title) {
            self.sections.push(Section {
                title,
                lines: Vec::new(),
            });
        }
        self
    }

    fn push(&mut self, line: Line) {
        if self.sections.is_empty() {
            self.section("checks");
        }
        if let Some(s) = self.sections.last_mut() {
            s.lines.push(line);
        }
    }

    fn check(&mut self, name: impl Into<String>, outcome: Outcome, ms: Option<f64>) {
        let (mark, detail) = match outcome {
            Outcome::Ok(d) => (Mark::Ok, d),
            Outcome::Failed(d) => (Mark::Failed, d),
            Outcome::Skipped(d) => (Mark::Skipped, d),
        };
        let ms = ms.filter(|_| mark != Mark::Skipped);
        self.push(Line {
            mark,
            name: name.into(),
            detail,
            ms,
        });
    }

    fn info(&mut self, text: String) {
        self.push(Line {
            mark: Mark::Info,
            name: text,
            detail: String::new(),
            ms: None,
        });
    }

    fn lines(&self) -> impl Iterator<Item = (&'static str, &Line)> {
        self.sections
            .iter()
            .flat_map(|s| s.lines.iter().map(move |l| (s.title, l)))
    }

    fn totals(&self) -> Totals {
        let count = |m: Mark| self.lines().filter(|(_, l)| l.mark == m).count();
        let (ok, failed, skipped) = (count(Mark::Ok), count(Mark::Failed), count(Mark::Skipped));
        Totals {
            checks: ok + failed,
            ok,
            failed,
            skipped,
            violations: self.violations.len(),
        }
    }

    fn to_text(&self, totals: &Totals) -> String {
        let mut out = String::new();
        let mut line = |s: String| {
            out.push_str(&s);
            out.push('\n');
        };
        line(format!(
            "picomcp-probe {}: {}",
            env!("CARGO_PKG_VERSION"),
            self.command.join(" ")
        ));
        let s = &self.server;
        if !s.name.is_empty() {
            let title = s.title.as_ref().map(|t| format!("({t})"));
            let parts: Vec<&str> = [
                Some(s.name.as_str()),
                Some(s.version.as_str()),
                title.as_deref(),
            ]
            .into_iter()
            .flatten()
            .filter(|p| !p.is_empty())
            .collect();
            line(format!("server        {}", parts.join(" ")));
            line(format!("protocol      {}", s.protocol));
            line(format!(
                "capabilities  {}",
                summarize_capabilities(&s.capabilities)
            ));
            if let Some(i) = &s.instructions {
                let more = i.lines().count().saturating_sub(1);
                let more = if more > 0 {
                    format!("  (+{more} lines)")
                } else {
                    String::new()
                };
                line(format!("instructions  {}{more}", clip(&first_line(i), 70)));
            }
        }
        for section in &self.sections {
            let width = section.name_width();
            line(String::new());
            line(section.title.to_string());
            for l in &section.lines {
                line(format_line(l, width));
            }
        }
        if let Some(why) = &self.closed {
            line(String::new());
            line(format!("connection ended early: {why}"));
        }
        if !self.traffic.is_empty() {
            line(String::new());
            line(format!("server traffic ({})", self.traffic.len()));
            for t in self.traffic.kept.iter().take(MAX_TRAFFIC) {
                line(format!("  {t}"));
            }
            if self.traffic.len() > MAX_TRAFFIC {
                line(format!("  … {} more", self.traffic.len() - MAX_TRAFFIC));
            }
        }
        if !self.violations.is_empty() {
            line(String::new());
            line(format!("violations ({})", self.violations.len()));
            for v in &self.violations.kept {
                line(format!("  ✗ the server {v}"));
            }
            if self.violations.dropped() > 0 {
                line(format!("  … {} more", self.violations.dropped()));
            }
        }
        if !self.stderr.is_empty() {
            line(String::new());
            line(format!("server stderr (last {} lines)", self.stderr.len()));
            for l in &self.stderr {
                line(format!("  | {l}"));
            }
        }
        line(String::new());
        let skipped = if totals.skipped > 0 {
            format!(", {} skipped", totals.skipped)
        } else {
            String::new()
        };
        line(format!(
            "probe: {}, {} ok, {} failed, {}{skipped}",
            count(totals.checks, "check"),
            totals.ok,
            totals.failed,
            count(totals.violations, "violation")
        ));
        out
    }

    fn to_json(&self, totals: &Totals) -> String {
        let strings = |w: &mut JsonWriter<'_>, key: &str, list: &[String]| {
            w.key(key);
            w.begin_array();
            for s in list {
                w.string(s);
            }
            w.end_array();
        };
        json_text(|w| {
            w.begin_object();
            strings(w, "command", &self.command);
            w.key("server");
            self.server_json(w);
            w.key("checks");
            w.begin_array();
            for (section, l) in self.lines().filter(|(_, l)| l.mark != Mark::Info) {
                w.begin_object();
                w.key("section");
                w.string(section);
                w.key("name");
                w.string(&l.name);
                w.key("status");
                w.string(match l.mark {
                    Mark::Ok => "ok",
                    Mark::Failed => "failed",
                    _ => "skipped",
                });
                w.key("detail");
                w.string(&l.detail);
                if let Some(ms) = l.ms {
                    w.key("ms");
                    w.f64((ms * 1000.0).round() / 1000.0);
                }
                w.end_object();
            }
            w.end_array();
            // The first MAX_KEPT of each; `summary` counts them all.
            strings(w, "traffic", &self.traffic.kept);
            strings(w, "violations", &self.violations.kept);
            w.key("closed");
            match &self.closed {
                Some(c) => w.string(c),
                None => w.null(),
            }
            strings(w, "stderr", &self.stderr);
            w.key("summary");
            w.begin_object();
            for (key, n) in [
                ("traffic", self.traffic.len()),
                ("checks", totals.checks),
                ("ok", totals.ok),
                ("failed", totals.failed),
                ("skipped", totals.skipped),
                ("violations", totals.violations),
            ] {
                w.key(key);
                w.u64(n as u64);
            }
            w.key("passed");
            w.bool(totals.passed());
            w.end_object();
            w.end_object();
        })
    }

    fn server_json(&self, w: &mut JsonWriter<'_>) {
        let s = &self.server;
        let opt = |w: &mut JsonWriter<'_>, key: &str, v: Option<&str>| {
            w.key(key);
            match v {
                Some(v) => w.string(v),
                None => w.null(),
            }
        };
        let list = |w: &mut JsonWriter<'_>, key: &str, items: &[String]| {
            w.key(key);
            w.begin_array();
            for i in items {
                w.string(i);
            }
            w.end_array();
        };
        w.begin_object();
        let known = !s.name.is_empty();
        opt(w, "name", known.then_some(s.name.as_str()));
        opt(w, "version", known.then_some(s.version.as_str()));
        opt(w, "title", s.title.as_deref());
        opt(w, "protocol", known.then_some(s.protocol.as_str()));
        w.key("capabilities");
        match parse_json(&s.capabilities) {
            Ok(c) if known => w.raw(c),
            _ => w.null(),
        }
        opt(w, "instructions", s.instructions.as_deref());
        list(w, "tools", &self.tools);
        list(w, "resources", &self.resources);
        list(w, "prompts", &self.prompts);
        w.end_object();
    }
}

fn format_line(l: &Line, width: usize) -> String {
    let mark = match l.mark {
        Mark::Ok => "✓",
        Mark::Failed => "✗",
        Mark::Skipped => "–",
        Mark::Info => return format!("      {}", l.name).trim_end().to_string(),
    };
    let ms = l.ms.map(format_ms).unwrap_or_default();
    format!("  {mark} {:<width$} {ms:>9}  {}", l.name, l.detail)
        .trim_end()
        .to_string()
}

fn format_ms(ms: f64) -> String {
    if ms < 10.0 {
        format!("{ms:.2} ms")
    } else if ms < 1000.0 {
        format!("{ms:.1} ms")
    } else {
        format!("{:.2} s", ms / 1000.0)
    }
}

// ---- small helpers ----

/// Parses JSON the session already validated (or the probe wrote).
fn parse_json(text: &str) -> Result<Json<'_>, picomcp::json::JsonError> {
    Json::with_max_depth(text, MAX_DEPTH_CAP)
}

/// A string member, decoded.
fn string_member(obj: Json<'_>, key: &str) -> Option<String> {
    obj.get(key).and_then(|v| v.as_str()).map(|s| s.to_string())
}

/// Writes JSON with the core's writer, growing the buffer until it fits.
fn json_text(f: impl Fn(&mut JsonWriter<'_>)) -> String {
    let mut buf = vec![0u8; 1024];
    loop {
        let mut w = JsonWriter::new(&mut buf);
        f(&mut w);
        match w.finish() {
            Ok(n) => {
                buf.truncate(n);
                return String::from_utf8_lossy(&buf).into_owned();
            }
            // `finish` also fails on nesting deeper than the writer tracks; the probe's
            // documents are shallow, so that cannot happen.
            Err(e) if e.required > buf.len() => buf.resize(e.required, 0),
            Err(_) => return "null".into(),
        }
    }
}

/// `  (a, b)`, or nothing for an empty list.
fn paren(list: &str) -> String {
    if list.is_empty() {
        String::new()
    } else {
        format!("  ({list})")
    }
}

fn first_line(s: &str) -> String {
    s.lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim()
        .to_string()
}

/// At most `max` characters on one line, with `…` when cut.
fn clip(s: &str, max: usize) -> String {
    let flat: String = s
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if flat.chars().count() <= max {
        return flat;
    }
    let mut cut: String = flat.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

fn elapsed_ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Result<Args, ArgsError> {
        parse_args(list.iter().map(|s| s.to_string()))
    }

    fn json(text: &str) -> Json<'_> {
        parse_json(text).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    #[test]
    fn template_expansion() {
        assert_eq!(
            expand_template("test://template/{id}/data", "1"),
            "test://template/1/data"
        );
        assert_eq!(expand_template("file:///{+path}{?q,r}", "1"), "file:///1");
        assert_eq!(expand_template("a/{x}/{y}{#frag}", "1"), "a/1/1");
        assert_eq!(expand_template("no-vars", "1"), "no-vars");
        assert_eq!(expand_template("broken/{id", "1"), "broken/{id");
    }

    #[test]
    fn command_line() {
        let a = args(&["--json", "--timeout-ms", "250", "--", "node", "--flag"])
            .ok()
            .unwrap();
        assert!(a.json);
        assert_eq!(a.timeout_ms, 250);
        assert_eq!(a.command, ["node", "--flag"]);
        // The first word that is not an option starts the command.
        let a = args(&["python3", "-m", "server"]).ok().unwrap();
        assert_eq!(a.command, ["python3", "-m", "server"]);
        assert_eq!(a.timeout_ms, DEFAULT_TIMEOUT_MS);
        let a = args(&["--protocol", "2024-11-05"]).ok().unwrap();
        assert_eq!(a.protocol, Some(ProtocolVersion::V2024_11_05));
        assert!(a.command.is_empty());
        for bad in [
            &["--timeout-ms"][..],
            &["--timeout-ms", "0"],
            &["--timeout-ms", "x"],
            &["--bogus"],
            &["--protocol", "1.0"],
        ] {
            assert!(matches!(args(bad), Err(ArgsError::Usage(_))), "{bad:?}");
        }
        assert!(matches!(args(&["-h"]), Err(ArgsError::Help)));
    }

    #[test]
    fn generated_arguments() {
        let schema = json(
            r#"{"type":"object","properties":{
                "s":{"type":"string"},
                "e":{"type":"string","enum":["b","a"]},
                "c":{"const":7},
                "i":{"type":"integer","minimum":5},
                "n":{"type":"number","maximum":0.5},
                "b":{"type":"boolean"},
                "o":{"type":["null","string"]},
                "optional":{"type":"object"}},
              "required":["s","e","c","i","n","b","o"]}"#,
        );
        assert_eq!(
            generate_arguments(schema).unwrap(),
            r#"{"s":"hello","e":"b","c":7,"i":5,"n":0.5,"b":true,"o":"hello"}"#
        );
        assert_eq!(
            generate_arguments(json(r#"{"type":"object"}"#)).unwrap(),
            "{}"
        );
        let nested = json(r#"{"properties":{"cfg":{"type":"object"}},"required":["cfg"]}"#);
        assert!(generate_arguments(nested).unwrap_err().contains("cfg"));
        let undescribed = json(r#"{"properties":{},"required":["x"]}"#);
        assert!(generate_arguments(undescribed).is_err());
    }

    #[test]
    fn tool_results() {
        let r = ToolResult::parse(json(
            r#"{"content":[{"type":"text","text":"hi"},{"type":"image","data":"AAAA","mimeType":"image/png"}],"structuredContent":{"sum":3}}"#,
        ))
        .unwrap();
        assert_eq!(r.text.as_deref(), Some("hi"));
        assert!(!r.is_error);
        assert_eq!(
            r.summary,
            r#"text "hi", image image/png (4 bytes of base64), structuredContent"#
        );
        assert!(expect_sum(&r).is_ok());
        assert!(expect_echo(&r).is_err());
        let e = ToolResult::parse(json(r#"{"content":[],"isError":true}"#)).unwrap();
        assert!(e.is_error && e.summary.starts_with("isError: "));
        assert!(ToolResult::parse(json(r#"{"contents":[]}"#)).is_err());
    }

    #[test]
    fn read_results() {
        let ok = json(r#"{"contents":[{"uri":"a://b","mimeType":"text/plain","text":"h\u00e9"}]}"#);
        assert!(
            matches!(summarize_contents(ok), Outcome::Ok(d) if d == "text/plain, 3 bytes of text")
        );
        for bad in [
            r#"{}"#,
            r#"{"contents":[{"uri":"a://b"}]}"#,
            r#"{"contents":[{"text":"x"}]}"#,
        ] {
            assert!(
                matches!(summarize_contents(json(bad)), Outcome::Failed(_)),
                "{bad}"
            );
        }
        let messages =
            json(r#"{"messages":[{"role":"user","content":{"type":"text","text":"x"}}]}"#);
        assert!(
            matches!(summarize_messages(messages), Outcome::Ok(d) if d == "1 message, first: user text \"x\"")
        );
        assert!(matches!(
            summarize_messages(json(r#"{"messages":[{"role":"user"}]}"#)),
            Outcome::Failed(_)
        ));
    }

    #[test]
    fn modern_rules() {
        assert_eq!(
            cache_problem(json(r#"{"ttlMs":0,"cacheScope":"public"}"#)),
            None
        );
        assert!(cache_problem(json(r#"{"ttlMs":-1,"cacheScope":"public"}"#)).is_some());
        assert!(cache_problem(json(r#"{"ttlMs":10,"cacheScope":"shared"}"#)).is_some());
        let asked = r#"{"toolsListChanged":true,"resourceSubscriptions":["a://b"]}"#;
        assert!(
            matches!(judge_ack(asked, asked), Outcome::Ok(d) if d == "acknowledged toolsListChanged, resourceSubscriptions[a://b]")
        );
        assert!(
            matches!(judge_ack(asked, r#"{"toolsListChanged":true}"#), Outcome::Ok(d) if d.contains("dropped"))
        );
        assert!(matches!(
            judge_ack(asked, r#"{"promptsListChanged":true}"#),
            Outcome::Failed(_)
        ));
        let discover = r#"{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{},"ttlMs":0,"cacheScope":"private","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}}}"#;
        let info = ServerInfo::from_negotiated(ProtocolVersion::V2026_07_28, discover);
        assert!(info.modern && info.problem.is_none());
        assert_eq!((info.name.as_str(), info.version.as_str()), ("s", "1"));
    }

    #[test]
    fn legacy_server_info() {
        let result = r#"{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true},"logging":{}},"serverInfo":{"name":"picomcp-demo-rust","version":"1"}}"#;
        let info = ServerInfo::from_negotiated(ProtocolVersion::V2025_11_25, result);
        assert!(info.is_demo() && !info.modern && info.problem.is_none());
        assert_eq!(
            summarize_capabilities(&info.capabilities),
            "tools(listChanged) logging"
        );
        let nameless =
            ServerInfo::from_negotiated(ProtocolVersion::V2025_11_25, r#"{"capabilities":{}}"#);
        assert!(nameless.problem.is_some());
    }

    #[test]
    fn text_helpers() {
        assert_eq!(clip("a\nb", 10), "a b");
        assert_eq!(clip("abcdef", 4), "abc…");
        assert_eq!(count(1, "tool"), "1 tool");
        assert_eq!(count(2, "tool"), "2 tools");
        assert_eq!(progress_note(0, 0), "");
        assert_eq!(
            progress_note(2, 1),
            " (2 progress notifications, 1 input round)"
        );
        assert_eq!(json_text(|w| w.string("x\"")), r#""x\"""#);
    }

    #[test]
    fn report_totals_and_json() {
        let mut report = Report::default();
        report
            .section("a")
            .check("one", Outcome::Ok("fine".into()), Some(1.0));
        report
            .section("a")
            .check("two", Outcome::Skipped("skipped".into()), None);
        report.info("listed".into());
        report
            .section("b")
            .check("three", Outcome::Failed("bad".into()), Some(2.0));
        report.violations.push("sent garbage".into());
        let totals = report.totals();
        assert_eq!(
            (
                totals.checks,
                totals.ok,
                totals.failed,
                totals.skipped,
                totals.violations
            ),
            (2, 1, 1, 1, 1)
        );
        assert!(!totals.passed());
        let text = report.to_text(&totals);
        assert!(
            text.ends_with("probe: 2 checks, 1 ok, 1 failed, 1 violation, 1 skipped\n"),
            "{text}"
        );
        let out = report.to_json(&totals);
        let out = json(&out);
        assert_eq!(out.get("checks").unwrap().elements().count(), 3);
        assert_eq!(
            out.get("summary")
                .and_then(|s| s.get("passed"))
                .and_then(|p| p.as_bool()),
            Some(false)
        );
    }
}
