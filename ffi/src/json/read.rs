//! The readers: one JSON value's text in (validated on every call, so a view from
//! anywhere is safe), views into the same text out: a value's type, a member by key or
//! by JSON Pointer, an element or member by index, a length, and numbers, booleans and
//! strings (decoded into a caller buffer, or compared without decoding).

use core::ffi::c_char;

use picomcp_core::json::{Json, JsonKind};

use crate::boundary::{boundary, out, out_bytes, str_arg};
use crate::status::picomcp_status;
use crate::types::{picomcp_json_type, picomcp_str};

use super::{value, view};

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
