//! The benchmark binary (issue 6): every workload on tdlite and on SQLite (rusqlite, bundled,
//! prepared statements) in the same run, each figure with its tdlite/SQLite ratio.
//! Results and the machine: docs/benchmarks.md.
//!
//! ```text
//! cargo run --release -p tdlite-system-tests --bin bench -- WORKLOAD [options]
//!   WORKLOAD: fifo | depth | priority | concurrent | wake | scan | all
//!   --rows N        fifo rows in memory (100,000)      --disk-rows N  fifo/concurrent on disk (5,000)
//!   --conc-rows N   concurrent rows in memory (40,000) --rounds R     alternating runs per figure (2)
//!   --updates U     priority UPDATEs (1,000)           --prio-rows N  priority table rows (100,000)
//!   --wakes W       wake-ups (2,000)                   --scan-rows N  scan table rows (1,000,000)
//!   --join-rows M   rows of each joined table (100,000) --sqlite 0    priority: tdlite alone
//! ```

mod common;
mod concurrent;
mod fifo;
mod priority;
mod scan;

use tdlite_system_tests::arg;

fn main() {
    let workload = std::env::args().nth(1).unwrap_or_else(|| "all".into());
    let rounds = arg("--rounds", 2) as u32;
    let all = workload == "all";
    println!(
        "bench {workload}: {} cores, tdlite vs SQLite {}",
        std::thread::available_parallelism().map_or(1, |n| n.get()),
        rusqlite::version()
    );
    let mut ran = false;
    let mut wants = |w: &str| {
        let yes = all || workload == w;
        ran |= yes;
        yes
    };
    if wants("fifo") {
        fifo::run(
            arg("--rows", 100_000) as i64,
            arg("--disk-rows", 5_000) as i64,
            rounds,
        );
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
        );
    }
    if wants("wake") {
        concurrent::wake(arg("--wakes", 2_000) as i64);
    }
    if wants("scan") {
        scan::run(
            arg("--scan-rows", 1_000_000) as i64,
            arg("--join-rows", 100_000) as i64,
        );
    }
    if !ran {
        eprintln!(
            "unknown workload {workload}: fifo | depth | priority | concurrent | wake | scan | all"
        );
        std::process::exit(2);
    }
}
