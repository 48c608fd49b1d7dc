//! The vector runner's server-layer part (tests/vectors/README.md, "The server
//! application layer"): a catalog from JSON, events through `Server::handle`, and the
//! `respond_*` steps.

use picomcp::json::Json;
use picomcp::server::{
    Call, Catalog, CompleteTarget, Completion, Content, Handled, Options, Prompt, PromptArgument,
    PromptMessage, ReadTarget, Resource, ResourceContents, ResourceTemplate, ResultError, Role,
    Server, Tool, ToolResult,
};
use picomcp::session::{InboundId, Session};
use serde_json::{Value, json};

fn leak_str(s: &str) -> &'static str {
    Box::leak(s.to_string().into_boxed_str())
}

fn leak_slice<T>(v: Vec<T>) -> &'static [T] {
    Box::leak(v.into_boxed_slice())
}

fn text(v: &Value, key: &str) -> Option<&'static str> {
    v.get(key).and_then(Value::as_str).map(leak_str)
}

fn json_text(v: &Value, key: &str) -> Option<&'static str> {
    v.get(key).map(|j| leak_str(&j.to_string()))
}

fn list(v: &Value, key: &str) -> Vec<Value> {
    v.get(key)
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

/// The layer over the catalog a session line's `"server"` member describes.
pub fn server(spec: &Value) -> Server<'static> {
    let tools = list(spec, "tools")
        .iter()
        .map(|t| Tool {
            name: text(t, "name").unwrap_or(""),
            title: text(t, "title"),
            description: text(t, "description"),
            input_schema: json_text(t, "inputSchema").unwrap_or(r#"{"type":"object"}"#),
            output_schema: json_text(t, "outputSchema"),
            annotations: json_text(t, "annotations"),
            icons: json_text(t, "icons"),
            execution: json_text(t, "execution"),
            meta: json_text(t, "_meta"),
            scopes: text(t, "scopes"),
        })
        .collect();
    let resources = list(spec, "resources")
        .iter()
        .map(|r| Resource {
            uri: text(r, "uri").unwrap_or(""),
            name: text(r, "name").unwrap_or(""),
            title: text(r, "title"),
            description: text(r, "description"),
            mime_type: text(r, "mimeType"),
            size: r.get("size").and_then(Value::as_u64),
            annotations: json_text(r, "annotations"),
            icons: json_text(r, "icons"),
            meta: json_text(r, "_meta"),
            scopes: text(r, "scopes"),
        })
        .collect();
    let templates = list(spec, "resourceTemplates")
        .iter()
        .map(|r| ResourceTemplate {
            uri_template: text(r, "uriTemplate").unwrap_or(""),
            name: text(r, "name").unwrap_or(""),
            title: text(r, "title"),
            description: text(r, "description"),
            mime_type: text(r, "mimeType"),
            annotations: json_text(r, "annotations"),
            icons: json_text(r, "icons"),
            meta: json_text(r, "_meta"),
            scopes: text(r, "scopes"),
            completable: r["completable"] == true,
        })
        .collect();
    let prompts = list(spec, "prompts")
        .iter()
        .map(|p| Prompt {
            name: text(p, "name").unwrap_or(""),
            title: text(p, "title"),
            description: text(p, "description"),
            arguments: leak_slice(
                list(p, "arguments")
                    .iter()
                    .map(|a| PromptArgument {
                        name: text(a, "name").unwrap_or(""),
                        title: text(a, "title"),
                        description: text(a, "description"),
                        required: a["required"] == true,
                        completable: a["completable"] == true,
                    })
                    .collect(),
            ),
            icons: json_text(p, "icons"),
            meta: json_text(p, "_meta"),
            scopes: text(p, "scopes"),
        })
        .collect();
    let d = Options::DEFAULT;
    let options = Options {
        page_size: spec["page_size"]
            .as_u64()
            .map_or(d.page_size, |n| n as usize),
        list_changed: spec["list_changed"].as_bool().unwrap_or(d.list_changed),
        subscribe: spec["subscribe"].as_bool().unwrap_or(d.subscribe),
        logging: spec["logging"].as_bool().unwrap_or(d.logging),
        schema_depth: d.schema_depth,
    };
    let catalog = Catalog {
        tools: leak_slice(tools),
        resources: leak_slice(resources),
        templates: leak_slice(templates),
        prompts: leak_slice(prompts),
    };
    Server::new(catalog, options).unwrap_or_else(|e| panic!("catalog: {e}"))
}

/// What a `respond_*` step answers, or a plain request for `respond`.
#[derive(Debug, Clone, Copy)]
pub enum Last {
    Request(InboundId),
    Tool(InboundId, usize),
    Read(InboundId),
    Prompt(InboundId, usize),
    Complete(InboundId),
}

/// Passes every pending event through the layer; what it hands on is queued as JSON.
pub fn pump(
    srv: &Server<'static>,
    s: &mut Session<'static>,
    pending: &mut std::collections::VecDeque<(Value, Option<Last>)>,
) {
    let j = |s: &str| serde_json::from_str::<Value>(s).unwrap();
    while let Some((event, mut cmds)) = s.poll_event_split() {
        let item = match srv.handle(event, &mut cmds) {
            Handled::Answered => continue,
            Handled::Event(e) => {
                let last = match e {
                    picomcp::session::Event::Request { id, .. } => Some(Last::Request(id)),
                    _ => None,
                };
                (super::event_json(&e), last)
            }
            Handled::Call(Call::Tool(c)) => (
                json!({"type": "call", "call": "tool", "tool": c.tool, "arguments": j(c.arguments.as_raw())}),
                Some(Last::Tool(c.id, c.tool)),
            ),
            Handled::Call(Call::Read(c)) => {
                let (target, index) = match c.target {
                    ReadTarget::Resource(i) => ("resource", i),
                    ReadTarget::Template(i) => ("template", i),
                };
                let mut vars = serde_json::Map::new();
                if let Some(v) = c.vars(srv) {
                    for (name, value) in v.iter() {
                        vars.insert(name.to_string(), Value::String(value.to_string()));
                    }
                }
                (
                    json!({"type": "call", "call": "read", "target": target, "index": index, "uri": c.uri(), "vars": vars}),
                    Some(Last::Read(c.id)),
                )
            }
            Handled::Call(Call::Prompt(c)) => (
                json!({"type": "call", "call": "prompt", "prompt": c.prompt, "arguments": j(c.arguments.as_raw())}),
                Some(Last::Prompt(c.id, c.prompt)),
            ),
            Handled::Call(Call::Complete(c)) => {
                let (target, index) = match c.target {
                    CompleteTarget::Prompt(i) => ("prompt", i),
                    CompleteTarget::Template(i) => ("template", i),
                };
                (
                    json!({"type": "call", "call": "complete", "target": target, "index": index, "argument": c.argument.to_string(), "value": c.value.to_string()}),
                    Some(Last::Complete(c.id)),
                )
            }
        };
        pending.push_back(item);
    }
}

fn content(b: &Value) -> Content<'static> {
    let s = |k: &str| text(b, k).unwrap_or("");
    match b["type"].as_str() {
        Some("text") => Content::text(s("text")),
        Some("image") => Content::Image {
            data: s("data"),
            mime_type: s("mimeType"),
        },
        Some("audio") => Content::Audio {
            data: s("data"),
            mime_type: s("mimeType"),
        },
        Some("resource_link") => Content::ResourceLink {
            uri: s("uri"),
            name: s("name"),
            mime_type: text(b, "mimeType"),
            description: text(b, "description"),
        },
        Some("resource") => Content::Resource(contents(&b["resource"])),
        _ => Content::Json(Json::new(leak_str(&b.to_string())).unwrap()),
    }
}

fn contents(r: &Value) -> ResourceContents<'static> {
    let uri = text(r, "uri").unwrap_or("");
    match text(r, "blob") {
        Some(b) => ResourceContents::blob(uri, text(r, "mimeType"), b),
        None => ResourceContents::text(uri, text(r, "mimeType"), text(r, "text").unwrap_or("")),
    }
}

fn kind(e: &ResultError) -> String {
    let d = format!("{e:?}");
    d.split(['(', ' ', '{']).next().unwrap().to_string()
}

/// A `respond_*` step; the `ResultError` variant name on refusal.
pub fn respond(
    srv: &Server<'static>,
    s: &mut Session<'static>,
    call: Last,
    step: &str,
    v: &Value,
) -> Result<(), String> {
    let mut cmds = s.commands();
    let result = match (step, call) {
        ("respond_tool", Last::Tool(id, tool)) => {
            let blocks = leak_slice(list(v, "content").iter().map(content).collect());
            let structured = v
                .get("structured")
                .map(|x| Json::new(leak_str(&x.to_string())).unwrap());
            let mut r = match (structured, v.get("content").is_some()) {
                (Some(x), false) => ToolResult::structured(x),
                (Some(x), true) => ToolResult::structured(x).with_content(blocks),
                (None, _) => ToolResult::content(blocks),
            };
            if v["is_error"] == true {
                r = r.with_error();
            }
            srv.respond_tool(&mut cmds, id, tool, &r)
        }
        ("respond_read", Last::Read(id)) => {
            let items: Vec<_> = list(v, "contents").iter().map(contents).collect();
            srv.respond_read(&mut cmds, id, &items)
                .map_err(ResultError::from)
        }
        ("respond_prompt", Last::Prompt(id, prompt)) => {
            let msgs: Vec<_> = list(v, "messages")
                .iter()
                .map(|m| PromptMessage {
                    role: if m["role"] == "assistant" {
                        Role::Assistant
                    } else {
                        Role::User
                    },
                    content: content(&m["content"]),
                })
                .collect();
            srv.respond_prompt(&mut cmds, id, prompt, &msgs)
        }
        ("respond_completion", Last::Complete(id)) => {
            let values: Vec<&'static str> = list(v, "values")
                .iter()
                .map(|x| leak_str(x.as_str().unwrap()))
                .collect();
            let c = Completion {
                values: &values,
                total: v.get("total").and_then(Value::as_u64).map(|n| n as usize),
                has_more: v["hasMore"] == true,
            };
            srv.respond_completion(&mut cmds, id, &c)
                .map_err(ResultError::from)
        }
        (step, call) => panic!("{step} does not answer {call:?}"),
    };
    result.map_err(|e| kind(&e))
}

/// The `*.jsonl` files of `tests/vectors/<sub>` (`""`: the folder itself), sorted; asserts
/// there are at least `min` (a moved folder must not pass by running nothing).
pub fn vector_files(sub: &str, min: usize) -> Vec<std::path::PathBuf> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/vectors")
        .join(sub);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    assert!(files.len() >= min, "{files:?}");
    files
}

/// Subset match (see tests/vectors/README.md).
pub fn matches(expected: &serde_json::Value, actual: &serde_json::Value) -> bool {
    match (expected, actual) {
        (serde_json::Value::String(s), _) if s == "<any>" => !actual.is_null(),
        (serde_json::Value::Object(e), Value::Object(a)) => e
            .iter()
            .all(|(k, v)| a.get(k).is_some_and(|av| matches(v, av))),
        (serde_json::Value::Array(e), Value::Array(a)) => {
            e.len() == a.len() && e.iter().zip(a).all(|(x, y)| matches(x, y))
        }
        _ => expected == actual,
    }
}
