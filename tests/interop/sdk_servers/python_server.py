"""A stdio MCP server on the official Python SDK (mcp 2.3.0), for probing our client role.

Run by tests/interop/sdk_servers/run.sh with the interop venv:

    target/interop/venv/bin/python tests/interop/sdk_servers/python_server.py

It uses the SDK's decorator API (`MCPServer`, formerly FastMCP) and offers:

* tools `echo` (text -> the same text) and `add` (a + b; logs one message and reports
  progress through the request context),
* a static resource `test://static-text` (text/plain) and a resource template
  `test://greeting/{name}`,
* a prompt `greet` with a required argument `name`,
* `logging/setLevel` (legacy revisions; deprecated in 2026-07-28): `MCPServer` has no
  option for it, so the handler is added on its low-level server, which then declares
  the `logging` capability.

The SDK negotiates 2026-07-28 (server/discover) and the legacy revisions via initialize.
With `--http PORT` it serves Streamable HTTP instead (see `main`).
"""

from mcp import types
from mcp.server import MCPServer
from mcp.server.mcpserver import Context

mcp = MCPServer("picomcp-interop-python", version="0.1.0")


@mcp.tool(description="Echo the text back.")
def echo(text: str) -> str:
    return text


@mcp.tool(description="Add two numbers.")
async def add(a: float, b: float, ctx: Context) -> float:
    await ctx.report_progress(1, 2, "adding")
    await ctx.info(f"add({a}, {b})")
    await ctx.report_progress(2, 2, "done")
    return a + b


@mcp.resource("test://static-text", name="static-text", description="A fixed text.", mime_type="text/plain")
def static_text() -> str:
    return "This is a static text resource.\n"


@mcp.resource(
    "test://greeting/{name}", name="greeting", description="A greeting for NAME.", mime_type="text/plain"
)
def greeting(name: str) -> str:
    return f"Hello, {name}!"


@mcp.prompt(description="Ask for a greeting to NAME.")
def greet(name: str) -> str:
    return f"Please write a short greeting to {name}."


async def _set_level(ctx, params: types.SetLevelRequestParams) -> types.EmptyResult:
    return types.EmptyResult()


mcp._lowlevel_server.add_request_handler("logging/setLevel", types.SetLevelRequestParams, _set_level)


def main() -> None:
    """stdio by default; `--http PORT` serves Streamable HTTP on 127.0.0.1:PORT/mcp with
    uvicorn (`--json`: application/json answers instead of SSE; `--stateless`: no
    sessions), as tests/interop/http/run.sh runs it."""
    import sys

    args = sys.argv[1:]
    if "--http" not in args:
        mcp.run()  # stdio
        return
    import uvicorn

    port = int(args[args.index("--http") + 1])
    app = mcp.streamable_http_app(
        json_response="--json" in args,
        stateless_http="--stateless" in args,
        host="127.0.0.1",  # the SDK's DNS-rebinding protection on, for loopback names
    )
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)


if __name__ == "__main__":
    main()
