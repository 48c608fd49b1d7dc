//! Sessions: placement in caller memory (no malloc) or on the heap, and every session
//! function.
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

use core::ffi::c_void;
use core::mem::{align_of, size_of};
use core::ptr;
use std::panic::{AssertUnwindSafe, catch_unwind};

use picomcp_core::error::ErrorCode;
use picomcp_core::json::{Json, JsonWriter, MAX_DEPTH_CAP};
use picomcp_core::session::{
    EventSlot, InboundId, InboundSlot, OutboundId, OutboundSlot, RequestOptions, Session, Slice,
    Storage, ToolPin,
};

use crate::boundary::{FfiResult, boundary, in_bytes, input, opt_str_arg, out, out_bytes, str_arg};
use crate::convert::{self, Converted};
use crate::json::{picomcp_writer, write_through};
use crate::status::picomcp_status;
use crate::types::*;

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

/// Where each region of a session block starts.
struct Plan {
    inbound: usize,
    outbound: usize,
    event_slots: usize,
    pins: usize,
    rx: usize,
    tx: usize,
    events: usize,
    info: usize,
    scratch: usize,
    total: usize,
    align: usize,
}

fn plan(c: &Converted<'_>) -> FfiResult<Plan> {
    let overflow = picomcp_status::InvalidArgument;
    let align = align_of::<Block>()
        .max(align_of::<InboundSlot>())
        .max(align_of::<OutboundSlot>())
        .max(align_of::<EventSlot>());
    let up = |at: usize, a: usize| at.checked_next_multiple_of(a).ok_or(overflow);
    let add = |at: usize, n: usize| at.checked_add(n).ok_or(overflow);
    let mul = |n: usize, size: usize| n.checked_mul(size).ok_or(overflow);
    let inbound = up(size_of::<Block>(), align_of::<InboundSlot>())?;
    let outbound = up(
        add(inbound, mul(c.inbound, size_of::<InboundSlot>())?)?,
        align_of::<OutboundSlot>(),
    )?;
    let event_slots = up(
        add(outbound, mul(c.outbound, size_of::<OutboundSlot>())?)?,
        align_of::<EventSlot>(),
    )?;
    let pins = up(
        add(
            event_slots,
            mul(Storage::event_slots_for(c.events), size_of::<EventSlot>())?,
        )?,
        align_of::<Option<ToolPin>>(),
    )?;
    let rx = add(
        pins,
        mul(Storage::DEFAULT_PINS, size_of::<Option<ToolPin>>())?,
    )?;
    let tx = add(rx, c.rx)?;
    let events = add(tx, c.tx)?;
    let info = add(events, c.events)?;
    let scratch = add(info, c.info)?;
    let total = up(add(scratch, c.rx)?, align)?;
    if total > isize::MAX as usize {
        return Err(overflow);
    }
    Ok(Plan {
        inbound,
        outbound,
        event_slots,
        pins,
        rx,
        tx,
        events,
        info,
        scratch,
        total,
        align,
    })
}

/// Builds a session in `mem`, which must be `plan.total` bytes aligned to `plan.align`.
/// `zeroed`: every byte of `mem` is zero already (calloc, a static array, fresh pages), so
/// the block is not written once more: the byte queues (megabytes with long lines) then
/// stay untouched, and cost no resident memory, until they are used.
///
/// # Safety
/// `mem` must be valid for writes of `plan.total` bytes, aligned to `plan.align`, and stay
/// alive and otherwise unused until the session is deinitialised; with `zeroed`, its
/// `plan.total` bytes must all be zero.
unsafe fn place(
    mem: *mut u8,
    c: &Converted<'_>,
    p: &Plan,
    now: u64,
    owned: bool,
    zeroed: bool,
) -> FfiResult<*mut picomcp_session> {
    if !zeroed {
        // SAFETY: the caller guarantees `mem` is valid for `p.total` bytes; zeroing makes
        // every byte initialised before any slice over it is created (with `zeroed` the
        // caller guarantees they are initialised, to zero, already).
        unsafe { ptr::write_bytes(mem, 0, p.total) };
    }
    // SAFETY: `plan` keeps the inbound region inside `p.total` and aligned for its type.
    let inbound = unsafe { mem.add(p.inbound) }.cast::<InboundSlot>();
    for i in 0..c.inbound {
        // SAFETY: slot `i` is inside the inbound region, aligned, and writable.
        unsafe { inbound.add(i).write(InboundSlot::EMPTY) };
    }
    // SAFETY: `plan` keeps the outbound region inside `p.total` and aligned for its type.
    let outbound = unsafe { mem.add(p.outbound) }.cast::<OutboundSlot>();
    for i in 0..c.outbound {
        // SAFETY: slot `i` is inside the outbound region, aligned, and writable.
        unsafe { outbound.add(i).write(OutboundSlot::EMPTY) };
    }
    let n_events = Storage::event_slots_for(c.events);
    // SAFETY: `plan` keeps the event slot region inside `p.total` and aligned for its type.
    let event_slots = unsafe { mem.add(p.event_slots) }.cast::<EventSlot>();
    for i in 0..n_events {
        // SAFETY: slot `i` is inside the event slot region, aligned, and writable.
        unsafe { event_slots.add(i).write(EventSlot::EMPTY) };
    }
    // SAFETY: `plan` keeps the pin region inside `p.total` and aligned for its type.
    let pins = unsafe { mem.add(p.pins) }.cast::<Option<ToolPin>>();
    for i in 0..Storage::DEFAULT_PINS {
        // SAFETY: pin `i` is inside the pin region, aligned, and writable.
        unsafe { pins.add(i).write(None) };
    }
    // SAFETY: the regions are disjoint, initialised, inside the block, and the caller
    // keeps the block alive until deinit, which is what the `'static` stands for.
    let storage = unsafe {
        Storage {
            rx: Slice::Borrowed(bytes(mem, p.rx, c.rx)),
            tx: Slice::Borrowed(bytes(mem, p.tx, c.tx)),
            events: Slice::Borrowed(bytes(mem, p.events, c.events)),
            event_slots: Slice::Borrowed(core::slice::from_raw_parts_mut(event_slots, n_events)),
            inbound: Slice::Borrowed(core::slice::from_raw_parts_mut(inbound, c.inbound)),
            outbound: Slice::Borrowed(core::slice::from_raw_parts_mut(outbound, c.outbound)),
            info: Slice::Borrowed(bytes(mem, p.info, c.info)),
            pins: Slice::Borrowed(core::slice::from_raw_parts_mut(pins, Storage::DEFAULT_PINS)),
        }
    };
    // SAFETY: as above, for the scratch region.
    let scratch = unsafe { bytes(mem, p.scratch, c.rx) };
    let session = Session::new(&c.config, storage, now).map_err(convert::config_error)?;
    let block = mem.cast::<Block>();
    // SAFETY: offset 0 is aligned for Block (plan.align) and the header region is
    // `size_of::<Block>()` bytes before the first slot array.
    unsafe {
        block.write(Block {
            magic: MAGIC_LIVE,
            owned,
            poisoned: false,
            busy: false,
            total: p.total,
            align: p.align,
            scratch,
            args: None,
            got: [None; GOT],
            got_next: 0,
            session,
        })
    };
    Ok(block.cast())
}

/// A byte region of a session block as a `'static` slice.
///
/// # Safety
/// `[off, off + len)` must lie inside the live block, be initialised, and not be aliased.
unsafe fn bytes(mem: *mut u8, off: usize, len: usize) -> &'static mut [u8] {
    // SAFETY: forwarded caller contract.
    unsafe { core::slice::from_raw_parts_mut(mem.add(off), len) }
}

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

// ---------------------------------------------------------------------------------------
// Configuration and creation
// ---------------------------------------------------------------------------------------

/// Fills `config` with the defaults for `role` (a `picomcp_role`): capabilities `{}`, the
/// legacy revisions, 1 MiB lines, depth 64, 128-byte ids, 60 s request timeout, 32 inbound
/// and 8 outbound request slots, default queue sizes. Set `name` and `version` (and
/// usually `capabilities`) afterwards.
///
/// # Safety
/// `config` must be NULL or point to a writable `picomcp_config`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_config_init(
    config: *mut picomcp_config,
    role: u32,
) -> picomcp_status {
    boundary(|| {
        // SAFETY: caller contract.
        let c = unsafe { out(config) }?;
        convert::role_from_c(role)?;
        *c = convert::config_defaults(role);
        Ok(())
    })
}

/// Computes the memory a session with this configuration needs, for
/// `picomcp_session_init`: `*out_size` bytes aligned to `*out_align` (a power of two, at
/// most `PICOMCP_SESSION_MAX_ALIGN`, i.e. 8: a `uint64_t` array or `malloc` memory is
/// always aligned enough).
///
/// The configuration is checked as far as possible without memory, so a bad one fails
/// here with the same status `picomcp_session_init` would return.
///
/// # Safety
/// `config` must be NULL or point to a valid `picomcp_config` whose strings are readable;
/// the out pointers must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_storage_size(
    config: *const picomcp_config,
    out_size: *mut usize,
    out_align: *mut usize,
) -> picomcp_status {
    boundary(|| {
        // SAFETY: caller contract for every pointer.
        let (c, size, align) = unsafe { (input(config)?, out(out_size)?, out(out_align)?) };
        // SAFETY: caller contract for the configuration's strings.
        let conv = unsafe { convert::config_from_c(c) }?;
        let p = plan(&conv)?;
        *size = p.total;
        *align = p.align;
        Ok(())
    })
}

/// Creates a session in memory you own — a static array, an arena, the stack — without
/// any allocation. `mem` must be `size` bytes with `size` at least what
/// `picomcp_session_storage_size` reported for this configuration, aligned to the
/// alignment it reported (8 always suffices). The configuration text is copied.
///
/// `*out` receives the session (the same address as `mem`). The memory belongs to the
/// session until `picomcp_session_deinit(*out)`: do not touch, move or free it before.
/// A client session queues its `initialize` request at once.
///
/// Errors: `PICOMCP_STATUS_MEMORY_TOO_SMALL`, `PICOMCP_STATUS_MEMORY_MISALIGNED`, or a
/// configuration status. `*out` is set to NULL on error.
///
/// # Safety
/// `mem` must be valid for writes of `size` bytes and stay valid until deinit; `config`
/// and `out` as for `picomcp_session_storage_size`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_init(
    mem: *mut c_void,
    size: usize,
    config: *const picomcp_config,
    now_ms: u64,
    out_session: *mut *mut picomcp_session,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe { init(mem, size, config, now_ms, out_session, false) }
}

/// As `picomcp_session_init`, for memory whose bytes are all zero already: `calloc`
/// memory, a static array (`.bss`), fresh `mmap` pages. The session then does not write
/// the whole block once more, so its large queues (megabytes with long lines) take no
/// resident memory until they are used, and start-up does not touch every page. Memory
/// that is not all zero is the caller's bug, as in `picomcp_session_init`'s other
/// requirements.
///
/// # Safety
/// As `picomcp_session_init`, and the first `size` bytes at `mem` must all be zero.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_init_zeroed(
    mem: *mut c_void,
    size: usize,
    config: *const picomcp_config,
    now_ms: u64,
    out_session: *mut *mut picomcp_session,
) -> picomcp_status {
    // SAFETY: caller contract, zero contents included.
    unsafe { init(mem, size, config, now_ms, out_session, true) }
}

/// The body of `picomcp_session_init` and `picomcp_session_init_zeroed`.
///
/// # Safety
/// As `picomcp_session_init`; with `zeroed`, `size` bytes of zero at `mem`.
unsafe fn init(
    mem: *mut c_void,
    size: usize,
    config: *const picomcp_config,
    now_ms: u64,
    out_session: *mut *mut picomcp_session,
    zeroed: bool,
) -> picomcp_status {
    boundary(|| {
        // SAFETY: caller contract.
        let o = unsafe { out(out_session) }?;
        *o = ptr::null_mut();
        // SAFETY: caller contract.
        let c = unsafe { input(config) }?;
        if mem.is_null() {
            return Err(picomcp_status::NullArgument);
        }
        // SAFETY: caller contract for the configuration's strings.
        let conv = unsafe { convert::config_from_c(c) }?;
        let p = plan(&conv)?;
        if !(mem as usize).is_multiple_of(p.align) {
            return Err(picomcp_status::MemoryMisaligned);
        }
        if size < p.total {
            return Err(picomcp_status::MemoryTooSmall);
        }
        // SAFETY: `mem` is non-NULL, aligned, at least `p.total` bytes (caller contract for
        // validity, lifetime and, with `zeroed`, zero contents).
        *o = unsafe { place(mem.cast(), &conv, &p, now_ms, false, zeroed) }?;
        Ok(())
    })
}

/// Ends a session created with `picomcp_session_init`. Afterwards the memory is yours
/// again, and any call with this session pointer returns
/// `PICOMCP_STATUS_INVALID_SESSION` (as long as the memory is not reused).
///
/// # Safety
/// `session` must be NULL or a pointer `picomcp_session_init` returned whose memory is
/// still valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_deinit(session: *mut picomcp_session) -> picomcp_status {
    boundary(|| {
        // SAFETY: caller contract.
        let b = unsafe { block(session) }?;
        if b.owned {
            return Err(picomcp_status::WrongRelease);
        }
        // SAFETY: `b` is a live Block; its Session is dropped exactly once here, and the
        // magic is cleared so no later call uses it.
        unsafe { ptr::drop_in_place(&mut b.session) };
        b.magic = MAGIC_DEAD;
        Ok(())
    })
}

/// Creates a session in memory the library allocates (one `malloc`-like allocation of
/// the size `picomcp_session_storage_size` reports). Release it with
/// `picomcp_session_free`. `*out` is set to NULL on error.
///
/// # Safety
/// `config` and `out` as for `picomcp_session_storage_size`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_new(
    config: *const picomcp_config,
    now_ms: u64,
    out_session: *mut *mut picomcp_session,
) -> picomcp_status {
    boundary(|| {
        // SAFETY: caller contract.
        let o = unsafe { out(out_session) }?;
        *o = ptr::null_mut();
        // SAFETY: caller contract.
        let c = unsafe { input(config) }?;
        // SAFETY: caller contract for the configuration's strings.
        let conv = unsafe { convert::config_from_c(c) }?;
        let p = plan(&conv)?;
        let layout = std::alloc::Layout::from_size_align(p.total, p.align)
            .map_err(|_| picomcp_status::InvalidArgument)?;
        // Zeroed (calloc, fresh pages for large blocks): `place` need not write it again,
        // so the queues take resident memory only as they are used.
        // SAFETY: `layout` has a non-zero size (the header alone is larger than 0).
        let mem = unsafe { std::alloc::alloc_zeroed(layout) };
        if mem.is_null() {
            return Err(picomcp_status::OutOfMemory);
        }
        // SAFETY: `mem` was just allocated, zeroed, with `p.total` bytes and `p.align`
        // alignment.
        match unsafe { place(mem, &conv, &p, now_ms, true, true) } {
            Ok(s) => {
                *o = s;
                Ok(())
            }
            Err(e) => {
                // SAFETY: allocated above with this layout; nothing else refers to it.
                unsafe { std::alloc::dealloc(mem, layout) };
                Err(e)
            }
        }
    })
}

/// Frees a session created with `picomcp_session_new`. NULL is accepted (and does
/// nothing). Every view into the session dies with it.
///
/// # Safety
/// `session` must be NULL or a pointer `picomcp_session_new` returned that was not freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_free(session: *mut picomcp_session) -> picomcp_status {
    boundary(|| {
        if session.is_null() {
            return Ok(());
        }
        // SAFETY: caller contract.
        let b = unsafe { block(session) }?;
        if !b.owned {
            return Err(picomcp_status::WrongRelease);
        }
        let layout = std::alloc::Layout::from_size_align(b.total, b.align)
            .map_err(|_| picomcp_status::InvalidSession)?;
        b.magic = MAGIC_DEAD;
        // SAFETY: a live Block from `picomcp_session_new`: drop its Session once, then free
        // the allocation with the layout it was made with. `b` is not used afterwards.
        unsafe {
            ptr::drop_in_place(&mut b.session);
            std::alloc::dealloc(session.cast(), layout);
        }
        Ok(())
    })
}

// ---------------------------------------------------------------------------------------
// Inputs
// ---------------------------------------------------------------------------------------

/// Feeds bytes read from the peer. `*out_taken` receives how many were taken: fewer than
/// `len` means the transmit or event queue is full — drain both
/// (`picomcp_session_poll_transmit`, `picomcp_session_poll_event`), then offer the rest
/// again. `bytes` may be NULL when `len` is 0.
///
/// # Safety
/// `session` must be a live session; `bytes` must point to `len` readable bytes;
/// `out_taken` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_handle_bytes(
    session: *mut picomcp_session,
    now_ms: u64,
    bytes: *const u8,
    len: usize,
    out_taken: *mut usize,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_session(session, |b| {
            let taken = out(out_taken)?;
            let data = in_bytes(bytes, len)?;
            *taken = b.session.handle_bytes(now_ms, data);
            Ok(())
        })
    }
}

/// Takes one whole message (no newline framing): what a transport that delimits
/// messages itself hands over, e.g. the body of an HTTP POST (`picomcp_endpoint`'s
/// `PICOMCP_OUTCOME_KIND_DELIVER`). `PICOMCP_STATUS_QUEUE_FULL`: nothing was taken —
/// drain the session's events and output, then offer it again.
///
/// # Safety
/// `session` must be a live session; `bytes` must point to `len` readable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_handle_message(
    session: *mut picomcp_session,
    now_ms: u64,
    bytes: *const u8,
    len: usize,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_session(session, |b| {
            let data = in_bytes(bytes, len)?;
            b.session
                .handle_message(now_ms, data)
                .map_err(|_| picomcp_status::QueueFull)
        })
    }
}

/// The peer closed its side of the stream: a final line without `\n` is processed, then
/// a `PICOMCP_EVENT_CLOSED` event is queued.
///
/// # Safety
/// `session` must be a live session.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_handle_eof(
    session: *mut picomcp_session,
    now_ms: u64,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_session(session, |b| {
            b.session.handle_eof(now_ms);
            Ok(())
        })
    }
}

/// Time has passed: expires our requests whose deadline is `now_ms` or earlier. Call it
/// when the deadline from `picomcp_session_poll_timeout` is reached.
///
/// # Safety
/// `session` must be a live session.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_handle_timeout(
    session: *mut picomcp_session,
    now_ms: u64,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_session(session, |b| {
            b.session.handle_timeout(now_ms);
            Ok(())
        })
    }
}

// ---------------------------------------------------------------------------------------
// Outputs
// ---------------------------------------------------------------------------------------

/// Copies as many whole pending lines as fit into `out` (each ends with `\n`).
/// `*out_len` receives the number of bytes written; 0 means nothing is pending.
///
/// `PICOMCP_STATUS_BUFFER_TOO_SMALL`: even the first pending line does not fit;
/// `*out_len` receives its size and nothing is consumed.
///
/// # Safety
/// `session` must be a live session; `out` must point to `cap` writable bytes (NULL only
/// with `cap` 0); `out_len` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_poll_transmit(
    session: *mut picomcp_session,
    out_buf: *mut u8,
    cap: usize,
    out_len: *mut usize,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_session(session, |b| {
            let n = out(out_len)?;
            *n = 0;
            let buf = out_bytes(out_buf, cap)?;
            match b.session.poll_transmit(buf) {
                Ok(Some(k)) => *n = k,
                Ok(None) => {}
                Err(e) => {
                    *n = e.required;
                    return Err(picomcp_status::BufferTooSmall);
                }
            }
            Ok(())
        })
    }
}

/// The pending output without copying: `*out` views the bytes waiting to be written
/// (whole lines; `len` 0 when nothing is pending), valid until the next call on the
/// session. After writing some of them, report how many with
/// `picomcp_session_advance_transmit`.
///
/// # Safety
/// `session` must be a live session; `out` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_pending_transmit(
    session: *mut picomcp_session,
    out_view: *mut picomcp_str,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_session(session, |b| {
            let o = out(out_view)?;
            let p = b.session.pending_transmit();
            *o = picomcp_str {
                ptr: p.as_ptr().cast(),
                len: p.len(),
            };
            Ok(())
        })
    }
}

/// Marks `n` bytes of `picomcp_session_pending_transmit` as written.
/// `PICOMCP_STATUS_INVALID_ARGUMENT` when `n` is more than is pending (nothing changes).
///
/// # Safety
/// `session` must be a live session.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_advance_transmit(
    session: *mut picomcp_session,
    n: usize,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_session(session, |b| {
            if n > b.session.pending_transmit().len() {
                return Err(picomcp_status::InvalidArgument);
            }
            b.session.advance_transmit(n);
            Ok(())
        })
    }
}

/// Takes the next event into `*out`; `out->kind` is `PICOMCP_EVENT_NONE` when there is
/// none. **The strings in `*out` are valid until the next call that takes this session**
/// (including the next `picomcp_session_poll_event`): read what you need, then issue
/// commands (`respond`, ...).
///
/// # Safety
/// `session` must be a live session; `out` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_poll_event(
    session: *mut picomcp_session,
    out_event: *mut picomcp_event,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_session(session, |b| {
            let o = out(out_event)?;
            *o = picomcp_event::EMPTY;
            let Block {
                session, scratch, ..
            } = b;
            if let Some(ev) = session.poll_event() {
                *o = convert::event_to_c(ev, scratch);
            }
            Ok(())
        })
    }
}

/// `*out` = true when `picomcp_session_poll_event` would return an event.
///
/// # Safety
/// `session` must be a live session; `out` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_has_events(
    session: *mut picomcp_session,
    out_has: *mut bool,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_session(session, |b| {
            *out(out_has)? = b.session.has_events();
            Ok(())
        })
    }
}

/// `*out_deadline_ms` = when `picomcp_session_handle_timeout` should next be called (same
/// clock as the `now_ms` you pass in), or `PICOMCP_NO_DEADLINE` when nothing is pending.
///
/// # Safety
/// `session` must be a live session; `out_deadline_ms` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_poll_timeout(
    session: *mut picomcp_session,
    out_deadline_ms: *mut u64,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_session(session, |b| {
            *out(out_deadline_ms)? = b.session.poll_timeout().unwrap_or(PICOMCP_NO_DEADLINE);
            Ok(())
        })
    }
}

// ---------------------------------------------------------------------------------------
// Commands
// ---------------------------------------------------------------------------------------

/// Answers the peer's request `id` (from a `PICOMCP_EVENT_REQUEST`) with `result_json`,
/// the text of a JSON object. The text is copied into the transmit queue.
///
/// A request the peer cancelled is finished silently (`PICOMCP_STATUS_OK`, nothing sent).
/// Answering twice, or with a stale handle: `PICOMCP_STATUS_UNKNOWN_REQUEST`. Transmit
/// queue full: `PICOMCP_STATUS_QUEUE_FULL` (drain it and retry).
///
/// The answering functions (`respond`, `respond_with`, `respond_error`,
/// `respond_missing_capability`, `respond_input_required`) are the one exception to "views
/// die at the next call": they leave the current event's views valid, so `result_json`
/// may be (or be built from) the request's params.
///
/// # Safety
/// `session` must be a live session; `result_json` must be readable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_respond(
    session: *mut picomcp_session,
    id: u32,
    result_json: picomcp_str,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_session(session, |b| {
            let result = json_arg(result_json)?;
            b.session
                .respond(InboundId::from_bits(id), result)
                .map_err(convert::respond_error)
        })
    }
}

/// The callback of `picomcp_session_respond_with`: writes one JSON object with the
/// `picomcp_writer_*` functions on `w`.
pub type picomcp_write_fn = Option<unsafe extern "C" fn(w: *mut picomcp_writer, ctx: *mut c_void)>;

/// Answers the peer's request `id` with a result written by `write` **directly into the
/// transmit queue**: no result buffer, no copy, no second validation. `write(w, ctx)` must
/// write exactly one JSON object with the `picomcp_writer_*` functions on `w` (not
/// `picomcp_writer_init` or `_finish`) and nothing else; it may be called twice (again
/// after the queue was compacted), so it must write the same object each time and have no
/// other effects. It must not call functions that take the session.
///
/// A callback that does not write one complete object (or whose writer call failed):
/// `PICOMCP_STATUS_WRITER_STATE`, and nothing is sent. Other statuses as
/// `picomcp_session_respond` (`PICOMCP_STATUS_QUEUE_FULL`: drain and retry). The views of
/// the current event stay valid during the callback (see `picomcp_session_respond`).
///
/// # Safety
/// `session` must be a live session; `write` a function as described; `ctx` is passed to
/// it unchanged.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_respond_with(
    session: *mut picomcp_session,
    id: u32,
    write: picomcp_write_fn,
    ctx: *mut c_void,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_session(session, |b| {
            let write = write.ok_or(picomcp_status::NullArgument)?;
            let failed = core::cell::Cell::new(0i32);
            b.busy = true;
            let r = b.session.respond_with(InboundId::from_bits(id), |jw| {
                let st = write_through(jw, write, ctx);
                if st != 0 {
                    failed.set(st);
                }
            });
            b.busy = false;
            match failed.get() {
                0 => r.map_err(convert::respond_error),
                st => Err(picomcp_status::from_i32(st).unwrap_or(picomcp_status::WriterState)),
            }
        })
    }
}

/// Answers the peer's request `id` with a JSON-RPC error: `code` (e.g. -32602),
/// `message` (plain text; it is escaped for you) and optional `data_json` (`ptr == NULL`:
/// none). Statuses as `picomcp_session_respond`.
///
/// # Safety
/// `session` must be a live session; the strings must be readable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_respond_error(
    session: *mut picomcp_session,
    id: u32,
    code: i32,
    message: picomcp_str,
    data_json: picomcp_str,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_session(session, |b| {
            let message = str_arg(message)?;
            let data = opt_json_arg(data_json)?;
            b.session
                .respond_error(InboundId::from_bits(id), ErrorCode(code), message, data)
                .map_err(convert::respond_error)
        })
    }
}

/// Sends a request to the peer. `method` is the wire name (e.g. `"sampling/createMessage"`);
/// `params_json` a JSON object or absent (`ptr == NULL`); `options` NULL for defaults.
/// `*out_id` receives the handle the response event will carry.
///
/// # Safety
/// `session` must be a live session; the strings must be readable; `options` NULL or
/// readable; `out_id` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_send_request(
    session: *mut picomcp_session,
    now_ms: u64,
    method: picomcp_str,
    params_json: picomcp_str,
    options: *const picomcp_request_options,
    out_id: *mut u32,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_session(session, |b| {
            let id = out(out_id)?;
            let m = convert::method_from_name(str_arg(method)?)?;
            let params = opt_json_arg(params_json)?;
            let o = options.as_ref().copied().unwrap_or_default();
            // The update keeps this compiling when the core adds options.
            #[allow(clippy::needless_update)]
            let opts = RequestOptions {
                timeout_ms: (o.timeout_ms != 0).then_some(o.timeout_ms),
                progress: o.progress,
                reset_timeout_on_progress: o.reset_timeout_on_progress,
                max_total_ms: (o.max_total_ms != 0).then_some(o.max_total_ms),
                ..RequestOptions::default()
            };
            let h = b
                .session
                .send_request(now_ms, m, params, opts)
                .map_err(convert::send_error)?;
            *id = h.to_bits();
            Ok(())
        })
    }
}

/// Sends a notification (e.g. `"notifications/tools/list_changed"`), checked against the
/// negotiated capabilities. `params_json`: a JSON object or absent.
///
/// # Safety
/// `session` must be a live session; the strings must be readable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_send_notification(
    session: *mut picomcp_session,
    method: picomcp_str,
    params_json: picomcp_str,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_session(session, |b| {
            let m = convert::method_from_name(str_arg(method)?)?;
            let params = opt_json_arg(params_json)?;
            b.session
                .send_notification(m, params)
                .map_err(convert::send_error)
        })
    }
}

/// Cancels our request `id`: queues `notifications/cancelled` (with `reason` unless
/// absent); a late response is dropped.
///
/// # Safety
/// `session` must be a live session; `reason` must be readable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_cancel(
    session: *mut picomcp_session,
    id: u32,
    reason: picomcp_str,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_session(session, |b| {
            let reason = opt_str_arg(reason)?;
            b.session
                .cancel(OutboundId::from_bits(id), reason)
                .map_err(convert::send_error)
        })
    }
}

/// Reports progress on the peer's request `id` (which must carry a progress token,
/// else `PICOMCP_STATUS_NO_PROGRESS_TOKEN`). `progress` must be finite and increase;
/// `total` NaN for none, else finite; `message` absent for none (sent from 2025-03-26 on).
///
/// # Safety
/// `session` must be a live session; `message` must be readable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_progress(
    session: *mut picomcp_session,
    id: u32,
    progress: f64,
    total: f64,
    message: picomcp_str,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_session(session, |b| {
            let message = opt_str_arg(message)?;
            let total = (!total.is_nan()).then_some(total);
            b.session
                .progress(InboundId::from_bits(id), progress, total, message)
                .map_err(convert::send_error)
        })
    }
}

/// Server: sends `notifications/message` at `level` (a `picomcp_log_level`) with
/// `data_json` (any JSON value) and optional `logger`, unless the client set a higher
/// level with `logging/setLevel`. `*out_sent` (may be NULL) says whether it was sent.
/// Without the `logging` capability: `PICOMCP_STATUS_NOT_NEGOTIATED`. In the 2026-07-28
/// era log messages belong to a request: this sends nothing (use
/// `picomcp_session_log_for`).
///
/// # Safety
/// `session` must be a live session; the strings must be readable; `out_sent` NULL or
/// writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_log(
    session: *mut picomcp_session,
    level: u32,
    logger: picomcp_str,
    data_json: picomcp_str,
    out_sent: *mut bool,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_session(session, |b| {
            let level = convert::log_level_from_c(level)?;
            let logger = opt_str_arg(logger)?;
            let data = json_arg(data_json)?;
            let sent = b
                .session
                .log(level, logger, data)
                .map_err(convert::send_error)?;
            if let Some(o) = out_sent.as_mut() {
                *o = sent;
            }
            Ok(())
        })
    }
}

/// Like `picomcp_session_log` with `text` (plain UTF-8, escaped for you) as the data:
/// the common case of a log line. The escaped text must fit `max_line` bytes, else
/// `PICOMCP_STATUS_BUFFER_TOO_SMALL` (use `picomcp_session_log` for longer data).
///
/// # Safety
/// As `picomcp_session_log`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_log_text(
    session: *mut picomcp_session,
    level: u32,
    logger: picomcp_str,
    text: picomcp_str,
    out_sent: *mut bool,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe { log_text(session, None, level, logger, text, out_sent) }
}

/// Server: a log message about the peer's request `id` (for example progress of a tool
/// call). 2026-07-28: sent only when that request asked for log messages (its `_meta`
/// log level) at `level` or below. Legacy era: as `picomcp_session_log`. `*out_sent` (may
/// be NULL) says whether it was sent. A finished request: `PICOMCP_STATUS_UNKNOWN_REQUEST`.
///
/// # Safety
/// As `picomcp_session_log`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_log_for(
    session: *mut picomcp_session,
    id: u32,
    level: u32,
    logger: picomcp_str,
    data_json: picomcp_str,
    out_sent: *mut bool,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_session(session, |b| {
            let level = convert::log_level_from_c(level)?;
            let logger = opt_str_arg(logger)?;
            let data = json_arg(data_json)?;
            let sent = b
                .session
                .log_for(InboundId::from_bits(id), level, logger, data)
                .map_err(convert::send_error)?;
            if let Some(o) = out_sent.as_mut() {
                *o = sent;
            }
            Ok(())
        })
    }
}

/// `picomcp_session_log_for` with plain `text` as the data.
///
/// # Safety
/// As `picomcp_session_log`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_log_for_text(
    session: *mut picomcp_session,
    id: u32,
    level: u32,
    logger: picomcp_str,
    text: picomcp_str,
    out_sent: *mut bool,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe { log_text(session, Some(id), level, logger, text, out_sent) }
}

/// `log` / `log_for` with text quoted as a JSON string in the scratch area (a whole line
/// fits; longer text could not be sent anyway).
///
/// # Safety
/// As `picomcp_session_log`.
unsafe fn log_text(
    session: *mut picomcp_session,
    id: Option<u32>,
    level: u32,
    logger: picomcp_str,
    text: picomcp_str,
    out_sent: *mut bool,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_session(session, |b| {
            let level = convert::log_level_from_c(level)?;
            let logger = opt_str_arg(logger)?;
            let text = str_arg(text)?;
            let Block {
                session, scratch, ..
            } = b;
            let mut w = JsonWriter::new(scratch);
            w.string(text);
            let n = w.finish().map_err(|_| picomcp_status::BufferTooSmall)?;
            let quoted =
                core::str::from_utf8(&scratch[..n]).map_err(|_| picomcp_status::InvalidUtf8)?;
            let data = Json::new(quoted).map_err(|_| picomcp_status::InvalidJson)?;
            let sent = match id {
                None => session.log(level, logger, data),
                Some(id) => session.log_for(InboundId::from_bits(id), level, logger, data),
            }
            .map_err(convert::send_error)?;
            if let Some(o) = out_sent.as_mut() {
                *o = sent;
            }
            Ok(())
        })
    }
}

/// Announces a change (a `picomcp_change`; `uri` for `PICOMCP_CHANGE_RESOURCE_UPDATED`,
/// else absent). The session delivers it the right way for the era, or not at all when
/// nobody asked for it; `*out_count` (may be NULL) = notifications queued. Without the
/// matching capability flag: `PICOMCP_STATUS_NOT_NEGOTIATED`.
///
/// # Safety
/// `session` must be a live session; `uri` readable; `out_count` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_notify(
    session: *mut picomcp_session,
    change: u32,
    uri: picomcp_str,
    out_count: *mut usize,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_session(session, |b| {
            let uri = opt_str_arg(uri)?;
            let c = convert::change_from_c(change, uri)?;
            let n = b.session.notify(c).map_err(convert::send_error)?;
            if let Some(o) = out_count.as_mut() {
                *o = n;
            }
            Ok(())
        })
    }
}

/// `*out_subscribed` = true when the peer subscribed to `uri` (legacy
/// `resources/subscribe`, or a 2026-07-28 `subscriptions/listen` naming it), so that
/// `picomcp_session_notify(PICOMCP_CHANGE_RESOURCE_UPDATED, uri)` would send something.
/// A host that changes a resource on a timer needs the timer only while this holds (and
/// can otherwise wait for input without a deadline: a blocking read, no `poll`).
///
/// # Safety
/// `session` must be a live session; `uri` readable; `out_subscribed` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_is_subscribed(
    session: *mut picomcp_session,
    uri: picomcp_str,
    out_subscribed: *mut bool,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_session_views(session, |b| {
            let uri = str_arg(uri)?;
            *out(out_subscribed)? = b.session.is_subscribed(uri);
            Ok(())
        })
    }
}

/// 2026-07-28: answers the peer's request `id` with "missing required client capability"
/// (-32021). `required_json` is a capabilities object naming what is missing, e.g.
/// `{"elicitation":{}}`. Statuses as `picomcp_session_respond`.
///
/// # Safety
/// `session` must be a live session; `required_json` readable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_respond_missing_capability(
    session: *mut picomcp_session,
    id: u32,
    required_json: picomcp_str,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_session(session, |b| {
            let required = json_arg(required_json)?;
            b.session
                .respond_missing_capability(InboundId::from_bits(id), required)
                .map_err(convert::respond_error)
        })
    }
}

/// 2026-07-28: answers `tools/call`, `prompts/get` or `resources/read` with an
/// `input_required` result (MRTR). `input_requests_json` maps keys to
/// `{"method":...,"params":...}` (or is absent); `request_state` is opaque text the
/// client echoes back (or absent); at least one must be given. Not allowed for the request:
/// `PICOMCP_STATUS_INPUT_NOT_ALLOWED`.
///
/// # Safety
/// `session` must be a live session; the strings readable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_respond_input_required(
    session: *mut picomcp_session,
    id: u32,
    input_requests_json: picomcp_str,
    request_state: picomcp_str,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_session(session, |b| {
            let requests = opt_json_arg(input_requests_json)?;
            let state = opt_str_arg(request_state)?;
            b.session
                .respond_input_required(InboundId::from_bits(id), requests, state)
                .map_err(convert::respond_error)
        })
    }
}

/// What the session knows about the peer's open request `id` (era, the request's own
/// client capabilities and log level in 2026-07-28, progress token, cancelled).
/// `PICOMCP_STATUS_UNKNOWN_REQUEST` when it is not open.
///
/// # Safety
/// `session` must be a live session; `out_info` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_request_info(
    session: *mut picomcp_session,
    id: u32,
    out_info: *mut picomcp_request_info,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_session(session, |b| {
            let o = out(out_info)?;
            let info = b
                .session
                .request_info(InboundId::from_bits(id))
                .ok_or(picomcp_status::UnknownRequest)?;
            *o = convert::request_info_to_c(info);
            Ok(())
        })
    }
}

/// Client, 2026-07-28: answers a `PICOMCP_EVENT_INPUT_REQUIRED` for our request `id`.
/// `responses_json` maps each key of `inputRequests` to its answer; the session re-issues
/// the request (same handle) with them.
///
/// # Safety
/// `session` must be a live session; `responses_json` readable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_answer_input(
    session: *mut picomcp_session,
    now_ms: u64,
    id: u32,
    responses_json: picomcp_str,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_session(session, |b| {
            let responses = json_arg(responses_json)?;
            b.session
                .answer_input(now_ms, OutboundId::from_bits(id), responses)
                .map_err(convert::send_error)
        })
    }
}

/// Client, 2026-07-28: opens a `subscriptions/listen` stream with the filter
/// `notifications_json` (e.g. `{"toolsListChanged":true}`). `*out_id` = its handle; the
/// acknowledgement arrives as `PICOMCP_EVENT_SUBSCRIPTION_ACKNOWLEDGED`, then
/// notifications; `picomcp_session_cancel` ends it.
///
/// # Safety
/// `session` must be a live session; `notifications_json` readable; `out_id` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_listen(
    session: *mut picomcp_session,
    notifications_json: picomcp_str,
    out_id: *mut u32,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_session(session, |b| {
            let o = out(out_id)?;
            let filter = json_arg(notifications_json)?;
            *o = b
                .session
                .listen(filter)
                .map_err(convert::send_error)?
                .to_bits();
            Ok(())
        })
    }
}

/// Ends the session locally: a `PICOMCP_EVENT_CLOSED` (`PICOMCP_CLOSE_REASON_LOCAL`) event
/// is queued and later input is ignored. The memory is still the session's until
/// deinit/free.
///
/// # Safety
/// `session` must be a live session.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_close(session: *mut picomcp_session) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_session(session, |b| {
            b.session.close();
            Ok(())
        })
    }
}

// ---------------------------------------------------------------------------------------
// Getters
// ---------------------------------------------------------------------------------------

/// Stores a getter's value.
///
/// # Safety
/// `p` must be NULL or writable.
unsafe fn set<T>(p: *mut T, v: T) -> FfiResult {
    // SAFETY: forwarded caller contract.
    *unsafe { out(p) }? = v;
    Ok(())
}

fn stats_to_c(s: picomcp_core::session::Stats) -> picomcp_stats {
    picomcp_stats {
        lines_in: s.lines_in,
        messages_out: s.messages_out,
        violations: s.violations,
    }
}

/// `*out_value` = our role (a `picomcp_role`).
///
/// # Safety
/// `session` must be a live session; `out_value` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_role(
    session: *mut picomcp_session,
    out_value: *mut u32,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_session(session, |b| {
            set(out_value, convert::role_to_c(b.session.role()))
        })
    }
}

/// `*out_value` = the lifecycle phase (a `picomcp_phase`).
///
/// # Safety
/// `session` must be a live session; `out_value` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_phase(
    session: *mut picomcp_session,
    out_value: *mut u32,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_session(session, |b| {
            set(out_value, convert::phase_to_c(b.session.phase()))
        })
    }
}

/// `*out_value` = the negotiated revision (a `picomcp_version` bit), or 0 before agreement.
///
/// # Safety
/// `session` must be a live session; `out_value` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_version(
    session: *mut picomcp_session,
    out_value: *mut u32,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_session(session, |b| {
            set(
                out_value,
                b.session.version().map_or(0, convert::version_to_c),
            )
        })
    }
}

/// `*out_value` = the level the client set with `logging/setLevel` (a
/// `picomcp_log_level`), or `PICOMCP_LOG_LEVEL_NONE`.
///
/// # Safety
/// `session` must be a live session; `out_value` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_log_level(
    session: *mut picomcp_session,
    out_value: *mut u32,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_session(session, |b| {
            set(out_value, convert::log_level_to_c(b.session.log_level()))
        })
    }
}

/// `*out_value` = our capability flags (`PICOMCP_CAP_*`).
///
/// # Safety
/// `session` must be a live session; `out_value` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_capabilities(
    session: *mut picomcp_session,
    out_value: *mut u32,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe { with_session(session, |b| set(out_value, b.session.capabilities().0)) }
}

/// `*out_value` = the peer's capability flags (`PICOMCP_CAP_*`; 0 before the handshake).
///
/// # Safety
/// `session` must be a live session; `out_value` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_peer_capabilities(
    session: *mut picomcp_session,
    out_value: *mut u32,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe { with_session(session, |b| set(out_value, b.session.peer_capabilities().0)) }
}

/// `*out_value` = the connection's era (a `picomcp_era`).
///
/// # Safety
/// `session` must be a live session; `out_value` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_era(
    session: *mut picomcp_session,
    out_value: *mut u32,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_session(session, |b| {
            set(out_value, convert::era_to_c(b.session.era()))
        })
    }
}

/// `*out_value` = the session's counters.
///
/// # Safety
/// `session` must be a live session; `out_value` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_stats(
    session: *mut picomcp_session,
    out_value: *mut picomcp_stats,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe { with_session(session, |b| set(out_value, stats_to_c(b.session.stats()))) }
}

/// `*out_open` = true when a response to the peer's request `id` is still owed.
///
/// # Safety
/// `session` must be a live session; `out_open` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_session_is_open(
    session: *mut picomcp_session,
    id: u32,
    out_open: *mut bool,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_session(session, |b| {
            *out(out_open)? = b.session.is_open(InboundId::from_bits(id));
            Ok(())
        })
    }
}
