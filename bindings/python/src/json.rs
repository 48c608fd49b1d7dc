//! JSON across the boundary: the core's validated views become Python values through the
//! standard `json` module (one C-accelerated parse of text the core already validated), and
//! Python values become JSON text that the core validates again before sending.

use picomcp::json::Json;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

/// `json.loads` and `json.dumps`, looked up once per session.
pub(crate) struct Codec {
    loads: Py<PyAny>,
    dumps: Py<PyAny>,
}

impl Codec {
    pub(crate) fn new(py: Python<'_>) -> PyResult<Self> {
        let json = py.import("json")?;
        Ok(Codec {
            loads: json.getattr("loads")?.unbind(),
            dumps: json.getattr("dumps")?.unbind(),
        })
    }

    /// The Python value of a validated JSON view. An integer too long for Python's
    /// int-from-string limit (4300 digits by default) becomes a float (`inf` when out of
    /// range) rather than an error: the peer's text is valid JSON.
    /// Another handle on the same functions (to convert values without holding the
    /// object that owns this codec).
    pub(crate) fn clone_ref(&self, py: Python<'_>) -> Self {
        Codec {
            loads: self.loads.clone_ref(py),
            dumps: self.dumps.clone_ref(py),
        }
    }

    pub(crate) fn value(&self, py: Python<'_>, v: Json<'_>) -> PyResult<Py<PyAny>> {
        let loads = self.loads.bind(py);
        match loads.call1((v.as_raw(),)) {
            Ok(value) => Ok(value.unbind()),
            Err(e) if e.is_instance_of::<pyo3::exceptions::PyValueError>(py) => {
                let kwargs = pyo3::types::PyDict::new(py);
                kwargs.set_item("parse_int", pyo3::wrap_pyfunction!(parse_int, py)?)?;
                Ok(loads.call((v.as_raw(),), Some(&kwargs))?.unbind())
            }
            Err(e) => Err(e),
        }
    }

    /// JSON text for any Python value (`str` becomes a JSON string). Compact, UTF-8, and
    /// NaN/Infinity are refused (they are not JSON).
    pub(crate) fn value_text(&self, py: Python<'_>, obj: &Bound<'_, PyAny>) -> PyResult<String> {
        let kwargs = pyo3::types::PyDict::new(py);
        kwargs.set_item("ensure_ascii", false)?;
        kwargs.set_item("allow_nan", false)?;
        kwargs.set_item("separators", (",", ":"))?;
        self.dumps
            .bind(py)
            .call((obj,), Some(&kwargs))?
            .extract::<String>()
    }

    /// JSON text for a value that must be an object (a result, params): a `dict` (or any
    /// value `json.dumps` takes), or `str`/`bytes` already holding JSON text.
    pub(crate) fn object_text(&self, py: Python<'_>, obj: &Bound<'_, PyAny>) -> PyResult<String> {
        if let Ok(s) = obj.cast::<PyString>() {
            return s.extract::<String>();
        }
        if let Ok(b) = obj.cast::<PyBytes>() {
            return String::from_utf8(b.as_bytes().to_vec())
                .map_err(|_| PyValueError::new_err("JSON text must be UTF-8"));
        }
        self.value_text(py, obj)
    }
}

/// `json.loads`'s `parse_int` for text holding an integer too long for `int()`: that one
/// becomes a float, every other integer stays an `int`.
#[pyfunction]
fn parse_int(py: Python<'_>, digits: &str) -> PyResult<Py<PyAny>> {
    let int = py.get_type::<pyo3::types::PyInt>().call1((digits,));
    match int {
        Ok(v) => Ok(v.unbind()),
        Err(_) => Ok(py
            .get_type::<pyo3::types::PyFloat>()
            .call1((digits,))?
            .unbind()),
    }
}

/// Validates JSON text with the core's scanner (RFC 8259, the session's depth limit).
pub(crate) fn validate(text: &str, max_depth: usize) -> PyResult<Json<'_>> {
    Json::with_max_depth(text, max_depth)
        .map_err(|e| PyValueError::new_err(format!("invalid JSON: {e}")))
}

/// Validates JSON text that must be an object.
pub(crate) fn validate_object<'t>(
    text: &'t str,
    max_depth: usize,
    what: &str,
) -> PyResult<Json<'t>> {
    let v = validate(text, max_depth)?;
    if !v.is_object() {
        return Err(PyValueError::new_err(format!(
            "{what} must be a JSON object"
        )));
    }
    Ok(v)
}
