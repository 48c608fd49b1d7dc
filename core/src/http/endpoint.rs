//! The Streamable HTTP endpoint (in progress).
