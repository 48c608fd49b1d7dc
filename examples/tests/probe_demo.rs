//! The probe against the Rust demo server, in every protocol revision: the main job of
//! the project must keep passing. The probe runs in-process (its crate is a library with a
//! thin binary); the demo server is this package's binary.

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
        let mut args: Vec<String> = Vec::new();
        if let Some(v) = v {
            args.extend(["--protocol".into(), v.into()]);
        }
        args.extend(["--json", "--", env!("CARGO_BIN_EXE_picomcp-demo")].map(String::from));
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let status = picomcp_probe::run(args.into_iter(), &mut out, &mut err);
        assert_eq!(
            status,
            0,
            "{v:?}: {}\n{}",
            String::from_utf8_lossy(&out),
            String::from_utf8_lossy(&err)
        );
    }
}
