//! Authorization over HTTP for C: the endpoint as an OAuth 2.1 protected resource
//! (`picomcp::http::auth`; docs/DESIGN.md, "Authorization").
//!
//! The configuration (`picomcp_auth_config`, named by `picomcp_endpoint_config.auth`) is
//! copied into the endpoint's memory like the rest of its text. Per request,
//! `picomcp_endpoint_handle_request_auth` calls the host's `picomcp_verify_fn` with the
//! raw Bearer token; the callback verifies it (signature, issuer, or introspection) and
//! reports the claims through the `picomcp_claims` it is given (all at once as JSON with
//! `picomcp_claims_report_json`, or one by one). The core then checks audience, expiry
//! and scopes. `picomcp_endpoint_principal` gives the verified caller, never the token.

use core::ffi::c_void;

use picomcp_core::http::auth::{AuthConfig, Claims, MAX_SCOPES, Rejected};
use picomcp_core::json::Json;

use crate::boundary::{FfiResult, boundary, in_bytes, input, out, str_arg};
use crate::status::picomcp_status;
use crate::types::picomcp_str;

/// The most authorization servers a `picomcp_auth_config` may name.
pub const PICOMCP_AUTH_MAX_SERVERS: usize = 4;
/// The most scope names a `picomcp_auth_config` may list (each of `scopes` and
/// `scopes_supported`).
pub const PICOMCP_AUTH_MAX_SCOPES: usize = 64;
const _: () = assert!(PICOMCP_AUTH_MAX_SCOPES == MAX_SCOPES);

/// The endpoint as an OAuth 2.1 protected resource (`picomcp_endpoint_config.auth`;
/// `picomcp_auth_config_init` fills the defaults). Text is copied into the endpoint.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct picomcp_auth_config {
    /// The canonical resource URI: the metadata's `resource`, the tokens' audience.
    pub resource: picomcp_str,
    /// Issuer URLs of the authorization servers (1 to `PICOMCP_AUTH_MAX_SERVERS`).
    pub authorization_servers: *const picomcp_str,
    /// How many.
    pub authorization_server_count: usize,
    /// Every scope name the server knows (a grant is a bitmask over these).
    pub scopes: *const picomcp_str,
    /// How many (at most `PICOMCP_AUTH_MAX_SCOPES`).
    pub scope_count: usize,
    /// The scopes the metadata advertises.
    pub scopes_supported: *const picomcp_str,
    /// How many.
    pub scopes_supported_count: usize,
    /// Scopes every request needs, space-delimited (absent: none).
    pub required: picomcp_str,
    /// Clock skew tolerated on `exp` and `nbf`, seconds. Default 60.
    pub leeway_s: u64,
    /// A token without `exp` is invalid. Default true.
    pub require_expiry: bool,
}

/// Fills `config` with the defaults (no resource, no servers: set them).
///
/// # Safety
/// `config` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_auth_config_init(
    config: *mut picomcp_auth_config,
) -> picomcp_status {
    boundary(|| {
        // SAFETY: caller contract.
        let c = unsafe { out(config) }?;
        let d = AuthConfig::new("", &[]);
        *c = picomcp_auth_config {
            resource: picomcp_str::NONE,
            authorization_servers: core::ptr::null(),
            authorization_server_count: 0,
            scopes: core::ptr::null(),
            scope_count: 0,
            scopes_supported: core::ptr::null(),
            scopes_supported_count: 0,
            required: picomcp_str::NONE,
            leeway_s: d.leeway_s,
            require_expiry: d.require_expiry,
        };
        Ok(())
    })
}

/// An auth configuration read from C: its strings, to be copied into the endpoint.
pub(crate) struct AuthPlan<'c> {
    pub resource: &'c str,
    pub required: &'c str,
    /// Servers, then scopes, then supported scopes.
    pub names: [&'c str; PICOMCP_AUTH_MAX_SERVERS + 2 * PICOMCP_AUTH_MAX_SCOPES],
    pub n_servers: usize,
    pub n_scopes: usize,
    pub n_supported: usize,
    pub leeway_s: u64,
    pub require_expiry: bool,
}

impl AuthPlan<'_> {
    /// Views (`&str`) the endpoint keeps for the lists.
    pub fn views(&self) -> usize {
        self.n_servers + self.n_scopes + self.n_supported
    }

    /// Bytes of text to copy.
    pub fn text(&self) -> usize {
        self.resource.len()
            + self.required.len()
            + self.names[..self.views()]
                .iter()
                .map(|s| s.len())
                .sum::<usize>()
    }
}

/// Reads `n` strings of a C array into `into`.
///
/// # Safety
/// `list` has `n` readable entries with readable strings (when `n > 0`).
unsafe fn strings(list: *const picomcp_str, n: usize, into: &mut [&str]) -> FfiResult {
    if n == 0 {
        return Ok(());
    }
    if list.is_null() {
        return Err(picomcp_status::NullArgument);
    }
    for (i, slot) in into.iter_mut().take(n).enumerate() {
        // SAFETY: caller contract.
        *slot = unsafe { str_arg(*list.add(i)) }?;
    }
    Ok(())
}

/// # Safety
/// `c` NULL or readable, with readable strings and arrays.
pub(crate) unsafe fn plan<'c>(c: *const picomcp_auth_config) -> FfiResult<Option<AuthPlan<'c>>> {
    if c.is_null() {
        return Ok(None);
    }
    // SAFETY: caller contract.
    let c = unsafe { input(c) }?;
    let bad = picomcp_status::InvalidArgument;
    if c.authorization_server_count > PICOMCP_AUTH_MAX_SERVERS
        || c.scope_count > PICOMCP_AUTH_MAX_SCOPES
        || c.scopes_supported_count > PICOMCP_AUTH_MAX_SCOPES
    {
        return Err(bad);
    }
    let mut p = AuthPlan {
        // SAFETY: caller contract for each string and array below.
        resource: unsafe { str_arg(c.resource) }?,
        required: if c.required.ptr.is_null() {
            ""
        } else {
            // SAFETY: as above.
            unsafe { str_arg(c.required) }?
        },
        names: [""; PICOMCP_AUTH_MAX_SERVERS + 2 * PICOMCP_AUTH_MAX_SCOPES],
        n_servers: c.authorization_server_count,
        n_scopes: c.scope_count,
        n_supported: c.scopes_supported_count,
        leeway_s: c.leeway_s,
        require_expiry: c.require_expiry,
    };
    let (servers, rest) = p.names.split_at_mut(PICOMCP_AUTH_MAX_SERVERS);
    let (scopes, supported) = rest.split_at_mut(PICOMCP_AUTH_MAX_SCOPES);
    // SAFETY: caller contract.
    unsafe {
        strings(c.authorization_servers, p.n_servers, servers)?;
        strings(c.scopes, p.n_scopes, scopes)?;
        strings(c.scopes_supported, p.n_supported, supported)?;
    }
    // Packed: servers, scopes, supported, one after another.
    let mut packed = [""; PICOMCP_AUTH_MAX_SERVERS + 2 * PICOMCP_AUTH_MAX_SCOPES];
    let all = p.names[..p.n_servers]
        .iter()
        .chain(&p.names[PICOMCP_AUTH_MAX_SERVERS..PICOMCP_AUTH_MAX_SERVERS + p.n_scopes])
        .chain(
            &p.names[PICOMCP_AUTH_MAX_SERVERS + PICOMCP_AUTH_MAX_SCOPES
                ..PICOMCP_AUTH_MAX_SERVERS + PICOMCP_AUTH_MAX_SCOPES + p.n_supported],
        );
    for (slot, s) in packed.iter_mut().zip(all) {
        *slot = s;
    }
    p.names = packed;
    Ok(Some(p))
}

/// Copies `s` into the front of `text` and returns the copy (as `'static`: the endpoint's
/// memory, kept by the caller until deinit).
pub(crate) fn keep(text: &mut &'static mut [u8], s: &str) -> FfiResult<&'static str> {
    let (buf, rest) = core::mem::take(text).split_at_mut(s.len());
    buf.copy_from_slice(s.as_bytes());
    *text = rest;
    core::str::from_utf8(buf).map_err(|_| picomcp_status::InvalidUtf8)
}

/// The core configuration over the copies: `views` holds the lists (servers, scopes,
/// supported), already copied.
pub(crate) fn config(
    p: &AuthPlan<'_>,
    resource: &'static str,
    required: &'static str,
    views: &'static [&'static str],
) -> FfiResult<AuthConfig<'static>> {
    let (servers, rest) = views.split_at(p.n_servers);
    let (scopes, supported) = rest.split_at(p.n_scopes);
    let mut c = AuthConfig::new(resource, servers);
    c.scopes = scopes;
    c.scopes_supported = supported;
    c.required = required;
    c.leeway_s = p.leeway_s;
    c.require_expiry = p.require_expiry;
    c.check().map_err(|_| picomcp_status::InvalidArgument)?;
    Ok(c)
}

/// Where a verifier reports a token's claims (valid during the callback only).
pub struct picomcp_claims {
    _opaque: [u8; 0],
}

/// The host's token check: verify `token` (`token_len` bytes, not NUL-terminated;
/// signature and issuer, or introspection), report its claims through `claims`, and
/// return true; false rejects it (401). The token is valid during the call only: never
/// keep or forward it.
pub type picomcp_verify_fn = Option<
    unsafe extern "C" fn(
        user: *mut c_void,
        token: *const u8,
        token_len: usize,
        claims: *mut picomcp_claims,
    ) -> bool,
>;

/// The verifier as the core takes it.
pub(crate) struct CVerifier {
    pub f: picomcp_verify_fn,
    pub user: *mut c_void,
}

impl picomcp_core::http::auth::Verifier for CVerifier {
    fn verify(&mut self, token: &str, claims: &mut Claims<'_>) -> Result<(), Rejected> {
        let Some(f) = self.f else {
            return Err(Rejected("the server has no token verifier"));
        };
        let p = (claims as *mut Claims<'_>).cast::<picomcp_claims>();
        // SAFETY: the host's callback, called as its contract says; `p` is valid for the
        // call (the claims functions cast it back).
        let ok = unsafe { f(self.user, token.as_ptr(), token.len(), p) };
        if ok {
            Ok(())
        } else {
            Err(Rejected("the verifier refused the token"))
        }
    }
}

/// Runs `f` on the claims of a verifier callback.
///
/// # Safety
/// `c` the pointer the callback was given, during the callback.
unsafe fn with_claims(
    c: *mut picomcp_claims,
    f: impl FnOnce(&mut Claims<'_>) -> FfiResult,
) -> picomcp_status {
    boundary(|| {
        if c.is_null() {
            return Err(picomcp_status::NullArgument);
        }
        // SAFETY: caller contract: `c` is the `Claims` `CVerifier::verify` passed.
        let claims = unsafe { &mut *c.cast::<Claims<'_>>() };
        f(claims)
    })
}

/// Reports a token's claims as a JSON object (a JWT's payload, an introspection answer):
/// `sub`, `client_id`/`azp`, `aud` (a string or array), `exp`, `nbf`, `scope`, `scp`.
///
/// # Safety
/// `claims` from the callback, during it; `json` `len` readable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_claims_report_json(
    claims: *mut picomcp_claims,
    json: *const u8,
    len: usize,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_claims(claims, |c| {
            let text = core::str::from_utf8(in_bytes(json, len)?)
                .map_err(|_| picomcp_status::InvalidUtf8)?;
            let j = Json::new(text).map_err(|_| picomcp_status::InvalidJson)?;
            c.report_json(j);
            Ok(())
        })
    }
}

/// The claims one by one: a `picomcp_claim` and its text (`sub`, `client_id`, one `aud`
/// entry, space-delimited `scope`) or number (`exp`, `nbf`, Unix seconds).
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum picomcp_claim {
    /// `sub` (text).
    Subject = 0,
    /// `client_id` (text).
    ClientId = 1,
    /// One audience (text; once per entry).
    Audience = 2,
    /// Granted scopes (text, space-delimited).
    Scope = 3,
    /// `exp` (number).
    ExpiresAt = 4,
    /// `nbf` (number).
    NotBefore = 5,
}

/// Reports one claim: `text` for the text claims, `number` for `exp`/`nbf`.
///
/// # Safety
/// `claims` from the callback, during it; `text` readable when the claim is text.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_claims_set(
    claims: *mut picomcp_claims,
    claim: u32,
    text: picomcp_str,
    number: u64,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_claims(claims, |c| {
            let t = || str_arg(text);
            match claim {
                0 => c.subject(t()?),
                1 => c.client_id(t()?),
                2 => c.audience(t()?),
                3 => c.scope(t()?),
                4 => c.expires_at(number),
                5 => c.not_before(number),
                _ => return Err(picomcp_status::InvalidArgument),
            }
            Ok(())
        })
    }
}

/// The verified caller of the request taken last (`picomcp_endpoint_principal`).
/// Views are valid until the next call that takes the endpoint.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct picomcp_principal {
    /// `sub`.
    pub subject: picomcp_str,
    /// The client id.
    pub client_id: picomcp_str,
    /// Granted scopes: bit `i` is `picomcp_auth_config.scopes[i]`.
    pub granted: u64,
    /// Whether `expires_at` is set.
    pub has_expiry: bool,
    /// `exp`, Unix seconds.
    pub expires_at: u64,
}

/// Fills `out` from a core principal.
pub(crate) fn principal_to_c(p: &picomcp_core::http::auth::Principal, out: &mut picomcp_principal) {
    let s = |t: &str| picomcp_str {
        ptr: t.as_ptr().cast(),
        len: t.len(),
    };
    *out = picomcp_principal {
        subject: s(p.subject()),
        client_id: s(p.client_id()),
        granted: p.granted(),
        has_expiry: p.expires_at().is_some(),
        expires_at: p.expires_at().unwrap_or(0),
    };
}
