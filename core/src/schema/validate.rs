//! Validation: the checked schema text is read lazily, keyword by keyword in document
//! order, and the first failure is returned. Recursion is bounded by [`MAX_DEPTH`]: every
//! subschema application (a property, an item, an applicator, a `$ref` hop) costs one.

// Without `schema-full` the keywords outside the subset are compiled out; what only they
// use stays (unused) rather than gaining a `cfg` of its own.
#![cfg_attr(
    not(feature = "schema-full"),
    allow(dead_code, unused_imports, unused_variables)
)]

use core::cmp::Ordering;

use super::MAX_DEPTH;
use super::equal::{Num, TooDeep, equal, is_multiple_of, str_eq};
use super::error::{DETAIL_CAPACITY, Expected, Invalid, POINTER_CAPACITY, Types};
use super::keywords::Kw;
use super::pointer::{InlineStr, Resolved, resolve};
use crate::json::{Json, JsonKind, JsonStr};

/// The text an error message names.
#[derive(Clone, Copy)]
enum Detail<'s, 'i> {
    None,
    /// A property name from the instance.
    Name(JsonStr<'i>),
    /// A property name from the schema.
    SchemaName(JsonStr<'s>),
    /// JSON text from the schema (`const`, `enum`).
    Raw(&'s str),
}

/// A failure on its way up; the instance pointer stays in the validator's buffer (it is
/// only cut back when a failure is discarded, by `anyOf`, `not`, …).
#[derive(Clone, Copy)]
struct Fail<'s, 'i> {
    keyword: &'static str,
    expected: Expected,
    detail: Detail<'s, 'i>,
}

impl Fail<'_, '_> {
    /// A depth failure is never discarded: `not` or `anyOf` must not turn it into a match.
    fn is_limit(&self) -> bool {
        self.expected == Expected::TooDeep
    }
}

type R<'s, 'i> = Result<(), Fail<'s, 'i>>;

fn fail<'s, 'i>(kw: Kw, expected: Expected) -> R<'s, 'i> {
    Err(Fail {
        keyword: kw.name(),
        expected,
        detail: Detail::None,
    })
}

fn fail_with<'s, 'i>(kw: Kw, expected: Expected, detail: Detail<'s, 'i>) -> R<'s, 'i> {
    Err(Fail {
        keyword: kw.name(),
        expected,
        detail,
    })
}

fn too_deep<'s, 'i>(kw: Kw) -> Fail<'s, 'i> {
    Fail {
        keyword: kw.name(),
        expected: Expected::TooDeep,
        detail: Detail::None,
    }
}

/// The keywords that modify a sibling keyword, found by one scan of the schema object,
/// made only when a keyword needs them (most schema objects never do).
#[derive(Clone, Copy, Default)]
struct Siblings<'s> {
    properties: Option<Json<'s>>,
    pattern_properties: bool,
    prefix_items: Option<Json<'s>>,
    items: Option<Json<'s>>,
    min_contains: Option<Json<'s>>,
    max_contains: Option<Json<'s>>,
    then: Option<Json<'s>>,
    else_: Option<Json<'s>>,
    exclusive_minimum: bool,
    exclusive_maximum: bool,
}

/// A schema object with its [`Siblings`], scanned for on first use.
struct Object<'s> {
    s: Json<'s>,
    siblings: Option<Siblings<'s>>,
}

impl<'s> Object<'s> {
    fn siblings(&mut self) -> &Siblings<'s> {
        let s = self.s;
        self.siblings.get_or_insert_with(|| {
            let mut sib = Siblings::default();
            for (key, v) in s.members() {
                let slot = match Kw::applied(key) {
                    Some(Kw::Properties) => &mut sib.properties,
                    Some(Kw::PrefixItems) => &mut sib.prefix_items,
                    Some(Kw::Items) => &mut sib.items,
                    Some(Kw::MinContains) => &mut sib.min_contains,
                    Some(Kw::MaxContains) => &mut sib.max_contains,
                    Some(Kw::Then) => &mut sib.then,
                    Some(Kw::Else) => &mut sib.else_,
                    Some(Kw::PatternProperties) => {
                        sib.pattern_properties = true;
                        continue;
                    }
                    Some(Kw::ExclusiveMinimum) => {
                        sib.exclusive_minimum |= v.as_raw() == "true";
                        continue;
                    }
                    Some(Kw::ExclusiveMaximum) => {
                        sib.exclusive_maximum |= v.as_raw() == "true";
                        continue;
                    }
                    _ => continue,
                };
                // The first of duplicate members counts, as with `Json::get`.
                slot.get_or_insert(v);
            }
            sib
        })
    }
}

struct Validator<'s> {
    root: Json<'s>,
    at: InlineStr<POINTER_CAPACITY>,
}

/// Validates `instance` against the checked schema `schema` of document `root`.
#[allow(
    clippy::result_large_err,
    reason = "no heap: the error carries its JSON Pointer inline (POINTER_CAPACITY bytes)"
)]
pub(crate) fn validate(
    root: Json<'_>,
    schema: Json<'_>,
    instance: Json<'_>,
    max_depth: usize,
) -> Result<(), Invalid> {
    let mut v = Validator {
        root,
        at: InlineStr::new(),
    };
    v.schema(schema, instance, max_depth.min(MAX_DEPTH))
        .map_err(|f| {
            let mut detail = InlineStr::<DETAIL_CAPACITY>::new();
            match f.detail {
                Detail::None => {}
                Detail::Name(n) => n.chars().for_each(|c| detail.push_char(c)),
                Detail::SchemaName(n) => n.chars().for_each(|c| detail.push_char(c)),
                Detail::Raw(t) => detail.push_str(t),
            }
            Invalid {
                at: v.at.finish(),
                keyword: f.keyword,
                expected: f.expected,
                detail: detail.finish(),
            }
        })
}

/// The member `name` of the object `obj`, names compared unescaped.
fn member<'a>(obj: Json<'a>, name: JsonStr<'_>) -> Option<Json<'a>> {
    if let Some(plain) = name.as_plain() {
        return obj.get(plain);
    }
    obj.members()
        .find(|(k, _)| str_eq(*k, name))
        .map(|(_, v)| v)
}

/// Whether `obj` has a member `name` (names compared unescaped); stops at the name,
/// without scanning its value.
fn has_member(obj: Json<'_>, name: JsonStr<'_>) -> bool {
    obj.has_key(|k| str_eq(k, name))
}

/// A non-negative integer keyword value (checked), saturated to `u64`.
fn count(v: Json<'_>) -> u64 {
    match Num::of(v) {
        Some(Num::Int(i)) => u64::try_from(i).unwrap_or(if i < 0 { 0 } else { u64::MAX }),
        Some(Num::Float(f)) if f >= 0.0 => {
            if f >= u64::MAX as f64 {
                u64::MAX
            } else {
                f as u64
            }
        }
        _ => 0,
    }
}

fn type_matches(bits: u8, v: Json<'_>) -> bool {
    let have = match v.kind() {
        JsonKind::Null => Types::NULL,
        JsonKind::Bool => Types::BOOLEAN,
        JsonKind::Object => Types::OBJECT,
        JsonKind::Array => Types::ARRAY,
        JsonKind::String => Types::STRING,
        JsonKind::Number => {
            if bits & Types::NUMBER != 0 {
                return true;
            }
            return bits & Types::INTEGER != 0 && Num::of(v).is_some_and(Num::is_integral);
        }
    };
    bits & have != 0
}

/// The quoted JSON text of a member name of `obj` (to validate it as a string value).
fn key_as_json<'i>(obj: Json<'i>, key: JsonStr<'i>) -> Option<Json<'i>> {
    let text = obj.as_raw();
    let start = (key.raw().as_ptr() as usize).checked_sub(text.as_ptr() as usize)?;
    let quoted = text.get(start.checked_sub(1)?..start + key.raw().len() + 1)?;
    Json::new(quoted).ok()
}

impl<'s> Validator<'s> {
    /// One subschema level down: `depth` is what is left for `s` itself.
    fn sub<'i>(&mut self, kw: Kw, s: Json<'s>, i: Json<'i>, depth: usize) -> R<'s, 'i> {
        let depth = depth.checked_sub(1).ok_or(too_deep(kw))?;
        self.schema(s, i, depth)
    }

    /// `sub` for a speculative branch (`anyOf`, `not`, `if`, …): `Ok(matched)`, with the
    /// pointer restored; a depth failure still propagates.
    fn matches<'i>(
        &mut self,
        kw: Kw,
        s: Json<'s>,
        i: Json<'i>,
        depth: usize,
    ) -> Result<bool, Fail<'s, 'i>> {
        let mark = self.at.len();
        match self.sub(kw, s, i, depth) {
            Ok(()) => Ok(true),
            Err(f) if f.is_limit() => Err(f),
            Err(_) => {
                self.at.truncate(mark);
                Ok(false)
            }
        }
    }

    /// `sub` for a member of the instance object (extends the pointer).
    fn sub_member<'i>(
        &mut self,
        kw: Kw,
        s: Json<'s>,
        name: JsonStr<'i>,
        v: Json<'i>,
        depth: usize,
    ) -> R<'s, 'i> {
        let mark = self.at.len();
        self.at.push_token(name);
        self.sub(kw, s, v, depth)?;
        self.at.truncate(mark);
        Ok(())
    }

    /// `sub` for an element of the instance array (extends the pointer).
    fn sub_item<'i>(
        &mut self,
        kw: Kw,
        s: Json<'s>,
        index: usize,
        v: Json<'i>,
        depth: usize,
    ) -> R<'s, 'i> {
        let mark = self.at.len();
        self.at.push_index(index);
        self.sub(kw, s, v, depth)?;
        self.at.truncate(mark);
        Ok(())
    }

    fn schema<'i>(&mut self, s: Json<'s>, i: Json<'i>, depth: usize) -> R<'s, 'i> {
        match s.kind() {
            JsonKind::Object => {}
            JsonKind::Bool if s.as_raw() == "false" => {
                return Err(Fail {
                    keyword: "false",
                    expected: Expected::Nothing,
                    detail: Detail::None,
                });
            }
            _ => return Ok(()),
        }
        let mut obj = Object { s, siblings: None };
        for (key, v) in s.members() {
            let Some(kw) = Kw::applied(key) else { continue };
            self.keyword(kw, v, &mut obj, i, depth)?;
        }
        Ok(())
    }

    fn keyword<'i>(
        &mut self,
        kw: Kw,
        v: Json<'s>,
        s: &mut Object<'s>,
        i: Json<'i>,
        depth: usize,
    ) -> R<'s, 'i> {
        let ik = i.kind();
        match kw {
            Kw::Properties => {
                if ik != JsonKind::Object {
                    return Ok(());
                }
                for (name, iv) in i.members() {
                    if let Some(ps) = member(v, name) {
                        self.sub_member(kw, ps, name, iv, depth)?;
                    }
                }
            }
            Kw::AdditionalProperties => {
                // With `patternProperties` (not supported) we cannot tell which members
                // are "additional": the keyword is not applied (never a false rejection).
                if ik != JsonKind::Object {
                    return Ok(());
                }
                let sib = s.siblings();
                if sib.pattern_properties {
                    return Ok(());
                }
                let props = sib.properties;
                for (name, iv) in i.members() {
                    if props.is_some_and(|p| has_member(p, name)) {
                        continue;
                    }
                    if v.as_raw() == "false" {
                        return fail_with(kw, Expected::NoAdditional, Detail::Name(name));
                    }
                    self.sub_member(kw, v, name, iv, depth)?;
                }
            }
            #[cfg(feature = "schema-full")]
            Kw::DependentSchemas => {
                if ik != JsonKind::Object {
                    return Ok(());
                }
                for (prop, dep) in v.members() {
                    if has_member(i, prop) {
                        self.sub(kw, dep, i, depth)?;
                    }
                }
            }
            #[cfg(feature = "schema-full")]
            Kw::PropertyNames => {
                if ik != JsonKind::Object {
                    return Ok(());
                }
                for (name, _) in i.members() {
                    let Some(as_value) = key_as_json(i, name) else {
                        continue;
                    };
                    if !self.matches(kw, v, as_value, depth)? {
                        return fail_with(kw, Expected::PropertyName, Detail::Name(name));
                    }
                }
            }
            Kw::Items => {
                if ik != JsonKind::Array {
                    return Ok(());
                }
                if v.kind() == JsonKind::Array {
                    // Draft-07 tuple form: positional, like `prefixItems`.
                    for (n, (ps, iv)) in v.elements().zip(i.elements()).enumerate() {
                        self.sub_item(kw, ps, n, iv, depth)?;
                    }
                    return Ok(());
                }
                let skip = s
                    .siblings()
                    .prefix_items
                    .map_or(0, |p| p.elements().count());
                for (n, iv) in i.elements().enumerate().skip(skip) {
                    self.sub_item(kw, v, n, iv, depth)?;
                }
            }
            #[cfg(feature = "schema-full")]
            Kw::PrefixItems => {
                if ik != JsonKind::Array {
                    return Ok(());
                }
                for (n, (ps, iv)) in v.elements().zip(i.elements()).enumerate() {
                    self.sub_item(kw, ps, n, iv, depth)?;
                }
            }
            #[cfg(feature = "schema-full")]
            Kw::AdditionalItems => {
                // Draft-07: only with the tuple form of `items`.
                let Some(items) = s.siblings().items.filter(|t| t.kind() == JsonKind::Array) else {
                    return Ok(());
                };
                let skip = items.elements().count();
                for (n, iv) in i.elements().enumerate().skip(skip) {
                    self.sub_item(kw, v, n, iv, depth)?;
                }
            }
            #[cfg(feature = "schema-full")]
            Kw::Contains => {
                if ik != JsonKind::Array {
                    return Ok(());
                }
                let sib = s.siblings();
                let min = sib.min_contains.map_or(1, count);
                let max = sib.max_contains.map(count);
                let min_kw = if sib.min_contains.is_some() {
                    Kw::MinContains
                } else {
                    kw
                };
                let mut found: u64 = 0;
                for iv in i.elements() {
                    if self.matches(kw, v, iv, depth)? {
                        found += 1;
                        if max.is_some_and(|m| found > m) {
                            return fail_with(
                                Kw::MaxContains,
                                Expected::MaxContains(max.unwrap_or(0)),
                                Detail::None,
                            );
                        }
                    }
                }
                if found < min {
                    return fail(min_kw, Expected::MinContains(min));
                }
            }
            #[cfg(feature = "schema-full")]
            Kw::AllOf => {
                for e in v.elements() {
                    self.sub(kw, e, i, depth)?;
                }
            }
            #[cfg(feature = "schema-full")]
            Kw::AnyOf => {
                for e in v.elements() {
                    if self.matches(kw, e, i, depth)? {
                        return Ok(());
                    }
                }
                return fail(kw, Expected::AnyOf);
            }
            #[cfg(feature = "schema-full")]
            Kw::OneOf => {
                let mut n = 0;
                for e in v.elements() {
                    if self.matches(kw, e, i, depth)? {
                        n += 1;
                        if n > 1 {
                            return fail(kw, Expected::OneOf(n));
                        }
                    }
                }
                if n == 0 {
                    return fail(kw, Expected::OneOf(0));
                }
            }
            #[cfg(feature = "schema-full")]
            Kw::Not => {
                if self.matches(kw, v, i, depth)? {
                    return fail(kw, Expected::Not);
                }
            }
            #[cfg(feature = "schema-full")]
            Kw::If => {
                let matched = self.matches(kw, v, i, depth)?;
                let sib = s.siblings();
                let (k, branch) = if matched {
                    (Kw::Then, sib.then)
                } else {
                    (Kw::Else, sib.else_)
                };
                if let Some(b) = branch {
                    self.sub(k, b, i, depth)?;
                }
            }
            #[cfg(feature = "schema-full")]
            Kw::Ref => {
                if let Some(r) = v.as_str()
                    && let Resolved::Found(target, _) = resolve(self.root, r)
                {
                    self.sub(kw, target, i, depth)?;
                }
            }
            Kw::Type
            | Kw::Enum
            | Kw::Const
            | Kw::Minimum
            | Kw::Maximum
            | Kw::ExclusiveMinimum
            | Kw::ExclusiveMaximum
            | Kw::MultipleOf
            | Kw::MinLength
            | Kw::MaxLength
            | Kw::Required
            | Kw::MinProperties
            | Kw::MaxProperties
            | Kw::DependentRequired
            | Kw::MinItems
            | Kw::MaxItems
            | Kw::UniqueItems => return self.assertion(kw, v, s, i),
            // Not in this build (the checker refused any schema that has them).
            #[cfg(not(feature = "schema-full"))]
            _ => {}
            // Read by the keywords they modify, or holding definitions only.
            #[cfg(feature = "schema-full")]
            Kw::Then
            | Kw::Else
            | Kw::MinContains
            | Kw::MaxContains
            | Kw::Defs
            | Kw::Definitions
            | Kw::PatternProperties => {}
        }
        Ok(())
    }

    /// The keywords that do not apply subschemas, out of line: their locals stay off the
    /// stack frame that recursion repeats.
    #[inline(never)]
    fn assertion<'i>(&mut self, kw: Kw, v: Json<'s>, s: &mut Object<'s>, i: Json<'i>) -> R<'s, 'i> {
        let ik = i.kind();
        match kw {
            Kw::Type => {
                let bits = match v.kind() {
                    JsonKind::Array => v
                        .elements()
                        .filter_map(Types::of_name)
                        .fold(0, |a, b| a | b),
                    _ => Types::of_name(v).unwrap_or(0),
                };
                if !type_matches(bits, i) {
                    return fail(kw, Expected::Type(Types(bits)));
                }
            }
            Kw::Enum => {
                for e in v.elements() {
                    if equal(e, i, MAX_DEPTH).map_err(|TooDeep| too_deep(kw))? {
                        return Ok(());
                    }
                }
                return fail_with(kw, Expected::Enum, Detail::Raw(v.as_raw()));
            }
            Kw::Const if !equal(v, i, MAX_DEPTH).map_err(|TooDeep| too_deep(kw))? => {
                return fail_with(kw, Expected::Const, Detail::Raw(v.as_raw()));
            }
            #[cfg(feature = "schema-full")]
            Kw::Minimum | Kw::Maximum | Kw::ExclusiveMinimum | Kw::ExclusiveMaximum => {
                return self.bound(kw, v, s, i);
            }
            #[cfg(feature = "schema-full")]
            Kw::MultipleOf => {
                if let (Some(x), Some(m)) = (Num::of(i), Num::of(v))
                    && !is_multiple_of(x, m)
                {
                    return fail_with(
                        kw,
                        Expected::MultipleOf(m.as_f64()),
                        Detail::Raw(v.as_raw()),
                    );
                }
            }
            #[cfg(feature = "schema-full")]
            Kw::MinLength | Kw::MaxLength => {
                let Some(text) = i.as_str() else {
                    return Ok(());
                };
                let limit = count(v);
                let n = if text.is_escaped() {
                    text.chars().count()
                } else {
                    // Code points: count the bytes that start a character.
                    text.raw().bytes().filter(|b| (b & 0xC0) != 0x80).count()
                } as u64;
                if kw == Kw::MinLength && n < limit {
                    return fail(kw, Expected::MinLength(limit));
                }
                if kw == Kw::MaxLength && n > limit {
                    return fail(kw, Expected::MaxLength(limit));
                }
            }
            Kw::Required => {
                if ik != JsonKind::Object {
                    return Ok(());
                }
                for name in v.elements().filter_map(|n| n.as_str()) {
                    if !has_member(i, name) {
                        return fail_with(kw, Expected::Required, Detail::SchemaName(name));
                    }
                }
            }
            #[cfg(feature = "schema-full")]
            Kw::MinProperties | Kw::MaxProperties => {
                if ik != JsonKind::Object {
                    return Ok(());
                }
                let limit = count(v);
                let n = i.members().count() as u64;
                if kw == Kw::MinProperties && n < limit {
                    return fail(kw, Expected::MinProperties(limit));
                }
                if kw == Kw::MaxProperties && n > limit {
                    return fail(kw, Expected::MaxProperties(limit));
                }
            }
            #[cfg(feature = "schema-full")]
            Kw::DependentRequired => {
                if ik != JsonKind::Object {
                    return Ok(());
                }
                for (prop, needs) in v.members() {
                    if !has_member(i, prop) {
                        continue;
                    }
                    for need in needs.elements().filter_map(|n| n.as_str()) {
                        if !has_member(i, need) {
                            return fail_with(
                                kw,
                                Expected::DependentRequired,
                                Detail::SchemaName(need),
                            );
                        }
                    }
                }
            }
            #[cfg(feature = "schema-full")]
            Kw::MinItems | Kw::MaxItems => {
                if ik != JsonKind::Array {
                    return Ok(());
                }
                let limit = count(v);
                let n = i.elements().count() as u64;
                if kw == Kw::MinItems && n < limit {
                    return fail(kw, Expected::MinItems(limit));
                }
                if kw == Kw::MaxItems && n > limit {
                    return fail(kw, Expected::MaxItems(limit));
                }
            }
            #[cfg(feature = "schema-full")]
            Kw::UniqueItems => {
                if ik != JsonKind::Array || v.as_raw() != "true" {
                    return Ok(());
                }
                for (a, x) in i.elements().enumerate() {
                    for (b, y) in i.elements().enumerate().skip(a + 1) {
                        if equal(x, y, MAX_DEPTH).map_err(|TooDeep| too_deep(kw))? {
                            return fail(kw, Expected::UniqueItems(a, b));
                        }
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// `minimum`, `maximum` and the exclusive forms (numeric 2020-12; boolean draft-04).
    #[cfg(feature = "schema-full")]
    fn bound<'i>(&mut self, kw: Kw, v: Json<'s>, s: &mut Object<'s>, i: Json<'i>) -> R<'s, 'i> {
        let (Some(x), Some(b)) = (Num::of(i), Num::of(v)) else {
            return Ok(());
        };
        let Some(ord) = x.cmp(b) else { return Ok(()) };
        let (excl_min, excl_max) = match kw {
            Kw::Minimum | Kw::Maximum => {
                let sib = s.siblings();
                (sib.exclusive_minimum, sib.exclusive_maximum)
            }
            _ => (false, false),
        };
        let bf = b.as_f64();
        let (ok, expected) = match kw {
            Kw::Minimum if excl_min => (ord == Ordering::Greater, Expected::ExclusiveMinimum(bf)),
            Kw::Minimum => (ord != Ordering::Less, Expected::Minimum(bf)),
            Kw::Maximum if excl_max => (ord == Ordering::Less, Expected::ExclusiveMaximum(bf)),
            Kw::Maximum => (ord != Ordering::Greater, Expected::Maximum(bf)),
            Kw::ExclusiveMinimum => (ord == Ordering::Greater, Expected::ExclusiveMinimum(bf)),
            _ => (ord == Ordering::Less, Expected::ExclusiveMaximum(bf)),
        };
        if ok {
            Ok(())
        } else {
            fail_with(kw, expected, Detail::Raw(v.as_raw()))
        }
    }
}
