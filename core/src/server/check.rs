//! The one-time check of a [`Catalog`]: every broken definition is found at start-up.

use core::fmt;

use super::Options;
use super::defs::Catalog;
use crate::json::{Json, JsonKind};
use crate::schema::{Schema, SchemaError};
use crate::uri::{TemplateError, UriTemplate};

/// Which table a [`DefinitionError`] is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Table {
    /// [`Catalog::tools`].
    Tools,
    /// [`Catalog::resources`].
    Resources,
    /// [`Catalog::templates`].
    Templates,
    /// [`Catalog::prompts`].
    Prompts,
    /// [`Options`] (not a table).
    Options,
}

impl Table {
    fn noun(self) -> &'static str {
        match self {
            Table::Tools => "tool",
            Table::Resources => "resource",
            Table::Templates => "resource template",
            Table::Prompts => "prompt",
            Table::Options => "options",
        }
    }
}

/// What is wrong with a definition.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum DefinitionErrorKind {
    /// The name (or URI) is empty.
    EmptyName,
    /// Another entry of the table has the same name (URI, template).
    Duplicate,
    /// A JSON field is not valid JSON.
    InvalidJson,
    /// A JSON field is valid JSON of the wrong kind (an object or array was expected).
    WrongKind,
    /// `inputSchema` or `outputSchema` is not an object schema (`"type": "object"`), as
    /// the specification requires.
    NotObjectSchema,
    /// The schema is not valid.
    Schema(SchemaError),
    /// The URI template is not valid.
    Template(TemplateError),
    /// A prompt argument is named twice or has no name.
    Argument,
    /// [`Options::page_size`] is 0.
    PageSize,
    /// What the definition asks for is compiled out of this build: resource templates
    /// (the core's `templates` feature) or completion (`completions`).
    Unsupported {
        /// The feature that would serve it.
        feature: &'static str,
    },
    /// An `x-mcp-header` annotation of `inputSchema` is invalid (MODERN §13.3).
    #[cfg(feature = "http")]
    HeaderAnnotation(crate::http::params::AnnotationError),
}

/// A definition [`Server::new`](super::Server::new) refuses: where and what.
#[derive(Debug, Clone, Copy)]
pub struct DefinitionError {
    /// The table.
    pub table: Table,
    /// The entry's index in its table.
    pub index: usize,
    /// The field, as the protocol spells it (`inputSchema`, `annotations`, ...).
    pub field: &'static str,
    /// What is wrong.
    pub kind: DefinitionErrorKind,
}

impl fmt::Display for DefinitionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.table == Table::Options {
            return f.write_str("options: page_size must be at least 1");
        }
        write!(f, "{} {}: {}: ", self.table.noun(), self.index, self.field)?;
        match self.kind {
            DefinitionErrorKind::EmptyName => f.write_str("must not be empty"),
            DefinitionErrorKind::Duplicate => f.write_str("used by an earlier entry too"),
            DefinitionErrorKind::InvalidJson => f.write_str("not valid JSON"),
            DefinitionErrorKind::WrongKind => {
                f.write_str("wrong JSON kind (object or array expected)")
            }
            DefinitionErrorKind::NotObjectSchema => {
                f.write_str("must be an object schema (\"type\": \"object\")")
            }
            DefinitionErrorKind::Schema(e) => write!(f, "invalid schema: {e}"),
            DefinitionErrorKind::Template(e) => write!(f, "invalid URI template: {e}"),
            DefinitionErrorKind::Argument => f.write_str("an argument is unnamed or named twice"),
            DefinitionErrorKind::PageSize => f.write_str("page_size must be at least 1"),
            DefinitionErrorKind::Unsupported { feature } => write!(
                f,
                "not supported by this build (the core's `{feature}` feature)"
            ),
            #[cfg(feature = "http")]
            DefinitionErrorKind::HeaderAnnotation(e) => write!(f, "{e}"),
        }
    }
}

impl core::error::Error for DefinitionError {}

/// Checks everything; the first error.
pub(super) fn catalog(c: &Catalog<'_>, o: &Options) -> Result<(), DefinitionError> {
    if o.page_size == 0 {
        return Err(DefinitionError {
            table: Table::Options,
            index: 0,
            field: "page_size",
            kind: DefinitionErrorKind::PageSize,
        });
    }
    for (i, t) in c.tools.iter().enumerate() {
        let at = at(Table::Tools, i);
        name(t.name, "name", &at)?;
        if c.tools[..i].iter().any(|o| o.name == t.name) {
            return Err(at("name", DefinitionErrorKind::Duplicate));
        }
        object_schema(t.input_schema, "inputSchema", &at)?;
        // The Mcp-Param-* headers the schema asks for (MODERN §13.3).
        #[cfg(feature = "http")]
        crate::http::params::check_schema(Json::from_validated(t.input_schema))
            .map_err(|e| at("inputSchema", DefinitionErrorKind::HeaderAnnotation(e)))?;
        if let Some(s) = t.output_schema {
            object_schema(s, "outputSchema", &at)?;
        }
        json(t.annotations, JsonKind::Object, "annotations", &at)?;
        json(t.icons, JsonKind::Array, "icons", &at)?;
        json(t.execution, JsonKind::Object, "execution", &at)?;
        json(t.meta, JsonKind::Object, "_meta", &at)?;
    }
    for (i, r) in c.resources.iter().enumerate() {
        let at = at(Table::Resources, i);
        name(r.uri, "uri", &at)?;
        name(r.name, "name", &at)?;
        if c.resources[..i].iter().any(|o| o.uri == r.uri) {
            return Err(at("uri", DefinitionErrorKind::Duplicate));
        }
        json(r.annotations, JsonKind::Object, "annotations", &at)?;
        json(r.icons, JsonKind::Array, "icons", &at)?;
        json(r.meta, JsonKind::Object, "_meta", &at)?;
    }
    for (i, t) in c.templates.iter().enumerate() {
        let at = at(Table::Templates, i);
        if !cfg!(feature = "templates") {
            return Err(at("uriTemplate", unsupported("templates")));
        }
        if t.completable && !cfg!(feature = "completions") {
            return Err(at("completable", unsupported("completions")));
        }
        name(t.uri_template, "uriTemplate", &at)?;
        name(t.name, "name", &at)?;
        UriTemplate::new(t.uri_template)
            .map_err(|e| at("uriTemplate", DefinitionErrorKind::Template(e)))?;
        if c.templates[..i]
            .iter()
            .any(|o| o.uri_template == t.uri_template)
        {
            return Err(at("uriTemplate", DefinitionErrorKind::Duplicate));
        }
        json(t.annotations, JsonKind::Object, "annotations", &at)?;
        json(t.icons, JsonKind::Array, "icons", &at)?;
        json(t.meta, JsonKind::Object, "_meta", &at)?;
    }
    for (i, p) in c.prompts.iter().enumerate() {
        let at = at(Table::Prompts, i);
        name(p.name, "name", &at)?;
        if c.prompts[..i].iter().any(|o| o.name == p.name) {
            return Err(at("name", DefinitionErrorKind::Duplicate));
        }
        for (j, a) in p.arguments.iter().enumerate() {
            if a.name.is_empty() || p.arguments[..j].iter().any(|o| o.name == a.name) {
                return Err(at("arguments", DefinitionErrorKind::Argument));
            }
            if a.completable && !cfg!(feature = "completions") {
                return Err(at("arguments", unsupported("completions")));
            }
        }
        json(p.icons, JsonKind::Array, "icons", &at)?;
        json(p.meta, JsonKind::Object, "_meta", &at)?;
    }
    Ok(())
}

fn unsupported(feature: &'static str) -> DefinitionErrorKind {
    DefinitionErrorKind::Unsupported { feature }
}

type At<'f> = &'f dyn Fn(&'static str, DefinitionErrorKind) -> DefinitionError;

/// The error constructor for entry `index` of `table`.
fn at(table: Table, index: usize) -> impl Fn(&'static str, DefinitionErrorKind) -> DefinitionError {
    move |field, kind| DefinitionError {
        table,
        index,
        field,
        kind,
    }
}

fn name(text: &str, field: &'static str, at: At<'_>) -> Result<(), DefinitionError> {
    if text.is_empty() {
        return Err(at(field, DefinitionErrorKind::EmptyName));
    }
    Ok(())
}

fn json(
    text: Option<&str>,
    kind: JsonKind,
    field: &'static str,
    at: At<'_>,
) -> Result<(), DefinitionError> {
    let Some(text) = text else { return Ok(()) };
    let value = Json::new(text).map_err(|_| at(field, DefinitionErrorKind::InvalidJson))?;
    if value.kind() != kind {
        return Err(at(field, DefinitionErrorKind::WrongKind));
    }
    Ok(())
}

fn object_schema(text: &str, field: &'static str, at: At<'_>) -> Result<(), DefinitionError> {
    let value = Json::new(text).map_err(|_| at(field, DefinitionErrorKind::InvalidJson))?;
    let is_object = value
        .get("type")
        .and_then(|t| t.as_str())
        .is_some_and(|t| t.eq_str("object"));
    if !is_object {
        return Err(at(field, DefinitionErrorKind::NotObjectSchema));
    }
    Schema::from_json(value).map_err(|e| at(field, DefinitionErrorKind::Schema(e)))?;
    Ok(())
}
