//! `tools/call`: the demo tools, the conformance fixture tools, and the timer table that
//! keeps slow tools from blocking the loop. The tools that ask the client something are
//! in `ask.rs`.

use std::fmt;

use picomcp::error::ErrorCode;
use picomcp::json::{Json, JsonWriter};
use picomcp::protocol::{Feature, LogLevel};
use picomcp::session::{InboundId, RespondError, SendError, Session};

use super::catalog::{self, PNG_BASE64, Tool, WAV_BASE64};
use super::diag::stack_format;
use super::{Server, has};

/// Delayed work for one open request.
#[derive(Clone, Copy)]
pub(crate) struct Timer {
    req: InboundId,
    /// When to fire (driver milliseconds).
    due: u64,
    job: Job,
}

#[derive(Clone, Copy)]
enum Job {
    /// `sleep`: `done` of `steps` progress notifications sent (step k at
    /// `start + ms·k/(steps+1)`); answers at `start + ms`.
    Sleep {
        start: u64,
        ms: u64,
        steps: u32,
        done: u32,
    },
    /// `test_tool_with_logging`: the next of its three log messages, then the answer.
    Logging { stage: u8 },
    /// `test_tool_with_progress`: the next of its three progress values, then the answer.
    Progress { stage: u8 },
}

/// What firing a timer did.
enum Fired {
    /// More to do later.
    Again(Timer),
    /// Finished (answered, or the request is gone).
    Done,
    /// The transmit queue is full: try again after the driver drained it.
    Blocked,
}

const LOG_MESSAGES: [&str; 3] = [
    "\"Tool execution started\"",
    "\"Tool processing data\"",
    "\"Tool execution completed\"",
];
const PROGRESS_VALUES: [f64; 3] = [0.0, 50.0, 100.0];
/// The fixture's pause between log messages and between progress notifications.
const FIXTURE_STEP_MS: u64 = 50;

impl Server {
    pub(crate) fn tools_call(
        &mut self,
        s: &mut Session<'_>,
        id: InboundId,
        params: Json<'_>,
        now: u64,
    ) -> Result<(), RespondError> {
        let Some(name) = params.get("name").and_then(|n| n.as_str()) else {
            return s.respond_error(
                id,
                ErrorCode::INVALID_PARAMS,
                "Invalid params: `name` must be a string",
                None,
            );
        };
        let Some(tool) = catalog::find_tool(name) else {
            let msg = stack_format!(200, "Unknown tool: {name}");
            return s.respond_error(id, ErrorCode::INVALID_PARAMS, msg.as_str(), None);
        };
        let args = match params.get("arguments") {
            None => Json::EMPTY_OBJECT,
            Some(a) if a.is_null() => Json::EMPTY_OBJECT,
            Some(a) if a.is_object() => a,
            Some(_) => {
                return s.respond_error(
                    id,
                    ErrorCode::INVALID_PARAMS,
                    "Invalid params: `arguments` must be an object",
                    None,
                );
            }
        };
        match tool {
            Tool::Echo => echo(s, id, args),
            Tool::Add => add(s, id, args),
            Tool::Sleep => self.sleep(s, id, args, now),
            Tool::SimpleText => {
                respond_text(s, id, "This is a simple text response for testing.", false)
            }
            Tool::Image => s.respond_with(id, |w| {
                begin_content(w);
                image_block(w);
                end_content(w, false);
            }),
            Tool::Audio if !has(s, Feature::AudioContent) => respond_text(
                s,
                id,
                "Audio content needs protocol revision 2025-03-26 or later",
                true,
            ),
            Tool::Audio => s.respond_with(id, |w| {
                begin_content(w);
                w.begin_object();
                w.key("type");
                w.string("audio");
                w.key("data");
                w.string(WAV_BASE64);
                w.key("mimeType");
                w.string("audio/wav");
                w.end_object();
                end_content(w, false);
            }),
            Tool::EmbeddedResource => s.respond_with(id, |w| {
                begin_content(w);
                resource_block(
                    w,
                    "test://embedded-resource",
                    "text/plain",
                    "This is an embedded resource content.",
                );
                end_content(w, false);
            }),
            Tool::MultipleContent => s.respond_with(id, |w| {
                begin_content(w);
                text_block(w, "Multiple content types test:");
                image_block(w);
                resource_block(
                    w,
                    "test://mixed-content-resource",
                    "application/json",
                    r#"{"test":"data","value":123}"#,
                );
                end_content(w, false);
            }),
            Tool::WithLogging => self.start_timer(
                s,
                Timer {
                    req: id,
                    due: now,
                    job: Job::Logging { stage: 0 },
                },
            ),
            Tool::WithProgress => self.start_timer(
                s,
                Timer {
                    req: id,
                    due: now,
                    job: Job::Progress { stage: 0 },
                },
            ),
            Tool::ErrorHandling => respond_text(
                s,
                id,
                "This tool intentionally returns an error for testing",
                true,
            ),
            Tool::Sampling
            | Tool::Elicitation
            | Tool::ElicitationDefaults
            | Tool::ElicitationEnums => self.question(s, id, tool, params, args, now),
            Tool::JsonSchema2020 => {
                respond_text_fmt(s, id, format_args!("Received arguments: {args}"), false)
            }
        }
    }

    fn sleep(
        &mut self,
        s: &mut Session<'_>,
        id: InboundId,
        args: Json<'_>,
        now: u64,
    ) -> Result<(), RespondError> {
        let Some(ms) = args.get("ms").and_then(whole).filter(|ms| *ms <= 60_000) else {
            return invalid_arguments(
                s,
                id,
                "Invalid arguments: `ms` is required and must be an integer from 0 to 60000",
            );
        };
        let steps = match args.get("steps").filter(|v| !v.is_null()) {
            None => 1,
            Some(v) => match whole(v).filter(|n| *n <= 10_000) {
                Some(n) => n as u32,
                None => {
                    return invalid_arguments(
                        s,
                        id,
                        "Invalid arguments: `steps` must be an integer from 0 to 10000",
                    );
                }
            },
        };
        // Progress only goes to a request that asked for it with a token the core took
        // (a string or an integer; anything else is no token).
        let asked = s.request_info(id).is_some_and(|i| i.has_progress_token);
        let steps = if asked { steps } else { 0 };
        // Step k of n goes out at k/(n+1) of the wait, so the last one is not on top of
        // the answer (some SDKs drop progress that arrives together with the response).
        let due = if steps == 0 {
            now + ms
        } else {
            now + ms / (u64::from(steps) + 1)
        };
        self.start_timer(
            s,
            Timer {
                req: id,
                due,
                job: Job::Sleep {
                    start: now,
                    ms,
                    steps,
                    done: 0,
                },
            },
        )
    }

    fn start_timer(&mut self, s: &mut Session<'_>, timer: Timer) -> Result<(), RespondError> {
        match self.timers.iter_mut().find(|t| t.is_none()) {
            Some(slot) => {
                *slot = Some(timer);
                Ok(())
            }
            // Cannot happen while the table is as large as the inbound table.
            None => respond_text(s, timer.req, "Too many requests in progress", true),
        }
    }

    /// The earliest timer deadline.
    pub(crate) fn next_timer(&self) -> Option<u64> {
        self.timers.iter().flatten().map(|t| t.due).min()
    }

    /// Fires every timer that is due.
    pub(crate) fn run_timers(&mut self, s: &mut Session<'_>, now: u64) {
        for i in 0..self.timers.len() {
            while let Some(t) = self.timers[i] {
                if t.due > now {
                    break;
                }
                match fire(s, t, now) {
                    Fired::Again(next) => self.timers[i] = Some(next),
                    Fired::Done => self.timers[i] = None,
                    Fired::Blocked => return,
                }
            }
        }
    }

    /// The client cancelled a request: drop its work and send nothing more for it.
    pub(crate) fn on_cancelled(&mut self, s: &mut Session<'_>, id: InboundId) {
        for t in self.timers.iter_mut() {
            if t.is_some_and(|t| t.req == id) {
                *t = None;
            }
        }
        // The core already finished the request and freed its slot.
        self.forget_questions(s, id);
    }
}

/// Runs one step of a timer.
fn fire(s: &mut Session<'_>, t: Timer, now: u64) -> Fired {
    let done = |r: Result<(), RespondError>| match r {
        Err(RespondError::Full(_)) => Fired::Blocked,
        _ => Fired::Done,
    };
    match t.job {
        Job::Sleep {
            start,
            ms,
            steps,
            done: sent,
        } if sent < steps => {
            let k = sent + 1;
            match s.progress(t.req, f64::from(k), Some(f64::from(steps)), None) {
                Ok(()) => {}
                Err(SendError::Full(_)) => return Fired::Blocked,
                Err(_) => return Fired::Done, // cancelled or already answered
            }
            let due = if k < steps {
                start + ms * u64::from(k + 1) / (u64::from(steps) + 1)
            } else {
                start + ms
            };
            Fired::Again(Timer {
                due,
                job: Job::Sleep {
                    start,
                    ms,
                    steps,
                    done: k,
                },
                ..t
            })
        }
        Job::Sleep { .. } => done(respond_text(s, t.req, "slept", false)),
        Job::Logging { stage } => match LOG_MESSAGES.get(usize::from(stage)) {
            Some(message) => {
                if !s.is_open(t.req) {
                    return Fired::Done;
                }
                let data = Json::new(message).unwrap_or(Json::NULL);
                if let Err(SendError::Full(_)) =
                    s.log_for(t.req, LogLevel::Info, Some("picomcp-demo"), data)
                {
                    return Fired::Blocked;
                }
                let pause = if usize::from(stage) + 1 < LOG_MESSAGES.len() {
                    FIXTURE_STEP_MS
                } else {
                    0
                };
                Fired::Again(Timer {
                    due: now + pause,
                    job: Job::Logging { stage: stage + 1 },
                    ..t
                })
            }
            None => done(respond_text(
                s,
                t.req,
                "Tool with logging executed successfully",
                false,
            )),
        },
        Job::Progress { stage } => match PROGRESS_VALUES.get(usize::from(stage)) {
            Some(&value) => {
                if !s.is_open(t.req) {
                    return Fired::Done;
                }
                // Without a progress token the tool just takes its time.
                if let Err(SendError::Full(_)) = s.progress(t.req, value, Some(100.0), None) {
                    return Fired::Blocked;
                }
                let pause = if usize::from(stage) + 1 < PROGRESS_VALUES.len() {
                    FIXTURE_STEP_MS
                } else {
                    0
                };
                Fired::Again(Timer {
                    due: now + pause,
                    job: Job::Progress { stage: stage + 1 },
                    ..t
                })
            }
            None => done(respond_text(
                s,
                t.req,
                "Tool with progress executed successfully",
                false,
            )),
        },
    }
}

/// `echo`: the text goes back escaped exactly as it came, so it decodes to the same
/// string byte for byte. No allocation.
fn echo(s: &mut Session<'_>, id: InboundId, args: Json<'_>) -> Result<(), RespondError> {
    let Some(text) = args.get("text").and_then(|t| t.as_str()) else {
        return invalid_arguments(
            s,
            id,
            "Invalid arguments: `text` is required and must be a string",
        );
    };
    s.respond_with(id, |w| {
        begin_content(w);
        w.begin_object();
        w.key("type");
        w.string("text");
        w.key("text");
        w.string_raw(text);
        w.end_object();
        end_content(w, false);
    })
}

/// A number as written by [`add`]: exact for integers, `f64` otherwise.
#[derive(Clone, Copy)]
enum Sum {
    Int(i64),
    Float(f64),
}

impl Sum {
    fn write(self, w: &mut JsonWriter<'_>) {
        w.begin_object();
        w.key("sum");
        match self {
            Sum::Int(n) => w.i64(n),
            Sum::Float(x) => w.f64(x),
        }
        w.end_object();
    }
}

/// `add`: `structuredContent` `{"sum":…}` plus the same JSON as text. No allocation.
fn add(s: &mut Session<'_>, id: InboundId, args: Json<'_>) -> Result<(), RespondError> {
    let (Some(a), Some(b)) = (args.get("a"), args.get("b")) else {
        let missing = if args.get("a").is_none() { "a" } else { "b" };
        let msg = stack_format!(
            80,
            "Invalid arguments: `{missing}` is required and must be a number"
        );
        return invalid_arguments(s, id, msg.as_str());
    };
    let (Some(x), Some(y)) = (a.as_f64(), b.as_f64()) else {
        let bad = if a.as_f64().is_none() { "a" } else { "b" };
        let msg = stack_format!(80, "Invalid arguments: `{bad}` must be a number");
        return invalid_arguments(s, id, msg.as_str());
    };
    let sum = match a
        .as_i64()
        .zip(b.as_i64())
        .and_then(|(p, q)| p.checked_add(q))
    {
        Some(n) => Sum::Int(n),
        None if (x + y).is_finite() => Sum::Float(x + y),
        None => return respond_text(s, id, "The sum is too large to represent", true),
    };
    let mut buf = [0u8; 64];
    let mut w = JsonWriter::new(&mut buf);
    sum.write(&mut w);
    let n = w.finish().unwrap_or(0);
    let text = std::str::from_utf8(&buf[..n]).unwrap_or("{}");
    let structured = has(s, Feature::StructuredContent);
    s.respond_with(id, |w| {
        begin_content(w);
        text_block(w, text);
        w.end_array();
        if structured {
            w.key("structuredContent");
            sum.write(w);
        }
        w.end_object();
    })
}

/// A non-negative whole number, written as an integer or as a float without fraction.
fn whole(v: Json<'_>) -> Option<u64> {
    v.as_u64().or_else(|| {
        v.as_f64()
            .filter(|f| *f >= 0.0 && f.fract() == 0.0 && *f < 1e15)
            .map(|f| f as u64)
    })
}

/// Bad tool arguments: from 2025-11-25 on a tool execution error (`isError`, so the model
/// can correct itself), before that JSON-RPC -32602.
pub(crate) fn invalid_arguments(
    s: &mut Session<'_>,
    id: InboundId,
    message: &str,
) -> Result<(), RespondError> {
    if has(s, Feature::ArgumentErrorsAsToolResults) {
        respond_text(s, id, message, true)
    } else {
        s.respond_error(id, ErrorCode::INVALID_PARAMS, message, None)
    }
}

fn begin_content(w: &mut JsonWriter<'_>) {
    w.begin_object();
    w.key("content");
    w.begin_array();
}

fn end_content(w: &mut JsonWriter<'_>, is_error: bool) {
    w.end_array();
    if is_error {
        w.key("isError");
        w.bool(true);
    }
    w.end_object();
}

fn text_block(w: &mut JsonWriter<'_>, text: &str) {
    w.begin_object();
    w.key("type");
    w.string("text");
    w.key("text");
    w.string(text);
    w.end_object();
}

fn image_block(w: &mut JsonWriter<'_>) {
    w.begin_object();
    w.key("type");
    w.string("image");
    w.key("data");
    w.string(PNG_BASE64);
    w.key("mimeType");
    w.string("image/png");
    w.end_object();
}

fn resource_block(w: &mut JsonWriter<'_>, uri: &str, mime: &str, text: &str) {
    w.begin_object();
    w.key("type");
    w.string("resource");
    w.key("resource");
    w.begin_object();
    w.key("uri");
    w.string(uri);
    w.key("mimeType");
    w.string(mime);
    w.key("text");
    w.string(text);
    w.end_object();
    w.end_object();
}

/// A tool result with one text block.
pub(crate) fn respond_text(
    s: &mut Session<'_>,
    id: InboundId,
    text: &str,
    is_error: bool,
) -> Result<(), RespondError> {
    respond_text_fmt(s, id, format_args!("{text}"), is_error)
}

/// A tool result with one text block, formatted straight into the transmit queue.
pub(crate) fn respond_text_fmt(
    s: &mut Session<'_>,
    id: InboundId,
    text: fmt::Arguments<'_>,
    is_error: bool,
) -> Result<(), RespondError> {
    s.respond_with(id, |w| {
        begin_content(w);
        w.begin_object();
        w.key("type");
        w.string("text");
        w.key("text");
        w.string_fmt(text);
        w.end_object();
        end_content(w, is_error);
    })
}
