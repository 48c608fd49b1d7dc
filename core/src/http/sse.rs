//! Server-Sent Events framing (WHATWG HTML §9.2): writing events on the server side.
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

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn comment_and_retry() {
        let mut out = [0u8; 64];
        let n = write_comment(&mut out, "keep-alive\nx").unwrap();
        assert_eq!(&out[..n], b": keep-alive\n\n");
        let n = write_retry(&mut out, Some("s-0"), 1500).unwrap();
        assert_eq!(&out[..n], b"id: s-0\nretry: 1500\ndata: \n\n");
    }
}
