"""The Streamable HTTP vectors (``tests/vectors/http/*.jsonl``, format: ``tests/vectors/
README.md``, "Streamable HTTP endpoint"), run through the Python binding's ``Endpoint``
as its ASGI adapter drives it (``_asgi.py``): ``set_tools`` with the layer,
``handle_request`` with the scripted verifier, ``Session.handle_message`` on the slot's
session, the ``ServerLayer`` with the principal's scopes, ``collect``, then
``poll_response``/``advance`` until the stream ends or waits. A mirror of the Rust runner
(``core/tests/vectors_http.rs``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from picomcp import Endpoint, ServerLayer, Session
from picomcp._native import Call
from test_vectors import CHANGES, JSON_FIELDS, matches, text

VECTORS = Path(__file__).resolve().parents[3] / "tests" / "vectors" / "http"
FILES = sorted(VECTORS.glob("*.jsonl"))

# Known gaps of this binding, each a failing expectation until fixed (strict xfail: a
# file that starts to pass fails the run, so the list cannot go stale). None now.
GAPS: dict = {}

def events(body: str) -> list:
    """The ``data:`` payloads of an SSE body (empty ones, the priming events, skipped)."""
    out = []
    for line in body.splitlines():
        if line.startswith("data:"):
            d = line[5:].lstrip()
            if d:
                out.append(json.loads(d))
    return out


def event_ids(body: str) -> list:
    return [line[3:].lstrip() for line in body.splitlines() if line.startswith("id:")]


def challenge(value: str) -> dict | None:
    """The auth-params of a ``Bearer`` challenge."""
    if not value.startswith("Bearer "):
        return None
    return dict(re.findall(r'([A-Za-z_]+)="([^"]*)"', value[7:]))


class Resp:
    def __init__(self, status=0, headers=None, body="", open_=None):
        self.status = status
        self.headers = headers or []
        self.body = body
        self.open = open_

    def header(self, name: str):
        for n, v in self.headers:
            if n.lower() == name.lower():
                return v
        return None


def decode_headers(hs) -> list:
    return [(n.decode("latin-1"), v.decode("latin-1")) for n, v in hs]


class Runner:
    def __init__(self, path: Path) -> None:
        self.name = path.name
        lines = path.read_text(encoding="utf-8").splitlines()
        self.steps = [ln for ln in lines if ln.strip() and not ln.startswith("#")]
        spec = json.loads(self.steps[0])["endpoint"]
        server = spec.get("server", {})
        self.tool_names = [t["name"] for t in server.get("tools", [])]

        def tables(key: str) -> list:
            return [{k: text(v) if k in JSON_FIELDS else v for k, v in d.items()}
                    for d in server.get(key, [])]

        options = {k: server[k] for k in ("page_size", "list_changed", "subscribe", "logging")
                   if k in server}
        self.layer = ServerLayer(tables("tools"), tables("resources"),
                                 tables("resourceTemplates"), tables("prompts"), **options)
        auth = spec.get("auth")
        kw = {k: spec[k] for k in ("path", "check_hosts", "allowed_hosts", "max_body",
                                   "session_idle_ms", "keepalive_ms", "retry_ms",
                                   "response_mode", "get_stream", "versions") if k in spec}
        if auth is not None:
            kw["auth"] = {k: v for k, v in auth.items() if k not in ("tokens", "unix_s")}
        self.ep = Endpoint(slots=spec.get("slots", 4), streams=spec.get("streams", 8), **kw)
        # As _asgi.py does: the tools' x-mcp-header annotations (Mcp-Param-* checks).
        self.ep.set_tools(self.layer)
        self.versions = spec.get("versions")
        self.line = max(spec.get("max_body", 8192), 8192)
        self.state_key = spec.get("state_key")
        self.tokens = (auth or {}).get("tokens", {})
        self.unix_s = (auth or {}).get("unix_s", 0)
        self.start = self.now = 1000
        self.requests = 0
        self.pool: list = [None] * self.ep.slot_count
        self.last_slot = None
        self.vars: dict = {}
        self.streams: dict = {}
        self.last = Resp()

    def verify(self, token: str):
        claims = self.tokens.get(token)
        return claims if isinstance(claims, dict) else None

    def session(self) -> Session:
        kw = {}
        if self.state_key is not None:
            kw["state_key"] = self.state_key.encode("utf-8")
        return Session("server", "vec-http", "0.0.0", self.layer.capabilities,
                       versions=self.versions, max_line=self.line, inbound_slots=8,
                       outbound_slots=4, now_ms=self.now, **kw)

    def app(self, s: Session, scopes) -> None:
        """The server layer answers what it can; a tool call gets its name as text;
        any other request -32601."""
        while True:
            e = self.layer.poll_event(s, scopes)
            if e is None:
                return
            if isinstance(e, Call):
                if e.kind == "tool":
                    self.layer.respond_tool(s, e.id, e.index,
                                            [{"type": "text", "text": self.tool_names[e.index]}])
                else:
                    s.respond_error(e.id, -32601, "not scripted")
            elif e.kind == "request":
                s.respond_error(e.id, -32601, "Method not found")

    def send(self, method: str, target: str, headers: list, body: bytes) -> Resp:
        self.requests = (self.requests + 1) % 256
        out = self.ep.handle_request(
            self.now, method, target, headers, body, bytes([self.requests] * 16),
            verifier=self.verify, unix_s=self.unix_s + (self.now - self.start) // 1000,
            layer=self.layer)
        if out.kind == "respond":
            return Resp(out.status, decode_headers(out.headers), out.body.decode("utf-8"))
        if out.kind == "stream":
            return self.drain(out.stream, Resp())
        slot = out.slot
        if out.fresh or self.pool[slot] is None:
            self.pool[slot] = self.session()
        self.last_slot = slot
        s = self.pool[slot]
        s.handle_message(self.now, body)
        principal = out.principal
        self.app(s, None if principal is None else principal["scopes"])
        self.ep.collect(self.now, slot, s)
        if out.stream is None:
            return Resp(202)
        return self.drain(out.stream, Resp())

    def drain(self, stream: int, r: Resp) -> Resp:
        r.open, r.body = stream, ""
        while True:
            kind, value = self.ep.poll_response(self.now, stream)
            if kind == "head":
                r.status, r.headers = value[0], decode_headers(value[1])
            elif kind == "body":
                r.body += value.decode("utf-8")
                self.ep.advance(stream, len(value))
            elif kind == "wait":
                return r
            else:
                r.open = None
                return r

    def run(self) -> None:
        for n, line in enumerate(self.steps[1:]):
            ctx = "%s step %d %s" % (self.name, n + 2, line)
            (k, v), = json.loads(line).items()
            getattr(self, "step_" + k)(v, ctx)

    # ---- steps ----

    def step_http(self, v, ctx) -> None:
        def value(s: str) -> str:
            if s.startswith("$"):
                assert s[1:] in self.vars, "%s: no %s" % (ctx, s)
                return self.vars[s[1:]]
            return s

        headers = [(n, value(x)) for n, x in (v.get("headers") or {}).items()]
        body = v.get("body")
        if body is None:
            data = b""
        elif isinstance(body, str):
            data = body.encode("utf-8")
        else:
            data = text(body).encode("utf-8")
        self.last = self.send(v.get("method", "POST"), v.get("path", "/mcp"), headers, data)
        if "stream" in v and self.last.open is not None:
            self.streams[v["stream"]] = (self.last.open, self.last.status, self.last.headers)

    def step_expect_http(self, exp, ctx) -> None:
        r = self.last
        shown = "%s\n  got %s %r\n  body %s" % (ctx, r.status, r.headers, r.body)
        if "status" in exp:
            assert exp["status"] == r.status, shown
        for name, want in (exp.get("headers") or {}).items():
            got = r.header(name)
            if want is None:
                assert got is None, "%s\n  header %s" % (shown, name)
            elif want == "<any>":
                assert got is not None, "%s\n  header %s" % (shown, name)
            else:
                assert got == want, "%s\n  header %s" % (shown, name)
        if "body" in exp:
            if isinstance(exp["body"], str):
                assert r.body == exp["body"], shown
            else:
                assert matches(exp["body"], json.loads(r.body)), shown
        if "body_contains" in exp:
            assert exp["body_contains"] in r.body, shown
        if "challenge" in exp:
            got = r.header("www-authenticate")
            assert got is not None, "%s\n  no WWW-Authenticate" % shown
            params = challenge(got)
            assert params is not None, "%s\n  not Bearer" % shown
            for name, want in exp["challenge"].items():
                if want is None:
                    assert name not in params, "%s\n  challenge %s" % (shown, name)
                elif want == "<any>":
                    assert name in params, "%s\n  challenge %s" % (shown, name)
                else:
                    assert params.get(name) == want, "%s\n  challenge %s" % (shown, name)
        if "sse" in exp:
            assert matches(exp["sse"], events(r.body)), shown
        if "open" in exp:
            assert exp["open"] == (r.open is not None), shown
        for var, src in (exp.get("save") or {}).items():
            if src.startswith("header:"):
                got = r.header(src[7:])
            else:
                ids = event_ids(r.body)
                i = int(src[len("event_id:"):])
                got = ids[i] if i < len(ids) else None
            assert got is not None, "%s\n  nothing to save as %s" % (shown, var)
            self.vars[var] = got

    def step_read(self, v, ctx) -> None:
        stream, status, headers = self.streams[v]
        self.last = self.drain(stream, Resp(status, headers))

    def step_detach(self, v, ctx) -> None:
        stream, _, _ = self.streams.pop(v)
        self.ep.detach(stream)

    def step_notify(self, v, ctx) -> None:
        assert self.last_slot is not None, "%s: no session delivered to yet" % ctx
        s = self.pool[self.last_slot]
        if isinstance(v, str):
            s.notify(CHANGES[v])
        else:
            s.notify("notifications/resources/updated", v["resource_updated"])
        self.ep.collect(self.now, self.last_slot, s)

    def step_advance_ms(self, v, ctx) -> None:
        self.now += v
        self.ep.handle_timeout(self.now)


def test_every_http_vector_file_is_found():
    assert len(FILES) >= 4, FILES


@pytest.mark.parametrize("path", [
    pytest.param(p, marks=pytest.mark.xfail(reason=GAPS[p.name], strict=True))
    if p.name in GAPS else p for p in FILES], ids=[p.name for p in FILES])
def test_http_vector(path):
    Runner(path).run()


def test_the_challenge_parser():
    v = 'Bearer resource_metadata="http://h/.well-known/x", scope="a b", error="e"'
    assert challenge(v) == {"resource_metadata": "http://h/.well-known/x", "scope": "a b",
                            "error": "e"}
    assert challenge('Basic realm="x"') is None
