//! The checks of one request: the Bearer token, the host's verification, the audience,
//! expiry and scope rules.

use super::{AuthConfig, Claims, Principal, Rejected, Verifier, scope_mask};
use crate::Limits;
use crate::http::Request;
use crate::json::Json;
use crate::jsonrpc::{self, Message};
use crate::protocol::Method;

/// Which scopes one request needs beyond the endpoint's own: the server layer knows
/// (scopes per tool, resource, prompt), the endpoint asks it before a session sees the
/// request. [`Server`](crate::server::Server) implements it.
pub trait ScopePolicy {
    /// The scopes (space-delimited) request `method` with `params` needs, if any.
    fn required_scopes(&self, method: Method, params: Json<'_>) -> Option<&str>;
}

#[cfg(feature = "server")]
impl ScopePolicy for crate::server::Server<'_> {
    fn required_scopes(&self, method: Method, params: Json<'_>) -> Option<&str> {
        crate::server::Server::required_scopes(self, method, params)
    }
}

/// What the endpoint needs, per request, to check a token: the Unix time, the host's
/// verifier and (optionally) the per-operation scopes.
pub struct AuthInput<'v> {
    /// Now, in Unix seconds (expiry is absolute time, unlike the endpoint's `now`).
    pub unix_s: u64,
    /// The host's token check.
    pub verifier: &'v mut dyn Verifier,
    /// The scopes of each tool, resource and prompt; `None`: only the endpoint's.
    pub policy: Option<&'v dyn ScopePolicy>,
}

/// Why a request is refused, and how the challenge reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DenialKind {
    /// 400 `invalid_request`: a token in the query string, several `Authorization`
    /// headers, a malformed Bearer credential.
    InvalidRequest,
    /// 401 without an error code: no Bearer credentials at all (RFC 6750 §3.1).
    NoToken,
    /// 401 `invalid_token`: the verifier refused it, or it is expired, not yet valid, for
    /// another audience, or its claims are too long.
    InvalidToken,
    /// 403 `insufficient_scope`: valid, but without a scope the request needs.
    InsufficientScope,
}

impl DenialKind {
    /// The HTTP status.
    pub fn status(self) -> u16 {
        match self {
            DenialKind::InvalidRequest => 400,
            DenialKind::NoToken | DenialKind::InvalidToken => 401,
            DenialKind::InsufficientScope => 403,
        }
    }

    /// The `error` of the challenge.
    pub fn error(self) -> Option<&'static str> {
        match self {
            DenialKind::InvalidRequest => Some("invalid_request"),
            DenialKind::NoToken => None,
            DenialKind::InvalidToken => Some("invalid_token"),
            DenialKind::InsufficientScope => Some("insufficient_scope"),
        }
    }
}

/// A refused request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Denial<'s> {
    /// Why.
    pub kind: DenialKind,
    /// A human-readable reason (`error_description`).
    pub description: &'static str,
    /// The scopes the operation needs besides the endpoint's (a 403 names both).
    pub operation_scopes: Option<&'s str>,
}

impl Denial<'_> {
    fn new(kind: DenialKind, description: &'static str) -> Self {
        Denial {
            kind,
            description,
            operation_scopes: None,
        }
    }

    /// Whether the challenge carries `scope` (401 and 403; not 400).
    pub fn scope_needed(&self) -> bool {
        self.kind != DenialKind::InvalidRequest
    }
}

/// The Bearer token of `req`: from the `Authorization` header only. `Ok(None)` when the
/// request has no Bearer credentials.
///
/// # Errors
/// [`DenialKind::InvalidRequest`] for `access_token` in the query string (OAuth 2.1 has
/// no query method; MCP clients MUST NOT send one), several `Authorization` headers, or
/// a Bearer credential that is not one `token68`.
pub fn bearer_token<'r>(req: &Request<'r>) -> Result<Option<&'r str>, Denial<'static>> {
    let query = req.target.split_once('?').map_or("", |(_, q)| q);
    if query
        .split('&')
        .any(|p| p.split('=').next() == Some("access_token"))
    {
        return Err(Denial::new(
            DenialKind::InvalidRequest,
            "access tokens are taken from the Authorization header only",
        ));
    }
    let mut values = req.headers_named("authorization");
    let Some(value) = values.next() else {
        return Ok(None);
    };
    let malformed = Denial::new(DenialKind::InvalidRequest, "malformed Authorization header");
    if values.next().is_some() {
        return Err(malformed);
    }
    let value = core::str::from_utf8(value).map_err(|_| malformed)?.trim();
    let (scheme, token) = value.split_once(' ').unwrap_or((value, ""));
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Ok(None);
    }
    let token = token.trim_start_matches(' ');
    let body = token.trim_end_matches('=');
    let token68 = !body.is_empty()
        && body.bytes().all(|b| {
            b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'+' | b'/')
        });
    if token68 {
        Ok(Some(token))
    } else {
        Err(malformed)
    }
}

/// Checks one request to the endpoint and fills `principal` with who it speaks for:
/// the token ([`bearer_token`]), the host's verifier, then the rules that are the
/// server's duty (audience, expiry with leeway, the endpoint's required scopes, and the
/// scopes of the operation a single-message POST asks for, from `input.policy`).
///
/// # Errors
/// The [`Denial`] to answer.
pub fn authenticate<'v>(
    config: &AuthConfig<'_>,
    req: &Request<'_>,
    input: &mut AuthInput<'v>,
    principal: &mut Principal,
    limits: &Limits,
) -> Result<(), Denial<'v>> {
    let Some(token) = bearer_token(req)? else {
        return Err(Denial::new(DenialKind::NoToken, "no access token"));
    };
    let invalid = |d| Denial::new(DenialKind::InvalidToken, d);
    let mut claims = Claims::new(config, principal);
    if let Err(Rejected(why)) = input.verifier.verify(token, &mut claims) {
        return Err(invalid(why));
    }
    let Claims {
        audience_seen,
        audience_ok,
        not_before,
        too_long,
        ..
    } = claims;
    if too_long {
        return Err(invalid("a claim of the token is too long"));
    }
    if !audience_ok {
        return Err(invalid(if audience_seen {
            "the token is for another resource"
        } else {
            "the token names no audience"
        }));
    }
    let now = input.unix_s;
    match principal.expires_at {
        None if config.require_expiry => return Err(invalid("the token has no expiry")),
        Some(exp) if exp.saturating_add(config.leeway_s) <= now => {
            return Err(invalid("the token has expired"));
        }
        _ => {}
    }
    if not_before.is_some_and(|nbf| nbf > now.saturating_add(config.leeway_s)) {
        return Err(invalid("the token is not valid yet"));
    }
    let required = scope_mask(config.scopes, config.required).0;
    let operation = match input.policy {
        Some(policy) => operation_scopes(policy, req, limits),
        None => None,
    };
    let (op_mask, op_unknown) = scope_mask(config.scopes, operation.unwrap_or(""));
    let granted = principal.granted;
    if granted & required != required || granted & op_mask != op_mask || op_unknown {
        return Err(Denial {
            kind: DenialKind::InsufficientScope,
            description: "the token lacks a scope this request needs",
            operation_scopes: operation,
        });
    }
    Ok(())
}

/// The scopes the request in a single-message POST body needs (batches are checked
/// per message by the server layer).
fn operation_scopes<'v>(
    policy: &'v dyn ScopePolicy,
    req: &Request<'_>,
    limits: &Limits,
) -> Option<&'v str> {
    if req.method != crate::http::Method::Post {
        return None;
    }
    let text = core::str::from_utf8(req.body).ok()?;
    let Ok(Message::Request(r)) = jsonrpc::parse(text.trim_end(), limits) else {
        return None;
    };
    let method = Method::from_json_str(r.method)?;
    policy.required_scopes(method, r.params.unwrap_or(Json::EMPTY_OBJECT))
}
