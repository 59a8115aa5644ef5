//! Isolation and locking with real threads, for what a single-threaded `.slt` runner cannot
//! show (a statement that waits). docs/isolation.md states the level these tests pin:
//! dirty writes wait, single-statement read-modify-write never loses an update, deadlocks are
//! detected and broken with 2631, LOCKING locks make writers wait, and a consumer waiting on an
//! empty queue holds no lock.

use std::thread;
use std::time::{Duration, Instant};
use tdlite::{Database, PositionedError, Session, SessionMode, StatementResult};

/// Polls until `cond` holds. Not a timing assertion: the bound only keeps a broken build from
/// hanging CI.
fn wait_until(what: &str, cond: impl Fn() -> bool) {
    let start = Instant::now();
    while !cond() {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "never happened: {what}"
        );
        thread::sleep(Duration::from_millis(1));
    }
}

fn code(r: &Result<Vec<StatementResult>, PositionedError>) -> Option<u32> {
    r.as_ref().err().map(|e| e.code().number)
}

fn ints(s: &mut Session, sql: &str) -> Vec<String> {
    s.execute(sql)
        .unwrap()
        .last()
        .unwrap()
        .rows
        .as_ref()
        .unwrap()
        .to_strings()
        .into_iter()
        .map(|r| r.join(" "))
        .collect()
}

fn accounts() -> Database {
    let db = Database::new();
    let mut s = db.session();
    s.execute("CREATE TABLE acct (id INTEGER NOT NULL PRIMARY KEY, bal INTEGER)")
        .unwrap();
    s.execute("INS acct (1, 100); INS acct (2, 100);").unwrap();
    db
}

#[test]
fn dirty_write_is_prevented_the_second_writer_waits_and_builds_on_the_first() {
    let db = accounts();
    let (mut a, mut b, mut c) = (db.session(), db.session(), db.session());
    a.execute("BT; UPD acct SET bal = bal + 1 WHERE id = 1")
        .unwrap();
    let (a_id, b_id) = (a.id(), b.id());
    let writer = thread::spawn(move || {
        b.execute("UPD acct SET bal = bal * 10 WHERE id = 1")
            .map(|r| r[0].activity_count)
    });
    wait_until("b waits", || !db.lock_waits().is_empty());
    // who waits for whom, from SQL
    let locks = ints(&mut c, "HELP LOCKS");
    let waiting = format!("{b_id} ");
    assert!(
        locks
            .iter()
            .any(|l| l.starts_with(&waiting) && l.contains("ROW WAITING")),
        "{locks:?}"
    );
    // the blocker's session is named, though its lock never went through the lock manager
    assert!(
        locks
            .iter()
            .any(|l| l.starts_with(&waiting) && l.contains(&format!("ROW WAITING {a_id} "))),
        "{locks:?}"
    );
    a.execute("ET").unwrap();
    assert_eq!(writer.join().unwrap().unwrap(), 1);
    assert_eq!(ints(&mut c, "SEL bal FROM acct WHERE id = 1"), ["1010"]);
}

#[test]
fn concurrent_increments_never_lose_an_update() {
    const THREADS: usize = 8;
    const EACH: usize = 150;
    let db = accounts();
    let workers: Vec<_> = (0..THREADS)
        .map(|i| {
            let db = db.clone();
            thread::spawn(move || {
                let mut s = db.session();
                for _ in 0..EACH {
                    // half in explicit transactions that read first, half as single statements
                    let sql = if i % 2 == 0 {
                        "UPD acct SET bal = bal + 1 WHERE id = 1"
                    } else {
                        "BT; SEL bal FROM acct WHERE id = 2; UPD acct SET bal = bal + 1 WHERE id = 1; ET"
                    };
                    s.execute(sql).unwrap();
                }
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
    let mut s = db.session();
    assert_eq!(
        ints(&mut s, "SEL bal FROM acct WHERE id = 1"),
        [(100 + THREADS * EACH).to_string()]
    );
}

#[test]
fn a_deadlock_is_detected_and_the_transaction_closing_the_cycle_gets_2631() {
    for mode in [SessionMode::Teradata, SessionMode::Ansi] {
        let db = accounts();
        let (mut a, mut b) = (db.session_in(mode), db.session_in(mode));
        let bt = if mode == SessionMode::Teradata {
            "BT; "
        } else {
            ""
        };
        a.execute(&format!("{bt}UPD acct SET bal = 1 WHERE id = 1"))
            .unwrap();
        b.execute(&format!("{bt}UPD acct SET bal = 2 WHERE id = 2"))
            .unwrap();
        let first = thread::spawn(move || {
            let r = a.execute("UPD acct SET bal = 1 WHERE id = 2");
            (a, r.map(|_| ()))
        });
        wait_until("a waits for b", || !db.lock_waits().is_empty());
        let r = b.execute("UPD acct SET bal = 2 WHERE id = 1");
        assert_eq!(code(&r), Some(2631), "{mode:?}");
        assert!(r.unwrap_err().code().retryable);
        // b was rolled back whole, so a goes on and commits both its rows
        let (mut a, ra) = first.join().unwrap();
        ra.unwrap();
        let end = if mode == SessionMode::Teradata {
            "ET"
        } else {
            "COMMIT"
        };
        a.execute(end).unwrap();
        assert_eq!(
            ints(&mut b, "SEL bal FROM acct ORDER BY id"),
            ["1", "1"],
            "{mode:?}"
        );
        assert!(db.lock_waits().is_empty());
    }
}

#[test]
fn write_skew_under_read_locks_becomes_a_deadlock_not_skew() {
    let db = Database::new();
    let mut s = db.session();
    s.execute("CREATE TABLE oncall (doctor VARCHAR(10) NOT NULL PRIMARY KEY, on_call CHAR(1))")
        .unwrap();
    s.execute("INS oncall ('alice', 'Y'); INS oncall ('bob', 'Y');")
        .unwrap();
    let (mut a, mut b) = (db.session(), db.session());
    let check = "LOCKING oncall FOR READ SEL COUNT(*) FROM oncall WHERE on_call = 'Y'";
    assert_eq!(ints(&mut a, &format!("BT; {check}")), ["2"]);
    assert_eq!(ints(&mut b, &format!("BT; {check}")), ["2"]);
    let first = thread::spawn(move || {
        let r = a.execute("UPD oncall SET on_call = 'N' WHERE doctor = 'alice'; ET");
        r.map(|_| ())
    });
    wait_until("a waits for b's READ lock", || !db.lock_waits().is_empty());
    let r = b.execute("UPD oncall SET on_call = 'N' WHERE doctor = 'bob'");
    assert_eq!(code(&r), Some(2631));
    first.join().unwrap().unwrap();
    let mut s = db.session();
    assert_eq!(
        ints(&mut s, "SEL COUNT(*) FROM oncall WHERE on_call = 'Y'"),
        ["1"]
    );
}

#[test]
fn locking_for_write_makes_other_writers_wait_and_access_readers_pass() {
    let db = accounts();
    let (mut a, mut b, mut c) = (db.session(), db.session(), db.session());
    a.execute("BT; LOCKING acct FOR WRITE; UPD acct SET bal = 7 WHERE id = 1")
        .unwrap();
    let writer = thread::spawn(move || b.execute("INS acct (3, 3)").map(|_| ()));
    wait_until("b waits for the WRITE lock", || !db.lock_waits().is_empty());
    // readers never wait, with or without LOCKING … FOR ACCESS, and see committed data
    assert_eq!(
        ints(
            &mut c,
            "LOCKING ROW FOR ACCESS SEL bal FROM acct WHERE id = 1"
        ),
        ["100"]
    );
    assert_eq!(
        ints(&mut c, "SEL COUNT(*) FROM acct"),
        ["2"],
        "b's insert has not run"
    );
    a.execute("ET").unwrap();
    writer.join().unwrap().unwrap();
    assert_eq!(ints(&mut c, "SEL COUNT(*) FROM acct"), ["3"]);
}

#[test]
fn uncommitted_ddl_makes_writers_wait_instead_of_failing() {
    let db = Database::new();
    let (mut a, mut b) = (db.session(), db.session());
    a.execute("BT; CREATE TABLE t (n INTEGER)").unwrap();
    let writer = thread::spawn(move || b.execute("INS t (1)").map(|_| ()));
    wait_until("b waits for the CREATE", || !db.lock_waits().is_empty());
    a.execute("ET").unwrap();
    writer.join().unwrap().unwrap();
    // and a rolled-back CREATE makes the waiter fail with 3807
    a.execute("BT; CREATE TABLE u (n INTEGER)").unwrap();
    let mut b = db.session();
    let writer = thread::spawn(move || code(&b.execute("INS u (1)")));
    wait_until("b waits for the CREATE", || !db.lock_waits().is_empty());
    assert_eq!(code(&a.execute("ROLLBACK")), Some(3514));
    assert_eq!(writer.join().unwrap(), Some(3807));
}

fn queue(db: &Database) {
    db.session()
        .execute("CREATE TABLE q, QUEUE (qits TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6), n INTEGER)")
        .unwrap();
}

#[test]
fn a_waiting_consumer_holds_no_lock_that_blocks_producers_or_ddl() {
    let db = Database::new();
    queue(&db);
    // a consumer that already holds a row of q in its transaction waits for a second one
    let mut c = db.session();
    db.session()
        .execute("INS q (CURRENT_TIMESTAMP, 1)")
        .unwrap();
    c.execute("BT; SEL AND CONSUME TOP 1 n FROM q").unwrap();
    let consumer = thread::spawn(move || {
        let r = c.execute("SEL AND CONSUME TOP 1 n FROM q; ET");
        r.map(|r| r[0].rows.as_ref().unwrap().to_strings())
    });
    wait_until("the consumer waits", || db.waiting_consumers("q") == 1);
    let mut other = db.session();
    let help = ints(&mut other, "HELP LOCKS");
    assert!(
        help.iter().any(|l| l.contains("q CONSUME DELAYED")),
        "{help:?}"
    );
    // a producer is not blocked by the waiter's ROW WRITE lock
    other.execute("INS q (CURRENT_TIMESTAMP, 2)").unwrap();
    assert_eq!(consumer.join().unwrap().unwrap(), [["2"]]);

    // a consumer waiting without having touched q holds nothing: EXCLUSIVE is free
    let mut c = db.session();
    let consumer = thread::spawn(move || code(&c.execute("SEL AND CONSUME TOP 1 n FROM q")));
    wait_until("the consumer waits", || db.waiting_consumers("q") == 1);
    other
        .execute("BT; LOCKING q FOR EXCLUSIVE NOWAIT; ET")
        .unwrap();
    // DROP TABLE ends the wait with 9906
    other.execute("DROP TABLE q").unwrap();
    assert_eq!(consumer.join().unwrap(), Some(9906));
}

/// A consumer that holds a lock on the queue from earlier in its transaction and then waits
/// for a row would keep the DROP waiting forever; the lock manager ends its wait with 2631
/// (as a deadlock victim) instead, and the DROP goes on.
#[test]
fn drop_table_ends_the_wait_of_a_consumer_that_holds_a_lock_on_the_queue() {
    let db = Database::new();
    queue(&db);
    db.session()
        .execute("INS q (CURRENT_TIMESTAMP, 1)")
        .unwrap();
    let mut c = db.session();
    c.execute("BT; SEL AND CONSUME TOP 1 n FROM q").unwrap();
    let consumer = thread::spawn(move || code(&c.execute("SEL AND CONSUME TOP 1 n FROM q")));
    wait_until("the consumer waits", || db.waiting_consumers("q") == 1);
    db.session().execute("DROP TABLE q").unwrap();
    assert_eq!(consumer.join().unwrap(), Some(2631));
    assert!(db.table_names().is_empty());
}

#[test]
fn a_consumer_waits_for_a_write_lock_on_the_queue_and_then_takes_the_row() {
    let db = Database::new();
    queue(&db);
    let mut a = db.session();
    a.execute("BT; LOCKING q FOR WRITE; INS q (CURRENT_TIMESTAMP, 1); ET")
        .unwrap();
    a.execute("BT; LOCKING q FOR WRITE").unwrap();
    let mut c = db.session();
    let consumer = thread::spawn(move || {
        c.execute("SEL AND CONSUME TOP 1 n FROM q")
            .map(|r| r[0].rows.as_ref().unwrap().to_strings())
    });
    wait_until("the consumer waits for the lock", || {
        !db.lock_waits().is_empty()
    });
    a.execute("ET").unwrap();
    assert_eq!(consumer.join().unwrap().unwrap(), [["1"]]);
}

/// The same for a row lock: P waits for a row that consumer C changed, C waits for a row that
/// only P would insert. C's wait ends with 2631 and P goes on.
#[test]
fn a_consumer_waiting_for_a_row_is_never_waited_for() {
    let db = accounts();
    queue(&db);
    let mut c = db.session();
    c.execute("BT; UPD acct SET bal = 0 WHERE id = 1").unwrap();
    let consumer = thread::spawn(move || code(&c.execute("SEL AND CONSUME TOP 1 n FROM q")));
    wait_until("the consumer waits", || db.waiting_consumers("q") == 1);
    let mut p = db.session();
    p.execute("BT; UPD acct SET bal = 5 WHERE id = 1; INS q (CURRENT_TIMESTAMP, 1); ET")
        .unwrap();
    assert_eq!(consumer.join().unwrap(), Some(2631));
    assert_eq!(ints(&mut p, "SEL bal FROM acct WHERE id = 1"), ["5"]);
    // and one that is already waited for when it would start waiting fails at once
    let mut a = db.session();
    a.execute("BT; DEL FROM q; UPD acct SET bal = 6 WHERE id = 2")
        .unwrap();
    let mut b = db.session();
    let blocked = thread::spawn(move || b.execute("UPD acct SET bal = 7 WHERE id = 2").map(|_| ()));
    wait_until("b waits for a", || !db.lock_waits().is_empty());
    assert_eq!(
        code(&a.execute("SEL AND CONSUME TOP 1 n FROM q")),
        Some(2631)
    );
    blocked.join().unwrap().unwrap();
}

/// A unique key or SET-table duplicate that depends on an open transaction waits for it: the
/// clash is decided by its commit or rollback (Teradata waits on the row-hash lock too).
#[test]
fn a_key_clash_with_an_uncommitted_row_waits_for_its_transaction() {
    let db = accounts();
    let mut a = db.session();
    // an uncommitted insert of the same key: a rollback lets the second insert in
    a.execute("BT; INS acct (5, 0)").unwrap();
    let mut b = db.session();
    let second = thread::spawn(move || (code(&b.execute("INS acct (5, 1)")), b));
    wait_until("b waits for a's insert", || !db.lock_waits().is_empty());
    assert_eq!(code(&a.execute("ROLLBACK")), Some(3514));
    let (r, mut b) = second.join().unwrap();
    assert_eq!(r, None);
    // a commit makes it a duplicate
    a.execute("BT; INS acct (6, 0)").unwrap();
    let second = thread::spawn(move || (code(&b.execute("INS acct (6, 1)")), b));
    wait_until("b waits for a's insert", || !db.lock_waits().is_empty());
    a.execute("ET").unwrap();
    let (r, mut b) = second.join().unwrap();
    assert_eq!(r, Some(2801));
    // an uncommitted delete of the key: the insert waits, then succeeds
    a.execute("BT; DEL FROM acct WHERE id = 1").unwrap();
    let second = thread::spawn(move || code(&b.execute("INS acct (1, 7)")));
    wait_until("b waits for a's delete", || !db.lock_waits().is_empty());
    a.execute("ET").unwrap();
    assert_eq!(second.join().unwrap(), None);
    assert_eq!(
        ints(&mut a, "SEL id, bal FROM acct ORDER BY id"),
        ["1 7", "2 100", "5 1", "6 0"]
    );
}
