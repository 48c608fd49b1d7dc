"""``ctx.ask`` / ``ctx.ask_all``, ``ctx.request_state`` and ``ctx.client_capabilities`` in
both eras: 2026-07-28 ``input_required`` results (MRTR) with their keys, one round for
several questions, a sealed ``requestState`` and -32021; legacy requests to the client.
Tools, prompts and resource reads ask alike. A whole ``Server`` over pipes, driven with
raw JSON lines (every wait bounded), and over HTTP through ``Server.asgi()``: the
``x-mcp-header`` annotations of the registered tools are checked (``Mcp-Param-*``).
"""

from __future__ import annotations

import asyncio
import json
import os
import select
import threading
import time

import pytest

from picomcp import Context, McpError, SendError, Server

from conftest import MODERN_VERSION
from test_asgi import ACCEPT, HOST, JSON, Harness as AsgiHarness

TIMEOUT = 10.0  # seconds; only ever reached when something hangs
NAME = ("elicitation/create", {"message": "Name?", "requestedSchema": {
    "type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}})
COLOR = ("elicitation/create", {"message": "Color?", "requestedSchema": {
    "type": "object", "properties": {"color": {"type": "string"}}, "required": ["color"]}})
CAPITAL = ("sampling/createMessage", {"messages": [{"role": "user", "content": {
    "type": "text", "text": "Capital of France?"}}], "maxTokens": 10})
ALL_CAPS = {"elicitation": {}, "sampling": {}, "roots": {}}


def accept(**content) -> dict:
    return {"action": "accept", "content": content}


def make_app() -> Server:
    app = Server("ask-test", "1.0.0", log_level="error")

    @app.tool
    async def greet(ctx: Context) -> str:
        "Asks a name under its own key, with a state."
        answer = await ctx.ask(*NAME, key="user_name", state="greet-v1")
        return "Hello, %s!" % answer["content"]["name"]

    @app.tool
    async def plain(ctx: Context) -> str:
        "Asks under the default key."
        answer = await ctx.ask(*NAME)
        return "plain %s" % answer["content"]["name"]

    @app.tool
    async def survey(ctx: Context) -> str:
        "Asks two things at once."
        got = await ctx.ask_all({"name": NAME, "capital": CAPITAL}, state="survey-v1")
        return "%s/%s" % (got["name"]["content"]["name"], got["capital"]["content"]["text"])

    @app.tool
    async def rounds(ctx: Context) -> str:
        "Two rounds: the second's state says the first is done."
        if ctx.request_state != "round-2":
            await ctx.ask(*NAME, key="step1", state="round-1")
        answer = await ctx.ask(*COLOR, key="step2", state="round-2")
        return "color %s" % answer["content"]["color"]

    @app.tool
    def seen(ctx: Context) -> str:
        "What the handler sees: the request's state and client capabilities."
        return json.dumps({"state": ctx.request_state, "caps": ctx.client_capabilities})

    @app.tool
    async def careless(ctx: Context) -> str:
        "Swallows every Exception: the question still goes out."
        try:
            await ctx.ask(*NAME, key="n")
        except Exception:
            return "swallowed"
        return "answered"

    @app.tool
    async def bad_form(ctx: Context) -> str:
        "Asks with a form the content rules refuse (a nested object)."
        await ctx.ask("elicitation/create", {"message": "?", "requestedSchema": {
            "type": "object", "properties": {"x": {"type": "object"}}}})
        return "asked"

    @app.prompt
    async def brief(topic: str, ctx: Context) -> str:
        "A prompt that asks first."
        answer = await ctx.ask(*NAME, key="who")
        return "%s for %s" % (topic, answer["content"]["name"])

    @app.resource("test://asked", mime_type="text/plain")
    async def asked(ctx: Context) -> str:
        "A resource that asks first."
        answer = await ctx.ask(*COLOR, key="shade")
        return "shade %s" % answer["content"]["color"]

    return app


class Lines:
    """A ``Server`` serving a pipe pair in a thread, spoken to in raw JSON lines."""

    def __init__(self, app: Server) -> None:
        self.app = app
        self.in_r, self.in_w = os.pipe()
        self.out_r, self.out_w = os.pipe()
        self.buf = b""
        self.result: list = []
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()
        self.next_id = 1

    def _serve(self) -> None:
        try:
            self.result.append(asyncio.run(self.app.serve(self.in_r, self.out_w)))
        except BaseException as e:  # reported by close()
            self.result.append(e)

    def send(self, msg: dict) -> None:
        os.write(self.in_w, (json.dumps(msg) + "\n").encode())

    def recv(self) -> dict:
        deadline = time.monotonic() + TIMEOUT
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([self.out_r], [], [], max(0.0, left))
            if not ready:
                pytest.fail("no message from the server within %.0f s" % TIMEOUT)
            data = os.read(self.out_r, 65536)
            assert data, "the server closed its output"
            self.buf += data
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def request(self, method: str, params: dict) -> int:
        rid = self.next_id
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        return rid

    def response(self, rid: int) -> dict:
        """The answer to ``rid`` (anything else must not come first)."""
        msg = self.recv()
        assert msg.get("id") == rid and "method" not in msg, msg
        return msg

    def modern(self, method: str, params: dict, caps: dict | None = None) -> dict:
        meta = {"io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
                "io.modelcontextprotocol/clientCapabilities": ALL_CAPS if caps is None else caps,
                "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"}}
        return self.response(self.request(method, dict(params, _meta=meta)))

    def initialize(self, caps: dict) -> None:
        rid = self.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": caps,
                                          "clientInfo": {"name": "t", "version": "1"}})
        assert self.response(rid)["result"]["protocolVersion"] == "2025-11-25"
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def close(self) -> None:
        os.close(self.in_w)
        self.thread.join(TIMEOUT)
        assert not self.thread.is_alive(), "serve() did not return after EOF"
        for fd in (self.in_r, self.out_r, self.out_w):
            os.close(fd)
        (result,) = self.result
        if isinstance(result, BaseException):
            raise result


@pytest.fixture
def lines():
    made = []

    def start(app: Server | None = None) -> Lines:
        made.append(Lines(app or make_app()))
        return made[-1]

    yield start
    for h in made:
        if h.thread.is_alive():
            h.close()


def text_of(response: dict) -> str:
    result = response["result"]
    assert result.get("resultType", "complete") == "complete", result
    return result["content"][0]["text"]


def input_required(response: dict) -> dict:
    result = response["result"]
    assert result["resultType"] == "input_required", result
    return result


def call(name: str, **params) -> dict:
    return dict({"name": name, "arguments": {}}, **params)


# ---- 2026-07-28 ----

def test_modern_ask_with_a_key_and_a_sealed_state(lines):
    h = lines()
    first = input_required(h.modern("tools/call", call("greet")))
    assert first["inputRequests"] == {"user_name": {"method": NAME[0], "params": NAME[1]}}
    state = first["requestState"]
    # Sealed by the core (the helper draws a key): ours at the end, a MAC before it.
    assert state.startswith("s1.") and state.endswith(".greet-v1"), state
    done = h.modern("tools/call", call("greet", inputResponses={"user_name": accept(name="Ada")},
                                       requestState=state))
    assert text_of(done) == "Hello, Ada!"
    # The answer without the state it was asked with does not count: asked again.
    again = h.modern("tools/call", call("greet", inputResponses={"user_name": accept(name="A")}))
    assert set(input_required(again)["inputRequests"]) == {"user_name"}
    # A tampered state never reaches the handler.
    bad = h.modern("tools/call", call("greet", inputResponses={"user_name": accept(name="A")},
                                      requestState=state[:-1] + "X"))
    assert bad["error"]["code"] == -32602, bad
    # Answers that are not an object: the request is refused.
    bad = h.modern("tools/call", call("greet", inputResponses=["no"]))
    assert bad["error"]["code"] == -32602, bad
    h.close()


def test_modern_default_key_extra_answers_and_swallowing_handlers(lines):
    h = lines()
    first = input_required(h.modern("tools/call", call("plain")))
    assert list(first["inputRequests"]) == ["elicitation"]  # the kind-derived key
    assert "requestState" not in first
    done = h.modern("tools/call", call("plain", inputResponses={
        "elicitation": accept(name="Bo"), "unrelated": {"x": 1}, "not_object": 3}))
    assert text_of(done) == "plain Bo"
    # ``except Exception`` does not catch the question (a BaseException).
    assert "n" in input_required(h.modern("tools/call", call("careless")))["inputRequests"]
    h.close()


def test_modern_ask_all_one_round_for_every_missing_key(lines):
    h = lines()
    first = input_required(h.modern("tools/call", call("survey")))
    assert set(first["inputRequests"]) == {"name", "capital"}
    state = first["requestState"]
    # One answer: the next round asks only what is missing.
    partial = input_required(h.modern("tools/call", call(
        "survey", inputResponses={"name": accept(name="Cy")}, requestState=state)))
    assert set(partial["inputRequests"]) == {"capital"}
    done = h.modern("tools/call", call("survey", requestState=state, inputResponses={
        "name": accept(name="Cy"),
        "capital": {"role": "assistant", "content": {"type": "text", "text": "Paris"},
                    "model": "m"}}))
    assert text_of(done) == "Cy/Paris"
    h.close()


def test_modern_rounds_carried_by_state(lines):
    h = lines()
    r1 = input_required(h.modern("tools/call", call("rounds")))
    assert set(r1["inputRequests"]) == {"step1"}
    r2 = input_required(h.modern("tools/call", call(
        "rounds", inputResponses={"step1": accept(name="Di")}, requestState=r1["requestState"])))
    assert set(r2["inputRequests"]) == {"step2"} and r2["requestState"].endswith(".round-2")
    # The client sends only the last round's answers; the state says step 1 is behind.
    done = h.modern("tools/call", call(
        "rounds", inputResponses={"step2": accept(color="red")}, requestState=r2["requestState"]))
    assert text_of(done) == "color red"
    h.close()


def test_modern_request_state_and_client_capabilities(lines):
    h = lines()
    got = json.loads(text_of(h.modern("tools/call", call("seen"), caps={"sampling": {}})))
    assert got == {"state": None, "caps": {"sampling": {}}}
    # As the core read them: the flags it knows, nothing else.
    got = json.loads(text_of(h.modern("tools/call", call("seen"), caps={
        "elicitation": {"url": {}}, "sampling": {"tools": {}}, "roots": {"listChanged": True},
        "experimental": {"x": {}}})))
    # (2026-07-28's roots capability has no listChanged: the core drops it.)
    assert got["caps"] == {"elicitation": {"url": {}}, "sampling": {"tools": {}},
                           "roots": {}}
    # A state the server did not seal is refused before the handler (the helper has a key).
    bad = h.modern("tools/call", call("seen", requestState="forged"))
    assert bad["error"]["code"] == -32602
    h.close()


def test_modern_missing_capability_names_what_is_missing(lines):
    h = lines()
    r = h.modern("tools/call", call("survey"), caps={"sampling": {}})
    assert r["error"]["code"] == -32021, r
    assert r["error"]["data"]["requiredCapabilities"] == {"elicitation": {}}, r
    h.close()


def test_modern_a_question_the_core_refuses_is_an_internal_error(lines):
    h = lines()
    r = h.modern("tools/call", call("bad_form"))
    assert r["error"]["code"] == -32603 and "invalid input request" in r["error"]["message"], r
    h.close()


def test_modern_prompt_and_resource_ask(lines):
    h = lines()
    first = input_required(h.modern("prompts/get", {"name": "brief",
                                                    "arguments": {"topic": "News"}}))
    assert set(first["inputRequests"]) == {"who"}
    done = h.modern("prompts/get", {"name": "brief", "arguments": {"topic": "News"},
                                    "inputResponses": {"who": accept(name="Eve")}})
    assert done["result"]["messages"][0]["content"]["text"] == "News for Eve"
    first = input_required(h.modern("resources/read", {"uri": "test://asked"}))
    assert set(first["inputRequests"]) == {"shade"}
    done = h.modern("resources/read", {"uri": "test://asked",
                                       "inputResponses": {"shade": accept(color="teal")}})
    assert done["result"]["contents"][0]["text"] == "shade teal"
    h.close()


# ---- legacy (2025-11-25) ----

def answer_requests(h: Lines, answers: dict, count: int) -> list:
    """Takes ``count`` requests from the server, answering each by its method; returns
    them, as received (all of them before any answer)."""
    got = [h.recv() for _ in range(count)]
    for msg in got:
        assert "method" in msg and "id" in msg, msg
        h.send({"jsonrpc": "2.0", "id": msg["id"], "result": answers[msg["method"]]})
    return got


def test_legacy_ask_and_ask_all_send_requests(lines):
    h = lines()
    h.initialize({"elicitation": {}, "sampling": {}})
    rid = h.request("tools/call", call("greet"))
    (asked,) = answer_requests(h, {"elicitation/create": accept(name="Fay")}, 1)
    assert asked["method"] == "elicitation/create" and asked["params"]["message"] == "Name?"
    assert text_of(h.response(rid)) == "Hello, Fay!"
    # ask_all: both questions go out before either is answered.
    rid = h.request("tools/call", call("survey"))
    sent = answer_requests(h, {
        "elicitation/create": accept(name="Gil"),
        "sampling/createMessage": {"role": "assistant", "model": "m",
                                   "content": {"type": "text", "text": "Paris"}}}, 2)
    assert {m["method"] for m in sent} == {"elicitation/create", "sampling/createMessage"}
    assert text_of(h.response(rid)) == "Gil/Paris"
    # The session's capabilities, and no state in this era.
    rid = h.request("tools/call", call("seen"))
    assert json.loads(text_of(h.response(rid))) == {
        "state": None, "caps": {"elicitation": {"form": {}}, "sampling": {}}}
    # A prompt asks the same way.
    rid = h.request("prompts/get", {"name": "brief", "arguments": {"topic": "T"}})
    answer_requests(h, {"elicitation/create": accept(name="Hal")}, 1)
    assert h.response(rid)["result"]["messages"][0]["content"]["text"] == "T for Hal"
    h.close()


def test_legacy_ask_without_the_capability_raises_send_error(lines):
    app = Server("ask-test", "1.0.0", log_level="error")

    @app.tool
    async def try_ask(ctx: Context) -> str:
        "Reports how asking failed."
        try:
            await ctx.ask_all({"n": NAME})
        except SendError as e:
            return "SendError: %s" % type(e).__name__
        except McpError as e:
            return "McpError %d" % e.code
        return "asked"

    h = lines(app)
    h.initialize({})
    assert text_of(h.response(h.request("tools/call", call("try_ask")))) == "SendError: SendError"
    h.close()


def test_ask_all_checks_its_questions():
    from picomcp._context import _questions
    with pytest.raises(TypeError, match="must map to a"):
        _questions({"k": "elicitation/create"})
    with pytest.raises(TypeError, match="keys must be str"):
        _questions({1: NAME})


# ---- over HTTP ----

def test_http_mrtr_across_sessions_and_param_headers():
    """Each 2026-07-28 request is a session of its own: the state sealed by one verifies in
    the next. The registered tools' x-mcp-header annotations are checked, also for a tool
    registered while serving."""
    app = make_app()

    @app.tool(input_schema={"type": "object", "properties": {
        "text": {"type": "string", "x-mcp-header": "Text"}}, "required": ["text"]})
    def echo_header(args, ctx):
        return args["text"]

    meta = {"io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
            "io.modelcontextprotocol/clientCapabilities": ALL_CAPS}

    def post(rid, name, params, *extra):
        body = {"jsonrpc": "2.0", "id": rid, "method": "tools/call",
                "params": dict(params, name=name, _meta=meta)}
        headers = [HOST, ACCEPT, JSON, (b"mcp-protocol-version", MODERN_VERSION.encode()),
                   (b"mcp-method", b"tools/call"), (b"mcp-name", name.encode()), *extra]
        return headers, json.dumps(body).encode()

    async def main():
        h = AsgiHarness(app.asgi())
        await h.start()
        status, _, body = await h.request("POST", "/mcp", *post(1, "greet", {"arguments": {}}))
        first = input_required(json.loads(body))
        status, _, body = await h.request("POST", "/mcp", *post(2, "greet", {
            "arguments": {}, "requestState": first["requestState"],
            "inputResponses": {"user_name": accept(name="Ida")}}))
        assert status == 200 and text_of(json.loads(body)) == "Hello, Ida!", body
        # Mcp-Param-Text: missing, different, then right.
        args = {"arguments": {"text": "hi"}}
        status, _, body = await h.request("POST", "/mcp", *post(3, "echo_header", args))
        assert status == 400 and json.loads(body)["error"]["code"] == -32020, body
        status, _, body = await h.request("POST", "/mcp", *post(
            4, "echo_header", args, (b"mcp-param-text", b"ho")))
        assert status == 400 and json.loads(body)["error"]["code"] == -32020, body
        status, _, body = await h.request("POST", "/mcp", *post(
            5, "echo_header", args, (b"mcp-param-text", b"hi")))
        assert status == 200 and text_of(json.loads(body)) == "hi", body

        # A tool registered while serving: its annotation is checked too.
        @app.tool(input_schema={"type": "object", "properties": {
            "n": {"type": "integer", "x-mcp-header": "N"}}})
        def later(args, ctx):
            return "n=%d" % args["n"]

        status, _, body = await h.request("POST", "/mcp", *post(
            6, "later", {"arguments": {"n": 2}}))
        assert status == 400, body
        status, _, body = await h.request("POST", "/mcp", *post(
            7, "later", {"arguments": {"n": 2}}, (b"mcp-param-n", b"2")))
        assert status == 200 and text_of(json.loads(body)) == "n=2", body
        await h.stop()

    asyncio.run(main())
