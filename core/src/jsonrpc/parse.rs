//! The line parser: one pass that validates the JSON and reads the envelope members.

use super::{Batch, ErrorObject, ErrorResponse, Id, Message, Notification, ParseError, ParseErrorKind, Request, Response};
use crate::json::{Json, JsonError, JsonErrorKind, JsonStr, Scanner, StrSpan};
use crate::limits::Limits;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Member {
    JsonRpc = 0,
    Id = 1,
    Method = 2,
    Params = 3,
    Result = 4,
    Error = 5,
}

fn classify_key(b: &[u8], k: StrSpan) -> Option<Member> {
    const NAMES: [(&str, Member); 6] = [
        ("jsonrpc", Member::JsonRpc),
        ("id", Member::Id),
        ("method", Member::Method),
        ("params", Member::Params),
        ("result", Member::Result),
        ("error", Member::Error),
    ];
    let raw = b.get(k.start..k.end)?;
    if !k.escaped {
        return NAMES.iter().find(|(n, _)| n.as_bytes() == raw).map(|&(_, m)| m);
    }
    let raw = core::str::from_utf8(raw).ok()?;
    let s = JsonStr::from_validated(raw, true);
    NAMES.iter().find(|(n, _)| s.eq_str(n)).map(|&(_, m)| m)
}

/// What one pass over a top-level object found.
struct Envelope {
    spans: [Option<(usize, usize)>; 6],
    dup: [bool; 6],
    /// The first JSON error, if any (scanning stops there).
    error: Option<JsonError>,
}

/// Scans a top-level object starting at `sc.pos` (which is at `{`), recording the
/// envelope members. Stops at the first JSON error.
fn scan_envelope(sc: &mut Scanner<'_>, max_depth: usize) -> Envelope {
    let mut env = Envelope { spans: [None; 6], dup: [false; 6], error: None };
    if let Err(e) = scan_members(sc, max_depth, &mut env) {
        env.error = Some(e);
    }
    env
}

fn scan_members(sc: &mut Scanner<'_>, max_depth: usize, env: &mut Envelope) -> Result<(), JsonError> {
    if max_depth < 1 {
        return Err(JsonError { kind: JsonErrorKind::TooDeep, offset: sc.pos });
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
        let vstart = sc.pos;
        sc.scan_value(1, max_depth)?;
        let which = classify_key(sc.b, key);
        if let Some(m) = which {
            let i = m as usize;
            if env.spans[i].is_some() {
                env.dup[i] = true;
            } else {
                env.spans[i] = Some((vstart, sc.pos));
            }
        }
        sc.skip_ws();
        match sc.peek() {
            Some(b',') => sc.pos += 1,
            Some(b'}') => {
                sc.pos += 1;
                return Ok(());
            }
            Some(_) => return Err(JsonError { kind: JsonErrorKind::UnexpectedByte, offset: sc.pos }),
            None => return Err(JsonError { kind: JsonErrorKind::UnexpectedEnd, offset: sc.pos }),
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
        if raw.len() > max_id_len { IdCheck::TooLong(id) } else { IdCheck::Ok(id) }
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
                    array: Json::from_validated(line.trim_matches(|c| matches!(c, ' ' | '\t' | '\r' | '\n'))),
                    max_depth: limits.max_depth,
                    max_id_len: limits.max_id_len,
                })),
                Err(e) => Err(json_error(e, None, false)),
            }
        }
        _ => {
            let mut sc2 = Scanner::new(b);
            match sc2.scan_document(limits.max_depth) {
                Ok(()) => Err(ParseError { kind: ParseErrorKind::NotAnObject, id: None, response_like: false }),
                Err(e) => Err(json_error(e, None, false)),
            }
        }
    }
}

fn json_error(e: JsonError, id: Option<Id<'_>>, response_like: bool) -> ParseError<'_> {
    let kind = if e.kind == JsonErrorKind::TooDeep { ParseErrorKind::TooDeep } else { ParseErrorKind::Json(e.kind) };
    ParseError { kind, id, response_like }
}

/// Parses one element of a batch.
pub(crate) fn parse_element(text: &str, max_depth: usize, max_id_len: usize) -> Result<Message<'_>, ParseError<'_>> {
    if text.starts_with('{') {
        parse_object(text, 0, max_depth, max_id_len)
    } else {
        Err(ParseError { kind: ParseErrorKind::NotAnObject, id: None, response_like: false })
    }
}

fn parse_object(line: &str, start: usize, max_depth: usize, max_id_len: usize) -> Result<Message<'_>, ParseError<'_>> {
    let b = line.as_bytes();
    let mut sc = Scanner::new(b);
    sc.pos = start;
    let env = scan_envelope(&mut sc, max_depth);
    let text = |m: Member| env.spans[m as usize].and_then(|(s, e)| line.get(s..e));
    let has = |m: Member| env.spans[m as usize].is_some();
    let response_like = !has(Member::Method) && (has(Member::Result) || has(Member::Error));

    let id_check = text(Member::Id).map(|raw| check_id(raw, max_id_len));
    // The id we may echo: valid (even if too long) and not duplicated.
    let echo_id = match id_check {
        Some(IdCheck::Ok(id) | IdCheck::TooLong(id)) if !env.dup[Member::Id as usize] => Some(id),
        _ => None,
    };
    fn fail<'a>(kind: ParseErrorKind, id: Option<Id<'a>>, response_like: bool) -> Result<Message<'a>, ParseError<'a>> {
        Err(ParseError { kind, id, response_like })
    }

    if let Some(e) = env.error {
        return Err(json_error(e, echo_id, response_like));
    }
    sc.skip_ws();
    if sc.pos < b.len() {
        let e = JsonError { kind: JsonErrorKind::TrailingCharacters, offset: sc.pos };
        return Err(json_error(e, echo_id, response_like));
    }
    if env.dup.iter().any(|&d| d) {
        return fail(ParseErrorKind::DuplicateMember, echo_id, response_like);
    }
    let version_ok = text(Member::JsonRpc).and_then(|t| Json::from_validated(t).as_str()).is_some_and(|s| s.eq_str("2.0"));
    if !version_ok {
        return fail(if response_like { ParseErrorKind::InvalidResponse } else { ParseErrorKind::BadVersion }, echo_id, response_like);
    }
    let params = text(Member::Params).map(Json::from_validated);

    if let Some(m) = text(Member::Method) {
        let id = match id_check {
            None => None,
            Some(IdCheck::Ok(id)) => Some(id),
            Some(IdCheck::TooLong(id)) => return fail(ParseErrorKind::IdTooLong, Some(id), response_like),
            Some(IdCheck::Null | IdCheck::Bad) => return fail(ParseErrorKind::BadId, None, response_like),
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
    let bad_response = |id| Err(ParseError { kind: ParseErrorKind::InvalidResponse, id, response_like: true });
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
    let err = Json::from_validated(text(Member::Error).unwrap_or("null"));
    let code = err.get("code").and_then(|c| c.as_i64());
    let message = err.get("message").and_then(|m| m.as_str());
    match (code, message) {
        (Some(code), Some(message)) => {
            Ok(Message::Error(ErrorResponse { id, error: ErrorObject { code, message, data: err.get("data") } }))
        }
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
    let env = scan_envelope(&mut sc, max_depth);
    if env.dup[Member::Id as usize] {
        return None;
    }
    let (s, e) = env.spans[Member::Id as usize]?;
    let raw = core::str::from_utf8(bytes.get(s..e)?).ok()?;
    match check_id(raw, usize::MAX) {
        IdCheck::Ok(id) | IdCheck::TooLong(id) => Some(id),
        _ => None,
    }
}
