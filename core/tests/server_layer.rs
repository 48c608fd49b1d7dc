//! The server application layer (`picomcp::server`): lists and pagination, revision
//! fields, call checks and the answers it shapes, driven through a real `Session`.

mod common;

use common::{INITIALIZED, j, storage};
use picomcp::json::Json;
use picomcp::server::{
    Call, Catalog, CompleteTarget, Completion, Content, DefinitionErrorKind, Handled, Options,
    Prompt, PromptArgument, PromptMessage, ReadTarget, Resource, ResourceContents,
    ResourceTemplate, Server, Table, Tool, ToolResult,
};
use picomcp::session::{Config, Session};
use serde_json::Value;

const ECHO_SCHEMA: &str =
    r#"{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}"#;
const ADD_SCHEMA: &str = r#"{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}"#;
const SUM_SCHEMA: &str =
    r#"{"type":"object","properties":{"sum":{"type":"number"}},"required":["sum"]}"#;

const TOOLS: &[Tool<'static>] = &[
    Tool::new("echo", ECHO_SCHEMA)
        .title("Echo")
        .description("Returns text")
        .annotations(r#"{"readOnlyHint":true}"#)
        .icons(r#"[{"src":"https://example.com/i.png"}]"#)
        .meta(r#"{"x":1}"#),
    Tool::new("add", ADD_SCHEMA).output_schema(SUM_SCHEMA),
    Tool::new("audio", r#"{"type":"object"}"#),
];
const RESOURCES: &[Resource<'static>] = &[
    Resource::new("test://a", "a").mime_type("text/plain"),
    Resource::new("test://b", "b").title("B"),
];
const TEMPLATES: &[ResourceTemplate<'static>] =
    &[ResourceTemplate::new("test://item/{id}/data", "item").completable()];
const ARGS: &[PromptArgument<'static>] = &[
    PromptArgument::new("arg1").required().completable(),
    PromptArgument::new("arg2"),
];
const PROMPTS: &[Prompt<'static>] = &[
    Prompt::new("simple").description("A simple prompt"),
    Prompt::new("with_args").arguments(ARGS),
];
const CATALOG: Catalog<'static> = Catalog {
    tools: TOOLS,
    resources: RESOURCES,
    templates: TEMPLATES,
    prompts: PROMPTS,
};

fn server(options: Options) -> Server<'static> {
    Server::new(CATALOG, options).expect("valid catalog")
}

/// A session whose capabilities come from the layer.
fn session(server: &Server<'_>) -> Session<'static> {
    let buf: &'static mut [u8; 256] = Box::leak(Box::new([0u8; 256]));
    let caps = server.capabilities(buf).unwrap();
    let mut c = Config::server("t", "1", caps);
    c.limits = common::limits();
    c.arena_bytes = 1024;
    c.batch_bytes = 1024;
    Session::new(&c, storage(), 0).unwrap()
}

/// A legacy session after the handshake at `version`.
fn legacy(server: &Server<'_>, version: &str) -> Session<'static> {
    let mut s = session(server);
    let init = common::INIT.replace("2025-11-25", version);
    let (out, _) = common::feed(&mut s, 0, format!("{init}\n{INITIALIZED}\n").as_bytes());
    assert_eq!(out.len(), 1);
    s
}

/// Feeds lines and lets the layer and a small host answer; returns what was sent.
fn exchange(server: &Server<'_>, s: &mut Session<'_>, lines: &[&str]) -> Vec<Value> {
    for l in lines {
        common::push(s, 0, format!("{l}\n").as_bytes());
        while let Some((event, mut cmds)) = s.poll_event_split() {
            match server.handle(event, &mut cmds) {
                Handled::Call(Call::Tool(c)) => {
                    let r = match TOOLS[c.tool].name {
                        "echo" => {
                            let t = c.arguments.get("text").unwrap().as_str().unwrap();
                            server.respond_tool(&mut cmds, c.id, c.tool, &ToolResult::text(t))
                        }
                        "add" => {
                            let a = c.arguments.get("a").unwrap().as_f64().unwrap();
                            let b = c.arguments.get("b").unwrap().as_f64().unwrap();
                            let text = if a == 99.0 {
                                r#"{"sum":"not a number"}"#.to_string()
                            } else {
                                format!(r#"{{"sum":{}}}"#, a + b)
                            };
                            let v = Json::new(&text).unwrap();
                            let r = ToolResult::structured(v);
                            let out = server.respond_tool(&mut cmds, c.id, c.tool, &r);
                            if let Err(e) = out {
                                let msg = e.to_string();
                                server
                                    .respond_tool(
                                        &mut cmds,
                                        c.id,
                                        c.tool,
                                        &ToolResult::error(msg.as_str()),
                                    )
                                    .unwrap();
                            }
                            Ok(())
                        }
                        _ => {
                            let blocks = [Content::Audio {
                                data: "AAAA",
                                mime_type: "audio/wav",
                            }];
                            let out = server.respond_tool(
                                &mut cmds,
                                c.id,
                                c.tool,
                                &ToolResult::content(&blocks),
                            );
                            if let Err(e) = out {
                                let msg = e.to_string();
                                server
                                    .respond_tool(
                                        &mut cmds,
                                        c.id,
                                        c.tool,
                                        &ToolResult::error(msg.as_str()),
                                    )
                                    .unwrap();
                            }
                            Ok(())
                        }
                    };
                    r.unwrap();
                }
                Handled::Call(Call::Read(c)) => {
                    let text = match c.target {
                        ReadTarget::Resource(i) => format!("resource {i}"),
                        ReadTarget::Template(i) => {
                            let vars = c.vars(server).unwrap();
                            format!("template {i} id={}", vars.get("id").unwrap())
                        }
                    };
                    let contents = [ResourceContents::text(c.uri(), None, text.as_str())];
                    server.respond_read(&mut cmds, c.id, &contents).unwrap();
                }
                Handled::Call(Call::Prompt(c)) => {
                    let text = match c.argument("arg1") {
                        Some(a) => format!("arg1={a}"),
                        None => "plain".to_string(),
                    };
                    let msgs = [PromptMessage::user(text.as_str())];
                    server
                        .respond_prompt(&mut cmds, c.id, c.prompt, &msgs)
                        .unwrap();
                }
                Handled::Call(Call::Complete(c)) => {
                    let values: &[&str] = match c.target {
                        CompleteTarget::Prompt(_) => &["paris", "park"],
                        CompleteTarget::Template(_) => &["1", "2"],
                    };
                    let completion = Completion {
                        values,
                        total: Some(values.len()),
                        has_more: false,
                    };
                    server
                        .respond_completion(&mut cmds, c.id, &completion)
                        .unwrap();
                }
                Handled::Answered | Handled::Event(_) => {}
            }
        }
    }
    common::take_output(s).iter().map(|l| j(l)).collect()
}

fn req(id: u32, method: &str, params: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{params}}}"#)
}

/// The same request in the 2026-07-28 era.
fn modern_req(id: u32, method: &str, params: &str) -> String {
    let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
    let params = if params == "{}" {
        format!("{{{meta}}}")
    } else {
        format!("{{{meta},{}", &params[1..])
    };
    req(id, method, &params)
}

fn one(server: &Server<'_>, s: &mut Session<'_>, line: &str) -> Value {
    let out = exchange(server, s, &[line]);
    assert_eq!(out.len(), 1, "{out:?}");
    out.into_iter().next().unwrap()
}

#[test]
fn capabilities_follow_the_tables() {
    let mut buf = [0u8; picomcp::server::CAPABILITIES_MAX];
    let caps = server(Options::default()).capabilities(&mut buf).unwrap();
    assert_eq!(
        caps.as_raw(),
        r#"{"tools":{"listChanged":true},"resources":{"listChanged":true},"prompts":{"listChanged":true},"completions":{},"logging":{}}"#
    );
    let only_tools = Catalog {
        tools: TOOLS,
        ..Catalog::EMPTY
    };
    let options = Options {
        list_changed: false,
        logging: false,
        ..Options::default()
    };
    let s = Server::new(only_tools, options).unwrap();
    assert_eq!(
        s.capabilities(&mut buf).unwrap().as_raw(),
        r#"{"tools":{}}"#
    );
    let s = Server::new(
        Catalog::default(),
        Options {
            subscribe: true,
            ..options
        },
    )
    .unwrap();
    assert_eq!(s.capabilities(&mut buf).unwrap().as_raw(), "{}");
}

#[test]
fn broken_definitions_are_refused_at_start_up() {
    const CASES: &[(Catalog<'static>, Table, usize, &str)] = &[
        (
            Catalog {
                tools: &[Tool::new("x", "{not json")],
                ..Catalog::EMPTY
            },
            Table::Tools,
            0,
            "inputSchema",
        ),
        (
            Catalog {
                tools: &[Tool::new("x", r#"{"type":"string"}"#)],
                ..Catalog::EMPTY
            },
            Table::Tools,
            0,
            "inputSchema",
        ),
        (
            Catalog {
                tools: &[
                    Tool::new("x", "{\"type\":\"object\"}"),
                    Tool::new("x", "{\"type\":\"object\"}"),
                ],
                ..Catalog::EMPTY
            },
            Table::Tools,
            1,
            "name",
        ),
        (
            Catalog {
                tools: &[Tool::new("x", "{\"type\":\"object\"}").annotations("[]")],
                ..Catalog::EMPTY
            },
            Table::Tools,
            0,
            "annotations",
        ),
        (
            Catalog {
                resources: &[Resource::new("", "n")],
                ..Catalog::EMPTY
            },
            Table::Resources,
            0,
            "uri",
        ),
        (
            Catalog {
                prompts: &[Prompt::new("p")
                    .arguments(&[PromptArgument::new("a"), PromptArgument::new("a")])],
                ..Catalog::EMPTY
            },
            Table::Prompts,
            0,
            "arguments",
        ),
    ];
    for (catalog, table, index, field) in CASES {
        let e = Server::new(*catalog, Options::default()).unwrap_err();
        assert_eq!((e.table, e.index, e.field), (*table, *index, *field), "{e}");
        assert!(!e.to_string().is_empty());
    }
    let e = Server::new(
        CATALOG,
        Options {
            page_size: 0,
            ..Options::default()
        },
    )
    .unwrap_err();
    assert!(matches!(e.kind, DefinitionErrorKind::PageSize));
}

#[test]
fn tools_list_has_only_the_fields_of_the_revision() {
    let srv = server(Options::default());
    let list = |version: &str| {
        let mut s = legacy(&srv, version);
        one(&srv, &mut s, &req(1, "tools/list", "{}"))["result"]["tools"][0].clone()
    };
    let old = list("2024-11-05");
    assert_eq!(
        old,
        serde_json::json!({"name":"echo","description":"Returns text","inputSchema":serde_json::from_str::<Value>(ECHO_SCHEMA).unwrap()})
    );
    let mid = list("2025-03-26");
    assert_eq!(mid["annotations"]["readOnlyHint"], true);
    assert!(mid.get("title").is_none() && mid.get("_meta").is_none());
    let new = list("2025-11-25");
    assert_eq!(new["title"], "Echo");
    assert_eq!(new["_meta"]["x"], 1);
    assert!(new["icons"].is_array());
    let mut s = legacy(&srv, "2025-06-18");
    let out = one(&srv, &mut s, &req(1, "tools/list", "{}"));
    assert!(out["result"]["tools"][0].get("icons").is_none());
    assert!(out["result"]["tools"][1]["outputSchema"].is_object());
}

#[test]
fn lists_are_paginated_with_opaque_cursors() {
    let srv = server(Options {
        page_size: 2,
        ..Options::default()
    });
    let mut s = legacy(&srv, "2025-11-25");
    let first = one(&srv, &mut s, &req(1, "tools/list", "{}"));
    let names: Vec<_> = first["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(names, ["echo", "add"]);
    let cursor = first["result"]["nextCursor"].as_str().unwrap().to_string();
    let second = one(
        &srv,
        &mut s,
        &req(2, "tools/list", &format!(r#"{{"cursor":"{cursor}"}}"#)),
    );
    assert_eq!(second["result"]["tools"][0]["name"], "audio");
    assert!(second["result"].get("nextCursor").is_none());
    // Another list's cursor, a made-up one, a non-string: -32602.
    for bad in [
        format!(r#"{{"cursor":"{cursor}"}}"#),
        r#"{"cursor":"2-00000000"}"#.to_string(),
        r#"{"cursor":7}"#.to_string(),
    ] {
        let out = one(&srv, &mut s, &req(3, "prompts/list", &bad));
        assert_eq!(out["error"]["code"], -32602, "{bad}: {out}");
        assert_eq!(out["id"], 3);
    }
    // A cursor from a table that changed since is stale.
    let changed = Server::new(
        Catalog {
            tools: &TOOLS[1..],
            ..CATALOG
        },
        Options {
            page_size: 2,
            ..Options::default()
        },
    )
    .unwrap();
    let out = one(
        &changed,
        &mut s,
        &req(4, "tools/list", &format!(r#"{{"cursor":"{cursor}"}}"#)),
    );
    assert_eq!(out["error"]["code"], -32602);
    // Every page of every list, followed to the end, gives each entry once.
    let out = one(&srv, &mut s, &req(5, "resources/list", "{}"));
    assert_eq!(out["result"]["resources"].as_array().unwrap().len(), 2);
    assert!(out["result"].get("nextCursor").is_none());
    let out = one(&srv, &mut s, &req(6, "resources/templates/list", "{}"));
    assert_eq!(
        out["result"]["resourceTemplates"][0]["uriTemplate"],
        "test://item/{id}/data"
    );
}

#[test]
fn tools_call_checks_name_and_arguments() {
    let srv = server(Options::default());
    for version in ["2025-06-18", "2025-11-25"] {
        let mut s = legacy(&srv, version);
        let ok = one(
            &srv,
            &mut s,
            &req(
                1,
                "tools/call",
                r#"{"name":"echo","arguments":{"text":"h\u00e9"}}"#,
            ),
        );
        assert_eq!(ok["result"]["content"][0]["text"], "hé");
        let unknown = one(&srv, &mut s, &req(2, "tools/call", r#"{"name":"nope"}"#));
        assert_eq!(unknown["error"]["code"], -32602);
        assert_eq!(unknown["error"]["message"], "Unknown tool: nope");
        let not_object = one(
            &srv,
            &mut s,
            &req(3, "tools/call", r#"{"name":"echo","arguments":[1]}"#),
        );
        assert_eq!(not_object["error"]["code"], -32602);
        let missing = one(
            &srv,
            &mut s,
            &req(4, "tools/call", r#"{"name":"echo","arguments":{}}"#),
        );
        if version == "2025-11-25" {
            assert_eq!(missing["result"]["isError"], true, "{missing}");
            let text = missing["result"]["content"][0]["text"].as_str().unwrap();
            assert!(
                text.starts_with("Invalid arguments for tool echo: "),
                "{text}"
            );
        } else {
            assert_eq!(missing["error"]["code"], -32602, "{missing}");
        }
        let no_name = one(&srv, &mut s, &req(5, "tools/call", r#"{"arguments":{}}"#));
        assert_eq!(no_name["error"]["code"], -32602);
    }
}

#[test]
fn structured_results_are_checked_and_shaped_for_the_revision() {
    let srv = server(Options::default());
    let mut s = legacy(&srv, "2025-11-25");
    let out = one(
        &srv,
        &mut s,
        &req(
            1,
            "tools/call",
            r#"{"name":"add","arguments":{"a":1,"b":2}}"#,
        ),
    );
    assert_eq!(out["result"]["structuredContent"]["sum"], 3.0);
    assert_eq!(out["result"]["content"][0]["type"], "text");
    let text = out["result"]["content"][0]["text"].as_str().unwrap();
    assert_eq!(j(text)["sum"], 3.0);
    // Before 2025-06-18 only the text block.
    let mut old = legacy(&srv, "2025-03-26");
    let out = one(
        &srv,
        &mut old,
        &req(
            1,
            "tools/call",
            r#"{"name":"add","arguments":{"a":1,"b":2}}"#,
        ),
    );
    assert!(out["result"].get("structuredContent").is_none());
    assert_eq!(
        j(out["result"]["content"][0]["text"].as_str().unwrap())["sum"],
        3.0
    );
    // Structured content that does not match the outputSchema is never sent; the host
    // answers with an error instead (see `exchange`).
    let out = one(
        &srv,
        &mut s,
        &req(
            2,
            "tools/call",
            r#"{"name":"add","arguments":{"a":99,"b":2}}"#,
        ),
    );
    assert_eq!(out["result"]["isError"], true, "{out}");
    assert!(out["result"].get("structuredContent").is_none());
}

#[test]
fn content_blocks_the_revision_lacks_are_refused() {
    let srv = server(Options::default());
    let mut s = legacy(&srv, "2024-11-05");
    let out = one(&srv, &mut s, &req(1, "tools/call", r#"{"name":"audio"}"#));
    assert_eq!(out["result"]["isError"], true, "{out}");
    let mut s = legacy(&srv, "2025-03-26");
    let out = one(&srv, &mut s, &req(1, "tools/call", r#"{"name":"audio"}"#));
    assert_eq!(out["result"]["content"][0]["type"], "audio", "{out}");
}

#[test]
fn resources_read_matches_uris_and_templates() {
    let srv = server(Options::default());
    let mut s = legacy(&srv, "2025-11-25");
    let out = one(
        &srv,
        &mut s,
        &req(1, "resources/read", r#"{"uri":"test://b"}"#),
    );
    assert_eq!(out["result"]["contents"][0]["text"], "resource 1");
    assert_eq!(out["result"]["contents"][0]["uri"], "test://b");
    let out = one(
        &srv,
        &mut s,
        &req(2, "resources/read", r#"{"uri":"test:\/\/item\/42\/data"}"#),
    );
    assert_eq!(
        out["result"]["contents"][0]["text"], "template 0 id=42",
        "{out}"
    );
    let out = one(
        &srv,
        &mut s,
        &req(3, "resources/read", r#"{"uri":"test://nothing"}"#),
    );
    assert_eq!(out["error"]["code"], -32002);
    assert_eq!(out["error"]["data"]["uri"], "test://nothing");
    let out = one(&srv, &mut s, &req(4, "resources/read", "{}"));
    assert_eq!(out["error"]["code"], -32602);
    // 2026-07-28: resource not found is -32602.
    let mut m = session(&srv);
    let out = one(
        &srv,
        &mut m,
        &modern_req(5, "resources/read", r#"{"uri":"test://nothing"}"#),
    );
    assert_eq!(out["error"]["code"], -32602, "{out}");
}

#[test]
fn prompts_get_checks_required_arguments() {
    let srv = server(Options::default());
    let mut s = legacy(&srv, "2025-11-25");
    let out = one(
        &srv,
        &mut s,
        &req(
            1,
            "prompts/get",
            r#"{"name":"with_args","arguments":{"arg1":"x"}}"#,
        ),
    );
    assert_eq!(out["result"]["messages"][0]["content"]["text"], "arg1=x");
    let out = one(
        &srv,
        &mut s,
        &req(
            2,
            "prompts/get",
            r#"{"name":"with_args","arguments":{"arg2":"x"}}"#,
        ),
    );
    assert_eq!(out["error"]["code"], -32602);
    assert_eq!(
        out["error"]["message"],
        "Invalid params: missing required argument `arg1`"
    );
    let out = one(
        &srv,
        &mut s,
        &req(
            3,
            "prompts/get",
            r#"{"name":"with_args","arguments":{"arg1":1}}"#,
        ),
    );
    assert_eq!(out["error"]["code"], -32602);
    let out = one(&srv, &mut s, &req(4, "prompts/get", r#"{"name":"nope"}"#));
    assert_eq!(out["error"]["code"], -32602);
    let out = one(&srv, &mut s, &req(5, "prompts/get", r#"{"name":"simple"}"#));
    assert_eq!(out["result"]["description"], "A simple prompt");
}

#[test]
fn completion_reaches_the_host_only_for_completable_references() {
    let srv = server(Options::default());
    let mut s = legacy(&srv, "2025-11-25");
    let c =
        |r: &str, arg: &str| format!(r#"{{"ref":{r},"argument":{{"name":"{arg}","value":"p"}}}}"#);
    let out = one(
        &srv,
        &mut s,
        &req(
            1,
            "completion/complete",
            &c(r#"{"type":"ref/prompt","name":"with_args"}"#, "arg1"),
        ),
    );
    assert_eq!(
        out["result"]["completion"]["values"],
        serde_json::json!(["paris", "park"])
    );
    let out = one(
        &srv,
        &mut s,
        &req(
            2,
            "completion/complete",
            &c(r#"{"type":"ref/prompt","name":"with_args"}"#, "arg2"),
        ),
    );
    assert_eq!(out["result"]["completion"]["values"], serde_json::json!([]));
    let out = one(
        &srv,
        &mut s,
        &req(
            3,
            "completion/complete",
            &c(
                r#"{"type":"ref/resource","uri":"test://item/{id}/data"}"#,
                "id",
            ),
        ),
    );
    assert_eq!(
        out["result"]["completion"]["values"],
        serde_json::json!(["1", "2"])
    );
    let out = one(
        &srv,
        &mut s,
        &req(
            4,
            "completion/complete",
            &c(r#"{"type":"ref/resource","uri":"test://zzz"}"#, "id"),
        ),
    );
    assert_eq!(out["error"]["code"], -32602);
    let out = one(
        &srv,
        &mut s,
        &req(
            5,
            "completion/complete",
            &c(r#"{"type":"ref/other"}"#, "id"),
        ),
    );
    assert_eq!(out["error"]["code"], -32602);
}

#[test]
fn the_modern_era_is_served_the_same_way() {
    let srv = server(Options::default());
    let mut s = session(&srv);
    let out = one(&srv, &mut s, &modern_req(1, "tools/list", "{}"));
    assert_eq!(out["result"]["tools"][0]["title"], "Echo", "{out}");
    assert!(out["result"]["tools"][0].get("execution").is_none());
    let out = one(
        &srv,
        &mut s,
        &modern_req(2, "tools/call", r#"{"name":"echo","arguments":{}}"#),
    );
    assert_eq!(out["result"]["isError"], true, "{out}");
    let out = one(
        &srv,
        &mut s,
        &modern_req(
            3,
            "tools/call",
            r#"{"name":"echo","arguments":{"text":"x"}}"#,
        ),
    );
    assert_eq!(out["result"]["content"][0]["text"], "x", "{out}");
}
