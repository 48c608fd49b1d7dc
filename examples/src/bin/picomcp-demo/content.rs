//! Resources, prompts and completion, for calls the core's server layer has checked (the
//! URI matched, the required prompt arguments are there, the reference exists).
//! Subscriptions are kept by the core, which answers `resources/subscribe`,
//! `resources/unsubscribe` and `subscriptions/listen` itself.

use picomcp::json::{JsonStr, JsonWriter};
use picomcp::server::{
    CompleteCall, CompleteTarget, Completion, Content, PromptCall, PromptMessage, ReadCall,
    ReadTarget, ResourceContents, ResultError, Role,
};
use picomcp::session::Session;

use super::catalog::{BODIES, Body, PNG_BASE64, PROMPT_KINDS, PromptKind, RESOURCES, TEMPLATES};
use super::diag::stack_format;
use super::{layer, mrtr};

pub(crate) fn read_resource(s: &mut Session<'_>, call: ReadCall<'_>) -> Result<(), ResultError> {
    let uri = call.uri();
    let mut text = [0u8; picomcp::server::MAX_ESCAPED_URI * 2 + 96];
    let contents = match call.target {
        ReadTarget::Resource(i) => {
            let mime = RESOURCES[i].mime_type;
            match BODIES[i] {
                Body::Text(t) => ResourceContents::text(uri, mime, t),
                Body::Blob(b) => ResourceContents::blob(uri, mime, b),
            }
        }
        ReadTarget::Template(i) => {
            let vars = call.vars(&layer());
            let item = vars.as_ref().and_then(|v| v.get("id")).unwrap_or("");
            // The text is itself JSON: {"id":…,"templateTest":true,"data":"Data for ID: …"}.
            let mut w = JsonWriter::new(&mut text);
            w.begin_object();
            w.key("id");
            w.string(item);
            w.key("templateTest");
            w.bool(true);
            w.key("data");
            w.string_fmt(format_args!("Data for ID: {item}"));
            w.end_object();
            let n = w.finish().unwrap_or(0);
            let json = std::str::from_utf8(&text[..n]).unwrap_or("{}");
            ResourceContents::text(uri, TEMPLATES[i].mime_type, json)
        }
    };
    Ok(layer().respond_read(&mut s.commands(), call.id, &[contents])?)
}

pub(crate) fn get_prompt(s: &mut Session<'_>, call: PromptCall<'_>) -> Result<(), ResultError> {
    let arg = |name| call.argument(name).unwrap_or(JsonStr::EMPTY);
    let user = |content| PromptMessage {
        role: Role::User,
        content,
    };
    let with_args;
    let mut uri_buf = [0u8; picomcp::server::MAX_ESCAPED_URI];
    let messages: &[PromptMessage<'_>] = match PROMPT_KINDS[call.prompt] {
        PromptKind::InputRequired => return mrtr::prompt(s, call),
        PromptKind::Simple => &[PromptMessage::user("This is a simple prompt for testing.")],
        PromptKind::WithArguments => {
            with_args = stack_format!(
                1024,
                "Prompt with arguments: arg1='{}', arg2='{}'",
                arg("arg1"),
                arg("arg2")
            );
            &[PromptMessage::user(with_args.as_str())]
        }
        PromptKind::EmbeddedResource => &[
            user(Content::Resource(ResourceContents::text(
                arg("resourceUri").unescape_into(&mut uri_buf).unwrap_or(""),
                Some("text/plain"),
                "Embedded resource content for testing.",
            ))),
            PromptMessage::user("Please process the embedded resource above."),
        ],
        PromptKind::Image => &[
            user(Content::Image {
                data: PNG_BASE64,
                mime_type: "image/png",
            }),
            PromptMessage::user("Please analyze the image above."),
        ],
    };
    layer().respond_prompt(&mut s.commands(), call.id, call.prompt, messages)
}

/// Candidate completions, by what is being completed.
const ARG1: &[&str] = &["paris", "park", "party", "hello", "help", "testValue1"];
const ARG2: &[&str] = &["world", "word", "work", "testValue2"];
const URIS: &[&str] = &[
    "test://static-text",
    "test://static-binary",
    "test://watched-resource",
    "test://template/1/data",
];
const IDS: &[&str] = &["1", "2", "3", "42", "123"];

pub(crate) fn complete(s: &mut Session<'_>, call: CompleteCall<'_>) -> Result<(), ResultError> {
    let mut buf = [0u8; 256];
    let value = call.value.unescape_into(&mut buf).unwrap_or("");
    let candidates: &[&str] = match call.target {
        CompleteTarget::Prompt(_) if call.argument.eq_str("arg1") => ARG1,
        CompleteTarget::Prompt(_) if call.argument.eq_str("arg2") => ARG2,
        CompleteTarget::Prompt(_) if call.argument.eq_str("resourceUri") => URIS,
        CompleteTarget::Template(_) => IDS,
        CompleteTarget::Prompt(_) => &[],
    };
    let mut matches = [""; 8];
    let mut n = 0;
    for c in candidates.iter().filter(|c| c.starts_with(value)) {
        if n < matches.len() {
            matches[n] = c;
            n += 1;
        }
    }
    let completion = Completion {
        values: &matches[..n],
        total: Some(n),
        has_more: false,
    };
    Ok(layer().respond_completion(&mut s.commands(), call.id, &completion)?)
}
