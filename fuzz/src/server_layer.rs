//! `server_layer`: a server session behind the core's server layer (`picomcp::server`),
//! fed arbitrary peer lines, with every checked call answered in a way chosen by the
//! input (text, blocks, structured content that may or may not match the output schema,
//! an error).
//!
//! Layout: `[mode] [answer seed] line\nline\n...`. `mode & 3` picks the era: a legacy
//! handshake at 2024-11-05 / 2025-06-18 / 2025-11-25 fed first, or none (2026-07-28 lines
//! come from the input). `mode & 4` sets page size 1 (else 100).
//!
//! Invariants: no panic; every output line is one JSON value; a refused answer
//! (`ResultError`) leaves the request open and a second answer (an error result) is
//! accepted; the transmit queue never overflows unnoticed (answers that do not fit are
//! errors, never half-written lines).

use picomcp::json::Json;
use picomcp::server::{
    Call, Catalog, CompleteTarget, Completion, Content, Handled, Options, Prompt, PromptArgument,
    PromptMessage, Resource, ResourceContents, ResourceTemplate, ResultError, Server, Tool,
    ToolResult,
};
use picomcp::session::{Config, Session, StaticStorage};

use crate::Rng;

const ARGS: &[PromptArgument<'static>] = &[
    PromptArgument::new("a").required().completable(),
    PromptArgument::new("b"),
];
const TOOLS: &[Tool<'static>] = &[
    Tool::new(
        "echo",
        r#"{"type":"object","properties":{"text":{"type":"string","maxLength":64}},"required":["text"]}"#,
    ),
    Tool::new(
        "add",
        r#"{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"integer","minimum":0}},"required":["a"],"additionalProperties":false}"#,
    )
    .output_schema(r#"{"type":"object","properties":{"sum":{"type":"number"}},"required":["sum"]}"#),
    Tool::new(
        "deep",
        r##"{"type":"object","$defs":{"n":{"anyOf":[{"type":"null"},{"type":"object","properties":{"next":{"$ref":"#/$defs/n"}}}]}},"properties":{"list":{"$ref":"#/$defs/n"},"tags":{"type":"array","items":{"enum":["x","y"]},"uniqueItems":true}}}"##,
    ),
];
const CATALOG: Catalog<'static> = Catalog {
    tools: TOOLS,
    resources: &[
        Resource::new("test://a", "a"),
        Resource::new("test://b", "b"),
    ],
    templates: &[
        ResourceTemplate::new("test://t/{id}", "t").completable(),
        ResourceTemplate::new("file:///{+path}", "f"),
    ],
    prompts: &[Prompt::new("p").arguments(ARGS), Prompt::new("q")],
};

type Mem = StaticStorage<2048, 8192, 8192, 4, 4, 2048>;

pub fn run(data: &[u8]) {
    let (mode, seed, rest) = match data {
        [m, s, rest @ ..] => (*m, *s, rest),
        _ => return,
    };
    let options = Options {
        page_size: if mode & 4 != 0 { 1 } else { 100 },
        subscribe: true,
        ..Options::DEFAULT
    };
    let server = Server::new(CATALOG, options).expect("the catalog is valid");
    let mut caps = [0u8; picomcp::server::CAPABILITIES_MAX];
    let mut config = Config::server("fuzz", "1", server.capabilities(&mut caps).unwrap());
    config.limits.max_line = 2048;
    config.arena_bytes = 512;
    config.batch_bytes = 512;
    let mut mem = Box::new(Mem::new());
    let Ok(mut s) = Session::new(&config, mem.as_storage(), 0) else {
        panic!("config refused");
    };
    let mut rng = Rng::new(u64::from(seed));
    let init = match mode & 3 {
        0 => Some("2024-11-05"),
        1 => Some("2025-06-18"),
        2 => Some("2025-11-25"),
        _ => None,
    };
    if let Some(v) = init {
        let line = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{{\"protocolVersion\":\"{v}\",\"capabilities\":{{}},\"clientInfo\":{{\"name\":\"f\",\"version\":\"1\"}}}}}}\n{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}}\n"
        );
        feed(&server, &mut s, line.as_bytes(), &mut rng);
    }
    for chunk in rest.split_inclusive(|b| *b == b'\n') {
        feed(&server, &mut s, chunk, &mut rng);
    }
    s.handle_eof(1);
    drain(&server, &mut s, &mut rng);
}

fn feed(server: &Server<'_>, s: &mut Session<'_>, mut bytes: &[u8], rng: &mut Rng) {
    let mut stuck = 0;
    while !bytes.is_empty() && stuck < 4 {
        let n = s.handle_bytes(1, bytes);
        bytes = &bytes[n..];
        stuck = if n == 0 { stuck + 1 } else { 0 };
        drain(server, s, rng);
    }
}

fn drain(server: &Server<'_>, s: &mut Session<'_>, rng: &mut Rng) {
    while let Some((event, mut cmds)) = s.poll_event_split() {
        if let Handled::Call(call) = server.handle(event, &mut cmds) {
            answer(server, &mut cmds, call, rng);
        }
    }
    let out = s.pending_transmit();
    for line in out.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
        if let Err(e) = serde_json::from_slice::<serde_json::Value>(line) {
            panic!(
                "output is not JSON ({e}): {}",
                String::from_utf8_lossy(line)
            );
        }
    }
    let n = out.len();
    s.advance_transmit(n);
}

fn answer(
    server: &Server<'_>,
    cmds: &mut picomcp::session::Commands<'_, '_>,
    call: Call<'_>,
    rng: &mut Rng,
) {
    let pick = rng.next_u64() % 6;
    match call {
        Call::Tool(c) => {
            let sum = if pick == 0 {
                r#"{"sum":"x"}"#
            } else {
                r#"{"sum":1.5}"#
            };
            let blocks = [
                Content::text("t"),
                Content::Audio {
                    data: "AA==",
                    mime_type: "audio/wav",
                },
                Content::ResourceLink {
                    uri: "test://a",
                    name: "a",
                    mime_type: None,
                    description: None,
                },
                Content::Json(Json::new(r#"{"type":"custom"}"#).unwrap()),
            ];
            let result = match pick {
                0 | 1 => ToolResult::structured(Json::new(sum).unwrap()),
                2 => ToolResult::content(&blocks),
                3 => ToolResult::error("no"),
                _ => match c.arguments.get("text").and_then(|t| t.as_str()) {
                    Some(t) => ToolResult::text(t),
                    None => ToolResult::text("none"),
                },
            };
            match server.respond_tool(cmds, c.id, c.tool, &result) {
                Ok(()) | Err(ResultError::Respond(_)) => {}
                Err(_) => {
                    // Refused before anything was sent: the request is still open.
                    match server.respond_tool(cmds, c.id, c.tool, &ToolResult::error("refused")) {
                        Ok(()) | Err(ResultError::Respond(_)) => {}
                        Err(e) => panic!("an error result was refused: {e}"),
                    }
                }
            }
        }
        Call::Read(c) => {
            let vars = c.vars(server);
            let text = vars
                .and_then(|v| v.iter().next().map(|(_, v)| v))
                .unwrap_or("r");
            let contents = [ResourceContents::text(c.uri(), None, text)];
            let _ = server.respond_read(cmds, c.id, &contents);
        }
        Call::Prompt(c) => {
            let text: picomcp::server::Text<'_> = c.argument("a").map_or("x".into(), Into::into);
            let msgs = [PromptMessage::user(text)];
            let _ = server.respond_prompt(cmds, c.id, c.prompt, &msgs);
        }
        Call::Complete(c) => {
            let values: &[&str] = match c.target {
                CompleteTarget::Prompt(_) => &["a", "b"],
                CompleteTarget::Template(_) => &[],
            };
            let completion = Completion {
                values,
                total: None,
                has_more: pick == 0,
            };
            let _ = server.respond_completion(cmds, c.id, &completion);
        }
    }
}
