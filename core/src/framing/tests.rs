extern crate std;
use std::string::String;
use std::vec::Vec;
use std::{format, vec};

use super::*;

/// An owned copy of a frame, comparable across calls.
#[derive(Debug, Clone, PartialEq, Eq)]
enum F {
    Line(String),
    Bad(Vec<u8>, Option<String>),
    Long(usize, Option<String>),
}

fn own(f: Frame<'_>) -> F {
    let id = |i: Option<Id<'_>>| i.map(|i| String::from(i.as_raw()));
    match f {
        Frame::Line(l) => F::Line(l.into()),
        Frame::InvalidUtf8 { line, id: i } => F::Bad(line.to_vec(), id(i)),
        Frame::TooLong { limit, id: i } => F::Long(limit, id(i)),
    }
}

fn line(s: &str) -> F {
    F::Line(s.into())
}

/// Feeds the chunks in order, each until consumed; returns the frames.
fn run<B: AsRef<[u8]> + AsMut<[u8]>>(dec: &mut LineDecoder<B>, chunks: &[&[u8]]) -> Vec<F> {
    let mut out = Vec::new();
    for chunk in chunks {
        let mut input: &[u8] = chunk;
        while !input.is_empty() {
            let d = dec.decode(input);
            assert!(d.consumed > 0 && d.consumed <= input.len());
            if let Some(f) = d.frame {
                out.push(own(f));
            }
            input = &input[d.consumed..];
        }
    }
    out
}

/// [`run`] with [`LineDecoder::decode_bytes`], each line checked afterwards (as the
/// session does, after the decoder's next calls would have been made: the frame is owned
/// first, then validated, to show it keeps nothing of the decoder's state).
fn run_bytes<B: AsRef<[u8]> + AsMut<[u8]>>(dec: &mut LineDecoder<B>, chunks: &[&[u8]]) -> Vec<F> {
    let mut out = Vec::new();
    for chunk in chunks {
        let mut input: &[u8] = chunk;
        while !input.is_empty() {
            let d = dec.decode_bytes(input);
            assert!(d.consumed > 0 && d.consumed <= input.len());
            if let Some(f) = d.frame {
                if let RawFrame::Line(l) = f {
                    assert_eq!(l, RawLine::new(l.as_bytes()));
                    assert_eq!(
                        l.to_str().ok().map(str::as_bytes),
                        core::str::from_utf8(l.as_bytes()).ok().map(str::as_bytes)
                    );
                }
                out.push(own(f.validate(64)));
            }
            input = &input[d.consumed..];
        }
    }
    out
}

/// [`run`] the way `Session::handle_bytes` feeds: `take_partial` first.
fn run_partial(dec: &mut LineDecoder<Vec<u8>>, chunks: &[&[u8]]) -> Vec<F> {
    let mut out = Vec::new();
    for chunk in chunks {
        let mut input: &[u8] = chunk;
        while !input.is_empty() {
            if dec.take_partial(input) {
                break;
            }
            let d = dec.decode(input);
            assert!(d.consumed > 0 && d.consumed <= input.len());
            if let Some(f) = d.frame {
                out.push(own(f));
            }
            input = &input[d.consumed..];
        }
    }
    out
}

/// The frames of `stream` fed whole, byte by byte and in 3-byte chunks, with and
/// without the `take_partial` fast path (all equal).
fn frames(cap: usize, stream: &[u8]) -> Vec<F> {
    let whole = run(&mut LineDecoder::new(vec![0u8; cap], 64), &[stream]);
    for n in [1, 2, 3, 7] {
        let chunks: Vec<&[u8]> = stream.chunks(n).collect();
        assert_eq!(
            run_partial(&mut LineDecoder::new(vec![0u8; cap], 64), &chunks),
            whole,
            "{n}-byte chunks through take_partial"
        );
    }
    let bytes: Vec<&[u8]> = stream.chunks(1).collect();
    assert_eq!(
        run(&mut LineDecoder::new(vec![0u8; cap], 64), &bytes),
        whole,
        "byte by byte"
    );
    assert_eq!(
        run_bytes(&mut LineDecoder::new(vec![0u8; cap], 64), &[stream]),
        whole,
        "byte frames, whole"
    );
    assert_eq!(
        run_bytes(&mut LineDecoder::new(vec![0u8; cap], 64), &bytes),
        whole,
        "byte frames, byte by byte"
    );
    let threes: Vec<&[u8]> = stream.chunks(3).collect();
    assert_eq!(
        run(&mut LineDecoder::new(vec![0u8; cap], 64), &threes),
        whole,
        "3-byte chunks"
    );
    whole
}

#[test]
fn lines_crlf_and_blank_lines() {
    assert_eq!(
        frames(
            64,
            b"{\"a\":1}\n[2]\r\n\n\r\n   \n\t \r\n \r \n  x  \n\"a\r\"\r\n"
        ),
        [
            line("{\"a\":1}"),
            line("[2]"),
            line("  x  "),
            line("\"a\r\"")
        ]
    );
    // Only one trailing \r is stripped; lines of \r alone are blank.
    assert_eq!(frames(64, b"a\r\r\n\r\r\n"), [line("a\r")]);
    // A final line without \n stays buffered.
    let mut dec = LineDecoder::new([0u8; 32], 64);
    assert_eq!(run(&mut dec, &[b"1\n2\n{\"x\""]), [line("1"), line("2")]);
    assert_eq!(dec.buffered(), 4);
    assert_eq!(run(&mut dec, &[b":3}\n"]), [line("{\"x\":3}")]);
    assert_eq!(dec.buffered(), 0);
}

#[test]
fn consumes_through_one_newline() {
    let mut dec = LineDecoder::new([0u8; 32], 64);
    let d = dec.decode(b"ab\ncd\n");
    assert_eq!(
        d,
        Decoded {
            consumed: 3,
            frame: Some(Frame::Line("ab"))
        }
    );
    let d = dec.decode(b"\ncd\n");
    assert_eq!(
        d,
        Decoded {
            consumed: 1,
            frame: None
        }
    );
    let d = dec.decode(b"");
    assert_eq!(
        d,
        Decoded {
            consumed: 0,
            frame: None
        }
    );
    let d = dec.decode(b"abc");
    assert_eq!(
        d,
        Decoded {
            consumed: 3,
            frame: None
        }
    );
    assert_eq!(dec.buffered(), 3);
    dec.reset();
    assert_eq!(dec.buffered(), 0);
    assert_eq!(dec.decode(b"z\n").frame, Some(Frame::Line("z")));
    assert_eq!(dec.max_line(), 32);
}

#[test]
fn complete_lines_are_borrowed_from_the_input() {
    let input = b"{\"jsonrpc\":\"2.0\",\"method\":\"x\"}\r\nrest";
    let range = input.as_ptr_range();
    let mut dec = LineDecoder::new([0u8; 64], 64);
    let d = dec.decode(input);
    let Some(Frame::Line(l)) = d.frame else {
        panic!()
    };
    assert_eq!(l, "{\"jsonrpc\":\"2.0\",\"method\":\"x\"}");
    assert_eq!(l.as_ptr(), input.as_ptr(), "not copied");
    assert!(range.contains(&l.as_ptr()));
    // After a partial line the rest is completed in the buffer (copied once).
    let mut dec = LineDecoder::new([0u8; 64], 64);
    assert_eq!(dec.decode(b"{\"a\"").frame, None);
    let tail = b":1}\n";
    let d = dec.decode(tail);
    let Some(Frame::Line(l)) = d.frame else {
        panic!()
    };
    assert_eq!(l, "{\"a\":1}");
    assert!(!tail.as_ptr_range().contains(&l.as_ptr()));
    // Invalid UTF-8 lines are borrowed as well.
    let bad = b"\xff\n";
    let mut dec = LineDecoder::new([0u8; 64], 64);
    let Some(Frame::InvalidUtf8 { line, id: None }) = dec.decode(bad).frame else {
        panic!()
    };
    assert_eq!(line.as_ptr(), bad.as_ptr());
}

#[test]
fn overlong_lines_are_reported_once_with_their_id() {
    let cap = 16;
    // The id fits in the first 16 bytes.
    let s = b"{\"id\":7,\"method\":\"aaaaaaaaaaaaaaaaaaaa\"}\n{\"a\":1}\n";
    assert_eq!(
        frames(cap, s),
        [F::Long(cap, Some("7".into())), line("{\"a\":1}")]
    );
    // It does not.
    let s = b"{\"jsonrpc\":\"2.0\",\"id\":7}\n[]\n";
    assert_eq!(frames(cap, s), [F::Long(cap, None), line("[]")]);
    // The cut falls inside a numeric id: no id rather than a wrong one.
    let s = b"{\"id\":1234567890123,\"method\":\"m\"}\n";
    assert_eq!(&s[..cap], b"{\"id\":1234567890");
    assert_eq!(frames(cap, s), [F::Long(cap, None)]);
    // String ids are complete once closed.
    let s = b"{\"id\":\"abcdefgh\"\"method\":\"m\"}\n";
    assert_eq!(frames(cap, s), [F::Long(cap, Some("\"abcdefgh\"".into()))]);
    // Exactly the limit is fine; a \r counts toward it.
    let exact = b"[\"0123456789ab\"]\n";
    assert_eq!(exact.len(), cap + 1);
    assert_eq!(frames(cap, exact), [line("[\"0123456789ab\"]")]);
    assert_eq!(frames(cap, b"[\"0123456789ab\"]\r\n"), [F::Long(cap, None)]);
    assert_eq!(frames(cap, b"[\"0123456789abc\"]\n"), [F::Long(cap, None)]);
    // Long blank lines are still too long; several in a row are each reported once.
    let spaces = [b' '; 40];
    let mut s = spaces.to_vec();
    s.push(b'\n');
    s.extend_from_slice(&s.clone());
    s.extend_from_slice(b"1\n");
    assert_eq!(
        frames(cap, &s),
        [F::Long(cap, None), F::Long(cap, None), line("1")]
    );
}

#[test]
fn overlong_line_without_newline_is_discarded_until_one_arrives() {
    let mut dec = LineDecoder::new([0u8; 8], 64);
    let d = dec.decode(b"{\"id\":1,\"x\":\"");
    assert_eq!(d.consumed, 13);
    assert_eq!(own(d.frame.unwrap()), F::Long(8, Some("1".into())));
    assert!(dec.is_discarding());
    assert_eq!(dec.buffered(), 0);
    assert_eq!(
        dec.decode(b"more more more"),
        Decoded {
            consumed: 14,
            frame: None
        }
    );
    assert_eq!(
        dec.decode(b"end\"}\n[1]\n"),
        Decoded {
            consumed: 6,
            frame: None
        }
    );
    assert!(!dec.is_discarding());
    assert_eq!(dec.decode(b"[1]\n").frame, Some(Frame::Line("[1]")));
    // reset() also ends discarding.
    let _ = dec.decode(b"0123456789");
    assert!(dec.is_discarding());
    dec.reset();
    assert!(!dec.is_discarding());
    assert_eq!(dec.decode(b"2\n").frame, Some(Frame::Line("2")));
}

#[test]
fn invalid_utf8_is_reported_with_the_id() {
    let s = b"{\"id\":3,\"x\":\"\xff\"}\r\n{\"id\":\"\xc3\x28\"}\n\"\xe2\x82\"\n[1]\n";
    assert_eq!(
        frames(64, s),
        [
            F::Bad(b"{\"id\":3,\"x\":\"\xff\"}".to_vec(), Some("3".into())),
            F::Bad(b"{\"id\":\"\xc3\x28\"}".to_vec(), None),
            F::Bad(b"\"\xe2\x82\"".to_vec(), None),
            line("[1]"),
        ]
    );
    // Valid multi-byte text split across chunks is reassembled.
    let mut dec = LineDecoder::new([0u8; 64], 64);
    assert_eq!(
        run(&mut dec, &[b"[\"\xc3", b"\xa9\"]\n"]),
        [line("[\"é\"]")]
    );
}

#[test]
fn the_utf8_check_past_a_line_end_changes_no_frame() {
    // A line borrowed from the input is checked in whole 64-byte blocks that may run
    // on into the next line; whatever that holds (invalid bytes, a character cut by
    // the block's end, a CRLF), each line's frame is its own, and the same as when the
    // stream comes byte by byte (lines assembled in the buffer, checked alone).
    let followers: [&[u8]; 6] = [
        b"\xff\xfe",
        "\u{e9}\u{20ac}\u{1f600}".as_bytes(),
        b"\xe2\x82",
        b"\r",
        b"   x",
        b"\xed\xa0\x80",
    ];
    for len in [0, 1, 2, 30, 61, 62, 63, 64, 65, 100, 126, 127, 128, 129] {
        for (k, follower) in followers.iter().enumerate() {
            for pad in 0..=66 {
                let first = format!("[\"{}\u{e9}\"]", "a".repeat(len));
                let mut second = vec![b'b'; pad];
                second.extend_from_slice(follower);
                let mut s = first.clone().into_bytes();
                s.extend_from_slice(if k % 2 == 0 { b"\n" } else { b"\r\n" });
                s.extend_from_slice(&second);
                s.extend_from_slice(b"\n1\n");
                let got = frames(256, &s);
                assert_eq!(got[0], line(&first), "len {len} follower {k} pad {pad}");
                assert_eq!(got.last(), Some(&line("1")));
                let second = second.strip_suffix(b"\r").unwrap_or(&second);
                match core::str::from_utf8(second) {
                    Ok(t) if t.trim_matches([' ', '\t', '\r']).is_empty() => {
                        assert_eq!(got.len(), 2)
                    }
                    Ok(t) => assert_eq!(got[1], line(t)),
                    Err(_) => assert_eq!(got[1], F::Bad(second.to_vec(), None)),
                }
            }
        }
    }
}

#[test]
fn keep_replays_the_buffered_frame_unchanged() {
    // A line completed in the buffer.
    let mut dec = LineDecoder::new([0u8; 16], 64);
    assert_eq!(dec.decode(b"[1,").frame, None);
    assert_eq!(dec.decode(b"2]\nx").frame, Some(Frame::Line("[1,2]")));
    assert!(dec.buffered_line());
    dec.keep();
    assert_eq!(
        dec.decode(b"x"),
        Decoded {
            consumed: 0,
            frame: Some(Frame::Line("[1,2]"))
        }
    );
    assert_eq!(dec.decode(b"3\n").frame, Some(Frame::Line("3")));
    // Overlong lines stay overlong (completed in the buffer, and cut without a newline).
    // (chunks, frames of "tail\n[]\n" afterwards: the rest of the overlong line is
    // still skipped when its newline has not been seen yet)
    for (chunks, after) in [
        (
            &[&b"{\"id\":5,"[..], b"\"x\":\"abcdefghij\"}\n"][..],
            &[line("tail"), line("[]")][..],
        ),
        (&[b"{\"id\":5,\"x\":\"abcdefghij"], &[line("[]")]),
    ] {
        let mut dec = LineDecoder::new([0u8; 16], 64);
        let mut last = None;
        for c in chunks {
            last = dec.decode(c).frame.map(own);
        }
        assert_eq!(last, Some(F::Long(16, Some("5".into()))));
        dec.keep();
        assert_eq!(
            dec.decode(b"").frame.map(own),
            Some(F::Long(16, Some("5".into())))
        );
        assert_eq!(run(&mut dec, &[b"tail\n[]\n"]), after);
    }
    // No effect on a frame borrowed from the input.
    let mut dec = LineDecoder::new([0u8; 16], 64);
    assert_eq!(dec.decode(b"1\n").frame, Some(Frame::Line("1")));
    assert!(!dec.buffered_line());
    dec.keep();
    assert_eq!(dec.decode(b"2\n").frame, Some(Frame::Line("2")));
}

#[test]
fn zero_capacity_decoder() {
    // Every non-empty line is too long, a lone \r included.
    assert_eq!(
        frames(0, b"\n\r\nx\n\n"),
        [F::Long(0, None), F::Long(0, None)]
    );
}

#[test]
fn memchr_nl_matches_a_plain_search() {
    let mut hay = [0u8; 80];
    for (i, b) in hay.iter_mut().enumerate() {
        // bytes that stress the word trick: 0x0a +/- 1, high bit set, zero
        *b = [0x0b, 0x09, 0x8a, 0x00, 0xff, 0x80, b'a', 0x8b][i % 8];
    }
    for len in 0..hay.len() {
        for nl in 0..=len {
            let mut h = hay[..len].to_vec();
            if nl < len {
                h[nl] = b'\n';
            }
            let want = h.iter().position(|&c| c == b'\n');
            assert_eq!(memchr_nl(&h), want, "len {len} nl {nl}");
            assert_eq!(memchr_nl_own(&h), want, "own: len {len} nl {nl}");
        }
    }
    let two = format!("{}\n{}\n", "x".repeat(17), "y".repeat(3));
    assert_eq!(memchr_nl(two.as_bytes()), Some(17));
    assert_eq!(memchr_nl_own(two.as_bytes()), Some(17));
}

#[test]
fn byte_frames_borrow_and_validate_like_str_frames() {
    let input = b"{\"id\":9,\"x\":\"\xff\"}\r\n[\"\xc3\xa9\"]\n";
    let mut dec = LineDecoder::new([0u8; 64], 64);
    let d = dec.decode_bytes(input);
    assert_eq!(d.consumed, 18);
    let Some(RawFrame::Line(l)) = d.frame else {
        panic!()
    };
    assert_eq!(l.as_bytes(), b"{\"id\":9,\"x\":\"\xff\"}");
    assert_eq!(l.as_bytes().as_ptr(), input.as_ptr(), "not copied");
    assert_eq!(l.to_str(), Err(13));
    assert_eq!(
        own(l.validate(64)),
        F::Bad(l.as_bytes().to_vec(), Some("9".into()))
    );
    assert_eq!(format!("{l:?}"), format!("RawLine({:?})", l.as_bytes()));
    let d = dec.decode_bytes(&input[18..]);
    let Some(RawFrame::Line(l)) = d.frame else {
        panic!()
    };
    assert_eq!(l.to_str(), Ok("[\"é\"]"));
    assert_eq!(format!("{l:?}"), "RawLine(\"[\\\"é\\\"]\")");
    // A kept line comes back as bytes too; overlong lines are the same frame.
    let mut dec = LineDecoder::new([0u8; 8], 64);
    assert_eq!(dec.decode_bytes(b"[1,").frame, None);
    let d = dec.decode_bytes(b"2]\n");
    assert_eq!(d.frame, Some(RawFrame::Line(RawLine::new(b"[1,2]"))));
    dec.keep();
    let d = dec.decode_bytes(b"");
    assert_eq!(
        (d.consumed, d.frame),
        (0, Some(RawFrame::Line(RawLine::new(b"[1,2]"))))
    );
    let d = dec.decode_bytes(b"{\"id\":4,\"a\":1}\n");
    let f = d.frame.unwrap();
    assert!(matches!(
        f,
        RawFrame::TooLong {
            limit: 8,
            id: Some(_)
        }
    ));
    assert_eq!(own(f.validate(64)), F::Long(8, Some("4".into())));
}
