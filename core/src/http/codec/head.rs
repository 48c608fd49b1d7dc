//! Reading a request head: where it ends, what httparse makes of it, and the framing,
//! keep-alive and `Expect` rules the server applies to it.

use super::{CodecLimits, RequestError, header_tokens};
use crate::http::Method;

/// What the codec keeps of a parsed request head.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct HeadInfo {
    pub(super) head_len: usize,
    /// 0 for HTTP/1.0, 1 for HTTP/1.1.
    pub(super) minor: u8,
    pub(super) method: Method,
    pub(super) keep_alive: bool,
    pub(super) expect_continue: bool,
}

#[derive(Clone, Copy, Debug)]
pub(super) enum Framing {
    Length(u64),
    Chunked,
}

/// The origin form of a target: an absolute-form target (`http://host/path?q`, which
/// RFC 9112 §3.2.2 says a server must accept) loses its scheme and authority; `/` when
/// nothing is left.
pub(super) fn origin_form(target: &str) -> &str {
    let Some(rest) = after_scheme(target) else {
        return target;
    };
    match rest.find('/') {
        Some(i) => &rest[i..],
        None => "/",
    }
}

/// What follows `http://` or `https://` (any case) in an absolute-form target; `None`
/// for any other form.
fn after_scheme(target: &str) -> Option<&str> {
    let b = target.as_bytes();
    if b.len() >= 7 && b[..7].eq_ignore_ascii_case(b"http://") {
        Some(&target[7..])
    } else if b.len() >= 8 && b[..8].eq_ignore_ascii_case(b"https://") {
        Some(&target[8..])
    } else {
        None
    }
}

/// The authority of an absolute-form target (`http://host:port/path` → `host:port`).
fn absolute_authority(target: &str) -> Option<&str> {
    let rest = after_scheme(target)?;
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    Some(&rest[..end])
}

/// The answer to a request line whose version httparse refused: 505 when it is an
/// HTTP version we do not speak (`HTTP/2.0`, `HTTP/0.9`), 400 when the line is simply
/// malformed (a space inside the target leaves `x HTTP/1.1` where the version goes).
fn version_error(head: &[u8]) -> RequestError {
    let line = head
        .split(|&b| b == b'\n')
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
        .find(|l| !l.is_empty())
        .unwrap_or(&[]);
    let mut words = line.split(|&b| b == b' ');
    let version = match (words.next(), words.next(), words.next(), words.next()) {
        (Some(_), Some(_), Some(v), None) => v,
        _ => return RequestError::Malformed,
    };
    match version {
        [b'H', b'T', b'T', b'P', b'/', a, b'.', b] if a.is_ascii_digit() && b.is_ascii_digit() => {
            RequestError::UnsupportedVersion
        }
        _ => RequestError::Malformed,
    }
}

/// The offset just past the first empty line (`\n\n` or `\n\r\n`) found at or after
/// `from`.
///
/// On hosts each `\n` is found with the `memchr` crate's vector search (a head of a few
/// hundred bytes costs a tenth of the byte loop, on every request); on bare metal the
/// byte loop, which costs no flash.
pub(super) fn find_head_end(b: &[u8], from: usize) -> Option<usize> {
    let is_end = |i: usize| match (b.get(i + 1), b.get(i + 2)) {
        (Some(b'\n'), _) => Some(i + 2),
        (Some(b'\r'), Some(b'\n')) => Some(i + 3),
        _ => None,
    };
    let rest = b.get(from..)?;
    #[cfg(not(target_os = "none"))]
    return memchr::memchr_iter(b'\n', rest).find_map(|i| is_end(from + i));
    #[cfg(target_os = "none")]
    rest.iter()
        .enumerate()
        .filter(|&(_, &c)| c == b'\n')
        .find_map(|(i, _)| is_end(from + i))
}

/// Parses and checks a head (up to and including its blank line): the framing of its
/// body, keep-alive, `Expect`. `Ok(None)`: httparse wants more (the blank line was a
/// leading empty line).
pub(super) fn inspect<'h>(
    head: &'h [u8],
    raw: &mut [httparse::Header<'h>],
    limits: &CodecLimits,
) -> Result<Option<(HeadInfo, Framing)>, RequestError> {
    let mut req = httparse::Request::new(raw);
    let head_len = match req.parse(head) {
        Ok(httparse::Status::Complete(n)) => n,
        Ok(httparse::Status::Partial) => return Ok(None),
        Err(httparse::Error::TooManyHeaders) => return Err(RequestError::TooManyHeaders),
        Err(httparse::Error::Version) => return Err(version_error(head)),
        Err(_) => return Err(RequestError::Malformed),
    };
    let target = req.path.unwrap_or("");
    if target.len() > limits.max_target_bytes {
        return Err(RequestError::TargetTooLong);
    }
    let minor = req.version.unwrap_or(1);
    let method = Method::from_token(req.method.unwrap_or(""));
    let mut length: Option<u64> = None;
    let mut te_seen = false;
    let mut te_chunked_last = false;
    let mut te_tokens = 0usize;
    let mut te_chunked_count = 0usize;
    let mut hosts = 0usize;
    let mut host_value: &[u8] = &[];
    let (mut close, mut keep) = (false, false);
    let mut expect_continue = false;
    for h in req.headers.iter() {
        let name = h.name;
        if name.eq_ignore_ascii_case("content-length") {
            if length.is_some() {
                return Err(RequestError::BadContentLength);
            }
            length = Some(parse_length(h.value).ok_or(RequestError::BadContentLength)?);
        } else if name.eq_ignore_ascii_case("transfer-encoding") {
            te_seen = true;
            for t in header_tokens(h.value) {
                te_tokens += 1;
                te_chunked_last = t.eq_ignore_ascii_case(b"chunked");
                te_chunked_count += usize::from(te_chunked_last);
            }
        } else if name.eq_ignore_ascii_case("host") {
            hosts += 1;
            host_value = h.value;
        } else if name.eq_ignore_ascii_case("connection") {
            for t in header_tokens(h.value) {
                close |= t.eq_ignore_ascii_case(b"close");
                keep |= t.eq_ignore_ascii_case(b"keep-alive");
            }
        } else if name.eq_ignore_ascii_case("expect") {
            expect_continue |= h.value.eq_ignore_ascii_case(b"100-continue") && minor == 1;
        }
    }
    if minor == 1 && hosts != 1 {
        return Err(RequestError::BadHost);
    }
    // An absolute-form target names the host itself, and RFC 9112 §3.2.2 has a server
    // use it over `Host`; the codec hands out the origin form, so the endpoint checks
    // `Host` (DNS rebinding): the two must agree, or the check would look at one name
    // while the request was addressed to another.
    if let Some(authority) = absolute_authority(target)
        && hosts > 0
        && !authority.as_bytes().eq_ignore_ascii_case(host_value)
    {
        return Err(RequestError::BadHost);
    }
    let framing = if te_seen {
        if length.is_some() || minor == 0 {
            return Err(RequestError::ConflictingFraming);
        }
        if te_tokens == 0 || !te_chunked_last || te_chunked_count > 1 {
            return Err(RequestError::ConflictingFraming);
        }
        if te_tokens > 1 {
            return Err(RequestError::UnsupportedTransferEncoding);
        }
        Framing::Chunked
    } else if let Some(n) = length {
        Framing::Length(n)
    } else if method == Method::Post && limits.length_required {
        return Err(RequestError::LengthRequired);
    } else {
        Framing::Length(0)
    };
    let keep_alive = if minor == 1 { !close } else { keep && !close };
    Ok(Some((
        HeadInfo {
            head_len,
            minor,
            method,
            keep_alive,
            expect_continue,
        },
        framing,
    )))
}

/// A `Content-Length` value: one or more digits, nothing else (saturating, so that a huge
/// value is simply too large).
pub(super) fn parse_length(v: &[u8]) -> Option<u64> {
    if v.is_empty() || !v.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(v.iter().fold(0u64, |n, &d| {
        n.saturating_mul(10).saturating_add(u64::from(d - b'0'))
    }))
}
