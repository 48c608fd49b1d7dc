//! The flat form of an [`Event`]: one struct with a kind and fixed optional fields, for
//! hosts that cannot match on a Rust enum (the C, Python and Node bindings).
//!
//! Each binding copies a [`FlatEvent`] into its own shape (a C struct, a Python object, a
//! JavaScript object) field by field, so which field a kind sets is decided here once.
//! It borrows from the event and allocates nothing: text stays escaped ([`JsonStr`]) and
//! JSON stays a view ([`Json`]), as in the event.

use super::pins::ToolDigest;
use super::types::{CloseReason, Event, InboundId, OutboundId, Violation};
use crate::json::{Json, JsonStr};
use crate::protocol::{Method, ProtocolVersion};

/// Which [`Event`] variant a [`FlatEvent`] came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum EventKind {
    /// [`Event::Negotiated`]
    Negotiated,
    /// [`Event::Ready`]
    Ready,
    /// [`Event::Request`]
    Request,
    /// [`Event::Notification`]
    Notification,
    /// [`Event::Response`]
    Response,
    /// [`Event::ErrorResponse`]
    ErrorResponse,
    /// [`Event::TimedOut`]
    TimedOut,
    /// [`Event::Cancelled`]
    Cancelled,
    /// [`Event::Progress`]
    Progress,
    /// [`Event::InputRequired`]
    InputRequired,
    /// [`Event::SubscriptionAcknowledged`]
    SubscriptionAcknowledged,
    /// [`Event::InvalidResult`]
    InvalidResult,
    /// [`Event::SubscriptionEnded`]
    SubscriptionEnded,
    /// [`Event::ToolChanged`]
    #[cfg(feature = "client")]
    ToolChanged,
    /// [`Event::PinsIncomplete`]
    #[cfg(feature = "client")]
    PinsIncomplete,
    /// [`Event::PeerViolation`]
    PeerViolation,
    /// [`Event::Closed`]
    Closed,
}

impl EventKind {
    /// A stable snake_case name for logs and bindings (`"request"`, `"error_response"`).
    pub const fn name(self) -> &'static str {
        match self {
            EventKind::Negotiated => "negotiated",
            EventKind::Ready => "ready",
            EventKind::Request => "request",
            EventKind::Notification => "notification",
            EventKind::Response => "response",
            EventKind::ErrorResponse => "error_response",
            EventKind::TimedOut => "timed_out",
            EventKind::Cancelled => "cancelled",
            EventKind::Progress => "progress",
            EventKind::InputRequired => "input_required",
            EventKind::SubscriptionAcknowledged => "subscription_acknowledged",
            EventKind::InvalidResult => "invalid_result",
            EventKind::SubscriptionEnded => "subscription_ended",
            #[cfg(feature = "client")]
            EventKind::ToolChanged => "tool_changed",
            #[cfg(feature = "client")]
            EventKind::PinsIncomplete => "pins_incomplete",
            EventKind::PeerViolation => "peer_violation",
            EventKind::Closed => "closed",
        }
    }
}

/// The request an event is about: one of the peer's (answer it) or one of ours.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EventId {
    /// The peer's request ([`Event::Request`], [`Event::Cancelled`]).
    Inbound(InboundId),
    /// Our request (responses, timeouts, progress, input and subscription events).
    Outbound(OutboundId),
}

impl EventId {
    /// The handle as a number ([`InboundId::to_bits`] or [`OutboundId::to_bits`]), as the
    /// bindings pass it.
    pub fn to_bits(self) -> u32 {
        match self {
            EventId::Inbound(id) => id.to_bits(),
            EventId::Outbound(id) => id.to_bits(),
        }
    }
}

/// An [`Event`] as one struct: `kind` says which event it was, and exactly the fields
/// that event has are `Some` (the table on each field says where it comes from).
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct FlatEvent<'a> {
    /// Which event.
    pub kind: EventKind,
    /// The request handle: `Request`, `Cancelled` (the peer's); `Response`,
    /// `ErrorResponse`, `TimedOut`, `Progress`, `InputRequired`,
    /// `SubscriptionAcknowledged`, `InvalidResult`, `SubscriptionEnded` (ours).
    pub id: Option<EventId>,
    /// `Request`, `Notification`: the method. `PeerViolation`: the method the violation
    /// names, if it names one.
    pub method: Option<Method>,
    /// `Negotiated`, `Ready`: the agreed revision.
    pub version: Option<ProtocolVersion>,
    /// `Request`, `Notification` (when sent), `Progress`: the params object.
    pub params: Option<Json<'a>>,
    /// `Response`: the result. `InvalidResult`: the result as received.
    pub result: Option<Json<'a>>,
    /// `Negotiated`: the peer's side of the handshake.
    pub peer: Option<Json<'a>>,
    /// `ErrorResponse`: the error data, when sent.
    pub data: Option<Json<'a>>,
    /// `InputRequired`: the `inputRequests` map, when sent. `SubscriptionAcknowledged`:
    /// the honoured `notifications` filter.
    pub requests: Option<Json<'a>>,
    /// `ErrorResponse`: the error code as the wire had it (`ErrorCode::try_from` converts).
    pub code: Option<i64>,
    /// `ErrorResponse`: the error message (escaped, as on the wire).
    pub message: Option<JsonStr<'a>>,
    /// `Cancelled`: the peer's reason, when given (escaped).
    pub reason: Option<JsonStr<'a>>,
    /// `Progress`: the progress value.
    pub progress: Option<f64>,
    /// `Progress`: the total, when given.
    pub total: Option<f64>,
    /// `PeerViolation`: what the peer did (its [`name`](Violation::name) and
    /// [`Display`](core::fmt::Display) text are the binding's `name` and `text`).
    pub violation: Option<Violation>,
    /// `Closed`: why (its [`name`](CloseReason::name) and text likewise).
    pub close: Option<CloseReason>,
    /// `ToolChanged`: the tool's name (escaped, as on the wire).
    pub tool: Option<JsonStr<'a>>,
    /// `ToolChanged`: the pinned digest and the new one.
    pub digests: Option<(ToolDigest, ToolDigest)>,
    /// `PinsIncomplete`: `(unpinned, unreported)`.
    pub unchecked: Option<(u16, u16)>,
}

impl<'a> FlatEvent<'a> {
    /// A flat event of `kind` with every field `None`.
    pub const fn empty(kind: EventKind) -> Self {
        FlatEvent {
            kind,
            id: None,
            method: None,
            version: None,
            params: None,
            result: None,
            peer: None,
            data: None,
            requests: None,
            code: None,
            message: None,
            reason: None,
            progress: None,
            total: None,
            violation: None,
            close: None,
            tool: None,
            digests: None,
            unchecked: None,
        }
    }

    /// The event's one JSON payload, whichever field holds it (`params`, `result`,
    /// `peer`, `data` or `requests`): what a binding with a single JSON field shows.
    pub fn json(&self) -> Option<Json<'a>> {
        self.params
            .or(self.result)
            .or(self.peer)
            .or(self.data)
            .or(self.requests)
    }

    /// The event's one text, whichever field holds it (`message`, `reason` or `tool`).
    pub fn text(&self) -> Option<JsonStr<'a>> {
        self.message.or(self.reason).or(self.tool)
    }

    /// The `name()` of the violation or close reason, if the event is one of those.
    pub fn name(&self) -> Option<&'static str> {
        match (self.violation, self.close) {
            (Some(v), _) => Some(v.name()),
            (_, Some(c)) => Some(c.name()),
            _ => None,
        }
    }
}

/// The method a violation names, if any.
fn violation_method(v: Violation) -> Option<Method> {
    match v {
        Violation::NotNegotiated(m)
        | Violation::NotInitialized(m)
        | Violation::InvalidParams(m)
        | Violation::NotInVersion(m)
        | Violation::BadEnvelope(m) => Some(m),
        _ => None,
    }
}

impl<'a> Event<'a> {
    /// This event as one flat struct (see [`FlatEvent`]).
    pub fn flat(&self) -> FlatEvent<'a> {
        use EventKind as K;
        let inb = |id| Some(EventId::Inbound(id));
        let out = |id| Some(EventId::Outbound(id));
        match *self {
            Event::Negotiated { version, peer } => FlatEvent {
                version: Some(version),
                peer: Some(peer),
                ..FlatEvent::empty(K::Negotiated)
            },
            Event::Ready { version } => FlatEvent {
                version: Some(version),
                ..FlatEvent::empty(K::Ready)
            },
            Event::Request { id, method, params } => FlatEvent {
                id: inb(id),
                method: Some(method),
                params,
                ..FlatEvent::empty(K::Request)
            },
            Event::Notification { method, params } => FlatEvent {
                method: Some(method),
                params,
                ..FlatEvent::empty(K::Notification)
            },
            Event::Response { id, result } => FlatEvent {
                id: out(id),
                result: Some(result),
                ..FlatEvent::empty(K::Response)
            },
            Event::ErrorResponse {
                id,
                code,
                message,
                data,
            } => FlatEvent {
                id: out(id),
                code: Some(code),
                message: Some(message),
                data,
                ..FlatEvent::empty(K::ErrorResponse)
            },
            Event::TimedOut { id } => FlatEvent {
                id: out(id),
                ..FlatEvent::empty(K::TimedOut)
            },
            Event::Cancelled { id, reason } => FlatEvent {
                id: inb(id),
                reason,
                ..FlatEvent::empty(K::Cancelled)
            },
            Event::Progress {
                id,
                progress,
                total,
                params,
            } => FlatEvent {
                id: out(id),
                progress: Some(progress),
                total,
                params: Some(params),
                ..FlatEvent::empty(K::Progress)
            },
            Event::InputRequired { id, input_requests } => FlatEvent {
                id: out(id),
                requests: input_requests,
                ..FlatEvent::empty(K::InputRequired)
            },
            Event::SubscriptionAcknowledged { id, notifications } => FlatEvent {
                id: out(id),
                requests: Some(notifications),
                ..FlatEvent::empty(K::SubscriptionAcknowledged)
            },
            Event::InvalidResult { id, result } => FlatEvent {
                id: out(id),
                result: Some(result),
                ..FlatEvent::empty(K::InvalidResult)
            },
            Event::SubscriptionEnded { id } => FlatEvent {
                id: out(id),
                ..FlatEvent::empty(K::SubscriptionEnded)
            },
            #[cfg(feature = "client")]
            Event::ToolChanged { name, old, new } => FlatEvent {
                tool: Some(name),
                digests: Some((old, new)),
                ..FlatEvent::empty(K::ToolChanged)
            },
            #[cfg(feature = "client")]
            Event::PinsIncomplete {
                unpinned,
                unreported,
            } => FlatEvent {
                unchecked: Some((unpinned, unreported)),
                ..FlatEvent::empty(K::PinsIncomplete)
            },
            Event::PeerViolation(v) => FlatEvent {
                method: violation_method(v),
                violation: Some(v),
                ..FlatEvent::empty(K::PeerViolation)
            },
            Event::Closed(r) => FlatEvent {
                close: Some(r),
                ..FlatEvent::empty(K::Closed)
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    fn json(s: &str) -> Json<'_> {
        Json::new(s).unwrap()
    }

    #[test]
    fn each_kind_sets_its_fields() {
        let id = InboundId::from_bits(0x0002_0001);
        let out = OutboundId::from_bits(7);
        let params = json(r#"{"a":1}"#);
        let f = Event::Request {
            id,
            method: Method::ToolsCall,
            params: Some(params),
        }
        .flat();
        assert_eq!(f.kind.name(), "request");
        assert_eq!(f.id.map(EventId::to_bits), Some(0x0002_0001));
        assert_eq!(f.method, Some(Method::ToolsCall));
        assert_eq!(f.json(), Some(params));
        assert_eq!((f.result, f.code, f.violation), (None, None, None));

        let msg = json(r#""no \"x\"""#).as_str().unwrap();
        let f = Event::ErrorResponse {
            id: out,
            code: -32602,
            message: msg,
            data: None,
        }
        .flat();
        assert_eq!(f.kind, EventKind::ErrorResponse);
        assert_eq!(f.id, Some(EventId::Outbound(out)));
        assert_eq!(
            (f.code, f.text(), f.json()),
            (Some(ErrorCode::INVALID_PARAMS.into()), Some(msg), None)
        );

        let f = Event::PeerViolation(Violation::BadEnvelope(Method::ToolsList)).flat();
        assert_eq!(f.kind.name(), "peer_violation");
        assert_eq!(f.method, Some(Method::ToolsList));
        assert_eq!(f.name(), Some("bad_envelope"));
        assert_eq!(f.id, None);

        let f = Event::Closed(CloseReason::Local).flat();
        assert_eq!(
            (f.name(), f.close),
            (Some("local"), Some(CloseReason::Local))
        );

        let f = Event::Progress {
            id: out,
            progress: 1.5,
            total: None,
            params,
        }
        .flat();
        assert_eq!(
            (f.progress, f.total, f.params),
            (Some(1.5), None, Some(params))
        );
    }

    #[test]
    fn kind_names_are_unique() {
        use EventKind as K;
        let all = [
            K::Negotiated,
            K::Ready,
            K::Request,
            K::Notification,
            K::Response,
            K::ErrorResponse,
            K::TimedOut,
            K::Cancelled,
            K::Progress,
            K::InputRequired,
            K::SubscriptionAcknowledged,
            K::InvalidResult,
            K::SubscriptionEnded,
            K::ToolChanged,
            K::PinsIncomplete,
            K::PeerViolation,
            K::Closed,
        ];
        for (i, a) in all.iter().enumerate() {
            for b in &all[i + 1..] {
                assert_ne!(a.name(), b.name());
            }
        }
    }
}
