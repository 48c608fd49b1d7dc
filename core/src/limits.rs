//! The configurable bounds of the codec layer.

/// Bounds applied to every inbound line. All are plain numbers with documented defaults;
/// exceeding one is a typed error that maps to a JSON-RPC error reply, never a panic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Longest accepted line in bytes, counting everything before the `\n` (a trailing
    /// `\r` included). For a session this is also the receive buffer size.
    /// Default: 1 MiB.
    pub max_line: usize,
    /// Deepest accepted nesting of arrays and objects (the message object itself is
    /// level 1). At most [`MAX_DEPTH_CAP`](crate::json::MAX_DEPTH_CAP). Default: 64.
    pub max_depth: usize,
    /// Longest accepted request id or progress token, as raw JSON text (quotes and
    /// escapes included). At most [`ID_CAPACITY`](crate::jsonrpc::ID_CAPACITY). Default: 128.
    pub max_id_len: usize,
    /// Most messages accepted in one batch array (2025-03-26 only). Default: 32.
    pub max_batch: usize,
}

impl Limits {
    /// The defaults: 1 MiB lines, depth 64, 128-byte ids, 32-message batches.
    pub const DEFAULT: Limits = Limits {
        max_line: 1 << 20,
        max_depth: 64,
        max_id_len: 128,
        max_batch: 32,
    };
}

impl Default for Limits {
    fn default() -> Self {
        Self::DEFAULT
    }
}
