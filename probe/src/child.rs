//! The server under test as a child process: its pipes, the tail of its stderr, and its
//! exit once its stdin is closed.

use std::io::Read;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use crate::report::Outcome;
use crate::text::elapsed_ms;

/// The least time the server gets to exit once its stdin is closed. Where exiting counts
/// (2026-07-28, the demo servers) it gets `--timeout-ms` when that is longer: some SDK
/// servers wait for in-flight handlers before they exit (rmcp up to 5 s), which is slow
/// but not a violation.
pub(crate) const EXIT_GRACE: Duration = Duration::from_secs(2);

/// Lines of the server's stderr shown when the probe fails.
pub(crate) const STDERR_TAIL: usize = 20;
/// Bytes of the server's stderr kept.
const STDERR_KEEP: usize = 64 * 1024;

/// The server process; its stdin and stdout belong to the client loop.
pub(crate) struct Server {
    child: Child,
    /// The tail of the server's stderr, collected by a thread.
    stderr: Arc<Mutex<Vec<u8>>>,
}

impl Server {
    pub(crate) fn spawn(command: &[String]) -> std::io::Result<(Server, ChildStdin, ChildStdout)> {
        let mut child = Command::new(&command[0])
            .args(&command[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()?;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            let _ = child.kill();
            return Err(std::io::Error::other("the child's pipes are missing"));
        };
        let kept = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&kept);
        thread::spawn(move || collect_stderr(stderr, &sink));
        Ok((
            Server {
                child,
                stderr: kept,
            },
            stdin,
            stdout,
        ))
    }

    /// Waits for the server to exit (its stdin is already closed); kills it after
    /// `grace`. A kill fails the check only when `strict`.
    pub(crate) fn shutdown(&mut self, strict: bool, grace: Duration) -> (Outcome, f64) {
        let start = Instant::now();
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) if status.success() => {
                    return (Outcome::Ok(status.to_string()), elapsed_ms(start));
                }
                Ok(Some(status)) => {
                    return (Outcome::Failed(status.to_string()), elapsed_ms(start));
                }
                Ok(None) if start.elapsed() < grace => thread::sleep(Duration::from_millis(5)),
                Ok(None) => break,
                Err(e) => {
                    return (
                        Outcome::Failed(format!("cannot wait for the server: {e}")),
                        elapsed_ms(start),
                    );
                }
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        let msg = format!(
            "still running {:.1} s after stdin EOF: killed",
            grace.as_secs_f64()
        );
        let outcome = if strict {
            Outcome::Failed(msg)
        } else {
            Outcome::Skipped(format!("{msg} (not counted before 2026-07-28)"))
        };
        (outcome, elapsed_ms(start))
    }

    pub(crate) fn stderr_tail(&self, lines: usize) -> Vec<String> {
        let buf = self.stderr.lock().unwrap_or_else(|e| e.into_inner());
        let text = String::from_utf8_lossy(&buf);
        let all: Vec<&str> = text.lines().collect();
        all[all.len().saturating_sub(lines)..]
            .iter()
            .map(|l| l.to_string())
            .collect()
    }
}

/// Keeps the last [`STDERR_KEEP`] bytes of the server's stderr (a thread runs it).
fn collect_stderr(mut stderr: impl Read, sink: &Mutex<Vec<u8>>) {
    let mut chunk = [0u8; 4096];
    while let Ok(n) = stderr.read(&mut chunk) {
        if n == 0 {
            return;
        }
        let mut buf = sink.lock().unwrap_or_else(|e| e.into_inner());
        buf.extend_from_slice(&chunk[..n]);
        if buf.len() > STDERR_KEEP {
            let excess = buf.len() - STDERR_KEEP;
            buf.drain(..excess);
        }
    }
}

/// The server's stdout, read to its end after the probe is done with it: a server that
/// writes while it shuts down (timers, late notifications) must not die of `EPIPE`
/// because the probe closed the pipe first.
pub(crate) struct DrainOnDrop(pub(crate) Option<ChildStdout>);

impl Read for DrainOnDrop {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match &mut self.0 {
            Some(out) => out.read(buf),
            None => Ok(0),
        }
    }
}

impl Drop for DrainOnDrop {
    fn drop(&mut self) {
        if let Some(mut out) = self.0.take() {
            thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
        }
    }
}
