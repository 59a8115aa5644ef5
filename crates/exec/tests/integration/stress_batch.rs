//! Batch consume and the wait clause under concurrency (issue 17, docs/queues.md): 2 producers
//! and 8 consumers that take `TOP k` batches (k from 1 to 40) with `NOWAIT` or a bounded
//! `WAIT`, commit or roll back at random: every committed row is consumed exactly once, and
//! each batch comes out in QITS order. Then a stable queue of distinct QITS (no producers, every
//! take committed): each batch is a run of consecutive rows of the queue's order, so no other
//! consumer took a row between two rows of one batch. The seed is printed; `TDLITE_BATCH_SEED`
//! replays one, `TDLITE_BATCH_ROWS` (rows per producer) makes a longer soak.

use crate::common::{assert_exactly_once, depth, seed_from_env, spawn_producers, Rng};
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;
use tdlite::{Database, Session};

const QUEUE: &str = "CREATE MULTISET TABLE q, QUEUE (qits TIMESTAMP(6) NOT NULL DEFAULT \
                     CURRENT_TIMESTAMP(6), id BIGINT NOT NULL)";

#[test]
fn batches_are_exactly_once_and_in_order_under_eight_consumers() {
    let seed = seed_from_env("TDLITE_BATCH_SEED");
    let rows: u64 = std::env::var("TDLITE_BATCH_ROWS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(6_000);
    println!("batch stress seed = {seed} (replay with TDLITE_BATCH_SEED={seed})");
    let result = std::panic::catch_unwind(|| {
        with_producers(seed, rows);
        stable_queue(seed, rows);
    });
    if let Err(e) = result {
        eprintln!("batch stress test failed with seed {seed}");
        std::panic::resume_unwind(e);
    }
}

/// One consume's rows: (QITS as text, id), in the order they came.
fn take(s: &mut Session, sql: &str) -> Result<Vec<(String, i64)>, u32> {
    let r = s.execute(sql).map_err(|e| e.code().number)?;
    let rows = r[0].rows.as_ref().expect("a consume returns rows");
    Ok(rows
        .to_strings()
        .into_iter()
        .map(|row| (row[0].clone(), row[1].parse().expect("an id")))
        .collect())
}

fn with_producers(seed: u64, rows_per_producer: u64) {
    const PRODUCERS: u64 = 2;
    const CONSUMERS: u64 = 8;
    let db = Database::new();
    db.session().execute(QUEUE).unwrap();
    let produced = Arc::new(Mutex::new(Vec::new()));
    let consumed = Arc::new(Mutex::new(Vec::new()));
    let done = Arc::new(AtomicBool::new(false));
    let producers = spawn_producers(
        &db,
        (seed, PRODUCERS, rows_per_producer, 50),
        |_, id| format!("INS q (CURRENT_TIMESTAMP, {id});"),
        &produced,
    );
    let consumers: Vec<_> = (0..CONSUMERS)
        .map(|c| {
            let (db, consumed, done) = (db.clone(), consumed.clone(), done.clone());
            thread::spawn(move || {
                let mut rng = Rng(seed ^ (c + 101).wrapping_mul(0xD1B5_4A32_D192_ED03));
                let mut s = db.session();
                loop {
                    let k = 1 + rng.below(40);
                    let wait = match rng.below(3) {
                        0 => "NOWAIT".to_string(),
                        _ => format!("WAIT 0.{:03} SECONDS", rng.below(20)),
                    };
                    let sql = format!(
                        "SELECT AND CONSUME TOP {k} CAST(qits AS VARCHAR(30)), id FROM q {wait}"
                    );
                    s.execute("BT").unwrap();
                    let took = match take(&mut s, &sql) {
                        Ok(took) => took,
                        // a WAIT that ran out fails the transaction (Teradata mode)
                        Err(9904) => Vec::new(),
                        Err(e) => panic!("unexpected error {e}"),
                    };
                    assert!(took.len() <= k as usize, "{} rows for TOP {k}", took.len());
                    for pair in took.windows(2) {
                        assert!(
                            pair[0].0 <= pair[1].0,
                            "a batch out of QITS order: {took:?}"
                        );
                    }
                    if took.is_empty() {
                        let _ = s.execute("ET");
                        if done.load(Ordering::Acquire) && depth(&mut s) == 0 {
                            break;
                        }
                        continue;
                    }
                    if rng.below(4) == 0 {
                        assert_eq!(s.execute("ABORT").unwrap_err().code().number, 3514);
                    } else {
                        s.execute("ET").unwrap();
                        consumed
                            .lock()
                            .unwrap()
                            .extend(took.into_iter().map(|(_, id)| id));
                    }
                }
            })
        })
        .collect();
    for p in producers {
        p.join().unwrap();
    }
    done.store(true, Ordering::Release);
    for c in consumers {
        c.join().unwrap();
    }
    let n = assert_exactly_once(&produced.lock().unwrap(), &consumed.lock().unwrap());
    println!("{n} rows produced and consumed exactly once");
}

/// A stable queue of distinct QITS in a shuffled order: 8 consumers taking committed batches
/// together take every row once, and each batch is consecutive in QITS order.
fn stable_queue(seed: u64, rows: u64) {
    const CONSUMERS: u64 = 8;
    let db = Database::new();
    let mut s = db.session();
    s.execute(QUEUE).unwrap();
    // row i gets the QITS of position perm(i): distinct, inserted out of order
    let mut positions: Vec<u64> = (0..rows).collect();
    let mut rng = Rng(seed ^ 0x5151);
    for i in (1..positions.len()).rev() {
        positions.swap(i, rng.below(i as u64 + 1) as usize);
    }
    for chunk in positions.chunks(500) {
        let mut sql = String::from("BT;");
        for &p in chunk {
            sql.push_str(&format!(
                "INS q (TIMESTAMP '2024-01-01 00:00:00' + INTERVAL '{}.{:06}' SECOND(4,6), {p});",
                p / 1_000_000,
                p % 1_000_000
            ));
        }
        sql.push_str("ET;");
        s.execute(&sql).unwrap();
    }
    let workers: Vec<_> = (0..CONSUMERS)
        .map(|c| {
            let db = db.clone();
            thread::spawn(move || {
                let mut rng = Rng(seed ^ (c + 7).wrapping_mul(0x2545_F491_4F6C_DD1D));
                let mut s = db.session();
                s.set_consume_timeout(Some(Duration::ZERO));
                let mut batches = Vec::new();
                loop {
                    let k = 1 + rng.below(60);
                    let sql = format!(
                        "SELECT AND CONSUME TOP {k} CAST(qits AS VARCHAR(30)), id FROM q NOWAIT"
                    );
                    let took = take(&mut s, &sql).unwrap();
                    if took.is_empty() {
                        break;
                    }
                    batches.push(took.into_iter().map(|(_, id)| id).collect::<Vec<_>>());
                }
                batches
            })
        })
        .collect();
    let mut seen = HashSet::new();
    for w in workers {
        for batch in w.join().unwrap() {
            // the id is the row's position in QITS order: a batch is a run of positions
            for pair in batch.windows(2) {
                assert_eq!(
                    pair[1],
                    pair[0] + 1,
                    "a batch is not consecutive: {batch:?}"
                );
            }
            for id in batch {
                assert!(seen.insert(id), "row {id} taken twice");
            }
        }
    }
    assert_eq!(seen.len() as u64, rows, "rows were lost");
}
