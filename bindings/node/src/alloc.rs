//! The addon's allocator (Linux): the system allocator, except that a block of
//! [`LARGE`] bytes or more is a mapping of its own, as glibc's `malloc` does by default.
//!
//! Why: glibc raises its mmap threshold (up to 32 MiB) each time the process frees a
//! mapped block, and Node frees some while it starts. After that, a session's buffers
//! (1 MiB for the longest line, twice 2 MiB for the transmit and event queues, by
//! default) come from the brk heap, where `calloc` clears memory that was in use before:
//! about 2 MiB of those buffers were resident before the first byte arrived. A fresh
//! mapping is zero pages the kernel backs only when they are written, so a session costs
//! what its traffic touches (docs/DESIGN.md, "Node binding: memory").
//!
//! Blocks below [`LARGE`] (every per-request allocation) stay with the system allocator.

use std::alloc::{GlobalAlloc, Layout, System};
use std::ptr;

/// Blocks this large or larger are mappings of their own (glibc's default threshold).
const LARGE: usize = 128 * 1024;
/// Mappings are page-aligned: alignments up to this are met.
const PAGE: usize = 4096;

/// The allocator of the addon's Rust code (Node's own allocations are not affected).
pub(crate) struct Alloc;

fn mapped(l: &Layout) -> bool {
    l.size() >= LARGE && l.align() <= PAGE
}

fn map(size: usize) -> *mut u8 {
    // SAFETY: an anonymous private mapping at an address of the kernel's choice touches
    // no existing memory; failure is MAP_FAILED, reported as null (allocation failure).
    let p = unsafe {
        libc::mmap(
            ptr::null_mut(),
            size,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if p == libc::MAP_FAILED {
        ptr::null_mut()
    } else {
        p.cast()
    }
}

// SAFETY: every block is either the system allocator's (below `LARGE`, by the layout the
// caller passes back, as `GlobalAlloc` requires) or a mapping of exactly `layout.size()`
// bytes made by `map`; a mapping is page-aligned and zero-filled, which meets every
// layout `mapped` accepts and `alloc_zeroed`'s contract.
unsafe impl GlobalAlloc for Alloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if mapped(&layout) {
            map(layout.size())
        } else {
            // SAFETY: forwarded with the caller's layout (non-zero size, as required).
            unsafe { System.alloc(layout) }
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if mapped(&layout) {
            map(layout.size())
        } else {
            // SAFETY: as in `alloc`.
            unsafe { System.alloc_zeroed(layout) }
        }
    }

    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        if mapped(&layout) {
            // SAFETY: `p` is a mapping of `layout.size()` bytes made by `map` (the same
            // layout decided that), not used after this.
            unsafe { libc::munmap(p.cast(), layout.size()) };
        } else {
            // SAFETY: `p` came from `System` with this layout.
            unsafe { System.dealloc(p, layout) }
        }
    }

    unsafe fn realloc(&self, p: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `GlobalAlloc::realloc` requires that `new_size`, rounded up to the
        // alignment, does not overflow isize: this layout is valid.
        let new = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        match (mapped(&layout), mapped(&new)) {
            // SAFETY: `p` came from `System` with `layout`.
            (false, false) => unsafe { System.realloc(p, layout, new_size) },
            (true, true) => {
                // SAFETY: `p` is a mapping of `layout.size()` bytes; the kernel moves or
                // grows it (contents kept, new pages zero) or fails leaving it intact.
                let q = unsafe {
                    libc::mremap(p.cast(), layout.size(), new_size, libc::MREMAP_MAYMOVE)
                };
                if q == libc::MAP_FAILED {
                    ptr::null_mut()
                } else {
                    q.cast()
                }
            }
            _ => {
                // Across the threshold: a new block, the contents copied, the old freed.
                // SAFETY: `new` is a valid non-zero layout; on failure `p` stays valid.
                let q = unsafe { self.alloc(new) };
                if !q.is_null() {
                    // SAFETY: both blocks hold at least the smaller size and are distinct;
                    // `p` was allocated here with `layout`.
                    unsafe {
                        ptr::copy_nonoverlapping(p, q, layout.size().min(new_size));
                        self.dealloc(p, layout);
                    }
                }
                q
            }
        }
    }
}
