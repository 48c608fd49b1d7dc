//! Newline framing for stdio and serial links: bytes in, complete lines out.

use crate::jsonrpc::{Id, peek_id};

/// One result of [`LineDecoder::decode`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Frame<'a> {
    /// A complete line: no `\n`, trailing `\r` stripped, never empty or only whitespace,
    /// valid UTF-8.
    Line(&'a str),
    /// A line that is not valid UTF-8. `id` is the request id read from the part before
    /// the problem, if any.
    InvalidUtf8 {
        /// The raw line.
        line: &'a [u8],
        /// The request id, when it could be read.
        id: Option<Id<'a>>,
    },
    /// A line longer than the limit. It is discarded up to its `\n`; `id` is the request id
    /// read from the first `limit` bytes, when possible, so the request can be answered.
    TooLong {
        /// The configured maximum.
        limit: usize,
        /// The request id, when it could be read.
        id: Option<Id<'a>>,
    },
}

/// What [`LineDecoder::decode`] did with the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decoded<'a> {
    /// Bytes of the input taken; offer the rest in the next call.
    pub consumed: usize,
    /// The frame completed by those bytes, if any.
    pub frame: Option<Frame<'a>>,
}

/// Splits a byte stream into lines with a bounded buffer.
///
/// Complete lines found inside the caller's chunk are returned without copying; only a
/// partial line at the end of a chunk is copied into the buffer, whose size is the maximum
/// line length. A longer line is reported once as [`Frame::TooLong`] and skipped up to
/// its `\n`; the next line is decoded normally. Feeding a stream in one chunk or byte by
/// byte yields the same frames.
///
/// ```
/// use picomcp::framing::{Frame, LineDecoder};
/// let mut dec = LineDecoder::new([0u8; 64], 8);
/// let mut input: &[u8] = b"{\"a\":1}\r\n\n  \n[1,";
/// let mut lines = 0;
/// while !input.is_empty() {
///     let d = dec.decode(input);
///     if let Some(Frame::Line(l)) = d.frame { assert_eq!(l, "{\"a\":1}"); lines += 1; }
///     input = &input[d.consumed..];
/// }
/// assert_eq!(lines, 1);
/// assert_eq!(dec.buffered(), 3); // "[1," waits for the rest of its line
/// ```
pub struct LineDecoder<B> {
    buf: B,
    len: usize,
    max_depth: usize,
    discarding: bool,
    /// The last frame borrowed the buffer: clear it at the next call.
    release: bool,
    /// The buffer holds a complete line kept with `keep`: return it again.
    complete: bool,
    /// The frame in the buffer is [`Frame::TooLong`] (its first `max_line` bytes).
    too_long: bool,
}

impl<B: AsRef<[u8]> + AsMut<[u8]>> LineDecoder<B> {
    /// A decoder whose maximum line length is `buf`'s length. `max_depth` bounds the
    /// nesting the id reader will look through in an overlong or invalid line.
    pub fn new(buf: B, max_depth: usize) -> Self {
        LineDecoder {
            buf,
            len: 0,
            max_depth,
            discarding: false,
            release: false,
            complete: false,
            too_long: false,
        }
    }

    /// The maximum line length (the buffer size).
    pub fn max_line(&self) -> usize {
        self.buf.as_ref().len()
    }

    /// Bytes of an incomplete line held in the buffer.
    pub fn buffered(&self) -> usize {
        if self.release { 0 } else { self.len }
    }

    /// True when the last frame returned was assembled in the buffer (rather than
    /// borrowed from the input).
    pub fn buffered_line(&self) -> bool {
        self.release
    }

    /// Keeps the line the last call returned from the buffer, so the next call returns
    /// it again (with `consumed == 0`). Used for backpressure: the caller could not take
    /// the line yet. Has no effect when the last frame did not come from the buffer.
    pub fn keep(&mut self) {
        if self.release {
            self.release = false;
            self.complete = true;
        }
    }

    /// What the next [`decode`](Self::decode) call on `input` would produce, without
    /// consuming anything: `None` when it would only buffer or discard bytes, otherwise
    /// the length of the line it would return (0 for an overlong line) and whether that
    /// line starts with `[` (a batch). Lets a caller check it has room for the frame
    /// before taking the bytes.
    pub fn peek(&self, input: &[u8]) -> Option<Peeked> {
        let cap = self.buf.as_ref().len();
        let held = if self.release { 0 } else { self.len };
        if self.complete {
            return Some(Peeked {
                line_len: if self.too_long { 0 } else { self.len },
                batch: starts_batch(&self.buf.as_ref()[..self.len], &[]),
            });
        }
        if self.discarding {
            return None;
        }
        let head = &self.buf.as_ref()[..held];
        match memchr_nl(input) {
            Some(i) if held + i > cap => Some(Peeked {
                line_len: 0,
                batch: false,
            }),
            Some(i) => Some(Peeked {
                line_len: held + i,
                batch: starts_batch(head, &input[..i]),
            }),
            None if held + input.len() > cap => Some(Peeked {
                line_len: 0,
                batch: false,
            }),
            None => None,
        }
    }

    /// True while skipping the rest of an overlong line.
    pub fn is_discarding(&self) -> bool {
        self.discarding
    }

    /// Forgets any partial line (for example after end of stream).
    pub fn reset(&mut self) {
        self.len = 0;
        self.discarding = false;
        self.release = false;
        self.complete = false;
        self.too_long = false;
    }

    /// The fast path for input that ends no line: takes all of `input` and returns true
    /// when it has no `\n` and fits the buffer (it is stored) or the rest of an overlong
    /// line is being skipped (it is dropped). Otherwise takes nothing and returns false:
    /// [`decode`](Self::decode) it. A UART hands the session a byte or a few at a time,
    /// and this keeps the per-call cost of those to a search and a copy.
    #[inline]
    pub fn take_partial(&mut self, input: &[u8]) -> bool {
        if self.complete || memchr_nl(input).is_some() {
            return false;
        }
        if self.discarding {
            return true;
        }
        if self.release {
            self.len = 0;
            self.release = false;
        }
        let len = self.len;
        match self.buf.as_mut().get_mut(len..len + input.len()) {
            Some(room) => {
                room.copy_from_slice(input);
                self.len += input.len();
                true
            }
            None => false,
        }
    }

    /// Takes bytes from `input` up to and including the end of the next line and returns
    /// that line, if one was completed. Call again with the unconsumed rest. A returned
    /// frame may borrow the decoder's buffer until the next call.
    pub fn decode<'a>(&'a mut self, input: &'a [u8]) -> Decoded<'a> {
        let cap = self.buf.as_ref().len();
        let nl = if self.complete {
            None
        } else {
            memchr_nl(input)
        };
        // The common case first: no partial line held (or only the last frame, now
        // released), nothing to replay or skip, and a whole line in the input that fits.
        // It is borrowed from the input; the line rules are inlined here. (Hosts only:
        // on bare-metal targets the general path below does the same for less flash.)
        #[cfg(not(target_os = "none"))]
        if let Some(i) = nl
            && i <= cap
            && !self.discarding
            && (self.len == 0 || self.release)
        {
            self.len = 0;
            self.release = false;
            return Decoded {
                consumed: i + 1,
                frame: finish_line_inline(&input[..i], input, self.max_depth),
            };
        }
        if self.complete {
            self.complete = false;
            self.release = true;
            let md = self.max_depth;
            let buf = &self.buf.as_ref()[..self.len];
            let frame = if self.too_long {
                let id = peek_id(buf, md);
                Some(Frame::TooLong {
                    limit: self.buf.as_ref().len(),
                    id,
                })
            } else {
                finish_line(buf, md)
            };
            return Decoded { consumed: 0, frame };
        }
        if self.release {
            self.len = 0;
            self.release = false;
        }
        if self.discarding {
            return match nl {
                Some(i) => {
                    self.discarding = false;
                    Decoded {
                        consumed: i + 1,
                        frame: None,
                    }
                }
                None => Decoded {
                    consumed: input.len(),
                    frame: None,
                },
            };
        }
        match nl {
            Some(i) if self.len == 0 => {
                let line = &input[..i];
                if line.len() > cap {
                    let id = peek_id(&line[..cap], self.max_depth);
                    return Decoded {
                        consumed: i + 1,
                        frame: Some(Frame::TooLong { limit: cap, id }),
                    };
                }
                Decoded {
                    consumed: i + 1,
                    frame: finish_line(line, self.max_depth),
                }
            }
            Some(i) => {
                let total = self.len + i;
                let take = i.min(cap - self.len);
                let len = self.len;
                self.buf.as_mut()[len..len + take].copy_from_slice(&input[..take]);
                self.len += take;
                self.release = true;
                self.too_long = total > cap;
                let md = self.max_depth;
                let buf = &self.buf.as_ref()[..self.len];
                if total > cap {
                    let id = peek_id(buf, md);
                    return Decoded {
                        consumed: i + 1,
                        frame: Some(Frame::TooLong { limit: cap, id }),
                    };
                }
                Decoded {
                    consumed: i + 1,
                    frame: finish_line(buf, md),
                }
            }
            None => {
                let space = cap - self.len;
                let len = self.len;
                if input.len() <= space {
                    self.buf.as_mut()[len..len + input.len()].copy_from_slice(input);
                    self.len += input.len();
                    return Decoded {
                        consumed: input.len(),
                        frame: None,
                    };
                }
                // Overflow without a newline: report now, then skip to the next '\n'.
                self.buf.as_mut()[len..cap].copy_from_slice(&input[..space]);
                self.len = cap;
                self.discarding = true;
                self.release = true;
                self.too_long = true;
                let id = peek_id(self.buf.as_ref(), self.max_depth);
                Decoded {
                    consumed: input.len(),
                    frame: Some(Frame::TooLong { limit: cap, id }),
                }
            }
        }
    }
}

/// What [`LineDecoder::peek`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Peeked {
    /// Length of the line the next call would return (0 for an overlong line).
    pub line_len: usize,
    /// The line starts with `[` (after whitespace).
    pub batch: bool,
}

fn starts_batch(a: &[u8], b: &[u8]) -> bool {
    a.iter()
        .chain(b)
        .find(|c| !matches!(c, b' ' | b'\t' | b'\r'))
        == Some(&b'[')
}

/// Applies the line rules: strip one trailing `\r`, skip blank lines, check UTF-8.
fn finish_line(line: &[u8], max_depth: usize) -> Option<Frame<'_>> {
    finish_line_inline(line, line, max_depth)
}

/// [`finish_line`], inlined into the common path of [`LineDecoder::decode`] on hosts (a
/// call and its register saves cost about as much as the rules themselves on a short
/// line; bare-metal targets keep one copy, for flash). `ahead` starts with `line` and may
/// go on past its end (the rest of the caller's input): see [`line_str`].
#[cfg_attr(not(target_os = "none"), inline(always))]
fn finish_line_inline<'a>(line: &'a [u8], ahead: &'a [u8], max_depth: usize) -> Option<Frame<'a>> {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.iter().all(|&c| matches!(c, b' ' | b'\t' | b'\r')) {
        return None;
    }
    Some(match line_str(ahead, line.len()) {
        Ok(s) => Frame::Line(s),
        Err(valid) => Frame::InvalidUtf8 {
            line,
            id: peek_id(&line[..valid], max_depth),
        },
    })
}

/// `ahead[..len]` as `&str`, or the length of its valid UTF-8 prefix; `ahead[len]`, when
/// present, is the line's `\r` or `\n`.
///
/// On hosts the check runs over whole 64-byte blocks when the input goes on far enough:
/// `simdutf8` handles a partial last block by copying it into a zeroed block and running
/// the full (non-ASCII) check on it, which costs more per line than the ASCII test of a
/// few bytes of the next line. When the longer span is valid UTF-8, the line is its prefix
/// up to the `\r`/`\n` (always a character boundary, so taking it is a checked O(1)
/// slice); when it is not (the next line is not UTF-8, or the block ends inside one of
/// its characters), the line alone is checked as before. The result is the same either
/// way: the decision is the line's own validity.
#[inline(always)]
fn line_str(ahead: &[u8], len: usize) -> Result<&str, usize> {
    #[cfg(not(target_os = "none"))]
    if let Some(block) = ahead.get(..len.next_multiple_of(64))
        && let Ok(s) = simdutf8::basic::from_utf8(block)
        && let Some(line) = s.get(..len)
    {
        return Ok(line);
    }
    to_str(&ahead[..len])
}

/// `line` as `&str`, or the length of its valid UTF-8 prefix.
///
/// On hosts, `simdutf8` checks the line with vector instructions (chosen at run time with
/// `std`); only an invalid line is checked a second time by `core` to find where it breaks.
/// On bare-metal targets `core::str::from_utf8` alone, which costs no extra flash.
#[inline]
pub(crate) fn to_str(line: &[u8]) -> Result<&str, usize> {
    #[cfg(not(target_os = "none"))]
    if let Ok(s) = simdutf8::basic::from_utf8(line) {
        return Ok(s);
    }
    core::str::from_utf8(line).map_err(|e| e.valid_up_to())
}

#[cfg(target_os = "none")]
use memchr_nl_own as memchr_nl;

/// Finds the first `\n`. On hosts with the `memchr` crate (SSE2, or AVX2 chosen at run
/// time with `std`).
#[cfg(not(target_os = "none"))]
#[inline]
pub(crate) fn memchr_nl(hay: &[u8]) -> Option<usize> {
    memchr::memchr(b'\n', hay)
}

/// Finds the first `\n` on bare-metal targets: a plain byte loop. The word-at-a-time
/// search it replaced cost about 0.2 KiB of flash and was slower here, where the UART
/// driver hands the decoder one byte at a time.
#[cfg(any(target_os = "none", test))]
#[inline]
fn memchr_nl_own(hay: &[u8]) -> Option<usize> {
    hay.iter().position(|&c| c == b'\n')
}

#[cfg(test)]
mod tests {
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
}
