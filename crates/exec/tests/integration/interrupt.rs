//! Issue 16: a running request can be stopped (a cancel from another thread, the statement
//! timeout), and so can requests whose cost would otherwise grow without bound (a FROM clause
//! of thousands of tables). The request fails with a numbered error, is undone, and the
//! session and the database carry on.

use std::time::Duration;
use tdlite::Database;

/// A table of 0..n (one column `a`).
fn numbers(db: &Database, n: usize) {
    let mut s = db.session();
    s.execute("CREATE TABLE t (a INTEGER)").unwrap();
    let p = s.prepare("INSERT INTO t VALUES (?)").unwrap();
    let rows: Vec<Vec<tdlite::Value>> =
        (0..n as i64).map(|i| vec![tdlite::Value::Int(i)]).collect();
    s.execute_batch(&p, rows).unwrap();
}

/// [`numbers`] with `n` rows, and table `w`: the same keys, each with a `width`-character value.
fn padded(db: &Database, n: usize, width: usize) {
    numbers(db, n);
    let mut s = db.session();
    s.execute(&format!("CREATE TABLE w (a INTEGER, v VARCHAR({width}))"))
        .unwrap();
    s.execute(&format!(
        "INSERT INTO w SELECT a, LPAD('x', {width}, 'y') FROM t"
    ))
    .unwrap();
}

/// A request that runs for minutes: a subquery correlated by a non-equality, run per row of
/// 10,000 (each run reads the 10,000 rows).
const LONG: &str =
    "SELECT COUNT(*) FROM t x WHERE x.a > (SELECT AVG(y.a) FROM t y WHERE y.a < x.a)";

#[test]
fn a_running_request_is_cancelled_from_another_thread_and_rolled_back() {
    let db = Database::new();
    numbers(&db, 10_000);
    let mut s = db.session();
    let handle = s.cancel_handle();
    assert!(!handle.cancel(), "an idle session has nothing to cancel");
    s.execute("BT").unwrap();
    s.execute("INSERT INTO t VALUES (-1)").unwrap();
    let canceller = std::thread::spawn(move || {
        // the request is running once its flag is up; cancel it then
        while !handle.is_running() {
            std::thread::yield_now();
        }
        assert!(handle.cancel());
    });
    let err = s.execute(LONG).unwrap_err();
    canceller.join().unwrap();
    assert_eq!(err.code().number, 3110, "{err}");
    // the whole transaction was rolled back, and the session works on
    assert!(!s.in_explicit_transaction());
    let r = s.execute("SELECT COUNT(*), MIN(a) FROM t").unwrap();
    let rows = r[0].rows.as_ref().unwrap().to_strings();
    assert_eq!(rows, vec![vec!["10000".to_string(), "0".to_string()]]);
    // a cancel that came while idle does not stop the next request
    let handle = s.cancel_handle();
    assert!(!handle.cancel());
    assert_eq!(
        s.execute("SELECT COUNT(*) FROM t").unwrap()[0].activity_count,
        1
    );
}

#[test]
fn the_statement_timeout_stops_a_request_and_the_session_goes_on() {
    let db = Database::new();
    numbers(&db, 10_000);
    let mut s = db.session();
    s.set_statement_timeout(Some(Duration::ZERO));
    let err = s.execute("SELECT COUNT(*) FROM t").unwrap_err();
    assert_eq!(err.code().number, 9920, "{err}");
    assert!(err.code().retryable);
    s.set_statement_timeout(Some(Duration::from_millis(200)));
    assert_eq!(
        s.execute("SELECT 1").unwrap()[0].activity_count,
        1,
        "no table, no check"
    );
    let err = s.execute(LONG).unwrap_err();
    assert_eq!(err.code().number, 9920, "{err}");
    // an INSERT stopped by the timeout left nothing behind
    s.set_statement_timeout(Some(Duration::ZERO));
    let err = s
        .execute("INSERT INTO t SELECT a + 10000 FROM t")
        .unwrap_err();
    assert_eq!(err.code().number, 9920, "{err}");
    s.set_statement_timeout(None);
    let r = s.execute("SELECT COUNT(*) FROM t").unwrap();
    assert_eq!(
        r[0].rows.as_ref().unwrap().to_strings(),
        vec![vec!["10000".to_string()]]
    );
}

#[test]
fn a_from_clause_of_more_than_128_tables_is_refused_before_it_is_planned() {
    let db = Database::new();
    let mut s = db.session();
    s.execute("CREATE TABLE e (a INTEGER)").unwrap();
    let from = |n: usize| {
        (0..n)
            .map(|i| format!("e e{i}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let r = s
        .execute(&format!("SELECT COUNT(*) FROM {}", from(128)))
        .unwrap();
    assert_eq!(
        r[0].rows.as_ref().unwrap().to_strings(),
        vec![vec!["0".to_string()]]
    );
    // 2,000 joins of empty tables took 39 s to plan
    let err = s
        .execute(&format!("SELECT COUNT(*) FROM {}", from(2000)))
        .unwrap_err();
    assert_eq!(err.code().number, 9921, "{err}");
    let joined = (1..200)
        .map(|i| format!("JOIN e e{i} ON e{i}.a = e0.a"))
        .collect::<Vec<_>>()
        .join(" ");
    let err = s
        .execute(&format!("SELECT COUNT(*) FROM e e0 {joined}"))
        .unwrap_err();
    assert_eq!(err.code().number, 9921, "{err}");
    assert_eq!(
        s.execute("SELECT COUNT(*) FROM e").unwrap()[0].activity_count,
        1
    );
}

#[test]
fn a_join_larger_than_the_spool_space_is_2646_before_it_is_built() {
    let db = Database::new();
    padded(&db, 1_000, 200);
    let mut s = db.session();
    s.set_spool_space(1 << 20);
    // 1,000,000 rows of over 200 bytes: far past 1 MiB
    let err = s.execute("SELECT COUNT(*) FROM w x, w y").unwrap_err();
    assert_eq!(err.code().number, 2646, "{err}");
    // a join that fits runs, and so does the big one with room for it
    let r = s
        .execute("SELECT COUNT(*) FROM w x, w y WHERE x.a = y.a")
        .unwrap();
    assert_eq!(
        r[0].rows.as_ref().unwrap().to_strings(),
        vec![vec!["1000".to_string()]]
    );
    s.set_spool_space(1 << 30);
    let r = s
        .execute("SELECT COUNT(*) FROM w x, w y WHERE x.a < 10")
        .unwrap();
    assert_eq!(
        r[0].rows.as_ref().unwrap().to_strings(),
        vec![vec!["10000".to_string()]]
    );
}

/// Issue 16: every step whose result can outgrow its inputs checks the spool space before
/// (or while) it builds the result, so a runaway is 2646 rather than an allocation that ends
/// the process: a long literal repeated on every row, `||`, a built-in's character results,
/// a select list of many computed columns, UNION ALL, grouping sets, the rows of a recursive
/// query. Each query here takes about 4 MB at most, the spool space is 1 MiB: each is 2646,
/// and then runs with room.
#[test]
fn every_step_that_can_outgrow_its_inputs_is_2646_past_the_spool_space() {
    let db = Database::new();
    padded(&db, 2_000, 2_000);
    let mut s = db.session();
    let long = "z".repeat(2_000);
    let queries = [
        format!("SELECT COUNT(*) FROM t WHERE CHARACTER_LENGTH('{long}') > a"),
        "SELECT MAX(CHARACTER_LENGTH(v || v)) FROM w".to_string(),
        "SELECT MAX(CHARACTER_LENGTH(LPAD(CAST(a AS VARCHAR(10)), 2000, 'p'))) FROM t".to_string(),
        // each item about 400 KB: only the three together are over 1 MiB
        "SELECT TRIM(v), TRIM(v), TRIM(v) FROM w WHERE a < 200".to_string(),
        "SELECT COUNT(*) FROM (SELECT v FROM w UNION ALL SELECT v FROM w) d".to_string(),
        "SELECT COUNT(*) FROM (SELECT a, v, COUNT(*) c FROM w GROUP BY ROLLUP (a, v)) d"
            .to_string(),
        // every round's rows are kept to the end: 2,000 rounds of a 2,000-character row
        "WITH RECURSIVE r (n, v) AS (SELECT a, v FROM w WHERE a = 0 \
         UNION ALL SELECT n + 1, v FROM r WHERE n < 1999) SELECT COUNT(*) FROM r"
            .to_string(),
    ];
    for q in &queries {
        s.set_spool_space(1 << 20);
        let short = &q[..q.len().min(80)];
        let err = s
            .execute(q)
            .err()
            .unwrap_or_else(|| panic!("no 2646: {short}"));
        assert_eq!(err.code().number, 2646, "{short}: {err}");
        s.set_spool_space(1 << 30);
        s.execute(q).unwrap_or_else(|e| panic!("{short}: {e}"));
    }
}

/// A wait for a lock another transaction holds is stopped by a cancel (3110) and by the
/// statement timeout (9920), as any running request is; the holder goes on, and once it
/// ends the waiter's session runs the statement.
#[test]
fn a_wait_for_a_lock_is_stopped_by_a_cancel_and_by_the_statement_timeout() {
    let db = Database::new();
    numbers(&db, 10);
    let mut holder = db.session();
    holder.execute("BT").unwrap();
    holder
        .execute("LOCKING TABLE t FOR WRITE SELECT COUNT(*) FROM t")
        .unwrap();
    let mut s = db.session();
    s.set_statement_timeout(Some(Duration::from_millis(200)));
    let err = s.execute("UPDATE t SET a = a + 100").unwrap_err();
    assert_eq!(err.code().number, 9920, "{err}");
    assert_eq!(
        db.lock_waits().len(),
        0,
        "the stopped wait left the wait-for graph"
    );
    s.set_statement_timeout(None);
    let handle = s.cancel_handle();
    let canceller = std::thread::spawn(move || {
        while !handle.is_running() {
            std::thread::yield_now();
        }
        std::thread::sleep(Duration::from_millis(50)); // well into its wait
        assert!(handle.cancel());
    });
    let err = s.execute("UPDATE t SET a = a + 100").unwrap_err();
    canceller.join().unwrap();
    assert_eq!(err.code().number, 3110, "{err}");
    assert_eq!(db.lock_waits().len(), 0);
    holder.execute("ET").unwrap();
    let r = s.execute("UPDATE t SET a = a + 100").unwrap();
    assert_eq!(r[0].activity_count, 10);
    // a wait for a row another open transaction changed, likewise
    holder.execute("BT").unwrap();
    holder
        .execute("UPDATE t SET a = a + 1000 WHERE a = 105")
        .unwrap();
    s.set_statement_timeout(Some(Duration::from_millis(200)));
    let err = s.execute("DELETE FROM t WHERE a = 105").unwrap_err();
    assert_eq!(err.code().number, 9920, "{err}");
    holder.execute("ET").unwrap();
    let r = s.execute("DELETE FROM t WHERE a = 1105").unwrap();
    assert_eq!(r[0].activity_count, 1);
}

/// A consume that waits for a lock (not for a row) is cancelled too: 9905, nothing consumed.
#[test]
fn a_consume_waiting_for_a_lock_is_cancelled_with_9905() {
    let db = Database::new();
    let mut s = db.session();
    s.execute(
        "CREATE TABLE q, QUEUE (qits TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6), n INTEGER)",
    )
    .unwrap();
    s.execute("INS q (n) VALUES (1)").unwrap();
    let mut holder = db.session();
    holder.execute("BT").unwrap();
    holder
        .execute("LOCKING TABLE q FOR WRITE SELECT COUNT(*) FROM q")
        .unwrap();
    let handle = s.cancel_handle();
    let canceller = std::thread::spawn(move || {
        while !handle.is_running() {
            std::thread::yield_now();
        }
        std::thread::sleep(Duration::from_millis(50));
        assert!(handle.cancel());
    });
    let err = s.execute("SELECT AND CONSUME TOP 1 n FROM q").unwrap_err();
    canceller.join().unwrap();
    assert_eq!(err.code().number, 9905, "{err}");
    holder.execute("ET").unwrap();
    let r = s.execute("SELECT COUNT(*) FROM q").unwrap();
    assert_eq!(
        r[0].rows.as_ref().unwrap().to_strings(),
        vec![vec!["1".to_string()]]
    );
}
