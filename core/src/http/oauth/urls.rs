//! The URLs of authorization discovery: where the protected resource metadata (PRM) and
//! the authorization server metadata are looked for, in the order the spec gives
//! (AUTH §3.2, §3.4, §3.11); the canonical resource URI (RFC 8707); the PRM `resource`
//! check (AUTH §3.3); which URLs a client may fetch (AUTH §4 S15, S16).
//!
//! URLs are split, never decoded or rebuilt beyond what each rule says: an issuer is
//! compared as written (a URL library's round trip would add a `/`, AUTH §3.4).

use core::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use crate::InsufficientSize;
use crate::http::Cursor;

/// `http` or `https`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scheme {
    /// `http:` (port 80 by default).
    Http,
    /// `https:` (port 443 by default).
    Https,
}

impl Scheme {
    /// The scheme's text.
    pub fn as_str(self) -> &'static str {
        match self {
            Scheme::Http => "http",
            Scheme::Https => "https",
        }
    }

    /// The port of an authority that names none.
    pub fn default_port(self) -> u16 {
        match self {
            Scheme::Http => 80,
            Scheme::Https => 443,
        }
    }
}

/// Why a text is not an absolute `http(s)` URL this module works with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum UrlError {
    /// Not `http://` or `https://` (`javascript:`, `file:`, a relative URL …).
    Scheme,
    /// No host, user info (`user@host`), or a bad port.
    Authority,
    /// A fragment (`#…`), where none is allowed (a resource or an issuer).
    Fragment,
    /// A query, where none is allowed (an issuer, RFC 8414 §2).
    Query,
    /// Spaces or control characters.
    Characters,
}

impl core::fmt::Display for UrlError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            UrlError::Scheme => "not an http(s) URL",
            UrlError::Authority => "no host, user info, or a bad port",
            UrlError::Fragment => "a fragment is not allowed here",
            UrlError::Query => "a query is not allowed here",
            UrlError::Characters => "spaces or control characters",
        })
    }
}

/// An absolute `http(s)` URL, split into its parts (borrowed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HttpUrl<'a> {
    /// The scheme.
    pub scheme: Scheme,
    /// `host[:port]` as written.
    pub authority: &'a str,
    /// The host as written (`[::1]` keeps its brackets).
    pub host: &'a str,
    /// The port when one is written.
    pub port: Option<u16>,
    /// The path: empty or starting with `/`.
    pub path: &'a str,
    /// The query without its `?`.
    pub query: Option<&'a str>,
    /// The fragment without its `#`.
    pub fragment: Option<&'a str>,
}

impl<'a> HttpUrl<'a> {
    /// Splits `url`. The scheme matches case-insensitively.
    pub fn parse(url: &'a str) -> Result<Self, UrlError> {
        if url.bytes().any(|b| b <= b' ' || b == 0x7f) {
            return Err(UrlError::Characters);
        }
        let (scheme, rest) = match url.find("://") {
            Some(i) if url[..i].eq_ignore_ascii_case("https") => (Scheme::Https, &url[i + 3..]),
            Some(i) if url[..i].eq_ignore_ascii_case("http") => (Scheme::Http, &url[i + 3..]),
            _ => return Err(UrlError::Scheme),
        };
        let (rest, fragment) = match rest.split_once('#') {
            Some((r, f)) => (r, Some(f)),
            None => (rest, None),
        };
        let (rest, query) = match rest.split_once('?') {
            Some((r, q)) => (r, Some(q)),
            None => (rest, None),
        };
        let (authority, path) = match rest.find('/') {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, ""),
        };
        if authority.is_empty() || authority.contains('@') {
            return Err(UrlError::Authority);
        }
        let (host, port) = if authority.starts_with('[') {
            let close = authority.find(']').ok_or(UrlError::Authority)?;
            let after = &authority[close + 1..];
            let port = match after.strip_prefix(':') {
                Some(p) => Some(parse_port(p)?),
                None if after.is_empty() => None,
                None => return Err(UrlError::Authority),
            };
            (&authority[..=close], port)
        } else {
            match authority.rsplit_once(':') {
                Some((h, p)) => (h, Some(parse_port(p)?)),
                None => (authority, None),
            }
        };
        if host.is_empty() {
            return Err(UrlError::Authority);
        }
        Ok(HttpUrl {
            scheme,
            authority,
            host,
            port,
            path,
            query,
            fragment,
        })
    }

    /// The port, written or the scheme's default.
    pub fn effective_port(&self) -> u16 {
        self.port.unwrap_or(self.scheme.default_port())
    }

    /// The host without the brackets of an IPv6 literal.
    pub fn host_unbracketed(&self) -> &'a str {
        self.host
            .strip_prefix('[')
            .and_then(|h| h.strip_suffix(']'))
            .unwrap_or(self.host)
    }

    /// Same scheme, host (case-insensitive) and effective port.
    pub fn same_origin(&self, other: &HttpUrl<'_>) -> bool {
        self.scheme == other.scheme
            && self.host.eq_ignore_ascii_case(other.host)
            && self.effective_port() == other.effective_port()
    }

    /// The host is `localhost` (or a name under it) or a loopback address literal.
    pub fn is_loopback(&self) -> bool {
        let host = self.host_unbracketed();
        if host.eq_ignore_ascii_case("localhost")
            || host.len() > 10 && host[host.len() - 10..].eq_ignore_ascii_case(".localhost")
        {
            return true;
        }
        host.parse::<IpAddr>()
            .is_ok_and(|ip| classify_ip(ip) == AddressClass::Loopback)
    }

    /// The path without one trailing `/` (`/` alone becomes empty).
    fn trimmed_path(&self) -> &'a str {
        self.path.strip_suffix('/').unwrap_or(self.path)
    }

    fn put_origin(&self, c: &mut Cursor<'_>) {
        c.put(self.scheme.as_str().as_bytes());
        c.put(b"://");
        c.put(self.authority.as_bytes());
    }
}

fn parse_port(p: &str) -> Result<u16, UrlError> {
    if p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()) {
        return Err(UrlError::Authority);
    }
    p.parse().map_err(|_| UrlError::Authority)
}

/// What an IP address is, for the SSRF rule (AUTH §4 S16).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AddressClass {
    /// A globally routable address.
    Public,
    /// `127.0.0.0/8`, `::1`: allowed for development only.
    Loopback,
    /// `10/8`, `172.16/12`, `192.168/16`, `100.64/10` (shared), `fc00::/7`.
    Private,
    /// `169.254/16` (cloud metadata lives here), `fe80::/10`.
    LinkLocal,
    /// `0.0.0.0`, `::`, broadcast, multicast, documentation and reserved ranges.
    Other,
}

/// The class of `ip`; an IPv4-mapped or IPv4-compatible IPv6 address is classed as its
/// IPv4 address (a common way around naive checks).
pub fn classify_ip(ip: IpAddr) -> AddressClass {
    match ip {
        IpAddr::V4(v4) => classify_v4(v4),
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return classify_v4(v4);
            }
            let s = v6.segments();
            if v6 == Ipv6Addr::LOCALHOST {
                AddressClass::Loopback
            } else if v6.is_unspecified() || v6.is_multicast() {
                AddressClass::Other
            } else if s[0] & 0xfe00 == 0xfc00 {
                AddressClass::Private
            } else if s[0] & 0xffc0 == 0xfe80 {
                AddressClass::LinkLocal
            } else if s[..6] == [0; 6] {
                // IPv4-compatible (deprecated) `::a.b.c.d`.
                let [a, b] = s[6].to_be_bytes();
                let [c, d] = s[7].to_be_bytes();
                classify_v4(Ipv4Addr::new(a, b, c, d))
            } else if s[0] == 0x2001 && s[1] == 0x0db8 {
                AddressClass::Other
            } else {
                AddressClass::Public
            }
        }
    }
}

fn classify_v4(ip: Ipv4Addr) -> AddressClass {
    let [a, b, ..] = ip.octets();
    if ip.is_loopback() {
        AddressClass::Loopback
    } else if ip.is_private() || (a == 100 && (64..128).contains(&b)) {
        AddressClass::Private
    } else if ip.is_link_local() {
        AddressClass::LinkLocal
    } else if ip.is_unspecified()
        || ip.is_broadcast()
        || ip.is_multicast()
        || ip.is_documentation()
        || a == 0
        || a >= 240
    {
        AddressClass::Other
    } else {
        AddressClass::Public
    }
}

/// Why a client must not fetch or send a user to a URL (AUTH §4 S1, S15, S18).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum EndpointError {
    /// Not an absolute `http(s)` URL.
    Url(UrlError),
    /// Plain `http:` to a host that is not loopback.
    NotHttps,
}

impl core::fmt::Display for EndpointError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            EndpointError::Url(e) => e.fmt(f),
            EndpointError::NotHttps => f.write_str("http: is allowed only to a loopback host"),
        }
    }
}

/// The scheme rule of every metadata document, authorization server endpoint and
/// redirect URI: `https:`, or `http:` to a loopback host (development, AUTH §4 S15).
/// What the host resolves to is [`classify_ip`]'s business, per connection.
pub fn check_endpoint(url: &str) -> Result<HttpUrl<'_>, EndpointError> {
    let u = HttpUrl::parse(url).map_err(EndpointError::Url)?;
    if u.fragment.is_some() {
        return Err(EndpointError::Url(UrlError::Fragment));
    }
    if u.scheme == Scheme::Http && !u.is_loopback() {
        return Err(EndpointError::NotHttps);
    }
    Ok(u)
}

/// Where a client looks for the PRM (AUTH §3.2), in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrmSource {
    /// The `resource_metadata` URL of the challenge.
    Challenge,
    /// `/.well-known/oauth-protected-resource` with the MCP endpoint's path after it.
    PathInserted,
    /// `/.well-known/oauth-protected-resource` at the root.
    Root,
}

/// The PRM locations to try for the MCP endpoint `server`, in order: the challenge's
/// `resource_metadata` when it has one (and then only that: the spec allows the
/// well-known fallback only when the header lacks it), else the path-inserted URL (when
/// the endpoint has a path) and the root URL.
pub fn prm_sources(server: &HttpUrl<'_>, in_challenge: bool) -> &'static [PrmSource] {
    if in_challenge {
        &[PrmSource::Challenge]
    } else if server.trimmed_path().is_empty() {
        &[PrmSource::Root]
    } else {
        &[PrmSource::PathInserted, PrmSource::Root]
    }
}

const PRM_SUFFIX: &str = "/.well-known/oauth-protected-resource";

/// Writes the well-known PRM URL of `source` for `server` (RFC 9728 §3.1: the endpoint's
/// path and query after the suffix). [`PrmSource::Challenge`] writes nothing: that URL is
/// the challenge's.
pub fn write_prm_url(
    server: &HttpUrl<'_>,
    source: PrmSource,
    out: &mut [u8],
) -> Result<usize, InsufficientSize> {
    let mut c = Cursor::new(out);
    match source {
        PrmSource::Challenge => {}
        PrmSource::PathInserted => {
            server.put_origin(&mut c);
            c.put(PRM_SUFFIX.as_bytes());
            c.put(server.trimmed_path().as_bytes());
            if let Some(q) = server.query {
                c.put(b"?");
                c.put(q.as_bytes());
            }
        }
        PrmSource::Root => {
            server.put_origin(&mut c);
            c.put(PRM_SUFFIX.as_bytes());
        }
    }
    c.finish()
}

/// Where a client looks for an authorization server's metadata (AUTH §3.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MetadataSource {
    /// RFC 8414: `/.well-known/oauth-authorization-server` then the issuer's path.
    OAuthInserted,
    /// OpenID Connect with path insertion: `/.well-known/openid-configuration` then the
    /// issuer's path.
    OidcInserted,
    /// OpenID Connect Discovery 1.0: the issuer, then `/.well-known/openid-configuration`
    /// (only for an issuer with a path; without one it is the same URL as
    /// [`MetadataSource::OidcInserted`]).
    OidcAppended,
}

/// The metadata URLs of `issuer`, in order. An issuer with a path is never looked up at
/// the root `oauth-authorization-server` (that would be another issuer's document).
pub fn metadata_sources(issuer: &HttpUrl<'_>) -> &'static [MetadataSource] {
    if issuer.trimmed_path().is_empty() {
        &[MetadataSource::OAuthInserted, MetadataSource::OidcInserted]
    } else {
        &[
            MetadataSource::OAuthInserted,
            MetadataSource::OidcInserted,
            MetadataSource::OidcAppended,
        ]
    }
}

/// Writes the metadata URL of `source` for `issuer` (whose trailing `/` is dropped first,
/// RFC 8414 §3.1).
pub fn write_metadata_url(
    issuer: &HttpUrl<'_>,
    source: MetadataSource,
    out: &mut [u8],
) -> Result<usize, InsufficientSize> {
    let mut c = Cursor::new(out);
    issuer.put_origin(&mut c);
    let path = issuer.trimmed_path().as_bytes();
    match source {
        MetadataSource::OAuthInserted => {
            c.put(b"/.well-known/oauth-authorization-server");
            c.put(path);
        }
        MetadataSource::OidcInserted => {
            c.put(b"/.well-known/openid-configuration");
            c.put(path);
        }
        MetadataSource::OidcAppended => {
            c.put(path);
            c.put(b"/.well-known/openid-configuration");
        }
    }
    c.finish()
}

/// Checks an issuer identifier: `https` (or loopback `http`), no query, no fragment.
pub fn check_issuer(issuer: &str) -> Result<HttpUrl<'_>, EndpointError> {
    let u = check_endpoint(issuer)?;
    if u.query.is_some() {
        return Err(EndpointError::Url(UrlError::Query));
    }
    Ok(u)
}

/// The endpoints a 2025-03-26 client falls back to when a server has no PRM (AUTH §3.11):
/// relative to the MCP endpoint's origin, its path dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LegacyEndpoint {
    /// `/.well-known/oauth-authorization-server`: tried first.
    Metadata,
    /// `/authorize`, when there is no metadata.
    Authorize,
    /// `/token`.
    Token,
    /// `/register`.
    Register,
}

/// Writes the 2025-03-26 URL `which` for the MCP endpoint `server`.
pub fn write_legacy_url(
    server: &HttpUrl<'_>,
    which: LegacyEndpoint,
    out: &mut [u8],
) -> Result<usize, InsufficientSize> {
    let mut c = Cursor::new(out);
    server.put_origin(&mut c);
    c.put(match which {
        LegacyEndpoint::Metadata => b"/.well-known/oauth-authorization-server".as_slice(),
        LegacyEndpoint::Authorize => b"/authorize",
        LegacyEndpoint::Token => b"/token",
        LegacyEndpoint::Register => b"/register",
    });
    c.finish()
}

/// The issuer a 2025-03-26 server's metadata must name: the endpoint's origin.
pub fn write_legacy_issuer(
    server: &HttpUrl<'_>,
    out: &mut [u8],
) -> Result<usize, InsufficientSize> {
    let mut c = Cursor::new(out);
    server.put_origin(&mut c);
    c.finish()
}

/// Writes the canonical resource URI of the MCP endpoint `server` (RFC 8707, AUTH §2.5):
/// scheme and host lowercased, port and path kept, the fragment dropped, a path that is
/// only `/` dropped, the query kept (it can identify the server).
pub fn write_canonical_resource(
    server: &HttpUrl<'_>,
    out: &mut [u8],
) -> Result<usize, InsufficientSize> {
    let mut c = Cursor::new(out);
    c.put(server.scheme.as_str().as_bytes());
    c.put(b"://");
    for b in server.host.bytes() {
        c.put(&[b.to_ascii_lowercase()]);
    }
    if let Some(port) = server.port {
        c.put(b":");
        c.put_decimal(u64::from(port));
    }
    if server.path != "/" {
        c.put(server.path.as_bytes());
    }
    if let Some(q) = server.query {
        c.put(b"?");
        c.put(q.as_bytes());
    }
    c.finish()
}

/// Whether the PRM's `resource` may stand for the MCP endpoint `server` (AUTH §3.3): an
/// absolute URL without fragment, of the same origin, whose path is the endpoint's path
/// or a parent of it (segment-wise: `/mcp` covers `/mcp/x`, not `/mcpx`). A client that
/// gets `false` sends no authorization request.
pub fn resource_matches(server: &HttpUrl<'_>, resource: &str) -> bool {
    let Ok(r) = HttpUrl::parse(resource) else {
        return false;
    };
    if r.fragment.is_some() || !server.same_origin(&r) {
        return false;
    }
    let want = r.trimmed_path();
    let have = server.trimmed_path();
    have == want
        || (have.len() > want.len()
            && have.starts_with(want)
            && have.as_bytes()[want.len()] == b'/')
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec::Vec;

    fn url(s: &str) -> HttpUrl<'_> {
        HttpUrl::parse(s).unwrap()
    }

    fn written(
        f: impl FnOnce(&mut [u8]) -> Result<usize, InsufficientSize>,
    ) -> std::string::String {
        let mut buf = [0u8; 256];
        let n = f(&mut buf).unwrap();
        std::string::String::from_utf8(buf[..n].to_vec()).unwrap()
    }

    #[test]
    fn parse() {
        let u = url("HTTPS://Mcp.Example.com:8443/public/mcp?x=1#f");
        assert_eq!(u.scheme, Scheme::Https);
        assert_eq!(
            (u.host, u.port, u.path),
            ("Mcp.Example.com", Some(8443), "/public/mcp")
        );
        assert_eq!((u.query, u.fragment), (Some("x=1"), Some("f")));
        let u = url("http://[::1]:9/");
        assert_eq!(
            (u.host, u.host_unbracketed(), u.effective_port()),
            ("[::1]", "::1", 9)
        );
        assert_eq!(url("http://a").effective_port(), 80);
        for bad in [
            "ftp://a/",
            "javascript:alert(1)",
            "http://",
            "http://u@h/",
            "http://h:x/",
            "http://h: 1/",
            "/mcp",
            "http://[::1/",
        ] {
            assert!(HttpUrl::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn prm_order() {
        let s = url("https://h.example/public/mcp");
        assert_eq!(prm_sources(&s, true), [PrmSource::Challenge]);
        assert_eq!(
            prm_sources(&s, false),
            [PrmSource::PathInserted, PrmSource::Root]
        );
        assert_eq!(
            written(|o| write_prm_url(&s, PrmSource::PathInserted, o)),
            "https://h.example/.well-known/oauth-protected-resource/public/mcp"
        );
        assert_eq!(
            written(|o| write_prm_url(&s, PrmSource::Root, o)),
            "https://h.example/.well-known/oauth-protected-resource"
        );
        // No path (or only `/`): the root alone.
        assert_eq!(
            prm_sources(&url("https://h.example/"), false),
            [PrmSource::Root]
        );
        // A trailing slash is dropped before insertion; the query is kept.
        let s = url("http://localhost:3/mcp/?t=1");
        assert_eq!(
            written(|o| write_prm_url(&s, PrmSource::PathInserted, o)),
            "http://localhost:3/.well-known/oauth-protected-resource/mcp?t=1"
        );
        let mut small = [0u8; 8];
        assert!(write_prm_url(&s, PrmSource::Root, &mut small).is_err());
    }

    #[test]
    fn metadata_order() {
        let i = url("https://a.example/tenant1/");
        let urls: Vec<_> = metadata_sources(&i)
            .iter()
            .map(|&m| written(|o| write_metadata_url(&i, m, o)))
            .collect();
        assert_eq!(
            urls,
            [
                "https://a.example/.well-known/oauth-authorization-server/tenant1",
                "https://a.example/.well-known/openid-configuration/tenant1",
                "https://a.example/tenant1/.well-known/openid-configuration",
            ]
        );
        let i = url("http://localhost:7");
        let urls: Vec<_> = metadata_sources(&i)
            .iter()
            .map(|&m| written(|o| write_metadata_url(&i, m, o)))
            .collect();
        assert_eq!(
            urls,
            [
                "http://localhost:7/.well-known/oauth-authorization-server",
                "http://localhost:7/.well-known/openid-configuration",
            ]
        );
        assert!(check_issuer("https://a.example?x").is_err());
        assert!(check_issuer("http://a.example").is_err());
        assert!(check_issuer("http://127.0.0.1:9/t").is_ok());
    }

    #[test]
    fn legacy_and_canonical() {
        let s = url("https://api.example.com/v1/mcp");
        assert_eq!(
            written(|o| write_legacy_url(&s, LegacyEndpoint::Metadata, o)),
            "https://api.example.com/.well-known/oauth-authorization-server"
        );
        assert_eq!(
            written(|o| write_legacy_url(&s, LegacyEndpoint::Token, o)),
            "https://api.example.com/token"
        );
        assert_eq!(
            written(|o| write_legacy_issuer(&s, o)),
            "https://api.example.com"
        );
        assert_eq!(
            written(|o| write_canonical_resource(
                &url("HTTPS://MCP.Example.com:8443/Server/mcp#frag"),
                o
            )),
            "https://mcp.example.com:8443/Server/mcp"
        );
        assert_eq!(
            written(|o| write_canonical_resource(&url("https://mcp.example.com/"), o)),
            "https://mcp.example.com"
        );
    }

    #[test]
    fn resource_check() {
        let s = url("http://localhost:3000/mcp");
        assert!(resource_matches(&s, "http://localhost:3000/mcp"));
        assert!(resource_matches(&s, "http://LOCALHOST:3000/mcp/"));
        assert!(resource_matches(&s, "http://localhost:3000"));
        assert!(resource_matches(&url("https://h/a/mcp"), "https://h:443/a"));
        assert!(!resource_matches(&s, "https://evil.example.com/mcp"));
        assert!(!resource_matches(&s, "http://localhost:3001/mcp"));
        assert!(!resource_matches(&s, "https://localhost:3000/mcp"));
        assert!(!resource_matches(&s, "http://localhost:3000/mc"));
        assert!(!resource_matches(&s, "http://localhost:3000/mcp/deeper"));
        assert!(!resource_matches(&s, "http://localhost:3000/mcp#x"));
        assert!(!resource_matches(&s, "mcp.example.com"));
    }

    #[test]
    fn endpoints_and_addresses() {
        assert!(check_endpoint("https://as.example/token").is_ok());
        assert!(check_endpoint("http://localhost:1/t").is_ok());
        assert!(check_endpoint("http://127.9.0.1/t").is_ok());
        assert!(check_endpoint("http://[::1]:5/t").is_ok());
        assert!(check_endpoint("http://app.localhost/t").is_ok());
        assert_eq!(
            check_endpoint("http://as.example/t").err(),
            Some(EndpointError::NotHttps)
        );
        assert_eq!(
            check_endpoint("http://localhost.evil.com/t").err(),
            Some(EndpointError::NotHttps)
        );
        for bad in [
            "javascript:alert(1)",
            "data:text/html,x",
            "file:///etc/passwd",
            "vbscript:x",
        ] {
            assert!(
                matches!(check_endpoint(bad), Err(EndpointError::Url(_))),
                "{bad}"
            );
        }
        let c = |s: &str| classify_ip(s.parse().unwrap());
        assert_eq!(c("127.0.0.1"), AddressClass::Loopback);
        assert_eq!(c("::1"), AddressClass::Loopback);
        assert_eq!(c("10.1.2.3"), AddressClass::Private);
        assert_eq!(c("172.31.0.1"), AddressClass::Private);
        assert_eq!(c("192.168.1.1"), AddressClass::Private);
        assert_eq!(c("100.64.0.1"), AddressClass::Private);
        assert_eq!(c("fd00::1"), AddressClass::Private);
        assert_eq!(c("169.254.169.254"), AddressClass::LinkLocal);
        assert_eq!(c("fe80::1"), AddressClass::LinkLocal);
        assert_eq!(c("::ffff:169.254.169.254"), AddressClass::LinkLocal);
        assert_eq!(c("::ffff:127.0.0.1"), AddressClass::Loopback);
        assert_eq!(c("0.0.0.0"), AddressClass::Other);
        assert_eq!(c("93.184.216.34"), AddressClass::Public);
        assert_eq!(c("2606:4700::1111"), AddressClass::Public);
        assert_eq!(c("172.32.0.1"), AddressClass::Public);
    }
}
