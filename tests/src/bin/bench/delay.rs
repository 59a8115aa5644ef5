//! `delay` (issue 17, docs/queues.md, Delayed delivery): due-to-consumed latency. N rows are
//! committed at once into a queue that delivers at QITS, each due a few milliseconds after the
//! one before; one consumer takes them as they come due, and each row's latency is the time
//! it was taken minus its QITS (both from the system clock, µs). tdlite's consumer waits
//! (woken by a timer set to the next due time); SQLite's polls, as a queue on SQLite must:
//! a `DELETE … WHERE qits <= now … LIMIT 1 RETURNING`, sleeping 1 ms when nothing is due.

use crate::common::{memory_sqlite, now_us, percentile};
use arrow::array::AsArray;
use arrow::datatypes::TimestampMicrosecondType;
use std::time::Duration;
use tdlite::{Database, Value};

/// Milliseconds between two rows' due times.
const SPACING_MS: i64 = 2;

/// Latencies (µs) of `n` rows taken by a waiting tdlite consumer.
fn tdlite(n: i64) -> Vec<f64> {
    let db = Database::new();
    let mut s = db.session();
    s.execute(
        "CREATE MULTISET TABLE later, QUEUE, DELIVER AT (qits) (qits TIMESTAMP(6) NOT NULL \
         DEFAULT CURRENT_TIMESTAMP(6), id BIGINT NOT NULL)",
    )
    .unwrap();
    let ins = s.prepare("INS later (?, ?)").unwrap();
    let start = now_us() + 20_000;
    s.execute("BT").unwrap();
    for i in 0..n {
        let due = start + i * SPACING_MS * 1_000;
        s.execute_prepared(&ins, &[Value::Timestamp(due), Value::Int(i)])
            .unwrap();
    }
    s.execute("ET").unwrap();
    let take = s.prepare("SEL AND CONSUME TOP 1 qits FROM later").unwrap();
    (0..n)
        .map(|_| {
            let r = s.execute_prepared(&take, &[]).unwrap();
            let at = now_us();
            let b = &r[0].rows.as_ref().unwrap().batches[0];
            let qits = b
                .column(0)
                .as_primitive::<TimestampMicrosecondType>()
                .value(0);
            (at - qits) as f64
        })
        .collect()
}

/// Latencies (µs) of `n` rows taken by a polling SQLite consumer.
fn sqlite(n: i64) -> Vec<f64> {
    let c = memory_sqlite();
    let start = now_us() + 20_000;
    c.execute_batch("BEGIN").unwrap();
    for i in 0..n {
        c.execute(
            "INSERT INTO q (qits, id, payload) VALUES (?1, ?2, NULL)",
            (start + i * SPACING_MS * 1_000, i),
        )
        .unwrap();
    }
    c.execute_batch("COMMIT").unwrap();
    let mut lat = Vec::new();
    while (lat.len() as i64) < n {
        let now = now_us();
        let qits: Option<i64> = c
            .prepare_cached(
                "DELETE FROM q WHERE seq = (SELECT seq FROM q WHERE qits <= ?1 \
                 ORDER BY qits, seq LIMIT 1) RETURNING qits",
            )
            .unwrap()
            .query_row([now], |row| row.get(0))
            .ok();
        match qits {
            Some(q) => lat.push((now_us() - q) as f64),
            None => std::thread::sleep(Duration::from_millis(1)),
        }
    }
    lat
}

/// The `delay` workload.
pub fn run(n: i64) {
    let td = tdlite(n);
    let lite = sqlite(n);
    let max = |v: &[f64]| v.iter().copied().fold(f64::MIN, f64::max);
    println!("\n## delay: due-to-consumed latency, {n} rows due {SPACING_MS} ms apart (µs)");
    println!("| | p50 | p99 | max |");
    println!("|---|---|---|---|");
    println!(
        "| tdlite (waiting consumer, woken by the due time) | {:.0} | {:.0} | {:.0} |",
        percentile(&td, 0.5),
        percentile(&td, 0.99),
        max(&td)
    );
    println!(
        "| SQLite (polling every 1 ms) | {:.0} | {:.0} | {:.0} |",
        percentile(&lite, 0.5),
        percentile(&lite, 0.99),
        max(&lite)
    );
}
