//! JSON-RPC 2.0 with MCP's rules: message views, the line parser and the encoders.
//!
//! [`parse`] turns one line into a [`Message`] view or a [`ParseError`] that already knows
//! the reply JSON-RPC requires ([`ParseError::code`]) and the id to echo, when it could be
//! read. The `encode_*` functions write messages with a [`JsonWriter`](crate::json::JsonWriter).

mod encode;
mod envelope;
#[cfg(target_pointer_width = "64")]
mod envelope_fast;
mod parse;

use core::fmt;

use crate::error::ErrorCode;
use crate::json::{Json, JsonStr};

pub use encode::{
    encode_error, encode_error_with, encode_notification, encode_notification_with, encode_request,
    encode_request_with, encode_result, encode_result_with,
};
pub use parse::{parse, peek_id};

/// The largest `max_id_len` a session can be configured with: ids and progress tokens are
/// stored inline in fixed slots of this many bytes.
pub const ID_CAPACITY: usize = 128;

/// A request id (or progress token) as received: its raw JSON text, echoed byte for byte.
///
/// MCP allows strings and integers. Integers of any length are accepted (up to the id
/// length limit) and kept as digits, so ids beyond 2^64 round-trip exactly. `"1"` and `1`
/// are different ids. Two string ids are the same when their decoded text is equal.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Id<'a> {
    raw: &'a str,
}

impl<'a> Id<'a> {
    /// Wraps validated raw id text (an integer lexeme or a quoted string).
    pub(crate) fn from_raw(raw: &'a str) -> Self {
        Id { raw }
    }

    /// Makes an id from raw JSON text; accepts an integer or a string literal only.
    pub fn parse(raw: &'a str) -> Option<Self> {
        let v = Json::new(raw).ok()?;
        (v.is_integer() || v.as_str().is_some()).then(|| Id { raw: v.as_raw() })
    }

    /// The id exactly as it appeared on the wire (strings include their quotes).
    pub fn as_raw(&self) -> &'a str {
        self.raw
    }

    /// True for a string id.
    pub fn is_string(&self) -> bool {
        self.raw.starts_with('"')
    }

    /// The string, for a string id.
    pub fn as_str(&self) -> Option<JsonStr<'a>> {
        Json::from_validated(self.raw).as_str()
    }

    /// The number, for an integer id that fits in `i64`.
    pub fn as_i64(&self) -> Option<i64> {
        Json::from_validated(self.raw).as_i64()
    }

    /// Whether two ids name the same request (strings compared after unescaping).
    pub fn same(&self, other: &Id<'_>) -> bool {
        match (self.as_str(), other.as_str()) {
            (Some(a), Some(b)) => {
                if !a.is_escaped() && !b.is_escaped() {
                    a.raw() == b.raw()
                } else {
                    a.chars().eq(b.chars())
                }
            }
            (None, None) => self.raw == other.raw,
            _ => false,
        }
    }

    /// The id as a JSON value.
    pub fn as_json(&self) -> Json<'a> {
        Json::from_validated(self.raw)
    }
}

impl fmt::Debug for Id<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Id({})", self.raw)
    }
}

impl fmt::Display for Id<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.raw)
    }
}

/// One parsed JSON-RPC message, borrowing the line it came from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Message<'a> {
    /// A request: it has an id and expects exactly one response.
    Request(Request<'a>),
    /// A notification: no id, never answered.
    Notification(Notification<'a>),
    /// A success response.
    Response(Response<'a>),
    /// An error response; `id` is `None` when the peer could not read our id.
    Error(ErrorResponse<'a>),
    /// A JSON array of messages (JSON-RPC batch; MCP 2025-03-26 only). Not yet checked
    /// element by element: use [`Batch::iter`].
    Batch(Batch<'a>),
}

/// A request view.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Request<'a> {
    /// The id, to echo in the response.
    pub id: Id<'a>,
    /// The method name (compare with [`JsonStr::eq_str`]; escapes are allowed on the wire).
    pub method: JsonStr<'a>,
    /// The params object, if present.
    pub params: Option<Json<'a>>,
}

/// A notification view.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Notification<'a> {
    /// The method name.
    pub method: JsonStr<'a>,
    /// The params object, if present.
    pub params: Option<Json<'a>>,
}

/// A success response view.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Response<'a> {
    /// The id of the request this answers.
    pub id: Id<'a>,
    /// The result object.
    pub result: Json<'a>,
}

/// An error response view.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ErrorResponse<'a> {
    /// The id of the request this answers; `None` when absent or `null`.
    pub id: Option<Id<'a>>,
    /// The error object.
    pub error: ErrorObject<'a>,
}

/// The `error` member of an error response.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ErrorObject<'a> {
    /// The error code (any integer the peer sent that fits in `i64`).
    pub code: i64,
    /// The message.
    pub message: JsonStr<'a>,
    /// Optional extra data.
    pub data: Option<Json<'a>>,
}

/// A batch array; iterate to parse each element.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Batch<'a> {
    pub(crate) array: Json<'a>,
    pub(crate) max_depth: usize,
    pub(crate) max_id_len: usize,
}

impl<'a> Batch<'a> {
    /// The number of elements.
    pub fn len(&self) -> usize {
        self.array.elements().count()
    }

    /// True for `[]` (which JSON-RPC says is an invalid request).
    pub fn is_empty(&self) -> bool {
        self.array.elements().next().is_none()
    }

    /// Parses each element as a message (a nested array is an invalid request).
    pub fn iter(&self) -> impl Iterator<Item = Result<Message<'a>, ParseError<'a>>> + 'a {
        let (d, l) = (self.max_depth, self.max_id_len);
        self.array
            .elements()
            .map(move |e| parse::parse_element(e.as_raw(), d, l))
    }
}

/// Why a line is not a valid message, and what the reply must say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParseError<'a> {
    /// What is wrong.
    pub kind: ParseErrorKind,
    /// The id to echo in the error reply, when it could be read.
    pub id: Option<Id<'a>>,
    /// True when the message looks like a response (it has `result` or `error` and no
    /// `method`). Responses are never answered, so the peer gets no error reply for it.
    pub response_like: bool,
}

impl ParseError<'_> {
    /// The JSON-RPC code an error reply must carry.
    pub fn code(&self) -> ErrorCode {
        self.kind.code()
    }

    /// Whether an error reply must be sent for this message.
    pub fn needs_reply(&self) -> bool {
        !self.response_like
    }
}

/// The kinds of [`ParseError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ParseErrorKind {
    /// Not JSON (-32700).
    Json(crate::json::JsonErrorKind),
    /// Not UTF-8 (-32700).
    InvalidUtf8,
    /// Valid JSON, but not an object or array (-32600).
    NotAnObject,
    /// `jsonrpc` is missing or not `"2.0"` (-32600).
    BadVersion,
    /// The id is null, fractional, boolean, an object or an array (-32600).
    BadId,
    /// The id is longer than the configured limit (-32600).
    IdTooLong,
    /// An envelope member appears twice (-32600).
    DuplicateMember,
    /// `method` is not a string (-32600).
    BadMethod,
    /// `params` is not an object (-32600).
    BadParams,
    /// Neither a request, a notification nor a response (-32600).
    InvalidShape,
    /// A response with both or neither of `result` and `error`, a non-object `result`, or
    /// a malformed `error` object (never answered).
    InvalidResponse,
    /// Nesting deeper than the limit (-32600).
    TooDeep,
    /// The line is longer than the limit (-32600).
    LineTooLong,
}

impl ParseErrorKind {
    /// The JSON-RPC code for this kind.
    pub fn code(self) -> ErrorCode {
        match self {
            ParseErrorKind::Json(_) | ParseErrorKind::InvalidUtf8 => ErrorCode::PARSE_ERROR,
            _ => ErrorCode::INVALID_REQUEST,
        }
    }

    /// A short message for the error reply.
    pub fn message(self) -> &'static str {
        match self {
            ParseErrorKind::Json(_) => "Parse error: invalid JSON",
            ParseErrorKind::InvalidUtf8 => "Parse error: invalid UTF-8",
            ParseErrorKind::NotAnObject => "Invalid Request: not a JSON-RPC message object",
            ParseErrorKind::BadVersion => "Invalid Request: jsonrpc must be \"2.0\"",
            ParseErrorKind::BadId => "Invalid Request: id must be a string or an integer",
            ParseErrorKind::IdTooLong => "Invalid Request: id too long",
            ParseErrorKind::DuplicateMember => "Invalid Request: duplicate member",
            ParseErrorKind::BadMethod => "Invalid Request: method must be a string",
            ParseErrorKind::BadParams => "Invalid Request: params must be an object",
            ParseErrorKind::InvalidShape => {
                "Invalid Request: not a request, notification or response"
            }
            ParseErrorKind::InvalidResponse => "Invalid response",
            ParseErrorKind::TooDeep => "Invalid Request: nesting too deep",
            ParseErrorKind::LineTooLong => "Invalid Request: message too long",
        }
    }
}

impl fmt::Display for ParseError<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.kind.message())?;
        if let ParseErrorKind::Json(k) = self.kind {
            write!(f, " ({k:?})")?;
        }
        Ok(())
    }
}

impl core::error::Error for ParseError<'_> {}
