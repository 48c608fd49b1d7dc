//! A fixed stack of one bit per nesting level, shared by the exact scanner and the writer.

use super::scan::MAX_DEPTH_CAP;

/// A fixed stack of one bit per nesting level (1 = object, 0 = array).
#[derive(Clone, Copy)]
pub(crate) struct BitStack {
    words: [u64; MAX_DEPTH_CAP / 64],
    len: usize,
}

impl BitStack {
    pub(crate) const fn new() -> Self {
        BitStack {
            words: [0; MAX_DEPTH_CAP / 64],
            len: 0,
        }
    }
    /// Pushes a bit; returns false when the stack is full.
    pub(crate) fn push(&mut self, bit: bool) -> bool {
        if self.len >= MAX_DEPTH_CAP {
            return false;
        }
        let (w, b) = (self.len / 64, self.len % 64);
        if bit {
            self.words[w] |= 1 << b;
        } else {
            self.words[w] &= !(1 << b);
        }
        self.len += 1;
        true
    }
    pub(crate) fn pop(&mut self) {
        self.len = self.len.saturating_sub(1);
    }
    pub(crate) fn top(&self) -> Option<bool> {
        if self.len == 0 {
            return None;
        }
        let i = self.len - 1;
        Some(self.words[i / 64] & (1 << (i % 64)) != 0)
    }
    pub(crate) fn set_top(&mut self, bit: bool) {
        if self.len > 0 {
            let i = self.len - 1;
            if bit {
                self.words[i / 64] |= 1 << (i % 64);
            } else {
                self.words[i / 64] &= !(1 << (i % 64));
            }
        }
    }
    pub(crate) fn len(&self) -> usize {
        self.len
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bit_stack() {
        let mut s = BitStack::new();
        assert_eq!(s.top(), None);
        s.pop(); // popping empty is harmless
        for i in 0..MAX_DEPTH_CAP {
            assert!(s.push(i % 3 == 0));
            assert_eq!(s.top(), Some(i % 3 == 0));
        }
        assert!(!s.push(true), "full");
        assert_eq!(s.len(), MAX_DEPTH_CAP);
        s.set_top(false);
        assert_eq!(s.top(), Some(false));
        s.set_top(true);
        assert_eq!(s.top(), Some(true));
        for i in (0..MAX_DEPTH_CAP - 1).rev() {
            s.pop();
            assert_eq!(s.top(), Some(i % 3 == 0), "level {i}");
        }
        s.pop();
        assert_eq!((s.len(), s.top()), (0, None));
        s.set_top(true); // no-op when empty
        assert_eq!(s.top(), None);
    }
}
