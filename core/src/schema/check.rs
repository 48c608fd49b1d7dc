//! The one-time check of a schema ([`Schema::new`](super::Schema::new)): every subschema
//! is an object or a boolean, every keyword the validator acts on has the type the spec
//! requires, every `$ref` resolves, nesting stays within [`MAX_DEPTH`].

// Without `schema-full` the keywords outside the subset are compiled out; what only they
// use stays (unused) rather than gaining a `cfg` of its own.
#![cfg_attr(
    not(feature = "schema-full"),
    allow(dead_code, unused_imports, unused_variables)
)]

use super::MAX_DEPTH;
use super::equal::Num;
use super::error::{POINTER_CAPACITY, SchemaError, SchemaErrorKind, Types};
use super::keywords::{Kw, Shape};
use super::pointer::{InlineStr, Place, Resolved, resolve};
use crate::json::{Json, JsonKind};

/// How many `$ref` targets outside the subschema tree (under unknown keywords, inside
/// `patternProperties`, …) one check follows in all; each is checked as a schema of its
/// own when a `$ref` names it.
pub(crate) const MAX_OFF_TREE_REFS: usize = 64;

struct Checker<'a> {
    root: Json<'a>,
    at: InlineStr<POINTER_CAPACITY>,
    off_tree_budget: usize,
}

type Step = Result<(), SchemaErrorKind>;

/// Checks `root` as a schema.
#[allow(
    clippy::result_large_err,
    reason = "no heap: the error carries its JSON Pointer inline (POINTER_CAPACITY bytes)"
)]
pub(crate) fn check(root: Json<'_>) -> Result<(), SchemaError> {
    let mut c = Checker {
        root,
        at: InlineStr::new(),
        off_tree_budget: MAX_OFF_TREE_REFS,
    };
    c.schema(root, MAX_DEPTH).map_err(|kind| SchemaError {
        at: c.at.finish(),
        kind,
    })
}

fn wrong(keyword: Kw, expected: &'static str) -> SchemaErrorKind {
    SchemaErrorKind::KeywordType {
        keyword: keyword.name(),
        expected,
    }
}

fn is_non_negative_integer(v: Json<'_>) -> bool {
    Num::of(v).is_some_and(|n| n.is_integral() && n.as_f64() >= 0.0)
}

impl<'a> Checker<'a> {
    /// `depth` subschema levels may still be entered below this one.
    fn schema(&mut self, s: Json<'a>, depth: usize) -> Step {
        match s.kind() {
            JsonKind::Bool => return Ok(()),
            JsonKind::Object => {}
            _ => return Err(SchemaErrorKind::NotASchema),
        }
        for (key, value) in s.members() {
            let Some(kw) = Kw::of(key) else { continue };
            let mark = self.at.len();
            self.at.push_token(key);
            if !kw.compiled() {
                return Err(SchemaErrorKind::Unsupported { keyword: kw.name() });
            }
            self.keyword(kw, value, depth)?;
            self.at.truncate(mark);
        }
        Ok(())
    }

    fn sub(&mut self, s: Json<'a>, depth: usize) -> Step {
        let depth = depth.checked_sub(1).ok_or(SchemaErrorKind::TooDeep)?;
        self.schema(s, depth)
    }

    fn keyword(&mut self, kw: Kw, v: Json<'a>, depth: usize) -> Step {
        match kw.shape() {
            Shape::Schema => return self.sub(v, depth),
            Shape::SchemaOrList if v.kind() != JsonKind::Array => return self.sub(v, depth),
            Shape::SchemaOrList | Shape::SchemaList => {
                if v.kind() != JsonKind::Array || (kw != Kw::Items && v.elements().next().is_none())
                {
                    return Err(wrong(kw, "a non-empty array of schemas"));
                }
                for (i, e) in v.elements().enumerate() {
                    let mark = self.at.len();
                    self.at.push_index(i);
                    self.sub(e, depth)?;
                    self.at.truncate(mark);
                }
                return Ok(());
            }
            Shape::SchemaMap => {
                if v.kind() != JsonKind::Object {
                    return Err(wrong(kw, "an object of schemas"));
                }
                for (name, e) in v.members() {
                    let mark = self.at.len();
                    self.at.push_token(name);
                    self.sub(e, depth)?;
                    self.at.truncate(mark);
                }
                return Ok(());
            }
            Shape::Value => {}
        }
        let ok = match kw {
            Kw::Type => match v.kind() {
                JsonKind::String => type_name_ok(v),
                JsonKind::Array => v.elements().next().is_some() && v.elements().all(type_name_ok),
                _ => false,
            },
            Kw::Enum => v.kind() == JsonKind::Array,
            Kw::Minimum | Kw::Maximum => v.kind() == JsonKind::Number,
            Kw::ExclusiveMinimum | Kw::ExclusiveMaximum => {
                matches!(v.kind(), JsonKind::Number | JsonKind::Bool)
            }
            Kw::MultipleOf => Num::of(v).is_some_and(|n| n.as_f64() > 0.0),
            Kw::MinLength
            | Kw::MaxLength
            | Kw::MinItems
            | Kw::MaxItems
            | Kw::MinProperties
            | Kw::MaxProperties
            | Kw::MinContains
            | Kw::MaxContains => is_non_negative_integer(v),
            Kw::UniqueItems => v.kind() == JsonKind::Bool,
            Kw::Required => {
                v.kind() == JsonKind::Array && v.elements().all(|e| e.kind() == JsonKind::String)
            }
            Kw::DependentRequired => {
                v.kind() == JsonKind::Object
                    && v.members().all(|(_, list)| {
                        list.kind() == JsonKind::Array
                            && list.elements().all(|e| e.kind() == JsonKind::String)
                    })
            }
            #[cfg(feature = "schema-full")]
            Kw::Ref => return self.reference(v, depth),
            // `const` takes any value; `patternProperties` is not supported (its values
            // are checked only when a `$ref` names one).
            _ => true,
        };
        if ok {
            Ok(())
        } else {
            Err(wrong(kw, expected(kw)))
        }
    }

    #[cfg(feature = "schema-full")]
    fn reference(&mut self, v: Json<'a>, depth: usize) -> Step {
        let Some(r) = v.as_str() else {
            return Err(wrong(Kw::Ref, "a string"));
        };
        match resolve(self.root, r) {
            Resolved::NotLocal => Err(SchemaErrorKind::RemoteRef),
            Resolved::NotPointer => Err(SchemaErrorKind::AnchorRef),
            Resolved::Missing => Err(SchemaErrorKind::UnresolvedRef),
            Resolved::Found(target, place) => {
                if !matches!(target.kind(), JsonKind::Object | JsonKind::Bool) {
                    return Err(SchemaErrorKind::NotASchema);
                }
                if place == Place::Schema {
                    // The walk from the root checks it.
                    return Ok(());
                }
                self.off_tree_budget = self
                    .off_tree_budget
                    .checked_sub(1)
                    .ok_or(SchemaErrorKind::RefChainTooLong)?;
                self.sub(target, depth)
            }
        }
    }
}

fn type_name_ok(v: Json<'_>) -> bool {
    Types::of_name(v).is_some()
}

fn expected(kw: Kw) -> &'static str {
    match kw {
        Kw::Type => {
            "a type name (null, boolean, object, array, number, string, integer) or a non-empty array of them"
        }
        Kw::Enum => "an array",
        Kw::Minimum | Kw::Maximum => "a number",
        Kw::ExclusiveMinimum | Kw::ExclusiveMaximum => "a number (or, draft-04, a boolean)",
        Kw::MultipleOf => "a number greater than 0",
        Kw::UniqueItems => "a boolean",
        Kw::Required => "an array of strings",
        Kw::DependentRequired => "an object of arrays of strings",
        _ => "a non-negative integer",
    }
}
