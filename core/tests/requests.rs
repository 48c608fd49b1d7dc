//! Request bookkeeping in both directions: correlation, timeouts, cancellation, progress,
//! capability enforcement of host commands.

mod common;
use common::*;
use picomcp::json::Json;
use picomcp::protocol::{LogLevel, Method};
use picomcp::session::{Event, RequestOptions, RespondError, SendError};

fn next_request(
    s: &mut picomcp::session::Session<'static>,
) -> (picomcp::session::InboundId, Method, String) {
    match s.poll_event() {
        Some(Event::Request { id, method, params }) => (
            id,
            method,
            params.map_or(String::new(), |p| p.as_raw().to_string()),
        ),
        other => panic!("expected a request, got {other:?}"),
    }
}

#[test]
fn request_response_roundtrip_through_pair() {
    let mut p = Pair::new();
    p.handshake();
    let now = p.now;
    let out = p
        .client
        .send_request(now, Method::ToolsList, None, RequestOptions::default())
        .unwrap();
    let c_out = take_output(&mut p.client);
    assert_eq!(j(&c_out[0])["method"], "tools/list");
    push(&mut p.server, now, format!("{}\n", c_out[0]).as_bytes());
    let (id, method, _) = next_request(&mut p.server);
    assert_eq!(method, Method::ToolsList);
    p.server
        .respond(id, Json::new(r#"{"tools":[]}"#).unwrap())
        .unwrap();
    assert_eq!(
        p.server.respond(id, Json::EMPTY_OBJECT),
        Err(RespondError::UnknownRequest),
        "respond twice"
    );
    let s_out = take_output(&mut p.server);
    assert_eq!(s_out.len(), 1);
    push(&mut p.client, now, format!("{}\n", s_out[0]).as_bytes());
    match p.client.poll_event() {
        Some(Event::Response { id, result }) => {
            assert_eq!(id, out);
            assert_eq!(result.as_raw(), r#"{"tools":[]}"#);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn outbound_ids_are_unique_and_never_reused() {
    let mut p = Pair::new();
    p.handshake();
    let mut seen = std::collections::HashSet::new();
    for _ in 0..20 {
        let id = p
            .client
            .send_request(0, Method::Ping, None, RequestOptions::default())
            .unwrap();
        let line = take_output(&mut p.client).pop().unwrap();
        assert!(seen.insert(j(&line)["id"].to_string()));
        p.client.cancel(id, None).unwrap();
        let _ = take_output(&mut p.client);
    }
}

#[test]
fn timeout_sends_cancelled_and_drops_late_response() {
    let mut p = Pair::new();
    p.handshake();
    let opts = RequestOptions {
        timeout_ms: Some(500),
        ..Default::default()
    };
    let id = p
        .client
        .send_request(
            0,
            Method::ToolsCall,
            Some(Json::new(r#"{"name":"x"}"#).unwrap()),
            opts,
        )
        .unwrap();
    let req = take_output(&mut p.client).pop().unwrap();
    let wire_id = j(&req)["id"].clone();
    assert_eq!(p.client.poll_timeout(), Some(500));
    p.client.handle_timeout(499);
    assert!(take_events(&mut p.client).is_empty());
    p.client.handle_timeout(500);
    match p.client.poll_event() {
        Some(Event::TimedOut { id: t }) => assert_eq!(t, id),
        other => panic!("{other:?}"),
    }
    let out = take_output(&mut p.client);
    let cancel = j(&out[0]);
    assert_eq!(cancel["method"], "notifications/cancelled");
    assert_eq!(cancel["params"]["requestId"], wire_id);
    assert_eq!(p.client.poll_timeout(), None);
    // The late response is dropped silently.
    let late = format!("{{\"jsonrpc\":\"2.0\",\"id\":{wire_id},\"result\":{{}}}}\n");
    let (_, ev) = feed(&mut p.client, 600, late.as_bytes());
    assert!(ev.is_empty(), "{ev:?}");
    // A response to an id never used is a violation.
    let (_, ev) = feed(
        &mut p.client,
        600,
        b"{\"jsonrpc\":\"2.0\",\"id\":999,\"result\":{}}\n",
    );
    assert_eq!(ev, ["violation UnknownResponseId"]);
}

#[test]
fn progress_is_routed_and_resets_timeout_up_to_hard_maximum() {
    let mut p = Pair::new();
    p.handshake();
    let opts = RequestOptions {
        timeout_ms: Some(100),
        progress: true,
        reset_timeout_on_progress: true,
        max_total_ms: Some(250),
    };
    let id = p
        .client
        .send_request(
            0,
            Method::ToolsCall,
            Some(Json::new(r#"{"name":"sleep","_meta":{"x":1}}"#).unwrap()),
            opts,
        )
        .unwrap();
    let req = take_output(&mut p.client).pop().unwrap();
    let v = j(&req);
    let token = v["params"]["_meta"]["progressToken"].clone();
    assert_eq!(v["params"]["_meta"]["x"], 1, "existing _meta kept");
    assert_eq!(v["params"]["name"], "sleep");
    // The server side sees the token and may report progress.
    push(&mut p.server, 0, format!("{req}\n").as_bytes());
    let (sid, _, _) = next_request(&mut p.server);
    p.server.progress(sid, 1.0, Some(3.0), Some("one")).unwrap();
    assert_eq!(
        p.server.progress(sid, 1.0, None, None),
        Err(SendError::ProgressNotIncreasing)
    );
    // JSON has no NaN or infinity: refused, never written as `null`.
    for (progress, total) in [
        (f64::INFINITY, None),
        (f64::NAN, None),
        (2.0, Some(f64::INFINITY)),
        (2.0, Some(f64::NAN)),
    ] {
        assert_eq!(
            p.server.progress(sid, progress, total, None),
            Err(SendError::ProgressNotIncreasing)
        );
    }
    let pr = take_output(&mut p.server).pop().unwrap();
    assert_eq!(j(&pr)["params"]["progressToken"], token);
    assert_eq!(j(&pr)["params"]["message"], "one");
    let ev = deliver(&mut p.client, 90, format!("{pr}\n").as_bytes());
    assert_eq!(ev, ["progress 1"]);
    assert_eq!(p.client.poll_timeout(), Some(190), "reset on progress");
    // Non-increasing progress from the peer is dropped.
    let ev = deliver(&mut p.client, 95, format!("{pr}\n").as_bytes());
    assert_eq!(ev, ["violation ProgressNotIncreasing"]);
    let pr2 = pr.replace("\"progress\":1", "\"progress\":2");
    let _ = deliver(&mut p.client, 180, format!("{pr2}\n").as_bytes());
    assert_eq!(
        p.client.poll_timeout(),
        Some(250),
        "capped by the hard maximum"
    );
    p.client.handle_timeout(250);
    match p.client.poll_event() {
        Some(Event::TimedOut { id: t }) => assert_eq!(t, id),
        other => panic!("{other:?}"),
    }
}

#[test]
fn progress_without_token_is_refused() {
    let mut s = ready_server("2025-11-25");
    let _ = feed(
        &mut s,
        0,
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"a\"}}\n",
    );
    // feed consumed the event; send another and keep it.
    push(
        &mut s,
        0,
        b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"a\"}}\n",
    );
    let (id, _, _) = next_request(&mut s);
    assert_eq!(
        s.progress(id, 1.0, None, None),
        Err(SendError::NoProgressToken)
    );
}

#[test]
fn inbound_cancellation_suppresses_the_response() {
    let mut s = ready_server("2025-11-25");
    push(&mut s, 0, b"{\"jsonrpc\":\"2.0\",\"id\":\"abc\",\"method\":\"tools/call\",\"params\":{\"name\":\"sleep\"}}\n");
    let (id, _, _) = next_request(&mut s);
    let ev = deliver(
        &mut s,
        0,
        b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":\"abc\",\"reason\":\"user\"}}\n",
    );
    assert_eq!(ev, ["cancelled user"]);
    assert!(!s.is_open(id));
    s.respond(id, Json::EMPTY_OBJECT).unwrap();
    assert!(
        take_output(&mut s).is_empty(),
        "no response after cancellation"
    );
    // Unknown ids in a cancellation are ignored.
    let (out, ev) = feed(&mut s, 0, b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":77}}\n");
    assert!(out.is_empty() && ev.is_empty());
}

#[test]
fn duplicate_inflight_id_is_invalid_request() {
    let mut s = ready_server("2025-11-25");
    let line = b"{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"sleep\"}}\n";
    push(&mut s, 0, line);
    let (id, _, _) = next_request(&mut s);
    let (out, ev) = feed(&mut s, 0, line);
    assert_eq!(j(&out[0])["error"]["code"], -32600);
    assert_eq!(j(&out[0])["id"], 5);
    assert_eq!(ev, ["violation DuplicateRequestId"]);
    // After answering, the id may be used again.
    s.respond(id, Json::EMPTY_OBJECT).unwrap();
    let _ = take_output(&mut s);
    let (out, ev) = feed(&mut s, 0, line);
    assert!(out.is_empty());
    assert_eq!(ev.len(), 1);
}

#[test]
fn inbound_capability_enforcement() {
    let mut s = ready_server("2025-11-25");
    // The test server declares tools, resources, prompts and logging but not completions.
    for (line, code) in [
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"completion/complete","params":{}}"#,
            -32601,
        ),
        (r#"{"jsonrpc":"2.0","id":2,"method":"roots/list"}"#, -32601),
        (
            r#"{"jsonrpc":"2.0","id":3,"method":"sampling/createMessage","params":{}}"#,
            -32601,
        ),
        (r#"{"jsonrpc":"2.0","id":4,"method":"tasks/list"}"#, -32601),
        (r#"{"jsonrpc":"2.0","id":5,"method":"no/such"}"#, -32601),
        (
            r#"{"jsonrpc":"2.0","id":6,"method":"logging/setLevel","params":{"level":"loud"}}"#,
            -32602,
        ),
    ] {
        let (out, _) = feed(&mut s, 0, format!("{line}\n").as_bytes());
        assert_eq!(j(&out[0])["error"]["code"], code, "{line}");
    }
    let (out, _) = feed(&mut s, 0, b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"logging/setLevel\",\"params\":{\"level\":\"warning\"}}\n");
    assert_eq!(j(&out[0])["result"], serde_json::json!({}));
    assert_eq!(s.log_level(), Some(LogLevel::Warning));
    // Below the level: not sent.
    assert_eq!(
        s.log(LogLevel::Info, None, Json::new("\"x\"").unwrap()),
        Ok(false)
    );
    assert_eq!(
        s.log(LogLevel::Error, Some("db"), Json::new("\"x\"").unwrap()),
        Ok(true)
    );
    let out = take_output(&mut s);
    assert_eq!(
        j(&out[0])["params"],
        serde_json::json!({"level":"error","logger":"db","data":"x"})
    );
    // Unknown notifications are ignored silently.
    let (out, ev) = feed(
        &mut s,
        0,
        b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/whatever\"}\n",
    );
    assert!(out.is_empty() && ev.is_empty());
}

#[test]
fn completion_ungated_in_2024_11_05() {
    let mut s = ready_server("2024-11-05");
    let (out, ev) = feed(
        &mut s,
        0,
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"completion/complete\",\"params\":{}}\n",
    );
    assert!(out.is_empty(), "{out:?}");
    assert_eq!(ev.len(), 1);
}

#[test]
fn outbound_capability_enforcement() {
    // Server without completions, client with roots + sampling but no elicitation.
    let mut p = Pair::new();
    p.handshake();
    let s = &mut p.server;
    assert_eq!(s.send_notification(Method::ToolsListChanged, None), Ok(()));
    assert_eq!(
        s.send_notification(Method::PromptsListChanged, None),
        Err(SendError::NotNegotiated(Method::PromptsListChanged))
    );
    assert_eq!(
        s.send_notification(
            Method::ResourcesUpdated,
            Some(Json::new(r#"{"uri":"x"}"#).unwrap())
        ),
        Ok(())
    );
    assert!(
        s.send_request(0, Method::RootsList, None, RequestOptions::default())
            .is_ok()
    );
    assert!(
        s.send_request(
            0,
            Method::SamplingCreateMessage,
            Some(Json::EMPTY_OBJECT),
            RequestOptions::default()
        )
        .is_ok()
    );
    assert_eq!(
        s.send_request(
            0,
            Method::ElicitationCreate,
            Some(Json::EMPTY_OBJECT),
            RequestOptions::default()
        ),
        Err(SendError::NotNegotiated(Method::ElicitationCreate))
    );
    assert_eq!(
        s.send_request(0, Method::ToolsList, None, RequestOptions::default()),
        Err(SendError::WrongDirection(Method::ToolsList))
    );
    assert_eq!(
        s.send_notification(Method::Cancelled, None),
        Err(SendError::Reserved(Method::Cancelled))
    );
    let c = &mut p.client;
    assert_eq!(
        c.send_request(
            0,
            Method::CompletionComplete,
            Some(Json::EMPTY_OBJECT),
            RequestOptions::default()
        ),
        Err(SendError::NotNegotiated(Method::CompletionComplete))
    );
    assert!(
        c.send_request(
            0,
            Method::ResourcesSubscribe,
            Some(Json::new(r#"{"uri":"x"}"#).unwrap()),
            RequestOptions::default()
        )
        .is_ok()
    );
    assert_eq!(c.send_notification(Method::RootsListChanged, None), Ok(()));
    assert_eq!(
        c.send_notification(Method::ToolsListChanged, None),
        Err(SendError::WrongDirection(Method::ToolsListChanged))
    );
    assert_eq!(
        c.send_request(
            0,
            Method::ToolsList,
            Some(Json::new("[]").unwrap()),
            RequestOptions::default()
        ),
        Err(SendError::ParamsNotObject)
    );
}

#[test]
fn client_gates_inbound_server_requests_by_its_own_caps() {
    let mut p = Pair::new();
    p.handshake();
    // The client did not declare elicitation.
    let (out, ev) = feed(
        &mut p.client,
        0,
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"elicitation/create\",\"params\":{}}\n",
    );
    assert_eq!(j(&out[0])["error"]["code"], -32601);
    assert_eq!(ev, ["violation NotNegotiated(ElicitationCreate)"]);
    let (out, ev) = feed(
        &mut p.client,
        0,
        b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"roots/list\"}\n",
    );
    assert!(out.is_empty());
    assert_eq!(ev, ["request roots/list -"]);
    let (out, _) = feed(
        &mut p.client,
        0,
        b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}\n",
    );
    assert_eq!(j(&out[0])["result"], serde_json::json!({}));
}

#[test]
fn host_may_not_send_before_ready() {
    let mut s = server();
    // Nobody is connected yet: a change notification reaches nobody.
    assert!(matches!(
        s.send_notification(Method::ToolsListChanged, None),
        Ok(())
    ));
    assert!(take_output(&mut s).is_empty());
    assert!(matches!(
        s.send_request(0, Method::RootsList, None, RequestOptions::default()),
        Err(SendError::WrongPhase(_))
    ));

    assert!(
        s.send_request(0, Method::Ping, None, RequestOptions::default())
            .is_ok()
    );
}

#[test]
fn ids_are_echoed_byte_exact() {
    let mut s = ready_server("2025-11-25");
    for raw in [
        "123456789012345678901234567890",
        "-0",
        r#""\u0031""#,
        r#""a\/b""#,
        r#""é""#,
    ] {
        let (out, _) = feed(
            &mut s,
            0,
            format!("{{\"jsonrpc\":\"2.0\",\"id\":{raw},\"method\":\"ping\"}}\n").as_bytes(),
        );
        assert_eq!(
            out[0],
            format!("{{\"jsonrpc\":\"2.0\",\"id\":{raw},\"result\":{{}}}}")
        );
    }
    push(
        &mut s,
        0,
        br#"{"jsonrpc":"2.0","id":"\u0031","method":"tools/list"}
"#,
    );
    let (id, _, _) = next_request(&mut s);
    s.respond(id, Json::new(r#"{"tools":[]}"#).unwrap())
        .unwrap();
    assert_eq!(
        take_output(&mut s)[0],
        r#"{"jsonrpc":"2.0","id":"\u0031","result":{"tools":[]}}"#
    );
}

#[test]
fn duplicate_response_is_a_violation_late_one_is_not() {
    let mut p = Pair::new();
    p.handshake();
    let now = p.now;
    // One request answered normally, then answered again: a duplicate.
    p.client
        .send_request(now, Method::ToolsList, None, RequestOptions::default())
        .unwrap();
    let wire = j(&take_output(&mut p.client).pop().unwrap())["id"].clone();
    let answer = format!("{{\"jsonrpc\":\"2.0\",\"id\":{wire},\"result\":{{\"tools\":[]}}}}\n");
    let ev = deliver(&mut p.client, now, answer.as_bytes());
    assert_eq!(ev.len(), 1, "{ev:?}");
    assert!(ev[0].starts_with("response"), "{ev:?}");
    let ev = deliver(&mut p.client, now, answer.as_bytes());
    assert_eq!(ev, ["violation DuplicateResponse"]);
    // A cancelled request's late answer is normal, even with more requests after it.
    let id = p
        .client
        .send_request(now, Method::ToolsList, None, RequestOptions::default())
        .unwrap();
    let wire = j(&take_output(&mut p.client).pop().unwrap())["id"].clone();
    p.client.cancel(id, None).unwrap();
    let _ = take_output(&mut p.client);
    for _ in 0..3 {
        p.client
            .send_request(now, Method::Ping, None, RequestOptions::default())
            .unwrap();
    }
    let late = format!("{{\"jsonrpc\":\"2.0\",\"id\":{wire},\"result\":{{\"tools\":[]}}}}\n");
    let ev = deliver(&mut p.client, now, late.as_bytes());
    assert!(ev.is_empty(), "{ev:?}");
}

#[test]
fn progress_for_no_request_of_ours_is_a_violation_late_progress_is_not() {
    let mut p = Pair::new();
    p.handshake();
    let now = p.now;
    let progress = |token: &str| {
        format!(
            "{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{{\"progressToken\":{token},\"progress\":1}}}}\n"
        )
    };
    // A string token, a token never issued, and no token at all.
    for bad in [progress("\"nobody\""), progress("999")] {
        let ev = deliver(&mut p.client, now, bad.as_bytes());
        assert_eq!(ev, ["violation UnknownProgressToken"], "{bad}");
    }
    let none =
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progress\":1}}\n";
    let ev = deliver(&mut p.client, now, none.as_bytes());
    assert_eq!(ev, ["violation UnknownProgressToken"]);
    // Progress for an in-flight request that did not ask for it.
    p.client
        .send_request(now, Method::ToolsList, None, RequestOptions::default())
        .unwrap();
    let wire = j(&take_output(&mut p.client).pop().unwrap())["id"].to_string();
    let ev = deliver(&mut p.client, now, progress(&wire).as_bytes());
    assert_eq!(ev, ["violation UnknownProgressToken"]);
    // Late progress for a request that asked for it and has been answered: dropped quietly.
    let opts = RequestOptions {
        progress: true,
        ..Default::default()
    };
    p.client
        .send_request(now, Method::ToolsList, None, opts)
        .unwrap();
    let wire = j(&take_output(&mut p.client).pop().unwrap())["id"].to_string();
    let answer = format!("{{\"jsonrpc\":\"2.0\",\"id\":{wire},\"result\":{{\"tools\":[]}}}}\n");
    let _ = deliver(&mut p.client, now, answer.as_bytes());
    let ev = deliver(&mut p.client, now, progress(&wire).as_bytes());
    assert!(ev.is_empty(), "{ev:?}");
}

/// Ids name the same request by value, not by spelling: `"\u0031"` while `"1"` is in
/// flight is a duplicate (the in-flight check compares bytes first and unescapes only
/// when either id has an escape), while the integer `1` and a different string are not.
#[test]
fn a_duplicate_id_is_found_whatever_its_escapes() {
    let mut s = ready_server("2025-11-25");
    push(
        &mut s,
        0,
        b"{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"method\":\"tools/list\"}\n",
    );
    let (first, _, _) = next_request(&mut s);
    let (out, _) = feed(
        &mut s,
        0,
        br#"{"jsonrpc":"2.0","id":"\u0031","method":"tools/list"}
"#,
    );
    assert_eq!(out.len(), 1, "{out:?}");
    assert!(
        out[0].starts_with(r#"{"jsonrpc":"2.0","id":"\u0031","error":{"code":-32600"#),
        "{}",
        out[0]
    );
    for other in [r#"1"#, r#""\u0032""#, r#""11""#] {
        push(
            &mut s,
            0,
            format!("{{\"jsonrpc\":\"2.0\",\"id\":{other},\"method\":\"tools/list\"}}\n")
                .as_bytes(),
        );
        let (id, _, _) = next_request(&mut s);
        s.respond(id, Json::new(r#"{"tools":[]}"#).unwrap())
            .unwrap();
    }
    let _ = take_output(&mut s);
    s.respond(first, Json::new(r#"{"tools":[]}"#).unwrap())
        .unwrap();
    assert_eq!(
        take_output(&mut s)[0],
        r#"{"jsonrpc":"2.0","id":"1","result":{"tools":[]}}"#
    );
}

/// `poll_event_copied` hands out the text it copied, whatever the scratch held before:
/// bytes that are not UTF-8 right after the copy (the check reads on to a 64-byte
/// boundary, which the copy first zeroes), multi-byte characters, a scratch that ends
/// exactly with the text, and one too small (the event stays queued).
#[test]
fn copied_events_ignore_what_the_scratch_held() {
    let mut s = ready_server("2025-11-25");
    let mut lines = String::new();
    let mut want = Vec::new();
    for n in [0usize, 1, 7, 60, 61, 64, 100, 200] {
        let params = format!(
            r#"{{"name":"t","arguments":{{"text":"{}"}}}}"#,
            "é€𝄞x".repeat(n)
        );
        lines.push_str(&format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{n},\"method\":\"tools/call\",\"params\":{params}}}\n"
        ));
        want.push(params);
    }
    push(&mut s, 0, lines.as_bytes());
    for (k, params) in want.iter().enumerate() {
        let exact = k % 2 == 1;
        let mut scratch = vec![
            0xFFu8;
            if exact {
                params.len()
            } else {
                params.len() + 200
            }
        ];
        if exact {
            let mut small = vec![0xFFu8; params.len() - 1];
            assert_eq!(
                s.poll_event_copied(&mut small).unwrap_err().required,
                params.len()
            );
        }
        let Some(Event::Request { params: got, .. }) = s.poll_event_copied(&mut scratch).unwrap()
        else {
            panic!("no request for {params}");
        };
        assert_eq!(got.map(|p| p.as_raw()), Some(params.as_str()));
    }
}
