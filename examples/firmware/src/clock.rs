//! A monotonic millisecond clock from SysTick, for the session's `now` arguments.

use core::sync::atomic::{AtomicU32, Ordering};

use cortex_m::peripheral::SYST;
use cortex_m::peripheral::syst::SystClkSource;

/// The core clock of the MPS2 images (and of QEMU's model of them).
pub const CORE_HZ: u32 = 25_000_000;

static TICKS: AtomicU32 = AtomicU32::new(0);

/// Called from the SysTick exception, once per millisecond.
pub fn tick() {
    TICKS.fetch_add(1, Ordering::Relaxed);
}

/// Core clock cycles since [`Clock::start`] (SysTick's tick count and its current value),
/// for `--features cycles`. Under QEMU with `-icount shift=S` every instruction takes
/// 2^S ns of virtual time, so this counts instructions × 25 MHz × 2^S ns, exactly.
#[cfg(feature = "cycles")]
pub fn cycles() -> u64 {
    // SAFETY: a read of SysTick's current-value register, which has no side effects.
    let syst = unsafe { &*SYST::PTR };
    loop {
        let t = TICKS.load(Ordering::Relaxed);
        let cvr = syst.cvr.read();
        if TICKS.load(Ordering::Relaxed) == t {
            return u64::from(t) * u64::from(CORE_HZ / 1000) + u64::from(CORE_HZ / 1000 - 1 - cvr);
        }
    }
}

/// Milliseconds since [`Clock::start`], widened to 64 bits (the `u32` tick counter wraps
/// after 49 days; `now` must be called at least that often, which the main loop does).
pub struct Clock {
    last: u32,
    high: u64,
}

impl Clock {
    /// Starts SysTick: one interrupt per millisecond from the core clock.
    pub fn start(mut syst: SYST) -> Self {
        syst.set_clock_source(SystClkSource::Core);
        syst.set_reload(CORE_HZ / 1000 - 1);
        syst.clear_current();
        syst.enable_interrupt();
        syst.enable_counter();
        // `syst` is dropped here; the timer keeps running for the life of the program.
        Clock { last: 0, high: 0 }
    }

    /// Milliseconds since start.
    pub fn now(&mut self) -> u64 {
        let t = TICKS.load(Ordering::Relaxed);
        if t < self.last {
            self.high += 1 << 32;
        }
        self.last = t;
        self.high | t as u64
    }
}
