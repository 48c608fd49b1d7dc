//! Status codes: what every `picomcp_*` function returns, and their descriptions.

use core::ffi::c_char;

use crate::boundary::{boundary, out_bytes};

/// The result of every `picomcp_*` function: `PICOMCP_STATUS_OK` (0) or a negative code.
///
/// Codes are grouped by tens (arguments and memory, configuration, commands, JSON) and
/// never renumbered; new codes are only appended. `picomcp_status_describe` writes a
/// sentence for any code.
#[repr(i32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum picomcp_status {
    /// Success.
    Ok = 0,
    /// A required pointer argument was NULL (or a `picomcp_str` had a NULL `ptr` and a
    /// non-zero `len`).
    NullArgument = -1,
    /// A panic inside picomcp was caught (a bug: please report it). A session it happened
    /// in is poisoned and answers `PICOMCP_STATUS_POISONED` from then on.
    Panic = -2,
    /// An argument is out of range (an unknown enum value or flag, a size too large).
    InvalidArgument = -3,
    /// Text that must be UTF-8 is not.
    InvalidUtf8 = -4,
    /// Text that must be JSON is not (or is nested deeper than 256 levels).
    InvalidJson = -5,
    /// An output buffer is too small; the size needed was stored where the function's
    /// documentation says, and nothing was consumed.
    BufferTooSmall = -6,
    /// The pointer is not a live session: never initialised, already deinitialised, or
    /// misaligned. (A freed `picomcp_session_new` session cannot be detected: that is
    /// use after free.)
    InvalidSession = -7,
    /// An earlier call on this session panicked; the session is unusable. Deinitialise
    /// or free it.
    Poisoned = -8,
    /// The memory given to `picomcp_session_init` is not aligned to the alignment that
    /// `picomcp_session_storage_size` reported.
    MemoryMisaligned = -9,
    /// The memory given to `picomcp_session_init` is smaller than
    /// `picomcp_session_storage_size` reported.
    MemoryTooSmall = -10,
    /// The wrong release function: `picomcp_session_free` on a session placed with
    /// `picomcp_session_init`, or `picomcp_session_deinit` on one from `picomcp_session_new`.
    WrongRelease = -11,
    /// An allocation failed (`picomcp_session_new` only).
    OutOfMemory = -12,
    /// A function that takes the session was called from inside a
    /// `picomcp_session_respond_with` callback (only `picomcp_writer_*` calls are allowed
    /// there).
    Reentrant = -13,

    /// Configuration: `capabilities` is not a JSON object.
    CapabilitiesNotObject = -20,
    /// Configuration: `versions` selects no protocol revision.
    NoVersions = -21,
    /// Configuration: a limit is out of range (`max_line` 0, `max_depth` 0 or above 256,
    /// `max_id_len` below 8 or above 128).
    BadLimit = -22,
    /// Configuration: more than 65535 request slots.
    TableTooLarge = -23,
    /// Configuration: `tx_size` or `event_size` is below what the limits need (leave them
    /// 0 for a size that always works).
    QueueTooSmall = -24,
    /// Configuration: not a `picomcp_role` value.
    BadRole = -25,

    /// The lifecycle does not allow this now (before the handshake, or closed).
    WrongPhase = -30,
    /// Our role may not send this method, or it is a notification sent as a request (or
    /// the reverse).
    WrongDirection = -31,
    /// The negotiated capabilities do not allow this method.
    NotNegotiated = -32,
    /// The method does not exist in the negotiated protocol revision.
    NotInVersion = -33,
    /// The session sends this method itself (`initialize`, `notifications/initialized`,
    /// `notifications/cancelled`, `notifications/progress`): use the dedicated function.
    ReservedMethod = -34,
    /// The outbound request table is full.
    TooManyRequests = -35,
    /// The transmit queue is full: call `picomcp_session_poll_transmit` until it is empty,
    /// then retry.
    QueueFull = -36,
    /// `params` is not a JSON object.
    ParamsNotObject = -37,
    /// The request handle names no open request: already answered, cancelled by us,
    /// finished, or stale.
    UnknownRequest = -38,
    /// The request did not ask for progress (no progress token).
    NoProgressToken = -39,
    /// Progress must be finite and increase with every notification (a finite total too).
    ProgressNotIncreasing = -40,
    /// A result must be a JSON object.
    ResultNotObject = -41,
    /// A method name picomcp does not know.
    UnknownMethod = -42,
    /// The error code is in the range -32020..=-32099 the MCP specification reserves; use
    /// the dedicated functions for the codes it defines.
    ReservedCode = -43,
    /// An `input_required` result is not allowed for this request (another method, a legacy
    /// request, or an input kind the request's client capabilities did not declare).
    InputNotAllowed = -44,
    /// Not a `picomcp_change` value, or `RESOURCE_UPDATED` without a URI.
    BadChange = -45,
    /// 2026-07-28: the params of a request that may need an MRTR retry do not fit the
    /// arena (raise `picomcp_config.arena_bytes`).
    ArenaFull = -46,
    /// The params break a content rule of the revision: an elicitation `requestedSchema`
    /// that is not a flat object of primitives, malformed sampling `tools`/`toolChoice`.
    InvalidContent = -47,
    /// `state_key` is shorter than 16 bytes, or the library was built without sealing.
    BadStateKey = -48,

    /// JSON: no member with that name, or the index is past the end.
    NotFound = -50,
    /// JSON: the value has another type than the function reads (e.g. a string where a
    /// number was asked for).
    WrongType = -51,
    /// JSON: the number does not fit the requested C type.
    OutOfRange = -52,
    /// The writer is not initialised, already finished, or an earlier call on it failed.
    WriterState = -53,

    /// Server layer: `picomcp_server_init` refused a definition (which one and why: the
    /// `picomcp_server_error`).
    BadDefinition = -60,
    /// The pointer is not a server made by `picomcp_server_init` (or it was
    /// deinitialised).
    InvalidServer = -61,
    /// Server layer: no definition has this index.
    UnknownDefinition = -62,
    /// Server layer: the tool has an `outputSchema`, so a (non-error) result needs
    /// structured content.
    MissingStructured = -63,
    /// Server layer: the structured content does not match the tool's `outputSchema`
    /// (where and why: the `picomcp_server_error`).
    InvalidStructured = -64,
    /// Server layer: a content block the negotiated revision does not have (audio before
    /// 2025-03-26, resource links before 2025-06-18).
    NotInRevision = -65,
    /// Server layer: a content block is malformed (`PICOMCP_CONTENT_KIND_JSON` that is not
    /// an object with a `type`, `_meta` that is not an object, an unknown kind).
    InvalidBlock = -66,
    /// Server layer: more than `PICOMCP_SERVER_MAX_BLOCKS` content blocks, messages or
    /// resource contents in one answer.
    TooManyBlocks = -67,

    /// An error the core added after this library was written (mapped conservatively).
    Unknown = -99,
}

impl picomcp_status {
    /// Every status, for `describe` tests and documentation.
    pub(crate) const ALL: &'static [picomcp_status] = &[
        Self::Ok,
        Self::NullArgument,
        Self::Panic,
        Self::InvalidArgument,
        Self::InvalidUtf8,
        Self::InvalidJson,
        Self::BufferTooSmall,
        Self::InvalidSession,
        Self::Poisoned,
        Self::MemoryMisaligned,
        Self::MemoryTooSmall,
        Self::WrongRelease,
        Self::OutOfMemory,
        Self::Reentrant,
        Self::CapabilitiesNotObject,
        Self::NoVersions,
        Self::BadLimit,
        Self::TableTooLarge,
        Self::QueueTooSmall,
        Self::BadRole,
        Self::WrongPhase,
        Self::WrongDirection,
        Self::NotNegotiated,
        Self::NotInVersion,
        Self::ReservedMethod,
        Self::TooManyRequests,
        Self::QueueFull,
        Self::ParamsNotObject,
        Self::UnknownRequest,
        Self::NoProgressToken,
        Self::ProgressNotIncreasing,
        Self::ResultNotObject,
        Self::UnknownMethod,
        Self::ReservedCode,
        Self::InputNotAllowed,
        Self::BadChange,
        Self::ArenaFull,
        Self::InvalidContent,
        Self::BadStateKey,
        Self::NotFound,
        Self::WrongType,
        Self::OutOfRange,
        Self::WriterState,
        Self::BadDefinition,
        Self::InvalidServer,
        Self::UnknownDefinition,
        Self::MissingStructured,
        Self::InvalidStructured,
        Self::NotInRevision,
        Self::InvalidBlock,
        Self::TooManyBlocks,
        Self::Unknown,
    ];

    /// The status with this number, if there is one.
    pub fn from_i32(v: i32) -> Option<picomcp_status> {
        Self::ALL.iter().copied().find(|s| *s as i32 == v)
    }

    /// The C name of the status, e.g. `"PICOMCP_STATUS_QUEUE_FULL"`.
    pub fn name(self) -> &'static str {
        self.text().0
    }

    /// A sentence describing the status.
    pub fn message(self) -> &'static str {
        self.text().1
    }

    fn text(self) -> (&'static str, &'static str) {
        use picomcp_status as S;
        match self {
            S::Ok => ("PICOMCP_STATUS_OK", "success"),
            S::NullArgument => (
                "PICOMCP_STATUS_NULL_ARGUMENT",
                "a required pointer argument is NULL",
            ),
            S::Panic => (
                "PICOMCP_STATUS_PANIC",
                "a panic inside picomcp was caught (a bug); the session is poisoned",
            ),
            S::InvalidArgument => (
                "PICOMCP_STATUS_INVALID_ARGUMENT",
                "an argument is out of range (unknown enum value or flag, size too large)",
            ),
            S::InvalidUtf8 => ("PICOMCP_STATUS_INVALID_UTF8", "text is not valid UTF-8"),
            S::InvalidJson => (
                "PICOMCP_STATUS_INVALID_JSON",
                "text is not valid JSON (or nested deeper than 256 levels)",
            ),
            S::BufferTooSmall => (
                "PICOMCP_STATUS_BUFFER_TOO_SMALL",
                "the output buffer is too small; the required size was reported",
            ),
            S::InvalidSession => (
                "PICOMCP_STATUS_INVALID_SESSION",
                "not a live session (never initialised, deinitialised, or misaligned)",
            ),
            S::Poisoned => (
                "PICOMCP_STATUS_POISONED",
                "an earlier call on this session panicked; the session is unusable",
            ),
            S::MemoryMisaligned => (
                "PICOMCP_STATUS_MEMORY_MISALIGNED",
                "session memory is not aligned as picomcp_session_storage_size reported",
            ),
            S::MemoryTooSmall => (
                "PICOMCP_STATUS_MEMORY_TOO_SMALL",
                "session memory is smaller than picomcp_session_storage_size reported",
            ),
            S::WrongRelease => (
                "PICOMCP_STATUS_WRONG_RELEASE",
                "wrong release: free is for picomcp_session_new, deinit for picomcp_session_init",
            ),
            S::OutOfMemory => ("PICOMCP_STATUS_OUT_OF_MEMORY", "memory allocation failed"),
            S::Reentrant => (
                "PICOMCP_STATUS_REENTRANT",
                "session function called from inside a respond_with callback",
            ),
            S::CapabilitiesNotObject => (
                "PICOMCP_STATUS_CAPABILITIES_NOT_OBJECT",
                "configuration: capabilities must be a JSON object",
            ),
            S::NoVersions => (
                "PICOMCP_STATUS_NO_VERSIONS",
                "configuration: no protocol revision selected",
            ),
            S::BadLimit => (
                "PICOMCP_STATUS_BAD_LIMIT",
                "configuration: a limit is out of range",
            ),
            S::TableTooLarge => (
                "PICOMCP_STATUS_TABLE_TOO_LARGE",
                "configuration: request tables are limited to 65535 slots",
            ),
            S::QueueTooSmall => (
                "PICOMCP_STATUS_QUEUE_TOO_SMALL",
                "configuration: tx_size or event_size is too small for the limits (use 0 for the default)",
            ),
            S::BadRole => (
                "PICOMCP_STATUS_BAD_ROLE",
                "configuration: role must be PICOMCP_ROLE_SERVER or PICOMCP_ROLE_CLIENT",
            ),
            S::WrongPhase => (
                "PICOMCP_STATUS_WRONG_PHASE",
                "not allowed in the current lifecycle phase",
            ),
            S::WrongDirection => (
                "PICOMCP_STATUS_WRONG_DIRECTION",
                "this role may not send this method this way",
            ),
            S::NotNegotiated => (
                "PICOMCP_STATUS_NOT_NEGOTIATED",
                "the method needs a capability that was not negotiated",
            ),
            S::NotInVersion => (
                "PICOMCP_STATUS_NOT_IN_VERSION",
                "the method does not exist in the negotiated protocol revision",
            ),
            S::ReservedMethod => (
                "PICOMCP_STATUS_RESERVED_METHOD",
                "the session sends this method itself; use the dedicated function",
            ),
            S::TooManyRequests => (
                "PICOMCP_STATUS_TOO_MANY_REQUESTS",
                "the outbound request table is full",
            ),
            S::QueueFull => (
                "PICOMCP_STATUS_QUEUE_FULL",
                "the transmit queue is full; drain it with picomcp_session_poll_transmit and retry",
            ),
            S::ParamsNotObject => (
                "PICOMCP_STATUS_PARAMS_NOT_OBJECT",
                "params must be a JSON object",
            ),
            S::UnknownRequest => (
                "PICOMCP_STATUS_UNKNOWN_REQUEST",
                "the handle names no open request (answered, finished or stale)",
            ),
            S::NoProgressToken => (
                "PICOMCP_STATUS_NO_PROGRESS_TOKEN",
                "the request did not ask for progress",
            ),
            S::ProgressNotIncreasing => (
                "PICOMCP_STATUS_PROGRESS_NOT_INCREASING",
                "progress must be finite and increase",
            ),
            S::ResultNotObject => (
                "PICOMCP_STATUS_RESULT_NOT_OBJECT",
                "a result must be a JSON object",
            ),
            S::UnknownMethod => ("PICOMCP_STATUS_UNKNOWN_METHOD", "unknown method name"),
            S::ReservedCode => (
                "PICOMCP_STATUS_RESERVED_CODE",
                "error codes -32020..-32099 are reserved by the MCP specification",
            ),
            S::InputNotAllowed => (
                "PICOMCP_STATUS_INPUT_NOT_ALLOWED",
                "an input_required result is not allowed for this request",
            ),
            S::BadChange => (
                "PICOMCP_STATUS_BAD_CHANGE",
                "not a picomcp_change value, or a resource change without a URI",
            ),
            S::ArenaFull => (
                "PICOMCP_STATUS_ARENA_FULL",
                "the arena cannot keep the params for a retry; raise arena_bytes",
            ),
            S::InvalidContent => (
                "PICOMCP_STATUS_INVALID_CONTENT",
                "the params break a content rule (elicitation schema, sampling tools)",
            ),
            S::BadStateKey => (
                "PICOMCP_STATUS_BAD_STATE_KEY",
                "state_key must be at least 16 bytes",
            ),
            S::NotFound => ("PICOMCP_STATUS_NOT_FOUND", "no such member or element"),
            S::WrongType => (
                "PICOMCP_STATUS_WRONG_TYPE",
                "the JSON value has another type",
            ),
            S::OutOfRange => (
                "PICOMCP_STATUS_OUT_OF_RANGE",
                "the number does not fit the requested type",
            ),
            S::WriterState => (
                "PICOMCP_STATUS_WRITER_STATE",
                "the writer is not initialised, already finished, or failed earlier",
            ),
            S::BadDefinition => (
                "PICOMCP_STATUS_BAD_DEFINITION",
                "a server definition is broken (see the picomcp_server_error)",
            ),
            S::InvalidServer => (
                "PICOMCP_STATUS_INVALID_SERVER",
                "not a live server from picomcp_server_init",
            ),
            S::UnknownDefinition => (
                "PICOMCP_STATUS_UNKNOWN_DEFINITION",
                "no definition has this index",
            ),
            S::MissingStructured => (
                "PICOMCP_STATUS_MISSING_STRUCTURED",
                "the tool has an outputSchema: the result needs structured content",
            ),
            S::InvalidStructured => (
                "PICOMCP_STATUS_INVALID_STRUCTURED",
                "the structured content does not match the tool's outputSchema",
            ),
            S::NotInRevision => (
                "PICOMCP_STATUS_NOT_IN_REVISION",
                "the negotiated revision does not have this content block",
            ),
            S::InvalidBlock => (
                "PICOMCP_STATUS_INVALID_BLOCK",
                "a content block or _meta is malformed",
            ),
            S::TooManyBlocks => (
                "PICOMCP_STATUS_TOO_MANY_BLOCKS",
                "more content blocks than PICOMCP_SERVER_MAX_BLOCKS in one answer",
            ),
            S::Unknown => (
                "PICOMCP_STATUS_UNKNOWN",
                "an error this library does not know",
            ),
        }
    }
}

/// Writes a NUL-terminated description of `status` (for example
/// `"PICOMCP_STATUS_QUEUE_FULL: the transmit queue is full; ..."`) into `buf`.
///
/// The text is truncated to fit (`cap` bytes including the NUL); then
/// `PICOMCP_STATUS_BUFFER_TOO_SMALL` is returned. 128 bytes always suffice. An unknown
/// `status` number is described as such (and is not an error).
///
/// # Safety
/// `buf` must be NULL or point to `cap` writable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_status_describe(
    status: i32,
    buf: *mut c_char,
    cap: usize,
) -> picomcp_status {
    boundary(|| {
        // SAFETY: the caller guarantees `buf` points to `cap` writable bytes.
        let out = unsafe { out_bytes(buf.cast(), cap) }?;
        let (name, msg) = match picomcp_status::from_i32(status) {
            Some(s) => (s.name(), s.message()),
            None => ("PICOMCP_STATUS_?", "not a picomcp status code"),
        };
        let mut n = 0;
        let mut put = |s: &[u8]| {
            for &b in s {
                if n + 1 < out.len() {
                    out[n] = b;
                    n += 1;
                }
            }
        };
        put(name.as_bytes());
        put(b": ");
        put(msg.as_bytes());
        let full = name.len() + 2 + msg.len();
        if let Some(last) = out.get_mut(n) {
            *last = 0;
        }
        if full + 1 > out.len() {
            return Err(picomcp_status::BufferTooSmall);
        }
        Ok(())
    })
}
