//! The 2026-07-28 era and dual-era operation, for both roles.

mod common;
use common::*;
use picomcp::json::Json;
use picomcp::protocol::{LogLevel, Method, ProtocolVersion, Versions};
use picomcp::session::{
    Change, CloseReason, Config, Era, Event, RequestOptions, RespondError, Session,
};
use serde_json::{Value, json};

const V: &str = "2026-07-28";

fn envelope(extra_meta: &str) -> String {
    format!(
        r#""_meta":{{"io.modelcontextprotocol/protocolVersion":"{V}","io.modelcontextprotocol/clientCapabilities":{{"elicitation":{{}}}},"io.modelcontextprotocol/clientInfo":{{"name":"c","version":"1"}}{extra_meta}}}"#
    )
}

fn req(id: &str, method: &str, params: &str) -> String {
    let sep = if params.is_empty() { "" } else { "," };
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{{params}{sep}{}}}}}"#,
        envelope("")
    ) + "\n"
}

fn modern_client_config() -> Config<'static> {
    let mut c = client_config(r#"{"elicitation":{},"sampling":{}}"#);
    c.versions = Versions::ALL;
    c
}

#[test]
fn discover_is_answered_without_latching() {
    let mut s = server();
    let (out, ev) = feed(&mut s, 0, req("\"d1\"", "server/discover", "").as_bytes());
    assert!(ev.is_empty(), "{ev:?}");
    let r = &j(&out[0])["result"];
    assert_eq!(j(&out[0])["id"], "d1");
    assert_eq!(r["resultType"], "complete");
    assert_eq!(r["supportedVersions"], json!([V]));
    assert_eq!(r["capabilities"]["tools"]["listChanged"], true);
    assert_eq!(r["instructions"], "be nice");
    assert_eq!(r["ttlMs"], 0);
    assert_eq!(r["cacheScope"], "private");
    assert_eq!(
        r["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "test-server"
    );
    assert_eq!(s.era(), Era::Opening);
    // A legacy client can still connect after a probe.
    let (out, _) = feed(&mut s, 0, format!("{INIT}\n").as_bytes());
    assert_eq!(j(&out[0])["result"]["protocolVersion"], "2025-11-25");
    assert_eq!(s.era(), Era::Legacy);
}

#[test]
fn envelope_errors_in_the_recommended_order() {
    let cases: Vec<(String, i64)> = vec![
        // 5. envelope
        (r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#.into(), -32602),
        (r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":7,"io.modelcontextprotocol/clientCapabilities":{}}}}"#.into(), -32602),
        (r#"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":true}}}"#.into(), -32602),
        // 6. version
        (req("1", "tools/list", "").replace(V, "2027-01-01").trim().into(), -32022),
        // 8. removed methods and ungated ones
        (req("1", "ping", "").trim().into(), -32601),
        (req("1", "initialize", "").trim().into(), -32601),
        (req("1", "logging/setLevel", r#""level":"info""#).trim().into(), -32601),
        (req("1", "resources/subscribe", r#""uri":"x""#).trim().into(), -32601),
        (req("1", "completion/complete", "").trim().into(), -32601), // not advertised
        (req("1", "nope", "").trim().into(), -32601),
        // 9. logLevel
        (r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"loud"}}}"#.into(), -32602),
    ];
    for (line, code) in cases {
        let mut s = server();
        let (out, _) = feed(&mut s, 0, format!("{line}\n").as_bytes());
        assert_eq!(out.len(), 1, "{line}");
        let v = j(&out[0]);
        assert_eq!(v["error"]["code"], code, "{line}");
        assert_eq!(v["id"], 1, "every envelope error echoes the id: {line}");
        if code == -32022 {
            assert_eq!(v["error"]["data"]["requested"], "2027-01-01");
            // The versions server/discover lists (supportedVersions): the modern ones
            // (docs/DESIGN.md; the conformance suite's server-stateless checks this).
            assert_eq!(v["error"]["data"]["supported"], json!([V]));
        }
    }
}

#[test]
fn modern_request_is_tracked_and_the_result_decorated() {
    let mut s = server();
    push(
        &mut s,
        0,
        req(
            "7",
            "tools/call",
            r#""name":"echo","arguments":{"text":"hi"}"#,
        )
        .as_bytes(),
    );
    assert_eq!(s.era(), Era::Modern);
    assert_eq!(s.version(), Some(ProtocolVersion::V2026_07_28));
    let Some(Event::Request {
        id,
        method: Method::ToolsCall,
        params,
    }) = s.poll_event()
    else {
        panic!()
    };
    assert_eq!(params.unwrap().get("name").unwrap().as_raw(), "\"echo\"");
    let info = s.request_info(id).unwrap();
    assert!(info.modern);
    assert!(
        info.client_capabilities
            .contains(picomcp::protocol::Caps::ELICITATION)
    );
    s.respond(
        id,
        Json::new(r#"{"content":[{"type":"text","text":"hi"}]}"#).unwrap(),
    )
    .unwrap();
    let v = j(&take_output(&mut s)[0]);
    assert_eq!(v["result"]["resultType"], "complete");
    assert_eq!(v["result"]["content"][0]["text"], "hi");
    assert_eq!(
        v["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["version"],
        "1.0.0"
    );
    assert!(
        v["result"].get("ttlMs").is_none(),
        "tools/call is not cacheable"
    );

    push(&mut s, 0, req("8", "tools/list", "").as_bytes());
    let Some(Event::Request { id, .. }) = s.poll_event() else {
        panic!()
    };
    s.respond(id, Json::new(r#"{"tools":[]}"#).unwrap())
        .unwrap();
    let v = j(&take_output(&mut s)[0]);
    assert_eq!(
        v["result"],
        json!({"tools":[],"resultType":"complete","ttlMs":0,"cacheScope":"private","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"test-server","version":"1.0.0"}}})
    );

    // The host's own resultType/_meta/ttl are kept.
    push(&mut s, 0, req("9", "tools/list", "").as_bytes());
    let Some(Event::Request { id, .. }) = s.poll_event() else {
        panic!()
    };
    s.respond(
        id,
        Json::new(r#"{"tools":[],"ttlMs":5,"_meta":{"x":1}}"#).unwrap(),
    )
    .unwrap();
    let v = j(&take_output(&mut s)[0]);
    assert_eq!(
        v["result"],
        json!({"tools":[],"ttlMs":5,"_meta":{"x":1},"resultType":"complete","cacheScope":"private"})
    );

    // -32002 becomes -32602 in the modern era.
    push(
        &mut s,
        0,
        req("10", "resources/read", r#""uri":"nope://""#).as_bytes(),
    );
    let Some(Event::Request { id, .. }) = s.poll_event() else {
        panic!()
    };
    s.respond_error(
        id,
        picomcp::ErrorCode::RESOURCE_NOT_FOUND,
        "no such resource",
        None,
    )
    .unwrap();
    assert_eq!(j(&take_output(&mut s)[0])["error"]["code"], -32602);
}

#[test]
fn modern_latch_rejects_claimless_traffic() {
    let mut s = server();
    let _ = feed(&mut s, 0, req("1", "tools/list", "").as_bytes());
    let (out, _) = feed(&mut s, 0, format!("{INIT}\n").as_bytes());
    let v = j(&out[0]);
    assert_eq!(v["error"]["code"], -32022);
    assert_eq!(v["error"]["data"]["requested"], "2025-11-25");
    assert_eq!(v["error"]["data"]["supported"], json!([V]));
    let (out, _) = feed(
        &mut s,
        0,
        b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}\n",
    );
    assert_eq!(j(&out[0])["error"]["code"], -32602);
    // Responses are dropped.
    let (out, ev) = feed(&mut s, 0, b"{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n");
    assert!(out.is_empty());
    assert_eq!(ev, ["violation UnexpectedMessage"]);
}

#[test]
fn legacy_latch_serves_claimed_requests_as_legacy() {
    let mut s = ready_server("2025-06-18");
    assert_eq!(s.era(), Era::Legacy);
    push(&mut s, 0, req("5", "tools/list", "").as_bytes());
    let Some(Event::Request { id, .. }) = s.poll_event() else {
        panic!()
    };
    assert!(!s.request_info(id).unwrap().modern);
    s.respond(id, Json::new(r#"{"tools":[]}"#).unwrap())
        .unwrap();
    assert_eq!(j(&take_output(&mut s)[0])["result"], json!({"tools":[]}));
    // Legacy methods keep working.
    let (out, _) = feed(
        &mut s,
        0,
        b"{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"ping\"}\n",
    );
    assert_eq!(j(&out[0])["result"], json!({}));
}

#[test]
fn legacy_only_server_answers_the_probe_at_once() {
    let mut s = server_with(Versions::LEGACY);
    let (out, _) = feed(
        &mut s,
        0,
        req("\"probe\"", "server/discover", "").as_bytes(),
    );
    assert_eq!(j(&out[0])["error"]["code"], -32601);
    assert_eq!(j(&out[0])["id"], "probe");
}

#[test]
fn modern_only_server_rejects_initialize_naming_its_versions() {
    let mut s = server_with(Versions::of(&[ProtocolVersion::V2026_07_28]));
    let (out, _) = feed(&mut s, 0, format!("{INIT}\n").as_bytes());
    let v = j(&out[0]);
    assert_eq!(v["error"]["code"], -32022);
    assert_eq!(
        v["error"]["data"],
        json!({"supported":[V],"requested":"2025-11-25"})
    );
}

#[test]
fn subscriptions_listen_ack_delivery_and_cancel() {
    let mut s = server(); // tools.listChanged, resources.subscribe+listChanged, prompts without listChanged
    let listen = req(
        "\"sub-1\"",
        "subscriptions/listen",
        r#""notifications":{"toolsListChanged":true,"promptsListChanged":true,"resourceSubscriptions":["file:///a","file:///b"]}"#,
    );
    let (out, ev) = feed(&mut s, 0, listen.as_bytes());
    assert!(ev.is_empty(), "{ev:?}");
    let ack = j(&out[0]);
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(
        ack["params"]["notifications"],
        json!({"toolsListChanged":true,"resourceSubscriptions":["file:///a","file:///b"]})
    );
    assert_eq!(
        ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "sub-1"
    );
    // A second stream only for resources.
    let (_, _) = feed(
        &mut s,
        0,
        req(
            "2",
            "subscriptions/listen",
            r#""notifications":{"resourceSubscriptions":["file:///b"]}"#,
        )
        .as_bytes(),
    );
    assert_eq!(s.notify(Change::ToolsListChanged), Ok(1));
    assert_eq!(
        s.notify(Change::PromptsListChanged),
        Err(picomcp::session::SendError::NotNegotiated(
            Method::PromptsListChanged
        ))
    );
    assert_eq!(s.notify(Change::ResourceUpdated("file:///b")), Ok(2));
    assert_eq!(s.notify(Change::ResourceUpdated("file:///zzz")), Ok(0));
    assert_eq!(
        s.notify(Change::ResourcesListChanged),
        Ok(0),
        "nobody asked"
    );
    let out = take_output(&mut s);
    assert_eq!(out.len(), 3);
    assert_eq!(
        j(&out[0]),
        json!({"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"sub-1"}}})
    );
    let subs: Vec<Value> = out[1..]
        .iter()
        .map(|l| j(l)["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"].clone())
        .collect();
    assert_eq!(subs, [json!("sub-1"), json!(2)]);
    // Cancelling ends the stream; nothing more is sent for it, and no response.
    let (out, _) = feed(&mut s, 0, b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":\"sub-1\"}}\n");
    assert!(out.is_empty());
    assert_eq!(s.notify(Change::ToolsListChanged), Ok(0));
    assert_eq!(s.notify(Change::ResourceUpdated("file:///b")), Ok(1));
    let _ = take_output(&mut s);
    // Closing sends the graceful result for the open stream.
    s.close();
    let out = take_output(&mut s);
    assert_eq!(
        j(&out[0]),
        json!({"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":2}}})
    );
    // A listen without a filter is invalid.
    let mut s = server();
    let (out, _) = feed(&mut s, 0, req("3", "subscriptions/listen", "").as_bytes());
    assert_eq!(j(&out[0])["error"]["code"], -32602);
}

#[test]
fn legacy_subscriptions_are_tracked_by_the_core() {
    let mut s = ready_server("2025-11-25");
    assert_eq!(s.notify(Change::ResourceUpdated("file:///a")), Ok(0));
    let (out, ev) = feed(&mut s, 0, b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/subscribe\",\"params\":{\"uri\":\"file:///a\"}}\n");
    assert_eq!(j(&out[0])["result"], json!({}));
    assert!(ev.is_empty());
    assert_eq!(s.notify(Change::ResourceUpdated("file:///a")), Ok(1));
    assert_eq!(
        j(&take_output(&mut s)[0]),
        json!({"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"file:///a"}})
    );
    assert_eq!(s.notify(Change::ToolsListChanged), Ok(1));
    let _ = take_output(&mut s);
    let _ = feed(&mut s, 0, b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/unsubscribe\",\"params\":{\"uri\":\"file:///a\"}}\n");
    assert_eq!(s.notify(Change::ResourceUpdated("file:///a")), Ok(0));
}

#[test]
fn per_request_logging() {
    let mut s = server();
    push(
        &mut s,
        0,
        req("1", "tools/call", r#""name":"x""#).as_bytes(),
    );
    let Some(Event::Request { id: quiet, .. }) = s.poll_event() else {
        panic!()
    };
    let with_level = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"x",{}}}}}"#,
        envelope(r#","io.modelcontextprotocol/logLevel":"warning""#)
    );
    push(&mut s, 0, format!("{with_level}\n").as_bytes());
    let Some(Event::Request { id: loud, .. }) = s.poll_event() else {
        panic!()
    };
    let data = Json::new("\"d\"").unwrap();
    assert_eq!(s.log_for(quiet, LogLevel::Emergency, None, data), Ok(false));
    assert_eq!(s.log_for(loud, LogLevel::Info, None, data), Ok(false));
    assert_eq!(s.log_for(loud, LogLevel::Error, None, data), Ok(true));
    assert_eq!(
        s.log(LogLevel::Emergency, None, data),
        Ok(false),
        "never unsolicited in the modern era"
    );
    let out = take_output(&mut s);
    assert_eq!(out.len(), 1);
    assert_eq!(j(&out[0])["params"]["level"], "error");
}

#[test]
fn input_required_is_gated_by_the_requests_capabilities() {
    let mut s = server();
    push(
        &mut s,
        0,
        req("1", "tools/call", r#""name":"x""#).as_bytes(),
    );
    let Some(Event::Request { id, .. }) = s.poll_event() else {
        panic!()
    };
    let sampling = Json::new(
        r#"{"s":{"method":"sampling/createMessage","params":{"messages":[],"maxTokens":5}}}"#,
    )
    .unwrap();
    assert_eq!(
        s.respond_input_required(id, Some(sampling), None),
        Err(RespondError::InputNotAllowed),
        "sampling not declared"
    );
    let url = Json::new(r#"{"u":{"method":"elicitation/create","params":{"mode":"url","message":"m","url":"https://x"}}}"#).unwrap();
    assert_eq!(
        s.respond_input_required(id, Some(url), None),
        Err(RespondError::InputNotAllowed),
        "url mode not declared"
    );
    assert_eq!(
        s.respond_input_required(id, None, None),
        Err(RespondError::InputNotAllowed),
        "needs one of the two"
    );
    let form = Json::new(r#"{"confirm":{"method":"elicitation/create","params":{"message":"ok?","requestedSchema":{"type":"object","properties":{}}}}}"#).unwrap();
    s.respond_input_required(id, Some(form), Some("st\"ate"))
        .unwrap();
    let v = j(&take_output(&mut s)[0]);
    assert_eq!(v["result"]["resultType"], "input_required");
    assert_eq!(v["result"]["requestState"], "st\"ate");
    assert_eq!(
        v["result"]["inputRequests"]["confirm"]["method"],
        "elicitation/create"
    );
    assert!(v["result"].get("ttlMs").is_none());
    // Not for tools/list.
    push(&mut s, 0, req("2", "tools/list", "").as_bytes());
    let Some(Event::Request { id, .. }) = s.poll_event() else {
        panic!()
    };
    assert_eq!(
        s.respond_input_required(id, None, Some("x")),
        Err(RespondError::InputNotAllowed)
    );
    // -32021 with the missing capabilities.
    s.respond_missing_capability(id, Json::new(r#"{"sampling":{}}"#).unwrap())
        .unwrap();
    let v = j(&take_output(&mut s)[0]);
    assert_eq!(v["error"]["code"], -32021);
    assert_eq!(
        v["error"]["data"]["requiredCapabilities"],
        json!({"sampling":{}})
    );
    // Reserved codes cannot be sent by hand.
    push(&mut s, 0, req("3", "tools/list", "").as_bytes());
    let Some(Event::Request { id, .. }) = s.poll_event() else {
        panic!()
    };
    assert_eq!(
        s.respond_error(id, picomcp::ErrorCode(-32021), "x", None),
        Err(RespondError::ReservedCode(picomcp::ErrorCode(-32021)))
    );
}

// ---- client role ----

#[test]
fn dual_era_pair_negotiates_modern() {
    let mut p = Pair::with(server_config(SERVER_CAPS), modern_client_config());
    p.drive();
    assert_eq!(
        p.client_events,
        ["negotiated 2026-07-28", "ready 2026-07-28"]
    );
    assert!(p.server_events.is_empty(), "{:?}", p.server_events);
    assert_eq!(p.client.era(), Era::Modern);
    let probe = j(&p.wire[0][3..]);
    assert_eq!(probe["method"], "server/discover");
    assert_eq!(
        probe["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"],
        V
    );
    // A request carries the envelope; the server sees a modern request.
    let id = p
        .client
        .send_request(0, Method::ToolsList, None, RequestOptions::default())
        .unwrap();
    let line = take_output(&mut p.client).pop().unwrap();
    let v = j(&line);
    assert_eq!(
        v["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"],
        json!({"elicitation":{},"sampling":{}})
    );
    assert_eq!(
        v["params"]["_meta"]["io.modelcontextprotocol/clientInfo"]["name"],
        "test-client"
    );
    push(&mut p.server, 0, format!("{line}\n").as_bytes());
    let Some(Event::Request { id: sid, .. }) = p.server.poll_event() else {
        panic!()
    };
    p.server
        .respond(sid, Json::new(r#"{"tools":[]}"#).unwrap())
        .unwrap();
    let out = take_output(&mut p.server).pop().unwrap();
    push(&mut p.client, 0, format!("{out}\n").as_bytes());
    match p.client.poll_event() {
        Some(Event::Response { id: rid, result }) => {
            assert_eq!(rid, id);
            assert_eq!(result.get("resultType").unwrap().as_raw(), "\"complete\"");
        }
        other => panic!("{other:?}"),
    }
    // ping does not exist any more.
    assert!(
        p.client
            .send_request(0, Method::Ping, None, RequestOptions::default())
            .is_err()
    );
}

#[test]
fn mrtr_round_trip() {
    let mut p = Pair::with(server_config(SERVER_CAPS), modern_client_config());
    p.handshake();
    let params =
        Json::new(r#"{"name":"delete","arguments":{"glob":"*.tmp"},"_meta":{"app/x":1}}"#).unwrap();
    let opts = RequestOptions {
        progress: true,
        ..Default::default()
    };
    let cid = p
        .client
        .send_request(0, Method::ToolsCall, Some(params), opts)
        .unwrap();
    let first = take_output(&mut p.client).pop().unwrap();
    push(&mut p.server, 0, format!("{first}\n").as_bytes());
    let Some(Event::Request { id: sid, .. }) = p.server.poll_event() else {
        panic!()
    };
    let reqs = Json::new(r#"{"confirm":{"method":"elicitation/create","params":{"message":"Delete?","requestedSchema":{"type":"object","properties":{"ok":{"type":"boolean"}}}}}}"#).unwrap();
    p.server
        .respond_input_required(sid, Some(reqs), Some("v1.SIGNED"))
        .unwrap();
    let out = take_output(&mut p.server).pop().unwrap();
    push(&mut p.client, 0, format!("{out}\n").as_bytes());
    match p.client.poll_event() {
        Some(Event::InputRequired { id, input_requests }) => {
            assert_eq!(id, cid);
            assert!(input_requests.unwrap().get("confirm").is_some());
        }
        other => panic!("{other:?}"),
    }
    p.client
        .answer_input(
            10,
            cid,
            Json::new(r#"{"confirm":{"action":"accept","content":{"ok":true}}}"#).unwrap(),
        )
        .unwrap();
    let retry = j(&take_output(&mut p.client).pop().unwrap());
    let first = j(&first);
    assert_ne!(retry["id"], first["id"], "a retry uses a new id");
    assert_eq!(retry["method"], "tools/call");
    assert_eq!(retry["params"]["name"], "delete");
    assert_eq!(retry["params"]["arguments"], json!({"glob":"*.tmp"}));
    assert_eq!(retry["params"]["requestState"], "v1.SIGNED");
    assert_eq!(
        retry["params"]["inputResponses"]["confirm"]["action"],
        "accept"
    );
    assert_eq!(retry["params"]["_meta"]["app/x"], 1);
    assert_eq!(retry["params"]["_meta"]["progressToken"], retry["id"]);
    assert_eq!(
        retry["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"],
        V
    );
    // The retry is answered normally.
    push(&mut p.server, 0, format!("{retry}\n").as_bytes());
    let Some(Event::Request { id: sid, .. }) = p.server.poll_event() else {
        panic!()
    };
    p.server
        .respond(sid, Json::new(r#"{"content":[]}"#).unwrap())
        .unwrap();
    let out = take_output(&mut p.server).pop().unwrap();
    push(&mut p.client, 0, format!("{out}\n").as_bytes());
    assert!(matches!(p.client.poll_event(), Some(Event::Response { id, .. }) if id == cid));
    // input_required on a method that does not allow it is an invalid result.
    let lid = p
        .client
        .send_request(0, Method::ToolsList, None, RequestOptions::default())
        .unwrap();
    let line = j(&take_output(&mut p.client).pop().unwrap());
    let bogus = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":{},\"result\":{{\"resultType\":\"input_required\",\"requestState\":\"x\"}}}}\n",
        line["id"]
    );
    let ev = deliver(&mut p.client, 0, bogus.as_bytes());
    assert_eq!(ev[0], "violation InvalidResult");
    let _ = lid;
}

#[test]
fn client_listen() {
    let mut p = Pair::with(server_config(SERVER_CAPS), modern_client_config());
    p.handshake();
    let lid = p
        .client
        .listen(Json::new(r#"{"toolsListChanged":true}"#).unwrap())
        .unwrap();
    p.drive();
    assert!(
        p.client_events.is_empty() || p.client_events.iter().all(|e| !e.starts_with("violation")),
        "{:?}",
        p.client_events
    );
    // The ack was turned into an event (rendered by Debug in the harness).
    assert!(
        p.client_events
            .iter()
            .any(|e| e.contains("SubscriptionAcknowledged")),
        "{:?}",
        p.client_events
    );
    p.client_events.clear();
    assert_eq!(p.server.notify(Change::ToolsListChanged), Ok(1));
    p.drive();
    assert_eq!(
        p.client_events,
        [
            r#"notification notifications/tools/list_changed {"_meta":{"io.modelcontextprotocol/subscriptionId":1}}"#
        ]
    );
    p.client.cancel(lid, None).unwrap();
    p.drive();
    assert_eq!(p.server.notify(Change::ToolsListChanged), Ok(0));
}

#[test]
fn probe_falls_back_on_error_timeout_and_reports_eof() {
    // Legacy-only server: -32601 at once, then initialize.
    let mut sc = server_config(SERVER_CAPS);
    sc.versions = Versions::LEGACY;
    let mut p = Pair::with(sc, modern_client_config());
    p.drive();
    assert_eq!(
        p.client_events,
        ["negotiated 2025-11-25", "ready 2025-11-25"]
    );
    assert_eq!(p.client.era(), Era::Legacy);
    // Silence: the probe times out, then initialize.
    let mut cc = modern_client_config();
    cc.probe_timeout_ms = 500;
    let mut c = Session::new(&cc, storage(), 0).unwrap();
    let probe = take_output(&mut c);
    assert_eq!(j(&probe[0])["method"], "server/discover");
    assert_eq!(c.poll_timeout(), Some(500));
    c.handle_timeout(500);
    let init = take_output(&mut c);
    assert_eq!(j(&init[0])["method"], "initialize");
    // A late discover result is dropped.
    let late = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":{},\"result\":{{\"resultType\":\"complete\",\"supportedVersions\":[\"{V}\"],\"capabilities\":{{}}}}}}\n",
        j(&probe[0])["id"]
    );
    let (_, ev) = feed(&mut c, 600, late.as_bytes());
    assert!(ev.is_empty(), "{ev:?}");
    // EOF during the probe.
    let mut c = Session::new(&cc, storage(), 0).unwrap();
    let _ = take_output(&mut c);
    c.handle_eof(1);
    assert_eq!(
        take_events(&mut c),
        [format!("closed {:?}", CloseReason::PeerClosedDuringProbe)]
    );
}

#[test]
fn a_listen_that_can_deliver_nothing_ends_at_once() {
    // Capabilities without any listChanged/subscribe flag.
    let mut s = Session::new(&server_config(r#"{"tools":{}}"#), storage(), 0).unwrap();
    let (out, _) = feed(
        &mut s,
        0,
        req(
            "\"l\"",
            "subscriptions/listen",
            r#""notifications":{"toolsListChanged":true}"#,
        )
        .as_bytes(),
    );
    assert_eq!(out.len(), 2, "{out:?}");
    assert_eq!(j(&out[0])["params"]["notifications"], json!({}));
    assert_eq!(
        j(&out[1]),
        json!({"jsonrpc":"2.0","id":"l","result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":"l"}}})
    );
}
