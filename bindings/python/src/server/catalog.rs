//! The definitions a Python program hands over, kept as owned text beside the core
//! `Server<'static>` that borrows them.

use picomcp::server::{
    Catalog, Options, Prompt, PromptArgument, Resource, ResourceTemplate, Server, Tool,
};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

use crate::errors::ConfigError;
use crate::json::Codec;

/// Owned text and tables, never changed once built: the core server borrows them.
///
/// Every string lives in its own `Box<str>` and every table in its own `Box<[_]>`: heap
/// allocations that do not move when the vectors holding the boxes grow or when this
/// struct moves.
#[derive(Default)]
struct Owned {
    text: Vec<Box<str>>,
    arguments: Vec<Box<[PromptArgument<'static>]>>,
}

impl Owned {
    /// Keeps `s` and returns a view of it that lives as long as `self`.
    fn keep(&mut self, s: String) -> &'static str {
        let b: Box<str> = s.into_boxed_str();
        let ptr: *const str = &*b;
        self.text.push(b);
        // SAFETY: `ptr` points into the heap allocation of the box just pushed. `Owned`
        // never removes, replaces or mutates a box (it only pushes, while the catalog is
        // built), and moving a `Box` (when `text` grows, or `Owned` moves) does not move
        // its allocation, so the text stays valid and unchanged for as long as `Owned`
        // lives. The `'static` views never leave `Definitions`, which owns both the views
        // (in `server`) and this `Owned`: everything handed to Python is copied out.
        unsafe { &*ptr }
    }

    /// Keeps a table of prompt arguments (see [`Owned::keep`]).
    fn keep_arguments(
        &mut self,
        args: Vec<PromptArgument<'static>>,
    ) -> &'static [PromptArgument<'static>] {
        let b = args.into_boxed_slice();
        let ptr: *const [PromptArgument<'static>] = &*b;
        self.arguments.push(b);
        // SAFETY: as in `keep`: the boxed slice's allocation is never moved, mutated or
        // freed before `Owned` is dropped.
        unsafe { &*ptr }
    }
}

/// A checked core server and everything it borrows.
pub(crate) struct Definitions {
    // Declared (and so dropped) before what it borrows.
    server: Server<'static>,
    _tools: Box<[Tool<'static>]>,
    _resources: Box<[Resource<'static>]>,
    _templates: Box<[ResourceTemplate<'static>]>,
    _prompts: Box<[Prompt<'static>]>,
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
    let tools = tool_table.into_boxed_slice();
    let resources = resource_table.into_boxed_slice();
    let templates = template_table.into_boxed_slice();
    let prompts = prompt_table.into_boxed_slice();
    // SAFETY: the four boxed slices are moved into `Definitions` beside the server that
    // borrows them and are never changed or moved out; moving a `Box` does not move its
    // allocation. Their elements borrow `owned`'s text (see `Owned::keep`).
    let catalog = unsafe {
        Catalog {
            tools: &*(&*tools as *const [Tool<'static>]),
            resources: &*(&*resources as *const [Resource<'static>]),
            templates: &*(&*templates as *const [ResourceTemplate<'static>]),
            prompts: &*(&*prompts as *const [Prompt<'static>]),
        }
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
