//! The MCP header fields of Streamable HTTP, for both roles: their names, what a POST of
//! a given message must carry (2026-07-28, MODERN §13.2), and the value encoding with its
//! base64 sentinel (§13.3).
//!
//! A client derives the headers from the message it POSTs with [`message_headers`]; a
//! server derives the same from the body it received and compares, so the two sides can
//! never disagree on which parameter is the `Mcp-Name` or how a value is encoded.
//!
//! ```
//! use picomcp::http::headers::{self, message_headers};
//! use picomcp::json::Json;
//! let msg = Json::new(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"lookup",
//!     "_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#).unwrap();
//! let h = message_headers(msg);
//! assert!(h.request);
//! assert_eq!(h.method, Some("tools/call"));
//! assert!(h.name.unwrap().eq_str("lookup"));
//! assert!(h.protocol_version.unwrap().eq_str("2026-07-28"));
//!
//! let mut buf = [0u8; 64];
//! assert_eq!(headers::encode_value("Zürich", &mut buf).unwrap(), "=?base64?WsO8cmljaA==?=");
//! let mut back = [0u8; 64];
//! assert_eq!(headers::decode_value(b"=?base64?WsO8cmljaA==?=", &mut back), Ok("Zürich"));
//! ```

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;

use crate::InsufficientSize;
use crate::json::{Json, JsonStr};
use crate::protocol::meta;

/// `MCP-Protocol-Version`: the negotiated revision (legacy, after `initialize`) or the
/// request's own `_meta` revision (2026-07-28).
pub const PROTOCOL_VERSION: &str = "MCP-Protocol-Version";
/// `Mcp-Session-Id`: a legacy-era session (routing, never authentication).
pub const SESSION_ID: &str = "Mcp-Session-Id";
/// `Mcp-Method`: the JSON-RPC method of a 2026-07-28 request.
pub const METHOD: &str = "Mcp-Method";
/// `Mcp-Name`: the tool, prompt or resource a 2026-07-28 request names ([`name_param`]).
pub const NAME: &str = "Mcp-Name";
/// The prefix of `Mcp-Param-{Name}`: tool arguments marked `x-mcp-header` (§13.3).
pub const PARAM_PREFIX: &str = "Mcp-Param-";
/// `Last-Event-ID`: resuming an SSE stream (legacy era).
pub const LAST_EVENT_ID: &str = "Last-Event-ID";
/// What every POST must accept (both, MODERN §13.1 and DIGEST §12.3).
pub const ACCEPT_POST: &str = "application/json, text/event-stream";

/// The parameter of `method` whose value is its `Mcp-Name`: `name` for `tools/call` and
/// `prompts/get`, `uri` for `resources/read`, `taskId` for the tasks extension's
/// `tasks/get`, `tasks/update` and `tasks/cancel`; `None` for every other method.
pub fn name_param(method: &str) -> Option<&'static str> {
    match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" => Some("uri"),
        "tasks/get" | "tasks/update" | "tasks/cancel" => Some("taskId"),
        _ => None,
    }
}

/// What the MCP headers of a POST that carries one message say, read from the message.
#[derive(Clone, Copy, Debug, Default)]
pub struct MessageHeaders<'a> {
    /// The message is a request (a `method` and an `id`): the server answers it with JSON
    /// or an SSE stream, not 202.
    pub request: bool,
    /// `Mcp-Method`: the method of a request or notification.
    pub method: Option<&'a str>,
    /// `Mcp-Name`: the value of the method's [`name_param`], when it is a string.
    pub name: Option<JsonStr<'a>>,
    /// `MCP-Protocol-Version` of a 2026-07-28 message: its
    /// `params._meta["io.modelcontextprotocol/protocolVersion"]`.
    pub protocol_version: Option<JsonStr<'a>>,
}

/// The MCP headers a POST of `message` carries (all `None` for a response or a batch).
pub fn message_headers(message: Json<'_>) -> MessageHeaders<'_> {
    let Some(method) = message.get("method").and_then(|m| m.as_str()) else {
        return MessageHeaders::default();
    };
    let params = message.get("params");
    let method = method.as_plain();
    let name = method
        .and_then(name_param)
        .and_then(|p| params.and_then(|ps| ps.get(p)))
        .and_then(|v| v.as_str());
    let protocol_version = params
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get(meta::PROTOCOL_VERSION))
        .and_then(|v| v.as_str());
    MessageHeaders {
        request: message.get("id").is_some(),
        method,
        name,
        protocol_version,
    }
}

const SENTINEL_OPEN: &str = "=?base64?";
const SENTINEL_CLOSE: &str = "?=";

/// True when `value` must travel base64-encoded (§13.3 step 2): it starts or ends with a
/// space or tab, holds a byte outside printable ASCII, or looks like the sentinel itself.
pub fn needs_base64(value: &str) -> bool {
    let b = value.as_bytes();
    let edge = |c: Option<&u8>| matches!(c, Some(b' ' | b'\t'));
    edge(b.first())
        || edge(b.last())
        || b.iter().any(|&c| !(0x20..=0x7e).contains(&c))
        || (value.starts_with(SENTINEL_OPEN) && value.ends_with(SENTINEL_CLOSE))
}

/// The bytes [`encode_value`] needs for `value`.
pub fn encoded_len(value: &str) -> usize {
    if needs_base64(value) {
        SENTINEL_OPEN.len() + value.len().div_ceil(3) * 4 + SENTINEL_CLOSE.len()
    } else {
        value.len()
    }
}

/// Encodes a header value (an `Mcp-Name`, or an `Mcp-Param-*` already converted to text)
/// into `out`: as-is when it is safe, else `=?base64?…?=` of its UTF-8 bytes.
///
/// # Errors
/// [`InsufficientSize`] with [`encoded_len`] when `out` is too small.
pub fn encode_value<'b>(value: &str, out: &'b mut [u8]) -> Result<&'b str, InsufficientSize> {
    let need = encoded_len(value);
    if out.len() < need {
        return Err(InsufficientSize { required: need });
    }
    if !needs_base64(value) {
        out[..need].copy_from_slice(value.as_bytes());
    } else {
        let (open, rest) = out.split_at_mut(SENTINEL_OPEN.len());
        open.copy_from_slice(SENTINEL_OPEN.as_bytes());
        let n = STANDARD
            .encode_slice(value, rest)
            .map_err(|_| InsufficientSize { required: need })?;
        rest[n..n + SENTINEL_CLOSE.len()].copy_from_slice(SENTINEL_CLOSE.as_bytes());
    }
    // Printable ASCII (checked or base64) throughout.
    core::str::from_utf8(&out[..need]).map_err(|_| InsufficientSize { required: need })
}

/// Why a received header value cannot be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueError {
    /// A plain value with a control character or a byte outside printable ASCII, or a
    /// sentinel whose base64 is malformed or does not decode to UTF-8.
    Invalid,
    /// The decoded value does not fit the buffer.
    TooLong,
}

/// Decodes a received header value: the sentinel form is base64-decoded into `buf`; a
/// plain value must be printable ASCII and is copied there. Returns the text.
///
/// # Errors
/// [`ValueError::Invalid`] for characters the encoding never produces,
/// [`ValueError::TooLong`] when `buf` is too small.
pub fn decode_value<'b>(value: &[u8], buf: &'b mut [u8]) -> Result<&'b str, ValueError> {
    let inner = value
        .strip_prefix(SENTINEL_OPEN.as_bytes())
        .and_then(|v| v.strip_suffix(SENTINEL_CLOSE.as_bytes()));
    let n = match inner {
        Some(b64) => {
            if b64.len() / 4 * 3 > buf.len() + 2 {
                return Err(ValueError::TooLong);
            }
            STANDARD.decode_slice(b64, buf).map_err(|e| match e {
                base64::DecodeSliceError::OutputSliceTooSmall => ValueError::TooLong,
                base64::DecodeSliceError::DecodeError(_) => ValueError::Invalid,
            })?
        }
        None => {
            if value.iter().any(|&c| !(0x20..=0x7e).contains(&c)) {
                return Err(ValueError::Invalid);
            }
            let dst = buf.get_mut(..value.len()).ok_or(ValueError::TooLong)?;
            dst.copy_from_slice(value);
            value.len()
        }
    };
    core::str::from_utf8(&buf[..n]).map_err(|_| ValueError::Invalid)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enc(v: &str) -> heapless::String<128> {
        let mut buf = [0u8; 128];
        let s = encode_value(v, &mut buf).unwrap();
        assert_eq!(s.len(), encoded_len(v));
        heapless::String::try_from(s).unwrap()
    }

    #[test]
    fn encoding_rules() {
        assert_eq!(enc("lookup"), "lookup");
        assert_eq!(enc("file:///a b.txt"), "file:///a b.txt");
        assert!(enc(" lead").starts_with("=?base64?"));
        assert!(enc("trail\t").starts_with("=?base64?"));
        assert!(enc("a\nb").starts_with("=?base64?"));
        assert!(enc("=?base64?abc?=").starts_with("=?base64?PT9i"));
        assert_eq!(enc(""), "");
    }

    #[test]
    fn decode_round_trips_and_rejects() {
        for v in ["lookup", "Zürich", " x ", "=?base64?x?=", "日本語", ""] {
            let e = enc(v);
            let mut buf = [0u8; 64];
            assert_eq!(decode_value(e.as_bytes(), &mut buf), Ok(v));
        }
        let mut buf = [0u8; 64];
        assert_eq!(decode_value(b"a\x01b", &mut buf), Err(ValueError::Invalid));
        assert_eq!(
            decode_value(b"caf\xc3\xa9", &mut buf),
            Err(ValueError::Invalid)
        );
        assert_eq!(
            decode_value(b"=?base64?!!!!?=", &mut buf),
            Err(ValueError::Invalid)
        );
        assert_eq!(
            decode_value(b"=?base64?/w==?=", &mut buf),
            Err(ValueError::Invalid)
        );
        let mut tiny = [0u8; 2];
        assert_eq!(decode_value(b"abc", &mut tiny), Err(ValueError::TooLong));
        assert_eq!(
            decode_value(b"=?base64?YWJjZGVm?=", &mut tiny),
            Err(ValueError::TooLong)
        );
    }

    #[test]
    fn headers_of_messages() {
        let h = message_headers(
            Json::new(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).unwrap(),
        );
        assert!(!h.request);
        assert_eq!(h.method, Some("notifications/initialized"));
        assert!(h.name.is_none() && h.protocol_version.is_none());
        let h = message_headers(
            Json::new(r#"{"jsonrpc":"2.0","id":"r","method":"resources/read","params":{"uri":"test://a"}}"#).unwrap(),
        );
        assert!(h.request && h.name.unwrap().eq_str("test://a"));
        let h = message_headers(Json::new(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#).unwrap());
        assert!(!h.request && h.method.is_none());
        let h =
            message_headers(Json::new(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#).unwrap());
        assert!(h.method.is_none());
    }
}
