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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ErrorCode(pub i32);

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
    /// -32042: URL elicitation required (2025-11-25).
    pub const URL_ELICITATION_REQUIRED: ErrorCode = ErrorCode(-32042);

    /// The standard message for the codes JSON-RPC defines.
    pub fn default_message(self) -> &'static str {
        match self.0 {
            -32700 => "Parse error",
            -32600 => "Invalid Request",
            -32601 => "Method not found",
            -32602 => "Invalid params",
            -32603 => "Internal error",
            -32002 => "Resource not found",
            _ => "Error",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.0, self.default_message())
    }
}
