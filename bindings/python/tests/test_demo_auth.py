"""The Python demo with ``--auth-issuer``: signed JWTs verified with PyJWT against the JWKS
the demo discovers from the issuer's metadata, then the core's rules (audience, expiry,
scopes, the filtered list, the 403 step-up), over real sockets under uvicorn. The
"authorization server" is a few lines serving its metadata and JWKS (tests/auth/ runs a
real one against every demo). Skipped without PyJWT (bindings/python/build.sh installs it)."""

from __future__ import annotations

import http.server
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

import pytest

jwt = pytest.importorskip("jwt")
pytest.importorskip("uvicorn")
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey  # noqa: E402

DEMO = os.path.join(os.path.dirname(__file__), "..", "..", "..", "examples", "python",
                    "demo_server.py")
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {},
    "clientInfo": {"name": "t", "version": "1"}}}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def authorization_server(key) -> str:
    """Serves RFC 8414 metadata and a JWKS with `key`'s public half; returns the issuer."""
    jwk = json.loads(jwt.algorithms.OKPAlgorithm.to_jwk(key.public_key()))
    jwk.update(kid="k1", alg="EdDSA", use="sig")
    port = free_port()
    issuer = "http://127.0.0.1:%d" % port

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            docs = {"/.well-known/oauth-authorization-server":
                    {"issuer": issuer, "jwks_uri": issuer + "/jwks"},
                    "/jwks": {"keys": [jwk]}}
            body = json.dumps(docs[self.path]).encode() if self.path in docs else b""
            self.send_response(200 if body else 404)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return issuer


def post(port: int, body: dict, token: str | None = None, headers: dict | None = None):
    req = urllib.request.Request("http://127.0.0.1:%d/mcp" % port,
                                 data=json.dumps(body).encode(), method="POST")
    req.add_header("Content-Type", "application/json")
    req.add_header("Accept", "application/json, text/event-stream")
    if token:
        req.add_header("Authorization", "Bearer " + token)
    for k, v in (headers or {}).items():
        req.add_header(k, v)
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


def message(body: bytes) -> dict:
    if body.startswith(b"{"):
        return json.loads(body)
    return [json.loads(l[5:]) for l in body.decode().splitlines()
            if l.startswith("data:") and l[5:].strip()][-1]


def test_the_python_demo_verifies_jwts():
    key = Ed25519PrivateKey.generate()
    issuer = authorization_server(key)
    port = free_port()
    resource = "http://127.0.0.1:%d/mcp" % port
    demo = subprocess.Popen([sys.executable, DEMO, "--http", "127.0.0.1:%d" % port,
                             "--auth-issuer", issuer], stdin=subprocess.DEVNULL)
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), 0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        now = int(time.time())

        def token(scope, **over):
            claims = {"iss": issuer, "sub": "alice", "aud": resource, "exp": now + 600,
                      "scope": scope, "client_id": "c1", **over}
            return jwt.encode(claims, key, algorithm="EdDSA", headers={"kid": "k1"})

        status, headers, _ = post(port, INIT)
        assert status == 401
        assert "resource_metadata=" in headers["www-authenticate"]
        other = Ed25519PrivateKey.generate()
        forged = jwt.encode({"iss": issuer, "sub": "a", "aud": resource, "exp": now + 600,
                             "scope": "mcp"}, other, algorithm="EdDSA", headers={"kid": "k1"})
        for bad in (token("mcp", aud="http://127.0.0.1:1/mcp"), token("mcp", exp=now - 3600),
                    token("mcp", iss="http://evil.example"), forged):
            status, headers, _ = post(port, INIT, bad)
            assert status == 401
            assert 'error="invalid_token"' in headers["www-authenticate"]

        basic = token("mcp")
        status, headers, body = post(port, INIT, basic)
        assert status == 200, body
        session = {"Mcp-Session-Id": headers["mcp-session-id"],
                   "MCP-Protocol-Version": "2025-11-25"}
        post(port, {"jsonrpc": "2.0", "method": "notifications/initialized"}, basic, session)
        listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
        names = [t["name"] for t in message(post(port, listing, basic, session)[2])
                 ["result"]["tools"]]
        assert "echo" in names and "sleep" not in names
        sleep = {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                 "params": {"name": "sleep", "arguments": {"ms": 0}}}
        status, headers, _ = post(port, sleep, basic, session)
        assert status == 403
        assert 'scope="mcp mcp:admin", error="insufficient_scope"' in headers["www-authenticate"]
        admin = token("mcp mcp:admin")
        status, _, body = post(port, sleep, admin, session)
        assert status == 200, body
        assert message(body)["result"]["content"][0]["text"] == "slept"
    finally:
        demo.terminate()
        demo.wait(10)
