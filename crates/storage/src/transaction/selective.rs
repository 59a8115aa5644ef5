//! Selective consume: take the oldest consumable rows that a condition accepts (docs/queues.md,
//! Selective consume).
//!
//! Storage does not evaluate SQL: the caller gives a test that says which rows of a batch
//! match. The walk goes through the consumable rows in consume order, a chunk at a time:
//!
//! ```text
//!   under the table's mutex:   the next candidates after the last one seen (the queue index,
//!                              or the keyed queue of one index key, and this transaction's
//!                              own pending rows), oldest first
//!   outside it:                their columns read, the test run on them
//!   under the mutex again:     each accepted candidate that is still consumable is claimed
//! ```
//!
//! Rows are never changed in place, so a candidate's values read outside the mutex are its
//! values when it is claimed; a candidate another transaction claimed, deleted or updated in
//! between is skipped (SKIP LOCKED's semantics, never a wait): its stamps say so, and an
//! UPDATE's new version, which keeps the old one's queue key, is a different row that stays. Rows other
//! transactions hold are not in the queue index at all, so they are never candidates.
//! Chunks grow from 16 to 4,096 rows (through an index, from as many as are wanted, since a
//! key's rows usually all match), so a match near the front costs one small read. A test that
//! fails on a chunk is run again row by row: the error stops the walk only at the row it
//! fails on, and only if rows beyond it are still wanted.

use super::Transaction;
use crate::error::StorageError;
use crate::key::IndexKey;
use crate::mvcc::DEAD;
use crate::queue::QueueKey;
use crate::table::{RowId, Table, TableData};
use arrow::record_batch::RecordBatch;
use std::sync::Arc;

/// How a selective consume tests rows and where it looks for them.
pub struct Selection<'a, E> {
    /// The columns the test reads (per table column; the others are NULL in its batches).
    pub keep: &'a [bool],
    /// An index every column of which the condition fixes by equality: its position in
    /// [`crate::catalog::TableSchema::indexes`] and the key those values make (as
    /// [`crate::index::OrderedIndex::key_of`] writes it). The walk then reads that key's rows
    /// of the queue's keyed queue only.
    pub probe: Option<(usize, IndexKey)>,
    /// Which rows of a batch (the table's schema, rows in the order given) the condition
    /// accepts; an error stops the consume.
    pub test: &'a mut dyn FnMut(&RecordBatch) -> Result<Vec<bool>, E>,
}

/// The first chunk of candidates tested, and the largest.
const FIRST_CHUNK: usize = 16;
const MAX_CHUNK: usize = 4096;

/// A candidate: its queue key, its row, and whether it is in the committed queue index (else
/// among this transaction's own pending rows).
type Candidate = (QueueKey, RowId, bool);

impl Transaction {
    /// Takes up to `n` of the oldest consumable rows that `sel`'s test accepts (see the module
    /// doc) and returns them in consume order with columns `cols` as arrays, as
    /// [`Transaction::take_many`] does; `None` if none matched (no lock is left behind).
    /// In a queue that delivers at QITS, only rows whose QITS is at most `due_by`.
    ///
    /// # Errors
    /// As [`Transaction::consume`], and the test's errors.
    pub fn take_matching<E: From<StorageError>>(
        &mut self,
        table: &Arc<Table>,
        (wait_for_lock, due_by): (bool, i64),
        (n, cols): (usize, &[usize]),
        sel: Selection<'_, E>,
    ) -> Result<Option<super::Taken>, E> {
        self.side_work(table);
        let Some(newly) = self.lock_for_take(table, wait_for_lock)? else {
            return Ok(None);
        };
        let mut rows = Vec::new();
        let walked = match self.check_creator(table) {
            Ok(()) => self.walk(table, due_by, (n, &mut rows), sel),
            Err(_) => Ok(()),
        };
        if rows.is_empty() {
            // the locks were taken for nothing (after an error, claimed rows and their lock
            // are the request's undo's)
            self.release_take(table, newly);
        }
        walked?;
        if rows.is_empty() {
            return Ok(None);
        }
        Ok(Some(super::read_taken(table, rows, cols)))
    }

    /// The walk of [`Transaction::take_matching`]: claims up to `n` rows into `rows`, in
    /// consume order.
    fn walk<E: From<StorageError>>(
        &mut self,
        table: &Arc<Table>,
        due_by: i64,
        (n, rows): (usize, &mut Vec<RowId>),
        sel: Selection<'_, E>,
    ) -> Result<(), E> {
        let mut after = None;
        // a key's rows through an index usually all match: read no more than are wanted
        let mut chunk = match sel.probe {
            Some(_) => n.clamp(1, FIRST_CHUNK),
            None => FIRST_CHUNK,
        };
        while rows.len() < n {
            let (cands, more) = {
                let mut d = table.lock();
                self.candidates(table, &mut d, (sel.probe.as_ref(), after), chunk, due_by)
            };
            let Some(&(last, _, _)) = cands.last() else {
                break;
            };
            let rids: Vec<RowId> = cands.iter().map(|c| c.1).collect();
            let batch = table.fetch_columns(&rids, Some(sel.keep));
            if batch.num_rows() != rids.len() {
                // a row the table does not hold: the candidates were wrong, take nothing
                return Ok(());
            }
            // a test that fails on the chunk is run again row by row: the rows before the one
            // it fails on count, and the error only if the walk needs rows beyond them
            let (accepted, failed) = match (sel.test)(&batch) {
                Ok(accepted) => (accepted, None),
                Err(e) if batch.num_rows() == 1 => return Err(e),
                Err(_) => row_by_row(&batch, &mut *sel.test),
            };
            let mut d = table.lock();
            for (c, ok) in cands.into_iter().zip(accepted) {
                if rows.len() == n {
                    break;
                }
                if ok && self.claim_candidate(table, &mut d, c) {
                    rows.push(c.1);
                }
            }
            drop(d);
            if let Some(e) = failed {
                if rows.len() < n {
                    return Err(e);
                }
            }
            if !more {
                break;
            }
            after = Some(last);
            chunk = (chunk * 4).min(MAX_CHUNK);
        }
        Ok(())
    }

    /// Up to `limit` candidates after queue key `after`, oldest first, and whether there may
    /// be more after them (`d` is `table`'s data, locked).
    fn candidates(
        &self,
        table: &Table,
        d: &mut TableData,
        (probe, after): (Option<&(usize, IndexKey)>, Option<QueueKey>),
        limit: usize,
        due_by: i64,
    ) -> (Vec<Candidate>, bool) {
        let keyed = probe.and_then(|(ix, key)| Some((d.keyed_queue(*ix)?, key)));
        // expired rows are passed over (see `pop_locked`); such a queue's keys are (0, QITS,
        // sequence)
        let after_expired = match self.expiry_cutoff(table) {
            Some(c) => after.max(Some((0, c, u64::MAX))),
            None => after,
        };
        let committed = match keyed {
            Some((keyed, key)) => keyed.after(key, after_expired, limit),
            None => d.queue.after(after_expired, limit),
        };
        let own = self
            .own_queue
            .get(&table.id)
            .map(|(_, m)| m.after(after, limit))
            .unwrap_or_default();
        let mut more = committed.len() == limit || own.len() == limit;
        let mut all: Vec<Candidate> = committed
            .into_iter()
            .map(|(k, r)| (k, r, true))
            .chain(own.into_iter().map(|(k, r)| (k, r, false)))
            .collect();
        if all.iter().any(|c| !c.2) {
            all.sort_unstable_by_key(|c| c.0);
        }
        // the two lists merged may hold more than a chunk: the rest comes next time
        more |= all.len() > limit;
        all.truncate(limit);
        // a queue that delivers at QITS is in QITS order: after the first row not due yet,
        // none is
        if d.delivers_at_qits {
            if let Some(i) = all.iter().position(|c| c.0 .1 > due_by) {
                all.truncate(i);
                more = false;
            }
        }
        (all, more)
    }

    /// Claims candidate `c` if it is still consumable; whether it was.
    fn claim_candidate(&mut self, table: &Arc<Table>, d: &mut TableData, c: Candidate) -> bool {
        let (key, row, from_index) = c;
        // the index holds only unclaimed rows (as in `pop_locked`); a row deleted or updated
        // since it was read has left it, but its key may now be its new version's
        if d.stamps.xmax(row) != 0 || d.stamps.xmin(row) == DEAD {
            return false;
        }
        let there = if from_index {
            d.dequeue(&key, row)
        } else {
            self.own_queue
                .get_mut(&table.id)
                .is_some_and(|(_, m)| m.remove(&key))
        };
        if !there {
            return false;
        }
        self.note_taken(table, d, c);
        true
    }
}

/// `test` run on each row of `batch` in turn, up to the first it fails on: the results before
/// it, and its error.
fn row_by_row<E>(
    batch: &RecordBatch,
    test: &mut dyn FnMut(&RecordBatch) -> Result<Vec<bool>, E>,
) -> (Vec<bool>, Option<E>) {
    let mut accepted = Vec::with_capacity(batch.num_rows());
    for i in 0..batch.num_rows() {
        match test(&batch.slice(i, 1)) {
            Ok(v) => accepted.push(v.first().copied().unwrap_or(false)),
            Err(e) => return (accepted, Some(e)),
        }
    }
    (accepted, None)
}
