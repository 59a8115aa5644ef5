//! Bulk inserts (INSERT … SELECT, multi-row VALUES, `execute_batch`) reach storage as whole
//! columns, and as whole segments where they line up with a segment boundary. Whatever the
//! target held before, the rows that come out are the rows that went in, and rollback (of a
//! transaction or of one failing statement), the queue, the ordered indexes and the log treat
//! them as they treat rows inserted one at a time.

use crate::common::{ints, rows};
use tdlite::{Database, Session, SessionMode, Value};

/// More than two segments (4,096 rows each) and a few rows over.
const N: i64 = 2 * 4096 + 1811;

const COLUMNS: &str = "(k INTEGER NOT NULL, v INTEGER, s VARCHAR(20))";

/// `CREATE MULTISET TABLE name … NO PRIMARY INDEX` (no unique key: the whole-segment path).
fn create(s: &mut Session, name: &str) {
    s.execute(&format!(
        "CREATE MULTISET TABLE {name} {COLUMNS} NO PRIMARY INDEX"
    ))
    .unwrap();
}

/// Puts rows `k` in `range` into `table` with one `execute_batch`: `v` is `k mod 7`, NULL
/// when that is 0; `s` is `'row k'`.
fn fill(s: &mut Session, table: &str, range: std::ops::Range<i64>) {
    let ins = s
        .prepare(&format!("INSERT INTO {table} VALUES (?, ?, ?)"))
        .unwrap();
    let sets = range
        .map(|k| {
            let v = if k % 7 == 0 {
                Value::Null
            } else {
                Value::Int(k % 7)
            };
            vec![Value::Int(k), v, Value::Str(format!("row {k}"))]
        })
        .collect();
    s.execute_batch(&ins, sets).unwrap();
}

/// Every row of `table` with `k` in `lo..`, in `k` order, as text.
fn content(db: &Database, table: &str, lo: i64) -> Vec<String> {
    rows(
        db,
        &format!("SELECT k, v, s FROM {table} WHERE k >= {lo} ORDER BY k"),
    )
}

/// Teradata mode's ROLLBACK: the transaction is undone and the request ends in 3514.
fn rollback(s: &mut Session) {
    let err = s.execute("ROLLBACK").unwrap_err();
    assert_eq!(err.code().number, 3514, "{err}");
}

fn count(db: &Database, table: &str) -> i64 {
    ints(db, &format!("SELECT COUNT(*) FROM {table}"))[0]
}

#[test]
fn a_copy_keeps_every_row_whatever_the_tail_held_before() {
    for before in [0, 5, 4096, 4100] {
        let db = Database::new();
        let mut s = db.session();
        create(&mut s, "src");
        create(&mut s, "dst");
        fill(&mut s, "src", 0..N);
        fill(&mut s, "dst", -before..0);
        let r = s.execute("INSERT INTO dst SELECT * FROM src").unwrap();
        assert_eq!(
            r[0].activity_count, N as u64,
            "rows copied ({before} before)"
        );
        assert_eq!(count(&db, "dst"), N + before, "{before} rows before");
        assert_eq!(
            content(&db, "dst", 0),
            content(&db, "src", 0),
            "{before} before"
        );
        assert_eq!(
            ints(&db, "SELECT COUNT(*) FROM dst WHERE k < 0")[0],
            before,
            "the rows that were there stay"
        );
        // a second copy lands after the first, off the segment boundary
        s.execute("INSERT INTO dst SELECT * FROM src WHERE k < 5000")
            .unwrap();
        assert_eq!(count(&db, "dst"), N + before + 5000);
        assert_eq!(
            ints(&db, "SELECT COUNT(*) FROM dst WHERE v IS NULL")[0],
            (N - 1) / 7 + 1 + (4999 / 7 + 1) + before / 7,
            "NULLs kept ({before} before)"
        );
    }
}

#[test]
fn a_rolled_back_copy_leaves_nothing_and_the_table_takes_rows_after_it() {
    let db = Database::new();
    let mut s = db.session();
    create(&mut s, "src");
    create(&mut s, "dst");
    fill(&mut s, "src", 0..N);
    fill(&mut s, "dst", -3..0);
    s.execute("BT").unwrap();
    s.execute("INSERT INTO dst SELECT * FROM src").unwrap();
    assert_eq!(
        ints(&db, "SELECT COUNT(*) FROM dst")[0],
        3,
        "others do not see it"
    );
    rollback(&mut s);
    assert_eq!(count(&db, "dst"), 3);
    s.execute("INSERT INTO dst SELECT * FROM src WHERE k < 10")
        .unwrap();
    assert_eq!(count(&db, "dst"), 13);
    assert_eq!(
        content(&db, "dst", 0),
        content(&db, "src", 0)[..10].to_vec()
    );
}

#[test]
fn a_copy_failing_on_a_late_row_undoes_the_rows_before_it() {
    // the source's batches go in one by one: an error in the last one must take back the
    // ones already in (ANSI mode: the statement is undone, the transaction stays)
    let db = Database::new();
    let mut s = db.session_in(SessionMode::Ansi);
    create(&mut s, "src");
    s.execute("COMMIT").unwrap();
    s.execute("CREATE MULTISET TABLE small (k INTEGER NOT NULL, v SMALLINT) NO PRIMARY INDEX")
        .unwrap();
    s.execute("COMMIT").unwrap();
    fill(&mut s, "src", 0..N);
    s.execute(&format!("UPDATE src SET v = 100000 WHERE k = {}", N - 1))
        .unwrap();
    s.execute("COMMIT").unwrap();
    s.execute("INSERT INTO small VALUES (-1, 1)").unwrap();
    let err = s
        .execute("INSERT INTO small SELECT k, v FROM src")
        .unwrap_err();
    assert_eq!(err.code().number, 2616, "{err}");
    s.execute("COMMIT").unwrap();
    assert_eq!(ints(&db, "SELECT k FROM small"), vec![-1]);
}

#[test]
fn a_bulk_insert_into_a_queue_is_consumed_in_order_by_this_and_other_sessions() {
    let db = Database::new();
    let mut s = db.session();
    create(&mut s, "src");
    fill(&mut s, "src", 0..N);
    s.execute(
        "CREATE TABLE q, QUEUE (qits TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6), \
         k INTEGER, s VARCHAR(20))",
    )
    .unwrap();
    // rolled back: nothing to consume afterwards
    s.execute("BT").unwrap();
    s.execute("INSERT INTO q (k, s) SELECT k, s FROM src")
        .unwrap();
    rollback(&mut s);
    assert_eq!(count(&db, "q"), 0);

    s.execute("BT").unwrap();
    s.execute("INSERT INTO q (k, s) SELECT k, s FROM src ORDER BY k")
        .unwrap();
    let pop = |s: &mut Session| {
        let r = s.execute("SELECT AND CONSUME TOP 1 k FROM q").unwrap();
        let rows = r[0].rows.as_ref().unwrap().to_strings();
        rows.first().map(|r| r[0].parse::<i64>().unwrap())
    };
    // its own pending rows, oldest first, before commit
    assert_eq!((pop(&mut s), pop(&mut s)), (Some(0), Some(1)));
    s.execute("ET").unwrap();
    let mut other = db.session();
    for k in 2..N {
        assert_eq!(
            pop(&mut other),
            Some(k),
            "FIFO across the whole bulk insert"
        );
    }
    assert_eq!(count(&db, "q"), 0);
}

#[test]
fn an_ordered_index_finds_every_bulk_inserted_row() {
    let db = Database::new();
    let mut s = db.session();
    create(&mut s, "src");
    create(&mut s, "dst");
    s.execute("CREATE INDEX (v) ON dst").unwrap();
    fill(&mut s, "src", 0..N);
    fill(&mut s, "dst", -2..0);
    s.execute("INSERT INTO dst SELECT * FROM src").unwrap();
    for v in 1..7 {
        let want = (0..N).filter(|k| k % 7 == v).count() as i64;
        assert_eq!(
            ints(&db, &format!("SELECT COUNT(*) FROM dst WHERE v = {v}"))[0],
            want,
            "v = {v}"
        );
    }
    // rolled back: its rows leave the index too
    s.execute("BT").unwrap();
    s.execute("INSERT INTO dst SELECT * FROM src").unwrap();
    rollback(&mut s);
    let want = (0..N).filter(|k| k % 7 == 3).count() as i64;
    assert_eq!(ints(&db, "SELECT COUNT(*) FROM dst WHERE v = 3")[0], want);
}

#[test]
fn a_set_table_copy_drops_duplicates_one_row_at_a_time() {
    let db = Database::new();
    let mut s = db.session();
    create(&mut s, "src");
    fill(&mut s, "src", 0..N);
    s.execute("CREATE SET TABLE st (v INTEGER) NO PRIMARY INDEX")
        .unwrap();
    let r = s.execute("INSERT INTO st SELECT v FROM src").unwrap();
    assert_eq!(
        r[0].activity_count, 7,
        "one row per distinct v (NULL included)"
    );
    assert_eq!(count(&db, "st"), 7);
}

#[test]
fn a_bulk_insert_survives_reopen_less_what_its_transaction_deleted() {
    let dir = tempfile::tempdir().unwrap();
    {
        let db = Database::open(dir.path()).unwrap();
        let mut s = db.session();
        create(&mut s, "src");
        create(&mut s, "dst");
        fill(&mut s, "src", 0..N);
        s.execute("BT").unwrap();
        s.execute("INSERT INTO dst SELECT * FROM src").unwrap();
        s.execute("DELETE FROM dst WHERE k < 100").unwrap();
        s.execute("ET").unwrap();
        s.execute("BT").unwrap();
        s.execute("INSERT INTO dst SELECT * FROM src").unwrap();
        rollback(&mut s);
    }
    let db = Database::open(dir.path()).unwrap();
    assert_eq!(count(&db, "dst"), N - 100);
    assert_eq!(content(&db, "dst", 0), content(&db, "src", 100));
}
