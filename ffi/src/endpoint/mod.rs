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

use core::ffi::c_void;
use core::mem::{align_of, size_of};
use core::ptr;

use picomcp_core::Limits;
use picomcp_core::http::endpoint::{
    ENTROPY_LEN, Endpoint, EndpointConfig, EndpointStorage, Head, Outcome, Poll, ResponseMode,
    SlotEntry, StreamHandle, StreamSlot,
};
use picomcp_core::http::{Header, Request};
use picomcp_core::session::Slice;

use crate::boundary::{Block, FfiResult, boundary, in_bytes, input, out, str_arg, with_block};
use crate::convert;
use crate::http::{
    PICOMCP_HTTP_MAX_HEADERS, method_from_c, picomcp_http_head, picomcp_http_request,
};
use crate::session::{picomcp_session, with_session};
use crate::status::picomcp_status;
use crate::types::{PICOMCP_NO_DEADLINE, PICOMCP_SESSION_MAX_ALIGN, picomcp_str};

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

/// Fills `config` with the defaults.
///
/// # Safety
/// `config` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_endpoint_config_init(
    config: *mut picomcp_endpoint_config,
) -> picomcp_status {
    boundary(|| {
        // SAFETY: caller contract.
        let c = unsafe { out(config) }?;
        let d = EndpointConfig::default();
        *c = picomcp_endpoint_config {
            path: picomcp_str::new("/mcp"),
            check_hosts: d.check_hosts,
            allowed_hosts: ptr::null(),
            allowed_host_count: 0,
            max_body: d.max_body,
            session_idle_ms: d.session_idle_ms,
            keepalive_ms: d.keepalive_ms,
            retry_ms: d.retry_ms,
            response_mode: picomcp_response_mode::Auto as u32,
            get_stream: d.get_stream,
            versions: convert::versions_to_c(d.versions),
            slots: 16,
            streams: 32,
            stream_bytes: 0,
            auth: ptr::null(),
            server: ptr::null(),
        };
        Ok(())
    })
}

/// A configuration read from C, with where each region goes.
struct Plan<'c> {
    path: &'c str,
    hosts: [&'c str; PICOMCP_ENDPOINT_MAX_HOSTS],
    n_hosts: usize,
    slots_at: usize,
    streams_at: usize,
    hosts_at: usize,
    text_at: usize,
    bytes_at: usize,
    stream_bytes: usize,
    total: usize,
    auth: Option<crate::auth::AuthPlan<'c>>,
}

/// # Safety
/// The configuration's strings and host array must be readable.
unsafe fn plan<'c>(c: &picomcp_endpoint_config) -> FfiResult<Plan<'c>> {
    let bad = picomcp_status::InvalidArgument;
    // SAFETY: caller contract.
    let path = unsafe { str_arg(c.path) }?;
    if c.allowed_host_count > PICOMCP_ENDPOINT_MAX_HOSTS || c.slots == 0 || c.streams == 0 {
        return Err(bad);
    }
    let mut hosts = [""; PICOMCP_ENDPOINT_MAX_HOSTS];
    let mut text = path.len();
    if c.allowed_host_count > 0 {
        if c.allowed_hosts.is_null() {
            return Err(picomcp_status::NullArgument);
        }
        for (i, h) in hosts.iter_mut().take(c.allowed_host_count).enumerate() {
            // SAFETY: the caller's array has `allowed_host_count` readable entries.
            *h = unsafe { str_arg(*c.allowed_hosts.add(i)) }?;
            text += h.len();
        }
    }
    // SAFETY: caller contract (the auth configuration is part of the configuration).
    let auth = unsafe { crate::auth::plan(c.auth) }?;
    let auth_views = auth.as_ref().map_or(0, |a| a.views());
    text += auth.as_ref().map_or(0, |a| a.text());
    let stream_bytes = if c.stream_bytes == 0 {
        c.max_body.checked_add(4096).ok_or(bad)?
    } else {
        c.stream_bytes
    };
    let up = |at: usize, a: usize| at.checked_next_multiple_of(a).ok_or(bad);
    let add = |at: usize, n: usize| at.checked_add(n).ok_or(bad);
    let mul = |n: usize, s: usize| n.checked_mul(s).ok_or(bad);
    let slots_at = up(size_of::<EpBlock>(), align_of::<SlotEntry>())?;
    let streams_at = up(
        add(slots_at, mul(c.slots, size_of::<SlotEntry>())?)?,
        align_of::<StreamSlot>(),
    )?;
    let hosts_at = up(
        add(streams_at, mul(c.streams, size_of::<StreamSlot>())?)?,
        align_of::<&str>(),
    )?;
    let text_at = add(
        hosts_at,
        mul(c.allowed_host_count + auth_views, size_of::<&str>())?,
    )?;
    let bytes_at = add(text_at, text)?;
    let total = up(
        add(bytes_at, mul(c.streams, stream_bytes)?)?,
        align_of::<EpBlock>(),
    )?;
    if total > isize::MAX as usize {
        return Err(bad);
    }
    Ok(Plan {
        path,
        hosts,
        n_hosts: c.allowed_host_count,
        slots_at,
        streams_at,
        hosts_at,
        text_at,
        bytes_at,
        stream_bytes,
        total,
        auth,
    })
}

/// The memory an endpoint with this configuration needs: `*out_size` bytes aligned to
/// `*out_align` (at most 8). The configuration is checked as far as it can be.
///
/// # Safety
/// `config` readable with readable strings; the out pointers writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_endpoint_storage_size(
    config: *const picomcp_endpoint_config,
    out_size: *mut usize,
    out_align: *mut usize,
) -> picomcp_status {
    boundary(|| {
        // SAFETY: caller contract.
        let (c, size, align) = unsafe { (input(config)?, out(out_size)?, out(out_align)?) };
        // SAFETY: caller contract for the configuration's strings.
        let p = unsafe { plan(c) }?;
        *size = p.total;
        *align = align_of::<EpBlock>();
        Ok(())
    })
}

/// Creates an endpoint in `mem` (`size` bytes, aligned as
/// `picomcp_endpoint_storage_size` said; the memory is the endpoint's until
/// `picomcp_endpoint_deinit`). The configuration's text is copied.
///
/// # Safety
/// `mem` valid for writes of `size` bytes until deinit; `config` as for
/// `picomcp_endpoint_storage_size`; `out_endpoint` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_endpoint_init(
    mem: *mut c_void,
    size: usize,
    config: *const picomcp_endpoint_config,
    out_endpoint: *mut *mut picomcp_endpoint,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe { init(mem, size, config, out_endpoint, false) }
}

/// As `picomcp_endpoint_init`, for memory whose bytes are all zero already (`calloc`, a
/// static array, fresh pages): the stream bytes (megabytes with large bodies) are then
/// not written at start, so they take no resident memory until streams use them.
///
/// # Safety
/// As `picomcp_endpoint_init`, and the first `size` bytes at `mem` must all be zero.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_endpoint_init_zeroed(
    mem: *mut c_void,
    size: usize,
    config: *const picomcp_endpoint_config,
    out_endpoint: *mut *mut picomcp_endpoint,
) -> picomcp_status {
    // SAFETY: caller contract, zero contents included.
    unsafe { init(mem, size, config, out_endpoint, true) }
}

/// The body of both init functions.
///
/// # Safety
/// As `picomcp_endpoint_init`; with `zeroed`, `size` bytes of zero at `mem`.
unsafe fn init(
    mem: *mut c_void,
    size: usize,
    config: *const picomcp_endpoint_config,
    out_endpoint: *mut *mut picomcp_endpoint,
    zeroed: bool,
) -> picomcp_status {
    boundary(|| {
        // SAFETY: caller contract.
        let o = unsafe { out(out_endpoint) }?;
        *o = ptr::null_mut();
        // SAFETY: caller contract.
        let c = unsafe { input(config) }?;
        if mem.is_null() {
            return Err(picomcp_status::NullArgument);
        }
        // SAFETY: caller contract for the configuration's strings.
        let p = unsafe { plan(c) }?;
        if !(mem as usize).is_multiple_of(align_of::<EpBlock>()) {
            return Err(picomcp_status::MemoryMisaligned);
        }
        if size < p.total {
            return Err(picomcp_status::MemoryTooSmall);
        }
        let response_mode = match c.response_mode {
            0 => ResponseMode::Auto,
            1 => ResponseMode::Json,
            2 => ResponseMode::Sse,
            _ => return Err(picomcp_status::InvalidArgument),
        };
        let versions = convert::versions_from_c(c.versions)?;
        let mem = mem.cast::<u8>();
        if !zeroed {
            // SAFETY: `mem` is valid for `p.total` bytes (checked, caller contract);
            // zeroing initialises every byte before slices are made over the regions
            // (with `zeroed` the caller guarantees they are zero already).
            unsafe { ptr::write_bytes(mem, 0, p.total) };
        }
        // SAFETY: each region lies inside the block at an offset `plan` aligned for its
        // type; they are disjoint and initialised below or above (zero bytes are a valid
        // `u8`); the caller keeps the memory until deinit, which the `'static` stands for.
        let (slots, streams, host_views, text, bytes) = unsafe {
            let slots = mem.add(p.slots_at).cast::<SlotEntry>();
            for i in 0..c.slots {
                slots.add(i).write(SlotEntry::EMPTY);
            }
            let streams = mem.add(p.streams_at).cast::<StreamSlot>();
            for i in 0..c.streams {
                streams.add(i).write(StreamSlot::EMPTY);
            }
            let hv = mem.add(p.hosts_at).cast::<&'static str>();
            let n_views = p.n_hosts + p.auth.as_ref().map_or(0, |a| a.views());
            for i in 0..n_views {
                hv.add(i).write("");
            }
            (
                core::slice::from_raw_parts_mut(slots, c.slots),
                core::slice::from_raw_parts_mut(streams, c.streams),
                core::slice::from_raw_parts_mut(hv, n_views),
                core::slice::from_raw_parts_mut(mem.add(p.text_at), p.bytes_at - p.text_at),
                core::slice::from_raw_parts_mut(mem.add(p.bytes_at), c.streams * p.stream_bytes),
            )
        };
        let (path_buf, mut rest) = text.split_at_mut(p.path.len());
        path_buf.copy_from_slice(p.path.as_bytes());
        let path: &'static str =
            core::str::from_utf8(path_buf).map_err(|_| picomcp_status::InvalidUtf8)?;
        let (host_views, auth_views) = host_views.split_at_mut(p.n_hosts);
        for (view, h) in host_views.iter_mut().zip(&p.hosts[..p.n_hosts]) {
            let (buf, r) = rest.split_at_mut(h.len());
            buf.copy_from_slice(h.as_bytes());
            *view = core::str::from_utf8(buf).map_err(|_| picomcp_status::InvalidUtf8)?;
            rest = r;
        }
        let auth = match &p.auth {
            None => None,
            Some(a) => {
                for (view, n) in auth_views.iter_mut().zip(&a.names[..a.views()]) {
                    *view = crate::auth::keep(&mut rest, n)?;
                }
                let resource = crate::auth::keep(&mut rest, a.resource)?;
                let required = crate::auth::keep(&mut rest, a.required)?;
                let views: &'static [&'static str] = auth_views;
                Some(crate::auth::config(a, resource, required, views)?)
            }
        };
        let host_views: &'static [&'static str] = host_views;
        let server = if c.server.is_null() {
            None
        } else {
            // SAFETY: a live server (checked) that outlives the endpoint (caller contract);
            // nothing writes it until its deinit.
            Some(unsafe { crate::server::server_ref::<'static>(c.server) }?)
        };
        let config = EndpointConfig {
            path,
            check_hosts: c.check_hosts,
            allowed_hosts: host_views,
            max_body: c.max_body,
            limits: Limits {
                max_line: c.max_body,
                ..Limits::DEFAULT
            },
            session_idle_ms: c.session_idle_ms,
            keepalive_ms: c.keepalive_ms,
            retry_ms: c.retry_ms,
            response_mode,
            get_stream: c.get_stream,
            versions,
            param_headers: &[],
            tools: server.map(|s| s as &dyn picomcp_core::http::params::ToolSchemas),
            auth,
        };
        let storage = EndpointStorage {
            slots: Slice::Borrowed(slots),
            streams: Slice::Borrowed(streams),
            bytes: Slice::Borrowed(bytes),
        };
        let ep = Endpoint::new(config, storage).map_err(|_| picomcp_status::InvalidArgument)?;
        // SAFETY: offset 0 is aligned for EpBlock and the header region is its size.
        unsafe {
            mem.cast::<EpBlock>().write(EpBlock {
                magic: EP_LIVE,
                poisoned: false,
                ep,
                server,
            })
        };
        *o = mem.cast();
        Ok(())
    })
}

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

/// Ends an endpoint; its memory is the caller's again.
///
/// # Safety
/// `endpoint` NULL or from `picomcp_endpoint_init`, memory still valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_endpoint_deinit(
    endpoint: *mut picomcp_endpoint,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_endpoint(endpoint, |b| {
            // (Inside the unsafe block above.) A live block: its Endpoint is dropped once;
            // the magic then says dead, so nothing uses it again.
            ptr::drop_in_place(&mut b.ep);
            b.magic = EP_DEAD;
            Ok(())
        })
    }
}

/// Takes one HTTP request (from `picomcp_http_connection_poll_request` or any parser);
/// `entropy` is `PICOMCP_ENDPOINT_ENTROPY_LEN` fresh random bytes (a new session's id).
/// See `picomcp_outcome_kind` for what to do next.
///
/// # Safety
/// `endpoint` live; `request` readable with readable views; `entropy` 16 readable bytes;
/// `out_outcome` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_endpoint_handle_request(
    endpoint: *mut picomcp_endpoint,
    now_ms: u64,
    request: *const picomcp_http_request,
    entropy: *const u8,
    out_outcome: *mut picomcp_http_outcome,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe { handle(endpoint, now_ms, request, entropy, None, out_outcome) }
}

/// `picomcp_endpoint_handle_request` under `picomcp_endpoint_config.auth`: `verify` (with
/// `user`) checks the Bearer token and reports its claims; `unix_s` is now in Unix
/// seconds (token expiry is absolute time). A request without a valid token, for another
/// resource, expired, or without the scopes the endpoint needs is answered here (400,
/// 401 or 403 with a `WWW-Authenticate` challenge) and reaches no session;
/// `picomcp_endpoint_principal` then names the caller of a delivered request. The
/// metadata document is served at `/.well-known/oauth-protected-resource[/path]`.
///
/// # Safety
/// As `picomcp_endpoint_handle_request`; `verify` NULL or callable as
/// `picomcp_verify_fn` says, with `user`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_endpoint_handle_request_auth(
    endpoint: *mut picomcp_endpoint,
    now_ms: u64,
    request: *const picomcp_http_request,
    entropy: *const u8,
    unix_s: u64,
    verify: crate::auth::picomcp_verify_fn,
    user: *mut c_void,
    out_outcome: *mut picomcp_http_outcome,
) -> picomcp_status {
    let v = crate::auth::CVerifier { f: verify, user };
    // SAFETY: caller contract.
    unsafe {
        handle(
            endpoint,
            now_ms,
            request,
            entropy,
            Some((unix_s, v)),
            out_outcome,
        )
    }
}

/// The verified caller of the request the endpoint took last (under auth, for a
/// delivered request or stream); `*out_found` false otherwise. Views are valid until the
/// next call that takes the endpoint. Never the token.
///
/// # Safety
/// `endpoint` live; the out pointers writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_endpoint_principal(
    endpoint: *mut picomcp_endpoint,
    out_principal: *mut crate::auth::picomcp_principal,
    out_found: *mut bool,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_endpoint(endpoint, |b| {
            let (o, f) = (out(out_principal)?, out(out_found)?);
            *f = false;
            if let Some(p) = b.ep.principal() {
                crate::auth::principal_to_c(p, o);
                *f = true;
            }
            Ok(())
        })
    }
}

/// The body of both request functions.
///
/// # Safety
/// As `picomcp_endpoint_handle_request`.
unsafe fn handle(
    endpoint: *mut picomcp_endpoint,
    now_ms: u64,
    request: *const picomcp_http_request,
    entropy: *const u8,
    auth: Option<(u64, crate::auth::CVerifier)>,
    out_outcome: *mut picomcp_http_outcome,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_endpoint(endpoint, |b| {
            let o = out(out_outcome)?;
            let r = input(request)?;
            let ent: &[u8; ENTROPY_LEN] = in_bytes(entropy, ENTROPY_LEN)?
                .try_into()
                .map_err(|_| picomcp_status::NullArgument)?;
            if r.header_count > PICOMCP_HTTP_MAX_HEADERS {
                return Err(picomcp_status::InvalidArgument);
            }
            let mut headers = [Header::EMPTY; PICOMCP_HTTP_MAX_HEADERS];
            if r.header_count > 0 {
                if r.headers.is_null() {
                    return Err(picomcp_status::NullArgument);
                }
                let cs = core::slice::from_raw_parts(r.headers, r.header_count);
                for (slot, c) in headers.iter_mut().zip(cs) {
                    *slot = c.to_rust()?;
                }
            }
            let req = Request {
                method: method_from_c(r.method)?,
                target: str_arg(r.target)?,
                headers: &headers[..r.header_count],
                body: in_bytes(r.body, r.body_len)?,
            };
            let accepted = Head::accepted();
            let mut oc = picomcp_http_outcome {
                kind: 0,
                head: picomcp_http_head::EMPTY,
                body: ptr::null(),
                body_len: 0,
                slot: 0,
                fresh: false,
                has_stream: false,
                stream: 0,
            };
            let policy = b
                .server
                .map(|s| s as &dyn picomcp_core::http::auth::ScopePolicy);
            let mut verifier = auth;
            let input = verifier
                .as_mut()
                .map(|(unix_s, v)| picomcp_core::http::auth::AuthInput {
                    unix_s: *unix_s,
                    verifier: v,
                    policy,
                });
            match b.ep.handle_request_as(now_ms, &req, ent, input) {
                Outcome::Respond { head, body } => {
                    oc.kind = picomcp_outcome_kind::Respond as u32;
                    oc.head = picomcp_http_head::of(head.status, head.body, head.headers());
                    oc.body = body.as_ptr();
                    oc.body_len = body.len();
                }
                Outcome::Deliver {
                    slot,
                    fresh,
                    stream,
                } => {
                    oc.kind = picomcp_outcome_kind::Deliver as u32;
                    oc.head = picomcp_http_head::of(accepted.status, accepted.body, &[]);
                    oc.slot = slot;
                    oc.fresh = fresh;
                    oc.has_stream = stream.is_some();
                    oc.stream = stream.map_or(0, StreamHandle::to_bits);
                }
                Outcome::Stream(h) => {
                    oc.kind = picomcp_outcome_kind::Stream as u32;
                    oc.has_stream = true;
                    oc.stream = h.to_bits();
                }
            }
            *o = oc;
            Ok(())
        })
    }
}

/// Takes the output of the session in `slot` and puts each message on its stream. Call
/// after every activity of that session (a delivered body, timers, late answers).
///
/// # Safety
/// `endpoint` and `session` live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_endpoint_collect(
    endpoint: *mut picomcp_endpoint,
    now_ms: u64,
    slot: usize,
    session: *mut picomcp_session,
) -> picomcp_status {
    // SAFETY: caller contract for both objects (distinct blocks: no aliasing).
    unsafe {
        with_endpoint(endpoint, |e| {
            if slot >= e.ep.slot_count() {
                return Err(picomcp_status::InvalidArgument);
            }
            match with_session(session, |s| {
                e.ep.collect(now_ms, slot, &mut s.session);
                Ok(())
            }) {
                picomcp_status::Ok => Ok(()),
                st => Err(st),
            }
        })
    }
}

/// The next thing to write for `stream`; see `picomcp_response_kind`.
///
/// # Safety
/// `endpoint` live; `out_response` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_endpoint_poll_response(
    endpoint: *mut picomcp_endpoint,
    now_ms: u64,
    stream: u64,
    out_response: *mut picomcp_http_response,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_endpoint(endpoint, |b| {
            let o = out(out_response)?;
            let mut r = picomcp_http_response {
                kind: picomcp_response_kind::Wait as u32,
                head: picomcp_http_head::EMPTY,
                body: ptr::null(),
                body_len: 0,
            };
            match b.ep.poll_response(now_ms, StreamHandle::from_bits(stream)) {
                Poll::Head(h) => {
                    r.kind = picomcp_response_kind::Head as u32;
                    r.head = picomcp_http_head::of(h.status, h.body, h.headers());
                }
                Poll::Body(bytes) => {
                    r.kind = picomcp_response_kind::Body as u32;
                    r.body = bytes.as_ptr();
                    r.body_len = bytes.len();
                }
                Poll::Wait => {}
                Poll::End => r.kind = picomcp_response_kind::End as u32,
            }
            *o = r;
            Ok(())
        })
    }
}

/// `n` bytes of the last body of `stream` were written.
///
/// # Safety
/// `endpoint` live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_endpoint_advance(
    endpoint: *mut picomcp_endpoint,
    stream: u64,
    n: usize,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_endpoint(endpoint, |b| {
            b.ep.advance(StreamHandle::from_bits(stream), n);
            Ok(())
        })
    }
}

/// The connection carrying `stream` went away before the end.
///
/// # Safety
/// `endpoint` live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_endpoint_detach(
    endpoint: *mut picomcp_endpoint,
    stream: u64,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_endpoint(endpoint, |b| {
            b.ep.detach(StreamHandle::from_bits(stream));
            Ok(())
        })
    }
}

/// When `picomcp_endpoint_handle_timeout` next has work (`PICOMCP_NO_DEADLINE`: never).
///
/// # Safety
/// `endpoint` live; `out_deadline_ms` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_endpoint_poll_timeout(
    endpoint: *mut picomcp_endpoint,
    out_deadline_ms: *mut u64,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_endpoint(endpoint, |b| {
            *out(out_deadline_ms)? = b.ep.poll_timeout().unwrap_or(PICOMCP_NO_DEADLINE);
            Ok(())
        })
    }
}

/// Time has passed: idle sessions expire, keep-alive comments become due.
///
/// # Safety
/// `endpoint` live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_endpoint_handle_timeout(
    endpoint: *mut picomcp_endpoint,
    now_ms: u64,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_endpoint(endpoint, |b| {
            b.ep.handle_timeout(now_ms);
            Ok(())
        })
    }
}

/// Whether `slot` holds a live session or is lent to a request (tick only those).
///
/// # Safety
/// `endpoint` live; `out_in_use` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_endpoint_slot_in_use(
    endpoint: *mut picomcp_endpoint,
    slot: usize,
    out_in_use: *mut bool,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_endpoint(endpoint, |b| {
            *out(out_in_use)? = b.ep.slot_in_use(slot);
            Ok(())
        })
    }
}
