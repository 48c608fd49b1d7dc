//! Our own capabilities as a session declares them ("strict on output"): each message
//! that carries them holds only the members its revision defines for our side, in both
//! roles and both eras, and the capability gate uses the declared set once the revision
//! is negotiated. `capability_views.rs` covers the other direction (the peer's, as
//! shown); `core/tests/features.rs` checks `Caps::defined_in` against each schema.

mod common;
use common::*;
use picomcp::json::Json;
use picomcp::protocol::{Caps, Method, ProtocolVersion, Role, Versions};
use picomcp::session::{Event, RequestOptions, SendError, Session};
use serde_json::{Value, json};

/// Every server member of every revision, one of another side (`roots`), and one no
/// revision has (`custom`).
const EVERY_SERVER_MEMBER: &str = r#"{"experimental":{"x":{}},"extensions":{"io.example/e":{}},"tools":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"prompts":{"listChanged":true},"logging":{},"completions":{},"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}},"roots":{"listChanged":true},"custom":{}}"#;

/// Every client member of every revision, one of another side (`tools`), and one no
/// revision has.
const EVERY_CLIENT_MEMBER: &str = r#"{"experimental":{"x":{}},"extensions":{"io.example/e":{}},"roots":{"listChanged":true},"sampling":{"tools":{},"context":{}},"elicitation":{"form":{},"url":{}},"tasks":{"list":{},"cancel":{},"requests":{"elicitation":{"create":{}},"sampling":{"createMessage":{}}}},"tools":{},"custom":{}}"#;

fn init(version: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"{version}","capabilities":{{"elicitation":{{}},"sampling":{{}}}},"clientInfo":{{"name":"t","version":"1"}}}}}}"#
    )
}

fn server_members(version: &str) -> Value {
    let mut v = json!({"experimental": {"x": {}}, "tools": {"listChanged": true},
        "resources": {"subscribe": true, "listChanged": true}, "prompts": {"listChanged": true},
        "logging": {}});
    if version != "2024-11-05" {
        v["completions"] = json!({});
    }
    if version == "2025-11-25" {
        v["tasks"] = json!({"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}});
    }
    if version == "2026-07-28" {
        v["extensions"] = json!({"io.example/e": {}});
    }
    v
}

fn client_members(version: &str) -> Value {
    let mut v = json!({"experimental": {"x": {}}, "roots": {"listChanged": true}, "sampling": {}});
    match version {
        "2025-06-18" => v["elicitation"] = json!({}),
        "2025-11-25" | "2026-07-28" => {
            v["sampling"] = json!({"tools": {}, "context": {}});
            v["elicitation"] = json!({"form": {}, "url": {}});
        }
        _ => {}
    }
    if version == "2025-11-25" {
        v["tasks"] = json!({"list": {}, "cancel": {},
            "requests": {"elicitation": {"create": {}}, "sampling": {"createMessage": {}}}});
    }
    if version == "2026-07-28" {
        v["roots"] = json!({});
        v["extensions"] = json!({"io.example/e": {}});
    }
    v
}

fn every(role: Role) -> Caps {
    let text = match role {
        Role::Server => EVERY_SERVER_MEMBER,
        Role::Client => EVERY_CLIENT_MEMBER,
    };
    Caps::from_json(Json::new(text).unwrap())
}

/// A server configured with every member answers `initialize` at each legacy revision
/// with exactly the members that revision defines for a server (the issue: `tasks` to
/// a 2025-06-18 client), and gates with what it declared.
#[test]
fn server_initialize_result_by_revision() {
    for v in ProtocolVersion::ALL.into_iter().filter(|v| v.is_legacy()) {
        let mut s = Session::new(&server_config(EVERY_SERVER_MEMBER), storage(), 0).unwrap();
        assert_eq!(
            s.capabilities(),
            every(Role::Server),
            "as configured before"
        );
        let (out, _) = feed(&mut s, 0, format!("{}\n", init(v.as_str())).as_bytes());
        let result = &j(&out[0])["result"];
        assert_eq!(result["protocolVersion"], v.as_str());
        assert_eq!(result["capabilities"], server_members(v.as_str()), "{v}");
        assert_eq!(
            s.capabilities(),
            every(Role::Server).declared(Role::Server, v)
        );
    }
    // A proposal the server does not serve: the counter-offer's revision decides.
    let mut config = server_config(EVERY_SERVER_MEMBER);
    config.versions = Versions::of(&[ProtocolVersion::V2025_03_26]);
    let mut s = Session::new(&config, storage(), 0).unwrap();
    let (out, _) = feed(&mut s, 0, format!("{}\n", init("2025-11-25")).as_bytes());
    let result = &j(&out[0])["result"];
    assert_eq!(result["protocolVersion"], "2025-03-26");
    assert_eq!(result["capabilities"], server_members("2025-03-26"));
}

/// 2026-07-28: `server/discover` declares the members of 2026-07-28 (no `tasks`, with
/// `extensions`), whatever legacy revisions the server also serves; the first modern
/// request settles the gate on that set.
#[test]
fn server_discover_result_is_2026_07_28() {
    let mut s = Session::new(&server_config(EVERY_SERVER_MEMBER), storage(), 0).unwrap();
    let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"}}"#;
    let discover =
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{{{meta}}}}}"#);
    let (out, _) = feed(&mut s, 0, format!("{discover}\n").as_bytes());
    let result = &j(&out[0])["result"];
    assert_eq!(result["capabilities"], server_members("2026-07-28"));
    let list = format!(r#"{{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{{{meta}}}}}"#);
    push(&mut s, 0, format!("{list}\n").as_bytes());
    assert!(matches!(s.poll_event(), Some(Event::Request { .. })));
    let v = ProtocolVersion::V2026_07_28;
    assert_eq!(
        s.capabilities(),
        every(Role::Server).declared(Role::Server, v)
    );
    assert!(!s.capabilities().contains(Caps::TASKS));
}

/// A legacy client declares in `initialize` the members of the revision it proposes
/// (the newest legacy one it accepts): `elicitation` only from 2025-06-18, its modes
/// and `tasks` only in 2025-11-25.
#[test]
fn client_initialize_request_by_proposal() {
    for v in ProtocolVersion::ALL.into_iter().filter(|v| v.is_legacy()) {
        let mut config = client_config(EVERY_CLIENT_MEMBER);
        config.versions = Versions::of(&[v]);
        let mut c = Session::new(&config, storage(), 0).unwrap();
        let sent = take_output(&mut c);
        let params = &j(&sent[0])["params"];
        assert_eq!(params["protocolVersion"], v.as_str());
        assert_eq!(params["capabilities"], client_members(v.as_str()), "{v}");
    }
}

/// The server answers an older revision than the client proposed: the client declared
/// more than that revision has, and does not act on it. Its gate uses the members of
/// the negotiated revision: a 2025-03-26 server's `elicitation/create` is refused
/// though the client declared `elicitation` when it proposed 2025-11-25.
#[test]
fn client_gates_by_the_negotiated_revision() {
    let mut c = Session::new(&client_config(EVERY_CLIENT_MEMBER), storage(), 0).unwrap();
    let sent = take_output(&mut c);
    assert_eq!(
        j(&sent[0])["params"]["capabilities"],
        client_members("2025-11-25")
    );
    let id = j(&sent[0])["id"].clone();
    let result = format!(
        r#"{{"jsonrpc":"2.0","id":{id},"result":{{"protocolVersion":"2025-03-26","capabilities":{{}},"serverInfo":{{"name":"s","version":"1"}}}}}}"#
    );
    feed(&mut c, 0, format!("{result}\n").as_bytes());
    let v = ProtocolVersion::V2025_03_26;
    assert_eq!(c.version(), Some(v));
    assert_eq!(
        c.capabilities(),
        every(Role::Client).declared(Role::Client, v)
    );
    assert!(!c.capabilities().contains(Caps::ELICITATION));
    let ask = r#"{"jsonrpc":"2.0","id":7,"method":"elicitation/create","params":{"message":"name?","requestedSchema":{"type":"object","properties":{}}}}"#;
    let (out, evs) = feed(&mut c, 0, format!("{ask}\n").as_bytes());
    assert_eq!(j(&out[0])["error"]["code"], -32601, "{out:?}");
    assert!(
        !evs.iter().any(|e| e.contains("elicitation/create")),
        "{evs:?}"
    );
}

/// The same after a 2025-06-18 answer: `sampling.tools`, declared with the 2025-11-25
/// proposal, is not in 2025-06-18, so a sampling request that uses tools is refused
/// (-32602) as undeclared; one without tools reaches the host.
#[test]
fn client_refuses_sampling_tools_after_a_2025_06_18_answer() {
    let mut c = Session::new(&client_config(EVERY_CLIENT_MEMBER), storage(), 0).unwrap();
    let sent = take_output(&mut c);
    let id = j(&sent[0])["id"].clone();
    let result = format!(
        r#"{{"jsonrpc":"2.0","id":{id},"result":{{"protocolVersion":"2025-06-18","capabilities":{{}},"serverInfo":{{"name":"s","version":"1"}}}}}}"#
    );
    feed(&mut c, 0, format!("{result}\n").as_bytes());
    assert!(!c.capabilities().contains(Caps::SAMPLING_TOOLS));
    assert!(
        c.capabilities()
            .contains(Caps::SAMPLING.with(Caps::ELICITATION))
    );
    let ask = |id: u32, tools: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"sampling/createMessage","params":{{"messages":[{{"role":"user","content":{{"type":"text","text":"hi"}}}}],"maxTokens":5{tools}}}}}"#
        )
    };
    let with_tools = ask(
        8,
        r#","tools":[{"name":"t","inputSchema":{"type":"object"}}]"#,
    );
    let (out, _) = feed(&mut c, 0, format!("{with_tools}\n").as_bytes());
    assert_eq!(j(&out[0])["error"]["code"], -32602, "{out:?}");
    let (out, evs) = feed(&mut c, 0, format!("{}\n", ask(9, "")).as_bytes());
    assert!(out.is_empty(), "{out:?}");
    assert!(
        evs.iter().any(|e| e.contains("sampling/createMessage")),
        "{evs:?}"
    );
}

/// 2026-07-28: the client's request envelope (the `server/discover` probe included)
/// declares the members of 2026-07-28: no `tasks`, a bare `roots`, `extensions` kept.
#[test]
fn client_envelope_is_2026_07_28() {
    let mut config = client_config(EVERY_CLIENT_MEMBER);
    config.versions = Versions::ALL;
    let mut c = Session::new(&config, storage(), 0).unwrap();
    let sent = take_output(&mut c);
    let probe = j(&sent[0]);
    assert_eq!(probe["method"], "server/discover");
    let declared = &probe["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"];
    assert_eq!(*declared, client_members("2026-07-28"));
    let result = format!(
        r#"{{"jsonrpc":"2.0","id":{},"result":{{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{{"tools":{{}}}},"ttlMs":0,"cacheScope":"private","_meta":{{"io.modelcontextprotocol/serverInfo":{{"name":"s","version":"1"}}}}}}}}"#,
        probe["id"]
    );
    feed(&mut c, 0, format!("{result}\n").as_bytes());
    assert_eq!(c.version(), Some(ProtocolVersion::V2026_07_28));
    c.send_request(0, Method::ToolsList, None, RequestOptions::default())
        .unwrap();
    let sent = take_output(&mut c);
    let meta = &j(&sent[0])["params"]["_meta"];
    assert_eq!(
        meta["io.modelcontextprotocol/clientCapabilities"],
        client_members("2026-07-28")
    );
}

/// The server's gate uses the client's capabilities as the negotiated revision reads
/// them: no `elicitation/create` to a 2025-03-26 client that declared `elicitation`;
/// the same client at 2025-06-18 gets it.
#[test]
fn server_sends_no_elicitation_to_a_2025_03_26_client() {
    let ask = r#"{"message":"m","requestedSchema":{"type":"object","properties":{}}}"#;
    for (v, allowed) in [("2025-03-26", false), ("2025-06-18", true)] {
        let mut s = server();
        feed(
            &mut s,
            0,
            format!("{}\n{INITIALIZED}\n", init(v)).as_bytes(),
        );
        let r = s.send_request(
            0,
            Method::ElicitationCreate,
            Some(Json::new(ask).unwrap()),
            RequestOptions::default(),
        );
        assert_eq!(r.is_ok(), allowed, "{v}: {r:?}");
        if !allowed {
            assert!(matches!(r, Err(SendError::NotInVersion(_))), "{r:?}");
        }
    }
}
