//! Whole-system tests of tdlite: a crash worker process killed with SIGKILL (tests/crash.rs)
//! and benchmark binaries (src/bin). This library holds what they share.

use tdlite::Database;

/// The queue and account tables the crash workload uses; the queue's `g` is `n MOD 4`, indexed
/// so that selective consumes walk a keyed queue that recovery must rebuild.
pub const SETUP: [&str; 4] = [
    "CREATE TABLE q, QUEUE (qits TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6), \
     n BIGINT NOT NULL, g INTEGER NOT NULL, pad VARCHAR(300))",
    "CREATE INDEX (g) ON q",
    "CREATE TABLE acct (k INTEGER NOT NULL, v INTEGER NOT NULL) UNIQUE PRIMARY INDEX (k)",
    "INS acct (0, 250); INS acct (1, 250); INS acct (2, 250); INS acct (3, 250)",
];

/// The sum of all accounts, which every committed transfer keeps.
pub const TOTAL: i64 = 1000;

/// The first column of each row of `sql`'s last result, as integers.
///
/// # Panics
/// If the statement fails or a cell is not an integer (a test failure).
pub fn ints(db: &Database, sql: &str) -> Vec<i64> {
    let r = db.session().execute(sql).unwrap();
    let rows = r.last().unwrap().rows.as_ref().unwrap();
    rows.to_strings()
        .iter()
        .map(|r| r[0].parse().unwrap())
        .collect()
}

/// The number after `name` on the command line, or `default`.
pub fn arg(name: &str, default: u64) -> u64 {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}
