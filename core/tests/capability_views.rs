//! The peer's capabilities as a session shows them, masked by the negotiated revision
//! (`Caps::in_version`), in both roles and both eras. `core/tests/features.rs` checks
//! `Caps::defined_in` against each revision's schema.

mod common;
use common::*;
use picomcp::protocol::{Caps, ProtocolVersion, Versions};
use picomcp::session::{Event, Session};

/// Every member a client could declare, in any revision.
const EVERY_CLIENT_MEMBER: &str = r#"{"roots":{"listChanged":true},"sampling":{"tools":{},"context":{}},"elicitation":{"form":{},"url":{}},"tasks":{"list":{},"cancel":{}},"experimental":{"x":{}}}"#;

/// Every member a server could declare, in any revision.
const EVERY_SERVER_MEMBER: &str = r#"{"tools":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"prompts":{"listChanged":true},"logging":{},"completions":{},"tasks":{"list":{},"cancel":{}}}"#;

fn init(version: &str, caps: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"{version}","capabilities":{caps},"clientInfo":{{"name":"t","version":"1"}}}}}}"#
    )
}

/// What a legacy server shows of a client that declared every member: only what the
/// revision has (the issue: `elicitation` from a 2025-03-26 client).
#[test]
fn legacy_server_sees_the_client_members_of_its_revision() {
    let expected = [
        (
            "2024-11-05",
            r#"{"roots":{"listChanged":true},"sampling":{}}"#,
        ),
        (
            "2025-03-26",
            r#"{"roots":{"listChanged":true},"sampling":{}}"#,
        ),
        (
            "2025-06-18",
            r#"{"roots":{"listChanged":true},"sampling":{},"elicitation":{}}"#,
        ),
        (
            "2025-11-25",
            r#"{"roots":{"listChanged":true},"sampling":{"tools":{},"context":{}},"elicitation":{"form":{},"url":{}},"tasks":{"list":{},"cancel":{}}}"#,
        ),
    ];
    for (version, shown) in expected {
        let mut s = server();
        let (out, _) = feed(
            &mut s,
            0,
            format!("{}\n{INITIALIZED}\n", init(version, EVERY_CLIENT_MEMBER)).as_bytes(),
        );
        assert_eq!(j(&out[0])["result"]["protocolVersion"], version);
        assert_eq!(s.peer_capabilities().json().to_string(), shown, "{version}");
    }
    // A bare `elicitation` from a 2025-03-26 client: nothing of it is left.
    let mut s = server();
    feed(
        &mut s,
        0,
        format!(
            "{}\n{INITIALIZED}\n",
            init("2025-03-26", r#"{"elicitation":{}}"#)
        )
        .as_bytes(),
    );
    assert_eq!(s.peer_capabilities(), Caps::NONE);
}

/// A 2026-07-28 request's own client capabilities: no `tasks`, no `roots.listChanged`.
#[test]
fn modern_request_shows_the_members_of_2026_07_28() {
    let mut s = server();
    let line = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{EVERY_CLIENT_MEMBER},"io.modelcontextprotocol/clientInfo":{{"name":"c","version":"1"}}}}}}}}"#
    );
    push(&mut s, 0, format!("{line}\n").as_bytes());
    let Some(Event::Request { id, .. }) = s.poll_event() else {
        panic!("no request")
    };
    let info = s.request_info(id).unwrap();
    assert!(info.modern);
    assert_eq!(
        info.client_capabilities.json().to_string(),
        r#"{"roots":{},"sampling":{"tools":{},"context":{}},"elicitation":{"form":{},"url":{}}}"#
    );
}

/// The other direction: what a client shows of the server's capabilities.
#[test]
fn client_sees_the_server_members_of_its_revision() {
    let expected = [
        (
            "2024-11-05",
            r#"{"tools":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"prompts":{"listChanged":true},"logging":{}}"#,
        ),
        (
            "2025-06-18",
            r#"{"tools":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"prompts":{"listChanged":true},"logging":{},"completions":{}}"#,
        ),
        (
            "2025-11-25",
            r#"{"tasks":{"list":{},"cancel":{}},"tools":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"prompts":{"listChanged":true},"logging":{},"completions":{}}"#,
        ),
    ];
    for (version, shown) in expected {
        let mut c = Session::new(&client_config(CLIENT_CAPS), storage(), 0).unwrap();
        let sent = take_output(&mut c);
        assert_eq!(j(&sent[0])["method"], "initialize");
        let id = j(&sent[0])["id"].clone();
        let result = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"result":{{"protocolVersion":"{version}","capabilities":{EVERY_SERVER_MEMBER},"serverInfo":{{"name":"s","version":"1"}}}}}}"#
        );
        feed(&mut c, 0, format!("{result}\n").as_bytes());
        assert_eq!(c.version(), ProtocolVersion::parse(version));
        assert_eq!(c.peer_capabilities().json().to_string(), shown, "{version}");
    }
    // 2026-07-28, from `server/discover`: no `tasks`.
    let mut config = client_config(CLIENT_CAPS);
    config.versions = Versions::ALL;
    let mut c = Session::new(&config, storage(), 0).unwrap();
    let sent = take_output(&mut c);
    assert_eq!(j(&sent[0])["method"], "server/discover");
    let id = j(&sent[0])["id"].clone();
    let result = format!(
        r#"{{"jsonrpc":"2.0","id":{id},"result":{{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{EVERY_SERVER_MEMBER},"ttlMs":0,"cacheScope":"private","_meta":{{"io.modelcontextprotocol/serverInfo":{{"name":"s","version":"1"}}}}}}}}"#
    );
    feed(&mut c, 0, format!("{result}\n").as_bytes());
    assert_eq!(c.version(), Some(ProtocolVersion::V2026_07_28));
    assert_eq!(
        c.peer_capabilities().json().to_string(),
        r#"{"tools":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"prompts":{"listChanged":true},"logging":{},"completions":{}}"#
    );
}
