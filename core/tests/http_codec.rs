//! The HTTP/1.1 connection codec (`picomcp::http::codec`): requests out of bytes fed in
//! any pieces, responses written, errors with their status codes, limits and timers.
#![cfg(feature = "http")]

use picomcp::http::codec::{
    ClientResponse, CodecLimits, RequestError, ResponseBody, ServerConnection, chunk_overhead,
    write_chunk, write_last_chunk, write_request,
};
use picomcp::http::{BodyLength, Header, Method, ResponseHead, sse};

/// An owned copy of a request.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Req {
    method: Method,
    target: String,
    headers: Vec<(String, Vec<u8>)>,
    body: Vec<u8>,
}

const EMPTY: Header<'static> = Header::EMPTY;

#[derive(Debug, PartialEq, Eq)]
struct Outcome {
    requests: Vec<Req>,
    error: Option<RequestError>,
    closed: bool,
}

/// Feeds `input` in pieces of `piece` bytes at time 0, serving every request with an
/// empty 200 response, and reports what came out.
fn run(input: &[u8], piece: usize, limits: CodecLimits, cap: usize) -> Outcome {
    run_pieces(input, &[piece], limits, cap)
}

/// Feeds `input` in pieces of the sizes in `pieces` (cycled; a 0 counts as 1).
fn run_pieces(input: &[u8], pieces: &[usize], limits: CodecLimits, cap: usize) -> Outcome {
    let mut sizes = pieces.iter().cycle();
    let mut buf = vec![0u8; cap];
    let mut conn = ServerConnection::new(&mut buf, limits, 0);
    let mut requests = Vec::new();
    let mut rest = input;
    let mut error = None;
    'outer: loop {
        loop {
            let mut hs = [EMPTY; 64];
            match conn.poll_request(0, &mut hs) {
                Ok(Some(r)) => {
                    requests.push(Req {
                        method: r.method,
                        target: r.target.to_string(),
                        headers: r
                            .headers
                            .iter()
                            .map(|h| (h.name.to_string(), h.value.to_vec()))
                            .collect(),
                        body: r.body.to_vec(),
                    });
                    let mut out = [0u8; 256];
                    let head = ResponseHead {
                        status: 204,
                        headers: &[],
                        body: BodyLength::None,
                    };
                    conn.write_head(&head, &mut out).unwrap();
                    conn.finish_request(0);
                }
                Ok(None) => break,
                Err(e) => {
                    error = Some(e);
                    break 'outer;
                }
            }
        }
        if conn.is_closed() {
            break;
        }
        if rest.is_empty() {
            conn.handle_eof(0);
            if conn
                .poll_request(0, &mut [EMPTY; 64])
                .ok()
                .flatten()
                .is_none()
            {
                break;
            }
            continue;
        }
        let n = (*sizes.next().unwrap()).max(1).min(rest.len());
        let taken = conn.handle_bytes(0, &rest[..n]);
        rest = &rest[taken..];
        if taken == 0 {
            // Full buffer: poll again (it reports the limit).
            let e = conn.poll_request(0, &mut [EMPTY; 64]).err();
            error = e;
            break;
        }
    }
    Outcome {
        requests,
        error,
        closed: conn.is_closed(),
    }
}

/// Whole, in halves, in 7-byte pieces and byte by byte: the same outcome.
fn invariant(input: &[u8], limits: CodecLimits, cap: usize) -> Outcome {
    let whole = run(input, input.len().max(1), limits, cap);
    for piece in [1, 2, 7, input.len().div_ceil(2).max(1)] {
        assert_eq!(run(input, piece, limits, cap), whole, "piece {piece}");
    }
    whole
}

fn serve(input: &[u8]) -> Outcome {
    invariant(input, CodecLimits::default(), 4096)
}

fn status_of(input: &[u8]) -> u16 {
    serve(input).error.map_or(0, |e| e.status())
}

/// Requests (good and bad) for the random-split property.
const SAMPLES: &[&[u8]] = &[
    b"POST /a HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\n\r\nAGET /b HTTP/1.1\r\nHost: h\r\n\r\n",
    b"POST /c HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n2;e=1\r\nCC\r\n0\r\nT: 1\r\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n",
    b"\r\nGET /a HTTP/1.0\nConnection: keep-alive\n\nGET /b HTTP/1.0\n\nGET /c HTTP/1.0\n\n",
    b"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nxy\r\n",
    b"GET / HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\nx",
    b"GET /aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
];

proptest::proptest! {
    #[test]
    fn random_splits_give_the_same_outcome(
        pieces in proptest::collection::vec(1usize..24, 1..32),
        which in 0usize..SAMPLES.len(),
        small in proptest::bool::ANY,
    ) {
        let (limits, cap) = if small {
            (CodecLimits { max_head_bytes: 64, max_body: 4, ..CodecLimits::default() }, 128)
        } else {
            (CodecLimits::default(), 4096)
        };
        let input = SAMPLES[which];
        let whole = run(input, input.len(), limits, cap);
        proptest::prop_assert_eq!(run_pieces(input, &pieces, limits, cap), whole);
    }
}

#[test]
fn pipelined_requests_larger_than_the_buffer_are_taken_as_room_frees() {
    let one = b"GET /x HTTP/1.1\r\nHost: h\r\n\r\n"; // 29 bytes
    let input = one.repeat(10);
    let o = invariant(&input, CodecLimits::default(), 64);
    assert_eq!((o.requests.len(), o.error), (10, None));
}

#[test]
fn commit_received_counts_at_most_the_room_offered() {
    let mut buf = [0u8; 40];
    let mut conn = ServerConnection::new(&mut buf, CodecLimits::default(), 0);
    let room = conn.receive_buffer();
    assert_eq!(room.len(), 40);
    room[..27].copy_from_slice(b"GET / HTTP/1.1\r\nHost: h\r\n\r\n");
    conn.commit_received(0, 1000);
    assert_eq!(conn.buffered(), 40);
    // The 13 bytes after the request (zeros) stay for the next poll.
    assert!(conn.poll_request(0, &mut [EMPTY; 8]).unwrap().is_some());
    conn.finish_request(0);
    assert_eq!(conn.buffered(), 13);
}

#[test]
fn absolute_form_target_becomes_origin_form() {
    let o = serve(b"GET http://example.com:8080/mcp?x=1 HTTP/1.1\r\nHost: example.com:8080\r\n\r\nGET HTTPS://h HTTP/1.1\r\nHost: h\r\n\r\n");
    assert_eq!(
        o.requests
            .iter()
            .map(|r| r.target.as_str())
            .collect::<Vec<_>>(),
        ["/mcp?x=1", "/"]
    );
}

#[test]
fn one_post_with_content_length() {
    let o = serve(b"POST /mcp?x=1 HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\nContent-Length: 7\r\n\r\n{\"a\":1}");
    assert_eq!(o.requests.len(), 1);
    let r = &o.requests[0];
    assert_eq!((r.method, r.target.as_str()), (Method::Post, "/mcp?x=1"));
    assert_eq!(r.body, b"{\"a\":1}");
    assert_eq!(r.headers.len(), 3);
    assert_eq!(
        r.headers[1],
        ("Content-Type".into(), b"application/json".to_vec())
    );
    assert_eq!(o.error, None);
}

#[test]
fn pipelined_requests_come_out_in_order() {
    let o = serve(
        b"POST /a HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\n\r\nAGET /b HTTP/1.1\r\nHost: h\r\n\r\n\
          POST /c HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nCC\r\n0\r\n\r\n\
          DELETE /d HTTP/1.1\r\nHost: h\r\n\r\n",
    );
    let t: Vec<_> = o
        .requests
        .iter()
        .map(|r| (r.method, r.target.as_str(), r.body.as_slice()))
        .collect();
    assert_eq!(
        t,
        [
            (Method::Post, "/a", &b"A"[..]),
            (Method::Get, "/b", &b""[..]),
            (Method::Post, "/c", &b"CC"[..]),
            (Method::Delete, "/d", &b""[..]),
        ]
    );
    assert_eq!(o.error, None);
}

#[test]
fn chunked_body_is_dechunked_with_extensions_and_trailers_skipped() {
    let o = serve(
        b"POST /mcp HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n\
          4;name=value\r\n{\"a\"\r\n3\r\n:1}\r\n0\r\nX-Trailer: 1\r\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n",
    );
    assert_eq!(o.requests.len(), 2);
    assert_eq!(o.requests[0].body, b"{\"a\":1}");
    assert_eq!(o.requests[1].target, "/");
}

#[test]
fn http11_keeps_alive_and_connection_close_closes() {
    let o = serve(b"GET / HTTP/1.1\r\nHost: h\r\n\r\n");
    assert_eq!(o.requests.len(), 1);
    // Closed only because the input ended (eof) between requests.
    let o = serve(b"GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\nGET /never HTTP/1.1\r\nHost: h\r\n\r\n");
    assert_eq!(o.requests.len(), 1);
    assert!(o.closed);
}

#[test]
fn http10_closes_unless_keep_alive() {
    let o = serve(b"GET /1 HTTP/1.0\r\n\r\nGET /2 HTTP/1.0\r\n\r\n");
    assert_eq!(o.requests.len(), 1);
    let o = serve(b"GET /1 HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET /2 HTTP/1.0\r\n\r\nGET /3 HTTP/1.0\r\n\r\n");
    assert_eq!(o.requests.len(), 2);
}

#[test]
fn connection_header_decides_the_response_head() {
    let mut buf = [0u8; 512];
    let mut out = [0u8; 256];
    let head = ResponseHead {
        status: 202,
        headers: &[],
        body: BodyLength::None,
    };
    for (req, expect) in [
        (
            &b"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n"[..],
            &b"HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n"[..],
        ),
        (
            b"GET / HTTP/1.1\r\nHost: h\r\nConnection: Close\r\n\r\n",
            b"HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
        ),
        (
            b"GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
            b"HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\nConnection: keep-alive\r\n\r\n",
        ),
        (
            b"GET / HTTP/1.0\r\n\r\n",
            b"HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
        ),
    ] {
        let mut conn = ServerConnection::new(&mut buf, CodecLimits::default(), 0);
        conn.handle_bytes(0, req);
        assert!(conn.poll_request(0, &mut [EMPTY; 8]).unwrap().is_some());
        let n = conn.write_head(&head, &mut out).unwrap();
        assert_eq!(
            std::str::from_utf8(&out[..n]).unwrap(),
            std::str::from_utf8(expect).unwrap()
        );
    }
}

#[test]
fn close_after_response_closes() {
    let mut buf = [0u8; 512];
    let mut conn = ServerConnection::new(&mut buf, CodecLimits::default(), 0);
    conn.handle_bytes(0, b"GET / HTTP/1.1\r\nHost: h\r\n\r\n");
    assert!(conn.poll_request(0, &mut [EMPTY; 8]).unwrap().is_some());
    conn.close_after_response();
    let mut out = [0u8; 128];
    let n = conn
        .write_head(
            &ResponseHead {
                status: 204,
                headers: &[],
                body: BodyLength::None,
            },
            &mut out,
        )
        .unwrap();
    assert_eq!(
        &out[..n],
        b"HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n"
    );
    conn.finish_request(1);
    assert!(conn.is_closed());
}

#[test]
fn every_error_status() {
    let cases: &[(&[u8], u16)] = &[
        (b"GET / HTTP/1.1\r\nHost: h\r\nBad Header: x\r\n\r\n", 400),
        (b"GET / HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\nx", 400),
        (b"GET / HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nxx", 400),
        (b"GET / HTTP/1.1\r\nHost: h\r\nContent-Length: 1, 1\r\n\r\nx", 400),
        (b"GET / HTTP/1.1\r\nHost: h\r\nContent-Length: +1\r\n\r\nx", 400),
        (b"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400),
        (b"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked, gzip\r\n\r\n", 400),
        (b"POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400),
        (b"GET / HTTP/1.1\r\n\r\n", 400),
        (b"GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400),
        (b"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\nZ\r\n", 400),
        (b"POST / HTTP/1.1\r\nHost: h\r\n\r\n", 411),
        (b"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 99999999999999999999999\r\n\r\n", 413),
        (b"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501),
        (b"GET / HTTP/2.0\r\nHost: h\r\n\r\n", 505),
        (b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 505),
    ];
    for (input, status) in cases {
        assert_eq!(
            status_of(input),
            *status,
            "{}",
            String::from_utf8_lossy(input)
        );
    }
}

#[test]
fn limits_give_413_414_431() {
    let small = CodecLimits {
        max_headers: 4,
        max_head_bytes: 128,
        max_target_bytes: 16,
        max_body: 8,
        ..CodecLimits::default()
    };
    let status = |input: &[u8]| invariant(input, small, 512).error.map(|e| e.status());
    assert_eq!(
        status(b"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 9\r\n\r\n123456789"),
        Some(413)
    );
    assert_eq!(
        status(b"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 8\r\n\r\n12345678"),
        None
    );
    assert_eq!(
        status(b"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n12345\r\n4\r\n6789\r\n0\r\n\r\n"),
        Some(413)
    );
    assert_eq!(
        status(b"GET /12345678901234567 HTTP/1.1\r\nHost: h\r\n\r\n"),
        Some(414)
    );
    let long_line = [b"GET /".as_slice(), &[b'a'; 200]].concat();
    assert_eq!(status(&long_line), Some(414));
    assert_eq!(
        status(b"GET / HTTP/1.1\r\nHost: h\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\n\r\n"),
        Some(431)
    );
    let big = [
        b"GET / HTTP/1.1\r\nHost: h\r\nA: ".as_slice(),
        &[b'a'; 200],
        b"\r\n\r\n",
    ]
    .concat();
    assert_eq!(status(&big), Some(431));
    // The buffer bounds the body too: 64 bytes hold no 40-byte head plus 30-byte body.
    assert_eq!(
        invariant(
            b"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 30\r\n\r\n",
            CodecLimits::default(),
            64
        )
        .error
        .map(|e| e.status()),
        Some(413)
    );
}

#[test]
fn header_array_bounds_the_count() {
    let mut buf = [0u8; 512];
    let mut conn = ServerConnection::new(&mut buf, CodecLimits::default(), 0);
    conn.handle_bytes(0, b"GET / HTTP/1.1\r\nHost: h\r\nA: 1\r\nB: 2\r\n\r\n");
    assert_eq!(
        conn.poll_request(0, &mut [EMPTY; 2]).err(),
        Some(RequestError::TooManyHeaders)
    );
}

#[test]
fn slow_loris_head_times_out_with_408() {
    let limits = CodecLimits::default();
    let mut buf = [0u8; 512];
    let mut conn = ServerConnection::new(&mut buf, limits, 0);
    assert_eq!(conn.poll_timeout(), Some(60_000)); // idle
    let head = b"GET / HTTP/1.1\r\nHost: h\r\n";
    // One byte every 400 ms, starting at t = 1000: the head timer runs from the first.
    let mut t = 1000;
    for &b in head.iter() {
        conn.handle_bytes(t, &[b]);
        assert_eq!(
            conn.poll_request(t, &mut [EMPTY; 8]).unwrap().map(|_| ()),
            None
        );
        assert_eq!(conn.poll_timeout(), Some(1000 + 10_000));
        t += 400;
    }
    conn.handle_timeout(10_999);
    assert!(!conn.is_closed());
    conn.handle_timeout(11_000);
    let e = conn.poll_request(11_000, &mut [EMPTY; 8]).unwrap_err();
    assert_eq!((e, e.status()), (RequestError::HeadTimeout, 408));
    assert!(conn.is_closed());
    let mut out = [0u8; 128];
    let n = e.write_response(&mut out).unwrap();
    assert_eq!(
        &out[..n],
        b"HTTP/1.1 408 Request Timeout\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 16\r\nConnection: close\r\n\r\nRequest Timeout\n"
    );
}

#[test]
fn slow_body_times_out_and_idle_closes_silently() {
    let mut buf = [0u8; 512];
    let mut conn = ServerConnection::new(&mut buf, CodecLimits::default(), 0);
    conn.handle_bytes(
        100,
        b"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nab",
    );
    assert!(conn.poll_request(100, &mut [EMPTY; 8]).unwrap().is_none());
    assert_eq!(conn.poll_timeout(), Some(100 + 30_000));
    conn.handle_timeout(30_100);
    assert_eq!(
        conn.poll_request(30_100, &mut [EMPTY; 8]).err(),
        Some(RequestError::BodyTimeout)
    );

    let mut buf = [0u8; 512];
    let mut conn = ServerConnection::new(&mut buf, CodecLimits::default(), 0);
    conn.handle_bytes(5, b"GET / HTTP/1.1\r\nHost: h\r\n\r\n");
    assert!(conn.poll_request(5, &mut [EMPTY; 8]).unwrap().is_some());
    assert_eq!(conn.poll_timeout(), None); // being served
    conn.finish_request(7);
    assert_eq!(conn.poll_timeout(), Some(60_007));
    conn.handle_timeout(60_007);
    assert!(conn.is_closed());
    assert_eq!(
        conn.poll_request(60_007, &mut [EMPTY; 8])
            .unwrap()
            .map(|_| ()),
        None
    );
}

#[test]
fn expect_100_continue() {
    let mut buf = [0u8; 512];
    let mut conn = ServerConnection::new(&mut buf, CodecLimits::default(), 0);
    conn.handle_bytes(
        0,
        b"POST / HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n",
    );
    assert!(conn.poll_request(0, &mut [EMPTY; 8]).unwrap().is_none());
    assert!(conn.wants_continue());
    let mut out = [0u8; 64];
    let n = conn.write_continue(50, &mut out).unwrap();
    assert_eq!(&out[..n], b"HTTP/1.1 100 Continue\r\n\r\n");
    assert!(!conn.wants_continue());
    assert_eq!(conn.poll_timeout(), Some(50 + 30_000));
    conn.handle_bytes(60, b"{}");
    assert_eq!(
        conn.poll_request(60, &mut [EMPTY; 8])
            .unwrap()
            .unwrap()
            .body,
        b"{}"
    );
}

#[test]
fn head_request_response_has_no_body() {
    let mut buf = [0u8; 512];
    let mut conn = ServerConnection::new(&mut buf, CodecLimits::default(), 0);
    conn.handle_bytes(0, b"HEAD / HTTP/1.1\r\nHost: h\r\n\r\n");
    assert_eq!(
        conn.poll_request(0, &mut [EMPTY; 8])
            .unwrap()
            .unwrap()
            .method,
        Method::Head
    );
    let mut out = [0u8; 128];
    let n = conn
        .write_head(
            &ResponseHead {
                status: 200,
                headers: &[],
                body: BodyLength::Fixed(42),
            },
            &mut out,
        )
        .unwrap();
    assert_eq!(&out[..n], b"HTTP/1.1 200 OK\r\nContent-Length: 42\r\n\r\n");
    assert!(!conn.body_allowed());
    assert!(!conn.is_chunked());
}

#[test]
fn response_head_leaves_out_framing_and_injection() {
    let mut buf = [0u8; 512];
    let mut conn = ServerConnection::new(&mut buf, CodecLimits::default(), 0);
    conn.handle_bytes(0, b"GET / HTTP/1.1\r\nHost: h\r\n\r\n");
    conn.poll_request(0, &mut [EMPTY; 8]).unwrap().unwrap();
    let hs = [
        Header {
            name: "Content-Length",
            value: b"7",
        },
        Header {
            name: "X-A",
            value: b"1\r\nInjected: yes",
        },
        Header {
            name: "Bad Name",
            value: b"x",
        },
        Header {
            name: "Mcp-Session-Id",
            value: b"abc",
        },
    ];
    let head = ResponseHead {
        status: 200,
        headers: &hs,
        body: BodyLength::Fixed(2),
    };
    let mut small = [0u8; 10];
    let need = conn.write_head(&head, &mut small).unwrap_err().required;
    let mut out = vec![0u8; need];
    assert_eq!(conn.write_head(&head, &mut out), Ok(need));
    assert_eq!(
        std::str::from_utf8(&out).unwrap(),
        "HTTP/1.1 200 OK\r\nX-A: 1\r\nMcp-Session-Id: abc\r\nContent-Length: 2\r\n\r\n"
    );
}

#[test]
fn http10_stream_is_not_chunked_and_closes() {
    let mut buf = [0u8; 512];
    let mut conn = ServerConnection::new(&mut buf, CodecLimits::default(), 0);
    conn.handle_bytes(0, b"GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
    conn.poll_request(0, &mut [EMPTY; 8]).unwrap().unwrap();
    let mut out = [0u8; 128];
    let n = conn
        .write_head(
            &ResponseHead {
                status: 200,
                headers: &[],
                body: BodyLength::Stream,
            },
            &mut out,
        )
        .unwrap();
    assert_eq!(&out[..n], b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n");
    assert!(!conn.is_chunked() && conn.body_allowed());
    conn.finish_request(0);
    assert!(conn.is_closed());
}

#[test]
fn leading_empty_lines_and_bare_lf_heads_are_accepted() {
    let o = serve(b"\r\n\r\nGET /a HTTP/1.1\r\nHost: h\r\n\r\nGET /b HTTP/1.1\nHost: h\n\n");
    assert_eq!(
        o.requests
            .iter()
            .map(|r| r.target.as_str())
            .collect::<Vec<_>>(),
        ["/a", "/b"]
    );
}

#[test]
fn eof_inside_a_request_closes_without_answer() {
    let o = serve(b"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\nabc");
    assert_eq!((o.requests.len(), o.error, o.closed), (0, None, true));
}

#[test]
fn request_round_trip_through_the_server() {
    let mut out = [0u8; 256];
    let hs = [
        Header {
            name: "Accept",
            value: b"application/json, text/event-stream",
        },
        Header {
            name: "Content-Length",
            value: b"999",
        },
    ];
    let body = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let n = write_request(
        Method::Post,
        "/mcp",
        "example.com:8080",
        &hs,
        body,
        &mut out,
    )
    .unwrap();
    let o = serve(&out[..n]);
    let r = &o.requests[0];
    assert_eq!(
        (r.method, r.target.as_str(), r.body.as_slice()),
        (Method::Post, "/mcp", &body[..])
    );
    assert_eq!(
        r.headers,
        [
            ("Host".to_string(), b"example.com:8080".to_vec()),
            (
                "Accept".into(),
                b"application/json, text/event-stream".to_vec()
            ),
            ("Content-Length".into(), b"40".to_vec()),
        ]
    );
    let n = write_request(Method::Get, "/mcp", "h", &[], b"", &mut out).unwrap();
    assert_eq!(&out[..n], b"GET /mcp HTTP/1.1\r\nHost: h\r\n\r\n");
    assert_eq!(
        write_request(Method::Get, "/mcp", "h", &[], b"", &mut out[..5])
            .unwrap_err()
            .required,
        n
    );
}

/// Reads a response fed in `piece`-byte pieces: (status, body).
fn client_read(wire: &[u8], method: Method, piece: usize) -> (u16, ResponseBody, Vec<u8>, bool) {
    let mut resp = ClientResponse::new(method, &CodecLimits::default());
    let mut have = 0;
    let (status, kind, head_len) = loop {
        have = (have + piece).min(wire.len());
        let mut hs = [EMPTY; 16];
        if let Some(h) = resp.parse_head(&wire[..have], &mut hs).unwrap() {
            break (h.status, h.body, h.head_len);
        }
        assert!(have < wire.len());
    };
    let mut body = Vec::new();
    let mut at = head_len;
    while at < wire.len() && !resp.is_done() {
        let end = (at + piece).min(wire.len());
        let p = resp.read_body(&wire[at..end]).unwrap();
        body.extend_from_slice(p.data);
        at += p.consumed;
    }
    if !resp.is_done() {
        resp.handle_eof().unwrap();
    }
    (status, kind, body, at == wire.len())
}

#[test]
fn response_round_trip_chunked_sse_to_client_and_decoder() {
    let mut buf = [0u8; 512];
    let mut conn = ServerConnection::new(&mut buf, CodecLimits::default(), 0);
    conn.handle_bytes(
        0,
        b"POST /mcp HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\n{}",
    );
    conn.poll_request(0, &mut [EMPTY; 8]).unwrap().unwrap();
    let ct = [Header {
        name: "Content-Type",
        value: b"text/event-stream",
    }];
    let mut wire = vec![0u8; 1024];
    let mut n = conn
        .write_head(
            &ResponseHead {
                status: 200,
                headers: &ct,
                body: BodyLength::Stream,
            },
            &mut wire,
        )
        .unwrap();
    let mut ev = [0u8; 128];
    let events: [(Option<&str>, Option<&str>, &[u8]); 3] = [
        (
            Some("s-1"),
            None,
            br#"{"jsonrpc":"2.0","method":"notifications/progress"}"#,
        ),
        (None, Some("message"), b"line1\nline2"),
        (
            Some("s-3"),
            None,
            br#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
        ),
    ];
    for (id, event, data) in events {
        let k = sse::write_event(&mut ev, id, event, data).unwrap();
        let w = write_chunk(&ev[..k], &mut wire[n..]).unwrap();
        assert_eq!(w, k + chunk_overhead(k));
        n += w;
    }
    n += write_last_chunk(&mut wire[n..]).unwrap();
    let wire = &wire[..n];
    let whole = client_read(wire, Method::Post, wire.len());
    assert_eq!(
        (whole.0, whole.1, whole.3),
        (200, ResponseBody::Chunked, true)
    );
    for piece in [1, 3, 16] {
        assert_eq!(client_read(wire, Method::Post, piece), whole);
    }
    // The decoded body, byte by byte through the SSE decoder.
    let body = whole.2;
    let mut store = [0u8; 256];
    let mut dec = sse::Decoder::new(&mut store, sse::DecoderLimits::default());
    let mut got = Vec::new();
    for b in body.chunks(1) {
        let mut rest = b;
        while !rest.is_empty() {
            let f = dec.feed(rest);
            rest = &rest[f.consumed..];
            if let Some(item) = f.item {
                let e = item.unwrap();
                got.push((
                    e.id.map(String::from),
                    e.event.map(String::from),
                    e.data.to_string(),
                ));
            }
        }
    }
    assert_eq!(
        got,
        [
            (
                Some("s-1".into()),
                None,
                r#"{"jsonrpc":"2.0","method":"notifications/progress"}"#.into()
            ),
            (
                Some("s-1".into()),
                Some("message".into()),
                "line1\nline2".into()
            ),
            (
                Some("s-3".into()),
                None,
                r#"{"jsonrpc":"2.0","id":1,"result":{}}"#.into()
            ),
        ]
    );
}

#[test]
fn client_reads_fixed_until_close_and_head_responses() {
    let wire =
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}EXTRA";
    let (s, k, body, _) = client_read(wire, Method::Post, 4);
    assert_eq!(
        (s, k, body.as_slice()),
        (200, ResponseBody::Length(2), &b"{}"[..])
    );
    let wire = b"HTTP/1.0 200 OK\r\n\r\nall of it";
    let (_, k, body, _) = client_read(wire, Method::Get, 3);
    assert_eq!(
        (k, body.as_slice()),
        (ResponseBody::UntilClose, &b"all of it"[..])
    );
    let wire = b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n";
    let (_, k, body, _) = client_read(wire, Method::Head, 3);
    assert_eq!((k, body.len()), (ResponseBody::None, 0));
    let wire = b"HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n";
    assert_eq!(client_read(wire, Method::Post, 1).0, 202);
}

#[test]
fn client_errors() {
    let l = CodecLimits::default();
    let mut r = ClientResponse::new(Method::Get, &l);
    assert!(
        r.parse_head(
            b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
            &mut [EMPTY; 8]
        )
        .is_err()
    );
    let mut r = ClientResponse::new(Method::Get, &l);
    assert!(r.parse_head(b"NOT HTTP\r\n\r\n", &mut [EMPTY; 8]).is_err());
    let mut r = ClientResponse::new(Method::Get, &l);
    let mut hs = [EMPTY; 8];
    r.parse_head(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nab", &mut hs)
        .unwrap()
        .unwrap();
    r.read_body(b"ab").unwrap();
    assert!(r.handle_eof().is_err());
    let mut r = ClientResponse::new(Method::Get, &l);
    r.parse_head(
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
        &mut [EMPTY; 8],
    )
    .unwrap()
    .unwrap();
    assert!(r.read_body(b"zz\r\n").is_err());
}

#[test]
fn interim_response_then_final() {
    let wire = b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx";
    let mut r = ClientResponse::new(Method::Post, &CodecLimits::default());
    let mut hs = [EMPTY; 8];
    let h = r.parse_head(wire, &mut hs).unwrap().unwrap();
    assert!(h.is_interim());
    let rest = &wire[h.head_len..];
    let mut hs = [EMPTY; 8];
    let h = r.parse_head(rest, &mut hs).unwrap().unwrap();
    assert_eq!(h.status, 200);
    assert_eq!(r.read_body(&rest[h.head_len..]).unwrap().data, b"x");
    assert!(r.is_done());
}

/// `core/tests/http_malformed.txt`: each case is `<status> <escaped request>`, with
/// `\r`, `\n`, `\t`, `\\` and `\xNN` escapes; the codec must answer that status whole
/// and byte by byte.
#[test]
fn malformed_corpus() {
    let text = include_str!("http_malformed.txt");
    let mut cases = 0;
    for line in text.lines() {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (status, input) = line.split_once(' ').unwrap();
        let input = unescape(input);
        assert_eq!(status_of(&input).to_string(), status, "{line}");
        cases += 1;
    }
    assert!(cases >= 20);
}

fn unescape(s: &str) -> Vec<u8> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 1 < b.len() {
            match b[i + 1] {
                b'r' => out.push(b'\r'),
                b'n' => out.push(b'\n'),
                b't' => out.push(b'\t'),
                b'\\' => out.push(b'\\'),
                b'x' => {
                    out.push(u8::from_str_radix(&s[i + 2..i + 4], 16).unwrap());
                    i += 2;
                }
                c => panic!("bad escape {c}"),
            }
            i += 2;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    out
}
