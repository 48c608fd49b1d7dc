//! The endpoint's configuration and caller memory: [`EndpointConfig`] (rules and limits),
//! [`EndpointStorage`] (the slot and stream tables and the stream bytes), and
//! [`EndpointError`] (what [`Endpoint::new`](super::Endpoint::new) refuses).

use super::{SlotEntry, StreamSlot};
use crate::Limits;
use crate::http::auth::{AuthConfig, AuthConfigError};
use crate::http::params::ToolSchemas;
use crate::protocol::Versions;
use crate::session::Slice;

/// How a POST that carries requests is answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResponseMode {
    /// JSON when the response is the only message the request causes before it is
    /// answered; SSE as soon as anything else (progress, a log message, a question to
    /// the client) must travel with it. The default: the simplest answer for clients
    /// whenever it is possible, the stream whenever it is needed.
    Auto,
    /// Always one `application/json` body. Messages tied to the request that are not its
    /// response go to the session's GET stream instead.
    Json,
    /// Always `text/event-stream`.
    Sse,
}

/// The endpoint's rules and limits.
#[derive(Clone, Copy, Debug)]
pub struct EndpointConfig<'a> {
    /// The MCP endpoint's path (other paths get 404). Default `/mcp`.
    pub path: &'a str,
    /// Check `Host` and `Origin` against the loopback names and `allowed_hosts` (403 on a
    /// mismatch), so that DNS rebinding fails. Default on.
    pub check_hosts: bool,
    /// Host names accepted besides `localhost`, `127.0.0.1` and `[::1]` (any port).
    pub allowed_hosts: &'a [&'a str],
    /// The largest body taken (413 beyond). Default 1 MiB.
    pub max_body: usize,
    /// Parse limits for bodies (the sessions' `max_line` should be at least `max_body`).
    pub limits: Limits,
    /// A legacy session unused this long (no request, no connected stream) expires: its
    /// id then gets 404. Default 10 minutes.
    pub session_idle_ms: u64,
    /// An SSE stream with nothing to send gets a comment this often. Default 15 s.
    pub keepalive_ms: u64,
    /// The `retry` hint of the priming event (2025-11-25). Default 1000 ms.
    pub retry_ms: u32,
    /// JSON, SSE or either per request. Default [`ResponseMode::Auto`].
    pub response_mode: ResponseMode,
    /// Offer the GET stream of legacy sessions (405 when off). Default on.
    pub get_stream: bool,
    /// The revisions served (what `MCP-Protocol-Version` may name).
    pub versions: Versions,
    /// The `x-mcp-header` annotations of the served tools: each `Mcp-Param-{header}` is
    /// checked against the argument it mirrors (MODERN §13.2). Default none.
    pub param_headers: &'a [ParamHeader<'a>],
    /// The served tools' input schemas: every `x-mcp-header` annotation in them is
    /// checked as its `Mcp-Param-{Name}` header of 2026-07-28 `tools/call`s (MODERN §13.2;
    /// [`crate::http::params`]). The server layer's [`Server`](crate::server::Server) and
    /// [`Catalog`](crate::server::Catalog) provide them. Default none.
    pub tools: Option<&'a dyn ToolSchemas>,
    /// Serve the endpoint as an OAuth 2.1 protected resource (every request needs a valid
    /// Bearer token; [`crate::http::auth`]). Default none: no authorization.
    pub auth: Option<AuthConfig<'a>>,
}

/// One `x-mcp-header` annotation: tool `tool`'s top-level argument `property` travels
/// in the header `Mcp-Param-{header}` of 2026-07-28 requests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParamHeader<'a> {
    /// The tool's name.
    pub tool: &'a str,
    /// The argument (a property of the `inputSchema`'s root).
    pub property: &'a str,
    /// `{Name}` of `Mcp-Param-{Name}` (the annotation's value).
    pub header: &'a str,
}

impl Default for EndpointConfig<'_> {
    fn default() -> Self {
        EndpointConfig {
            path: "/mcp",
            check_hosts: true,
            allowed_hosts: &[],
            max_body: 1 << 20,
            limits: Limits::DEFAULT,
            session_idle_ms: 600_000,
            keepalive_ms: 15_000,
            retry_ms: 1000,
            response_mode: ResponseMode::Auto,
            get_stream: true,
            versions: Versions::ALL,
            param_headers: &[],
            tools: None,
            auth: None,
        }
    }
}

/// Caller memory: the slot table (one entry per session of the host's pool), the stream
/// table, and the stream bytes, split evenly between streams (each stream's share must
/// hold the largest message plus about 64 bytes of SSE framing).
pub struct EndpointStorage<'e> {
    /// One entry per session slot.
    pub slots: Slice<'e, SlotEntry>,
    /// One entry per response stream that may be open at once.
    pub streams: Slice<'e, StreamSlot>,
    /// The streams' bytes.
    pub bytes: Slice<'e, u8>,
}

impl EndpointStorage<'static> {
    /// Heap-backed storage: `slots` sessions, `streams` streams of `per_stream` bytes.
    #[cfg(feature = "alloc")]
    pub fn owned(slots: usize, streams: usize, per_stream: usize) -> Self {
        EndpointStorage {
            slots: Slice::Owned(alloc::vec![SlotEntry::EMPTY; slots]),
            streams: Slice::Owned(alloc::vec![StreamSlot::EMPTY; streams]),
            bytes: Slice::Owned(alloc::vec![0; streams * per_stream]),
        }
    }
}

/// A configuration or storage the endpoint cannot work with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndpointError {
    /// No slots or no streams.
    Empty,
    /// A stream's share of bytes cannot hold one message of `max_body` bytes.
    StreamTooSmall {
        /// Bytes each stream needs.
        required: usize,
    },
    /// The path does not start with `/`.
    BadPath,
    /// The [`EndpointConfig::auth`] configuration is unusable.
    Auth(AuthConfigError),
}
