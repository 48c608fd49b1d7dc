//! Rule: an elicitation's `requestedSchema` is a flat object of the primitives the
//! revision allows (DIGEST §10; `PrimitiveSchemaDefinition` of 2025-06-18 and 2025-11-25),
//! checked in both directions, and an accepted answer's `content` is checked against the
//! schema it answers (docs/DESIGN.md, "Content rules of elicitation and sampling").

mod common;
use common::*;
use picomcp::json::Json;
use picomcp::protocol::content::{self, ContentError, ContentMismatch};
use picomcp::protocol::{Method, ProtocolVersion};
use picomcp::session::{Event, RequestOptions, RespondError, SendError, Session};

const FORM_URL: &str = r#"{"elicitation":{"form":{},"url":{}}}"#;

/// A legacy server after the handshake with a client that declared `caps`.
fn server_at(version: &str, caps: &str) -> Session<'static> {
    let mut s = server();
    let init = format!(
        r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"{version}","capabilities":{caps},"clientInfo":{{"name":"t","version":"1"}}}}}}"#
    );
    let (out, _) = feed(&mut s, 0, format!("{init}\n{INITIALIZED}\n").as_bytes());
    assert_eq!(out.len(), 1, "{out:?}");
    s
}

fn params(schema: &str) -> String {
    format!(r#"{{"message":"m","requestedSchema":{schema}}}"#)
}

fn obj(props: &str) -> String {
    format!(r#"{{"type":"object","properties":{{{props}}}}}"#)
}

use ProtocolVersion::{V2025_06_18 as V0618, V2025_11_25 as V1125};

/// (schema, revision, expected)
fn table() -> Vec<(String, ProtocolVersion, Result<(), ContentError>)> {
    use ContentError::*;
    let ok = Ok(());
    vec![
        (obj(""), V0618, ok),
        (
            obj(
                r#""n":{"type":"string","minLength":1,"maxLength":9,"format":"email","title":"N"}"#,
            ),
            V0618,
            ok,
        ),
        (
            obj(r#""n":{"type":"number","minimum":0,"maximum":1.5}"#),
            V0618,
            ok,
        ),
        (obj(r#""n":{"type":"integer","minimum":-3}"#), V0618, ok),
        (obj(r#""b":{"type":"boolean","default":true}"#), V0618, ok),
        (
            obj(r#""e":{"type":"string","enum":["a","b"],"enumNames":["A","B"]}"#),
            V0618,
            ok,
        ),
        (
            r#"{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}"#.to_string(),
            V0618,
            ok,
        ),
        // 2025-11-25 forms
        (
            obj(r#""e":{"type":"string","oneOf":[{"const":"a","title":"A"}],"default":"a"}"#),
            V1125,
            ok,
        ),
        (
            obj(
                r#""m":{"type":"array","items":{"type":"string","enum":["x","y"]},"minItems":1,"default":["x"]}"#,
            ),
            V1125,
            ok,
        ),
        (
            obj(r#""m":{"type":"array","items":{"anyOf":[{"const":"x","title":"X"}]}}"#),
            V1125,
            ok,
        ),
        (obj(r#""s":{"type":"string","default":"d"}"#), V1125, ok),
        (obj(r#""n":{"type":"number","default":2}"#), V1125, ok),
        (
            r#"{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{}}"#.to_string(),
            V1125,
            ok,
        ),
        // ... which 2025-06-18 does not have
        (
            obj(r#""e":{"type":"string","oneOf":[{"const":"a","title":"A"}]}"#),
            V0618,
            Err(NotInVersion),
        ),
        (
            obj(r#""m":{"type":"array","items":{"type":"string","enum":["x"]}}"#),
            V0618,
            Err(NotInVersion),
        ),
        // a default is only type-checked in 2025-06-18 (clients ignore the member)
        (obj(r#""s":{"type":"string","default":"d"}"#), V0618, ok),
        (obj(r#""s":{"type":"string","default":1}"#), V0618, Err(DefaultInvalid)),
        // not flat, not primitive
        (
            obj(r#""o":{"type":"object","properties":{}}"#),
            V1125,
            Err(PropertyNotPrimitive),
        ),
        (
            obj(r#""a":{"type":"array","items":{"type":"number"}}"#),
            V1125,
            Err(PropertyNotPrimitive),
        ),
        (
            obj(r#""x":{"type":"null"}"#),
            V1125,
            Err(PropertyNotPrimitive),
        ),
        (
            obj(r#""x":{"title":"no type"}"#),
            V1125,
            Err(PropertyNotPrimitive),
        ),
        (obj(r#""x":3"#), V1125, Err(PropertyNotPrimitive)),
        (
            r#"{"type":"array","properties":{}}"#.into(),
            V1125,
            Err(SchemaNotObject),
        ),
        (r#"{"type":"object"}"#.into(), V1125, Err(SchemaNotObject)),
        (r#"[]"#.into(), V1125, Err(SchemaNotObject)),
        // malformed members
        (
            obj(r#""s":{"type":"string","format":"phone"}"#),
            V1125,
            Err(FormatInvalid),
        ),
        (
            obj(r#""s":{"type":"string","minLength":-1}"#),
            V1125,
            Err(BoundInvalid),
        ),
        (
            obj(r#""s":{"type":"string","minLength":5,"maxLength":2}"#),
            V1125,
            Err(BoundInvalid),
        ),
        (
            obj(r#""n":{"type":"number","minimum":"0"}"#),
            V1125,
            Err(BoundInvalid),
        ),
        (
            obj(r#""e":{"type":"string","enum":[]}"#),
            V1125,
            Err(EnumInvalid),
        ),
        (
            obj(r#""e":{"type":"string","enum":[1,2]}"#),
            V1125,
            Err(EnumInvalid),
        ),
        (
            obj(r#""e":{"type":"string","enum":["a"],"enumNames":["A","B"]}"#),
            V1125,
            Err(EnumInvalid),
        ),
        (
            obj(r#""e":{"type":"string","oneOf":[{"const":"a"}]}"#),
            V1125,
            Err(EnumInvalid),
        ),
        (
            obj(r#""e":{"type":"string","enum":["a"],"default":"z"}"#),
            V1125,
            Err(DefaultInvalid),
        ),
        (
            obj(r#""b":{"type":"boolean","default":"yes"}"#),
            V1125,
            Err(DefaultInvalid),
        ),
        (
            obj(r#""n":{"type":"integer","default":1.5}"#),
            V1125,
            Err(DefaultInvalid),
        ),
        (
            obj(r#""m":{"type":"array","items":{"type":"string","enum":["x"]},"default":["q"]}"#),
            V1125,
            Err(DefaultInvalid),
        ),
        (
            r#"{"type":"object","properties":{},"required":["ghost"]}"#.to_string(),
            V1125,
            Err(RequiredInvalid),
        ),
    ]
}

#[test]
fn schema_table_through_the_checker() {
    for (schema, v, want) in table() {
        let p = params(&schema);
        let got = content::check_elicitation(Json::new(&p).unwrap(), v, false);
        assert_eq!(got, want, "{v} {schema}");
    }
}

#[test]
fn a_server_refuses_to_send_an_invalid_schema_and_queues_nothing() {
    for (schema, v, want) in table() {
        let mut s = server_at(v.as_str(), r#"{"elicitation":{}}"#);
        let p = params(&schema);
        let r = s.send_request(
            0,
            Method::ElicitationCreate,
            Some(Json::new(&p).unwrap()),
            RequestOptions::default(),
        );
        match want {
            Ok(()) => {
                assert!(r.is_ok(), "{v} {schema}: {r:?}");
                assert_eq!(take_output(&mut s).len(), 1);
            }
            Err(e) => {
                assert_eq!(r, Err(SendError::InvalidContent(e)), "{v} {schema}");
                assert!(take_output(&mut s).is_empty(), "nothing queued");
            }
        }
    }
}

#[test]
fn a_client_answers_an_invalid_schema_with_32602_and_reports_it() {
    for (schema, v, want) in table() {
        let mut cc = client_config(FORM_URL);
        cc.versions = picomcp::protocol::Versions::of(&[v]);
        let mut p = Pair::with(server_config(SERVER_CAPS), cc);
        p.handshake();
        let line = format!(
            r#"{{"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":{}}}"#,
            params(&schema)
        );
        let (out, ev) = feed(&mut p.client, 0, format!("{line}\n").as_bytes());
        match want {
            Ok(()) => {
                assert!(out.is_empty(), "{schema}: {out:?}");
                assert!(ev[0].starts_with("request elicitation/create"), "{ev:?}");
            }
            Err(_) => {
                let e = j(&out[0]);
                assert_eq!(e["id"], "e1");
                assert_eq!(e["error"]["code"], -32602, "{v} {schema}");
                assert_eq!(
                    ev,
                    vec!["violation InvalidParams(ElicitationCreate)".to_string()],
                    "the host never sees it"
                );
            }
        }
    }
}

#[test]
fn a_modern_server_refuses_an_invalid_schema_in_an_input_request() {
    let mut s = server();
    let line = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"}}}}"#;
    push(&mut s, 0, format!("{line}\n").as_bytes());
    let Some(Event::Request { id, .. }) = s.poll_event() else {
        panic!()
    };
    let nested = Json::new(r#"{"q":{"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{"o":{"type":"object"}}}}}}"#).unwrap();
    assert_eq!(
        s.respond_input_required(id, Some(nested), None),
        Err(RespondError::InvalidContent(
            ContentError::PropertyNotPrimitive
        ))
    );
    assert!(take_output(&mut s).is_empty());
    let flat = Json::new(r#"{"q":{"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{"o":{"type":"boolean"}}}}}}"#).unwrap();
    s.respond_input_required(id, Some(flat), None).unwrap();
}

/// Moves what `from` sends into `to`, leaving `to`'s events queued.
fn relay(from: &mut Session<'static>, to: &mut Session<'static>) {
    for l in take_output(from) {
        push(to, 0, format!("{l}\n").as_bytes());
    }
}

const SCHEMA: &str = r#"{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer"},"ok":{"type":"boolean"},"color":{"type":"string","enum":["red","blue"]},"tags":{"type":"array","items":{"anyOf":[{"const":"a","title":"A"},{"const":"b","title":"B"}]}}},"required":["name"]}"#;

/// (answer, expected)
fn answers() -> Vec<(&'static str, Result<(), ContentMismatch>)> {
    use ContentMismatch::*;
    vec![
        (r#"{"action":"accept","content":{"name":"x"}}"#, Ok(())),
        (
            r#"{"action":"accept","content":{"name":"x","age":3,"ok":false,"color":"red","tags":["a","b"]}}"#,
            Ok(()),
        ),
        (r#"{"action":"decline"}"#, Ok(())),
        (r#"{"action":"cancel"}"#, Ok(())),
        (r#"{"action":"accept","content":{}}"#, Err(MissingRequired)),
        (r#"{"action":"accept"}"#, Err(MissingRequired)),
        (
            r#"{"action":"accept","content":{"name":7}}"#,
            Err(WrongType),
        ),
        (
            r#"{"action":"accept","content":{"name":"x","age":1.5}}"#,
            Err(WrongType),
        ),
        (
            r#"{"action":"accept","content":{"name":"x","ok":"yes"}}"#,
            Err(WrongType),
        ),
        (
            r#"{"action":"accept","content":{"name":"x","extra":1}}"#,
            Err(WrongType),
        ),
        (
            r#"{"action":"accept","content":{"name":"x","color":"green"}}"#,
            Err(NotInEnum),
        ),
        (
            r#"{"action":"accept","content":{"name":"x","tags":["z"]}}"#,
            Err(NotInEnum),
        ),
        (
            r#"{"action":"accept","content":{"name":"x","tags":"a"}}"#,
            Err(WrongType),
        ),
        (r#"{"action":"maybe"}"#, Err(Shape)),
        (r#"{"action":"accept","content":[]}"#, Err(Shape)),
    ]
}

#[test]
fn content_table_through_the_checker() {
    let schema = Json::new(SCHEMA).unwrap();
    for (answer, want) in answers() {
        let got = content::check_elicitation_content(schema, Json::new(answer).unwrap());
        assert_eq!(got, want, "{answer}");
    }
}

#[test]
fn a_legacy_server_reports_an_answer_that_does_not_match_its_schema() {
    for (answer, want) in answers() {
        let mut p = Pair::with(
            server_config(SERVER_CAPS),
            client_config(r#"{"elicitation":{}}"#),
        );
        p.handshake();
        let params = format!(r#"{{"message":"who?","requestedSchema":{SCHEMA}}}"#);
        let h = p
            .server
            .send_request(
                p.now,
                Method::ElicitationCreate,
                Some(Json::new(&params).unwrap()),
                RequestOptions::default(),
            )
            .unwrap();
        relay(&mut p.server, &mut p.client);
        let Some(Event::Request { id, .. }) = p.client.poll_event() else {
            panic!()
        };
        p.client.respond(id, Json::new(answer).unwrap()).unwrap();
        p.drive();
        match want {
            Ok(()) => assert_eq!(p.server_events, vec![format!("response {answer}")]),
            Err(_) => {
                assert_eq!(
                    p.server_events,
                    vec![
                        "violation InvalidResult".to_string(),
                        format!("InvalidResult {{ id: {h:?}, result: Json({answer}) }}")
                    ],
                    "{answer}"
                );
            }
        }
    }
}

#[test]
fn the_kept_schema_is_freed_with_the_request() {
    // A server whose arena holds one schema at a time still elicits over and over.
    let mut sc = server_config(SERVER_CAPS);
    sc.arena_bytes = SCHEMA.len() + 8;
    let mut p = Pair::with(sc, client_config(r#"{"elicitation":{}}"#));
    p.handshake();
    let params = format!(r#"{{"message":"who?","requestedSchema":{SCHEMA}}}"#);
    let send = |p: &mut Pair| {
        p.server.send_request(
            p.now,
            Method::ElicitationCreate,
            Some(Json::new(&params).unwrap()),
            RequestOptions::default(),
        )
    };
    for _ in 0..3 {
        send(&mut p).unwrap();
        assert!(matches!(send(&mut p), Err(SendError::ArenaFull { .. })));
        relay(&mut p.server, &mut p.client);
        let Some(Event::Request { id, .. }) = p.client.poll_event() else {
            panic!()
        };
        p.client
            .respond(id, Json::new(r#"{"action":"decline"}"#).unwrap())
            .unwrap();
        p.drive();
    }
}

#[test]
fn a_modern_client_treats_an_input_request_with_an_invalid_schema_as_an_invalid_result() {
    let mut cc = client_config(r#"{"elicitation":{}}"#);
    cc.versions = picomcp::protocol::Versions::ALL;
    let mut p = Pair::with(server_config(SERVER_CAPS), cc);
    p.handshake();
    assert_eq!(p.client.era(), picomcp::session::Era::Modern);
    let h = p
        .client
        .send_request(
            p.now,
            Method::ToolsCall,
            Some(Json::new(r#"{"name":"x"}"#).unwrap()),
            RequestOptions::default(),
        )
        .unwrap();
    let _ = take_output(&mut p.client);
    let nested = r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"q":{"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{"o":{"type":"object"}}}}}}}}"#;
    let (_, ev) = feed(&mut p.client, 0, format!("{nested}\n").as_bytes());
    assert_eq!(ev[0], "violation InvalidResult");
    assert!(
        ev[1].starts_with(&format!("InvalidResult {{ id: {h:?}")),
        "{ev:?}"
    );
}
