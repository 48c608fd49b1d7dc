//! `Event`: an owned copy of one core event.

use picomcp::protocol::ProtocolVersion;
use picomcp::session::Event as CoreEvent;
use pyo3::prelude::*;

use crate::json::Codec;

/// Something that happened on the session, taken from `Session.poll_event()`.
///
/// `kind` says which; the other attributes are set where that kind has them and `None`
/// otherwise. `id` is the handle to pass back to `respond`/`progress` (a request of the
/// peer) or the one `send_request` returned (our request).
#[pyclass(module = "picomcp", frozen, get_all)]
pub(crate) struct Event {
    /// `"request"`, `"notification"`, `"response"`, `"error_response"`, `"timed_out"`,
    /// `"cancelled"`, `"progress"`, `"negotiated"`, `"ready"`, `"input_required"`,
    /// `"subscription_acknowledged"`, `"invalid_result"`, `"subscription_ended"`,
    /// `"peer_violation"` or `"closed"`.
    kind: &'static str,
    id: Option<u32>,
    /// Wire method name (`"tools/call"`).
    method: Option<&'static str>,
    /// Request/notification params, as Python values.
    params: Option<Py<PyAny>>,
    /// A response's result (also the invalid result of `invalid_result`).
    result: Option<Py<PyAny>>,
    /// Error response code.
    code: Option<i64>,
    /// Error response message.
    message: Option<String>,
    /// Error response data.
    data: Option<Py<PyAny>>,
    /// Cancellation reason.
    reason: Option<String>,
    progress: Option<f64>,
    total: Option<f64>,
    /// The negotiated protocol revision (`negotiated`, `ready`).
    version: Option<&'static str>,
    /// `negotiated`: the peer's side of the handshake (client's initialize params, or
    /// the server's initialize result).
    peer: Option<Py<PyAny>>,
    /// `input_required`: the `inputRequests` map; `subscription_acknowledged`: the
    /// honoured `notifications` filter.
    requests: Option<Py<PyAny>>,
    /// `peer_violation` and `closed`: a short name (`"malformed"`, `"peer_closed"`).
    name: Option<&'static str>,
    /// `peer_violation` and `closed`: a sentence for people.
    text: Option<String>,
}

impl Event {
    fn new(kind: &'static str) -> Self {
        Event {
            kind,
            id: None,
            method: None,
            params: None,
            result: None,
            code: None,
            message: None,
            data: None,
            reason: None,
            progress: None,
            total: None,
            version: None,
            peer: None,
            requests: None,
            name: None,
            text: None,
        }
    }

    /// Copies a core event (its views die with the next session call).
    pub(crate) fn copy(py: Python<'_>, codec: &Codec, ev: CoreEvent<'_>) -> PyResult<Self> {
        let value = |v| codec.value(py, v);
        let opt = |v: Option<_>| v.map(value).transpose();
        let version = |v: ProtocolVersion| Some(v.as_str());
        Ok(match ev {
            CoreEvent::Negotiated { version: v, peer } => Event {
                version: version(v),
                peer: Some(value(peer)?),
                ..Event::new("negotiated")
            },
            CoreEvent::Ready { version: v } => Event {
                version: version(v),
                ..Event::new("ready")
            },
            CoreEvent::Request { id, method, params } => Event {
                id: Some(id.to_bits()),
                method: Some(method.as_str()),
                params: opt(params)?,
                ..Event::new("request")
            },
            CoreEvent::Notification { method, params } => Event {
                method: Some(method.as_str()),
                params: opt(params)?,
                ..Event::new("notification")
            },
            CoreEvent::Response { id, result } => Event {
                id: Some(id.to_bits()),
                result: Some(value(result)?),
                ..Event::new("response")
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
                data: opt(data)?,
                ..Event::new("error_response")
            },
            CoreEvent::TimedOut { id } => Event {
                id: Some(id.to_bits()),
                ..Event::new("timed_out")
            },
            CoreEvent::Cancelled { id, reason } => Event {
                id: Some(id.to_bits()),
                reason: reason.map(|r| r.chars().collect()),
                ..Event::new("cancelled")
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
                params: Some(value(params)?),
                ..Event::new("progress")
            },
            CoreEvent::InputRequired { id, input_requests } => Event {
                id: Some(id.to_bits()),
                requests: opt(input_requests)?,
                ..Event::new("input_required")
            },
            CoreEvent::SubscriptionAcknowledged { id, notifications } => Event {
                id: Some(id.to_bits()),
                requests: Some(value(notifications)?),
                ..Event::new("subscription_acknowledged")
            },
            CoreEvent::InvalidResult { id, result } => Event {
                id: Some(id.to_bits()),
                result: Some(value(result)?),
                ..Event::new("invalid_result")
            },
            CoreEvent::SubscriptionEnded { id } => Event {
                id: Some(id.to_bits()),
                ..Event::new("subscription_ended")
            },
            CoreEvent::PeerViolation(v) => Event {
                name: Some(v.name()),
                text: Some(v.to_string()),
                ..Event::new("peer_violation")
            },
            CoreEvent::Closed(r) => Event {
                name: Some(r.name()),
                text: Some(r.to_string()),
                ..Event::new("closed")
            },
            // A kind added to the core later reaches Python by name only.
            _ => Event::new("unknown"),
        })
    }
}

#[pymethods]
impl Event {
    fn __repr__(&self, py: Python<'_>) -> String {
        let mut s = format!("Event(kind={:?}", self.kind);
        let mut field = |k: &str, v: String| s.push_str(&format!(", {k}={v}"));
        let repr = |o: &Py<PyAny>| {
            o.bind(py)
                .repr()
                .map(|r| r.to_string())
                .unwrap_or_else(|_| "?".into())
        };
        if let Some(v) = self.id {
            field("id", v.to_string());
        }
        if let Some(v) = self.method {
            field("method", format!("{v:?}"));
        }
        for (k, v) in [
            ("params", &self.params),
            ("result", &self.result),
            ("data", &self.data),
            ("peer", &self.peer),
            ("requests", &self.requests),
        ] {
            if let Some(o) = v {
                field(k, repr(o));
            }
        }
        if let Some(v) = self.code {
            field("code", v.to_string());
        }
        for (k, v) in [
            ("message", &self.message),
            ("reason", &self.reason),
            ("text", &self.text),
        ] {
            if let Some(t) = v {
                field(k, format!("{t:?}"));
            }
        }
        if let Some(v) = self.progress {
            field("progress", v.to_string());
        }
        if let Some(v) = self.total {
            field("total", v.to_string());
        }
        for (k, v) in [("version", self.version), ("name", self.name)] {
            if let Some(t) = v {
                field(k, format!("{t:?}"));
            }
        }
        s.push(')');
        s
    }
}
