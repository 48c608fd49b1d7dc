//! The four calls (`tools/call`, `resources/read`, `prompts/get`, `completion/complete`):
//! checked here, answered here when they fail, handed to the host as a [`Call`] when
//! they pass.

use super::defs::{Prompt, ResourceTemplate};
use super::message::line;
use super::{Server, has, result};
use crate::error::ErrorCode;
use crate::json::{Json, JsonKind, JsonStr, JsonWriter};
use crate::protocol::{Feature, ProtocolVersion};
use crate::schema::Schema;
use crate::session::{Commands, InboundId, RespondError};
use crate::uri::{UriTemplate, Vars};

/// Longest URI with JSON escapes that `resources/read` decodes into the call (a plain
/// URI, the usual case, is borrowed and has no limit but the line's; a longer escaped
/// one is answered as not found).
pub const MAX_ESCAPED_URI: usize = 256;

/// A request for the host, checked by the layer.
// A read carries a small buffer for an escaped URI (MAX_ESCAPED_URI), so that the host
// always gets a `&str`; the other calls are a few words.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum Call<'e> {
    /// `tools/call`.
    Tool(ToolCall<'e>),
    /// `resources/read`.
    Read(ReadCall<'e>),
    /// `prompts/get`.
    Prompt(PromptCall<'e>),
    /// `completion/complete`.
    Complete(CompleteCall<'e>),
}

impl Call<'_> {
    /// The request to answer.
    pub fn id(&self) -> InboundId {
        match self {
            Call::Tool(c) => c.id,
            Call::Read(c) => c.id,
            Call::Prompt(c) => c.id,
            Call::Complete(c) => c.id,
        }
    }
}

/// `tools/call` of a known tool whose arguments match its `inputSchema`. Answer with
/// [`Server::respond_tool`].
#[derive(Debug, Clone, Copy)]
pub struct ToolCall<'e> {
    /// The request.
    pub id: InboundId,
    /// Index of the tool in [`Catalog::tools`](super::Catalog::tools).
    pub tool: usize,
    /// The arguments (an object; `{}` when the request had none).
    pub arguments: Json<'e>,
    /// The whole `params` (for what the layer does not name: `inputResponses`,
    /// `requestState`, `task`, ...).
    pub params: Json<'e>,
}

impl<'e> ToolCall<'e> {
    /// The request's `_meta`, if any (looked up on demand: it may follow long arguments).
    pub fn meta(&self) -> Option<Json<'e>> {
        self.params.get("_meta")
    }

    /// The 2026-07-28 retry members (`inputResponses`, `requestState`); see [`Retry::of`].
    ///
    /// # Errors
    /// As [`Retry::of`].
    pub fn retry(&self) -> Result<Retry<'e>, &'static str> {
        Retry::of(self.params)
    }
}

/// What a `resources/read` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadTarget {
    /// A resource, by index in [`Catalog::resources`](super::Catalog::resources).
    Resource(usize),
    /// A URI that matches a template, by index in
    /// [`Catalog::templates`](super::Catalog::templates).
    Template(usize),
}

/// `resources/read` of a URI that names a resource or matches a template. Answer with
/// [`Server::respond_read`].
#[derive(Debug)]
pub struct ReadCall<'e> {
    /// The request.
    pub id: InboundId,
    /// What the URI names.
    pub target: ReadTarget,
    uri: UriText<'e>,
}

impl<'e> ReadCall<'e> {
    /// The URI, decoded.
    pub fn uri(&self) -> &str {
        self.uri.as_str()
    }

    /// The template's variables, for a [`ReadTarget::Template`] (still percent-encoded:
    /// decode with [`crate::uri::percent_decode`]).
    pub fn vars<'a, 's>(&'s self, server: &Server<'a>) -> Option<Vars<'a, 's>> {
        let ReadTarget::Template(i) = self.target else {
            return None;
        };
        let t = server.catalog.templates.get(i)?;
        UriTemplate::trusted(t.uri_template).match_uri(self.uri())
    }
}

/// A URI as the request gave it: borrowed when it had no escapes, decoded into the call
/// otherwise.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
enum UriText<'e> {
    Plain(&'e str),
    Decoded {
        buf: [u8; MAX_ESCAPED_URI],
        len: usize,
    },
}

impl UriText<'_> {
    fn as_str(&self) -> &str {
        match self {
            UriText::Plain(s) => s,
            UriText::Decoded { buf, len } => core::str::from_utf8(&buf[..*len]).unwrap_or(""),
        }
    }
}

/// `prompts/get` of a known prompt with every required argument, all strings. Answer
/// with [`Server::respond_prompt`].
#[derive(Debug, Clone, Copy)]
pub struct PromptCall<'e> {
    /// The request.
    pub id: InboundId,
    /// Index of the prompt in [`Catalog::prompts`](super::Catalog::prompts).
    pub prompt: usize,
    /// The arguments (an object of strings; `{}` when the request had none).
    pub arguments: Json<'e>,
    /// The whole `params` (for what the layer does not name: `inputResponses` and
    /// `requestState` of a 2026-07-28 retry, `_meta`, ...).
    pub params: Json<'e>,
}

impl<'e> PromptCall<'e> {
    /// The argument called `name`.
    pub fn argument(&self, name: &str) -> Option<JsonStr<'e>> {
        self.arguments.get(name).and_then(|v| v.as_str())
    }

    /// The 2026-07-28 retry members (`inputResponses`, `requestState`); see [`Retry::of`].
    ///
    /// # Errors
    /// As [`Retry::of`].
    pub fn retry(&self) -> Result<Retry<'e>, &'static str> {
        Retry::of(self.params)
    }
}

/// What a 2026-07-28 retry of a call carries back (MRTR, SEP-2322): the client's answers
/// to an earlier `input_required` result and the `requestState` it echoed. Read from a
/// call's `params` ([`ToolCall::retry`], [`PromptCall::retry`], or [`Retry::of`] with the
/// params of a `resources/read`); a first try has no answers and no state.
#[derive(Debug, Clone, Copy)]
pub struct Retry<'e> {
    /// `inputResponses`: an object of answers by the keys the server asked with (`{}`
    /// when there are none). Unknown keys are the client's business: ignore them.
    pub input_responses: Json<'e>,
    /// `requestState`, as the client sent it back. With a state key
    /// ([`Config::state_key`](crate::session::Config::state_key)) the session verified
    /// and unsealed it before the call reached the host (a tampered, foreign or expired
    /// one was answered with -32602); without one it is whatever the client wrote:
    /// never trust it then.
    pub request_state: Option<JsonStr<'e>>,
}

impl<'e> Retry<'e> {
    /// The retry members of `params`.
    ///
    /// # Errors
    /// The -32602 message to answer with when `inputResponses` is there and not an
    /// object, or `requestState` is there and not a string (`null` counts as absent).
    pub fn of(params: Json<'e>) -> Result<Retry<'e>, &'static str> {
        let input_responses = match params.get("inputResponses").filter(|a| !a.is_null()) {
            None => Json::EMPTY_OBJECT,
            Some(a) if a.is_object() => a,
            Some(_) => return Err("Invalid params: `inputResponses` must be an object"),
        };
        let request_state = match params.get("requestState").filter(|s| !s.is_null()) {
            None => None,
            Some(s) => Some(
                s.as_str()
                    .ok_or("Invalid params: `requestState` must be a string")?,
            ),
        };
        Ok(Retry {
            input_responses,
            request_state,
        })
    }

    /// The answer under `key`, when it is an object (a result of the method asked for;
    /// anything else is no answer, and the question is asked again).
    pub fn answer(&self, key: &str) -> Option<Json<'e>> {
        self.input_responses.get(key).filter(|a| a.is_object())
    }
}

/// What a `completion/complete` completes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompleteTarget {
    /// An argument of a prompt, by index in [`Catalog::prompts`](super::Catalog::prompts).
    Prompt(usize),
    /// A variable of a template, by index in
    /// [`Catalog::templates`](super::Catalog::templates).
    Template(usize),
}

/// `completion/complete` of a completable prompt argument or template variable. Answer
/// with [`Server::respond_completion`].
#[derive(Debug, Clone, Copy)]
pub struct CompleteCall<'e> {
    /// The request.
    pub id: InboundId,
    /// The prompt or template.
    pub target: CompleteTarget,
    /// The argument (or variable) name.
    pub argument: JsonStr<'e>,
    /// What the user typed so far.
    pub value: JsonStr<'e>,
    /// `context` (2025-06-18 on: `{"arguments": {...}}`, the values already chosen).
    pub context: Option<Json<'e>>,
}

type Outcome<'e> = Result<Option<Call<'e>>, RespondError>;

fn invalid(cmds: &mut Commands<'_, '_>, id: InboundId, message: &str) -> Outcome<'static> {
    cmds.respond_error(id, ErrorCode::INVALID_PARAMS, message, None)?;
    Ok(None)
}

/// The `arguments` object: absent or `null` is `{}`; anything but an object is `None`.
fn arguments<'e>(params: Json<'e>) -> Option<Json<'e>> {
    match params.get("arguments") {
        None => Some(Json::EMPTY_OBJECT),
        Some(a) if a.is_null() => Some(Json::EMPTY_OBJECT),
        Some(a) if a.is_object() => Some(a),
        Some(_) => None,
    }
}

// Not inlined (each of the four): `Server::handle` would otherwise hold the locals of
// every call at once (messages, a decoded URI, a schema error), a few KiB of stack on a
// device for any event.
#[inline(never)]
pub(super) fn tool<'e>(
    s: &Server<'_>,
    cmds: &mut Commands<'_, '_>,
    id: InboundId,
    params: Json<'e>,
    version: Option<ProtocolVersion>,
) -> Outcome<'e> {
    let Some(name) = params.get("name").and_then(|n| n.as_str()) else {
        return invalid(cmds, id, "Invalid params: `name` must be a string");
    };
    let Some(index) = s.catalog.tools.iter().position(|t| name.eq_str(t.name)) else {
        return unknown_tool(cmds, id, name);
    };
    let Some(args) = arguments(params) else {
        return invalid(cmds, id, "Invalid params: `arguments` must be an object");
    };
    let tool = &s.catalog.tools[index];
    let schema = Schema::trusted(Json::from_validated(tool.input_schema));
    if let Err(e) = schema.validate_within(args, s.options.schema_depth) {
        return invalid_arguments(cmds, id, tool.name, &e, version);
    }
    Ok(Some(Call::Tool(ToolCall {
        id,
        tool: index,
        arguments: args,
        params,
    })))
}

// Not inlined (nor `invalid_arguments`): their messages are on the stack only while a
// failed call is answered, not under the argument validation.
#[inline(never)]
fn unknown_tool<'e>(cmds: &mut Commands<'_, '_>, id: InboundId, name: JsonStr<'_>) -> Outcome<'e> {
    invalid(cmds, id, line!(256, "Unknown tool: {name}").as_str())
}

#[inline(never)]
fn invalid_arguments<'e>(
    cmds: &mut Commands<'_, '_>,
    id: InboundId,
    tool: &str,
    e: &crate::schema::Invalid,
    version: Option<ProtocolVersion>,
) -> Outcome<'e> {
    let message = line!(384, "Invalid arguments for tool {tool}: {e}");
    if has(version, Feature::ArgumentErrorsAsToolResults) {
        // SEP-1303: the model sees the mistake and can correct it.
        cmds.respond_with(id, |w| result::error_text(w, message.as_str()))?;
    } else {
        cmds.respond_error(id, ErrorCode::INVALID_PARAMS, message.as_str(), None)?;
    }
    Ok(None)
}

#[inline(never)]
pub(super) fn read<'e>(
    s: &Server<'_>,
    cmds: &mut Commands<'_, '_>,
    id: InboundId,
    params: Json<'e>,
) -> Outcome<'e> {
    let Some(raw) = params.get("uri").and_then(|u| u.as_str()) else {
        return invalid(cmds, id, "Invalid params: `uri` must be a string");
    };
    let uri = match raw.as_plain() {
        Some(p) => UriText::Plain(p),
        None => {
            let mut buf = [0u8; MAX_ESCAPED_URI];
            match raw.unescape_into(&mut buf) {
                Ok(t) => {
                    let len = t.len();
                    UriText::Decoded { buf, len }
                }
                Err(_) => return not_found(cmds, id, raw),
            }
        }
    };
    let text = uri.as_str();
    let target = if let Some(i) = s.catalog.resources.iter().position(|r| r.uri == text) {
        ReadTarget::Resource(i)
    } else if let Some(i) = template(s, text) {
        ReadTarget::Template(i)
    } else {
        return not_found(cmds, id, raw);
    };
    Ok(Some(Call::Read(ReadCall { id, target, uri })))
}

/// The first template `uri` matches (none without the `templates` feature: `Server::new`
/// refused any template).
fn template(s: &Server<'_>, uri: &str) -> Option<usize> {
    if !cfg!(feature = "templates") {
        return None;
    }
    s.catalog.templates.iter().position(|t| matches(t, uri))
}

// Not inlined: a match's variables are on the stack only while a template is tried.
#[inline(never)]
fn matches(t: &ResourceTemplate<'_>, uri: &str) -> bool {
    UriTemplate::trusted(t.uri_template)
        .match_uri(uri)
        .is_some()
}

/// -32002 with `data: {"uri": ...}` (the session sends -32602 in 2026-07-28).
// Not inlined: its buffers are needed only when the URI names nothing.
#[inline(never)]
fn not_found<'e>(cmds: &mut Commands<'_, '_>, id: InboundId, uri: JsonStr<'_>) -> Outcome<'e> {
    let message = line!(600, "Resource not found: {uri}");
    let mut buf = [0u8; MAX_ESCAPED_URI * 2 + 16];
    let mut w = JsonWriter::new(&mut buf);
    w.begin_object();
    w.key("uri");
    w.string_raw(uri);
    w.end_object();
    let data = match w.finish() {
        Ok(n) => core::str::from_utf8(&buf[..n])
            .ok()
            .map(Json::from_validated),
        Err(_) => None,
    };
    cmds.respond_error(id, ErrorCode::RESOURCE_NOT_FOUND, message.as_str(), data)?;
    Ok(None)
}

#[inline(never)]
pub(super) fn prompt<'e>(
    s: &Server<'_>,
    cmds: &mut Commands<'_, '_>,
    id: InboundId,
    params: Json<'e>,
) -> Outcome<'e> {
    let Some(name) = params.get("name").and_then(|n| n.as_str()) else {
        return invalid(cmds, id, "Invalid params: `name` must be a string");
    };
    let Some(index) = s.catalog.prompts.iter().position(|p| name.eq_str(p.name)) else {
        return invalid(
            cmds,
            id,
            line!(256, "Invalid params: unknown prompt {name}").as_str(),
        );
    };
    let Some(args) = arguments(params) else {
        return invalid(cmds, id, "Invalid params: `arguments` must be an object");
    };
    if let Some((key, _)) = args.members().find(|(_, v)| v.kind() != JsonKind::String) {
        let message = line!(256, "Invalid params: argument `{key}` must be a string");
        return invalid(cmds, id, message.as_str());
    }
    let def: &Prompt<'_> = &s.catalog.prompts[index];
    if let Some(a) = def
        .arguments
        .iter()
        .find(|a| a.required && args.get(a.name).is_none())
    {
        let message = line!(
            256,
            "Invalid params: missing required argument `{}`",
            a.name
        );
        return invalid(cmds, id, message.as_str());
    }
    Ok(Some(Call::Prompt(PromptCall {
        id,
        prompt: index,
        arguments: args,
        params,
    })))
}

#[cfg(feature = "completions")]
#[inline(never)]
pub(super) fn complete<'e>(
    s: &Server<'_>,
    cmds: &mut Commands<'_, '_>,
    id: InboundId,
    params: Json<'e>,
) -> Outcome<'e> {
    let reference = params.get("ref").unwrap_or(Json::NULL);
    let kind = reference.get("type").and_then(|t| t.as_str());
    let argument_obj = params.get("argument").unwrap_or(Json::NULL);
    let (Some(kind), Some(argument)) = (kind, argument_obj.get("name").and_then(|n| n.as_str()))
    else {
        return invalid(
            cmds,
            id,
            "Invalid params: `ref.type` and `argument.name` must be strings",
        );
    };
    let value = argument_obj
        .get("value")
        .and_then(|v| v.as_str())
        .unwrap_or(JsonStr::EMPTY);
    let target = if kind.eq_str("ref/prompt") {
        let found = reference
            .get("name")
            .and_then(|n| n.as_str())
            .and_then(|n| s.catalog.prompts.iter().position(|p| n.eq_str(p.name)));
        let Some(i) = found else {
            return invalid(cmds, id, "Invalid params: unknown prompt");
        };
        let completable = s.catalog.prompts[i]
            .arguments
            .iter()
            .any(|a| a.completable && argument.eq_str(a.name));
        completable.then_some(CompleteTarget::Prompt(i))
    } else if kind.eq_str("ref/resource") {
        let Some(uri) = reference.get("uri").and_then(|u| u.as_str()) else {
            return invalid(cmds, id, "Invalid params: `ref.uri` must be a string");
        };
        if let Some(i) = s
            .catalog
            .templates
            .iter()
            .position(|t| uri.eq_str(t.uri_template))
        {
            let t = &s.catalog.templates[i];
            let declared = UriTemplate::trusted(t.uri_template)
                .var_names()
                .any(|v| argument.eq_str(v));
            (t.completable && declared).then_some(CompleteTarget::Template(i))
        } else if s.catalog.resources.iter().any(|r| uri.eq_str(r.uri)) {
            None // a plain resource has nothing to complete
        } else {
            return invalid(cmds, id, "Invalid params: unknown resource");
        }
    } else {
        return invalid(
            cmds,
            id,
            "Invalid params: `ref.type` must be ref/prompt or ref/resource",
        );
    };
    let Some(target) = target else {
        // Nothing the host completes: no suggestions.
        cmds.respond_with(id, |w| result::completion(w, &[], Some(0), false))?;
        return Ok(None);
    };
    Ok(Some(Call::Complete(CompleteCall {
        id,
        target,
        argument,
        value,
        context: params.get("context"),
    })))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(text: &str) -> Result<Retry<'_>, &'static str> {
        Retry::of(Json::new(text).unwrap())
    }

    #[test]
    fn retry_members() {
        let r = of(
            r#"{"name":"t","inputResponses":{"a":{"action":"accept"},"b":1},"requestState":"s1"}"#,
        )
        .unwrap();
        assert!(r.answer("a").is_some());
        assert!(
            r.answer("b").is_none(),
            "an answer that is not an object is no answer"
        );
        assert!(r.answer("c").is_none());
        assert!(r.request_state.is_some_and(|s| s.eq_str("s1")));
        // A first try, and `null` members, carry nothing.
        let r = of(r#"{"name":"t","inputResponses":null,"requestState":null}"#).unwrap();
        assert_eq!(r.input_responses.as_raw(), "{}");
        assert!(r.request_state.is_none());
        assert_eq!(
            of(r#"{"inputResponses":[1]}"#).unwrap_err(),
            "Invalid params: `inputResponses` must be an object"
        );
        assert_eq!(
            of(r#"{"requestState":7}"#).unwrap_err(),
            "Invalid params: `requestState` must be a string"
        );
    }
}
