//! A driver for the ARM CMSDK APB UART (UART0 of the MPS2 AN385/AN386/AN500 images, at
//! `0x4000_4000`), over the `embedded-io` traits, plus the link-layer un-stuffing that
//! carries "end of input" across a serial line.
//!
//! # Polled, with an interrupt only to wake up
//!
//! The driver is **polled**: the main loop reads the data register itself whenever
//! `read_ready` says a byte is there, and `write` spins on the TX-full flag. The RX
//! interrupt is enabled only so that the idle loop can sleep in `WFI` and still wake at
//! the next byte; its handler just acknowledges it (see `main.rs`). Why polled:
//!
//! - The MCP session is sans-IO and answers synchronously, so there is exactly one
//!   consumer of the byte stream and no concurrency to arbitrate. A polled driver needs no
//!   ring buffer (no RAM), no `static` shared with an interrupt handler and no critical
//!   sections.
//! - Under QEMU a polled receiver cannot lose bytes: the emulated UART holds one byte
//!   and QEMU stops reading the host side (`can_receive` is false) until the guest has
//!   taken it, so the host pipe simply back-pressures.
//! - On real silicon the same loop loses bytes whenever the CPU is busy longer than one
//!   character time with the FIFO full (for example while it writes a long reply at the
//!   same baud rate). A product would move RX into the interrupt handler with a ring
//!   buffer of a few hundred bytes (or use DMA) and keep everything else as is: the
//!   session only ever sees "some bytes arrived", however they were collected. The
//!   `embedded-io` traits are the seam: swap this type, keep `main.rs`.
//!
//! # End of input on a serial line
//!
//! A UART has no end-of-file, and QEMU does not forward the host's EOF. `relay.py`
//! (started by `run-qemu.sh`) therefore byte-stuffs the client's stream: `0x10` (DLE)
//! becomes `0x10 0x10`, `0x04` (EOT) becomes `0x10 0x04`, and the client closing its
//! side is a lone `0x04`. [`Unstuff`] reverses that, so every byte value still reaches
//! the session unchanged (the bad-input tests send raw control bytes on purpose).
//! [`Link`] is the UART seen through [`Unstuff`]: the port the session's
//! [`picomcp::device::Device`] driver serves on, where end of input is `read` → 0.

use core::convert::Infallible;
use core::ptr::{read_volatile, write_volatile};

/// Base address of UART0 on mps2-an385/an386/an500.
pub const UART0: usize = 0x4000_4000;

const DATA: usize = 0x00;
const STATE: usize = 0x04; // bit 0 TX full, bit 1 RX full
const CTRL: usize = 0x08; // bit 0 TX enable, bit 1 RX enable, bit 3 RX interrupt enable
const INTCLEAR: usize = 0x0C; // write 1 to bit 1 to acknowledge the RX interrupt
const BAUDDIV: usize = 0x10;

const STATE_TXFULL: u32 = 1 << 0;
const STATE_RXFULL: u32 = 1 << 1;
const CTRL_TX_EN: u32 = 1 << 0;
const CTRL_RX_EN: u32 = 1 << 1;
const CTRL_RX_INTEN: u32 = 1 << 3;
const INT_RX: u32 = 1 << 1;

/// One CMSDK APB UART.
pub struct Uart {
    base: usize,
}

impl Uart {
    /// Takes over the UART at `base`: 115200 baud from the 25 MHz peripheral clock (QEMU
    /// ignores the rate but wants a divider of at least 16), TX and RX on, and the RX
    /// interrupt raised on every received byte (used only to wake `WFI`).
    ///
    /// # Safety
    /// `base` must be a CMSDK APB UART that nothing else drives.
    pub unsafe fn new(base: usize) -> Self {
        let u = Uart { base };
        u.set(BAUDDIV, 25_000_000 / 115_200);
        u.set(CTRL, CTRL_TX_EN | CTRL_RX_EN | CTRL_RX_INTEN);
        u
    }

    fn get(&self, off: usize) -> u32 {
        // SAFETY: an MMIO register of the UART we own (see `new`).
        unsafe { read_volatile((self.base + off) as *const u32) }
    }

    fn set(&self, off: usize, v: u32) {
        // SAFETY: as in `get`.
        unsafe { write_volatile((self.base + off) as *mut u32, v) }
    }

    fn rx_full(&self) -> bool {
        self.get(STATE) & STATE_RXFULL != 0
    }

    fn tx_full(&self) -> bool {
        self.get(STATE) & STATE_TXFULL != 0
    }

    /// Acknowledges the RX interrupt of the UART at `base` (called from the handler).
    ///
    /// # Safety
    /// `base` must be a CMSDK APB UART.
    pub unsafe fn ack_rx_interrupt(base: usize) {
        // SAFETY: the caller names a CMSDK UART; INTCLEAR is write-1-to-clear.
        unsafe { write_volatile((base + INTCLEAR) as *mut u32, INT_RX) }
    }
}

impl embedded_io::ErrorType for Uart {
    type Error = Infallible;
}

impl embedded_io::ReadReady for Uart {
    fn read_ready(&mut self) -> Result<bool, Infallible> {
        Ok(self.rx_full())
    }
}

impl embedded_io::Read for Uart {
    /// Blocks until one byte is there, then takes every byte already received.
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, Infallible> {
        if buf.is_empty() {
            return Ok(0);
        }
        while !self.rx_full() {}
        let mut n = 0;
        while n < buf.len() && self.rx_full() {
            buf[n] = self.get(DATA) as u8;
            n += 1;
        }
        Ok(n)
    }
}

impl embedded_io::WriteReady for Uart {
    fn write_ready(&mut self) -> Result<bool, Infallible> {
        Ok(!self.tx_full())
    }
}

impl embedded_io::Write for Uart {
    /// Blocks until the transmitter takes one byte, then hands it as many as it accepts.
    fn write(&mut self, buf: &[u8]) -> Result<usize, Infallible> {
        if buf.is_empty() {
            return Ok(0);
        }
        while self.tx_full() {}
        let mut n = 0;
        while n < buf.len() && !self.tx_full() {
            self.set(DATA, buf[n] as u32);
            n += 1;
        }
        Ok(n)
    }

    /// The CMSDK UART has no "transmitter empty" flag; once the holding register has
    /// room the last byte is on its way.
    fn flush(&mut self) -> Result<(), Infallible> {
        while self.tx_full() {}
        Ok(())
    }
}

const DLE: u8 = 0x10;
const EOT: u8 = 0x04;

/// Reverses the relay's byte stuffing (see the module docs).
#[derive(Default)]
pub struct Unstuff {
    escaped: bool,
}

impl Unstuff {
    /// Decodes `buf` in place. Returns the number of data bytes now at the front of
    /// `buf` and whether end of input was seen (bytes after it are dropped).
    pub fn decode(&mut self, buf: &mut [u8]) -> (usize, bool) {
        let mut out = 0;
        for i in 0..buf.len() {
            let b = buf[i];
            if self.escaped {
                self.escaped = false;
            } else if b == DLE {
                self.escaped = true;
                continue;
            } else if b == EOT {
                return (out, true);
            }
            buf[out] = b;
            out += 1;
        }
        (out, false)
    }
}

/// The UART with the relay's framing undone: a serial port whose `read` returns 0 at end
/// of input, as `embedded_io` defines it (what [`picomcp::device::Device`] expects).
pub struct Link {
    pub uart: Uart,
    unstuff: Unstuff,
    /// End of input was seen: every later `read` returns 0.
    eof: bool,
}

impl Link {
    pub fn new(uart: Uart) -> Self {
        Link {
            uart,
            unstuff: Unstuff::default(),
            eof: false,
        }
    }
}

impl embedded_io::ErrorType for Link {
    type Error = Infallible;
}

impl embedded_io::ReadReady for Link {
    fn read_ready(&mut self) -> Result<bool, Infallible> {
        Ok(self.eof || self.uart.rx_full())
    }
}

impl embedded_io::Read for Link {
    /// Blocks until at least one data byte (or end of input) is there. A chunk that was
    /// only stuffing (a lone DLE) is not end of input: read on.
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, Infallible> {
        while !self.eof && !buf.is_empty() {
            let n = embedded_io::Read::read(&mut self.uart, buf)?;
            let (len, eof) = self.unstuff.decode(&mut buf[..n]);
            self.eof = eof;
            if len > 0 {
                return Ok(len);
            }
        }
        Ok(0)
    }
}

impl embedded_io::Write for Link {
    fn write(&mut self, buf: &[u8]) -> Result<usize, Infallible> {
        embedded_io::Write::write(&mut self.uart, buf)
    }

    fn flush(&mut self) -> Result<(), Infallible> {
        embedded_io::Write::flush(&mut self.uart)
    }
}
