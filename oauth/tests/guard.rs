//! The guard rails and the discovery checks of `picomcp-oauth` against a real local HTTP
//! server (a tiny std one in this file: fixed answers per path, every request recorded).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use picomcp_oauth::{Authorizer, Fetcher, Options, Policy};

/// Answers: (path prefix, status, extra header lines, body), first match wins; 404 else.
type Routes = Vec<(String, u16, String, String)>;

struct Server {
    base: String,
    seen: Arc<Mutex<Vec<String>>>,
}

fn serve(routes: impl Fn(&str) -> Routes + Send + 'static) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let (log, base2) = (Arc::clone(&seen), base.clone());
    thread::spawn(move || {
        for sock in listener.incoming() {
            let Ok(mut sock) = sock else { continue };
            let mut reader = BufReader::new(sock.try_clone().unwrap());
            let mut line = String::new();
            if reader.read_line(&mut line).is_err() {
                continue;
            }
            let path = line.split(' ').nth(1).unwrap_or("").to_string();
            let mut len = 0;
            loop {
                let mut h = String::new();
                if reader.read_line(&mut h).unwrap_or(0) == 0 || h == "\r\n" {
                    break;
                }
                if let Some(v) = h.to_ascii_lowercase().strip_prefix("content-length:") {
                    len = v.trim().parse().unwrap_or(0);
                }
            }
            let mut body = vec![0; len];
            let _ = reader.read_exact(&mut body);
            log.lock().unwrap().push(path.clone());
            let (status, headers, body) = routes(&base2)
                .into_iter()
                .find(|(p, ..)| path.starts_with(p.as_str()))
                .map(|(_, s, h, b)| (s, h, b))
                .unwrap_or((404, String::new(), String::new()));
            let _ = write!(
                sock,
                "HTTP/1.1 {status} X\r\n{headers}Content-Type: application/json\r\n\
                 Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    Server { base, seen }
}

fn loopback() -> Policy {
    Policy {
        allow_loopback: true,
        allow_private: false,
    }
}

#[test]
fn redirects_are_never_followed() {
    let s = serve(|base| {
        vec![
            (
                "/start".into(),
                302,
                format!("Location: {base}/elsewhere\r\n"),
                String::new(),
            ),
            ("/elsewhere".into(), 200, String::new(), "{}".into()),
        ]
    });
    let f = Fetcher::new(loopback(), Duration::from_secs(5));
    let r = f.get(&format!("{}/start", s.base), &[]).unwrap();
    assert_eq!(r.status, 302);
    assert_eq!(
        r.location.as_deref(),
        Some(format!("{}/elsewhere", s.base).as_str())
    );
    assert_eq!(*s.seen.lock().unwrap(), ["/start"]);
}

#[test]
fn addresses_and_schemes_are_checked_before_connecting() {
    let s = serve(|_| vec![("/".into(), 200, String::new(), "{}".into())]);
    let strict = Fetcher::new(
        Policy {
            allow_loopback: false,
            allow_private: false,
        },
        Duration::from_secs(5),
    );
    let err = strict.get(&format!("{}/x", s.base), &[]).unwrap_err();
    assert!(err.contains("Loopback"), "{err}");
    for url in [
        "https://10.0.0.1/x",
        "https://169.254.169.254/latest/meta-data",
        "https://[fd00::1]/x",
        "https://[::ffff:192.168.0.1]/x",
    ] {
        assert!(strict.check(url).is_err(), "{url}");
        assert!(
            Fetcher::new(loopback(), Duration::from_secs(5))
                .check(url)
                .is_err(),
            "{url}"
        );
    }
    // Plain http to a host that is not loopback, and non-http schemes, never pass.
    for url in [
        "http://example.com/x",
        "file:///etc/passwd",
        "javascript:alert(1)",
    ] {
        assert!(strict.check(url).is_err(), "{url}");
    }
    // Private ranges with the explicit opt-in.
    let open = Fetcher::new(
        Policy {
            allow_loopback: false,
            allow_private: true,
        },
        Duration::from_secs(5),
    );
    assert!(open.check("https://10.0.0.1/x").is_ok());
    assert!(open.get(&format!("{}/x", s.base), &[]).is_ok());
    assert_eq!(*s.seen.lock().unwrap(), ["/x"]);
}

fn challenge(base: &str) -> Vec<String> {
    vec![format!(
        r#"Bearer resource_metadata="{base}/.well-known/oauth-protected-resource/mcp""#
    )]
}

#[test]
fn a_foreign_resource_stops_before_the_authorization_server() {
    let s = serve(|base| {
        vec![
            (
                "/.well-known/oauth-protected-resource".into(),
                200,
                String::new(),
                format!(
                    r#"{{"resource":"https://evil.example.com/mcp","authorization_servers":["{base}/as"]}}"#
                ),
            ),
            ("/".into(), 500, String::new(), String::new()),
        ]
    });
    let mut a = Authorizer::new(&format!("{}/mcp", s.base), Options::new("t")).unwrap();
    let err = a
        .handle_response("tools/list", 401, &challenge(&s.base))
        .unwrap_err();
    assert!(err.contains("evil.example.com"), "{err}");
    assert_eq!(
        *s.seen.lock().unwrap(),
        ["/.well-known/oauth-protected-resource/mcp"]
    );
    assert_eq!(a.bearer(), None);
}

#[test]
fn metadata_naming_another_issuer_is_discarded() {
    let s = serve(|base| {
        vec![
            (
                "/.well-known/oauth-protected-resource".into(),
                200,
                String::new(),
                format!(r#"{{"resource":"{base}/mcp","authorization_servers":["{base}/t1"]}}"#),
            ),
            (
                "/.well-known/oauth-authorization-server/t1".into(),
                200,
                String::new(),
                format!(
                    r#"{{"issuer":"https://attacker.example.com","authorization_endpoint":"{base}/authorize",
                    "token_endpoint":"{base}/token","registration_endpoint":"{base}/register",
                    "code_challenge_methods_supported":["S256"]}}"#
                ),
            ),
        ]
    });
    let mut a = Authorizer::new(&format!("{}/mcp", s.base), Options::new("t")).unwrap();
    let err = a
        .handle_response("tools/list", 401, &challenge(&s.base))
        .unwrap_err();
    assert!(err.contains("attacker.example.com"), "{err}");
    let seen = s.seen.lock().unwrap();
    assert!(
        !seen
            .iter()
            .any(|p| p == "/register" || p.starts_with("/authorize")),
        "{seen:?}"
    );
}

#[test]
fn no_pkce_advertised_means_no_authorization() {
    let s = serve(|base| {
        vec![
            (
                "/.well-known/oauth-protected-resource".into(),
                200,
                String::new(),
                format!(r#"{{"resource":"{base}/mcp","authorization_servers":["{base}"]}}"#),
            ),
            (
                "/.well-known/oauth-authorization-server".into(),
                200,
                String::new(),
                format!(
                    r#"{{"issuer":"{base}","authorization_endpoint":"{base}/authorize",
                    "token_endpoint":"{base}/token","registration_endpoint":"{base}/register"}}"#
                ),
            ),
        ]
    });
    let mut a = Authorizer::new(&format!("{}/mcp", s.base), Options::new("t")).unwrap();
    let err = a
        .handle_response("initialize", 401, &challenge(&s.base))
        .unwrap_err();
    assert!(err.contains("PKCE"), "{err}");
    // Not an authorization status: nothing happens.
    assert_eq!(a.handle_response("initialize", 404, &[]), Ok(false));
    // A 403 without insufficient_scope is not something a token fixes.
    assert!(a.handle_response("initialize", 403, &[]).is_err());
}

/// An authorization server whose `/authorize` is a login page (200): the authorizer
/// waits on its loopback redirect URI, as for a browser.
fn browser_as(token_scope: &'static str) -> Server {
    browser_as_with(token_scope, "")
}

/// [`browser_as`] whose token responses add `extra` (e.g. a refresh token).
fn browser_as_with(token_scope: &'static str, extra: &'static str) -> Server {
    serve(move |base| {
        vec![
            (
                "/.well-known/oauth-protected-resource".into(),
                200,
                String::new(),
                format!(r#"{{"resource":"{base}/mcp","authorization_servers":["{base}"]}}"#),
            ),
            (
                "/.well-known/oauth-authorization-server".into(),
                200,
                String::new(),
                format!(
                    r#"{{"issuer":"{base}","authorization_endpoint":"{base}/authorize",
                    "token_endpoint":"{base}/token","registration_endpoint":"{base}/register",
                    "code_challenge_methods_supported":["S256"],
                    "token_endpoint_auth_methods_supported":["none"]}}"#
                ),
            ),
            (
                "/register".into(),
                201,
                String::new(),
                r#"{"client_id":"c1"}"#.into(),
            ),
            (
                "/authorize".into(),
                200,
                String::new(),
                "<html>log in</html>".into(),
            ),
            (
                "/token".into(),
                200,
                String::new(),
                format!(
                    r#"{{"access_token":"tok-123456789","token_type":"Bearer","expires_in":60,"scope":"{token_scope}"{extra}}}"#
                ),
            ),
        ]
    })
}

/// Plays the browser: waits for the authorization request, then visits the redirect URI
/// with a code and `state` (or `wrong_state`).
fn browser(
    seen: Arc<Mutex<Vec<String>>>,
    wrong_state: Option<&'static str>,
) -> thread::JoinHandle<()> {
    thread::spawn(move || {
        let auth = loop {
            if let Some(p) = seen
                .lock()
                .unwrap()
                .iter()
                .find(|p| p.starts_with("/authorize"))
            {
                break p.clone();
            }
            thread::sleep(Duration::from_millis(20));
        };
        let q: Vec<(String, String)> =
            url::form_urlencoded::parse(auth.split_once('?').unwrap().1.as_bytes())
                .map(|(k, v)| (k.into_owned(), v.into_owned()))
                .collect();
        let get = |k: &str| {
            q.iter()
                .find(|(n, _)| n == k)
                .map(|(_, v)| v.clone())
                .unwrap()
        };
        assert_eq!(get("code_challenge_method"), "S256");
        assert!(get("resource").ends_with("/mcp"));
        let state = wrong_state.map_or_else(|| get("state"), str::to_string);
        let cb = format!("{}?code=abc&state={state}", get("redirect_uri"));
        let rest = cb.strip_prefix("http://").unwrap();
        let (host, path) = rest.split_once('/').unwrap();
        let mut sock = std::net::TcpStream::connect(host).unwrap();
        write!(sock, "GET /{path} HTTP/1.1\r\nHost: {host}\r\n\r\n").unwrap();
        let mut answer = String::new();
        let _ = sock.read_to_string(&mut answer);
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    })
}

#[test]
fn browser_flow_through_the_loopback_redirect() {
    let s = browser_as("mcp:read");
    let b = browser(Arc::clone(&s.seen), None);
    let mut a = Authorizer::new(&format!("{}/mcp", s.base), Options::new("t")).unwrap();
    let ch = vec![format!(
        r#"Bearer resource_metadata="{}/.well-known/oauth-protected-resource/mcp", scope="mcp:read""#,
        s.base
    )];
    assert_eq!(a.handle_response("tools/list", 401, &ch), Ok(true));
    b.join().unwrap();
    assert_eq!(a.bearer(), Some("tok-123456789"));
    let log = a.take_log().join("\n");
    assert!(
        log.contains("tok-12… (13 chars)") && !log.contains("tok-123456789"),
        "{log}"
    );
    assert!(s.seen.lock().unwrap().iter().any(|p| p == "/token"));
    // A 403 for a scope the token already has is given up at once (no loop).
    let up = vec![r#"Bearer error="insufficient_scope", scope="mcp:read""#.to_string()];
    assert!(a.handle_response("tools/call", 403, &up).is_err());
}

#[test]
fn a_callback_with_another_state_is_dropped() {
    let s = browser_as("");
    let b = browser(Arc::clone(&s.seen), Some("forged"));
    let mut a = Authorizer::new(&format!("{}/mcp", s.base), Options::new("t")).unwrap();
    let err = a
        .handle_response("tools/list", 401, &challenge(&s.base))
        .unwrap_err();
    b.join().unwrap();
    assert!(err.contains("state"), "{err}");
    assert!(!s.seen.lock().unwrap().iter().any(|p| p == "/token"));
    assert_eq!(a.bearer(), None);
}

#[test]
fn a_plain_401_refreshes_when_a_refresh_token_was_issued() {
    let s = browser_as_with("mcp:read", r#","refresh_token":"r-1""#);
    let b = browser(Arc::clone(&s.seen), None);
    let mut a = Authorizer::new(&format!("{}/mcp", s.base), Options::new("t")).unwrap();
    assert_eq!(
        a.handle_response("tools/list", 401, &challenge(&s.base)),
        Ok(true)
    );
    b.join().unwrap();
    // The token expired: a 401 again is answered with a refresh, no second authorization.
    assert_eq!(
        a.handle_response("tools/list", 401, &challenge(&s.base)),
        Ok(true)
    );
    {
        let seen = s.seen.lock().unwrap();
        assert_eq!(
            seen.iter().filter(|p| p.starts_with("/authorize")).count(),
            1,
            "{seen:?}"
        );
        assert_eq!(
            seen.iter().filter(|p| *p == "/token").count(),
            2,
            "{seen:?}"
        );
    }
    assert!(a.take_log().iter().any(|l| l == "token refreshed"));
    // A third time exceeds the attempts of this operation.
    assert!(
        a.handle_response("tools/list", 401, &challenge(&s.base))
            .is_ok()
    );
    assert!(
        a.handle_response("tools/list", 401, &challenge(&s.base))
            .is_err()
    );
}
