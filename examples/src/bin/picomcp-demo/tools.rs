//! `tools/call`: the demo tools, the conformance fixture tools, and the timer table that
//! keeps slow tools from blocking the loop. The tools that ask the client something are
//! in `ask.rs`.

use std::fmt;

use picomcp::json::{Json, JsonStr, JsonWriter};
use picomcp::protocol::{Feature, LogLevel};
use picomcp::server::{Content, ResourceContents, ResultError, ToolCall, ToolResult};
use picomcp::session::{InboundId, RespondError, SendError, Session};

use super::catalog::{PNG_BASE64, TOOL_KINDS, ToolKind, WAV_BASE64};
use super::{Server, has, layer};

/// Delayed work for one open request.
#[derive(Clone, Copy)]
pub(crate) struct Timer {
    req: Reply,
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
    /// A checked `tools/call` (the layer found the tool and validated its arguments).
    pub(crate) fn tools_call(
        &mut self,
        s: &mut Session<'_>,
        call: ToolCall<'_>,
        now: u64,
    ) -> Result<(), ResultError> {
        let r = Reply {
            id: call.id,
            tool: call.tool,
        };
        let args = call.arguments;
        let blocks = |s: &mut Session<'_>, blocks: &[Content<'_>]| {
            layer().respond_tool(
                &mut s.commands(),
                r.id,
                r.tool,
                &ToolResult::content(blocks),
            )
        };
        match TOOL_KINDS[call.tool] {
            ToolKind::Echo => echo(s, r, args),
            ToolKind::Add => add(s, r, args),
            ToolKind::Sleep => self.sleep(s, r, args, now),
            ToolKind::SimpleText => {
                respond_text(s, r, "This is a simple text response for testing.", false)
            }
            ToolKind::Image => blocks(s, &[IMAGE]),
            ToolKind::Audio if !has(s, Feature::AudioContent) => respond_text(
                s,
                r,
                "Audio content needs protocol revision 2025-03-26 or later",
                true,
            ),
            ToolKind::Audio => blocks(
                s,
                &[Content::Audio {
                    data: WAV_BASE64,
                    mime_type: "audio/wav",
                }],
            ),
            ToolKind::EmbeddedResource => blocks(
                s,
                &[embedded(
                    "test://embedded-resource",
                    "text/plain",
                    "This is an embedded resource content.",
                )],
            ),
            ToolKind::MultipleContent => blocks(
                s,
                &[
                    Content::text("Multiple content types test:"),
                    IMAGE,
                    embedded(
                        "test://mixed-content-resource",
                        "application/json",
                        r#"{"test":"data","value":123}"#,
                    ),
                ],
            ),
            ToolKind::WithLogging => self.start_timer(
                s,
                Timer {
                    req: r,
                    due: now,
                    job: Job::Logging { stage: 0 },
                },
            ),
            ToolKind::WithProgress => self.start_timer(
                s,
                Timer {
                    req: r,
                    due: now,
                    job: Job::Progress { stage: 0 },
                },
            ),
            ToolKind::ErrorHandling => respond_text(
                s,
                r,
                "This tool intentionally returns an error for testing",
                true,
            ),
            kind @ (ToolKind::Sampling
            | ToolKind::Elicitation
            | ToolKind::ElicitationDefaults
            | ToolKind::ElicitationEnums) => self.question(s, r, kind, call.params, args, now),
            ToolKind::JsonSchema2020 => {
                respond_text_fmt(s, r, format_args!("Received arguments: {args}"), false)
            }
            kind => super::mrtr::call(s, r, kind, call.params, &mut self.lists),
        }
    }

    fn sleep(
        &mut self,
        s: &mut Session<'_>,
        r: Reply,
        args: Json<'_>,
        now: u64,
    ) -> Result<(), ResultError> {
        // The inputSchema bounds both (integers, 0..=60000 and 0..=10000).
        let ms = args.get("ms").and_then(whole).unwrap_or(0);
        let steps = args.get("steps").and_then(whole).map_or(1, |n| n as u32);
        // Progress only goes to a request that asked for it with a token the core took
        // (a string or an integer; anything else is no token).
        let asked = s.request_info(r.id).is_some_and(|i| i.has_progress_token);
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
                req: r,
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

    fn start_timer(&mut self, s: &mut Session<'_>, timer: Timer) -> Result<(), ResultError> {
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
            if t.is_some_and(|t| t.req.id == id) {
                *t = None;
            }
        }
        // The core already finished the request and freed its slot.
        self.forget_questions(s, id);
    }
}

/// Runs one step of a timer.
fn fire(s: &mut Session<'_>, t: Timer, now: u64) -> Fired {
    let done = |r: Result<(), ResultError>| match r {
        Err(ResultError::Respond(RespondError::Full(_))) => Fired::Blocked,
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
            match s.progress(t.req.id, f64::from(k), Some(f64::from(steps)), None) {
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
                if !s.is_open(t.req.id) {
                    return Fired::Done;
                }
                let data = Json::new(message).unwrap_or(Json::NULL);
                if let Err(SendError::Full(_)) =
                    s.log_for(t.req.id, LogLevel::Info, Some("picomcp-demo"), data)
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
                if !s.is_open(t.req.id) {
                    return Fired::Done;
                }
                // Without a progress token the tool just takes its time.
                if let Err(SendError::Full(_)) = s.progress(t.req.id, value, Some(100.0), None) {
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
fn echo(s: &mut Session<'_>, r: Reply, args: Json<'_>) -> Result<(), ResultError> {
    let text = args
        .get("text")
        .and_then(|t| t.as_str())
        .unwrap_or(JsonStr::EMPTY);
    layer().respond_tool(&mut s.commands(), r.id, r.tool, &ToolResult::text(text))
}

/// `add`: `structuredContent` `{"sum":…}` (checked by the layer against the tool's
/// `outputSchema`) plus the same JSON as text. No allocation.
fn add(s: &mut Session<'_>, r: Reply, args: Json<'_>) -> Result<(), ResultError> {
    let (a, b) = (
        args.get("a").unwrap_or(Json::NULL),
        args.get("b").unwrap_or(Json::NULL),
    );
    let (x, y) = (a.as_f64().unwrap_or(0.0), b.as_f64().unwrap_or(0.0));
    let mut buf = [0u8; 64];
    let mut w = JsonWriter::new(&mut buf);
    w.begin_object();
    w.key("sum");
    match a
        .as_i64()
        .zip(b.as_i64())
        .and_then(|(p, q)| p.checked_add(q))
    {
        Some(n) => w.i64(n),
        None if (x + y).is_finite() => w.f64(x + y),
        None => return respond_text(s, r, "The sum is too large to represent", true),
    }
    w.end_object();
    let n = w.finish().unwrap_or(0);
    let sum = Json::new(std::str::from_utf8(&buf[..n]).unwrap_or("{}")).unwrap_or(Json::NULL);
    layer().respond_tool(
        &mut s.commands(),
        r.id,
        r.tool,
        &ToolResult::structured(sum),
    )
}

/// A non-negative whole number, written as an integer or as a float without fraction.
fn whole(v: Json<'_>) -> Option<u64> {
    v.as_u64().or_else(|| {
        v.as_f64()
            .filter(|f| *f >= 0.0 && f.fract() == 0.0 && *f < 1e15)
            .map(|f| f as u64)
    })
}

const IMAGE: Content<'static> = Content::Image {
    data: PNG_BASE64,
    mime_type: "image/png",
};

fn embedded(uri: &'static str, mime: &'static str, text: &'static str) -> Content<'static> {
    Content::Resource(ResourceContents::text(uri, Some(mime), text))
}

/// The tool call a later answer belongs to: the request and the tool's index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Reply {
    pub(crate) id: InboundId,
    pub(crate) tool: usize,
}

/// A tool result with one text block.
pub(crate) fn respond_text(
    s: &mut Session<'_>,
    r: Reply,
    text: &str,
    is_error: bool,
) -> Result<(), ResultError> {
    let result = if is_error {
        ToolResult::error(text)
    } else {
        ToolResult::text(text)
    };
    layer().respond_tool(&mut s.commands(), r.id, r.tool, &result)
}

/// A tool result with one formatted text block (the fixture's slow paths only).
pub(crate) fn respond_text_fmt(
    s: &mut Session<'_>,
    r: Reply,
    text: fmt::Arguments<'_>,
    is_error: bool,
) -> Result<(), ResultError> {
    respond_text(s, r, &text.to_string(), is_error)
}
