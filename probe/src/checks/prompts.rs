//! Prompts: `prompts/list`, then `prompts/get` of each with its required arguments set.

use picomcp::json::{Json, JsonKind};
use picomcp::protocol::Method;

use super::{MAX_ITEMS, METHOD_NOT_FOUND, NAME, judge, refused};
use crate::client::{Probe, Reply};
use crate::describe::describe_block;
use crate::generate::mark_required;
use crate::report::Outcome;
use crate::text::{clip, count, first_line, json_text, paren, parse_json, string_member};

impl Probe {
    /// Lists the prompts and fetches each (at most [`MAX_ITEMS`]).
    pub(crate) fn check_prompts(&mut self) {
        self.report.section("prompts");
        let Some(items) = self.list(Method::PromptsList, "prompts", "prompt", &[NAME]) else {
            return;
        };
        self.lint_definitions("prompt", &items);
        let prompts: Vec<Prompt> = items.iter().filter_map(|raw| Prompt::parse(raw)).collect();
        for p in &prompts {
            self.report.info(format!(
                "{}  {}{}",
                p.name,
                clip(&p.description, 60),
                paren(&p.params)
            ));
            self.report.prompts.push(p.name.clone());
        }
        if prompts.len() > MAX_ITEMS {
            self.report.info(format!(
                "only the first {MAX_ITEMS} of {} are fetched",
                prompts.len()
            ));
        }
        for p in prompts.iter().take(MAX_ITEMS) {
            self.get_prompt(p);
        }
    }

    /// `prompts/get` with every required argument set to "hello".
    pub(crate) fn get_prompt(&mut self, prompt: &Prompt) {
        let params = json_text(|w| {
            w.begin_object();
            w.key("name");
            w.string(&prompt.name);
            if !prompt.required.is_empty() {
                w.key("arguments");
                w.begin_object();
                for arg in &prompt.required {
                    w.key(arg);
                    w.string("hello");
                }
                w.end_object();
            }
            w.end_object();
        });
        let answer = self.request(Method::PromptsGet, Some(&params), self.options(false));
        let generated = !prompt.required.is_empty();
        let outcome = match answer.reply {
            Reply::Error { code, message } if generated && code != METHOD_NOT_FOUND => {
                refused("(all \"hello\")", code, &message)
            }
            reply => judge(reply, self.timeout_ms, summarize_messages),
        };
        self.report.check(
            format!("prompts/get {}", prompt.name),
            outcome,
            Some(answer.ms),
        );
    }
}

/// A prompt from `prompts/list`.
pub(crate) struct Prompt {
    pub(crate) name: String,
    pub(crate) description: String,
    pub(crate) params: String,
    pub(crate) required: Vec<String>,
}

impl Prompt {
    pub(crate) fn parse(raw: &str) -> Option<Prompt> {
        let prompt = parse_json(raw).ok()?;
        let mut all = Vec::new();
        let mut required = Vec::new();
        for arg in prompt
            .get("arguments")
            .map(|a| a.elements())
            .into_iter()
            .flatten()
        {
            let Some(name) = string_member(arg, "name") else {
                continue;
            };
            if arg.get("required").and_then(|r| r.as_bool()) == Some(true) {
                required.push(name.clone());
            }
            all.push(name);
        }
        Some(Prompt {
            name: string_member(prompt, "name")?,
            description: first_line(&string_member(prompt, "description").unwrap_or_default()),
            params: all
                .iter()
                .map(|a| mark_required(a, &required))
                .collect::<Vec<_>>()
                .join(", "),
            required,
        })
    }
}

/// Judges a `prompts/get` result: a `messages` array of `{role, content}`.
pub(crate) fn summarize_messages(r: Json<'_>) -> Outcome {
    let Some(messages) = r.get("messages").filter(|m| m.kind() == JsonKind::Array) else {
        return Outcome::Failed("the result has no `messages` array".into());
    };
    let all: Vec<Json<'_>> = messages.elements().collect();
    if let Some(i) = all
        .iter()
        .position(|m| m.get("role").is_none() || m.get("content").is_none())
    {
        return Outcome::Failed(format!("message {i} lacks `role` or `content`"));
    }
    let first = all.first().map(|m| {
        let role = string_member(*m, "role").unwrap_or_default();
        let content = m.get("content").map(describe_block).unwrap_or_default();
        format!(", first: {role} {content}")
    });
    Outcome::Ok(format!(
        "{}{}",
        count(all.len(), "message"),
        first.unwrap_or_default()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::json;

    #[test]
    fn get_results() {
        let messages =
            json(r#"{"messages":[{"role":"user","content":{"type":"text","text":"x"}}]}"#);
        assert!(
            matches!(summarize_messages(messages), Outcome::Ok(d) if d == "1 message, first: user text \"x\"")
        );
        assert!(matches!(
            summarize_messages(json(r#"{"messages":[{"role":"user"}]}"#)),
            Outcome::Failed(_)
        ));
    }
}
