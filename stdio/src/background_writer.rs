//! A writer that writes on a helper thread and gives up on a peer that stops reading.

use core::time::Duration;
use std::io::{self, Write};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread;
use std::time::Instant;

/// Writes to `W` from a helper thread, so that a peer that stops reading its input cannot
/// block the caller for ever.
///
/// [`Driver`](crate::Driver) writes with blocking `write_all`: against a peer that never
/// reads, a full pipe stalls it and no timeout fires. Wrapped in a `BackgroundWriter`, the
/// output is handed to the helper thread instead; `flush` fails with
/// [`io::ErrorKind::TimedOut`] when more than `max_queued` bytes are still unwritten and
/// none was written for `stall` (the peer has not read for that long), and the driver then
/// closes the session.
///
/// Dropping it lets the helper thread finish what is queued and then drops `W` (for a
/// child's stdin: end of input for the child). The thread is never joined, so a drop does
/// not block either; if the peer never reads, the thread stays blocked in its write until
/// the peer exits.
///
/// ```no_run
/// use std::process::{Command, Stdio};
/// use std::time::Duration;
/// use picomcp_stdio::{BackgroundWriter, Driver};
///
/// let mut child = Command::new("my-mcp-server")
///     .stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
/// let stdin = BackgroundWriter::new(child.stdin.take().unwrap(), Duration::from_secs(10));
/// let driver = Driver::new(child.stdout.take().unwrap(), stdin, 64 * 1024);
/// ```
pub struct BackgroundWriter {
    shared: Arc<Shared>,
    stall: Duration,
    max_queued: usize,
}

struct Shared {
    state: Mutex<State>,
    /// Signalled when output is queued or the writer is dropped (for the thread), and
    /// when the thread has taken or written output or failed (for `flush`).
    changed: Condvar,
}

#[derive(Default)]
struct State {
    /// Output not yet taken by the thread.
    queued: Vec<u8>,
    /// Bytes the thread has taken and not yet written.
    in_flight: usize,
    /// The writer was dropped: write what is queued, then stop.
    closed: bool,
    /// The thread's write failed; later writes fail with this.
    failed: Option<io::ErrorKind>,
}

impl BackgroundWriter {
    /// Bytes that may wait for the thread before `flush` starts to wait (the default).
    pub const MAX_QUEUED: usize = 64 * 1024;

    /// Starts the helper thread that writes to `out`. `flush` gives up after `stall`
    /// without progress.
    pub fn new<W: Write + Send + 'static>(out: W, stall: Duration) -> BackgroundWriter {
        let shared = Arc::new(Shared {
            state: Mutex::new(State::default()),
            changed: Condvar::new(),
        });
        let theirs = Arc::clone(&shared);
        thread::spawn(move || write_loop(out, &theirs));
        BackgroundWriter {
            shared,
            stall,
            max_queued: Self::MAX_QUEUED,
        }
    }

    /// Sets how many bytes may wait for the thread before `flush` waits.
    pub fn with_max_queued(mut self, bytes: usize) -> BackgroundWriter {
        self.max_queued = bytes;
        self
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        lock(&self.shared)
    }
}

fn lock(shared: &Shared) -> MutexGuard<'_, State> {
    shared.state.lock().unwrap_or_else(|e| e.into_inner())
}

fn write_loop<W: Write>(mut out: W, shared: &Shared) {
    let mut chunk = Vec::new();
    loop {
        {
            let mut st = lock(shared);
            st.in_flight = 0;
            shared.changed.notify_all();
            while st.queued.is_empty() && !st.closed {
                st = shared.changed.wait(st).unwrap_or_else(|e| e.into_inner());
            }
            if st.queued.is_empty() {
                return; // closed and drained: drop `out`
            }
            core::mem::swap(&mut chunk, &mut st.queued);
            st.in_flight = chunk.len();
            shared.changed.notify_all();
        }
        let result = out.write_all(&chunk).and_then(|()| out.flush());
        chunk.clear();
        if let Err(e) = result {
            let mut st = lock(shared);
            st.failed = Some(e.kind());
            st.in_flight = 0;
            st.queued = Vec::new();
            shared.changed.notify_all();
            return;
        }
    }
}

impl Write for BackgroundWriter {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        let mut st = self.lock();
        if let Some(kind) = st.failed {
            return Err(kind.into());
        }
        st.queued.extend_from_slice(data);
        self.shared.changed.notify_all();
        Ok(data.len())
    }

    /// Waits while more than `max_queued` bytes are unwritten, at most `stall` without
    /// any of them being written.
    fn flush(&mut self) -> io::Result<()> {
        let mut st = self.lock();
        let mut since = Instant::now();
        let unwritten = |st: &State| st.queued.len() + st.in_flight;
        let mut last = unwritten(&st);
        loop {
            if let Some(kind) = st.failed {
                return Err(kind.into());
            }
            if unwritten(&st) <= self.max_queued {
                return Ok(());
            }
            if unwritten(&st) < last {
                // Some output was written: the peer reads, so the stall starts anew.
                since = Instant::now();
            }
            last = unwritten(&st);
            let left = self.stall.saturating_sub(since.elapsed());
            if left.is_zero() {
                return Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    "the peer has not read its input in time",
                ));
            }
            st = self
                .shared
                .changed
                .wait_timeout(st, left)
                .map(|(g, _)| g)
                .unwrap_or_else(|e| e.into_inner().0);
        }
    }
}

impl Drop for BackgroundWriter {
    fn drop(&mut self) {
        self.lock().closed = true;
        self.shared.changed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc::{Receiver, channel};

    /// A sink that accepts writes only as fast as a test lets it.
    struct Gate(Receiver<()>, Arc<Mutex<Vec<u8>>>);

    impl Write for Gate {
        fn write(&mut self, data: &[u8]) -> io::Result<usize> {
            self.0.recv().map_err(|_| io::ErrorKind::BrokenPipe)?;
            self.1.lock().unwrap().extend_from_slice(data);
            Ok(data.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn flush_gives_up_on_a_peer_that_does_not_read() {
        let (_never_opened, gate) = channel();
        let got = Arc::new(Mutex::new(Vec::new()));
        let mut w =
            BackgroundWriter::new(Gate(gate, got), Duration::from_millis(20)).with_max_queued(4);
        w.write_all(b"more than four").unwrap();
        let e = w.flush().unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::TimedOut);
    }

    #[test]
    fn flush_waits_for_a_peer_that_reads_and_drop_finishes_the_output() {
        let (open, gate) = channel();
        let got = Arc::new(Mutex::new(Vec::new()));
        let mut w = BackgroundWriter::new(Gate(gate, Arc::clone(&got)), Duration::from_secs(30))
            .with_max_queued(0);
        let reader = thread::spawn(move || {
            for _ in 0..3 {
                thread::sleep(Duration::from_millis(5));
                let _ = open.send(());
            }
        });
        w.write_all(b"first").unwrap();
        w.flush().unwrap();
        assert_eq!(
            *got.lock().unwrap(),
            b"first",
            "flush returns once all is written"
        );
        w.write_all(b"second").unwrap();
        w.flush().unwrap();
        w.write_all(b"third").unwrap();
        drop(w);
        reader.join().unwrap();
        // The thread writes "third" after the drop; then it stops (the gate is closed).
        while got.lock().unwrap().len() < 16 {
            thread::yield_now();
        }
        assert_eq!(*got.lock().unwrap(), b"firstsecondthird");
    }

    #[test]
    fn a_write_error_is_reported_to_the_caller() {
        struct Broken;
        impl Write for Broken {
            fn write(&mut self, _: &[u8]) -> io::Result<usize> {
                Err(io::ErrorKind::BrokenPipe.into())
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let mut w = BackgroundWriter::new(Broken, Duration::from_secs(5)).with_max_queued(0);
        w.write_all(b"x").unwrap();
        let e = w.flush().unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::BrokenPipe);
        assert!(w.write_all(b"y").is_err());
    }
}
