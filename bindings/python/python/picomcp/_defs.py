"""The registered definitions: a handler, how it is called, and its protocol definition
(``definition()``, the dict the core server layer checks)."""

from __future__ import annotations

import functools
import inspect
from typing import Any, Callable

from . import _schema

def _present(**fields: Any) -> dict:
    """The fields that have a value."""
    return {k: v for k, v in fields.items() if v is not None}


def _legacy(fn: Callable, first: str) -> bool:
    """The older handler style: ``fn(args, ctx)`` (``fn(uri, ctx, ...)`` for resources),
    unannotated."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return True
    return len(params) >= 2 and [p.name for p in params[:2]] == [first, "ctx"] and \
        all(p.annotation is inspect.Parameter.empty for p in params[:2])


def _sync(fn: Callable) -> bool:
    """A plain function (not ``async def``, not returning an awaitable we can see)."""
    target = fn.func if isinstance(fn, functools.partial) else fn
    return not (inspect.iscoroutinefunction(target) or
                inspect.iscoroutinefunction(getattr(target, "__call__", None)))


def _placement(entry: Any, fn: Callable, inline: bool, thread: bool, where: str) -> None:
    """Where a handler runs: a plain ``def`` is ``threaded`` (on the loop, rescued, or in a
    worker thread) unless ``inline``; ``thread=True``: always in a worker thread."""
    if inline and thread:
        raise TypeError("%s: inline=True and thread=True exclude each other" % where)
    entry.is_async = not _sync(fn)
    entry.threaded = not inline and not entry.is_async
    entry.always_thread = thread and entry.threaded


class _Tool:
    def __init__(self, fn, name, title, description, input_schema, output_schema, annotations):
        self.fn = fn
        self.sig: _schema.Signature | None = None  # None: the (args, ctx) style
        self.mime_type: str | None = None
        self.threaded = False  # a plain def: on the loop, rescued (picomcp._rescue)
        self.always_thread = False  # thread=True: always in a worker thread
        self.is_async = False  # an async def
        self.name = name
        self.title = title
        self.description = description
        self.input_schema = input_schema
        self.output_schema = output_schema
        self.annotations = annotations
        self.scopes: str | None = None  # OAuth scopes a caller needs (HTTP with auth)

    def definition(self) -> dict:
        return _present(name=self.name, title=self.title, description=self.description or None,
                        inputSchema=self.input_schema, outputSchema=self.output_schema,
                        annotations=self.annotations, scopes=self.scopes)


class _Resource:
    def __init__(self, fn, uri, name, title, description, mime_type, template):
        self.fn = fn
        self.uri = uri
        self.name = name
        self.title = title
        self.description = description
        self.mime_type = mime_type
        self.template = template
        self.complete: dict[str, Callable] = {}
        self.sig: _schema.Signature | None = None  # None: the (uri, ctx, **vars) style
        self.threaded = False  # a plain def: on the loop, rescued (picomcp._rescue)
        self.always_thread = False  # thread=True: always in a worker thread
        self.is_async = False  # an async def
        self.scopes: str | None = None

    def definition(self) -> dict:
        return _present(**{"uriTemplate" if self.template else "uri": self.uri},
                        name=self.name, title=self.title, description=self.description,
                        mimeType=self.mime_type, scopes=self.scopes,
                        completable=bool(self.complete) if self.template else None)


class _Prompt:
    def __init__(self, fn, name, title, description, arguments):
        self.fn = fn
        self.name = name
        self.title = title
        self.description = description
        self.arguments = arguments or []
        self.complete: dict[str, Callable] = {}
        self.sig: _schema.Signature | None = None  # None: the (args, ctx) style
        self.threaded = False  # a plain def: on the loop, rescued (picomcp._rescue)
        self.always_thread = False  # thread=True: always in a worker thread
        self.is_async = False  # an async def
        self.scopes: str | None = None

    def definition(self) -> dict:
        args = [dict(a, completable=a.get("name") in self.complete) for a in self.arguments]
        return _present(name=self.name, title=self.title, description=self.description,
                        arguments=args or None, scopes=self.scopes)
