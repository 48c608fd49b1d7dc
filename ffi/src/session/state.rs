//! A session's state: ending it locally (`picomcp_session_close`) and the getters (role,
//! phase, negotiated revision and era, capabilities, log level, counters, whether it is
//! open). Getters write through an out pointer and return a status like every call.

use picomcp_core::session::InboundId;

use crate::boundary::{FfiResult, out};
use crate::convert;
use crate::status::picomcp_status;
use crate::types::*;

use super::{picomcp_session, with_session};

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
