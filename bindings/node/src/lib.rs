//! The native half of the `picomcp` npm package: the core session for Node.
//!
//! A thin wrapper: every byte goes through [`picomcp::session::Session`]; nothing here
//! parses JSON-RPC or tracks the lifecycle. JSON crosses the boundary as text, validated
//! by the core on the way in; `lib/index.js` turns it into JavaScript values (one
//! `JSON.parse`/`JSON.stringify` each way) and errors into the package's error classes.

#![deny(clippy::all)]

mod event;
mod session;

pub use event::Event;
pub use session::{NativeSession, SessionOptions};

/// The protocol revisions the core knows, oldest first.
#[napi_derive::napi]
pub fn protocol_versions() -> Vec<&'static str> {
    picomcp::protocol::ProtocolVersion::ALL
        .iter()
        .map(|v| v.as_str())
        .collect()
}
