//! Chunking invariance at the session level: a server fed a stream in one piece, byte by
//! byte, or in random pieces sends the same bytes and reports the same events.

mod common;
use common::*;
use picomcp::json::Json;
use picomcp::session::{Event, Session};
use proptest::prelude::*;

const LINES: &[&str] = &[
    r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
    r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
    r#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"echo","arguments":{"text":"é\n"}}}"#,
    r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"a"}}"#,
    r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
    r#"{"jsonrpc":"2.0","id":3,"method":"nope"}"#,
    r#"{"jsonrpc":"2.0","id":4,"method":"ping",}"#,
    r#"not json at all"#,
    "",
    "   \t",
    r#"{"jsonrpc":"2.0","id":5,"result":{}}"#,
    r#"[{"jsonrpc":"2.0","id":6,"method":"ping"}]"#,
    r#"{"jsonrpc":"2.0","id":7,"method":"logging/setLevel","params":{"level":"info"}}"#,
    r#"{"jsonrpc":"2.0","id":8,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
];

/// Runs a server over `chunks` and returns the bytes it sent and the rendered events.
/// The host answers requests only after the end of the stream, so that the result does
/// not depend on when it ran relative to the input.
fn run(chunks: &[&[u8]]) -> (String, Vec<String>) {
    let mut s: Session<'static> = server();
    let mut out = String::new();
    let mut evs = Vec::new();
    let mut buf = vec![0u8; 65536];
    let mut owed = Vec::new();
    let mut drain =
        |s: &mut Session<'static>, out: &mut String, evs: &mut Vec<String>, owed: &mut Vec<_>| {
            while let Some(e) = s.poll_event() {
                evs.push(render(&e));
                if let Event::Request { id, .. } = e {
                    owed.push(id);
                }
            }
            while let Some(n) = s.poll_transmit(&mut buf).unwrap() {
                out.push_str(std::str::from_utf8(&buf[..n]).unwrap());
            }
        };
    for c in chunks {
        let mut rest = *c;
        while !rest.is_empty() {
            let n = s.handle_bytes(0, rest);
            rest = &rest[n..];
            drain(&mut s, &mut out, &mut evs, &mut owed);
        }
    }
    s.handle_eof(1);
    drain(&mut s, &mut out, &mut evs, &mut owed);
    for id in owed.clone() {
        let _ = s.respond(id, Json::EMPTY_OBJECT);
    }
    drain(&mut s, &mut out, &mut evs, &mut owed);
    (out, evs)
}

fn stream(picks: &[usize], crlf: bool) -> Vec<u8> {
    let mut v = Vec::new();
    for &i in picks {
        v.extend_from_slice(LINES[i % LINES.len()].as_bytes());
        v.extend_from_slice(if crlf { b"\r\n" } else { b"\n" });
    }
    v
}

proptest! {
    #[test]
    fn whole_bytewise_and_random_splits_agree(
        picks in proptest::collection::vec(0usize..LINES.len(), 1..24),
        crlf in any::<bool>(),
        cuts in proptest::collection::vec(any::<usize>(), 0..16),
    ) {
        let data = stream(&picks, crlf);
        let whole = run(&[&data]);
        let bytes: Vec<&[u8]> = data.chunks(1).collect();
        prop_assert_eq!(&run(&bytes), &whole);
        let mut points: Vec<usize> = cuts.iter().map(|c| c % (data.len() + 1)).collect();
        points.sort_unstable();
        points.dedup();
        let mut pieces = Vec::new();
        let mut last = 0;
        for p in points {
            pieces.push(&data[last..p]);
            last = p;
        }
        pieces.push(&data[last..]);
        prop_assert_eq!(&run(&pieces), &whole);
    }
}
