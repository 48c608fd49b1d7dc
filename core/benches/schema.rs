//! Argument validation per tools/call for the demo's tool schemas (`picomcp::schema`), with
//! the one-time `Schema::new` check and the instance parse for scale.
//!
//! Run: `cargo bench -p picomcp --bench schema`

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use picomcp::json::Json;
use picomcp::schema::Schema;

/// (name, inputSchema, arguments): the demo's echo and add tools, and the conformance
/// fixture `json_schema_2020_12_tool` (examples/src/bin/picomcp-demo/catalog.rs).
const CASES: &[(&str, &str, &str)] = &[
    (
        "echo",
        r#"{"type":"object","properties":{"text":{"type":"string","description":"The text to return"}},"required":["text"]}"#,
        r#"{"text":"hello"}"#,
    ),
    (
        "add",
        r#"{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}"#,
        r#"{"a":1,"b":2}"#,
    ),
    (
        "json_schema_2020_12_tool",
        r##"{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","$defs":{"address":{"$anchor":"addressDef","type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},"properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"},"contactMethod":{"type":"string","enum":["phone","email"]},"phone":{"type":"string"},"email":{"type":"string"}},"allOf":[{"anyOf":[{"required":["phone"]},{"required":["email"]}]}],"if":{"properties":{"contactMethod":{"const":"phone"}},"required":["contactMethod"]},"then":{"required":["phone"]},"else":{"required":["email"]},"additionalProperties":false}"##,
        r#"{"name":"Ada Lovelace","address":{"street":"12 St James's Square","city":"London"},"contactMethod":"phone","phone":"+44 20 7946 0000"}"#,
    ),
];

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("schema");
    for &(name, schema_text, args) in CASES {
        let schema = Schema::new(schema_text).unwrap();
        let instance = Json::new(args).unwrap();
        assert!(schema.validate(instance).is_ok(), "{name}");
        g.bench_function(format!("validate/{name}"), |b| {
            b.iter(|| black_box(&schema).validate(black_box(instance)).is_ok())
        });
        g.bench_function(format!("parse_args/{name}"), |b| {
            b.iter(|| Json::new(black_box(args)))
        });
        g.bench_function(format!("check_schema/{name}"), |b| {
            b.iter(|| Schema::new(black_box(schema_text)).is_ok())
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
