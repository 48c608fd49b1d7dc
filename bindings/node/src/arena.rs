//! `Strings`: decoded strings kept for as long as the arena lives.
//!
//! The core's definitions and answers borrow `&str`; a JSON string with escapes has to be
//! decoded somewhere first. The arena owns each decoded string in its own heap box, so a
//! `&str` handed out stays valid while more are added.

use std::cell::RefCell;

use picomcp::json::JsonStr;

/// Owned strings that outlive the borrows handed out for them.
#[derive(Default)]
pub(crate) struct Strings(RefCell<Vec<Box<str>>>);

impl Strings {
    /// Keeps `s`; its text lives as long as the arena.
    pub(crate) fn keep(&self, s: String) -> &str {
        let b = s.into_boxed_str();
        let p: *const str = &*b;
        self.0.borrow_mut().push(b);
        // SAFETY: the box's heap text does not move when the box is moved into the Vec (or
        // the Vec grows), and boxes are never removed or mutated before the arena drops;
        // the returned borrow is tied to `&self`, so it cannot outlive the arena.
        unsafe { &*p }
    }

    /// The text of a JSON string: a slice of the JSON when it has no escapes, else the
    /// decoded text, kept here.
    pub(crate) fn text<'a>(&'a self, s: JsonStr<'a>) -> &'a str {
        match s.as_plain() {
            Some(p) => p,
            None => self.keep(s.chars().collect()),
        }
    }
}
