//! STUB (replaced by the `schema` branch): the API the server layer codes against.
#![allow(missing_docs, dead_code)]
use crate::json::{Json, JsonStr};
use core::fmt;

pub const MAX_DEPTH: usize = 32;

#[derive(Clone, Copy, Debug)]
pub struct Schema<'a> {
    root: Json<'a>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SchemaError;
impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("invalid schema")
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Invalid;
impl Invalid {
    pub fn pointer(&self) -> &str {
        ""
    }
    pub fn keyword(&self) -> &'static str {
        "type"
    }
}
impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("(root): invalid")
    }
}

impl<'a> Schema<'a> {
    pub fn new(text: &'a str) -> Result<Schema<'a>, SchemaError> {
        Json::new(text)
            .map_err(|_| SchemaError)
            .and_then(Self::from_json)
    }
    pub fn from_json(root: Json<'a>) -> Result<Schema<'a>, SchemaError> {
        Ok(Schema { root })
    }
    pub(crate) fn trusted(root: Json<'a>) -> Schema<'a> {
        Schema { root }
    }
    pub fn as_json(&self) -> Json<'a> {
        self.root
    }
    pub fn validate(&self, instance: Json<'_>) -> Result<(), Invalid> {
        if let Some(req) = self.root.get("required") {
            for r in req.elements() {
                let name = r.as_str().ok_or(Invalid)?;
                if !instance.members().any(|(k, _)| k.raw() == name.raw()) {
                    return Err(Invalid);
                }
            }
        }
        Ok(())
    }
    pub fn missing_defaults<'i>(
        &self,
        _instance: Json<'i>,
    ) -> impl Iterator<Item = (JsonStr<'a>, Json<'a>)> {
        core::iter::empty()
    }
}
