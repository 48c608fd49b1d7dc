"""``Server.asgi()``: the helper over Streamable HTTP, driven as an ASGI application
in-process (no server, no sockets), and mounted in Starlette when it is installed."""

from __future__ import annotations

import asyncio
import json

import pytest

from picomcp import Context, Endpoint, ENTROPY_LEN, Server

ACCEPT = (b"accept", b"application/json, text/event-stream")
JSON = (b"content-type", b"application/json")
HOST = (b"host", b"127.0.0.1:8000")


def make_app() -> Server:
    app = Server("asgi-test", "1.0.0")

    @app.tool
    def add(a: int, b: int) -> int:
        "Adds."
        return a + b

    @app.tool
    async def slow(ctx: Context) -> str:
        "Reports progress, then answers."
        for i in range(3):
            ctx.progress(i + 1, 3)
            await asyncio.sleep(0.01)
        return "done"

    return app


class Harness:
    """Runs one ASGI app: lifespan, then requests as full (status, headers, body)."""

    def __init__(self, asgi) -> None:
        self.asgi = asgi
        self.life_in: asyncio.Queue = asyncio.Queue()
        self.life_out: asyncio.Queue = asyncio.Queue()
        self.task = None

    async def start(self) -> None:
        self.task = asyncio.ensure_future(self.asgi(
            {"type": "lifespan", "asgi": {"version": "3.0"}}, self.life_in.get,
            self.life_out.put))
        await self.life_in.put({"type": "lifespan.startup"})
        assert (await self.life_out.get())["type"] == "lifespan.startup.complete"

    async def stop(self) -> None:
        await self.life_in.put({"type": "lifespan.shutdown"})
        assert (await self.life_out.get())["type"] == "lifespan.shutdown.complete"
        await self.task

    async def request(self, method: str, path: str, headers: list, body: bytes = b"",
                      root_path: str = ""):
        sent = [{"type": "http.request", "body": body, "more_body": False}]
        done = asyncio.Event()

        async def receive():
            if sent:
                return sent.pop()
            await done.wait()
            return {"type": "http.disconnect"}

        out = []

        async def send(message):
            out.append(message)

        scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
                 "method": method, "path": path, "raw_path": path.encode(),
                 "root_path": root_path, "query_string": b"", "headers": headers}
        await asyncio.wait_for(self.asgi(scope, receive, send), 10)
        done.set()
        start = out[0]
        assert start["type"] == "http.response.start"
        body = b"".join(m.get("body", b"") for m in out[1:])
        assert out[-1].get("more_body", False) is False
        return start["status"], dict(start["headers"]), body


def post(message: dict, *extra) -> tuple:
    return [HOST, ACCEPT, JSON, *extra], json.dumps(message).encode()


def events(body: bytes) -> list:
    return [json.loads(line[5:]) for line in body.decode().splitlines()
            if line.startswith("data:") and line[5:].strip()]


INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {},
    "clientInfo": {"name": "t", "version": "1"}}}


def test_endpoint_constants():
    assert ENTROPY_LEN >= 16
    ep = Endpoint(slots=2, streams=2, max_body=4096)
    assert ep.slot_count == 2 and ep.sessions == 0
    out = ep.handle_request(0, "GET", "/elsewhere", [], b"", bytes(ENTROPY_LEN))
    assert out.kind == "respond" and out.status == 404


def test_legacy_session_over_asgi():
    async def main():
        h = Harness(make_app().asgi())
        await h.start()
        status, headers, body = await h.request("POST", "/mcp", *post(INIT))
        assert status == 200, body
        sid = headers[b"mcp-session-id"]
        assert json.loads(body)["result"]["serverInfo"]["name"] == "asgi-test"
        session = [(b"mcp-session-id", sid), (b"mcp-protocol-version", b"2025-11-25")]
        status, _, _ = await h.request("POST", "/mcp", *post(
            {"jsonrpc": "2.0", "method": "notifications/initialized"}, *session))
        assert status == 202
        status, _, body = await h.request("POST", "/mcp", *post(
            {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
             "params": {"name": "add", "arguments": {"a": 2, "b": 3}}}, *session))
        assert status == 200
        msg = json.loads(body) if body.startswith(b"{") else events(body)[-1]
        assert msg["result"]["content"][0]["text"] == "5", msg
        # Progress travels with the response: an SSE stream.
        status, headers, body = await h.request("POST", "/mcp", *post(
            {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
             "params": {"name": "slow", "arguments": {}, "_meta": {"progressToken": "p"}}},
            *session))
        assert status == 200 and headers[b"content-type"] == b"text/event-stream"
        got = events(body)
        assert [m["params"]["progress"] for m in got if "method" in m] == [1, 2, 3]
        assert got[-1]["result"]["content"][0]["text"] == "done"
        status, _, _ = await h.request("DELETE", "/mcp", [HOST, *session])
        assert status == 200
        status, _, _ = await h.request("POST", "/mcp", *post(
            {"jsonrpc": "2.0", "id": 4, "method": "tools/list"}, *session))
        assert status == 404
        await h.stop()

    asyncio.run(main())


def test_modern_request_and_refusals():
    async def main():
        h = Harness(make_app().asgi())
        await h.start()
        meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {}}
        status, _, body = await h.request("POST", "/mcp", *post(
            {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
             "params": {"name": "add", "arguments": {"a": 1, "b": 1}, "_meta": meta}},
            (b"mcp-protocol-version", b"2026-07-28"), (b"mcp-method", b"tools/call"),
            (b"mcp-name", b"add")))
        assert status == 200, body
        assert json.loads(body)["result"]["content"][0]["text"] == "2", body
        status, _, _ = await h.request("POST", "/other", *post(INIT))
        assert status == 404
        status, _, _ = await h.request("POST", "/mcp", *post(INIT)[:0],
                                       [(b"host", b"evil.example"), ACCEPT, JSON],
                                       json.dumps(INIT).encode())
        assert status == 403
        await h.stop()

    asyncio.run(main())


def test_mounted_under_a_prefix_without_lifespan():
    async def main():
        h = Harness(make_app().asgi())  # no lifespan: started by the first request
        status, _, _ = await h.request("POST", "/api/mcp", *post(INIT), root_path="/api")
        assert status == 200
        await h.asgi.stop()

    asyncio.run(main())


def test_starlette_mount():
    starlette = pytest.importorskip("starlette")  # noqa: F841
    from starlette.applications import Starlette
    from starlette.responses import PlainTextResponse
    from starlette.routing import Mount, Route
    from starlette.testclient import TestClient

    mcp = make_app().asgi()
    web = Starlette(routes=[Route("/health", lambda r: PlainTextResponse("ok")),
                            Mount("/api", app=mcp)])
    with TestClient(web, base_url="http://localhost") as client:
        assert client.get("/health").text == "ok"
        r = client.post("/api/mcp", json=INIT,
                        headers={"accept": "application/json, text/event-stream"})
        assert r.status_code == 200, r.text
        assert r.json()["result"]["serverInfo"]["name"] == "asgi-test"
        assert r.headers["mcp-session-id"]


def test_get_stream_keepalive_notify_and_disconnect():
    """The GET stream of a legacy session: keep-alive comments from the endpoint's timer,
    `app.notify` reaching it, and the client going away (the stream is detached)."""
    async def main():
        app = make_app()
        asgi = app.asgi(keepalive_ms=50)
        h = Harness(asgi)
        await h.start()
        status, headers, _ = await h.request("POST", "/mcp", *post(INIT))
        sid = headers[b"mcp-session-id"]
        session = [(b"mcp-session-id", sid), (b"mcp-protocol-version", b"2025-11-25")]
        await h.request("POST", "/mcp", *post(
            {"jsonrpc": "2.0", "method": "notifications/initialized"}, *session))
        out, gone = [], asyncio.Event()
        sent = [{"type": "http.request", "body": b"", "more_body": False}]

        async def receive():
            if sent:
                return sent.pop()
            await gone.wait()
            return {"type": "http.disconnect"}

        async def send(message):
            out.append(message)

        scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
                 "method": "GET", "path": "/mcp", "root_path": "", "query_string": b"",
                 "headers": [HOST, (b"accept", b"text/event-stream"), *session]}
        task = asyncio.ensure_future(asgi(scope, receive, send))
        await asyncio.sleep(0.3)
        assert app.notify("notifications/tools/list_changed") == 1
        await asyncio.sleep(0.05)
        gone.set()
        await asyncio.wait_for(task, 5)
        assert out[0]["status"] == 200
        body = b"".join(m.get("body", b"") for m in out[1:])
        assert b"\n:" in body or body.startswith(b":"), body  # keep-alive comments
        assert b"notifications/tools/list_changed" in body, body
        assert asgi.endpoint.sessions == 1  # the session outlives its stream
        await h.stop()

    asyncio.run(main())
