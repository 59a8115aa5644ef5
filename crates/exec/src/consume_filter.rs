//! The condition of a selective consume, `SELECT AND CONSUME … FROM q WHERE condition`
//! (docs/queues.md, Selective consume).
//!
//! Bound once per statement against the queue's columns alone (`Exec::bind_consume_filter`
//! in dml.rs; a session keeps the last one for the next consume of the same text and
//! parameters, `Session::consume_filter`). It gives storage three things:
//! the columns it reads, the index it can probe (an index every column of which the condition
//! fixes by equality: then only that key's rows are walked, in O(log n) to the first), and
//! the test run on each chunk of candidate rows ([`ConsumeFilter::test`]). A consumer that
//! waits leaves [`ConsumeFilter::accepts`] on the waiter list, so a commit wakes it only for a
//! row it would take (wait.rs).
//!
//! Invariant: the test accepts a row exactly when the condition is true for it (NULL is not
//! true); the probe only narrows the walk, every candidate is still tested.

use crate::error::{Error, Result};
use crate::expr::Expr;
use crate::ops::mask_of;
use arrow::record_batch::RecordBatch;
use std::sync::Arc;
use tdlite_storage::index::indexable;
use tdlite_storage::key::{encoded_len, IndexKey, KeyWriter};
use tdlite_storage::table::{RowId, Table};

/// A bound selective-consume condition (see the module doc).
pub struct ConsumeFilter {
    cond: Expr,
    /// Per table column: whether the condition reads it.
    keep: Vec<bool>,
    /// The index probed and its key, if the condition fixes every column of one.
    probe: Option<(usize, IndexKey)>,
}

impl ConsumeFilter {
    /// The filter of `cond`, a condition bound against queue table `table`'s columns.
    ///
    /// # Errors
    /// A type mismatch if the condition is not true/false.
    pub(crate) fn new(cond: Expr, table: &Table) -> Result<ConsumeFilter> {
        // the condition must be true/false: tried on no rows, as a WHERE's would be
        mask_of(&table.empty_batch(), &cond)?;
        let mut keep = vec![false; table.schema.columns.len()];
        cond.mark_columns(&mut keep);
        let probe = probe(&cond, table);
        Ok(ConsumeFilter { cond, keep, probe })
    }
}

/// The index with the most columns all of which `cond` fixes to one value each, and the key
/// those values make.
fn probe(cond: &Expr, table: &Table) -> Option<(usize, IndexKey)> {
    let schema = &table.schema;
    let preds = crate::plan::bound_preds(cond, schema);
    let point = |c: &usize| match preds.get(c)?.points.as_deref()? {
        [v] => Some(v.clone()),
        _ => None,
    };
    schema
        .indexes()
        .enumerate()
        .filter(|(_, spec)| indexable(schema, spec))
        .filter_map(|(ix, spec)| {
            let values = spec.columns.iter().map(point).collect::<Option<Vec<_>>>()?;
            Some((ix, values))
        })
        .max_by_key(|(ix, values)| (values.len(), std::cmp::Reverse(*ix)))
        .map(|(ix, values)| {
            // the points are already as the index keeps them (plan::probe_value)
            let mut w = KeyWriter::with_capacity(values.iter().map(encoded_len).sum());
            for v in &values {
                w.value(v);
            }
            (ix, w.finish())
        })
}

impl ConsumeFilter {
    /// Which rows of `batch` (the queue's columns; those the condition does not read may be
    /// NULL) the condition is true for.
    ///
    /// # Errors
    /// Evaluation errors of the condition.
    pub(crate) fn test(&self, batch: &RecordBatch) -> Result<Vec<bool>> {
        let mask = mask_of(batch, &self.cond)?;
        Ok((0..mask.len()).map(|i| mask.value(i)).collect())
    }

    /// What storage needs to walk the queue with this condition.
    pub(crate) fn selection<'a>(
        &'a self,
        test: &'a mut dyn FnMut(&RecordBatch) -> Result<Vec<bool>>,
    ) -> tdlite_storage::transaction::Selection<'a, Error> {
        tdlite_storage::transaction::Selection {
            keep: &self.keep,
            probe: self.probe.clone(),
            test,
        }
    }

    /// The position of the index the walk probes, if any (for EXPLAIN).
    pub(crate) fn index(&self) -> Option<usize> {
        self.probe.as_ref().map(|(ix, _)| *ix)
    }

    /// Which of `rows` of `table` (rows a commit just made consumable) a waiting consumer
    /// with this condition would take, read and tested as one batch. A condition that fails
    /// on them says yes to all: the consumer then meets the error itself.
    pub(crate) fn accepts(&self, table: &Table, rows: &[RowId]) -> Vec<bool> {
        let batch = table.fetch_columns(rows, Some(&self.keep));
        match self.test(&batch) {
            Ok(ok) if ok.len() == rows.len() => ok,
            _ => vec![true; rows.len()],
        }
    }
}

/// A selective waiter's test of the rows its queue just gained (see wait.rs): which it would
/// take.
pub(crate) type Matcher = Arc<dyn Fn(&[RowId]) -> Vec<bool> + Send + Sync>;

/// A waiting consumer's test of committed rows: the filter and its table.
pub(crate) fn matcher(filter: Arc<ConsumeFilter>, table: Arc<Table>) -> Matcher {
    Arc::new(move |rows| filter.accepts(&table, rows))
}
