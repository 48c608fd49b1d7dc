//! JSON Schema validation without a heap: a draft 2020-12 subset (also reading draft-07
//! `definitions`, tuple `items` and draft-04 boolean `exclusiveMinimum`/`exclusiveMaximum`),
//! checked once by [`Schema::new`] and then interpreted lazily from its text on every
//! [`Schema::validate`].
//!
//! ```
//! use picomcp::json::Json;
//! use picomcp::schema::Schema;
//! let schema = Schema::new(r#"{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}"#).unwrap();
//! assert!(schema.validate(Json::new(r#"{"text":"hello"}"#).unwrap()).is_ok());
//! let err = schema.validate(Json::new(r#"{"text":7}"#).unwrap()).unwrap_err();
//! assert_eq!(err.to_string(), "/text: expected a string");
//! let err = schema.validate(Json::new("{}").unwrap()).unwrap_err();
//! assert_eq!(err.to_string(), r#"(root): missing required property "text""#);
//! ```
//!
//! # Keywords
//! Applied: `type` (a name or a list; `integer` accepts `1.0`), `enum`, `const` (semantic
//! equality: `1 == 1.0`, member order irrelevant, strings compared unescaped), `minimum`,
//! `maximum`, `exclusiveMinimum`, `exclusiveMaximum` (numbers; booleans in the draft-04
//! sense, modifying `minimum`/`maximum`), `multipleOf` (exact for integers; otherwise the
//! quotient must be within a relative 1e-12 of a whole number), `minLength`/`maxLength`
//! (Unicode code points), `properties`, `additionalProperties`, `required`,
//! `minProperties`, `maxProperties`, `dependentRequired`, `dependentSchemas`,
//! `propertyNames`, `items` (a schema; or a list = draft-07 tuple form, with
//! `additionalItems`), `prefixItems`, `minItems`, `maxItems`, `uniqueItems`, `contains`
//! with `minContains`/`maxContains`, `allOf`, `anyOf`, `oneOf`, `not`,
//! `if`/`then`/`else`, `$ref` (local JSON Pointers), `$defs`/`definitions`, the boolean
//! schemas `true` and `false`.
//!
//! Ignored (annotations): `title`, `description`, `default` (see
//! [`Schema::missing_defaults`]), `examples`, `format`, `$comment`, `$schema`, `$id`,
//! `$anchor`, `readOnly`, `writeOnly`, `deprecated`, `contentMediaType`,
//! `contentEncoding`, and any unknown keyword.
//!
//! Not implemented, and ignored as a whole (an instance they would reject is accepted):
//! `pattern`, `patternProperties`, `unevaluatedProperties`, `unevaluatedItems`,
//! `$dynamicRef`/`$dynamicAnchor`, `$recursiveRef`, `dependencies` (draft-07),
//! `contentSchema`, `$vocabulary`. When a schema object has `patternProperties`,
//! its `additionalProperties` is not applied either: which members are "additional"
//! depends on the patterns, and a guess could reject a valid instance.
//!
//! Without the crate's `schema-full` feature (on by default) the validator keeps only
//! `type`, `enum`, `const`, `properties`, `additionalProperties`, `required` and `items`
//! (plus `$defs`/`definitions` and `patternProperties` as above), and [`Schema::new`]
//! refuses a schema with any other keyword of the lists above
//! ([`SchemaErrorKind::Unsupported`]): a device build never checks more weakly than the
//! schema says.
//!
//! `$ref` must be local: `#` or `#` + a JSON Pointer (`~0`, `~1` and percent escapes),
//! anywhere in the document. A remote or relative reference, or a plain-name fragment
//! (`#foo` for an `$anchor`), is a [`SchemaError`]: it could never be checked. References
//! resolve against the document root; a nested `$id` does not change the base. `$ref`
//! applies together with its sibling keywords (2020-12).
//!
//! # Limits
//! Subschema nesting, instance nesting and `$ref` hops together are bounded by
//! [`MAX_DEPTH`]: each subschema applied below the root (through a property, an item, an
//! applicator or a `$ref`) costs one level. A schema nested deeper is a [`SchemaError`];
//! an instance that takes validation deeper (or a `$ref` cycle such as `{"$ref":"#"}`)
//! is [`Invalid`] with [`Expected::TooDeep`]. Each level takes about 0.9 KiB of stack
//! (x86_64, release), about 29 KiB at the bound. Error pointers keep
//! [`POINTER_CAPACITY`] bytes and end with "…" when cut.

mod check;
mod equal;
mod error;
mod keywords;
mod pointer;
mod validate;

pub use equal::MULTIPLE_OF_TOLERANCE;
pub use error::{
    DETAIL_CAPACITY, Expected, Invalid, POINTER_CAPACITY, SchemaError, SchemaErrorKind, Types,
};

use crate::json::{Json, JsonKind, JsonStr, Members};
use pointer::{InlineStr, Resolved, resolve};

/// How deep validation follows subschemas, instance nesting and `$ref` hops (see the
/// module doc, "Limits").
pub const MAX_DEPTH: usize = 32;

/// The JSON nesting [`Schema::new`] accepts in the schema text (a subschema level takes
/// two JSON levels through `properties`).
const MAX_TEXT_DEPTH: usize = 2 * MAX_DEPTH + 8;

/// A JSON Schema (draft 2020-12 subset, also accepting draft-07 `definitions`), checked once.
#[derive(Clone, Copy, Debug)]
pub struct Schema<'a> {
    root: Json<'a>,
}

impl<'a> Schema<'a> {
    /// Checks `text` once: valid JSON, an object or a boolean, every supported keyword has
    /// the type the spec requires (`required` an array of strings, `minimum` a number, …),
    /// every local `$ref` resolves, nesting within [`MAX_DEPTH`].
    ///
    /// # Errors
    /// [`SchemaError`] with the JSON Pointer of the problem in the schema.
    #[allow(
        clippy::result_large_err,
        reason = "no heap: the error carries its JSON Pointer inline (POINTER_CAPACITY bytes)"
    )]
    pub fn new(text: &'a str) -> Result<Schema<'a>, SchemaError> {
        let root = Json::with_max_depth(text, MAX_TEXT_DEPTH).map_err(|e| SchemaError {
            at: InlineStr::new(),
            kind: SchemaErrorKind::Json(e),
        })?;
        Self::from_json(root)
    }

    /// Like [`Schema::new`] for a value already parsed.
    ///
    /// # Errors
    /// [`SchemaError`] with the JSON Pointer of the problem in the schema.
    #[allow(
        clippy::result_large_err,
        reason = "no heap: the error carries its JSON Pointer inline (POINTER_CAPACITY bytes)"
    )]
    pub fn from_json(root: Json<'a>) -> Result<Schema<'a>, SchemaError> {
        check::check(root)?;
        Ok(Schema { root })
    }

    /// A schema [`Schema::new`] already accepted (the server layer checks its tables
    /// once at start-up and re-wraps the text per call).
    #[cfg(feature = "server")]
    pub(crate) fn trusted(root: Json<'a>) -> Schema<'a> {
        Schema { root }
    }

    /// The schema's JSON.
    pub fn as_json(&self) -> Json<'a> {
        self.root
    }

    /// Validates an instance; on error, the first failure found (keywords in document
    /// order).
    ///
    /// # Errors
    /// [`Invalid`]: the instance's JSON Pointer, the keyword and what was expected.
    #[allow(
        clippy::result_large_err,
        reason = "no heap: the error carries its JSON Pointer inline (POINTER_CAPACITY bytes)"
    )]
    pub fn validate(&self, instance: Json<'_>) -> Result<(), Invalid> {
        validate::validate(self.root, self.root, instance, MAX_DEPTH)
    }

    /// Like [`Schema::validate`] with a smaller depth bound (at most [`MAX_DEPTH`]), for
    /// a stack that cannot hold `MAX_DEPTH` levels (about 0.9 KiB each). Without a
    /// recursive `$ref`, validation never goes deeper than the schema's own nesting.
    ///
    /// # Errors
    /// [`Invalid`], with [`Expected::TooDeep`] where the bound is reached.
    #[allow(
        clippy::result_large_err,
        reason = "no heap: the error carries its JSON Pointer inline (POINTER_CAPACITY bytes)"
    )]
    pub fn validate_within(&self, instance: Json<'_>, max_depth: usize) -> Result<(), Invalid> {
        validate::validate(self.root, self.root, instance, max_depth)
    }

    /// The `default` of each top-level property that `instance` (an object) lacks, in
    /// schema order, so that a helper can fill them in. A root that is only a `$ref`
    /// (no `properties` of its own) is followed, and so is a property schema that has no
    /// `default` but a `$ref`. Nothing for an instance that is not an object.
    pub fn missing_defaults<'i>(&self, instance: Json<'i>) -> MissingDefaults<'a, 'i> {
        let mut s = self.root;
        for _ in 0..MAX_DEPTH {
            if s.get("properties").is_some() {
                break;
            }
            match follow(self.root, s) {
                Some(t) => s = t,
                None => break,
            }
        }
        let props = match (instance.kind(), s.get("properties")) {
            (JsonKind::Object, Some(p)) => p.members(),
            _ => Json::EMPTY_OBJECT.members(),
        };
        MissingDefaults {
            root: self.root,
            props,
            instance,
        }
    }
}

/// The target of `s`'s `$ref`, if it has a resolvable one.
fn follow<'a>(root: Json<'a>, s: Json<'a>) -> Option<Json<'a>> {
    match resolve(root, s.get("$ref")?.as_str()?) {
        Resolved::Found(t, _) => Some(t),
        _ => None,
    }
}

/// Iterator of [`Schema::missing_defaults`]: (property name, default value).
#[derive(Clone)]
pub struct MissingDefaults<'a, 'i> {
    root: Json<'a>,
    props: Members<'a>,
    instance: Json<'i>,
}

impl<'a> Iterator for MissingDefaults<'a, '_> {
    type Item = (JsonStr<'a>, Json<'a>);

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let (name, mut ps) = self.props.next()?;
            if self.instance.members().any(|(k, _)| equal::str_eq(k, name)) {
                continue;
            }
            for _ in 0..MAX_DEPTH {
                if let Some(d) = ps.get("default") {
                    return Some((name, d));
                }
                match follow(self.root, ps) {
                    Some(t) => ps = t,
                    None => break,
                }
            }
        }
    }
}
