//! PEP 249's exception classes, and how an engine error becomes one.
//!
//! `Warning` and `Error` derive from Python's `Exception`; `InterfaceError` and
//! `DatabaseError` from `Error`; `DataError`, `OperationalError`, `IntegrityError`,
//! `InternalError`, `ProgrammingError` and `NotSupportedError` from `DatabaseError`. As
//! teradatasql does, a database error is an `OperationalError` whose message is
//! `[Version 17.20.0.0] [Session n] [Teradata Database] [Error NNNN] text`: tools find the code
//! with a regular expression on `[Error NNNN]`. The code is also the exception's `code`
//! attribute.

use pyo3::exceptions::PyException;
use pyo3::prelude::*;

pyo3::create_exception!(tdlite, Warning, PyException, "PEP 249 Warning.");
pyo3::create_exception!(
    tdlite,
    Error,
    PyException,
    "PEP 249 Error: the base of tdlite's errors."
);
pyo3::create_exception!(tdlite, InterfaceError, Error, "A misuse of the interface.");
pyo3::create_exception!(
    tdlite,
    DatabaseError,
    Error,
    "An error the database reported."
);
pyo3::create_exception!(tdlite, DataError, DatabaseError, "PEP 249 DataError.");
pyo3::create_exception!(
    tdlite,
    OperationalError,
    DatabaseError,
    "A database error, with its Teradata error code (teradatasql's class for them)."
);
pyo3::create_exception!(
    tdlite,
    IntegrityError,
    DatabaseError,
    "PEP 249 IntegrityError."
);
pyo3::create_exception!(
    tdlite,
    InternalError,
    DatabaseError,
    "PEP 249 InternalError."
);
pyo3::create_exception!(
    tdlite,
    ProgrammingError,
    DatabaseError,
    "PEP 249 ProgrammingError."
);
pyo3::create_exception!(
    tdlite,
    NotSupportedError,
    DatabaseError,
    "PEP 249 NotSupportedError."
);

/// The Teradata release tdlite follows, as teradatasql's messages name the server's.
const VERSION: &str = "17.20.0.0";

/// Adds the exception classes to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("Warning", py.get_type::<Warning>())?;
    m.add("Error", py.get_type::<Error>())?;
    m.add("InterfaceError", py.get_type::<InterfaceError>())?;
    m.add("DatabaseError", py.get_type::<DatabaseError>())?;
    m.add("DataError", py.get_type::<DataError>())?;
    m.add("OperationalError", py.get_type::<OperationalError>())?;
    m.add("IntegrityError", py.get_type::<IntegrityError>())?;
    m.add("InternalError", py.get_type::<InternalError>())?;
    m.add("ProgrammingError", py.get_type::<ProgrammingError>())?;
    m.add("NotSupportedError", py.get_type::<NotSupportedError>())?;
    Ok(())
}

/// A database error as teradatasql raises it: `OperationalError`, the Teradata `code` in the
/// message and as the `code` attribute; `text` is the error's own message.
pub(crate) fn database_error(py: Python<'_>, session: u64, code: u32, text: &str) -> PyErr {
    let message = format!(
        "[Version {VERSION}] [Session {session}] [Teradata Database] [Error {code}] {text}"
    );
    let err = OperationalError::new_err(message);
    // the attribute is a convenience: a failure to set it leaves the message, which has it
    let _ = err.value(py).setattr("code", code);
    err
}

/// An engine error of session `session` (`database_error` with its code and message).
pub(crate) fn engine_error(py: Python<'_>, session: u64, e: &tdlite::PositionedError) -> PyErr {
    database_error(py, session, e.code().number, &e.to_string())
}

/// A connection to a server that failed (refused, lost, or a server that spoke out of turn).
pub(crate) fn connection(message: impl Into<String>) -> PyErr {
    OperationalError::new_err(message.into())
}

/// A misuse of the interface (a closed connection or cursor, a bad argument).
pub(crate) fn interface(message: impl Into<String>) -> PyErr {
    InterfaceError::new_err(message.into())
}

/// A feature tdlite does not have.
pub(crate) fn not_supported(message: impl Into<String>) -> PyErr {
    NotSupportedError::new_err(message.into())
}

/// A value that cannot be represented (a date beyond Python's range, say).
pub(crate) fn data(message: impl Into<String>) -> PyErr {
    DataError::new_err(message.into())
}

/// Something that should not happen did (a bug in tdlite).
pub(crate) fn internal(message: impl Into<String>) -> PyErr {
    InternalError::new_err(message.into())
}

/// A call that needs a result to fetch from when there is none.
pub(crate) fn programming(message: impl Into<String>) -> PyErr {
    ProgrammingError::new_err(message.into())
}
