//! Error types shared by several layers, and the JSON-RPC error code set.

use core::fmt;

/// A caller buffer was too small; `required` is the size that would have worked.
///
/// Nothing was consumed: call again with a buffer of at least `required` bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InsufficientSize {
    /// Bytes needed.
    pub required: usize,
}

impl fmt::Display for InsufficientSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "buffer too small: {} bytes required", self.required)
    }
}

impl core::error::Error for InsufficientSize {}

/// A JSON-RPC error code. The set is open (MCP and applications add codes), so this is a
/// newtype with constants rather than an enum.
///
/// Every code the specification or JSON-RPC defines fits an `i32`, and so does every code
/// picomcp sends. JSON-RPC itself says only "an integer", so a peer can send more: what
/// the parser read is kept as the wire's `i64` where a peer's code is reported
/// ([`ErrorObject::code`](crate::jsonrpc::ErrorObject::code), the session's error events),
/// and `ErrorCode::try_from(wire)` is the one conversion (it fails only for a code outside
/// `i32`). Keeping the code 4 bytes keeps the violations that carry one small in the
/// event queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ErrorCode(pub i32);

impl TryFrom<i64> for ErrorCode {
    type Error = core::num::TryFromIntError;

    /// A code read from the wire; fails for one outside `i32` (only a peer sends one).
    fn try_from(wire: i64) -> Result<ErrorCode, Self::Error> {
        i32::try_from(wire).map(ErrorCode)
    }
}

impl From<ErrorCode> for i64 {
    fn from(code: ErrorCode) -> i64 {
        code.0 as i64
    }
}

impl ErrorCode {
    /// -32700: the line is not valid JSON.
    pub const PARSE_ERROR: ErrorCode = ErrorCode(-32700);
    /// -32600: valid JSON but not a valid request (or a limit was exceeded).
    pub const INVALID_REQUEST: ErrorCode = ErrorCode(-32600);
    /// -32601: unknown method, or a method whose capability was not negotiated.
    pub const METHOD_NOT_FOUND: ErrorCode = ErrorCode(-32601);
    /// -32602: invalid parameters.
    pub const INVALID_PARAMS: ErrorCode = ErrorCode(-32602);
    /// -32603: internal error.
    pub const INTERNAL_ERROR: ErrorCode = ErrorCode(-32603);
    /// -32002: resource not found (legacy revisions).
    pub const RESOURCE_NOT_FOUND: ErrorCode = ErrorCode(-32002);
    /// -32042: URL elicitation required (2025-11-25 only; reserved afterwards).
    pub const URL_ELICITATION_REQUIRED: ErrorCode = ErrorCode(-32042);
    /// -32020: an HTTP header is missing, malformed or disagrees with the body
    /// (2026-07-28, Streamable HTTP).
    pub const HEADER_MISMATCH: ErrorCode = ErrorCode(-32020);
    /// -32021: the request lacks a client capability the work needs; `data` is
    /// `{requiredCapabilities}` (2026-07-28).
    pub const MISSING_CLIENT_CAPABILITY: ErrorCode = ErrorCode(-32021);
    /// -32022: the request names a protocol version the server does not serve; `data` is
    /// `{supported, requested}` (2026-07-28).
    pub const UNSUPPORTED_PROTOCOL_VERSION: ErrorCode = ErrorCode(-32022);

    /// Every code MCP or JSON-RPC defines, with its meaning (MODERN.md §12, DIGEST §5).
    pub const KNOWN: [ErrorCode; 10] = [
        ErrorCode::PARSE_ERROR,
        ErrorCode::INVALID_REQUEST,
        ErrorCode::METHOD_NOT_FOUND,
        ErrorCode::INVALID_PARAMS,
        ErrorCode::INTERNAL_ERROR,
        ErrorCode::RESOURCE_NOT_FOUND,
        ErrorCode::URL_ELICITATION_REQUIRED,
        ErrorCode::HEADER_MISMATCH,
        ErrorCode::MISSING_CLIENT_CAPABILITY,
        ErrorCode::UNSUPPORTED_PROTOCOL_VERSION,
    ];

    /// True for -32099..=-32020, the range 2026-07-28 reserves for codes the specification
    /// allocates: an application must not send one of these for another meaning.
    pub const fn is_spec_reserved(self) -> bool {
        -32099 <= self.0 && self.0 <= -32020
    }

    /// The standard message for the codes JSON-RPC defines.
    pub fn default_message(self) -> &'static str {
        match self.0 {
            -32700 => "Parse error",
            -32600 => "Invalid Request",
            -32601 => "Method not found",
            -32602 => "Invalid params",
            -32603 => "Internal error",
            -32002 => "Resource not found",
            -32042 => "URL elicitation required",
            -32020 => "Header mismatch",
            -32021 => "Missing required client capability",
            -32022 => "Unsupported protocol version",
            _ => "Error",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.0, self.default_message())
    }
}
