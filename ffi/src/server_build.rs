//! Building the core's tables from the C tables: strings read in place (`&'static str`
//! over the caller's NUL-terminated text), arrays carved out of the caller's
//! `picomcp_server_slot`s, and the errors of both steps in their C form.

use core::ffi::{CStr, c_char};
use core::mem::{align_of, size_of};

use picomcp_core::server::{
    Catalog, DefinitionError, DefinitionErrorKind, Prompt, PromptArgument, Resource,
    ResourceTemplate, Table, Tool,
};

use crate::boundary::FfiResult;
use crate::server::{
    picomcp_catalog, picomcp_server_error, picomcp_server_error_kind, picomcp_table,
};
use crate::status::picomcp_status;
use crate::types::picomcp_str;

/// A table string: NULL is absent, else NUL-terminated UTF-8 that lives as long as the
/// server (the caller's promise).
///
/// # Safety
/// `p` must be NULL or a NUL-terminated string valid until deinit.
unsafe fn opt_cstr(p: *const c_char) -> Result<Option<&'static str>, picomcp_server_error_kind> {
    if p.is_null() {
        return Ok(None);
    }
    // SAFETY: caller contract: NUL-terminated and alive for the server's lifetime.
    let c = unsafe { CStr::from_ptr(p) };
    c.to_str()
        .map(Some)
        .map_err(|_| picomcp_server_error_kind::InvalidUtf8)
}

/// Where a definition went wrong, before the core saw it.
pub(crate) struct Bad {
    table: picomcp_table,
    index: usize,
    field: &'static str,
    kind: picomcp_server_error_kind,
}

impl Bad {
    pub(crate) fn into_c(self) -> picomcp_server_error {
        let mut e = picomcp_server_error::NONE;
        e.kind = self.kind as u32;
        e.table = self.table as u32;
        e.index = self.index;
        e.field = picomcp_str::new(self.field);
        let what = if self.kind == picomcp_server_error_kind::Missing {
            "is required (NULL given)"
        } else {
            "is not UTF-8"
        };
        let noun = match self.table {
            picomcp_table::Tools => "tool",
            picomcp_table::Resources => "resource",
            picomcp_table::Templates => "resource template",
            picomcp_table::Prompts => "prompt",
            _ => "options",
        };
        e.set_message(format_args!(
            "{noun} {}: {}: {what}",
            self.index, self.field
        ));
        e
    }
}

/// Reads the strings of entry `index` of `table`.
struct Reader {
    table: picomcp_table,
    index: usize,
}

impl Reader {
    /// An optional string.
    ///
    /// # Safety
    /// As [`opt_cstr`].
    unsafe fn opt(
        &self,
        field: &'static str,
        p: *const c_char,
    ) -> Result<Option<&'static str>, Bad> {
        // SAFETY: forwarded caller contract.
        unsafe { opt_cstr(p) }.map_err(|kind| self.bad(field, kind))
    }

    /// A required string.
    ///
    /// # Safety
    /// As [`opt_cstr`].
    unsafe fn req(&self, field: &'static str, p: *const c_char) -> Result<&'static str, Bad> {
        // SAFETY: forwarded caller contract.
        unsafe { self.opt(field, p) }?
            .ok_or_else(|| self.bad(field, picomcp_server_error_kind::Missing))
    }

    fn bad(&self, field: &'static str, kind: picomcp_server_error_kind) -> Bad {
        Bad {
            table: self.table,
            index: self.index,
            field,
            kind,
        }
    }
}

/// A C table as a slice (`NULL` only with a count of 0).
///
/// # Safety
/// `p` must point to `n` readable entries when `n > 0`.
pub(crate) unsafe fn table<'a, T>(p: *const T, n: usize) -> FfiResult<&'a [T]> {
    if n == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(picomcp_status::NullArgument);
    }
    if n > isize::MAX as usize / size_of::<T>().max(1) {
        return Err(picomcp_status::InvalidArgument);
    }
    // SAFETY: non-NULL, size checked; validity is the caller's promise.
    Ok(unsafe { core::slice::from_raw_parts(p, n) })
}

/// Carves typed arrays out of the caller's slots, one after the other.
pub(crate) struct Carver {
    pub(crate) base: *mut u8,
    pub(crate) at: usize,
    pub(crate) cap: usize,
}

impl Carver {
    /// Room for `n` values of `T`, aligned; `MEMORY_TOO_SMALL` when the slots are used up.
    fn take<T>(&mut self, n: usize) -> FfiResult<*mut T> {
        let small = picomcp_status::MemoryTooSmall;
        let at = self
            .at
            .checked_next_multiple_of(align_of::<T>())
            .ok_or(small)?;
        let end = n
            .checked_mul(size_of::<T>())
            .and_then(|b| at.checked_add(b))
            .ok_or(small)?;
        if end > self.cap {
            return Err(small);
        }
        self.at = end;
        // SAFETY: `at <= cap`, inside the slots the caller gave (checked in `init`).
        Ok(unsafe { self.base.add(at) }.cast())
    }
}

/// Fills a typed array carved from the slots and returns it as a `'static` slice.
///
/// # Safety
/// `p` must be writable for `items.len()` values of `T` and stay untouched until deinit.
unsafe fn fill<T, C>(
    p: *mut T,
    items: &[C],
    mut make: impl FnMut(usize, &C) -> Result<T, Bad>,
) -> Result<&'static [T], Bad> {
    for (i, c) in items.iter().enumerate() {
        let v = make(i, c)?;
        // SAFETY: slot `i` of the carved array is writable (caller contract).
        unsafe { p.add(i).write(v) };
    }
    // SAFETY: every element was written above; the memory lives until deinit.
    Ok(unsafe { core::slice::from_raw_parts(p, items.len()) })
}

/// The C tables in the core's form, in the caller's slots.
///
/// # Safety
/// As `picomcp_server_init`.
pub(crate) unsafe fn build(
    c: &picomcp_catalog,
    carver: &mut Carver,
) -> FfiResult<Result<Catalog<'static>, Bad>> {
    // SAFETY: caller contract for every table.
    let (tools, resources, templates, prompts) = unsafe {
        (
            table(c.tools, c.tool_count)?,
            table(c.resources, c.resource_count)?,
            table(c.templates, c.template_count)?,
            table(c.prompts, c.prompt_count)?,
        )
    };
    let mut n_args = 0usize;
    for p in prompts {
        // SAFETY: caller contract (checks NULL with a count).
        unsafe { table(p.arguments, p.argument_count) }?;
        n_args = n_args
            .checked_add(p.argument_count)
            .ok_or(picomcp_status::InvalidArgument)?;
    }
    let tp = carver.take::<Tool<'static>>(tools.len())?;
    let rp = carver.take::<Resource<'static>>(resources.len())?;
    let mp = carver.take::<ResourceTemplate<'static>>(templates.len())?;
    let ap = carver.take::<PromptArgument<'static>>(n_args)?;
    let pp = carver.take::<Prompt<'static>>(prompts.len())?;
    // SAFETY: for every `fill` and string read below, the carved arrays are inside the
    // caller's slots and the strings are NUL-terminated and live until deinit (contract).
    let r = unsafe {
        (|| -> Result<Catalog<'static>, Bad> {
            let tools = fill(tp, tools, |i, t| {
                let r = Reader {
                    table: picomcp_table::Tools,
                    index: i,
                };
                Ok(Tool {
                    name: r.req("name", t.name)?,
                    title: r.opt("title", t.title)?,
                    description: r.opt("description", t.description)?,
                    input_schema: r.req("inputSchema", t.input_schema)?,
                    output_schema: r.opt("outputSchema", t.output_schema)?,
                    annotations: r.opt("annotations", t.annotations)?,
                    icons: r.opt("icons", t.icons)?,
                    execution: r.opt("execution", t.execution)?,
                    meta: r.opt("_meta", t.meta)?,
                    scopes: r.opt("scopes", t.scopes)?,
                })
            })?;
            let resources = fill(rp, resources, |i, x| {
                let r = Reader {
                    table: picomcp_table::Resources,
                    index: i,
                };
                Ok(Resource {
                    uri: r.req("uri", x.uri)?,
                    name: r.req("name", x.name)?,
                    title: r.opt("title", x.title)?,
                    description: r.opt("description", x.description)?,
                    mime_type: r.opt("mimeType", x.mime_type)?,
                    size: x.has_size.then_some(x.size),
                    annotations: r.opt("annotations", x.annotations)?,
                    icons: r.opt("icons", x.icons)?,
                    meta: r.opt("_meta", x.meta)?,
                    scopes: r.opt("scopes", x.scopes)?,
                })
            })?;
            let templates = fill(mp, templates, |i, x| {
                let r = Reader {
                    table: picomcp_table::Templates,
                    index: i,
                };
                Ok(ResourceTemplate {
                    uri_template: r.req("uriTemplate", x.uri_template)?,
                    name: r.req("name", x.name)?,
                    title: r.opt("title", x.title)?,
                    description: r.opt("description", x.description)?,
                    mime_type: r.opt("mimeType", x.mime_type)?,
                    annotations: r.opt("annotations", x.annotations)?,
                    icons: r.opt("icons", x.icons)?,
                    meta: r.opt("_meta", x.meta)?,
                    scopes: r.opt("scopes", x.scopes)?,
                    completable: x.completable,
                })
            })?;
            let mut next = 0usize;
            let prompts = fill(pp, prompts, |i, p| {
                let r = Reader {
                    table: picomcp_table::Prompts,
                    index: i,
                };
                let c_args = table(p.arguments, p.argument_count).unwrap_or(&[]);
                let args = fill(ap.add(next), c_args, |_, a| {
                    Ok(PromptArgument {
                        name: r.req("arguments", a.name)?,
                        title: r.opt("arguments", a.title)?,
                        description: r.opt("arguments", a.description)?,
                        required: a.required,
                        completable: a.completable,
                    })
                })?;
                next += c_args.len();
                Ok(Prompt {
                    name: r.req("name", p.name)?,
                    title: r.opt("title", p.title)?,
                    description: r.opt("description", p.description)?,
                    arguments: args,
                    icons: r.opt("icons", p.icons)?,
                    meta: r.opt("_meta", p.meta)?,
                    scopes: r.opt("scopes", p.scopes)?,
                })
            })?;
            Ok(Catalog {
                tools,
                resources,
                templates,
                prompts,
            })
        })()
    };
    Ok(r)
}

/// The C form of a core definition error.
pub(crate) fn definition_error(e: &DefinitionError) -> picomcp_server_error {
    use picomcp_server_error_kind as K;
    let mut c = picomcp_server_error::NONE;
    c.kind = match e.kind {
        DefinitionErrorKind::EmptyName => K::EmptyName,
        DefinitionErrorKind::Duplicate => K::Duplicate,
        DefinitionErrorKind::InvalidJson => K::InvalidJson,
        DefinitionErrorKind::WrongKind => K::WrongKind,
        DefinitionErrorKind::NotObjectSchema => K::NotObjectSchema,
        DefinitionErrorKind::Schema(_) => K::Schema,
        DefinitionErrorKind::Template(_) => K::Template,
        DefinitionErrorKind::Argument => K::Argument,
        DefinitionErrorKind::PageSize => K::PageSize,
        _ => K::Other,
    } as u32;
    c.table = match e.table {
        Table::Tools => picomcp_table::Tools,
        Table::Resources => picomcp_table::Resources,
        Table::Templates => picomcp_table::Templates,
        Table::Prompts => picomcp_table::Prompts,
        Table::Options => picomcp_table::Options,
    } as u32;
    c.index = e.index;
    c.field = picomcp_str::new(e.field);
    c.set_message(format_args!("{e}"));
    c
}
