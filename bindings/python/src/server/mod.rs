//! `ServerLayer`: the core server application layer (`picomcp::server`) over a
//! `Session`, built from Python definitions.
//!
//! The layer answers the list requests itself (pages, cursors, the fields of the
//! negotiated revision), checks every call (known tool, arguments against the
//! `inputSchema`, URI against resources and templates, required prompt arguments,
//! completable references) and answers what fails; what passes reaches Python as a
//! `Call`. The answers go back through the layer, which shapes them for the revision
//! (structured content checked against the `outputSchema` and also written as text).

mod answer;
mod call;
mod catalog;

use picomcp::json::Json;
use picomcp::server::{Access, CAPABILITIES_MAX, Completion, Handled, Options, ToolResult};
use picomcp::session::{Event as CoreEvent, InboundId};
use pyo3::prelude::*;
use pyo3::types::PyString;

use crate::errors;
use crate::event::Event;
use crate::json::{Codec, validate_object};
use crate::session::{self, Session};

pub(crate) use call::Call;

/// The server application layer of the core: tools, resources, resource templates and
/// prompts as data, checked once here (a broken schema or template raises
/// `ConfigError` now, never at the first call).
///
/// Each definition is a `dict` with the protocol's field names: a tool has `name`,
/// `inputSchema` (default `{"type": "object"}`) and optionally `title`, `description`,
/// `outputSchema`, `annotations`, `icons`, `execution`, `_meta`; a resource `uri`,
/// `name`, `title`, `description`, `mimeType`, `size`, `annotations`, `icons`, `_meta`;
/// a resource template `uriTemplate` and `name` (then as a resource) plus `completable`
/// (the host completes its variables); a prompt `name`, `title`, `description`, `icons`,
/// `_meta` and `arguments` (`name`, `title`, `description`, `required`, `completable`).
/// JSON-valued fields are Python values or `str` holding JSON text.
///
/// Serve a `Session` created with `capabilities` (what is registered implies them) by
/// taking its events with `poll_event(session)` instead of `session.poll_event()`.
#[pyclass(module = "picomcp", frozen)]
pub(crate) struct ServerLayer {
    defs: catalog::Definitions,
    codec: Codec,
    capabilities: String,
}

fn result_error(py: Python<'_>, e: picomcp::server::ResultError) -> PyErr {
    match e {
        picomcp::server::ResultError::Respond(r) => errors::respond(r),
        other => errors::result(py, other),
    }
}

fn id(id: u32) -> InboundId {
    InboundId::from_bits(id)
}

impl ServerLayer {
    /// The core layer (its `ScopePolicy` for the endpoint).
    pub(crate) fn core(&self) -> &picomcp::server::Server<'_> {
        self.defs.server()
    }
}

#[pymethods]
impl ServerLayer {
    /// Checks the definitions. `page_size`: entries per page of a list result;
    /// `list_changed`, `subscribe`, `logging`: what the capabilities declare.
    #[new]
    #[pyo3(signature = (tools=None, resources=None, resource_templates=None, prompts=None, *,
        page_size=100, list_changed=true, subscribe=false, logging=true))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        tools: Option<&Bound<'_, PyAny>>,
        resources: Option<&Bound<'_, PyAny>>,
        resource_templates: Option<&Bound<'_, PyAny>>,
        prompts: Option<&Bound<'_, PyAny>>,
        page_size: usize,
        list_changed: bool,
        subscribe: bool,
        logging: bool,
    ) -> PyResult<Self> {
        let codec = Codec::new(py)?;
        let options = Options {
            page_size,
            list_changed,
            subscribe,
            logging,
            ..Options::DEFAULT
        };
        let defs = catalog::build(
            &codec,
            tools,
            resources,
            resource_templates,
            prompts,
            options,
        )?;
        let mut buf = [0u8; CAPABILITIES_MAX];
        let capabilities = defs
            .server()
            .capabilities(&mut buf)
            .map(|c| c.as_raw().to_owned())
            .unwrap_or_else(|_| "{}".to_owned());
        Ok(ServerLayer {
            defs,
            codec,
            capabilities,
        })
    }

    /// The server capabilities that what is registered implies (for `Session(...)`).
    #[getter]
    fn capabilities(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.codec.value(
            py,
            Json::new(&self.capabilities).unwrap_or(Json::EMPTY_OBJECT),
        )
    }

    /// How many tools, resources, resource templates and prompts there are.
    #[getter]
    fn counts(&self) -> (usize, usize, usize, usize) {
        let c = self.defs.server().catalog();
        (
            c.tools.len(),
            c.resources.len(),
            c.templates.len(),
            c.prompts.len(),
        )
    }

    /// The next event of `session` for the host, through the layer: a `Call`, any other
    /// `Event`, or `None`. The requests the layer answers itself (lists, calls that fail
    /// their checks) produce nothing here.
    ///
    /// `scopes`: the OAuth scopes the caller was granted (`Outcome.principal["scopes"]`
    /// over HTTP with authorization): the lists show only the definitions whose `scopes`
    /// they hold, and a call of any other is answered -32602. `None`: everything.
    #[pyo3(signature = (session, scopes=None))]
    fn poll_event(
        &self,
        py: Python<'_>,
        session: &Bound<'_, Session>,
        scopes: Option<Vec<String>>,
    ) -> PyResult<Option<Py<PyAny>>> {
        // Waits for a session another thread holds (the stdio loop and its rescuer both
        // take events: picomcp._rescue).
        let mut session = session::lock(session)?;
        let server = self.defs.server();
        let names: Vec<&str> = scopes.iter().flatten().map(String::as_str).collect();
        let access = match &scopes {
            None => Access::ALL,
            Some(_) => Access::new(&names, u64::MAX),
        };
        let Session { core, codec, .. } = &mut *session;
        loop {
            let Some((event, mut cmds)) = core.poll_event_split() else {
                return Ok(None);
            };
            let params = match event {
                CoreEvent::Request { params, .. } => params,
                _ => None,
            };
            match server.handle_as(event, &mut cmds, access) {
                Handled::Answered => continue,
                Handled::Call(c) => {
                    let call = Call::copy(py, codec, server, &c, params)?;
                    return Ok(Some(Py::new(py, call)?.into_any()));
                }
                Handled::Event(e) => {
                    let ev = Event::copy(py, codec, e)?;
                    return Ok(Some(Py::new(py, ev)?.into_any()));
                }
            }
        }
    }

    /// Answers the tool call `id` of tool `tool` (`Call.index`): `content` (a list of
    /// content blocks, `dict`s as the protocol writes them), `structured` (a `dict`, or
    /// JSON text: checked against the tool's `outputSchema`, sent as
    /// `structuredContent` and, without `content`, also as a JSON text block),
    /// `is_error` (a tool execution error: `isError: true`), `meta` (`_meta`).
    ///
    /// Raises `ResultError` (nothing sent; answer again) for structured content that
    /// does not match, a missing one, or a block the negotiated revision lacks;
    /// `RespondError`/`QueueFull` when the session refuses.
    #[pyo3(signature = (session, id, tool, content=None, structured=None, *, is_error=false,
        meta=None))]
    #[allow(clippy::too_many_arguments)]
    fn respond_tool(
        &self,
        py: Python<'_>,
        session: &Bound<'_, Session>,
        id: u32,
        tool: usize,
        content: Option<&Bound<'_, PyAny>>,
        structured: Option<&Bound<'_, PyAny>>,
        is_error: bool,
        meta: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        // The values are converted first, then the session is taken (`session::lock`).
        let depth = session::lock(session)?.core.limits().max_depth;
        let owned = content
            .filter(|c| !c.is_none())
            .map(|c| answer::blocks(&self.codec, c, depth))
            .transpose()?;
        let views: Option<Vec<_>> = owned.as_ref().map(|o| o.iter().map(|b| b.view()).collect());
        let structured_text = structured
            .filter(|s| !s.is_none())
            .map(|s| self.object_text(py, s))
            .transpose()?;
        let structured = structured_text
            .as_deref()
            .map(|t| validate_object(t, depth, "structured content"))
            .transpose()?;
        let meta_text = meta
            .filter(|m| !m.is_none())
            .map(|m| self.object_text(py, m))
            .transpose()?;
        let meta = meta_text
            .as_deref()
            .map(|t| validate_object(t, depth, "meta"))
            .transpose()?;
        let mut result = match (structured, views.as_deref()) {
            (Some(s), None) => ToolResult::structured(s),
            (Some(s), Some(blocks)) => ToolResult::structured(s).with_content(blocks),
            (None, blocks) => ToolResult::content(blocks.unwrap_or(&[])),
        };
        if is_error {
            result = result.with_error();
        }
        if let Some(m) = meta {
            result = result.with_meta(m);
        }
        let done = {
            let mut s = session::lock(session)?;
            let mut cmds = s.core.commands();
            self.defs
                .server()
                .respond_tool(&mut cmds, self::id(id), tool, &result)
        };
        done.map_err(|e| result_error(py, e))
    }

    /// Answers the read `id` with `contents`: a list of `{"uri", "mimeType"?, "text"}` or
    /// `{"uri", "mimeType"?, "blob"}` (base64) `dict`s.
    fn respond_read(
        &self,
        session: &Bound<'_, Session>,
        id: u32,
        contents: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        if contents.is_instance_of::<PyString>() {
            return Err(pyo3::exceptions::PyTypeError::new_err(
                "contents must be a list of resource contents",
            ));
        }
        let owned = contents
            .try_iter()?
            .map(|c| answer::contents(&c?))
            .collect::<PyResult<Vec<_>>>()?;
        let views: Vec<_> = owned.iter().map(|c| c.view()).collect();
        let done = {
            let mut s = session::lock(session)?;
            let mut cmds = s.core.commands();
            self.defs
                .server()
                .respond_read(&mut cmds, self::id(id), &views)
        };
        done.map_err(errors::respond)
    }

    /// Answers the prompt `id` of prompt `prompt` (`Call.index`) with `messages`
    /// (`{"role": "user" | "assistant", "content": BLOCK}`); the description comes from
    /// the definition.
    fn respond_prompt(
        &self,
        py: Python<'_>,
        session: &Bound<'_, Session>,
        id: u32,
        prompt: usize,
        messages: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let depth = session::lock(session)?.core.limits().max_depth;
        if messages.is_instance_of::<PyString>() {
            return Err(pyo3::exceptions::PyTypeError::new_err(
                "messages must be a list of prompt messages",
            ));
        }
        let owned = messages
            .try_iter()?
            .map(|m| answer::message(&self.codec, &m?, depth))
            .collect::<PyResult<Vec<_>>>()?;
        let views = answer::message_views(&owned);
        let done = {
            let mut s = session::lock(session)?;
            let mut cmds = s.core.commands();
            self.defs
                .server()
                .respond_prompt(&mut cmds, self::id(id), prompt, &views)
        };
        done.map_err(|e| result_error(py, e))
    }

    /// Answers the completion `id` with `values` (best first; at most 100 are sent, and
    /// `hasMore` is set when there were more), `total` and `has_more`.
    #[pyo3(signature = (session, id, values, total=None, has_more=false))]
    fn respond_completion(
        &self,
        session: &Bound<'_, Session>,
        id: u32,
        values: Vec<String>,
        total: Option<usize>,
        has_more: bool,
    ) -> PyResult<()> {
        let views: Vec<&str> = values.iter().map(String::as_str).collect();
        let completion = Completion {
            values: &views,
            total,
            has_more,
        };
        let done = {
            let mut s = session::lock(session)?;
            let mut cmds = s.core.commands();
            self.defs
                .server()
                .respond_completion(&mut cmds, self::id(id), &completion)
        };
        done.map_err(errors::respond)
    }

    fn __repr__(&self) -> String {
        let (t, r, rt, p) = self.counts();
        format!("<picomcp.ServerLayer tools={t} resources={r} resource_templates={rt} prompts={p}>")
    }
}

impl ServerLayer {
    /// JSON text of a value that must be an object: a Python value, or `str` of JSON text.
    fn object_text(&self, py: Python<'_>, v: &Bound<'_, PyAny>) -> PyResult<String> {
        match v.cast::<PyString>() {
            Ok(s) => Ok(s.to_cow()?.into_owned()),
            Err(_) => self.codec.value_text(py, v),
        }
    }
}
