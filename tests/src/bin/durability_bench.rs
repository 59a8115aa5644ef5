//! Durability benchmark: durable commits and consumes on tdlite and SQLite side by side in one
//! run, and the time to reopen a large database. Results: docs/benchmarks.md.
//!
//! ```text
//! cargo run --release -p tdlite-system-tests --features bench --bin durability_bench [-- --secs S --gb G]
//! ```
//!
//! - commit: each of 1 or 8 threads inserts one queue row per transaction, for S seconds
//!   (default 2). tdlite sync=full vs SQLite WAL synchronous=FULL, tdlite sync=normal vs SQLite
//!   WAL synchronous=NORMAL. One session / connection per thread; SQLite with a 10 s busy
//!   timeout and `BEGIN IMMEDIATE`.
//! - consume: 1 or 8 threads each pop the oldest row, one transaction per pop, from a queue
//!   prefilled with 100,000 rows, for S seconds. SQLite: `DELETE … WHERE seq = (SELECT seq …
//!   ORDER BY qits, seq LIMIT 1) RETURNING n` with an index on (qits, seq).
//! - reopen: a queue of about G GiB (default 1) of 1,000-byte rows, checkpointed, closed and
//!   opened again; and the same with 100,000 more rows only in the log. Before each reopen the
//!   OS page cache is emptied if the process may (root), so the figure includes reading the
//!   disk; the output says "cold" or "warm".

use rusqlite::Connection;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::{Duration, Instant};
use tdlite::{Database, Options, SyncMode};

const QUEUE: &str = "CREATE MULTISET TABLE q, QUEUE (qits TIMESTAMP(6) NOT NULL DEFAULT \
    CURRENT_TIMESTAMP(6), n BIGINT NOT NULL, pad VARCHAR(1000))";

fn fresh(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tdlite-bench-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_file(&dir);
    dir
}

fn open_tdlite(dir: &Path, sync: SyncMode) -> Database {
    let opts = Options {
        sync,
        ..Options::default()
    };
    let db = Database::open_with(dir, opts).expect("open");
    if db.table_names().is_empty() {
        db.session().execute(QUEUE).expect("create");
    }
    db
}

fn open_sqlite(path: &Path, sync: &str) -> Connection {
    let c = Connection::open(path).expect("sqlite open");
    c.busy_timeout(Duration::from_secs(10)).unwrap();
    c.execute_batch(&format!(
        "PRAGMA journal_mode=WAL; PRAGMA synchronous={sync};
         CREATE TABLE IF NOT EXISTS q (seq INTEGER PRIMARY KEY, qits INTEGER NOT NULL,
             n INTEGER NOT NULL, pad TEXT);
         CREATE INDEX IF NOT EXISTS q_order ON q (qits, seq);"
    ))
    .unwrap();
    c
}

fn now_us() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_micros() as i64
}

/// Runs `work` on `threads` threads until `secs` pass; returns operations per second.
fn timed<F: Fn(usize, &(dyn Fn() -> bool + Sync)) -> u64 + Sync>(
    threads: usize,
    secs: f64,
    work: F,
) -> f64 {
    let start = Instant::now();
    let end = start + Duration::from_secs_f64(secs);
    let running = || Instant::now() < end;
    let (work, running) = (&work, &running);
    let total: u64 = std::thread::scope(|s| {
        let hs: Vec<_> = (0..threads)
            .map(|t| s.spawn(move || work(t, running)))
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).sum()
    });
    total as f64 / start.elapsed().as_secs_f64()
}

fn tdlite_commits(threads: usize, secs: f64, sync: SyncMode) -> f64 {
    let dir = fresh("commit");
    let db = open_tdlite(&dir, sync);
    let id = AtomicI64::new(0);
    let rate = timed(threads, secs, |_, running| {
        let mut s = db.session();
        let mut n = 0;
        while running() {
            let k = id.fetch_add(1, Ordering::Relaxed);
            s.execute(&format!("INS q (n) VALUES ({k})")).unwrap();
            n += 1;
        }
        n
    });
    drop(db);
    let _ = std::fs::remove_dir_all(&dir);
    rate
}

fn sqlite_commits(threads: usize, secs: f64, sync: &str) -> f64 {
    let path = fresh("commit.sqlite");
    drop(open_sqlite(&path, sync));
    let id = AtomicI64::new(0);
    let rate = timed(threads, secs, |_, running| {
        let c = open_sqlite(&path, sync);
        let mut st = c
            .prepare("INSERT INTO q (qits, n) VALUES (?1, ?2)")
            .unwrap();
        let mut n = 0;
        while running() {
            let k = id.fetch_add(1, Ordering::Relaxed);
            c.execute_batch("BEGIN IMMEDIATE").unwrap();
            st.execute((now_us(), k)).unwrap();
            c.execute_batch("COMMIT").unwrap();
            n += 1;
        }
        n
    });
    cleanup_sqlite(&path);
    rate
}

fn cleanup_sqlite(path: &Path) {
    for ext in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{ext}", path.display()));
    }
}

const PREFILL: i64 = 100_000;

fn tdlite_consumes(threads: usize, secs: f64, sync: SyncMode) -> f64 {
    let dir = fresh("consume");
    let db = open_tdlite(&dir, sync);
    let mut s = db.session();
    for chunk in 0..PREFILL / 1000 {
        let mut sql = String::from("BT;");
        for i in 0..1000 {
            sql += &format!("INS q (n) VALUES ({});", chunk * 1000 + i);
        }
        s.execute(&(sql + "ET;")).unwrap();
    }
    let rate = timed(threads, secs, |_, running| {
        let mut s = db.session();
        s.set_consume_timeout(Some(Duration::ZERO));
        let mut n = 0;
        while running() && s.execute("SELECT AND CONSUME TOP 1 n FROM q").is_ok() {
            n += 1;
        }
        n
    });
    drop((s, db));
    let _ = std::fs::remove_dir_all(&dir);
    rate
}

fn sqlite_consumes(threads: usize, secs: f64, sync: &str) -> f64 {
    let path = fresh("consume.sqlite");
    let c = open_sqlite(&path, sync);
    c.execute_batch("BEGIN").unwrap();
    for i in 0..PREFILL {
        c.execute("INSERT INTO q (qits, n) VALUES (?1, ?2)", (now_us(), i))
            .unwrap();
    }
    c.execute_batch("COMMIT").unwrap();
    drop(c);
    let rate = timed(threads, secs, |_, running| {
        let c = open_sqlite(&path, sync);
        let mut st = c
            .prepare(
                "DELETE FROM q WHERE seq = (SELECT seq FROM q ORDER BY qits, seq LIMIT 1) \
                 RETURNING n",
            )
            .unwrap();
        let mut n = 0;
        while running() {
            c.execute_batch("BEGIN IMMEDIATE").unwrap();
            let got: Option<i64> = st.query_row([], |r| r.get(0)).ok();
            c.execute_batch("COMMIT").unwrap();
            if got.is_none() {
                break;
            }
            n += 1;
        }
        n
    });
    cleanup_sqlite(&path);
    rate
}

fn report(what: &str, ours: f64, peer_name: &str, peer: f64) {
    println!(
        "{what:<40} tdlite {ours:>10.0}/s   {peer_name:<22} {peer:>10.0}/s   ratio {:>6.2}",
        ours / peer
    );
}

/// Builds a queue of about `gib` GiB; returns (rows, seconds to reopen from the checkpoint,
/// seconds to reopen with the last 100,000 rows to replay from the log, bytes on disk, whether
/// the page cache was emptied before each reopen).
fn reopen(gib: f64) -> (i64, f64, f64, u64, bool) {
    let dir = fresh("reopen");
    let rows = (gib * (1u64 << 30) as f64 / 1000.0) as i64;
    let pad = "x".repeat(980);
    let opts = Options {
        sync: SyncMode::Off,
        checkpoint_bytes: u64::MAX,
        ..Options::default()
    };
    let fill = |db: &Database, from: i64, to: i64| {
        let mut s = db.session();
        let mut i = from;
        while i < to {
            let mut sql = String::from("BT;");
            for k in i..(i + 1000).min(to) {
                sql += &format!("INS q (n, pad) VALUES ({k}, '{pad}');");
            }
            s.execute(&(sql + "ET;")).unwrap();
            i += 1000;
        }
    };
    let db = Database::open_with(&dir, opts.clone()).unwrap();
    db.session().execute(QUEUE).unwrap();
    fill(&db, 0, rows);
    db.checkpoint().unwrap();
    drop(db);
    let cold = drop_caches();
    let t = Instant::now();
    let db = Database::open_with(&dir, opts.clone()).unwrap();
    let from_checkpoint = t.elapsed().as_secs_f64();
    fill(&db, rows, rows + 100_000);
    drop(db);
    drop_caches();
    let t = Instant::now();
    let db = Database::open_with(&dir, opts).unwrap();
    let with_log = t.elapsed().as_secs_f64();
    let r = db.session().execute("SEL COUNT(*) FROM q").unwrap();
    let count = &r[0].rows.as_ref().unwrap().to_strings()[0][0];
    assert_eq!(count, &(rows + 100_000).to_string());
    drop(db);
    let bytes = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().metadata().unwrap().len())
        .sum();
    let _ = std::fs::remove_dir_all(&dir);
    (rows, from_checkpoint, with_log, bytes, cold)
}

/// Empties the OS page cache so a reopen reads from the disk (needs root; `false` if not
/// allowed, and the figure is then a warm-cache one).
fn drop_caches() -> bool {
    let synced = std::process::Command::new("sync")
        .status()
        .is_ok_and(|s| s.success());
    synced && std::fs::write("/proc/sys/vm/drop_caches", "3").is_ok()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let flag = |name: &str, default: f64| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let (secs, gib) = (flag("--secs", 2.0), flag("--gb", 1.0));
    println!(
        "durability_bench: {} cores, temp dir {}, {secs} s per figure",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        std::env::temp_dir().display()
    );
    for threads in [1, 8] {
        let ours = tdlite_commits(threads, secs, SyncMode::Full);
        let peer = sqlite_commits(threads, secs, "FULL");
        report(
            &format!("commit, {threads} thread(s), full"),
            ours,
            "sqlite WAL FULL",
            peer,
        );
        let ours = tdlite_commits(threads, secs, SyncMode::Normal);
        let peer = sqlite_commits(threads, secs, "NORMAL");
        report(
            &format!("commit, {threads} thread(s), normal"),
            ours,
            "sqlite WAL NORMAL",
            peer,
        );
    }
    for threads in [1, 8] {
        let ours = tdlite_consumes(threads, secs, SyncMode::Full);
        let peer = sqlite_consumes(threads, secs, "FULL");
        report(
            &format!("consume, {threads} thread(s), full"),
            ours,
            "sqlite WAL FULL",
            peer,
        );
        let ours = tdlite_consumes(threads, secs, SyncMode::Normal);
        let peer = sqlite_consumes(threads, secs, "NORMAL");
        report(
            &format!("consume, {threads} thread(s), normal"),
            ours,
            "sqlite WAL NORMAL",
            peer,
        );
    }
    if gib > 0.0 {
        let (rows, cp, log, bytes, cold) = reopen(gib);
        println!(
            "reopen ({} cache): {rows} rows, {:.2} GiB on disk: {cp:.2} s from the checkpoint; \
             {log:.2} s with 100,000 more rows replayed from the log",
            if cold { "cold" } else { "warm" },
            bytes as f64 / (1u64 << 30) as f64
        );
    }
}
