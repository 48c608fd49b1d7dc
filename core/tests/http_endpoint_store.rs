//! The legacy session table seen from a shared store: a session started by one endpoint
//! (one process) is taken over by another from its record, as two processes behind a
//! load balancer would do with a store between them (docs/DESIGN.md, "Shared stores").

mod http_common;

use http_common::{Host, call, init, session};
use picomcp::http::endpoint::{AdoptError, SessionRecord, SessionStore, StoreFull};

#[test]
fn a_session_record_moves_a_session_to_another_endpoint() {
    let mut a = Host::new();
    let mut b = Host::new();
    let sid = a.open("2025-11-25");
    // Process A writes the record to the store once the id has gone out.
    let record = a.ep.session_record(sid.as_bytes()).expect("a live session");
    assert_eq!(record.id, sid.as_bytes());
    assert!(
        record.used,
        "notifications/initialized came after initialize"
    );
    let mut store = [None; 2];
    let bytes = record.encode();
    store[..]
        .put(SessionRecord::decode(&bytes).unwrap())
        .unwrap();

    // Process B does not know the id: the endpoint alone says 404.
    assert_eq!(b.post(Some(&sid), &call(2, "echo")).status, 404);
    // B's host finds it in the store, adopts it and rebuilds the session there by
    // replaying the client's initialize (kept beside the record), output discarded.
    let found = store[..].lookup(sid.as_bytes()).expect("stored");
    let slot = b.ep.adopt_session(b.now, &found).unwrap();
    let mut s = session(b.now);
    s.handle_message(b.now, init(1, "2025-11-25").as_bytes())
        .unwrap();
    while s.poll_event().is_some() {}
    s.handle_message(
        b.now,
        br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    )
    .unwrap();
    while s.poll_event().is_some() {}
    let n = s.pending_transmit().len();
    s.advance_transmit(n);
    b.pool[slot] = Some(s);
    let r = b.post(Some(&sid), &call(2, "echo"));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["result"]["ok"], true);
    // Adopting a known id keeps its slot; DELETE on B ends it there.
    assert_eq!(b.ep.adopt_session(b.now, &found), Ok(slot));
    assert!(store[..].remove(sid.as_bytes()));
    assert!(store[..].lookup(sid.as_bytes()).is_none());
}

#[test]
fn records_encode_decode_and_stores_are_bounded() {
    let mut a = Host::new();
    let sid = a.open("2025-06-18");
    let r = a.ep.session_record(sid.as_bytes()).unwrap();
    assert_eq!(SessionRecord::decode(&r.encode()), Some(r));
    assert_eq!(SessionRecord::decode(b"not a record"), None);
    let mut bad = r.encode();
    bad[0] = b'!';
    assert_eq!(SessionRecord::decode(&bad), None);
    assert!(
        a.ep.session_record(b"0123456789abcdef0123456789abcdef")
            .is_none()
    );

    let mut store = [None; 1];
    store[..].put(r).unwrap();
    // The same id replaces; another one does not fit.
    store[..].put(SessionRecord { used: false, ..r }).unwrap();
    assert_eq!(
        store[..].lookup(sid.as_bytes()).map(|x| x.used),
        Some(false)
    );
    let other = SessionRecord {
        id: *b"00000000000000000000000000000000",
        ..r
    };
    assert_eq!(store[..].put(other), Err(StoreFull));

    // A revision the endpoint does not serve as legacy is refused.
    let modern = SessionRecord {
        version: picomcp::protocol::ProtocolVersion::parse("2026-07-28"),
        ..other
    };
    let mut b = Host::new();
    assert_eq!(b.ep.adopt_session(b.now, &modern), Err(AdoptError::Version));
    let _ = init;
}

#[test]
fn stream_numbers_in_disjoint_ranges_name_the_process_of_an_event_id() {
    use picomcp::http::endpoint::Endpoint;
    let mut h = Host::new();
    h.ep.set_first_stream_number((3 << 24) + 1);
    let sid = h.open("2025-11-25");
    let hs = [
        ("Host", "localhost"),
        ("Accept", "text/event-stream"),
        ("Mcp-Session-Id", sid.as_str()),
    ];
    let r = h.request(picomcp::http::Method::Get, &hs, "");
    assert_eq!(r.status, 200);
    // The GET stream's priming event carries an id in process 3's range.
    let id = r.ids().first().cloned().expect("a priming event id");
    let number = Endpoint::resumes_stream(id.as_bytes()).unwrap();
    assert_eq!(number >> 24, 3, "{id}");
    assert_eq!(Endpoint::resumes_stream(b"not-an-id"), None);
}
