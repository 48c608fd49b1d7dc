//! `server_session` / `client_session`: a session driven by a small command language
//! decoded from the input: peer bytes, clock steps and host commands.
//!
//! Layout: `[config] [chunk seed] command*`. `config` bits: 0–1 versions (ALL, LEGACY,
//! 2026-07-28 only, 2024-11-05 + 2025-03-26), 2 `max_line` 512 (else 4096), 3 minimal
//! transmit/event buffers (else roomy), 4 request tables of 2 slots (else 8), 5 empty
//! capabilities (else a full set), 6 no default request timeout (else 1000 ms), 7 a
//! `requestState` seal key (server; the retry's state is verified and stripped).
//! Commands (`op & 15`, then arguments; missing bytes read as 0):
//!
//! | op | command | arguments |
//! |---|---|---|
//! | 0 | feed peer bytes | `len: u16 LE`, bytes |
//! | 1 | feed one line (a `\n` is added) | `len: u8`, bytes |
//! | 2 | advance the clock, fire timeouts | `ms: u16 LE` |
//! | 3 | `respond` | `pick`, `result` |
//! | 4 | `respond_error` | `pick`, `code`, `message` |
//! | 5 | `send_request` | `method`, `params`, `options` |
//! | 6 | `cancel` | `pick`, `reason` |
//! | 7 | server `notify(Change)`; client `send_notification` of a client method | `which` |
//! | 8 | `send_notification` (any method) | `method`, `params` |
//! | 9 | `progress` | `pick`, `value` |
//! | 10 | `log_for` / `log` | `pick`, `level` |
//! | 11 | server `respond_input_required`; client `answer_input` | `pick`, `which` |
//! | 12 | server `respond_missing_capability`; client `listen` | `pick`, `which` |
//! | 13 | `close` | |
//! | 14 | end of stream (`handle_eof`) | |
//! | 15 | advance the clock by seconds | `s: u8` |
//!
//! `pick` chooses a handle from those seen, counting back from the latest (0 = latest).
//!
//! The program runs twice: once feeding every chunk whole and draining with
//! `poll_transmit`/`poll_event`, once cutting every feed into pieces (sizes from the
//! chunk seed) and draining with `pending_transmit`/`advance_transmit` in small steps and
//! `poll_event_copied`. Invariants:
//! - no panic; the two runs give the same output bytes, events (rendered with `{:?}`),
//!   command results and final phase/version/era/stats;
//! - every output line is one JSON-RPC 2.0 message that serde_json reads as exactly one
//!   of request, notification, result or error (or, for a batch, an array of responses),
//!   with no other or duplicate envelope members ([`crate::wire::classify`]);
//! - responses only answer requests: for every id, the responses sent never outnumber the
//!   lines received that carry that id and are not notifications or responses (so a
//!   notification or a response is never answered, and each request at most once);
//! - the ids of our own requests are never reused;
//! - with the queues drained, `handle_bytes` always makes progress until the session is
//!   closed (unless a batch waits for answers to an earlier one: then the oldest open
//!   request is answered, as a host does while draining), and then takes nothing;
//!   `poll_transmit` with a transmit-sized buffer and
//!   `poll_event_copied` with a `max_line` scratch never report too small;
//! - after a clock step, repeated `handle_timeout` (draining in between, as the contract
//!   says) brings `poll_timeout` past `now` within a few calls;
//! - at most one `Closed` event, and no event after it; once closed, no deadline
//!   (`poll_timeout` is `None`).
//!
//! The core is built without `alloc`, so it cannot allocate; memory is exactly the
//! storage handed to `Session::new`.

use std::collections::{HashMap, HashSet};

use picomcp::error::ErrorCode;
use picomcp::json::Json;
use picomcp::jsonrpc::peek_id;
use picomcp::protocol::{LogLevel, METHODS, Method, ProtocolVersion, Role, Versions};
use picomcp::session::{
    Change, Config, ConfigError, Event, EventSlot, InboundId, InboundSlot, OutboundId,
    OutboundSlot, Phase, RequestOptions, Session, Storage,
};
use serde_json::value::RawValue;

use crate::Rng;
use crate::json_scanner::has_serde_magic_key;
use crate::wire::{Kind, Members, classify};

// ------------------------------------------------------------------ command language

pub const FEED: u8 = 0;
pub const FEED_LINE: u8 = 1;
pub const ADVANCE: u8 = 2;
pub const RESPOND: u8 = 3;
pub const RESPOND_ERROR: u8 = 4;
pub const SEND_REQUEST: u8 = 5;
pub const CANCEL: u8 = 6;
pub const NOTIFY: u8 = 7;
pub const SEND_NOTIFICATION: u8 = 8;
pub const PROGRESS: u8 = 9;
pub const LOG: u8 = 10;
pub const INPUT: u8 = 11;
pub const CAPABILITY_OR_LISTEN: u8 = 12;
pub const CLOSE: u8 = 13;
pub const EOF: u8 = 14;
pub const ADVANCE_SECONDS: u8 = 15;

#[derive(Debug, Clone)]
enum Cmd {
    Feed(Vec<u8>),
    Advance(u64),
    Respond(u8, u8),
    RespondError(u8, u8, u8),
    SendRequest(u8, u8, u8),
    Cancel(u8, u8),
    Notify(u8),
    SendNotification(u8, u8),
    Progress(u8, u8),
    Log(u8, u8),
    Input(u8, u8),
    CapabilityOrListen(u8, u8),
    Close,
    Eof,
}

fn decode(mut d: &[u8]) -> Vec<Cmd> {
    let byte = |d: &mut &[u8]| -> u8 {
        let Some((&b, rest)) = d.split_first() else {
            return 0;
        };
        *d = rest;
        b
    };
    let mut cmds = Vec::new();
    while !d.is_empty() && cmds.len() < 2048 {
        let op = byte(&mut d) & 15;
        let cmd = match op {
            FEED | FEED_LINE => {
                let len = if op == FEED {
                    u16::from_le_bytes([byte(&mut d), byte(&mut d)]) as usize
                } else {
                    byte(&mut d) as usize
                };
                let len = len.min(d.len());
                let mut bytes = d[..len].to_vec();
                d = &d[len..];
                if op == FEED_LINE {
                    bytes.push(b'\n');
                }
                Cmd::Feed(bytes)
            }
            ADVANCE => Cmd::Advance(u16::from_le_bytes([byte(&mut d), byte(&mut d)]) as u64),
            RESPOND => Cmd::Respond(byte(&mut d), byte(&mut d)),
            RESPOND_ERROR => Cmd::RespondError(byte(&mut d), byte(&mut d), byte(&mut d)),
            SEND_REQUEST => Cmd::SendRequest(byte(&mut d), byte(&mut d), byte(&mut d)),
            CANCEL => Cmd::Cancel(byte(&mut d), byte(&mut d)),
            NOTIFY => Cmd::Notify(byte(&mut d)),
            SEND_NOTIFICATION => Cmd::SendNotification(byte(&mut d), byte(&mut d)),
            PROGRESS => Cmd::Progress(byte(&mut d), byte(&mut d)),
            LOG => Cmd::Log(byte(&mut d), byte(&mut d)),
            INPUT => Cmd::Input(byte(&mut d), byte(&mut d)),
            CAPABILITY_OR_LISTEN => Cmd::CapabilityOrListen(byte(&mut d), byte(&mut d)),
            CLOSE => Cmd::Close,
            EOF => Cmd::Eof,
            _ => Cmd::Advance(byte(&mut d) as u64 * 1000),
        };
        cmds.push(cmd);
    }
    cmds
}

// ------------------------------------------------------------------ tables

const RESULTS: &[&str] = &[
    "{}",
    r#"{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}"#,
    r#"{"content":[{"type":"text","text":"hi \"there\"\n\u0001"}],"isError":false}"#,
    r#"{"resultType":"complete","ttlMs":5,"_meta":{"x":1}}"#,
    r#"{"resultType":"input_required"}"#,
    r#"{"roots":[{"uri":"file:///tmp"}]}"#,
    r#"{"action":"accept","content":{"ok":true}}"#,
    "[]",
    "BIG",
];
const ERROR_CODES: &[i32] = &[
    -32603,
    -32602,
    -32601,
    -32002,
    -32042,
    -32021,
    -32050,
    -32000,
    0,
    1,
    i32::MIN,
    i32::MAX,
];
const MESSAGES: &[&str] = &[
    "",
    "boom",
    "quote \" backslash \\ newline \n tab \t",
    "ünïcødé 😀 \u{1}\u{1f}\u{7f}",
];
const PARAMS: &[Option<&str>] = &[
    None,
    Some("{}"),
    Some(r#"{"name":"echo","arguments":{"text":"hi"}}"#),
    Some(r#"{"messages":[],"maxTokens":5}"#),
    Some(r#"{"_meta":{"progressToken":"tok"}}"#),
    Some(r#"{"uri":"file:///a"}"#),
    Some(r#"{"message":"ok?","requestedSchema":{"type":"object","properties":{}}}"#),
    Some(r#"{"requestId":0,"reason":"x"}"#),
    Some(r#"{"level":"debug","data":"x"}"#),
    Some("[1]"),
    // The content rules (elicitation schema and mode, sampling with tools).
    Some(r#"{"message":"m","requestedSchema":{"type":"object","properties":{"o":{"type":"object"}}}}"#),
    Some(r#"{"message":"m","requestedSchema":{"type":"object","properties":{"m":{"type":"array","items":{"anyOf":[{"const":"a","title":"A"}]}},"c":{"type":"string","enum":["x"],"default":"x"}},"required":["c"]}}"#),
    Some(r#"{"mode":"url","message":"m","url":"https://example.com","elicitationId":"e1"}"#),
    Some(r#"{"messages":[{"role":"assistant","content":{"type":"tool_use","id":"c","name":"t","input":{}}}],"maxTokens":5,"tools":[{"name":"t","inputSchema":{"type":"object"}}],"toolChoice":{"mode":"auto"}}"#),
    Some(r#"{"messages":[],"maxTokens":5,"toolChoice":{"mode":"never"}}"#),
];
const INPUT_REQUESTS: &[Option<&str>] = &[
    None,
    Some(
        r#"{"e":{"method":"elicitation/create","params":{"message":"ok?","requestedSchema":{"type":"object","properties":{}}}}}"#,
    ),
    Some(r#"{"s":{"method":"sampling/createMessage","params":{"messages":[],"maxTokens":5}}}"#),
    Some(r#"{"r":{"method":"roots/list"}}"#),
    Some("{}"),
    Some("[]"),
    Some(
        r#"{"e":{"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{"n":{"type":"number","minimum":5,"maximum":1}}}}}}"#,
    ),
    Some(
        r#"{"s":{"method":"sampling/createMessage","params":{"messages":[],"maxTokens":5,"tools":[{"name":"t","inputSchema":{}}]}}}"#,
    ),
];
const INPUT_RESPONSES: &[&str] = &[
    r#"{"e":{"action":"accept","content":{}}}"#,
    r#"{"s":{"role":"assistant","content":{"type":"text","text":"x"},"model":"m"}}"#,
    r#"{"r":{"roots":[]}}"#,
    "{}",
    "[]",
];
const FILTERS: &[&str] = &[
    r#"{"toolsListChanged":true}"#,
    r#"{"toolsListChanged":true,"promptsListChanged":true,"resourcesListChanged":true}"#,
    r#"{"resourceSubscriptions":["file:///a"]}"#,
    "{}",
    "[]",
];
const URIS: &[&str] = &["file:///a", "file:///b", "x:\"q\"\\"];
const CLIENT_NOTIFICATIONS: &[Method] = &[
    Method::RootsListChanged,
    Method::Initialized,
    Method::Cancelled,
    Method::Progress,
    Method::TasksStatus,
];

fn json(s: &str) -> Json<'_> {
    Json::new(s).expect("table entry is JSON")
}

fn at<T: Copy>(t: &[T], i: u8) -> T {
    t[i as usize % t.len()]
}

// ------------------------------------------------------------------ setup

struct Setup {
    role: Role,
    versions: Versions,
    max_line: usize,
    tight: bool,
    slots: usize,
    empty_caps: bool,
    timeout: Option<u64>,
    sealed: bool,
}

impl Setup {
    fn new(role: Role, b: u8) -> Self {
        Setup {
            role,
            versions: match b & 3 {
                0 => Versions::ALL,
                1 => Versions::LEGACY,
                2 => Versions::of(&[ProtocolVersion::V2026_07_28]),
                _ => Versions::of(&[ProtocolVersion::V2024_11_05, ProtocolVersion::V2025_03_26]),
            },
            max_line: if b & 4 != 0 { 512 } else { 4096 },
            tight: b & 8 != 0,
            slots: if b & 16 != 0 { 2 } else { 8 },
            empty_caps: b & 32 != 0,
            timeout: if b & 64 != 0 { None } else { Some(1000) },
            sealed: b & 128 != 0,
        }
    }

    fn config(&self) -> Config<'static> {
        let mut c = match self.role {
            Role::Server => {
                let caps = if self.empty_caps {
                    "{}"
                } else {
                    r#"{"tools":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"prompts":{"listChanged":true},"logging":{},"completions":{},"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}}"#
                };
                let mut c = Config::server("fuzz \"server\"", "1.0\n", json(caps));
                c.instructions = Some("be nice\u{1}");
                c
            }
            _ => {
                let caps = if self.empty_caps {
                    "{}"
                } else {
                    r#"{"roots":{"listChanged":true},"sampling":{"tools":{}},"elicitation":{"form":{},"url":{}},"tasks":{"list":{}}}"#
                };
                Config::client("fuzz client", "1.0", json(caps))
            }
        };
        c.versions = self.versions;
        c.limits.max_line = self.max_line;
        c.request_timeout_ms = self.timeout;
        c.probe_timeout_ms = 3000;
        c.arena_bytes = if self.tight { 128 } else { 1024 };
        if self.sealed && self.role == Role::Server {
            c.state_key = Some(b"fuzz-state-key-0123456789");
            c.state_ttl_ms = 2000;
        }
        c
    }

    /// Buffer sizes: exactly the minimum `Session::new` accepts when tight.
    fn sizes(&self) -> (usize, usize, usize) {
        let c = self.config();
        let info = c.info_len();
        if !self.tight {
            return (info, 4 * self.max_line + 4096, 4 * self.max_line + 4096);
        }
        let mut tx = 0;
        let mut ev = 0;
        for _ in 0..3 {
            let mut b = Buffers::new(self.max_line, info, tx, ev, self.slots);
            match Session::new(&c, b.storage(), 0) {
                Err(ConfigError::BufferTooSmall {
                    which: "tx",
                    required,
                }) => tx = required,
                Err(ConfigError::BufferTooSmall {
                    which: "events",
                    required,
                }) => ev = required,
                Ok(_) => break,
                Err(e) => panic!("config rejected: {e:?}"),
            }
        }
        (info, tx, ev)
    }
}

struct Buffers {
    rx: Vec<u8>,
    tx: Vec<u8>,
    ev: Vec<u8>,
    ev_slots: Vec<EventSlot>,
    inbound: Vec<InboundSlot>,
    outbound: Vec<OutboundSlot>,
    info: Vec<u8>,
    pins: Vec<Option<picomcp::session::ToolPin>>,
}

impl Buffers {
    fn new(line: usize, info: usize, tx: usize, ev: usize, slots: usize) -> Self {
        Buffers {
            rx: vec![0; line],
            tx: vec![0; tx],
            ev: vec![0; ev],
            ev_slots: vec![EventSlot::EMPTY; Storage::event_slots_for(ev)],
            inbound: vec![InboundSlot::EMPTY; slots],
            outbound: vec![OutboundSlot::EMPTY; slots],
            info: vec![0; info],
            pins: vec![None; 8],
        }
    }
    fn storage(&mut self) -> Storage<'_> {
        Storage {
            rx: (&mut self.rx[..]).into(),
            tx: (&mut self.tx[..]).into(),
            events: (&mut self.ev[..]).into(),
            event_slots: (&mut self.ev_slots[..]).into(),
            inbound: (&mut self.inbound[..]).into(),
            outbound: (&mut self.outbound[..]).into(),
            info: (&mut self.info[..]).into(),
            pins: (&mut self.pins[..]).into(),
        }
    }
}

// ------------------------------------------------------------------ wire checker

/// Watches the bytes the session took and the bytes it sent.
struct Checker {
    max_line: usize,
    line: Vec<u8>,
    /// The current line passed `max_line` and was counted already (the session answers
    /// an overlong line as soon as it overflows, before its `\n`).
    long: bool,
    out: Vec<u8>,
    /// Per raw id: lines received that may be answered with it.
    may_answer: HashMap<String, usize>,
    answered: HashMap<String, usize>,
    our_ids: HashSet<String>,
}

impl Checker {
    fn new(max_line: usize) -> Self {
        Checker {
            max_line,
            line: Vec::new(),
            long: false,
            out: Vec::new(),
            may_answer: HashMap::new(),
            answered: HashMap::new(),
            our_ids: HashSet::new(),
        }
    }

    fn taken(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if b == b'\n' {
                let line = std::mem::take(&mut self.line);
                if !std::mem::take(&mut self.long) {
                    self.received(&line);
                }
            } else if !self.long {
                self.line.push(b);
                if self.line.len() > self.max_line {
                    self.long = true;
                    let line = std::mem::take(&mut self.line);
                    self.received(&line);
                }
            }
        }
    }

    fn eof(&mut self) {
        let line = std::mem::take(&mut self.line);
        if !line.is_empty() && !std::mem::take(&mut self.long) {
            self.received(&line);
        }
    }

    /// Counts the ids a received line may be answered with.
    fn received(&mut self, line: &[u8]) {
        let body = line.strip_suffix(b"\r").unwrap_or(line);
        let mut ids: HashSet<String> = HashSet::new();
        if let Ok(text) = std::str::from_utf8(body) {
            if let Some(m) = Members::parse(text)
                && !m.has("method")
                && (m.has("result") || m.has("error"))
            {
                return; // a response: never answered
            }
            if let Ok(els) = serde_json::from_str::<Vec<Box<RawValue>>>(text) {
                // A batch: each element is a message of its own (the same id twice in
                // one batch is two requests; one of them gets a -32600).
                for e in els {
                    let m = Members::parse(e.get());
                    if m.is_some_and(|m| !m.has("method") && (m.has("result") || m.has("error"))) {
                        continue;
                    }
                    if let Some(id) = peek_id(e.get().as_bytes(), 64) {
                        *self.may_answer.entry(id.as_raw().to_string()).or_default() += 1;
                    }
                }
                return;
            }
        }
        let valid = match std::str::from_utf8(body) {
            Ok(_) => body.len(),
            Err(e) => e.valid_up_to(),
        };
        for cand in [&line[..line.len().min(self.max_line)], body, &body[..valid]] {
            if let Some(id) = peek_id(cand, 64) {
                ids.insert(id.as_raw().to_string());
            }
        }
        for id in ids {
            *self.may_answer.entry(id).or_default() += 1;
        }
    }

    fn sent(&mut self, bytes: &[u8]) {
        self.out.extend_from_slice(bytes);
        while let Some(i) = self.out.iter().position(|&c| c == b'\n') {
            let line: Vec<u8> = self.out.drain(..=i).collect();
            self.check_line(&line[..i]);
        }
    }

    fn check_line(&mut self, line: &[u8]) {
        let text = std::str::from_utf8(line).expect("output line is UTF-8");
        assert!(!text.is_empty(), "empty output line");
        let ours = Json::with_max_depth(text, 256).expect("output line is JSON");
        if has_serde_magic_key(ours) {
            // Echoed peer text with serde_json's private marker keys: serde_json cannot
            // be the oracle for this line.
            return;
        }
        if text.starts_with('[') {
            let els: Vec<Box<RawValue>> = serde_json::from_str(text)
                .unwrap_or_else(|e| panic!("bad batch reply {e}: {text}"));
            assert!(!els.is_empty(), "empty batch reply");
            for e in els {
                let k = classify(e.get(), "batch reply element");
                assert!(
                    matches!(k, Kind::Response { .. }),
                    "batch reply has a non-response: {text}"
                );
                self.kind(k, text);
            }
        } else {
            let k = classify(text, "output line");
            self.kind(k, text);
        }
    }

    fn kind(&mut self, k: Kind, text: &str) {
        match k {
            Kind::Request { id, .. } => {
                assert!(
                    self.our_ids.insert(id.clone()),
                    "request id {id} reused: {text}"
                );
            }
            Kind::Response { id: Some(id), .. } => {
                let n = self.answered.entry(id.clone()).or_default();
                *n += 1;
                let may = self.may_answer.get(&id).copied().unwrap_or(0);
                assert!(
                    *n <= may,
                    "response #{n} for id {id}, but only {may} answerable line(s) carried it: {text}"
                );
            }
            _ => {}
        }
    }
}

// ------------------------------------------------------------------ the host

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mode {
    Whole,
    Chunked,
}

#[derive(Debug, Default, PartialEq, Eq)]
struct Trace {
    out: Vec<u8>,
    events: Vec<String>,
    results: Vec<String>,
}

struct Host<'s> {
    s: Session<'s>,
    mode: Mode,
    rng: Rng,
    now: u64,
    inbound: Vec<InboundId>,
    outbound: Vec<OutboundId>,
    waiting_input: Vec<OutboundId>,
    closed: bool,
    trace: Trace,
    check: Checker,
    txbuf: Vec<u8>,
    scratch: Vec<u8>,
    big: String,
    /// Print everything as it happens: PICOMCP_FUZZ_TRACE=1 (whole run), 2 (chunked
    /// run) or all.
    live: bool,
}

fn pick<T: Copy>(v: &[T], p: u8) -> Option<T> {
    if v.is_empty() {
        None
    } else {
        Some(v[v.len() - 1 - (p as usize % v.len())])
    }
}

impl Host<'_> {
    fn drain(&mut self) {
        match self.mode {
            Mode::Whole => loop {
                match self.s.poll_transmit(&mut self.txbuf) {
                    Ok(Some(n)) => {
                        assert!(
                            n > 0 && self.txbuf[n - 1] == b'\n',
                            "poll_transmit: partial line"
                        );
                        if self.live {
                            eprint!("OUT {}", String::from_utf8_lossy(&self.txbuf[..n]));
                        }
                        self.trace.out.extend_from_slice(&self.txbuf[..n]);
                        self.check.sent(&self.txbuf[..n]);
                    }
                    Ok(None) => break,
                    Err(e) => panic!("poll_transmit with a transmit-sized buffer: {e:?}"),
                }
            },
            Mode::Chunked => loop {
                let p = self.s.pending_transmit();
                if p.is_empty() {
                    break;
                }
                let k = self.rng.size(p.len().min(97));
                let piece = p[..k].to_vec();
                self.s.advance_transmit(k);
                if self.live {
                    eprintln!("OUT+ {:?}", String::from_utf8_lossy(&piece));
                }
                self.trace.out.extend_from_slice(&piece);
                self.check.sent(&piece);
            },
        }
        assert!(self.s.poll_transmit(&mut self.txbuf).unwrap().is_none());
        loop {
            let ev = match self.mode {
                Mode::Whole => match self.s.poll_event() {
                    Some(e) => note(&e),
                    None => break,
                },
                Mode::Chunked => match self.s.poll_event_copied(&mut self.scratch) {
                    Ok(Some(e)) => note(&e),
                    Ok(None) => break,
                    Err(e) => panic!("poll_event_copied with a max_line scratch: {e:?}"),
                },
            };
            if self.live {
                eprintln!("EVENT {}", ev.0);
            }
            assert!(!self.closed, "event after Closed: {}", ev.0);
            match ev.1 {
                Noted::Request(id) => self.inbound.push(id),
                Noted::Input(id) => self.waiting_input.push(id),
                Noted::Closed => self.closed = true,
                Noted::Other => {}
            }
            self.trace.events.push(ev.0);
        }
        assert!(!self.s.has_events());
    }

    fn offer(&mut self, chunk: &[u8]) {
        let mut rest = chunk;
        while !rest.is_empty() {
            let n = self.s.handle_bytes(self.now, rest);
            if self.live {
                eprintln!(
                    "TOOK {n} of {} bytes: {:?}",
                    rest.len(),
                    String::from_utf8_lossy(rest)
                );
            }
            assert!(n <= rest.len());
            self.check.taken(&rest[..n]);
            rest = &rest[n..];
            let closed = self.s.phase() == Phase::Closed;
            self.drain();
            if closed {
                assert_eq!(
                    self.s.handle_bytes(self.now, rest),
                    0,
                    "input taken after close"
                );
                break;
            }
            if n == 0 {
                // With the queues drained, only a batch waiting for the host's answers to
                // an earlier batch may hold input back: answer the oldest open request,
                // as a host does while draining, and offer the rest again.
                let open = self.inbound.iter().copied().find(|&id| self.s.is_open(id));
                let Some(id) = open else {
                    panic!("handle_bytes took nothing although the queues were drained")
                };
                let r = self.s.respond(id, Json::EMPTY_OBJECT);
                self.result("auto-respond", r);
                self.drain();
            }
        }
    }

    fn feed(&mut self, bytes: &[u8]) {
        match self.mode {
            Mode::Whole => self.offer(bytes),
            Mode::Chunked => {
                let max = [1, 2, 3, 7, 17, 64, 300, 5000][(self.rng.next_u64() % 8) as usize];
                let mut rest = bytes;
                while !rest.is_empty() {
                    let k = self.rng.size(max).min(rest.len());
                    self.offer(&rest[..k]);
                    rest = &rest[k..];
                }
            }
        }
    }

    fn advance(&mut self, ms: u64) {
        if self.closed {
            assert_eq!(self.s.poll_timeout(), None, "a deadline after Closed");
        }
        self.now += ms;
        for round in 0.. {
            self.s.handle_timeout(self.now);
            self.drain();
            match self.s.poll_timeout() {
                Some(t) if t <= self.now => {
                    assert!(round < 64, "poll_timeout {t} stays due at {}", self.now)
                }
                _ => break,
            }
        }
    }

    fn result<T: std::fmt::Debug>(&mut self, what: &str, r: T) {
        if self.live {
            eprintln!("RESULT {what}: {r:?}");
        }
        self.trace.results.push(format!("{what}: {r:?}"));
    }

    fn exec(&mut self, cmd: &Cmd) {
        let server = self.s.role() == Role::Server;
        if self.live {
            match cmd {
                Cmd::Feed(b) => eprintln!("FEED {:?}", String::from_utf8_lossy(b)),
                c => eprintln!("CMD {c:?} (now {})", self.now),
            }
        }
        match *cmd {
            Cmd::Feed(ref b) => self.feed(b),
            Cmd::Advance(ms) => self.advance(ms),
            Cmd::Respond(p, r) => {
                let Some(id) = pick(&self.inbound, p) else {
                    return;
                };
                let info = self.s.request_info(id);
                let open = self.s.is_open(id);
                let text = at(RESULTS, r);
                let text = if text == "BIG" {
                    self.big.clone()
                } else {
                    text.to_string()
                };
                let r = self.s.respond(id, json(&text));
                self.result("respond", (info, open, r));
            }
            Cmd::RespondError(p, c, m) => {
                let Some(id) = pick(&self.inbound, p) else {
                    return;
                };
                let data = (m & 4 != 0).then(|| json(r#"{"detail":[1,"two"]}"#));
                let r =
                    self.s
                        .respond_error(id, ErrorCode(at(ERROR_CODES, c)), at(MESSAGES, m), data);
                self.result("respond_error", r);
            }
            Cmd::SendRequest(m, p, o) => {
                let method = at(METHODS, m).method;
                let params = at(PARAMS, p).map(json);
                let opts = RequestOptions {
                    timeout_ms: [None, Some(0), Some(10), Some(5000)][(o & 3) as usize],
                    progress: o & 4 != 0,
                    reset_timeout_on_progress: o & 8 != 0,
                    max_total_ms: if o & 16 != 0 { Some(50) } else { None },
                };
                let r = self.s.send_request(self.now, method, params, opts);
                if let Ok(id) = r {
                    self.outbound.push(id);
                }
                self.result("send_request", (method, r));
            }
            Cmd::Cancel(p, reason) => {
                let Some(id) = pick(&self.outbound, p) else {
                    return;
                };
                let reason = [None, Some("user"), Some("a \"b\"\n")][reason as usize % 3];
                let r = self.s.cancel(id, reason);
                self.result("cancel", r);
            }
            Cmd::Notify(w) => {
                if server {
                    let change = match w % 5 {
                        0 => Change::ToolsListChanged,
                        1 => Change::PromptsListChanged,
                        2 => Change::ResourcesListChanged,
                        _ => Change::ResourceUpdated(at(URIS, w / 5)),
                    };
                    let r = self.s.notify(change);
                    self.result("notify", r);
                } else {
                    let method = at(CLIENT_NOTIFICATIONS, w);
                    let r = self.s.send_notification(method, None);
                    self.result("send_notification", r);
                }
            }
            Cmd::SendNotification(m, p) => {
                let method = at(METHODS, m).method;
                let params = at(PARAMS, p).map(json);
                let r = self.s.send_notification(method, params);
                self.result("send_notification", (method, r));
            }
            Cmd::Progress(p, v) => {
                let Some(id) = pick(&self.inbound, p) else {
                    return;
                };
                let total = (v & 1 != 0).then_some(100.0);
                let r = self
                    .s
                    .progress(id, v as f64 / 2.0, total, Some("step \"x\""));
                self.result("progress", r);
            }
            Cmd::Log(p, l) => {
                let level = LogLevel::from_index(l % 8).unwrap_or(LogLevel::from_index(0).unwrap());
                let data = json(r#"{"msg":"hello"}"#);
                let r = match pick(&self.inbound, p) {
                    Some(id) if l & 8 != 0 => self.s.log_for(id, level, Some("fuzz"), data),
                    _ => self.s.log(level, None, data),
                };
                self.result("log", r);
            }
            Cmd::Input(p, w) => {
                if server {
                    let Some(id) = pick(&self.inbound, p) else {
                        return;
                    };
                    let reqs = at(INPUT_REQUESTS, w).map(json);
                    let state = [None, Some("state-1"), Some("q\"\\")][(w / 8) as usize % 3];
                    let r = self.s.respond_input_required(id, reqs, state);
                    self.result("respond_input_required", r);
                } else {
                    let Some(id) = pick(&self.waiting_input, p) else {
                        return;
                    };
                    let r = self
                        .s
                        .answer_input(self.now, id, json(at(INPUT_RESPONSES, w)));
                    self.result("answer_input", r);
                }
            }
            Cmd::CapabilityOrListen(p, w) => {
                if server {
                    let Some(id) = pick(&self.inbound, p) else {
                        return;
                    };
                    let req =
                        json([r#"{"elicitation":{}}"#, r#"{"sampling":{}}"#, "[]"][w as usize % 3]);
                    let r = self.s.respond_missing_capability(id, req);
                    self.result("respond_missing_capability", r);
                } else {
                    let r = self.s.listen(json(at(FILTERS, w)));
                    if let Ok(id) = r {
                        self.outbound.push(id);
                    }
                    self.result("listen", r);
                }
            }
            Cmd::Close => self.s.close(),
            Cmd::Eof => {
                let was_closed = self.s.phase() == Phase::Closed;
                self.s.handle_eof(self.now);
                if !was_closed {
                    self.check.eof();
                }
            }
        }
        self.drain();
    }
}

enum Noted {
    Request(InboundId),
    Input(OutboundId),
    Closed,
    Other,
}

fn note(e: &Event<'_>) -> (String, Noted) {
    let n = match *e {
        Event::Request { id, .. } => Noted::Request(id),
        Event::InputRequired { id, .. } => Noted::Input(id),
        Event::Closed(_) => Noted::Closed,
        _ => Noted::Other,
    };
    (format!("{e:?}"), n)
}

fn execute(setup: &Setup, cmds: &[Cmd], mode: Mode, seed: u8) -> Trace {
    let config = setup.config();
    let (info, tx, ev) = setup.sizes();
    let mut bufs = Buffers::new(setup.max_line, info, tx, ev, setup.slots);
    let s = Session::new(&config, bufs.storage(), 0).expect("session config");
    let mut host = Host {
        s,
        mode,
        rng: Rng::new(seed as u64 + 7),
        now: 0,
        inbound: Vec::new(),
        outbound: Vec::new(),
        waiting_input: Vec::new(),
        closed: false,
        trace: Trace::default(),
        check: Checker::new(setup.max_line),
        txbuf: vec![0; tx],
        scratch: vec![0; setup.max_line],
        big: format!(r#"{{"blob":"{}"}}"#, "x".repeat(setup.max_line)),
        live: std::env::var("PICOMCP_FUZZ_TRACE").is_ok_and(|v| match mode {
            Mode::Whole => v == "1" || v == "all",
            Mode::Chunked => v == "2" || v == "all",
        }),
    };
    host.drain();
    for c in cmds {
        host.exec(c);
    }
    let s = &host.s;
    let end = format!(
        "phase {:?} version {:?} era {:?} stats {:?} timeout {:?} caps {:?}",
        s.phase(),
        s.version(),
        s.era(),
        s.stats(),
        s.poll_timeout(),
        s.peer_capabilities()
    );
    host.trace.results.push(end);
    if host.live {
        eprintln!("end: {}", host.trace.results.last().unwrap());
    }
    host.trace
}

pub fn run(role: Role, data: &[u8]) {
    if data.len() < 2 {
        return;
    }
    let setup = Setup::new(role, data[0]);
    let cmds = decode(&data[2..]);
    let whole = execute(&setup, &cmds, Mode::Whole, data[1]);
    let chunked = execute(&setup, &cmds, Mode::Chunked, data[1]);
    if whole.out != chunked.out {
        panic!(
            "output differs whole vs chunked:\n{}\n---\n{}",
            String::from_utf8_lossy(&whole.out),
            String::from_utf8_lossy(&chunked.out)
        );
    }
    assert_eq!(
        whole.events, chunked.events,
        "events differ whole vs chunked"
    );
    assert_eq!(
        whole.results, chunked.results,
        "command results differ whole vs chunked"
    );
}
