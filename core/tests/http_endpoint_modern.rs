//! 2026-07-28 over HTTP: stateless requests on a lent slot, the Mcp-Method / Mcp-Name
//! headers against the body, statuses from the JSON-RPC error.

mod http_common;

use http_common::Host;
use picomcp::http::Method;

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

fn modern(h: &mut Host, extra: &[(&str, &str)], body: &str) -> http_common::Resp {
    let mut hs = vec![
        ("Host", "localhost"),
        ("Accept", "application/json, text/event-stream"),
        ("Content-Type", "application/json"),
        ("MCP-Protocol-Version", "2026-07-28"),
    ];
    hs.extend_from_slice(extra);
    h.request(Method::Post, &hs, body)
}

fn tool_call(id: u32, name: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{name}","arguments":{{}},{META}}}}}"#
    )
}

#[test]
fn stateless_requests_need_no_session_and_keep_none() {
    let mut h = Host::new();
    let r = modern(
        &mut h,
        &[("Mcp-Method", "tools/call"), ("Mcp-Name", "echo")],
        &tool_call(1, "echo"),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["result"]["ok"], true);
    assert!(r.header("Mcp-Session-Id").is_none());
    assert_eq!(h.ep.sessions(), 0);
    assert!(
        !(0..8).any(|s| h.ep.slot_in_use(s)),
        "the slot is given back"
    );
    let d = format!(r#"{{"jsonrpc":"2.0","id":2,"method":"server/discover","params":{{{META}}}}}"#);
    let r = modern(&mut h, &[("Mcp-Method", "server/discover")], &d);
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(
        r.json()["result"]["supportedVersions"].is_array(),
        "{}",
        r.body
    );
}

#[test]
fn headers_are_checked_against_the_body() {
    let mut h = Host::new();
    let r = modern(&mut h, &[("Mcp-Name", "echo")], &tool_call(3, "echo"));
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"]["code"], -32020);
    assert_eq!(r.json()["id"], 3);
    let r = modern(
        &mut h,
        &[("Mcp-Method", "tools/list"), ("Mcp-Name", "echo")],
        &tool_call(4, "echo"),
    );
    assert_eq!((r.status, r.json()["id"].clone()), (400, 4.into()));
    let r = modern(
        &mut h,
        &[("Mcp-Method", "tools/call"), ("Mcp-Name", "other")],
        &tool_call(5, "echo"),
    );
    assert_eq!(r.json()["error"]["code"], -32020);
    let r = modern(
        &mut h,
        &[("Mcp-Method", "tools/call")],
        &tool_call(6, "echo"),
    );
    assert_eq!(r.json()["error"]["code"], -32020);
    // The base64 sentinel is decoded before comparing.
    let r = modern(
        &mut h,
        &[
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "=?base64?ZWNobw==?="),
        ],
        &tool_call(7, "echo"),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    // A body that claims another version than the header.
    let body = tool_call(8, "echo").replace("2026-07-28", "2025-06-18");
    let r = modern(
        &mut h,
        &[("Mcp-Method", "tools/call"), ("Mcp-Name", "echo")],
        &body,
    );
    assert_eq!(r.json()["error"]["code"], -32020);
}

#[test]
fn statuses_follow_the_error() {
    let mut h = Host::new();
    let body = format!(r#"{{"jsonrpc":"2.0","id":9,"method":"nope/nothing","params":{{{META}}}}}"#);
    let r = modern(&mut h, &[("Mcp-Method", "nope/nothing")], &body);
    assert_eq!(r.status, 404, "{}", r.body);
    assert_eq!(r.json()["error"]["code"], -32601);
    let r = modern(
        &mut h,
        &[],
        r#"{"jsonrpc":"2.0","method":"notifications/whatever"}"#,
    );
    assert_eq!(r.status, 202);
}

#[test]
fn progress_streams_and_a_dropped_stream_frees_the_slot() {
    let mut h = Host::new();
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{},"_meta":{"progressToken":1,"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let r = modern(
        &mut h,
        &[("Mcp-Method", "tools/call"), ("Mcp-Name", "slow")],
        body,
    );
    let s = r.open.expect("waiting");
    assert!((0..8).any(|s| h.ep.slot_in_use(s)));
    h.ep.detach(s);
    assert!(
        !(0..8).any(|s| h.ep.slot_in_use(s)),
        "cancelled: slot lent again"
    );
    h.release();
    assert!(h.ep.stats().unroutable >= 1);
}

#[test]
fn mcp_param_headers_mirror_annotated_arguments() {
    use picomcp::http::endpoint::{EndpointConfig, ParamHeader};
    const PARAMS: &[ParamHeader<'static>] = &[
        ParamHeader {
            tool: "echo",
            property: "city",
            header: "City",
        },
        ParamHeader {
            tool: "echo",
            property: "n",
            header: "N",
        },
    ];
    let config = EndpointConfig {
        param_headers: PARAMS,
        ..http_common::endpoint_config()
    };
    let mut h = Host::with(config, 8, 16);
    let body = |args: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"echo","arguments":{args},{META}}}}}"#
        )
    };
    let base = [("Mcp-Method", "tools/call"), ("Mcp-Name", "echo")];
    let with = |extra: &[(&'static str, &'static str)]| {
        let mut v = base.to_vec();
        v.extend_from_slice(extra);
        v
    };
    let ok = body(r#"{"city":"Zürich","n":42}"#);
    let r = modern(
        &mut h,
        &with(&[
            ("Mcp-Param-City", "=?base64?WsO8cmljaA==?="),
            ("mcp-param-n", "42.0"),
        ]),
        &ok,
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let r = modern(
        &mut h,
        &with(&[("Mcp-Param-City", "Zurich"), ("Mcp-Param-N", "42")]),
        &ok,
    );
    assert_eq!(
        (r.status, r.json()["error"]["code"].clone()),
        (400, (-32020).into())
    );
    let r = modern(
        &mut h,
        &with(&[("Mcp-Param-City", "=?base64?WsO8cmljaA==?=")]),
        &ok,
    );
    assert_eq!(r.status, 400, "a present argument needs its header");
    let null = body(r#"{"city":null}"#);
    assert_eq!(modern(&mut h, &base, &null).status, 200, "null: no header");
    let r = modern(&mut h, &with(&[("Mcp-Param-City", "x")]), &null);
    assert_eq!(r.status, 400, "null: the header must be absent");
}

/// The annotations come from the tools' input schemas (`EndpointConfig::tools`, here the
/// server layer's `Catalog`): nothing listed by hand.
#[test]
fn mcp_param_headers_derived_from_input_schemas() {
    use picomcp::http::endpoint::EndpointConfig;
    use picomcp::server::{Catalog, Tool};
    static TOOLS: &[Tool<'static>] = &[Tool::new(
        "echo",
        r#"{"type":"object","properties":{"city":{"type":"string","x-mcp-header":"City"},"opts":{"type":"object","properties":{"n":{"type":"integer","x-mcp-header":"N"}}}}}"#,
    )];
    static CATALOG: Catalog<'static> = Catalog {
        tools: TOOLS,
        resources: &[],
        templates: &[],
        prompts: &[],
    };
    let config = EndpointConfig {
        tools: Some(&CATALOG),
        ..http_common::endpoint_config()
    };
    let mut h = Host::with(config, 8, 16);
    let body = |args: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"echo","arguments":{args},{META}}}}}"#
        )
    };
    let base = [("Mcp-Method", "tools/call"), ("Mcp-Name", "echo")];
    let with = |extra: &[(&'static str, &'static str)]| {
        let mut v = base.to_vec();
        v.extend_from_slice(extra);
        v
    };
    let ok = body(r#"{"city":"Zürich","opts":{"n":42}}"#);
    let r = modern(
        &mut h,
        &with(&[
            ("Mcp-Param-City", "=?base64?WsO8cmljaA==?="),
            ("mcp-param-n", "42"),
        ]),
        &ok,
    );
    assert_eq!(r.status, 200, "{}", r.body);
    for bad in [
        &[("Mcp-Param-City", "Zurich"), ("Mcp-Param-N", "42")][..],
        &[("Mcp-Param-City", "=?base64?WsO8cmljaA?=")][..],
        &[("Mcp-Param-N", "42")][..],
        &[
            ("Mcp-Param-City", "=?base64?WsO8cmljaA==?="),
            ("Mcp-Param-N", "43"),
        ][..],
    ] {
        let r = modern(&mut h, &with(bad), &ok);
        assert_eq!(
            (r.status, r.json()["error"]["code"].clone()),
            (400, (-32020).into()),
            "{bad:?}"
        );
    }
    // Absent arguments: no header expected, none allowed.
    let none = body("{}");
    assert_eq!(modern(&mut h, &base, &none).status, 200);
    assert_eq!(
        modern(&mut h, &with(&[("Mcp-Param-City", "x")]), &none).status,
        400
    );
}
