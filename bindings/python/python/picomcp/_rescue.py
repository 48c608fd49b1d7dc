"""Plain ``def`` handlers on the event loop, with a thread that keeps serving when one
holds the loop up.

On stdio, in a server with no ``async def`` handler and no background coroutine (nothing
else needs the loop), a plain ``def`` handler runs on the loop's own thread, in the read
that brought its call (as ``inline=True`` does): no hand-off to another thread per call,
and no Python object made on one core and used on another. Handing every call to a worker
thread cost about a third of the CPU a 1 KiB echo takes, most of it in the two threads'
caches (the same work pinned to one core cost no more than running it on the loop).

A handler may block (``time.sleep``, a slow query), and ``ping``, cancellations and other
calls must still be answered meanwhile. ``Rescue`` is a thread that looks at the loop
every ``LOOK_S`` seconds: when the loop has been inside handlers (one, or several of the
same read) for ``LOOK_S``, the rescuer serves in its place until the loop is back: it
reads input, feeds the session, takes its events, gives plain ``def`` calls to the worker
pool (``picomcp._workers``, whose threads answer them), ``inline=True`` calls and the
events that settle the loop's tasks and futures to the loop, writes the output, runs the
session's timeouts and looks at the pool. While a rescue runs, the loop gives its own
remaining calls to the pool too. Input is read and fed under one lock
(``Server._in_lock``), so it reaches the session in order whichever thread reads it.

After ``IDLE_LOOKS`` looks in a row with no handler running, the rescuer sleeps until the
loop runs one again (an idle server is not woken every ``LOOK_S``).
"""

from __future__ import annotations

import select
import threading
import time
from typing import Any

from ._context import _now
from ._workers import LOOK_S

#: Looks with no handler running before the rescuer sleeps until the loop runs one.
IDLE_LOOKS = 100


class Rescue:
    """The rescuer of one ``serve()`` on a polled input descriptor (pipe or socket)."""

    def __init__(self, server: Any, in_fd: int) -> None:
        self._server = server
        self._fd = in_fd
        self._stopped = False
        self._sleeping = False
        self._wakeup = threading.Event()
        self._poller = select.poll()
        self._poller.register(in_fd, select.POLLIN)
        self._thread = threading.Thread(target=self._watch, daemon=True,
                                        name="picomcp-rescue")
        self._thread.start()

    def arm(self) -> None:
        """On the loop, as it starts running handlers: wakes the rescuer if it sleeps."""
        if self._sleeping:
            self._wakeup.set()

    def stop(self) -> None:
        self._stopped = True
        self._wakeup.set()

    def _watch(self) -> None:
        s = self._server
        idle = 0
        while not self._stopped:
            time.sleep(LOOK_S)
            since = s._held_since
            if since is None:
                idle += 1
                if idle >= IDLE_LOOKS:
                    # Announce the sleep, then look again: the loop either sees
                    # _sleeping (and wakes us) or we see its _held_since.
                    self._sleeping = True
                    if s._held_since is None and not self._stopped:
                        self._wakeup.wait()
                    self._wakeup.clear()
                    self._sleeping = False
                    idle = 0
                continue
            idle = 0
            if time.monotonic() - since >= LOOK_S:
                self._rescue()

    def _rescue(self) -> None:
        s = self._server
        s._rescuing = True
        s.diag("debug", "a handler holds the loop up: serving from the rescue thread")
        try:
            while not self._stopped and s._held_since is not None:
                wait = LOOK_S
                due = s.session.poll_timeout()
                if due is not None:
                    wait = min(wait, max(0, due - _now()) / 1000)
                if s._rest or s._eof:
                    time.sleep(wait)  # nothing to read before the session takes the rest
                else:
                    self._poller.poll(wait * 1000)
                try:
                    s._offer_input(self._fd, s._pump_off_loop)
                    due = s.session.poll_timeout()
                    if due is not None and due <= _now():
                        s.session.handle_timeout(_now())
                    # Events the loop's read brought and had not taken, answers it gave
                    # before the handler that holds it up: taken and written out here.
                    s._pump_off_loop()
                    if s._workers is not None:
                        s._workers.look()
                except Exception as e:  # never dies while the loop is held up
                    s.diag("error", "the rescue thread failed: %r" % e)
        finally:
            s._rescuing = False
            try:
                s._loop.call_soon_threadsafe(s._after_rescue)
            except RuntimeError:  # the loop is closed
                pass
