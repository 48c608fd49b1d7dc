// Puts memory.x and device.x on the linker search path (cortex-m-rt's link.x includes
// them), and checks the server layer's tables (src/catalog.rs) on the host with
// `Server::new`: a broken definition fails the build with the core's message, and the
// image serves the tables through `Server::new_unchecked` without the check's code.
use std::{env, fs, path::PathBuf};

#[allow(dead_code)]
#[path = "src/catalog.rs"]
mod catalog;

fn main() {
    println!("cargo:rerun-if-changed=src/catalog.rs");
    if let Err(e) = picomcp::server::Server::new(catalog::CATALOG, catalog::OPTIONS) {
        panic!("src/catalog.rs: {e}");
    }
    let out = PathBuf::from(env::var_os("OUT_DIR").unwrap());
    fs::write(out.join("memory.x"), include_bytes!("memory.x")).unwrap();
    // cortex-m-rt's `device` feature includes device.x (weak aliases of a PAC's interrupt
    // handlers); we have no PAC and define the one handler we use in main.rs.
    fs::write(
        out.join("device.x"),
        b"/* no PAC: see __INTERRUPTS in main.rs */\n",
    )
    .unwrap();
    println!("cargo:rustc-link-search={}", out.display());
    println!("cargo:rerun-if-changed=memory.x");
    println!("cargo:rerun-if-changed=build.rs");
}
