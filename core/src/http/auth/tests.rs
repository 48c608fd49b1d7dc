//! The resource-server rules, one function at a time (the endpoint's use of them is in
//! core/tests/http_auth.rs).

extern crate std;
use std::format;
use std::string::String;
use std::vec::Vec;

use super::*;
use crate::Limits;
use crate::http::{Header, Method as HttpMethod, Request};

const AS: &[&str] = &["https://auth.example.com"];
const SCOPES: &[&str] = &["mcp", "files:read", "files:write", "offline_access"];

fn config() -> AuthConfig<'static> {
    AuthConfig {
        scopes: SCOPES,
        scopes_supported: &["mcp", "files:read"],
        required: "mcp",
        resource_name: Some("Demo"),
        ..AuthConfig::new("https://mcp.example.com/mcp", AS)
    }
}

fn text(buf: &[u8], n: usize) -> &str {
    core::str::from_utf8(&buf[..n]).unwrap()
}

#[test]
fn metadata_document_has_the_rfc_9728_fields() {
    let mut buf = [0u8; 512];
    let n = write_metadata(&config(), &mut buf).unwrap();
    let full = n;
    assert_eq!(
        text(&buf, n),
        r#"{"resource":"https://mcp.example.com/mcp","authorization_servers":["https://auth.example.com"],"scopes_supported":["mcp","files:read"],"bearer_methods_supported":["header"],"resource_name":"Demo"}"#
    );
    let bare = AuthConfig::new("http://localhost:8000/mcp", AS);
    let n = write_metadata(&bare, &mut buf).unwrap();
    assert!(!text(&buf, n).contains("scopes_supported"));
    assert_eq!(
        write_metadata(&config(), &mut buf[..10]),
        Err(InsufficientSize { required: full })
    );
}

#[test]
fn metadata_urls_are_path_inserted() {
    let mut buf = [0u8; 128];
    let n = write_metadata_url("https://mcp.example.com/public/mcp", &mut buf).unwrap();
    assert_eq!(
        text(&buf, n),
        "https://mcp.example.com/.well-known/oauth-protected-resource/public/mcp"
    );
    let n = write_metadata_url("http://127.0.0.1:8000", &mut buf).unwrap();
    assert_eq!(
        text(&buf, n),
        "http://127.0.0.1:8000/.well-known/oauth-protected-resource"
    );
    assert_eq!(metadata_url_len("http://127.0.0.1:8000/"), n);
    let r = "http://localhost:3000/mcp";
    assert!(is_metadata_path(METADATA_PATH, r, "/mcp"));
    assert!(is_metadata_path(
        "/.well-known/oauth-protected-resource/mcp",
        r,
        "/mcp"
    ));
    assert!(!is_metadata_path(
        "/.well-known/oauth-protected-resource/other",
        r,
        "/mcp"
    ));
    assert!(!is_metadata_path(
        "/.well-known/oauth-authorization-server",
        r,
        "/mcp"
    ));
}

#[test]
fn resources_compare_canonically() {
    let r = "https://mcp.example.com/mcp";
    assert!(same_resource(r, r));
    assert!(same_resource("HTTPS://MCP.Example.COM/mcp", r));
    assert!(same_resource("https://mcp.example.com:443/mcp", r));
    assert!(same_resource(
        "https://mcp.example.com",
        "https://mcp.example.com/"
    ));
    assert!(same_resource("http://[::1]:80/x", "http://[::1]/x"));
    assert!(
        !same_resource("https://mcp.example.com/MCP", r),
        "paths are exact"
    );
    assert!(!same_resource("https://mcp.example.com/mcp/", r));
    assert!(!same_resource("http://mcp.example.com/mcp", r));
    assert!(!same_resource("https://mcp.example.com:8443/mcp", r));
    assert!(!same_resource("https://evil.example.com/mcp", r));
    assert!(
        !same_resource("https://mcp.example.com/mcp#x", r),
        "no fragment"
    );
    assert!(!same_resource("mcp.example.com/mcp", "mcp.example.com/mcp"));
    assert!(!same_resource("https://mcp.example.com:x/mcp", r));
}

#[test]
fn config_checks() {
    assert_eq!(config().check(), Ok(()));
    let bad = |c: AuthConfig<'static>| c.check().unwrap_err();
    assert_eq!(
        bad(AuthConfig::new("mcp.example.com", AS)),
        AuthConfigError::BadResource
    );
    assert_eq!(
        bad(AuthConfig::new("https://a.example/#f", AS)),
        AuthConfigError::BadResource
    );
    assert_eq!(
        bad(AuthConfig::new("https://a.example/", &[])),
        AuthConfigError::NoAuthorizationServer
    );
    assert_eq!(
        bad(AuthConfig {
            scopes: &["a b"],
            ..config()
        }),
        AuthConfigError::BadScope
    );
    assert_eq!(
        bad(AuthConfig {
            required: "admin",
            ..config()
        }),
        AuthConfigError::UnknownRequiredScope
    );
    const MANY: [&str; 65] = ["s"; 65];
    assert_eq!(
        bad(AuthConfig {
            scopes: &MANY,
            required: "",
            ..config()
        }),
        AuthConfigError::TooManyScopes
    );
}

fn denial(kind: DenialKind, op: Option<&'static str>) -> Denial<'static> {
    Denial {
        kind,
        description: "why",
        operation_scopes: op,
    }
}

#[test]
fn challenges() {
    let mut buf = [0u8; 512];
    let c = config();
    let meta =
        "resource_metadata=\"https://mcp.example.com/.well-known/oauth-protected-resource/mcp\"";
    let n = write_challenge(&c, &denial(DenialKind::NoToken, None), &mut buf).unwrap();
    assert_eq!(text(&buf, n), format!("Bearer {meta}, scope=\"mcp\""));
    let n = write_challenge(&c, &denial(DenialKind::InvalidToken, None), &mut buf).unwrap();
    assert_eq!(
        text(&buf, n),
        format!("Bearer {meta}, scope=\"mcp\", error=\"invalid_token\", error_description=\"why\"")
    );
    let op = Some("files:write mcp files:read");
    let d = denial(DenialKind::InsufficientScope, op);
    let n = write_challenge(&c, &d, &mut buf).unwrap();
    assert_eq!(
        text(&buf, n),
        format!(
            "Bearer {meta}, scope=\"mcp files:write files:read\", error=\"insufficient_scope\", error_description=\"why\""
        ),
        "every scope the operation needs, once, in one challenge"
    );
    let n = write_challenge(&c, &denial(DenialKind::InvalidRequest, None), &mut buf).unwrap();
    assert_eq!(
        text(&buf, n),
        format!("Bearer {meta}, error=\"invalid_request\", error_description=\"why\"")
    );
    let open = AuthConfig { required: "", ..c };
    let n = write_challenge(&open, &denial(DenialKind::NoToken, None), &mut buf).unwrap();
    assert_eq!(text(&buf, n), format!("Bearer {meta}"));
    assert!(write_challenge(&c, &d, &mut buf[..20]).is_err());
}

fn req<'a>(target: &'a str, headers: &'a [Header<'a>], body: &'a [u8]) -> Request<'a> {
    Request {
        method: HttpMethod::Post,
        target,
        headers,
        body,
    }
}

fn auth(value: &str) -> Header<'_> {
    Header {
        name: "Authorization",
        value: value.as_bytes(),
    }
}

#[test]
fn bearer_tokens_come_from_the_header_only() {
    let h = [auth("Bearer abc.DEF-_~+/==")];
    assert_eq!(
        bearer_token(&req("/mcp", &h, b"")),
        Ok(Some("abc.DEF-_~+/=="))
    );
    let h = [auth("bearer   abc")];
    assert_eq!(bearer_token(&req("/mcp", &h, b"")), Ok(Some("abc")));
    assert_eq!(bearer_token(&req("/mcp", &[], b"")), Ok(None));
    let h = [auth("Basic dXNlcjpwYXNz")];
    assert_eq!(bearer_token(&req("/mcp", &h, b"")), Ok(None));
    let kind = |r: Result<Option<&str>, Denial<'_>>| r.unwrap_err().kind;
    let q = req("/mcp?x=1&access_token=abc", &[], b"");
    assert_eq!(kind(bearer_token(&q)), DenialKind::InvalidRequest);
    let h = [auth("Bearer abc")];
    let q = req("/mcp?access_token=abc", &h, b"");
    assert_eq!(kind(bearer_token(&q)), DenialKind::InvalidRequest);
    for bad in ["Bearer", "Bearer a b", "Bearer a\"b", "Bearer =abc"] {
        let h = [auth(bad)];
        assert_eq!(
            kind(bearer_token(&req("/mcp", &h, b""))),
            DenialKind::InvalidRequest,
            "{bad}"
        );
    }
    let h = [auth("Bearer a"), auth("Bearer b")];
    assert_eq!(
        kind(bearer_token(&req("/mcp", &h, b""))),
        DenialKind::InvalidRequest
    );
}

/// Test tokens: hex of `sub;aud;exp;scope` (the host's verifier is whatever it needs;
/// this one reads a made-up format). `forged` fails verification.
fn verify(token: &str, c: &mut Claims<'_>) -> Result<(), Rejected> {
    if token == "forged" {
        return Err(Rejected("bad signature"));
    }
    let bytes: Vec<u8> = (0..token.len() / 2)
        .map(|i| u8::from_str_radix(&token[2 * i..2 * i + 2], 16).unwrap())
        .collect();
    let token = String::from_utf8(bytes).unwrap();
    let mut parts = token.split(';');
    let sub = parts.next().unwrap_or("");
    c.subject(sub);
    c.client_id("client-1");
    for aud in parts
        .next()
        .unwrap_or("")
        .split(',')
        .filter(|a| !a.is_empty())
    {
        c.audience(aud);
    }
    if let Some(exp) = parts.next().and_then(|e| e.parse().ok()) {
        c.expires_at(exp);
    }
    c.scope(&parts.next().unwrap_or("").replace('+', " "));
    Ok(())
}

struct Policy;
impl ScopePolicy for Policy {
    fn required_scopes(
        &self,
        method: crate::protocol::Method,
        params: crate::json::Json<'_>,
    ) -> Option<&str> {
        let name = params.get("name")?.as_str()?.as_plain()?;
        (method == crate::protocol::Method::ToolsCall && name == "write").then_some("files:write")
    }
}

fn check(token: &str, body: &str, now: u64) -> Result<Principal, DenialKind> {
    let token: String = if token == "forged" {
        token.into()
    } else {
        token.bytes().map(|b| format!("{b:02x}")).collect()
    };
    let value = format!("Bearer {token}");
    let h = [auth(&value)];
    let r = req("/mcp", &h, body.as_bytes());
    let mut v = verify;
    let mut input = AuthInput {
        unix_s: now,
        verifier: &mut v,
        policy: Some(&Policy),
    };
    let mut p = Principal::EMPTY;
    authenticate(&config(), &r, &mut input, &mut p, &Limits::DEFAULT)
        .map(|()| p)
        .map_err(|d| d.kind)
}

const R: &str = "https://mcp.example.com/mcp";

#[test]
fn tokens_are_checked_for_audience_expiry_and_scope() {
    let p = check(&format!("alice;{R};2000;mcp+files:read+other"), "", 1000).unwrap();
    assert_eq!(p.subject(), "alice");
    assert_eq!(p.client_id(), "client-1");
    assert_eq!(p.expires_at(), Some(2000));
    assert_eq!(p.granted(), 0b011, "unknown scopes are ignored");
    assert!(p.has_scope(&config(), "files:read") && !p.has_scope(&config(), "files:write"));
    // Audience: one of several entries suffices; none, or another, is refused.
    let multi = format!("a;https://other.example,{R};2000;mcp");
    assert!(check(&multi, "", 1000).is_ok());
    assert_eq!(
        check("a;;2000;mcp", "", 1000).unwrap_err(),
        DenialKind::InvalidToken
    );
    let other = "a;https://mcp.example.com/other;2000;mcp";
    assert_eq!(
        check(other, "", 1000).unwrap_err(),
        DenialKind::InvalidToken
    );
    // Expiry, with the 60 s leeway.
    let t = format!("a;{R};1000;mcp");
    assert!(check(&t, "", 1059).is_ok());
    assert_eq!(check(&t, "", 1060).unwrap_err(), DenialKind::InvalidToken);
    let t = format!("a;{R};;mcp");
    assert_eq!(
        check(&t, "", 0).unwrap_err(),
        DenialKind::InvalidToken,
        "no exp"
    );
    // Signature (the verifier's verdict).
    assert_eq!(
        check("forged", "", 0).unwrap_err(),
        DenialKind::InvalidToken
    );
    // Scopes: the endpoint's, then the operation's.
    let t = format!("a;{R};2000;files:read");
    assert_eq!(
        check(&t, "", 1000).unwrap_err(),
        DenialKind::InsufficientScope
    );
    let write = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"write"}}"#;
    let t = format!("a;{R};2000;mcp");
    assert_eq!(
        check(&t, write, 1000).unwrap_err(),
        DenialKind::InsufficientScope
    );
    let t = format!("a;{R};2000;mcp+files:write");
    assert!(check(&t, write, 1000).is_ok());
    // Claims too long for the principal's memory: refused, not truncated.
    let long = format!("{};{R};2000;mcp", "x".repeat(MAX_CLAIM + 1));
    assert_eq!(
        check(&long, "", 1000).unwrap_err(),
        DenialKind::InvalidToken
    );
}

#[test]
fn json_claims_are_read_as_jwts_say() {
    let c = config();
    let mut p = Principal::EMPTY;
    let mut claims = Claims::new(&c, &mut p);
    let json = crate::json::Json::new(
        r#"{"sub":"al\u0069ce","azp":"c1","aud":["x","https://mcp.example.com/mcp"],"exp":2000.5,"nbf":10,"scope":"mcp files:read","scp":["files:write"],"other":{}}"#,
    )
    .unwrap();
    claims.report_json(json);
    assert!(claims.audience_ok && !claims.too_long);
    assert_eq!(claims.not_before, Some(10));
    assert_eq!(p.subject(), "alice");
    assert_eq!(p.client_id(), "c1");
    assert_eq!(p.expires_at(), Some(2000));
    assert_eq!(p.granted(), 0b111);
    let mut p = Principal::EMPTY;
    let mut claims = Claims::new(&c, &mut p);
    let long = format!(
        r#"{{"sub":"{}\n","aud":7,"exp":"soon"}}"#,
        "y".repeat(MAX_CLAIM)
    );
    claims.report_json(crate::json::Json::new(&long).unwrap());
    assert!(claims.too_long && !claims.audience_seen);
    assert_eq!(p.expires_at(), None);
}
