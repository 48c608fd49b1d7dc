"""The native ``Session``: a client and a server driven against each other on a virtual
clock, raw lines fed to a server, and the exceptions of caller mistakes."""

from __future__ import annotations

import json
import random

import pytest

import picomcp
from picomcp import (
    FEATURES,
    PROTOCOL_VERSIONS,
    ConfigError,
    PicomcpError,
    QueueFull,
    RespondError,
    SendError,
    Session,
    features,
)

from conftest import LEGACY_VERSIONS, MODERN_VERSION, Pair, drain, feed, lines

INIT = ('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":'
        '"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}')
INITIALIZED = '{"jsonrpc":"2.0","method":"notifications/initialized"}'


def ready_server(**kw) -> Session:
    """A server that completed the handshake at 2025-11-25 (fed raw lines)."""
    s = Session("server", "srv", "1.0", {"tools": {}, "logging": {}}, **kw)
    evs = feed(s, 0, (INIT + "\n" + INITIALIZED + "\n").encode())
    assert [e.kind for e in evs] == ["negotiated", "ready"]
    assert len(lines(s.poll_transmit())) == 1
    return s


# ---- module surface ----


def test_module_constants():
    assert PROTOCOL_VERSIONS == LEGACY_VERSIONS + [MODERN_VERSION]
    assert isinstance(picomcp.__version__, str) and picomcp.__version__
    for exc in (ConfigError, SendError, RespondError, QueueFull):
        assert issubclass(exc, PicomcpError)
    assert issubclass(PicomcpError, Exception)


# What each revision has, as the helpers ask it (the full table is checked against the
# schemas in core/tests/features.rs).
FEATURE_TABLE = {
    # feature: the revisions of PROTOCOL_VERSIONS (oldest first) that have it
    "batches": [False, True, False, False, False],
    "title": [False, False, True, True, True],
    "output_schema": [False, False, True, True, True],
    "structured_content": [False, False, True, True, True],
    "argument_errors_as_tool_results": [False, False, False, True, True],
    "tasks": [False, False, False, True, False],
    "input_required": [False, False, False, False, True],
}


def test_features_per_revision():
    for name, row in FEATURE_TABLE.items():
        assert name in FEATURES
        assert [name in features(v) for v in PROTOCOL_VERSIONS] == row, name
    assert all(set(features(v)) <= set(FEATURES) for v in PROTOCOL_VERSIONS)
    with pytest.raises(ValueError):
        features("2023-01-01")


# ---- handshake ----


@pytest.mark.parametrize("version", LEGACY_VERSIONS)
def test_legacy_handshake(version):
    p = Pair(client_versions=[version])
    assert p.client.phase == "initializing" and p.client.version is None
    p.drive()
    c, s = p.take("client"), p.take("server")
    assert [(e.kind, e.version) for e in c] == [("negotiated", version), ("ready", version)]
    assert [(e.kind, e.version) for e in s] == [("negotiated", version), ("ready", version)]
    # Each side sees the other's half of the handshake.
    assert s[0].peer["clientInfo"] == {"name": "test-client", "version": "1.0.0"}
    assert s[0].peer["protocolVersion"] == version
    assert c[0].peer["serverInfo"] == {"name": "test-server", "version": "1.0.0"}
    assert c[0].peer["instructions"] == "be nice"
    assert c[0].peer["capabilities"]["tools"] == {"listChanged": True}
    for session, role in ((p.client, "client"), (p.server, "server")):
        assert session.role == role
        assert session.phase == "operating"
        assert session.era == "legacy"
        assert session.version == version
    methods = [(side, m.get("method")) for side, m in p.wire]
    assert methods == [("C", "initialize"), ("S", None), ("C", "notifications/initialized")]
    assert p.client.stats["messages_out"] == 2 and p.server.stats["messages_out"] == 1

    # A request round trip works at every revision.
    cid, req = p.request("tools/list")
    p.server.respond(req.id, {"tools": []})
    p.drive()
    assert [(e.kind, e.id, e.result) for e in p.take("client")] == [
        ("response", cid, {"tools": []})]


def test_modern_era_is_reached_through_discover():
    p = Pair(client_versions=[MODERN_VERSION])
    assert p.client.era == "opening"
    p.drive()
    c = p.take("client")
    assert [(e.kind, e.version) for e in c] == [
        ("negotiated", MODERN_VERSION), ("ready", MODERN_VERSION)]
    assert p.client.phase == "operating"
    assert p.client.era == "modern"
    assert p.client.version == MODERN_VERSION
    assert p.wire[0][0] == "C" and p.wire[0][1]["method"] == "server/discover"
    # The server answered the probe without taking a side.
    assert p.take("server") == []
    assert p.server.era == "opening"

    # The first modern request latches the server into the modern era.
    cid, req = p.request("tools/list")
    assert p.server.era == "modern" and p.server.version == MODERN_VERSION
    assert p.server.request_info(req.id)["modern"] is True
    p.server.respond(req.id, {"tools": [{"name": "t", "inputSchema": {"type": "object"}}]})
    p.drive()
    (ev,) = p.take("client")
    assert ev.kind == "response" and ev.id == cid
    assert ev.result["tools"][0]["name"] == "t"


def test_dual_era_client_falls_back_after_the_probe_times_out():
    c = Session("client", "c", "1", {}, probe_timeout_ms=500, now_ms=100)
    (probe,) = lines(c.poll_transmit())
    assert probe["method"] == "server/discover"
    assert c.poll_timeout() == 600
    c.handle_timeout(599)
    assert c.poll_transmit() == b""
    c.handle_timeout(600)
    (init,) = lines(c.poll_transmit())
    assert init["method"] == "initialize"
    assert init["params"]["protocolVersion"] == "2025-11-25"


# ---- requests and responses ----


@pytest.mark.parametrize("answer", [
    {"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]},
    '{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}',
    b'{"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]}',
], ids=["dict", "str", "bytes"])
def test_tools_list_answered(pair, answer):
    cid, req = pair.request("tools/list")
    assert req.params is None
    assert pair.server.is_open(req.id)
    info = pair.server.request_info(req.id)
    # The legacy era: the session's client capabilities (conftest.CLIENT_CAPS).
    caps = {"roots": {"listChanged": True}, "sampling": {}}
    assert info == {"method": "tools/list", "modern": False, "log_level": None,
                    "has_progress_token": False, "cancelled": False,
                    "client_capabilities": caps}
    assert pair.server.peer_capabilities == caps
    pair.server.respond(req.id, answer)
    assert not pair.server.is_open(req.id)
    assert pair.server.request_info(req.id) is None
    pair.drive()
    (ev,) = pair.take("client")
    assert ev.kind == "response" and ev.id == cid
    assert ev.result == {"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]}


def test_request_params_reach_the_server(pair):
    _, req = pair.request("tools/call", {"name": "echo", "arguments": {"text": "hé"}})
    assert req.params == {"name": "echo", "arguments": {"text": "hé"}}
    _, req2 = pair.request("tools/call", '{"name":"x"}')
    assert req2.params == {"name": "x"}


def test_respond_error_with_data(pair):
    cid, req = pair.request("tools/call", {"name": "nope"})
    pair.server.respond_error(req.id, -32602, "Unknown tool: nope", {"tool": "nope", "n": [1]})
    pair.drive()
    (ev,) = pair.take("client")
    assert (ev.kind, ev.id, ev.code, ev.message, ev.data) == (
        "error_response", cid, -32602, "Unknown tool: nope", {"tool": "nope", "n": [1]})
    # Without data, and data that is a plain string.
    cid, req = pair.request("tools/list")
    pair.server.respond_error(req.id, -32603, "Internal error")
    cid2, req2 = pair.request("tools/list")
    pair.server.respond_error(req2.id, -32000, "x", "just text")
    pair.drive()
    evs = pair.take("client")
    assert [(e.id, e.code, e.data) for e in evs] == [(cid, -32603, None), (cid2, -32000, "just text")]


def test_progress(pair):
    cid, req = pair.request("tools/call", {"name": "slow"}, progress=True)
    token = req.params["_meta"]["progressToken"]
    assert pair.server.request_info(req.id)["has_progress_token"] is True
    pair.server.progress(req.id, 1, 4, "one")
    pair.server.progress(req.id, 2.5, 4)
    pair.drive()
    evs = pair.take("client")
    assert [(e.kind, e.id, e.progress, e.total) for e in evs] == [
        ("progress", cid, 1.0, 4.0), ("progress", cid, 2.5, 4.0)]
    assert evs[0].params["progressToken"] == token
    assert evs[0].params["message"] == "one"
    # Progress must increase: a caller mistake.
    with pytest.raises(SendError):
        pair.server.progress(req.id, 2)
    pair.server.respond(req.id, {"content": []})
    pair.drive()
    assert [(e.kind, e.id) for e in pair.take("client")] == [("response", cid)]


def test_progress_without_a_token_is_refused(pair):
    _, req = pair.request("tools/list")
    with pytest.raises(SendError):
        pair.server.progress(req.id, 1)
    assert pair.server.poll_transmit() == b""


def test_cancellation(pair):
    cid, req = pair.request("tools/call", {"name": "slow"})
    pair.client.cancel(cid, "no longer needed")
    pair.drive()
    (ev,) = pair.take("server")
    assert (ev.kind, ev.id, ev.reason) == ("cancelled", req.id, "no longer needed")
    assert pair.server.request_info(req.id)["cancelled"] is True
    # The core freed the slot itself. The host's first (late) answer is harmless: nothing
    # is sent, nothing raised, and it forgets the handle; a second answer is a mistake.
    pair.server.respond(req.id, {"content": []})
    assert pair.server.poll_transmit() == b""
    assert pair.server.request_info(req.id) is None
    with pytest.raises(RespondError):
        pair.server.respond(req.id, {"content": []})
    assert pair.server.poll_transmit() == b""
    pair.drive()
    assert pair.take("client") == []
    # Cancelling a finished request of ours is one too.
    with pytest.raises(SendError):
        pair.client.cancel(cid)


def test_request_timeout(pair):
    # request_timeout_ms=1000 is the client's default (see the fixture).
    pair.now = 50
    cid = pair.client.send_request(pair.now, "tools/list")
    assert pair.client.poll_timeout() == 1050
    pair.drive()
    assert [e.kind for e in pair.take("server")] == ["request"]
    pair.advance(999)  # now 1049: not due yet
    assert pair.take("client") == []
    pair.advance(1)  # now 1050
    assert [(e.kind, e.id) for e in pair.take("client")] == [("timed_out", cid)]
    # The client told the server it gave up.
    assert [e.kind for e in pair.take("server")] == ["cancelled"]
    assert pair.client.poll_timeout() is None


def test_per_request_timeout(pair):
    cid = pair.client.send_request(10, "tools/list", timeout_ms=250)
    assert pair.client.poll_timeout() == 260
    pair.client.handle_timeout(259)
    assert drain(pair.client) == []
    pair.client.handle_timeout(260)
    assert [(e.kind, e.id) for e in drain(pair.client)] == [("timed_out", cid)]


def test_eof_closes_the_session(pair):
    pair.server.handle_eof(5)
    (ev,) = drain(pair.server)
    assert (ev.kind, ev.name) == ("closed", "peer_closed")
    assert ev.text
    assert pair.server.phase == "closed"
    # Later input is ignored.
    feed(pair.server, 6, b'{"jsonrpc":"2.0","id":5,"method":"ping"}\n')
    assert pair.server.poll_transmit() == b""


def test_local_close(pair):
    pair.client.close()
    assert [(e.kind, e.name) for e in drain(pair.client)] == [("closed", "local")]
    assert pair.client.phase == "closed"
    with pytest.raises(SendError):
        pair.client.send_request(0, "tools/list")


def test_malformed_line_then_a_valid_request():
    s = ready_server()
    evs = feed(s, 0, b'{"jsonrpc":"2.0","id":2,"method":\n')
    assert [(e.kind, e.name) for e in evs] == [("peer_violation", "malformed")]
    assert evs[0].text
    (reply,) = lines(s.poll_transmit())
    assert reply["error"]["code"] == -32700
    assert reply["id"] == 2  # an id that could be read is echoed (docs/DESIGN.md)
    evs = feed(s, 0, b"not json at all\n")
    assert [(e.kind, e.name) for e in evs] == [("peer_violation", "malformed")]
    (reply,) = lines(s.poll_transmit())
    assert reply["error"]["code"] == -32700
    assert "id" not in reply  # no readable id: omitted, not null (docs/DESIGN.md)
    assert s.stats["violations"] == 2
    evs = feed(s, 0, b'{"jsonrpc":"2.0","id":"r2","method":"tools/list"}\r\n')
    assert [(e.kind, e.method) for e in evs] == [("request", "tools/list")]
    s.respond(evs[0].id, {"tools": []})
    assert lines(s.poll_transmit()) == [{"jsonrpc": "2.0", "id": "r2", "result": {"tools": []}}]


def test_line_too_long_and_the_session_keeps_working():
    s = ready_server(max_line=256)
    assert s.limits["max_line"] == 256
    long_line = b'{"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":"' + b"a" * 1000 + b'"}}\n'
    evs = feed(s, 0, long_line)
    assert [(e.kind, e.name) for e in evs] == [("peer_violation", "line_too_long")]
    s.poll_transmit()  # whatever error the peer is owed
    evs = feed(s, 0, b'{"jsonrpc":"2.0","id":3,"method":"tools/list"}\n')
    assert [e.kind for e in evs] == ["request"]
    s.respond(evs[0].id, {"tools": []})
    assert lines(s.poll_transmit())[0]["id"] == 3
    assert s.phase == "operating"


def test_ping_is_answered_by_the_session():
    s = ready_server()
    evs = feed(s, 0, b'{"jsonrpc":"2.0","id":7,"method":"ping"}\n')
    assert evs == []
    assert lines(s.poll_transmit()) == [{"jsonrpc": "2.0", "id": 7, "result": {}}]


# ---- chunking invariance ----

STREAM = b"".join([
    INIT.encode() + b"\r\n",
    INITIALIZED.encode() + b"\n",
    b'{"jsonrpc":"2.0","id":2,"method":"tools/list"}\r\n',
    b"this is not json\n",
    b'{"jsonrpc":"2.0","id":"three","method":"tools/call","params":{"name":"echo",'
    b'"arguments":{"text":"h\xc3\xa9"}}}\n',
    b'{"jsonrpc":"2.0","id":4,"method":"ping"}\r\n',
    b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}\n',
    b'{"jsonrpc":"2.0","id":5,"method":"no/such/method"}\n',
    b'[]\n',
    b'{"jsonrpc":"2.0","id":6,"method":"logging/setLevel","params":{"level":"info"}}\n',
    b'{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"cursor":"x"}}\r\n',
])


def run_chunked(chunks, stream_max_line=None) -> tuple:
    """Feeds ``chunks`` to a fresh server; then answers the requests (in order) and ends
    the stream. Returns (every byte sent, repr of every event)."""
    kw = {} if stream_max_line is None else {"max_line": stream_max_line}
    s = Session("server", "srv", "1.0", {"tools": {}, "logging": {}}, inbound_slots=4, **kw)
    out = bytearray()
    events = []
    for chunk in chunks:
        events += feed(s, 0, chunk, out=out)
        out += s.poll_transmit()
    for ev in events:
        if ev.kind == "request":
            s.respond(ev.id, {"tools": [], "echo": ev.params})
    out += s.poll_transmit()
    s.handle_eof(1)
    events += drain(s)
    out += s.poll_transmit()
    return bytes(out), [repr(e) for e in events]


def random_chunks(data: bytes, rng: random.Random, most: int) -> list:
    chunks, pos = [], 0
    while pos < len(data):
        n = rng.randint(1, most)
        chunks.append(data[pos:pos + n])
        pos += n
    return chunks


def test_chunking_invariance():
    whole = run_chunked([STREAM])
    out, events = whole
    # Sanity: the stream did what it was meant to.
    kinds = [e.split(",")[0] for e in events]
    assert kinds.count('Event(kind="request"') == 3
    assert any('name="malformed"' in e for e in events)
    assert events[-1].startswith('Event(kind="closed"')
    replies = lines(out)
    assert [r.get("id") for r in replies] == [1, None, 4, 5, None, 6, 2, "three", 7]
    assert replies[1]["error"]["code"] == -32700

    assert run_chunked([STREAM[i:i + 1] for i in range(len(STREAM))]) == whole
    rng = random.Random(20240601)
    for _ in range(25):
        assert run_chunked(random_chunks(STREAM, rng, 40)) == whole
    # Split right inside every CRLF.
    parts = STREAM.split(b"\r")
    assert run_chunked([p + b"\r" for p in parts[:-1]] + [parts[-1]]) == whole


def test_chunking_invariance_under_back_pressure():
    """Small queues (max_line 256: a 1.5 KB transmit queue) make handle_bytes take fewer
    bytes than offered; re-offering the rest gives the same bytes and events."""
    pings = b"".join(b'{"jsonrpc":"2.0","id":%d,"method":"ping"}\n' % i for i in range(10, 110))
    stream = (INIT.encode() + b"\n" + INITIALIZED.encode() + b"\r\n" + pings
              + b"{oops\n" + b'{"jsonrpc":"2.0","id":"last","method":"tools/list"}\n')
    s = Session("server", "srv", "1.0", {"tools": {}}, max_line=256)
    assert s.handle_bytes(0, stream) < len(stream)  # the queue filled up
    whole = run_chunked([stream], stream_max_line=256)
    replies = lines(whole[0])
    assert [r.get("id") for r in replies] == [1] + list(range(10, 110)) + [None, "last"]
    assert run_chunked([stream[i:i + 1] for i in range(len(stream))], 256) == whole
    rng = random.Random(7)
    for _ in range(10):
        assert run_chunked(random_chunks(stream, rng, 300), 256) == whole


def test_queue_full_when_the_transmit_queue_is_not_written_out():
    s = ready_server(max_line=256)
    with pytest.raises(QueueFull):
        for i in range(1000):
            s.log("error", "message %d" % i)
    sent = lines(s.poll_transmit())
    assert 1 < len(sent) < 1000
    assert s.log("error", "room again") is True


# ---- caller mistakes ----


def test_respond_error_for_an_unknown_id(pair):
    with pytest.raises(RespondError):
        pair.server.respond(123456, {})
    with pytest.raises(RespondError):
        pair.server.respond_error(123456, -32603, "x")


def test_respond_error_for_a_reserved_code(pair):
    _, req = pair.request("tools/list")
    with pytest.raises(RespondError):
        pair.server.respond_error(req.id, -32021, "reserved for the session")
    pair.server.respond(req.id, {"tools": []})  # still open


def test_send_error_for_a_capability_the_peer_did_not_declare():
    # The server declares no prompts: the client may not ask for them.
    p = Pair(client_versions=["2025-11-25"], server_caps={"tools": {}})
    p.handshake()
    with pytest.raises(SendError):
        p.client.send_request(0, "prompts/list")
    with pytest.raises(SendError):
        p.client.send_request(0, "resources/read", {"uri": "x"})
    # The client declares no elicitation: the server may not ask for it.
    with pytest.raises(SendError):
        p.server.send_request(0, "elicitation/create", {"message": "?", "requestedSchema": {}})
    assert p.client.poll_transmit() == b"" and p.server.poll_transmit() == b""


def test_send_error_for_the_wrong_direction(pair):
    with pytest.raises(SendError):
        pair.client.send_request(0, "sampling/createMessage", {"messages": [], "maxTokens": 1})
    with pytest.raises(SendError):
        pair.server.send_request(0, "tools/list")
    with pytest.raises(SendError):
        pair.client.send_notification("notifications/tools/list_changed")


def test_send_error_before_the_handshake():
    c = Session("client", "c", "1", versions=["2025-11-25"])
    with pytest.raises(SendError):
        c.send_request(0, "tools/list")


def test_value_errors(pair):
    _, req = pair.request("tools/list")
    bad = [
        lambda: pair.server.respond(req.id, "{not json"),
        lambda: pair.server.respond(req.id, b"\xff\xfe"),
        lambda: pair.server.respond(req.id, "[1, 2]"),
        lambda: pair.server.respond(req.id, [1, 2]),
        lambda: pair.server.respond(req.id, {"x": float("nan")}),
        lambda: pair.server.respond_error(req.id, -32000, "x", float("inf")),
        lambda: pair.client.send_request(0, "no/such/method"),
        lambda: pair.client.send_request(0, "tools/call", "[]"),
        lambda: pair.client.send_notification("notifications/nope"),
        lambda: pair.server.log("loud", "x"),
        lambda: pair.server.notify("tools/list"),
        lambda: pair.server.notify("notifications/resources/updated"),
    ]
    for i, call in enumerate(bad):
        with pytest.raises(ValueError):
            call()
            pytest.fail("case %d did not raise" % i)
    # None of it finished the request or queued anything.
    assert pair.server.poll_transmit() == b"" and pair.client.poll_transmit() == b""
    pair.server.respond(req.id, {"tools": []})


def test_type_errors_for_the_wrong_python_types(pair):
    with pytest.raises(TypeError):
        pair.server.handle_bytes(0, "text, not bytes")
    with pytest.raises(TypeError):
        pair.server.respond(1, object())


def test_log_levels(pair):
    # No level set yet: everything passes.
    assert pair.server.log("debug", {"n": 1}, "lg") is True
    pair.drive()
    (ev,) = pair.take("client")
    assert ev.kind == "notification" and ev.method == "notifications/message"
    assert ev.params == {"level": "debug", "logger": "lg", "data": {"n": 1}}
    cid, = [pair.client.send_request(0, "logging/setLevel", {"level": "warning"})]
    pair.drive()
    assert [(e.kind, e.id) for e in pair.take("client")] == [("response", cid)]
    assert pair.server.log_level == "warning"
    assert pair.server.log("info", "dropped") is False
    assert pair.server.log("error", "kept") is True


@pytest.mark.parametrize("kwargs", [
    {"role": "peer"},
    {"versions": ["1999-01-01"]},
    {"versions": ["2025-11-25", "2025-13-01"]},
    {"max_line": 0},
])
def test_config_errors(kwargs):
    args = {"role": "server", "name": "s", "version": "1"}
    args.update(kwargs)
    role = args.pop("role")
    with pytest.raises(ConfigError):
        Session(role, args.pop("name"), args.pop("version"), **args)


def test_capabilities_must_be_an_object():
    with pytest.raises(ValueError):
        Session("server", "s", "1", "[1]")
    with pytest.raises(ValueError):
        Session("server", "s", "1", "{bad")
    s = Session("server", "s", "1", '{"tools":{}}')
    assert s.role == "server" and s.phase == "initializing" and s.era == "opening"


def test_repr():
    s = Session("client", "c", "1")
    assert repr(s) == "<picomcp.Session role=client phase=initializing version=->"
    ev = feed(ready_server(), 0, b"{\n")[0]
    assert repr(ev).startswith('Event(kind="peer_violation"')
    assert 'name="malformed"' in repr(ev)
    with pytest.raises(AttributeError):
        ev.kind = "x"



def _modern_call(id_, state=None):
    params = {"name": "deploy"}
    if state is not None:
        params["inputResponses"] = {}
        params["requestState"] = state
    params["_meta"] = {
        "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    return (json.dumps({"jsonrpc": "2.0", "id": id_, "method": "tools/call",
                        "params": params}) + "\n").encode()


def test_sealed_request_state():
    # The core's rule (core/tests/sealed_state.rs): the state goes out sealed, comes back
    # plain, and a tampered one never reaches the host.
    s = Session("server", "s", "1", {"tools": {}}, state_key=b"k" * 32, state_ttl_ms=1000)
    (req,) = feed(s, 0, _modern_call(1))
    s.respond_input_required(req.id, None, "step=1")
    (out,) = lines(s.poll_transmit())
    sealed = out["result"]["requestState"]
    assert sealed.startswith("s1.1000.") and sealed.endswith(".step=1")
    (retry,) = feed(s, 0, _modern_call(2, sealed))
    assert retry.kind == "request" and retry.params["requestState"] == "step=1"
    (bad,) = feed(s, 0, _modern_call(3, sealed.replace("step=1", "step=2")))
    assert bad.kind == "peer_violation"
    (err,) = lines(s.poll_transmit())
    assert err["error"]["code"] == -32602
    with pytest.raises(ConfigError):
        Session("server", "s", "1", state_key=b"short")
