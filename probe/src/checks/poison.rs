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

    /// Tool pins. `first` is the first list, `last` the list after `list_changed` (or
    /// `first` again). Without `--pin`, a change between them (the core's `ToolChanged`)
    /// is a warning. With `--pin FILE`: a new FILE saves `first`'s pins; then `last` is
    /// checked against the saved pins (FILE's, or `first`'s just saved), one failed check
    /// per changed tool, naming the fields that changed (the core's `ToolChanged`
    /// events, and the probe's own comparison for pins the session's table could not
    /// hold).
    pub(crate) fn check_pins(&mut self, first: &[String], last: &[String]) {
        let Some(path) = self.pin_path.clone() else {
            if self.changed.is_empty() {
                return;
            }
            let first = PinFile::of_tools(first);
            let last = PinFile::of_tools(last);
            for (name, old, new) in self.changed.clone() {
                let what = match (first.tools.get(&name), last.tools.get(&name)) {
                    (Some(a), Some(b)) => field_diff(&a.definition, &b.definition).join("; "),
                    _ => String::new(),
                };
                self.report.warnings.push(format!(
                    "tool `{name}` changed during the session (pin {old} → {new}): {what} [tool-changed]"
                ));
            }
            return;
        };
        self.report.section("pins");
        let now = PinFile::of_tools(last);
        let saved = match self.pins.clone() {
            Some(saved) => saved,
            None => {
                let baseline = PinFile::of_tools(first);
                let outcome = match baseline.save(&path) {
                    Ok(()) => Outcome::Ok(format!(
                        "saved {} to {}",
                        count(baseline.tools.len(), "tool"),
                        path.display()
                    )),
                    Err(e) => Outcome::Failed(e),
                };
                self.report.check("pin tools", outcome, None);
                if first == last {
                    return;
                }
                baseline
            }
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
            // Who saw it: the session (its `ToolChanged` event), or only the probe's own
            // comparison (a pin the session's table had no room for).
            let by = if self.changed.iter().any(|c| &c.0 == name) {
                "the session's ToolChanged"
            } else {
                "the probe's comparison"
            };
            self.report.check(
                format!("tool `{name}` unchanged"),
                Outcome::Failed(format!(
                    "changed since {} (pin {} → {}, {by}): {what}",
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
