//! The grants without a user at a browser: `client_credentials` (SEP-1046, with a
//! secret or a `private_key_jwt` assertion) and enterprise-managed authorization
//! (SEP-990: an RFC 8693 token exchange at the enterprise IdP, then the RFC 7523 JWT
//! bearer grant). Discovery, the guard rails and the token kept are the authorizer's.

use oauth2::{CsrfToken, Scope};
use picomcp::http::oauth::policy;
use serde_json::json;

use crate::{Authorizer, Discovered, Enterprise, Registration, Token, describe, redact};

impl Authorizer {
    /// SEP-990: token exchange at the IdP (ID token for an ID-JAG, RFC 8693), then the
    /// JWT bearer grant at the authorization server (RFC 7523), with Basic client
    /// authentication. Neither grant is in the `oauth2` crate: plain form POSTs.
    pub(crate) fn enterprise(
        &mut self,
        found: &Discovered,
        e: &Enterprise,
        scope: Option<String>,
    ) -> Result<(), String> {
        use base64::Engine;
        let form = |pairs: &[(&str, &str)]| {
            url::form_urlencoded::Serializer::new(String::new())
                .extend_pairs(pairs)
                .finish()
        };
        let headers = [
            ("Content-Type", "application/x-www-form-urlencoded"),
            ("Accept", "application/json"),
        ];
        let body = form(&[
            (
                "grant_type",
                "urn:ietf:params:oauth:grant-type:token-exchange",
            ),
            ("subject_token", &e.id_token),
            (
                "subject_token_type",
                "urn:ietf:params:oauth:token-type:id_token",
            ),
            (
                "requested_token_type",
                "urn:ietf:params:oauth:token-type:id-jag",
            ),
            ("audience", &found.issuer),
            ("resource", &found.resource),
            ("client_id", &e.client_id),
        ]);
        let resp = self
            .fetch
            .post(&e.token_endpoint, &headers, body.as_bytes())?;
        self.note(format!(
            "token exchange at {} -> HTTP {}",
            e.token_endpoint, resp.status
        ));
        let jag = resp
            .json()
            .filter(|_| resp.status == 200)
            .and_then(|d| d["access_token"].as_str().map(str::to_string))
            .ok_or_else(|| format!("token exchange refused: HTTP {}", resp.status))?;
        let id = self
            .options
            .client_id
            .clone()
            .ok_or("enterprise-managed authorization needs --client-id")?;
        let secret = self.options.client_secret.clone().unwrap_or_default();
        let enc = |s: &str| url::form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
        let basic = format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode(format!(
                "{}:{}",
                enc(&id),
                enc(&secret)
            ))
        );
        let mut pairs = vec![
            ("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer"),
            ("assertion", jag.as_str()),
            ("resource", found.resource.as_str()),
        ];
        if let Some(s) = &scope {
            pairs.push(("scope", s));
        }
        let mut h = headers.to_vec();
        h.push(("Authorization", &basic));
        let resp = self.fetch.post(&found.token, &h, form(&pairs).as_bytes())?;
        self.note(format!(
            "JWT bearer grant at {} -> HTTP {}",
            found.token, resp.status
        ));
        let doc = resp
            .json()
            .filter(|_| resp.status == 200)
            .ok_or_else(|| format!("JWT bearer grant refused: HTTP {}", resp.status))?;
        let access = doc["access_token"]
            .as_str()
            .ok_or("the token response has no access_token")?
            .to_string();
        self.note(format!("access token {}", redact(&access)));
        self.token = Some(Token {
            access,
            refresh: None,
            granted: doc["scope"].as_str().map(str::to_string).or(scope.clone()),
            requested: scope,
        });
        Ok(())
    }

    /// The `client_credentials` grant with a secret (Basic or post, as the server lists)
    /// or a `private_key_jwt` assertion.
    pub(crate) fn client_credentials(
        &mut self,
        found: &Discovered,
        scope: Option<String>,
    ) -> Result<(), String> {
        let id = self
            .options
            .client_id
            .clone()
            .ok_or("the client_credentials grant needs --client-id")?;
        let reg = Registration {
            client_id: id.clone(),
            secret: self.options.client_secret.clone(),
            method: None,
        };
        let redirect = self.redirect_uri()?;
        let client = self.client(found, &reg, &redirect)?;
        let mut req = client
            .exchange_client_credentials()
            .add_extra_param("resource", found.resource.clone());
        if let Some(s) = &scope {
            req = req.add_scopes(policy::scopes(s).map(|x| Scope::new(x.to_string())));
        }
        if let Some(pem) = &self.options.client_key {
            let alg = self.options.client_key_alg.as_deref().unwrap_or("ES256");
            let jwt = client_assertion(&id, &found.issuer, pem, alg)?;
            req = req
                .add_extra_param(
                    "client_assertion_type",
                    "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
                )
                .add_extra_param("client_assertion", jwt);
        }
        self.note(format!(
            "client_credentials token request to {} (scope: {})",
            found.token,
            scope.as_deref().unwrap_or("none")
        ));
        let resp = req
            .request(&self.fetch)
            .map_err(|e| format!("token request: {}", describe(&e)))?;
        self.keep(&resp, scope, None);
        Ok(())
    }
}

/// A `private_key_jwt` client assertion (RFC 7523 §3): `iss` and `sub` the client id,
/// `aud` the issuer, valid for 5 minutes, a random `jti`.
fn client_assertion(client_id: &str, issuer: &str, pem: &str, alg: &str) -> Result<String, String> {
    use jsonwebtoken::{Algorithm, EncodingKey, Header, encode};
    let alg: Algorithm = alg
        .parse()
        .map_err(|_| format!("unknown JWT algorithm {alg}"))?;
    let key = match alg {
        Algorithm::ES256 | Algorithm::ES384 => EncodingKey::from_ec_pem(pem.as_bytes()),
        Algorithm::EdDSA => EncodingKey::from_ed_pem(pem.as_bytes()),
        _ => EncodingKey::from_rsa_pem(pem.as_bytes()),
    }
    .map_err(|e| format!("the client key: {e}"))?;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_err(|e| e.to_string())?
        .as_secs();
    let claims = json!({
        "iss": client_id,
        "sub": client_id,
        "aud": issuer,
        "iat": now,
        "exp": now + 300,
        "jti": CsrfToken::new_random().secret(),
    });
    encode(&Header::new(alg), &claims, &key).map_err(|e| format!("signing the assertion: {e}"))
}
