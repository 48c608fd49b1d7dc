//! What the server offers: the tool, resource, template and prompt tables that the core's
//! server layer (`picomcp::server`) lists, checks calls against and shapes answers for.
//! Each table has a parallel array saying which behaviour serves each entry.

use picomcp::server::{Catalog, Prompt, PromptArgument, Resource, ResourceTemplate, Tool};

/// A 1×1 red PNG.
pub(crate) const PNG_BASE64: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR42mP4z8AAAAMBAQD3A0FDAAAAAElFTkSuQmCC";
/// One millisecond of silence: 8 samples of 8-bit mono PCM at 8 kHz, as WAV.
pub(crate) const WAV_BASE64: &str =
    "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA==";

/// Every tool, by behaviour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ToolKind {
    Echo,
    Add,
    Sleep,
    SimpleText,
    Image,
    Audio,
    EmbeddedResource,
    MultipleContent,
    WithLogging,
    WithProgress,
    ErrorHandling,
    Sampling,
    Elicitation,
    ElicitationDefaults,
    ElicitationEnums,
    JsonSchema2020,
    // The 0.2.0 suite's diagnostic fixtures (mrtr.rs).
    IrElicitation,
    IrSampling,
    IrListRoots,
    IrRequestState,
    IrMultipleInputs,
    IrMultiRound,
    IrTamperedState,
    IrCapabilities,
    MissingCapability,
    StreamingElicitation,
    LoggingTool,
    TriggerToolChange,
    TriggerPromptChange,
}

const NO_ARGS: &str = r#"{"type":"object","additionalProperties":false}"#;

pub(crate) const TOOLS: &[Tool<'static>] = &[
    Tool::new("echo", r#"{"type":"object","properties":{"text":{"type":"string","description":"The text to return"}},"required":["text"]}"#)
        .title("Echo")
        .description("Returns `text` unchanged, as one text block."),
    Tool::new("add", r#"{"type":"object","properties":{"a":{"type":"number","description":"First addend"},"b":{"type":"number","description":"Second addend"}},"required":["a","b"]}"#)
        .title("Add")
        .description("Adds two numbers; the sum is returned as structured content {\"sum\": a+b} and as JSON text.")
        .output_schema(r#"{"type":"object","properties":{"sum":{"type":"number","description":"a + b"}},"required":["sum"]}"#),
    Tool::new("sleep", r#"{"type":"object","properties":{"ms":{"type":"integer","minimum":0,"maximum":60000,"description":"How long to wait, in milliseconds"},"steps":{"type":"integer","minimum":0,"maximum":10000,"description":"How many progress notifications to send when a progress token is given (default 1)"}},"required":["ms"]}"#)
        .title("Sleep")
        .description("Waits `ms` milliseconds, then returns \"slept\". With a progress token it reports progress `steps` times (default 1), spread over the wait. Cancellable.")
        // Under --auth-issuer only (auth.rs): a basic token neither sees nor calls it.
        .scopes("mcp:admin"),
    Tool::new("test_simple_text", NO_ARGS)
        .title("Simple text")
        .description("Returns a simple text block (conformance fixture)."),
    Tool::new("test_image_content", NO_ARGS)
        .title("Image content")
        .description("Returns a 1x1 PNG image block (conformance fixture)."),
    Tool::new("test_audio_content", NO_ARGS)
        .title("Audio content")
        .description("Returns a short WAV audio block (conformance fixture)."),
    Tool::new("test_embedded_resource", NO_ARGS)
        .title("Embedded resource")
        .description("Returns an embedded text resource (conformance fixture)."),
    Tool::new("test_multiple_content_types", NO_ARGS)
        .title("Multiple content types")
        .description("Returns text, image and embedded resource blocks (conformance fixture)."),
    Tool::new("test_tool_with_logging", NO_ARGS)
        .title("Tool with logging")
        .description("Sends three info log messages about 50 ms apart while it runs (conformance fixture)."),
    Tool::new("test_tool_with_progress", NO_ARGS)
        .title("Tool with progress")
        .description("Reports progress 0, 50 and 100 of 100, about 50 ms apart (conformance fixture)."),
    Tool::new("test_error_handling", NO_ARGS)
        .title("Error handling")
        .description("Always fails with a tool execution error, isError: true (conformance fixture)."),
    Tool::new("test_sampling", r#"{"type":"object","properties":{"prompt":{"type":"string","description":"The prompt to send to the LLM"}},"required":["prompt"]}"#)
        .title("Sampling")
        .description("Asks the client's LLM to answer `prompt` (sampling/createMessage) and returns the answer (conformance fixture)."),
    Tool::new("test_elicitation", r#"{"type":"object","properties":{"message":{"type":"string","description":"The message to show the user"}},"required":["message"]}"#)
        .title("Elicitation")
        .description("Asks the user for a username and an email address (elicitation/create) and returns the answer (conformance fixture)."),
    Tool::new("test_elicitation_sep1034_defaults", NO_ARGS)
        .title("Elicitation with defaults")
        .description("Elicits a form whose fields all carry default values (SEP-1034, conformance fixture)."),
    Tool::new("test_elicitation_sep1330_enums", NO_ARGS)
        .title("Elicitation with enums")
        .description("Elicits a form with every enum variant: untitled, titled, legacy, multi-select (SEP-1330, conformance fixture)."),
    Tool::new("json_schema_2020_12_tool", r##"{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","$defs":{"address":{"$anchor":"addressDef","type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},"properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"},"contactMethod":{"type":"string","enum":["phone","email"]},"phone":{"type":"string"},"email":{"type":"string"}},"allOf":[{"anyOf":[{"required":["phone"]},{"required":["email"]}]}],"if":{"properties":{"contactMethod":{"const":"phone"}},"required":["contactMethod"]},"then":{"required":["phone"]},"else":{"required":["email"]},"additionalProperties":false}"##)
        .title("JSON Schema 2020-12")
        .description("Tool with JSON Schema 2020-12 features in its input schema; returns its arguments (conformance fixture)."),
    // `echo` whose argument also travels as the header `Mcp-Param-Text` of 2026-07-28
    // HTTP calls (MODERN §13.3): the core derives the check from this schema.
    Tool::new("echo_header", r#"{"type":"object","properties":{"text":{"type":"string","x-mcp-header":"Text","description":"The text to return, mirrored in the Mcp-Param-Text header"}},"required":["text"]}"#)
        .title("Echo (header)")
        .description("Returns `text` unchanged, as one text block; over Streamable HTTP (2026-07-28) `text` is mirrored in the Mcp-Param-Text header."),
    // The 0.2.0 conformance suite's diagnostic fixtures (2026-07-28; mrtr.rs).
    Tool::new("test_input_required_result_elicitation", NO_ARGS)
        .description("2026-07-28: asks the user's name (input_required, elicitation), then says hello (conformance fixture)."),
    Tool::new("test_input_required_result_sampling", NO_ARGS)
        .description("2026-07-28: asks the client's LLM a question (input_required, sampling), then returns the answer (conformance fixture)."),
    Tool::new("test_input_required_result_list_roots", NO_ARGS)
        .description("2026-07-28: asks for the client's roots (input_required, roots/list), then lists them (conformance fixture)."),
    Tool::new("test_input_required_result_request_state", NO_ARGS)
        .description("2026-07-28: asks for a confirmation with a requestState, then checks the echoed state (conformance fixture)."),
    Tool::new("test_input_required_result_multiple_inputs", NO_ARGS)
        .description("2026-07-28: asks for an elicitation, a sampling and the roots at once (conformance fixture)."),
    Tool::new("test_input_required_result_multi_round", NO_ARGS)
        .description("2026-07-28: asks two questions in two rounds, carried by requestState (conformance fixture)."),
    Tool::new("test_input_required_result_tampered_state", NO_ARGS)
        .description("2026-07-28: answers with a sealed requestState; a tampered one is refused with -32602 (conformance fixture)."),
    Tool::new("test_input_required_result_capabilities", NO_ARGS)
        .description("2026-07-28: asks only with the capabilities the request declared (conformance fixture)."),
    Tool::new("test_missing_capability", NO_ARGS)
        .description("2026-07-28: needs the client's sampling; without it declared, -32021 (conformance fixture)."),
    Tool::new("test_streaming_elicitation", NO_ARGS)
        .description("2026-07-28: asks for a confirmation on the request's own stream, as an input_required result (conformance fixture)."),
    Tool::new("test_logging_tool", NO_ARGS)
        .description("Sends one info log message, only to a request that asked for that level (conformance fixture)."),
    Tool::new("test_trigger_tool_change", NO_ARGS)
        .description("Announces that the tool list changed (notifications/tools/list_changed; conformance fixture)."),
    Tool::new("test_trigger_prompt_change", NO_ARGS)
        .description("Announces that the prompt list changed (notifications/prompts/list_changed; conformance fixture)."),
];

/// The behaviour of `TOOLS[i]`.
pub(crate) const TOOL_KINDS: [ToolKind; TOOLS.len()] = [
    ToolKind::Echo,
    ToolKind::Add,
    ToolKind::Sleep,
    ToolKind::SimpleText,
    ToolKind::Image,
    ToolKind::Audio,
    ToolKind::EmbeddedResource,
    ToolKind::MultipleContent,
    ToolKind::WithLogging,
    ToolKind::WithProgress,
    ToolKind::ErrorHandling,
    ToolKind::Sampling,
    ToolKind::Elicitation,
    ToolKind::ElicitationDefaults,
    ToolKind::ElicitationEnums,
    ToolKind::JsonSchema2020,
    ToolKind::Echo,
    ToolKind::IrElicitation,
    ToolKind::IrSampling,
    ToolKind::IrListRoots,
    ToolKind::IrRequestState,
    ToolKind::IrMultipleInputs,
    ToolKind::IrMultiRound,
    ToolKind::IrTamperedState,
    ToolKind::IrCapabilities,
    ToolKind::MissingCapability,
    ToolKind::StreamingElicitation,
    ToolKind::LoggingTool,
    ToolKind::TriggerToolChange,
    ToolKind::TriggerPromptChange,
];

/// What `resources/read` returns for a direct resource.
#[derive(Clone, Copy)]
pub(crate) enum Body {
    Text(&'static str),
    Blob(&'static str),
}

pub(crate) const WATCHED_URI: &str = "test://watched-resource";

pub(crate) const RESOURCES: &[Resource<'static>] = &[
    Resource::new("test://static-text", "static-text")
        .description("A static text resource")
        .mime_type("text/plain"),
    Resource::new("test://static-binary", "static-binary")
        .description("A static binary resource (a 1x1 PNG image)")
        .mime_type("image/png"),
    Resource::new(WATCHED_URI, "watched-resource")
        .description("A resource that can be subscribed to")
        .mime_type("text/plain"),
];

/// The contents of `RESOURCES[i]`.
pub(crate) const BODIES: [Body; RESOURCES.len()] = [
    Body::Text("This is the content of the static text resource."),
    Body::Blob(PNG_BASE64),
    Body::Text("Watched resource content"),
];

/// The one resource template; its `id` is completed.
pub(crate) const TEMPLATES: &[ResourceTemplate<'static>] =
    &[
        ResourceTemplate::new("test://template/{id}/data", "template")
            .description(
                "A resource template: test://template/{id}/data returns JSON data for that id",
            )
            .mime_type("application/json")
            .completable(),
    ];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PromptKind {
    Simple,
    WithArguments,
    EmbeddedResource,
    Image,
    /// 2026-07-28: asks for a context (`input_required`), then answers (mrtr.rs).
    InputRequired,
}

pub(crate) const PROMPTS: &[Prompt<'static>] = &[
    Prompt::new("test_simple_prompt").description("A simple prompt without arguments"),
    Prompt::new("test_prompt_with_arguments")
        .description("A prompt with two required arguments")
        .arguments(&[
            PromptArgument::new("arg1")
                .description("First test argument")
                .required()
                .completable(),
            PromptArgument::new("arg2")
                .description("Second test argument")
                .required()
                .completable(),
        ]),
    Prompt::new("test_prompt_with_embedded_resource")
        .description("A prompt that embeds a resource")
        .arguments(&[PromptArgument::new("resourceUri")
            .description("URI of the resource to embed")
            .required()
            .completable()]),
    Prompt::new("test_prompt_with_image").description("A prompt with image content"),
    Prompt::new("test_input_required_result_prompt").description(
        "2026-07-28: asks for a context (input_required, elicitation), then uses it (conformance fixture)",
    ),
];

/// The behaviour of `PROMPTS[i]`.
pub(crate) const PROMPT_KINDS: [PromptKind; PROMPTS.len()] = [
    PromptKind::Simple,
    PromptKind::WithArguments,
    PromptKind::EmbeddedResource,
    PromptKind::Image,
    PromptKind::InputRequired,
];

/// Everything, for `picomcp::server::Server::new`.
pub(crate) const CATALOG: Catalog<'static> = Catalog {
    tools: TOOLS,
    resources: RESOURCES,
    templates: TEMPLATES,
    prompts: PROMPTS,
};
