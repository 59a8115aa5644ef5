//! Volatile tables (Teradata's `CREATE VOLATILE TABLE`): private to the session that made
//! them, in the logon user's database, gone when the session ends, never logged (a reopen
//! does not see them and opens cleanly), emptied at each commit unless ON COMMIT PRESERVE
//! ROWS, and listed by HELP VOLATILE TABLE. Also the instances of global temporary tables,
//! which are volatile tables made from a permanent definition.

use crate::common::rows;
use tdlite::{Database, Session};

fn strings(s: &mut Session, sql: &str) -> Vec<String> {
    let r = s.execute(sql).unwrap();
    let rows = r.last().unwrap().rows.as_ref().unwrap();
    rows.to_strings().iter().map(|r| r.join("|")).collect()
}

fn code(s: &mut Session, sql: &str) -> u32 {
    s.execute(sql).unwrap_err().code().number
}

#[test]
fn a_volatile_table_belongs_to_its_session_and_goes_with_it() {
    let db = Database::new();
    let mut a = db.session();
    let mut b = db.session();
    a.execute("CREATE VOLATILE TABLE vt (n INTEGER) ON COMMIT PRESERVE ROWS")
        .unwrap();
    a.execute("INSERT INTO vt VALUES (1)").unwrap();
    a.execute("INS TDLITE.vt (2)").unwrap();
    assert_eq!(strings(&mut a, "SEL n FROM vt ORDER BY n"), ["1", "2"]);
    // another session does not see it, and may have one of the same name
    assert_eq!(code(&mut b, "SEL n FROM vt"), 3807);
    b.execute("CREATE VOLATILE TABLE vt (other VARCHAR(5)) ON COMMIT PRESERVE ROWS")
        .unwrap();
    b.execute("INS vt ('b')").unwrap();
    assert_eq!(strings(&mut b, "SEL * FROM vt"), ["b"]);
    assert_eq!(strings(&mut a, "SEL COUNT(*) FROM vt"), ["2"]);
    // not in the dictionary views, in HELP VOLATILE TABLE of its own session only
    assert!(rows(&db, "SEL TableName FROM DBC.TablesV").is_empty());
    let help = strings(&mut a, "HELP VOLATILE TABLE");
    assert_eq!(help.len(), 1);
    assert!(
        help[0].contains("|vt|") && help[0].contains("|P|"),
        "{}",
        help[0]
    );
    // the session ends: its volatile tables go
    drop(a);
    let mut c = db.session();
    assert_eq!(code(&mut c, "SEL n FROM vt"), 3807);
    assert_eq!(strings(&mut b, "SEL * FROM vt"), ["b"]);
    // a permanent table may now take the name; b's own name is then ambiguous for b
    c.execute("CREATE TABLE vt (p INTEGER)").unwrap();
    c.execute("INS vt (5)").unwrap();
    assert_eq!(code(&mut b, "SEL * FROM vt"), 3806);
    // an ambiguous DROP drops nothing
    assert_eq!(code(&mut b, "DROP TABLE vt"), 3806);
    assert_eq!(strings(&mut c, "SEL p FROM vt"), ["5"]);
    // a volatile table may not take the name of a permanent one, nor the reverse for the
    // session that has the volatile one
    assert_eq!(code(&mut c, "CREATE VOLATILE TABLE vt (q INTEGER)"), 3803);
    b.execute("CREATE VOLATILE TABLE mine (n INTEGER)").unwrap();
    assert_eq!(code(&mut b, "CREATE TABLE mine (n INTEGER)"), 3803);
    assert_eq!(code(&mut b, "CREATE VIEW mine AS SEL 1 AS x"), 3803);
    // a view (which outlives the session) of a volatile table is refused
    assert_eq!(
        code(&mut b, "CREATE VIEW over_mine AS SEL n FROM mine"),
        9910
    );
    // nor can a volatile copy of a queue table be a queue
    c.execute("CREATE TABLE q, QUEUE (qits TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6), n INTEGER)")
        .unwrap();
    assert_eq!(
        code(&mut c, "CREATE VOLATILE TABLE vq AS q WITH NO DATA"),
        9903
    );
}

#[test]
fn on_commit_delete_rows_is_the_default_and_empties_at_each_commit() {
    let db = Database::new();
    let mut s = db.session();
    s.execute("CREATE VOLATILE TABLE d (n INTEGER)").unwrap();
    // Teradata mode: each request commits, so the rows are gone after it
    s.execute("INS d (1)").unwrap();
    assert_eq!(strings(&mut s, "SEL COUNT(*) FROM d"), ["0"]);
    // inside one transaction they are there until it ends
    s.execute("BT").unwrap();
    s.execute("INS d (1)").unwrap();
    s.execute("INS d (2)").unwrap();
    assert_eq!(strings(&mut s, "SEL COUNT(*) FROM d"), ["2"]);
    s.execute("ET").unwrap();
    assert_eq!(strings(&mut s, "SEL COUNT(*) FROM d"), ["0"]);
    // or in one multi-statement request
    assert_eq!(
        strings(&mut s, "INS d (1); INS d (2); SEL COUNT(*) FROM d"),
        ["2"]
    );
    assert_eq!(strings(&mut s, "SEL COUNT(*) FROM d"), ["0"]);
    // CREATE … AS … WITH DATA without PRESERVE ROWS ends empty too, as on Teradata
    s.execute("CREATE VOLATILE TABLE e AS (SELECT 1 AS x) WITH DATA")
        .unwrap();
    assert_eq!(strings(&mut s, "SEL COUNT(*) FROM e"), ["0"]);
    s.execute("CREATE VOLATILE TABLE f AS (SELECT 1 AS x) WITH DATA ON COMMIT PRESERVE ROWS")
        .unwrap();
    assert_eq!(strings(&mut s, "SEL x FROM f"), ["1"]);
}

#[test]
fn drop_and_create_of_a_volatile_table_roll_back() {
    let db = Database::new();
    let mut s = db.session();
    s.execute("CREATE VOLATILE TABLE v (n INTEGER) ON COMMIT PRESERVE ROWS")
        .unwrap();
    s.execute("INS v (7)").unwrap();
    s.execute("BT").unwrap();
    // (DDL ends a BT: ET or ROLLBACK must follow, 3932 otherwise)
    s.execute("DROP TABLE v").unwrap();
    assert_eq!(code(&mut s, "ROLLBACK"), 3514);
    assert_eq!(strings(&mut s, "SEL n FROM v"), ["7"]);
    s.execute("BT").unwrap();
    s.execute("CREATE VOLATILE TABLE w (n INTEGER)").unwrap();
    assert_eq!(code(&mut s, "ROLLBACK"), 3514);
    assert_eq!(code(&mut s, "SEL n FROM w"), 3807);
    // LOCKING names it like any table; ALTER is refused rather than half done
    assert_eq!(
        strings(&mut s, "LOCKING TABLE v FOR ACCESS SEL n FROM v"),
        ["7"]
    );
    assert_eq!(code(&mut s, "ALTER TABLE v ADD m INTEGER"), 9910);
    // another database than the user's is refused
    s.execute("CREATE DATABASE sales AS PERM = 0").unwrap();
    assert_eq!(
        code(&mut s, "CREATE VOLATILE TABLE sales.x (n INTEGER)"),
        9910
    );
    // with a default database, a volatile table is still the user's
    s.execute("DATABASE sales").unwrap();
    s.execute("CREATE VOLATILE TABLE y (n INTEGER) ON COMMIT PRESERVE ROWS")
        .unwrap();
    s.execute("INS y (1)").unwrap();
    assert_eq!(strings(&mut s, "SEL n FROM TDLITE.y"), ["1"]);
    assert_eq!(strings(&mut s, "SEL n FROM y"), ["1"]);
}

#[test]
fn volatile_tables_are_never_logged_and_a_reopen_does_not_see_them() {
    let dir = tempfile::tempdir().unwrap();
    {
        let db = Database::open(dir.path()).unwrap();
        let mut s = db.session();
        s.execute("CREATE TABLE keep (n INTEGER)").unwrap();
        s.execute("CREATE VOLATILE TABLE gone (n INTEGER) ON COMMIT PRESERVE ROWS")
            .unwrap();
        s.execute("INS gone (1)").unwrap();
        s.execute("INS keep (1)").unwrap();
        s.execute("UPD gone SET n = 2").unwrap();
        s.execute("DEL FROM gone").unwrap();
        s.execute("INS gone (3)").unwrap();
        s.execute("CHECKPOINT").ok();
        s.execute("INS keep (2)").unwrap();
        // the session stays open as the database closes: nothing of gone reached the log
    }
    let db = Database::open(dir.path()).unwrap();
    assert_eq!(db.table_names(), vec!["keep"]);
    assert_eq!(rows(&db, "SEL n FROM keep ORDER BY n"), ["1", "2"]);
    let mut s = db.session();
    assert_eq!(code(&mut s, "SEL n FROM gone"), 3807);
    // its name is free, and a new volatile table of that name starts empty
    s.execute("CREATE VOLATILE TABLE gone (n INTEGER) ON COMMIT PRESERVE ROWS")
        .unwrap();
    assert_eq!(strings(&mut s, "SEL COUNT(*) FROM gone"), ["0"]);
}

/// Global temporary tables: the definition is logged and comes back after a reopen; the rows
/// of a session's instance are never logged (the instance is a volatile table), go with the
/// session, and the instance is not listed by HELP VOLATILE TABLE.
#[test]
fn a_global_temporary_table_keeps_its_definition_and_never_its_rows() {
    let dir = tempfile::tempdir().unwrap();
    {
        let db = Database::open(dir.path()).unwrap();
        let mut s = db.session();
        s.execute("CREATE GLOBAL TEMPORARY TABLE gtt (n INTEGER) ON COMMIT PRESERVE ROWS")
            .unwrap();
        s.execute("INS gtt (1)").unwrap();
        s.execute("UPD gtt SET n = 2").unwrap();
        s.execute("INS gtt (3)").unwrap();
        assert_eq!(strings(&mut s, "SEL n FROM gtt ORDER BY n"), ["2", "3"]);
        assert_eq!(
            s.execute("HELP VOLATILE TABLE").unwrap()[0]
                .rows
                .as_ref()
                .unwrap()
                .num_rows(),
            0
        );
        // another session's instance is its own, and goes with it
        let mut t = db.session();
        t.execute("INS gtt (7)").unwrap();
        assert_eq!(strings(&mut t, "SEL n FROM gtt"), ["7"]);
        assert_eq!(code(&mut s, "DROP TABLE gtt"), 5337);
        drop(t);
        s.execute("CHECKPOINT").ok();
        s.execute("INS gtt (4)").unwrap();
        assert_eq!(strings(&mut s, "SEL COUNT(*) FROM gtt"), ["3"]);
        // the session stays open as the database closes: nothing of its rows reached the log
    }
    let db = Database::open(dir.path()).unwrap();
    assert_eq!(db.table_names(), vec!["gtt"]);
    let mut s = db.session();
    assert_eq!(strings(&mut s, "SEL COUNT(*) FROM gtt"), ["0"]);
    s.execute("INS gtt (5)").unwrap();
    assert_eq!(strings(&mut s, "SEL n FROM gtt"), ["5"]);
    // the session's end drops its instance, and then the definition may go
    drop(s);
    let mut s = db.session();
    s.execute("DROP TABLE gtt").unwrap();
    assert_eq!(code(&mut s, "SEL n FROM gtt"), 3807);
}

/// An instance outlives a definition that goes without DROP (here a CREATE another session
/// rolls back, which DROP's 5337 check does not see): the next use finds no table, and once a
/// table of that name is made again, the session gets a new instance of it, never the old
/// rows or columns.
#[test]
fn an_instance_of_a_definition_that_is_gone_is_replaced() {
    let db = Database::new();
    let mut a = db.session_in(tdlite::SessionMode::Ansi);
    let mut b = db.session();
    a.execute("CREATE GLOBAL TEMPORARY TABLE o (n INTEGER) ON COMMIT PRESERVE ROWS")
        .unwrap();
    // (an ordinary table would make b wait for a's EXCLUSIVE lock; an instance is private)
    b.execute("INS o (1)").unwrap();
    a.execute("ROLLBACK").unwrap();
    assert_eq!(code(&mut b, "SEL * FROM o"), 3807);
    a.execute("CREATE GLOBAL TEMPORARY TABLE o (w VARCHAR(5)) ON COMMIT PRESERVE ROWS")
        .unwrap();
    a.execute("COMMIT").unwrap();
    assert_eq!(strings(&mut b, "SEL COUNT(*) FROM o"), ["0"]);
    b.execute("INS o ('x')").unwrap();
    assert_eq!(strings(&mut b, "SEL w FROM o"), ["x"]);
    // a LOCKING modifier locks the session's own instance (or nothing, before the statement
    // makes one), never the shared definition, so two sessions' EXCLUSIVE locks do not meet
    a.execute("CREATE GLOBAL TEMPORARY TABLE p (n INTEGER) ON COMMIT PRESERVE ROWS")
        .unwrap();
    a.execute("COMMIT").unwrap();
    // (the second time round, each session has its instance from the first)
    for count in ["0", "1"] {
        b.execute("BT").unwrap();
        b.execute("LOCKING TABLE p FOR EXCLUSIVE SEL COUNT(*) FROM p")
            .unwrap();
        b.execute("INS p (1)").unwrap();
        let lock = "LOCKING TABLE p FOR EXCLUSIVE NOWAIT SEL COUNT(*) FROM p";
        assert_eq!(strings(&mut a, lock), [count]);
        a.execute("INS p (2)").unwrap();
        a.execute("COMMIT").unwrap();
        b.execute("ET").unwrap();
    }
    assert_eq!(strings(&mut a, "SEL COUNT(*) FROM p"), ["2"]);
    assert_eq!(strings(&mut b, "SEL COUNT(*) FROM p"), ["2"]);
}
