//! Diagnostics on the host's stderr through semihosting (never on the UART, which
//! carries only protocol messages), and the command line QEMU passes the same way.
//!
//! No `core::fmt` here: its machinery (and the panic-message formatting it would pull
//! in) costs several KiB of flash. Lines are assembled from string and number parts.

use core::sync::atomic::{AtomicU8, Ordering};

use cortex_m_semihosting::{hio, nr};

/// Severity of a diagnostic line, as in `--log-level`.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
pub enum Level {
    Error = 0,
    Warn = 1,
    Info = 2,
    Debug = 3,
}

impl Level {
    pub fn parse(s: &str) -> Option<Level> {
        Some(match s {
            "error" => Level::Error,
            "warn" | "warning" => Level::Warn,
            "info" => Level::Info,
            "debug" => Level::Debug,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        ["error", "warn", "info", "debug"][self as usize]
    }
}

static LEVEL: AtomicU8 = AtomicU8::new(Level::Warn as u8);

pub fn set_level(l: Level) {
    LEVEL.store(l as u8, Ordering::Relaxed);
}

pub fn enabled(l: Level) -> bool {
    l as u8 <= LEVEL.load(Ordering::Relaxed)
}

/// One part of a diagnostic line.
#[derive(Clone, Copy)]
pub enum Arg<'a> {
    S(&'a str),
    N(u64),
}

impl<'a> From<&'a str> for Arg<'a> {
    fn from(s: &'a str) -> Self {
        Arg::S(s)
    }
}

impl From<usize> for Arg<'_> {
    fn from(n: usize) -> Self {
        Arg::N(n as u64)
    }
}

impl From<u64> for Arg<'_> {
    fn from(n: u64) -> Self {
        Arg::N(n)
    }
}

/// Writes `picomcp-fw: LEVEL: parts...` as one line to the host's stderr. Every part is
/// one semihosting call (a trap into QEMU): this is for rare events only. Nothing is
/// assembled in a buffer, to keep the stack shallow.
pub fn emit(l: Level, parts: &[Arg<'_>]) {
    let Ok(mut e) = hio::hstderr() else {
        return;
    };
    let _ = e.write_all(b"picomcp-fw: ");
    let _ = e.write_all(l.as_str().as_bytes());
    let _ = e.write_all(b": ");
    for p in parts {
        let _ = match *p {
            Arg::S(s) => e.write_all(s.as_bytes()),
            Arg::N(n) => e.write_all(decimal(n, &mut [0; 20])),
        };
    }
    let _ = e.write_all(b"\n");
}

/// `n` in decimal (the core's integer writer: one copy of the digit loop).
pub fn decimal(n: u64, tmp: &mut [u8; 20]) -> &[u8] {
    let mut w = picomcp::json::JsonWriter::new(tmp);
    w.u64(n);
    let len = w.finish().unwrap_or(0);
    &tmp[..len]
}

/// `diag!(Info, "text", Arg::N(n), ...)`: a stderr line when `--log-level` lets it through.
macro_rules! diag {
    ($level:ident, $($part:expr),+ $(,)?) => {
        if $crate::diag::enabled($crate::diag::Level::$level) {
            $crate::diag::emit($crate::diag::Level::$level, &[$($crate::diag::Arg::from($part)),+]);
        }
    };
}
pub(crate) use diag;

/// Options from the semihosting command line (`-semihosting-config arg=...`).
pub struct Options {
    /// `--max-line N`, if given.
    pub max_line: Option<usize>,
    /// `--log-level L`.
    pub level: Level,
    /// `--test-panic`: panic right after start-up (tests the panic path).
    pub test_panic: bool,
}

/// Reads and parses the command line. Unknown words are reported and ignored.
pub fn options() -> Options {
    let mut opts = Options {
        max_line: None,
        level: Level::Warn,
        test_panic: false,
    };
    let mut buf = [0u8; 160];
    let Some(line) = cmdline(&mut buf) else {
        return opts;
    };
    let mut words = line.split_ascii_whitespace().skip(1); // argv[0] is the program name
    while let Some(w) = words.next() {
        let (name, inline) = match w.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (w, None),
        };
        let mut value = || inline.or_else(|| words.next());
        match name {
            "--max-line" => match value().and_then(|v| v.parse().ok()) {
                Some(n) => opts.max_line = Some(n),
                None => emit(Level::Warn, &[Arg::S("--max-line needs a number of bytes")]),
            },
            "--log-level" => match value().and_then(Level::parse) {
                Some(l) => opts.level = l,
                None => emit(
                    Level::Warn,
                    &[Arg::S("--log-level: error, warn, info or debug")],
                ),
            },
            "--test-panic" => opts.test_panic = true,
            _ => emit(Level::Warn, &[Arg::S("ignoring argument "), Arg::S(w)]),
        }
    }
    opts
}

/// SYS_GET_CMDLINE: the command line as one string, if the host provides one.
fn cmdline(buf: &mut [u8]) -> Option<&str> {
    #[repr(C)]
    struct Block {
        ptr: *mut u8,
        len: usize,
    }
    let mut block = Block {
        ptr: buf.as_mut_ptr(),
        len: buf.len(),
    };
    // SAFETY: GET_CMDLINE writes at most `len` bytes to `ptr` and updates `len`.
    let r = unsafe { cortex_m_semihosting::syscall1(nr::GET_CMDLINE, &raw mut block as usize) };
    if r != 0 || block.len > buf.len() {
        return None;
    }
    core::str::from_utf8(&buf[..block.len]).ok()
}
