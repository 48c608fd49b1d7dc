//! Where the writer is in the document: the JSON grammar as a small state machine (one bit
//! per open container, whether a key waits for its value, whether the top-level value is
//! complete). Every `picomcp_writer_*` call asks it first, so a finished document is valid
//! JSON without being scanned again.

use crate::boundary::FfiResult;
use crate::status::picomcp_status;

/// Deepest nesting the writer accepts.
const WRITER_MAX_DEPTH: usize = 128;

/// Where the writer is in the document.
pub(super) struct Grammar {
    /// One bit per open container: 1 = object, 0 = array.
    kinds: [u64; WRITER_MAX_DEPTH / 64],
    pub(super) depth: usize,
    /// A key was written; its value comes next.
    after_key: bool,
    /// The top-level value is complete.
    pub(super) done: bool,
    /// The top-level value is an object.
    pub(super) root_object: bool,
}

impl Grammar {
    fn in_object(&self) -> bool {
        self.depth > 0 && self.kinds[(self.depth - 1) / 64] >> ((self.depth - 1) % 64) & 1 == 1
    }
    /// A value may be written here.
    pub(super) fn value(&mut self) -> FfiResult {
        let ok = if self.depth == 0 {
            !self.done
        } else {
            !self.in_object() || self.after_key
        };
        if !ok {
            return Err(picomcp_status::WriterState);
        }
        self.after_key = false;
        if self.depth == 0 {
            self.done = true;
        }
        Ok(())
    }
    pub(super) fn begin(&mut self, object: bool) -> FfiResult {
        if self.depth == WRITER_MAX_DEPTH {
            return Err(picomcp_status::WriterState);
        }
        if self.depth == 0 {
            self.root_object = object;
        }
        self.value()?;
        self.done = false;
        let (w, b) = (self.depth / 64, self.depth % 64);
        self.kinds[w] = (self.kinds[w] & !(1 << b)) | (u64::from(object) << b);
        self.depth += 1;
        Ok(())
    }
    pub(super) fn end(&mut self, object: bool) -> FfiResult {
        if self.depth == 0 || self.in_object() != object || self.after_key {
            return Err(picomcp_status::WriterState);
        }
        self.depth -= 1;
        self.done = self.depth == 0;
        Ok(())
    }
    pub(super) fn key(&mut self) -> FfiResult {
        if !self.in_object() || self.after_key {
            return Err(picomcp_status::WriterState);
        }
        self.after_key = true;
        Ok(())
    }
}

impl Grammar {
    pub(super) const NEW: Grammar = Grammar {
        kinds: [0; WRITER_MAX_DEPTH / 64],
        depth: 0,
        after_key: false,
        done: false,
        root_object: false,
    };
}
