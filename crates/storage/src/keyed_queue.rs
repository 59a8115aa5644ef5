//! Keyed orderings of a queue's consumable rows, for selective consume (docs/queues.md,
//! Selective consume).
//!
//! A queue table keeps, beside its queue index ([`crate::queue`]), one *keyed queue* per
//! ordered index of the table: the same rows, ordered by (that index's key, the queue key). A
//! consume whose condition fixes every column of the index by equality reads the entries of
//! that one key, oldest first, and finds its row in O(log n) however many rows of other keys
//! wait in front of it.
//!
//! ```text
//!   queue index:  (order, QITS, seq) → row            every consumable row
//!   keyed queue:  (index key, (order, QITS, seq), row) every consumable row, per index
//! ```
//!
//! A keyed queue is built the first time a consume probes its index
//! ([`TableData::keyed_queue`]: one pass over the queue index, under the table's mutex), and
//! kept from then on: a queue that is never consumed selectively through an index pays
//! nothing for it, and one that is pays an insertion per enqueue and a removal per consume.
//!
//! Invariant: each *built* keyed queue of a table holds exactly the rows of the table's queue
//! index (committed, claimed by no open transaction), each under its index key. Only
//! [`TableData::enqueue`], [`TableData::dequeue`] and [`TableData::pop_queue`] change the
//! queue index, and they change the built keyed queues with it.

use crate::catalog::TableSchema;
use crate::index::{case_flags, indexable};
use crate::key::{encoded_len, IndexKey, KeyWriter};
use crate::queue::QueueKey;
use crate::table::{RowId, TableData};
use crate::types::Value;
use std::collections::BTreeSet;
use std::ops::Bound;

/// The consumable rows of a queue in the order of one of its indexes (see the module doc).
#[derive(Debug)]
pub(crate) struct KeyedQueue {
    /// Position of the index in [`TableSchema::indexes`].
    pub(crate) ix: usize,
    columns: Vec<usize>,
    case_specific: Vec<bool>,
    /// Whether `entries` is built (see the module doc); empty until then.
    built: bool,
    entries: BTreeSet<(IndexKey, QueueKey, RowId)>,
}

impl KeyedQueue {
    /// One keyed queue per ordered index of a queue table; none for another table.
    pub(crate) fn for_schema(schema: &TableSchema) -> Vec<KeyedQueue> {
        if !schema.queue {
            return Vec::new();
        }
        schema
            .indexes()
            .enumerate()
            .filter(|(_, spec)| indexable(schema, spec))
            .map(|(ix, spec)| KeyedQueue {
                ix,
                columns: spec.columns.clone(),
                case_specific: case_flags(schema, &spec.columns),
                built: false,
                entries: BTreeSet::new(),
            })
            .collect()
    }

    /// The index key of a row whose column `c` is `value(c)`, as its ordered index writes it.
    fn key_of(&self, value: &impl Fn(usize) -> Value) -> IndexKey {
        let values: Vec<Value> = self.columns.iter().map(|&c| value(c)).collect();
        let mut w = KeyWriter::with_capacity(values.iter().map(encoded_len).sum());
        for (v, &cs) in values.iter().zip(&self.case_specific) {
            w.normalized(v, cs);
        }
        w.finish()
    }

    /// Up to `limit` rows whose index key is `key`, after queue key `after` (from the first
    /// if `None`), oldest first.
    pub(crate) fn after(
        &self,
        key: &IndexKey,
        after: Option<QueueKey>,
        limit: usize,
    ) -> Vec<(QueueKey, RowId)> {
        let lo = match after {
            Some(k) => Bound::Excluded((key.clone(), k, RowId::MAX)),
            None => Bound::Included((key.clone(), (i64::MIN, i64::MIN, 0), 0)),
        };
        self.entries
            .range((lo, Bound::Unbounded))
            .take_while(|(k, _, _)| k == key)
            .take(limit)
            .map(|&(_, q, r)| (q, r))
            .collect()
    }

    /// Number of entries (the queue's depth, by the invariant).
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }
}

impl TableData {
    /// Makes row `rid` (stored already) consumable under queue key `key`.
    pub(crate) fn enqueue(&mut self, key: QueueKey, rid: RowId) {
        self.queue.insert(key, rid);
        for i in 0..self.keyed.len() {
            if self.keyed[i].built {
                let ix = self.keyed[i].key_of(&|c| self.row_value(rid, c));
                self.keyed[i].entries.insert((ix, key, rid));
            }
        }
    }

    /// Takes row `rid` out of the consumable rows; whether it was one of them (a newer
    /// version of it under the same key stays).
    pub(crate) fn dequeue(&mut self, key: &QueueKey, rid: RowId) -> bool {
        let had = self.queue.remove_row(key, rid);
        if had {
            self.unkey(key, rid);
        }
        had
    }

    /// Removes and returns the first consumable row.
    pub(crate) fn pop_queue(&mut self) -> Option<(QueueKey, RowId)> {
        let (key, rid) = self.queue.pop_first()?;
        self.unkey(&key, rid);
        Some((key, rid))
    }

    /// The keyed queue of index `ix`, if the table keeps one; built now if it was not.
    pub(crate) fn keyed_queue(&mut self, ix: usize) -> Option<&KeyedQueue> {
        let i = self.keyed.iter().position(|k| k.ix == ix)?;
        if !self.keyed[i].built {
            let mut entries = BTreeSet::new();
            for (key, rid) in self.queue.after(None, usize::MAX) {
                let ix = self.keyed[i].key_of(&|c| self.row_value(rid, c));
                entries.insert((ix, key, rid));
            }
            let k = &mut self.keyed[i];
            k.entries = entries;
            k.built = true;
        }
        Some(&self.keyed[i])
    }

    fn unkey(&mut self, key: &QueueKey, rid: RowId) {
        for i in 0..self.keyed.len() {
            if self.keyed[i].built {
                let ix = self.keyed[i].key_of(&|c| self.row_value(rid, c));
                self.keyed[i].entries.remove(&(ix, *key, rid));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::catalog::{Column, IndexSpec, TableKind, TableSchema};
    use crate::key::KeyWriter;
    use crate::queue::QueueKey;
    use crate::table::{RowId, Table};
    use crate::transaction::Selection;
    use crate::types::{SqlType, Value};
    use crate::{Storage, StorageError, Transaction};
    use arrow::array::{Array, Int32Array};
    use std::collections::BTreeSet;
    use std::sync::Arc;

    /// A queue `(qits, k INTEGER, n INTEGER)` with an index on `k`.
    fn queue(storage: &Arc<Storage>) -> Arc<Table> {
        let columns = vec![
            Column::plain("qits", SqlType::Timestamp(6), false),
            Column::plain("k", SqlType::Integer, true),
            Column::plain("n", SqlType::Integer, true),
        ];
        let ix = IndexSpec {
            name: None,
            columns: vec![1],
            unique: false,
        };
        let schema = TableSchema::new(
            "q".into(),
            columns,
            TableKind::Multiset,
            true,
            None,
            vec![ix],
            String::new(),
        );
        let mut t = Transaction::begin(storage);
        let table = t.create_table(schema).unwrap();
        t.commit().unwrap();
        table
    }

    /// Every built keyed queue holds exactly the queue index's rows, each under its row's key;
    /// whether the one keyed queue is built.
    fn check_invariant(table: &Table, ctx: &str) -> bool {
        let d = table.lock();
        let main: BTreeSet<(QueueKey, RowId)> =
            d.queue.after(None, usize::MAX).into_iter().collect();
        assert_eq!(d.keyed.len(), 1, "one index, one keyed queue");
        for k in d.keyed.iter().filter(|k| k.built) {
            assert_eq!(k.len(), main.len(), "{ctx}");
            for &(key, rid) in &main {
                let ix = k.key_of(&|c| d.row_value(rid, c));
                assert!(k.entries.contains(&(ix, key, rid)), "{ctx}: row {rid}");
            }
        }
        d.keyed[0].built
    }

    /// Takes up to `n` rows whose `k` is `v`, through the index or by testing every row.
    fn take_k(
        t: &mut Transaction,
        table: &Arc<Table>,
        v: i32,
        n: usize,
        probe: bool,
    ) -> Vec<Value> {
        let mut w = KeyWriter::with_capacity(8);
        w.value(&Value::Int(v.into()));
        let keep = [false, true, false];
        let mut test = |b: &arrow::record_batch::RecordBatch| -> Result<Vec<bool>, StorageError> {
            let k = b.column(1).as_any().downcast_ref::<Int32Array>().unwrap();
            Ok((0..k.len())
                .map(|i| k.is_valid(i) && k.value(i) == v)
                .collect())
        };
        let sel = Selection {
            keep: &keep,
            probe: probe.then(|| (0, w.finish())),
            test: &mut test,
        };
        match t
            .take_matching(table, (true, i64::MAX), (n, &[2]), sel)
            .unwrap()
        {
            None => Vec::new(),
            Some((rows, _)) => rows.iter().map(|&r| table.lock().row_value(r, 2)).collect(),
        }
    }

    /// xorshift64*, replayable from its seed.
    fn next(seed: &mut u64) -> u64 {
        *seed ^= *seed >> 12;
        *seed ^= *seed << 25;
        *seed ^= *seed >> 27;
        seed.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    #[test]
    fn keyed_queues_follow_the_queue_index_and_both_walks_agree() {
        for seed in 1..=20u64 {
            let mut rng = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
            let storage = Arc::new(Storage::default());
            let table = queue(&storage);
            let mut txns: Vec<Transaction> = (0..3).map(|_| Transaction::begin(&storage)).collect();
            let mut n = 0i64;
            let mut took = 0;
            for step in 0..400 {
                let ctx = format!("seed {seed} step {step}");
                let s = (next(&mut rng) % 3) as usize;
                match next(&mut rng) % 10 {
                    0..=3 => {
                        n += 1;
                        let qits = (next(&mut rng) % 50) as i64;
                        let k = Value::Int((next(&mut rng) % 3) as i64);
                        txns[s]
                            .insert(&table, vec![Value::Timestamp(qits), k, Value::Int(n)])
                            .unwrap();
                    }
                    4 => {
                        let _ = txns[s].consume(&table, true, None).unwrap();
                    }
                    5 | 6 => {
                        // the same take through the index and by testing every row, in two
                        // savepoints of one transaction: the same rows
                        let v = (next(&mut rng) % 3) as i32;
                        let want = 1 + (next(&mut rng) % 3) as usize;
                        let sp = txns[s].savepoint();
                        let tested = take_k(&mut txns[s], &table, v, want, false);
                        txns[s].rollback_to(sp);
                        check_invariant(&table, &ctx);
                        let probed = take_k(&mut txns[s], &table, v, want, true);
                        assert_eq!(probed, tested, "{ctx}: k = {v}, TOP {want}");
                        took += probed.len();
                    }
                    7 | 8 => {
                        let t = std::mem::replace(&mut txns[s], Transaction::begin(&storage));
                        t.commit().unwrap();
                    }
                    _ => {
                        let t = std::mem::replace(&mut txns[s], Transaction::begin(&storage));
                        t.rollback();
                    }
                }
                check_invariant(&table, &ctx);
            }
            assert!(took > 20, "seed {seed}: the takes found rows ({took})");
            assert!(
                check_invariant(&table, "end"),
                "seed {seed}: a probe built the keyed queue"
            );
        }
    }

    /// A row updated (and committed) by another transaction while a selective take tests it:
    /// the take skips it, and the new version, which keeps the row's queue key, stays
    /// consumable in both walks.
    #[test]
    fn an_update_committed_while_a_take_tests_the_row_leaves_the_new_version_queued() {
        for probe in [false, true] {
            let storage = Arc::new(Storage::default());
            let table = queue(&storage);
            let mut t0 = Transaction::begin(&storage);
            t0.insert(
                &table,
                vec![Value::Timestamp(1), Value::Int(1), Value::Int(1)],
            )
            .unwrap();
            t0.commit().unwrap();
            let mut w = KeyWriter::with_capacity(8);
            w.value(&Value::Int(1));
            let keep = [false, true, true];
            let mut updated = false;
            let mut test =
                |b: &arrow::record_batch::RecordBatch| -> Result<Vec<bool>, StorageError> {
                    if !updated {
                        updated = true;
                        let rid = table.lock().queue.after(None, 1)[0].1;
                        let mut t2 = Transaction::begin(&storage);
                        t2.update(&table, rid, [(2, Value::Int(99))]).unwrap();
                        t2.commit().unwrap();
                    }
                    Ok(vec![true; b.num_rows()])
                };
            let sel = Selection {
                keep: &keep,
                probe: probe.then(|| (0, w.finish())),
                test: &mut test,
            };
            let mut t1 = Transaction::begin(&storage);
            let took = t1
                .take_matching(&table, (true, i64::MAX), (1, &[2]), sel)
                .unwrap();
            assert!(took.is_none(), "probe {probe}: the old version was taken");
            assert!(updated, "probe {probe}: the test ran");
            t1.commit().unwrap();
            let built = check_invariant(&table, &format!("probe {probe}"));
            assert_eq!(built, probe, "only a probe builds the keyed queue");
            let mut t3 = Transaction::begin(&storage);
            let row = t3
                .consume(&table, true, None)
                .unwrap()
                .map(|(_, values)| values);
            let n = row.and_then(|v| v.get(2).cloned());
            assert_eq!(n, Some(Value::Int(99)), "probe {probe}: the new version");
        }
    }
}
