//! `picomcp-fw`: the picomcp demo server as Cortex-M4F firmware.
//!
//! It runs on QEMU's `mps2-an386` board and speaks MCP (newline-delimited JSON-RPC) on
//! UART0, which `run-qemu.sh` wires to the host's stdin/stdout, so the whole thing is
//! an ordinary stdio MCP server any client can spawn. There is no heap and no global
//! allocator: every byte the session uses is in the statics below, and the budget
//! (static RAM + stack ≤ 12 KiB, flash: see README.md) is measured by `check-budget.sh`.
//!
//! - `uart.rs`: the UART over `embedded-io` (polled; why, and end-of-input framing).
//! - `clock.rs`: a SysTick millisecond clock, the session's `now`.
//! - `catalog.rs`: the tools, resource and prompt as tables (checked by `build.rs`).
//! - `app.rs`: the answers to the calls.
//! - `stack.rs`: stack painting, for the measured high-water mark.
//! - `diag.rs`: diagnostics and the command line, over semihosting (host stderr).
//! - `mem.rs`: small `memcpy`/`memmove`/`memset` (flash).
//!
//! The loop is the core's serial driver, `picomcp::device::Device`, on the UART seen
//! through the relay's framing (`uart::Link`): it reads what the UART has, feeds it to
//! the session, writes all pending output and hands every event to `answer_events`.
//! When there is nothing to do, the firmware sleeps in `WFI` until the next byte or
//! tick. At end of input: the session finishes, the UART is flushed, the stack
//! high-water mark is reported (at `--log-level info`), and the emulator exits through
//! semihosting with status 0.
#![no_std]
#![no_main]

mod app;
mod catalog;
mod clock;
mod diag;
mod mem;
mod stack;
mod uart;

use core::ptr::addr_of_mut;

use cortex_m::peripheral::NVIC;
use cortex_m_rt::{ExceptionFrame, entry, exception};
use cortex_m_semihosting::debug;
use embedded_io::{ReadReady as _, Write as _};
use picomcp::Limits;
use picomcp::device::{Device, Status};
use picomcp::error::ErrorCode;
use picomcp::server::{ResultError, Server};
use picomcp::session::{
    Config, ConfigError, Event, EventSlot, InboundSlot, OutboundSlot, RespondError, Session, Slice,
    Storage,
};

use catalog::CAPABILITIES_LEN;
use clock::Clock;
use diag::{Arg, diag};
use uart::{Link, UART0, Uart};

const NAME: &str = "picomcp-demo-fw";
const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Longest accepted line (the receive buffer). `--max-line N` may lower it at run time.
/// Three buffers scale with it; 2048 keeps them within the 12 KiB RAM budget.
const MAX_LINE: usize = 2048;
/// Smallest `--max-line` we accept (an `initialize` request must fit).
const MIN_LINE: usize = 512;
/// Transmit queue: the core's reserve for an automatic reply to a `MAX_LINE` line
/// (`max_line + 320`); every answer is drained before the next line is read, so it
/// never holds more than the replies to one line.
const TX_LEN: usize = MAX_LINE + 320;
/// Event queue text: one line (`Session::new` checks it); the events themselves sit in
/// `EVENT_SLOTS` (one line queues at most four).
const EV_LEN: usize = MAX_LINE;
/// Inbound request table. The handler answers every request before the driver feeds
/// more (and batches are off), so at most one is ever open; the next waits in the UART.
const INBOUND: usize = 1;
/// Outbound request table: this server never sends requests.
const OUTBOUND: usize = 0;
/// Copy of name, version and capabilities (`Config::info_len`; no instructions, no
/// subscription arena).
const INFO_LEN: usize = 64 + 6 * (NAME.len() + VERSION.len()) + CAPABILITIES_LEN + BATCH_BYTES;
/// Room for the staged responses of one 2025-03-26 JSON-RPC batch (0 would answer
/// every batch with -32600).
const BATCH_BYTES: usize = 0;

/// NVIC line of UART0's receive interrupt on the MPS2 AN385/AN386 images.
const UART0_RX_IRQ: u16 = 0;

// All session memory, in .bss (zero-initialised at boot, no flash image).
static mut RX: [u8; MAX_LINE] = [0; MAX_LINE];
static mut TX: [u8; TX_LEN] = [0; TX_LEN];
static mut EVENTS: [u8; EV_LEN] = [0; EV_LEN];
static mut EVENT_SLOTS: [EventSlot; 4] = [EventSlot::EMPTY; 4];
static mut INFO: [u8; INFO_LEN] = [0; INFO_LEN];
static mut IN_SLOTS: [InboundSlot; INBOUND] = [InboundSlot::EMPTY; INBOUND];
static mut OUT_SLOTS: [OutboundSlot; OUTBOUND] = [];

#[derive(Clone, Copy)]
struct Irq(u16);
// SAFETY: a valid interrupt number of this device.
unsafe impl cortex_m::interrupt::InterruptNumber for Irq {
    fn number(self) -> u16 {
        self.0
    }
}

#[entry]
fn main() -> ! {
    stack::paint();
    let opts = diag::options();
    diag::set_level(opts.level);
    if opts.test_panic {
        panic!("--test-panic: the panic handler reports here and exits with status 1");
    }
    let Some(cp) = cortex_m::Peripherals::take() else {
        fail(&[Arg::S("core peripherals already taken")]);
    };
    let mut clock = Clock::start(cp.SYST);
    // SAFETY: UART0 is ours alone.
    let uart = unsafe { Uart::new(UART0) };
    // SAFETY: its handler (`uart0_rx`) only acknowledges the UART interrupt.
    unsafe { NVIC::unmask(Irq(UART0_RX_IRQ)) };

    // The tables are constants that build.rs checked (`catalog.rs`).
    let server = app::SERVER;
    let session = start(&server, opts.max_line, clock.now());
    diag!(
        Info,
        NAME,
        " ",
        VERSION,
        ": MCP on UART0, max line ",
        session.limits().max_line,
        " bytes"
    );

    // The session on the UART (through the relay's framing): `picomcp::device` runs the
    // loop; this one only decides how to wait.
    let mut device = Device::new(session, Link::new(uart));
    let mut on_event = |s: &mut Session<'static>| answer_events(&server, s);
    // `--features cycles`: the clock cycles spent in steps that did work (not waiting).
    #[cfg(feature = "cycles")]
    let (mut busy_cycles, mut busy_steps) = (0u64, 0u64);
    loop {
        #[cfg(feature = "cycles")]
        let started = clock::cycles();
        let step = device.poll(clock.now(), &mut on_event);
        #[cfg(feature = "cycles")]
        if matches!(step, Ok(Status::Busy)) {
            busy_cycles += clock::cycles() - started;
            busy_steps += 1;
        }
        match step {
            Ok(Status::Busy) => {}
            Ok(Status::Idle(_)) => {
                // Sleep until the next byte (UART RX interrupt) or tick (SysTick, which
                // also serves any deadline). Interrupts are masked around the check, so a
                // byte that lands between the check and the WFI still wakes it (a pending
                // interrupt ends WFI even while masked) and is not left waiting for the
                // next tick.
                cortex_m::interrupt::disable();
                if !device.port().read_ready().unwrap_or(true) {
                    cortex_m::asm::wfi();
                }
                // SAFETY: re-enables what was disabled above; no critical section is open.
                unsafe { cortex_m::interrupt::enable() };
            }
            // End of input (or a port failure, which this UART does not have).
            Ok(Status::Closed) | Err(_) => break,
        }
    }

    let _ = device.port().flush();
    #[cfg(feature = "cycles")]
    diag!(
        Error,
        "busy cycles ",
        busy_cycles,
        " in ",
        busy_steps,
        " steps"
    );
    let (used, area) = stack::high_water();
    diag!(Info, "end of input; exiting");
    diag!(
        Info,
        "stack high-water ",
        used,
        " bytes (of ",
        area,
        " bytes between the statics and the top of RAM)"
    );
    debug::exit(debug::EXIT_SUCCESS);
    loop {
        cortex_m::asm::wfi();
    }
}

/// Builds the session over the static buffers. Not inlined, so the configuration and
/// storage descriptors live in a frame that is gone before the main loop runs.
#[inline(never)]
fn start(server: &Server<'_>, max_line: Option<usize>, now: u64) -> Session<'static> {
    let max_line = match max_line {
        Some(n) if (MIN_LINE..=MAX_LINE).contains(&n) => n,
        Some(n) => {
            let m = n.clamp(MIN_LINE, MAX_LINE);
            diag!(
                Warn,
                "--max-line ",
                n,
                " is outside ",
                MIN_LINE,
                "..=",
                MAX_LINE,
                "; using ",
                m
            );
            m
        }
        None => MAX_LINE,
    };
    // What the layer's tables and options imply (`catalog::OPTIONS`).
    let mut caps = [0u8; CAPABILITIES_LEN];
    let Ok(caps) = server.capabilities(&mut caps) else {
        fail(&[Arg::S("capabilities longer than catalog::CAPABILITIES_LEN")]);
    };
    let mut config = Config::server(NAME, VERSION, caps);
    config.limits = Limits {
        max_line,
        ..Limits::DEFAULT
    };
    config.request_timeout_ms = None; // we send no requests
    config.arena_bytes = 0; // no resource subscriptions
    config.batch_bytes = BATCH_BYTES;
    // SAFETY: `main` runs once and never returns, so these are the only references.
    let storage = unsafe {
        Storage {
            rx: Slice::Borrowed(&mut (&mut *addr_of_mut!(RX))[..max_line]),
            tx: Slice::Borrowed(&mut *addr_of_mut!(TX)),
            events: Slice::Borrowed(&mut *addr_of_mut!(EVENTS)),
            event_slots: Slice::Borrowed(&mut *addr_of_mut!(EVENT_SLOTS)),
            inbound: Slice::Borrowed(&mut *addr_of_mut!(IN_SLOTS)),
            outbound: Slice::Borrowed(&mut *addr_of_mut!(OUT_SLOTS)),
            info: Slice::Borrowed(&mut *addr_of_mut!(INFO)),
            // `--features core-defaults` (the client role's tool pins; none here).
            #[cfg(feature = "core-defaults")]
            pins: Slice::Borrowed(&mut []),
        }
    };
    match Session::new(&config, storage, now) {
        Ok(s) => s,
        Err(ConfigError::BufferTooSmall { which, required }) => fail(&[
            Arg::S("session buffer too small: "),
            Arg::S(which),
            Arg::S(" needs "),
            Arg::from(required),
        ]),
        Err(_) => fail(&[Arg::S("cannot create the session: bad configuration")]),
    }
}

/// The event handler: answers every request (the driver calls it whenever events are
/// queued, then writes what it queued). The event and the commands that answer it are
/// disjoint borrows of the session (`poll_event_split`), so nothing is copied out; the
/// server layer (`app::answer`) answers or checks the catalog's requests.
fn answer_events(server: &Server<'_>, s: &mut Session<'_>) {
    while let Some((event, mut commands)) = s.poll_event_split() {
        // Only a request's answer can fail.
        let request = match &event {
            Event::Request { id, method, .. } => {
                diag!(Debug, "request ", method.as_str());
                Some((*id, *method))
            }
            _ => None,
        };
        let event = match app::answer(server, event, &mut commands) {
            Ok(None) => continue,
            Ok(Some(e)) => e,
            Err(e) => {
                if let Some((id, method)) = request {
                    let why = match e {
                        ResultError::Respond(RespondError::Full(_)) => ": transmit queue full",
                        _ => "",
                    };
                    diag!(Warn, "cannot answer ", method.as_str(), why);
                    let _ = commands.respond_error(
                        id,
                        ErrorCode::INTERNAL_ERROR,
                        "Internal error: the result does not fit",
                        None,
                    );
                }
                continue;
            }
        };
        match event {
            // The core answers the protocol's own requests and the layer the catalog's:
            // nothing else is ours.
            Event::Request { id, .. } => {
                let _ = commands.respond_error(
                    id,
                    ErrorCode::METHOD_NOT_FOUND,
                    "Method not found",
                    None,
                );
            }
            Event::Negotiated { version, .. } => {
                diag!(Info, "negotiated protocol ", version.as_str());
            }
            // (No `{:?}` here: Debug formatting of the core's enums costs kilobytes of flash.)
            Event::PeerViolation(_) => {
                diag!(
                    Warn,
                    "peer violation (any error reply it needs is already queued)"
                );
            }
            Event::Closed(_) => {
                diag!(Info, "session closed");
            }
            _ => {}
        }
    }
}

/// Reports a fatal condition on the host's stderr and exits with status 1.
fn fail(parts: &[Arg<'_>]) -> ! {
    cortex_m::interrupt::disable();
    diag::emit(diag::Level::Error, parts);
    debug::exit(debug::EXIT_FAILURE);
    loop {
        cortex_m::asm::wfi();
    }
}

/// A panic is reported on the host's stderr through semihosting (the UART, which carries
/// the protocol, is not touched), then the emulator exits with status 1.
///
/// By default the report is just "panic": reading anything from `PanicInfo` keeps every
/// panic site's message and location in the image, with the formatting machinery (about
/// 11 KiB of flash, a sixth of the budget). Build with `--features panic-location` to get
/// `file:line`.
#[panic_handler]
fn panic(info: &core::panic::PanicInfo<'_>) -> ! {
    #[cfg(feature = "panic-location")]
    if let Some(l) = info.location() {
        fail(&[
            Arg::S("panic at "),
            Arg::S(l.file()),
            Arg::S(":"),
            Arg::N(l.line() as u64),
        ]);
    }
    let _ = info;
    fail(&[Arg::S("panic")])
}

#[exception]
fn SysTick() {
    clock::tick();
}

/// The device part of the vector table (cortex-m-rt's `device` feature; there is no
/// PAC). Without it cortex-m-rt reserves all 240 ARMv7-M interrupt vectors (960 bytes of
/// flash); the MPS2 images use 32 lines here, of which only UART0 RX (line 0) is ever
/// enabled.
#[unsafe(link_section = ".vector_table.interrupts")]
#[unsafe(no_mangle)]
static __INTERRUPTS: [unsafe extern "C" fn(); 32] = {
    let mut v: [unsafe extern "C" fn(); 32] = [unexpected_interrupt; 32];
    v[UART0_RX_IRQ as usize] = uart0_rx;
    v
};

/// UART0 RX: it exists to end `WFI`, so acknowledging it is all there is to do (the main
/// loop reads the data).
unsafe extern "C" fn uart0_rx() {
    // SAFETY: UART0 is a CMSDK UART; INTCLEAR does not disturb the data path.
    unsafe { Uart::ack_rx_interrupt(UART0) };
}

unsafe extern "C" fn unexpected_interrupt() {
    fail(&[Arg::S("unexpected interrupt")]);
}

/// Exceptions without their own handler (none is expected).
#[exception]
unsafe fn DefaultHandler(irqn: i16) {
    fail(&[Arg::S("unexpected exception "), Arg::N(irqn as u64)]);
}

#[exception]
unsafe fn HardFault(frame: &ExceptionFrame) -> ! {
    fail(&[Arg::S("hard fault at pc "), Arg::N(frame.pc() as u64)])
}
