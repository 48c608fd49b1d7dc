//! @generated from the core's method table (`picomcp::protocol::METHODS`), revision
//! list (`ProtocolVersion::ALL`) and feature table (`picomcp::protocol::FEATURES`)
//! by the test `generated_tables_in_sync`.
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

/// One difference between protocol revisions: a row of the core's feature table.
/// Ask `picomcp_version_has(version, feature, &yes)` instead of comparing revisions;
/// `picomcp_feature_name` gives the name the Python and Node bindings use.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum picomcp_feature {
    /// `batches` (2025-03-26): JSON-RPC batches (arrays of messages) must be accepted.
    Batches = 0,
    /// `tool_annotations` (2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28): tools may carry `annotations` (behaviour hints).
    ToolAnnotations = 1,
    /// `audio_content` (2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28): `audio` content blocks.
    AudioContent = 2,
    /// `progress_message` (2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28): `notifications/progress` may carry `message`.
    ProgressMessage = 3,
    /// `completions_capability` (2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28): `completion/complete` needs the server capability `completions`.
    CompletionsCapability = 4,
    /// `title` (2025-06-18, 2025-11-25, 2026-07-28): tools, resources, templates, prompts and `Implementation` may carry `title`.
    Title = 5,
    /// `output_schema` (2025-06-18, 2025-11-25, 2026-07-28): tools may carry `outputSchema`.
    OutputSchema = 6,
    /// `structured_content` (2025-06-18, 2025-11-25, 2026-07-28): tool results may carry `structuredContent`.
    StructuredContent = 7,
    /// `resource_links` (2025-06-18, 2025-11-25, 2026-07-28): `resource_link` content blocks.
    ResourceLinks = 8,
    /// `completion_context` (2025-06-18, 2025-11-25, 2026-07-28): `completion/complete` params may carry `context`.
    CompletionContext = 9,
    /// `elicitation` (2025-06-18, 2025-11-25, 2026-07-28): the server may ask the user for input (elicitation).
    Elicitation = 10,
    /// `elicitation_modes` (2025-11-25, 2026-07-28): elicitation has modes: the `elicitation.{form,url}` capability and URL-mode requests.
    ElicitationModes = 11,
    /// `elicitation_enums` (2025-11-25, 2026-07-28): elicitation forms may use titled and multi-select enums and defaults.
    ElicitationEnums = 12,
    /// `icons` (2025-11-25, 2026-07-28): tools, resources, templates, prompts and `Implementation` may carry `icons`.
    Icons = 13,
    /// `argument_errors_as_tool_results` (2025-11-25, 2026-07-28): bad tool arguments are an `isError` tool result, not error -32602.
    ArgumentErrorsAsToolResults = 14,
    /// `sampling_tools` (2025-11-25, 2026-07-28): sampling with tools (`tools`, `toolChoice`, `tool_use`/`tool_result` content).
    SamplingTools = 15,
    /// `error_without_id` (2025-11-25, 2026-07-28): an error response may leave out `id` when the request id was unreadable.
    ErrorWithoutId = 16,
    /// `tasks` (2025-11-25): core tasks (the `tasks/...` methods, `params.task`, the `tasks` capability).
    Tasks = 17,
    /// `tool_execution` (2025-11-25): tools may carry `execution` (`taskSupport`).
    ToolExecution = 18,
    /// `url_elicitation_required_error` (2025-11-25): error -32042 (URL elicitation required) exists.
    UrlElicitationRequiredError = 19,
    /// `server_requests` (2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25): the server sends requests to the client (sampling, elicitation, roots, ping).
    ServerRequests = 20,
    /// `input_required` (2026-07-28): the server asks for input with an `input_required` result (MRTR).
    InputRequired = 21,
    /// `result_type` (2026-07-28): results carry `resultType`; cacheable results `ttlMs` and `cacheScope`.
    ResultType = 22,
    /// `resource_not_found_invalid_params` (2026-07-28): "resource not found" is -32602 instead of -32002.
    ResourceNotFoundInvalidParams = 23,
}
