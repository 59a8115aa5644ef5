//! Stress test of the ROW WRITE fast path (`fastlock`) against strong lock requests, on real
//! threads: writers take ROW WRITE on one or two tables (in either order) or consume from an
//! empty queue (ROW WRITE taken and given back within the take), lockers take EXCLUSIVE on
//! one or two of the three, so hand-overs race joins and give-backs and deadlocks happen.
//! At the end no lock is left in the manager or on the fast path.
//!
//! Invariant: a table never has a ROW WRITE holder and an EXCLUSIVE holder at once. Each side
//! counts itself in (sequentially consistent) after its lock is granted and then reads the
//! other side's count, so an overlap is seen by at least one of them. (It caught a hand-over
//! that let a second request pass holders the first had marked but not yet recorded: now
//! `Table::handover`; and it fails at once with the fast path's check of `strong` removed.) Every deadlock is
//! broken with 2631 (the run ends). Writers reuse their transaction object (`restart`), so
//! slots carry one transaction after another. The seed is printed; `TDLITE_STRESS_SEED`
//! replays one (thread timing is not replayed).

use crate::catalog::{Column, TableKind, TableSchema};
use crate::locks::LockMode;
use crate::table::Table;
use crate::types::SqlType;
use crate::{Storage, StorageError, Transaction};
use rand::{Rng, SeedableRng};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

const WRITERS: usize = 4;
const LOCKERS: usize = 2;
const ROUNDS: usize = 2_000;

struct Shared {
    storage: Arc<Storage>,
    tables: Vec<(Arc<Table>, AtomicI64, AtomicI64)>,
}

/// A table `name`; a queue (always empty here) if `queue`.
fn table(t: &mut Transaction, name: &str, queue: bool) -> Arc<Table> {
    let first = match queue {
        true => Column::plain("qits", SqlType::Timestamp(6), false),
        false => Column::plain("k", SqlType::Integer, true),
    };
    let schema = TableSchema::new(
        name.into(),
        vec![first],
        TableKind::Multiset,
        queue,
        None,
        vec![],
        String::new(),
    );
    t.create_table(schema).expect("create")
}

/// Holds the locks `t` took on `which` (mode `mode`) for a moment, checking no other kind of
/// holder is in; false if a lock was refused as a deadlock (then `t` rolled back).
fn hold(sh: &Shared, t: &mut Transaction, which: &[usize], mode: LockMode, spin: u32) -> bool {
    for &i in which {
        match t.lock(&sh.tables[i].0, mode, false) {
            Ok(()) => {}
            Err(StorageError::Deadlock(_)) => {
                t.rollback_in_place();
                return false;
            }
            Err(e) => panic!("lock: {e}"),
        }
    }
    // (this kind's count, the other kind's) of table i
    let counts = |i: usize| match mode {
        LockMode::RowWrite => (&sh.tables[i].1, &sh.tables[i].2),
        _ => (&sh.tables[i].2, &sh.tables[i].1),
    };
    for &i in which {
        counts(i).0.fetch_add(1, Ordering::SeqCst);
        // (only the first thread to fail says something true: a failed thread's counts stay)
        assert_eq!(
            counts(i).1.load(Ordering::SeqCst),
            0,
            "{mode:?} of transaction {} on table {i} overlaps the other kind of lock",
            t.id()
        );
    }
    for _ in 0..spin {
        std::hint::spin_loop();
    }
    for &i in which {
        counts(i).0.fetch_sub(1, Ordering::SeqCst);
    }
    t.commit_in_place().expect("commit");
    true
}

/// A consume of the empty queue (table 2), waiting for its lock: false if it was a deadlock
/// victim (then `t` rolled back).
fn take_nothing(sh: &Shared, t: &mut Transaction) -> bool {
    match t.consume(&sh.tables[2].0, true, None) {
        Ok(taken) => assert!(taken.is_none(), "the queue is empty"),
        Err(StorageError::Deadlock(_)) => {
            t.rollback_in_place();
            return false;
        }
        Err(e) => panic!("consume: {e}"),
    }
    t.commit_in_place().expect("commit");
    true
}

#[test]
fn row_writers_and_exclusive_lockers_never_overlap() {
    let seed = crate::stress_seed("fastlock");
    let storage = Arc::new(Storage::default());
    let mut t = Transaction::begin(&storage);
    // two plain tables (0, 1) and an empty queue (2)
    let tables = [("ta", false), ("tb", false), ("tq", true)]
        .map(|(n, q)| (table(&mut t, n, q), AtomicI64::new(0), AtomicI64::new(0)));
    t.commit().expect("commit");
    let sh = Arc::new(Shared {
        storage,
        tables: tables.into(),
    });
    let threads: Vec<_> = (0..WRITERS + LOCKERS)
        .map(|n| {
            let sh = sh.clone();
            std::thread::spawn(move || {
                let mut rng = rand::rngs::StdRng::seed_from_u64(seed ^ (n as u64 + 1));
                let mode = match n < WRITERS {
                    true => LockMode::RowWrite,
                    false => LockMode::Exclusive,
                };
                let mut t = Transaction::begin(&sh.storage);
                t.set_session(n as u64 + 1);
                let (mut done, mut victims) = (0, 0);
                for _ in 0..ROUNDS {
                    let first = rng.gen_range(0..2);
                    let which = match rng.gen_range(0..4) {
                        0 => vec![first, 1 - first],
                        1 if mode == LockMode::RowWrite => {
                            // a take that finds nothing: ROW WRITE taken and given back at once
                            match take_nothing(&sh, &mut t) {
                                true => done += 1,
                                false => victims += 1,
                            }
                            assert!(t.restart(), "ended");
                            continue;
                        }
                        1 => vec![2, first],
                        _ => vec![first],
                    };
                    let spin = rng.gen_range(0..2_000);
                    match hold(&sh, &mut t, &which, mode, spin) {
                        true => done += 1,
                        false => victims += 1,
                    }
                    assert!(t.restart(), "ended");
                }
                (done, victims)
            })
        })
        .collect();
    let (mut total, mut victims) = (0, 0);
    for th in threads {
        let (done, lost) = th.join().expect("a thread failed (see its message)");
        total += done;
        victims += lost;
    }
    println!("{total} transactions got their locks, {victims} were deadlock victims");
    assert!(total > 0, "no transaction got its locks");
    for (table, row, strong) in sh.tables.iter() {
        assert_eq!(row.load(Ordering::SeqCst), 0);
        assert_eq!(strong.load(Ordering::SeqCst), 0);
        assert_eq!(
            table.strong.load(Ordering::SeqCst),
            0,
            "strong counts given back"
        );
    }
    assert!(crate::fastlock::holders(&sh.storage.txns.slots).is_empty());
    // no lock outlived its transaction (a hand-over's record of a lock given back would)
    let left = sh.storage.held_locks();
    assert!(left.is_empty(), "{left:?}");
}
