//! `ping`: one round trip.

use picomcp::protocol::Method;

use super::judge;
use crate::client::Probe;
use crate::report::Outcome;

impl Probe {
    /// `ping`: the result must be an object.
    pub(crate) fn check_ping(&mut self) {
        let answer = self.request(Method::Ping, None, self.options(false));
        let outcome = judge(answer.reply, self.timeout_ms, |r| {
            if r.is_object() {
                Outcome::Ok("round trip".into())
            } else {
                Outcome::Failed("result is not an object".into())
            }
        });
        self.report
            .section("ping")
            .check("ping", outcome, Some(answer.ms));
    }
}
