//! `picomcp-demo`: the Rust reference demo server.
//!
//! One stdio MCP server that implements the demo contract every picomcp language follows
//! (tools `echo`, `add`, `sleep` and the official conformance fixture); see
//! `examples/README.md`. It is also the model of how a std program drives a
//! [`Session`] with the blocking [`Driver`]:
//!
//! - the core answers `initialize`, `server/discover`, `ping`, `logging/setLevel` and the
//!   subscription requests itself;
//! - everything else arrives as an [`Event`] and is answered in place with
//!   `respond_with`, which writes straight into the transmit queue;
//! - work that takes time (`sleep`, the fixture's delayed logging and progress) never
//!   blocks: it sits in a small table of timers whose earliest deadline is passed to
//!   [`Driver::next`] as `wake`;
//! - questions for the client (`test_sampling`, `test_elicitation*`) are requests to the
//!   client in the legacy era, matched back to the waiting tool call through a small
//!   table keyed by `OutboundId`, and `input_required` results (MRTR) in 2026-07-28.
//!
//! The hot paths (`tools/list`, `tools/call echo` and `add`) allocate nothing: the lists
//! are rendered once at startup and results are written with a `JsonWriter`.
//!
//! stdout carries protocol messages only; diagnostics go to stderr (`--log-level`).

/// Writes a diagnostic line to stderr when `--log-level` lets `$level` through.
macro_rules! diag {
    ($level:ident, $($arg:tt)*) => {
        if $crate::diag::enabled($crate::diag::Level::$level) {
            eprintln!("picomcp-demo: {}: {}", $crate::diag::Level::$level.as_str(), format_args!($($arg)*));
        }
    };
}

mod ask;
mod auth;
mod catalog;
mod content;
mod diag;
mod http;
mod mrtr;
mod tools;

use std::io::Write as _;
use std::process::ExitCode;

use std::sync::OnceLock;

use picomcp::Limits;
use picomcp::error::ErrorCode;
use picomcp::json::Json;
use picomcp::protocol::{Feature, Method, Versions};
use picomcp::server::{Call, Handled, Options, ResultError};
use picomcp::session::{Change, Config, Event, InboundId, RespondError, Session, Storage};
use picomcp_stdio::{Driver, Step};

use ask::Ask;
use tools::Timer;

const NAME: &str = "picomcp-demo-rust";
const VERSION: &str = env!("CARGO_PKG_VERSION");
/// How the core's server layer serves the catalog: the capabilities it derives are
/// `tools`, `resources` (subscribe), `prompts` (all with listChanged), `completions`
/// and `logging`.
const OPTIONS: Options = Options {
    subscribe: true,
    ..Options::DEFAULT
};

/// The core's server layer over the demo's catalog (checked once at start-up).
static LAYER: OnceLock<picomcp::server::Server<'static>> = OnceLock::new();

/// The server layer (set in `main` before the first event).
fn layer() -> picomcp::server::Server<'static> {
    *LAYER.get_or_init(|| {
        picomcp::server::Server::new(catalog::CATALOG, OPTIONS).expect("checked in main")
    })
}
const INSTRUCTIONS: &str = "picomcp demo server (Rust reference). Tools: echo (returns its text), \
add (sums two numbers, structured output), sleep (waits, with progress and cancellation), and the \
MCP conformance fixture (test_* tools and prompts, test:// resources).";

/// Requests from the client we may owe an answer to at once.
const INBOUND_SLOTS: usize = 64;
/// Requests we may have in flight to the client at once.
const OUTBOUND_SLOTS: usize = 16;
/// Timers: one per open request is the most there can be.
const MAX_TIMERS: usize = INBOUND_SLOTS;
/// How often `test://watched-resource` "changes".
const WATCH_PERIOD_MS: u64 = 3000;

const USAGE: &str =
    "usage: picomcp-demo [--max-line BYTES] [--log-level error|warn|info|debug] [--http ADDR]
                    [--auth-issuer URL [--auth-jwks URL] [--auth-resource URL] [--auth-required SCOPES]]

An MCP server on stdin/stdout (newline-delimited JSON-RPC) that exits with status 0 at
the end of its input; with --http, the same server over Streamable HTTP instead.

  --max-line BYTES   longest accepted line or HTTP body (default 1048576)
  --http ADDR        serve http://ADDR/mcp (e.g. 127.0.0.1:8080; bind loopback unless
                     the deployment says otherwise)
  --log-level LEVEL  stderr diagnostics: error, warn, info or debug (default warn)
  --auth-issuer URL  with --http: require OAuth 2.1 Bearer tokens (JWTs) issued by this
                     authorization server; its keys come from its metadata's jwks_uri
  --auth-jwks URL    the JWKS URL instead of discovering it
  --auth-resource URL  this server's canonical URI, the tokens' audience (default
                     http://ADDR/mcp)
  --auth-required SCOPES  scopes every request needs (default \"mcp\"); the tool sleep
                     also needs mcp:admin";

struct Args {
    max_line: usize,
    log_level: diag::Level,
    http: Option<String>,
    auth: auth::AuthArgs,
}

fn parse_args() -> Result<Option<Args>, String> {
    let mut args = Args {
        max_line: Limits::DEFAULT.max_line,
        log_level: diag::Level::Warn,
        http: None,
        auth: auth::AuthArgs::default(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        // Accept both `--flag VALUE` and `--flag=VALUE`.
        let (name, inline) = match flag.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n.to_owned(), Some(v.to_owned())),
            _ => (flag.clone(), None),
        };
        let mut value = || {
            inline
                .clone()
                .or_else(|| it.next())
                .ok_or_else(|| format!("{name} needs a value"))
        };
        match name.as_str() {
            "-h" | "--help" => return Ok(None),
            "--max-line" => {
                let v = value()?;
                let n: usize = v
                    .parse()
                    .map_err(|_| format!("--max-line: not a number of bytes: {v}"))?;
                if !(256..=1 << 30).contains(&n) {
                    return Err(format!(
                        "--max-line must be between 256 and {} bytes",
                        1usize << 30
                    ));
                }
                args.max_line = n;
            }
            "--http" => args.http = Some(value()?),
            "--auth-issuer" => args.auth.issuer = Some(value()?),
            "--auth-jwks" => args.auth.jwks = Some(value()?),
            "--auth-resource" => args.auth.resource = Some(value()?),
            "--auth-required" => args.auth.required = Some(value()?),
            "--log-level" => {
                let v = value()?;
                args.log_level = diag::Level::parse(&v)
                    .ok_or_else(|| format!("--log-level: unknown level {v}"))?;
            }
            _ => return Err(format!("unknown argument {flag}")),
        }
    }
    Ok(Some(args))
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(Some(a)) => a,
        Ok(None) => {
            // `--help` output may go to a closed pipe (`| head`): not worth a panic.
            let _ = writeln!(std::io::stdout(), "{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(msg) => {
            eprintln!("picomcp-demo: {msg}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    diag::set_level(args.log_level);

    let layer = match picomcp::server::Server::new(catalog::CATALOG, OPTIONS) {
        Ok(l) => *LAYER.get_or_init(|| l),
        Err(e) => {
            diag!(Error, "invalid catalog: {e}");
            return ExitCode::FAILURE;
        }
    };
    // 'static: the HTTP server starts sessions with this configuration for its life.
    let caps_buf = Box::leak(Box::new([0u8; picomcp::server::CAPABILITIES_MAX]));
    let caps = match layer.capabilities(caps_buf) {
        Ok(c) => c,
        Err(e) => {
            diag!(Error, "capabilities: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut config = Config::server(NAME, VERSION, caps);
    config.instructions = Some(INSTRUCTIONS);
    // Every revision the core knows; the legacy handshake is answered by the core.
    config.versions = Versions::ALL;
    config.limits = Limits {
        max_line: args.max_line,
        ..Limits::DEFAULT
    };
    // 2026-07-28: the key that seals the fixture's `requestState` (mrtr.rs). Processes
    // that serve one client behind a load balancer must share it (`PICOMCP_STATE_KEY`,
    // 64 hex digits); without it each run draws its own, and a state sealed by another
    // process does not verify.
    let key = match state_key() {
        Ok(key) => key,
        Err(e) => {
            diag!(Error, "{e}");
            return ExitCode::FAILURE;
        }
    };
    config.state_key = Some(&Box::leak(Box::new(key))[..]);
    if let Some(addr) = &args.http {
        return match http::run(addr, config, args.max_line, &args.auth) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                diag!(Error, "cannot serve HTTP on {addr}: {e}");
                ExitCode::FAILURE
            }
        };
    }
    let storage = Storage::owned(
        args.max_line,
        INBOUND_SLOTS,
        OUTBOUND_SLOTS,
        config.info_len(),
    );
    let mut session = match Session::new(&config, storage, 0) {
        Ok(s) => s,
        Err(e) => {
            diag!(Error, "cannot create the session: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut server = Server::new();
    let mut driver = Driver::stdio(args.max_line);
    diag!(
        Info,
        "{NAME} {VERSION} on stdio, max line {} bytes",
        args.max_line
    );

    let mut io_errors = 0;
    loop {
        let wake = server.next_wake(session.is_subscribed(catalog::WATCHED_URI));
        match driver.next(&mut session, wake) {
            Ok(Step::Event { event, now }) => {
                io_errors = 0;
                server.on_event(&mut session, event, now);
                server.tick(&mut session, now);
            }
            Ok(Step::Wake { now }) => {
                io_errors = 0;
                server.tick(&mut session, now);
            }
            Ok(Step::Closed) => break,
            Err(e) => {
                // A read error ends the input (the driver then closes the session); a
                // write error repeats on every call, so give up after a few.
                diag!(Error, "i/o error: {e}");
                io_errors += 1;
                if io_errors > 3 {
                    return ExitCode::FAILURE;
                }
            }
        }
    }

    // End of input. Work already running (sleeps, the fixture's delayed tools) still owes
    // its answer: finish it on its own schedule, then flush and exit.
    while let Some(due) = server.next_timer() {
        let now = driver.now();
        if due > now {
            std::thread::sleep(std::time::Duration::from_millis(due - now));
        }
        server.run_timers(&mut session, driver.now());
        if let Err(e) = driver.flush(&mut session) {
            diag!(Error, "cannot write: {e}");
            return ExitCode::FAILURE;
        }
    }
    if let Err(e) = driver.flush(&mut session) {
        diag!(Error, "cannot write: {e}");
        return ExitCode::FAILURE;
    }
    diag!(Info, "end of input; exiting");
    ExitCode::SUCCESS
}

/// The application state next to the session: everything the core does not track.
struct Server {
    /// Pending delayed work, at most one per open request.
    timers: [Option<Timer>; MAX_TIMERS],
    /// Our requests to the client, each waited on by one tool call.
    asks: [Option<Ask>; OUTBOUND_SLOTS],
    /// When `test://watched-resource` next "changes" (driver milliseconds).
    next_update: u64,
    /// What the caller's token grants (everything without `--auth-issuer`).
    access: picomcp::server::Access<'static>,
    /// The list changes (`test_trigger_*`) this session has announced.
    lists: mrtr::Lists,
}

impl Server {
    fn new() -> Self {
        Server::new_at(0)
    }

    /// A server whose clock starts at `now` (an HTTP session starts at any time).
    fn new_at(now: u64) -> Self {
        Server {
            timers: [None; MAX_TIMERS],
            asks: [None; OUTBOUND_SLOTS],
            next_update: now + WATCH_PERIOD_MS,
            access: picomcp::server::Access::ALL,
            lists: mrtr::Lists::now(),
        }
    }

    fn on_event(&mut self, s: &mut Session<'_>, event: Event<'_>, now: u64) {
        let event = match layer().handle_as(event, &mut s.commands(), self.access) {
            Handled::Answered => return,
            Handled::Call(call) => {
                let id = call.id();
                let (method, result) = match call {
                    Call::Tool(c) => (Method::ToolsCall, self.tools_call(s, c, now)),
                    Call::Read(c) => (Method::ResourcesRead, content::read_resource(s, c)),
                    Call::Prompt(c) => (Method::PromptsGet, content::get_prompt(s, c)),
                    Call::Complete(c) => (Method::CompletionComplete, content::complete(s, c)),
                };
                finish(s, id, method, result);
                return;
            }
            Handled::Event(e) => e,
        };
        match event {
            Event::Request { id, method, .. } => {
                diag!(Debug, "request {method} ({:#x})", id.to_bits());
                // The core answers the protocol's own requests (initialize, ping,
                // logging/setLevel, subscriptions, server/discover) and the layer the
                // catalog's; nothing else is ours.
                let result =
                    s.respond_error(id, ErrorCode::METHOD_NOT_FOUND, "Method not found", None);
                finish(s, id, method, result.map_err(ResultError::from));
            }
            Event::Cancelled { id, reason } => {
                diag!(
                    Debug,
                    "request {:#x} cancelled ({})",
                    id.to_bits(),
                    reason.map_or("no reason".into(), |r| r.to_string())
                );
                self.on_cancelled(s, id);
            }
            Event::Response { id, result } => self.on_answer(s, id, Ok(result)),
            Event::ErrorResponse {
                id, code, message, ..
            } => {
                let text = diag::stack_format!(256, "{message} (error {code})");
                self.on_answer(s, id, Err(text.as_str()));
            }
            Event::TimedOut { id } => {
                self.on_answer(s, id, Err("the client did not answer in time"))
            }
            Event::Negotiated { version, peer } => {
                let info = peer.get("clientInfo").unwrap_or(Json::NULL);
                diag!(Info, "initialize: protocol {version}, client {info}");
            }
            Event::Ready { version } => diag!(Info, "ready at protocol {version}"),
            Event::Notification { method, .. } => diag!(Debug, "notification {method}"),
            Event::Progress { .. } => {}
            Event::PeerViolation(v) => diag!(Info, "peer violation: {v:?}"),
            Event::Closed(reason) => diag!(Info, "session closed: {reason:?}"),
            _ => {}
        }
    }

    /// When the loop must wake up: the earliest timer, or the next watched-resource update
    /// while somebody is subscribed to it (with nothing scheduled the driver reads on its
    /// own thread, which is the fastest path).
    fn next_wake(&self, watched: bool) -> Option<u64> {
        let update = watched.then_some(self.next_update);
        match (self.next_timer(), update) {
            (Some(t), Some(u)) => Some(t.min(u)),
            (t, u) => t.or(u),
        }
    }

    /// Everything that is due at `now`.
    fn tick(&mut self, s: &mut Session<'_>, now: u64) {
        self.run_timers(s, now);
        // List changes another session triggered (over HTTP: a `subscriptions/listen`
        // stream learns of a `test_trigger_*` call here).
        self.lists.catch_up(s);
        if now >= self.next_update {
            // test://watched-resource "changes" every few seconds; the core tells whoever
            // subscribed (resources/subscribe or subscriptions/listen), and nobody else.
            self.next_update = now + WATCH_PERIOD_MS;
            match s.notify(Change::ResourceUpdated(catalog::WATCHED_URI)) {
                Ok(0) => {}
                Ok(n) => diag!(
                    Debug,
                    "{} updated: {n} notification(s)",
                    catalog::WATCHED_URI
                ),
                Err(e) => diag!(
                    Debug,
                    "cannot announce an update of {}: {e}",
                    catalog::WATCHED_URI
                ),
            }
        }
    }
}

/// Reports a failed answer and turns it into an internal error (a result too large for
/// the transmit queue, say), so the client is not left waiting.
fn finish(s: &mut Session<'_>, id: InboundId, method: Method, result: Result<(), ResultError>) {
    match result {
        Ok(()) | Err(ResultError::Respond(RespondError::UnknownRequest)) => {}
        Err(e) => {
            diag!(Warn, "cannot answer {method}: {e}");
            let _ = s.respond_error(
                id,
                ErrorCode::INTERNAL_ERROR,
                "Internal error: cannot send the result",
                None,
            );
        }
    }
}

/// The `requestState` sealing key: `PICOMCP_STATE_KEY` (32 bytes as 64 hex digits), else
/// 32 bytes from the operating system's random source.
fn state_key() -> Result<[u8; 32], String> {
    let mut key = [0u8; 32];
    if let Ok(hex) = std::env::var("PICOMCP_STATE_KEY") {
        let digits = hex.trim().as_bytes();
        let nibble = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
        if digits.len() != 64 {
            return Err("PICOMCP_STATE_KEY must be 64 hex digits (32 bytes)".into());
        }
        for (byte, pair) in key.iter_mut().zip(digits.chunks(2)) {
            match (nibble(pair[0]), nibble(pair[1])) {
                (Some(hi), Some(lo)) => *byte = hi << 4 | lo,
                _ => return Err("PICOMCP_STATE_KEY must be 64 hex digits (32 bytes)".into()),
            }
        }
        return Ok(key);
    }
    use std::io::Read;
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut key))
        .map_err(|e| format!("cannot read /dev/urandom for the state key: {e}"))?;
    Ok(key)
}

/// True when the negotiated revision has `f` (the core's table of what revisions change).
fn has(s: &Session<'_>, f: Feature) -> bool {
    s.version().is_some_and(|v| v.has(f))
}

/// Error and timeout answers to our requests, as text for the waiting tool call.
type Answer<'a> = Result<Json<'a>, &'a str>;
