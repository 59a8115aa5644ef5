//! The delayed state with real threads: a consume on an empty queue blocks until another
//! session commits an insert, and ends cleanly on timeout, cancel and DROP TABLE.
//!
//! Tests wait for "the consumer is waiting" by polling `Database::waiting_consumers`; they never
//! assert on elapsed time.

use arrow::array::{Array, Int32Array};
use std::thread;
use std::time::Duration;
use tdlite::{Database, Session, StatementResult};

const QUEUE: &str =
    "CREATE TABLE q, QUEUE (qits TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6), n INTEGER)";

/// A queue whose rows are consumable from their QITS on (docs/queues.md, Delayed delivery).
const LATER: &str = "CREATE TABLE later, QUEUE, DELIVER AT (qits) (qits TIMESTAMP(6) NOT NULL \
                     DEFAULT CURRENT_TIMESTAMP(6), n INTEGER)";

fn setup() -> (Database, Session) {
    let db = Database::new();
    let mut s = db.session();
    s.execute(QUEUE).expect("create queue");
    (db, s)
}

fn wait_until_waiting(db: &Database, table: &str, n: usize) {
    while db.waiting_consumers(table) != n {
        thread::sleep(Duration::from_millis(1));
    }
}

fn consumed_n(r: &[StatementResult]) -> i32 {
    let rows = r[0].rows.as_ref().expect("consume returns rows");
    let col = rows.batches[0]
        .column(0)
        .as_any()
        .downcast_ref::<Int32Array>()
        .expect("n is INTEGER");
    assert_eq!(col.len(), 1);
    col.value(0)
}

fn spawn_consumer(db: &Database) -> thread::JoinHandle<Result<i32, u32>> {
    let db = db.clone();
    thread::spawn(move || {
        let mut c = db.session();
        c.execute("SELECT AND CONSUME TOP 1 n FROM q")
            .map(|r| consumed_n(&r))
            .map_err(|e| e.code().number)
    })
}

fn count(s: &mut Session) -> i64 {
    let r = s.execute("SELECT COUNT(*) FROM q").expect("count");
    let b = &r[0].rows.as_ref().expect("rows").batches[0];
    b.column(0)
        .as_any()
        .downcast_ref::<Int32Array>()
        .expect("COUNT is INTEGER")
        .value(0) as i64
}

#[test]
fn consumer_blocks_until_an_insert_commits() {
    let (db, mut p) = setup();
    let consumer = spawn_consumer(&db);
    wait_until_waiting(&db, "q", 1);
    p.execute("BT").unwrap();
    p.execute("INSERT INTO q (n) VALUES (7)").unwrap();
    // uncommitted: the consumer must still be waiting, and still registered as a waiter
    assert_eq!(db.waiting_consumers("q"), 1);
    assert!(!consumer.is_finished());
    p.execute("ET").unwrap();
    assert_eq!(consumer.join().unwrap(), Ok(7));
    assert_eq!(count(&mut p), 0);
}

#[test]
fn a_rolled_back_insert_does_not_satisfy_a_waiter() {
    let (db, mut p) = setup();
    let consumer = spawn_consumer(&db);
    wait_until_waiting(&db, "q", 1);
    p.execute("BT").unwrap();
    p.execute("INSERT INTO q (n) VALUES (1)").unwrap();
    assert_eq!(p.execute("ABORT").unwrap_err().code().number, 3514);
    assert_eq!(db.waiting_consumers("q"), 1);
    assert!(!consumer.is_finished());
    p.execute("INSERT INTO q (n) VALUES (2)").unwrap();
    assert_eq!(consumer.join().unwrap(), Ok(2));
}

#[test]
fn the_consume_timeout_fails_with_9904_and_consumes_nothing() {
    let (_db, mut s) = setup();
    s.set_consume_timeout(Some(Duration::from_millis(20)));
    let e = s.execute("SELECT AND CONSUME TOP 1 n FROM q").unwrap_err();
    assert_eq!(e.code().number, 9904);
    // the session carries on
    s.execute("INSERT INTO q (n) VALUES (3)").unwrap();
    assert_eq!(
        consumed_n(&s.execute("SELECT AND CONSUME TOP 1 n FROM q").unwrap()),
        3
    );
}

#[test]
fn a_timed_out_consume_inside_bt_rolls_back_the_transaction() {
    let (_db, mut s) = setup();
    s.execute("INSERT INTO q (n) VALUES (1)").unwrap();
    s.set_consume_timeout(Some(Duration::from_millis(5)));
    s.execute("BT").unwrap();
    assert_eq!(
        consumed_n(&s.execute("SELECT AND CONSUME TOP 1 n FROM q").unwrap()),
        1
    );
    assert_eq!(
        s.execute("SELECT AND CONSUME TOP 1 n FROM q")
            .unwrap_err()
            .code()
            .number,
        9904
    );
    // Teradata mode: the failure rolled back the whole transaction, so row 1 is back.
    assert!(!s.in_explicit_transaction());
    assert_eq!(count(&mut s), 1);
}

#[test]
fn cancel_ends_a_wait_with_9905() {
    let (db, mut p) = setup();
    let db2 = db.clone();
    let (tx, rx) = std::sync::mpsc::channel();
    let consumer = thread::spawn(move || {
        let mut c = db2.session();
        tx.send(c.cancel_handle()).unwrap();
        c.execute("SELECT AND CONSUME TOP 1 n FROM q")
            .map(|r| consumed_n(&r))
            .map_err(|e| e.code().number)
    });
    let handle = rx.recv().unwrap();
    wait_until_waiting(&db, "q", 1);
    assert!(handle.cancel());
    assert_eq!(consumer.join().unwrap(), Err(9905));
    assert_eq!(db.waiting_consumers("q"), 0);
    // the queue works as before
    p.execute("INSERT INTO q (n) VALUES (5)").unwrap();
    assert_eq!(count(&mut p), 1);
}

#[test]
fn drop_table_fails_waiters_with_9906() {
    let (db, mut p) = setup();
    let c1 = spawn_consumer(&db);
    let c2 = spawn_consumer(&db);
    wait_until_waiting(&db, "q", 2);
    p.execute("DROP TABLE q").unwrap();
    assert_eq!(c1.join().unwrap(), Err(9906));
    assert_eq!(c2.join().unwrap(), Err(9906));
}

#[test]
fn waiters_are_served_one_per_row_in_the_order_they_began_waiting() {
    let (db, mut p) = setup();
    let first = spawn_consumer(&db);
    wait_until_waiting(&db, "q", 1);
    let second = spawn_consumer(&db);
    wait_until_waiting(&db, "q", 2);
    let third = spawn_consumer(&db);
    wait_until_waiting(&db, "q", 3);
    p.execute("INSERT INTO q (n) VALUES (10)").unwrap();
    assert_eq!(first.join().unwrap(), Ok(10));
    wait_until_waiting(&db, "q", 2);
    assert!(!second.is_finished() && !third.is_finished());
    p.execute("INSERT INTO q (n) VALUES (20)").unwrap();
    assert_eq!(second.join().unwrap(), Ok(20));
    p.execute("INSERT INTO q (n) VALUES (30)").unwrap();
    assert_eq!(third.join().unwrap(), Ok(30));
}

#[test]
fn one_commit_of_k_rows_wakes_k_waiters_and_each_row_goes_to_one() {
    let (db, mut p) = setup();
    let consumers: Vec<_> = (0..3).map(|_| spawn_consumer(&db)).collect();
    wait_until_waiting(&db, "q", 3);
    p.execute(
        "INS q (CURRENT_TIMESTAMP, 1); INS q (CURRENT_TIMESTAMP, 2); INS q (CURRENT_TIMESTAMP, 3);",
    )
    .unwrap();
    let mut got: Vec<i32> = consumers
        .into_iter()
        .map(|c| c.join().unwrap().unwrap())
        .collect();
    got.sort();
    assert_eq!(got, vec![1, 2, 3]);
    assert_eq!(count(&mut p), 0);
}

#[test]
fn a_rollback_of_a_consume_wakes_a_waiter() {
    let (db, mut p) = setup();
    p.execute("INSERT INTO q (n) VALUES (4)").unwrap();
    let mut holder = db.session();
    holder.execute("BT").unwrap();
    assert_eq!(
        consumed_n(&holder.execute("SELECT AND CONSUME TOP 1 n FROM q").unwrap()),
        4
    );
    // the only row is claimed: a second consumer waits instead of taking or blocking on it
    let waiter = spawn_consumer(&db);
    wait_until_waiting(&db, "q", 1);
    assert_eq!(holder.execute("ROLLBACK").unwrap_err().code().number, 3514);
    assert_eq!(waiter.join().unwrap(), Ok(4));
}

#[test]
fn dropping_a_session_rolls_back_its_consume_and_wakes_a_waiter() {
    let (db, mut p) = setup();
    p.execute("INSERT INTO q (n) VALUES (8)").unwrap();
    let mut holder = db.session();
    holder.execute("BT").unwrap();
    holder.execute("SELECT AND CONSUME TOP 1 n FROM q").unwrap();
    let waiter = spawn_consumer(&db);
    wait_until_waiting(&db, "q", 1);
    drop(holder);
    assert_eq!(waiter.join().unwrap(), Ok(8));
}

#[test]
fn a_waiting_consumer_does_not_block_other_sessions() {
    let (db, mut p) = setup();
    let consumer = spawn_consumer(&db);
    wait_until_waiting(&db, "q", 1);
    p.execute("CREATE TABLE other, QUEUE (qits TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6), n INTEGER)").unwrap();
    p.execute("INSERT INTO other (n) VALUES (1)").unwrap();
    assert_eq!(
        consumed_n(&p.execute("SELECT AND CONSUME TOP 1 n FROM other").unwrap()),
        1
    );
    assert_eq!(count(&mut p), 0);
    p.execute("INSERT INTO q (n) VALUES (9)").unwrap();
    assert_eq!(consumer.join().unwrap(), Ok(9));
}

#[test]
fn a_rolled_back_create_fails_the_waiters_of_that_queue() {
    let db = Database::new();
    let mut creator = db.session();
    creator.execute("BT").unwrap();
    creator.execute(QUEUE).unwrap();
    let waiter = spawn_consumer(&db);
    wait_until_waiting(&db, "q", 1);
    assert_eq!(creator.execute("ABORT").unwrap_err().code().number, 3514);
    assert_eq!(waiter.join().unwrap(), Err(9906));
}

#[test]
fn a_huge_consume_timeout_means_no_bound_and_does_not_panic() {
    let (_db, mut s) = setup();
    s.set_consume_timeout(Some(Duration::MAX));
    s.execute("INSERT INTO q (n) VALUES (6)").unwrap();
    assert_eq!(
        consumed_n(&s.execute("SELECT AND CONSUME TOP 1 n FROM q").unwrap()),
        6
    );
}

#[test]
fn the_queue_stats_view_counts_waiting_consumers_and_a_batch_wakes_for_one_row() {
    let (db, mut s) = setup();
    let waiting = |s: &mut Session| -> Vec<String> {
        let r = s
            .execute("SELECT Waiting, Depth FROM DBC.QueueStatsV WHERE TableName = 'q'")
            .expect("the view");
        r[0].rows.as_ref().expect("rows").to_strings()[0].clone()
    };
    assert_eq!(waiting(&mut s), ["0", "0"]);
    let batch = {
        let db = db.clone();
        thread::spawn(move || {
            let mut c = db.session();
            let r = c
                .execute("SELECT AND CONSUME TOP 10 n FROM q")
                .expect("a batch consume");
            r[0].rows.as_ref().expect("rows").to_strings()
        })
    };
    let single = spawn_consumer(&db);
    wait_until_waiting(&db, "q", 2);
    assert_eq!(waiting(&mut s), ["2", "0"]);
    // HELP QUEUE gives the view's row for one queue (within one request: the same clock)
    let r = s
        .execute("HELP QUEUE q; SELECT * FROM DBC.QueueStatsV WHERE TableName = 'q'")
        .expect("HELP QUEUE and the view");
    let help = r[0].rows.as_ref().expect("rows").to_strings();
    let view = r[1].rows.as_ref().expect("rows").to_strings();
    assert_eq!(help, view);
    assert_eq!(help[0][1..3], ["q".to_string(), "0".to_string()]);
    assert_eq!(help[0][6], "2", "Waiting: {help:?}");
    // one committed row: the first waiter (whichever began first) takes it; a batch does not
    // wait to fill up
    s.execute("INS q (CURRENT_TIMESTAMP, 7)").expect("insert");
    // the woken consumer takes its row (then the second row cannot go to it too)
    while waiting(&mut s) != ["1", "0"] {
        thread::sleep(Duration::from_millis(1));
    }
    s.execute("INS q (CURRENT_TIMESTAMP, 8)").expect("insert");
    let got_batch = batch.join().expect("the batch consumer");
    let got_single = single.join().expect("the single consumer").expect("a row");
    assert_eq!(
        got_batch.len(),
        1,
        "a batch takes what there is: {got_batch:?}"
    );
    let mut all = vec![got_batch[0][0].parse::<i32>().unwrap(), got_single];
    all.sort_unstable();
    assert_eq!(all, [7, 8]);
    assert_eq!(waiting(&mut s), ["0", "0"]);
}

#[test]
fn a_consumer_waiting_on_a_delayed_queue_is_woken_by_the_due_time_not_before() {
    let db = Database::new();
    let mut s = db.session();
    s.execute(LATER).expect("create");
    let consumer = {
        let db = db.clone();
        thread::spawn(move || {
            let mut c = db.session();
            let mut got = Vec::new();
            for _ in 0..3 {
                let r = c
                    .execute("SELECT AND CONSUME TOP 1 n, qits FROM later")
                    .expect("a consume that waits");
                let taken_at = chrono::Utc::now().naive_utc();
                let row = r[0].rows.as_ref().expect("rows").to_strings().remove(0);
                got.push((row[0].clone(), row[1].clone(), taken_at));
            }
            got
        })
    };
    wait_until_waiting(&db, "later", 1);
    // committed now, due later and out of order: each comes when due, oldest QITS first
    s.execute(
        "INS later (CURRENT_TIMESTAMP + INTERVAL '0.3' SECOND, 3); \
         INS later (CURRENT_TIMESTAMP + INTERVAL '0.1' SECOND, 1); \
         INS later (CURRENT_TIMESTAMP + INTERVAL '0.2' SECOND, 2)",
    )
    .expect("insert");
    let got = consumer.join().expect("the consumer");
    let order: Vec<&str> = got.iter().map(|(n, _, _)| n.as_str()).collect();
    assert_eq!(order, ["1", "2", "3"]);
    for (n, qits, taken_at) in &got {
        // (Arrow's display puts a T between the date and the time)
        let due =
            chrono::NaiveDateTime::parse_from_str(&qits.replace('T', " "), "%Y-%m-%d %H:%M:%S%.f")
                .unwrap_or_else(|e| panic!("{qits}: {e}"));
        assert!(
            *taken_at >= due,
            "row {n} taken at {taken_at}, before its QITS {due}"
        );
    }
}

#[test]
fn a_row_coming_due_is_not_lost_when_the_waiter_with_its_timer_takes_another() {
    let db = Database::new();
    let mut s = db.session();
    s.execute(LATER).expect("create");
    let spawn = |db: &Database| {
        let db = db.clone();
        thread::spawn(move || {
            let mut c = db.session();
            c.execute("SELECT AND CONSUME TOP 1 n FROM later WAIT 20 SECONDS")
                .map(|r| r[0].rows.as_ref().expect("rows").to_strings()[0][0].clone())
                .map_err(|e| e.code().number)
        })
    };
    let (a, b) = (spawn(&db), spawn(&db));
    wait_until_waiting(&db, "later", 2);
    // a row due later wakes one waiter, which sets a timer for it; the other has none
    s.execute("INS later (CURRENT_TIMESTAMP + INTERVAL '0.3' SECOND, 1)")
        .expect("insert");
    thread::sleep(Duration::from_millis(50));
    wait_until_waiting(&db, "later", 2);
    // a row due now goes to the first waiter: if that was the one with the timer, the other
    // must be told to set it again, or the first row is never taken
    s.execute("INS later (CURRENT_TIMESTAMP, 2)")
        .expect("insert");
    let mut got = vec![a.join().expect("a"), b.join().expect("b")];
    got.sort();
    assert_eq!(got, [Ok("1".to_string()), Ok("2".to_string())]);
}
