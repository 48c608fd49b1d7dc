//! The firmware subset of the demo contract (`DEMO_SERVER.md`): tools `echo`, `add` and
//! `test_simple_text`, the resource `test://static-text` and the prompt
//! `test_simple_prompt`, as tables of the core's server layer (`picomcp::server`).
//!
//! The core answers `initialize`, `server/discover`, `ping` and every lifecycle and
//! capability error; the layer answers the four lists, and checks every call (the tool,
//! resource or prompt exists; the arguments match the tool's `inputSchema`) and answers
//! what fails as the negotiated revision asks. This module only computes the answers to
//! calls that passed, and hands them back to the layer to shape for the revision.
//!
//! An event and the commands to answer it are disjoint borrows of the session
//! (`Session::poll_event_split`), so [`answer`] reads a call's arguments straight from
//! the event queue and the layer writes the result straight into the transmit queue:
//! nothing is copied, and `echo` takes any text that fits a line.

use picomcp::json::{F64_TEXT_MAX, Json, JsonStr, JsonWriter, format_f64};
use picomcp::server::{
    Call, Handled, PromptCall, PromptMessage, ResourceContents, ResultError, Server, ToolCall,
    ToolResult,
};
use picomcp::session::{Commands, Event, InboundId};

use crate::catalog::{ADD, CATALOG, ECHO, OPTIONS, SIMPLE_TEXT, STATIC_TEXT_URI, TEXT_PLAIN};

/// The layer over the tables of `catalog.rs`, which `build.rs` checked with
/// `Server::new` (a broken table fails the build, not the boot).
pub const SERVER: Server<'static> = Server::new_unchecked(CATALOG, OPTIONS);

/// Handles one event: the layer answers lists and failed calls, this module the calls
/// that passed. Returns what is neither (the host's: other requests, notifications).
///
/// # Errors
/// The layer refused this module's answer or the transmit queue had no room (nothing
/// was sent for the request: the caller answers -32603).
// Not inlined: the layer's frame (its messages, a decoded URI, a schema error with its
// JSON Pointer) is then on the stack only while an event is handled, not under every
// step of the driver.
#[inline(never)]
pub fn answer<'e>(
    server: &Server<'_>,
    event: Event<'e>,
    c: &mut Commands<'_, '_>,
) -> Result<Option<Event<'e>>, ResultError> {
    match server.handle(event, c) {
        Handled::Answered => Ok(None),
        Handled::Event(e) => Ok(Some(e)),
        Handled::Call(Call::Tool(call)) => tool(server, c, &call).map(|()| None),
        Handled::Call(Call::Read(call)) => read(server, c, call.id).map(|()| None),
        Handled::Call(Call::Prompt(call)) => prompt(server, c, &call).map(|()| None),
        // No completable argument or template: the layer answers every completion.
        Handled::Call(Call::Complete(_)) => Ok(None),
    }
}

/// Answers a `resources/read` of the only resource (the layer answered any other URI).
// Not inlined (nor `prompt`): see `tool`.
#[inline(never)]
fn read(server: &Server<'_>, c: &mut Commands<'_, '_>, id: InboundId) -> Result<(), ResultError> {
    let contents = ResourceContents::text(
        STATIC_TEXT_URI,
        TEXT_PLAIN,
        "This is the content of the static text resource.",
    );
    Ok(server.respond_read(c, id, &[contents])?)
}

/// Answers a `prompts/get` of the only prompt (its description comes from the table).
#[inline(never)]
fn prompt(
    server: &Server<'_>,
    c: &mut Commands<'_, '_>,
    call: &PromptCall<'_>,
) -> Result<(), ResultError> {
    let messages = [PromptMessage::user("This is a simple prompt for testing.")];
    server.respond_prompt(c, call.id, call.prompt, &messages)
}

/// Answers a `tools/call` whose arguments the layer checked against `inputSchema`.
// Not inlined: the sum's buffers live in this frame only while a tool is answered.
#[inline(never)]
fn tool(
    server: &Server<'_>,
    c: &mut Commands<'_, '_>,
    call: &ToolCall<'_>,
) -> Result<(), ResultError> {
    let arg = |k| call.arguments.get(k);
    let mut sum_text = [0u8; 48];
    let result = match call.tool {
        // The text exactly as the client escaped it: sent back without decoding (and
        // without an unescape buffer's size limit).
        ECHO => ToolResult::text(
            arg("text")
                .and_then(|t| t.as_str())
                .unwrap_or(JsonStr::EMPTY),
        ),
        ADD => match sum(arg("a"), arg("b"), &mut sum_text) {
            Some(json) => ToolResult::structured(json),
            None => ToolResult::error("The sum of \"a\" and \"b\" is not a finite number"),
        },
        SIMPLE_TEXT => ToolResult::text("This is a simple text response for testing."),
        _ => ToolResult::error("Unknown tool"),
    };
    server.respond_tool(c, call.id, call.tool, &result)
}

/// `{"sum": a+b}`: exact for integers whose sum fits an `i64` (like the other demos),
/// otherwise in `f64`; `None` when that is not finite.
// Not inlined: the float conversions' big integers are then off the stack before the
// layer validates the result against `outputSchema`.
#[inline(never)]
fn sum<'b>(a: Option<Json<'_>>, b: Option<Json<'_>>, out: &'b mut [u8; 48]) -> Option<Json<'b>> {
    let mut digits = [0u8; F64_TEXT_MAX];
    let mut w = JsonWriter::new(out);
    w.begin_object();
    w.key("sum");
    let int = |v: Option<Json<'_>>| v.and_then(|v| v.as_i64());
    if let Some(s) = int(a).zip(int(b)).and_then(|(a, b)| a.checked_add(b)) {
        w.i64(s);
    } else {
        let s = number(a)? + number(b)?;
        if !s.is_finite() {
            return None;
        }
        // Integers without a fraction (`5`, not `5.0`; large ones as `1e16`), others in
        // the shortest form that reads back as the same value. `format_f64` prints what
        // `ryu` did (`core/tests/float_text.rs`) in a tenth of the flash.
        w.raw(Json::new(format_f64(s, &mut digits)).ok()?);
    }
    w.end_object();
    let n = w.finish().ok()?;
    Json::new(core::str::from_utf8(&out[..n]).ok()?).ok()
}

/// A JSON number as `f64`, without `core`'s `f64::from_str`.
///
/// `f64::from_str` (which `Json::as_f64` and serde-json-core's `f64` use) is exact for
/// every input, at about 15 KiB of flash, mostly a 10 KiB table of powers of five:
/// a quarter of this firmware's budget. The core's `Json::as_f64_compact` converts with
/// small big integers instead: correctly rounded up to 19 significant digits, in a few
/// hundred bytes.
fn number(v: Option<Json<'_>>) -> Option<f64> {
    v.and_then(|v| v.as_f64_compact())
}
