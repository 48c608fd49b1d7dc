//! The two errors: [`SchemaError`] (the schema is broken, found once by
//! [`Schema::new`](super::Schema::new)) and [`Invalid`] (an instance does not match).

use core::fmt;

use super::MAX_DEPTH;
use super::pointer::InlineStr;
use crate::json::JsonError;

/// Bytes of JSON Pointer an error keeps; a longer pointer ends with "…".
pub const POINTER_CAPACITY: usize = 128;
/// Bytes of detail (a property name, a constant) an [`Invalid`] keeps; longer ends with "…".
pub const DETAIL_CAPACITY: usize = 64;

/// What is wrong with a schema.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum SchemaErrorKind {
    /// The text is not JSON.
    Json(JsonError),
    /// A schema (the root or a subschema) is neither an object nor a boolean.
    NotASchema,
    /// A keyword's value has the wrong type; `expected` says what it must be.
    KeywordType {
        /// The keyword.
        keyword: &'static str,
        /// What its value must be, in English ("a non-negative integer").
        expected: &'static str,
    },
    /// A `$ref` that does not start with `#` (remote and relative references are not
    /// fetched, so they could never be checked).
    RemoteRef,
    /// A `$ref` to a plain-name fragment (`#foo`, an `$anchor`): not supported.
    AnchorRef,
    /// A local `$ref` whose JSON Pointer names nothing in the document.
    UnresolvedRef,
    /// Subschemas nested deeper than [`MAX_DEPTH`].
    TooDeep,
    /// `$ref` targets outside the subschema tree (under unknown keywords) chain too far
    /// or too often to check.
    RefChainTooLong,
    /// A keyword this build's validator leaves out (the core was built without its
    /// `schema-full` feature; `picomcp::schema`'s module doc lists the subset).
    Unsupported {
        /// The keyword.
        keyword: &'static str,
    },
}

/// A schema [`Schema::new`](super::Schema::new) refused: where (a JSON Pointer into the
/// schema) and what.
#[derive(Clone, Copy)]
pub struct SchemaError {
    pub(crate) at: InlineStr<POINTER_CAPACITY>,
    pub(crate) kind: SchemaErrorKind,
}

impl SchemaError {
    /// The JSON Pointer of the offending value in the schema ("" for the root).
    pub fn pointer(&self) -> &str {
        self.at.as_str()
    }

    /// What is wrong.
    pub fn kind(&self) -> SchemaErrorKind {
        self.kind
    }
}

impl fmt::Debug for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SchemaError({self})")
    }
}

fn fmt_pointer(f: &mut fmt::Formatter<'_>, p: &str) -> fmt::Result {
    if p.is_empty() {
        f.write_str("(root)")
    } else {
        f.write_str(p)
    }
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("schema ")?;
        fmt_pointer(f, self.pointer())?;
        f.write_str(": ")?;
        match self.kind {
            SchemaErrorKind::Json(e) => write!(f, "not valid JSON: {e}"),
            SchemaErrorKind::NotASchema => {
                f.write_str("expected a schema (an object or a boolean)")
            }
            SchemaErrorKind::KeywordType { keyword, expected } => {
                write!(f, "\"{keyword}\" must be {expected}")
            }
            SchemaErrorKind::RemoteRef => {
                f.write_str("only local \"$ref\"s (starting with \"#\") are supported")
            }
            SchemaErrorKind::AnchorRef => f.write_str(
                "\"$ref\" to an anchor name is not supported; use a JSON Pointer (\"#/$defs/...\")",
            ),
            SchemaErrorKind::UnresolvedRef => {
                f.write_str("\"$ref\" does not resolve in this document")
            }
            SchemaErrorKind::TooDeep => {
                write!(f, "subschemas nested deeper than {MAX_DEPTH}")
            }
            SchemaErrorKind::RefChainTooLong => {
                f.write_str("\"$ref\" targets outside the subschema tree chain too far to check")
            }
            SchemaErrorKind::Unsupported { keyword } => write!(
                f,
                "\"{keyword}\" is not supported by this build (the core's `schema-full` feature)"
            ),
        }
    }
}

/// JSON types, as a set (`type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Types(pub(crate) u8);

impl Types {
    pub(crate) const NULL: u8 = 1;
    pub(crate) const BOOLEAN: u8 = 2;
    pub(crate) const OBJECT: u8 = 4;
    pub(crate) const ARRAY: u8 = 8;
    pub(crate) const NUMBER: u8 = 16;
    pub(crate) const STRING: u8 = 32;
    pub(crate) const INTEGER: u8 = 64;

    /// The bit of a type name (a JSON string, escapes decoded).
    pub(crate) fn of_name(v: crate::json::Json<'_>) -> Option<u8> {
        let s = v.as_str()?;
        if let Some(plain) = s.as_plain() {
            return Self::from_name(plain);
        }
        let mut buf = [0u8; 8];
        Self::from_name(s.unescape_into(&mut buf).ok()?)
    }

    /// The set holding the one type `name` ("string", "integer", …).
    pub fn of_str(name: &str) -> Option<Types> {
        Self::from_name(name).map(Types)
    }

    /// Whether every type of `other` is in this set.
    pub fn contains(self, other: Types) -> bool {
        self.0 & other.0 == other.0
    }

    fn from_name(name: &str) -> Option<u8> {
        Some(match name {
            "null" => Self::NULL,
            "boolean" => Self::BOOLEAN,
            "object" => Self::OBJECT,
            "array" => Self::ARRAY,
            "number" => Self::NUMBER,
            "string" => Self::STRING,
            "integer" => Self::INTEGER,
            _ => return None,
        })
    }
}

impl fmt::Display for Types {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const NAMES: [(u8, &str); 7] = [
            (Types::OBJECT, "an object"),
            (Types::ARRAY, "an array"),
            (Types::STRING, "a string"),
            (Types::NUMBER, "a number"),
            (Types::INTEGER, "an integer"),
            (Types::BOOLEAN, "a boolean"),
            (Types::NULL, "null"),
        ];
        let mut bits = self.0;
        if bits & Types::NUMBER != 0 {
            bits &= !Types::INTEGER;
        }
        let total = NAMES.iter().filter(|(b, _)| bits & b != 0).count();
        let mut n = 0;
        for (b, name) in NAMES {
            if bits & b == 0 {
                continue;
            }
            n += 1;
            if n > 1 {
                f.write_str(if n == total { " or " } else { ", " })?;
            }
            f.write_str(name)?;
        }
        Ok(())
    }
}

/// What an instance value failed to be; [`Invalid`]'s `Display` writes it in English.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum Expected {
    /// `type`.
    Type(Types),
    /// `required`: the missing property is the detail.
    Required,
    /// `additionalProperties: false` (or a failing schema): the property is the detail.
    NoAdditional,
    /// `const`: the constant (JSON text) is the detail.
    Const,
    /// `enum`: the values (JSON text) are the detail.
    Enum,
    /// `minimum` (the detail is the bound as written in the schema).
    Minimum(f64),
    /// `maximum`.
    Maximum(f64),
    /// `exclusiveMinimum` (or draft-04 `minimum` with `exclusiveMinimum: true`).
    ExclusiveMinimum(f64),
    /// `exclusiveMaximum` (or its draft-04 form).
    ExclusiveMaximum(f64),
    /// `multipleOf`.
    MultipleOf(f64),
    /// `minLength` (code points).
    MinLength(u64),
    /// `maxLength` (code points).
    MaxLength(u64),
    /// `minItems`.
    MinItems(u64),
    /// `maxItems`.
    MaxItems(u64),
    /// `uniqueItems`: the indices of two equal items.
    UniqueItems(usize, usize),
    /// `minProperties`.
    MinProperties(u64),
    /// `maxProperties`.
    MaxProperties(u64),
    /// `minContains` (or `contains` alone, as 1).
    MinContains(u64),
    /// `maxContains`.
    MaxContains(u64),
    /// `anyOf`: no subschema matched.
    AnyOf,
    /// `oneOf`: the number of subschemas that matched (0, or 2 when more than one).
    OneOf(usize),
    /// `not`: the subschema matched.
    Not,
    /// The boolean schema `false`.
    Nothing,
    /// `dependentRequired`: the missing property is the detail.
    DependentRequired,
    /// `propertyNames`: the failing name is the detail.
    PropertyName,
    /// Nesting (of the instance, of subschemas, or of `$ref` hops) beyond [`MAX_DEPTH`].
    TooDeep,
}

/// Why an instance does not match a [`Schema`](super::Schema): where (a JSON Pointer
/// into the instance), which keyword, and what was expected.
#[derive(Clone, Copy)]
pub struct Invalid {
    pub(crate) at: InlineStr<POINTER_CAPACITY>,
    pub(crate) keyword: &'static str,
    pub(crate) expected: Expected,
    pub(crate) detail: InlineStr<DETAIL_CAPACITY>,
}

impl Invalid {
    /// The JSON Pointer of the failing value in the instance ("" for the instance itself;
    /// cut with "…" past [`POINTER_CAPACITY`] bytes).
    pub fn pointer(&self) -> &str {
        self.at.as_str()
    }

    /// The keyword that failed (`"type"`, `"required"`, …).
    pub fn keyword(&self) -> &'static str {
        self.keyword
    }

    /// What was expected.
    pub fn expected(&self) -> Expected {
        self.expected
    }

    /// The property name or JSON text the message names (empty when there is none).
    pub fn detail(&self) -> &str {
        self.detail.as_str()
    }
}

impl fmt::Debug for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Invalid({self})")
    }
}

impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_pointer(f, self.pointer())?;
        f.write_str(": ")?;
        let d = self.detail();
        match self.expected {
            Expected::Type(t) => write!(f, "expected {t}"),
            Expected::Required => write!(f, "missing required property \"{d}\""),
            Expected::NoAdditional => write!(f, "unexpected property \"{d}\""),
            Expected::Const => write!(f, "expected the value {d}"),
            Expected::Enum => write!(f, "expected one of {d}"),
            #[cfg(feature = "schema-full")]
            Expected::Minimum(_) => write!(f, "expected a number >= {d}"),
            #[cfg(feature = "schema-full")]
            Expected::Maximum(_) => write!(f, "expected a number <= {d}"),
            #[cfg(feature = "schema-full")]
            Expected::ExclusiveMinimum(_) => write!(f, "expected a number > {d}"),
            #[cfg(feature = "schema-full")]
            Expected::ExclusiveMaximum(_) => write!(f, "expected a number < {d}"),
            #[cfg(feature = "schema-full")]
            Expected::MultipleOf(_) => write!(f, "expected a multiple of {d}"),
            #[cfg(feature = "schema-full")]
            Expected::MinLength(n) => write!(f, "expected at least {n} character{}", plural(n)),
            #[cfg(feature = "schema-full")]
            Expected::MaxLength(n) => write!(f, "expected at most {n} character{}", plural(n)),
            #[cfg(feature = "schema-full")]
            Expected::MinItems(n) => write!(f, "expected at least {n} item{}", plural(n)),
            #[cfg(feature = "schema-full")]
            Expected::MaxItems(n) => write!(f, "expected at most {n} item{}", plural(n)),
            #[cfg(feature = "schema-full")]
            Expected::UniqueItems(a, b) => {
                write!(f, "expected unique items (items {a} and {b} are equal)")
            }
            #[cfg(feature = "schema-full")]
            Expected::MinProperties(n) => {
                write!(f, "expected at least {n} propert{}", plural_y(n))
            }
            #[cfg(feature = "schema-full")]
            Expected::MaxProperties(n) => {
                write!(f, "expected at most {n} propert{}", plural_y(n))
            }
            #[cfg(feature = "schema-full")]
            Expected::MinContains(n) => {
                write!(
                    f,
                    "expected at least {n} item{} matching \"contains\"",
                    plural(n)
                )
            }
            #[cfg(feature = "schema-full")]
            Expected::MaxContains(n) => {
                write!(
                    f,
                    "expected at most {n} item{} matching \"contains\"",
                    plural(n)
                )
            }
            #[cfg(feature = "schema-full")]
            Expected::AnyOf => f.write_str("expected to match at least one schema of \"anyOf\""),
            #[cfg(feature = "schema-full")]
            Expected::OneOf(0) => {
                f.write_str("expected to match one schema of \"oneOf\", matched none")
            }
            #[cfg(feature = "schema-full")]
            Expected::OneOf(_) => {
                f.write_str("expected to match exactly one schema of \"oneOf\", matched several")
            }
            #[cfg(feature = "schema-full")]
            Expected::Not => f.write_str("expected not to match the schema of \"not\""),
            Expected::Nothing => f.write_str("no value is allowed here"),
            #[cfg(feature = "schema-full")]
            Expected::DependentRequired => {
                write!(
                    f,
                    "missing property \"{d}\" (required by \"dependentRequired\")"
                )
            }
            #[cfg(feature = "schema-full")]
            Expected::PropertyName => write!(f, "property name \"{d}\" is not allowed"),
            // A literal, not `{MAX_DEPTH}`: no integer formatting in a device's image.
            Expected::TooDeep => f.write_str("nesting deeper than the validator follows (32)"),
            // Only the keywords of `schema-full` fail this way; a build without it never
            // validates them (the checker refused every schema that has them).
            #[cfg(not(feature = "schema-full"))]
            _ => f.write_str("expected something else"),
        }
    }
}

const _: () = assert!(MAX_DEPTH == 32, "the TooDeep message spells MAX_DEPTH");

#[cfg(feature = "schema-full")]
fn plural(n: u64) -> &'static str {
    if n == 1 { "" } else { "s" }
}

#[cfg(feature = "schema-full")]
fn plural_y(n: u64) -> &'static str {
    if n == 1 { "y" } else { "ies" }
}
