//! Paginated lists (`tools/list`, `resources/list`, ...): every page, with the members
//! each item must have.

use picomcp::json::JsonKind;
use picomcp::protocol::Method;

use super::{MAX_PAGES, cache_problem, judge, kind_name};
use crate::client::Probe;
use crate::report::Outcome;
use crate::text::{count, json_text, string_member};

impl Probe {
    /// Fetches every page of a list (`tools/list`, ...), up to [`MAX_PAGES`], and records
    /// the check. Each item must be an object with the `required` members, of the kinds
    /// given. Returns the raw items, or `None` when the list failed or was skipped.
    pub(crate) fn list(
        &mut self,
        method: Method,
        key: &str,
        noun: &str,
        required: &[(&str, JsonKind)],
    ) -> Option<Vec<String>> {
        let mut items = Vec::new();
        let mut cursor: Option<String> = None;
        let (mut pages, mut ms) = (0, 0.0);
        let outcome = loop {
            let params = cursor.as_deref().map(|c| {
                json_text(|w| {
                    w.begin_object();
                    w.key("cursor");
                    w.string(c);
                    w.end_object();
                })
            });
            let answer = self.request(method, params.as_deref(), self.options(false));
            pages += 1;
            ms += answer.ms;
            let mut next = None;
            let modern = self.is_modern();
            let outcome = judge(answer.reply, self.timeout_ms, |r| {
                let Some(list) = r.get(key).filter(|l| l.kind() == JsonKind::Array) else {
                    return Outcome::Failed(format!("the result has no `{key}` array"));
                };
                if let Some(problem) = cache_problem(r).filter(|_| modern) {
                    return Outcome::Failed(problem);
                }
                for (i, item) in list.elements().enumerate() {
                    let n = items.len() + i;
                    if !item.is_object() {
                        return Outcome::Failed(format!("item {n} of `{key}` is not an object"));
                    }
                    for (m, kind) in required {
                        match item.get(m) {
                            None => {
                                return Outcome::Failed(format!(
                                    "item {n} of `{key}` has no `{m}`"
                                ));
                            }
                            Some(v) if v.kind() != *kind => {
                                return Outcome::Failed(format!(
                                    "`{m}` of item {n} of `{key}` is not {}",
                                    kind_name(*kind)
                                ));
                            }
                            Some(_) => {}
                        }
                    }
                }
                items.extend(list.elements().map(|e| e.as_raw().to_owned()));
                next = string_member(r, "nextCursor");
                Outcome::Ok(String::new())
            });
            match (outcome, next) {
                (Outcome::Ok(_), Some(c)) if pages < MAX_PAGES => cursor = Some(c),
                (Outcome::Ok(_), more) => {
                    let pages = if pages > 1 {
                        format!(" in {pages} pages")
                    } else {
                        String::new()
                    };
                    let stopped = if more.is_some() {
                        " (stopped: more pages follow)"
                    } else {
                        ""
                    };
                    break Outcome::Ok(format!("{}{pages}{stopped}", count(items.len(), noun)));
                }
                (other, _) => break other,
            }
        };
        let ok = matches!(outcome, Outcome::Ok(_));
        self.report.check(method.as_str(), outcome, Some(ms));
        ok.then_some(items)
    }
}
