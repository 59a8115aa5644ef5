//! Fast-path ROW WRITE locks: the lock every row change takes, granted without the lock
//! manager while no one holds or wants a lock that conflicts with it.
//!
//! ROW WRITE conflicts only with READ, WRITE and EXCLUSIVE table locks ("strong" locks here),
//! which DDL and `LOCKING … FOR READ|WRITE|EXCLUSIVE` take and row changes never do. So a
//! table keeps, behind a small mutex of its own, how many transactions hold or want a strong
//! lock on it, and the transactions holding ROW WRITE on the fast path:
//!
//! ```text
//!   ROW WRITE wanted:  strong = 0 ─► join `fast` (no lock manager)     strong > 0 ─► manager
//!   strong wanted:     strong += 1, take every `fast` holder out ─► the manager records them
//!                      as ROW WRITE holders (if still active) ─► the usual wait, deadlock check
//!   transaction end:   leave `fast` (if taken out, release in the manager) ─► strong -= 1
//! ```
//!
//! Invariants:
//! - while a transaction holds or waits for a strong lock on a table, that table's `strong`
//!   is above 0, so no new fast holder appears; every fast holder from before was handed to the
//!   manager before the strong request looked at the holders, so the manager's conflict and
//!   deadlock checks see every ROW WRITE holder that matters;
//! - a transaction's `strong` counts are given back only after its locks were released in
//!   the manager (at its end), so a fast holder never overlaps a strong lock;
//! - a fast holder that was handed over ends as a manager holder does: `TxnManager::end`,
//!   then the manager's release (which wakes the waiters). The hand-over records only holders
//!   still active under the manager's mutex, so an ended one is never left behind;
//! - a table another open transaction is creating starts with `strong = 1` (its creator holds
//!   EXCLUSIVE), given back at the creator's end.
//!
//! Lock order: this mutex is taken before the lock manager's (the hand-over records holders
//! there while holding it) and never while the manager's or the table's data mutex
//! (`TableData`) is held.

use crate::mvcc::TxnId;
use smallvec::SmallVec;

/// The fast-path lock state of one table.
#[derive(Debug, Default)]
pub(crate) struct RowWriters {
    /// Transactions holding or waiting for a READ, WRITE or EXCLUSIVE lock on the table.
    strong: u32,
    /// Transactions holding ROW WRITE on the fast path, with their sessions (inline for a
    /// few: a join or leave touches only the mutex's own cache lines).
    fast: SmallVec<[(TxnId, u64); 4]>,
}

impl RowWriters {
    /// A table's state at creation: `strong` already counts the creating transaction
    /// (`creator != 0`), which holds EXCLUSIVE on it.
    pub(crate) fn new(creator: TxnId) -> Self {
        RowWriters {
            strong: u32::from(creator != 0),
            fast: SmallVec::new(),
        }
    }

    /// Grants ROW WRITE to `me` on the fast path if no strong lock is held or wanted.
    pub(crate) fn try_join(&mut self, me: TxnId, session: u64) -> bool {
        if self.strong > 0 {
            return false;
        }
        if !self.fast.iter().any(|&(t, _)| t == me) {
            self.fast.push((me, session));
        }
        true
    }

    /// `me` gives its fast ROW WRITE back; false if it is not here (a strong request handed it
    /// to the lock manager, which must release it).
    pub(crate) fn leave(&mut self, me: TxnId) -> bool {
        match self.fast.iter().position(|&(t, _)| t == me) {
            Some(i) => {
                self.fast.swap_remove(i);
                true
            }
            None => false,
        }
    }

    /// A strong lock is wanted: from now on no one joins the fast path, and the current fast
    /// holders go to the lock manager (returned).
    pub(crate) fn want_strong(&mut self) -> Vec<(TxnId, u64)> {
        self.strong += 1;
        std::mem::take(&mut self.fast).into_vec()
    }

    /// A transaction that wanted a strong lock has ended (its locks are released).
    pub(crate) fn strong_done(&mut self) {
        self.strong = self.strong.saturating_sub(1);
    }

    /// The fast holders now, for `HELP LOCKS`.
    pub(crate) fn holders(&self) -> Vec<(TxnId, u64)> {
        self.fast.to_vec()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_strong_request_closes_the_fast_path_and_takes_its_holders() {
        let mut w = RowWriters::new(0);
        assert!(w.try_join(1, 10));
        assert!(w.try_join(2, 20));
        assert!(w.try_join(1, 10), "joining twice is one hold");
        assert_eq!(w.want_strong(), vec![(1, 10), (2, 20)]);
        assert!(!w.try_join(3, 30), "closed while a strong lock is wanted");
        assert!(!w.leave(1), "handed over: the manager releases it");
        w.strong_done();
        assert!(w.try_join(3, 30), "open again");
        assert!(w.leave(3));
        assert!(w.holders().is_empty());
        let mut created = RowWriters::new(7);
        assert!(
            !created.try_join(1, 0),
            "a table being created is its creator's"
        );
        created.strong_done();
        assert!(created.try_join(1, 0));
    }
}
