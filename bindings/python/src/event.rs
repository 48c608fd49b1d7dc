//! `Event`: an owned copy of one core event.

use picomcp::json::{Json, JsonStr};
use picomcp::session::{Event as CoreEvent, EventId};
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
    /// `"tool_changed"`, `"pins_incomplete"`, `"peer_violation"` or `"closed"`.
    kind: &'static str,
    id: Option<u32>,
    /// Wire method name (`"tools/call"`); on `peer_violation` the method it names, if any.
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
    /// `peer_violation` and `closed`: a sentence for people; `tool_changed`: the tool's
    /// name; `pins_incomplete`: a sentence with both counts.
    text: Option<String>,
    /// `tool_changed`: the name of the tool that differs from its pin.
    tool: Option<String>,
    /// `tool_changed`: `(old, new)`, the pinned digest and the new one, each 32 lowercase
    /// hex digits.
    digests: Option<(String, String)>,
    /// `pins_incomplete`: how many new tools found no free pin (the pin table is full).
    unpinned: Option<u16>,
    /// `pins_incomplete`: how many changed tools went unreported this time (no room in
    /// the event queue; the next list reports them).
    unreported: Option<u16>,
}

impl Event {
    /// Copies a core event (its views die with the next session call): a field-by-field
    /// map of the core's flat form.
    pub(crate) fn copy(py: Python<'_>, codec: &Codec, ev: CoreEvent<'_>) -> PyResult<Self> {
        let f = ev.flat();
        let value = |v: Option<Json<'_>>| v.map(|v| codec.value(py, v)).transpose();
        let text = |t: Option<JsonStr<'_>>| t.map(|t| t.chars().collect());
        Ok(Event {
            kind: f.kind.name(),
            id: f.id.map(EventId::to_bits),
            method: f.method.map(|m| m.as_str()),
            params: value(f.params)?,
            result: value(f.result)?,
            code: f.code,
            message: text(f.message),
            data: value(f.data)?,
            reason: text(f.reason),
            progress: f.progress,
            total: f.total,
            version: f.version.map(|v| v.as_str()),
            peer: value(f.peer)?,
            requests: value(f.requests)?,
            name: f.name(),
            text: match (f.violation, f.close) {
                (Some(v), _) => Some(v.to_string()),
                (_, Some(c)) => Some(c.to_string()),
                // `tool_changed`: the tool's name; `pins_incomplete`: what went unchecked.
                _ => match (f.tool, f.unchecked) {
                    (Some(t), _) => Some(t.chars().collect()),
                    (_, Some((unpinned, unreported))) => Some(format!(
                        "{unpinned} tools found no free pin, {unreported} changes not reported yet"
                    )),
                    _ => None,
                },
            },
            tool: f.tool.map(|t| t.chars().collect()),
            digests: f
                .digests
                .map(|(old, new)| (old.to_string(), new.to_string())),
            unpinned: f.unchecked.map(|(unpinned, _)| unpinned),
            unreported: f.unchecked.map(|(_, unreported)| unreported),
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
            ("tool", &self.tool),
        ] {
            if let Some(t) = v {
                field(k, format!("{t:?}"));
            }
        }
        if let Some((old, new)) = &self.digests {
            field("digests", format!("({old:?}, {new:?})"));
        }
        for (k, v) in [("unpinned", self.unpinned), ("unreported", self.unreported)] {
            if let Some(n) = v {
                field(k, n.to_string());
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
