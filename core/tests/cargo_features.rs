//! The role and era Cargo features: what a session refuses when one is compiled out.
//! `tests/run nostd` runs this file in the reduced builds
//! (`--no-default-features --features server,legacy`, `… server,modern`, `… client`);
//! with the default features only the full-build checks run.

#![allow(unused_imports, dead_code)]

use picomcp::json::Json;
use picomcp::protocol::{ProtocolVersion, Versions};
use picomcp::session::{Config, ConfigError, Session, StaticStorage};

type Mem = StaticStorage<1024, 2048, 2048, 2, 2, 512>;

fn config(mut c: Config<'static>) -> Config<'static> {
    c.limits.max_line = 1024;
    c.arena_bytes = 0;
    c.batch_bytes = 0;
    c
}

fn server() -> Config<'static> {
    config(Config::server(
        "s",
        "1",
        Json::new(r#"{"tools":{}}"#).unwrap(),
    ))
}

fn client() -> Config<'static> {
    config(Config::client("c", "1", Json::new("{}").unwrap()))
}

/// Feeds `line` and returns everything the session wrote.
fn exchange(s: &mut Session<'_>, line: &str) -> String {
    let bytes = format!("{line}\n");
    assert_eq!(s.handle_bytes(0, bytes.as_bytes()), bytes.len());
    while s.poll_event().is_some() {}
    let out = String::from_utf8(s.pending_transmit().to_vec()).unwrap();
    let n = out.len();
    s.advance_transmit(n);
    out
}

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
const DISCOVER: &str = r#"{"jsonrpc":"2.0","id":2,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;

#[cfg(feature = "server")]
#[test]
fn a_server_serves_the_compiled_eras() {
    let mut mem = Mem::new();
    let mut s = Session::new(&server(), mem.as_storage(), 0).unwrap();
    let discover = exchange(&mut s, DISCOVER);
    if cfg!(feature = "modern") {
        assert!(discover.contains(r#""supportedVersions""#), "{discover}");
    } else {
        // Without `modern`: a legacy-only server, so the probe is an unknown method.
        assert!(discover.contains(r#""code":-32601"#), "{discover}");
    }
    let mut mem = Mem::new();
    let mut s = Session::new(&server(), mem.as_storage(), 0).unwrap();
    let init = exchange(&mut s, INIT);
    if cfg!(feature = "legacy") {
        assert!(init.contains(r#""protocolVersion":"2025-11-25""#), "{init}");
    } else {
        // Without `legacy`: a modern-only server refuses the handshake.
        assert!(init.contains(r#""error""#), "{init}");
    }
}

#[cfg(not(feature = "client"))]
#[test]
fn a_client_config_is_refused_without_the_client_feature() {
    let mut mem = Mem::new();
    let r = Session::new(&client(), mem.as_storage(), 0);
    assert_eq!(r.err(), Some(ConfigError::RoleNotCompiled));
}

#[cfg(not(feature = "server"))]
#[test]
fn a_server_config_is_refused_without_the_server_feature() {
    let mut mem = Mem::new();
    let r = Session::new(&server(), mem.as_storage(), 0);
    assert_eq!(r.err(), Some(ConfigError::RoleNotCompiled));
}

#[cfg(all(feature = "server", not(feature = "modern")))]
#[test]
fn only_modern_revisions_without_the_modern_feature_is_no_versions() {
    let mut c = server();
    c.versions = Versions::of(&[ProtocolVersion::V2026_07_28]);
    let mut mem = Mem::new();
    let r = Session::new(&c, mem.as_storage(), 0);
    assert_eq!(r.err(), Some(ConfigError::NoVersions));
}

#[cfg(all(feature = "server", not(feature = "legacy")))]
#[test]
fn only_legacy_revisions_without_the_legacy_feature_is_no_versions() {
    let mut c = server();
    c.versions = Versions::LEGACY;
    let mut mem = Mem::new();
    let r = Session::new(&c, mem.as_storage(), 0);
    assert_eq!(r.err(), Some(ConfigError::NoVersions));
}

#[cfg(all(feature = "client", feature = "legacy", not(feature = "server")))]
#[test]
fn a_client_only_build_still_connects() {
    let mut mem = Mem::new();
    let s = Session::new(&client(), mem.as_storage(), 0).unwrap();
    let out = String::from_utf8(s.pending_transmit().to_vec()).unwrap();
    assert!(
        out.contains("server/discover") || out.contains("initialize"),
        "{out}"
    );
}

/// `state_key` needs the `seal` feature: a build without it refuses the key rather than
/// send states unsealed that the host believes sealed.
#[cfg(feature = "server")]
#[test]
fn a_state_key_needs_the_seal_feature() {
    let mut c = server();
    c.state_key = Some(b"0123456789abcdef");
    let mut mem = Mem::new();
    let r = Session::new(&c, mem.as_storage(), 0).map(|_| ());
    if cfg!(feature = "seal") {
        assert_eq!(r, Ok(()));
    } else {
        assert_eq!(r, Err(ConfigError::StateKey));
    }
}
