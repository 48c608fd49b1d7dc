//! The bounded queue of encoded outbound lines.

use super::storage::Slice;
use crate::error::InsufficientSize;
use crate::json::JsonWriter;

/// Framed output bytes: `[head, tail)` is pending. Space is reclaimed by moving the
/// pending bytes to the front when the end is reached.
pub(crate) struct Outbox<'s> {
    buf: Slice<'s, u8>,
    head: usize,
    tail: usize,
}

impl<'s> Outbox<'s> {
    pub(crate) fn new(buf: Slice<'s, u8>) -> Self {
        Outbox {
            buf,
            head: 0,
            tail: 0,
        }
    }

    /// An empty outbox with no buffer (a placeholder while the real one is borrowed).
    pub(crate) fn detached() -> Outbox<'static> {
        Outbox {
            buf: Slice::Borrowed(&mut []),
            head: 0,
            tail: 0,
        }
    }

    pub(crate) fn capacity(&self) -> usize {
        self.buf.len()
    }

    pub(crate) fn pending(&self) -> &[u8] {
        &self.buf[self.head..self.tail]
    }

    pub(crate) fn free(&self) -> usize {
        self.buf.len() - (self.tail - self.head)
    }

    pub(crate) fn consume(&mut self, n: usize) {
        self.head = (self.head + n).min(self.tail);
        if self.head == self.tail {
            self.head = 0;
            self.tail = 0;
        }
    }

    fn compact(&mut self) {
        if self.head > 0 {
            self.buf.copy_within(self.head..self.tail, 0);
            self.tail -= self.head;
            self.head = 0;
        }
    }

    /// Writes one message with `f` followed by `\n`. All or nothing: on overflow the
    /// queue is unchanged and the error says how many bytes the line needs. `f` may be
    /// called twice (once more after reclaiming space), so it must not have side effects.
    pub(crate) fn push_with(
        &mut self,
        f: impl Fn(&mut JsonWriter<'_>),
    ) -> Result<(), InsufficientSize> {
        self.push_dyn(&f)
    }

    /// `push_with`'s body, once: the writer is called through `dyn` (one indirect call
    /// per message) so that each reply closure does not instantiate its own copy of the
    /// queue logic (about 1.3 KiB of flash on the firmware).
    fn push_dyn(&mut self, f: &dyn Fn(&mut JsonWriter<'_>)) -> Result<(), InsufficientSize> {
        if self.tail == self.buf.len() {
            self.compact();
        }
        match self.try_push(f) {
            Ok(()) => Ok(()),
            Err(e) if self.head > 0 && e.required <= self.free() => {
                self.compact();
                self.try_push(f)
            }
            Err(e) => Err(e),
        }
    }

    fn try_push(&mut self, f: &dyn Fn(&mut JsonWriter<'_>)) -> Result<(), InsufficientSize> {
        let start = self.tail;
        let avail = self.buf.len() - start;
        let mut w = JsonWriter::new(&mut self.buf[start..]);
        f(&mut w);
        let n = w.len();
        if n < avail && w.finish().is_ok() {
            self.buf[start + n] = b'\n';
            self.tail = start + n + 1;
            Ok(())
        } else {
            Err(InsufficientSize { required: n + 1 })
        }
    }

    /// Copies as many whole pending lines as fit into `out`.
    pub(crate) fn poll_into(&mut self, out: &mut [u8]) -> Result<Option<usize>, InsufficientSize> {
        let pending = self.pending();
        if pending.is_empty() {
            return Ok(None);
        }
        let n = if pending.len() <= out.len() {
            pending.len()
        } else {
            // The last newline inside the window.
            match pending[..out.len()].iter().rposition(|&c| c == b'\n') {
                Some(i) => i + 1,
                None => {
                    let need = pending
                        .iter()
                        .position(|&c| c == b'\n')
                        .map_or(pending.len(), |i| i + 1);
                    return Err(InsufficientSize { required: need });
                }
            }
        };
        out[..n].copy_from_slice(&pending[..n]);
        self.consume(n);
        Ok(Some(n))
    }
}
