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
    QueueFull,
    PicomcpError,
    "The transmit queue has no room: write out `poll_transmit()` and try again."
);

pub(crate) fn send(e: picomcp::session::SendError) -> PyErr {
    match e {
        picomcp::session::SendError::Full(_) => QueueFull::new_err(e.to_string()),
        _ => SendError::new_err(e.to_string()),
    }
}

pub(crate) fn respond(e: picomcp::session::RespondError) -> PyErr {
    match e {
        picomcp::session::RespondError::Full(_) => QueueFull::new_err(e.to_string()),
        _ => RespondError::new_err(e.to_string()),
    }
}
