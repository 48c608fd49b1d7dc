//! The definitions a Python program hands over, kept as owned text beside the core
//! `Server<'static>` that borrows them.

use core::ptr::NonNull;
use picomcp::server::{
    Catalog, Options, Prompt, PromptArgument, Resource, ResourceTemplate, Server, Tool,
};

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

use crate::errors::ConfigError;
use crate::json::Codec;

/// One allocation lent out as `&'static T` and freed when this is dropped.
///
/// The box is leaked at once (`Box::leak`), so nothing moves or re-borrows it uniquely
/// while the shared views exist; only `drop` turns it back into a box, once, to free it.
struct Kept<T: ?Sized + 'static>(NonNull<T>);

impl<T: ?Sized + 'static> Kept<T> {
    fn new(b: Box<T>) -> (Self, &'static T) {
        let p = NonNull::from(Box::leak(b));
        // SAFETY: `p` is a live, initialised allocation that nothing writes to and that
        // is freed only when this `Kept` is dropped. The view must not outlive the
        // `Kept`: `Definitions` keeps every `Kept` beside the `Server<'static>` holding
        // the views, drops the server first (field order), and never lets a view out
        // (what reaches Python is copied).
        let view = unsafe { p.as_ref() };
        (Kept(p), view)
    }
}

impl<T: ?Sized + 'static> Drop for Kept<T> {
    fn drop(&mut self) {
        // SAFETY: the pointer came from `Box::leak` in `Kept::new` and is freed here
        // only, once; every view of it died with the server dropped before this.
        drop(unsafe { Box::from_raw(self.0.as_ptr()) });
    }
}

// SAFETY: `Kept<T>` owns its allocation like a `Box<T>` and only ever shares it
// read-only, so it may move to and be shared by other threads whenever `T: Sync`.
unsafe impl<T: ?Sized + Sync + 'static> Send for Kept<T> {}
// SAFETY: as above.
unsafe impl<T: ?Sized + Sync + 'static> Sync for Kept<T> {}

/// The text and argument tables the definitions borrow.
#[derive(Default)]
struct Owned {
    text: Vec<Kept<str>>,
    arguments: Vec<Kept<[PromptArgument<'static>]>>,
}

impl Owned {
    /// Keeps `s`; the view lives as long as `self` (see [`Kept`]).
    fn keep(&mut self, s: String) -> &'static str {
        let (kept, view) = Kept::new(s.into_boxed_str());
        self.text.push(kept);
        view
    }

    /// Keeps a table of prompt arguments (see [`Kept`]).
    fn keep_arguments(
        &mut self,
        args: Vec<PromptArgument<'static>>,
    ) -> &'static [PromptArgument<'static>] {
        let (kept, view) = Kept::new(args.into_boxed_slice());
        self.arguments.push(kept);
        view
    }
}

/// A checked core server and everything it borrows.
pub(crate) struct Definitions {
    // Declared (and so dropped) before what it borrows.
    server: Server<'static>,
    _tools: Kept<[Tool<'static>]>,
    _resources: Kept<[Resource<'static>]>,
    _templates: Kept<[ResourceTemplate<'static>]>,
    _prompts: Kept<[Prompt<'static>]>,
    _owned: Owned,
}

impl Definitions {
    /// The core server. Its lifetime is tied to `&self`, so no view outlives the text.
    pub(crate) fn server<'s>(&'s self) -> &'s Server<'s> {
        &self.server
    }
}

/// Reads the members of one definition `dict`.
struct Entry<'py, 'o> {
    codec: &'o Codec,
    owned: &'o mut Owned,
    dict: Bound<'py, PyDict>,
    what: String,
}

impl<'py> Entry<'py, '_> {
    fn get(&self, key: &str) -> PyResult<Option<Bound<'py, PyAny>>> {
        Ok(self.dict.get_item(key)?.filter(|v| !v.is_none()))
    }

    fn text(&mut self, key: &str) -> PyResult<Option<&'static str>> {
        let Some(v) = self.get(key)? else {
            return Ok(None);
        };
        let s = v
            .cast::<PyString>()
            .map_err(|_| PyTypeError::new_err(format!("{}: `{key}` must be a str", self.what)))?;
        Ok(Some(self.owned.keep(s.to_cow()?.into_owned())))
    }

    fn required_text(&mut self, key: &str) -> PyResult<&'static str> {
        self.text(key)?
            .ok_or_else(|| PyValueError::new_err(format!("{}: `{key}` is missing", self.what)))
    }

    /// A JSON-valued member: a Python value (written as compact JSON), or a `str` holding
    /// JSON text (none of these members can be a JSON string).
    fn json(&mut self, key: &str) -> PyResult<Option<&'static str>> {
        let Some(v) = self.get(key)? else {
            return Ok(None);
        };
        let text = match v.cast::<PyString>() {
            Ok(s) => s.to_cow()?.into_owned(),
            Err(_) => self.codec.value_text(v.py(), &v)?,
        };
        Ok(Some(self.owned.keep(text)))
    }

    /// `scopes`: the OAuth scopes needed (a space-delimited `str` or a list of `str`).
    fn scopes(&mut self) -> PyResult<Option<&'static str>> {
        let Some(v) = self.get("scopes")? else {
            return Ok(None);
        };
        let text = match v.cast::<PyString>() {
            Ok(s) => s.to_cow()?.into_owned(),
            Err(_) => v
                .extract::<Vec<String>>()
                .map_err(|_| {
                    PyTypeError::new_err(format!(
                        "{}: `scopes` must be a str or a list of str",
                        self.what
                    ))
                })?
                .join(" "),
        };
        Ok(Some(self.owned.keep(text)))
    }

    fn flag(&self, key: &str) -> PyResult<bool> {
        Ok(match self.get(key)? {
            Some(v) => v.is_truthy()?,
            None => false,
        })
    }
}

fn entries<'py>(
    list: Option<&Bound<'py, PyAny>>,
    table: &str,
) -> PyResult<Vec<Bound<'py, PyDict>>> {
    let Some(list) = list.filter(|l| !l.is_none()) else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for (i, item) in list.try_iter()?.enumerate() {
        let item = item?;
        let d = item
            .cast_into::<PyDict>()
            .map_err(|_| PyTypeError::new_err(format!("{table}[{i}] must be a dict")))?;
        out.push(d);
    }
    Ok(out)
}

/// Builds and checks the tables (protocol field names: `inputSchema`, `uriTemplate`,
/// `mimeType`, `_meta`, ...).
pub(crate) fn build(
    codec: &Codec,
    tools: Option<&Bound<'_, PyAny>>,
    resources: Option<&Bound<'_, PyAny>>,
    templates: Option<&Bound<'_, PyAny>>,
    prompts: Option<&Bound<'_, PyAny>>,
    options: Options,
) -> PyResult<Definitions> {
    let mut owned = Owned::default();
    let mut tool_table = Vec::new();
    for (i, d) in entries(tools, "tools")?.into_iter().enumerate() {
        let mut e = Entry {
            codec,
            owned: &mut owned,
            dict: d,
            what: format!("tools[{i}]"),
        };
        let mut t = Tool::new(e.required_text("name")?, "");
        t.input_schema = e.json("inputSchema")?.unwrap_or(r#"{"type":"object"}"#);
        t.title = e.text("title")?;
        t.description = e.text("description")?;
        t.output_schema = e.json("outputSchema")?;
        t.annotations = e.json("annotations")?;
        t.icons = e.json("icons")?;
        t.execution = e.json("execution")?;
        t.meta = e.json("_meta")?;
        t.scopes = e.scopes()?;
        tool_table.push(t);
    }
    let mut resource_table = Vec::new();
    for (i, d) in entries(resources, "resources")?.into_iter().enumerate() {
        let mut e = Entry {
            codec,
            owned: &mut owned,
            dict: d,
            what: format!("resources[{i}]"),
        };
        let mut r = Resource::new(e.required_text("uri")?, e.required_text("name")?);
        r.title = e.text("title")?;
        r.description = e.text("description")?;
        r.mime_type = e.text("mimeType")?;
        r.size = e.get("size")?.map(|s| s.extract::<u64>()).transpose()?;
        r.annotations = e.json("annotations")?;
        r.icons = e.json("icons")?;
        r.meta = e.json("_meta")?;
        r.scopes = e.scopes()?;
        resource_table.push(r);
    }
    let mut template_table = Vec::new();
    for (i, d) in entries(templates, "resource_templates")?
        .into_iter()
        .enumerate()
    {
        let mut e = Entry {
            codec,
            owned: &mut owned,
            dict: d,
            what: format!("resource_templates[{i}]"),
        };
        let mut t =
            ResourceTemplate::new(e.required_text("uriTemplate")?, e.required_text("name")?);
        t.title = e.text("title")?;
        t.description = e.text("description")?;
        t.mime_type = e.text("mimeType")?;
        t.annotations = e.json("annotations")?;
        t.icons = e.json("icons")?;
        t.meta = e.json("_meta")?;
        t.scopes = e.scopes()?;
        t.completable = e.flag("completable")?;
        template_table.push(t);
    }
    let mut prompt_table = Vec::new();
    for (i, d) in entries(prompts, "prompts")?.into_iter().enumerate() {
        let what = format!("prompts[{i}]");
        let mut e = Entry {
            codec,
            owned: &mut owned,
            dict: d,
            what: what.clone(),
        };
        let mut p = Prompt::new(e.required_text("name")?);
        p.title = e.text("title")?;
        p.description = e.text("description")?;
        p.icons = e.json("icons")?;
        p.meta = e.json("_meta")?;
        p.scopes = e.scopes()?;
        let args = e.get("arguments")?;
        let mut list = Vec::new();
        let arg_what = format!("{what}.arguments");
        for (j, a) in entries(args.as_ref(), &arg_what)?.into_iter().enumerate() {
            let mut e = Entry {
                codec,
                owned: &mut owned,
                dict: a,
                what: format!("{arg_what}[{j}]"),
            };
            let mut arg = PromptArgument::new(e.required_text("name")?);
            arg.title = e.text("title")?;
            arg.description = e.text("description")?;
            arg.required = e.flag("required")?;
            arg.completable = e.flag("completable")?;
            list.push(arg);
        }
        p.arguments = owned.keep_arguments(list);
        prompt_table.push(p);
    }
    let (tools, tools_view) = Kept::new(tool_table.into_boxed_slice());
    let (resources, resources_view) = Kept::new(resource_table.into_boxed_slice());
    let (templates, templates_view) = Kept::new(template_table.into_boxed_slice());
    let (prompts, prompts_view) = Kept::new(prompt_table.into_boxed_slice());
    let catalog = Catalog {
        tools: tools_view,
        resources: resources_view,
        templates: templates_view,
        prompts: prompts_view,
    };
    let server = Server::new(catalog, options).map_err(|e| ConfigError::new_err(e.to_string()))?;
    Ok(Definitions {
        server,
        _tools: tools,
        _resources: resources,
        _templates: templates,
        _prompts: prompts,
        _owned: owned,
    })
}
