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
}

impl<B: AsRef<[u8]> + AsMut<[u8]>> LineDecoder<B> {
    /// A decoder whose maximum line length is `buf`'s length. `max_depth` bounds the
    /// nesting the id reader will look through in an overlong or invalid line.
    pub fn new(buf: B, max_depth: usize) -> Self {
        LineDecoder { buf, len: 0, max_depth, discarding: false, release: false, complete: false }
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
    }

    /// Takes bytes from `input` up to and including the end of the next line and returns
    /// that line, if one was completed. Call again with the unconsumed rest. A returned
    /// frame may borrow the decoder's buffer until the next call.
    pub fn decode<'a>(&'a mut self, input: &'a [u8]) -> Decoded<'a> {
        if self.complete {
            self.complete = false;
            self.release = true;
            let md = self.max_depth;
            let buf = &self.buf.as_ref()[..self.len];
            return Decoded { consumed: 0, frame: finish_line(buf, md) };
        }
        if self.release {
            self.len = 0;
            self.release = false;
        }
        let cap = self.buf.as_ref().len();
        let nl = memchr_nl(input);
        if self.discarding {
            return match nl {
                Some(i) => {
                    self.discarding = false;
                    Decoded { consumed: i + 1, frame: None }
                }
                None => Decoded { consumed: input.len(), frame: None },
            };
        }
        match nl {
            Some(i) if self.len == 0 => {
                let line = &input[..i];
                if line.len() > cap {
                    let id = peek_id(&line[..cap], self.max_depth);
                    return Decoded { consumed: i + 1, frame: Some(Frame::TooLong { limit: cap, id }) };
                }
                Decoded { consumed: i + 1, frame: finish_line(line, self.max_depth) }
            }
            Some(i) => {
                let total = self.len + i;
                let take = i.min(cap - self.len);
                let len = self.len;
                self.buf.as_mut()[len..len + take].copy_from_slice(&input[..take]);
                self.len += take;
                self.release = true;
                let md = self.max_depth;
                let buf = &self.buf.as_ref()[..self.len];
                if total > cap {
                    let id = peek_id(buf, md);
                    return Decoded { consumed: i + 1, frame: Some(Frame::TooLong { limit: cap, id }) };
                }
                Decoded { consumed: i + 1, frame: finish_line(buf, md) }
            }
            None => {
                let space = cap - self.len;
                let len = self.len;
                if input.len() <= space {
                    self.buf.as_mut()[len..len + input.len()].copy_from_slice(input);
                    self.len += input.len();
                    return Decoded { consumed: input.len(), frame: None };
                }
                // Overflow without a newline: report now, then skip to the next '\n'.
                self.buf.as_mut()[len..cap].copy_from_slice(&input[..space]);
                self.len = cap;
                self.discarding = true;
                self.release = true;
                let id = peek_id(self.buf.as_ref(), self.max_depth);
                Decoded { consumed: input.len(), frame: Some(Frame::TooLong { limit: cap, id }) }
            }
        }
    }
}

/// Applies the line rules: strip one trailing `\r`, skip blank lines, check UTF-8.
fn finish_line(line: &[u8], max_depth: usize) -> Option<Frame<'_>> {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.iter().all(|&c| matches!(c, b' ' | b'\t' | b'\r')) {
        return None;
    }
    Some(match core::str::from_utf8(line) {
        Ok(s) => Frame::Line(s),
        Err(e) => Frame::InvalidUtf8 { line, id: peek_id(&line[..e.valid_up_to()], max_depth) },
    })
}

/// Finds the first `\n` (word-at-a-time, no dependency).
#[inline]
pub(crate) fn memchr_nl(hay: &[u8]) -> Option<usize> {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    const NL: u64 = LO * b'\n' as u64;
    let mut i = 0;
    while i + 8 <= hay.len() {
        let mut w = [0u8; 8];
        w.copy_from_slice(&hay[i..i + 8]);
        let x = u64::from_le_bytes(w) ^ NL;
        if (x.wrapping_sub(LO) & !x & HI) != 0 {
            break;
        }
        i += 8;
    }
    hay[i..].iter().position(|&c| c == b'\n').map(|p| p + i)
}
