"""A reference resource server on the official Python SDK, to prove the authorization server.

The SDK's own `MCPServer` with its auth support (`AuthSettings`, a `TokenVerifier`): it
serves the protected resource metadata (RFC 9728), answers 401/403 with the SDK's
`WWW-Authenticate`, and verifies our authorization server's JWTs with PyJWT against the
JWKS fetched from the issuer (signature, `iss`, `aud` = this server's resource URL, `exp`).
No picomcp code is involved: when the SDK's client completes the flow against this server
and our authorization server, the authorization server is known to be good before any
picomcp server or client is tested with it (tests/auth/run.py, section "reference").

    python reference_server.py --issuer URL --port N [--scopes "mcp:read"]

Tools: `whoami` (the verified principal: subject, client id, scopes; never the token).
"""

from __future__ import annotations

import argparse
import json
import warnings

import jwt
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


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--issuer", required=True)
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--scopes", default="mcp:read", help="scopes every request needs")
    args = p.parse_args()
    resource = f"http://127.0.0.1:{args.port}/mcp"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        settings = AuthSettings(
            issuer_url=args.issuer, resource_server_url=resource,
            required_scopes=args.scopes.split(), validate_token_resource=True,
        )
    server = MCPServer("auth-reference", token_verifier=JwtVerifier(args.issuer, resource), auth=settings)

    @server.tool()
    def whoami() -> str:
        """The verified principal of this request."""
        tok = get_access_token()
        return json.dumps({"sub": tok.subject, "client_id": tok.client_id, "scopes": tok.scopes})

    server.run("streamable-http", host="127.0.0.1", port=args.port)


if __name__ == "__main__":
    main()
