//! `http_codec`: the HTTP/1.1 codec (`picomcp::http::codec`) and the SSE decoder on any
//! bytes, fed whole and split at points drawn from the input.
//!
//! Layout: `[flags] [split seed] stream`. Bits 0-1 of `flags` pick the server's limits
//! and buffer (default limits and 4096 bytes; small limits and 256; default limits and
//! 96 bytes; small limits and 4096), bit 2 whether requests are answered with a stream
//! (chunked) rather than a fixed body, bit 3 whether the header array is short (4).
//!
//! Invariants:
//! - nothing panics: not the server, the client reader, nor the SSE decoder;
//! - the server gives the same requests (method, target, headers, body), the same error
//!   and the same closed state whether the stream comes whole or in random pieces;
//! - a request's body is never longer than `max_body`, its head never longer than
//!   `max_head_bytes`, and an error's status is one of 400, 408, 411, 413, 414, 431,
//!   501, 505; every response head and error response written parses as a response;
//! - the client reader (the stream read as a response) and the SSE decoder (the stream
//!   read as an event stream) give the same results whole and split.

use picomcp::http::codec::{ClientResponse, CodecLimits, ServerConnection, write_chunk};
use picomcp::http::sse::{Decoder, DecoderLimits};
use picomcp::http::{BodyLength, Header, Method, ResponseHead};

use crate::Rng;

#[derive(Debug, PartialEq, Eq)]
struct Served {
    requests: Vec<(Method, String, Vec<(String, Vec<u8>)>, Vec<u8>)>,
    error: Option<u16>,
    closed: bool,
}

fn limits(flags: u8) -> (CodecLimits, usize) {
    let small = CodecLimits {
        max_headers: 6,
        max_head_bytes: 120,
        max_target_bytes: 24,
        max_body: 40,
        max_chunk_ext: 8,
        max_trailer_bytes: 16,
        length_required: false,
        ..CodecLimits::default()
    };
    match flags & 3 {
        0 => (CodecLimits::default(), 4096),
        1 => (small, 256),
        2 => (CodecLimits::default(), 96),
        _ => (small, 4096),
    }
}

/// A response head parses as a response (httparse).
fn check_response(bytes: &[u8]) {
    let mut hs = [httparse_free_header(); 32];
    let mut r = ClientResponse::new(Method::Get, &CodecLimits::default());
    match r.parse_head(bytes, &mut hs) {
        Ok(Some(h)) => assert!(h.head_len <= bytes.len()),
        other => panic!(
            "written head does not parse: {other:?} {:?}",
            String::from_utf8_lossy(bytes)
        ),
    }
}

fn httparse_free_header() -> Header<'static> {
    Header::EMPTY
}

fn serve(flags: u8, stream: &[u8], splits: &[usize]) -> Served {
    let (lim, cap) = limits(flags);
    let mut buf = vec![0u8; cap];
    let mut conn = ServerConnection::new(&mut buf, lim, 0);
    let mut out = [0u8; 1024];
    let mut requests = Vec::new();
    let mut error = None;
    let mut at = 0;
    let mut cuts = splits.iter();
    let now = 0u64;
    loop {
        loop {
            let mut hs = [Header::EMPTY; 64];
            let r = if flags & 8 != 0 {
                let mut few = [Header::EMPTY; 4];
                conn.poll_request(now, &mut few).map(|o| o.map(|r| own(&r)))
            } else {
                conn.poll_request(now, &mut hs).map(|o| o.map(|r| own(&r)))
            };
            match r {
                Ok(Some(req)) => {
                    assert!(req.3.len() <= lim.max_body);
                    requests.push(req);
                    let body = if flags & 4 != 0 {
                        BodyLength::Stream
                    } else {
                        BodyLength::Fixed(2)
                    };
                    let hdr = [Header {
                        name: "Content-Type",
                        value: b"application/json",
                    }];
                    let head = ResponseHead {
                        status: 200,
                        headers: &hdr,
                        body,
                    };
                    let n = conn
                        .write_head(&head, &mut out)
                        .expect("1 KiB holds a head");
                    check_response(&out[..n]);
                    if conn.is_chunked() {
                        write_chunk(b"{}", &mut out).unwrap();
                    }
                    conn.finish_request(now);
                }
                Ok(None) => break,
                Err(e) => {
                    assert!([400, 408, 411, 413, 414, 431, 501, 505].contains(&e.status()));
                    let n = e.write_response(&mut out).unwrap();
                    check_response(&out[..n]);
                    error = Some(e.status());
                    break;
                }
            }
        }
        if error.is_some() || conn.is_closed() {
            break;
        }
        if at == stream.len() {
            conn.handle_eof(now);
            if matches!(conn.poll_request(now, &mut [Header::EMPTY; 64]), Ok(None)) {
                break;
            }
            continue;
        }
        let end = cuts
            .next()
            .map_or(stream.len(), |&c| c.clamp(at + 1, stream.len()));
        let taken = conn.handle_bytes(now, &stream[at..end]);
        at += taken;
        if taken == 0 {
            // A full buffer must be reported by the next poll.
            let mut hs = [Header::EMPTY; 64];
            let r = conn.poll_request(now, &mut hs).map(|o| o.is_some());
            assert!(r.is_err(), "full buffer without an error: {r:?}");
            error = r.err().map(|e| e.status());
            break;
        }
    }
    Served {
        requests,
        error,
        closed: conn.is_closed(),
    }
}

fn own(r: &picomcp::http::Request<'_>) -> (Method, String, Vec<(String, Vec<u8>)>, Vec<u8>) {
    (
        r.method,
        r.target.to_string(),
        r.headers
            .iter()
            .map(|h| (h.name.to_string(), h.value.to_vec()))
            .collect(),
        r.body.to_vec(),
    )
}

/// The stream as a response: (head status or error, body bytes, error).
fn client(stream: &[u8], splits: &[usize]) -> (Option<u16>, Vec<u8>, bool) {
    let mut r = ClientResponse::new(Method::Post, &CodecLimits::default());
    let mut have = 0;
    let mut cuts = splits.iter();
    let (status, mut at) = loop {
        have = cuts
            .next()
            .map_or(stream.len(), |&c| c.clamp(have + 1, stream.len()))
            .max(have);
        let mut hs = [Header::EMPTY; 16];
        match r.parse_head(&stream[..have], &mut hs) {
            Ok(Some(h)) if h.is_interim() && h.status != 101 => {
                return (Some(h.status), Vec::new(), false);
            }
            Ok(Some(h)) => break (h.status, h.head_len),
            Ok(None) if have < stream.len() => {}
            _ => return (None, Vec::new(), true),
        }
    };
    let mut body = Vec::new();
    while at < stream.len() && !r.is_done() {
        let end = cuts
            .next()
            .map_or(stream.len(), |&c| c.clamp(at + 1, stream.len()));
        match r.read_body(&stream[at..end]) {
            Ok(p) => {
                body.extend_from_slice(p.data);
                at += p.consumed;
                if p.consumed == 0 && !r.is_done() && end == stream.len() {
                    break;
                }
            }
            Err(_) => return (Some(status), body, true),
        }
    }
    (Some(status), body, false)
}

fn sse(
    stream: &[u8],
    splits: &[usize],
    cap: usize,
) -> Vec<Result<(Option<String>, Option<String>, String, Option<u32>), String>> {
    let mut buf = vec![0u8; cap];
    let mut dec = Decoder::new(
        &mut buf,
        DecoderLimits {
            max_id: 16,
            max_event_type: 8,
        },
    );
    let mut out = Vec::new();
    let mut at = 0;
    let mut cuts = splits.iter();
    while at < stream.len() {
        let end = cuts
            .next()
            .map_or(stream.len(), |&c| c.clamp(at + 1, stream.len()));
        let mut piece = &stream[at..end];
        while !piece.is_empty() {
            let f = dec.feed(piece);
            assert!(f.consumed > 0 && f.consumed <= piece.len());
            piece = &piece[f.consumed..];
            if let Some(item) = f.item {
                out.push(
                    item.map(|e| {
                        (
                            e.id.map(String::from),
                            e.event.map(String::from),
                            e.data.to_string(),
                            e.retry,
                        )
                    })
                    .map_err(|e| e.to_string()),
                );
            }
        }
        at = end;
    }
    out
}

pub fn run(data: &[u8]) {
    if data.len() < 2 {
        return;
    }
    let (flags, seed, stream) = (data[0], data[1], &data[2..]);
    let mut rng = Rng::new(u64::from(seed) + 1);
    let mut splits = Vec::new();
    let mut at = 0;
    while at < stream.len() {
        at += rng.size(16);
        splits.push(at);
    }
    let bytes: Vec<usize> = (1..=stream.len()).collect();
    let whole = serve(flags, stream, &[]);
    assert_eq!(serve(flags, stream, &splits), whole, "split");
    if stream.len() <= 512 {
        assert_eq!(serve(flags, stream, &bytes), whole, "byte by byte");
    }
    assert_eq!(client(stream, &splits), client(stream, &[]), "client split");
    let cap = if flags & 16 != 0 { 40 } else { 512 };
    assert_eq!(
        sse(stream, &splits, cap),
        sse(stream, &[], cap),
        "sse split"
    );
}
