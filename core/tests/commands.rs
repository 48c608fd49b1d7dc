//! Commands while an event is held (`poll_event_split`), and the slot of a request the
//! peer cancelled.

mod common;
use common::*;
use picomcp::json::Json;
use picomcp::protocol::Method;
use picomcp::session::{Event, RequestOptions, Session, StaticStorage};

const CALL: &str = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a\"b"}}}"#;

#[test]
fn a_request_is_answered_from_its_own_params_without_a_copy() {
    let mut s = ready_server("2025-11-25");
    push(&mut s, 0, format!("{CALL}\n").as_bytes());
    let mut answered = 0;
    while let Some((event, mut commands)) = s.poll_event_split() {
        let Event::Request { id, method, params } = event else {
            panic!("{event:?}")
        };
        assert_eq!(method, Method::ToolsCall);
        assert!(commands.is_open(id));
        // The arguments still borrow the event queue while the answer is written.
        let args = params.and_then(|p| p.get("arguments")).unwrap();
        commands.respond(id, args).unwrap();
        assert!(!commands.is_open(id));
        answered += 1;
    }
    assert_eq!(answered, 1);
    let out = take_output(&mut s);
    assert_eq!(
        out,
        [r#"{"jsonrpc":"2.0","id":7,"result":{"text":"a\"b"}}"#]
    );
}

#[test]
fn split_commands_are_the_session_commands() {
    // The same request answered through `Session` and through `Commands` gives the same
    // bytes, and both see the same state.
    let line = format!("{CALL}\n");
    let mut a = ready_server("2025-11-25");
    let mut b = ready_server("2025-11-25");
    push(&mut a, 0, line.as_bytes());
    push(&mut b, 0, line.as_bytes());
    let Some(Event::Request { id, .. }) = a.poll_event() else {
        panic!()
    };
    a.respond_error(id, picomcp::ErrorCode::INVALID_PARAMS, "no", None)
        .unwrap();
    let (event, mut c) = b.poll_event_split().unwrap();
    let Event::Request { id, .. } = event else {
        panic!()
    };
    c.respond_error(id, picomcp::ErrorCode::INVALID_PARAMS, "no", None)
        .unwrap();
    assert_eq!(c.phase(), a.phase());
    assert_eq!(take_output(&mut a), take_output(&mut b));
    assert!(b.poll_event_split().is_none());
}

#[test]
fn a_host_can_send_while_holding_an_event() {
    let mut p = Pair::new();
    p.handshake();
    let now = p.now;
    // The client asks; the server, holding the request event, asks the client back.
    p.client
        .send_request(now, Method::ToolsList, None, RequestOptions::default())
        .unwrap();
    let out = take_output(&mut p.client);
    push(&mut p.server, now, format!("{}\n", out[0]).as_bytes());
    let (event, mut c) = p.server.poll_event_split().unwrap();
    let Event::Request { id, .. } = event else {
        panic!()
    };
    let ask = c
        .send_request(now, Method::RootsList, None, RequestOptions::default())
        .unwrap();
    c.respond(id, Json::new(r#"{"tools":[]}"#).unwrap())
        .unwrap();
    let _ = ask;
    let out = take_output(&mut p.server);
    assert_eq!(j(&out[0])["method"], "roots/list");
    assert_eq!(j(&out[1])["result"]["tools"], serde_json::json!([]));
}

#[test]
fn the_core_frees_the_slot_of_a_cancelled_request() {
    // One inbound slot: after the peer cancels the only request, a new one gets the slot
    // although the host never answered the first.
    let mut config = server_config(SERVER_CAPS);
    config.limits.max_line = 1024;
    let mem: &mut StaticStorage<1024, 8192, 4096, 1, 1, 4096> =
        Box::leak(Box::new(StaticStorage::new()));
    let mut s = Session::new(&config, mem.as_storage(), 0).unwrap();
    let (out, _) = feed(&mut s, 0, format!("{INIT}\n{INITIALIZED}\n").as_bytes());
    assert_eq!(out.len(), 1);
    push(&mut s, 0, format!("{CALL}\n").as_bytes());
    let Some(Event::Request { id: first, .. }) = s.poll_event() else {
        panic!()
    };
    let cancel = r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}"#;
    let ev = deliver(&mut s, 0, format!("{cancel}\n").as_bytes());
    assert_eq!(ev, ["cancelled -"]);
    // Until the slot is reused, the handle still names the cancelled request: answering
    // it is harmless (Ok, nothing sent).
    assert!(!s.is_open(first));
    assert!(s.request_info(first).is_some_and(|i| i.cancelled));
    s.respond(first, Json::EMPTY_OBJECT).unwrap();
    assert!(take_output(&mut s).is_empty());
    // The id is no longer in flight, and the slot takes a new request.
    let again = CALL.replace("\"id\":7", "\"id\":8");
    push(&mut s, 0, format!("{again}\n").as_bytes());
    let Some(Event::Request { id: second, .. }) = s.poll_event() else {
        panic!("the cancelled request's slot was not reclaimed")
    };
    assert!(s.is_open(second));
    // The old handle is stale now: refused like any finished request, nothing sent.
    assert_eq!(
        s.respond(first, Json::EMPTY_OBJECT),
        Err(picomcp::session::RespondError::UnknownRequest)
    );
    s.respond(second, Json::EMPTY_OBJECT).unwrap();
    assert_eq!(take_output(&mut s).len(), 1);
}
