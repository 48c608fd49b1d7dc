"""``Server.asgi()``: the helper's server over Streamable HTTP, as an ASGI 3 application.

The adapter carries no protocol logic. The core's ``Endpoint`` takes every request and
says what to do (answer now, hand the body to the session of a slot, serve a stream);
each slot of its pool holds one ``Session`` and one copy of the helper's per-connection
state (``_Slot``: running handlers, questions to the client), exactly what ``run()``
drives on stdio. The adapter reads bodies, writes heads and body bytes as the endpoint
gives them, wakes waiting streams whenever a session's output is collected, and keeps one
timer task for the endpoint's deadlines (session expiry, SSE keep-alives) and the
sessions' own.

One event loop serves everything (handlers in worker threads hand their answers back to
it), so no lock is needed around the endpoint.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import os
import threading
from typing import TYPE_CHECKING, Any

from ._context import McpError, _now
from ._native import ENTROPY_LEN, Endpoint, Session
from ._workers import Workers

if TYPE_CHECKING:
    from .server import Server

_SERVICE_UNAVAILABLE = {"type": "http.response.start", "status": 503,
                        "headers": [(b"content-length", b"0")]}
_EMPTY_END = {"type": "http.response.body", "body": b"", "more_body": False}


def _slot_class() -> type:
    from .server import Server

    class _Slot(Server):
        """One session of the HTTP pool: the application's registries, core layer and
        settings (shared, a shallow copy) with per-connection state of its own. Its
        output goes to the endpoint's streams instead of a file descriptor."""

        _adapter: "Asgi"
        _index: int

        def _rewait(self) -> None:
            if self._wake is not None:  # the adapter's timer task recomputes its deadlines
                self._wake.set()

        def _flush(self) -> None:
            adapter = self._adapter
            if adapter.slots[self._index] is self:
                adapter.endpoint.collect(_now(), self._index, self.session)
                adapter.changed()
            else:  # retired: the slot serves another session now; nobody reads this
                self.session.poll_transmit()

    return _Slot


class Asgi:
    """The ASGI application of ``Server.asgi()``; see the module docs."""

    def __init__(self, app: "Server", path: str = "/mcp", auth: dict | None = None,
                 **endpoint: Any) -> None:
        self.app = app
        endpoint.setdefault("max_body", app.max_line)
        endpoint.setdefault("versions", app.versions)
        #: ``auth``'s verifier (the rest is the core endpoint's configuration).
        self._verifier = None
        if auth is not None:
            auth = dict(auth)
            self._verifier = auth.pop("verifier", None)
            if not callable(self._verifier):
                raise TypeError("asgi(auth=...): `verifier` must be a callable")
            endpoint["auth"] = auth
        #: The core endpoint (its keyword arguments are ``Endpoint``'s).
        self.endpoint = Endpoint(path=path, **endpoint)
        self._max_body: int = endpoint["max_body"]
        self.slots: list = [None] * self.endpoint.slot_count
        self._slot_type = _slot_class()
        self._started = False
        self._starting: asyncio.Future | None = None
        self._stack: contextlib.AsyncExitStack | None = None
        self._background: list = []
        self._wake: asyncio.Event | None = None  # the timer task's
        self._changed: asyncio.Event | None = None  # replaced at every change
        self._capabilities: dict | None = None
        self._tools_of: Any = None  # the tables whose tools the endpoint checks

    # ---- ASGI ----

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        kind = scope["type"]
        if kind == "http":
            if not self._started:
                await self._start(lifespan=True)
            await self._request(scope, receive, send)
        elif kind == "lifespan":
            await self._lifespan(receive, send)
        # Anything else (websocket) is not served: returning closes it.

    async def _lifespan(self, receive: Any, send: Any) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                try:
                    await self._start(lifespan=True)
                except Exception as e:
                    await send({"type": "lifespan.startup.failed", "message": repr(e)})
                    return
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                try:
                    await self.stop()
                except Exception as e:
                    await send({"type": "lifespan.shutdown.failed", "message": repr(e)})
                    return
                await send({"type": "lifespan.shutdown.complete"})
                return

    # ---- start and stop ----

    async def _start(self, lifespan: bool) -> None:
        """Enters the application's lifespan, starts the worker threads, the timer task
        and the ``on_startup`` hooks (once: at ASGI lifespan startup, or at the first
        request when the server gives no lifespan events, as a mounted app gets none)."""
        if self._started:
            return
        if self._starting is not None:
            await asyncio.shield(self._starting)
            return
        loop = asyncio.get_running_loop()
        self._starting = loop.create_future()
        app = self.app
        try:
            app._loop = loop
            app._loop_thread = threading.get_ident()
            app._http = self
            app._inline = False  # plain defs in worker threads (the loop owns the output)
            self._wake = asyncio.Event()
            self._changed = asyncio.Event()
            self._capabilities = app.capabilities
            if app.max_workers > 0:
                app._workers = Workers(loop, app.max_workers, self._jobs_done)
            self._stack = contextlib.AsyncExitStack()
            if lifespan and app._lifespan is not None:
                app.lifespan_value = await self._stack.enter_async_context(app._lifespan(app))
            self._background.append(loop.create_task(self._timers()))
            for fn in app._startup:
                started = fn(app)
                if inspect.isawaitable(started):
                    self._background.append(loop.create_task(started))
            app.diag("info", "%s %s on Streamable HTTP" % (app.name, app.version))
            self._started = True
        finally:
            self._starting.set_result(None)
            self._starting = None

    async def stop(self) -> None:
        """Ends every session's work, the timer task and the hooks, and leaves the
        application's lifespan."""
        if not self._started:
            return
        self._started = False
        for i in range(len(self.slots)):
            self._retire(i)
        for task in self._background:
            task.cancel()
        await asyncio.gather(*self._background, return_exceptions=True)
        self._background.clear()
        app = self.app
        if app._workers is not None:
            app._workers.shutdown()
            app._workers = None
        if self._stack is not None:
            await self._stack.aclose()
            self._stack = None
        app.lifespan_value = None
        app._http = None

    # ---- the pool ----

    def _fresh(self, index: int, now: int) -> Any:
        """A new session (and helper state) in slot ``index``."""
        self._retire(index)
        app = self.app
        slot = object.__new__(self._slot_type)
        slot.__dict__.update(app.__dict__)
        slot._http = None
        slot._adapter = self
        slot._index = index
        slot._tasks, slot._contexts, slot._asks, slot._jobs = {}, {}, {}, {}
        slot._deferred = False
        slot._wake = self._wake
        slot._startup = []
        slot.session = Session(
            "server", app.name, app.version, self._capabilities,
            instructions=app.instructions, versions=app.versions, max_line=app.max_line,
            inbound_slots=app.inbound_slots, outbound_slots=app.outbound_slots,
            state_key=app.state_key, now_ms=now)
        self.slots[index] = slot
        return slot

    def _retire(self, index: int) -> None:
        """The slot's session ended (deleted, expired, evicted, its request over): its
        handlers are cancelled and its questions to the client fail."""
        slot = self.slots[index]
        if slot is None:
            return
        self.slots[index] = None
        for ctx in list(slot._contexts.values()) + list(slot._jobs.values()):
            ctx._cancelled = True
        for task in slot._tasks.values():
            task.cancel()
        for fut in slot._asks.values():
            if not fut.done():
                fut.set_exception(McpError(-32000, "session ended"))
        slot._asks.clear()

    def _jobs_done(self, done: list) -> None:
        """Answers from worker threads, handed to the slot each came from."""
        by_slot: dict = {}
        for item in done:
            server = item[0][0]._server
            by_slot.setdefault(id(server), (server, []))[1].append(item)
        for server, items in by_slot.values():
            server._jobs_done(items)

    def changed(self) -> None:
        """Output was collected: every waiting stream polls again."""
        event = self._changed
        if event is not None:
            self._changed = asyncio.Event()
            event.set()

    def notify(self, change: str, uri: str | None) -> int:
        """``Server.notify`` over HTTP: every live session decides for itself."""
        total = 0
        for i, slot in enumerate(self.slots):
            if slot is not None and self.endpoint.slot_in_use(i):
                try:
                    total += slot._command(slot.session.notify, change, uri)
                except Exception as e:  # a session not operating yet, say
                    slot.diag("debug", "notify: %s" % e)
        return total

    def is_subscribed(self, uri: str) -> bool:
        return any(slot is not None and self.endpoint.slot_in_use(i)
                   and slot.session.is_subscribed(uri) for i, slot in enumerate(self.slots))

    async def _timers(self) -> None:
        """The endpoint's deadlines and every session's, in one task."""
        ep = self.endpoint
        wake = self._wake
        assert wake is not None
        while True:
            now = _now()
            due = ep.poll_timeout()
            if due is not None and due <= now:
                ep.handle_timeout(now)
                self.changed()
            nxt = ep.poll_timeout()
            for i, slot in enumerate(self.slots):
                if slot is None:
                    continue
                if not ep.slot_in_use(i):
                    self._retire(i)
                    continue
                t = slot.session.poll_timeout()
                if t is not None and t <= now:
                    slot.session.handle_timeout(now)
                    slot._pump()
                    t = slot.session.poll_timeout()
                if t is not None:
                    nxt = t if nxt is None else min(nxt, t)
            wait = None if nxt is None else max(0, nxt - _now()) / 1000
            wake.clear()
            try:
                await asyncio.wait_for(wake.wait(), wait)
            except asyncio.TimeoutError:
                pass

    # ---- one request ----

    async def _request(self, scope: dict, receive: Any, send: Any) -> None:
        limit = self._max_body
        chunks = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            if size <= limit:  # beyond the limit: enough to be refused (413)
                chunks.append(chunk)
            size += len(chunk)
            if not message.get("more_body"):
                break
        body = b"".join(chunks)
        path = scope.get("path") or "/"
        root = scope.get("root_path") or ""
        if root and path.startswith(root):
            path = path[len(root):] or "/"
        query = scope.get("query_string") or b""
        target = path + "?" + query.decode("latin-1") if query else path
        headers = [(name, value) for name, value in scope.get("headers") or ()]
        ep = self.endpoint
        tables = self.app._tables()
        if tables is not self._tools_of:
            # The tools' x-mcp-header annotations: the endpoint checks their
            # Mcp-Param-* headers (again after a registration changed the tables).
            ep.set_tools(tables.layer)
            self._tools_of = tables
        now = _now()
        if self._verifier is None:
            out = ep.handle_request(now, scope["method"], target, headers, body,
                                    os.urandom(ENTROPY_LEN))
        else:
            out = ep.handle_request(now, scope["method"], target, headers, body,
                                    os.urandom(ENTROPY_LEN), verifier=self._verifier,
                                    layer=tables.layer)
        kind = out.kind
        if kind == "respond":
            await send({"type": "http.response.start", "status": out.status,
                        "headers": out.headers})
            await send({"type": "http.response.body", "body": out.body})
            return
        stream = out.stream
        if kind == "deliver":
            index = out.slot
            slot = self.slots[index]
            if out.fresh or slot is None:
                slot = self._fresh(index, now)
            principal = out.principal
            slot._principal = principal
            slot._scopes = None if principal is None else principal["scopes"]
            if self._verifier is not None and principal is None:
                slot._scopes = []  # fail closed: nothing scoped without a principal
            if not self._deliver(slot, body):
                if stream is not None:
                    ep.detach(stream)
                await send(_SERVICE_UNAVAILABLE)
                await send(_EMPTY_END)
                return
            if stream is None:
                await send({"type": "http.response.start", "status": out.status,
                            "headers": out.headers})
                await send(_EMPTY_END)
                return
        await self._serve(stream, receive, send)

    @staticmethod
    def _deliver(slot: Any, body: bytes) -> bool:
        """Hands the body to the slot's session and runs the helper on it; False when the
        session stays busy."""
        for _ in range(2):
            if slot.session.handle_message(_now(), body):
                slot._pump()  # dispatches the calls; collects the output
                return True
            slot._pump()
        return False

    async def _serve(self, stream: int, receive: Any, send: Any) -> None:
        """Writes the stream's head and body bytes as the endpoint gives them, until it
        ends or the client goes."""
        ep = self.endpoint
        gone: asyncio.Task | None = None
        started = False
        try:
            while True:
                kind, value = ep.poll_response(_now(), stream)
                if kind == "body":
                    ep.advance(stream, len(value))
                    await send({"type": "http.response.body", "body": value,
                                "more_body": True})
                elif kind == "head":
                    status, headers = value
                    await send({"type": "http.response.start", "status": status,
                                "headers": headers})
                    started = True
                elif kind == "end":
                    if not started:  # ended before anything was decided (session gone)
                        await send(_SERVICE_UNAVAILABLE)
                    await send(_EMPTY_END)
                    return
                else:
                    if gone is None:
                        gone = asyncio.ensure_future(self._disconnected(receive))
                    changed = self._changed
                    assert changed is not None
                    waiter = asyncio.ensure_future(changed.wait())
                    await asyncio.wait({waiter, gone}, return_when=asyncio.FIRST_COMPLETED)
                    waiter.cancel()
                    if gone.done():
                        ep.detach(stream)
                        if self._wake is not None:
                            self._wake.set()  # a slot may be free now
                        return
        except BaseException:
            ep.detach(stream)  # the client went away mid-write, or we were cancelled
            if self._wake is not None:
                self._wake.set()
            raise
        finally:
            if gone is not None:
                gone.cancel()

    @staticmethod
    async def _disconnected(receive: Any) -> None:
        while (await receive())["type"] != "http.disconnect":
            pass
