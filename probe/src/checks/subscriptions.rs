//! 2026-07-28: `subscriptions/listen` for every change the server can announce, judged
//! by its acknowledgement.

use std::time::Instant;

use picomcp::json::Json;
use picomcp::protocol::Caps;

use crate::client::{Incoming, Probe};
use crate::report::Outcome;
use crate::text::{clip, elapsed_ms, json_text, parse_json};

impl Probe {
    /// 2026-07-28: opens a `subscriptions/listen` stream for every change the server can
    /// announce, waits for its acknowledgement, then cancels it.
    pub(crate) fn check_subscriptions(&mut self) {
        if !self.is_modern() {
            return;
        }
        self.report.section("subscriptions");
        let caps = self.session.peer_capabilities();
        let watched = self
            .report
            .resources
            .first()
            .filter(|_| caps.contains(Caps::RESOURCES_SUBSCRIBE))
            .cloned();
        let flags = [
            ("toolsListChanged", Caps::TOOLS_LIST_CHANGED),
            ("promptsListChanged", Caps::PROMPTS_LIST_CHANGED),
            ("resourcesListChanged", Caps::RESOURCES_LIST_CHANGED),
        ];
        let wanted: Vec<&str> = flags
            .iter()
            .filter(|(_, c)| caps.contains(*c))
            .map(|(k, _)| *k)
            .collect();
        if wanted.is_empty() && watched.is_none() {
            let why = "skipped: the server declares no listChanged or subscribe".to_string();
            return self
                .report
                .check("subscriptions/listen", Outcome::Skipped(why), None);
        }
        let filter = json_text(|w| {
            w.begin_object();
            for key in &wanted {
                w.key(key);
                w.bool(true);
            }
            if let Some(uri) = &watched {
                w.key("resourceSubscriptions");
                w.begin_array();
                w.string(uri);
                w.end_array();
            }
            w.end_object();
        });
        let start = Instant::now();
        let outcome = self.listen(&filter);
        self.report
            .check("subscriptions/listen", outcome, Some(elapsed_ms(start)));
    }

    /// Opens a listen stream with `filter` and waits for its acknowledgement.
    pub(crate) fn listen(&mut self, filter: &str) -> Outcome {
        let id = match parse_json(filter).map(|f| self.session.listen(f)) {
            Ok(Ok(id)) => id,
            Ok(Err(e)) => return Outcome::Skipped(format!("skipped: {e}")),
            Err(e) => return Outcome::Failed(format!("probe bug: {e}")),
        };
        let deadline = self.driver.now().saturating_add(self.timeout_ms);
        let outcome = loop {
            match self.next(Some(deadline)) {
                Incoming::SubscriptionAck {
                    id: got,
                    notifications,
                } if got == id => {
                    break judge_ack(filter, &notifications);
                }
                Incoming::ErrorResponse {
                    id: got,
                    code,
                    message,
                } if got == id => {
                    break Outcome::Failed(format!("error {code}: {}", clip(&message, 100)));
                }
                Incoming::Response { id: got, .. } | Incoming::SubscriptionEnded(got)
                    if got == id =>
                {
                    break Outcome::Failed("the stream ended before its acknowledgement".into());
                }
                Incoming::Wake => {
                    break Outcome::Failed(format!(
                        "no acknowledgement within {} ms",
                        self.timeout_ms
                    ));
                }
                Incoming::Ended => {
                    break Outcome::Failed(
                        "the connection closed before the acknowledgement".into(),
                    );
                }
                other => self.handle(other),
            }
        };
        let _ = self.session.cancel(id, None);
        outcome
    }
}

/// Compares a `subscriptions/listen` acknowledgement with the filter asked for: the
/// server may drop types, never add them.
pub(crate) fn judge_ack(asked: &str, acknowledged: &str) -> Outcome {
    let asked = parse_json(asked).map(filter_entries).unwrap_or_default();
    let acked = parse_json(acknowledged)
        .map(filter_entries)
        .unwrap_or_default();
    let extra: Vec<&String> = acked.iter().filter(|a| !asked.contains(a)).collect();
    if !extra.is_empty() {
        return Outcome::Failed(format!("acknowledged what was not asked for: {extra:?}"));
    }
    let dropped: Vec<&String> = asked.iter().filter(|a| !acked.contains(a)).collect();
    let dropped = if dropped.is_empty() {
        String::new()
    } else {
        format!("; dropped {dropped:?}")
    };
    Outcome::Ok(format!("acknowledged {}{dropped}", acked.join(", ")))
}

/// The entries of a subscription filter: `toolsListChanged`, `resourceSubscriptions[uri]`.
pub(crate) fn filter_entries(filter: Json<'_>) -> Vec<String> {
    let mut entries = Vec::new();
    for (key, value) in filter.members() {
        if value.as_bool() == Some(true) {
            entries.push(key.to_string());
        }
        for item in value.elements() {
            let item = item
                .as_str()
                .map_or_else(|| item.as_raw().to_owned(), |s| s.to_string());
            entries.push(format!("{key}[{item}]"));
        }
    }
    entries
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn acknowledgements() {
        let asked = r#"{"toolsListChanged":true,"resourceSubscriptions":["a://b"]}"#;
        assert!(
            matches!(judge_ack(asked, asked), Outcome::Ok(d) if d == "acknowledged toolsListChanged, resourceSubscriptions[a://b]")
        );
        assert!(
            matches!(judge_ack(asked, r#"{"toolsListChanged":true}"#), Outcome::Ok(d) if d.contains("dropped"))
        );
        assert!(matches!(
            judge_ack(asked, r#"{"promptsListChanged":true}"#),
            Outcome::Failed(_)
        ));
    }
}
