//! `Mcp-Param-{Name}` headers derived from a tool's `inputSchema` (MODERN §13.2, §13.3):
//! the `x-mcp-header` annotations read once, here, for both roles.
//!
//! - [`annotations`] walks a schema and yields each annotation (its header name, the
//!   property path from the root and the property's type), or the reason the definition
//!   is invalid: a name that is not an RFC 9110 token, a name used twice
//!   (case-insensitively), a property that is not `string`, `integer` or `boolean`, or an
//!   annotation not reachable from the root through `properties` keys alone.
//! - The server side ([`crate::http::endpoint`]) checks each 2026-07-28 `tools/call`'s
//!   headers against its arguments with [`check`]; the schemas come from the host's
//!   [`ToolSchemas`] (the server layer implements it for its tables, so a host that serves
//!   a [`Catalog`](crate::server::Catalog) gets the check without listing anything).
//! - The client side writes the headers of a call with [`write_headers`], from the
//!   schema the server listed in `tools/list`.
//!
//! ```
//! use picomcp::http::params::{write_headers, MAX_PARAMS};
//! use picomcp::http::Header;
//! use picomcp::json::Json;
//!
//! let schema = Json::new(r#"{"type":"object","properties":{"city":{"type":"string","x-mcp-header":"City"}}}"#).unwrap();
//! let args = Json::new(r#"{"city":"Zürich"}"#).unwrap();
//! let (mut buf, mut hs) = ([0u8; 256], [Header::EMPTY; MAX_PARAMS]);
//! let n = write_headers(schema, Some(args), &mut buf, &mut hs).unwrap();
//! assert_eq!(hs[..n][0].name, "Mcp-Param-City");
//! assert_eq!(hs[..n][0].value, b"=?base64?WsO8cmljaA==?=");
//! ```

use core::fmt;

use super::Header;
use super::headers;
use crate::json::{Json, JsonKind, JsonStr};

/// The most properties an annotation's path may cross (root property = 1). A deeper
/// annotation makes the definition invalid ([`AnnotationError::TooDeep`]).
pub const MAX_PATH: usize = 8;
/// The most annotations one schema may carry ([`AnnotationError::TooMany`] beyond), and so
/// the most `Mcp-Param-*` headers one call sends.
pub const MAX_PARAMS: usize = 16;
/// The header name prefix.
pub const PREFIX: &str = "Mcp-Param-";

/// The JSON type of an annotated property (the only three allowed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamType {
    /// `"type": "string"`.
    String,
    /// `"type": "integer"` (values within ±(2^53−1)).
    Integer,
    /// `"type": "boolean"`.
    Boolean,
}

/// One `x-mcp-header` annotation.
#[derive(Clone, Copy, Debug)]
pub struct Annotation<'a> {
    /// `{Name}` of `Mcp-Param-{Name}`: an RFC 9110 token.
    pub header: &'a str,
    /// The property names from the root to the annotated property (`path[..depth]`).
    pub path: [JsonStr<'a>; MAX_PATH],
    /// How many of `path` are used (at least 1).
    pub depth: usize,
    /// The property's type.
    pub ty: ParamType,
}

/// The argument `a` mirrors in `arguments`, when it is present and not `null` (keys
/// compared decoded, so an escaped key still matches).
pub fn value_at<'v>(arguments: Option<Json<'v>>, a: &Annotation<'_>) -> Option<Json<'v>> {
    let mut v = arguments?;
    for key in &a.path[..a.depth] {
        v = v
            .members()
            .find(|(k, _)| k.chars().eq(key.chars()))
            .map(|(_, v)| v)?;
    }
    (!v.is_null()).then_some(v)
}

/// Why a schema's annotations make the tool definition invalid (MODERN §13.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AnnotationError {
    /// The value is empty, not a string, or not an RFC 9110 token (escapes included).
    NotToken,
    /// Two annotations name the same header (case-insensitively).
    Duplicate,
    /// The annotated property's `type` is not `string`, `integer` or `boolean`.
    WrongType,
    /// The annotation is not reachable from the root through `properties` alone.
    Unreachable,
    /// The annotation's path is deeper than [`MAX_PATH`].
    TooDeep,
    /// More than [`MAX_PARAMS`] annotations.
    TooMany,
}

impl fmt::Display for AnnotationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            AnnotationError::NotToken => "an x-mcp-header value is not an HTTP token",
            AnnotationError::Duplicate => "two x-mcp-header values name the same header",
            AnnotationError::WrongType => {
                "x-mcp-header is on a property that is not string, integer or boolean"
            }
            AnnotationError::Unreachable => {
                "x-mcp-header is on a property not reachable through properties alone"
            }
            AnnotationError::TooDeep => "x-mcp-header is nested too deep",
            AnnotationError::TooMany => "too many x-mcp-header annotations",
        })
    }
}

const KEY: &str = "x-mcp-header";

/// RFC 9110 `tchar`.
fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// True when `s` is a non-empty RFC 9110 token.
pub fn is_token(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(is_tchar)
}

/// Keywords whose values are data, not subschemas: an `x-mcp-header` key inside them is
/// not an annotation.
const DATA_KEYWORDS: [&str; 5] = ["const", "default", "enum", "examples", "x-mcp-header"];

/// Calls `f` with every annotation of `schema`, in document order, after checking the
/// whole schema (nothing is yielded from an invalid one). A schema with no annotation is
/// cheap: the walk is skipped when the text never mentions `x-mcp-header`.
///
/// # Errors
/// The first [`AnnotationError`] found.
pub fn annotations<'a>(
    schema: Json<'a>,
    mut f: impl FnMut(&Annotation<'a>),
) -> Result<(), AnnotationError> {
    if !schema.as_raw().contains(KEY) {
        return Ok(());
    }
    let mut found = [None::<Annotation<'a>>; MAX_PARAMS];
    let mut n = 0;
    let mut path = [JsonStr::from_validated("", false); MAX_PATH];
    walk(schema, true, &mut path, 0, &mut |a| {
        if found[..n]
            .iter()
            .flatten()
            .any(|b| b.header.eq_ignore_ascii_case(a.header))
        {
            return Err(AnnotationError::Duplicate);
        }
        *found.get_mut(n).ok_or(AnnotationError::TooMany)? = Some(*a);
        n += 1;
        Ok(())
    })?;
    found[..n].iter().flatten().for_each(&mut f);
    Ok(())
}

/// Checks a schema's annotations without using them.
///
/// # Errors
/// As [`annotations`].
pub fn check_schema(schema: Json<'_>) -> Result<(), AnnotationError> {
    annotations(schema, |_| {})
}

fn walk<'a>(
    node: Json<'a>,
    reachable: bool,
    path: &mut [JsonStr<'a>; MAX_PATH],
    depth: usize,
    f: &mut impl FnMut(&Annotation<'a>) -> Result<(), AnnotationError>,
) -> Result<(), AnnotationError> {
    match node.kind() {
        JsonKind::Array => {
            for e in node.elements() {
                walk(e, false, path, depth, f)?;
            }
            return Ok(());
        }
        JsonKind::Object => {}
        _ => return Ok(()),
    }
    if let Some(h) = node.get(KEY) {
        // Only a property schema (depth >= 1) reached through `properties` may carry one.
        if !reachable || depth == 0 {
            return Err(AnnotationError::Unreachable);
        }
        let header = h
            .as_str()
            .and_then(|s| s.as_plain())
            .filter(|s| is_token(s))
            .ok_or(AnnotationError::NotToken)?;
        let ty = match node.get("type").and_then(|t| t.as_str()) {
            Some(t) if t.eq_str("string") => ParamType::String,
            Some(t) if t.eq_str("integer") => ParamType::Integer,
            Some(t) if t.eq_str("boolean") => ParamType::Boolean,
            _ => return Err(AnnotationError::WrongType),
        };
        f(&Annotation {
            header,
            path: *path,
            depth,
            ty,
        })?;
    }
    for (key, value) in node.members() {
        if DATA_KEYWORDS.iter().any(|k| key.eq_str(k)) {
            continue;
        }
        if key.eq_str("properties") && value.is_object() {
            for (name, sub) in value.members() {
                if !sub.as_raw().contains(KEY) {
                    continue;
                }
                let slot = path.get_mut(depth).ok_or(AnnotationError::TooDeep)?;
                *slot = name;
                walk(sub, reachable, path, depth + 1, f)?;
            }
        } else if value.as_raw().contains(KEY) {
            walk(value, false, path, depth, f)?;
        }
    }
    Ok(())
}

/// Where a host keeps its tools' input schemas, for the endpoint's `Mcp-Param-*` check.
/// The server layer implements it for its tables ([`crate::server::Server`],
/// [`crate::server::Catalog`]).
pub trait ToolSchemas: fmt::Debug + Sync {
    /// The `inputSchema` (JSON text) of the tool named `tool`, if there is one.
    fn input_schema(&self, tool: JsonStr<'_>) -> Option<&str>;
}

/// Why [`check`] refuses a call's headers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamError {
    /// An annotated argument is present but its header is missing.
    Missing,
    /// A header does not equal its argument, has invalid characters, or is sent for an
    /// argument that is absent or `null`.
    Mismatch,
    /// The tool's schema is invalid ([`annotations`]).
    Schema(AnnotationError),
}

/// Checks a 2026-07-28 `tools/call`'s `Mcp-Param-*` headers against its `arguments`, for
/// every annotation of the tool's `inputSchema` (MODERN §13.2): a value present and not
/// `null` needs its header, equal after sentinel decoding (strings as text, integers as
/// numbers, booleans as `true`/`false`); an absent or `null` one must have none.
/// `header` looks a header up by name (case-insensitively).
///
/// # Errors
/// The first [`ParamError`].
pub fn check<'h>(
    schema: Json<'_>,
    arguments: Option<Json<'_>>,
    header: impl Fn(&str) -> Option<&'h [u8]>,
) -> Result<(), ParamError> {
    let mut result = Ok(());
    annotations(schema, |a| {
        if result.is_err() {
            return;
        }
        let mut name = [0u8; PREFIX.len() + 64];
        let Some(name) = header_name(a.header, &mut name) else {
            result = Err(ParamError::Mismatch);
            return;
        };
        let value = value_at(arguments, a);
        result = match (value, header(name)) {
            (None, None) => Ok(()),
            (Some(_), None) => Err(ParamError::Missing),
            (Some(v), Some(h)) if matches(h, v, a.ty) => Ok(()),
            _ => Err(ParamError::Mismatch),
        };
    })
    .map_err(ParamError::Schema)?;
    result
}

fn header_name<'b>(header: &str, buf: &'b mut [u8]) -> Option<&'b str> {
    let n = PREFIX.len() + header.len();
    let out = buf.get_mut(..n)?;
    out[..PREFIX.len()].copy_from_slice(PREFIX.as_bytes());
    out[PREFIX.len()..].copy_from_slice(header.as_bytes());
    core::str::from_utf8(out).ok()
}

/// A header value against the argument: a string as is, an integer numerically, a
/// boolean as `true`/`false` (MODERN §13.3).
pub fn matches(header: &[u8], v: Json<'_>, ty: ParamType) -> bool {
    let mut buf = [0u8; 512];
    let Ok(text) = headers::decode_value(crate::http::endpoint::trim_ows(header), &mut buf) else {
        return false;
    };
    match ty {
        ParamType::String => v.as_str().is_some_and(|s| s.eq_str(text)),
        ParamType::Boolean => v
            .as_bool()
            .is_some_and(|b| text == if b { "true" } else { "false" }),
        ParamType::Integer => {
            v.kind() == JsonKind::Number
                && match (v.as_f64(), text.parse::<f64>()) {
                    (Some(a), Ok(b)) => a == b && is_whole(a),
                    _ => false,
                }
        }
    }
}

/// An integer within ±(2^53−1), the range an annotated integer may take (no_std has no
/// `f64::fract`).
fn is_whole(f: f64) -> bool {
    const LIMIT: f64 = 9_007_199_254_740_991.0;
    (-LIMIT..=LIMIT).contains(&f) && (f as i64) as f64 == f
}

/// Why [`write_headers`] cannot write a call's headers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WriteParamsError {
    /// The schema is invalid: the tool must not be called over HTTP (MODERN §13.3).
    Schema(AnnotationError),
    /// `buf` or `out` is too small.
    InsufficientSize,
    /// An argument has a value its annotation's type cannot carry (a string for an
    /// integer property, an integer beyond ±(2^53−1)).
    BadValue,
}

/// Writes the `Mcp-Param-*` headers of a `tools/call` with `arguments`, for the tool
/// whose `inputSchema` is `schema` (as the server listed it), into `out`: names and
/// encoded values live in `buf`. Returns how many headers were written (absent and
/// `null` arguments get none). Pass them to
/// [`HttpClient::write_post`](super::client::HttpClient::write_post) as extra headers.
///
/// # Errors
/// [`WriteParamsError`].
pub fn write_headers<'b>(
    schema: Json<'_>,
    arguments: Option<Json<'_>>,
    buf: &'b mut [u8],
    out: &mut [Header<'b>],
) -> Result<usize, WriteParamsError> {
    let mut rest: &'b mut [u8] = buf;
    let mut n = 0;
    let mut result = Ok(());
    annotations(schema, |a| {
        if result.is_err() {
            return;
        }
        let Some(v) = value_at(arguments, a) else {
            return;
        };
        let slot = match out.get_mut(n) {
            Some(slot) => slot,
            None => {
                result = Err(WriteParamsError::InsufficientSize);
                return;
            }
        };
        match write_one(a, v, core::mem::take(&mut rest)) {
            Ok((header, r)) => {
                *slot = header;
                rest = r;
                n += 1;
            }
            Err(e) => result = Err(e),
        }
    })
    .map_err(WriteParamsError::Schema)?;
    result.map(|()| n)
}

/// One annotation's header: its name and encoded value split off the front of `r`.
fn write_one<'b>(
    a: &Annotation<'_>,
    v: Json<'_>,
    r: &'b mut [u8],
) -> Result<(Header<'b>, &'b mut [u8]), WriteParamsError> {
    let (name, r) = split_str(r, PREFIX.len() + a.header.len(), |b| {
        b[..PREFIX.len()].copy_from_slice(PREFIX.as_bytes());
        b[PREFIX.len()..].copy_from_slice(a.header.as_bytes());
    })?;
    // The value as text, then encoded.
    let mut num = [0u8; 24];
    let (text_len, escaped) = match (a.ty, v.kind()) {
        (ParamType::String, JsonKind::String) => {
            let s = v.as_str().ok_or(WriteParamsError::BadValue)?;
            (s.decoded_len(), Some(s))
        }
        (ParamType::Boolean, JsonKind::Bool) => {
            let t: &[u8] = if v.as_bool() == Some(true) {
                b"true"
            } else {
                b"false"
            };
            num[..t.len()].copy_from_slice(t);
            (t.len(), None)
        }
        (ParamType::Integer, JsonKind::Number) => {
            let f = v.as_f64().ok_or(WriteParamsError::BadValue)?;
            if !is_whole(f) {
                return Err(WriteParamsError::BadValue);
            }
            let mut w = crate::json::JsonWriter::new(&mut num);
            // In range: exact as i64.
            w.i64(f as i64);
            let len = w.finish().map_err(|_| WriteParamsError::BadValue)?;
            (len, None)
        }
        _ => return Err(WriteParamsError::BadValue),
    };
    let (plain, r) = match escaped {
        Some(s) => split_str(r, text_len, |b| {
            let _ = s.unescape_into(b);
        })?,
        None => split_str(r, text_len, |b| b.copy_from_slice(&num[..text_len]))?,
    };
    let need = headers::encoded_len(plain);
    if r.len() < need {
        return Err(WriteParamsError::InsufficientSize);
    }
    let (enc, r) = r.split_at_mut(need);
    let value =
        headers::encode_value(plain, enc).map_err(|_| WriteParamsError::InsufficientSize)?;
    Ok((
        Header {
            name,
            value: value.as_bytes(),
        },
        r,
    ))
}

/// Splits `len` bytes off `buf`, fills them with `fill` and reads them as UTF-8.
fn split_str(
    buf: &mut [u8],
    len: usize,
    fill: impl FnOnce(&mut [u8]),
) -> Result<(&str, &mut [u8]), WriteParamsError> {
    if buf.len() < len {
        return Err(WriteParamsError::InsufficientSize);
    }
    let (head, rest) = buf.split_at_mut(len);
    fill(head);
    let s = core::str::from_utf8(head).map_err(|_| WriteParamsError::BadValue)?;
    Ok((s, rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema(s: &str) -> Json<'_> {
        Json::new(s).unwrap()
    }

    #[test]
    fn finds_nested_annotations_in_order() {
        let s = schema(
            r#"{"type":"object","properties":{
                "region":{"type":"string","x-mcp-header":"Region"},
                "opts":{"type":"object","properties":{"dry":{"type":"boolean","x-mcp-header":"Dry-Run"}}},
                "n":{"type":"integer","x-mcp-header":"N"},
                "plain":{"type":"string"}}}"#,
        );
        let mut got = heapless::Vec::<(&str, usize, ParamType), 4>::new();
        annotations(s, |a| got.push((a.header, a.depth, a.ty)).unwrap()).unwrap();
        assert_eq!(
            got.as_slice(),
            &[
                ("Region", 1, ParamType::String),
                ("Dry-Run", 2, ParamType::Boolean),
                ("N", 1, ParamType::Integer)
            ]
        );
    }

    #[test]
    fn invalid_definitions() {
        let cases = [
            (
                r#"{"properties":{"a":{"type":"number","x-mcp-header":"A"}}}"#,
                AnnotationError::WrongType,
            ),
            (
                r#"{"properties":{"a":{"type":"string","x-mcp-header":"A B"}}}"#,
                AnnotationError::NotToken,
            ),
            (
                r#"{"properties":{"a":{"type":"string","x-mcp-header":""}}}"#,
                AnnotationError::NotToken,
            ),
            (
                r#"{"properties":{"a":{"type":"string","x-mcp-header":"X"},"b":{"type":"string","x-mcp-header":"x"}}}"#,
                AnnotationError::Duplicate,
            ),
            (
                r#"{"properties":{"a":{"type":"array","items":{"type":"string","x-mcp-header":"A"}}}}"#,
                AnnotationError::Unreachable,
            ),
            (
                r#"{"anyOf":[{"properties":{"a":{"type":"string","x-mcp-header":"A"}}}]}"#,
                AnnotationError::Unreachable,
            ),
            (
                r#"{"type":"object","x-mcp-header":"Root"}"#,
                AnnotationError::Unreachable,
            ),
        ];
        for (s, want) in cases {
            assert_eq!(check_schema(schema(s)), Err(want), "{s}");
        }
        // Data keywords are not annotations.
        assert_eq!(
            check_schema(schema(
                r#"{"properties":{"a":{"type":"object","default":{"x-mcp-header":"no"}}}}"#
            )),
            Ok(())
        );
    }

    #[test]
    fn server_check() {
        let s = schema(
            r#"{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"n":{"type":"integer","x-mcp-header":"N"}}}"#,
        );
        let args = Json::new(r#"{"region":"Zürich","n":42.0}"#).unwrap();
        let h = |pairs: &'static [(&'static str, &'static [u8])]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| k.eq_ignore_ascii_case(name))
                    .map(|(_, v)| *v)
            }
        };
        let good: &[(&str, &[u8])] = &[
            ("mcp-param-region", b"=?base64?WsO8cmljaA==?="),
            ("MCP-PARAM-N", b"42"),
        ];
        assert_eq!(check(s, Some(args), h(good)), Ok(()));
        let missing: &[(&str, &[u8])] = &[("mcp-param-n", b"42")];
        assert_eq!(check(s, Some(args), h(missing)), Err(ParamError::Missing));
        let wrong: &[(&str, &[u8])] = &[("mcp-param-region", b"Zurich"), ("mcp-param-n", b"42")];
        assert_eq!(check(s, Some(args), h(wrong)), Err(ParamError::Mismatch));
        let bad_b64: &[(&str, &[u8])] = &[
            ("mcp-param-region", b"=?base64?WsO8cmljaA?="),
            ("mcp-param-n", b"42"),
        ];
        assert_eq!(check(s, Some(args), h(bad_b64)), Err(ParamError::Mismatch));
        // Absent or null argument: no header expected, none allowed.
        let null_args = Json::new(r#"{"region":null}"#).unwrap();
        assert_eq!(check(s, Some(null_args), h(&[])), Ok(()));
        let extra: &[(&str, &[u8])] = &[("mcp-param-n", b"1")];
        assert_eq!(
            check(s, Some(null_args), h(extra)),
            Err(ParamError::Mismatch)
        );
    }

    #[test]
    fn client_writes_what_the_server_checks() {
        let s = schema(
            r#"{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"n":{"type":"integer","x-mcp-header":"N"},"on":{"type":"boolean","x-mcp-header":"On"},"gone":{"type":"string","x-mcp-header":"Gone"}}}"#,
        );
        let args = Json::new(r#"{"region":" padded","n":-7,"on":true,"gone":null}"#).unwrap();
        let mut buf = [0u8; 256];
        let mut hs = [Header::EMPTY; MAX_PARAMS];
        let n = write_headers(s, Some(args), &mut buf, &mut hs).unwrap();
        assert_eq!(n, 3);
        assert_eq!(hs[0].name, "Mcp-Param-Region");
        assert!(hs[0].value.starts_with(b"=?base64?"));
        assert_eq!((hs[1].name, hs[1].value), ("Mcp-Param-N", &b"-7"[..]));
        assert_eq!((hs[2].name, hs[2].value), ("Mcp-Param-On", &b"true"[..]));
        let sent = &hs[..n];
        let lookup = |name: &str| {
            sent.iter()
                .find(|h| h.name.eq_ignore_ascii_case(name))
                .map(|h| h.value)
        };
        assert_eq!(check(s, Some(args), lookup), Ok(()));
        // Too small a buffer is an error, not a truncated header.
        let mut tiny = [0u8; 8];
        let mut hs = [Header::EMPTY; MAX_PARAMS];
        assert_eq!(
            write_headers(s, Some(args), &mut tiny, &mut hs),
            Err(WriteParamsError::InsufficientSize)
        );
        // A value the type cannot carry.
        let bad = Json::new(r#"{"n":"seven"}"#).unwrap();
        let mut buf = [0u8; 256];
        assert_eq!(
            write_headers(s, Some(bad), &mut buf, &mut hs),
            Err(WriteParamsError::BadValue)
        );
    }
}
