//! Links `picomcp-demo` with its hot functions first and its relative relocations packed,
//! so that a stdio session maps less of the binary (its peak RSS, issue 17).
//!
//! The binary holds ~3 MiB of code (the HTTP server, rustls, ureq, the JWT crypto of
//! `--auth-issuer`) of which a stdio session runs ~200 functions. Linux maps file pages
//! 64 KiB at a time around a fault, so each 64 KiB of `.text` holding one executed
//! function counts in full: in the default order they touched ~20 such windows.
//! `src/bin/picomcp-demo/link-order.txt` (made by `bench/demo_link_order.py`) lists them
//! for lld's `--symbol-ordering-file`, which places them first. The read-only data a
//! session reads (jump tables, string constants, constant pools) has no symbols to order
//! by: `src/bin/picomcp-demo/link-hot.ld` (made by the same script from a lackey trace
//! and the link map this build writes to `OUT_DIR/picomcp-demo.map`) names their input
//! sections, and lld gathers them in `.rodata.hot`. `-z pack-relative-relocs`
//! (DT_RELR, glibc >= 2.36) shrinks the ~160 KB of relocations the loader reads at start.
//!
//! Only with rust-lld, the default linker of `x86_64-unknown-linux-gnu` since Rust 1.90
//! (GNU ld has no ordering file), and only when nobody chose another linker.
//! `PICOMCP_LINK_ORDER=0` turns it off. Nothing else changes: same code, same limits.

use std::env;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=src/bin/picomcp-demo/link-order.txt");
    println!("cargo:rerun-if-env-changed=PICOMCP_LINK_ORDER");
    println!("cargo:rerun-if-changed=src/bin/picomcp-demo/link-hot.ld");
    println!("cargo:rerun-if-env-changed=CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_LINKER");
    if env::var("PICOMCP_LINK_ORDER").is_ok_and(|v| v == "0") || !uses_rust_lld() {
        return;
    }
    let dir = format!(
        "{}/src/bin/picomcp-demo",
        env::var("CARGO_MANIFEST_DIR").unwrap_or_default()
    );
    // lld's link map (every input section's address) beside the build script's output:
    // bench/demo_link_order.py reads it to name the read-only sections a session reads.
    let map = format!(
        "{}/picomcp-demo.map",
        env::var("OUT_DIR").unwrap_or_default()
    );
    for arg in [
        format!("-Wl,--symbol-ordering-file={dir}/link-order.txt"),
        // The hot read-only sections (jump tables, string constants: no symbol to order
        // them by) gathered into `.rodata.hot` ahead of `.rodata`; INSERT keeps the rest
        // of lld's default layout.
        format!("-Wl,-T,{dir}/link-hot.ld"),
        format!("-Wl,-Map={map}"),
        // Symbols renamed since the file was made are skipped, not an error.
        "-Wl,--no-warn-symbol-ordering".into(),
        "-Wl,-z,pack-relative-relocs".into(),
    ] {
        println!("cargo:rustc-link-arg-bin=picomcp-demo={arg}");
    }
}

/// True when rustc links this build with its own lld: the target is
/// `x86_64-unknown-linux-gnu`, rustc is 1.90 or later, and neither a linker nor linker
/// flags were configured.
fn uses_rust_lld() -> bool {
    if env::var("TARGET").as_deref() != Ok("x86_64-unknown-linux-gnu")
        || env::var_os("CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_LINKER").is_some()
        || env::var("CARGO_ENCODED_RUSTFLAGS").is_ok_and(|f| f.contains("link"))
    {
        return false;
    }
    let rustc = env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let Ok(out) = Command::new(rustc).arg("-V").output() else {
        return false;
    };
    // "rustc 1.95.0 (59807616e 2026-04-14)"
    let version = String::from_utf8_lossy(&out.stdout);
    let minor = version
        .split_whitespace()
        .nth(1)
        .and_then(|v| v.split('.').nth(1))
        .and_then(|m| m.parse::<u32>().ok());
    minor.is_some_and(|m| m >= 90)
}
