//! `Cursor.fetch_arrow()`'s hand-over of rows to pyarrow through the Arrow PyCapsule
//! interface: an object whose `__arrow_c_stream__` returns a capsule named
//! `arrow_array_stream` holding an Arrow C stream of the result's batches, which
//! `pyarrow.table(obj)` imports without converting a value.
//!
//! Invariant: the stream is handed out once; a second `__arrow_c_stream__` is an error, and a
//! capsule that is never imported releases its stream when Python drops it (the stream's own
//! `Drop`).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;
use std::ffi::CStr;
use tdlite::arrow::array::{RecordBatch, RecordBatchIterator};
use tdlite::arrow::datatypes::SchemaRef;
use tdlite::arrow::ffi_stream::FFI_ArrowArrayStream;

/// The capsule name the Arrow PyCapsule interface gives a stream.
const STREAM: &CStr = c"arrow_array_stream";

/// Batches waiting to be imported by pyarrow (or any Arrow PyCapsule consumer).
#[pyclass(module = "tdlite")]
pub struct ArrowStream {
    batches: Option<(SchemaRef, Vec<RecordBatch>)>,
}

impl ArrowStream {
    pub(crate) fn new(schema: SchemaRef, batches: Vec<RecordBatch>) -> Self {
        ArrowStream {
            batches: Some((schema, batches)),
        }
    }
}

#[pymethods]
impl ArrowStream {
    /// The Arrow C stream of the batches, in a capsule (a schema other than the batches' own
    /// is not offered: `requested_schema` is ignored, as the interface allows).
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_stream__<'py>(
        &mut self,
        py: Python<'py>,
        requested_schema: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema;
        let (schema, batches) = self
            .batches
            .take()
            .ok_or_else(|| PyValueError::new_err("the stream was already handed out"))?;
        let reader = RecordBatchIterator::new(batches.into_iter().map(Ok), schema);
        let stream = FFI_ArrowArrayStream::new(Box::new(reader));
        PyCapsule::new_with_value(py, stream, STREAM)
    }
}
