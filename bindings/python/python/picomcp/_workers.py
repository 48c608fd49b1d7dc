"""Plain ``def`` handlers in a bounded pool of threads, cheaply.

Calls wait in one queue; at most ``max_workers`` runner threads take them one after
another, and a new runner starts only when every runner is busy in a handler, so a burst
of quick calls is run by one thread without a hand-off per call, while a handler that
blocks never holds up the others (another runner takes them). Finished calls are handed
back to the event loop in batches: one wake-up for however many finished meanwhile.
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import threading
from typing import Any, Callable


class Workers:
    def __init__(self, loop: asyncio.AbstractEventLoop, max_workers: int,
                 deliver: Callable[[list], None]) -> None:
        self._loop = loop
        self._max = max_workers
        self._deliver = deliver  # deliver([(item, ok, value or exception), ...]), on the loop
        self._lock = threading.Lock()
        self._pending: collections.deque = collections.deque()
        self._done: collections.deque = collections.deque()
        self._runners = 0  # runner jobs started and not yet returned
        self._busy = 0     # runners inside a handler
        self._scheduled = False
        self._executor = concurrent.futures.ThreadPoolExecutor(
            max_workers, thread_name_prefix="picomcp-handler")

    def submit(self, item: Any, fn: Callable[[], Any]) -> None:
        with self._lock:
            self._pending.append((item, fn))
            spawn = self._runners == self._busy and self._runners < self._max
            if spawn:
                self._runners += 1
        if spawn:
            self._executor.submit(self._run)

    def _run(self) -> None:
        lock = self._lock
        while True:
            with lock:
                if not self._pending:
                    self._runners -= 1
                    return
                item, fn = self._pending.popleft()
                self._busy += 1
            try:
                out = (item, True, fn())
            except BaseException as e:  # handed to the loop, which answers the request
                out = (item, False, e)
            with lock:
                self._busy -= 1
                self._done.append(out)
                wake = not self._scheduled
                self._scheduled = True
            if wake:
                try:
                    self._loop.call_soon_threadsafe(self._drain)
                except RuntimeError:  # the loop is closed: nobody waits for the answer
                    return

    def _drain(self) -> None:
        with self._lock:
            done = list(self._done)
            self._done.clear()
            self._scheduled = False
        self._deliver(done)

    def shutdown(self) -> None:
        """Stops taking calls; handlers still blocked in a thread cannot be stopped and
        are not waited for."""
        with self._lock:
            self._pending.clear()
        self._executor.shutdown(wait=False, cancel_futures=True)
