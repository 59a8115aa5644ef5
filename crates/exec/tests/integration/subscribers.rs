//! Queues with subscribers under real sessions and threads (docs/queues.md, Subscribers): the
//! last two copies of a row consumed in two open transactions leave the row exactly when the
//! second of them commits; the copies' counts survive a reopen (from the log and from a
//! checkpoint); a waiting subscriber is woken by an insert and told when it is dropped; DROP
//! TABLE of the queue waits for an open consume of a subscriber's row and tells the waiting
//! ones; SHOW TABLE's text makes the queue with the subscribers it has now; and
//! under 2 producers and 6 consumers of 3 subscribers (rolling back a quarter of their
//! consumes) while a fourth subscriber is dropped, each subscriber gets every committed row
//! exactly once and the queue ends empty, in memory and on disk. The stress seed is printed;
//! `TDLITE_SUBSCRIBERS_SEED` replays one, `TDLITE_SUBSCRIBERS_ROWS` (rows per producer) makes a
//! longer soak.

use crate::common::{
    assert_exactly_once, ints, rows, seed_from_env, spawn_producers, until_waiting, Rng,
};
use std::sync::{Arc, Mutex};
use std::thread;
use tdlite::{Database, Session};

const QUEUE: &str = "CREATE MULTISET TABLE q, QUEUE, SUBSCRIBERS (a, b, c, temp) (qits \
                     TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6), id BIGINT NOT NULL)";

/// The ids subscriber `sub` consumes, up to `top` of them, without waiting.
fn take(s: &mut Session, sub: &str, top: u64) -> Vec<i64> {
    let r = s
        .execute(&format!(
            "SELECT AND CONSUME TOP {top} id FROM q FOR SUBSCRIBER {sub} NOWAIT"
        ))
        .unwrap();
    r[0].rows
        .as_ref()
        .unwrap()
        .to_strings()
        .iter()
        .map(|r| r[0].parse().unwrap())
        .collect()
}

/// Creates queue `q (qits, id)` with `subscribers` (`"a, b"`) in session `s`.
fn create(s: &mut Session, subscribers: &str) {
    s.execute(&format!(
        "CREATE TABLE q, QUEUE, SUBSCRIBERS ({subscribers}) (qits TIMESTAMP(6) NOT NULL \
         DEFAULT CURRENT_TIMESTAMP(6), id BIGINT NOT NULL)"
    ))
    .unwrap();
}

fn count(db: &Database) -> i64 {
    ints(db, "SELECT COUNT(*) FROM q")[0]
}

#[test]
fn the_last_copy_committed_takes_the_row_whichever_commits_first() {
    for a_first in [true, false] {
        let db = Database::new();
        let mut s = db.session();
        create(&mut s, "a, b");
        s.execute("INS q (CURRENT_TIMESTAMP, 1)").unwrap();
        let (mut a, mut b) = (db.session(), db.session());
        a.execute("BT").unwrap();
        b.execute("BT").unwrap();
        assert_eq!(take(&mut a, "a", 1), [1]);
        assert_eq!(take(&mut b, "b", 1), [1]);
        // both copies taken, neither committed: the row is there for everyone else
        assert_eq!(count(&db), 1);
        let (first, second) = if a_first {
            (&mut a, &mut b)
        } else {
            (&mut b, &mut a)
        };
        first.execute("ET").unwrap();
        assert_eq!(count(&db), 1, "one subscriber still has it");
        second.execute("ET").unwrap();
        assert_eq!(count(&db), 0, "both consumed it: gone");
    }
}

#[test]
fn a_rolled_back_last_copy_keeps_the_row_for_its_subscriber() {
    let db = Database::new();
    let mut s = db.session();
    create(&mut s, "a, b");
    s.execute("INS q (CURRENT_TIMESTAMP, 1)").unwrap();
    let (mut a, mut b) = (db.session(), db.session());
    a.execute("BT").unwrap();
    b.execute("BT").unwrap();
    assert_eq!(take(&mut a, "a", 1), [1]);
    assert_eq!(take(&mut b, "b", 1), [1]);
    a.execute("ET").unwrap();
    assert_eq!(b.execute("ROLLBACK").unwrap_err().code().number, 3514);
    assert_eq!(count(&db), 1);
    assert_eq!(take(&mut b, "b", 1), [1], "b's copy is back");
    assert_eq!(
        take(&mut a, "a", 1),
        Vec::<i64>::new(),
        "a's stays consumed"
    );
    assert_eq!(count(&db), 0);
}

#[test]
fn copies_are_counted_again_at_reopen_from_the_log_and_from_a_checkpoint() {
    for checkpoint in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        {
            let db = Database::open(dir.path()).unwrap();
            let mut s = db.session();
            create(&mut s, "a, b");
            for id in 1..=4 {
                s.execute(&format!("INS q (CURRENT_TIMESTAMP, {id})"))
                    .unwrap();
            }
            assert_eq!(take(&mut s, "a", 3), [1, 2, 3]);
            assert_eq!(take(&mut s, "b", 1), [1]);
            if checkpoint {
                db.checkpoint().unwrap();
            }
        }
        let db = Database::open(dir.path()).unwrap();
        let mut s = db.session();
        assert_eq!(
            ints(&db, "SELECT id FROM q ORDER BY id"),
            [2, 3, 4],
            "checkpoint {checkpoint}"
        );
        assert_eq!(take(&mut s, "b", 3), [2, 3, 4]);
        assert_eq!(ints(&db, "SELECT id FROM q ORDER BY id"), [4]);
        assert_eq!(take(&mut s, "a", 3), [4]);
        assert_eq!(count(&db), 0, "checkpoint {checkpoint}");
    }
}

#[test]
fn a_waiting_subscriber_wakes_for_an_insert_and_hears_of_its_drop() {
    let db = Database::new();
    create(&mut db.session(), "a, b");
    let waiter = |sub: &'static str| {
        let db = db.clone();
        thread::spawn(move || {
            db.session().execute(&format!(
                "SELECT AND CONSUME TOP 1 id FROM q FOR SUBSCRIBER {sub} WAIT 60 SECONDS"
            ))
        })
    };
    let a = waiter("a");
    until_waiting(&db, "q FOR SUBSCRIBER a", 1);
    db.session()
        .execute("INS q (CURRENT_TIMESTAMP, 7)")
        .unwrap();
    let got = a.join().unwrap().unwrap();
    assert_eq!(got[0].rows.as_ref().unwrap().to_strings(), [["7"]]);
    let b = waiter("a");
    until_waiting(&db, "q FOR SUBSCRIBER a", 1);
    db.session().execute("DROP SUBSCRIBER a ON q").unwrap();
    assert_eq!(b.join().unwrap().unwrap_err().code().number, 9906);
    assert_eq!(rows(&db, "SELECT id FROM q"), ["7"], "b still has row 7");
}

/// The stress: see the module docs.
fn stress(db: &Database) {
    let seed = seed_from_env("TDLITE_SUBSCRIBERS_SEED");
    let per_producer: u64 = std::env::var("TDLITE_SUBSCRIBERS_ROWS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_500);
    println!("subscribers stress seed {seed} (TDLITE_SUBSCRIBERS_SEED), {per_producer} rows per producer");
    db.session().execute(QUEUE).unwrap();
    let produced = Arc::new(Mutex::new(Vec::new()));
    let producers = spawn_producers(
        db,
        (seed, 2, per_producer, 20),
        |_, id| format!("INS q (CURRENT_TIMESTAMP, {id});"),
        &produced,
    );
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let consumers: Vec<_> = (0..6u64)
        .map(|c| {
            let (db, done) = (db.clone(), done.clone());
            let sub = ["a", "b", "c"][(c % 3) as usize];
            thread::spawn(move || {
                let mut rng = Rng(seed ^ (c + 11).wrapping_mul(0x9E37_79B9_7F4A_7C15));
                let mut s = db.session();
                let mut mine = Vec::new();
                loop {
                    // read before the take: an empty take after the producers finished means
                    // the subscriber's queue is drained (its other consumer commits or rolls
                    // back before it stops too)
                    let finished = done.load(std::sync::atomic::Ordering::Acquire);
                    s.execute("BT").unwrap();
                    let got = take(&mut s, sub, 1 + rng.below(5));
                    if rng.below(4) == 0 {
                        assert_eq!(s.execute("ROLLBACK").unwrap_err().code().number, 3514);
                        continue;
                    }
                    s.execute("ET").unwrap();
                    if got.is_empty() {
                        if finished {
                            return (sub, mine);
                        }
                        thread::yield_now();
                    }
                    mine.extend(got);
                }
            })
        })
        .collect();
    // a fourth subscriber, consumed a little, then dropped while the others go on
    let mut temp = db.session();
    thread::sleep(std::time::Duration::from_millis(20));
    take(&mut temp, "temp", 50);
    temp.execute("DROP SUBSCRIBER temp ON q").unwrap();
    for p in producers {
        p.join().unwrap();
    }
    done.store(true, std::sync::atomic::Ordering::Release);
    let mut by_sub: std::collections::HashMap<&str, Vec<i64>> = Default::default();
    for c in consumers {
        let (sub, ids) = c.join().unwrap();
        by_sub.entry(sub).or_default().extend(ids);
    }
    let produced = produced.lock().unwrap().clone();
    for sub in ["a", "b", "c"] {
        // a consumer can stop while the other still holds rows it then rolls back: drain
        let mut s = db.session();
        let mut ids = by_sub.remove(sub).unwrap_or_default();
        ids.extend(take(&mut s, sub, 1_000_000));
        let n = assert_exactly_once(&produced, &ids);
        println!("subscriber {sub}: {n} rows, each once");
    }
    assert_eq!(
        count(db),
        0,
        "every subscriber consumed every row: the queue is empty"
    );
}

#[test]
fn stress_each_subscriber_gets_every_row_once_in_memory() {
    stress(&Database::new());
}

#[test]
fn stress_each_subscriber_gets_every_row_once_on_disk() {
    let dir = tempfile::tempdir().unwrap();
    let db = Database::open(dir.path()).unwrap();
    stress(&db);
    drop(db);
    let db = Database::open(dir.path()).unwrap();
    assert_eq!(count(&db), 0, "and after a reopen");
}

#[test]
fn show_table_makes_the_queue_with_the_subscribers_it_has_now() {
    let db = Database::new();
    let mut s = db.session();
    create(&mut s, "a, b");
    s.execute("DROP SUBSCRIBER b ON q").unwrap();
    s.execute("CREATE SUBSCRIBER c ON q").unwrap();
    let shown = rows(&db, "SHOW TABLE q").join("\n");
    assert!(
        shown.ends_with("DROP SUBSCRIBER \"b\" ON \"q\";\nCREATE SUBSCRIBER \"c\" ON \"q\";"),
        "{shown}"
    );
    // its text, run as a script in another database (a request per statement), makes the
    // same queue
    let other = Database::new();
    for statement in shown.split(";\n") {
        other.session().execute(statement).unwrap();
    }
    other
        .session()
        .execute("INS q (CURRENT_TIMESTAMP, 1)")
        .unwrap();
    let mut o = other.session();
    assert_eq!(take(&mut o, "a", 1), [1]);
    assert_eq!(take(&mut o, "c", 1), [1]);
    assert_eq!(ints(&other, "SELECT COUNT(*) FROM q"), [0]);
}

#[test]
fn dropping_the_queue_waits_for_subscribers_consumes_and_wakes_their_waiters() {
    let db = Database::new();
    let mut s = db.session();
    create(&mut s, "a, b");
    s.execute("INS q (CURRENT_TIMESTAMP, 1)").unwrap();
    // a consume of b's row in an open transaction holds the queue: DROP TABLE waits for it
    let mut holder = db.session();
    holder.execute("BT").unwrap();
    assert_eq!(take(&mut holder, "b", 1), [1]);
    let waiter = {
        let db = db.clone();
        thread::spawn(move || {
            db.session()
                .execute("SELECT AND CONSUME TOP 1 id FROM q FOR SUBSCRIBER b WAIT 60 SECONDS")
        })
    };
    until_waiting(&db, "q FOR SUBSCRIBER b", 1);
    let dropper = {
        let db = db.clone();
        thread::spawn(move || db.session().execute("DROP TABLE q"))
    };
    thread::sleep(std::time::Duration::from_millis(50));
    assert!(
        !dropper.is_finished(),
        "DROP TABLE did not wait for the open consume"
    );
    holder.execute("ET").unwrap();
    dropper.join().unwrap().unwrap();
    assert_eq!(waiter.join().unwrap().unwrap_err().code().number, 9906);
}

#[test]
fn a_consumer_with_nothing_to_take_waits_for_no_lock_on_the_queue() {
    let db = Database::new();
    create(&mut db.session(), "a");
    let mut holder = db.session();
    holder.execute("BT").unwrap();
    holder
        .execute("LOCKING TABLE q FOR EXCLUSIVE SELECT COUNT(*) FROM q")
        .unwrap();
    let nowait = {
        let db = db.clone();
        thread::spawn(move || take(&mut db.session(), "a", 1))
    };
    for _ in 0..500 {
        if nowait.is_finished() {
            break;
        }
        thread::sleep(std::time::Duration::from_millis(2));
    }
    assert!(
        nowait.is_finished(),
        "a NOWAIT consume of an empty subscriber waited for the queue's lock"
    );
    assert_eq!(nowait.join().unwrap(), Vec::<i64>::new());
    holder.execute("ET").unwrap();
}

#[test]
fn a_consumer_waiting_for_the_queues_lock_hears_of_its_drop() {
    let db = Database::new();
    let mut s = db.session();
    create(&mut s, "a");
    s.execute("INS q (CURRENT_TIMESTAMP, 1)").unwrap();
    // the consumer finds the queue, then waits for its lock; the holder drops it
    let mut holder = db.session();
    holder.execute("BT").unwrap();
    holder
        .execute("LOCKING TABLE q FOR EXCLUSIVE SELECT COUNT(*) FROM q")
        .unwrap();
    let consumer = {
        let db = db.clone();
        thread::spawn(move || {
            db.session()
                .execute("SELECT AND CONSUME TOP 1 id FROM q FOR SUBSCRIBER a WAIT 60 SECONDS")
        })
    };
    while db.lock_waits().is_empty() {
        thread::sleep(std::time::Duration::from_millis(1));
    }
    holder.execute("DROP TABLE q").unwrap();
    holder.execute("ET").unwrap();
    let err = consumer.join().unwrap().unwrap_err();
    assert_eq!(err.code().number, 9906, "{err}");
}

#[test]
fn a_delete_takes_leased_copies_and_waits_for_taken_ones() {
    let db = Database::new();
    let mut s = db.session();
    create(&mut s, "a, b");
    s.execute("INS q (CURRENT_TIMESTAMP, 1)").unwrap();
    s.execute("INS q (CURRENT_TIMESTAMP, 2)").unwrap();
    // a's copy of row 1 is leased, b's copy of row 2 taken by an open transaction
    let r = s
        .execute("SELECT AND CONSUME TOP 1 id FROM q FOR SUBSCRIBER a LEASE 60 SECONDS")
        .unwrap();
    assert_eq!(r[0].rows.as_ref().unwrap().to_strings()[0][0], "1");
    let mut holder = db.session();
    holder.execute("BT").unwrap();
    assert_eq!(take(&mut holder, "b", 1), [1]);
    assert_eq!(take(&mut holder, "b", 1), [2]);
    let deleter = {
        let db = db.clone();
        thread::spawn(move || db.session().execute("DELETE FROM q"))
    };
    thread::sleep(std::time::Duration::from_millis(50));
    assert!(
        !deleter.is_finished(),
        "DELETE did not wait for the taken copies"
    );
    assert_eq!(holder.execute("ROLLBACK").unwrap_err().code().number, 3514);
    deleter.join().unwrap().unwrap();
    assert_eq!(count(&db), 0);
    assert_eq!(take(&mut s, "a", 5), Vec::<i64>::new());
    assert_eq!(take(&mut s, "b", 5), Vec::<i64>::new());
    // the leased copy went too: its lease cannot give it back
    assert_eq!(
        s.execute("RELEASE q LEASE 1").unwrap_err().code().number,
        9922
    );
    assert_eq!(take(&mut s, "a", 5), Vec::<i64>::new());
    assert_eq!(
        rows(
            &db,
            "SELECT Depth, InFlight FROM DBC.QueueStatsV WHERE Subscriber = 'a'"
        ),
        ["0|0"]
    );
}
