//! The readiness loop's own duties over real sockets: the connection cap (503), slow
//! clients (408), parked SSE streams woken by another connection's request, a reader
//! that goes away (its stream detached, so the session can be read again), pipelined
//! requests, keep-alive comments from the sweep, and `Service::release` once the
//! endpoint ends a session.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use picomcp::http::endpoint::{EndpointConfig, EndpointStorage, ResponseMode};
use picomcp::json::Json;
use picomcp::protocol::{Method, Versions};
use picomcp::session::{Config, Event, Session, Storage};
use picomcp_stdio::http::{HttpOptions, Service, serve_on};

const LINE: usize = 8192;

struct Echo {
    slots: Vec<Option<Session<'static>>>,
    released: Arc<AtomicUsize>,
}

impl Service for Echo {
    fn reset(&mut self, slot: usize, now: u64) {
        let mut c = Config::server(
            "echo",
            "1",
            Json::new(r#"{"tools":{"listChanged":true}}"#).unwrap(),
        );
        c.limits.max_line = LINE;
        c.versions = Versions::ALL;
        self.slots[slot] = Session::new(&c, Storage::owned(LINE, 8, 4, c.info_len()), now).ok();
    }
    fn session(&mut self, slot: usize) -> Option<&mut Session<'static>> {
        self.slots[slot].as_mut()
    }
    fn run(&mut self, slot: usize, _now: u64) {
        let Some(s) = self.slots[slot].as_mut() else {
            return;
        };
        while let Some((event, mut cmds)) = s.poll_event_split() {
            if let Event::Request { id, method, .. } = event {
                if method == Method::ToolsCall {
                    // Not tied to the request: the GET stream's (JSON answers only).
                    let _ = cmds.send_notification(Method::ToolsListChanged, None);
                }
                let _ = cmds.respond(id, Json::new(r#"{"content":[]}"#).unwrap());
            }
        }
    }
    fn tick(&mut self, _slot: usize, _now: u64) -> Option<u64> {
        None
    }
    fn release(&mut self, slot: usize) {
        self.slots[slot] = None;
        self.released.fetch_add(1, Ordering::SeqCst);
    }
}

fn start(options: HttpOptions) -> (u16, Arc<AtomicUsize>) {
    start_with(options, 15_000)
}

fn start_with(options: HttpOptions, keepalive_ms: u64) -> (u16, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let config = EndpointConfig {
        max_body: LINE,
        limits: picomcp::Limits {
            max_line: LINE,
            ..picomcp::Limits::DEFAULT
        },
        response_mode: ResponseMode::Json,
        keepalive_ms,
        ..EndpointConfig::default()
    };
    let storage = EndpointStorage::owned(8, 16, LINE + 1024);
    let released = Arc::new(AtomicUsize::new(0));
    let svc = Echo {
        slots: (0..8).map(|_| None).collect(),
        released: Arc::clone(&released),
    };
    let mut options = options;
    options.codec.max_body = LINE;
    std::thread::spawn(move || serve_on(listener, config, storage, svc, options));
    (port, released)
}

fn connect(port: u16) -> TcpStream {
    let s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s
}

fn post(port: u16, sid: Option<&str>, body: &str) -> String {
    let extra = sid.map_or(String::new(), |s| format!("Mcp-Session-Id: {s}\r\n"));
    format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\n{extra}Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

/// Reads one response with a `Content-Length` body (or none): (status, head, body).
fn response(r: &mut BufReader<TcpStream>) -> (u16, String, String) {
    let mut head = String::new();
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).unwrap_or(0) == 0 {
            break;
        }
        head.push_str(&line);
        if line == "\r\n" {
            break;
        }
    }
    let len = head
        .lines()
        .find_map(|l| l.strip_prefix("Content-Length: "))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(0);
    let mut body = vec![0u8; len];
    r.read_exact(&mut body).unwrap();
    let status = head.get(9..12).and_then(|c| c.parse().ok()).unwrap_or(0);
    (status, head, String::from_utf8(body).unwrap())
}

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
const CALL: &str =
    r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x","arguments":{}}}"#;

/// Opens a session on `conn` (initialize, then notifications/initialized).
fn open(port: u16, conn: &mut BufReader<TcpStream>) -> String {
    let both = post(port, None, INIT);
    conn.get_mut().write_all(both.as_bytes()).unwrap();
    let (status, head, body) = response(conn);
    assert_eq!(status, 200, "{head}{body}");
    let sid = head
        .lines()
        .find_map(|l| l.strip_prefix("Mcp-Session-Id: "))
        .unwrap()
        .to_owned();
    let (status, _, _) = {
        conn.get_mut()
            .write_all(post(port, Some(&sid), INITIALIZED).as_bytes())
            .unwrap();
        response(conn)
    };
    assert_eq!(status, 202);
    sid
}

#[test]
fn pipelined_requests_are_answered_in_order() {
    let (port, _) = start(HttpOptions::default());
    let mut c = BufReader::new(connect(port));
    let sid = open(port, &mut c);
    let mut two = post(port, Some(&sid), CALL);
    two.push_str(&post(
        port,
        Some(&sid),
        r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#,
    ));
    c.get_mut().write_all(two.as_bytes()).unwrap();
    let (s1, _, b1) = response(&mut c);
    let (s2, _, b2) = response(&mut c);
    assert_eq!((s1, s2), (200, 200));
    assert!(b1.contains(r#""id":2"#), "{b1}");
    assert!(b2.contains(r#""id":3"#), "{b2}");
}

#[test]
fn a_parked_stream_is_woken_and_a_gone_reader_is_detached() {
    let (port, released) = start(HttpOptions::default());
    let mut c = BufReader::new(connect(port));
    let sid = open(port, &mut c);
    let get = format!(
        "GET /mcp HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\nMcp-Session-Id: {sid}\r\n\r\n"
    );
    for round in 0..2 {
        let mut g = BufReader::new(connect(port));
        g.get_mut().write_all(get.as_bytes()).unwrap();
        let mut status = String::new();
        g.read_line(&mut status).unwrap();
        // The second GET is served only if the first reader's stream was detached when
        // it went away (one GET stream per session is read at a time: 409 otherwise).
        assert!(
            status.starts_with("HTTP/1.1 200"),
            "round {round}: {status}"
        );
        // Another connection's tool call puts a notification on this parked stream.
        c.get_mut()
            .write_all(post(port, Some(&sid), CALL).as_bytes())
            .unwrap();
        assert_eq!(response(&mut c).0, 200);
        let mut seen = false;
        let mut line = String::new();
        while g.read_line(&mut line).unwrap_or(0) > 0 {
            if line.contains("notifications/tools/list_changed") {
                seen = true;
                break;
            }
            line.clear();
        }
        assert!(
            seen,
            "round {round}: the parked stream got the notification"
        );
        drop(g);
        std::thread::sleep(Duration::from_millis(100));
    }
    // DELETE ends the session; the application is told its slot is free.
    let del = format!(
        "DELETE /mcp HTTP/1.1\r\nHost: localhost\r\nMcp-Session-Id: {sid}\r\nContent-Length: 0\r\n\r\n"
    );
    c.get_mut().write_all(del.as_bytes()).unwrap();
    assert_eq!(response(&mut c).0, 200);
    let mut waited = 0;
    while released.load(Ordering::SeqCst) == 0 && waited < 100 {
        std::thread::sleep(Duration::from_millis(50));
        waited += 1;
    }
    assert!(released.load(Ordering::SeqCst) >= 1);
}

#[test]
fn the_connection_cap_answers_503_and_slow_clients_get_408() {
    let mut options = HttpOptions {
        max_connections: 2,
        ..HttpOptions::default()
    };
    options.codec.head_timeout_ms = Some(200);
    let (port, _) = start(options);
    // A slow-loris: half a head, then nothing. It takes one of the two places.
    let mut slow = connect(port);
    slow.write_all(b"POST /mcp HTTP/1.1\r\nHost: localhost\r\n")
        .unwrap();
    let mut idle = BufReader::new(connect(port));
    let _sid = open(port, &mut idle);
    // A third connection is refused while both are open.
    let mut third = connect(port);
    let mut out = String::new();
    let _ = third.read_to_string(&mut out);
    assert!(out.starts_with("HTTP/1.1 503"), "{out}");
    // The slow-loris is answered 408 and closed, which frees its place.
    let mut out = String::new();
    let _ = slow.read_to_string(&mut out);
    assert!(out.starts_with("HTTP/1.1 408"), "{out}");
    std::thread::sleep(Duration::from_millis(100));
    let mut c = BufReader::new(connect(port));
    let _ = open(port, &mut c);
}

#[test]
fn an_idle_stream_gets_keep_alive_comments_from_the_sweep() {
    let (port, _) = start_with(HttpOptions::default(), 100);
    let mut c = BufReader::new(connect(port));
    let sid = open(port, &mut c);
    let mut g = BufReader::new(connect(port));
    let get = format!(
        "GET /mcp HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\nMcp-Session-Id: {sid}\r\n\r\n"
    );
    g.get_mut().write_all(get.as_bytes()).unwrap();
    let mut line = String::new();
    let mut comments = 0;
    while comments < 2 && g.read_line(&mut line).unwrap_or(0) > 0 {
        if line.starts_with(": keep-alive") {
            comments += 1;
        }
        line.clear();
    }
    assert_eq!(
        comments, 2,
        "nothing but keep-alives while the session is quiet"
    );
}
