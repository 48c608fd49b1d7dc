"""Plain ``def`` handlers in a bounded pool of threads, cheaply.

Calls wait in one queue served by at most ``max_workers`` daemon threads. The event loop
appends every call of a read to the queue (a ``deque``: no lock) and then wakes one thread
(``kick``): one hand-off per read, not per call. A thread runs queued calls until the queue
is empty. A new thread starts only when every thread is inside a handler, so a burst of
quick calls is run by one thread, while a handler that blocks never holds up the others
(another thread takes them). The threads are daemons: a handler still blocked when the
server exits does not keep the process alive.

What happens to a finished call depends on how the server writes its output:

- ``answer`` given (stdio, whose output a thread may write): the thread answers the call
  itself (``answer(item, ok, value)``) and writes out the answers at once
  (``flush(True)``) when the queue is empty or ``FLUSH_EVERY`` are waiting (the loop may
  keep the queue full), with no trip through the event loop. While
  threads work, the loop looks at the pool every ``LOOK_S`` seconds (a timer of its own,
  no wake-up from the threads): it writes out the answers given so far (``flush(False)``:
  unless a thread is writing) and, when calls wait and no call ended since the last
  look, wakes or starts another thread. So a handler that blocks holds up neither the
  answers given before it nor the calls queued after it for long.
- otherwise (HTTP, whose output belongs to the loop): finished calls go back to the event
  loop in batches, ``deliver([(item, ok, value or exception), ...])``: one wake-up for
  however many finished meanwhile.
"""

from __future__ import annotations

import asyncio
import collections
import threading
from typing import Any, Callable


class _Thread:
    """One worker thread's state, read by the loop without a lock (attribute writes are
    atomic under the GIL)."""

    __slots__ = ("busy",)

    def __init__(self) -> None:
        self.busy = False  # inside a handler


#: How often the loop looks at a pool at work (seconds).
LOOK_S = 0.01
#: A thread writes out its answers at least every so many calls.
FLUSH_EVERY = 32


class Workers:
    def __init__(self, loop: asyncio.AbstractEventLoop, max_workers: int,
                 deliver: Callable[[list], None] | None = None, *,
                 answer: Callable[[Any, bool, Any], None] | None = None,
                 flush: Callable[[bool], None] | None = None) -> None:
        self._loop = loop
        self._max = max_workers
        self._deliver = deliver  # deliver([(item, ok, value or exception), ...]), on the loop
        self._answer = answer    # answer(item, ok, value), on the worker thread
        self._flush = flush      # writes out the answers given (flush(wait for the writer))
        self._cond = threading.Condition(threading.Lock())
        self._pending: collections.deque = collections.deque()
        self._done: collections.deque = collections.deque()
        self._threads: list[_Thread] = []  # started and not stopped
        self._idle = 0     # waiting for work
        self._scheduled = False  # a drain is on its way (deliver)
        self._stopped = False
        self._look_armed = False  # the loop's look timer (answer)
        self._ended = 0  # calls ended (answer), approximate: only compared between looks
        self._ended_seen = 0

    def submit(self, item: Any, fn: Callable[[], Any]) -> None:
        """Queues a call; ``kick()`` hands the queue to a thread (once per read). ``item``
        is ``(ctx, ...)``: ``fn`` is not run when ``ctx._cancelled`` is set by the time a
        thread takes it (the outcome is then ``None``)."""
        self._pending.append((item, fn))

    def kick(self) -> None:
        """On the loop: wakes a thread for the queued calls: an idle one, or a new one
        when every thread is inside a handler (and the pool has room)."""
        if not self._pending:
            return
        if self._answer is not None and not self._look_armed:
            self._look_armed = True
            self._loop.call_later(LOOK_S, self._look)
        self._wake_one()

    def wake(self) -> None:
        """From any thread (the stdio loop's rescuer, ``picomcp._rescue``): ``kick`` without
        arming the loop's look timer; the caller looks (``look``) while the loop cannot."""
        if self._pending:
            self._wake_one()

    def _wake_one(self) -> None:
        with self._cond:
            if self._idle:
                self._cond.notify()
                return
            threads = self._threads
            if len(threads) >= self._max or not all(t.busy for t in threads):
                return  # a thread not in a handler takes the queue before it waits
            me = _Thread()
            threads.append(me)
        threading.Thread(target=self._run, args=(me,), daemon=True,
                         name="picomcp-handler-%d" % len(threads)).start()

    def _run(self, me: _Thread) -> None:
        cond, pending = self._cond, self._pending
        direct = self._answer is not None
        unflushed = 0
        while True:
            with cond:
                while not pending and not self._stopped:
                    self._idle += 1
                    cond.wait()
                    self._idle -= 1
                if self._stopped:
                    self._threads.remove(me)
                    return
            while True:
                try:
                    item, fn = pending.popleft()
                except IndexError:
                    break
                if item[0]._cancelled:  # cancelled before it started: never run
                    out = (item, True, None)
                else:
                    me.busy = True
                    try:
                        out = (item, True, fn())
                    except BaseException as e:  # answered as the failure it is
                        out = (item, False, e)
                    me.busy = False
                if direct:
                    if self._stopped:
                        break  # the server stopped serving: nobody reads the answer
                    self._answer(*out)  # type: ignore[misc]
                    self._ended += 1
                    unflushed += 1
                    if unflushed >= FLUSH_EVERY:
                        unflushed = 0
                        self._flush(True)  # type: ignore[misc]
                else:
                    with cond:
                        self._done.append(out)
                        wake = not self._scheduled
                        self._scheduled = True
                    if wake:
                        self._call_loop(self._drain)
            if direct and not self._stopped:
                unflushed = 0
                self._flush(True)  # type: ignore[misc]

    def _call_loop(self, fn: Callable[[], None]) -> None:
        try:
            self._loop.call_soon_threadsafe(fn)
        except RuntimeError:  # the loop is closed: nobody waits for the answer
            pass

    def _look(self) -> None:
        """On the loop, every ``LOOK_S`` while threads work: ``look``."""
        self._look_armed = False
        if not self._stopped and self.look():
            self._look_armed = True
            self._loop.call_later(LOOK_S, self._look)

    def look(self) -> bool:
        """Writes out the answers given so far, and when calls wait and none ended since
        the last look (the threads are blocked in handlers), wakes an idle thread or
        starts one. True while there is work to look at again."""
        self._flush(False)  # type: ignore[misc]
        ended = self._ended
        stuck = ended == self._ended_seen
        self._ended_seen = ended
        if self._pending and stuck:
            self._wake_one()
        return bool(self._pending) or any(t.busy for t in self._threads)

    def _drain(self) -> None:
        with self._cond:
            done = list(self._done)
            self._done.clear()
            self._scheduled = False
        self._deliver(done)  # type: ignore[misc]

    def shutdown(self) -> None:
        """Stops the threads once their handler returns; calls not started are dropped,
        and so are the answers of calls still running."""
        with self._cond:
            self._stopped = True
            self._pending.clear()
            self._cond.notify_all()
