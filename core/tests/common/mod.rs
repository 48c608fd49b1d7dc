//! Test harness: sessions on leaked static storage, a client/server pair on a virtual
//! clock, and helpers to feed raw lines and read what a session sends.
#![allow(dead_code)]

use picomcp::json::Json;
use picomcp::session::{Config, Event, Session, StaticStorage, Storage};
use picomcp::{Limits, protocol::Versions};

pub const LINE: usize = 4096;
pub type Mem = StaticStorage<LINE, 16384, 16384, 8, 8, 4096>;

pub fn storage() -> Storage<'static> {
    Box::leak(Box::new(Mem::new())).as_storage()
}

pub const SERVER_CAPS: &str = r#"{"tools":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"prompts":{},"logging":{}}"#;
pub const CLIENT_CAPS: &str = r#"{"roots":{"listChanged":true},"sampling":{}}"#;

pub fn limits() -> Limits {
    Limits {
        max_line: LINE,
        ..Limits::DEFAULT
    }
}

pub fn server_config(caps: &'static str) -> Config<'static> {
    let mut c = Config::server("test-server", "1.0.0", Json::new(caps).unwrap());
    c.limits = limits();
    c.instructions = Some("be nice");
    c.arena_bytes = 1024;
    c.batch_bytes = 1024;
    c
}

pub fn client_config(caps: &'static str) -> Config<'static> {
    let mut c = Config::client("test-client", "1.0.0", Json::new(caps).unwrap());
    c.limits = limits();
    c.request_timeout_ms = Some(1000);
    c.arena_bytes = 1024;
    c.batch_bytes = 1024;
    // The legacy tests pin the legacy handshake; tests/modern.rs covers the probe.
    c.versions = Versions::LEGACY;
    c
}

pub fn server() -> Session<'static> {
    Session::new(&server_config(SERVER_CAPS), storage(), 0).unwrap()
}

pub fn server_with(versions: Versions) -> Session<'static> {
    let mut c = server_config(SERVER_CAPS);
    c.versions = versions;
    Session::new(&c, storage(), 0).unwrap()
}

/// Renders an event as a stable string for transcripts.
pub fn render(ev: &Event<'_>) -> String {
    match ev {
        Event::Negotiated { version, .. } => format!("negotiated {version}"),
        Event::Ready { version } => format!("ready {version}"),
        Event::Request { method, params, .. } => {
            format!("request {method} {}", params.map_or("-", |p| p.as_raw()))
        }
        Event::Notification { method, params } => format!(
            "notification {method} {}",
            params.map_or("-", |p| p.as_raw())
        ),
        Event::Response { result, .. } => format!("response {}", result.as_raw()),
        Event::ErrorResponse { code, message, .. } => format!("error {code} {message}"),
        Event::TimedOut { .. } => "timed_out".into(),
        Event::Cancelled { reason, .. } => {
            format!("cancelled {}", reason.map_or("-".into(), |r| r.to_string()))
        }
        Event::Progress { progress, .. } => format!("progress {progress}"),
        Event::PeerViolation(v) => format!("violation {v:?}"),
        Event::Closed(r) => format!("closed {r:?}"),
        _ => format!("{ev:?}"),
    }
}

/// Everything the session wants to send, as lines.
pub fn take_output(s: &mut Session<'_>) -> Vec<String> {
    let mut out = Vec::new();
    let mut buf = vec![0u8; 65536];
    while let Some(n) = s.poll_transmit(&mut buf).unwrap() {
        let text = std::str::from_utf8(&buf[..n]).unwrap();
        for l in text.split_terminator('\n') {
            out.push(l.to_string());
        }
    }
    out
}

/// All pending events, rendered.
pub fn take_events(s: &mut Session<'_>) -> Vec<String> {
    let mut v = Vec::new();
    while let Some(e) = s.poll_event() {
        v.push(render(&e));
    }
    v
}

/// Feeds text (all of it, draining when the session pushes back) and returns the
/// output lines and rendered events.
pub fn feed(s: &mut Session<'_>, now: u64, text: &[u8]) -> (Vec<String>, Vec<String>) {
    let mut out = Vec::new();
    let mut evs = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let n = s.handle_bytes(now, rest);
        rest = &rest[n..];
        out.extend(take_output(s));
        evs.extend(take_events(s));
        if n == 0 && s.phase() == picomcp::session::Phase::Closed {
            break;
        }
    }
    out.extend(take_output(s));
    evs.extend(take_events(s));
    (out, evs)
}

/// Feeds all of `text`, collecting events but leaving output queued.
pub fn deliver(s: &mut Session<'_>, now: u64, text: &[u8]) -> Vec<String> {
    let mut evs = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let n = s.handle_bytes(now, rest);
        rest = &rest[n..];
        evs.extend(take_events(s));
        if n == 0 {
            break;
        }
    }
    evs
}

/// Feeds all of `text` and leaves events and output queued.
pub fn push(s: &mut Session<'_>, now: u64, text: &[u8]) {
    let n = s.handle_bytes(now, text);
    assert_eq!(n, text.len(), "backpressure in push()");
}

/// Parses an output line with serde_json for assertions.
pub fn j(line: &str) -> serde_json::Value {
    serde_json::from_str(line).unwrap_or_else(|e| panic!("invalid JSON output {line:?}: {e}"))
}

pub const INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true},"sampling":{}},"clientInfo":{"name":"t","version":"1"}}}"#;
pub const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// A server that has completed the handshake at `version`.
pub fn ready_server(version: &str) -> Session<'static> {
    let mut s = server();
    let init = INIT.replace("2025-11-25", version);
    let (out, _) = feed(&mut s, 0, format!("{init}\n{INITIALIZED}\n").as_bytes());
    assert_eq!(out.len(), 1, "{out:?}");
    s
}

/// A client and a server session connected back to back on a virtual clock.
pub struct Pair {
    pub client: Session<'static>,
    pub server: Session<'static>,
    pub now: u64,
    pub client_events: Vec<String>,
    pub server_events: Vec<String>,
    /// Every line sent, prefixed with "C>" or "S>".
    pub wire: Vec<String>,
}

impl Pair {
    pub fn new() -> Self {
        Self::with(server_config(SERVER_CAPS), client_config(CLIENT_CAPS))
    }

    pub fn with(sc: Config<'static>, cc: Config<'static>) -> Self {
        Pair {
            server: Session::new(&sc, storage(), 0).unwrap(),
            client: Session::new(&cc, storage(), 0).unwrap(),
            now: 0,
            client_events: Vec::new(),
            server_events: Vec::new(),
            wire: Vec::new(),
        }
    }

    /// Moves bytes both ways until neither side has anything to send; events are
    /// collected (not answered).
    pub fn drive(&mut self) {
        for _ in 0..100 {
            let c = take_output(&mut self.client);
            let s = take_output(&mut self.server);
            if c.is_empty() && s.is_empty() {
                break;
            }
            for l in &c {
                self.wire.push(format!("C> {l}"));
                let e = deliver(&mut self.server, self.now, format!("{l}\n").as_bytes());
                self.server_events.extend(e);
            }
            for l in &s {
                self.wire.push(format!("S> {l}"));
                let e = deliver(&mut self.client, self.now, format!("{l}\n").as_bytes());
                self.client_events.extend(e);
            }
            self.client_events.extend(take_events(&mut self.client));
            self.server_events.extend(take_events(&mut self.server));
        }
    }

    /// Advances the virtual clock and fires due timeouts on both sides.
    pub fn advance(&mut self, ms: u64) {
        self.now += ms;
        self.client.handle_timeout(self.now);
        self.server.handle_timeout(self.now);
        self.client_events.extend(take_events(&mut self.client));
        self.server_events.extend(take_events(&mut self.server));
        self.drive();
    }

    /// Completes the handshake.
    pub fn handshake(&mut self) {
        self.drive();
        assert!(
            self.client_events.iter().any(|e| e.starts_with("ready")),
            "{:?}",
            self.client_events
        );
        if self.client.era() == picomcp::session::Era::Legacy {
            assert!(
                self.server_events.iter().any(|e| e.starts_with("ready")),
                "{:?}",
                self.server_events
            );
        }
        self.client_events.clear();
        self.server_events.clear();
    }
}
