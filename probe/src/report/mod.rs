//! The report: sections of checks, the server's traffic and violations, printed at the
//! end as text ([`text`]) or JSON ([`json`]).

mod json;
mod text;

use crate::checks::handshake::ServerInfo;

/// The widest check name that still aligns the columns of the text report.
pub(crate) const NAME_WIDTH: usize = 64;

/// Traffic lines and violations kept for the report (all are counted): a server that
/// floods the probe must not grow its memory or its report without bound.
pub(crate) const MAX_KEPT: usize = 200;

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mark {
    Ok,
    Failed,
    Skipped,
    /// Not a check: something the server offers.
    Info,
}

/// The result of one check.
pub(crate) enum Outcome {
    Ok(String),
    Failed(String),
    Skipped(String),
}

/// One line of a section: a check with its outcome and time, or an info line.
pub(crate) struct Line {
    pub(crate) mark: Mark,
    pub(crate) name: String,
    pub(crate) detail: String,
    pub(crate) ms: Option<f64>,
}

/// Checks under one title (`tools`, `resources`, ...).
pub(crate) struct Section {
    pub(crate) title: &'static str,
    pub(crate) lines: Vec<Line>,
}

impl Section {
    /// The width of the name column: the longest check name, up to [`NAME_WIDTH`].
    pub(crate) fn name_width(&self) -> usize {
        let checks = self.lines.iter().filter(|l| l.mark != Mark::Info);
        checks
            .map(|l| l.name.chars().count())
            .max()
            .unwrap_or(0)
            .min(NAME_WIDTH)
    }
}

/// Everything the probe found, printed at the end as text or JSON.
#[derive(Default)]
pub(crate) struct Report {
    pub(crate) command: Vec<String>,
    pub(crate) server: ServerInfo,
    pub(crate) sections: Vec<Section>,
    /// Server notifications and requests, in order.
    pub(crate) traffic: Capped,
    pub(crate) violations: Capped,
    /// Poisoning-lint warnings (`lint`), each citing the text.
    pub(crate) warnings: Capped,
    /// `--strict-lint`: warnings fail the run.
    pub(crate) strict_lint: bool,
    /// Why the connection ended early, if it did.
    pub(crate) closed: Option<String>,
    pub(crate) tools: Vec<String>,
    pub(crate) resources: Vec<String>,
    pub(crate) prompts: Vec<String>,
    /// The tail of the server's stderr (kept only when the probe failed).
    pub(crate) stderr: Vec<String>,
}

/// A list that keeps its first [`MAX_KEPT`] entries and counts all of them.
#[derive(Default)]
pub(crate) struct Capped {
    pub(crate) kept: Vec<String>,
    pub(crate) total: usize,
}

impl Capped {
    pub(crate) fn push(&mut self, entry: String) {
        self.total += 1;
        if self.kept.len() < MAX_KEPT {
            self.kept.push(entry);
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.total
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// Entries counted but not kept.
    pub(crate) fn dropped(&self) -> usize {
        self.total - self.kept.len()
    }
}

/// The counts of the summary line; [`Totals::passed`] decides the exit status.
pub(crate) struct Totals {
    pub(crate) checks: usize,
    pub(crate) ok: usize,
    pub(crate) failed: usize,
    pub(crate) skipped: usize,
    pub(crate) violations: usize,
    pub(crate) warnings: usize,
    /// `--strict-lint`.
    pub(crate) strict_lint: bool,
}

impl Totals {
    pub(crate) fn passed(&self) -> bool {
        self.failed == 0 && self.violations == 0 && (!self.strict_lint || self.warnings == 0)
    }
}

impl Report {
    /// Starts a section (or continues the last one if it has this title).
    pub(crate) fn section(&mut self, title: &'static str) -> &mut Self {
        if self.sections.last().is_none_or(|s| s.title != title) {
            self.sections.push(Section {
                title,
                lines: Vec::new(),
            });
        }
        self
    }

    pub(crate) fn push(&mut self, line: Line) {
        if self.sections.is_empty() {
            self.section("checks");
        }
        if let Some(s) = self.sections.last_mut() {
            s.lines.push(line);
        }
    }

    pub(crate) fn check(&mut self, name: impl Into<String>, outcome: Outcome, ms: Option<f64>) {
        let (mark, detail) = match outcome {
            Outcome::Ok(d) => (Mark::Ok, d),
            Outcome::Failed(d) => (Mark::Failed, d),
            Outcome::Skipped(d) => (Mark::Skipped, d),
        };
        let ms = ms.filter(|_| mark != Mark::Skipped);
        self.push(Line {
            mark,
            name: name.into(),
            detail,
            ms,
        });
    }

    pub(crate) fn info(&mut self, text: String) {
        self.push(Line {
            mark: Mark::Info,
            name: text,
            detail: String::new(),
            ms: None,
        });
    }

    pub(crate) fn lines(&self) -> impl Iterator<Item = (&'static str, &Line)> {
        self.sections
            .iter()
            .flat_map(|s| s.lines.iter().map(move |l| (s.title, l)))
    }

    pub(crate) fn totals(&self) -> Totals {
        let count = |m: Mark| self.lines().filter(|(_, l)| l.mark == m).count();
        let (ok, failed, skipped) = (count(Mark::Ok), count(Mark::Failed), count(Mark::Skipped));
        Totals {
            checks: ok + failed,
            ok,
            failed,
            skipped,
            violations: self.violations.len(),
            warnings: self.warnings.len(),
            strict_lint: self.strict_lint,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::json;

    #[test]
    fn report_totals_and_json() {
        let mut report = Report::default();
        report
            .section("a")
            .check("one", Outcome::Ok("fine".into()), Some(1.0));
        report
            .section("a")
            .check("two", Outcome::Skipped("skipped".into()), None);
        report.info("listed".into());
        report
            .section("b")
            .check("three", Outcome::Failed("bad".into()), Some(2.0));
        report.violations.push("sent garbage".into());
        let totals = report.totals();
        assert_eq!(
            (
                totals.checks,
                totals.ok,
                totals.failed,
                totals.skipped,
                totals.violations
            ),
            (2, 1, 1, 1, 1)
        );
        assert!(!totals.passed());
        let text = report.to_text(&totals);
        assert!(
            text.ends_with("probe: 2 checks, 1 ok, 1 failed, 1 violation, 1 skipped\n"),
            "{text}"
        );
        let out = report.to_json(&totals);
        let out = json(&out);
        assert_eq!(out.get("checks").unwrap().elements().count(), 3);
        assert_eq!(
            out.get("summary")
                .and_then(|s| s.get("passed"))
                .and_then(|p| p.as_bool()),
            Some(false)
        );
    }
}
