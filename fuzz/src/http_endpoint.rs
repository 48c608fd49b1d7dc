//! `http_endpoint`: the Streamable HTTP endpoint (`picomcp::http::endpoint`) under a
//! sequence of requests drawn from the input, with real server sessions behind it.
//!
//! Layout: records separated by `0xFF`. The first byte of a record picks what it is
//! (low 3 bits: POST, GET, DELETE, another method, time passes, a stream's connection
//! drops; bit 3: no `Accept`; bit 4: forged `Host`; bit 5: the session id of the last
//! `initialize`, else none or (bit 6) a made-up one; bit 7: `MCP-Protocol-Version:
//! 2026-07-28` with `Mcp-Method: tools/call`). The rest is the body (or, for GET, the
//! `Last-Event-ID`).
//!
//! Invariants:
//! - nothing panics;
//! - every immediate answer has a status among those the endpoint documents, and any
//!   body it has is a JSON-RPC error;
//! - legacy sessions never exceed the slots, open streams never exceed the table, and a
//!   stream's poll reaches `Wait` or `End` within a bounded number of steps, its body
//!   bytes never more than the stream's share.

use picomcp::Limits;
use picomcp::http::endpoint::{
    Endpoint, EndpointConfig, EndpointStorage, Outcome, Poll, StreamHandle,
};
use picomcp::http::{Header, Method, Request};
use picomcp::json::Json;
use picomcp::protocol::Versions;
use picomcp::session::{Config, Event, Session, Storage};

const LINE: usize = 2048;
const SLOTS: usize = 4;
const STREAMS: usize = 6;
const PER_STREAM: usize = 2 * LINE;
const STATUSES: [u16; 13] = [200, 202, 400, 403, 404, 405, 406, 409, 413, 415, 503, 0, 0];

fn session(now: u64) -> Session<'static> {
    let mut c = Config::server("fuzz", "1", Json::new(r#"{"tools":{}}"#).unwrap());
    c.limits.max_line = LINE;
    c.versions = Versions::ALL;
    Session::new(&c, Storage::owned(LINE, 4, 2, c.info_len()), now).unwrap()
}

fn drain(ep: &mut Endpoint<'_>, now: u64, h: StreamHandle) {
    let mut body = 0usize;
    for _ in 0..64 {
        match ep.poll_response(now, h) {
            Poll::Head(_) => {}
            Poll::Body(b) => {
                body += b.len();
                assert!(b.len() <= PER_STREAM);
                let n = b.len();
                ep.advance(h, n);
            }
            Poll::Wait | Poll::End => return,
        }
    }
    panic!("a stream gave {body} bytes without waiting or ending");
}

pub fn run(data: &[u8]) {
    let config = EndpointConfig {
        max_body: LINE,
        limits: Limits {
            max_line: LINE,
            ..Limits::DEFAULT
        },
        session_idle_ms: 1000,
        keepalive_ms: 300,
        ..EndpointConfig::default()
    };
    let mut ep = Endpoint::new(config, EndpointStorage::owned(SLOTS, STREAMS, PER_STREAM)).unwrap();
    let mut pool: Vec<Option<Session<'static>>> = (0..SLOTS).map(|_| None).collect();
    let mut open: Vec<StreamHandle> = Vec::new();
    let mut sid = String::new();
    let mut now = 0u64;
    let mut seed = 1u8;
    for record in data.split(|&b| b == 0xFF) {
        let Some((&op, rest)) = record.split_first() else {
            continue;
        };
        seed = seed.wrapping_add(1);
        match op & 7 {
            4 => {
                now += u64::from(rest.first().copied().unwrap_or(1)) * 16;
                ep.handle_timeout(now);
                for &h in &open {
                    drain(&mut ep, now, h);
                }
                continue;
            }
            5 => {
                if let Some(h) = open.pop() {
                    ep.detach(h);
                }
                continue;
            }
            _ => {}
        }
        let method = match op & 7 {
            0 | 6 => Method::Post,
            1 => Method::Get,
            2 => Method::Delete,
            _ => Method::Other,
        };
        let mut headers = vec![Header {
            name: "Host",
            value: if op & 16 != 0 { b"evil.example" } else { b"localhost:1" },
        }];
        if op & 8 == 0 {
            headers.push(Header {
                name: "Accept",
                value: b"application/json, text/event-stream",
            });
        }
        headers.push(Header {
            name: "Content-Type",
            value: b"application/json",
        });
        if op & 32 != 0 {
            headers.push(Header {
                name: "Mcp-Session-Id",
                value: sid.as_bytes(),
            });
        } else if op & 64 != 0 {
            headers.push(Header {
                name: "Mcp-Session-Id",
                value: b"00000000000000000000000000000000",
            });
        }
        if op & 128 != 0 {
            headers.push(Header {
                name: "MCP-Protocol-Version",
                value: b"2026-07-28",
            });
            headers.push(Header {
                name: "Mcp-Method",
                value: b"tools/call",
            });
        }
        let (body, last): (&[u8], &[u8]) = if method == Method::Get { (b"", rest) } else { (rest, b"") };
        if !last.is_empty() {
            headers.push(Header {
                name: "Last-Event-ID",
                value: last,
            });
        }
        let req = Request {
            method,
            target: "/mcp",
            headers: &headers,
            body,
        };
        let entropy = [seed; 16];
        let stream = match ep.handle_request(now, &req, &entropy) {
            Outcome::Respond { head, body } => {
                assert!(STATUSES.contains(&head.status), "status {}", head.status);
                if !body.is_empty() {
                    let v: serde_json::Value = serde_json::from_slice(body).unwrap();
                    assert!(v.get("error").is_some());
                }
                None
            }
            Outcome::Stream(h) => Some(h),
            Outcome::Deliver { slot, fresh, stream } => {
                if fresh && op & 128 == 0 {
                    // A legacy `initialize`: the id it mints from this entropy.
                    sid = format!("{seed:02x}").repeat(16);
                }
                if fresh || pool[slot].is_none() {
                    pool[slot] = Some(session(now));
                }
                let s = pool[slot].as_mut().unwrap();
                let _ = s.handle_message(now, body);
                while let Some((event, mut cmds)) = s.poll_event_split() {
                    if let Event::Request { id, .. } = event {
                        if seed % 3 != 0 {
                            let _ = cmds.progress(id, 1.0, None, None);
                        }
                        if seed % 5 != 0 {
                            let _ = cmds.respond(id, Json::EMPTY_OBJECT);
                        }
                    }
                }
                ep.collect(now, slot, s);
                stream
            }
        };
        if let Some(h) = stream {
            drain(&mut ep, now, h);
            open.push(h);
            if open.len() > STREAMS * 2 {
                open.remove(0);
            }
        }
        assert!(ep.sessions() <= SLOTS);
        assert!(ep.open_streams() <= STREAMS);
    }
}
