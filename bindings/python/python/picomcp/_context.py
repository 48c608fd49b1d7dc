"""What a handler gets and may raise: ``Context`` and the helper's exceptions."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import TYPE_CHECKING, Any

from ._native import RespondError, Session

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


class _InputRequired(BaseException):
    """Raised by ``Context.ask`` / ``ask_all`` in the 2026-07-28 era: the questions go back
    to the client as one ``input_required`` result, and the answers arrive in the retry.
    A ``BaseException`` (as ``asyncio.CancelledError``), so that a handler's ``except
    Exception`` does not swallow it."""

    def __init__(self, requests: dict, state: str | None, capability: dict) -> None:
        super().__init__(", ".join(requests))
        #: key -> ``{"method": ..., "params": ...}``: the ``inputRequests``.
        self.requests = requests
        #: The ``requestState`` to attach (the core seals it when it has a key).
        self.state = state
        #: The client capability each question needs (for -32021).
        self.capability = capability


# The input-request key and client capability of each question a server may ask.
_ASKS = {
    "sampling/createMessage": ("sampling", "sampling"),
    "elicitation/create": ("elicitation", "elicitation"),
    "roots/list": ("roots", "roots"),
}

# The requests that may be answered with ``input_required`` (MODERN §8.2).
_MRTR_METHODS = ("tools/call", "prompts/get", "resources/read")


def _questions(asks: dict) -> tuple[dict, dict]:
    """``{key: (method, params)}`` as ``inputRequests`` and the capabilities they need."""
    requests, needed = {}, {}
    for key, question in asks.items():
        if not isinstance(key, str):
            raise TypeError("ask_all: keys must be str, not %s" % type(key).__name__)
        if not (isinstance(question, tuple) and len(question) == 2):
            raise TypeError("ask_all: %r must map to a (method, params) tuple" % key)
        method, params = question
        requests[key] = {"method": method, "params": params}
        cap = _ASKS.get(method, (None, None))[1]
        if cap is not None:
            needed[cap] = {}
    return requests, needed


def _now() -> int:
    return int(time.monotonic() * 1000)


def _answer_input_required(server: Server, ctx: Context, e: _InputRequired) -> None:
    """``ctx.ask``/``ask_all`` asked in 2026-07-28: one ``input_required`` result with
    every question and the state (sealed by the core when it has a key); -32021 naming
    the capabilities the request did not declare, when the core refuses a question for
    that; -32603 for a question it refuses otherwise."""
    rid = ctx.request_id
    try:
        server._command(server.session.respond_input_required, rid, e.requests, e.state)
        return
    except RespondError as refused:
        # InputNotAllowed: a capability the request lacks, or a method that cannot ask
        # (completion/complete); anything else is a bad question (a form schema the
        # content rules refuse, say) or a request already over.
        if getattr(refused, "kind", "") != "InputNotAllowed" or \
                ctx.method not in _MRTR_METHODS or not e.capability:
            server.diag("error", "cannot ask the client in %s: %s" % (ctx.method, refused))
            server._answer_error(rid, INTERNAL_ERROR, "Internal error: cannot ask the "
                                 "client in %s: %s" % (ctx.method, refused))
            return
    except Exception as e2:  # a question that cannot be sent (not JSON, say)
        server.diag("error", "cannot ask in request %d: %r" % (rid, e2))
        server._answer_error(rid, INTERNAL_ERROR, "Internal error: %s" % e2)
        return
    # The request did not declare a client capability a question needs: name those it
    # lacks (all of them when the core refused for a finer reason).
    declared = ctx.client_capabilities
    missing = {k: v for k, v in e.capability.items() if k not in declared}
    try:
        server._command(server.session.respond_missing_capability, rid,
                        missing or e.capability)
    except Exception as e2:
        server.diag("warn", "cannot answer request %d: %s" % (rid, e2))


class Context:
    """What a handler may do about the request it serves. A typed handler gets it by
    annotating a parameter ``Context`` (any name); the older style gets it as ``ctx``.
    ``progress``, ``log`` and ``cancelled`` work from worker threads too; ``ask`` needs
    an ``async def`` handler."""

    def __init__(self, server: Server, request_id: int, method: str, params: dict,
                 call: Any = None) -> None:
        self._server = server
        # The retry's answers and state as the binding read them (``Call``), read when
        # asked (``_responses``, ``_state``, ``_retry_error``): most handlers never do.
        self._call = call
        self._is_modern: bool | None = None
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

    @property
    def _responses(self) -> dict:
        return getattr(self._call, "input_responses", None) or {}

    @property
    def _state(self) -> str | None:
        return getattr(self._call, "request_state", None)

    @property
    def _retry_error(self) -> str | None:
        return getattr(self._call, "retry_error", None)

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

    def _modern(self) -> bool:
        """Served under 2026-07-28 (read once: a request's era does not change)."""
        if self._is_modern is None:
            info = self._request_info()
            if info is None:
                return False
            self._is_modern = bool(info["modern"])
        return self._is_modern

    @property
    def request_state(self) -> str | None:
        """The ``requestState`` the client sent back with a 2026-07-28 retry (``None``
        otherwise, and in the legacy era): the ``state`` given to ``ask``/``ask_all`` in
        the round before. With a ``state_key`` (``Server(state_key=...)``: one is drawn
        at start-up by default) the core sealed it, and verified and unsealed it before
        the handler runs: a tampered, foreign or expired state is refused with -32602
        and never reaches the handler. Without a key it is whatever the client sent:
        never trust it then."""
        return self._state if self._modern() else None

    @property
    def client_capabilities(self) -> dict:
        """The client's capabilities for this request, as the core read them: in
        2026-07-28 what the request declared in its ``_meta`` (each request declares its
        own), in the legacy era the session's (from ``initialize``). ``{}`` once the
        request is answered."""
        info = self._request_info()
        return info["client_capabilities"] if info is not None else {}

    def _answers(self, keys: list, state: str | None) -> dict:
        """The retry's answers to ``keys`` that count, by the core's rule
        (``server::Retry``, the same in Node): an answer is an object, and with ``state``
        the retry echoed exactly that state. -32602 with the core's text when the retry's
        members are invalid."""
        if self._retry_error is not None:
            raise McpError(INVALID_PARAMS, self._retry_error)
        if not self._responses or self._call is None:
            return {}
        return {k: self._responses[k] for k in self._call.answered(keys, state)}

    async def ask(self, method: str, params: dict, *, key: str | None = None,
                  state: str | None = None, timeout_ms: int | None = 60000) -> dict:
        """Asks the client something (``sampling/createMessage``, ``elicitation/create``,
        ``roots/list``) and returns its result.

        Legacy era: a request to the client, awaited (``McpError`` for an error answer or
        a timeout; ``picomcp.SendError`` when the client lacks the capability); ``key``
        and ``state`` are not used. 2026-07-28: servers cannot send requests, so a
        question not answered yet ends the handler with an ``input_required`` result
        asking it under ``key`` (default: ``"elicitation"``, ``"sampling"`` or
        ``"roots"``, after the method) with ``state`` as its ``requestState`` (or -32021
        when the request did not declare the capability); the client retries with the
        answer in ``inputResponses``, the handler runs again from the start, and this call
        returns that answer. With ``state`` the answer counts only when the client echoed
        that state (``request_state``), so give each round its own, the same text every
        time the round runs. Keep handlers that ask free of side effects before the
        question; ask several things at once with ``ask_all``.
        """
        if self._modern():
            k = key if key is not None else _ASKS.get(method, (method,))[0]
            answer = self._answers([k], state).get(k)
            if answer is not None:
                return answer
            requests, needed = _questions({k: (method, params)})
            raise _InputRequired(requests, state, needed)
        return await self._server.request(method, params, timeout_ms=timeout_ms)

    async def ask_all(self, questions: dict, *, state: str | None = None,
                      timeout_ms: int | None = 60000) -> dict:
        """Asks several things at once: ``questions`` maps keys to ``(method, params)``;
        returns ``{key: answer}``.

        2026-07-28: returns when the retry answers every key (and echoed ``state``, when
        given); otherwise the handler ends with ONE ``input_required`` result asking
        every key still missing, with ``state`` as its ``requestState`` (-32021 when the
        request did not declare a capability they need). Legacy era: the requests go to
        the client concurrently and their answers are awaited (the first failure
        raises, as ``ask``)."""
        if self._modern():
            answers = self._answers([k for k in questions if isinstance(k, str)], state)
            missing = {k: q for k, q in questions.items() if k not in answers}
            if not missing:
                return {k: answers[k] for k in questions}
            requests, needed = _questions(missing)
            raise _InputRequired(requests, state, needed)
        _questions(questions)  # the same checks as in 2026-07-28
        results = await asyncio.gather(*(
            self._server.request(method, params, timeout_ms=timeout_ms)
            for method, params in questions.values()))
        return dict(zip(questions, results))

    def log(self, level: str, data: Any, logger: str | None = None) -> bool:
        """Sends a log message tied to this request, if the client's level lets it through."""
        if not self._server.logging:
            return False
        return bool(self._server._on_loop_command(self.session.log, level, data, logger,
                                                  self.request_id))
