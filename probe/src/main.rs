//! The `picomcp-probe` binary: the whole program is the library's [`picomcp_probe::run`].

use std::process::ExitCode;

fn main() -> ExitCode {
    let status = picomcp_probe::run(
        std::env::args().skip(1),
        &mut std::io::stdout().lock(),
        &mut std::io::stderr().lock(),
    );
    ExitCode::from(status)
}
