//! The header rules of the endpoint, each a pure function of header values: `Host` and
//! `Origin` against the allowlist, `Accept`, `Content-Type`, and the 2026-07-28
//! `Mcp-Method` / `Mcp-Name` headers against the body (with the `=?base64?…?=` sentinel
//! of MODERN §13.3 decoded before comparing, by the rules both roles share in
//! [`crate::http::headers`]).

use crate::http::{Request, headers};
use crate::json::JsonStr;

/// The host names every endpoint accepts while the allowlist is on: loopback only.
pub const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "[::1]"];

/// The host part of a `Host` value (`name`, `name:port`, `[v6]`, `[v6]:port`).
fn host_part(value: &str) -> &str {
    if value.starts_with('[') {
        // `[v6]` or `[v6]:port`, nothing else after the bracket (`[::1]evil` is no
        // loopback name: the whole value, which no list holds, comes back).
        return match value.find(']') {
            Some(end) if is_port_suffix(&value[end + 1..]) => &value[..=end],
            _ => value,
        };
    }
    match value.rfind(':') {
        Some(colon) if value[colon + 1..].bytes().all(|b| b.is_ascii_digit()) => &value[..colon],
        _ => value,
    }
}

/// Empty, or `:` and digits (a port, possibly empty as RFC 3986 allows).
fn is_port_suffix(rest: &str) -> bool {
    rest.is_empty()
        || rest
            .strip_prefix(':')
            .is_some_and(|p| p.bytes().all(|b| b.is_ascii_digit()))
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

/// True when every `Origin` line of `req` (usually none or one) names an allowed host.
pub fn origins_allowed(req: &Request<'_>, extra: &[&str]) -> bool {
    req.headers_named("origin")
        .all(|o| origin_allowed(o, extra))
}

/// Media types listed in an `Accept` (or `Content-Type`) value, without parameters.
fn media_types(value: &[u8]) -> impl Iterator<Item = &[u8]> {
    value.split(|&b| b == b',').map(|item| {
        let item = item.split(|&b| b == b';').next().unwrap_or(&[]);
        item.trim_ascii()
    })
}

/// True when the `Accept` values allow `wanted` (`type/subtype`), wildcards included.
///
/// The most specific range that matches decides (RFC 9110 §12.5.1: `type/subtype` over
/// `type/*` over `*/*`), and a range with `q=0` means "not acceptable" (§12.4.2): so
/// `application/json;q=0, */*` does not accept JSON. Other `q` values only rank, which
/// does not matter here (the endpoint needs both types acceptable, not preferred).
pub fn accepts<'a>(values: impl Iterator<Item = &'a [u8]>, wanted: &str) -> bool {
    let wanted = wanted.as_bytes();
    // The type before the `/` (a byte search: this runs on every POST).
    let ty = &wanted[..wanted
        .iter()
        .position(|&b| b == b'/')
        .unwrap_or(wanted.len())];
    // (specificity of the best match so far, whether a range of that specificity
    // allows it); 0: nothing matched.
    let mut best = (0u8, false);
    for v in values {
        for item in v.split(|&b| b == b',') {
            let mut parts = item.split(|&b| b == b';');
            let m = parts.next().unwrap_or(&[]).trim_ascii();
            let specificity = if m.eq_ignore_ascii_case(wanted) {
                3
            } else if m.len() == ty.len() + 2
                && m[..ty.len()].eq_ignore_ascii_case(ty)
                && &m[ty.len()..] == b"/*"
            {
                2
            } else if m == b"*/*" {
                1
            } else {
                continue;
            };
            let allowed = !parts.any(is_q_zero);
            if specificity > best.0 {
                best = (specificity, allowed);
            } else if specificity == best.0 {
                best.1 |= allowed;
            }
        }
    }
    best.1
}

/// True for a media-range parameter `q=0` (`0`, `0.`, `0.0`, `0.00`, `0.000`; RFC 9110
/// §12.4.2), spaces around it allowed.
fn is_q_zero(param: &[u8]) -> bool {
    let Some((name, value)) = param
        .iter()
        .position(|&b| b == b'=')
        .map(|i| (param[..i].trim_ascii(), param[i + 1..].trim_ascii()))
    else {
        return false;
    };
    if !name.eq_ignore_ascii_case(b"q") {
        return false;
    }
    match value {
        [b'0'] => true,
        [b'0', b'.', rest @ ..] => rest.len() <= 3 && rest.iter().all(|&b| b == b'0'),
        _ => false,
    }
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
        // Nothing but a port may follow an IPv6 literal.
        assert!(!host_allowed(b"[::1]evil.example.com", &[]));
        assert!(!host_allowed(b"[::1]:80x", &[]));
        assert!(!origin_allowed(b"http://[::1].evil.example.com", &[]));
        assert!(host_allowed(b"[::1]:", &[]));
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
        // q=0 is "not acceptable", and the most specific range decides.
        let refused: [&[u8]; 1] = [b"application/json;q=0, text/event-stream"];
        assert!(!accepts(refused.iter().copied(), "application/json"));
        assert!(accepts(refused.iter().copied(), "text/event-stream"));
        let over: [&[u8]; 1] = [b"*/*, application/json; q=0.000"];
        assert!(!accepts(over.iter().copied(), "application/json"));
        assert!(accepts(over.iter().copied(), "text/event-stream"));
        let star_zero: [&[u8]; 2] = [b"*/*;q=0", b"application/*;Q=0.5"];
        assert!(accepts(star_zero.iter().copied(), "application/json"));
        assert!(!accepts(star_zero.iter().copied(), "text/event-stream"));
        let low: [&[u8]; 1] = [b"application/json;q=0.001"];
        assert!(accepts(low.iter().copied(), "application/json"));
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
