"""Shared helpers: a client and a server ``Session`` back to back on a virtual clock.

Run with the venv that ``bindings/python/build.sh`` prints:

    P=$(bindings/python/build.sh | tail -1); $P -m pytest -q bindings/python/tests
"""

from __future__ import annotations

import json

import pytest

from picomcp import ServerLayer, Session
from picomcp._native import Call

SERVER_CAPS = {
    "tools": {"listChanged": True},
    "resources": {"subscribe": True, "listChanged": True},
    "prompts": {},
    "logging": {},
}
CLIENT_CAPS = {"roots": {"listChanged": True}, "sampling": {}}

LEGACY_VERSIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]
MODERN_VERSION = "2026-07-28"
MODERN_META = {"io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
               "io.modelcontextprotocol/clientCapabilities": {}}


def _schema_validator_is_real() -> bool:
    """False while core/src/schema is the stub that checks only ``required`` (until the
    schema branch is merged): a type mismatch then reaches the host."""
    layer = ServerLayer([{"name": "t", "inputSchema": {
        "type": "object", "properties": {"x": {"type": "string"}}}}])
    s = Session("server", "probe", "0", layer.capabilities)
    line = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "t", "arguments": {"x": 1}, "_meta": MODERN_META}}
    s.handle_bytes(0, (json.dumps(line) + "\n").encode())
    while True:
        e = layer.poll_event(s)
        if e is None:
            return True
        if isinstance(e, Call):
            return False


#: Marks a test that needs the core's real JSON Schema validator (type, minimum, ...).
needs_validator = pytest.mark.skipif(
    not _schema_validator_is_real(),
    reason="core/src/schema is the stub (required only) until the schema branch lands")


def lines(data: bytes) -> list:
    """Framed output as parsed JSON messages."""
    return [json.loads(line) for line in data.split(b"\n") if line.strip()]


def drain(session: Session) -> list:
    """Every pending event of ``session``."""
    out = []
    while True:
        ev = session.poll_event()
        if ev is None:
            return out
        out.append(ev)


def feed(session: Session, now: int, data: bytes, on_event=None, out=None) -> list:
    """Feeds all of ``data`` until the session closes, returning the events seen.

    ``on_event`` (if given) is called for each event as it is taken. When the session
    takes fewer bytes (a bounded queue is full), the transmit queue is moved into ``out``
    (a ``bytearray``) and the rest offered again; without ``out`` that is a failure.
    """
    events = []
    data = bytes(data)
    for _ in range(10000):
        taken = session.handle_bytes(now, data)
        data = data[taken:]
        for ev in drain(session):
            events.append(ev)
            if on_event is not None:
                on_event(ev)
        if not data or session.phase == "closed":
            return events  # a closed session takes no more input
        if out is None:
            raise AssertionError("the session is full; pass out= to drain it")
        out += session.poll_transmit()
    raise AssertionError("the session stopped taking bytes")


class Pair:
    """A client and a server connected back to back on a virtual clock (integer ms)."""

    def __init__(self, client_versions=None, server_versions=None, server_caps=None,
                 client_caps=None, client_kw=None, server_kw=None):
        self.now = 0
        self.server = Session(
            "server", "test-server", "1.0.0",
            SERVER_CAPS if server_caps is None else server_caps,
            instructions="be nice", versions=server_versions, now_ms=0,
            **(server_kw or {}))
        self.client = Session(
            "client", "test-client", "1.0.0",
            CLIENT_CAPS if client_caps is None else client_caps,
            versions=client_versions, now_ms=0, **(client_kw or {}))
        self._tx = {"client": bytearray(), "server": bytearray()}
        self.client_events: list = []
        self.server_events: list = []
        # Every message sent: ("C", msg) or ("S", msg).
        self.wire: list = []

    def drive(self) -> None:
        """Moves bytes both ways until neither side sends anything; events are collected
        (not answered)."""
        for _ in range(100):
            c = bytes(self._tx["client"]) + self.client.poll_transmit()
            s = bytes(self._tx["server"]) + self.server.poll_transmit()
            self._tx["client"].clear()
            self._tx["server"].clear()
            if not c and not s:
                return
            self.wire += [("C", m) for m in lines(c)] + [("S", m) for m in lines(s)]
            if c:
                self.server_events += feed(self.server, self.now, c, out=self._tx["server"])
            if s:
                self.client_events += feed(self.client, self.now, s, out=self._tx["client"])
            self.client_events += drain(self.client)
            self.server_events += drain(self.server)
        raise AssertionError("the sessions never went quiet")

    def advance(self, ms: int) -> None:
        """Advances the clock and fires due timeouts on both sides."""
        self.now += ms
        self.client.handle_timeout(self.now)
        self.server.handle_timeout(self.now)
        self.client_events += drain(self.client)
        self.server_events += drain(self.server)
        self.drive()

    def handshake(self) -> None:
        self.drive()
        assert [e.kind for e in self.client_events] == ["negotiated", "ready"], \
            self.client_events
        self.client_events.clear()
        self.server_events.clear()
        self.wire.clear()

    def take(self, side: str) -> list:
        """Takes the collected events of ``"client"`` or ``"server"``."""
        evs = self.client_events if side == "client" else self.server_events
        out = list(evs)
        evs.clear()
        return out

    def request(self, method: str, params=None, **kw):
        """Client sends a request; returns (client id, the server's request event)."""
        cid = self.client.send_request(self.now, method, params, **kw)
        self.drive()
        reqs = [e for e in self.take("server") if e.kind == "request"]
        assert len(reqs) == 1, reqs
        assert reqs[0].method == method
        return cid, reqs[0]


@pytest.fixture
def pair():
    """A legacy pair that completed the handshake at 2025-11-25."""
    p = Pair(client_versions=["2025-11-25"], client_kw={"request_timeout_ms": 1000})
    p.handshake()
    return p
