//! The slot table: one entry per session slot of the host's pool. A slot is free, holds
//! a legacy session (minted id, last activity, negotiated revision), or is lent to one
//! 2026-07-28 POST for its life.

use crate::protocol::ProtocolVersion;

/// Length of a session id: 32 lowercase hex digits of 16 random bytes (128 bits).
pub const SESSION_ID_LEN: usize = 32;

/// Random bytes the host supplies for a session id (≥ 128 bits).
pub const ENTROPY_LEN: usize = 16;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SlotState {
    Free,
    /// `initialize` delivered, its result not seen yet.
    Initializing,
    /// A legacy session with an id.
    Legacy,
    /// Lent to one 2026-07-28 request.
    Stateless,
}

/// One entry of the slot table.
#[derive(Clone, Copy, Debug)]
pub struct SlotEntry {
    pub(crate) state: SlotState,
    pub(crate) id: [u8; SESSION_ID_LEN],
    pub(crate) last: u64,
    pub(crate) version: Option<ProtocolVersion>,
    /// Any request or notification came after `initialize`: evicted only after every
    /// unused session.
    pub(crate) used: bool,
}

impl SlotEntry {
    /// A free entry.
    pub const EMPTY: SlotEntry = SlotEntry {
        state: SlotState::Free,
        id: [0; SESSION_ID_LEN],
        last: 0,
        version: None,
        used: false,
    };

    pub(crate) fn id_str(&self) -> &str {
        core::str::from_utf8(&self.id).unwrap_or("")
    }
}

/// 16 bytes as 32 lowercase hex digits (visible ASCII, as the spec requires).
pub(crate) fn mint(entropy: &[u8; ENTROPY_LEN]) -> [u8; SESSION_ID_LEN] {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut out = [0u8; SESSION_ID_LEN];
    for (i, b) in entropy.iter().enumerate() {
        out[2 * i] = HEX[(b >> 4) as usize];
        out[2 * i + 1] = HEX[(b & 15) as usize];
    }
    out
}

/// Compares a presented id with a stored one without an early exit on the first
/// differing byte (an id is routing, not a secret, but costs nothing to keep flat).
pub(crate) fn same_id(presented: &[u8], stored: &[u8; SESSION_ID_LEN]) -> bool {
    if presented.len() != SESSION_ID_LEN {
        return false;
    }
    presented
        .iter()
        .zip(stored.iter())
        .fold(0u8, |acc, (a, b)| acc | (a ^ b))
        == 0
}
