//! STUB (replaced by the `uri` branch): the API the server layer codes against.
#![allow(missing_docs, dead_code)]
use core::fmt;

pub const MAX_VARS: usize = 8;

#[derive(Clone, Copy, Debug)]
pub struct UriTemplate<'a> {
    text: &'a str,
}
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TemplateError;
impl fmt::Display for TemplateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("invalid template")
    }
}
#[derive(Debug)]
pub struct Vars<'a, 'u> {
    pairs: [(&'a str, &'u str); MAX_VARS],
    len: usize,
}
impl<'a, 'u> Vars<'a, 'u> {
    pub fn get(&self, name: &str) -> Option<&'u str> {
        self.iter().find(|(n, _)| *n == name).map(|(_, v)| v)
    }
    pub fn iter(&self) -> impl Iterator<Item = (&'a str, &'u str)> + '_ {
        self.pairs[..self.len].iter().copied()
    }
    pub fn len(&self) -> usize {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}
impl<'a> UriTemplate<'a> {
    pub fn new(text: &'a str) -> Result<Self, TemplateError> {
        Ok(UriTemplate { text })
    }
    pub fn as_str(&self) -> &'a str {
        self.text
    }
    pub fn var_names(&self) -> impl Iterator<Item = &'a str> {
        let t = self.text;
        t.split('{')
            .skip(1)
            .filter_map(|s| s.split_once('}'))
            .map(|(v, _)| v.trim_start_matches('+'))
    }
    pub fn match_uri<'u>(&self, uri: &'u str) -> Option<Vars<'a, 'u>> {
        let (pre, rest) = self.text.split_once('{')?;
        let (var, post) = rest.split_once('}')?;
        let mid = uri.strip_prefix(pre)?.strip_suffix(post)?;
        if mid.is_empty() || mid.contains('/') {
            return None;
        }
        let mut pairs = [("", ""); MAX_VARS];
        pairs[0] = (var, mid);
        Some(Vars { pairs, len: 1 })
    }
}
