"""picomcp._native: the picomcp core session for Python (hand-written stub).

Kept in step with bindings/python/src/*.rs by tests/test_stub.py.
"""

from typing import Any, Literal, TypeAlias, TypedDict, final

# ---- aliases (stub-only; not names of the module) ----

_Role: TypeAlias = Literal["server", "client"]
_Phase: TypeAlias = Literal["initializing", "awaiting_initialized", "operating", "closed"]
_Era: TypeAlias = Literal["opening", "legacy", "modern"]
_LogLevel: TypeAlias = Literal[
    "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"
]
_EventKind: TypeAlias = Literal[
    "request",
    "notification",
    "response",
    "error_response",
    "timed_out",
    "cancelled",
    "progress",
    "negotiated",
    "ready",
    "input_required",
    "subscription_acknowledged",
    "invalid_result",
    "subscription_ended",
    "peer_violation",
    "closed",
    "unknown",
]
_Feature: TypeAlias = Literal[
    "batches",
    "tool_annotations",
    "audio_content",
    "progress_message",
    "completions_capability",
    "title",
    "output_schema",
    "structured_content",
    "resource_links",
    "completion_context",
    "elicitation",
    "elicitation_modes",
    "elicitation_enums",
    "icons",
    "argument_errors_as_tool_results",
    "sampling_tools",
    "error_without_id",
    "tasks",
    "tool_execution",
    "url_elicitation_required_error",
    "server_requests",
    "input_required",
    "result_type",
    "resource_not_found_invalid_params",
]
# A JSON object: a dict (serialised with json.dumps), or str/bytes already holding JSON text.
_JsonObject: TypeAlias = dict[str, Any] | str | bytes

class _Stats(TypedDict):
    lines_in: int
    messages_out: int
    violations: int

class _Limits(TypedDict):
    max_line: int
    max_depth: int
    max_id_len: int
    max_batch: int

class _RequestInfo(TypedDict):
    method: str
    modern: bool
    log_level: _LogLevel | None
    has_progress_token: bool
    cancelled: bool

# ---- constants ----

PROTOCOL_VERSIONS: list[str]
"""Every protocol revision the core knows, oldest first."""

FEATURES: list[str]
"""The names of every difference between revisions the core's feature table knows, in
table order (each is a `_Feature`)."""

def features(version: str) -> list[_Feature]:
    """The names of the features protocol revision `version` has (`"output_schema"`,
    `"argument_errors_as_tool_results"`, ...): the core's table of what each revision
    changes. Ask it instead of comparing revisions (`ValueError` for an unknown one)."""

__version__: str
"""The version of the picomcp package this module was built with."""

# ---- exceptions ----

class PicomcpError(Exception):
    """Base class of every picomcp exception."""

class ConfigError(PicomcpError):
    """The session configuration is invalid (raised by `Session(...)`)."""

class SendError(PicomcpError):
    """A request, notification, log or progress message cannot be sent now."""

class RespondError(PicomcpError):
    """A request cannot be answered that way (unknown or finished request, bad result)."""

class QueueFull(PicomcpError):
    """The transmit queue has no room: write out `poll_transmit()` and try again."""

# ---- classes ----

@final
class Event:
    """Something that happened on the session, taken from `Session.poll_event()`."""

    @property
    def kind(self) -> _EventKind:
        """Which kind of event this is (`"request"`, `"response"`, `"closed"`, ...)."""
    @property
    def id(self) -> int | None:
        """Handle of the peer's request (for `respond`) or of ours (from `send_request`)."""
    @property
    def method(self) -> str | None:
        """Wire method name (`"tools/call"`); on `peer_violation` the method it names, if any."""
    @property
    def params(self) -> dict[str, Any] | None:
        """Request/notification params, as Python values."""
    @property
    def result(self) -> dict[str, Any] | None:
        """A response's result (also the invalid result of `invalid_result`)."""
    @property
    def code(self) -> int | None:
        """Error response code."""
    @property
    def message(self) -> str | None:
        """Error response message."""
    @property
    def data(self) -> Any:
        """Error response data."""
    @property
    def reason(self) -> str | None:
        """Cancellation reason."""
    @property
    def progress(self) -> float | None:
        """`progress`: the progress value."""
    @property
    def total(self) -> float | None:
        """`progress`: the total, if the peer sent one."""
    @property
    def version(self) -> str | None:
        """The negotiated protocol revision (`negotiated`, `ready`)."""
    @property
    def peer(self) -> dict[str, Any] | None:
        """`negotiated`: the peer's side of the handshake."""
    @property
    def requests(self) -> dict[str, Any] | None:
        """`input_required`: `inputRequests`; `subscription_acknowledged`: the filter."""
    @property
    def name(self) -> str | None:
        """`peer_violation` and `closed`: a short name (`"malformed"`, `"peer_closed"`)."""
    @property
    def text(self) -> str | None:
        """`peer_violation` and `closed`: a sentence for people."""

@final
class Session:
    """One MCP connection: newline-delimited JSON-RPC in, lines, events and deadlines out."""

    def __new__(
        cls,
        role: _Role,
        name: str,
        version: str,
        capabilities: _JsonObject | None = None,
        *,
        instructions: str | None = None,
        versions: list[str] | None = None,
        max_line: int = 1048576,
        max_depth: int = 64,
        max_id_len: int = 128,
        inbound_slots: int = 16,
        outbound_slots: int = 16,
        request_timeout_ms: int | None = None,
        probe_timeout_ms: int = 3000,
        state_key: bytes | None = None,
        state_ttl_ms: int = 600000,
        now_ms: int = 0,
    ) -> Session:
        """Creates a session (`ConfigError` for a bad role, version, limit or a
        `state_key` shorter than 16 bytes). With `state_key` (server, 2026-07-28) the
        core seals `requestState` (HMAC-SHA256, valid `state_ttl_ms`) and hands the
        retry's state back plain; a tampered or expired one is answered -32602."""

    # ---- getters ----

    @property
    def role(self) -> _Role:
        """`"server"` or `"client"`."""
    @property
    def phase(self) -> _Phase:
        """`"initializing"`, `"awaiting_initialized"`, `"operating"` or `"closed"`."""
    @property
    def version(self) -> str | None:
        """The negotiated revision (`"2025-11-25"`), or `None` before negotiation."""
    @property
    def era(self) -> _Era:
        """`"opening"`, `"legacy"` (initialize handshake) or `"modern"` (2026-07-28)."""
    @property
    def log_level(self) -> _LogLevel | None:
        """Server, legacy era: the level the client set with `logging/setLevel`, if any."""
    @property
    def stats(self) -> _Stats:
        """Counters: `lines_in`, `messages_out`, `violations`."""
    @property
    def limits(self) -> _Limits:
        """The limits in force: `max_line`, `max_depth`, `max_id_len`, `max_batch`."""

    # ---- queries ----

    def is_open(self, id: int) -> bool:
        """True while the peer's request `id` still waits for our answer."""
    def is_subscribed(self, uri: str) -> bool:
        """True when somebody subscribed to `uri`."""
    def request_info(self, id: int) -> _RequestInfo | None:
        """What the session knows of the peer's open request `id` (`None` once answered)."""

    # ---- inputs ----

    def handle_bytes(self, now_ms: int, data: bytes) -> int:
        """Feeds bytes read from the peer; returns how many were taken."""
    def handle_eof(self, now_ms: int) -> None:
        """The peer closed its stream."""
    def handle_timeout(self, now_ms: int) -> None:
        """Time passed: expire timeouts (call when `poll_timeout()` is due)."""

    # ---- outputs ----

    def poll_transmit(self) -> bytes:
        """Everything queued for the peer, as framed lines (`b""` when nothing is queued)."""
    def poll_event(self) -> Event | None:
        """The next event, or `None`."""
    def has_events(self) -> bool:
        """True when `poll_event()` has something."""
    def poll_timeout(self) -> int | None:
        """When `handle_timeout` is next due (milliseconds on the caller's clock), or `None`."""

    # ---- commands: answering the peer ----

    def respond(self, id: int, result: _JsonObject) -> None:
        """Answers the peer's request `id` with a result object (`dict` or JSON text)."""
    def respond_error(self, id: int, code: int, message: str, data: Any = None) -> None:
        """Answers the peer's request `id` with a JSON-RPC error. `data` is any JSON value."""
    def respond_missing_capability(self, id: int, required: _JsonObject) -> None:
        """2026-07-28: answers -32021 (missing client capability) naming `required`."""
    def respond_input_required(
        self,
        id: int,
        input_requests: _JsonObject | None = None,
        request_state: str | None = None,
    ) -> None:
        """2026-07-28: answers `resultType: "input_required"` (MRTR)."""
    def progress(
        self,
        id: int,
        progress: float,
        total: float | None = None,
        message: str | None = None,
    ) -> None:
        """Reports progress on the peer's request `id` (only if it asked for progress)."""
    def log(
        self,
        level: _LogLevel,
        data: Any,
        logger: str | None = None,
        id: int | None = None,
    ) -> bool:
        """Server: sends `notifications/message` if the client's level lets it through."""
    def notify(self, change: str, uri: str | None = None) -> int:
        """Server: announces a change; returns how many notifications were queued."""

    # ---- commands: asking the peer ----

    def send_request(
        self,
        now_ms: int,
        method: str,
        params: _JsonObject | None = None,
        *,
        timeout_ms: int | None = None,
        progress: bool = False,
        reset_timeout_on_progress: bool = False,
        max_total_ms: int | None = None,
    ) -> int:
        """Sends a request; returns its handle (events about it carry this `id`)."""
    def send_notification(self, method: str, params: _JsonObject | None = None) -> None:
        """Sends a notification (checked against the negotiated capabilities)."""
    def cancel(self, id: int, reason: str | None = None) -> None:
        """Cancels our request `id` (sends `notifications/cancelled`)."""
    def answer_input(self, now_ms: int, id: int, responses: _JsonObject) -> None:
        """Client, 2026-07-28: answers an `input_required` event."""
    def listen(self, notifications: _JsonObject) -> int:
        """Client, 2026-07-28: opens a `subscriptions/listen` stream; returns its handle."""
    def close(self) -> None:
        """Ends the session locally (a `closed` event follows; later input is ignored)."""
