//! The blocking HTTP server over real sockets: a session's life, refusals, and a client
//! that never reads its stream while others are served.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::Duration;

use picomcp::http::endpoint::{EndpointConfig, EndpointStorage};
use picomcp::json::Json;
use picomcp::protocol::Versions;
use picomcp::session::{Config, Event, Session, Storage};
use picomcp_stdio::http::{HttpOptions, Service, serve_on};

const LINE: usize = 8192;

struct Echo {
    slots: Vec<Option<Session<'static>>>,
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
                if method == picomcp::protocol::Method::ToolsCall {
                    // Something unrelated to the request, for the GET stream, many times.
                    for _ in 0..50 {
                        let _ = cmds
                            .send_notification(picomcp::protocol::Method::ToolsListChanged, None);
                    }
                }
                let _ = cmds.respond(id, Json::new(r#"{"content":[]}"#).unwrap());
            }
        }
    }
    fn tick(&mut self, _slot: usize, _now: u64) -> Option<u64> {
        None
    }
}

fn start() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let config = EndpointConfig {
        max_body: LINE,
        limits: picomcp::Limits {
            max_line: LINE,
            ..picomcp::Limits::DEFAULT
        },
        ..EndpointConfig::default()
    };
    let storage = EndpointStorage::owned(8, 16, LINE + 1024);
    let svc = Echo {
        slots: (0..8).map(|_| None).collect(),
    };
    let mut options = HttpOptions::default();
    options.codec.max_body = LINE;
    std::thread::spawn(move || serve_on(listener, config, storage, svc, options));
    port
}

/// Sends one request and reads one `Content-Length` response: (status, head, body).
fn exchange(port: u16, method: &str, extra: &str, body: &str) -> (u16, String, String) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let req = format!(
        "{method} /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\n{extra}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).unwrap();
    let mut out = String::new();
    let _ = s.read_to_string(&mut out);
    let (head, body) = out.split_once("\r\n\r\n").unwrap_or((&out, ""));
    let status = head.get(9..12).and_then(|c| c.parse().ok()).unwrap_or(0);
    (status, head.to_owned(), body.to_owned())
}

fn session_id(head: &str) -> String {
    head.lines()
        .find_map(|l| l.strip_prefix("Mcp-Session-Id: "))
        .expect("a session id")
        .to_owned()
}

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
const CALL: &str =
    r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x","arguments":{}}}"#;

#[test]
fn sessions_refusals_and_a_reader_that_stalls() {
    let port = start();
    let (status, head, body) = exchange(port, "POST", "", INIT);
    assert_eq!(status, 200, "{head}\n{body}");
    let sid = session_id(&head);
    let with = format!("Mcp-Session-Id: {sid}\r\n");
    let (status, _, _) = exchange(
        port,
        "POST",
        &with,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    );
    assert_eq!(status, 202);

    // Refusals at the socket level.
    assert_eq!(
        exchange(port, "POST", "Origin: http://evil.example.com\r\n", INIT).0,
        403
    );
    assert_eq!(exchange(port, "PUT", "", INIT).0, 405);
    assert_eq!(
        exchange(port, "POST", "Mcp-Session-Id: nope\r\n", CALL).0,
        404
    );
    assert_eq!(exchange(port, "POST", "", CALL).0, 400);

    // A GET stream whose client never reads, flooded by the tool calls' notifications.
    let mut stalled = TcpStream::connect(("127.0.0.1", port)).unwrap();
    let get = format!(
        "GET /mcp HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\nMcp-Session-Id: {sid}\r\n\r\n"
    );
    stalled.write_all(get.as_bytes()).unwrap();
    std::thread::sleep(Duration::from_millis(200));
    for _ in 0..20 {
        let (status, _, body) = exchange(port, "POST", &with, CALL);
        assert_eq!(status, 200, "{body}");
    }
    // Another client is served throughout.
    let (status, head, _) = exchange(port, "POST", "", INIT);
    assert_eq!(status, 200);
    let other = session_id(&head);
    let (status, _, _) = exchange(port, "DELETE", &format!("Mcp-Session-Id: {other}\r\n"), "");
    assert_eq!(status, 200);
    drop(stalled);
}
