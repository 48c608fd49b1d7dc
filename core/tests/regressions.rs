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

/// The same bug seen through a session (found by `server_session`, whole vs chunked
/// feeding): an overlong line that arrives while the host has not yet taken the events
/// of a full request table is kept for the next call, which then processed its first
/// `max_line` bytes as a message. Here those bytes are a complete ping followed by
/// spaces, so the ping was answered with a result instead of the -32600 "message too
/// long" every overlong line gets.
#[test]
fn overlong_line_under_backpressure_is_still_rejected_as_too_long() {
    type Small = StaticStorage<LINE, 16384, 16384, 2, 2, 4096>;
    let mem: &'static mut Small = Box::leak(Box::new(Small::new()));
    let mut s = Session::new(&server_config(SERVER_CAPS), mem.as_storage(), 0).unwrap();
    let (out, _) = feed(&mut s, 0, format!("{INIT}\n{INITIALIZED}\n").as_bytes());
    assert_eq!(out.len(), 1);

    // Two requests fill the table; their events stay queued while the overlong line
    // overflows the buffer in the same call.
    let ping = r#"{"jsonrpc":"2.0","id":9,"method":"ping"}"#;
    let mut chunk = format!(
        "{}\n{}\n{ping}",
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#
    );
    chunk.push_str(&" ".repeat(LINE));
    let n = s.handle_bytes(0, chunk.as_bytes());
    assert_eq!(n, chunk.len());
    let mut events = take_events(&mut s);
    let mut out = take_output(&mut s);
    let (o, e) = feed(&mut s, 0, b"\n");
    out.extend(o);
    events.extend(e);
    let replies: Vec<_> = out.iter().map(|l| j(l)).collect();
    assert_eq!(replies.len(), 1, "{out:?}");
    assert_eq!(replies[0]["id"], 9);
    assert_eq!(replies[0]["error"]["code"], -32600, "{out:?} {events:?}");
    // The requests were not lost.
    assert_eq!(
        events.iter().filter(|e| e.starts_with("request")).count(),
        2,
        "{events:?}"
    );
    let _ = Json::EMPTY_OBJECT;
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

/// Found by `server_session` and `client_session` (whole vs chunked output differ): an
/// overlong line without a newline that overflows while the host has not yet taken the
/// events of a full request table is kept for the next call (`keep()`), although
/// `handle_bytes` reports its bytes as taken. When the next call was `handle_eof` (the
/// decoder is "discarding") or `close()`, the kept frame was dropped: the overlong
/// request never got its -32600 reply, while the same bytes fed in small pieces did.
/// `handle_eof` also did not count a line it processed in `stats().lines_in`.
#[test]
fn overlong_line_kept_under_backpressure_is_answered_at_eof_and_close() {
    for close in [false, true] {
        type Small = StaticStorage<LINE, 16384, 16384, 2, 2, 4096>;
        let mem: &'static mut Small = Box::leak(Box::new(Small::new()));
        let mut s = Session::new(&server_config(SERVER_CAPS), mem.as_storage(), 0).unwrap();
        let (out, _) = feed(&mut s, 0, format!("{INIT}\n{INITIALIZED}\n").as_bytes());
        assert_eq!(out.len(), 1);

        let mut chunk = format!(
            "{}\n{}\n{}",
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
            r#"{"jsonrpc":"2.0","id":9,"method":"ping","params":{"pad":""#
        );
        chunk.push_str(&"x".repeat(LINE)); // no newline: overflows, then the input ends
        let n = s.handle_bytes(0, chunk.as_bytes());
        assert_eq!(n, chunk.len());
        let mut events = take_events(&mut s);
        let mut out = take_output(&mut s);
        if close {
            s.close();
        } else {
            s.handle_eof(0);
        }
        out.extend(take_output(&mut s));
        events.extend(take_events(&mut s));
        let replies: Vec<_> = out.iter().map(|l| j(l)).collect();
        assert_eq!(
            replies.len(),
            1,
            "close: {close}: the overlong request got no reply: {out:?} {events:?}"
        );
        assert_eq!(replies[0]["id"], 9);
        assert_eq!(replies[0]["error"]["code"], -32600);
        assert_eq!(s.stats().lines_in, 5, "close: {close}");
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
