//! A server session's side of requests: the request event and its views, answers and
//! the statuses of answering wrong (twice, stale handles, wrong phase), answers written
//! by a `picomcp_session_respond_with` callback straight into the queue (and the
//! callbacks that misbehave), and the peer's violations as events.

use core::ptr;

use super::{Mem, deinit, drain, events, feed, ready_server, s};
use crate::*;

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
