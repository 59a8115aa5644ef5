//! The streaming read of a SELECT block: one over one base table whose end only projects (no
//! aggregate, GROUP BY, HAVING, QUALIFY, window, ORDER BY, DISTINCT or SAMPLE; a TOP n
//! without PERCENT or WITH TIES stops the read once it has n rows), bound
//! before a row is read (`query.rs` `bind_then_read`, for a block with no correlated
//! subquery in its clauses, whose uncorrelated ones have run once it was bound, and a kept
//! plan's run, `bound_select.rs`, whose uncorrelated subqueries are kept values), runs
//! segment by segment: each of the
//! table's batches (as the storage holds them, 4,096 rows) is filtered and projected on its
//! own, and the result is those batches. Nothing concatenates the table into one batch, so
//! an `INSERT … SELECT` or a browse of a big table copies only the rows it keeps.
//!
//! A query that an index can narrow (`plan::choose`) reads through it
//! (`Reader::read_where_keeping`, as the general path does) in one batch. Either way only the
//! columns the select list and WHERE read are copied (the others come back NULL:
//! `tdlite_storage::columns`).
//!
//! Invariant: the rows, their order (row id order, as a scan gives them) and the result's
//! schema are those of the general path. Which error comes first when several rows would
//! raise one may differ (each segment is filtered and projected before the next), as SQL
//! leaves it unspecified; under a TOP n, a row past the first n that pass WHERE is not
//! projected (its select list raises nothing), nor is WHERE tested on the segments past the
//! one that completes them, as a LIMIT stops a lazy engine's read.

use crate::access::Reader;
use crate::clauses::Item;
use crate::error::Result;
use crate::inputs::RunCond;
use crate::ops::{mask_of, project};
use crate::result::Rows;
use arrow::record_batch::RecordBatch;
use tdlite_storage::columns::filter_columns;
use tdlite_storage::table::Table;

impl Reader<'_> {
    /// The rows of `table` that pass `cond` (a plain condition, or one at a run of a kept
    /// plan: made with its values only where rows are filtered), projected to `items`: read
    /// through an index in one batch where `plan::choose` finds one, else segment by segment;
    /// only the first `limit` of them where given (a TOP n: the segments past the one that
    /// completes them are not read, and only those rows are projected; an index read fetches
    /// the rows its conditions select, then keeps the first n). `None` when there
    /// is no segment at all, or an item's type differs between segments (the caller then
    /// reads the rows whole).
    ///
    /// # Errors
    /// Evaluation errors of `cond` and `items`.
    pub(crate) fn stream_rows(
        &self,
        table: &Table,
        cond: Option<&RunCond<'_>>,
        items: &[Item],
        precisions: &[crate::ops::Display],
        limit: Option<usize>,
    ) -> Result<Option<Rows>> {
        // only the columns the select list reads are copied out of the rows kept
        let mut keep = vec![false; table.schema.columns.len()];
        items.iter().for_each(|i| i.0.mark_columns(&mut keep));
        // where an index narrows the read, the rows come from it in one batch
        let preds = cond.map(|c| c.preds(&table.schema));
        let indexed = preds.as_ref().is_some_and(|p| {
            crate::plan::choose(&table.schema, &p.0, &|| {
                crate::plan::max_probes(table.row_versions())
            })
            .is_some()
        });
        // what is read: those columns and the condition's
        let mut read = keep.clone();
        cond.iter().for_each(|c| c.bound().mark_columns(&mut read));
        // (each segment's visible part made only when the loop gets to it: a TOP n stops
        // before the later ones)
        let parts: Box<dyn Iterator<Item = RecordBatch>> = match indexed {
            true => Box::new(std::iter::once(
                self.read_where_preds(table, cond, preds.as_deref(), Some(&read), false)?
                    .0,
            )),
            false => Box::new(table.scan_rows_lazily(self.snapshot(), Some(&read))),
        };
        let mut batches: Vec<RecordBatch> = Vec::new();
        // how many rows may still be taken
        let mut left = limit.unwrap_or(usize::MAX);
        for part in parts {
            let rows = match (cond, indexed) {
                (Some(c), false) => {
                    let mask = mask_of(&part, c.expr())?;
                    filter_columns(&part, &mask, &keep, table.nullable_schema())?
                }
                _ => part,
            };
            let rows = rows.slice(0, rows.num_rows().min(left));
            if rows.num_rows() > 0 || batches.is_empty() {
                batches.push(project(items, precisions, &rows)?);
            }
            left -= rows.num_rows();
            if left == 0 {
                break;
            }
        }
        let schema = match batches.first() {
            Some(b) => b.schema(),
            // no segment at all: the general path's empty result
            None => return Ok(None),
        };
        if batches.iter().any(|b| b.schema() != schema) {
            return Ok(None); // an expression typed differently in two segments
        }
        if batches.len() > 1 && batches[0].num_rows() == 0 {
            batches.remove(0);
        }
        Ok(Some(Rows { schema, batches }))
    }
}
