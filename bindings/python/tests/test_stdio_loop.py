"""The stdio loop's own paths, driven with raw JSON lines over a pipe pair: a chunk is fed
to the session in the reader callback; a deadline a handler sets while the loop waits
wakes that wait; a second 2025-03-26 batch waits in its chunk until the first is answered
(the rest of the chunk goes through the loop's coroutine, the reader disarmed);
a call cancelled before a worker thread takes it never runs; a plain def runs on the loop,
and while it holds the loop up the rescue thread serves (picomcp._rescue)."""

from __future__ import annotations

import asyncio
import json
import os
import select
import threading
import time

import pytest

from picomcp import Context, McpError, Server

TIMEOUT = 15


class Raw:
    """A ``Server`` serving a pipe pair in a thread; the test writes and reads lines."""

    def __init__(self, app: Server, version: str = "2025-11-25") -> None:
        self.in_r, self.in_w = os.pipe()
        self.out_r, self.out_w = os.pipe()
        self.result: list = []
        self.buf = b""
        self.seen: list = []
        self.thread = threading.Thread(target=self._serve, args=(app,), daemon=True)
        self.thread.start()
        self.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"}}})
        self.wait_for(1)
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def _serve(self, app: Server) -> None:
        try:
            self.result.append(asyncio.run(app.serve(self.in_r, self.out_w)))
        except BaseException as e:  # reported by close()
            self.result.append(e)

    def send(self, *messages) -> None:
        """Every message in one write (the server reads them as one chunk)."""
        os.write(self.in_w, b"".join(json.dumps(m).encode() + b"\n" for m in messages))

    def wait_for(self, *ids):
        """Reads until an answer to each id arrived (a batch answer counts for its
        members); returns the messages read so far, batches as lists."""
        deadline = time.monotonic() + TIMEOUT
        while True:
            got = set()
            for m in self.seen:
                for one in (m if isinstance(m, list) else [m]):
                    if "method" not in one:
                        got.add(one.get("id"))
            if set(ids) <= got:
                return self.seen
            left = deadline - time.monotonic()
            if left <= 0:
                pytest.fail("no answer to %r; read %r" % (ids, self.seen))
            ready, _, _ = select.select([self.out_r], [], [], left)
            if ready:
                self.buf += os.read(self.out_r, 65536)
                *lines, self.buf = self.buf.split(b"\n")
                self.seen += [json.loads(line) for line in lines if line.strip()]

    def answer(self, rid):
        for m in self.seen:
            for one in (m if isinstance(m, list) else [m]):
                if one.get("id") == rid and "method" not in one:
                    return one
        return None

    def close(self) -> int:
        os.close(self.in_w)
        self.thread.join(TIMEOUT)
        assert not self.thread.is_alive(), "serve() did not return after EOF"
        for fd in (self.in_r, self.out_r, self.out_w):
            os.close(fd)
        (result,) = self.result
        if isinstance(result, BaseException):
            raise result
        return result


def call(rid: int, name: str, arguments: dict | None = None) -> dict:
    return {"jsonrpc": "2.0", "id": rid, "method": "tools/call",
            "params": {"name": name, "arguments": arguments or {}}}


def text(answer: dict) -> str:
    return answer["result"]["content"][0]["text"]


def test_a_deadline_set_while_the_loop_waits_wakes_it():
    # The call arrives in the reader callback; its task asks the client (which never
    # answers) with a 200 ms timeout: the loop, already waiting with no deadline, must be
    # woken to time the question out.
    app = Server("t", "1", log_level="error")

    @app.tool
    async def ask(ctx: Context) -> str:
        try:
            await app.request("ping", timeout_ms=200)
        except McpError as e:
            return "code %d" % e.code
        return "answered"

    raw = Raw(app)
    raw.send(call(2, "ask"))
    raw.wait_for(2)
    assert text(raw.answer(2)) == "code -32001"
    assert any(m.get("method") == "ping" for m in raw.seen if isinstance(m, dict))
    assert raw.close() == 0


def test_a_second_batch_waits_in_the_chunk_until_the_first_is_answered():
    app = Server("t", "1", log_level="error")
    threads = []

    @app.tool
    def slow() -> str:
        threads.append(threading.current_thread().name)
        time.sleep(0.2)
        return "slow"

    @app.tool
    def quick() -> str:
        threads.append(threading.current_thread().name)
        return "quick"

    raw = Raw(app, "2025-03-26")
    # One chunk: a batch of two sync calls, then a second batch, which the session takes
    # only once the first is answered (one batch at a time).
    first = [call(10, "slow"), call(11, "quick")]
    second = [{"jsonrpc": "2.0", "id": 12, "method": "ping"}, call(13, "quick")]
    os.write(raw.in_w, (json.dumps(first) + "\n" + json.dumps(second) + "\n").encode())
    raw.wait_for(10, 11, 12, 13)
    batches = [sorted(a["id"] for a in m) for m in raw.seen if isinstance(m, list)]
    assert batches == [[10, 11], [12, 13]]
    assert text(raw.answer(10)) == "slow" and text(raw.answer(13)) == "quick"
    assert raw.answer(12)["result"] == {}
    raw.send({"jsonrpc": "2.0", "id": 14, "method": "ping"})  # read again after that
    raw.wait_for(14)
    # slow ran on the loop; quick, while slow held it up, in a worker thread (the rescuer
    # took its call).
    assert threads[0] == raw.thread.name
    assert threads[1].startswith("picomcp-handler")
    assert raw.close() == 0


def test_a_call_cancelled_before_a_thread_takes_it_never_runs():
    # One worker thread, held by the first call; the second call waits in the queue and
    # is cancelled there: it never runs and is never answered, and the server goes on.
    app = Server("t", "1", log_level="error", max_workers=1)
    gate = threading.Event()
    ran = []

    @app.tool
    def hold() -> str:
        gate.wait(10)
        return "held"

    @app.tool
    def count() -> str:
        ran.append(1)
        return "counted"

    raw = Raw(app)
    raw.send(call(2, "hold"), call(3, "count"),
             {"jsonrpc": "2.0", "method": "notifications/cancelled",
              "params": {"requestId": 3, "reason": "no longer needed"}},
             {"jsonrpc": "2.0", "id": 4, "method": "ping"})
    raw.wait_for(4)  # answered while hold blocks the only thread
    assert raw.answer(2) is None
    gate.set()
    raw.wait_for(2)
    raw.send({"jsonrpc": "2.0", "id": 5, "method": "ping"})
    raw.wait_for(5)
    assert raw.close() == 0
    assert ran == [] and raw.answer(3) is None and text(raw.answer(2)) == "held"
