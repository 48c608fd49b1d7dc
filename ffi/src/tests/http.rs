//! The HTTP layer of the C ABI: a connection and an endpoint in caller memory, one
//! session by slot, driven as a C socket loop drives them.

use core::ptr;

use super::{Mem, config, deinit, init, s};
use crate::*;

/// 8-aligned caller memory of `n` bytes.
fn mem(n: usize) -> Vec<u64> {
    vec![0u64; n.div_ceil(8)]
}

fn conn_new(buf: &mut Vec<u64>, rx: usize) -> *mut picomcp_http_connection {
    let (mut size, mut align) = (0, 0);
    // SAFETY: writable out pointers.
    let st = unsafe { picomcp_http_connection_storage_size(rx, &mut size, &mut align) };
    assert_eq!(st, picomcp_status::Ok);
    assert!(align <= 8);
    *buf = mem(size);
    let mut c = ptr::null_mut();
    // SAFETY: `buf` is `size` bytes, 8-aligned, and outlives the connection.
    let st = unsafe {
        picomcp_http_connection_init(buf.as_mut_ptr().cast(), size, ptr::null(), 0, &mut c)
    };
    assert_eq!(st, picomcp_status::Ok);
    c
}

fn feed(c: *mut picomcp_http_connection, wire: &[u8]) {
    let (mut p, mut n) = (ptr::null_mut(), 0);
    // SAFETY: live connection; writable out pointers.
    let st = unsafe { picomcp_http_connection_receive_buffer(c, &mut p, &mut n) };
    assert_eq!(st, picomcp_status::Ok);
    assert!(n >= wire.len());
    // SAFETY: the receive buffer has `n` writable bytes.
    unsafe { ptr::copy_nonoverlapping(wire.as_ptr(), p, wire.len()) };
    // SAFETY: live connection.
    let st = unsafe { picomcp_http_connection_commit_received(c, 1, wire.len()) };
    assert_eq!(st, picomcp_status::Ok);
}

fn bytes<'a>(p: *const u8, n: usize) -> &'a [u8] {
    if n == 0 {
        return &[];
    }
    // SAFETY: views from the library are readable until the next call on their object.
    unsafe { core::slice::from_raw_parts(p, n) }
}

const INIT_BODY: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"0"}}}"#;

#[test]
fn a_post_through_connection_endpoint_and_session() {
    let mut cbuf = Vec::new();
    let conn = conn_new(&mut cbuf, 4096);
    let mut ec = picomcp_endpoint_config {
        path: s(""),
        check_hosts: false,
        allowed_hosts: ptr::null(),
        allowed_host_count: 0,
        max_body: 0,
        session_idle_ms: 0,
        keepalive_ms: 0,
        retry_ms: 0,
        response_mode: 0,
        get_stream: false,
        versions: 0,
        slots: 0,
        streams: 0,
        stream_bytes: 0,
        auth: ptr::null(),
        server: ptr::null(),
    };
    // SAFETY: writable configuration.
    let st = unsafe { picomcp_endpoint_config_init(&mut ec) };
    assert_eq!(st, picomcp_status::Ok);
    let hosts = [s("example.test")];
    ec.allowed_hosts = hosts.as_ptr();
    ec.allowed_host_count = 1;
    ec.max_body = 512;
    ec.slots = 2;
    ec.streams = 2;
    let (mut size, mut align) = (0, 0);
    // SAFETY: readable configuration, writable out pointers.
    let st = unsafe { picomcp_endpoint_storage_size(&ec, &mut size, &mut align) };
    assert_eq!(st, picomcp_status::Ok);
    let mut ebuf = mem(size);
    let mut ep = ptr::null_mut();
    // SAFETY: too small memory is refused before anything is written.
    let st = unsafe { picomcp_endpoint_init(ebuf.as_mut_ptr().cast(), size - 8, &ec, &mut ep) };
    assert_eq!(st, picomcp_status::MemoryTooSmall);
    // SAFETY: `ebuf` is `size` bytes, aligned, and outlives the endpoint.
    let st = unsafe { picomcp_endpoint_init(ebuf.as_mut_ptr().cast(), size, &ec, &mut ep) };
    assert_eq!(st, picomcp_status::Ok);

    let wire = format!(
        "POST /mcp HTTP/1.1\r\nHost: example.test:80\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{INIT_BODY}",
        INIT_BODY.len()
    );
    feed(conn, wire.as_bytes());
    let mut req = picomcp_http_request {
        kind: 9,
        error_status: 0,
        method: 0,
        target: s(""),
        headers: ptr::null(),
        header_count: 0,
        body: ptr::null(),
        body_len: 0,
    };
    // SAFETY: live connection, writable request.
    let st = unsafe { picomcp_http_connection_poll_request(conn, 2, &mut req) };
    assert_eq!(st, picomcp_status::Ok);
    assert_eq!(req.kind, picomcp_http_poll::Request as u32);
    assert_eq!(req.method, picomcp_http_method::Post as u32);
    assert_eq!(super::text(req.target), "/mcp");
    assert_eq!(req.header_count, 4);
    assert_eq!(bytes(req.body, req.body_len), INIT_BODY.as_bytes());

    let entropy = [7u8; PICOMCP_ENDPOINT_ENTROPY_LEN];
    // SAFETY: an all-zero outcome is a valid value of this plain C struct.
    let mut oc: picomcp_http_outcome = unsafe { core::mem::zeroed() };
    // SAFETY: live endpoint; the request's views are valid; entropy is 16 bytes.
    let st = unsafe { picomcp_endpoint_handle_request(ep, 3, &req, entropy.as_ptr(), &mut oc) };
    assert_eq!(st, picomcp_status::Ok);
    assert_eq!(oc.kind, picomcp_outcome_kind::Deliver as u32);
    assert!(oc.fresh && oc.has_stream && oc.slot < 2);

    let mut c = config(picomcp_role::Server);
    c.versions = PICOMCP_VERSIONS_ALL;
    let mut smem = Mem::for_config(&c);
    let sess = init(&c, &mut smem);
    // SAFETY: live session; the body view is readable.
    let st = unsafe { picomcp_session_handle_message(sess, 3, req.body, req.body_len) };
    assert_eq!(st, picomcp_status::Ok);
    // SAFETY: live endpoint and session.
    let st = unsafe { picomcp_endpoint_collect(ep, 3, oc.slot, sess) };
    assert_eq!(st, picomcp_status::Ok);
    // SAFETY: a slot out of range is refused.
    let st = unsafe { picomcp_endpoint_collect(ep, 3, 99, sess) };
    assert_eq!(st, picomcp_status::InvalidArgument);

    let mut wire_out = Vec::new();
    let mut out = [0u8; 2048];
    loop {
        // SAFETY: an all-zero response is a valid value of this plain C struct.
        let mut r: picomcp_http_response = unsafe { core::mem::zeroed() };
        // SAFETY: live endpoint, writable response.
        let st = unsafe { picomcp_endpoint_poll_response(ep, 4, oc.stream, &mut r) };
        assert_eq!(st, picomcp_status::Ok);
        let mut n = 0;
        match r.kind {
            k if k == picomcp_response_kind::Head as u32 => {
                assert_eq!(r.head.status, 200);
                // SAFETY: a 1-byte buffer is too small: the size needed comes back.
                let st = unsafe {
                    picomcp_http_connection_write_head(conn, &r.head, out.as_mut_ptr(), 1, &mut n)
                };
                assert_eq!(st, picomcp_status::BufferTooSmall);
                assert!(n > 1);
                // SAFETY: live connection; the head's views are valid; `out` writable.
                let st = unsafe {
                    picomcp_http_connection_write_head(
                        conn,
                        &r.head,
                        out.as_mut_ptr(),
                        out.len(),
                        &mut n,
                    )
                };
                assert_eq!(st, picomcp_status::Ok);
            }
            k if k == picomcp_response_kind::Body as u32 => {
                // SAFETY: live connection; the body view is valid; `out` writable.
                let st = unsafe {
                    picomcp_http_connection_write_body(
                        conn,
                        r.body,
                        r.body_len,
                        out.as_mut_ptr(),
                        out.len(),
                        &mut n,
                    )
                };
                assert_eq!(st, picomcp_status::Ok);
                // SAFETY: live endpoint.
                let st = unsafe { picomcp_endpoint_advance(ep, oc.stream, r.body_len) };
                assert_eq!(st, picomcp_status::Ok);
            }
            k if k == picomcp_response_kind::End as u32 => {
                // SAFETY: live connection; `out` writable.
                let st = unsafe {
                    picomcp_http_connection_write_end(conn, out.as_mut_ptr(), out.len(), &mut n)
                };
                assert_eq!(st, picomcp_status::Ok);
                wire_out.extend_from_slice(&out[..n]);
                break;
            }
            k => panic!("unexpected response kind {k}"),
        }
        wire_out.extend_from_slice(&out[..n]);
    }
    let text = String::from_utf8(wire_out).unwrap();
    assert!(text.starts_with("HTTP/1.1 200 OK\r\n"), "{text}");
    assert!(text.contains("Mcp-Session-Id: "), "{text}");
    assert!(
        text.contains("\"protocolVersion\":\"2025-06-18\""),
        "{text}"
    );

    // SAFETY: live connection.
    let st = unsafe { picomcp_http_connection_finish_request(conn, 5) };
    assert_eq!(st, picomcp_status::Ok);
    let mut state = picomcp_http_state::default();
    // SAFETY: live connection, writable state.
    let st = unsafe { picomcp_http_connection_state(conn, &mut state) };
    assert_eq!(st, picomcp_status::Ok);
    assert!(!state.closed && state.buffered == 0);
    let (mut deadline, mut in_use) = (0, false);
    // SAFETY: live objects, writable outputs.
    unsafe {
        assert_eq!(
            picomcp_endpoint_poll_timeout(ep, &mut deadline),
            picomcp_status::Ok
        );
        assert_ne!(deadline, PICOMCP_NO_DEADLINE);
        assert_eq!(
            picomcp_endpoint_slot_in_use(ep, oc.slot, &mut in_use),
            picomcp_status::Ok
        );
        assert!(in_use);
        assert_eq!(picomcp_endpoint_handle_timeout(ep, 6), picomcp_status::Ok);
        assert_eq!(picomcp_endpoint_detach(ep, 12345), picomcp_status::Ok);
        assert_eq!(
            picomcp_http_connection_poll_timeout(conn, &mut deadline),
            picomcp_status::Ok
        );
        assert_eq!(
            picomcp_http_connection_handle_timeout(conn, 7),
            picomcp_status::Ok
        );
        assert_eq!(picomcp_endpoint_deinit(ep), picomcp_status::Ok);
        assert_eq!(picomcp_endpoint_deinit(ep), picomcp_status::InvalidSession);
        assert_eq!(picomcp_http_connection_deinit(conn), picomcp_status::Ok);
        assert_eq!(
            picomcp_http_connection_finish_request(conn, 8),
            picomcp_status::InvalidSession
        );
    }
    deinit(sess);
}

#[test]
fn bad_requests_and_bad_arguments() {
    let mut cbuf = Vec::new();
    let conn = conn_new(&mut cbuf, 1024);
    feed(conn, b"NOT HTTP\r\n\r\n");
    // SAFETY: an all-zero request is a valid value of this plain C struct.
    let mut req: picomcp_http_request = unsafe { core::mem::zeroed() };
    // SAFETY: live connection, writable request.
    let st = unsafe { picomcp_http_connection_poll_request(conn, 2, &mut req) };
    assert_eq!(st, picomcp_status::Ok);
    assert_eq!(req.kind, picomcp_http_poll::Error as u32);
    assert_eq!(req.error_status, 400);
    let mut out = [0u8; 128];
    let mut n = 0;
    // SAFETY: `out` writable.
    let st = unsafe {
        picomcp_http_write_error_response(req.error_status, true, out.as_mut_ptr(), 128, &mut n)
    };
    assert_eq!(st, picomcp_status::Ok);
    assert!(out[..n].starts_with(b"HTTP/1.1 400 Bad Request\r\n"));
    // SAFETY: `out` writable.
    let st = unsafe { picomcp_http_write_chunk(b"abc".as_ptr(), 3, out.as_mut_ptr(), 128, &mut n) };
    assert_eq!(st, picomcp_status::Ok);
    assert_eq!(&out[..n], b"3\r\nabc\r\n");

    let mut limits = picomcp_http_limits {
        max_headers: 0,
        max_head_bytes: 0,
        max_target_bytes: 0,
        max_body: 0,
        head_timeout_ms: 0,
        body_timeout_ms: 0,
        idle_timeout_ms: 0,
        length_required: false,
    };
    // SAFETY: NULL and writable pointers.
    unsafe {
        assert_eq!(
            picomcp_http_limits_init(ptr::null_mut()),
            picomcp_status::NullArgument
        );
        assert_eq!(picomcp_http_limits_init(&mut limits), picomcp_status::Ok);
        assert_eq!(limits.max_headers, 32);
        assert_eq!(
            picomcp_http_connection_poll_request(ptr::null_mut(), 0, &mut req),
            picomcp_status::NullArgument
        );
        let mut junk = [0u64; 4];
        assert_eq!(
            picomcp_http_connection_poll_request(junk.as_mut_ptr().cast(), 0, &mut req),
            picomcp_status::InvalidSession
        );
        assert_eq!(
            picomcp_endpoint_poll_timeout(junk.as_mut_ptr().cast(), &mut 0),
            picomcp_status::InvalidSession
        );
        let mut c = ptr::null_mut();
        assert_eq!(
            picomcp_http_connection_init(junk.as_mut_ptr().cast(), 16, &limits, 0, &mut c),
            picomcp_status::MemoryTooSmall
        );
        assert_eq!(picomcp_http_connection_deinit(conn), picomcp_status::Ok);
    }
}
