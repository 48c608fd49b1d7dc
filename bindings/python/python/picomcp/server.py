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
stderr through ``logging``). Plain ``def`` handlers run in a bounded thread pool
(``max_workers``, ``picomcp._workers``), so the loop keeps answering ``ping`` and
cancellations meanwhile; on stdio the threads answer their calls and write the answers
themselves. ``async def`` handlers run on the loop.

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
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import inspect
import json
import logging
import os
import re
import stat
import sys
import threading
from typing import Any, Callable
from urllib.parse import unquote

from . import _schema
from ._answer import _Answer
from ._defs import _legacy, _present, _Prompt, _Resource, _sync, _Tool
from ._context import (INTERNAL_ERROR, INVALID_PARAMS, Context, McpError, ResourceNotFound,
                       ToolError, _answer_input_required, _InputRequired, _now)
from ._stdio import StdoutGuard
from ._workers import Workers

from ._native import Call, ConfigError, Event, QueueFull, ServerLayer, Session

__all__ = ["Context", "McpError", "ResourceNotFound", "Server", "ToolError"]

_LEVELS = ("error", "warn", "info", "debug")

#: Tracebacks of failed handlers and answers the core refused go here (stderr by default).
logger = logging.getLogger("picomcp")

#: The ``ServerLayer`` keyword of each registry.
_KEYWORDS = {"tools": "tools", "resources": "resources", "templates": "resource_templates",
             "prompts": "prompts"}


def _where(noun: str, key: Any) -> str:
    """How a registration error names its entry, as in every language: ``tool "add"``."""
    return "%s %s" % (noun, json.dumps(key, ensure_ascii=False))


def _not_callable(where: str, fn: Any) -> TypeError:
    return TypeError("%s: the handler must be a function, not %s" % (where, type(fn).__name__))


def _check(where: str, index: int, build: Callable) -> Any:
    """Runs ``build`` (a core catalog check); its error, the entry at ``index`` named by
    ``where`` instead of by its index, is raised again (the Node helper's text)."""
    try:
        return build()
    except (ConfigError, TypeError, ValueError) as e:
        if type(e) not in (ConfigError, TypeError, ValueError):
            raise  # a subclass may take other arguments: as it is
        prefix = r"^(?:\w+\[%d\](?:\.|: )|(?:tool|resource template|resource|prompt) %d: )" \
            % (index, index)
        raise type(e)("%s: %s" % (where, re.sub(prefix, "", str(e), count=1))) from None


def _scopes(scopes: str | list | None) -> str | None:
    """The ``scopes=`` of a registration as the core takes it (space-delimited)."""
    if scopes is None or isinstance(scopes, str):
        return scopes or None
    return " ".join(scopes) or None


class _Tables:
    """The registries in the order the core layer was given them: a ``Call.index`` is an
    index into one of these lists."""

    def __init__(self, server: "Server") -> None:
        self.tools = list(server.tools.values())
        self.resources = list(server.resources.values())
        self.templates = list(server.templates)
        self.prompts = list(server.prompts.values())
        self.layer = ServerLayer(
            [t.definition() for t in self.tools],
            [r.definition() for r in self.resources],
            [t.definition() for t in self.templates],
            [p.definition() for p in self.prompts],
            subscribe=True, logging=server.logging, page_size=server.page_size)


class Server:
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
        #: Taken to write output: worker threads answering stdio calls write it too.
        self._out_lock = threading.Lock()
        #: The loop waits for calls in worker threads to end: the thread that ends the
        #: last one wakes it (otherwise threads never wake the loop for their answers).
        self._await_jobs = False
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

    # ---- registration ----

    def tool(self, fn: Callable | str | None = None, *, name: str | None = None,
             description: str | None = None, input_schema: dict | None = None,
             output_schema: dict | None = None, title: str | None = None,
             annotations: dict | None = None, mime_type: str | None = None,
             inline: bool = False, scopes: str | list | None = None):
        """Registers a tool: ``@app.tool`` or ``@app.tool(...)`` (name defaults to the
        function's).

        A typed function gets its ``inputSchema`` from its signature and docstring and
        its ``outputSchema`` from its return annotation (an object type); a signature
        that cannot be described raises ``TypeError`` here, naming the parameter.
        ``input_schema=`` overrides the derived schema. ``fn(args, ctx)`` (unannotated)
        is the older style: it gets the arguments as a dict. ``mime_type`` is the type of
        returned ``bytes``. ``inline=True`` runs a plain ``def`` on the event loop instead
        of a worker thread (for quick handlers that never block). ``scopes`` (a
        space-delimited ``str`` or a list): the OAuth scopes a caller needs over HTTP with
        ``asgi(auth=...)``; without them the tool is not listed and a call gets 403."""
        if isinstance(fn, str):  # @app.tool("name", ...)
            fn, name = None, fn

        def deco(f):
            if not callable(f):
                raise _not_callable(_where("tool", name) if name else "tool", f)
            n = name or f.__name__
            where = _where("tool", n)
            legacy = _legacy(f, "args")
            sig = None if legacy else _schema.describe(f, Context, where)
            schema = input_schema or (sig.schema if sig else {"type": "object"})
            out = output_schema
            if out is None and sig is not None:
                out = _schema.output_schema(f)[0]
            doc = sig.description if sig else inspect.getdoc(f)
            t = _Tool(f, n, title, description or doc, schema, out, annotations)
            t.sig, t.mime_type, t.threaded = sig, mime_type, not inline and _sync(f)
            t.scopes = _scopes(scopes)
            self._add("tools", n, t, where)
            return f
        return deco(fn) if callable(fn) else deco

    def resource(self, uri: str, *, name: str | None = None, title: str | None = None,
                 description: str | None = None, mime_type: str | None = None,
                 inline: bool = False, scopes: str | list | None = None):
        """Registers the reader of one resource, or of a resource template when ``uri``
        contains ``{variables}``: a typed ``fn(id: int, ctx: Context)`` gets each variable
        decoded and converted to its annotation (a value that does not convert is
        ``ResourceNotFound``); the older ``fn(uri, ctx, **variables)`` gets them as
        matched."""
        def deco(fn):
            template = "{" in uri
            where = _where("resource template" if template else "resource", uri)
            if not callable(fn):
                raise _not_callable(where, fn)
            r = _Resource(fn, uri, name or fn.__name__, title, description, mime_type, template)
            if not _legacy(fn, "uri"):
                r.sig = _schema.describe(fn, Context, where, text_vars=True)
                r.description = description or r.sig.description
                names = set(re.findall(r"([A-Za-z0-9_%.]+)(?::\d+|\*)?(?=[,}])",
                                       "".join(re.findall(r"\{[^}]*\}", uri))))
                missing = [n for n in r.sig.required if n not in names]
                if missing:
                    raise TypeError("%s: parameter %r is not a variable of the URI"
                                    % (where, missing[0]))
            r.threaded = not inline and _sync(fn)
            r.scopes = _scopes(scopes)
            self._add("templates" if template else "resources", uri, r, where)
            return fn
        return deco

    def prompt(self, fn: Callable | str | None = None, *, name: str | None = None,
               description: str | None = None, arguments: list | None = None,
               title: str | None = None, inline: bool = False,
               scopes: str | list | None = None):
        """Registers a prompt: a typed ``fn(topic: str, n: int = 3)`` lists its parameters
        as the prompt's arguments (required when they have no default) and returns a
        ``str`` (one user message) or a list of messages. The older ``fn(args, ctx)`` takes
        ``arguments``, the listed array (``[{"name": "x", "required": True}]``). The core
        checks the required ones."""
        if isinstance(fn, str):
            fn, name = None, fn

        def deco(f):
            if not callable(f):
                raise _not_callable(_where("prompt", name) if name else "prompt", f)
            n = name or f.__name__
            where = _where("prompt", n)
            p = _Prompt(f, n, title, description, arguments)
            if not _legacy(f, "args"):
                p.sig = _schema.describe(f, Context, where, text_vars=True)
                props = p.sig.schema["properties"]
                p.arguments = arguments or [_present(
                    name=k, description=v.get("description"),
                    required=k in p.sig.required) for k, v in props.items()]
            p.description = description or (p.sig.description if p.sig else inspect.getdoc(f))
            p.threaded = not inline and _sync(f)
            p.scopes = _scopes(scopes)
            self._add("prompts", n, p, where)
            return f
        return deco(fn) if callable(fn) else deco

    def completion(self, ref: str, argument: str):
        """Registers ``fn(value, context_args) -> list[str]`` to complete ``argument`` of
        the prompt or resource template named by ``ref`` (a prompt name or a URI template)."""
        def deco(fn):
            target = self.prompts.get(ref) or next(
                (t for t in self.templates if t.uri == ref), None)
            if target is None:
                raise ValueError("completion for unknown prompt or template %r" % ref)
            target.complete[argument] = fn
            self._built = None
            return fn
        return deco

    def _add(self, kind: str, key: str, entry: Any, where: str) -> None:
        """Registers a definition (``kind``: ``tools``, ``resources``, ``templates`` or
        ``prompts``), checked by the core at once, alone first (a one-entry catalog, as
        the Node helper does): a mistake (a broken schema or template, a name used twice)
        raises the core's ``ConfigError`` here, the entry named by ``where``
        (``tool "add": inputSchema: ...``), with the same text in every language."""
        table = getattr(self, kind)
        definition = entry.definition()
        _check(where, 0, lambda: ServerLayer(**{_KEYWORDS[kind]: [definition]}))
        index = len(table)  # the new entry's index in the whole table
        if isinstance(table, dict) and key in table:  # the core says what is wrong
            _check(where, index, lambda: ServerLayer(**{_KEYWORDS[kind]: [
                e.definition() for e in table.values()] + [definition]}))
        if isinstance(table, list):
            table.append(entry)
        else:
            table[key] = entry
        self._built = None
        try:
            _check(where, index, self._tables)
        except Exception:
            if isinstance(table, list):
                table.remove(entry)
            else:
                del table[key]
            self._built = None
            raise

    def lifespan(self, fn: Callable):
        """Registers ``fn(server)``, an async context manager (``@contextlib.
        asynccontextmanager``) entered before serving and left after; what it yields is
        ``ctx.lifespan`` in every handler."""
        self._lifespan = fn
        return fn

    def on_startup(self, fn: Callable):
        """Registers ``fn(server)`` to run once serving starts (an ``async def`` runs as a
        task for as long as the server serves)."""
        self._startup.append(fn)
        return fn

    @property
    def capabilities(self) -> dict:
        """What the core layer declares for what is registered."""
        return self._tables().layer.capabilities

    def _tables(self) -> _Tables:
        """The core layer for the current registries (built again after a registration;
        a broken definition raises ``picomcp.ConfigError`` here)."""
        if self._built is None:
            self._built = _Tables(self)
        return self._built

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

    # ---- the loop ----

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
        chunks: asyncio.Queue = asyncio.Queue(maxsize=4)
        self._wake = asyncio.Event()

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
            # A pipe or socket: the loop waits for it (no thread hand-off per chunk); one
            # chunk at a time, armed again once the chunk is taken.
            loop.remove_reader(in_fd)
            try:
                data = os.read(in_fd, 65536)
            except BlockingIOError:
                loop.add_reader(in_fd, readable)
                return
            except OSError as e:
                self.diag("error", "cannot read stdin: %s" % e)
                data = b""
            chunks.put_nowait(data)

        mode = os.fstat(in_fd).st_mode
        polled = stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)
        if polled:
            loop.add_reader(in_fd, readable)
        else:
            threading.Thread(target=reader, daemon=True).start()
        for fn in self._startup:
            started = fn(self)
            if inspect.isawaitable(started):
                loop.create_task(started)
        self.diag("info", "%s %s on stdio, max line %d bytes"
                  % (self.name, self.version, self.max_line))
        while True:
            get = loop.create_task(chunks.get())
            while not await self._wait(get):
                pass
            data = get.result()
            if not data:
                self.session.handle_eof(_now())
                self._pump()
                break
            if polled:
                loop.add_reader(in_fd, readable)
            while data:
                taken = self.session.handle_bytes(_now(), data)
                data = data[taken:]
                self._pump()
                if self.session.phase == "closed":
                    break  # closed (session.close()): it takes nothing more; drop the rest
                if data and not taken:
                    # The session waits for us (a 2025-03-26 batch whose members are still
                    # running): let the handlers run, then offer the rest again.
                    self._await_jobs = True
                    busy = self._tasks or self._jobs
                    await self._wait(loop.create_future(), None if busy else 0.01)
                    self._await_jobs = False
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
        deadline = self.session.poll_timeout()
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

    def _on_loop_command(self, fn: Callable, *args):
        """``_command`` from any thread: a worker thread hands it to the loop (fire and
        forget, so it returns True)."""
        if threading.get_ident() == self._loop_thread:
            return self._command(fn, *args)

        def run() -> None:
            try:
                self._command(fn, *args)
            except Exception as e:  # the request ended meanwhile, say
                self.diag("debug", "dropped a command from a handler thread: %s" % e)
        self._loop.call_soon_threadsafe(run)
        return True

    def _info_snapshot(self, rid: int) -> dict | None:
        """``request_info`` read on the loop, for a handler in a worker thread."""
        fut = concurrent.futures.Future()
        self._loop.call_soon_threadsafe(
            lambda: fut.set_result(self.session.request_info(rid)))
        try:
            return fut.result(timeout=5)
        except concurrent.futures.TimeoutError:
            return None

    def _command(self, fn: Callable, *args, **kwargs):
        """Runs a session command; a full transmit queue is written out once first. On a
        worker thread answering its calls (stdio), the thread writes out its answers
        once it has no call left, and the loop is not woken."""
        try:
            result = fn(*args, **kwargs)
        except QueueFull:
            self._flush()
            result = fn(*args, **kwargs)
        if threading.get_ident() != self._loop_thread:
            return result
        if not self._deferred:
            self._flush()
        self._wake.set()  # deadlines may have changed: the loop recomputes them
        return result

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
        self._flush()
        if self._workers is not None:
            self._workers.kick()  # the calls this read queued, to a thread at once

    def _on_event(self, ev: Event) -> None:
        kind = ev.kind
        if kind == "request":
            # The core answers initialize, ping, logging/setLevel, subscriptions and
            # server/discover, the layer lists and checks the calls; anything else
            # reaching us is not implemented.
            self._answer_error(ev.id, -32601, "Method not found")
        elif kind == "cancelled":
            ctx = self._contexts.pop(ev.id, None) or self._jobs.pop(ev.id, None)
            if ctx is not None:
                ctx._cancelled = True  # seen by a handler in a worker thread
            task = self._tasks.pop(ev.id, None)
            if task is not None:
                # After the task's first step (already scheduled), so that a handler
                # cancelled in the same read as its request has started and is cancelled
                # at an await, rather than never awaited.
                asyncio.get_running_loop().call_soon(task.cancel)
            # The core already finished the request and freed its slot.
            self.diag("debug", "request %d cancelled (%s)" % (ev.id, ev.reason))
        elif kind in ("response", "error_response", "timed_out"):
            fut = self._asks.pop(ev.id, None)
            if fut is None or fut.done():
                return
            if kind == "response":
                fut.set_result(ev.result)
            elif kind == "error_response":
                fut.set_exception(McpError(ev.code, ev.message, ev.data))
            else:
                fut.set_exception(McpError(-32001, "the client did not answer in time"))
        elif kind == "negotiated":
            info = (ev.peer or {}).get("clientInfo") if isinstance(ev.peer, dict) else None
            self.diag("info", "protocol %s, client %s" % (ev.version, info))
        elif kind == "peer_violation":
            self.diag("info", "peer violation: %s" % ev.text)
        elif kind == "closed":
            self.diag("info", "session closed: %s" % ev.text)
            for fut in self._asks.values():
                if not fut.done():
                    fut.set_exception(McpError(-32000, "connection closed"))
            self._asks.clear()

    # ---- calls ----

    def _on_call(self, tables: _Tables, call: Call) -> None:
        ctx = Context(self, call.id, call.method, call.params, call)
        answer = _Answer(self, tables, call, ctx)
        kind = call.kind
        if kind == "tool":
            tool = tables.tools[call.index]
            if tool.sig is not None:
                kw = tool.sig.kwargs(call.arguments, ctx)
                fn = tool.fn
                self._run(ctx, lambda: fn(**kw), tool, answer.typed_tool, tool_errors=True)
                return
            args = dict(call.arguments)
            for name, value in call.defaults.items():
                args.setdefault(name, value)
            self._run(ctx, functools.partial(tool.fn, args, ctx), tool, answer.tool,
                      tool_errors=True)
        elif kind == "read":
            res = (tables.resources if call.target == "resource" else tables.templates)[call.index]
            if res.sig is None:
                self._run(ctx, functools.partial(res.fn, call.uri, ctx, **call.vars), res,
                          answer.read)
                return
            try:  # variables decoded, then converted from text to their annotations
                kw = res.sig.kwargs({k: unquote(v) for k, v in call.vars.items()}, ctx)
            except (ValueError, KeyError):  # no resource has that URI
                self._answer_error(call.id, -32002, "Resource not found: %s" % call.uri,
                                   {"uri": call.uri})
                return
            self._run(ctx, functools.partial(res.fn, **kw), res, answer.read)
        elif kind == "prompt":
            prompt = tables.prompts[call.index]
            if prompt.sig is None:
                self._run(ctx, functools.partial(prompt.fn, dict(call.arguments), ctx), prompt,
                          answer.prompt)
                return
            try:  # prompt arguments are text: converted to their annotations
                kw = prompt.sig.kwargs(call.arguments, ctx)
            except (ValueError, KeyError) as e:
                self._answer_error(call.id, INVALID_PARAMS, "Invalid params: %s" % e)
                return
            self._run(ctx, functools.partial(prompt.fn, **kw), prompt, answer.prompt)
        else:
            target = (tables.prompts if call.target == "prompt" else tables.templates)[call.index]
            fn = target.complete.get(call.argument)
            context = call.context
            chosen = context.get("arguments") if isinstance(context, dict) else None
            chosen = chosen if isinstance(chosen, dict) else {}
            self._run(ctx, lambda: list(fn(call.value, chosen)) if fn else [], None,
                      answer.completion)

    def _run(self, ctx: Context, handler: Callable, entry: Any, answer: Callable,
             tool_errors: bool = False) -> None:
        """Calls a handler and answers with ``answer(value)``. A plain function runs in a
        worker thread (unless ``inline`` or ``max_workers=0``), a coroutine as a task;
        either is cancelled with its request. ``tool_errors``: a failure is answered
        ``answer(error)`` (a tool result with ``isError``)."""
        if entry is not None and entry.threaded and self._workers is not None:
            self._jobs[ctx.request_id] = ctx
            self._workers.submit((ctx, answer, tool_errors),
                                 lambda: None if ctx._cancelled else handler())
            if not self._deferred:
                self._workers.kick()
            return
        try:
            result = handler()
        except BaseException as e:
            if not isinstance(e, (Exception, _InputRequired)):
                raise
            self._failed(ctx, e, answer, tool_errors)
            return
        if not inspect.isawaitable(result):
            answer(result)
            return

        async def finish() -> None:
            try:
                value = await result
            except asyncio.CancelledError:
                return  # cancelled by the client: nothing more is sent
            except (Exception, _InputRequired) as e:
                self._failed(ctx, e, answer, tool_errors)
            else:
                if not ctx._cancelled:
                    answer(value)
            finally:
                self._tasks.pop(ctx.request_id, None)
                self._contexts.pop(ctx.request_id, None)
                self._wake.set()  # the session may take input again (a finished batch)

        self._contexts[ctx.request_id] = ctx
        self._tasks[ctx.request_id] = asyncio.get_running_loop().create_task(finish())

    def _jobs_done(self, done: list) -> None:
        """Calls given to worker threads finished: ``(item, ok, value)`` each, handed to
        the loop in batches and written out at once."""
        self._deferred = True
        try:
            for (ctx, answer, tool_errors), ok, value in done:
                self._jobs.pop(ctx.request_id, None)
                self._deliver(ctx, answer, tool_errors, ok, value)
        finally:
            self._deferred = False
        self._flush()
        self._wake.set()

    def _deliver(self, ctx, answer, tool_errors, ok: bool, value: Any) -> None:
        """Gives a worker call's outcome as its answer: the value, or the error it raised
        (nothing when the client cancelled the call meanwhile)."""
        if ctx._cancelled:
            return  # cancelled by the client: nothing more is sent
        if ok:
            answer(value)
        elif isinstance(value, Exception):
            self._failed(ctx, value, answer, tool_errors)
        else:  # SystemExit, KeyboardInterrupt in a handler thread
            self._failed(ctx, RuntimeError(repr(value)), answer, tool_errors)

    def _job_answer(self, item: tuple, ok: bool, value: Any) -> None:
        """A call given to a worker thread finished: answered on that thread (stdio; the
        session's commands run under the GIL, one at a time, and a cancellation the loop
        took meanwhile makes the core refuse the answer, as a stale request)."""
        ctx, answer, tool_errors = item
        try:
            self._deliver(ctx, answer, tool_errors, ok, value)
        except Exception as e:  # the answer could not be given: never kills the thread
            self.diag("error", "cannot answer request %d: %r" % (ctx.request_id, e))
        finally:
            self._jobs.pop(ctx.request_id, None)

    def _job_flush(self, wait: bool) -> None:
        """A worker thread ran every queued call (or the loop looks at the pool): the
        answers go out in one write, and the loop, when it waits for the last call, is
        woken."""
        self._flush(wait)
        if self._await_jobs and not self._jobs:
            try:
                self._loop.call_soon_threadsafe(self._wake.set)
            except RuntimeError:  # the loop is closed
                pass

    def _failed(self, ctx: Context, e: BaseException, answer: Callable,
                tool_errors: bool) -> None:
        """A handler raised: ``ToolError`` and any other exception of a tool are an
        ``isError`` result (the message hidden with ``hide_errors``), ``McpError`` a
        JSON-RPC error; the traceback of an unexpected one goes to ``logging``."""
        if isinstance(e, _InputRequired):
            _answer_input_required(self, ctx, e)
            return
        if isinstance(e, McpError):
            self._answer_error(ctx.request_id, e.code, e.message, e.data)
            return
        if not isinstance(e, ToolError):
            what = ctx.params.get("name") or ctx.params.get("uri") or ""
            logger.error("%s %s failed", ctx.method, what, exc_info=e)
        if tool_errors:
            if isinstance(e, ToolError):
                answer(e)
            elif self.hide_errors:
                answer(ToolError("Internal error"))
            else:
                answer(ToolError(str(e) or type(e).__name__))
        else:
            self._answer_error(ctx.request_id, INTERNAL_ERROR, "Internal error: %s" % e)

    def _answer_error(self, rid: int, code: int, message: str, data: Any = None) -> None:
        try:
            self._command(self.session.respond_error, rid, code, message, data)
            return
        except Exception as e:
            # A code the core refuses (reserved, out of range), data that is not JSON:
            # the request still gets an answer.
            self.diag("warn", "cannot answer request %d with error %r: %s" % (rid, code, e))
        try:
            self._command(self.session.respond_error, rid, INTERNAL_ERROR,
                          "Internal error: %s" % message)
        except Exception as e:
            self.diag("warn", "cannot answer request %d: %s" % (rid, e))
