"""Typed handlers: schemas from signatures, conversion of arguments and return values,
Context injection, lifespan, typed template variables, worker threads, pagination and
stdout protection. The official client runs the same things in test_official.py."""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import json
import subprocess
import sys
import textwrap
import threading
import time
from typing import Annotated, Any, Literal, Optional, TypedDict, Union

import pytest

from picomcp import (Audio, Context, EmbeddedResource, Field, ResourceLink, ResourceNotFound,
                     Server, ToolResult)
from picomcp._schema import schema_of

from test_server import Harness


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Movie(TypedDict):
    title: str
    year: int


@dataclasses.dataclass
class Point:
    x: float
    y: float = 0.0


def schema(fn, **kw) -> dict:
    app = Server("t", "1")
    app.tool(**kw)(fn)
    return next(iter(app.tools.values())).input_schema


def test_scalars_defaults_and_docstring():
    def f(a: int, b: float, c: str, d: bool, e: None = None, f: int = 3):
        """Does f.

        Args:
            a: The first
            b: The second,
                on two lines
        """
    app = Server("t", "1")
    app.tool(f)
    t = app.tools["f"]
    assert t.description == "Does f."
    assert t.input_schema == {"type": "object", "properties": {
        "a": {"type": "integer", "description": "The first"},
        "b": {"type": "number", "description": "The second, on two lines"},
        "c": {"type": "string"}, "d": {"type": "boolean"}, "e": {"type": "null"},
        "f": {"type": "integer", "default": 3}}, "required": ["a", "b", "c", "d"]}


def test_composite_types():
    assert schema_of(Optional[int]) == {"anyOf": [{"type": "integer"}, {"type": "null"}]}
    assert schema_of(Union[int, str]) == {"anyOf": [{"type": "integer"}, {"type": "string"}]}
    assert schema_of(list[str]) == {"type": "array", "items": {"type": "string"}}
    assert schema_of(dict[str, int]) == {"type": "object",
                                         "additionalProperties": {"type": "integer"}}
    assert schema_of(tuple[int, str]) == {
        "type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}],
        "minItems": 2, "maxItems": 2}
    assert schema_of(Literal["a", "b"]) == {"enum": ["a", "b"]}
    assert schema_of(Color) == {"enum": ["red", "blue"], "title": "Color"}
    assert schema_of(Movie) == {"type": "object", "properties": {
        "title": {"type": "string"}, "year": {"type": "integer"}},
        "required": ["title", "year"], "title": "Movie"}
    assert schema_of(Point) == {"type": "object", "properties": {
        "x": {"type": "number"}, "y": {"type": "number", "default": 0.0}},
        "required": ["x"], "title": "Point"}
    assert schema_of(Annotated[int, Field(ge=1, le=9, description="n")]) == {
        "type": "integer", "minimum": 1, "maximum": 9, "description": "n"}
    assert schema_of(Annotated[str, "a name"]) == {"type": "string", "description": "a name"}
    assert schema_of(Annotated[list[int], Field(max_length=3)]) == {
        "type": "array", "items": {"type": "integer"}, "maxItems": 3}
    assert schema_of(Any) == {}
    if sys.version_info >= (3, 10):
        assert schema_of(eval("int | None")) == {"anyOf": [{"type": "integer"},
                                                           {"type": "null"}]}


class Opaque:
    pass


def test_undescribable_parameter_is_an_error_naming_it():
    def f(good: int, bad: Opaque):
        pass

    def g(k: dict[int, str]):
        pass

    class Local:
        pass

    def h(x: Local):
        pass
    with pytest.raises(TypeError, match="tool \"f\": cannot describe parameter 'bad'"):
        Server("t", "1").tool(f)
    with pytest.raises(TypeError, match="tool \"g\": cannot describe parameter 'k'"):
        Server("t", "1").tool(g)
    with pytest.raises(TypeError, match="tool \"h\": .*parameter 'x'"):
        Server("t", "1").tool(h)
    with pytest.raises(TypeError,
                       match="resource template \"n://{id}\": parameter 'note_id' is not"):
        Server("t", "1").resource("n://{id}")(lambda note_id: "")


def test_explicit_input_schema_wins_and_bare_decorator_registers():
    app = Server("t", "1")

    @app.tool
    def bare(x: int) -> int:
        return x

    @app.tool(input_schema={"type": "object", "properties": {"x": {"type": "string"}}})
    def explicit(x: str) -> str:
        return x

    @app.tool("named")
    def other(args, ctx):  # the older (args, ctx) style
        return "x"

    assert list(app.tools) == ["bare", "explicit", "named"]
    assert app.tools["explicit"].input_schema["properties"]["x"] == {"type": "string"}
    assert app.tools["named"].sig is None


@pytest.fixture
def harness():
    made = []

    def start(app, versions=("2025-11-25",)):
        h = Harness(app, list(versions))
        h.gate = threading.Event()
        made.append(h)
        h.handshake()
        return h
    yield start
    for h in made:
        try:
            h.join()
        except Exception:
            pass
        h.cleanup()


def test_arguments_are_converted_and_context_injected(harness):
    app = Server("t", "1", log_level="error")
    seen = {}

    @app.tool
    def f(p: Point, c: Color, tags: tuple[str, ...], ctx: Context, n: Optional[int] = None,
          m: Optional[Movie] = None) -> str:
        seen.update(p=p, c=c, tags=tags, ctx=ctx, n=n, m=m)
        return "ok"

    h = harness(app)
    ev = h.call("f", {"p": {"x": 1}, "c": "blue", "tags": ["a", "b"],
                      "m": {"title": "T", "year": 1}})
    assert ev.result["content"][0]["text"] == "ok", ev.result
    assert seen["p"] == Point(1.0, 0.0) and isinstance(seen["p"].x, float)
    assert seen["c"] is Color.BLUE and seen["tags"] == ("a", "b") and seen["n"] is None
    assert seen["m"] == {"title": "T", "year": 1}
    assert isinstance(seen["ctx"], Context) and seen["ctx"].version == "2025-11-25"


def test_results(harness):
    app = Server("t", "1", log_level="error")
    app.tool(lambda: {"a": 1}, name="d")
    app.tool(lambda: Point(1, 2), name="dc")
    app.tool(lambda: [1, "two"], name="l")
    app.tool(lambda: None, name="n")
    app.tool(lambda: ToolResult("x", {"s": 1}, is_error=True), name="whole")
    app.tool(name="png", mime_type="image/png")(lambda: b"\x89PNG")
    app.tool(name="helpers")(lambda: [
        Audio(b"\x00\x01"), EmbeddedResource("note://1", "# one", mime_type="text/markdown"),
        ResourceLink("note://2", "two", mime_type="text/markdown")])
    h = harness(app)
    r = h.call("d").result
    assert r["structuredContent"] == {"a": 1} and r["content"][0]["text"] == '{"a":1}'
    assert h.call("dc").result["structuredContent"] == {"x": 1, "y": 2}
    assert [b["text"] for b in h.call("l").result["content"]] == ["1", "two"]
    assert h.call("n").result["content"] == []
    r = h.call("whole").result
    assert r["isError"] and r["structuredContent"] == {"s": 1}
    assert h.call("png").result["content"][0] == {"type": "image", "data": "iVBORw==",
                                                   "mimeType": "image/png"}
    blocks = h.call("helpers").result["content"]
    assert blocks == [
        {"type": "audio", "data": "AAE=", "mimeType": "audio/wav"},
        {"type": "resource", "resource": {"uri": "note://1", "mimeType": "text/markdown",
                                          "text": "# one"}},
        {"type": "resource_link", "uri": "note://2", "name": "two",
         "mimeType": "text/markdown"}]


def test_raising_tool_is_an_error_result_and_hide_errors(harness):
    for hide in (False, True):
        app = Server("t", "1", log_level="error", hide_errors=hide)

        @app.tool
        def boom() -> str:
            raise KeyError("secret")
        r = harness(app).call("boom").result
        assert r["isError"]
        assert r["content"][0]["text"] == ("Internal error" if hide else "'secret'")


def test_typed_templates_prompts_and_lifespan(harness):
    app = Server("t", "1", log_level="error")

    @contextlib.asynccontextmanager
    async def life(server):
        yield {"db": "connected"}
    app.lifespan(life)

    @app.resource("note://{id}")
    def note(id: int, ctx: Context) -> str:
        if id > 5:
            raise ResourceNotFound("note://%d" % id)
        return "%s %d %s" % (type(id).__name__, id, ctx.lifespan["db"])

    @app.resource("file:///{name}")
    def named(name: str) -> dict:
        return {"name": name}

    @app.prompt
    def review(code: str, times: int = 1) -> str:
        """Reviews code."""
        return "review %s x%d" % (code, times)

    h = harness(app)
    assert h.request("resources/read", {"uri": "note://3"}).result["contents"][0]["text"] \
        == "int 3 connected"
    ev = h.request("resources/read", {"uri": "note://9"})
    assert (ev.kind, ev.code) == ("error_response", -32002)
    ev = h.request("resources/read", {"uri": "note://x"})
    assert (ev.kind, ev.code) == ("error_response", -32002)
    c = h.request("resources/read", {"uri": "file:///a%20b"}).result["contents"][0]
    assert c["text"] == '{"name":"a b"}' and c["mimeType"] == "application/json"
    p = h.request("prompts/list").result["prompts"][0]
    assert p["arguments"] == [{"name": "code", "required": True},
                              {"name": "times", "required": False}]
    assert p["description"] == "Reviews code."
    m = h.request("prompts/get", {"name": "review", "arguments": {"code": "x", "times": "2"}})
    assert m.result["messages"] == [{"role": "user", "content": {"type": "text",
                                                                  "text": "review x x2"}}]


def test_a_blocking_sync_tool_holds_up_neither_ping_nor_other_calls(harness):
    # A plain def runs on the loop's thread; while it blocks there, the rescue thread
    # answers ping and gives the next call to a worker thread (picomcp._rescue).
    app = Server("t", "1", log_level="error", max_workers=2)
    gate = threading.Event()
    threads = []

    @app.tool
    def wait() -> str:
        threads.append(threading.current_thread().name)
        gate.wait(10)
        return "done"

    @app.tool
    def quick(ctx: Context) -> str:
        return threading.current_thread().name

    @app.tool(thread=True)
    def pooled() -> str:
        return threading.current_thread().name

    h = harness(app)
    assert h.call("pooled").result["content"][0]["text"].startswith("picomcp-handler")
    rid = h.client.send_request(0, "tools/call", {"name": "wait", "arguments": {}})
    h.pump_until(lambda evs: threads, "the tool to start")
    assert threads[0] == h.thread.name  # on the loop
    assert h.request("ping").kind == "response"
    assert h.call("quick").result["content"][0]["text"].startswith("picomcp-handler")
    assert h.answer_to(rid) is None
    gate.set()
    h.pump_until(lambda evs: h.answer_to(rid) is not None, "wait")
    for _ in range(100):  # back on the loop once the rescuer sees it free (LOOK_S)
        if h.call("quick").result["content"][0]["text"] == h.thread.name:
            break
        time.sleep(0.01)
    else:
        pytest.fail("plain defs did not run on the loop again")


def test_inline_and_thread_exclude_each_other():
    app = Server("t", "1")
    def f() -> str:
        return "x"
    with pytest.raises(TypeError, match="inline=True and thread=True exclude each other"):
        app.tool(inline=True, thread=True)(f)


def test_lists_are_paged_by_the_core(harness):
    app = Server("t", "1", log_level="error", page_size=2)
    for i in range(5):
        app.tool(lambda: "x", name="t%d" % i)
    h = harness(app)
    names, cursor = [], None
    while True:
        r = h.request("tools/list", {"cursor": cursor} if cursor else {}).result
        names += [t["name"] for t in r["tools"]]
        cursor = r.get("nextCursor")
        if not cursor:
            break
    assert names == ["t0", "t1", "t2", "t3", "t4"]
    assert h.request("tools/list", {"cursor": "bogus"}).code == -32602


def test_stdout_is_protected_while_serving_and_restored_after():
    script = textwrap.dedent('''
        import os, sys
        from picomcp import Server
        app = Server("t", "1")

        @app.tool
        def hi() -> str:
            return "hi"

        print("before")
        sys.stdout.flush()
        app.on_startup(lambda s: (print("during", end=""), os.write(1, b"fd1\\n")))
        rc = app.run([])
        print("after", rc)
    ''')
    out = subprocess.run([sys.executable, "-c", script], input="", capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout == "before\nafter 0\n"
    assert "during" in out.stderr and "fd1" in out.stderr


def test_progress_from_a_thread_and_cancelling_a_thread(harness):
    app = Server("t", "1", log_level="error")
    gate = threading.Event()
    started = threading.Event()
    seen = {}

    @app.tool
    def work(ctx: Context) -> str:
        ctx.progress(1, 2, "half")
        started.set()
        gate.wait(10)
        seen["cancelled"] = ctx.cancelled
        return "done"

    h = harness(app)
    rid = h.client.send_request(0, "tools/call", {"name": "work", "arguments": {}},
                                progress=True)
    h.pump_until(lambda evs: any(e.kind == "progress" for e in evs), "progress")
    assert started.wait(10)
    h.client.cancel(rid, "no longer needed")
    h._write()
    # A later request is answered (after the cancel, which came first on the wire); the
    # cancelled call never is, and its handler sees that it was cancelled.
    assert h.request("ping").kind == "response"
    gate.set()
    h.pump_until(lambda evs: "cancelled" in seen, "the handler to finish")
    assert seen["cancelled"] is True
    assert h.join() == 0
    assert h.answer_to(rid) is None


def test_a_blocked_thread_holds_up_neither_earlier_answers_nor_later_calls(harness):
    # Three calls in one read: a quick one, one that blocks, another quick one. The first
    # two run on the loop; while the second blocks, the rescue thread writes out the first
    # answer and gives the third call to a worker thread; ping is answered meanwhile.
    app = Server("t", "1", log_level="error", max_workers=2)
    gate = threading.Event()
    started = threading.Event()
    loop_thread = []

    @app.tool
    def hold() -> str:
        started.set()
        gate.wait(10)
        return "held"

    @app.tool
    def quick() -> str:
        return threading.current_thread().name

    @app.on_startup
    def where(server):
        loop_thread.append(threading.current_thread().name)

    h = harness(app)
    first = h.client.send_request(0, "tools/call", {"name": "quick", "arguments": {}})
    held = h.client.send_request(0, "tools/call", {"name": "hold", "arguments": {}})
    last = h.client.send_request(0, "tools/call", {"name": "quick", "arguments": {}})
    h._write()  # one write: the server reads the three together
    h.pump_until(lambda evs: h.answer_to(first) is not None and h.answer_to(last) is not None,
                 "the quick calls, while hold blocks")
    assert started.is_set() and h.answer_to(held) is None
    assert h.answer_to(first).result["content"][0]["text"] == loop_thread[0]
    assert h.answer_to(last).result["content"][0]["text"].startswith("picomcp-handler")
    assert h.request("ping").kind == "response"
    gate.set()
    h.pump_until(lambda evs: h.answer_to(held) is not None, "hold")
    assert h.answer_to(held).result["content"][0]["text"] == "held"


def test_field_defaults_are_passed_as_values(harness):
    app = Server("t", "1", log_level="error")

    @app.tool
    def f(a: int = Field(4, ge=1, description="A"),
          b: Annotated[str, Field(description="B")] = "x") -> str:
        return "%r %r" % (a, b)

    assert app.tools["f"].input_schema["properties"] == {
        "a": {"type": "integer", "minimum": 1, "description": "A", "default": 4},
        "b": {"type": "string", "description": "B", "default": "x"}}
    h = harness(app)
    assert h.call("f", {}).result["content"][0]["text"] == "4 'x'"
    assert h.call("f", {"a": 0}).result["isError"]  # the core checks minimum


def test_a_cancelled_blocked_thread_does_not_keep_the_process_alive():
    script = textwrap.dedent('''
        import time
        from picomcp import Server
        app = Server("t", "1")

        @app.tool(thread=True)  # in a worker thread, which the exit does not wait for
        def stuck() -> str:
            time.sleep(60)
            return "late"

        raise SystemExit(app.run([]))
    ''')
    msgs = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "t", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "stuck", "arguments": {}}},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2}},
        {"jsonrpc": "2.0", "id": 3, "method": "ping"},
    ]
    stdin = "".join(json.dumps(m) + "\n" for m in msgs)
    t0 = time.monotonic()
    out = subprocess.run([sys.executable, "-c", script], input=stdin, capture_output=True,
                         text=True, timeout=50)
    assert out.returncode == 0, out.stderr
    assert time.monotonic() - t0 < 30  # not the 60 s of the stuck handler
    ids = [json.loads(line).get("id") for line in out.stdout.splitlines()]
    assert ids == [1, 3]  # the cancelled call is never answered


def test_the_pool_is_bounded(harness):
    app = Server("t", "1", log_level="error", max_workers=1)
    gate = threading.Event()
    started = threading.Event()

    @app.tool(thread=True)
    def hold() -> str:
        started.set()
        gate.wait(10)
        return "held"

    @app.tool(thread=True)
    def quick() -> str:
        return "quick"

    h = harness(app)
    held = h.client.send_request(0, "tools/call", {"name": "hold", "arguments": {}})
    h._write()
    assert started.wait(10)
    waiting = h.client.send_request(0, "tools/call", {"name": "quick", "arguments": {}})
    assert h.request("ping").kind == "response"  # the loop is free
    assert h.answer_to(waiting) is None  # the one thread is busy
    gate.set()
    h.pump_until(lambda evs: h.answer_to(waiting) is not None, "quick")
    assert h.answer_to(waiting).result["content"][0]["text"] == "quick"
    h.pump_until(lambda evs: h.answer_to(held) is not None, "hold")
