//! The slot table: one entry per session slot of the host's pool. A slot is free, holds
//! a legacy session (minted id, last activity, negotiated revision), or is lent to one
//! 2026-07-28 POST for its life.

use crate::http::auth::{OWNER_LEN, OwnerKey};
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
    /// Under authorization, the principal that sent `initialize`: only it may use the
    /// session (docs/DESIGN.md, "Authorization").
    pub(crate) owner: Option<OwnerKey>,
}

impl SlotEntry {
    /// A free entry.
    pub const EMPTY: SlotEntry = SlotEntry {
        state: SlotState::Free,
        id: [0; SESSION_ID_LEN],
        last: 0,
        version: None,
        used: false,
        owner: None,
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

/// A legacy session as a store shared by several processes of one server keeps it
/// (docs/DESIGN.md, "Shared stores"): what another process needs to recognise the id
/// and take the session over. Plain data with a fixed byte encoding
/// ([`encode`](Self::encode)), so any key-value store can hold it under its id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SessionRecord {
    /// The `Mcp-Session-Id`.
    pub id: [u8; SESSION_ID_LEN],
    /// The negotiated revision.
    pub version: Option<ProtocolVersion>,
    /// Something came after `initialize` (the session is evicted after unused ones).
    pub used: bool,
    /// Under authorization, the principal the session belongs to
    /// ([`Principal::owner_key`](crate::http::auth::Principal::owner_key)).
    pub owner: Option<OwnerKey>,
}

impl SessionRecord {
    /// Bytes of [`encode`](Self::encode): the id, the revision (empty when unknown, 10
    /// bytes wide), one byte for `used`, the owner in hex (spaces when none).
    pub const ENCODED_LEN: usize = SESSION_ID_LEN + 10 + 1 + 2 * OWNER_LEN;

    /// Where `used` is in [`encode`](Self::encode)'s bytes.
    const USED_AT: usize = SESSION_ID_LEN + 10;

    /// The record as bytes.
    pub fn encode(&self) -> [u8; Self::ENCODED_LEN] {
        let mut out = [b' '; Self::ENCODED_LEN];
        out[..SESSION_ID_LEN].copy_from_slice(&self.id);
        if let Some(v) = self.version {
            let v = v.as_str().as_bytes();
            out[SESSION_ID_LEN..SESSION_ID_LEN + v.len()].copy_from_slice(v);
        }
        out[Self::USED_AT] = if self.used { b'1' } else { b'0' };
        if let Some(OwnerKey(key)) = self.owner {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            for (i, b) in key.iter().enumerate() {
                out[Self::USED_AT + 1 + 2 * i] = HEX[(b >> 4) as usize];
                out[Self::USED_AT + 2 + 2 * i] = HEX[(b & 15) as usize];
            }
        }
        out
    }

    /// A record from [`encode`](Self::encode)'s bytes; `None` when they are not one
    /// (another store's data, a revision this build does not know).
    pub fn decode(bytes: &[u8]) -> Option<Self> {
        if bytes.len() != Self::ENCODED_LEN {
            return None;
        }
        let mut id = [0u8; SESSION_ID_LEN];
        id.copy_from_slice(&bytes[..SESSION_ID_LEN]);
        if !id.iter().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        let v = core::str::from_utf8(&bytes[SESSION_ID_LEN..Self::USED_AT])
            .ok()?
            .trim();
        let version = if v.is_empty() {
            None
        } else {
            Some(ProtocolVersion::parse(v)?)
        };
        let used = match bytes[Self::USED_AT] {
            b'1' => true,
            b'0' => false,
            _ => return None,
        };
        let hex = &bytes[Self::USED_AT + 1..];
        let owner = if hex.iter().all(|&b| b == b' ') {
            None
        } else {
            let digit = |b: u8| (b as char).to_digit(16).map(|d| d as u8);
            let mut key = [0u8; OWNER_LEN];
            for (i, k) in key.iter_mut().enumerate() {
                *k = digit(hex[2 * i])? << 4 | digit(hex[2 * i + 1])?;
            }
            Some(OwnerKey(key))
        };
        Some(SessionRecord {
            id,
            version,
            used,
            owner,
        })
    }
}

/// No room for one more record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StoreFull;

/// The legacy session table seen from outside the endpoint: records by id. The
/// endpoint's own table (bounded, in caller memory) is the default and needs nothing of
/// this; a deployment that spreads one server over several processes keeps a second
/// table in a shared store (Redis, a database) and the host copies records between the
/// two: [`Endpoint::session_record`](super::Endpoint::session_record) after a session
/// starts, [`Endpoint::adopt_session`](super::Endpoint::adopt_session) when a request
/// names an id this process does not know. The core calls no store itself (no I/O):
/// the host drives it, with whatever I/O its store needs, around `handle_request`.
///
/// `[Option<SessionRecord>]` implements it in caller memory: bounded, no heap (a
/// reference and a store for tests).
pub trait SessionStore {
    /// The record of session `id`, if the store has it.
    fn lookup(&self, id: &[u8]) -> Option<SessionRecord>;
    /// Stores `record`, replacing the one with its id.
    ///
    /// # Errors
    /// [`StoreFull`] when there is no room.
    fn put(&mut self, record: SessionRecord) -> Result<(), StoreFull>;
    /// Forgets session `id` (DELETE, expiry); false when it was not there.
    fn remove(&mut self, id: &[u8]) -> bool;
}

impl SessionStore for [Option<SessionRecord>] {
    fn lookup(&self, id: &[u8]) -> Option<SessionRecord> {
        self.iter().flatten().find(|r| same_id(id, &r.id)).copied()
    }

    fn put(&mut self, record: SessionRecord) -> Result<(), StoreFull> {
        let at = self
            .iter()
            .position(|r| r.is_some_and(|r| r.id == record.id))
            .or_else(|| self.iter().position(Option::is_none))
            .ok_or(StoreFull)?;
        self[at] = Some(record);
        Ok(())
    }

    fn remove(&mut self, id: &[u8]) -> bool {
        match self
            .iter()
            .position(|r| r.is_some_and(|r| same_id(id, &r.id)))
        {
            Some(at) => {
                self[at] = None;
                true
            }
            None => false,
        }
    }
}

/// Why [`Endpoint::adopt_session`](super::Endpoint::adopt_session) refused a record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AdoptError {
    /// Every slot serves a session with a connected stream.
    NoSlot,
    /// The record's revision is not a legacy one this endpoint serves.
    Version,
}

impl super::Endpoint<'_> {
    /// The record of the live legacy session `id` (for a shared store), if this endpoint
    /// has it. Read it once the `initialize` answer carrying the id has gone out.
    pub fn session_record(&self, id: &[u8]) -> Option<SessionRecord> {
        self.slots
            .iter()
            .find(|e| e.state == SlotState::Legacy && same_id(id, &e.id))
            .map(|e| SessionRecord {
                id: e.id,
                version: e.version,
                used: e.used,
                owner: e.owner,
            })
    }

    /// Takes over a session another process started (its record from a shared store):
    /// the id is then known here, and the slot it got is returned. Before serving the
    /// next request there, the host starts a fresh `Session` in that slot and brings it
    /// to the recorded state (it replays the client's `initialize` and
    /// `notifications/initialized`, which it keeps beside the record, discarding the
    /// output); what lived only in the other process (requests in flight,
    /// subscriptions, undelivered events) is not taken over. A slot is found as for a
    /// new session (free, expired, else the least recently used without a reader). An
    /// id already known keeps its slot.
    ///
    /// # Errors
    /// [`AdoptError`] when no slot can be had or the revision is not served.
    pub fn adopt_session(&mut self, now: u64, record: &SessionRecord) -> Result<usize, AdoptError> {
        if let Some(v) = record.version
            && !(v.is_legacy() && self.config.versions.contains(v))
        {
            return Err(AdoptError::Version);
        }
        if let Some(slot) = self
            .slots
            .iter()
            .position(|e| e.state == SlotState::Legacy && e.id == record.id)
        {
            return Ok(slot);
        }
        let slot = self.allocate_slot(now).ok_or(AdoptError::NoSlot)?;
        self.slots[slot] = SlotEntry {
            state: SlotState::Legacy,
            id: record.id,
            last: now,
            version: record.version,
            used: record.used,
            owner: record.owner,
        };
        Ok(slot)
    }
}
