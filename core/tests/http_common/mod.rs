//! Harness of the endpoint tests: an `Endpoint`, a pool of server sessions, a tiny
//! application, and a virtual clock. A request runs to its end (or to a stream that
//! waits), as a host would run it.
#![allow(dead_code)]

use picomcp::Limits;
use picomcp::http::endpoint::{
    Endpoint, EndpointConfig, EndpointStorage, Outcome, Poll, StreamHandle,
};
use picomcp::http::{Header, Method, Request};
use picomcp::json::Json;
use picomcp::protocol::Versions;
use picomcp::session::{Config, Event, Session, Storage};

pub const LINE: usize = 4096;

#[derive(Default)]
pub struct Resp {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
    /// The stream still open after what it had (SSE waiting for more).
    pub open: Option<StreamHandle>,
}

impl Resp {
    /// A whole answer (`Outcome::Respond`): its status, headers and body.
    pub fn whole(status: u16, headers: &[Header<'_>], body: &[u8]) -> Resp {
        Resp {
            status,
            headers: header_pairs(headers),
            body: String::from_utf8(body.to_vec()).unwrap(),
            open: None,
        }
    }
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.body))
    }
    /// The `data:` payloads of an SSE body, parsed (empty ones skipped).
    pub fn events(&self) -> Vec<serde_json::Value> {
        self.body
            .lines()
            .filter_map(|l| l.strip_prefix("data: "))
            .filter(|d| !d.is_empty())
            .map(|d| serde_json::from_str(d).unwrap())
            .collect()
    }
    pub fn ids(&self) -> Vec<String> {
        self.body
            .lines()
            .filter_map(|l| l.strip_prefix("id: "))
            .map(str::to_owned)
            .collect()
    }
}

pub struct Host {
    pub ep: Endpoint<'static>,
    pub pool: Vec<Option<Session<'static>>>,
    pub now: u64,
    rng: u64,
    /// Requests the app holds back (tool `slow`): slot, handle.
    pub held: Vec<(usize, picomcp::session::InboundId)>,
}

pub fn endpoint_config() -> EndpointConfig<'static> {
    EndpointConfig {
        max_body: LINE,
        limits: Limits {
            max_line: LINE,
            ..Limits::DEFAULT
        },
        session_idle_ms: 60_000,
        keepalive_ms: 5_000,
        ..EndpointConfig::default()
    }
}

pub fn session(now: u64) -> Session<'static> {
    let caps = Json::new(r#"{"tools":{"listChanged":true}}"#).unwrap();
    let mut c = Config::server("http-test", "1.0.0", caps);
    c.limits.max_line = LINE;
    c.versions = Versions::ALL;
    let storage = Storage::owned(LINE, 8, 4, c.info_len());
    Session::new(&c, storage, now).unwrap()
}

impl Host {
    pub fn new() -> Host {
        Host::with(endpoint_config(), 8, 16)
    }

    pub fn with(config: EndpointConfig<'static>, slots: usize, streams: usize) -> Host {
        let storage = EndpointStorage::owned(slots, streams, 2 * LINE);
        Host {
            ep: Endpoint::new(config, storage).unwrap(),
            pool: (0..slots).map(|_| None).collect(),
            now: 1000,
            rng: 0x1234_5678_9abc_def0,
            held: Vec::new(),
        }
    }

    fn entropy(&mut self) -> [u8; 16] {
        let mut out = [0u8; 16];
        for b in out.iter_mut() {
            self.rng ^= self.rng << 13;
            self.rng ^= self.rng >> 7;
            self.rng ^= self.rng << 17;
            *b = self.rng as u8;
        }
        out
    }

    /// The test application: answers every request; `tools/call` of `progress` reports progress first, `slow` is held for [`Host::release`].
    fn app(&mut self, slot: usize) {
        let s = self.pool[slot].as_mut().unwrap();
        while let Some((event, mut cmds)) = s.poll_event_split() {
            if let Event::Request { id, params, .. } = event {
                let name = params
                    .and_then(|p| p.get("name"))
                    .and_then(|n| n.as_str())
                    .map(|n| n.to_string())
                    .unwrap_or_default();
                match name.as_str() {
                    "slow" => {
                        self.held.push((slot, id));
                        continue;
                    }
                    "progress" => {
                        let _ = cmds.progress(id, 1.0, Some(2.0), None);
                    }
                    _ => {}
                }
                let _ = cmds.respond(id, Json::new(r#"{"content":[],"ok":true}"#).unwrap());
            }
        }
    }

    /// Answers the held `slow` requests (with progress first), then collects.
    pub fn release(&mut self) {
        for (slot, id) in std::mem::take(&mut self.held) {
            if let Some(s) = self.pool[slot].as_mut() {
                let _ = s.progress(id, 1.0, None, None);
                let _ = s.respond(id, Json::new(r#"{"content":[],"late":true}"#).unwrap());
                self.ep.collect(self.now, slot, s);
            }
        }
    }

    /// Sends a server notification from the session in `slot` (not tied to a request).
    pub fn notify(&mut self, slot: usize) {
        let s = self.pool[slot].as_mut().unwrap();
        s.send_notification(picomcp::protocol::Method::ToolsListChanged, None)
            .unwrap();
        self.ep.collect(self.now, slot, s);
    }

    pub fn request(&mut self, method: Method, headers: &[(&str, &str)], body: &str) -> Resp {
        let hs: Vec<Header<'_>> = headers
            .iter()
            .map(|(n, v)| Header {
                name: n,
                value: v.as_bytes(),
            })
            .collect();
        let req = Request {
            method,
            target: "/mcp",
            headers: &hs,
            body: body.as_bytes(),
        };
        self.send(&req)
    }

    pub fn send(&mut self, req: &Request<'_>) -> Resp {
        let entropy = self.entropy();
        let now = self.now;
        let (slot, fresh, stream) = match self.ep.handle_request(now, req, &entropy) {
            Outcome::Respond { head, body } => {
                return Resp::whole(head.status, head.headers(), body);
            }
            Outcome::Stream(h) => return self.drain(h),
            Outcome::Deliver {
                slot,
                fresh,
                stream,
            } => (slot, fresh, stream),
        };
        if fresh || self.pool[slot].is_none() {
            self.pool[slot] = Some(session(now));
        }
        self.pool[slot]
            .as_mut()
            .unwrap()
            .handle_message(now, req.body)
            .unwrap();
        self.app(slot);
        let s = self.pool[slot].as_mut().unwrap();
        self.ep.collect(now, slot, s);
        match stream {
            None => Resp {
                status: 202,
                headers: vec![],
                body: String::new(),
                open: None,
            },
            Some(h) => self.drain(h),
        }
    }

    /// Reads a stream until it ends or waits.
    pub fn drain(&mut self, h: StreamHandle) -> Resp {
        let mut r = Resp::default();
        read_stream(&mut self.ep, self.now, h, &mut r);
        r
    }

    /// More of an open stream (appends to nothing: the new bytes only).
    pub fn more(&mut self, h: StreamHandle) -> Resp {
        self.drain(h)
    }

    pub fn post(&mut self, session: Option<&str>, body: &str) -> Resp {
        let mut h = vec![
            ("Host", "localhost:3000"),
            ("Accept", "application/json, text/event-stream"),
            ("Content-Type", "application/json"),
        ];
        if let Some(s) = session {
            h.push(("Mcp-Session-Id", s));
        }
        self.request(Method::Post, &h, body)
    }

    /// `initialize` at `version`, then `notifications/initialized`; the session id.
    pub fn open(&mut self, version: &str) -> String {
        let r = self.post(None, &init(1, version));
        assert_eq!(r.status, 200, "{}", r.body);
        let sid = r.header("Mcp-Session-Id").expect("a session id").to_owned();
        let n = self.post(
            Some(&sid),
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        );
        assert_eq!(n.status, 202);
        sid
    }

    pub fn advance(&mut self, ms: u64) {
        self.now += ms;
        self.ep.handle_timeout(self.now);
    }
}

pub fn init(id: u32, version: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"initialize","params":{{"protocolVersion":"{version}","capabilities":{{}},"clientInfo":{{"name":"t","version":"1"}}}}}}"#
    )
}

pub fn call(id: u32, tool: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{{}}}}}}"#
    )
}

pub fn call_with_token(id: u32, tool: &str, token: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{{}},"_meta":{{"progressToken":"{token}"}}}}}}"#
    )
}

/// Reads stream `h` of `ep` at `now` until it ends or waits: the head into `r`, the body
/// appended to `r.body`; `r.open` is the handle while the stream waits for more.
pub fn read_stream(ep: &mut Endpoint<'_>, now: u64, h: StreamHandle, r: &mut Resp) {
    r.open = Some(h);
    loop {
        match ep.poll_response(now, h) {
            Poll::Head(head) => {
                r.status = head.status;
                r.headers = header_pairs(head.headers());
            }
            Poll::Body(b) => {
                let n = b.len();
                r.body.push_str(std::str::from_utf8(b).unwrap());
                ep.advance(h, n);
            }
            Poll::Wait => return,
            Poll::End => {
                r.open = None;
                return;
            }
        }
    }
}

/// A head's fields as owned (name, value) pairs.
pub fn header_pairs(headers: &[Header<'_>]) -> Vec<(String, String)> {
    headers
        .iter()
        .map(|h| (h.name.to_owned(), h.value_str().unwrap().to_owned()))
        .collect()
}
