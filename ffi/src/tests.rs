//! Rust-side tests of the C ABI. They call the `extern "C"` functions through raw
//! pointers exactly as C does, so `cargo +nightly miri test -p picomcp-ffi` checks the
//! placement, the views and the writer for undefined behaviour and leaks. Sizes are
//! small so Miri stays fast.
//!
//! The helpers below (configurations, caller memory, feeding and draining a session, its
//! events) are shared; the tests are grouped by behaviour in the modules.

mod auth;
mod constants;
mod generate;
mod http;
mod json;
mod memory;
mod pair;
mod requests;
mod server;
mod subscribe;

use core::ptr;

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
