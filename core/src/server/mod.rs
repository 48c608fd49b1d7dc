//! The server application layer: what a server offers as tables of definitions, and the
//! requests about them answered or checked once, here, for every language.
//!
//! A [`Server`] sits above a [`Session`](crate::session::Session). The host hands it each
//! event; the layer
//!
//! - answers `tools/list`, `resources/list`, `resources/templates/list` and `prompts/list`
//!   itself, a page at a time ([`Options::page_size`], opaque cursors), with only the
//!   fields the negotiated revision has;
//! - checks `tools/call` (the tool exists, the arguments match its `inputSchema`),
//!   `resources/read` (the URI names a resource or matches a template), `prompts/get`
//!   (required arguments given, all of them strings) and `completion/complete` (the
//!   reference exists), and answers what fails as the revision asks;
//! - hands everything that passed to the host as one [`Call`], carrying the index of the
//!   definition it concerns;
//! - shapes the host's answers ([`Server::respond_tool`], [`Server::respond_read`],
//!   [`Server::respond_prompt`], [`Server::respond_completion`]) for the revision:
//!   structured content is validated against the tool's `outputSchema` and also written
//!   as a JSON text block.
//!
//! It owns nothing and allocates nothing: it borrows the host's [`Catalog`] and answers
//! through the session's [`Commands`].
//!
//! ```
//! use picomcp::json::Json;
//! use picomcp::server::{Call, Catalog, Handled, Options, Server, Tool, ToolResult};
//! use picomcp::session::{Config, Session, StaticStorage};
//!
//! const TOOLS: &[Tool<'static>] = &[Tool::new(
//!     "echo",
//!     r#"{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}"#,
//! )];
//! let server = Server::new(Catalog { tools: TOOLS, ..Catalog::default() }, Options::default())
//!     .expect("valid definitions");
//! let mut caps = [0u8; picomcp::server::CAPABILITIES_MAX];
//! let caps = server.capabilities(&mut caps).expect("room");
//! let mut config = Config::server("demo", "1.0", caps);
//! config.limits.max_line = 4096;
//! (config.arena_bytes, config.batch_bytes) = (1024, 1024);
//! let mut mem: StaticStorage<4096, 8192, 8192, 8, 4, 4096> = StaticStorage::new();
//! let mut session = Session::new(&config, mem.as_storage(), 0).unwrap();
//! session.handle_bytes(0, br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
//! "#);
//! while let Some((event, mut cmds)) = session.poll_event_split() {
//!     if let Handled::Call(Call::Tool(call)) = server.handle(event, &mut cmds) {
//!         let text = call.arguments.get("text").and_then(|t| t.as_str()).unwrap();
//!         server.respond_tool(&mut cmds, call.id, call.tool, &ToolResult::text(text)).unwrap();
//!     }
//! }
//! let out = core::str::from_utf8(session.pending_transmit()).unwrap();
//! assert!(out.contains(r#""content":[{"type":"text","text":"hi"}]"#), "{out}");
//! ```

// No heap: schema errors carry their JSON Pointer inline (`crate::schema`), so the layer's
// errors and a read call (an escaped URI's buffer) are a few hundred bytes by design.
#![allow(clippy::result_large_err, clippy::large_enum_variant)]

mod access;
mod call;
mod check;
mod defs;
mod list;
mod message;
mod result;

use crate::json::{Json, JsonWriter};
use crate::protocol::{Feature, Method, ProtocolVersion};
use crate::session::{Commands, Event};

#[cfg(not(feature = "scopes"))]
use access::Access;
#[cfg(feature = "scopes")]
pub use access::{Access, MAX_SCOPES};
pub use call::{
    Call, CompleteCall, CompleteTarget, MAX_ESCAPED_URI, PromptCall, ReadCall, ReadTarget, Retry,
    ToolCall,
};
pub use check::{DefinitionError, DefinitionErrorKind, Table};
pub use defs::{Catalog, Prompt, PromptArgument, Resource, ResourceTemplate, Tool};
pub use result::{
    Completion, Content, PromptMessage, ResourceContents, ResultError, Role, Text, ToolResult,
};

/// Bytes [`Server::capabilities`] needs at most.
pub const CAPABILITIES_MAX: usize = 160;

/// How the layer serves the tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// Definitions per page of a list result (at least 1). Default 100.
    pub page_size: usize,
    /// Declare `listChanged` for the tables that exist (the host announces changes with
    /// [`Session::notify`](crate::session::Session::notify)). Default true.
    pub list_changed: bool,
    /// Declare `resources.subscribe` (the core keeps the subscriptions). Default false.
    pub subscribe: bool,
    /// Declare `logging` (the core answers `logging/setLevel`). Default true.
    pub logging: bool,
    /// How deep argument and structured-content validation may nest (schema levels and
    /// `$ref` hops; [`crate::schema::MAX_DEPTH`] at most). Each level costs about 1 KiB of
    /// stack on 64-bit hosts: a device with a small stack sets a lower bound. Default
    /// `MAX_DEPTH` (32).
    pub schema_depth: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options::DEFAULT
    }
}

impl Options {
    /// The defaults: pages of 100, `listChanged`, logging, no subscriptions.
    pub const DEFAULT: Options = Options {
        page_size: 100,
        list_changed: true,
        subscribe: false,
        logging: true,
        schema_depth: crate::schema::MAX_DEPTH,
    };
}

/// A checked [`Catalog`] and how to serve it. Cheap to copy: it borrows the tables.
#[derive(Debug, Clone, Copy)]
pub struct Server<'a> {
    catalog: Catalog<'a>,
    options: Options,
}

/// The endpoint finds a tool's schema in the layer's tables, so the `Mcp-Param-*` headers
/// their `x-mcp-header` annotations ask for are checked with no list kept by hand
/// ([`EndpointConfig::tools`](crate::http::endpoint::EndpointConfig::tools)).
#[cfg(feature = "http")]
impl crate::http::params::ToolSchemas for Catalog<'_> {
    fn input_schema(&self, tool: crate::json::JsonStr<'_>) -> Option<&str> {
        self.tools
            .iter()
            .find(|t| tool.eq_str(t.name))
            .map(|t| t.input_schema)
    }
}

#[cfg(feature = "http")]
impl crate::http::params::ToolSchemas for Server<'_> {
    fn input_schema(&self, tool: crate::json::JsonStr<'_>) -> Option<&str> {
        self.catalog.input_schema(tool)
    }
}

/// What [`Server::handle`] did with an event.
#[allow(clippy::large_enum_variant)] // see `Call`
#[derive(Debug)]
pub enum Handled<'e> {
    /// The layer answered it (a list, or an error reply to a call that failed its checks).
    Answered,
    /// A call for the host to answer.
    Call(Call<'e>),
    /// Not the layer's: the event, for the host.
    Event(Event<'e>),
}

impl<'a> Server<'a> {
    /// Checks every definition once: names present and unique, JSON parts valid and of
    /// the right kind, schemas valid ([`crate::schema::Schema::new`]), templates valid
    /// ([`crate::uri::UriTemplate::new`]).
    ///
    /// # Errors
    /// The first [`DefinitionError`]: which table, which entry, what is wrong.
    pub fn new(catalog: Catalog<'a>, options: Options) -> Result<Self, DefinitionError> {
        check::catalog(&catalog, &options)?;
        Ok(Server { catalog, options })
    }

    /// A server over tables that [`Server::new`] accepted elsewhere, as a `const`: a
    /// device checks its `const` tables at build time (a build script calling
    /// `Server::new` on the same tables, with the same core features) and carries neither
    /// the catalog check nor the schema checker (about 3.8 KiB of flash on thumbv7em);
    /// the optimiser also sees what the tables lack (templates, completable arguments).
    ///
    /// The caller guarantees that `Server::new(catalog, options)` is `Ok` in this build.
    /// Tables that would fail it are served as written, with unspecified answers (never
    /// undefined behaviour: the core has no `unsafe`). `examples/firmware/build.rs` shows
    /// the build-time check.
    pub const fn new_unchecked(catalog: Catalog<'a>, options: Options) -> Self {
        Server { catalog, options }
    }

    /// The tables.
    pub fn catalog(&self) -> &Catalog<'a> {
        &self.catalog
    }

    /// The options.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// The checked `inputSchema` of tool `tool`: what a helper asks for the defaults to
    /// fill in ([`Schema::missing_defaults`](crate::schema::Schema::missing_defaults)).
    pub fn input_schema(&self, tool: usize) -> Option<crate::schema::Schema<'a>> {
        let t = self.catalog.tools.get(tool)?;
        Some(crate::schema::Schema::trusted(Json::from_validated(
            t.input_schema,
        )))
    }

    /// The server capabilities that what is registered implies, as JSON for
    /// [`Config::server`](crate::session::Config::server): `tools`, `resources`,
    /// `prompts` for the tables that are not empty (with `listChanged` and `subscribe` as
    /// [`Options`] say), `completions` once a prompt argument or template is completable,
    /// `logging` unless turned off.
    ///
    /// # Errors
    /// [`InsufficientSize`](crate::InsufficientSize) when `buf` is shorter than what is
    /// needed ([`CAPABILITIES_MAX`] is always enough).
    pub fn capabilities<'b>(&self, buf: &'b mut [u8]) -> Result<Json<'b>, crate::InsufficientSize> {
        let c = &self.catalog;
        let o = &self.options;
        let mut w = JsonWriter::new(buf);
        w.begin_object();
        let table = |w: &mut JsonWriter<'_>, name: &str, present: bool, subscribe: bool| {
            if present {
                w.key(name);
                w.begin_object();
                if subscribe {
                    w.key("subscribe");
                    w.bool(true);
                }
                if o.list_changed {
                    w.key("listChanged");
                    w.bool(true);
                }
                w.end_object();
            }
        };
        table(&mut w, "tools", !c.tools.is_empty(), false);
        let resources = !c.resources.is_empty() || !c.templates.is_empty();
        table(&mut w, "resources", resources, o.subscribe);
        table(&mut w, "prompts", !c.prompts.is_empty(), false);
        if self.completable() {
            w.key("completions");
            w.begin_object();
            w.end_object();
        }
        if o.logging {
            w.key("logging");
            w.begin_object();
            w.end_object();
        }
        w.end_object();
        let n = w.finish()?;
        let text = core::str::from_utf8(&buf[..n]).unwrap_or("{}");
        Ok(Json::from_validated(text))
    }

    /// Handles one event: answers the list requests, checks the calls and answers those
    /// that fail, and returns the rest.
    ///
    /// An answer the transmit queue has no room for is answered -32603 when even that
    /// fits (the client is never left waiting while there is room to say so); drain the
    /// queue more often if that happens.
    pub fn handle<'e>(&self, event: Event<'e>, cmds: &mut Commands<'_, '_>) -> Handled<'e> {
        self.handle_with(event, cmds, Access::ALL)
    }

    /// [`handle`](Self::handle) for a caller granted `access` (the verified principal of
    /// an HTTP request, [`crate::http::auth::Principal::access`]): the lists show only
    /// the definitions whose scopes it holds, and a `tools/call`, `resources/read` or
    /// `prompts/get` of any other is answered -32602 naming the scopes it needs (the HTTP
    /// endpoint has usually answered it 403 before; this is the check of record).
    #[cfg(feature = "scopes")]
    pub fn handle_as<'e>(
        &self,
        event: Event<'e>,
        cmds: &mut Commands<'_, '_>,
        access: Access<'_>,
    ) -> Handled<'e> {
        self.handle_with(event, cmds, access)
    }

    /// [`handle_as`](Self::handle_as); without the `scopes` feature `access` is a
    /// stand-in that allows everything, and the checks compile away.
    fn handle_with<'e>(
        &self,
        event: Event<'e>,
        cmds: &mut Commands<'_, '_>,
        access: Access<'_>,
    ) -> Handled<'e> {
        let Event::Request { id, method, params } = event else {
            return Handled::Event(event);
        };
        let params = params.unwrap_or(Json::EMPTY_OBJECT);
        let version = cmds.version();
        #[cfg(feature = "scopes")]
        if !access.all {
            let needed = self.required_scopes(method, params);
            if !access.allows(needed) {
                message::insufficient_scope(cmds, id, needed.unwrap_or(""));
                return Handled::Answered;
            }
        }
        let outcome = match method {
            Method::ToolsList => list::page(self, cmds, id, params, self.catalog.tools, access),
            Method::ResourcesList => {
                list::page(self, cmds, id, params, self.catalog.resources, access)
            }
            Method::ResourcesTemplatesList => {
                list::page(self, cmds, id, params, self.catalog.templates, access)
            }
            Method::PromptsList => list::page(self, cmds, id, params, self.catalog.prompts, access),
            Method::ToolsCall => call::tool(self, cmds, id, params, version),
            Method::ResourcesRead => call::read(self, cmds, id, params),
            Method::PromptsGet => call::prompt(self, cmds, id, params),
            // Nothing completable: not the layer's (no `completions` capability; the
            // host answers -32601 in 2024-11-05, which has no capability to gate it).
            #[cfg(feature = "completions")]
            Method::CompletionComplete if self.completable() => {
                call::complete(self, cmds, id, params)
            }
            _ => return Handled::Event(event),
        };
        match outcome {
            Ok(Some(call)) => Handled::Call(call),
            Ok(None) => Handled::Answered,
            Err(e) => {
                message::internal_error(cmds, id, e);
                Handled::Answered
            }
        }
    }
}

impl Server<'_> {
    /// A prompt argument or template is completable (`completions` is declared).
    fn completable(&self) -> bool {
        // Without `completions`, `Server::new` refused any completable definition.
        if !cfg!(feature = "completions") {
            return false;
        }
        let c = &self.catalog;
        c.templates.iter().any(|t| t.completable)
            || c.prompts
                .iter()
                .any(|p| p.arguments.iter().any(|a| a.completable))
    }
}

/// Whether `version` (the negotiated one; none yet counts as the newest) has `f`.
pub(crate) fn has(version: Option<ProtocolVersion>, f: Feature) -> bool {
    version.is_none_or(|v| v.has(f))
}
