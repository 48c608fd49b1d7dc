//! Tools: `tools/list`, then `tools/call` of each tool with arguments generated from its
//! input schema (the demo servers' tools with the fixed cases of [`crate::demo`]).

use picomcp::json::{Json, JsonKind};
use picomcp::protocol::Method;
use picomcp::session::Phase;

use super::{METHOD_NOT_FOUND, NAME, judge, refused};
use crate::client::{Answer, Probe, Reply};
use crate::demo::DEMO_CASES;
use crate::describe::{block_type, describe_block, progress_note};
use crate::generate::{generate_arguments, mark_required, required_names};
use crate::report::Outcome;
use crate::text::{clip, first_line, json_text, paren, parse_json, string_member};

/// Tools called (resources and prompts: [`MAX_ITEMS`](super::MAX_ITEMS)); the demo
/// servers have 16.
pub(crate) const MAX_TOOL_CALLS: usize = 32;
/// After this many tool calls without an answer in time, the rest are skipped.
pub(crate) const MAX_TOOL_TIMEOUTS: usize = 2;

impl Probe {
    /// Lists the tools and calls each (at most [`MAX_TOOL_CALLS`]; after
    /// [`MAX_TOOL_TIMEOUTS`] unanswered calls the rest are skipped).
    pub(crate) fn check_tools(&mut self) {
        self.report.section("tools");
        let Some(items) = self.list(
            Method::ToolsList,
            "tools",
            "tool",
            &[NAME, ("inputSchema", JsonKind::Object)],
        ) else {
            return;
        };
        self.lint_definitions("tool", &items);
        let tools: Vec<Tool> = items.iter().filter_map(|raw| Tool::parse(raw)).collect();
        for tool in &tools {
            let line = format!(
                "{}  {}{}",
                tool.name,
                clip(&tool.description, 60),
                paren(&tool.params)
            );
            self.report.info(line);
            self.report.tools.push(tool.name.clone());
        }
        if tools.len() > MAX_TOOL_CALLS {
            self.report.info(format!(
                "only the first {MAX_TOOL_CALLS} of {} are called",
                tools.len()
            ));
        }
        let demo = self.report.server.is_demo();
        let mut timeouts = 0;
        for tool in tools.iter().take(MAX_TOOL_CALLS) {
            if self.session.phase() == Phase::Closed || self.broken {
                break;
            }
            if timeouts >= MAX_TOOL_TIMEOUTS {
                let why = format!("skipped: {timeouts} earlier calls got no answer in time");
                self.report.check(
                    format!("tools/call {}", tool.name),
                    Outcome::Skipped(why),
                    None,
                );
                continue;
            }
            let timed_out = match DEMO_CASES.iter().find(|c| demo && c.tool == tool.name) {
                Some(case) => self.call_demo_tool(case),
                None => self.call_tool(tool),
            };
            timeouts += usize::from(timed_out);
        }
        // A server that announced a new list is listed again: a changed definition
        // (rug pull) shows as the core's `ToolChanged` against the first list's pins.
        let mut last = None;
        if self.tools_list_changed && self.session.phase() != Phase::Closed && !self.broken {
            self.report
                .info("the server sent tools/list_changed: listing again".into());
            last = self.list(
                Method::ToolsList,
                "tools",
                "tool",
                &[NAME, ("inputSchema", JsonKind::Object)],
            );
            if let Some(relisted) = &last {
                self.lint_definitions("tool", relisted);
            }
        }
        self.check_pins(&items, last.as_deref().unwrap_or(&items));
    }

    /// Calls a tool with arguments generated from its input schema. An error answer to
    /// generated arguments is not held against the server (see [`refused`]). Returns
    /// whether the call timed out.
    pub(crate) fn call_tool(&mut self, tool: &Tool) -> bool {
        let name = format!("tools/call {}", tool.name);
        let arguments = match (&tool.arguments, tool.task_required) {
            (_, true) => Err("skipped: the tool requires task augmentation".to_string()),
            (Ok(a), false) => Ok(a.clone()),
            (Err(why), false) => Err(format!("skipped: {why}")),
        };
        let arguments = match arguments {
            Ok(a) => a,
            Err(why) => {
                self.report.check(name, Outcome::Skipped(why), None);
                return false;
            }
        };
        let answer = self.call(&tool.name, &arguments);
        let timed_out = matches!(answer.reply, Reply::TimedOut);
        let progress = self.progress;
        let generated = arguments != "{}";
        let outcome = match answer.reply {
            Reply::Error { code, message } if generated && code != METHOD_NOT_FOUND => {
                refused(&arguments, code, &message)
            }
            reply => judge(reply, self.timeout_ms, |r| {
                self.lint_result(&tool.name, r);
                match ToolResult::parse(r) {
                    Err(e) => Outcome::Failed(e),
                    Ok(res) if tool.output_schema && !res.is_error && res.structured.is_none() => {
                        Outcome::Failed(
                            "the tool declares an outputSchema but returned no structuredContent"
                                .into(),
                        )
                    }
                    Ok(res) => Outcome::Ok(format!(
                        "{arguments} → {}{}",
                        res.summary,
                        progress_note(progress, self.input_rounds)
                    )),
                }
            }),
        };
        self.report.check(name, outcome, Some(answer.ms));
        timed_out
    }

    /// `tools/call` asking for progress; the timeout restarts with every progress
    /// notification, up to [`PROGRESS_BUDGET`](crate::client::PROGRESS_BUDGET) timeouts in
    /// total.
    pub(crate) fn call(&mut self, tool: &str, arguments: &str) -> Answer {
        let params = match parse_json(arguments) {
            Ok(args) => json_text(|w| {
                w.begin_object();
                w.key("name");
                w.string(tool);
                w.key("arguments");
                w.raw(args);
                w.end_object();
            }),
            Err(e) => {
                return Answer {
                    reply: Reply::Abandoned(format!("probe bug: {e}")),
                    ms: 0.0,
                };
            }
        };
        self.request(Method::ToolsCall, Some(&params), self.options(true))
    }
}

/// A tool from `tools/list`, with the arguments the probe would call it with.
pub(crate) struct Tool {
    pub(crate) name: String,
    pub(crate) description: String,
    /// Parameter names, required ones marked `*`.
    pub(crate) params: String,
    /// Generated arguments (a JSON object), or why none could be generated.
    pub(crate) arguments: Result<String, String>,
    pub(crate) output_schema: bool,
    /// `execution.taskSupport` is `required` (2025-11-25): a plain call must fail.
    pub(crate) task_required: bool,
}

impl Tool {
    pub(crate) fn parse(raw: &str) -> Option<Tool> {
        let tool = parse_json(raw).ok()?;
        let schema = tool.get("inputSchema")?;
        let required = required_names(schema);
        let params = schema
            .get("properties")
            .map(|p| {
                p.members()
                    .map(|(k, _)| mark_required(&k.to_string(), &required))
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .unwrap_or_default();
        let task = tool
            .get("execution")
            .and_then(|e| e.get("taskSupport"))
            .and_then(|t| t.as_str());
        Some(Tool {
            name: string_member(tool, "name")?,
            description: first_line(&string_member(tool, "description").unwrap_or_default()),
            params,
            arguments: generate_arguments(schema),
            output_schema: tool.get("outputSchema").is_some_and(|s| s.is_object()),
            task_required: task.is_some_and(|t| t.eq_str("required")),
        })
    }
}

/// The `type` of every content block the revisions define.
pub(crate) const CONTENT_TYPES: [&str; 5] = ["text", "image", "audio", "resource", "resource_link"];

/// The parts of a `CallToolResult` the probe looks at.
pub(crate) struct ToolResult {
    pub(crate) is_error: bool,
    pub(crate) summary: String,
    /// The first block's text, when it is a text block.
    pub(crate) text: Option<String>,
    pub(crate) structured: Option<String>,
}

impl ToolResult {
    pub(crate) fn parse(r: Json<'_>) -> Result<ToolResult, String> {
        let content = r
            .get("content")
            .filter(|c| c.kind() == JsonKind::Array)
            .ok_or_else(|| "the result has no `content` array".to_string())?;
        let blocks: Vec<Json<'_>> = content.elements().collect();
        for (i, block) in blocks.iter().enumerate() {
            match block_type(*block) {
                Some(ty) if CONTENT_TYPES.contains(&ty.as_str()) => {}
                Some(ty) => {
                    return Err(format!(
                        "content block {i} has the unknown type `{}`",
                        clip(&ty, 40)
                    ));
                }
                None => return Err(format!("content block {i} has no `type` string")),
            }
        }
        let is_error = r.get("isError").and_then(|e| e.as_bool()) == Some(true);
        let structured = r.get("structuredContent").map(|s| s.as_raw().to_owned());
        let mut parts: Vec<String> = blocks.iter().take(3).map(|b| describe_block(*b)).collect();
        if blocks.len() > 3 {
            parts.push(format!("+{} more", blocks.len() - 3));
        }
        if blocks.is_empty() {
            parts.push("no content".into());
        }
        if structured.is_some() {
            parts.push("structuredContent".into());
        }
        let summary = format!(
            "{}{}",
            if is_error { "isError: " } else { "" },
            parts.join(", ")
        );
        let text = blocks
            .first()
            .filter(|b| block_type(**b).as_deref() == Some("text"))
            .and_then(|b| string_member(*b, "text"));
        Ok(ToolResult {
            is_error,
            summary,
            text,
            structured,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::json;

    #[test]
    fn tool_results() {
        let r = ToolResult::parse(json(
            r#"{"content":[{"type":"text","text":"hi"},{"type":"image","data":"AAAA","mimeType":"image/png"}],"structuredContent":{"sum":3}}"#,
        ))
        .unwrap();
        assert_eq!(r.text.as_deref(), Some("hi"));
        assert!(!r.is_error);
        assert_eq!(
            r.summary,
            r#"text "hi", image image/png (4 bytes of base64), structuredContent"#
        );
        let e = ToolResult::parse(json(r#"{"content":[],"isError":true}"#)).unwrap();
        assert!(e.is_error && e.summary.starts_with("isError: "));
        assert!(ToolResult::parse(json(r#"{"contents":[]}"#)).is_err());
    }
}
