//! One-line descriptions of what the server sent, for the report: content blocks,
//! notifications, violations and why the connection closed.

use picomcp::json::Json;
use picomcp::protocol::{Method, ProtocolVersion};
use picomcp::session::{CloseReason, Violation};

use crate::text::{clip, count, parse_json, string_member};

/// The `type` of a content block.
pub(crate) fn block_type(block: Json<'_>) -> Option<String> {
    string_member(block, "type")
}

/// `text "hi"`, `image image/png (4 bytes of base64)`: one content block.
pub(crate) fn describe_block(block: Json<'_>) -> String {
    let ty = block_type(block).unwrap_or_else(|| "untyped".into());
    let base64_len = |key: &str| {
        block
            .get(key)
            .and_then(|d| d.as_str())
            .map_or(0, |d| d.raw().len())
    };
    match ty.as_str() {
        "text" => format!(
            "text {:?}",
            clip(&string_member(block, "text").unwrap_or_default(), 50)
        ),
        "image" | "audio" => {
            let mime = string_member(block, "mimeType").unwrap_or_default();
            format!("{ty} {mime} ({} bytes of base64)", base64_len("data"))
        }
        "resource" => {
            let uri = block
                .get("resource")
                .and_then(|r| string_member(r, "uri"))
                .unwrap_or_default();
            format!("resource {uri}")
        }
        "resource_link" => format!("link {}", string_member(block, "uri").unwrap_or_default()),
        other => format!("{other} block"),
    }
}

/// A notification from the server as a traffic line: `← log [info] x: ...`.
pub(crate) fn describe_notification(method: Method, params: Option<&str>) -> String {
    let params = params.and_then(|p| parse_json(p).ok());
    match (method, params) {
        (Method::LogMessage, Some(p)) => {
            let level = string_member(p, "level").unwrap_or_default();
            let logger = string_member(p, "logger")
                .map(|l| format!(" {l}"))
                .unwrap_or_default();
            let data = p.get("data").map(|d| {
                d.as_str()
                    .map_or_else(|| d.as_raw().to_owned(), |s| s.to_string())
            });
            format!(
                "← log [{level}]{logger}: {}",
                clip(&data.unwrap_or_default(), 80)
            )
        }
        (Method::ResourcesUpdated, Some(p)) => {
            format!("← {method} {}", string_member(p, "uri").unwrap_or_default())
        }
        _ => format!("← {method}"),
    }
}

/// What the server did wrong, worded to follow "the server": the core's text of the
/// violation (one wording for every language) after the verb [`lead_in`] gives it. The
/// probe words a violation itself only where it knows more than the core (`ready`, the
/// handshake finished, and `version` tell apart why a method was refused), where the
/// core's text does not follow a verb, or where the test runners match its words (a
/// malformed line: `not a valid message`).
pub(crate) fn describe_violation(
    v: Violation,
    ready: bool,
    version: Option<ProtocolVersion>,
) -> String {
    match v {
        Violation::Malformed { kind, replied } => {
            let replied = replied
                .map(|c| format!("; the probe answered {c}"))
                .unwrap_or_default();
            format!(
                "sent a line that is not a valid message ({}){replied}",
                kind.message()
            )
        }
        Violation::LineTooLong { limit } => format!("sent a line longer than {limit} bytes"),
        Violation::NotNegotiated(m) if !ready => {
            format!(
                "sent {m} before the handshake finished (only logging and ping may come that early)"
            )
        }
        Violation::NotNegotiated(m) if version.is_some_and(|v| !m.exists_in(v)) => {
            let v = version.map_or("", |v| v.as_str());
            format!("sent {m}, which does not exist in the negotiated revision {v}")
        }
        Violation::NotNegotiated(m) => {
            format!("sent {m}, which needs a capability that was not negotiated")
        }
        Violation::DuplicateRequestId => "reused the id of a request still in flight".into(),
        Violation::ProgressNotIncreasing => "sent a progress value that did not increase".into(),
        other => match lead_in(&other) {
            Some(verb) => format!("{verb}{other}"),
            // Nothing reads right before the core's text: its name, then the text.
            None => format!("broke a rule ({}): {other}", other.name()),
        },
    }
}

/// The words before the core's text of a violation so that "the server …" reads as a
/// sentence (`sent a ` + `second response to …`), or `None`.
fn lead_in(v: &Violation) -> Option<&'static str> {
    Some(match v {
        Violation::UnknownMethod
        | Violation::DuplicateInitialize
        | Violation::UnknownResponseId
        | Violation::DuplicateResponse
        | Violation::BatchNotAllowed
        | Violation::UnsupportedVersion
        | Violation::UnexpectedMessage => "sent a ",
        Violation::UncorrelatedError { .. } | Violation::InvalidResult => "sent an ",
        Violation::NotInitialized(_)
        | Violation::InvalidParams(_)
        | Violation::UnknownProgressToken
        | Violation::BadEnvelope(_)
        | Violation::TooManyRequests => "sent ",
        _ => return None,
    })
}

/// Why the connection closed, from the probe's side (`CloseReason::Local` is never
/// shown: the probe closed it).
pub(crate) fn describe_close(reason: CloseReason, timeout_ms: u64) -> String {
    match reason {
        CloseReason::PeerClosed => "the server closed its output".into(),
        CloseReason::UnsupportedVersion => {
            "the server chose a protocol revision the probe does not support".into()
        }
        CloseReason::InitializeRejected { code } => {
            format!("the server answered initialize with error {code}")
        }
        CloseReason::InitializeTimedOut => {
            format!("no answer to initialize within {timeout_ms} ms")
        }
        CloseReason::PeerClosedDuringProbe => {
            "the server exited on the server/discover probe (and again after a restart)".into()
        }
        CloseReason::NoCommonVersion => {
            "the server supports no protocol revision the probe speaks".into()
        }
        other => other.to_string(),
    }
}

/// ` (2 progress notifications, 1 input round)`, or nothing.
pub(crate) fn progress_note(progress: usize, input_rounds: usize) -> String {
    let mut parts = Vec::new();
    if progress > 0 {
        parts.push(count(progress, "progress notification"));
    }
    if input_rounds > 0 {
        parts.push(count(input_rounds, "input round"));
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!(" ({})", parts.join(", "))
    }
}

/// `{"tools":{"listChanged":true},"logging":{}}` → `tools(listChanged) logging`.
pub(crate) fn summarize_capabilities(caps: &str) -> String {
    let Ok(caps) = parse_json(caps) else {
        return caps.to_string();
    };
    let parts: Vec<String> = caps
        .members()
        .map(|(key, value)| {
            let subs: Vec<String> = value
                .members()
                .filter(|(_, v)| v.as_bool() != Some(false))
                .map(|(k, _)| k.to_string())
                .collect();
            if subs.is_empty() {
                key.to_string()
            } else {
                format!("{key}({})", subs.join(", "))
            }
        })
        .collect();
    if parts.is_empty() {
        "(none)".into()
    } else {
        parts.join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn violations_read_as_the_core_words_them() {
        let v = Violation::DuplicateResponse;
        assert_eq!(describe_violation(v, true, None), format!("sent a {v}"));
        let full = Violation::TooManySubscriptions;
        assert_eq!(
            describe_violation(full, true, None),
            format!("broke a rule (too_many_subscriptions): {full}")
        );
        let early = describe_violation(Violation::NotNegotiated(Method::ToolsList), false, None);
        assert!(early.contains("before the handshake finished"), "{early}");
    }

    #[test]
    fn progress_notes() {
        assert_eq!(progress_note(0, 0), "");
        assert_eq!(
            progress_note(2, 1),
            " (2 progress notifications, 1 input round)"
        );
    }
}
