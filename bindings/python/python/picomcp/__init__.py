"""picomcp: a Model Context Protocol (MCP) engine for Python.

Two layers:

- ``Session`` (from the Rust core, ``picomcp._native``): one MCP connection, sans-IO.
  Feed it bytes and the time, take framed output, events and deadlines out. It owns
  framing, JSON-RPC, both protocol eras, version and capability negotiation and
  enforcement, ids, cancellation, progress and timeouts, for the server and client role.
- ``ServerLayer`` (also from the core): tools, resources, templates and prompts as data;
  it answers the lists, checks every call (arguments against the ``inputSchema``, URIs
  against templates) and shapes the results, handing the host one ``Call`` per request.
- ``Server`` (``picomcp.server``): a stdio server in a few lines, built on both::

      from picomcp import Server

      app = Server("my-server", "1.0.0")

      @app.tool(description="Returns its text", input_schema={
          "type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]})
      def echo(args, ctx):
          return args["text"]

      app.run()
"""

from ._native import (
    FEATURES,
    PROTOCOL_VERSIONS,
    ConfigError,
    Event,
    PicomcpError,
    Call,
    QueueFull,
    RespondError,
    ResultError,
    SendError,
    ServerLayer,
    Session,
    __version__,
    features,
    roots_contain,
)
from .server import Context, McpError, Server, ToolError

__all__ = [
    "FEATURES",
    "PROTOCOL_VERSIONS",
    "Call",
    "ConfigError",
    "Context",
    "Event",
    "McpError",
    "PicomcpError",
    "QueueFull",
    "RespondError",
    "ResultError",
    "SendError",
    "Server",
    "ServerLayer",
    "Session",
    "ToolError",
    "__version__",
    "features",
    "roots_contain",
]
