"""Asking the client in 2026-07-28 as the Node helper does: every case of
``tests/helpers/asking.json`` (which the Node tests run too), through the ``Server`` helper
over pipes. The handlers are the file's ``server``, written here as in Node."""

from __future__ import annotations

import json
import pathlib

import pytest

from picomcp import Context, Server

from test_ask import Lines

ROOT = pathlib.Path(__file__).resolve().parents[3]
SHARED = json.loads((ROOT / "tests" / "helpers" / "asking.json").read_text(encoding="utf-8"))
CASES = SHARED["cases"]
ELICIT = "elicitation/create"
SAMPLE = ("sampling/createMessage", SHARED["server"]["SAMPLE"])


def form(message: str) -> tuple:
    return (ELICIT, {"message": message, "requestedSchema": {
        "type": "object", "properties": {"ok": {"type": "boolean"}}}})


def make_app() -> Server:
    app = Server("ask-shared", "1.0.0", log_level="error")

    @app.tool
    async def confirm(ctx: Context) -> str:
        a = await ctx.ask(*form("Sure?"))
        return "action:" + a["action"]

    @app.tool
    async def pair(ctx: Context) -> str:
        g = await ctx.ask_all({"name": form("Name?"), "topic": SAMPLE}, state="pair")
        return "name:%s topic:%s" % (g["name"]["action"], g["topic"]["model"])

    @app.tool
    async def twice(ctx: Context) -> str:
        if ctx.request_state != "r2":
            await ctx.ask(*form("First?"), state="r1")
        b = await ctx.ask(*form("Second?"), state="r2")
        return "second:" + b["action"]

    @app.tool
    async def link(ctx: Context) -> str:
        a = await ctx.ask(ELICIT, {"mode": "url", "message": "Open",
                                   "url": "https://example.com/x"})
        return "url:" + a["action"]

    @app.tool
    def caps(ctx: Context) -> str:
        return json.dumps(ctx.client_capabilities)

    @app.prompt
    async def brief(ctx: Context) -> str:
        a = await ctx.ask(*form("Who?"), key="who")
        return "for:" + a["action"]

    @app.resource("test://asked", mime_type="text/plain")
    async def asked(ctx: Context) -> str:
        a = await ctx.ask(*form("Shade?"), key="shade")
        return "read:" + a["action"]

    return app


def text_of(method: str, result: dict) -> str:
    if method == "prompts/get":
        return result["messages"][0]["content"]["text"]
    if method == "resources/read":
        return result["contents"][0]["text"]
    return result["content"][0]["text"]


def check(step: dict, got: dict) -> None:
    expect = step["expect"]
    if "error" in expect:
        assert "error" in got, got
        for k, v in expect["error"].items():
            assert got["error"].get(k) == v, (k, got["error"])
        return
    result = got.get("result")
    assert result is not None, got
    if "asks" in expect:
        assert result.get("resultType") == "input_required", result
        asked = result["inputRequests"]
        assert {k: q["method"] for k, q in asked.items()} == expect["asks"], asked
        for k, message in expect.get("messages", {}).items():
            assert asked[k]["params"]["message"] == message, asked[k]
        assert ("requestState" in result) == expect["state"], result
    else:
        assert result.get("resultType", "complete") == "complete", result
        text = text_of(step["method"], result)
        if "json" in expect:
            assert json.loads(text) == expect["json"], text
        else:
            assert text == expect["text"], result


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_the_shared_asking_cases(case):
    h = Lines(make_app())
    try:
        previous: dict = {}
        for step in case["steps"]:
            params = dict(step["params"])
            if params.get("requestState") == "$previous":
                params["requestState"] = previous["result"]["requestState"]
            got = h.modern(step["method"], params,
                           step.get("capabilities", SHARED["capabilities"]))
            check(step, got)
            previous = got
    finally:
        h.close()
