//! `insert`: how fast rows go in, in memory, on both engines.
//! - **loop**: a prepared single-row INSERT executed once per row, transactions of 1,000 (the
//!   queue producer of `fifo`: `INS q (CURRENT_TIMESTAMP, ?, ?)` against SQLite's prepared
//!   `INSERT … VALUES (?1, ?2, ?3)`).
//! - **batch**: the same rows as parameter sets of 1,000 per call (`Session::execute_batch`,
//!   what Python's `executemany` uses) against SQLite's prepared loop (it has no batch call).
//! - **INSERT … SELECT**: every row of an `N`-row table copied into an empty one in one
//!   statement.
//!
//! Each figure is rows per second, best of the rounds, tdlite's ratio to SQLite beside it.

use crate::common::{alternate, memory_sqlite, sqlite_fill, timed, TdQueue, PAYLOAD};
use tdlite::{Database, Session, Value};

/// Rows per transaction (loop) and per call (batch).
const PER_TXN: i64 = 1_000;

/// Runs the workload: `n` rows for the loop and the batch, `copy_rows` for INSERT … SELECT.
pub fn run(n: i64, copy_rows: i64, rounds: u32) {
    println!("\n## insert: rows per second in memory ({n} rows; INSERT … SELECT of {copy_rows})");
    println!("| how | tdlite rows/s | SQLite rows/s | tdlite × SQLite |");
    println!("|---|---|---|---|");
    let print = |label: &str, (td, lite): (f64, f64)| {
        println!(
            "| {label} | {td:.0} | {lite:.0} | {:.2}× |",
            td / lite.max(f64::MIN_POSITIVE)
        );
    };
    let lite_loop = || {
        let c = memory_sqlite();
        let (_, t) = timed(|| sqlite_fill(&c, 0..n, PER_TXN));
        n as f64 / t.as_secs_f64()
    };
    print(
        "prepared single-row INSERT, transactions of 1,000",
        alternate(
            rounds,
            || tdlite_queue_rate(n, |q, s| q.fill(s, 0..n, PER_TXN)),
            lite_loop,
        ),
    );
    print(
        "parameter sets of 1,000 per call (execute_batch)",
        alternate(
            rounds,
            || {
                tdlite_queue_rate(n, |q, s| {
                    let mut id = 0;
                    while id < n {
                        let end = (id + PER_TXN).min(n);
                        let sets: Vec<Vec<Value>> = (id..end)
                            .map(|i| vec![Value::Int(i), Value::Str(PAYLOAD.into())])
                            .collect();
                        s.execute_batch(&q.insert, sets).expect("batch insert");
                        id = end;
                    }
                })
            },
            lite_loop,
        ),
    );
    print(
        "INSERT … SELECT of a whole table",
        alternate(rounds, || tdlite_copy(copy_rows), || sqlite_copy(copy_rows)),
    );
}

/// Rows per second of `fill` putting `n` rows into a fresh in-memory queue.
fn tdlite_queue_rate(n: i64, fill: impl FnOnce(&TdQueue, &mut Session)) -> f64 {
    let db = Database::new();
    let q = TdQueue::new(&db);
    let mut s = db.session();
    let (_, t) = timed(|| fill(&q, &mut s));
    n as f64 / t.as_secs_f64()
}

/// The columns both engines copy: a key, a number and a short string.
const TD_TABLE: &str = "(id BIGINT NOT NULL, v INTEGER, s VARCHAR(40))";

/// Rows per second of tdlite's `INSERT INTO dst SELECT * FROM src` over `n` rows.
fn tdlite_copy(n: i64) -> f64 {
    let db = Database::new();
    let mut s = db.session();
    s.execute(&format!(
        "CREATE MULTISET TABLE src {TD_TABLE} NO PRIMARY INDEX"
    ))
    .expect("create src");
    s.execute(&format!(
        "CREATE MULTISET TABLE dst {TD_TABLE} NO PRIMARY INDEX"
    ))
    .expect("create dst");
    let ins = s
        .prepare("INSERT INTO src VALUES (?, ?, ?)")
        .expect("prepare");
    let mut id = 0;
    while id < n {
        let end = (id + 10_000).min(n);
        let sets: Vec<Vec<Value>> = (id..end)
            .map(|i| {
                vec![
                    Value::Int(i),
                    Value::Int(i % 1_000),
                    Value::Str(format!("row {i}")),
                ]
            })
            .collect();
        s.execute_batch(&ins, sets).expect("fill src");
        id = end;
    }
    let (r, t) = timed(|| s.execute("INSERT INTO dst SELECT * FROM src"));
    let count = r.expect("copy")[0].activity_count;
    assert_eq!(count, n as u64, "tdlite copied every row");
    n as f64 / t.as_secs_f64()
}

/// Rows per second of SQLite's `INSERT INTO dst SELECT * FROM src` over `n` rows.
fn sqlite_copy(n: i64) -> f64 {
    let c = memory_sqlite();
    c.execute_batch(
        "CREATE TABLE src (id INTEGER NOT NULL, v INTEGER, s TEXT); \
         CREATE TABLE dst (id INTEGER NOT NULL, v INTEGER, s TEXT); BEGIN;",
    )
    .unwrap();
    {
        let mut st = c.prepare("INSERT INTO src VALUES (?1, ?2, ?3)").unwrap();
        for i in 0..n {
            st.execute((i, i % 1_000, format!("row {i}"))).unwrap();
        }
    }
    c.execute_batch("COMMIT").unwrap();
    let (r, t) = timed(|| c.execute("INSERT INTO dst SELECT * FROM src", []));
    assert_eq!(r.expect("copy"), n as usize, "SQLite copied every row");
    n as f64 / t.as_secs_f64()
}
