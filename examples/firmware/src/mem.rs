//! Byte-at-a-time `memcpy`, `memmove` and `memset` (and the ARM EABI entry points that
//! forward to them), replacing compiler-builtins' word-at-a-time versions: those are
//! about 2.8 KiB of flash, these about 0.2 KiB. The session moves at most a few KiB at a
//! time (queue compaction, event copies), so the speed difference does not show.
//!
//! Volatile accesses keep LLVM from recognising the loops as `memcpy` and compiling
//! them into calls to themselves.

use core::ptr::{read_volatile, write_volatile};

/// Copies `n` bytes forwards or backwards, whichever is safe for overlapping ranges.
unsafe fn copy(dest: *mut u8, src: *const u8, n: usize) {
    // SAFETY (for every access below): the caller's contract, `dest` and `src` valid for
    // `n` bytes.
    unsafe {
        if (dest as usize) <= (src as usize) {
            for i in 0..n {
                write_volatile(dest.add(i), read_volatile(src.add(i)));
            }
        } else {
            for i in (0..n).rev() {
                write_volatile(dest.add(i), read_volatile(src.add(i)));
            }
        }
    }
}

unsafe fn fill(dest: *mut u8, c: u8, n: usize) {
    for i in 0..n {
        // SAFETY: `dest` is valid for `n` bytes (the caller's contract).
        unsafe { write_volatile(dest.add(i), c) };
    }
}

/// # Safety
/// C's `memcpy`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn memcpy(dest: *mut u8, src: *const u8, n: usize) -> *mut u8 {
    // SAFETY: as the caller promises.
    unsafe { copy(dest, src, n) };
    dest
}

/// # Safety
/// C's `memmove`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn memmove(dest: *mut u8, src: *const u8, n: usize) -> *mut u8 {
    // SAFETY: as the caller promises.
    unsafe { copy(dest, src, n) };
    dest
}

/// # Safety
/// C's `memset`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn memset(dest: *mut u8, c: i32, n: usize) -> *mut u8 {
    // SAFETY: as the caller promises.
    unsafe { fill(dest, c as u8, n) };
    dest
}

macro_rules! aeabi_copy {
    ($($name:ident),*) => {$(
        /// # Safety
        /// The ARM run-time ABI's copy functions: `memcpy`/`memmove` without a result.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $name(dest: *mut u8, src: *const u8, n: usize) {
            // SAFETY: as the caller promises.
            unsafe { copy(dest, src, n) };
        }
    )*};
}
aeabi_copy!(
    __aeabi_memcpy,
    __aeabi_memcpy4,
    __aeabi_memcpy8,
    __aeabi_memmove,
    __aeabi_memmove4,
    __aeabi_memmove8
);

macro_rules! aeabi_clear {
    ($($name:ident),*) => {$(
        /// # Safety
        /// The ARM run-time ABI's clear functions: `memset(dest, 0, n)`.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $name(dest: *mut u8, n: usize) {
            // SAFETY: as the caller promises.
            unsafe { fill(dest, 0, n) };
        }
    )*};
}
aeabi_clear!(__aeabi_memclr, __aeabi_memclr4, __aeabi_memclr8);

macro_rules! aeabi_set {
    ($($name:ident),*) => {$(
        /// # Safety
        /// The ARM run-time ABI's set functions (note the argument order: `n` before `c`).
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $name(dest: *mut u8, n: usize, c: i32) {
            // SAFETY: as the caller promises.
            unsafe { fill(dest, c as u8, n) };
        }
    )*};
}
aeabi_set!(__aeabi_memset, __aeabi_memset4, __aeabi_memset8);
