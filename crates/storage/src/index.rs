//! Ordered indexes: for each index of a table (its primary index and every secondary index,
//! unique or not), a B-tree of `(key, RowId)` over every row version that may still be visible
//! to someone. The planner in `exec` reads ranges of it for equality, range and MIN/MAX access.
//!
//! ```text
//!   key = the index columns' values, normalised as for comparisons (trailing blanks dropped,
//!         upper-cased unless CASESPECIFIC); NULL sorts first
//!   entries: BTreeSet<(key, RowId)>     one per row version, visible or not
//! ```
//!
//! Invariants: every row whose creator did not roll back has one entry per index until its
//! deletion committed before every open transaction began (the snapshot's *horizon*); such
//! entries are pruned lazily by the scans that meet them. An index scan checks visibility
//! itself, so callers only ever get rows their snapshot may see. Keys never change, because
//! rows never change (an update is a delete plus an insert).

use crate::catalog::{IndexSpec, TableSchema};
use crate::table::RowId;
use crate::types::{compare_values, normalize_for_key, Value};
use std::cmp::Ordering;
use std::collections::BTreeSet;
use std::ops::Bound;

/// One column of an index key or of a search bound.
#[derive(Debug, Clone)]
pub enum KeyPart {
    /// Below every value (NULL included): pads a bound that takes everything after a prefix.
    Low,
    /// A stored (normalised) value; NULL sorts before every other value.
    Val(Value),
    /// Above every value: pads a bound that ends after a prefix.
    High,
}

impl Ord for KeyPart {
    fn cmp(&self, other: &Self) -> Ordering {
        use KeyPart::*;
        match (self, other) {
            (Low, Low) | (High, High) => Ordering::Equal,
            (Low, _) | (_, High) => Ordering::Less,
            (_, Low) | (High, _) => Ordering::Greater,
            (Val(a), Val(b)) => compare_values(a, b),
        }
    }
}

impl PartialOrd for KeyPart {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for KeyPart {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for KeyPart {}

/// An index key: one part per index column.
pub type IndexKey = Vec<KeyPart>;

/// One index entry.
pub type IndexEntry = (IndexKey, RowId);

/// The ordered index of one [`IndexSpec`].
#[derive(Debug, Default)]
pub struct OrderedIndex {
    columns: Vec<usize>,
    case_specific: Vec<bool>,
    entries: BTreeSet<IndexEntry>,
}

impl OrderedIndex {
    /// An empty index on `spec`'s columns.
    pub fn new(schema: &TableSchema, spec: &IndexSpec) -> Self {
        OrderedIndex {
            columns: spec.columns.clone(),
            case_specific: spec
                .columns
                .iter()
                .map(|&c| schema.columns.get(c).is_some_and(|c| c.case_specific))
                .collect(),
            entries: BTreeSet::new(),
        }
    }

    /// The key of a row with these values.
    pub fn key_of(&self, values: &[Value]) -> IndexKey {
        self.columns
            .iter()
            .zip(&self.case_specific)
            .map(|(&c, &cs)| KeyPart::Val(normalize_for_key(&values[c], cs)))
            .collect()
    }

    pub(crate) fn insert(&mut self, values: &[Value], rid: RowId) {
        let key = self.key_of(values);
        self.entries.insert((key, rid));
    }

    pub(crate) fn remove(&mut self, values: &[Value], rid: RowId) {
        let key = self.key_of(values);
        self.entries.remove(&(key, rid));
    }

    pub(crate) fn remove_entry(&mut self, entry: &IndexEntry) {
        self.entries.remove(entry);
    }

    /// Entries between `lo` and `hi` in key order (or reversed).
    pub(crate) fn range<'a>(
        &'a self,
        lo: Bound<&IndexEntry>,
        hi: Bound<&IndexEntry>,
        reverse: bool,
    ) -> Box<dyn Iterator<Item = &'a IndexEntry> + 'a> {
        if bounds_empty(lo, hi) {
            return Box::new(std::iter::empty());
        }
        let r = self.entries.range::<IndexEntry, _>((lo, hi));
        if reverse {
            Box::new(r.rev())
        } else {
            Box::new(r)
        }
    }

    /// Number of entries (row versions), for tests and HELP.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when the index holds no entry.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
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
        eq: &[Value],
        lower: Option<(Value, bool)>,
        upper: Option<(Value, bool)>,
        width: usize,
    ) -> Self {
        let prefix = || eq.iter().cloned().map(KeyPart::Val).collect::<IndexKey>();
        let pad = |mut k: IndexKey, with: KeyPart| {
            while k.len() < width {
                k.push(with.clone());
            }
            k
        };
        let with = |v: Value| {
            let mut k = prefix();
            k.push(KeyPart::Val(v));
            k
        };
        // an exclusive bound pads the other way and is itself excluded, so it also works
        // when the value fills the key's last column
        let lo = match lower {
            None => Bound::Included((pad(prefix(), KeyPart::Low), 0)),
            Some((v, true)) => Bound::Included((pad(with(v), KeyPart::Low), 0)),
            Some((v, false)) => Bound::Excluded((pad(with(v), KeyPart::High), RowId::MAX)),
        };
        let hi = match upper {
            None => Bound::Included((pad(prefix(), KeyPart::High), RowId::MAX)),
            Some((v, true)) => Bound::Included((pad(with(v), KeyPart::High), RowId::MAX)),
            Some((v, false)) => Bound::Excluded((pad(with(v), KeyPart::Low), 0)),
        };
        KeyRange { lo, hi }
    }
}

/// The first entry after every key that starts with `key[..len]`.
pub fn after_prefix(key: &[KeyPart], len: usize) -> IndexEntry {
    let mut k: IndexKey = key[..len].to_vec();
    k.resize(key.len(), KeyPart::High);
    (k, RowId::MAX)
}

/// The last entry before every key that starts with `key[..len]`.
pub fn before_prefix(key: &[KeyPart], len: usize) -> IndexEntry {
    let mut k: IndexKey = key[..len].to_vec();
    k.resize(key.len(), KeyPart::Low);
    (k, 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{Column, TableKind};
    use crate::types::SqlType;
    use crate::{Storage, Transaction};
    use std::sync::Arc;

    #[test]
    fn rollbacks_and_old_deletions_leave_the_index() {
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
        let rows: Vec<RowId> = (0..4)
            .map(|k| t.insert(&table, vec![Value::Int(k), Value::Null]).unwrap())
            .collect();
        t.commit().unwrap();
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
        v.iter().map(|&i| KeyPart::Val(Value::Int(i))).collect()
    }

    #[test]
    fn ranges_pad_with_sentinels() {
        let mut ix = OrderedIndex {
            columns: vec![0, 1],
            case_specific: vec![false, false],
            entries: BTreeSet::new(),
        };
        for (rid, (a, b)) in [(1, 1), (1, 2), (1, 3), (2, 1)].into_iter().enumerate() {
            ix.entries.insert((key(&[a, b]), rid as RowId));
        }
        ix.entries.insert((
            vec![KeyPart::Val(Value::Int(1)), KeyPart::Val(Value::Null)],
            9,
        ));
        let rids = |r: &KeyRange, rev| {
            ix.range(r.lo.as_ref(), r.hi.as_ref(), rev)
                .map(|e| e.1)
                .collect::<Vec<_>>()
        };
        let all_a1 = KeyRange::new(&[Value::Int(1)], None, None, 2);
        assert_eq!(rids(&all_a1, false), vec![9, 0, 1, 2]);
        let gt1 = KeyRange::new(&[Value::Int(1)], Some((Value::Int(1), false)), None, 2);
        assert_eq!(rids(&gt1, true), vec![2, 1]);
        let lt3 = KeyRange::new(
            &[Value::Int(1)],
            Some((Value::Null, false)),
            Some((Value::Int(3), false)),
            2,
        );
        assert_eq!(rids(&lt3, false), vec![0, 1]);
        let empty = KeyRange::new(
            &[],
            Some((Value::Int(3), true)),
            Some((Value::Int(1), true)),
            2,
        );
        assert!(rids(&empty, false).is_empty());
        let after = after_prefix(&key(&[1, 2]), 1);
        assert_eq!(
            ix.range(Bound::Excluded(&after), Bound::Unbounded, false)
                .map(|e| e.1)
                .collect::<Vec<_>>(),
            vec![3]
        );
    }
}
