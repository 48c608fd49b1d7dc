//! `src/generated.rs` is rendered from the core's tables; this test fails when it drifts.
//! Regenerate with `PICOMCP_REGENERATE=1 cargo test -p picomcp-ffi generated_tables` (or
//! `ffi/gen-header.sh`, which does that and then regenerates the header).

use std::fmt::Write as _;

use picomcp_core::protocol::{FEATURES, METHODS, MethodKind, ProtocolVersion, Versions};

use crate::convert::versions_to_c;

/// The expected text of `src/generated.rs`.
pub fn render() -> String {
    let mut s = String::new();
    s.push_str(
        "//! @generated from the core's method table (`picomcp::protocol::METHODS`), revision\n\
         //! list (`ProtocolVersion::ALL`) and feature table (`picomcp::protocol::FEATURES`)\n\
         //! by the test `generated_tables_in_sync`.\n\
         //! Do not edit: run `ffi/gen-header.sh` (or `PICOMCP_REGENERATE=1 cargo test -p\n\
         //! picomcp-ffi generated_tables`).\n\n",
    );
    s.push_str(
        "/// Every MCP method picomcp knows: its row in the core's method table. Events carry\n\
         /// it in `picomcp_event.method` (next to `method_name`); commands take the wire name.\n\
         #[repr(i32)]\n#[derive(Debug, Clone, Copy, PartialEq, Eq)]\npub enum picomcp_method {\n\
         \x20   /// No method (the event has none).\n    None = -1,\n",
    );
    for (i, m) in METHODS.iter().enumerate() {
        let kind = match m.kind {
            MethodKind::Request => "request",
            MethodKind::Notification => "notification",
        };
        writeln!(
            s,
            "    /// `{}` ({kind}, since {})",
            m.name,
            m.since.as_str()
        )
        .unwrap();
        writeln!(s, "    {:?} = {i},", m.method).unwrap();
    }
    s.push_str("}\n\n");
    s.push_str(
        "/// A protocol revision, as a bit: `picomcp_config.versions` is an OR of these, and\n\
         /// events and `picomcp_session_version` report one.\n\
         #[repr(u32)]\n#[derive(Debug, Clone, Copy, PartialEq, Eq)]\npub enum picomcp_version {\n",
    );
    for (i, v) in ProtocolVersion::ALL.iter().enumerate() {
        let era = if v.is_legacy() {
            "legacy `initialize` handshake"
        } else {
            "modern era"
        };
        writeln!(s, "    /// {} ({era})", v.as_str()).unwrap();
        writeln!(s, "    {:?} = {},", v, 1u32 << i).unwrap();
    }
    s.push_str("}\n\n");
    writeln!(
        s,
        "/// Every revision with the legacy `initialize` handshake.\npub const PICOMCP_VERSIONS_LEGACY: u32 = {:#x};",
        versions_to_c(Versions::LEGACY)
    )
    .unwrap();
    writeln!(
        s,
        "/// Every revision picomcp knows.\npub const PICOMCP_VERSIONS_ALL: u32 = {:#x};",
        versions_to_c(Versions::ALL)
    )
    .unwrap();
    s.push_str(
        "\n/// One difference between protocol revisions: a row of the core's feature table.\n\
         /// Ask `picomcp_version_has(version, feature, &yes)` instead of comparing revisions;\n\
         /// `picomcp_feature_name` gives the name the Python and Node bindings use.\n\
         #[repr(u32)]\n#[derive(Debug, Clone, Copy, PartialEq, Eq)]\npub enum picomcp_feature {\n",
    );
    for (i, f) in FEATURES.iter().enumerate() {
        let list: Vec<&str> = f.versions.iter().map(|v| v.as_str()).collect();
        writeln!(
            s,
            "    /// `{}` ({}): {}.",
            f.name,
            list.join(", "),
            f.summary
        )
        .unwrap();
        writeln!(s, "    {:?} = {i},", f.feature).unwrap();
    }
    s.push_str("}\n");
    s
}

#[test]
#[cfg_attr(miri, ignore = "reads and writes files")]
fn generated_tables_in_sync() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/generated.rs");
    let want = render();
    if std::env::var_os("PICOMCP_REGENERATE").is_some() {
        std::fs::write(path, &want).unwrap();
        return;
    }
    let have = std::fs::read_to_string(path).unwrap();
    assert!(
        have == want,
        "ffi/src/generated.rs is out of date with the core's tables: run ffi/gen-header.sh"
    );
}
