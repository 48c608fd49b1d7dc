//! Rust-side tests of the C ABI. They call the `extern "C"` functions through raw
//! pointers exactly as C does, so `cargo +nightly miri test -p picomcp-ffi` checks the
//! placement, the views and the writer for undefined behaviour and leaks. Sizes are
//! small so Miri stays fast.

mod auth;
mod generate;
mod http;
mod server;
mod subscribe;

use core::ptr;

use picomcp_core::protocol::{Caps, ProtocolVersion};

use crate::*;

fn s(x: &str) -> picomcp_str {
    picomcp_str::new(x)
}

/// The bytes of a view (valid only until the next call on its session).
fn text(v: picomcp_str) -> String {
    if v.ptr.is_null() {
        return "<absent>".into();
    }
    // SAFETY: views handed out by the library point to `len` readable bytes until the next
    // call on the session; every caller reads them before that.
    let b = unsafe { core::slice::from_raw_parts(v.ptr.cast::<u8>(), v.len) };
    String::from_utf8(b.to_vec()).unwrap()
}

const LINE: usize = 512;
const CAPS: &str = r#"{"tools":{"listChanged":true},"logging":{}}"#;

fn config(role: picomcp_role) -> picomcp_config {
    let mut c = convert::config_defaults(0);
    // SAFETY: `c` is a valid, writable configuration.
    let st = unsafe { picomcp_config_init(&mut c, role as u32) };
    assert_eq!(st, picomcp_status::Ok);
    c.name = s("t\"name");
    c.version = s("1.0");
    c.capabilities = s(if role == picomcp_role::Server {
        CAPS
    } else {
        "{}"
    });
    c.max_line = LINE;
    c.versions = PICOMCP_VERSIONS_LEGACY;
    c.inbound_slots = 4;
    c.outbound_slots = 2;
    c.request_timeout_ms = 1000;
    c
}

/// Caller-owned, 8-aligned session memory.
struct Mem(Vec<u64>);

impl Mem {
    fn for_config(c: &picomcp_config) -> Mem {
        let (mut size, mut align) = (0, 0);
        // SAFETY: valid configuration and out pointers.
        let st = unsafe { picomcp_session_storage_size(c, &mut size, &mut align) };
        assert_eq!(st, picomcp_status::Ok);
        assert!(align.is_power_of_two() && align <= PICOMCP_SESSION_MAX_ALIGN);
        Mem(vec![0u64; size.div_ceil(8)])
    }
    fn ptr(&mut self) -> *mut core::ffi::c_void {
        self.0.as_mut_ptr().cast()
    }
    fn len(&self) -> usize {
        self.0.len() * 8
    }
}

fn init(c: &picomcp_config, mem: &mut Mem) -> *mut picomcp_session {
    let mut sess = ptr::null_mut();
    let len = mem.len();
    // SAFETY: `mem` is large and aligned enough and outlives the session in every test.
    let st = unsafe { picomcp_session_init(mem.ptr(), len, c, 0, &mut sess) };
    assert_eq!(st, picomcp_status::Ok);
    assert!(!sess.is_null());
    sess
}

fn feed(sess: *mut picomcp_session, now: u64, line: &str) {
    let mut taken = 0;
    // SAFETY: live session; the line is readable.
    let st =
        unsafe { picomcp_session_handle_bytes(sess, now, line.as_ptr(), line.len(), &mut taken) };
    assert_eq!(st, picomcp_status::Ok);
    assert_eq!(taken, line.len());
}

fn drain(sess: *mut picomcp_session) -> Vec<String> {
    let mut buf = vec![0u8; 4 * LINE];
    let mut lines = Vec::new();
    loop {
        let mut n = 0;
        // SAFETY: live session; `buf` is writable.
        let st =
            unsafe { picomcp_session_poll_transmit(sess, buf.as_mut_ptr(), buf.len(), &mut n) };
        assert_eq!(st, picomcp_status::Ok);
        if n == 0 {
            return lines;
        }
        let t = std::str::from_utf8(&buf[..n]).unwrap();
        lines.extend(t.lines().map(String::from));
    }
}

/// One event, with its views copied out.
#[derive(Debug)]
struct Ev {
    kind: u32,
    id: u32,
    method: String,
    json: String,
    text: String,
    code: i64,
    raw: picomcp_event,
}

fn next_event(sess: *mut picomcp_session) -> Option<Ev> {
    let mut e = picomcp_event::EMPTY;
    // SAFETY: live session; `e` is writable.
    let st = unsafe { picomcp_session_poll_event(sess, &mut e) };
    assert_eq!(st, picomcp_status::Ok);
    if e.kind == picomcp_event_kind::None as u32 {
        return None;
    }
    Some(Ev {
        kind: e.kind,
        id: e.id,
        method: text(e.method_name),
        json: text(e.json),
        text: text(e.text),
        code: e.code,
        raw: e,
    })
}

fn events(sess: *mut picomcp_session) -> Vec<Ev> {
    std::iter::from_fn(|| next_event(sess)).collect()
}

const INIT: &str = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"c\",\"version\":\"0\"}}}\n";
const INITIALIZED: &str = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n";

fn ready_server(mem: &mut Mem) -> *mut picomcp_session {
    let c = config(picomcp_role::Server);
    *mem = Mem::for_config(&c);
    let sess = init(&c, mem);
    feed(sess, 0, INIT);
    feed(sess, 0, INITIALIZED);
    let out = drain(sess);
    assert_eq!(out.len(), 1, "{out:?}");
    assert!(
        out[0].contains("\"protocolVersion\":\"2025-06-18\""),
        "{out:?}"
    );
    assert!(out[0].contains(r#""name":"t\"name""#), "{out:?}");
    let evs = events(sess);
    assert_eq!(evs.len(), 2, "{evs:?}");
    assert_eq!(evs[0].kind, picomcp_event_kind::Negotiated as u32);
    assert_eq!(
        evs[0].raw.version,
        picomcp_version::V2025_06_18 as u32,
        "{evs:?}"
    );
    assert_eq!(text(evs[0].raw.version_name), "2025-06-18");
    assert!(evs[0].json.contains("clientInfo"));
    assert_eq!(evs[1].kind, picomcp_event_kind::Ready as u32);
    sess
}

fn deinit(sess: *mut picomcp_session) {
    // SAFETY: a live session from `init`.
    assert_eq!(unsafe { picomcp_session_deinit(sess) }, picomcp_status::Ok);
}

#[test]
fn server_request_respond_and_misuse() {
    let mut mem = Mem(Vec::new());
    let sess = ready_server(&mut mem);
    feed(
        sess,
        1,
        "{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"tools/call\",\"params\":{\"name\":\"echo\"}}\n",
    );
    let evs = events(sess);
    assert_eq!(evs.len(), 1);
    let req = &evs[0];
    assert_eq!(req.kind, picomcp_event_kind::Request as u32);
    assert_eq!(req.method, "tools/call");
    assert_eq!(req.raw.method, picomcp_method::ToolsCall as i32);
    assert_eq!(req.json, r#"{"name":"echo"}"#);
    let mut open = false;
    // SAFETY: live session, writable out pointer.
    unsafe {
        assert_eq!(
            picomcp_session_is_open(sess, req.id, &mut open),
            picomcp_status::Ok
        );
        assert!(open);
        // Not an object, not JSON.
        assert_eq!(
            picomcp_session_respond(sess, req.id, s("[1]")),
            picomcp_status::ResultNotObject
        );
        assert_eq!(
            picomcp_session_respond(sess, req.id, s("{")),
            picomcp_status::InvalidJson
        );
        assert_eq!(
            picomcp_session_respond(sess, req.id, s(r#"{"ok":true}"#)),
            picomcp_status::Ok
        );
        // Twice, and a made-up handle.
        assert_eq!(
            picomcp_session_respond(sess, req.id, s("{}")),
            picomcp_status::UnknownRequest
        );
        assert_eq!(
            picomcp_session_respond_error(sess, req.id, -32000, s("x"), picomcp_str::NONE),
            picomcp_status::UnknownRequest
        );
        assert_eq!(
            picomcp_session_respond(sess, 0xdead_beef, s("{}")),
            picomcp_status::UnknownRequest
        );
        assert_eq!(
            picomcp_session_is_open(sess, req.id, &mut open),
            picomcp_status::Ok
        );
        assert!(!open);
    }
    assert_eq!(
        drain(sess),
        [r#"{"jsonrpc":"2.0","id":"a","result":{"ok":true}}"#]
    );

    // respond_error with data; logging; a notification.
    feed(
        sess,
        2,
        "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/list\"}\n",
    );
    let id = events(sess)[0].id;
    // SAFETY: live session; readable strings.
    unsafe {
        assert_eq!(
            picomcp_session_respond_error(sess, id, -32602, s("bad \"x\""), s(r#"{"field":"x"}"#)),
            picomcp_status::Ok
        );
        let mut sent = false;
        assert_eq!(
            picomcp_session_log_text(
                sess,
                picomcp_log_level::Info as u32,
                s("t"),
                s("hi \"there\""),
                &mut sent
            ),
            picomcp_status::Ok
        );
        assert!(sent);
        assert_eq!(
            picomcp_session_log(sess, 42, picomcp_str::NONE, s("1"), ptr::null_mut()),
            picomcp_status::InvalidArgument
        );
        assert_eq!(
            picomcp_session_send_notification(
                sess,
                s("notifications/tools/list_changed"),
                picomcp_str::NONE
            ),
            picomcp_status::Ok
        );
        assert_eq!(
            picomcp_session_send_notification(
                sess,
                s("notifications/prompts/list_changed"),
                picomcp_str::NONE
            ),
            picomcp_status::NotNegotiated
        );
        assert_eq!(
            picomcp_session_send_notification(sess, s("no/such"), picomcp_str::NONE),
            picomcp_status::UnknownMethod
        );
        assert_eq!(
            picomcp_session_send_notification(sess, s("notifications/progress"), picomcp_str::NONE),
            picomcp_status::ReservedMethod
        );
    }
    let out = drain(sess);
    assert_eq!(out.len(), 3, "{out:?}");
    assert_eq!(
        out[0],
        r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"bad \"x\"","data":{"field":"x"}}}"#
    );
    assert!(out[1].contains(r#""data":"hi \"there\"""#), "{}", out[1]);

    // Getters.
    let (mut v, mut phase, mut caps) = (0, 0, 0);
    let mut stats = picomcp_stats::default();
    // SAFETY: live session, writable outs.
    unsafe {
        assert_eq!(picomcp_session_version(sess, &mut v), picomcp_status::Ok);
        assert_eq!(picomcp_session_phase(sess, &mut phase), picomcp_status::Ok);
        assert_eq!(
            picomcp_session_capabilities(sess, &mut caps),
            picomcp_status::Ok
        );
        assert_eq!(picomcp_session_stats(sess, &mut stats), picomcp_status::Ok);
    }
    assert_eq!(v, picomcp_version::V2025_06_18 as u32);
    assert_eq!(phase, picomcp_phase::Operating as u32);
    assert_eq!(
        caps,
        PICOMCP_CAP_TOOLS | PICOMCP_CAP_TOOLS_LIST_CHANGED | PICOMCP_CAP_LOGGING
    );
    assert_eq!(stats.lines_in, 4);

    // EOF closes.
    // SAFETY: live session.
    let st = unsafe { picomcp_session_handle_eof(sess, 3) };
    assert_eq!(st, picomcp_status::Ok);
    let evs = events(sess);
    assert_eq!(evs[0].kind, picomcp_event_kind::Closed as u32);
    assert_eq!(
        evs[0].raw.close_reason,
        picomcp_close_reason::PeerClosed as u32
    );
    deinit(sess);
    // Stale session pointer (memory still alive): detected.
    let mut e = picomcp_event::EMPTY;
    // SAFETY: the memory is alive; the library only reads the magic word.
    unsafe {
        assert_eq!(
            picomcp_session_poll_event(sess, &mut e),
            picomcp_status::InvalidSession
        );
        assert_eq!(picomcp_session_deinit(sess), picomcp_status::InvalidSession);
        assert_eq!(picomcp_session_free(sess), picomcp_status::InvalidSession);
    }
}

#[test]
fn null_pointers_and_bad_memory() {
    let c = config(picomcp_role::Server);
    let mut mem = Mem::for_config(&c);
    let mut sess = ptr::null_mut();
    let (mut size, mut align) = (0usize, 0usize);
    // SAFETY: every pointer is NULL or valid; that is what is being tested.
    unsafe {
        assert_eq!(
            picomcp_config_init(ptr::null_mut(), 1),
            picomcp_status::NullArgument
        );
        let mut bad = c;
        assert_eq!(picomcp_config_init(&mut bad, 7), picomcp_status::BadRole);
        assert_eq!(
            picomcp_session_storage_size(ptr::null(), &mut size, &mut align),
            picomcp_status::NullArgument
        );
        assert_eq!(
            picomcp_session_storage_size(&c, ptr::null_mut(), &mut align),
            picomcp_status::NullArgument
        );
        let len = mem.len();
        assert_eq!(
            picomcp_session_init(ptr::null_mut(), len, &c, 0, &mut sess),
            picomcp_status::NullArgument
        );
        assert_eq!(
            picomcp_session_init(mem.ptr(), len, &c, 0, ptr::null_mut()),
            picomcp_status::NullArgument
        );
        assert_eq!(
            picomcp_session_init(mem.ptr(), len - 8, &c, 0, &mut sess),
            picomcp_status::MemoryTooSmall
        );
        assert!(sess.is_null());
        let odd = mem.ptr().cast::<u8>().add(4).cast();
        assert_eq!(
            picomcp_session_init(odd, len - 8, &c, 0, &mut sess),
            picomcp_status::MemoryMisaligned
        );
        // Configuration errors.
        let mut bad = c;
        bad.capabilities = s("[]");
        assert_eq!(
            picomcp_session_storage_size(&bad, &mut size, &mut align),
            picomcp_status::CapabilitiesNotObject
        );
        bad.capabilities = s("{");
        assert_eq!(
            picomcp_session_storage_size(&bad, &mut size, &mut align),
            picomcp_status::InvalidJson
        );
        bad = c;
        bad.versions = 0;
        assert_eq!(
            picomcp_session_storage_size(&bad, &mut size, &mut align),
            picomcp_status::NoVersions
        );
        bad.versions = 1 << 30;
        assert_eq!(
            picomcp_session_storage_size(&bad, &mut size, &mut align),
            picomcp_status::InvalidArgument
        );
        bad = c;
        bad.role = 0;
        assert_eq!(
            picomcp_session_storage_size(&bad, &mut size, &mut align),
            picomcp_status::BadRole
        );
        bad = c;
        bad.name = picomcp_str {
            ptr: ptr::null(),
            len: 3,
        };
        assert_eq!(
            picomcp_session_storage_size(&bad, &mut size, &mut align),
            picomcp_status::NullArgument
        );
        bad = c;
        let invalid = [0xffu8, 0xfe];
        bad.name = picomcp_str {
            ptr: invalid.as_ptr().cast(),
            len: 2,
        };
        assert_eq!(
            picomcp_session_storage_size(&bad, &mut size, &mut align),
            picomcp_status::InvalidUtf8
        );
        bad = c;
        bad.max_depth = 1000;
        let big = bad;
        let mut m2 = Mem::for_config(&big);
        let l2 = m2.len();
        assert_eq!(
            picomcp_session_init(m2.ptr(), l2, &big, 0, &mut sess),
            picomcp_status::BadLimit
        );
        bad = c;
        bad.tx_size = 16;
        let mut m3 = Mem::for_config(&bad);
        let l3 = m3.len();
        assert_eq!(
            picomcp_session_init(m3.ptr(), l3, &bad, 0, &mut sess),
            picomcp_status::QueueTooSmall
        );
        bad = c;
        bad.max_line = usize::MAX;
        assert_eq!(
            picomcp_session_storage_size(&bad, &mut size, &mut align),
            picomcp_status::BadLimit
        );

        // Session functions with NULL session / outputs.
        let mut e = picomcp_event::EMPTY;
        assert_eq!(
            picomcp_session_poll_event(ptr::null_mut(), &mut e),
            picomcp_status::NullArgument
        );
        assert_eq!(
            picomcp_session_handle_eof(ptr::null_mut(), 0),
            picomcp_status::NullArgument
        );
        assert_eq!(picomcp_session_free(ptr::null_mut()), picomcp_status::Ok);
        assert_eq!(
            picomcp_session_deinit(ptr::null_mut()),
            picomcp_status::NullArgument
        );
        // Never-initialised memory.
        let mut zeroed = [0u64; 64];
        let fake = zeroed.as_mut_ptr().cast::<picomcp_session>();
        assert_eq!(picomcp_session_close(fake), picomcp_status::InvalidSession);
        assert_eq!(
            picomcp_session_close(fake.cast::<u8>().add(1).cast()),
            picomcp_status::InvalidSession
        );

        let len = mem.len();
        assert_eq!(
            picomcp_session_init(mem.ptr(), len, &c, 0, &mut sess),
            picomcp_status::Ok
        );
        assert_eq!(
            picomcp_session_poll_event(sess, ptr::null_mut()),
            picomcp_status::NullArgument
        );
        let mut taken = 0;
        assert_eq!(
            picomcp_session_handle_bytes(sess, 0, ptr::null(), 0, &mut taken),
            picomcp_status::Ok
        );
        assert_eq!(
            picomcp_session_handle_bytes(sess, 0, ptr::null(), 5, &mut taken),
            picomcp_status::NullArgument
        );
        assert_eq!(
            picomcp_session_handle_bytes(sess, 0, b"x".as_ptr(), 1, ptr::null_mut()),
            picomcp_status::NullArgument
        );
        let mut n = 0;
        assert_eq!(
            picomcp_session_poll_transmit(sess, ptr::null_mut(), 10, &mut n),
            picomcp_status::NullArgument
        );
        assert_eq!(
            picomcp_session_respond(
                sess,
                1,
                picomcp_str {
                    ptr: ptr::null(),
                    len: 2
                }
            ),
            picomcp_status::NullArgument
        );
        assert_eq!(
            picomcp_session_advance_transmit(sess, 1),
            picomcp_status::InvalidArgument
        );
        // A session placed in caller memory is not freed by the library.
        assert_eq!(picomcp_session_free(sess), picomcp_status::WrongRelease);
        // Before the handshake, requests are refused.
        let mut id = 0;
        assert_eq!(
            picomcp_session_send_request(
                sess,
                0,
                s("roots/list"),
                picomcp_str::NONE,
                ptr::null(),
                &mut id
            ),
            picomcp_status::WrongPhase
        );
        deinit(sess);
    }
}

#[test]
fn zeroed_memory_sessions() {
    // `picomcp_session_init_zeroed` on zeroed memory and `picomcp_session_new` (zeroed
    // allocation) skip the zeroing pass; the session behaves as one from
    // `picomcp_session_init`, and the same checks refuse bad memory.
    let c = config(picomcp_role::Server);
    let mut mem = Mem::for_config(&c);
    let len = mem.len();
    let mut sess = ptr::null_mut();
    // SAFETY: `mem` is zeroed (`vec![0u64; ..]`), aligned and large enough; the bad
    // pointers below are refused before any access.
    unsafe {
        assert_eq!(
            picomcp_session_init_zeroed(mem.ptr(), len - 8, &c, 0, &mut sess),
            picomcp_status::MemoryTooSmall
        );
        let odd = mem.ptr().cast::<u8>().add(1).cast();
        assert_eq!(
            picomcp_session_init_zeroed(odd, len - 8, &c, 0, &mut sess),
            picomcp_status::MemoryMisaligned
        );
        assert_eq!(
            picomcp_session_init_zeroed(ptr::null_mut(), len, &c, 0, &mut sess),
            picomcp_status::NullArgument
        );
        assert!(sess.is_null());
        assert_eq!(
            picomcp_session_init_zeroed(mem.ptr(), len, &c, 0, &mut sess),
            picomcp_status::Ok
        );
    }
    let mut heap = ptr::null_mut();
    // SAFETY: valid configuration and out pointer.
    let st = unsafe { picomcp_session_new(&c, 0, &mut heap) };
    assert_eq!(st, picomcp_status::Ok);
    for s in [sess, heap] {
        feed(s, 0, INIT);
        feed(s, 0, INITIALIZED);
        feed(s, 0, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n");
        let out = drain(s);
        assert_eq!(out.len(), 2, "{out:?}");
        assert!(out[0].contains("\"protocolVersion\":\"2025-06-18\""));
        assert_eq!(out[1], r#"{"jsonrpc":"2.0","id":2,"result":{}}"#);
        assert_eq!(events(s).len(), 2);
    }
    deinit(sess);
    // SAFETY: `heap` came from `picomcp_session_new`.
    let st = unsafe { picomcp_session_free(heap) };
    assert_eq!(st, picomcp_status::Ok);
}

#[test]
fn transmit_buffer_too_small_and_zero_copy() {
    let mut mem = Mem(Vec::new());
    let sess = ready_server(&mut mem);
    feed(
        sess,
        0,
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n",
    );
    let line = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n";
    let mut small = [0u8; 8];
    let mut n = 0;
    // SAFETY: live session; buffers writable.
    unsafe {
        assert_eq!(
            picomcp_session_poll_transmit(sess, small.as_mut_ptr(), small.len(), &mut n),
            picomcp_status::BufferTooSmall
        );
        assert_eq!(n, line.len());
        let mut v = picomcp_str::NONE;
        assert_eq!(
            picomcp_session_pending_transmit(sess, &mut v),
            picomcp_status::Ok
        );
        assert_eq!(v.len, 2 * line.len() - 2 + 2);
        assert!(text(v).starts_with(line));
        assert_eq!(
            picomcp_session_advance_transmit(sess, line.len()),
            picomcp_status::Ok
        );
        let mut big = [0u8; 128];
        assert_eq!(
            picomcp_session_poll_transmit(sess, big.as_mut_ptr(), big.len(), &mut n),
            picomcp_status::Ok
        );
        assert_eq!(&big[..n], line.replace("\"id\":1", "\"id\":2").as_bytes());
        assert_eq!(
            picomcp_session_poll_transmit(sess, big.as_mut_ptr(), big.len(), &mut n),
            picomcp_status::Ok
        );
        assert_eq!(n, 0);
    }
    deinit(sess);
}

#[test]
fn client_and_server_talk() {
    // A client from picomcp_session_new (heap) and a server in caller memory.
    let cc = config(picomcp_role::Client);
    let mut client = ptr::null_mut();
    // SAFETY: valid configuration and out pointer.
    let st = unsafe { picomcp_session_new(&cc, 0, &mut client) };
    assert_eq!(st, picomcp_status::Ok);
    // SAFETY: `client` is from picomcp_session_new.
    let st = unsafe { picomcp_session_deinit(client) };
    assert_eq!(st, picomcp_status::WrongRelease);
    let sc = config(picomcp_role::Server);
    let mut mem = Mem::for_config(&sc);
    let server = init(&sc, &mut mem);
    let pump = |from: *mut picomcp_session, to: *mut picomcp_session, now: u64| {
        for l in drain(from) {
            feed(to, now, &(l + "\n"));
        }
    };
    pump(client, server, 0); // initialize
    pump(server, client, 0); // result
    pump(client, server, 0); // initialized
    let cev = events(client);
    assert_eq!(cev[0].kind, picomcp_event_kind::Negotiated as u32);
    assert!(cev[0].json.contains("serverInfo"), "{cev:?}");
    assert_eq!(cev[1].kind, picomcp_event_kind::Ready as u32);
    let sev = events(server);
    assert_eq!(sev.len(), 2, "{sev:?}");
    let mut peer = 0;
    // SAFETY: live session, writable out.
    unsafe { picomcp_session_peer_capabilities(client, &mut peer) };
    assert_eq!(
        peer,
        Caps::from_json(picomcp_core::json::Json::new(CAPS).unwrap()).0
    );

    // A request with progress, answered with an escaped error message.
    let opts = picomcp_request_options {
        progress: true,
        ..Default::default()
    };
    let mut id = 0;
    // SAFETY: live session; readable strings and options.
    unsafe {
        assert_eq!(
            picomcp_session_send_request(
                client,
                5,
                s("tools/call"),
                s(r#"{"name":"x"}"#),
                &opts,
                &mut id
            ),
            picomcp_status::Ok
        );
        assert_eq!(
            picomcp_session_send_request(client, 5, s("tools/call"), s("[]"), ptr::null(), &mut id),
            picomcp_status::ParamsNotObject
        );
        assert_eq!(
            picomcp_session_send_request(
                client,
                5,
                s("notifications/initialized"),
                picomcp_str::NONE,
                ptr::null(),
                &mut id
            ),
            picomcp_status::WrongDirection
        );
    }
    pump(client, server, 5);
    let req = events(server).remove(0);
    assert!(req.json.contains("progressToken"), "{req:?}");
    // SAFETY: live session; readable strings.
    unsafe {
        assert_eq!(
            picomcp_session_progress(server, req.id, 1.0, 2.0, s("half")),
            picomcp_status::Ok
        );
        assert_eq!(
            picomcp_session_progress(server, req.id, 1.0, f64::NAN, picomcp_str::NONE),
            picomcp_status::ProgressNotIncreasing
        );
        assert_eq!(
            picomcp_session_respond_error(
                server,
                req.id,
                -32001,
                s("tab\there \u{e9}"),
                picomcp_str::NONE
            ),
            picomcp_status::Ok
        );
    }
    pump(server, client, 6);
    let evs = events(client);
    assert_eq!(evs.len(), 2, "{evs:?}");
    assert_eq!(evs[0].kind, picomcp_event_kind::Progress as u32);
    assert_eq!((evs[0].raw.progress, evs[0].raw.total), (1.0, 2.0));
    assert_eq!(evs[0].id, id_of_first(&evs));
    assert_eq!(evs[1].kind, picomcp_event_kind::ErrorResponse as u32);
    assert_eq!(evs[1].code, -32001);
    assert_eq!(evs[1].text, "tab\there \u{e9}");
    assert_eq!(evs[1].json, "<absent>");

    // Cancel, then a timeout.
    let mut id2 = 0;
    // SAFETY: live sessions; readable strings.
    unsafe {
        assert_eq!(
            picomcp_session_send_request(
                client,
                10,
                s("tools/list"),
                picomcp_str::NONE,
                ptr::null(),
                &mut id2
            ),
            picomcp_status::Ok
        );
        assert_eq!(
            picomcp_session_cancel(client, id2, s("no \"need\"")),
            picomcp_status::Ok
        );
        assert_eq!(
            picomcp_session_cancel(client, id2, picomcp_str::NONE),
            picomcp_status::UnknownRequest
        );
    }
    pump(client, server, 11);
    let evs = events(server);
    assert_eq!(evs[1].kind, picomcp_event_kind::Cancelled as u32);
    assert_eq!(evs[1].id, evs[0].id);
    assert_eq!(evs[1].text, "no \"need\"");
    // SAFETY: live session; answering a cancelled request is allowed and sends nothing.
    let st = unsafe { picomcp_session_respond(server, evs[0].id, s("{}")) };
    assert_eq!(st, picomcp_status::Ok);
    assert!(drain(server).is_empty());

    let o = picomcp_request_options {
        timeout_ms: 50,
        ..Default::default()
    };
    let mut deadline = 0;
    // SAFETY: live session; readable options; writable outs.
    unsafe {
        assert_eq!(
            picomcp_session_send_request(
                client,
                100,
                s("tools/list"),
                picomcp_str::NONE,
                &o,
                &mut id2
            ),
            picomcp_status::Ok
        );
        assert_eq!(
            picomcp_session_poll_timeout(client, &mut deadline),
            picomcp_status::Ok
        );
        assert_eq!(deadline, 150);
        assert_eq!(
            picomcp_session_handle_timeout(client, 150),
            picomcp_status::Ok
        );
        assert_eq!(
            picomcp_session_poll_timeout(client, &mut deadline),
            picomcp_status::Ok
        );
        assert_eq!(deadline, PICOMCP_NO_DEADLINE);
    }
    let evs = events(client);
    assert_eq!(evs[0].kind, picomcp_event_kind::TimedOut as u32);
    assert_eq!(evs[0].id, id2);
    // SAFETY: live sessions; the client came from picomcp_session_new.
    unsafe {
        assert_eq!(picomcp_session_close(client), picomcp_status::Ok);
        assert_eq!(picomcp_session_free(client), picomcp_status::Ok);
    }
    deinit(server);
}

fn id_of_first(evs: &[Ev]) -> u32 {
    evs[0].id
}

#[test]
fn violations_are_events() {
    let mut mem = Mem(Vec::new());
    let sess = ready_server(&mut mem);
    feed(
        sess,
        0,
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"nope\"}\n{bad\n",
    );
    let evs = events(sess);
    assert_eq!(evs.len(), 2, "{evs:?}");
    assert_eq!(
        evs[0].raw.violation,
        picomcp_violation::UnknownMethod as u32
    );
    assert_eq!(evs[1].raw.violation, picomcp_violation::Malformed as u32);
    assert_eq!(
        evs[1].raw.detail,
        picomcp_parse_error::JsonUnexpectedByte as u32
    );
    assert_eq!(evs[1].code, -32700);
    assert_eq!(drain(sess).len(), 2);
    deinit(sess);
}

#[test]
fn json_readers() {
    let doc = r#" {"a":{"b":[1,2.5,"x\"y",true,null]},"n":-7,"big":1e400,"s\u0041":"\u00e9"} "#;
    let mut v = picomcp_str::NONE;
    let mut k = picomcp_str::NONE;
    // SAFETY: every string is readable and every out pointer writable (or NULL on purpose).
    unsafe {
        assert_eq!(picomcp_json_validate(s(doc)), picomcp_status::Ok);
        assert_eq!(
            picomcp_json_validate(s("{\"a\":}")),
            picomcp_status::InvalidJson
        );
        assert_eq!(picomcp_json_validate(s("")), picomcp_status::InvalidJson);
        assert_eq!(picomcp_json_get(s(doc), s("a"), &mut v), picomcp_status::Ok);
        let a = v;
        assert_eq!(picomcp_json_get(a, s("b"), &mut v), picomcp_status::Ok);
        let arr = v;
        let mut n = 0usize;
        assert_eq!(picomcp_json_len(arr, &mut n), picomcp_status::Ok);
        assert_eq!(n, 5);
        assert_eq!(picomcp_json_at(arr, 1, &mut v), picomcp_status::Ok);
        let mut d = 0.0;
        assert_eq!(picomcp_json_number(v, &mut d), picomcp_status::Ok);
        assert_eq!(d, 2.5);
        let mut i = 0i64;
        assert_eq!(picomcp_json_int(v, &mut i), picomcp_status::WrongType);
        assert_eq!(picomcp_json_at(arr, 5, &mut v), picomcp_status::NotFound);
        assert_eq!(picomcp_json_at(a, 0, &mut v), picomcp_status::WrongType);
        assert_eq!(picomcp_json_at(arr, 2, &mut v), picomcp_status::Ok);
        let mut buf = [0 as core::ffi::c_char; 4];
        assert_eq!(
            picomcp_json_string(v, buf.as_mut_ptr(), 3, &mut n),
            picomcp_status::BufferTooSmall
        );
        assert_eq!(n, 4);
        assert_eq!(
            picomcp_json_string(v, buf.as_mut_ptr(), 4, &mut n),
            picomcp_status::Ok
        );
        assert_eq!(n, 3);
        assert_eq!(buf.map(|c| c as u8), *b"x\"y\0");
        let mut eq = false;
        assert_eq!(
            picomcp_json_string_eq(v, s("x\"y"), &mut eq),
            picomcp_status::Ok
        );
        assert!(eq);
        let mut esc = false;
        assert_eq!(
            picomcp_json_string_view(v, &mut k, &mut esc),
            picomcp_status::Ok
        );
        assert_eq!((text(k).as_str(), esc), ("x\\\"y", true));
        assert_eq!(picomcp_json_at(arr, 3, &mut v), picomcp_status::Ok);
        let mut b = false;
        assert_eq!(picomcp_json_bool(v, &mut b), picomcp_status::Ok);
        assert!(b);
        let mut ty = 0;
        assert_eq!(picomcp_json_at(arr, 4, &mut v), picomcp_status::Ok);
        assert_eq!(picomcp_json_kind(v, &mut ty), picomcp_status::Ok);
        assert_eq!(ty, picomcp_json_type::Null as u32);
        assert_eq!(picomcp_json_get(s(doc), s("n"), &mut v), picomcp_status::Ok);
        assert_eq!(picomcp_json_int(v, &mut i), picomcp_status::Ok);
        assert_eq!(i, -7);
        assert_eq!(
            picomcp_json_get(s(doc), s("big"), &mut v),
            picomcp_status::Ok
        );
        assert_eq!(picomcp_json_number(v, &mut d), picomcp_status::Ok);
        assert!(d.is_infinite());
        assert_eq!(
            picomcp_json_get(s("[99999999999999999999]"), s("x"), &mut v),
            picomcp_status::WrongType
        );
        assert_eq!(
            picomcp_json_at(s("[99999999999999999999]"), 0, &mut v),
            picomcp_status::Ok
        );
        assert_eq!(picomcp_json_int(v, &mut i), picomcp_status::OutOfRange);
        // Escaped key lookup and member iteration.
        assert_eq!(
            picomcp_json_get(s(doc), s("sA"), &mut v),
            picomcp_status::Ok
        );
        assert_eq!(
            picomcp_json_string(v, buf.as_mut_ptr(), 4, &mut n),
            picomcp_status::Ok
        );
        assert_eq!(n, 2);
        assert_eq!(
            picomcp_json_member_at(s(doc), 3, &mut k, &mut v),
            picomcp_status::Ok
        );
        assert_eq!(text(k), "\"s\\u0041\"");
        assert_eq!(
            picomcp_json_string(k, buf.as_mut_ptr(), 4, &mut n),
            picomcp_status::Ok
        );
        assert_eq!(
            buf[..3].iter().map(|c| *c as u8).collect::<Vec<_>>(),
            b"sA\0"
        );
        assert_eq!(
            picomcp_json_member_at(s(doc), 4, &mut k, &mut v),
            picomcp_status::NotFound
        );
        assert_eq!(
            picomcp_json_get(s(doc), s("zz"), &mut v),
            picomcp_status::NotFound
        );
        assert_eq!(
            picomcp_json_get(s(doc), s("a"), ptr::null_mut()),
            picomcp_status::NullArgument
        );
        assert_eq!(
            picomcp_json_string(s("1"), buf.as_mut_ptr(), 4, &mut n),
            picomcp_status::WrongType
        );
        assert_eq!(
            picomcp_json_string(s("\"\""), ptr::null_mut(), 0, &mut n),
            picomcp_status::BufferTooSmall
        );
        assert_eq!(n, 1);
        // JSON Pointer.
        let mut t = 0u32;
        let doc = r#"{"a/b":{"~x":[10,{"k":"v"}]},"":1}"#;
        assert_eq!(
            picomcp_json_pointer(s(doc), s("/a~1b/~0x/1/k"), &mut v, &mut t),
            picomcp_status::Ok
        );
        assert_eq!(
            (text(v).as_str(), t),
            ("\"v\"", picomcp_json_type::String as u32)
        );
        assert_eq!(
            picomcp_json_pointer(s(doc), s(""), &mut v, ptr::null_mut()),
            picomcp_status::Ok
        );
        assert_eq!(text(v), doc);
        assert_eq!(
            picomcp_json_pointer(s(doc), s("/"), &mut v, ptr::null_mut()),
            picomcp_status::Ok
        );
        assert_eq!(text(v), "1");
        assert_eq!(
            picomcp_json_pointer(s(doc), s("/a~1b/~0x/2"), &mut v, ptr::null_mut()),
            picomcp_status::NotFound
        );
        assert_eq!(
            picomcp_json_pointer(s(doc), s("/a~1b/~0x/01"), &mut v, ptr::null_mut()),
            picomcp_status::NotFound
        );
        assert_eq!(
            picomcp_json_pointer(s(doc), s("/a~1b/~0x/0/z"), &mut v, ptr::null_mut()),
            picomcp_status::WrongType
        );
        assert_eq!(
            picomcp_json_pointer(s(doc), s("a"), &mut v, ptr::null_mut()),
            picomcp_status::InvalidArgument
        );
        assert_eq!(
            picomcp_json_pointer(s(doc), s("/~2"), &mut v, ptr::null_mut()),
            picomcp_status::InvalidArgument
        );
        assert_eq!(
            picomcp_json_pointer(s("{"), s(""), &mut v, ptr::null_mut()),
            picomcp_status::InvalidJson
        );
    }
}

#[test]
fn json_writer() {
    let mut w = picomcp_writer {
        opaque: [0; PICOMCP_WRITER_WORDS],
    };
    let mut buf = [0 as core::ffi::c_char; 64];
    let mut n = 0;
    let build = |w: &mut picomcp_writer, buf: &mut [core::ffi::c_char]| {
        // SAFETY: `w` and `buf` are valid; `buf` outlives the writer's use.
        unsafe {
            assert_eq!(
                picomcp_writer_init(w, buf.as_mut_ptr(), buf.len()),
                picomcp_status::Ok
            );
            picomcp_writer_begin_object(w);
            picomcp_writer_key(w, s("text"));
            picomcp_writer_string(w, s("a \"q\"\n"));
            picomcp_writer_key(w, s("list"));
            picomcp_writer_begin_array(w);
            picomcp_writer_int(w, -3);
            picomcp_writer_double(w, 0.5);
            picomcp_writer_bool(w, false);
            picomcp_writer_null(w);
            picomcp_writer_raw(w, s("{\"x\":\n1}"));
            picomcp_writer_end_array(w);
            picomcp_writer_end_object(w);
        }
    };
    let expect = r#"{"text":"a \"q\"\n","list":[-3,0.5,false,null,{"x": 1}]}"#;
    let mut small = [0 as core::ffi::c_char; 10];
    build(&mut w, &mut small);
    // SAFETY: initialised writer; writable out.
    let st = unsafe { picomcp_writer_finish(&mut w, &mut n) };
    assert_eq!(st, picomcp_status::BufferTooSmall);
    assert_eq!(n, expect.len());
    build(&mut w, &mut buf);
    // SAFETY: as above.
    let st = unsafe { picomcp_writer_finish(&mut w, &mut n) };
    assert_eq!(st, picomcp_status::Ok);
    assert_eq!(
        &buf[..n].iter().map(|c| *c as u8).collect::<Vec<_>>(),
        expect.as_bytes()
    );
    // Finished: no more calls.
    // SAFETY: `w` is a valid writer struct.
    unsafe {
        assert_eq!(picomcp_writer_null(&mut w), picomcp_status::WriterState);
        assert_eq!(
            picomcp_writer_finish(&mut w, &mut n),
            picomcp_status::WriterState
        );
        // Misuse is refused at the call: a key in an array, a value without a key, a
        // second top-level value, an unbalanced end.
        let misuse: [&dyn Fn(&mut picomcp_writer) -> picomcp_status; 4] = [
            &|w| {
                picomcp_writer_begin_array(w);
                picomcp_writer_key(w, s("k"))
            },
            &|w| {
                picomcp_writer_begin_object(w);
                picomcp_writer_int(w, 1)
            },
            &|w| {
                picomcp_writer_null(w);
                picomcp_writer_null(w)
            },
            &|w| {
                picomcp_writer_begin_object(w);
                picomcp_writer_end_array(w)
            },
        ];
        for f in misuse {
            assert_eq!(
                picomcp_writer_init(&mut w, buf.as_mut_ptr(), buf.len()),
                picomcp_status::Ok
            );
            assert_eq!(f(&mut w), picomcp_status::WriterState);
            assert_eq!(
                picomcp_writer_finish(&mut w, &mut n),
                picomcp_status::WriterState
            );
        }
        // A failed call is sticky.
        assert_eq!(
            picomcp_writer_init(&mut w, buf.as_mut_ptr(), buf.len()),
            picomcp_status::Ok
        );
        assert_eq!(
            picomcp_writer_raw(&mut w, s("{")),
            picomcp_status::InvalidJson
        );
        assert_eq!(picomcp_writer_null(&mut w), picomcp_status::WriterState);
        assert_eq!(
            picomcp_writer_finish(&mut w, &mut n),
            picomcp_status::WriterState
        );
        assert_eq!(
            picomcp_writer_finish(&mut w, &mut n),
            picomcp_status::WriterState
        );
        // Unbalanced, or nothing written.
        assert_eq!(
            picomcp_writer_init(&mut w, buf.as_mut_ptr(), buf.len()),
            picomcp_status::Ok
        );
        picomcp_writer_begin_object(&mut w);
        assert_eq!(
            picomcp_writer_finish(&mut w, &mut n),
            picomcp_status::WriterState
        );
        assert_eq!(
            picomcp_writer_init(&mut w, buf.as_mut_ptr(), buf.len()),
            picomcp_status::Ok
        );
        assert_eq!(
            picomcp_writer_finish(&mut w, &mut n),
            picomcp_status::WriterState
        );
        // Measuring only.
        assert_eq!(
            picomcp_writer_init(&mut w, ptr::null_mut(), 0),
            picomcp_status::Ok
        );
        picomcp_writer_string(&mut w, s("abc"));
        assert_eq!(
            picomcp_writer_finish(&mut w, &mut n),
            picomcp_status::BufferTooSmall
        );
        assert_eq!(n, 5);
        assert_eq!(
            picomcp_writer_null(ptr::null_mut()),
            picomcp_status::NullArgument
        );
    }
}

#[test]
fn status_describe() {
    let mut buf = [0 as core::ffi::c_char; 128];
    let read = |b: &[core::ffi::c_char]| {
        let n = b.iter().position(|c| *c == 0).unwrap();
        String::from_utf8(b[..n].iter().map(|c| *c as u8).collect()).unwrap()
    };
    let mut names = std::collections::HashSet::new();
    for st in picomcp_status::ALL {
        // SAFETY: `buf` is writable.
        let r = unsafe { picomcp_status_describe(*st as i32, buf.as_mut_ptr(), buf.len()) };
        assert_eq!(r, picomcp_status::Ok, "{st:?} does not fit 128 bytes");
        let t = read(&buf);
        assert!(t.starts_with(st.name()), "{t}");
        assert!(names.insert(st.name()));
        assert_eq!(picomcp_status::from_i32(*st as i32), Some(*st));
    }
    // SAFETY: `buf` is writable; NULL with 0 is allowed.
    unsafe {
        assert_eq!(
            picomcp_status_describe(12345, buf.as_mut_ptr(), buf.len()),
            picomcp_status::Ok
        );
        assert!(read(&buf).contains("not a picomcp status"));
        assert_eq!(
            picomcp_status_describe(-1, buf.as_mut_ptr(), 6),
            picomcp_status::BufferTooSmall
        );
        assert_eq!(read(&buf), "PICOM");
        assert_eq!(
            picomcp_status_describe(0, ptr::null_mut(), 0),
            picomcp_status::BufferTooSmall
        );
        assert_eq!(
            picomcp_status_describe(0, ptr::null_mut(), 3),
            picomcp_status::NullArgument
        );
    }
}

#[test]
fn panics_do_not_cross() {
    let r = crate::boundary::boundary(|| panic!("boom"));
    assert_eq!(r, picomcp_status::Panic);
}

#[test]
fn mirrors_of_core_constants() {
    // Capability flags.
    let pairs = [
        (PICOMCP_CAP_TOOLS, Caps::TOOLS),
        (PICOMCP_CAP_TOOLS_LIST_CHANGED, Caps::TOOLS_LIST_CHANGED),
        (PICOMCP_CAP_RESOURCES, Caps::RESOURCES),
        (PICOMCP_CAP_RESOURCES_SUBSCRIBE, Caps::RESOURCES_SUBSCRIBE),
        (
            PICOMCP_CAP_RESOURCES_LIST_CHANGED,
            Caps::RESOURCES_LIST_CHANGED,
        ),
        (PICOMCP_CAP_PROMPTS, Caps::PROMPTS),
        (PICOMCP_CAP_PROMPTS_LIST_CHANGED, Caps::PROMPTS_LIST_CHANGED),
        (PICOMCP_CAP_LOGGING, Caps::LOGGING),
        (PICOMCP_CAP_COMPLETIONS, Caps::COMPLETIONS),
        (PICOMCP_CAP_ROOTS, Caps::ROOTS),
        (PICOMCP_CAP_ROOTS_LIST_CHANGED, Caps::ROOTS_LIST_CHANGED),
        (PICOMCP_CAP_SAMPLING, Caps::SAMPLING),
        (PICOMCP_CAP_ELICITATION, Caps::ELICITATION),
        (PICOMCP_CAP_ELICITATION_FORM, Caps::ELICITATION_FORM),
        (PICOMCP_CAP_ELICITATION_URL, Caps::ELICITATION_URL),
        (PICOMCP_CAP_TASKS, Caps::TASKS),
        (PICOMCP_CAP_TASKS_LIST, Caps::TASKS_LIST),
        (PICOMCP_CAP_TASKS_CANCEL, Caps::TASKS_CANCEL),
        (PICOMCP_CAP_SAMPLING_TOOLS, Caps::SAMPLING_TOOLS),
        (PICOMCP_CAP_SAMPLING_CONTEXT, Caps::SAMPLING_CONTEXT),
    ];
    for (c, core) in pairs {
        assert_eq!(c, core.0);
    }
    // Every revision has a bit; log levels round-trip.
    for v in ProtocolVersion::ALL {
        assert_ne!(convert::version_to_c(v), 0);
    }
    for l in 0..8 {
        let level = convert::log_level_from_c(l).unwrap();
        assert_eq!(convert::log_level_to_c(Some(level)), l);
    }
    assert!(convert::log_level_from_c(8).is_err());
    // The library version matches the crate.
    let v = format!(
        "{PICOMCP_LIB_VERSION_MAJOR}.{PICOMCP_LIB_VERSION_MINOR}.{PICOMCP_LIB_VERSION_PATCH}"
    );
    assert_eq!(v, env!("CARGO_PKG_VERSION"));
}

#[test]
fn modern_era_pair() {
    // Both sides serve every revision: the client probes with server/discover and the
    // connection runs stateless 2026-07-28.
    let mut cc = config(picomcp_role::Client);
    cc.versions = PICOMCP_VERSIONS_ALL;
    let mut sc = config(picomcp_role::Server);
    sc.versions = PICOMCP_VERSIONS_ALL;
    let (mut cm, mut sm) = (Mem::for_config(&cc), Mem::for_config(&sc));
    let (client, server) = (init(&cc, &mut cm), init(&sc, &mut sm));
    let pump = |from: *mut picomcp_session, to: *mut picomcp_session| {
        let lines = drain(from);
        let n = lines.len();
        for l in lines {
            feed(to, 1, &(l + "\n"));
        }
        n
    };
    while pump(client, server) + pump(server, client) > 0 {}
    let mut era = 0;
    // SAFETY: live session, writable out.
    unsafe { picomcp_session_era(client, &mut era) };
    assert_eq!(era, picomcp_era::Modern as u32);
    let cev = events(client);
    assert!(
        cev.iter()
            .any(|e| e.kind == picomcp_event_kind::Negotiated as u32),
        "{cev:?}"
    );
    events(server);

    let mut id = 0;
    // SAFETY: live session; readable strings.
    let st = unsafe {
        picomcp_session_send_request(
            client,
            2,
            s("tools/list"),
            picomcp_str::NONE,
            ptr::null(),
            &mut id,
        )
    };
    assert_eq!(st, picomcp_status::Ok);
    pump(client, server);
    let req = events(server).remove(0);
    assert_eq!(req.kind, picomcp_event_kind::Request as u32);
    let mut info = picomcp_request_info {
        method: 0,
        method_name: picomcp_str::NONE,
        modern: false,
        client_capabilities: 0,
        log_level: 0,
        has_progress_token: false,
        cancelled: false,
    };
    let mut sent = true;
    let mut count = 9;
    // SAFETY: live session; readable strings; writable outs.
    unsafe {
        assert_eq!(
            picomcp_session_request_info(server, req.id, &mut info),
            picomcp_status::Ok
        );
        assert!(info.modern);
        assert_eq!(text(info.method_name), "tools/list");
        assert_eq!(info.log_level, picomcp_log_level::None as u32);
        // No log level asked for: nothing is sent.
        assert_eq!(
            picomcp_session_log_for_text(
                server,
                req.id,
                picomcp_log_level::Error as u32,
                picomcp_str::NONE,
                s("x"),
                &mut sent
            ),
            picomcp_status::Ok
        );
        assert!(!sent);
        assert_eq!(
            picomcp_session_respond(server, req.id, s(r#"{"tools":[]}"#)),
            picomcp_status::Ok
        );
        assert_eq!(
            picomcp_session_request_info(server, req.id, &mut info),
            picomcp_status::UnknownRequest
        );
        // Nobody listens: nothing is queued.
        assert_eq!(
            picomcp_session_notify(
                server,
                picomcp_change::ToolsListChanged as u32,
                picomcp_str::NONE,
                &mut count
            ),
            picomcp_status::Ok
        );
        assert_eq!(count, 0);
        assert_eq!(
            picomcp_session_notify(
                server,
                picomcp_change::ResourceUpdated as u32,
                picomcp_str::NONE,
                &mut count
            ),
            picomcp_status::BadChange
        );
        assert_eq!(
            picomcp_session_notify(
                server,
                picomcp_change::PromptsListChanged as u32,
                picomcp_str::NONE,
                &mut count
            ),
            picomcp_status::NotNegotiated
        );
        assert_eq!(
            picomcp_session_notify(server, 77, picomcp_str::NONE, &mut count),
            picomcp_status::BadChange
        );
    }
    pump(server, client);
    let evs = events(client);
    assert_eq!(evs[0].kind, picomcp_event_kind::Response as u32, "{evs:?}");
    assert_eq!(evs[0].id, id);
    assert!(evs[0].json.contains("\"tools\":[]"), "{evs:?}");
    deinit(client);
    deinit(server);
}

/// The callback of the respond_with test: echoes the request's `text` param (read from
/// the event view through `ctx`) as `{"echo":TEXT,"n":[1,2]}`, or misbehaves.
unsafe extern "C" fn write_echo(w: *mut picomcp_writer, ctx: *mut core::ffi::c_void) {
    // SAFETY: the test passes a pointer to a (mode, view) pair that outlives the call.
    let (mode, params) = unsafe { *ctx.cast::<(u32, picomcp_str)>() };
    let mut text = picomcp_str::NONE;
    // SAFETY: `w` is the writer the library lent; the params view is still valid.
    unsafe {
        picomcp_json_get(params, s("text"), &mut text);
        match mode {
            0 => {
                picomcp_writer_begin_object(w);
                picomcp_writer_key(w, s("echo"));
                picomcp_writer_raw(w, text);
                picomcp_writer_key(w, s("n"));
                picomcp_writer_begin_array(w);
                picomcp_writer_int(w, 1);
                picomcp_writer_int(w, 2);
                picomcp_writer_end_array(w);
                picomcp_writer_end_object(w);
            }
            1 => {
                // Unbalanced.
                picomcp_writer_begin_object(w);
                picomcp_writer_key(w, s("x"));
            }
            2 => {
                // Not an object.
                picomcp_writer_int(w, 7);
            }
            _ => {
                // A finish is not the callback's to call.
                let mut n = 0;
                picomcp_writer_begin_object(w);
                picomcp_writer_end_object(w);
                picomcp_writer_finish(w, &mut n);
            }
        }
    }
}

#[test]
fn respond_with_writes_into_the_queue() {
    let mut mem = Mem(Vec::new());
    let sess = ready_server(&mut mem);
    feed(
        sess,
        1,
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"text\":\"a\\\"b\"}}\n",
    );
    let mut e = picomcp_event::EMPTY;
    // SAFETY: live session; writable event.
    unsafe { picomcp_session_poll_event(sess, &mut e) };
    let id = e.id;
    for (mode, want) in [
        (1u32, picomcp_status::WriterState),
        (2, picomcp_status::WriterState),
        (3, picomcp_status::WriterState),
        (0, picomcp_status::Ok),
    ] {
        let mut ctx = (mode, e.json);
        // SAFETY: live session; the callback and its context are valid for the call.
        let st = unsafe {
            picomcp_session_respond_with(
                sess,
                id,
                Some(write_echo),
                (&mut ctx as *mut (u32, picomcp_str)).cast(),
            )
        };
        assert_eq!(st, want, "mode {mode}");
        if mode != 0 {
            assert!(drain(sess).is_empty(), "mode {mode} sent something");
        }
    }
    assert_eq!(
        drain(sess),
        [r#"{"jsonrpc":"2.0","id":1,"result":{"echo":"a\"b","n":[1,2]}}"#]
    );
    // SAFETY: live session.
    unsafe {
        assert_eq!(
            picomcp_session_respond_with(sess, id, Some(write_echo), ptr::null_mut()),
            picomcp_status::UnknownRequest
        );
        assert_eq!(
            picomcp_session_respond_with(sess, id, None, ptr::null_mut()),
            picomcp_status::NullArgument
        );
    }
    deinit(sess);
}
