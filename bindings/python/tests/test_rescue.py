"""Plain ``def`` handlers on the stdio loop, and the rescue thread that serves while one
holds the loop up (``picomcp._rescue``): nothing is lost or reordered whichever thread
reads, and everything is answered while the loop is held."""

from __future__ import annotations

import asyncio
import json
import os
import threading
import time

from picomcp import Context, Server

from test_stdio_loop import Raw, call, text


def _blocking_app(**kw) -> tuple[Server, threading.Event, threading.Event]:
    app = Server("t", "1", log_level="error", **kw)
    gate, started = threading.Event(), threading.Event()

    @app.tool
    def hold() -> str:
        started.set()
        gate.wait(15)
        return "held"

    @app.tool
    def where() -> str:
        return threading.current_thread().name

    @app.tool
    def echo(text: str) -> str:
        return text

    @app.tool
    def cancelled_seen(ctx: Context) -> str:
        deadline = time.monotonic() + 15
        while not ctx.cancelled and time.monotonic() < deadline:
            time.sleep(0.005)
        return "saw the cancel"

    return app, gate, started


def test_input_read_while_the_loop_is_held_is_served_in_order_and_whole():
    # While hold blocks the loop, many writes of pings and calls, some split mid-line and
    # byte by byte: every one is answered once (the rescuer reads and feeds them), and the
    # echo calls answer their own text.
    app, gate, started = _blocking_app()
    raw = Raw(app)
    raw.send(call(2, "hold"))
    assert started.wait(15)
    ids = []
    for i in range(100, 160):
        msg = call(i, "echo", {"text": "t%d" % i}) if i % 2 else \
            {"jsonrpc": "2.0", "id": i, "method": "ping"}
        line = json.dumps(msg).encode() + b"\n"
        if i % 10 == 0:  # byte by byte
            for b in line:
                os.write(raw.in_w, bytes([b]))
        else:
            cut = len(line) // 2
            os.write(raw.in_w, line[:cut])
            os.write(raw.in_w, line[cut:])
        ids.append(i)
    raw.wait_for(*ids)
    assert raw.answer(2) is None  # still held
    for i in ids:
        a = raw.answer(i)
        assert (text(a) == "t%d" % i) if i % 2 else a["result"] == {}
    answered = [m.get("id") for m in raw.seen if isinstance(m, dict) and "method" not in m]
    assert len(answered) == len(set(answered))  # none twice
    gate.set()
    raw.wait_for(2)
    assert text(raw.answer(2)) == "held"
    raw.send(call(3, "where"))  # the loop serves again
    raw.wait_for(3)
    assert raw.close() == 0


def test_a_call_taken_while_the_loop_is_held_runs_in_a_worker_and_sees_its_cancel():
    app, gate, started = _blocking_app()
    raw = Raw(app)
    raw.send(call(2, "hold"))
    assert started.wait(15)
    raw.send(call(3, "where"), call(4, "cancelled_seen"))
    raw.wait_for(3)
    assert text(raw.answer(3)).startswith("picomcp-handler")
    raw.send({"jsonrpc": "2.0", "method": "notifications/cancelled",
              "params": {"requestId": 4}},
             {"jsonrpc": "2.0", "id": 5, "method": "ping"})
    raw.wait_for(5)
    gate.set()
    raw.wait_for(2)
    raw.send({"jsonrpc": "2.0", "id": 6, "method": "ping"})
    raw.wait_for(6)
    assert raw.answer(4) is None  # cancelled: never answered
    assert raw.close() == 0


def test_input_ending_while_the_loop_is_held_ends_serving_once_the_handler_returns():
    app, gate, started = _blocking_app()
    raw = Raw(app)
    raw.send(call(2, "hold"), {"jsonrpc": "2.0", "id": 3, "method": "ping"})
    assert started.wait(15)
    raw.wait_for(3)  # answered by the rescuer
    os.close(raw.in_w)
    raw.in_w = os.open(os.devnull, os.O_WRONLY)  # close() closes this one
    time.sleep(0.05)  # the rescuer reads the end of input meanwhile
    assert raw.thread.is_alive()
    gate.set()
    raw.wait_for(2)  # the held call is still answered
    assert text(raw.answer(2)) == "held"
    assert raw.close() == 0


def test_thread_true_keeps_a_handler_off_the_loop():
    app = Server("t", "1", log_level="error")

    @app.tool(thread=True)
    def pooled() -> str:
        return threading.current_thread().name

    @app.tool
    def plain() -> str:
        return threading.current_thread().name

    raw = Raw(app)
    raw.send(call(2, "pooled"), call(3, "plain"))
    raw.wait_for(2, 3)
    assert text(raw.answer(2)).startswith("picomcp-handler")
    assert text(raw.answer(3)) == raw.thread.name
    assert raw.close() == 0


def test_a_file_on_stdin_keeps_plain_defs_in_worker_threads(tmp_path):
    # A regular file is read by a thread, not polled: no rescue, so plain defs go to the
    # pool as before.
    app = Server("t", "1", log_level="error")

    @app.tool
    def plain() -> str:
        return threading.current_thread().name

    msgs = [{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"}, call(2, "plain")]
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(m) + "\n" for m in msgs))
    out_r, out_w = os.pipe()
    fd = os.open(src, os.O_RDONLY)
    try:
        assert asyncio.run(app.serve(fd, out_w)) == 0
    finally:
        os.close(fd)
        os.close(out_w)
    lines = [json.loads(x) for x in os.read(out_r, 1 << 20).splitlines()]
    os.close(out_r)
    (answer,) = [m for m in lines if m.get("id") == 2]
    assert text(answer).startswith("picomcp-handler")


def test_with_a_coroutine_handler_plain_defs_stay_in_worker_threads():
    # A blocking plain def on the loop would hold up every coroutine, which no rescue can
    # run elsewhere: with an async def registered, plain defs go to the pool.
    app = Server("t", "1", log_level="error")

    @app.tool
    def plain() -> str:
        return threading.current_thread().name

    @app.tool
    async def coro() -> str:
        return threading.current_thread().name

    raw = Raw(app)
    raw.send(call(2, "plain"), call(3, "coro"))
    raw.wait_for(2, 3)
    assert text(raw.answer(2)).startswith("picomcp-handler")
    assert text(raw.answer(3)) == raw.thread.name
    assert raw.close() == 0


def test_with_a_background_task_plain_defs_stay_in_worker_threads():
    app = Server("t", "1", log_level="error")
    ticks = []

    @app.on_startup
    async def ticker(server):
        while True:
            ticks.append(1)
            await asyncio.sleep(0.01)

    @app.tool
    def plain() -> str:
        return threading.current_thread().name

    raw = Raw(app)
    raw.send(call(2, "plain"))
    raw.wait_for(2)
    assert text(raw.answer(2)).startswith("picomcp-handler")
    assert ticks
    assert raw.close() == 0
