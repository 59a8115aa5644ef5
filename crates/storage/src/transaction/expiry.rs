//! Expiry (docs/queues.md, Attempts, expiry and dead letters): a queue with `EXPIRE AFTER`
//! never hands out a row whose QITS is that long past; such rows go to its dead-letter table.
//!
//! Every take from such a queue first looks at the head of its queue index (rows leave in QITS
//! order, so the expired rows are the first ones). If the first has expired, a transaction of
//! its own claims the expired rows at the head ([`EXPIRE_BATCH`] at a time, each batch its own
//! commit, until the head has not expired), copies them
//! into the dead-letter table with the reason `EXPIRED`, and commits (logged like any
//! commit) before the take goes on; its outcome waits in [`Transaction::take_side_outcome`]
//! for the session to wake the dead-letter table's consumers.
//!
//! Invariants: no take hands out an expired row (`pop_locked` and the selective walk pass over
//! committed rows whose QITS is at most the cutoff, whether or not they have moved yet); the
//! expired rows leave the queue and enter the dead-letter table in one commit (never both,
//! never neither); the move never waits for a lock (if the queue or the dead-letter table
//! cannot be locked at once, or the latter is missing, the rows stay, passed over, until a
//! later take moves them). Rows this transaction inserted itself are not in the queue yet and
//! do not expire. A queue nobody takes from keeps its expired rows until someone does. "Now"
//! is the system clock.

use super::dead_letter::REASON_EXPIRED;
use super::{Outcome, Transaction};
use crate::locks::LockMode;
use crate::mvcc::DEAD;
use crate::table::Table;
use std::sync::Arc;

/// The most rows one take moves out of the queue (the next take moves the next ones).
pub const EXPIRE_BATCH: usize = 1024;

impl Transaction {
    /// In a queue with `EXPIRE AFTER`, the newest QITS that has expired now (by the system
    /// clock); `None` for other tables.
    #[inline]
    pub(super) fn expiry_cutoff(&self, table: &Table) -> Option<i64> {
        let after = table.expire_after_us?;
        Some(crate::table::wall_clock_us().saturating_sub(after))
    }

    /// Before a take from `table`: the housekeeping a take does first, unless
    /// [`Transaction::set_side_work`] turned it off: leases that have ended give their rows
    /// back, expired rows move to the dead-letter table.
    #[inline]
    pub(super) fn side_work(&mut self, table: &Arc<Table>) {
        // the usual queue: no expiry, no lease (one field and one atomic read)
        if self.no_side_work
            || (table.expire_after_us.is_none() && table.next_lease_end().is_none())
        {
            return;
        }
        self.return_due_leases(table);
        self.expire_head(table);
    }

    /// Turns a take's housekeeping (`side_work`: commits of transactions of
    /// its own) off or back on: off for a take made under a lock no one may wait on for long
    /// (the session's waiter registry). A take without it still hands out no expired row.
    pub fn set_side_work(&mut self, on: bool) {
        self.no_side_work = !on;
    }

    /// Moves the rows at the head of `table`'s queue whose QITS is `EXPIRE AFTER` or more
    /// before now to its dead-letter table (see the module doc). Does nothing for other
    /// queues.
    fn expire_head(&mut self, table: &Arc<Table>) {
        let Some(cutoff) = self.expiry_cutoff(table) else {
            return;
        };
        // a batch at a time, each its own commit, until the head has not expired
        while self.expire_batch(table, cutoff) == EXPIRE_BATCH {}
    }

    /// Moves up to [`EXPIRE_BATCH`] rows at the head of `table`'s queue whose QITS is at most
    /// `cutoff`; how many it moved.
    fn expire_batch(&mut self, table: &Arc<Table>, cutoff: i64) -> usize {
        let expired =
            |d: &crate::table::TableData| d.queue.first().is_some_and(|(k, _)| k.1 <= cutoff);
        if !expired(&table.lock()) {
            return 0;
        }
        let mut x = Transaction::begin(&self.storage);
        x.set_session(self.session);
        if x.lock(table, LockMode::RowWrite, true).is_err()
            || x.lock_queue_for_side_work(table, &self.held).is_err()
            || x.check_creator(table).is_err()
        {
            return 0;
        }
        let mut rows = Vec::new();
        {
            let mut d = table.lock();
            while rows.len() < EXPIRE_BATCH && expired(&d) {
                let Some((key, row)) = d.pop_queue() else {
                    break;
                };
                // the index holds only unclaimed rows (as in `pop_locked`)
                if d.stamps.xmax(row) != 0 || d.stamps.xmin(row) == DEAD {
                    continue;
                }
                x.claim_queued(table, &mut d, (key, row), false);
                rows.push(d.row(row));
            }
        }
        let moved = rows.len();
        for values in rows {
            if !x.copy_to_dead_letter(table, values, REASON_EXPIRED) {
                // all of them back, as they were
                let back = x.rollback_in_place();
                self.note_side_outcome(back);
                return 0;
            }
        }
        match x.commit_in_place() {
            Ok(out) => {
                table.lock().dead_lettered += moved as u64;
                self.note_side_outcome(out);
                moved
            }
            Err(failed) => {
                self.note_side_outcome(*failed.outcome);
                0
            }
        }
    }

    /// Keeps what another transaction this one ran published, for the session to wake the
    /// waiters of ([`Transaction::take_side_outcome`]).
    pub(super) fn note_side_outcome(&mut self, out: Outcome) {
        if out.published.is_empty() && out.removed.is_empty() && out.retimed.is_empty() {
            return;
        }
        let side = self.side.get_or_insert_with(Box::default);
        side.published.extend(out.published);
        side.removed.extend(out.removed);
        side.retimed.extend(out.retimed);
    }

    /// What transactions this one ran on its own behalf (expiry) published since the last
    /// call: rows to wake the waiters of, as a commit's outcome says.
    pub fn take_side_outcome(&mut self) -> Option<Outcome> {
        self.side.take().map(|b| *b)
    }
}
