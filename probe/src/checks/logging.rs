//! Logging: `logging/setLevel` before 2026-07-28; in 2026-07-28 each request asks for
//! log messages itself (see [`Probe::with_log_level`](crate::client::Probe::with_log_level)).

use picomcp::protocol::{Caps, Method};

use super::judge;
use crate::client::Probe;
use crate::report::Outcome;
use crate::text::json_text;

impl Probe {
    /// `logging/setLevel` to `info` (legacy); in 2026-07-28 only notes how logging is asked for.
    pub(crate) fn check_logging(&mut self) {
        if self.is_modern() {
            self.report.section("logging");
            if self.session.peer_capabilities().contains(Caps::LOGGING) {
                let note = "2026-07-28 has no logging/setLevel: each request asks for level info";
                self.report.info(note.into());
            } else {
                let skipped = Outcome::Skipped("skipped: not declared".into());
                self.report.check("_meta logLevel", skipped, None);
            }
            return;
        }
        let params = json_text(|w| {
            w.begin_object();
            w.key("level");
            w.string("info");
            w.end_object();
        });
        let answer = self.request(Method::LoggingSetLevel, Some(&params), self.options(false));
        let outcome = judge(answer.reply, self.timeout_ms, |_| {
            Outcome::Ok("level info".into())
        });
        self.report
            .section("logging")
            .check("logging/setLevel", outcome, Some(answer.ms));
    }
}
