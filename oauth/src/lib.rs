//! `picomcp-oauth`: the OAuth 2.1 client of an MCP client over Streamable HTTP, for std
//! hosts (the probe's `--oauth`, any Rust MCP client).
//!
//! The rules are the core's ([`picomcp::http::oauth`]): which challenge means what,
//! where metadata is looked for and in which order, the PRM `resource` check, the
//! issuer check, scope selection, when to step up and when to give up, client
//! authentication, the checks of an authorization response. This crate does the I/O
//! around them, on maintained libraries:
//!
//! - the `oauth2` crate (v5) for PKCE S256, the authorization URL (`state`, `scope`,
//!   `resource`), the code and refresh token requests and client authentication;
//! - `ureq` (rustls) for every HTTP request, wrapped by [`fetch::Fetcher`] with the
//!   guard rails: HTTPS except loopback, no private or link-local addresses unless
//!   allowed, no redirects followed;
//! - a loopback listener for the redirect (`http://127.0.0.1:PORT/callback`).
//!
//! Use: keep one [`Authorizer`] per MCP server, send [`Authorizer::bearer`] on every
//! request, and give every 401 or 403 to [`Authorizer::handle_response`]: `Ok(true)`
//! means a new token is ready and the request should be sent again.
//!
//! Getting the code: the authorizer GETs the authorization URL itself without following
//! redirects. An authorization server that answers at once with a redirect to the
//! loopback `redirect_uri` (a test server, or one that remembers consent) gives the code
//! there; otherwise the URL is printed (to stderr) for a browser and the code is read by
//! the loopback listener when the browser comes back.
//!
//! Without a user: `client_credentials` (SEP-1046, [`Options::client_credentials`], with a
//! secret or a `private_key_jwt` assertion signed with `jsonwebtoken`) and
//! enterprise-managed authorization (SEP-990, [`Options::enterprise`]), in `machine`.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod fetch;
mod machine;

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::time::{Duration, Instant};

use oauth2::basic::BasicClient;
use oauth2::{
    AuthType, AuthUrl, AuthorizationCode, ClientId, ClientSecret, CsrfToken, PkceCodeChallenge,
    RedirectUrl, RefreshToken, Scope, TokenResponse, TokenUrl,
};
use picomcp::http::oauth::challenge::{Challenge, find_bearer};
use picomcp::http::oauth::policy::{
    self, AuthAction, STATE_LIFETIME_MS, TokenAuthMethod, check_pkce, check_response, decide,
    initial_scope, select_auth_method,
};
use picomcp::http::oauth::urls::{
    self, HttpUrl, LegacyEndpoint, PrmSource, check_issuer, metadata_sources, prm_sources,
    resource_matches,
};
use serde_json::{Value, json};

pub use fetch::{Fetcher, Policy};

/// The `oauth2` client with its authorization and token endpoints set.
type Client = oauth2::Client<
    oauth2::basic::BasicErrorResponse,
    oauth2::basic::BasicTokenResponse,
    oauth2::basic::BasicTokenIntrospectionResponse,
    oauth2::StandardRevocableToken,
    oauth2::basic::BasicRevocationErrorResponse,
    oauth2::EndpointSet,
    oauth2::EndpointNotSet,
    oauth2::EndpointNotSet,
    oauth2::EndpointNotSet,
    oauth2::EndpointSet,
>;

/// How the client registers and what it asks for.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// A pre-registered client id (`--client-id`): used with every authorization server.
    pub client_id: Option<String>,
    /// Its secret (`--client-secret`), for `client_secret_basic` or `_post`.
    pub client_secret: Option<String>,
    /// The HTTPS URL of this client's metadata document (`--client-metadata-url`): the
    /// client id where the server advertises `client_id_metadata_document_supported`.
    pub client_metadata_url: Option<String>,
    /// Scopes to ask for instead of the spec's selection (`--scope`).
    pub scope: Option<String>,
    /// The loopback port of the redirect URI (0: any free port).
    pub redirect_port: u16,
    /// Allow private and link-local addresses (`--oauth-allow-private`).
    pub allow_private: bool,
    /// The `client_name` of dynamic registration.
    pub client_name: String,
    /// `MCP-Protocol-Version` sent on discovery requests.
    pub protocol_version: Option<String>,
    /// How long to wait for a browser to come back to the redirect URI.
    pub browser_timeout: Duration,
    /// Authorizations per operation before giving up (the initial one included).
    pub max_attempts: u8,
    /// The `client_credentials` grant (a machine client, SEP-1046) instead of the
    /// authorization code: no user, no redirect; needs `client_id` and a secret or
    /// `client_key`.
    pub client_credentials: bool,
    /// A PEM private key: authenticate at the token endpoint with a signed JWT
    /// (`private_key_jwt`, RFC 7523) instead of a secret.
    pub client_key: Option<String>,
    /// The JWT's algorithm (`ES256`, `RS256` …; default `ES256`).
    pub client_key_alg: Option<String>,
    /// Enterprise-managed authorization (SEP-990): the user's ID token from the
    /// enterprise IdP is exchanged there for an ID-JAG, which the authorization server
    /// takes with the JWT bearer grant (with `client_id` and `client_secret`).
    pub enterprise: Option<Enterprise>,
}

/// The enterprise IdP side of SEP-990.
#[derive(Clone, Debug)]
pub struct Enterprise {
    /// The IdP's token endpoint (RFC 8693 token exchange).
    pub token_endpoint: String,
    /// The user's ID token issued by the IdP.
    pub id_token: String,
    /// This client's id at the IdP.
    pub client_id: String,
}

impl Options {
    /// Defaults: no credentials (register), any port, 3 attempts, 5 minutes for the
    /// browser.
    pub fn new(client_name: &str) -> Self {
        Options {
            client_name: client_name.to_string(),
            browser_timeout: Duration::from_secs(300),
            max_attempts: 3,
            ..Options::default()
        }
    }
}

/// The token in use.
#[derive(Clone, Debug)]
struct Token {
    access: String,
    refresh: Option<String>,
    /// The scopes granted (the response's `scope`, else those requested).
    granted: Option<String>,
    /// The scopes requested, for the step-up union.
    requested: Option<String>,
}

/// The client's registration at one authorization server (keyed by issuer: credentials
/// never travel from one server to another).
#[derive(Clone, Debug)]
struct Registration {
    client_id: String,
    secret: Option<String>,
    method: Option<String>,
}

/// What discovery found.
struct Discovered {
    /// The issuer as the PRM named it (or the server's origin, for 2025-03-26).
    issuer: String,
    /// The metadata document (empty for the 2025-03-26 defaults).
    meta: Value,
    authorize: String,
    token: String,
    register: Option<String>,
    /// The `resource` parameter: the PRM's resource, or the canonical server URI.
    resource: String,
    /// The PRM's `scopes_supported`, space-joined.
    prm_scopes: Option<String>,
}

/// The authorization state of one MCP client toward one MCP server.
pub struct Authorizer {
    server: String,
    options: Options,
    fetch: Fetcher,
    token: Option<Token>,
    registrations: HashMap<String, Registration>,
    attempts: HashMap<String, u8>,
    log: Vec<String>,
    started: Instant,
    /// The loopback listener of the redirect URI, bound once so that the URI registered
    /// is the one every authorization uses (exact matching, AUTH §4 S2).
    listener: Option<TcpListener>,
}

/// The first characters of a secret and its length: what may be printed of a token.
pub fn redact(secret: &str) -> String {
    let head: String = secret.chars().take(6).collect();
    format!("{head}… ({} chars)", secret.chars().count())
}

fn str_list(v: &Value) -> Option<Vec<&str>> {
    v.as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
}

impl Authorizer {
    /// An authorizer for the MCP endpoint `server` (an absolute http(s) URL).
    pub fn new(server: &str, options: Options) -> Result<Self, String> {
        let u = HttpUrl::parse(server).map_err(|e| format!("{server}: {e}"))?;
        let policy = Policy {
            allow_loopback: u.is_loopback(),
            allow_private: options.allow_private,
        };
        Ok(Authorizer {
            server: server.to_string(),
            options,
            fetch: Fetcher::new(policy, Duration::from_secs(30)),
            token: None,
            registrations: HashMap::new(),
            attempts: HashMap::new(),
            log: Vec::new(),
            started: Instant::now(),
            listener: None,
        })
    }

    /// The access token to send as `Authorization: Bearer …`, once there is one.
    pub fn bearer(&self) -> Option<&str> {
        self.token.as_ref().map(|t| t.access.as_str())
    }

    /// What happened since the last call (for a report; tokens are redacted).
    pub fn take_log(&mut self) -> Vec<String> {
        std::mem::take(&mut self.log)
    }

    fn note(&mut self, line: String) {
        self.log.push(line);
    }

    /// Handles a response of `status` with these `WWW-Authenticate` values to the
    /// request `operation` (a method name: attempts are counted per operation).
    /// `Ok(true)`: a new token is ready, send the request again. `Ok(false)`: nothing to
    /// do (not an authorization status). `Err`: authorization failed or was given up.
    pub fn handle_response(
        &mut self,
        operation: &str,
        status: u16,
        www_authenticate: &[String],
    ) -> Result<bool, String> {
        let challenge = find_bearer(www_authenticate.iter().map(String::as_str));
        let attempts = self.attempts.get(operation).copied().unwrap_or(0);
        let granted = self
            .token
            .as_ref()
            .map(|t| t.granted.as_deref().unwrap_or(""));
        match decide(
            status,
            challenge.as_ref(),
            granted,
            attempts,
            self.options.max_attempts,
        ) {
            AuthAction::None => Ok(false),
            AuthAction::GiveUp(why) => {
                let msg = format!("{operation}: HTTP {status}, giving up ({why:?})");
                self.note(msg.clone());
                Err(msg)
            }
            action => {
                self.attempts.insert(operation.to_string(), attempts + 1);
                let step_up = action == AuthAction::StepUp;
                self.note(format!(
                    "{operation}: HTTP {status}{}",
                    if step_up {
                        " insufficient_scope: stepping up"
                    } else {
                        ": authorizing"
                    }
                ));
                let result = self.authorize(challenge.as_ref(), step_up);
                if let Err(e) = &result {
                    self.note(format!("authorization failed: {e}"));
                }
                result.map(|()| true)
            }
        }
    }

    /// Gets a token: refresh when possible (a 401 that asks for nothing new), otherwise
    /// discovery, registration and an authorization code with PKCE.
    fn authorize(
        &mut self,
        challenge: Option<&Challenge<'_>>,
        step_up: bool,
    ) -> Result<(), String> {
        let found = self.discover(challenge)?;
        let challenged = challenge
            .and_then(|c| c.scope())
            .and_then(|s| s.as_str())
            .map(str::to_string);
        // A refresh cannot widen the grant: only for a plain 401.
        if !step_up
            && let Some(t) = self.token.clone()
            && t.refresh.is_some()
            && challenged
                .as_deref()
                .is_none_or(|c| policy::covers(t.granted.as_deref().unwrap_or(""), c))
        {
            match self.refresh(&found, &t) {
                Ok(()) => return Ok(()),
                Err(e) => self.note(format!("refresh failed ({e}); authorizing again")),
            }
        }
        let scope = self.select_scope(&found, challenged.as_deref(), step_up)?;
        if self.options.client_credentials {
            return self.client_credentials(&found, scope);
        }
        if let Some(e) = self.options.enterprise.clone() {
            return self.enterprise(&found, &e, scope);
        }
        let reg = self.register(&found)?;
        self.authorization_code(&found, &reg, scope)
    }

    fn select_scope(
        &mut self,
        found: &Discovered,
        challenged: Option<&str>,
        step_up: bool,
    ) -> Result<Option<String>, String> {
        let mut scope = if let Some(s) = &self.options.scope {
            Some(s.clone())
        } else if step_up {
            let previous = self
                .token
                .as_ref()
                .and_then(|t| t.requested.clone())
                .unwrap_or_default();
            let mut out = vec![0u8; previous.len() + challenged.map_or(0, str::len) + 1];
            let n = policy::write_union(&previous, challenged.unwrap_or(""), &mut out)
                .map_err(|e| e.to_string())?;
            out.truncate(n);
            Some(String::from_utf8(out).map_err(|e| e.to_string())?)
        } else {
            initial_scope(challenged, found.prm_scopes.as_deref())
                .as_str()
                .map(str::to_string)
        };
        // offline_access only where the AS lists it, and only next to other scopes.
        let as_scopes = str_list(&found.meta["scopes_supported"]).unwrap_or_default();
        if let Some(s) = scope.as_mut()
            && policy::may_request_offline_access(as_scopes.iter().copied(), true)
            && !policy::scopes(s).any(|x| x == "offline_access")
            && policy::scopes(s).next().is_some()
        {
            s.push_str(" offline_access");
        }
        Ok(scope.filter(|s| policy::scopes(s).next().is_some()))
    }

    fn discovery_headers(&self) -> Vec<(&str, &str)> {
        let mut h = vec![("Accept", "application/json")];
        if let Some(v) = &self.options.protocol_version {
            h.push(("MCP-Protocol-Version", v.as_str()));
        }
        h
    }

    /// PRM (challenge URL, else well-known), the `resource` check, the AS metadata (RFC
    /// 8414, then OpenID) with the issuer check; or the 2025-03-26 fallback.
    fn discover(&mut self, challenge: Option<&Challenge<'_>>) -> Result<Discovered, String> {
        let server_text = self.server.clone();
        let server = HttpUrl::parse(&server_text).map_err(|e| e.to_string())?;
        let from_challenge = challenge
            .and_then(|c| c.resource_metadata())
            .and_then(|v| v.as_str())
            .map(str::to_string);
        let mut prm: Option<Value> = None;
        for &source in prm_sources(&server, from_challenge.is_some()) {
            let url = match source {
                PrmSource::Challenge => from_challenge.clone().unwrap_or_default(),
                other => write(|o| urls::write_prm_url(&server, other, o))?,
            };
            let resp = self.fetch.get(&url, &self.discovery_headers())?;
            self.note(format!("PRM {url} -> HTTP {}", resp.status));
            if resp.status == 200
                && let Some(doc) = resp.json().filter(|d| d["resource"].is_string())
            {
                prm = Some(doc);
                break;
            }
        }
        let Some(prm) = prm else {
            return self.discover_legacy(&server);
        };
        let resource = prm["resource"].as_str().unwrap_or_default().to_string();
        if !resource_matches(&server, &resource) {
            return Err(format!(
                "the protected resource metadata names resource {resource}, which is not \
                 {server_text}: no authorization request sent"
            ));
        }
        let issuer = str_list(&prm["authorization_servers"])
            .and_then(|l| l.first().map(|s| s.to_string()))
            .ok_or("the protected resource metadata has no authorization_servers")?;
        let prm_scopes = str_list(&prm["scopes_supported"]).map(|l| l.join(" "));
        let issuer_url = check_issuer(&issuer).map_err(|e| format!("issuer {issuer}: {e}"))?;
        let mut meta = None;
        for &source in metadata_sources(&issuer_url) {
            let url = write(|o| urls::write_metadata_url(&issuer_url, source, o))?;
            let resp = self.fetch.get(&url, &self.discovery_headers())?;
            self.note(format!("AS metadata {url} -> HTTP {}", resp.status));
            if resp.status == 200
                && let Some(doc) = resp.json()
            {
                meta = Some(doc);
                break;
            }
        }
        let meta = meta.ok_or_else(|| format!("no metadata found for issuer {issuer}"))?;
        // Mix-up defence: the document must name the issuer it was fetched for, exactly.
        if meta["issuer"].as_str() != Some(issuer.as_str()) {
            return Err(format!(
                "the metadata of {issuer} names issuer {}: discarded",
                meta["issuer"]
            ));
        }
        self.endpoints(meta, issuer, resource, prm_scopes, true)
    }

    /// 2025-03-26: the metadata at the server's origin, else the default endpoints.
    fn discover_legacy(&mut self, server: &HttpUrl<'_>) -> Result<Discovered, String> {
        let issuer = write(|o| urls::write_legacy_issuer(server, o))?;
        let resource = write(|o| urls::write_canonical_resource(server, o))?;
        let url = write(|o| urls::write_legacy_url(server, LegacyEndpoint::Metadata, o))?;
        let resp = self.fetch.get(&url, &self.discovery_headers())?;
        self.note(format!(
            "no PRM; 2025-03-26 metadata {url} -> HTTP {}",
            resp.status
        ));
        if resp.status == 200
            && let Some(meta) = resp.json()
        {
            return self.endpoints(meta, issuer, resource, None, true);
        }
        let at = |e| write(|o| urls::write_legacy_url(server, e, o));
        Ok(Discovered {
            issuer,
            meta: json!({}),
            authorize: at(LegacyEndpoint::Authorize)?,
            token: at(LegacyEndpoint::Token)?,
            register: Some(at(LegacyEndpoint::Register)?),
            resource,
            prm_scopes: None,
        })
    }

    fn endpoints(
        &mut self,
        meta: Value,
        issuer: String,
        resource: String,
        prm_scopes: Option<String>,
        from_metadata: bool,
    ) -> Result<Discovered, String> {
        let field = |name: &str| -> Result<String, String> {
            let v = meta[name]
                .as_str()
                .ok_or_else(|| format!("the metadata of {issuer} has no {name}"))?;
            urls::check_endpoint(v).map_err(|e| format!("{name} {v}: {e}"))?;
            Ok(v.to_string())
        };
        let authorize = field("authorization_endpoint")?;
        let token = field("token_endpoint")?;
        let register = match meta.get("registration_endpoint") {
            Some(_) => Some(field("registration_endpoint")?),
            None => None,
        };
        check_pkce(
            str_list(&meta["code_challenge_methods_supported"]),
            from_metadata && !self.options.client_credentials,
        )
        .map_err(|e| format!("{issuer}: PKCE S256 not possible ({e:?})"))?;
        Ok(Discovered {
            issuer,
            meta,
            authorize,
            token,
            register,
            resource,
            prm_scopes,
        })
    }

    /// Pre-registered, else a Client ID Metadata Document where advertised, else dynamic
    /// registration (RFC 7591); kept per issuer.
    fn register(&mut self, found: &Discovered) -> Result<Registration, String> {
        if let Some(r) = self.registrations.get(&found.issuer) {
            return Ok(r.clone());
        }
        let options = self.options.clone();
        let reg = if let Some(id) = &options.client_id {
            self.note(format!("client: pre-registered {id}"));
            Registration {
                client_id: id.clone(),
                secret: options.client_secret.clone(),
                method: None,
            }
        } else if let (Some(url), Some(true)) = (
            &options.client_metadata_url,
            found.meta["client_id_metadata_document_supported"].as_bool(),
        ) {
            self.note(format!("client: metadata document {url}"));
            Registration {
                client_id: url.clone(),
                secret: None,
                method: Some("none".into()),
            }
        } else if let Some(endpoint) = &found.register {
            self.dynamic_registration(found, endpoint)?
        } else {
            return Err(format!(
                "{} offers no registration: give --client-id (and --client-secret)",
                found.issuer
            ));
        };
        self.registrations.insert(found.issuer.clone(), reg.clone());
        Ok(reg)
    }

    fn dynamic_registration(
        &mut self,
        found: &Discovered,
        endpoint: &str,
    ) -> Result<Registration, String> {
        let supported = str_list(&found.meta["token_endpoint_auth_methods_supported"]);
        let method = match &supported {
            Some(l) if !l.contains(&"none") => l
                .iter()
                .copied()
                .find(|m| TokenAuthMethod::parse(m).is_some())
                .unwrap_or("client_secret_basic"),
            _ => "none",
        };
        let redirect = self.redirect_uri()?;
        let body = json!({
            "client_name": self.options.client_name,
            "redirect_uris": [redirect],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": method,
            "application_type": "native",
        });
        let resp = self.fetch.post(
            endpoint,
            &[
                ("Content-Type", "application/json"),
                ("Accept", "application/json"),
            ],
            body.to_string().as_bytes(),
        )?;
        self.note(format!(
            "dynamic registration {endpoint} -> HTTP {}",
            resp.status
        ));
        let doc = resp
            .json()
            .filter(|_| resp.status == 200 || resp.status == 201)
            .ok_or_else(|| format!("registration refused: HTTP {}", resp.status))?;
        let client_id = doc["client_id"]
            .as_str()
            .ok_or("the registration response has no client_id")?
            .to_string();
        Ok(Registration {
            client_id,
            secret: doc["client_secret"].as_str().map(str::to_string),
            method: doc["token_endpoint_auth_method"]
                .as_str()
                .map(str::to_string),
        })
    }

    /// `http://127.0.0.1:PORT/callback` (a loopback IP literal, RFC 8252 §7.3), its
    /// listener bound on first use.
    fn redirect_uri(&mut self) -> Result<String, String> {
        if self.listener.is_none() {
            let l = TcpListener::bind(("127.0.0.1", self.options.redirect_port))
                .map_err(|e| format!("cannot listen for the redirect: {e}"))?;
            self.listener = Some(l);
        }
        let port = self
            .listener
            .as_ref()
            .and_then(|l| l.local_addr().ok())
            .map_or(0, |a| a.port());
        Ok(format!("http://127.0.0.1:{port}/callback"))
    }

    fn client(
        &self,
        found: &Discovered,
        reg: &Registration,
        redirect: &str,
    ) -> Result<Client, String> {
        let supported = str_list(&found.meta["token_endpoint_auth_methods_supported"]);
        let method = select_auth_method(
            reg.method.as_deref(),
            supported.as_deref(),
            reg.secret.is_some(),
        );
        let mut client = BasicClient::new(ClientId::new(reg.client_id.clone()))
            .set_auth_uri(AuthUrl::new(found.authorize.clone()).map_err(|e| e.to_string())?)
            .set_token_uri(TokenUrl::new(found.token.clone()).map_err(|e| e.to_string())?)
            .set_redirect_uri(RedirectUrl::new(redirect.to_string()).map_err(|e| e.to_string())?)
            .set_auth_type(if method == TokenAuthMethod::Basic {
                AuthType::BasicAuth
            } else {
                AuthType::RequestBody
            });
        if method != TokenAuthMethod::None
            && let Some(s) = &reg.secret
        {
            client = client.set_client_secret(ClientSecret::new(s.clone()));
        }
        Ok(client)
    }

    fn authorization_code(
        &mut self,
        found: &Discovered,
        reg: &Registration,
        scope: Option<String>,
    ) -> Result<(), String> {
        let redirect = self.redirect_uri()?;
        let client = self.client(found, reg, &redirect)?;
        let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
        let mut req = client
            .authorize_url(CsrfToken::new_random)
            .set_pkce_challenge(challenge)
            .add_extra_param("resource", found.resource.clone());
        if let Some(s) = &scope {
            req = req.add_scopes(policy::scopes(s).map(|x| Scope::new(x.to_string())));
        }
        let (url, state) = req.url();
        let deadline = self.now_ms() + STATE_LIFETIME_MS;
        self.note(format!(
            "authorization request to {} (scope: {})",
            found.authorize,
            scope.as_deref().unwrap_or("none")
        ));
        let params = self.get_code(url.as_str(), &redirect)?;
        let get = |k: &str| params.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
        check_response(
            state.secret(),
            get("state"),
            self.now_ms(),
            deadline,
            &found.issuer,
            found.meta["authorization_response_iss_parameter_supported"]
                .as_bool()
                .unwrap_or(false),
            get("iss"),
        )
        .map_err(|e| format!("authorization response dropped: {e}"))?;
        if let Some(err) = get("error") {
            return Err(format!("the authorization server refused: {err}"));
        }
        let code = get("code").ok_or("the authorization response has no code")?;
        let resp = client
            .exchange_code(AuthorizationCode::new(code.to_string()))
            .set_pkce_verifier(verifier)
            .add_extra_param("resource", found.resource.clone())
            .request(&self.fetch)
            .map_err(|e| format!("token request: {}", describe(&e)))?;
        self.keep(&resp, scope, None);
        Ok(())
    }

    fn refresh(&mut self, found: &Discovered, t: &Token) -> Result<(), String> {
        let reg = self
            .registrations
            .get(&found.issuer)
            .cloned()
            .ok_or("no registration at this issuer")?;
        let redirect = self.redirect_uri()?;
        let client = self.client(found, &reg, &redirect)?;
        let rt = RefreshToken::new(t.refresh.clone().unwrap_or_default());
        let resp = client
            .exchange_refresh_token(&rt)
            .add_extra_param("resource", found.resource.clone())
            .request(&self.fetch)
            .map_err(|e| describe(&e))?;
        self.note("token refreshed".into());
        self.keep(&resp, t.requested.clone(), t.refresh.clone());
        Ok(())
    }

    fn keep(
        &mut self,
        resp: &oauth2::basic::BasicTokenResponse,
        requested: Option<String>,
        old_refresh: Option<String>,
    ) {
        let granted = resp
            .scopes()
            .map(|s| s.iter().map(|x| x.as_str()).collect::<Vec<_>>().join(" "))
            .or_else(|| requested.clone());
        let token = Token {
            access: resp.access_token().secret().clone(),
            refresh: resp
                .refresh_token()
                .map(|r| r.secret().clone())
                .or(old_refresh),
            granted,
            requested,
        };
        self.note(format!(
            "access token {} (scope: {}{})",
            redact(&token.access),
            token.granted.as_deref().unwrap_or("none"),
            if token.refresh.is_some() {
                ", with a refresh token"
            } else {
                ""
            }
        ));
        self.token = Some(token);
    }

    /// The authorization response's query: from an immediate redirect to `redirect`, or
    /// from the browser's visit to the listener.
    fn get_code(&mut self, url: &str, redirect: &str) -> Result<Vec<(String, String)>, String> {
        // Only http(s) URLs to allowed hosts are fetched or shown (AUTH §4 S18).
        let resp = self.fetch.get(url, &[])?;
        if let Some(loc) = resp
            .location
            .as_deref()
            .filter(|_| (300..400).contains(&resp.status))
            && let Some(query) = loc.strip_prefix(redirect).and_then(|r| r.strip_prefix('?'))
        {
            return Ok(parse_query(query));
        }
        eprintln!("picomcp: open this URL in a browser to authorize:\n  {url}");
        let listener = self.listener.as_ref().ok_or("no redirect listener")?;
        listener.set_nonblocking(true).map_err(|e| e.to_string())?;
        let deadline = Instant::now() + self.options.browser_timeout;
        loop {
            let mut sock = match listener.accept() {
                Ok((sock, _)) => sock,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    if Instant::now() > deadline {
                        return Err("no browser came back to the redirect URI in time".into());
                    }
                    std::thread::sleep(Duration::from_millis(100));
                    continue;
                }
                Err(e) => return Err(e.to_string()),
            };
            let _ = sock.set_nonblocking(false);
            let _ = sock.set_read_timeout(Some(Duration::from_secs(10)));
            let mut line = String::new();
            let _ = BufReader::new(&sock).read_line(&mut line);
            let target = line.split(' ').nth(1).unwrap_or("");
            if let Some(query) = target.strip_prefix("/callback?") {
                let _ = sock.write_all(
                    b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n\
                      Authorization received; you can close this window.\n",
                );
                return Ok(parse_query(query));
            }
            let _ = sock.write_all(b"HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n");
        }
    }

    fn now_ms(&self) -> u64 {
        self.started.elapsed().as_millis() as u64
    }
}

fn parse_query(query: &str) -> Vec<(String, String)> {
    url::form_urlencoded::parse(query.as_bytes())
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

fn describe<E: std::error::Error>(e: &E) -> String {
    let mut text = e.to_string();
    let mut src = e.source();
    while let Some(s) = src {
        text.push_str(": ");
        text.push_str(&s.to_string());
        src = s.source();
    }
    text
}

/// Runs a core URL writer into a fresh string.
fn write(
    f: impl Fn(&mut [u8]) -> Result<usize, picomcp::InsufficientSize>,
) -> Result<String, String> {
    let mut buf = vec![0u8; 512];
    let n = match f(&mut buf) {
        Ok(n) => n,
        Err(e) => {
            buf.resize(e.required, 0);
            f(&mut buf).map_err(|e| e.to_string())?
        }
    };
    buf.truncate(n);
    String::from_utf8(buf).map_err(|e| e.to_string())
}
