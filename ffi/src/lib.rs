//! The C ABI of picomcp: `libpicomcp.a`, `libpicomcp.so` and `include/picomcp.h`.
//!
//! Everything exported here is a thin, checked shell around the core crate:
//!
//! - every function is `picomcp_*`, checks its pointers, runs inside [`boundary`] (which
//!   catches panics) and returns a [`picomcp_status`];
//! - a session lives in one block of memory: the host's own (no malloc, see
//!   [`picomcp_session_storage_size`] and [`picomcp_session_init`]) or one the library
//!   allocates ([`picomcp_session_new`]);
//! - borrowed outputs ([`picomcp_str`] views in a [`picomcp_event`]) stay valid until the
//!   next call that takes that session;
//! - C never parses JSON-RPC. The `picomcp_json_*` readers and the [`picomcp_writer`] are
//!   for hosts without a JSON library; they are the core's scanner and writer.
//!
//! All mapping between core types and C types is in [`convert`], so new core variants
//! (configuration fields, events, errors) are added in one place. `include/picomcp.h`
//! is generated from this crate by `ffi/gen-header.sh` (cbindgen, pinned) and checked
//! by `ffi/check-header.sh`.
#![deny(
    clippy::undocumented_unsafe_blocks,
    clippy::missing_safety_doc,
    unsafe_op_in_unsafe_fn
)]
#![warn(missing_docs)]
// C names: `picomcp_session`, `picomcp_str`, ... as rustls-ffi does.
#![allow(non_camel_case_types)]

pub mod auth;
pub mod boundary;
pub mod convert;
pub mod endpoint;
pub mod features;
pub mod generated;
pub mod http;
pub mod json;
pub mod served;
pub mod server;
mod server_build;
pub mod session;
pub mod status;
pub mod types;

pub use auth::*;
pub use endpoint::*;
pub use features::*;
pub use generated::*;
pub use http::*;
pub use json::*;
pub use served::*;
pub use server::*;
pub use session::*;
pub use status::*;
pub use types::*;

#[cfg(test)]
mod tests;
