//! `--auth-issuer URL`: the HTTP server as an OAuth 2.1 protected resource. The core's
//! endpoint serves the metadata document, asks for tokens, checks audience, expiry and
//! scopes (`picomcp::http::auth`); this module only verifies a token's signature and
//! issuer, with `jsonwebtoken` against the authorization server's JWKS (fetched at start
//! and again when a token names a key it has not seen, at most every 10 s).
//!
//! Scopes: every request needs `--auth-required` (default `mcp`); the tool `sleep` (it
//! holds the server for up to a minute) also needs `mcp:admin`, so a basic token does not
//! see it in `tools/list` and a call gets 403 `insufficient_scope` (the step-up).
//!
//! The token is never stored or forwarded: it lives for the verify call only.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use jsonwebtoken::jwk::JwkSet;
use jsonwebtoken::{DecodingKey, Validation, decode, decode_header};
use picomcp::http::auth::{AuthConfig, Claims, Rejected};
use serde_json::Value;

/// Every scope the demo knows (the grant bitmask is over these).
pub(crate) const SCOPES: &[&str] = &["mcp", "mcp:admin"];

/// The `--auth-*` flags.
#[derive(Default)]
pub(crate) struct AuthArgs {
    /// `--auth-issuer`: the authorization server's issuer URL (turns auth on).
    pub issuer: Option<String>,
    /// `--auth-jwks`: its JWKS URL (default: `jwks_uri` of its metadata).
    pub jwks: Option<String>,
    /// `--auth-resource`: this server's canonical URI (default `http://ADDR/mcp`).
    pub resource: Option<String>,
    /// `--auth-required`: scopes every request needs (default `mcp`).
    pub required: Option<String>,
}

/// Verifies JWTs from one issuer.
pub(crate) struct JwtVerifier {
    issuer: String,
    jwks_url: Mutex<Option<String>>,
    keys: Mutex<(JwkSet, Option<Instant>)>,
}

impl JwtVerifier {
    /// A verifier for `issuer`; fetches its keys now if it can (else at the first token).
    pub(crate) fn new(issuer: String, jwks: Option<String>) -> Self {
        let v = JwtVerifier {
            issuer,
            jwks_url: Mutex::new(jwks),
            keys: Mutex::new((JwkSet { keys: vec![] }, None)),
        };
        if let Err(e) = v.refresh() {
            diag!(
                Warn,
                "auth: no JWKS yet ({e}); will retry at the first token"
            );
        }
        v
    }

    /// The JWKS URL: given, or `jwks_uri` from the issuer's RFC 8414 / OIDC metadata.
    fn jwks_url(&self) -> Result<String, String> {
        let mut known = self.jwks_url.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(u) = known.as_ref() {
            return Ok(u.clone());
        }
        let base = self.issuer.trim_end_matches('/');
        for well_known in [
            "/.well-known/oauth-authorization-server",
            "/.well-known/openid-configuration",
        ] {
            let Ok(doc) = get_json(&format!("{base}{well_known}")) else {
                continue;
            };
            if let Some(u) = doc["jwks_uri"].as_str() {
                *known = Some(u.to_owned());
                return Ok(u.to_owned());
            }
        }
        Err(format!("no jwks_uri in the metadata of {}", self.issuer))
    }

    fn refresh(&self) -> Result<(), String> {
        let set: JwkSet = serde_json::from_value(get_json(&self.jwks_url()?)?)
            .map_err(|e| format!("JWKS: {e}"))?;
        *self.keys.lock().unwrap_or_else(|p| p.into_inner()) = (set, Some(Instant::now()));
        Ok(())
    }

    fn key(&self, kid: Option<&str>) -> Option<DecodingKey> {
        let find = |set: &JwkSet| {
            let jwk = match kid {
                Some(k) => set.find(k),
                None => set.keys.first(),
            };
            jwk.and_then(|j| DecodingKey::from_jwk(j).ok())
        };
        let (found, fetched) = {
            let keys = self.keys.lock().unwrap_or_else(|p| p.into_inner());
            (find(&keys.0), keys.1)
        };
        if found.is_some() {
            return found;
        }
        // An unknown key: the server may have rotated; fetch again, not too often.
        if fetched.is_none_or(|t| t.elapsed() > Duration::from_secs(10)) {
            if let Err(e) = self.refresh() {
                diag!(Warn, "auth: {e}");
            }
            return find(&self.keys.lock().unwrap_or_else(|p| p.into_inner()).0);
        }
        None
    }

    /// The host's half of token checking: signature and issuer; then the claims go to
    /// the core, which checks audience, expiry and scopes.
    pub(crate) fn verify(&self, token: &str, claims: &mut Claims<'_>) -> Result<(), Rejected> {
        let header = decode_header(token).map_err(|_| Rejected("not a JWT"))?;
        let key = self
            .key(header.kid.as_deref())
            .ok_or(Rejected("unknown signing key"))?;
        let mut v = Validation::new(header.alg);
        v.set_issuer(&[self.issuer.as_str()]);
        // The core checks these (audience canonically, expiry with its leeway).
        v.validate_aud = false;
        v.validate_exp = false;
        v.required_spec_claims.clear();
        let data = decode::<Value>(token, &key, &v).map_err(|_| Rejected("invalid token"))?;
        let c = data.claims;
        if let Some(s) = c["sub"].as_str() {
            claims.subject(s);
        }
        if let Some(s) = c["client_id"].as_str().or(c["azp"].as_str()) {
            claims.client_id(s);
        }
        match &c["aud"] {
            Value::String(a) => claims.audience(a),
            Value::Array(all) => all
                .iter()
                .filter_map(Value::as_str)
                .for_each(|a| claims.audience(a)),
            _ => {}
        }
        if let Some(e) = c["exp"].as_u64() {
            claims.expires_at(e);
        }
        if let Some(n) = c["nbf"].as_u64() {
            claims.not_before(n);
        }
        // `scope` (RFC 9068, space-delimited) or `scp` (an array, some servers).
        match (&c["scope"], &c["scp"]) {
            (Value::String(s), _) => claims.scope(s),
            (_, Value::Array(all)) => all
                .iter()
                .filter_map(Value::as_str)
                .for_each(|s| claims.scope(s)),
            _ => {}
        }
        Ok(())
    }
}

fn get_json(url: &str) -> Result<Value, String> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .max_redirects(0)
        .timeout_global(Some(Duration::from_secs(10)))
        .build()
        .into();
    let mut resp = agent.get(url).call().map_err(|e| format!("{url}: {e}"))?;
    resp.body_mut()
        .read_json::<Value>()
        .map_err(|e| format!("{url}: {e}"))
}

/// The endpoint's configuration for these flags (strings leaked: they live as long as
/// the server).
pub(crate) fn config(args: &AuthArgs, addr: &str) -> Option<AuthConfig<'static>> {
    let issuer: &'static str = Box::leak(args.issuer.clone()?.into_boxed_str());
    let resource = args
        .resource
        .clone()
        .unwrap_or_else(|| format!("http://{addr}/mcp"));
    let required = args.required.clone().unwrap_or_else(|| "mcp".to_owned());
    Some(AuthConfig {
        scopes: SCOPES,
        scopes_supported: &["mcp"],
        required: Box::leak(required.into_boxed_str()),
        resource_name: Some("picomcp demo (Rust)"),
        ..AuthConfig::new(
            Box::leak(resource.into_boxed_str()),
            Box::leak(Box::new([issuer])),
        )
    })
}
