//! Every example of the MCP 2026-07-28 schema (tests/corpus/spec-2026-07-28/<Type>/*.json):
//! valid JSON as written and compacted to one line, framed as one line, and parsed as the
//! JSON-RPC message kind its folder (the schema type) names.
//!
//! Folder mapping (checked below against the files themselves):
//! - `*Request`, `*Notification`, `*ResultResponse` and the three `*Error` folders that hold
//!   a whole error response are JSON-RPC envelopes: parsed as that kind as they are.
//! - `CreateMessageRequest`, `ElicitRequest`, `ListRootsRequest` are *embedded* input
//!   requests (carried inside `InputRequiredResult`), not wire messages: no `jsonrpc`
//!   member, so as lines they are invalid requests; with the envelope added they parse.
//! - `*Params` are bare params objects and `*Result` bare results: wrapped into a request /
//!   response, they must come back byte for byte.
//! - `InternalError`, `InvalidParamsError`, `MethodNotFoundError`, `ParseError` are bare
//!   error objects: wrapped into an error response.
//! - Everything else (content blocks, schemas, capabilities, ...) is only checked as JSON.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use picomcp::Limits;
use picomcp::framing::{Frame, LineDecoder};
use picomcp::json::Json;
use picomcp::jsonrpc::{self, Message, ParseErrorKind};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus/spec-2026-07-28")
}

struct Example {
    folder: String,
    file: String,
    text: String,
    /// The text on one line: whitespace outside strings removed, nothing else changed.
    line: String,
}

/// Removes whitespace between tokens (JSON strings cannot contain raw whitespace controls,
/// and spaces inside them are kept).
fn compact(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let (mut in_str, mut esc) = (false, false);
    for c in text.chars() {
        if in_str {
            out.push(c);
            if esc {
                esc = false;
            } else if c == '\\' {
                esc = true;
            } else if c == '"' {
                in_str = false;
            }
        } else if !matches!(c, ' ' | '\t' | '\n' | '\r') {
            out.push(c);
            in_str = c == '"';
        }
    }
    out
}

fn examples() -> Vec<Example> {
    let mut out = Vec::new();
    let mut dirs: Vec<_> = std::fs::read_dir(corpus())
        .expect("corpus folder")
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    for dir in dirs {
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        for f in files {
            assert_eq!(
                f.extension().and_then(|e| e.to_str()),
                Some("json"),
                "{f:?}"
            );
            let text = std::fs::read_to_string(&f).unwrap();
            let line = compact(&text);
            out.push(Example {
                folder: dir.file_name().unwrap().to_str().unwrap().into(),
                file: f.file_name().unwrap().to_str().unwrap().into(),
                text,
                line,
            });
        }
    }
    out
}

fn value(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

#[derive(Debug, Clone, Copy)]
enum Kind {
    Request(&'static str),
    Notification(&'static str),
    Response,
    Error(i64),
}

/// The folders that hold whole JSON-RPC messages, and what each must parse as.
const ENVELOPES: &[(&str, Kind)] = &[
    ("CallToolRequest", Kind::Request("tools/call")),
    ("CompleteRequest", Kind::Request("completion/complete")),
    ("DiscoverRequest", Kind::Request("server/discover")),
    ("GetPromptRequest", Kind::Request("prompts/get")),
    ("ListPromptsRequest", Kind::Request("prompts/list")),
    (
        "ListResourceTemplatesRequest",
        Kind::Request("resources/templates/list"),
    ),
    ("ListResourcesRequest", Kind::Request("resources/list")),
    ("ListToolsRequest", Kind::Request("tools/list")),
    ("ReadResourceRequest", Kind::Request("resources/read")),
    (
        "SubscriptionsListenRequest",
        Kind::Request("subscriptions/listen"),
    ),
    (
        "CancelledNotification",
        Kind::Notification("notifications/cancelled"),
    ),
    (
        "LoggingMessageNotification",
        Kind::Notification("notifications/message"),
    ),
    (
        "ProgressNotification",
        Kind::Notification("notifications/progress"),
    ),
    (
        "PromptListChangedNotification",
        Kind::Notification("notifications/prompts/list_changed"),
    ),
    (
        "ResourceListChangedNotification",
        Kind::Notification("notifications/resources/list_changed"),
    ),
    (
        "ResourceUpdatedNotification",
        Kind::Notification("notifications/resources/updated"),
    ),
    (
        "SubscriptionsAcknowledgedNotification",
        Kind::Notification("notifications/subscriptions/acknowledged"),
    ),
    (
        "ToolListChangedNotification",
        Kind::Notification("notifications/tools/list_changed"),
    ),
    ("CallToolResultResponse", Kind::Response),
    ("CompleteResultResponse", Kind::Response),
    ("DiscoverResultResponse", Kind::Response),
    ("GetPromptResultResponse", Kind::Response),
    ("ListPromptsResultResponse", Kind::Response),
    ("ListResourceTemplatesResultResponse", Kind::Response),
    ("ListResourcesResultResponse", Kind::Response),
    ("ListToolsResultResponse", Kind::Response),
    ("ReadResourceResultResponse", Kind::Response),
    ("SubscriptionsListenResultResponse", Kind::Response),
    ("HeaderMismatchError", Kind::Error(-32020)),
    ("MissingRequiredClientCapabilityError", Kind::Error(-32021)),
    ("UnsupportedProtocolVersionError", Kind::Error(-32022)),
];

/// Input requests embedded in results; not wire messages.
const EMBEDDED_REQUESTS: &[(&str, &str)] = &[
    ("CreateMessageRequest", "sampling/createMessage"),
    ("ElicitRequest", "elicitation/create"),
    ("ListRootsRequest", "roots/list"),
];

/// Bare error objects.
const ERROR_OBJECTS: &[&str] = &[
    "InternalError",
    "InvalidParamsError",
    "MethodNotFoundError",
    "ParseError",
];

fn envelope_kind(folder: &str) -> Option<Kind> {
    ENVELOPES
        .iter()
        .find(|(f, _)| *f == folder)
        .map(|&(_, k)| k)
}

fn check_kind(ex: &Example, line: &str, kind: Kind) {
    let what = format!("{}/{}: {line}", ex.folder, ex.file);
    let want = value(line);
    let m = jsonrpc::parse(line, &Limits::DEFAULT).unwrap_or_else(|e| panic!("{what}: {e:?}"));
    match (kind, m) {
        (Kind::Request(method), Message::Request(r)) => {
            assert!(r.method.eq_str(method), "{what}");
            assert_eq!(value(r.id.as_raw()), want["id"], "{what}");
            assert_eq!(
                r.params.map(|p| value(p.as_raw())),
                want.get("params").cloned(),
                "{what}"
            );
        }
        (Kind::Notification(method), Message::Notification(n)) => {
            assert!(n.method.eq_str(method), "{what}");
            assert_eq!(
                n.params.map(|p| value(p.as_raw())),
                want.get("params").cloned(),
                "{what}"
            );
        }
        (Kind::Response, Message::Response(r)) => {
            assert_eq!(value(r.id.as_raw()), want["id"], "{what}");
            assert_eq!(value(r.result.as_raw()), want["result"], "{what}");
        }
        (Kind::Error(code), Message::Error(e)) => {
            assert_eq!(e.error.code, code, "{what}");
            assert_eq!(
                e.id.map(|i| value(i.as_raw())),
                want.get("id").cloned(),
                "{what}"
            );
            assert!(
                e.error
                    .message
                    .eq_str(want["error"]["message"].as_str().unwrap()),
                "{what}"
            );
            assert_eq!(
                e.error.data.map(|d| value(d.as_raw())),
                want["error"].get("data").cloned(),
                "{what}"
            );
        }
        (k, m) => panic!("{what}: expected {k:?}, got {m:?}"),
    }
}

#[test]
fn corpus_is_complete() {
    let all = examples();
    assert_eq!(all.len(), 129, "files");
    let folders: BTreeSet<&str> = all.iter().map(|e| e.folder.as_str()).collect();
    assert_eq!(folders.len(), 88, "folders");
    // The envelope list above is exactly the set of files with a `jsonrpc` member.
    let with_jsonrpc: BTreeSet<&str> = all
        .iter()
        .filter(|e| value(&e.text).get("jsonrpc").is_some())
        .map(|e| e.folder.as_str())
        .collect();
    let listed: BTreeSet<&str> = ENVELOPES.iter().map(|(f, _)| *f).collect();
    assert_eq!(with_jsonrpc, listed);
    for name in EMBEDDED_REQUESTS
        .iter()
        .map(|(f, _)| *f)
        .chain(ERROR_OBJECTS.iter().copied())
    {
        assert!(folders.contains(name), "{name}");
    }
}

#[test]
fn every_example_is_json_as_written_and_on_one_line() {
    for ex in examples() {
        let what = format!("{}/{}", ex.folder, ex.file);
        let pretty = Json::new(&ex.text).unwrap_or_else(|e| panic!("{what}: {e}"));
        let one = Json::new(&ex.line).unwrap_or_else(|e| panic!("{what} compacted: {e}"));
        assert!(!ex.line.contains('\n'), "{what}");
        // Compacting changed nothing but whitespace.
        assert_eq!(value(&ex.line), value(&ex.text), "{what}");
        assert_eq!(pretty.kind(), one.kind());
        // serde_json agrees it is JSON; the view reads the same members.
        assert_eq!(
            one.members().count(),
            value(&ex.text).as_object().map_or(0, |m| m.len()),
            "{what}"
        );
    }
}

#[test]
fn envelopes_parse_as_their_kind() {
    let mut seen = 0;
    for ex in examples() {
        let Some(kind) = envelope_kind(&ex.folder) else {
            continue;
        };
        check_kind(&ex, &ex.line, kind);
        // Whitespace, newlines included, is fine inside a line given to `parse`.
        check_kind(&ex, &ex.text, kind);
        seen += 1;
    }
    assert_eq!(seen, 32);
}

#[test]
fn embedded_requests_need_an_envelope() {
    for ex in examples() {
        let Some(&(_, method)) = EMBEDDED_REQUESTS.iter().find(|(f, _)| *f == ex.folder) else {
            continue;
        };
        let e = jsonrpc::parse(&ex.line, &Limits::DEFAULT).unwrap_err();
        assert_eq!(e.kind, ParseErrorKind::BadVersion, "{}", ex.folder);
        // With `jsonrpc` (and an id where the example has none) it is a request.
        let mut v = value(&ex.line);
        let obj = v.as_object_mut().unwrap();
        obj.insert("jsonrpc".into(), "2.0".into());
        obj.entry("id").or_insert(7.into());
        let line = serde_json::to_string(&v).unwrap();
        check_kind(&ex, &line, Kind::Request(method));
    }
}

#[test]
fn bare_params_results_and_errors_wrap_into_messages() {
    let mut wrapped = 0;
    for ex in examples() {
        let (line, kind) = if ex.folder.ends_with("Params") {
            (
                format!(
                    r#"{{"jsonrpc":"2.0","id":1,"method":"x/y","params":{}}}"#,
                    ex.line
                ),
                Kind::Request("x/y"),
            )
        } else if ex.folder.ends_with("Result") {
            (
                format!(r#"{{"jsonrpc":"2.0","id":"r","result":{}}}"#, ex.line),
                Kind::Response,
            )
        } else if ERROR_OBJECTS.contains(&ex.folder.as_str()) {
            let code = value(&ex.line)["code"].as_i64().unwrap();
            assert!((-32768..=-32000).contains(&code), "{}", ex.folder);
            (
                format!(r#"{{"jsonrpc":"2.0","id":2,"error":{}}}"#, ex.line),
                Kind::Error(code),
            )
        } else {
            continue;
        };
        check_kind(&ex, &line, kind);
        // The wrapped value is borrowed unchanged.
        let Ok(m) = jsonrpc::parse(&line, &Limits::DEFAULT) else {
            unreachable!()
        };
        let raw = match m {
            Message::Request(r) => r.params.unwrap().as_raw(),
            Message::Response(r) => r.result.as_raw(),
            Message::Error(_) => Json::new(&line).unwrap().get("error").unwrap().as_raw(),
            _ => unreachable!(),
        };
        assert_eq!(raw, ex.line, "{}/{}", ex.folder, ex.file);
        wrapped += 1;
    }
    assert!(wrapped >= 40, "{wrapped}");
}

#[test]
fn the_corpus_frames_line_by_line() {
    let all = examples();
    let longest = all.iter().map(|e| e.line.len()).max().unwrap();
    for sep in ["\n", "\r\n"] {
        let mut stream = Vec::new();
        for ex in &all {
            stream.extend_from_slice(ex.line.as_bytes());
            stream.extend_from_slice(sep.as_bytes());
            stream.extend_from_slice(sep.as_bytes()); // a blank line between messages
        }
        for chunk in [stream.len(), 1, 7, 4096] {
            let mut dec = LineDecoder::new(vec![0u8; longest + sep.len() - 1], 64);
            let mut got = Vec::new();
            for part in stream.chunks(chunk) {
                let mut input = part;
                while !input.is_empty() {
                    let d = dec.decode(input);
                    match d.frame {
                        Some(Frame::Line(l)) => got.push(l.to_owned()),
                        Some(f) => panic!("{f:?}"),
                        None => {}
                    }
                    input = &input[d.consumed..];
                }
            }
            let want: Vec<&str> = all.iter().map(|e| e.line.as_str()).collect();
            assert_eq!(got, want, "separator {sep:?}, chunks of {chunk}");
        }
    }
}
