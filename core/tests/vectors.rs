//! Runs the cross-language vectors in `tests/vectors/*.jsonl` (format: that folder's
//! README). The C, Python and Node bindings run the same files.

mod common;
use common::take_output;
use picomcp::json::Json;
use picomcp::protocol::{Method, ProtocolVersion, Versions};
use picomcp::server::{CAPABILITIES_MAX, Server};
use picomcp::session::{
    Change, Config, Event, InboundId, OutboundId, RequestOptions, Session, StaticStorage, Storage,
};
use serde_json::{Value, json};

#[path = "common/served.rs"]
mod served;
use served::matches;

/// The pins: as many as the C API gives every session (`Storage::DEFAULT_PINS`).
type Mem = StaticStorage<8192, 32768, 32768, 8, 8, 8192, 16, { Storage::DEFAULT_PINS }>;

fn leak(v: &Value) -> &'static str {
    Box::leak(v.to_string().into_boxed_str())
}

fn leak_str(s: &str) -> &'static str {
    Box::leak(s.to_string().into_boxed_str())
}

fn make_session(spec: &Value, server: Option<&Server<'static>>) -> Session<'static> {
    let caps = match server {
        Some(srv) => {
            let buf: &'static mut [u8] = Box::leak(Box::new([0u8; CAPABILITIES_MAX]));
            srv.capabilities(buf).unwrap()
        }
        None => Json::new(leak(
            &spec.get("capabilities").cloned().unwrap_or(json!({})),
        ))
        .unwrap(),
    };
    let name = leak_str(spec["name"].as_str().unwrap_or("vec"));
    let version = leak_str(spec["version"].as_str().unwrap_or("0.0.0"));
    let mut c = if spec["role"] == "client" {
        Config::client(name, version, caps)
    } else {
        Config::server(name, version, caps)
    };
    c.limits.max_line = 8192;
    c.arena_bytes = 2048;
    c.batch_bytes = 2048;
    if let Some(i) = spec["instructions"].as_str() {
        c.instructions = Some(leak_str(i));
    }
    if let Some(vs) = spec["versions"].as_array() {
        let list: Vec<ProtocolVersion> = vs
            .iter()
            .map(|v| ProtocolVersion::parse(v.as_str().unwrap()).unwrap())
            .collect();
        c.versions = Versions::of(&list);
    }
    if let Some(t) = spec["request_timeout_ms"].as_u64() {
        c.request_timeout_ms = Some(t);
    }
    if let Some(t) = spec["probe_timeout_ms"].as_u64() {
        c.probe_timeout_ms = t;
    }
    if let Some(k) = spec["state_key"].as_str() {
        c.state_key = Some(leak_str(k).as_bytes());
    }
    let mem: &'static mut Mem = Box::leak(Box::new(Mem::new()));
    Session::new(&c, mem.as_storage(), 0).unwrap()
}

fn event_json(e: &Event<'_>) -> Value {
    let j = |s: &str| serde_json::from_str::<Value>(s).unwrap();
    match e {
        Event::Negotiated { version, .. } => {
            json!({"type": "negotiated", "version": version.as_str()})
        }
        Event::Ready { version } => json!({"type": "ready", "version": version.as_str()}),
        Event::Request { method, params, .. } => {
            json!({"type": "request", "method": method.as_str(), "params": params.map_or(Value::Null, |p| j(p.as_raw()))})
        }
        Event::Notification { method, params } => {
            json!({"type": "notification", "method": method.as_str(), "params": params.map_or(Value::Null, |p| j(p.as_raw()))})
        }
        Event::Response { result, .. } => json!({"type": "response", "result": j(result.as_raw())}),
        Event::ErrorResponse { code, message, .. } => {
            json!({"type": "error_response", "code": code, "message": message.to_string()})
        }
        Event::TimedOut { .. } => json!({"type": "timed_out"}),
        Event::Cancelled { reason, .. } => {
            json!({"type": "cancelled", "reason": reason.map(|r| r.to_string())})
        }
        Event::Progress {
            progress, total, ..
        } => json!({"type": "progress", "progress": progress, "total": total}),
        Event::InputRequired { input_requests, .. } => {
            json!({"type": "input_required", "input_requests": input_requests.map_or(Value::Null, |r| j(r.as_raw()))})
        }
        Event::SubscriptionAcknowledged { notifications, .. } => {
            json!({"type": "subscription_acknowledged", "notifications": j(notifications.as_raw())})
        }
        Event::InvalidResult { .. } => json!({"type": "invalid_result"}),
        Event::SubscriptionEnded { .. } => json!({"type": "subscription_ended"}),
        Event::ToolChanged { name, old, new } => json!({
            "type": "tool_changed",
            "name": name.to_string(),
            "digests": {"old": old.to_string(), "new": new.to_string()},
        }),
        Event::PinsIncomplete {
            unpinned,
            unreported,
        } => json!({
            "type": "pins_incomplete",
            "counts": {"unpinned": unpinned, "unreported": unreported},
        }),
        Event::PeerViolation(v) => {
            let d = format!("{v:?}");
            let kind = d.split(['(', ' ', '{']).next().unwrap().to_string();
            json!({"type": "violation", "kind": kind})
        }
        Event::Closed(r) => {
            json!({"type": "closed", "reason": format!("{r:?}").split([' ', '{']).next().unwrap()})
        }
        other => json!({"type": format!("{other:?}")}),
    }
}

fn method(name: &str) -> Method {
    Method::from_name(name).unwrap_or_else(|| panic!("unknown method {name}"))
}

fn run(path: &std::path::Path) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut steps = text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| serde_json::from_str::<Value>(l).unwrap());
    let first = steps.next().unwrap();
    let server = first["session"].get("server").map(served::server);
    let mut s = make_session(&first["session"], server.as_ref());
    // Served sessions: events the layer passed on (calls and other events), in order.
    let mut pending: std::collections::VecDeque<(Value, Option<served::Last>)> = Default::default();
    let mut last_call: Option<served::Last> = None;
    let mut now = 0u64;
    let mut sent: std::collections::VecDeque<String> = Default::default();
    let mut last_request: Option<InboundId> = None;
    let mut last_outbound: Option<OutboundId> = None;
    let mut last_input: Option<OutboundId> = None;
    let mut last_error: Option<String> = None;
    let name = path.file_name().unwrap().to_string_lossy().to_string();
    for (n, step) in steps.enumerate() {
        let ctx = format!("{name} step {} {step}", n + 2);
        let (k, v) = step.as_object().unwrap().iter().next().unwrap();
        if let (Some(srv), true) = (&server, k.starts_with("expect_")) {
            served::pump(srv, &mut s, &mut pending);
        }
        sent.extend(take_output(&mut s));
        match k.as_str() {
            "recv" | "recv_raw" => {
                let mut data = v.as_str().unwrap().to_string();
                if k == "recv" {
                    data.push('\n');
                }
                let taken = s.handle_bytes(now, data.as_bytes());
                assert_eq!(taken, data.len(), "{ctx}: backpressure");
            }
            "expect_send" => {
                let line = sent
                    .pop_front()
                    .unwrap_or_else(|| panic!("{ctx}: nothing was sent"));
                let actual: Value = serde_json::from_str(&line).unwrap();
                assert!(matches(v, &actual), "{ctx}\n  sent: {line}");
            }
            "expect_send_exact" => {
                // Equal, not a subset match: a member left out must be absent.
                let line = sent
                    .pop_front()
                    .unwrap_or_else(|| panic!("{ctx}: nothing was sent"));
                assert_eq!(&serde_json::from_str::<Value>(&line).unwrap(), v, "{ctx}");
            }
            "expect_no_send" => assert!(sent.is_empty(), "{ctx}: sent {sent:?}"),
            "expect_event" if server.is_some() => {
                let (actual, call) = pending
                    .pop_front()
                    .unwrap_or_else(|| panic!("{ctx}: no event"));
                match call {
                    Some(served::Last::Request(id)) => last_request = Some(id),
                    Some(c) => last_call = Some(c),
                    None => {}
                }
                assert!(matches(v, &actual), "{ctx}\n  event: {actual}");
            }
            "expect_no_event" if server.is_some() => {
                assert!(pending.is_empty(), "{ctx}: event {pending:?}");
            }
            "respond_tool" | "respond_read" | "respond_prompt" | "respond_completion" => {
                let srv = server.as_ref().expect("respond_* needs a served session");
                let call = last_call.expect("no call");
                if let Err(e) = served::respond(srv, &mut s, call, k, v) {
                    last_error = Some(e);
                }
            }
            "expect_event" => {
                let e = s.poll_event().unwrap_or_else(|| panic!("{ctx}: no event"));
                match e {
                    Event::Request { id, .. } => last_request = Some(id),
                    Event::InputRequired { id, .. } => last_input = Some(id),
                    _ => {}
                }
                let actual = event_json(&e);
                assert!(matches(v, &actual), "{ctx}\n  event: {actual}");
            }
            "expect_no_event" => {
                let e = s.poll_event().map(|e| event_json(&e));
                assert!(e.is_none(), "{ctx}: event {e:?}");
            }
            "expect_client_capabilities" => {
                // What a binding shows a handler: a 2026-07-28 request's own, else the session's.
                let info = s.request_info(last_request.expect("no request")).unwrap();
                let caps = if info.modern {
                    info.client_capabilities
                } else {
                    s.peer_capabilities()
                };
                let actual: Value = serde_json::from_str(&caps.json().to_string()).unwrap();
                assert_eq!(&actual, v, "{ctx}");
            }
            "respond" => s
                .respond(
                    last_request.expect("no request"),
                    Json::new(leak(v)).unwrap(),
                )
                .unwrap(),
            "respond_input_required" => s
                .respond_input_required(
                    last_request.expect("no request"),
                    v.get("input_requests").map(|r| Json::new(leak(r)).unwrap()),
                    v["request_state"].as_str(),
                )
                .unwrap(),
            "respond_error" => s
                .respond_error(
                    last_request.expect("no request"),
                    picomcp::ErrorCode::try_from(v["code"].as_i64().unwrap()).unwrap(),
                    v["message"].as_str().unwrap_or("error"),
                    None,
                )
                .unwrap(),
            "send_request" => {
                let params = v.get("params").map(|p| Json::new(leak(p)).unwrap());
                let opts = RequestOptions {
                    timeout_ms: v["timeout_ms"].as_u64(),
                    progress: v["progress"] == true,
                    ..Default::default()
                };
                match s.send_request(now, method(v["method"].as_str().unwrap()), params, opts) {
                    Ok(id) => last_outbound = Some(id),
                    Err(e) => last_error = Some(format!("{e:?}")),
                }
            }
            "send_notification" => {
                let params = v.get("params").map(|p| Json::new(leak(p)).unwrap());
                if let Err(e) = s.send_notification(method(v["method"].as_str().unwrap()), params) {
                    last_error = Some(format!("{e:?}"));
                }
            }
            "cancel" => s
                .cancel(
                    last_outbound.expect("no outbound request"),
                    v["reason"].as_str(),
                )
                .unwrap(),
            "answer_input" => s
                .answer_input(
                    now,
                    last_input.expect("no input_required"),
                    Json::new(leak(v)).unwrap(),
                )
                .unwrap(),
            "notify" => {
                let change = match v.as_str() {
                    Some("tools_list_changed") => Change::ToolsListChanged,
                    Some("prompts_list_changed") => Change::PromptsListChanged,
                    Some("resources_list_changed") => Change::ResourcesListChanged,
                    _ => Change::ResourceUpdated(leak_str(v["resource_updated"].as_str().unwrap())),
                };
                if let Err(e) = s.notify(change) {
                    last_error = Some(format!("{e:?}"));
                }
            }
            "advance_ms" => {
                now += v.as_u64().unwrap();
                s.handle_timeout(now);
            }
            "eof" => s.handle_eof(now),
            "expect_error" => {
                let e = last_error
                    .take()
                    .unwrap_or_else(|| panic!("{ctx}: the command succeeded"));
                assert!(e.starts_with(v.as_str().unwrap()), "{ctx}: got {e}");
            }
            other => panic!("{ctx}: unknown step {other}"),
        }
    }
}

#[test]
fn all_vectors() {
    for f in served::vector_files("", 6) {
        run(&f);
    }
}
