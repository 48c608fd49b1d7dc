//! Caller memory and caller mistakes: sessions in zeroed memory and on the heap, NULL
//! pointers and bad memory refused with a status (never a crash), output buffers too
//! small and the zero-copy transmit view, and the panic boundary.

use core::ptr;

use super::{INIT, INITIALIZED, Mem, config, deinit, drain, events, feed, ready_server, s, text};
use crate::*;

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
fn panics_do_not_cross() {
    let r = crate::boundary::boundary(|| panic!("boom"));
    assert_eq!(r, picomcp_status::Panic);
}
