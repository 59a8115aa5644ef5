//! Identity columns hand out each number once: across concurrent sessions, rollbacks, power
//! cuts (log replay) and checkpoints, even when the rows that had the numbers are gone
//! (docs/dialect.md, Identity columns; `tdlite_storage::identity`).

use std::collections::HashSet;
use std::path::Path;
use std::sync::Arc;
use tdlite::{Database, Options, SimVfs};

use crate::common::{ints, seed_from_env, Rng};

const QUEUE: &str =
    "CREATE TABLE q, QUEUE (qits TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6), \
     id INTEGER GENERATED ALWAYS AS IDENTITY (NO CYCLE), n INTEGER)";

/// A database on a simulated disk after `work` ran on it and the power was cut (open
/// transactions included), reopened.
fn after_power_cut(seed: u64, work: impl FnOnce(&Database)) -> Database {
    let sim = SimVfs::new(seed);
    let dir = Path::new("/db");
    let opts = Options {
        vfs: Arc::new(sim.clone()),
        ..Options::default()
    };
    {
        let db = Database::open_with(dir, opts.clone()).unwrap();
        work(&db);
        sim.power_cut();
    }
    sim.restart();
    let db = Database::open_with(dir, opts).unwrap();
    assert!(db.recovery_report().is_empty());
    db
}

/// Numbers of committed rows, consumed (deleted) since, and numbers a committed transaction
/// took for rows it deleted itself, are not handed out again after a power cut, whether the
/// reopen replays them from the log or loads them from a checkpoint.
#[test]
fn numbers_of_committed_rows_are_never_handed_out_again_after_a_power_cut() {
    for checkpoint in [false, true] {
        let db = after_power_cut(7, |db| {
            let mut s = db.session();
            s.execute(QUEUE).unwrap();
            for n in 1..=5 {
                s.execute(&format!("INS q (n) VALUES ({n})")).unwrap();
            }
            // every row consumed: no row is left to show which numbers were used
            for _ in 1..=5 {
                s.execute("SELECT AND CONSUME TOP 1 * FROM q").unwrap();
            }
            // a committed transaction saw number 6, though its row did not outlive it
            s.execute("BT; INS q (n) VALUES (6)").unwrap();
            let r = s.execute("SEL MAX(id) FROM q").unwrap();
            assert_eq!(r[0].rows.as_ref().unwrap().to_strings(), vec![vec!["6"]]);
            s.execute("DEL FROM q WHERE n = 6; ET").unwrap();
            if checkpoint {
                db.checkpoint().unwrap();
            }
            let mut open = db.session();
            open.execute("BT; INS q (n) VALUES (99)").unwrap(); // takes 7, never commits
            std::mem::forget(open); // the machine dies: no rollback runs
        });
        db.session().execute("INS q (n) VALUES (7)").unwrap();
        let got = ints(&db, "SEL id FROM q");
        assert_eq!(got.len(), 1);
        assert!(
            got[0] > 6,
            "checkpoint {checkpoint}: number {} was a committed row's",
            got[0]
        );
    }
}

/// Sessions inserting at once (single rows and INSERT … SELECT, some rolled back) never get
/// the same number; the numbers stay unused after a reopen. Seed: TDLITE_IDENTITY_SEED.
#[test]
fn concurrent_inserts_get_distinct_numbers_in_memory_and_on_disk() {
    let seed = seed_from_env("TDLITE_IDENTITY_SEED");
    println!("TDLITE_IDENTITY_SEED={seed}");
    let dir = tempfile::tempdir().unwrap();
    for on_disk in [false, true] {
        let db = if on_disk {
            Database::open(dir.path()).unwrap()
        } else {
            Database::new()
        };
        db.session()
            .execute("CREATE MULTISET TABLE t (id BIGINT GENERATED ALWAYS AS IDENTITY, w INTEGER, n INTEGER)")
            .unwrap();
        let workers: Vec<_> = (0..4u64)
            .map(|w| {
                let db = db.clone();
                std::thread::spawn(move || {
                    let mut rng = Rng(seed.wrapping_add(w * 0x9E37_79B9) | 1);
                    let mut s = db.session();
                    let mut kept = 0;
                    for n in 0..60 {
                        s.execute("BT").unwrap();
                        let sql = if rng.below(4) == 0 {
                            format!("INS t (w, n) SELECT {w}, n FROM t WHERE w = {w} AND n < 3")
                        } else {
                            format!("INS t (w, n) VALUES ({w}, {n})")
                        };
                        let rows = s.execute(&sql).unwrap()[0].activity_count as i64;
                        if rng.below(3) == 0 {
                            assert!(s.execute("ROLLBACK").is_err(), "Teradata mode: 3514");
                        } else {
                            s.execute("ET").unwrap();
                            kept += rows;
                        }
                    }
                    kept
                })
            })
            .collect();
        let kept: i64 = workers.into_iter().map(|h| h.join().unwrap()).sum::<i64>();
        let ids = ints(&db, "SEL id FROM t");
        let distinct: HashSet<i64> = ids.iter().copied().collect();
        assert!(kept > 0, "seed {seed}: nothing committed");
        assert_eq!(ids.len() as i64, kept, "seed {seed}: committed rows");
        assert_eq!(
            distinct.len(),
            ids.len(),
            "seed {seed}: a number given twice"
        );
        if on_disk {
            let max = *ids.iter().max().unwrap();
            drop(db);
            let db = Database::open(dir.path()).unwrap();
            db.session().execute("INS t (w, n) VALUES (9, 9)").unwrap();
            let new = ints(&db, "SEL id FROM t WHERE w = 9");
            assert!(
                new[0] > max,
                "seed {seed}: {} after a reopen, max was {max}",
                new[0]
            );
        }
    }
}

/// A table rebuilt by ALTER TABLE, and a copy made by CREATE TABLE … AS … WITH DATA, keep the
/// rows' numbers and go on with the sequence, also after a power cut.
#[test]
fn copies_and_rebuilt_tables_go_on_with_the_sequence_after_a_power_cut() {
    let db = after_power_cut(11, |db| {
        let mut s = db.session();
        s.execute("CREATE TABLE t (id INTEGER GENERATED ALWAYS AS IDENTITY, n INTEGER)")
            .unwrap();
        for n in 1..=3 {
            s.execute(&format!("INS t (n) VALUES ({n})")).unwrap();
        }
        s.execute("DEL FROM t WHERE n = 3").unwrap();
        s.execute("CREATE TABLE c AS t WITH DATA").unwrap();
        s.execute("ALTER TABLE t ADD k INTEGER").unwrap();
    });
    for table in ["t", "c"] {
        db.session()
            .execute(&format!("INS {table} (n) VALUES (4)"))
            .unwrap();
        assert_eq!(
            ints(&db, &format!("SEL id FROM {table} ORDER BY n")),
            vec![1, 2, 4],
            "{table}: the rows keep 1 and 2; 3 was handed out before"
        );
    }
}

/// A CYCLE sequence that has wrapped around goes on where it was after a power cut (the log
/// keeps how many numbers were handed out, which only grows), and a checkpoint right after a
/// reopen saves what the log said (the replayed table counts as changed).
#[test]
fn a_cycle_sequence_and_a_checkpoint_after_reopen_keep_their_place() {
    let sim = SimVfs::new(13);
    let dir = Path::new("/db");
    let opts = Options {
        vfs: Arc::new(sim.clone()),
        ..Options::default()
    };
    {
        let db = Database::open_with(dir, opts.clone()).unwrap();
        let mut s = db.session();
        s.execute(
            "CREATE TABLE c (id INTEGER GENERATED ALWAYS AS IDENTITY \
             (START WITH 2 MINVALUE 1 MAXVALUE 3 CYCLE), n INTEGER)",
        )
        .unwrap();
        s.execute("CREATE TABLE d (id INTEGER GENERATED ALWAYS AS IDENTITY, n INTEGER)")
            .unwrap();
        for n in 1..=4 {
            s.execute(&format!("INS c (n) VALUES ({n})")).unwrap(); // 2 3 1 2
        }
        db.checkpoint().unwrap();
        // in the log only: d's numbers 1 and 2, their rows deleted in the same transaction
        s.execute("BT; INS d (n) VALUES (1); INS d (n) VALUES (2); DEL FROM d; ET")
            .unwrap();
        sim.power_cut();
    }
    for round in 0..2 {
        sim.restart();
        let db = Database::open_with(dir, opts.clone()).unwrap();
        assert!(db.recovery_report().is_empty());
        if round == 0 {
            // a checkpoint before anything else is written: d's count must reach it
            db.checkpoint().unwrap();
            sim.power_cut();
            continue;
        }
        db.session().execute("INS c (n) VALUES (5)").unwrap();
        db.session().execute("INS d (n) VALUES (3)").unwrap();
        assert_eq!(
            ints(&db, "SEL id FROM c WHERE n = 5"),
            vec![3],
            "2 3 1 2 [3]"
        );
        assert_eq!(ints(&db, "SEL id FROM d"), vec![3]);
    }
}

/// A prepared INSERT run once per row and as a batch of parameter sets numbers every row:
/// GENERATED ALWAYS replaces the value given, BY DEFAULT fills a NULL.
#[test]
fn prepared_and_batched_inserts_number_every_row() {
    let db = Database::new();
    let mut s = db.session();
    s.execute("CREATE MULTISET TABLE a (id INTEGER GENERATED ALWAYS AS IDENTITY, n INTEGER)")
        .unwrap();
    s.execute("CREATE MULTISET TABLE b (id INTEGER GENERATED BY DEFAULT AS IDENTITY, n INTEGER)")
        .unwrap();
    let ins_a = s.prepare("INSERT INTO a VALUES (?, ?)").unwrap();
    let ins_b = s.prepare("INSERT INTO b VALUES (?, ?)").unwrap();
    use tdlite::Value;
    s.execute_prepared(&ins_a, &[Value::Int(500), Value::Int(0)])
        .unwrap();
    let sets: Vec<Vec<Value>> = (1..=3)
        .map(|n| vec![Value::Int(500), Value::Int(n)])
        .collect();
    s.execute_batch(&ins_a, sets).unwrap();
    assert_eq!(ints(&db, "SEL id FROM a ORDER BY n"), vec![1, 2, 3, 4]);
    let sets: Vec<Vec<Value>> = vec![
        vec![Value::Null, Value::Int(1)],
        vec![Value::Int(70), Value::Int(2)],
        vec![Value::Null, Value::Int(3)],
    ];
    s.execute_batch(&ins_b, sets).unwrap();
    assert_eq!(ints(&db, "SEL id FROM b ORDER BY n"), vec![1, 70, 2]);
}
