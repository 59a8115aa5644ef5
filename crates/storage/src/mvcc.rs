//! Transaction ids and snapshots.
//!
//! Every row carries `xmin` (the transaction that created it) and `xmax` (the transaction that
//! deleted it, or 0). A transaction id is *active* until its commit or rollback. A snapshot
//! records the next id to be handed out and the set of active ids when it was taken:
//!
//! ```text
//!   id committed in snapshot  ⇔  id < snapshot.next  ∧  id ∉ snapshot.active
//!   row visible to T          ⇔  (xmin = T ∨ committed(xmin)) ∧ ¬(xmax = T ∨ committed(xmax))
//! ```
//!
//! Rollback never leaves an aborted id in a row: rows created by an aborted transaction get
//! `xmin = DEAD`, and rows it deleted get `xmax = 0` back. So a non-zero `xmin`/`xmax` always
//! names an active or committed transaction.

use crate::padded::Padded;
use crate::slots::{Slot, Slots, TxnSlot};
use parking_lot::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// A transaction id. 0 means "none".
pub type TxnId = u64;

/// `xmin` of a row whose creating transaction rolled back: never visible.
pub const DEAD: TxnId = u64::MAX;

/// A slot's transaction id while its begin takes one from the counter: a snapshot waits for it.
const PENDING: TxnId = u64::MAX - 2;

/// A slot's `low` while its transaction has taken no snapshot.
const NO_SNAPSHOT: TxnId = u64::MAX;

/// Hands out transaction ids and tracks which are active.
///
/// Each transaction object publishes its open transaction's id in its slot (`slots`). A
/// begin takes no mutex: it marks its slot PENDING, takes the next id from a shared counter
/// and publishes it. An end clears the slot, and a snapshot reads the counter and then every
/// slot, both under one mutex: ends are ordered with snapshots, so a snapshot that counts a
/// transaction as committed counts every transaction that had ended before it as committed
/// too (a snapshot reading slots while transactions end could see T2's commit without T1's,
/// though T2 read T1's rows). A begin races snapshots safely:
///
/// ```text
///   begin:     slot ← PENDING;  id ← next++;  slot ← id          (no mutex)
///   snapshot:  n ← next;  active ← { slot ids below n }  (waiting out a PENDING slot; mutex)
/// ```
///
/// The PENDING store, the counter and the snapshot's reads are sequentially consistent: an id
/// below `n` was taken after its slot was PENDING, so the snapshot's read of that slot finds
/// PENDING or the id (the transaction cannot have ended: ends wait for the mutex); an id at
/// or past `n` is not committed for the snapshot.
///
/// The horizon is the lowest of the snapshot's lowest active id (so a deletion by an open
/// transaction is never below it, snapshot or not: a unique-key check must still wait for it)
/// and the `low` of every open transaction that has taken a snapshot: its first snapshot's
/// lowest active id, below which every transaction had ended before any snapshot of that
/// transaction. An open transaction that has taken no snapshot holds the horizon back only to
/// its own id (its snapshots, all later, see every earlier end).
pub struct TxnManager {
    /// Serializes ends and snapshots.
    ends: Padded<Mutex<()>>,
    next: Padded<AtomicU64>,
    /// Each transaction object's slot (also its fast-path locks: `fastlock`).
    pub(crate) slots: Slots,
    /// Transactions begun with [`TxnManager::begin`] (no object of their own) and their slots.
    loose: Mutex<Vec<(TxnId, TxnSlot)>>,
}

impl Default for TxnManager {
    fn default() -> Self {
        TxnManager {
            ends: Padded(Mutex::new(())),
            next: Padded(AtomicU64::new(1)),
            slots: Slots::default(),
            loose: Mutex::new(Vec::new()),
        }
    }
}

/// The transaction id and `low` published in `slot` once no begin is under way in it (0: no
/// open transaction).
fn published(slot: &Slot) -> (TxnId, TxnId) {
    let mut spins = 0u32;
    loop {
        let id = slot.id.load(Ordering::SeqCst);
        if id != PENDING {
            return (id, slot.low.load(Ordering::SeqCst));
        }
        // a begin between two stores (or preempted there)
        spins += 1;
        if spins < 64 {
            std::hint::spin_loop();
        } else {
            std::thread::yield_now();
        }
    }
}

impl TxnManager {
    /// Starts a transaction in `slot`, whose last transaction has ended.
    pub(crate) fn begin_in(&self, slot: &TxnSlot) -> TxnId {
        let s = slot.slot();
        // (`low` is published by the release store of the id; PENDING must come before the
        // counter in the single order every snapshot's reads follow; the id after it may be
        // a plain release: a snapshot that reads PENDING waits until it reads the id)
        s.low.store(NO_SNAPSHOT, Ordering::Relaxed);
        s.id.store(PENDING, Ordering::SeqCst);
        let id = self.next.fetch_add(1, Ordering::SeqCst);
        s.id.store(id, Ordering::Release);
        // (kept after the end, for `fastlock`'s hand-over; a release store its entries'
        // sequentially consistent stores publish)
        s.txn.store(id, Ordering::Release);
        id
    }

    /// Ends transaction `id` (commit or rollback), begun in `slot`.
    pub(crate) fn end_in(&self, slot: &TxnSlot, id: TxnId) {
        let _g = self.ends.lock();
        let _ = slot
            .slot()
            .id
            .compare_exchange(id, 0, Ordering::SeqCst, Ordering::SeqCst);
    }

    /// Starts a transaction with a slot of its own, given back by [`TxnManager::end`].
    pub fn begin(&self) -> TxnId {
        let slot = self.slots.acquire();
        let id = self.begin_in(&slot);
        self.loose.lock().push((id, slot));
        id
    }

    /// Ends a transaction [`TxnManager::begin`] started (commit or rollback).
    pub fn end(&self, id: TxnId) {
        let mut loose = self.loose.lock();
        if let Some(i) = loose.iter().position(|(t, _)| *t == id) {
            let (_, slot) = loose.swap_remove(i);
            drop(loose);
            self.end_in(&slot, id);
            self.slots.release(&slot);
        }
    }

    /// A snapshot for transaction `me`, taken by no transaction object of its own.
    pub fn snapshot(&self, me: TxnId) -> Snapshot {
        self.snapshot_in(None, me)
    }

    /// A snapshot for transaction `me`, begun in `slot` (if given: its first snapshot sets
    /// the slot's `low`).
    pub(crate) fn snapshot_in(&self, slot: Option<&TxnSlot>, me: TxnId) -> Snapshot {
        let _g = self.ends.lock();
        let next = self.next.load(Ordering::SeqCst);
        let mut active = Vec::new();
        let mut horizon = next;
        self.slots.each(|s| {
            let (id, low) = published(s);
            if id != 0 && id < next {
                active.push(id);
                if low != NO_SNAPSHOT {
                    horizon = horizon.min(low);
                }
            }
        });
        active.sort_unstable();
        let first_active = active.first().copied().unwrap_or(next);
        // an open transaction's deletion is never gone for everyone
        horizon = horizon.min(first_active);
        if let Some(s) = slot.map(TxnSlot::slot) {
            if s.id.load(Ordering::SeqCst) == me && s.low.load(Ordering::SeqCst) == NO_SNAPSHOT {
                s.low.store(first_active, Ordering::SeqCst);
                horizon = horizon.min(first_active);
            }
        }
        Snapshot {
            me,
            next,
            first_active,
            active: active.into(),
            horizon,
        }
    }

    /// True while transaction `id` has neither committed nor rolled back. Read without the
    /// mutex, from the slots: meaningful for ids taken from rows or slots (written after
    /// their begin returned), not for one whose begin is still under way.
    pub fn is_active(&self, id: TxnId) -> bool {
        let mut found = false;
        self.slots
            .each(|s| found |= s.id.load(Ordering::SeqCst) == id);
        found && id != 0
    }

    /// True if `id` has committed (as of now). Only meaningful for ids found in rows.
    pub fn is_committed(&self, id: TxnId) -> bool {
        id != 0 && id != DEAD && id < self.next.load(Ordering::SeqCst) && !self.is_active(id)
    }
}

/// What one transaction may see.
#[derive(Debug, Clone)]
pub struct Snapshot {
    /// The reading transaction.
    pub me: TxnId,
    next: TxnId,
    /// The lowest active id (`next` if none): every id below it has ended.
    first_active: TxnId,
    /// The ids active when it was taken, in order.
    active: Arc<[TxnId]>,
    /// Every transaction below this id had ended when the snapshot was taken, and before
    /// the first snapshot of every transaction then open: a row whose deletion such a
    /// transaction committed is invisible to every snapshot that any open or later
    /// transaction takes (indexes drop its entry).
    horizon: TxnId,
}

impl Snapshot {
    /// A snapshot that sees no row at all: no transaction counts as committed, and its own
    /// id is none a transaction is given (nor [`DEAD`]). A query read through it finds every
    /// table empty: what a statement needs that wants a query's columns, not its rows
    /// (CREATE VIEW, CREATE TABLE … AS … WITH NO DATA).
    pub fn seeing_nothing() -> Snapshot {
        Snapshot {
            me: DEAD - 1,
            next: 0,
            first_active: 0,
            active: Arc::from(Vec::new()),
            horizon: 0,
        }
    }

    /// Whether this is a snapshot [`Snapshot::seeing_nothing`] made: a reader through it wants
    /// a query's columns, not its rows.
    pub fn sees_nothing(&self) -> bool {
        self.me == DEAD - 1 && self.next == 0
    }

    fn committed(&self, id: TxnId) -> bool {
        id != 0
            && id != DEAD
            && id < self.next
            && (id < self.first_active || self.active.binary_search(&id).is_err())
    }

    /// True if transaction `id` and every one before it had ended (committed, or rolled back)
    /// when the snapshot was taken.
    pub(crate) fn ended_before(&self, id: TxnId) -> bool {
        id < self.first_active
    }

    /// Whether a row with these stamps is gone for every reader now and later: its creator
    /// rolled back, or its deletion committed below the horizon.
    pub fn dead_to_all(&self, xmin: TxnId, xmax: TxnId) -> bool {
        xmin == DEAD || (xmax != 0 && xmax < self.horizon)
    }

    /// Whether a row with these stamps is visible.
    pub fn visible(&self, xmin: TxnId, xmax: TxnId) -> bool {
        let created = xmin == self.me || self.committed(xmin);
        let deleted = xmax != 0 && (xmax == self.me || self.committed(xmax));
        created && !deleted
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_snapshot_seeing_nothing_sees_no_row_of_any_transaction() {
        let tm = TxnManager::default();
        let (done, open) = (tm.begin(), tm.begin());
        tm.end(done);
        let ordinary = tm.snapshot(open);
        let nothing = Snapshot::seeing_nothing();
        assert!(nothing.sees_nothing() && !ordinary.sees_nothing());
        for (xmin, xmax) in [(done, 0), (open, 0), (done, open), (0, 0), (DEAD, 0)] {
            assert!(!nothing.visible(xmin, xmax), "({xmin}, {xmax})");
        }
        // (the ordinary snapshot sees the first two: the check above can fail)
        assert!(ordinary.visible(done, 0) && ordinary.visible(open, 0));
        assert!(!nothing.ended_before(done) && !nothing.dead_to_all(done, 0));
    }

    #[test]
    fn ids_end_out_of_order_and_slots_carry_one_transaction_after_another() {
        let tm = TxnManager::default();
        let ids: Vec<TxnId> = (0..12).map(|_| tm.begin()).collect();
        for &id in &ids {
            assert!(tm.is_active(id));
        }
        for &id in ids.iter().step_by(2) {
            tm.end(id);
        }
        let snap = tm.snapshot(0);
        for (i, &id) in ids.iter().enumerate() {
            assert_eq!(tm.is_active(id), i % 2 == 1);
            assert_eq!(snap.committed(id), i % 2 == 0);
        }
        assert!(snap.ended_before(ids[0]) && !snap.ended_before(ids[1] + 1));
        let slot = tm.slots.acquire();
        let first = tm.begin_in(&slot);
        tm.end_in(&slot, first);
        let second = tm.begin_in(&slot);
        assert!(second > first && !tm.is_active(first) && tm.is_active(second));
        assert!(tm.snapshot(0).committed(first) && !tm.snapshot(0).committed(second));
        tm.end_in(&slot, second);
        tm.slots.release(&slot);
        assert!(tm.is_committed(second));
    }

    #[test]
    fn snapshots_see_committed_and_own_rows_only() {
        let tm = TxnManager::default();
        let a = tm.begin();
        let b = tm.begin();
        let snap_b = tm.snapshot(b);
        assert!(!snap_b.visible(a, 0), "a is active");
        assert!(snap_b.visible(b, 0), "own row");
        assert!(!snap_b.visible(b, b), "own delete");
        tm.end(a);
        assert!(!snap_b.visible(a, 0), "a committed after the snapshot");
        let later = tm.snapshot(b);
        assert!(later.visible(a, 0));
        assert!(!later.visible(DEAD, 0));
    }

    #[test]
    fn the_horizon_waits_for_transactions_whose_snapshots_saw_a_deleter_open() {
        let tm = TxnManager::default();
        let (r, idle) = (tm.slots.acquire(), tm.slots.acquire());
        let deleter = tm.begin();
        let reader = tm.begin_in(&r);
        let _ = tm.snapshot_in(Some(&r), reader); // sees `deleter` open
        let waiting = tm.begin_in(&idle); // open, no snapshot yet
        tm.end(deleter);
        assert!(
            !tm.snapshot(0).dead_to_all(1, deleter),
            "the reader may still read it"
        );
        assert!(
            !tm.snapshot(0).dead_to_all(1, waiting),
            "an open deleter's row is alive"
        );
        tm.end_in(&r, reader);
        // the idle transaction's snapshots all come after the deleter's end
        assert!(tm.snapshot(0).dead_to_all(1, deleter));
        assert!(
            !tm.snapshot(0).dead_to_all(1, waiting),
            "open, no snapshot: still alive"
        );
        let s = tm.snapshot_in(Some(&idle), waiting);
        assert!(s.dead_to_all(1, deleter) && !s.dead_to_all(1, waiting));
        assert!(s.dead_to_all(DEAD, 0));
        tm.end_in(&idle, waiting);
    }
}
