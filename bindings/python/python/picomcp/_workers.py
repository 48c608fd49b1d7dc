"""Plain ``def`` handlers in a bounded pool of threads, cheaply.

Calls wait in one queue served by at most ``max_workers`` daemon threads. A new thread
starts only when every thread is inside a handler, so a burst of quick calls is run by
one thread without a hand-off per call, while a handler that blocks never holds up the
others (another thread takes them). Finished calls go back to the event loop in batches:
one wake-up for however many finished meanwhile. The threads are daemons: a handler still
blocked when the server exits does not keep the process alive.
"""

from __future__ import annotations

import asyncio
import collections
import threading
from typing import Any, Callable


class Workers:
    def __init__(self, loop: asyncio.AbstractEventLoop, max_workers: int,
                 deliver: Callable[[list], None]) -> None:
        self._loop = loop
        self._max = max_workers
        self._deliver = deliver  # deliver([(item, ok, value or exception), ...]), on the loop
        self._cond = threading.Condition(threading.Lock())
        self._pending: collections.deque = collections.deque()
        self._done: collections.deque = collections.deque()
        self._threads = 0  # started and not stopped
        self._busy = 0     # inside a handler
        self._idle = 0     # waiting for work
        self._scheduled = False
        self._stopped = False

    def submit(self, item: Any, fn: Callable[[], Any]) -> None:
        with self._cond:
            self._pending.append((item, fn))
            if self._threads == self._busy and self._threads < self._max:
                self._threads += 1
                spawn = True
            else:
                spawn = False
                if self._idle:
                    self._cond.notify()
        if spawn:
            threading.Thread(target=self._run, name="picomcp-handler-%d" % self._threads,
                             daemon=True).start()

    def _run(self) -> None:
        cond = self._cond
        while True:
            with cond:
                while not self._pending and not self._stopped:
                    self._idle += 1
                    cond.wait()
                    self._idle -= 1
                if self._stopped:
                    self._threads -= 1
                    return
                item, fn = self._pending.popleft()
                self._busy += 1
            try:
                out = (item, True, fn())
            except BaseException as e:  # handed to the loop, which answers the request
                out = (item, False, e)
            with cond:
                self._busy -= 1
                self._done.append(out)
                wake = not self._scheduled
                self._scheduled = True
            if wake:
                try:
                    self._loop.call_soon_threadsafe(self._drain)
                except RuntimeError:  # the loop is closed: nobody waits for the answer
                    pass

    def _drain(self) -> None:
        with self._cond:
            done = list(self._done)
            self._done.clear()
            self._scheduled = False
        self._deliver(done)

    def shutdown(self) -> None:
        """Stops the threads once their handler returns; calls not started are dropped."""
        with self._cond:
            self._stopped = True
            self._pending.clear()
            self._cond.notify_all()
