//! SSE streams: progress on the POST's stream, unrelated messages on the GET stream,
//! event ids, priming, resumption of one stream only, keep-alives, a client that never
//! reads.

mod http_common;

use http_common::{Host, call, call_with_token, endpoint_config};
use picomcp::http::Method;
use picomcp::http::endpoint::ResponseMode;

fn get<'a>(sid: &'a str, last: Option<&'a str>) -> Vec<(&'a str, &'a str)> {
    let mut hs = vec![
        ("Host", "localhost"),
        ("Accept", "text/event-stream"),
        ("Mcp-Session-Id", sid),
    ];
    if let Some(l) = last {
        hs.push(("Last-Event-ID", l));
    }
    hs
}

#[test]
fn progress_makes_an_sse_answer_with_the_response_last() {
    let mut h = Host::new();
    let sid = h.open("2025-06-18");
    let r = h.post(Some(&sid), &call_with_token(2, "progress", "tok"));
    assert_eq!(r.status, 200);
    assert_eq!(r.header("Content-Type"), Some("text/event-stream"));
    let ev = r.events();
    assert_eq!(ev.len(), 2, "{}", r.body);
    assert_eq!(ev[0]["method"], "notifications/progress");
    assert_eq!(ev[0]["params"]["progressToken"], "tok");
    assert_eq!(ev[1]["id"], 2);
    assert!(r.open.is_none(), "the stream ends after the response");
    // 2025-06-18: no priming event.
    assert!(!r.body.contains("retry:"));
}

#[test]
fn a_late_answer_travels_on_its_own_post_stream() {
    let mut h = Host::with(
        picomcp::http::endpoint::EndpointConfig {
            response_mode: ResponseMode::Sse,
            ..endpoint_config()
        },
        8,
        16,
    );
    let sid = h.open("2025-11-25");
    let a = h.post(Some(&sid), &call_with_token(10, "slow", "a"));
    let b = h.post(Some(&sid), &call(11, "echo"));
    assert_eq!(b.events().len(), 1);
    assert_eq!(b.events()[0]["id"], 11);
    let ha = a.open.expect("still waiting");
    // The priming event: an id and a retry hint, empty data.
    assert!(a.body.contains("retry: 1000"), "{}", a.body);
    h.release();
    let more = h.more(ha);
    let ev = more.events();
    assert_eq!(ev.len(), 2, "{}", more.body);
    assert_eq!(ev[0]["params"]["progressToken"], "a");
    assert_eq!(ev[1]["result"]["late"], true);
    assert!(more.open.is_none());
}

#[test]
fn unrelated_messages_go_to_the_get_stream_and_nowhere_else() {
    let mut h = Host::new();
    let sid = h.open("2025-11-25");
    let g = h.request(Method::Get, &get(&sid, None), "");
    assert_eq!(g.status, 200);
    assert_eq!(g.header("Content-Type"), Some("text/event-stream"));
    let hg = g.open.expect("open");
    let second = h.request(Method::Get, &get(&sid, None), "");
    assert_eq!(second.status, 409);
    let slot = (0..8).find(|&s| h.ep.slot_in_use(s)).unwrap();
    h.notify(slot);
    let m = h.more(hg);
    assert_eq!(m.events().len(), 1);
    assert_eq!(m.events()[0]["method"], "notifications/tools/list_changed");
    // Keep-alive comments while idle.
    h.advance(5_000);
    let k = h.more(hg);
    assert_eq!(k.body, ": keep-alive\n\n");
}

#[test]
fn resumption_replays_only_that_stream() {
    let mut h = Host::new();
    let sid = h.open("2025-11-25");
    let slot = (0..8).find(|&s| h.ep.slot_in_use(s)).unwrap();
    let g = h.request(Method::Get, &get(&sid, None), "");
    let hg = g.open.unwrap();
    let prime = g.ids()[0].clone();
    h.notify(slot);
    h.notify(slot);
    let seen = h.more(hg);
    assert_eq!(seen.ids().len(), 2);
    // The connection drops; one more message arrives meanwhile.
    h.ep.detach(hg);
    h.notify(slot);
    // A POST stream's events have ids of another stream.
    let p = h.post(Some(&sid), &call_with_token(3, "progress", "t"));
    let foreign = p.ids()[0].clone();
    assert_ne!(foreign.split('-').next(), prime.split('-').next());
    // Resume after the first notification: the second and third come again.
    let first = seen.ids()[0].clone();
    let r = h.request(Method::Get, &get(&sid, Some(&first)), "");
    assert_eq!(r.status, 200);
    let ev = r.events();
    assert_eq!(ev.len(), 2, "{}", r.body);
    assert!(
        ev.iter()
            .all(|e| e["method"] == "notifications/tools/list_changed")
    );
    h.ep.detach(r.open.unwrap());
    // An id of a stream that is gone, or of another session: nothing replayed.
    let other = h.open("2025-11-25");
    let r = h.request(Method::Get, &get(&other, Some(&first)), "");
    assert_eq!(r.status, 200);
    assert!(r.events().is_empty());
    assert_eq!(h.ep.stats().resume_misses, 1);
}

#[test]
fn a_client_that_never_reads_does_not_hold_anyone_else() {
    let mut h = Host::new();
    let sid = h.open("2025-06-18");
    let slot = (0..8).find(|&s| h.ep.slot_in_use(s)).unwrap();
    let g = h.request(Method::Get, &get(&sid, None), "");
    let _never_read = g.open.unwrap();
    for _ in 0..200 {
        h.notify(slot);
    }
    assert!(h.ep.stats().overflowed > 0);
    let other = h.open("2025-06-18");
    assert_eq!(h.post(Some(&other), &call(5, "echo")).status, 200);
    assert_eq!(h.post(Some(&sid), &call(6, "echo")).status, 200);
}

#[test]
fn messages_without_a_stream_are_counted() {
    let mut h = Host::new();
    let _sid = h.open("2025-06-18");
    let slot = (0..8).find(|&s| h.ep.slot_in_use(s)).unwrap();
    h.notify(slot);
    assert_eq!(h.ep.stats().unroutable, 1);
}

#[test]
fn sse_polling_ends_the_connection_and_the_answer_waits_for_resumption() {
    let mut h = Host::new();
    let sid = h.open("2025-11-25");
    let slot = (0..8).find(|&s| h.ep.slot_in_use(s)).unwrap();
    let r = h.post(Some(&sid), &call(4, "slow"));
    assert_eq!(r.status, 0, "undecided: nothing sent yet");
    let hs = r.open.unwrap();
    assert_eq!(h.ep.interrupt(slot), 1);
    let cut = h.more(hs);
    assert_eq!(cut.status, 200);
    assert!(cut.body.contains("retry: 1000"), "{}", cut.body);
    assert!(cut.open.is_none(), "the connection ends");
    let prime = cut.ids()[0].clone();
    h.release();
    let resumed = h.request(Method::Get, &get(&sid, Some(&prime)), "");
    assert_eq!(resumed.status, 200);
    let ev = resumed.events();
    assert_eq!(ev.last().unwrap()["id"], 4, "{}", resumed.body);
    assert!(resumed.open.is_none(), "answered: the stream ends");
    // Before 2025-11-25 there is no id to resume from: nothing is interrupted.
    let old = h.open("2025-06-18");
    let _ = h.post(Some(&old), &call(5, "slow"));
    let slot = (0..8).rev().find(|&s| h.ep.slot_in_use(s)).unwrap();
    assert_eq!(h.ep.interrupt(slot), 0);
}
