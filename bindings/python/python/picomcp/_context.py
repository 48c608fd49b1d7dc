"""What a handler gets and may raise: ``Context`` and the helper's exceptions."""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, Any

from ._native import Session

if TYPE_CHECKING:
    from .server import Server

__all__ = ["Context", "McpError", "ResourceNotFound", "ToolError"]

# JSON-RPC / MCP error codes the helper sends.
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603


class McpError(Exception):
    """Raise from a handler to answer the request with a JSON-RPC error."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data


class ToolError(Exception):
    """Raise from a tool to report a failed call: a result with ``isError: true``."""


class ResourceNotFound(McpError):
    """Raise from a resource handler: the resource does not exist (-32002)."""

    def __init__(self, uri: str, message: str | None = None) -> None:
        super().__init__(-32002, message or "Resource not found: %s" % uri, {"uri": uri})


class _InputRequired(Exception):
    """Raised by ``Context.ask`` in the 2026-07-28 era: the question goes back to the
    client as an ``input_required`` result, and the answer arrives in the retry."""

    def __init__(self, key: str, method: str, params: dict, capability: dict) -> None:
        super().__init__(method)
        self.requests = {key: {"method": method, "params": params}}
        self.capability = capability


# The input-request key and client capability of each question a server may ask.
_ASKS = {
    "sampling/createMessage": ("sampling", {"sampling": {}}),
    "elicitation/create": ("elicitation", {"elicitation": {}}),
    "roots/list": ("roots", {"roots": {}}),
}


def _now() -> int:
    return int(time.monotonic() * 1000)


class Context:
    """What a handler may do about the request it serves. A typed handler gets it by
    annotating a parameter ``Context`` (any name); the older style gets it as ``ctx``.
    ``progress``, ``log`` and ``cancelled`` work from worker threads too; ``ask`` needs
    an ``async def`` handler."""

    def __init__(self, server: Server, request_id: int, method: str, params: dict) -> None:
        self._server = server
        self.request_id = request_id
        self.method = method
        self.params = params
        #: The negotiated protocol revision (``"2025-11-25"``, ``"2026-07-28"``, ...).
        self.version = server.session.version
        #: What the ``@app.lifespan`` context manager yielded (``None`` without one).
        self.lifespan = server.lifespan_value
        self._cancelled = False  # set by the loop; read by handlers in worker threads
        self._info: dict | None = None
        #: The verified caller over HTTP with ``asgi(auth=...)``: ``subject``,
        #: ``client_id``, ``scopes``, ``expires_at``; ``None`` otherwise. Never the token.
        self.principal: dict | None = server._principal

    def _on_loop(self) -> bool:
        return threading.get_ident() == self._server._loop_thread

    def _request_info(self) -> dict | None:
        if self._on_loop():
            return self._server.session.request_info(self.request_id)
        if self._info is None:  # a worker thread: a snapshot taken when the call started
            self._info = self._server._info_snapshot(self.request_id)
        return self._info

    @property
    def session(self) -> Session:
        """The core session (for anything the helper does not wrap)."""
        return self._server.session

    @property
    def cancelled(self) -> bool:
        """True once the client cancelled this request (answers are then dropped)."""
        if self._cancelled:
            return True
        if not self._on_loop():
            return False
        info = self._server.session.request_info(self.request_id)
        return info is None or info["cancelled"]

    @property
    def wants_progress(self) -> bool:
        """True when the client asked for progress on this request."""
        info = self._request_info()
        return bool(info and info["has_progress_token"] and not info["cancelled"]
                    and not self._cancelled)

    def progress(self, progress: float, total: float | None = None,
                 message: str | None = None) -> bool:
        """Reports progress if the client asked for it; returns whether it was sent."""
        if not self.wants_progress:
            return False
        self._server._on_loop_command(self.session.progress, self.request_id, progress,
                                      total, message)
        return True

    async def ask(self, method: str, params: dict, *, timeout_ms: int | None = 60000) -> dict:
        """Asks the client something (``sampling/createMessage``, ``elicitation/create``,
        ``roots/list``) and returns its result.

        Legacy era: a request to the client, awaited (``McpError`` for an error answer or
        a timeout; ``picomcp.SendError`` when the client lacks the capability). 2026-07-28:
        servers cannot send requests, so the first call ends the handler with an
        ``input_required`` result (or -32021 when the request did not declare the
        capability); the client retries with the answer in ``inputResponses``, the handler
        runs again from the start, and this call returns that answer. Keep handlers that
        ask free of side effects before the question.
        """
        key, capability = _ASKS.get(method, (method, {}))
        info = self._request_info()
        if info is not None and info["modern"]:
            responses = self.params.get("inputResponses")
            if responses is not None and not isinstance(responses, dict):
                raise McpError(INVALID_PARAMS, "Invalid params: inputResponses must be an object")
            answer = (responses or {}).get(key)
            if isinstance(answer, dict):
                return answer
            raise _InputRequired(key, method, params, capability)
        return await self._server.request(method, params, timeout_ms=timeout_ms)

    def log(self, level: str, data: Any, logger: str | None = None) -> bool:
        """Sends a log message tied to this request, if the client's level lets it through."""
        if not self._server.logging:
            return False
        return bool(self._server._on_loop_command(self.session.log, level, data, logger,
                                                  self.request_id))
