//! A storage transaction: the writes it made (as an undo list), the queue rows it inserted but
//! has not published, and commit/rollback.
//!
//! Invariants:
//! - every change is recorded in `undo` before the table lock is released, so rollback (asked
//!   for, caused by a failure, or by dropping the transaction) restores exactly the state before;
//! - a consumed, deleted or updated queue row leaves the queue index at once (no one else can
//!   take it or wait for it) and goes back under its original key on rollback;
//! - rows this transaction inserts into a queue become consumable by others only at commit.
//!
//! Concurrent writers: every change first takes a table lock ([`crate::locks`]: ROW WRITE for
//! row changes, EXCLUSIVE for DDL), held until the transaction ends; ROW WRITE is granted on
//! the fast path (`fastlock`, no lock manager) while no stronger lock is held or wanted. A transaction that wants
//! to change a row another open transaction has changed gets [`StorageError::RowBusy`]; one
//! whose row changed after it was read gets [`StorageError::RowChanged`]. Either way the
//! caller undoes the statement ([`Transaction::rollback_to`]), waits if told to, and runs the
//! statement again on fresh data (the session layer does this).
//!
//! Savepoints: [`Transaction::savepoint`] marks the undo list; [`Transaction::rollback_to`]
//! undoes everything after the mark exactly as a full rollback would, and keeps the locks.

use crate::catalog::TableSchema;
use crate::durable::RecordBuilder;
use crate::error::StorageError;
use crate::locks::{held_covers, LockMode};
use crate::mvcc::{Snapshot, TxnId, DEAD};
use crate::queue::{QueueIndex, QueueKey};
use crate::table::{RowId, Table, TableData, SEGMENT_ROWS};
use crate::types::{value_at, Value};
use crate::Storage;
use arrow::array::{Array, ArrayRef};
use foldhash::{HashMap, HashMapExt};
use std::ops::Range;
use std::sync::atomic::Ordering;
use std::sync::Arc;

mod attempts;
mod dead_letter;
mod expiry;
mod lease;
mod selective;
mod subscribers;
pub use dead_letter::{REASON_EXPIRED, REASON_MAX_ATTEMPTS};
pub use selective::Selection;
pub(crate) use subscribers::count_copies;

enum Undo {
    /// Rows this transaction created, consecutive RowIds.
    Insert {
        table: Arc<Table>,
        rows: Range<RowId>,
    },
    Delete {
        table: Arc<Table>,
        row: RowId,
        requeue: Option<Requeue>,
        /// Taken by a consume (counted in the table's consumed rows until undone).
        consumed: bool,
    },
    CreateTable(Arc<Table>),
    DropTable(Arc<Table>),
    /// A lease this transaction acknowledged, taken out of its table's registry (see
    /// `lease`): back in on undo.
    EndLease {
        table: Arc<Table>,
        id: u64,
        /// (boxed: the undo list's entries stay as small as a row's)
        lease: Box<crate::lease::Lease>,
    },
}

/// Where a claimed queue row goes back on undo.
#[derive(Clone, Copy)]
enum Requeue {
    /// Into the committed queue index, under this key.
    Index(QueueKey),
    /// Into this transaction's own pending inserts (it inserted the row itself).
    Own(QueueKey),
}

/// The table locks a transaction holds, as mode bits per table id (a transaction locks few
/// tables: a short list searched in order beats a hash map).
#[derive(Default)]
struct HeldLocks(Vec<(u64, u8)>);

impl HeldLocks {
    fn get(&self, table: u64) -> u8 {
        self.0
            .iter()
            .find(|(t, _)| *t == table)
            .map_or(0, |&(_, b)| b)
    }

    fn set(&mut self, table: u64, bits: u8) {
        match self.0.iter_mut().find(|(t, _)| *t == table) {
            Some(e) => e.1 = bits,
            None => self.0.push((table, bits)),
        }
    }

    fn add(&mut self, table: u64, bits: u8) {
        let now = self.get(table) | bits;
        self.set(table, now);
    }

    fn clear(&mut self, table: u64, bits: u8) {
        if let Some(e) = self.0.iter_mut().find(|(t, _)| *t == table) {
            e.1 &= !bits;
        }
    }

    fn any(&self) -> bool {
        self.0.iter().any(|&(_, b)| b != 0)
    }
}

/// A mark in a transaction's history; [`Transaction::rollback_to`] undoes what came after it.
#[derive(Debug, Clone, Copy)]
pub struct Savepoint(usize);

impl Savepoint {
    /// The start of a transaction (rolling back to it undoes everything, keeping the locks).
    pub const START: Savepoint = Savepoint(0);
}

/// What commit or rollback changed in queue tables, so the session layer can wake waiters.
#[derive(Default)]
pub struct Outcome {
    /// Queue tables that gained consumable rows, with those rows (a commit's in consume
    /// order).
    pub published: Vec<(Arc<Table>, Vec<RowId>)>,
    /// Tables that disappeared (a rolled-back CREATE TABLE): their waiters must fail.
    pub removed: Vec<Arc<Table>>,
    /// Queues whose first lease end came earlier (a new lease): their sleeping consumers must
    /// set their timers again (docs/queues.md, Leases).
    pub retimed: Vec<Arc<Table>>,
}

/// A commit that could not be made durable: the transaction was rolled back instead.
#[derive(Debug)]
pub struct CommitFailed {
    /// Why (an I/O error; the database accepts no more commits).
    pub error: StorageError,
    /// What the rollback changed (queue rows put back), for waking waiters.
    pub outcome: Box<Outcome>,
}

impl std::fmt::Debug for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Outcome")
            .field("published", &self.published.len())
            .field("removed", &self.removed.len())
            .field("retimed", &self.retimed.len())
            .finish()
    }
}

/// Rows [`Transaction::take_many`] took, in consume order, and the columns asked for as
/// arrays of that many rows.
pub type Taken = (Vec<RowId>, Vec<ArrayRef>);

/// A transaction: open until [`Transaction::commit`] or [`Transaction::rollback`] (or their
/// `_in_place` forms, which leave it ended, to be started again with
/// [`Transaction::restart`]). Dropping an open one rolls it back.
pub struct Transaction {
    id: TxnId,
    /// This object's slot: where its transactions publish their ids (`mvcc`) and record
    /// their fast-path ROW WRITE locks (kept across restarts, given back when the object is
    /// dropped).
    slot: crate::slots::TxnSlot,
    storage: Arc<Storage>,
    undo: Vec<Undo>,
    /// Queue rows this transaction inserted, by table id (a fixed hash seed: the ids are
    /// the engine's own, and a random seed per transaction costs a consume measurably).
    own_queue: std::collections::HashMap<u64, (Arc<Table>, QueueIndex), foldhash::fast::FixedState>,
    /// Table locks held: table id → mode bits.
    held: HeldLocks,
    /// The lock manager knows this transaction (it locked or waited): its end must tell it.
    /// A transaction that only read, or locked only on the fast path, never touches the
    /// manager's mutex.
    used_locks: bool,
    /// Tables this transaction holds ROW WRITE on through the fast path (`fastlock`).
    fast: Vec<Arc<Table>>,
    /// Tables on which this transaction counts as wanting a strong lock (`fastlock`).
    strong: Vec<Arc<Table>>,
    session: u64,
    ended: bool,
    /// Handles of tables an earlier transaction of this object changed, to use instead of
    /// cloning (see [`Transaction::restart`]).
    kept: Vec<Arc<Table>>,
    /// What transactions run on this one's behalf published (see `expiry`), until the
    /// session takes it (boxed: the transaction, moved at each commit, stays small).
    side: Option<Box<Outcome>>,
    /// A take does no housekeeping ([`Transaction::set_side_work`]).
    no_side_work: bool,
    /// The last QITS a `RETRY DELAY` gave a counted row of each table, in the rollback
    /// counting attempts now (see `attempts`).
    last_retry_qits: Vec<(u64, i64)>,
    /// It changed a queue with subscribers or a subscriber's table: its commit settles their
    /// counts first (see `subscribers`).
    subscribed: bool,
    /// The queue whose ROW WRITE the running take took for a subscriber's table (given back
    /// if the take takes nothing).
    queue_lock: Option<Arc<Table>>,
    /// Tables whose identity numbers this transaction took: its commit logs their generators'
    /// states (see `identity`).
    numbered: Vec<Arc<Table>>,
}

/// How many table handles an ended transaction keeps for its restart.
const KEPT_TABLES: usize = 8;

/// The largest undo list buffer (in entries) an ended transaction keeps for its restart.
const KEPT_UNDO: usize = 4096;

impl Transaction {
    /// Starts a transaction.
    pub fn begin(storage: &Arc<Storage>) -> Self {
        // (the slot first: taking one may wait)
        let slot = storage.txns.slots.acquire();
        let id = storage.txns.begin_in(&slot);
        Transaction {
            id,
            slot,
            storage: storage.clone(),
            undo: Vec::new(),
            own_queue: Default::default(),
            held: HeldLocks::default(),
            used_locks: false,
            fast: Vec::new(),
            strong: Vec::new(),
            session: 0,
            ended: false,
            kept: Vec::new(),
            side: None,
            no_side_work: false,
            last_retry_qits: Vec::new(),
            subscribed: false,
            queue_lock: None,
            numbered: Vec::new(),
        }
    }

    /// Starts a new transaction in this ended one ([`Transaction::commit_in_place`],
    /// [`Transaction::rollback_in_place`]): a new id, the same session, and the handles
    /// (`Arc`s) of the storage and of the tables the ended one changed, kept instead of cloned
    /// again. Each undo entry and fast-path lock holds a handle of its table, and a clone
    /// writes the table's reference count: one cache line that every session changing the
    /// table would write on each change, consumers on other cores waiting for it in turn.
    /// Returns false (and does nothing) if this transaction has not ended.
    pub fn restart(&mut self) -> bool {
        if !self.ended {
            return false;
        }
        // ended: its undo list, own queue rows, fast and strong locks are given back already
        self.undo.clear();
        self.own_queue.clear();
        self.held = HeldLocks::default();
        self.used_locks = false;
        self.fast.clear();
        self.strong.clear();
        // a handle of a table dropped since is let go (it keeps the table's memory alive)
        self.kept.retain(|t| !t.is_dropped());
        self.subscribed = false;
        self.queue_lock = None;
        self.numbered.clear();
        // (its fast-path entries were cleared at the end: see `fastlock`)
        self.id = self.storage.txns.begin_in(&self.slot);
        self.ended = false;
        true
    }

    /// True once committed or rolled back (then only [`Transaction::restart`] makes it usable).
    pub fn is_ended(&self) -> bool {
        self.ended
    }

    /// A handle of `table`: a kept one if there is one, else a clone.
    fn handle(&mut self, table: &Arc<Table>) -> Arc<Table> {
        self.subscribed |= table.schema.multi_consumer || table.schema.subscription.is_some();
        match self.kept.iter().position(|t| Arc::ptr_eq(t, table)) {
            Some(i) => self.kept.swap_remove(i),
            None => table.clone(),
        }
    }

    /// Keeps `table`'s handle for the session's next transaction, if there is room and the
    /// table was not dropped (a kept handle keeps the table's memory alive).
    fn keep(&mut self, table: Arc<Table>) {
        if self.kept.len() < KEPT_TABLES && !table.is_dropped() {
            self.kept.push(table);
        }
    }

    /// This transaction's id.
    pub fn id(&self) -> TxnId {
        self.id
    }

    /// Says which session runs this transaction (`HELP LOCKS` shows it).
    pub fn set_session(&mut self, session: u64) {
        self.session = session;
        self.slot.slot().session.store(session, Ordering::Release);
    }

    /// Takes a lock on `table`, held until this transaction ends, waiting while another
    /// transaction holds a conflicting one.
    ///
    /// # Errors
    /// 7423 [`StorageError::LockNowait`] if `nowait` and the lock is taken; 2631
    /// [`StorageError::Deadlock`] if waiting would deadlock; 3807 if the table was dropped
    /// (or its creation rolled back) while this transaction waited.
    pub fn lock(
        &mut self,
        table: &Arc<Table>,
        mode: LockMode,
        nowait: bool,
    ) -> Result<(), StorageError> {
        let have = self.held.get(table.id);
        if held_covers(have, mode) {
            return Ok(());
        }
        if mode == LockMode::RowWrite && self.join_fast(table)? {
            return Ok(());
        }
        if mode.conflicts_with(LockMode::RowWrite)
            && !self.strong.iter().any(|t| Arc::ptr_eq(t, table))
        {
            // close the fast path and hand its holders to the manager (their entries marked
            // taken, so none of them gives its lock back on the fast path), under the
            // table's hand-over mutex: a request that comes after finds them recorded
            let handover = table.handover.lock();
            let holders =
                crate::fastlock::want_strong(&self.storage.txns.slots, (table.id, &table.strong));
            self.storage
                .locks
                .adopt(&self.storage.txns, table.id, &table.schema.name, &holders);
            drop(handover);
            self.strong.push(table.clone());
        }
        self.used_locks = true;
        let bits = self.storage.locks.lock_table(
            (self.id, self.session),
            table.id,
            &table.schema.name,
            mode,
            nowait,
        )?;
        self.held.set(table.id, bits);
        if table.is_dropped() {
            // nothing will be done under it: give it back
            self.release(table, mode);
            return Err(StorageError::ObjectNotFound(table.schema.name.clone()));
        }
        Ok(())
    }

    /// Takes ROW WRITE on `table` through the fast path (`fastlock`) if it is open; false if
    /// it is not (the lock manager must be asked).
    ///
    /// # Errors
    /// 3807 if the table was dropped (nothing is then held).
    fn join_fast(&mut self, table: &Arc<Table>) -> Result<bool, StorageError> {
        match crate::fastlock::try_join(&self.slot, (table.id, &table.strong)) {
            crate::fastlock::Join::Joined => {}
            crate::fastlock::Join::Closed => return Ok(false),
            crate::fastlock::Join::Taken => {
                // a strong request marked the entry as it was made: once its hand-over is
                // done, take back the ROW WRITE it may have recorded for this transaction
                self.forget_handed(table);
                return Ok(false);
            }
        }
        if !self.fast.iter().any(|t| Arc::ptr_eq(t, table)) {
            let t = self.handle(table);
            self.fast.push(t);
        }
        self.held.add(table.id, LockMode::RowWrite.bit());
        if table.is_dropped() {
            self.release(table, LockMode::RowWrite);
            return Err(StorageError::ObjectNotFound(table.schema.name.clone()));
        }
        Ok(true)
    }

    /// Waits until transaction `other` ends (it holds a row this one wants to change).
    ///
    /// # Errors
    /// 2631 [`StorageError::Deadlock`] if `other` waits, directly or not, for this one.
    pub fn wait_for(&mut self, other: TxnId, table: &str) -> Result<(), StorageError> {
        self.used_locks = true;
        self.storage
            .locks
            .wait_for_txn(&self.storage.txns, (self.id, self.session), other, table)
    }

    /// True once the transaction has changed or locked anything.
    pub fn has_changes(&self) -> bool {
        !self.undo.is_empty() || self.held.any()
    }

    /// A mark to roll back to.
    pub fn savepoint(&self) -> Savepoint {
        Savepoint(self.undo.len())
    }

    /// Undoes every change made after `sp` (consumed rows go back to their places); the
    /// transaction stays open and keeps its locks.
    pub fn rollback_to(&mut self, sp: Savepoint) -> Outcome {
        let tail = self.undo.split_off(sp.0.min(self.undo.len()));
        self.undo_entries(tail)
    }

    /// A snapshot of what this transaction may read now.
    pub fn snapshot(&self) -> Snapshot {
        self.storage.txns.snapshot_in(Some(&self.slot), self.id)
    }

    /// Inserts a row (values already converted to the column types).
    ///
    /// # Errors
    /// 3811 NOT NULL, 2801 duplicate UPI, 2803 duplicate unique key, 2802 duplicate row (SET).
    pub fn insert(
        &mut self,
        table: &Arc<Table>,
        values: Vec<Value>,
    ) -> Result<RowId, StorageError> {
        if table.schema.multi_consumer {
            return self
                .insert_subscribed(table, values, false)
                .map(|r| r.unwrap_or_default());
        }
        self.lock(table, LockMode::RowWrite, false)?;
        self.check_creator(table)?;
        let mut d = table.lock();
        let rid = d.append(
            &table.schema,
            values.into(),
            self.id,
            &self.storage.txns,
            None,
        )?;
        self.note_inserted(table, &d, rid..rid + 1);
        Ok(rid)
    }

    /// Inserts rows given as columns in table order, each array of its column's Arrow type
    /// (values already converted): [`Transaction::insert`] for many rows under one lock. A
    /// table without unique keys or SET duplicates takes them as whole segments where they line
    /// up with a segment boundary; others check row by row. With `skip_duplicates`, a row that
    /// duplicates another in a SET table is left out (INSERT … SELECT in Teradata mode) instead
    /// of failing. Returns how many rows went in.
    ///
    /// # Errors
    /// As [`Transaction::insert`]; [`StorageError::BadValue`] if the columns do not match the
    /// table's. On an error some rows may be in: undo the statement ([`Transaction::rollback_to`]).
    pub fn insert_columns(
        &mut self,
        table: &Arc<Table>,
        cols: &[ArrayRef],
        skip_duplicates: bool,
    ) -> Result<u64, StorageError> {
        let schema = &table.schema;
        let n = cols.first().map_or(0, |c| c.len());
        let fields = schema.arrow.fields();
        if cols.len() != fields.len() {
            return Err(StorageError::BadValue {
                column: schema.name.clone(),
                reason: format!("{} columns for a table of {}", cols.len(), fields.len()),
            });
        }
        for ((c, f), col) in cols.iter().zip(fields.iter()).zip(&schema.columns) {
            if c.len() != n || c.data_type() != f.data_type() {
                return Err(StorageError::BadValue {
                    column: col.name.clone(),
                    reason: format!("{} values of type {}", c.len(), c.data_type()),
                });
            }
            if !col.nullable && c.null_count() > 0 {
                return Err(StorageError::NotNull(col.name.clone()));
            }
        }
        if n == 0 {
            return Ok(0);
        }
        if schema.multi_consumer {
            // row by row: each row's copies take its sequence number
            let mut inserted = 0;
            for r in 0..n {
                let values: Vec<Value> = cols.iter().map(|c| value_at(c.as_ref(), r)).collect();
                if self
                    .insert_subscribed(table, values, skip_duplicates)?
                    .is_some()
                {
                    inserted += 1;
                }
            }
            return Ok(inserted);
        }
        self.lock(table, LockMode::RowWrite, false)?;
        self.check_creator(table)?;
        // arrays that are small views of much bigger buffers are copied first, so a segment
        // made of them does not keep the rest alive
        let compacted: Vec<ArrayRef>;
        let cols = if n >= SEGMENT_ROWS && cols.iter().any(|c| wasteful(c.as_ref())) {
            compacted = cols.iter().map(compact).collect();
            &compacted
        } else {
            cols
        };
        // the table's mutex is held for at most one segment's worth of rows at a time, so
        // consumers and readers of the table are never held up for long
        let mut inserted = 0;
        let mut at = 0;
        while at < n {
            let mut d = table.lock();
            if d.checks_each_row() {
                let end = (at + SEGMENT_ROWS).min(n);
                for r in at..end {
                    let values: Vec<Value> = cols.iter().map(|c| value_at(c.as_ref(), r)).collect();
                    match d.append(schema, values.into(), self.id, &self.storage.txns, None) {
                        Ok(rid) => {
                            self.note_inserted(table, &d, rid..rid + 1);
                            inserted += 1;
                        }
                        Err(StorageError::DuplicateRow(_)) if skip_duplicates => {}
                        Err(e) => return Err(e),
                    }
                }
                at = end;
                continue;
            }
            // up to the next segment boundary: a whole segment when the tail is empty
            let take = d.room_in_segment().min(n - at);
            let part: Vec<ArrayRef> = cols.iter().map(|c| c.slice(at, take)).collect();
            let first = d.append_columns(schema, &part, self.id);
            self.note_inserted(table, &d, first..first + take as RowId);
            inserted += take as u64;
            at += take;
        }
        Ok(inserted)
    }

    /// Takes `n` numbers of `table`'s identity column, in order, for rows this transaction is
    /// about to insert; its commit makes them durable (see `identity`), so no number of a
    /// committed transaction is handed out again after a crash, even if its row is gone.
    ///
    /// # Errors
    /// 7545 ([`StorageError::IdentityExhausted`]); [`StorageError::BadValue`] if the table
    /// has no identity column; lock errors.
    pub fn identity_numbers(
        &mut self,
        table: &Arc<Table>,
        n: usize,
    ) -> Result<Vec<i64>, StorageError> {
        let Some(g) = &table.identity else {
            return Err(StorageError::BadValue {
                column: table.schema.name.clone(),
                reason: "the table has no identity column".into(),
            });
        };
        self.lock(table, LockMode::RowWrite, false)?;
        self.check_creator(table)?;
        let col = &table.schema.columns[g.column].name;
        let numbers = g.take(n, &table.schema.name, col)?;
        self.note_numbered(table);
        Ok(numbers)
    }

    /// Notes that this transaction's commit must log `table`'s identity state.
    fn note_numbered(&mut self, table: &Arc<Table>) {
        if !self.numbered.iter().any(|t| Arc::ptr_eq(t, table)) {
            self.numbered.push(table.clone());
        }
    }

    /// A table this transaction made as a copy of `from` (ALTER TABLE's rebuild, CREATE TABLE
    /// … AS … WITH DATA) goes on with `from`'s identity sequence, durably from its commit.
    /// Does nothing unless both have an identity column.
    pub fn continue_identity(&mut self, table: &Arc<Table>, from: &Table) {
        if let (Some(new), Some(old)) = (&table.identity, &from.identity) {
            new.continue_from(old);
            self.note_numbered(table);
        }
    }

    /// Records rows this transaction just appended (under the table's mutex, `d`): their undo
    /// entry and, in a queue table, their places among its own pending rows.
    fn note_inserted(&mut self, table: &Arc<Table>, d: &TableData, rows: Range<RowId>) {
        if table.schema.queue {
            let own = self.own_pending(table);
            for rid in rows.clone() {
                own.insert(d.queue_key(rid), rid);
            }
        }
        let table = self.handle(table);
        self.undo.push(Undo::Insert { table, rows });
    }

    /// A table another open transaction created is that transaction's alone until it commits.
    fn check_creator(&self, table: &Table) -> Result<(), StorageError> {
        let creator = table.creator.load(Ordering::Acquire);
        if creator != 0 && creator != self.id {
            return Err(StorageError::WriteConflict(table.schema.name.clone()));
        }
        Ok(())
    }

    fn own_pending(&mut self, table: &Arc<Table>) -> &mut QueueIndex {
        &mut self
            .own_queue
            .entry(table.id)
            .or_insert_with(|| (table.clone(), QueueIndex::default()))
            .1
    }

    /// Marks `row` deleted by this transaction and takes it out of the queue index.
    fn claim(
        &mut self,
        table: &Arc<Table>,
        d: &mut crate::table::TableData,
        row: RowId,
    ) -> Result<(), StorageError> {
        self.check_creator(table)?;
        let xmax = d.stamps.xmax(row);
        if xmax == self.id {
            return Ok(());
        }
        if d.stamps.xmin(row) == DEAD {
            return Err(StorageError::RowChanged(table.schema.name.clone()));
        }
        if xmax != 0 {
            return Err(if self.storage.txns.is_active(xmax) {
                StorageError::RowBusy {
                    table: table.schema.name.clone(),
                    holder: xmax,
                }
            } else {
                StorageError::RowChanged(table.schema.name.clone())
            });
        }
        d.stamps.set_xmax(row, self.id);
        let mut requeue = None;
        if table.schema.queue {
            let key = d.queue_key(row);
            if d.dequeue(&key, row) {
                requeue = Some(Requeue::Index(key));
            } else if let Some((_, own)) = self.own_queue.get_mut(&table.id) {
                if own.remove(&key) {
                    requeue = Some(Requeue::Own(key));
                }
            }
        }
        let table = self.handle(table);
        self.undo.push(Undo::Delete {
            table,
            row,
            requeue,
            consumed: false,
        });
        Ok(())
    }

    /// Deletes a row this transaction can see.
    ///
    /// # Errors
    /// [`StorageError::RowBusy`] / [`StorageError::RowChanged`] if another transaction has
    /// changed the row (undo the statement, wait if busy, run it again); lock errors.
    ///
    /// A row of a queue with subscribers goes with its subscribers' copies (see
    /// `subscribers`).
    pub fn delete(&mut self, table: &Arc<Table>, row: RowId) -> Result<(), StorageError> {
        self.lock(table, LockMode::RowWrite, false)?;
        if table.schema.multi_consumer {
            // the copies first: a commit consuming one cannot then need the row this holds
            let key = table.lock().queue_key(row);
            self.delete_copies(table, key)?;
        }
        let mut d = table.lock();
        self.claim(table, &mut d, row)
    }

    /// Replaces a row by a new version (delete + insert) that has the row's values but for
    /// `changes` (column, new value; of two changes of one column the later wins; columns
    /// past the table's are ignored). A queue row keeps its insertion sequence, so ties on
    /// QITS keep their original order. A sealed row's new version copies none of the
    /// columns it keeps until its run of rows becomes Arrow (see `waiting.rs`).
    ///
    /// # Errors
    /// As [`Transaction::delete`] and [`Transaction::insert`].
    pub fn update(
        &mut self,
        table: &Arc<Table>,
        row: RowId,
        changes: impl IntoIterator<Item = (usize, Value)>,
    ) -> Result<RowId, StorageError> {
        self.lock(table, LockMode::RowWrite, false)?;
        let mut d = table.lock();
        self.claim(table, &mut d, row)?;
        let seq = d.seq[row as usize];
        let new = d.changed_row(&table.schema, row, changes);
        let rid = d.append(&table.schema, new, self.id, &self.storage.txns, Some(seq))?;
        self.note_inserted(table, &d, rid..rid + 1);
        Ok(rid)
    }

    /// Current values of a row.
    pub fn row(&self, table: &Table, row: RowId) -> Vec<Value> {
        table.lock().row(row)
    }

    /// Takes the oldest consumable row of a queue table: the first of the committed queue index
    /// and this transaction's own pending inserts. `None` if there is nothing to take; then
    /// this call leaves no lock behind, so a consumer waiting for a row blocks no one.
    ///
    /// The row comes back with every column, or (`columns`) with those columns only, the
    /// others NULL. [`Transaction::take_arrays`] returns the row as Arrow arrays.
    ///
    /// # Errors
    /// Lock errors: a DDL or `LOCKING … FOR READ|WRITE|EXCLUSIVE` holder makes it wait, or
    /// fail with 7423 unless `wait_for_lock`.
    pub fn consume(
        &mut self,
        table: &Arc<Table>,
        wait_for_lock: bool,
        columns: Option<&[usize]>,
    ) -> Result<Option<(RowId, Vec<Value>)>, StorageError> {
        let width = table.schema.columns.len();
        let due_by = crate::table::wall_clock_us();
        self.take_with(table, (wait_for_lock, due_by), |d, row| match columns {
            None => d.row(row),
            Some(cols) => {
                let mut v = vec![Value::Null; width];
                for &c in cols {
                    if c < v.len() {
                        v[c] = d.row_value(row, c);
                    }
                }
                v
            }
        })
    }

    /// [`Transaction::consume`] with columns `cols` of the row as one-row arrays (see
    /// [`Table::row_arrays`]), found under the same hold of the table's mutex as the pop. In
    /// a queue that delivers at QITS (`DELIVER AT`), only a row whose QITS is at most
    /// `due_by` (µs since the epoch) can be taken; [`Transaction::consume`] reads the clock.
    ///
    /// # Errors
    /// As [`Transaction::consume`].
    pub fn take_arrays(
        &mut self,
        table: &Arc<Table>,
        (wait_for_lock, due_by): (bool, i64),
        cols: &[usize],
    ) -> Result<Option<(RowId, Vec<ArrayRef>)>, StorageError> {
        let taken = self.take_with(table, (wait_for_lock, due_by), |d, row| {
            d.row_part(row, cols)
        })?;
        Ok(taken.map(|(row, part)| (row, table.row_part_arrays(part, cols))))
    }

    /// Takes the oldest consumable row (see [`Transaction::consume`]) and runs `read` on it
    /// under the pop's hold of the table's mutex.
    fn take_with<R>(
        &mut self,
        table: &Arc<Table>,
        (wait_for_lock, due_by): (bool, i64),
        read: impl FnOnce(&TableData, RowId) -> R,
    ) -> Result<Option<(RowId, R)>, StorageError> {
        self.side_work(table);
        let Some(newly) = self.lock_for_take(table, wait_for_lock)? else {
            return Ok(None);
        };
        let taken = self.pop_with(table, due_by, read);
        if taken.is_none() {
            self.release_take(table, newly);
        }
        Ok(taken)
    }

    /// Takes up to `n` of the oldest consumable rows (see [`Transaction::consume`]) under one
    /// hold of the table's mutex, so no other transaction takes a row between two of them, and
    /// returns them in consume order with columns `cols` as arrays of that many rows. `None`
    /// if there is nothing to take (as [`Transaction::consume`]: no lock is left behind).
    /// `due_by` as for [`Transaction::take_arrays`].
    ///
    /// # Errors
    /// As [`Transaction::consume`].
    pub fn take_many(
        &mut self,
        table: &Arc<Table>,
        (wait_for_lock, due_by): (bool, i64),
        n: usize,
        cols: &[usize],
    ) -> Result<Option<Taken>, StorageError> {
        self.side_work(table);
        let Some(newly) = self.lock_for_take(table, wait_for_lock)? else {
            return Ok(None);
        };
        let mut rows = Vec::new();
        if self.check_creator(table).is_ok() {
            let cutoff = self.expiry_cutoff(table);
            let mut d = table.lock();
            while rows.len() < n {
                match self.pop_locked(table, &mut d, (due_by, cutoff)) {
                    Some(row) => rows.push(row),
                    None => break,
                }
            }
        }
        if rows.is_empty() {
            self.release_take(table, newly);
            return Ok(None);
        }
        // the rows are this transaction's now (claimed under the mutex): read them after it
        Ok(Some(read_taken(table, rows, cols)))
    }

    /// Takes `table`'s ROW WRITE lock for a consume unless this transaction holds it:
    /// `Some(true)` if taken now, `Some(false)` if held already, `None` if there is nothing to
    /// take and the lock was not taken (a consumer waiting for a row holds no lock).
    ///
    /// A subscriber's table: its queue's ROW WRITE first (see `subscribers`), kept with the
    /// table's, and given back with it ([`Transaction::release_take`]) if taken for nothing.
    fn lock_for_take(
        &mut self,
        table: &Arc<Table>,
        wait_for_lock: bool,
    ) -> Result<Option<bool>, StorageError> {
        self.queue_lock = None;
        if table.schema.subscription.is_some() {
            match self.lock_queue_of(table, wait_for_lock) {
                Ok(true) => {}
                // nothing to take: no wait for the queue's lock (as for the table's, below)
                Ok(false) => return Ok(None),
                // the queue was dropped while this waited: so was the subscriber's table,
                // which the caller reports (9906)
                Err(StorageError::ObjectNotFound(_)) if table.is_dropped() => return Ok(None),
                Err(e) => return Err(e),
            }
        }
        let locked = self.lock_table_for_take(table, wait_for_lock);
        if !matches!(locked, Ok(Some(_))) {
            self.release_queue_lock();
        }
        locked
    }

    /// Gives back the locks a take took for nothing: `table`'s ROW WRITE if `newly` taken,
    /// and its queue's (a subscriber's table).
    fn release_take(&mut self, table: &Table, newly: bool) {
        if newly {
            self.release(table, LockMode::RowWrite);
        }
        self.release_queue_lock();
    }

    /// [`Transaction::lock_for_take`] of the table itself.
    fn lock_table_for_take(
        &mut self,
        table: &Arc<Table>,
        wait_for_lock: bool,
    ) -> Result<Option<bool>, StorageError> {
        let have = self.held.get(table.id);
        let newly = !held_covers(have, LockMode::RowWrite);
        // on the fast path the lock costs nothing to take and give back: no look at the
        // queue first (that look keeps a consumer from waiting for a lock to take nothing)
        if newly {
            let joined = match self.join_fast(table) {
                Ok(joined) => joined,
                // dropped: as before the fast path, an empty queue is "nothing to take"
                Err(_) if self.queue_is_empty(table) => return Ok(None),
                Err(e) => return Err(e),
            };
            if !joined {
                if self.queue_is_empty(table) {
                    return Ok(None);
                }
                self.lock(table, LockMode::RowWrite, !wait_for_lock)?;
            }
        }
        Ok(Some(newly))
    }

    /// In a queue that delivers at QITS (`DELIVER AT`), the earliest QITS (µs) after `after`
    /// among the rows this transaction could take (committed ones and its own); `None`
    /// otherwise, or if there are none: when a waiting consumer's next row comes due. A
    /// consumer that tried a take with `due_by` passes that: every row due by then was
    /// there for its try (and taken, or not accepted by its condition).
    pub fn next_due(&self, table: &Table, after: i64) -> Option<i64> {
        // the first lease to end gives its rows back then (docs/queues.md, Leases)
        let lease = table.next_lease_end();
        if !table.schema.delivers_at_qits {
            return lease;
        }
        // such a queue has no consume order: its keys are (0, QITS, sequence)
        let past = Some((0, after, u64::MAX));
        let first = |m: &QueueIndex| m.after(past, 1).first().map(|(k, _)| k.1);
        let own = self.own_queue.get(&table.id).and_then(|(_, m)| first(m));
        let global = first(&table.lock().queue);
        own.into_iter().chain(global).chain(lease).min()
    }

    /// True if neither the committed queue index nor this transaction's own pending rows have
    /// a row of `table`.
    fn queue_is_empty(&self, table: &Table) -> bool {
        let own = self
            .own_queue
            .get(&table.id)
            .is_some_and(|(_, m)| !m.is_empty());
        !own && table.lock().queue.is_empty()
    }

    /// Gives back a lock mode taken for nothing (no change was made under it).
    fn release(&mut self, table: &Table, mode: LockMode) {
        if mode == LockMode::RowWrite && self.fast.iter().any(|t| t.id == table.id) {
            self.fast.retain(|t| t.id != table.id);
            if !crate::fastlock::leave(&self.slot, table.id) {
                // a strong request marked it: its hand-over records this transaction
                self.forget_handed(table);
            }
        } else {
            // the manager knows this transaction: its end must tell it
            self.used_locks = true;
            self.storage.locks.unlock(self.id, table.id, mode);
        }
        self.held.clear(table.id, mode.bit());
    }

    /// Takes back the ROW WRITE on `table` a strong request's hand-over recorded (or will,
    /// under the table's `handover` mutex, which this waits out) for this transaction, whose
    /// fast-path entry it marked before the transaction let go of it (see `fastlock`).
    fn forget_handed(&mut self, table: &Table) {
        let _handover = table.handover.lock();
        // the manager may keep this transaction's session: its end tells it
        self.used_locks = true;
        self.storage
            .locks
            .unlock(self.id, table.id, LockMode::RowWrite);
    }

    /// Gives back every lock of this (ended) transaction: its fast-path ROW WRITE locks, the
    /// manager's (if the manager knows it), then its claims on the fast path's closing.
    fn release_locks(&mut self) {
        let mut manager = self.used_locks;
        let mut fast = std::mem::take(&mut self.fast);
        for t in fast.drain(..) {
            // not there: a strong request handed it to the manager
            manager |= !crate::fastlock::leave(&self.slot, t.id);
            self.keep(t);
        }
        self.fast = fast;
        if manager {
            self.storage.locks.release_all(self.id);
        } else {
            self.storage.locks.ended_without_locks();
        }
        for t in std::mem::take(&mut self.strong) {
            crate::fastlock::strong_done(&t.strong);
        }
    }

    /// Pops the oldest row (see [`Transaction::consume`]) and runs `read` on it under the same
    /// hold of the table's mutex.
    fn pop_with<R>(
        &mut self,
        table: &Arc<Table>,
        due_by: i64,
        read: impl FnOnce(&TableData, RowId) -> R,
    ) -> Option<(RowId, R)> {
        self.check_creator(table).ok()?;
        let mut d = table.lock();
        let cutoff = self.expiry_cutoff(table);
        let row = self.pop_locked(table, &mut d, (due_by, cutoff))?;
        let r = read(&d, row);
        Some((row, r))
    }

    /// Pops the oldest row of the committed queue index and this transaction's own pending
    /// rows (`d` is `table`'s data, locked) and claims it for this transaction; in a queue
    /// that delivers at QITS, only if its QITS is at most `due_by` (its keys are in QITS
    /// order: no later row is due either).
    ///
    /// In a queue with `EXPIRE AFTER`, committed rows whose QITS is at most `cutoff` are passed
    /// over (left for `expire_head` to move): an expired row is never handed out.
    fn pop_locked(
        &mut self,
        table: &Arc<Table>,
        d: &mut TableData,
        (due_by, cutoff): (i64, Option<i64>),
    ) -> Option<RowId> {
        let (key, row, from_index) = loop {
            // such a queue has no consume order: its keys are (0, QITS, sequence)
            let global = match (cutoff, d.queue.first()) {
                // the head has not expired (the usual case): it is the first row
                (None, first) => first,
                (Some(c), Some(first)) if first.0 .1 > c => Some(first),
                (Some(c), _) => d.queue.after(Some((0, c, u64::MAX)), 1).first().copied(),
            };
            let own = self.own_queue.get(&table.id).and_then(|(_, m)| m.first());
            let (key, row, from_index) = match (global, own) {
                (Some(g), Some(o)) if o.0 < g.0 => (o.0, o.1, false),
                (Some(g), _) => (g.0, g.1, true),
                (None, Some(o)) => (o.0, o.1, false),
                (None, None) => return None,
            };
            if d.delivers_at_qits && key.1 > due_by {
                return None;
            }
            if from_index {
                // the entry just found
                if cutoff.is_none() {
                    d.pop_queue();
                } else {
                    d.dequeue(&key, row);
                }
            } else if let Some((_, m)) = self.own_queue.get_mut(&table.id) {
                m.pop_first(); // likewise
            }
            // The index holds only unclaimed rows. An entry that broke this would be a bug;
            // skipping it keeps the row from being delivered twice.
            if d.stamps.xmax(row) == 0 && d.stamps.xmin(row) != DEAD {
                break (key, row, from_index);
            }
        };
        self.note_taken(table, d, (key, row, from_index));
        Some(row)
    }

    /// Claims `row` (queue key `key`, taken out of `table`'s committed queue index or lease
    /// registry; `d` is its data, locked) for this transaction, its undo entry putting it back
    /// in the queue (`consumed`: as a consume's take, whose rollback counts an attempt).
    fn claim_queued(
        &mut self,
        table: &Arc<Table>,
        d: &mut TableData,
        (key, row): (QueueKey, RowId),
        consumed: bool,
    ) {
        d.stamps.set_xmax(row, self.id);
        let table = self.handle(table);
        self.undo.push(Undo::Delete {
            table,
            row,
            requeue: Some(Requeue::Index(key)),
            consumed,
        });
    }

    /// Claims `row` (queue key `key`), just taken out of the committed queue index
    /// (`from_index`) or this transaction's own pending rows, for this transaction: its
    /// deletion stamp, the consume count and the undo entry that puts it back.
    fn note_taken(
        &mut self,
        table: &Arc<Table>,
        d: &mut TableData,
        (key, row, from_index): (QueueKey, RowId, bool),
    ) {
        d.stamps.set_xmax(row, self.id);
        // counted when the row was enqueued by a commit (not one of this transaction's own)
        if from_index {
            d.consumed += 1;
        }
        let table = self.handle(table);
        self.undo.push(Undo::Delete {
            table,
            row,
            requeue: Some(if from_index {
                Requeue::Index(key)
            } else {
                Requeue::Own(key)
            }),
            consumed: from_index,
        });
    }

    /// Creates a table (undone on rollback); until commit only this transaction may write it.
    ///
    /// # Errors
    /// 3803 if it exists; 2631 if another open transaction dropped a table of that name.
    pub fn create_table(&mut self, schema: TableSchema) -> Result<Arc<Table>, StorageError> {
        // Lock the new table's id before the table enters the catalog, so no one can lock or
        // write it before its creator holds EXCLUSIVE.
        let id = self.storage.catalog.reserve_id();
        self.used_locks = true;
        let bits = self.storage.locks.lock_table(
            (self.id, self.session),
            id,
            &schema.name,
            LockMode::Exclusive,
            false,
        )?;
        self.held.set(id, bits);
        let t = loop {
            match self
                .storage
                .catalog
                .create_table_with_id(id, schema.clone(), self.id)
            {
                // another transaction's DROP of this name is open: wait for it to end (it
                // holds the dropped table's EXCLUSIVE lock), then try again
                Err(StorageError::WriteConflict(name)) => {
                    match self.storage.catalog.in_limbo(&name) {
                        Some(old) => {
                            match self.lock(&old, LockMode::Access, false) {
                                Ok(()) | Err(StorageError::ObjectNotFound(_)) => {}
                                Err(e) => return Err(e),
                            }
                            self.release(&old, LockMode::Access);
                        }
                        None => continue,
                    }
                }
                Err(e) => {
                    self.storage.locks.unlock(self.id, id, LockMode::Exclusive);
                    self.held.clear(id, u8::MAX);
                    return Err(e);
                }
                Ok(t) => break t,
            }
        };
        self.undo.push(Undo::CreateTable(t.clone()));
        // the new table's fast path stays closed until this transaction ends (`fastlock`)
        self.strong.push(t.clone());
        Ok(t)
    }

    /// Drops a volatile table (undone on rollback), first taking an EXCLUSIVE lock on it.
    ///
    /// # Errors
    /// Lock errors.
    pub fn drop_volatile(&mut self, table: Arc<Table>) -> Result<(), StorageError> {
        self.lock(&table, LockMode::Exclusive, false)?;
        self.storage.catalog.drop_volatile(&table);
        self.undo.push(Undo::DropTable(table));
        Ok(())
    }

    /// Drops a table (undone on rollback), first waiting for an EXCLUSIVE lock on it.
    ///
    /// # Errors
    /// 3807 if it does not exist; lock errors.
    pub fn drop_table(&mut self, name: &str) -> Result<Arc<Table>, StorageError> {
        self.drop_named(name, false)
    }

    /// Drops a subscriber's table (`DROP SUBSCRIBER`; [`Transaction::drop_table`] does not
    /// find those).
    ///
    /// # Errors
    /// As [`Transaction::drop_table`].
    pub fn drop_subscriber(&mut self, table: &Table) -> Result<Arc<Table>, StorageError> {
        self.drop_named(&table.schema.name, true)
    }

    fn drop_named(&mut self, name: &str, subscriber: bool) -> Result<Arc<Table>, StorageError> {
        loop {
            let t = self.storage.catalog.must_get_table(name)?;
            if t.schema.subscription.is_some() != subscriber {
                return Err(StorageError::ObjectNotFound(name.to_string()));
            }
            match self.lock(&t, LockMode::Exclusive, false) {
                // dropped while we waited: look the name up again
                Err(StorageError::ObjectNotFound(_)) => continue,
                r => r?,
            }
            // With the lock held no one can drop it, and its name blocks any CREATE.
            if self
                .storage
                .catalog
                .get_table(name)
                .is_some_and(|now| Arc::ptr_eq(&now, &t))
            {
                let t = self.storage.catalog.drop_table(name, self.id)?;
                self.undo.push(Undo::DropTable(t.clone()));
                // a queue's subscribers go with it
                if t.schema.multi_consumer {
                    for s in self.storage.catalog.subscribers_of(&t) {
                        self.drop_subscriber(&s)?;
                    }
                }
                return Ok(t);
            }
        }
    }

    /// Commits: the changes become visible and this transaction's queue inserts consumable.
    ///
    /// The new queue rows enter the queue index *before* the transaction stops being active:
    /// by the time any snapshot can see them they are in the index, so a concurrent DELETE or
    /// UPDATE that claims one also takes it out of the index (never the other way round). A
    /// consumer that takes one in between gets a row whose commit is already decided.
    ///
    /// In a database on disk the transaction's log record is made durable (as the sync mode
    /// says) before any of this, while the transaction is still active.
    ///
    /// # Errors
    /// The log could not be written: the transaction is rolled back instead.
    pub fn commit(mut self) -> Result<Outcome, CommitFailed> {
        self.commit_in_place()
    }

    /// [`Transaction::commit`], leaving this object ended, to be started again with
    /// [`Transaction::restart`] or dropped. Committing an ended transaction does nothing.
    ///
    /// # Errors
    /// As [`Transaction::commit`].
    pub fn commit_in_place(&mut self) -> Result<Outcome, CommitFailed> {
        if self.ended {
            return Ok(Outcome::default());
        }
        // A queue with subscribers: the counts of the copies this commit adds and consumes
        // are decided under each queue's `copies` mutex, held until the log record has its
        // place, so the records of commits that decided for one queue replay in the order
        // they decided (see `subscribers`).
        let (changes, queues) = match self.subscribed {
            true => self.subscriber_changes(),
            false => Default::default(),
        };
        let mut guards = Vec::new();
        let mut settled = Vec::new();
        if self.subscribed {
            guards = queues.iter().map(|q| q.copies.lock()).collect();
            settled = self.settle_subscribers(changes, &queues, &mut guards);
        }
        if self.storage.durable.is_none() {
            drop(guards);
            // in memory: no log record, and no clone of the storage handle (its reference
            // count is one cache line every session's commit would write)
            return Ok(self.publish());
        }
        let storage = self.storage.clone();
        let Some(d) = storage.durable.as_ref() else {
            return Ok(self.publish());
        };
        let mut touched = Vec::new();
        let record = self.log_record(&mut touched);
        let gate = d.gate.read();
        if !record.is_empty() {
            for t in &touched {
                t.dirty.store(true, Ordering::Release);
            }
            let appended = d.append(&record);
            guards.clear();
            if let Err(error) = appended.and_then(|lsn| d.wait(lsn)) {
                drop(gate);
                Self::unsettle(settled);
                let outcome = self.rollback_in_place();
                return Err(CommitFailed {
                    error,
                    outcome: Box::new(outcome),
                });
            }
        }
        // (an empty record: nothing to order)
        guards.clear();
        let out = self.publish();
        drop(gate);
        if d.wants_checkpoint() {
            // The commit stands whatever happens here; a failed checkpoint leaves the log in
            // place and is tried again after a later commit.
            let _ = d.checkpoint(&storage, false);
        }
        Ok(out)
    }

    /// The log record of this transaction's net changes, in the order they were made: rows it
    /// both created and deleted are left out. `touched` collects the tables it changes.
    fn log_record(&self, touched: &mut Vec<Arc<Table>>) -> Vec<u8> {
        let mut rb = RecordBuilder::default();
        for u in &self.undo {
            // a volatile table is never logged: it ends with its session
            let (Undo::Insert { table, .. }
            | Undo::Delete { table, .. }
            | Undo::CreateTable(table)
            | Undo::DropTable(table)
            | Undo::EndLease { table, .. }) = u;
            if table.schema.volatile.is_some() {
                continue;
            }
            let t = match u {
                Undo::Insert { table, rows } => {
                    let d = table.lock();
                    let mut logged = false;
                    for row in rows.clone() {
                        if d.stamps.xmax(row) != self.id {
                            rb.insert(table, d.seq[row as usize], &d.row(row));
                            logged = true;
                        }
                    }
                    if !logged {
                        continue;
                    }
                    table
                }
                Undo::Delete { table, row, .. } => {
                    let d = table.lock();
                    if d.stamps.xmin(*row) == self.id {
                        continue;
                    }
                    rb.delete(table, d.seq[*row as usize]);
                    table
                }
                Undo::CreateTable(t) => {
                    rb.create(t);
                    t
                }
                Undo::DropTable(t) => {
                    rb.drop_table(t);
                    t
                }
                // leases are not logged
                Undo::EndLease { .. } => continue,
            };
            if !touched.iter().any(|x| Arc::ptr_eq(x, t)) {
                touched.push(t.clone());
            }
        }
        // the identity numbers handed out so far, for every table this transaction took
        // numbers of (whether or not the rows that got them are still there): replay keeps
        // the furthest (see `identity`)
        for t in &self.numbered {
            // (a table this transaction dropped, or whose creation it undid, needs none)
            if t.is_dropped() {
                continue;
            }
            if let (Some(g), None) = (&t.identity, &t.schema.volatile) {
                rb.identity(t, g.state());
                if !touched.iter().any(|x| Arc::ptr_eq(x, t)) {
                    touched.push(t.clone());
                }
            }
        }
        rb.finish()
    }

    /// Makes the commit visible: queue rows into the index, DDL settled, then the id ends.
    fn publish(&mut self) -> Outcome {
        self.ended = true;
        let mut hidden = Vec::new();
        for u in &self.undo {
            match u {
                Undo::CreateTable(t) => t.creator.store(0, Ordering::Release),
                Undo::DropTable(t) => self.storage.catalog.limbo_remove(t),
                Undo::Delete { table, .. } => note_hidden(&mut hidden, table),
                _ => {}
            }
        }
        // index entries this transaction set aside go back while it is still active (a
        // reader whose snapshot has it active must find them)
        for t in hidden {
            t.unhide(self.id, true);
        }
        let mut out = Outcome::default();
        let mut own = std::mem::take(&mut self.own_queue);
        if self.subscribed {
            // a queue's rows before its subscribers' copies (a queue's id is smaller than its
            // subscribers'): a consumer that takes a copy finds the row it may delete
            let mut sorted: Vec<_> = own.drain().collect();
            sorted.sort_by_key(|(id, _)| *id);
            for (_, (table, pending)) in sorted {
                publish_own(&mut out, table, pending);
            }
        }
        for (_, (table, pending)) in own {
            publish_own(&mut out, table, pending);
        }
        self.storage.txns.end_in(&self.slot, self.id);
        self.release_locks();
        // the list's buffer stays for a restart, unless a big transaction grew it
        let mut undo = std::mem::take(&mut self.undo);
        for u in undo.drain(..) {
            if let Undo::Insert { table, .. } | Undo::Delete { table, .. } = u {
                self.keep(table);
            }
        }
        if undo.capacity() <= KEPT_UNDO {
            self.undo = undo;
        }
        out
    }

    /// Rolls back every change; consumed rows return under their original keys.
    pub fn rollback(mut self) -> Outcome {
        self.rollback_in_place()
    }

    /// [`Transaction::rollback`], leaving this object ended (see
    /// [`Transaction::commit_in_place`]). Rolling back an ended transaction does nothing.
    pub fn rollback_in_place(&mut self) -> Outcome {
        if self.ended {
            return Outcome::default();
        }
        let undo = std::mem::take(&mut self.undo);
        let (attempted, undo) = attempts::split_attempted(undo);
        let mut out = self.undo_entries(undo);
        self.own_queue.clear();
        if !attempted.is_empty() {
            // counting the attempts commits, which ends the transaction
            let counted = self.count_attempts(attempted);
            out.published.extend(counted.published);
            out.removed.extend(counted.removed);
            return out;
        }
        self.ended = true;
        self.storage.txns.end_in(&self.slot, self.id);
        self.release_locks();
        out
    }

    /// Reverses `entries` (newest first).
    fn undo_entries(&mut self, entries: Vec<Undo>) -> Outcome {
        let mut requeued: HashMap<u64, (Arc<Table>, Vec<RowId>)> = HashMap::new();
        let mut removed = Vec::new();
        let mut retimed = Vec::new();
        let hidden_in = tables_with_hidden(entries.iter());
        for u in entries.into_iter().rev() {
            match u {
                Undo::Insert { table, rows } => {
                    let mut d = table.lock();
                    for row in rows.rev() {
                        d.stamps.set_xmin(row, DEAD);
                        d.unindex(row);
                        if table.schema.queue {
                            let key = d.queue_key(row);
                            if let Some((_, own)) = self.own_queue.get_mut(&table.id) {
                                own.remove(&key);
                            }
                        }
                    }
                }
                Undo::Delete {
                    table,
                    row,
                    requeue,
                    consumed,
                } => {
                    let mut d = table.lock();
                    d.stamps.set_xmax(row, 0);
                    if consumed {
                        d.consumed = d.consumed.saturating_sub(1);
                    }
                    match requeue {
                        Some(Requeue::Index(key)) => {
                            d.enqueue(key, row);
                            drop(d);
                            requeued
                                .entry(table.id)
                                .or_insert_with(|| (table.clone(), Vec::new()))
                                .1
                                .push(row);
                        }
                        Some(Requeue::Own(key)) => {
                            drop(d);
                            self.own_pending(&table).insert(key, row);
                        }
                        None => {}
                    }
                }
                Undo::CreateTable(t) => {
                    self.storage.catalog.remove_if_same(&t);
                    removed.push(t);
                }
                Undo::DropTable(t) => self.storage.catalog.restore_table(t),
                Undo::EndLease { table, id, lease } => {
                    let mut d = table.lock();
                    let before = d.leases.first_end();
                    d.leases.add(id, *lease);
                    table.note_leases(&d);
                    // back and ending before any other: sleeping consumers set their timers
                    if d.leases.first_end() < before {
                        drop(d);
                        retimed.push(table);
                    }
                }
            }
        }
        // entries set aside for deletions just undone go back (see crate::index)
        for t in &hidden_in {
            t.unhide(self.id, false);
        }
        Outcome {
            published: requeued
                .into_values()
                .filter(|(t, _)| !t.is_dropped())
                .collect(),
            removed,
            retimed,
        }
    }
}

/// The tables `undo` deletes rows of in which index entries are set aside now (see
/// [`crate::index`]), each once.
fn tables_with_hidden<'a>(undo: impl Iterator<Item = &'a Undo>) -> Vec<Arc<Table>> {
    let mut out = Vec::new();
    for u in undo {
        if let Undo::Delete { table, .. } = u {
            note_hidden(&mut out, table);
        }
    }
    out
}

/// Puts a committing transaction's pending rows of queue `table` into its queue index, and
/// notes them in `out` for the waiting consumers.
fn publish_own(out: &mut Outcome, table: Arc<Table>, pending: QueueIndex) {
    if pending.is_empty() {
        return;
    }
    let mut d = table.lock();
    let pending = pending.into_sorted();
    let mut rows = Vec::with_capacity(pending.len());
    for (k, r) in pending {
        d.enqueue(k, r);
        rows.push(r);
    }
    d.enqueued += rows.len() as u64;
    drop(d);
    if !table.is_dropped() {
        out.published.push((table, rows));
    }
}

/// Adds `table` to `out` if it has index entries set aside now and is not in `out` yet.
fn note_hidden(out: &mut Vec<Arc<Table>>, table: &Arc<Table>) {
    if table.hidden.load(Ordering::Acquire) != 0 && !out.iter().any(|t| t.id == table.id) {
        out.push(table.clone());
    }
}

/// True if `a` is a view of buffers more than twice its own size (a slice of a big array).
fn wasteful(a: &dyn Array) -> bool {
    let whole = a.get_buffer_memory_size();
    let used = a.to_data().get_slice_memory_size().unwrap_or(whole);
    whole > 2 * used + 4096
}

/// Columns `cols` of the rows a consume took (its own now, so read outside the mutex).
fn read_taken(table: &Table, rows: Vec<RowId>, cols: &[usize]) -> Taken {
    let keep: Vec<bool> = (0..table.schema.columns.len())
        .map(|c| cols.contains(&c))
        .collect();
    let batch = table.fetch_columns(&rows, Some(&keep));
    let arrays = cols.iter().map(|&c| batch.column(c).clone()).collect();
    (rows, arrays)
}

/// `a` in buffers of its own (a copy when it is [`wasteful`]).
fn compact(a: &ArrayRef) -> ArrayRef {
    if !wasteful(a.as_ref()) {
        return a.clone();
    }
    let all = arrow::array::UInt32Array::from_iter_values(0..a.len() as u32);
    arrow::compute::take(a.as_ref(), &all, None).unwrap_or_else(|_| a.clone())
}

impl Drop for Transaction {
    fn drop(&mut self) {
        if !self.ended {
            self.rollback_in_place();
        }
        self.storage.txns.slots.release(&self.slot);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{Column, TableKind};
    use crate::types::SqlType;

    /// A queue (qits, n) with rows n = 0, 1, 2 committed (QITS 0, 1, 2).
    pub(super) fn queue(storage: &Arc<Storage>) -> Arc<Table> {
        let columns = vec![
            Column::plain("qits", SqlType::Timestamp(6), false),
            Column::plain("n", SqlType::Integer, true),
        ];
        let schema = TableSchema::new(
            "q".into(),
            columns,
            TableKind::Multiset,
            true,
            None,
            vec![],
            String::new(),
        );
        let mut t = Transaction::begin(storage);
        let table = t.create_table(schema).unwrap();
        for n in 0..3 {
            t.insert(&table, vec![Value::Timestamp(n), Value::Int(n)])
                .unwrap();
        }
        t.commit().unwrap();
        table
    }

    fn pop(t: &mut Transaction, table: &Arc<Table>) -> Option<Value> {
        let (_, row) = t.consume(table, false, None).unwrap()?;
        Some(row[1].clone())
    }

    #[test]
    fn a_restarted_transaction_is_a_new_one_that_keeps_its_table_handles() {
        let storage = Arc::new(Storage::default());
        let table = queue(&storage);
        let alone = Arc::strong_count(&table);
        let mut t = Transaction::begin(&storage);
        assert!(!t.restart(), "an open transaction does not restart");
        let first = t.id();
        assert_eq!(pop(&mut t, &table), Some(Value::Int(0)));
        t.rollback_in_place();
        assert!(t.is_ended());
        assert!(t.restart());
        assert!(t.id() > first, "a new id");
        // the rolled-back consume put its row back
        assert_eq!(pop(&mut t, &table), Some(Value::Int(0)));
        t.commit_in_place().unwrap();
        assert!(
            t.commit_in_place().is_ok(),
            "committing an ended one does nothing"
        );
        assert!(
            Arc::strong_count(&table) > alone,
            "the ended transaction keeps a handle of the table it changed"
        );
        assert!(t.restart());
        assert_eq!(pop(&mut t, &table), Some(Value::Int(1)));
        t.commit_in_place().unwrap();
        // another transaction sees what the restarted ones committed
        let mut other = Transaction::begin(&storage);
        assert_eq!(pop(&mut other, &table), Some(Value::Int(2)));
        assert_eq!(pop(&mut other, &table), None);
        other.rollback();
        // a table dropped since: its handle is let go at the restart
        let mut d = Transaction::begin(&storage);
        d.drop_table("q").unwrap();
        d.commit().unwrap();
        let before = Arc::strong_count(&table);
        assert!(t.restart());
        assert!(Arc::strong_count(&table) < before);
    }
}
