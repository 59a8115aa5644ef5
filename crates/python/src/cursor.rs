//! `Cursor`: runs requests on its connection's session and hands out their rows.
//!
//! `execute(sql, params)` runs one request (`?` markers take `params`, a sequence; mappings are
//! refused, as teradatasql refuses them) with Python's GIL released, so other threads run while
//! a consume waits. A request of several statements has one result per statement: the cursor
//! starts on the first and `nextset()` moves on. Rows are lists (as teradatasql's);
//! `description` has seven-item lists, the type code a Python type (`int`, `float`,
//! `decimal.Decimal`, `str`, `bytes`, `datetime.date|time|datetime`); `rowcount` is the
//! statement's activity count (rows returned or changed), -1 before any request.
//!
//! Invariant: a closed cursor (or one of a closed connection) refuses every call with an error,
//! and a failed request leaves no result behind (`rowcount` -1).

use crate::backend::{Answer, Failure};
use crate::connection::{failure, lock, Connection, Shared};
use crate::errors;
use crate::values;
use pyo3::exceptions::PyStopIteration;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyMapping, PyString};
use tdlite::arrow::datatypes::DataType;
use tdlite::Value;

/// A DB-API cursor.
#[pyclass(module = "tdlite")]
pub struct Cursor {
    connection: Py<Connection>,
    state: Shared,
    /// The results of the last request, one per statement; `None` before any.
    results: Option<Vec<Answer>>,
    /// The result the cursor is on.
    current: usize,
    /// The next row of that result.
    row: usize,
    rowcount: i64,
    arraysize: usize,
    closed: bool,
}

impl Cursor {
    pub(crate) fn new(connection: Py<Connection>, state: Shared) -> Self {
        Cursor {
            connection,
            state,
            results: None,
            current: 0,
            row: 0,
            rowcount: -1,
            arraysize: 1,
            closed: false,
        }
    }

    fn check_open(&self, py: Python<'_>) -> PyResult<()> {
        if self.closed {
            return Err(errors::programming("Cursor is closed"));
        }
        lock(py, &self.state).session()?;
        Ok(())
    }

    /// The result the cursor is on, if it returned rows.
    fn current_rows(&self) -> Option<&tdlite::Rows> {
        self.results
            .as_ref()
            .and_then(|r| r.get(self.current))
            .and_then(|r| r.rows.as_ref())
    }

    /// Runs `sql` once per parameter set (once, without any), with the GIL released.
    fn run(&mut self, py: Python<'_>, sql: &str, sets: Vec<Vec<Value>>) -> PyResult<()> {
        self.check_open(py)?;
        self.results = None;
        self.rowcount = -1;
        let cancel = {
            let mut state = lock(py, &self.state);
            state.begin_if_needed(py)?;
            state.cancel.clone()
        };
        let state = self.state.clone();
        // only a consume waits without end: its request runs on a helper thread while this
        // one watches for Ctrl-C (Python sees signals on the main thread, between calls)
        let watch = sql.to_ascii_uppercase().contains("CONSUME");
        let sql = sql.to_string();
        let work = move || -> Outcome {
            let mut guard = state.lock();
            let autocommit = guard.autocommit;
            let Some(session) = guard.backend.as_mut() else {
                return Err(Failure::Closed);
            };
            let outcome = if sets.is_empty() {
                session.execute(&sql)
            } else {
                session.execute_sets(&sql, sets)
            };
            // autocommit in ANSI mode: each request commits (Teradata mode's requests commit
            // by themselves); a failed one leaves nothing of itself behind
            if autocommit && session.mode() == tdlite::SessionMode::Ansi {
                let end = if outcome.is_ok() {
                    "COMMIT"
                } else {
                    "ROLLBACK"
                };
                if let Err(e) = session.execute(end) {
                    if outcome.is_ok() {
                        return Err(e);
                    }
                }
            }
            outcome
        };
        let guarded = move || {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(work))
                .unwrap_or(Err(Failure::Panicked))
        };
        let (outcome, interrupted) = if watch {
            py.detach(move || watched(guarded, &cancel))
        } else {
            (py.detach(guarded), None)
        };
        let results = match outcome {
            Ok(r) => r,
            Err(_) if interrupted.is_some() => Vec::new(),
            Err(f) => return Err(failure(py, f)),
        };
        self.current = 0;
        self.row = 0;
        self.rowcount = results
            .get(self.current)
            .map_or(-1, |r| i64::try_from(r.activity_count).unwrap_or(i64::MAX));
        self.results = Some(results);
        if let Some(interrupt) = interrupted {
            // Ctrl-C: the consume was cancelled, or (if the signal came as it took its row)
            // its row is in the cursor's results; Python gets its KeyboardInterrupt
            return Err(interrupt);
        }
        Ok(())
    }

    /// A one-row, one-column result of `text` (what an escape function answers).
    fn answer(&mut self, text: String) -> PyResult<()> {
        use tdlite::arrow::array::{ArrayRef, RecordBatch, StringArray};
        use tdlite::arrow::datatypes::{Field, Schema};
        let schema = std::sync::Arc::new(Schema::new(vec![Field::new(
            "Request Text",
            DataType::Utf8,
            false,
        )]));
        let column: ArrayRef = std::sync::Arc::new(StringArray::from(vec![text]));
        let batch = RecordBatch::try_new(schema.clone(), vec![column])
            .map_err(|e| errors::internal(e.to_string()))?;
        self.results = Some(vec![Answer {
            activity: "Select".to_string(),
            activity_count: 1,
            rows: Some(tdlite::Rows {
                schema,
                batches: vec![batch],
            }),
        }]);
        self.current = 0;
        self.row = 0;
        self.rowcount = 1;
        Ok(())
    }

    /// The current result's rows, if it has any; an error on a closed cursor or before any
    /// request.
    fn fetchable(&self, py: Python<'_>) -> PyResult<Option<&tdlite::Rows>> {
        self.check_open(py)?;
        if self.results.is_none() {
            return Err(errors::programming("no request has run on this cursor"));
        }
        Ok(self.current_rows())
    }

    /// The next row of the current result as a list, if there is one.
    fn next_row(&mut self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        let Some(rows) = self.fetchable(py)? else {
            return Ok(None);
        };
        let mut at = self.row;
        for batch in &rows.batches {
            if at < batch.num_rows() {
                let schema = batch.schema();
                let cells = batch
                    .columns()
                    .iter()
                    .zip(schema.fields())
                    .map(|(c, f)| values::to_py(py, c, at, tdlite::period_text::fraction_digits(f)))
                    .collect::<PyResult<Vec<_>>>()?;
                self.row += 1;
                return Ok(Some(PyList::new(py, cells)?.into_any().unbind()));
            }
            at -= batch.num_rows();
        }
        Ok(None)
    }
}

/// A request's outcome.
type Outcome = Result<Vec<Answer>, Failure>;

/// Runs `work` on a helper thread, checking every 50 ms whether Python has a signal to raise
/// (Ctrl-C); if so, cancels the session's consume, waits for `work` to end, and returns the
/// signal's exception beside its outcome.
fn watched(
    work: impl FnOnce() -> Outcome + Send,
    cancel: &crate::backend::Canceller,
) -> (Outcome, Option<PyErr>) {
    std::thread::scope(|scope| {
        let (done, finished) = std::sync::mpsc::channel::<()>();
        let worker = scope.spawn(move || {
            let outcome = work();
            let _ = done.send(());
            outcome
        });
        let mut interrupt = None;
        // ticks of 50 ms since the interrupt
        let mut ticks = 0u32;
        while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) =
            finished.recv_timeout(std::time::Duration::from_millis(50))
        {
            if interrupt.is_none() {
                if let Err(e) = Python::attach(|py| py.check_signals()) {
                    cancel.cancel();
                    interrupt = Some(e);
                }
            } else {
                // a request that had not started waiting is cancelled again, until it ends
                // (a server's once a second: each cancel is a connection)
                ticks += 1;
                if !cancel.is_remote() || ticks.is_multiple_of(20) {
                    cancel.cancel();
                }
            }
        }
        let outcome = worker.join().unwrap_or(Err(Failure::Panicked));
        (outcome, interrupt)
    })
}

/// True when `params` is a non-empty sequence of rows (lists or tuples): teradatasql's
/// `execute` then runs a batch. A row of values is never that (no value is a list or tuple).
fn is_batch(params: &Bound<'_, PyAny>) -> PyResult<bool> {
    // a list or tuple only: iterating it here does not use it up (a generator would be)
    let is_row = |o: &Bound<'_, PyAny>| {
        o.cast::<pyo3::types::PyList>().is_ok() || o.cast::<pyo3::types::PyTuple>().is_ok()
    };
    if !is_row(params) {
        return Ok(false);
    }
    let mut any = false;
    for item in params.try_iter()? {
        if !is_row(&item?) {
            return Ok(false);
        }
        any = true;
    }
    Ok(any)
}

/// A parameter set: a sequence of values (a mapping is refused, as teradatasql does).
fn parameters(params: &Bound<'_, PyAny>) -> PyResult<Vec<Value>> {
    if params.cast::<PyMapping>().is_ok() || params.cast::<PyString>().is_ok() {
        return Err(errors::programming(
            "parameters are a sequence of values for the ? markers (a mapping is not supported)",
        ));
    }
    params.try_iter()?.map(|v| values::to_value(&v?)).collect()
}

#[pymethods]
impl Cursor {
    /// Runs a request; `params` is a sequence of values for its `?` markers. Returns the cursor.
    #[pyo3(signature = (operation, params = None))]
    fn execute<'py>(
        mut slf: PyRefMut<'py, Self>,
        operation: &str,
        params: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<PyRefMut<'py, Self>> {
        let py = slf.py();
        let (escapes, operation) = crate::escapes::split(operation)?;
        if escapes != crate::escapes::Escapes::default() {
            slf.check_open(py)?;
            if let Some(on) = escapes.set_autocommit {
                let connection = slf.connection.clone_ref(py);
                connection
                    .bind(py)
                    .setattr("autocommit", pyo3::types::PyBool::new(py, on))?;
            }
            if escapes.native_sql {
                slf.answer(operation.to_string())?;
                return Ok(slf);
            }
            if escapes.get_autocommit {
                let on = lock(py, &slf.state).autocommit;
                slf.answer(on.to_string())?;
                return Ok(slf);
            }
            if operation.is_empty() {
                // only a setting changed: a request without a result
                slf.results = Some(Vec::new());
                slf.rowcount = -1;
                return Ok(slf);
            }
        }
        let sets = match params {
            // teradatasql's batch: a sequence of rows (each a list or tuple) runs as
            // executemany does (dbt-teradata loads seeds so)
            Some(p) if is_batch(p)? => {
                let sets = p
                    .try_iter()?
                    .map(|row| parameters(&row?))
                    .collect::<PyResult<Vec<_>>>()?;
                if sets.is_empty() {
                    return Err(errors::programming("an empty batch of parameter rows"));
                }
                sets
            }
            Some(p) if !p.is_none() => vec![parameters(p)?],
            _ => Vec::new(),
        };
        slf.run(py, operation, sets)?;
        Ok(slf)
    }

    /// Runs a request once per parameter set, prepared once; `rowcount` is the rows changed by
    /// all of them.
    fn executemany<'py>(
        mut slf: PyRefMut<'py, Self>,
        operation: &str,
        seq_of_params: &Bound<'py, PyAny>,
    ) -> PyResult<PyRefMut<'py, Self>> {
        let py = slf.py();
        let sets = seq_of_params
            .try_iter()?
            .map(|p| parameters(&p?))
            .collect::<PyResult<Vec<_>>>()?;
        if sets.is_empty() {
            slf.check_open(py)?;
            slf.results = None;
            slf.rowcount = 0;
            return Ok(slf);
        }
        slf.run(py, operation, sets)?;
        Ok(slf)
    }

    /// The next row (a list), or None at the end.
    fn fetchone(&mut self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        self.next_row(py)
    }

    /// Up to `size` rows (`arraysize` by default); an empty list at the end.
    #[pyo3(signature = (size = None))]
    fn fetchmany(&mut self, py: Python<'_>, size: Option<usize>) -> PyResult<Vec<Py<PyAny>>> {
        let n = size.unwrap_or(self.arraysize);
        let mut out = Vec::with_capacity(n.min(1024));
        while out.len() < n {
            match self.next_row(py)? {
                Some(r) => out.push(r),
                None => break,
            }
        }
        Ok(out)
    }

    /// The remaining rows.
    fn fetchall(&mut self, py: Python<'_>) -> PyResult<Vec<Py<PyAny>>> {
        let mut out = Vec::new();
        while let Some(r) = self.next_row(py)? {
            out.push(r);
        }
        Ok(out)
    }

    /// The current result's remaining rows as a `pyarrow.Table` (through the Arrow C stream
    /// interface: Arrow's own batches, not Python values); None for a statement without rows.
    /// Needs pyarrow.
    fn fetch_arrow(&mut self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        let Some(rows) = self.fetchable(py)? else {
            return Ok(None);
        };
        // the rows not fetched yet
        let mut skip = self.row;
        let mut batches = Vec::with_capacity(rows.batches.len());
        for b in &rows.batches {
            if skip >= b.num_rows() {
                skip -= b.num_rows();
                continue;
            }
            batches.push(b.slice(skip, b.num_rows() - skip));
            skip = 0;
        }
        let schema = rows.schema.clone();
        self.row += batches.iter().map(|b| b.num_rows()).sum::<usize>();
        let stream = crate::arrow_stream::ArrowStream::new(schema, batches);
        let table = py.import("pyarrow")?.call_method1("table", (stream,))?;
        Ok(Some(table.unbind()))
    }

    /// Moves to the next statement's result of a multi-statement request: True if there is
    /// one, False if not (None before any request).
    fn nextset(&mut self, py: Python<'_>) -> PyResult<Option<bool>> {
        self.check_open(py)?;
        let Some(results) = &self.results else {
            return Ok(None);
        };
        if self.current + 1 < results.len() {
            self.current += 1;
            self.row = 0;
            self.rowcount = i64::try_from(results[self.current].activity_count).unwrap_or(i64::MAX);
            Ok(Some(true))
        } else {
            self.rowcount = -1;
            Ok(Some(false))
        }
    }

    /// Seven-item lists, one per column of the current result (None without rows): name, type
    /// code, display size (None), internal size (None), precision and scale (DECIMAL), null_ok.
    #[getter]
    fn description(&self, py: Python<'_>) -> PyResult<Option<Vec<Py<PyAny>>>> {
        let Some(rows) = self.current_rows() else {
            return Ok(None);
        };
        rows.schema
            .fields()
            .iter()
            .map(|f| {
                let (precision, scale) = match f.data_type() {
                    DataType::Decimal128(p, s) => (Some(i64::from(*p)), Some(i64::from(*s))),
                    _ => (None, None),
                };
                let item = PyList::new(
                    py,
                    [
                        f.name().into_pyobject(py)?.into_any(),
                        values::type_code(py, f.data_type())?,
                        py.None().into_bound(py),
                        py.None().into_bound(py),
                        precision.into_pyobject(py)?.into_any(),
                        scale.into_pyobject(py)?.into_any(),
                        pyo3::types::PyBool::new(py, f.is_nullable())
                            .to_owned()
                            .into_any(),
                    ],
                )?;
                Ok(item.into_any().unbind())
            })
            .collect::<PyResult<Vec<_>>>()
            .map(Some)
    }

    /// Rows returned or changed by the current statement; -1 before any.
    /// The kind of the statement the cursor is on (`Select`, `Insert`, `CreateTable`, …; None
    /// before a request), as teradatasql's `activityname` (dbt-teradata reads it).
    #[getter]
    fn activityname(&self) -> Option<String> {
        self.results
            .as_ref()
            .and_then(|r| r.get(self.current))
            .map(|r| r.activity.clone())
    }

    #[getter]
    fn rowcount(&self) -> i64 {
        self.rowcount
    }

    /// How many rows `fetchmany` returns by default (1).
    #[getter]
    fn get_arraysize(&self) -> usize {
        self.arraysize
    }

    #[setter]
    fn set_arraysize(&mut self, n: usize) {
        self.arraysize = n.max(1);
    }

    /// The connection the cursor belongs to.
    #[getter]
    fn connection(&self, py: Python<'_>) -> Py<Connection> {
        self.connection.clone_ref(py)
    }

    /// Accepted; has no effect (as in teradatasql).
    fn setinputsizes(&self, _sizes: &Bound<'_, PyAny>) {}

    /// Accepted; has no effect.
    #[pyo3(signature = (_size, _column = None))]
    fn setoutputsize(&self, _size: &Bound<'_, PyAny>, _column: Option<&Bound<'_, PyAny>>) {}

    /// Closes the cursor; its rows are gone.
    fn close(&mut self) {
        self.closed = true;
        self.results = None;
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        match self.next_row(py)? {
            Some(r) => Ok(r),
            None => Err(PyStopIteration::new_err(())),
        }
    }

    fn __enter__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }

    fn __exit__(
        &mut self,
        _kind: Option<&Bound<'_, PyAny>>,
        _value: Option<&Bound<'_, PyAny>>,
        _traceback: Option<&Bound<'_, PyAny>>,
    ) -> bool {
        self.close();
        false
    }
}
