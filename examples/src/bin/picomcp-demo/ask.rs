//! Questions for the client: `test_sampling` and the elicitation tools. In the legacy era
//! they are requests to the client, matched back to the waiting tool call through a
//! small table keyed by `OutboundId`; in 2026-07-28 the server may not send requests, so
//! the question is an `input_required` result and the answer comes with the retry.

use std::fmt;

use picomcp::error::ErrorCode;
use picomcp::json::{Json, JsonStr, JsonWriter};
use picomcp::protocol::{Feature, Method, ProtocolVersion};
use picomcp::server::ResultError;
use picomcp::session::{InboundId, OutboundId, RequestOptions, RespondError, SendError, Session};

use super::catalog::ToolKind;
use super::tools::{Reply, respond_text, respond_text_fmt};
use super::{Answer, Server};

/// A request we sent to the client, answered when the client answers.
#[derive(Clone, Copy)]
pub(crate) struct Ask {
    out: OutboundId,
    /// The tool call waiting for it.
    req: Reply,
    kind: AskKind,
}

#[derive(Clone, Copy)]
enum AskKind {
    Sampling,
    /// `test_elicitation`: "User response: …".
    Elicitation,
    /// The SEP-1034 and SEP-1330 tools: "Elicitation completed: …".
    ElicitationForm,
}

impl AskKind {
    /// The key of the question in `inputRequests` (2026-07-28).
    fn key(self) -> &'static str {
        match self {
            AskKind::Sampling => "sampling",
            AskKind::Elicitation | AskKind::ElicitationForm => "elicitation",
        }
    }

    /// The client capability the question needs, as a capabilities object.
    fn capability(self) -> &'static str {
        match self {
            AskKind::Sampling => r#"{"sampling":{}}"#,
            AskKind::Elicitation | AskKind::ElicitationForm => r#"{"elicitation":{}}"#,
        }
    }
}

const ELICIT_BASIC: &str = r#"{"type":"object","properties":{"username":{"type":"string","description":"User's response"},"email":{"type":"string","description":"User's email address"}},"required":["username","email"]}"#;
const ELICIT_DEFAULTS: &str = r#"{"type":"object","properties":{"name":{"type":"string","description":"User name","default":"John Doe"},"age":{"type":"integer","description":"User age","default":30},"score":{"type":"number","description":"User score","default":95.5},"status":{"type":"string","description":"User status","enum":["active","inactive","pending"],"default":"active"},"verified":{"type":"boolean","description":"Verification status","default":true}}}"#;
const ELICIT_ENUMS: &str = r#"{"type":"object","properties":{"untitledSingle":{"type":"string","description":"Untitled single-select","enum":["option1","option2","option3"]},"titledSingle":{"type":"string","description":"Titled single-select","oneOf":[{"const":"value1","title":"First Option"},{"const":"value2","title":"Second Option"},{"const":"value3","title":"Third Option"}]},"legacyEnum":{"type":"string","description":"Legacy titled enum","enum":["opt1","opt2","opt3"],"enumNames":["Option One","Option Two","Option Three"]},"untitledMulti":{"type":"array","description":"Untitled multi-select","items":{"type":"string","enum":["option1","option2","option3"]}},"titledMulti":{"type":"array","description":"Titled multi-select","items":{"anyOf":[{"const":"value1","title":"First Choice"},{"const":"value2","title":"Second Choice"},{"const":"value3","title":"Third Choice"}]}}}}"#;

/// The same question for 2025-06-18, whose `requestedSchema` must be flat (no arrays:
/// multi-select arrived in 2025-11-25).
const ELICIT_ENUMS_FLAT: &str = r#"{"type":"object","properties":{"untitledSingle":{"type":"string","description":"Untitled single-select","enum":["option1","option2","option3"]},"legacyEnum":{"type":"string","description":"Legacy titled enum","enum":["opt1","opt2","opt3"],"enumNames":["Option One","Option Two","Option Three"]}}}"#;

impl Server {
    /// `test_sampling`, `test_elicitation`, `test_elicitation_sep1034_defaults` and
    /// `test_elicitation_sep1330_enums`.
    pub(crate) fn question(
        &mut self,
        s: &mut Session<'_>,
        id: Reply,
        tool: ToolKind,
        params: Json<'_>,
        args: Json<'_>,
        now: u64,
    ) -> Result<(), ResultError> {
        match tool {
            ToolKind::Sampling => {
                // The layer checked the arguments against the tool's inputSchema.
                let prompt = args
                    .get("prompt")
                    .and_then(|p| p.as_str())
                    .unwrap_or(picomcp::json::JsonStr::EMPTY);
                self.ask(
                    s,
                    id,
                    params,
                    now,
                    AskKind::Sampling,
                    Method::SamplingCreateMessage,
                    |w| {
                        w.begin_object();
                        w.key("messages");
                        w.begin_array();
                        w.begin_object();
                        w.key("role");
                        w.string("user");
                        w.key("content");
                        w.begin_object();
                        w.key("type");
                        w.string("text");
                        w.key("text");
                        w.string_raw(prompt);
                        w.end_object();
                        w.end_object();
                        w.end_array();
                        w.key("maxTokens");
                        w.u64(100);
                        w.end_object();
                    },
                )
            }
            ToolKind::Elicitation => {
                let message = args
                    .get("message")
                    .and_then(|m| m.as_str())
                    .unwrap_or(picomcp::json::JsonStr::EMPTY);
                self.ask(
                    s,
                    id,
                    params,
                    now,
                    AskKind::Elicitation,
                    Method::ElicitationCreate,
                    |w| {
                        elicit_params(w, |w| w.string_raw(message), ELICIT_BASIC);
                    },
                )
            }
            ToolKind::ElicitationDefaults => self.ask(
                s,
                id,
                params,
                now,
                AskKind::ElicitationForm,
                Method::ElicitationCreate,
                |w| {
                    elicit_params(
                        w,
                        |w| w.string("Please review and update the form fields with defaults"),
                        ELICIT_DEFAULTS,
                    );
                },
            ),
            ToolKind::ElicitationEnums => {
                let schema = if !super::has(s, Feature::ElicitationEnums) {
                    ELICIT_ENUMS_FLAT
                } else {
                    ELICIT_ENUMS
                };
                self.ask(
                    s,
                    id,
                    params,
                    now,
                    AskKind::ElicitationForm,
                    Method::ElicitationCreate,
                    |w| {
                        elicit_params(
                            w,
                            |w| w.string("Please select options from the enum fields"),
                            schema,
                        );
                    },
                )
            }
            _ => respond_text(s, id, "Not a question for the client", true),
        }
    }

    /// The tool call `id` was cancelled: cancel the questions asked for it.
    pub(crate) fn forget_questions(&mut self, s: &mut Session<'_>, id: InboundId) {
        for a in self.asks.iter_mut() {
            if let Some(ask) = a.filter(|a| a.req.id == id) {
                let _ = s.cancel(ask.out, Some("the tool call was cancelled"));
                *a = None;
            }
        }
    }

    /// Asks the client for input on behalf of tool call `id` (whose params are `call`):
    /// a request to the client in the legacy era, an `input_required` result (MRTR) in
    /// the 2026-07-28 era.
    #[allow(clippy::too_many_arguments)]
    fn ask(
        &mut self,
        s: &mut Session<'_>,
        id: Reply,
        call: Json<'_>,
        now: u64,
        kind: AskKind,
        method: Method,
        params: impl Fn(&mut JsonWriter<'_>),
    ) -> Result<(), ResultError> {
        if s.request_info(id.id).is_some_and(|i| i.modern) {
            return input_required(s, id, call, kind, method, params);
        }
        let Some(slot) = self.asks.iter().position(Option::is_none) else {
            return respond_text(s, id, "Too many requests to the client in flight", true);
        };
        let text = render_string(params);
        let Ok(params) = Json::new(&text) else {
            return Ok(s.respond_error(
                id.id,
                ErrorCode::INTERNAL_ERROR,
                "Internal error: bad request parameters",
                None,
            )?);
        };
        // A person answers elicitations: give them longer than a model.
        let timeout = if matches!(kind, AskKind::Sampling) {
            60_000
        } else {
            600_000
        };
        let opts = RequestOptions {
            timeout_ms: Some(timeout),
            ..RequestOptions::default()
        };
        match s.send_request(now, method, Some(params), opts) {
            Ok(out) => {
                self.asks[slot] = Some(Ask { out, req: id, kind });
                Ok(())
            }
            Err(e) => respond_text_fmt(
                s,
                id,
                format_args!(
                    "Cannot ask the client ({method}): {}",
                    explain(e, s.version())
                ),
                true,
            ),
        }
    }

    /// The client answered one of our requests (or it failed or timed out).
    pub(crate) fn on_answer(&mut self, s: &mut Session<'_>, out: OutboundId, answer: Answer<'_>) {
        let Some(ask) = self
            .asks
            .iter_mut()
            .find(|a| a.is_some_and(|a| a.out == out))
            .and_then(Option::take)
        else {
            return;
        };
        let r = respond_answer(s, ask.req, ask.kind, answer);
        super::finish(s, ask.req.id, Method::ToolsCall, r);
    }
}

/// Answers tool call `req` with what the client answered to our `kind` of question.
fn respond_answer(
    s: &mut Session<'_>,
    req: Reply,
    kind: AskKind,
    answer: Answer<'_>,
) -> Result<(), ResultError> {
    match (kind, answer) {
        (AskKind::Sampling, Err(e)) => {
            respond_text_fmt(s, req, format_args!("Sampling failed: {e}"), true)
        }
        (_, Err(e)) => respond_text_fmt(s, req, format_args!("Elicitation failed: {e}"), true),
        (AskKind::Sampling, Ok(result)) => {
            let content = result.get("content").unwrap_or(Json::NULL);
            match first_text(content) {
                Some(text) => respond_text_fmt(s, req, format_args!("LLM response: {text}"), false),
                None => respond_text_fmt(s, req, format_args!("LLM response: {content}"), false),
            }
        }
        (kind, Ok(result)) => {
            let action = result.get("action").and_then(|a| a.as_str());
            let content = result.get("content").unwrap_or(Json::EMPTY_OBJECT);
            let action = Shown(action);
            if matches!(kind, AskKind::Elicitation) {
                respond_text_fmt(
                    s,
                    req,
                    format_args!("User response: action={action}, content={content}"),
                    false,
                )
            } else {
                respond_text_fmt(
                    s,
                    req,
                    format_args!("Elicitation completed: action={action}, content={content}"),
                    false,
                )
            }
        }
    }
}

/// 2026-07-28: the server cannot send requests, so the question goes back as an
/// `input_required` result and the answer comes in the retry's `inputResponses`. Nothing
/// is kept between the rounds.
fn input_required(
    s: &mut Session<'_>,
    reply: Reply,
    call: Json<'_>,
    kind: AskKind,
    method: Method,
    params: impl Fn(&mut JsonWriter<'_>),
) -> Result<(), ResultError> {
    let id = reply.id;
    let key = kind.key();
    match call.get("inputResponses").filter(|r| !r.is_null()) {
        Some(r) if !r.is_object() => {
            return Ok(s.respond_error(
                id,
                ErrorCode::INVALID_PARAMS,
                "Invalid params: `inputResponses` must be an object",
                None,
            )?);
        }
        Some(r) => {
            if let Some(answer) = r.get(key).filter(|a| a.is_object()) {
                return respond_answer(s, reply, kind, Ok(answer));
            }
        }
        None => {}
    }
    // First round, or the answer is missing: ask (again).
    let text = render_string(|w| {
        w.begin_object();
        w.key(key);
        w.begin_object();
        w.key("method");
        w.string(method.as_str());
        w.key("params");
        params(w);
        w.end_object();
        w.end_object();
    });
    let Ok(requests) = Json::new(&text) else {
        return Ok(s.respond_error(
            id,
            ErrorCode::INTERNAL_ERROR,
            "Internal error: bad input request",
            None,
        )?);
    };
    let r = match s.respond_input_required(id, Some(requests), None) {
        // The request did not declare the client capability the question needs.
        Err(RespondError::InputNotAllowed) => s.respond_missing_capability(
            id,
            Json::new(kind.capability()).unwrap_or(Json::EMPTY_OBJECT),
        ),
        r => r,
    };
    Ok(r?)
}

/// `elicitation/create` params: `message` written by `message`, then the schema.
fn elicit_params(w: &mut JsonWriter<'_>, message: impl Fn(&mut JsonWriter<'_>), schema: &str) {
    w.begin_object();
    w.key("message");
    message(w);
    w.key("requestedSchema");
    w.raw(Json::new(schema).unwrap_or(Json::EMPTY_OBJECT));
    w.end_object();
}

/// The first text of a sampling result's `content` (one block, or an array from 2025-11-25).
fn first_text(content: Json<'_>) -> Option<JsonStr<'_>> {
    if content.is_object() {
        text_of(content)
    } else {
        content.elements().find_map(text_of)
    }
}

/// The text of a content block, when it is a text block.
fn text_of(block: Json<'_>) -> Option<JsonStr<'_>> {
    let is_text = block
        .get("type")
        .and_then(|t| t.as_str())
        .is_some_and(|t| t.eq_str("text"));
    if is_text {
        block.get("text").and_then(|t| t.as_str())
    } else {
        None
    }
}

/// Why a request to the client could not be sent, in words.
fn explain(e: SendError, version: Option<ProtocolVersion>) -> impl fmt::Display {
    struct Why(SendError, Option<ProtocolVersion>);
    impl fmt::Display for Why {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            match (self.0, self.1) {
                (SendError::NotNegotiated(m), _) => {
                    write!(f, "the client did not declare the capability {m} needs")
                }
                (SendError::NotInVersion(m), Some(v)) => {
                    write!(f, "{m} does not exist in protocol revision {v}")
                }
                (e, _) => write!(f, "{e}"),
            }
        }
    }
    Why(e, version)
}

/// An optional string, shown as itself or `unknown`.
struct Shown<'a>(Option<JsonStr<'a>>);

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(s) => write!(f, "{s}"),
            None => f.write_str("unknown"),
        }
    }
}

/// Renders JSON into a new string (the questions' parameters, the fixtures' input
/// requests; not a hot path).
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
