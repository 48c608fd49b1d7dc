//! Where each region of a session block lies (`Plan`, computed from a checked
//! configuration) and how a session is built in a block of memory (`place`): the
//! arithmetic behind `picomcp_session_storage_size` and the placement behind
//! `picomcp_session_init`, `_init_zeroed` and `_new`.

use core::mem::{align_of, size_of};
use core::ptr;

use picomcp_core::session::{
    EventSlot, InboundSlot, OutboundSlot, Session, Slice, Storage, ToolPin,
};

use crate::boundary::FfiResult;
use crate::convert::{self, Converted};
use crate::status::picomcp_status;

use super::{Block, GOT, MAGIC_LIVE, picomcp_session};

/// Where each region of a session block starts.
pub(super) struct Plan {
    inbound: usize,
    outbound: usize,
    event_slots: usize,
    pins: usize,
    rx: usize,
    tx: usize,
    events: usize,
    info: usize,
    scratch: usize,
    /// Bytes of the whole block.
    pub(super) total: usize,
    /// Alignment of the block.
    pub(super) align: usize,
}

pub(super) fn plan(c: &Converted<'_>) -> FfiResult<Plan> {
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
pub(super) unsafe fn place(
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
