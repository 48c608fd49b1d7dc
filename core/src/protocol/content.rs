//! The content rules of the client features the official SDKs check: the
//! `elicitation/create` form schema (`requestedSchema`, DIGEST §10; the schema's
//! `PrimitiveSchemaDefinition`), the accepted `content` against that schema, and
//! sampling with tools (`tools`, `toolChoice`, `tool_use`/`tool_result` content,
//! 2025-11-25, DIGEST §9).
//!
//! The session applies them in both directions (a server's outbound request is the
//! host's error, a peer's invalid request is answered -32602); hosts may call them too,
//! e.g. a 2026-07-28 server checking the `inputResponses` of a retry against the schema
//! it asked with ([`check_elicitation_content`]).
//!
//! Every walk is flat (the rules allow no nesting below a property's `items`), so no
//! input can drive a recursion. Compiled with the `content-rules` Cargo feature.

use core::fmt;

use super::{Feature, ProtocolVersion};
use crate::json::{Json, JsonKind, JsonStr};

/// Why an elicitation or sampling request breaks the rules of its revision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ContentError {
    /// `message` is missing or not a string.
    MessageMissing,
    /// `mode` is neither `"form"` nor `"url"`, or is given before 2025-11-25.
    ModeInvalid,
    /// A URL-mode request without a string `url` (or, legacy, `elicitationId`).
    UrlMissing,
    /// A form-mode request without a `requestedSchema` object of `type: "object"` with
    /// an object of `properties`.
    SchemaNotObject,
    /// A property schema that is not a primitive: a nested object, an array other than
    /// an enum multi-select, an unknown `type`.
    PropertyNotPrimitive,
    /// A malformed enum: `enum`/`oneOf`/`anyOf` not a non-empty list of strings or
    /// `{const, title}` strings, `enumNames` not as long as `enum`.
    EnumInvalid,
    /// An enum form the revision does not have (titled `oneOf` and multi-select arrays
    /// are 2025-11-25).
    NotInVersion,
    /// A string `format` other than `email`, `uri`, `date`, `date-time`.
    FormatInvalid,
    /// `minLength`/`maxLength`/`minItems`/`maxItems` not a non-negative integer,
    /// `minimum`/`maximum` not a number, or a minimum above its maximum.
    BoundInvalid,
    /// A `default` that does not match its property's type or enum.
    DefaultInvalid,
    /// `required` is not a list of strings naming properties.
    RequiredInvalid,
    /// Sampling: `tools` is not a list of tools (`name` string, `inputSchema` object).
    ToolsInvalid,
    /// Sampling: `toolChoice` is not `{mode?: "auto"|"none"|"required"}`.
    ToolChoiceInvalid,
    /// Sampling: a message content block is not a valid `tool_use` (`id`, `name`,
    /// `input` object) or `tool_result` (`toolUseId`, `content` list) block, or uses one
    /// before 2025-11-25.
    ToolContentInvalid,
}

impl ContentError {
    /// A stable snake_case name (what the bindings report).
    pub fn name(self) -> &'static str {
        match self {
            Self::MessageMissing => "message_missing",
            Self::ModeInvalid => "mode_invalid",
            Self::UrlMissing => "url_missing",
            Self::SchemaNotObject => "schema_not_object",
            Self::PropertyNotPrimitive => "property_not_primitive",
            Self::EnumInvalid => "enum_invalid",
            Self::NotInVersion => "not_in_version",
            Self::FormatInvalid => "format_invalid",
            Self::BoundInvalid => "bound_invalid",
            Self::DefaultInvalid => "default_invalid",
            Self::RequiredInvalid => "required_invalid",
            Self::ToolsInvalid => "tools_invalid",
            Self::ToolChoiceInvalid => "tool_choice_invalid",
            Self::ToolContentInvalid => "tool_content_invalid",
        }
    }
}

impl fmt::Display for ContentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::MessageMissing => "elicitation message must be a string",
            Self::ModeInvalid => "elicitation mode must be \"form\" or \"url\" (2025-11-25)",
            Self::UrlMissing => "URL-mode elicitation needs a url (and elicitationId)",
            Self::SchemaNotObject => {
                "requestedSchema must be {type: \"object\", properties: {...}}"
            }
            Self::PropertyNotPrimitive => {
                "elicitation properties must be flat primitives (string, number, integer, boolean, enum)"
            }
            Self::EnumInvalid => "malformed enum in an elicitation property",
            Self::NotInVersion => "this enum form or default does not exist in the revision",
            Self::FormatInvalid => "string format must be email, uri, date or date-time",
            Self::BoundInvalid => "malformed length, item or number bound",
            Self::DefaultInvalid => "default does not match its property",
            Self::RequiredInvalid => "required must list property names",
            Self::ToolsInvalid => "sampling tools must be tools with name and inputSchema",
            Self::ToolChoiceInvalid => "toolChoice mode must be auto, none or required",
            Self::ToolContentInvalid => "malformed tool_use or tool_result content",
        })
    }
}

impl core::error::Error for ContentError {}

/// What an elicitation request asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ElicitationMode {
    /// A form (`mode` absent or `"form"`): needs the client capability
    /// `elicitation.form` (or an empty `elicitation: {}`).
    Form,
    /// A URL the user opens (`mode: "url"`): needs `elicitation.url`.
    Url,
}

/// The mode an elicitation request's `params` ask for (`Form` when `mode` is absent or
/// not a string: the other checks refuse a bad one).
pub fn elicitation_mode(params: Json<'_>) -> ElicitationMode {
    match params.get("mode").and_then(|m| m.as_str()) {
        Some(m) if m.eq_str("url") => ElicitationMode::Url,
        _ => ElicitationMode::Form,
    }
}

/// The client capability an elicitation request's `params` need under revision `v`:
/// URL mode `elicitation.url`; a form `elicitation.form` (an empty `elicitation: {}`
/// counts) from 2025-11-25, plain `elicitation` before (2025-06-18 has no modes). `None`
/// for URL mode before 2025-11-25, which does not exist there.
pub fn elicitation_needs(params: Json<'_>, v: ProtocolVersion) -> Option<super::Caps> {
    use super::Caps;
    let modes = v.has(Feature::ElicitationModes);
    match (elicitation_mode(params), modes) {
        (ElicitationMode::Url, true) => Some(Caps::ELICITATION_URL),
        (ElicitationMode::Url, false) => None,
        (ElicitationMode::Form, true) => Some(Caps::ELICITATION_FORM),
        (ElicitationMode::Form, false) => Some(Caps::ELICITATION),
    }
}

/// Checks `elicitation/create` params (legacy request or 2026-07-28 input request;
/// `modern` leaves out the `elicitationId` a modern URL request does not carry) against
/// revision `v`. Capabilities are the caller's business ([`elicitation_mode`]).
///
/// # Errors
/// The first rule broken.
pub fn check_elicitation(
    params: Json<'_>,
    v: ProtocolVersion,
    modern: bool,
) -> Result<(), ContentError> {
    if !params.is_object() {
        return Err(ContentError::SchemaNotObject);
    }
    if params.get("message").and_then(|m| m.as_str()).is_none() {
        return Err(ContentError::MessageMissing);
    }
    let modes = v.has(Feature::ElicitationModes);
    match params.get("mode") {
        None => {}
        Some(m) => {
            let s = m.as_str().ok_or(ContentError::ModeInvalid)?;
            if !modes || !(s.eq_str("form") || s.eq_str("url")) {
                return Err(ContentError::ModeInvalid);
            }
        }
    }
    if elicitation_mode(params) == ElicitationMode::Url {
        let has = |k: &str| params.get(k).and_then(|u| u.as_str()).is_some();
        if !has("url") || (!modern && !has("elicitationId")) {
            return Err(ContentError::UrlMissing);
        }
        return Ok(());
    }
    let schema = params
        .get("requestedSchema")
        .ok_or(ContentError::SchemaNotObject)?;
    check_schema(schema, v)
}

/// Checks a form `requestedSchema` against revision `v`: `{type: "object", properties:
/// {name: primitive}, required?: [names], $schema?}`.
///
/// # Errors
/// The first rule broken.
pub fn check_schema(schema: Json<'_>, v: ProtocolVersion) -> Result<(), ContentError> {
    let is_object_type = schema
        .get("type")
        .and_then(|t| t.as_str())
        .is_some_and(|t| t.eq_str("object"));
    let props = schema.get("properties").filter(|p| p.is_object());
    let (true, true, Some(props)) = (schema.is_object(), is_object_type, props) else {
        return Err(ContentError::SchemaNotObject);
    };
    if schema.get("$schema").is_some_and(|s| s.as_str().is_none()) {
        return Err(ContentError::SchemaNotObject);
    }
    for (_, p) in props.members() {
        check_property(p, v)?;
    }
    if let Some(r) = schema.get("required") {
        if r.kind() != JsonKind::Array {
            return Err(ContentError::RequiredInvalid);
        }
        for name in r.elements() {
            let named = name
                .as_str()
                .is_some_and(|n| props.members().any(|(k, _)| same(k, n)));
            if !named {
                return Err(ContentError::RequiredInvalid);
            }
        }
    }
    Ok(())
}

fn same(a: JsonStr<'_>, b: JsonStr<'_>) -> bool {
    a.chars().eq(b.chars())
}

fn is_str(j: Option<Json<'_>>) -> bool {
    j.is_none_or(|t| t.as_str().is_some())
}

/// A non-negative integer bound (absent is fine).
fn count_ok(j: Option<Json<'_>>) -> Result<Option<u64>, ContentError> {
    match j {
        None => Ok(None),
        Some(n) => n.as_u64().map(Some).ok_or(ContentError::BoundInvalid),
    }
}

fn check_property(p: Json<'_>, v: ProtocolVersion) -> Result<(), ContentError> {
    if !p.is_object() {
        return Err(ContentError::PropertyNotPrimitive);
    }
    if !is_str(p.get("title")) || !is_str(p.get("description")) {
        return Err(ContentError::PropertyNotPrimitive);
    }
    let enums = v.has(Feature::ElicitationEnums);
    let ty = p.get("type").and_then(|t| t.as_str());
    let Some(ty) = ty else {
        return Err(ContentError::PropertyNotPrimitive);
    };
    let default = p.get("default");
    if ty.eq_str("string") {
        let (min, max) = (count_ok(p.get("minLength"))?, count_ok(p.get("maxLength"))?);
        if let (Some(a), Some(b)) = (min, max)
            && a > b
        {
            return Err(ContentError::BoundInvalid);
        }
        if let Some(f) = p.get("format") {
            let ok = f.as_str().is_some_and(|f| {
                ["email", "uri", "date", "date-time"]
                    .iter()
                    .any(|k| f.eq_str(k))
            });
            if !ok {
                return Err(ContentError::FormatInvalid);
            }
        }
        let options = match (p.get("enum"), p.get("oneOf")) {
            (Some(_), Some(_)) => return Err(ContentError::EnumInvalid),
            (Some(e), None) => {
                let n = string_list(e)?;
                if let Some(names) = p.get("enumNames")
                    && string_list(names)? != n
                {
                    return Err(ContentError::EnumInvalid);
                }
                Some(Options::Enum(e))
            }
            (None, Some(o)) => {
                if !enums {
                    return Err(ContentError::NotInVersion);
                }
                titled_list(o)?;
                Some(Options::Titled(o))
            }
            (None, None) => None,
        };
        // `default` is 2025-11-25's, but a 2025-06-18 client ignores an unknown member
        // (the schema's objects are open), so it is only type-checked there.
        if let Some(d) = default {
            let s = d.as_str().ok_or(ContentError::DefaultInvalid)?;
            if options.is_some_and(|o| !o.contains(s)) {
                return Err(ContentError::DefaultInvalid);
            }
        }
        return Ok(());
    }
    if ty.eq_str("number") || ty.eq_str("integer") {
        let bound = |k: &str| match p.get(k) {
            None => Ok(None),
            Some(n) => n
                .as_f64_compact()
                .map(Some)
                .ok_or(ContentError::BoundInvalid),
        };
        let (min, max) = (bound("minimum")?, bound("maximum")?);
        if let (Some(a), Some(b)) = (min, max)
            && a > b
        {
            return Err(ContentError::BoundInvalid);
        }
        if let Some(d) = default {
            let ok = d.kind() == JsonKind::Number && (ty.eq_str("number") || d.is_integer());
            if !ok {
                return Err(ContentError::DefaultInvalid);
            }
        }
        return Ok(());
    }
    if ty.eq_str("boolean") {
        if default.is_some_and(|d| d.as_bool().is_none()) {
            return Err(ContentError::DefaultInvalid);
        }
        return Ok(());
    }
    if ty.eq_str("array") {
        // Only the enum multi-selects (2025-11-25).
        if !enums {
            return Err(ContentError::NotInVersion);
        }
        let items = p
            .get("items")
            .filter(|i| i.is_object())
            .ok_or(ContentError::PropertyNotPrimitive)?;
        let options = match (items.get("enum"), items.get("anyOf")) {
            (Some(e), None) => {
                let string_type = items
                    .get("type")
                    .and_then(|t| t.as_str())
                    .is_some_and(|t| t.eq_str("string"));
                if !string_type {
                    return Err(ContentError::PropertyNotPrimitive);
                }
                string_list(e)?;
                Options::Enum(e)
            }
            (None, Some(a)) => {
                titled_list(a)?;
                Options::Titled(a)
            }
            _ => return Err(ContentError::PropertyNotPrimitive),
        };
        let (min, max) = (count_ok(p.get("minItems"))?, count_ok(p.get("maxItems"))?);
        if let (Some(a), Some(b)) = (min, max)
            && a > b
        {
            return Err(ContentError::BoundInvalid);
        }
        if let Some(d) = default {
            if d.kind() != JsonKind::Array {
                return Err(ContentError::DefaultInvalid);
            }
            for e in d.elements() {
                let s = e.as_str().ok_or(ContentError::DefaultInvalid)?;
                if !options.contains(s) {
                    return Err(ContentError::DefaultInvalid);
                }
            }
        }
        return Ok(());
    }
    Err(ContentError::PropertyNotPrimitive)
}

/// The allowed values of an enum property.
#[derive(Clone, Copy)]
enum Options<'a> {
    /// `["a", "b"]`
    Enum(Json<'a>),
    /// `[{"const": "a", "title": ..}, ..]`
    Titled(Json<'a>),
}

impl Options<'_> {
    fn contains(self, s: JsonStr<'_>) -> bool {
        match self {
            Options::Enum(e) => e.elements().any(|x| x.as_str().is_some_and(|x| same(x, s))),
            Options::Titled(t) => t.elements().any(|x| {
                x.get("const")
                    .and_then(|c| c.as_str())
                    .is_some_and(|c| same(c, s))
            }),
        }
    }
}

/// A non-empty array of strings; returns its length.
fn string_list(e: Json<'_>) -> Result<usize, ContentError> {
    if e.kind() != JsonKind::Array {
        return Err(ContentError::EnumInvalid);
    }
    let mut n = 0;
    for x in e.elements() {
        x.as_str().ok_or(ContentError::EnumInvalid)?;
        n += 1;
    }
    if n == 0 {
        return Err(ContentError::EnumInvalid);
    }
    Ok(n)
}

/// A non-empty array of `{const: string, title: string}`.
fn titled_list(o: Json<'_>) -> Result<(), ContentError> {
    if o.kind() != JsonKind::Array || o.elements().next().is_none() {
        return Err(ContentError::EnumInvalid);
    }
    for x in o.elements() {
        let ok = x.get("const").and_then(|c| c.as_str()).is_some()
            && x.get("title").and_then(|c| c.as_str()).is_some();
        if !ok {
            return Err(ContentError::EnumInvalid);
        }
    }
    Ok(())
}

/// Why an accepted elicitation answer does not match the schema asked with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ContentMismatch {
    /// `action` is not `accept`, `decline` or `cancel`, or `content` is not an object.
    Shape,
    /// A property named in `required` is missing.
    MissingRequired,
    /// A value of the wrong type (or a key the schema does not have).
    WrongType,
    /// A value outside its enum, or a multi-select element outside its options.
    NotInEnum,
}

/// Checks an elicitation answer (`ElicitResult`) against the `requestedSchema` it
/// answers: on `accept`, every `required` property is present, every value has its
/// property's type (string, number, integer, boolean, a list of strings for a
/// multi-select) and enum values are among the options. Keys the schema does not have
/// are refused (the client must not add data the user was not asked for). Length,
/// format and number bounds are the host's business (they are user-facing validation
/// the client is asked to do; the SDKs differ on them).
///
/// # Errors
/// The first mismatch.
pub fn check_elicitation_content(
    schema: Json<'_>,
    result: Json<'_>,
) -> Result<(), ContentMismatch> {
    let action = result.get("action").and_then(|a| a.as_str());
    let Some(action) =
        action.filter(|a| ["accept", "decline", "cancel"].iter().any(|k| a.eq_str(k)))
    else {
        return Err(ContentMismatch::Shape);
    };
    if !action.eq_str("accept") {
        return Ok(());
    }
    let props = schema.get("properties").filter(|p| p.is_object());
    let content = match result.get("content") {
        None => Json::EMPTY_OBJECT,
        Some(c) if c.is_object() => c,
        Some(_) => return Err(ContentMismatch::Shape),
    };
    let prop = |name: JsonStr<'_>| props.and_then(|p| p.members().find(|(k, _)| same(*k, name)));
    for (k, value) in content.members() {
        let Some((_, p)) = prop(k) else {
            return Err(ContentMismatch::WrongType);
        };
        check_value(p, value)?;
    }
    if let Some(r) = schema.get("required") {
        for name in r.elements().filter_map(|n| n.as_str()) {
            if !content.members().any(|(k, _)| same(k, name)) {
                return Err(ContentMismatch::MissingRequired);
            }
        }
    }
    Ok(())
}

fn check_value(p: Json<'_>, value: Json<'_>) -> Result<(), ContentMismatch> {
    let ty = p.get("type").and_then(|t| t.as_str());
    let is = |t: &str| ty.is_some_and(|x| x.eq_str(t));
    if is("string") {
        let s = value.as_str().ok_or(ContentMismatch::WrongType)?;
        let options = match (p.get("enum"), p.get("oneOf")) {
            (Some(e), _) => Some(Options::Enum(e)),
            (None, Some(o)) => Some(Options::Titled(o)),
            _ => None,
        };
        if options.is_some_and(|o| !o.contains(s)) {
            return Err(ContentMismatch::NotInEnum);
        }
        return Ok(());
    }
    if is("number") {
        return (value.kind() == JsonKind::Number)
            .then_some(())
            .ok_or(ContentMismatch::WrongType);
    }
    if is("integer") {
        return value
            .is_integer()
            .then_some(())
            .ok_or(ContentMismatch::WrongType);
    }
    if is("boolean") {
        return value
            .as_bool()
            .map(|_| ())
            .ok_or(ContentMismatch::WrongType);
    }
    if is("array") {
        if value.kind() != JsonKind::Array {
            return Err(ContentMismatch::WrongType);
        }
        let items = p.get("items").unwrap_or(Json::EMPTY_OBJECT);
        let options = match (items.get("enum"), items.get("anyOf")) {
            (Some(e), _) => Options::Enum(e),
            (None, Some(a)) => Options::Titled(a),
            _ => return Err(ContentMismatch::WrongType),
        };
        for e in value.elements() {
            let s = e.as_str().ok_or(ContentMismatch::WrongType)?;
            if !options.contains(s) {
                return Err(ContentMismatch::NotInEnum);
            }
        }
        return Ok(());
    }
    Err(ContentMismatch::WrongType)
}

/// True when `sampling/createMessage` params use tools (`tools` or `toolChoice`), which
/// needs the client capability `sampling.tools`.
pub fn sampling_uses_tools(params: Json<'_>) -> bool {
    params.get("tools").is_some() || params.get("toolChoice").is_some()
}

/// Checks the tool parts of `sampling/createMessage` params against revision `v`:
/// `tools` (each with a string `name` and an object `inputSchema`), `toolChoice`
/// (`{mode?: "auto"|"none"|"required"}`), and the `tool_use`/`tool_result` blocks of
/// `messages` (one block or a list per message). Before 2025-11-25 none of them exists.
/// The rest of the params (messages' roles, `maxTokens`) is the receiving host's.
///
/// # Errors
/// The first rule broken.
pub fn check_sampling(params: Json<'_>, v: ProtocolVersion) -> Result<(), ContentError> {
    let tools_ok = v.has(Feature::SamplingTools);
    if let Some(t) = params.get("tools") {
        if !tools_ok || t.kind() != JsonKind::Array {
            return Err(ContentError::ToolsInvalid);
        }
        for tool in t.elements() {
            let ok = tool.get("name").and_then(|n| n.as_str()).is_some()
                && tool.get("inputSchema").is_some_and(|s| s.is_object());
            if !ok {
                return Err(ContentError::ToolsInvalid);
            }
        }
    }
    if let Some(c) = params.get("toolChoice") {
        let mode_ok = c.get("mode").is_none_or(|m| {
            m.as_str()
                .is_some_and(|m| ["auto", "none", "required"].iter().any(|k| m.eq_str(k)))
        });
        if !tools_ok || !c.is_object() || !mode_ok {
            return Err(ContentError::ToolChoiceInvalid);
        }
    }
    let Some(messages) = params
        .get("messages")
        .filter(|m| m.kind() == JsonKind::Array)
    else {
        return Ok(());
    };
    for m in messages.elements() {
        let Some(content) = m.get("content") else {
            continue;
        };
        if content.kind() == JsonKind::Array {
            for block in content.elements() {
                check_block(block, tools_ok)?;
            }
        } else {
            check_block(content, tools_ok)?;
        }
    }
    Ok(())
}

fn check_block(block: Json<'_>, tools_ok: bool) -> Result<(), ContentError> {
    let ty = block.get("type").and_then(|t| t.as_str());
    let s = |k: &str| block.get(k).and_then(|x| x.as_str()).is_some();
    let ok = match ty {
        Some(t) if t.eq_str("tool_use") => {
            tools_ok && s("id") && s("name") && block.get("input").is_some_and(|i| i.is_object())
        }
        Some(t) if t.eq_str("tool_result") => {
            tools_ok
                && s("toolUseId")
                && block
                    .get("content")
                    .is_some_and(|c| c.kind() == JsonKind::Array)
                && block.get("isError").is_none_or(|e| e.as_bool().is_some())
        }
        _ => true,
    };
    ok.then_some(()).ok_or(ContentError::ToolContentInvalid)
}
