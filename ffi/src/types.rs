//! The C-visible value types: string views, the configuration, events, enums and flags.
//!
//! Enums that C passes *in* are declared as plain integer fields (`uint32_t role`), with the
//! enum giving the named values, so an out-of-range number from C is an error status and
//! never undefined behaviour in Rust.

use core::ffi::c_char;
use core::ptr;

/// A string view: `len` bytes at `ptr`, **not** NUL-terminated, UTF-8.
///
/// As an argument, `{NULL, 0}` is the empty string where a string is required and means
/// "absent" where the documentation says the argument is optional. As an output (event
/// fields, JSON views), `ptr == NULL` means absent, and the bytes stay valid until the
/// next call that takes the same session (or, for JSON views, as long as the text they
/// were read from).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct picomcp_str {
    /// First byte (NULL when absent).
    pub ptr: *const c_char,
    /// Number of bytes.
    pub len: usize,
}

impl picomcp_str {
    /// The absent string `{NULL, 0}`.
    pub(crate) const NONE: picomcp_str = picomcp_str {
        ptr: ptr::null(),
        len: 0,
    };

    /// A view of `s` (valid as long as `s`).
    pub fn new(s: &str) -> picomcp_str {
        picomcp_str {
            ptr: s.as_ptr().cast(),
            len: s.len(),
        }
    }

    /// A view of `s`, or absent.
    pub fn from_opt(s: Option<&str>) -> picomcp_str {
        s.map_or(Self::NONE, Self::new)
    }
}

impl Default for picomcp_str {
    fn default() -> Self {
        Self::NONE
    }
}

/// Which side of the connection a session plays (`picomcp_config.role`).
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum picomcp_role {
    /// The MCP server. (0 is deliberately no role: a zeroed configuration is rejected.)
    Server = 1,
    /// The MCP client (the host's side); it sends `initialize` as soon as it is created.
    Client = 2,
}

/// Where a session is in its lifecycle (`picomcp_session_phase`).
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum picomcp_phase {
    /// Server: waiting for `initialize`. Client: `initialize` sent, waiting for the result.
    Initializing = 1,
    /// Server: `initialize` answered, waiting for `notifications/initialized`.
    AwaitingInitialized = 2,
    /// Normal operation.
    Operating = 3,
    /// The connection is over.
    Closed = 4,
    /// A phase this library does not know yet.
    Other = 99,
}

/// The eight syslog severities of `logging/setLevel` and `notifications/message`, least
/// severe first.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum picomcp_log_level {
    /// debug
    Debug = 0,
    /// info
    Info = 1,
    /// notice
    Notice = 2,
    /// warning
    Warning = 3,
    /// error
    Error = 4,
    /// critical
    Critical = 5,
    /// alert
    Alert = 6,
    /// emergency
    Emergency = 7,
    /// No level (the client has not called `logging/setLevel`).
    None = 255,
}

/// How a session is set up. Fill it with `picomcp_config_init`, then set your fields.
/// Text is copied into the session, so it need not outlive `picomcp_session_init`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct picomcp_config {
    /// A `picomcp_role` value.
    pub role: u32,
    /// Our `name` in `serverInfo` / `clientInfo` (UTF-8).
    pub name: picomcp_str,
    /// Our `version` in `serverInfo` / `clientInfo`.
    pub version: picomcp_str,
    /// Our capabilities: the text of a JSON object (e.g. `{"tools":{},"logging":{}}`). What
    /// is sent holds only the members the negotiated revision defines for our side (one
    /// configuration serves every revision; a capability of your own goes under
    /// `experimental`), and what is sent is what the peer may ask of us.
    pub capabilities: picomcp_str,
    /// Server only, optional (`ptr == NULL`: none): `instructions` for the model.
    pub instructions: picomcp_str,
    /// The protocol revisions we accept: a bitwise OR of `picomcp_version` values
    /// (`PICOMCP_VERSIONS_LEGACY` by default). Server: the client's proposal is echoed when
    /// it is in this set, else the newest legacy revision in it is offered. Client: we
    /// propose the newest and accept any revision in the set.
    pub versions: u32,
    /// Longest accepted line in bytes (the receive buffer size). Default 1 MiB.
    pub max_line: usize,
    /// Deepest accepted JSON nesting (1..=256). Default 64.
    pub max_depth: usize,
    /// Longest accepted request id or progress token in bytes of JSON (8..=128). Default 128.
    pub max_id_len: usize,
    /// Most messages in one JSON-RPC batch (2025-03-26 only). Default 32.
    pub max_batch: usize,
    /// Default timeout of our requests in milliseconds; 0: no timeout. Default 60000.
    pub request_timeout_ms: u64,
    /// Requests from the peer we may owe an answer to at once. Default 32.
    pub inbound_slots: usize,
    /// Our requests to the peer awaiting an answer at once. Default 8.
    pub outbound_slots: usize,
    /// Transmit queue bytes; 0: the default (`2 * max_line + 1024`, more when the
    /// configuration text is long), which always suffices for the core's own replies.
    pub tx_size: usize,
    /// Event queue bytes; 0: the default (`2 * max_line + 1024`).
    pub event_size: usize,
    /// Bytes for the 2026-07-28 era's per-connection state (subscriptions and tokens of
    /// `subscriptions/listen` on a server, MRTR request copies on a client). Default 4096.
    pub arena_bytes: usize,
    /// Server, 2026-07-28: `ttlMs` added to cacheable results that do not carry one.
    /// Default 0 ("stale at once").
    pub cache_ttl_ms: u64,
    /// Server, 2026-07-28: `cacheScope` added to cacheable results: `"public"` when true,
    /// `"private"` (the default) when false.
    pub cache_public: bool,
    /// Client: how long to wait for the `server/discover` probe before falling back to
    /// `initialize`, in ms. Default 3000.
    pub probe_timeout_ms: u64,
    /// Server: bytes where the responses of a 2025-03-26 JSON-RPC batch wait until the
    /// whole batch is answered; 0 disables batches. Default 8192 (server), 0 (client).
    pub batch_bytes: usize,
    /// Server, 2026-07-28: the key that seals `requestState` (HMAC-SHA256; at least 16
    /// bytes, any bytes; copied by `picomcp_session_init`). With a key the state given
    /// to `picomcp_session_respond_input_required` goes out sealed with an expiry, and a
    /// retry's state is verified and handed back plain; a tampered, expired or foreign
    /// one is answered -32602. NULL (the default): states pass through unsealed.
    pub state_key: *const u8,
    /// Bytes of `state_key`.
    pub state_key_len: usize,
    /// Server, 2026-07-28: how long a sealed `requestState` stays valid, in ms. Default
    /// 600000.
    pub state_ttl_ms: u64,
}

/// Per-request options for `picomcp_session_send_request` (NULL: all defaults).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct picomcp_request_options {
    /// Timeout in ms; 0: the session's `request_timeout_ms`.
    pub timeout_ms: u64,
    /// Ask for progress: `_meta.progressToken` is added and progress arrives as
    /// `PICOMCP_EVENT_PROGRESS` events for this request.
    pub progress: bool,
    /// Restart the timeout on every progress notification.
    pub reset_timeout_on_progress: bool,
    /// Hard maximum in ms even with progress resets; 0: none.
    pub max_total_ms: u64,
}

/// Counters a session keeps (`picomcp_session_stats`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct picomcp_stats {
    /// Lines taken from the peer.
    pub lines_in: u64,
    /// Messages queued for the peer.
    pub messages_out: u64,
    /// Protocol violations seen.
    pub violations: u64,
}

/// The kind of a `picomcp_event`; it says which fields are set.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum picomcp_event_kind {
    /// No event: the queue is empty.
    None = 0,
    /// The version was agreed. `version`; `json`: server, the client's `initialize`
    /// params (already answered); client, the server's `initialize` result.
    Negotiated = 1,
    /// The handshake is complete. `version`.
    Ready = 2,
    /// The peer asks something: answer `id` with `picomcp_session_respond` or
    /// `picomcp_session_respond_error`. `id`, `method`, `method_name`, `json` (the params
    /// object, or absent).
    Request = 3,
    /// The peer tells something. `method`, `method_name`, `json` (params or absent).
    Notification = 4,
    /// A success response to our request `id`. `json`: the result object.
    Response = 5,
    /// An error response to our request `id`. `code`, `text` (the message, unescaped),
    /// `json` (the error data, or absent).
    ErrorResponse = 6,
    /// Our request `id` passed its deadline; `notifications/cancelled` is already queued.
    TimedOut = 7,
    /// The peer cancelled its request `id`; a response to it will not be sent (answering
    /// it is still allowed and does nothing). `text`: the reason, or absent.
    Cancelled = 8,
    /// Progress on our request `id`: `progress`, `total` (NaN when absent), `json` (the
    /// whole params object, with `message` if any).
    Progress = 9,
    /// The peer broke the protocol; any error reply JSON-RPC requires is already queued.
    /// `violation`, `detail`, `code`, `method`/`method_name` where one applies, `text`
    /// (a description).
    PeerViolation = 10,
    /// The connection is over. `close_reason`, `code` (the error code when `initialize`
    /// was rejected), `text` (a description).
    Closed = 11,
    /// Client, 2026-07-28: the server needs input before it can answer our request `id`
    /// (MRTR). `json`: the `inputRequests` map (or absent). Answer with
    /// `picomcp_session_answer_input`, or cancel the request.
    InputRequired = 12,
    /// Client, 2026-07-28: our `subscriptions/listen` `id` was acknowledged. `json`: the
    /// honoured `notifications` filter.
    SubscriptionAcknowledged = 13,
    /// Client, 2026-07-28: the server's result for our request `id` was invalid; the
    /// request is finished. `json`: the result as received.
    InvalidResult = 14,
    /// Client, 2026-07-28: the server ended our `subscriptions/listen` stream `id`.
    SubscriptionEnded = 15,
    /// Client: a tool in a `tools/list` result differs from its pin (rug-pull
    /// detection). `text`: the tool's name (unescaped); `json`:
    /// `{"old":"<32 hex>","new":"<32 hex>"}`, the pinned digest and the new one.
    ToolChanged = 16,
    /// Client: tools of a `tools/list` result went unchecked (no free pin, or the
    /// change event did not fit the queue now). `json`: `{"unpinned":N,"unreported":M}`.
    PinsIncomplete = 17,
    /// Server layer (`picomcp_session_poll_served` only): `tools/call` of a known tool
    /// whose arguments match its `inputSchema`. `id`, `method`, `method_name`, `json`
    /// (the params); the `picomcp_call` has the tool's index and the arguments. Answer
    /// with `picomcp_server_respond_tool`.
    CallTool = 20,
    /// Server layer: `resources/read` of a URI that names a resource or matches a
    /// template; the `picomcp_call` says which, with the URI and the template's
    /// variables. Answer with `picomcp_server_respond_read`.
    CallRead = 21,
    /// Server layer: `prompts/get` of a known prompt with its required arguments, all
    /// strings; the `picomcp_call` has the prompt's index and the arguments. Answer with
    /// `picomcp_server_respond_prompt`.
    CallPrompt = 22,
    /// Server layer: `completion/complete` of a completable prompt argument or template
    /// variable; the `picomcp_call` has the target, the argument, the value typed so far
    /// and the context. Answer with `picomcp_server_respond_completion`.
    CallComplete = 23,
    /// An event this library does not know yet (from a newer core); ignore it.
    Other = 99,
}

/// What a `PICOMCP_EVENT_PEER_VIOLATION` was.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum picomcp_violation {
    /// No violation (the event is of another kind).
    None = 0,
    /// A line was not a valid message. `detail`: a `picomcp_parse_error`; `code`: the
    /// error code replied, or 0 when nothing was replied (response-like input).
    Malformed = 1,
    /// A line longer than the limit was discarded; -32600 was replied. `code`: the limit.
    LineTooLong = 2,
    /// A request for a method picomcp does not know (-32601 replied).
    UnknownMethod = 3,
    /// A method needing a capability that was not negotiated, or one the sender's role may
    /// not send (-32601 replied to requests). `method`.
    NotNegotiated = 4,
    /// A request other than `ping` before the handshake (-32600 replied). `method`.
    NotInitialized = 5,
    /// A second `initialize` (-32600 replied).
    DuplicateInitialize = 6,
    /// A request reused the id of one still in flight (-32600 replied).
    DuplicateRequestId = 7,
    /// The inbound request table is full (-32603 replied).
    TooManyRequests = 8,
    /// Invalid params the core checks itself (-32602 replied). `method`.
    InvalidParams = 9,
    /// A response whose id matches none of our requests.
    UnknownResponseId = 10,
    /// An error response without an id. `code`: its error code.
    UncorrelatedError = 11,
    /// A JSON-RPC batch the negotiated revision does not allow (-32600 replied).
    BatchNotAllowed = 12,
    /// A progress notification whose value did not increase (dropped).
    ProgressNotIncreasing = 13,
    /// 2026-07-28: a request whose `_meta` envelope is missing or malformed (-32602
    /// replied). `method`.
    BadEnvelope = 14,
    /// 2026-07-28: a request naming a protocol version we do not serve (-32022 replied).
    UnsupportedVersion = 15,
    /// A message this era does not allow in this direction; dropped.
    UnexpectedMessage = 16,
    /// 2026-07-28: the subscription table or arena is full (-32603 replied).
    TooManySubscriptions = 17,
    /// 2026-07-28 client: an invalid result (reported as `PICOMCP_EVENT_INVALID_RESULT`).
    InvalidResult = 18,
    /// A method that does not exist in the negotiated revision (-32601 replied to
    /// requests). `method`.
    NotInVersion = 19,
    /// A second response to a request that was already answered (dropped).
    DuplicateResponse = 20,
    /// A progress notification whose token names none of our requests that asked for
    /// progress (dropped; late progress for a finished request is not one).
    UnknownProgressToken = 21,
    /// A violation this library does not know yet.
    Other = 99,
}

/// Why a line was malformed (`picomcp_event.detail` of `PICOMCP_VIOLATION_MALFORMED`).
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum picomcp_parse_error {
    /// Not JSON: ended inside a value.
    JsonUnexpectedEnd = 1,
    /// Not JSON: a byte that cannot appear there.
    JsonUnexpectedByte = 2,
    /// Not JSON: a malformed number.
    JsonInvalidNumber = 3,
    /// Not JSON: an invalid escape.
    JsonInvalidEscape = 4,
    /// Not JSON: an unpaired surrogate escape.
    JsonLoneSurrogate = 5,
    /// Not JSON: a raw control character in a string.
    JsonControlCharacter = 6,
    /// Not JSON: nested too deep.
    JsonTooDeep = 7,
    /// Not JSON: characters after the value.
    JsonTrailingCharacters = 8,
    /// Not JSON: empty.
    JsonEmpty = 9,
    /// Not JSON in a way this library does not know yet.
    JsonOther = 19,
    /// Not UTF-8.
    InvalidUtf8 = 20,
    /// Valid JSON, but not an object or array.
    NotAnObject = 21,
    /// `jsonrpc` missing or not `"2.0"`.
    BadVersion = 22,
    /// The id is null, fractional, boolean, an object or an array.
    BadId = 23,
    /// The id is longer than the limit.
    IdTooLong = 24,
    /// An envelope member appears twice.
    DuplicateMember = 25,
    /// `method` is not a string.
    BadMethod = 26,
    /// `params` is not an object.
    BadParams = 27,
    /// Neither a request, a notification nor a response.
    InvalidShape = 28,
    /// A malformed response (never answered).
    InvalidResponse = 29,
    /// Nesting deeper than the limit.
    TooDeep = 30,
    /// The line is longer than the limit.
    LineTooLong = 31,
    /// A kind this library does not know yet.
    Other = 99,
}

/// Why a session closed (`picomcp_event.close_reason`).
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum picomcp_close_reason {
    /// Not closed (the event is of another kind).
    None = 0,
    /// The peer closed its output (`picomcp_session_handle_eof`).
    PeerClosed = 1,
    /// Client: the server chose a revision we do not support.
    UnsupportedVersion = 2,
    /// Client: the server answered `initialize` with an error (`code`).
    InitializeRejected = 3,
    /// Client: `initialize` timed out.
    InitializeTimedOut = 4,
    /// We called `picomcp_session_close`.
    Local = 5,
    /// Client: the server closed its output while the `server/discover` probe was
    /// pending (some legacy servers exit on it): restart it with legacy-only `versions`.
    PeerClosedDuringProbe = 6,
    /// Client: the server answered `server/discover` with -32022 and no version we share.
    NoCommonVersion = 7,
    /// A reason this library does not know yet.
    Other = 99,
}

/// Something that happened, filled by `picomcp_session_poll_event`.
///
/// Which fields are set depends on `kind` (see `picomcp_event_kind`); the others are
/// zero, NULL views, or NaN. **Every `picomcp_str` in it points into the session and is
/// valid only until the next call that takes that session** (including the next
/// `picomcp_session_poll_event`). Copy what you need to keep; handles (`id`) are plain
/// numbers and stay meaningful.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct picomcp_event {
    /// What happened (a `picomcp_event_kind`).
    pub kind: u32,
    /// Request handle: the peer's request (`REQUEST`, `CANCELLED`) or ours (`RESPONSE`,
    /// `ERROR_RESPONSE`, `TIMED_OUT`, `PROGRESS`).
    pub id: u32,
    /// The method (a `picomcp_method`), or `PICOMCP_METHOD_NONE`.
    pub method: i32,
    /// The method's wire name (static storage: valid forever), or absent.
    pub method_name: picomcp_str,
    /// The JSON payload: params, result, peer handshake data, error data (see `kind`).
    pub json: picomcp_str,
    /// Text: the error message or cancel reason (unescaped), a violation's description.
    pub text: picomcp_str,
    /// The protocol revision for `NEGOTIATED` and `READY` (a `picomcp_version`), else 0.
    pub version: u32,
    /// The revision as text, e.g. `"2025-11-25"` (static storage), or absent.
    pub version_name: picomcp_str,
    /// An error code (`ERROR_RESPONSE`, `CLOSED`, violations; see `kind`), else 0.
    pub code: i64,
    /// `PROGRESS`: the progress value.
    pub progress: f64,
    /// `PROGRESS`: the total, or NaN when the peer gave none.
    pub total: f64,
    /// `PEER_VIOLATION`: a `picomcp_violation`, else 0.
    pub violation: u32,
    /// `PEER_VIOLATION` `MALFORMED`: a `picomcp_parse_error`, else 0.
    pub detail: u32,
    /// `CLOSED`: a `picomcp_close_reason`, else 0.
    pub close_reason: u32,
}

impl picomcp_event {
    /// The empty event (`PICOMCP_EVENT_NONE`).
    pub(crate) const EMPTY: picomcp_event = picomcp_event {
        kind: picomcp_event_kind::None as u32,
        id: 0,
        method: -1,
        method_name: picomcp_str::NONE,
        json: picomcp_str::NONE,
        text: picomcp_str::NONE,
        version: 0,
        version_name: picomcp_str::NONE,
        code: 0,
        progress: f64::NAN,
        total: f64::NAN,
        violation: 0,
        detail: 0,
        close_reason: 0,
    };
}

/// The era of a connection (`picomcp_session_era`), latched by the first message that
/// decides it.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum picomcp_era {
    /// Nothing decided yet (a `server/discover` probe does not decide).
    Opening = 1,
    /// The `initialize` handshake (2024-11-05 … 2025-11-25).
    Legacy = 2,
    /// Stateless 2026-07-28.
    Modern = 3,
    /// An era this library does not know yet.
    Other = 99,
}

/// A change the host announces with `picomcp_session_notify`; the session delivers it
/// the right way for the era (a notification in the legacy era, a tagged copy per
/// matching `subscriptions/listen` stream in the modern era), or not at all.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum picomcp_change {
    /// The tool list changed (needs `tools.listChanged`).
    ToolsListChanged = 1,
    /// The prompt list changed (needs `prompts.listChanged`).
    PromptsListChanged = 2,
    /// The resource list changed (needs `resources.listChanged`).
    ResourcesListChanged = 3,
    /// The resource `uri` changed (needs `resources.subscribe`).
    ResourceUpdated = 4,
}

/// What the session knows about an open request from the peer
/// (`picomcp_session_request_info`).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct picomcp_request_info {
    /// The method (a `picomcp_method`).
    pub method: i32,
    /// The method's wire name (static storage).
    pub method_name: picomcp_str,
    /// Served under 2026-07-28.
    pub modern: bool,
    /// 2026-07-28: the client capabilities declared on this request (`PICOMCP_CAP_*`);
    /// 0 in the legacy era (use `picomcp_session_peer_capabilities`).
    pub client_capabilities: u32,
    /// 2026-07-28: the log level the request asked for (a `picomcp_log_level`), or
    /// `PICOMCP_LOG_LEVEL_NONE` (then send it no log messages).
    pub log_level: u32,
    /// The request carries a progress token.
    pub has_progress_token: bool,
    /// The peer cancelled it.
    pub cancelled: bool,
}

/// The type of a JSON value (`picomcp_json_kind`).
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum picomcp_json_type {
    /// `null`
    Null = 1,
    /// `true` or `false`
    Bool = 2,
    /// A number.
    Number = 3,
    /// A string.
    String = 4,
    /// An array.
    Array = 5,
    /// An object.
    Object = 6,
}

/// `picomcp_session_poll_timeout`: no deadline is pending.
pub const PICOMCP_NO_DEADLINE: u64 = u64::MAX;

/// Capability flag: server `tools`. The `PICOMCP_CAP_*` flags are what
/// `picomcp_session_capabilities` and `picomcp_session_peer_capabilities` report.
pub const PICOMCP_CAP_TOOLS: u32 = 1 << 0;
/// Server `tools.listChanged`.
pub const PICOMCP_CAP_TOOLS_LIST_CHANGED: u32 = 1 << 1;
/// Server `resources`.
pub const PICOMCP_CAP_RESOURCES: u32 = 1 << 2;
/// Server `resources.subscribe`.
pub const PICOMCP_CAP_RESOURCES_SUBSCRIBE: u32 = 1 << 3;
/// Server `resources.listChanged`.
pub const PICOMCP_CAP_RESOURCES_LIST_CHANGED: u32 = 1 << 4;
/// Server `prompts`.
pub const PICOMCP_CAP_PROMPTS: u32 = 1 << 5;
/// Server `prompts.listChanged`.
pub const PICOMCP_CAP_PROMPTS_LIST_CHANGED: u32 = 1 << 6;
/// Server `logging`.
pub const PICOMCP_CAP_LOGGING: u32 = 1 << 7;
/// Server `completions`.
pub const PICOMCP_CAP_COMPLETIONS: u32 = 1 << 8;
/// Client `roots`.
pub const PICOMCP_CAP_ROOTS: u32 = 1 << 9;
/// Client `roots.listChanged`.
pub const PICOMCP_CAP_ROOTS_LIST_CHANGED: u32 = 1 << 10;
/// Client `sampling`.
pub const PICOMCP_CAP_SAMPLING: u32 = 1 << 11;
/// Client `elicitation`.
pub const PICOMCP_CAP_ELICITATION: u32 = 1 << 12;
/// Client `elicitation.form`.
pub const PICOMCP_CAP_ELICITATION_FORM: u32 = 1 << 13;
/// Client `elicitation.url`.
pub const PICOMCP_CAP_ELICITATION_URL: u32 = 1 << 14;
/// `tasks` (either side).
pub const PICOMCP_CAP_TASKS: u32 = 1 << 15;
/// `tasks.list`.
pub const PICOMCP_CAP_TASKS_LIST: u32 = 1 << 16;
/// `tasks.cancel`.
pub const PICOMCP_CAP_TASKS_CANCEL: u32 = 1 << 17;
/// Client `sampling.tools`.
pub const PICOMCP_CAP_SAMPLING_TOOLS: u32 = 1 << 18;
/// Client `sampling.context`.
pub const PICOMCP_CAP_SAMPLING_CONTEXT: u32 = 1 << 19;

/// Library version, major part (also `PICOMCP_LIB_VERSION_STRING` in the header).
pub const PICOMCP_LIB_VERSION_MAJOR: u32 = 0;
/// Library version, minor part.
pub const PICOMCP_LIB_VERSION_MINOR: u32 = 1;
/// Library version, patch part.
pub const PICOMCP_LIB_VERSION_PATCH: u32 = 0;

/// The largest alignment `picomcp_session_storage_size` ever reports on any platform:
/// memory aligned to this (a `uint64_t` or `max_align_t` array, or `malloc`) always works.
pub const PICOMCP_SESSION_MAX_ALIGN: usize = 8;
