//! The checks, one module each, in the order [`Probe::run`](crate::client::Probe::run)
//! runs them, and what they share: turning a [`Reply`] into an [`Outcome`], and the rules
//! every result of a kind must follow.

pub(crate) mod handshake;
mod list;
mod logging;
mod ping;
mod poison;
mod prompts;
mod resources;
mod subscriptions;
pub(crate) mod tools;

use picomcp::ErrorCode;
use picomcp::json::{Json, JsonKind};
use picomcp::session::{Phase, SendError};

use crate::client::Reply;
use crate::report::Outcome;
use crate::text::{clip, parse_json};

/// At most this many resources are read and prompts fetched.
pub(crate) const MAX_ITEMS: usize = 10;
/// At most this many pages of a paginated list are fetched.
pub(crate) const MAX_PAGES: usize = 10;

/// -32601 as the events carry it: the one error a generated call is held to.
pub(crate) const METHOD_NOT_FOUND: i64 = ErrorCode::METHOD_NOT_FOUND.0 as i64;

/// The `name` every listed tool, prompt and resource must have.
pub(crate) const NAME: (&str, JsonKind) = ("name", JsonKind::String);

/// `a string`, `an object`: for the report.
pub(crate) fn kind_name(kind: JsonKind) -> &'static str {
    match kind {
        JsonKind::Null => "null",
        JsonKind::Bool => "a boolean",
        JsonKind::Number => "a number",
        JsonKind::String => "a string",
        JsonKind::Array => "an array",
        JsonKind::Object => "an object",
    }
}

/// An error answer to a call with generated arguments: the arguments may well be what
/// the server objects to, so it is not held against it (except -32601 for a method the
/// server declared).
pub(crate) fn refused(arguments: &str, code: i64, message: &str) -> Outcome {
    Outcome::Skipped(format!(
        "the server refused the generated arguments {arguments}: error {code}: {}",
        clip(message, 80)
    ))
}

/// 2026-07-28: what is wrong with the caching members every cacheable result (discover,
/// the lists, `resources/read`) must carry, if anything.
pub(crate) fn cache_problem(r: Json<'_>) -> Option<String> {
    let ttl_ok = r.get("ttlMs").and_then(|t| t.as_u64()).is_some();
    let scope = r.get("cacheScope").and_then(|s| s.as_str());
    let scope_ok = scope.is_some_and(|s| s.eq_str("public") || s.eq_str("private"));
    match (ttl_ok, scope_ok) {
        (true, true) => None,
        (false, _) => {
            Some("the result lacks ttlMs (an integer >= 0), required on cacheable results".into())
        }
        (_, false) => Some("the result lacks cacheScope (\"public\" or \"private\")".into()),
    }
}

/// Turns a reply into an outcome; `check` judges a successful result.
pub(crate) fn judge(
    reply: Reply,
    timeout_ms: u64,
    check: impl FnOnce(Json<'_>) -> Outcome,
) -> Outcome {
    match reply {
        Reply::Result(text) => match parse_json(&text) {
            Ok(result) => check(result),
            Err(e) => Outcome::Failed(format!("unreadable result: {e}")),
        },
        Reply::Error { code, message } => {
            Outcome::Failed(format!("error {code}: {}", clip(&message, 100)))
        }
        Reply::TimedOut => Outcome::Failed(format!("no answer within {timeout_ms} ms (cancelled)")),
        Reply::Invalid(result) => {
            Outcome::Failed(format!("invalid result: {}", clip(&result, 100)))
        }
        Reply::Abandoned(why) => Outcome::Failed(why),
        Reply::Refused(SendError::NotInVersion(_)) => {
            Outcome::Skipped("skipped: not part of the negotiated revision".into())
        }
        Reply::Refused(SendError::NotNegotiated(_)) => {
            Outcome::Skipped("skipped: not declared".into())
        }
        Reply::Refused(SendError::WrongPhase(Phase::Closed)) => {
            Outcome::Skipped("skipped: the connection is closed".into())
        }
        Reply::Refused(e) => Outcome::Skipped(format!("skipped: {e}")),
        Reply::Ended => Outcome::Failed("the connection closed before the answer".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::json;

    #[test]
    fn cache_members() {
        assert_eq!(
            cache_problem(json(r#"{"ttlMs":0,"cacheScope":"public"}"#)),
            None
        );
        assert!(cache_problem(json(r#"{"ttlMs":-1,"cacheScope":"public"}"#)).is_some());
        assert!(cache_problem(json(r#"{"ttlMs":10,"cacheScope":"shared"}"#)).is_some());
    }
}
