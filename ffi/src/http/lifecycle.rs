//! A connection's life: default limits, the memory a connection needs, creation in the
//! caller's memory and release (the magic word marks the block dead).

use core::ffi::c_void;
use core::mem::{align_of, size_of};
use core::ptr;

use picomcp_core::http::codec::{CodecLimits, ServerConnection};

use crate::boundary::{boundary, input, out};
use crate::status::picomcp_status;

use super::{
    CONN_DEAD, CONN_LIVE, ConnBlock, PICOMCP_HTTP_MAX_HEADERS, conn_layout, limits_from_c,
    limits_to_c, picomcp_http_connection, picomcp_http_header, picomcp_http_limits, with_conn,
};

/// Fills `limits` with the codec's defaults: 32 headers, 8 KiB head, 2 KiB target,
/// 1 MiB body, 10 s for a head, 30 s for a body, 60 s idle, 411 for a `POST` without
/// length.
///
/// # Safety
/// `limits` must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_http_limits_init(
    limits: *mut picomcp_http_limits,
) -> picomcp_status {
    boundary(|| {
        // SAFETY: caller contract.
        *unsafe { out(limits) }? = limits_to_c(&CodecLimits::default());
        Ok(())
    })
}

/// The memory a connection with a receive buffer of `rx_bytes` needs: `*out_size` bytes
/// aligned to `*out_align` (at most 8). Size the buffer for the largest head plus the
/// largest body accepted (`max_head_bytes + max_body`).
///
/// # Safety
/// The out pointers must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_http_connection_storage_size(
    rx_bytes: usize,
    out_size: *mut usize,
    out_align: *mut usize,
) -> picomcp_status {
    boundary(|| {
        // SAFETY: caller contract.
        let (size, align) = unsafe { (out(out_size)?, out(out_align)?) };
        *size = conn_layout(rx_bytes)?;
        *align = align_of::<ConnBlock>();
        Ok(())
    })
}

/// Starts a connection (just accepted, at `now_ms`) in `mem`: `size` bytes, aligned as
/// `picomcp_http_connection_storage_size` said; everything after the header is the
/// receive buffer. `limits` NULL: the defaults. The memory is the connection's until
/// `picomcp_http_connection_deinit`; a connection block may be initialised again after
/// that (one per accepted socket, from a fixed pool).
///
/// # Safety
/// `mem` must be valid for writes of `size` bytes until deinit; `limits` NULL or
/// readable; `out_conn` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_http_connection_init(
    mem: *mut c_void,
    size: usize,
    limits: *const picomcp_http_limits,
    now_ms: u64,
    out_conn: *mut *mut picomcp_http_connection,
) -> picomcp_status {
    boundary(|| {
        // SAFETY: caller contract.
        let o = unsafe { out(out_conn) }?;
        *o = ptr::null_mut();
        if mem.is_null() {
            return Err(picomcp_status::NullArgument);
        }
        let limits = if limits.is_null() {
            CodecLimits::default()
        } else {
            // SAFETY: caller contract (non-NULL here).
            limits_from_c(unsafe { input(limits) }?)
        };
        if !(mem as usize).is_multiple_of(align_of::<ConnBlock>()) {
            return Err(picomcp_status::MemoryMisaligned);
        }
        let header = size_of::<ConnBlock>();
        if size <= header || size > isize::MAX as usize {
            return Err(picomcp_status::MemoryTooSmall);
        }
        let mem = mem.cast::<u8>();
        // SAFETY: `mem` is valid for `size` bytes (caller contract); the receive buffer
        // is the part after the header, disjoint from it, zeroed so it is initialised.
        let rx: &'static mut [u8] = unsafe {
            ptr::write_bytes(mem.add(header), 0, size - header);
            core::slice::from_raw_parts_mut(mem.add(header), size - header)
        };
        let block = ConnBlock {
            magic: CONN_LIVE,
            poisoned: false,
            conn: ServerConnection::new(rx, limits, now_ms),
            headers: [picomcp_http_header::EMPTY; PICOMCP_HTTP_MAX_HEADERS],
        };
        // SAFETY: aligned for ConnBlock and at least its size (checked above).
        unsafe { mem.cast::<ConnBlock>().write(block) };
        *o = mem.cast();
        Ok(())
    })
}

/// Ends a connection; its memory is the caller's again.
///
/// # Safety
/// `conn` must be NULL or a connection `picomcp_http_connection_init` made whose memory
/// is still valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_http_connection_deinit(
    conn: *mut picomcp_http_connection,
) -> picomcp_status {
    // SAFETY: caller contract. (ServerConnection holds no resources: no drop needed.)
    unsafe {
        with_conn(conn, |b| {
            b.magic = CONN_DEAD;
            Ok(())
        })
    }
}
