//! What a protocol revision changes (`picomcp_version_has`): the core's feature table
//! (`picomcp::protocol::FEATURES`), whose rows are the generated `picomcp_feature` values.
//! Ask it instead of comparing revision numbers.

use picomcp_core::protocol::FEATURES;

use crate::boundary::{boundary, out};
use crate::convert::version_from_c;
use crate::status::picomcp_status;
use crate::types::picomcp_str;

/// `*out_value` = whether protocol revision `version` (one `picomcp_version` bit, e.g. from
/// `picomcp_session_version`) has `feature` (a `picomcp_feature`): for example whether
/// tools may carry an `outputSchema` (`PICOMCP_FEATURE_OUTPUT_SCHEMA`), or whether bad
/// tool arguments are answered with an `isError` result instead of -32602
/// (`PICOMCP_FEATURE_ARGUMENT_ERRORS_AS_TOOL_RESULTS`).
///
/// Returns `PICOMCP_STATUS_INVALID_ARGUMENT` when `version` is not exactly one known
/// revision bit or `feature` is not a `picomcp_feature`.
///
/// # Safety
/// `out_value` must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_version_has(
    version: u32,
    feature: u32,
    out_value: *mut bool,
) -> picomcp_status {
    boundary(|| {
        // SAFETY: the caller guarantees `out_value` is writable.
        let out_value = unsafe { out(out_value) }?;
        let v = version_from_c(version)?;
        let spec = FEATURES
            .get(feature as usize)
            .ok_or(picomcp_status::InvalidArgument)?;
        *out_value = spec.versions.contains(v);
        Ok(())
    })
}

/// `*out_value` = the stable name of `feature` (a `picomcp_feature`), e.g.
/// `"output_schema"` (static storage: valid forever); the Python and Node bindings use the
/// same names.
///
/// # Safety
/// `out_value` must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_feature_name(
    feature: u32,
    out_value: *mut picomcp_str,
) -> picomcp_status {
    boundary(|| {
        // SAFETY: the caller guarantees `out_value` is writable.
        let out_value = unsafe { out(out_value) }?;
        let spec = FEATURES
            .get(feature as usize)
            .ok_or(picomcp_status::InvalidArgument)?;
        *out_value = picomcp_str::new(spec.name);
        Ok(())
    })
}
