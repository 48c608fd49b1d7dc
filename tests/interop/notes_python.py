"""The Node notes server (examples/node/notes_server.mjs) under the OFFICIAL Python SDK
client (mcp 2.3.0, tests/interop/setup.sh), in both modes: legacy (initialize) and auto
(server/discover, 2026-07-28). The SDK validates every result with pydantic, and
structured content against the tool's outputSchema.

    target/interop/venv/bin/python tests/interop/notes_python.py

Output: `ok - NAME` / `not ok - NAME: REASON`, then `N passed, M failed`; exit 1 on a failure.
"""
from __future__ import annotations

import os
import sys

import anyio

import mcp_types as types
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
results = {"passed": 0, "failed": 0}


def report(name: str, error: str | None) -> None:
    results["failed" if error else "passed"] += 1
    print(f"not ok - {name}: {error}" if error else f"ok - {name}", flush=True)


def texts(result) -> str:
    return "".join(c.text for c in result.content if c.type == "text")


async def run(mode: str) -> None:
    params = StdioServerParameters(command="node", args=["examples/node/notes_server.mjs"], cwd=ROOT,
                                   env=dict(os.environ))
    client = Client(params, mode=mode, cache=None,
                    client_info=types.Implementation(name="notes-python", version="0.1.0"))
    with anyio.fail_after(30):
        async with client:
            checks = []
            version = client.protocol_version

            async def tools():
                names = [t.name for t in (await client.list_tools()).tools]
                assert names == ["add_note", "search_notes"], names
                r = await client.call_tool("add_note", {"title": "Groceries", "body": "oat milk"})
                assert r.structured_content == {"id": 1}, r
                r = await client.call_tool("search_notes", {"query": "milk"})
                assert r.structured_content == {"notes": [{"id": 1, "title": "Groceries"}]}, r
                r = await client.call_tool("add_note", {"title": 3, "body": "x"})
                assert r.is_error and "title" in texts(r), r
            checks.append(("tools: add_note, search_notes (structured), a wrong argument type", tools))

            async def resource():
                r = await client.read_resource("note://1")
                assert r.contents[0].text == "# Groceries\n\noat milk", r
                try:
                    await client.read_resource("note://9")
                    raise AssertionError("note://9 was read")
                except MCPError as e:
                    assert e.error.code in (-32002, -32602), e
            checks.append(("the note://{id} template; a missing note is an error", resource))

            async def prompt():
                r = await client.get_prompt("summarize_notes", {"topic": "milk"})
                assert "about milk" in r.messages[0].content.text, r
            checks.append(("the prompt", prompt))

            for name, fn in checks:
                try:
                    await fn()
                    report(f"{mode} ({version}): {name}", None)
                except Exception as e:  # noqa: BLE001 (any failure is a report line)
                    report(f"{mode} ({version}): {name}", f"{type(e).__name__}: {e}")


async def main() -> None:
    for mode in ("legacy", "auto"):
        try:
            await run(mode)
        except Exception as e:  # noqa: BLE001
            report(f"{mode}: session", f"{type(e).__name__}: {e}")


anyio.run(main)
print(f"{results['passed']} passed, {results['failed']} failed")
sys.exit(1 if results["failed"] else 0)
