//! The `schema-full` Cargo feature: without it the validator keeps a subset of the
//! keywords (`type`, `enum`, `const`, `properties`, `additionalProperties`, `required`,
//! `items`) and refuses, once, any schema that uses another keyword it knows, so a
//! device build never checks arguments more weakly than it claims to. `tests/run nostd`
//! runs this file without the feature (`--no-default-features --features
//! server,legacy,modern`, the firmware's set); the default build runs it with it.

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
