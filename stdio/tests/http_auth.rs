//! The blocking HTTP server as an OAuth 2.1 protected resource, over real sockets: the
//! metadata document, 401/403 challenges, the filtered list and the principal reaching
//! the handler. The verifier here looks tokens up in a table (as an introspecting host
//! would); examples/ verify signed JWTs.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use picomcp::http::auth::{AuthConfig, Claims, Principal, Rejected, ScopePolicy};
use picomcp::http::endpoint::{EndpointConfig, EndpointStorage};
use picomcp::server::{Access, Call, Catalog, Handled, Options, Server, Tool, ToolResult};
use picomcp::session::{Config, Session, Storage};
use picomcp_stdio::http::{HttpOptions, Service, serve_on};

const LINE: usize = 8192;
const TOOLS: &[Tool<'static>] = &[
    Tool::new("whoami", r#"{"type":"object"}"#),
    Tool::new("write_file", r#"{"type":"object"}"#).scopes("files:write"),
];
const SCOPES: &[&str] = &["mcp", "files:write"];

struct App {
    resource: &'static str,
    server: Server<'static>,
    slots: Vec<Option<Session<'static>>>,
    principal: Option<Principal>,
}

impl Service for App {
    fn reset(&mut self, slot: usize, now: u64) {
        let mut caps = [0u8; picomcp::server::CAPABILITIES_MAX];
        let caps = self.server.capabilities(&mut caps).unwrap();
        let mut c = Config::server("auth", "1", caps);
        c.limits.max_line = LINE;
        self.slots[slot] = Session::new(&c, Storage::owned(LINE, 8, 4, c.info_len()), now).ok();
    }
    fn session(&mut self, slot: usize) -> Option<&mut Session<'static>> {
        self.slots[slot].as_mut()
    }
    fn run(&mut self, slot: usize, _now: u64) {
        let Some(s) = self.slots[slot].as_mut() else {
            return;
        };
        let access = self
            .principal
            .map_or(Access::ALL, |p| Access::new(SCOPES, p.granted()));
        while let Some((event, mut cmds)) = s.poll_event_split() {
            if let Handled::Call(Call::Tool(c)) = self.server.handle_as(event, &mut cmds, access) {
                let who = self
                    .principal
                    .map(|p| p.subject().to_owned())
                    .unwrap_or_default();
                let _ = self.server.respond_tool(
                    &mut cmds,
                    c.id,
                    c.tool,
                    &ToolResult::text(who.as_str()),
                );
            }
        }
    }
    fn tick(&mut self, _slot: usize, _now: u64) -> Option<u64> {
        None
    }
    fn verify(&self, token: &str, claims: &mut Claims<'_>) -> Result<(), Rejected> {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_secs();
        let (sub, aud, exp, scope) = match token {
            "basic" => ("alice", self.resource, now + 600, "mcp"),
            "wide" => ("alice", self.resource, now + 600, "mcp files:write"),
            "elsewhere" => ("alice", "http://127.0.0.1:1/mcp", now + 600, "mcp"),
            "expired" => ("alice", self.resource, now - 3600, "mcp"),
            _ => return Err(Rejected("unknown token")),
        };
        claims.subject(sub);
        claims.audience(aud);
        claims.expires_at(exp);
        claims.scope(scope);
        Ok(())
    }
    fn scope_policy(&self) -> Option<&dyn ScopePolicy> {
        Some(&self.server)
    }
    fn principal(&mut self, _slot: usize, principal: Option<&Principal>) {
        self.principal = principal.copied();
    }
}

fn start() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let resource: &'static str = Box::leak(format!("http://127.0.0.1:{port}/mcp").into());
    let config = EndpointConfig {
        max_body: LINE,
        limits: picomcp::Limits {
            max_line: LINE,
            ..picomcp::Limits::DEFAULT
        },
        auth: Some(AuthConfig {
            scopes: SCOPES,
            scopes_supported: &["mcp"],
            required: "mcp",
            ..AuthConfig::new(resource, &["http://127.0.0.1:9"])
        }),
        ..EndpointConfig::default()
    };
    let storage = EndpointStorage::owned(8, 16, LINE + 1024);
    let catalog = Catalog {
        tools: TOOLS,
        ..Catalog::default()
    };
    let svc = App {
        resource,
        server: Server::new(catalog, Options::default()).unwrap(),
        slots: (0..8).map(|_| None).collect(),
        principal: None,
    };
    let mut options = HttpOptions::default();
    options.codec.max_body = LINE;
    std::thread::spawn(move || serve_on(listener, config, storage, svc, options));
    port
}

/// One request, one `Content-Length` response: (status, head, body).
fn exchange(port: u16, method: &str, path: &str, extra: &str, body: &str) -> (u16, String, String) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\n{extra}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).unwrap();
    let mut out = String::new();
    let _ = s.read_to_string(&mut out);
    let (head, body) = out.split_once("\r\n\r\n").unwrap_or((&out, ""));
    let status = head.get(9..12).and_then(|c| c.parse().ok()).unwrap_or(0);
    (status, head.to_owned(), body.to_owned())
}

fn header<'h>(head: &'h str, name: &str) -> Option<&'h str> {
    head.lines().find_map(|l| {
        let (n, v) = l.split_once(": ")?;
        n.eq_ignore_ascii_case(name).then_some(v)
    })
}

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;

#[test]
fn a_protected_server_over_sockets() {
    let port = start();
    let meta = format!("http://127.0.0.1:{port}/.well-known/oauth-protected-resource/mcp");
    // The metadata document, at the path the challenge names.
    let (status, _, body) = exchange(
        port,
        "GET",
        "/.well-known/oauth-protected-resource/mcp",
        "",
        "",
    );
    assert_eq!(status, 200);
    let doc = picomcp::json::Json::new(&body).unwrap();
    let text = |k: &str| {
        doc.get(k)
            .and_then(|v| v.as_str())
            .and_then(|v| v.as_plain())
    };
    assert_eq!(
        text("resource"),
        Some(&*format!("http://127.0.0.1:{port}/mcp"))
    );
    assert_eq!(
        doc.get("bearer_methods_supported").unwrap().as_raw(),
        r#"["header"]"#
    );

    // No token, a foreign one, an expired one, an unknown one: 401, nothing served.
    let (status, head, _) = exchange(port, "POST", "/mcp", "", INIT);
    assert_eq!(status, 401);
    assert_eq!(
        header(&head, "WWW-Authenticate"),
        Some(&*format!(
            "Bearer resource_metadata=\"{meta}\", scope=\"mcp\""
        ))
    );
    for t in ["elsewhere", "expired", "forged"] {
        let (status, head, _) = exchange(
            port,
            "POST",
            "/mcp",
            &format!("Authorization: Bearer {t}\r\n"),
            INIT,
        );
        assert_eq!(status, 401, "{t}");
        assert!(
            header(&head, "WWW-Authenticate")
                .unwrap()
                .contains("invalid_token")
        );
    }

    // A session with the basic token: the filtered list, a refused call, a step-up.
    let basic = "Authorization: Bearer basic\r\n";
    let (status, head, body) = exchange(port, "POST", "/mcp", basic, INIT);
    assert_eq!(status, 200, "{body}");
    let sid = header(&head, "Mcp-Session-Id").unwrap().to_owned();
    let s = format!("Mcp-Session-Id: {sid}\r\nMCP-Protocol-Version: 2025-11-25\r\n");
    let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    assert_eq!(
        exchange(port, "POST", "/mcp", &format!("{basic}{s}"), initialized).0,
        202
    );
    let list = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
    let (_, _, body) = exchange(port, "POST", "/mcp", &format!("{basic}{s}"), list);
    assert!(
        body.contains("whoami") && !body.contains("write_file"),
        "{body}"
    );
    let call = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"write_file"}}"#;
    let (status, head, _) = exchange(port, "POST", "/mcp", &format!("{basic}{s}"), call);
    assert_eq!(status, 403);
    assert_eq!(
        header(&head, "WWW-Authenticate"),
        Some(&*format!(
            "Bearer resource_metadata=\"{meta}\", scope=\"mcp files:write\", error=\"insufficient_scope\", error_description=\"the token lacks a scope this request needs\""
        ))
    );
    let wide = "Authorization: Bearer wide\r\n";
    let (status, _, body) = exchange(port, "POST", "/mcp", &format!("{wide}{s}"), call);
    assert_eq!(status, 200, "{body}");
    assert!(
        body.contains(r#""text":"alice""#),
        "the handler sees the principal: {body}"
    );
}
