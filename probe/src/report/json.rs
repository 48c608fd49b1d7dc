//! The JSON report (`--json`), read by the test runners.

use picomcp::json::JsonWriter;

use super::{Mark, Report, Totals};
use crate::text::{json_text, parse_json};

impl Report {
    /// The report as one JSON object (what `--json` prints).
    pub(crate) fn to_json(&self, totals: &Totals) -> String {
        json_text(|w| {
            w.begin_object();
            strings(w, "command", &self.command);
            w.key("server");
            self.server_json(w);
            w.key("checks");
            w.begin_array();
            for (section, l) in self.lines().filter(|(_, l)| l.mark != Mark::Info) {
                w.begin_object();
                w.key("section");
                w.string(section);
                w.key("name");
                w.string(&l.name);
                w.key("status");
                w.string(match l.mark {
                    Mark::Ok => "ok",
                    Mark::Failed => "failed",
                    _ => "skipped",
                });
                w.key("detail");
                w.string(&l.detail);
                if let Some(ms) = l.ms {
                    w.key("ms");
                    w.f64((ms * 1000.0).round() / 1000.0);
                }
                w.end_object();
            }
            w.end_array();
            // The first MAX_KEPT of each; `summary` counts them all.
            strings(w, "traffic", &self.traffic.kept);
            strings(w, "violations", &self.violations.kept);
            strings(w, "warnings", &self.warnings.kept);
            w.key("closed");
            match &self.closed {
                Some(c) => w.string(c),
                None => w.null(),
            }
            strings(w, "stderr", &self.stderr);
            w.key("summary");
            w.begin_object();
            for (key, n) in [
                ("traffic", self.traffic.len()),
                ("checks", totals.checks),
                ("ok", totals.ok),
                ("failed", totals.failed),
                ("skipped", totals.skipped),
                ("violations", totals.violations),
                ("warnings", totals.warnings),
            ] {
                w.key(key);
                w.u64(n as u64);
            }
            w.key("passed");
            w.bool(totals.passed());
            w.end_object();
            w.end_object();
        })
    }

    /// The `server` member: what the handshake told, and what the server lists.
    fn server_json(&self, w: &mut JsonWriter<'_>) {
        let s = &self.server;
        let opt = |w: &mut JsonWriter<'_>, key: &str, v: Option<&str>| {
            w.key(key);
            match v {
                Some(v) => w.string(v),
                None => w.null(),
            }
        };
        w.begin_object();
        let known = !s.name.is_empty();
        opt(w, "name", known.then_some(s.name.as_str()));
        opt(w, "version", known.then_some(s.version.as_str()));
        opt(w, "title", s.title.as_deref());
        opt(w, "protocol", known.then_some(s.protocol.as_str()));
        w.key("capabilities");
        match parse_json(&s.capabilities) {
            Ok(c) if known => w.raw(c),
            _ => w.null(),
        }
        opt(w, "instructions", s.instructions.as_deref());
        strings(w, "tools", &self.tools);
        strings(w, "resources", &self.resources);
        strings(w, "prompts", &self.prompts);
        w.end_object();
    }
}

/// `"key":["a","b"]`.
fn strings(w: &mut JsonWriter<'_>, key: &str, list: &[String]) {
    w.key(key);
    w.begin_array();
    for s in list {
        w.string(s);
    }
    w.end_array();
}
