//! A session on a serial port: the run loop over [`embedded_io`]'s blocking traits, so
//! a board needs only a port, a clock and an event handler to serve (or speak) MCP.
//!
//! The [`Session`] itself is sans-IO: it takes bytes and the time and hands back bytes,
//! events and deadlines. [`Device`] owns the loop that every serial host writes around
//! it (read what the port holds, feed it, write the output, hand the events to the
//! application, honour deadlines, stop at end of input), over any port implementing
//! [`Read`], [`ReadReady`] and [`Write`]: a UART driver, a USB CDC class, an in-memory
//! pipe in a test.
//!
//! - **Input** is read only when [`ReadReady::read_ready`] says bytes are there, so a
//!   step never blocks on a silent peer and deadlines are not missed. `read` returning
//!   `Ok(0)` is end of input ([`Session::handle_eof`]).
//! - **Output** is written with blocking [`Write::write`] until the session has nothing
//!   pending, after every input and after the handler ran.
//! - **Events** go to the handler, which gets the whole `&mut Session` (an event borrows
//!   the session, so the handler takes an event, drops it, then answers; see the
//!   example). Call [`Session::poll_event`] until it returns `None`; events the handler
//!   leaves queued apply backpressure (the session takes no more input until they are
//!   gone).
//! - **Time** is the caller's: [`Device::poll`] takes `now` (milliseconds on a monotonic
//!   clock, as every session method), [`Device::run`] a function that reads the clock.
//!
//! Nothing here allocates; the driver adds [`CHUNK`] bytes to the session for input
//! that the session could not take yet.
//!
//! ```
//! use embedded_io::{ErrorType, Read, ReadReady, Write};
//! use picomcp::device::Device;
//! use picomcp::json::Json;
//! use picomcp::session::{Config, Event, Session, StaticStorage};
//!
//! /// A port that replays its input and keeps what is written (a UART in real life).
//! struct Port { input: &'static [u8], output: [u8; 512], written: usize }
//! impl ErrorType for Port { type Error = core::convert::Infallible; }
//! impl ReadReady for Port {
//!     fn read_ready(&mut self) -> Result<bool, Self::Error> { Ok(true) }
//! }
//! impl Read for Port {
//!     fn read(&mut self, buf: &mut [u8]) -> Result<usize, Self::Error> {
//!         let n = buf.len().min(self.input.len());
//!         buf[..n].copy_from_slice(&self.input[..n]);
//!         self.input = &self.input[n..];
//!         Ok(n) // 0: end of input
//!     }
//! }
//! impl Write for Port {
//!     fn write(&mut self, buf: &[u8]) -> Result<usize, Self::Error> {
//!         let n = buf.len().min(self.output.len() - self.written);
//!         self.output[self.written..self.written + n].copy_from_slice(&buf[..n]);
//!         self.written += n;
//!         Ok(n)
//!     }
//!     fn flush(&mut self) -> Result<(), Self::Error> { Ok(()) }
//! }
//!
//! let mut mem: StaticStorage<1024, 2048, 2048, 1, 0, 256> = StaticStorage::new();
//! let mut config = Config::server("board", "1.0", Json::new(r#"{"tools":{}}"#).unwrap());
//! config.limits.max_line = 1024;
//! (config.arena_bytes, config.batch_bytes) = (0, 0); // no subscriptions, no batches
//! let session = Session::new(&config, mem.as_storage(), 0).unwrap();
//! let input = concat!(
//!     r#"{"jsonrpc":"2.0","id":1,"method":"server/discover"}"#, "\n",
//!     r#"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"#,
//!     r#""io.modelcontextprotocol/protocolVersion":"2026-07-28","#,
//!     r#""io.modelcontextprotocol/clientCapabilities":{}}}}"#, "\n",
//! );
//! let mut device = Device::new(session, Port { input: input.as_bytes(), output: [0; 512], written: 0 });
//! let millis = || 0; // a monotonic millisecond clock
//! device
//!     .run(millis, |s: &mut Session<'_>| {
//!         while let Some(event) = s.poll_event() {
//!             // Take what the answer needs (the event borrows the session), then answer.
//!             let Event::Request { id, .. } = event else { continue };
//!             s.respond(id, Json::new(r#"{"tools":[]}"#).unwrap()).unwrap();
//!         }
//!     }, |_deadline| { /* nothing to read: sleep until a byte or the deadline */ })
//!     .unwrap();
//! let (_, port) = device.into_parts();
//! let out = core::str::from_utf8(&port.output[..port.written]).unwrap();
//! assert!(out.lines().nth(1).unwrap().contains(r#""result":{"tools":[]"#));
//! ```

use embedded_io::{Read, ReadReady, Write};

use crate::session::{Phase, Session};

/// Bytes the driver reads from the port at a time (and holds when the session cannot
/// take them yet).
pub const CHUNK: usize = 32;

/// A failure of the port; the session is unchanged by it. `E` is the port's error type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeviceError<E> {
    /// `read` or `read_ready` failed.
    Read(E),
    /// `write` or `flush` failed.
    Write(E),
    /// `write` accepted no bytes of a non-empty buffer (which `embedded_io` forbids).
    WriteZero,
}

/// What a [`Device::poll`] step found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// It did work (read, wrote or fired a deadline): poll again at once.
    Busy,
    /// Nothing to read and nothing due: wait for the next byte or for this deadline (the
    /// next [`Session::poll_timeout`]; `None`: only input can wake the session).
    Idle(Option<u64>),
    /// The session is closed and everything it had to say is written.
    Closed,
}

/// A [`Session`] bound to a serial port `P` (see the [module docs](self)).
pub struct Device<'s, P> {
    session: Session<'s>,
    port: P,
    /// Input read but not yet taken by the session: `held[start..end]`.
    held: [u8; CHUNK],
    start: usize,
    end: usize,
}

impl<'s, P: Read + ReadReady + Write> Device<'s, P> {
    /// Binds `session` to `port`. Nothing is read or written yet (a client session's
    /// queued `initialize` goes out on the first step).
    pub fn new(session: Session<'s>, port: P) -> Self {
        Device {
            session,
            port,
            held: [0; CHUNK],
            start: 0,
            end: 0,
        }
    }

    /// The session, for commands outside the handler (notifications, requests, `close`).
    /// Output they queue is written on the next step.
    pub fn session(&mut self) -> &mut Session<'s> {
        &mut self.session
    }

    /// The port.
    pub fn port(&mut self) -> &mut P {
        &mut self.port
    }

    /// The session and the port back.
    pub fn into_parts(self) -> (Session<'s>, P) {
        (self.session, self.port)
    }

    /// One step that never waits for input: writes pending output, fires a deadline that
    /// is due at `now`, feeds the bytes the port already holds (end of input closes the
    /// session), and hands events to `on_event` (see the [module docs](self)).
    ///
    /// # Errors
    /// [`DeviceError`] when the port fails; call again to retry (bytes read before the
    /// failure are kept).
    pub fn poll(
        &mut self,
        now: u64,
        on_event: &mut impl FnMut(&mut Session<'s>),
    ) -> Result<Status, DeviceError<P::Error>> {
        let mut busy = self.service(on_event)?;
        if self.session.phase() == Phase::Closed {
            return Ok(Status::Closed);
        }
        if self.session.poll_timeout().is_some_and(|t| t <= now) {
            self.session.handle_timeout(now);
            self.service(on_event)?;
            busy = true;
        }
        if self.start == self.end && self.port.read_ready().map_err(DeviceError::Read)? {
            let n = self.port.read(&mut self.held).map_err(DeviceError::Read)?;
            if n == 0 {
                self.session.handle_eof(now);
                self.service(on_event)?;
                return Ok(Status::Busy);
            }
            (self.start, self.end) = (0, n);
        }
        while self.start < self.end {
            let taken = self
                .session
                .handle_bytes(now, &self.held[self.start..self.end]);
            self.start += taken;
            busy = true;
            let worked = self.service(on_event)?;
            if taken == 0 && (!worked || self.session.has_events()) {
                // The session takes nothing more: it is closed (the rest is dropped), or
                // the handler left events queued (the rest waits for the next step).
                if self.session.phase() == Phase::Closed {
                    self.start = self.end;
                }
                break;
            }
        }
        if busy {
            return Ok(Status::Busy);
        }
        Ok(Status::Idle(self.session.poll_timeout()))
    }

    /// Serves until the session is closed (end of input, or [`Session::close`]): steps
    /// with [`poll`](Self::poll) at `now()`, and calls `idle(deadline)` when there is
    /// nothing to do (sleep there until a byte arrives or the deadline passes, e.g. `WFI`
    /// with the UART's receive interrupt and a tick enabled; returning at once is a busy
    /// loop, which is correct too). The port is flushed at the end.
    ///
    /// # Errors
    /// The first [`DeviceError`] of the port.
    pub fn run(
        &mut self,
        mut now: impl FnMut() -> u64,
        mut on_event: impl FnMut(&mut Session<'s>),
        mut idle: impl FnMut(Option<u64>),
    ) -> Result<(), DeviceError<P::Error>> {
        loop {
            match self.poll(now(), &mut on_event)? {
                Status::Busy => {}
                Status::Idle(deadline) => idle(deadline),
                Status::Closed => return self.port.flush().map_err(DeviceError::Write),
            }
        }
    }

    /// Writes everything pending and hands queued events to `on_event`, until neither is
    /// left (or the handler leaves events queued). True when anything happened.
    ///
    /// The check for nothing to do comes first, outside the loop that the handler is
    /// inlined into: most steps of a device (one received byte each) have nothing to
    /// serve, and should not pay for that loop's frame.
    #[inline]
    fn service(
        &mut self,
        on_event: &mut impl FnMut(&mut Session<'s>),
    ) -> Result<bool, DeviceError<P::Error>> {
        if self.session.pending_transmit().is_empty() && !self.session.has_events() {
            return Ok(false);
        }
        self.serve(on_event)
    }

    /// [`service`](Self::service) once there is something to do.
    #[inline(never)]
    fn serve(
        &mut self,
        on_event: &mut impl FnMut(&mut Session<'s>),
    ) -> Result<bool, DeviceError<P::Error>> {
        let mut worked = false;
        loop {
            let pending = self.session.pending_transmit();
            if !pending.is_empty() {
                let n = self.port.write(pending).map_err(DeviceError::Write)?;
                if n == 0 {
                    return Err(DeviceError::WriteZero);
                }
                self.session.advance_transmit(n);
                worked = true;
                continue;
            }
            if !self.session.has_events() {
                return Ok(worked);
            }
            on_event(&mut self.session);
            worked = true;
            if self.session.pending_transmit().is_empty() && self.session.has_events() {
                return Ok(true); // the handler keeps some for later
            }
        }
    }
}
