//! Fast-path ROW WRITE locks: the lock every row change takes, granted without the lock
//! manager, and without any mutex, while no one holds or wants a lock that conflicts with it.
//!
//! ROW WRITE conflicts only with READ, WRITE and EXCLUSIVE table locks ("strong" locks here),
//! which DDL and `LOCKING … FOR READ|WRITE|EXCLUSIVE` take and row changes never do. So a
//! table counts (`Table::strong`) the transactions holding or wanting a strong lock on it, and
//! each transaction records the tables it holds ROW WRITE on through the fast path in its own
//! slot (`slots`): a join or a give-back writes only the session's own memory, and reads the
//! table's count, a line that changes only when a strong lock is asked for or given back.
//!
//! ```text
//!   ROW WRITE wanted:  slot ← table; strong = 0 ─► held (no lock manager)
//!                                    strong > 0 ─► slot ← 0 ─► the manager (if the
//!                                                  entry was TAKEN: take back its record)
//!   strong wanted:     strong += 1; each slot holding the table: mark it TAKEN ─► the manager
//!                      records its transaction as a ROW WRITE holder (if still active) ─►
//!                      the usual wait, deadlock check
//!   transaction end:   slot: table ─► 0 (if TAKEN: release in the manager) ─► strong -= 1
//! ```
//!
//! The join stores before it loads the count, and a strong request adds to the count before it
//! reads the slots, all sequentially consistent: a joiner that found the count at 0 is seen
//! by the request's look at the slots, so the manager's conflict and deadlock checks see every
//! ROW WRITE holder that matters. A slot entry marked TAKEN cannot be given back on the fast
//! path: its holder releases in the manager instead, which the hand-over (recording only
//! holders still active, under the manager's mutex) never outruns (the end comes first).
//! A request marks and records under the table's `handover` mutex: a second request skips
//! entries already marked, so it must find their holders recorded before it asks the manager;
//! and a transaction that finds its entry marked before its end (a join that lost the race,
//! a lock given back because a take found nothing) takes the manager's record back under the
//! same mutex, after the hand-over has made it, so no record outlives the lock it stood for.
//!
//! Invariants:
//! - while a transaction holds or waits for a strong lock on a table, that table's `strong`
//!   is above 0, so no new fast holder keeps its entry;
//! - a transaction's `strong` counts are given back only after its locks were released in
//!   the manager (at its end), so a fast holder never overlaps a strong lock;
//! - a slot's `txn` is written before its transaction records any table (a release store
//!   that the entry's sequentially consistent store publishes with it), and a request marks
//!   an entry TAKEN only between two reads of `txn` that agree, so it hands over the
//!   transaction that recorded the entry;
//! - a table another open transaction is creating starts with `strong = 1` (its creator holds
//!   EXCLUSIVE), given back at the creator's end.
//!
//! Lock order: a table's `handover` mutex, then the lock manager's (the hand-over records
//! holders there), then the transaction manager's. A join or give-back takes none, unless
//! it finds its entry TAKEN (then `handover` and the manager's, to take the record back).

use crate::mvcc::TxnId;
use crate::slots::{Slots, TxnSlot};
use std::sync::atomic::{AtomicU32, Ordering};

/// Set on a slot's table entry once a strong request has handed it to the lock manager.
const TAKEN: u64 = 1 << 63;

/// What [`try_join`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Join {
    /// ROW WRITE is held on the fast path.
    Joined,
    /// Not held: ask the lock manager.
    Closed,
    /// Not held, and a strong request marked the entry as it was made: it may record this
    /// transaction in the lock manager as a ROW WRITE holder (under the table's `handover`
    /// mutex), a record the caller must take back.
    Taken,
}

/// Grants ROW WRITE on table `id` (whose count of strong requests is `strong`) on the fast
/// path to the transaction in `slot`, if no strong lock is held or wanted and the slot has
/// room. Joining again is one hold.
pub(crate) fn try_join(slot: &TxnSlot, (id, strong): (u64, &AtomicU32)) -> Join {
    let s = slot.slot();
    if s.tables.iter().any(|e| e.load(Ordering::Relaxed) == id) {
        return Join::Joined;
    }
    let Some(entry) = s.tables.iter().find(|e| e.load(Ordering::Relaxed) == 0) else {
        return Join::Closed;
    };
    entry.store(id, Ordering::SeqCst);
    if strong.load(Ordering::SeqCst) == 0 {
        return Join::Joined;
    }
    // closed meanwhile: the entry goes, marked or not
    match entry.swap(0, Ordering::SeqCst) & TAKEN {
        0 => Join::Closed,
        _ => Join::Taken,
    }
}

/// The transaction in `slot` gives its fast ROW WRITE on table `id` back; false if a strong
/// request handed it to the lock manager, which must release it.
pub(crate) fn leave(slot: &TxnSlot, id: u64) -> bool {
    for entry in &slot.slot().tables {
        let e = entry.load(Ordering::Relaxed);
        if e == id {
            if entry
                .compare_exchange(id, 0, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
            {
                return true;
            }
            entry.store(0, Ordering::SeqCst);
            return false;
        }
        if e == id | TAKEN {
            entry.store(0, Ordering::SeqCst);
            return false;
        }
    }
    false
}

/// A strong lock on table `id` is wanted: from now on no one keeps a fast entry for it, and
/// the transactions holding one (with their sessions) are returned, their entries marked
/// TAKEN.
pub(crate) fn want_strong(slots: &Slots, (id, strong): (u64, &AtomicU32)) -> Vec<(TxnId, u64)> {
    strong.fetch_add(1, Ordering::SeqCst);
    let mut holders = Vec::new();
    slots.each(|s| {
        for entry in &s.tables {
            loop {
                if entry.load(Ordering::SeqCst) != id {
                    break;
                }
                let txn = s.txn.load(Ordering::SeqCst);
                if entry
                    .compare_exchange(id, id | TAKEN, Ordering::SeqCst, Ordering::SeqCst)
                    .is_err()
                {
                    break; // given back meanwhile
                }
                if s.txn.load(Ordering::SeqCst) == txn {
                    holders.push((txn, s.session.load(Ordering::SeqCst)));
                    break;
                }
                // its transaction changed under the look: put the entry back and look again
                // (a holder that tried to give it back meanwhile has cleared it)
                let _ = entry.compare_exchange(id | TAKEN, id, Ordering::SeqCst, Ordering::SeqCst);
            }
        }
    });
    holders
}

/// A transaction that wanted a strong lock on a table (whose count is `strong`) has ended
/// (its locks are released).
pub(crate) fn strong_done(strong: &AtomicU32) {
    let _ = strong.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1));
}

/// Every ROW WRITE held on the fast path now: (table id, transaction, session), for `HELP LOCKS`.
pub(crate) fn holders(slots: &Slots) -> Vec<(u64, TxnId, u64)> {
    let mut out = Vec::new();
    slots.each(|s| {
        for entry in &s.tables {
            let e = entry.load(Ordering::SeqCst);
            if e != 0 && e & TAKEN == 0 {
                out.push((
                    e,
                    s.txn.load(Ordering::SeqCst),
                    s.session.load(Ordering::SeqCst),
                ));
            }
        }
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_strong_request_closes_the_fast_path_and_takes_its_holders() {
        let strong = AtomicU32::new(0);
        let table = (7, &strong);
        let slots = Slots::default();
        let (a, b, c) = (slots.acquire(), slots.acquire(), slots.acquire());
        for (s, txn, session) in [(&a, 1, 10), (&b, 2, 20), (&c, 3, 30)] {
            s.slot().txn.store(txn, Ordering::SeqCst);
            s.slot().session.store(session, Ordering::SeqCst);
        }
        assert_eq!(try_join(&a, table), Join::Joined);
        assert_eq!(try_join(&b, table), Join::Joined);
        assert_eq!(
            try_join(&a, table),
            Join::Joined,
            "joining twice is one hold"
        );
        let mut seen = holders(&slots);
        seen.sort_unstable();
        assert_eq!(seen, [(7, 1, 10), (7, 2, 20)]);
        let mut taken = want_strong(&slots, table);
        taken.sort_unstable();
        assert_eq!(taken, [(1, 10), (2, 20)]);
        assert!(holders(&slots).is_empty(), "handed over");
        assert_eq!(try_join(&c, table), Join::Closed, "closed while wanted");
        assert!(!leave(&a, 7), "handed over: the manager releases it");
        strong_done(&strong);
        assert_eq!(try_join(&c, table), Join::Joined, "open again");
        assert!(leave(&c, 7));
        assert!(!leave(&b, 7) && holders(&slots).is_empty());
        // a full slot sends one more table to the manager
        let others = AtomicU32::new(0);
        for id in 0..crate::slots::FAST_TABLES as u64 {
            assert_eq!(try_join(&c, (100 + id, &others)), Join::Joined);
        }
        assert_eq!(try_join(&c, (7, &strong)), Join::Closed);
        // a table being created starts closed (its creator's EXCLUSIVE)
        let created = AtomicU32::new(1);
        assert_eq!(try_join(&a, (8, &created)), Join::Closed);
        strong_done(&created);
        assert_eq!(try_join(&a, (8, &created)), Join::Joined);
    }
}
