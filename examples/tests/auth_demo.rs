//! The Rust demo with `--auth-issuer`: a signed JWT is verified against the JWKS the demo
//! fetches from the issuer's metadata, then the core's rules apply (audience, expiry,
//! scopes, the filtered list, the 403 step-up). The "authorization server" here is a few
//! lines serving its metadata and JWKS; tokens are signed in the test with a throwaway
//! Ed25519 key (tests/auth/ runs a real one, Authlib, against every demo).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use jsonwebtoken::{Algorithm, EncodingKey, Header, encode};
use serde_json::{Value, json};

/// A throwaway Ed25519 key (PKCS#8 DER), made for this test only.
const KEY: &[u8] = &[
    48, 46, 2, 1, 0, 48, 5, 6, 3, 43, 101, 112, 4, 34, 4, 32, 221, 221, 145, 207, 71, 153, 133, 38,
    11, 219, 206, 252, 217, 67, 129, 214, 94, 248, 72, 68, 75, 37, 49, 48, 26, 128, 140, 110, 166,
    41, 189, 215,
];
/// Its public half, base64url (the JWK's `x`).
const X: &str = "CQAyUDUXG4tFPurOnfLdrSv22pVN9R1QlCykKqqTklo";

/// Serves the issuer's RFC 8414 metadata and JWKS on `listener` until the test ends.
fn authorization_server(listener: TcpListener) {
    let port = listener.local_addr().unwrap().port();
    let issuer = format!("http://127.0.0.1:{port}");
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(stream);
            let mut line = String::new();
            let _ = reader.read_line(&mut line);
            let path = line.split(' ').nth(1).unwrap_or("").to_owned();
            loop {
                let mut h = String::new();
                if reader.read_line(&mut h).unwrap_or(0) == 0 || h == "\r\n" {
                    break;
                }
            }
            let body = match path.as_str() {
                "/.well-known/oauth-authorization-server" => {
                    json!({"issuer": issuer, "jwks_uri": format!("{issuer}/jwks")}).to_string()
                }
                "/jwks" => json!({"keys": [{"kty": "OKP", "crv": "Ed25519", "kid": "k1",
                    "alg": "EdDSA", "use": "sig", "x": X}]})
                .to_string(),
                _ => String::new(),
            };
            let status = if body.is_empty() {
                "404 Not Found"
            } else {
                "200 OK"
            };
            let mut s = reader.into_inner();
            let _ = write!(
                s,
                "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
}

struct Demo(Child);

impl Drop for Demo {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn post(port: u16, token: Option<&str>, extra: &str, body: &str) -> (u16, String, String) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let auth = token.map_or(String::new(), |t| format!("Authorization: Bearer {t}\r\n"));
    let req = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\n{auth}{extra}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).unwrap();
    let mut out = String::new();
    let _ = s.read_to_string(&mut out);
    let (head, body) = out.split_once("\r\n\r\n").unwrap_or((&out, ""));
    let status = head.get(9..12).and_then(|c| c.parse().ok()).unwrap_or(0);
    (status, head.to_owned(), body.to_owned())
}

fn header<'h>(head: &'h str, name: &str) -> Option<&'h str> {
    head.lines().find_map(|l| {
        let (n, v) = l.split_once(": ")?;
        n.eq_ignore_ascii_case(name).then_some(v)
    })
}

#[test]
fn the_demo_verifies_jwts_against_the_issuers_jwks() {
    let as_listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let issuer = format!(
        "http://127.0.0.1:{}",
        as_listener.local_addr().unwrap().port()
    );
    authorization_server(as_listener);
    let port = free_port();
    let resource = format!("http://127.0.0.1:{port}/mcp");
    let _demo = Demo(
        Command::new(env!("CARGO_BIN_EXE_picomcp-demo"))
            .args([
                "--http",
                &format!("127.0.0.1:{port}"),
                "--auth-issuer",
                &issuer,
            ])
            .stdin(Stdio::null())
            .spawn()
            .unwrap(),
    );
    for _ in 0..100 {
        if TcpStream::connect(("127.0.0.1", port)).is_ok() {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let key = EncodingKey::from_ed_der(KEY);
    let sign = |claims: Value| {
        let mut h = Header::new(Algorithm::EdDSA);
        h.kid = Some("k1".into());
        encode(&h, &claims, &key).unwrap()
    };
    let token = |scope: &str| {
        sign(
            json!({"iss": issuer, "sub": "alice", "aud": resource, "exp": now + 600,
            "scope": scope, "client_id": "c1"}),
        )
    };
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;

    let (status, head, _) = post(port, None, "", init);
    assert_eq!(status, 401);
    assert!(header(&head, "WWW-Authenticate").unwrap().contains(&format!(
        "resource_metadata=\"http://127.0.0.1:{port}/.well-known/oauth-protected-resource/mcp\""
    )));
    // Another audience, expired, another issuer, a forged signature: 401.
    let mut forged = token("mcp");
    forged.truncate(forged.len() - 4);
    forged.push_str("AAAA");
    for bad in [
        sign(
            json!({"iss": issuer, "sub": "a", "aud": "http://127.0.0.1:1/mcp", "exp": now + 600, "scope": "mcp"}),
        ),
        sign(
            json!({"iss": issuer, "sub": "a", "aud": resource, "exp": now - 3600, "scope": "mcp"}),
        ),
        sign(
            json!({"iss": "http://evil.example", "sub": "a", "aud": resource, "exp": now + 600, "scope": "mcp"}),
        ),
        forged,
    ] {
        let (status, head, _) = post(port, Some(&bad), "", init);
        assert_eq!(status, 401, "{head}");
        assert!(
            header(&head, "WWW-Authenticate")
                .unwrap()
                .contains("invalid_token")
        );
    }

    let basic = token("mcp");
    let (status, head, body) = post(port, Some(&basic), "", init);
    assert_eq!(status, 200, "{body}");
    let sid = header(&head, "Mcp-Session-Id").unwrap().to_owned();
    let s = format!("Mcp-Session-Id: {sid}\r\nMCP-Protocol-Version: 2025-11-25\r\n");
    let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    assert_eq!(post(port, Some(&basic), &s, initialized).0, 202);
    let list = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
    let (_, _, body) = post(port, Some(&basic), &s, list);
    assert!(
        body.contains("\"echo\"") && !body.contains("\"sleep\""),
        "{body}"
    );
    let sleep = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":0}}}"#;
    let (status, head, _) = post(port, Some(&basic), &s, sleep);
    assert_eq!(status, 403);
    assert!(
        header(&head, "WWW-Authenticate")
            .unwrap()
            .contains("scope=\"mcp mcp:admin\", error=\"insufficient_scope\"")
    );
    let admin = token("mcp mcp:admin");
    let (_, _, body) = post(port, Some(&admin), &s, list);
    assert!(body.contains("\"sleep\""), "{body}");
    let (status, _, body) = post(port, Some(&admin), &s, sleep);
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("slept"), "{body}");
}
