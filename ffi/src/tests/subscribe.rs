//! `picomcp_session_is_subscribed`: what lets a host keep a resource's change timer (and
//! so a `poll` deadline) only while somebody listens.

use core::ptr;

use super::{INIT, INITIALIZED, Mem, config, deinit, drain, events, feed, init, s};
use crate::*;

fn subscribed(sess: *mut picomcp_session, uri: &str) -> bool {
    let mut out = true;
    // SAFETY: live session; readable string; writable out.
    let st = unsafe { picomcp_session_is_subscribed(sess, s(uri), &mut out) };
    assert_eq!(st, picomcp_status::Ok);
    out
}

#[test]
fn is_subscribed_follows_subscribe_and_unsubscribe() {
    let mut c = config(picomcp_role::Server);
    c.capabilities = s(r#"{"resources":{"subscribe":true}}"#);
    let mut mem = Mem::for_config(&c);
    let sess = init(&c, &mut mem);
    feed(sess, 0, INIT);
    feed(sess, 0, INITIALIZED);
    drain(sess);
    events(sess);
    assert!(!subscribed(sess, "test://a"));

    feed(
        sess,
        1,
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/subscribe\",\"params\":{\"uri\":\"test://a\"}}\n",
    );
    assert_eq!(drain(sess).len(), 1, "the core answers the subscription");
    assert!(subscribed(sess, "test://a"));
    assert!(!subscribed(sess, "test://b"));
    let mut count = 0;
    // SAFETY: live session; readable string; writable out.
    let st = unsafe {
        picomcp_session_notify(
            sess,
            picomcp_change::ResourceUpdated as u32,
            s("test://a"),
            &mut count,
        )
    };
    assert_eq!(
        (st, count),
        (picomcp_status::Ok, 1),
        "true means notify sends"
    );

    feed(
        sess,
        2,
        "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"resources/unsubscribe\",\"params\":{\"uri\":\"test://a\"}}\n",
    );
    drain(sess);
    assert!(!subscribed(sess, "test://a"));

    // Caller mistakes are statuses.
    let mut out = false;
    // SAFETY: deliberate misuse the library must report: NULL out, NULL string with a
    // length, bytes that are not UTF-8, a NULL session.
    unsafe {
        assert_eq!(
            picomcp_session_is_subscribed(sess, s("test://a"), ptr::null_mut()),
            picomcp_status::NullArgument
        );
        let bad = picomcp_str {
            ptr: ptr::null(),
            len: 3,
        };
        assert_eq!(
            picomcp_session_is_subscribed(sess, bad, &mut out),
            picomcp_status::NullArgument
        );
        let not_utf8 = [0xffu8, 0xfe];
        let raw = picomcp_str {
            ptr: not_utf8.as_ptr().cast(),
            len: 2,
        };
        assert_eq!(
            picomcp_session_is_subscribed(sess, raw, &mut out),
            picomcp_status::InvalidUtf8
        );
        assert_eq!(
            picomcp_session_is_subscribed(ptr::null_mut(), s("x"), &mut out),
            picomcp_status::NullArgument
        );
    }
    deinit(sess);
}
