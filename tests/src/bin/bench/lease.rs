//! `lease` (issue 17, docs/queues.md Leases and Attempts): the worker pattern of pgmq and SQS
//! (take a batch for a while, work outside any transaction, acknowledge) and the cost of a
//! counted failure, in memory.
//!
//! - Drain: N prefilled rows, 10 at a time. tdlite: `SELECT AND CONSUME TOP 10 id FROM q
//!   LEASE 30 SECONDS` then `ACKNOWLEDGE q LEASE id`. SQLite, as pgmq does it on PostgreSQL: a
//!   `vt` (visible-from) column; `UPDATE … SET vt = now + 30 s, read_ct = read_ct + 1 WHERE
//!   seq IN (SELECT … WHERE vt <= now ORDER BY qits, seq LIMIT 10) RETURNING` to take, `DELETE
//!   … WHERE seq IN (…)` to acknowledge, each its own transaction. Every id is checked to come
//!   out exactly once.
//! - Failure: R times, take the oldest row and fail. tdlite: a consume rolled back, on a plain
//!   queue (the row goes back) and on one with `ATTEMPTS (tries)` (the row goes back counted);
//!   SQLite: the lease taken and the count kept by the UPDATE above, the row left to its `vt`.

use crate::common::{alternate, check_exactly_once, now_us, PAYLOAD};
use arrow::array::AsArray;
use arrow::datatypes::Int64Type;
use rusqlite::Connection;
use std::time::Instant;
use tdlite::{Database, Value};

/// Rows per take.
const BATCH: usize = 10;

/// tdlite's queue, counting attempts or not.
fn td_queue(attempts: bool) -> String {
    let (option, column) = if attempts {
        (", ATTEMPTS (tries)", ", tries INTEGER NOT NULL DEFAULT 0")
    } else {
        ("", "")
    };
    format!(
        "CREATE MULTISET TABLE q, QUEUE{option} (qits TIMESTAMP(6) NOT NULL DEFAULT \
         CURRENT_TIMESTAMP(6), id BIGINT NOT NULL, payload VARCHAR(100){column})"
    )
}

/// A tdlite queue of `n` rows (ids 0..n), in memory.
fn td_filled(n: i64, attempts: bool) -> Database {
    let db = Database::new();
    td_fill(&db, n, attempts);
    db
}

/// Creates the queue in `db` with `n` rows (ids 0..n).
fn td_fill(db: &Database, n: i64, attempts: bool) {
    let mut s = db.session();
    s.execute(&td_queue(attempts)).unwrap();
    let ins = s
        .prepare("INS q (qits, id, payload) VALUES (CURRENT_TIMESTAMP, ?, ?)")
        .unwrap();
    for chunk in (0..n).collect::<Vec<_>>().chunks(1_000) {
        s.execute("BT").unwrap();
        for &id in chunk {
            s.execute_prepared(&ins, &[Value::Int(id), Value::Str(PAYLOAD.into())])
                .unwrap();
        }
        s.execute("ET").unwrap();
    }
}

/// SQLite's pgmq-style queue of `n` rows, in memory.
fn lite_filled(n: i64) -> Connection {
    let c = Connection::open_in_memory().unwrap();
    lite_fill(&c, n);
    c
}

/// Creates the pgmq-style queue in `c` with `n` rows.
fn lite_fill(c: &Connection, n: i64) {
    c.execute_batch(
        "CREATE TABLE q (seq INTEGER PRIMARY KEY, qits INTEGER NOT NULL, vt INTEGER NOT NULL, \
         read_ct INTEGER NOT NULL DEFAULT 0, id INTEGER NOT NULL, payload TEXT); \
         CREATE INDEX q_order ON q (qits, seq);",
    )
    .unwrap();
    c.execute_batch("BEGIN").unwrap();
    {
        let mut st = c
            .prepare("INSERT INTO q (qits, vt, id, payload) VALUES (?1, 0, ?2, ?3)")
            .unwrap();
        for id in 0..n {
            st.execute(rusqlite::params![now_us(), id, PAYLOAD])
                .unwrap();
        }
    }
    c.execute_batch("COMMIT").unwrap();
}

/// SQLite's take: up to 10 visible rows made invisible for 30 s, with their count.
const LITE_TAKE: &str = "UPDATE q SET vt = ?1 + 30000000, read_ct = read_ct + 1 WHERE seq IN \
    (SELECT seq FROM q WHERE vt <= ?1 ORDER BY qits, seq LIMIT 10) RETURNING seq, id";

/// Rows per second for tdlite draining `n` rows by lease and acknowledgement.
fn td_drain(n: i64) -> f64 {
    let db = td_filled(n, false);
    let mut s = db.session();
    let take = s
        .prepare(&format!(
            "SEL AND CONSUME TOP {BATCH} id FROM q LEASE 30 SECONDS NOWAIT"
        ))
        .unwrap();
    let mut got = Vec::with_capacity(n as usize);
    let start = Instant::now();
    while (got.len() as i64) < n {
        let r = s.execute_prepared(&take, &[]).unwrap();
        let mut lease = None;
        for b in &r[0].rows.as_ref().unwrap().batches {
            got.extend(b.column(0).as_primitive::<Int64Type>().values().iter());
            if b.num_rows() > 0 {
                lease = Some(b.column(1).as_primitive::<Int64Type>().value(0));
            }
        }
        let lease = lease.expect("rows left to lease");
        s.execute(&format!("ACKNOWLEDGE q LEASE {lease}")).unwrap();
    }
    let rate = n as f64 / start.elapsed().as_secs_f64();
    check_exactly_once(got, n, "tdlite");
    rate
}

/// Rows per second for SQLite draining `n` rows pgmq's way.
fn lite_drain(n: i64) -> f64 {
    let c = lite_filled(n);
    let mut got = Vec::with_capacity(n as usize);
    let start = Instant::now();
    while (got.len() as i64) < n {
        c.execute_batch("BEGIN IMMEDIATE").unwrap();
        let taken: Vec<(i64, i64)> = {
            let mut st = c.prepare_cached(LITE_TAKE).unwrap();
            st.query_map([now_us()], |row| Ok((row.get(0)?, row.get(1)?)))
                .unwrap()
                .map(Result::unwrap)
                .collect()
        };
        c.execute_batch("COMMIT").unwrap();
        assert!(!taken.is_empty(), "rows left to take");
        let seqs: Vec<String> = taken.iter().map(|t| t.0.to_string()).collect();
        c.execute_batch(&format!(
            "BEGIN IMMEDIATE; DELETE FROM q WHERE seq IN ({}); COMMIT",
            seqs.join(",")
        ))
        .unwrap();
        got.extend(taken.iter().map(|t| t.1));
    }
    let rate = n as f64 / start.elapsed().as_secs_f64();
    check_exactly_once(got, n, "SQLite");
    rate
}

/// Failures per second for tdlite: `r` consumes rolled back, on a queue counting attempts or
/// not.
fn td_failures(r: i64, attempts: bool) -> f64 {
    td_failures_in(&td_filled(1_000, attempts), r)
}

/// Failures per second for tdlite on `db` (its queue filled).
fn td_failures_in(db: &Database, r: i64) -> f64 {
    let mut s = db.session();
    let take = s.prepare("SEL AND CONSUME TOP 1 id FROM q NOWAIT").unwrap();
    let start = Instant::now();
    for _ in 0..r {
        s.execute("BT").unwrap();
        s.execute_prepared(&take, &[]).unwrap();
        let _ = s.execute("ROLLBACK");
    }
    r as f64 / start.elapsed().as_secs_f64()
}

/// Failures per second for SQLite: `r` takes of the oldest visible row (counted), left to
/// their `vt` (set in the past here, so that the same row comes again, as a counted rollback
/// brings it back at once).
fn lite_failures(r: i64) -> f64 {
    lite_failures_in(&lite_filled(1_000), r)
}

/// Failures per second for SQLite on `c` (its queue filled).
fn lite_failures_in(c: &Connection, r: i64) -> f64 {
    let start = Instant::now();
    for _ in 0..r {
        c.execute_batch("BEGIN IMMEDIATE").unwrap();
        let mut st = c
            .prepare_cached(
                "UPDATE q SET vt = 0, read_ct = read_ct + 1 WHERE seq = (SELECT seq FROM q \
                 WHERE vt <= ?1 ORDER BY qits, seq LIMIT 1) RETURNING id",
            )
            .unwrap();
        let _: i64 = st.query_row([now_us()], |row| row.get(0)).unwrap();
        drop(st);
        c.execute_batch("COMMIT").unwrap();
    }
    r as f64 / start.elapsed().as_secs_f64()
}

/// The `lease` workload.
pub fn run(n: i64, failures: i64, rounds: u32) {
    println!("\n## lease: {n} prefilled rows drained {BATCH} at a time by lease and acknowledgement, in memory");
    println!("| engine | how | rows/s | × SQLite |");
    println!("|---|---|---|---|");
    let (td, lite) = alternate(rounds, || td_drain(n), || lite_drain(n));
    println!(
        "| tdlite | `TOP {BATCH} … LEASE 30 SECONDS`, `ACKNOWLEDGE` | {td:.0} | {:.2} |",
        td / lite
    );
    println!("| SQLite | pgmq's way: UPDATE of `vt` … RETURNING, DELETE | {lite:.0} | — |");
    println!("\n## lease: {failures} failed takes of the oldest row, in memory");
    println!("| engine | how | failures/s | × SQLite |");
    println!("|---|---|---|---|");
    let (counted, lite) = alternate(
        rounds,
        || td_failures(failures, true),
        || lite_failures(failures),
    );
    let (plain, _) = alternate(rounds, || td_failures(failures, false), || 0.0);
    println!(
        "| tdlite | consume rolled back, `ATTEMPTS (tries)` counts it | {counted:.0} | {:.2} |",
        counted / lite
    );
    println!(
        "| tdlite | consume rolled back, nothing counted | {plain:.0} | {:.2} |",
        plain / lite
    );
    println!("| SQLite | UPDATE of `vt` and `read_ct` | {lite:.0} | — |");
}

/// The `lease` workload's failures on disk: every commit synced (tdlite's full sync, SQLite's
/// WAL with `synchronous` FULL); a counted rollback is a commit, a plain one writes nothing.
pub fn disk(failures: i64, rounds: u32) {
    println!("\n## lease: {failures} failed takes of the oldest row, on disk, every commit synced");
    println!("| engine | how | failures/s | × SQLite |");
    println!("|---|---|---|---|");
    let dir = std::env::temp_dir().join(format!("tdlite-bench-lease-{}", std::process::id()));
    let td = |attempts: bool| {
        let _ = std::fs::remove_dir_all(&dir);
        let db = Database::open(&dir).expect("open");
        td_fill(&db, 1_000, attempts);
        let r = td_failures_in(&db, failures);
        drop(db);
        let _ = std::fs::remove_dir_all(&dir);
        r
    };
    let lite = || {
        let p = crate::common::sqlite_path(&std::env::temp_dir(), "lease");
        let c = Connection::open(&p).unwrap();
        c.execute_batch("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;")
            .unwrap();
        lite_fill(&c, 1_000);
        let r = lite_failures_in(&c, failures);
        drop(c);
        crate::common::remove_sqlite(&p);
        r
    };
    let (counted, lite_rate) = alternate(rounds, || td(true), lite);
    let (plain, _) = alternate(rounds, || td(false), || 0.0);
    println!(
        "| tdlite | consume rolled back, `ATTEMPTS (tries)` counts it (a synced commit) | {counted:.0} | {:.2} |",
        counted / lite_rate
    );
    println!(
        "| tdlite | consume rolled back, nothing counted (nothing written) | {plain:.0} | {:.2} |",
        plain / lite_rate
    );
    println!("| SQLite | UPDATE of `vt` and `read_ct`, WAL FULL | {lite_rate:.0} | — |");
}
