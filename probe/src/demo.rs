//! The demo contract: fixed calls of the demo servers' tools (`echo`, `add`, `sleep`)
//! and the results the contract (DEMO_SERVER.md) requires. Used instead of generated
//! arguments when the server is one of ours
//! ([`ServerInfo::is_demo`](crate::checks::handshake::ServerInfo::is_demo)).

use crate::checks::judge;
use crate::checks::tools::ToolResult;
use crate::client::{Probe, Reply};
use crate::describe::progress_note;
use crate::report::Outcome;
use crate::text::{clip, parse_json};

impl Probe {
    /// Calls one of the demo server's tools with fixed arguments and checks the result
    /// against the demo contract (DEMO_SERVER.md). Returns whether the call timed out.
    pub(crate) fn call_demo_tool(&mut self, case: &DemoCase) -> bool {
        let answer = self.call(case.tool, case.arguments);
        let timed_out = matches!(answer.reply, Reply::TimedOut);
        let progress = self.progress;
        let outcome = judge(answer.reply, self.timeout_ms, |r| {
            match ToolResult::parse(r) {
                Err(e) => Outcome::Failed(e),
                Ok(res) if res.is_error => Outcome::Failed(format!("isError: {}", res.summary)),
                Ok(res) => match (case.expect)(&res) {
                    Err(e) => Outcome::Failed(e),
                    Ok(()) if progress != case.progress => Outcome::Failed(format!(
                        "expected {} progress notifications, got {progress}",
                        case.progress
                    )),
                    Ok(()) => Outcome::Ok(format!(
                        "{} → {}{}",
                        case.arguments,
                        res.summary,
                        progress_note(progress, self.input_rounds)
                    )),
                },
            }
        });
        self.report.check(
            format!("tools/call {}", case.tool),
            outcome,
            Some(answer.ms),
        );
        timed_out
    }
}

/// A fixed call of a demo server tool, and what its result must be.
pub(crate) struct DemoCase {
    pub(crate) tool: &'static str,
    pub(crate) arguments: &'static str,
    /// Progress notifications expected.
    pub(crate) progress: usize,
    pub(crate) expect: fn(&ToolResult) -> Result<(), String>,
}

/// The demo contract's tools and how each must answer.
pub(crate) const DEMO_CASES: [DemoCase; 3] = [
    DemoCase {
        tool: "echo",
        arguments: r#"{"text":"hello"}"#,
        progress: 0,
        expect: expect_echo,
    },
    DemoCase {
        tool: "add",
        arguments: r#"{"a":1,"b":2}"#,
        progress: 0,
        expect: expect_sum,
    },
    DemoCase {
        tool: "sleep",
        arguments: r#"{"ms":10,"steps":2}"#,
        progress: 2,
        expect: expect_slept,
    },
];

/// The first content block is the text `want`.
fn expect_text(res: &ToolResult, want: &str) -> Result<(), String> {
    match &res.text {
        Some(t) if t == want => Ok(()),
        Some(t) => Err(format!("expected the text {want:?}, got {:?}", clip(t, 60))),
        None => Err("expected a text block".into()),
    }
}

/// `echo {"text":"hello"}` returns the text `hello`.
fn expect_echo(res: &ToolResult) -> Result<(), String> {
    expect_text(res, "hello")
}

/// `sleep` returns the text `slept`.
fn expect_slept(res: &ToolResult) -> Result<(), String> {
    expect_text(res, "slept")
}

/// `{"sum":3}` as structured content, or as the text block where structured content does
/// not exist (before 2025-06-18).
pub(crate) fn expect_sum(res: &ToolResult) -> Result<(), String> {
    let json = res
        .structured
        .as_deref()
        .or(res.text.as_deref())
        .unwrap_or("");
    let sum = parse_json(json)
        .ok()
        .and_then(|s| s.get("sum"))
        .and_then(|s| s.as_f64());
    match sum {
        Some(s) if (s - 3.0).abs() < 1e-9 => Ok(()),
        Some(s) => Err(format!("expected the sum 3, got {s}")),
        None => Err("expected {\"sum\":3} as structuredContent or text".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::json;

    #[test]
    fn demo_expectations() {
        let sum_as_text = json(r#"{"content":[{"type":"text","text":"{\"sum\":3}"}]}"#);
        let r = ToolResult::parse(sum_as_text).unwrap();
        assert!(expect_sum(&r).is_ok());
        assert!(expect_echo(&r).is_err());
        let wrong = json(r#"{"content":[],"structuredContent":{"sum":4}}"#);
        assert!(expect_sum(&ToolResult::parse(wrong).unwrap()).is_err());
    }
}
