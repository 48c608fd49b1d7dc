//! Every mapping between core types and C types, in one place.
//!
//! When the core gains a configuration field, an event, a violation or an error variant,
//! this is the file to extend. Core enums are `#[non_exhaustive]`, so every match here
//! has a fallback (`OTHER` / `PICOMCP_STATUS_UNKNOWN`): a newer core never breaks the
//! build, it only shows up as "other" until it is mapped.

use core::fmt;

use picomcp_core::Limits;
use picomcp_core::json::{Json, JsonErrorKind, JsonStr, JsonWriter};
use picomcp_core::jsonrpc::ParseErrorKind;
use picomcp_core::protocol::{LogLevel, METHODS, Method, ProtocolVersion, Role, Versions};
use picomcp_core::session::{
    Change, CloseReason, Config, ConfigError, Era, Event, EventId, EventKind, Phase, RequestInfo,
    RespondError, SendError, Violation,
};

use crate::boundary::{FfiResult, opt_str_arg, str_arg};
use crate::status::picomcp_status;
use crate::types::*;

// ---- methods and versions ----

/// The C number of a method: its row in the core's method table (`picomcp_method`).
pub fn method_to_c(m: Method) -> i32 {
    METHODS
        .iter()
        .position(|s| s.method == m)
        .map_or(-1, |i| i as i32)
}

/// A method from its wire name.
pub fn method_from_name(name: &str) -> FfiResult<Method> {
    Method::from_name(name).ok_or(picomcp_status::UnknownMethod)
}

/// The `picomcp_version` bit of a revision (bit i = `ProtocolVersion::ALL[i]`).
pub fn version_to_c(v: ProtocolVersion) -> u32 {
    ProtocolVersion::ALL
        .iter()
        .position(|x| *x == v)
        .map_or(0, |i| 1 << i)
}

/// One revision from its `picomcp_version` bit (exactly one bit).
pub fn version_from_c(bit: u32) -> FfiResult<ProtocolVersion> {
    ProtocolVersion::ALL
        .iter()
        .copied()
        .find(|v| version_to_c(*v) == bit)
        .ok_or(picomcp_status::InvalidArgument)
}

/// A set of revisions from a bitmask of `picomcp_version` bits.
pub fn versions_from_c(bits: u32) -> FfiResult<Versions> {
    let n = ProtocolVersion::ALL.len();
    if n < 32 && bits >> n != 0 {
        return Err(picomcp_status::InvalidArgument);
    }
    let mut list = [ProtocolVersion::LATEST_LEGACY; ProtocolVersion::ALL.len()];
    let mut k = 0;
    for (i, v) in ProtocolVersion::ALL.iter().enumerate() {
        if bits & (1 << i) != 0 {
            list[k] = *v;
            k += 1;
        }
    }
    Ok(Versions::of(&list[..k]))
}

/// The bitmask of a set of revisions.
pub fn versions_to_c(vs: Versions) -> u32 {
    vs.iter().map(version_to_c).fold(0, |a, b| a | b)
}

// ---- small enums ----

/// A core log level from a `picomcp_log_level` number.
pub fn log_level_from_c(v: u32) -> FfiResult<LogLevel> {
    // `picomcp_log_level` numbers the levels as the core does (`level as u8`).
    u8::try_from(v)
        .ok()
        .and_then(LogLevel::from_index)
        .ok_or(picomcp_status::InvalidArgument)
}

/// The `picomcp_log_level` number of a level (`NONE` for no level).
pub fn log_level_to_c(l: Option<LogLevel>) -> u32 {
    l.map_or(picomcp_log_level::None as u32, |l| l as u32)
}

/// The `picomcp_phase` number of a phase.
pub fn phase_to_c(p: Phase) -> u32 {
    (match p {
        Phase::Initializing => picomcp_phase::Initializing,
        Phase::AwaitingInitialized => picomcp_phase::AwaitingInitialized,
        Phase::Operating => picomcp_phase::Operating,
        Phase::Closed => picomcp_phase::Closed,
        #[allow(unreachable_patterns)]
        _ => picomcp_phase::Other,
    }) as u32
}

/// The `picomcp_era` number of an era.
pub fn era_to_c(e: Era) -> u32 {
    (match e {
        Era::Opening => picomcp_era::Opening,
        Era::Legacy => picomcp_era::Legacy,
        Era::Modern => picomcp_era::Modern,
        #[allow(unreachable_patterns)]
        _ => picomcp_era::Other,
    }) as u32
}

/// A core change from a `picomcp_change` number (`uri` for `RESOURCE_UPDATED`).
pub fn change_from_c(v: u32, uri: Option<&str>) -> FfiResult<Change<'_>> {
    use picomcp_change as C;
    Ok(match v {
        x if x == C::ToolsListChanged as u32 => Change::ToolsListChanged,
        x if x == C::PromptsListChanged as u32 => Change::PromptsListChanged,
        x if x == C::ResourcesListChanged as u32 => Change::ResourcesListChanged,
        x if x == C::ResourceUpdated as u32 => {
            Change::ResourceUpdated(uri.ok_or(picomcp_status::BadChange)?)
        }
        _ => return Err(picomcp_status::BadChange),
    })
}

/// The C view of a request's info.
pub fn request_info_to_c(i: RequestInfo) -> picomcp_request_info {
    picomcp_request_info {
        method: method_to_c(i.method),
        method_name: picomcp_str::new(i.method.as_str()),
        modern: i.modern,
        client_capabilities: i.client_capabilities.0,
        log_level: log_level_to_c(i.log_level),
        has_progress_token: i.has_progress_token,
        cancelled: i.cancelled,
    }
}

/// The core role of a `picomcp_role` number.
pub fn role_from_c(v: u32) -> FfiResult<Role> {
    match v {
        x if x == picomcp_role::Server as u32 => Ok(Role::Server),
        x if x == picomcp_role::Client as u32 => Ok(Role::Client),
        _ => Err(picomcp_status::BadRole),
    }
}

/// The `picomcp_role` number of a role.
pub fn role_to_c(r: Role) -> u32 {
    (match r {
        Role::Server => picomcp_role::Server,
        Role::Client => picomcp_role::Client,
    }) as u32
}

// ---- errors ----

/// The status of a configuration error.
pub fn config_error(e: ConfigError) -> picomcp_status {
    match e {
        ConfigError::CapabilitiesNotObject => picomcp_status::CapabilitiesNotObject,
        ConfigError::NoVersions => picomcp_status::NoVersions,
        ConfigError::BadLimit => picomcp_status::BadLimit,
        ConfigError::LineMismatch => picomcp_status::BadLimit,
        ConfigError::BufferTooSmall { .. } => picomcp_status::QueueTooSmall,
        ConfigError::TableTooLarge => picomcp_status::TableTooLarge,
        ConfigError::StateKey => picomcp_status::BadStateKey,
        _ => picomcp_status::Unknown,
    }
}

/// The status of a refused send command.
pub fn send_error(e: SendError) -> picomcp_status {
    match e {
        SendError::WrongPhase(_) => picomcp_status::WrongPhase,
        SendError::WrongDirection(_) => picomcp_status::WrongDirection,
        SendError::NotNegotiated(_) => picomcp_status::NotNegotiated,
        SendError::NotInVersion(_) => picomcp_status::NotInVersion,
        SendError::Reserved(_) => picomcp_status::ReservedMethod,
        SendError::TooManyRequests => picomcp_status::TooManyRequests,
        SendError::Full(_) => picomcp_status::QueueFull,
        SendError::ParamsNotObject => picomcp_status::ParamsNotObject,
        SendError::UnknownRequest => picomcp_status::UnknownRequest,
        SendError::NoProgressToken => picomcp_status::NoProgressToken,
        SendError::ProgressNotIncreasing => picomcp_status::ProgressNotIncreasing,
        SendError::ArenaFull { .. } => picomcp_status::ArenaFull,
        SendError::InvalidContent(_) => picomcp_status::InvalidContent,
        _ => picomcp_status::Unknown,
    }
}

/// The status of a refused response.
pub fn respond_error(e: RespondError) -> picomcp_status {
    match e {
        RespondError::UnknownRequest => picomcp_status::UnknownRequest,
        RespondError::Full(_) => picomcp_status::QueueFull,
        RespondError::ResultNotObject => picomcp_status::ResultNotObject,
        RespondError::ReservedCode(_) => picomcp_status::ReservedCode,
        RespondError::InputNotAllowed => picomcp_status::InputNotAllowed,
        RespondError::InvalidContent(_) => picomcp_status::InvalidContent,
        _ => picomcp_status::Unknown,
    }
}

// ---- configuration ----

/// Default values of a configuration (`picomcp_config_init`).
pub fn config_defaults(role: u32) -> picomcp_config {
    let d = if role == picomcp_role::Client as u32 {
        Config::client("", "", Json::EMPTY_OBJECT)
    } else {
        Config::server("", "", Json::EMPTY_OBJECT)
    };
    picomcp_config {
        role,
        name: picomcp_str::NONE,
        version: picomcp_str::NONE,
        capabilities: picomcp_str::new("{}"),
        instructions: picomcp_str::NONE,
        versions: versions_to_c(d.versions),
        max_line: d.limits.max_line,
        max_depth: d.limits.max_depth,
        max_id_len: d.limits.max_id_len,
        max_batch: d.limits.max_batch,
        request_timeout_ms: d.request_timeout_ms.unwrap_or(0),
        inbound_slots: 32,
        outbound_slots: 8,
        tx_size: 0,
        event_size: 0,
        arena_bytes: d.arena_bytes,
        cache_ttl_ms: d.cache_ttl_ms,
        cache_public: d.cache_public,
        probe_timeout_ms: d.probe_timeout_ms,
        batch_bytes: d.batch_bytes,
        state_key: core::ptr::null(),
        state_key_len: 0,
        state_ttl_ms: d.state_ttl_ms,
    }
}

/// A C configuration as a core one, plus the buffer sizes it implies.
pub struct Converted<'a> {
    /// The core configuration (borrowing the C strings).
    pub config: Config<'a>,
    /// Receive buffer bytes.
    pub rx: usize,
    /// Transmit queue bytes.
    pub tx: usize,
    /// Event queue bytes.
    pub events: usize,
    /// Configuration text bytes.
    pub info: usize,
    /// Request table sizes.
    pub inbound: usize,
    /// Request table sizes.
    pub outbound: usize,
}

/// Reads and checks a C configuration.
///
/// # Safety
/// Every `picomcp_str` in `c` must satisfy [`str_arg`]'s contract for `'a`, and
/// `state_key`/`state_key_len` [`in_bytes`](crate::boundary::in_bytes)'s.
pub unsafe fn config_from_c<'a>(c: &picomcp_config) -> FfiResult<Converted<'a>> {
    let role = role_from_c(c.role)?;
    // SAFETY: forwarded caller contract for each string.
    let (name, version, caps, instructions) = unsafe {
        (
            str_arg(c.name)?,
            str_arg(c.version)?,
            str_arg(c.capabilities)?,
            opt_str_arg(c.instructions)?,
        )
    };
    let caps = Json::new(caps).map_err(|_| picomcp_status::InvalidJson)?;
    let mut config = match role {
        Role::Client => Config::client(name, version, caps),
        Role::Server => Config::server(name, version, caps),
    };
    config.instructions = instructions;
    config.versions = versions_from_c(c.versions)?;
    let mut limits = Limits::DEFAULT;
    limits.max_line = c.max_line;
    limits.max_depth = c.max_depth;
    limits.max_id_len = c.max_id_len;
    limits.max_batch = c.max_batch;
    config.limits = limits;
    config.request_timeout_ms = (c.request_timeout_ms != 0).then_some(c.request_timeout_ms);
    config.arena_bytes = c.arena_bytes;
    config.cache_ttl_ms = c.cache_ttl_ms;
    config.cache_public = c.cache_public;
    config.probe_timeout_ms = c.probe_timeout_ms;
    config.batch_bytes = c.batch_bytes;
    config.state_ttl_ms = c.state_ttl_ms;
    config.state_key = if c.state_key.is_null() {
        if c.state_key_len != 0 {
            return Err(picomcp_status::NullArgument);
        }
        None
    } else {
        // SAFETY: forwarded caller contract (`state_key` points to `state_key_len` bytes
        // valid during the call; the core copies them).
        Some(unsafe { crate::boundary::in_bytes(c.state_key, c.state_key_len) }?)
    };
    // Mirror the core's checks that need no memory, so a bad configuration fails in
    // picomcp_session_storage_size already.
    if !caps.is_object() {
        return Err(picomcp_status::CapabilitiesNotObject);
    }
    if config.versions.is_empty() {
        return Err(picomcp_status::NoVersions);
    }
    if config.state_key.is_some_and(|k| k.len() < 16) {
        return Err(picomcp_status::BadStateKey);
    }
    if c.inbound_slots > u16::MAX as usize || c.outbound_slots > u16::MAX as usize {
        return Err(picomcp_status::TableTooLarge);
    }
    // Sizes: a line can be at most isize::MAX / 8 so that sums below cannot overflow.
    const MAX: usize = isize::MAX as usize / 8;
    if c.max_line == 0
        || [
            c.max_line,
            c.tx_size,
            c.event_size,
            c.arena_bytes,
            c.batch_bytes,
        ]
        .iter()
        .any(|n| *n > MAX)
    {
        return Err(picomcp_status::BadLimit);
    }
    let info = config.info_len();
    if info > MAX {
        return Err(picomcp_status::InvalidArgument);
    }
    let tx = match c.tx_size {
        0 => (2 * c.max_line + 1024).max(info + 1024),
        n => n,
    };
    let events = match c.event_size {
        0 => 2 * c.max_line + 1024,
        n => n,
    };
    Ok(Converted {
        config,
        rx: c.max_line,
        tx,
        events,
        info,
        inbound: c.inbound_slots,
        outbound: c.outbound_slots,
    })
}

// ---- events ----

/// Fills a C event from a core event: a field-by-field map of its flat form
/// ([`Event::flat`]). Escaped text (error messages, cancel reasons) is decoded into
/// `scratch`, which must be at least as long as the longest line; the description of a
/// violation or close (the core's wording) is written there too.
pub fn event_to_c(ev: Event<'_>, scratch: &mut [u8]) -> picomcp_event {
    let f = ev.flat();
    let mut e = picomcp_event::EMPTY;
    e.kind = event_kind_to_c(f.kind) as u32;
    e.id = f.id.map_or(0, EventId::to_bits);
    if let Some(m) = f.method {
        e.method = method_to_c(m);
        e.method_name = picomcp_str::new(m.as_str());
    }
    if let Some(v) = f.version {
        e.version = version_to_c(v);
        e.version_name = picomcp_str::new(v.as_str());
    }
    e.json = picomcp_str::from_opt(f.json().map(|j| j.as_raw()));
    e.code = f.code.unwrap_or(0);
    e.progress = f.progress.unwrap_or(f64::NAN);
    e.total = f.total.unwrap_or(f64::NAN);
    // Tool pins: the digests or counts as a small JSON object at the end of `scratch`
    // (the tool name, decoded, goes at its start).
    let pin = f.digests.is_some() || f.unchecked.is_some();
    let at = if pin {
        scratch.len().saturating_sub(PIN_JSON)
    } else {
        scratch.len()
    };
    let (scratch, tail) = scratch.split_at_mut(at);
    if let Some((old, new)) = f.digests {
        e.json = pin_json(tail, |w| {
            let (mut a, mut b) = ([0u8; 32], [0u8; 32]);
            w.key("old");
            w.string(old.to_hex(&mut a));
            w.key("new");
            w.string(new.to_hex(&mut b));
        });
    }
    if let Some((unpinned, unreported)) = f.unchecked {
        e.json = pin_json(tail, |w| {
            w.key("unpinned");
            w.u64(unpinned.into());
            w.key("unreported");
            w.u64(unreported.into());
        });
    }
    if let Some(t) = f.text() {
        e.text = decoded(t, scratch);
    }
    if let Some(v) = f.violation {
        let (kind, detail, code) = violation_to_c(v);
        e.violation = kind as u32;
        e.detail = detail;
        e.code = code;
        e.text = described(v, scratch);
    }
    if let Some(r) = f.close {
        let (reason, code) = close_to_c(r);
        e.close_reason = reason as u32;
        e.code = code;
        e.text = described(r, scratch);
    }
    e
}

/// Room at the end of the scratch buffer for a pin event's JSON (digests: 83 bytes).
const PIN_JSON: usize = 96;

/// `{` members `}` written by `f` into `buf`, as a `picomcp_str` (absent if it does not fit).
fn pin_json(buf: &mut [u8], f: impl Fn(&mut JsonWriter<'_>)) -> picomcp_str {
    let mut w = JsonWriter::new(buf);
    w.begin_object();
    f(&mut w);
    w.end_object();
    match w.finish() {
        Ok(n) => core::str::from_utf8(&buf[..n]).map_or(picomcp_str::NONE, picomcp_str::new),
        Err(_) => picomcp_str::NONE,
    }
}

/// The C kind of an event kind.
fn event_kind_to_c(k: EventKind) -> picomcp_event_kind {
    use picomcp_event_kind as K;
    match k {
        EventKind::Negotiated => K::Negotiated,
        EventKind::Ready => K::Ready,
        EventKind::Request => K::Request,
        EventKind::Notification => K::Notification,
        EventKind::Response => K::Response,
        EventKind::ErrorResponse => K::ErrorResponse,
        EventKind::TimedOut => K::TimedOut,
        EventKind::Cancelled => K::Cancelled,
        EventKind::Progress => K::Progress,
        EventKind::InputRequired => K::InputRequired,
        EventKind::SubscriptionAcknowledged => K::SubscriptionAcknowledged,
        EventKind::InvalidResult => K::InvalidResult,
        EventKind::SubscriptionEnded => K::SubscriptionEnded,
        EventKind::ToolChanged => K::ToolChanged,
        EventKind::PinsIncomplete => K::PinsIncomplete,
        EventKind::PeerViolation => K::PeerViolation,
        EventKind::Closed => K::Closed,
        _ => K::Other,
    }
}

fn decoded(s: JsonStr<'_>, scratch: &mut [u8]) -> picomcp_str {
    if let Some(plain) = s.as_plain() {
        return picomcp_str::new(plain);
    }
    match s.unescape_into(scratch) {
        Ok(t) => picomcp_str::new(t),
        // Cannot happen (scratch holds a whole line); the escaped text is better than nothing.
        Err(_) => picomcp_str::new(s.raw()),
    }
}

/// The core's description of `d` (its `Display`), written into `scratch` and cut at a
/// character boundary if `scratch` is shorter.
fn described(d: impl fmt::Display, scratch: &mut [u8]) -> picomcp_str {
    struct Cut<'b> {
        buf: &'b mut [u8],
        len: usize,
    }
    impl fmt::Write for Cut<'_> {
        fn write_str(&mut self, s: &str) -> fmt::Result {
            let room = self.buf.len() - self.len;
            let mut n = s.len().min(room);
            while !s.is_char_boundary(n) {
                n -= 1;
            }
            self.buf[self.len..self.len + n].copy_from_slice(&s.as_bytes()[..n]);
            self.len += n;
            if n < s.len() { Err(fmt::Error) } else { Ok(()) }
        }
    }
    let mut w = Cut {
        buf: scratch,
        len: 0,
    };
    // A cut text is still a useful description.
    let _ = fmt::write(&mut w, format_args!("{d}"));
    let len = w.len;
    match core::str::from_utf8(&w.buf[..len]) {
        Ok(t) => picomcp_str::new(t),
        Err(_) => picomcp_str::NONE,
    }
}

/// The C kind, detail and code of a violation (its method and text come from the flat
/// form and the core's wording).
fn violation_to_c(v: Violation) -> (picomcp_violation, u32, i64) {
    use picomcp_violation as V;
    match v {
        Violation::Malformed { kind, replied } => (
            V::Malformed,
            parse_error_to_c(kind) as u32,
            replied.map_or(0, |c| c.0 as i64),
        ),
        Violation::LineTooLong { limit } => (V::LineTooLong, 0, limit as i64),
        Violation::UncorrelatedError { code } => (V::UncorrelatedError, 0, code),
        other => (
            match other {
                Violation::UnknownMethod => V::UnknownMethod,
                Violation::NotNegotiated(_) => V::NotNegotiated,
                Violation::NotInitialized(_) => V::NotInitialized,
                Violation::DuplicateInitialize => V::DuplicateInitialize,
                Violation::DuplicateRequestId => V::DuplicateRequestId,
                Violation::TooManyRequests => V::TooManyRequests,
                Violation::InvalidParams(_) => V::InvalidParams,
                Violation::NotInVersion(_) => V::NotInVersion,
                Violation::UnknownResponseId => V::UnknownResponseId,
                Violation::BatchNotAllowed => V::BatchNotAllowed,
                Violation::ProgressNotIncreasing => V::ProgressNotIncreasing,
                Violation::BadEnvelope(_) => V::BadEnvelope,
                Violation::UnsupportedVersion => V::UnsupportedVersion,
                Violation::UnexpectedMessage => V::UnexpectedMessage,
                Violation::TooManySubscriptions => V::TooManySubscriptions,
                Violation::InvalidResult => V::InvalidResult,
                Violation::DuplicateResponse => V::DuplicateResponse,
                Violation::UnknownProgressToken => V::UnknownProgressToken,
                _ => V::Other,
            },
            0,
            0,
        ),
    }
}

/// The C number of a parse error kind.
pub fn parse_error_to_c(k: ParseErrorKind) -> picomcp_parse_error {
    use picomcp_parse_error as P;
    match k {
        ParseErrorKind::Json(j) => match j {
            JsonErrorKind::UnexpectedEnd => P::JsonUnexpectedEnd,
            JsonErrorKind::UnexpectedByte => P::JsonUnexpectedByte,
            JsonErrorKind::InvalidNumber => P::JsonInvalidNumber,
            JsonErrorKind::InvalidEscape => P::JsonInvalidEscape,
            JsonErrorKind::LoneSurrogate => P::JsonLoneSurrogate,
            JsonErrorKind::ControlCharacter => P::JsonControlCharacter,
            JsonErrorKind::TooDeep => P::JsonTooDeep,
            JsonErrorKind::TrailingCharacters => P::JsonTrailingCharacters,
            JsonErrorKind::Empty => P::JsonEmpty,
            _ => P::JsonOther,
        },
        ParseErrorKind::InvalidUtf8 => P::InvalidUtf8,
        ParseErrorKind::NotAnObject => P::NotAnObject,
        ParseErrorKind::BadVersion => P::BadVersion,
        ParseErrorKind::BadId => P::BadId,
        ParseErrorKind::IdTooLong => P::IdTooLong,
        ParseErrorKind::DuplicateMember => P::DuplicateMember,
        ParseErrorKind::BadMethod => P::BadMethod,
        ParseErrorKind::BadParams => P::BadParams,
        ParseErrorKind::InvalidShape => P::InvalidShape,
        ParseErrorKind::InvalidResponse => P::InvalidResponse,
        ParseErrorKind::TooDeep => P::TooDeep,
        ParseErrorKind::LineTooLong => P::LineTooLong,
        _ => P::Other,
    }
}

/// The C reason and code of a close.
pub fn close_to_c(r: CloseReason) -> (picomcp_close_reason, i64) {
    use picomcp_close_reason as C;
    match r {
        CloseReason::PeerClosed => (C::PeerClosed, 0),
        CloseReason::UnsupportedVersion => (C::UnsupportedVersion, 0),
        CloseReason::InitializeRejected { code } => (C::InitializeRejected, code),
        CloseReason::InitializeTimedOut => (C::InitializeTimedOut, 0),
        CloseReason::Local => (C::Local, 0),
        CloseReason::PeerClosedDuringProbe => (C::PeerClosedDuringProbe, 0),
        CloseReason::NoCommonVersion => (C::NoCommonVersion, 0),
        _ => (C::Other, 0),
    }
}
