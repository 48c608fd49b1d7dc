//! Every bound of the session: reaching it gives a typed error or the proper JSON-RPC
//! error, never a panic or a silent drop, and the session keeps working afterwards.

mod common;
use common::*;
use picomcp::json::Json;
use picomcp::protocol::Method;
use picomcp::session::{
    Config, ConfigError, Event, RequestOptions, RespondError, SendError, Session, StaticStorage,
};

fn req(id: u32) -> String {
    format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/call\",\"params\":{{\"name\":\"x\"}}}}\n"
    )
}

#[test]
fn inbound_table_full_answers_internal_error_once_the_host_has_seen_every_request() {
    let mut s = ready_server("2025-11-25"); // 8 inbound slots
    let mut ids = Vec::new();
    for i in 0..8 {
        push(&mut s, 0, req(i).as_bytes());
        match s.poll_event() {
            Some(Event::Request { id, .. }) => ids.push(id),
            other => panic!("{other:?}"),
        }
    }
    let (out, ev) = feed(&mut s, 0, req(100).as_bytes());
    assert_eq!(j(&out[0])["error"]["code"], -32603);
    assert_eq!(j(&out[0])["id"], 100);
    assert_eq!(ev, ["violation TooManyRequests"]);
    // Answering one frees a slot.
    s.respond(ids[0], Json::EMPTY_OBJECT).unwrap();
    let _ = take_output(&mut s);
    push(&mut s, 0, req(101).as_bytes());
    assert!(matches!(s.poll_event(), Some(Event::Request { .. })));
}

#[test]
fn unseen_requests_apply_backpressure_instead_of_errors() {
    let mut s = ready_server("2025-11-25");
    let burst: String = (0..20).map(req).collect();
    // Without draining events, the session stops taking input when the table is full.
    let n = s.handle_bytes(0, burst.as_bytes());
    assert!(n < burst.len(), "backpressure expected");
    assert!(
        take_output(&mut s).is_empty(),
        "no -32603 while the host has not seen the requests"
    );
    // The host drains and answers; the rest is then accepted, and every request is answered.
    let mut rest = &burst.as_bytes()[n..];
    let mut answered = 0;
    loop {
        while let Some(ev) = s.poll_event() {
            if let Event::Request { id, .. } = ev {
                s.respond(id, Json::EMPTY_OBJECT).unwrap();
                answered += 1;
            }
        }
        let _ = take_output(&mut s);
        if rest.is_empty() {
            break;
        }
        let k = s.handle_bytes(0, rest);
        rest = &rest[k..];
    }
    assert_eq!(answered, 20);
}

#[test]
fn outbound_table_full_is_a_typed_error() {
    let mut p = Pair::new();
    p.handshake();
    for _ in 0..8 {
        p.client
            .send_request(0, Method::ToolsList, None, RequestOptions::default())
            .unwrap();
    }
    assert_eq!(
        p.client
            .send_request(0, Method::ToolsList, None, RequestOptions::default()),
        Err(SendError::TooManyRequests)
    );
    assert_eq!(take_output(&mut p.client).len(), 8);
}

#[test]
fn full_transmit_queue_is_backpressure_then_full_errors() {
    let mut s = ready_server("2025-11-25");
    // 16 KiB transmit queue; pings answer ~40 bytes each: never drain.
    let pings: String = (0..2000)
        .map(|i| format!("{{\"jsonrpc\":\"2.0\",\"id\":{i},\"method\":\"ping\"}}\n"))
        .collect();
    let n = s.handle_bytes(0, pings.as_bytes());
    assert!(n < pings.len());
    // Nothing was lost: every taken ping is answered, in order.
    let taken = pings.as_bytes()[..n]
        .iter()
        .filter(|&&c| c == b'\n')
        .count();
    let out = take_output(&mut s);
    assert_eq!(out.len(), taken);
    assert_eq!(j(out.last().unwrap())["id"], taken - 1);
    // A response larger than the queue is refused with the size it needs.
    push(&mut s, 0, req(5000).as_bytes());
    let Some(Event::Request { id, .. }) = s.poll_event() else {
        panic!()
    };
    let big = format!("{{\"text\":\"{}\"}}", "x".repeat(20000));
    match s.respond(id, Json::new(&big).unwrap()) {
        Err(RespondError::Full(e)) => assert!(e.required > 20000),
        other => panic!("{other:?}"),
    }
    // The request is still open and can be answered with something that fits.
    s.respond(id, Json::EMPTY_OBJECT).unwrap();
}

#[test]
fn event_queue_full_is_backpressure() {
    let mut s = ready_server("2025-11-25");
    // Large params fill the 16 KiB event queue before the request table.
    let big = |i: u32| {
        format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{i},\"method\":\"tools/call\",\"params\":{{\"name\":\"x\",\"arguments\":{{\"t\":\"{}\"}}}}}}\n",
            "y".repeat(3000)
        )
    };
    let burst: String = (0..8).map(big).collect();
    let n = s.handle_bytes(0, burst.as_bytes());
    assert!(n < burst.len());
    let mut seen = 0;
    let mut rest = &burst.as_bytes()[n..];
    loop {
        while let Some(ev) = s.poll_event() {
            if let Event::Request { id, params, .. } = ev {
                assert_eq!(
                    params
                        .unwrap()
                        .get("arguments")
                        .unwrap()
                        .get("t")
                        .unwrap()
                        .as_raw()
                        .len(),
                    3002
                );
                s.respond(id, Json::EMPTY_OBJECT).unwrap();
                seen += 1;
            }
        }
        let _ = take_output(&mut s);
        if rest.is_empty() {
            break;
        }
        let k = s.handle_bytes(0, rest);
        rest = &rest[k..];
    }
    assert_eq!(seen, 8);
}

#[test]
fn limits_on_ids_depth_and_lines() {
    let mut s = ready_server("2025-11-25");
    let long_id = "9".repeat(200);
    let (out, _) = feed(
        &mut s,
        0,
        format!("{{\"jsonrpc\":\"2.0\",\"id\":{long_id},\"method\":\"ping\"}}\n").as_bytes(),
    );
    assert_eq!(j(&out[0])["error"]["code"], -32600);
    assert!(out[0].contains(&long_id), "the too-long id is echoed");
    let deep = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{{\"a\":{}1{}}}}}\n",
        "[".repeat(100),
        "]".repeat(100)
    );
    let (out, _) = feed(&mut s, 0, deep.as_bytes());
    assert_eq!(j(&out[0])["error"]["code"], -32600);
    assert_eq!(j(&out[0])["id"], 1);
    let long = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\",\"params\":{{\"p\":\"{}\"}}}}\n",
        "z".repeat(LINE)
    );
    let (out, ev) = feed(&mut s, 0, long.as_bytes());
    assert_eq!(j(&out[0])["error"]["code"], -32600);
    assert_eq!(j(&out[0])["id"], 2);
    assert_eq!(ev, [format!("violation LineTooLong {{ limit: {LINE} }}")]);
    let (out, _) = feed(
        &mut s,
        0,
        b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}\n",
    );
    assert_eq!(j(&out[0])["id"], 3);
}

#[test]
fn configuration_errors_are_typed() {
    let mut mem: StaticStorage<64, 64, 64, 1, 1, 16> = StaticStorage::new();
    let mut c: Config<'_> = server_config(SERVER_CAPS);
    c.limits.max_line = 64;
    assert!(matches!(
        Session::new(&c, mem.as_storage(), 0),
        Err(ConfigError::BufferTooSmall { which: "info", .. })
    ));
    let mut mem: StaticStorage<64, 64, 64, 1, 1, 8192> = StaticStorage::new();
    assert!(matches!(
        Session::new(&c, mem.as_storage(), 0),
        Err(ConfigError::BufferTooSmall { which: "tx", .. })
    ));
    c.limits.max_line = 65;
    assert_eq!(
        Session::new(&c, mem.as_storage(), 0).err(),
        Some(ConfigError::LineMismatch)
    );
    c.limits.max_depth = 1000;
    assert_eq!(
        Session::new(&c, mem.as_storage(), 0).err(),
        Some(ConfigError::BadLimit)
    );
    let mut c = server_config(SERVER_CAPS);
    c.capabilities = Json::new("[]").unwrap();
    assert_eq!(
        Session::new(&c, storage(), 0).err(),
        Some(ConfigError::CapabilitiesNotObject)
    );
}
