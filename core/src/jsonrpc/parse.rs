//! The line parser: JSON-RPC's and MCP's rules applied to what the envelope scan
//! (`envelope.rs`) found in one pass over the line.

use super::envelope::{Envelope, ErrorMember, Member, scan_envelope};
use super::{
    Batch, ErrorObject, ErrorResponse, Id, Message, Notification, ParseError, ParseErrorKind,
    Request, Response,
};
use crate::json::{Json, JsonError, JsonErrorKind, Scanner};
use crate::limits::Limits;

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
mod tests;
