//! `Event`: an owned copy of one core event, JSON members as text.

use picomcp::session::Event as CoreEvent;

/// Something that happened on the session (`NativeSession.pollEvent()`). `kind` says
/// which; the other fields are set where that kind has them. Fields ending in `Json`
/// hold JSON text.
#[napi_derive::napi(object)]
#[derive(Default)]
pub struct Event {
    /// `request`, `notification`, `response`, `error_response`, `timed_out`,
    /// `cancelled`, `progress`, `negotiated`, `ready`, `input_required`,
    /// `subscription_acknowledged`, `invalid_result`, `subscription_ended`,
    /// `peer_violation` or `closed`.
    pub kind: String,
    /// The request handle (the peer's request, or ours from `sendRequest`).
    pub id: Option<u32>,
    /// Wire method name.
    pub method: Option<String>,
    pub params_json: Option<String>,
    /// A response's result (also the invalid result of `invalid_result`).
    pub result_json: Option<String>,
    pub code: Option<i64>,
    pub message: Option<String>,
    pub data_json: Option<String>,
    /// Cancellation reason.
    pub reason: Option<String>,
    pub progress: Option<f64>,
    pub total: Option<f64>,
    /// The negotiated revision (`negotiated`, `ready`).
    pub version: Option<String>,
    /// `negotiated`: the peer's side of the handshake.
    pub peer_json: Option<String>,
    /// `input_required`: the `inputRequests` map; `subscription_acknowledged`: the
    /// honoured filter.
    pub requests_json: Option<String>,
    /// `peer_violation` and `closed`: a short name (`malformed`, `peer_closed`).
    pub name: Option<String>,
    /// `peer_violation` and `closed`: a sentence for people.
    pub text: Option<String>,
}

fn kind(k: &str) -> Event {
    Event {
        kind: k.into(),
        ..Event::default()
    }
}

impl Event {
    /// Copies a core event (its views die with the next session call).
    pub(crate) fn copy(ev: CoreEvent<'_>) -> Event {
        let raw = |j: picomcp::json::Json<'_>| Some(j.as_raw().to_owned());
        match ev {
            CoreEvent::Negotiated { version, peer } => Event {
                version: Some(version.as_str().into()),
                peer_json: raw(peer),
                ..kind("negotiated")
            },
            CoreEvent::Ready { version } => Event {
                version: Some(version.as_str().into()),
                ..kind("ready")
            },
            CoreEvent::Request { id, method, params } => Event {
                id: Some(id.to_bits()),
                method: Some(method.as_str().into()),
                params_json: params.and_then(raw),
                ..kind("request")
            },
            CoreEvent::Notification { method, params } => Event {
                method: Some(method.as_str().into()),
                params_json: params.and_then(raw),
                ..kind("notification")
            },
            CoreEvent::Response { id, result } => Event {
                id: Some(id.to_bits()),
                result_json: raw(result),
                ..kind("response")
            },
            CoreEvent::ErrorResponse {
                id,
                code,
                message,
                data,
            } => Event {
                id: Some(id.to_bits()),
                code: Some(code),
                message: Some(message.chars().collect()),
                data_json: data.and_then(raw),
                ..kind("error_response")
            },
            CoreEvent::TimedOut { id } => Event {
                id: Some(id.to_bits()),
                ..kind("timed_out")
            },
            CoreEvent::Cancelled { id, reason } => Event {
                id: Some(id.to_bits()),
                reason: reason.map(|r| r.chars().collect()),
                ..kind("cancelled")
            },
            CoreEvent::Progress {
                id,
                progress,
                total,
                params,
            } => Event {
                id: Some(id.to_bits()),
                progress: Some(progress),
                total,
                params_json: raw(params),
                ..kind("progress")
            },
            CoreEvent::InputRequired { id, input_requests } => Event {
                id: Some(id.to_bits()),
                requests_json: input_requests.and_then(raw),
                ..kind("input_required")
            },
            CoreEvent::SubscriptionAcknowledged { id, notifications } => Event {
                id: Some(id.to_bits()),
                requests_json: raw(notifications),
                ..kind("subscription_acknowledged")
            },
            CoreEvent::InvalidResult { id, result } => Event {
                id: Some(id.to_bits()),
                result_json: raw(result),
                ..kind("invalid_result")
            },
            CoreEvent::SubscriptionEnded { id } => Event {
                id: Some(id.to_bits()),
                ..kind("subscription_ended")
            },
            CoreEvent::PeerViolation(v) => Event {
                name: Some(v.name().into()),
                text: Some(v.to_string()),
                ..kind("peer_violation")
            },
            CoreEvent::Closed(r) => Event {
                name: Some(r.name().into()),
                text: Some(r.to_string()),
                ..kind("closed")
            },
            // A kind added to the core later reaches JavaScript by name only.
            _ => kind("unknown"),
        }
    }
}
