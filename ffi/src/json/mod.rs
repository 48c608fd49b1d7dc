//! JSON for C hosts without a JSON library: bounded readers over `picomcp_str` views and a
//! bounded writer into a caller buffer. Both are the core's scanner and writer.
//!
//! Readers take the text of one JSON value (an event's params, a member read earlier) and
//! validate it on every call (linear, no allocation, nesting up to 256), so a view from
//! anywhere is safe to pass. Results are views into the same text: valid as long as it.

use core::ffi::c_char;
use core::mem::{align_of, size_of};

use picomcp_core::json::{Json, JsonKind, JsonWriter, MAX_DEPTH_CAP};

use crate::boundary::{FfiResult, boundary, out, out_bytes, str_arg};
use crate::status::picomcp_status;
use crate::types::{picomcp_json_type, picomcp_str};

/// Validates a JSON view.
///
/// # Safety
/// As [`str_arg`].
unsafe fn value<'a>(s: picomcp_str) -> FfiResult<Json<'a>> {
    // SAFETY: forwarded caller contract.
    let t = unsafe { str_arg(s) }?;
    Json::with_max_depth(t, MAX_DEPTH_CAP).map_err(|_| picomcp_status::InvalidJson)
}

fn view(j: Json<'_>) -> picomcp_str {
    picomcp_str::new(j.as_raw())
}

/// Checks that `json` is one valid JSON value (RFC 8259; surrounding whitespace allowed,
/// nesting up to 256): `PICOMCP_STATUS_OK` or `PICOMCP_STATUS_INVALID_JSON`.
///
/// # Safety
/// `json.ptr` must point to `json.len` readable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_json_validate(json: picomcp_str) -> picomcp_status {
    // SAFETY: caller contract.
    boundary(|| unsafe { value(json) }.map(|_| ()))
}

/// `*out` = the type of the value (a `picomcp_json_type`).
///
/// # Safety
/// `json` must be readable; `out` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_json_kind(
    json: picomcp_str,
    out_type: *mut u32,
) -> picomcp_status {
    boundary(|| {
        // SAFETY: caller contract.
        let (o, v) = unsafe { (out(out_type)?, value(json)?) };
        *o = type_of(v) as u32;
        Ok(())
    })
}

/// `*out` = the value of member `key` of the object `json` (compared after unescaping;
/// the first match wins). `PICOMCP_STATUS_NOT_FOUND` when there is no such member,
/// `PICOMCP_STATUS_WRONG_TYPE` when `json` is not an object.
///
/// # Safety
/// `json` and `key` must be readable; `out` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_json_get(
    json: picomcp_str,
    key: picomcp_str,
    out_value: *mut picomcp_str,
) -> picomcp_status {
    boundary(|| {
        // SAFETY: caller contract.
        let (o, v, k) = unsafe { (out(out_value)?, value(json)?, str_arg(key)?) };
        *o = picomcp_str::NONE;
        if !v.is_object() {
            return Err(picomcp_status::WrongType);
        }
        *o = view(v.get(k).ok_or(picomcp_status::NotFound)?);
        Ok(())
    })
}

/// `*out_value` = the value a JSON Pointer (RFC 6901) names in `json`, e.g.
/// `"/arguments/text"` or `"/content/0/type"` (`""` is the whole value; `~1` stands for
/// `/` and `~0` for `~` in names). `*out_type` (may be NULL) = its `picomcp_json_type`.
/// The text is validated once for the whole path, so this is the cheap way to reach a
/// nested value. `PICOMCP_STATUS_NOT_FOUND` when a step names no member or element,
/// `PICOMCP_STATUS_WRONG_TYPE` when a step goes into a string, number, `true`, `false` or
/// `null`, `PICOMCP_STATUS_INVALID_ARGUMENT` for a malformed pointer.
///
/// # Safety
/// `json` and `pointer` must be readable; `out_value` writable; `out_type` NULL or
/// writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_json_pointer(
    json: picomcp_str,
    pointer: picomcp_str,
    out_value: *mut picomcp_str,
    out_type: *mut u32,
) -> picomcp_status {
    boundary(|| {
        // SAFETY: caller contract.
        let (o, mut v, p) = unsafe { (out(out_value)?, value(json)?, str_arg(pointer)?) };
        *o = picomcp_str::NONE;
        if !p.is_empty() && !p.starts_with('/') {
            return Err(picomcp_status::InvalidArgument);
        }
        let mut token = [0u8; 256];
        for raw in p.split('/').skip(1) {
            // Unescape ~1 and ~0 (in that order, as RFC 6901 says) into `token`.
            let t = if raw.contains('~') {
                let mut n = 0;
                let mut bytes = raw.bytes();
                while let Some(c) = bytes.next() {
                    let b = if c == b'~' {
                        match bytes.next() {
                            Some(b'0') => b'~',
                            Some(b'1') => b'/',
                            _ => return Err(picomcp_status::InvalidArgument),
                        }
                    } else {
                        c
                    };
                    *token.get_mut(n).ok_or(picomcp_status::InvalidArgument)? = b;
                    n += 1;
                }
                core::str::from_utf8(&token[..n]).map_err(|_| picomcp_status::InvalidArgument)?
            } else {
                raw
            };
            v = match v.kind() {
                JsonKind::Object => v.get(t).ok_or(picomcp_status::NotFound)?,
                JsonKind::Array => {
                    let canonical = !t.is_empty()
                        && t.bytes().all(|c| c.is_ascii_digit())
                        && (t == "0" || !t.starts_with('0'));
                    let i: usize = if canonical { t.parse().ok() } else { None }
                        .ok_or(picomcp_status::NotFound)?;
                    v.elements().nth(i).ok_or(picomcp_status::NotFound)?
                }
                _ => return Err(picomcp_status::WrongType),
            };
        }
        *o = view(v);
        // SAFETY: caller contract (NULL allowed).
        if let Some(t) = unsafe { out_type.as_mut() } {
            *t = type_of(v) as u32;
        }
        Ok(())
    })
}

fn type_of(v: Json<'_>) -> picomcp_json_type {
    match v.kind() {
        JsonKind::Null => picomcp_json_type::Null,
        JsonKind::Bool => picomcp_json_type::Bool,
        JsonKind::Number => picomcp_json_type::Number,
        JsonKind::String => picomcp_json_type::String,
        JsonKind::Array => picomcp_json_type::Array,
        JsonKind::Object => picomcp_json_type::Object,
    }
}

/// `*out` = element `index` of the array `json`. `PICOMCP_STATUS_NOT_FOUND` past the end,
/// `PICOMCP_STATUS_WRONG_TYPE` when `json` is not an array.
///
/// # Safety
/// `json` must be readable; `out` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_json_at(
    json: picomcp_str,
    index: usize,
    out_value: *mut picomcp_str,
) -> picomcp_status {
    boundary(|| {
        // SAFETY: caller contract.
        let (o, v) = unsafe { (out(out_value)?, value(json)?) };
        *o = picomcp_str::NONE;
        if v.kind() != JsonKind::Array {
            return Err(picomcp_status::WrongType);
        }
        *o = view(v.elements().nth(index).ok_or(picomcp_status::NotFound)?);
        Ok(())
    })
}

/// `*out_key` and `*out_value` = member `index` of the object `json`, in order. The key is
/// a JSON string value (quotes included: read it with `picomcp_json_string`).
/// `PICOMCP_STATUS_NOT_FOUND` past the end, `PICOMCP_STATUS_WRONG_TYPE` for a non-object.
///
/// # Safety
/// `json` must be readable; the out pointers writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_json_member_at(
    json: picomcp_str,
    index: usize,
    out_key: *mut picomcp_str,
    out_value: *mut picomcp_str,
) -> picomcp_status {
    boundary(|| {
        // SAFETY: caller contract.
        let (ok, ov, v) = unsafe { (out(out_key)?, out(out_value)?, value(json)?) };
        *ok = picomcp_str::NONE;
        *ov = picomcp_str::NONE;
        if !v.is_object() {
            return Err(picomcp_status::WrongType);
        }
        let (k, val) = v.members().nth(index).ok_or(picomcp_status::NotFound)?;
        // The key body is a sub-slice of the text; widen it by its quotes.
        let text = v.as_raw();
        let start = (k.raw().as_ptr() as usize) - (text.as_ptr() as usize);
        let quoted = text
            .get(start - 1..start + k.raw().len() + 1)
            .ok_or(picomcp_status::InvalidJson)?;
        *ok = picomcp_str::new(quoted);
        *ov = view(val);
        Ok(())
    })
}

/// `*out` = the number of elements of an array or members of an object.
/// `PICOMCP_STATUS_WRONG_TYPE` for other values.
///
/// # Safety
/// `json` must be readable; `out` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_json_len(
    json: picomcp_str,
    out_len: *mut usize,
) -> picomcp_status {
    boundary(|| {
        // SAFETY: caller contract.
        let (o, v) = unsafe { (out(out_len)?, value(json)?) };
        *o = match v.kind() {
            JsonKind::Array => v.elements().count(),
            JsonKind::Object => v.members().count(),
            _ => return Err(picomcp_status::WrongType),
        };
        Ok(())
    })
}

/// `*out` = the number as a double (huge exponents give infinity).
/// `PICOMCP_STATUS_WRONG_TYPE` when `json` is not a number.
///
/// # Safety
/// `json` must be readable; `out` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_json_number(
    json: picomcp_str,
    out_value: *mut f64,
) -> picomcp_status {
    boundary(|| {
        // SAFETY: caller contract.
        let (o, v) = unsafe { (out(out_value)?, value(json)?) };
        *o = v.as_f64().ok_or(picomcp_status::WrongType)?;
        Ok(())
    })
}

/// `*out` = the number as a 64-bit integer. `PICOMCP_STATUS_WRONG_TYPE` when `json` is not
/// a number written as an integer (no fraction, no exponent), `PICOMCP_STATUS_OUT_OF_RANGE`
/// when it does not fit.
///
/// # Safety
/// `json` must be readable; `out` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_json_int(
    json: picomcp_str,
    out_value: *mut i64,
) -> picomcp_status {
    boundary(|| {
        // SAFETY: caller contract.
        let (o, v) = unsafe { (out(out_value)?, value(json)?) };
        if !v.is_integer() {
            return Err(picomcp_status::WrongType);
        }
        *o = v.as_i64().ok_or(picomcp_status::OutOfRange)?;
        Ok(())
    })
}

/// `*out` = the boolean. `PICOMCP_STATUS_WRONG_TYPE` when `json` is not `true`/`false`.
///
/// # Safety
/// `json` must be readable; `out` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_json_bool(
    json: picomcp_str,
    out_value: *mut bool,
) -> picomcp_status {
    boundary(|| {
        // SAFETY: caller contract.
        let (o, v) = unsafe { (out(out_value)?, value(json)?) };
        *o = v.as_bool().ok_or(picomcp_status::WrongType)?;
        Ok(())
    })
}

/// Decodes the string `json` (escapes resolved) into `buf` with a terminating NUL.
/// `*out_len` = the decoded length in bytes (without the NUL).
///
/// `PICOMCP_STATUS_BUFFER_TOO_SMALL`: `cap` is less than the decoded length + 1;
/// `*out_len` = the capacity needed (decoded length + 1) and `buf` is left as it was.
/// `PICOMCP_STATUS_WRONG_TYPE` when `json` is not a string. The text may contain NUL
/// characters (`\u0000`); use `*out_len`, not `strlen`, when that matters.
///
/// # Safety
/// `json` must be readable; `buf` must point to `cap` writable bytes (NULL with `cap` 0);
/// `out_len` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_json_string(
    json: picomcp_str,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> picomcp_status {
    boundary(|| {
        // SAFETY: caller contract.
        let (n, v, b) = unsafe { (out(out_len)?, value(json)?, out_bytes(buf.cast(), cap)?) };
        let s = v.as_str().ok_or(picomcp_status::WrongType)?;
        let need = s.decoded_len();
        if need >= b.len() {
            *n = need + 1;
            return Err(picomcp_status::BufferTooSmall);
        }
        let t = s
            .unescape_into(&mut b[..need])
            .map_err(|_| picomcp_status::BufferTooSmall)?;
        let len = t.len();
        b[len] = 0;
        *n = len;
        Ok(())
    })
}

/// `*out_equal` = whether the string `json`, decoded, equals `text` byte for byte (no
/// copy). `PICOMCP_STATUS_WRONG_TYPE` when `json` is not a string.
///
/// # Safety
/// `json` and `text` must be readable; `out_equal` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_json_string_eq(
    json: picomcp_str,
    text: picomcp_str,
    out_equal: *mut bool,
) -> picomcp_status {
    boundary(|| {
        // SAFETY: caller contract.
        let (o, v, t) = unsafe { (out(out_equal)?, value(json)?, str_arg(text)?) };
        *o = v.as_str().ok_or(picomcp_status::WrongType)?.eq_str(t);
        Ok(())
    })
}

// ---------------------------------------------------------------------------------------
// The writer
// ---------------------------------------------------------------------------------------

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
/// Deepest nesting the writer accepts.
const WRITER_MAX_DEPTH: usize = 128;

/// Where the writer is in the document.
struct Grammar {
    /// One bit per open container: 1 = object, 0 = array.
    kinds: [u64; WRITER_MAX_DEPTH / 64],
    depth: usize,
    /// A key was written; its value comes next.
    after_key: bool,
    /// The top-level value is complete.
    done: bool,
    /// The top-level value is an object.
    root_object: bool,
}

impl Grammar {
    fn in_object(&self) -> bool {
        self.depth > 0 && self.kinds[(self.depth - 1) / 64] >> ((self.depth - 1) % 64) & 1 == 1
    }
    /// A value may be written here.
    fn value(&mut self) -> FfiResult {
        let ok = if self.depth == 0 {
            !self.done
        } else {
            !self.in_object() || self.after_key
        };
        if !ok {
            return Err(picomcp_status::WriterState);
        }
        self.after_key = false;
        if self.depth == 0 {
            self.done = true;
        }
        Ok(())
    }
    fn begin(&mut self, object: bool) -> FfiResult {
        if self.depth == WRITER_MAX_DEPTH {
            return Err(picomcp_status::WriterState);
        }
        if self.depth == 0 {
            self.root_object = object;
        }
        self.value()?;
        self.done = false;
        let (w, b) = (self.depth / 64, self.depth % 64);
        self.kinds[w] = (self.kinds[w] & !(1 << b)) | (u64::from(object) << b);
        self.depth += 1;
        Ok(())
    }
    fn end(&mut self, object: bool) -> FfiResult {
        if self.depth == 0 || self.in_object() != object || self.after_key {
            return Err(picomcp_status::WriterState);
        }
        self.depth -= 1;
        self.done = self.depth == 0;
        Ok(())
    }
    fn key(&mut self) -> FfiResult {
        if !self.in_object() || self.after_key {
            return Err(picomcp_status::WriterState);
        }
        self.after_key = true;
        Ok(())
    }
}

impl Grammar {
    const NEW: Grammar = Grammar {
        kinds: [0; WRITER_MAX_DEPTH / 64],
        depth: 0,
        after_key: false,
        done: false,
        root_object: false,
    };
}

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

/// Reads `text` from a JSON string `picomcp_str` given as input: a convenience for C code
/// that wants a view with no copy when the string has no escapes. `*out_text` = the raw
/// body between the quotes, `*out_escaped` = whether it contains escapes (then decode it
/// with `picomcp_json_string`). `PICOMCP_STATUS_WRONG_TYPE` when `json` is not a string.
///
/// # Safety
/// `json` must be readable; the out pointers writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_json_string_view(
    json: picomcp_str,
    out_text: *mut picomcp_str,
    out_escaped: *mut bool,
) -> picomcp_status {
    boundary(|| {
        // SAFETY: caller contract.
        let (t, e, v) = unsafe { (out(out_text)?, out(out_escaped)?, value(json)?) };
        let s = v.as_str().ok_or(picomcp_status::WrongType)?;
        *t = picomcp_str::new(s.raw());
        *e = s.is_escaped();
        Ok(())
    })
}
