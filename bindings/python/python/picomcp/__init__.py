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

      @app.tool
      def echo(text: str) -> str:
          "Returns its text."
          return text

      app.run()
"""

from ._native import (
    FEATURES,
    PROTOCOL_VERSIONS,
    ConfigError,
    ENTROPY_LEN,
    Endpoint,
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
from ._results import Audio, EmbeddedResource, Image, ResourceLink, ToolResult
from ._schema import Field
from .server import Context, McpError, ResourceNotFound, Server, ToolError

__all__ = [
    "Audio",
    "EmbeddedResource",
    "Field",
    "Image",
    "ResourceLink",
    "ResourceNotFound",
    "ToolResult",
    "FEATURES",
    "PROTOCOL_VERSIONS",
    "Call",
    "ConfigError",
    "Context",
    "ENTROPY_LEN",
    "Endpoint",
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
