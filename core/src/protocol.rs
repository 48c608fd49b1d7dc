//! MCP vocabulary: protocol revisions, capability flags and the method table that drives
//! lifecycle rules and capability enforcement in both directions.

use core::fmt;

use crate::json::Json;

mod caps_by_revision;
pub(crate) use caps_by_revision::write_declared;
pub mod content;
mod features;
pub mod meta;

pub use features::{FEATURES, Feature, FeatureSpec, Features};

/// An MCP protocol revision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum ProtocolVersion {
    /// 2024-11-05 (legacy handshake).
    V2024_11_05,
    /// 2025-03-26 (legacy handshake; JSON-RPC batches).
    V2025_03_26,
    /// 2025-06-18 (legacy handshake; elicitation, structured tool output).
    V2025_06_18,
    /// 2025-11-25 (legacy handshake; tasks, URL elicitation).
    V2025_11_25,
    /// 2026-07-28 (modern, stateless: `server/discover`, per-request `_meta`).
    V2026_07_28,
}

impl ProtocolVersion {
    /// Every revision, oldest first.
    pub const ALL: [ProtocolVersion; 5] = [
        ProtocolVersion::V2024_11_05,
        ProtocolVersion::V2025_03_26,
        ProtocolVersion::V2025_06_18,
        ProtocolVersion::V2025_11_25,
        ProtocolVersion::V2026_07_28,
    ];

    /// The newest revision that uses the `initialize` handshake.
    pub const LATEST_LEGACY: ProtocolVersion = ProtocolVersion::V2025_11_25;

    /// The version string, e.g. `"2025-11-25"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            ProtocolVersion::V2024_11_05 => "2024-11-05",
            ProtocolVersion::V2025_03_26 => "2025-03-26",
            ProtocolVersion::V2025_06_18 => "2025-06-18",
            ProtocolVersion::V2025_11_25 => "2025-11-25",
            ProtocolVersion::V2026_07_28 => "2026-07-28",
        }
    }

    /// Parses a version string (exact match).
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|v| v.as_str() == s)
    }

    /// Parses a version string as it appears in JSON (escapes allowed).
    pub fn from_json_str(s: crate::json::JsonStr<'_>) -> Option<Self> {
        Self::ALL.iter().copied().find(|v| s.eq_str(v.as_str()))
    }

    /// True for revisions negotiated with `initialize`.
    pub const fn is_legacy(self) -> bool {
        !matches!(self, ProtocolVersion::V2026_07_28)
    }

    const fn bit(self) -> u8 {
        1 << self as u8
    }
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A set of protocol revisions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Versions(u8);

impl Versions {
    /// No revision.
    pub const NONE: Versions = Versions(0);
    /// The four revisions with the `initialize` handshake.
    pub const LEGACY: Versions = Versions(0b01111);
    /// Every revision this crate knows.
    pub const ALL: Versions = Versions(0b11111);

    /// A set of the given revisions.
    pub const fn of(list: &[ProtocolVersion]) -> Versions {
        let mut bits = 0;
        let mut i = 0;
        while i < list.len() {
            bits |= list[i].bit();
            i += 1;
        }
        Versions(bits)
    }

    /// True when `v` is in the set.
    pub const fn contains(self, v: ProtocolVersion) -> bool {
        self.0 & v.bit() != 0
    }

    /// The newest legacy revision in the set.
    pub fn newest_legacy(self) -> Option<ProtocolVersion> {
        ProtocolVersion::ALL
            .iter()
            .rev()
            .copied()
            .find(|v| v.is_legacy() && self.contains(*v))
    }

    /// The revisions in the set, oldest first.
    pub fn iter(self) -> impl DoubleEndedIterator<Item = ProtocolVersion> {
        ProtocolVersion::ALL
            .into_iter()
            .filter(move |v| self.contains(*v))
    }

    /// True when the set is empty.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }
}

/// Capability flags of either side, parsed from the capabilities JSON object. Presence of
/// an object means support; the boolean sub-flags (`listChanged`, `subscribe`) must be
/// `true`. Unknown keys are ignored. A session keeps the peer's flags masked by the
/// negotiated revision ([`Caps::in_version`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Caps(pub u32);

impl Caps {
    /// Server `tools`.
    pub const TOOLS: Caps = Caps(1 << 0);
    /// Server `tools.listChanged`.
    pub const TOOLS_LIST_CHANGED: Caps = Caps(1 << 1);
    /// Server `resources`.
    pub const RESOURCES: Caps = Caps(1 << 2);
    /// Server `resources.subscribe`.
    pub const RESOURCES_SUBSCRIBE: Caps = Caps(1 << 3);
    /// Server `resources.listChanged`.
    pub const RESOURCES_LIST_CHANGED: Caps = Caps(1 << 4);
    /// Server `prompts`.
    pub const PROMPTS: Caps = Caps(1 << 5);
    /// Server `prompts.listChanged`.
    pub const PROMPTS_LIST_CHANGED: Caps = Caps(1 << 6);
    /// Server `logging`.
    pub const LOGGING: Caps = Caps(1 << 7);
    /// Server `completions`.
    pub const COMPLETIONS: Caps = Caps(1 << 8);
    /// Client `roots`.
    pub const ROOTS: Caps = Caps(1 << 9);
    /// Client `roots.listChanged`.
    pub const ROOTS_LIST_CHANGED: Caps = Caps(1 << 10);
    /// Client `sampling`.
    pub const SAMPLING: Caps = Caps(1 << 11);
    /// Client `elicitation`.
    pub const ELICITATION: Caps = Caps(1 << 12);
    /// Client `elicitation.form` (an empty `elicitation: {}` also means form).
    pub const ELICITATION_FORM: Caps = Caps(1 << 13);
    /// Client `elicitation.url`.
    pub const ELICITATION_URL: Caps = Caps(1 << 14);
    /// `tasks` (either side).
    pub const TASKS: Caps = Caps(1 << 15);
    /// `tasks.list`.
    pub const TASKS_LIST: Caps = Caps(1 << 16);
    /// `tasks.cancel`.
    pub const TASKS_CANCEL: Caps = Caps(1 << 17);
    /// Client `sampling.tools`.
    pub const SAMPLING_TOOLS: Caps = Caps(1 << 18);
    /// Client `sampling.context`.
    pub const SAMPLING_CONTEXT: Caps = Caps(1 << 19);

    /// No capability.
    pub const NONE: Caps = Caps(0);

    /// True when every flag of `other` is set.
    pub const fn contains(self, other: Caps) -> bool {
        self.0 & other.0 == other.0
    }

    /// Union.
    pub const fn with(self, other: Caps) -> Caps {
        Caps(self.0 | other.0)
    }

    /// Reads the flags from a capabilities object (either side's keys are recognised).
    pub fn from_json(caps: Json<'_>) -> Caps {
        let mut c = Caps::NONE;
        let obj = |k: &str| caps.get(k).filter(|v| v.is_object());
        let flag = |o: Json<'_>, k: &str| o.get(k).and_then(|v| v.as_bool()) == Some(true);
        if let Some(t) = obj("tools") {
            c = c.with(Caps::TOOLS);
            if flag(t, "listChanged") {
                c = c.with(Caps::TOOLS_LIST_CHANGED);
            }
        }
        if let Some(r) = obj("resources") {
            c = c.with(Caps::RESOURCES);
            if flag(r, "subscribe") {
                c = c.with(Caps::RESOURCES_SUBSCRIBE);
            }
            if flag(r, "listChanged") {
                c = c.with(Caps::RESOURCES_LIST_CHANGED);
            }
        }
        if let Some(p) = obj("prompts") {
            c = c.with(Caps::PROMPTS);
            if flag(p, "listChanged") {
                c = c.with(Caps::PROMPTS_LIST_CHANGED);
            }
        }
        if obj("logging").is_some() {
            c = c.with(Caps::LOGGING);
        }
        if obj("completions").is_some() {
            c = c.with(Caps::COMPLETIONS);
        }
        if let Some(r) = obj("roots") {
            c = c.with(Caps::ROOTS);
            if flag(r, "listChanged") {
                c = c.with(Caps::ROOTS_LIST_CHANGED);
            }
        }
        if let Some(s) = obj("sampling") {
            c = c.with(Caps::SAMPLING);
            if s.get("tools").is_some_and(|v| v.is_object()) {
                c = c.with(Caps::SAMPLING_TOOLS);
            }
            if s.get("context").is_some_and(|v| v.is_object()) {
                c = c.with(Caps::SAMPLING_CONTEXT);
            }
        }
        if let Some(e) = obj("elicitation") {
            c = c.with(Caps::ELICITATION);
            let form = e.get("form").is_some_and(|v| v.is_object());
            let url = e.get("url").is_some_and(|v| v.is_object());
            if form || !url {
                c = c.with(Caps::ELICITATION_FORM);
            }
            if url {
                c = c.with(Caps::ELICITATION_URL);
            }
        }
        if let Some(t) = obj("tasks") {
            c = c.with(Caps::TASKS);
            if t.get("list").is_some_and(|v| v.is_object()) {
                c = c.with(Caps::TASKS_LIST);
            }
            if t.get("cancel").is_some_and(|v| v.is_object()) {
                c = c.with(Caps::TASKS_CANCEL);
            }
        }
        c
    }

    /// The capabilities object these flags stand for, as JSON text (`{"elicitation":
    /// {"form":{}},"sampling":{}}`): only what the core recognises, in [`Caps::MEMBERS`]
    /// order; an empty `elicitation: {}` read as `{"form":{}}`. What a binding shows a
    /// handler as the client's capabilities, so it sees what the capability gate checks.
    pub fn json(self) -> impl core::fmt::Display {
        CapsJson(self)
    }

    /// The shape of the capabilities object: each top-level flag, its member name, the
    /// flags inside it with theirs, and whether those inner members are `true` (else `{}`).
    pub const MEMBERS: [CapsMember; 9] = [
        (
            Caps::ROOTS,
            "roots",
            &[(Caps::ROOTS_LIST_CHANGED, "listChanged")],
            true,
        ),
        (
            Caps::SAMPLING,
            "sampling",
            &[
                (Caps::SAMPLING_TOOLS, "tools"),
                (Caps::SAMPLING_CONTEXT, "context"),
            ],
            false,
        ),
        (
            Caps::ELICITATION,
            "elicitation",
            &[
                (Caps::ELICITATION_FORM, "form"),
                (Caps::ELICITATION_URL, "url"),
            ],
            false,
        ),
        (
            Caps::TASKS,
            "tasks",
            &[(Caps::TASKS_LIST, "list"), (Caps::TASKS_CANCEL, "cancel")],
            false,
        ),
        (
            Caps::TOOLS,
            "tools",
            &[(Caps::TOOLS_LIST_CHANGED, "listChanged")],
            true,
        ),
        (
            Caps::RESOURCES,
            "resources",
            &[
                (Caps::RESOURCES_SUBSCRIBE, "subscribe"),
                (Caps::RESOURCES_LIST_CHANGED, "listChanged"),
            ],
            true,
        ),
        (
            Caps::PROMPTS,
            "prompts",
            &[(Caps::PROMPTS_LIST_CHANGED, "listChanged")],
            true,
        ),
        (Caps::LOGGING, "logging", &[], false),
        (Caps::COMPLETIONS, "completions", &[], false),
    ];
}

/// One entry of [`Caps::MEMBERS`]: a flag, its member name, the flags inside it with their
/// names, and whether the inner members are booleans (`true`) rather than objects (`{}`).
pub type CapsMember = (Caps, &'static str, &'static [(Caps, &'static str)], bool);

/// [`Caps::json`].
struct CapsJson(Caps);

impl core::fmt::Display for CapsJson {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let mut outer = "{";
        for (flag, name, inner, booleans) in Caps::MEMBERS {
            if !self.0.contains(flag) {
                continue;
            }
            write!(f, "{outer}\"{name}\":")?;
            outer = ",";
            let mut sep = "{";
            for (i, n) in inner {
                if self.0.contains(*i) {
                    write!(f, "{sep}\"{n}\":{}", if booleans { "true" } else { "{}" })?;
                    sep = ",";
                }
            }
            f.write_str(if sep == "{" { "{}" } else { "}" })?;
        }
        f.write_str(if outer == "{" { "{}" } else { "}" })
    }
}

/// Which side of the connection a session plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// The MCP client (the host's side).
    Client,
    /// The MCP server.
    Server,
}

impl Role {
    /// The lowercase name bindings show: `"server"` or `"client"`.
    pub const fn name(self) -> &'static str {
        match self {
            Role::Client => "client",
            Role::Server => "server",
        }
    }

    /// The role called `name` (`"server"` or `"client"`).
    pub fn from_name(name: &str) -> Option<Role> {
        match name {
            "client" => Some(Role::Client),
            "server" => Some(Role::Server),
            _ => None,
        }
    }

    /// The other side.
    pub const fn peer(self) -> Role {
        match self {
            Role::Client => Role::Server,
            Role::Server => Role::Client,
        }
    }
}

/// Request or notification.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MethodKind {
    /// Expects a response.
    Request,
    /// Never answered.
    Notification,
}

/// Who may send a method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// Client to server.
    ClientToServer,
    /// Server to client.
    ServerToClient,
    /// Either side.
    Both,
}

impl Direction {
    /// True when `sender` may send this method.
    pub const fn allows(self, sender: Role) -> bool {
        matches!(
            (self, sender),
            (Direction::Both, _)
                | (Direction::ClientToServer, Role::Client)
                | (Direction::ServerToClient, Role::Server)
        )
    }
}

/// What a method needs to have been declared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gate {
    /// Nothing.
    None,
    /// The server declared these capabilities.
    Server(Caps),
    /// The client declared these capabilities.
    Client(Caps),
    /// The receiver of the request declared these capabilities.
    Receiver(Caps),
}

macro_rules! methods {
    ($( $(#[$doc:meta])* $var:ident = $name:literal, $kind:ident, $dir:ident, $gate:expr, $since:ident, [$($trait:ident),*]; )*) => {
        /// Every MCP method this crate knows. Methods outside this table are unknown:
        /// unknown requests get -32601 and unknown notifications are ignored.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum Method { $( $(#[$doc])* $var, )* }

        /// The method table: one row per method (name, kind, direction, gate, first
        /// revision, and its [`MethodTraits`] in 2026-07-28).
        pub const METHODS: &[MethodSpec] = &[
            $( MethodSpec {
                method: Method::$var,
                name: $name,
                kind: MethodKind::$kind,
                direction: Direction::$dir,
                gate: $gate,
                since: ProtocolVersion::$since,
                traits: MethodTraits::NONE $(.with(MethodTraits::$trait))*,
            }, )*
        ];
    };
}

/// What a method is in the 2026-07-28 era (a column of [`METHODS`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct MethodTraits(u8);

impl MethodTraits {
    /// Nothing.
    pub const NONE: MethodTraits = MethodTraits(0);
    /// The method exists in 2026-07-28 (MODERN.md §11 lists what was removed).
    pub const MODERN: MethodTraits = MethodTraits(1);
    /// It may be answered `resultType: "input_required"` (MRTR, MODERN.md §8.2).
    pub const INPUT: MethodTraits = MethodTraits(2);
    /// Its complete result must carry `ttlMs` and `cacheScope` (MODERN.md §7.2).
    pub const CACHEABLE: MethodTraits = MethodTraits(4);

    /// Union.
    pub const fn with(self, other: MethodTraits) -> MethodTraits {
        MethodTraits(self.0 | other.0)
    }

    /// True when every trait of `other` is set.
    pub const fn contains(self, other: MethodTraits) -> bool {
        self.0 & other.0 == other.0
    }
}

/// One row of [`METHODS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MethodSpec {
    /// The method.
    pub method: Method,
    /// Its wire name.
    pub name: &'static str,
    /// Request or notification.
    pub kind: MethodKind,
    /// Who may send it.
    pub direction: Direction,
    /// The capability it needs.
    pub gate: Gate,
    /// The first revision that has it.
    pub since: ProtocolVersion,
    /// What it is in 2026-07-28.
    pub traits: MethodTraits,
}

methods! {
    /// `initialize`
    Initialize = "initialize", Request, ClientToServer, Gate::None, V2024_11_05, [];
    /// `notifications/initialized`
    Initialized = "notifications/initialized", Notification, ClientToServer, Gate::None, V2024_11_05, [];
    /// `ping`
    Ping = "ping", Request, Both, Gate::None, V2024_11_05, [];
    /// `notifications/cancelled`
    Cancelled = "notifications/cancelled", Notification, Both, Gate::None, V2024_11_05, [MODERN];
    /// `notifications/progress`
    Progress = "notifications/progress", Notification, Both, Gate::None, V2024_11_05, [MODERN];
    /// `tools/list`
    ToolsList = "tools/list", Request, ClientToServer, Gate::Server(Caps::TOOLS), V2024_11_05, [MODERN, CACHEABLE];
    /// `tools/call`
    ToolsCall = "tools/call", Request, ClientToServer, Gate::Server(Caps::TOOLS), V2024_11_05, [MODERN, INPUT];
    /// `notifications/tools/list_changed`
    ToolsListChanged = "notifications/tools/list_changed", Notification, ServerToClient, Gate::Server(Caps::TOOLS_LIST_CHANGED), V2024_11_05, [MODERN];
    /// `resources/list`
    ResourcesList = "resources/list", Request, ClientToServer, Gate::Server(Caps::RESOURCES), V2024_11_05, [MODERN, CACHEABLE];
    /// `resources/templates/list`
    ResourcesTemplatesList = "resources/templates/list", Request, ClientToServer, Gate::Server(Caps::RESOURCES), V2024_11_05, [MODERN, CACHEABLE];
    /// `resources/read`
    ResourcesRead = "resources/read", Request, ClientToServer, Gate::Server(Caps::RESOURCES), V2024_11_05, [MODERN, INPUT, CACHEABLE];
    /// `resources/subscribe`
    ResourcesSubscribe = "resources/subscribe", Request, ClientToServer, Gate::Server(Caps::RESOURCES_SUBSCRIBE), V2024_11_05, [];
    /// `resources/unsubscribe`
    ResourcesUnsubscribe = "resources/unsubscribe", Request, ClientToServer, Gate::Server(Caps::RESOURCES_SUBSCRIBE), V2024_11_05, [];
    /// `notifications/resources/updated`
    ResourcesUpdated = "notifications/resources/updated", Notification, ServerToClient, Gate::Server(Caps::RESOURCES_SUBSCRIBE), V2024_11_05, [MODERN];
    /// `notifications/resources/list_changed`
    ResourcesListChanged = "notifications/resources/list_changed", Notification, ServerToClient, Gate::Server(Caps::RESOURCES_LIST_CHANGED), V2024_11_05, [MODERN];
    /// `prompts/list`
    PromptsList = "prompts/list", Request, ClientToServer, Gate::Server(Caps::PROMPTS), V2024_11_05, [MODERN, CACHEABLE];
    /// `prompts/get`
    PromptsGet = "prompts/get", Request, ClientToServer, Gate::Server(Caps::PROMPTS), V2024_11_05, [MODERN, INPUT];
    /// `notifications/prompts/list_changed`
    PromptsListChanged = "notifications/prompts/list_changed", Notification, ServerToClient, Gate::Server(Caps::PROMPTS_LIST_CHANGED), V2024_11_05, [MODERN];
    /// `logging/setLevel` (answered by the core)
    LoggingSetLevel = "logging/setLevel", Request, ClientToServer, Gate::Server(Caps::LOGGING), V2024_11_05, [];
    /// `notifications/message`
    LogMessage = "notifications/message", Notification, ServerToClient, Gate::Server(Caps::LOGGING), V2024_11_05, [MODERN];
    /// `completion/complete` (gated by `completions` from 2025-03-26)
    CompletionComplete = "completion/complete", Request, ClientToServer, Gate::Server(Caps::COMPLETIONS), V2024_11_05, [MODERN];
    /// `roots/list`
    RootsList = "roots/list", Request, ServerToClient, Gate::Client(Caps::ROOTS), V2024_11_05, [];
    /// `notifications/roots/list_changed`
    RootsListChanged = "notifications/roots/list_changed", Notification, ClientToServer, Gate::Client(Caps::ROOTS_LIST_CHANGED), V2024_11_05, [];
    /// `sampling/createMessage`
    SamplingCreateMessage = "sampling/createMessage", Request, ServerToClient, Gate::Client(Caps::SAMPLING), V2024_11_05, [];
    /// `elicitation/create`
    ElicitationCreate = "elicitation/create", Request, ServerToClient, Gate::Client(Caps::ELICITATION), V2025_06_18, [];
    /// `notifications/elicitation/complete`
    ElicitationComplete = "notifications/elicitation/complete", Notification, ServerToClient, Gate::Client(Caps::ELICITATION_URL), V2025_11_25, [];
    /// `tasks/get`
    TasksGet = "tasks/get", Request, Both, Gate::Receiver(Caps::TASKS), V2025_11_25, [];
    /// `tasks/result`
    TasksResult = "tasks/result", Request, Both, Gate::Receiver(Caps::TASKS), V2025_11_25, [];
    /// `tasks/list`
    TasksList = "tasks/list", Request, Both, Gate::Receiver(Caps::TASKS_LIST), V2025_11_25, [];
    /// `tasks/cancel`
    TasksCancel = "tasks/cancel", Request, Both, Gate::Receiver(Caps::TASKS_CANCEL), V2025_11_25, [];
    /// `notifications/tasks/status`
    TasksStatus = "notifications/tasks/status", Notification, Both, Gate::Receiver(Caps::TASKS), V2025_11_25, [];
    /// `server/discover` (2026-07-28)
    ServerDiscover = "server/discover", Request, ClientToServer, Gate::None, V2026_07_28, [MODERN, CACHEABLE];
    /// `subscriptions/listen` (2026-07-28; answered by the core)
    SubscriptionsListen = "subscriptions/listen", Request, ClientToServer, Gate::None, V2026_07_28, [MODERN];
    /// `notifications/subscriptions/acknowledged` (2026-07-28; sent by the core)
    SubscriptionsAcknowledged = "notifications/subscriptions/acknowledged", Notification, ServerToClient, Gate::None, V2026_07_28, [MODERN];
}

impl Method {
    /// The table row of this method.
    pub fn spec(self) -> &'static MethodSpec {
        // The table lists every variant in declaration order.
        &METHODS[self as usize]
    }

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        self.spec().name
    }

    /// Looks up a wire name (already unescaped).
    pub fn from_name(name: &str) -> Option<Method> {
        METHODS.iter().find(|m| m.name == name).map(|m| m.method)
    }

    /// Looks up a possibly escaped wire name.
    pub fn from_json_str(name: crate::json::JsonStr<'_>) -> Option<Method> {
        match name.as_plain() {
            Some(n) => Self::from_name(n),
            None => METHODS
                .iter()
                .find(|m| name.eq_str(m.name))
                .map(|m| m.method),
        }
    }

    /// True when this method exists in revision `v`. 2026-07-28 removed `initialize`,
    /// `ping`, `logging/setLevel`, `resources/(un)subscribe`, the roots/sampling/
    /// elicitation requests (now embedded input requests) and core tasks.
    pub fn exists_in(self, v: ProtocolVersion) -> bool {
        let s = self.spec();
        if v.is_legacy() {
            s.since <= v && s.since.is_legacy()
        } else {
            s.traits.contains(MethodTraits::MODERN)
        }
    }

    /// True for the three methods that may answer `input_required` (2026-07-28 MRTR).
    pub fn allows_input_required(self) -> bool {
        self.spec().traits.contains(MethodTraits::INPUT)
    }

    /// True for requests whose complete result must carry `ttlMs` and `cacheScope`
    /// (2026-07-28).
    pub fn is_cacheable(self) -> bool {
        self.spec().traits.contains(MethodTraits::CACHEABLE)
    }

    /// The capability gate for revision `v` (`completion/complete` has none before the
    /// `completions` capability, [`Feature::CompletionsCapability`]).
    pub fn gate_in(self, v: ProtocolVersion) -> Gate {
        match self.spec().gate {
            Gate::Server(c)
                if c.contains(Caps::COMPLETIONS) && !v.has(Feature::CompletionsCapability) =>
            {
                Gate::None
            }
            g => g,
        }
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The eight syslog severities of `logging/setLevel` and `notifications/message`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LogLevel {
    /// debug
    Debug,
    /// info
    Info,
    /// notice
    Notice,
    /// warning
    Warning,
    /// error
    Error,
    /// critical
    Critical,
    /// alert
    Alert,
    /// emergency
    Emergency,
}

impl LogLevel {
    const NAMES: [&'static str; 8] = [
        "debug",
        "info",
        "notice",
        "warning",
        "error",
        "critical",
        "alert",
        "emergency",
    ];
    const ALL: [LogLevel; 8] = [
        LogLevel::Debug,
        LogLevel::Info,
        LogLevel::Notice,
        LogLevel::Warning,
        LogLevel::Error,
        LogLevel::Critical,
        LogLevel::Alert,
        LogLevel::Emergency,
    ];
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        Self::NAMES[self as usize]
    }
    /// Parses a wire name.
    pub fn parse(s: &str) -> Option<LogLevel> {
        Self::NAMES
            .iter()
            .position(|n| *n == s)
            .map(|i| Self::ALL[i])
    }

    /// The level with this index (`level as u8`).
    pub fn from_index(i: u8) -> Option<LogLevel> {
        Self::ALL.get(i as usize).copied()
    }
}

#[cfg(test)]
mod caps_json_tests {
    extern crate std;
    use super::*;
    use std::string::ToString;

    #[test]
    fn caps_as_json() {
        let caps = |t: &str| Caps::from_json(Json::new(t).unwrap()).json().to_string();
        assert_eq!(caps("{}"), "{}");
        // An empty `elicitation` is form; unknown members and extensions are not kept.
        assert_eq!(
            caps(r#"{"elicitation":{},"sampling":{"tools":{}},"experimental":{"x":{}}}"#),
            r#"{"sampling":{"tools":{}},"elicitation":{"form":{}}}"#
        );
        assert_eq!(
            caps(r#"{"roots":{"listChanged":true},"elicitation":{"url":{}}}"#),
            r#"{"roots":{"listChanged":true},"elicitation":{"url":{}}}"#
        );
    }
}
