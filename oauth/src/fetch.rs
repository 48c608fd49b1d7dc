//! The HTTP client of discovery, registration and the token endpoint, with the guard
//! rails of AUTH §4: every URL must pass the core's scheme rule
//! ([`check_endpoint`]: HTTPS, or HTTP to loopback), its host must resolve only to
//! addresses the [`Policy`] allows ([`classify_ip`]: no private or link-local address
//! unless allowed), and no redirect is ever followed (ureq with `max_redirects(0)`: a
//! 3xx is handed back as it is, and the caller decides).
//!
//! It is also the transport of the `oauth2` crate ([`oauth2::SyncHttpClient`]), so the
//! token and refresh requests go through the same checks.

use std::io;
use std::net::ToSocketAddrs;
use std::time::Duration;

use oauth2::http;
use picomcp::http::oauth::urls::{AddressClass, check_endpoint, classify_ip};

/// Which resolved addresses may be fetched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Policy {
    /// Loopback (`127/8`, `::1`). Allowed by default only when the MCP server itself is
    /// on loopback (development: everything is local); a remote server naming a loopback
    /// URL is the SSRF case.
    pub allow_loopback: bool,
    /// Private, shared, link-local and reserved ranges (`10/8`, `172.16/12`,
    /// `192.168/16`, `169.254/16`, `fc00::/7`, `fe80::/10` …). Off unless the user says
    /// so (`--oauth-allow-private`).
    pub allow_private: bool,
}

/// An HTTP response, whole.
#[derive(Debug)]
pub struct Response {
    /// The status code.
    pub status: u16,
    /// `Location` of a 3xx.
    pub location: Option<String>,
    /// The body (at most 1 MiB is read).
    pub body: Vec<u8>,
}

impl Response {
    /// The body as JSON, when it is.
    pub fn json(&self) -> Option<serde_json::Value> {
        serde_json::from_slice(&self.body).ok()
    }
}

/// The guarded HTTP client.
pub struct Fetcher {
    agent: ureq::Agent,
    policy: Policy,
}

const MAX_BODY: u64 = 1 << 20;

impl Fetcher {
    /// A client with `timeout` for each whole request.
    pub fn new(policy: Policy, timeout: Duration) -> Self {
        let config = ureq::Agent::config_builder()
            .max_redirects(0)
            .http_status_as_error(false)
            .timeout_global(Some(timeout))
            .build();
        Fetcher {
            agent: config.into(),
            policy,
        }
    }

    /// Checks `url` against the scheme rule and the address policy (resolving its host).
    /// The connection resolves the name again: a DNS answer that changes in between is
    /// not caught (no pinning; see docs/DESIGN.md).
    pub fn check(&self, url: &str) -> Result<(), String> {
        let u = check_endpoint(url).map_err(|e| format!("{url}: {e}"))?;
        let addrs = (u.host_unbracketed(), u.effective_port())
            .to_socket_addrs()
            .map_err(|e| format!("{url}: cannot resolve: {e}"))?;
        for addr in addrs {
            let allowed = match classify_ip(addr.ip()) {
                AddressClass::Public => true,
                AddressClass::Loopback => self.policy.allow_loopback || self.policy.allow_private,
                _ => self.policy.allow_private,
            };
            if !allowed {
                return Err(format!(
                    "{url}: resolves to {} ({:?} address), which is not allowed (SSRF guard; \
                     --oauth-allow-private allows it)",
                    addr.ip(),
                    classify_ip(addr.ip())
                ));
            }
        }
        Ok(())
    }

    /// GET `url` with `headers`, after [`Fetcher::check`].
    pub fn get(&self, url: &str, headers: &[(&str, &str)]) -> Result<Response, String> {
        self.check(url)?;
        let mut req = self.agent.get(url);
        for (n, v) in headers {
            req = req.header(*n, *v);
        }
        read(req.call().map_err(|e| format!("GET {url}: {e}"))?)
    }

    /// POST `body` to `url`, after [`Fetcher::check`].
    pub fn post(
        &self,
        url: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> Result<Response, String> {
        self.check(url)?;
        let mut req = self.agent.post(url);
        for (n, v) in headers {
            req = req.header(*n, *v);
        }
        read(req.send(body).map_err(|e| format!("POST {url}: {e}"))?)
    }
}

fn read(mut resp: http::Response<ureq::Body>) -> Result<Response, String> {
    let status = resp.status().as_u16();
    let location = resp
        .headers()
        .get("location")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let body = resp
        .body_mut()
        .with_config()
        .limit(MAX_BODY)
        .read_to_vec()
        .map_err(|e| format!("reading the response: {e}"))?;
    Ok(Response {
        status,
        location,
        body,
    })
}

impl oauth2::SyncHttpClient for Fetcher {
    type Error = io::Error;

    fn call(&self, request: oauth2::HttpRequest) -> Result<oauth2::HttpResponse, io::Error> {
        let url = request.uri().to_string();
        self.check(&url).map_err(io::Error::other)?;
        let resp = self
            .agent
            .run(request)
            .map_err(|e| io::Error::other(format!("{url}: {e}")))?;
        let status = resp.status();
        let content_type = resp.headers().get(http::header::CONTENT_TYPE).cloned();
        let got = read(resp).map_err(io::Error::other)?;
        let mut out = http::Response::builder().status(status);
        if let Some(ct) = content_type {
            out = out.header(http::header::CONTENT_TYPE, ct);
        }
        out.body(got.body).map_err(io::Error::other)
    }
}
