//! RFC 6570 URI templates: checking a template, expanding it, and (in
//! [`matching`](super::matching)) matching a URI against it.
//!
//! Supported: levels 1 to 3, every operator (`{var}`, `{+var}`, `{#var}`, `{.var}`,
//! `{/var}`, `{;var}`, `{?var}`, `{&var}`) with one or several variables per expression.
//! Not supported (refused by [`UriTemplate::new`] as [`TemplateErrorKind::Unsupported`]):
//! the level 4 modifiers, prefix `{var:3}` and explode `{var*}`. Their values are lists or
//! maps, which a value closure returning one string cannot give, and whose matching
//! would be ambiguous. See the module docs of [`crate::uri`] for the matching rules.

use core::fmt;

use super::percent::{escape_at, is_reserved, is_unreserved};
use crate::error::InsufficientSize;

/// The most variables a template may have (all expressions together). A template with
/// more is [`TemplateErrorKind::TooManyVariables`]. [`Vars`] holds this many pairs.
pub const MAX_VARS: usize = 16;

/// An expression's operator (RFC 6570 §2.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Operator {
    /// `{var}`: simple string expansion.
    Simple,
    /// `{+var}`: reserved expansion (reserved characters kept).
    Reserved,
    /// `{#var}`: fragment expansion.
    Fragment,
    /// `{.var}`: label expansion with a dot prefix.
    Label,
    /// `{/var}`: path segment expansion.
    Path,
    /// `{;var}`: path-style parameter expansion.
    PathParam,
    /// `{?var}`: form-style query expansion.
    Query,
    /// `{&var}`: form-style query continuation.
    QueryCont,
}

/// How an operator expands (RFC 6570 appendix A).
pub(crate) struct Spec {
    pub(crate) first: &'static str,
    pub(crate) sep: &'static str,
    pub(crate) named: bool,
    pub(crate) ifemp: &'static str,
    pub(crate) allow_reserved: bool,
}

impl Operator {
    fn from_byte(b: u8) -> Option<Operator> {
        Some(match b {
            b'+' => Operator::Reserved,
            b'#' => Operator::Fragment,
            b'.' => Operator::Label,
            b'/' => Operator::Path,
            b';' => Operator::PathParam,
            b'?' => Operator::Query,
            b'&' => Operator::QueryCont,
            _ => return None,
        })
    }

    pub(crate) fn spec(self) -> Spec {
        let (first, sep, named, ifemp, allow_reserved) = match self {
            Operator::Simple => ("", ",", false, "", false),
            Operator::Reserved => ("", ",", false, "", true),
            Operator::Fragment => ("#", ",", false, "", true),
            Operator::Label => (".", ".", false, "", false),
            Operator::Path => ("/", "/", false, "", false),
            Operator::PathParam => (";", ";", true, "", false),
            Operator::Query => ("?", "&", true, "=", false),
            Operator::QueryCont => ("&", "&", true, "=", false),
        };
        Spec {
            first,
            sep,
            named,
            ifemp,
            allow_reserved,
        }
    }
}

/// What is wrong with a template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TemplateErrorKind {
    /// A `{` without its `}` (or a `{` inside an expression).
    UnclosedExpression,
    /// A `}` outside an expression.
    UnopenedExpression,
    /// `{}`, `{+}`, or an empty name in a list (`{a,}`).
    EmptyExpression,
    /// An operator RFC 6570 reserves for future use: `=`, `,`, `!`, `@`, `|`.
    ReservedOperator,
    /// A name outside `varchar *(["."] varchar)`, varchar = ALPHA / DIGIT / `_`
    /// (percent-encoded varchars are not accepted).
    InvalidName,
    /// A level 4 modifier: prefix `{var:N}` or explode `{var*}`.
    Unsupported,
    /// The same name twice (matching cannot ensure equal values without backtracking).
    DuplicateName,
    /// More than [`MAX_VARS`] variables.
    TooManyVariables,
    /// Two variables with nothing between them (`{a}{b}`, `{a}{+b}`): which one gets
    /// which characters is arbitrary, so such a template is refused.
    AdjacentVariables,
    /// More than one variable that may span `/` (`{+a}`, `{#a}`): which one gets the
    /// extra segments is arbitrary, so such a template is refused.
    SeveralGreedy,
}

/// A template failed [`UriTemplate::new`]: what, and the byte offset where it was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TemplateError {
    /// What is wrong.
    pub kind: TemplateErrorKind,
    /// Byte offset in the template text (of the expression concerned).
    pub at: usize,
}

impl fmt::Display for TemplateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invalid URI template at byte {}: {:?}",
            self.at, self.kind
        )
    }
}

impl core::error::Error for TemplateError {}

/// One piece of a template: literal text or an expression.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Part<'a> {
    Literal(&'a str),
    /// An expression: its operator, the variable list (operator removed), its offset.
    Expr {
        op: Operator,
        list: &'a str,
        at: usize,
    },
}

/// The pieces of a template, in order; each literal run is one piece.
#[derive(Clone)]
pub(crate) struct Parts<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Parts<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        Parts { text, pos: 0 }
    }
}

impl<'a> Iterator for Parts<'a> {
    type Item = Result<Part<'a>, TemplateError>;

    fn next(&mut self) -> Option<Self::Item> {
        let rest = self.text.get(self.pos..)?;
        if rest.is_empty() {
            return None;
        }
        let at = self.pos;
        if let Some(body) = rest.strip_prefix('{') {
            let Some(end) = body
                .find(['{', '}'])
                .filter(|&e| body.as_bytes()[e] == b'}')
            else {
                self.pos = self.text.len();
                return Some(Err(TemplateError {
                    kind: TemplateErrorKind::UnclosedExpression,
                    at,
                }));
            };
            self.pos += end + 2;
            let inner = &body[..end];
            let (op, list) = match inner.as_bytes().first() {
                Some(&b) if Operator::from_byte(b).is_some() => (
                    Operator::from_byte(b).unwrap_or(Operator::Simple),
                    &inner[1..],
                ),
                Some(b'=' | b',' | b'!' | b'@' | b'|') => {
                    return Some(Err(TemplateError {
                        kind: TemplateErrorKind::ReservedOperator,
                        at,
                    }));
                }
                _ => (Operator::Simple, inner),
            };
            Some(Ok(Part::Expr { op, list, at }))
        } else {
            let end = rest.find(['{', '}']).unwrap_or(rest.len());
            if end == 0 {
                // A '}' outside an expression.
                self.pos = self.text.len();
                return Some(Err(TemplateError {
                    kind: TemplateErrorKind::UnopenedExpression,
                    at,
                }));
            }
            self.pos += end;
            Some(Ok(Part::Literal(&rest[..end])))
        }
    }
}

/// Whether `name` is an RFC 6570 varname (without percent-encoded varchars).
fn valid_name(name: &str) -> bool {
    let b = name.as_bytes();
    let varchar = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    !b.is_empty()
        && varchar(b[0])
        && varchar(b[b.len() - 1])
        && b.windows(2).all(|w| w[0] != b'.' || w[1] != b'.')
        && b.iter().all(|&c| varchar(c) || c == b'.')
}

/// A checked RFC 6570 URI template (levels 1–3), borrowing its text.
///
/// [`new`](Self::new) checks the template once; afterwards matching and expansion
/// re-read the text (nothing is stored but the text, so the type is `Copy` and tables
/// of templates cost two words each).
///
/// ```
/// use picomcp::uri::UriTemplate;
/// let t = UriTemplate::new("file:///logs/{service}/{+path}{?since,level}")?;
/// let vars = t.match_uri("file:///logs/api/2026/12/02.log?level=error").unwrap();
/// assert_eq!(vars.get("service"), Some("api"));
/// assert_eq!(vars.get("path"), Some("2026/12/02.log"));
/// assert_eq!(vars.get("level"), Some("error"));
/// assert_eq!(vars.get("since"), None);
///
/// let mut buf = [0u8; 64];
/// let uri = t.expand(|n| match n { "service" => Some("db"), "path" => Some("a b/c"), _ => None }, &mut buf)?;
/// assert_eq!(uri, "file:///logs/db/a%20b/c");
/// # Ok::<(), Box<dyn core::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UriTemplate<'a> {
    text: &'a str,
}

impl<'a> UriTemplate<'a> {
    /// Checks `text`: balanced braces, known operators, valid and distinct names, at most
    /// [`MAX_VARS`] variables, no level 4 modifiers, no two variables without a literal
    /// between them, at most one `{+var}`/`{#var}` outside the query tail (see
    /// [`TemplateErrorKind`] for each refusal).
    pub fn new(text: &'a str) -> Result<Self, TemplateError> {
        let mut names: [&str; MAX_VARS] = [""; MAX_VARS];
        let mut n = 0;
        for part in Parts::new(text) {
            let Part::Expr { list, at, .. } = part? else {
                continue;
            };
            let err = |kind| TemplateError { kind, at };
            if list.is_empty() {
                return Err(err(TemplateErrorKind::EmptyExpression));
            }
            for name in list.split(',') {
                if name.is_empty() {
                    return Err(err(TemplateErrorKind::EmptyExpression));
                }
                if name.ends_with('*') || name.contains(':') {
                    return Err(err(TemplateErrorKind::Unsupported));
                }
                if !valid_name(name) {
                    return Err(err(TemplateErrorKind::InvalidName));
                }
                if names[..n].contains(&name) {
                    return Err(err(TemplateErrorKind::DuplicateName));
                }
                if n == MAX_VARS {
                    return Err(err(TemplateErrorKind::TooManyVariables));
                }
                names[n] = name;
                n += 1;
            }
        }
        super::matching::Layout::build(text)?;
        Ok(UriTemplate { text })
    }

    /// A template [`UriTemplate::new`] already accepted (the server layer checks its
    /// tables once at start-up, not on every `resources/read`).
    #[cfg(feature = "server")]
    pub(crate) fn trusted(text: &'a str) -> Self {
        UriTemplate { text }
    }

    /// The template text.
    pub fn as_str(&self) -> &'a str {
        self.text
    }

    /// Whether the template has no expression (it then matches only itself).
    pub fn is_literal(&self) -> bool {
        self.var_names().next().is_none()
    }

    /// The variable names, in template order.
    pub fn var_names(&self) -> impl Iterator<Item = &'a str> + 'a {
        self.expressions().flat_map(|(_, list, _)| list.split(','))
    }

    /// The expressions, already checked by `new`.
    pub(crate) fn expressions(&self) -> impl Iterator<Item = (Operator, &'a str, usize)> + 'a {
        Parts::new(self.text).filter_map(|p| match p {
            Ok(Part::Expr { op, list, at }) => Some((op, list, at)),
            _ => None,
        })
    }

    pub(crate) fn parts(&self) -> impl Iterator<Item = Part<'a>> + 'a {
        Parts::new(self.text).filter_map(Result::ok)
    }

    /// Expands the template (RFC 6570 §3) with the values `value(name)` gives, into `out`.
    ///
    /// `None` is an undefined variable: it expands to nothing, and an expression whose
    /// variables are all undefined expands to nothing (no `?`, no `/`). Values are
    /// percent-encoded as the operator says: everything but unreserved characters for
    /// `{var}`, `{.var}`, `{/var}`, `{;var}`, `{?var}`, `{&var}`; reserved characters and
    /// existing `%XX` triplets are kept for `{+var}` and `{#var}`. Non-ASCII characters
    /// are encoded as their UTF-8 bytes. Literal text is copied as it is.
    ///
    /// A too small `out` is [`InsufficientSize`] with the length the URI needs.
    pub fn expand<'v, 'b>(
        &self,
        value: impl Fn(&str) -> Option<&'v str>,
        out: &'b mut [u8],
    ) -> Result<&'b str, InsufficientSize> {
        let mut w = Writer { out, len: 0 };
        for part in self.parts() {
            match part {
                Part::Literal(text) => w.push(text.as_bytes()),
                Part::Expr { op, list, .. } => {
                    let spec = op.spec();
                    let mut first = true;
                    for name in list.split(',') {
                        let Some(v) = value(name) else { continue };
                        w.push(if first { spec.first } else { spec.sep }.as_bytes());
                        first = false;
                        if spec.named {
                            w.push(name.as_bytes());
                            if v.is_empty() {
                                w.push(spec.ifemp.as_bytes());
                                continue;
                            }
                            w.push(b"=");
                        }
                        w.encode(v, spec.allow_reserved);
                    }
                }
            }
        }
        let len = w.len;
        if len > w.out.len() {
            return Err(InsufficientSize { required: len });
        }
        core::str::from_utf8(&w.out[..len]).map_err(|_| InsufficientSize { required: len })
    }
}

/// Writes into a caller buffer, counting what does not fit.
struct Writer<'b> {
    out: &'b mut [u8],
    len: usize,
}

impl Writer<'_> {
    fn push(&mut self, bytes: &[u8]) {
        let end = self.len + bytes.len();
        if let Some(dst) = self.out.get_mut(self.len..end) {
            dst.copy_from_slice(bytes);
        }
        self.len = end;
    }

    fn encode(&mut self, v: &str, allow_reserved: bool) {
        const HEX: &[u8; 16] = b"0123456789ABCDEF";
        let b = v.as_bytes();
        let mut i = 0;
        while i < b.len() {
            let c = b[i];
            if allow_reserved && c == b'%' && escape_at(b, i).is_some() {
                self.push(&b[i..i + 3]);
                i += 3;
                continue;
            }
            if is_unreserved(c) || (allow_reserved && is_reserved(c)) {
                self.push(&[c]);
            } else {
                self.push(&[b'%', HEX[(c >> 4) as usize], HEX[(c & 15) as usize]]);
            }
            i += 1;
        }
    }
}

/// The variables a match found, borrowing the template (names) and the URI (values).
///
/// Values are the raw slices of the URI, still percent-encoded; decode them with
/// [`percent_decode`](super::percent_decode). A query variable the URI did not give is
/// absent ([`get`](Self::get) is `None`); every other variable is present.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Vars<'a, 'u> {
    pub(crate) names: [&'a str; MAX_VARS],
    pub(crate) values: [Option<&'u str>; MAX_VARS],
    pub(crate) count: usize,
}

impl<'a, 'u> Vars<'a, 'u> {
    /// The raw value of `name`, if the URI gave one.
    pub fn get(&self, name: &str) -> Option<&'u str> {
        self.iter().find(|(n, _)| *n == name).map(|(_, v)| v)
    }

    /// The `(name, raw value)` pairs the URI gave, in template order.
    pub fn iter(&self) -> impl Iterator<Item = (&'a str, &'u str)> + '_ {
        let count = self.count.min(MAX_VARS);
        self.names[..count]
            .iter()
            .zip(&self.values[..count])
            .filter_map(|(n, v)| v.map(|v| (*n, v)))
    }

    /// How many variables the URI gave.
    pub fn len(&self) -> usize {
        self.iter().count()
    }

    /// Whether the URI gave no variable (a literal template, or only absent query ones).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
