//! The client's decisions (AUTH §3.5–§3.10): which scopes to ask for, when a 401 or 403
//! is worth an authorization and when to give up, which client authentication the token
//! endpoint gets, whether PKCE may go ahead, and the checks of an authorization response
//! (`state`, RFC 9207 `iss`).
//!
//! Scope lists are space-delimited text, as on the wire (RFC 6749 §3.3).

use crate::InsufficientSize;
use crate::http::Cursor;

use super::challenge::Challenge;

/// The scopes of a space-delimited list (empty entries skipped).
pub fn scopes(list: &str) -> impl Iterator<Item = &str> {
    list.split([' ', '\t']).filter(|s| !s.is_empty())
}

/// Whether every scope of `want` is in `have`.
pub fn covers(have: &str, want: &str) -> bool {
    scopes(want).all(|w| scopes(have).any(|h| h == w))
}

/// Writes `a ∪ b`, first-seen order, no duplicates (the step-up set, AUTH §3.9).
pub fn write_union(a: &str, b: &str, out: &mut [u8]) -> Result<usize, InsufficientSize> {
    let mut c = Cursor::new(out);
    let mut first = true;
    for (i, s) in scopes(a).chain(scopes(b)).enumerate() {
        let seen = scopes(a).chain(scopes(b)).take(i).any(|p| p == s);
        if !seen {
            if !first {
                c.put(b" ");
            }
            c.put(s.as_bytes());
            first = false;
        }
    }
    c.finish()
}

/// Where the scopes of the first authorization come from (AUTH §3.9).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InitialScope<'a> {
    /// The `scope` of the challenge: authoritative for the request that got it.
    Challenge(&'a str),
    /// Every entry of the PRM's `scopes_supported`.
    ScopesSupported(&'a str),
    /// Neither: the authorization request has no `scope`.
    Omit,
}

impl<'a> InitialScope<'a> {
    /// The scope list to send, if any.
    pub fn as_str(&self) -> Option<&'a str> {
        match *self {
            InitialScope::Challenge(s) | InitialScope::ScopesSupported(s) => Some(s),
            InitialScope::Omit => None,
        }
    }
}

/// The scopes of the first authorization: the challenge's `scope`, else the PRM's
/// `scopes_supported` (space-joined by the caller), else none.
pub fn initial_scope<'a>(
    challenge: Option<&'a str>,
    scopes_supported: Option<&'a str>,
) -> InitialScope<'a> {
    match (challenge, scopes_supported) {
        (Some(c), _) if scopes(c).next().is_some() => InitialScope::Challenge(c),
        (_, Some(s)) if scopes(s).next().is_some() => InitialScope::ScopesSupported(s),
        _ => InitialScope::Omit,
    }
}

/// Whether `offline_access` may be added to a request (2026-07-28, SEP-2207): only when
/// the authorization server lists it, and the client wants refresh tokens.
pub fn may_request_offline_access<'s>(
    as_scopes_supported: impl IntoIterator<Item = &'s str>,
    wants_refresh: bool,
) -> bool {
    wants_refresh
        && as_scopes_supported
            .into_iter()
            .any(|s| s == "offline_access")
}

/// What to do about a response's status and challenge (AUTH §3.1, §3.9).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AuthAction {
    /// Not an authorization matter: hand the response on.
    None,
    /// 401: get a token (first time, expired or revoked), then retry once.
    Authorize,
    /// 403 `insufficient_scope` asking for scopes not yet granted: authorize again with
    /// the union of the scopes requested so far and the challenged ones, then retry.
    StepUp,
    /// Stop trying for this operation: a permanent failure.
    GiveUp(GiveUpReason),
}

/// Why [`AuthAction::GiveUp`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GiveUpReason {
    /// This operation was (re)authorized `max_attempts` times already.
    TooManyAttempts,
    /// The 403 asks only for scopes the current token already has: authorizing again
    /// would loop (the server denies them for another reason, AUTH §4 S21).
    ScopeAlreadyGranted,
    /// A 403 without `insufficient_scope`: not something a new token fixes.
    Forbidden,
}

/// Decides what a response means for authorization. `attempts` is how many times this
/// operation has been (re)authorized already (the caller counts per operation, e.g. per
/// method and server), `granted` the scopes of the current token (`None` without one),
/// `max_attempts` the cap (the conformance suite allows 3 authorizations in all).
pub fn decide(
    status: u16,
    challenge: Option<&Challenge<'_>>,
    granted: Option<&str>,
    attempts: u8,
    max_attempts: u8,
) -> AuthAction {
    let action = match status {
        401 => AuthAction::Authorize,
        403 => match challenge {
            Some(c) if c.is_insufficient_scope() => {
                let wanted = c.scope().and_then(|s| s.as_str()).unwrap_or("");
                match granted {
                    Some(g) if covers(g, wanted) => {
                        return AuthAction::GiveUp(GiveUpReason::ScopeAlreadyGranted);
                    }
                    _ => AuthAction::StepUp,
                }
            }
            _ => return AuthAction::GiveUp(GiveUpReason::Forbidden),
        },
        _ => return AuthAction::None,
    };
    if attempts >= max_attempts {
        AuthAction::GiveUp(GiveUpReason::TooManyAttempts)
    } else {
        action
    }
}

/// Client authentication at the token endpoint (AUTH §3.8).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenAuthMethod {
    /// `client_secret_basic`: HTTP Basic with the form-encoded id and secret.
    Basic,
    /// `client_secret_post`: `client_id` and `client_secret` in the body.
    Post,
    /// `none`: `client_id` in the body only (a public client).
    None,
}

impl TokenAuthMethod {
    /// The registered name.
    pub fn as_str(self) -> &'static str {
        match self {
            TokenAuthMethod::Basic => "client_secret_basic",
            TokenAuthMethod::Post => "client_secret_post",
            TokenAuthMethod::None => "none",
        }
    }

    /// The method of a registered name (`None` for one this client does not do).
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "client_secret_basic" => Some(TokenAuthMethod::Basic),
            "client_secret_post" => Some(TokenAuthMethod::Post),
            "none" => Some(TokenAuthMethod::None),
            _ => None,
        }
    }
}

/// The method to use: the one registration returned when the server lists it (or lists
/// none); else, without a list, Basic with a secret and none without (RFC 8414's
/// default); else the first of Basic, post, none that the server lists and the
/// credentials allow.
pub fn select_auth_method(
    registered: Option<&str>,
    supported: Option<&[&str]>,
    has_secret: bool,
) -> TokenAuthMethod {
    let listed = |m: TokenAuthMethod| supported.is_none_or(|l| l.contains(&m.as_str()));
    if let Some(m) = registered.and_then(TokenAuthMethod::parse)
        && listed(m)
        && (m == TokenAuthMethod::None || has_secret)
    {
        return m;
    }
    let order: &[TokenAuthMethod] = if has_secret {
        &[
            TokenAuthMethod::Basic,
            TokenAuthMethod::Post,
            TokenAuthMethod::None,
        ]
    } else {
        &[TokenAuthMethod::None]
    };
    if supported.is_none() {
        return order[0];
    }
    order
        .iter()
        .copied()
        .find(|&m| listed(m))
        .unwrap_or(order[0])
}

/// Why an authorization cannot use PKCE as the spec demands (AUTH §3.6).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PkceError {
    /// The metadata has no `code_challenge_methods_supported`: the client MUST refuse.
    NotAdvertised,
    /// It has, without `S256`.
    NoS256,
}

/// Whether the metadata allows PKCE S256. `methods` is `None` when the field is absent;
/// `from_metadata` is false for the 2025-03-26 fallback endpoints, which have no
/// metadata to advertise anything (S256 is used all the same).
pub fn check_pkce<'s>(
    methods: Option<impl IntoIterator<Item = &'s str>>,
    from_metadata: bool,
) -> Result<(), PkceError> {
    if !from_metadata {
        return Ok(());
    }
    match methods {
        None => Err(PkceError::NotAdvertised),
        Some(m) => {
            let mut m = m.into_iter();
            if m.any(|m| m == "S256") {
                Ok(())
            } else {
                Err(PkceError::NoS256)
            }
        }
    }
}

/// Why an authorization response is dropped before its code is used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResponseError {
    /// No `state`, or not the one sent (AUTH §4 S3).
    State,
    /// The pending authorization is older than its lifetime (single-use, short-lived).
    Expired,
    /// `iss` missing although the server advertises it (RFC 9207).
    IssMissing,
    /// `iss` is not the issuer whose metadata the request used (mix-up, AUTH §4 S5).
    IssMismatch,
}

impl core::fmt::Display for ResponseError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            ResponseError::State => "the state is missing or not the one sent",
            ResponseError::Expired => "the authorization request is too old",
            ResponseError::IssMissing => "iss is missing although the server advertises it",
            ResponseError::IssMismatch => "iss is not the issuer the request was sent to",
        })
    }
}

/// Checks an authorization response before its `code` (or its `error`) is acted on:
/// `state` equal to the one sent (compared in constant time), `now_ms` before the
/// pending request's `deadline_ms`, and RFC 9207's `iss` table: compared as a plain
/// string with `issuer` whenever present, required when `iss_advertised`.
pub fn check_response(
    sent_state: &str,
    state: Option<&str>,
    now_ms: u64,
    deadline_ms: u64,
    issuer: &str,
    iss_advertised: bool,
    iss: Option<&str>,
) -> Result<(), ResponseError> {
    match iss {
        Some(i) if i != issuer => return Err(ResponseError::IssMismatch),
        None if iss_advertised => return Err(ResponseError::IssMissing),
        _ => {}
    }
    let Some(state) = state else {
        return Err(ResponseError::State);
    };
    let (a, b) = (sent_state.as_bytes(), state.as_bytes());
    let diff = a
        .iter()
        .zip(b)
        .fold(u8::from(a.len() != b.len()), |d, (x, y)| d | (x ^ y));
    if diff != 0 || a.is_empty() {
        return Err(ResponseError::State);
    }
    if now_ms > deadline_ms {
        return Err(ResponseError::Expired);
    }
    Ok(())
}

/// How long a pending authorization (its `state` and PKCE verifier) stays valid: ten
/// minutes (AUTH §4 S10).
pub const STATE_LIFETIME_MS: u64 = 10 * 60 * 1000;

#[cfg(test)]
mod tests {
    use super::super::challenge::find_bearer;
    use super::*;

    #[test]
    fn scope_rules() {
        assert_eq!(
            initial_scope(Some("mcp:basic"), Some("a b")),
            InitialScope::Challenge("mcp:basic")
        );
        assert_eq!(initial_scope(None, Some("a b")).as_str(), Some("a b"));
        assert_eq!(initial_scope(Some(" "), None), InitialScope::Omit);
        assert_eq!(initial_scope(None, None).as_str(), None);
        let mut buf = [0u8; 64];
        let n = write_union("mcp:basic a", "mcp:write  a mcp:basic", &mut buf).unwrap();
        assert_eq!(&buf[..n], b"mcp:basic a mcp:write");
        assert!(write_union("abc", "def", &mut [0u8; 4]).is_err());
        assert!(covers("a b c", "c a"));
        assert!(!covers("a b", "a d"));
        assert!(covers("a", ""));
        assert!(may_request_offline_access(
            ["mcp:basic", "offline_access"],
            true
        ));
        assert!(!may_request_offline_access(["mcp:basic"], true));
        assert!(!may_request_offline_access(["offline_access"], false));
    }

    #[test]
    fn decisions() {
        let up = find_bearer([r#"Bearer error="insufficient_scope", scope="mcp:write""#]).unwrap();
        let bare = find_bearer([r#"Bearer error="invalid_token""#]).unwrap();
        assert_eq!(decide(401, Some(&bare), None, 0, 3), AuthAction::Authorize);
        assert_eq!(
            decide(401, None, Some("x"), 3, 3),
            AuthAction::GiveUp(GiveUpReason::TooManyAttempts)
        );
        assert_eq!(
            decide(403, Some(&up), Some("mcp:basic"), 1, 3),
            AuthAction::StepUp
        );
        assert_eq!(
            decide(403, Some(&up), Some("mcp:basic"), 3, 3),
            AuthAction::GiveUp(GiveUpReason::TooManyAttempts)
        );
        assert_eq!(
            decide(403, Some(&up), Some("mcp:write mcp:basic"), 0, 3),
            AuthAction::GiveUp(GiveUpReason::ScopeAlreadyGranted)
        );
        assert_eq!(
            decide(403, Some(&bare), None, 0, 3),
            AuthAction::GiveUp(GiveUpReason::Forbidden)
        );
        assert_eq!(
            decide(403, None, None, 0, 3),
            AuthAction::GiveUp(GiveUpReason::Forbidden)
        );
        assert_eq!(decide(200, None, None, 0, 3), AuthAction::None);
        assert_eq!(decide(404, Some(&up), None, 0, 3), AuthAction::None);
    }

    #[test]
    fn auth_methods() {
        use TokenAuthMethod::{Basic, Post};
        let none = TokenAuthMethod::None;
        assert_eq!(
            select_auth_method(
                Some("client_secret_post"),
                Some(&["client_secret_post"]),
                true
            ),
            Post
        );
        assert_eq!(select_auth_method(None, None, true), Basic);
        assert_eq!(select_auth_method(None, None, false), none);
        assert_eq!(
            select_auth_method(None, Some(&["client_secret_basic"]), true),
            Basic
        );
        assert_eq!(
            select_auth_method(None, Some(&["none", "client_secret_post"]), true),
            Post
        );
        assert_eq!(
            select_auth_method(Some("none"), Some(&["none"]), true),
            none
        );
        assert_eq!(
            select_auth_method(Some("private_key_jwt"), Some(&["none"]), false),
            none
        );
        assert_eq!(
            select_auth_method(Some("client_secret_basic"), Some(&["none"]), true),
            none
        );
    }

    #[test]
    fn pkce() {
        assert_eq!(check_pkce(Some(["plain", "S256"]), true), Ok(()));
        assert_eq!(check_pkce(Some(["plain"]), true), Err(PkceError::NoS256));
        assert_eq!(
            check_pkce(None::<[&str; 0]>, true),
            Err(PkceError::NotAdvertised)
        );
        assert_eq!(check_pkce(None::<[&str; 0]>, false), Ok(()));
    }

    #[test]
    fn responses() {
        let ok = |state, iss, adv| check_response("s1", state, 5, 10, "https://as", adv, iss);
        assert_eq!(ok(Some("s1"), None, false), Ok(()));
        assert_eq!(ok(Some("s1"), Some("https://as"), true), Ok(()));
        assert_eq!(ok(Some("s2"), None, false), Err(ResponseError::State));
        assert_eq!(ok(Some("s"), None, false), Err(ResponseError::State));
        assert_eq!(ok(None, None, false), Err(ResponseError::State));
        assert_eq!(ok(Some("s1"), None, true), Err(ResponseError::IssMissing));
        assert_eq!(
            ok(Some("s1"), Some("https://as/"), false),
            Err(ResponseError::IssMismatch)
        );
        assert_eq!(
            ok(Some("s1"), Some("https://evil"), true),
            Err(ResponseError::IssMismatch)
        );
        assert_eq!(
            check_response("s1", Some("s1"), 11, 10, "i", false, None),
            Err(ResponseError::Expired)
        );
        assert_eq!(
            check_response("", Some(""), 1, 10, "i", false, None),
            Err(ResponseError::State)
        );
    }
}
