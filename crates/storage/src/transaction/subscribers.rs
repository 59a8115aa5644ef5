//! Queues with subscribers (docs/queues.md, Subscribers; AQ's multi-consumer queues): an
//! INSERT into such a queue puts the row in the queue and a copy of it in each subscriber's
//! table ([`crate::catalog::TableSchema::subscription`]), under the same sequence number and
//! so the same queue key; a subscriber consumes its copies as from any queue; the queue's row
//! leaves when the last copy has been consumed.
//!
//! Invariants:
//! - a row of a queue with subscribers and its copies share their sequence number, and every
//!   copy is of a row still in the queue (a copy never outlives its row);
//! - the queue's `copies` map counts, per sequence number, the copies that are committed and
//!   not consumed by a committed transaction: it changes only at commit, decided one commit
//!   at a time under its mutex ([`Transaction::settle_subscribers`]), so of two transactions
//!   consuming a row's last two copies exactly one sees the count reach 0, and that one deletes
//!   the row in the same log record as its consume (atomic on disk); the mutex is held until
//!   the commit's log record has its place in the log, so records of commits that decided for
//!   one queue replay in the order they decided (a crash keeps a prefix: never the deletion
//!   of a row without the consumes it counted on);
//! - a reopen counts the copies afresh ([`count_copies`]);
//! - counts are netted per row before they change: a counted rollback (`ATTEMPTS`) deletes a
//!   copy and writes its new version under the same sequence number (no change), a dead
//!   letter or an expiry is one copy less;
//! - whatever may delete queue rows holds the queue's ROW WRITE: a take from a subscriber's
//!   table ([`Transaction::lock_queue_of`]), an expiry or a lease's return
//!   ([`Transaction::lock_queue_for_side_work`]); a DELETE of a queue row takes its copies
//!   first ([`Transaction::delete_copies`]), so no other commit can need a row it holds.
//!
//! A commit whose log write fails after its count was decided gives the count back; if a later
//! commit had meanwhile deleted the row on the strength of it, the copy stays without its row
//! (the database then accepts no more commits; at reopen the copy is still consumable and the
//! row no longer shows in a browse of the queue).

use super::{HeldLocks, Transaction, Undo};
use crate::catalog::{Catalog, Subscription};
use crate::error::StorageError;
use crate::locks::LockMode;
use crate::mvcc::DEAD;
use crate::table::{RowId, Table};
use crate::types::Value;
use std::sync::Arc;

/// See [`Transaction::subscriber_changes`].
#[derive(Default)]
pub(super) struct Changes {
    /// (the copy's subscription, its sequence number, +1 added / -1 consumed, its queue key).
    counts: Vec<(Subscription, u64, i64, crate::queue::QueueKey)>,
    /// Queue rows this transaction inserted (and did not delete itself).
    inserted: Vec<(Arc<Table>, RowId)>,
}

impl Transaction {
    /// The subscribers' tables of `queue` this transaction may write to: committed ones and
    /// those it creates itself (a subscriber another open transaction is adding gets no
    /// copies until that commits; its CREATE SUBSCRIBER holds the queue locked meanwhile).
    fn subscriber_tables(&self, queue: &Table) -> Vec<Arc<Table>> {
        let catalog = &self.storage.catalog;
        // the version first: a change made meanwhile leaves a list newer than its version
        let version = catalog.version();
        let mut kept = queue.subscribers.lock();
        if kept.0 != version {
            *kept = (version, catalog.subscribers_of(queue));
        }
        kept.1
            .iter()
            .filter(|t| t.usable_by(self.id) && !t.is_dropped())
            .cloned()
            .collect()
    }

    /// Takes ROW WRITE on the queue of subscriber's table `table` (a take from it may end in
    /// the deletion of queue rows, and `DROP TABLE` or `LOCKING … FOR EXCLUSIVE` of the queue
    /// must wait for it), unless held; remembered in `queue_lock` if taken now. False (and
    /// no lock) if the lock is not held and `table` has no row to take: a consumer waiting
    /// for a row waits for no lock.
    ///
    /// # Errors
    /// Lock errors (7423 if `!wait` and it must wait); 3807 if the queue is gone.
    pub(super) fn lock_queue_of(
        &mut self,
        table: &Table,
        wait: bool,
    ) -> Result<bool, StorageError> {
        let Some(s) = &table.schema.subscription else {
            return Ok(true);
        };
        let q = self
            .storage
            .catalog
            .queue_of(s)
            .ok_or_else(|| StorageError::ObjectNotFound(s.queue.clone()))?;
        if crate::locks::held_covers(self.held.get(q.id), LockMode::RowWrite) {
            return Ok(true);
        }
        if self.queue_is_empty(table) && table.next_lease_end().is_none() {
            return Ok(false);
        }
        self.lock(&q, LockMode::RowWrite, !wait)?;
        self.queue_lock = Some(q);
        Ok(true)
    }

    /// Deletes the copies of the row of queue `queue` at `key` (before the row itself): each
    /// is found by that key in its subscriber's queue, among this transaction's own rows, or
    /// among its subscriber's leases; if the queue's count says some copy is still elsewhere
    /// (taken by another transaction, or being written again by one), by a walk of the
    /// subscribers' tables that have not given theirs. A copy already consumed is passed over.
    ///
    /// # Errors
    /// As [`Transaction::delete`]: [`StorageError::RowBusy`] if another open transaction
    /// took a copy or is writing its new version (the statement waits for it and runs again).
    pub(super) fn delete_copies(
        &mut self,
        queue: &Arc<Table>,
        key: crate::queue::QueueKey,
    ) -> Result<(), StorageError> {
        let subs = self.subscriber_tables(queue);
        let mut missing = Vec::new();
        let mut committed = 0u32;
        for s in &subs {
            self.lock(s, LockMode::RowWrite, false)?;
            let mut d = s.lock();
            let own = self.own_queue.get(&s.id).and_then(|(_, m)| m.get(&key));
            let shared = d.queue.get(&key).or_else(|| d.leases.row_at(&key));
            committed += u32::from(shared.is_some());
            match shared.or(own) {
                Some(r) => self.claim(s, &mut d, r)?,
                None => missing.push(s.clone()),
            }
        }
        let counted = queue.copies.lock().get(&key.2).copied().unwrap_or(0);
        if committed >= counted {
            return Ok(()); // the others were consumed
        }
        for s in &missing {
            let mut d = s.lock();
            // the newest version with the row's sequence number, unless it is gone
            let found = (0..d.seq.len() as RowId)
                .rev()
                .find(|&r| d.seq[r as usize] == key.2 && d.stamps.xmin(r) != DEAD);
            let Some(r) = found else {
                continue;
            };
            let (xmin, xmax) = (d.stamps.xmin(r), d.stamps.xmax(r));
            if xmin != self.id && self.storage.txns.is_active(xmin) {
                return Err(StorageError::RowBusy {
                    table: s.schema.name.clone(),
                    holder: xmin,
                });
            }
            if xmax == 0 || self.storage.txns.is_active(xmax) {
                self.claim(s, &mut d, r)?;
            }
        }
        Ok(())
    }

    /// For a side transaction that changes subscriber's table `table` (an expiry, a lease's
    /// return, whose commit may delete queue rows): ROW WRITE on its queue without waiting,
    /// unless `holder` (the transaction it works for) holds a lock on the queue already.
    ///
    /// # Errors
    /// [`StorageError::LockNowait`] if it must wait; 3807 if the queue is gone.
    pub(super) fn lock_queue_for_side_work(
        &mut self,
        table: &Table,
        holder: &HeldLocks,
    ) -> Result<(), StorageError> {
        let Some(s) = &table.schema.subscription else {
            return Ok(());
        };
        let q = self
            .storage
            .catalog
            .queue_of(s)
            .ok_or_else(|| StorageError::ObjectNotFound(s.queue.clone()))?;
        if holder.get(q.id) != 0 {
            return Ok(());
        }
        self.lock(&q, LockMode::RowWrite, true)
    }

    /// Gives back the queue lock [`Transaction::lock_queue_of`] took for the running take.
    pub(super) fn release_queue_lock(&mut self) {
        if let Some(q) = self.queue_lock.take() {
            self.release(&q, LockMode::RowWrite);
        }
    }

    /// [`Transaction::insert`] into a queue with subscribers: the row, then its copy in each
    /// subscriber's table under the row's sequence number. `Ok(None)`: a duplicate of a row of
    /// a SET queue, left out (`skip_duplicates`).
    ///
    /// # Errors
    /// [`StorageError::NoSubscribers`] (9924) if it has none; as [`Transaction::insert`].
    pub(super) fn insert_subscribed(
        &mut self,
        queue: &Arc<Table>,
        values: Vec<Value>,
        skip_duplicates: bool,
    ) -> Result<Option<RowId>, StorageError> {
        self.lock(queue, LockMode::RowWrite, false)?;
        self.check_creator(queue)?;
        let subs = self.subscriber_tables(queue);
        if subs.is_empty() {
            return Err(StorageError::NoSubscribers(queue.schema.name.clone()));
        }
        let (rid, seq) = {
            let mut d = queue.lock();
            let appended = d.append(
                &queue.schema,
                values.clone().into(),
                self.id,
                &self.storage.txns,
                None,
            );
            let rid = match appended {
                Ok(rid) => rid,
                Err(StorageError::DuplicateRow(_)) if skip_duplicates => return Ok(None),
                Err(e) => return Err(e),
            };
            self.note_inserted(queue, &d, rid..rid + 1);
            (rid, d.seq[rid as usize])
        };
        for s in subs {
            self.lock(&s, LockMode::RowWrite, false)?;
            let mut d = s.lock();
            let copy = d.append(
                &s.schema,
                values.clone().into(),
                self.id,
                &self.storage.txns,
                Some(seq),
            )?;
            self.note_inserted(&s, &d, copy..copy + 1);
        }
        Ok(Some(rid))
    }

    /// What a commit changes in its queues' `copies` maps: the copies it adds and consumes,
    /// and the queue rows it inserted; and those queues, by id (the order their mutexes are
    /// taken in).
    pub(super) fn subscriber_changes(&self) -> (Changes, Vec<Arc<Table>>) {
        let mut changes = Changes::default();
        for u in &self.undo {
            match u {
                Undo::Insert { table, rows } => {
                    if table.schema.subscription.is_none() && !table.schema.multi_consumer {
                        continue;
                    }
                    let d = table.lock();
                    for r in rows.clone() {
                        if d.stamps.xmax(r) == self.id {
                            continue; // consumed by this transaction itself: no copy left
                        }
                        if let Some(s) = &table.schema.subscription {
                            let k = d.queue_key(r);
                            changes.counts.push((s.clone(), d.seq[r as usize], 1, k));
                        } else {
                            changes.inserted.push((table.clone(), r));
                        }
                    }
                }
                Undo::Delete { table, row, .. } => {
                    let Some(s) = &table.schema.subscription else {
                        continue;
                    };
                    let d = table.lock();
                    if d.stamps.xmin(*row) == self.id || d.stamps.xmin(*row) == DEAD {
                        continue; // a copy this transaction made: never counted
                    }
                    let k = d.queue_key(*row);
                    changes
                        .counts
                        .push((s.clone(), d.seq[*row as usize], -1, k));
                }
                _ => {}
            }
        }
        let mut queues: Vec<Arc<Table>> = changes.inserted.iter().map(|(q, _)| q.clone()).collect();
        for (s, ..) in &changes.counts {
            if let Some(q) = self.storage.catalog.queue_of(s) {
                queues.push(q);
            }
        }
        queues.sort_by_key(|q| q.id);
        queues.dedup_by_key(|q| q.id);
        (changes, queues)
    }

    /// Before a commit is logged, with the `copies` mutex of each of `queues` held
    /// (`guards`, in the same order): counts `changes` in, and deletes (in this transaction)
    /// each queue row whose count it brings to 0, or that it inserted with every copy consumed
    /// by itself. Returns what it changed, for [`Transaction::unsettle`] if the log write then
    /// fails.
    pub(super) fn settle_subscribers(
        &mut self,
        changes: Changes,
        queues: &[Arc<Table>],
        guards: &mut [parking_lot::MutexGuard<'_, foldhash::HashMap<u64, u32>>],
    ) -> Vec<(Arc<Table>, u64, i64)> {
        let mut applied = Vec::new();
        for (q, copies) in queues.iter().zip(guards.iter_mut()) {
            let mut gone = Vec::new();
            // netted per row first: a counted rollback (`ATTEMPTS`) deletes a copy and
            // writes its new version, which is no change in the count
            let mut net: std::collections::BTreeMap<u64, (i64, crate::queue::QueueKey)> =
                std::collections::BTreeMap::new();
            for (s, seq, delta, key) in &changes.counts {
                if !s.is_of(q) {
                    continue;
                }
                let e = net.entry(*seq).or_insert((0, *key));
                e.0 += delta;
                if *delta < 0 {
                    e.1 = *key; // the consumed copy's key: the row's own
                }
            }
            for (seq, (delta, key)) in net {
                if delta == 0 {
                    continue;
                }
                let n = copies.entry(seq).or_insert(0);
                *n = n.saturating_add_signed(delta as i32);
                applied.push((q.clone(), seq, delta));
                if *n == 0 {
                    copies.remove(&seq);
                    if delta < 0 {
                        gone.push(key);
                    }
                }
            }
            // a row inserted here whose copies were all consumed here has no count
            {
                let d = q.lock();
                for (t, r) in &changes.inserted {
                    if Arc::ptr_eq(t, q) && !copies.contains_key(&d.seq[*r as usize]) {
                        gone.push(d.queue_key(*r));
                    }
                }
            }
            self.delete_queue_rows(q, &gone);
        }
        applied
    }

    /// Deletes the rows of queue `q` at `keys` (committed and queued, or this transaction's
    /// own pending ones) in this transaction; a key with no such row is passed over.
    fn delete_queue_rows(&mut self, q: &Arc<Table>, keys: &[crate::queue::QueueKey]) {
        if keys.is_empty() {
            return;
        }
        let mut d = q.lock();
        for key in keys {
            let committed = d.queue.get(key);
            let row =
                committed.or_else(|| self.own_queue.get(&q.id).and_then(|(_, own)| own.get(key)));
            let Some(row) = row else {
                continue;
            };
            if self.claim(q, &mut d, row).is_ok() && committed.is_some() {
                // a row every subscriber consumed: counted as consumed (until undone)
                d.consumed += 1;
                if let Some(Undo::Delete { consumed, .. }) = self.undo.last_mut() {
                    *consumed = true;
                }
            }
        }
    }

    /// Gives back the counts [`Transaction::settle_subscribers`] changed (its commit failed).
    pub(super) fn unsettle(applied: Vec<(Arc<Table>, u64, i64)>) {
        for (q, seq, delta) in applied {
            let mut copies = q.copies.lock();
            let n = copies.entry(seq).or_insert(0);
            *n = n.saturating_add_signed(-delta as i32);
            if *n == 0 {
                copies.remove(&seq);
            }
        }
    }
}

/// Counts the copies in every subscriber's table into its queue's `copies` map (at open).
pub(crate) fn count_copies(catalog: &Catalog) {
    for t in catalog.all_tables() {
        let Some(s) = &t.schema.subscription else {
            continue;
        };
        let Some(q) = catalog.queue_of(s) else {
            continue;
        };
        let seqs = t.lock().live_seqs();
        let mut copies = q.copies.lock();
        for seq in seqs {
            *copies.entry(seq).or_insert(0) += 1;
        }
    }
}
