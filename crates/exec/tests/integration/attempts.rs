//! Attempts, expiry and dead letters with real sessions, threads and a database on disk
//! (docs/queues.md, Attempts, expiry and dead letters): the count and the dead letters survive
//! reopen and checkpoint; a session that ends with a consume open counts an attempt; rows a
//! rollback or an expiry moves wake the dead-letter table's consumers; and under 2 producers and 6
//! consumers that roll back half their consumes, every row is consumed once or is dead, and
//! each consume of a row sees as its count the number of rolled-back consumes of it before.
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
fn attempts_are_counted_once_per_rollback_under_six_consumers() {
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
    let consumers: Vec<_> = (0..6u64)
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
                    let r = s
                        .execute(&format!(
                            "BT; SELECT AND CONSUME TOP {top} id, tries FROM q {filter} NOWAIT"
                        ))
                        .unwrap();
                    let taken: Vec<(i64, i64)> = r[1]
                        .rows
                        .as_ref()
                        .unwrap()
                        .to_strings()
                        .iter()
                        .map(|r| (r[0].parse().unwrap(), r[1].parse().unwrap()))
                        .collect();
                    let commit = rng.below(2) == 0;
                    if commit {
                        s.execute("ET").unwrap();
                    } else {
                        assert_eq!(s.execute("ROLLBACK").unwrap_err().code().number, 3514);
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
    println!(
        "attempts stress: {} rows, {committed} consumed, {} dead",
        produced.len(),
        dead.len()
    );
    dump(db)
}
