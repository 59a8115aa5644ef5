//! `subscribers` (issue 17, docs/queues.md Subscribers): fan-out to 3 subscribers, in memory.
//! N rows enqueued in transactions of 100, then each subscriber takes every row, one consume
//! (its own transaction) at a time; the queue must end empty.
//!
//! - tdlite: `CREATE TABLE q, QUEUE, SUBSCRIBERS (s0, s1, s2)`, prepared `INS q …`, then
//!   `SEL AND CONSUME TOP 1 id FROM q FOR SUBSCRIBER s`.
//! - SQLite, the fan-out people build by hand: `msg` (the rows) and `delivery (sub, seq)` (a
//!   row per subscriber and message, the primary key in delivery order, an index on `seq` for
//!   the "any delivery left?" test); an enqueue inserts the
//!   message and its deliveries; a consume deletes the subscriber's first delivery (`DELETE …
//!   RETURNING`), reads the message, and deletes it when no delivery of it is left.
//!
//! Each subscriber's ids are checked to come out exactly once.

use crate::common::{alternate, check_exactly_once, now_us, PAYLOAD};
use rusqlite::{Connection, OptionalExtension};
use std::time::Instant;
use tdlite::{Database, Value};

/// The subscribers.
const SUBS: [&str; 3] = ["s0", "s1", "s2"];

/// Rows per enqueue transaction.
const PER_TXN: i64 = 100;

/// (enqueue rows/s, deliveries/s) for tdlite.
fn td(n: i64) -> (f64, f64) {
    let db = Database::new();
    let mut s = db.session();
    s.execute(
        "CREATE MULTISET TABLE q, QUEUE, SUBSCRIBERS (s0, s1, s2) (qits TIMESTAMP(6) NOT NULL \
         DEFAULT CURRENT_TIMESTAMP(6), id BIGINT NOT NULL, payload VARCHAR(100))",
    )
    .unwrap();
    let ins = s.prepare("INS q (CURRENT_TIMESTAMP, ?, ?)").unwrap();
    let start = Instant::now();
    let mut id = 0;
    while id < n {
        s.execute("BT").unwrap();
        for i in id..(id + PER_TXN).min(n) {
            s.execute_prepared(&ins, &[Value::Int(i), Value::Str(PAYLOAD.into())])
                .unwrap();
        }
        s.execute("ET").unwrap();
        id += PER_TXN;
    }
    let enqueue = n as f64 / start.elapsed().as_secs_f64();
    let takes: Vec<_> = SUBS
        .iter()
        .map(|sub| {
            s.prepare(&format!(
                "SEL AND CONSUME TOP 1 id FROM q FOR SUBSCRIBER {sub} NOWAIT"
            ))
            .unwrap()
        })
        .collect();
    let start = Instant::now();
    let mut got: Vec<Vec<i64>> = vec![Vec::with_capacity(n as usize); SUBS.len()];
    // the subscribers take turns, a row each, as independent consumers would interleave
    for _ in 0..n {
        for (k, take) in takes.iter().enumerate() {
            let r = s.execute_prepared(take, &[]).unwrap();
            got[k].push(crate::common::first_id(&r).expect("a row for each subscriber"));
        }
    }
    let deliveries = (n * SUBS.len() as i64) as f64 / start.elapsed().as_secs_f64();
    for (k, ids) in got.into_iter().enumerate() {
        check_exactly_once(ids, n, &format!("tdlite {}", SUBS[k]));
    }
    let left = s.execute("SEL COUNT(*) FROM q").unwrap();
    let left = left[0].rows.as_ref().unwrap().to_strings();
    assert_eq!(left, [["0"]], "tdlite: rows left");
    (enqueue, deliveries)
}

/// (enqueue rows/s, deliveries/s) for SQLite's hand-made fan-out.
fn lite(n: i64) -> (f64, f64) {
    let c = Connection::open_in_memory().unwrap();
    c.execute_batch(
        "CREATE TABLE msg (seq INTEGER PRIMARY KEY, qits INTEGER NOT NULL, id INTEGER NOT NULL, \
         payload TEXT); \
         CREATE TABLE delivery (sub TEXT NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (sub, seq)) \
         WITHOUT ROWID; \
         CREATE INDEX delivery_seq ON delivery (seq);",
    )
    .unwrap();
    let start = Instant::now();
    let mut id = 0;
    while id < n {
        c.execute_batch("BEGIN").unwrap();
        {
            let mut msg = c
                .prepare_cached("INSERT INTO msg (qits, id, payload) VALUES (?1, ?2, ?3)")
                .unwrap();
            let mut del = c
                .prepare_cached("INSERT INTO delivery (sub, seq) VALUES (?1, ?2)")
                .unwrap();
            for i in id..(id + PER_TXN).min(n) {
                msg.execute(rusqlite::params![now_us(), i, PAYLOAD])
                    .unwrap();
                let seq = c.last_insert_rowid();
                for sub in SUBS {
                    del.execute(rusqlite::params![sub, seq]).unwrap();
                }
            }
        }
        c.execute_batch("COMMIT").unwrap();
        id += PER_TXN;
    }
    let enqueue = n as f64 / start.elapsed().as_secs_f64();
    let start = Instant::now();
    let mut got: Vec<Vec<i64>> = vec![Vec::with_capacity(n as usize); SUBS.len()];
    for _ in 0..n {
        for (k, sub) in SUBS.iter().enumerate() {
            c.execute_batch("BEGIN IMMEDIATE").unwrap();
            let seq: i64 = c
                .prepare_cached(
                    "DELETE FROM delivery WHERE sub = ?1 AND seq = (SELECT seq FROM delivery \
                     WHERE sub = ?1 ORDER BY seq LIMIT 1) RETURNING seq",
                )
                .unwrap()
                .query_row([sub], |r| r.get(0))
                .unwrap();
            let id: i64 = c
                .prepare_cached("SELECT id FROM msg WHERE seq = ?1")
                .unwrap()
                .query_row([seq], |r| r.get(0))
                .unwrap();
            let left: Option<i64> = c
                .prepare_cached("SELECT 1 FROM delivery WHERE seq = ?1 LIMIT 1")
                .unwrap()
                .query_row([seq], |r| r.get(0))
                .optional()
                .unwrap();
            if left.is_none() {
                c.prepare_cached("DELETE FROM msg WHERE seq = ?1")
                    .unwrap()
                    .execute([seq])
                    .unwrap();
            }
            c.execute_batch("COMMIT").unwrap();
            got[k].push(id);
        }
    }
    let deliveries = (n * SUBS.len() as i64) as f64 / start.elapsed().as_secs_f64();
    for (k, ids) in got.into_iter().enumerate() {
        check_exactly_once(ids, n, &format!("SQLite {}", SUBS[k]));
    }
    let left: i64 = c
        .query_row("SELECT COUNT(*) FROM msg", [], |r| r.get(0))
        .unwrap();
    assert_eq!(left, 0, "SQLite: rows left");
    (enqueue, deliveries)
}

/// The `subscribers` workload.
pub fn run(n: i64, rounds: u32) {
    println!(
        "\n## subscribers: {n} rows to {} subscribers, in memory (enqueue in transactions of \
         {PER_TXN}; each subscriber consumes every row, one consume per transaction)",
        SUBS.len()
    );
    println!("| engine | how | enqueue rows/s | × SQLite | deliveries/s | × SQLite |");
    println!("|---|---|---|---|---|---|");
    let (mut te, mut td_d, mut le, mut lite_d) = (0f64, 0f64, 0f64, 0f64);
    // enqueue and delivery figures of one run belong together: keep each best separately
    let _ = alternate(
        rounds,
        || {
            let (e, d) = td(n);
            te = te.max(e);
            td_d = td_d.max(d);
            0.0
        },
        || {
            let (e, d) = lite(n);
            le = le.max(e);
            lite_d = lite_d.max(d);
            0.0
        },
    );
    println!(
        "| tdlite | `SUBSCRIBERS (s0, s1, s2)`, `… FOR SUBSCRIBER s` | {te:.0} | {:.2} | {td_d:.0} | {:.2} |",
        te / le,
        td_d / lite_d
    );
    println!(
        "| SQLite | `msg` + `delivery (sub, seq)`, DELETE … RETURNING, last one deletes the message | {le:.0} | — | {lite_d:.0} | — |"
    );
}
