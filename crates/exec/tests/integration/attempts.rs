//! Attempts, expiry and dead letters with real sessions, threads and a database on disk
//! (docs/queues.md, Attempts, expiry and dead letters): the count and the dead letters survive
//! reopen and checkpoint; a session that ends with a consume open counts an attempt; rows a
//! rollback or an expiry moves wake the dead-letter table's consumers; and under 2 producers and 8
//! consumers mixing batch, selective and lease consumes (issue 17's stress), that roll back half
//! their consumes or release their leases or let them run out, every row is consumed once or is
//! dead, and each consume of a row sees as its count the number of failed takes of it before,
//! in memory and on disk.
//! The stress seed is printed; `TDLITE_ATTEMPTS_SEED` replays one, `TDLITE_ATTEMPTS_ROWS`
//! (rows per producer) makes a longer soak.

use crate::common::{rows, seed_from_env, spawn_producers, spawn_take, until_waiting, Rng};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::thread;
use tdlite::{Database, Session};

const DEAD: &str = "CREATE MULTISET TABLE q_dead, QUEUE (qits TIMESTAMP(6) NOT NULL DEFAULT \
                    CURRENT_TIMESTAMP(6), id BIGINT NOT NULL, tries INTEGER, g INTEGER, \
                    why VARCHAR(20))";

fn queue(max: u32) -> String {
    format!(
        "CREATE MULTISET TABLE q, QUEUE, ATTEMPTS (tries), MAX ATTEMPTS {max}, DEAD LETTER TO \
         q_dead (qits TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6), id BIGINT NOT NULL, \
         tries INTEGER, g INTEGER) INDEX (g)"
    )
}

/// Consumes one row in a transaction and rolls it back; the row's `id|tries` as it was taken.
fn attempt(s: &mut Session) -> String {
    let r = s
        .execute("BT; SELECT AND CONSUME TOP 1 id, tries FROM q NOWAIT")
        .unwrap();
    let taken = r[1].rows.as_ref().unwrap().to_strings();
    assert_eq!(s.execute("ROLLBACK").unwrap_err().code().number, 3514);
    taken.first().map(|r| r.join("|")).unwrap_or_default()
}

#[test]
fn counts_and_dead_letters_survive_reopen_and_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    {
        let db = Database::open(dir.path()).unwrap();
        let mut s = db.session();
        s.execute(DEAD).unwrap();
        s.execute(&queue(3)).unwrap();
        s.execute("INS q (TIMESTAMP '2024-01-01 10:00:01', 1, 0, 1)")
            .unwrap();
        s.execute("INS q (TIMESTAMP '2024-01-01 10:00:02', 2, 0, 2)")
            .unwrap();
        assert_eq!(attempt(&mut s), "1|0");
        assert_eq!(attempt(&mut s), "1|1");
    }
    {
        // the counts came back from the log
        let db = Database::open(dir.path()).unwrap();
        assert_eq!(
            rows(&db, "SELECT id, tries FROM q ORDER BY qits"),
            ["1|2", "2|0"]
        );
        db.checkpoint().unwrap();
        let mut s = db.session();
        assert_eq!(attempt(&mut s), "1|2");
    }
    // the third attempt moved the row, after a checkpoint: both come back from disk
    let db = Database::open(dir.path()).unwrap();
    assert_eq!(rows(&db, "SELECT id, tries FROM q"), ["2|0"]);
    assert_eq!(
        rows(&db, "SELECT qits, id, tries, g, why FROM q_dead"),
        ["2024-01-01T10:00:01|1|3|1|MAX ATTEMPTS"]
    );
    // the queue's definition kept its options
    let mut s = db.session();
    assert_eq!(attempt(&mut s), "2|0");
    assert_eq!(rows(&db, "SELECT id, tries FROM q"), ["2|1"]);
}

#[test]
fn a_session_that_ends_with_a_consume_open_counts_an_attempt() {
    let db = Database::new();
    let mut s = db.session();
    s.execute(DEAD).unwrap();
    s.execute(&queue(5)).unwrap();
    s.execute("INS q (CURRENT_TIMESTAMP, 7, NULL, 0)").unwrap();
    {
        let mut worker = db.session();
        worker
            .execute("BT; SELECT AND CONSUME TOP 1 id FROM q")
            .unwrap();
        // the worker goes away without ending its transaction
    }
    assert_eq!(rows(&db, "SELECT id, tries FROM q"), ["7|1"]);
}

#[test]
fn a_waiting_consumer_gets_the_row_a_rollback_counted() {
    let db = Database::new();
    let mut s = db.session();
    s.execute(DEAD).unwrap();
    s.execute(&queue(5)).unwrap();
    s.execute("INS q (CURRENT_TIMESTAMP, 7, 0, 0)").unwrap();
    s.execute("BT; SELECT AND CONSUME TOP 1 id FROM q").unwrap();
    let waiter = spawn_take(
        &db,
        "SELECT AND CONSUME TOP 1 id, tries FROM q WAIT 60 SECONDS",
    );
    until_waiting(&db, "q", 1);
    assert_eq!(s.execute("ROLLBACK").unwrap_err().code().number, 3514);
    assert_eq!(waiter.join().unwrap(), "7|1");
}

/// A queue whose rows expire an hour after their QITS into `q_dead`, and a session on it.
fn expiring_queue() -> (Database, Session) {
    let db = Database::new();
    let mut s = db.session();
    s.execute(DEAD).unwrap();
    s.execute(
        "CREATE MULTISET TABLE q, QUEUE, EXPIRE AFTER 1 HOUR, DEAD LETTER TO q_dead (qits \
         TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6), id BIGINT NOT NULL, tries \
         INTEGER, g INTEGER)",
    )
    .unwrap();
    (db, s)
}

#[test]
fn an_expiry_wakes_a_consumer_of_the_dead_letter_table() {
    let (db, mut s) = expiring_queue();
    let waiter = spawn_take(
        &db,
        "SELECT AND CONSUME TOP 1 id, why FROM q_dead WAIT 60 SECONDS",
    );
    until_waiting(&db, "q_dead", 1);
    s.execute("INS q (CURRENT_TIMESTAMP - INTERVAL '2' HOUR, 5, 0, 0)")
        .unwrap();
    // a consumer of q, waiting too: its take moves the expired row, and it keeps waiting; the
    // move wakes the other consumer now, not when this one's request ends
    let consumer = spawn_take(&db, "SELECT AND CONSUME TOP 1 id FROM q WAIT 60 SECONDS");
    assert_eq!(waiter.join().unwrap(), "5|EXPIRED");
    s.execute("INS q (CURRENT_TIMESTAMP, 6, 0, 0)").unwrap();
    assert_eq!(
        consumer.join().unwrap(),
        "6",
        "the expired row was not taken"
    );
}

#[test]
fn a_take_moves_every_expired_row_at_the_head_however_many() {
    let (db, mut s) = expiring_queue();
    // more expired rows than one move takes (storage's EXPIRE_BATCH, 1,024)
    let mut sql = String::from("BT;");
    for id in 0..2_500 {
        sql += &format!("INS q (CURRENT_TIMESTAMP - INTERVAL '2' HOUR, {id}, 0, 0);");
    }
    sql += "INS q (CURRENT_TIMESTAMP, 9999, 0, 0); ET";
    s.execute(&sql).unwrap();
    assert_eq!(rows(&db, "SELECT AND CONSUME TOP 1 id FROM q"), ["9999"]);
    assert_eq!(rows(&db, "SELECT COUNT(*) FROM q_dead"), ["2500"]);
    assert_eq!(rows(&db, "SELECT COUNT(*) FROM q"), ["0"]);
}

#[test]
fn an_expired_row_that_cannot_move_yet_is_passed_over_not_handed_out() {
    let (db, mut s) = expiring_queue();
    s.execute("INS q (CURRENT_TIMESTAMP - INTERVAL '2' HOUR, 1, 0, 0)")
        .unwrap();
    s.execute("INS q (CURRENT_TIMESTAMP, 2, 0, 0)").unwrap();
    // another session holds the dead-letter table: the expired row cannot move now
    let mut holder = db.session();
    holder
        .execute("BT; LOCKING TABLE q_dead FOR EXCLUSIVE SELECT COUNT(*) FROM q_dead")
        .unwrap();
    assert_eq!(
        rows(&db, "SELECT AND CONSUME TOP 5 id FROM q NOWAIT"),
        ["2"]
    );
    assert_eq!(
        rows(&db, "SELECT AND CONSUME TOP 5 id FROM q NOWAIT"),
        Vec::<String>::new()
    );
    assert_eq!(
        rows(&db, "SELECT id FROM q"),
        ["1"],
        "still there, not handed out"
    );
    holder.execute("ET").unwrap();
    // the next take moves it
    assert_eq!(
        rows(&db, "SELECT AND CONSUME TOP 5 id FROM q NOWAIT"),
        Vec::<String>::new()
    );
    assert_eq!(rows(&db, "SELECT id, why FROM q_dead"), ["1|EXPIRED"]);
}

/// What the stress consumers saw: per id, each consume's count and whether it committed.
type Seen = BTreeMap<i64, Vec<(i64, bool)>>;

#[test]
fn attempts_are_counted_once_per_failure_under_eight_mixed_consumers() {
    let seed = seed_from_env("TDLITE_ATTEMPTS_SEED");
    let rows_each: u64 = std::env::var("TDLITE_ATTEMPTS_ROWS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_500);
    println!("attempts stress seed = {seed} (replay with TDLITE_ATTEMPTS_SEED={seed})");
    let result = std::panic::catch_unwind(|| {
        stress(&Database::new(), seed, rows_each);
        // on disk too: the counts are logged, and a reopen finds what the run left
        let dir = tempfile::tempdir().unwrap();
        let db = Database::open(dir.path()).unwrap();
        let left = stress(&db, seed, rows_each / 4);
        drop(db);
        let db = Database::open(dir.path()).unwrap();
        assert_eq!(dump(&db), left, "the reopened database differs");
    });
    if let Err(e) = result {
        eprintln!("attempts stress test failed with seed {seed}");
        std::panic::resume_unwind(e);
    }
}

const MAX: i64 = 3;

/// Leases the stress consumers took, and those that ran out before their end was asked for.
static LEASES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
static RAN_OUT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// The queue and the dead-letter table, sorted.
fn dump(db: &Database) -> Vec<String> {
    let mut all = rows(db, "SELECT id, tries FROM q");
    all.extend(rows(db, "SELECT id, tries, why FROM q_dead"));
    all.sort();
    all
}

/// Runs the stress on `db` and checks it; returns [`dump`] at the end.
fn stress(db: &Database, seed: u64, rows_each: u64) -> Vec<String> {
    let mut s = db.session();
    s.execute(DEAD).unwrap();
    s.execute(&queue(MAX as u32)).unwrap();
    let produced = Arc::new(Mutex::new(Vec::new()));
    let producers = spawn_producers(
        db,
        (seed, 2, rows_each, 8),
        |_, id| format!("INS q (CURRENT_TIMESTAMP, {id}, 0, {});", id % 4),
        &produced,
    );
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let seen = Arc::new(Mutex::new(Seen::new()));
    let consumers: Vec<_> = (0..8u64)
        .map(|c| {
            let (db, done, seen) = (db.clone(), done.clone(), seen.clone());
            thread::spawn(move || {
                let mut rng = Rng(seed ^ (c + 11).wrapping_mul(0x2545_F491_4F6C_DD1D));
                let mut s = db.session();
                loop {
                    let finished = done.load(std::sync::atomic::Ordering::Acquire);
                    let top = 1 + rng.below(4);
                    // plain, through the index on g, or testing each row; plain once the
                    // producers are done, so that an empty answer means an empty queue
                    let filter = match rng.below(3) {
                        _ if finished => String::new(),
                        0 => String::new(),
                        1 => format!("WHERE g = {}", rng.below(4)),
                        _ => format!("WHERE id MOD 3 = {}", rng.below(3)),
                    };
                    // a quarter of the takes are leases of 2 to 40 ms, acknowledged (the
                    // consume), released or left to run out (a failure, counted)
                    let lease = rng.below(4) == 0;
                    let sql = match lease {
                        true => format!(
                            "SELECT AND CONSUME TOP {top} id, tries FROM q {filter} LEASE \
                             0.{:03} SECONDS NOWAIT",
                            2 + rng.below(39)
                        ),
                        false => format!(
                            "BT; SELECT AND CONSUME TOP {top} id, tries FROM q {filter} NOWAIT"
                        ),
                    };
                    let r = s.execute(&sql).unwrap();
                    let rows = r.last().unwrap().rows.as_ref().unwrap().to_strings();
                    let taken: Vec<(i64, i64)> = rows
                        .iter()
                        .map(|r| (r[0].parse().unwrap(), r[1].parse().unwrap()))
                        .collect();
                    let mut commit = rng.below(2) == 0;
                    if !lease {
                        if commit {
                            s.execute("ET").unwrap();
                        } else {
                            assert_eq!(s.execute("ROLLBACK").unwrap_err().code().number, 3514);
                        }
                    } else if let Some(id) = rows.first().map(|r| r[2].clone()) {
                        LEASES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        if rng.below(4) == 0 {
                            thread::sleep(std::time::Duration::from_millis(rng.below(50)));
                        }
                        let verb = if commit { "ACKNOWLEDGE" } else { "RELEASE" };
                        match s.execute(&format!("{verb} q LEASE {id}")) {
                            Ok(_) => {}
                            // it ran out first: its rows went back, counted
                            Err(e) if e.code().number == 9922 => {
                                commit = false;
                                RAN_OUT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            }
                            Err(e) => panic!("{verb} q LEASE {id}: {e}"),
                        }
                    }
                    let mut seen = seen.lock().unwrap();
                    for &(id, tries) in &taken {
                        seen.entry(id).or_default().push((tries, commit));
                    }
                    drop(seen);
                    if taken.is_empty() {
                        if finished {
                            return;
                        }
                        thread::yield_now();
                    }
                }
            })
        })
        .collect();
    for p in producers {
        p.join().unwrap();
    }
    done.store(true, std::sync::atomic::Ordering::Release);
    for c in consumers {
        c.join().unwrap();
    }
    let produced = produced.lock().unwrap().clone();
    assert!(!produced.is_empty(), "the producers committed nothing");
    let seen = seen.lock().unwrap();
    let dead: BTreeMap<i64, String> = rows(db, "SELECT id, tries, why FROM q_dead")
        .into_iter()
        .map(|r| {
            let (id, rest) = r.split_once('|').unwrap();
            (id.parse().unwrap(), rest.to_string())
        })
        .collect();
    let stuck = rows(db, "SELECT id, tries FROM q");
    let history: Vec<_> = stuck
        .iter()
        .map(|r| seen.get(&r.split('|').next().unwrap().parse::<i64>().unwrap()))
        .collect();
    assert!(
        stuck.is_empty(),
        "rows left in the queue: {stuck:?}, consumes seen: {history:?}"
    );
    let mut committed = 0;
    for id in &produced {
        let mut consumes = seen.get(id).cloned().unwrap_or_default();
        consumes.sort();
        // each consume saw the number of rolled-back consumes before it, once each
        let counts: Vec<i64> = consumes.iter().map(|c| c.0).collect();
        assert_eq!(
            counts,
            (0..consumes.len() as i64).collect::<Vec<_>>(),
            "id {id}: counts seen {consumes:?}"
        );
        let commits = consumes.iter().filter(|c| c.1).count();
        match dead.get(id) {
            Some(rest) => {
                assert_eq!(commits, 0, "id {id} is dead and was consumed: {consumes:?}");
                assert_eq!(consumes.len() as i64, MAX, "id {id}: {consumes:?}");
                assert_eq!(rest, &format!("{MAX}|MAX ATTEMPTS"), "id {id}");
            }
            None => {
                assert_eq!(
                    commits, 1,
                    "id {id} neither consumed once nor dead: {consumes:?}"
                );
                assert!(
                    consumes.last().unwrap().1,
                    "id {id}: a consume after the commit"
                );
                committed += 1;
            }
        }
    }
    assert_eq!(
        seen.len(),
        produced.len(),
        "a consume returned a row never committed"
    );
    assert_eq!(committed + dead.len(), produced.len());
    let dead_lettered = rows(
        db,
        "SELECT DeadLettered FROM DBC.QueueStatsV WHERE TableName = 'q'",
    );
    assert_eq!(dead_lettered, [dead.len().to_string()]);
    let leases = LEASES.swap(0, std::sync::atomic::Ordering::Relaxed);
    let ran_out = RAN_OUT.swap(0, std::sync::atomic::Ordering::Relaxed);
    println!(
        "attempts stress: {} rows, {committed} consumed, {} dead; {leases} leases, {ran_out} ran out",
        produced.len(),
        dead.len()
    );
    assert!(leases > 0, "no lease took a row");
    assert!(ran_out > 0, "no lease ran out before its end was asked for");
    dump(db)
}
