//! The header rules of the endpoint, each a pure function of header values: `Host` and
//! `Origin` against the allowlist, `Accept`, `Content-Type`, and the 2026-07-28
//! `Mcp-Method` / `Mcp-Name` headers against the body (with the `=?base64?…?=` sentinel
//! of MODERN §13.3 decoded before comparing, by the rules both roles share in
//! [`crate::http::headers`]).

use crate::http::headers;
use crate::json::JsonStr;

/// The host names every endpoint accepts while the allowlist is on: loopback only.
pub const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "[::1]"];

/// The host part of a `Host` value (`name`, `name:port`, `[v6]`, `[v6]:port`).
fn host_part(value: &str) -> &str {
    if value.starts_with('[') {
        return match value.find(']') {
            Some(end) => &value[..=end],
            None => value,
        };
    }
    match value.rfind(':') {
        Some(colon) if value[colon + 1..].bytes().all(|b| b.is_ascii_digit()) => &value[..colon],
        _ => value,
    }
}

fn host_listed(host: &str, extra: &[&str]) -> bool {
    !host.is_empty()
        && LOOPBACK_HOSTS
            .iter()
            .chain(extra.iter())
            .any(|h| h.eq_ignore_ascii_case(host))
}

/// True when a `Host` header value names an allowed host (any port).
pub fn host_allowed(value: &[u8], extra: &[&str]) -> bool {
    match core::str::from_utf8(value) {
        Ok(v) => host_listed(host_part(v.trim()), extra),
        Err(_) => false,
    }
}

/// True when an `Origin` header value (`scheme://host[:port]`) names an allowed host.
/// The opaque origin `null` is never allowed.
pub fn origin_allowed(value: &[u8], extra: &[&str]) -> bool {
    let Ok(v) = core::str::from_utf8(value) else {
        return false;
    };
    let Some((scheme, rest)) = v.trim().split_once("://") else {
        return false;
    };
    if !scheme.eq_ignore_ascii_case("http") && !scheme.eq_ignore_ascii_case("https") {
        return false;
    }
    let authority = rest.split('/').next().unwrap_or("");
    host_listed(host_part(authority), extra)
}

/// Media types listed in an `Accept` (or `Content-Type`) value, without parameters.
fn media_types(value: &[u8]) -> impl Iterator<Item = &[u8]> {
    value.split(|&b| b == b',').map(|item| {
        let item = item.split(|&b| b == b';').next().unwrap_or(&[]);
        item.trim_ascii()
    })
}

/// True when the `Accept` values allow `wanted` (`type/subtype`), wildcards included.
pub fn accepts<'a>(mut values: impl Iterator<Item = &'a [u8]>, wanted: &str) -> bool {
    let wanted = wanted.as_bytes();
    // The type before the `/` (a byte search: this runs on every POST).
    let ty = &wanted[..wanted
        .iter()
        .position(|&b| b == b'/')
        .unwrap_or(wanted.len())];
    values.any(|v| {
        media_types(v).any(|m| {
            m.eq_ignore_ascii_case(wanted)
                || m == b"*/*"
                || (m.len() == ty.len() + 2
                    && m[..ty.len()].eq_ignore_ascii_case(ty)
                    && &m[ty.len()..] == b"/*")
        })
    })
}

/// True when a `Content-Type` value is `application/json` (parameters such as
/// `charset=utf-8` allowed).
pub fn is_json(value: &[u8]) -> bool {
    media_types(value)
        .next()
        .is_some_and(|m| m.eq_ignore_ascii_case(b"application/json"))
}

/// The text of an MCP header value: the `=?base64?…?=` sentinel decoded, a plain value
/// checked ([`headers::decode_value`]); `None` when it is invalid or longer than 512
/// bytes decoded.
pub fn decode_header<'b>(value: &[u8], buf: &'b mut [u8; 512]) -> Option<&'b str> {
    headers::decode_value(trim_ows(value), buf).ok()
}

/// A field value without the optional whitespace (SP, HTAB) around it, which is not part
/// of the value (RFC 9110 §5.5). The codec trims it already; a host that hands over raw
/// values (an ASGI server, Node's `rawHeaders`) may not.
pub fn trim_ows(value: &[u8]) -> &[u8] {
    let start = value
        .iter()
        .position(|&b| b != b' ' && b != b'\t')
        .unwrap_or(value.len());
    let end = value
        .iter()
        .rposition(|&b| b != b' ' && b != b'\t')
        .map_or(start, |i| i + 1);
    &value[start..end]
}

/// True when a header value (after sentinel decoding) equals the JSON string `s`.
pub fn header_matches(value: &[u8], s: JsonStr<'_>) -> bool {
    let mut buf = [0u8; 512];
    decode_header(value, &mut buf).is_some_and(|text| s.eq_str(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_and_origins() {
        assert!(host_allowed(b"localhost:3000", &[]));
        assert!(host_allowed(b"127.0.0.1", &[]));
        assert!(host_allowed(b"[::1]:80", &[]));
        assert!(!host_allowed(b"evil.example.com", &[]));
        assert!(!host_allowed(b"localhost.evil.com:80", &[]));
        assert!(host_allowed(b"mcp.example:8080", &["mcp.example"]));
        assert!(origin_allowed(b"http://localhost:5173", &[]));
        assert!(origin_allowed(b"https://[::1]", &[]));
        assert!(!origin_allowed(b"http://evil.example.com", &[]));
        assert!(!origin_allowed(b"null", &[]));
        assert!(!origin_allowed(b"file://localhost", &[]));
    }

    #[test]
    fn accept_and_content_type() {
        let v: [&[u8]; 1] = [b"application/json, text/event-stream;q=0.9"];
        assert!(accepts(v.iter().copied(), "application/json"));
        assert!(accepts(v.iter().copied(), "text/event-stream"));
        let star: [&[u8]; 1] = [b"*/*"];
        assert!(accepts(star.iter().copied(), "text/event-stream"));
        let text: [&[u8]; 1] = [b"text/*"];
        assert!(!accepts(text.iter().copied(), "application/json"));
        assert!(is_json(b"application/json; charset=utf-8"));
        assert!(!is_json(b"text/plain"));
    }

    #[test]
    fn base64_sentinel() {
        let mut buf = [0u8; 512];
        assert_eq!(
            decode_header(b"=?base64?WsO8cmljaA==?=", &mut buf),
            Some("Zürich")
        );
        assert_eq!(decode_header(b"plain", &mut buf), Some("plain"));
        // Optional whitespace around a value is not part of it (RFC 9110 §5.5).
        assert_eq!(decode_header(b" \tplain\t ", &mut buf), Some("plain"));
        assert_eq!(decode_header(b"  ", &mut buf), Some(""));
        assert_eq!(decode_header(b"=?base64?%%?=", &mut buf), None);
        // Characters the encoding never sends plain are refused (MODERN §13.2).
        assert_eq!(decode_header(b"a\x01b", &mut buf), None);
    }
}
