//! JSON without a heap: a validating scanner, zero-copy value views and a bounded writer.
//!
//! - [`Json`] is a validated value borrowed from its text; [`JsonStr`] a string in it.
//! - [`JsonWriter`] builds JSON into a caller buffer.
//! - Typed use goes through serde-json-core: [`Json::deserialize`], [`JsonWriter::serialize`].

mod big;
mod bit_stack;
mod canonical;
mod error;
mod float_text;
mod iter;
mod number;
mod scan;
#[cfg(target_pointer_width = "64")]
pub(crate) mod scan_fast;
mod skip_valid;
mod string;
mod string_stop;
mod value;
mod write;

pub use canonical::{CANONICAL_MAX_DEPTH, CANONICAL_MAX_MEMBERS, write_canonical};
pub use error::{JsonError, JsonErrorKind};
pub use float_text::{F64_TEXT_MAX, format_f64};
pub use iter::{Elements, Members};
pub use scan::{DEFAULT_MAX_DEPTH, MAX_DEPTH_CAP};
pub(crate) use scan::{Scanner, StrSpan};
pub(crate) use string::short_eq;
pub use string::{JsonStr, Unescape};
pub(crate) use value::trim_json_ws;
pub use value::{Json, JsonKind};
pub use write::JsonWriter;
pub(crate) use write::fmt_u64;
