//! The command line: options, the server command after them, and the default server
//! (the Rust demo server next to this executable).

use picomcp::protocol::ProtocolVersion;

/// `--help`, and the text after a usage error.
pub(crate) const USAGE: &str = "\
usage: picomcp-probe [--timeout-ms N] [--protocol VERSION] [--json] [--pin FILE]
                     [--lint-results] [--strict-lint] [-- SERVER_CMD ARGS...]
       picomcp-probe [OPTIONS] --url http://HOST:PORT/PATH [--header NAME:VALUE]...
                     [--token TOKEN | --oauth [OAUTH OPTIONS]]

Starts an MCP server over stdio, checks every feature it declares and prints a report.
Without SERVER_CMD it probes the Rust demo server (picomcp-demo, next to this binary).
With --url it checks a running server over Streamable HTTP instead.

  --timeout-ms N        timeout of each request in milliseconds (default 10000; also
                        the server/discover probe's wait when below its 3 s); in
                        2026-07-28 also how long the server may take to exit after
                        stdin EOF (at least 2 s; 2 s before 2026-07-28, not counted)
  --protocol VERSION    propose and accept only this revision (e.g. 2024-11-05)
  --json                print a machine-readable summary instead of the report
  --pin FILE            tool pins (rug-pull detection): when FILE does not exist, save
                        a digest and the definition of every listed tool in it; when it
                        does, check the server's tools against it: a changed tool fails
                        the run (the report names the tool and the fields that changed).
                        New and missing tools are noted, not failed.
  --url URL             probe the server at this Streamable HTTP endpoint (http://
                        only) instead of starting one; both eras, as over stdio
  --header NAME:VALUE   with --url: send this header on every request (credentials,
                        say); repeatable
  --token TOKEN         with --url: send `Authorization: Bearer TOKEN` on every request
  --oauth               with --url: authorize as an OAuth 2.1 client when the server
                        answers 401 (or 403 insufficient_scope): discovery (the
                        challenge's resource_metadata, else the well-known URLs; the
                        authorization server's RFC 8414 / OpenID metadata, issuer
                        checked), registration, authorization code with PKCE S256,
                        `resource` and `state`, then the request is sent again; step-up
                        on 403 insufficient_scope (3 authorizations per method at most);
                        refresh when a refresh token was issued. The authorization URL
                        is fetched without following redirects: a server that redirects
                        at once to the loopback redirect URI completes unattended;
                        otherwise the URL is printed on stderr for a browser and the
                        probe waits (5 min) on http://127.0.0.1:PORT/callback.
                        Registration, in order: --client-id (pre-registered), else
                        --client-metadata-url where the server advertises
                        client_id_metadata_document_supported, else dynamic registration
  --client-id ID        with --oauth: a pre-registered client id
  --client-secret S     with --oauth: its secret (client_secret_basic or _post, as the
                        server lists)
  --client-metadata-url URL
                        with --oauth: this client's metadata document (an https URL)
  --grant GRANT         with --oauth: authorization-code (default) or client-credentials
                        (a machine client: --client-id with --client-secret or
                        --client-key; no browser, no redirect)
  --client-key FILE     with --oauth: a PEM private key; the token endpoint gets a signed
                        JWT assertion (private_key_jwt) instead of a secret
  --client-key-alg ALG  the JWT's algorithm (default ES256; RS256, EdDSA …)
  --idp-token-endpoint URL, --idp-client-id ID, --idp-id-token-file FILE
                        with --oauth: enterprise-managed authorization (SEP-990): the ID
                        token is exchanged at the IdP for an ID-JAG, which the server's
                        authorization server takes with the JWT bearer grant
                        (--client-id and --client-secret authenticate there)
  --scope SCOPES        with --oauth: ask for these scopes instead of the spec's choice
                        (space-separated; default: the challenge's scope, else the
                        PRM's scopes_supported)
  --redirect-port N     with --oauth: the loopback redirect port (default: any free one)
  --oauth-allow-private with --oauth: allow private and link-local addresses in
                        discovery (loopback is allowed when the server is on loopback)
                        (tokens are never printed in full: the report shows 6 characters)
  --lint-results        also lint the text of tool results (indirect prompt injection)
  --strict-lint         lint warnings fail the run (by default they are only reported)
  -h, --help            print this help

The poisoning lint always runs on tool and prompt descriptions (and titles and the
descriptions inside inputSchema, outputSchema and prompt arguments): it warns about
invisible or bidirectional-control Unicode, tag characters, text addressed to the model,
references to secrets and dot-files, instructions to call other tools first, and
descriptions longer than 1024 characters. Each warning cites the text and its position.

exit status: 0 when every check passed and no violation was seen (lint warnings count
only with --strict-lint), 1 otherwise (a changed pinned tool included), 2 on a usage or
spawn error or an unreadable pin file";

/// `--timeout-ms` when not given.
pub(crate) const DEFAULT_TIMEOUT_MS: u64 = 10_000;

/// The parsed command line.
pub(crate) struct Args {
    pub(crate) timeout_ms: u64,
    /// Propose (and accept) only this revision.
    pub(crate) protocol: Option<ProtocolVersion>,
    pub(crate) json: bool,
    /// `--pin FILE`.
    pub(crate) pin: Option<std::path::PathBuf>,
    pub(crate) lint_results: bool,
    pub(crate) strict_lint: bool,
    pub(crate) command: Vec<String>,
    /// `--url`: probe a Streamable HTTP endpoint instead of a child process.
    pub(crate) url: Option<String>,
    /// `--header NAME:VALUE`, in order.
    pub(crate) headers: Vec<(String, String)>,
    /// `--token`.
    pub(crate) token: Option<String>,
    /// `--oauth` and its options.
    pub(crate) oauth: Option<picomcp_oauth::Options>,
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
        pin: None,
        lint_results: false,
        strict_lint: false,
        command: Vec::new(),
        url: None,
        headers: Vec::new(),
        token: None,
        oauth: None,
    };
    let mut oauth = false;
    let mut o = picomcp_oauth::Options::new("picomcp-probe");
    let mut oauth_flags = false;
    let mut idp: (Option<String>, Option<String>, Option<String>) = (None, None, None);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "-h" | "--help" => return Err(ArgsError::Help),
            "--json" => args.json = true,
            "--lint-results" => args.lint_results = true,
            "--strict-lint" => args.strict_lint = true,
            "--pin" => {
                let value = it
                    .next()
                    .ok_or_else(|| ArgsError::Usage("--pin needs a file".into()))?;
                args.pin = Some(value.into());
            }
            "--timeout-ms" => {
                let value = it
                    .next()
                    .ok_or_else(|| ArgsError::Usage("--timeout-ms needs a value".into()))?;
                args.timeout_ms = value.parse().ok().filter(|n| *n > 0).ok_or_else(|| {
                    ArgsError::Usage(format!("--timeout-ms: `{value}` is not a positive number"))
                })?;
            }
            "--url" => {
                let value = it
                    .next()
                    .ok_or_else(|| ArgsError::Usage("--url needs a URL".into()))?;
                args.url = Some(value);
            }
            "--header" => {
                let value = it
                    .next()
                    .ok_or_else(|| ArgsError::Usage("--header needs NAME:VALUE".into()))?;
                let (name, v) = value
                    .split_once(':')
                    .filter(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_graphic()))
                    .ok_or_else(|| {
                        ArgsError::Usage(format!("--header: `{value}` is not NAME:VALUE"))
                    })?;
                args.headers.push((name.to_string(), v.trim().to_string()));
            }
            "--oauth" => oauth = true,
            "--oauth-allow-private" => {
                o.allow_private = true;
                oauth_flags = true;
            }
            "--token"
            | "--client-id"
            | "--client-secret"
            | "--client-metadata-url"
            | "--scope"
            | "--redirect-port"
            | "--grant"
            | "--client-key"
            | "--client-key-alg"
            | "--idp-token-endpoint"
            | "--idp-client-id"
            | "--idp-id-token-file" => {
                let value = it
                    .next()
                    .ok_or_else(|| ArgsError::Usage(format!("{arg} needs a value")))?;
                oauth_flags |= arg != "--token";
                match arg.as_str() {
                    "--token" => args.token = Some(value),
                    "--client-id" => o.client_id = Some(value),
                    "--client-secret" => o.client_secret = Some(value),
                    "--client-metadata-url" => {
                        if !value.starts_with("https://") {
                            return Err(ArgsError::Usage(format!(
                                "--client-metadata-url: `{value}` is not an https URL"
                            )));
                        }
                        o.client_metadata_url = Some(value)
                    }
                    "--scope" => o.scope = Some(value),
                    "--grant" => {
                        o.client_credentials = match value.as_str() {
                            "client-credentials" => true,
                            "authorization-code" => false,
                            _ => {
                                return Err(ArgsError::Usage(format!(
                                    "--grant: `{value}` is not authorization-code or \
                                     client-credentials"
                                )));
                            }
                        }
                    }
                    "--client-key" => {
                        let pem = std::fs::read_to_string(&value).map_err(|e| {
                            ArgsError::Usage(format!("--client-key: cannot read {value}: {e}"))
                        })?;
                        o.client_key = Some(pem)
                    }
                    "--client-key-alg" => o.client_key_alg = Some(value),
                    "--idp-token-endpoint" => idp.0 = Some(value),
                    "--idp-client-id" => idp.1 = Some(value),
                    "--idp-id-token-file" => {
                        let t = std::fs::read_to_string(&value).map_err(|e| {
                            ArgsError::Usage(format!(
                                "--idp-id-token-file: cannot read {value}: {e}"
                            ))
                        })?;
                        idp.2 = Some(t.trim().to_string())
                    }
                    _ => {
                        o.redirect_port = value.parse().map_err(|_| {
                            ArgsError::Usage(format!("--redirect-port: `{value}` is not a port"))
                        })?
                    }
                }
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
    if args.url.is_some() && !args.command.is_empty() {
        return Err(ArgsError::Usage(
            "--url and a server command exclude each other".into(),
        ));
    }
    if args.url.is_none() && !args.headers.is_empty() {
        return Err(ArgsError::Usage("--header needs --url".into()));
    }
    if args.url.is_none() && (oauth || args.token.is_some()) {
        return Err(ArgsError::Usage("--token and --oauth need --url".into()));
    }
    if oauth_flags && !oauth {
        return Err(ArgsError::Usage(
            "--client-id, --client-secret, --client-metadata-url, --scope, --redirect-port, \
             --grant, --client-key, --client-key-alg, --idp-* and --oauth-allow-private need --oauth"
                .into(),
        ));
    }
    if oauth && args.token.is_some() {
        return Err(ArgsError::Usage(
            "--token and --oauth exclude each other".into(),
        ));
    }
    if (o.client_secret.is_some() || o.client_key.is_some() || o.client_credentials)
        && o.client_id.is_none()
    {
        return Err(ArgsError::Usage(
            "--client-secret, --client-key and --grant client-credentials need --client-id".into(),
        ));
    }
    match idp {
        (None, None, None) => {}
        (Some(token_endpoint), Some(client_id), Some(id_token)) => {
            o.enterprise = Some(picomcp_oauth::Enterprise {
                token_endpoint,
                id_token,
                client_id,
            })
        }
        _ => {
            return Err(ArgsError::Usage(
                "--idp-token-endpoint, --idp-client-id and --idp-id-token-file go together".into(),
            ));
        }
    }
    if oauth {
        o.protocol_version = args.protocol.map(|v| v.as_str().to_string());
        args.oauth = Some(o);
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
        let a = args(&["--pin", "p.json", "--lint-results", "--strict-lint", "srv"])
            .ok()
            .unwrap();
        assert_eq!(a.pin.as_deref(), Some(std::path::Path::new("p.json")));
        assert!(a.lint_results && a.strict_lint);
        assert!(matches!(args(&["--pin"]), Err(ArgsError::Usage(_))));
        let a = args(&[
            "--url",
            "http://127.0.0.1:1/mcp",
            "--header",
            "Authorization: Bearer x",
        ])
        .ok()
        .unwrap();
        assert_eq!(a.url.as_deref(), Some("http://127.0.0.1:1/mcp"));
        assert_eq!(
            a.headers,
            [("Authorization".to_string(), "Bearer x".to_string())]
        );
        let a = args(&[
            "--oauth",
            "--client-id",
            "c",
            "--client-secret",
            "s",
            "--scope",
            "a b",
            "--redirect-port",
            "8765",
            "--url",
            "http://127.0.0.1:1/mcp",
        ])
        .ok()
        .unwrap();
        let o = a.oauth.unwrap();
        assert_eq!(
            (
                o.client_id.as_deref(),
                o.client_secret.as_deref(),
                o.scope.as_deref()
            ),
            (Some("c"), Some("s"), Some("a b"))
        );
        assert_eq!(o.redirect_port, 8765);
        let a = args(&["--token", "t", "--url", "http://x/"]).ok().unwrap();
        assert_eq!(a.token.as_deref(), Some("t"));
        for bad in [
            &["--oauth"][..],
            &["--token", "t"],
            &["--client-id", "c", "--url", "http://x/"],
            &["--oauth", "--token", "t", "--url", "http://x/"],
            &["--oauth", "--client-secret", "s", "--url", "http://x/"],
            &[
                "--oauth",
                "--client-metadata-url",
                "http://x/c.json",
                "--url",
                "http://x/",
            ],
            &["--oauth", "--redirect-port", "x", "--url", "http://x/"],
            &["--oauth", "--grant", "implicit", "--url", "http://x/"],
            &[
                "--oauth",
                "--grant",
                "client-credentials",
                "--url",
                "http://x/",
            ],
            &[
                "--oauth",
                "--client-key",
                "/nonexistent",
                "--url",
                "http://x/",
            ],
            &["--url", "http://x/", "srv"],
            &["--header", "A:b"],
            &["--url", "http://x/", "--header", "nocolon"],
            &["--url"],
        ] {
            assert!(matches!(args(bad), Err(ArgsError::Usage(_))), "{bad:?}");
        }
    }
}
