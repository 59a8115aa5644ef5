//! `concurrent`: one producer and C consumers (1, 2, 4, 8) on one queue, every row checked
//! consumed exactly once; in memory and on disk. `wake`: commit-to-wake latency of a consumer
//! waiting on an empty queue.
//!
//! - concurrent: the producer inserts N rows, one per transaction, while the consumers pop one
//!   row per transaction until all N are consumed; rows/s over the whole run. tdlite consumers
//!   block in the delayed state when the queue is empty; SQLite consumers (one connection per
//!   thread, `BEGIN IMMEDIATE`, 10 s busy timeout) poll every 1 ms. In memory: tdlite's
//!   in-memory database vs a SQLite WAL file in /dev/shm with synchronous=OFF (memory-backed,
//!   so neither touches a disk). On disk: tdlite with full sync (group commit) vs SQLite WAL
//!   with synchronous=FULL, in the temp folder.
//! - each figure is the best of `--rounds` runs (tdlite and SQLite alternating): on this shared
//!   machine the same run varies by up to 3× between tries, the best one being the least
//!   disturbed.
//! - concurrent, prefilled (in memory, and on disk): the fifo target with C consumers. All N rows are
//!   enqueued first (transactions of 1,000, not timed); then the consumers alone pop them, one
//!   row per transaction, so every commit is a consume and group commit can share syncs.
//! - wake: a consumer waits; the producer inserts one row at a random moment 0.3–1 ms later;
//!   latency = from just before the producer's request to the consumer holding the row.

use crate::common::{
    alternate, check_exactly_once, now_us, percentile, remove_sqlite, shm_dir, sqlite, sqlite_fill,
    sqlite_path, sqlite_pop, TdQueue, PAYLOAD,
};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};
use tdlite::{Database, Value};

/// Where a run keeps its data.
#[derive(Clone, Copy, PartialEq)]
enum Place {
    Memory,
    Disk,
}

fn tdlite_db(place: Place, dir: &Path) -> Database {
    match place {
        Place::Memory => Database::new(),
        Place::Disk => {
            let _ = std::fs::remove_dir_all(dir);
            Database::open(dir).expect("open")
        }
    }
}

/// Rows per second for `consumers` consumers moving `n` rows, with a producer running beside
/// them or (`prefilled`) with every row enqueued before the clock starts.
fn tdlite_run(place: Place, consumers: usize, n: i64, prefilled: bool) -> f64 {
    let dir = std::env::temp_dir().join(format!("tdlite-bench-conc-{}", std::process::id()));
    let db = tdlite_db(place, &dir);
    let q = Arc::new(TdQueue::new(&db));
    if prefilled {
        q.fill(&mut db.session(), 0..n, 1_000);
    }
    let taken = Arc::new(AtomicI64::new(0));
    let start = Instant::now();
    let producer = (!prefilled).then(|| {
        let (db, q) = (db.clone(), q.clone());
        thread::spawn(move || {
            let mut s = db.session();
            for id in 0..n {
                s.execute_prepared(&q.insert, &[Value::Int(id), Value::Str(PAYLOAD.into())])
                    .unwrap();
            }
        })
    });
    let workers: Vec<_> = (0..consumers)
        .map(|_| {
            let (db, q, taken) = (db.clone(), q.clone(), taken.clone());
            thread::spawn(move || {
                let mut s = db.session();
                s.set_consume_timeout(Some(Duration::from_millis(20)));
                let mut mine = Vec::new();
                while taken.load(Ordering::Acquire) < n {
                    if let Some(id) = q.pop(&mut s) {
                        mine.push(id);
                        taken.fetch_add(1, Ordering::AcqRel);
                    }
                }
                mine
            })
        })
        .collect();
    let rate = finish(producer, workers, start, n, "tdlite");
    drop(db);
    let _ = std::fs::remove_dir_all(&dir);
    rate
}

fn sqlite_run(place: Place, consumers: usize, n: i64, prefilled: bool) -> f64 {
    let (dir, sync) = match place {
        Place::Memory => (shm_dir(), "OFF"),
        Place::Disk => (std::env::temp_dir(), "FULL"),
    };
    let path = sqlite_path(&dir, &format!("conc{consumers}"));
    let first = sqlite(&path, sync);
    if prefilled {
        sqlite_fill(&first, 0..n, 1_000);
    }
    drop(first);
    let taken = Arc::new(AtomicI64::new(0));
    let start = Instant::now();
    let producer = (!prefilled).then(|| {
        let path = path.clone();
        thread::spawn(move || {
            let c = sqlite(&path, sync);
            let mut st = c
                .prepare("INSERT INTO q (qits, id, payload) VALUES (?1, ?2, ?3)")
                .unwrap();
            for id in 0..n {
                c.execute_batch("BEGIN IMMEDIATE").unwrap();
                st.execute((now_us(), id, PAYLOAD)).unwrap();
                c.execute_batch("COMMIT").unwrap();
            }
        })
    });
    let workers: Vec<_> = (0..consumers)
        .map(|_| {
            let (path, taken) = (path.clone(), taken.clone());
            thread::spawn(move || {
                let c = sqlite(&path, sync);
                let mut mine = Vec::new();
                while taken.load(Ordering::Acquire) < n {
                    match sqlite_pop(&c) {
                        Some(id) => {
                            mine.push(id);
                            taken.fetch_add(1, Ordering::AcqRel);
                        }
                        None => thread::sleep(Duration::from_millis(1)),
                    }
                }
                mine
            })
        })
        .collect();
    let rate = finish(producer, workers, start, n, "SQLite");
    remove_sqlite(&path);
    rate
}

/// Waits for the producer (if any) and the consumers, checks that the `n` rows were consumed
/// exactly once, and returns rows per second since `start`.
fn finish(
    producer: Option<thread::JoinHandle<()>>,
    workers: Vec<thread::JoinHandle<Vec<i64>>>,
    start: Instant,
    n: i64,
    who: &str,
) -> f64 {
    if let Some(p) = producer {
        p.join().unwrap();
    }
    let got: Vec<i64> = workers
        .into_iter()
        .flat_map(|w| w.join().unwrap())
        .collect();
    let secs = start.elapsed().as_secs_f64();
    check_exactly_once(got, n, who);
    n as f64 / secs
}

/// The `prefilled` workload (tdlite alone, in memory, for `perf`): rows/s of `consumers`
/// consumers popping `n` prefilled rows.
pub fn prefilled(consumers: usize, n: i64) -> f64 {
    tdlite_run(Place::Memory, consumers, n, true)
}

/// The `concurrent` workload.
pub fn run(memory_rows: i64, disk_rows: i64, rounds: u32) {
    println!("\n## concurrent: C consumers and 1 producer (or a prefilled queue), one row per transaction, exactly once");
    println!("| where | consumers | tdlite rows/s | SQLite rows/s | tdlite × SQLite | tdlite × its 1 consumer |");
    println!("|---|---|---|---|---|---|");
    // warm-up, not reported: the first run in a fresh process pays for page faults and
    // allocator growth, which would understate the 1-consumer figure the others are set against
    tdlite_run(Place::Memory, 1, memory_rows.min(10_000), false);
    sqlite_run(Place::Memory, 1, memory_rows.min(10_000), false);
    for (place, n, prefilled, label) in [
        (Place::Memory, memory_rows, false, "memory"),
        (Place::Memory, memory_rows, true, "memory, prefilled"),
        (Place::Disk, disk_rows, false, "disk (full sync)"),
        (Place::Disk, disk_rows, true, "disk (full sync), prefilled"),
    ] {
        let mut one = 0.0;
        for consumers in [1, 2, 4, 8] {
            let (t, s) = alternate(
                rounds,
                || tdlite_run(place, consumers, n, prefilled),
                || sqlite_run(place, consumers, n, prefilled),
            );
            if consumers == 1 {
                one = t;
            }
            println!(
                "| {label}, {n} rows | {consumers} | {t:.0} | {s:.0} | {:.2} | {:.2} |",
                t / s,
                t / one
            );
        }
    }
}

/// Runs `wakes` wake-ups: `produce(i)` inserts row i, `consume()` blocks until it has a row.
fn wake_latency(
    wakes: i64,
    produce: impl Fn(i64) + Send + 'static,
    consume: impl FnMut() -> i64 + Send + 'static,
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
    let lat = consumer.join().unwrap();
    (percentile(&lat, 0.5), percentile(&lat, 0.99))
}

/// The `wake` workload.
pub fn wake(wakes: i64) {
    let db = Database::new();
    let q = Arc::new(TdQueue::new(&db));
    let p = Mutex::new(db.session());
    let mut c = db.session();
    let (qp, qc) = (q.clone(), q);
    let (tp50, tp99) = wake_latency(
        wakes,
        move |i| {
            p.lock()
                .unwrap()
                .execute_prepared(&qp.insert, &[Value::Int(i), Value::Str(PAYLOAD.into())])
                .unwrap();
        },
        move || qc.pop(&mut c).expect("a row"),
    );
    let path = sqlite_path(&shm_dir(), "wake");
    let p = Mutex::new(sqlite(&path, "OFF"));
    let c = sqlite(&path, "OFF");
    let (sp50, sp99) = wake_latency(
        wakes,
        move |i| {
            let p = p.lock().unwrap();
            p.execute(
                "INSERT INTO q (qits, id, payload) VALUES (?1, ?2, ?3)",
                (now_us(), i, PAYLOAD),
            )
            .unwrap();
        },
        move || loop {
            if let Some(id) = sqlite_pop(&c) {
                return id;
            }
            thread::sleep(Duration::from_millis(1));
        },
    );
    remove_sqlite(&path);
    println!("\n## wake: commit-to-wake latency of a waiting consumer, {wakes} wake-ups");
    println!("| | p50 µs | p99 µs |");
    println!("|---|---|---|");
    println!("| tdlite (blocked consumer, woken by the commit) | {tp50:.1} | {tp99:.1} |");
    println!("| SQLite (polling every 1 ms) | {sp50:.1} | {sp99:.1} |");
}
