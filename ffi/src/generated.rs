//! @generated from the core's method table (`picomcp::protocol::METHODS`) and
//! revision list (`ProtocolVersion::ALL`) by the test `generated_tables_in_sync`.
//! Do not edit: run `ffi/gen-header.sh` (or `PICOMCP_REGENERATE=1 cargo test -p
//! picomcp-ffi generated_tables`).

/// Every MCP method picomcp knows: its row in the core's method table. Events carry
/// it in `picomcp_event.method` (next to `method_name`); commands take the wire name.
#[repr(i32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum picomcp_method {
    /// No method (the event has none).
    None = -1,
    /// `initialize` (request, since 2024-11-05)
    Initialize = 0,
    /// `notifications/initialized` (notification, since 2024-11-05)
    Initialized = 1,
    /// `ping` (request, since 2024-11-05)
    Ping = 2,
    /// `notifications/cancelled` (notification, since 2024-11-05)
    Cancelled = 3,
    /// `notifications/progress` (notification, since 2024-11-05)
    Progress = 4,
    /// `tools/list` (request, since 2024-11-05)
    ToolsList = 5,
    /// `tools/call` (request, since 2024-11-05)
    ToolsCall = 6,
    /// `notifications/tools/list_changed` (notification, since 2024-11-05)
    ToolsListChanged = 7,
    /// `resources/list` (request, since 2024-11-05)
    ResourcesList = 8,
    /// `resources/templates/list` (request, since 2024-11-05)
    ResourcesTemplatesList = 9,
    /// `resources/read` (request, since 2024-11-05)
    ResourcesRead = 10,
    /// `resources/subscribe` (request, since 2024-11-05)
    ResourcesSubscribe = 11,
    /// `resources/unsubscribe` (request, since 2024-11-05)
    ResourcesUnsubscribe = 12,
    /// `notifications/resources/updated` (notification, since 2024-11-05)
    ResourcesUpdated = 13,
    /// `notifications/resources/list_changed` (notification, since 2024-11-05)
    ResourcesListChanged = 14,
    /// `prompts/list` (request, since 2024-11-05)
    PromptsList = 15,
    /// `prompts/get` (request, since 2024-11-05)
    PromptsGet = 16,
    /// `notifications/prompts/list_changed` (notification, since 2024-11-05)
    PromptsListChanged = 17,
    /// `logging/setLevel` (request, since 2024-11-05)
    LoggingSetLevel = 18,
    /// `notifications/message` (notification, since 2024-11-05)
    LogMessage = 19,
    /// `completion/complete` (request, since 2024-11-05)
    CompletionComplete = 20,
    /// `roots/list` (request, since 2024-11-05)
    RootsList = 21,
    /// `notifications/roots/list_changed` (notification, since 2024-11-05)
    RootsListChanged = 22,
    /// `sampling/createMessage` (request, since 2024-11-05)
    SamplingCreateMessage = 23,
    /// `elicitation/create` (request, since 2025-06-18)
    ElicitationCreate = 24,
    /// `notifications/elicitation/complete` (notification, since 2025-11-25)
    ElicitationComplete = 25,
    /// `tasks/get` (request, since 2025-11-25)
    TasksGet = 26,
    /// `tasks/result` (request, since 2025-11-25)
    TasksResult = 27,
    /// `tasks/list` (request, since 2025-11-25)
    TasksList = 28,
    /// `tasks/cancel` (request, since 2025-11-25)
    TasksCancel = 29,
    /// `notifications/tasks/status` (notification, since 2025-11-25)
    TasksStatus = 30,
    /// `server/discover` (request, since 2026-07-28)
    ServerDiscover = 31,
    /// `subscriptions/listen` (request, since 2026-07-28)
    SubscriptionsListen = 32,
    /// `notifications/subscriptions/acknowledged` (notification, since 2026-07-28)
    SubscriptionsAcknowledged = 33,
}

/// A protocol revision, as a bit: `picomcp_config.versions` is an OR of these, and
/// events and `picomcp_session_version` report one.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum picomcp_version {
    /// 2024-11-05 (legacy `initialize` handshake)
    V2024_11_05 = 1,
    /// 2025-03-26 (legacy `initialize` handshake)
    V2025_03_26 = 2,
    /// 2025-06-18 (legacy `initialize` handshake)
    V2025_06_18 = 4,
    /// 2025-11-25 (legacy `initialize` handshake)
    V2025_11_25 = 8,
    /// 2026-07-28 (modern era)
    V2026_07_28 = 16,
}

/// Every revision with the legacy `initialize` handshake.
pub const PICOMCP_VERSIONS_LEGACY: u32 = 0xf;
/// Every revision picomcp knows.
pub const PICOMCP_VERSIONS_ALL: u32 = 0x1f;
