//! The panic boundary and argument checks every exported function goes through.

use std::panic::{AssertUnwindSafe, catch_unwind};

use crate::status::picomcp_status;
use crate::types::picomcp_str;

/// What the body of an exported function returns.
pub type FfiResult<T = ()> = Result<T, picomcp_status>;

/// Runs `f`, turning a panic into `PICOMCP_STATUS_PANIC` (it never unwinds into C).
pub fn boundary(f: impl FnOnce() -> FfiResult) -> picomcp_status {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => picomcp_status::Ok,
        Ok(Err(s)) => s,
        Err(_) => picomcp_status::Panic,
    }
}

/// A required output pointer as a mutable reference.
///
/// # Safety
/// `p` must be NULL or valid for writes of a `T` (and aligned).
pub unsafe fn out<'a, T>(p: *mut T) -> FfiResult<&'a mut T> {
    // SAFETY: the caller guarantees validity when non-NULL; `as_mut` checks NULL.
    unsafe { p.as_mut() }.ok_or(picomcp_status::NullArgument)
}

/// A required input pointer as a shared reference.
///
/// # Safety
/// `p` must be NULL or valid for reads of a `T` (and aligned).
pub unsafe fn input<'a, T>(p: *const T) -> FfiResult<&'a T> {
    // SAFETY: the caller guarantees validity when non-NULL; `as_ref` checks NULL.
    unsafe { p.as_ref() }.ok_or(picomcp_status::NullArgument)
}

/// Input bytes: `ptr` may be NULL only when `len` is 0.
///
/// # Safety
/// When `len > 0`, `ptr` must point to `len` readable bytes that stay unchanged for `'a`.
pub unsafe fn in_bytes<'a>(ptr: *const u8, len: usize) -> FfiResult<&'a [u8]> {
    if len == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(picomcp_status::NullArgument);
    }
    if len > isize::MAX as usize {
        return Err(picomcp_status::InvalidArgument);
    }
    // SAFETY: non-NULL, length checked against isize::MAX; validity is the caller's promise.
    Ok(unsafe { core::slice::from_raw_parts(ptr, len) })
}

/// An output buffer: `ptr` may be NULL only when `cap` is 0.
///
/// # Safety
/// When `cap > 0`, `ptr` must point to `cap` writable bytes, not aliased for `'a`.
pub unsafe fn out_bytes<'a>(ptr: *mut u8, cap: usize) -> FfiResult<&'a mut [u8]> {
    if cap == 0 {
        return Ok(&mut []);
    }
    if ptr.is_null() {
        return Err(picomcp_status::NullArgument);
    }
    if cap > isize::MAX as usize {
        return Err(picomcp_status::InvalidArgument);
    }
    // SAFETY: non-NULL, length checked; validity and exclusivity are the caller's promise.
    Ok(unsafe { core::slice::from_raw_parts_mut(ptr, cap) })
}

/// A required string argument (`{NULL, 0}` is the empty string).
///
/// # Safety
/// As [`in_bytes`] for `s.ptr` and `s.len`.
pub unsafe fn str_arg<'a>(s: picomcp_str) -> FfiResult<&'a str> {
    // SAFETY: forwarded caller contract.
    let b = unsafe { in_bytes(s.ptr.cast(), s.len) }?;
    // The vector check (AVX2 or SSE2, chosen at run time) as the core's framing uses.
    simdutf8::basic::from_utf8(b).map_err(|_| picomcp_status::InvalidUtf8)
}

/// An optional string argument: `ptr == NULL` means absent.
///
/// # Safety
/// As [`in_bytes`] for `s.ptr` and `s.len`.
pub unsafe fn opt_str_arg<'a>(s: picomcp_str) -> FfiResult<Option<&'a str>> {
    if s.ptr.is_null() {
        if s.len != 0 {
            return Err(picomcp_status::NullArgument);
        }
        return Ok(None);
    }
    // SAFETY: forwarded caller contract.
    unsafe { str_arg(s) }.map(Some)
}

/// A caller-owned block of the C ABI (a connection, an endpoint): `#[repr(C)]`, its
/// magic word the first field, so that a stale or foreign pointer is refused before any
/// reference to it is made.
///
/// # Safety
/// Implementors are `#[repr(C)]` with a `u64` magic word at offset 0, and `LIVE` is the
/// value their init function writes there (deinit writes another).
pub unsafe trait Block {
    /// The magic word of a live block.
    const LIVE: u64;
    /// The poison flag: set when a call panicked inside the block.
    fn poisoned(&mut self) -> &mut bool;
}

/// Runs `f` on a live, unpoisoned block, poisoning it if `f` panics; every exported
/// function of a block type goes through here (inside the panic boundary).
///
/// # Safety
/// `b` must be NULL or point to at least 8 readable bytes that are (or were) a block of
/// type `B`, not used from another thread meanwhile.
pub unsafe fn with_block<B: Block>(
    b: *mut B,
    f: impl FnOnce(&mut B) -> FfiResult,
) -> picomcp_status {
    boundary(|| {
        if b.is_null() {
            return Err(picomcp_status::NullArgument);
        }
        if !(b as usize).is_multiple_of(align_of::<B>()) {
            return Err(picomcp_status::InvalidSession);
        }
        // SAFETY: aligned and non-NULL; the caller guarantees the first 8 bytes are
        // readable, and `Block` puts the magic word there. A raw read: no reference to a
        // possibly dead block is made.
        if unsafe { b.cast::<u64>().read() } != B::LIVE {
            return Err(picomcp_status::InvalidSession);
        }
        // SAFETY: the magic says this is a live block written by its init function; the
        // caller does not share it between threads (documented).
        let blk = unsafe { &mut *b };
        if *blk.poisoned() {
            return Err(picomcp_status::Poisoned);
        }
        match catch_unwind(AssertUnwindSafe(|| f(blk))) {
            Ok(r) => r,
            Err(_) => {
                // SAFETY: the block was live before `f`; the borrow `f` had is over.
                unsafe { *(*b).poisoned() = true };
                Err(picomcp_status::Panic)
            }
        }
    })
}
