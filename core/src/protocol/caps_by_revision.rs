//! Which capability flags each protocol revision defines, the peer's capabilities seen
//! through the negotiated revision, and our own capabilities written for a revision.
//!
//! A peer may declare members its revision does not have: a 2025-03-26 client sending
//! `elicitation: {}`, a 2024-11-05 server sending `completions: {}`, a 2026-07-28 client
//! sending `tasks` or `roots.listChanged`. The session keeps the peer's capabilities
//! masked by the negotiated revision ([`Caps::in_version`]), so that what every binding
//! shows a host (`peer_capabilities`, a request's client capabilities) and what the
//! capability gate checks name only what the revision has.
//!
//! The other direction is "strict on output": every capabilities object the session
//! writes (a server's `initialize` result and `server/discover` result, a client's
//! `initialize` request and 2026-07-28 request envelope) goes through
//! [`write_declared`], which keeps only the members the revision of that message
//! defines for the writer's side, so a server configured with `tasks` does not
//! declare it to a 2025-06-18 client.
//!
//! Sources: the `ClientCapabilities` and `ServerCapabilities` of each revision's
//! `schema.json` (checked in under `tests/schema/<revision>/`; the test
//! `core/tests/features.rs` reads them and checks [`Caps::defined_in`] against
//! every member of [`Caps::MEMBERS`]) and `MODERN.md` §6.1 (2026-07-28: `roots` is a bare
//! `{}`, `tasks` gone).

use super::{Caps, CapsMember, Feature, ProtocolVersion, Role};
use crate::json::{Json, JsonWriter};

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
    #[inline(never)] // one copy for every caller (firmware flash)
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

    /// The flags a server's capabilities object can hold (`ServerCapabilities`).
    pub const SERVER_SIDE: Caps = Caps(
        Caps::TOOLS.0
            | Caps::TOOLS_LIST_CHANGED.0
            | Caps::RESOURCES.0
            | Caps::RESOURCES_SUBSCRIBE.0
            | Caps::RESOURCES_LIST_CHANGED.0
            | Caps::PROMPTS.0
            | Caps::PROMPTS_LIST_CHANGED.0
            | Caps::LOGGING.0
            | Caps::COMPLETIONS.0
            | Caps::TASKS.0
            | Caps::TASKS_LIST.0
            | Caps::TASKS_CANCEL.0,
    );

    /// The flags a client's capabilities object can hold (`ClientCapabilities`).
    pub const CLIENT_SIDE: Caps = Caps(
        (Caps::ALL.0 & !Caps::SERVER_SIDE.0)
            | Caps::TASKS.0
            | Caps::TASKS_LIST.0
            | Caps::TASKS_CANCEL.0,
    );

    /// These flags as side `side` declares them in revision `v`: the members of a
    /// configured object that the session writes for `v` (`write_declared`), read back.
    /// The session gates with our own capabilities this way once the revision is
    /// negotiated.
    pub fn declared(self, side: Role, v: ProtocolVersion) -> Caps {
        let on_side = match side {
            Role::Server => Caps::SERVER_SIDE,
            Role::Client => Caps::CLIENT_SIDE,
        };
        Caps(self.in_version(v).0 & on_side.0)
    }
}

/// The rows of [`Caps::MEMBERS`] a server's capabilities object can hold (`tasks` is
/// both sides'), and a client's: what [`write_declared`] looks up for each side. (A
/// server-only build has no client rows, so the firmware carries only these.)
const SERVER_MEMBERS: [CapsMember; 6] = {
    let m = Caps::MEMBERS;
    [m[4], m[5], m[6], m[7], m[8], m[3]]
};
#[cfg(feature = "client")]
const CLIENT_MEMBERS: [CapsMember; 4] = {
    let m = Caps::MEMBERS;
    [m[0], m[1], m[2], m[3]]
};

/// `tasks.requests` by side (2025-11-25): the request kinds a side can take as tasks, each
/// with its one member.
/// (A server-only build has no client rows.)
const TASK_REQUESTS: &[(Role, &str, &str)] = &[
    (Role::Server, "tools", "call"),
    #[cfg(feature = "client")]
    (Role::Client, "elicitation", "create"),
    #[cfg(feature = "client")]
    (Role::Client, "sampling", "createMessage"),
];

/// Writes `caps`, our configured capabilities object, as side `side` declares it in a
/// message of revision `v`: only the members that revision's `ServerCapabilities` /
/// `ClientCapabilities` defines.
///
/// - A member of [`Caps::MEMBERS`] is written when its flag is defined in `v` for `side`
///   ([`Caps::declared`]) and its value is an object; of its own members only those
///   listed for it and defined in `v`, values as configured (a 2025-06-18 `elicitation`
///   and a 2026-07-28 `roots` come out as `{}`). One without listed members (`logging`,
///   `completions`) is an open object and is copied as it is.
/// - `tasks.requests` keeps the request kinds of `side` (`tools.call` for a server,
///   `elicitation.create` and `sampling.createMessage` for a client).
/// - `experimental` is copied as it is (every revision has it); `extensions` too, in
///   2026-07-28 (the only revision that has it).
/// - Anything else is left out: a capability of our own goes under `experimental`.
///
/// Members come out in [`Caps::MEMBERS`] order, then `experimental` and `extensions`;
/// each is looked up by name (a repeated key: the one [`Json::get`] finds). The result
/// never is longer than `caps`, so the room reserved for the configured text suffices.
pub(crate) fn write_declared(
    w: &mut JsonWriter<'_>,
    caps: Json<'_>,
    side: Role,
    v: ProtocolVersion,
) {
    let defined = Caps::ALL.declared(side, v);
    let rows: &[CapsMember] = match side {
        Role::Server => &SERVER_MEMBERS,
        #[cfg(feature = "client")]
        Role::Client => &CLIENT_MEMBERS,
        #[cfg(not(feature = "client"))]
        Role::Client => &[],
    };
    w.begin_object();
    for &(flag, name, inner, _) in rows {
        let Some(val) = caps
            .get(name)
            .filter(|m| m.is_object() && defined.contains(flag))
        else {
            continue;
        };
        w.key(name);
        if inner.is_empty() {
            w.raw(val);
            continue;
        }
        w.begin_object();
        for &(f, n) in inner.iter() {
            if let Some(m) = val.get(n).filter(|_| defined.contains(f)) {
                w.key(n);
                w.raw(m);
            }
        }
        let requests = (flag == Caps::TASKS).then(|| val.get("requests")).flatten();
        if let Some(r) = requests.filter(|r| r.is_object()) {
            w.key("requests");
            write_task_requests(w, r, side);
        }
        w.end_object();
    }
    for (name, present) in [("experimental", true), ("extensions", !v.is_legacy())] {
        if let Some(val) = caps.get(name).filter(|_| present) {
            w.key(name);
            w.raw(val);
        }
    }
    w.end_object();
}

/// `tasks.requests`: the kinds of `side`, each with its one member.
fn write_task_requests(w: &mut JsonWriter<'_>, requests: Json<'_>, side: Role) {
    w.begin_object();
    for &(s, kind, member) in TASK_REQUESTS {
        let Some(k) = requests.get(kind).filter(|k| s == side && k.is_object()) else {
            continue;
        };
        w.key(kind);
        w.begin_object();
        if let Some(m) = k.get(member) {
            w.key(member);
            w.raw(m);
        }
        w.end_object();
    }
    w.end_object();
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

    /// Every member any revision defines for either side, a wrong-side `roots`, values
    /// the filter must keep as they are, and members no revision has.
    const EVERYTHING: &str = r#"{"experimental":{"x":{"deep":[1]}},"extensions":{"io.example/e":{}},
        "tools":{"listChanged":true,"other":1},"resources":{"subscribe":true,"listChanged":false},
        "prompts":{"listChanged":true},"logging":{"open":true},"completions":{},
        "roots":{"listChanged":true},"sampling":{"tools":{},"context":{}},
        "elicitation":{"form":{},"url":{}},
        "tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{},"x":{}},
            "elicitation":{"create":{}},"sampling":{"createMessage":{}},"other":{}}},
        "custom":{}}"#;

    fn declared(caps: &str, side: Role, v: ProtocolVersion) -> std::string::String {
        let mut buf = [0u8; 1024];
        let mut w = JsonWriter::new(&mut buf);
        write_declared(&mut w, Json::new(caps).unwrap(), side, v);
        let n = w.finish().unwrap();
        std::string::String::from_utf8(buf[..n].to_vec()).unwrap()
    }

    /// `declared` as a JSON value (member order is not part of the contract).
    fn value(text: &str) -> serde_json::Value {
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn server_declares_by_revision() {
        use ProtocolVersion::*;
        use serde_json::json;
        let server = |v| value(&declared(EVERYTHING, Role::Server, v));
        let mut want = json!({"experimental": {"x": {"deep": [1]}}, "tools": {"listChanged": true},
            "resources": {"subscribe": true, "listChanged": false},
            "prompts": {"listChanged": true}, "logging": {"open": true}});
        assert_eq!(server(V2024_11_05), want);
        want["completions"] = json!({});
        assert_eq!(server(V2025_03_26), want);
        assert_eq!(server(V2025_06_18), want);
        let mut tasks = want.clone();
        tasks["tasks"] = json!({"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}});
        assert_eq!(server(V2025_11_25), tasks);
        want["extensions"] = json!({"io.example/e": {}});
        assert_eq!(server(V2026_07_28), want);
    }

    #[test]
    fn client_declares_by_revision() {
        use ProtocolVersion::*;
        use serde_json::json;
        let client = |v| value(&declared(EVERYTHING, Role::Client, v));
        let mut want = json!({"experimental": {"x": {"deep": [1]}},
            "roots": {"listChanged": true}, "sampling": {}});
        assert_eq!(client(V2024_11_05), want);
        assert_eq!(client(V2025_03_26), want);
        want["elicitation"] = json!({});
        assert_eq!(client(V2025_06_18), want);
        want["sampling"] = json!({"tools": {}, "context": {}});
        want["elicitation"] = json!({"form": {}, "url": {}});
        let mut tasks = want.clone();
        tasks["tasks"] = json!({"list": {}, "cancel": {},
            "requests": {"elicitation": {"create": {}}, "sampling": {"createMessage": {}}}});
        assert_eq!(client(V2025_11_25), tasks);
        want["roots"] = json!({});
        want["extensions"] = json!({"io.example/e": {}});
        assert_eq!(client(V2026_07_28), want);
    }

    /// What is written, read back as the peer reads it (masked by the revision), is what
    /// our gate uses: the two never disagree.
    #[test]
    fn written_reads_back_as_declared() {
        let all = Caps::from_json(Json::new(EVERYTHING).unwrap());
        for side in [Role::Server, Role::Client] {
            for v in ProtocolVersion::ALL {
                let text = declared(EVERYTHING, side, v);
                let read = Caps::from_json(Json::new(&text).unwrap()).in_version(v);
                assert_eq!(read, all.declared(side, v), "{side:?} {v}: {text}");
            }
        }
        assert_eq!(Caps::SERVER_SIDE.with(Caps::CLIENT_SIDE), Caps::ALL);
        // The rows each side looks up are the members of its side, all of them.
        for (rows, side) in [
            (&SERVER_MEMBERS[..], Caps::SERVER_SIDE),
            (&CLIENT_MEMBERS[..], Caps::CLIENT_SIDE),
        ] {
            let flags = rows.iter().fold(Caps::NONE, |c, m| c.with(m.0));
            let tops = Caps::MEMBERS.iter().filter(|m| side.contains(m.0));
            assert_eq!(flags, tops.fold(Caps::NONE, |c, m| c.with(m.0)));
        }
    }

    /// Members that are not objects are no declaration; an empty configuration stays empty.
    #[test]
    fn odd_values() {
        let v = ProtocolVersion::V2025_11_25;
        assert_eq!(declared("{}", Role::Server, v), "{}");
        assert_eq!(
            declared(
                r#"{"tools":true,"tasks":{"requests":[]},"logging":null}"#,
                Role::Server,
                v
            ),
            r#"{"tasks":{}}"#
        );
    }
}
