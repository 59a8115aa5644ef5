//! Concurrency benchmark (issue 4): consume throughput with many consumers and producers, and
//! the commit-to-wake latency of a waiting consumer, on tdlite and SQLite in the same run.
//! Results: docs/benchmarks.md.
//!
//! ```text
//! cargo run --release -p tdlite-system-tests --bin queue_bench [-- --rows N --wakes W]
//! ```
//!
//! - throughput: P producers (1 or 2) insert N rows in all (default 40,000), one row per
//!   transaction, while C consumers (1, 2, 4, 8) pop one row per transaction until every row
//!   is consumed; rows/s over the whole run, every row checked consumed exactly once. Run
//!   twice: from an empty queue (consumers mostly wait: each row is a wake-up; rate over the
//!   whole run), and from a backlog of N committed rows (rate over the time until N rows were
//!   consumed: the queue is never empty then, so consumers always contend for the head).
//!   tdlite: in memory, consumers block in the delayed state when the queue is empty.
//!   SQLite: a WAL database in /dev/shm (memory-backed, synchronous=OFF, so neither side
//!   touches a disk), one connection per thread, 10 s busy timeout, `BEGIN IMMEDIATE`, pop by
//!   `DELETE … WHERE seq = (SELECT seq … ORDER BY qits, seq LIMIT 1) RETURNING id`, polling
//!   every 1 ms when empty.
//! - wake: one consumer waits on an empty queue; a producer inserts one row (and commits) at a
//!   random moment; latency = from just before the producer's request to the consumer having
//!   the row. W times (default 2,000); p50 and p99.

use rusqlite::Connection;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};
use tdlite::Database;

const QUEUE: &str = "CREATE MULTISET TABLE q, QUEUE (qits TIMESTAMP(6) NOT NULL DEFAULT \
    CURRENT_TIMESTAMP(6), id BIGINT NOT NULL)";

use tdlite_system_tests::arg;

fn sqlite_path(name: &str) -> PathBuf {
    let base = if std::path::Path::new("/dev/shm").is_dir() {
        PathBuf::from("/dev/shm")
    } else {
        std::env::temp_dir()
    };
    let p = base.join(format!("tdlite-qbench-{}-{name}.db", std::process::id()));
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", p.display()));
    }
    p
}

fn sqlite(path: &PathBuf) -> Connection {
    let c = Connection::open(path).expect("sqlite open");
    c.busy_timeout(Duration::from_secs(10)).unwrap();
    c.execute_batch(
        "PRAGMA journal_mode=WAL; PRAGMA synchronous=OFF;
         CREATE TABLE IF NOT EXISTS q (seq INTEGER PRIMARY KEY, qits INTEGER NOT NULL,
             id INTEGER NOT NULL);
         CREATE INDEX IF NOT EXISTS q_order ON q (qits, seq);",
    )
    .unwrap();
    c
}

fn now_us() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_micros() as i64)
}

/// Splits `n` ids among `p` producers; returns producer `i`'s ids.
fn share(n: u64, p: u64, i: u64) -> std::ops::Range<u64> {
    (n * i / p)..(n * (i + 1) / p)
}

fn check(mut got: Vec<u64>, n: u64, who: &str) {
    got.sort_unstable();
    let expected: Vec<u64> = (0..n).collect();
    assert!(got == expected, "{who}: rows not consumed exactly once");
}

fn tdlite_throughput(producers: u64, consumers: u64, n: u64, backlog: u64) -> f64 {
    let db = Database::new();
    db.session().execute(QUEUE).unwrap();
    let mut s = db.session();
    for chunk in (0..backlog).collect::<Vec<_>>().chunks(500) {
        let sql: String = chunk
            .iter()
            .map(|id| format!("INS q (CURRENT_TIMESTAMP, {id});"))
            .collect();
        s.execute(&sql).unwrap();
    }
    let total = n + backlog;
    let taken = Arc::new(AtomicU64::new(0));
    let got = Arc::new(Mutex::new(Vec::with_capacity(total as usize)));
    let backlog_done = Arc::new(Mutex::new(None));
    let start = Instant::now();
    let mut threads = Vec::new();
    for i in 0..producers {
        let db = db.clone();
        threads.push(thread::spawn(move || {
            let mut s = db.session();
            for id in share(n, producers, i).map(|id| id + backlog) {
                s.execute(&format!("INS q (CURRENT_TIMESTAMP, {id})"))
                    .unwrap();
            }
        }));
    }
    for _ in 0..consumers {
        let (db, taken, got) = (db.clone(), taken.clone(), got.clone());
        let backlog_done = backlog_done.clone();
        threads.push(thread::spawn(move || {
            let mut s = db.session();
            s.set_consume_timeout(Some(Duration::from_millis(20)));
            let mut mine = Vec::new();
            while taken.load(Ordering::Acquire) < total {
                if let Ok(r) = s.execute("SEL AND CONSUME TOP 1 id FROM q") {
                    let v = r[0].rows.as_ref().unwrap().to_strings();
                    mine.push(v[0][0].parse::<u64>().unwrap());
                    if taken.fetch_add(1, Ordering::AcqRel) + 1 == backlog {
                        *backlog_done.lock().unwrap() = Some(Instant::now());
                    }
                }
            }
            got.lock().unwrap().extend(mine);
        }));
    }
    finish(
        threads,
        start,
        &backlog_done,
        &got,
        (total, backlog),
        "tdlite",
    )
}

/// Joins the threads, checks every row was consumed once, and returns the rate.
fn finish(
    threads: Vec<thread::JoinHandle<()>>,
    start: Instant,
    backlog_done: &Mutex<Option<Instant>>,
    got: &Mutex<Vec<u64>>,
    (total, backlog): (u64, u64),
    who: &str,
) -> f64 {
    for t in threads {
        t.join().unwrap();
    }
    let secs = start.elapsed().as_secs_f64();
    let backlog_secs = backlog_done
        .lock()
        .unwrap()
        .map(|t| t.duration_since(start).as_secs_f64());
    check(std::mem::take(&mut got.lock().unwrap()), total, who);
    rate(total, secs, backlog, backlog_secs)
}

fn sqlite_pop(c: &Connection) -> Option<u64> {
    c.execute_batch("BEGIN IMMEDIATE").unwrap();
    let r = c
        .query_row(
            "DELETE FROM q WHERE seq = (SELECT seq FROM q ORDER BY qits, seq LIMIT 1) RETURNING id",
            [],
            |row| row.get::<_, i64>(0),
        )
        .ok();
    c.execute_batch("COMMIT").unwrap();
    r.map(|v| v as u64)
}

fn sqlite_throughput(producers: u64, consumers: u64, n: u64, backlog: u64) -> f64 {
    let path = sqlite_path(&format!("tp{producers}{consumers}"));
    {
        let c = sqlite(&path);
        c.execute_batch("BEGIN").unwrap();
        for id in 0..backlog {
            c.execute(
                "INSERT INTO q (qits, id) VALUES (?1, ?2)",
                (now_us(), id as i64),
            )
            .unwrap();
        }
        c.execute_batch("COMMIT").unwrap();
    }
    let total = n + backlog;
    let taken = Arc::new(AtomicU64::new(0));
    let got = Arc::new(Mutex::new(Vec::with_capacity(total as usize)));
    let backlog_done = Arc::new(Mutex::new(None));
    let start = Instant::now();
    let mut threads = Vec::new();
    for i in 0..producers {
        let path = path.clone();
        threads.push(thread::spawn(move || {
            let c = sqlite(&path);
            let mut st = c
                .prepare("INSERT INTO q (qits, id) VALUES (?1, ?2)")
                .unwrap();
            for id in share(n, producers, i).map(|id| id + backlog) {
                c.execute_batch("BEGIN IMMEDIATE").unwrap();
                st.execute((now_us(), id as i64)).unwrap();
                c.execute_batch("COMMIT").unwrap();
            }
        }));
    }
    for _ in 0..consumers {
        let (path, taken, got) = (path.clone(), taken.clone(), got.clone());
        let backlog_done = backlog_done.clone();
        threads.push(thread::spawn(move || {
            let c = sqlite(&path);
            let mut mine = Vec::new();
            while taken.load(Ordering::Acquire) < total {
                match sqlite_pop(&c) {
                    Some(id) => {
                        mine.push(id);
                        if taken.fetch_add(1, Ordering::AcqRel) + 1 == backlog {
                            *backlog_done.lock().unwrap() = Some(Instant::now());
                        }
                    }
                    None => thread::sleep(Duration::from_millis(1)),
                }
            }
            got.lock().unwrap().extend(mine);
        }));
    }
    let r = finish(
        threads,
        start,
        &backlog_done,
        &got,
        (total, backlog),
        "SQLite",
    );
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
    r
}

/// Rows per second: over the whole run from an empty queue; with a backlog, over the time the
/// consumers took to consume as many rows as the backlog held (the queue was never empty
/// then, so that is the rate of consumers contending for the head, not of hand-offs).
fn rate(total: u64, secs: f64, backlog: u64, backlog_secs: Option<f64>) -> f64 {
    match backlog_secs {
        Some(b) if backlog > 0 => backlog as f64 / b,
        _ => total as f64 / secs,
    }
}

fn percentile(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    v[((v.len() as f64 - 1.0) * p).round() as usize]
}

/// Runs `wakes` wake-ups: `produce(i)` inserts row i, `consume()` blocks until it has a row.
fn wake_latency(
    wakes: u64,
    produce: impl Fn(u64) + Send + 'static,
    consume: impl FnMut() -> u64 + Send + 'static,
) -> (f64, f64) {
    let sent: Arc<Vec<Mutex<Option<Instant>>>> =
        Arc::new((0..wakes).map(|_| Mutex::new(None)).collect());
    let ready = Arc::new(AtomicBool::new(false));
    let consumer = {
        let (sent, ready) = (sent.clone(), ready.clone());
        let mut consume = consume;
        thread::spawn(move || {
            let mut lat = Vec::new();
            for _ in 0..wakes {
                ready.store(true, Ordering::Release);
                let id = consume();
                let at = Instant::now();
                let t0 = sent[id as usize]
                    .lock()
                    .unwrap()
                    .expect("sent before taken");
                lat.push(at.duration_since(t0).as_secs_f64() * 1e6);
            }
            lat
        })
    };
    let mut rng = 0x9E37_79B9_7F4A_7C15u64;
    for i in 0..wakes {
        while !ready.swap(false, Ordering::AcqRel) {
            thread::yield_now();
        }
        // let the consumer get to its wait, then a little random extra
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        thread::sleep(Duration::from_micros(300 + rng % 700));
        *sent[i as usize].lock().unwrap() = Some(Instant::now());
        produce(i);
    }
    let mut lat = consumer.join().unwrap();
    (percentile(&mut lat, 0.5), percentile(&mut lat, 0.99))
}

fn tdlite_wake(wakes: u64) -> (f64, f64) {
    let db = Database::new();
    db.session().execute(QUEUE).unwrap();
    let p = Mutex::new(db.session());
    let mut c = db.session();
    wake_latency(
        wakes,
        move |i| {
            p.lock()
                .unwrap()
                .execute(&format!("INS q (CURRENT_TIMESTAMP, {i})"))
                .unwrap();
        },
        move || {
            let r = c.execute("SEL AND CONSUME TOP 1 id FROM q").unwrap();
            r[0].rows.as_ref().unwrap().to_strings()[0][0]
                .parse()
                .unwrap()
        },
    )
}

fn sqlite_wake(wakes: u64) -> (f64, f64) {
    let path = sqlite_path("wake");
    let p = Mutex::new(sqlite(&path));
    let c = sqlite(&path);
    wake_latency(
        wakes,
        move |i| {
            let p = p.lock().unwrap();
            p.execute(
                "INSERT INTO q (qits, id) VALUES (?1, ?2)",
                (now_us(), i as i64),
            )
            .unwrap();
        },
        move || loop {
            if let Some(id) = sqlite_pop(&c) {
                return id;
            }
            thread::sleep(Duration::from_millis(1));
        },
    )
}

fn main() {
    let n = arg("--rows", 40_000);
    let wakes = arg("--wakes", 2_000);
    // `--profile P C`: only tdlite with P producers and C consumers (for perf)
    if let Some(i) = std::env::args().position(|a| a == "--profile") {
        let p = std::env::args()
            .nth(i + 1)
            .and_then(|v| v.parse().ok())
            .unwrap_or(1);
        let c = std::env::args()
            .nth(i + 2)
            .and_then(|v| v.parse().ok())
            .unwrap_or(8);
        let b = arg("--backlog", 0);
        println!(
            "tdlite {p} producers {c} consumers: {:.0} rows/s",
            tdlite_throughput(p, c, n, b)
        );
        return;
    }
    println!(
        "queue_bench: {} cores; {n} rows per throughput run; {wakes} wake-ups",
        thread::available_parallelism().map_or(1, |n| n.get())
    );
    for (backlog, what) in [
        (
            0,
            "queue starts empty: consumers mostly wait, every row is a hand-off",
        ),
        (
            n,
            "queue starts with a backlog of N rows: consumers contend for the head",
        ),
    ] {
        println!("\nconsume throughput, {what} (rows/s, each row consumed exactly once;");
        println!("tdlite in memory, SQLite WAL in /dev/shm):");
        println!("producers consumers       tdlite       SQLite  tdlite/SQLite");
        let mut one = [0.0; 3];
        for producers in [1, 2] {
            for consumers in [1, 2, 4, 8] {
                let t = tdlite_throughput(producers, consumers, n, backlog);
                let s = sqlite_throughput(producers, consumers, n, backlog);
                if consumers == 1 {
                    one[producers as usize] = t;
                }
                let vs_one = t / one[producers as usize];
                println!(
                    "{producers:>9} {consumers:>9} {t:>12.0} {s:>12.0} {:>13.2}x   (tdlite {vs_one:.2}x of 1 consumer)",
                    t / s
                );
            }
        }
    }
    println!("\ncommit-to-wake latency of a waiting consumer (µs):");
    let (tp50, tp99) = tdlite_wake(wakes);
    let (sp50, sp99) = sqlite_wake(wakes);
    println!("            p50        p99");
    println!("tdlite {tp50:>8.1} {tp99:>10.1}");
    println!("SQLite {sp50:>8.1} {sp99:>10.1}   (polling every 1 ms)");
    println!(
        "tdlite/SQLite: p50 {:.2}x faster, p99 {:.2}x faster",
        sp50 / tp50,
        sp99 / tp99
    );
}
