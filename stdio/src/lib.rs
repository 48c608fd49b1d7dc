//! `picomcp-stdio`: a blocking driver for std programs. It runs a [`Session`] of the
//! sans-IO core (`picomcp`) over any byte stream (stdin and stdout, a child process's
//! pipes), with timeouts. It only calls the session's public API; it never parses or
//! tracks protocol state itself. [`http`] serves the same sessions over Streamable HTTP
//! (the core's codec and endpoint, one thread's readiness loop). It lives beside the core, not in it, so that the core
//! stays free of threads and I/O: a device build never compiles it, and the core's `std`
//! feature holds only std conversions.
//!
//! Buffers are allocated once, so steady-state operation allocates nothing.
//!
//! Output is written with blocking `write_all`: a peer that stops reading its input
//! stalls the driver once the pipe is full, and no timeout fires meanwhile (as in any
//! blocking stdio program). A program that must survive such a peer (a client of an
//! unknown server, a gateway) wraps its writer in a [`BackgroundWriter`], which writes
//! from a helper thread and fails `flush` with `TimedOut` after a stall.
//!
//! ```no_run
//! use picomcp::json::Json;
//! use picomcp::session::{Config, Event, Session, Storage};
//! use picomcp_stdio::{Driver, Step};
//!
//! let caps = Json::new(r#"{"tools":{}}"#).unwrap();
//! let config = Config::server("hello", "0.1.0", caps);
//! let storage = Storage::owned(config.limits.max_line, 16, 4, config.info_len());
//! let mut session = Session::new(&config, storage, 0).unwrap();
//! let mut driver = Driver::stdio(config.limits.max_line);
//! loop {
//!     match driver.next(&mut session, None).unwrap() {
//!         Step::Event { event: Event::Request { id, .. }, .. } => {
//!             session.respond(id, Json::new(r#"{"tools":[]}"#).unwrap()).unwrap();
//!         }
//!         Step::Event { .. } | Step::Wake { .. } => {}
//!         Step::Closed => break,
//!     }
//! }
//! driver.flush(&mut session).unwrap();
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs, unreachable_pub, elided_lifetimes_in_paths)]

use std::io::{self, Read, Write};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, sync_channel};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use picomcp::session::{Event, Phase, Session};

mod background_writer;
pub mod http;
pub use background_writer::BackgroundWriter;

/// Bytes read from the input at a time. Not a limit (longer lines arrive over several
/// reads): it bounds the memory one read brings in. Everything a read holds is parsed
/// into the session's event queue before it is answered, and the answers wait in its
/// transmit queue until the next read, so the pages of the read buffer, the event
/// queue and the transmit queue that a busy pipelined session touches (and keeps
/// resident) each grow with this number. 16 KiB keeps a pipelined 1 KiB echo load near
/// 50 KiB of buffers where 64 KiB (a full pipe) touched ~200 KiB; it costs one read and
/// one write per ~15 such requests instead of per ~60 (issue 17).
const CHUNK: usize = 16 * 1024;

/// What [`Driver::next`] produced.
#[derive(Debug)]
pub enum Step<'a> {
    /// An event (its text copied into the driver's scratch buffer), and the time.
    Event {
        /// The event.
        event: Event<'a>,
        /// Milliseconds since the driver started.
        now: u64,
    },
    /// The wake-up time passed to [`Driver::next`] was reached, or input was handled
    /// that produced no event (a `ping` or a `resources/subscribe` the core answered
    /// itself) and the driver is about to wait for more: the session's state may have
    /// changed, so compute the wake-up time again before the next call.
    Wake {
        /// Milliseconds since the driver started.
        now: u64,
    },
    /// The session is closed and every event was delivered; output is flushed.
    Closed,
}

enum Chunk {
    Data(Vec<u8>, usize),
    Eof,
    Error(io::ErrorKind),
}

type SharedReader = Arc<Mutex<Box<dyn Read + Send>>>;
type Helper = (SyncSender<Vec<u8>>, Receiver<Chunk>);

/// Starts the thread that reads into lent buffers and gives them back. If it cannot be
/// started, its channels are closed at once, which the driver takes as end of input.
fn spawn_reader(shared: SharedReader) -> Helper {
    let (lend, lent) = sync_channel::<Vec<u8>>(1);
    let (give_back, returned) = sync_channel::<Chunk>(1);
    std::thread::Builder::new()
        .name("picomcp-reader".into())
        .spawn(move || {
            while let Ok(mut buf) = lent.recv() {
                let msg = match read_once(&shared, &mut buf) {
                    Chunk::Data(_, n) => Chunk::Data(buf, n),
                    other => other,
                };
                let stop = !matches!(msg, Chunk::Data(..));
                if give_back.send(msg).is_err() || stop {
                    return;
                }
            }
        })
        .ok();
    (lend, returned)
}

/// Runs a session over a reader and a writer. See the [module docs](self).
///
/// Reading happens on this thread when nothing is scheduled (the lowest latency: one
/// wake-up per message); when a deadline is pending, one read is handed to a helper
/// thread so that the wait can time out. The helper starts on the first such wait, so a
/// program that never schedules anything runs one thread (and maps no second stack).
/// Output is written when the driver is about to wait, so pipelined requests are
/// answered with one write.
pub struct Driver<W: Write> {
    writer: W,
    reader: SharedReader,
    /// The helper thread's channels (buffers lent to it, chunks it read), once started.
    helper: Option<Helper>,
    /// Our read buffer, unless it is lent to the helper thread.
    buf: Option<Vec<u8>>,
    /// Bytes of `buf` read and not yet fed: `(len, pos)`.
    pending: (usize, usize),
    scratch: Vec<u8>,
    start: Instant,
    eof: bool,
    /// Input was fed since `next` last returned: before waiting for more, return once so
    /// the host can recompute its wake-up time from the session's new state.
    fed: bool,
    /// The writer failed: output is dropped from then on and the session is closed.
    broken: bool,
}

impl Driver<io::Stdout> {
    /// A driver over this process's stdin and stdout. `max_line` sizes the event scratch
    /// buffer (use the session's `limits.max_line`).
    pub fn stdio(max_line: usize) -> Self {
        Driver::new(io::stdin(), io::stdout(), max_line)
    }
}

fn read_once(reader: &SharedReader, buf: &mut [u8]) -> Chunk {
    let mut r = match reader.lock() {
        Ok(r) => r,
        Err(p) => p.into_inner(),
    };
    loop {
        match r.read(buf) {
            Ok(0) => return Chunk::Eof,
            Ok(n) => return Chunk::Data(Vec::new(), n),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Chunk::Error(e.kind()),
        }
    }
}

impl<W: Write> Driver<W> {
    /// A driver reading `reader` and writing `writer`.
    pub fn new<R: Read + Send + 'static>(reader: R, writer: W, max_line: usize) -> Self {
        let reader: SharedReader = Arc::new(Mutex::new(Box::new(reader)));
        Driver {
            writer,
            reader,
            helper: None,
            buf: Some(std::vec![0u8; CHUNK]),
            pending: (0, 0),
            scratch: std::vec![0u8; max_line + 64],
            start: Instant::now(),
            eof: false,
            fed: false,
            broken: false,
        }
    }

    /// The helper thread's channels, starting it on first use.
    fn helper(&mut self) -> &Helper {
        let reader = &self.reader;
        self.helper
            .get_or_insert_with(|| spawn_reader(Arc::clone(reader)))
    }

    /// Milliseconds since the driver was created (the session's clock).
    pub fn now(&self) -> u64 {
        self.start.elapsed().as_millis() as u64
    }

    /// The writer (for example to reach a child's stdin).
    pub fn writer_mut(&mut self) -> &mut W {
        &mut self.writer
    }

    /// Writes all pending output of the session.
    ///
    /// # Errors
    /// The writer's I/O error. After a write error the session is closed, later output is
    /// discarded, and the remaining events are still delivered (then [`Step::Closed`]).
    pub fn flush(&mut self, session: &mut Session<'_>) -> io::Result<()> {
        let mut wrote = false;
        loop {
            let pending = session.pending_transmit();
            if pending.is_empty() {
                break;
            }
            let n = pending.len();
            if !self.broken
                && let Err(e) = self.writer.write_all(pending)
            {
                self.broken = true;
                session.advance_transmit(n);
                session.close();
                return Err(e);
            }
            session.advance_transmit(n);
            wrote = !self.broken;
        }
        if wrote && let Err(e) = self.writer.flush() {
            self.broken = true;
            session.close();
            return Err(e);
        }
        Ok(())
    }

    /// Drives the session until there is an event, `wake` (a time from [`now`](Self::now))
    /// passes, or the session is closed.
    ///
    /// # Errors
    /// I/O errors of the writer, and of the reader except end of stream (which closes
    /// the session normally).
    pub fn next(&mut self, session: &mut Session<'_>, wake: Option<u64>) -> io::Result<Step<'_>> {
        loop {
            if session.has_events() {
                self.fed = false;
                let now = self.now();
                return match session.poll_event_copied(&mut self.scratch) {
                    Ok(Some(event)) => Ok(Step::Event { event, now }),
                    Ok(None) => Ok(Step::Wake { now }),
                    Err(e) => Err(io::Error::other(e)),
                };
            }
            if session.phase() == Phase::Closed {
                self.flush(session)?;
                return Ok(Step::Closed);
            }
            let now = self.now();
            // Feed what is left of the last read.
            let (len, pos) = self.pending;
            if pos < len {
                let feed = |d: &Self, session: &mut Session<'_>| {
                    d.buf
                        .as_ref()
                        .map_or(0, |b| session.handle_bytes(now, &b[pos..len]))
                };
                let n = feed(self, session);
                self.pending.1 += n;
                self.fed |= n > 0;
                if n == 0 {
                    // A queue is full: write out, then offer the rest again. If that frees
                    // nothing, the session waits for the host (unanswered requests, an
                    // open batch): sleep until the host's next wake-up rather than spin.
                    self.flush(session)?;
                    let n = feed(self, session);
                    self.pending.1 += n;
                    if n == 0 && !session.has_events() {
                        let until = wake.or(session.poll_timeout()).unwrap_or(now + 1);
                        std::thread::sleep(core::time::Duration::from_millis(
                            until.saturating_sub(now).max(1),
                        ));
                        let now = self.now();
                        if wake.is_some_and(|w| w <= now) {
                            return Ok(Step::Wake { now });
                        }
                        if session.poll_timeout().is_some_and(|t| t <= now) {
                            session.handle_timeout(now);
                        }
                    }
                }
                continue;
            }
            if wake.is_some_and(|w| w <= now) {
                return Ok(Step::Wake { now });
            }
            if session.poll_timeout().is_some_and(|t| t <= now) {
                session.handle_timeout(now);
                continue;
            }
            if self.eof {
                session.handle_eof(now);
                continue;
            }
            if core::mem::take(&mut self.fed) {
                // The input just handled may have changed what the host waits for (a
                // subscription began): let it recompute `wake` before we block.
                return Ok(Step::Wake { now });
            }
            // About to wait: write out everything first.
            self.flush(session)?;
            let deadline = match (session.poll_timeout(), wake) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            let msg = match (self.buf.take(), deadline) {
                // Nothing scheduled: read here, blocking.
                (Some(mut buf), None) => {
                    let msg = match read_once(&self.reader, &mut buf) {
                        Chunk::Data(_, n) => Chunk::Data(Vec::new(), n),
                        other => other,
                    };
                    self.buf = Some(buf);
                    msg
                }
                // A deadline: lend the buffer to the helper thread and wait with a timeout.
                (maybe_buf, Some(d)) => {
                    if let Some(buf) = maybe_buf
                        && self.helper().0.send(buf).is_err()
                    {
                        self.eof = true;
                        continue;
                    }
                    match self
                        .helper()
                        .1
                        .recv_timeout(core::time::Duration::from_millis(d.saturating_sub(now)))
                    {
                        Ok(m) => m,
                        Err(RecvTimeoutError::Timeout) => continue,
                        Err(RecvTimeoutError::Disconnected) => Chunk::Eof,
                    }
                }
                // The helper thread still has the buffer: wait for it.
                (None, None) => self.helper().1.recv().unwrap_or(Chunk::Eof),
            };
            match msg {
                Chunk::Data(buf, n) => {
                    if !buf.is_empty() {
                        self.buf = Some(buf);
                    }
                    self.pending = (n, 0);
                }
                Chunk::Eof => self.eof = true,
                Chunk::Error(kind) => {
                    self.eof = true;
                    return Err(io::Error::from(kind));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use picomcp::json::Json;
    use picomcp::session::{Config, Storage};

    /// The helper thread is not started until a wait has a deadline; from then on reads
    /// go through it, and input that arrives after a timed-out wait is still delivered.
    #[test]
    fn the_reader_thread_starts_on_the_first_wait_with_a_deadline() {
        let (input, mut client) = io::pipe().unwrap();
        let caps = Json::new(r#"{"tools":{}}"#).unwrap();
        let config = Config::server("t", "0.1.0", caps);
        let storage = Storage::owned(config.limits.max_line, 4, 2, config.info_len());
        let mut session = Session::new(&config, storage, 0).unwrap();
        let mut driver = Driver::new(input, Vec::new(), config.limits.max_line);
        assert!(driver.helper.is_none(), "no thread before it is needed");

        let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#;
        client.write_all(format!("{init}\n").as_bytes()).unwrap();
        // Nothing more comes: a wait with a deadline ends in a wake-up, through the helper
        // (the first wake-up may be the one after input, before any wait).
        let mut wakes = 0;
        while driver.helper.is_none() && wakes < 3 {
            let now = driver.now();
            match driver.next(&mut session, Some(now + 20)).unwrap() {
                Step::Wake { .. } => wakes += 1,
                Step::Event { .. } => {}
                Step::Closed => panic!("closed before end of input"),
            }
        }
        assert!(
            driver.helper.is_some(),
            "the helper reads when a wait can time out"
        );

        // Input sent after the timed-out wait is read by the helper's pending read.
        let ping = r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#;
        client.write_all(format!("{ping}\n").as_bytes()).unwrap();
        drop(client);
        loop {
            let now = driver.now();
            if let Step::Closed = driver.next(&mut session, Some(now + 20)).unwrap() {
                break;
            }
        }
        let out = String::from_utf8(driver.writer_mut().clone()).unwrap();
        assert!(out.contains(r#""id":1"#), "initialize answered: {out}");
        assert!(
            out.contains(r#""id":2,"result":{}"#),
            "ping answered: {out}"
        );
    }

    /// Input that produces no event (here a `resources/subscribe` the core answers itself)
    /// still hands control back before the driver blocks on the next read, so a host
    /// whose wake-up time depends on the session's state (a subscription's updates)
    /// computes it again. Before, the driver went on to a blocking read with the old
    /// `wake` (none), and the subscriber never got an update.
    #[test]
    fn input_without_an_event_returns_before_the_next_blocking_read() {
        let (input, mut client) = io::pipe().unwrap();
        let caps = Json::new(r#"{"resources":{"subscribe":true}}"#).unwrap();
        let config = Config::server("t", "0.1.0", caps);
        let storage = Storage::owned(config.limits.max_line, 4, 2, config.info_len());
        let mut session = Session::new(&config, storage, 0).unwrap();
        let mut driver = Driver::new(input, Vec::new(), config.limits.max_line);
        let lines = [
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"test://x"}}"#,
        ];
        // The subscription comes in a read of its own, after the handshake.
        client
            .write_all(format!("{}\n{}\n", lines[0], lines[1]).as_bytes())
            .unwrap();
        // The client stays connected: a driver that blocked instead would never return.
        let (done, finished) = std::sync::mpsc::channel();
        let worker = std::thread::spawn(move || {
            let mut subscribed = false;
            for _ in 0..16 {
                match driver.next(&mut session, None).unwrap() {
                    Step::Wake { .. } | Step::Event { .. } => {}
                    Step::Closed => break,
                }
                if session.is_subscribed("test://x") {
                    subscribed = true;
                    break;
                }
            }
            done.send(subscribed).unwrap();
        });
        std::thread::sleep(std::time::Duration::from_millis(200));
        client
            .write_all(format!("{}\n", lines[2]).as_bytes())
            .unwrap();
        let subscribed = finished
            .recv_timeout(std::time::Duration::from_secs(10))
            .expect("the driver blocked on a read after input that produced no event");
        assert!(subscribed, "the host saw the subscription");
        drop(client);
        worker.join().unwrap();
    }
}
