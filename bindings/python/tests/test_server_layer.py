"""``ServerLayer`` and ``Call``: the core server layer through the binding (what the
shared vectors do not reach: the conversion of Python definitions and answers, and the
errors the binding raises)."""

from __future__ import annotations

import json

import pytest

from picomcp import Call, ConfigError, ResultError, SendError, ServerLayer, Session

from conftest import MODERN_META, lines

ECHO = {"name": "echo", "inputSchema": {
    "type": "object", "properties": {"text": {"type": "string"}, "n": {"default": 3}},
    "required": ["text"]}}
ADD = {"name": "add", "inputSchema": {"type": "object"}, "outputSchema": {
    "type": "object", "properties": {"sum": {"type": "number"}}, "required": ["sum"]}}


def layer(**kw) -> ServerLayer:
    return ServerLayer(
        [ECHO, ADD],
        [{"uri": "test://a", "name": "a", "mimeType": "text/plain"}],
        [{"uriTemplate": "test://item/{id}", "name": "item", "completable": True}],
        [{"name": "p", "description": "A prompt",
          "arguments": [{"name": "who", "required": True, "completable": True}]}], **kw)


class Served:
    """A server ``Session`` behind a layer; requests are written as lines."""

    def __init__(self, version: str | None = None, **kw) -> None:
        self.layer = layer(**kw)
        self.s = Session("server", "t", "1", self.layer.capabilities)
        self.version = version
        self.next_id = 1
        if version is not None:  # a legacy handshake
            self.send("initialize", {"protocolVersion": version, "capabilities": {},
                                     "clientInfo": {"name": "c", "version": "1"}})
            self.line({"jsonrpc": "2.0", "method": "notifications/initialized"})
            self.events()
            self.out()

    def line(self, msg: dict) -> None:
        data = (json.dumps(msg) + "\n").encode()
        assert self.s.handle_bytes(0, data) == len(data)

    def send(self, method: str, params: dict) -> int:
        rid, self.next_id = self.next_id, self.next_id + 1
        if self.version is None:
            params = dict(params, _meta=MODERN_META)
        self.line({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        return rid

    def events(self) -> list:
        out = []
        while True:
            e = self.layer.poll_event(self.s)
            if e is None:
                return out
            out.append(e)

    def call(self, method: str, params: dict) -> Call:
        self.send(method, params)
        (c,) = self.events()
        assert isinstance(c, Call), c
        return c

    def out(self) -> list:
        return lines(self.s.poll_transmit())


def test_capabilities_come_from_the_tables():
    assert layer().capabilities == {
        "tools": {"listChanged": True}, "resources": {"listChanged": True},
        "prompts": {"listChanged": True}, "completions": {}, "logging": {}}
    assert ServerLayer([ECHO], subscribe=True, list_changed=False, logging=False
                       ).capabilities == {"tools": {}}
    assert ServerLayer().capabilities == {"logging": {}}
    assert layer().counts == (2, 1, 1, 1)


@pytest.mark.parametrize("tools, error, match", [
    ([{"name": "x", "inputSchema": {"type": "string"}}], ConfigError, "inputSchema"),
    ([{"name": "x", "inputSchema": "{not json"}], ConfigError, "inputSchema"),
    ([{"name": "x"}, {"name": "x"}], ConfigError, "name"),
    ([{"inputSchema": {"type": "object"}}], ValueError, r"tools\[0\]: `name` is missing"),
    ([{"name": 5}], TypeError, "`name` must be a str"),
    (["echo"], TypeError, r"tools\[0\] must be a dict"),
    ([{"name": "x", "annotations": []}], ConfigError, "annotations"),
])
def test_broken_definitions_raise_at_once(tools, error, match):
    with pytest.raises(error, match=match):
        ServerLayer(tools)


def test_a_tool_call_carries_what_the_host_needs():
    srv = Served()
    c = srv.call("tools/call", {"name": "echo", "arguments": {"text": "hi"}})
    assert (c.kind, c.method, c.target, c.index, c.name) == (
        "tool", "tools/call", "tool", 0, "echo")
    assert c.arguments == {"text": "hi"}
    assert c.params["_meta"] == MODERN_META and c.meta == MODERN_META
    assert isinstance(c.defaults, dict)  # {"n": 3} once the schema branch has landed
    assert c.uri is None and c.vars is None and c.argument is None
    srv.layer.respond_tool(srv.s, c.id, c.index, [{"type": "text", "text": "hi"}])
    (answer,) = srv.out()
    assert answer["result"]["content"] == [{"type": "text", "text": "hi"}]
    assert "Call(kind=\"tool\"" in repr(c)


def test_the_layer_answers_what_fails_its_checks():
    srv = Served()
    srv.send("tools/call", {"name": "nope"})
    srv.send("tools/list", {})
    assert srv.events() == []
    unknown, listed = srv.out()
    assert unknown["error"]["code"] == -32602
    assert [t["name"] for t in listed["result"]["tools"]] == ["echo", "add"]


def test_reads_prompts_and_completions():
    srv = Served()
    c = srv.call("resources/read", {"uri": "test://item/42"})
    assert (c.kind, c.target, c.index, c.name, c.uri, c.vars) == (
        "read", "template", 0, "test://item/{id}", "test://item/42", {"id": "42"})
    srv.layer.respond_read(srv.s, c.id, [{"uri": c.uri, "blob": "AAAA"}])
    c = srv.call("resources/read", {"uri": "test://a"})
    assert (c.target, c.vars) == ("resource", {})
    srv.layer.respond_read(srv.s, c.id, [{"uri": c.uri, "mimeType": "text/plain", "text": "a"}])
    c = srv.call("prompts/get", {"name": "p", "arguments": {"who": "Ada"}})
    assert (c.kind, c.index, c.arguments) == ("prompt", 0, {"who": "Ada"})
    srv.layer.respond_prompt(srv.s, c.id, c.index, [
        {"role": "assistant", "content": {"type": "text", "text": "Hello Ada"}}])
    c = srv.call("completion/complete", {"ref": {"type": "ref/prompt", "name": "p"},
                                         "argument": {"name": "who", "value": "A"},
                                         "context": {"arguments": {}}})
    assert (c.kind, c.target, c.argument, c.value, c.context) == (
        "complete", "prompt", "who", "A", {"arguments": {}})
    srv.layer.respond_completion(srv.s, c.id, ["Ada%d" % i for i in range(150)], 150)
    blob, text, prompt, completion = srv.out()
    assert blob["result"]["contents"] == [{"uri": "test://item/42", "blob": "AAAA"}]
    assert text["result"]["contents"][0]["mimeType"] == "text/plain"
    assert prompt["result"]["description"] == "A prompt"
    assert prompt["result"]["messages"] == [
        {"role": "assistant", "content": {"type": "text", "text": "Hello Ada"}}]
    got = completion["result"]["completion"]
    assert (len(got["values"]), got["total"], got["hasMore"]) == (100, 150, True)


def test_blocks_keep_what_the_core_does_not_name():
    srv = Served()
    c = srv.call("tools/call", {"name": "echo", "arguments": {"text": "x"}})
    with pytest.raises(UnicodeEncodeError):  # a lone surrogate has no UTF-8 form
        srv.layer.respond_tool(srv.s, c.id, c.index, [{"type": "text", "text": "\ud800"}])
    blocks = [{"type": "text", "text": "a", "annotations": {"priority": 1}},
              {"type": "custom", "x": [1, 2]}, {"type": "text", "text": "plain"}]
    srv.layer.respond_tool(srv.s, c.id, c.index, blocks)
    (answer,) = srv.out()
    assert answer["result"]["content"] == blocks


def test_refused_answers_raise_result_error_and_send_nothing():
    srv = Served("2024-11-05")
    c = srv.call("tools/call", {"name": "add"})
    with pytest.raises(ResultError) as e:
        srv.layer.respond_tool(srv.s, c.id, c.index, [{"type": "text", "text": "no sum"}])
    assert e.value.kind == "MissingStructured"
    with pytest.raises(ResultError) as e:  # audio came with 2025-03-26
        srv.layer.respond_tool(srv.s, c.id, c.index, [
            {"type": "audio", "data": "AAAA", "mimeType": "audio/wav"}], {"sum": 1})
    assert e.value.kind == "NotInRevision"
    with pytest.raises(ResultError) as e:
        srv.layer.respond_tool(srv.s, c.id, 7, [])
    assert e.value.kind == "UnknownDefinition"
    assert srv.out() == []
    srv.layer.respond_tool(srv.s, c.id, c.index, structured={"sum": 1})
    (answer,) = srv.out()  # before 2025-06-18: the JSON text only
    assert answer["result"] == {"content": [{"type": "text", "text": '{"sum":1}'}]}
    with pytest.raises(Exception) as e:  # answered already: the session refuses
        srv.layer.respond_tool(srv.s, c.id, c.index, structured={"sum": 1})
    assert e.value.kind == "UnknownRequest"


@pytest.mark.parametrize("bad", [
    {"content": "text"}, {"content": [5]}, {"structured": [1]}, {"structured": "[1]"},
    {"meta": "x"},
])
def test_answers_of_the_wrong_type_raise(bad):
    srv = Served()
    c = srv.call("tools/call", {"name": "echo", "arguments": {"text": "x"}})
    with pytest.raises((TypeError, ValueError)):
        srv.layer.respond_tool(srv.s, c.id, c.index, **bad)
    with pytest.raises(ValueError):
        srv.layer.respond_read(srv.s, c.id, [{"uri": "u", "text": "t", "extra": 1}])
    with pytest.raises(ValueError):
        srv.layer.respond_prompt(srv.s, c.id, 0, [{"role": "system", "content": {}}])


def test_session_errors_carry_the_rust_variant_name():
    s = Session("server", "t", "1", {})
    with pytest.raises(SendError) as e:
        s.send_request(0, "roots/list")
    assert e.value.kind == "WrongPhase"
