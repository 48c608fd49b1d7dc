//! Exceptions. A caller mistake raises; a misbehaving peer is an event, never an exception.

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

create_exception!(
    picomcp,
    PicomcpError,
    PyException,
    "Base class of every picomcp exception."
);
create_exception!(
    picomcp,
    ConfigError,
    PicomcpError,
    "The session configuration is invalid (raised by `Session(...)`)."
);
create_exception!(
    picomcp,
    SendError,
    PicomcpError,
    "A request, notification, log or progress message cannot be sent now (wrong phase, \
     direction, capability or version; unknown request). Nothing was queued."
);
create_exception!(
    picomcp,
    RespondError,
    PicomcpError,
    "A request cannot be answered that way (unknown or finished request, result not an \
     object, reserved error code). Nothing was queued."
);
create_exception!(
    picomcp,
    ResultError,
    PicomcpError,
    "The server layer refused an answer (structured content that does not match the \
     tool's outputSchema or is missing, a content block the negotiated revision lacks, an \
     unknown definition). Nothing was queued: answer again. `kind` names the reason \
     (`\"InvalidStructured\"`, `\"MissingStructured\"`, `\"NotInRevision\"`, \
     `\"UnknownDefinition\"`, `\"InvalidContent\"`)."
);
create_exception!(
    picomcp,
    QueueFull,
    PicomcpError,
    "The transmit queue has no room: write out `poll_transmit()` and try again."
);

/// The name of the Rust variant of an error (its `Debug` form up to the first
/// parenthesis, space or brace): `"NotNegotiated"`, `"Full"`, `"InvalidStructured"`.
fn variant(e: &impl core::fmt::Debug) -> String {
    let d = format!("{e:?}");
    d.split(['(', ' ', '{']).next().unwrap_or("").to_owned()
}

/// `err` with the attribute `kind` set to the Rust variant name of `e` (what the shared
/// test vectors name; the message is for people).
fn with_kind(err: PyErr, e: &impl core::fmt::Debug) -> PyErr {
    Python::attach(|py| {
        // Setting an attribute on a fresh exception instance does not fail in practice;
        // if it did, the exception is still the right one.
        let _ = err.value(py).setattr("kind", variant(e));
    });
    err
}

pub(crate) fn send(e: picomcp::session::SendError) -> PyErr {
    let err = match e {
        picomcp::session::SendError::Full(_) => QueueFull::new_err(e.to_string()),
        _ => SendError::new_err(e.to_string()),
    };
    with_kind(err, &e)
}

pub(crate) fn respond(e: picomcp::session::RespondError) -> PyErr {
    let err = match e {
        picomcp::session::RespondError::Full(_) => QueueFull::new_err(e.to_string()),
        _ => RespondError::new_err(e.to_string()),
    };
    with_kind(err, &e)
}

/// A [`picomcp::server::ResultError`] other than a session refusal.
pub(crate) fn result(_py: Python<'_>, e: picomcp::server::ResultError) -> PyErr {
    with_kind(ResultError::new_err(e.to_string()), &e)
}
