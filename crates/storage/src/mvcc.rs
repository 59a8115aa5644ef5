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

use parking_lot::Mutex;
use smallvec::SmallVec;
use std::sync::Arc;

/// A transaction id. 0 means "none".
pub type TxnId = u64;

/// `xmin` of a row whose creating transaction rolled back: never visible.
pub const DEAD: TxnId = u64::MAX;

/// Hands out transaction ids and tracks which are active.
#[derive(Default)]
pub struct TxnManager {
    inner: crate::padded::Padded<Mutex<Inner>>,
}

#[derive(Default)]
struct Inner {
    next: TxnId,
    /// The active transactions in id order (ids are handed out in increasing order, so a new
    /// one goes at the back), each with the oldest transaction active when it began (itself if
    /// none): every id below that had ended by then. That second id is non-decreasing too.
    /// Held inline up to `INLINE_ACTIVE` (beside `next`, on the mutex's own cache lines: a
    /// begin or end touches no other memory), in a heap buffer beyond (until few are open
    /// again).
    active: SmallVec<[(TxnId, TxnId); INLINE_ACTIVE]>,
}

/// How many active transactions [`TxnManager`] holds without a heap buffer.
const INLINE_ACTIVE: usize = 6;

impl Inner {
    fn find(&self, id: TxnId) -> Result<usize, usize> {
        self.active.binary_search_by_key(&id, |&(t, _)| t)
    }
}

impl TxnManager {
    /// Starts a transaction.
    pub fn begin(&self) -> TxnId {
        let mut g = self.inner.lock();
        g.next = g.next.max(1);
        let id = g.next;
        g.next += 1;
        let low = g.active.first().map_or(id, |&(t, _)| t);
        g.active.push((id, low));
        id
    }

    /// Ends a transaction (commit or rollback).
    pub fn end(&self, id: TxnId) {
        let mut g = self.inner.lock();
        if let Ok(i) = g.find(id) {
            g.active.remove(i);
            // back inline once few are open again (a SmallVec stays on the heap otherwise)
            if g.active.spilled() && g.active.len() <= INLINE_ACTIVE / 2 {
                g.active.shrink_to_fit();
            }
        }
    }

    /// A snapshot for transaction `me`.
    pub fn snapshot(&self, me: TxnId) -> Snapshot {
        let g = self.inner.lock();
        let next = g.next.max(1);
        Snapshot {
            me,
            next,
            first_active: g.active.first().map_or(next, |&(t, _)| t),
            active: g.active.iter().map(|&(t, _)| t).collect(),
            horizon: g.active.first().map_or(next, |&(_, low)| low),
        }
    }

    /// True while transaction `id` has neither committed nor rolled back.
    pub fn is_active(&self, id: TxnId) -> bool {
        self.inner.lock().find(id).is_ok()
    }

    /// True if `id` has committed (as of now). Only meaningful for ids found in rows.
    pub fn is_committed(&self, id: TxnId) -> bool {
        let g = self.inner.lock();
        id != 0 && id != DEAD && id < g.next && g.find(id).is_err()
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
    /// Every transaction below this id had ended before any transaction open at the
    /// snapshot began: a row whose deletion such a transaction committed is invisible to every
    /// snapshot that any open or later transaction takes (indexes drop its entry).
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
    fn the_manager_state_fits_its_padded_lines_and_spills_past_the_inline_ids() {
        // a begin or end with few transactions open touches only the padded block
        assert!(std::mem::size_of::<Mutex<Inner>>() <= 128);
        let tm = TxnManager::default();
        let ids: Vec<TxnId> = (0..2 * INLINE_ACTIVE).map(|_| tm.begin()).collect();
        for &id in &ids {
            assert!(tm.is_active(id));
        }
        // ending out of order, past the inline capacity and back
        for &id in ids.iter().step_by(2) {
            tm.end(id);
        }
        let snap = tm.snapshot(0);
        for (i, &id) in ids.iter().enumerate() {
            assert_eq!(tm.is_active(id), i % 2 == 1);
            assert_eq!(snap.committed(id), i % 2 == 0);
        }
        assert!(snap.ended_before(ids[0]) && !snap.ended_before(ids[1] + 1));
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
    fn the_horizon_waits_for_transactions_that_began_before_a_commit() {
        let tm = TxnManager::default();
        let deleter = tm.begin();
        let reader = tm.begin(); // began while `deleter` was open: may hold an older snapshot
        tm.end(deleter);
        assert!(!tm.snapshot(reader).dead_to_all(1, deleter));
        tm.end(reader);
        let later = tm.begin();
        assert!(tm.snapshot(later).dead_to_all(1, deleter));
        assert!(!tm.snapshot(later).dead_to_all(1, later));
        assert!(tm.snapshot(later).dead_to_all(DEAD, 0));
    }
}
