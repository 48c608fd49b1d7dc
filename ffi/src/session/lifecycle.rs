//! A session's life: default configuration, the memory it needs, creation in the
//! caller's memory (no malloc) or on the heap, and release. Creation checks the memory
//! (size, alignment) and the configuration before anything is written; release marks the
//! block dead (the magic word), so a later call with the stale pointer is refused.

use core::ffi::c_void;
use core::ptr;

use crate::boundary::{boundary, input, out};
use crate::convert;
use crate::status::picomcp_status;
use crate::types::*;

use super::layout::{place, plan};
use super::{MAGIC_DEAD, block, picomcp_session};

/// Fills `config` with the defaults for `role` (a `picomcp_role`): capabilities `{}`, the
/// legacy revisions, 1 MiB lines, depth 64, 128-byte ids, 60 s request timeout, 32 inbound
/// and 8 outbound request slots, default queue sizes. Set `name` and `version` (and
/// usually `capabilities`) afterwards.
///
/// # Safety
/// `config` must be NULL or point to a writable `picomcp_config`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_config_init(
    config: *mut picomcp_config,
    role: u32,
) -> picomcp_status {
    boundary(|| {
        // SAFETY: caller contract.
        let c = unsafe { out(config) }?;
        convert::role_from_c(role)?;
        *c = convert::config_defaults(role);
        Ok(())
    })
}

/// Computes the memory a session with this configuration needs, for
/// `picomcp_session_init`: `*out_size` bytes aligned to `*out_align` (a power of two, at
/// most `PICOMCP_SESSION_MAX_ALIGN`, i.e. 8: a `uint64_t` array or `malloc` memory is
/// always aligned enough).
///
/// The configuration is checked as far as possible without memory, so a bad one fails
/// here with the same status `picomcp_session_init` would return.
///
/// # Safety
/// `config` must be NULL or point to a valid `picomcp_config` whose strings are readable;
/// the out pointers must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_storage_size(
    config: *const picomcp_config,
    out_size: *mut usize,
    out_align: *mut usize,
) -> picomcp_status {
    boundary(|| {
        // SAFETY: caller contract for every pointer.
        let (c, size, align) = unsafe { (input(config)?, out(out_size)?, out(out_align)?) };
        // SAFETY: caller contract for the configuration's strings.
        let conv = unsafe { convert::config_from_c(c) }?;
        let p = plan(&conv)?;
        *size = p.total;
        *align = p.align;
        Ok(())
    })
}

/// Creates a session in memory you own — a static array, an arena, the stack — without
/// any allocation. `mem` must be `size` bytes with `size` at least what
/// `picomcp_session_storage_size` reported for this configuration, aligned to the
/// alignment it reported (8 always suffices). The configuration text is copied.
///
/// `*out` receives the session (the same address as `mem`). The memory belongs to the
/// session until `picomcp_session_deinit(*out)`: do not touch, move or free it before.
/// A client session queues its `initialize` request at once.
///
/// Errors: `PICOMCP_STATUS_MEMORY_TOO_SMALL`, `PICOMCP_STATUS_MEMORY_MISALIGNED`, or a
/// configuration status. `*out` is set to NULL on error.
///
/// # Safety
/// `mem` must be valid for writes of `size` bytes and stay valid until deinit; `config`
/// and `out` as for `picomcp_session_storage_size`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_init(
    mem: *mut c_void,
    size: usize,
    config: *const picomcp_config,
    now_ms: u64,
    out_session: *mut *mut picomcp_session,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe { init(mem, size, config, now_ms, out_session, false) }
}

/// As `picomcp_session_init`, for memory whose bytes are all zero already: `calloc`
/// memory, a static array (`.bss`), fresh `mmap` pages. The session then does not write
/// the whole block once more, so its large queues (megabytes with long lines) take no
/// resident memory until they are used, and start-up does not touch every page. Memory
/// that is not all zero is the caller's bug, as in `picomcp_session_init`'s other
/// requirements.
///
/// # Safety
/// As `picomcp_session_init`, and the first `size` bytes at `mem` must all be zero.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_init_zeroed(
    mem: *mut c_void,
    size: usize,
    config: *const picomcp_config,
    now_ms: u64,
    out_session: *mut *mut picomcp_session,
) -> picomcp_status {
    // SAFETY: caller contract, zero contents included.
    unsafe { init(mem, size, config, now_ms, out_session, true) }
}

/// The body of `picomcp_session_init` and `picomcp_session_init_zeroed`.
///
/// # Safety
/// As `picomcp_session_init`; with `zeroed`, `size` bytes of zero at `mem`.
unsafe fn init(
    mem: *mut c_void,
    size: usize,
    config: *const picomcp_config,
    now_ms: u64,
    out_session: *mut *mut picomcp_session,
    zeroed: bool,
) -> picomcp_status {
    boundary(|| {
        // SAFETY: caller contract.
        let o = unsafe { out(out_session) }?;
        *o = ptr::null_mut();
        // SAFETY: caller contract.
        let c = unsafe { input(config) }?;
        if mem.is_null() {
            return Err(picomcp_status::NullArgument);
        }
        // SAFETY: caller contract for the configuration's strings.
        let conv = unsafe { convert::config_from_c(c) }?;
        let p = plan(&conv)?;
        if !(mem as usize).is_multiple_of(p.align) {
            return Err(picomcp_status::MemoryMisaligned);
        }
        if size < p.total {
            return Err(picomcp_status::MemoryTooSmall);
        }
        // SAFETY: `mem` is non-NULL, aligned, at least `p.total` bytes (caller contract for
        // validity, lifetime and, with `zeroed`, zero contents).
        *o = unsafe { place(mem.cast(), &conv, &p, now_ms, false, zeroed) }?;
        Ok(())
    })
}

/// Ends a session created with `picomcp_session_init`. Afterwards the memory is yours
/// again, and any call with this session pointer returns
/// `PICOMCP_STATUS_INVALID_SESSION` (as long as the memory is not reused).
///
/// # Safety
/// `session` must be NULL or a pointer `picomcp_session_init` returned whose memory is
/// still valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_deinit(session: *mut picomcp_session) -> picomcp_status {
    boundary(|| {
        // SAFETY: caller contract.
        let b = unsafe { block(session) }?;
        if b.owned {
            return Err(picomcp_status::WrongRelease);
        }
        // SAFETY: `b` is a live Block; its Session is dropped exactly once here, and the
        // magic is cleared so no later call uses it.
        unsafe { ptr::drop_in_place(&mut b.session) };
        b.magic = MAGIC_DEAD;
        Ok(())
    })
}

/// Creates a session in memory the library allocates (one `malloc`-like allocation of
/// the size `picomcp_session_storage_size` reports). Release it with
/// `picomcp_session_free`. `*out` is set to NULL on error.
///
/// # Safety
/// `config` and `out` as for `picomcp_session_storage_size`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_new(
    config: *const picomcp_config,
    now_ms: u64,
    out_session: *mut *mut picomcp_session,
) -> picomcp_status {
    boundary(|| {
        // SAFETY: caller contract.
        let o = unsafe { out(out_session) }?;
        *o = ptr::null_mut();
        // SAFETY: caller contract.
        let c = unsafe { input(config) }?;
        // SAFETY: caller contract for the configuration's strings.
        let conv = unsafe { convert::config_from_c(c) }?;
        let p = plan(&conv)?;
        let layout = std::alloc::Layout::from_size_align(p.total, p.align)
            .map_err(|_| picomcp_status::InvalidArgument)?;
        // Zeroed (calloc, fresh pages for large blocks): `place` need not write it again,
        // so the queues take resident memory only as they are used.
        // SAFETY: `layout` has a non-zero size (the header alone is larger than 0).
        let mem = unsafe { std::alloc::alloc_zeroed(layout) };
        if mem.is_null() {
            return Err(picomcp_status::OutOfMemory);
        }
        // SAFETY: `mem` was just allocated, zeroed, with `p.total` bytes and `p.align`
        // alignment.
        match unsafe { place(mem, &conv, &p, now_ms, true, true) } {
            Ok(s) => {
                *o = s;
                Ok(())
            }
            Err(e) => {
                // SAFETY: allocated above with this layout; nothing else refers to it.
                unsafe { std::alloc::dealloc(mem, layout) };
                Err(e)
            }
        }
    })
}

/// Frees a session created with `picomcp_session_new`. NULL is accepted (and does
/// nothing). Every view into the session dies with it.
///
/// # Safety
/// `session` must be NULL or a pointer `picomcp_session_new` returned that was not freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_free(session: *mut picomcp_session) -> picomcp_status {
    boundary(|| {
        if session.is_null() {
            return Ok(());
        }
        // SAFETY: caller contract.
        let b = unsafe { block(session) }?;
        if !b.owned {
            return Err(picomcp_status::WrongRelease);
        }
        let layout = std::alloc::Layout::from_size_align(b.total, b.align)
            .map_err(|_| picomcp_status::InvalidSession)?;
        b.magic = MAGIC_DEAD;
        // SAFETY: a live Block from `picomcp_session_new`: drop its Session once, then free
        // the allocation with the layout it was made with. `b` is not used afterwards.
        unsafe {
            ptr::drop_in_place(&mut b.session);
            std::alloc::dealloc(session.cast(), layout);
        }
        Ok(())
    })
}
