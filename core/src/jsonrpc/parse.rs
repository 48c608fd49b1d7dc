//! The line parser: one pass that validates the JSON and reads the envelope members.

use super::{
    Batch, ErrorObject, ErrorResponse, Id, Message, Notification, ParseError, ParseErrorKind,
    Request, Response,
};
use crate::json::{Json, JsonError, JsonErrorKind, JsonStr, Scanner, StrSpan, short_eq};
use crate::limits::Limits;

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Member {
    JsonRpc = 0,
    Id = 1,
    Method = 2,
    Params = 3,
    Result = 4,
    Error = 5,
}

/// Which of `names` the key `k` is (its index), after unescaping.
#[inline(always)]
fn classify_key(b: &[u8], k: StrSpan, names: &[&str]) -> Option<u8> {
    let raw = b.get(k.start..k.end)?;
    if !k.escaped {
        return names
            .iter()
            .position(|n| short_eq(n.as_bytes(), raw))
            .map(|i| i as u8);
    }
    let raw = core::str::from_utf8(raw).ok()?;
    let s = JsonStr::from_validated(raw, true);
    names.iter().position(|n| s.eq_str(n)).map(|i| i as u8)
}

/// The envelope members, in [`Member`] order.
pub(super) const ENVELOPE: [&str; 6] = ["jsonrpc", "id", "method", "params", "result", "error"];
/// The members of an error object the parser reads, indexed by [`ErrorMember`].
pub(super) const ERROR_MEMBERS: [&str; 3] = ["code", "message", "data"];

#[derive(Clone, Copy)]
enum ErrorMember {
    Code = 0,
    Message = 1,
    Data = 2,
}

/// Where the named members of one object lie. Sets of members are bit masks indexed by
/// the member's position in its name table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Spans {
    /// Where each member's value lies; valid for the members in `complete`.
    pub(super) spans: [(usize, usize); 6],
    /// Members whose value is known to be complete (the first occurrence counts).
    pub(super) complete: u8,
    /// Members whose name was seen (even if the value then failed to scan).
    pub(super) seen: u8,
    /// Members seen more than once.
    pub(super) dup: u8,
}

impl Spans {
    pub(super) const NONE: Spans = Spans {
        spans: [(0, 0); 6],
        complete: 0,
        seen: 0,
        dup: 0,
    };

    fn span(&self, i: u8) -> Option<(usize, usize)> {
        (self.complete & (1 << i) != 0).then(|| self.spans[i as usize])
    }
}

/// What one pass over a top-level object found.
struct Envelope {
    /// The envelope members, indexed by [`Member`].
    top: Spans,
    /// The members of the first `error` member's value when it is an object, indexed by
    /// [`ErrorMember`]: read in the same pass, so that a client's error responses cost no
    /// second walk.
    error_object: Spans,
    /// The first JSON error, if any (scanning stops there).
    error: Option<JsonError>,
}

impl Envelope {
    fn new() -> Self {
        Envelope {
            top: Spans::NONE,
            error_object: Spans::NONE,
            error: None,
        }
    }

    fn span(&self, m: Member) -> Option<(usize, usize)> {
        self.top.span(m as u8)
    }

    fn seen(&self, m: Member) -> bool {
        self.top.seen & (1 << m as u8) != 0
    }

    fn dup(&self, m: Member) -> bool {
        self.top.dup & (1 << m as u8) != 0
    }
}

/// Scans a top-level object starting at `sc.pos` (which is at `{`), recording the
/// envelope members in `env` (which must be new). Stops at the first JSON error.
#[inline(always)]
fn scan_envelope(sc: &mut Scanner<'_>, max_depth: usize, env: &mut Envelope) {
    #[cfg(target_pointer_width = "64")]
    {
        let fast = super::envelope_fast::scan(
            sc.b,
            sc.pos,
            max_depth,
            &mut env.top,
            &mut env.error_object,
        );
        if let Some(end) = fast {
            sc.pos = end;
            return;
        }
        *env = Envelope::new();
    }
    let r = scan_members::<true>(
        sc,
        1,
        max_depth,
        &ENVELOPE,
        &mut env.top,
        &mut env.error_object,
    );
    if let Err(e) = r {
        env.error = Some(e);
    }
}

/// The exact scan alone (no fast path), for the fast path's differential test: the
/// envelope members, the error object's members, and the offset after the object.
#[cfg(all(test, target_pointer_width = "64"))]
pub(super) fn scan_envelope_exact(
    b: &[u8],
    pos: usize,
    max_depth: usize,
) -> (Spans, Spans, Result<usize, JsonError>) {
    let mut sc = Scanner::new(b);
    sc.pos = pos;
    let (mut top, mut error_object) = (Spans::NONE, Spans::NONE);
    let r = scan_members::<true>(
        &mut sc,
        1,
        max_depth,
        &ENVELOPE,
        &mut top,
        &mut error_object,
    );
    (top, error_object, r.map(|()| sc.pos))
}

/// Scans an object at nesting level `depth` starting at `sc.pos` (at `{`), recording in
/// `found` where the members named in `names` (at most 6) lie. With `ERROR_OBJECT`, the
/// value of the first `error` member, when it is an object, is scanned the same way into
/// `error_object`.
// Inlined where speed is the goal; on small targets one copy per instance saves flash.
#[cfg_attr(target_pointer_width = "64", inline(always))]
fn scan_members<const ERROR_OBJECT: bool>(
    sc: &mut Scanner<'_>,
    depth: usize,
    max_depth: usize,
    names: &[&str],
    found: &mut Spans,
    error_object: &mut Spans,
) -> Result<(), JsonError> {
    if max_depth < depth {
        return Err(JsonError {
            kind: JsonErrorKind::TooDeep,
            offset: sc.pos,
        });
    }
    sc.expect(b'{')?;
    sc.skip_ws();
    if sc.peek() == Some(b'}') {
        sc.pos += 1;
        return Ok(());
    }
    loop {
        sc.skip_ws();
        let key = sc.scan_string()?;
        sc.skip_ws();
        sc.expect(b':')?;
        sc.skip_ws();
        let which = classify_key(sc.b, key, names).map(|m| 1u8 << m);
        if let Some(bit) = which {
            found.dup |= found.seen & bit;
            found.seen |= bit;
        }
        let vstart = sc.pos;
        if ERROR_OBJECT
            && which == Some(1 << Member::Error as u8)
            && found.dup & which.unwrap_or(0) == 0
            && sc.peek() == Some(b'{')
        {
            let mut unused = Spans::NONE;
            scan_members::<false>(
                sc,
                depth + 1,
                max_depth,
                &ERROR_MEMBERS,
                error_object,
                &mut unused,
            )?;
        } else {
            sc.scan_value(depth, max_depth)?;
        }
        let vend = sc.pos;
        sc.skip_ws();
        // Record the value only once it is known to be complete: followed by `,` or `}`, or
        // by the end of (possibly truncated) input after whitespace or a value that cannot
        // go on. A number at the very end may be cut short (`"id":12` of `"id":123`).
        let complete = match sc.peek() {
            Some(b',' | b'}') => true,
            None => sc.pos > vend || !matches!(sc.b.get(vstart), Some(b'-' | b'0'..=b'9')),
            Some(_) => false,
        };
        if let Some(bit) = which
            && complete
            && found.complete & bit == 0
        {
            found.complete |= bit;
            found.spans[bit.trailing_zeros() as usize] = (vstart, vend);
        }
        match sc.peek() {
            Some(b',') => sc.pos += 1,
            Some(b'}') => {
                sc.pos += 1;
                return Ok(());
            }
            Some(_) => {
                return Err(JsonError {
                    kind: JsonErrorKind::UnexpectedByte,
                    offset: sc.pos,
                });
            }
            None => {
                return Err(JsonError {
                    kind: JsonErrorKind::UnexpectedEnd,
                    offset: sc.pos,
                });
            }
        }
    }
}

/// Reads a valid id from an id member's value text.
enum IdCheck<'a> {
    Ok(Id<'a>),
    TooLong(Id<'a>),
    Null,
    Bad,
}

fn check_id(raw: &str, max_id_len: usize) -> IdCheck<'_> {
    let v = Json::from_validated(raw);
    if v.is_null() {
        return IdCheck::Null;
    }
    if v.as_str().is_some() || v.is_integer() {
        let id = Id::from_raw(raw);
        if raw.len() > max_id_len {
            IdCheck::TooLong(id)
        } else {
            IdCheck::Ok(id)
        }
    } else {
        IdCheck::Bad
    }
}

/// Parses one line (without its `\n`) as a JSON-RPC message under MCP's rules.
///
/// # Errors
/// A [`ParseError`] that says which JSON-RPC error the peer must get
/// ([`ParseError::code`]), with the id to echo when it could be read, and whether the
/// message looked like a response (then no reply is sent).
///
/// ```
/// use picomcp::{Limits, jsonrpc::{parse, Message}};
/// let m = parse(r#"{"jsonrpc":"2.0","id":7,"method":"pi\u006eg"}"#, &Limits::DEFAULT).unwrap();
/// let Message::Request(r) = m else { panic!() };
/// assert!(r.method.eq_str("ping"));
/// assert_eq!(r.id.as_raw(), "7");
///
/// let e = parse(r#"{"jsonrpc":"2.0","id":"a","method":"x",}"#, &Limits::DEFAULT).unwrap_err();
/// assert_eq!(e.code().0, -32700);
/// assert_eq!(e.id.unwrap().as_raw(), "\"a\"");
/// ```
pub fn parse<'a>(line: &'a str, limits: &Limits) -> Result<Message<'a>, ParseError<'a>> {
    let b = line.as_bytes();
    let mut sc = Scanner::new(b);
    sc.skip_ws();
    match sc.peek() {
        Some(b'{') => parse_object(line, sc.pos, limits.max_depth, limits.max_id_len),
        Some(b'[') => {
            let mut sc2 = Scanner::new(b);
            match sc2.scan_document(limits.max_depth) {
                Ok(()) => Ok(Message::Batch(Batch {
                    array: Json::from_validated(crate::json::trim_json_ws(line)),
                    max_depth: limits.max_depth,
                    max_id_len: limits.max_id_len,
                })),
                Err(e) => Err(json_error(e, None, false)),
            }
        }
        _ => {
            let mut sc2 = Scanner::new(b);
            match sc2.scan_document(limits.max_depth) {
                Ok(()) => Err(ParseError {
                    kind: ParseErrorKind::NotAnObject,
                    id: None,
                    response_like: false,
                }),
                Err(e) => Err(json_error(e, None, false)),
            }
        }
    }
}

fn json_error(e: JsonError, id: Option<Id<'_>>, response_like: bool) -> ParseError<'_> {
    let kind = if e.kind == JsonErrorKind::TooDeep {
        ParseErrorKind::TooDeep
    } else {
        ParseErrorKind::Json(e.kind)
    };
    ParseError {
        kind,
        id,
        response_like,
    }
}

/// Parses one element of a batch.
pub(crate) fn parse_element(
    text: &str,
    max_depth: usize,
    max_id_len: usize,
) -> Result<Message<'_>, ParseError<'_>> {
    if text.starts_with('{') {
        parse_object(text, 0, max_depth, max_id_len)
    } else {
        Err(ParseError {
            kind: ParseErrorKind::NotAnObject,
            id: None,
            response_like: false,
        })
    }
}

fn parse_object(
    line: &str,
    start: usize,
    max_depth: usize,
    max_id_len: usize,
) -> Result<Message<'_>, ParseError<'_>> {
    let b = line.as_bytes();
    let mut sc = Scanner::new(b);
    sc.pos = start;
    let mut env = Envelope::new();
    scan_envelope(&mut sc, max_depth, &mut env);
    let text = |m: Member| env.span(m).and_then(|(s, e)| line.get(s..e));
    let has = |m: Member| env.span(m).is_some();
    // Judged on the member names seen, so a response whose value is broken is still one.
    let seen = |m: Member| env.seen(m);
    let response_like = !seen(Member::Method) && (seen(Member::Result) || seen(Member::Error));

    let id_check = text(Member::Id).map(|raw| check_id(raw, max_id_len));
    // The id we may echo: valid (even if too long) and not duplicated.
    let echo_id = match id_check {
        Some(IdCheck::Ok(id) | IdCheck::TooLong(id)) if !env.dup(Member::Id) => Some(id),
        _ => None,
    };
    fn fail<'a>(
        kind: ParseErrorKind,
        id: Option<Id<'a>>,
        response_like: bool,
    ) -> Result<Message<'a>, ParseError<'a>> {
        Err(ParseError {
            kind,
            id,
            response_like,
        })
    }

    if let Some(e) = env.error {
        return Err(json_error(e, echo_id, response_like));
    }
    sc.skip_ws();
    if sc.pos < b.len() {
        let e = JsonError {
            kind: JsonErrorKind::TrailingCharacters,
            offset: sc.pos,
        };
        return Err(json_error(e, echo_id, response_like));
    }
    if env.top.dup != 0 {
        return fail(ParseErrorKind::DuplicateMember, echo_id, response_like);
    }
    let version_ok = text(Member::JsonRpc).is_some_and(|t| {
        t == "\"2.0\""
            || Json::from_validated(t)
                .as_str()
                .is_some_and(|s| s.eq_str("2.0"))
    });
    if !version_ok {
        return fail(
            if response_like {
                ParseErrorKind::InvalidResponse
            } else {
                ParseErrorKind::BadVersion
            },
            echo_id,
            response_like,
        );
    }
    let params = text(Member::Params).map(Json::from_validated);

    if let Some(m) = text(Member::Method) {
        let id = match id_check {
            None => None,
            Some(IdCheck::Ok(id)) => Some(id),
            Some(IdCheck::TooLong(id)) => {
                return fail(ParseErrorKind::IdTooLong, Some(id), response_like);
            }
            Some(IdCheck::Null | IdCheck::Bad) => {
                return fail(ParseErrorKind::BadId, None, response_like);
            }
        };
        let Some(method) = Json::from_validated(m).as_str() else {
            return fail(ParseErrorKind::BadMethod, id, response_like);
        };
        if has(Member::Result) || has(Member::Error) {
            return fail(ParseErrorKind::InvalidShape, id, response_like);
        }
        if params.is_some_and(|p| !p.is_object()) {
            return fail(ParseErrorKind::BadParams, id, response_like);
        }
        return Ok(match id {
            Some(id) => Message::Request(Request { id, method, params }),
            None => Message::Notification(Notification { method, params }),
        });
    }

    if !response_like {
        return fail(ParseErrorKind::InvalidShape, echo_id, response_like);
    }
    let bad_response = |id| {
        Err(ParseError {
            kind: ParseErrorKind::InvalidResponse,
            id,
            response_like: true,
        })
    };
    if has(Member::Result) && has(Member::Error) {
        return bad_response(echo_id);
    }
    let id = match id_check {
        None | Some(IdCheck::Null) => None,
        Some(IdCheck::Ok(id) | IdCheck::TooLong(id)) => Some(id),
        Some(IdCheck::Bad) => return bad_response(None),
    };
    if let Some(r) = text(Member::Result) {
        let result = Json::from_validated(r);
        return match (id, result.is_object()) {
            (Some(id), true) => Ok(Message::Response(Response { id, result })),
            _ => bad_response(id),
        };
    }
    // The error object's members were read in the envelope pass; the first of duplicate
    // members counts, as with `get`.
    let member = |m: ErrorMember| {
        env.error_object
            .span(m as u8)
            .and_then(|(s, e)| line.get(s..e))
            .map(Json::from_validated)
    };
    let data = member(ErrorMember::Data);
    match (
        member(ErrorMember::Code).and_then(|c| c.as_i64()),
        member(ErrorMember::Message).and_then(|m| m.as_str()),
    ) {
        (Some(code), Some(message)) => Ok(Message::Error(ErrorResponse {
            id,
            error: ErrorObject {
                code,
                message,
                data,
            },
        })),
        _ => bad_response(id),
    }
}

/// Reads the top-level `id` of a line that may be truncated or invalid, as far as the
/// text before the first problem allows. Used to answer an overlong or broken request
/// with its own id. Returns `None` when no complete, valid id member precedes the problem.
pub fn peek_id(bytes: &[u8], max_depth: usize) -> Option<Id<'_>> {
    let mut sc = Scanner::new(bytes);
    sc.skip_ws();
    if sc.peek() != Some(b'{') {
        return None;
    }
    let mut env = Envelope::new();
    scan_envelope(&mut sc, max_depth, &mut env);
    if env.dup(Member::Id) {
        return None;
    }
    let (s, e) = env.span(Member::Id)?;
    let raw = core::str::from_utf8(bytes.get(s..e)?).ok()?;
    match check_id(raw, usize::MAX) {
        IdCheck::Ok(id) | IdCheck::TooLong(id) => Some(id),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::format;
    use std::string::{String, ToString};
    use std::vec::Vec;

    use super::*;
    use crate::json::JsonErrorKind;

    /// `table!(f; input => expected, ...)` calls `f(line, input, expected)` per row.
    macro_rules! table {
        ($f:expr; $($input:expr => $expected:expr),* $(,)?) => {{
            $( $f(line!(), $input, $expected); )*
        }};
    }

    fn opt(j: Option<Json<'_>>) -> String {
        j.map_or("-".into(), |j| j.as_raw().into())
    }

    /// A one-line rendering of a parse outcome, for tables.
    fn show(r: &Result<Message<'_>, ParseError<'_>>) -> String {
        match r {
            Ok(Message::Request(r)) => format!(
                "req id={} method={} params={}",
                r.id,
                r.method,
                opt(r.params)
            ),
            Ok(Message::Notification(n)) => {
                format!("notif method={} params={}", n.method, opt(n.params))
            }
            Ok(Message::Response(r)) => format!("resp id={} result={}", r.id, r.result),
            Ok(Message::Error(e)) => format!(
                "err id={} code={} message={} data={}",
                e.id.map_or("-".into(), |i| i.to_string()),
                e.error.code,
                e.error.message,
                opt(e.error.data)
            ),
            Ok(Message::Batch(b)) => format!("batch n={}", b.len()),
            Err(e) => format!(
                "fail {} {:?} id={}{}",
                e.code().0,
                e.kind,
                e.id.map_or("-".into(), |i| i.to_string()),
                if e.response_like { " resp" } else { "" }
            ),
        }
    }

    fn check_with(limits: Limits) -> impl Fn(u32, &str, &str) {
        move |line, input, want| {
            let got = show(&parse(input, &limits));
            assert_eq!(got, want, "row {line}: {input}");
            // The error's code is consistent with its kind.
            if let Err(e) = parse(input, &limits) {
                assert_eq!(e.code(), e.kind.code());
                assert_eq!(e.needs_reply(), !e.response_like);
            }
        }
    }

    fn check(line: u32, input: &str, want: &str) {
        check_with(Limits::DEFAULT)(line, input, want)
    }

    #[test]
    fn requests_and_notifications() {
        table!(check;
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"# => "req id=1 method=ping params=-",
            r#"{"method":"ping","id":"a","jsonrpc":"2.0","params":{}}"# => r#"req id="a" method=ping params={}"#,
            r#"  {"jsonrpc" : "2.0" , "id" : 0 , "method" : "x" , "params" : { "a" : [1] } }  "# => r#"req id=0 method=x params={ "a" : [1] }"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"# => "notif method=notifications/initialized params=-",
            r#"{"jsonrpc":"2.0","method":"n","params":{"id":5}}"# => r#"notif method=n params={"id":5}"#,
            // unknown members are ignored, nested envelope names do not count
            r#"{"jsonrpc":"2.0","id":2,"method":"m","_meta":{"id":1,"method":3},"x":[{"result":1}]}"# => "req id=2 method=m params=-",
            // whitespace the JSON grammar allows, \r included
            "{\"jsonrpc\":\"2.0\",\"method\":\"n\"}\r" => "notif method=n params=-",
            "\t{\"jsonrpc\":\"2.0\",\n\"method\":\"n\"}" => "notif method=n params=-",
        );
    }

    #[test]
    fn version() {
        table!(check;
            r#"{"jsonrpc":"2\u002e0","id":1,"method":"m"}"# => "req id=1 method=m params=-",
            r#"{"jsonrpc":"\u0032.\u0030","method":"m"}"# => "notif method=m params=-",
            r#"{"id":1,"method":"m"}"# => "fail -32600 BadVersion id=1",
            r#"{"jsonrpc":"1.0","id":1,"method":"m"}"# => "fail -32600 BadVersion id=1",
            r#"{"jsonrpc":2.0,"id":1,"method":"m"}"# => "fail -32600 BadVersion id=1",
            r#"{"jsonrpc":"2.0 ","id":1,"method":"m"}"# => "fail -32600 BadVersion id=1",
            r#"{"jsonrpc":"2","id":1,"method":"m"}"# => "fail -32600 BadVersion id=1",
            r#"{"jsonrpc":null,"id":1,"method":"m"}"# => "fail -32600 BadVersion id=1",
            r#"{"jsonrpc":["2.0"],"method":"m"}"# => "fail -32600 BadVersion id=-",
            r#"{}"# => "fail -32600 BadVersion id=-",
            r#"{"jsonrpc":"1.0","id":1,"result":{}}"# => "fail -32600 InvalidResponse id=1 resp",
        );
    }

    #[test]
    fn ids() {
        table!(check;
            r#"{"jsonrpc":"2.0","id":-1,"method":"m"}"# => "req id=-1 method=m params=-",
            r#"{"jsonrpc":"2.0","id":-0,"method":"m"}"# => "req id=-0 method=m params=-",
            r#"{"jsonrpc":"2.0","id":"","method":"m"}"# => r#"req id="" method=m params=-"#,
            r#"{"jsonrpc":"2.0","id":123456789012345678901234567890123,"method":"m"}"# => "req id=123456789012345678901234567890123 method=m params=-",
            r#"{"jsonrpc":"2.0","id":"a\"b\u0041\\","method":"m"}"# => r#"req id="a\"b\u0041\\" method=m params=-"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"m"}"# => "fail -32600 BadId id=-",
            r#"{"jsonrpc":"2.0","id":1.5,"method":"m"}"# => "fail -32600 BadId id=-",
            r#"{"jsonrpc":"2.0","id":1.0,"method":"m"}"# => "fail -32600 BadId id=-",
            r#"{"jsonrpc":"2.0","id":1e3,"method":"m"}"# => "fail -32600 BadId id=-",
            r#"{"jsonrpc":"2.0","id":true,"method":"m"}"# => "fail -32600 BadId id=-",
            r#"{"jsonrpc":"2.0","id":false,"method":"m"}"# => "fail -32600 BadId id=-",
            r#"{"jsonrpc":"2.0","id":{},"method":"m"}"# => "fail -32600 BadId id=-",
            r#"{"jsonrpc":"2.0","id":[1],"method":"m"}"# => "fail -32600 BadId id=-",
        );
        // Ids keep their raw text, so equal numbers written differently stay distinct.
        let Ok(Message::Request(r)) = parse(
            r#"{"jsonrpc":"2.0","id":"\u0061","method":"m"}"#,
            &Limits::DEFAULT,
        ) else {
            panic!()
        };
        assert_eq!(r.id.as_raw(), r#""\u0061""#);
        assert!(r.id.same(&Id::parse("\"a\"").unwrap()));
        assert!(!r.id.same(&Id::parse("1").unwrap()));
        // The id length limit counts raw text; the too-long id is still echoed.
        let limits = Limits {
            max_id_len: 5,
            ..Limits::DEFAULT
        };
        table!(check_with(limits);
            r#"{"jsonrpc":"2.0","id":12345,"method":"m"}"# => "req id=12345 method=m params=-",
            r#"{"jsonrpc":"2.0","id":123456,"method":"m"}"# => "fail -32600 IdTooLong id=123456",
            r#"{"jsonrpc":"2.0","id":"abc","method":"m"}"# => r#"req id="abc" method=m params=-"#,
            r#"{"jsonrpc":"2.0","id":"abcd","method":"m"}"# => r#"fail -32600 IdTooLong id="abcd""#,
            r#"{"jsonrpc":"2.0","id":"abcd","result":{}}"# => r#"resp id="abcd" result={}"#,
        );
    }

    #[test]
    fn method_and_params() {
        table!(check;
            r#"{"jsonrpc":"2.0","id":1,"method":"pi\u006eg"}"# => "req id=1 method=ping params=-",
            r#"{"jsonrpc":"2.0","id":1,"method":""}"# => "req id=1 method= params=-",
            r#"{"jsonrpc":"2.0","id":1,"method":1}"# => "fail -32600 BadMethod id=1",
            r#"{"jsonrpc":"2.0","id":1,"method":null}"# => "fail -32600 BadMethod id=1",
            r#"{"jsonrpc":"2.0","method":{"a":1}}"# => "fail -32600 BadMethod id=-",
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":[1,2]}"# => "fail -32600 BadParams id=1",
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":null}"# => "fail -32600 BadParams id=1",
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":"x"}"# => "fail -32600 BadParams id=1",
            r#"{"jsonrpc":"2.0","method":"m","params":3}"# => "fail -32600 BadParams id=-",
            r#"{"jsonrpc":"2.0","id":1,"method":"m","result":{}}"# => "fail -32600 InvalidShape id=1",
            r#"{"jsonrpc":"2.0","id":1,"method":"m","error":{"code":1,"message":""}}"# => "fail -32600 InvalidShape id=1",
            r#"{"jsonrpc":"2.0","id":1}"# => "fail -32600 InvalidShape id=1",
            r#"{"jsonrpc":"2.0","params":{}}"# => "fail -32600 InvalidShape id=-",
        );
        let Ok(Message::Request(r)) = parse(
            r#"{"jsonrpc":"2.0","id":1,"method":"pi\u006eg"}"#,
            &Limits::DEFAULT,
        ) else {
            panic!()
        };
        assert!(r.method.eq_str("ping"));
        assert!(r.method.is_escaped());
        assert_eq!(r.method.raw(), r"pi\u006eg");
    }

    #[test]
    fn escaped_member_names() {
        table!(check;
            r#"{"jsonrpc":"2.0","\u0069d":1,"method":"m"}"# => "req id=1 method=m params=-",
            r#"{"\u006asonrpc":"2.0","\u0069\u0064":"x","me\u0074hod":"m","p\u0061rams":{}}"# => r#"req id="x" method=m params={}"#,
            r#"{"jsonrpc":"2.0","id":1,"\u0072esult":{}}"# => "resp id=1 result={}",
            r#"{"jsonrpc":"2.0","id":1,"method":"m","\u0069d":2}"# => "fail -32600 DuplicateMember id=-",
            r#"{"jsonrpc":"2.0","id":1,"method":"m","m\u0065thod":"n"}"# => "fail -32600 DuplicateMember id=1",
            // near misses are just unknown members
            r#"{"jsonrpc":"2.0","id":1,"method":"m","ID":2,"id ":3,"\u0069":4}"# => "req id=1 method=m params=-",
        );
    }

    #[test]
    fn duplicates() {
        table!(check;
            r#"{"jsonrpc":"2.0","id":1,"method":"a","method":"b"}"# => "fail -32600 DuplicateMember id=1",
            r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"a"}"# => "fail -32600 DuplicateMember id=-",
            r#"{"jsonrpc":"2.0","id":1,"id":1,"method":"a"}"# => "fail -32600 DuplicateMember id=-",
            r#"{"jsonrpc":"2.0","jsonrpc":"2.0","id":1,"method":"a"}"# => "fail -32600 DuplicateMember id=1",
            r#"{"jsonrpc":"2.0","id":"q","method":"a","params":{},"params":{}}"# => r#"fail -32600 DuplicateMember id="q""#,
            r#"{"jsonrpc":"2.0","id":1,"result":{},"result":{}}"# => "fail -32600 DuplicateMember id=1 resp",
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"x"},"error":{"code":1,"message":"x"}}"# => "fail -32600 DuplicateMember id=1 resp",
            // duplicates of other members are fine
            r#"{"jsonrpc":"2.0","id":1,"method":"a","x":1,"x":2}"# => "req id=1 method=a params=-",
        );
    }

    #[test]
    fn responses() {
        table!(check;
            r#"{"jsonrpc":"2.0","id":1,"result":{"a":[]}}"# => r#"resp id=1 result={"a":[]}"#,
            r#"{"result":{},"id":"s","jsonrpc":"2.0"}"# => r#"resp id="s" result={}"#,
            r#"{"jsonrpc":"2.0","id":99999999999999999999999,"result":{}}"# => "resp id=99999999999999999999999 result={}",
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}"# => "err id=1 code=-32601 message=Method not found data=-",
            r#"{"jsonrpc":"2.0","id":"x","error":{"message":"m\n","data":{"d":1},"code":5}}"# => "err id=\"x\" code=5 message=m\n data={\"d\":1}",
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"# => "err id=- code=-32700 message=Parse error data=-",
            r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"x"}}"# => "err id=- code=-32600 message=x data=-",
            r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}"# => "fail -32600 InvalidResponse id=1 resp",
            r#"{"jsonrpc":"2.0","id":1,"result":5}"# => "fail -32600 InvalidResponse id=1 resp",
            r#"{"jsonrpc":"2.0","id":1,"result":null}"# => "fail -32600 InvalidResponse id=1 resp",
            r#"{"jsonrpc":"2.0","id":1,"result":[]}"# => "fail -32600 InvalidResponse id=1 resp",
            r#"{"jsonrpc":"2.0","result":{}}"# => "fail -32600 InvalidResponse id=- resp",
            r#"{"jsonrpc":"2.0","id":null,"result":{}}"# => "fail -32600 InvalidResponse id=- resp",
            r#"{"jsonrpc":"2.0","id":1.5,"result":{}}"# => "fail -32600 InvalidResponse id=- resp",
            r#"{"jsonrpc":"2.0","id":true,"error":{"code":1,"message":"x"}}"# => "fail -32600 InvalidResponse id=- resp",
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"x"}}"# => "fail -32600 InvalidResponse id=1 resp",
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":"1","message":"x"}}"# => "fail -32600 InvalidResponse id=1 resp",
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":1}}"# => "fail -32600 InvalidResponse id=1 resp",
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":7}}"# => "fail -32600 InvalidResponse id=1 resp",
            r#"{"jsonrpc":"2.0","id":1,"error":"boom"}"# => "fail -32600 InvalidResponse id=1 resp",
            r#"{"jsonrpc":"2.0","id":1,"error":null}"# => "fail -32600 InvalidResponse id=1 resp",
            r#"{"id":1,"result":{}}"# => "fail -32600 InvalidResponse id=1 resp",
            // a JSON error in something that looks like a response is flagged too
            r#"{"jsonrpc":"2.0","id":4,"result":{"a":}}"# => "fail -32700 Json(UnexpectedByte) id=4 resp",
            r#"{"jsonrpc":"2.0","id":4,"error":{"code":"# => "fail -32700 Json(UnexpectedEnd) id=4 resp",
            r#"{"jsonrpc":"2.0","id":4,"result":{},"method":"#  => "fail -32700 Json(UnexpectedEnd) id=4",
        );
    }

    #[test]
    fn json_errors_keep_the_readable_id() {
        table!(check;
            "" => "fail -32700 Json(Empty) id=-",
            "   " => "fail -32700 Json(Empty) id=-",
            "{" => "fail -32700 Json(UnexpectedEnd) id=-",
            "x" => "fail -32700 Json(UnexpectedByte) id=-",
            r#"{"jsonrpc":"2.0","id":"a","method":"x",}"# => r#"fail -32700 Json(UnexpectedByte) id="a""#,
            r#"{"jsonrpc":"2.0","id":7,"method":"#  => "fail -32700 Json(UnexpectedEnd) id=7",
            r#"{"jsonrpc":"2.0","id":7,"params":{"a":NaN},"method":"m"}"# => "fail -32700 Json(UnexpectedByte) id=7",
            r#"{"jsonrpc":"2.0","params":{"a":NaN},"id":7,"method":"m"}"# => "fail -32700 Json(UnexpectedByte) id=-",
            r#"{"jsonrpc":"2.0","id":7,"method":"m"} x"# => "fail -32700 Json(TrailingCharacters) id=7",
            r#"{"jsonrpc":"2.0","id":7,"method":"m"}{"#  => "fail -32700 Json(TrailingCharacters) id=7",
            r#"{"jsonrpc":"2.0","id":7,"method":"\uD800"}"# => "fail -32700 Json(LoneSurrogate) id=7",
            "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"a\nb\"}" => "fail -32700 Json(ControlCharacter) id=7",
            r#"{"jsonrpc":"2.0","id":7,"method":"\q"}"# => "fail -32700 Json(InvalidEscape) id=7",
            r#"{"jsonrpc":"2.0","id":07,"method":"m"}"# => "fail -32700 Json(InvalidNumber) id=-",
            r#"{"jsonrpc":"2.0","id":1,"id":2,"x":}"# => "fail -32700 Json(UnexpectedByte) id=-",
            // an id is echoed only once its member is complete
            r#"{"jsonrpc":"2.0","id":7"# => "fail -32700 Json(UnexpectedEnd) id=-",
            r#"{"jsonrpc":"2.0","id":7 "# => "fail -32700 Json(UnexpectedEnd) id=7",
            r#"{"jsonrpc":"2.0","id":"s""# => r#"fail -32700 Json(UnexpectedEnd) id="s""#,
            r#"{"jsonrpc":"2.0","id":12x,"method":"m"}"# => "fail -32700 Json(UnexpectedByte) id=-",
            r#"{"jsonrpc":"2.0","id":"a""b","method":"m"}"# => "fail -32700 Json(UnexpectedByte) id=-",
            r#"{"jsonrpc":"2.0","id":1 2,"method":"m"}"# => "fail -32700 Json(UnexpectedByte) id=-",
            r#"{"jsonrpc":"2.0","id":null,"x":}"# => "fail -32700 Json(UnexpectedByte) id=-",
            // not an object
            "1" => "fail -32600 NotAnObject id=-",
            "\"{}\"" => "fail -32600 NotAnObject id=-",
            "null" => "fail -32600 NotAnObject id=-",
            "true x" => "fail -32700 Json(TrailingCharacters) id=-",
        );
    }

    #[test]
    fn depth_limit() {
        let limits = Limits {
            max_depth: 3,
            ..Limits::DEFAULT
        };
        table!(check_with(limits);
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":{"b":1}}}"# => r#"req id=1 method=m params={"a":{"b":1}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":{"b":{}}}}"# => "fail -32600 TooDeep id=1",
            r#"{"jsonrpc":"2.0","id":1,"result":{"a":[[]]}}"# => "fail -32600 TooDeep id=1 resp",
            r#"[[[[]]]]"# => "fail -32600 TooDeep id=-",
            r#"[[[]]]"# => "batch n=1",
        );
        table!(check_with(Limits { max_depth: 0, ..Limits::DEFAULT });
            r#"{"jsonrpc":"2.0","method":"m"}"# => "fail -32600 TooDeep id=-",
        );
        table!(check_with(Limits { max_depth: 1, ..Limits::DEFAULT });
            r#"{"jsonrpc":"2.0","method":"m"}"# => "notif method=m params=-",
            r#"{"jsonrpc":"2.0","id":"z","method":"m","params":{}}"# => r#"fail -32600 TooDeep id="z""#,
        );
    }

    #[test]
    fn batches() {
        table!(check;
            "[]" => "batch n=0",
            " [ ] " => "batch n=0",
            "[1,2]" => "batch n=2",
            r#"[{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"2.0","id":1,"result":{}}]"# => "batch n=2",
            "[1," => "fail -32700 Json(UnexpectedEnd) id=-",
            r#"[{"jsonrpc":"2.0","id":1,"method":"a"}] x"# => "fail -32700 Json(TrailingCharacters) id=-",
        );
        let Ok(Message::Batch(b)) = parse("[]", &Limits::DEFAULT) else {
            panic!()
        };
        assert!(b.is_empty());
        assert_eq!(b.iter().count(), 0);
        let text = r#" [ {"jsonrpc":"2.0","method":"a"} , {"jsonrpc":"2.0","id":1,"result":{}}, 5, [], {"jsonrpc":"2.0","id":3,"method":"m","params":[]}, {"id":9} ] "#;
        let Ok(Message::Batch(b)) = parse(text, &Limits::DEFAULT) else {
            panic!()
        };
        assert!(!b.is_empty());
        assert_eq!(b.len(), 6);
        let items: Vec<String> = b.iter().map(|r| show(&r)).collect();
        assert_eq!(
            items,
            [
                "notif method=a params=-",
                "resp id=1 result={}",
                "fail -32600 NotAnObject id=-",
                "fail -32600 NotAnObject id=-",
                "fail -32600 BadParams id=3",
                "fail -32600 BadVersion id=9",
            ]
        );
        // Elements inherit the id length limit.
        let limits = Limits {
            max_id_len: 2,
            ..Limits::DEFAULT
        };
        let Ok(Message::Batch(b)) = parse(r#"[{"jsonrpc":"2.0","id":123,"method":"a"}]"#, &limits)
        else {
            panic!()
        };
        assert_eq!(
            show(&b.iter().next().unwrap()),
            "fail -32600 IdTooLong id=123"
        );
    }

    #[test]
    fn error_kinds_codes_and_messages() {
        let kinds = [
            (ParseErrorKind::Json(JsonErrorKind::UnexpectedEnd), -32700),
            (ParseErrorKind::InvalidUtf8, -32700),
            (ParseErrorKind::NotAnObject, -32600),
            (ParseErrorKind::BadVersion, -32600),
            (ParseErrorKind::BadId, -32600),
            (ParseErrorKind::IdTooLong, -32600),
            (ParseErrorKind::DuplicateMember, -32600),
            (ParseErrorKind::BadMethod, -32600),
            (ParseErrorKind::BadParams, -32600),
            (ParseErrorKind::InvalidShape, -32600),
            (ParseErrorKind::InvalidResponse, -32600),
            (ParseErrorKind::TooDeep, -32600),
            (ParseErrorKind::LineTooLong, -32600),
        ];
        for (k, code) in kinds {
            assert_eq!(k.code().0, code, "{k:?}");
            assert!(!k.message().is_empty());
        }
        let e = parse("{", &Limits::DEFAULT).unwrap_err();
        assert_eq!(format!("{e}"), "Parse error: invalid JSON (UnexpectedEnd)");
        let e = parse("2", &Limits::DEFAULT).unwrap_err();
        assert_eq!(format!("{e}"), ParseErrorKind::NotAnObject.message());
    }

    fn peek(line: u32, input: &[u8], want: Option<&str>) {
        assert_eq!(
            peek_id(input, 64).map(|i| i.as_raw()),
            want,
            "row {line}: {}",
            String::from_utf8_lossy(input)
        );
    }

    #[test]
    fn peek_id_on_truncated_and_invalid_lines() {
        table!(peek;
            br#"{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"x":""# => Some("42"),
            br#"{"jsonrpc":"2.0","id":"abc","# => Some(r#""abc""#),
            br#"{"jsonrpc":"2.0","id":"abc""# => Some(r#""abc""#),
            br#"{"id":"a\"b\u00e9"}"# => Some(r#""a\"b\u00e9""#),
            br#"  {"id" : 5 }"# => Some("5"),
            br#"{"id":5 "# => Some("5"),
            br#"{"id":5}trailing"# => Some("5"),
            br#"{"\u0069d":"q","# => Some(r#""q""#),
            br#"{"id":123456789012345678901234567890,"# => Some("123456789012345678901234567890"),
            // a number at the very end may continue past the cut
            br#"{"jsonrpc":"2.0","id":123"# => None,
            br#"{"id":-"# => None,
            br#"{"id":1.5"# => None,
            // incomplete or invalid ids
            br#"{"jsonrpc":"2.0","id":"ab"# => None,
            br#"{"jsonrpc":"2.0","id"# => None,
            br#"{"jsonrpc":"2.0","id":"# => None,
            br#"{"id":null,"# => None,
            br#"{"id":true,"# => None,
            br#"{"id":1.5,"# => None,
            br#"{"id":{"a":1},"# => None,
            br#"{"id":[1],"# => None,
            br#"{"id":"\uD800","# => None,
            // only a top-level id before the first problem counts
            br#"{"a":NaN,"id":1}"# => None,
            br#"{"id":"x","a":NaN}"# => Some(r#""x""#),
            br#"{"params":{"id":1},"# => None,
            br#"{"id":1,"id":2,"# => None,
            br#"{"id":1,"id":2"# => None,
            br#"{"id":1,"\u0069d":"# => None,
            br#"{"id":1,"x":1,"id":2}"# => None,
            br#"[{"id":1}]"# => None,
            b"" => None,
            b"   " => None,
            b"{" => None,
            // bytes that are not UTF-8: after the id they do not matter, inside it they do
            b"{\"id\":7,\"x\":\"\xff\xfe" => Some("7"),
            b"{\"id\":\"\xff\",\"x\":1}" => None,
        );
        // Depth is bounded by the given limit, but an id before the deep part is kept.
        assert_eq!(
            peek_id(br#"{"id":1,"params":[[[[[[[[["#, 3).map(|i| i.as_raw()),
            Some("1")
        );
        assert_eq!(peek_id(br#"{"params":[[[[]]]],"id":1}"#, 3), None);
        // Ids beyond the configured length limit are still read (the caller decides).
        let long = format!(r#"{{"id":"{}","#, "x".repeat(500));
        assert_eq!(peek_id(long.as_bytes(), 64).unwrap().as_raw().len(), 502);
    }
}
