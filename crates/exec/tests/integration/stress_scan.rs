//! Readers that scan while writers change the rows under them (issue 15: a scan takes the
//! table's segments, stamps and tail under the mutex and tests visibility after releasing it).
//!
//! Writers keep two sums constant: rotators consume rows from a queue and enqueue as many rows
//! with the same total in the same transaction, and transferrers move amounts between rows of
//! a plain table; both sides sometimes roll back. Readers scan both tables in a loop and every
//! scan must see the constant count and totals: a scan that saw a row's deletion without its
//! replacement (or a rolled-back change) would break them. The tables grow past a sealed
//! segment while the readers run, so scans cross segments, the tail and a sealing. The seed is
//! printed; `TDLITE_STRESS_SEED` replays one.

use crate::common::{seed_from_env, Rng};
use arrow::array::{Array, Decimal128Array, Int32Array, Int64Array};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use tdlite::{Database, Session};

/// Rows in the queue and in the plain table (each worth 10).
const ROWS: i64 = 3_000;
/// Transactions per writer.
const ROUNDS: u64 = 1_500;

/// The integer cells of a one-row result, whatever integer types the engine chose.
fn cells(s: &mut Session, sql: &str) -> Vec<i128> {
    let r = s.execute(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    let b = &r[0].rows.as_ref().expect("rows").batches[0];
    b.columns()
        .iter()
        .map(|a| {
            if let Some(x) = a.as_any().downcast_ref::<Int32Array>() {
                return x.value(0).into();
            }
            if let Some(x) = a.as_any().downcast_ref::<Int64Array>() {
                return x.value(0).into();
            }
            a.as_any()
                .downcast_ref::<Decimal128Array>()
                .unwrap_or_else(|| panic!("{sql}: a column is {:?}", a.data_type()))
                .value(0)
        })
        .collect()
}

#[test]
fn scans_see_constant_totals_while_rows_move() {
    let seed = seed_from_env("TDLITE_STRESS_SEED");
    println!("scan stress seed = {seed} (replay with TDLITE_STRESS_SEED={seed})");
    let db = Database::new();
    let mut s = db.session();
    s.execute(
        "CREATE MULTISET TABLE q, QUEUE (qits TIMESTAMP(6) NOT NULL \
         DEFAULT CURRENT_TIMESTAMP(6), id BIGINT NOT NULL, v BIGINT NOT NULL)",
    )
    .unwrap();
    s.execute("CREATE TABLE t (k INTEGER NOT NULL PRIMARY KEY, v BIGINT NOT NULL)")
        .unwrap();
    let ins = s.prepare("INS q (CURRENT_TIMESTAMP, ?, 10)").unwrap();
    let put = s.prepare("INS t (?, 10)").unwrap();
    s.execute("BT").unwrap();
    for i in 0..ROWS {
        s.execute_prepared(&ins, &[tdlite::Value::Int(i)]).unwrap();
        s.execute_prepared(&put, &[tdlite::Value::Int(i)]).unwrap();
    }
    s.execute("ET").unwrap();

    let stop = Arc::new(AtomicBool::new(false));
    let mut writers = Vec::new();
    for w in 0..2u64 {
        let db = db.clone();
        writers.push(thread::spawn(move || {
            let mut rng = Rng(seed ^ (w + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
            let mut s = db.session();
            let mut next_id = (w as i64 + 1) * 1_000_000;
            for _ in 0..ROUNDS {
                // rotate: take k rows, give back k rows of 10 (their ids are new)
                let k = 1 + rng.below(4);
                // one consume per request (Teradata's rule), the inserts in one request
                s.execute("BT").unwrap();
                for _ in 0..k {
                    s.execute("SELECT AND CONSUME TOP 1 id FROM q").unwrap();
                }
                let mut sql = String::new();
                for _ in 0..k {
                    sql.push_str(&format!("INS q (CURRENT_TIMESTAMP, {next_id}, 10);"));
                    next_id += 1;
                }
                s.execute(&sql).unwrap();
                if rng.below(4) == 0 {
                    assert_eq!(s.execute("ROLLBACK").unwrap_err().code().number, 3514);
                } else {
                    s.execute("ET").unwrap();
                }
                // transfer: move an amount between two rows of t (a new version of each)
                let (a, b) = (rng.below(ROWS as u64), rng.below(ROWS as u64));
                let amount = rng.below(5);
                let sql = format!(
                    "BT; UPDATE t SET v = v - {amount} WHERE k = {a}; \
                     UPDATE t SET v = v + {amount} WHERE k = {b};"
                );
                match s.execute(&sql) {
                    Ok(_) if rng.below(4) == 0 => {
                        assert_eq!(s.execute("ROLLBACK").unwrap_err().code().number, 3514);
                    }
                    Ok(_) => {
                        s.execute("ET").unwrap();
                    }
                    // the other writer holds one of the rows: the transaction was rolled back
                    Err(e) => assert_eq!(e.code().number, 2631, "{e}"),
                }
            }
        }));
    }
    let mut readers = Vec::new();
    for _ in 0..2 {
        let (db, stop) = (db.clone(), stop.clone());
        readers.push(thread::spawn(move || {
            let mut s = db.session();
            let mut scans = 0u64;
            while !stop.load(Ordering::Relaxed) {
                let q = cells(&mut s, "SELECT COUNT(*), SUM(v) FROM q");
                assert_eq!(q, [ROWS as i128, 10 * ROWS as i128], "queue");
                let t = cells(&mut s, "SELECT COUNT(*), SUM(v) FROM t WHERE v > -1000000");
                assert_eq!(t, [ROWS as i128, 10 * ROWS as i128], "transfers");
                scans += 1;
            }
            scans
        }));
    }
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        for w in writers {
            w.join().expect("a writer");
        }
        stop.store(true, Ordering::Relaxed);
        let scans: u64 = readers
            .into_iter()
            .map(|r| r.join().expect("a reader"))
            .sum();
        assert!(scans > 0, "the readers never scanned");
        let grown = cells(&mut s, "SELECT MAX(id), COUNT(*) FROM q");
        assert!(grown[0] > 1_000_000, "the writers committed no rotation");
        assert_eq!(grown[1], ROWS as i128);
    }));
    if let Err(e) = result {
        stop.store(true, Ordering::Relaxed);
        eprintln!("scan stress failed with seed {seed}");
        std::panic::resume_unwind(e);
    }
}
