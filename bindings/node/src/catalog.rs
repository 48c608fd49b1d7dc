//! The catalog text (tools, resources, templates, prompts and the layer's options, as
//! JSON with the protocol's field names: `tests/vectors/README.md`) read into the core's
//! definitions, borrowing that text.

use picomcp::json::{Json, JsonKind};
use picomcp::server::{Options, Prompt, PromptArgument, Resource, ResourceTemplate, Tool};

use crate::arena::Strings;
use crate::session::err;

/// The definitions read from a catalog text, before they are tied into a `Catalog`.
pub(crate) struct Parsed<'a> {
    pub tools: Vec<Tool<'a>>,
    pub resources: Vec<Resource<'a>>,
    pub templates: Vec<ResourceTemplate<'a>>,
    /// Each prompt with its arguments (the prompt's own `arguments` is set once they have
    /// a home).
    pub prompts: Vec<(Prompt<'a>, Vec<PromptArgument<'a>>)>,
    pub options: Options,
}

/// A member of `j` read by `f`, or a TypeError naming where.
struct At<'a, 's> {
    obj: Json<'a>,
    path: String,
    strings: &'s Strings,
}

impl<'a> At<'a, 'a> {
    fn bad(&self, key: &str, what: &str) -> napi::Error {
        err(
            "TypeError",
            format!("server catalog: {}.{key} must be {what}", self.path),
        )
    }

    fn string(&self, key: &str) -> napi::Result<Option<&'a str>> {
        match self.obj.get(key) {
            None => Ok(None),
            Some(v) if v.is_null() => Ok(None),
            Some(v) => match v.as_str() {
                Some(s) => Ok(Some(self.strings.text(s))),
                None => Err(self.bad(key, "a string")),
            },
        }
    }

    fn required(&self, key: &str) -> napi::Result<&'a str> {
        self.string(key)?.ok_or_else(|| self.bad(key, "a string"))
    }

    /// A JSON member as its text (the layer checks its kind).
    fn json(&self, key: &str) -> Option<&'a str> {
        self.obj
            .get(key)
            .filter(|v| !v.is_null())
            .map(|v| v.as_raw())
    }

    fn flag(&self, key: &str) -> napi::Result<Option<bool>> {
        match self.obj.get(key) {
            None => Ok(None),
            Some(v) if v.is_null() => Ok(None),
            Some(v) => v
                .as_bool()
                .map(Some)
                .ok_or_else(|| self.bad(key, "a boolean")),
        }
    }

    fn count(&self, key: &str) -> napi::Result<Option<u64>> {
        match self.obj.get(key) {
            None => Ok(None),
            Some(v) if v.is_null() => Ok(None),
            Some(v) => v
                .as_u64()
                .map(Some)
                .ok_or_else(|| self.bad(key, "a whole number of at least 0")),
        }
    }
}

/// The entries of table `key` (absent: none).
fn table<'a>(root: &At<'a, 'a>, key: &str) -> napi::Result<Vec<At<'a, 'a>>> {
    let Some(list) = root.obj.get(key).filter(|v| !v.is_null()) else {
        return Ok(Vec::new());
    };
    if list.kind() != JsonKind::Array {
        return Err(root.bad(key, "an array"));
    }
    list.elements()
        .enumerate()
        .map(|(i, e)| {
            let path = format!("{}.{key}[{i}]", root.path);
            if !e.is_object() {
                return Err(err(
                    "TypeError",
                    format!("server catalog: {path} must be an object"),
                ));
            }
            Ok(At {
                obj: e,
                path,
                strings: root.strings,
            })
        })
        .collect()
}

/// The default `inputSchema`: any object.
const ANY_OBJECT: &str = r#"{"type":"object"}"#;

/// Reads the catalog text; its strings with escapes are decoded into `strings`.
pub(crate) fn parse<'a>(text: &'a str, strings: &'a Strings) -> napi::Result<Parsed<'a>> {
    let obj = Json::new(text)
        .map_err(|e| err("TypeError", format!("server catalog: invalid JSON: {e}")))?;
    if !obj.is_object() {
        return Err(err("TypeError", "server catalog must be a JSON object"));
    }
    let root = At {
        obj,
        path: "catalog".into(),
        strings,
    };
    let mut tools = Vec::new();
    for t in table(&root, "tools")? {
        let mut d = Tool::new(
            t.required("name")?,
            t.json("inputSchema").unwrap_or(ANY_OBJECT),
        );
        d.title = t.string("title")?;
        d.description = t.string("description")?;
        d.output_schema = t.json("outputSchema");
        d.annotations = t.json("annotations");
        d.icons = t.json("icons");
        d.execution = t.json("execution");
        d.meta = t.json("_meta");
        d.scopes = t.string("scopes")?;
        tools.push(d);
    }
    let mut resources = Vec::new();
    for r in table(&root, "resources")? {
        let mut d = Resource::new(r.required("uri")?, r.required("name")?);
        d.title = r.string("title")?;
        d.description = r.string("description")?;
        d.mime_type = r.string("mimeType")?;
        d.size = r.count("size")?;
        d.annotations = r.json("annotations");
        d.icons = r.json("icons");
        d.meta = r.json("_meta");
        d.scopes = r.string("scopes")?;
        resources.push(d);
    }
    let mut templates = Vec::new();
    for r in table(&root, "resourceTemplates")? {
        let mut d = ResourceTemplate::new(r.required("uriTemplate")?, r.required("name")?);
        d.title = r.string("title")?;
        d.description = r.string("description")?;
        d.mime_type = r.string("mimeType")?;
        d.annotations = r.json("annotations");
        d.icons = r.json("icons");
        d.meta = r.json("_meta");
        d.scopes = r.string("scopes")?;
        d.completable = r.flag("completable")?.unwrap_or(false);
        templates.push(d);
    }
    let mut prompts = Vec::new();
    for p in table(&root, "prompts")? {
        let mut d = Prompt::new(p.required("name")?);
        d.title = p.string("title")?;
        d.description = p.string("description")?;
        d.icons = p.json("icons");
        d.meta = p.json("_meta");
        d.scopes = p.string("scopes")?;
        let mut args = Vec::new();
        for a in table(&p, "arguments")? {
            let mut arg = PromptArgument::new(a.required("name")?);
            arg.title = a.string("title")?;
            arg.description = a.string("description")?;
            arg.required = a.flag("required")?.unwrap_or(false);
            arg.completable = a.flag("completable")?.unwrap_or(false);
            args.push(arg);
        }
        prompts.push((d, args));
    }
    let d = Options::DEFAULT;
    let options = Options {
        page_size: root
            .count("page_size")?
            .map_or(d.page_size, |n| usize::try_from(n).unwrap_or(usize::MAX)),
        list_changed: root.flag("list_changed")?.unwrap_or(d.list_changed),
        subscribe: root.flag("subscribe")?.unwrap_or(d.subscribe),
        logging: root.flag("logging")?.unwrap_or(d.logging),
        schema_depth: d.schema_depth,
    };
    Ok(Parsed {
        tools,
        resources,
        templates,
        prompts,
        options,
    })
}
