"""``Server.asgi(auth=...)``: the helper as an OAuth 2.1 protected resource, driven as an
ASGI application in-process. The verifier looks tokens up in a table (as an
introspecting host would); examples/python verifies signed JWTs with PyJWT."""

from __future__ import annotations

import asyncio
import json
import time

from picomcp import Context, Server
from test_asgi import HOST, INIT, Harness, events, post

RESOURCE = "http://127.0.0.1:8000/mcp"
META = "http://127.0.0.1:8000/.well-known/oauth-protected-resource/mcp"


def verifier(token: str):
    now = int(time.time())
    table = {
        "basic": {"sub": "alice", "aud": RESOURCE, "exp": now + 600, "scope": "mcp",
                  "client_id": "c1"},
        "wide": {"sub": "alice", "aud": [RESOURCE], "exp": now + 600,
                 "scope": "mcp files:write", "client_id": "c1"},
        "elsewhere": {"sub": "alice", "aud": "http://127.0.0.1:1/mcp", "exp": now + 600,
                      "scope": "mcp"},
        "expired": {"sub": "alice", "aud": RESOURCE, "exp": now - 3600, "scope": "mcp"},
    }
    return table.get(token)


def make_app() -> Server:
    app = Server("auth-test", "1.0.0")

    @app.tool
    def whoami(ctx: Context) -> str:
        "Who the caller is."
        p = ctx.principal
        return "%s via %s" % (p["subject"], p["client_id"]) if p else "nobody"

    @app.tool(scopes="files:write")
    def write_file(ctx: Context) -> str:
        "Needs files:write."
        return "written by %s" % ctx.principal["subject"]

    return app


AUTH = {"verifier": verifier, "resource": RESOURCE,
        "authorization_servers": ["http://127.0.0.1:9000"],
        "scopes": ["mcp", "files:write"], "scopes_supported": ["mcp"], "required": "mcp"}


def bearer(token: str) -> tuple:
    return (b"authorization", b"Bearer " + token.encode())


def result(body: bytes) -> dict:
    return json.loads(body) if body.startswith(b"{") else events(body)[-1]


def test_protected_resource_over_asgi():
    async def main():
        h = Harness(make_app().asgi(auth=AUTH))
        await h.start()
        status, headers, body = await h.request(
            "GET", "/.well-known/oauth-protected-resource/mcp", [HOST])
        assert status == 200
        doc = json.loads(body)
        assert doc["resource"] == RESOURCE
        assert doc["bearer_methods_supported"] == ["header"]

        status, headers, _ = await h.request("POST", "/mcp", *post(INIT))
        assert status == 401
        assert headers[b"www-authenticate"].decode() == \
            'Bearer resource_metadata="%s", scope="mcp"' % META
        for bad in ("elsewhere", "expired", "forged"):
            status, headers, _ = await h.request("POST", "/mcp", *post(INIT, bearer(bad)))
            assert status == 401, bad
            assert b'error="invalid_token"' in headers[b"www-authenticate"]

        status, headers, body = await h.request("POST", "/mcp", *post(INIT, bearer("basic")))
        assert status == 200, body
        session = [(b"mcp-session-id", headers[b"mcp-session-id"]),
                   (b"mcp-protocol-version", b"2025-11-25")]
        status, _, _ = await h.request("POST", "/mcp", *post(
            {"jsonrpc": "2.0", "method": "notifications/initialized"}, *session,
            bearer("basic")))
        assert status == 202
        listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
        _, _, body = await h.request("POST", "/mcp", *post(listing, *session, bearer("basic")))
        assert [t["name"] for t in result(body)["result"]["tools"]] == ["whoami"]
        who = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "whoami"}}
        _, _, body = await h.request("POST", "/mcp", *post(who, *session, bearer("basic")))
        assert result(body)["result"]["content"][0]["text"] == "alice via c1"
        write = {"jsonrpc": "2.0", "id": 4, "method": "tools/call",
                 "params": {"name": "write_file"}}
        status, headers, _ = await h.request("POST", "/mcp", *post(write, *session,
                                                                   bearer("basic")))
        assert status == 403
        assert headers[b"www-authenticate"].decode() == (
            'Bearer resource_metadata="%s", scope="mcp files:write", '
            'error="insufficient_scope", error_description="the token lacks a scope this '
            'request needs"' % META)
        _, _, body = await h.request("POST", "/mcp", *post(listing, *session, bearer("wide")))
        assert [t["name"] for t in result(body)["result"]["tools"]] == ["whoami", "write_file"]
        status, _, body = await h.request("POST", "/mcp", *post(write, *session, bearer("wide")))
        assert status == 200, body
        assert result(body)["result"]["content"][0]["text"] == "written by alice"
        await h.stop()

    asyncio.run(main())


def test_without_auth_scopes_do_not_apply():
    async def main():
        h = Harness(make_app().asgi())
        await h.start()
        status, headers, body = await h.request("POST", "/mcp", *post(INIT))
        assert status == 200
        session = [(b"mcp-session-id", headers[b"mcp-session-id"]),
                   (b"mcp-protocol-version", b"2025-11-25")]
        await h.request("POST", "/mcp", *post(
            {"jsonrpc": "2.0", "method": "notifications/initialized"}, *session))
        _, _, body = await h.request("POST", "/mcp", *post(
            {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, *session))
        assert [t["name"] for t in result(body)["result"]["tools"]] == ["whoami", "write_file"]
        _, _, body = await h.request("POST", "/mcp", *post(
            {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "whoami"}},
            *session))
        assert result(body)["result"]["content"][0]["text"] == "nobody"
        await h.stop()

    asyncio.run(main())
