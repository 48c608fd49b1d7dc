//! `NativeServer`: the core's server application layer (`picomcp::server`) over a
//! catalog that JavaScript gives as JSON text.
//!
//! The layer answers the lists, checks the calls (and answers those that fail) and shapes
//! the answers; this file only owns the definitions, copies calls out as events and reads
//! the answers from their JSON.

use std::cell::RefCell;

use napi::{Env, JsString};
use napi_derive::napi;
use picomcp::json::{Json, JsonKind};
use picomcp::server::{
    CAPABILITIES_MAX, Call, Catalog, CompleteTarget, Completion, Content, Handled, Prompt,
    PromptArgument, ReadTarget, Resource, ResourceTemplate, ResultError, Retry, Server, Text, Tool,
    ToolResult,
};
use picomcp::session::{Event as CoreEvent, EventId, InboundId};

use crate::answer;
use crate::arena::Strings;
use crate::catalog;
use crate::event::{Event, JsonText};
use crate::session::{NativeSession, err, respond, variant};

/// The tables the catalog lives in (what `Catalog` borrows).
struct Tables {
    tools: Box<[Tool<'static>]>,
    resources: Box<[Resource<'static>]>,
    templates: Box<[ResourceTemplate<'static>]>,
    prompts: Box<[Prompt<'static>]>,
    _arguments: Vec<Box<[PromptArgument<'static>]>>,
}

/// A server's definitions, checked once by the core (`Server::new`), served through a
/// `NativeSession` (see `lib/index.js` for the JavaScript-valued wrapper).
///
/// The catalog is JSON text with the protocol's field names (`tools`, `resources`,
/// `resourceTemplates`, `prompts`, and the options `page_size`, `list_changed`,
/// `subscribe`, `logging`), as in `tests/vectors/README.md`.
#[napi]
pub struct NativeServer {
    // `server` borrows `tables`, which borrow `strings` and `text` (as `'static`). Fields
    // drop in declaration order, borrowers first.
    server: Server<'static>,
    _tables: Tables,
    _strings: Box<Strings>,
    _text: Box<str>,
    /// `pollEvents`' text, kept between calls: its capacity stays, so a busy server does
    /// not allocate (and free) a buffer the size of a chunk of input for every chunk,
    /// which leaves the allocator's heap fragmented and the process larger.
    batch: RefCell<String>,
}

/// A borrow as `'static`.
///
/// # Safety
/// `r` must point into a heap allocation that `NativeServer` owns, never mutates and
/// drops only after everything that borrows it (see the struct's field order).
unsafe fn forever<T: ?Sized>(r: &T) -> &'static T {
    // SAFETY: the caller's promise above.
    unsafe { &*(r as *const T) }
}

fn result_error(e: ResultError) -> napi::Error {
    match e {
        ResultError::Respond(r) => respond(r),
        _ => err(&format!("ResultError[{}]", variant(&e)), e),
    }
}

/// A 2026-07-28 call with what its retry carries (the core reads the members: the
/// verified `requestState`, the `inputResponses` object). The request's client
/// capabilities are in `requestInfo` (as the core read them).
fn retry(mut e: Event, params: Json<'_>) -> Event {
    match Retry::of(params) {
        Ok(r) => {
            if r.input_responses.members().next().is_some() {
                e.input_responses_json = Some(r.input_responses.as_raw().to_owned());
            }
            e.request_state = r.request_state.map(|s| s.chars().collect());
        }
        Err(message) => e.retry_error = Some(message.into()),
    }
    e
}

/// What a caller with `scopes` may see and call (`None`: everything).
fn access<'a>(scopes: &Option<Vec<String>>, names: &'a [&'a str]) -> picomcp::server::Access<'a> {
    match scopes {
        None => picomcp::server::Access::ALL,
        Some(_) => picomcp::server::Access::new(names, u64::MAX),
    }
}

/// The JSON object of an answer (text from JavaScript).
fn parse<'t>(text: &'t str, what: &str, kind: JsonKind) -> napi::Result<Json<'t>> {
    let j = Json::new(text).map_err(|e| err("TypeError", format!("{what}: invalid JSON: {e}")))?;
    if j.kind() != kind {
        let expected = if kind == JsonKind::Array {
            "an array"
        } else {
            "an object"
        };
        return Err(err("TypeError", format!("{what} must be {expected}")));
    }
    Ok(j)
}

impl NativeServer {
    /// The core layer (its `ScopePolicy` for the endpoint).
    pub(crate) fn core(&self) -> &Server<'static> {
        &self.server
    }

    /// The tools' definitions (for the endpoint's `Mcp-Param-*` checks).
    pub(crate) fn tools(&self) -> &[Tool<'static>] {
        &self._tables.tools
    }
}

#[napi]
impl NativeServer {
    /// Reads and checks the catalog; a broken definition throws a `ConfigError` naming the
    /// table, the entry and the field.
    #[napi(constructor)]
    pub fn new(catalog_json: String) -> napi::Result<Self> {
        let text = catalog_json.into_boxed_str();
        let strings = Box::<Strings>::default();
        // SAFETY: `text` and `strings` are heap allocations moved into the result and
        // never mutated (the arena only grows, and only here).
        let (t, s) = unsafe { (forever(&*text), forever(&*strings)) };
        let parsed = catalog::parse(t, s)?;
        let arguments: Vec<Box<[PromptArgument<'static>]>> = parsed
            .prompts
            .iter()
            .map(|(_, a)| a.clone().into_boxed_slice())
            .collect();
        let prompts: Box<[Prompt<'static>]> = parsed
            .prompts
            .iter()
            .zip(&arguments)
            .map(|((p, _), a)| Prompt {
                // SAFETY: `arguments` moves into `Tables`; each box's heap slice stays.
                arguments: unsafe { forever(&**a) },
                ..*p
            })
            .collect();
        let tables = Tables {
            tools: parsed.tools.into_boxed_slice(),
            resources: parsed.resources.into_boxed_slice(),
            templates: parsed.templates.into_boxed_slice(),
            prompts,
            _arguments: arguments,
        };
        // SAFETY: the boxed slices move into the result with `tables`; their heap
        // contents never move or change.
        let catalog = unsafe {
            Catalog {
                tools: forever(&*tables.tools),
                resources: forever(&*tables.resources),
                templates: forever(&*tables.templates),
                prompts: forever(&*tables.prompts),
            }
        };
        let server = Server::new(catalog, parsed.options)
            .map_err(|e| err(&format!("ConfigError[{}]", variant(&e.kind)), e))?;
        Ok(NativeServer {
            server,
            _tables: tables,
            _strings: strings,
            _text: text,
            batch: RefCell::new(String::new()),
        })
    }

    /// The server capabilities that what is registered implies (JSON text), for the
    /// session's `capabilitiesJson`.
    #[napi]
    pub fn capabilities_json(&self) -> napi::Result<String> {
        let mut buf = [0u8; CAPABILITIES_MAX];
        let caps = self
            .server
            .capabilities(&mut buf)
            .map_err(|e| err("ConfigError", e))?;
        Ok(caps.as_raw().to_owned())
    }

    /// The next event of `session`, through the layer: lists are answered (an `answered`
    /// event says so: write out `pollTransmit()`), calls that fail their checks too; a
    /// call that passed is a `call` event; anything else is the session's event as is.
    /// `scopes`: the caller's granted OAuth scopes (HTTP with `auth`): the lists hide,
    /// and the calls refuse, what needs others; `null`: everything.
    #[napi]
    pub fn poll_event(
        &self,
        session: &mut NativeSession,
        scopes: Option<Vec<String>>,
    ) -> Option<Event> {
        let names: Vec<&str> = scopes.iter().flatten().map(String::as_str).collect();
        self.next(session, access(&scopes, &names)).map(|(e, _)| e)
    }

    /// Every event `pollEvent` would give now, in order, as the JSON text of an array
    /// (null when there is none): one crossing and one `JSON.parse` for a whole chunk of
    /// input. Each event is the object `ServerLayer.pollEvent` returns (the `…Json` fields
    /// as JSON values under their names without `Json`), except that a call whose
    /// `arguments` are its `params.arguments` leaves them out, so that they are not sent
    /// twice: the last element of the array is the list of those events' indexes (the
    /// JavaScript wrapper puts `arguments` back). The batch ends early after an
    /// `answered` event once the transmit queue holds more than `maxLine` bytes, so that
    /// the next answer always fits: write out `pollTransmit()` and poll again.
    #[napi(ts_return_type = "string | null")]
    pub fn poll_events<'e>(
        &self,
        env: &'e Env,
        session: &mut NativeSession,
        scopes: Option<Vec<String>>,
    ) -> napi::Result<Option<JsString<'e>>> {
        let names: Vec<&str> = scopes.iter().flatten().map(String::as_str).collect();
        let access = access(&scopes, &names);
        let max_line = session.core.limits().max_line;
        let mut batch = self.batch.borrow_mut();
        batch.clear();
        let mut out = JsonText(core::mem::take(&mut *batch));
        let mut same = String::from("[");
        let mut n = 0u32;
        while let Some((ev, in_params)) = self.next(session, access) {
            out.0.push(if n == 0 { '[' } else { ',' });
            ev.write_json(&mut out, in_params);
            if in_params {
                if same.len() > 1 {
                    same.push(',');
                }
                same.push_str(&n.to_string());
            }
            n += 1;
            if ev.kind == "answered" && session.core.pending_transmit().len() > max_line {
                break;
            }
        }
        if n > 0 {
            out.0.push(',');
            out.0.push_str(&same);
            out.0.push_str("]]");
        }
        *batch = out.0;
        if n == 0 {
            return Ok(None);
        }
        env.create_string(batch.as_str()).map(Some)
    }

    /// `poll_event`'s body; true when the event is a call whose `arguments` are its
    /// params' member `arguments`.
    fn next(
        &self,
        session: &mut NativeSession,
        access: picomcp::server::Access<'_>,
    ) -> Option<(Event, bool)> {
        let (event, mut cmds) = session.core.poll_event_split()?;
        let (id, method, params) = match &event {
            CoreEvent::Request { id, method, params } => (Some(*id), Some(*method), *params),
            _ => (None, None, None),
        };
        let mut in_params = false;
        let ev = match self.server.handle_as(event, &mut cmds, access) {
            Handled::Event(e) => return Some((Event::copy(e), false)),
            Handled::Answered => Event {
                kind: "answered".into(),
                ..Event::default()
            },
            Handled::Call(c) => {
                let args = match &c {
                    Call::Tool(t) => Some(t.arguments),
                    Call::Prompt(p) => Some(p.arguments),
                    _ => None,
                };
                let member = params.and_then(|p| p.get("arguments"));
                in_params = matches!((args, member), (Some(a), Some(m)) if core::ptr::eq(a.as_raw(), m.as_raw()));
                self.call(&c)
            }
        };
        let modern = |i: InboundId| cmds.request_info(i).is_some_and(|r| r.modern);
        let ev = match (id, params) {
            (Some(i), Some(p)) if ev.kind == "call" && modern(i) => retry(ev, p),
            _ => ev,
        };
        let ev = Event {
            id: id.map(|i| EventId::Inbound(i).to_bits()),
            method: method.map(|m| m.as_str().into()),
            params_json: params.map(|p| p.as_raw().into()),
            ..ev
        };
        Some((ev, in_params))
    }

    fn call(&self, c: &Call<'_>) -> Event {
        let raw = |j: Json<'_>| Some(j.as_raw().to_owned());
        let text = |t: picomcp::json::JsonStr<'_>| Some(t.chars().collect::<String>());
        let mut e = Event {
            kind: "call".into(),
            ..Event::default()
        };
        match c {
            Call::Tool(t) => {
                e.call = Some("tool".into());
                e.index = Some(t.tool as u32);
                e.arguments_json = raw(t.arguments);
                e.meta_json = t.meta().and_then(raw);
                e.defaults_json = Some(self.defaults(t.tool, t.arguments));
            }
            Call::Read(r) => {
                e.call = Some("read".into());
                let (target, i) = match r.target {
                    ReadTarget::Resource(i) => ("resource", i),
                    ReadTarget::Template(i) => ("template", i),
                };
                e.target = Some(target.into());
                e.index = Some(i as u32);
                e.uri = Some(r.uri().into());
                e.vars = Some(
                    r.vars(&self.server)
                        .map(|v| v.iter().map(|(k, v)| (k.into(), v.into())).collect())
                        .unwrap_or_default(),
                );
            }
            Call::Prompt(p) => {
                e.call = Some("prompt".into());
                e.index = Some(p.prompt as u32);
                e.arguments_json = raw(p.arguments);
            }
            Call::Complete(c) => {
                e.call = Some("complete".into());
                let (target, i) = match c.target {
                    CompleteTarget::Prompt(i) => ("prompt", i),
                    CompleteTarget::Template(i) => ("template", i),
                };
                e.target = Some(target.into());
                e.index = Some(i as u32);
                e.argument = text(c.argument);
                e.value = text(c.value);
                e.context_json = c.context.and_then(raw);
            }
        }
        e
    }

    /// The defaults of the arguments left out, as a JSON object.
    fn defaults(&self, tool: usize, arguments: Json<'_>) -> String {
        let mut out = String::from("{");
        if let Some(schema) = self.server.input_schema(tool) {
            for (name, value) in schema.missing_defaults(arguments) {
                if out.len() > 1 {
                    out.push(',');
                }
                // `name` is a JSON string's text, still escaped: written back as it is.
                out.push('"');
                out.push_str(name.raw());
                out.push_str("\":");
                out.push_str(value.as_raw());
            }
        }
        out.push('}');
        out
    }

    /// Answers the `call` event `id` of tool `tool` with a result
    /// `{content?, structuredContent?, isError?, _meta?}` (JSON text): structured content
    /// is checked against the tool's `outputSchema` and, without `content`, also written
    /// as a JSON text block. A refused answer throws a `ResultError` (nothing was sent).
    #[napi]
    pub fn respond_tool(
        &self,
        session: &mut NativeSession,
        id: u32,
        tool: u32,
        result_json: String,
    ) -> napi::Result<()> {
        let strings = Strings::default();
        let r = parse(&result_json, "tool result", JsonKind::Object)?;
        let blocks = match r.get("content").filter(|c| !c.is_null()) {
            Some(c) => Some(answer::blocks(c, &strings, "content")?),
            None => None,
        };
        let structured = r.get("structuredContent").filter(|s| !s.is_null());
        let mut result = match (structured, &blocks) {
            (Some(s), Some(b)) => ToolResult::structured(s).with_content(b),
            (Some(s), None) => ToolResult::structured(s),
            (None, Some(b)) => ToolResult::content(b),
            (None, None) => ToolResult::content(&[]),
        };
        if r.get("isError").and_then(|e| e.as_bool()) == Some(true) {
            result = result.with_error();
        }
        if let Some(m) = r.get("_meta").filter(|m| !m.is_null()) {
            result = result.with_meta(m);
        }
        let mut cmds = session.core.commands();
        self.server
            .respond_tool(&mut cmds, InboundId::from_bits(id), tool as usize, &result)
            .map_err(result_error)
    }

    /// Answers the `call` event `id` of tool `tool` with one text block holding `text`:
    /// the result `respondTool` makes of `{content: [{type: "text", text}]}` (what a
    /// tool that returns a string gives), without the round trip through JSON text.
    #[napi]
    pub fn respond_tool_text(
        &self,
        session: &mut NativeSession,
        id: u32,
        tool: u32,
        text: String,
    ) -> napi::Result<()> {
        let blocks = [Content::Text(Text::Plain(&text))];
        let mut cmds = session.core.commands();
        self.server
            .respond_tool(
                &mut cmds,
                InboundId::from_bits(id),
                tool as usize,
                &ToolResult::content(&blocks),
            )
            .map_err(result_error)
    }

    /// Answers a `read` call with resource contents: an array of
    /// `{uri, mimeType?, text | blob}` (JSON text).
    #[napi]
    pub fn respond_read(
        &self,
        session: &mut NativeSession,
        id: u32,
        contents_json: String,
    ) -> napi::Result<()> {
        let strings = Strings::default();
        let list = parse(&contents_json, "resource contents", JsonKind::Array)?;
        let contents = list
            .elements()
            .map(|c| answer::contents(c, &strings))
            .collect::<napi::Result<Vec<_>>>()?;
        let mut cmds = session.core.commands();
        self.server
            .respond_read(&mut cmds, InboundId::from_bits(id), &contents)
            .map_err(respond)
    }

    /// Answers a `prompt` call of prompt `prompt` with messages: an array of
    /// `{role, content}` (JSON text); the description comes from the definition.
    #[napi]
    pub fn respond_prompt(
        &self,
        session: &mut NativeSession,
        id: u32,
        prompt: u32,
        messages_json: String,
    ) -> napi::Result<()> {
        let strings = Strings::default();
        let list = parse(&messages_json, "prompt messages", JsonKind::Array)?;
        let messages = list
            .elements()
            .map(|m| answer::message(m, &strings))
            .collect::<napi::Result<Vec<_>>>()?;
        let mut cmds = session.core.commands();
        self.server
            .respond_prompt(
                &mut cmds,
                InboundId::from_bits(id),
                prompt as usize,
                &messages,
            )
            .map_err(result_error)
    }

    /// Answers a `complete` call: the values (at most 100 are sent; `hasMore` is set when
    /// there were more), their total if known.
    #[napi]
    pub fn respond_completion(
        &self,
        session: &mut NativeSession,
        id: u32,
        values: Vec<String>,
        total: Option<f64>,
        has_more: Option<bool>,
    ) -> napi::Result<()> {
        let values: Vec<&str> = values.iter().map(String::as_str).collect();
        let total = match total {
            None => None,
            Some(t) if t.fract() == 0.0 && (0.0..=9_007_199_254_740_991.0).contains(&t) => {
                Some(t as usize)
            }
            Some(_) => {
                return Err(err(
                    "TypeError",
                    "total must be a whole number of at least 0",
                ));
            }
        };
        let completion = Completion {
            values: &values,
            total,
            has_more: has_more.unwrap_or(false),
        };
        let mut cmds = session.core.commands();
        self.server
            .respond_completion(&mut cmds, InboundId::from_bits(id), &completion)
            .map_err(respond)
    }
}
