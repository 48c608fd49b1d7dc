//! JSON for C hosts without a JSON library: bounded readers over `picomcp_str` views and a
//! bounded writer into a caller buffer. Both are the core's scanner and writer.
//!
//! Readers take the text of one JSON value (an event's params, a member read earlier) and
//! validate it on every call (linear, no allocation, nesting up to 256), so a view from
//! anywhere is safe to pass. Results are views into the same text: valid as long as it.
//!
//! # Modules
//!
//! This file holds what the other modules share (`value` validates a view, `view` makes
//! one). `read` has the readers, `grammar` the JSON grammar the writer checks each call
//! against, `writer` the writer (also the one `picomcp_session_respond_with` lends to its
//! callback), and `string_view` a string's raw text without a copy; the modules with C
//! functions are declared in the order of `include/picomcp.h`.

use picomcp_core::json::{Json, MAX_DEPTH_CAP};

use crate::boundary::{FfiResult, str_arg};
use crate::status::picomcp_status;
use crate::types::picomcp_str;

// cbindgen writes functions module by module, in declaration order, and the header must
// keep its order: the blank lines stop rustfmt from sorting these declarations.

mod read;

mod grammar;

mod writer;

mod string_view;

pub use read::*;
pub use string_view::*;
pub use writer::*;

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
