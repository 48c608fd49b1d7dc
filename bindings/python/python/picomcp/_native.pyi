"""picomcp._native: the picomcp core session for Python (hand-written stub).

Kept in step with bindings/python/src/*.rs by tests/test_stub.py.
"""

from typing import Any, Callable, Literal, TypeAlias, TypedDict, final

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
    "tool_changed",
    "pins_incomplete",
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
_CallKind: TypeAlias = Literal["tool", "read", "prompt", "complete"]
_CallTarget: TypeAlias = Literal["tool", "resource", "template", "prompt"]
# A definition or answer part in the protocol's shape (``{"name": ..., "inputSchema": ...}``).
_Dict: TypeAlias = dict[str, Any]

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
    client_capabilities: dict[str, Any]

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

def roots_contain(
    roots: list[str], target: str, case_insensitive: bool = False, windows: bool = False
) -> int | None:
    """Whether `target` (an absolute path or a `file:` URI) lies inside one of `roots` (the
    `file:` URIs of the client's `roots/list`): the index of the first root that contains
    it, or `None`. The core's rules (`picomcp::uri::roots`): `..` may not leave the root,
    `%2e%2e` is `..`, a `%2F` inside a name, NUL, bad escapes, a foreign host or a query
    raise `ValueError` (so does an invalid root when no valid one contains the target).
    `case_insensitive` compares names ignoring case; `windows` adds `\\` separators and
    drive letters."""

ENTROPY_LEN: int
"""How many random bytes `Endpoint.handle_request` takes (for a new session's id)."""

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

class ResultError(PicomcpError):
    """The server layer refused an answer (structured content that does not match the
    tool's outputSchema or is missing, a block the revision lacks). Nothing was queued.

    `SendError`, `RespondError`, `QueueFull` and `ResultError` instances carry `kind`:
    the Rust variant name of the error (`"NotNegotiated"`, `"InvalidStructured"`, ...).
    """

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
        """`peer_violation`, `closed`, `pins_incomplete`: a sentence for people;
        `tool_changed`: the tool's name."""
    @property
    def tool(self) -> str | None:
        """`tool_changed`: the name of the tool that differs from its pin."""
    @property
    def digests(self) -> tuple[str, str] | None:
        """`tool_changed`: `(old, new)`, the pinned and the new digest (32 lowercase hex digits)."""
    @property
    def unpinned(self) -> int | None:
        """`pins_incomplete`: new tools that found no free pin (the pin table is full)."""
    @property
    def unreported(self) -> int | None:
        """`pins_incomplete`: changed tools not reported this time (the next list reports them)."""

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
    def peer_capabilities(self) -> dict[str, Any]:
        """The peer's capabilities from the handshake, as the core read them (`{}` before)."""
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
    def handle_message(self, now_ms: int, data: bytes) -> bool:
        """Feeds one whole message (as an HTTP body carries it); False when busy."""
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

@final
class Call:
    """A request the server layer checked, for the host to answer (`ServerLayer.poll_event`)."""

    @property
    def kind(self) -> _CallKind:
        """`"tool"`, `"read"`, `"prompt"` or `"complete"`."""
    @property
    def id(self) -> int:
        """The request's handle (pass it to the `ServerLayer.respond_*` method)."""
    @property
    def method(self) -> str:
        """The wire method (`"tools/call"`, `"resources/read"`, ...)."""
    @property
    def target(self) -> _CallTarget:
        """What the call concerns: `"tool"`, `"resource"`, `"template"` or `"prompt"`."""
    @property
    def index(self) -> int:
        """The index of that definition in its table."""
    @property
    def name(self) -> str:
        """That definition's name (tool or prompt name, resource URI, URI template)."""
    @property
    def params(self) -> dict[str, Any]:
        """The request's params."""
    @property
    def arguments(self) -> dict[str, Any] | None:
        """`tool` and `prompt`: the arguments (`{}` when the request had none)."""
    @property
    def defaults(self) -> dict[str, Any] | None:
        """`tool`: the `default` of each top-level property the arguments lack."""
    @property
    def meta(self) -> dict[str, Any] | None:
        """`tool`: the request's `_meta`, if any."""
    @property
    def uri(self) -> str | None:
        """`read`: the URI."""
    @property
    def vars(self) -> dict[str, str] | None:
        """`read`: the template's variables as matched (percent-encoded); `{}` for a resource."""
    @property
    def argument(self) -> str | None:
        """`complete`: the argument (or template variable) to complete."""
    @property
    def value(self) -> str | None:
        """`complete`: what the user typed so far."""
    @property
    def context(self) -> dict[str, Any] | None:
        """`complete`: the request's `context` (`{"arguments": {...}}`), if any."""
    @property
    def input_responses(self) -> Any:
        """`tool`, `read`, `prompt`: a 2026-07-28 retry's `inputResponses` (a `dict`, or
        another value to refuse with -32602); `None` when absent or `null`."""
    @property
    def request_state(self) -> str | None:
        """`tool`, `read`, `prompt`: a 2026-07-28 retry's `requestState` (unsealed by the
        core when it has a `state_key`; untrusted otherwise)."""

@final
class ServerLayer:
    """The core server application layer: definitions as data, lists, checks, results."""

    def __new__(
        cls,
        tools: list[_Dict] | None = None,
        resources: list[_Dict] | None = None,
        resource_templates: list[_Dict] | None = None,
        prompts: list[_Dict] | None = None,
        *,
        page_size: int = 100,
        list_changed: bool = True,
        subscribe: bool = False,
        logging: bool = True,
    ) -> ServerLayer:
        """Checks the definitions (`ConfigError` for a broken one)."""
    @property
    def capabilities(self) -> dict[str, Any]:
        """The server capabilities that what is registered implies."""
    @property
    def counts(self) -> tuple[int, int, int, int]:
        """How many tools, resources, resource templates and prompts there are."""
    def poll_event(
        self, session: Session, scopes: list[str] | None = None
    ) -> Call | Event | None:
        """The next call or event of `session`, through the layer, or `None`; `scopes`
        (the caller's grant) hides and refuses the definitions it does not allow."""
    def respond_tool(
        self,
        session: Session,
        id: int,
        tool: int,
        content: list[_Dict] | None = None,
        structured: _Dict | str | None = None,
        *,
        is_error: bool = False,
        meta: _Dict | str | None = None,
    ) -> None:
        """Answers a tool call (`ResultError` when the layer refuses the answer)."""
    def respond_read(self, session: Session, id: int, contents: list[_Dict]) -> None:
        """Answers a read with resource contents (`{"uri", "mimeType"?, "text" | "blob"}`)."""
    def respond_prompt(self, session: Session, id: int, prompt: int, messages: list[_Dict]) -> None:
        """Answers a prompt with messages (`{"role", "content"}`)."""
    def respond_completion(
        self,
        session: Session,
        id: int,
        values: list[str],
        total: int | None = None,
        has_more: bool = False,
    ) -> None:
        """Answers a completion with its values."""

_Header: TypeAlias = tuple[bytes, bytes]

@final
class Outcome:
    """What to do with one request (`Endpoint.handle_request`)."""

    @property
    def kind(self) -> Literal["respond", "deliver", "stream"]:
        """`"respond"`: answer now; `"deliver"`: hand the body to the slot's session;
        `"stream"`: serve `stream`."""
    @property
    def status(self) -> int:
        """`"respond"`: the status; `"deliver"`: 202 (the answer when `stream` is None)."""
    @property
    def headers(self) -> list[_Header]:
        """The head's headers (lowercase names, `content-length` included)."""
    @property
    def body(self) -> bytes:
        """`"respond"`: the body (empty or a JSON-RPC error)."""
    @property
    def slot(self) -> int | None:
        """`"deliver"`: the slot whose session gets the body."""
    @property
    def fresh(self) -> bool:
        """`"deliver"`: start a new session (and application state) in the slot first."""
    @property
    def stream(self) -> int | None:
        """The stream to serve with `Endpoint.poll_response` (None: answer 202)."""
    @property
    def principal(self) -> dict[str, Any] | None:
        """Under `auth`, the verified caller (`subject`, `client_id`, `scopes`,
        `expires_at`); never the token."""

@final
class Endpoint:
    """The core's Streamable HTTP endpoint (both eras), sans-IO, owning its storage."""

    def __new__(
        cls,
        *,
        slots: int = 32,
        streams: int = 64,
        max_body: int = ...,
        path: str = "/mcp",
        check_hosts: bool = True,
        allowed_hosts: list[str] | None = None,
        session_idle_ms: int = 600000,
        keepalive_ms: int = 15000,
        retry_ms: int = 1000,
        response_mode: Literal["auto", "json", "sse"] = "auto",
        get_stream: bool = True,
        versions: list[str] | None = None,
        auth: dict[str, Any] | None = None,
    ) -> Endpoint:
        """Creates an endpoint (`ConfigError` for a configuration it cannot work with);
        `auth` makes it an OAuth 2.1 protected resource."""
    @property
    def slot_count(self) -> int:
        """The number of session slots."""
    @property
    def sessions(self) -> int:
        """Legacy sessions open now."""
    @property
    def open_streams(self) -> int:
        """Streams open now."""
    @property
    def stats(self) -> dict[str, int]:
        """Counters: refused, sessions opened/expired/evicted/deleted, unroutable, ..."""
    def set_tools(self, layer: ServerLayer | None) -> None:
        """The tools served (from `layer`): their `x-mcp-header` annotations are checked
        as `Mcp-Param-*` headers of 2026-07-28 `tools/call`s."""
    def slot_in_use(self, slot: int) -> bool:
        """True when `slot` holds a live session or is lent to a request."""
    def handle_request(
        self,
        now_ms: int,
        method: str,
        target: str,
        headers: list[tuple[bytes | str, bytes | str]],
        body: bytes,
        entropy: bytes,
        *,
        verifier: Callable[[str], dict[str, Any] | None] | None = None,
        unix_s: int | None = None,
        layer: ServerLayer | None = None,
    ) -> Outcome:
        """Takes one HTTP request; `entropy` is `ENTROPY_LEN` fresh random bytes. Under
        `auth`, `verifier(token)` returns the token's claims or `None`."""
    def collect(self, now_ms: int, slot: int, session: Session) -> None:
        """Takes the output of the session in `slot` and routes it to its streams."""
    def poll_response(
        self, now_ms: int, stream: int
    ) -> tuple[Literal["head", "body", "wait", "end"], Any]:
        """`("head", (status, headers))`, `("body", bytes)`, `("wait", None)` or
        `("end", None)`."""
    def advance(self, stream: int, n: int) -> None:
        """Marks `n` bytes of the last body of `stream` as written."""
    def detach(self, stream: int) -> None:
        """The connection carrying `stream` went away before `"end"`."""
    def interrupt(self, slot: int) -> int:
        """SSE polling: ends the pending POST connections of the session in `slot`."""
    def poll_timeout(self) -> int | None:
        """When `handle_timeout` is next due, or None."""
    def handle_timeout(self, now_ms: int) -> None:
        """Expires idle sessions and makes keep-alive comments due."""
