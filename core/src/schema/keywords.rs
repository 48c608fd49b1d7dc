//! The keywords the validator knows, matched once per schema member.

use crate::json::JsonStr;

/// A keyword the checker and the validator act on. Every other member of a schema
/// object (annotations, unsupported keywords) is skipped by both.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kw {
    Type,
    Enum,
    Const,
    Minimum,
    Maximum,
    ExclusiveMinimum,
    ExclusiveMaximum,
    MultipleOf,
    MinLength,
    MaxLength,
    Properties,
    AdditionalProperties,
    Required,
    MinProperties,
    MaxProperties,
    DependentRequired,
    DependentSchemas,
    PropertyNames,
    Items,
    PrefixItems,
    AdditionalItems,
    MinItems,
    MaxItems,
    UniqueItems,
    Contains,
    MinContains,
    MaxContains,
    AllOf,
    AnyOf,
    OneOf,
    Not,
    If,
    Then,
    Else,
    Ref,
    Defs,
    Definitions,
    /// Not supported, but its presence changes `additionalProperties` (see the module doc).
    PatternProperties,
}

impl Kw {
    pub(crate) fn from_name(name: &str) -> Option<Kw> {
        Some(match name {
            "type" => Kw::Type,
            "enum" => Kw::Enum,
            "const" => Kw::Const,
            "minimum" => Kw::Minimum,
            "maximum" => Kw::Maximum,
            "exclusiveMinimum" => Kw::ExclusiveMinimum,
            "exclusiveMaximum" => Kw::ExclusiveMaximum,
            "multipleOf" => Kw::MultipleOf,
            "minLength" => Kw::MinLength,
            "maxLength" => Kw::MaxLength,
            "properties" => Kw::Properties,
            "additionalProperties" => Kw::AdditionalProperties,
            "required" => Kw::Required,
            "minProperties" => Kw::MinProperties,
            "maxProperties" => Kw::MaxProperties,
            "dependentRequired" => Kw::DependentRequired,
            "dependentSchemas" => Kw::DependentSchemas,
            "propertyNames" => Kw::PropertyNames,
            "items" => Kw::Items,
            "prefixItems" => Kw::PrefixItems,
            "additionalItems" => Kw::AdditionalItems,
            "minItems" => Kw::MinItems,
            "maxItems" => Kw::MaxItems,
            "uniqueItems" => Kw::UniqueItems,
            "contains" => Kw::Contains,
            "minContains" => Kw::MinContains,
            "maxContains" => Kw::MaxContains,
            "allOf" => Kw::AllOf,
            "anyOf" => Kw::AnyOf,
            "oneOf" => Kw::OneOf,
            "not" => Kw::Not,
            "if" => Kw::If,
            "then" => Kw::Then,
            "else" => Kw::Else,
            "$ref" => Kw::Ref,
            "$defs" => Kw::Defs,
            "definitions" => Kw::Definitions,
            "patternProperties" => Kw::PatternProperties,
            _ => return None,
        })
    }

    /// The keyword a member name spells (escapes decoded), if it is one we act on.
    pub(crate) fn of(key: JsonStr<'_>) -> Option<Kw> {
        if let Some(plain) = key.as_plain() {
            return Self::from_name(plain);
        }
        let mut buf = [0u8; 24];
        Self::from_name(key.unescape_into(&mut buf).ok()?)
    }

    /// The keyword a member name spells if this build's validator applies it
    /// ([`Kw::compiled`]): [`Kw::of`] with `schema-full`; without it a match of the
    /// subset's names only, so a device image has no table of the other names (the
    /// checker, which refuses them, runs where `Server::new` does).
    pub(crate) fn applied(key: JsonStr<'_>) -> Option<Kw> {
        if cfg!(feature = "schema-full") {
            return Self::of(key);
        }
        let mut buf = [0u8; 24];
        let name = match key.as_plain() {
            Some(plain) => plain,
            None => key.unescape_into(&mut buf).ok()?,
        };
        Some(match name {
            "type" => Kw::Type,
            "enum" => Kw::Enum,
            "const" => Kw::Const,
            "properties" => Kw::Properties,
            "additionalProperties" => Kw::AdditionalProperties,
            "required" => Kw::Required,
            "items" => Kw::Items,
            "patternProperties" => Kw::PatternProperties,
            _ => return None,
        })
    }

    /// Whether this build's validator applies the keyword: all of them with the
    /// `schema-full` feature; without it the subset a device's plain object schemas use
    /// (the checker refuses a schema with any other, `SchemaErrorKind::Unsupported`).
    /// `$defs`, `definitions` and `patternProperties` stay: they hold subschemas (checked
    /// as usual) or change nothing but `additionalProperties`.
    pub(crate) fn compiled(self) -> bool {
        cfg!(feature = "schema-full")
            || matches!(
                self,
                Kw::Type
                    | Kw::Enum
                    | Kw::Const
                    | Kw::Properties
                    | Kw::AdditionalProperties
                    | Kw::Required
                    | Kw::Items
                    | Kw::Defs
                    | Kw::Definitions
                    | Kw::PatternProperties
            )
    }

    /// The keyword as written in a schema.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Kw::Type => "type",
            Kw::Enum => "enum",
            Kw::Const => "const",
            Kw::Minimum => "minimum",
            Kw::Maximum => "maximum",
            Kw::ExclusiveMinimum => "exclusiveMinimum",
            Kw::ExclusiveMaximum => "exclusiveMaximum",
            Kw::MultipleOf => "multipleOf",
            Kw::MinLength => "minLength",
            Kw::MaxLength => "maxLength",
            Kw::Properties => "properties",
            Kw::AdditionalProperties => "additionalProperties",
            Kw::Required => "required",
            Kw::MinProperties => "minProperties",
            Kw::MaxProperties => "maxProperties",
            Kw::DependentRequired => "dependentRequired",
            Kw::DependentSchemas => "dependentSchemas",
            Kw::PropertyNames => "propertyNames",
            Kw::Items => "items",
            Kw::PrefixItems => "prefixItems",
            Kw::AdditionalItems => "additionalItems",
            Kw::MinItems => "minItems",
            Kw::MaxItems => "maxItems",
            Kw::UniqueItems => "uniqueItems",
            Kw::Contains => "contains",
            Kw::MinContains => "minContains",
            Kw::MaxContains => "maxContains",
            Kw::AllOf => "allOf",
            Kw::AnyOf => "anyOf",
            Kw::OneOf => "oneOf",
            Kw::Not => "not",
            Kw::If => "if",
            Kw::Then => "then",
            Kw::Else => "else",
            Kw::Ref => "$ref",
            Kw::Defs => "$defs",
            Kw::Definitions => "definitions",
            Kw::PatternProperties => "patternProperties",
        }
    }

    /// What a keyword's value holds, for the checker and for `$ref` resolution.
    pub(crate) fn shape(self) -> Shape {
        match self {
            Kw::Properties | Kw::Defs | Kw::Definitions | Kw::DependentSchemas => Shape::SchemaMap,
            Kw::AllOf | Kw::AnyOf | Kw::OneOf | Kw::PrefixItems => Shape::SchemaList,
            Kw::AdditionalProperties
            | Kw::PropertyNames
            | Kw::AdditionalItems
            | Kw::Contains
            | Kw::Not
            | Kw::If
            | Kw::Then
            | Kw::Else => Shape::Schema,
            Kw::Items => Shape::SchemaOrList,
            _ => Shape::Value,
        }
    }
}

/// What a keyword's value holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    /// One subschema.
    Schema,
    /// One subschema, or (draft-07 `items`) a list of them.
    SchemaOrList,
    /// An object of subschemas.
    SchemaMap,
    /// A non-empty array of subschemas.
    SchemaList,
    /// Not a subschema (checked per keyword).
    Value,
}
