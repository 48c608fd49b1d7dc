//! `Event`: an owned copy of one core event, JSON members as text.

use std::collections::HashMap;

use picomcp::json::{Json, JsonStr};
use picomcp::session::{Event as CoreEvent, EventId};

/// Something that happened on the session (`NativeSession.pollEvent()`). `kind` says
/// which; the other fields are set where that kind has them. Fields ending in `Json`
/// hold JSON text.
#[napi_derive::napi(object)]
#[derive(Default)]
pub struct Event {
    /// `request`, `notification`, `response`, `error_response`, `timed_out`,
    /// `cancelled`, `progress`, `negotiated`, `ready`, `input_required`,
    /// `subscription_acknowledged`, `invalid_result`, `subscription_ended`,
    /// `peer_violation` or `closed`; through `NativeServer.pollEvent` also `call` (a
    /// checked call for the host) and `answered` (the layer answered a request itself).
    pub kind: String,
    /// The request handle (the peer's request, or ours from `sendRequest`).
    pub id: Option<u32>,
    /// Wire method name; on `peer_violation` the method it names, if any.
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
    /// `peer_violation` and `closed`: a sentence for people. `tool_changed`: the tool's
    /// name; `pins_incomplete`: what went unchecked, as a sentence.
    pub text: Option<String>,
    /// `tool_changed`: the name of the tool that differs from its pin.
    pub tool: Option<String>,
    /// `tool_changed`: the pinned digest and the new one.
    pub digests: Option<Digests>,
    /// `pins_incomplete`: how many tools found no free pin slot.
    pub unpinned: Option<u32>,
    /// `pins_incomplete`: how many changes were not reported yet.
    pub unreported: Option<u32>,
    // ---- `call` and `answered` (`NativeServer.pollEvent`) ----
    /// `call`: `tool`, `read`, `prompt` or `complete`.
    pub call: Option<String>,
    /// `call`: the index of the definition in its table (`tools`, `resources` or
    /// `resourceTemplates`, `prompts` or `resourceTemplates`: see `target`).
    pub index: Option<u32>,
    /// `read`: `resource` or `template`; `complete`: `prompt` or `template`.
    pub target: Option<String>,
    /// `tool` and `prompt`: the checked arguments (an object; `{}` when none were given).
    pub arguments_json: Option<String>,
    /// `tool`: the request's `_meta`.
    pub meta_json: Option<String>,
    /// `tool`: the defaults of the arguments the request left out, by name (an object),
    /// as the tool's `inputSchema` gives them.
    pub defaults_json: Option<String>,
    /// `read`: the URI, decoded.
    pub uri: Option<String>,
    /// `read` of a template: its variables as matched (still percent-encoded).
    pub vars: Option<HashMap<String, String>>,
    /// `complete`: the argument (or template variable) being completed.
    pub argument: Option<String>,
    /// `complete`: what was typed so far.
    pub value: Option<String>,
    /// `complete`: the request's `context` (`{"arguments": {...}}`).
    pub context_json: Option<String>,
    // ---- 2026-07-28 calls (`tool`, `read`, `prompt`): a retry's members (MRTR) ----
    /// The client's answers by key (`inputResponses`), when it sent some.
    pub input_responses_json: Option<String>,
    /// The `requestState` it echoed: verified and unsealed by the session when it has a
    /// state key; the client's own text otherwise.
    pub request_state: Option<String>,
    /// Why the retry members are invalid (the -32602 message): `inputResponses` that is
    /// not an object, `requestState` that is not a string.
    pub retry_error: Option<String>,
}

/// `tool_changed`: two tool digests (SHA-256 truncated to 128 bits), each as 32
/// lowercase hex digits.
#[napi_derive::napi(object)]
pub struct Digests {
    /// The digest the pin holds.
    pub old: String,
    /// The digest of the definition the server sent now.
    pub new: String,
}

impl Event {
    /// Copies a core event (its views die with the next session call): a field-by-field
    /// map of the core's flat form.
    pub(crate) fn copy(ev: CoreEvent<'_>) -> Event {
        let f = ev.flat();
        let raw = |j: Option<Json<'_>>| j.map(|j| j.as_raw().to_owned());
        let text = |t: Option<JsonStr<'_>>| t.map(|t| t.chars().collect());
        Event {
            kind: f.kind.name().into(),
            id: f.id.map(EventId::to_bits),
            method: f.method.map(|m| m.as_str().into()),
            params_json: raw(f.params),
            result_json: raw(f.result),
            code: f.code,
            message: text(f.message),
            data_json: raw(f.data),
            reason: text(f.reason),
            progress: f.progress,
            total: f.total,
            version: f.version.map(|v| v.as_str().into()),
            peer_json: raw(f.peer),
            requests_json: raw(f.requests),
            name: f.name().map(Into::into),
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
            tool: text(f.tool),
            digests: f.digests.map(|(old, new)| Digests {
                old: old.to_string(),
                new: new.to_string(),
            }),
            unpinned: f.unchecked.map(|(u, _)| u.into()),
            unreported: f.unchecked.map(|(_, u)| u.into()),
            ..Event::default()
        }
    }
}

/// JSON text of an event, written by hand: members are JSON text already (`…_json`
/// fields, placed as they are) or short strings and numbers (escaped here).
pub(crate) struct JsonText(pub(crate) String);

impl JsonText {
    fn key(&mut self, name: &str) {
        let s = &mut self.0;
        if !s.ends_with('{') {
            s.push(',');
        }
        s.push('"');
        s.push_str(name);
        s.push_str("\":");
    }

    /// A string value, escaped.
    pub(crate) fn string(&mut self, v: &str) {
        let s = &mut self.0;
        s.push('"');
        let mut start = 0;
        for (i, c) in v.bytes().enumerate() {
            let esc = match c {
                b'"' => "\\\"",
                b'\\' => "\\\\",
                b'\n' => "\\n",
                b'\r' => "\\r",
                b'\t' => "\\t",
                0..=0x1f => "",
                _ => continue,
            };
            s.push_str(&v[start..i]);
            if esc.is_empty() {
                s.push_str(&format!("\\u{c:04x}"));
            } else {
                s.push_str(esc);
            }
            start = i + 1;
        }
        s.push_str(&v[start..]);
        s.push('"');
    }

    fn str_member(&mut self, name: &str, v: &Option<String>) {
        if let Some(v) = v {
            self.key(name);
            self.string(v);
        }
    }

    fn raw_member(&mut self, name: &str, v: &Option<String>) {
        if let Some(v) = v {
            self.key(name);
            self.0.push_str(v);
        }
    }

    fn int_member(&mut self, name: &str, v: Option<u32>) {
        if let Some(v) = v {
            self.key(name);
            use std::fmt::Write as _;
            // Writing to a String cannot fail.
            let _ = write!(self.0, "{v}");
        }
    }

    fn number_member(&mut self, name: &str, v: Option<f64>) {
        if let Some(v) = v {
            self.key(name);
            // The core reads numbers from JSON: always finite; null otherwise.
            if v.is_finite() {
                self.0.push_str(&v.to_string());
            } else {
                self.0.push_str("null");
            }
        }
    }
}

impl Event {
    /// The event as one JSON object with the members `lib/index.js` makes of the native
    /// object: the `…Json` fields under their names without `Json`, as JSON values, the
    /// absent ones left out. One `JSON.parse` in JavaScript then builds the whole event
    /// (rather than one property and one string per field through napi).
    /// `skip_arguments`: leave `arguments` out (they are the params' member, see
    /// `NativeServer::poll_events`).
    pub(crate) fn write_json(&self, out: &mut JsonText, skip_arguments: bool) {
        out.0.push('{');
        out.key("kind");
        out.string(&self.kind);
        out.int_member("id", self.id);
        out.str_member("method", &self.method);
        out.raw_member("params", &self.params_json);
        out.raw_member("result", &self.result_json);
        if let Some(code) = self.code {
            out.key("code");
            out.0.push_str(&code.to_string());
        }
        out.str_member("message", &self.message);
        out.raw_member("data", &self.data_json);
        out.str_member("reason", &self.reason);
        out.number_member("progress", self.progress);
        out.number_member("total", self.total);
        out.str_member("version", &self.version);
        out.raw_member("peer", &self.peer_json);
        out.raw_member("requests", &self.requests_json);
        out.str_member("name", &self.name);
        out.str_member("text", &self.text);
        out.str_member("tool", &self.tool);
        if let Some(d) = &self.digests {
            out.key("digests");
            out.0.push_str("{\"old\":");
            out.string(&d.old);
            out.0.push_str(",\"new\":");
            out.string(&d.new);
            out.0.push('}');
        }
        out.int_member("unpinned", self.unpinned);
        out.int_member("unreported", self.unreported);
        out.str_member("call", &self.call);
        out.int_member("index", self.index);
        out.str_member("target", &self.target);
        if !skip_arguments {
            out.raw_member("arguments", &self.arguments_json);
        }
        out.raw_member("meta", &self.meta_json);
        out.raw_member("defaults", &self.defaults_json);
        out.str_member("uri", &self.uri);
        if let Some(vars) = &self.vars {
            out.key("vars");
            out.0.push('{');
            for (i, (k, v)) in vars.iter().enumerate() {
                if i > 0 {
                    out.0.push(',');
                }
                out.string(k);
                out.0.push(':');
                out.string(v);
            }
            out.0.push('}');
        }
        out.str_member("argument", &self.argument);
        out.str_member("value", &self.value);
        out.raw_member("context", &self.context_json);
        out.raw_member("inputResponses", &self.input_responses_json);
        out.str_member("requestState", &self.request_state);
        out.str_member("retryError", &self.retry_error);
        out.0.push('}');
    }
}
