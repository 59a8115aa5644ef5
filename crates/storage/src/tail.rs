//! The open tail of a table: the rows after its last sealed segment, fewer than
//! [`SEGMENT_ROWS`], held as Arrow like the segments.
//!
//! Rows come in one at a time as values (an INSERT, a recovered row). The newest, fewer than
//! [`RUN_ROWS`], wait as values; each time [`RUN_ROWS`] of them have come they become one Arrow
//! chunk, and [`FANOUT`] neighbouring chunks of the same size merge into one (a counter in
//! base [`FANOUT`]; with 64-row runs and 4,096-row segments, sizes 64, 512 and 4,096):
//!
//! ```text
//!   rows 0 ................ 2559 | 2560 .. 2623 | ... | 2944 .. 3007 | 3008 .. 3042
//!   5 chunks of 512              | 64           | ... | 64 (7 in all) | 35 values
//! ```
//!
//! A merge that would make a chunk of more than [`MERGE_BYTES`] of Arrow buffers is not done:
//! wide rows' chunks stay as they are, and the append that fills the tail copies whatever
//! chunks it holds into the segment. So a tail of narrow rows is at most (FANOUT − 1) chunks
//! of each size below [`SEGMENT_ROWS`] (14), one of wide rows up to 63 chunks, and either has
//! fewer than [`RUN_ROWS`] values; every row is turned into Arrow once and copied at most
//! log_FANOUT(SEGMENT_ROWS / RUN_ROWS) times more (twice; a wide row once, into its segment;
//! each copy done by the append that completes it); and a full tail is one batch of
//! [`SEGMENT_ROWS`] rows, the next segment as it is. A binary counter (fan-out 2) kept at most
//! 7 chunks but copied each row six times: for wide rows (the 2 KB rows of `bench priority`)
//! the copies and the fresh pages they touch were a quarter of an UPDATE's time, while a
//! small table in 11 chunks costs the instructions to scan that it did in 4; merging 64-row
//! chunks straight into the segment whatever their width made small narrow tables slower to
//! scan (docs/benchmarks.md, thirteenth and eighteenth sessions). A merge's copy costs by
//! the byte, a reader's extra chunk by the chunk: the byte limit keeps both small.
//!
//! A reader takes a [`TailView`] under the table's mutex: reference counts of the chunks and
//! of the waiting values, at most 126, never a copy of a row. It builds batches from
//! the view after the mutex is released.
//!
//! Invariants: the chunks, then the values, are the tail's rows in order; a chunk never
//! changes once made (readers share it); chunk sizes are powers of [`FANOUT`] times
//! [`RUN_ROWS`], with fewer than [`FANOUT`] neighbouring chunks of one size whose merge
//! would hold at most [`MERGE_BYTES`].

use crate::catalog::TableSchema;
use crate::table::SEGMENT_ROWS;
use crate::types::{value_at, Value};
use crate::waiting::{values_batch, Keep, Waiting};
use arrow::array::{Array, ArrayRef};
use arrow::record_batch::RecordBatch;
use std::sync::Arc;

/// How many rows wait as values before they become an Arrow chunk.
pub(crate) const RUN_ROWS: usize = 64;

/// How many chunks of one size merge into one. [`SEGMENT_ROWS`] is [`RUN_ROWS`] × FANOUT²
/// (checked below), so a full tail of narrow rows is one chunk, made at its last row (a wide
/// one is copied into one at its last row: [`MERGE_BYTES`]).
const FANOUT: usize = 8;

const _: () = assert!(SEGMENT_ROWS == RUN_ROWS * FANOUT * FANOUT);

/// The widest chunk a merge makes below a full tail (bytes of Arrow buffers, capacity
/// counted). Chunks whose merge would be wider stay as they are until the seal copies them
/// into the segment (see the module doc).
pub(crate) const MERGE_BYTES: usize = 256 * 1024;

/// The rows after the last segment.
#[derive(Default)]
pub(crate) struct Tail {
    chunks: Vec<RecordBatch>,
    /// Rows not yet in a chunk, each behind an `Arc` so a reader takes it by reference count.
    values: Vec<Arc<Waiting>>,
}

/// Where a tail row is.
pub(crate) enum TailRow<'a> {
    /// Row `row` of chunk number `index`.
    Chunk {
        index: usize,
        batch: &'a RecordBatch,
        row: usize,
    },
    /// Waiting: as values, or derived from a sealed row (waiting.rs).
    Values(&'a Arc<Waiting>),
}

impl Tail {
    /// Number of rows.
    pub(crate) fn len(&self) -> usize {
        self.chunks.iter().map(RecordBatch::num_rows).sum::<usize>() + self.values.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Appends a row; returns the tail's rows as one batch (a new segment, the tail now
    /// empty) when this row fills it to [`SEGMENT_ROWS`].
    pub(crate) fn push(&mut self, schema: &TableSchema, row: Waiting) -> Option<RecordBatch> {
        self.values.push(Arc::new(row));
        if self.values.len() < RUN_ROWS {
            return None;
        }
        let run = values_batch(schema, &self.values, None);
        self.values.clear();
        self.chunks.push(run);
        // the counter's carries: the last FANOUT chunks, when they are of one size, merge
        // into one chunk (one copy of each of their rows), unless it would be wider than
        // MERGE_BYTES: those wait for the seal
        while let Some(last) = self
            .chunks
            .len()
            .checked_sub(FANOUT)
            .map(|at| &self.chunks[at..])
        {
            if last.iter().any(|c| c.num_rows() != last[0].num_rows())
                || last
                    .iter()
                    .map(RecordBatch::get_array_memory_size)
                    .sum::<usize>()
                    > MERGE_BYTES
            {
                break;
            }
            let merged = arrow::compute::concat_batches(&schema.arrow, last)
                .expect("chunks of one table share its schema");
            self.chunks.truncate(self.chunks.len() - FANOUT);
            self.chunks.push(merged);
        }
        // a full tail is the next segment, in one batch (its chunks merged if they have not)
        if self.len() < SEGMENT_ROWS {
            return None;
        }
        match self.chunks.as_slice() {
            [_] => self.chunks.pop(),
            chunks => {
                let full = arrow::compute::concat_batches(&schema.arrow, chunks)
                    .expect("chunks of one table share its schema");
                self.chunks.clear();
                Some(full)
            }
        }
    }

    /// Where row `i` of the tail is, if there is one.
    pub(crate) fn get(&self, i: usize) -> Option<TailRow<'_>> {
        locate(&self.chunks, &self.values, i)
    }

    /// Column `col` of row `i` (NULL past the end).
    pub(crate) fn value(&self, i: usize, col: usize) -> Value {
        match self.get(i) {
            Some(TailRow::Chunk { batch, row, .. }) => value_at(batch.column(col).as_ref(), row),
            Some(TailRow::Values(v)) => v.value(col),
            None => Value::Null,
        }
    }

    /// Every column of row `i` (empty past the end).
    pub(crate) fn row(&self, i: usize) -> Vec<Value> {
        match self.get(i) {
            Some(TailRow::Chunk { batch, row, .. }) => {
                batch.columns().iter().map(|a| value_at(a, row)).collect()
            }
            Some(TailRow::Values(v)) => v.values(),
            None => Vec::new(),
        }
    }

    /// What a reader takes under the mutex (reference counts only).
    pub(crate) fn view(&self) -> TailView {
        TailView {
            chunks: self.chunks.clone(),
            values: self.values.clone(),
        }
    }
}

/// A reader's copy of a tail (see the module doc).
#[derive(Default)]
pub(crate) struct TailView {
    chunks: Vec<RecordBatch>,
    values: Vec<Arc<Waiting>>,
}

impl TailView {
    /// The tail as batches, each with the tail offset of its first row; the waiting rows'
    /// batch holds only the columns `keep` marks (see [`Keep`]), the chunks every column.
    pub(crate) fn batches(
        &self,
        schema: &TableSchema,
        keep: Keep<'_>,
    ) -> Vec<(usize, RecordBatch)> {
        let mut out = Vec::with_capacity(self.chunks.len() + 1);
        let mut at = 0;
        for c in &self.chunks {
            out.push((at, c.clone()));
            at += c.num_rows();
        }
        if !self.values.is_empty() {
            out.push((at, values_batch(schema, &self.values, keep)));
        }
        out
    }

    /// The chunks.
    pub(crate) fn chunks(&self) -> &[RecordBatch] {
        &self.chunks
    }

    /// Where row `i` of the tail is, if there is one.
    pub(crate) fn get(&self, i: usize) -> Option<TailRow<'_>> {
        locate(&self.chunks, &self.values, i)
    }
}

fn locate<'a>(
    chunks: &'a [RecordBatch],
    values: &'a [Arc<Waiting>],
    mut i: usize,
) -> Option<TailRow<'a>> {
    for (index, batch) in chunks.iter().enumerate() {
        if i < batch.num_rows() {
            return Some(TailRow::Chunk {
                index,
                batch,
                row: i,
            });
        }
        i -= batch.num_rows();
    }
    values.get(i).map(TailRow::Values)
}

/// One-row slices of columns `cols` of row `r` of `batch`; a column past the batch's is a
/// one-row NULL.
pub(crate) fn row_slices(batch: &RecordBatch, r: usize, cols: &[usize]) -> Vec<ArrayRef> {
    cols.iter()
        .map(|&c| match c < batch.num_columns() {
            true => batch.column(c).slice(r, 1),
            false => arrow::array::new_null_array(&arrow::datatypes::DataType::Null, 1),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::waiting::fixtures::{row, schema};

    #[test]
    fn rows_read_back_in_order_at_every_size_up_to_the_seal() {
        let schema = schema();
        let mut tail = Tail::default();
        for i in 0..SEGMENT_ROWS as i64 - 1 {
            assert!(
                tail.push(&schema, Waiting::from(row(i))).is_none(),
                "sealed early at {i}"
            );
            let n = tail.len();
            assert_eq!(n, i as usize + 1);
            // chunk sizes: RUN_ROWS times a power of FANOUT, never increasing, fewer than
            // FANOUT of each; and every full run is in a chunk
            let sizes: Vec<usize> = tail.chunks.iter().map(RecordBatch::num_rows).collect();
            assert!(
                sizes.windows(2).all(|w| w[0] >= w[1]),
                "{sizes:?} at {n} rows"
            );
            assert!(
                sizes
                    .iter()
                    .all(|&s| s == RUN_ROWS || s == RUN_ROWS * FANOUT),
                "{sizes:?}"
            );
            for &s in &sizes {
                assert!(
                    sizes.iter().filter(|&&t| t == s).count() < FANOUT,
                    "{sizes:?}"
                );
            }
            assert!(tail.values.len() < RUN_ROWS);
            assert_eq!(sizes.iter().sum::<usize>(), n / RUN_ROWS * RUN_ROWS);
            // spot checks: the first, the newest and one in between
            for at in [0, n / 2, n - 1] {
                assert_eq!(tail.row(at), row(at as i64), "row {at} of {n}");
                assert_eq!(tail.value(at, 1), row(at as i64)[1]);
            }
        }
        // the batches a reader builds hold every row, offsets matching
        let parts = tail.view().batches(&schema, None);
        let mut next = 0;
        for (at, b) in &parts {
            assert_eq!(*at, next);
            for r in 0..b.num_rows() {
                let got: Vec<Value> = b.columns().iter().map(|a| value_at(a, r)).collect();
                assert_eq!(got, row((at + r) as i64));
            }
            next += b.num_rows();
        }
        assert_eq!(next, SEGMENT_ROWS - 1);
        let sealed = tail
            .push(&schema, Waiting::from(row(SEGMENT_ROWS as i64 - 1)))
            .expect("the last row seals");
        assert_eq!(sealed.num_rows(), SEGMENT_ROWS);
        assert!(tail.is_empty() && tail.get(0).is_none());
        for r in 0..SEGMENT_ROWS {
            let got: Vec<Value> = sealed.columns().iter().map(|a| value_at(a, r)).collect();
            assert_eq!(got, row(r as i64));
        }
        // and the next tail starts over
        assert!(tail.push(&schema, Waiting::from(row(7))).is_none());
        assert_eq!(tail.row(0), row(7));
    }

    #[test]
    fn a_view_is_unchanged_by_later_appends() {
        let schema = schema();
        let mut tail = Tail::default();
        for i in 0..100 {
            tail.push(&schema, Waiting::from(row(i)));
        }
        let view = tail.view();
        for i in 100..1000 {
            tail.push(&schema, Waiting::from(row(i)));
        }
        let parts = view.batches(&schema, None);
        // one chunk of 64 and 36 values, as they were
        let sizes: Vec<(usize, usize)> = parts.iter().map(|(at, b)| (*at, b.num_rows())).collect();
        assert_eq!(sizes, [(0, 64), (64, 36)]);
        let last = &parts[1].1;
        assert_eq!(value_at(last.column(0), 35), Value::Int(99));
    }

    /// Wide rows' chunks are never merged below a full tail (each merge would pass
    /// MERGE_BYTES); narrow rows' after them still are; every row reads back in order, and
    /// the seal copies all the chunks into one segment.
    #[test]
    fn wide_rows_wait_unmerged_until_the_seal() {
        use crate::catalog::{Column, TableKind};
        use crate::types::SqlType;
        let schema = TableSchema::new(
            "w".into(),
            vec![
                Column::plain("a", SqlType::BigInt, true),
                Column::plain("s", SqlType::VarChar(8000), true),
            ],
            TableKind::Multiset,
            false,
            None,
            Vec::new(),
            String::new(),
        );
        let half = SEGMENT_ROWS as i64 / 2;
        // rows of the first half are 5,000 bytes wide (64 of them pass MERGE_BYTES alone)
        let row = |i: i64| {
            let width = if i < half { 5_000 } else { 3 };
            vec![Value::Int(i), Value::Str(format!("{i:0width$}"))]
        };
        const { assert!(RUN_ROWS * 5_000 > MERGE_BYTES) };
        let mut tail = Tail::default();
        let mut merged_narrow = false;
        for i in 0..SEGMENT_ROWS as i64 - 1 {
            assert!(tail.push(&schema, Waiting::from(row(i))).is_none());
            let n = i as usize + 1;
            if !n.is_multiple_of(RUN_ROWS) {
                continue;
            }
            let sizes: Vec<usize> = tail.chunks.iter().map(RecordBatch::num_rows).collect();
            let wide_chunks = (n.min(half as usize)) / RUN_ROWS;
            assert!(
                sizes[..wide_chunks].iter().all(|&s| s == RUN_ROWS),
                "{sizes:?} at {n}"
            );
            merged_narrow |= sizes[wide_chunks..].contains(&(RUN_ROWS * FANOUT));
            assert_eq!(sizes.iter().sum::<usize>(), n);
            assert!(sizes.len() < SEGMENT_ROWS / RUN_ROWS);
            for at in [0, n / 2, n - 1] {
                assert_eq!(tail.row(at), row(at as i64), "row {at} of {n}");
            }
        }
        assert!(merged_narrow, "the narrow rows' chunks merged");
        let sealed = tail
            .push(&schema, Waiting::from(row(SEGMENT_ROWS as i64 - 1)))
            .expect("the last row seals");
        assert_eq!(sealed.num_rows(), SEGMENT_ROWS);
        assert!(tail.is_empty());
        for r in 0..SEGMENT_ROWS {
            let got: Vec<Value> = sealed.columns().iter().map(|a| value_at(a, r)).collect();
            assert_eq!(got, row(r as i64), "row {r}");
        }
    }
}
