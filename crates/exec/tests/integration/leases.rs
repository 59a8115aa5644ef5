//! Leases with real sessions and threads (docs/queues.md, Leases): a session that ends gives
//! its leases back and wakes a waiting consumer; an acknowledgement after a lease ended is
//! refused (the rows may be another's); and
//! under 2 producers and 6 consumers that lease rows for a few milliseconds and acknowledge,
//! release or forget them (letting the lease run out), every row is acknowledged exactly once.
//! The stress seed is printed; `TDLITE_LEASE_SEED` replays one, `TDLITE_LEASE_ROWS` (rows per
//! producer) makes a longer soak.

use crate::common::{rows, seed_from_env, spawn_producers, spawn_take, until_waiting, Rng};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;
use tdlite::{Database, Session};

const QUEUE: &str = "CREATE MULTISET TABLE q, QUEUE, ATTEMPTS (tries) (qits TIMESTAMP(6) NOT \
                     NULL DEFAULT CURRENT_TIMESTAMP(6), id BIGINT NOT NULL, tries INTEGER \
                     NOT NULL DEFAULT 0)";

/// A lease of up to `top` rows for `secs`: (lease number, the ids), or `None` if nothing came.
fn lease(s: &mut Session, top: u64, secs: &str) -> Option<(i64, Vec<i64>)> {
    let r = s
        .execute(&format!(
            "SELECT AND CONSUME TOP {top} id FROM q LEASE {secs} SECONDS NOWAIT"
        ))
        .unwrap();
    let taken = r[0].rows.as_ref().unwrap().to_strings();
    let id = taken.first()?[1].parse().unwrap();
    Some((id, taken.iter().map(|r| r[0].parse().unwrap()).collect()))
}

#[test]
fn a_session_that_ends_gives_its_leases_back_to_a_waiting_consumer() {
    let db = Database::new();
    let mut s = db.session();
    s.execute(QUEUE).unwrap();
    s.execute("INS q (CURRENT_TIMESTAMP, 1, 0)").unwrap();
    let mut holder = db.session();
    let (_, ids) = lease(&mut holder, 1, "3600").unwrap();
    assert_eq!(ids, [1]);
    let waiter = spawn_take(
        &db,
        "SELECT AND CONSUME TOP 1 id, tries FROM q WAIT 60 SECONDS",
    );
    until_waiting(&db, "q", 1);
    drop(holder);
    assert_eq!(
        waiter.join().unwrap(),
        "1|1",
        "back, with an attempt counted"
    );
}

#[test]
fn a_lease_that_ends_wakes_a_consumer_that_slept_before_it_was_taken() {
    let db = Database::new();
    db.session().execute(QUEUE).unwrap();
    // W1 waits to lease a row, then keeps its session (and lease) open until told
    let (done, hold) = std::sync::mpsc::channel::<()>();
    let w1 = {
        let db = db.clone();
        thread::spawn(move || {
            let mut c = db.session();
            let r = c
                .execute("SELECT AND CONSUME TOP 1 id FROM q LEASE 0.2 SECONDS WAIT 60 SECONDS")
                .unwrap();
            let got = r[0].rows.as_ref().unwrap().to_strings()[0][0].clone();
            hold.recv().unwrap();
            got
        })
    };
    until_waiting(&db, "q", 1);
    // W2 waits too, with no timer: there is no lease yet
    let w2 = spawn_take(
        &db,
        "SELECT AND CONSUME TOP 1 id, tries FROM q WAIT 60 SECONDS",
    );
    until_waiting(&db, "q", 2);
    db.session()
        .execute("INS q (CURRENT_TIMESTAMP, 1, 0)")
        .unwrap();
    // W1 leases it; when the lease ends nothing takes from the queue but W2, which the new
    // lease woke to set its timer
    assert_eq!(w2.join().unwrap(), "1|1");
    done.send(()).unwrap();
    assert_eq!(w1.join().unwrap(), "1");
}

#[test]
fn a_request_that_fails_gives_back_the_lease_it_took() {
    let db = Database::new();
    let mut s = db.session();
    s.execute(QUEUE).unwrap();
    s.execute("INS q (CURRENT_TIMESTAMP, 1, 0)").unwrap();
    // the lease number never reaches the client: the lease must not outlive the request
    let err = s
        .execute("SELECT AND CONSUME TOP 1 id FROM q LEASE 1 HOUR; SELECT 1 / 0")
        .unwrap_err();
    assert_eq!(err.code().number, 2618);
    assert_eq!(
        rows(&db, "SELECT AND CONSUME TOP 1 id, tries FROM q NOWAIT"),
        ["1|1"]
    );
    let locks = rows(&db, "HELP LOCKS");
    assert!(locks.is_empty(), "no lock left behind: {locks:?}");
}

#[test]
fn a_later_request_that_fails_keeps_the_lease_an_earlier_one_took() {
    let db = Database::new();
    let mut s = db.session();
    s.execute(QUEUE).unwrap();
    s.execute("INS q (CURRENT_TIMESTAMP, 1, 0)").unwrap();
    let (lease_id, _) = lease(&mut s, 1, "3600").unwrap();
    assert_eq!(s.execute("SELEC oops").unwrap_err().code().number, 3706);
    assert_eq!(s.execute("SELECT 1 / 0").unwrap_err().code().number, 2618);
    assert!(lease(&mut db.session(), 1, "1").is_none(), "still leased");
    let r = s
        .execute(&format!("ACKNOWLEDGE q LEASE {lease_id}"))
        .unwrap();
    assert_eq!(r[0].activity_count, 1);
}

#[test]
fn a_release_under_the_sessions_own_table_lock() {
    let db = Database::new();
    let mut s = db.session();
    s.execute(QUEUE).unwrap();
    s.execute("INS q (CURRENT_TIMESTAMP, 1, 0)").unwrap();
    let (lease_id, _) = lease(&mut s, 1, "3600").unwrap();
    s.execute("BT; LOCKING TABLE q FOR WRITE SELECT COUNT(*) FROM q")
        .unwrap();
    let r = s.execute(&format!("RELEASE q LEASE {lease_id}")).unwrap();
    assert_eq!(r[0].activity_count, 1);
    s.execute("ET").unwrap();
    assert_eq!(
        rows(&db, "SELECT AND CONSUME TOP 1 id, tries FROM q NOWAIT"),
        ["1|1"]
    );
}

#[test]
fn an_acknowledgement_rolled_back_re_times_a_sleeping_consumer() {
    let db = Database::new();
    let mut s = db.session();
    s.execute(QUEUE).unwrap();
    s.execute("INS q (CURRENT_TIMESTAMP, 1, 0)").unwrap();
    let (lease_id, _) = lease(&mut s, 1, "0.2").unwrap();
    s.execute(&format!("BT; ACKNOWLEDGE q LEASE {lease_id}"))
        .unwrap();
    // no lease now: the consumer sleeps with no timer
    let waiter = spawn_take(
        &db,
        "SELECT AND CONSUME TOP 1 id, tries FROM q WAIT 60 SECONDS",
    );
    until_waiting(&db, "q", 1);
    assert_eq!(s.execute("ROLLBACK").unwrap_err().code().number, 3514);
    // the lease is back, and ends: the consumer set its timer for it
    assert_eq!(waiter.join().unwrap(), "1|1");
}

#[test]
fn a_database_that_closes_ends_its_leases_and_keeps_what_was_deleted() {
    let dir = tempfile::tempdir().unwrap();
    {
        let db = Database::open(dir.path()).unwrap();
        let mut s = db.session();
        s.execute(QUEUE).unwrap();
        s.execute("INS q (TIMESTAMP '2024-01-01 10:00:00', 1, 0)")
            .unwrap();
        s.execute("INS q (TIMESTAMP '2024-01-01 10:00:01', 2, 0)")
            .unwrap();
        let (_, ids) = lease(&mut s, 2, "3600").unwrap();
        assert_eq!(ids, [1, 2]);
        let mut other = db.session();
        let r = other
            .execute("SELECT AND CONSUME TOP 1 id FROM q NOWAIT")
            .unwrap();
        assert!(
            r[0].rows.as_ref().unwrap().to_strings().is_empty(),
            "both leased"
        );
        // a leased row is an ordinary row to a DELETE
        other.execute("DELETE FROM q WHERE id = 1").unwrap();
        // the session, then the database, end with the lease still running
    }
    let db = Database::open(dir.path()).unwrap();
    assert_eq!(
        rows(&db, "SELECT AND CONSUME TOP 5 id, tries FROM q NOWAIT"),
        ["2|1"],
        "the session that ended gave its lease back, counting an attempt"
    );
}

#[test]
fn an_acknowledgement_after_the_lease_ended_is_refused() {
    let db = Database::new();
    let mut s = db.session();
    s.execute(QUEUE).unwrap();
    s.execute("INS q (CURRENT_TIMESTAMP, 1, 0)").unwrap();
    let (lease_id, _) = lease(&mut s, 1, "0.001").unwrap();
    thread::sleep(Duration::from_millis(5));
    // another consumer's take ends the lease and gets the row
    let mut other = db.session();
    let (_, ids) = lease(&mut other, 1, "3600").unwrap();
    assert_eq!(ids, [1]);
    let err = s
        .execute(&format!("ACKNOWLEDGE q LEASE {lease_id}"))
        .unwrap_err();
    assert_eq!(err.code().number, 9922);
    assert_eq!(
        rows(&db, "SELECT COUNT(*) FROM q"),
        ["1"],
        "the row is the other's"
    );
}

#[test]
fn leases_are_acknowledged_exactly_once_under_six_consumers() {
    let seed = seed_from_env("TDLITE_LEASE_SEED");
    let rows_each: u64 = std::env::var("TDLITE_LEASE_ROWS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000);
    println!("lease stress seed = {seed} (replay with TDLITE_LEASE_SEED={seed})");
    let result = std::panic::catch_unwind(|| stress(seed, rows_each));
    if let Err(e) = result {
        eprintln!("lease stress test failed with seed {seed}");
        std::panic::resume_unwind(e);
    }
}

fn stress(seed: u64, rows_each: u64) {
    let db = Database::new();
    db.session().execute(QUEUE).unwrap();
    let produced = Arc::new(Mutex::new(Vec::new()));
    let producers = spawn_producers(
        &db,
        (seed, 2, rows_each, 8),
        |_, id| format!("INS q (CURRENT_TIMESTAMP, {id}, 0);"),
        &produced,
    );
    let done = Arc::new(AtomicBool::new(false));
    // id → how many times an acknowledgement deleted it
    let acked = Arc::new(Mutex::new(HashMap::<i64, u32>::new()));
    let counts = Arc::new(Mutex::new([0u64; 4]));
    let consumers: Vec<_> = (0..6u64)
        .map(|c| {
            let (db, done, acked, counts) =
                (db.clone(), done.clone(), acked.clone(), counts.clone());
            thread::spawn(move || {
                let mut rng = Rng(seed ^ (c + 5).wrapping_mul(0x9E37_79B9_7F4A_7C15));
                let mut s = db.session();
                loop {
                    let finished = done.load(Ordering::Acquire);
                    let Some((lease_id, ids)) = lease(&mut s, 1 + rng.below(4), "0.003") else {
                        if finished && rows(&db, "SELECT COUNT(*) FROM q") == ["0"] {
                            return;
                        }
                        thread::sleep(Duration::from_millis(1));
                        continue;
                    };
                    match rng.below(8) {
                        // let the lease run out (its rows come back by themselves)
                        0 => {
                            thread::sleep(Duration::from_millis(4));
                            counts.lock().unwrap()[0] += 1;
                        }
                        1 => {
                            let r = s.execute(&format!("RELEASE q LEASE {lease_id}"));
                            counts.lock().unwrap()[1] += 1;
                            // it may have run out already
                            assert!(r.is_ok() || r.unwrap_err().code().number == 9922);
                        }
                        k => {
                            if k == 2 {
                                // past the lease's end: the acknowledgement may be refused
                                thread::sleep(Duration::from_millis(4));
                            }
                            match s.execute(&format!("ACKNOWLEDGE q LEASE {lease_id}")) {
                                Ok(r) => {
                                    assert_eq!(
                                        r[0].activity_count,
                                        ids.len() as u64,
                                        "lease {lease_id} of {ids:?}: rows missing"
                                    );
                                    let mut acked = acked.lock().unwrap();
                                    for id in ids {
                                        *acked.entry(id).or_default() += 1;
                                    }
                                    counts.lock().unwrap()[2] += 1;
                                }
                                Err(e) => {
                                    assert_eq!(e.code().number, 9922);
                                    counts.lock().unwrap()[3] += 1;
                                }
                            }
                        }
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
    let produced = produced.lock().unwrap().clone();
    assert!(!produced.is_empty(), "the producers committed nothing");
    let acked = acked.lock().unwrap();
    let twice: Vec<_> = acked.iter().filter(|(_, n)| **n != 1).collect();
    assert!(twice.is_empty(), "acknowledged more than once: {twice:?}");
    let mut got: Vec<i64> = acked.keys().copied().collect();
    got.sort_unstable();
    let mut want = produced;
    want.sort_unstable();
    assert_eq!(
        got, want,
        "every committed row is acknowledged, nothing else"
    );
    let [ran_out, released, acknowledged, refused] = *counts.lock().unwrap();
    println!(
        "lease stress: {} rows; leases ran out {ran_out}, released {released}, acknowledged \
         {acknowledged}, refused after their end {refused}",
        want.len()
    );
    assert!(
        ran_out > 0 && released > 0 && refused > 0,
        "a path was not exercised"
    );
}
