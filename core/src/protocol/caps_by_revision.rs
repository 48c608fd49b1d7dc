//! Which capability flags each protocol revision defines, and the peer's capabilities seen
//! through the negotiated revision.
//!
//! A peer may declare members its revision does not have: a 2025-03-26 client sending
//! `elicitation: {}`, a 2024-11-05 server sending `completions: {}`, a 2026-07-28 client
//! sending `tasks` or `roots.listChanged`. The session keeps the peer's capabilities
//! masked by the negotiated revision ([`Caps::in_version`]), so that what every binding
//! shows a host (`peer_capabilities`, a request's client capabilities) and what the
//! capability gate checks name only what the revision has.
//!
//! Sources: the `ClientCapabilities` and `ServerCapabilities` of each revision's
//! `schema.json` (checked in under `tests/schema/<revision>/`; the test
//! `core/tests/features.rs` reads them and checks [`Caps::defined_in`] against
//! every member of [`Caps::MEMBERS`]) and `MODERN.md` §6.1 (2026-07-28: `roots` is a bare
//! `{}`, `tasks` gone).

use super::{Caps, Feature, ProtocolVersion};

impl Caps {
    /// Every flag this crate knows (the members of [`Caps::MEMBERS`] and their inner ones).
    pub const ALL: Caps = Caps((1 << 20) - 1);

    /// These flags without those of `other`.
    pub const fn without(self, other: Caps) -> Caps {
        Caps(self.0 & !other.0)
    }

    /// The flags revision `v` defines in its capabilities objects (client and server).
    ///
    /// What depends on the revision, each tied to the [`Feature`] row that says so where
    /// one exists:
    /// - `completions`: from 2025-03-26 ([`Feature::CompletionsCapability`]);
    /// - `elicitation`: from 2025-06-18 ([`Feature::Elicitation`]); its `form` and `url`
    ///   members from 2025-11-25 ([`Feature::ElicitationModes`]), so a 2025-06-18
    ///   `elicitation` is a bare `{}`;
    /// - `sampling.tools` and `sampling.context`: from 2025-11-25
    ///   ([`Feature::SamplingTools`]; the schema adds both in that revision);
    /// - `tasks` and its members: 2025-11-25 only ([`Feature::Tasks`]);
    /// - `roots.listChanged`: the legacy revisions (2026-07-28 has a bare `roots: {}`).
    pub fn defined_in(v: ProtocolVersion) -> Caps {
        let f = v.features();
        let depends = [
            (Caps::COMPLETIONS, f.has(Feature::CompletionsCapability)),
            (Caps::ELICITATION, f.has(Feature::Elicitation)),
            (
                Caps::ELICITATION_FORM.with(Caps::ELICITATION_URL),
                f.has(Feature::ElicitationModes),
            ),
            (
                Caps::SAMPLING_TOOLS.with(Caps::SAMPLING_CONTEXT),
                f.has(Feature::SamplingTools),
            ),
            (
                Caps::TASKS.with(Caps::TASKS_LIST).with(Caps::TASKS_CANCEL),
                f.has(Feature::Tasks),
            ),
            (Caps::ROOTS_LIST_CHANGED, v.is_legacy()),
        ];
        depends
            .into_iter()
            .filter(|(_, present)| !present)
            .fold(Caps::ALL, |c, (flags, _)| c.without(flags))
    }

    /// These flags as revision `v` reads them: only those it defines
    /// ([`Caps::defined_in`]). The session stores the peer's capabilities this way.
    pub fn in_version(self, v: ProtocolVersion) -> Caps {
        Caps(self.0 & Caps::defined_in(v).0)
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use crate::json::Json;
    use std::string::ToString;

    fn view(caps: &str, v: ProtocolVersion) -> std::string::String {
        Caps::from_json(Json::new(caps).unwrap())
            .in_version(v)
            .json()
            .to_string()
    }

    #[test]
    fn members_cover_all_flags() {
        let listed = Caps::MEMBERS
            .iter()
            .flat_map(|(flag, _, inner, _)| {
                core::iter::once(*flag).chain(inner.iter().map(|i| i.0))
            })
            .fold(Caps::NONE, Caps::with);
        assert_eq!(listed, Caps::ALL);
    }

    #[test]
    fn client_members_by_revision() {
        use ProtocolVersion::*;
        let all = r#"{"elicitation":{"url":{}},"sampling":{"tools":{},"context":{}},
            "roots":{"listChanged":true},"tasks":{"list":{},"cancel":{}}}"#;
        assert_eq!(
            view(all, V2024_11_05),
            r#"{"roots":{"listChanged":true},"sampling":{}}"#
        );
        assert_eq!(
            view(all, V2025_03_26),
            r#"{"roots":{"listChanged":true},"sampling":{}}"#
        );
        assert_eq!(
            view(all, V2025_06_18),
            r#"{"roots":{"listChanged":true},"sampling":{},"elicitation":{}}"#
        );
        assert_eq!(
            view(all, V2025_11_25),
            r#"{"roots":{"listChanged":true},"sampling":{"tools":{},"context":{}},"elicitation":{"url":{}},"tasks":{"list":{},"cancel":{}}}"#
        );
        assert_eq!(
            view(all, V2026_07_28),
            r#"{"roots":{},"sampling":{"tools":{},"context":{}},"elicitation":{"url":{}}}"#
        );
    }

    #[test]
    fn server_completions_from_2025_03_26() {
        let caps = r#"{"completions":{},"tools":{"listChanged":true},"tasks":{}}"#;
        assert_eq!(
            view(caps, ProtocolVersion::V2024_11_05),
            r#"{"tools":{"listChanged":true}}"#
        );
        assert_eq!(
            view(caps, ProtocolVersion::V2025_03_26),
            r#"{"tools":{"listChanged":true},"completions":{}}"#
        );
    }
}
