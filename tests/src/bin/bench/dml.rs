//! `dml`: set-oriented UPDATE and DELETE over wide rows, in memory, on both engines.
//!
//! A table of `N` rows (default 100,000) shaped like the priority queue's: a key, a number
//! and two 1,000-character fillers, `(k INTEGER PRIMARY KEY, n INTEGER, f1 VARCHAR(1000),
//! f2 VARCHAR(1000))`, the same rows on both engines. Each figure times one statement on a
//! freshly filled table (the fill is not timed), in autocommit (its commit is timed):
//! - `UPDATE t SET n = n + 1`: every row, one narrow column changed;
//! - `UPDATE t SET n = n + 1 WHERE k MOD 10 = 0`: a tenth of the rows, found by a full scan;
//! - `DELETE FROM t WHERE k MOD 10 = 0`: a tenth of the rows, found by a full scan;
//! - Teradata's joined UPDATE and DELETE by a small table `s` of the keys that are
//!   multiples of 100 (`(k INTEGER, d INTEGER)`, a hundredth of the rows, no index):
//!   `UPDATE t FROM s SET n = t.n + s.d WHERE t.k = s.k` and `DELETE t FROM t, s WHERE
//!   t.k = s.k`; SQLite's own forms of the same, `UPDATE t SET n = t.n + s.d FROM s WHERE
//!   t.k = s.k` and `DELETE FROM t WHERE k IN (SELECT k FROM s)` (it has no joined DELETE);
//! - `MERGE INTO t USING s ON t.k = s.k WHEN MATCHED THEN UPDATE …` (SQLite: `INSERT … SELECT
//!   … ON CONFLICT (k) DO UPDATE …`), and a one-row upsert prepared and run 1,000 times
//!   (`MERGE INTO t USING (SEL ? AS k, ? AS d) s …` with both clauses; SQLite: `INSERT …
//!   VALUES (?, ?, …) ON CONFLICT (k) DO UPDATE …`), keys 0, 200, 400, …: half of them
//!   in `t` (updated), half not (inserted); rows merged per second; the same upsert in
//!   Teradata's atomic form, `UPDATE t SET n = n + ? WHERE k = ? ELSE INSERT INTO t VALUES
//!   (…)`;
//! - a one-row joined UPDATE prepared and run 1,000 times (`UPDATE t FROM s SET n = t.n +
//!   s.d * ? WHERE t.k = s.k AND s.k = ?`, keys 0, 100, 200, …: each one row of `s`, read
//!   whole, and one of `t`; SQLite: `UPDATE t SET … FROM s WHERE …`); runs per second.
//!
//! Each figure is rows changed per second, best of the rounds, tdlite's ratio beside it; the
//! count of rows changed is checked on both engines. The engines do not do the same physical
//! work: tdlite keeps row versions (a DELETE stamps each row and leaves it in its segment, an
//! UPDATE adds a version; in memory nothing is reclaimed), SQLite rewrites its B-tree pages.

use crate::common::{alternate, memory_sqlite, timed};
use tdlite::{Database, Session, Value};

/// The statements timed: label, tdlite's text, SQLite's text, and one row changed in how
/// many (1: every row; 10: the keys that are multiples of 10; 100: the keys of `s`).
const STATEMENTS: [(&str, &str, &str, i64); 6] = [
    (
        "UPDATE t SET n = n + 1 (every row)",
        "UPDATE t SET n = n + 1",
        "UPDATE t SET n = n + 1",
        1,
    ),
    (
        "UPDATE t SET n = n + 1 WHERE k MOD 10 = 0",
        "UPDATE t SET n = n + 1 WHERE k MOD 10 = 0",
        "UPDATE t SET n = n + 1 WHERE k % 10 = 0",
        10,
    ),
    (
        "DELETE FROM t WHERE k MOD 10 = 0",
        "DELETE FROM t WHERE k MOD 10 = 0",
        "DELETE FROM t WHERE k % 10 = 0",
        10,
    ),
    (
        "UPDATE t FROM s SET n = t.n + s.d WHERE t.k = s.k",
        "UPDATE t FROM s SET n = t.n + s.d WHERE t.k = s.k",
        "UPDATE t SET n = t.n + s.d FROM s WHERE t.k = s.k",
        100,
    ),
    (
        "DELETE t FROM t, s WHERE t.k = s.k",
        "DELETE t FROM t, s WHERE t.k = s.k",
        "DELETE FROM t WHERE k IN (SELECT k FROM s)",
        100,
    ),
    (
        "MERGE INTO t USING s ON t.k = s.k WHEN MATCHED THEN UPDATE SET n = t.n + s.d",
        "MERGE INTO t USING s ON t.k = s.k WHEN MATCHED THEN UPDATE SET n = t.n + s.d",
        "INSERT INTO t (k, n) SELECT k, d FROM s WHERE true \
         ON CONFLICT (k) DO UPDATE SET n = t.n + excluded.n",
        100,
    ),
];

/// The one-row upsert, prepared: key, amount.
const UPSERT: &str = "MERGE INTO t USING (SEL ? AS k, ? AS d) s ON t.k = s.k \
    WHEN MATCHED THEN UPDATE SET n = t.n + s.d \
    WHEN NOT MATCHED THEN INSERT VALUES (s.k, s.d, 'x', 'y')";
const SQLITE_UPSERT: &str = "INSERT INTO t VALUES (?1, ?2, 'x', 'y') \
    ON CONFLICT (k) DO UPDATE SET n = n + excluded.n";

/// The same upsert in Teradata's atomic form (UPDATE … ELSE INSERT), prepared: amount, key,
/// key, amount ([`ATOMIC_ORDER`]).
const ATOMIC: &str =
    "UPDATE t SET n = n + ? WHERE k = ? ELSE INSERT INTO t VALUES (?, ?, 'x', 'y')";
const ATOMIC_ORDER: &[usize] = &[1, 0, 0, 1];

/// The one-row joined UPDATE, prepared: amount, key (of `s`, whose rows have no index).
const JOINED: &str = "UPDATE t FROM s SET n = t.n + s.d * ? WHERE t.k = s.k AND s.k = ?";
const SQLITE_JOINED: &str = "UPDATE t SET n = t.n + s.d * ?1 FROM s WHERE t.k = s.k AND s.k = ?2";

/// How many runs of each prepared statement are timed.
const PREPARED_RUNS: i64 = 1_000;

/// The source table of the joined statements: the keys that are multiples of 100.
const CREATE_S: &str = "CREATE TABLE s (k INTEGER, d INTEGER)";

const CREATE: &str = "CREATE TABLE t (k INTEGER NOT NULL PRIMARY KEY, n INTEGER, \
    f1 VARCHAR(1000), f2 VARCHAR(1000))";

/// Runs the workload over `n` rows (keys 0 to n − 1).
pub fn run(n: i64, rounds: u32) {
    println!(
        "\n## dml: UPDATE and DELETE of 2 KB rows in memory ({n} rows), rows changed per second"
    );
    println!("| statement | tdlite rows/s | SQLite rows/s | tdlite × SQLite |");
    println!("|---|---|---|---|");
    for (label, td, lite, one_in) in STATEMENTS {
        let changed = (n + one_in - 1) / one_in;
        let (a, b) = alternate(
            rounds,
            || {
                let mut s = tdlite_filled(n);
                let (r, t) = timed(|| s.execute(td));
                let count = r.expect("tdlite statement")[0].activity_count;
                assert_eq!(count, changed as u64, "tdlite: {label}");
                changed as f64 / t.as_secs_f64()
            },
            || {
                let c = memory_sqlite();
                sqlite_fill(&c, n);
                let (r, t) = timed(|| c.execute(lite, []));
                assert_eq!(
                    r.expect("SQLite statement"),
                    changed as usize,
                    "SQLite: {label}"
                );
                changed as f64 / t.as_secs_f64()
            },
        );
        println!(
            "| {label} | {a:.0} | {b:.0} | {:.2}× |",
            a / b.max(f64::MIN_POSITIVE)
        );
    }
    // (key, amount) of each run: half the upserts' keys are in t, every joined update's is
    let upsert = |i: i64| (i * 200, 1);
    prepared(
        n,
        rounds,
        ("one-row MERGE upsert", UPSERT, SQLITE_UPSERT),
        (upsert, &[0, 1]),
    );
    prepared(
        n,
        rounds,
        (
            "one-row atomic upsert (UPDATE … ELSE INSERT)",
            ATOMIC,
            SQLITE_UPSERT,
        ),
        (upsert, ATOMIC_ORDER),
    );
    let joined = |i: i64| (1, i * 100);
    prepared(
        n,
        rounds,
        ("one-row joined UPDATE", JOINED, SQLITE_JOINED),
        (joined, &[0, 1]),
    );
}

/// The two values of each run (from its number), and the order tdlite's `?`s take them in.
type Params = (fn(i64) -> (i64, i64), &'static [usize]);

/// One statement (label, tdlite's text, SQLite's) prepared on each engine and run
/// [`PREPARED_RUNS`] times with the two values `params` gives for each run (SQLite's `?1`
/// and `?2`; tdlite's `?`s take them in the order `order` gives), each run changing one
/// row: runs per second.
fn prepared(n: i64, rounds: u32, (label, td, lite): (&str, &str, &str), (params, order): Params) {
    let (a, b) = alternate(
        rounds,
        || {
            let mut s = tdlite_filled(n);
            let p = s.prepare(td).expect("prepare the statement");
            let (_, t) = timed(|| {
                for i in 0..PREPARED_RUNS {
                    let (x, y) = params(i);
                    let values: Vec<Value> = order.iter().map(|&o| Value::Int([x, y][o])).collect();
                    let r = s.execute_prepared(&p, &values);
                    assert_eq!(
                        r.expect("tdlite run")[0].activity_count,
                        1,
                        "tdlite: {label}"
                    );
                }
            });
            PREPARED_RUNS as f64 / t.as_secs_f64()
        },
        || {
            let c = memory_sqlite();
            sqlite_fill(&c, n);
            let mut st = c.prepare(lite).unwrap();
            let (_, t) = timed(|| {
                for i in 0..PREPARED_RUNS {
                    assert_eq!(st.execute(params(i)).unwrap(), 1, "SQLite: {label}");
                }
            });
            PREPARED_RUNS as f64 / t.as_secs_f64()
        },
    );
    println!(
        "| {label}, prepared, {PREPARED_RUNS} times | {a:.0} | {b:.0} | {:.2}× |",
        a / b.max(f64::MIN_POSITIVE)
    );
}

/// The fillers of row `k`.
fn fillers(k: i64) -> (String, String) {
    let digit = char::from(b'a' + (k % 26) as u8);
    (
        std::iter::repeat_n(digit, 1_000).collect(),
        std::iter::repeat_n('b', 1_000).collect(),
    )
}

/// A session of a new in-memory database whose tables are filled for `n` rows.
fn tdlite_filled(n: i64) -> Session {
    let mut s = Database::new().session();
    tdlite_fill(&mut s, n);
    s
}

fn tdlite_fill(s: &mut Session, n: i64) {
    s.execute(CREATE).expect("create t");
    let ins = s
        .prepare("INSERT INTO t VALUES (?, ?, ?, ?)")
        .expect("prepare");
    let mut k = 0;
    while k < n {
        let end = (k + 10_000).min(n);
        let sets: Vec<Vec<Value>> = (k..end)
            .map(|k| {
                let (f1, f2) = fillers(k);
                vec![Value::Int(k), Value::Int(0), Value::Str(f1), Value::Str(f2)]
            })
            .collect();
        s.execute_batch(&ins, sets).expect("fill t");
        k = end;
    }
    s.execute(CREATE_S).expect("create s");
    let ins = s.prepare("INSERT INTO s VALUES (?, 1)").expect("prepare");
    let keys = (0..n).step_by(100).map(|k| vec![Value::Int(k)]).collect();
    s.execute_batch(&ins, keys).expect("fill s");
}

fn sqlite_fill(c: &rusqlite::Connection, n: i64) {
    c.execute_batch(&format!("{CREATE}; BEGIN;")).unwrap();
    {
        let mut st = c.prepare("INSERT INTO t VALUES (?1, ?2, ?3, ?4)").unwrap();
        for k in 0..n {
            let (f1, f2) = fillers(k);
            st.execute((k, 0, f1, f2)).unwrap();
        }
    }
    c.execute_batch(&format!(
        "{CREATE_S}; INSERT INTO s SELECT k, 1 FROM t WHERE k % 100 = 0"
    ))
    .unwrap();
    c.execute_batch("COMMIT").unwrap();
}
