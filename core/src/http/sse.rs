//! Server-Sent Events framing (WHATWG HTML §9.2): writing events on the server side,
//! and [`Decoder`], which reads them on the client side.
//!
//! An event is `id:`, `event:` and `data:` fields, one per line, closed by a blank line.
//! A JSON-RPC message never contains a raw newline (the writer escapes them), but the
//! writer still splits `data` on `\n` so that any payload round-trips.
//!
//! ```
//! use picomcp::http::sse;
//! let mut out = [0u8; 64];
//! let n = sse::write_event(&mut out, Some("s1-7"), None, br#"{"jsonrpc":"2.0"}"#).unwrap();
//! assert_eq!(&out[..n], b"id: s1-7\ndata: {\"jsonrpc\":\"2.0\"}\n\n");
//! ```

use crate::InsufficientSize;

/// Appends `parts` to `out` at `*at`, or reports the size the whole event needs.
struct Cursor<'o> {
    out: &'o mut [u8],
    at: usize,
    overflow: bool,
}

impl Cursor<'_> {
    fn put(&mut self, bytes: &[u8]) {
        let end = self.at + bytes.len();
        if end <= self.out.len() && !self.overflow {
            self.out[self.at..end].copy_from_slice(bytes);
        } else {
            self.overflow = true;
        }
        self.at = end;
    }

    fn finish(self) -> Result<usize, InsufficientSize> {
        if self.overflow {
            Err(InsufficientSize { required: self.at })
        } else {
            Ok(self.at)
        }
    }
}

/// The bytes [`write_event`] needs for this event.
pub fn event_len(id: Option<&str>, event: Option<&str>, data: &[u8]) -> usize {
    let mut probe = Cursor {
        out: &mut [],
        at: 0,
        overflow: true,
    };
    put_event(&mut probe, id, event, data);
    probe.at
}

/// Writes one event (`id`, `event` when given, then `data` split on `\n`) and its closing
/// blank line; returns the bytes written. `id` and `event` must not contain `\r` or `\n`
/// (they are cut at the first one).
pub fn write_event(
    out: &mut [u8],
    id: Option<&str>,
    event: Option<&str>,
    data: &[u8],
) -> Result<usize, InsufficientSize> {
    let mut c = Cursor {
        out,
        at: 0,
        overflow: false,
    };
    put_event(&mut c, id, event, data);
    c.finish()
}

fn one_line(s: &str) -> &[u8] {
    let b = s.as_bytes();
    let end = b
        .iter()
        .position(|&c| c == b'\n' || c == b'\r')
        .unwrap_or(b.len());
    &b[..end]
}

fn put_event(c: &mut Cursor<'_>, id: Option<&str>, event: Option<&str>, data: &[u8]) {
    if let Some(id) = id {
        c.put(b"id: ");
        c.put(one_line(id));
        c.put(b"\n");
    }
    if let Some(event) = event {
        c.put(b"event: ");
        c.put(one_line(event));
        c.put(b"\n");
    }
    for line in data.split(|&b| b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        c.put(b"data: ");
        c.put(line);
        c.put(b"\n");
    }
    c.put(b"\n");
}

/// Writes a comment line (`: text`), the keep-alive that proxies and clients ignore.
pub fn write_comment(out: &mut [u8], text: &str) -> Result<usize, InsufficientSize> {
    let mut c = Cursor {
        out,
        at: 0,
        overflow: false,
    };
    c.put(b": ");
    c.put(one_line(text));
    c.put(b"\n\n");
    c.finish()
}

/// Writes an event that carries only an id and a `retry` hint in milliseconds (with empty
/// data), the event a server sends first on a stream it may close before answering
/// (2025-11-25 SSE polling): the client reconnects after `retry_ms` with `Last-Event-ID`.
pub fn write_retry(
    out: &mut [u8],
    id: Option<&str>,
    retry_ms: u32,
) -> Result<usize, InsufficientSize> {
    let mut c = Cursor {
        out,
        at: 0,
        overflow: false,
    };
    if let Some(id) = id {
        c.put(b"id: ");
        c.put(one_line(id));
        c.put(b"\n");
    }
    c.put(b"retry: ");
    let mut digits = [0u8; 10];
    let mut n = retry_ms;
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    c.put(&digits[i..]);
    c.put(b"\ndata: \n\n");
    c.finish()
}

/// The limits of a [`Decoder`] besides its buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DecoderLimits {
    /// Bytes of the last event id kept (an `id:` longer is [`SseError::IdTooLong`]).
    pub max_id: usize,
    /// Bytes of an event type (an `event:` longer is [`SseError::EventTypeTooLong`]).
    pub max_event_type: usize,
}

impl Default for DecoderLimits {
    /// A 128-byte id and a 32-byte event type.
    fn default() -> Self {
        DecoderLimits {
            max_id: 128,
            max_event_type: 32,
        }
    }
}

/// Why an event was dropped. The decoder skips the rest of that event (to its blank
/// line) and carries on with the next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SseError {
    /// The event's data and its current line do not fit the buffer.
    EventTooLarge {
        /// Bytes available for data and a line.
        limit: usize,
    },
    /// An `id:` longer than [`DecoderLimits::max_id`] (the last id is unchanged).
    IdTooLong {
        /// The limit.
        limit: usize,
    },
    /// An `event:` longer than [`DecoderLimits::max_event_type`].
    EventTypeTooLong {
        /// The limit.
        limit: usize,
    },
    /// The event's data, type or id is not UTF-8.
    InvalidUtf8,
}

impl core::fmt::Display for SseError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            SseError::EventTooLarge { limit } => write!(f, "sse event larger than {limit} bytes"),
            SseError::IdTooLong { limit } => write!(f, "sse id longer than {limit} bytes"),
            SseError::EventTypeTooLong { limit } => {
                write!(f, "sse event type longer than {limit} bytes")
            }
            SseError::InvalidUtf8 => f.write_str("sse event is not utf-8"),
        }
    }
}

impl core::error::Error for SseError {}

/// One event, borrowed from the [`Decoder`]'s buffer until its next call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Event<'a> {
    /// The last event id set on the stream (by this event or an earlier one), what a
    /// client sends back as `Last-Event-ID`; `None` while it is empty.
    pub id: Option<&'a str>,
    /// The event type, when the event set one (`None` means `message`).
    pub event: Option<&'a str>,
    /// The data lines, joined with `\n`.
    pub data: &'a str,
    /// A `retry:` hint (milliseconds) carried by this event.
    pub retry: Option<u32>,
}

/// What [`Decoder::feed`] did.
#[derive(Debug)]
pub struct Fed<'a> {
    /// Bytes of the input taken; offer the rest in the next call.
    pub consumed: usize,
    /// The event those bytes completed, or why it was dropped.
    pub item: Option<Result<Event<'a>, SseError>>,
}

const BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];

/// An incremental decoder of an SSE stream over a caller-owned buffer: feed bytes in any
/// pieces, get [`Event`]s. Lines end in CRLF, LF or CR; comments (`:` lines) and unknown
/// fields are skipped; a leading byte-order mark is skipped; `data:` lines are joined
/// with `\n`. The buffer holds the last id, the event type and the event's data plus one
/// line: an event that does not fit is an [`SseError`], not a failure of the stream.
///
/// ```
/// use picomcp::http::sse::{Decoder, DecoderLimits};
/// let mut buf = [0u8; 256];
/// let mut dec = Decoder::new(&mut buf, DecoderLimits::default());
/// let mut input: &[u8] = b": hi\r\nid: 7\r\ndata: a\r\ndata: b\n\nrest";
/// let f = dec.feed(input);
/// let e = f.item.unwrap().unwrap();
/// assert_eq!((e.id, e.data), (Some("7"), "a\nb"));
/// input = &input[f.consumed..];
/// assert_eq!(input, b"rest");
/// ```
#[derive(Debug)]
pub struct Decoder<'b> {
    buf: &'b mut [u8],
    limits: DecoderLimits,
    id_len: usize,
    event_len: Option<usize>,
    data_len: usize,
    has_data: bool,
    line_len: usize,
    after_cr: bool,
    bom: u8,
    discarding: bool,
    release: bool,
    retry: Option<u32>,
    event_retry: Option<u32>,
}

impl<'b> Decoder<'b> {
    /// A decoder at the start of a stream. `buf` holds `limits.max_id` bytes of id, then
    /// `limits.max_event_type` of type, then one event's data and its current line.
    pub fn new(buf: &'b mut [u8], limits: DecoderLimits) -> Self {
        Decoder {
            buf,
            limits,
            id_len: 0,
            event_len: None,
            data_len: 0,
            has_data: false,
            line_len: 0,
            after_cr: false,
            bom: 0,
            discarding: false,
            release: false,
            retry: None,
            event_retry: None,
        }
    }

    /// The last event id (what to send as `Last-Event-ID` when reconnecting).
    pub fn last_event_id(&self) -> Option<&str> {
        let id = &self.buf[..self.id_len.min(self.id_end())];
        core::str::from_utf8(id).ok().filter(|s| !s.is_empty())
    }

    /// The last `retry:` hint seen (milliseconds), whether or not its event had data.
    pub fn retry(&self) -> Option<u32> {
        self.retry
    }

    fn id_end(&self) -> usize {
        self.limits.max_id.min(self.buf.len())
    }

    fn data_start(&self) -> usize {
        self.limits
            .max_id
            .saturating_add(self.limits.max_event_type)
            .min(self.buf.len())
    }

    fn reset_event(&mut self) {
        self.data_len = 0;
        self.has_data = false;
        self.event_len = None;
        self.event_retry = None;
    }

    /// Takes bytes of `input` up to the end of the next event (or all of them), and
    /// returns that event, or the error that dropped it.
    pub fn feed<'s>(&'s mut self, input: &[u8]) -> Fed<'s> {
        if self.release {
            self.release = false;
            self.reset_event();
        }
        let mut i = 0;
        let mut outcome: Option<Result<(), SseError>> = None;
        while i < input.len() && outcome.is_none() {
            let b = input[i];
            i += 1;
            if self.bom < 3 {
                if b == BOM[self.bom as usize] {
                    self.bom += 1;
                    continue;
                }
                let matched = self.bom as usize;
                self.bom = 3;
                for &k in &BOM[..matched] {
                    if let Err(e) = self.push(k) {
                        outcome = Some(Err(e));
                    }
                }
                if outcome.is_some() {
                    continue;
                }
            }
            outcome = match b {
                b'\n' if self.after_cr => {
                    self.after_cr = false;
                    None
                }
                b'\r' | b'\n' => {
                    self.after_cr = b == b'\r';
                    self.end_line()
                }
                _ => {
                    self.after_cr = false;
                    self.push(b).err().map(Err)
                }
            };
        }
        let item = match outcome {
            None => None,
            Some(Err(e)) => Some(Err(e)),
            Some(Ok(())) => Some(self.event()),
        };
        Fed { consumed: i, item }
    }

    /// Appends a byte to the current line.
    fn push(&mut self, b: u8) -> Result<(), SseError> {
        if self.discarding {
            self.line_len += 1;
            return Ok(());
        }
        let at = self.data_start() + self.data_len + self.line_len;
        if at >= self.buf.len() {
            self.discarding = true;
            self.line_len += 1;
            return Err(SseError::EventTooLarge {
                limit: self.buf.len() - self.data_start(),
            });
        }
        self.buf[at] = b;
        self.line_len += 1;
        Ok(())
    }

    /// Handles a complete line: `Some(Ok(()))` when it dispatches an event.
    fn end_line(&mut self) -> Option<Result<(), SseError>> {
        let len = core::mem::take(&mut self.line_len);
        if self.discarding {
            if len == 0 {
                self.discarding = false;
                self.reset_event();
            }
            return None;
        }
        if len == 0 {
            if self.has_data {
                self.release = true;
                return Some(Ok(()));
            }
            self.reset_event();
            return None;
        }
        let start = self.data_start() + self.data_len;
        let line = &self.buf[start..start + len];
        if line[0] == b':' {
            return None;
        }
        let (name_len, value_off) = match line.iter().position(|&c| c == b':') {
            Some(c) if line.get(c + 1) == Some(&b' ') => (c, c + 2),
            Some(c) => (c, c + 1),
            None => (len, len),
        };
        let value = start + value_off..start + len;
        let fail = |me: &mut Self, e| {
            me.discarding = true;
            Some(Err(e))
        };
        match &line[..name_len] {
            b"data" => {
                let n = value.len();
                self.buf.copy_within(value, start);
                self.data_len += n;
                self.buf[start + n] = b'\n';
                self.data_len += 1;
                self.has_data = true;
            }
            b"event" => {
                let limit = self.limits.max_event_type;
                let room = self.data_start() - self.id_end();
                if value.len() > limit || value.len() > room {
                    return fail(self, SseError::EventTypeTooLong { limit });
                }
                let at = self.id_end();
                let n = value.len();
                self.buf.copy_within(value, at);
                self.event_len = Some(n);
            }
            b"id" => {
                let limit = self.limits.max_id;
                if self.buf[value.clone()].contains(&0) {
                    return None;
                }
                if value.len() > self.id_end() {
                    return fail(self, SseError::IdTooLong { limit });
                }
                let n = value.len();
                self.buf.copy_within(value, 0);
                self.id_len = n;
            }
            b"retry" => {
                let v = &self.buf[value];
                if !v.is_empty() && v.iter().all(u8::is_ascii_digit) {
                    let ms = v.iter().try_fold(0u32, |n, &d| {
                        n.checked_mul(10)?.checked_add(u32::from(d - b'0'))
                    });
                    if let Some(ms) = ms {
                        self.retry = Some(ms);
                        self.event_retry = Some(ms);
                    }
                }
            }
            _ => {}
        }
        None
    }

    /// The event in the buffer (its data without the last `\n`).
    fn event(&self) -> Result<Event<'_>, SseError> {
        let d0 = self.data_start();
        let data = &self.buf[d0..d0 + self.data_len.saturating_sub(1)];
        let data = core::str::from_utf8(data).map_err(|_| SseError::InvalidUtf8)?;
        let id =
            core::str::from_utf8(&self.buf[..self.id_len]).map_err(|_| SseError::InvalidUtf8)?;
        let at = self.id_end();
        let event = match self.event_len {
            Some(n) => Some(
                core::str::from_utf8(&self.buf[at..at + n]).map_err(|_| SseError::InvalidUtf8)?,
            ),
            None => None,
        };
        Ok(Event {
            id: Some(id).filter(|s| !s.is_empty()),
            event,
            data,
            retry: self.event_retry,
        })
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::boxed::Box;
    use std::vec::Vec;

    #[test]
    fn multi_line_data_and_sizes() {
        let mut out = [0u8; 64];
        let n = write_event(&mut out, None, Some("message"), b"a\nb\r\nc").unwrap();
        assert_eq!(&out[..n], b"event: message\ndata: a\ndata: b\ndata: c\n\n");
        assert_eq!(event_len(None, Some("message"), b"a\nb\r\nc"), n);
        let mut small = [0u8; 4];
        assert_eq!(
            write_event(&mut small, Some("1"), None, b"xy"),
            Err(InsufficientSize {
                required: n_for("1", b"xy")
            })
        );
    }

    fn n_for(id: &str, data: &[u8]) -> usize {
        event_len(Some(id), None, data)
    }

    type Item = Result<
        (
            Option<&'static str>,
            Option<&'static str>,
            &'static str,
            Option<u32>,
        ),
        SseError,
    >;

    fn decode_all(input: &[u8], piece: usize, cap: usize) -> Vec<Item> {
        let buf: &'static mut [u8] = Box::leak(std::vec![0u8; cap].into_boxed_slice());
        let mut dec = Decoder::new(
            buf,
            DecoderLimits {
                max_id: 8,
                max_event_type: 8,
            },
        );
        let mut out = Vec::new();
        for chunk in input.chunks(piece) {
            let mut rest = chunk;
            while !rest.is_empty() {
                let f = dec.feed(rest);
                rest = &rest[f.consumed..];
                if let Some(item) = f.item {
                    let leak = |s: &str| -> &'static str { Box::leak(Box::from(s)) };
                    out.push(
                        item.map(|e| (e.id.map(leak), e.event.map(leak), leak(e.data), e.retry)),
                    );
                }
            }
        }
        out
    }

    #[test]
    fn decoder_line_ends_comments_bom_and_limits() {
        let stream = b"\xEF\xBB\xBF: comment\r\ndata:x\r\rid: 1\nevent: e\ndata\ndata:  y\r\n\r\nretry: 300\n\ndata: z\nretry: 5\n\n\n\ndata\n\n";
        for piece in [1, 2, 5, stream.len()] {
            let got = decode_all(stream, piece, 64);
            assert_eq!(
                got,
                [
                    Ok((None, None, "x", None)),
                    Ok((Some("1"), Some("e"), "\n y", None)),
                    Ok((Some("1"), None, "z", Some(5))),
                    Ok((Some("1"), None, "", None)),
                ],
                "piece {piece}"
            );
        }
        let big = b"data: 0123456789012345678901234567890123456789\n\ndata: ok\n\nid: 123456789\ndata: no\n\nevent: 123456789\n\ndata: \xff\n\n";
        for piece in [1, 3, big.len()] {
            assert_eq!(
                decode_all(big, piece, 40),
                [
                    Err(SseError::EventTooLarge { limit: 24 }),
                    Ok((None, None, "ok", None)),
                    Err(SseError::IdTooLong { limit: 8 }),
                    Err(SseError::EventTypeTooLong { limit: 8 }),
                    Err(SseError::InvalidUtf8),
                ]
            );
        }
    }

    #[test]
    fn decoder_reads_the_writer() {
        let mut w = [0u8; 128];
        let mut n = write_event(&mut w, Some("s-1"), Some("message"), b"a\nb").unwrap();
        n += write_comment(&mut w[n..], "ping").unwrap();
        n += write_retry(&mut w[n..], Some("s-2"), 1500).unwrap();
        assert_eq!(
            decode_all(&w[..n], 1, 128),
            [
                Ok((Some("s-1"), Some("message"), "a\nb", None)),
                Ok((Some("s-2"), None, "", Some(1500))),
            ]
        );
    }

    #[test]
    fn comment_and_retry() {
        let mut out = [0u8; 64];
        let n = write_comment(&mut out, "keep-alive\nx").unwrap();
        assert_eq!(&out[..n], b": keep-alive\n\n");
        let n = write_retry(&mut out, Some("s-0"), 1500).unwrap();
        assert_eq!(&out[..n], b"id: s-0\nretry: 1500\ndata: \n\n");
    }
}
