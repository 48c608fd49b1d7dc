//! Streamable HTTP, part two: the endpoint (every MCP rule of HTTP, both eras) over
//! caller memory.
//!
//! A `picomcp_endpoint` is one block:
//!
//! ```text
//! [ EpBlock (magic, poison, the core Endpoint) | slot table | stream table |
//!   host views | text (path, allowed hosts) | stream bytes ]
//! ```
//!
//! The core `Endpoint<'static>` borrows the other regions; the `'static` is the C
//! caller's promise to keep the memory until `picomcp_endpoint_deinit`. Sessions stay
//! the host's: a pool of `picomcp_session`s by slot, handed in to `collect`.
//!
//! # Modules
//!
//! This file holds the C types, the block header (magic word, poison) and the entry
//! point every endpoint function goes through (`with_endpoint`). `lifecycle` sizes,
//! creates and ends an endpoint, `request` routes one HTTP request, `output` hands back
//! responses, stream bytes and deadlines; the modules are declared in the order of
//! `include/picomcp.h`.

use core::mem::align_of;

use picomcp_core::http::endpoint::{ENTROPY_LEN, Endpoint, SlotEntry, StreamSlot};

use crate::boundary::{Block, FfiResult, with_block};
use crate::http::picomcp_http_head;
use crate::status::picomcp_status;
use crate::types::{PICOMCP_SESSION_MAX_ALIGN, picomcp_str};

// cbindgen writes functions module by module, in declaration order, and the header must
// keep its order: the blank lines stop rustfmt from sorting these declarations.

mod lifecycle;

mod request;

mod output;

pub use lifecycle::*;
pub use output::*;
pub use request::*;

/// Bytes of entropy `picomcp_endpoint_handle_request` takes (for session ids).
pub const PICOMCP_ENDPOINT_ENTROPY_LEN: usize = 16;
const _: () = assert!(PICOMCP_ENDPOINT_ENTROPY_LEN == ENTROPY_LEN);
/// The most `allowed_hosts` an endpoint configuration may name.
pub const PICOMCP_ENDPOINT_MAX_HOSTS: usize = 16;

/// How a POST that carries requests is answered (`picomcp_endpoint_config.response_mode`).
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum picomcp_response_mode {
    /// JSON when the response travels alone, SSE when anything goes with it.
    Auto = 0,
    /// Always one JSON body.
    Json = 1,
    /// Always an SSE stream.
    Sse = 2,
}

/// The endpoint's rules, limits and table sizes (`picomcp_endpoint_config_init` fills
/// the defaults). Text is copied into the endpoint's memory.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct picomcp_endpoint_config {
    /// The MCP path (other paths get 404). Default `/mcp`.
    pub path: picomcp_str,
    /// Check `Host` and `Origin` (403 on a mismatch). Default true.
    pub check_hosts: bool,
    /// Host names accepted besides the loopback names (at most
    /// `PICOMCP_ENDPOINT_MAX_HOSTS`).
    pub allowed_hosts: *const picomcp_str,
    /// How many.
    pub allowed_host_count: usize,
    /// The largest body taken (413 beyond); also the parse limit of bodies. Default 1 MiB.
    pub max_body: usize,
    /// A legacy session idle this long expires. Default 600000.
    pub session_idle_ms: u64,
    /// SSE keep-alive comment interval. Default 15000.
    pub keepalive_ms: u64,
    /// The `retry` hint of SSE priming events. Default 1000.
    pub retry_ms: u32,
    /// A `picomcp_response_mode` value. Default auto.
    pub response_mode: u32,
    /// Offer the GET stream of legacy sessions. Default true.
    pub get_stream: bool,
    /// `PICOMCP_VERSION_*` bits served. Default all.
    pub versions: u32,
    /// Session slots: the size of the host's session pool. Default 16.
    pub slots: usize,
    /// Response streams open at once. Default 32.
    pub streams: usize,
    /// Bytes per stream (0: `max_body + 4096`; at least `max_body + 128`).
    pub stream_bytes: usize,
    /// An OAuth 2.1 protected resource (NULL: no authorization, the default); serve it
    /// with `picomcp_endpoint_handle_request_auth`. Copied like the rest.
    pub auth: *const crate::auth::picomcp_auth_config,
    /// The server layer whose definitions the endpoint consults (NULL: none, the
    /// default): the tools' `x-mcp-header` annotations are checked as `Mcp-Param-*`
    /// headers, and under `auth` a call, read or get without the scopes its definition
    /// names is answered 403 `insufficient_scope` (step-up) before any session sees it.
    /// Not copied: the server must stay live until the endpoint is deinitialised.
    pub server: *const crate::server::picomcp_server,
}

/// What to do with a request (`picomcp_http_outcome.kind`).
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum picomcp_outcome_kind {
    /// Answer now with `head` and `body`.
    Respond = 0,
    /// Hand the body to the session in `slot` (a fresh one first when `fresh`) with
    /// `picomcp_session_handle_message`, run the application,
    /// `picomcp_endpoint_collect`, then serve `stream`, or answer `head` (202) when
    /// `has_stream` is false.
    Deliver = 1,
    /// A GET stream: serve `stream`.
    Stream = 2,
}

/// The outcome of `picomcp_endpoint_handle_request`. Views are valid until the next
/// call that takes the endpoint.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct picomcp_http_outcome {
    /// A `picomcp_outcome_kind` value.
    pub kind: u32,
    /// Respond: the head; Deliver without a stream: `202 Accepted`.
    pub head: picomcp_http_head,
    /// Respond: the body (maybe empty).
    pub body: *const u8,
    /// Its length.
    pub body_len: usize,
    /// Deliver: the session slot.
    pub slot: usize,
    /// Deliver: start a new session (and application state) in the slot first.
    pub fresh: bool,
    /// Deliver: whether `stream` carries the answer.
    pub has_stream: bool,
    /// Deliver, Stream: the stream handle.
    pub stream: u64,
}

/// What to write next for a stream (`picomcp_http_response.kind`).
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum picomcp_response_kind {
    /// Write `head` (once, first).
    Head = 0,
    /// Write `body` (`picomcp_http_connection_write_body`), then
    /// `picomcp_endpoint_advance` with `body_len`.
    Body = 1,
    /// Nothing now: wait for `collect` or a timeout.
    Wait = 2,
    /// The response is complete (`picomcp_http_connection_write_end`); the handle is stale.
    End = 3,
}

/// The result of `picomcp_endpoint_poll_response`; views valid until the next call
/// that takes the endpoint.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct picomcp_http_response {
    /// A `picomcp_response_kind` value.
    pub kind: u32,
    /// Head: the head.
    pub head: picomcp_http_head,
    /// Body: the bytes.
    pub body: *const u8,
    /// Their length.
    pub body_len: usize,
}

/// The Streamable HTTP endpoint (opaque), in caller memory: see
/// `picomcp_endpoint_storage_size`. Not thread-safe.
pub struct picomcp_endpoint {
    _private: [u8; 0],
}

const EP_LIVE: u64 = 0x7069_636f_6570_7031;
const EP_DEAD: u64 = 0x7069_636f_6570_7030;

#[repr(C)]
struct EpBlock {
    magic: u64,
    poisoned: bool,
    ep: Endpoint<'static>,
    /// `picomcp_endpoint_config.server`: the scope policy of authorized requests.
    server: Option<&'static picomcp_core::server::Server<'static>>,
}

const _: () = assert!(align_of::<EpBlock>() <= PICOMCP_SESSION_MAX_ALIGN);
const _: () = assert!(align_of::<SlotEntry>() <= PICOMCP_SESSION_MAX_ALIGN);
const _: () = assert!(align_of::<StreamSlot>() <= PICOMCP_SESSION_MAX_ALIGN);

/// Runs `f` on a live, unpoisoned block ([`with_block`]).
///
/// # Safety
/// As [`with_block`].
unsafe fn with_endpoint(
    c: *mut picomcp_endpoint,
    f: impl FnOnce(&mut EpBlock) -> FfiResult,
) -> picomcp_status {
    // SAFETY: forwarded caller contract.
    unsafe { with_block(c.cast::<EpBlock>(), f) }
}

// SAFETY: `#[repr(C)]` with `magic: u64` first; the init function writes `EP_LIVE`.
unsafe impl Block for EpBlock {
    const LIVE: u64 = EP_LIVE;
    fn poisoned(&mut self) -> &mut bool {
        &mut self.poisoned
    }
}

/// The scope names of `endpoint`'s authorization (`None` without one): what a grant's
/// bits are over.
///
/// # Safety
/// As [`with_block`]; the names live until the endpoint's deinit.
pub(crate) unsafe fn scope_names(
    c: *mut picomcp_endpoint,
) -> FfiResult<Option<&'static [&'static str]>> {
    let mut names = None;
    // SAFETY: forwarded caller contract.
    match unsafe {
        with_endpoint(c, |b| {
            names = b.ep.config().auth.map(|a| a.scopes);
            Ok(())
        })
    } {
        picomcp_status::Ok => Ok(names),
        st => Err(st),
    }
}
