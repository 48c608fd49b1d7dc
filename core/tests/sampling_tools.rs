//! Rule: sampling with tools (2025-11-25: `tools`/`toolChoice`, `tool_use`/`tool_result`
//! content) goes only to a client that declared `sampling.tools`, and its parts follow
//! the schema (`ToolChoice`, `ToolUseContent`, `ToolResultContent`). Both directions,
//! both eras.

mod common;
use common::*;
use picomcp::json::Json;
use picomcp::protocol::content::ContentError;
use picomcp::protocol::{Method, ProtocolVersion, Versions};
use picomcp::session::{Event, RequestOptions, RespondError, SendError, Session};

fn server_at(version: &str, caps: &str) -> Session<'static> {
    let mut s = server();
    let init = format!(
        r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"{version}","capabilities":{caps},"clientInfo":{{"name":"t","version":"1"}}}}}}"#
    );
    let (out, _) = feed(&mut s, 0, format!("{init}\n{INITIALIZED}\n").as_bytes());
    assert_eq!(out.len(), 1, "{out:?}");
    s
}

const TOOLS: &str = r#"{"sampling":{"tools":{}}}"#;
const PLAIN: &str = r#"{"sampling":{}}"#;
const TOOL: &str = r#"{"name":"get_weather","inputSchema":{"type":"object"}}"#;

fn with(extra: &str) -> String {
    let sep = if extra.is_empty() { "" } else { "," };
    format!(
        r#"{{"messages":[{{"role":"user","content":{{"type":"text","text":"hi"}}}}],"maxTokens":50{sep}{extra}}}"#
    )
}

fn msgs(content: &str) -> String {
    format!(
        r#"{{"messages":[{{"role":"assistant","content":{content}}}],"maxTokens":50,"tools":[{TOOL}]}}"#
    )
}

/// (revision, client caps, params, expected)
fn table() -> Vec<(&'static str, &'static str, String, Result<(), SendError>)> {
    use ContentError::*;
    let m = Method::SamplingCreateMessage;
    let bad = |e| Err(SendError::InvalidContent(e));
    vec![
        ("2025-11-25", PLAIN, with(""), Ok(())),
        (
            "2025-11-25",
            TOOLS,
            with(&format!(r#""tools":[{TOOL}]"#)),
            Ok(()),
        ),
        (
            "2025-11-25",
            TOOLS,
            with(&format!(
                r#""tools":[{TOOL}],"toolChoice":{{"mode":"required"}}"#
            )),
            Ok(()),
        ),
        ("2025-11-25", TOOLS, with(r#""toolChoice":{}"#), Ok(())),
        (
            "2025-11-25",
            PLAIN,
            with(&format!(r#""tools":[{TOOL}]"#)),
            Err(SendError::NotNegotiated(m)),
        ),
        (
            "2025-11-25",
            PLAIN,
            with(r#""toolChoice":{"mode":"auto"}"#),
            Err(SendError::NotNegotiated(m)),
        ),
        (
            "2025-06-18",
            TOOLS,
            with(&format!(r#""tools":[{TOOL}]"#)),
            Err(SendError::NotInVersion(m)),
        ),
        (
            "2025-11-25",
            TOOLS,
            with(r#""tools":{}"#),
            bad(ToolsInvalid),
        ),
        (
            "2025-11-25",
            TOOLS,
            with(r#""tools":[{"name":"x"}]"#),
            bad(ToolsInvalid),
        ),
        (
            "2025-11-25",
            TOOLS,
            with(r#""tools":[{"inputSchema":{}}]"#),
            bad(ToolsInvalid),
        ),
        (
            "2025-11-25",
            TOOLS,
            with(r#""toolChoice":{"mode":"always"}"#),
            bad(ToolChoiceInvalid),
        ),
        (
            "2025-11-25",
            TOOLS,
            with(r#""toolChoice":"auto""#),
            bad(ToolChoiceInvalid),
        ),
        (
            "2025-11-25",
            TOOLS,
            msgs(r#"{"type":"tool_use","id":"c1","name":"get_weather","input":{"city":"x"}}"#),
            Ok(()),
        ),
        (
            "2025-11-25",
            TOOLS,
            msgs(
                r#"[{"type":"tool_result","toolUseId":"c1","content":[{"type":"text","text":"sunny"}]},{"type":"text","text":"ok"}]"#,
            ),
            Ok(()),
        ),
        (
            "2025-11-25",
            TOOLS,
            msgs(r#"{"type":"tool_use","id":"c1","name":"get_weather","input":"x"}"#),
            bad(ToolContentInvalid),
        ),
        (
            "2025-11-25",
            TOOLS,
            msgs(r#"{"type":"tool_use","name":"get_weather","input":{}}"#),
            bad(ToolContentInvalid),
        ),
        (
            "2025-11-25",
            TOOLS,
            msgs(r#"[{"type":"tool_result","toolUseId":"c1","content":"sunny"}]"#),
            bad(ToolContentInvalid),
        ),
        (
            "2025-11-25",
            TOOLS,
            msgs(r#"[{"type":"tool_result","content":[]}]"#),
            bad(ToolContentInvalid),
        ),
        (
            "2025-11-25",
            TOOLS,
            msgs(r#"[{"type":"tool_result","toolUseId":"c1","content":[],"isError":"no"}]"#),
            bad(ToolContentInvalid),
        ),
    ]
}

#[test]
fn a_server_sends_sampling_with_tools_only_when_declared_and_well_formed() {
    for (v, caps, params, want) in table() {
        let mut s = server_at(v, caps);
        let r = s
            .send_request(
                0,
                Method::SamplingCreateMessage,
                Some(Json::new(&params).unwrap()),
                RequestOptions::default(),
            )
            .map(|_| ());
        assert_eq!(r, want, "{v} {caps} {params}");
        assert_eq!(take_output(&mut s).len(), usize::from(want.is_ok()));
    }
}

#[test]
fn a_client_refuses_undeclared_or_malformed_tool_sampling_with_32602() {
    for (v, caps, params, want) in table() {
        let mut cc = client_config(Box::leak(caps.to_string().into_boxed_str()));
        cc.versions = Versions::of(&[ProtocolVersion::parse(v).unwrap()]);
        let mut p = Pair::with(server_config(SERVER_CAPS), cc);
        p.handshake();
        let line = format!(
            r#"{{"jsonrpc":"2.0","id":9,"method":"sampling/createMessage","params":{params}}}"#
        );
        let (out, ev) = feed(&mut p.client, 0, format!("{line}\n").as_bytes());
        if want.is_ok() {
            assert!(out.is_empty(), "{v} {caps} {params}: {out:?}");
            assert!(ev[0].starts_with("request sampling/createMessage"));
        } else {
            assert_eq!(j(&out[0])["error"]["code"], -32602, "{v} {caps} {params}");
            assert_eq!(ev, vec!["violation InvalidParams(SamplingCreateMessage)"]);
        }
    }
}

fn modern_call(caps: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"x","_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{caps},"io.modelcontextprotocol/clientInfo":{{"name":"c","version":"1"}}}}}}}}"#
    ) + "\n"
}

#[test]
fn a_modern_server_asks_for_tool_sampling_only_when_the_request_declared_it() {
    for (caps, params, want) in [
        (PLAIN, with(""), Ok(())),
        (TOOLS, with(&format!(r#""tools":[{TOOL}]"#)), Ok(())),
        (
            PLAIN,
            with(&format!(r#""tools":[{TOOL}]"#)),
            Err(RespondError::InputNotAllowed),
        ),
        (
            TOOLS,
            with(r#""toolChoice":{"mode":"sometimes"}"#),
            Err(RespondError::InvalidContent(
                ContentError::ToolChoiceInvalid,
            )),
        ),
    ] {
        let mut s = server();
        push(&mut s, 0, modern_call(caps).as_bytes());
        let Some(Event::Request { id, .. }) = s.poll_event() else {
            panic!()
        };
        let requests =
            format!(r#"{{"s":{{"method":"sampling/createMessage","params":{params}}}}}"#);
        let r = s.respond_input_required(id, Some(Json::new(&requests).unwrap()), None);
        assert_eq!(r, want, "{caps} {params}");
        assert_eq!(take_output(&mut s).len(), usize::from(want.is_ok()));
    }
}
