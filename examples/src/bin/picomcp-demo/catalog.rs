//! What the server offers: tool, resource and prompt definitions, and their list results
//! rendered once at startup (so `tools/list` and friends copy bytes and allocate nothing).

use picomcp::json::{Json, JsonStr, JsonWriter};
use picomcp::protocol::{Feature, ProtocolVersion};

/// A 1×1 red PNG.
pub(crate) const PNG_BASE64: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR42mP4z8AAAAMBAQD3A0FDAAAAAElFTkSuQmCC";
/// One millisecond of silence: 8 samples of 8-bit mono PCM at 8 kHz, as WAV.
pub(crate) const WAV_BASE64: &str =
    "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA==";

/// Every tool, by behaviour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tool {
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
}

pub(crate) struct ToolDef {
    pub(crate) name: &'static str,
    pub(crate) title: &'static str,
    pub(crate) description: &'static str,
    /// `inputSchema`, as JSON text.
    pub(crate) input: &'static str,
    /// `outputSchema`, as JSON text (listed from 2025-06-18 on).
    pub(crate) output: Option<&'static str>,
    pub(crate) tool: Tool,
}

const NO_ARGS: &str = r#"{"type":"object","additionalProperties":false}"#;

pub(crate) const TOOLS: &[ToolDef] = &[
    ToolDef {
        name: "echo",
        title: "Echo",
        description: "Returns `text` unchanged, as one text block.",
        input: r#"{"type":"object","properties":{"text":{"type":"string","description":"The text to return"}},"required":["text"]}"#,
        output: None,
        tool: Tool::Echo,
    },
    ToolDef {
        name: "add",
        title: "Add",
        description: "Adds two numbers; the sum is returned as structured content {\"sum\": a+b} and as JSON text.",
        input: r#"{"type":"object","properties":{"a":{"type":"number","description":"First addend"},"b":{"type":"number","description":"Second addend"}},"required":["a","b"]}"#,
        output: Some(
            r#"{"type":"object","properties":{"sum":{"type":"number","description":"a + b"}},"required":["sum"]}"#,
        ),
        tool: Tool::Add,
    },
    ToolDef {
        name: "sleep",
        title: "Sleep",
        description: "Waits `ms` milliseconds, then returns \"slept\". With a progress token it reports progress `steps` times (default 1), spread over the wait. Cancellable.",
        input: r#"{"type":"object","properties":{"ms":{"type":"integer","minimum":0,"maximum":60000,"description":"How long to wait, in milliseconds"},"steps":{"type":"integer","minimum":0,"maximum":10000,"description":"How many progress notifications to send when a progress token is given (default 1)"}},"required":["ms"]}"#,
        output: None,
        tool: Tool::Sleep,
    },
    ToolDef {
        name: "test_simple_text",
        title: "Simple text",
        description: "Returns a simple text block (conformance fixture).",
        input: NO_ARGS,
        output: None,
        tool: Tool::SimpleText,
    },
    ToolDef {
        name: "test_image_content",
        title: "Image content",
        description: "Returns a 1x1 PNG image block (conformance fixture).",
        input: NO_ARGS,
        output: None,
        tool: Tool::Image,
    },
    ToolDef {
        name: "test_audio_content",
        title: "Audio content",
        description: "Returns a short WAV audio block (conformance fixture).",
        input: NO_ARGS,
        output: None,
        tool: Tool::Audio,
    },
    ToolDef {
        name: "test_embedded_resource",
        title: "Embedded resource",
        description: "Returns an embedded text resource (conformance fixture).",
        input: NO_ARGS,
        output: None,
        tool: Tool::EmbeddedResource,
    },
    ToolDef {
        name: "test_multiple_content_types",
        title: "Multiple content types",
        description: "Returns text, image and embedded resource blocks (conformance fixture).",
        input: NO_ARGS,
        output: None,
        tool: Tool::MultipleContent,
    },
    ToolDef {
        name: "test_tool_with_logging",
        title: "Tool with logging",
        description: "Sends three info log messages about 50 ms apart while it runs (conformance fixture).",
        input: NO_ARGS,
        output: None,
        tool: Tool::WithLogging,
    },
    ToolDef {
        name: "test_tool_with_progress",
        title: "Tool with progress",
        description: "Reports progress 0, 50 and 100 of 100, about 50 ms apart (conformance fixture).",
        input: NO_ARGS,
        output: None,
        tool: Tool::WithProgress,
    },
    ToolDef {
        name: "test_error_handling",
        title: "Error handling",
        description: "Always fails with a tool execution error, isError: true (conformance fixture).",
        input: NO_ARGS,
        output: None,
        tool: Tool::ErrorHandling,
    },
    ToolDef {
        name: "test_sampling",
        title: "Sampling",
        description: "Asks the client's LLM to answer `prompt` (sampling/createMessage) and returns the answer (conformance fixture).",
        input: r#"{"type":"object","properties":{"prompt":{"type":"string","description":"The prompt to send to the LLM"}},"required":["prompt"]}"#,
        output: None,
        tool: Tool::Sampling,
    },
    ToolDef {
        name: "test_elicitation",
        title: "Elicitation",
        description: "Asks the user for a username and an email address (elicitation/create) and returns the answer (conformance fixture).",
        input: r#"{"type":"object","properties":{"message":{"type":"string","description":"The message to show the user"}},"required":["message"]}"#,
        output: None,
        tool: Tool::Elicitation,
    },
    ToolDef {
        name: "test_elicitation_sep1034_defaults",
        title: "Elicitation with defaults",
        description: "Elicits a form whose fields all carry default values (SEP-1034, conformance fixture).",
        input: NO_ARGS,
        output: None,
        tool: Tool::ElicitationDefaults,
    },
    ToolDef {
        name: "test_elicitation_sep1330_enums",
        title: "Elicitation with enums",
        description: "Elicits a form with every enum variant: untitled, titled, legacy, multi-select (SEP-1330, conformance fixture).",
        input: NO_ARGS,
        output: None,
        tool: Tool::ElicitationEnums,
    },
    ToolDef {
        name: "json_schema_2020_12_tool",
        title: "JSON Schema 2020-12",
        description: "Tool with JSON Schema 2020-12 features in its input schema; returns its arguments (conformance fixture).",
        input: r##"{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","$defs":{"address":{"$anchor":"addressDef","type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},"properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"},"contactMethod":{"type":"string","enum":["phone","email"]},"phone":{"type":"string"},"email":{"type":"string"}},"allOf":[{"anyOf":[{"required":["phone"]},{"required":["email"]}]}],"if":{"properties":{"contactMethod":{"const":"phone"}},"required":["contactMethod"]},"then":{"required":["phone"]},"else":{"required":["email"]},"additionalProperties":false}"##,
        output: None,
        tool: Tool::JsonSchema2020,
    },
];

/// The tool called `name`, if any.
pub(crate) fn find_tool(name: JsonStr<'_>) -> Option<Tool> {
    match name.as_plain() {
        Some(plain) => TOOLS.iter().find(|t| t.name == plain),
        None => TOOLS.iter().find(|t| name.eq_str(t.name)),
    }
    .map(|t| t.tool)
}

pub(crate) struct ResourceDef {
    pub(crate) uri: &'static str,
    pub(crate) name: &'static str,
    pub(crate) description: &'static str,
    pub(crate) mime: &'static str,
    pub(crate) body: Body,
}

/// What `resources/read` returns for a direct resource.
#[derive(Clone, Copy)]
pub(crate) enum Body {
    Text(&'static str),
    Blob(&'static str),
}

pub(crate) const WATCHED_URI: &str = "test://watched-resource";

pub(crate) const RESOURCES: &[ResourceDef] = &[
    ResourceDef {
        uri: "test://static-text",
        name: "static-text",
        description: "A static text resource",
        mime: "text/plain",
        body: Body::Text("This is the content of the static text resource."),
    },
    ResourceDef {
        uri: "test://static-binary",
        name: "static-binary",
        description: "A static binary resource (a 1x1 PNG image)",
        mime: "image/png",
        body: Body::Blob(PNG_BASE64),
    },
    ResourceDef {
        uri: WATCHED_URI,
        name: "watched-resource",
        description: "A resource that can be subscribed to",
        mime: "text/plain",
        body: Body::Text("Watched resource content"),
    },
];

/// The one resource template: `test://template/{id}/data`.
pub(crate) const TEMPLATE: &str = "test://template/{id}/data";
pub(crate) const TEMPLATE_PREFIX: &str = "test://template/";
pub(crate) const TEMPLATE_SUFFIX: &str = "/data";

/// The `id` of a URI that matches [`TEMPLATE`].
pub(crate) fn template_id(uri: &str) -> Option<&str> {
    let id = uri
        .strip_prefix(TEMPLATE_PREFIX)?
        .strip_suffix(TEMPLATE_SUFFIX)?;
    (!id.is_empty() && !id.contains('/')).then_some(id)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Prompt {
    Simple,
    WithArguments,
    EmbeddedResource,
    Image,
}

pub(crate) struct ArgDef {
    pub(crate) name: &'static str,
    pub(crate) description: &'static str,
}

pub(crate) struct PromptDef {
    pub(crate) name: &'static str,
    pub(crate) description: &'static str,
    /// Arguments; all of them are required.
    pub(crate) args: &'static [ArgDef],
    pub(crate) prompt: Prompt,
}

pub(crate) const PROMPTS: &[PromptDef] = &[
    PromptDef {
        name: "test_simple_prompt",
        description: "A simple prompt without arguments",
        args: &[],
        prompt: Prompt::Simple,
    },
    PromptDef {
        name: "test_prompt_with_arguments",
        description: "A prompt with two required arguments",
        args: &[
            ArgDef {
                name: "arg1",
                description: "First test argument",
            },
            ArgDef {
                name: "arg2",
                description: "Second test argument",
            },
        ],
        prompt: Prompt::WithArguments,
    },
    PromptDef {
        name: "test_prompt_with_embedded_resource",
        description: "A prompt that embeds a resource",
        args: &[ArgDef {
            name: "resourceUri",
            description: "URI of the resource to embed",
        }],
        prompt: Prompt::EmbeddedResource,
    },
    PromptDef {
        name: "test_prompt_with_image",
        description: "A prompt with image content",
        args: &[],
        prompt: Prompt::Image,
    },
];

/// The prompt called `name`, if any.
pub(crate) fn find_prompt(name: JsonStr<'_>) -> Option<&'static PromptDef> {
    PROMPTS.iter().find(|p| name.eq_str(p.name))
}

/// The list results, rendered once. The text lives as long as the process.
pub(crate) struct Catalog {
    /// `tools/list` for 2024-11-05 and 2025-03-26: no `title`, no `outputSchema`.
    tools_early: Json<'static>,
    /// `tools/list` from 2025-06-18 on.
    tools_current: Json<'static>,
    pub(crate) resources: Json<'static>,
    pub(crate) templates: Json<'static>,
    pub(crate) prompts: Json<'static>,
}

impl Catalog {
    /// Renders every list.
    ///
    /// # Errors
    /// A message naming the schema literal that is not valid JSON (a bug).
    pub(crate) fn build() -> Result<Catalog, String> {
        for t in TOOLS {
            for schema in std::iter::once(t.input).chain(t.output) {
                Json::new(schema).map_err(|e| format!("schema of tool {}: {e:?}", t.name))?;
            }
        }
        Ok(Catalog {
            tools_early: render(|w| write_tools(w, false))?,
            tools_current: render(|w| write_tools(w, true))?,
            resources: render(write_resources)?,
            templates: render(write_templates)?,
            prompts: render(write_prompts)?,
        })
    }

    /// The `tools/list` result for the negotiated revision.
    pub(crate) fn tools(&self, version: Option<ProtocolVersion>) -> Json<'static> {
        if version.is_some_and(|v| v.has(Feature::Title) && v.has(Feature::OutputSchema)) {
            self.tools_current
        } else {
            self.tools_early
        }
    }
}

/// Renders JSON into a new string.
pub(crate) fn render_string(f: impl Fn(&mut JsonWriter<'_>)) -> String {
    let mut buf = vec![0u8; 1024];
    let n = loop {
        let mut w = JsonWriter::new(&mut buf);
        f(&mut w);
        match w.finish() {
            Ok(n) => break n,
            Err(e) => buf.resize(e.required, 0),
        }
    };
    buf.truncate(n);
    // The writer only ever writes whole UTF-8 characters.
    String::from_utf8(buf).unwrap_or_default()
}

/// Renders JSON into a string kept for the life of the process.
fn render(f: impl Fn(&mut JsonWriter<'_>)) -> Result<Json<'static>, String> {
    let text: &'static str = render_string(f).leak();
    Json::new(text).map_err(|e| format!("rendered JSON is invalid: {e:?}"))
}

/// A schema literal checked by [`Catalog::build`].
fn schema(text: &'static str) -> Json<'static> {
    Json::new(text).unwrap_or(Json::EMPTY_OBJECT)
}

fn write_tools(w: &mut JsonWriter<'_>, current: bool) {
    w.begin_object();
    w.key("tools");
    w.begin_array();
    for t in TOOLS {
        w.begin_object();
        w.key("name");
        w.string(t.name);
        if current {
            w.key("title");
            w.string(t.title);
        }
        w.key("description");
        w.string(t.description);
        w.key("inputSchema");
        w.raw(schema(t.input));
        if let (true, Some(out)) = (current, t.output) {
            w.key("outputSchema");
            w.raw(schema(out));
        }
        w.end_object();
    }
    w.end_array();
    w.end_object();
}

fn write_resources(w: &mut JsonWriter<'_>) {
    w.begin_object();
    w.key("resources");
    w.begin_array();
    for r in RESOURCES {
        w.begin_object();
        w.key("uri");
        w.string(r.uri);
        w.key("name");
        w.string(r.name);
        w.key("description");
        w.string(r.description);
        w.key("mimeType");
        w.string(r.mime);
        w.end_object();
    }
    w.end_array();
    w.end_object();
}

fn write_templates(w: &mut JsonWriter<'_>) {
    w.begin_object();
    w.key("resourceTemplates");
    w.begin_array();
    w.begin_object();
    w.key("uriTemplate");
    w.string(TEMPLATE);
    w.key("name");
    w.string("template");
    w.key("description");
    w.string("A resource template: test://template/{id}/data returns JSON data for that id");
    w.key("mimeType");
    w.string("application/json");
    w.end_object();
    w.end_array();
    w.end_object();
}

fn write_prompts(w: &mut JsonWriter<'_>) {
    w.begin_object();
    w.key("prompts");
    w.begin_array();
    for p in PROMPTS {
        w.begin_object();
        w.key("name");
        w.string(p.name);
        w.key("description");
        w.string(p.description);
        if !p.args.is_empty() {
            w.key("arguments");
            w.begin_array();
            for a in p.args {
                w.begin_object();
                w.key("name");
                w.string(a.name);
                w.key("description");
                w.string(a.description);
                w.key("required");
                w.bool(true);
                w.end_object();
            }
            w.end_array();
        }
        w.end_object();
    }
    w.end_array();
    w.end_object();
}
