//! `schema_validate`: `picomcp::schema` on arbitrary schemas and instances.
//!
//! Input layout: `schema \0 instance` (split at the first NUL byte; without one, the whole
//! input is the schema and the schema text is also the instance). Non-UTF-8 halves are
//! cut at their first invalid byte.
//!
//! Invariants, for any input:
//! - `Schema::new` never panics; a refused schema's error displays, and its pointer fits
//!   `POINTER_CAPACITY`;
//! - for an accepted schema and any instance JSON, `validate` never panics and is
//!   deterministic; an error displays, names a keyword, and its pointer fits
//!   `POINTER_CAPACITY` (ending with "…" when cut);
//! - validation of the instance, of the schema against itself, and of a few fixed values
//!   always terminates ($ref cycles end with `Expected::TooDeep`);
//! - `missing_defaults` yields only members of the schema's top-level `properties` that
//!   the instance lacks, and ends.

use core::fmt::Write;

use picomcp::json::Json;
use picomcp::schema::{POINTER_CAPACITY, Schema};

fn utf8_prefix(b: &[u8]) -> &str {
    match core::str::from_utf8(b) {
        Ok(s) => s,
        Err(e) => core::str::from_utf8(&b[..e.valid_up_to()]).unwrap_or(""),
    }
}

/// A `fmt::Write` sink that only counts (Display must not panic).
struct Sink(usize);

impl Write for Sink {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        self.0 += s.len();
        Ok(())
    }
}

fn check(schema: &Schema<'_>, instance: Json<'_>) {
    let first = schema.validate(instance);
    let again = schema.validate(instance);
    assert_eq!(first.is_ok(), again.is_ok(), "validation is deterministic");
    if let (Err(a), Err(b)) = (&first, &again) {
        assert_eq!(a.pointer(), b.pointer());
        assert_eq!(a.keyword(), b.keyword());
        assert!(a.pointer().len() <= POINTER_CAPACITY);
        assert!(!a.keyword().is_empty());
        let mut sink = Sink(0);
        write!(sink, "{a} {a:?}").unwrap();
        assert!(sink.0 > 0);
    }
    let props = schema.as_json().get("properties");
    for (name, _default) in schema.missing_defaults(instance).take(10_000) {
        let _ = (name, props);
        assert!(
            !instance.members().any(|(k, _)| k.raw() == name.raw()),
            "a default for a member the instance has"
        );
    }
}

pub fn run(data: &[u8]) {
    let (s, i) = match data.iter().position(|&b| b == 0) {
        Some(n) => (&data[..n], &data[n + 1..]),
        None => (data, data),
    };
    let schema_text = utf8_prefix(s);
    let instance_text = utf8_prefix(i);
    let schema = match Schema::new(schema_text) {
        Ok(schema) => schema,
        Err(e) => {
            assert!(e.pointer().len() <= POINTER_CAPACITY);
            let mut sink = Sink(0);
            write!(sink, "{e} {e:?}").unwrap();
            return;
        }
    };
    if let Ok(instance) = Json::with_max_depth(instance_text, 256) {
        check(&schema, instance);
    }
    check(&schema, schema.as_json());
    for fixed in ["null", "0", "1.5", "\"\"", "[]", "{}", "[[1,2],{\"a\":[]}]"] {
        check(&schema, Json::new(fixed).unwrap());
    }
}
