//! `http_auth`: the endpoint with authorization on (`picomcp::http::auth`), under requests
//! whose target, `Authorization` header and body come from the input, and a verifier
//! whose verdict and claims come from the token's bytes.
//!
//! Layout: records separated by `0xFF`; each is `[op] target \0 authorization \0 body`
//! (op: low 2 bits the method, POST, GET, DELETE, other; bit 2: two `Authorization`
//! headers; bit 3: a forged `Host`). The verifier rejects a token starting with `!`;
//! otherwise it reads `sub|aud|exp|nbf|scope` from the token text (any of them may be
//! missing or garbage), and calls the claims sink for each.
//!
//! Invariants:
//! - nothing panics;
//! - a request is delivered to a session only with a verified principal whose grant holds
//!   the endpoint's required scope, for a token that names this resource and has not
//!   expired;
//! - every refusal by authorization is 400, 401 or 403 with a `WWW-Authenticate` value
//!   that starts `Bearer resource_metadata="` and names the metadata URL;
//! - the metadata document is JSON.

use picomcp::Limits;
use picomcp::http::auth::{AuthConfig, AuthInput, Claims, Rejected, ScopePolicy};
use picomcp::http::endpoint::{Endpoint, EndpointConfig, EndpointStorage, Outcome};
use picomcp::http::{Header, Method, Request};
use picomcp::json::Json;
use picomcp::protocol::Method as McpMethod;

const LINE: usize = 2048;
const RESOURCE: &str = "http://localhost:3000/mcp";
const NOW: u64 = 1_000_000;
const META: &str = "Bearer resource_metadata=\"http://localhost:3000/.well-known/oauth-protected-resource/mcp\"";

/// The tool `admin` needs `admin`.
struct Policy;

impl ScopePolicy for Policy {
    fn required_scopes(&self, method: McpMethod, params: Json<'_>) -> Option<&str> {
        let name = params.get("name")?.as_str()?;
        (method == McpMethod::ToolsCall && name.eq_str("admin")).then_some("admin")
    }
}

fn verify(token: &str, c: &mut Claims<'_>) -> Result<(), Rejected> {
    if token.starts_with('!') {
        return Err(Rejected("rejected"));
    }
    let mut parts = token.split('|');
    if let Some(s) = parts.next() {
        c.subject(s);
    }
    if let Some(a) = parts.next() {
        c.audience(if a == "r" { RESOURCE } else { a });
    }
    if let Some(e) = parts.next().and_then(|e| e.parse().ok()) {
        c.expires_at(e);
    }
    if let Some(n) = parts.next().and_then(|n| n.parse().ok()) {
        c.not_before(n);
    }
    for s in parts {
        c.scope(&s.replace('+', " "));
    }
    Ok(())
}

pub fn run(data: &[u8]) {
    let config = EndpointConfig {
        max_body: LINE,
        limits: Limits {
            max_line: LINE,
            ..Limits::DEFAULT
        },
        auth: Some(AuthConfig {
            scopes: &["mcp", "admin", "read"],
            scopes_supported: &["mcp"],
            required: "mcp",
            ..AuthConfig::new(RESOURCE, &["http://localhost:9000"])
        }),
        ..EndpointConfig::default()
    };
    let mut ep = Endpoint::new(config, EndpointStorage::owned(2, 4, 2 * LINE + 256)).unwrap();
    for record in data.split(|&b| b == 0xFF) {
        let Some((&op, rest)) = record.split_first() else {
            continue;
        };
        let mut fields = rest.splitn(3, |&b| b == 0);
        let target = String::from_utf8_lossy(fields.next().unwrap_or(b"/mcp")).into_owned();
        let authorization = fields.next().unwrap_or(b"");
        let body = fields.next().unwrap_or(b"");
        let mut headers = vec![
            Header {
                name: "Host",
                value: if op & 8 != 0 { b"evil.example" } else { b"localhost:3000" },
            },
            Header {
                name: "Accept",
                value: b"application/json, text/event-stream",
            },
            Header {
                name: "Content-Type",
                value: b"application/json",
            },
            Header {
                name: "Authorization",
                value: authorization,
            },
        ];
        if op & 4 != 0 {
            headers.push(Header {
                name: "Authorization",
                value: b"Bearer x",
            });
        }
        let method = [Method::Post, Method::Get, Method::Delete, Method::Other][usize::from(op & 3)];
        let req = Request {
            method,
            target: &target,
            headers: &headers,
            body,
        };
        let mut v = verify;
        let input = AuthInput {
            unix_s: NOW,
            verifier: &mut v,
            policy: Some(&Policy),
        };
        let token_ok = core::str::from_utf8(authorization)
            .ok()
            .and_then(|a| a.strip_prefix("Bearer "))
            .map(str::trim);
        match ep.handle_request_as(1, &req, &[1; 16], Some(input)) {
            Outcome::Respond { head, body } => {
                let challenge = head
                    .headers()
                    .iter()
                    .find(|h| h.name == "WWW-Authenticate")
                    .map(|h| h.value);
                if let Some(c) = challenge {
                    assert!(matches!(head.status, 400 | 401 | 403), "{}", head.status);
                    assert!(c.starts_with(META.as_bytes()));
                }
                if head.status == 200 {
                    assert!(Json::new(core::str::from_utf8(body).unwrap()).is_ok());
                }
            }
            Outcome::Deliver { .. } | Outcome::Stream(_) => {
                let p = ep.principal().expect("delivered without a verified principal");
                assert!(p.granted() & 1 == 1, "delivered without the required scope");
                let exp = p.expires_at().expect("delivered without an expiry");
                assert!(exp + 60 > NOW);
                let token = token_ok.expect("delivered without a Bearer token");
                assert!(!token.starts_with('!'));
                // Serve nothing further: the slot stays lent; a later request may evict it.
            }
        }
    }
}
