//! `fifo`: enqueue N rows in transactions of 1,000, then consume them all, one transaction
//! per consume; per-consume latency p50/p99 and consumes per second. In memory (tdlite
//! in-memory database vs SQLite `:memory:`), and on disk: tdlite's full sync vs SQLite WAL with
//! synchronous=FULL (every commit synced) and =NORMAL (a commit is written, not synced), and
//! tdlite's normal sync (also written, not synced) vs synchronous=NORMAL. In memory also with
//! the whole row taken (`qits, id, payload`, every value read out of the result on both
//! sides), and with an index on the id (tdlite's PRIMARY INDEX, SQLite's index). `depth`: the cost of one consume with 10k, 100k and 1M rows waiting.

use crate::common::{
    alternate, check_exactly_once, memory_sqlite, now_us, percentile, remove_sqlite, sqlite,
    sqlite_fill, sqlite_path, timed, TdQueue, PAYLOAD, SQLITE_POP,
};
use arrow::array::AsArray;
use arrow::datatypes::{Int64Type, TimestampMicrosecondType};
use rusqlite::Connection;
use std::time::Instant;
use tdlite::{Database, Options, SyncMode};

/// One engine's fifo figures.
#[derive(Clone, Copy, Default)]
struct Fifo {
    enqueue_per_s: f64,
    consume_per_s: f64,
    p50_us: f64,
    p99_us: f64,
}

impl Fifo {
    /// The figures of `n` rows enqueued in `fill` and drained at (rate, p50, p99).
    fn of(n: i64, fill: std::time::Duration, (rate, p50, p99): (f64, f64, f64)) -> Fifo {
        Fifo {
            enqueue_per_s: n as f64 / fill.as_secs_f64(),
            consume_per_s: rate,
            p50_us: p50,
            p99_us: p99,
        }
    }
}

/// Consumes `n` rows with `pop`, timing each; checks each id came exactly once.
fn drain(n: i64, who: &str, mut pop: impl FnMut() -> Option<i64>) -> (f64, f64, f64) {
    let mut lat = Vec::with_capacity(n as usize);
    let mut got = Vec::with_capacity(n as usize);
    let start = Instant::now();
    for _ in 0..n {
        let t = Instant::now();
        let id = pop().unwrap_or_else(|| panic!("{who}: the queue ran dry"));
        lat.push(t.elapsed().as_secs_f64() * 1e6);
        got.push(id);
    }
    let secs = start.elapsed().as_secs_f64();
    check_exactly_once(got, n, who);
    (
        n as f64 / secs,
        percentile(&lat, 0.5),
        percentile(&lat, 0.99),
    )
}

fn tdlite_fifo(db: &Database, n: i64) -> Fifo {
    let q = TdQueue::new(db);
    let mut s = db.session();
    let (_, fill) = timed(|| q.fill(&mut s, 0..n, 1_000));
    let (rate, p50, p99) = drain(n, "tdlite", || q.pop(&mut s));
    Fifo::of(n, fill, (rate, p50, p99))
}

/// tdlite's fifo taking the whole row (`SEL AND CONSUME TOP 1 qits, id, payload`) and reading
/// every value out of the result, as a consumer that processes the message does.
fn tdlite_fifo_whole_row(db: &Database, n: i64) -> Fifo {
    let q = TdQueue::new(db);
    let mut s = db.session();
    let consume = s
        .prepare("SEL AND CONSUME TOP 1 qits, id, payload FROM q")
        .unwrap();
    let (_, fill) = timed(|| q.fill(&mut s, 0..n, 1_000));
    let (rate, p50, p99) = drain(n, "tdlite", || {
        let r = s.execute_prepared(&consume, &[]).ok()?;
        let rows = r.first()?.rows.as_ref()?;
        let b = rows.batches.iter().find(|b| b.num_rows() > 0)?;
        let qits = b
            .column(0)
            .as_primitive_opt::<TimestampMicrosecondType>()?
            .value(0);
        let id = b.column(1).as_primitive_opt::<Int64Type>()?.value(0);
        let payload = b.column(2).as_string_opt::<i32>()?.value(0);
        (qits > 0 && payload.len() == PAYLOAD.len()).then_some(id)
    });
    Fifo::of(n, fill, (rate, p50, p99))
}

/// SQLite's fifo returning the whole row (`RETURNING qits, id, payload`), every value read.
fn sqlite_fifo_whole_row(c: &Connection, n: i64) -> Fifo {
    let (_, fill) = timed(|| sqlite_fill(c, 0..n, 1_000));
    let mut pop = c
        .prepare(
            "DELETE FROM q WHERE seq = (SELECT seq FROM q ORDER BY qits, seq LIMIT 1) \
             RETURNING qits, id, payload",
        )
        .unwrap();
    let (rate, p50, p99) = drain(n, "SQLite", || {
        pop.query_row([], |r| {
            let qits: i64 = r.get(0)?;
            let id: i64 = r.get(1)?;
            let payload: String = r.get(2)?;
            Ok((qits > 0 && payload.len() == PAYLOAD.len()).then_some(id))
        })
        .ok()
        .flatten()
    });
    Fifo::of(n, fill, (rate, p50, p99))
}

fn sqlite_fifo(c: &Connection, n: i64) -> Fifo {
    let (_, fill) = timed(|| sqlite_fill(c, 0..n, 1_000));
    let mut pop = c.prepare(SQLITE_POP).unwrap();
    let (rate, p50, p99) = drain(n, "SQLite", || {
        pop.query_row([], |r| r.get::<_, i64>(0)).ok()
    });
    Fifo::of(n, fill, (rate, p50, p99))
}

fn print(label: &str, td: Fifo, lite: Fifo) {
    println!(
        "| {label} | {:.0} | {:.0} | {:.0} ({:.2}×) | {:.0} | {:.1} / {:.1} | {:.1} / {:.1} |",
        td.enqueue_per_s,
        lite.enqueue_per_s,
        td.consume_per_s,
        td.consume_per_s / lite.consume_per_s,
        lite.consume_per_s,
        td.p50_us,
        td.p99_us,
        lite.p50_us,
        lite.p99_us
    );
}

/// Runs the best of `rounds` alternating runs of each side; keeps the run with the best
/// consume rate.
fn best(rounds: u32, mut td: impl FnMut() -> Fifo, mut lite: impl FnMut() -> Fifo) -> (Fifo, Fifo) {
    let (mut a, mut b) = (Fifo::default(), Fifo::default());
    for _ in 0..rounds.max(1) {
        let x = td();
        if x.consume_per_s > a.consume_per_s {
            a = x;
        }
        let y = lite();
        if y.consume_per_s > b.consume_per_s {
            b = y;
        }
    }
    (a, b)
}

/// The `fifo` workload.
pub fn run(n: i64, disk_rows: i64, rounds: u32) {
    println!("\n## fifo: enqueue in transactions of 1,000, then one transaction per consume");
    println!("| where | tdlite enqueue/s | SQLite enqueue/s | tdlite consume/s (× SQLite) | SQLite consume/s | tdlite p50 / p99 µs | SQLite p50 / p99 µs |");
    println!("|---|---|---|---|---|---|---|");
    let (td, lite) = best(
        rounds,
        || tdlite_fifo(&Database::new(), n),
        || sqlite_fifo(&memory_sqlite(), n),
    );
    print(&format!("memory, {n} rows"), td, lite);
    let (td, lite) = best(
        rounds,
        || tdlite_fifo_whole_row(&Database::new(), n),
        || sqlite_fifo_whole_row(&memory_sqlite(), n),
    );
    print(
        &format!("memory, {n} rows, the whole row taken (qits, id, payload)"),
        td,
        lite,
    );
    // an index on a column (a Teradata queue's PRIMARY INDEX, say) costs each enqueue and
    // consume its upkeep: tdlite's keyed queue (selective consume), SQLite's index
    let (td, lite) = best(
        rounds,
        || {
            let db = Database::new();
            let pi = format!("{} PRIMARY INDEX (id)", crate::common::TD_QUEUE);
            db.session().execute(&pi).unwrap();
            tdlite_fifo(&db, n)
        },
        || {
            let c = memory_sqlite();
            c.execute_batch("CREATE INDEX q_id ON q (id)").unwrap();
            sqlite_fifo(&c, n)
        },
    );
    print(&format!("memory, {n} rows, an index on id"), td, lite);
    let dir = std::env::temp_dir().join(format!("tdlite-bench-fifo-{}", std::process::id()));
    for (sync, mode, label) in [
        ("FULL", SyncMode::Full, "full sync vs SQLite WAL FULL"),
        ("NORMAL", SyncMode::Full, "full sync vs SQLite WAL NORMAL"),
        (
            "NORMAL",
            SyncMode::Normal,
            "sync normal vs SQLite WAL NORMAL",
        ),
    ] {
        let (td, lite) = best(
            rounds,
            || {
                let _ = std::fs::remove_dir_all(&dir);
                let opts = Options {
                    sync: mode,
                    ..Options::default()
                };
                let db = Database::open_with(&dir, opts).expect("open");
                let r = tdlite_fifo(&db, disk_rows);
                drop(db);
                let _ = std::fs::remove_dir_all(&dir);
                r
            },
            || {
                let p = sqlite_path(&std::env::temp_dir(), "fifo");
                let r = sqlite_fifo(&sqlite(&p, sync), disk_rows);
                remove_sqlite(&p);
                r
            },
        );
        print(&format!("disk, {disk_rows} rows: tdlite {label}"), td, lite);
    }
}

/// The `depth` workload: µs per consume (one transaction each) with `depth` rows waiting.
pub fn depth(depths: &[i64], consumes: i64, rounds: u32) {
    println!("\n## depth: cost of one consume with N rows waiting ({consumes} consumes timed)");
    println!("| rows waiting | tdlite µs/consume | SQLite µs/consume | tdlite × SQLite speed |");
    println!("|---|---|---|---|");
    let mut first = None;
    for &d in depths {
        let (td, lite) = alternate(
            rounds,
            || {
                let db = Database::new();
                let q = TdQueue::new(&db);
                let mut s = db.session();
                q.fill(&mut s, 0..d, 10_000);
                let (_, t) = timed(|| {
                    for _ in 0..consumes {
                        q.pop(&mut s).expect("a row");
                    }
                });
                // the figure kept is the largest, so keep consumes per µs
                consumes as f64 / (t.as_secs_f64() * 1e6)
            },
            || {
                let c = memory_sqlite();
                let mut st = c
                    .prepare("INSERT INTO q (qits, id, payload) VALUES (?1, ?2, ?3)")
                    .unwrap();
                c.execute_batch("BEGIN").unwrap();
                for i in 0..d {
                    st.execute((now_us(), i, PAYLOAD)).unwrap();
                }
                c.execute_batch("COMMIT").unwrap();
                let mut pop = c.prepare(SQLITE_POP).unwrap();
                let (_, t) = timed(|| {
                    for _ in 0..consumes {
                        pop.query_row([], |r| r.get::<_, i64>(0)).expect("a row");
                    }
                });
                consumes as f64 / (t.as_secs_f64() * 1e6)
            },
        );
        let (td_us, lite_us) = (1.0 / td, 1.0 / lite);
        let base = *first.get_or_insert(td_us);
        println!(
            "| {d} | {td_us:.2} ({:.2}× the first depth) | {lite_us:.2} | {:.2} |",
            td_us / base,
            lite_us / td_us
        );
    }
}

/// The `enqueue-steps` workload (tdlite alone, for callgrind): enqueues `n` rows in memory
/// the way `fifo` does (the prepared `INS q (CURRENT_TIMESTAMP, ?, ?)`, transactions of
/// 1,000), then pops `pops` of them, one transaction each. Run it with `--rows 0` and with
/// `--rows N` (or `--pops 0` and `--pops P` over the same rows): the difference of the two
/// instruction counts over N (or P) is what one enqueue (one consume) costs.
pub fn steps(n: i64, pops: i64) {
    let db = Database::new();
    let q = TdQueue::new(&db);
    let mut s = db.session();
    q.fill(&mut s, 0..n, 1_000);
    for _ in 0..pops.min(n) {
        q.pop(&mut s).expect("a row");
    }
    println!("enqueued {n} rows, consumed {}", pops.min(n));
}
