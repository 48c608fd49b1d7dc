//! Newline framing for stdio and serial links: bytes in, complete lines out.
//!
//! Two ways to take the lines: [`LineDecoder::decode_bytes`] hands out [`RawFrame`]s,
//! whose lines are bytes not yet checked for UTF-8 (the session checks each one with
//! [`RawLine::to_str`] right before its JSON parser reads it), and
//! [`LineDecoder::decode`] hands out [`Frame`]s, the same lines checked at once (`&str`).
//! Both give the same frames, whatever the chunking of the stream; the split keeps the
//! framing itself a newline search (docs/DESIGN.md, "Framing is bytes").

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

/// One result of [`LineDecoder::decode_bytes`]: a [`Frame`] before the UTF-8 check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RawFrame<'a> {
    /// A complete line: no `\n`, trailing `\r` stripped, never empty or only whitespace,
    /// not yet checked to be UTF-8.
    Line(RawLine<'a>),
    /// A line longer than the limit, as [`Frame::TooLong`].
    TooLong {
        /// The configured maximum.
        limit: usize,
        /// The request id, when it could be read.
        id: Option<Id<'a>>,
    },
}

impl<'a> RawFrame<'a> {
    /// The [`Frame`] that [`LineDecoder::decode`] returns for the same bytes: the line
    /// checked for UTF-8 ([`RawLine::validate`]).
    #[inline]
    pub fn validate(self, max_depth: usize) -> Frame<'a> {
        match self {
            RawFrame::Line(line) => line.validate(max_depth),
            RawFrame::TooLong { limit, id } => Frame::TooLong { limit, id },
        }
    }
}

/// A complete line as bytes, borrowed from the caller's input or the decoder's buffer.
///
/// It remembers how far the input went on past the line, so that [`to_str`](Self::to_str)
/// can check it in whole 64-byte blocks (see there); two `RawLine`s are equal when their
/// bytes are.
#[derive(Clone, Copy)]
pub struct RawLine<'a> {
    line: &'a [u8],
    /// Starts with `line` and may go on past its end; `ahead[line.len()]`, when present,
    /// is the line's `\r` or `\n`.
    ahead: &'a [u8],
}

impl<'a> RawLine<'a> {
    /// A line that is all of `line` (no look-ahead); the caller applies the line rules.
    pub fn new(line: &'a [u8]) -> Self {
        RawLine { line, ahead: line }
    }

    /// The line's bytes (no `\n`, trailing `\r` stripped).
    #[inline]
    pub fn as_bytes(&self) -> &'a [u8] {
        self.line
    }

    /// The line as `&str`, or the length of its valid UTF-8 prefix.
    #[inline]
    pub fn to_str(&self) -> Result<&'a str, usize> {
        line_str(self.line, self.ahead)
    }

    /// The line as a [`Frame`]: [`Frame::Line`] when it is UTF-8, otherwise
    /// [`Frame::InvalidUtf8`] with the request id read (through at most `max_depth`
    /// levels) from the part before the problem.
    #[inline]
    pub fn validate(self, max_depth: usize) -> Frame<'a> {
        match self.to_str() {
            Ok(s) => Frame::Line(s),
            Err(valid) => invalid_utf8(self.line, valid, max_depth),
        }
    }
}

impl PartialEq for RawLine<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.line == other.line
    }
}

impl Eq for RawLine<'_> {}

impl core::fmt::Debug for RawLine<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match core::str::from_utf8(self.line) {
            Ok(s) => f.debug_tuple("RawLine").field(&s).finish(),
            Err(_) => f.debug_tuple("RawLine").field(&self.line).finish(),
        }
    }
}

/// What [`LineDecoder::decode_bytes`] did with the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawDecoded<'a> {
    /// Bytes of the input taken; offer the rest in the next call.
    pub consumed: usize,
    /// The frame completed by those bytes, if any.
    pub frame: Option<RawFrame<'a>>,
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
///
/// [`decode_bytes`](Self::decode_bytes) splits the same way and leaves the UTF-8 check to
/// the taker; whole or byte by byte, the frames are the same:
///
/// ```
/// use picomcp::framing::{Frame, LineDecoder, RawFrame};
/// fn frames(chunk: usize) -> Vec<String> {
///     let stream = b"{\"a\":1}\r\n\n[\"\xc3\xa9\"]\n\"\xff\"\n0123456789\n[2";
///     let mut dec = LineDecoder::new([0u8; 8], 8);
///     let mut out = Vec::new();
///     for mut input in stream.chunks(chunk) {
///         while !input.is_empty() {
///             let d = dec.decode_bytes(input);
///             out.extend(d.frame.map(|f| match f {
///                 RawFrame::Line(l) => match l.validate(8) {
///                     Frame::Line(s) => s.to_string(),
///                     _ => format!("not UTF-8: {:?}", l.as_bytes()),
///                 },
///                 RawFrame::TooLong { limit, .. } => format!("longer than {limit}"),
///             }));
///             input = &input[d.consumed..];
///         }
///     }
///     out
/// }
/// let whole = frames(usize::MAX);
/// assert_eq!(whole, ["{\"a\":1}", "[\"é\"]", "not UTF-8: [34, 255, 34]", "longer than 8"]);
/// assert_eq!(frames(1), whole);
/// assert_eq!(frames(3), whole);
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
    /// that line, if one was completed, checked for UTF-8. Call again with the unconsumed
    /// rest. A returned frame may borrow the decoder's buffer until the next call.
    ///
    /// The same as [`decode_bytes`](Self::decode_bytes) followed by
    /// [`RawFrame::validate`].
    #[inline]
    pub fn decode<'a>(&'a mut self, input: &'a [u8]) -> Decoded<'a> {
        let max_depth = self.max_depth;
        let d = self.decode_bytes(input);
        Decoded {
            consumed: d.consumed,
            frame: d.frame.map(|f| f.validate(max_depth)),
        }
    }

    /// Takes bytes from `input` up to and including the end of the next line and returns
    /// that line as bytes, if one was completed: the line rules of [`decode`](Self::decode)
    /// but the UTF-8 check, which is the taker's ([`RawLine::to_str`]). Call again with
    /// the unconsumed rest. A returned frame may borrow the decoder's buffer until the
    /// next call.
    pub fn decode_bytes<'a>(&'a mut self, input: &'a [u8]) -> RawDecoded<'a> {
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
            return RawDecoded {
                consumed: i + 1,
                frame: finish_line_inline(&input[..i], input),
            };
        }
        if self.complete {
            self.complete = false;
            self.release = true;
            let buf = &self.buf.as_ref()[..self.len];
            let frame = if self.too_long {
                let id = peek_id(buf, self.max_depth);
                Some(RawFrame::TooLong {
                    limit: self.buf.as_ref().len(),
                    id,
                })
            } else {
                finish_line(buf)
            };
            return RawDecoded { consumed: 0, frame };
        }
        if self.release {
            self.len = 0;
            self.release = false;
        }
        if self.discarding {
            return match nl {
                Some(i) => {
                    self.discarding = false;
                    RawDecoded {
                        consumed: i + 1,
                        frame: None,
                    }
                }
                None => RawDecoded {
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
                    return RawDecoded {
                        consumed: i + 1,
                        frame: Some(RawFrame::TooLong { limit: cap, id }),
                    };
                }
                RawDecoded {
                    consumed: i + 1,
                    frame: finish_line(line),
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
                    return RawDecoded {
                        consumed: i + 1,
                        frame: Some(RawFrame::TooLong { limit: cap, id }),
                    };
                }
                RawDecoded {
                    consumed: i + 1,
                    frame: finish_line(buf),
                }
            }
            None => {
                let space = cap - self.len;
                let len = self.len;
                if input.len() <= space {
                    self.buf.as_mut()[len..len + input.len()].copy_from_slice(input);
                    self.len += input.len();
                    return RawDecoded {
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
                RawDecoded {
                    consumed: input.len(),
                    frame: Some(RawFrame::TooLong { limit: cap, id }),
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

/// Applies the line rules: strip one trailing `\r`, skip blank lines.
fn finish_line(line: &[u8]) -> Option<RawFrame<'_>> {
    finish_line_inline(line, line)
}

/// [`finish_line`], inlined into the common path of [`LineDecoder::decode_bytes`] on
/// hosts (a call and its register saves cost about as much as the rules themselves on a
/// short line; bare-metal targets keep one copy, for flash). `ahead` starts with `line`
/// and may go on past its end (the rest of the caller's input): see [`line_str`].
#[cfg_attr(not(target_os = "none"), inline(always))]
fn finish_line_inline<'a>(line: &'a [u8], ahead: &'a [u8]) -> Option<RawFrame<'a>> {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.iter().all(|&c| matches!(c, b' ' | b'\t' | b'\r')) {
        return None;
    }
    Some(RawFrame::Line(RawLine { line, ahead }))
}

/// The frame of a line that is not UTF-8 (valid for its first `valid` bytes).
#[cold]
fn invalid_utf8(line: &[u8], valid: usize, max_depth: usize) -> Frame<'_> {
    Frame::InvalidUtf8 {
        line,
        id: peek_id(line.get(..valid).unwrap_or(line), max_depth),
    }
}

/// `line` as `&str`, or the length of its valid UTF-8 prefix; `ahead` starts with `line`
/// and may go on past its end, where `ahead[line.len()]` is the line's `\r` or `\n`.
///
/// On hosts the check runs over whole 64-byte blocks when the input goes on far enough:
/// `simdutf8` handles a partial last block by copying it into a zeroed block and running
/// the full (non-ASCII) check on it, which costs more per line than the ASCII test of a
/// few bytes of the next line. When the longer span is valid UTF-8, the line is its prefix
/// up to the `\r`/`\n` (always a character boundary, so taking it is a checked O(1)
/// slice); when it is not (the next line is not UTF-8, or the block ends inside one of
/// its characters), the line alone is checked as before. The result is the same either
/// way: the decision is the line's own validity. (It holds for any text and look-ahead:
/// the event queue checks its texts this way too.)
#[inline(always)]
pub(crate) fn line_str<'a>(line: &'a [u8], ahead: &'a [u8]) -> Result<&'a str, usize> {
    #[cfg(not(target_os = "none"))]
    if let Some(block) = ahead.get(..line.len().next_multiple_of(64))
        && let Ok(s) = simdutf8::basic::from_utf8(block)
        && let Some(line) = s.get(..line.len())
    {
        return Ok(line);
    }
    #[cfg(target_os = "none")]
    let _ = ahead;
    to_str(line)
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
mod tests;
