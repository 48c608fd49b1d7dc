//! An endpoint's life: default configuration, the memory it needs (`Plan`: where each
//! region goes), creation in the caller's memory (zeroed or not) and release. Creation
//! checks the configuration and the memory before anything is written; release marks the
//! block dead (the magic word).

use core::ffi::c_void;
use core::mem::{align_of, size_of};
use core::ptr;

use picomcp_core::Limits;
use picomcp_core::http::endpoint::{
    Endpoint, EndpointConfig, EndpointStorage, ResponseMode, SlotEntry, StreamSlot,
};
use picomcp_core::session::Slice;

use crate::boundary::{FfiResult, boundary, input, out, str_arg};
use crate::convert;
use crate::status::picomcp_status;
use crate::types::picomcp_str;

use super::{
    EP_DEAD, EP_LIVE, EpBlock, PICOMCP_ENDPOINT_MAX_HOSTS, picomcp_endpoint,
    picomcp_endpoint_config, picomcp_response_mode, with_endpoint,
};

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
