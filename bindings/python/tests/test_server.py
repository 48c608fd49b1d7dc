"""The stdio ``Server`` helper: its pure pieces, and a whole server over pipes driven by
a client ``Session`` from the test.

Every wait is bounded (select/join with timeouts), so a hang fails fast instead of
blocking the run.
"""

from __future__ import annotations

import asyncio
import json
import os
import select
import threading
import time

import pytest

from picomcp import ConfigError, McpError, Server, Session, ToolError

from conftest import MODERN_VERSION, drain, feed, needs_validator

TIMEOUT = 10.0  # seconds; only ever reached when something hangs

# ---- a whole server over pipes ----


def make_app(gate: threading.Event) -> Server:
    app = Server("test-server", "1.0.0", instructions="for tests", log_level="error")

    @app.tool(description="Echoes its text", input_schema={
        "type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]})
    def echo(args, ctx):
        return args["text"]

    @app.tool(description="Always fails")
    def fail(args, ctx):
        raise ToolError("boom")

    @app.tool(description="Raises a JSON-RPC error")
    def strict(args, ctx):
        raise McpError(-32001, "nope", {"why": "test"})

    @app.tool(description="Sleeps, reporting progress, until the gate opens", input_schema={
        "type": "object", "properties": {"steps": {"type": "integer", "minimum": 1}}})
    async def slow(args, ctx):
        steps = args.get("steps", 3)
        for i in range(steps):
            ctx.progress(i + 1, steps, "step %d" % (i + 1))
            await asyncio.sleep(0.01)
        while not gate.is_set():
            await asyncio.sleep(0.01)
        return "slept %d" % steps

    @app.tool(description="Adds", input_schema={
        "type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
        "required": ["a", "b"]}, output_schema={
        "type": "object", "properties": {"sum": {"type": "number", "maximum": 100}},
        "required": ["sum"]})
    def add(args, ctx):
        return {"sum": args["a"] + args["b"]}

    @app.tool(description="Returns its arguments, defaults filled in", input_schema={
        "type": "object", "properties": {"n": {"type": "integer", "default": 7},
                                         "s": {"type": "string"}}})
    def defaults(args, ctx):
        return [{"type": "text", "text": repr(sorted(args.items()))}]

    @app.resource("test://static", description="A fixed text", mime_type="text/plain")
    def static(uri, ctx):
        return "hello"

    @app.resource("test://item/{id}", description="One item")
    def item(uri, ctx, id):
        return "item %s" % id

    @app.prompt(description="Greets someone", arguments=[
        {"name": "who", "required": True}, {"name": "mood"}])
    def greet(args, ctx):
        return [{"role": "user", "content": {"type": "text", "text": "Hello " + args["who"]}}]

    app.completion("greet", "who")(
        lambda value, context: [w for w in ("Ada", "Alan", "Grace") if w.startswith(value)])
    return app


class Harness:
    """A ``Server`` serving a pipe pair in a thread, and a client ``Session`` on it."""

    def __init__(self, app: Server, versions: list):
        self.app = app
        self.in_r, self.in_w = os.pipe()
        self.out_r, self.out_w = os.pipe()
        self.result: list = []
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()
        self.client = Session("client", "test-client", "1.0.0", {}, versions=versions)
        self.events: list = []
        self.out_eof = False

    def _serve(self):
        try:
            self.result.append(asyncio.run(self.app.serve(self.in_r, self.out_w)))
        except BaseException as e:  # reported by join()
            self.result.append(e)

    def _write(self):
        data = self.client.poll_transmit()
        if data and self.in_w is not None:
            os.write(self.in_w, data)  # small: a pipe takes it at once

    def _read(self, wait: float) -> None:
        if self.out_eof:
            time.sleep(wait)
            return
        ready, _, _ = select.select([self.out_r], [], [], wait)
        if ready:
            data = os.read(self.out_r, 65536)
            if not data:
                self.out_eof = True
                return
            out = bytearray()
            self.events += feed(self.client, 0, data, out=out)
            assert not out, "the client had to answer the server"

    def pump_until(self, pred, what: str):
        """Moves bytes until ``pred(events)`` holds; fails after TIMEOUT."""
        deadline = time.monotonic() + TIMEOUT
        while True:
            self._write()
            self.events += drain(self.client)
            if pred(self.events):
                return
            if time.monotonic() > deadline:
                pytest.fail("timed out waiting for %s; events: %r" % (what, self.events))
            self._read(0.05)

    def handshake(self):
        self.pump_until(lambda evs: any(e.kind == "ready" for e in evs), "the handshake")
        assert self.client.phase == "operating"
        self.events.clear()

    def answer_to(self, rid: int):
        for e in self.events:
            if e.id == rid and e.kind in ("response", "error_response"):
                return e
        return None

    def request(self, method: str, params=None, **kw):
        rid = self.client.send_request(0, method, params, **kw)
        self.pump_until(lambda evs: self.answer_to(rid) is not None, method)
        return self.answer_to(rid)

    def call(self, name: str, arguments=None, **kw):
        params = {"name": name}
        if arguments is not None:
            params["arguments"] = arguments
        return self.request("tools/call", params, **kw)

    def close_input(self):
        os.close(self.in_w)
        self.in_w = None

    def join(self) -> int:
        if self.in_w is not None:
            self.close_input()
        deadline = time.monotonic() + TIMEOUT
        while self.thread.is_alive() and time.monotonic() < deadline:
            self._read(0.05)  # keep the output pipe from filling up
        assert not self.thread.is_alive(), "serve() did not return after EOF"
        (result,) = self.result
        if isinstance(result, BaseException):
            raise result
        # Whatever the server wrote last.
        while not self.out_eof:
            ready, _, _ = select.select([self.out_r], [], [], 0)
            if not ready:
                break
            self._read(0)
        self.events += drain(self.client)
        return result

    def cleanup(self):
        for fd in (self.in_r, self.in_w, self.out_r, self.out_w):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass


@pytest.fixture
def serve():
    """``serve(versions, gate_open=True)`` -> a Harness after the handshake."""
    made = []

    def start(versions, gate_open=True):
        gate = threading.Event()
        if gate_open:
            gate.set()
        h = Harness(make_app(gate), versions)
        h.gate = gate
        made.append(h)
        h.handshake()
        return h

    yield start
    for h in made:
        if h.thread.is_alive():
            h.gate.set()
            try:
                h.join()
            except Exception:
                pass
        h.cleanup()


def text_of(ev) -> str:
    return ev.result["content"][0]["text"]


@pytest.mark.parametrize("version", ["2025-06-18", "2025-11-25", MODERN_VERSION])
def test_server_over_pipes(serve, version):
    h = serve([version])
    assert h.client.version == version

    ev = h.request("tools/list")
    assert ev.kind == "response"
    tools = {t["name"]: t for t in ev.result["tools"]}
    assert list(tools) == ["echo", "fail", "strict", "slow", "add", "defaults"]
    assert tools["echo"]["description"] == "Echoes its text"
    assert tools["echo"]["inputSchema"]["required"] == ["text"]
    assert tools["fail"]["inputSchema"] == {"type": "object"}

    ev = h.call("echo", {"text": "hi"})
    assert ev.kind == "response"
    assert ev.result["content"] == [{"type": "text", "text": "hi"}]
    assert not ev.result.get("isError")

    ev = h.call("fail", {})
    assert ev.kind == "response"
    assert ev.result["isError"] is True and text_of(ev) == "boom"

    ev = h.call("strict")
    assert (ev.kind, ev.code, ev.message, ev.data) == (
        "error_response", -32001, "nope", {"why": "test"})

    ev = h.call("nosuchtool", {})
    assert (ev.kind, ev.code) == ("error_response", -32602)

    # The async tool, with progress.
    rid = h.client.send_request(0, "tools/call", {"name": "slow", "arguments": {"steps": 3}},
                                progress=True)
    h.pump_until(lambda evs: h.answer_to(rid) is not None, "slow")
    progress = [(e.progress, e.total) for e in h.events if e.kind == "progress" and e.id == rid]
    assert progress == [(1.0, 3.0), (2.0, 3.0), (3.0, 3.0)]
    assert text_of(h.answer_to(rid)) == "slept 3"
    # Without a progress token, no progress is sent.
    h.events.clear()
    ev = h.call("slow", {"steps": 2})
    assert text_of(ev) == "slept 2"
    assert [e.kind for e in h.events] == ["response"]

    ev = h.request("resources/list")
    assert ev.result["resources"] == [{"uri": "test://static", "name": "static",
                                       "description": "A fixed text",
                                       "mimeType": "text/plain"}]
    ev = h.request("resources/templates/list")
    assert ev.result["resourceTemplates"] == [{"uriTemplate": "test://item/{id}",
                                               "name": "item", "description": "One item"}]
    ev = h.request("resources/read", {"uri": "test://static"})
    assert ev.result["contents"] == [{"uri": "test://static", "mimeType": "text/plain",
                                      "text": "hello"}]
    ev = h.request("resources/read", {"uri": "test://item/42"})
    assert ev.result["contents"] == [{"uri": "test://item/42", "text": "item 42"}]
    ev = h.request("resources/read", {"uri": "test://missing"})
    # -32002 was removed in 2026-07-28: the core sends -32602 there (docs/DESIGN.md).
    code = -32602 if version == MODERN_VERSION else -32002
    assert (ev.kind, ev.code, ev.data) == ("error_response", code, {"uri": "test://missing"})

    ev = h.request("prompts/list")
    assert [p["name"] for p in ev.result["prompts"]] == ["greet"]
    ev = h.request("prompts/get", {"name": "greet", "arguments": {"who": "Ada"}})
    assert ev.result["messages"][0]["content"]["text"] == "Hello Ada"
    assert ev.result["description"] == "Greets someone"
    ev = h.request("prompts/get", {"name": "greet", "arguments": {"mood": "happy"}})
    assert (ev.kind, ev.code) == ("error_response", -32602)
    assert "who" in ev.message
    ev = h.request("completion/complete", {"ref": {"type": "ref/prompt", "name": "greet"},
                                           "argument": {"name": "who", "value": "A"}})
    assert ev.result["completion"]["values"] == ["Ada", "Alan"]
    ev = h.request("completion/complete", {"ref": {"type": "ref/prompt", "name": "greet"},
                                           "argument": {"name": "mood", "value": ""}})
    assert ev.result["completion"]["values"] == []

    assert h.join() == 0


@pytest.mark.parametrize("version", ["2025-03-26", "2025-11-25"])
def test_results_are_shaped_by_the_core(serve, version):
    h = serve([version])
    ev = h.call("add", {"a": 1, "b": 2})
    assert json.loads(text_of(ev)) == {"sum": 3}  # also as JSON text
    if version == "2025-11-25":
        assert ev.result["structuredContent"] == {"sum": 3}
    else:  # no structuredContent before 2025-06-18
        assert "structuredContent" not in ev.result
    assert h.join() == 0


@needs_validator
def test_structured_content_is_checked_and_defaults_filled(serve):
    h = serve(["2025-11-25"])
    ev = h.call("add", {"a": 100, "b": 2})  # sum 102 > maximum: never sent as is
    assert ev.result["isError"] is True and "structuredContent" not in ev.result
    ev = h.call("defaults", {"s": "x"})
    assert text_of(ev) == repr([("n", 7), ("s", "x")])  # the default is filled in
    assert h.join() == 0


def test_lists_are_answered_by_the_core(serve):
    h = serve(["2025-11-25"])
    ev = h.request("tools/list", {"cursor": "not-a-cursor"})
    assert (ev.kind, ev.code) == ("error_response", -32602)
    assert h.join() == 0


def test_a_broken_definition_fails_at_registration():
    """The core checks every definition as it is registered; its text, as in every
    language."""
    app = Server("broken", "1.0.0")

    @app.tool(description="fine")
    def good(args, ctx):
        return ""

    with pytest.raises(ConfigError, match=r'^tool "bad": inputSchema: must be an object schema'):
        @app.tool(input_schema={"type": "string"})  # not an object schema
        def bad(args, ctx):
            return ""
    with pytest.raises(ConfigError, match='^tool "good": name: used by an earlier entry too$'):
        app.tool(name="good")(lambda args, ctx: "")
    with pytest.raises(ConfigError, match='^resource template "note://{id": uriTemplate'):
        app.resource("note://{id")(lambda uri, ctx: "")
    assert list(app.tools) == ["good"] and app.templates == []
    assert app.capabilities["tools"] == {"listChanged": True}


@pytest.mark.parametrize("version, as_tool_error", [
    ("2025-06-18", False), ("2025-11-25", True), (MODERN_VERSION, True)])
def test_missing_required_argument(serve, version, as_tool_error):
    h = serve([version])
    ev = h.call("echo", {})
    if as_tool_error:  # SEP-1303: a tool result the model can read
        assert ev.kind == "response"
        assert ev.result["isError"] is True
        assert text_of(ev).startswith("Invalid arguments for tool echo")
    else:
        assert (ev.kind, ev.code) == ("error_response", -32602)
        assert ev.message.startswith("Invalid arguments for tool echo")
    assert h.join() == 0


@needs_validator
@pytest.mark.parametrize("version, as_tool_error", [
    ("2025-06-18", False), ("2025-11-25", True), (MODERN_VERSION, True)])
def test_invalid_arguments_name_the_field(serve, version, as_tool_error):
    h = serve([version])
    for args, field in (({}, '"text"'), ({"text": 5}, "/text")):
        ev = h.call("echo", args)
        message = text_of(ev) if as_tool_error else ev.message
        assert ev.kind == ("response" if as_tool_error else "error_response")
        assert field in message, message
    assert h.join() == 0


def test_eof_waits_for_the_running_tool(serve):
    h = serve(["2025-11-25"], gate_open=False)
    rid = h.client.send_request(0, "tools/call", {"name": "slow", "arguments": {"steps": 2}},
                                progress=True)
    # The tool is running once its first progress arrived.
    h.pump_until(lambda evs: any(e.kind == "progress" for e in evs), "the slow tool to start")
    h.close_input()
    # serve() must not return while the tool still owes its answer.
    h.thread.join(0.3)
    assert h.thread.is_alive(), "serve() returned before the running tool finished"
    assert h.result == []
    h.gate.set()
    assert h.join() == 0
    ev = h.answer_to(rid)
    assert ev is not None, h.events
    assert ev.kind == "response" and text_of(ev) == "slept 2"


def test_cancelling_an_async_tool(serve):
    h = serve(["2025-11-25"], gate_open=False)
    rid = h.client.send_request(0, "tools/call", {"name": "slow", "arguments": {"steps": 1}},
                                progress=True)
    h.pump_until(lambda evs: any(e.kind == "progress" for e in evs), "the slow tool to start")
    h.client.cancel(rid, "changed my mind")
    # Still serving: a later request is answered, the cancelled one never is.
    ev = h.call("echo", {"text": "after"})
    assert text_of(ev) == "after"
    assert h.join() == 0  # the cancelled task does not hold serve() up (gate stays shut)
    assert h.answer_to(rid) is None


def test_closing_the_session_from_a_handler(serve):
    """A closed session takes no more input; serve() must drop it, not spin on it."""
    h = serve(["2025-11-25"])

    @h.app.tool(description="Closes the session")
    def quit(args, ctx):
        ctx.session.close()
        return "bye"

    ev = h.call("quit", {})
    assert text_of(ev) == "bye"
    rid = h.client.send_request(0, "tools/list")
    h._write()  # reaches a closed session
    assert h.join() == 0
    assert h.answer_to(rid) is None
