//! A database on disk keeps committed work across reopen, and only committed work
//! (docs/durability.md).
//! Crashes of a real process are in tests/crash (workspace `tests/`); power cuts with the
//! simulated file system are in `power_cut.rs`.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use tdlite::{Database, Options, SimVfs};

use crate::common::{ints, rows};

pub(crate) const QUEUE: &str =
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

#[test]
fn a_partitioning_survives_reopen_and_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let refused = |db: &Database| {
        let err = db
            .session()
            .execute("INS p (3, 500)")
            .expect_err("a row in no partition");
        assert_eq!(err.code().number, 5728, "{err}");
    };
    {
        let db = Database::open(dir.path()).unwrap();
        let mut s = db.session();
        s.execute("CREATE MULTISET TABLE p (id INTEGER, n INTEGER) PARTITION BY RANGE_N(n BETWEEN 1 AND 10 EACH 1)")
            .unwrap();
        s.execute("INS p (1, 5)").unwrap();
        refused(&db);
    }
    // replayed from the log
    let db = Database::open(dir.path()).unwrap();
    refused(&db);
    // loaded from a checkpoint
    db.checkpoint().unwrap();
    drop(db);
    let db = Database::open(dir.path()).unwrap();
    refused(&db);
    assert_eq!(ints(&db, "SEL SUM(n) FROM p"), vec![5]);
}

#[test]
fn a_macro_survives_reopen() {
    let dir = tempfile::tempdir().unwrap();
    {
        let db = Database::open(dir.path()).unwrap();
        let mut s = db.session();
        s.execute("CREATE TABLE t (n INTEGER)").unwrap();
        s.execute("CREATE MACRO add_n (n INTEGER) AS (INS t (:n); SEL SUM(n) FROM t;)")
            .unwrap();
        s.execute("EXEC add_n (2)").unwrap();
    }
    // replayed from the log
    let db = Database::open(dir.path()).unwrap();
    assert_eq!(ints(&db, "EXEC add_n (3)"), vec![5]);
    assert_eq!(
        rows(
            &db,
            "SEL TableKind FROM DBC.TablesV WHERE TableName = 'add_n'"
        ),
        vec!["M"]
    );
    // loaded from a checkpoint
    db.checkpoint().unwrap();
    drop(db);
    let db = Database::open(dir.path()).unwrap();
    assert_eq!(ints(&db, "EXEC add_n (4)"), vec![9]);
}

#[test]
fn a_queues_consume_order_survives_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let fill = |db: &Database, from: i64| {
        let mut s = db.session();
        for i in from..from + 3_000 {
            // priorities 0..9, QITS counting down: order is by priority, then QITS
            s.execute(&format!(
                "INS jobs (TIMESTAMP '2024-01-01 00:00:00' - INTERVAL '{i}' SECOND(4), {}, {i})",
                i % 10
            ))
            .unwrap();
        }
    };
    let expected = |ids: &[i64]| {
        let mut v = ids.to_vec();
        v.sort_by_key(|&i| (-(i % 10), -i));
        v
    };
    {
        let db = Database::open(dir.path()).unwrap();
        db.session()
            .execute(
                "CREATE TABLE jobs, QUEUE, CONSUME ORDER (prio DESC) (qits TIMESTAMP(6) NOT NULL \
                 DEFAULT CURRENT_TIMESTAMP(6), prio INTEGER NOT NULL, id INTEGER NOT NULL)",
            )
            .unwrap();
        fill(&db, 0);
    }
    // replayed from the log
    let db = Database::open(dir.path()).unwrap();
    let all: Vec<i64> = (0..3_000).collect();
    assert_eq!(
        ints(&db, "SELECT AND CONSUME TOP 100 id FROM jobs"),
        expected(&all)[..100].to_vec()
    );
    // loaded from a checkpoint (with more rows than one segment)
    fill(&db, 3_000);
    db.checkpoint().unwrap();
    drop(db);
    let db = Database::open(dir.path()).unwrap();
    let left: Vec<i64> = expected(&(0..6_000).collect::<Vec<_>>())
        .into_iter()
        .filter(|i| !expected(&all)[..100].contains(i))
        .collect();
    assert_eq!(ints(&db, "SELECT AND CONSUME TOP 6000 id FROM jobs"), left);
}

#[test]
fn delayed_delivery_survives_reopen_and_alter() {
    let dir = tempfile::tempdir().unwrap();
    {
        let db = Database::open(dir.path()).unwrap();
        let mut s = db.session();
        s.execute(
            "CREATE TABLE later, QUEUE, DELIVER AT (qits) (qits TIMESTAMP(6) NOT NULL \
             DEFAULT CURRENT_TIMESTAMP(6), n INTEGER)",
        )
        .unwrap();
        s.execute("INS later (CURRENT_TIMESTAMP + INTERVAL '1' DAY, 1)")
            .unwrap();
        s.execute("INS later (TIMESTAMP '2024-01-01 00:00:00', 2)")
            .unwrap();
    }
    let take_all = "SELECT AND CONSUME TOP 10 n FROM later NOWAIT";
    // replayed from the log: the row due tomorrow stays
    let db = Database::open(dir.path()).unwrap();
    assert_eq!(ints(&db, take_all), vec![2]);
    // loaded from a checkpoint, after a rebuild by ALTER TABLE
    db.session()
        .execute("ALTER TABLE later ADD note VARCHAR(5)")
        .unwrap();
    db.checkpoint().unwrap();
    drop(db);
    let db = Database::open(dir.path()).unwrap();
    assert_eq!(ints(&db, take_all), Vec::<i64>::new());
    assert_eq!(ints(&db, "SELECT n FROM later"), vec![1]);
}

#[test]
fn set_and_unique_checks_hold_after_reopen() {
    // the unique keys and the SET duplicate map are rebuilt from the rows on open (from the
    // log, then from a checkpoint); a row of a table with a unique key is checked by that
    // key, a NULL being a key value (the NULL rows' keys come back too)
    let dir = tempfile::tempdir().unwrap();
    let code = |db: &Database, sql: &str| db.session().execute(sql).err().map(|e| e.code().number);
    let checks = |db: &Database| {
        assert_eq!(code(db, "INS su (1, 10, 'a')"), Some(2803));
        assert_eq!(code(db, "INS su (3, 10, 'c')"), Some(2803));
        assert_eq!(code(db, "INS su (NULL, NULL, 'B ')"), Some(2803));
        assert_eq!(code(db, "INS su (NULL, 5, 'x')"), Some(2803));
        assert_eq!(code(db, "INS su (5, NULL, 'y')"), Some(2803));
        assert_eq!(code(db, "INS st (1)"), Some(2802));
    };
    {
        let db = Database::open(dir.path()).unwrap();
        let mut s = db.session();
        s.execute("CREATE SET TABLE su (k INTEGER, u INTEGER, s VARCHAR(10)) PRIMARY INDEX (s)")
            .unwrap();
        for sql in [
            "CREATE UNIQUE INDEX (k) ON su",
            "CREATE UNIQUE INDEX (u) ON su",
            "CREATE SET TABLE st (n INTEGER)",
            "INS su (1, 10, 'a'); INS su (NULL, NULL, 'b'); INS st (1)",
        ] {
            s.execute(sql).unwrap();
        }
        checks(&db);
    }
    let db = Database::open(dir.path()).unwrap();
    checks(&db);
    db.checkpoint().unwrap();
    drop(db);
    let db = Database::open(dir.path()).unwrap();
    checks(&db);
    assert_eq!(
        rows(&db, "SEL COUNT(*) FROM su"),
        vec!["2"],
        "nothing went in beside the two rows"
    );
}

#[test]
fn a_new_database_folder_tells_git_to_ignore_it_and_an_old_one_is_left_alone() {
    let parent = tempfile::tempdir().unwrap();
    let dir = parent.path().join("mydb");
    drop(Database::open(&dir).unwrap());
    let ignore = dir.join(".gitignore");
    let text = std::fs::read_to_string(&ignore).expect("a new folder has a .gitignore");
    assert!(text.lines().any(|l| l == "*"), "{text}");
    // a folder that already holds a database keeps what its owner did with it
    std::fs::remove_file(&ignore).unwrap();
    let db = Database::open(&dir).unwrap();
    db.session().execute(QUEUE).unwrap();
    drop(db);
    assert!(!ignore.exists());
}

pub(crate) fn wal_file(dir: &Path) -> PathBuf {
    let mut wals: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("wal-"))
        .collect();
    wals.sort();
    wals.pop().expect("a log file")
}

/// A database with queue rows 1..=n committed one request each, closed again.
pub(crate) fn three_commits(dir: &Path) {
    let db = Database::open(dir).unwrap();
    let mut s = db.session();
    s.execute(QUEUE).unwrap();
    for n in 1..=3 {
        s.execute(&format!("INS q (n) VALUES ({n})")).unwrap();
    }
}

/// [`three_commits`], leaving the folder as a crash after the commits would: the manifest as
/// the open wrote it (a clean close records in it how far the log goes, which a crash never
/// gets to do). Cutting the log afterwards then looks like a torn write, not like damage.
pub(crate) fn three_commits_then_crash(dir: &Path) {
    drop(Database::open(dir).unwrap()); // the folder and its manifest
    let manifest = std::fs::read(dir.join("MANIFEST")).unwrap();
    three_commits(dir);
    std::fs::write(dir.join("MANIFEST"), manifest).unwrap();
}

fn flip(path: &Path, at: usize) {
    let mut bytes = std::fs::read(path).unwrap();
    bytes[at] ^= 0x20;
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn a_torn_log_tail_is_zeroed_and_reported() {
    let dir = tempfile::tempdir().unwrap();
    three_commits_then_crash(dir.path());
    let wal = wal_file(dir.path());
    let mut log = std::fs::read(&wal).unwrap();
    let f = frames(&log);
    // a crash while the last insert was being written: no close marker, the record cut
    // short, and the preallocated zeros it was written into still after it
    let cut = f[f.len() - 2].start + 28; // its payload, from its first (non-zero) byte
    log[cut..f[f.len() - 1].end].fill(0);
    std::fs::write(&wal, &log).unwrap();
    let db = Database::open(dir.path()).unwrap();
    let report = db.recovery_report();
    assert_eq!(report.len(), 1, "{report:?}");
    assert!(report[0].contains("torn write"), "{report:?}");
    assert_eq!(ints(&db, "SEL n FROM q ORDER BY n"), vec![1, 2]);
    let zeroed = std::fs::read(&wal).unwrap();
    assert_eq!(zeroed.len(), log.len(), "a log never shrinks");
    assert!(
        zeroed[f[f.len() - 3].end..].iter().all(|&b| b == 0),
        "the torn write is zeroed"
    );
    db.session().execute("INS q (n) VALUES (4)").unwrap();
    drop(db);
    let db = Database::open(dir.path()).unwrap();
    assert!(db.recovery_report().is_empty(), "the repair was durable");
    drop(db);
    let wal = wal_file(dir.path());
    let mut bytes = std::fs::read(&wal).unwrap();
    bytes.extend_from_slice(&[0, 0, 0, 7, 0, 0]); // garbage after the end: zeros, then not
    std::fs::write(&wal, bytes).unwrap();
    let db = Database::open(dir.path()).unwrap();
    assert_eq!(
        db.recovery_report().len(),
        1,
        "non-zero bytes after the end are reported"
    );
    assert_eq!(ints(&db, "SEL n FROM q ORDER BY n"), vec![1, 2, 4]);
}

#[test]
fn damage_to_the_last_record_before_a_clean_close_is_corruption() {
    let dir = tempfile::tempdir().unwrap();
    three_commits(dir.path());
    let wal = wal_file(dir.path());
    let log = std::fs::read(&wal).unwrap();
    let f = frames(&log);
    assert_eq!(
        f.last().unwrap().len(),
        28,
        "a close ends with an empty marker frame"
    );
    flip(&wal, f[f.len() - 2].end - 2); // inside the last insert, which the marker vouches for
    let err = Database::open(dir.path()).err().expect("corrupt log");
    assert_eq!(err.code().number, 9916, "{err}");
}

/// Issue 16: a log cut at a record boundary, or removed, lost committed rows without a word
/// (`truncate -s 24` on the log; the log of a database that never had a checkpoint deleted).
/// The manifest records how far the log went at each open, checkpoint and clean close, and
/// names its log, so less than that is 9916, and the folder is left as it was.
#[test]
fn a_log_cut_short_or_removed_is_9916_never_missing_rows() {
    // cut to its header, or at a record boundary
    for keep_frames in [0, 2] {
        let dir = tempfile::tempdir().unwrap();
        three_commits(dir.path());
        let wal = wal_file(dir.path());
        let log = std::fs::read(&wal).unwrap();
        let cut = if keep_frames == 0 {
            24
        } else {
            frames(&log)[keep_frames - 1].end
        };
        std::fs::write(&wal, &log[..cut]).unwrap();
        let err = Database::open(dir.path()).err().expect("a log cut short");
        assert_eq!(err.code().number, 9916, "{err}");
        assert!(err.to_string().contains(&*wal.to_string_lossy()), "{err}");
        assert!(err.to_string().contains("cut short"), "{err}");
        assert_eq!(
            std::fs::read(&wal).unwrap(),
            &log[..cut],
            "the folder is left as it was"
        );
    }
    // removed: the manifest names it
    let dir = tempfile::tempdir().unwrap();
    three_commits_then_crash(dir.path());
    let wal = wal_file(dir.path());
    std::fs::remove_file(&wal).unwrap();
    let err = Database::open(dir.path()).err().expect("a missing log");
    assert_eq!(err.code().number, 9916, "{err}");
    assert!(err.to_string().contains("missing"), "{err}");
    // after a checkpoint and a reopen, the same
    let dir = tempfile::tempdir().unwrap();
    three_commits(dir.path());
    Database::open(dir.path()).unwrap().checkpoint().unwrap();
    {
        let db = Database::open(dir.path()).unwrap();
        db.session().execute("INS q (n) VALUES (9)").unwrap();
    }
    let wal = wal_file(dir.path());
    std::fs::write(&wal, &std::fs::read(&wal).unwrap()[..24]).unwrap();
    let err = Database::open(dir.path()).err().expect("a log cut short");
    assert_eq!(err.code().number, 9916, "{err}");
}

/// A crash between making a new database's log and its manifest leaves an empty log and no
/// manifest: the next open makes the database as new.
#[test]
fn a_new_database_interrupted_before_its_manifest_opens_as_new() {
    let dir = tempfile::tempdir().unwrap();
    drop(Database::open(dir.path()).unwrap());
    std::fs::remove_file(dir.path().join("MANIFEST")).unwrap();
    let db = Database::open(dir.path()).unwrap();
    db.session().execute(QUEUE).unwrap();
    db.session().execute("INS q (n) VALUES (1)").unwrap();
    drop(db);
    let db = Database::open(dir.path()).unwrap();
    assert_eq!(ints(&db, "SEL n FROM q"), vec![1]);
    drop(db);
    // with a record in the log, a missing manifest is damage
    std::fs::remove_file(dir.path().join("MANIFEST")).unwrap();
    let err = Database::open(dir.path()).err().expect("no manifest");
    assert_eq!(err.code().number, 9916, "{err}");
}

#[test]
fn a_damaged_record_with_intact_records_after_it_refuses_to_open() {
    let dir = tempfile::tempdir().unwrap();
    three_commits(dir.path());
    let wal = wal_file(dir.path());
    let before = std::fs::read(&wal).unwrap();
    flip(&wal, 24 + 28 + 3); // inside the first record (CREATE TABLE)
    let err = Database::open(dir.path()).err().expect("corrupt log");
    assert_eq!(err.code().number, 9916);
    let msg = err.to_string();
    assert!(
        msg.contains(&*wal.to_string_lossy()),
        "names the file: {msg}"
    );
    assert!(msg.contains("was durable"), "{msg}");
    let mut after = std::fs::read(&wal).unwrap();
    after[24 + 28 + 3] ^= 0x20;
    assert_eq!(after, before, "a refused open changes nothing");
}

#[test]
fn a_damaged_checkpoint_file_or_manifest_is_an_error_naming_it() {
    for target in ["arrow", "MANIFEST"] {
        let dir = tempfile::tempdir().unwrap();
        three_commits(dir.path());
        Database::open(dir.path()).unwrap().checkpoint().unwrap();
        let file = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.to_string_lossy().ends_with(target))
            .unwrap();
        let len = std::fs::metadata(&file).unwrap().len() as usize;
        flip(&file, len / 2);
        let err = Database::open(dir.path()).err().expect("damaged file");
        assert_eq!(err.code().number, 9916, "{target}");
        assert!(err.to_string().contains(&*file.to_string_lossy()), "{err}");
    }
}

#[test]
fn checkpoints_keep_tables_rows_ddl_and_insertion_order() {
    let dir = tempfile::tempdir().unwrap();
    let opts = Options {
        checkpoint_bytes: 4096, // checkpoints run on their own as the log grows
        ..Options::default()
    };
    {
        let db = Database::open_with(dir.path(), opts.clone()).unwrap();
        let mut s = db.session();
        s.execute(QUEUE).unwrap();
        s.execute("CREATE TABLE gone (a INTEGER)").unwrap();
        s.execute(
            "CREATE SET TABLE kv (k INTEGER NOT NULL, v VARCHAR(20)) UNIQUE PRIMARY INDEX (k)",
        )
        .unwrap();
        // equal QITS: the insertion sequence decides, and must survive reopen
        for n in 1..=200 {
            s.execute(&format!(
                "INS q (TIMESTAMP '2026-01-01 00:00:00', {n}); INS kv ({n}, 'v{n}')"
            ))
            .unwrap();
        }
        s.execute("DROP TABLE gone").unwrap();
        s.execute("SELECT AND CONSUME TOP 1 n FROM q").unwrap(); // takes n=1
        s.execute("DEL kv WHERE k > 100").unwrap();
        s.execute("UPD kv SET v = 'changed' WHERE k = 7").unwrap();
    }
    let files: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        files.iter().any(|f| f.ends_with(".arrow")),
        "a checkpoint ran: {files:?}"
    );
    let db = Database::open_with(dir.path(), opts).unwrap();
    assert_eq!(db.table_names(), vec!["q", "kv"]);
    assert_eq!(ints(&db, "SEL COUNT(*) FROM kv"), vec![100]);
    assert_eq!(rows(&db, "SEL v FROM kv WHERE k = 7"), vec!["changed"]);
    let mut s = db.session();
    s.execute("INS q (TIMESTAMP '2026-01-01 00:00:00', 999)")
        .unwrap();
    let err = s.execute("INS kv (5, 'dup')").unwrap_err();
    assert_eq!(err.error.code().number, 2801, "unique index rebuilt");
    let mut order = Vec::new();
    for _ in 0..200 {
        let r = crate::common::rows(&db, "SELECT AND CONSUME TOP 1 n FROM q");
        order.push(r[0].parse::<i64>().unwrap());
    }
    let expected: Vec<i64> = (2..=200).chain([999]).collect();
    assert_eq!(
        order, expected,
        "ties leave in insertion order, across reopen"
    );
}

#[test]
fn concurrent_committers_share_log_syncs() {
    let sim = SimVfs::new(7);
    // a slow disk: while one sync runs, the other seven committers have 10 ms to queue theirs
    sim.set_sync_delay(std::time::Duration::from_millis(10));
    let opts = Options {
        vfs: Arc::new(sim.clone()),
        ..Options::default()
    };
    let db = Database::open_with("/db", opts.clone()).unwrap();
    db.session().execute(QUEUE).unwrap();
    let before = sim.syncs();
    let (threads, per_thread) = (8, 20);
    std::thread::scope(|scope| {
        for t in 0..threads {
            let db = db.clone();
            scope.spawn(move || {
                let mut s = db.session();
                for i in 0..per_thread {
                    s.execute(&format!("INS q (n) VALUES ({})", t * 1000 + i))
                        .unwrap();
                }
            });
        }
    });
    let syncs = sim.syncs() - before;
    let commits = threads * per_thread;
    println!("{commits} commits, {syncs} log syncs");
    assert!(
        syncs as i64 <= commits / 2,
        "{commits} commits took {syncs} syncs: commits are not grouped"
    );
    drop(db);
    sim.restart(); // every acknowledged commit was synced
    let db = Database::open_with("/db", opts).unwrap();
    assert_eq!(ints(&db, "SEL COUNT(*) FROM q"), vec![commits]);
}

/// Byte ranges of the frames in a log file (header 24 bytes; frame header 28, length at +4).
pub(crate) fn frames(log: &[u8]) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut at = 24;
    while at + 28 <= log.len() && log[at..at + 4] != [0; 4] {
        let len = u32::from_le_bytes(log[at + 4..at + 8].try_into().unwrap()) as usize;
        out.push(at..at + 28 + len);
        at += 28 + len;
    }
    out
}

#[test]
fn damage_is_a_torn_tail_unless_a_later_record_proves_it_was_synced() {
    for (mode, torn) in [
        (tdlite::SyncMode::Normal, true),
        (tdlite::SyncMode::Full, false),
    ] {
        let sim = SimVfs::new(3);
        let opts = Options {
            sync: mode,
            vfs: Arc::new(sim.clone()),
            ..Options::default()
        };
        let path = Path::new("/db/wal-0000000000000000");
        let db = Database::open_with("/db", opts.clone()).unwrap();
        let mut s = db.session();
        s.execute("CREATE TABLE q, QUEUE (qits TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6), n INTEGER, pad VARCHAR(2000))").unwrap();
        let pad = "p".repeat(1500);
        for n in 1..=3 {
            s.execute(&format!("INS q (n, pad) VALUES ({n}, '{pad}')"))
                .unwrap();
        }
        // everything the process wrote, then the power fails before any close
        let mut log = sim.contents(path).unwrap();
        sim.power_cut();
        drop((s, db));
        sim.restart();
        let f = frames(&log);
        assert_eq!(f.len(), 4, "CREATE and three inserts");
        // the disk saved the last record's pages but lost one of the record before it
        let page = f[2].start.div_ceil(512) * 512;
        assert!(page + 512 <= f[2].end);
        log[page..page + 512].fill(0);
        sim.set_contents(path, log);
        match Database::open_with("/db", opts) {
            // normal: none of the inserts was synced, so this is a torn group write
            Ok(db) if torn => {
                assert_eq!(db.recovery_report().len(), 1);
                assert_eq!(ints(&db, "SEL n FROM q"), vec![1]);
            }
            // full: the last record says the damaged one had been synced: that is corruption
            Err(e) if !torn => assert_eq!(e.code().number, 9916, "{e}"),
            Ok(_) => panic!("{mode:?}: a synced record's damage was taken for a torn tail"),
            Err(e) => panic!("{mode:?}: a torn group write was refused: {e}"),
        }
    }
}

#[test]
fn writes_of_a_killed_process_are_synced_when_the_database_reopens() {
    // sync=normal: commits reach the OS, not the disk; the process is killed (the OS keeps
    // them), the database reopens and goes on, and then the power fails
    let sim = SimVfs::new(11);
    sim.set_tear(tdlite::sim::Tear::Drop);
    let opts = Options {
        sync: tdlite::SyncMode::Normal,
        vfs: Arc::new(sim.clone()),
        ..Options::default()
    };
    let db = Database::open_with("/db", opts.clone()).unwrap();
    let mut s = db.session();
    s.execute(QUEUE).unwrap();
    s.execute("INS q (n) VALUES (1)").unwrap();
    sim.kill();
    std::mem::forget((s, db));
    let db = Database::open_with("/db", opts.clone()).unwrap();
    db.session().execute("INS q (n) VALUES (2)").unwrap();
    sim.power_cut();
    drop(db);
    sim.restart();
    let db = Database::open_with("/db", opts).unwrap();
    let got = ints(&db, "SEL n FROM q ORDER BY n");
    assert!(
        got.starts_with(&[1]),
        "what the reopen replayed was made durable: {got:?}"
    );
}

#[test]
fn ddl_between_open_transactions_leaves_a_database_that_reopens() {
    fn wait_until(cond: impl Fn() -> bool) {
        while !cond() {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let code = |r: Result<Vec<tdlite::StatementResult>, tdlite::PositionedError>| {
        r.err().map(|e| e.error.code().number)
    };
    {
        let db = Database::open(dir.path()).unwrap();
        let (mut a, mut b) = (db.session(), db.session());
        a.execute("CREATE TABLE t (x INTEGER)").unwrap();
        // a name whose DROP is not committed is taken by another transaction only after it
        a.execute("BT; DROP TABLE t").unwrap();
        let creator =
            std::thread::spawn(move || b.execute("CREATE TABLE t (y INTEGER)").map(|_| b));
        wait_until(|| !db.lock_waits().is_empty());
        a.execute("ET").unwrap();
        let mut b = creator.join().unwrap().unwrap();
        assert_eq!(code(a.execute("CREATE TABLE t (z INTEGER)")), Some(3803));
        // a table whose CREATE is not committed is its creator's alone: others wait for it
        a.execute("BT; CREATE TABLE u (x INTEGER)").unwrap();
        let waiter = std::thread::spawn(move || b.execute("INS u (1)").map(|_| b));
        wait_until(|| !db.lock_waits().is_empty());
        a.execute("ET").unwrap();
        let mut b = waiter.join().unwrap().unwrap();
        // a write to a table that another transaction drops, committed after a checkpoint:
        // the DROP waits for the writer, so the log holds the insert before the drop
        a.execute("BT; INS t (5)").unwrap();
        let dropper = std::thread::spawn(move || b.execute("DROP TABLE t").map(|_| ()));
        wait_until(|| !db.lock_waits().is_empty());
        db.checkpoint().unwrap();
        a.execute("ET").unwrap();
        dropper.join().unwrap().unwrap();
    }
    let db = Database::open(dir.path()).unwrap();
    assert_eq!(db.table_names(), vec!["u"]);
    assert_eq!(ints(&db, "SEL x FROM u"), vec![1]);
}

#[test]
fn views_survive_a_checkpoint_and_a_log_replay() {
    let dir = tempfile::tempdir().unwrap();
    {
        let db = Database::open(dir.path()).unwrap();
        let mut s = db.session();
        s.execute("CREATE TABLE t (a INTEGER)").unwrap();
        s.execute("INS t (1); INS t (2);").unwrap();
        s.execute("CREATE VIEW v AS SEL a * 10 AS b FROM t")
            .unwrap();
        db.checkpoint().unwrap();
        // this one is only in the log
        s.execute("CREATE VIEW w (c) AS SEL SUM(b) FROM v").unwrap();
    }
    let db = Database::open(dir.path()).unwrap();
    assert_eq!(ints(&db, "SEL b FROM v ORDER BY b"), vec![10, 20]);
    assert_eq!(ints(&db, "SEL c FROM w"), vec![30]);
    assert_eq!(
        db.session().execute("INS v (3)").unwrap_err().code().number,
        3823
    );
}

/// An UPDATE's new version of a sealed row waits in the tail as a reference to its segment
/// plus the changed values (storage/src/waiting.rs): a checkpoint taken while such rows wait,
/// and the log replayed after it, must bring back every column of every row.
#[test]
fn updated_rows_waiting_on_their_segments_survive_a_checkpoint_and_a_log_replay() {
    let dir = tempfile::tempdir().unwrap();
    let expected = {
        let db = Database::open(dir.path()).unwrap();
        let mut s = db.session();
        s.execute("CREATE TABLE t (k INTEGER NOT NULL PRIMARY KEY, n INTEGER, f VARCHAR(100))")
            .unwrap();
        let ins = s.prepare("INS t (?, 0, ?)").unwrap();
        s.execute("BT").unwrap();
        for k in 0..5_000i64 {
            let f = tdlite::Value::Str(format!("filler of row {k}"));
            s.execute_prepared(&ins, &[tdlite::Value::Int(k), f])
                .unwrap();
        }
        s.execute("ET").unwrap();
        // rows of the first segment get new versions that wait; some are checkpointed waiting
        s.execute("UPDATE t SET n = k WHERE k < 40").unwrap();
        db.checkpoint().unwrap();
        // more, only in the log: rows of the segment, and rows already updated once
        s.execute("UPDATE t SET n = n + 1 WHERE k < 20 OR k BETWEEN 100 AND 110")
            .unwrap();
        rows(&db, "SEL k, n, f FROM t ORDER BY k")
    };
    assert_eq!(expected.len(), 5_000);
    assert_eq!(expected[7], "7|8|filler of row 7");
    assert_eq!(expected[30], "30|30|filler of row 30");
    assert_eq!(expected[105], "105|1|filler of row 105");
    let db = Database::open(dir.path()).unwrap();
    assert_eq!(rows(&db, "SEL k, n, f FROM t ORDER BY k"), expected);
}

/// Wide rows (whose tail chunks are not merged below a full tail: storage's tail.rs) fill
/// segments in memory and on disk alike, updated versions of sealed rows among them, and come
/// back the same after a reopen.
#[test]
fn wide_rows_fill_segments_and_come_back_after_reopen() {
    const N: i64 = 9_000; // two full segments of 4,096 rows and a tail
    let dir = tempfile::tempdir().unwrap();
    let memory = Database::new();
    let disk = Database::open(dir.path()).unwrap();
    let check = "SEL COUNT(*), SUM(n), SUM(CHARACTER_LENGTH(f)), \
        SUM(CASE WHEN SUBSTR(f, 1, 6) = TRIM(CAST(k + 100000 AS VARCHAR(7))) THEN 1 ELSE 0 END) \
        FROM w";
    for db in [&memory, &disk] {
        let mut s = db.session();
        s.execute("CREATE TABLE w (k INTEGER NOT NULL PRIMARY KEY, n INTEGER, f VARCHAR(8000))")
            .unwrap();
        let ins = s.prepare("INS w (?, 0, ?)").unwrap();
        s.execute("BT").unwrap();
        for k in 0..N {
            let f = format!("{}{}", k + 100_000, "x".repeat(4_000 + (k % 7) as usize));
            s.execute_prepared(&ins, &[tdlite::Value::Int(k), tdlite::Value::Str(f)])
                .unwrap();
        }
        s.execute("ET").unwrap();
        // new versions of sealed rows and of tail rows
        s.execute("UPD w SET n = n + k WHERE k MOD 5 = 0").unwrap();
        s.execute("UPD w SET n = n + 1 WHERE k >= 8900").unwrap();
    }
    let want_len: i64 = (0..N).map(|k| 6 + 4_000 + k % 7).sum();
    let want_n: i64 = (0..N).filter(|k| k % 5 == 0).sum::<i64>() + 100;
    let expected = vec![format!("{N}|{want_n}|{want_len}|{N}")];
    assert_eq!(rows(&memory, check), expected);
    assert_eq!(rows(&disk, check), expected);
    let some = "SEL k, n, CHARACTER_LENGTH(f) FROM w WHERE k IN (0, 4095, 4096, 8191, 8192, 8999)";
    let before = rows(&disk, some);
    assert_eq!(before.len(), 6, "{before:?}");
    assert_eq!(before, rows(&memory, some));
    drop(disk);
    let reopened = Database::open(dir.path()).unwrap();
    assert_eq!(rows(&reopened, check), expected);
    assert_eq!(rows(&reopened, some), before);
}
