//! Authorization, resource-server side: the MCP endpoint as an OAuth 2.1 protected
//! resource (AUTH §2, §4; docs/DESIGN.md, "Authorization").
//!
//! What this layer does, for every request to the endpoint once an [`AuthConfig`] is set
//! ([`EndpointConfig::auth`](super::endpoint::EndpointConfig::auth)):
//!
//! - serves the Protected Resource Metadata document (RFC 9728) at
//!   `/.well-known/oauth-protected-resource` and its path-suffixed form
//!   (`/.well-known/oauth-protected-resource/mcp`) ([`write_metadata`]);
//! - takes the Bearer token from the `Authorization` header only (a token in the query
//!   string is refused, 400 `invalid_request`) ([`bearer_token`]);
//! - hands the raw token to the host's [`Verifier`] (signature, issuer, introspection: the
//!   host's business), which reports the claims through a [`Claims`] sink;
//! - enforces what the spec makes the server's duty: the audience is this server's
//!   canonical resource URI (RFC 8707, compared canonically: [`same_resource`]), the token
//!   is not expired (the caller's Unix time, with [`AuthConfig::leeway_s`]), the scopes
//!   the endpoint and the operation need are granted;
//! - answers a failure with the `WWW-Authenticate: Bearer` challenge: 401 with
//!   `resource_metadata` (and `scope`, `error="invalid_token"` when a token was sent),
//!   403 `insufficient_scope` naming every scope the operation needs (the 2025-11-25
//!   step-up) ([`write_challenge`]).
//!
//! The verified [`Principal`] (subject, client id, granted scopes) is copied into bounded
//! memory; the token itself is never stored beyond the call and never forwarded anywhere
//! (token passthrough is forbidden, AUTH §2.5). A legacy session records the
//! [`OwnerKey`] of the principal that started it and is unknown (404) to any other.
//!
//! Bounds (fixed at compile time, each overflow typed): a subject or client id of at most
//! [`MAX_CLAIM`] bytes (longer: 401 `invalid_token`), at most [`MAX_SCOPES`] scope names
//! (more: [`AuthConfigError::TooManyScopes`]), the metadata document and a challenge in
//! [`AUTH_TEXT`] bytes (larger: [`AuthConfigError::TooLarge`] at `Endpoint::new`).

mod check;
mod uri;

pub use check::{AuthInput, Denial, DenialKind, ScopePolicy, authenticate, bearer_token};
pub(crate) use uri::is_metadata_path;
pub use uri::{metadata_url_len, same_resource, write_metadata_url};

use crate::InsufficientSize;
use crate::json::JsonWriter;

/// The root well-known path of the Protected Resource Metadata document (RFC 9728 §3).
pub const METADATA_PATH: &str = "/.well-known/oauth-protected-resource";

/// Scope names an [`AuthConfig`] can hold at most (bits of a grant).
pub const MAX_SCOPES: usize = 64;

/// Bytes of a principal's subject and of its client id at most (longer claims make the
/// token invalid: 401). A fixed bound, not configuration: [`Principal`] is a `Copy`
/// value the host takes out of the endpoint per request (docs/DESIGN.md,
/// "Authorization").
pub const MAX_CLAIM: usize = 256;

/// Bytes the endpoint keeps for the metadata document and one challenge (checked at
/// [`Endpoint::new`](super::endpoint::Endpoint::new), which refuses a configuration
/// whose texts do not fit with [`AuthConfigError::TooLarge`]). A fixed bound, not
/// configuration: 2 KiB holds a document with dozens of typical scope names.
pub const AUTH_TEXT: usize = 2048;

/// Bytes of an [`OwnerKey`] (128 bits of SHA-256).
pub const OWNER_LEN: usize = 16;

/// The principal a legacy session was started by ([`Principal::owner_key`]): a request
/// naming the session under another principal is answered as for an unknown session
/// (docs/DESIGN.md, "Authorization").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct OwnerKey(pub [u8; OWNER_LEN]);

/// The endpoint as a protected resource: who issues its tokens and what they must say.
#[derive(Clone, Copy, Debug)]
pub struct AuthConfig<'a> {
    /// This server's canonical resource URI (RFC 8707), e.g. `https://mcp.example.com/mcp`:
    /// the PRM `resource`, and what a token's audience must name. Absolute, no fragment.
    pub resource: &'a str,
    /// Issuer URLs of the authorization servers (at least one).
    pub authorization_servers: &'a [&'a str],
    /// Every scope name the server knows (at most [`MAX_SCOPES`]): a grant is a bitmask
    /// over this table ([`Principal::granted`]); scopes a token carries that are not here
    /// are ignored.
    pub scopes: &'a [&'a str],
    /// The scopes the metadata advertises (`scopes_supported`: the minimal set for basic
    /// use, AUTH §2.3). Default none (the field is left out).
    pub scopes_supported: &'a [&'a str],
    /// Space-delimited scopes every request to the endpoint needs (also the `scope` of the
    /// 401 challenge). Default none.
    pub required: &'a str,
    /// Clock skew tolerated on `exp` and `nbf`, in seconds. Default 60.
    pub leeway_s: u64,
    /// A token without an expiry is invalid. Default true.
    pub require_expiry: bool,
    /// `resource_name` of the metadata. Default none.
    pub resource_name: Option<&'a str>,
}

impl<'a> AuthConfig<'a> {
    /// A protected resource with its canonical URI and authorization servers, and the
    /// defaults for the rest.
    pub const fn new(resource: &'a str, authorization_servers: &'a [&'a str]) -> Self {
        AuthConfig {
            resource,
            authorization_servers,
            scopes: &[],
            scopes_supported: &[],
            required: "",
            leeway_s: 60,
            require_expiry: true,
            resource_name: None,
        }
    }

    /// Checks the configuration: an absolute resource URI without a fragment, at least
    /// one authorization server, at most [`MAX_SCOPES`] scope names, each a valid scope
    /// token (RFC 6749 §3.3), and every required scope among them.
    ///
    /// # Errors
    /// The first [`AuthConfigError`].
    pub fn check(&self) -> Result<(), AuthConfigError> {
        if uri::parse(self.resource).is_none() {
            return Err(AuthConfigError::BadResource);
        }
        if self.authorization_servers.is_empty()
            || self.authorization_servers.iter().any(|a| a.is_empty())
        {
            return Err(AuthConfigError::NoAuthorizationServer);
        }
        if self.scopes.len() > MAX_SCOPES {
            return Err(AuthConfigError::TooManyScopes);
        }
        let valid = |s: &str| {
            !s.is_empty()
                && s.bytes()
                    .all(|b| b == 0x21 || (0x23..=0x5b).contains(&b) || (0x5d..=0x7e).contains(&b))
        };
        if !self.scopes.iter().all(|s| valid(s)) || !self.scopes_supported.iter().all(|s| valid(s))
        {
            return Err(AuthConfigError::BadScope);
        }
        if scope_mask(self.scopes, self.required).1 {
            return Err(AuthConfigError::UnknownRequiredScope);
        }
        Ok(())
    }

    /// The grant of the scopes in `text` (space-delimited) over [`scopes`](Self::scopes).
    pub fn mask(&self, text: &str) -> u64 {
        scope_mask(self.scopes, text).0
    }
}

/// An [`AuthConfig`] the layer cannot work with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AuthConfigError {
    /// `resource` is not an absolute URI (scheme and host), or has a fragment.
    BadResource,
    /// No authorization server.
    NoAuthorizationServer,
    /// More than [`MAX_SCOPES`] scope names.
    TooManyScopes,
    /// A scope name is empty or has a character RFC 6749 §3.3 forbids (space, `"`, `\`).
    BadScope,
    /// A required scope is not among [`AuthConfig::scopes`] (it could never be granted).
    UnknownRequiredScope,
    /// The metadata document or a challenge does not fit [`AUTH_TEXT`] bytes.
    TooLarge {
        /// Bytes needed.
        required: usize,
    },
}

/// The mask of the names in `text` over `names`, and whether some name was not there.
pub(crate) fn scope_mask(names: &[&str], text: &str) -> (u64, bool) {
    let mut mask = 0u64;
    let mut unknown = false;
    for s in text.split(' ').filter(|s| !s.is_empty()) {
        match names.iter().take(MAX_SCOPES).position(|n| *n == s) {
            Some(i) => mask |= 1u64 << i,
            None => unknown = true,
        }
    }
    (mask, unknown)
}

/// Who a verified token speaks for: copied out of the verifier's claims into bounded
/// memory, valid until the endpoint takes the next request. Never the token itself.
#[derive(Clone, Copy, Debug)]
pub struct Principal {
    subject: [u8; MAX_CLAIM],
    subject_len: usize,
    client: [u8; MAX_CLAIM],
    client_len: usize,
    granted: u64,
    expires_at: Option<u64>,
}

impl Principal {
    /// No one (empty subject, nothing granted).
    pub const EMPTY: Principal = Principal {
        subject: [0; MAX_CLAIM],
        subject_len: 0,
        client: [0; MAX_CLAIM],
        client_len: 0,
        granted: 0,
        expires_at: None,
    };

    /// The token's subject (`sub`), or `""`.
    pub fn subject(&self) -> &str {
        core::str::from_utf8(&self.subject[..self.subject_len]).unwrap_or("")
    }

    /// The client the token was issued to (`client_id`/`azp`), or `""`.
    pub fn client_id(&self) -> &str {
        core::str::from_utf8(&self.client[..self.client_len]).unwrap_or("")
    }

    /// Who this is, as a legacy session records its owner: SHA-256 of the subject and
    /// the client id (each length-prefixed), truncated to [`OWNER_LEN`] bytes. Fixed-size
    /// (a slot holds it without the claims), the same for every token of one subject at
    /// one client (a refresh or a step-up keeps the session), different otherwise.
    pub fn owner_key(&self) -> OwnerKey {
        use sha2::Digest;
        let mut h = sha2::Sha256::new();
        for part in [self.subject(), self.client_id()] {
            h.update((part.len() as u32).to_be_bytes());
            h.update(part.as_bytes());
        }
        let full = h.finalize();
        let mut out = [0u8; OWNER_LEN];
        out.copy_from_slice(&full[..OWNER_LEN]);
        OwnerKey(out)
    }

    /// The granted scopes: bit `i` is [`AuthConfig::scopes`]`[i]`.
    pub fn granted(&self) -> u64 {
        self.granted
    }

    /// Whether scope `name` of `config` is granted.
    pub fn has_scope(&self, config: &AuthConfig<'_>, name: &str) -> bool {
        let (mask, unknown) = scope_mask(config.scopes, name);
        !unknown && mask != 0 && self.granted & mask == mask
    }

    /// The token's expiry (Unix seconds), if it had one.
    pub fn expires_at(&self) -> Option<u64> {
        self.expires_at
    }

    /// The grant as the server layer takes it
    /// ([`Server::handle_as`](crate::server::Server::handle_as)).
    #[cfg(feature = "server")]
    pub fn access<'a>(&self, config: &AuthConfig<'a>) -> crate::server::Access<'a> {
        crate::server::Access::new(config.scopes, self.granted)
    }
}

/// Why the host's verifier refused a token (a bad signature, an unknown issuer, an
/// introspection answer of `active: false`, ...): 401 `invalid_token` with this
/// description.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rejected(pub &'static str);

/// The host's token check: verifies the raw `token` (its signature and issuer, or by
/// introspection) and reports its claims through `claims`. The layer then checks the
/// audience, expiry and scopes itself. The token is valid only during the call: do not
/// keep it, and never forward it to another service.
pub trait Verifier {
    /// Verifies `token`, reporting its claims.
    ///
    /// # Errors
    /// [`Rejected`] when the token is not genuine.
    fn verify(&mut self, token: &str, claims: &mut Claims<'_>) -> Result<(), Rejected>;
}

impl<F> Verifier for F
where
    F: FnMut(&str, &mut Claims<'_>) -> Result<(), Rejected>,
{
    fn verify(&mut self, token: &str, claims: &mut Claims<'_>) -> Result<(), Rejected> {
        self(token, claims)
    }
}

/// Where a [`Verifier`] reports a token's claims; each call copies what it needs, so the
/// values may borrow the verifier's own decoding buffers.
pub struct Claims<'p> {
    config: &'p AuthConfig<'p>,
    principal: &'p mut Principal,
    audience_seen: bool,
    audience_ok: bool,
    not_before: Option<u64>,
    too_long: bool,
}

impl<'p> Claims<'p> {
    fn new(config: &'p AuthConfig<'p>, principal: &'p mut Principal) -> Self {
        *principal = Principal::EMPTY;
        Claims {
            config,
            principal,
            audience_seen: false,
            audience_ok: false,
            not_before: None,
            too_long: false,
        }
    }

    /// The subject (`sub`); at most [`MAX_CLAIM`] bytes.
    pub fn subject(&mut self, sub: &str) {
        self.too_long |= copy(
            &mut self.principal.subject,
            &mut self.principal.subject_len,
            sub,
        );
    }

    /// The client id (`client_id` or `azp`); at most [`MAX_CLAIM`] bytes.
    pub fn client_id(&mut self, id: &str) {
        self.too_long |= copy(
            &mut self.principal.client,
            &mut self.principal.client_len,
            id,
        );
    }

    /// One audience (`aud`, or one entry of it; call once per entry).
    pub fn audience(&mut self, aud: &str) {
        self.audience_seen = true;
        self.audience_ok |= same_resource(aud, self.config.resource);
    }

    /// The expiry (`exp`, Unix seconds).
    pub fn expires_at(&mut self, exp: u64) {
        self.principal.expires_at = Some(exp);
    }

    /// The start of validity (`nbf`, Unix seconds).
    pub fn not_before(&mut self, nbf: u64) {
        self.not_before = Some(nbf);
    }

    /// Granted scopes (`scope`, space-delimited; call again to add more). A verifier that
    /// knows a scope hierarchy reports the narrower scopes a broad one implies.
    pub fn scope(&mut self, scope: &str) {
        self.principal.granted |= scope_mask(self.config.scopes, scope).0;
    }
}

impl Claims<'_> {
    /// Reports the claims of a JWT or introspection answer given as a JSON object (RFC
    /// 7519, RFC 9068, RFC 7662): `sub`, `client_id` (else `azp`), `aud` (a string or an
    /// array), `exp`, `nbf` (numbers of seconds; fractions dropped), `scope`
    /// (space-delimited) and `scp` (an array). Other members are ignored; members of the
    /// wrong type are skipped (the rules then refuse what they need). For hosts whose
    /// verifier produces JSON (the bindings, the C ABI): one place reads it. Strings with
    /// escapes are decoded into a [`MAX_CLAIM`]-byte buffer (a longer one is too long).
    pub fn report_json(&mut self, claims: crate::json::Json<'_>) {
        let mut buf = [0u8; MAX_CLAIM];
        let mut text = |v: crate::json::Json<'_>, f: &mut dyn FnMut(&str)| {
            if let Some(s) = v.as_str() {
                match s.as_plain() {
                    Some(p) => f(p),
                    None => match s.unescape_into(&mut buf) {
                        Ok(t) => f(t),
                        Err(_) => f(TOO_LONG),
                    },
                }
            }
        };
        let seconds = |v: crate::json::Json<'_>| {
            v.as_u64()
                .or_else(|| v.as_f64().filter(|f| *f >= 0.0).map(|f| f as u64))
        };
        if let Some(v) = claims.get("sub") {
            text(v, &mut |s| self.subject(s));
        }
        if let Some(v) = claims.get("client_id").or_else(|| claims.get("azp")) {
            text(v, &mut |s| self.client_id(s));
        }
        if let Some(v) = claims.get("aud") {
            if v.as_str().is_some() {
                text(v, &mut |s| self.audience(s));
            } else {
                for a in v.elements() {
                    text(a, &mut |s| self.audience(s));
                }
            }
        }
        if let Some(e) = claims.get("exp").and_then(seconds) {
            self.expires_at(e);
        }
        if let Some(n) = claims.get("nbf").and_then(seconds) {
            self.not_before(n);
        }
        if let Some(v) = claims.get("scope") {
            text(v, &mut |s| self.scope(s));
        }
        if let Some(v) = claims.get("scp") {
            for s in v.elements() {
                text(s, &mut |s| self.scope(s));
            }
        }
    }
}

/// Stands for a claim longer than [`MAX_CLAIM`] (so the copy reports it as too long).
const TOO_LONG: &str = {
    const B: [u8; MAX_CLAIM + 1] = [b'x'; MAX_CLAIM + 1];
    match core::str::from_utf8(&B) {
        Ok(s) => s,
        Err(_) => "",
    }
};

/// Copies `s` into `buf` (`len`); true when it did not fit.
fn copy(buf: &mut [u8; MAX_CLAIM], len: &mut usize, s: &str) -> bool {
    if s.len() > buf.len() {
        *len = 0;
        return true;
    }
    buf[..s.len()].copy_from_slice(s.as_bytes());
    *len = s.len();
    false
}

/// Writes the Protected Resource Metadata document (RFC 9728 §2): `resource`,
/// `authorization_servers`, `scopes_supported` (when configured),
/// `bearer_methods_supported` (`["header"]`: the only way a token is taken) and
/// `resource_name` (when configured).
///
/// # Errors
/// [`InsufficientSize`] when `out` is too short.
pub fn write_metadata(config: &AuthConfig<'_>, out: &mut [u8]) -> Result<usize, InsufficientSize> {
    let mut w = JsonWriter::new(out);
    w.begin_object();
    w.key("resource");
    w.string(config.resource);
    w.key("authorization_servers");
    w.begin_array();
    for a in config.authorization_servers {
        w.string(a);
    }
    w.end_array();
    if !config.scopes_supported.is_empty() {
        w.key("scopes_supported");
        w.begin_array();
        for s in config.scopes_supported {
            w.string(s);
        }
        w.end_array();
    }
    w.key("bearer_methods_supported");
    w.begin_array();
    w.string("header");
    w.end_array();
    if let Some(name) = config.resource_name {
        w.key("resource_name");
        w.string(name);
    }
    w.end_object();
    w.finish()
}

/// Writes the `WWW-Authenticate` value for `denial`:
/// `Bearer resource_metadata="…"[, scope="…"][, error="…", error_description="…"]`.
/// A request that sent no credentials gets no `error` (RFC 6750 §3.1).
///
/// # Errors
/// [`InsufficientSize`] when `out` is too short.
pub fn write_challenge(
    config: &AuthConfig<'_>,
    denial: &Denial<'_>,
    out: &mut [u8],
) -> Result<usize, InsufficientSize> {
    let mut c = super::Cursor::new(out);
    c.put(b"Bearer resource_metadata=\"");
    uri::put_metadata_url(&mut c, config.resource);
    c.put(b"\"");
    if denial.scope_needed() {
        // Each name once: the endpoint's required scopes, then the operation's others.
        fn words(s: &str) -> impl Iterator<Item = &str> {
            s.split(' ').filter(|n| !n.is_empty())
        }
        let mut first = true;
        let mut put = |c: &mut super::Cursor<'_>, name: &str| {
            c.put(if first { b", scope=\"" } else { b" " });
            first = false;
            c.put(name.as_bytes());
        };
        for name in words(config.required) {
            put(&mut c, name);
        }
        for name in words(denial.operation_scopes.unwrap_or("")) {
            if !words(config.required).any(|r| r == name) {
                put(&mut c, name);
            }
        }
        if !first {
            c.put(b"\"");
        }
    }
    if let Some(error) = denial.kind.error() {
        c.put(b", error=\"");
        c.put(error.as_bytes());
        c.put(b"\", error_description=\"");
        c.put(denial.description.as_bytes());
        c.put(b"\"");
    }
    c.finish()
}

#[cfg(test)]
mod tests;
