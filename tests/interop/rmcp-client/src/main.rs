//! Interop client on the OFFICIAL Rust MCP SDK (`rmcp` 3.11.0).
//!
//! ```text
//! rmcp-interop [--mode default|auto] [--timeout-scale N] [--url URL] [--] SERVER_CMD [ARGS...]
//! ```
//!
//! With `--url` (e.g. `http://127.0.0.1:{port}/mcp`) the client speaks Streamable HTTP
//! (rmcp's `StreamableHttpClientTransport` on reqwest): it picks a free port, puts it
//! for `{port}` in the URL and in the server's arguments, starts the server, waits until
//! it listens, and connects to the URL. The same checks run in both modes.
//!
//! The server is spawned with rmcp's child-process transport (`TokioChildProcess`, stdio
//! piped, stderr inherited). The server implements the demo contract
//! (/work/shared/DEMO_SERVER.md) or a subset of it: tools `echo` and `add` always; the
//! resource checks run when it declares the `resources` capability (and lists
//! `test://static-text`), the prompt checks when it declares `prompts` (and lists
//! `test_simple_prompt`). A check whose feature is absent prints
//! `ok - NAME # SKIP REASON`. `--timeout-scale N` multiplies the timeouts (slow servers);
//! the 5 s limit on the auto-mode connect is not scaled.
//!
//! Modes:
//! * `default`: `ServiceExt::serve(transport)` on `()`, i.e. rmcp's legacy lifecycle
//!   (`ClientLifecycleMode::Initialize`) with the default `ClientConfig`. rmcp 3.11 puts
//!   `ProtocolVersion::LATEST` = "2026-07-28" into `initialize`; a legacy or dual-era
//!   server must counter-offer its newest legacy version, and the check is that rmcp
//!   ends up on "2025-11-25".
//! * `auto`: `ClientServiceExt::serve_with_lifecycle(transport, ClientLifecycleMode::Auto
//!   { preferred_versions: ["2026-07-28"], legacy_version: Some("2025-11-25") })`. rmcp
//!   sends `server/discover` first; a DiscoverResult selects the modern era, a
//!   non-modern JSON-RPC error or 10 s of silence falls back to `initialize`. The check
//!   is that "2026-07-28" is negotiated (and that the connect takes less than 5 s).
//!
//! Output: one line per check, `ok - NAME`, `ok - NAME # SKIP REASON` or
//! `not ok - NAME: REASON`, then `N passed, M failed, K skipped`. Exit status 1 if a check
//! failed, 2 on a usage error. The whole run is bounded by a 60 s global timeout; every
//! request has its own 10 s timeout (both times the scale).

use std::future::Future;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequestParams, ClientConfig, GetPromptRequestParams, ProtocolVersion,
    ReadResourceRequestParams,
};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientLifecycleMode, ClientServiceExt, ServiceExt};
use serde_json::{json, Value};

const GLOBAL_TIMEOUT: Duration = Duration::from_secs(60);
const CONNECT_TIMEOUT: Duration = Duration::from_secs(20);
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);
const AUTO_CONNECT_LIMIT: Duration = Duration::from_secs(5);

const MODERN: &str = "2026-07-28";
const LEGACY: &str = "2025-11-25";

/// Unicode, both a quote and a backslash, and a newline: must come back byte for byte.
const ECHO_TEXT: &str = "héllo \"q\" \\ \n";

static PASSED: AtomicUsize = AtomicUsize::new(0);
static FAILED: AtomicUsize = AtomicUsize::new(0);
static SKIPPED: AtomicUsize = AtomicUsize::new(0);
/// `--timeout-scale`, as the bits of an f64 (1.0 unless given).
static SCALE_BITS: AtomicU64 = AtomicU64::new(0x3FF0_0000_0000_0000);

fn scaled(d: Duration) -> Duration {
    d.mul_f64(f64::from_bits(SCALE_BITS.load(Ordering::SeqCst)))
}

fn skip(name: &str, reason: impl AsRef<str>) {
    SKIPPED.fetch_add(1, Ordering::SeqCst);
    println!("ok - {name} # SKIP {}", reason.as_ref().replace('\n', " "));
}

fn ok(name: &str, note: impl AsRef<str>) {
    PASSED.fetch_add(1, Ordering::SeqCst);
    let note = note.as_ref();
    if note.is_empty() {
        println!("ok - {name}");
    } else {
        println!("ok - {name} ({note})");
    }
}

fn fail(name: &str, reason: impl AsRef<str>) {
    FAILED.fetch_add(1, Ordering::SeqCst);
    // Keep one line per check even when the reason has newlines in it.
    let reason = reason.as_ref().replace('\n', "\\n");
    println!("not ok - {name}: {reason}");
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Default,
    Auto,
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Mode::Default => "default",
            Mode::Auto => "auto",
        }
    }
}

const USAGE: &str =
    "rmcp-interop [--mode default|auto] [--timeout-scale N] [--url URL] [--] SERVER_CMD [ARGS...]";

fn usage(msg: &str) -> ExitCode {
    eprintln!("rmcp-interop: {msg}");
    eprintln!("usage: {USAGE}");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let mut mode = Mode::Default;
    let mut server: Vec<String> = Vec::new();
    let mut url: Option<String> = None;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--url" => match args.next() {
                Some(u) => url = Some(u),
                None => return usage("--url needs a value"),
            },
            "--" => {
                server.extend(args.by_ref());
                break;
            }
            "--mode" => match args.next().as_deref() {
                Some("default") => mode = Mode::Default,
                Some("auto") => mode = Mode::Auto,
                Some(other) => return usage(&format!("unknown mode {other:?}")),
                None => return usage("--mode needs a value"),
            },
            "-h" | "--help" => {
                println!("usage: {USAGE}");
                return ExitCode::SUCCESS;
            }
            "--timeout-scale" => match args.next().and_then(|v| v.parse::<f64>().ok()) {
                Some(n) if n > 0.0 && n.is_finite() => {
                    SCALE_BITS.store(n.to_bits(), Ordering::SeqCst)
                }
                _ => return usage("--timeout-scale needs a positive number"),
            },
            s if s.starts_with("--mode=") => match &s["--mode=".len()..] {
                "default" => mode = Mode::Default,
                "auto" => mode = Mode::Auto,
                other => return usage(&format!("unknown mode {other:?}")),
            },
            s if s.starts_with('-') && server.is_empty() => {
                return usage(&format!("unknown option {s}"))
            }
            _ => {
                server.push(arg);
                server.extend(args.by_ref());
                break;
            }
        }
    }
    if server.is_empty() {
        return usage("missing SERVER_CMD");
    }

    let rt = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("rmcp-interop: cannot start the tokio runtime: {e}");
            return ExitCode::from(2);
        }
    };
    rt.block_on(async {
        if tokio::time::timeout(scaled(GLOBAL_TIMEOUT), run(mode, &server, url.as_deref())).await.is_err() {
            fail(
                "global timeout",
                format!("the run took more than {} s", scaled(GLOBAL_TIMEOUT).as_secs()),
            );
        }
        // Let rmcp's clean-up task (spawned when a transport is dropped) kill the child.
        tokio::time::sleep(Duration::from_millis(100)).await;
    });
    // Do not wait for rmcp's background tasks (child clean-up) any longer than this.
    rt.shutdown_timeout(Duration::from_secs(2));

    let (passed, failed) = (PASSED.load(Ordering::SeqCst), FAILED.load(Ordering::SeqCst));
    let skipped = SKIPPED.load(Ordering::SeqCst);
    println!("{passed} passed, {failed} failed, {skipped} skipped");
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// Await `fut` with the per-request timeout; errors become strings.
async fn req<T, E: std::fmt::Display>(
    fut: impl Future<Output = Result<T, E>>,
) -> Result<T, String> {
    match tokio::time::timeout(scaled(REQUEST_TIMEOUT), fut).await {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(e.to_string()),
        Err(_) => Err(format!("no answer within {} s", scaled(REQUEST_TIMEOUT).as_secs())),
    }
}

fn to_json<T: serde::Serialize>(v: &T) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

/// At most `n` characters of `v` as JSON, for failure messages.
fn short(v: &Value, n: usize) -> String {
    let s = v.to_string();
    if s.chars().count() <= n {
        s
    } else {
        format!("{}…", s.chars().take(n).collect::<String>())
    }
}

/// A free port on 127.0.0.1 (bound, read, released: the server takes it next).
fn free_port() -> std::io::Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// Waits until something accepts connections on `port`, or the child exits.
async fn wait_listening(port: u16, child: &mut tokio::process::Child) -> Result<(), String> {
    let deadline = Instant::now() + scaled(CONNECT_TIMEOUT);
    while Instant::now() < deadline {
        if tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_ok() {
            return Ok(());
        }
        if let Ok(Some(status)) = child.try_wait() {
            return Err(format!("the server exited with {status} before listening"));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Err(format!("nothing listened on port {port}"))
}

/// The handshake of `mode` over `transport`.
macro_rules! connect {
    ($mode:expr, $transport:expr) => {
        async {
            match $mode {
                Mode::Default => ().serve($transport).await,
                Mode::Auto => {
                    ()
                        .serve_with_lifecycle(
                            $transport,
                            ClientLifecycleMode::Auto {
                                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                                legacy_version: Some(ProtocolVersion::V_2025_11_25),
                            },
                        )
                        .await
                }
            }
        }
    };
}

async fn run(mode: Mode, server: &[String], url: Option<&str>) {
    // --- premise: what rmcp proposes ------------------------------------------------
    let proposed = ClientConfig::default().protocol_version;
    if mode == Mode::Default {
        if proposed.as_str() == MODERN {
            ok("rmcp default initialize proposes 2026-07-28", "");
        } else {
            fail(
                "rmcp default initialize proposes 2026-07-28",
                format!("this rmcp proposes {proposed}"),
            );
        }
    }

    // --- spawn + handshake ----------------------------------------------------------
    // Over HTTP the server is our child (killed when `_http_server` drops); over stdio
    // rmcp's transport owns it.
    let mut _http_server = None;
    let started;
    let connected = if let Some(url) = url {
        let port = match free_port() {
            Ok(p) => p.to_string(),
            Err(e) => {
                fail("free port", e.to_string());
                return;
            }
        };
        let url = url.replace("{port}", &port);
        let mut cmd = tokio::process::Command::new(&server[0]);
        cmd.args(server[1..].iter().map(|a| a.replace("{port}", &port)));
        cmd.kill_on_drop(true).stdin(std::process::Stdio::null());
        let mut child = match cmd.spawn() {
            Ok(c) => c,
            Err(e) => {
                fail("spawn server", format!("{}: {e}", server[0]));
                return;
            }
        };
        if let Err(e) = wait_listening(port.parse().unwrap_or(0), &mut child).await {
            fail("server listens", e);
            return;
        }
        _http_server = Some(child);
        ok("server listens", &url);
        started = Instant::now();
        let transport = StreamableHttpClientTransport::from_uri(url);
        tokio::time::timeout(scaled(CONNECT_TIMEOUT), connect!(mode, transport)).await
    } else {
        let mut cmd = tokio::process::Command::new(&server[0]);
        cmd.args(&server[1..]);
        // rmcp kills the child from a task spawned in its Drop; if the runtime shuts down
        // first (timeouts, failed handshake) that task never runs. kill_on_drop makes tokio
        // send SIGKILL synchronously when the child handle is finally dropped.
        cmd.kill_on_drop(true);
        let transport = match TokioChildProcess::new(cmd) {
            Ok(t) => t,
            Err(e) => {
                fail("spawn server", format!("{}: {e}", server[0]));
                return;
            }
        };
        started = Instant::now();
        tokio::time::timeout(scaled(CONNECT_TIMEOUT), connect!(mode, transport)).await
    };
    let client: RunningService<RoleClient, ()> =
        match connected {
            Ok(Ok(c)) => c,
            Ok(Err(e)) => {
                fail(&format!("handshake ({} mode)", mode.name()), e.to_string());
                return;
            }
            Err(_) => {
                fail(
                    &format!("handshake ({} mode)", mode.name()),
                    format!("no handshake within {} s", scaled(CONNECT_TIMEOUT).as_secs()),
                );
                return;
            }
        };
    let connect_time = started.elapsed();

    let info = client.peer_info();
    let negotiated = info
        .as_ref()
        .map(|i| i.protocol_version.to_string())
        .unwrap_or_else(|| "<none>".into());
    let server_name = info
        .as_ref()
        .and_then(|i| i.server_info.as_ref())
        .map(|s| format!("{} {}", s.name, s.version))
        .unwrap_or_else(|| "unnamed server".into());
    let handshake = match mode {
        Mode::Default => "handshake: initialize(2026-07-28) → server counter-offers 2025-11-25",
        Mode::Auto => "handshake: server/discover → 2026-07-28",
    };
    let want = if mode == Mode::Default { LEGACY } else { MODERN };
    if negotiated == want {
        ok(
            handshake,
            format!("{server_name}, {:.1} ms", connect_time.as_secs_f64() * 1e3),
        );
    } else {
        fail(handshake, format!("rmcp negotiated {negotiated} ({server_name})"));
    }
    if mode == Mode::Auto {
        // A server that ignores the probe costs rmcp its 10 s discover timeout.
        if connect_time < AUTO_CONNECT_LIMIT {
            ok("auto connect is prompt", format!("{:.1} ms", connect_time.as_secs_f64() * 1e3));
        } else {
            fail(
                "auto connect is prompt",
                format!("took {:.1} s (probe timeout?)", connect_time.as_secs_f64()),
            );
        }
    }

    // What the server declares decides which of the checks below apply.
    let caps = info.as_ref().map(|i| i.capabilities.clone()).unwrap_or_default();

    // --- tools ----------------------------------------------------------------------
    const TOOLS_LIST: &str = "tools/list has echo and add";
    match req(client.list_tools(None)).await {
        Ok(r) => {
            let names: Vec<String> = r.tools.iter().map(|t| t.name.to_string()).collect();
            let missing: Vec<&str> =
                ["echo", "add"].into_iter().filter(|w| !names.iter().any(|n| n == w)).collect();
            if caps.tools.is_none() {
                fail(TOOLS_LIST, "tools/list answered, but no tools capability is declared");
            } else if missing.is_empty() {
                ok(TOOLS_LIST, format!("{} tools: {}", names.len(), names.join(", ")));
            } else {
                fail(TOOLS_LIST, format!("missing {missing:?}; tools: {names:?}"));
            }
        }
        Err(e) => fail(TOOLS_LIST, e),
    }

    let echo_args = json!({ "text": ECHO_TEXT });
    let params = CallToolRequestParams::new("echo")
        .with_arguments(echo_args.as_object().cloned().unwrap_or_default());
    match req(client.call_tool(params)).await {
        Ok(r) => {
            let v = to_json(&r);
            let texts: Vec<&str> = v["content"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter(|c| c["type"] == "text")
                        .filter_map(|c| c["text"].as_str())
                        .collect()
                })
                .unwrap_or_default();
            if r.is_error == Some(true) {
                fail("tools/call echo byte for byte", format!("isError: {}", short(&v, 200)));
            } else if texts.len() == 1 && texts[0].as_bytes() == ECHO_TEXT.as_bytes() {
                ok("tools/call echo byte for byte", "");
            } else {
                fail(
                    "tools/call echo byte for byte",
                    format!("sent {ECHO_TEXT:?}, got text blocks {texts:?}"),
                );
            }
        }
        Err(e) => fail("tools/call echo byte for byte", e),
    }

    let params = CallToolRequestParams::new("add")
        .with_arguments(json!({ "a": 2, "b": 3 }).as_object().cloned().unwrap_or_default());
    match req(client.call_tool(params)).await {
        Ok(r) => match &r.structured_content {
            Some(sc) if *sc == json!({ "sum": 5 }) && r.is_error != Some(true) => {
                ok("tools/call add structuredContent {\"sum\":5}", "")
            }
            _ => fail(
                "tools/call add structuredContent {\"sum\":5}",
                format!("result {}", short(&to_json(&r), 300)),
            ),
        },
        Err(e) => fail("tools/call add structuredContent {\"sum\":5}", e),
    }

    // --- resources ------------------------------------------------------------------
    let mut uris: Vec<String> = Vec::new();
    if caps.resources.is_none() {
        skip("resources/list", "no resources capability declared");
    } else {
        match req(client.list_resources(None)).await {
            Ok(r) => {
                uris = r.resources.iter().map(|x| x.uri.to_string()).collect();
                ok("resources/list", format!("{} resources", uris.len()));
            }
            Err(e) => fail("resources/list", e),
        }
    }
    if caps.resources.is_none() {
        skip("resources/read test://static-text", "no resources capability declared");
    } else if !uris.iter().any(|u| u == "test://static-text") {
        let why = format!("test://static-text not in resources/list ({uris:?})");
        skip("resources/read test://static-text", why);
    } else {
        read_static_text(&client).await;
    }

    // --- prompts --------------------------------------------------------------------
    let mut prompts: Vec<String> = Vec::new();
    if caps.prompts.is_none() {
        skip("prompts/list", "no prompts capability declared");
    } else {
        match req(client.list_prompts(None)).await {
            Ok(r) => {
                prompts = r.prompts.iter().map(|p| p.name.to_string()).collect();
                ok("prompts/list", format!("{} prompts", prompts.len()));
            }
            Err(e) => fail("prompts/list", e),
        }
    }
    if caps.prompts.is_none() {
        skip("prompts/get test_simple_prompt", "no prompts capability declared");
    } else if !prompts.iter().any(|n| n == "test_simple_prompt") {
        let why = format!("test_simple_prompt not in prompts/list ({prompts:?})");
        skip("prompts/get test_simple_prompt", why);
    } else {
        get_simple_prompt(&client).await;
    }

    // --- shutdown: rmcp closes stdin and waits for the child (SIGTERM/kill after 3 s) --
    if let Err(e) = tokio::time::timeout(scaled(Duration::from_secs(10)), client.cancel()).await {
        eprintln!("rmcp-interop: shutdown did not finish: {e}");
    }
}

async fn read_static_text(client: &RunningService<RoleClient, ()>) {
    match req(client.read_resource(ReadResourceRequestParams::new("test://static-text"))).await {
        Ok(r) => {
            let v = to_json(&r);
            let first = &v["contents"][0];
            match (first["uri"].as_str(), first["text"].as_str()) {
                (Some("test://static-text"), Some(t)) if !t.is_empty() => ok(
                    "resources/read test://static-text",
                    format!("{} bytes of text", t.len()),
                ),
                _ => fail(
                    "resources/read test://static-text",
                    format!("result {}", short(&v, 300)),
                ),
            }
        }
        Err(e) => fail("resources/read test://static-text", e),
    }
}

async fn get_simple_prompt(client: &RunningService<RoleClient, ()>) {
    match req(client.get_prompt(GetPromptRequestParams::new("test_simple_prompt"))).await {
        Ok(r) => {
            let v = to_json(&r);
            let has_text = v["messages"]
                .as_array()
                .is_some_and(|m| !m.is_empty() && m[0]["content"]["type"] == "text");
            if has_text {
                ok("prompts/get test_simple_prompt", format!("{} message(s)", r.messages.len()));
            } else {
                fail("prompts/get test_simple_prompt", format!("result {}", short(&v, 300)));
            }
        }
        Err(e) => fail("prompts/get test_simple_prompt", e),
    }
}
