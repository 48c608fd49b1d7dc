//! `picomcp-probe`: starts an MCP server over stdio (or reaches one over Streamable HTTP
//! with `--url`), connects to it as a client, checks every feature the server declares,
//! answers the server's own requests, and prints a report.
//!
//! ```text
//! picomcp-probe [--timeout-ms N] [--protocol VERSION] [--json] [--pin FILE]
//!               [--lint-results] [--strict-lint] [-- SERVER_CMD ARGS...]
//! picomcp-probe [OPTIONS] --url http://HOST:PORT/PATH [--header NAME:VALUE]...
//!               [--token TOKEN | --oauth [--client-id ID] [--scope S] ...]
//! ```
//!
//! Without a server command it probes the Rust demo server, `picomcp-demo`, found next to
//! this executable. Exit status: 0 when every check passed and the server broke no rule,
//! 1 otherwise, 2 on a usage or spawn error.
//!
//! It doubles as an example of the client role: one
//! [`Session`](picomcp::session::Session) driven by the blocking
//! [`Driver`](picomcp_stdio::Driver) over the child's pipes. Every request goes through
//! [`Session::send_request`](picomcp::session::Session::send_request), so a feature the
//! server did not declare is refused by the session itself, and the probe shows it as
//! skipped.
//!
//! The library holds the whole program (the binary only calls [`run`]), so tests can run
//! the probe in-process.
//!
//! | module | what it holds |
//! |---|---|
//! | `cli` | the command line |
//! | `child` | the server process: pipes, stderr tail, exit after stdin EOF |
//! | `http` | `--url`: the session's pipe over Streamable HTTP (sockets and threads around the core's `http::client`); `--token`, and `--oauth` through `picomcp-oauth` (a 401/403 is authorized, then the POST is sent again) |
//! | `client` | the client loop: one session, requests and whatever arrives meanwhile |
//! | `checks` | one module per check (handshake, ping, logging, tools, resources, prompts, subscriptions) |
//! | `generate` | arguments from a tool's input schema, URIs from templates |
//! | `demo` | the demo contract's fixed tool calls |
//! | `describe` | one-line descriptions of what the server sent |
//! | `lint` | the poisoning lint: rules as data, findings that cite the text |
//! | `pins` | `--pin FILE`: saving and comparing tool pins |
//! | `report` | the report, as text or JSON |

#![forbid(unsafe_code)]
#![warn(missing_docs, elided_lifetimes_in_paths)]

mod checks;
mod child;
mod cli;
mod client;
mod demo;
mod describe;
mod generate;
mod http;
mod lint;
mod pins;
mod report;
mod text;

use std::io::Write;
use std::time::{Duration, Instant};

use child::{DrainOnDrop, EXIT_GRACE, STDERR_TAIL, Server};
use cli::{Args, ArgsError, USAGE, demo_command, parse_args};
use client::Probe;
use report::{Outcome, Report};

/// Runs the probe with the command-line arguments `args` (without the program name):
/// the report goes to `out`, usage and spawn errors to `err`. Returns the exit status:
/// 0 when every check passed and no violation was seen, 1 otherwise, 2 on a usage or
/// spawn error. Write errors on `out` and `err` are ignored (the status still says how
/// the server did).
pub fn run(args: impl Iterator<Item = String>, out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    let args = match parse_args(args) {
        Ok(args) => args,
        Err(ArgsError::Help) => {
            let _ = writeln!(out, "{USAGE}");
            return 0;
        }
        Err(ArgsError::Usage(msg)) => {
            let _ = writeln!(err, "picomcp-probe: {msg}\n\n{USAGE}");
            return 2;
        }
    };
    let pins = match args.pin.as_deref().map(pins::PinFile::load).transpose() {
        Ok(p) => p.flatten(),
        Err(msg) => {
            let _ = writeln!(err, "picomcp-probe: {msg}");
            return 2;
        }
    };
    let done = match &args.url {
        Some(url) => probe_url(&args, url, pins.as_ref()),
        None => probe_command(&args, pins.as_ref()),
    };
    let (mut report, tail) = match done {
        Ok(done) => done,
        Err(msg) => {
            let _ = writeln!(err, "picomcp-probe: {msg}");
            return 2;
        }
    };
    let totals = report.totals();
    report.stderr = if totals.passed() { Vec::new() } else { tail };
    let _ = if args.json {
        writeln!(out, "{}", report.to_json(&totals))
    } else {
        write!(out, "{}", report.to_text(&totals))
    };
    let _ = out.flush();
    if totals.passed() { 0 } else { 1 }
}

/// Probes the server command of `args` (the demo server when there is none) over its
/// stdio; returns the report and the tail of the server's stderr.
fn probe_command(
    args: &Args,
    pins: Option<&pins::PinFile>,
) -> Result<(Report, Vec<String>), String> {
    let command = if args.command.is_empty() {
        demo_command()?
    } else {
        args.command.clone()
    };
    let (mut server, mut report) = probe_server(args, &command, pins)?;
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
    Ok((report, server.stderr_tail(STDERR_TAIL)))
}

/// `--url`: probes a running server over Streamable HTTP, with the same checks as over
/// stdio but the exit after EOF (there is no process; the session ends with DELETE where
/// the server issued a session id). The "stderr" of the report is what happened on the
/// wire that the session could not see (HTTP error statuses, connection errors).
fn probe_url(
    args: &Args,
    url: &str,
    pins: Option<&pins::PinFile>,
) -> Result<(Report, Vec<String>), String> {
    let target = http::Target::parse(url, args.headers.clone())?;
    let auth = match (&args.token, &args.oauth) {
        (Some(t), _) => Some(http::Auth::Static(t.clone())),
        (None, Some(o)) => Some(http::Auth::OAuth(Box::new(std::sync::Mutex::new(
            picomcp_oauth::Authorizer::new(url, o.clone())?,
        )))),
        (None, None) => None,
    };
    let (peer, reader, writer) = http::open(target, auth, Duration::from_millis(args.timeout_ms));
    let mut report = match Probe::new(writer, reader, args, false, Instant::now(), pins) {
        Ok(mut probe) => {
            probe.run();
            probe.finish()
        }
        Err(msg) => connect_failed(args, msg),
    };
    report.command = vec![url.to_string()];
    if let Some((lines, token)) = peer.auth_log() {
        // What `--oauth` did: discovery, registration, authorization, the token (redacted).
        let section = report.section("authorization");
        for line in lines {
            section.info(line);
        }
        let outcome = match token {
            Some(t) => Outcome::Ok(t),
            None => Outcome::Failed("no token was obtained".into()),
        };
        section.check("access token", outcome, None);
    }
    Ok((report, peer.notes(STDERR_TAIL)))
}

/// The report of a session that could not even be created.
fn connect_failed(args: &Args, msg: String) -> Report {
    let mut report = Report {
        strict_lint: args.strict_lint,
        ..Report::default()
    };
    report
        .section("handshake")
        .check("connect", Outcome::Failed(msg), None);
    report
}

/// Starts the server and probes it. A server that exits on the `server/discover` probe
/// (some legacy servers exit on any request before `initialize`) is started once more and
/// probed with the legacy handshake only.
fn probe_server(
    args: &Args,
    command: &[String],
    pins: Option<&pins::PinFile>,
) -> Result<(Server, Report), String> {
    let mut restarted = false;
    loop {
        let started = Instant::now();
        let (mut server, stdin, stdout) = Server::spawn(command)
            .map_err(|e| format!("cannot start `{}`: {e}", command.join(" ")))?;
        let mut probe = match Probe::new(
            stdin,
            DrainOnDrop(Some(stdout)),
            args,
            restarted,
            started,
            pins,
        ) {
            Ok(probe) => probe,
            Err(msg) => return Ok((server, connect_failed(args, msg))),
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
