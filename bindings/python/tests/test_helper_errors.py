"""Registration mistakes raise the texts the Node helper raises (issue 13): every case of
``tests/helpers/registration_errors.json`` (which the Node tests run too), through the
``Server`` helper. The texts are the core's definition check, the entry named by its name."""

from __future__ import annotations

import json
import pathlib

import pytest

import picomcp
from picomcp import Server

from test_server import Harness

ROOT = pathlib.Path(__file__).resolve().parents[3]
SHARED = json.loads((ROOT / "tests" / "helpers" / "registration_errors.json")
                    .read_text(encoding="utf-8"))
CASES = SHARED["cases"]

#: The definition's members (as Node's options spell them) as the registration keywords.
KEYWORDS = {"inputSchema": "input_schema", "outputSchema": "output_schema",
            "mimeType": "mime_type", "arguments": "arguments", "description": "description",
            "title": "title", "annotations": "annotations"}


def register(app: Server, case: dict) -> None:
    kind, name = case["kind"], case["name"]
    options = {KEYWORDS[k]: v for k, v in case.get("definition", {}).items()}
    if "handler" in case:
        fn = case["handler"]
    elif kind == "resource":
        fn = lambda uri, ctx: "x"  # noqa: E731
    else:
        fn = lambda args, ctx: "x"  # noqa: E731
    getattr(app, kind)(name, **options)(fn)


@pytest.mark.parametrize("case", CASES, ids=["%d-%s-%s" % (i, c["kind"], c["name"])
                                             for i, c in enumerate(CASES)])
def test_the_shared_registration_errors(case):
    app = Server("s", "1")
    with pytest.raises(Exception) as info:
        register(app, case)
    e = info.value
    assert type(e).__name__ == case["error"]
    if case["error"] == "ConfigError":
        assert isinstance(e, picomcp.ConfigError)
    message = case.get("message_python", case.get("message"))
    if message is not None:
        assert str(e) == message
    else:
        assert str(e).startswith(case["message_prefix"]), str(e)
    assert not (app.tools or app.resources or app.templates or app.prompts)


def test_a_name_used_twice_is_named_too():
    """Python refuses a second definition of a name (Node replaces the first): the text
    names it as the other mistakes do, and the first definition stays."""
    app = Server("s", "1")
    app.tool("t")(lambda args, ctx: "x")
    app.resource("test://a")(lambda uri, ctx: "x")
    app.resource("test://{a}")(lambda uri, ctx: "x")
    app.prompt("p")(lambda args, ctx: [])
    cases = [
        (lambda: app.tool("t")(lambda args, ctx: "y"),
         'tool "t": name: used by an earlier entry too'),
        (lambda: app.resource("test://a")(lambda uri, ctx: "y"),
         'resource "test://a": uri: used by an earlier entry too'),
        (lambda: app.resource("test://{a}")(lambda uri, ctx: "y"),
         'resource template "test://{a}": uriTemplate: used by an earlier entry too'),
        (lambda: app.prompt("p")(lambda args, ctx: []),
         'prompt "p": name: used by an earlier entry too'),
    ]
    for register_again, message in cases:
        with pytest.raises(picomcp.ConfigError) as info:
            register_again()
        assert str(info.value) == message
    assert (len(app.tools), len(app.resources), len(app.templates), len(app.prompts)) == \
        (1, 1, 1, 1)


def test_a_handler_that_is_not_callable():
    app = Server("s", "1")
    for register_it, message in [
        (lambda: app.prompt("p")(None), 'prompt "p": the handler must be a function, not NoneType'),
        (lambda: app.resource("test://{a}")(42),
         'resource template "test://{a}": the handler must be a function, not int'),
        (lambda: app.tool(name="t")({}), 'tool "t": the handler must be a function, not dict'),
    ]:
        with pytest.raises(TypeError) as info:
            register_it()
        assert str(info.value) == message


def test_the_shared_call_errors():
    """Unknown tools and bad arguments: the core's texts, as the Node helper answers them
    (``calls`` in the same file)."""
    calls = SHARED["calls"]
    app = Server("s", "1", log_level="error")
    tool = calls["tool"]
    app.tool(tool["name"], input_schema=tool["inputSchema"])(lambda args, ctx: "x")
    h = Harness(app, [calls["version"]])
    try:
        h.handshake()
        for case in calls["cases"]:
            ev = h.request("tools/call", case["params"])
            assert (ev.kind, ev.code) == ("error_response", case["code"]), case
            if "message" in case:
                assert ev.message == case["message"]
            else:
                assert ev.message.startswith(case["message_prefix"]), ev.message
        assert h.join() == 0
    finally:
        h.cleanup()
