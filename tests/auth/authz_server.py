"""A real OAuth 2.1 authorization server for the authorization tests, on Authlib and Flask.

Built from Authlib's own grant, endpoint and token classes (pinned in tests/auth/setup.sh);
this file only supplies the storage (in memory) and the policy choices of the test:

* RFC 8414 metadata at /.well-known/oauth-authorization-server and the same document, with
  the OpenID Connect Discovery fields, at /.well-known/openid-configuration (either can be
  switched off with --discovery, to test a client's fallback);
* JWKS at /jwks.json (one RS256 or ES256 signing key, made at start);
* dynamic client registration (RFC 7591) at /register, open (no initial access token);
  a client may also be pre-registered with --client;
* the authorization code grant with PKCE, S256 only and mandatory (RFC 7636), the
  `resource` indicator mandatory (RFC 8707: exactly one, absolute, no fragment; the token
  request and every refresh must name the same one), `iss` in every authorization
  response (RFC 9207); redirect URIs match exactly, but for the port of a loopback IP
  literal (RFC 8252 §7.3);
* browserless consent: /authorize grants the request of the one test user at once and
  redirects (302) to the client's redirect URI, as the conformance suite's mock does;
* signed JWT access tokens (RFC 9068 profile, `typ: at+jwt`) with iss, aud (= the
  resource), exp, iat, sub, client_id, scope, jti; refresh tokens, rotated on each use
  (OAuth 2.1 for public clients);
* for the negative cases only when --test-endpoints is given: POST /test/mint (a token with
  any audience, scope, lifetime, or signed with a key that is not in the JWKS) and
  GET /test/log (what clients sent: registrations, authorization and token requests).

Run: `python authz_server.py --port 0` prints `READY <issuer>` on stdout once listening;
SIGTERM or SIGINT stops it. Listens on 127.0.0.1 only.
"""

from __future__ import annotations

import argparse
import secrets
import signal
import sys
import threading
import time
from urllib.parse import urlsplit

from authlib.common.security import generate_token
from authlib.integrations.flask_oauth2 import AuthorizationServer
from authlib.oauth2.rfc6749 import ClientMixin, grants
from authlib.oauth2.rfc6749.errors import InvalidRequestError, OAuth2Error
from authlib.oauth2.rfc7591 import ClientRegistrationEndpoint
from authlib.oauth2.rfc7636 import CodeChallenge
from authlib.oauth2.rfc8414 import AuthorizationServerMetadata
from authlib.oauth2.rfc9068 import JWTBearerTokenGenerator
from authlib.oauth2.rfc9207 import IssuerParameter
from flask import Flask, g, jsonify, request
from joserfc import jwt
from joserfc.jwk import ECKey, KeySet, RSAKey
from werkzeug.serving import make_server

AUTH_METHODS = ["client_secret_basic", "client_secret_post", "none"]


class InvalidTargetError(OAuth2Error):
    """RFC 8707 §2: the `resource` parameter is missing, malformed or not allowed."""

    error = "invalid_target"


def check_resource(value: str | None, values: list[str]) -> str:
    """The one resource indicator of a request: absolute URI, no fragment (RFC 8707 §2)."""
    if len(values) > 1:
        raise InvalidTargetError(description="exactly one 'resource' is supported")
    if not value:
        raise InvalidTargetError(description="missing 'resource' (RFC 8707)")
    parts = urlsplit(value)
    if not parts.scheme or not parts.netloc or "#" in value:
        raise InvalidTargetError(description="'resource' must be an absolute URI without a fragment")
    return value


class Client(ClientMixin):
    """A registered client, kept in memory."""

    def __init__(self, client_id: str, secret: str | None, meta: dict):
        self.client_id = client_id
        self.client_secret = secret
        self.meta = meta
        self.auth_method = meta.get("token_endpoint_auth_method") or (
            "client_secret_basic" if secret else "none"
        )

    def get_client_id(self):
        return self.client_id

    def get_default_redirect_uri(self):
        uris = self.meta.get("redirect_uris") or []
        return uris[0] if uris else None

    def get_allowed_scope(self, scope):
        return scope or ""

    def check_redirect_uri(self, redirect_uri):
        # Exact match against the registered values (OAuth 2.1, AUTH.md S2), except the
        # port of a loopback IP literal: RFC 8252 §7.3 (and OAuth 2.1) make the server
        # allow any port there, chosen by the native client at the time of the request.
        registered = self.meta.get("redirect_uris") or []
        if redirect_uri in registered:
            return True
        got = urlsplit(redirect_uri)
        if got.scheme != "http" or got.hostname not in ("127.0.0.1", "::1"):
            return False
        return any(
            (r.scheme, r.hostname, r.path, r.query) == (got.scheme, got.hostname, got.path, got.query)
            for r in map(urlsplit, registered)
        )

    def check_client_secret(self, client_secret):
        return self.client_secret is not None and secrets.compare_digest(
            self.client_secret, client_secret
        )

    def check_endpoint_auth_method(self, method, endpoint):
        return endpoint != "token" or method == self.auth_method

    def check_response_type(self, response_type):
        return response_type in (self.meta.get("response_types") or ["code"])

    def check_grant_type(self, grant_type):
        return grant_type in (self.meta.get("grant_types") or ["authorization_code"])


class AuthCode:
    def __init__(self, code, client_id, redirect_uri, scope, user, challenge, method, resource):
        self.code, self.client_id, self.redirect_uri = code, client_id, redirect_uri
        self.scope, self.user, self.resource = scope, user, resource
        self.code_challenge, self.code_challenge_method = challenge, method
        self.expires_at = time.time() + 600

    def get_redirect_uri(self):
        return self.redirect_uri

    def get_scope(self):
        return self.scope


class RefreshToken:
    def __init__(self, token, client_id, scope, user, resource):
        self.token, self.client_id, self.scope = token, client_id, scope
        self.user, self.resource, self.revoked = user, resource, False

    def check_client(self, client):
        return client.get_client_id() == self.client_id

    def get_scope(self):
        return self.scope


class User:
    def __init__(self, user_id: str):
        self.user_id = user_id

    def get_user_id(self):
        return self.user_id


class Store:
    """Everything the server remembers, behind one lock (the HTTP server is threaded)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.clients: dict[str, Client] = {}
        self.codes: dict[str, AuthCode] = {}
        self.refresh: dict[str, RefreshToken] = {}
        self.log: list[dict] = []

    def record(self, kind: str, **fields):
        with self.lock:
            self.log.append({"type": kind, "at": time.time(), **fields})


def build_app(args) -> tuple[Flask, dict]:
    """The Flask app and its metadata document; `args.issuer` must be set."""
    issuer = args.issuer
    store = Store()
    user = User(args.user)
    if args.alg == "ES256":
        key = ECKey.generate_key("P-256", parameters={"kid": "as-key-1", "use": "sig", "alg": "ES256"})
        forger = ECKey.generate_key("P-256", parameters={"kid": "as-key-1", "use": "sig", "alg": "ES256"})
    else:
        key = RSAKey.generate_key(2048, parameters={"kid": "as-key-1", "use": "sig", "alg": "RS256"})
        forger = RSAKey.generate_key(2048, parameters={"kid": "as-key-1", "use": "sig", "alg": "RS256"})
    public_jwks = KeySet([key]).as_dict(private=False)

    app = Flask("picomcp-test-as")
    server = AuthorizationServer()

    class TokenGenerator(JWTBearerTokenGenerator):
        def get_jwks(self):
            return KeySet([key])  # a key set, so that joserfc writes the `kid` header

        def get_audiences(self, client, user, scope):
            # RFC 8707: the token is for the resource the request named (checked by the grant).
            return g.resource

    scopes = args.scopes.split() if args.scopes else None
    server.scopes_supported = scopes
    server.register_token_generator(
        "default",
        TokenGenerator(
            issuer,
            alg=args.alg,
            refresh_token_generator=lambda *a, **k: generate_token(48),
            expires_generator=lambda client, grant_type: args.token_ttl,
        ),
    )

    def query_client(client_id):
        with store.lock:
            return store.clients.get(client_id)

    def save_token(token, req):
        if token.get("refresh_token"):
            with store.lock:
                store.refresh[token["refresh_token"]] = RefreshToken(
                    token["refresh_token"], req.client.get_client_id(), token.get("scope", ""),
                    req.user, g.resource,
                )

    server._query_client = query_client
    server._save_token = save_token

    class StrictCodeChallenge(CodeChallenge):
        """PKCE on every authorization request, S256 only (OAuth 2.1, MCP)."""

        SUPPORTED_CODE_CHALLENGE_METHOD = ["S256"]

        def validate_code_challenge(self, grant, redirect_uri):
            data = grant.request.payload.data
            if not data.get("code_challenge"):
                raise InvalidRequestError("Missing 'code_challenge' (PKCE is required)")
            if data.get("code_challenge_method") != "S256":
                raise InvalidRequestError("'code_challenge_method' must be S256")
            super().validate_code_challenge(grant, redirect_uri)

    class CodeGrant(grants.AuthorizationCodeGrant):
        TOKEN_ENDPOINT_AUTH_METHODS = AUTH_METHODS

        def save_authorization_code(self, code, req):
            data = req.payload.data
            item = AuthCode(
                code, req.client.get_client_id(), req.payload.redirect_uri, req.scope,
                req.user, data.get("code_challenge"), data.get("code_challenge_method"),
                data.get("resource"),
            )
            with store.lock:
                store.codes[code] = item
            return item

        def query_authorization_code(self, code, client):
            with store.lock:
                item = store.codes.get(code)
            if item and item.client_id == client.get_client_id() and item.expires_at > time.time():
                return item
            return None

        def delete_authorization_code(self, authorization_code):
            with store.lock:
                store.codes.pop(authorization_code.code, None)

        def authenticate_user(self, authorization_code):
            return authorization_code.user

        def validate_authorization_request(self):
            redirect_uri = super().validate_authorization_request()
            q = request.args
            try:
                check_resource(q.get("resource"), q.getlist("resource"))
            except OAuth2Error as error:
                error.redirect_uri = redirect_uri
                raise
            return redirect_uri

        def validate_token_request(self):
            super().validate_token_request()
            form = self.request.form
            resource = check_resource(form.get("resource"), request.form.getlist("resource"))
            if resource != self.request.authorization_code.resource:
                raise InvalidTargetError(description="'resource' differs from the authorization request")
            g.resource = resource

    class RefreshGrant(grants.RefreshTokenGrant):
        TOKEN_ENDPOINT_AUTH_METHODS = AUTH_METHODS
        INCLUDE_NEW_REFRESH_TOKEN = True

        def authenticate_refresh_token(self, refresh_token):
            with store.lock:
                item = store.refresh.get(refresh_token)
            return item if item and not item.revoked else None

        def authenticate_user(self, refresh_token):
            return refresh_token.user

        def revoke_old_credential(self, refresh_token):
            with store.lock:
                refresh_token.revoked = True

        def validate_token_request(self):
            super().validate_token_request()
            old = self.request.refresh_token
            given = self.request.form.get("resource")
            resource = check_resource(given, request.form.getlist("resource")) if given else old.resource
            if resource != old.resource:
                raise InvalidTargetError(description="'resource' differs from the original grant")
            g.resource = resource

    metadata = {
        "issuer": issuer,
        "authorization_endpoint": issuer + "/authorize",
        "token_endpoint": issuer + "/token",
        "registration_endpoint": issuer + "/register",
        "jwks_uri": issuer + "/jwks.json",
        "response_types_supported": ["code"],
        "response_modes_supported": ["query"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "token_endpoint_auth_methods_supported": AUTH_METHODS,
        "code_challenge_methods_supported": ["S256"],
        "authorization_response_iss_parameter_supported": True,
    }
    if scopes:
        metadata["scopes_supported"] = scopes
    AuthorizationServerMetadata(metadata).validate()
    oidc = dict(
        metadata,
        subject_types_supported=["public"],
        id_token_signing_alg_values_supported=[args.alg],
    )

    class Registration(ClientRegistrationEndpoint):
        def authenticate_token(self, req):
            return True  # open registration, as the MCP spec's DCR expects

        def get_server_metadata(self):
            return metadata

        def generate_client_secret(self, req):
            if req.payload.data.get("token_endpoint_auth_method") == "none":
                return None
            return super().generate_client_secret(req)

        def generate_client_info(self, req):
            info = super().generate_client_info(req)
            return {k: v for k, v in info.items() if v is not None}

        def save_client(self, client_info, client_metadata, req):
            meta = dict(client_metadata)
            meta.setdefault("grant_types", ["authorization_code"])
            meta.setdefault("response_types", ["code"])
            meta.setdefault(
                "token_endpoint_auth_method",
                "client_secret_basic" if client_info.get("client_secret") else "none",
            )
            client = Client(client_info["client_id"], client_info.get("client_secret"), meta)
            with store.lock:
                store.clients[client.client_id] = client
            store.record("register", request=req.payload.data, client_id=client.client_id)
            return client

    class Issuer(IssuerParameter):
        def get_issuer(self):
            return issuer

    server.register_grant(CodeGrant, [StrictCodeChallenge(required=True)])
    server.register_grant(RefreshGrant)
    server.register_endpoint(Registration)
    issuer_param = Issuer()
    server.register_extension(issuer_param)

    for spec in args.client:
        cid, _, rest = spec.partition(":")
        secret, _, redirect = rest.partition(":")
        store.clients[cid] = Client(
            cid, secret or None,
            {"redirect_uris": [redirect], "grant_types": ["authorization_code", "refresh_token"],
             "token_endpoint_auth_method": "client_secret_basic" if secret else "none"},
        )

    if args.discovery in ("oauth", "both"):
        app.add_url_rule("/.well-known/oauth-authorization-server", "as_meta", lambda: jsonify(metadata))
    if args.discovery in ("oidc", "both"):
        app.add_url_rule("/.well-known/openid-configuration", "oidc_meta", lambda: jsonify(oidc))
    app.add_url_rule("/jwks.json", "jwks", lambda: jsonify(public_jwks))

    @app.get("/authorize")
    def authorize():
        q = request.args
        store.record("authorize", params={k: q.getlist(k) if len(q.getlist(k)) > 1 else q[k] for k in q})
        try:
            grant = server.get_consent_grant(end_user=user)
        except OAuth2Error as error:
            # RFC 9207 §2: `iss` in error responses too (Authlib's hook covers successes).
            response = server.handle_error_response(None, error)
            issuer_param.add_issuer_parameter(server, response)
            return response
        # Browserless consent: the one test user approves at once.
        return server.create_authorization_response(grant_user=user, grant=grant)

    @app.post("/token")
    def token():
        form = {k: v for k, v in request.form.items() if k not in ("client_secret", "code_verifier")}
        form["code_verifier_sent"] = bool(request.form.get("code_verifier"))
        form["basic_auth"] = (request.headers.get("Authorization") or "").lower().startswith("basic ")
        response = server.create_token_response()
        store.record("token", form=form, status=response.status_code)
        return response

    @app.post("/register")
    def register():
        return server.create_endpoint_response("client_registration")

    if args.test_endpoints:

        @app.post("/test/mint")
        def mint():
            """A token for the negative cases: any claims; `forge` signs with a key that has
            the published key's `kid` but is not the published key."""
            body = request.get_json(force=True)
            now = int(time.time())
            claims = {
                "iss": body.get("iss", issuer),
                "sub": body.get("sub", args.user),
                "client_id": body.get("client_id", "minted-client"),
                "aud": body["aud"],
                "scope": body.get("scope", ""),
                "iat": now,
                "exp": now + int(body.get("exp_in", args.token_ttl)),
                "jti": generate_token(16),
            }
            for name in body.get("drop", []):
                claims.pop(name, None)
            signer = forger if body.get("forge") else key
            header = {"alg": args.alg, "typ": "at+jwt", "kid": "as-key-1"}
            return jsonify({"access_token": jwt.encode(header, claims, signer), "claims": claims})

        @app.get("/test/log")
        def log():
            since = int(request.args.get("since", 0))
            with store.lock:
                return jsonify(store.log[since:])

    return app, metadata


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--port", type=int, default=0, help="TCP port on 127.0.0.1 (0: any free port)")
    p.add_argument("--host", default="127.0.0.1", help="host name in the issuer URL (bind is always 127.0.0.1)")
    p.add_argument("--scopes", default="", help="space-separated scopes_supported; unknown scopes are refused (empty: any scope)")
    p.add_argument("--alg", choices=["RS256", "ES256"], default="RS256")
    p.add_argument("--token-ttl", type=int, default=300, help="access token lifetime in seconds")
    p.add_argument("--user", default="alice", help="the subject every authorization is granted to")
    p.add_argument("--discovery", choices=["both", "oauth", "oidc"], default="both")
    p.add_argument("--client", action="append", default=[], metavar="ID:SECRET:REDIRECT",
                   help="a pre-registered client (empty SECRET: public client)")
    p.add_argument("--test-endpoints", action="store_true", help="serve /test/mint and /test/log")
    args = p.parse_args(argv)

    srv = make_server("127.0.0.1", args.port, None, threaded=True)
    args.issuer = f"http://{args.host}:{srv.server_port}"
    app, _ = build_app(args)
    srv.app = app
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    print(f"READY {args.issuer}", flush=True)
    stop.wait()
    srv.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
