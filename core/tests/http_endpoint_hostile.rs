//! Hostile requests found by the adversarial review of the HTTP transport (docs/DESIGN.md,
//! "Hostile input"): headers that may appear once sent twice, an allowed `Origin` beside
//! a forged one, a `Host` that only starts like a loopback literal, and `Accept` ranges
//! refused with `q=0`. Each test fails on the endpoint as it was before the fix.

mod http_common;

use http_common::{Host, call, init};
use picomcp::http::Method;

const ACCEPT: (&str, &str) = ("Accept", "application/json, text/event-stream");
const JSON: (&str, &str) = ("Content-Type", "application/json");
const HOST: (&str, &str) = ("Host", "127.0.0.1:8080");
const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

fn modern_call(id: u32, name: &str, args: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{name}","arguments":{args},{META}}}}}"#
    )
}

/// A repeated `Mcp-Session-Id` or `MCP-Protocol-Version` is a list (RFC 9110 §5.3), not
/// one of its values: 400 with the id, whichever line is valid.
#[test]
fn repeated_session_and_version_headers_are_400() {
    let mut h = Host::new();
    let sid = h.open("2025-06-18");
    let other = "0123456789abcdef0123456789abcdef";
    for hs in [
        [("Mcp-Session-Id", sid.as_str()), ("Mcp-Session-Id", other)],
        [("Mcp-Session-Id", other), ("Mcp-Session-Id", sid.as_str())],
    ] {
        let mut all = vec![HOST, ACCEPT, JSON];
        all.extend_from_slice(&hs);
        let r = h.request(Method::Post, &all, &call(3, "echo"));
        assert_eq!(r.status, 400, "{}", r.body);
        assert_eq!(r.json()["id"], 3);
    }
    let r = h.request(
        Method::Post,
        &[
            HOST,
            ACCEPT,
            JSON,
            ("Mcp-Session-Id", sid.as_str()),
            ("MCP-Protocol-Version", "2025-06-18"),
            ("mcp-protocol-version", "1999-01-01"),
        ],
        &call(4, "echo"),
    );
    assert_eq!(r.status, 400, "{}", r.body);
    assert_eq!(r.json()["id"], 4);
    // A repeated Last-Event-ID names no one stream.
    let r = h.request(
        Method::Get,
        &[
            HOST,
            ("Accept", "text/event-stream"),
            ("Mcp-Session-Id", sid.as_str()),
            ("Last-Event-ID", "1-0"),
            ("Last-Event-ID", "2-0"),
        ],
        "",
    );
    assert_eq!(r.status, 400);
    // The session itself is untouched.
    let r = h.post(Some(&sid), &call(5, "echo"));
    assert_eq!(r.status, 200, "{}", r.body);
}

/// Every `Origin` line is checked, and a `Host` is one line naming a listed host: a
/// bracketed IPv6 literal ends at `]` plus an optional port, nothing else.
#[test]
fn forged_origin_beside_an_allowed_one_and_near_loopback_hosts_are_refused() {
    let mut h = Host::new();
    let r = h.request(
        Method::Post,
        &[
            HOST,
            ("Origin", "http://localhost:5173"),
            ("Origin", "http://evil.example.com"),
            ACCEPT,
            JSON,
        ],
        &init(1, "2025-11-25"),
    );
    assert_eq!(r.status, 403);
    for host in [
        "[::1]evil.example.com",
        "[::1].evil.example.com:80",
        "[::1]:8o",
    ] {
        let r = h.request(
            Method::Post,
            &[("Host", host), ACCEPT, JSON],
            &init(1, "2025-11-25"),
        );
        assert_eq!(r.status, 403, "{host}");
    }
    let r = h.request(
        Method::Post,
        &[HOST, ("Host", "evil.example.com"), ACCEPT, JSON],
        &init(1, "2025-11-25"),
    );
    assert_eq!(r.status, 400, "two Host lines");
    let r = h.request(
        Method::Post,
        &[("Host", "[::1]:3000"), ACCEPT, JSON],
        &init(1, "2025-11-25"),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(h.ep.sessions(), 1);
}

/// `q=0` means "not acceptable" (RFC 9110 §12.4.2), and the most specific range decides.
#[test]
fn accept_with_q_zero_is_406() {
    let mut h = Host::new();
    for accept in [
        "application/json;q=0, text/event-stream",
        "*/*, text/event-stream; q=0.0",
        "application/json, text/event-stream;Q=0",
    ] {
        let r = h.request(
            Method::Post,
            &[HOST, ("Accept", accept), JSON],
            &init(1, "2025-06-18"),
        );
        assert_eq!(r.status, 406, "{accept}");
    }
    for accept in [
        "application/json;q=0.1, text/event-stream;q=0.9",
        "*/*",
        "*/*;q=0, application/json, text/*",
    ] {
        let r = h.request(
            Method::Post,
            &[HOST, ("Accept", accept), JSON],
            &init(1, "2025-06-18"),
        );
        assert_eq!(r.status, 200, "{accept}: {}", r.body);
    }
}

/// 2026-07-28: the MCP headers must match the body (MODERN §13.2). A second line with
/// another value must not pass because the first one matched: an intermediary that
/// routes on the other line would route one method while the server runs another.
#[test]
fn repeated_modern_headers_are_header_mismatches() {
    use picomcp::http::endpoint::{EndpointConfig, ParamHeader};
    const PARAMS: &[ParamHeader<'static>] = &[ParamHeader {
        tool: "echo",
        property: "city",
        header: "City",
    }];
    let config = EndpointConfig {
        param_headers: PARAMS,
        ..http_common::endpoint_config()
    };
    let mut h = Host::with(config, 8, 16);
    let body = modern_call(7, "echo", r#"{"city":"Bonn"}"#);
    let base = [
        HOST,
        ACCEPT,
        JSON,
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "echo"),
        ("Mcp-Param-City", "Bonn"),
    ];
    let r = h.request(Method::Post, &base, &body);
    assert_eq!(r.status, 200, "{}", r.body);
    for extra in [
        ("Mcp-Method", "server/discover"),
        ("Mcp-Name", "add"),
        ("mcp-protocol-version", "2025-11-25"),
        ("MCP-PARAM-CITY", "Paris"),
        // Even the same value twice: the joined list `Bonn, Bonn` is not `Bonn`.
        ("Mcp-Param-City", "Bonn"),
    ] {
        let mut hs = base.to_vec();
        hs.push(extra);
        let r = h.request(Method::Post, &hs, &body);
        assert_eq!(r.status, 400, "{extra:?}: {}", r.body);
        assert_eq!(r.json()["error"]["code"], -32020, "{extra:?}");
        assert_eq!(r.json()["id"], 7);
    }
}

/// 2025-03-26 batches with no request but an invalid entry (or none at all): JSON-RPC
/// answers them with errors, which had no stream to go on (the POST was answered 202,
/// "accepted", and the errors were dropped unroutable). Now 400 with an id-less -32600
/// (DIGEST §12.3); a batch of notifications alone is still 202.
#[test]
fn batches_without_requests_but_with_invalid_entries_are_400() {
    let mut h = Host::new();
    let sid = h.open("2025-03-26");
    let ping = r#"{"jsonrpc":"2.0","id":6,"method":"ping"}"#;
    let note = r#"{"jsonrpc":"2.0","method":"notifications/x"}"#;
    for body in [
        "[]".to_owned(),
        "[1,2]".to_owned(),
        format!("[[{ping}]]"),
        format!("[{note},5]"),
    ] {
        let r = h.post(Some(&sid), &body);
        assert_eq!(r.status, 400, "{body}: {}", r.body);
        assert_eq!(r.json()["error"]["code"], -32600, "{body}");
        assert!(r.json()["id"].is_null(), "{body}");
    }
    assert_eq!(h.ep.stats().unroutable, 0);
    let r = h.post(Some(&sid), &format!("[{note},{note}]"));
    assert_eq!(r.status, 202);
    // With a request, the invalid entry's error rides in the batch answer.
    let r = h.post(Some(&sid), &format!("[{ping},7]"));
    assert_eq!(r.status, 200, "{}", r.body);
    let answers = r.json();
    assert_eq!(answers.as_array().map(Vec::len), Some(2), "{}", r.body);
}

/// A coded body is not JSON to us: 415 (RFC 9110 §8.4.1), not a parse error.
#[test]
fn content_encoding_is_415() {
    let mut h = Host::new();
    let r = h.request(
        Method::Post,
        &[HOST, ACCEPT, JSON, ("Content-Encoding", "gzip")],
        &init(1, "2025-06-18"),
    );
    assert_eq!(r.status, 415, "{}", r.body);
    let r = h.request(
        Method::Post,
        &[HOST, ACCEPT, JSON, ("Content-Encoding", "identity")],
        &init(1, "2025-06-18"),
    );
    assert_eq!(r.status, 200, "{}", r.body);
}

/// A request reusing the id of one still in flight in its session: the session answers
/// it with a duplicate-id error, and that error was routed by id to the *first*
/// request's stream (which then ended), while the first request's result went to the
/// second POST. Now the endpoint refuses the second POST itself (400, -32600, its id)
/// and the first request keeps its stream and gets its own result.
#[test]
fn a_reused_id_in_flight_does_not_cross_the_answers() {
    let mut h = Host::new();
    let sid = h.open("2025-06-18");
    let first = h.post(Some(&sid), &call(5, "slow"));
    let waiting = first.open.expect("the slow call waits");
    let again = h.post(Some(&sid), r#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#);
    assert_eq!(again.status, 400, "{}", again.body);
    assert_eq!(again.json()["error"]["code"], -32600);
    assert_eq!(again.json()["id"], 5);
    h.release();
    let done = h.more(waiting);
    assert_eq!(done.status, 200, "{}", done.body);
    assert_eq!(done.json()["id"], 5);
    assert_eq!(done.json()["result"]["late"], true, "{}", done.body);
    // The id is free again once answered.
    let r = h.post(Some(&sid), r#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#);
    assert_eq!(r.status, 200, "{}", r.body);
    // Spelled differently (equal only after unescaping): the session's duplicate-id
    // error echoes the second spelling, so it reaches the second POST, not the first.
    let first = h.post(
        Some(&sid),
        r#"{"jsonrpc":"2.0","id":"A","method":"tools/call","params":{"name":"slow"}}"#,
    );
    let waiting = first.open.expect("the slow call waits");
    let again = h.post(
        Some(&sid),
        r#"{"jsonrpc":"2.0","id":"\u0041","method":"ping"}"#,
    );
    assert!(again.body.contains(r#""id":"\u0041""#), "{}", again.body);
    assert_eq!(again.json()["error"]["code"], -32600, "{}", again.body);
    h.release();
    let done = h.more(waiting);
    assert_eq!(done.json()["result"]["late"], true, "{}", done.body);
    // A 2025-03-26 batch naming an id in flight is refused whole.
    let old = h.open("2025-03-26");
    let slow = h.post(Some(&old), &call(8, "slow"));
    assert!(slow.open.is_some());
    let batch = format!(
        r#"[{{"jsonrpc":"2.0","id":9,"method":"ping"}},{}]"#,
        call(8, "echo")
    );
    let r = h.post(Some(&old), &batch);
    assert_eq!(r.status, 400, "{}", r.body);
    assert_eq!(r.json()["error"]["code"], -32600);
}
