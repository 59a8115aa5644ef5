//! `browse`: a reader that scans a big queue must not hold up its consumers. A queue of N
//! rows; one session consumes P rows (one transaction each) alone, then again while another
//! thread runs `SELECT COUNT(*) FROM q WHERE payload LIKE '%zzz%'` in a loop. Reported per
//! engine: consumes per second, p50 / p99 / p99.9 / max latency of one consume, and the
//! browser's scans per second; and a control beside a thread that only spins, to tell the
//! machine's stalls from the engine's. SQLite's peer is a WAL database on a memory-backed folder (a
//! reader and a writer need two connections to one file), with `synchronous=OFF`.

use crate::common::{
    check_exactly_once, percentile, remove_sqlite, shm_dir, sqlite, sqlite_fill, sqlite_path,
    sqlite_pop, TdQueue,
};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;
use tdlite::Database;

/// The browser's statement, on both engines.
const BROWSE: &str = "SELECT COUNT(*) FROM q WHERE payload LIKE '%zzz%'";

/// One phase's figures.
struct Phase {
    per_s: f64,
    p50: f64,
    p99: f64,
    p999: f64,
    max: f64,
    scans_per_s: f64,
}

/// Pops ids `first..first + pops` with `pop` while `browse` (if any) loops on another thread.
fn phase(
    first: i64,
    pops: i64,
    mut pop: impl FnMut() -> Option<i64>,
    browse: Option<Box<dyn FnMut() + Send>>,
) -> Phase {
    let stop = Arc::new(AtomicBool::new(false));
    let scans = Arc::new(AtomicU64::new(0));
    let browser = browse.map(|mut browse| {
        let (stop, scans) = (stop.clone(), scans.clone());
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                browse();
                scans.fetch_add(1, Ordering::Relaxed);
            }
        })
    });
    if browser.is_some() {
        // let the browser get going before the timing starts
        while scans.load(Ordering::Relaxed) == 0 {
            std::thread::yield_now();
        }
    }
    let mut lat = Vec::with_capacity(pops as usize);
    let mut got = Vec::with_capacity(pops as usize);
    let start = Instant::now();
    for _ in 0..pops {
        let t = Instant::now();
        got.push(pop().expect("the queue ran dry") - first);
        lat.push(t.elapsed().as_secs_f64() * 1e6);
    }
    let secs = start.elapsed().as_secs_f64();
    let scanned = scans.load(Ordering::Relaxed);
    stop.store(true, Ordering::Relaxed);
    if let Some(b) = browser {
        b.join().expect("the browser thread");
    }
    check_exactly_once(got, pops, "browse");
    Phase {
        per_s: pops as f64 / secs,
        p50: percentile(&lat, 0.5),
        p99: percentile(&lat, 0.99),
        p999: percentile(&lat, 0.999),
        max: lat.iter().copied().fold(0.0, f64::max),
        scans_per_s: scanned as f64 / secs,
    }
}

fn print(engine: &str, alone: &Phase, browsed: &Phase, control: &Phase) {
    for (label, p) in [
        ("alone", alone),
        ("with the browser", browsed),
        ("beside a spinning thread (control)", control),
    ] {
        println!(
            "| {engine} | {label} | {:.0} | {:.1} / {:.1} / {:.1} / {:.1} | {} |",
            p.per_s,
            p.p50,
            p.p99,
            p.p999,
            p.max,
            match label {
                "with the browser" => format!("{:.1}", p.scans_per_s),
                _ => "–".to_string(),
            }
        );
    }
    println!(
        "| {engine} | browsed / alone | {:.2}× | max {:.1}× | |",
        browsed.per_s / alone.per_s,
        browsed.max / alone.max
    );
}

/// The control's "browser": 10 ms of arithmetic, no engine. A consume that stalls beside it
/// was stalled by the machine (two busy threads on two cores leave no room for anything else
/// that wakes up), not by the engine.
fn spin() {
    let t = Instant::now();
    let mut x = 1u64;
    while t.elapsed().as_millis() < 10 {
        for _ in 0..1000 {
            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
        }
    }
}

/// The `browse` workload (`pops` × 3 must not exceed `n`).
pub fn run(n: i64, pops: i64) {
    let pops = pops.min(n / 3);
    println!("\n## browse: consume {pops} of {n} rows alone, then beside `{BROWSE}` in a loop");
    println!("| engine | phase | consumes/s | p50 / p99 / p99.9 / max µs | browser scans/s |");
    println!("|---|---|---|---|---|");
    let db = Database::new();
    let q = TdQueue::new(&db);
    let mut s = db.session();
    q.fill(&mut s, 0..n, 10_000);
    let alone = phase(0, pops, || q.pop(&mut s), None);
    let mut reader = db.session();
    let browse = Box::new(move || {
        reader.execute(BROWSE).expect("browse");
    });
    let browsed = phase(pops, pops, || q.pop(&mut s), Some(browse));
    let control = phase(2 * pops, pops, || q.pop(&mut s), Some(Box::new(spin)));
    print("tdlite", &alone, &browsed, &control);
    drop(s);
    drop(db);

    let path = sqlite_path(&shm_dir(), "browse");
    let c = sqlite(&path, "OFF");
    sqlite_fill(&c, 0..n, 10_000);
    let alone = phase(0, pops, || sqlite_pop(&c), None);
    let reader = sqlite(&path, "OFF");
    let browse = Box::new(move || {
        reader
            .query_row(BROWSE, [], |r| r.get::<_, i64>(0))
            .expect("browse");
    });
    let browsed = phase(pops, pops, || sqlite_pop(&c), Some(browse));
    let control = phase(2 * pops, pops, || sqlite_pop(&c), Some(Box::new(spin)));
    print("SQLite", &alone, &browsed, &control);
    drop(c);
    remove_sqlite(&path);
}
