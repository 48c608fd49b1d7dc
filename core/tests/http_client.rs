//! `picomcp::http::client`: the client side's Streamable HTTP rules, on byte
//! transcripts. One behaviour per test.
#![cfg(feature = "http")]

use picomcp::http::Header;
use picomcp::http::Method;
use picomcp::http::client::{
    CaptureError, ClientConfig, Exchange, ExchangeKind, HttpClient, MAX_EXTRA_HEADERS,
    MAX_REQUEST_ID, Next, ResponseKind, WriteError, write_error_answer,
};
use picomcp::http::codec::{ClientResponse, CodecLimits};

const INIT: &[u8] = br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
const INIT_ANSWER: &[u8] =
    br#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{}}}"#;
const PING: &[u8] = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
const MODERN_CALL: &[u8] = br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"Z\u00fcrich","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;

fn client<'c>(sid: &'c mut [u8], ver: &'c mut [u8]) -> HttpClient<'c> {
    HttpClient::new(ClientConfig::new("/mcp", "h:1"), sid, ver)
}

/// Parses a response head and hands it to the client.
fn head(
    client: &mut HttpClient<'_>,
    ex: &mut Exchange,
    wire: &[u8],
) -> Result<ResponseKind, CaptureError> {
    let mut resp = ClientResponse::new(Method::Post, &CodecLimits::default());
    let mut fields = [Header::EMPTY; 16];
    let h = resp.parse_head(wire, &mut fields).unwrap().unwrap();
    client.handle_response_head(ex, &h)
}

fn post(client: &HttpClient<'_>, message: &[u8]) -> (Exchange, String) {
    let mut out = [0u8; 2048];
    let s = client.write_post(message, &[], &mut out).unwrap();
    (
        s.exchange,
        String::from_utf8(out[..s.len].to_vec()).unwrap(),
    )
}

/// A legacy client after a successful `initialize` (session `s1`, version 2025-06-18).
fn initialized<'c>(sid: &'c mut [u8], ver: &'c mut [u8]) -> HttpClient<'c> {
    let mut c = client(sid, ver);
    let (mut ex, _) = post(&c, INIT);
    let kind = head(
        &mut c,
        &mut ex,
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nMcp-Session-Id: s1\r\nContent-Length: 10\r\n\r\n",
    );
    assert_eq!(kind, Ok(ResponseKind::Json));
    assert_eq!(c.handle_message(&mut ex, INIT_ANSWER), Ok(true));
    assert_eq!(c.handle_end(&mut ex, None, None), Next::Done);
    c
}

const SSE_HEAD: &[u8] =
    b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n";

#[test]
fn legacy_initialize_post_bytes() {
    let (mut sid, mut ver) = ([0u8; 64], [0u8; 16]);
    let c = client(&mut sid, &mut ver);
    let (ex, text) = post(&c, INIT);
    let want = format!(
        "POST /mcp HTTP/1.1\r\nHost: h:1\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\r\n{}",
        INIT.len(),
        std::str::from_utf8(INIT).unwrap()
    );
    assert_eq!(text, want);
    assert_eq!(ex.request_id(), Some("0"));
    assert!(ex.expects_answer() && !ex.is_modern());
}

#[test]
fn modern_post_bytes() {
    let (mut sid, mut ver) = ([0u8; 64], [0u8; 16]);
    let c = client(&mut sid, &mut ver);
    let (ex, text) = post(&c, MODERN_CALL);
    let want = format!(
        "POST /mcp HTTP/1.1\r\nHost: h:1\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: tools/call\r\nMcp-Name: =?base64?WsO8cmljaA==?=\r\n\
         Content-Length: {}\r\n\r\n{}",
        MODERN_CALL.len(),
        std::str::from_utf8(MODERN_CALL).unwrap()
    );
    assert_eq!(text, want);
    assert!(ex.is_modern());
}

#[test]
fn extra_headers_come_first() {
    let (mut sid, mut ver) = ([0u8; 64], [0u8; 16]);
    let c = client(&mut sid, &mut ver);
    let mut out = [0u8; 512];
    let auth = [Header {
        name: "Authorization",
        value: b"Bearer t",
    }];
    let s = c.write_post(PING, &auth, &mut out).unwrap();
    let text = std::str::from_utf8(&out[..s.len]).unwrap();
    assert!(text.starts_with("POST /mcp HTTP/1.1\r\nHost: h:1\r\nAuthorization: Bearer t\r\n"));
    let mut ex = s.exchange;
    let n = c.write_get(&mut ex, None, &auth, &mut out).unwrap();
    let text = std::str::from_utf8(&out[..n]).unwrap();
    assert!(text.starts_with(
        "GET /mcp HTTP/1.1\r\nHost: h:1\r\nAuthorization: Bearer t\r\nAccept: text/event-stream\r\n"
    ));
}

#[test]
fn session_id_and_version_are_captured_and_sent() {
    let (mut sid, mut ver) = ([0u8; 64], [0u8; 16]);
    let c = initialized(&mut sid, &mut ver);
    assert_eq!(c.session_id(), Some("s1"));
    assert_eq!(c.protocol_version(), Some("2025-06-18"));
    let (_, text) = post(&c, PING);
    assert!(text.contains(
        "\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-06-18\r\n\
         Mcp-Session-Id: s1\r\nContent-Length: "
    ));
}

#[test]
fn modern_post_never_carries_the_session_id() {
    let (mut sid, mut ver) = ([0u8; 64], [0u8; 16]);
    let c = initialized(&mut sid, &mut ver);
    let (_, text) = post(&c, MODERN_CALL);
    assert!(!text.contains("Mcp-Session-Id"));
    assert!(text.contains("MCP-Protocol-Version: 2026-07-28\r\n"));
    assert!(!text.contains("2025-06-18"));
}

#[test]
fn first_session_id_is_kept() {
    let (mut sid, mut ver) = ([0u8; 64], [0u8; 16]);
    let mut c = initialized(&mut sid, &mut ver);
    let (mut ex, _) = post(&c, PING);
    let wire = b"HTTP/1.1 200 OK\r\nMcp-Session-Id: other\r\nContent-Length: 2\r\n\r\n";
    assert_eq!(head(&mut c, &mut ex, wire), Ok(ResponseKind::Json));
    assert_eq!(c.session_id(), Some("s1"));
}

#[test]
fn version_is_taken_from_an_sse_initialize_answer_only() {
    let (mut sid, mut ver) = ([0u8; 64], [0u8; 16]);
    let mut c = client(&mut sid, &mut ver);
    // The answer to another request does not set it.
    let (mut ex, _) = post(&c, PING);
    head(&mut c, &mut ex, SSE_HEAD).unwrap();
    let ping_answer = br#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"1999-01-01"}}"#;
    assert_eq!(c.handle_message(&mut ex, ping_answer), Ok(true));
    assert_eq!(c.protocol_version(), None);
    // The initialize answer on an SSE stream does.
    let (mut ex, _) = post(&c, INIT);
    assert_eq!(
        head(&mut c, &mut ex, SSE_HEAD),
        Ok(ResponseKind::EventStream)
    );
    let progress = br#"{"jsonrpc":"2.0","method":"notifications/message","params":{}}"#;
    assert_eq!(c.handle_message(&mut ex, progress), Ok(true));
    assert!(!ex.is_answered());
    assert_eq!(c.handle_message(&mut ex, INIT_ANSWER), Ok(true));
    assert!(ex.is_answered());
    assert_eq!(c.protocol_version(), Some("2025-06-18"));
}

#[test]
fn http_error_without_jsonrpc_answer_ends_the_request() {
    let (mut sid, mut ver) = ([0u8; 64], [0u8; 16]);
    let mut c = client(&mut sid, &mut ver);
    let (mut ex, _) = post(&c, MODERN_CALL);
    let wire = b"HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\n\r\n";
    assert_eq!(
        head(&mut c, &mut ex, wire),
        Ok(ResponseKind::Error { status: 404 })
    );
    assert_eq!(c.handle_message(&mut ex, b"Not Found"), Ok(false));
    assert_eq!(
        c.handle_end(&mut ex, None, None),
        Next::AnswerWithError { status: 404 }
    );
    let mut out = [0u8; 128];
    let n = ex.write_error_answer(404, &mut out).unwrap();
    assert_eq!(
        &out[..n],
        br#"{"jsonrpc":"2.0","id":3,"error":{"code":-32000,"message":"HTTP 404 Not Found"}}"#
    );
}

#[test]
fn http_error_with_the_jsonrpc_answer_is_delivered() {
    let (mut sid, mut ver) = ([0u8; 64], [0u8; 16]);
    let mut c = client(&mut sid, &mut ver);
    let (mut ex, _) = post(&c, MODERN_CALL);
    let wire =
        b"HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: 9\r\n\r\n";
    head(&mut c, &mut ex, wire).unwrap();
    // An id-less error body is not the answer; the request's own is.
    let idless = br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"x"}}"#;
    assert_eq!(c.handle_message(&mut ex, idless), Ok(false));
    let answer = br#"{"jsonrpc":"2.0","id":3,"error":{"code":-32022,"message":"x"}}"#;
    assert_eq!(c.handle_message(&mut ex, answer), Ok(true));
    assert_eq!(
        c.handle_end(&mut ex, None, None),
        Next::Refused { status: 400 }
    );
}

#[test]
fn notification_accepted_and_refused() {
    let (mut sid, mut ver) = ([0u8; 64], [0u8; 16]);
    let mut c = client(&mut sid, &mut ver);
    let note = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    let (mut ex, _) = post(&c, note);
    assert!(!ex.expects_answer());
    let wire = b"HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n";
    assert_eq!(head(&mut c, &mut ex, wire), Ok(ResponseKind::Accepted));
    assert_eq!(c.handle_end(&mut ex, None, None), Next::Done);
    let (mut ex, _) = post(&c, note);
    head(&mut c, &mut ex, b"HTTP/1.1 400 Bad Request\r\n\r\n").unwrap();
    assert_eq!(
        c.handle_end(&mut ex, None, None),
        Next::Refused { status: 400 }
    );
}

#[test]
fn interim_heads_are_skipped() {
    let (mut sid, mut ver) = ([0u8; 64], [0u8; 16]);
    let mut c = client(&mut sid, &mut ver);
    let (mut ex, _) = post(&c, PING);
    assert_eq!(
        head(&mut c, &mut ex, b"HTTP/1.1 100 Continue\r\n\r\n"),
        Ok(ResponseKind::Interim)
    );
    assert_eq!(ex.status(), None);
}

#[test]
fn legacy_stream_cut_before_its_answer_is_resumed() {
    let (mut sid, mut ver) = ([0u8; 64], [0u8; 16]);
    let mut c = initialized(&mut sid, &mut ver);
    let (mut ex, _) = post(&c, PING);
    head(&mut c, &mut ex, SSE_HEAD).unwrap();
    assert_eq!(
        c.handle_end(&mut ex, Some("ev-1"), Some(250)),
        Next::Reconnect { after_ms: 250 }
    );
    let mut out = [0u8; 512];
    let n = c.write_get(&mut ex, Some("ev-1"), &[], &mut out).unwrap();
    assert_eq!(
        std::str::from_utf8(&out[..n]).unwrap(),
        "GET /mcp HTTP/1.1\r\nHost: h:1\r\nAccept: text/event-stream\r\nMcp-Session-Id: s1\r\n\
         MCP-Protocol-Version: 2025-06-18\r\nLast-Event-ID: ev-1\r\n\r\n"
    );
    assert_eq!(ex.kind(), ExchangeKind::Resume);
    // The resumed stream carries the answer: done.
    head(&mut c, &mut ex, SSE_HEAD).unwrap();
    assert_eq!(
        c.handle_message(&mut ex, br#"{"jsonrpc":"2.0","id":1,"result":{}}"#),
        Ok(true)
    );
    assert_eq!(c.handle_end(&mut ex, Some("ev-2"), None), Next::Done);
}

#[test]
fn resumption_is_bounded_and_keeps_the_retry_hint() {
    let (mut sid, mut ver) = ([0u8; 64], [0u8; 16]);
    let mut c = HttpClient::new(
        ClientConfig {
            max_resumes: 2,
            ..ClientConfig::new("/mcp", "h:1")
        },
        &mut sid[..],
        &mut ver[..],
    );
    let (mut ex, _) = post(&c, PING);
    head(&mut c, &mut ex, SSE_HEAD).unwrap();
    assert_eq!(
        c.handle_end(&mut ex, Some("a"), Some(70)),
        Next::Reconnect { after_ms: 70 }
    );
    let mut out = [0u8; 512];
    c.write_get(&mut ex, Some("a"), &[], &mut out).unwrap();
    head(&mut c, &mut ex, SSE_HEAD).unwrap();
    assert_eq!(
        c.handle_end(&mut ex, Some("a"), None),
        Next::Reconnect { after_ms: 70 }
    );
    c.write_get(&mut ex, Some("a"), &[], &mut out).unwrap();
    head(&mut c, &mut ex, SSE_HEAD).unwrap();
    assert_eq!(c.handle_end(&mut ex, Some("a"), None), Next::Lost);
}

#[test]
fn stream_without_event_id_is_lost() {
    let (mut sid, mut ver) = ([0u8; 64], [0u8; 16]);
    let mut c = client(&mut sid, &mut ver);
    let (mut ex, _) = post(&c, PING);
    head(&mut c, &mut ex, SSE_HEAD).unwrap();
    assert_eq!(c.handle_end(&mut ex, None, Some(10)), Next::Lost);
}

#[test]
fn modern_stream_is_never_resumed() {
    let (mut sid, mut ver) = ([0u8; 64], [0u8; 16]);
    let mut c = client(&mut sid, &mut ver);
    let (mut ex, _) = post(&c, MODERN_CALL);
    head(&mut c, &mut ex, SSE_HEAD).unwrap();
    assert_eq!(c.handle_end(&mut ex, Some("ev-9"), Some(10)), Next::Lost);
}

#[test]
fn refused_resumption_is_reported() {
    let (mut sid, mut ver) = ([0u8; 64], [0u8; 16]);
    let mut c = client(&mut sid, &mut ver);
    let (mut ex, _) = post(&c, PING);
    head(&mut c, &mut ex, SSE_HEAD).unwrap();
    c.handle_end(&mut ex, Some("a"), None);
    let mut out = [0u8; 512];
    c.write_get(&mut ex, Some("a"), &[], &mut out).unwrap();
    head(&mut c, &mut ex, b"HTTP/1.1 404 Not Found\r\n\r\n").unwrap();
    assert_eq!(
        c.handle_end(&mut ex, Some("a"), None),
        Next::Refused { status: 404 }
    );
}

#[test]
fn server_stream_is_due_once_after_initialize() {
    let (mut sid, mut ver) = ([0u8; 64], [0u8; 16]);
    let mut c = client(&mut sid, &mut ver);
    assert!(c.poll_server_stream().is_none());
    let (mut ex, _) = post(&c, INIT);
    head(
        &mut c,
        &mut ex,
        b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n",
    )
    .unwrap();
    c.handle_message(&mut ex, INIT_ANSWER).unwrap();
    assert!(c.poll_server_stream().is_none(), "only once the POST ended");
    c.handle_end(&mut ex, None, None);
    let mut gx = c.poll_server_stream().unwrap();
    assert_eq!(gx.kind(), ExchangeKind::ServerStream);
    assert!(c.poll_server_stream().is_none());
    let mut out = [0u8; 512];
    let n = c.write_get(&mut gx, None, &[], &mut out).unwrap();
    assert_eq!(
        std::str::from_utf8(&out[..n]).unwrap(),
        "GET /mcp HTTP/1.1\r\nHost: h:1\r\nAccept: text/event-stream\r\n\
         MCP-Protocol-Version: 2025-06-18\r\n\r\n"
    );
    // Ended by the server: reopen after the default wait.
    head(&mut c, &mut gx, SSE_HEAD).unwrap();
    assert_eq!(
        c.handle_end(&mut gx, Some("e"), None),
        Next::Reconnect { after_ms: 500 }
    );
    assert_eq!(gx.kind(), ExchangeKind::ServerStream);
}

#[test]
fn server_stream_405_means_none() {
    let (mut sid, mut ver) = ([0u8; 64], [0u8; 16]);
    let mut c = initialized(&mut sid, &mut ver);
    let mut gx = c.poll_server_stream().unwrap();
    let mut out = [0u8; 512];
    c.write_get(&mut gx, None, &[], &mut out).unwrap();
    head(&mut c, &mut gx, b"HTTP/1.1 405 Method Not Allowed\r\n\r\n").unwrap();
    assert_eq!(c.handle_end(&mut gx, None, None), Next::Done);
    assert!(c.has_no_server_stream());
}

#[test]
fn no_server_stream_after_a_failed_initialize() {
    let (mut sid, mut ver) = ([0u8; 64], [0u8; 16]);
    let mut c = client(&mut sid, &mut ver);
    let (mut ex, _) = post(&c, INIT);
    head(
        &mut c,
        &mut ex,
        b"HTTP/1.1 500 Internal Server Error\r\n\r\n",
    )
    .unwrap();
    assert_eq!(
        c.handle_end(&mut ex, None, None),
        Next::AnswerWithError { status: 500 }
    );
    assert!(c.poll_server_stream().is_none());
}

#[test]
fn delete_only_with_a_session_id() {
    let (mut sid, mut ver) = ([0u8; 64], [0u8; 16]);
    let mut out = [0u8; 512];
    {
        let c = client(&mut sid, &mut ver);
        assert!(c.write_delete(&[], &mut out).unwrap().is_none());
    }
    let mut c = initialized(&mut sid, &mut ver);
    let s = c.write_delete(&[], &mut out).unwrap().unwrap();
    assert_eq!(
        std::str::from_utf8(&out[..s.len]).unwrap(),
        "DELETE /mcp HTTP/1.1\r\nHost: h:1\r\nMcp-Session-Id: s1\r\n\
         MCP-Protocol-Version: 2025-06-18\r\n\r\n"
    );
    let mut ex = s.exchange;
    head(&mut c, &mut ex, b"HTTP/1.1 405 Method Not Allowed\r\n\r\n").unwrap();
    assert_eq!(c.handle_end(&mut ex, None, None), Next::Done);
    let mut ex = c.write_delete(&[], &mut out).unwrap().unwrap().exchange;
    head(
        &mut c,
        &mut ex,
        b"HTTP/1.1 500 Internal Server Error\r\n\r\n",
    )
    .unwrap();
    assert_eq!(
        c.handle_end(&mut ex, None, None),
        Next::Refused { status: 500 }
    );
}

#[test]
fn error_answer_for_a_string_id() {
    let mut out = [0u8; 128];
    let n = write_error_answer(r#""req-1""#, 405, &mut out).unwrap();
    assert_eq!(
        &out[..n],
        br#"{"jsonrpc":"2.0","id":"req-1","error":{"code":-32000,"message":"HTTP 405 Method Not Allowed"}}"#
    );
}

#[test]
fn session_id_over_its_buffer_is_an_error() {
    let (mut sid, mut ver) = ([0u8; 4], [0u8; 16]);
    let mut c = client(&mut sid, &mut ver);
    let (mut ex, _) = post(&c, INIT);
    let wire = b"HTTP/1.1 200 OK\r\nMcp-Session-Id: 123456\r\n\r\n";
    assert_eq!(
        head(&mut c, &mut ex, wire),
        Err(CaptureError::SessionIdTooLong { required: 6 })
    );
    assert_eq!(c.session_id(), None);
}

#[test]
fn session_id_must_be_visible_ascii() {
    let (mut sid, mut ver) = ([0u8; 64], [0u8; 16]);
    let mut c = client(&mut sid, &mut ver);
    let (mut ex, _) = post(&c, INIT);
    let wire = b"HTTP/1.1 200 OK\r\nMcp-Session-Id: a b\r\n\r\n";
    assert_eq!(
        head(&mut c, &mut ex, wire),
        Err(CaptureError::InvalidSessionId)
    );
}

#[test]
fn version_over_its_buffer_is_an_error() {
    let (mut sid, mut ver) = ([0u8; 64], [0u8; 4]);
    let mut c = client(&mut sid, &mut ver);
    let (mut ex, _) = post(&c, INIT);
    head(&mut c, &mut ex, SSE_HEAD).unwrap();
    assert_eq!(
        c.handle_message(&mut ex, INIT_ANSWER),
        Err(CaptureError::VersionTooLong { required: 10 })
    );
    assert!(ex.is_answered());
    assert_eq!(c.protocol_version(), None);
}

#[test]
fn request_id_over_the_limit_is_an_error() {
    let (mut sid, mut ver) = ([0u8; 64], [0u8; 16]);
    let c = client(&mut sid, &mut ver);
    let long = format!(
        r#"{{"jsonrpc":"2.0","id":"{}","method":"ping"}}"#,
        "x".repeat(MAX_REQUEST_ID)
    );
    let mut out = [0u8; 512];
    assert_eq!(
        c.write_post(long.as_bytes(), &[], &mut out).unwrap_err(),
        WriteError::RequestIdTooLong {
            limit: MAX_REQUEST_ID
        }
    );
}

#[test]
fn too_many_extra_headers_is_an_error() {
    let (mut sid, mut ver) = ([0u8; 64], [0u8; 16]);
    let c = client(&mut sid, &mut ver);
    let extra = [Header {
        name: "X-A",
        value: b"1",
    }; MAX_EXTRA_HEADERS + 1];
    let mut out = [0u8; 1024];
    let want = WriteError::TooManyHeaders {
        limit: MAX_EXTRA_HEADERS,
    };
    assert_eq!(c.write_post(PING, &extra, &mut out).unwrap_err(), want);
    let mut ex = c.write_post(PING, &[], &mut out).unwrap().exchange;
    assert_eq!(
        c.write_get(&mut ex, None, &extra, &mut out).unwrap_err(),
        want
    );
}

#[test]
fn insufficient_size_says_what_suffices() {
    let (mut sid, mut ver) = ([0u8; 64], [0u8; 16]);
    let c = initialized(&mut sid, &mut ver);
    for message in [PING, MODERN_CALL, INIT] {
        for short in [0, 10, 100] {
            let mut out = vec![0u8; short];
            let Err(WriteError::InsufficientSize { required }) =
                c.write_post(message, &[], &mut out)
            else {
                panic!("{short} bytes were enough");
            };
            let mut out = vec![0u8; required];
            let s = c.write_post(message, &[], &mut out).unwrap();
            assert!(s.len <= required);
            assert!(out[..s.len].ends_with(message));
        }
    }
}

#[test]
fn non_json_is_posted_as_it_is() {
    let (mut sid, mut ver) = ([0u8; 64], [0u8; 16]);
    let c = client(&mut sid, &mut ver);
    let (ex, text) = post(&c, b"not json");
    assert!(text.ends_with("Content-Length: 8\r\n\r\nnot json"));
    assert!(!ex.expects_answer());
}

#[test]
fn no_input_panics() {
    let (mut sid, mut ver) = ([0u8; 8], [0u8; 16]);
    let mut c = initialized(&mut sid, &mut ver);
    let mut out = [0u8; 300];
    for message in [INIT, PING, MODERN_CALL, INIT_ANSWER] {
        for cut in 0..message.len() {
            for m in [&message[..cut], &message[cut..]] {
                let mut ex = match c.write_post(m, &[], &mut out) {
                    Ok(s) => s.exchange,
                    Err(_) => continue,
                };
                let _ = head(&mut c, &mut ex, SSE_HEAD);
                let _ = c.handle_message(&mut ex, m);
                let _ = c.handle_end(&mut ex, Some("x"), Some(u32::MAX));
                let _ = ex.write_error_answer(u16::MAX, &mut out[..cut.min(300)]);
            }
        }
    }
}
