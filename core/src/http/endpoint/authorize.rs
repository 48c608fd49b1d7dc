//! The authorization step of [`Endpoint::handle_request_as`]: the metadata document, and
//! the token check before any routing (docs/DESIGN.md, "Authorization").

use super::{ENTROPY_LEN, Endpoint, EndpointError, Head, Outcome};
use crate::error::ErrorCode;
use crate::http::auth::{
    self, AUTH_TEXT, AuthConfig, AuthConfigError, AuthInput, Claims, Denial, DenialKind, Principal,
    Rejected,
};
use crate::http::{BodyLength, Method as HttpMethod, Request};
use crate::json::JsonWriter;
use crate::jsonrpc;

use super::host_allowed;

/// Checks an [`AuthConfig`], and that its metadata document and longest challenge fit.
pub(super) fn check_config(auth: &AuthConfig<'_>) -> Result<(), EndpointError> {
    auth.check().map_err(EndpointError::Auth)?;
    let mut probe = [0u8; AUTH_TEXT];
    let too_large = |e: crate::InsufficientSize| {
        EndpointError::Auth(AuthConfigError::TooLarge {
            required: e.required,
        })
    };
    auth::write_metadata(auth, &mut probe).map_err(too_large)?;
    // The longest challenge: every configured scope, the longest description.
    let all = Denial {
        kind: DenialKind::InsufficientScope,
        description: LONGEST_DESCRIPTION,
        operation_scopes: None,
    };
    let wide = AuthConfig {
        required: "",
        ..*auth
    };
    let n = auth::write_challenge(&wide, &all, &mut probe).map_err(too_large)?;
    let scopes: usize = auth.scopes.iter().map(|s| s.len() + 1).sum();
    if n + scopes + 16 > AUTH_TEXT {
        return Err(too_large(crate::InsufficientSize {
            required: n + scopes + 16,
        }));
    }
    Ok(())
}

/// No `error_description` the layer writes is longer.
const LONGEST_DESCRIPTION: &str = "access tokens are taken from the Authorization header only";

/// A verifier for [`Endpoint::handle_request`] under authorization: none can be checked.
fn no_verifier(_: &str, _: &mut Claims<'_>) -> Result<(), Rejected> {
    Err(Rejected("the server has no token verifier"))
}

impl<'e> Endpoint<'e> {
    /// [`handle_request`](Self::handle_request) with what authorization needs: when
    /// [`EndpointConfig::auth`](super::EndpointConfig::auth) is set, `GET` of the
    /// metadata document is answered here, and every request to the endpoint must carry
    /// a Bearer token that `auth.verifier` accepts, for this resource, unexpired, with
    /// the scopes the endpoint and the operation need (`auth.policy`); anything else is
    /// answered 400, 401 or 403 with a `WWW-Authenticate` challenge before any session
    /// sees it. The verified principal is then [`principal`](Self::principal) until the
    /// next request. `auth` is ignored (may be `None`) without a configuration.
    pub fn handle_request_as<'r>(
        &mut self,
        now: u64,
        req: &Request<'r>,
        entropy: &[u8; ENTROPY_LEN],
        auth: Option<AuthInput<'_>>,
    ) -> Outcome<'_> {
        self.current = None;
        self.authorized = false;
        let Some(config) = self.config.auth else {
            return self.route_checked(now, req, entropy);
        };
        let path = req.path();
        if path != self.config.path
            && auth::is_metadata_path(path, config.resource, self.config.path)
        {
            return self.metadata(req, &config);
        }
        if path != self.config.path {
            return self.route_checked(now, req, entropy);
        }
        if let Err(r) = self.check_host(req) {
            return self.refusal(r);
        }
        let mut fallback = no_verifier;
        let limits = self.config.limits;
        let result = match auth {
            Some(mut input) => {
                auth::authenticate(&config, req, &mut input, &mut self.principal, &limits)
            }
            None => {
                let mut input = AuthInput {
                    unix_s: 0,
                    verifier: &mut fallback,
                    policy: None,
                };
                auth::authenticate(&config, req, &mut input, &mut self.principal, &limits)
            }
        };
        match result {
            Ok(()) => {
                self.authorized = true;
                self.route_checked(now, req, entropy)
            }
            Err(d) => {
                self.principal = Principal::EMPTY;
                self.challenge(&config, &d)
            }
        }
    }

    /// The principal of the request taken last, when it was verified (authorization on
    /// and the token accepted). Hand it to the server layer
    /// ([`Principal::access`] and `Server::handle_as`).
    pub fn principal(&self) -> Option<&Principal> {
        self.authorized.then_some(&self.principal)
    }

    /// 200 with the metadata document (`GET`; `HEAD` without the body), 405 otherwise;
    /// the Host and Origin checks apply as at the endpoint.
    fn metadata(&mut self, req: &Request<'_>, config: &AuthConfig<'_>) -> Outcome<'_> {
        if self.config.check_hosts {
            let extra = self.config.allowed_hosts;
            let host_ok = req
                .single_header("host")
                .is_ok_and(|h| h.is_some_and(|h| host_allowed(h, extra)));
            let origin_ok = super::checks::origins_allowed(req, extra);
            if !host_ok || !origin_ok {
                return self.plain_error(403, "Forbidden: Host not allowed", None);
            }
        }
        if !matches!(req.method, HttpMethod::Get | HttpMethod::Head) {
            self.stats.refused += 1;
            let head = Head::new(405, BodyLength::None).with("Allow", b"GET");
            return Outcome::Respond { head, body: &[] };
        }
        // Checked to fit at `Endpoint::new`.
        let n = auth::write_metadata(config, &mut self.auth_text).unwrap_or(0);
        let (len, body) = if req.method == HttpMethod::Head {
            (n, &[][..])
        } else {
            (n, &self.auth_text[..n])
        };
        let head = Head::new(200, BodyLength::Fixed(len))
            .with("Content-Type", b"application/json")
            .with("Access-Control-Allow-Origin", b"*");
        Outcome::Respond { head, body }
    }

    /// The status and `WWW-Authenticate` challenge of a denial, with a JSON-RPC error
    /// body.
    fn challenge(&mut self, config: &AuthConfig<'_>, d: &Denial<'_>) -> Outcome<'_> {
        self.stats.unauthorized += 1;
        let n = match auth::write_challenge(config, d, &mut self.auth_text) {
            Ok(n) => n,
            // An operation's scopes beyond what `Endpoint::new` measured: the challenge
            // without them (the JSON-RPC answer of the server layer names them).
            Err(_) => {
                let short = Denial {
                    operation_scopes: None,
                    ..*d
                };
                auth::write_challenge(config, &short, &mut self.auth_text).unwrap_or(0)
            }
        };
        let message = match d.kind {
            DenialKind::InvalidRequest => "Bad Request: invalid authorization",
            DenialKind::NoToken | DenialKind::InvalidToken => "Unauthorized",
            DenialKind::InsufficientScope => "Forbidden: insufficient scope",
        };
        self.plain_error(d.kind.status(), message, Some(n))
    }

    /// A status with a JSON-RPC error body, and the challenge in `auth_text[..n]`.
    fn plain_error(&mut self, status: u16, message: &str, challenge: Option<usize>) -> Outcome<'_> {
        self.stats.refused += 1;
        let mut w = JsonWriter::new(&mut self.scratch);
        jsonrpc::encode_error(&mut w, None, ErrorCode(-32000), message, None);
        let body_len = w.finish().unwrap_or(0);
        let mut head = Head::new(status, BodyLength::Fixed(body_len))
            .with("Content-Type", b"application/json");
        if let Some(n) = challenge {
            head = head.with("WWW-Authenticate", &self.auth_text[..n]);
        }
        Outcome::Respond {
            head,
            body: &self.scratch[..body_len],
        }
    }
}
