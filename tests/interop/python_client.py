#!/usr/bin/env python3
"""Interop client: drive any stdio MCP demo server with the OFFICIAL Python SDK.

Usage (after tests/interop/setup.sh):

    target/interop/venv/bin/python tests/interop/python_client.py [--mode legacy|auto]
        [--expect-version VERSION] [--timeout-scale N] SERVER_CMD [ARGS...]

The server command is started by the SDK's stdio transport (no shell; it inherits
this process's environment and working directory). Options must come before the
server command; `--` may separate them. With `--url URL` instead of a command, the SDK
connects to a running server over Streamable HTTP (`Client(URL)`;
tests/interop/python_http_client.py runs that against every HTTP demo).

The server implements the demo contract (/work/shared/DEMO_SERVER.md) or a subset of
it. Which checks apply is decided from what the server itself declares: its
capabilities (initialize / server/discover result) and tools/list, resources/list and
prompts/list. tools/list must hold at least `echo` and `add`; the `sleep` checks
(progress, cancellation) need a `sleep` tool, the resource check needs the `resources`
capability and test://static-text listed, the prompt check the `prompts` capability and
test_simple_prompt listed, the logging checks the `logging` capability. A check whose
feature is absent prints `ok - NAME # SKIP REASON`; a declared feature that misbehaves
fails.

Modes (mcp 2.3.0 `Client(mode=...)`):
  legacy  `initialize` handshake only; the SDK proposes 2025-11-25.
  auto    the SDK default: `server/discover` at 2026-07-28 first. A DiscoverResult
          selects the modern era; a JSON-RPC error falls back to `initialize` at
          once; silence costs the SDK's 10 s probe timeout. We check the connect
          took < 5 s. In the modern era `ping` and `logging/setLevel` are removed
          methods, so those checks expect -32601 instead, and a per-request
          `_meta` logLevel replaces setLevel.

--timeout-scale N multiplies every timeout and the run's budget by N (for slow servers
such as the firmware under QEMU); the 5 s limit on the auto-mode connect is not scaled.

Output: one line per check, `ok - NAME`, `ok - NAME # SKIP REASON` or
`not ok - NAME: REASON`, then `N passed, M failed, K skipped`. Exit status 1 if any
check failed. Every check has its own timeout and the whole run is bounded (about 60 s,
times the scale, even against a hung server).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import threading
import time
import warnings
from typing import Any

import anyio

try:
    import mcp_types as types
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters
    from mcp.shared.exceptions import MCPDeprecationWarning, MCPError
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS
except ImportError as e:  # pragma: no cover - setup problem, not a check
    sys.exit(f"python_client.py: cannot import the mcp SDK ({e}); run tests/interop/setup.sh "
             "and use target/interop/venv/bin/python")

# ping / logging/setLevel are deprecated (removed in 2026-07-28); we call them on purpose.
warnings.simplefilter("ignore", MCPDeprecationWarning)

BUDGET_S = 48.0          # all checks together; SDK shutdown adds at most ~6 s
HARD_LIMIT_S = 58.0      # watchdog: never run longer than this
CHECK_TIMEOUT_S = 5.0    # default per check
AUTO_CONNECT_LIMIT_S = 5.0
CONNECT_TIMEOUT_S = 20.0  # auto mode against a silent probe needs 10 s + initialize


def scale_timeouts(n: float) -> None:
    """--timeout-scale: everything but AUTO_CONNECT_LIMIT_S (that one spots the SDK's
    10 s probe timeout, which does not depend on the server's speed)."""
    global BUDGET_S, HARD_LIMIT_S, CHECK_TIMEOUT_S, CONNECT_TIMEOUT_S
    BUDGET_S *= n
    HARD_LIMIT_S *= n
    CHECK_TIMEOUT_S *= n
    CONNECT_TIMEOUT_S *= n

# Unicode (BMP + astral), both quote kinds, backslash, newline, tab, U+2028.
ECHO_TEXT = 'Grüße, 世界! "double" \'single\' back\\slash \\n-literal\nnew line\ttab 😀 \u2028 end'

METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602


class Report:
    def __init__(self) -> None:
        self.passed = 0
        self.failed = 0
        self.skipped = 0

    def ok(self, name: str, note: str = "") -> None:
        self.passed += 1
        print(f"ok - {name}{f' ({note})' if note else ''}", flush=True)

    def skip(self, name: str, reason: str) -> None:
        self.skipped += 1
        print(f"ok - {name} # SKIP {reason}", flush=True)

    def fail(self, name: str, reason: str) -> None:
        self.failed += 1
        reason = " ".join(str(reason).split()) or "failed"
        print(f"not ok - {name}: {reason}", flush=True)

    def summary(self) -> int:
        print(f"{self.passed} passed, {self.failed} failed, {self.skipped} skipped", flush=True)
        return 1 if self.failed else 0


class CheckFailed(Exception):
    pass


def expect(cond: bool, reason: str) -> None:
    if not cond:
        raise CheckFailed(reason)


def describe(e: BaseException) -> str:
    if isinstance(e, MCPError):
        return f"JSON-RPC error {e.code}: {e.message}"
    if isinstance(e, BaseExceptionGroup):
        return "; ".join(describe(x) for x in e.exceptions)
    return f"{type(e).__name__}: {e}"


class Run:
    """Runs named checks against one connected client, each with a timeout."""

    def __init__(self, report: Report, deadline: float) -> None:
        self.report = report
        self.deadline = deadline  # time.monotonic() value

    async def check(self, name: str, fn, timeout: float | None = None) -> None:
        left = self.deadline - time.monotonic()
        if left <= 0:
            self.report.fail(name, "skipped: time budget for the run is used up")
            return
        timeout = min(CHECK_TIMEOUT_S if timeout is None else timeout, left)
        try:
            with anyio.fail_after(timeout):
                note = await fn()
        except TimeoutError:
            self.report.fail(name, f"timed out after {timeout:.1f} s")
        except CheckFailed as e:
            self.report.fail(name, str(e))
        except Exception as e:
            self.report.fail(name, describe(e))
        else:
            self.report.ok(name, note or "")

    async def check_if(self, present: str | None, name: str, fn, timeout: float | None = None) -> None:
        """`check`, or a skip when `present` names a missing feature (None: present)."""
        if present is not None:
            self.report.skip(name, present)
        else:
            await self.check(name, fn, timeout)


async def expect_error(coro, code: int) -> str:
    """Await `coro`, which must fail with JSON-RPC error `code`."""
    try:
        result = await coro
    except MCPError as e:
        expect(e.code == code, f"expected JSON-RPC error {code}, got {e.code}: {e.message}")
        return f"{e.code} {e.message}"
    raise CheckFailed(f"expected JSON-RPC error {code}, got a result: {result!r}"[:300])


def text_blocks(result: types.CallToolResult) -> list[str]:
    return [c.text for c in result.content if isinstance(c, types.TextContent)]


async def run_checks(client: Client, run: Run, modern: bool, progress_log: list[tuple[float, Any]]) -> None:
    async def liveness() -> str:
        # ping is a removed method in 2026-07-28; any request proves liveness there.
        if modern:
            await client.list_tools()
            return "tools/list answered (modern era has no ping)"
        await client.send_ping()
        return "ping answered"

    # --- ping -----------------------------------------------------------------
    if modern:
        await run.check("ping removed in modern era (-32601)",
                        lambda: expect_error(client.send_ping(), METHOD_NOT_FOUND))
    else:
        async def ping() -> None:
            result = await client.send_ping()
            expect(isinstance(result, types.EmptyResult), f"unexpected result {result!r}")
        await run.check("ping", ping)

    # --- what the server declares --------------------------------------------------
    caps = client.server_capabilities
    tool_names: list[str] = []

    # --- tools/list ---------------------------------------------------------------
    async def tools_list() -> str:
        expect(caps.tools is not None, "the server does not declare the tools capability")
        tool_names.extend(t.name for t in (await client.list_tools()).tools)
        missing = [n for n in ("echo", "add") if n not in tool_names]
        expect(not missing, f"missing tools {missing}; got {tool_names}")
        return f"{len(tool_names)} tools: {', '.join(tool_names)}"
    await run.check("tools/list has echo and add", tools_list)
    no_sleep = None if "sleep" in tool_names else "no sleep tool in tools/list"

    # --- echo -------------------------------------------------------------------------
    async def echo() -> None:
        result = await client.call_tool("echo", {"text": ECHO_TEXT})
        expect(not result.is_error, f"isError result: {text_blocks(result)}")
        texts = text_blocks(result)
        expect(len(result.content) == 1 and len(texts) == 1, f"expected one text block, got {result.content!r}")
        expect(texts[0] == ECHO_TEXT, f"text differs: sent {ECHO_TEXT!r}, got {texts[0]!r}")
    await run.check("tools/call echo returns the text byte for byte", echo)

    # --- add ----------------------------------------------------------------------------
    async def add() -> None:
        result = await client.call_tool("add", {"a": 2, "b": 3})
        expect(not result.is_error, f"isError result: {text_blocks(result)}")
        expect(result.structured_content == {"sum": 5}, f"structuredContent is {result.structured_content!r}")
        texts = text_blocks(result)
        expect(bool(texts), "no text block next to structuredContent")
        try:
            parsed = json.loads(texts[0])
        except ValueError:
            raise CheckFailed(f"text block is not JSON: {texts[0]!r}") from None
        expect(parsed == {"sum": 5}, f"text block JSON is {parsed!r}, not {{\"sum\": 5}}")
    await run.check("tools/call add returns structuredContent {sum: 5}", add)

    # --- sleep with progress --------------------------------------------------------------
    async def sleep_progress() -> str:
        seen: list[float] = []

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            seen.append(progress)

        result = await client.call_tool("sleep", {"ms": 50, "steps": 3}, progress_callback=on_progress)
        expect(not result.is_error, f"isError result: {text_blocks(result)}")
        expect(text_blocks(result) == ["slept"], f"expected text 'slept', got {text_blocks(result)!r}")
        # Progress callbacks run as tasks; give stragglers a moment, then count.
        with anyio.move_on_after(1.0):
            while len(seen) < 3:
                await anyio.sleep(0.01)
        await anyio.sleep(0.1)
        expect(len(seen) == 3, f"expected 3 progress notifications, got {len(seen)}: {seen}")
        expect(all(a < b for a, b in zip(seen, seen[1:])), f"progress does not increase: {seen}")
        return f"progress {seen}"
    await run.check_if(no_sleep, "tools/call sleep sends 3 progress notifications", sleep_progress)

    # --- sleep cancellation -------------------------------------------------------------------
    cancel_state: dict[str, Any] = {}

    async def sleep_cancel() -> str:
        first_progress = anyio.Event()
        finished: dict[str, Any] = {}

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            first_progress.set()

        async def caller(scope: anyio.CancelScope) -> None:
            with scope:
                finished["result"] = await client.call_tool(
                    "sleep", {"ms": 10000, "steps": 100}, progress_callback=on_progress)

        scope = anyio.CancelScope()
        async with anyio.create_task_group() as tg:
            tg.start_soon(caller, scope)
            # Cancel once the server is provably working on it (first progress), or after 2 s.
            with anyio.move_on_after(2.0):
                await first_progress.wait()
            started = first_progress.is_set()
            cancel_state["at"] = time.monotonic()
            scope.cancel()  # the SDK sends notifications/cancelled for the abandoned request
        if "result" in finished:
            r = finished["result"]
            raise CheckFailed(f"sleep returned isError before the cancel: {text_blocks(r)}" if r.is_error
                              else "the 10 s sleep completed instead of being cancelled")
        # The session must still work after the cancellation.
        await anyio.sleep(0.8)
        cancel_state["window_end"] = time.monotonic()
        note = await liveness()
        return f"cancelled {'after first progress' if started else 'after 2 s without progress'}; {note}"
    await run.check_if(no_sleep, "tools/call sleep can be cancelled, session still works", sleep_cancel)

    async def nothing_after_cancel() -> str:
        expect("at" in cancel_state and "window_end" in cancel_state, "cancellation check did not run")
        grace = 0.2
        late = [p for t, p in progress_log
                if cancel_state["at"] + grace < t <= cancel_state["window_end"]]
        expect(not late, f"{len(late)} progress notifications more than {grace} s after the cancel, "
                         f"e.g. {late[0]!r}" if late else "")
        return "no progress notifications after the cancel"
    await run.check_if(no_sleep, "cancelled sleep sends nothing more", nothing_after_cancel)

    # --- unknown tool -------------------------------------------------------------------------
    async def unknown_tool() -> str:
        return await expect_error(client.call_tool("no_such_tool_xyz", {}), INVALID_PARAMS)
    await run.check("tools/call unknown tool is JSON-RPC error -32602", unknown_tool)

    # --- resources ----------------------------------------------------------------------------
    uris: list[str] = []

    async def resources_list() -> str:
        uris.extend(str(r.uri) for r in (await client.list_resources()).resources)
        return f"{len(uris)} resources"
    no_resources = None if caps.resources is not None else "no resources capability declared"
    await run.check_if(no_resources, "resources/list", resources_list)

    async def resources_read() -> str:
        contents = (await client.read_resource("test://static-text")).contents
        expect(len(contents) >= 1, "resources/read returned no contents")
        c = contents[0]
        expect(isinstance(c, types.TextResourceContents), f"expected text contents, got {type(c).__name__}")
        expect(str(c.uri) == "test://static-text", f"contents uri is {c.uri}")
        expect(bool(c.text), "empty text")
        return f"{len(c.text)} chars"
    await run.check_if(no_resources or (None if "test://static-text" in uris
                                        else f"test://static-text not in resources/list ({uris})"),
                       "resources/read test://static-text returns its text", resources_read)

    # --- prompts ------------------------------------------------------------------------------
    prompt_names: list[str] = []

    async def prompts_list() -> str:
        prompt_names.extend(p.name for p in (await client.list_prompts()).prompts)
        return f"{len(prompt_names)} prompts"
    no_prompts = None if caps.prompts is not None else "no prompts capability declared"
    await run.check_if(no_prompts, "prompts/list", prompts_list)

    async def prompts_get() -> str:
        messages = (await client.get_prompt("test_simple_prompt")).messages
        expect(len(messages) >= 1, "prompts/get returned no messages")
        return f"{len(messages)} message(s), first role {messages[0].role}"
    await run.check_if(no_prompts or (None if "test_simple_prompt" in prompt_names
                                      else f"test_simple_prompt not in prompts/list ({prompt_names})"),
                       "prompts/get test_simple_prompt returns messages", prompts_get)

    # --- logging ------------------------------------------------------------------------------
    no_logging = None if caps.logging is not None else "no logging capability declared"
    if modern:
        # Removed in 2026-07-28 whatever the capabilities say.
        await run.check("logging/setLevel removed in modern era (-32601)",
                        lambda: expect_error(client.set_logging_level("debug"), METHOD_NOT_FOUND))

        async def log_level_meta() -> None:
            result = await client.call_tool("echo", {"text": "log"},
                                            meta={"io.modelcontextprotocol/logLevel": "debug"})
            expect(text_blocks(result) == ["log"], f"unexpected result {result!r}")
        await run.check_if(no_logging, "request with _meta logLevel succeeds", log_level_meta)
    else:
        async def set_level() -> None:
            result = await client.set_logging_level("debug")
            expect(isinstance(result, types.EmptyResult), f"unexpected result {result!r}")
        await run.check_if(no_logging, "logging/setLevel", set_level)


async def main_async(mode: str, argv: list[str], expect_version: str | None, report: Report,
                     url: str | None = None) -> None:
    t0 = time.monotonic()
    progress_log: list[tuple[float, Any]] = []

    async def message_handler(message: Any) -> None:
        # Tee of every server notification; used to spot progress sent after a cancel.
        if isinstance(message, types.ProgressNotification):
            progress_log.append((time.monotonic(), message.params.progress))

    params: Any = (url if url else
                   StdioServerParameters(command=argv[0], args=argv[1:], env=dict(os.environ),
                                         cwd=os.getcwd()))
    client = Client(params, mode=mode, cache=None, message_handler=message_handler,
                    client_info=types.Implementation(name="picomcp-interop-python", version="0.1.0"))
    connected = False
    with anyio.CancelScope(deadline=anyio.current_time() + CONNECT_TIMEOUT_S) as outer:
        try:
            async with client:
                connected = True
                outer.deadline = anyio.current_time() + BUDGET_S + 2 - (time.monotonic() - t0)
                elapsed = time.monotonic() - t0
                version = client.protocol_version
                modern = version in MODERN_PROTOCOL_VERSIONS
                info = client.server_info
                who = f"{info.name} {info.version}" if info else "anonymous server"
                how = "server/discover" if modern else "initialize"
                report.ok("initialize", f"mode {mode}: {how}, protocol {version}, {who}, {elapsed:.2f} s")
                if expect_version:
                    if version == expect_version:
                        report.ok(f"negotiated protocol is {expect_version}")
                    else:
                        report.fail(f"negotiated protocol is {expect_version}", f"got {version} via {how}")
                if mode == "auto":
                    if elapsed < AUTO_CONNECT_LIMIT_S:
                        report.ok(f"auto connect < {AUTO_CONNECT_LIMIT_S:.0f} s", f"{elapsed:.2f} s")
                    else:
                        report.fail(f"auto connect < {AUTO_CONNECT_LIMIT_S:.0f} s",
                                    f"took {elapsed:.2f} s: the server/discover probe was not answered "
                                    "promptly (the SDK waits 10 s on silence)")
                await run_checks(client, Run(report, t0 + BUDGET_S), modern, progress_log)
        except Exception as e:
            report.fail("initialize" if not connected else "session", describe(e))
    if outer.cancelled_caught:
        if connected:
            report.fail("session", f"run exceeded {BUDGET_S + 2:.0f} s")
        else:
            report.fail("initialize", f"no connection within {CONNECT_TIMEOUT_S:.0f} s")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mode", choices=["legacy", "auto"], default="legacy",
                    help="legacy: initialize only; auto: server/discover probe first (SDK default)")
    ap.add_argument("--expect-version", metavar="VERSION",
                    help="fail unless this protocol version is negotiated (e.g. 2026-07-28 for a dual-era "
                         "server in auto mode: the SDK silently falls back to initialize when a "
                         "DiscoverResult does not validate)")
    ap.add_argument("--timeout-scale", type=float, default=1.0, metavar="N",
                    help="multiply every timeout (and the run's budget) by N, for slow servers")
    ap.add_argument("--url", metavar="URL",
                    help="connect over Streamable HTTP to a running server instead of a command")
    ap.add_argument("server", nargs=argparse.REMAINDER, help="server command and its arguments")
    ns = ap.parse_args()
    if ns.timeout_scale > 0:
        scale_timeouts(ns.timeout_scale)
    argv = ns.server[1:] if ns.server[:1] == ["--"] else ns.server
    if not argv and not ns.url:
        ap.error("missing SERVER_CMD")
    # Keep the SDK's own log noise (e.g. dropped late responses) off unless asked.
    logging.basicConfig(level=os.environ.get("INTEROP_LOG", "WARNING"), stream=sys.stderr)

    report = Report()

    def watchdog() -> None:
        report.fail("watchdog", f"the run did not finish within {HARD_LIMIT_S:.0f} s")
        report.summary()
        os._exit(1)

    timer = threading.Timer(HARD_LIMIT_S, watchdog)
    timer.daemon = True
    timer.start()
    anyio.run(main_async, ns.mode, argv, ns.expect_version, report, ns.url)
    timer.cancel()
    return report.summary()


if __name__ == "__main__":
    sys.exit(main())
