//! `picomcp._native`: the picomcp core session for Python.
//!
//! A thin wrapper: every byte goes through [`picomcp::session::Session`]; nothing here
//! parses JSON-RPC or tracks the lifecycle. What crosses the boundary is copied into owned
//! Python objects (events, JSON values), as the core's borrowed views live only until the
//! next call on the session. The pure-Python package `picomcp` re-exports these names and
//! adds the stdio server helper.

use picomcp::protocol::{FEATURES, Features, ProtocolVersion};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

mod errors;
mod event;
mod http;
mod json;
mod server;
mod session;

/// The names of the features protocol revision `version` has (`"output_schema"`,
/// `"argument_errors_as_tool_results"`, ...; every name is in `FEATURES`): the core's
/// table of what each revision changes. Ask it instead of comparing revisions.
#[pyfunction]
fn features(version: &str) -> PyResult<Vec<&'static str>> {
    let v = ProtocolVersion::parse(version)
        .ok_or_else(|| PyValueError::new_err(format!("unknown protocol version {version:?}")))?;
    Ok(Features::of(v).iter().map(|f| f.name()).collect())
}

/// Whether `target` (an absolute path or a `file:` URI) lies inside one of `roots` (the
/// `file:` URIs of the client's `roots/list`): the index of the first root that contains
/// it, or `None`. The core's rules (`picomcp::uri::roots`): `..` may not leave the root,
/// `%2e%2e` is `..`, a `%2F` inside a name, NUL, bad escapes, a foreign host or a query
/// raise `ValueError` (so does an invalid root when no valid one contains the target).
/// `case_insensitive` compares names ignoring case; `windows` adds `\` separators and
/// drive letters.
#[pyfunction]
#[pyo3(signature = (roots, target, case_insensitive = false, windows = false))]
fn roots_contain(
    roots: Vec<String>,
    target: &str,
    case_insensitive: bool,
    windows: bool,
) -> PyResult<Option<usize>> {
    let rules = picomcp::uri::roots::PathRules {
        case_insensitive,
        windows,
    };
    picomcp::uri::roots::contains(roots.iter().map(String::as_str), target, rules)
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<session::Session>()?;
    m.add_class::<event::Event>()?;
    m.add_class::<server::ServerLayer>()?;
    m.add_class::<server::Call>()?;
    m.add_class::<http::Endpoint>()?;
    m.add_class::<http::Outcome>()?;
    m.add("ENTROPY_LEN", picomcp::http::endpoint::ENTROPY_LEN)?;
    m.add("PicomcpError", py.get_type::<errors::PicomcpError>())?;
    m.add("ConfigError", py.get_type::<errors::ConfigError>())?;
    m.add("SendError", py.get_type::<errors::SendError>())?;
    m.add("RespondError", py.get_type::<errors::RespondError>())?;
    m.add("QueueFull", py.get_type::<errors::QueueFull>())?;
    m.add("ResultError", py.get_type::<errors::ResultError>())?;
    m.add(
        "PROTOCOL_VERSIONS",
        picomcp::protocol::ProtocolVersion::ALL.map(|v| v.as_str()),
    )?;
    m.add(
        "FEATURES",
        FEATURES.iter().map(|f| f.name).collect::<Vec<_>>(),
    )?;
    m.add_function(wrap_pyfunction!(features, m)?)?;
    m.add_function(wrap_pyfunction!(roots_contain, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
