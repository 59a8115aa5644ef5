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
//! A consume is `pop_first` on this map: O(1) for rows that arrived in key order, O(log n) for
//! the others, whatever the table size and however many rows were consumed before, and it never
//! waits for or returns a row another open transaction holds. Rows a transaction inserts itself
//! wait in that transaction's own pending index (the same structure) until commit, so only it
//! can consume them before then.
//!
//! Waiting on an empty queue is not storage's business: storage only says "nothing to take" and,
//! at commit or rollback, how many rows each queue gained. The session layer (`exec`) keeps the
//! waiters and wakes them, never while holding a storage lock.

use crate::table::RowId;
use std::collections::{BTreeMap, VecDeque};

/// Order of consumption: the declared consume order's value (0 for a queue without one; see
/// [`order_key`]), then QITS (µs), then insertion sequence (tdlite's documented tie-break).
pub type QueueKey = (i64, i64, u64);

/// The first part of a row's [`QueueKey`] from the value of its queue's consume-order column
/// (`CONSUME ORDER (c [DESC])`): smaller leaves first, so a descending order keys by the
/// bitwise complement (`!v` orders every `i64` in reverse, with no overflow); a NULL (which the
/// column's NOT NULL keeps out) would leave last.
pub fn order_key(value: Option<i64>, descending: bool) -> i64 {
    match value {
        Some(v) if descending => !v,
        Some(v) => v,
        None => i64::MAX,
    }
}

/// The ordered index of consumable rows.
///
/// Rows mostly arrive in key order (QITS is the insert's CURRENT_TIMESTAMP, the sequence
/// counts up) and leave from the front, so the index is two parts: `run`, entries in strictly
/// increasing key order where adding past the back and taking the front are O(1), and
/// `scattered`, a B-tree for the keys that arrived out of order (an explicit older QITS, a
/// rolled-back consume putting its row back in front). Invariants: `run`'s keys strictly
/// increase; its first and last entries are live (a removed entry in the middle stays as a
/// tombstone, `None`, until tombstones outnumber live entries and `run` is compacted); no key
/// is live in both parts; `live` counts `run`'s live entries.
#[derive(Debug, Default)]
pub struct QueueIndex {
    run: VecDeque<(QueueKey, Option<RowId>)>,
    live: usize,
    scattered: BTreeMap<QueueKey, RowId>,
}

impl QueueIndex {
    /// Adds a consumable row (a key already present gets the new row).
    pub fn insert(&mut self, key: QueueKey, row: RowId) {
        if let Some(r) = self.scattered.get_mut(&key) {
            *r = row;
            return;
        }
        match (self.run.front(), self.run.back()) {
            (Some(&(first, _)), Some(&(last, _))) if key <= last => {
                if key < first {
                    self.scattered.insert(key, row);
                    return;
                }
                if let Ok(i) = self.find(&key) {
                    if self.run[i].1.replace(row).is_none() {
                        self.live += 1;
                    }
                } else {
                    self.scattered.insert(key, row);
                }
                return;
            }
            _ => {}
        }
        self.run.push_back((key, Some(row)));
        self.live += 1;
    }

    /// Removes the entry at `key` if it is row `row`'s; returns whether it was. (Another row
    /// can hold a key a row held before: an UPDATE's new version keeps the old one's key.)
    pub fn remove_row(&mut self, key: &QueueKey, row: RowId) -> bool {
        self.remove_if(key, |r| r == row)
    }

    /// Removes a row's entry; returns whether it was there.
    pub fn remove(&mut self, key: &QueueKey) -> bool {
        self.remove_if(key, |_| true)
    }

    /// Removes the live entry at `key` if its row passes `is`; whether it did.
    fn remove_if(&mut self, key: &QueueKey, is: impl Fn(RowId) -> bool) -> bool {
        if let Ok(i) = self.find(key) {
            if self.run[i].1.is_some_and(&is) {
                self.run[i].1 = None;
                self.live -= 1;
                self.tidy();
                return true;
            }
        }
        // (a key is in one part at most, so a run entry found above is not also here)
        if self.scattered.get(key).is_some_and(|&r| is(r)) {
            self.scattered.remove(key);
            return true;
        }
        false
    }

    /// The row at `key`, if its entry is live.
    pub fn get(&self, key: &QueueKey) -> Option<RowId> {
        if let Ok(i) = self.find(key) {
            if let Some(r) = self.run[i].1 {
                return Some(r);
            }
        }
        self.scattered.get(key).copied()
    }

    /// Removes and returns the oldest entry.
    pub fn pop_first(&mut self) -> Option<(QueueKey, RowId)> {
        let run = self.run.front().and_then(|&(k, r)| r.map(|r| (k, r)));
        match (run, self.scattered.first_key_value()) {
            (Some(a), Some((b, _))) if *b < a.0 => self.scattered.pop_first(),
            (Some(a), _) => {
                self.run.pop_front();
                self.live -= 1;
                self.tidy();
                Some(a)
            }
            (None, _) => self.scattered.pop_first(),
        }
    }

    /// The oldest entry, without removing it.
    pub fn first(&self) -> Option<(QueueKey, RowId)> {
        let run = self.run.front().and_then(|&(k, r)| r.map(|r| (k, r)));
        let scattered = self.scattered.first_key_value().map(|(k, r)| (*k, *r));
        match (run, scattered) {
            (Some(a), Some(b)) => Some(if b.0 < a.0 { b } else { a }),
            (a, b) => a.or(b),
        }
    }

    /// Up to `limit` entries after `after` (all entries if `None`), oldest first: the
    /// candidates a selective consume tests next.
    pub fn after(&self, after: Option<QueueKey>, limit: usize) -> Vec<(QueueKey, RowId)> {
        let start = match after {
            None => 0,
            Some(k) => match self.find(&k) {
                Ok(i) => i + 1,
                Err(i) => i,
            },
        };
        let run = self
            .run
            .range(start..)
            .filter_map(|&(k, r)| r.map(|r| (k, r)))
            .take(limit);
        let lo = after.map_or(std::ops::Bound::Unbounded, std::ops::Bound::Excluded);
        let scattered = self
            .scattered
            .range((lo, std::ops::Bound::Unbounded))
            .map(|(k, r)| (*k, *r))
            .take(limit);
        if self.scattered.is_empty() {
            return run.collect();
        }
        let mut all: Vec<(QueueKey, RowId)> = run.chain(scattered).collect();
        all.sort_unstable_by_key(|&(k, _)| k);
        all.truncate(limit);
        all
    }

    /// The keys of every entry, in no particular order.
    pub fn keys(&self) -> impl Iterator<Item = QueueKey> + '_ {
        let run = self
            .run
            .iter()
            .filter(|(_, r)| r.is_some())
            .map(|(k, _)| *k);
        run.chain(self.scattered.keys().copied())
    }

    /// Number of consumable rows.
    pub fn len(&self) -> usize {
        self.live + self.scattered.len()
    }

    /// True if nothing can be consumed.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every entry, oldest first.
    pub fn into_sorted(self) -> Vec<(QueueKey, RowId)> {
        let mut all: Vec<(QueueKey, RowId)> = self
            .run
            .into_iter()
            .filter_map(|(k, r)| r.map(|r| (k, r)))
            .collect();
        if !self.scattered.is_empty() {
            all.extend(self.scattered);
            all.sort_unstable_by_key(|&(k, _)| k);
        }
        all
    }

    /// Where `key` is (or would be) in `run`.
    fn find(&self, key: &QueueKey) -> Result<usize, usize> {
        self.run.binary_search_by(|(k, _)| k.cmp(key))
    }

    /// Restores `run`'s invariants after a removal: no tombstone at either end, and no more
    /// tombstones than live entries (beyond a small slack).
    fn tidy(&mut self) {
        while self.run.front().is_some_and(|e| e.1.is_none()) {
            self.run.pop_front();
        }
        while self.run.back().is_some_and(|e| e.1.is_none()) {
            self.run.pop_back();
        }
        let dead = self.run.len() - self.live;
        if dead > 64 && dead > self.live {
            self.run.retain(|e| e.1.is_some());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// xorshift64*, replayable from its seed.
    fn next(seed: &mut u64) -> u64 {
        *seed ^= *seed >> 12;
        *seed ^= *seed << 25;
        *seed ^= *seed >> 27;
        seed.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    #[test]
    fn behaves_as_an_ordered_map_under_random_operations() {
        for seed in 1..=40u64 {
            let mut rng = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
            let mut q = QueueIndex::default();
            let mut model: BTreeMap<QueueKey, RowId> = BTreeMap::new();
            let mut seq = 0u64;
            for step in 0..4_000 {
                let op = next(&mut rng) % 100;
                if op < 45 {
                    // mostly in order (now, next sequence), sometimes an older QITS
                    seq += 1;
                    let qits = if next(&mut rng).is_multiple_of(5) {
                        (next(&mut rng) % 1_000) as i64
                    } else {
                        1_000 + seq as i64
                    };
                    q.insert((0, qits, seq), seq);
                    model.insert((0, qits, seq), seq);
                } else if op < 75 {
                    assert_eq!(q.pop_first(), model.pop_first(), "seed {seed} step {step}");
                } else if op < 90 {
                    // remove a key that may or may not be there, then maybe put it back
                    let keys: Vec<QueueKey> = model.keys().copied().collect();
                    let key = if keys.is_empty() || next(&mut rng).is_multiple_of(4) {
                        (0, 1_000 + (next(&mut rng) % (seq + 1)) as i64, seq / 2)
                    } else {
                        keys[(next(&mut rng) % keys.len() as u64) as usize]
                    };
                    let had = model.remove(&key);
                    assert_eq!(q.remove(&key), had.is_some(), "seed {seed} step {step}");
                    if let (Some(row), true) = (had, next(&mut rng).is_multiple_of(2)) {
                        q.insert(key, row);
                        model.insert(key, row);
                    }
                } else {
                    let first = model.first_key_value().map(|(k, r)| (*k, *r));
                    assert_eq!(q.first(), first, "seed {seed} step {step}");
                }
                assert_eq!(q.len(), model.len(), "seed {seed} step {step}");
                if step % 500 == 0 {
                    let mut keys: Vec<QueueKey> = q.keys().collect();
                    keys.sort_unstable();
                    assert!(
                        keys.iter().copied().eq(model.keys().copied()),
                        "seed {seed}"
                    );
                }
                assert_eq!(q.is_empty(), model.is_empty());
            }
            let want: Vec<(QueueKey, RowId)> = model.into_iter().collect();
            assert_eq!(q.into_sorted(), want, "seed {seed}");
        }
    }

    #[test]
    fn after_walks_both_parts_in_key_order() {
        let mut q = QueueIndex::default();
        let mut model = BTreeMap::new();
        for s in 1..=300u64 {
            // every seventh row arrives out of order (into the tree)
            let qits = if s % 7 == 0 { -(s as i64) } else { s as i64 };
            q.insert((0, qits, s), s);
            model.insert((0, qits, s), s);
        }
        for s in (1..=300u64).step_by(5) {
            let key = (0, if s % 7 == 0 { -(s as i64) } else { s as i64 }, s);
            assert_eq!(q.remove(&key), model.remove(&key).is_some());
        }
        let mut walked = Vec::new();
        let mut at = None;
        loop {
            let chunk = q.after(at, 16);
            assert!(chunk.len() <= 16);
            let Some(&(last, _)) = chunk.last() else {
                break;
            };
            at = Some(last);
            walked.extend(chunk);
        }
        let want: Vec<(QueueKey, RowId)> = model.into_iter().collect();
        assert_eq!(walked, want);
    }

    #[test]
    fn in_order_traffic_stays_in_the_run() {
        let mut q = QueueIndex::default();
        for s in 1..=10_000u64 {
            q.insert((0, s as i64, s), s);
            if s.is_multiple_of(3) {
                assert_eq!(q.pop_first().map(|(k, _)| k.2), Some(s / 3));
            }
        }
        assert!(q.scattered.is_empty(), "nothing arrived out of order");
        assert_eq!(q.len(), 10_000 - 3_333);
        // a consumed row put back in front goes to the tree and comes out first
        let (k, r) = q.pop_first().unwrap();
        q.insert(k, r);
        assert_eq!(q.scattered.len(), 1);
        assert_eq!(q.pop_first(), Some((k, r)));
    }

    #[test]
    fn a_descending_order_key_reverses_every_value() {
        let values = [i64::MIN, -5, -1, 0, 1, 7, i64::MAX];
        for pair in values.windows(2) {
            assert!(order_key(Some(pair[0]), false) < order_key(Some(pair[1]), false));
            assert!(order_key(Some(pair[0]), true) > order_key(Some(pair[1]), true));
        }
    }
}
