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
    type Small = StaticStorage<LINE, 16384, 16384, 2, 2, 2048>;
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
