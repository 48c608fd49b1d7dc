//! The reserved `_meta` keys the core reads and writes (MODERN.md §3.2; DIGEST §2.7 for
//! the key format). Hosts and tools that build or read `_meta` themselves (a client
//! asking for log messages, a probe reading `serverInfo`) use these instead of spelling
//! the keys again.

/// `progressToken` (request `_meta`, every revision): opts the request into
/// `notifications/progress`.
pub const PROGRESS_TOKEN: &str = "progressToken";
/// 2026-07-28, every request: the protocol revision of the request (required).
pub const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// 2026-07-28, every request: the client's capabilities for this request (required).
pub const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// 2026-07-28, requests: the client's `Implementation` (optional, should be sent).
pub const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
/// 2026-07-28, requests: the lowest log level the request wants `notifications/message`
/// for (optional; without it nothing is logged).
pub const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
/// 2026-07-28, results: the server's `Implementation` (optional, should be sent).
pub const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
/// 2026-07-28: the id of the `subscriptions/listen` request, on every notification of
/// its stream and on its result.
pub const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
