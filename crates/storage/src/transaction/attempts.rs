//! Attempt counting and dead letters (docs/queues.md, Attempts and dead letters): what a
//! rollback does to the rows a transaction consumed from a queue with `ATTEMPTS (c)`.
//!
//! Such rows do not go back as they were. The rollback undoes everything else first and keeps
//! them claimed; then the transaction commits one change of its own: each row's new version
//! with its count one higher (keeping the row's queue key, so it goes back to its place; with
//! `RETRY DELAY` its QITS, the delivery time of such a queue, that much after now), or,
//! for a row whose count reaches `MAX ATTEMPTS`, the row deleted and a copy of it (count and
//! reason included) inserted into the dead-letter table.
//!
//! Invariants:
//! - the rows stay claimed from the consume until that commit is visible, so no consumer ever
//!   sees a row with its old count, and a row is never both in the queue and dead;
//! - the change is logged as any commit is: a count the rollback returned is durable (as the
//!   sync mode says), and a crash before it leaves the rows as if the consume never ran;
//! - nothing is lost on a failure: a dead-letter table that is missing, does not fit, or
//!   cannot be locked or written at once leaves the row in the queue with its count (it moves
//!   at a later rollback); a row whose new version cannot be written (a unique key, a SET
//!   duplicate) goes back uncounted, the others still count; and a commit that cannot be
//!   logged puts the rows back unchanged.
//!
//! Only a rollback of the whole transaction counts (`ROLLBACK`, `ABORT`, a failed request in
//! Teradata mode, a session that ends); undoing one statement ([`Transaction::rollback_to`])
//! puts its rows back uncounted.

use super::dead_letter::REASON_MAX_ATTEMPTS;
use super::{Outcome, Transaction, Undo};
use crate::catalog::QueueLimits;
use crate::table::{RowId, Table};
use crate::types::Value;
use std::sync::Arc;

/// Splits `undo` into the entries of rows consumed from queues that count attempts, and the
/// rest (both in their order).
pub(super) fn split_attempted(undo: Vec<Undo>) -> (Vec<Undo>, Vec<Undo>) {
    let counts = |u: &Undo| {
        matches!(u, Undo::Delete { table, consumed: true, .. }
            if table.schema.limits.as_ref().is_some_and(|l| l.attempts.is_some()))
    };
    if !undo.iter().any(counts) {
        return (Vec::new(), undo);
    }
    undo.into_iter().partition(counts)
}

impl Transaction {
    /// Counts one attempt on each row of `taken` (undo entries of rows this transaction
    /// consumed, still claimed by it; the rest of the transaction already undone) and commits
    /// that, which ends the transaction. Returns what the commit (or, if it fails, its
    /// rollback) published.
    pub(super) fn count_attempts(&mut self, taken: Vec<Undo>) -> Outcome {
        let mut out = Outcome::default();
        self.last_retry_qits.clear();
        // (table, moved to its dead-letter table) per row counted
        let mut counted: Vec<(Arc<Table>, bool)> = Vec::with_capacity(taken.len());
        for u in taken {
            let Undo::Delete {
                table,
                row,
                requeue,
                ..
            } = u
            else {
                continue;
            };
            // the claim stays this transaction's, no longer counted as consumed; undone (a row
            // that cannot be counted, or a commit that fails), it is a plain delete's
            {
                let mut d = table.lock();
                d.consumed = d.consumed.saturating_sub(1);
            }
            let sp = self.savepoint();
            self.undo.push(Undo::Delete {
                table: table.clone(),
                row,
                requeue,
                consumed: false,
            });
            // a queue this transaction dropped (its drop is undone by now) counts nothing
            let limits = table.schema.limits.clone().filter(|_| !table.is_dropped());
            match limits.map(|l| self.count_one(&table, row, &l)) {
                Some(Ok(moved)) => counted.push((table, moved)),
                // this row goes back as it was; the others are still counted
                _ => {
                    let back = self.rollback_to(sp);
                    out.published.extend(back.published);
                }
            }
        }
        match self.commit_in_place() {
            Ok(committed) => {
                for (t, moved) in counted {
                    let mut d = t.lock();
                    if moved {
                        d.dead_lettered += 1;
                    } else {
                        // back in the queue, not enqueued anew
                        d.enqueued = d.enqueued.saturating_sub(1);
                    }
                }
                out.published.extend(committed.published);
                out
            }
            Err(failed) => {
                out.published.extend(failed.outcome.published);
                out
            }
        }
    }

    /// One row's new count: its copy in the dead-letter table (true) or its new version in the
    /// queue (false).
    fn count_one(
        &mut self,
        table: &Arc<Table>,
        row: RowId,
        limits: &QueueLimits,
    ) -> Result<bool, ()> {
        let column = limits.attempts.ok_or(())?;
        let ty = table.schema.columns[column].ty;
        let mut values = table.lock().row(row);
        let count = match values[column] {
            Value::Int(n) => n
                .saturating_add(1)
                .min(ty.integer_max().unwrap_or(i64::MAX)),
            _ => 1,
        };
        values[column] = Value::Int(count);
        let old_qits = match values[0] {
            Value::Timestamp(t) => t,
            _ => i64::MIN,
        };
        let last = limits
            .max_attempts
            .is_some_and(|m| count >= i64::try_from(m).unwrap_or(i64::MAX));
        if last && self.copy_to_dead_letter(table, values, REASON_MAX_ATTEMPTS) {
            return Ok(true);
        }
        // `RETRY DELAY`: the row comes back that much later (its QITS is its delivery time),
        // never before its old QITS, and after the row counted just before it (rows of one
        // rollback must not become duplicates of one another in a SET queue)
        let later = limits.retry_delay_us.map(|delay| {
            let at = crate::table::wall_clock_us()
                .max(old_qits)
                .saturating_add(delay);
            let at = match self
                .last_retry_qits
                .iter_mut()
                .find(|(t, _)| *t == table.id)
            {
                Some((_, last)) => {
                    *last = at.max(last.saturating_add(1));
                    *last
                }
                None => {
                    self.last_retry_qits.push((table.id, at));
                    at
                }
            };
            Value::Timestamp(at)
        });
        // the delayed version, or, if it cannot be written (a unique key on the QITS), the
        // counted one at its old place: the count is never lost for the delay
        for qits in [later, None] {
            let mut d = table.lock();
            let seq = d.seq[row as usize];
            let changes = std::iter::once((column, Value::Int(count))).chain(qits.map(|q| (0, q)));
            let new = d.changed_row(&table.schema, row, changes);
            if let Ok(rid) = d.append(&table.schema, new, self.id, &self.storage.txns, Some(seq)) {
                self.note_inserted(table, &d, rid..rid + 1);
                return Ok(false);
            }
            if limits.retry_delay_us.is_none() {
                break;
            }
        }
        Err(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{Column, TableKind, TableSchema};
    use crate::types::SqlType;
    use crate::Storage;

    /// A queue (qits, tries, n) counting in `tries`, dead at 2, into `dead` (qits, tries, n,
    /// why); two rows committed.
    fn setup(storage: &Arc<Storage>) -> (Arc<Table>, Arc<Table>) {
        let cols = |extra: bool| {
            let mut c = vec![
                Column::plain("qits", SqlType::Timestamp(6), false),
                Column::plain("tries", SqlType::SmallInt, true),
                Column::plain("n", SqlType::Integer, true),
            ];
            if extra {
                c.push(Column::plain("why", SqlType::VarChar(20), true));
            }
            c
        };
        let schema = |name: &str, extra: bool| {
            TableSchema::new(
                name.into(),
                cols(extra),
                TableKind::Multiset,
                true,
                None,
                vec![],
                String::new(),
            )
        };
        let mut q = schema("q", false);
        q.limits = Some(QueueLimits {
            attempts: Some(1),
            max_attempts: Some(2),
            expire_after_us: None,
            retry_delay_us: None,
            dead_letter: Some("dead".into()),
        });
        let mut t = Transaction::begin(storage);
        let dead = t.create_table(schema("dead", true)).unwrap();
        let q = t.create_table(q).unwrap();
        for n in 0..2 {
            t.insert(&q, vec![Value::Timestamp(n), Value::Null, Value::Int(n)])
                .unwrap();
        }
        t.commit().unwrap();
        (q, dead)
    }

    fn take(storage: &Arc<Storage>, q: &Arc<Table>) -> (Transaction, Vec<Value>) {
        let mut t = Transaction::begin(storage);
        let (_, row) = t.consume(q, false, None).unwrap().unwrap();
        (t, row)
    }

    fn rows(storage: &Arc<Storage>, table: &Arc<Table>) -> Vec<Vec<Value>> {
        let t = Transaction::begin(storage);
        let snapshot = t.snapshot();
        let d = table.lock();
        (0..d.seq.len() as RowId)
            .filter(|&r| snapshot.visible(d.stamps.xmin(r), d.stamps.xmax(r)))
            .map(|r| d.row(r))
            .collect()
    }

    #[test]
    fn a_rolled_back_consume_counts_and_the_last_attempt_moves_the_row() {
        let storage = Arc::new(Storage::default());
        let (q, dead) = setup(&storage);
        let (t, row) = take(&storage, &q);
        assert_eq!(row, vec![Value::Timestamp(0), Value::Null, Value::Int(0)]);
        let out = t.rollback();
        assert_eq!(out.published.len(), 1, "the counted row is published again");
        // back in its place (oldest QITS first), counted once
        let (t, row) = take(&storage, &q);
        assert_eq!(row, vec![Value::Timestamp(0), Value::Int(1), Value::Int(0)]);
        assert_eq!(q.queue_stats(&t.snapshot()).consumed, 1);
        t.rollback();
        // the second attempt reached MAX ATTEMPTS: the row is dead, with its QITS and count
        assert_eq!(
            rows(&storage, &dead),
            vec![vec![
                Value::Timestamp(0),
                Value::Int(2),
                Value::Int(0),
                Value::Str(REASON_MAX_ATTEMPTS.into())
            ]]
        );
        let (t, row) = take(&storage, &q);
        assert_eq!(
            row[2],
            Value::Int(1),
            "the next row is the queue's first now"
        );
        let stats = q.queue_stats(&t.snapshot());
        assert_eq!((stats.dead_lettered, stats.consumed), (1, 1));
        t.commit().unwrap();
        assert!(rows(&storage, &q).is_empty());
        assert_eq!(
            dead.queue_depth(),
            1,
            "the dead-letter queue can be consumed"
        );
    }

    #[test]
    fn a_missing_dead_letter_table_keeps_the_row_counting() {
        let storage = Arc::new(Storage::default());
        let (q, dead) = setup(&storage);
        let mut t = Transaction::begin(&storage);
        t.drop_table(&dead.schema.name).unwrap();
        t.commit().unwrap();
        for count in 1..=3 {
            let (t, row) = take(&storage, &q);
            assert_eq!(row[2], Value::Int(0));
            assert_eq!(
                row[1],
                if count == 1 {
                    Value::Null
                } else {
                    Value::Int(count - 1)
                }
            );
            t.rollback();
        }
        assert_eq!(rows(&storage, &q).len(), 2, "nothing lost");
    }

    #[test]
    fn a_statement_undo_counts_nothing_and_other_changes_roll_back() {
        let storage = Arc::new(Storage::default());
        let (q, _) = setup(&storage);
        let mut t = Transaction::begin(&storage);
        let sp = t.savepoint();
        t.consume(&q, false, None).unwrap().unwrap();
        t.rollback_to(sp);
        // a consume and an insert in one transaction: the insert goes, the take counts
        t.consume(&q, false, None).unwrap().unwrap();
        t.insert(&q, vec![Value::Timestamp(9), Value::Null, Value::Int(9)])
            .unwrap();
        t.rollback();
        let mut left = rows(&storage, &q);
        left.sort_by_key(|r| format!("{:?}", r[0]));
        assert_eq!(
            left,
            vec![
                vec![Value::Timestamp(0), Value::Int(1), Value::Int(0)],
                vec![Value::Timestamp(1), Value::Null, Value::Int(1)],
            ]
        );
    }

    #[test]
    fn a_retry_delay_moves_the_counted_row_to_later() {
        use crate::catalog::IndexSpec;
        let storage = Arc::new(Storage::default());
        let mut schema = TableSchema::new(
            "slow".into(),
            vec![
                Column::plain("qits", SqlType::Timestamp(6), false),
                Column::plain("tries", SqlType::Integer, true),
            ],
            TableKind::Multiset,
            true,
            // the default primary index of a queue: a NUPI on the QITS
            Some(IndexSpec {
                name: None,
                columns: vec![0],
                unique: false,
            }),
            vec![],
            String::new(),
        );
        schema.delivers_at_qits = true;
        schema.limits = Some(QueueLimits {
            attempts: Some(1),
            max_attempts: None,
            expire_after_us: None,
            retry_delay_us: Some(3_600_000_000),
            dead_letter: None,
        });
        let mut t = Transaction::begin(&storage);
        let q = t.create_table(schema).unwrap();
        let old = crate::table::wall_clock_us() - 1_000_000;
        t.insert(&q, vec![Value::Timestamp(old), Value::Int(0)])
            .unwrap();
        t.commit().unwrap();
        let (t, _) = take(&storage, &q);
        t.rollback();
        let mut t = Transaction::begin(&storage);
        assert!(
            t.consume(&q, false, None).unwrap().is_none(),
            "not due for an hour"
        );
        t.rollback();
        let now = crate::table::wall_clock_us();
        let rows = rows(&storage, &q);
        assert_eq!(rows.len(), 1);
        let Value::Timestamp(at) = rows[0][0] else {
            panic!("a QITS: {rows:?}");
        };
        assert!(at >= now + 3_500_000_000, "an hour later: {at} vs {now}");
        assert_eq!(rows[0][1], Value::Int(1));
    }
}
