//! Legacy handshake, version negotiation and the rules of what may flow when.

mod common;
use common::*;
use picomcp::protocol::{ProtocolVersion, Versions};
use picomcp::session::Phase;

#[test]
fn pair_handshake_transcript() {
    let mut p = Pair::new();
    p.drive();
    assert_eq!(
        p.client_events,
        ["negotiated 2025-11-25", "ready 2025-11-25"]
    );
    assert_eq!(
        p.server_events,
        ["negotiated 2025-11-25", "ready 2025-11-25"]
    );
    assert_eq!(p.wire.len(), 3, "{:?}", p.wire);
    let init = j(&p.wire[0][3..]);
    assert_eq!(init["method"], "initialize");
    assert_eq!(init["params"]["protocolVersion"], "2025-11-25");
    assert_eq!(init["params"]["clientInfo"]["name"], "test-client");
    let result = j(&p.wire[1][3..]);
    assert_eq!(result["id"], init["id"]);
    assert_eq!(result["result"]["serverInfo"]["name"], "test-server");
    assert_eq!(result["result"]["instructions"], "be nice");
    assert_eq!(
        result["result"]["capabilities"]["tools"]["listChanged"],
        true
    );
    assert_eq!(j(&p.wire[2][3..])["method"], "notifications/initialized");
    assert_eq!(p.client.phase(), Phase::Operating);
    assert_eq!(p.server.phase(), Phase::Operating);
    assert_eq!(p.client.version(), Some(ProtocolVersion::V2025_11_25));
}

#[test]
fn server_echoes_supported_version_and_counter_offers_otherwise() {
    for (asked, answered) in [
        ("2024-11-05", "2024-11-05"),
        ("2025-03-26", "2025-03-26"),
        ("2025-06-18", "2025-06-18"),
        ("2025-11-25", "2025-11-25"),
        ("2026-07-28", "2025-11-25"), // rmcp proposes the modern version inside initialize
        ("1.0.0", "2025-11-25"),
        ("1999-01-01", "2025-11-25"),
    ] {
        let mut s = server();
        let (out, ev) = feed(
            &mut s,
            0,
            format!("{}\n", INIT.replace("2025-11-25", asked)).as_bytes(),
        );
        assert_eq!(
            j(&out[0])["result"]["protocolVersion"],
            answered,
            "asked {asked}"
        );
        assert_eq!(ev, [format!("negotiated {answered}")]);
    }
}

#[test]
fn server_limited_versions_offers_its_newest() {
    let mut s = server_with(Versions::of(&[
        ProtocolVersion::V2025_03_26,
        ProtocolVersion::V2025_06_18,
    ]));
    let (out, _) = feed(&mut s, 0, format!("{INIT}\n").as_bytes());
    assert_eq!(j(&out[0])["result"]["protocolVersion"], "2025-06-18");
}

#[test]
fn client_rejects_unsupported_version() {
    let mut cc = client_config(CLIENT_CAPS);
    cc.versions = Versions::of(&[ProtocolVersion::V2025_11_25]);
    let mut sc = server_config(SERVER_CAPS);
    sc.versions = Versions::of(&[ProtocolVersion::V2025_06_18]);
    let mut p = Pair::with(sc, cc);
    p.drive();
    assert_eq!(p.client_events, ["closed UnsupportedVersion"]);
    assert_eq!(p.client.phase(), Phase::Closed);
}

#[test]
fn client_initialize_error_closes() {
    let mut c = picomcp::session::Session::new(&client_config(CLIENT_CAPS), storage(), 0).unwrap();
    let _ = take_output(&mut c);
    let (_, ev) = feed(&mut c, 0, br#"{"jsonrpc":"2.0","id":0,"error":{"code":-32602,"message":"Unsupported protocol version"}}
"#);
    assert_eq!(ev, ["closed InitializeRejected { code: -32602 }"]);
}

#[test]
fn client_initialize_timeout_closes() {
    let mut c = picomcp::session::Session::new(&client_config(CLIENT_CAPS), storage(), 0).unwrap();
    assert_eq!(c.poll_timeout(), Some(1000));
    c.handle_timeout(999);
    assert!(take_events(&mut c).is_empty());
    c.handle_timeout(1000);
    assert_eq!(take_events(&mut c), ["closed InitializeTimedOut"]);
}

#[test]
fn requests_before_initialize() {
    let mut s = server();
    let (out, ev) = feed(
        &mut s,
        0,
        br#"{"jsonrpc":"2.0","id":1,"method":"ping"}
{"jsonrpc":"2.0","id":2,"method":"tools/list"}
{"jsonrpc":"2.0","id":3,"method":"server/discover","params":{}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
"#,
    );
    assert_eq!(
        j(&out[0]),
        serde_json::json!({"jsonrpc":"2.0","id":1,"result":{}})
    );
    assert_eq!(j(&out[1])["error"]["code"], -32600);
    assert_eq!(j(&out[1])["id"], 2);
    assert_eq!(j(&out[2])["error"]["code"], -32601);
    assert_eq!(out.len(), 3);
    assert_eq!(
        ev,
        [
            "violation NotInitialized(ToolsList)",
            "violation NotInVersion(ServerDiscover)"
        ]
    );
    assert_eq!(s.phase(), Phase::Initializing);
}

#[test]
fn second_initialize_is_invalid_request() {
    let mut s = ready_server("2025-11-25");
    let (out, ev) = feed(
        &mut s,
        0,
        format!("{}\n", INIT.replace("\"id\":0", "\"id\":9")).as_bytes(),
    );
    assert_eq!(j(&out[0])["error"]["code"], -32600);
    assert_eq!(j(&out[0])["id"], 9);
    assert_eq!(ev, ["violation DuplicateInitialize"]);
}

#[test]
fn initialize_without_version_is_invalid_params() {
    let mut s = server();
    let (out, _) = feed(&mut s, 0, b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"capabilities\":{}}}\n");
    assert_eq!(j(&out[0])["error"]["code"], -32602);
    assert_eq!(s.phase(), Phase::Initializing);
    let (out, _) = feed(&mut s, 0, format!("{INIT}\n").as_bytes());
    assert!(j(&out[0])["result"].is_object());
}

#[test]
fn cancelling_initialize_is_ignored() {
    let mut s = server();
    let (out, ev) = feed(
        &mut s,
        0,
        format!("{INIT}\n{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{{\"requestId\":0}}}}\n").as_bytes(),
    );
    assert_eq!(out.len(), 1);
    assert_eq!(ev, ["negotiated 2025-11-25"]);
}

#[test]
fn eof_closes_and_processes_final_unterminated_line() {
    let mut s = ready_server("2025-11-25");
    let (out, _) = feed(&mut s, 0, br#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#);
    assert!(out.is_empty());
    s.handle_eof(1);
    assert_eq!(j(&take_output(&mut s)[0])["id"], 5);
    assert_eq!(take_events(&mut s), ["closed PeerClosed"]);
    assert_eq!(s.phase(), Phase::Closed);
}
