//! The firmware's tools, resource and prompt as `const` tables of the core's server layer
//! (`picomcp::server`), and how the layer serves them.
//!
//! This file is compiled twice: into the firmware (`app.rs` serves the tables with
//! `Server::new_unchecked`, a `const`) and into `build.rs` on the host, which checks them
//! with `Server::new` and fails the build on a broken definition, so the image carries
//! neither the catalog check nor the schema checker. It uses nothing but
//! `picomcp::server`, and both builds use the same core features (`Cargo.toml`).

use picomcp::server::{Catalog, Options, Prompt, Resource, Tool};

/// How the layer serves the tables. Its capabilities are exactly what is implemented:
/// `tools`, `resources`, `prompts`; no `listChanged` (the lists never change), no
/// `subscribe`, no `logging` (so the core answers `logging/setLevel` -32601), and no
/// `completions` (nothing is completable).
pub const OPTIONS: Options = Options {
    // Every list fits one page: no cursor is ever handed out, so any cursor is invalid.
    page_size: 16,
    list_changed: false,
    subscribe: false,
    logging: false,
    // The schemas below nest two levels (the object, its properties); each level the
    // validator descends costs stack, so the bound stays small (a deeper schema would
    // fail its calls, never overflow the stack).
    schema_depth: 4,
};

/// Room for `Server::capabilities` of this catalog and these options,
/// `{"tools":{},"resources":{},"prompts":{}}` (41 bytes); start-up fails, with a
/// message, if it ever needs more.
pub const CAPABILITIES_LEN: usize = 48;

pub const ECHO: usize = 0;
pub const ADD: usize = 1;
pub const SIMPLE_TEXT: usize = 2;

/// The tools, in `tools/list` order (the indices above). `add`'s `outputSchema` is
/// listed from 2025-06-18 on; the layer leaves it out before.
const TOOLS: &[Tool<'static>] = &[
    Tool::new(
        "echo",
        r#"{"type":"object","properties":{"text":{"type":"string","description":"The text to return"}},"required":["text"]}"#,
    )
    .description("Returns its text argument unchanged, as one text block."),
    Tool::new(
        "add",
        r#"{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}"#,
    )
    .description("Adds two numbers. The sum comes back as structuredContent {\"sum\": a+b} and as the same JSON in a text block.")
    .output_schema(r#"{"type":"object","properties":{"sum":{"type":"number"}},"required":["sum"]}"#),
    Tool::new("test_simple_text", r#"{"type":"object","properties":{}}"#)
        .description("Returns a simple text response (conformance fixture)."),
];

pub const STATIC_TEXT_URI: &str = "test://static-text";
pub const TEXT_PLAIN: Option<&str> = Some("text/plain");

const RESOURCES: &[Resource<'static>] = &[Resource::new(STATIC_TEXT_URI, "static-text")
    .description("A static text resource (conformance fixture).")
    .mime_type("text/plain")];

const PROMPTS: &[Prompt<'static>] = &[Prompt::new("test_simple_prompt")
    .description("A simple prompt without arguments (conformance fixture).")];

/// Everything the firmware offers (no resource templates).
pub const CATALOG: Catalog<'static> = Catalog {
    tools: TOOLS,
    resources: RESOURCES,
    prompts: PROMPTS,
    ..Catalog::EMPTY
};
