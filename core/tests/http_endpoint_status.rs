//! Every status of DIGEST §12.9 the endpoint gives on its own, with the request id
//! echoed wherever a JSON-RPC error body is sent.

mod http_common;

use http_common::{Host, call, init};
use picomcp::http::Method;

const ACCEPT: (&str, &str) = ("Accept", "application/json, text/event-stream");
const JSON: (&str, &str) = ("Content-Type", "application/json");
const HOST: (&str, &str) = ("Host", "127.0.0.1:8080");

#[test]
fn wrong_path_method_accept_and_content_type() {
    let mut h = Host::new();
    let r = h.request(Method::Other, &[HOST, ACCEPT, JSON], &init(1, "2025-06-18"));
    assert_eq!(r.status, 405);
    assert_eq!(r.header("Allow"), Some("GET, POST, DELETE"));
    let r = h.request(
        Method::Post,
        &[HOST, ("Accept", "application/json"), JSON],
        &init(1, "2025-06-18"),
    );
    assert_eq!(r.status, 406);
    let r = h.request(
        Method::Post,
        &[HOST, ACCEPT, ("Content-Type", "text/plain")],
        &init(1, "2025-06-18"),
    );
    assert_eq!(r.status, 415);
    let big = format!("{{\"pad\":\"{}\"}}", "x".repeat(5000));
    let r = h.request(Method::Post, &[HOST, ACCEPT, JSON], &big);
    assert_eq!(r.status, 413);
    let r = h.request(Method::Get, &[HOST, ("Accept", "application/json")], "");
    assert_eq!(r.status, 406);
    assert_eq!(h.ep.stats().refused, 5);
}

#[test]
fn forged_host_and_origin_are_forbidden() {
    let mut h = Host::new();
    let r = h.request(
        Method::Post,
        &[("Host", "evil.example.com"), ACCEPT, JSON],
        &init(1, "2025-11-25"),
    );
    assert_eq!(r.status, 403);
    let r = h.request(
        Method::Post,
        &[HOST, ("Origin", "http://evil.example.com"), ACCEPT, JSON],
        &init(1, "2025-11-25"),
    );
    assert_eq!(r.status, 403);
    let r = h.request(Method::Post, &[ACCEPT, JSON], &init(1, "2025-11-25"));
    assert_eq!(r.status, 400);
    let r = h.request(
        Method::Post,
        &[
            ("Host", "localhost:9"),
            ("Origin", "http://localhost:5173"),
            ACCEPT,
            JSON,
        ],
        &init(1, "2025-11-25"),
    );
    assert_eq!(r.status, 200);
    assert_eq!(h.ep.sessions(), 1);
}

#[test]
fn bad_bodies_get_400_with_the_id_when_readable() {
    let mut h = Host::new();
    let r = h.post(None, "{not json");
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"]["code"], -32700);
    let r = h.post(None, r#"{"jsonrpc":"2.0","id":"x","method":7}"#);
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["id"], "x");
}

#[test]
fn session_rules() {
    let mut h = Host::new();
    let r = h.post(None, &call(5, "echo"));
    assert_eq!(r.status, 400, "no session id");
    assert_eq!(r.json()["id"], 5);
    let r = h.post(Some("0123456789abcdef0123456789abcdef"), &call(6, "echo"));
    assert_eq!(r.status, 404, "unknown session");
    assert_eq!(r.json()["id"], 6);
    let sid = h.open("2025-06-18");
    let mut hs = vec![
        HOST,
        ACCEPT,
        JSON,
        ("Mcp-Session-Id", sid.as_str()),
        ("MCP-Protocol-Version", "1999-01-01"),
    ];
    let r = h.request(Method::Post, &hs, &call(7, "echo"));
    assert_eq!(r.status, 400, "unsupported MCP-Protocol-Version");
    assert_eq!(r.json()["id"], 7);
    hs[4] = ("MCP-Protocol-Version", "2025-06-18");
    let r = h.request(Method::Post, &hs, &call(8, "echo"));
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["result"]["ok"], true);
    // Absent: 2025-03-26 is assumed, which this endpoint serves.
    let r = h.post(Some(&sid), &call(9, "echo"));
    assert_eq!(r.status, 200);
}
