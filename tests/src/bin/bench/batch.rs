//! `batch` (issue 17, docs/queues.md): a consumer that wants 100 rows at a time. Each engine
//! drains N prefilled rows in memory: tdlite with `SELECT AND CONSUME TOP 100` (one request
//! and one transaction per 100 rows), with 100 `TOP 1` requests in one `BT … ET`, and with
//! `TOP 1` requests each its own transaction; SQLite `:memory:` with one `DELETE … WHERE seq
//! IN (SELECT … LIMIT 100) RETURNING id` per transaction, and with its one-row pop. Every id
//! is checked to come out exactly once.

use crate::common::{alternate, check_exactly_once, memory_sqlite, sqlite_fill, TdQueue};
use arrow::array::AsArray;
use arrow::datatypes::Int64Type;
use rusqlite::Connection;
use std::time::Instant;
use tdlite::Database;

/// Rows per batch.
const BATCH: usize = 100;

/// SQLite's batch pop: the 100 oldest rows, deleted and returned in one statement.
const SQLITE_BATCH: &str = "DELETE FROM q WHERE seq IN \
    (SELECT seq FROM q ORDER BY qits, seq LIMIT 100) RETURNING id";

/// How tdlite takes the rows.
#[derive(Clone, Copy)]
enum Td {
    /// `TOP 100`, one transaction per batch.
    Batch,
    /// 100 `TOP 1` requests inside `BT … ET`.
    SinglesInOneTransaction,
    /// `TOP 1`, each its own transaction.
    Singles,
}

/// Rows per second for tdlite draining `n` prefilled rows the `how` way.
fn tdlite(n: i64, how: Td) -> f64 {
    let db = Database::new();
    let q = TdQueue::new(&db);
    let mut s = db.session();
    q.fill(&mut s, 0..n, 1_000);
    let batch = s
        .prepare(&format!("SEL AND CONSUME TOP {BATCH} id FROM q NOWAIT"))
        .unwrap();
    let mut got = Vec::with_capacity(n as usize);
    let start = Instant::now();
    while (got.len() as i64) < n {
        match how {
            Td::Batch => {
                let r = s.execute_prepared(&batch, &[]).unwrap();
                for b in &r[0].rows.as_ref().unwrap().batches {
                    got.extend(b.column(0).as_primitive::<Int64Type>().values().iter());
                }
            }
            Td::SinglesInOneTransaction => {
                s.execute("BT").unwrap();
                for _ in 0..BATCH.min(n as usize - got.len()) {
                    got.push(q.pop(&mut s).unwrap());
                }
                s.execute("ET").unwrap();
            }
            Td::Singles => got.push(q.pop(&mut s).unwrap()),
        }
    }
    let rate = n as f64 / start.elapsed().as_secs_f64();
    check_exactly_once(got, n, "tdlite");
    rate
}

/// Rows per second for SQLite draining `n` prefilled rows, 100 (`batched`) or one per
/// transaction.
fn sqlite(n: i64, batched: bool) -> f64 {
    let c: Connection = memory_sqlite();
    sqlite_fill(&c, 0..n, 1_000);
    let mut got = Vec::with_capacity(n as usize);
    let start = Instant::now();
    while (got.len() as i64) < n {
        c.execute_batch("BEGIN IMMEDIATE").unwrap();
        let sql = if batched {
            SQLITE_BATCH
        } else {
            crate::common::SQLITE_POP
        };
        let mut st = c.prepare_cached(sql).unwrap();
        let ids = st.query_map([], |row| row.get::<_, i64>(0)).unwrap();
        for id in ids {
            got.push(id.unwrap());
        }
        drop(st);
        c.execute_batch("COMMIT").unwrap();
    }
    let rate = n as f64 / start.elapsed().as_secs_f64();
    check_exactly_once(got, n, "SQLite");
    rate
}

/// The `batch` workload.
pub fn run(n: i64, rounds: u32) {
    println!("\n## batch: {n} prefilled rows drained in memory, {BATCH} at a time");
    println!("| engine | how | rows/s | × tdlite TOP 1 per transaction | × SQLite's same way |");
    println!("|---|---|---|---|---|");
    let (batch, lite_batch) = alternate(rounds, || tdlite(n, Td::Batch), || sqlite(n, true));
    let (singles, lite_single) = alternate(rounds, || tdlite(n, Td::Singles), || sqlite(n, false));
    let (in_one, _) = alternate(rounds, || tdlite(n, Td::SinglesInOneTransaction), || 0.0);
    println!(
        "| tdlite | TOP {BATCH}, a transaction per batch | {batch:.0} | {:.2} | {:.2} |",
        batch / singles,
        batch / lite_batch
    );
    println!(
        "| tdlite | {BATCH} × TOP 1 in one BT … ET | {in_one:.0} | {:.2} | — |",
        in_one / singles
    );
    println!(
        "| tdlite | TOP 1, a transaction each | {singles:.0} | 1.00 | {:.2} |",
        singles / lite_single
    );
    println!("| SQLite | DELETE … LIMIT {BATCH} RETURNING, a transaction per batch | {lite_batch:.0} | — | — |");
    println!("| SQLite | one-row pop, a transaction each | {lite_single:.0} | — | — |");
}
