//! `Call`: an owned copy of one call the core server layer checked and hands to the host.

use picomcp::json::Json;
use picomcp::server::{Call as CoreCall, CompleteTarget, ReadTarget, Server};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::json::Codec;

/// A request the server layer checked and that the host answers, taken from
/// `ServerLayer.poll_event()`: a `tools/call` of a known tool whose arguments match its
/// `inputSchema`, a `resources/read` of a URI that names a resource or matches a
/// template, a `prompts/get` with every required argument, or a `completion/complete`
/// of a completable prompt argument or template variable.
///
/// `kind` says which; the attributes that kind does not have are `None`. Answer with the
/// `ServerLayer.respond_*` method of the kind, passing `id` (and `index` where asked).
#[pyclass(module = "picomcp", frozen, get_all)]
pub(crate) struct Call {
    /// `"tool"`, `"read"`, `"prompt"` or `"complete"`.
    kind: &'static str,
    /// The request's handle (as `Event.id`).
    id: u32,
    /// The wire method (`"tools/call"`, `"resources/read"`, `"prompts/get"`,
    /// `"completion/complete"`).
    method: &'static str,
    /// What the call concerns: `"tool"`, `"resource"`, `"template"` or `"prompt"`.
    target: &'static str,
    /// The index of that definition in its table (as given to `ServerLayer(...)`).
    index: usize,
    /// That definition's name (a tool or prompt name, a resource URI, a URI template).
    name: String,
    /// The request's params, as Python values.
    params: Py<PyAny>,
    /// `tool` and `prompt`: the arguments (a `dict`, `{}` when the request had none).
    arguments: Option<Py<PyAny>>,
    /// `tool`: the `default` of each top-level property of the `inputSchema` that the
    /// arguments lack (a `dict`), for the host to fill in.
    defaults: Option<Py<PyAny>>,
    /// `tool`: the request's `_meta`, if any.
    meta: Option<Py<PyAny>>,
    /// `read`: the URI, decoded from its JSON string.
    uri: Option<String>,
    /// `read`: the template's variables as matched (still percent-encoded), `{}` for a
    /// resource.
    vars: Option<Py<PyAny>>,
    /// `complete`: the argument (or template variable) to complete.
    argument: Option<String>,
    /// `complete`: what the user typed so far.
    value: Option<String>,
    /// `complete`: the request's `context` (`{"arguments": {...}}`), if any.
    context: Option<Py<PyAny>>,
    /// `tool`, `read` and `prompt`: the `inputResponses` of a 2026-07-28 retry (the
    /// answers to an `input_required` result, by key), as sent: a `dict`, or another
    /// value the host refuses (-32602); `None` when absent or `null`. Meaningful only
    /// for a request served under 2026-07-28 (`Session.request_info(id)["modern"]`).
    input_responses: Option<Py<PyAny>>,
    /// `tool`, `read` and `prompt`: the `requestState` of a 2026-07-28 retry (a string;
    /// `None` otherwise). With a `state_key` the core verified and unsealed it before the
    /// call arrived (a tampered, foreign or expired state never gets here); without one
    /// it is whatever the client sent: never trust it then.
    request_state: Option<String>,
}

impl Call {
    /// Copies a core call (its views die with the next session call). `params` are the
    /// request's params, as the event carried them.
    pub(crate) fn copy(
        py: Python<'_>,
        codec: &Codec,
        server: &Server<'_>,
        call: &CoreCall<'_>,
        params: Option<Json<'_>>,
    ) -> PyResult<Self> {
        let params = codec.value(py, params.unwrap_or(Json::EMPTY_OBJECT))?;
        let member = |key: &str| -> PyResult<Option<Py<PyAny>>> {
            let p = params.bind(py);
            Ok(match p.cast::<PyDict>() {
                Ok(d) => d.get_item(key)?.filter(|v| !v.is_none()).map(Bound::unbind),
                Err(_) => None,
            })
        };
        let arguments = || -> PyResult<Py<PyAny>> {
            Ok(match member("arguments")? {
                Some(a) => a,
                None => PyDict::new(py).into_any().unbind(),
            })
        };
        let catalog = server.catalog();
        let mut out = Call {
            kind: "",
            id: call.id().to_bits(),
            method: "",
            target: "",
            index: 0,
            name: String::new(),
            params: params.clone_ref(py),
            arguments: None,
            defaults: None,
            meta: None,
            uri: None,
            vars: None,
            argument: None,
            value: None,
            context: None,
            input_responses: None,
            request_state: None,
        };
        if !matches!(call, CoreCall::Complete(_)) {
            out.input_responses = member("inputResponses")?;
            out.request_state = member("requestState")?.and_then(|s| s.extract(py).ok());
        }
        match call {
            CoreCall::Tool(c) => {
                let defaults = PyDict::new(py);
                if let Some(schema) = server.input_schema(c.tool) {
                    for (name, value) in schema.missing_defaults(c.arguments) {
                        defaults
                            .set_item(name.chars().collect::<String>(), codec.value(py, value)?)?;
                    }
                }
                out.kind = "tool";
                out.method = "tools/call";
                out.target = "tool";
                out.index = c.tool;
                out.name = catalog.tools[c.tool].name.to_owned();
                out.arguments = Some(arguments()?);
                out.defaults = Some(defaults.into_any().unbind());
                out.meta = member("_meta")?;
            }
            CoreCall::Read(c) => {
                let vars = PyDict::new(py);
                if let Some(v) = c.vars(server) {
                    for (name, value) in v.iter() {
                        vars.set_item(name, value)?;
                    }
                }
                out.kind = "read";
                out.method = "resources/read";
                (out.target, out.index, out.name) = match c.target {
                    ReadTarget::Resource(i) => ("resource", i, catalog.resources[i].uri.to_owned()),
                    ReadTarget::Template(i) => {
                        ("template", i, catalog.templates[i].uri_template.to_owned())
                    }
                };
                out.uri = Some(c.uri().to_owned());
                out.vars = Some(vars.into_any().unbind());
            }
            CoreCall::Prompt(c) => {
                out.kind = "prompt";
                out.method = "prompts/get";
                out.target = "prompt";
                out.index = c.prompt;
                out.name = catalog.prompts[c.prompt].name.to_owned();
                out.arguments = Some(arguments()?);
            }
            CoreCall::Complete(c) => {
                out.kind = "complete";
                out.method = "completion/complete";
                (out.target, out.index, out.name) = match c.target {
                    CompleteTarget::Prompt(i) => ("prompt", i, catalog.prompts[i].name.to_owned()),
                    CompleteTarget::Template(i) => {
                        ("template", i, catalog.templates[i].uri_template.to_owned())
                    }
                };
                out.argument = Some(c.argument.chars().collect());
                out.value = Some(c.value.chars().collect());
                out.context = member("context")?;
            }
        }
        Ok(out)
    }
}

#[pymethods]
impl Call {
    fn __repr__(&self, py: Python<'_>) -> String {
        let repr = |o: &Option<Py<PyAny>>| {
            o.as_ref()
                .and_then(|o| o.bind(py).repr().ok())
                .map(|r| r.to_string())
        };
        let mut s = format!(
            "Call(kind={:?}, id={}, target={:?}, index={}, name={:?}",
            self.kind, self.id, self.target, self.index, self.name
        );
        for (k, v) in [
            ("arguments", repr(&self.arguments)),
            ("vars", repr(&self.vars)),
        ] {
            if let Some(v) = v {
                s.push_str(&format!(", {k}={v}"));
            }
        }
        for (k, v) in [
            ("uri", &self.uri),
            ("argument", &self.argument),
            ("value", &self.value),
        ] {
            if let Some(v) = v {
                s.push_str(&format!(", {k}={v:?}"));
            }
        }
        s.push(')');
        s
    }
}
