//! A database on disk keeps committed work across reopen, and only committed work: SPEC.md §5.
//! Crashes of a real process are in tests/crash (workspace `tests/`); power cuts with the
//! simulated file system are in `power_cut.rs`.

use arrow::util::display::{ArrayFormatter, FormatOptions};
use std::path::Path;
use std::sync::Arc;
use tdlite::{Database, Options, SimVfs};

/// Each row of the last result as one string, cells joined by `|`.
fn rows(db: &Database, sql: &str) -> Vec<String> {
    let r = db.session().execute(sql).unwrap();
    let rows = r.last().unwrap().rows.as_ref().unwrap();
    let mut out = Vec::new();
    for b in &rows.batches {
        let fmt: Vec<_> = b
            .columns()
            .iter()
            .map(|c| ArrayFormatter::try_new(c.as_ref(), &FormatOptions::default()).unwrap())
            .collect();
        for i in 0..b.num_rows() {
            let cells: Vec<String> = fmt.iter().map(|f| f.value(i).to_string()).collect();
            out.push(cells.join("|"));
        }
    }
    out
}

const QUEUE: &str =
    "CREATE TABLE q, QUEUE (qits TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6), n INTEGER)";

#[test]
fn committed_work_survives_reopen_and_uncommitted_work_does_not() {
    let sim = SimVfs::new(1);
    let dir = Path::new("/db");
    let opts = Options {
        vfs: Arc::new(sim.clone()),
        ..Options::default()
    };
    let qits_before;
    {
        let db = Database::open_with(dir, opts.clone()).unwrap();
        let mut s = db.session();
        s.execute(QUEUE).unwrap();
        for n in 1..=5 {
            s.execute(&format!("INS q (n) VALUES ({n})")).unwrap();
        }
        s.execute("SELECT AND CONSUME TOP 1 * FROM q").unwrap(); // n=1, committed
        qits_before = rows(&db, "SEL CAST(qits AS VARCHAR(30)), n FROM q ORDER BY 2");
        let mut open = db.session();
        open.execute("BT; SELECT AND CONSUME TOP 1 * FROM q")
            .unwrap(); // n=2, never committed
        open.execute("INS q (n) VALUES (99)").unwrap(); // never committed
        sim.power_cut(); // the machine dies with the transaction open: no rollback runs
        std::mem::forget(open);
    }
    sim.restart();
    let db = Database::open_with(dir, opts).unwrap();
    assert!(db.recovery_report().is_empty());
    assert_eq!(
        rows(&db, "SEL CAST(qits AS VARCHAR(30)), n FROM q ORDER BY 2"),
        qits_before,
        "committed rows with their QITS; the uncommitted consume is undone, the insert gone"
    );
    let got = rows(&db, "SELECT AND CONSUME TOP 1 n FROM q");
    assert_eq!(got, vec!["2"], "the oldest row is first again");
}

#[test]
fn a_second_open_of_the_same_folder_fails_until_the_first_is_closed() {
    let dir = tempfile::tempdir().unwrap();
    let db = Database::open(dir.path()).unwrap();
    db.session().execute(QUEUE).unwrap();
    let err = Database::open(dir.path())
        .err()
        .expect("the folder is locked");
    assert_eq!(err.code().number, 9915);
    assert!(err.to_string().contains("another process"), "{err}");
    drop(db);
    let db = Database::open(dir.path()).unwrap();
    assert_eq!(db.table_names(), vec!["q"]);
}
