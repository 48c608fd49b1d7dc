//! Error messages written without allocating: a fixed buffer that truncates at a
//! character boundary, and the internal error sent when an answer does not fit.

use core::fmt;

use crate::error::ErrorCode;
use crate::session::{Commands, InboundId, RespondError};

/// A message of at most `N` bytes; longer text is cut at a character boundary and ends
/// with `…`.
pub(crate) struct Line<const N: usize> {
    buf: [u8; N],
    len: usize,
    full: bool,
}

impl<const N: usize> Line<N> {
    pub(crate) fn new() -> Self {
        Line {
            buf: [0; N],
            len: 0,
            full: false,
        }
    }

    /// The text written.
    pub(crate) fn as_str(&self) -> &str {
        match core::str::from_utf8(&self.buf[..self.len]) {
            Ok(s) => s,
            // Only whole characters are written.
            Err(e) => core::str::from_utf8(&self.buf[..e.valid_up_to()]).unwrap_or(""),
        }
    }
}

impl<const N: usize> Line<N> {
    /// Appends formatted text (what [`line!`] calls).
    pub(crate) fn write_fmt(&mut self, args: fmt::Arguments<'_>) {
        let mut w = Writer {
            buf: &mut self.buf,
            len: &mut self.len,
            full: &mut self.full,
        };
        let _ = fmt::Write::write_fmt(&mut w, args);
    }
}

/// A [`Line`] of any size seen as one `fmt::Write` type, so that the writer is compiled
/// once rather than once per line size (flash on a device).
struct Writer<'a> {
    buf: &'a mut [u8],
    len: &'a mut usize,
    full: &'a mut bool,
}

impl fmt::Write for Writer<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        if *self.full {
            return Ok(());
        }
        const MORE: &str = "…";
        let (n, len) = (self.buf.len(), *self.len);
        let room = n - len;
        if s.len() <= room {
            self.buf[len..len + s.len()].copy_from_slice(s.as_bytes());
            *self.len += s.len();
            return Ok(());
        }
        // Keep room for the ellipsis.
        let mut cut = room.saturating_sub(MORE.len());
        while cut > 0 && !s.is_char_boundary(cut) {
            cut -= 1;
        }
        self.buf[len..len + cut].copy_from_slice(&s.as_bytes()[..cut]);
        let len = len + cut;
        *self.len = len;
        if n - len >= MORE.len() {
            self.buf[len..len + MORE.len()].copy_from_slice(MORE.as_bytes());
            *self.len += MORE.len();
        }
        *self.full = true;
        Ok(())
    }
}

/// Formats into a [`Line`].
macro_rules! line {
    ($n:literal, $($arg:tt)*) => {{
        let mut l = $crate::server::message::Line::<$n>::new();
        l.write_fmt(format_args!($($arg)*));
        l
    }};
}
pub(crate) use line;

/// An answer could not be queued: say so with -32603 when that fits (a request the peer
/// cancelled, or one answered already, needs nothing).
pub(crate) fn internal_error(cmds: &mut Commands<'_, '_>, id: InboundId, e: RespondError) {
    if matches!(e, RespondError::UnknownRequest) {
        return;
    }
    let _ = cmds.respond_error(
        id,
        ErrorCode::INTERNAL_ERROR,
        "Internal error: the result does not fit the transmit queue",
        None,
    );
}

/// A call of a definition the caller's scopes do not allow: -32602 naming the scopes it
/// needs (the HTTP endpoint's 403 carries them in `WWW-Authenticate` as well).
#[cfg(feature = "scopes")]
#[inline(never)]
pub(crate) fn insufficient_scope(cmds: &mut Commands<'_, '_>, id: InboundId, needed: &str) {
    let message = line!(256, "Invalid params: insufficient scope (needs: {needed})");
    if let Err(e) = cmds.respond_error(id, ErrorCode::INVALID_PARAMS, message.as_str(), None) {
        internal_error(cmds, id, e);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn truncates_at_a_character_boundary() {
        let l = line!(8, "{}", "aé€bcdef");
        assert_eq!(l.as_str(), "aé…");
        let l = line!(16, "ok {}", 1);
        assert_eq!(l.as_str(), "ok 1");
    }
}
