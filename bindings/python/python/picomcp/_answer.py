"""A handler's return value, converted (``picomcp._results``) and handed to the core
server layer, which shapes the result for the negotiated revision."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from . import _results
from ._context import INTERNAL_ERROR, Context, ToolError
from ._native import Call, RespondError, ResultError

if TYPE_CHECKING:
    from ._registration import _Tables
    from .server import Server


def _text(t: str) -> dict:
    return {"type": "text", "text": t}


class _Answer:
    """A handler's return value, converted and handed to the core layer, which shapes the
    result for the negotiated revision."""

    def __init__(self, server: Server, tables: _Tables, call: Call,
                 ctx: Context | None = None) -> None:
        self.server = server
        self.layer = tables.layer
        self.call = call
        self.tables = tables
        self.ctx = ctx  # the call's context (a worker thread reads no session state)

    def _send(self, fn: Callable, *args, **kwargs) -> None:
        s = self.server
        try:
            s._command(fn, s.session, self.call.id, *args, **kwargs)
        except ResultError as e:
            # An answer the core refuses (structured content against the outputSchema,
            # a block the revision lacks): the call still gets an answer.
            s.diag("error", "%s: the answer was refused: %s" % (self.call.name, e))
            if self.call.kind != "tool":
                s._answer_error(self.call.id, INTERNAL_ERROR, "Internal error: %s" % e)
                return
            try:
                s._command(self.layer.respond_tool, s.session, self.call.id, self.call.index,
                           [_text("Internal error: %s" % e)], is_error=True)
            except Exception as e2:
                s.diag("warn", "cannot answer request %d: %s" % (self.call.id, e2))
        except RespondError as e:
            # A cancel the loop took while a worker thread answered: the core refused the
            # late answer (a stale handle), as it should.
            late = self.ctx is not None and self.ctx._cancelled
            s.diag("debug" if late else "warn", "cannot answer request %d: %s"
                   % (self.call.id, e))
        except Exception as e:  # a value the core cannot take (not JSON, a bad block)
            s.diag("error", "%s: cannot send the answer: %r" % (self.call.name, e))
            s._answer_error(self.call.id, INTERNAL_ERROR, "Internal error: %s" % e)

    def tool(self, out: Any) -> None:
        """``str`` (or anything else but the below): one text block; ``list``: content
        blocks; ``dict``: structured content, or a whole result when it has ``content`` or
        ``structuredContent``; ``ToolError``: ``isError`` with its message."""
        send = lambda *a, **k: self._send(self.layer.respond_tool, self.call.index, *a, **k)
        if isinstance(out, ToolError):
            send([_text(str(out))], is_error=True)
        elif isinstance(out, list):
            send(out)
        elif isinstance(out, dict) and ("content" in out or "structuredContent" in out):
            send(out.get("content"), out.get("structuredContent"),
                 is_error=bool(out.get("isError")), meta=out.get("_meta"))
        elif isinstance(out, dict):
            send(None, out)
        elif out is None:
            send([])
        else:
            send([_text(str(out))])

    def typed_tool(self, out: Any) -> None:
        """A typed tool's return value, converted by ``picomcp._results.tool_result``."""
        if type(out) is str:  # the common case, quickly: one text block
            self._send(self.layer.respond_tool, self.call.index, [_text(out)])
            return
        if isinstance(out, ToolError):
            self.tool(out)
            return
        tool = self.tables.tools[self.call.index]
        try:
            content, structured, is_error, meta = _results.tool_result(out, tool.mime_type)
        except Exception as e:  # a value with no JSON form
            ctx = self.ctx or Context(self.server, self.call.id, self.call.method, {})
            self.server._failed(ctx, e, self.tool, True)
            return
        self._send(self.layer.respond_tool, self.call.index, content, structured,
                   is_error=is_error, meta=meta)

    def read(self, body: Any) -> None:
        """``str``: text; ``bytes``: a base64 blob; a ``list``: the contents as given;
        anything else its JSON (``picomcp._results.read_contents``)."""
        target = self.tables.resources if self.call.target == "resource" \
            else self.tables.templates
        res = target[self.call.index]
        if res.sig is None and not isinstance(body, (list, bytes, bytearray, memoryview,
                                                       _results.EmbeddedResource)):
            body = str(body)  # the older style: str() of anything
        try:
            contents = _results.read_contents(body, self.call.uri, res.mime_type)
        except TypeError as e:
            self.server._answer_error(self.call.id, INTERNAL_ERROR, "Internal error: %s" % e)
            return
        self._send(self.layer.respond_read, contents)

    def prompt(self, out: Any) -> None:
        """A ``str`` (one user message), a ``list`` of messages (or strings), or a result
        ``dict`` with ``messages``."""
        self._send(self.layer.respond_prompt, self.call.index, _results.prompt_messages(out))

    def completion(self, values: list) -> None:
        self._send(self.layer.respond_completion, [str(v) for v in values], len(values))
