"""Registration: the ``@app.tool``/``resource``/``prompt``/``completion`` decorators of
``Server`` and the core server layer (``ServerLayer``) built from what is registered.

Each registration is checked by the core at once (a one-entry catalog, then the whole
table), so a mistake raises the core's ``ConfigError`` at the decorator with the text every
binding shares; a signature the helper cannot describe is a ``TypeError`` naming the
parameter (``picomcp._schema``).
"""

from __future__ import annotations

import inspect
import json
import re
from typing import TYPE_CHECKING, Any, Callable

from . import _schema
from ._context import Context
from ._defs import _legacy, _placement, _present, _Prompt, _Resource, _Tool
from ._native import ConfigError, ServerLayer

if TYPE_CHECKING:
    from .server import Server

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


class _Registration:
    """The registration half of ``Server`` (a mixin): the decorators, and the core layer
    for the current registries (``_tables()``)."""

    def tool(self, fn: Callable | str | None = None, *, name: str | None = None,
             description: str | None = None, input_schema: dict | None = None,
             output_schema: dict | None = None, title: str | None = None,
             annotations: dict | None = None, mime_type: str | None = None,
             inline: bool = False, thread: bool = False, scopes: str | list | None = None):
        """Registers a tool: ``@app.tool`` or ``@app.tool(...)`` (name defaults to the
        function's).

        A typed function gets its ``inputSchema`` from its signature and docstring and
        its ``outputSchema`` from its return annotation (an object type); a signature
        that cannot be described raises ``TypeError`` here, naming the parameter.
        ``input_schema=`` overrides the derived schema. ``fn(args, ctx)`` (unannotated)
        is the older style: it gets the arguments as a dict. ``mime_type`` is the type of
        returned ``bytes``. On stdio a plain ``def`` runs on the event loop's thread (in a
        server with no ``async def`` handler; otherwise in a worker thread), and when it
        holds the loop up (``picomcp._rescue``) the calls after it go to worker threads;
        ``thread=True`` always runs it in a worker thread (a handler that may block for
        long: one still blocked when input ends does not hold up the exit), and
        ``inline=True`` always on the loop (calls wait for it). ``scopes`` (a
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
            t.sig, t.mime_type = sig, mime_type
            _placement(t, f, inline, thread, where)
            t.scopes = _scopes(scopes)
            self._add("tools", n, t, where)
            return f
        return deco(fn) if callable(fn) else deco

    def resource(self, uri: str, *, name: str | None = None, title: str | None = None,
                 description: str | None = None, mime_type: str | None = None,
                 inline: bool = False, thread: bool = False,
                 scopes: str | list | None = None):
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
            _placement(r, fn, inline, thread, where)
            r.scopes = _scopes(scopes)
            self._add("templates" if template else "resources", uri, r, where)
            return fn
        return deco

    def prompt(self, fn: Callable | str | None = None, *, name: str | None = None,
               description: str | None = None, arguments: list | None = None,
               title: str | None = None, inline: bool = False, thread: bool = False,
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
            _placement(p, f, inline, thread, where)
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
        if entry.is_async:  # the loop stays free for coroutines (picomcp._rescue)
            self._coroutines = True
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
