//! Stack high-water measurement by painting: at boot every word between the end of the
//! static data and (just below) the current stack pointer gets a known pattern; at exit
//! the lowest word that no longer holds it marks the deepest the stack ever reached.

use core::ptr::{addr_of, read_volatile, write_volatile};

const PAINT: u32 = 0xC0DE_5AFE;
/// Left unpainted below the stack pointer of the caller of `paint` (its own frame).
const MARGIN: usize = 64;

unsafe extern "C" {
    /// End of .data/.bss/.uninit (cortex-m-rt's link.x): the bottom of the stack area.
    static _stack_end: u32;
    /// Initial stack pointer (top of RAM).
    static _stack_start: u32;
}

fn bounds() -> (usize, usize) {
    // Only the addresses of the linker symbols are taken, never their contents.
    (
        addr_of!(_stack_end) as usize,
        addr_of!(_stack_start) as usize,
    )
}

/// Paints the free stack area. Call first thing in `main`.
#[inline(never)]
pub fn paint() {
    let (bottom, _) = bounds();
    let sp = cortex_m::register::msp::read() as usize;
    let mut p = (bottom + 3) & !3;
    while p + MARGIN < sp {
        // SAFETY: [bottom, sp - MARGIN) is RAM that no live object occupies: statics end
        // at `bottom` and the stack grows down from above `sp`.
        unsafe { write_volatile(p as *mut u32, PAINT) };
        p += 4;
    }
}

/// `(used, area)`: the deepest stack use seen since `paint`, and the size of the whole
/// stack area (top of RAM minus the end of the statics), in bytes.
pub fn high_water() -> (usize, usize) {
    let (bottom, top) = bounds();
    let mut p = (bottom + 3) & !3;
    // SAFETY: reads of RAM words in the stack area, below anything live.
    while p < top && unsafe { read_volatile(p as *const u32) } == PAINT {
        p += 4;
    }
    (top - p, top - bottom)
}
