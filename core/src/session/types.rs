//! Public value types of the session API: configuration, handles, events, errors.

use core::fmt;

#[cfg(feature = "client")]
use super::pins::ToolDigest;
use crate::error::{ErrorCode, InsufficientSize};
use crate::json::{Json, JsonStr};
use crate::jsonrpc::ParseErrorKind;
use crate::protocol::{Method, ProtocolVersion, Role, Versions};

/// How a session is set up. Text is copied into [`Storage::info`](super::Storage::info)
/// at construction, so the configuration need not outlive the session.
#[derive(Debug, Clone, Copy)]
pub struct Config<'c> {
    /// Client or server.
    pub role: Role,
    /// Our `name` (`serverInfo`/`clientInfo`).
    pub name: &'c str,
    /// Our `version`.
    pub version: &'c str,
    /// Our capabilities as a JSON object, used for enforcement. Each message that carries
    /// them holds only the members its revision defines for our side (`experimental`
    /// as configured; see `docs/DESIGN.md`, "Our capabilities by revision"): a server
    /// configured with `tasks` declares none to a 2025-06-18 client.
    pub capabilities: Json<'c>,
    /// Server only: `instructions` for the model.
    pub instructions: Option<&'c str>,
    /// The protocol revisions we accept. Server: the client's proposal is echoed when it
    /// is in this set, else the newest legacy revision in it is offered. Client: we
    /// propose the newest and accept any revision in the set.
    pub versions: Versions,
    /// Line, depth and id limits. `max_line` must equal the receive buffer's size.
    pub limits: crate::Limits,
    /// Default timeout of our requests in milliseconds (`None`: no timeout).
    pub request_timeout_ms: Option<u64>,
    /// Bytes reserved (inside [`Storage::info`](super::Storage::info)) for resource
    /// subscription URIs (server) or for the params of requests that may need an MRTR
    /// retry (client). Default 4096.
    pub arena_bytes: usize,
    /// Server, 2026-07-28: `ttlMs` added to cacheable results that do not carry one.
    /// Default 0 ("stale at once"): safe for servers whose lists change.
    pub cache_ttl_ms: u64,
    /// Server, 2026-07-28: `cacheScope` added to cacheable results that do not carry
    /// one: `"public"` when true, `"private"` (the default) when false.
    pub cache_public: bool,
    /// Client: how long to wait for the `server/discover` probe before falling back to
    /// `initialize`. Default 3000 ms.
    pub probe_timeout_ms: u64,
    /// Server: bytes (inside [`Storage::info`](super::Storage::info)) where the responses
    /// of a 2025-03-26 JSON-RPC batch wait until the whole batch is answered. 0 disables
    /// batches (they are answered -32600). Default 8192.
    pub batch_bytes: usize,
    /// Server, 2026-07-28: the key that seals `requestState` (HMAC-SHA256, at least 16
    /// bytes; 32 random bytes recommended). With a key the core seals the state the host
    /// gives [`respond_input_required`](super::Session::respond_input_required) and,
    /// when the client echoes it, verifies and strips the seal before the host sees it;
    /// a tampered, expired or foreign state is answered -32602 (MODERN §8.4). `None`
    /// (the default): states pass through as the host wrote them, which MODERN §8.4
    /// allows only when tampering can do nothing worse than fail the request. Needs the
    /// `seal` Cargo feature.
    pub state_key: Option<&'c [u8]>,
    /// Server, 2026-07-28: how long a sealed `requestState` stays valid, in ms, counted
    /// from the last `now` the session was given when the state was sealed. Default
    /// 600 000 (10 minutes: a user answering a form).
    pub state_ttl_ms: u64,
}

impl<'c> Config<'c> {
    /// A server configuration with default limits, serving every revision (both eras).
    pub fn server(name: &'c str, version: &'c str, capabilities: Json<'c>) -> Self {
        Config {
            role: Role::Server,
            name,
            version,
            capabilities,
            instructions: None,
            versions: Versions::ALL,
            limits: crate::Limits::DEFAULT,
            request_timeout_ms: Some(60_000),
            arena_bytes: 4096,
            cache_ttl_ms: 0,
            cache_public: false,
            probe_timeout_ms: 3000,
            batch_bytes: 8192,
            state_key: None,
            state_ttl_ms: 600_000,
        }
    }

    /// A client configuration with default limits and every revision: it probes with
    /// `server/discover` and falls back to `initialize`.
    pub fn client(name: &'c str, version: &'c str, capabilities: Json<'c>) -> Self {
        Config {
            role: Role::Client,
            batch_bytes: 0,
            ..Self::server(name, version, capabilities)
        }
    }

    /// Bytes of [`Storage::info`](super::Storage::info) this configuration needs.
    pub fn info_len(&self) -> usize {
        // name and version are escaped on output (worst case 6 bytes per byte).
        let instr = self.instructions.map_or(0, |s| s.len() * 6 + 20);
        64 + 6 * (self.name.len() + self.version.len())
            + self.capabilities.as_raw().len()
            + instr
            + self.arena_bytes
            + self.batch_bytes
    }
}

/// A request the peer sent us, awaiting our response. `Copy`; stale handles are detected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct InboundId {
    pub(crate) index: u16,
    pub(crate) generation: u16,
}

impl InboundId {
    /// A stable number for this handle (index and generation), for bindings.
    pub fn to_bits(self) -> u32 {
        (self.generation as u32) << 16 | self.index as u32
    }
    /// Rebuilds a handle from [`InboundId::to_bits`].
    pub fn from_bits(bits: u32) -> Self {
        InboundId {
            index: bits as u16,
            generation: (bits >> 16) as u16,
        }
    }
}

/// A request we sent, awaiting the peer's response. `Copy`; stale handles are detected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct OutboundId {
    pub(crate) index: u16,
    pub(crate) generation: u16,
}

impl OutboundId {
    /// A stable number for this handle, for bindings.
    pub fn to_bits(self) -> u32 {
        (self.generation as u32) << 16 | self.index as u32
    }
    /// Rebuilds a handle from [`OutboundId::to_bits`].
    pub fn from_bits(bits: u32) -> Self {
        OutboundId {
            index: bits as u16,
            generation: (bits >> 16) as u16,
        }
    }
}

/// Where a session is in its lifecycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Server: waiting for `initialize`. Client: `initialize` sent, waiting for the result.
    Initializing,
    /// Server: `initialize` answered, waiting for `notifications/initialized`.
    AwaitingInitialized,
    /// Normal operation.
    Operating,
    /// The connection is over (see [`Event::Closed`]).
    Closed,
}

impl Phase {
    /// A stable snake_case name for logs and bindings (`"initializing"`, `"operating"`).
    pub const fn name(self) -> &'static str {
        match self {
            Phase::Initializing => "initializing",
            Phase::AwaitingInitialized => "awaiting_initialized",
            Phase::Operating => "operating",
            Phase::Closed => "closed",
        }
    }
}

/// Something that happened, taken from [`Session::poll_event`](super::Session::poll_event).
/// Borrowed text stays valid until the next mutating call on the session.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum Event<'a> {
    /// The version was agreed. Server: `peer` is the client's `initialize` params
    /// (`clientInfo`, `capabilities`, ...), already answered by the core. Client: `peer` is
    /// the server's `initialize` result.
    Negotiated {
        /// The agreed revision.
        version: ProtocolVersion,
        /// The peer's side of the handshake.
        peer: Json<'a>,
    },
    /// The legacy handshake is complete: server, `notifications/initialized` arrived;
    /// client, it was sent.
    Ready {
        /// The agreed revision.
        version: ProtocolVersion,
    },
    /// The peer asks us something; answer with [`respond`](super::Session::respond) or
    /// [`respond_error`](super::Session::respond_error).
    Request {
        /// Handle to answer with.
        id: InboundId,
        /// The method (already checked against the negotiated capabilities).
        method: Method,
        /// The params object.
        params: Option<Json<'a>>,
    },
    /// The peer tells us something.
    Notification {
        /// The method.
        method: Method,
        /// The params object.
        params: Option<Json<'a>>,
    },
    /// A success response to one of our requests.
    Response {
        /// Which request.
        id: OutboundId,
        /// The result object.
        result: Json<'a>,
    },
    /// An error response to one of our requests.
    ErrorResponse {
        /// Which request.
        id: OutboundId,
        /// The error code.
        code: i64,
        /// The error message.
        message: JsonStr<'a>,
        /// The error data.
        data: Option<Json<'a>>,
    },
    /// Our request passed its deadline; `notifications/cancelled` is already queued and
    /// a late response will be dropped.
    TimedOut {
        /// Which request.
        id: OutboundId,
    },
    /// The peer cancelled a request it sent us; a response to it will not be sent.
    Cancelled {
        /// Which request.
        id: InboundId,
        /// The peer's reason.
        reason: Option<JsonStr<'a>>,
    },
    /// Progress on one of our requests (`params` of `notifications/progress`).
    Progress {
        /// Which request.
        id: OutboundId,
        /// `progress`.
        progress: f64,
        /// `total`, if given.
        total: Option<f64>,
        /// The whole params object (`message`, ...).
        params: Json<'a>,
    },
    /// Client, 2026-07-28: the server needs input before it can answer (MRTR). Fulfil
    /// `input_requests` and call [`answer_input`](super::Session::answer_input); the core
    /// re-issues the request (same handle, new wire id) with `inputResponses` and the
    /// echoed `requestState`. Or [`cancel`](super::Session::cancel) it.
    InputRequired {
        /// Which request.
        id: OutboundId,
        /// The `inputRequests` map (key → `{method, params}`), if any.
        input_requests: Option<Json<'a>>,
    },
    /// Client, 2026-07-28: a `subscriptions/listen` was acknowledged with the honoured
    /// filter.
    SubscriptionAcknowledged {
        /// The listen request.
        id: OutboundId,
        /// The honoured `notifications` filter.
        notifications: Json<'a>,
    },
    /// The peer's result was invalid for the request; the request is finished. Client,
    /// 2026-07-28: an unknown `resultType`, `input_required` where not allowed, too many
    /// MRTR rounds, an input kind we did not declare or an input request that breaks a
    /// content rule. Server (legacy): an accepted `elicitation/create` whose `content`
    /// does not match the `requestedSchema` asked with.
    InvalidResult {
        /// Which request.
        id: OutboundId,
        /// The result as received.
        result: Json<'a>,
    },
    /// Client, 2026-07-28: the server ended one of our `subscriptions/listen` streams.
    SubscriptionEnded {
        /// The listen request.
        id: OutboundId,
    },
    /// Client: a tool in a `tools/list` result differs from its pin (rug-pull
    /// detection; docs/DESIGN.md, "Tool pinning"). Queued before the response that
    /// carries it; the pin now holds `new`.
    #[cfg(feature = "client")]
    ToolChanged {
        /// The tool's name.
        name: JsonStr<'a>,
        /// The digest it was pinned with.
        old: ToolDigest,
        /// The digest of the definition just received.
        new: ToolDigest,
    },
    /// Client: tools of a `tools/list` result that went unchecked: `unpinned` found no
    /// free pin (the table, `Storage::pins`, is full); `unreported` changed but their
    /// event did not fit the event queue now (their pins keep the old digest, so the next
    /// list reports them). Queued before the response.
    #[cfg(feature = "client")]
    PinsIncomplete {
        /// New tools not pinned.
        unpinned: u16,
        /// Changed tools not reported this time.
        unreported: u16,
    },
    /// The peer broke the protocol; any error reply JSON-RPC requires is already queued.
    PeerViolation(Violation),
    /// The connection is over.
    Closed(CloseReason),
}

/// A protocol violation by the peer. It never ends the session by itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Violation {
    /// A line was not a valid message; `code` was sent back (unless it looked like a response).
    Malformed {
        /// What was wrong.
        kind: ParseErrorKind,
        /// The error code replied, if a reply was sent.
        replied: Option<ErrorCode>,
    },
    /// A line longer than the limit was discarded; -32600 was sent (with its id when readable).
    LineTooLong {
        /// The limit.
        limit: usize,
    },
    /// A request for a method we do not know (-32601 sent).
    UnknownMethod,
    /// A request or notification that needs a capability that was not negotiated, or
    /// that the sender's role may not send (-32601 sent for requests).
    NotNegotiated(Method),
    /// A request other than `ping` before the handshake (-32600 sent).
    NotInitialized(Method),
    /// A second `initialize` (-32600 sent).
    DuplicateInitialize,
    /// A request reused the id of one still in flight (-32600 sent).
    DuplicateRequestId,
    /// The inbound request table is full (-32603 sent).
    TooManyRequests,
    /// A request with invalid params that the core checks itself (-32602 sent).
    InvalidParams(Method),
    /// A method that does not exist in the negotiated revision (-32601 sent for requests).
    NotInVersion(Method),
    /// A response whose id matches none of our requests.
    UnknownResponseId,
    /// A second response to a request that was already answered (dropped).
    DuplicateResponse,
    /// A progress notification whose token names none of our requests that asked for
    /// progress (dropped). Late progress for a request that has finished is not one.
    UnknownProgressToken,
    /// An error response without an id (the peer could not read something we sent).
    UncorrelatedError {
        /// The error code it carried.
        code: i64,
    },
    /// A JSON-RPC batch where the negotiated revision does not allow one (-32600 sent).
    BatchNotAllowed,
    /// A progress notification whose value did not increase (dropped).
    ProgressNotIncreasing,
    /// 2026-07-28: a request whose `_meta` envelope is missing or malformed (-32602 sent).
    BadEnvelope(Method),
    /// 2026-07-28: a request naming a protocol version we do not serve (-32022 sent).
    UnsupportedVersion,
    /// A message this era does not allow in this direction (a response to a modern
    /// server, a request to a modern client); dropped.
    UnexpectedMessage,
    /// 2026-07-28: the subscription table or arena is full (-32603 sent).
    TooManySubscriptions,
    /// An invalid result, reported as [`Event::InvalidResult`]: 2026-07-28 client, an
    /// unknown `resultType`, `input_required` on a method that does not allow it, too many
    /// MRTR rounds, an input request we did not declare or that breaks a content rule;
    /// legacy server, an `elicitation/create` answer whose `content` does not match the
    /// `requestedSchema` asked with.
    InvalidResult,
}

/// Why a session closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum CloseReason {
    /// The peer closed its output (end of stream).
    PeerClosed,
    /// Client: the server chose a revision we do not support.
    UnsupportedVersion,
    /// Client: the server answered `initialize` with an error.
    InitializeRejected {
        /// The error code.
        code: i64,
    },
    /// Client: `initialize` timed out.
    InitializeTimedOut,
    /// The host called [`close`](super::Session::close).
    Local,
    /// Client: the server closed its output while the `server/discover` probe was
    /// pending. Some legacy servers exit on any request before `initialize`: restart the
    /// server and connect with a legacy-only configuration.
    PeerClosedDuringProbe,
    /// Client: the server answered `server/discover` with -32022 and no version we share.
    NoCommonVersion,
}

/// Why a session could not be created.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConfigError {
    /// `capabilities` is not a JSON object.
    CapabilitiesNotObject,
    /// No protocol revision selected.
    NoVersions,
    /// A limit is out of range (depth above the cap, id length above the cap, zero line).
    BadLimit,
    /// `limits.max_line` differs from the receive buffer size.
    LineMismatch,
    /// A buffer is too small; `required` bytes needed.
    BufferTooSmall {
        /// Which buffer: "tx", "events" or "info".
        which: &'static str,
        /// Bytes needed.
        required: usize,
    },
    /// More than 65535 table slots.
    TableTooLarge,
    /// The configuration asks for a role this build of the crate leaves out (the
    /// `server` and `client` Cargo features).
    RoleNotCompiled,
    /// The allocator could not provide the buffers
    /// (`Storage::try_owned`, feature `alloc`).
    OutOfMemory {
        /// Bytes asked for in all.
        required: usize,
    },
    /// `state_key` is shorter than 16 bytes, or this build leaves out the `seal` Cargo
    /// feature.
    StateKey,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::CapabilitiesNotObject => f.write_str("capabilities must be a JSON object"),
            ConfigError::NoVersions => f.write_str("no protocol version selected"),
            ConfigError::BadLimit => f.write_str("a limit is out of range"),
            ConfigError::LineMismatch => {
                f.write_str("limits.max_line must equal the receive buffer size")
            }
            ConfigError::BufferTooSmall { which, required } => {
                write!(f, "{which} buffer too small: {required} bytes required")
            }
            ConfigError::TableTooLarge => f.write_str("request tables are limited to 65535 slots"),
            ConfigError::RoleNotCompiled => {
                f.write_str("this build of picomcp leaves out the configured role")
            }
            ConfigError::OutOfMemory { required } => {
                write!(f, "cannot allocate {required} bytes of session buffers")
            }
            ConfigError::StateKey => f.write_str(
                "state_key must be at least 16 bytes, in a build with the `seal` feature",
            ),
        }
    }
}

impl core::error::Error for ConfigError {}

/// Why a send command was refused. Nothing was queued.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SendError {
    /// The lifecycle does not allow this now (e.g. before the handshake, or closed).
    WrongPhase(Phase),
    /// Our role may not send this method.
    WrongDirection(Method),
    /// The negotiated capabilities do not allow this method.
    NotNegotiated(Method),
    /// The method does not exist in the negotiated revision.
    NotInVersion(Method),
    /// A method the core sends itself (`initialize`, `notifications/initialized`,
    /// `notifications/cancelled`, `notifications/progress`): use the dedicated command.
    Reserved(Method),
    /// The outbound request table is full.
    TooManyRequests,
    /// The transmit queue is full; drain it and retry.
    Full(InsufficientSize),
    /// `params` is not a JSON object.
    ParamsNotObject,
    /// The handle does not name an open request.
    UnknownRequest,
    /// The request did not ask for progress.
    NoProgressToken,
    /// Progress (or its total) is not finite, or did not increase.
    ProgressNotIncreasing,
    /// 2026-07-28: the params of a request that may need an MRTR retry do not fit the
    /// arena ([`Config::arena_bytes`]); `required` bytes are needed.
    ArenaFull {
        /// Bytes needed.
        required: usize,
    },
    /// The params break a content rule of the revision: an `elicitation/create` whose
    /// `requestedSchema` is not a flat object of primitives, a malformed sampling
    /// `tools`/`toolChoice` (the `content-rules` feature).
    InvalidContent(crate::protocol::content::ContentError),
}

impl fmt::Display for SendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SendError::WrongPhase(p) => write!(f, "not allowed in phase {p:?}"),
            SendError::WrongDirection(m) => write!(f, "{m} cannot be sent by this role"),
            SendError::NotNegotiated(m) => {
                write!(f, "{m} needs a capability that was not negotiated")
            }
            SendError::NotInVersion(m) => write!(f, "{m} does not exist in the negotiated version"),
            SendError::Reserved(m) => write!(f, "{m} is sent by the session itself"),
            SendError::TooManyRequests => f.write_str("outbound request table is full"),
            SendError::Full(e) => write!(f, "transmit queue full: {e}"),
            SendError::ParamsNotObject => f.write_str("params must be a JSON object"),
            SendError::UnknownRequest => f.write_str("unknown or finished request"),
            SendError::NoProgressToken => f.write_str("the request did not ask for progress"),
            SendError::ProgressNotIncreasing => {
                f.write_str("progress must be a finite number that increases")
            }
            SendError::ArenaFull { required } => write!(
                f,
                "arena full: {required} bytes needed to keep the params for a retry"
            ),
            SendError::InvalidContent(e) => write!(f, "invalid params: {e}"),
        }
    }
}

impl core::error::Error for SendError {}

/// Why a response was refused. Nothing was queued.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum RespondError {
    /// The handle does not name an open request (already answered, or stale).
    UnknownRequest,
    /// The transmit queue is full; drain it and retry.
    Full(InsufficientSize),
    /// The result is not a JSON object.
    ResultNotObject,
    /// The error code is in the range -32020..=-32099 that the spec reserves; use the
    /// dedicated commands for the codes it defines.
    ReservedCode(ErrorCode),
    /// An `input_required` result is allowed only for `tools/call`, `prompts/get` and
    /// `resources/read` of a 2026-07-28 request, with input requests the request's client
    /// capabilities allow.
    InputNotAllowed,
    /// An input request of an `input_required` result breaks a content rule (an
    /// elicitation schema, sampling tools).
    InvalidContent(crate::protocol::content::ContentError),
}

impl fmt::Display for RespondError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RespondError::UnknownRequest => f.write_str("unknown or already answered request"),
            RespondError::Full(e) => write!(f, "transmit queue full: {e}"),
            RespondError::ResultNotObject => f.write_str("a result must be a JSON object"),
            RespondError::ReservedCode(c) => {
                write!(f, "error code {} is reserved by the MCP specification", c.0)
            }
            RespondError::InputNotAllowed => {
                f.write_str("input_required is not allowed for this request")
            }
            RespondError::InvalidContent(e) => write!(f, "invalid input request: {e}"),
        }
    }
}

impl core::error::Error for RespondError {}

/// Per-request options for [`send_request`](super::Session::send_request).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RequestOptions {
    /// Timeout in ms (`None`: the configured default).
    pub timeout_ms: Option<u64>,
    /// Ask for progress (`_meta.progressToken` is added) and route it to this request.
    pub progress: bool,
    /// Restart the timeout on every progress notification.
    pub reset_timeout_on_progress: bool,
    /// Hard maximum in ms, even with progress resets.
    pub max_total_ms: Option<u64>,
}

/// What [`Session::request_info`](super::Session::request_info) reports about a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestInfo {
    /// The method.
    pub method: Method,
    /// Served under 2026-07-28.
    pub modern: bool,
    /// 2026-07-28: the client capabilities declared on this request, masked by the
    /// revision ([`Caps::in_version`](crate::protocol::Caps::in_version)); gate input
    /// requests and features with these. Empty in the legacy era: use
    /// [`Session::peer_capabilities`](super::Session::peer_capabilities).
    pub client_capabilities: crate::protocol::Caps,
    /// 2026-07-28: the `logLevel` the request asked for (no level: no log messages).
    pub log_level: Option<crate::protocol::LogLevel>,
    /// The request carries a progress token.
    pub has_progress_token: bool,
    /// The peer cancelled it.
    pub cancelled: bool,
}

/// Counts the session keeps (for diagnostics and tests).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    /// Lines taken from the peer.
    pub lines_in: u64,
    /// Messages queued for the peer.
    pub messages_out: u64,
    /// Protocol violations seen.
    pub violations: u64,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Violation::Malformed {
                kind,
                replied: Some(c),
            } => write!(
                f,
                "malformed message ({}), answered {}",
                kind.message(),
                c.0
            ),
            Violation::Malformed {
                kind,
                replied: None,
            } => write!(f, "malformed message ({})", kind.message()),
            Violation::LineTooLong { limit } => {
                write!(f, "line longer than {limit} bytes discarded")
            }
            Violation::UnknownMethod => f.write_str("request for an unknown method"),
            Violation::NotNegotiated(m) => write!(
                f,
                "{m} is not allowed by the negotiated capabilities or the sender's role"
            ),
            Violation::NotInitialized(m) => write!(f, "{m} before the handshake"),
            Violation::DuplicateInitialize => f.write_str("second initialize"),
            Violation::DuplicateRequestId => f.write_str("request id reused while in flight"),
            Violation::TooManyRequests => {
                f.write_str("too many requests in flight (the inbound request table is full)")
            }
            Violation::InvalidParams(m) => write!(f, "invalid params for {m}"),
            Violation::NotInVersion(m) => {
                write!(f, "{m} does not exist in the negotiated revision")
            }
            Violation::UnknownResponseId => f.write_str("response to a request we never sent"),
            Violation::DuplicateResponse => {
                f.write_str("second response to a request that was already answered")
            }
            Violation::UnknownProgressToken => {
                f.write_str("progress for a token that names none of our requests")
            }
            Violation::UncorrelatedError { code } => {
                write!(
                    f,
                    "error response without an id (code {code}): the peer could not read something we sent"
                )
            }
            Violation::BatchNotAllowed => {
                f.write_str("JSON-RPC batch, which the negotiated revision does not allow")
            }
            Violation::ProgressNotIncreasing => f.write_str("progress did not increase"),
            Violation::BadEnvelope(m) => {
                write!(f, "{m} with a missing or malformed _meta envelope")
            }
            Violation::UnsupportedVersion => {
                f.write_str("request for a protocol version we do not serve")
            }
            Violation::UnexpectedMessage => {
                f.write_str("message not allowed in this era and direction")
            }
            Violation::TooManySubscriptions => f.write_str("subscription table or arena full"),
            Violation::InvalidResult => f.write_str(
                "invalid result for the request (unknown resultType, input_required where not allowed, too many input rounds, or elicitation content that does not match the schema)",
            ),
        }
    }
}

impl Violation {
    /// A stable snake_case name for logs and bindings (`"malformed"`, `"line_too_long"`).
    pub fn name(&self) -> &'static str {
        match self {
            Self::Malformed { .. } => "malformed",
            Self::LineTooLong { .. } => "line_too_long",
            Self::UnknownMethod => "unknown_method",
            Self::NotNegotiated(_) => "not_negotiated",
            Self::NotInitialized(_) => "not_initialized",
            Self::DuplicateInitialize => "duplicate_initialize",
            Self::DuplicateRequestId => "duplicate_request_id",
            Self::TooManyRequests => "too_many_requests",
            Self::InvalidParams(_) => "invalid_params",
            Self::NotInVersion(_) => "not_in_version",
            Self::UnknownResponseId => "unknown_response_id",
            Self::DuplicateResponse => "duplicate_response",
            Self::UnknownProgressToken => "unknown_progress_token",
            Self::UncorrelatedError { .. } => "uncorrelated_error",
            Self::BatchNotAllowed => "batch_not_allowed",
            Self::ProgressNotIncreasing => "progress_not_increasing",
            Self::BadEnvelope(_) => "bad_envelope",
            Self::UnsupportedVersion => "unsupported_version",
            Self::UnexpectedMessage => "unexpected_message",
            Self::TooManySubscriptions => "too_many_subscriptions",
            Self::InvalidResult => "invalid_result",
        }
    }
}

impl CloseReason {
    /// A stable snake_case name for logs and bindings (`"peer_closed"`, `"local"`).
    pub fn name(&self) -> &'static str {
        match self {
            Self::PeerClosed => "peer_closed",
            Self::UnsupportedVersion => "unsupported_version",
            Self::InitializeRejected { .. } => "initialize_rejected",
            Self::InitializeTimedOut => "initialize_timed_out",
            Self::Local => "local",
            Self::PeerClosedDuringProbe => "peer_closed_during_probe",
            Self::NoCommonVersion => "no_common_version",
        }
    }
}

impl fmt::Display for CloseReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CloseReason::PeerClosed => f.write_str("the peer closed its output"),
            CloseReason::UnsupportedVersion => {
                f.write_str("the server chose a protocol version we do not support")
            }
            CloseReason::InitializeRejected { code } => {
                write!(f, "the server rejected initialize (code {code})")
            }
            CloseReason::InitializeTimedOut => f.write_str("initialize timed out"),
            CloseReason::Local => f.write_str("closed locally"),
            CloseReason::PeerClosedDuringProbe => {
                f.write_str("the server closed its output during the server/discover probe")
            }
            CloseReason::NoCommonVersion => {
                f.write_str("the server shares no protocol version with us")
            }
        }
    }
}
