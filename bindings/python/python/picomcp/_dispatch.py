"""Dispatch: how ``Server`` hands a checked call to its handler and the outcome back to
the core layer. A plain ``def`` runs in a worker thread (``picomcp._workers``) unless
``inline``, an ``async def`` as a task on the loop; a failure becomes an ``isError`` tool
result or a JSON-RPC error (``_failed``). Session commands from any thread go through
``_command``.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import logging
import threading
import time
from typing import Any, Callable
from urllib.parse import unquote

from ._answer import _Answer
from ._context import (INTERNAL_ERROR, INVALID_PARAMS, Context, McpError, ToolError,
                       _answer_input_required, _InputRequired)
from ._native import Call, Event, QueueFull
from ._registration import _Tables

#: Events whose handling touches the loop's tasks and futures (from the rescuer, handed
#: to the loop).
_LOOP_EVENTS = frozenset(("cancelled", "response", "error_response", "timed_out", "closed"))

#: Tracebacks of failed handlers and answers the core refused go here (stderr by default).
logger = logging.getLogger("picomcp")


class _Dispatch:
    """The dispatch half of ``Server`` (a mixin): session commands, events, calls."""

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
        """``request_info`` for a handler in a worker thread (the session waits for
        another thread that holds it; the loop may be held up: picomcp._rescue)."""
        return self.session.request_info(rid)

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
        self._rewait()  # deadlines may have changed: the loop recomputes them
        return result

    def _on_event(self, ev: Event) -> None:
        kind = ev.kind
        if kind in _LOOP_EVENTS and threading.get_ident() != self._loop_thread:
            # The rescuer (picomcp._rescue): tasks and futures are the loop's; a handler
            # in a thread sees its cancellation at once.
            if kind == "cancelled":
                ctx = self._contexts.get(ev.id) or self._jobs.get(ev.id)
                if ctx is not None:
                    ctx._cancelled = True
            self._loop.call_soon_threadsafe(self._on_event, ev)
            return
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
        """Calls a handler and answers with ``answer(value)``. A plain function runs on
        the loop when the stdio loop may run it there (``picomcp._rescue``), otherwise in
        a worker thread (unless ``inline`` or ``max_workers=0``); a coroutine runs as a
        task, cancelled with its request. ``tool_errors``: a failure is answered
        ``answer(error)`` (a tool result with ``isError``)."""
        threaded = entry is not None and entry.threaded and self._workers is not None
        on_loop = threading.get_ident() == self._loop_thread
        if threaded:
            if self._inline and on_loop and self._deferred and not self._rescuing \
                    and not entry.always_thread and not self._coroutines:
                # On the loop, in the read that brought the call (picomcp._rescue): the
                # rescuer serves when handlers hold the loop up.
                if self._held_since is None:
                    self._held_since = time.monotonic()
                    self._rescue.arm()
            else:
                self._jobs[ctx.request_id] = ctx
                # Not run when the client cancels it before a thread takes it.
                self._workers.submit((ctx, answer, tool_errors), handler)
                if on_loop and not self._deferred:
                    self._workers.kick()
                return  # off the loop (the rescuer), the pump wakes a thread
        elif not on_loop and entry is not None:  # the rescuer: inline=True is the loop's
            self._loop.call_soon_threadsafe(self._run, ctx, handler, entry, answer,
                                            tool_errors)
            return
        try:
            result = handler()
        except BaseException as e:
            if not isinstance(e, (Exception, _InputRequired)):
                if not threaded or isinstance(e, KeyboardInterrupt):
                    raise  # Ctrl-C stops the server wherever the loop's thread was
                e = RuntimeError(repr(e))  # SystemExit in a plain def, as in a thread
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
            if ok:  # the common case, with no detour through _deliver
                if not ctx._cancelled:
                    answer(value)
            else:
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
