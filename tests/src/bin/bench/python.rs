//! `bench python`: the Python package's figures (crates/python/bench/bench_dbapi.py), each
//! beside its peer in the same run: `executemany` against `execute` in a loop, and 1M rows
//! fetched as Arrow, with `fetchall`, and with `sqlite3` + `fetchall`.
//!
//! The script runs under the Python named by `TDLITE_PYTHON`, else `target/pybench/bin/python`
//! (`.ci/python-bench` makes that environment with a release build of the module and runs
//! this workload). Without such a Python the workload says so and is skipped.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace root (this crate is `tests/`).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}

/// Runs the script with `rows` sets for executemany, `loop_rows` for the loop and
/// `fetch_rows` to fetch, best of `rounds`.
pub fn run(rows: u64, loop_rows: u64, fetch_rows: u64, rounds: u32) {
    let python = std::env::var_os("TDLITE_PYTHON")
        .map_or_else(|| root().join("target/pybench/bin/python"), PathBuf::from);
    if !python.exists() {
        println!(
            "python: skipped, no Python with tdlite at {} (run .ci/python-bench, or set \
             TDLITE_PYTHON)",
            python.display()
        );
        return;
    }
    let script = root().join("crates/python/bench/bench_dbapi.py");
    let status = Command::new(&python)
        .arg(&script)
        .args(["--rows", &rows.to_string()])
        .args(["--loop-rows", &loop_rows.to_string()])
        .args(["--fetch-rows", &fetch_rows.to_string()])
        .args(["--rounds", &rounds.max(1).to_string()])
        .status();
    match status {
        Ok(s) if s.success() => {}
        Ok(s) => {
            eprintln!("python: {} failed: {s}", script.display());
            std::process::exit(1);
        }
        Err(e) => {
            eprintln!("python: cannot run {}: {e}", python.display());
            std::process::exit(1);
        }
    }
}
