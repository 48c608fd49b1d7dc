//! Scopes per definition: which tools, resources, templates and prompts a caller may see
//! and use, from the OAuth scopes it was granted (docs/DESIGN.md, "Authorization").
//!
//! A definition names the scopes it needs (`Tool::new(..).scopes("files:write")`, space
//! delimited). A caller's grant is an [`Access`]: a bitmask over a table of scope names
//! (the names the HTTP layer's `AuthConfig::scopes` lists; bit `i` is `names[i]`), so it
//! costs one word and no heap. A definition is *allowed* when every scope it names is in
//! the grant; a name outside the table is never granted.
//!
//! [`Server::handle_as`](super::Server::handle_as) hides what is not allowed from the
//! four lists and refuses a call, read or get of it (-32602, naming the scopes needed);
//! [`Server::required_scopes`](super::Server::required_scopes) says what one request
//! needs, which the HTTP endpoint asks before the request reaches a session, so that a
//! client without them gets the spec's 403 `insufficient_scope` step-up answer.
//!
//! Behind the `scopes` feature (on by default, and with `http`). Without it the
//! definitions keep their `scopes` field but nothing reads it: every caller is allowed
//! everything, as [`Server::handle`](super::Server::handle) allows any caller in every
//! build; `Access`, `handle_as` and `required_scopes` are not there.

use super::defs::{Prompt, Resource, ResourceTemplate, Tool};
#[cfg(feature = "scopes")]
use {super::Server, crate::json::Json, crate::protocol::Method, crate::uri::UriTemplate};

#[cfg(feature = "scopes")]
/// Scope names a grant can hold at most (bits of the mask).
pub const MAX_SCOPES: usize = 64;

#[cfg(feature = "scopes")]
/// What a caller was granted: bit `i` of `granted` is scope `names[i]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Access<'a> {
    /// The scope names the mask is over (at most [`MAX_SCOPES`]).
    pub names: &'a [&'a str],
    /// The granted ones.
    pub granted: u64,
    /// Everything is allowed, whatever it names (no authorization: stdio, or HTTP without
    /// an `AuthConfig`).
    pub all: bool,
}

#[cfg(feature = "scopes")]
impl Access<'static> {
    /// Everything allowed: what [`Server::handle`](super::Server::handle) uses.
    pub const ALL: Access<'static> = Access {
        names: &[],
        granted: 0,
        all: true,
    };
}

#[cfg(feature = "scopes")]
impl<'a> Access<'a> {
    /// A grant of `granted` over `names`.
    pub const fn new(names: &'a [&'a str], granted: u64) -> Self {
        Access {
            names,
            granted,
            all: false,
        }
    }

    /// Whether scope `name` is granted.
    pub fn has(&self, name: &str) -> bool {
        self.all
            || self
                .names
                .iter()
                .take(MAX_SCOPES)
                .position(|n| *n == name)
                .is_some_and(|i| self.granted & (1u64 << i) != 0)
    }

    /// Whether every scope in `needed` (space-delimited; `None` or empty: nothing) is
    /// granted.
    pub fn allows(&self, needed: Option<&str>) -> bool {
        self.all
            || needed.is_none_or(|n| n.split(' ').filter(|s| !s.is_empty()).all(|s| self.has(s)))
    }
}

/// Without `scopes`: the grant that allows everything, all the layer needs of one.
#[cfg(not(feature = "scopes"))]
#[derive(Clone, Copy)]
pub(super) struct Access<'a>(core::marker::PhantomData<&'a ()>);

#[cfg(not(feature = "scopes"))]
impl Access<'static> {
    pub(super) const ALL: Access<'static> = Access(core::marker::PhantomData);
}

#[cfg(not(feature = "scopes"))]
impl Access<'_> {
    pub(super) fn allows(&self, _needed: Option<&str>) -> bool {
        true
    }
}

/// The definitions that name scopes.
pub(super) trait Scoped {
    fn scopes(&self) -> Option<&str>;
}

macro_rules! scoped {
    ($($t:ident),*) => {$(
        impl Scoped for $t<'_> {
            fn scopes(&self) -> Option<&str> {
                self.scopes
            }
        }
    )*};
}
scoped!(Tool, Resource, ResourceTemplate, Prompt);

#[cfg(feature = "scopes")]
impl<'a> Server<'a> {
    /// The scopes (space-delimited, as registered) that request `method` with `params`
    /// needs: those of the tool `tools/call` names, the resource or first matching
    /// template `resources/read` names, the prompt `prompts/get` names. `None` for any
    /// other request, and for names that match nothing (the layer answers those as
    /// unknown, whoever asks).
    pub fn required_scopes(&self, method: Method, params: Json<'_>) -> Option<&'a str> {
        let c = self.catalog;
        match method {
            Method::ToolsCall => {
                let name = params.get("name")?.as_str()?;
                c.tools.iter().find(|t| name.eq_str(t.name))?.scopes
            }
            Method::PromptsGet => {
                let name = params.get("name")?.as_str()?;
                c.prompts.iter().find(|p| name.eq_str(p.name))?.scopes
            }
            Method::ResourcesRead => {
                let raw = params.get("uri")?.as_str()?;
                let mut buf = [0u8; super::MAX_ESCAPED_URI];
                let uri = match raw.as_plain() {
                    Some(p) => p,
                    None => raw.unescape_into(&mut buf).ok()?,
                };
                match c.resources.iter().find(|r| r.uri == uri) {
                    Some(r) => r.scopes,
                    None => template_scopes(c.templates, uri),
                }
            }
            _ => None,
        }
    }
}

#[cfg(feature = "scopes")]
// Not inlined: a match's variables are on the stack only while a template is tried.
#[inline(never)]
fn template_scopes<'a>(templates: &[ResourceTemplate<'a>], uri: &str) -> Option<&'a str> {
    templates
        .iter()
        .find(|t| {
            UriTemplate::trusted(t.uri_template)
                .match_uri(uri)
                .is_some()
        })?
        .scopes
}

#[cfg(feature = "scopes")]
#[cfg(test)]
mod tests {
    use super::*;

    const NAMES: &[&str] = &["read", "write", "admin"];

    #[test]
    fn grants_are_bits_over_the_names() {
        let a = Access::new(NAMES, 0b011);
        assert!(a.has("read") && a.has("write") && !a.has("admin"));
        assert!(!a.has("other"), "a name outside the table is never granted");
        assert!(a.allows(None));
        assert!(a.allows(Some("")));
        assert!(a.allows(Some("read write")));
        assert!(a.allows(Some(" read  ")));
        assert!(!a.allows(Some("read admin")));
        assert!(Access::ALL.allows(Some("anything at all")));
    }
}
