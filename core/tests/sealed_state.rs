//! Rule: with `Config::state_key` a 2026-07-28 server seals the `requestState` of an
//! `input_required` result (HMAC-SHA256, an expiry, bound to the request's method and
//! name/uri) and verifies and strips the seal on the retry; a tampered, expired, foreign
//! or unsealed state is answered -32602 and the host never sees it (MODERN §8.4).

mod common;
use common::*;
use picomcp::json::Json;
use picomcp::protocol::{Method, Versions};
use picomcp::session::{ConfigError, Event, RequestOptions, Session};

const KEY: &[u8] = b"0123456789abcdef0123456789abcdef";
const CAPS: &str = r#"{"elicitation":{}}"#;

fn sealing_server(ttl: u64) -> Session<'static> {
    let mut c = server_config(SERVER_CAPS);
    c.state_key = Some(KEY);
    c.state_ttl_ms = ttl;
    Session::new(&c, storage(), 0).unwrap()
}

fn call(id: u32, method: &str, name: &str, state: Option<&str>) -> String {
    let target = if method == "resources/read" {
        format!(r#""uri":"{name}""#)
    } else {
        format!(r#""name":"{name}""#)
    };
    let state = state.map_or(String::new(), |s| {
        format!(r#","inputResponses":{{}},"requestState":"{s}""#)
    });
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{{target}{state},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{CAPS},"io.modelcontextprotocol/clientInfo":{{"name":"c","version":"1"}}}}}}}}"#
    ) + "\n"
}

/// The sealed state the server sends for `state` on a `method` request for `name`.
fn sealed(s: &mut Session<'static>, now: u64, method: &str, name: &str, state: &str) -> String {
    push(s, now, call(1, method, name, None).as_bytes());
    let Some(Event::Request { id, .. }) = s.poll_event() else {
        panic!()
    };
    s.respond_input_required(id, None, Some(state)).unwrap();
    let v = j(&take_output(s)[0]);
    v["result"]["requestState"].as_str().unwrap().to_string()
}

#[test]
fn the_state_goes_out_sealed_and_comes_back_plain() {
    let mut c = client_config(CAPS);
    c.versions = Versions::ALL;
    let mut sc = server_config(SERVER_CAPS);
    sc.state_key = Some(KEY);
    let mut p = Pair::with(sc, c);
    p.handshake();
    let h = p
        .client
        .send_request(
            p.now,
            Method::ToolsCall,
            Some(Json::new(r#"{"name":"deploy"}"#).unwrap()),
            RequestOptions::default(),
        )
        .unwrap();
    for l in take_output(&mut p.client) {
        push(&mut p.server, p.now, format!("{l}\n").as_bytes());
    }
    let Some(Event::Request { id, .. }) = p.server.poll_event() else {
        panic!()
    };
    let state = "step=2;who=\"ana\";é";
    p.server
        .respond_input_required(id, None, Some(state))
        .unwrap();
    let out = take_output(&mut p.server);
    let sent = j(&out[0])["result"]["requestState"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(sent.starts_with("s1.600000."), "{sent}");
    assert!(
        sent.ends_with(state),
        "the host's state follows the seal: {sent}"
    );
    for l in out {
        push(&mut p.client, p.now, format!("{l}\n").as_bytes());
    }
    let Some(Event::InputRequired { id: got, .. }) = p.client.poll_event() else {
        panic!()
    };
    assert_eq!(got, h);
    p.client.answer_input(p.now, h, Json::EMPTY_OBJECT).unwrap();
    for l in take_output(&mut p.client) {
        push(&mut p.server, p.now, format!("{l}\n").as_bytes());
    }
    let Some(Event::Request { params, .. }) = p.server.poll_event() else {
        panic!()
    };
    let params: serde_json::Value = serde_json::from_str(params.unwrap().as_raw()).unwrap();
    assert_eq!(params["requestState"], state, "plain for the host");
    assert_eq!(params["name"], "deploy");
}

#[test]
fn an_escaped_echo_of_the_same_characters_still_verifies() {
    let mut s = sealing_server(1000);
    let state = sealed(&mut s, 0, "tools/call", "t", "é/ok");
    // The client escapes differently (JSON allows it): the seal covers characters.
    let echoed = state.replace('é', "\\u00e9").replace('/', "\\/");
    push(
        &mut s,
        0,
        call(2, "tools/call", "t", Some(&echoed)).as_bytes(),
    );
    let Some(Event::Request { params, .. }) = s.poll_event() else {
        panic!("{:?}", take_output(&mut s))
    };
    let params: serde_json::Value = serde_json::from_str(params.unwrap().as_raw()).unwrap();
    assert_eq!(params["requestState"], "é/ok");
}

#[test]
fn bad_states_are_answered_32602_and_never_reach_the_host() {
    let mut s = sealing_server(1000);
    let good = sealed(&mut s, 0, "tools/call", "a", "n=1");
    let flip = |s: &str, at: usize| {
        let mut b = s.as_bytes().to_vec();
        b[at] = if b[at] == b'A' { b'B' } else { b'A' };
        String::from_utf8(b).unwrap()
    };
    let cases: Vec<(&str, String, &str, u64, &str)> = vec![
        (
            "state altered",
            good.replace("n=1", "n=9"),
            "tools/call",
            0,
            "verification",
        ),
        (
            "mac altered",
            flip(&good, 12),
            "tools/call",
            0,
            "verification",
        ),
        (
            "expiry altered",
            good.replacen("s1.1000.", "s1.9000.", 1),
            "tools/call",
            0,
            "verification",
        ),
        (
            "another tool",
            good.clone(),
            "a-different-tool",
            0,
            "verification",
        ),
        ("unsealed", "n=1".into(), "tools/call", 0, "verification"),
        ("expired", good.clone(), "tools/call", 1001, "expired"),
    ];
    for (what, state, target, now, why) in cases {
        let (method, name) = if target == "a-different-tool" {
            ("tools/call", "b")
        } else {
            (target, "a")
        };
        let (out, ev) = feed(&mut s, now, call(7, method, name, Some(&state)).as_bytes());
        let e = j(&out[0]);
        assert_eq!(e["id"], 7, "{what}");
        assert_eq!(e["error"]["code"], -32602, "{what}");
        assert!(
            e["error"]["message"].as_str().unwrap().contains(why),
            "{what}: {e}"
        );
        assert_eq!(ev, vec!["violation InvalidParams(ToolsCall)"], "{what}");
    }
    // The session's clock only moves forward: the good state is now expired too.
    let (out, _) = feed(
        &mut s,
        5,
        call(8, "tools/call", "a", Some(&good)).as_bytes(),
    );
    assert_eq!(j(&out[0])["error"]["code"], -32602);
}

#[test]
fn a_state_is_bound_to_its_method() {
    let mut s = sealing_server(1000);
    let from_prompt = sealed(&mut s, 0, "prompts/get", "a", "x");
    let (out, ev) = feed(
        &mut s,
        0,
        call(3, "tools/call", "a", Some(&from_prompt)).as_bytes(),
    );
    assert_eq!(j(&out[0])["error"]["code"], -32602);
    assert_eq!(ev, vec!["violation InvalidParams(ToolsCall)"]);
    let from_read = sealed(&mut s, 0, "resources/read", "file:///a", "x");
    push(
        &mut s,
        0,
        call(4, "resources/read", "file:///a", Some(&from_read)).as_bytes(),
    );
    assert!(matches!(s.poll_event(), Some(Event::Request { .. })));
}

#[test]
fn without_a_key_states_pass_through_and_short_keys_are_refused() {
    let mut s = server();
    let state = sealed(&mut s, 0, "tools/call", "a", "plain");
    assert_eq!(state, "plain");
    push(
        &mut s,
        0,
        call(2, "tools/call", "a", Some("anything")).as_bytes(),
    );
    assert!(matches!(s.poll_event(), Some(Event::Request { .. })));
    let mut c = server_config(SERVER_CAPS);
    c.state_key = Some(b"too short");
    assert_eq!(
        Session::new(&c, storage(), 0).err(),
        Some(ConfigError::StateKey)
    );
    // Keys longer than SHA-256's block are hashed (RFC 2104) and work.
    let mut c = server_config(SERVER_CAPS);
    c.state_key = Some(&[7u8; 100]);
    let mut s = Session::new(&c, storage(), 0).unwrap();
    let st = sealed(&mut s, 0, "tools/call", "a", "z");
    push(&mut s, 0, call(2, "tools/call", "a", Some(&st)).as_bytes());
    assert!(matches!(s.poll_event(), Some(Event::Request { .. })));
}
