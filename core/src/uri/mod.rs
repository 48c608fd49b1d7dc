//! URI helpers for servers, on strings, without allocation: RFC 6570 URI templates
//! (matching a `resources/read` URI to a resource template, and expansion), percent
//! decoding, and [`roots`] containment (whether a path lies inside the client's roots).
//!
//! # URI templates
//!
//! [`UriTemplate::new`] checks a template once (levels 1–3 of RFC 6570: every operator,
//! lists of variables; no `{var:N}` prefix and no `{var*}` explode). Then
//! [`UriTemplate::match_uri`] answers which variables a URI gives, and
//! [`UriTemplate::expand`] writes a URI for given values. [`find_match`] picks the first
//! matching template of a table.
//!
//! ```
//! use picomcp::uri::{UriTemplate, percent_decode};
//! let t = UriTemplate::new("repo://{owner}/{name}/blob/{+path}")?;
//! let vars = t.match_uri("repo://me/pico/blob/src/a%20b.rs").unwrap();
//! assert_eq!(vars.get("owner"), Some("me"));
//! let mut buf = [0u8; 64];
//! assert_eq!(percent_decode(vars.get("path").unwrap(), &mut buf)?, "src/a b.rs");
//! assert!(t.match_uri("repo://me/pico/tree/src").is_none());
//! # Ok::<(), Box<dyn core::error::Error>>(())
//! ```
//!
//! ## Matching rules
//!
//! RFC 6570 defines only expansion; matching is its inverse where one exists, with these
//! rules (docs/DESIGN.md, "URI templates", says why):
//!
//! - **Values are raw.** A value is the slice of the URI, still percent-encoded. Nothing
//!   is decoded or validated while matching; [`percent_decode`] is a separate call.
//! - **What a value may contain** (its *stop* characters end it):
//!   `{var}` no `/ ? # & ,`; `{+var}` no `? #`; `{#var}` anything; `{.var}` no `. / ? #`;
//!   `{/var}` no `/ ? #`; `{;var}` no `; / ? #`; `{?var}`/`{&var}` no `& #`.
//!   So `{var}` is one path segment and `{+var}` may span several.
//! - **Present and non-empty.** Every variable outside the query tail must be in the URI
//!   with a non-empty value (`users/{id}` does not match `users/`); `{;x}` may be bare
//!   (`;x`, an empty value) and a strict `{?x}`/`{&x}` may be `x=`.
//! - **The query tail is order-free.** When a template ends with `{?…}` (maybe followed by
//!   `{&…}`) and has no `?`/`#` (literal, `{?…}` or `{#…}`) before, the URI is cut at its first `#` and then its first
//!   `?`; the part before must match the rest of the template, and the query gives the
//!   tail's variables in any order, each optional (absent: [`Vars::get`] is `None`),
//!   unknown parameters ignored, the first of duplicates kept, names compared raw, a
//!   parameter without `=` empty. A URI with a query never matches a template without a
//!   query tail (`{var}` stops at `?`). Otherwise `{?x}` and `{&x}` match strictly, in
//!   place, as the literal `?x=` / `&x=` and a value.
//! - **No ambiguity left to chance.** `new` refuses two variables with nothing between
//!   them (`{a}{b}`) and more than one `{+var}`/`{#var}` outside the query tail.
//!   Literal text after a variable anchors it. Without a `{+var}`/`{#var}`, the scan runs
//!   right to left and each variable starts after the rightmost possible occurrence of
//!   the literal before it: the earlier variable gets the longer value, as a regex of
//!   greedy groups would (`{name}.{ext}` on `a.tar.gz`: `a.tar`, `gz`). With one, the
//!   variables after it are scanned right to left as above, those before it left to
//!   right (each ends at the first occurrence of the literal after it), and the
//!   `{+var}` takes what is left between them (`{+path}/meta/{id}` on `a/meta/b/meta/c`:
//!   `a/meta/b`, `c`).
//! - **Bounded cost.** No backtracking: a match is at most (URI length × template length)
//!   byte comparisons.
//!
//! Round trip: when every variable has a non-empty value of ASCII letters and digits,
//! `match_uri(expand(v))` always matches, and when the values it found need no
//! encoding, expanding them gives the same URI again (the fuzz target `uri_template`
//! checks both). Other values may come back split differently (`{.ext}` with `tar.gz`
//! is `.tar.gz`, which `{.ext}` does not match), as RFC 6570 §1.4 warns.
//!
//! # Roots containment
//!
//! [`roots::contains`] decides whether a path or `file://` URI lies inside one of the
//! client's roots, after normalisation; see its docs for the rules.

mod matching;
mod percent;
pub mod roots;
mod template;

pub use matching::find_match;
pub use percent::{DecodeError, percent_decode};
pub use template::{MAX_VARS, TemplateError, TemplateErrorKind, UriTemplate, Vars};
