//! A queue table's leases (docs/queues.md, Leases): rows a `SELECT AND CONSUME … LEASE`
//! took out of the queue for a while without a transaction holding them.
//!
//! A leased row is an ordinary committed row that is not in the queue index (no consumer can
//! take it) and not claimed by any transaction (readers see it; a DELETE or UPDATE may change
//! it). Its lease remembers its queue key so that it goes back to its place when the lease
//! ends: at its time, by `RELEASE`, or when the session that took it ends. Leases are not
//! logged: the rows never left the table, so after a reopen they are in the queue again.
//!
//! Invariants (under the table's mutex, like the queue index): every leased row is in exactly
//! one lease and not in the queue index; `Table::next_lease_end` is the earliest end of any
//! lease of the table (`i64::MAX` when there is none).

use crate::queue::QueueKey;
use crate::table::RowId;
use std::collections::{BTreeSet, HashMap};

/// One lease: its rows with their queue keys, when it ends (µs since the epoch), and the
/// session that took it.
#[derive(Debug, Clone)]
pub(crate) struct Lease {
    pub(crate) until: i64,
    pub(crate) session: u64,
    pub(crate) rows: Vec<(QueueKey, RowId)>,
}

/// A table's leases, by number and by end.
#[derive(Debug, Default)]
pub(crate) struct Leases {
    by_id: HashMap<u64, Lease>,
    ends: BTreeSet<(i64, u64)>,
    rows: usize,
}

impl Leases {
    /// Adds lease `id`.
    pub(crate) fn add(&mut self, id: u64, lease: Lease) {
        self.ends.insert((lease.until, id));
        self.rows += lease.rows.len();
        self.by_id.insert(id, lease);
    }

    /// Takes lease `id` out, if it is there.
    pub(crate) fn remove(&mut self, id: u64) -> Option<Lease> {
        let lease = self.by_id.remove(&id)?;
        self.ends.remove(&(lease.until, id));
        self.rows -= lease.rows.len();
        Some(lease)
    }

    /// The leased row at queue key `key`, if a lease holds one.
    pub(crate) fn row_at(&self, key: &crate::queue::QueueKey) -> Option<crate::table::RowId> {
        if self.rows == 0 {
            return None;
        }
        self.by_id
            .values()
            .flat_map(|l| l.rows.iter())
            .find(|(k, _)| k == key)
            .map(|(_, r)| *r)
    }

    /// Lease `id`, if it is there.
    pub(crate) fn get(&self, id: u64) -> Option<&Lease> {
        self.by_id.get(&id)
    }

    /// The earliest end, `i64::MAX` if there are no leases.
    pub(crate) fn first_end(&self) -> i64 {
        self.ends.first().map_or(i64::MAX, |(t, _)| *t)
    }

    /// The leases that end at or before `now`.
    pub(crate) fn ended_by(&self, now: i64) -> Vec<u64> {
        self.ends
            .range(..=(now, u64::MAX))
            .map(|(_, id)| *id)
            .collect()
    }

    /// The leases session `session` took.
    pub(crate) fn of_session(&self, session: u64) -> Vec<u64> {
        self.by_id
            .iter()
            .filter(|(_, l)| l.session == session)
            .map(|(id, _)| *id)
            .collect()
    }

    /// How many rows are leased.
    pub(crate) fn rows(&self) -> usize {
        self.rows
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leases_are_found_by_number_end_and_session() {
        let mut l = Leases::default();
        assert_eq!(l.first_end(), i64::MAX);
        let lease = |until, session, n: u64| Lease {
            until,
            session,
            rows: (0..n).map(|r| ((0, 0, r), r)).collect(),
        };
        l.add(1, lease(50, 7, 2));
        l.add(2, lease(20, 8, 3));
        l.add(3, lease(50, 7, 1));
        assert_eq!((l.first_end(), l.rows()), (20, 6));
        assert_eq!(l.ended_by(19), Vec::<u64>::new());
        assert_eq!(l.ended_by(50), vec![2, 1, 3]);
        let mut mine = l.of_session(7);
        mine.sort_unstable();
        assert_eq!(mine, vec![1, 3]);
        assert_eq!(l.remove(2).map(|x| x.rows.len()), Some(3));
        assert!(l.remove(2).is_none());
        assert_eq!((l.first_end(), l.rows()), (50, 3));
        assert!(l.get(1).is_some() && l.get(2).is_none());
    }
}
