//! The firmware subset of the demo contract (`DEMO_SERVER.md`): tools `echo`, `add` and
//! `test_simple_text`, the resource `test://static-text` and the prompt
//! `test_simple_prompt`. The core answers `initialize`, `server/discover`, `ping` and every
//! lifecycle and capability error itself; this module only sees requests that passed.
//!
//! An event and the commands to answer it are disjoint borrows of the session
//! (`Session::poll_event_split`), so [`answer`] reads the request's params straight from
//! the event queue and writes the result straight into the transmit queue: nothing is
//! copied, and `echo` takes any text that fits a line.

use picomcp::error::ErrorCode;
use picomcp::json::{F64_TEXT_MAX, Json, JsonWriter, format_f64};
use picomcp::protocol::{Method, ProtocolVersion};
use picomcp::session::{Commands, InboundId, RespondError};

/// What `initialize`/`server/discover` declare: exactly what is implemented. No
/// `listChanged` (the lists never change), no `subscribe`, no `logging`, no `completions`.
pub const CAPABILITIES: &str = r#"{"tools":{},"resources":{},"prompts":{}}"#;

/// The tool list is written in pieces ([`Body::Tools`]): `add` gets its `outputSchema`
/// from 2025-06-18 on, and one copy of the text serves every revision.
const ECHO_TOOL: &str = concat!(
    r#"{"name":"echo","description":"Returns its text argument unchanged, as one text block.","#,
    r#""inputSchema":{"type":"object","properties":{"text":{"type":"string","description":"The text to return"}},"required":["text"]}}"#,
);
const ADD_DESCRIPTION: &str = "Adds two numbers. The sum comes back as structuredContent {\"sum\": a+b} and as the same JSON in a text block.";
const ADD_INPUT_SCHEMA: &str = r#"{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}"#;
const ADD_OUTPUT_SCHEMA: &str =
    r#"{"type":"object","properties":{"sum":{"type":"number"}},"required":["sum"]}"#;
const SIMPLE_TEXT_TOOL: &str = concat!(
    r#"{"name":"test_simple_text","description":"Returns a simple text response (conformance fixture).","#,
    r#""inputSchema":{"type":"object","properties":{}}}"#,
);
/// Marks `tools/list` in [`Job::Result`].
const TOOLS: &str = "";

const RESOURCES: &str = concat!(
    r#"{"resources":[{"uri":"test://static-text","name":"static-text","#,
    r#""description":"A static text resource (conformance fixture).","mimeType":"text/plain"}]}"#
);
const TEMPLATES: &str = r#"{"resourceTemplates":[]}"#;
const STATIC_TEXT: &str = concat!(
    r#"{"contents":[{"uri":"test://static-text","mimeType":"text/plain","#,
    r#""text":"This is the content of the static text resource."}]}"#
);
const PROMPTS: &str = concat!(
    r#"{"prompts":[{"name":"test_simple_prompt","#,
    r#""description":"A simple prompt without arguments (conformance fixture)."}]}"#
);
const SIMPLE_PROMPT: &str = concat!(
    r#"{"description":"A simple prompt without arguments","#,
    r#""messages":[{"role":"user","content":{"type":"text","text":"This is a simple prompt for testing."}}]}"#
);
const SIMPLE_TEXT: &str = "This is a simple text response for testing.";

/// An answer to write (it borrows the request's params).
enum Job<'a> {
    /// Respond with this result object.
    Result(&'static str),
    /// Respond with a JSON-RPC error.
    Error(ErrorCode, &'static str),
    /// A tool result with one text block.
    ToolText(&'static str),
    /// `echo`: the text as the client sent it (a JSON string, quotes and escapes kept).
    Echo(Json<'a>),
    /// `add` of two integers whose sum fits an `i64`: exact.
    IntSum(i64),
    /// `add` otherwise, in `f64`.
    Sum(f64),
    /// Invalid tool arguments; the message names the field.
    BadArguments(&'static str),
}

/// Answers one request (`params` borrows the event, `c` the rest of the session).
pub fn answer(
    c: &mut Commands<'_, '_>,
    id: InboundId,
    method: Method,
    params: Option<Json<'_>>,
) -> Result<(), RespondError> {
    let job = take(method, params);
    write(c, id, job)
}

/// Decides the answer to a request.
// Not inlined: its frame would be laid out next to `write`'s instead of reusing it.
#[inline(never)]
fn take(method: Method, params: Option<Json<'_>>) -> Job<'_> {
    let p = params.unwrap_or(Json::EMPTY_OBJECT);
    match method {
        Method::ToolsList => list(p, TOOLS),
        Method::ToolsCall => call(p),
        Method::ResourcesList => list(p, RESOURCES),
        Method::ResourcesTemplatesList => list(p, TEMPLATES),
        Method::ResourcesRead => match p.get("uri").and_then(|u| u.as_str()) {
            Some(u) if u.eq_str("test://static-text") => Job::Result(STATIC_TEXT),
            Some(_) => Job::Error(ErrorCode::RESOURCE_NOT_FOUND, "Resource not found"),
            None => Job::Error(
                ErrorCode::INVALID_PARAMS,
                "Invalid params: \"uri\" must be a string",
            ),
        },
        Method::PromptsList => list(p, PROMPTS),
        Method::PromptsGet => match p.get("name").and_then(|n| n.as_str()) {
            _ if p
                .get("arguments")
                .is_some_and(|a| !a.is_object() && !a.is_null()) =>
            {
                Job::Error(
                    ErrorCode::INVALID_PARAMS,
                    "Invalid params: \"arguments\" must be an object",
                )
            }
            Some(n) if n.eq_str("test_simple_prompt") => Job::Result(SIMPLE_PROMPT),
            Some(_) => Job::Error(ErrorCode::INVALID_PARAMS, "Invalid params: unknown prompt"),
            None => Job::Error(
                ErrorCode::INVALID_PARAMS,
                "Invalid params: \"name\" must be a string",
            ),
        },
        // Everything else the capabilities allow (nothing today) or a future method.
        _ => Job::Error(ErrorCode::METHOD_NOT_FOUND, "Method not found"),
    }
}

fn call(p: Json<'_>) -> Job<'_> {
    let Some(name) = p.get("name").and_then(|n| n.as_str()) else {
        return Job::Error(
            ErrorCode::INVALID_PARAMS,
            "Invalid params: \"name\" must be a string",
        );
    };
    let args = match p.get("arguments") {
        None => Json::EMPTY_OBJECT,
        Some(a) if a.is_null() => Json::EMPTY_OBJECT,
        Some(a) if a.is_object() => a,
        // A malformed request rather than a bad argument value: a protocol error in
        // every revision.
        Some(_) => {
            return Job::Error(
                ErrorCode::INVALID_PARAMS,
                "Invalid params: \"arguments\" must be an object",
            );
        }
    };
    if name.eq_str("echo") {
        // The text exactly as the client escaped it, quotes included: it is sent back
        // without decoding (and without an unescape buffer's size limit).
        let Some(text) = args.get("text").filter(|t| t.as_str().is_some()) else {
            return Job::BadArguments(
                "Invalid arguments for tool echo: \"text\" is required and must be a string",
            );
        };
        Job::Echo(text)
    } else if name.eq_str("add") {
        let (Some(a), Some(b)) = (number(args.get("a")), number(args.get("b"))) else {
            return Job::BadArguments(if number(args.get("a")).is_none() {
                "Invalid arguments for tool add: \"a\" is required and must be a number"
            } else {
                "Invalid arguments for tool add: \"b\" is required and must be a number"
            });
        };
        let int = |k| args.get(k).and_then(|v: Json<'_>| v.as_i64());
        if let Some(sum) = int("a").zip(int("b")).and_then(|(a, b)| a.checked_add(b)) {
            Job::IntSum(sum) // exact, like the other demos
        } else if (a + b).is_finite() {
            Job::Sum(a + b)
        } else {
            Job::BadArguments(
                "Invalid arguments for tool add: \"a\" + \"b\" is not a finite number",
            )
        }
    } else if name.eq_str("test_simple_text") {
        Job::ToolText(SIMPLE_TEXT)
    } else {
        Job::Error(ErrorCode::INVALID_PARAMS, "Invalid params: unknown tool")
    }
}

/// Writes the answer. Every result goes through one `respond_with` call with one
/// closure type: each distinct closure would instantiate the core's generic transmit
/// path again (about 0.3 KiB of flash each).
fn write(s: &mut Commands<'_, '_>, id: InboundId, job: Job<'_>) -> Result<(), RespondError> {
    // The revision that governs this request: per request in the modern era.
    let modern = s.request_info(id).is_some_and(|i| i.modern);
    let at_least = |v: ProtocolVersion| modern || s.version().is_some_and(|have| have >= v);
    let structured = at_least(ProtocolVersion::V2025_06_18);
    let tool_errors = at_least(ProtocolVersion::V2025_11_25);
    let mut digits = [0u8; F64_TEXT_MAX];
    let mut sum_text = [0u8; 48];
    let mut int_text = [0u8; 24];
    let body = match job {
        Job::Error(code, message) => return s.respond_error(id, code, message, None),
        // Before 2025-11-25 invalid arguments are a protocol error; from then on a
        // tool execution error the model can read.
        Job::BadArguments(message) if !tool_errors => {
            return s.respond_error(id, ErrorCode::INVALID_PARAMS, message, None);
        }
        Job::BadArguments(message) => Body::Tool {
            text: Text::Plain(message),
            is_error: true,
            sum: None,
        },
        Job::Result(TOOLS) => Body::Tools { structured },
        Job::Result(text) => Body::Raw(json(text)),
        Job::ToolText(text) => Body::Tool {
            text: Text::Plain(text),
            is_error: false,
            sum: None,
        },
        Job::Echo(text) => Body::Tool {
            text: Text::Json(text),
            is_error: false,
            sum: None,
        },
        Job::IntSum(_) | Job::Sum(_) => {
            let number = match job {
                Job::IntSum(n) => {
                    let mut w = JsonWriter::new(&mut int_text);
                    w.i64(n);
                    let len = w.finish().unwrap_or(0);
                    Json::new(core::str::from_utf8(&int_text[..len]).unwrap_or("0"))
                        .unwrap_or(Json::NULL)
                }
                Job::Sum(x) => number_json(x, &mut digits),
                _ => Json::NULL,
            };
            // The text block carries the same JSON as structuredContent.
            let mut w = JsonWriter::new(&mut sum_text);
            w.begin_object();
            w.key("sum");
            w.raw(number);
            w.end_object();
            let n = w.finish().unwrap_or(0);
            let text = core::str::from_utf8(&sum_text[..n]).unwrap_or("{}");
            Body::Tool {
                text: Text::Plain(text),
                is_error: false,
                sum: structured.then_some(number),
            }
        }
    };
    s.respond_with(id, |w| body.write(w))
}

/// The text of a tool result's text block.
#[derive(Clone, Copy)]
enum Text<'a> {
    /// To be escaped.
    Plain(&'a str),
    /// Already a JSON string (quotes and escapes as the client sent them).
    Json(Json<'a>),
}

/// A result to write.
#[derive(Clone, Copy)]
enum Body<'a> {
    /// A pre-rendered result object.
    Raw(Json<'a>),
    /// The `tools/list` result; `add` has an `outputSchema` when `structured`.
    Tools { structured: bool },
    /// `{"content":[{"type":"text","text":…}]}`, optionally with `"isError":true` or
    /// `"structuredContent":{"sum":…}`.
    Tool {
        text: Text<'a>,
        is_error: bool,
        sum: Option<Json<'a>>,
    },
}

impl Body<'_> {
    fn write(&self, w: &mut JsonWriter<'_>) {
        let (text, is_error, sum) = match *self {
            Body::Raw(j) => return w.raw(j),
            Body::Tools { structured } => {
                w.begin_object();
                w.key("tools");
                w.begin_array();
                w.raw(json(ECHO_TOOL));
                w.begin_object();
                w.key("name");
                w.string("add");
                w.key("description");
                w.string(ADD_DESCRIPTION);
                w.key("inputSchema");
                w.raw(json(ADD_INPUT_SCHEMA));
                if structured {
                    w.key("outputSchema");
                    w.raw(json(ADD_OUTPUT_SCHEMA));
                }
                w.end_object();
                w.raw(json(SIMPLE_TEXT_TOOL));
                w.end_array();
                w.end_object();
                return;
            }
            Body::Tool {
                text,
                is_error,
                sum,
            } => (text, is_error, sum),
        };
        w.begin_object();
        w.key("content");
        w.begin_array();
        w.begin_object();
        w.key("type");
        w.string("text");
        w.key("text");
        match text {
            Text::Plain(t) => w.string(t),
            Text::Json(j) => w.raw(j),
        }
        w.end_object();
        w.end_array();
        if is_error {
            w.key("isError");
            w.bool(true);
        }
        if let Some(n) = sum {
            w.key("structuredContent");
            w.begin_object();
            w.key("sum");
            w.raw(n);
            w.end_object();
        }
        w.end_object();
    }
}

/// One of this module's constant JSON texts.
fn json(text: &'static str) -> Json<'static> {
    Json::new(text).unwrap_or(Json::EMPTY_OBJECT)
}

/// A list result; we never hand out cursors, so any cursor is invalid.
fn list(params: Json<'_>, result: &'static str) -> Job<'static> {
    if params.get("cursor").is_some_and(|c| !c.is_null()) {
        return Job::Error(ErrorCode::INVALID_PARAMS, "Invalid params: unknown cursor");
    }
    Job::Result(result)
}

/// A finite `f64` as a JSON number: integers without a fraction (`5`, not `5.0`, and large
/// ones as `1e16`), others in the shortest form that reads back as the same value.
/// `format_f64` prints what `ryu` did (`core/tests/float_text.rs`) in a tenth of the flash.
fn number_json(v: f64, buf: &mut [u8; F64_TEXT_MAX]) -> Json<'_> {
    Json::new(format_f64(v, buf)).unwrap_or(Json::NULL)
}

/// A JSON number as `f64`, without `core`'s `f64::from_str`.
///
/// `f64::from_str` (which `Json::as_f64` and serde-json-core's `f64` use) is exact for
/// every input, at about 15 KiB of flash, mostly a 10 KiB table of powers of five:
/// a quarter of this firmware's budget. The core's `Json::as_f64_compact` converts with
/// small big integers instead: correctly rounded up to 19 significant digits, in a few
/// hundred bytes. That is why `add` reads its numbers through `Json` and
/// not through a `#[derive(Deserialize)]` struct with `f64` fields as `echo` does.
fn number(v: Option<Json<'_>>) -> Option<f64> {
    v.and_then(|v| v.as_f64_compact())
}
