//! The benchmark binary (issue 6): every workload on tdlite and on SQLite (rusqlite, bundled,
//! prepared statements) in the same run, each figure with its tdlite/SQLite ratio.
//! Results and the machine: docs/benchmarks.md.
//!
//! ```text
//! cargo run --release -p tdlite-system-tests --features bench --bin bench -- WORKLOAD [options]
//!   WORKLOAD: fifo | batch | selective | lease | subscribers | insert | dml | depth | priority
//!             | concurrent | wake
//!             | delay | browse | scan | python | wire | all
//!             | steps (tdlite alone, not in `all`: priority's UPDATE per window, for cachegrind)
//!             | prefilled (tdlite alone: `--consumers C` pop `--conc-rows` rows, for perf)
//!             | enqueue-steps (tdlite alone, not in `all`: `--rows` enqueues, `--pops` consumes)
//!             | join-steps (tdlite alone, not in `all`: `--execs` executions of scan's
//!               prepared keyed request `--query Q` (0: the first join) over `--join-rows`
//!               tables, for cachegrind and perf)
//!   --rows N        fifo rows in memory (100,000)      --disk-rows N  fifo/concurrent on disk (5,000)
//!   --conc-rows N   concurrent rows in memory (40,000) --rounds R     alternating runs per figure (2)
//!   --updates U     priority UPDATEs (1,000)           --prio-rows N  priority table rows (100,000)
//!   --wakes W       wake-ups (2,000)                   --scan-rows N  scan table rows (1,000,000)
//!   --join-rows M   rows of each joined table (100,000) --sqlite 0    priority: tdlite alone
//!   --py-rows N     python executemany rows (100,000)  --py-loop-rows N  execute loop (20,000)
//!   --py-fetch-rows N  python rows fetched (1,000,000)
//!   --small-rows S  scan's small table rows (3,000)   --small-runs R  runs of each small query (1,000)
//!   --insert-rows N rows inserted one by one and in batches (200,000)  --copy-rows N  INSERT … SELECT (1,000,000)
//!   --browse-rows N queue rows under the browser (1,000,000)  --browse-pops P  consumes per phase (300,000)
//!   --dml-rows N    rows of the table UPDATE and DELETE change (100,000)
//!   --batch-rows N  rows drained 100 at a time and one at a time (200,000)
//!   --delayed N     rows due 2 ms apart, for the delay latency (1,000)
//!   --sel-rows N    selective's largest queue (1,000,000, at least 100,000; also 1% and 10% of it)
//!   --lease-rows N  rows drained by lease and acknowledgement (100,000)  --failures R  failed takes (20,000)
//!   --disk-failures R  failed takes on disk, every commit synced (500)
//!   --sub-rows N    rows fanned out to 3 subscribers (50,000)
//!   --wire-rows N   rows enqueued and consumed over the wire, tdlite serve vs PostgreSQL (5,000)
//!   --wire-wakes W  wire: rows for the cross-process wake latency, 10 ms apart (500)
//! ```
//!
//! `python` runs the Python package's script (python.rs) under a Python that has a release
//! build of it (`.ci/python-bench` makes one and runs this workload); Python's own figures and
//! sqlite3's are in the same run.

mod batch;
mod browse;
mod common;
mod concurrent;
mod delay;
mod dml;
mod fifo;
mod insert;
mod lease;
mod priority;
mod python;
mod scan;
mod selective;
mod subscribers;
mod wire;

use tdlite_system_tests::arg;

/// Every workload, in the order `all` runs them.
const WORKLOADS: [&str; 16] = [
    "fifo",
    "batch",
    "selective",
    "lease",
    "subscribers",
    "insert",
    "dml",
    "depth",
    "priority",
    "concurrent",
    "wake",
    "delay",
    "browse",
    "scan",
    "python",
    "wire",
];

/// `all`: each workload in a process of its own (same options), so none inherits another's
/// heap (a million freed rows left by one made the next one's scans up to 2x slower).
fn run_all() {
    let exe = std::env::current_exe().expect("the running binary's path");
    let options: Vec<String> = std::env::args().skip(2).collect();
    for w in WORKLOADS {
        let status = std::process::Command::new(&exe)
            .arg(w)
            .args(&options)
            .status()
            .expect("start a workload");
        assert!(status.success(), "workload {w} failed: {status}");
    }
}

fn main() {
    let workload = std::env::args().nth(1).unwrap_or_else(|| "all".into());
    if workload == "all" {
        return run_all();
    }
    if workload == "wire-child" {
        // a client process of `wire` (wire/child.rs)
        let args: Vec<String> = std::env::args().skip(2).collect();
        return wire::child(&args);
    }
    let rounds = arg("--rounds", 2) as u32;
    println!(
        "bench {workload}: {} cores, tdlite vs SQLite {}",
        std::thread::available_parallelism().map_or(1, |n| n.get()),
        rusqlite::version()
    );
    let wants = |w: &str| workload == w;
    if wants("fifo") {
        fifo::run(
            arg("--rows", 100_000) as i64,
            arg("--disk-rows", 5_000) as i64,
            rounds,
        );
    }
    if wants("batch") {
        batch::run(arg("--batch-rows", 200_000) as i64, rounds);
    }
    if wants("selective") {
        let n = arg("--sel-rows", 1_000_000) as i64;
        if n / 100 < selective::MIN_DEPTH {
            eprintln!("--sel-rows must be at least {}", 100 * selective::MIN_DEPTH);
            std::process::exit(2);
        }
        selective::run(&[n / 100, n / 10, n]);
    }
    if wants("lease") {
        lease::run(
            arg("--lease-rows", 100_000) as i64,
            arg("--failures", 20_000) as i64,
            rounds,
        );
        lease::disk(arg("--disk-failures", 500) as i64, rounds);
    }
    if wants("subscribers") {
        subscribers::run(arg("--sub-rows", 50_000) as i64, rounds);
    }
    if wants("insert") {
        insert::run(
            arg("--insert-rows", 200_000) as i64,
            arg("--copy-rows", 1_000_000) as i64,
            rounds,
        );
    }
    if wants("dml") {
        dml::run(arg("--dml-rows", 100_000) as i64, rounds);
    }
    if wants("depth") {
        fifo::depth(&[10_000, 100_000, 1_000_000], 10_000, rounds);
    }
    if wants("priority") {
        priority::run(
            arg("--prio-rows", 100_000) as usize,
            arg("--updates", 1_000) as usize,
            arg("--sqlite", 1) != 0,
        );
    }
    if wants("concurrent") {
        concurrent::run(
            arg("--conc-rows", 40_000) as i64,
            arg("--disk-rows", 5_000) as i64,
            rounds,
        );
    }
    if wants("wake") {
        concurrent::wake(arg("--wakes", 2_000) as i64);
    }
    if wants("delay") {
        delay::run(arg("--delayed", 1_000) as i64);
    }
    if wants("browse") {
        browse::run(
            arg("--browse-rows", 1_000_000) as i64,
            arg("--browse-pops", 300_000) as i64,
        );
    }
    if wants("scan") {
        scan::run(
            arg("--scan-rows", 1_000_000) as i64,
            arg("--join-rows", 100_000) as i64,
        );
        scan::small(
            arg("--small-rows", 3_000) as i64,
            arg("--small-runs", 1_000) as u32,
        );
    }
    if wants("python") {
        python::run(
            arg("--py-rows", 100_000),
            arg("--py-loop-rows", 20_000),
            arg("--py-fetch-rows", 1_000_000),
            rounds.max(3),
        );
    }
    if wants("wire") {
        wire::run(
            arg("--wire-rows", 5_000) as i64,
            arg("--wire-wakes", 500) as i64,
            &std::env::temp_dir(),
        );
    }
    if wants("steps") {
        priority::steps(
            arg("--prio-rows", 100_000) as usize,
            arg("--updates", 1_000) as usize,
        );
        return;
    }
    if wants("prefilled") {
        let (n, c) = (
            arg("--conc-rows", 40_000) as i64,
            arg("--consumers", 8) as usize,
        );
        println!(
            "{c} consumers, {n} rows: {:.0} rows/s",
            concurrent::prefilled(c, n)
        );
        return;
    }
    if wants("enqueue-steps") {
        fifo::steps(arg("--rows", 100_000) as i64, arg("--pops", 0) as i64);
        return;
    }
    if wants("join-steps") {
        scan::steps(
            arg("--join-rows", 100_000) as i64,
            arg("--execs", 20_000) as i64,
            arg("--query", 0) as usize,
        );
        return;
    }
    if !WORKLOADS.contains(&workload.as_str()) {
        eprintln!(
            "unknown workload {workload}: {} | all | steps | prefilled | enqueue-steps | join-steps",
            WORKLOADS.join(" | ")
        );
        std::process::exit(2);
    }
}
