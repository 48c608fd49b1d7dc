//! The command line: options, the server command after them, and the default server
//! (the Rust demo server next to this executable).

use picomcp::protocol::ProtocolVersion;

/// `--help`, and the text after a usage error.
pub(crate) const USAGE: &str = "\
usage: picomcp-probe [--timeout-ms N] [--protocol VERSION] [--json] [-- SERVER_CMD ARGS...]

Starts an MCP server over stdio, checks every feature it declares and prints a report.
Without SERVER_CMD it probes the Rust demo server (picomcp-demo, next to this binary).

  --timeout-ms N        timeout of each request in milliseconds (default 10000; also
                        the server/discover probe's wait when below its 3 s); in
                        2026-07-28 also how long the server may take to exit after
                        stdin EOF (at least 2 s; 2 s before 2026-07-28, not counted)
  --protocol VERSION    propose and accept only this revision (e.g. 2024-11-05)
  --json                print a machine-readable summary instead of the report
  -h, --help            print this help

exit status: 0 when every check passed and no violation was seen, 1 otherwise,
2 on a usage or spawn error";

/// `--timeout-ms` when not given.
pub(crate) const DEFAULT_TIMEOUT_MS: u64 = 10_000;

/// The parsed command line.
pub(crate) struct Args {
    pub(crate) timeout_ms: u64,
    /// Propose (and accept) only this revision.
    pub(crate) protocol: Option<ProtocolVersion>,
    pub(crate) json: bool,
    pub(crate) command: Vec<String>,
}

/// Why [`parse_args`] did not return options: `--help`, or a usage error to print.
pub(crate) enum ArgsError {
    Help,
    Usage(String),
}

/// Options come first; the server command follows `--` (or starts at the first word that
/// is not an option).
pub(crate) fn parse_args(mut it: impl Iterator<Item = String>) -> Result<Args, ArgsError> {
    let mut args = Args {
        timeout_ms: DEFAULT_TIMEOUT_MS,
        protocol: None,
        json: false,
        command: Vec::new(),
    };
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "-h" | "--help" => return Err(ArgsError::Help),
            "--json" => args.json = true,
            "--timeout-ms" => {
                let value = it
                    .next()
                    .ok_or_else(|| ArgsError::Usage("--timeout-ms needs a value".into()))?;
                args.timeout_ms = value.parse().ok().filter(|n| *n > 0).ok_or_else(|| {
                    ArgsError::Usage(format!("--timeout-ms: `{value}` is not a positive number"))
                })?;
            }
            "--protocol" => {
                let value = it
                    .next()
                    .ok_or_else(|| ArgsError::Usage("--protocol needs a value".into()))?;
                let version = ProtocolVersion::parse(&value).ok_or_else(|| {
                    ArgsError::Usage(format!("--protocol: unknown revision `{value}`"))
                })?;
                args.protocol = Some(version);
            }
            "--" => {
                args.command.extend(it.by_ref());
                break;
            }
            s if s.starts_with('-') => {
                return Err(ArgsError::Usage(format!("unknown option `{s}`")));
            }
            _ => {
                args.command.push(arg);
                args.command.extend(it.by_ref());
                break;
            }
        }
    }
    Ok(args)
}

/// The Rust demo server: `picomcp-demo` next to this executable.
pub(crate) fn demo_command() -> Result<Vec<String>, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot locate this executable: {e}"))?;
    let demo = exe.with_file_name(format!("picomcp-demo{}", std::env::consts::EXE_SUFFIX));
    if !demo.is_file() {
        return Err(format!(
            "the demo server {} is missing: build it with `cargo build -p picomcp-examples` \
             (same profile as the probe), or name a server after `--`",
            demo.display()
        ));
    }
    Ok(vec![demo.to_string_lossy().into_owned()])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Result<Args, ArgsError> {
        parse_args(list.iter().map(|s| s.to_string()))
    }

    #[test]
    fn command_line() {
        let a = args(&["--json", "--timeout-ms", "250", "--", "node", "--flag"])
            .ok()
            .unwrap();
        assert!(a.json);
        assert_eq!(a.timeout_ms, 250);
        assert_eq!(a.command, ["node", "--flag"]);
        // The first word that is not an option starts the command.
        let a = args(&["python3", "-m", "server"]).ok().unwrap();
        assert_eq!(a.command, ["python3", "-m", "server"]);
        assert_eq!(a.timeout_ms, DEFAULT_TIMEOUT_MS);
        let a = args(&["--protocol", "2024-11-05"]).ok().unwrap();
        assert_eq!(a.protocol, Some(ProtocolVersion::V2024_11_05));
        assert!(a.command.is_empty());
        for bad in [
            &["--timeout-ms"][..],
            &["--timeout-ms", "0"],
            &["--timeout-ms", "x"],
            &["--bogus"],
            &["--protocol", "1.0"],
        ] {
            assert!(matches!(args(bad), Err(ArgsError::Usage(_))), "{bad:?}");
        }
        assert!(matches!(args(&["-h"]), Err(ArgsError::Help)));
    }
}
