//! Resources: `resources/list` and `resources/read` of each, then
//! `resources/templates/list` and a read of each template with its variables filled in.

use picomcp::json::{Json, JsonKind};
use picomcp::protocol::Method;

use super::{MAX_ITEMS, METHOD_NOT_FOUND, NAME, cache_problem, judge};
use crate::client::{Probe, Reply};
use crate::generate::expand_template;
use crate::report::Outcome;
use crate::text::{clip, count, json_text, parse_json, string_member};

impl Probe {
    /// Lists resources and templates and reads each (at most [`MAX_ITEMS`] of each).
    pub(crate) fn check_resources(&mut self) {
        self.report.section("resources");
        if let Some(items) = self.list(
            Method::ResourcesList,
            "resources",
            "resource",
            &[("uri", JsonKind::String), NAME],
        ) {
            let uris: Vec<String> = items
                .iter()
                .filter_map(|r| parse_json(r).ok().and_then(|r| string_member(r, "uri")))
                .collect();
            for raw in &items {
                self.report.info(describe_resource(raw, "uri"));
            }
            if uris.len() > MAX_ITEMS {
                self.report.info(format!(
                    "only the first {MAX_ITEMS} of {} are read",
                    uris.len()
                ));
            }
            for uri in uris.iter().take(MAX_ITEMS) {
                self.read_resource(uri, false);
            }
            self.report.resources = uris;
        }
        if let Some(items) = self.list(
            Method::ResourcesTemplatesList,
            "resourceTemplates",
            "template",
            &[("uriTemplate", JsonKind::String), NAME],
        ) {
            for raw in &items {
                self.report.info(describe_resource(raw, "uriTemplate"));
            }
            let templates: Vec<String> = items
                .iter()
                .filter_map(|t| {
                    parse_json(t)
                        .ok()
                        .and_then(|t| string_member(t, "uriTemplate"))
                })
                .collect();
            if templates.len() > MAX_ITEMS {
                self.report.info(format!(
                    "only the first {MAX_ITEMS} of {} are read",
                    templates.len()
                ));
            }
            for t in templates.iter().take(MAX_ITEMS) {
                self.read_template(t);
            }
        }
    }

    /// `resources/read` of a template with every variable set to "1": an error answer
    /// is not held against the server (the made-up value may not exist), except -32601.
    pub(crate) fn read_template(&mut self, template: &str) {
        self.read_resource(&expand_template(template, "1"), true);
    }

    /// `resources/read`; `generated`: the URI was made up by the probe.
    pub(crate) fn read_resource(&mut self, uri: &str, generated: bool) {
        let params = json_text(|w| {
            w.begin_object();
            w.key("uri");
            w.string(uri);
            w.end_object();
        });
        let answer = self.request(Method::ResourcesRead, Some(&params), self.options(false));
        let modern = self.is_modern();
        let outcome = match answer.reply {
            Reply::Error { code, message } if generated && code != METHOD_NOT_FOUND => {
                Outcome::Skipped(format!(
                    "the server refused the generated URI: error {code}: {}",
                    clip(&message, 80)
                ))
            }
            reply => judge(reply, self.timeout_ms, |r| match cache_problem(r) {
                Some(problem) if modern => Outcome::Failed(problem),
                _ => summarize_contents(r),
            }),
        };
        self.report
            .check(format!("resources/read {uri}"), outcome, Some(answer.ms));
    }
}

/// Judges a `resources/read` result: a `contents` array of text or blob items.
pub(crate) fn summarize_contents(r: Json<'_>) -> Outcome {
    let Some(contents) = r.get("contents").filter(|c| c.kind() == JsonKind::Array) else {
        return Outcome::Failed("the result has no `contents` array".into());
    };
    let mut parts = Vec::new();
    for item in contents.elements() {
        let mime = string_member(item, "mimeType")
            .map(|m| format!("{m}, "))
            .unwrap_or_default();
        let part = match (
            item.get("text").and_then(|t| t.as_str()),
            item.get("blob").and_then(|b| b.as_str()),
        ) {
            (Some(text), None) => format!("{mime}{} bytes of text", text.decoded_len()),
            (None, Some(blob)) => format!("{mime}{} bytes of base64", blob.raw().len()),
            _ => return Outcome::Failed("a content item has neither `text` nor `blob`".into()),
        };
        if item.get("uri").is_none() {
            return Outcome::Failed("a content item has no `uri`".into());
        }
        parts.push(part);
    }
    match parts.len() {
        0 => Outcome::Ok("no contents".into()),
        1 => Outcome::Ok(parts.remove(0)),
        n => Outcome::Ok(format!("{}: {}", count(n, "item"), parts.join("; "))),
    }
}

/// `uri  name  mimeType`: one listed resource or template (`uri_key` says which).
fn describe_resource(raw: &str, uri_key: &str) -> String {
    let Ok(r) = parse_json(raw) else {
        return raw.to_string();
    };
    let uri = string_member(r, uri_key).unwrap_or_default();
    let name = string_member(r, "name").unwrap_or_default();
    let mime = string_member(r, "mimeType")
        .map(|m| format!("  {m}"))
        .unwrap_or_default();
    format!("{uri}  {name}{mime}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::json;

    #[test]
    fn read_results() {
        let ok = json(r#"{"contents":[{"uri":"a://b","mimeType":"text/plain","text":"h\u00e9"}]}"#);
        assert!(
            matches!(summarize_contents(ok), Outcome::Ok(d) if d == "text/plain, 3 bytes of text")
        );
        for bad in [
            r#"{}"#,
            r#"{"contents":[{"uri":"a://b"}]}"#,
            r#"{"contents":[{"text":"x"}]}"#,
        ] {
            assert!(
                matches!(summarize_contents(json(bad)), Outcome::Failed(_)),
                "{bad}"
            );
        }
    }
}
