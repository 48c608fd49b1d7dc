"""picomcp: a Model Context Protocol (MCP) engine for Python.

Two layers:

- ``Session`` (from the Rust core, ``picomcp._native``): one MCP connection, sans-IO.
  Feed it bytes and the time, take framed output, events and deadlines out. It owns
  framing, JSON-RPC, both protocol eras, version and capability negotiation and
  enforcement, ids, cancellation, progress and timeouts, for the server and client role.
- ``Server`` (``picomcp.server``): a stdio server in a few lines, built on ``Session``::

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
    QueueFull,
    RespondError,
    SendError,
    Session,
    __version__,
    features,
    roots_contain,
)
from .server import Context, McpError, Server, ToolError

__all__ = [
    "FEATURES",
    "PROTOCOL_VERSIONS",
    "ConfigError",
    "Context",
    "Event",
    "McpError",
    "PicomcpError",
    "QueueFull",
    "RespondError",
    "SendError",
    "Server",
    "Session",
    "ToolError",
    "__version__",
    "features",
    "roots_contain",
]
