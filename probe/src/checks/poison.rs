//! The poisoning lint and `--pin` on what the server lists: tool and prompt definitions
//! (always), tool results (`--lint-results`). The rules are in [`crate::lint`], the pin
//! file in [`crate::pins`].

use picomcp::json::Json;

use crate::client::Probe;
use crate::lint::{definition_texts, lint, result_texts};
use crate::pins::{PinFile, field_diff};
use crate::report::Outcome;
use crate::text::count;

impl Probe {
    /// Lints every text of the listed definitions; `noun` is `tool` or `prompt`.
    pub(crate) fn lint_definitions(&mut self, noun: &str, items: &[String]) {
        for raw in items {
            let Ok(def) = Json::new(raw) else { continue };
            let name = def
                .get("name")
                .and_then(|n| n.as_str())
                .map(|n| n.to_string())
                .unwrap_or_default();
            for (path, text, description) in definition_texts(def) {
                for f in lint(&text, description) {
                    self.report
                        .warnings
                        .push(format!("{noun} `{name}` {path}: {}", f.describe()));
                }
            }
        }
    }

    /// `--lint-results`: lints the texts of one tool result.
    pub(crate) fn lint_result(&mut self, tool: &str, result: Json<'_>) {
        if !self.lint_results {
            return;
        }
        for (path, text, _) in result_texts(result) {
            for f in lint(&text, false) {
                self.report
                    .warnings
                    .push(format!("result of tool `{tool}` {path}: {}", f.describe()));
            }
        }
    }

    /// `--pin FILE`: saves the listed tools' pins when the file is new, else checks them:
    /// one failed check per changed tool (the core's `ToolChanged` events, and the
    /// probe's own comparison for pins the session's table could not hold).
    pub(crate) fn check_pins(&mut self, items: &[String]) {
        let Some(path) = self.pin_path.clone() else {
            return;
        };
        self.report.section("pins");
        let now = PinFile::of_tools(items);
        let Some(saved) = self.pins.clone() else {
            let outcome = match now.save(&path) {
                Ok(()) => Outcome::Ok(format!(
                    "saved {} to {}",
                    count(now.tools.len(), "tool"),
                    path.display()
                )),
                Err(e) => Outcome::Failed(e),
            };
            self.report.check("pin tools", outcome, None);
            return;
        };
        let mut changed: Vec<String> = self.changed.iter().map(|c| c.0.clone()).collect();
        for (name, pin) in &now.tools {
            let differs = saved
                .tools
                .get(name)
                .is_some_and(|s| s.digest != pin.digest);
            if differs && !changed.contains(name) {
                changed.push(name.clone());
            }
        }
        for name in &changed {
            let (Some(old), Some(new)) = (saved.tools.get(name), now.tools.get(name)) else {
                continue;
            };
            let what = field_diff(&old.definition, &new.definition).join("; ");
            self.report.check(
                format!("tool `{name}` unchanged"),
                Outcome::Failed(format!(
                    "changed since {} (pin {} → {}): {what}",
                    path.display(),
                    old.digest,
                    new.digest
                )),
                None,
            );
        }
        let new_tools: Vec<&String> = now
            .tools
            .keys()
            .filter(|n| !saved.tools.contains_key(*n))
            .collect();
        let gone: Vec<&String> = saved
            .tools
            .keys()
            .filter(|n| !now.tools.contains_key(*n))
            .collect();
        if !new_tools.is_empty() {
            self.report
                .info(format!("new since the pins (not pinned): {new_tools:?}"));
        }
        if !gone.is_empty() {
            self.report.info(format!("pinned but not listed: {gone:?}"));
        }
        if changed.is_empty() {
            let same = now.tools.len() - new_tools.len();
            self.report.check(
                "pinned tools unchanged",
                Outcome::Ok(format!("{} match {}", count(same, "tool"), path.display())),
                None,
            );
        }
    }
}
