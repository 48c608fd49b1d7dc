//! The text report.

use super::{Line, Mark, Report, Totals};
use crate::describe::summarize_capabilities;
use crate::text::{clip, count, first_line};

/// Server traffic lines shown in the text report.
pub(crate) const MAX_TRAFFIC: usize = 40;

impl Report {
    pub(crate) fn to_text(&self, totals: &Totals) -> String {
        let mut out = String::new();
        let mut line = |s: String| {
            out.push_str(&s);
            out.push('\n');
        };
        line(format!(
            "picomcp-probe {}: {}",
            env!("CARGO_PKG_VERSION"),
            self.command.join(" ")
        ));
        let s = &self.server;
        if !s.name.is_empty() {
            let title = s.title.as_ref().map(|t| format!("({t})"));
            let parts: Vec<&str> = [
                Some(s.name.as_str()),
                Some(s.version.as_str()),
                title.as_deref(),
            ]
            .into_iter()
            .flatten()
            .filter(|p| !p.is_empty())
            .collect();
            line(format!("server        {}", parts.join(" ")));
            line(format!("protocol      {}", s.protocol));
            line(format!(
                "capabilities  {}",
                summarize_capabilities(&s.capabilities)
            ));
            if let Some(i) = &s.instructions {
                let more = i.lines().count().saturating_sub(1);
                let more = if more > 0 {
                    format!("  (+{more} lines)")
                } else {
                    String::new()
                };
                line(format!("instructions  {}{more}", clip(&first_line(i), 70)));
            }
        }
        for section in &self.sections {
            let width = section.name_width();
            line(String::new());
            line(section.title.to_string());
            for l in &section.lines {
                line(format_line(l, width));
            }
        }
        if let Some(why) = &self.closed {
            line(String::new());
            line(format!("connection ended early: {why}"));
        }
        if !self.traffic.is_empty() {
            line(String::new());
            line(format!("server traffic ({})", self.traffic.len()));
            for t in self.traffic.kept.iter().take(MAX_TRAFFIC) {
                line(format!("  {t}"));
            }
            if self.traffic.len() > MAX_TRAFFIC {
                line(format!("  … {} more", self.traffic.len() - MAX_TRAFFIC));
            }
        }
        if !self.violations.is_empty() {
            line(String::new());
            line(format!("violations ({})", self.violations.len()));
            for v in &self.violations.kept {
                line(format!("  ✗ the server {v}"));
            }
            if self.violations.dropped() > 0 {
                line(format!("  … {} more", self.violations.dropped()));
            }
        }
        if !self.warnings.is_empty() {
            line(String::new());
            let strict = if self.strict_lint {
                ", --strict-lint: fatal"
            } else {
                ""
            };
            line(format!("lint warnings ({}{strict})", self.warnings.len()));
            for w in &self.warnings.kept {
                line(format!("  ! {w}"));
            }
            if self.warnings.dropped() > 0 {
                line(format!("  … {} more", self.warnings.dropped()));
            }
        }
        if !self.stderr.is_empty() {
            line(String::new());
            line(format!("server stderr (last {} lines)", self.stderr.len()));
            for l in &self.stderr {
                line(format!("  | {l}"));
            }
        }
        line(String::new());
        let skipped = if totals.skipped > 0 {
            format!(", {} skipped", totals.skipped)
        } else {
            String::new()
        };
        let warnings = if totals.warnings > 0 {
            format!(", {}", count(totals.warnings, "lint warning"))
        } else {
            String::new()
        };
        line(format!(
            "probe: {}, {} ok, {} failed, {}{skipped}{warnings}",
            count(totals.checks, "check"),
            totals.ok,
            totals.failed,
            count(totals.violations, "violation")
        ));
        out
    }
}

/// One line of the text report: mark, name padded to `width`, time, detail.
fn format_line(l: &Line, width: usize) -> String {
    let mark = match l.mark {
        Mark::Ok => "✓",
        Mark::Failed => "✗",
        Mark::Skipped => "–",
        Mark::Info => return format!("      {}", l.name).trim_end().to_string(),
    };
    let ms = l.ms.map(format_ms).unwrap_or_default();
    format!("  {mark} {:<width$} {ms:>9}  {}", l.name, l.detail)
        .trim_end()
        .to_string()
}

/// `1.23 ms`, `12.3 ms`, `1.23 s`.
fn format_ms(ms: f64) -> String {
    if ms < 10.0 {
        format!("{ms:.2} ms")
    } else if ms < 1000.0 {
        format!("{ms:.1} ms")
    } else {
        format!("{:.2} s", ms / 1000.0)
    }
}
