"""A stdio MCP server in a few lines, on top of the core ``Session`` and server layer.

The helper only *calls* the core: framing, JSON-RPC, the lifecycle of both eras,
capability checks, ``ping``, ``logging/setLevel``, subscriptions and cancellation
bookkeeping stay in the ``Session``; the tool/resource/prompt tables, their lists (pages,
cursors, the fields of the negotiated revision), argument validation against each tool's
``inputSchema``, resource-template matching, required prompt arguments and the shape of
every result (structured content checked against the ``outputSchema`` and also written as
text) stay in the core server layer (``picomcp.ServerLayer``). What the helper adds is the
handler callables, their async dispatch and the conversion of their return values, and an
asyncio loop that reads stdin, runs handlers (plain or ``async def``) and writes stdout.

Handlers are typed functions (the documented way)::

    @app.tool
    def add(a: int, b: int = 1) -> int:
        "Adds two numbers."
        return a + b

The ``inputSchema`` comes from the signature and docstring (``picomcp._schema``), checked
arguments are converted to the declared types, a parameter annotated ``Context`` is
injected, and the return value is converted by ``picomcp._results``. A typed tool that
raises answers ``isError: true`` with the exception's message (the traceback goes to
stderr through ``logging``). On stdio a plain ``def`` handler runs on the loop's thread,
and when handlers hold the loop up a rescue thread keeps answering ``ping``,
cancellations and the calls after them (``picomcp._rescue``), which go to a bounded
thread pool (``max_workers``, ``picomcp._workers``) whose threads answer them and write
the answers themselves. ``async def`` handlers run on the loop.

The older style, ``fn(args, ctx)`` with an explicit ``input_schema``, still works:

- a tool returns a ``str`` (one text block), a ``list`` of content blocks, a ``dict`` of
  structured content (checked against its ``outputSchema``, also sent as JSON text), or a
  whole result ``dict`` (one with ``content`` or ``structuredContent``); it raises
  ``ToolError`` for a failed call (``isError: true``) or ``McpError`` for a JSON-RPC
  error. Arguments it did not get whose schema property has a ``default`` arrive filled in;
- a resource returns ``str`` (text), ``bytes`` (a base64 blob) or a list of contents;
- a prompt returns a ``list`` of messages or a result ``dict`` with ``messages``.

An ``async def`` handler runs as its own task: a ``notifications/cancelled`` from the
client cancels that task, and nothing more is sent for the request.

stdout carries protocol messages only; diagnostics go to stderr.

``Server`` is put together from three parts: ``picomcp._registration`` (the decorators
and the core layer built from them), ``picomcp._stdio_loop`` (``run``, ``serve`` and the
asyncio loop) and ``picomcp._dispatch`` (handlers, worker threads, answers, errors).
"""

from __future__ import annotations

import asyncio
import os
import sys
import threading
from typing import Any, Callable

from ._context import Context, McpError, ResourceNotFound, ToolError, _now
from ._defs import _Prompt, _Resource, _Tool
from ._dispatch import _Dispatch, logger  # noqa: F401  (picomcp.server.logger)
from ._native import Session
from ._registration import _Registration, _Tables
from ._stdio_loop import _LEVELS, _StdioLoop
from ._workers import Workers

__all__ = ["Context", "McpError", "ResourceNotFound", "Server", "ToolError"]


class Server(_Registration, _StdioLoop, _Dispatch):
    """An MCP server: register tools, resources and prompts, then ``run()`` on stdio.

    Capabilities come from the core server layer, from what is registered (``tools``,
    ``resources``, ``prompts``, each with ``listChanged``; ``resources.subscribe``;
    ``logging``; ``completions`` when a completion handler exists), so the server never
    declares something it does not implement. Both eras are served on one connection.
    """

    def __init__(self, name: str, version: str, *, instructions: str | None = None,
                 versions: list | None = None, max_line: int = 1 << 20,
                 logging: bool = True, inbound_slots: int = 64, outbound_slots: int = 16,
                 log_level: str = "warn", max_workers: int = 8, page_size: int = 100,
                 hide_errors: bool = False, state_key: bytes | None = None) -> None:
        self.name = name
        self.version = version
        self.instructions = instructions
        self.versions = versions
        self.max_line = max_line
        self.logging = logging
        self.inbound_slots = inbound_slots
        self.outbound_slots = outbound_slots
        self.log_level = log_level
        #: Threads for plain ``def`` handlers (0: run them on the event loop).
        self.max_workers = max_workers
        #: Items per page of the ``*/list`` answers (the core pages them).
        self.page_size = page_size
        #: When true, a tool that raises answers "Internal error" without its message.
        self.hide_errors = hide_errors
        #: The key that seals the 2026-07-28 ``requestState`` of ``ctx.ask`` (at least 16
        #: bytes; default 32 random bytes drawn now). Processes that serve one client
        #: behind a load balancer must share it: a retry may reach another process.
        self.state_key: bytes = os.urandom(32) if state_key is None else bytes(state_key)
        self.lifespan_value: Any = None
        self._lifespan: Callable | None = None
        self._workers: Workers | None = None
        self._jobs: dict[int, Context] = {}  # calls given to a worker thread
        self._deferred = False  # inside _pump: one write for every answer
        #: stdio on a pipe or socket: plain ``def`` handlers run on the loop, and since
        #: when (``time.monotonic()``) the loop runs them, for the rescuer, which serves
        #: while they hold the loop up (``picomcp._rescue``).
        self._inline = False
        #: An ``async def`` handler is registered: plain defs stay in the pool, so that
        #: a blocking one never holds up a coroutine.
        self._coroutines = False
        self._held_since: float | None = None
        self._rescue: Any = None
        self._rescuing = False
        #: Reading input and offering it to the session (the loop and the rescuer).
        self._in_lock = threading.Lock()
        self._rest = b""  # read and not taken by the session yet
        self._eof = False
        self._drained = False  # the rescuer read: the loop checks before it reads
        self._loop: Any = None
        #: Taken to write output: worker threads answering stdio calls write it too.
        self._out_lock = threading.Lock()
        #: The loop waits for calls in worker threads to end: the thread that ends the
        #: last one wakes it (otherwise threads never wake the loop for their answers).
        self._await_jobs = False
        #: The session deadline the loop waits for (``_rewait``).
        self._waited: int | None = None
        self._loop_thread = threading.get_ident()
        self.tools: dict[str, _Tool] = {}
        self.resources: dict[str, _Resource] = {}
        self.templates: list[_Resource] = []
        self.prompts: dict[str, _Prompt] = {}
        self.session: Session = None  # type: ignore[assignment]  # set by run()
        self._tasks: dict[int, asyncio.Task] = {}
        self._contexts: dict[int, Context] = {}
        self._asks: dict[int, asyncio.Future] = {}
        self._startup: list[Callable] = []
        self._out_fd = 1
        self._built: _Tables | None = None  # the core layer, rebuilt after a registration
        self._http: Any = None  # the ASGI adapter while serving HTTP (picomcp._asgi)
        #: The verified caller of the request being delivered (HTTP with auth), and its
        #: granted scopes for the core layer (``None``: everything).
        self._principal: dict | None = None
        self._scopes: list | None = None
        #: ``asgi(auth=...)`` for ``run()``'s ``--http`` (``None``: no authorization).
        self.http_auth: dict | None = None
        self._http_addr: str | None = None  # run(["--http", "HOST:PORT"])

    # ---- things the application may do while serving ----

    def notify(self, change: str, uri: str | None = None) -> int:
        """Announces a change (``"notifications/tools/list_changed"``, ...,
        ``"notifications/resources/updated"`` with ``uri``) to whoever asked for it.
        Returns how many were sent; from a worker thread it is handed to the loop and
        returns 1. Over HTTP, every session is told (each decides whether it was asked)."""
        http = self._http
        if http is not None:
            if threading.get_ident() == self._loop_thread:
                return http.notify(change, uri)
            self._loop.call_soon_threadsafe(http.notify, change, uri)
            return 1
        return self._on_loop_command(self._serving().notify, change, uri)

    def is_subscribed(self, uri: str) -> bool:
        """True when the client (over HTTP: any session) subscribed to ``uri``."""
        if self._http is not None:
            return self._http.is_subscribed(uri)
        return self.session is not None and self.session.is_subscribed(uri)

    def asgi(self, path: str = "/mcp", *, auth: dict | None = None, **endpoint: Any) -> Any:
        """This server over Streamable HTTP (both eras), as an ASGI 3 application: serve
        it with ``uvicorn module:app`` or mount it in Starlette or FastAPI (mounted under
        a prefix, ``path`` is relative to it). One core ``Session`` per session slot of
        the core's ``Endpoint``, whose keyword arguments ``endpoint`` takes (``slots``,
        ``streams``, ``allowed_hosts``, ``response_mode``, ...; ``max_body`` defaults to
        ``max_line``). The application's lifespan and ``on_startup`` hooks start with the
        ASGI lifespan, or at the first request when the server sends no lifespan events.
        Bind to 127.0.0.1 unless the deployment says otherwise: ``Host`` and ``Origin``
        are checked against the loopback names and ``allowed_hosts``.

        ``auth`` makes it an OAuth 2.1 protected resource: a ``dict`` with ``verifier``
        (``verifier(token) -> claims dict or None``: checks the signature or introspects;
        the core then checks audience, expiry and scopes), ``resource`` (the canonical
        URI), ``authorization_servers``, ``scopes`` (every scope name), and optionally
        ``scopes_supported``, ``required``, ``leeway_s``, ``resource_name`` (see
        ``Endpoint``). Handlers see the caller as ``ctx.principal``, never the token."""
        from ._asgi import Asgi
        return Asgi(self, path, auth=auth, **endpoint)

    def _serving(self) -> Session:
        if self.session is None:
            raise RuntimeError("the server is not serving yet (call run() or serve() first)")
        return self.session

    async def request(self, method: str, params: dict | None = None, *,
                      timeout_ms: int | None = 60000) -> dict:
        """Sends a request to the client (``sampling/createMessage``, ``roots/list``, ...)
        and waits for the result. Raises ``McpError`` for an error answer or a timeout,
        ``picomcp.SendError`` when the client did not declare the capability."""
        rid = self._command(self._serving().send_request, _now(), method, params,
                            timeout_ms=timeout_ms)
        fut = asyncio.get_running_loop().create_future()
        self._asks[rid] = fut
        try:
            return await fut
        except asyncio.CancelledError:
            # The tool call waiting for the answer was cancelled: withdraw the question.
            if self._asks.pop(rid, None) is not None:
                try:
                    self._command(self.session.cancel, rid, "the tool call was cancelled")
                except Exception:
                    pass
            raise

    # ---- diagnostics (the loop: picomcp._stdio_loop; dispatch: picomcp._dispatch) ----

    def diag(self, level: str, message: str) -> None:
        """A diagnostic line on stderr, when ``--log-level`` lets it through."""
        if _LEVELS.index(level) <= _LEVELS.index(self.log_level):
            sys.stderr.write("%s: %s: %s\n" % (self.name, level, message))
            sys.stderr.flush()

