//! The canonical resource URI (RFC 8707, AUTH §2.5): comparison, and the metadata URLs
//! built from it (RFC 9728 §3.1).

use super::METADATA_PATH;
use crate::InsufficientSize;
use crate::http::Cursor;

/// The parts of an absolute URI that identify a resource.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Parts<'u> {
    pub scheme: &'u str,
    /// `scheme://authority`, as written.
    pub origin: &'u str,
    pub host: &'u str,
    /// The port, `None` when absent or the scheme's default.
    pub port: Option<&'u str>,
    /// The path and query, `""` for none.
    pub path: &'u str,
}

/// Splits an absolute URI; `None` without a scheme or host, or with a fragment.
pub(super) fn parse(u: &str) -> Option<Parts<'_>> {
    if u.contains('#') {
        return None;
    }
    let (scheme, rest) = u.split_once("://")?;
    let scheme_ok = scheme
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic())
        && scheme
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'));
    if !scheme_ok {
        return None;
    }
    let split = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, path) = rest.split_at(split);
    let hostport = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let (host, port) = if let Some(v6) = hostport.strip_prefix('[') {
        let (h, after) = v6.split_once(']')?;
        (h, after.strip_prefix(':'))
    } else {
        match hostport.rsplit_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (hostport, None),
        }
    };
    if host.is_empty() || port.is_some_and(|p| !p.bytes().all(|b| b.is_ascii_digit())) {
        return None;
    }
    let default = if scheme.eq_ignore_ascii_case("http") {
        "80"
    } else if scheme.eq_ignore_ascii_case("https") {
        "443"
    } else {
        ""
    };
    let port = port.filter(|p| !p.is_empty() && *p != default);
    Some(Parts {
        scheme,
        origin: &u[..scheme.len() + 3 + authority.len()],
        host,
        port,
        path,
    })
}

/// Whether two URIs name the same resource: scheme and host compared without case, a
/// default port (80, 443) the same as none, an empty path the same as `/`, the rest
/// exact. A URI with a fragment, or not absolute, names nothing (false).
pub fn same_resource(a: &str, b: &str) -> bool {
    let (Some(a), Some(b)) = (parse(a), parse(b)) else {
        return false;
    };
    fn path(p: &str) -> &str {
        if p.is_empty() { "/" } else { p }
    }
    a.scheme.eq_ignore_ascii_case(b.scheme)
        && a.host.eq_ignore_ascii_case(b.host)
        && a.port == b.port
        && path(a.path) == path(b.path)
}

/// Writes the absolute URL of the metadata document of `resource`: its origin, then
/// `/.well-known/oauth-protected-resource`, then its path when it has one (the
/// path-inserted form of RFC 9728 §3.1, AUTH §2.3).
///
/// # Errors
/// [`InsufficientSize`] when `out` is too short.
pub fn write_metadata_url(resource: &str, out: &mut [u8]) -> Result<usize, InsufficientSize> {
    let mut c = Cursor::new(out);
    put_metadata_url(&mut c, resource);
    c.finish()
}

/// Bytes [`write_metadata_url`] writes for `resource`.
pub fn metadata_url_len(resource: &str) -> usize {
    match write_metadata_url(resource, &mut []) {
        Ok(n) => n,
        Err(e) => e.required,
    }
}

pub(super) fn put_metadata_url(c: &mut Cursor<'_>, resource: &str) {
    let Some(p) = parse(resource) else {
        return;
    };
    c.put(p.origin.as_bytes());
    c.put(METADATA_PATH.as_bytes());
    let path = p.path.split('?').next().unwrap_or("");
    if path != "/" {
        c.put(path.trim_end_matches('/').as_bytes());
    }
}

/// Whether `path` (a request's, without query) is a location of the metadata document:
/// the root form, or the root form followed by the resource's path or the endpoint's.
pub(crate) fn is_metadata_path(path: &str, resource: &str, endpoint: &str) -> bool {
    let Some(rest) = path.strip_prefix(METADATA_PATH) else {
        return false;
    };
    let resource_path = parse(resource)
        .map(|p| p.path.split('?').next().unwrap_or(""))
        .unwrap_or("");
    rest.is_empty() || rest == resource_path.trim_end_matches('/') || rest == endpoint
}
