"""A reference resource server on the official Python SDK, to prove the authorization server.

The SDK's own `MCPServer` with its auth support (`AuthSettings`, a `TokenVerifier`): it
serves the protected resource metadata (RFC 9728), answers 401/403 with the SDK's
`WWW-Authenticate`, and verifies our authorization server's JWTs with PyJWT against the
JWKS fetched from the issuer (signature, `iss`, `aud` = this server's resource URL, `exp`).
No picomcp code is involved: when the SDK's client completes the flow against this server
and our authorization server, the authorization server is known to be good before any
picomcp server or client is tested with it (tests/auth/run.py, section "reference").

    python reference_server.py --port N [--issuer URL] [--scopes "mcp:read"]

Tools: `whoami` (the verified principal: subject, client id, scopes; never the token) and
`admin_echo`, which needs the scope `mcp:admin` besides the base scopes. The SDK has no
scopes per tool, so a small ASGI policy in front of its app (`ToolScopes`) hides
`admin_echo` from `tools/list` and answers a call of it with the spec's 403
`insufficient_scope` challenge naming every scope the call needs: the step-up case of the
demos, so that the SDK clients' step-up and the test's checks are proven here too. Without
`--issuer` the server runs without authorization (every tool listed).
"""

from __future__ import annotations

import argparse
import json
import warnings

import jwt
import uvicorn
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer


class JwtVerifier:
    """Verifies the authorization server's access tokens (RFC 9068 JWTs) with PyJWT."""

    def __init__(self, issuer: str, audience: str):
        self.issuer, self.audience = issuer, audience
        self.jwks = jwt.PyJWKClient(issuer + "/jwks.json")

    async def verify_token(self, token: str) -> AccessToken | None:
        try:
            key = self.jwks.get_signing_key_from_jwt(token)
            claims = jwt.decode(
                token, key, algorithms=["RS256", "ES256"], audience=self.audience,
                issuer=self.issuer, options={"require": ["exp", "iss", "aud", "sub"]},
            )
        except jwt.PyJWTError:
            return None
        return AccessToken(
            token=token, client_id=claims.get("client_id", ""),
            scopes=(claims.get("scope") or "").split(), expires_at=claims["exp"],
            resource=self.audience, subject=claims["sub"],
        )


SCOPED = {"admin_echo": "mcp:admin"}


class ToolScopes:
    """ASGI policy: scopes per tool on top of the SDK app (JSON responses only)."""

    def __init__(self, app, verifier: JwtVerifier, base: str, metadata_url: str):
        self.app, self.verifier, self.base, self.metadata_url = app, verifier, base, metadata_url

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] != "POST" or scope["path"] != "/mcp":
            return await self.app(scope, receive, send)
        body, more = b"", True
        while more:
            msg = await receive()
            body, more = body + msg.get("body", b""), msg.get("more_body", False)
        replayed = False

        async def replay():
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        auth = dict(scope["headers"]).get(b"authorization", b"").decode()
        token = await self.verifier.verify_token(auth[7:]) if auth.lower().startswith("bearer ") else None
        try:
            req = json.loads(body)
        except ValueError:
            req = None
        method = req.get("method") if isinstance(req, dict) else None
        if token is None or method not in ("tools/call", "tools/list"):
            return await self.app(scope, replay, send)
        granted = set(token.scopes)
        if method == "tools/call":
            need = SCOPED.get((req.get("params") or {}).get("name"), "")
            if not set(need.split()) <= granted:
                scopes = " ".join(dict.fromkeys(self.base.split() + need.split()))
                challenge = (f'Bearer error="insufficient_scope", scope="{scopes}", '
                             f'resource_metadata="{self.metadata_url}"')
                out = json.dumps({"error": "insufficient_scope"}).encode()
                await send({"type": "http.response.start", "status": 403, "headers": [
                    (b"content-type", b"application/json"), (b"content-length", str(len(out)).encode()),
                    (b"www-authenticate", challenge.encode())]})
                await send({"type": "http.response.body", "body": out})
                return None
            return await self.app(scope, replay, send)
        # tools/list: drop what the grant does not cover.
        start, chunks = None, []

        async def capture(msg):
            nonlocal start
            if msg["type"] == "http.response.start":
                start = msg
                return
            chunks.append(msg.get("body", b""))
            if msg.get("more_body"):
                return
            out = b"".join(chunks)
            try:
                doc = json.loads(out)
                tools = doc["result"]["tools"]
                doc["result"]["tools"] = [t for t in tools if set(SCOPED.get(t["name"], "").split()) <= granted]
                out = json.dumps(doc).encode()
            except (ValueError, KeyError, TypeError):
                pass
            headers = [(k, v) for k, v in start["headers"] if k.lower() != b"content-length"]
            await send({**start, "headers": headers + [(b"content-length", str(len(out)).encode())]})
            await send({"type": "http.response.body", "body": out})

        return await self.app(scope, replay, capture)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--issuer", help="the authorization server (without it: no authorization)")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--scopes", default="mcp:read", help="scopes every request needs")
    args = p.parse_args()
    resource = f"http://127.0.0.1:{args.port}/mcp"
    if args.issuer:
        verifier = JwtVerifier(args.issuer, resource)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            settings = AuthSettings(
                issuer_url=args.issuer, resource_server_url=resource,
                required_scopes=args.scopes.split(), validate_token_resource=True,
            )
        server = MCPServer("auth-reference", token_verifier=verifier, auth=settings)
    else:
        server = MCPServer("auth-reference")

    @server.tool()
    def whoami() -> str:
        """The verified principal of this request."""
        tok = get_access_token()
        if tok is None:
            return json.dumps({"sub": None})
        return json.dumps({"sub": tok.subject, "client_id": tok.client_id, "scopes": tok.scopes})

    @server.tool()
    def admin_echo(message: str) -> str:
        """Echoes `message`; needs the scope mcp:admin."""
        return message

    app = server.streamable_http_app(json_response=True)
    if args.issuer:
        metadata = f"http://127.0.0.1:{args.port}/.well-known/oauth-protected-resource/mcp"
        app = ToolScopes(app, verifier, args.scopes, metadata)
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
