"""The cross-language vectors (``tests/vectors/*.jsonl``, format: that folder's README),
run through the Python binding: every file, one scripted session each.

A mirror of the Rust runner (``core/tests/vectors.rs``): the same session settings, the
same rendering of events, the same subset match, the same JSON text for what the host
hands the core (compact, keys sorted as serde_json writes a ``Value``), so that one
expectation holds for every language byte for byte.
"""

from __future__ import annotations

import json
from collections import deque
from pathlib import Path

import pytest

from picomcp import QueueFull, RespondError, SendError, Session
from picomcp._native import Call, ResultError, ServerLayer

VECTORS = Path(__file__).resolve().parents[3] / "tests" / "vectors"
FILES = sorted(VECTORS.glob("*.jsonl"))

# Members of a definition that hold JSON (the layer takes them as JSON text).
JSON_FIELDS = ("inputSchema", "outputSchema", "annotations", "icons", "execution", "_meta")

CHANGES = {
    "tools_list_changed": "notifications/tools/list_changed",
    "prompts_list_changed": "notifications/prompts/list_changed",
    "resources_list_changed": "notifications/resources/list_changed",
}


def text(v) -> str:
    """JSON text as the Rust runner writes it (``serde_json::to_string`` of a ``Value``:
    compact, object keys sorted, UTF-8)."""
    return json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def sorted_value(v):
    """``v`` with every object's keys in sorted order (what the core then writes as given)."""
    return json.loads(text(v))


def camel(name: str) -> str:
    """``"not_in_version"`` -> ``"NotInVersion"`` (the Rust variant name)."""
    return "".join(part.capitalize() for part in name.split("_"))


# The members the Rust runner reads of a block of each kind it names (it drops the rest);
# any other block is passed whole.
BLOCK_MEMBERS = {
    "text": ("type", "text"),
    "image": ("type", "data", "mimeType"),
    "audio": ("type", "data", "mimeType"),
    "resource_link": ("type", "uri", "name", "mimeType", "description"),
    "resource": ("type", "resource"),
}
CONTENTS_MEMBERS = ("uri", "mimeType", "text", "blob")


def contents(r: dict) -> dict:
    """Resource contents as the Rust runner reads them (``blob`` wins over ``text``)."""
    out = {k: r[k] for k in CONTENTS_MEMBERS if k in r}
    if "blob" in out:
        out.pop("text", None)
    elif "text" not in out:
        out["text"] = ""
    return out


def block(b: dict) -> dict:
    """A content block as the Rust runner reads it."""
    members = BLOCK_MEMBERS.get(b.get("type"))
    if members is None:
        return sorted_value(b)  # Content::Json of its serde_json text
    out = {k: b[k] for k in members if k in b}
    if out["type"] == "resource":
        out["resource"] = contents(out.get("resource", {}))
    return out


def layer_of(spec: dict) -> ServerLayer:
    def tables(key: str) -> list:
        out = []
        for d in spec.get(key, []):
            out.append({k: text(v) if k in JSON_FIELDS else v for k, v in d.items()})
        return out

    options = {k: spec[k] for k in ("page_size", "list_changed", "subscribe", "logging")
               if k in spec}
    return ServerLayer(tables("tools"), tables("resources"), tables("resourceTemplates"),
                       tables("prompts"), **options)


def make_session(spec: dict, layer: ServerLayer | None) -> Session:
    caps = layer.capabilities if layer is not None else spec.get("capabilities", {})
    # The Rust runner's settings: lines of 8192 bytes, 8 request slots each way.
    kw = {}
    if "request_timeout_ms" in spec:
        kw["request_timeout_ms"] = spec["request_timeout_ms"]
    if "probe_timeout_ms" in spec:
        kw["probe_timeout_ms"] = spec["probe_timeout_ms"]
    if "state_key" in spec:
        kw["state_key"] = spec["state_key"].encode("utf-8")
    return Session(
        "client" if spec.get("role") == "client" else "server",
        spec.get("name", "vec"), spec.get("version", "0.0.0"), text(caps),
        instructions=spec.get("instructions"), versions=spec.get("versions"),
        max_line=8192, inbound_slots=8, outbound_slots=8, now_ms=0, **kw)


def event_json(e) -> dict:
    """An event (or a call of the server layer) in the vectors' vocabulary."""
    if isinstance(e, Call):
        if e.kind == "tool":
            return {"type": "call", "call": "tool", "tool": e.index, "arguments": e.arguments}
        if e.kind == "read":
            return {"type": "call", "call": "read", "target": e.target, "index": e.index,
                    "uri": e.uri, "vars": e.vars}
        if e.kind == "prompt":
            return {"type": "call", "call": "prompt", "prompt": e.index,
                    "arguments": e.arguments}
        return {"type": "call", "call": "complete", "target": e.target, "index": e.index,
                "argument": e.argument, "value": e.value}
    k = e.kind
    if k in ("negotiated", "ready"):
        return {"type": k, "version": e.version}
    if k in ("request", "notification"):
        return {"type": k, "method": e.method, "params": e.params}
    if k == "response":
        return {"type": "response", "result": e.result}
    if k == "error_response":
        return {"type": "error_response", "code": e.code, "message": e.message}
    if k == "cancelled":
        return {"type": "cancelled", "reason": e.reason}
    if k == "progress":
        return {"type": "progress", "progress": e.progress, "total": e.total}
    if k == "input_required":
        return {"type": "input_required", "input_requests": e.requests}
    if k == "subscription_acknowledged":
        return {"type": "subscription_acknowledged", "notifications": e.requests}
    if k == "tool_changed":
        old, new = e.digests
        return {"type": "tool_changed", "name": e.tool, "digests": {"old": old, "new": new}}
    if k == "pins_incomplete":
        return {"type": "pins_incomplete",
                "counts": {"unpinned": e.unpinned, "unreported": e.unreported}}
    if k == "peer_violation":
        return {"type": "violation", "kind": camel(e.name)}
    if k == "closed":
        return {"type": "closed", "reason": camel(e.name)}
    return {"type": k}  # timed_out, invalid_result, subscription_ended


def equal(expected, actual) -> bool:
    """``expected == actual`` as serde_json compares values: a bool is no number, and an
    integer is not equal to a float."""
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(expected) is type(actual) and expected == actual
    if isinstance(expected, (int, float)) and isinstance(actual, (int, float)):
        return type(expected) is type(actual) and expected == actual
    if isinstance(expected, dict) and isinstance(actual, dict):
        return expected.keys() == actual.keys() and all(
            equal(v, actual[k]) for k, v in expected.items())
    if isinstance(expected, list) and isinstance(actual, list):
        return len(expected) == len(actual) and all(map(equal, expected, actual))
    return type(expected) is type(actual) and expected == actual


def matches(expected, actual) -> bool:
    """Subset match (tests/vectors/README.md)."""
    if expected == "<any>":
        return actual is not None
    if isinstance(expected, dict) and isinstance(actual, dict):
        return all(k in actual and matches(v, actual[k]) for k, v in expected.items())
    if isinstance(expected, list) and isinstance(actual, list):
        return len(expected) == len(actual) and all(map(matches, expected, actual))
    return equal(expected, actual)


class Runner:
    def __init__(self, path: Path) -> None:
        self.name = path.name
        lines = path.read_text(encoding="utf-8").splitlines()
        self.steps = [ln for ln in lines if ln.strip() and not ln.startswith("#")]
        spec = json.loads(self.steps[0])["session"]
        self.layer = layer_of(spec["server"]) if "server" in spec else None
        self.s = make_session(spec, self.layer)
        self.now = 0
        self.sent: deque = deque()
        # A server-layer session: the events the layer handed on (calls and other events).
        self.events: deque = deque()
        self.last_request = None
        self.last_outbound = None
        self.last_input = None
        self.last_call = None
        self.last_error = None

    def pump(self) -> None:
        """Passes every pending event through the layer (before each ``expect_*`` step, as
        the Rust runner does); what it hands on waits in ``events``."""
        while True:
            e = self.layer.poll_event(self.s)
            if e is None:
                break
            self.events.append(e)

    def take_output(self) -> None:
        out = self.s.poll_transmit()
        self.sent.extend(ln.decode("utf-8") for ln in out.split(b"\n") if ln)

    def poll_event(self):
        if self.layer is not None:
            return self.events.popleft() if self.events else None
        return self.s.poll_event()

    def refused(self, e: Exception) -> None:
        """What the Rust runner records for a refused answer of the layer: the
        ``ResultError`` variant name (``Respond`` for a session refusal)."""
        self.last_error = e.kind if isinstance(e, ResultError) else "Respond"

    def run(self) -> None:
        for n, line in enumerate(self.steps[1:]):
            ctx = "%s step %d %s" % (self.name, n + 2, line)
            step = json.loads(line)
            (k, v), = step.items()
            if self.layer is not None and k.startswith("expect_"):
                self.pump()
            self.take_output()
            getattr(self, "step_" + k, lambda v, ctx: pytest.fail("%s: unknown step %s" % (ctx, k)))(v, ctx)

    # ---- steps ----

    def step_recv(self, v, ctx) -> None:
        self.step_recv_raw(v + "\n", ctx)

    def step_recv_raw(self, v, ctx) -> None:
        data = v.encode("utf-8")
        taken = self.s.handle_bytes(self.now, data)
        assert taken == len(data), "%s: backpressure" % ctx

    def step_expect_send(self, v, ctx) -> None:
        assert self.sent, "%s: nothing was sent" % ctx
        line = self.sent.popleft()
        assert matches(v, json.loads(line)), "%s\n  sent: %s" % (ctx, line)

    def step_expect_send_exact(self, v, ctx) -> None:
        assert self.sent, "%s: nothing was sent" % ctx
        line = self.sent.popleft()
        assert equal(v, json.loads(line)), "%s\n  sent: %s" % (ctx, line)

    def step_expect_no_send(self, v, ctx) -> None:
        assert not self.sent, "%s: sent %r" % (ctx, list(self.sent))

    def step_expect_event(self, v, ctx) -> None:
        e = self.poll_event()
        assert e is not None, "%s: no event" % ctx
        if isinstance(e, Call):
            self.last_call = e
        elif e.kind == "request":
            self.last_request = e.id
        elif e.kind == "input_required":
            self.last_input = e.id
        actual = event_json(e)
        assert matches(v, actual), "%s\n  event: %s" % (ctx, text(actual))

    def step_expect_no_event(self, v, ctx) -> None:
        e = self.poll_event()
        assert e is None, "%s: event %s" % (ctx, text(event_json(e)))

    def step_expect_client_capabilities(self, v, ctx) -> None:
        shown = self.s.request_info(self.last_request)["client_capabilities"]
        assert equal(v, shown), "%s\n  shown: %s" % (ctx, text(shown))

    def step_respond(self, v, ctx) -> None:
        assert self.last_request is not None, "no request"
        self.s.respond(self.last_request, text(v))

    def step_respond_input_required(self, v, ctx) -> None:
        assert self.last_request is not None, "no request"
        requests = text(v["input_requests"]) if "input_requests" in v else None
        self.s.respond_input_required(self.last_request, requests, v.get("request_state"))

    def step_respond_error(self, v, ctx) -> None:
        assert self.last_request is not None, "no request"
        self.s.respond_error(self.last_request, v["code"], v.get("message", "error"))

    def step_send_request(self, v, ctx) -> None:
        params = text(v["params"]) if "params" in v else None
        try:
            self.last_outbound = self.s.send_request(
                self.now, v["method"], params, timeout_ms=v.get("timeout_ms"),
                progress=v.get("progress") is True)
        except (SendError, QueueFull) as e:
            self.last_error = e.kind

    def step_send_notification(self, v, ctx) -> None:
        params = text(v["params"]) if "params" in v else None
        try:
            self.s.send_notification(v["method"], params)
        except (SendError, QueueFull) as e:
            self.last_error = e.kind

    def step_cancel(self, v, ctx) -> None:
        assert self.last_outbound is not None, "no outbound request"
        self.s.cancel(self.last_outbound, v.get("reason"))

    def step_answer_input(self, v, ctx) -> None:
        assert self.last_input is not None, "no input_required"
        self.s.answer_input(self.now, self.last_input, text(v))

    def step_notify(self, v, ctx) -> None:
        if isinstance(v, str):
            change, uri = CHANGES[v], None
        else:
            change, uri = "notifications/resources/updated", v["resource_updated"]
        try:
            self.s.notify(change, uri)
        except (SendError, QueueFull) as e:
            self.last_error = e.kind

    def step_advance_ms(self, v, ctx) -> None:
        self.now += v
        self.s.handle_timeout(self.now)

    def step_eof(self, v, ctx) -> None:
        self.s.handle_eof(self.now)

    def step_expect_error(self, v, ctx) -> None:
        e, self.last_error = self.last_error, None
        assert e is not None, "%s: the command succeeded" % ctx
        assert e.startswith(v), "%s: got %s" % (ctx, e)

    # ---- answers through the server layer ----

    def call(self) -> Call:
        assert self.last_call is not None, "no call"
        return self.last_call

    def step_respond_tool(self, v, ctx) -> None:
        c = self.call()
        content = [block(b) for b in v["content"]] if "content" in v else None
        structured = text(v["structured"]) if "structured" in v else None
        try:
            self.layer.respond_tool(self.s, c.id, c.index, content, structured,
                                    is_error=v.get("is_error") is True)
        except (ResultError, RespondError, QueueFull) as e:
            self.refused(e)

    def step_respond_read(self, v, ctx) -> None:
        try:
            self.layer.respond_read(self.s, self.call().id,
                                    [contents(r) for r in v.get("contents", [])])
        except (RespondError, QueueFull) as e:
            self.refused(e)

    def step_respond_prompt(self, v, ctx) -> None:
        c = self.call()
        try:
            messages = [{"role": "assistant" if m.get("role") == "assistant" else "user",
                         "content": block(m["content"])} for m in v.get("messages", [])]
            self.layer.respond_prompt(self.s, c.id, c.index, messages)
        except (ResultError, RespondError, QueueFull) as e:
            self.refused(e)

    def step_respond_completion(self, v, ctx) -> None:
        try:
            self.layer.respond_completion(self.s, self.call().id, v["values"], v.get("total"),
                                          v.get("hasMore") is True)
        except (RespondError, QueueFull) as e:
            self.refused(e)


def test_every_vector_file_is_found():
    assert len(FILES) >= 6, FILES


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_vector(path):
    Runner(path).run()


def test_the_subset_match():
    assert matches({"a": 1}, {"a": 1, "b": 2})
    assert not matches({"a": 1}, {"a": 1.0})
    assert not matches({"a": True}, {"a": 1})
    assert not matches([1], [1, 2])
    assert matches("<any>", {"x": 1}) and not matches("<any>", None)
    assert matches({"a": {"b": [1, {"c": "<any>"}]}}, {"a": {"b": [1, {"c": 0}]}, "z": 0})
