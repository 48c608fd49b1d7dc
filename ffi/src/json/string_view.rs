//! A JSON string's raw text without a copy: `picomcp_json_string_view` gives the body
//! between the quotes and whether it has escapes (then `picomcp_json_string` decodes it).

use crate::boundary::{boundary, out};
use crate::status::picomcp_status;
use crate::types::picomcp_str;

use super::value;

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
