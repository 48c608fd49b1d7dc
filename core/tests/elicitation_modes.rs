//! Rule: URL-mode elicitation goes only to a client that declared `elicitation.url`, in
//! the legacy era too; a form needs `elicitation.form` or an empty `elicitation: {}`
//! (2025-06-18: plain `elicitation`, and no URL mode at all). Both directions.

mod common;
use common::*;
use picomcp::json::Json;
use picomcp::protocol::{Method, Versions};
use picomcp::session::{RequestOptions, SendError, Session};

const FORM: &str = r#"{"message":"m","requestedSchema":{"type":"object","properties":{}}}"#;
const URL: &str =
    r#"{"mode":"url","message":"m","url":"https://example.com/x","elicitationId":"e1"}"#;

fn server_at(version: &str, caps: &str) -> Session<'static> {
    let mut s = server();
    let init = format!(
        r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"{version}","capabilities":{caps},"clientInfo":{{"name":"t","version":"1"}}}}}}"#
    );
    let (out, _) = feed(&mut s, 0, format!("{init}\n{INITIALIZED}\n").as_bytes());
    assert_eq!(out.len(), 1, "{out:?}");
    s
}

/// (revision, client capabilities, params, expected send result)
fn table() -> Vec<(
    &'static str,
    &'static str,
    &'static str,
    Result<(), SendError>,
)> {
    let no = Err(SendError::NotNegotiated(Method::ElicitationCreate));
    let nv = Err(SendError::NotInVersion(Method::ElicitationCreate));
    vec![
        ("2025-11-25", r#"{"elicitation":{}}"#, FORM, Ok(())),
        ("2025-11-25", r#"{"elicitation":{}}"#, URL, no),
        ("2025-11-25", r#"{"elicitation":{"form":{}}}"#, URL, no),
        ("2025-11-25", r#"{"elicitation":{"url":{}}}"#, URL, Ok(())),
        ("2025-11-25", r#"{"elicitation":{"url":{}}}"#, FORM, no),
        (
            "2025-11-25",
            r#"{"elicitation":{"form":{},"url":{}}}"#,
            URL,
            Ok(()),
        ),
        (
            "2025-11-25",
            r#"{"elicitation":{"form":{},"url":{}}}"#,
            FORM,
            Ok(()),
        ),
        ("2025-11-25", r#"{"sampling":{}}"#, FORM, no),
        ("2025-06-18", r#"{"elicitation":{}}"#, FORM, Ok(())),
        ("2025-06-18", r#"{"elicitation":{"url":{}}}"#, FORM, Ok(())),
        ("2025-06-18", r#"{"elicitation":{"url":{}}}"#, URL, nv),
    ]
}

#[test]
fn a_server_sends_a_mode_only_to_a_client_that_declared_it() {
    for (v, caps, params, want) in table() {
        let mut s = server_at(v, caps);
        let r = s
            .send_request(
                0,
                Method::ElicitationCreate,
                Some(Json::new(params).unwrap()),
                RequestOptions::default(),
            )
            .map(|_| ());
        assert_eq!(r, want, "{v} {caps} {params}");
        assert_eq!(take_output(&mut s).len(), usize::from(want.is_ok()));
    }
}

#[test]
fn a_client_refuses_a_mode_it_did_not_declare_with_32602() {
    for (v, caps, params, want) in table() {
        if caps.contains("sampling") {
            continue; // the capability gate (-32601) is another rule
        }
        let mut cc = client_config(Box::leak(caps.to_string().into_boxed_str()));
        cc.versions = Versions::of(&[picomcp::protocol::ProtocolVersion::parse(v).unwrap()]);
        let mut p = Pair::with(server_config(SERVER_CAPS), cc);
        p.handshake();
        let line = format!(
            r#"{{"jsonrpc":"2.0","id":3,"method":"elicitation/create","params":{params}}}"#
        );
        let (out, ev) = feed(&mut p.client, 0, format!("{line}\n").as_bytes());
        if want.is_ok() {
            assert!(out.is_empty(), "{v} {caps} {params}: {out:?}");
            assert!(ev[0].starts_with("request elicitation/create"));
        } else {
            assert_eq!(j(&out[0])["error"]["code"], -32602, "{v} {caps} {params}");
            assert_eq!(ev, vec!["violation InvalidParams(ElicitationCreate)"]);
        }
    }
}
