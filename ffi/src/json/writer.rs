//! The bounded JSON writer for C: `picomcp_writer` (opaque state on the caller's stack,
//! guarded by a magic word), its calls, and `write_through`, which binds one to the core's
//! writer into a session's transmit queue for `picomcp_session_respond_with`. A failed call
//! makes the writer fail from then on, and an unfinished or invalid document poisons the
//! queued line so nothing half-written is sent.

use core::ffi::c_char;
use core::mem::{align_of, size_of};

use picomcp_core::json::JsonWriter;

use crate::boundary::{FfiResult, boundary, out, out_bytes, str_arg};
use crate::status::picomcp_status;
use crate::types::picomcp_str;

use super::grammar::Grammar;
use super::value;

/// Number of 64-bit words in a `picomcp_writer`.
pub const PICOMCP_WRITER_WORDS: usize = 32;

/// A bounded JSON writer over a caller buffer (`picomcp_writer_init`). Declare it on the
/// stack; its contents are private. It never allocates; when the buffer is too small it
/// keeps counting, and `picomcp_writer_finish` reports the size needed. Every call is
/// checked against the JSON grammar as it is made (a key only inside an object, a value
/// only where one may stand, balanced ends), so a finished document is always valid JSON
/// without being scanned again.
#[repr(C)]
pub struct picomcp_writer {
    /// Private state.
    pub opaque: [u64; PICOMCP_WRITER_WORDS],
}

const WRITER_LIVE: u32 = 0x7077_7231; // "pwr1"

/// Where a writer writes: a caller buffer, or (inside `picomcp_session_respond_with`) the
/// session's transmit queue, borrowed for the duration of the callback.
enum Target {
    Owned(JsonWriter<'static>),
    Borrowed(*mut JsonWriter<'static>),
}

pub(crate) struct WriterState {
    magic: u32,
    /// First error status (sticky), 0 when none.
    error: i32,
    grammar: Grammar,
    target: Target,
}

impl WriterState {
    /// The grammar state and the JSON writer.
    fn parts(&mut self) -> (&mut Grammar, &mut JsonWriter<'static>) {
        let w = match &mut self.target {
            Target::Owned(w) => w,
            // SAFETY: a Borrowed target exists only while `respond_with` runs the C
            // callback, during which the core's writer is alive and not otherwise used;
            // the state is marked dead (magic 0) before the callback scope ends.
            Target::Borrowed(p) => unsafe { &mut **p },
        };
        (&mut self.grammar, w)
    }
}

/// Runs `write` with a `picomcp_writer` bound to `jw` (the core's writer into the
/// transmit queue). Returns 0 when the callback wrote one complete JSON object, else the
/// status to report; then `jw` is made to overflow, so the core discards the line.
pub(crate) fn write_through(
    jw: &mut JsonWriter<'_>,
    write: unsafe extern "C" fn(*mut picomcp_writer, *mut core::ffi::c_void),
    ctx: *mut core::ffi::c_void,
) -> i32 {
    let mut pw = picomcp_writer {
        opaque: [0; PICOMCP_WRITER_WORDS],
    };
    // One raw pointer for everything: the callback and the checks below use the same one.
    let pwp: *mut picomcp_writer = &mut pw;
    let st = pwp.cast::<WriterState>();
    let target = (jw as *mut JsonWriter<'_>).cast::<JsonWriter<'static>>();
    // SAFETY: `pw` is large and aligned enough (compile-time checks).
    unsafe {
        st.write(WriterState {
            magic: WRITER_LIVE,
            error: 0,
            grammar: Grammar::NEW,
            target: Target::Borrowed(target),
        })
    };
    // SAFETY: the C callback's contract: it only calls picomcp_writer_* on `pw`.
    unsafe { write(pwp, ctx) };
    // SAFETY: `st` still points to the WriterState written above (the callback may only
    // have used it through picomcp_writer_* functions).
    let st = unsafe { &mut *st };
    let status = if st.error != 0 {
        st.error
    } else if !st.grammar.done || !st.grammar.root_object {
        picomcp_status::WriterState as i32
    } else {
        0
    };
    st.magic = 0;
    if status != 0 {
        jw.serialize(&Poison);
    }
    status
}

/// Serializes into the writer until it is full, which makes the JsonWriter report an
/// overflow and the core's transmit queue drop the line (nothing half-written is sent).
struct Poison;

impl serde::Serialize for Poison {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = s.serialize_seq(None)?;
        for _ in 0..(1u64 << 40) {
            seq.serialize_element(&())?;
        }
        seq.end()
    }
}

const _: () = assert!(size_of::<WriterState>() <= size_of::<picomcp_writer>());
const _: () = assert!(align_of::<WriterState>() <= align_of::<picomcp_writer>());

/// The state of an initialised writer.
///
/// # Safety
/// `w` must be NULL or point to a `picomcp_writer` (initialised or not).
unsafe fn writer<'a>(w: *mut picomcp_writer) -> FfiResult<&'a mut WriterState> {
    // SAFETY: caller contract; NULL checked.
    let w = unsafe { out(w) }?;
    let st = (w as *mut picomcp_writer).cast::<WriterState>();
    // SAFETY: `picomcp_writer` is larger and at least as aligned as WriterState (checked
    // at compile time); the magic is read as a plain u32 before any WriterState
    // reference exists.
    let magic = unsafe { core::ptr::addr_of!((*st).magic).read() };
    if magic != WRITER_LIVE {
        return Err(picomcp_status::WriterState);
    }
    // SAFETY: the magic says `picomcp_writer_init` wrote a WriterState here.
    let st = unsafe { &mut *st };
    if st.error != 0 {
        return Err(picomcp_status::WriterState);
    }
    Ok(st)
}

/// Runs one writer operation; an error becomes sticky (later calls and `finish` fail).
///
/// # Safety
/// As [`writer`].
unsafe fn with_writer(
    w: *mut picomcp_writer,
    f: impl FnOnce(&mut Grammar, &mut JsonWriter<'static>) -> FfiResult,
) -> picomcp_status {
    boundary(|| {
        // SAFETY: forwarded caller contract.
        let st = unsafe { writer(w) }?;
        let (g, jw) = st.parts();
        let r = f(g, jw);
        if let Err(e) = r {
            st.error = e as i32;
        }
        r
    })
}

/// Starts writing JSON into `buf` (`cap` bytes; NULL with `cap` 0 to only measure).
/// A failed call makes the writer fail from then on (`PICOMCP_STATUS_WRITER_STATE` from
/// every call and from `finish`), so a half-written document is never used by mistake.
///
/// # Safety
/// `w` must be NULL or point to a writable `picomcp_writer`; `buf` must point to `cap`
/// writable bytes that stay valid and unused by anything else until `finish`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_writer_init(
    w: *mut picomcp_writer,
    buf: *mut c_char,
    cap: usize,
) -> picomcp_status {
    boundary(|| {
        // SAFETY: caller contract.
        let (w, b) = unsafe { (out(w)?, out_bytes(buf.cast(), cap)?) };
        let st = (w as *mut picomcp_writer).cast::<WriterState>();
        // SAFETY: size and alignment checked at compile time; the buffer borrow is
        // `'static` by the caller's promise to keep `buf` alive until `finish`.
        unsafe {
            st.write(WriterState {
                magic: WRITER_LIVE,
                error: 0,
                grammar: Grammar::NEW,
                target: Target::Owned(JsonWriter::new(b)),
            })
        };
        Ok(())
    })
}

/// Writes `{`. `PICOMCP_STATUS_WRITER_STATE` when it does not fit where the
/// document is.
///
/// # Safety
/// `w` must be NULL or point to a `picomcp_writer`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_writer_begin_object(w: *mut picomcp_writer) -> picomcp_status {
    let f = |g: &mut Grammar, jw: &mut JsonWriter<'static>| -> FfiResult {
        g.begin(true)?;
        jw.begin_object();
        Ok(())
    };
    // SAFETY: caller contract.
    unsafe { with_writer(w, f) }
}

/// Writes `}`. `PICOMCP_STATUS_WRITER_STATE` when it does not fit where the
/// document is.
///
/// # Safety
/// `w` must be NULL or point to a `picomcp_writer`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_writer_end_object(w: *mut picomcp_writer) -> picomcp_status {
    let f = |g: &mut Grammar, jw: &mut JsonWriter<'static>| -> FfiResult {
        g.end(true)?;
        jw.end_object();
        Ok(())
    };
    // SAFETY: caller contract.
    unsafe { with_writer(w, f) }
}

/// Writes `[`. `PICOMCP_STATUS_WRITER_STATE` when it does not fit where the
/// document is.
///
/// # Safety
/// `w` must be NULL or point to a `picomcp_writer`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_writer_begin_array(w: *mut picomcp_writer) -> picomcp_status {
    let f = |g: &mut Grammar, jw: &mut JsonWriter<'static>| -> FfiResult {
        g.begin(false)?;
        jw.begin_array();
        Ok(())
    };
    // SAFETY: caller contract.
    unsafe { with_writer(w, f) }
}

/// Writes `]`. `PICOMCP_STATUS_WRITER_STATE` when it does not fit where the
/// document is.
///
/// # Safety
/// `w` must be NULL or point to a `picomcp_writer`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_writer_end_array(w: *mut picomcp_writer) -> picomcp_status {
    let f = |g: &mut Grammar, jw: &mut JsonWriter<'static>| -> FfiResult {
        g.end(false)?;
        jw.end_array();
        Ok(())
    };
    // SAFETY: caller contract.
    unsafe { with_writer(w, f) }
}

/// Writes an object member name (plain UTF-8, escaped for you); the next call writes
/// its value. `PICOMCP_STATUS_WRITER_STATE` when it does not fit where the
/// document is.
///
/// # Safety
/// `w` must be NULL or point to a `picomcp_writer`. The string must be readable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_writer_key(
    w: *mut picomcp_writer,
    key: picomcp_str,
) -> picomcp_status {
    let f = |g: &mut Grammar, jw: &mut JsonWriter<'static>| -> FfiResult {
        // SAFETY: caller contract for the string.
        let k = unsafe { str_arg(key) }?;
        g.key()?;
        jw.key(k);
        Ok(())
    };
    // SAFETY: caller contract.
    unsafe { with_writer(w, f) }
}

/// Writes a string value (plain UTF-8, escaped for you). `PICOMCP_STATUS_WRITER_STATE` when it does not fit where the
/// document is.
///
/// # Safety
/// `w` must be NULL or point to a `picomcp_writer`. The string must be readable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_writer_string(
    w: *mut picomcp_writer,
    text: picomcp_str,
) -> picomcp_status {
    let f = |g: &mut Grammar, jw: &mut JsonWriter<'static>| -> FfiResult {
        // SAFETY: caller contract for the string.
        let t = unsafe { str_arg(text) }?;
        g.value()?;
        jw.string(t);
        Ok(())
    };
    // SAFETY: caller contract.
    unsafe { with_writer(w, f) }
}

/// Writes an integer. `PICOMCP_STATUS_WRITER_STATE` when it does not fit where the
/// document is.
///
/// # Safety
/// `w` must be NULL or point to a `picomcp_writer`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_writer_int(w: *mut picomcp_writer, v: i64) -> picomcp_status {
    let f = |g: &mut Grammar, jw: &mut JsonWriter<'static>| -> FfiResult {
        g.value()?;
        jw.i64(v);
        Ok(())
    };
    // SAFETY: caller contract.
    unsafe { with_writer(w, f) }
}

/// Writes a number; NaN and infinities (not JSON) are written as `null`. `PICOMCP_STATUS_WRITER_STATE` when it does not fit where the
/// document is.
///
/// # Safety
/// `w` must be NULL or point to a `picomcp_writer`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_writer_double(w: *mut picomcp_writer, v: f64) -> picomcp_status {
    let f = |g: &mut Grammar, jw: &mut JsonWriter<'static>| -> FfiResult {
        g.value()?;
        jw.f64(v);
        Ok(())
    };
    // SAFETY: caller contract.
    unsafe { with_writer(w, f) }
}

/// Writes `true` or `false`. `PICOMCP_STATUS_WRITER_STATE` when it does not fit where the
/// document is.
///
/// # Safety
/// `w` must be NULL or point to a `picomcp_writer`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_writer_bool(w: *mut picomcp_writer, v: bool) -> picomcp_status {
    let f = |g: &mut Grammar, jw: &mut JsonWriter<'static>| -> FfiResult {
        g.value()?;
        jw.bool(v);
        Ok(())
    };
    // SAFETY: caller contract.
    unsafe { with_writer(w, f) }
}

/// Writes `null`. `PICOMCP_STATUS_WRITER_STATE` when it does not fit where the
/// document is.
///
/// # Safety
/// `w` must be NULL or point to a `picomcp_writer`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_writer_null(w: *mut picomcp_writer) -> picomcp_status {
    let f = |g: &mut Grammar, jw: &mut JsonWriter<'static>| -> FfiResult {
        g.value()?;
        jw.null();
        Ok(())
    };
    // SAFETY: caller contract.
    unsafe { with_writer(w, f) }
}

/// Writes a JSON value given as text (validated; line breaks between tokens become
/// spaces). Use it to copy a view read with `picomcp_json_get` byte for byte. `PICOMCP_STATUS_WRITER_STATE` when it does not fit where the
/// document is.
///
/// # Safety
/// `w` must be NULL or point to a `picomcp_writer`. The string must be readable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_writer_raw(
    w: *mut picomcp_writer,
    json: picomcp_str,
) -> picomcp_status {
    let f = |g: &mut Grammar, jw: &mut JsonWriter<'static>| -> FfiResult {
        // SAFETY: caller contract for the string.
        let v = unsafe { value(json) }?;
        g.value()?;
        // A validated string has no raw line breaks: copy it as it is (no scan).
        match v.as_str() {
            Some(text) => jw.string_raw(text),
            None => jw.raw(v),
        }
        Ok(())
    };
    // SAFETY: caller contract.
    unsafe { with_writer(w, f) }
}

/// Ends writing. `*out_len` = the document's length in bytes (not NUL-terminated).
/// `PICOMCP_STATUS_BUFFER_TOO_SMALL`: `*out_len` = the size needed (write again into a
/// buffer that large). `PICOMCP_STATUS_WRITER_STATE`: the document is incomplete
/// (unbalanced, a key without its value, nothing written) or an earlier call failed.
/// Either way the writer is finished: initialise it again before reuse.
///
/// # Safety
/// `w` must be NULL or point to a `picomcp_writer`; `out_len` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_writer_finish(
    w: *mut picomcp_writer,
    out_len: *mut usize,
) -> picomcp_status {
    boundary(|| {
        // SAFETY: caller contract.
        let n = unsafe { out(out_len) }?;
        *n = 0;
        // SAFETY: caller contract.
        let st = match unsafe { writer(w) } {
            Ok(st) => st,
            Err(e) => {
                // SAFETY: as above; a failed writer is finished too.
                unsafe { finish_failed(w) };
                return Err(e);
            }
        };
        if matches!(st.target, Target::Borrowed(_)) {
            // A writer lent by picomcp_session_respond_with is finished by the session.
            st.error = picomcp_status::WriterState as i32;
            return Err(picomcp_status::WriterState);
        }
        st.magic = 0;
        // Take the JsonWriter out so its borrow of the buffer ends here.
        let Target::Owned(jw) =
            core::mem::replace(&mut st.target, Target::Owned(JsonWriter::new(&mut [])))
        else {
            return Err(picomcp_status::WriterState);
        };
        if !st.grammar.done || st.grammar.depth != 0 {
            return Err(picomcp_status::WriterState);
        }
        match jw.finish() {
            Ok(len) => {
                *n = len;
                Ok(())
            }
            Err(e) => {
                *n = e.required;
                Err(picomcp_status::BufferTooSmall)
            }
        }
    })
}

/// Marks a writer whose earlier call failed as finished.
///
/// # Safety
/// `w` must be NULL or point to a `picomcp_writer`.
unsafe fn finish_failed(w: *mut picomcp_writer) {
    if w.is_null() {
        return;
    }
    let st = w.cast::<WriterState>();
    // SAFETY: in bounds and aligned (compile-time checks); only the magic is touched.
    unsafe {
        if core::ptr::addr_of!((*st).magic).read() == WRITER_LIVE {
            core::ptr::addr_of_mut!((*st).magic).write(0);
        }
    }
}
