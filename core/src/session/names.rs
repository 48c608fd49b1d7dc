//! The names bindings show for the session's small enums, and the reverse lookups they
//! need, so that C, Python and Node spell them once, here. ([`Phase::name`],
//! [`Violation::name`](super::Violation::name) and
//! [`CloseReason::name`](super::CloseReason::name) sit with their types.)

use super::{Change, Era};
use crate::protocol::Method;

impl Era {
    /// A stable snake_case name for logs and bindings: `"opening"`, `"legacy"` or
    /// `"modern"`.
    pub const fn name(self) -> &'static str {
        match self {
            Era::Opening => "opening",
            Era::Legacy => "legacy",
            Era::Modern => "modern",
        }
    }
}

impl<'a> Change<'a> {
    /// The change a list-changed or updated notification announces:
    /// `notifications/{tools,prompts,resources}/list_changed` without a URI, or
    /// `notifications/resources/updated` with one. `None` for any other method, or when the
    /// URI is missing or superfluous.
    pub fn from_notification(method: Method, uri: Option<&'a str>) -> Option<Change<'a>> {
        Some(match (method, uri) {
            (Method::ToolsListChanged, None) => Change::ToolsListChanged,
            (Method::PromptsListChanged, None) => Change::PromptsListChanged,
            (Method::ResourcesListChanged, None) => Change::ResourcesListChanged,
            (Method::ResourcesUpdated, Some(u)) => Change::ResourceUpdated(u),
            _ => return None,
        })
    }

    /// The notification method that announces this change.
    pub fn method(self) -> Method {
        match self {
            Change::ToolsListChanged => Method::ToolsListChanged,
            Change::PromptsListChanged => Method::PromptsListChanged,
            Change::ResourcesListChanged => Method::ResourcesListChanged,
            Change::ResourceUpdated(_) => Method::ResourcesUpdated,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn change_round_trips_through_its_method() {
        for c in [
            Change::ToolsListChanged,
            Change::PromptsListChanged,
            Change::ResourcesListChanged,
            Change::ResourceUpdated("file:///a"),
        ] {
            let uri = match c {
                Change::ResourceUpdated(u) => Some(u),
                _ => None,
            };
            assert_eq!(Change::from_notification(c.method(), uri), Some(c));
        }
        assert_eq!(
            Change::from_notification(Method::ResourcesUpdated, None),
            None
        );
        assert_eq!(
            Change::from_notification(Method::ToolsListChanged, Some("x")),
            None
        );
        assert_eq!(Change::from_notification(Method::Ping, None), None);
    }

    #[test]
    fn era_names() {
        assert_eq!(Era::Opening.name(), "opening");
        assert_eq!(Era::Modern.name(), "modern");
    }
}
