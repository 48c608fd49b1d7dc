//! Where a connection is in its life: one enum, and every transition of it (h11's rule:
//! all transitions live in one file). The public [`Phase`], [`Era`] and negotiated
//! version are derived from it, so impossible combinations (the modern era while
//! awaiting `notifications/initialized`, a probe id after the handshake) cannot be
//! represented.
//!
//! ```text
//! server:  Waiting{legacy} --initialize--> AwaitingInitialized --initialized--> Operating(v)
//!          Waiting{legacy: false} --first modern request--> Operating(2026-07-28)
//! client:  Probing --result--> Operating(2026-07-28)
//!          Probing --error/timeout--> Initializing --result--> Operating(v)
//! any:     --eof / close / handshake failure--> Closed
//! ```

use super::types::{CloseReason, Phase};
use crate::protocol::ProtocolVersion;

/// Which era a connection speaks; latched by the first message that decides it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Era {
    /// Nothing decided yet (a `server/discover` probe does not decide).
    Opening,
    /// The `initialize` handshake (2024-11-05 … 2025-11-25).
    Legacy,
    /// Stateless 2026-07-28.
    Modern,
}

/// The lifecycle state. Operating in the modern era is `Operating` with a modern version.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Lifecycle {
    /// Server: no handshake yet. `legacy` once claim-less traffic (a `ping` before
    /// `initialize`) latched the legacy era.
    Waiting { legacy: bool },
    /// Client: `server/discover` sent with wire id `id`; fall back at `deadline`.
    Probing { id: u64, deadline: u64 },
    /// Client: `initialize` sent with wire id `id`.
    Initializing { id: u64, deadline: Option<u64> },
    /// Server: `initialize` answered with `version`; waiting for
    /// `notifications/initialized`.
    AwaitingInitialized { version: ProtocolVersion },
    /// Normal operation under `version` (the era follows from it).
    Operating { version: ProtocolVersion },
    /// Over; the era and version it had are kept for the getters.
    Closed {
        era: Era,
        version: Option<ProtocolVersion>,
        reason: CloseReason,
    },
}

/// What a lapsed handshake deadline means.
pub(crate) enum Lapsed {
    /// The probe went unanswered: fall back to `initialize`.
    Probe,
    /// `initialize` went unanswered: close.
    Initialize,
}

impl Lifecycle {
    /// A server, waiting for the first message.
    pub(crate) const SERVER: Lifecycle = Lifecycle::Waiting { legacy: false };

    // ---- derived views ----

    pub(crate) fn phase(&self) -> Phase {
        match self {
            Lifecycle::Waiting { .. } | Lifecycle::Probing { .. } => Phase::Initializing,
            Lifecycle::Initializing { .. } => Phase::Initializing,
            Lifecycle::AwaitingInitialized { .. } => Phase::AwaitingInitialized,
            Lifecycle::Operating { .. } => Phase::Operating,
            Lifecycle::Closed { .. } => Phase::Closed,
        }
    }

    pub(crate) fn era(&self) -> Era {
        match *self {
            Lifecycle::Waiting { legacy: false } | Lifecycle::Probing { .. } => Era::Opening,
            Lifecycle::Waiting { legacy: true }
            | Lifecycle::Initializing { .. }
            | Lifecycle::AwaitingInitialized { .. } => Era::Legacy,
            Lifecycle::Operating { version } if version.is_legacy() => Era::Legacy,
            Lifecycle::Operating { .. } => Era::Modern,
            Lifecycle::Closed { era, .. } => era,
        }
    }

    pub(crate) fn version(&self) -> Option<ProtocolVersion> {
        match *self {
            Lifecycle::AwaitingInitialized { version } | Lifecycle::Operating { version } => {
                Some(version)
            }
            Lifecycle::Closed { version, .. } => version,
            _ => None,
        }
    }

    pub(crate) fn is_closed(&self) -> bool {
        matches!(self, Lifecycle::Closed { .. })
    }

    pub(crate) fn is_operating(&self) -> bool {
        matches!(self, Lifecycle::Operating { .. })
    }

    /// The legacy era is latched (or the connection is operating in it).
    pub(crate) fn is_legacy(&self) -> bool {
        // (A constant `false` without the `legacy` feature: its paths fold away.)
        cfg!(feature = "legacy") && self.era() == Era::Legacy
    }

    /// Operating (or closed) in the modern era.
    pub(crate) fn is_modern(&self) -> bool {
        // (A constant `false` without the `modern` feature: its paths fold away.)
        cfg!(feature = "modern") && self.era() == Era::Modern
    }

    /// Client: the wire id of our pending `server/discover`.
    pub(crate) fn probe_id(&self) -> Option<u64> {
        match *self {
            Lifecycle::Probing { id, .. } => Some(id),
            _ => None,
        }
    }

    /// Client: the wire id of our pending `initialize`.
    pub(crate) fn init_id(&self) -> Option<u64> {
        match *self {
            Lifecycle::Initializing { id, .. } => Some(id),
            _ => None,
        }
    }

    /// The handshake's deadline, if one is running.
    pub(crate) fn deadline(&self) -> Option<u64> {
        match *self {
            Lifecycle::Probing { deadline, .. } => Some(deadline),
            Lifecycle::Initializing { deadline, .. } => deadline,
            _ => None,
        }
    }

    // ---- transitions ----

    /// Server: claim-less traffic before the handshake latches the legacy era.
    pub(crate) fn latch_legacy(&mut self) {
        if *self == (Lifecycle::Waiting { legacy: false }) {
            *self = Lifecycle::Waiting { legacy: true };
        }
    }

    /// Server: the first request that claims the modern era. Returns false (nothing
    /// changes) unless the era was still open.
    pub(crate) fn latch_modern(&mut self) -> bool {
        if *self == (Lifecycle::Waiting { legacy: false }) {
            *self = Lifecycle::Operating {
                version: ProtocolVersion::V2026_07_28,
            };
            return true;
        }
        false
    }

    /// Server: `initialize` was answered with `version`. False when the connection is
    /// past the handshake (a second `initialize`).
    pub(crate) fn initialize_answered(&mut self, version: ProtocolVersion) -> bool {
        if !matches!(self, Lifecycle::Waiting { .. }) {
            return false;
        }
        *self = Lifecycle::AwaitingInitialized { version };
        true
    }

    /// Server: `notifications/initialized` arrived; returns the version when it
    /// completed the handshake.
    pub(crate) fn initialized(&mut self) -> Option<ProtocolVersion> {
        let Lifecycle::AwaitingInitialized { version } = *self else {
            return None;
        };
        *self = Lifecycle::Operating { version };
        Some(version)
    }

    /// Client: the `server/discover` probe is sent.
    pub(crate) fn probe_sent(&mut self, id: u64, deadline: u64) {
        *self = Lifecycle::Probing { id, deadline };
    }

    /// Client: `initialize` is sent (first, or after the probe failed).
    pub(crate) fn initialize_sent(&mut self, id: u64, deadline: Option<u64>) {
        *self = Lifecycle::Initializing { id, deadline };
    }

    /// Client: the server's answer settled the version (probe result or `initialize`
    /// result).
    pub(crate) fn negotiated(&mut self, version: ProtocolVersion) {
        *self = Lifecycle::Operating { version };
    }

    /// Ends the connection. False when it already was closed.
    pub(crate) fn close(&mut self, reason: CloseReason) -> bool {
        if self.is_closed() {
            return false;
        }
        *self = Lifecycle::Closed {
            era: self.era(),
            version: self.version(),
            reason,
        };
        true
    }

    /// Why the peer's end of stream closes the connection now.
    pub(crate) fn eof_reason(&self) -> CloseReason {
        if self.probe_id().is_some() {
            CloseReason::PeerClosedDuringProbe
        } else {
            CloseReason::PeerClosed
        }
    }

    /// Client: the handshake deadline passed at `now`; takes the deadline down and says
    /// what to do about it.
    pub(crate) fn lapse(&mut self, now: u64) -> Option<Lapsed> {
        match *self {
            Lifecycle::Probing { deadline, .. } if deadline <= now => Some(Lapsed::Probe),
            Lifecycle::Initializing {
                id,
                deadline: Some(d),
            } if d <= now => {
                *self = Lifecycle::Initializing { id, deadline: None };
                Some(Lapsed::Initialize)
            }
            _ => None,
        }
    }
}
