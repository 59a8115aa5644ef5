//! `tdlite` for Python: the engine in-process behind a DB-API 2.0 (PEP 249) module shaped like
//! Teradata's `teradatasql` driver, so that code written for Teradata runs on tdlite in a test.
//!
//! This crate is the native module `tdlite._native`; the package `tdlite` around it
//! (`python/tdlite`: the re-exports, the teradatasql shim, type stubs) is Python.
//! The module: `connect`, `Database`, the PEP 249 globals and exception classes (errors.rs), `Connection`
//! (connection.rs), `Cursor` (cursor.rs), the session behind them, here or on a `tdlite serve`
//! (backend.rs), and the conversions between Python values and tdlite's (values.rs). Built with maturin (pyproject.toml); the tests are Python's
//! (`crates/python/tests`, run by `.ci/python-tests`).
//!
//! Invariant: every engine error reaches Python as an exception of the PEP 249 hierarchy whose
//! message carries `[Error NNNN]` and whose `code` attribute is the Teradata error number; no
//! Rust panic crosses into Python.

use pyo3::prelude::*;

mod arrow_stream;
mod backend;
mod connection;
mod cursor;
mod errors;
mod escapes;
mod values;

/// The native module `tdlite._native`; the package `tdlite` (python/tdlite) re-exports it.
#[pymodule]
#[pyo3(name = "_native")]
fn tdlite_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("apilevel", "2.0")?;
    // connections may be shared between threads (each call holds its session's lock)
    m.add("threadsafety", 2)?;
    m.add("paramstyle", "qmark")?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(connection::connect, m)?)?;
    m.add_class::<connection::Connection>()?;
    m.add_class::<connection::SharedDatabase>()?;
    m.add_class::<cursor::Cursor>()?;
    m.add_class::<arrow_stream::ArrowStream>()?;
    errors::register(m)?;
    Ok(())
}
