//! Issue 16: a log file cut short or removed is 9916, never a database with committed rows
//! quietly gone, even for commits after the last open or checkpoint (docs/durability.md).
//!
//! A log never shrinks and always ends in zeros, so a cut is seen by the file alone; a log a
//! checkpoint left ends with a frame naming the next one, so the next one missing, or cut to
//! its header, is seen too. A log a checkpoint made but never switched to is removed.

use std::path::{Path, PathBuf};
use tdlite::Database;

use crate::common::ints;
use crate::durability::{frames, three_commits_then_crash, wal_file, QUEUE};

/// Asserts that opening `dir` is 9916 mentioning each of `what` and leaves every file as it
/// was.
fn refused(dir: &Path, what: &[&str]) {
    let before = folder(dir);
    let err = Database::open(dir).err().expect("a damaged folder opened");
    assert_eq!(err.code().number, 9916, "{err}");
    for w in what {
        assert!(err.to_string().contains(w), "{err}");
    }
    assert_eq!(folder(dir), before, "a refused open changes nothing");
}

fn folder(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files: Vec<(PathBuf, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| (p.clone(), std::fs::read(&p).unwrap()))
        .collect();
    files.sort();
    files
}

/// The gap issue 16 left open in the tenth session: records a process logged after its open,
/// then crashed, were protected by their checksums only, so a cut between two of them looked
/// like the end of the log.
#[test]
fn a_cut_after_the_last_open_is_9916_at_a_record_boundary_or_inside_one() {
    for (what, keep) in [
        ("at a record boundary", 0),
        ("inside a record", 5),
        ("inside a record, just before its end", 1),
    ] {
        let dir = tempfile::tempdir().unwrap();
        three_commits_then_crash(dir.path());
        let wal = wal_file(dir.path());
        let log = std::fs::read(&wal).unwrap();
        let f = frames(&log);
        // the manifest says nothing was durable: only the file itself can tell
        let cut = if keep == 0 { f[2].end } else { f[3].end - keep };
        std::fs::write(&wal, &log[..cut]).unwrap();
        eprintln!("{what}");
        refused(dir.path(), &["cut short"]);
    }
}

/// A crash while the log grew leaves zeros (or the old length), never less than a record had:
/// appends made after the growth are what a power cut may tear.
#[test]
fn a_log_that_grew_past_its_first_chunk_still_reopens_after_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    three_commits_then_crash(dir.path());
    {
        let db = Database::open(dir.path()).unwrap();
        let mut s = db.session();
        let pad = "x".repeat(60_000);
        s.execute("CREATE MULTISET TABLE big (v VARCHAR(64000))")
            .unwrap();
        for _ in 0..80 {
            s.execute(&format!("INS big ('{pad}')")).unwrap();
        }
        std::mem::forget((s, db)); // killed: no close marker, no manifest update
    }
    let wal = wal_file(dir.path());
    let len = std::fs::metadata(&wal).unwrap().len();
    assert!(len > 4 << 20, "the log grew past one chunk: {len}");
    assert_eq!(len % (4 << 20), 0, "it grows by whole chunks");
    // the forgotten database still holds the folder's lock: reopen a copy of what the killed
    // process left on disk
    let copy = tempfile::tempdir().unwrap();
    for (path, bytes) in folder(dir.path()) {
        let name = path.file_name().unwrap();
        if name != "LOCK" {
            std::fs::write(copy.path().join(name), bytes).unwrap();
        }
    }
    let db = Database::open(copy.path()).unwrap();
    assert_eq!(ints(&db, "SEL COUNT(*) FROM big"), vec![80]);
    assert_eq!(ints(&db, "SEL n FROM q ORDER BY n"), vec![1, 2, 3]);
}

/// A database whose checkpoint wrote its next log and switched to it, then failed to write
/// its manifest: commits went on in the next log, which the manifest does not name.
fn switched_but_no_manifest(dir: &Path) -> (PathBuf, PathBuf) {
    let db = Database::open(dir).unwrap();
    let mut s = db.session();
    s.execute(QUEUE).unwrap();
    s.execute("INS q (n) VALUES (1)").unwrap();
    s.execute("INS q (n) VALUES (2)").unwrap();
    let blocker = dir.join("MANIFEST.tmp");
    std::fs::create_dir(&blocker).unwrap(); // writing the manifest fails
    assert!(
        db.checkpoint().is_err(),
        "the manifest could not be written"
    );
    s.execute("INS q (n) VALUES (3)").unwrap();
    drop((s, db));
    std::fs::remove_dir(&blocker).unwrap();
    let log = |g: u64| dir.join(format!("wal-{g:016x}"));
    assert!(log(0).exists() && log(1).exists());
    (log(0), log(1))
}

#[test]
fn a_checkpoint_switch_without_its_manifest_reopens_with_every_row() {
    let dir = tempfile::tempdir().unwrap();
    switched_but_no_manifest(dir.path());
    let db = Database::open(dir.path()).unwrap();
    assert!(
        db.recovery_report().is_empty(),
        "{:?}",
        db.recovery_report()
    );
    assert_eq!(ints(&db, "SEL n FROM q ORDER BY n"), vec![1, 2, 3]);
    db.session().execute("INS q (n) VALUES (4)").unwrap();
    drop(db);
    let db = Database::open(dir.path()).unwrap();
    assert_eq!(ints(&db, "SEL n FROM q ORDER BY n"), vec![1, 2, 3, 4]);
}

#[test]
fn the_log_a_checkpoint_switched_to_removed_or_cut_is_9916() {
    // removed: the log before it names it
    let dir = tempfile::tempdir().unwrap();
    let (_, next) = switched_but_no_manifest(dir.path());
    std::fs::remove_file(&next).unwrap();
    refused(dir.path(), &["wal-0000000000000001", "missing"]);
    // cut to its header
    let dir = tempfile::tempdir().unwrap();
    let (_, next) = switched_but_no_manifest(dir.path());
    let bytes = std::fs::read(&next).unwrap();
    std::fs::write(&next, &bytes[..24]).unwrap();
    refused(dir.path(), &["cut short"]);
    // the switch itself erased (zeros where the next-log frame was): the log before looks
    // complete, but the next one has records it never switched to
    let dir = tempfile::tempdir().unwrap();
    let (first, _) = switched_but_no_manifest(dir.path());
    let mut bytes = std::fs::read(&first).unwrap();
    let f = frames(&bytes);
    let marker = f.last().unwrap().clone();
    assert_eq!(marker.len(), 28 + 9, "the last frame names the next log");
    bytes[marker].fill(0);
    std::fs::write(&first, bytes).unwrap();
    refused(dir.path(), &["never switched to it"]);
}

/// A crash after a checkpoint made its next log but before it switched: the log holds a
/// header (whole, torn, or not even that) and zeros, and nothing was logged in it.
#[test]
fn a_log_a_checkpoint_made_but_never_used_is_removed_and_logging_goes_on() {
    let header = tdlite_storage::wal::file_header(1, 7);
    for made in [header.clone(), header[..10].to_vec(), Vec::new()] {
        let dir = tempfile::tempdir().unwrap();
        crate::durability::three_commits(dir.path());
        let next = dir.path().join("wal-0000000000000001");
        let mut bytes = made.clone();
        bytes.resize(4096, 0);
        std::fs::write(&next, &bytes).unwrap();
        let db = Database::open(dir.path()).unwrap();
        let report = db.recovery_report().to_vec();
        assert!(
            report.len() == 1 && report[0].contains("never used"),
            "{report:?}"
        );
        assert!(!next.exists());
        db.session().execute("INS q (n) VALUES (4)").unwrap();
        drop(db);
        let db = Database::open(dir.path()).unwrap();
        assert!(db.recovery_report().is_empty());
        assert_eq!(ints(&db, "SEL n FROM q ORDER BY n"), vec![1, 2, 3, 4]);
    }
    // with a record in it, it was used: the log before it must have switched
    let dir = tempfile::tempdir().unwrap();
    crate::durability::three_commits(dir.path());
    let mut bytes = tdlite_storage::wal::file_header(1, 7);
    tdlite_storage::wal::encode_frame(&mut bytes, 7, 6, 5, b"");
    bytes.resize(4096, 0);
    std::fs::write(dir.path().join("wal-0000000000000001"), bytes).unwrap();
    refused(dir.path(), &["never switched to it"]);
}

/// A folder written by a version that cut the zero tail off its log at every open (and kept
/// no `sealed_from` in its manifest) still opens, and follows the rules from then on.
#[test]
fn a_folder_of_an_older_version_opens_and_then_keeps_the_rules() {
    let dir = tempfile::tempdir().unwrap();
    crate::durability::three_commits(dir.path());
    let manifest_path = dir.path().join("MANIFEST");
    let mut m =
        tdlite_storage::checkpoint::decode_manifest(&std::fs::read(&manifest_path).unwrap())
            .unwrap();
    m.sealed_from = None;
    std::fs::write(
        &manifest_path,
        tdlite_storage::checkpoint::encode_manifest(&m),
    )
    .unwrap();
    let wal = wal_file(dir.path());
    let log = std::fs::read(&wal).unwrap();
    let end = frames(&log).last().unwrap().end;
    std::fs::write(&wal, &log[..end]).unwrap(); // what those versions left
    let db = Database::open(dir.path()).unwrap();
    assert_eq!(ints(&db, "SEL n FROM q ORDER BY n"), vec![1, 2, 3]);
    drop(db);
    let m = tdlite_storage::checkpoint::decode_manifest(&std::fs::read(&manifest_path).unwrap())
        .unwrap();
    assert_eq!(m.sealed_from, Some(0));
    assert!(
        std::fs::metadata(&wal).unwrap().len() > end as u64,
        "a zero tail again"
    );
    // and now a cut is seen
    let log = std::fs::read(&wal).unwrap();
    std::fs::write(&wal, &log[..frames(&log)[1].end]).unwrap();
    refused(dir.path(), &["cut short"]);
}
