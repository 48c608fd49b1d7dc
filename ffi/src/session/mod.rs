//! Sessions: placement in caller memory (no malloc) or on the heap, and every session
//! function (in the modules below).
//!
//! # Memory layout
//!
//! A session is one block of memory, laid out as
//!
//! ```text
//! [ Block header (magic, flags, the core Session) | inbound slots | outbound slots |
//!   rx | tx | events | info | scratch ]
//! ```
//!
//! The core `Session<'static>` in the header borrows the other regions as
//! `&'static mut` slices. That lifetime is a promise the C caller makes: the memory stays
//! alive and untouched until `picomcp_session_deinit` (or `picomcp_session_free`). The
//! regions are disjoint, so the header and the buffers never alias.
//!
//! # Modules
//!
//! This file holds the block header with its magic word and poison flag, and the entry
//! points every session function goes through (`with_session`, `with_session_views`).
//! The functions themselves are grouped by what a host does with a session; the modules
//! are declared in the order of `include/picomcp.h`.

use core::mem::align_of;
use core::ptr;
use std::panic::{AssertUnwindSafe, catch_unwind};

use picomcp_core::json::{Json, MAX_DEPTH_CAP};
use picomcp_core::session::{EventSlot, InboundSlot, OutboundSlot, Session};

use crate::boundary::{FfiResult, boundary, opt_str_arg, str_arg};
use crate::status::picomcp_status;
use crate::types::*;

// cbindgen writes functions module by module, in declaration order, and the header must
// keep its order: the blank lines stop rustfmt from sorting these declarations.

mod layout;

mod lifecycle;

mod feed;

mod poll;

mod respond;

mod request;

mod notify;

mod modern;

mod state;

pub use feed::*;
pub use lifecycle::*;
pub use modern::*;
pub use notify::*;
pub use poll::*;
pub use request::*;
pub use respond::*;
pub use state::*;

/// An MCP session (opaque). Create it with `picomcp_session_init` (in your memory) or
/// `picomcp_session_new` (allocated); it is not thread-safe: use one session from one
/// thread at a time.
pub struct picomcp_session {
    _private: [u8; 0],
}

const MAGIC_LIVE: u64 = 0x7069_636f_6d63_7031; // "picomcp1"
const MAGIC_DEAD: u64 = 0x7069_636f_6d63_7030; // "picomcp0"

/// The header at the start of every session block.
#[repr(C)]
pub(crate) struct Block {
    magic: u64,
    owned: bool,
    poisoned: bool,
    /// A `respond_with` callback is running: the session must not be entered.
    busy: bool,
    total: usize,
    align: usize,
    /// Where escaped event text (error messages, cancel reasons) is decoded.
    pub(crate) scratch: &'static mut [u8],
    /// The arguments of the call `picomcp_session_poll_served` returned last: JSON the
    /// session validated, in this block's event text. Set only while the event's views
    /// are valid: every call that may end them clears it first (`with_session`).
    pub(crate) args: Option<Json<'static>>,
    /// Values `picomcp_session_argument` read from `args` (a ring, `got_next` is the next
    /// slot): a text block given as exactly one of them needs no second validation.
    pub(crate) got: [Option<Json<'static>>; GOT],
    got_next: usize,
    pub(crate) session: Session<'static>,
}

/// How many values of `picomcp_session_argument` a block remembers.
const GOT: usize = 4;

impl Block {
    /// Forgets the current call's arguments and the values read from them.
    fn forget_views(&mut self) {
        self.args = None;
        self.got = [None; GOT];
    }

    /// The value `picomcp_session_argument` returned with exactly this view, if the event
    /// it came from is still current: validated JSON that needs no second check.
    pub(crate) fn known(&self, v: picomcp_str) -> Option<Json<'static>> {
        self.got.iter().flatten().copied().find(|j| {
            let raw = j.as_raw();
            ptr::eq(raw.as_ptr(), v.ptr.cast()) && raw.len() == v.len
        })
    }

    /// Remembers a value `picomcp_session_argument` returned (read from `args`).
    pub(crate) fn remember(&mut self, v: Json<'static>) {
        self.got[self.got_next] = Some(v);
        self.got_next = (self.got_next + 1) % GOT;
    }
}

/// The current call's arguments as the block keeps them (`Block::args`).
///
/// # Safety
/// `args` must be text of the block's session (its event text) that stays unchanged until
/// the next call that does not leave the event's views valid: such a call clears
/// `Block::args` first (`with_session`), so the `'static` is never relied on past that.
pub(crate) unsafe fn detach(args: Json<'_>) -> Json<'static> {
    // SAFETY: only the lifetime changes, under the caller's guarantee above.
    unsafe { core::mem::transmute::<Json<'_>, Json<'static>>(args) }
}

// Every alignment picomcp_session_storage_size can report is at most the documented maximum.
const _: () = assert!(align_of::<Block>() <= PICOMCP_SESSION_MAX_ALIGN);
const _: () = assert!(align_of::<InboundSlot>() <= PICOMCP_SESSION_MAX_ALIGN);
const _: () = assert!(align_of::<OutboundSlot>() <= PICOMCP_SESSION_MAX_ALIGN);
const _: () = assert!(align_of::<EventSlot>() <= PICOMCP_SESSION_MAX_ALIGN);

/// The header of a live session.
///
/// # Safety
/// `s` must be NULL or point to memory of at least 8 readable bytes that is either a
/// session block or was one (deinitialised) — anything else is the caller's bug.
unsafe fn block<'a>(s: *mut picomcp_session) -> FfiResult<&'a mut Block> {
    if s.is_null() {
        return Err(picomcp_status::NullArgument);
    }
    let b = s.cast::<Block>();
    if !(b as usize).is_multiple_of(align_of::<Block>()) {
        return Err(picomcp_status::InvalidSession);
    }
    // SAFETY: aligned, and the caller guarantees at least the magic word is readable; it
    // is read through a raw pointer, so no reference to a possibly dead Block is made.
    let magic = unsafe { ptr::addr_of!((*b).magic).read() };
    if magic != MAGIC_LIVE {
        return Err(picomcp_status::InvalidSession);
    }
    // SAFETY: as for the magic: a plain read of a live Block's flag, no reference made.
    if unsafe { ptr::addr_of!((*b).busy).read() } {
        return Err(picomcp_status::Reentrant);
    }
    // SAFETY: the magic says this is a live Block written by `place`; the caller does not
    // use the session from another thread at the same time (documented).
    Ok(unsafe { &mut *b })
}

/// Runs `f` on a live, unpoisoned session, poisoning it if `f` panics. The current call's
/// arguments and the values read from them are forgotten first: `f` may end the event's
/// views.
///
/// # Safety
/// As [`block`].
pub(crate) unsafe fn with_session(
    s: *mut picomcp_session,
    f: impl FnOnce(&mut Block) -> FfiResult,
) -> picomcp_status {
    // SAFETY: forwarded caller contract.
    unsafe { enter(s, true, f) }
}

/// As [`with_session`] for the calls that leave the current event's views valid (the
/// answers to a served call, `picomcp_session_argument`): the current call's arguments
/// stay known.
///
/// # Safety
/// As [`block`]; `f` must not change the session's event text or scratch.
pub(crate) unsafe fn with_session_views(
    s: *mut picomcp_session,
    f: impl FnOnce(&mut Block) -> FfiResult,
) -> picomcp_status {
    // SAFETY: forwarded caller contract.
    unsafe { enter(s, false, f) }
}

/// The body of [`with_session`] and [`with_session_views`].
///
/// # Safety
/// As [`with_session_views`] when `forget` is false, else as [`block`].
unsafe fn enter(
    s: *mut picomcp_session,
    forget: bool,
    f: impl FnOnce(&mut Block) -> FfiResult,
) -> picomcp_status {
    boundary(|| {
        // SAFETY: forwarded caller contract.
        let b = unsafe { block(s) }?;
        if b.poisoned {
            return Err(picomcp_status::Poisoned);
        }
        if forget {
            b.forget_views();
        }
        match catch_unwind(AssertUnwindSafe(|| f(b))) {
            Ok(r) => r,
            Err(_) => {
                // SAFETY: the block was live before `f`; the borrow `f` had is over.
                unsafe { (*s.cast::<Block>()).poisoned = true };
                Err(picomcp_status::Panic)
            }
        }
    })
}

/// A JSON argument, validated (nesting up to 256).
///
/// # Safety
/// As [`str_arg`].
pub(crate) unsafe fn json_arg<'a>(s: picomcp_str) -> FfiResult<Json<'a>> {
    // SAFETY: forwarded caller contract.
    let t = unsafe { str_arg(s) }?;
    Json::with_max_depth(t, MAX_DEPTH_CAP).map_err(|_| picomcp_status::InvalidJson)
}

/// An optional JSON argument (`ptr == NULL`: absent).
///
/// # Safety
/// As [`str_arg`].
pub(crate) unsafe fn opt_json_arg<'a>(s: picomcp_str) -> FfiResult<Option<Json<'a>>> {
    // SAFETY: forwarded caller contract.
    match unsafe { opt_str_arg(s) }? {
        None => Ok(None),
        Some(t) => Json::with_max_depth(t, MAX_DEPTH_CAP)
            .map(Some)
            .map_err(|_| picomcp_status::InvalidJson),
    }
}
