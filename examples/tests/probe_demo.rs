//! The probe against the Rust demo server, in every protocol revision: the main job of
//! the project must keep passing.

use std::process::Command;

#[test]
fn probe_passes_against_the_demo_server_in_every_revision() {
    for v in [
        None,
        Some("2024-11-05"),
        Some("2025-03-26"),
        Some("2025-06-18"),
        Some("2025-11-25"),
        Some("2026-07-28"),
    ] {
        let mut c = Command::new(env!("CARGO_BIN_EXE_picomcp-probe"));
        if let Some(v) = v {
            c.args(["--protocol", v]);
        }
        let out = c
            .args(["--json", "--", env!("CARGO_BIN_EXE_picomcp-demo")])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{v:?}: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
