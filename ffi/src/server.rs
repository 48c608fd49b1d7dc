//! The server application layer (`picomcp::server`) for C: the definitions as tables of
//! C structs, and a `picomcp_server` built over them without any allocation.
//!
//! # Memory
//!
//! The core's `Server` borrows Rust tables (`&[Tool]`, with `&str` fields). C tables
//! hold `const char *` strings, so `picomcp_server_init` builds the Rust tables once, in
//! `picomcp_server_slot`s the caller owns (one slot per tool, resource, template, prompt
//! and prompt argument), with each `&str` pointing at the caller's C string (no copy).
//! The `picomcp_server` itself (the checked `Server`: four slices and the options) lives
//! in caller memory too. The `'static` lifetimes stand for a promise the C caller makes:
//! the strings, the slots and the server stay valid and unchanged until
//! `picomcp_server_deinit`.
//!
//! The server holds no mutable state (each call only reads it), so one server can serve
//! several sessions, and a panic while serving poisons only the session it happened in.

use core::ffi::c_char;
use core::fmt::{self, Write as _};
use core::mem::{align_of, size_of};
use core::ptr;

use picomcp_core::server::{
    CAPABILITIES_MAX, Options, Prompt, PromptArgument, Resource, ResourceTemplate, Server, Tool,
};

use crate::boundary::{FfiResult, boundary, input, out, out_bytes};
use crate::server_build::{Carver, build, definition_error, table};
use crate::status::picomcp_status;
use crate::types::picomcp_str;

/// Number of 64-bit words in a `picomcp_server`.
pub const PICOMCP_SERVER_WORDS: usize = 24;
/// Number of 64-bit words in a `picomcp_server_slot`.
pub const PICOMCP_SERVER_SLOT_WORDS: usize = 20;
/// Bytes `picomcp_server_capabilities` needs at most (the JSON and its NUL).
pub const PICOMCP_SERVER_CAPABILITIES_MAX: usize = 192;
/// Bytes of `picomcp_server_error.message` (NUL included).
pub const PICOMCP_SERVER_ERROR_MESSAGE: usize = 256;

pub(crate) const SLOT_BYTES: usize = PICOMCP_SERVER_SLOT_WORDS * 8;
const _: () = assert!(size_of::<Tool<'static>>() <= SLOT_BYTES);
const _: () = assert!(size_of::<Resource<'static>>() <= SLOT_BYTES);
const _: () = assert!(size_of::<ResourceTemplate<'static>>() <= SLOT_BYTES);
const _: () = assert!(size_of::<Prompt<'static>>() <= SLOT_BYTES);
const _: () = assert!(size_of::<PromptArgument<'static>>() <= SLOT_BYTES);
const _: () = assert!(align_of::<Tool<'static>>() <= 8);
const _: () = assert!(align_of::<Resource<'static>>() <= 8);
const _: () = assert!(align_of::<ResourceTemplate<'static>>() <= 8);
const _: () = assert!(align_of::<Prompt<'static>>() <= 8);
const _: () = assert!(align_of::<PromptArgument<'static>>() <= 8);
const _: () = assert!(CAPABILITIES_MAX < PICOMCP_SERVER_CAPABILITIES_MAX);

/// A tool (`tools/list`, `tools/call`). Strings are NUL-terminated UTF-8; NULL means
/// absent. JSON fields are JSON text, checked once by `picomcp_server_init`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct picomcp_tool {
    /// The name (required, unique in the table).
    pub name: *const c_char,
    /// A display name.
    pub title: *const c_char,
    /// What the tool does, for the model.
    pub description: *const c_char,
    /// JSON Schema of the arguments, an object schema (required). Arguments are
    /// validated against it before the host sees a call.
    pub input_schema: *const c_char,
    /// JSON Schema of `structuredContent`; a tool with one must answer with structured
    /// content that matches it.
    pub output_schema: *const c_char,
    /// `ToolAnnotations` object (`{"readOnlyHint":true}`, ...).
    pub annotations: *const c_char,
    /// `icons` array.
    pub icons: *const c_char,
    /// `execution` object (2025-11-25, e.g. `{"taskSupport":"forbidden"}`).
    pub execution: *const c_char,
    /// `_meta` object.
    pub meta: *const c_char,
    /// Space-delimited OAuth scopes a caller needs to see and use it (NULL: none); only
    /// checked under authorization (`picomcp_session_poll_served_as`, and the endpoint's
    /// 403 step-up when `picomcp_endpoint_config.server` names this server).
    pub scopes: *const c_char,
}

/// A resource with a fixed URI (`resources/list`, `resources/read`).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct picomcp_resource {
    /// The URI (required, unique among resources).
    pub uri: *const c_char,
    /// A name (required).
    pub name: *const c_char,
    /// A display name.
    pub title: *const c_char,
    /// A description.
    pub description: *const c_char,
    /// The MIME type.
    pub mime_type: *const c_char,
    /// `size` is known (listed) when true.
    pub has_size: bool,
    /// The size in bytes (when `has_size`).
    pub size: u64,
    /// `Annotations` object.
    pub annotations: *const c_char,
    /// `icons` array.
    pub icons: *const c_char,
    /// `_meta` object.
    pub meta: *const c_char,
    /// Space-delimited OAuth scopes a caller needs to see and use it (NULL: none); only
    /// checked under authorization (`picomcp_session_poll_served_as`, and the endpoint's
    /// 403 step-up when `picomcp_endpoint_config.server` names this server).
    pub scopes: *const c_char,
}

/// A family of resources named by an RFC 6570 URI template.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct picomcp_resource_template {
    /// The URI template (required), e.g. `"test://item/{id}"`.
    pub uri_template: *const c_char,
    /// A name (required).
    pub name: *const c_char,
    /// A display name.
    pub title: *const c_char,
    /// A description.
    pub description: *const c_char,
    /// The MIME type of the resources it names.
    pub mime_type: *const c_char,
    /// `Annotations` object.
    pub annotations: *const c_char,
    /// `icons` array.
    pub icons: *const c_char,
    /// `_meta` object.
    pub meta: *const c_char,
    /// The host completes its variables (`completion/complete` reaches the host).
    pub completable: bool,
    /// Space-delimited OAuth scopes a caller needs to see and use it (NULL: none); only
    /// checked under authorization (`picomcp_session_poll_served_as`, and the endpoint's
    /// 403 step-up when `picomcp_endpoint_config.server` names this server).
    pub scopes: *const c_char,
}

/// One argument of a `picomcp_prompt`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct picomcp_prompt_argument {
    /// The name (required, unique in its prompt).
    pub name: *const c_char,
    /// A display name.
    pub title: *const c_char,
    /// A description.
    pub description: *const c_char,
    /// `prompts/get` must give it (else the layer answers -32602).
    pub required: bool,
    /// The host completes its values.
    pub completable: bool,
}

/// A prompt (`prompts/list`, `prompts/get`).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct picomcp_prompt {
    /// The name (required, unique in the table).
    pub name: *const c_char,
    /// A display name.
    pub title: *const c_char,
    /// A description (also sent with every `prompts/get` result).
    pub description: *const c_char,
    /// Its arguments (NULL when `argument_count` is 0).
    pub arguments: *const picomcp_prompt_argument,
    /// Number of `arguments`.
    pub argument_count: usize,
    /// `icons` array.
    pub icons: *const c_char,
    /// `_meta` object.
    pub meta: *const c_char,
    /// Space-delimited OAuth scopes a caller needs to see and use it (NULL: none); only
    /// checked under authorization (`picomcp_session_poll_served_as`, and the endpoint's
    /// 403 step-up when `picomcp_endpoint_config.server` names this server).
    pub scopes: *const c_char,
}

/// Everything a server offers: four tables, any of which may be empty (NULL with a
/// count of 0).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct picomcp_catalog {
    /// Tools.
    pub tools: *const picomcp_tool,
    /// Number of `tools`.
    pub tool_count: usize,
    /// Resources with a fixed URI.
    pub resources: *const picomcp_resource,
    /// Number of `resources`.
    pub resource_count: usize,
    /// Resource templates.
    pub templates: *const picomcp_resource_template,
    /// Number of `templates`.
    pub template_count: usize,
    /// Prompts.
    pub prompts: *const picomcp_prompt,
    /// Number of `prompts`.
    pub prompt_count: usize,
}

/// How the layer serves the tables. `picomcp_server_options_init` fills the defaults;
/// NULL options mean the defaults.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct picomcp_server_options {
    /// Definitions per page of a list result (at least 1). Default 100.
    pub page_size: usize,
    /// Declare `listChanged` for the tables that exist (announce changes with
    /// `picomcp_session_notify`). Default true.
    pub list_changed: bool,
    /// Declare `resources.subscribe`. Default false.
    pub subscribe: bool,
    /// Declare `logging` (the session answers `logging/setLevel`). Default true.
    pub logging: bool,
    /// How deep argument and structured-content validation may nest (schema levels and
    /// `$ref` hops, 32 at most). Each level costs about 1 KiB of stack on 64-bit hosts: a
    /// device with a small stack sets a lower bound. Default 32.
    pub schema_depth: usize,
}

impl From<picomcp_server_options> for Options {
    fn from(o: picomcp_server_options) -> Self {
        // The update keeps this compiling when the core adds options.
        #[allow(clippy::needless_update)]
        Options {
            page_size: o.page_size,
            list_changed: o.list_changed,
            subscribe: o.subscribe,
            logging: o.logging,
            schema_depth: o.schema_depth,
            ..Options::DEFAULT
        }
    }
}

/// The server (opaque, in your memory: a static, the stack, an arena). Made by
/// `picomcp_server_init`; pass its address, do not copy it.
#[repr(C)]
pub struct picomcp_server {
    /// Private state.
    pub opaque: [u64; PICOMCP_SERVER_WORDS],
}

/// Memory for one definition in the server's own form (opaque): give
/// `picomcp_server_init` one per tool, resource, template, prompt and prompt argument
/// (`picomcp_server_slots_needed` counts them).
#[repr(C)]
pub struct picomcp_server_slot {
    /// Private state.
    pub opaque: [u64; PICOMCP_SERVER_SLOT_WORDS],
}

/// Which table a `picomcp_server_error` is about.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum picomcp_table {
    /// No table (no error, or an answer's error).
    None = 0,
    /// `picomcp_catalog.tools`.
    Tools = 1,
    /// `picomcp_catalog.resources`.
    Resources = 2,
    /// `picomcp_catalog.templates`.
    Templates = 3,
    /// `picomcp_catalog.prompts`.
    Prompts = 4,
    /// The `picomcp_server_options`.
    Options = 5,
}

/// What a `picomcp_server_error` is: the core's `DefinitionErrorKind` (at
/// `picomcp_server_init`) and `ResultError` (answers), plus two kinds only C tables
/// have (a NULL required string, text that is not UTF-8).
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum picomcp_server_error_kind {
    /// No error.
    None = 0,
    /// The name (or URI) is empty.
    EmptyName = 1,
    /// Another entry of the table has the same name (URI, template).
    Duplicate = 2,
    /// A JSON field is not valid JSON.
    InvalidJson = 3,
    /// A JSON field is JSON of the wrong kind (an object or array was expected).
    WrongKind = 4,
    /// `input_schema` or `output_schema` is not an object schema (`"type": "object"`).
    NotObjectSchema = 5,
    /// The schema is not valid (`message` says why).
    Schema = 6,
    /// The URI template is not valid (`message` says why).
    Template = 7,
    /// A prompt argument is unnamed or named twice.
    Argument = 8,
    /// `page_size` is 0.
    PageSize = 9,
    /// A required string (`name`, `uri`, `input_schema`, ...) is NULL.
    Missing = 10,
    /// A string is not UTF-8.
    InvalidUtf8 = 11,
    /// Answer: no definition has this index.
    UnknownDefinition = 20,
    /// Answer: the tool has an `outputSchema`: the result needs structured content.
    MissingStructured = 21,
    /// Answer: the structured content does not match the `outputSchema` (`message` names
    /// the JSON Pointer of the field and what was expected).
    InvalidStructured = 22,
    /// Answer: a content block the negotiated revision does not have.
    NotInRevision = 23,
    /// Answer: a malformed content block or `_meta`.
    InvalidContent = 24,
    /// Answer: the session refused it (the status says why).
    Respond = 25,
    /// A kind this library does not know yet.
    Other = 99,
}

/// Why the server refused something: filled by `picomcp_server_init` and
/// `picomcp_server_respond_tool` when they fail (pass NULL if you only want the status).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct picomcp_server_error {
    /// What is wrong (a `picomcp_server_error_kind`).
    pub kind: u32,
    /// The table (a `picomcp_table`), for definition errors.
    pub table: u32,
    /// The entry's index in its table, for definition errors.
    pub index: usize,
    /// The field as the protocol spells it (`"inputSchema"`, `"name"`, ...; static
    /// storage), or absent.
    pub field: picomcp_str,
    /// A sentence, NUL-terminated (truncated to fit).
    pub message: [c_char; PICOMCP_SERVER_ERROR_MESSAGE],
}

impl picomcp_server_error {
    /// No error.
    pub(crate) const NONE: picomcp_server_error = picomcp_server_error {
        kind: 0,
        table: 0,
        index: 0,
        field: picomcp_str::NONE,
        message: [0; PICOMCP_SERVER_ERROR_MESSAGE],
    };

    /// Sets the message to `args`, truncated at a character boundary.
    pub(crate) fn set_message(&mut self, args: fmt::Arguments<'_>) {
        struct Buf<'b>(&'b mut [c_char], usize);
        impl fmt::Write for Buf<'_> {
            fn write_str(&mut self, s: &str) -> fmt::Result {
                for ch in s.chars() {
                    let mut b = [0u8; 4];
                    let enc = ch.encode_utf8(&mut b).as_bytes();
                    if self.1 + enc.len() >= self.0.len() {
                        return Err(fmt::Error);
                    }
                    for &x in enc {
                        self.0[self.1] = x as c_char;
                        self.1 += 1;
                    }
                }
                Ok(())
            }
        }
        let mut buf = Buf(&mut self.message, 0);
        let _ = buf.write_fmt(args);
        let n = buf.1;
        self.message[n] = 0;
    }
}

/// Writes `e` to the caller's error, when there is one.
///
/// # Safety
/// `err` must be NULL or writable.
pub(crate) unsafe fn report(err: *mut picomcp_server_error, e: picomcp_server_error) {
    // SAFETY: caller contract.
    if let Some(o) = unsafe { err.as_mut() } {
        *o = e;
    }
}

// ---------------------------------------------------------------------------------------
// The server block
// ---------------------------------------------------------------------------------------

const SERVER_LIVE: u64 = 0x7069_636f_7372_7631; // "picosrv1"
const SERVER_DEAD: u64 = 0x7069_636f_7372_7630; // "picosrv0"

/// What a `picomcp_server` holds.
#[repr(C)]
struct ServerBlock {
    magic: u64,
    server: Server<'static>,
}

const _: () = assert!(size_of::<ServerBlock>() <= PICOMCP_SERVER_WORDS * 8);
const _: () = assert!(align_of::<ServerBlock>() <= align_of::<picomcp_server>());

/// The checked server behind a `picomcp_server` pointer.
///
/// # Safety
/// `s` must be NULL or point to a readable `picomcp_server` (initialised or not: only a
/// live one, by its magic word, is used).
pub(crate) unsafe fn server_ref<'a>(s: *const picomcp_server) -> FfiResult<&'a Server<'static>> {
    if s.is_null() {
        return Err(picomcp_status::NullArgument);
    }
    let b = s.cast::<ServerBlock>();
    // SAFETY: aligned (a u64 array) and readable (caller contract); read through a raw
    // pointer, so no reference to a possibly uninitialised block is made.
    let magic = unsafe { ptr::addr_of!((*b).magic).read() };
    if magic != SERVER_LIVE {
        return Err(picomcp_status::InvalidServer);
    }
    // SAFETY: the magic says `picomcp_server_init` wrote this block; it is never
    // written again until deinit (the caller does not deinit while using it).
    Ok(unsafe { &(*b).server })
}

// ---------------------------------------------------------------------------------------
// Functions
// ---------------------------------------------------------------------------------------

/// Fills `options` with the defaults: pages of 100, `listChanged`, logging, no
/// subscriptions.
///
/// # Safety
/// `options` must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_server_options_init(
    options: *mut picomcp_server_options,
) -> picomcp_status {
    boundary(|| {
        // SAFETY: caller contract.
        let o = unsafe { out(options) }?;
        let d = Options::DEFAULT;
        *o = picomcp_server_options {
            page_size: d.page_size,
            list_changed: d.list_changed,
            subscribe: d.subscribe,
            logging: d.logging,
            schema_depth: d.schema_depth,
        };
        Ok(())
    })
}

/// `*out_count` = the slots `picomcp_server_init` needs for `catalog`: one per tool,
/// resource, template, prompt and prompt argument.
///
/// # Safety
/// `catalog` must be NULL or a readable catalog whose tables are readable; `out_count`
/// writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_server_slots_needed(
    catalog: *const picomcp_catalog,
    out_count: *mut usize,
) -> picomcp_status {
    boundary(|| {
        // SAFETY: caller contract.
        let (c, o) = unsafe { (input(catalog)?, out(out_count)?) };
        *o = slots_needed(c)?;
        Ok(())
    })
}

/// The slot count for `c`.
fn slots_needed(c: &picomcp_catalog) -> FfiResult<usize> {
    let big = picomcp_status::InvalidArgument;
    let mut n = c
        .tool_count
        .checked_add(c.resource_count)
        .and_then(|n| n.checked_add(c.template_count))
        .and_then(|n| n.checked_add(c.prompt_count))
        .ok_or(big)?;
    // SAFETY: the caller of the exported function promised readable tables.
    for p in unsafe { table(c.prompts, c.prompt_count) }? {
        n = n.checked_add(p.argument_count).ok_or(big)?;
    }
    Ok(n)
}

/// Builds a server over `catalog` in `out_server`, checking every definition once:
/// names present and unique, JSON fields valid and of the right kind, schemas valid,
/// URI templates valid. A broken definition is `PICOMCP_STATUS_BAD_DEFINITION` with
/// `*err` saying which table, entry and field, and what is wrong (`err` may be NULL).
///
/// `slots` must hold at least `picomcp_server_slots_needed` slots (else
/// `PICOMCP_STATUS_MEMORY_TOO_SMALL`); `options` NULL means the defaults. Nothing is
/// allocated and no string is copied: **the catalog's strings, the `slots` and
/// `*out_server` must stay valid and unchanged until `picomcp_server_deinit`** (the
/// `picomcp_catalog` and its C tables themselves may go once this returns). Use
/// `picomcp_server_capabilities` for the session's `capabilities`, then
/// `picomcp_session_poll_served` instead of `picomcp_session_poll_event`.
///
/// # Safety
/// `out_server` must be NULL or writable; `catalog` NULL or readable with readable
/// tables and NUL-terminated strings (valid as said above); `options` NULL or readable;
/// `slots` must point to `slot_count` writable slots (NULL with 0); `err` NULL or
/// writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_server_init(
    out_server: *mut picomcp_server,
    catalog: *const picomcp_catalog,
    options: *const picomcp_server_options,
    slots: *mut picomcp_server_slot,
    slot_count: usize,
    err: *mut picomcp_server_error,
) -> picomcp_status {
    boundary(|| {
        // SAFETY: caller contract.
        unsafe { report(err, picomcp_server_error::NONE) };
        if out_server.is_null() {
            return Err(picomcp_status::NullArgument);
        }
        // SAFETY: non-NULL and writable (caller contract); marked dead until built.
        unsafe { out_server.cast::<u64>().write(SERVER_DEAD) };
        // SAFETY: caller contract.
        let c = unsafe { input(catalog) }?;
        let options = match options.is_null() {
            true => Options::DEFAULT,
            // SAFETY: non-NULL, caller contract.
            false => Options::from(unsafe { *options }),
        };
        if slot_count < slots_needed(c)? {
            return Err(picomcp_status::MemoryTooSmall);
        }
        let bytes = slot_count
            .checked_mul(SLOT_BYTES)
            .ok_or(picomcp_status::InvalidArgument)?;
        // SAFETY: `slots` points to `slot_count` writable slots (caller contract).
        let mem = unsafe { out_bytes(slots.cast::<u8>(), bytes) }?;
        let mut carver = Carver {
            base: mem.as_mut_ptr(),
            at: 0,
            cap: mem.len(),
        };
        // SAFETY: caller contract for the tables and their strings.
        let cat = match unsafe { build(c, &mut carver) }? {
            Ok(cat) => cat,
            Err(bad) => {
                // SAFETY: caller contract.
                unsafe { report(err, bad.into_c()) };
                return Err(picomcp_status::BadDefinition);
            }
        };
        let server = Server::new(cat, options).map_err(|e| {
            // SAFETY: caller contract.
            unsafe { report(err, definition_error(&e)) };
            picomcp_status::BadDefinition
        })?;
        // SAFETY: `out_server` is writable and aligned for a ServerBlock (a u64 array of
        // enough words: checked at compile time).
        unsafe {
            out_server.cast::<ServerBlock>().write(ServerBlock {
                magic: SERVER_LIVE,
                server,
            })
        };
        Ok(())
    })
}

/// Ends a server: afterwards the catalog's strings and the slots are yours again, and
/// functions given this server return `PICOMCP_STATUS_INVALID_SERVER`.
///
/// # Safety
/// `server` must be NULL or point to a `picomcp_server`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_server_deinit(server: *mut picomcp_server) -> picomcp_status {
    boundary(|| {
        // SAFETY: caller contract.
        unsafe { server_ref(server) }?;
        // SAFETY: a live block (checked above); only its magic word is written.
        unsafe { (*server).opaque[0] = SERVER_DEAD };
        Ok(())
    })
}

/// Writes the capabilities the registered tables imply, as JSON text plus a NUL, into
/// `buf` (`PICOMCP_SERVER_CAPABILITIES_MAX` bytes always suffice): `tools`,
/// `resources`, `prompts` for the tables that are not empty (with `listChanged` and
/// `subscribe` as the options say), `completions` once a prompt argument or template is
/// completable, `logging` unless turned off. Give it to the session's configuration
/// (`picomcp_config.capabilities`, which is copied). `*out_len` = the JSON's length
/// (without the NUL). Too small: `PICOMCP_STATUS_BUFFER_TOO_SMALL`.
///
/// # Safety
/// `server` must be NULL or point to a `picomcp_server`; `buf` to `cap` writable bytes
/// (NULL with 0); `out_len` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_server_capabilities(
    server: *const picomcp_server,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> picomcp_status {
    boundary(|| {
        // SAFETY: caller contract.
        let (s, n) = unsafe { (server_ref(server)?, out(out_len)?) };
        *n = 0;
        // SAFETY: caller contract.
        let b = unsafe { out_bytes(buf.cast::<u8>(), cap) }?;
        let mut tmp = [0u8; PICOMCP_SERVER_CAPABILITIES_MAX];
        let json = s
            .capabilities(&mut tmp)
            .map_err(|_| picomcp_status::BufferTooSmall)?;
        let text = json.as_raw().as_bytes();
        if text.len() + 1 > b.len() {
            return Err(picomcp_status::BufferTooSmall);
        }
        b[..text.len()].copy_from_slice(text);
        b[text.len()] = 0;
        *n = text.len();
        Ok(())
    })
}
