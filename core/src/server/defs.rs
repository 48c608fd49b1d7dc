//! What a server offers, as data: tools, resources, resource templates and prompts.
//!
//! Every definition borrows its text (`&'a str`), so a table can be a `const` in flash, a
//! `static` built from C strings, or owned strings a binding keeps alive. The JSON parts
//! (`input_schema`, `annotations`, `icons`, `meta`, ...) are JSON text; [`Server::new`]
//! checks each of them once, so a broken schema is an error at start-up, never at the
//! first call.
//!
//! Each type has a `const fn new` with the required fields and `const` builder methods
//! for the optional ones:
//!
//! ```
//! use picomcp::server::Tool;
//! const ECHO: Tool<'static> = Tool::new(
//!     "echo",
//!     r#"{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}"#,
//! )
//! .title("Echo")
//! .description("Returns `text` unchanged.");
//! assert_eq!(ECHO.name, "echo");
//! ```
//!
//! [`Server::new`]: super::Server::new

/// `const` builder methods for optional fields: `name(value)` sets `Some(value)`.
macro_rules! setters {
    ($( $(#[$doc:meta])* $name:ident: $ty:ty, )*) => {
        $(
            $(#[$doc])*
            pub const fn $name(mut self, value: $ty) -> Self {
                self.$name = Some(value);
                self
            }
        )*
    };
}

/// A tool (`tools/list`, `tools/call`).
///
/// Fields a revision does not have are left out of `tools/list` at that revision:
/// `title`, `outputSchema` and `_meta` before 2025-06-18, `annotations` before 2025-03-26,
/// `icons` before 2025-11-25, `execution` outside 2025-11-25.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tool<'a> {
    /// The tool's name (unique in the table).
    pub name: &'a str,
    /// A display name.
    pub title: Option<&'a str>,
    /// What the tool does, for the model.
    pub description: Option<&'a str>,
    /// JSON Schema of the arguments (an object schema), as JSON text. Arguments are
    /// validated against it before the host sees a call ([`crate::schema`]).
    pub input_schema: &'a str,
    /// JSON Schema of `structuredContent`, as JSON text. A tool with an output schema
    /// must answer with structured content that matches it.
    pub output_schema: Option<&'a str>,
    /// `ToolAnnotations` object, as JSON text (`readOnlyHint`, `destructiveHint`, ...).
    pub annotations: Option<&'a str>,
    /// `icons` array, as JSON text.
    pub icons: Option<&'a str>,
    /// `execution` object (2025-11-25, e.g. `{"taskSupport":"forbidden"}`), as JSON text.
    pub execution: Option<&'a str>,
    /// `_meta` object, as JSON text.
    pub meta: Option<&'a str>,
    /// The OAuth scopes a caller needs to see and use it (space-delimited names, e.g.
    /// `"files:write"`); `None` for everyone. Enforced with an [`Access`](super::Access)
    /// (lists hide it, calls are refused; docs/DESIGN.md, "Authorization").
    pub scopes: Option<&'a str>,
}

impl<'a> Tool<'a> {
    /// A tool with a name and an input schema (JSON text).
    pub const fn new(name: &'a str, input_schema: &'a str) -> Self {
        Tool {
            name,
            title: None,
            description: None,
            input_schema,
            output_schema: None,
            annotations: None,
            icons: None,
            execution: None,
            meta: None,
            scopes: None,
        }
    }
    setters! {
        /// With a display name.
        title: &'a str,
        /// With a description.
        description: &'a str,
        /// With an output schema (JSON text).
        output_schema: &'a str,
        /// With annotations (a JSON object).
        annotations: &'a str,
        /// With icons (a JSON array).
        icons: &'a str,
        /// With `execution` (a JSON object).
        execution: &'a str,
        /// With `_meta` (a JSON object).
        meta: &'a str,
        /// Needing these OAuth scopes (space-delimited).
        scopes: &'a str,
    }
}

/// A resource with a fixed URI (`resources/list`, `resources/read`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Resource<'a> {
    /// The URI (unique among resources).
    pub uri: &'a str,
    /// A name.
    pub name: &'a str,
    /// A display name (listed from 2025-06-18 on).
    pub title: Option<&'a str>,
    /// A description.
    pub description: Option<&'a str>,
    /// The MIME type.
    pub mime_type: Option<&'a str>,
    /// The size in bytes, if known.
    pub size: Option<u64>,
    /// `Annotations` object, as JSON text.
    pub annotations: Option<&'a str>,
    /// `icons` array, as JSON text (listed from 2025-11-25 on).
    pub icons: Option<&'a str>,
    /// `_meta` object, as JSON text (listed from 2025-06-18 on).
    pub meta: Option<&'a str>,
    /// The OAuth scopes a caller needs to see and use it (space-delimited names, e.g.
    /// `"files:write"`); `None` for everyone. Enforced with an [`Access`](super::Access)
    /// (lists hide it, calls are refused; docs/DESIGN.md, "Authorization").
    pub scopes: Option<&'a str>,
}

impl<'a> Resource<'a> {
    /// A resource with a URI and a name.
    pub const fn new(uri: &'a str, name: &'a str) -> Self {
        Resource {
            uri,
            name,
            title: None,
            description: None,
            mime_type: None,
            size: None,
            annotations: None,
            icons: None,
            meta: None,
            scopes: None,
        }
    }
    setters! {
        /// With a display name.
        title: &'a str,
        /// With a description.
        description: &'a str,
        /// With a MIME type.
        mime_type: &'a str,
        /// With a size in bytes.
        size: u64,
        /// With annotations (a JSON object).
        annotations: &'a str,
        /// With icons (a JSON array).
        icons: &'a str,
        /// With `_meta` (a JSON object).
        meta: &'a str,
        /// Needing these OAuth scopes (space-delimited).
        scopes: &'a str,
    }
}

/// A family of resources named by an RFC 6570 URI template
/// (`resources/templates/list`, `resources/read`, completion of its variables).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResourceTemplate<'a> {
    /// The URI template ([`crate::uri::UriTemplate`] says which forms match).
    pub uri_template: &'a str,
    /// A name.
    pub name: &'a str,
    /// A display name (listed from 2025-06-18 on).
    pub title: Option<&'a str>,
    /// A description.
    pub description: Option<&'a str>,
    /// The MIME type of the resources it names.
    pub mime_type: Option<&'a str>,
    /// `Annotations` object, as JSON text.
    pub annotations: Option<&'a str>,
    /// `icons` array, as JSON text (listed from 2025-11-25 on).
    pub icons: Option<&'a str>,
    /// `_meta` object, as JSON text (listed from 2025-06-18 on).
    pub meta: Option<&'a str>,
    /// The OAuth scopes a caller needs to see and use it (space-delimited names, e.g.
    /// `"files:write"`); `None` for everyone. Enforced with an [`Access`](super::Access)
    /// (lists hide it, calls are refused; docs/DESIGN.md, "Authorization").
    pub scopes: Option<&'a str>,
    /// The host completes this template's variables (`completion/complete` with a
    /// `ref/resource` naming it reaches the host).
    pub completable: bool,
}

impl<'a> ResourceTemplate<'a> {
    /// A template with a URI template and a name.
    pub const fn new(uri_template: &'a str, name: &'a str) -> Self {
        ResourceTemplate {
            uri_template,
            name,
            title: None,
            description: None,
            mime_type: None,
            annotations: None,
            icons: None,
            meta: None,
            scopes: None,
            completable: false,
        }
    }
    setters! {
        /// With a display name.
        title: &'a str,
        /// With a description.
        description: &'a str,
        /// With a MIME type.
        mime_type: &'a str,
        /// With annotations (a JSON object).
        annotations: &'a str,
        /// With icons (a JSON array).
        icons: &'a str,
        /// With `_meta` (a JSON object).
        meta: &'a str,
        /// Needing these OAuth scopes (space-delimited).
        scopes: &'a str,
    }
    /// The host completes its variables.
    pub const fn completable(mut self) -> Self {
        self.completable = true;
        self
    }
}

/// A prompt (`prompts/list`, `prompts/get`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Prompt<'a> {
    /// The prompt's name (unique in the table).
    pub name: &'a str,
    /// A display name (listed from 2025-06-18 on).
    pub title: Option<&'a str>,
    /// A description.
    pub description: Option<&'a str>,
    /// Its arguments; `prompts/get` without a required one is answered -32602 by the layer.
    pub arguments: &'a [PromptArgument<'a>],
    /// `icons` array, as JSON text (listed from 2025-11-25 on).
    pub icons: Option<&'a str>,
    /// `_meta` object, as JSON text (listed from 2025-06-18 on).
    pub meta: Option<&'a str>,
    /// The OAuth scopes a caller needs to see and use it (space-delimited names, e.g.
    /// `"files:write"`); `None` for everyone. Enforced with an [`Access`](super::Access)
    /// (lists hide it, calls are refused; docs/DESIGN.md, "Authorization").
    pub scopes: Option<&'a str>,
}

impl<'a> Prompt<'a> {
    /// A prompt with a name and no arguments.
    pub const fn new(name: &'a str) -> Self {
        Prompt {
            name,
            title: None,
            description: None,
            arguments: &[],
            icons: None,
            meta: None,
            scopes: None,
        }
    }
    setters! {
        /// With a display name.
        title: &'a str,
        /// With a description.
        description: &'a str,
    }
    /// With arguments.
    pub const fn arguments(mut self, arguments: &'a [PromptArgument<'a>]) -> Self {
        self.arguments = arguments;
        self
    }
    setters! {
        /// With icons (a JSON array).
        icons: &'a str,
        /// With `_meta` (a JSON object).
        meta: &'a str,
        /// Needing these OAuth scopes (space-delimited).
        scopes: &'a str,
    }
}

/// One argument of a [`Prompt`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PromptArgument<'a> {
    /// The argument's name (unique in its prompt).
    pub name: &'a str,
    /// A display name (listed from 2025-06-18 on).
    pub title: Option<&'a str>,
    /// A description.
    pub description: Option<&'a str>,
    /// `prompts/get` must give it.
    pub required: bool,
    /// The host completes its values (`completion/complete` for it reaches the host;
    /// for any other argument the layer answers with no values).
    pub completable: bool,
}

impl<'a> PromptArgument<'a> {
    /// An optional argument.
    pub const fn new(name: &'a str) -> Self {
        PromptArgument {
            name,
            title: None,
            description: None,
            required: false,
            completable: false,
        }
    }
    /// A required argument.
    pub const fn required(mut self) -> Self {
        self.required = true;
        self
    }
    setters! {
        /// With a display name.
        title: &'a str,
        /// With a description.
        description: &'a str,
    }
    /// The host completes its values.
    pub const fn completable(mut self) -> Self {
        self.completable = true;
        self
    }
}

/// Everything a server offers: the four tables (any may be empty).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Catalog<'a> {
    /// Tools.
    pub tools: &'a [Tool<'a>],
    /// Resources with a fixed URI.
    pub resources: &'a [Resource<'a>],
    /// Resource templates.
    pub templates: &'a [ResourceTemplate<'a>],
    /// Prompts.
    pub prompts: &'a [Prompt<'a>],
}

impl Catalog<'static> {
    /// No tables (for `..Catalog::EMPTY` in a `const`).
    pub const EMPTY: Catalog<'static> = Catalog {
        tools: &[],
        resources: &[],
        templates: &[],
        prompts: &[],
    };
}
