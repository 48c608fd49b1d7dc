"""Which schema type each message is: the result type of each request, the type of what we
send, of each server notification and server request, of our answers to the server's
requests, and (2026-07-28) of each error code."""

RESULT_TYPE = {
    "initialize": "InitializeResult",
    "ping": "EmptyResult",
    "logging/setLevel": "EmptyResult",
    "resources/subscribe": "EmptyResult",
    "resources/unsubscribe": "EmptyResult",
    "tools/list": "ListToolsResult",
    "tools/call": "CallToolResult",
    "resources/list": "ListResourcesResult",
    "resources/templates/list": "ListResourceTemplatesResult",
    "resources/read": "ReadResourceResult",
    "prompts/list": "ListPromptsResult",
    "prompts/get": "GetPromptResult",
    "completion/complete": "CompleteResult",
    "server/discover": "DiscoverResult",
    "subscriptions/listen": "SubscriptionsListenResult",
}
# MODERN.md §8.2: the only methods that may answer `input_required`.
MRTR_METHODS = {"tools/call", "prompts/get", "resources/read"}

REQUEST_TYPE = {  # client -> server, to self-check what we send
    "initialize": "InitializeRequest",
    "ping": "PingRequest",
    "logging/setLevel": "SetLevelRequest",
    "resources/subscribe": "SubscribeRequest",
    "resources/unsubscribe": "UnsubscribeRequest",
    "tools/list": "ListToolsRequest",
    "tools/call": "CallToolRequest",
    "resources/list": "ListResourcesRequest",
    "resources/templates/list": "ListResourceTemplatesRequest",
    "resources/read": "ReadResourceRequest",
    "prompts/list": "ListPromptsRequest",
    "prompts/get": "GetPromptRequest",
    "completion/complete": "CompleteRequest",
    "server/discover": "DiscoverRequest",
    "subscriptions/listen": "SubscriptionsListenRequest",
    "notifications/initialized": "InitializedNotification",
    "notifications/cancelled": "CancelledNotification",
}

NOTIFICATION_TYPE = {  # server -> client
    "notifications/progress": "ProgressNotification",
    "notifications/message": "LoggingMessageNotification",
    "notifications/resources/updated": "ResourceUpdatedNotification",
    "notifications/resources/list_changed": "ResourceListChangedNotification",
    "notifications/tools/list_changed": "ToolListChangedNotification",
    "notifications/prompts/list_changed": "PromptListChangedNotification",
    "notifications/cancelled": "CancelledNotification",
    "notifications/subscriptions/acknowledged": "SubscriptionsAcknowledgedNotification",
    "notifications/tasks/status": "TaskStatusNotification",
    "notifications/elicitation/complete": "ElicitationCompleteNotification",
}

SERVER_REQUEST_TYPE = {  # server -> client (legacy only) and embedded input requests
    "sampling/createMessage": "CreateMessageRequest",
    "elicitation/create": "ElicitRequest",
    "roots/list": "ListRootsRequest",
    "ping": "PingRequest",
}
CLIENT_RESULT_TYPE = {
    "sampling/createMessage": "CreateMessageResult",
    "elicitation/create": "ElicitResult",
    "roots/list": "ListRootsResult",
    "ping": "EmptyResult",
}

# 2026-07-28 error types by code (bare `error` objects or full messages; see
# Schema.is_full_message). Older revisions only have the generic error type.
ERROR_TYPE_BY_CODE = {
    -32700: "ParseError",
    -32600: "InvalidRequestError",
    -32601: "MethodNotFoundError",
    -32602: "InvalidParamsError",
    -32603: "InternalError",
    -32020: "HeaderMismatchError",
    -32021: "MissingRequiredClientCapabilityError",
    -32022: "UnsupportedProtocolVersionError",
    -32042: "URLElicitationRequiredError",  # 2025-11-25
}

