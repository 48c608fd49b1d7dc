//! The JSON readers (types, members, pointers, indexes, numbers, strings, escapes) and
//! the writer (every value kind, the grammar checks, sticky failures, measuring without a
//! buffer).

use core::ptr;

use super::{s, text};
use crate::*;

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
