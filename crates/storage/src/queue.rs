//! The queue index of a queue table: an ordered map from (QITS, insertion sequence) to the row,
//! holding exactly the committed rows that no transaction has consumed, deleted or updated.
//!
//! ```text
//!   committed insert ──► index ──consume/delete/update by T──► claimed by T (not in index)
//!                          ▲                                         │
//!                          └──────────── T rolls back ◄──────────────┘   (same key: same place)
//!                                        T commits ──► gone for good
//! ```
//!
//! A consume is `pop_first` on this map: O(log n) whatever the table size and however many rows
//! were consumed before, and it never waits for or returns a row another open transaction holds.
//! Rows a transaction inserts itself wait in that transaction's own pending map until commit, so
//! only it can consume them before then.
//!
//! Waiting on an empty queue is not storage's business: storage only says "nothing to take" and,
//! at commit or rollback, how many rows each queue gained. The session layer (`exec`) keeps the
//! waiters and wakes them, never while holding a storage lock.

use crate::table::RowId;
use std::collections::BTreeMap;

/// Order of consumption: QITS (µs), then insertion sequence (tdlite's documented tie-break).
pub type QueueKey = (i64, u64);

/// The ordered index of consumable rows.
#[derive(Debug, Default)]
pub struct QueueIndex {
    entries: BTreeMap<QueueKey, RowId>,
}

impl QueueIndex {
    /// Adds a consumable row.
    pub fn insert(&mut self, key: QueueKey, row: RowId) {
        self.entries.insert(key, row);
    }

    /// Removes a row's entry; returns whether it was there.
    pub fn remove(&mut self, key: &QueueKey) -> bool {
        self.entries.remove(key).is_some()
    }

    /// Removes and returns the oldest entry.
    pub fn pop_first(&mut self) -> Option<(QueueKey, RowId)> {
        self.entries.pop_first()
    }

    /// The oldest entry, without removing it.
    pub fn first(&self) -> Option<(QueueKey, RowId)> {
        self.entries.first_key_value().map(|(k, r)| (*k, *r))
    }

    /// Number of consumable rows.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True if nothing can be consumed.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}
