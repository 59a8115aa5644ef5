//! The lock manager: table locks held to the end of a transaction, waits for a row's writer to
//! end, and deadlock detection on the wait-for graph.
//!
//! Readers take no lock (they read a snapshot); the locks order *writers* and honour Teradata's
//! `LOCKING … FOR ACCESS|READ|WRITE|EXCLUSIVE`. Every INSERT, UPDATE, DELETE and consume takes
//! [`LockMode::RowWrite`] on its table (Teradata's row-hash WRITE lock, seen from the table),
//! so row writers run side by side but wait for a `READ`, `WRITE` or `EXCLUSIVE` table lock,
//! and DDL takes `EXCLUSIVE`. Conflicts:
//!
//! ```text
//!              held:  ACCESS  READ  ROW-WRITE  WRITE  EXCLUSIVE
//!   wanted ACCESS       ·      ·       ·         ·        ✗
//!          READ         ·      ·       ✗         ✗        ✗
//!          ROW-WRITE    ·      ✗       ·         ✗        ✗
//!          WRITE        ·      ✗       ✗         ✗        ✗
//!          EXCLUSIVE    ✗      ✗       ✗         ✗        ✗
//! ```
//!
//! Invariants:
//! - a transaction's locks are released only when it has ended (after `TxnManager::end`), and
//!   the release wakes every waiter, so a waiter that saw its blocker active under the manager's
//!   mutex cannot miss the wake-up. A transaction the manager never knew (it read, or held
//!   ROW WRITE only on the fast path, `fastlock`) skips the release; row waiters may still
//!   wait for it, so it wakes them when [`LockManager::wait_for_txn`] has any (`row_waiters`);
//! - a consumer in the delayed state (waiting for a row, not for a lock) is registered here
//!   with a way to end its wait; no transaction waits for it: whoever would (asks for a lock
//!   it holds, or a row it changed) ends its wait with 2631 instead, and a consumer about to
//!   sleep while someone waits for it fails with 2631 at once. Both checks run under the
//!   manager's mutex, so one of the two always fires. A delayed consumer thus never blocks a
//!   producer, a DDL statement or anyone else;
//! - a wait ends only when what it waits for is released, when it would close a cycle, or
//!   when the hook the running request installed ([`set_wait_stop`]) says the request was
//!   cancelled or ran out of time; its entry in `waiting` goes with it;
//! - a waiting transaction has exactly one entry in `waiting`, naming the transactions it
//!   waits for right now; each wait re-checks the graph when it starts and whenever it wakes,
//!   and the transaction that would close a cycle is the one refused (2631), so no cycle ever
//!   stands in the graph.

use crate::error::StorageError;
use crate::mvcc::{TxnId, TxnManager};
use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
use parking_lot::{Condvar, Mutex};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Why a lock wait was stopped before its lock came.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Interruption {
    /// The request was cancelled.
    Cancelled,
    /// The request ran past its statement timeout (seconds).
    TimedOut(f64),
}

/// Asked by a lock wait whether the running request was stopped (see [`set_wait_stop`]).
pub type WaitStop = fn() -> Option<Interruption>;

thread_local! {
    /// What a lock wait on this thread asks, every [`STOP_POLL`], whether to stop.
    static WAIT_STOP: Cell<Option<WaitStop>> = const { Cell::new(None) };
}

/// How often a lock wait with a stop hook looks at it.
const STOP_POLL: Duration = Duration::from_millis(20);

/// Installs (or, with `None`, removes) the hook lock waits on this thread ask whether the
/// running request was cancelled or timed out: `exec` installs it for each request it runs.
pub fn set_wait_stop(stop: Option<WaitStop>) {
    WAIT_STOP.with(|s| s.set(stop));
}

/// A lock severity on a table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LockMode {
    /// `LOCKING … FOR ACCESS`: only an EXCLUSIVE lock waits for it.
    Access,
    /// `LOCKING … FOR READ`: no one else writes the table until this transaction ends.
    Read,
    /// Taken by every row change (INSERT, UPDATE, DELETE, consume).
    RowWrite,
    /// `LOCKING … FOR WRITE`: no one else writes or READ-locks the table.
    Write,
    /// `LOCKING … FOR EXCLUSIVE` and DDL: no one else locks the table at all.
    Exclusive,
}

impl LockMode {
    pub(crate) fn bit(self) -> u8 {
        match self {
            LockMode::Access => 1,
            LockMode::Read => 2,
            LockMode::RowWrite => 4,
            LockMode::Write => 8,
            LockMode::Exclusive => 16,
        }
    }

    /// The modes that this one conflicts with, as a bit set.
    fn conflicts(self) -> u8 {
        match self {
            LockMode::Access => 16,
            LockMode::Read => 4 | 8 | 16,
            LockMode::RowWrite => 2 | 8 | 16,
            LockMode::Write => 2 | 4 | 8 | 16,
            LockMode::Exclusive => 31,
        }
    }

    /// True if this mode and `other` cannot be held by two transactions at once.
    pub(crate) fn conflicts_with(self, other: LockMode) -> bool {
        self.conflicts() & other.bit() != 0
    }

    /// The modes a holder of this one need not ask for again (it already excludes as much).
    fn covers(self) -> u8 {
        match self {
            LockMode::Access => 1,
            LockMode::Read => 1 | 2,
            LockMode::RowWrite => 1 | 4,
            LockMode::Write => 1 | 2 | 4 | 8,
            LockMode::Exclusive => 31,
        }
    }

    /// The name `HELP LOCKS` shows.
    pub fn name(self) -> &'static str {
        match self {
            LockMode::Access => "ACCESS",
            LockMode::Read => "READ",
            LockMode::RowWrite => "ROW WRITE",
            LockMode::Write => "WRITE",
            LockMode::Exclusive => "EXCLUSIVE",
        }
    }

    fn from_bits(bits: u8) -> impl Iterator<Item = LockMode> {
        [
            LockMode::Access,
            LockMode::Read,
            LockMode::RowWrite,
            LockMode::Write,
            LockMode::Exclusive,
        ]
        .into_iter()
        .filter(move |m| bits & m.bit() != 0)
    }
}

/// True if a transaction holding `held` (a bit set) need not ask for `mode`.
pub(crate) fn held_covers(held: u8, mode: LockMode) -> bool {
    LockMode::from_bits(held).any(|h| h.covers() & mode.bit() != 0)
}

/// What a blocked transaction waits for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WaitTarget {
    /// A table lock of this mode.
    Table(LockMode),
    /// The end of the transaction that changed a row it wants to change.
    Row,
}

/// One edge set of the wait-for graph, as `HELP LOCKS` shows it.
#[derive(Debug, Clone)]
pub struct LockWait {
    /// The waiting transaction.
    pub waiter: TxnId,
    /// Its session, if it said (0 otherwise).
    pub session: u64,
    /// The table's name.
    pub table: String,
    /// What it wants.
    pub wants: WaitTarget,
    /// The transactions it waits for, with their sessions.
    pub blockers: Vec<(TxnId, u64)>,
}

/// One granted table lock.
#[derive(Debug, Clone)]
pub struct LockHeld {
    /// The holding transaction.
    pub holder: TxnId,
    /// Its session (0 if unknown).
    pub session: u64,
    /// The table's name.
    pub table: String,
    /// The mode.
    pub mode: LockMode,
}

struct Waiting {
    table: String,
    /// The table's id for a table-lock wait (its `on` may be out of date until it wakes).
    table_id: Option<u64>,
    wants: WaitTarget,
    on: Vec<TxnId>,
}

#[derive(Default)]
struct State {
    /// Granted locks: table id → (name, holder → mode bits). An entry stays when its last
    /// holder leaves, so the next lock of a busy table allocates nothing, while there are at
    /// most [`IDLE_ENTRIES`] entries (table ids are never reused: a process that creates and
    /// drops tables must not keep one per table forever).
    tables: HashMap<u64, (String, HashMap<TxnId, u8>)>,
    /// Tables each transaction holds locks on.
    held: HashMap<TxnId, Vec<u64>>,
    /// The wait-for graph: each blocked transaction and whom it waits for.
    waiting: HashMap<TxnId, Waiting>,
    /// Session numbers of transactions, for display.
    owners: HashMap<TxnId, u64>,
    /// Consumers in the delayed state, with what ends their wait (as a deadlock victim).
    delayed: HashMap<TxnId, Arc<dyn Fn() + Send + Sync>>,
}

/// How many lock-table entries may stay once nobody holds them (see [`State::tables`]).
const IDLE_ENTRIES: usize = 1024;

impl State {
    /// Drops table `id`'s entry if nobody holds it and there are more than [`IDLE_ENTRIES`].
    fn forget_if_idle(&mut self, id: u64) {
        if self.tables.len() > IDLE_ENTRIES
            && self.tables.get(&id).is_some_and(|(_, h)| h.is_empty())
        {
            self.tables.remove(&id);
        }
    }

    /// True if following wait edges from `from` leads back to `me`.
    fn reaches(&self, from: &[TxnId], me: TxnId) -> bool {
        let mut seen = HashSet::new();
        let mut stack: Vec<TxnId> = from.to_vec();
        while let Some(t) = stack.pop() {
            if t == me {
                return true;
            }
            if seen.insert(t) {
                if let Some(w) = self.waiting.get(&t) {
                    stack.extend(w.on.iter().copied());
                }
            }
        }
        false
    }

    fn blockers(&self, table: u64, me: TxnId, mode: LockMode) -> Vec<TxnId> {
        self.tables
            .get(&table)
            .map_or_else(Vec::new, |(_, holders)| {
                holders
                    .iter()
                    .filter(|(t, bits)| **t != me && **bits & mode.conflicts() != 0)
                    .map(|(t, _)| *t)
                    .collect()
            })
    }

    fn owner(&self, t: TxnId) -> u64 {
        self.owners.get(&t).copied().unwrap_or(0)
    }
}

/// Table locks and the wait-for graph of one database.
#[derive(Default)]
pub struct LockManager {
    state: Mutex<State>,
    released: Condvar,
    /// Transactions in [`LockManager::wait_for_txn`] now. A transaction that ends without the
    /// manager (its locks were all on the fast path) wakes the waiters when this is above 0:
    /// a waiter counts itself before it first sees its blocker active, and the blocker reads
    /// the count after ending, so either the blocker sees the count or the waiter sees it ended.
    row_waiters: AtomicUsize,
}

impl LockManager {
    /// Grants `mode` on table `id` to `me`, waiting while another transaction holds a
    /// conflicting lock. Returns the bits `me` now holds on the table.
    ///
    /// # Errors
    /// [`StorageError::LockNowait`] (7423) if `nowait` and the lock is taken;
    /// [`StorageError::Deadlock`] (2631) if waiting would close a cycle of waits;
    /// [`StorageError::Interrupted`] if the request is stopped meanwhile.
    pub(crate) fn lock_table(
        &self,
        (me, session): (TxnId, u64),
        id: u64,
        name: &str,
        mode: LockMode,
        nowait: bool,
    ) -> Result<u8, StorageError> {
        let mut g = self.state.lock();
        if session != 0 {
            g.owners.insert(me, session);
        }
        loop {
            let on = g.blockers(id, me, mode);
            if on.is_empty() {
                g.waiting.remove(&me);
                let entry = g
                    .tables
                    .entry(id)
                    .or_insert_with(|| (name.to_string(), HashMap::new()));
                let bits = entry.1.entry(me).or_insert(0);
                *bits |= mode.bit();
                let now = *bits;
                let held = g.held.entry(me).or_default();
                if !held.contains(&id) {
                    held.push(id);
                }
                return Ok(now);
            }
            if nowait {
                g.waiting.remove(&me);
                return Err(StorageError::LockNowait(name.to_string()));
            }
            self.wait(&mut g, me, (name, Some(id)), WaitTarget::Table(mode), on)?;
        }
    }

    /// Records `holders`, taken off table `id`'s ROW WRITE fast path because a strong lock is
    /// wanted, as ROW WRITE holders here; those that have ended already are left out (their
    /// release has run or will find nothing).
    pub(crate) fn adopt(&self, txns: &TxnManager, id: u64, name: &str, holders: &[(TxnId, u64)]) {
        let mut g = self.state.lock();
        for &(t, session) in holders {
            if !txns.is_active(t) {
                continue;
            }
            if session != 0 {
                g.owners.insert(t, session);
            }
            let entry = g
                .tables
                .entry(id)
                .or_insert_with(|| (name.to_string(), HashMap::new()));
            *entry.1.entry(t).or_insert(0) |= LockMode::RowWrite.bit();
            let held = g.held.entry(t).or_default();
            if !held.contains(&id) {
                held.push(id);
            }
        }
    }

    /// Waits until transaction `other` has ended (it changed a row `me` wants to change).
    ///
    /// # Errors
    /// [`StorageError::Deadlock`] (2631) if `other` waits, directly or not, for `me`;
    /// [`StorageError::Interrupted`] if the request is stopped meanwhile.
    pub fn wait_for_txn(
        &self,
        txns: &TxnManager,
        (me, session): (TxnId, u64),
        other: TxnId,
        table: &str,
    ) -> Result<(), StorageError> {
        let mut g = self.state.lock();
        if session != 0 {
            g.owners.insert(me, session);
        }
        self.row_waiters.fetch_add(1, Ordering::SeqCst);
        let mut waited = Ok(());
        while waited.is_ok() && txns.is_active(other) {
            waited = self.wait(&mut g, me, (table, None), WaitTarget::Row, vec![other]);
        }
        self.row_waiters.fetch_sub(1, Ordering::SeqCst);
        waited?;
        g.waiting.remove(&me);
        Ok(())
    }

    /// Records `me → on` in the graph, refuses if that closes a cycle, else sleeps once.
    fn wait(
        &self,
        g: &mut parking_lot::MutexGuard<'_, State>,
        me: TxnId,
        (table, table_id): (&str, Option<u64>),
        wants: WaitTarget,
        on: Vec<TxnId>,
    ) -> Result<(), StorageError> {
        if g.reaches(&on, me) {
            g.waiting.remove(&me);
            return Err(StorageError::Deadlock(table.to_string()));
        }
        // a consumer waiting for a row must not keep anyone waiting: end its wait
        for t in &on {
            if let Some(end) = g.delayed.remove(t) {
                end();
            }
        }
        g.waiting.insert(
            me,
            Waiting {
                table: table.to_string(),
                table_id,
                wants,
                on,
            },
        );
        match WAIT_STOP.with(Cell::get) {
            None => {
                self.released.wait(g);
            }
            Some(stop) => {
                self.released.wait_for(g, STOP_POLL);
                if let Some(why) = stop() {
                    g.waiting.remove(&me);
                    return Err(StorageError::Interrupted(why, table.to_string()));
                }
            }
        }
        Ok(())
    }

    /// Registers `me` as a consumer about to wait for a row; `end` ends that wait (with 2631).
    ///
    /// # Errors
    /// [`StorageError::Deadlock`] if another transaction already waits for `me`: waiting for
    /// a row while holding what it needs could last forever.
    pub fn enter_delayed(
        &self,
        me: TxnId,
        table: &str,
        end: Arc<dyn Fn() + Send + Sync>,
    ) -> Result<(), StorageError> {
        let mut g = self.state.lock();
        // A table-lock waiter's list is refreshed only when it wakes: count it only if `me`
        // still holds a conflicting lock (it may have just given back a consume's lock).
        let waited_for = g.waiting.iter().any(|(w, wait)| {
            wait.on.contains(&me)
                && match (&wait.wants, wait.table_id) {
                    (WaitTarget::Table(mode), Some(id)) => g.blockers(id, *w, *mode).contains(&me),
                    _ => true,
                }
        });
        if waited_for {
            return Err(StorageError::Deadlock(table.to_string()));
        }
        g.delayed.insert(me, end);
        Ok(())
    }

    /// Unregisters a consumer whose delayed wait ended.
    pub fn leave_delayed(&self, me: TxnId) {
        self.state.lock().delayed.remove(&me);
    }

    /// Gives back one mode of one table lock (a consume that took no row gives back the
    /// ROW WRITE lock it asked for, so a waiting consumer holds no lock).
    pub(crate) fn unlock(&self, me: TxnId, id: u64, mode: LockMode) {
        let mut g = self.state.lock();
        let mut empty = false;
        if let Some((_, holders)) = g.tables.get_mut(&id) {
            if let Some(bits) = holders.get_mut(&me) {
                *bits &= !mode.bit();
                if *bits == 0 {
                    holders.remove(&me);
                    empty = true;
                }
            }
        }
        g.forget_if_idle(id);
        if empty {
            if let Some(h) = g.held.get_mut(&me) {
                h.retain(|t| *t != id);
            }
        }
        if !g.waiting.is_empty() {
            self.released.notify_all();
        }
    }

    /// Called by an ended transaction that never used the manager: wakes the row waiters, if
    /// any, since one of them may wait for it (see `row_waiters`).
    pub(crate) fn ended_without_locks(&self) {
        if self.row_waiters.load(Ordering::SeqCst) > 0 {
            let _g = self.state.lock();
            self.released.notify_all();
        }
    }

    /// Releases every lock of an ended transaction and wakes the waiters.
    pub(crate) fn release_all(&self, me: TxnId) {
        let mut g = self.state.lock();
        g.owners.remove(&me);
        g.waiting.remove(&me);
        g.delayed.remove(&me);
        if let Some(ids) = g.held.remove(&me) {
            for id in ids {
                if let Some((_, holders)) = g.tables.get_mut(&id) {
                    holders.remove(&me);
                }
                g.forget_if_idle(id);
            }
        }
        if !g.waiting.is_empty() {
            self.released.notify_all();
        }
    }

    /// Who waits for whom now, sorted by waiter.
    pub fn waits(&self) -> Vec<LockWait> {
        let g = self.state.lock();
        let mut out: Vec<LockWait> = g
            .waiting
            .iter()
            .map(|(t, w)| LockWait {
                waiter: *t,
                session: g.owner(*t),
                table: w.table.clone(),
                wants: w.wants.clone(),
                blockers: w.on.iter().map(|b| (*b, g.owner(*b))).collect(),
            })
            .collect();
        out.sort_by_key(|w| w.waiter);
        out
    }

    /// Every granted table lock, sorted by table name and holder.
    pub fn held(&self) -> Vec<LockHeld> {
        let g = self.state.lock();
        let mut out = Vec::new();
        for (name, holders) in g.tables.values() {
            for (t, bits) in holders {
                for mode in LockMode::from_bits(*bits) {
                    out.push(LockHeld {
                        holder: *t,
                        session: g.owner(*t),
                        table: name.clone(),
                        mode,
                    });
                }
            }
        }
        out.sort_by(|a, b| (&a.table, a.holder).cmp(&(&b.table, b.holder)));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::time::Duration;

    #[test]
    fn conflict_matrix_is_symmetric() {
        let all = [
            LockMode::Access,
            LockMode::Read,
            LockMode::RowWrite,
            LockMode::Write,
            LockMode::Exclusive,
        ];
        for a in all {
            for b in all {
                assert_eq!(
                    a.conflicts() & b.bit() != 0,
                    b.conflicts() & a.bit() != 0,
                    "{a:?} vs {b:?}"
                );
            }
        }
    }

    #[test]
    fn released_tables_show_no_holder_and_idle_entries_stay_bounded() {
        let lm = LockManager::default();
        lm.lock_table((1, 0), 7, "t", LockMode::Write, false)
            .unwrap();
        lm.release_all(1);
        assert!(lm.held().is_empty(), "nothing is held after the release");
        lm.lock_table((2, 0), 7, "t", LockMode::Read, false)
            .unwrap();
        let held = lm.held();
        assert_eq!(held.len(), 1);
        assert_eq!((held[0].holder, held[0].table.as_str()), (2, "t"));
        lm.unlock(2, 7, LockMode::Read);
        assert!(lm.held().is_empty(), "nothing is held after the unlock");
        // many short-lived tables (ids are never reused) leave a bounded number of entries
        for id in 100..100 + 3 * IDLE_ENTRIES as u64 {
            lm.lock_table((id, 0), id, "tmp", LockMode::Write, false)
                .unwrap();
            lm.release_all(id);
        }
        assert!(lm.state.lock().tables.len() <= IDLE_ENTRIES + 1);
    }

    #[test]
    fn nowait_fails_and_compatible_modes_share() {
        let lm = LockManager::default();
        lm.lock_table((1, 0), 7, "t", LockMode::RowWrite, false)
            .unwrap();
        lm.lock_table((2, 0), 7, "t", LockMode::RowWrite, false)
            .unwrap();
        lm.lock_table((3, 0), 7, "t", LockMode::Access, false)
            .unwrap();
        assert_eq!(
            lm.lock_table((3, 0), 7, "t", LockMode::Read, true),
            Err(StorageError::LockNowait("t".into()))
        );
        lm.release_all(1);
        lm.release_all(2);
        lm.lock_table((3, 0), 7, "t", LockMode::Read, true).unwrap();
    }

    #[test]
    fn a_cycle_is_refused_to_the_transaction_that_closes_it() {
        let txns = Arc::new(TxnManager::default());
        let lm = Arc::new(LockManager::default());
        let a = txns.begin();
        let b = txns.begin();
        lm.lock_table((a, 0), 1, "t1", LockMode::Write, false)
            .unwrap();
        lm.lock_table((b, 0), 2, "t2", LockMode::Write, false)
            .unwrap();
        let (lm2, txns2) = (lm.clone(), txns.clone());
        let waiter = std::thread::spawn(move || {
            let r = lm2.lock_table((a, 0), 2, "t2", LockMode::Write, false);
            txns2.end(a);
            lm2.release_all(a);
            r
        });
        while lm.waits().is_empty() {
            std::thread::sleep(Duration::from_millis(1));
        }
        assert_eq!(lm.waits()[0].blockers, vec![(b, 0)]);
        assert_eq!(
            lm.lock_table((b, 0), 1, "t1", LockMode::Read, false),
            Err(StorageError::Deadlock("t1".into()))
        );
        txns.end(b);
        lm.release_all(b);
        assert!(waiter.join().unwrap().is_ok());
    }
}
