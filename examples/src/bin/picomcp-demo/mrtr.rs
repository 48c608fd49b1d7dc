//! The 0.2.0 conformance suite's diagnostic fixtures for 2026-07-28: the tools that answer
//! with `input_required` results (MRTR, SEP-2322), `test_missing_capability` (-32021),
//! `test_streaming_elicitation`, `test_logging_tool` (per-request `logLevel`) and the
//! list-change triggers `test_trigger_tool_change` / `test_trigger_prompt_change`.
//!
//! Every round of an MRTR tool is stateless here: what was asked before travels in the
//! `requestState` the core sealed (`Config::state_key`) and checked before the retry
//! reached us (a tampered or foreign state is the core's -32602), so the plain state
//! below is one of our own constants.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

use picomcp::error::ErrorCode;
use picomcp::json::{Json, JsonStr};
use picomcp::protocol::{Caps, LogLevel};
use picomcp::server::{PromptCall, PromptMessage, ResultError};
use picomcp::session::{Change, InboundId, RespondError, Session};

use super::ask::render_string;
use super::catalog::ToolKind;
use super::diag::stack_format;
use super::layer;
use super::tools::{Reply, respond_text, respond_text_fmt};

/// One question of an `input_required` result: its key, method and params.
type Input = (&'static str, &'static str, &'static str);

const NAME: Input = (
    "user_name",
    "elicitation/create",
    r#"{"message":"What is your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}"#,
);
const CAPITAL: Input = (
    "capital_question",
    "sampling/createMessage",
    r#"{"messages":[{"role":"user","content":{"type":"text","text":"What is the capital of France?"}}],"maxTokens":100}"#,
);
const ROOTS: Input = ("client_roots", "roots/list", "{}");
const CONTEXT: Input = (
    "user_context",
    "elicitation/create",
    r#"{"message":"What context should the prompt use?","requestedSchema":{"type":"object","properties":{"context":{"type":"string"}},"required":["context"]}}"#,
);
const CONFIRM: Input = (
    "confirm",
    "elicitation/create",
    r#"{"message":"Please confirm","requestedSchema":{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}}"#,
);
const GREETING: Input = (
    "greeting",
    "sampling/createMessage",
    r#"{"messages":[{"role":"user","content":{"type":"text","text":"Generate a greeting"}}],"maxTokens":50}"#,
);
const STEP1: Input = (
    "step1",
    "elicitation/create",
    r#"{"message":"Step 1: What is your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}"#,
);
const STEP2: Input = (
    "step2",
    "elicitation/create",
    r#"{"message":"Step 2: What is your favorite color?","requestedSchema":{"type":"object","properties":{"color":{"type":"string"}},"required":["color"]}}"#,
);
const SAMPLE: Input = (
    "sampling",
    "sampling/createMessage",
    r#"{"messages":[{"role":"user","content":{"type":"text","text":"Say hello"}}],"maxTokens":50}"#,
);
const STREAMED: Input = (
    "confirm",
    "elicitation/create",
    r#"{"message":"Continue?","requestedSchema":{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}}"#,
);

/// How many times each list "changed" (`test_trigger_*`), process-wide: over HTTP every
/// 2026-07-28 request and every `subscriptions/listen` stream is a session of its own,
/// so the trigger's session tells the others through these counters ([`Lists`]).
static TOOLS_CHANGED: AtomicU64 = AtomicU64::new(0);
static PROMPTS_CHANGED: AtomicU64 = AtomicU64::new(0);

/// The list changes a session has announced (to compare with the process-wide counts).
#[derive(Clone, Copy)]
pub(crate) struct Lists {
    tools: u64,
    prompts: u64,
}

impl Lists {
    /// Everything that changed so far counts as announced (a new session owes nothing).
    pub(crate) fn now() -> Lists {
        Lists {
            tools: TOOLS_CHANGED.load(Ordering::Relaxed),
            prompts: PROMPTS_CHANGED.load(Ordering::Relaxed),
        }
    }

    /// Announces on `s` the changes another session triggered since the last call.
    pub(crate) fn catch_up(&mut self, s: &mut Session<'_>) {
        let seen = Lists::now();
        if seen.tools != self.tools {
            let _ = s.notify(Change::ToolsListChanged);
        }
        if seen.prompts != self.prompts {
            let _ = s.notify(Change::PromptsListChanged);
        }
        *self = seen;
    }
}

/// The fixture's tools of this module.
pub(crate) fn call(
    s: &mut Session<'_>,
    r: Reply,
    kind: ToolKind,
    params: Json<'_>,
    lists: &mut Lists,
) -> Result<(), ResultError> {
    match kind {
        ToolKind::LoggingTool => {
            // 2026-07-28: sent only when the request's `_meta` asked for a log level;
            // legacy: as `logging/setLevel` allows.
            let data = Json::new("\"test_logging_tool was called\"").unwrap_or(Json::NULL);
            let sent = s
                .log_for(r.id, LogLevel::Info, Some("picomcp-demo"), data)
                .unwrap_or(false);
            let text = if sent {
                "Logged one info message"
            } else {
                "No log message: the request did not ask for info"
            };
            return respond_text(s, r, text, false);
        }
        ToolKind::TriggerToolChange | ToolKind::TriggerPromptChange => {
            let (counter, change) = if kind == ToolKind::TriggerToolChange {
                (&TOOLS_CHANGED, Change::ToolsListChanged)
            } else {
                (&PROMPTS_CHANGED, Change::PromptsListChanged)
            };
            counter.fetch_add(1, Ordering::Relaxed);
            // Our own session announces it now; the others at their next tick.
            let n = s.notify(change).unwrap_or(0);
            *lists = Lists::now();
            return respond_text_fmt(
                s,
                r,
                format_args!("List change announced ({n} notification(s) on this session)"),
                false,
            );
        }
        _ => {}
    }
    let modern = s.request_info(r.id).is_some_and(|i| i.modern);
    if !modern {
        return respond_text(
            s,
            r,
            "This fixture answers with input_required results: it needs protocol revision 2026-07-28",
            true,
        );
    }
    let answers = match params.get("inputResponses").filter(|a| !a.is_null()) {
        Some(a) if !a.is_object() => {
            return Ok(s.respond_error(
                r.id,
                ErrorCode::INVALID_PARAMS,
                "Invalid params: `inputResponses` must be an object",
                None,
            )?);
        }
        a => a.unwrap_or(Json::EMPTY_OBJECT),
    };
    // An answer counts when it is an object (a result of the method asked).
    let answer = |key: &str| answers.get(key).filter(|a| a.is_object());
    let state = params.get("requestState").and_then(|s| s.as_str());
    let state_is = |want: &str| state.is_some_and(|s| s.eq_str(want));
    match kind {
        ToolKind::IrElicitation => match answer(NAME.0) {
            Some(a) => {
                let name = field(a, "name");
                respond_text_fmt(s, r, format_args!("Hello, {name}!"), false)
            }
            None => ask(s, r.id, &[NAME], None),
        },
        ToolKind::IrSampling => match answer(CAPITAL.0) {
            Some(a) => {
                let text = a
                    .get("content")
                    .and_then(|c| c.get("text"))
                    .and_then(|t| t.as_str())
                    .unwrap_or(JsonStr::EMPTY);
                respond_text_fmt(s, r, format_args!("LLM response: {text}"), false)
            }
            None => ask(s, r.id, &[CAPITAL], None),
        },
        ToolKind::IrListRoots => match answer(ROOTS.0) {
            Some(a) => {
                let roots = a.get("roots").unwrap_or(Json::NULL);
                respond_text_fmt(s, r, format_args!("Client roots: {roots}"), false)
            }
            None => ask(s, r.id, &[ROOTS], None),
        },
        ToolKind::IrRequestState | ToolKind::IrTamperedState => {
            const STATE: &str = "confirm-v1";
            match answer(CONFIRM.0) {
                Some(a) if state_is(STATE) => {
                    let ok = a.get("content").and_then(|c| c.get("ok"));
                    let ok = ok.unwrap_or(Json::NULL);
                    respond_text_fmt(s, r, format_args!("state-ok: confirmed ok={ok}"), false)
                }
                _ => ask(s, r.id, &[CONFIRM], Some(STATE)),
            }
        }
        ToolKind::IrMultipleInputs => {
            const STATE: &str = "multi-v1";
            let all = [NAME, GREETING, ROOTS];
            if state_is(STATE) && all.iter().all(|i| answer(i.0).is_some()) {
                respond_text(s, r, "state-ok: received all three inputs", false)
            } else {
                ask(s, r.id, &all, Some(STATE))
            }
        }
        ToolKind::IrMultiRound => {
            if state_is("round-2") {
                match answer(STEP2.0) {
                    Some(a) => {
                        let color = field(a, "color");
                        respond_text_fmt(s, r, format_args!("Favorite color: {color}"), false)
                    }
                    None => ask(s, r.id, &[STEP2], Some("round-2")),
                }
            } else if state_is("round-1") && answer(STEP1.0).is_some() {
                ask(s, r.id, &[STEP2], Some("round-2"))
            } else {
                ask(s, r.id, &[STEP1], Some("round-1"))
            }
        }
        ToolKind::IrCapabilities => {
            // Only what this request declared (`_meta` clientCapabilities).
            let caps = s
                .request_info(r.id)
                .map_or(Caps::NONE, |i| i.client_capabilities);
            if answers.members().next().is_some() {
                return respond_text(s, r, "Received the declared inputs", false);
            }
            let mut inputs: [Input; 2] = [NAME, CAPITAL];
            let mut n = 0;
            for (cap, input) in [(Caps::ELICITATION, NAME), (Caps::SAMPLING, CAPITAL)] {
                if caps.contains(cap) {
                    inputs[n] = input;
                    n += 1;
                }
            }
            if n == 0 {
                return respond_text(s, r, "The client declared nothing to ask with", false);
            }
            ask(s, r.id, &inputs[..n], None)
        }
        ToolKind::MissingCapability => match answer(SAMPLE.0) {
            Some(_) => respond_text(s, r, "The client declared sampling and answered", false),
            // Without `sampling` declared on the request the core refuses the question
            // and `ask` answers -32021 naming it.
            None => ask(s, r.id, &[SAMPLE], None),
        },
        ToolKind::StreamingElicitation => match answer(STREAMED.0) {
            Some(_) => respond_text(s, r, "Elicitation answered", false),
            None => ask(s, r.id, &[STREAMED], None),
        },
        _ => respond_text(s, r, "Not an MRTR fixture", true),
    }
}

/// The prompt `test_input_required_result_prompt` (the alpha's
/// input-required-result-non-tool-request): in 2026-07-28 it asks for a context with an
/// `input_required` result (-32021 when the request did not declare elicitation), and the
/// retry that carries the answer in `inputResponses` gets the prompt's messages; in the
/// legacy era (no MRTR) the messages say so.
pub(crate) fn prompt(s: &mut Session<'_>, call: PromptCall<'_>) -> Result<(), ResultError> {
    let modern = s.request_info(call.id).is_some_and(|i| i.modern);
    let text = if modern {
        let answer = call
            .params
            .get("inputResponses")
            .and_then(|a| a.get(CONTEXT.0))
            .filter(|a| a.is_object());
        match answer {
            Some(a) => stack_format!(512, "Use this context: {}", field(a, "context")),
            None => return ask(s, call.id, &[CONTEXT], None),
        }
    } else {
        stack_format!(
            512,
            "This prompt asks for its context with an input_required result: it needs protocol revision 2026-07-28"
        )
    };
    let messages = [PromptMessage::user(text.as_str())];
    layer().respond_prompt(&mut s.commands(), call.id, call.prompt, &messages)
}

/// Answers `input_required` with `inputs` (and `state`, sealed by the core); when the
/// request did not declare a capability they need, -32021 naming those capabilities.
fn ask(
    s: &mut Session<'_>,
    id: InboundId,
    inputs: &[Input],
    state: Option<&str>,
) -> Result<(), ResultError> {
    let requests = render_string(|w| {
        w.begin_object();
        for (key, method, params) in inputs {
            w.key(key);
            w.begin_object();
            w.key("method");
            w.string(method);
            w.key("params");
            w.raw(Json::new(params).unwrap_or(Json::EMPTY_OBJECT));
            w.end_object();
        }
        w.end_object();
    });
    let requests = Json::new(&requests).unwrap_or(Json::EMPTY_OBJECT);
    match s.respond_input_required(id, Some(requests), state) {
        Err(RespondError::InputNotAllowed) => {
            let needed = render_string(|w| {
                w.begin_object();
                for (_, method, _) in inputs {
                    w.key(match *method {
                        "sampling/createMessage" => "sampling",
                        "roots/list" => "roots",
                        _ => "elicitation",
                    });
                    w.begin_object();
                    w.end_object();
                }
                w.end_object();
            });
            let needed = Json::new(&needed).unwrap_or(Json::EMPTY_OBJECT);
            Ok(s.respond_missing_capability(id, needed)?)
        }
        other => Ok(other?),
    }
}

/// `content.<name>` of an elicitation answer, shown as itself or `unknown`.
fn field<'a>(answer: Json<'a>, name: &str) -> impl fmt::Display + 'a {
    struct Or<'a>(Option<JsonStr<'a>>);
    impl fmt::Display for Or<'_> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            match self.0 {
                Some(s) => write!(f, "{s}"),
                None => f.write_str("unknown"),
            }
        }
    }
    Or(answer
        .get("content")
        .and_then(|c| c.get(name))
        .and_then(|v| v.as_str()))
}
