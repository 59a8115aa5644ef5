//! Row writers (ROW WRITE, taken on the lock manager's fast path while no stronger lock is
//! wanted) against `LOCKING … FOR WRITE|EXCLUSIVE` holders on the same tables, on real
//! threads, with transactions that take both kinds in either order so that deadlocks happen:
//! - while a transaction holds WRITE on a table, no one else changes it (two reads under the
//!   lock agree);
//! - every deadlock is found and broken with 2631 (the run ends; nothing waits forever);
//! - no committed increment is lost and no rolled-back one kept (final sums).
//!
//! The seed is printed; set `TDLITE_STRESS_SEED` to replay one.

use crate::common::{seed_from_env, Rng};
use std::thread;
use tdlite::{Database, Session};

const TABLES: [&str; 2] = ["ta", "tb"];
const WRITERS: usize = 4;
const LOCKERS: usize = 2;
const ROUNDS: usize = 150;

/// One value of a one-row, one-column result.
fn one(s: &mut Session, sql: &str) -> i64 {
    let r = s.execute(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    let rows = r.last().unwrap().rows.as_ref().unwrap().to_strings();
    rows[0][0].parse().unwrap()
}

/// Runs `sql`; `Ok(true)` if it committed, `Ok(false)` if it was a deadlock victim (2631:
/// the whole transaction rolled back).
fn run(s: &mut Session, sql: &str) -> Result<bool, String> {
    match s.execute(sql) {
        Ok(_) => Ok(true),
        Err(e) if e.code().number == 2631 => Ok(false),
        Err(e) => Err(format!("{sql}: {e}")),
    }
}

/// A writer: increments rows of both tables in random orders, sometimes asking for WRITE on
/// the second table while holding ROW WRITE on the first. Returns its committed increments
/// per table.
fn writer(db: Database, seed: u64) -> Result<[i64; 2], String> {
    let mut rng = Rng(seed);
    let mut s = db.session();
    let mut done = [0i64; 2];
    for _ in 0..ROUNDS {
        let first = rng.below(2) as usize;
        let (x, y) = (TABLES[first], TABLES[1 - first]);
        let k = rng.below(4) + 1;
        match rng.below(3) {
            0 => {
                if run(&mut s, &format!("UPD {x} SET v = v + 1 WHERE k = {k}"))? {
                    done[first] += 1;
                }
            }
            1 => {
                let sql = format!(
                    "BT; UPD {x} SET v = v + 1 WHERE k = {k}; UPD {y} SET v = v + 1 WHERE k = {k}; ET"
                );
                if run(&mut s, &sql)? {
                    done[0] += 1;
                    done[1] += 1;
                }
            }
            _ => {
                let sql = format!(
                    "BT; UPD {x} SET v = v + 1 WHERE k = {k}; \
                     LOCKING {y} FOR WRITE UPD {y} SET v = v + 1 WHERE k = {k}; ET"
                );
                if run(&mut s, &sql)? {
                    done[0] += 1;
                    done[1] += 1;
                }
            }
        }
    }
    Ok(done)
}

/// A locker: takes WRITE (or EXCLUSIVE) on one table, reads its sum twice with a pause and an
/// increment of its own between, sometimes locks the other table too. Returns its committed
/// increments per table.
fn locker(db: Database, seed: u64) -> Result<[i64; 2], String> {
    let mut rng = Rng(seed);
    let mut s = db.session();
    let mut done = [0i64; 2];
    for _ in 0..ROUNDS / 3 {
        let first = rng.below(2) as usize;
        let (x, y) = (TABLES[first], TABLES[1 - first]);
        let mode = if rng.below(2) == 0 {
            "WRITE"
        } else {
            "EXCLUSIVE"
        };
        let before = match s.execute(&format!("BT; LOCKING {x} FOR {mode} SEL SUM(v) FROM {x}")) {
            Ok(r) => r.last().unwrap().rows.as_ref().unwrap().to_strings()[0][0]
                .parse::<i64>()
                .unwrap(),
            Err(e) if e.code().number == 2631 => continue,
            Err(e) => return Err(format!("lock {x}: {e}")),
        };
        thread::yield_now();
        let mut mine = 0;
        if rng.below(2) == 0 {
            match run(&mut s, &format!("UPD {x} SET v = v + 1 WHERE k = 1")) {
                Ok(true) => mine = 1,
                Ok(false) => continue,
                Err(e) => return Err(e),
            }
        }
        let after = one(&mut s, &format!("SEL SUM(v) FROM {x}"));
        if after != before + mine {
            return Err(format!(
                "{x} changed under a {mode} lock: {before} then {after} (own +{mine})"
            ));
        }
        let also = rng.below(3) == 0;
        if also {
            match run(
                &mut s,
                &format!("LOCKING {y} FOR WRITE UPD {y} SET v = v + 1 WHERE k = 2"),
            ) {
                Ok(true) => {}
                Ok(false) => continue,
                Err(e) => return Err(e),
            }
        }
        if run(&mut s, "ET")? {
            done[first] += mine;
            if also {
                done[1 - first] += 1;
            }
        }
    }
    Ok(done)
}

#[test]
fn row_writers_and_table_lockers_keep_their_promises() {
    let seed = seed_from_env("TDLITE_STRESS_SEED");
    eprintln!("stress_locks seed {seed} (TDLITE_STRESS_SEED={seed} replays it)");
    let db = Database::new();
    let mut s = db.session();
    for t in TABLES {
        s.execute(&format!(
            "CREATE MULTISET TABLE {t} (k INTEGER NOT NULL, v INTEGER NOT NULL) NO PRIMARY INDEX"
        ))
        .unwrap();
        s.execute(&format!(
            "INS {t} (1, 0); INS {t} (2, 0); INS {t} (3, 0); INS {t} (4, 0);"
        ))
        .unwrap();
    }
    let mut handles = Vec::new();
    for i in 0..WRITERS + LOCKERS {
        let db = db.clone();
        let thread_seed = seed
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .wrapping_add(i as u64)
            | 1;
        handles.push(thread::spawn(move || {
            if i < WRITERS {
                writer(db, thread_seed)
            } else {
                locker(db, thread_seed)
            }
        }));
    }
    let mut total = [0i64; 2];
    for h in handles {
        let done = h
            .join()
            .expect("no thread panics")
            .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        total[0] += done[0];
        total[1] += done[1];
    }
    for (t, want) in TABLES.iter().zip(total) {
        assert_eq!(
            one(&mut s, &format!("SEL SUM(v) FROM {t}")),
            want,
            "seed {seed}: committed increments of {t}"
        );
    }
    assert!(total[0] + total[1] > 0, "seed {seed}: nothing committed");
    assert!(
        db.lock_waits().is_empty(),
        "seed {seed}: no one waits at the end"
    );
}
