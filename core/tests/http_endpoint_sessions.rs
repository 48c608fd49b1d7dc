//! Legacy sessions over HTTP: minted ids, DELETE, idle expiry, and a flood of sessions
//! opened and abandoned against a bounded table.

mod http_common;

use http_common::{Host, call, init};
use picomcp::http::Method;

#[test]
fn initialize_mints_a_visible_ascii_id_and_requests_flow() {
    let mut h = Host::new();
    let r = h.post(None, &init(1, "2025-06-18"));
    assert_eq!(r.status, 200);
    assert_eq!(r.header("Content-Type"), Some("application/json"));
    assert_eq!(r.json()["result"]["protocolVersion"], "2025-06-18");
    let sid = r.header("Mcp-Session-Id").unwrap().to_owned();
    assert_eq!(sid.len(), 32);
    assert!(sid.bytes().all(|b| b.is_ascii_hexdigit()));
    let r = h.post(
        Some(&sid),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    );
    assert_eq!((r.status, r.body.as_str()), (202, ""));
    // A pretty-printed body (raw newlines) is one message.
    let r = h.post(
        Some(&sid),
        "{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 2,\n  \"method\": \"ping\"\n}\n",
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["id"], 2);
    let r = h.post(Some(&sid), &call(3, "echo"));
    assert_eq!(r.json()["result"]["ok"], true);
    assert!(r.header("Mcp-Session-Id").is_none());
}

#[test]
fn a_failed_initialize_mints_nothing() {
    let mut h = Host::new();
    let r = h.post(
        None,
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#,
    );
    assert_eq!(r.json()["error"]["code"], -32602);
    assert!(r.header("Mcp-Session-Id").is_none());
    assert_eq!(h.ep.sessions(), 0);
    assert!(!(0..8).any(|s| h.ep.slot_in_use(s)));
}

#[test]
fn delete_ends_the_session() {
    let mut h = Host::new();
    let sid = h.open("2025-11-25");
    let hs = [("Host", "localhost"), ("Mcp-Session-Id", sid.as_str())];
    let r = h.request(Method::Delete, &hs, "");
    assert_eq!(r.status, 200);
    let r = h.post(Some(&sid), &call(2, "echo"));
    assert_eq!(r.status, 404);
    let r = h.request(Method::Delete, &hs, "");
    assert_eq!(r.status, 404);
    assert_eq!(h.ep.stats().sessions_deleted, 1);
}

#[test]
fn idle_sessions_expire() {
    let mut h = Host::new();
    let sid = h.open("2025-06-18");
    assert_eq!(h.ep.poll_timeout(), Some(h.now + 60_000));
    h.advance(59_000);
    assert_eq!(h.post(Some(&sid), &call(2, "echo")).status, 200);
    h.advance(60_000);
    assert_eq!(h.ep.sessions(), 0);
    assert_eq!(h.post(Some(&sid), &call(3, "echo")).status, 404);
    assert_eq!(h.ep.stats().sessions_expired, 1);
}

#[test]
fn ten_thousand_abandoned_sessions_stay_bounded_and_a_live_client_is_served() {
    let mut h = Host::new();
    // Initialized, then silent until the flood is well under way.
    let live = h.open("2025-06-18");
    for i in 0..10_000u32 {
        let r = h.post(None, &init(i, "2025-06-18"));
        assert_eq!(r.status, 200, "session {i}");
        if i % 97 == 0 {
            let r = h.post(Some(&live), &call(i + 2, "echo"));
            assert_eq!(r.status, 200, "live client at {i}");
        }
        h.now += 1;
    }
    assert!(h.ep.sessions() <= 8);
    assert!(h.ep.open_streams() <= 16);
    assert_eq!(h.ep.stats().sessions_opened, 10_001);
    assert!(h.ep.stats().sessions_evicted >= 9_990);
    assert_eq!(h.post(Some(&live), &call(1, "echo")).status, 200);
}

#[test]
fn batches_only_in_2025_03_26() {
    let mut h = Host::new();
    let sid = h.open("2025-03-26");
    let batch = r#"[{"jsonrpc":"2.0","id":"a","method":"ping"},{"jsonrpc":"2.0","method":"notifications/roots/list_changed"},{"jsonrpc":"2.0","id":"b","method":"ping"}]"#;
    let r = h.post(Some(&sid), batch);
    assert_eq!(r.status, 200, "{}", r.body);
    let v = r.json();
    let ids: Vec<_> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].clone())
        .collect();
    assert_eq!(ids, vec![serde_json::json!("a"), serde_json::json!("b")]);
    let notes = r#"[{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}]"#;
    assert_eq!(h.post(Some(&sid), notes).status, 202);
    let later = h.open("2025-06-18");
    let r = h.post(Some(&later), batch);
    assert_eq!(r.status, 400, "{}", r.body);
    assert_eq!(r.json()["error"]["code"], -32600);
}
