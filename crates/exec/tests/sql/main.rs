//! The SQL-behaviour suites, in one binary without libtest's harness (libtest-mimic runs
//! them): tdlite's own `.slt` files (`slt.rs`, one test per file) and SQLite's sqllogictest
//! corpus (`corpus.rs`, tests named `corpus/…`).
//!
//! `cargo test -p tdlite --test sql -- corpus/ --nocapture` runs only the corpus and prints
//! each file's counts; `-- --skip corpus/` runs only the `.slt` files.

use libtest_mimic::Arguments;

mod adapter;
mod corpus;
mod slt;

fn main() {
    let args = Arguments::from_args();
    let mut trials = slt::trials();
    trials.extend(corpus::trials());
    libtest_mimic::run(&args, trials).exit();
}
