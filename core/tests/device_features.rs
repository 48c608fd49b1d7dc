//! The Cargo features a device leaves out to save flash. `tests/run nostd` runs this file
//! in the reduced builds (`--no-default-features --features server,legacy,modern` is the
//! firmware's set); the default build runs the full-build halves.
//!
//! `schema-full`: without it the validator keeps a subset of the
//! keywords (`type`, `enum`, `const`, `properties`, `additionalProperties`, `required`,
//! `items`) and refuses, once, any schema that uses another keyword it knows, so a
//! device build never checks arguments more weakly than it claims to.
//!
//! `scopes`: without it the definitions' scopes are not enforced (no `Access`, no
//! `Server::handle_as`): every caller sees and calls everything, as through
//! `Server::handle` in every build.
//!
//! `templates`, `completions`: without them `Server::new` refuses a resource template or
//! a completable argument (`DefinitionErrorKind::Unsupported`), and `completion/complete`
//! is the host's (no `completions` capability: the core answers -32601).

#![allow(unused_imports, unused_variables, dead_code)]

use picomcp::json::Json;
use picomcp::schema::{Schema, SchemaErrorKind};

/// Keywords outside the subset, each in a schema that is otherwise plain.
const OUTSIDE: &[(&str, &str)] = &[
    (
        r#"{"type":"object","properties":{"a":{"type":"number","minimum":0}}}"#,
        "minimum",
    ),
    (r#"{"type":"number","multipleOf":2}"#, "multipleOf"),
    (r#"{"type":"string","maxLength":3}"#, "maxLength"),
    (
        r#"{"anyOf":[{"type":"string"},{"type":"number"}]}"#,
        "anyOf",
    ),
    (
        r##"{"$defs":{"n":{"type":"number"}},"properties":{"a":{"$ref":"#/$defs/n"}}}"##,
        "$ref",
    ),
    (r#"{"type":"array","uniqueItems":true}"#, "uniqueItems"),
    (r#"{"not":{"type":"null"}}"#, "not"),
];

#[test]
fn the_subset_validates_in_every_build() {
    let s = Schema::new(
        r#"{"type":"object","properties":{"text":{"type":"string","description":"d"},"n":{"type":"integer"},"mode":{"enum":["a","b"]},"v":{"const":1},"list":{"type":"array","items":{"type":"number"}}},"required":["text"],"additionalProperties":false}"#,
    )
    .unwrap();
    let ok = r#"{"text":"x","n":2.0,"mode":"b","v":1.0,"list":[1,2.5]}"#;
    assert!(s.validate(Json::new(ok).unwrap()).is_ok());
    for (bad, message) in [
        (r#"{}"#, r#"(root): missing required property "text""#),
        (r#"{"text":1}"#, "/text: expected a string"),
        (r#"{"text":"x","n":1.5}"#, "/n: expected an integer"),
        (
            r#"{"text":"x","mode":"c"}"#,
            r#"/mode: expected one of ["a","b"]"#,
        ),
        (r#"{"text":"x","v":2}"#, "/v: expected the value 1"),
        (
            r#"{"text":"x","list":[1,"2"]}"#,
            "/list/1: expected a number",
        ),
        (
            r#"{"text":"x","other":0}"#,
            r#"(root): unexpected property "other""#,
        ),
    ] {
        let e = s.validate(Json::new(bad).unwrap()).unwrap_err();
        assert_eq!(e.to_string(), message, "{bad}");
    }
    // A keyword spelled with an escape is the keyword.
    let s = Schema::new(r#"{"typ\u0065":"string"}"#).unwrap();
    assert!(s.validate(Json::new("1").unwrap()).is_err());
    // With `patternProperties` (not supported) `additionalProperties` is not applied.
    let s = Schema::new(
        r#"{"patternProperties":{"^x":{}},"additionalProperties":false,"properties":{"a":{}}}"#,
    )
    .unwrap();
    assert!(s.validate(Json::new(r#"{"b":1}"#).unwrap()).is_ok());
    // `$defs` holds subschemas that apply nowhere by themselves.
    let s = Schema::new(r#"{"$defs":{"n":{"type":"number"}},"type":"string"}"#).unwrap();
    assert!(s.validate(Json::new(r#""x""#).unwrap()).is_ok());
}

#[cfg(not(feature = "schema-full"))]
#[test]
fn without_schema_full_other_keywords_are_refused_once() {
    for (schema, keyword) in OUTSIDE {
        let e = Schema::new(schema).unwrap_err();
        assert_eq!(
            e.kind(),
            SchemaErrorKind::Unsupported { keyword },
            "{schema}"
        );
        assert!(e.pointer().ends_with(keyword), "{schema}: {}", e.pointer());
        assert!(e.to_string().contains("schema-full"), "{e}");
    }
    // Annotations and unknown keywords are still skipped.
    assert!(Schema::new(r#"{"type":"string","title":"t","format":"uri","x-mine":1}"#).is_ok());
}

#[cfg(all(not(feature = "schema-full"), feature = "server"))]
#[test]
fn without_schema_full_a_server_refuses_such_a_tool_at_start_up() {
    use picomcp::server::{Catalog, Options, Server, Tool};
    let tools = [Tool::new(
        "t",
        r#"{"type":"object","properties":{"a":{"type":"number","minimum":0}}}"#,
    )];
    let catalog = Catalog {
        tools: &tools,
        ..Catalog::EMPTY
    };
    let e = Server::new(catalog, Options::DEFAULT).unwrap_err();
    assert!(e.to_string().contains("minimum"), "{e}");
}

#[cfg(feature = "schema-full")]
#[test]
fn with_schema_full_every_keyword_is_applied() {
    for (schema, keyword) in OUTSIDE {
        assert!(Schema::new(schema).is_ok(), "{keyword}: {schema}");
    }
    let s = Schema::new(OUTSIDE[0].0).unwrap();
    let e = s.validate(Json::new(r#"{"a":-1}"#).unwrap()).unwrap_err();
    assert_eq!(e.to_string(), "/a: expected a number >= 0");
}

/// A server session in the 2026-07-28 era: feeds `line`, hands every event to `server`
/// (through `handle` or, with `scopes`, `handle_as` with `granted` over `["admin"]`), and
/// returns what was written and whether a tool call reached the host.
#[cfg(feature = "server")]
fn serve(server: &picomcp::server::Server<'_>, line: &str, granted: Option<u64>) -> (String, bool) {
    use picomcp::server::{Call, Handled};
    use picomcp::session::{Config, Session, StaticStorage};
    let mut caps = [0u8; picomcp::server::CAPABILITIES_MAX];
    let caps = server.capabilities(&mut caps).unwrap();
    let mut config = Config::server("s", "1", caps);
    config.limits.max_line = 2048;
    (config.arena_bytes, config.batch_bytes) = (0, 0);
    let mut mem: StaticStorage<2048, 4096, 4096, 4, 2, 512> = StaticStorage::new();
    let mut session = Session::new(&config, mem.as_storage(), 0).unwrap();
    // Without the modern era: the legacy handshake first, then the request without `_meta`.
    let bytes = if cfg!(feature = "modern") {
        format!("{line}\n")
    } else {
        format!(
            "{INIT}\n{INITIALIZED}\n{}\n",
            line.replace(&format!(",{META}"), "")
        )
    };
    assert_eq!(session.handle_bytes(0, bytes.as_bytes()), bytes.len());
    let mut called = false;
    while let Some((event, mut cmds)) = session.poll_event_split() {
        #[cfg(feature = "scopes")]
        let handled = match granted {
            Some(g) => server.handle_as(
                event,
                &mut cmds,
                picomcp::server::Access::new(&["admin"], g),
            ),
            None => server.handle(event, &mut cmds),
        };
        #[cfg(not(feature = "scopes"))]
        let handled = server.handle(event, &mut cmds);
        if let Handled::Call(Call::Tool(_)) = handled {
            called = true;
        }
    }
    (
        String::from_utf8(session.pending_transmit().to_vec()).unwrap(),
        called,
    )
}

#[cfg(feature = "server")]
const INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
#[cfg(feature = "server")]
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
#[cfg(feature = "server")]
const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

#[cfg(feature = "server")]
#[test]
fn scopes_are_enforced_only_with_the_feature() {
    use picomcp::server::{Catalog, Options, Server, Tool};
    let tools = [Tool::new("secret", r#"{"type":"object"}"#).scopes("admin")];
    let catalog = Catalog {
        tools: &tools,
        ..Catalog::EMPTY
    };
    let server = Server::new(catalog, Options::DEFAULT).unwrap();
    let list =
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{"x":0,{META}}}}}"#);
    let call = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"secret",{META}}}}}"#
    );
    // `handle`: everything allowed, in every build.
    assert!(serve(&server, &list, None).0.contains(r#""name":"secret""#));
    assert!(serve(&server, &call, None).1);
    if cfg!(feature = "scopes") {
        // A grant without `admin` hides the tool and refuses its call; with it, both pass.
        let (out, _) = serve(&server, &list, Some(0));
        assert!(out.contains(r#""tools":[]"#), "{out}");
        let (out, called) = serve(&server, &call, Some(0));
        assert!(!called && out.contains("insufficient scope"), "{out}");
        assert!(serve(&server, &call, Some(1)).1);
    }
}

#[cfg(feature = "server")]
#[test]
fn templates_and_completions_are_refused_at_start_up_without_their_features() {
    use picomcp::server::{
        Catalog, DefinitionErrorKind, Options, Prompt, PromptArgument, ResourceTemplate, Server,
    };
    let templates = [ResourceTemplate::new("file:///{path}", "files")];
    let with_template = Catalog {
        templates: &templates,
        ..Catalog::EMPTY
    };
    let args = [PromptArgument::new("topic").completable()];
    let prompts = [Prompt::new("p").arguments(&args)];
    let with_completion = Catalog {
        prompts: &prompts,
        ..Catalog::EMPTY
    };
    for (catalog, feature, on) in [
        (with_template, "templates", cfg!(feature = "templates")),
        (
            with_completion,
            "completions",
            cfg!(feature = "completions"),
        ),
    ] {
        match Server::new(catalog, Options::DEFAULT) {
            Ok(server) => {
                assert!(on, "{feature}");
                let mut caps = [0u8; picomcp::server::CAPABILITIES_MAX];
                let caps = server.capabilities(&mut caps).unwrap().as_raw();
                assert_eq!(
                    caps.contains("completions"),
                    feature == "completions",
                    "{caps}"
                );
            }
            Err(e) => {
                assert!(!on, "{feature}: {e}");
                assert!(
                    matches!(e.kind, DefinitionErrorKind::Unsupported { feature: f } if f == feature)
                );
                assert!(e.to_string().contains(feature), "{e}");
            }
        }
    }
}
