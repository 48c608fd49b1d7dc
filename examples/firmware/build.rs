// Puts memory.x and device.x on the linker search path (cortex-m-rt's link.x includes them).
use std::{env, fs, path::PathBuf};

fn main() {
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
