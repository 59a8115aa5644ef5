//! Leases (docs/queues.md, Leases; the registry is [`crate::lease`]): a consume that takes
//! rows for a while without holding them in a transaction, and the end of such a take.
//!
//! - **Taking**: the consume takes its rows as any consume does (claimed by this transaction,
//!   out of the queue index), then [`Transaction::lease_taken`] turns those claims into a
//!   lease: the undo entries go, the rows are unclaimed (readers and writers see them as
//!   before) and stay out of the queue index, in the table's lease registry. Nothing is
//!   logged: the lease stands whatever this transaction does next.
//! - **Ending** ([`Transaction::return_leases`]): a transaction of its own claims the rows
//!   that are still there (not deleted since) as if it had consumed them and rolls back, so
//!   they go back to their places in the queue, counting an attempt in a queue with `ATTEMPTS`
//!   (`attempts`). A lease with a row a transaction still open is changing (an `ACKNOWLEDGE`
//!   that has not committed) waits, whole, until that transaction ends: an acknowledgement
//!   deletes all of a lease's rows or fails with none. Ends happen at a lease's time (each
//!   take from the queue returns the leases due first, and a waiting consumer's timer is the
//!   first lease end), by `RELEASE`, and when the session that took them ends.
//! - **Acknowledging** ([`Transaction::acknowledge`]): deletes a lease's rows in this
//!   transaction, as a DELETE would; committed, they are gone, and the lease ends with
//!   nothing to give back. Rolled back, they are still leased.

use super::{Outcome, Requeue, Transaction, Undo};
use crate::error::StorageError;
use crate::lease::Lease;
use crate::locks::LockMode;
use crate::mvcc::DEAD;
use crate::table::{wall_clock_us, RowId, Table};
use std::sync::Arc;

impl Transaction {
    /// Turns the rows this transaction just took from `table` by consume (`rows`, the last
    /// entries of its undo list) into a lease that ends `for_us` µs from now; returns its
    /// number.
    ///
    /// # Errors
    /// [`StorageError::LeaseOwnRows`] if a row is one this transaction inserted (nothing is
    /// changed: the caller undoes the statement).
    pub fn lease_taken(
        &mut self,
        table: &Arc<Table>,
        rows: &[RowId],
        for_us: i64,
    ) -> Result<u64, StorageError> {
        let n = rows.len();
        let start = self
            .undo
            .len()
            .checked_sub(n)
            .ok_or(StorageError::TransactionEnded)?;
        let mut keys = Vec::with_capacity(n);
        for (u, &want) in self.undo[start..].iter().zip(rows) {
            match u {
                Undo::Delete {
                    table: t,
                    row,
                    requeue: Some(Requeue::Index(key)),
                    consumed: true,
                } if Arc::ptr_eq(t, table) && *row == want => keys.push(*key),
                Undo::Delete {
                    requeue: Some(Requeue::Own(_)),
                    ..
                } => return Err(StorageError::LeaseOwnRows(table.schema.name.clone())),
                _ => return Err(StorageError::TransactionEnded),
            }
        }
        self.undo.truncate(start);
        let id = 1 + self
            .storage
            .last_lease
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let earlier;
        {
            let mut d = table.lock();
            for &row in rows {
                d.stamps.set_xmax(row, 0);
            }
            let before = d.leases.first_end();
            d.leases.add(
                id,
                Lease {
                    until: wall_clock_us().saturating_add(for_us),
                    session: self.session,
                    rows: keys.into_iter().zip(rows.iter().copied()).collect(),
                },
            );
            table.note_leases(&d);
            earlier = d.leases.first_end() < before;
        }
        // index entries this transaction set aside for the rows it no longer deletes
        table.unhide(self.id, false);
        if earlier {
            // consumers asleep on the queue set their timers for the leases there were
            self.note_side_outcome(Outcome {
                retimed: vec![table.clone()],
                ..Outcome::default()
            });
        }
        Ok(id)
    }

    /// `ACKNOWLEDGE`: deletes the rows of leases `ids` of `table` that are still there, in
    /// this transaction; how many.
    ///
    /// # Errors
    /// [`StorageError::LeaseEnded`] for a lease that is not there; as
    /// [`Transaction::delete`].
    pub fn acknowledge(&mut self, table: &Arc<Table>, ids: &[u64]) -> Result<u64, StorageError> {
        self.lock(table, LockMode::RowWrite, false)?;
        let mut deleted = 0;
        for &id in ids {
            // the lease is looked up, its rows claimed and the lease taken out of the registry
            // under one hold of the mutex: no end of the lease comes in between
            let mut d = table.lock();
            let ended = || StorageError::LeaseEnded {
                table: table.schema.name.clone(),
                lease: id,
            };
            let lease = d.leases.get(id).ok_or_else(ended)?;
            // rows a commit deleted or changed are gone; one another open transaction is
            // changing fails the claim (RowBusy: the statement waits for it and runs again)
            let live: Vec<RowId> = lease
                .rows
                .iter()
                .map(|(_, r)| *r)
                .filter(|&r| {
                    let xmax = d.stamps.xmax(r);
                    d.stamps.xmin(r) != DEAD
                        && (xmax == 0 || xmax == self.id || self.storage.txns.is_active(xmax))
                })
                .collect();
            if live.is_empty() {
                // every row gone (deleted by others): the lease is over
                d.leases.remove(id);
                table.note_leases(&d);
                return Err(ended());
            }
            for row in live {
                self.claim(table, &mut d, row)?;
                deleted += 1;
            }
            // over for everyone now; back in the registry if this transaction rolls back
            if let Some(lease) = d.leases.remove(id) {
                table.note_leases(&d);
                let handle = self.handle(table);
                self.undo.push(Undo::EndLease {
                    table: handle,
                    id,
                    lease: Box::new(lease),
                });
            }
        }
        Ok(deleted)
    }

    /// Ends leases `ids` of `table` now (`RELEASE`, or the end of the session that took
    /// them): their rows go back to the queue (see the module doc); how many went back.
    ///
    /// # Errors
    /// [`StorageError::LeaseEnded`] for a lease that is not there (the others still end).
    pub fn release_leases(&mut self, table: &Arc<Table>, ids: &[u64]) -> Result<u64, StorageError> {
        self.lock(table, LockMode::RowWrite, false)?;
        let (returned, missing) = self.return_leases(table, ids)?;
        match missing {
            Some(lease) => Err(StorageError::LeaseEnded {
                table: table.schema.name.clone(),
                lease,
            }),
            None => Ok(returned),
        }
    }

    /// Ends leases `ids` of `table` now if they are still there and the queue's lock can be
    /// had at once, taking no lock in this transaction (a failed request's leases; see
    /// [`Transaction::release_leases`] for `RELEASE`); otherwise they end at their time.
    pub fn end_leases_now(&mut self, table: &Arc<Table>, ids: &[u64]) {
        if self.return_leases(table, ids).is_err() {
            self.due_now(table, ids);
        }
    }

    /// Makes leases `ids` of `table` due now, so that the next take gives them back (they
    /// could not be given back at once).
    fn due_now(&mut self, table: &Table, ids: &[u64]) {
        let now = wall_clock_us();
        let mut d = table.lock();
        for &id in ids {
            if let Some(mut lease) = d.leases.remove(id) {
                lease.until = lease.until.min(now);
                d.leases.add(id, lease);
            }
        }
        table.note_leases(&d);
    }

    /// Before a take from `table`: ends the leases whose time has come.
    pub(super) fn return_due_leases(&mut self, table: &Arc<Table>) {
        let Some(first) = table.next_lease_end() else {
            return;
        };
        let now = wall_clock_us();
        if first > now {
            return;
        }
        let due = table.lock().leases.ended_by(now);
        // a queue locked against it now gives them back at a later take
        let _ = self.return_leases(table, &due);
    }

    /// Ends the leases session `session` took on `table`, if any (the session is ending).
    pub fn release_session_leases(&mut self, table: &Arc<Table>, session: u64) {
        let mine = table.lock().leases.of_session(session);
        if !mine.is_empty() && self.return_leases(table, &mine).is_err() {
            // a queue locked against it now: the next take gives them back
            self.due_now(table, &mine);
        }
    }

    /// Ends leases `ids` of `table`: their rows that are still there go back to the queue in
    /// a transaction of its own (its outcome kept for the session, see
    /// [`Transaction::take_side_outcome`]). Returns how many went back, and a lease of `ids`
    /// that was not there.
    ///
    /// # Errors
    /// [`StorageError::LockNowait`] if the queue's ROW WRITE lock cannot be had at once (a
    /// `LOCKING … FOR READ|WRITE|EXCLUSIVE` or a DDL holds it): nothing changed.
    fn return_leases(
        &mut self,
        table: &Arc<Table>,
        ids: &[u64],
    ) -> Result<(u64, Option<u64>), StorageError> {
        let mut x = Transaction::begin(&self.storage);
        x.set_session(self.session);
        // the returned rows are written (a count) as any change: under the queue's lock,
        // unless this transaction (the same session) holds one already, which keeps the
        // others out until `x`, done within this call, is
        if self.held.get(table.id) == 0 {
            x.lock(table, LockMode::RowWrite, true)?;
        }
        // a subscriber's table: its queue too (the commit may delete the queue's rows)
        x.lock_queue_for_side_work(table, &self.held)?;
        let mut missing = None;
        let mut returned = 0;
        {
            let mut d = table.lock();
            for &id in ids {
                let Some(lease) = d.leases.remove(id) else {
                    missing = Some(id);
                    continue;
                };
                // a row an open transaction is changing (an acknowledgement on its way): the
                // lease waits for it to end, whole, so that an acknowledgement takes all of
                // its rows or, if it rolls back, none goes missing
                let busy = lease.rows.iter().any(|&(_, row)| {
                    let xmax = d.stamps.xmax(row);
                    xmax != 0 && d.stamps.xmin(row) != DEAD && self.storage.txns.is_active(xmax)
                });
                if busy {
                    d.leases.add(id, lease);
                    continue;
                }
                let gone = lease
                    .rows
                    .iter()
                    .all(|&(_, row)| d.stamps.xmin(row) == DEAD || d.stamps.xmax(row) != 0);
                if gone {
                    // every row gone (an acknowledgement committed): it was over already
                    missing = Some(id);
                    continue;
                }
                for (key, row) in lease.rows {
                    if d.stamps.xmin(row) == DEAD || d.stamps.xmax(row) != 0 {
                        continue; // deleted or changed by a commit: gone from the lease
                    }
                    // back as a consume of it rolled back would bring it
                    x.claim_queued(table, &mut d, (key, row), true);
                    returned += 1;
                }
            }
            table.note_leases(&d);
        }
        let out: Outcome = x.rollback_in_place();
        self.note_side_outcome(out);
        Ok((returned, missing))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transaction::tests::queue;
    use crate::types::Value;
    use crate::Storage;

    /// Takes the first row by consume and leases it for `for_us`; (lease, n).
    fn lease(storage: &Arc<Storage>, q: &Arc<Table>, for_us: i64) -> (u64, Value) {
        let mut t = Transaction::begin(storage);
        let (row, values) = t.consume(q, false, None).unwrap().unwrap();
        let id = t.lease_taken(q, &[row], for_us).unwrap();
        // the lease stands whatever the transaction does
        t.rollback();
        (id, values[1].clone())
    }

    fn next(storage: &Arc<Storage>, q: &Arc<Table>) -> Option<Value> {
        let mut t = Transaction::begin(storage);
        let taken = t
            .consume(q, false, None)
            .unwrap()
            .map(|(_, v)| v[1].clone());
        t.rollback();
        taken
    }

    #[test]
    fn a_leased_row_is_out_of_the_queue_until_released() {
        let storage = Arc::new(Storage::default());
        let q = queue(&storage);
        let (id, n) = lease(&storage, &q, 60_000_000);
        assert_eq!(n, Value::Int(0));
        assert_eq!(
            next(&storage, &q),
            Some(Value::Int(1)),
            "the leased row is skipped"
        );
        let t = Transaction::begin(&storage);
        let stats = q.queue_stats(&t.snapshot());
        assert_eq!((stats.depth, stats.in_flight), (2, 1));
        drop(t);
        let mut t = Transaction::begin(&storage);
        assert_eq!(t.release_leases(&q, &[id]), Ok(1));
        assert!(
            t.take_side_outcome().is_some(),
            "the row is published for waiters"
        );
        t.commit().unwrap();
        assert_eq!(next(&storage, &q), Some(Value::Int(0)), "back in its place");
        let mut t = Transaction::begin(&storage);
        assert!(matches!(
            t.release_leases(&q, &[id]),
            Err(StorageError::LeaseEnded { lease, .. }) if lease == id
        ));
    }

    #[test]
    fn a_lease_ends_at_its_time_at_the_next_take() {
        let storage = Arc::new(Storage::default());
        let q = queue(&storage);
        let (_, n) = lease(&storage, &q, 0);
        assert_eq!(n, Value::Int(0));
        assert!(q.next_lease_end().is_some());
        assert_eq!(
            next(&storage, &q),
            Some(Value::Int(0)),
            "returned, then taken"
        );
        assert!(q.next_lease_end().is_none());
    }

    #[test]
    fn an_acknowledgement_deletes_when_committed_and_not_when_rolled_back() {
        let storage = Arc::new(Storage::default());
        let q = queue(&storage);
        let (id, _) = lease(&storage, &q, 60_000_000);
        let mut t = Transaction::begin(&storage);
        assert_eq!(t.acknowledge(&q, &[id]), Ok(1));
        // while the acknowledgement is open, the lease is over for everyone else
        let mut other = Transaction::begin(&storage);
        assert!(matches!(
            other.release_leases(&q, &[id]),
            Err(StorageError::LeaseEnded { .. })
        ));
        other.commit().unwrap();
        t.rollback();
        // rolled back: still leased, so not in the queue; released, it comes back
        assert_eq!(next(&storage, &q), Some(Value::Int(1)));
        let mut t = Transaction::begin(&storage);
        assert_eq!(t.release_leases(&q, &[id]), Ok(1));
        t.commit().unwrap();
        assert_eq!(next(&storage, &q), Some(Value::Int(0)));
        // acknowledged and committed: gone for good, and the lease is over
        let (id, _) = lease(&storage, &q, 60_000_000);
        let mut t = Transaction::begin(&storage);
        assert_eq!(t.acknowledge(&q, &[id]), Ok(1));
        t.commit().unwrap();
        let mut t = Transaction::begin(&storage);
        assert!(matches!(
            t.release_leases(&q, &[id]),
            Err(StorageError::LeaseEnded { .. })
        ));
        assert!(matches!(
            t.acknowledge(&q, &[id]),
            Err(StorageError::LeaseEnded { .. })
        ));
        t.commit().unwrap();
        assert_eq!(next(&storage, &q), Some(Value::Int(1)));
    }

    #[test]
    fn a_lease_due_while_it_is_being_acknowledged_gives_nothing_back() {
        let storage = Arc::new(Storage::default());
        let q = queue(&storage);
        let (id, _) = lease(&storage, &q, 0);
        let mut t = Transaction::begin(&storage);
        assert_eq!(t.acknowledge(&q, &[id]), Ok(1));
        // its time has come: the next take would give it back, but it is being acknowledged
        assert_eq!(next(&storage, &q), Some(Value::Int(1)));
        t.rollback();
        // rolled back, the lease is back, still due: the next take gives the row back first
        assert_eq!(next(&storage, &q), Some(Value::Int(0)));
    }

    #[test]
    fn a_transactions_own_rows_cannot_be_leased() {
        let storage = Arc::new(Storage::default());
        let q = queue(&storage);
        let mut t = Transaction::begin(&storage);
        t.insert(&q, vec![Value::Timestamp(-1), Value::Int(9)])
            .unwrap();
        let (row, _) = t.consume(&q, false, None).unwrap().unwrap();
        assert!(matches!(
            t.lease_taken(&q, &[row], 1),
            Err(StorageError::LeaseOwnRows(_))
        ));
    }

    #[test]
    fn a_session_that_ends_gives_its_leases_back() {
        let storage = Arc::new(Storage::default());
        let q = queue(&storage);
        let mut t = Transaction::begin(&storage);
        t.set_session(42);
        let (row, _) = t.consume(&q, false, None).unwrap().unwrap();
        t.lease_taken(&q, &[row], 60_000_000).unwrap();
        t.commit().unwrap();
        let mut t = Transaction::begin(&storage);
        t.release_session_leases(&q, 41);
        assert_eq!(
            next(&storage, &q),
            Some(Value::Int(1)),
            "another session's: kept"
        );
        t.release_session_leases(&q, 42);
        assert_eq!(next(&storage, &q), Some(Value::Int(0)));
    }
}
