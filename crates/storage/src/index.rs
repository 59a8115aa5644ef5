//! Ordered indexes: for each index of a table (its primary index and every secondary index,
//! unique or not), a B-tree of `(key, RowId)` over every row version that may still be visible
//! to someone. The planner in `exec` reads ranges of it for equality, range and MIN/MAX access.
//!
//! ```text
//!   key = the index columns' values, normalised as for comparisons (trailing blanks dropped,
//!         upper-cased unless CASESPECIFIC), encoded as bytes that compare in key order
//!         (crate::key); NULL sorts first
//!   entries: BTreeSet<(key, RowId)>     one per row version, visible or not
//! ```
//!
//! Invariants: every row whose creator did not roll back has one entry per index until its
//! deletion committed before every open transaction took its first snapshot (the
//! snapshot's *horizon*, never above an open transaction's id); such
//! entries are pruned lazily by the scans that meet them. An index scan checks visibility
//! itself, so callers only ever get rows their snapshot may see. Keys never change, because
//! rows never change (an update is a delete plus an insert).
//!
//! **Own deletions are set aside.** A row an open transaction T deleted is invisible to T
//! but still visible to everyone else, so its entry must stay. When T's own scan meets such
//! an entry it moves it into T's *hidden* set (`OrderedIndex::hide`): T's later scans skip
//! it without stepping over it (a transaction that claims the head of an index over and over,
//! as a hand-made queue's `UPDATE … WHERE key = (SELECT MIN …)` does, would otherwise step
//! over every row it claimed before: quadratic), while every other reader's scan merges the
//! hidden sets back in (`OrderedIndex::range`). Each entry is in the main set or in exactly
//! one hidden set; T moves its hidden entries back before it ends (commit) and as it undoes
//! their deletions (rollback, savepoint), see `Transaction`.

use crate::catalog::{IndexSpec, TableSchema};
use crate::key::{encoded_len, KeyWriter};
use crate::mvcc::TxnId;
use crate::table::RowId;
use crate::types::Value;
use std::collections::BTreeSet;
use std::ops::Bound;

pub use crate::key::{IndexKey, KeyPart};

/// One index entry.
pub type IndexEntry = (IndexKey, RowId);

/// The ordered index of one [`IndexSpec`].
#[derive(Debug, Default)]
pub struct OrderedIndex {
    columns: Vec<usize>,
    case_specific: Vec<bool>,
    entries: BTreeSet<IndexEntry>,
    /// Entries of rows an open transaction deleted, set aside by that transaction's own scans
    /// (see the module docs), per transaction.
    hidden: Vec<(TxnId, BTreeSet<IndexEntry>)>,
}

impl OrderedIndex {
    /// The table columns the index's key is made of, in key order.
    pub fn columns(&self) -> &[usize] {
        &self.columns
    }

    /// An empty index on `spec`'s columns.
    pub fn new(schema: &TableSchema, spec: &IndexSpec) -> Self {
        OrderedIndex {
            columns: spec.columns.clone(),
            case_specific: case_flags(schema, &spec.columns),
            entries: BTreeSet::new(),
            hidden: Vec::new(),
        }
    }

    /// The key of a row with these values.
    pub fn key_of(&self, values: &[Value]) -> IndexKey {
        let len = self.columns.iter().map(|&c| encoded_len(&values[c])).sum();
        let mut w = KeyWriter::with_capacity(len);
        for (&c, &cs) in self.columns.iter().zip(&self.case_specific) {
            w.normalized(&values[c], cs);
        }
        w.finish()
    }

    pub(crate) fn insert(&mut self, values: &[Value], rid: RowId) {
        let key = self.key_of(values);
        self.entries.insert((key, rid));
    }

    /// Takes a row's entry out (wherever it is: the main set or a hidden one).
    pub(crate) fn remove(&mut self, values: &[Value], rid: RowId) {
        let entry = (self.key_of(values), rid);
        if !self.entries.remove(&entry) {
            for (_, set) in &mut self.hidden {
                if set.remove(&entry) {
                    break;
                }
            }
            self.hidden.retain(|(_, set)| !set.is_empty());
        }
    }

    pub(crate) fn remove_entry(&mut self, entry: &IndexEntry) {
        self.entries.remove(entry);
    }

    /// Sets aside `entries`, rows transaction `me` deleted that its own scan met: its later
    /// scans skip them, other readers' scans still see them. Returns how many moved.
    pub(crate) fn hide(&mut self, me: TxnId, entries: Vec<IndexEntry>) -> usize {
        let mut moved = Vec::with_capacity(entries.len());
        for e in entries {
            if let Some(e) = self.entries.take(&e) {
                moved.push(e);
            }
        }
        let n = moved.len();
        if n > 0 {
            let at = match self.hidden.iter().position(|(t, _)| *t == me) {
                Some(at) => at,
                None => {
                    self.hidden.push((me, BTreeSet::new()));
                    self.hidden.len() - 1
                }
            };
            self.hidden[at].1.extend(moved);
        }
        n
    }

    /// Puts back the entries transaction `me` set aside whose row `back` accepts (every one
    /// at its commit; those whose deletion was undone at a rollback). Returns how many moved.
    pub(crate) fn unhide(&mut self, me: TxnId, mut back: impl FnMut(RowId) -> bool) -> usize {
        let Some(at) = self.hidden.iter().position(|(t, _)| *t == me) else {
            return 0;
        };
        let set = &mut self.hidden[at].1;
        let moved: Vec<IndexEntry> = set.extract_if(.., |e| back(e.1)).collect();
        if set.is_empty() {
            self.hidden.swap_remove(at);
        }
        let n = moved.len();
        self.entries.extend(moved);
        n
    }

    /// Entries between `lo` and `hi` in key order (or reversed), as transaction `me` scans
    /// them: the main set merged with every other transaction's hidden set.
    ///
    /// One B-tree descent per set, to the end the walk starts from; the far bound is tested
    /// on each entry as the walk meets it (a walk usually stops after a few entries, and
    /// `BTreeSet::range` would descend to both ends first).
    pub(crate) fn range<'a>(
        &'a self,
        lo: Bound<&'a IndexEntry>,
        hi: Bound<&'a IndexEntry>,
        reverse: bool,
        me: TxnId,
    ) -> Box<dyn Iterator<Item = &'a IndexEntry> + 'a> {
        if bounds_empty(lo, hi) {
            return Box::new(std::iter::empty());
        }
        let one = |set: &'a BTreeSet<IndexEntry>| -> Box<dyn Iterator<Item = &'a IndexEntry> + 'a> {
            if reverse {
                let r = set.range::<IndexEntry, _>((Bound::Unbounded, hi)).rev();
                Box::new(r.take_while(move |e| match lo {
                    Bound::Included(b) => *e >= b,
                    Bound::Excluded(b) => *e > b,
                    Bound::Unbounded => true,
                }))
            } else {
                let r = set.range::<IndexEntry, _>((lo, Bound::Unbounded));
                Box::new(r.take_while(move |e| match hi {
                    Bound::Included(b) => *e <= b,
                    Bound::Excluded(b) => *e < b,
                    Bound::Unbounded => true,
                }))
            }
        };
        let others: Vec<_> = self
            .hidden
            .iter()
            .filter(|(t, _)| *t != me)
            .map(|(_, set)| one(set).peekable())
            .collect();
        if others.is_empty() {
            return one(&self.entries);
        }
        let mut parts = vec![one(&self.entries).peekable()];
        parts.extend(others);
        Box::new(Merge { parts, reverse })
    }

    /// How many entries are set aside now (every transaction's).
    pub(crate) fn hidden_len(&self) -> usize {
        self.hidden.iter().map(|(_, s)| s.len()).sum()
    }

    /// Number of entries (row versions, set-aside ones included), for estimates and tests.
    pub fn len(&self) -> usize {
        self.entries.len() + self.hidden_len()
    }

    /// True when the index holds no entry.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Sorted sets' ranges merged into one ordered walk (ascending, or descending for
/// `reverse`); the sets never share an entry.
struct Merge<'a> {
    parts: Vec<std::iter::Peekable<Box<dyn Iterator<Item = &'a IndexEntry> + 'a>>>,
    reverse: bool,
}

impl<'a> Iterator for Merge<'a> {
    type Item = &'a IndexEntry;

    fn next(&mut self) -> Option<&'a IndexEntry> {
        let mut best: Option<(usize, &'a IndexEntry)> = None;
        for (i, p) in self.parts.iter_mut().enumerate() {
            let Some(&e) = p.peek() else { continue };
            let better = best.is_none_or(|(_, b)| if self.reverse { e > b } else { e < b });
            if better {
                best = Some((i, e));
            }
        }
        let (i, _) = best?;
        self.parts[i].next()
    }
}

/// `BTreeSet::range` panics on a start above its end; such a range is simply empty.
fn bounds_empty(lo: Bound<&IndexEntry>, hi: Bound<&IndexEntry>) -> bool {
    match (lo, hi) {
        (Bound::Included(a), Bound::Included(b)) => a > b,
        (Bound::Included(a) | Bound::Excluded(a), Bound::Excluded(b))
        | (Bound::Excluded(a), Bound::Included(b)) => a >= b,
        _ => false,
    }
}

/// Whether each of `columns` compares case-specifically (its key bytes keep the case).
pub(crate) fn case_flags(schema: &TableSchema, columns: &[usize]) -> Vec<bool> {
    columns
        .iter()
        .map(|&c| schema.columns.get(c).is_some_and(|c| c.case_specific))
        .collect()
}

/// Whether a table keeps an ordered index for `spec`: every index except a queue table's
/// index on its QITS alone (the queue index already orders those rows).
pub fn indexable(schema: &TableSchema, spec: &IndexSpec) -> bool {
    !(schema.queue && spec.columns == [0])
}

/// A search range over one index: bounds on full-width keys padded with [`KeyPart::Low`] /
/// [`KeyPart::High`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyRange {
    /// Where the range starts.
    pub lo: Bound<IndexEntry>,
    /// Where it ends.
    pub hi: Bound<IndexEntry>,
}

impl KeyRange {
    /// The entries whose first columns equal `eq`, and whose next column (if `lower` or
    /// `upper` is given) lies within them: `(value, inclusive)`. `width` is the number of
    /// index columns.
    pub fn new(
        eq: &[&Value],
        lower: Option<&(Value, bool)>,
        upper: Option<&(Value, bool)>,
        width: usize,
    ) -> Self {
        // each key is written at its full width at once
        let key = |last: Option<&Value>, pad: KeyPart| {
            let len: usize = eq.iter().copied().chain(last).map(encoded_len).sum();
            let mut w = KeyWriter::with_capacity(len + width);
            for v in eq.iter().copied().chain(last) {
                w.value(v);
            }
            let parts = eq.len() + usize::from(last.is_some());
            for _ in parts..width {
                w.part(&pad);
            }
            w.finish()
        };
        // an exclusive bound pads the other way and is itself excluded, so it also works
        // when the value fills the key's last column
        let lo = match lower {
            None => Bound::Included((key(None, KeyPart::Low), 0)),
            Some((v, true)) => Bound::Included((key(Some(v), KeyPart::Low), 0)),
            Some((v, false)) => Bound::Excluded((key(Some(v), KeyPart::High), RowId::MAX)),
        };
        let hi = match upper {
            None => Bound::Included((key(None, KeyPart::High), RowId::MAX)),
            Some((v, true)) => Bound::Included((key(Some(v), KeyPart::High), RowId::MAX)),
            Some((v, false)) => Bound::Excluded((key(Some(v), KeyPart::Low), 0)),
        };
        KeyRange { lo, hi }
    }
}

/// The first entry after every key that starts with `key`'s first `len` parts.
pub fn after_prefix(key: &IndexKey, len: usize) -> IndexEntry {
    (
        key.prefix_padded(len, &KeyPart::High, key.width()),
        RowId::MAX,
    )
}

/// The last entry before every key that starts with `key`'s first `len` parts.
pub fn before_prefix(key: &IndexKey, len: usize) -> IndexEntry {
    (key.prefix_padded(len, &KeyPart::Low, key.width()), 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{Column, TableKind};
    use crate::mvcc::Snapshot;
    use crate::table::IndexFind;
    use crate::types::SqlType;
    use crate::{Storage, Transaction};
    use std::sync::atomic::Ordering;
    use std::sync::Arc;

    /// A table `(k INTEGER, v INTEGER)` with a unique primary index on `k` and the committed
    /// rows `k = 0..n`.
    fn table_of(n: i64) -> (Arc<Storage>, Arc<crate::table::Table>, Vec<RowId>) {
        let storage = Arc::new(Storage::default());
        let col = |name: &str| Column::plain(name, SqlType::Integer, true);
        let pi = IndexSpec {
            name: None,
            columns: vec![0],
            unique: true,
        };
        let schema = TableSchema::new(
            "t".into(),
            vec![col("k"), col("v")],
            TableKind::Multiset,
            false,
            Some(pi),
            vec![],
            String::new(),
        );
        let mut t = Transaction::begin(&storage);
        let table = t.create_table(schema).unwrap();
        let rows: Vec<RowId> = (0..n)
            .map(|k| t.insert(&table, vec![Value::Int(k), Value::Null]).unwrap())
            .collect();
        t.commit().unwrap();
        (storage, table, rows)
    }

    #[test]
    fn rollbacks_and_old_deletions_leave_the_index() {
        let (storage, table, rows) = table_of(4);
        // a rolled-back insert leaves at once
        let mut t = Transaction::begin(&storage);
        t.insert(&table, vec![Value::Int(9), Value::Null]).unwrap();
        assert_eq!(table.index_len(0), 5);
        t.rollback();
        assert_eq!(table.index_len(0), 4);
        // a committed delete stays while a transaction that began before it may read it
        let reader = Transaction::begin(&storage);
        let old = reader.snapshot();
        let mut t = Transaction::begin(&storage);
        t.delete(&table, rows[1]).unwrap();
        t.commit().unwrap();
        let all = (Bound::Unbounded, Bound::Unbounded);
        let seen = table.index_entries(0, all, false, usize::MAX, &old);
        assert_eq!(
            seen.len(),
            4,
            "a snapshot from before the delete sees the row"
        );
        let seen = table.index_entries(0, all, false, usize::MAX, &reader.snapshot());
        assert_eq!(seen.len(), 3);
        assert_eq!(table.index_len(0), 4, "kept while the reader is open");
        drop(reader);
        let t = Transaction::begin(&storage);
        let seen = table.index_entries(0, all, false, usize::MAX, &t.snapshot());
        assert_eq!(seen.len(), 3);
        assert_eq!(table.index_len(0), 3, "the scan pruned the dead entry");
    }

    fn key(v: &[i64]) -> IndexKey {
        let parts: Vec<KeyPart> = v.iter().map(|&i| KeyPart::Val(Value::Int(i))).collect();
        IndexKey::from_parts(&parts)
    }

    #[test]
    fn ranges_pad_with_sentinels() {
        let mut ix = OrderedIndex {
            columns: vec![0, 1],
            case_specific: vec![false, false],
            entries: BTreeSet::new(),
            hidden: Vec::new(),
        };
        for (rid, (a, b)) in [(1, 1), (1, 2), (1, 3), (2, 1)].into_iter().enumerate() {
            ix.entries.insert((key(&[a, b]), rid as RowId));
        }
        ix.entries.insert((
            IndexKey::from_parts(&[KeyPart::Val(Value::Int(1)), KeyPart::Val(Value::Null)]),
            9,
        ));
        let rids = |r: &KeyRange, rev| {
            ix.range(r.lo.as_ref(), r.hi.as_ref(), rev, 0)
                .map(|e| e.1)
                .collect::<Vec<_>>()
        };
        let all_a1 = KeyRange::new(&[&Value::Int(1)], None, None, 2);
        assert_eq!(rids(&all_a1, false), vec![9, 0, 1, 2]);
        let gt1 = KeyRange::new(&[&Value::Int(1)], Some(&(Value::Int(1), false)), None, 2);
        assert_eq!(rids(&gt1, true), vec![2, 1]);
        let lt3 = KeyRange::new(
            &[&Value::Int(1)],
            Some(&(Value::Null, false)),
            Some(&(Value::Int(3), false)),
            2,
        );
        assert_eq!(rids(&lt3, false), vec![0, 1]);
        let empty = KeyRange::new(
            &[],
            Some(&(Value::Int(3), true)),
            Some(&(Value::Int(1), true)),
            2,
        );
        assert!(rids(&empty, false).is_empty());
        let after = after_prefix(&key(&[1, 2]), 1);
        assert_eq!(
            ix.range(Bound::Excluded(&after), Bound::Unbounded, false, 0)
                .map(|e| e.1)
                .collect::<Vec<_>>(),
            vec![3]
        );
    }

    #[test]
    fn set_aside_entries_merge_back_in_order_for_every_other_reader() {
        let mut ix = OrderedIndex {
            columns: vec![0],
            case_specific: vec![false],
            entries: (0..10).map(|k| (key(&[k]), k as RowId)).collect(),
            hidden: Vec::new(),
        };
        let all = |ix: &OrderedIndex, me, rev| {
            ix.range(Bound::Unbounded, Bound::Unbounded, rev, me)
                .map(|e| e.1)
                .collect::<Vec<_>>()
        };
        let evens = |t: TxnId| (0..10).filter(move |k| k % 2 == t as i64 % 2);
        assert_eq!(
            ix.hide(7, evens(7).map(|k| (key(&[k]), k as RowId)).collect()),
            5
        );
        assert_eq!(
            ix.hide(8, evens(8).map(|k| (key(&[k]), k as RowId)).collect()),
            5
        );
        assert_eq!(ix.len(), 10);
        assert_eq!(all(&ix, 1, false), (0..10).collect::<Vec<_>>());
        assert_eq!(all(&ix, 1, true), (0..10).rev().collect::<Vec<_>>());
        assert_eq!(all(&ix, 7, false), vec![0, 2, 4, 6, 8]);
        assert_eq!(all(&ix, 8, true), vec![9, 7, 5, 3, 1]);
        // an entry already set aside is not set aside twice
        assert_eq!(ix.hide(9, vec![(key(&[1]), 1)]), 0);
        // back: those the predicate picks, then the rest
        assert_eq!(ix.unhide(7, |rid| rid < 5), 2);
        assert_eq!(all(&ix, 7, false), vec![0, 1, 2, 3, 4, 6, 8]);
        assert_eq!(ix.unhide(7, |_| true), 3);
        assert_eq!(ix.unhide(7, |_| true), 0);
        // removing a row finds its entry where it is
        ix.remove(&[Value::Int(4)], 4);
        assert_eq!(all(&ix, 1, false), vec![0, 1, 2, 3, 5, 6, 7, 8, 9]);
        assert_eq!(ix.unhide(8, |_| true), 4);
        assert!(ix.hidden.is_empty());
        assert_eq!(all(&ix, 8, false), vec![0, 1, 2, 3, 5, 6, 7, 8, 9]);
    }

    #[test]
    fn a_transaction_steps_over_its_own_deletions_once() {
        let (storage, table, rows) = table_of(10);
        let all = (Bound::Unbounded, Bound::Unbounded);
        let keys = |s: &Snapshot| {
            table
                .index_entries(0, all, false, usize::MAX, s)
                .iter()
                .map(|e| e.1)
                .collect::<Vec<_>>()
        };
        // the first entry T can see, looking at one entry per call
        let first = |s: &Snapshot| table.index_find(0, all, false, (1, s), |_| true);
        let reader = Transaction::begin(&storage);
        let mut t = Transaction::begin(&storage);
        for &r in &rows[..4] {
            t.delete(&table, r).unwrap();
        }
        assert!(matches!(first(&t.snapshot()), IndexFind::Stopped(_)));
        assert_eq!(keys(&t.snapshot()), rows[4..].to_vec());
        // the scan set them aside: the next one finds row 4 at its first step
        assert!(matches!(first(&t.snapshot()), IndexFind::Found(e) if e.1 == rows[4]));
        assert_eq!(table.hidden.load(Ordering::Acquire), 4);
        // every other reader still sees them, in order
        let old = reader.snapshot();
        assert_eq!(keys(&old), rows);
        // a savepoint's rollback puts back what it undid
        let sp = t.savepoint();
        t.delete(&table, rows[4]).unwrap();
        assert_eq!(keys(&t.snapshot()), rows[5..].to_vec());
        t.rollback_to(sp);
        assert_eq!(keys(&t.snapshot()), rows[4..].to_vec());
        assert_eq!(table.hidden.load(Ordering::Acquire), 4);
        t.commit().unwrap();
        assert_eq!(table.hidden.load(Ordering::Acquire), 0);
        assert_eq!(keys(&old), rows, "a snapshot from before the commit");
        drop(reader);
        let after = Transaction::begin(&storage);
        assert_eq!(keys(&after.snapshot()), rows[4..].to_vec());
        drop(after);
        // a rollback puts every one back
        let mut t = Transaction::begin(&storage);
        for &r in &rows[4..8] {
            t.delete(&table, r).unwrap();
        }
        assert_eq!(keys(&t.snapshot()), rows[8..].to_vec());
        assert_eq!(table.hidden.load(Ordering::Acquire), 4);
        t.rollback();
        assert_eq!(table.hidden.load(Ordering::Acquire), 0);
        let after = Transaction::begin(&storage);
        assert_eq!(keys(&after.snapshot()), rows[4..].to_vec());
        drop(after);
        // a row it inserted, deleted and set aside leaves with the insert's rollback
        let before = table.index_len(0);
        let mut t = Transaction::begin(&storage);
        let r = t
            .insert(&table, vec![Value::Int(100), Value::Null])
            .unwrap();
        t.delete(&table, r).unwrap();
        assert_eq!(keys(&t.snapshot()), rows[4..].to_vec());
        assert_eq!(table.hidden.load(Ordering::Acquire), 1);
        t.rollback();
        assert_eq!(table.hidden.load(Ordering::Acquire), 0);
        assert_eq!(table.index_len(0), before);
    }
}
