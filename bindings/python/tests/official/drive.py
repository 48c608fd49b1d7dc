"""Drives a server with the official Python client (mcp 2.3.0) and prints what it saw as
one JSON object. Run with target/interop/venv's python:

    drive.py SCENARIO MODE SERVER_ARGV...

SCENARIO is ``notes`` or ``faults``; MODE is ``legacy`` or ``auto``. test_official.py
asserts on the output. Everything is bounded by timeouts.
"""
import json
import os
import sys
import time

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError


def dump(result):
    return result.model_dump(mode="json", by_alias=True, exclude_none=True)


async def attempt(coro):
    try:
        return {"ok": dump(await coro)}
    except MCPError as e:
        return {"error": {"code": e.error.code, "message": e.error.message}}
    except Exception as e:  # the client refused the answer
        return {"exception": "%s: %s" % (type(e).__name__, e)}


async def notes(client, out):
    out["tools"] = dump(await client.list_tools())["tools"]
    out["templates"] = dump(await client.list_resource_templates())["resourceTemplates"]
    out["prompts"] = dump(await client.list_prompts())["prompts"]
    out["add1"] = await attempt(client.call_tool("add_note", {"title": "Milk", "body": "2 l"}))
    out["add2"] = await attempt(client.call_tool("add_note", {"title": "Call", "body": "Ada"}))
    out["search"] = await attempt(client.call_tool("search_notes", {"query": "ada"}))
    out["search_limit"] = await attempt(client.call_tool("search_notes", {"query": "", "limit": 1}))
    out["bad_limit"] = await attempt(client.call_tool("search_notes", {"query": "x", "limit": "ten"}))
    out["unknown_tool"] = await attempt(client.call_tool("no_such_tool", {}))
    out["read1"] = await attempt(client.read_resource("note://1"))
    out["read99"] = await attempt(client.read_resource("note://99"))
    out["prompt"] = await attempt(client.get_prompt("summarize", {"topic": "shopping"}))


async def faults(client, out):
    call = client.call_tool
    for name, args in [("boom", {}), ("bare", {"n": 2}), ("noisy", {}), ("returns_dict", {}),
                       ("returns_list", {}), ("returns_none", {}), ("returns_model", {}),
                       ("returns_image", {}), ("add", {"a": 1, "b": "2"}),
                       ("add", {"a": 1}), ("add", {"a": 1, "b": 2}), ("point", {"p": {"x": 1, "y": 2}})]:
        out.setdefault(name, []).append(await attempt(call(name, args)))
    # A blocking sync tool: ping and another call are answered while it sleeps.
    done = {}

    async def blocked():
        t = time.monotonic()
        done["block"] = await attempt(call("block", {"seconds": 2.0}))
        done["block_s"] = time.monotonic() - t

    async with anyio.create_task_group() as tg:
        tg.start_soon(blocked)
        await anyio.sleep(0.3)
        t = time.monotonic()
        if client.protocol_version < "2026":
            await client.send_ping()
        out["ping_s"] = time.monotonic() - t
        t = time.monotonic()
        out["add_during_block"] = await attempt(call("add", {"a": 2, "b": 3}))
        out["add_during_block_s"] = time.monotonic() - t
        out["block_done_before_ping"] = "block" in done
    out.update(done)


async def main():
    scenario, mode, argv = sys.argv[1], sys.argv[2], sys.argv[3:]
    params = StdioServerParameters(command=argv[0], args=argv[1:], env=dict(os.environ),
                                   cwd=os.getcwd())
    out = {}
    with anyio.fail_after(60):
        async with Client(params, mode=mode, cache=None) as client:
            out["version"] = client.protocol_version
            await {"notes": notes, "faults": faults}[scenario](client, out)
    print(json.dumps(out))


if __name__ == "__main__":
    anyio.run(main)
