//! Regression tests for bugs found by the fuzz targets (`fuzz/`, docs/RELIABILITY.md).
//! Each test names the target that found it and the input, reduced by hand.

mod common;
use common::*;
use picomcp::framing::{Frame, LineDecoder};
use picomcp::json::Json;
use picomcp::session::{Session, StaticStorage};

/// Found by `framing` (keep() after an overlong line): `keep()` after a `TooLong` frame
/// that was assembled in the buffer made the next call return the truncated first
/// `max_line` bytes as an ordinary `Line`.
#[test]
fn keep_after_too_long_returns_too_long_again() {
    let mut dec = LineDecoder::new([0u8; 8], 64);
    // Overflow without a newline: reported at once, from the buffer.
    let d = dec.decode(b"[1,2,3,4,5,6]");
    assert_eq!(d.frame, Some(Frame::TooLong { limit: 8, id: None }));
    assert!(dec.buffered_line());
    dec.keep();
    let d = dec.decode(b"\n");
    assert_eq!(d.consumed, 0);
    assert_eq!(
        d.frame,
        Some(Frame::TooLong { limit: 8, id: None }),
        "kept frame changed"
    );

    // Same when the overlong line was completed in the buffer (it started in an earlier
    // chunk).
    let mut dec = LineDecoder::new([0u8; 8], 64);
    assert_eq!(dec.decode(b"[1,2").frame, None);
    let d = dec.decode(b",3,4,5]\n");
    assert_eq!(d.frame, Some(Frame::TooLong { limit: 8, id: None }));
    dec.keep();
    let d = dec.decode(b"");
    assert_eq!(
        d.frame,
        Some(Frame::TooLong { limit: 8, id: None }),
        "kept frame changed"
    );
}

/// A server whose request table has two slots, after the handshake.
fn small_server() -> Session<'static> {
    type Small = StaticStorage<LINE, 16384, 16384, 2, 2, 4096>;
    let mem: &'static mut Small = Box::leak(Box::new(Small::new()));
    let mut s = Session::new(&server_config(SERVER_CAPS), mem.as_storage(), 0).unwrap();
    let (out, _) = feed(&mut s, 0, format!("{INIT}\n{INITIALIZED}\n").as_bytes());
    assert_eq!(out.len(), 1);
    s
}

/// Two requests that fill the table, then an overlong request (id 9) without its
/// newline: the overflow happens in the same call, while the events of the two requests
/// are still queued, so the session has no room for it.
fn overlong_after_full_table(first_line: &str) -> String {
    let mut chunk = format!(
        "{}\n{}\n{first_line}",
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
    );
    chunk.push_str(&" ".repeat(LINE));
    chunk
}
const PING_9: &str = r#"{"jsonrpc":"2.0","id":9,"method":"ping"}"#;

/// Offers `bytes` as the drain contract says: after each call, take all output and
/// events (requests are not answered), then offer the rest again, until all is taken or
/// no progress is made.
fn offer(s: &mut Session<'_>, bytes: &[u8]) -> (Vec<String>, Vec<String>) {
    let (mut out, mut events) = (Vec::new(), Vec::new());
    let mut rest = bytes;
    let mut stalled = false;
    while !rest.is_empty() {
        let n = s.handle_bytes(0, rest);
        rest = &rest[n..];
        out.extend(take_output(s));
        events.extend(take_events(s));
        if n == 0 {
            if stalled {
                break;
            }
            stalled = true;
        } else {
            stalled = false;
        }
    }
    (out, events)
}

fn replies(out: &[String]) -> Vec<serde_json::Value> {
    out.iter().map(|l| j(l)).collect()
}

/// The same bug seen through a session (found by `server_session`, whole vs chunked
/// feeding): the overlong line is kept for the next call, which then processed its
/// first `max_line` bytes — a complete ping followed by spaces — as a message and
/// answered it with a result instead of the -32600 "message too long".
#[test]
fn overlong_line_under_backpressure_is_still_rejected_as_too_long() {
    let mut s = small_server();
    let (mut out, mut events) = offer(&mut s, overlong_after_full_table(PING_9).as_bytes());
    let (o, e) = feed(&mut s, 0, b"\n");
    out.extend(o);
    events.extend(e);
    let r = replies(&out);
    assert_eq!(r.len(), 1, "{out:?}");
    assert_eq!(r[0]["id"], 9);
    assert_eq!(r[0]["error"]["code"], -32600, "{out:?} {events:?}");
    // The requests were not lost.
    assert_eq!(
        events.iter().filter(|e| e.starts_with("request")).count(),
        2,
        "{events:?}"
    );
}

/// Found by `server_session` and `client_session` (whole vs chunked output differ):
/// `handle_bytes` reported the bytes of a kept frame as taken although it had not
/// handled it. A host that drains and then waits for more input (as the contract
/// allows: nothing is left to offer) held back the overlong line's -32600 until the
/// peer sent something else, behind later responses; `close()` and end of input (see
/// the next test) lost it. Bytes reported as taken must be handled.
#[test]
fn bytes_reported_taken_are_handled() {
    for close in [false, true] {
        let mut s = small_server();
        let (mut out, events) = offer(&mut s, overlong_after_full_table(PING_9).as_bytes());
        let r = replies(&out);
        assert_eq!(
            r.len(),
            1,
            "close: {close}: no reply yet although all bytes were taken: {out:?} {events:?}"
        );
        assert_eq!(r[0]["id"], 9);
        assert_eq!(r[0]["error"]["code"], -32600);
        if close {
            s.close();
        } else {
            s.handle_eof(0);
        }
        out.extend(take_output(&mut s));
        assert_eq!(out.len(), 1, "{out:?}");
        assert_eq!(s.stats().lines_in, 5);
    }
}

/// Found with the previous one: a frame kept under backpressure was dropped by
/// `handle_eof`. The session no longer keeps frames: bytes it cannot handle yet are not
/// reported as taken, so the host still holds them, offers them again after draining, and
/// only then reports the end of input.
#[test]
fn untaken_bytes_stay_with_the_host_until_eof() {
    let mut s = small_server();
    let chunk = overlong_after_full_table(PING_9);
    let n = s.handle_bytes(0, chunk.as_bytes());
    assert!(
        n > 0 && n < chunk.len(),
        "backpressure expected ({n} of {})",
        chunk.len()
    );
    let mut out = take_output(&mut s);
    let events = take_events(&mut s);
    let (o, _) = offer(&mut s, &chunk.as_bytes()[n..]);
    out.extend(o);
    s.handle_eof(0);
    out.extend(take_output(&mut s));
    let r = replies(&out);
    assert_eq!(
        r.len(),
        1,
        "the overlong request got no reply: {out:?} {events:?}"
    );
    assert_eq!(r[0]["id"], 9);
    assert_eq!(r[0]["error"]["code"], -32600);
}

/// Same cause, seen with batches (2025-03-26): a second batch whose line is completed
/// while the first batch is still open (its requests not answered yet) is kept. Its bytes
/// were reported taken, so once the host answered the first batch nothing made the
/// session look at the second one again until the peer sent more: a client waiting for
/// both replies waited forever.
#[test]
fn second_batch_split_across_reads_is_handled_once_the_first_is_answered() {
    use picomcp::session::Event;
    let mut s = ready_server("2025-03-26");
    let b1 = r#"[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]"#;
    let b2 = r#"[{"jsonrpc":"2.0","id":2,"method":"tools/list"}]"#;
    let a = format!("{b1}\n{}", &b2[..10]);
    let b = format!("{}\n", &b2[10..]);
    assert_eq!(s.handle_bytes(0, a.as_bytes()), a.len());
    assert!(take_output(&mut s).is_empty());
    let mut first = None;
    while let Some(e) = s.poll_event() {
        if let Event::Request { id, .. } = e {
            first = Some(id);
        }
    }
    // The rest of batch 2 arrives while the host still works on batch 1.
    let n = s.handle_bytes(0, b.as_bytes());
    assert!(take_events(&mut s).is_empty());
    // The host answers batch 1, then offers what was not taken, as the contract says.
    s.respond(first.unwrap(), Json::EMPTY_OBJECT).unwrap();
    let out = take_output(&mut s);
    assert_eq!(out.len(), 1, "{out:?}");
    let rest = &b.as_bytes()[n..];
    if !rest.is_empty() {
        assert_eq!(s.handle_bytes(0, rest), rest.len());
    }
    let events = take_events(&mut s);
    assert_eq!(
        events,
        ["request tools/list -"],
        "batch 2 was taken ({n} of {} bytes) but not handled",
        b.len()
    );
}

/// Found by `server_session` and `client_session` ("event after Closed"): after the
/// session closed (here with `close()`; end of input behaves the same), `poll_timeout`
/// still reported the deadline of an open request of ours, and `handle_timeout` then
/// queued `notifications/cancelled` on the closed connection and a `TimedOut` event
/// after `Closed`.
#[test]
fn no_timeouts_after_close() {
    use picomcp::protocol::Method;
    use picomcp::session::RequestOptions;
    for eof in [false, true] {
        let mut s = ready_server("2025-11-25");
        let opts = RequestOptions {
            timeout_ms: Some(10),
            ..Default::default()
        };
        s.send_request(0, Method::Ping, None, opts).unwrap();
        assert_eq!(take_output(&mut s).len(), 1);
        if eof {
            s.handle_eof(0);
        } else {
            s.close();
        }
        assert_eq!(take_events(&mut s).len(), 1, "Closed");
        assert_eq!(
            s.poll_timeout(),
            None,
            "a deadline after close (eof: {eof})"
        );
        s.handle_timeout(100);
        assert_eq!(
            take_output(&mut s),
            Vec::<String>::new(),
            "output after close"
        );
        assert_eq!(
            take_events(&mut s),
            Vec::<String>::new(),
            "events after Closed"
        );
    }
}

/// `handle_eof` processes a final line without a newline and counts it.
#[test]
fn final_line_at_eof_is_counted() {
    let mut s = ready_server("2025-11-25");
    let before = s.stats().lines_in;
    push(&mut s, 0, br#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#);
    s.handle_eof(0);
    assert_eq!(
        take_output(&mut s),
        [r#"{"jsonrpc":"2.0","id":5,"result":{}}"#]
    );
    assert_eq!(s.stats().lines_in, before + 1);
}

/// Found by `server_session` (2025-03-26 batches): a batch that uses one id twice, where
/// the core answers the first request itself (`ping`), accepted the second as well: the
/// ping's response was staged in the batch reply but not sent, so both requests were in
/// flight at once and the reply array carried two responses with id 1 that the client
/// cannot tell apart. Two requests the host answers (`tools/list` twice) are already
/// caught (`DuplicateRequestId`, -32600); a response staged in the open batch must count
/// as in flight too.
#[test]
fn duplicate_id_in_one_batch_is_rejected_when_the_core_answers_the_first() {
    let mut s = ready_server("2025-03-26");
    let batch = r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":1,"method":"tools/list"}]"#;
    let (out, events) = feed(&mut s, 0, format!("{batch}\n").as_bytes());
    assert!(
        !events.iter().any(|e| e.starts_with("request")),
        "the duplicate reached the host: {events:?} {out:?}"
    );
    assert_eq!(out.len(), 1, "{out:?}");
    let reply = j(&out[0]);
    assert_eq!(reply[0]["id"], 1);
    assert_eq!(reply[0]["result"], serde_json::json!({}));
    assert_eq!(reply[1]["id"], 1);
    assert_eq!(reply[1]["error"]["code"], -32600, "{out:?}");
}

/// Found by `server_session` (2025-03-26 batches; "handle_bytes took nothing although
/// the queues were drained"): a batch request answered with `respond_error` or
/// `respond_missing_capability` was written as a lone object instead of being staged in
/// the batch reply, and the batch was never marked done. The rest of the batch reply
/// (here the ping's result) was never sent, and every later batch line waited forever
/// for the batch to close.
#[test]
fn batch_request_answered_with_an_error_completes_the_batch() {
    use picomcp::ErrorCode;
    use picomcp::session::Event;
    for missing_capability in [false, true] {
        let mut s = ready_server("2025-03-26");
        let b1 = r#"[{"jsonrpc":"2.0","id":1,"method":"tools/list"},{"jsonrpc":"2.0","id":2,"method":"ping"}]"#;
        push(&mut s, 0, format!("{b1}\n").as_bytes());
        let mut request = None;
        while let Some(e) = s.poll_event() {
            if let Event::Request { id, .. } = e {
                request = Some(id);
            }
        }
        assert!(
            take_output(&mut s).is_empty(),
            "the batch reply waits for the host"
        );
        let id = request.unwrap();
        if missing_capability {
            s.respond_missing_capability(id, Json::new(r#"{"sampling":{}}"#).unwrap())
                .unwrap();
        } else {
            s.respond_error(id, ErrorCode::INTERNAL_ERROR, "boom", None)
                .unwrap();
        }
        let out = take_output(&mut s);
        assert_eq!(out.len(), 1, "{out:?}");
        let reply = j(&out[0]);
        let items = reply
            .as_array()
            .unwrap_or_else(|| panic!("not a batch reply: {out:?}"));
        assert_eq!(items.len(), 2, "{out:?}");
        let by_id = |id: i64| items.iter().find(|r| r["id"] == id).unwrap();
        let code = if missing_capability { -32021 } else { -32603 };
        assert_eq!(by_id(1)["error"]["code"], code);
        assert_eq!(by_id(2)["result"], serde_json::json!({}));
        // The batch is closed: the next one is handled.
        let b2 = r#"[{"jsonrpc":"2.0","id":3,"method":"tools/list"}]"#;
        let (_, events) = feed(&mut s, 0, format!("{b2}\n").as_bytes());
        assert_eq!(events, ["request tools/list -"]);
    }
}
