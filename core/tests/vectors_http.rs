//! Runs the Streamable HTTP vectors in `tests/vectors/http/*.jsonl` (format: that
//! folder's README, "Streamable HTTP endpoint") over `picomcp::http::endpoint` directly,
//! as a host would: a pool of server sessions behind the server layer, the tool calls
//! answered with the tool's name, a virtual clock, and under authorization the scripted
//! verifier the vector lists (`Claims::report_json` of each token's claims). The C,
//! Python and Node bindings run the same files.

use std::collections::HashMap;

use picomcp::ErrorCode;
use picomcp::http::auth::{AuthConfig, AuthInput, Claims, Principal, Rejected};
use picomcp::http::endpoint::{
    Endpoint, EndpointConfig, EndpointStorage, Outcome, ResponseMode, StreamHandle,
};
use picomcp::http::{Header, Method, Request};
use picomcp::json::Json;
use picomcp::protocol::{ProtocolVersion, Versions};
use picomcp::server::{Access, CAPABILITIES_MAX, Call, Handled, Server, ToolResult};
use picomcp::session::{Change, Config, Event, Session, Storage};
use serde_json::{Value, json};

#[allow(dead_code)]
#[path = "common/served.rs"]
mod served;
use served::matches;

mod http_common;
use http_common::{Resp, read_stream};

/// What `served` renders non-call events with (unused here: the app answers them).
fn event_json(_: &Event<'_>) -> Value {
    Value::Null
}

fn leak_str(s: &str) -> &'static str {
    Box::leak(s.to_string().into_boxed_str())
}

fn strings(v: &Value) -> &'static [&'static str] {
    let list: Vec<&'static str> = v
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).map(leak_str).collect())
        .unwrap_or_default();
    Box::leak(list.into_boxed_slice())
}

fn auth_config(a: &Value) -> AuthConfig<'static> {
    let d = AuthConfig::new("", &[]);
    AuthConfig {
        resource: leak_str(a["resource"].as_str().unwrap_or("")),
        authorization_servers: strings(&a["authorization_servers"]),
        scopes: strings(&a["scopes"]),
        scopes_supported: strings(&a["scopes_supported"]),
        required: leak_str(a["required"].as_str().unwrap_or("")),
        leeway_s: a["leeway_s"].as_u64().unwrap_or(d.leeway_s),
        require_expiry: a["require_expiry"].as_bool().unwrap_or(d.require_expiry),
        resource_name: a["resource_name"].as_str().map(leak_str),
    }
}

struct Host {
    ep: Endpoint<'static>,
    server: &'static Server<'static>,
    pool: Vec<Option<Session<'static>>>,
    session_config: Config<'static>,
    line: usize,
    auth: Option<AuthConfig<'static>>,
    /// The scripted verifier: token -> claims (`null`: refused).
    tokens: HashMap<String, Value>,
    unix_s: u64,
    start: u64,
    now: u64,
    requests: u8,
    /// The slot of the last delivered request (`notify` speaks from it).
    last_slot: Option<usize>,
}

impl Host {
    fn new(spec: &Value) -> Host {
        let server: &'static Server<'static> = Box::leak(Box::new(served::server(&spec["server"])));
        let max_body = spec["max_body"].as_u64().map_or(8192, |n| n as usize);
        let line = max_body.max(8192);
        let versions = match spec["versions"].as_array() {
            Some(vs) => {
                let list: Vec<ProtocolVersion> = vs
                    .iter()
                    .map(|v| ProtocolVersion::parse(v.as_str().unwrap()).unwrap())
                    .collect();
                Versions::of(&list)
            }
            None => Versions::ALL,
        };
        let auth = spec.get("auth").map(auth_config);
        let d = EndpointConfig::default();
        let config = EndpointConfig {
            path: leak_str(spec["path"].as_str().unwrap_or(d.path)),
            check_hosts: spec["check_hosts"].as_bool().unwrap_or(d.check_hosts),
            allowed_hosts: strings(&spec["allowed_hosts"]),
            max_body,
            // As the bindings configure it: bodies and routed lines bounded by max_body,
            // each stream max_body + 4 KiB.
            limits: picomcp::Limits {
                max_line: max_body,
                ..picomcp::Limits::DEFAULT
            },
            session_idle_ms: spec["session_idle_ms"]
                .as_u64()
                .unwrap_or(d.session_idle_ms),
            keepalive_ms: spec["keepalive_ms"].as_u64().unwrap_or(d.keepalive_ms),
            retry_ms: spec["retry_ms"].as_u64().map_or(d.retry_ms, |n| n as u32),
            response_mode: match spec["response_mode"].as_str() {
                Some("json") => ResponseMode::Json,
                Some("sse") => ResponseMode::Sse,
                _ => ResponseMode::Auto,
            },
            get_stream: spec["get_stream"].as_bool().unwrap_or(d.get_stream),
            versions,
            tools: Some(server),
            auth,
            ..d
        };
        let slots = spec["slots"].as_u64().map_or(4, |n| n as usize);
        let streams = spec["streams"].as_u64().map_or(8, |n| n as usize);
        let storage = EndpointStorage::owned(slots, streams, max_body + 4096);
        let caps: &'static mut [u8] = Box::leak(Box::new([0u8; CAPABILITIES_MAX]));
        let caps = server.capabilities(caps).unwrap();
        let mut c = Config::server("vec-http", "0.0.0", caps);
        c.limits.max_line = line;
        c.versions = versions;
        if let Some(k) = spec["state_key"].as_str() {
            c.state_key = Some(leak_str(k).as_bytes());
        }
        let a = spec.get("auth").cloned().unwrap_or(json!({}));
        let tokens = a["tokens"]
            .as_object()
            .map(|o| o.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
            .unwrap_or_default();
        Host {
            ep: Endpoint::new(config, storage).unwrap(),
            server,
            pool: (0..slots).map(|_| None).collect(),
            session_config: c,
            line,
            auth,
            tokens,
            unix_s: a["unix_s"].as_u64().unwrap_or(0),
            start: 1000,
            now: 1000,
            requests: 0,
            last_slot: None,
        }
    }

    /// The scripted verifier's answer for `token`.
    fn verify(
        tokens: &HashMap<String, Value>,
        token: &str,
        c: &mut Claims<'_>,
    ) -> Result<(), Rejected> {
        match tokens.get(token) {
            Some(v) if v.is_object() => {
                let text = v.to_string();
                c.report_json(Json::new(&text).map_err(|_| Rejected("bad claims"))?);
                Ok(())
            }
            _ => Err(Rejected("the verifier refused the token")),
        }
    }

    fn send(&mut self, req: &Request<'_>) -> Resp {
        self.requests = self.requests.wrapping_add(1);
        let entropy = [self.requests; 16];
        let now = self.now;
        let tokens = &self.tokens;
        let mut verifier = |t: &str, c: &mut Claims<'_>| Host::verify(tokens, t, c);
        let input = AuthInput {
            unix_s: self.unix_s + (self.now - self.start) / 1000,
            verifier: &mut verifier,
            policy: Some(self.server),
        };
        let outcome = self.ep.handle_request_as(now, req, &entropy, Some(input));
        let (slot, fresh, stream) = match outcome {
            Outcome::Respond { head, body } => {
                return Resp::whole(head.status, head.headers(), body);
            }
            Outcome::Stream(h) => return self.drain(h, Resp::default()),
            Outcome::Deliver {
                slot,
                fresh,
                stream,
            } => (slot, fresh, stream),
        };
        let principal: Option<Principal> = self.ep.principal().copied();
        let access = match (principal, &self.auth) {
            (Some(p), Some(a)) => p.access(a),
            _ => Access::ALL,
        };
        if fresh || self.pool[slot].is_none() {
            let storage = Storage::owned(self.line, 8, 4, self.session_config.info_len());
            self.pool[slot] = Some(Session::new(&self.session_config, storage, now).unwrap());
        }
        self.last_slot = Some(slot);
        let s = self.pool[slot].as_mut().unwrap();
        let _ = s.handle_message(now, req.body);
        app(self.server, s, access);
        self.ep.collect(now, slot, s);
        match stream {
            None => Resp {
                status: 202,
                ..Resp::default()
            },
            Some(h) => self.drain(h, Resp::default()),
        }
    }

    /// Reads a stream until it ends or waits.
    fn drain(&mut self, h: StreamHandle, mut r: Resp) -> Resp {
        r.body.clear();
        read_stream(&mut self.ep, self.now, h, &mut r);
        r
    }
}

/// The application: the server layer answers what it can; a tool call gets one text
/// block, the tool's name; anything else a request asks is -32601.
fn app(server: &Server<'static>, s: &mut Session<'static>, access: Access<'_>) {
    while let Some((event, mut cmds)) = s.poll_event_split() {
        match server.handle_as(event, &mut cmds, access) {
            Handled::Call(Call::Tool(c)) => {
                let name = server.catalog().tools[c.tool].name;
                server
                    .respond_tool(&mut cmds, c.id, c.tool, &ToolResult::text(name))
                    .unwrap();
            }
            Handled::Call(other) => {
                let _ = cmds.respond_error(
                    other.id(),
                    ErrorCode::METHOD_NOT_FOUND,
                    "not scripted",
                    None,
                );
            }
            Handled::Event(Event::Request { id, .. }) => {
                let _ =
                    cmds.respond_error(id, ErrorCode::METHOD_NOT_FOUND, "Method not found", None);
            }
            _ => {}
        }
    }
}

/// The `data:` payloads of an SSE body, parsed (empty ones, the priming events, skipped).
fn events(body: &str) -> Vec<Value> {
    body.lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .map(str::trim_start)
        .filter(|d| !d.is_empty())
        .map(|d| serde_json::from_str(d).unwrap_or(Value::String(d.to_owned())))
        .collect()
}

fn event_ids(body: &str) -> Vec<String> {
    body.lines()
        .filter_map(|l| l.strip_prefix("id:"))
        .map(|i| i.trim_start().to_owned())
        .collect()
}

/// The auth-params of a `Bearer` challenge (`name="value"`, comma-separated).
fn challenge(value: &str) -> Option<HashMap<String, String>> {
    let rest = value.strip_prefix("Bearer ")?;
    let mut out = HashMap::new();
    let mut s = rest.trim_start();
    while !s.is_empty() {
        let (name, after) = s.split_once("=\"")?;
        let end = after.find('"')?;
        out.insert(name.trim().to_owned(), after[..end].to_owned());
        s = after[end + 1..]
            .trim_start()
            .trim_start_matches(',')
            .trim_start();
    }
    Some(out)
}

fn check(ctx: &str, exp: &Value, r: &Resp, vars: &mut HashMap<String, String>) {
    let shown = format!(
        "{ctx}\n  got {} {:?}\n  body {}",
        r.status, r.headers, r.body
    );
    if let Some(s) = exp.get("status") {
        assert_eq!(s.as_u64(), Some(u64::from(r.status)), "{shown}");
    }
    if let Some(hs) = exp.get("headers").and_then(Value::as_object) {
        for (name, want) in hs {
            let got = r
                .headers
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(name))
                .map(|(_, v)| v.as_str());
            let ok = match (want, got) {
                (Value::Null, g) => g.is_none(),
                (Value::String(w), Some(_)) if w == "<any>" => true,
                (Value::String(w), Some(g)) => w == g,
                _ => false,
            };
            assert!(ok, "{shown}\n  header {name}: want {want}");
        }
    }
    match exp.get("body") {
        None => {}
        Some(Value::String(t)) => assert_eq!(&r.body, t, "{shown}"),
        Some(want) => {
            let got: Value = serde_json::from_str(&r.body)
                .unwrap_or_else(|e| panic!("{shown}\n  not JSON: {e}"));
            assert!(matches(want, &got), "{shown}");
        }
    }
    if let Some(want) = exp.get("body_contains").and_then(Value::as_str) {
        assert!(r.body.contains(want), "{shown}");
    }
    if let Some(want) = exp.get("challenge").and_then(Value::as_object) {
        let value = r
            .headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case("www-authenticate"))
            .map(|(_, v)| v.as_str())
            .unwrap_or_else(|| panic!("{shown}\n  no WWW-Authenticate"));
        let params = challenge(value).unwrap_or_else(|| panic!("{shown}\n  not Bearer"));
        for (name, v) in want {
            let got = params.get(name);
            let ok = match v {
                Value::Null => got.is_none(),
                Value::String(w) if w == "<any>" => got.is_some(),
                Value::String(w) => got == Some(w),
                _ => false,
            };
            assert!(ok, "{shown}\n  challenge {name}: want {v}");
        }
    }
    if let Some(want) = exp.get("sse") {
        assert!(matches(want, &Value::Array(events(&r.body))), "{shown}");
    }
    if let Some(open) = exp.get("open") {
        assert_eq!(open.as_bool(), Some(r.open.is_some()), "{shown}");
    }
    if let Some(save) = exp.get("save").and_then(Value::as_object) {
        for (var, from) in save {
            let from = from.as_str().unwrap();
            let value = if let Some(h) = from.strip_prefix("header:") {
                r.headers
                    .iter()
                    .find(|(n, _)| n.eq_ignore_ascii_case(h))
                    .map(|(_, v)| v.clone())
            } else if let Some(i) = from.strip_prefix("event_id:") {
                event_ids(&r.body).get(i.parse::<usize>().unwrap()).cloned()
            } else {
                panic!("{ctx}: save from {from}")
            };
            let value = value.unwrap_or_else(|| panic!("{shown}\n  nothing to save as {var}"));
            vars.insert(var.clone(), value);
        }
    }
}

/// A stream kept open by name: its handle, and the head the client got first.
type Opened = (StreamHandle, u16, Vec<(String, String)>);

fn run(path: &std::path::Path) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut steps = text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| serde_json::from_str::<Value>(l).unwrap());
    let first = steps.next().unwrap();
    let mut host = Host::new(&first["endpoint"]);
    let name = path.file_name().unwrap().to_string_lossy().to_string();
    let mut vars: HashMap<String, String> = HashMap::new();
    // Open streams by name: the handle, and the head the client got first.
    let mut streams: HashMap<String, Opened> = HashMap::new();
    let mut last = Resp::default();
    for (n, step) in steps.enumerate() {
        let ctx = format!("{name} step {} {step}", n + 2);
        let (k, v) = step.as_object().unwrap().iter().next().unwrap();
        match k.as_str() {
            "http" => {
                let value = |s: &str| -> String {
                    match s.strip_prefix('$') {
                        Some(var) => vars
                            .get(var)
                            .unwrap_or_else(|| panic!("{ctx}: no ${var}"))
                            .clone(),
                        None => s.to_owned(),
                    }
                };
                let owned: Vec<(String, String)> = v["headers"]
                    .as_object()
                    .map(|o| {
                        o.iter()
                            .map(|(n, v)| (n.clone(), value(v.as_str().unwrap())))
                            .collect()
                    })
                    .unwrap_or_default();
                let headers: Vec<Header<'_>> = owned
                    .iter()
                    .map(|(n, v)| Header {
                        name: n,
                        value: v.as_bytes(),
                    })
                    .collect();
                let body = match &v["body"] {
                    Value::Null => String::new(),
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                let req = Request {
                    method: Method::from_token(v["method"].as_str().unwrap_or("POST")),
                    target: v["path"].as_str().unwrap_or("/mcp"),
                    headers: &headers,
                    body: body.as_bytes(),
                };
                last = host.send(&req);
                if let (Some(name), Some(h)) = (v["stream"].as_str(), last.open) {
                    streams.insert(name.to_owned(), (h, last.status, last.headers.clone()));
                }
            }
            "expect_http" => check(&ctx, v, &last, &mut vars),
            "read" => {
                let (h, status, headers) = streams[v.as_str().unwrap()].clone();
                let head = Resp {
                    status,
                    headers,
                    ..Resp::default()
                };
                last = host.drain(h, head);
            }
            "detach" => {
                let (h, _, _) = streams.remove(v.as_str().unwrap()).unwrap();
                host.ep.detach(h);
            }
            "notify" => {
                let slot = host.last_slot.expect("no session delivered to yet");
                let change = match v.as_str() {
                    Some("tools_list_changed") => Change::ToolsListChanged,
                    Some("prompts_list_changed") => Change::PromptsListChanged,
                    Some("resources_list_changed") => Change::ResourcesListChanged,
                    _ => Change::ResourceUpdated(leak_str(v["resource_updated"].as_str().unwrap())),
                };
                let s = host.pool[slot].as_mut().unwrap();
                s.notify(change).unwrap();
                host.ep.collect(host.now, slot, s);
            }
            "advance_ms" => {
                host.now += v.as_u64().unwrap();
                host.ep.handle_timeout(host.now);
            }
            other => panic!("{ctx}: unknown step {other}"),
        }
    }
}

#[test]
fn all_http_vectors() {
    for f in served::vector_files("http", 4) {
        run(&f);
    }
}
