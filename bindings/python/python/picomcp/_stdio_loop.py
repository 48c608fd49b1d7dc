"""The stdio loop of ``Server``: ``run()`` (arguments, stdout protection, ``--http``),
``serve()`` on two file descriptors, and the asyncio loop that reads input into the core
session, takes its calls and events through the core layer (``_pump``), waits for the
session's deadlines and writes its output (``_flush``).

stdin, when it is a pipe or socket, is polled by the event loop, and plain ``def``
handlers run on the loop, a rescue thread serving meanwhile when they hold it up
(``picomcp._rescue``). A regular file or a tty is read by a thread, and plain ``def``
handlers then run in worker threads (``picomcp._workers``). Worker threads answer their
calls and write the answers themselves under ``_out_lock``.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import os
import select
import stat
import sys
import threading
from typing import Callable

from ._context import _now
from ._native import Call, Session
from ._rescue import Rescue
from ._stdio import StdoutGuard
from ._workers import Workers

_LEVELS = ("error", "warn", "info", "debug")


def _ready(fd: int) -> bool:
    """True when reading ``fd`` would not block (data, or the end of input)."""
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    return bool(poller.poll(0))


class _StdioLoop:
    """The serving half of ``Server`` (a mixin): ``run``, ``serve`` and the loop."""

    def run(self, argv: list | None = None) -> int:
        """Serves stdin/stdout until EOF; returns the exit status (also parses
        ``--max-line BYTES`` and ``--log-level LEVEL`` from ``argv``)."""
        argv = sys.argv[1:] if argv is None else argv
        try:
            self._parse_args(argv)
        except ValueError as e:
            sys.stderr.write("%s: %s\nusage: %s [--max-line BYTES] [--log-level %s] "
                             "[--http HOST:PORT]\n"
                             % (self.name, e, self.name, "|".join(_LEVELS)))
            return 2
        if self._http_addr is not None:
            return self._run_http(self._http_addr)
        # While serving, only the protocol writes to the real stdout (picomcp._stdio).
        guard = StdoutGuard()
        out_fd = guard.protect()
        try:
            return asyncio.run(self.serve(0, out_fd))
        finally:
            guard.restore()

    def _parse_args(self, argv: list) -> None:
        it = iter(argv)
        for flag in it:
            name, _, inline = flag.partition("=")
            if name not in ("--max-line", "--log-level", "--http"):
                raise ValueError("unknown argument %s" % flag)
            value = inline or next(it, None)
            if value is None:
                raise ValueError("%s needs a value" % name)
            if name == "--http":
                host, _, port = value.rpartition(":")
                if not host or not port.isdigit():
                    raise ValueError("--http takes HOST:PORT (127.0.0.1:8000)")
                self._http_addr = value
            elif name == "--max-line":
                if not value.isdigit() or not 256 <= int(value) <= 1 << 30:
                    raise ValueError("--max-line must be a number of bytes from 256 to %d"
                                     % (1 << 30))
                self.max_line = int(value)
            else:
                if value not in _LEVELS:
                    raise ValueError("unknown log level %s" % value)
                self.log_level = value

    def _run_http(self, addr: str) -> int:
        """``--http HOST:PORT``: ``asgi()`` served by uvicorn (which must be installed)."""
        try:
            import uvicorn
        except ImportError:
            sys.stderr.write("%s: --http needs uvicorn (pip install uvicorn)\n" % self.name)
            return 2
        host, _, port = addr.rpartition(":")
        host = host.strip("[]")
        self.diag("info", "serving Streamable HTTP on http://%s/mcp" % addr)
        uvicorn.run(self.asgi(auth=self.http_auth), host=host, port=int(port), lifespan="on",
                    access_log=False, log_level="warning",
                    timeout_graceful_shutdown=1)
        return 0

    def diag(self, level: str, message: str) -> None:
        """A diagnostic line on stderr, when ``--log-level`` lets it through."""
        if _LEVELS.index(level) <= _LEVELS.index(self.log_level):
            sys.stderr.write("%s: %s: %s\n" % (self.name, level, message))
            sys.stderr.flush()

    async def serve(self, in_fd: int = 0, out_fd: int = 1) -> int:
        """Serves one connection on the file descriptors ``in_fd``/``out_fd`` (``run()``
        also protects stdout; this does not). Enters the lifespan first."""
        self._loop_thread = threading.get_ident()
        if self.max_workers > 0:
            # Worker threads answer their calls and write the answers themselves.
            self._workers = Workers(asyncio.get_running_loop(), self.max_workers,
                                    answer=self._job_answer, flush=self._job_flush)
        try:
            if self._lifespan is None:
                return await self._serve(in_fd, out_fd)
            async with self._lifespan(self) as value:
                self.lifespan_value = value
                return await self._serve(in_fd, out_fd)
        finally:
            self.lifespan_value = None
            if self._workers is not None:
                self._workers.shutdown()  # handlers blocked in a thread are not waited for
                self._workers = None
            # A thread whose handler returns late must not write to the descriptor, which
            # the caller may close and reuse (a blocked write gives up the lock in time).
            locked = self._out_lock.acquire(timeout=1)
            self._out_fd = -1
            if locked:
                self._out_lock.release()

    async def _serve(self, in_fd: int, out_fd: int) -> int:
        self._out_fd = out_fd
        self.session = Session(
            "server", self.name, self.version, self.capabilities,
            instructions=self.instructions, versions=self.versions,
            max_line=self.max_line, inbound_slots=self.inbound_slots,
            outbound_slots=self.outbound_slots, state_key=self.state_key, now_ms=_now())
        loop = self._loop = asyncio.get_running_loop()
        # A pipe or socket: the callback below reads it. A file or a tty: a thread reads
        # it and puts its chunks here (b"" at the end). For a pipe, ``None`` tells that
        # the callback stopped reading: input ended, or a rest waits (a batch).
        chunks: asyncio.Queue = asyncio.Queue(maxsize=4)
        self._wake = asyncio.Event()
        self._rest, self._eof, self._drained = b"", False, False

        def reader() -> None:
            # A thread for a file or a tty, which the event loop cannot wait for.
            while True:
                try:
                    data = os.read(in_fd, 65536)
                except OSError as e:
                    self.diag("error", "cannot read stdin: %s" % e)
                    data = b""
                asyncio.run_coroutine_threadsafe(chunks.put(data), loop).result()
                if not data:
                    return

        def readable() -> None:
            # A pipe or socket: the loop waits for it and each chunk is read and fed to
            # the session here, in the callback (no task switch, no queue). Only the end
            # of input, or a rest the session cannot take yet (a 2025-03-26 batch still
            # running), goes to the coroutine below, the reader disarmed meanwhile.
            if self._offer_input(in_fd, self._pump):
                self._rewait()  # the requests and answers may have moved the next deadline
                return
            self._stop_reading()

        def stop_reading() -> None:
            loop.remove_reader(in_fd)
            chunks.put_nowait(None)
        self._stop_reading = stop_reading

        background = False
        for fn in self._startup:
            started = fn(self)
            if inspect.isawaitable(started):
                loop.create_task(started)
                background = True
        mode = os.fstat(in_fd).st_mode
        polled = stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)
        # Plain defs run on the loop, rescued when they hold it up (picomcp._rescue),
        # unless the loop has coroutines to run (a background task; async def handlers
        # are seen per call, _run), which a blocking handler would hold up.
        self._inline = polled and self._workers is not None and not background
        if self._inline:
            self._rescue = Rescue(self, in_fd)
        if polled:
            loop.add_reader(in_fd, readable)
        else:
            threading.Thread(target=reader, daemon=True).start()
        self.diag("info", "%s %s on stdio, max line %d bytes"
                  % (self.name, self.version, self.max_line))
        try:
            while True:
                get = loop.create_task(chunks.get())
                while not await self._wait(get):
                    pass
                data = get.result()
                if data is not None:  # a chunk of the reader thread
                    with self._in_lock:
                        self._rest, self._eof = data, not data
                while self._rest:
                    if not self._offer_input(None, self._pump):
                        # The session waits for us (a 2025-03-26 batch whose members are
                        # still running): let the handlers run, then offer the rest again.
                        self._await_jobs = True
                        busy = self._tasks or self._jobs
                        await self._wait(loop.create_future(), None if busy else 0.01)
                        self._await_jobs = False
                    self._rewait()
                if self._eof:
                    self.session.handle_eof(_now())
                    self._pump()
                    break
                if polled:
                    loop.add_reader(in_fd, readable)  # the rest is taken: read the next
        finally:
            self._inline = False
            if self._rescue is not None:
                self._rescue.stop()
                self._rescue = None
        # End of input: work already running still owes its answer.
        self._await_jobs = True
        while self._tasks or self._jobs:
            if self._tasks:
                await asyncio.gather(*list(self._tasks.values()), return_exceptions=True)
            else:  # calls in worker threads: the thread ending the last wakes the loop
                await self._wait(loop.create_future(), 0.1)
        self._await_jobs = False
        self._pump()
        self.diag("info", "end of input; exiting")
        return 0

    async def _wait(self, task: "asyncio.Future", limit: float | None = None) -> bool:
        """Waits for ``task``, a wake-up (a command changed the session's deadlines, or a
        handler finished) or the session's next deadline, whichever comes first (at most
        ``limit`` seconds), and runs the timeouts that are due. True when ``task`` is done."""
        deadline = self._waited = self.session.poll_timeout()
        timeout = None if deadline is None else max(0, deadline - _now()) / 1000
        if limit is not None:
            timeout = limit if timeout is None else min(timeout, limit)
        self._wake.clear()
        waker = asyncio.ensure_future(self._wake.wait())
        try:
            await asyncio.wait({task, waker}, timeout=timeout,
                               return_when=asyncio.FIRST_COMPLETED)
        finally:
            waker.cancel()
        due = self.session.poll_timeout()
        if due is not None and due <= _now():
            self.session.handle_timeout(_now())
            self._pump()
        return task.done()

    def _offer_input(self, fd: int | None, pump: Callable[[], None]) -> bool:
        """Gives the session what was read and not taken yet (``_rest``), after reading
        one chunk from ``fd`` when nothing waits (``fd`` None: no read), calling ``pump``
        to take its calls and events between offers. The read and each offer are made
        under ``_in_lock``: the loop and its rescuer (``picomcp._rescue``) both read, and
        input reaches the session in order. False when input ended or the session took
        nothing of the rest (it waits for the calls of a 2025-03-26 batch; after a
        ``close()`` the rest is dropped)."""
        while True:
            with self._in_lock:
                if not self._rest:
                    if fd is None or self._eof:
                        return not self._eof
                    if (self._rescuing or self._drained) and not _ready(fd):
                        return True  # the other thread read it (stdin blocks)
                    try:
                        data = os.read(fd, 65536)
                    except BlockingIOError:
                        return True
                    except OSError as e:
                        self.diag("error", "cannot read stdin: %s" % e)
                        data = b""
                    fd = None  # one read per offer
                    self._drained = threading.get_ident() != self._loop_thread
                    if not data:
                        self._eof = True
                        return False
                    self._rest = data
                taken = self.session.handle_bytes(_now(), self._rest)
                self._rest = self._rest[taken:]
            pump()
            if self.session.phase == "closed":
                with self._in_lock:
                    self._rest = b""  # closed (session.close()): it takes nothing more
                return True
            if not self._rest:
                return True
            if not taken:
                return False

    def _pump_off_loop(self) -> None:
        """``_pump`` for the rescue thread: plain ``def`` calls go to the worker pool,
        other calls and the events to the loop (``_run``, ``_on_event``), and what is
        queued is written out."""
        while True:
            tables = self._tables()
            item = tables.layer.poll_event(self.session, self._scopes)
            if item is None:
                break
            if isinstance(item, Call):
                self._on_call(tables, item)
            else:
                self._on_event(item)
        self._flush()
        if self._workers is not None:
            self._workers.wake()

    def _after_rescue(self) -> None:
        """On the loop, once the rescuer stopped: the pool's look timer for the calls it
        gave the pool, a new wait (deadlines may have moved), and a rest the session did
        not take, or the end of input, handed to the coroutine."""
        if self._workers is not None:
            self._workers.kick()
        self._wake.set()
        if self._rest or self._eof:
            with contextlib.suppress(ValueError, asyncio.QueueFull):
                self._stop_reading()

    def _rewait(self) -> None:
        """After a command or a chunk fed outside the loop's wait: wakes that wait when the
        session's next deadline is now earlier than the one it waits for (inside
        ``_pump``, once ``_offer_input`` has fed the chunk)."""
        if self._deferred:
            return
        due = self.session.poll_timeout()
        if due is not None and (self._waited is None or due < self._waited):
            self._wake.set()

    def _flush(self, wait: bool = True) -> None:
        """Writes out what the session queued. Under ``_out_lock``: a worker thread may
        write answers meanwhile, and what one takes from the queue goes out whole before
        what the next takes. ``wait=False``: nothing when another thread is writing (it
        takes what is queued once it is done)."""
        if not self._out_lock.acquire(wait):
            return
        try:
            out = self.session.poll_transmit()
            view = memoryview(out)
            while view and self._out_fd >= 0:
                try:
                    n = os.write(self._out_fd, view)
                except BrokenPipeError:
                    self.diag("warn", "the client closed stdout; dropping output")
                    return
                view = view[n:]
        finally:
            self._out_lock.release()


    def _pump(self) -> None:
        """Takes every call and event through the core layer (dispatching calls), then
        writes what is queued (once: the answers given meanwhile are not written one by one;
        a full queue is written out by ``_command``)."""
        self._deferred = True
        try:
            while True:
                tables = self._tables()
                item = tables.layer.poll_event(self.session, self._scopes)
                if item is None:
                    break
                if isinstance(item, Call):
                    self._on_call(tables, item)
                else:
                    self._on_event(item)
        finally:
            self._deferred = False
            self._held_since = None  # the loop is back: no handler holds it up
        self._flush()
        if self._workers is not None:
            self._workers.kick()  # the calls this read queued, to a thread at once

