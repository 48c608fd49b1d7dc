//! The endpoint as an OAuth 2.1 protected resource, with the server layer's scopes per
//! tool, in both eras: metadata, challenges, audience/expiry/signature refusals, list
//! filtering and the 403 step-up. Nothing a refused request sends reaches a session.

use picomcp::http::auth::{AuthConfig, AuthInput, Claims, Principal, Rejected};
use picomcp::http::endpoint::{Endpoint, EndpointConfig, EndpointStorage, Outcome, Poll};
use picomcp::http::{Header, Method, Request};
use picomcp::server::{Call, Catalog, Handled, Options, Prompt, Server, Tool, ToolResult};
use picomcp::session::{Config, Session, Storage};
use serde_json::Value;

const LINE: usize = 8192;
const RESOURCE: &str = "http://localhost:3000/mcp";
const NOW: u64 = 1_800_000_000;

const TOOLS: &[Tool<'static>] = &[
    Tool::new("whoami", r#"{"type":"object"}"#),
    Tool::new("write_file", r#"{"type":"object"}"#).scopes("files:write"),
];
const PROMPTS: &[Prompt<'static>] = &[Prompt::new("secret").scopes("files:read files:write")];

fn auth_config() -> AuthConfig<'static> {
    AuthConfig {
        scopes: &["mcp", "files:read", "files:write"],
        scopes_supported: &["mcp"],
        required: "mcp",
        ..AuthConfig::new(RESOURCE, &["http://localhost:9000"])
    }
}

/// The host's verifier in these tests: tokens are `sub.aud.exp.scopes`, aud `r` this
/// resource (`R` in capitals), `o` another, `_` between scopes, `-` for `:`; `forged.*` fails verification (a real host
/// checks a signature here: examples/ do, with jsonwebtoken, PyJWT, jose).
fn verify(token: &str, c: &mut Claims<'_>) -> Result<(), Rejected> {
    let parts: Vec<&str> = token.split('.').collect();
    if parts[0] == "forged" || parts.len() != 4 {
        return Err(Rejected("bad signature"));
    }
    c.subject(parts[0]);
    c.client_id("test-client");
    c.audience(match parts[1] {
        "r" => RESOURCE,
        "R" => "HTTP://LOCALHOST:3000/mcp",
        _ => "http://localhost:3001/mcp",
    });
    c.expires_at(parts[2].parse().unwrap());
    c.scope(&parts[3].replace('_', " ").replace('-', ":"));
    Ok(())
}

fn token(sub: &str, scopes: &str) -> String {
    format!(
        "{sub}.R.{}.{}",
        NOW + 3600,
        scopes.replace(' ', "_").replace(':', "-")
    )
}

struct Resp {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Resp {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
    fn json(&self) -> Value {
        let text = self
            .body
            .lines()
            .find_map(|l| l.strip_prefix("data: ").filter(|d| !d.is_empty()))
            .unwrap_or(&self.body);
        serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {}", self.body))
    }
}

struct Host {
    ep: Endpoint<'static>,
    pool: Vec<Option<Session<'static>>>,
    server: Server<'static>,
    delivered: usize,
}

impl Host {
    fn new() -> Host {
        let config = EndpointConfig {
            max_body: LINE,
            limits: picomcp::Limits {
                max_line: LINE,
                ..picomcp::Limits::DEFAULT
            },
            auth: Some(auth_config()),
            ..EndpointConfig::default()
        };
        let catalog = Catalog {
            tools: TOOLS,
            prompts: PROMPTS,
            ..Catalog::default()
        };
        Host {
            ep: Endpoint::new(config, EndpointStorage::owned(4, 8, 2 * LINE)).unwrap(),
            pool: (0..4).map(|_| None).collect(),
            server: Server::new(catalog, Options::default()).unwrap(),
            delivered: 0,
        }
    }

    fn send(&mut self, method: Method, target: &str, headers: &[(&str, &str)], body: &str) -> Resp {
        let hs: Vec<Header<'_>> = headers
            .iter()
            .map(|(n, v)| Header {
                name: n,
                value: v.as_bytes(),
            })
            .collect();
        let req = Request {
            method,
            target,
            headers: &hs,
            body: body.as_bytes(),
        };
        let mut verifier = verify;
        let input = AuthInput {
            unix_s: NOW,
            verifier: &mut verifier,
            policy: Some(&self.server),
        };
        let outcome = self.ep.handle_request_as(1, &req, &[7; 16], Some(input));
        let (slot, fresh, stream) = match outcome {
            Outcome::Respond { head, body } => {
                return Resp {
                    status: head.status,
                    headers: head
                        .headers()
                        .iter()
                        .map(|h| (h.name.to_owned(), h.value_str().unwrap().to_owned()))
                        .collect(),
                    body: String::from_utf8(body.to_vec()).unwrap(),
                };
            }
            Outcome::Stream(_) => panic!("no GET streams here"),
            Outcome::Deliver {
                slot,
                fresh,
                stream,
            } => (slot, fresh, stream),
        };
        // The principal the endpoint verified: copied out (it is the endpoint's until
        // the next request), then handed to the server layer and the handler.
        let principal: Principal = *self.ep.principal().expect("a verified principal");
        let config = auth_config();
        let access = principal.access(&config);
        self.delivered += 1;
        if fresh || self.pool[slot].is_none() {
            let mut caps = [0u8; picomcp::server::CAPABILITIES_MAX];
            let caps = self.server.capabilities(&mut caps).unwrap();
            let mut c = Config::server("auth-test", "1.0.0", caps);
            c.limits.max_line = LINE;
            let storage = Storage::owned(LINE, 8, 4, c.info_len());
            self.pool[slot] = Some(Session::new(&c, storage, 1).unwrap());
        }
        let s = self.pool[slot].as_mut().unwrap();
        s.handle_message(1, req.body).unwrap();
        while let Some((event, mut cmds)) = s.poll_event_split() {
            if let Handled::Call(Call::Tool(call)) = self.server.handle_as(event, &mut cmds, access)
            {
                let text = format!("{} via {}", principal.subject(), principal.client_id());
                self.server
                    .respond_tool(
                        &mut cmds,
                        call.id,
                        call.tool,
                        &ToolResult::text(text.as_str()),
                    )
                    .unwrap();
            }
        }
        self.ep.collect(1, slot, s);
        let Some(h) = stream else {
            return Resp {
                status: 202,
                headers: vec![],
                body: String::new(),
            };
        };
        let mut r = Resp {
            status: 0,
            headers: vec![],
            body: String::new(),
        };
        loop {
            match self.ep.poll_response(1, h) {
                Poll::Head(head) => {
                    r.status = head.status;
                    r.headers = head
                        .headers()
                        .iter()
                        .map(|h| (h.name.to_owned(), h.value_str().unwrap().to_owned()))
                        .collect();
                }
                Poll::Body(b) => {
                    let n = b.len();
                    r.body.push_str(std::str::from_utf8(b).unwrap());
                    self.ep.advance(h, n);
                }
                Poll::Wait | Poll::End => return r,
            }
        }
    }

    fn post(&mut self, token: Option<&str>, extra: &[(&str, &str)], body: &str) -> Resp {
        let bearer = token.map(|t| format!("Bearer {t}"));
        let mut hs = vec![
            ("Host", "localhost:3000"),
            ("Accept", "application/json, text/event-stream"),
            ("Content-Type", "application/json"),
        ];
        if let Some(b) = &bearer {
            hs.push(("Authorization", b));
        }
        hs.extend_from_slice(extra);
        self.send(Method::Post, "/mcp", &hs, body)
    }

    /// A legacy session at 2025-11-25 opened with `token`; its id.
    fn open(&mut self, token: &str) -> String {
        let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
        let r = self.post(Some(token), &[], init);
        assert_eq!(r.status, 200, "{}", r.body);
        let sid = r.header("Mcp-Session-Id").unwrap().to_owned();
        let n = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        let v = [
            ("Mcp-Session-Id", sid.as_str()),
            ("MCP-Protocol-Version", "2025-11-25"),
        ];
        assert_eq!(self.post(Some(token), &v, n).status, 202);
        sid
    }
}

const META_PATH: &str = "http://localhost:3000/.well-known/oauth-protected-resource/mcp";

fn challenge(extra: &str) -> String {
    format!("Bearer resource_metadata=\"{META_PATH}\", scope=\"mcp{extra}")
}

#[test]
fn metadata_is_served_at_both_well_known_paths() {
    let mut h = Host::new();
    for path in [
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp",
    ] {
        let r = h.send(Method::Get, path, &[("Host", "localhost:3000")], "");
        assert_eq!(r.status, 200, "{path}");
        assert_eq!(r.header("Content-Type"), Some("application/json"));
        let doc: Value = serde_json::from_str(&r.body).unwrap();
        assert_eq!(doc["resource"], RESOURCE);
        assert_eq!(doc["authorization_servers"][0], "http://localhost:9000");
        assert_eq!(doc["scopes_supported"], serde_json::json!(["mcp"]));
        assert_eq!(
            doc["bearer_methods_supported"],
            serde_json::json!(["header"])
        );
    }
    let other = "/.well-known/oauth-protected-resource/other";
    let r = h.send(Method::Get, other, &[("Host", "localhost:3000")], "");
    assert_eq!(r.status, 404);
    let path = "/.well-known/oauth-protected-resource";
    let r = h.send(Method::Post, path, &[("Host", "localhost:3000")], "{}");
    assert_eq!((r.status, r.header("Allow")), (405, Some("GET")));
    let r = h.send(Method::Get, path, &[("Host", "evil.example")], "");
    assert_eq!(r.status, 403, "the DNS-rebinding check applies here too");
}

#[test]
fn requests_without_a_valid_token_get_401_and_reach_no_session() {
    let mut h = Host::new();
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let r = h.post(None, &[], init);
    assert_eq!(r.status, 401);
    assert_eq!(r.header("WWW-Authenticate"), Some(&*challenge("\"")));
    let invalid = |why: &str| {
        format!(
            "{}, error=\"invalid_token\", error_description=\"{why}\"",
            challenge("\"")
        )
    };
    let cases = [
        ("forged.x.1.mcp".to_owned(), "bad signature"),
        (
            format!("a.o.{}.mcp", NOW + 60),
            "the token is for another resource",
        ),
        (format!("a.r.{}.mcp", NOW - 61), "the token has expired"),
    ];
    for (t, why) in cases {
        let r = h.post(Some(&t), &[], init);
        assert_eq!(r.status, 401, "{t}");
        assert_eq!(r.header("WWW-Authenticate"), Some(&*invalid(why)), "{t}");
    }
    // Within the leeway, an expired-looking token still passes.
    let t = format!("a.r.{}.mcp", NOW - 30);
    assert_eq!(h.post(Some(&t), &[], init).status, 200);
    // The query string is never a place for a token.
    let hs = [
        ("Host", "localhost:3000"),
        ("Content-Type", "application/json"),
    ];
    let r = h.send(Method::Post, "/mcp?access_token=abc", &hs, init);
    assert_eq!(r.status, 400);
    assert!(
        r.header("WWW-Authenticate")
            .unwrap()
            .contains("invalid_request")
    );
    // GET and DELETE need the token too.
    for m in [Method::Get, Method::Delete] {
        let r = h.send(m, "/mcp", &[("Host", "localhost:3000")], "");
        assert_eq!(r.status, 401, "{m:?}");
    }
    assert_eq!(
        h.delivered, 1,
        "only the one valid request reached a session"
    );
    assert_eq!(h.ep.stats().unauthorized, 7);
    assert_eq!(h.ep.stats().sessions_opened, 1);
}

#[test]
fn handle_request_without_a_verifier_refuses_everything_under_auth() {
    let mut h = Host::new();
    let hs = [
        Header {
            name: "Host",
            value: b"localhost:3000",
        },
        Header {
            name: "Authorization",
            value: b"Bearer abc",
        },
    ];
    let req = Request {
        method: Method::Post,
        target: "/mcp",
        headers: &hs,
        body: b"{}",
    };
    let Outcome::Respond { head, .. } = h.ep.handle_request(1, &req, &[0; 16]) else {
        panic!("refused");
    };
    assert_eq!(head.status, 401);
    assert!(h.ep.principal().is_none());
}

fn names(r: &Resp, key: &str) -> Vec<String> {
    r.json()["result"][key]
        .as_array()
        .unwrap_or_else(|| panic!("{}", r.body))
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn legacy_sessions_filter_lists_and_step_up_on_403() {
    let mut h = Host::new();
    let basic = token("alice", "mcp");
    let sid = h.open(&basic);
    let s = [
        ("Mcp-Session-Id", sid.as_str()),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    let list = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
    assert_eq!(names(&h.post(Some(&basic), &s, list), "tools"), ["whoami"]);
    let plist = r#"{"jsonrpc":"2.0","id":3,"method":"prompts/list"}"#;
    assert!(names(&h.post(Some(&basic), &s, plist), "prompts").is_empty());
    let call = |id: u32, tool: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}"}}}}"#
        )
    };
    let r = h.post(Some(&basic), &s, &call(4, "whoami"));
    assert_eq!(
        r.json()["result"]["content"][0]["text"],
        "alice via test-client"
    );
    // A tool outside the grant: 403 naming every scope the call needs.
    let before = h.delivered;
    let r = h.post(Some(&basic), &s, &call(5, "write_file"));
    assert_eq!(r.status, 403);
    assert_eq!(
        r.header("WWW-Authenticate"),
        Some(&*format!(
            "{} files:write\", error=\"insufficient_scope\", error_description=\"the token lacks a scope this request needs\"",
            challenge("")
        ))
    );
    let get = r#"{"jsonrpc":"2.0","id":6,"method":"prompts/get","params":{"name":"secret"}}"#;
    let r = h.post(Some(&basic), &s, get);
    assert_eq!(r.status, 403);
    assert!(
        r.header("WWW-Authenticate")
            .unwrap()
            .contains("scope=\"mcp files:read files:write\"")
    );
    assert_eq!(h.delivered, before, "refused before the session");
    // A token without the endpoint's own scope: 403 too.
    let r = h.post(Some(&token("alice", "files:write")), &s, &call(7, "whoami"));
    assert_eq!(r.status, 403);
    // Step up: a new token with the scope, on the same session.
    let wide = token("alice", "mcp files:write");
    assert_eq!(
        names(&h.post(Some(&wide), &s, list), "tools"),
        ["whoami", "write_file"]
    );
    let r = h.post(Some(&wide), &s, &call(8, "write_file"));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        r.json()["result"]["content"][0]["text"],
        "alice via test-client"
    );
}

#[test]
fn a_legacy_session_is_bound_to_the_principal_that_started_it() {
    let mut h = Host::new();
    let alice = token("alice", "mcp");
    let sid = h.open(&alice);
    let s = [
        ("Mcp-Session-Id", sid.as_str()),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    let list = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
    // Another subject with a valid token and the id: 404 as for an unknown session, and
    // nothing reaches the session; DELETE cannot end it either.
    let before = h.delivered;
    let mallory = token("mallory", "mcp files:write");
    let r = h.post(Some(&mallory), &s, list);
    assert_eq!(r.status, 404, "{}", r.body);
    assert!(r.body.contains("unknown session"), "{}", r.body);
    let r = h.send(
        Method::Delete,
        "/mcp",
        &[
            ("Host", "localhost:3000"),
            ("Authorization", &format!("Bearer {mallory}")),
            ("Mcp-Session-Id", &sid),
        ],
        "",
    );
    assert_eq!(r.status, 404, "{}", r.body);
    assert_eq!(h.delivered, before);
    // The owner still has it, with a refreshed token too.
    assert_eq!(names(&h.post(Some(&alice), &s, list), "tools"), ["whoami"]);
    let refreshed = token("alice", "mcp files:write");
    assert_eq!(
        names(&h.post(Some(&refreshed), &s, list), "tools"),
        ["whoami", "write_file"]
    );
    // The record a shared store keeps carries the owner, and an adopted session stays
    // bound: a second process refuses the other subject too.
    let record = h.ep.session_record(sid.as_bytes()).unwrap();
    assert!(record.owner.is_some());
    let decoded = picomcp::http::endpoint::SessionRecord::decode(&record.encode()).unwrap();
    assert_eq!(decoded, record);
    let mut other = Host::new();
    other.ep.adopt_session(1, &decoded).unwrap();
    assert_eq!(other.post(Some(&mallory), &s, list).status, 404);
    // A record without an owner is no one's under authorization.
    let mut third = Host::new();
    let unowned = picomcp::http::endpoint::SessionRecord {
        owner: None,
        ..record
    };
    third.ep.adopt_session(1, &unowned).unwrap();
    assert_eq!(third.post(Some(&alice), &s, list).status, 404);
}

#[test]
fn batches_are_checked_per_message_by_the_server_layer() {
    // The endpoint checks the operation of a single-message POST; a 2025-03-26 batch
    // gets the server layer's JSON-RPC refusal per message instead.
    let mut h = Host::new();
    let basic = token("bob", "mcp");
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let r = h.post(Some(&basic), &[], init);
    let sid = r.header("Mcp-Session-Id").unwrap().to_owned();
    let s = [("Mcp-Session-Id", sid.as_str())];
    h.post(
        Some(&basic),
        &s,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    );
    let batch = r#"[{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"write_file"}},{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"whoami"}}]"#;
    let r = h.post(Some(&basic), &s, batch);
    assert_eq!(r.status, 200, "{}", r.body);
    let all: Vec<Value> = if r.body.starts_with('[') {
        serde_json::from_str(&r.body).unwrap()
    } else {
        r.body
            .lines()
            .filter_map(|l| l.strip_prefix("data: ").filter(|d| !d.is_empty()))
            .flat_map(|d| match serde_json::from_str::<Value>(d).unwrap() {
                Value::Array(a) => a,
                v => vec![v],
            })
            .collect()
    };
    let by_id = |id: u64| all.iter().find(|m| m["id"] == id).unwrap().clone();
    assert_eq!(by_id(2)["error"]["code"], -32602);
    assert!(
        by_id(2)["error"]["message"]
            .as_str()
            .unwrap()
            .contains("files:write")
    );
    assert_eq!(
        by_id(3)["result"]["content"][0]["text"],
        "bob via test-client"
    );
}

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

#[test]
fn stateless_requests_are_checked_one_by_one() {
    let mut h = Host::new();
    let v = |m: &'static str, name: Option<&'static str>| {
        let mut hs = vec![("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", m)];
        if let Some(n) = name {
            hs.push(("Mcp-Name", n));
        }
        hs
    };
    let list = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{{META}}}}}"#);
    let r = h.post(None, &v("tools/list", None), &list);
    assert_eq!(r.status, 401);
    let basic = token("carol", "mcp");
    let r = h.post(Some(&basic), &v("tools/list", None), &list);
    assert_eq!(names(&r, "tools"), ["whoami"]);
    let call = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"write_file","arguments":{{}},{META}}}}}"#
    );
    let r = h.post(Some(&basic), &v("tools/call", Some("write_file")), &call);
    assert_eq!(r.status, 403);
    assert!(
        r.header("WWW-Authenticate")
            .unwrap()
            .contains("scope=\"mcp files:write\"")
    );
    let wide = token("carol", "mcp files:write");
    let r = h.post(Some(&wide), &v("tools/call", Some("write_file")), &call);
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        r.json()["result"]["content"][0]["text"],
        "carol via test-client"
    );
    assert_eq!(h.ep.sessions(), 0);
}
