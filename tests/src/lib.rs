//! Whole-system tests of tdlite: a crash worker process killed with SIGKILL (tests/crash.rs)
//! and benchmark binaries (src/bin). This library holds what they share.

use tdlite::Database;

/// The queue and account tables the crash workload uses (and `fan`, a queue with
/// subscribers); the queue's `g` is `n MOD 4`, indexed
/// so that selective consumes walk a keyed queue that recovery must rebuild; a rolled-back
/// consume counts in `tries`, and the third moves the row to `q_dead` (attempts are durable).
pub const SETUP: [&str; 7] = [
    "CREATE MULTISET TABLE q_dead, QUEUE (qits TIMESTAMP(6) NOT NULL DEFAULT \
     CURRENT_TIMESTAMP(6), n BIGINT NOT NULL, g INTEGER NOT NULL, pad VARCHAR(300), \
     tries INTEGER NOT NULL, why VARCHAR(20))",
    "CREATE TABLE q, QUEUE, ATTEMPTS (tries), MAX ATTEMPTS 3, DEAD LETTER TO q_dead \
     (qits TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6), n BIGINT NOT NULL, \
     g INTEGER NOT NULL, pad VARCHAR(300), tries INTEGER NOT NULL DEFAULT 0)",
    "CREATE INDEX (g) ON q",
    "CREATE TABLE acct (k INTEGER NOT NULL, v INTEGER NOT NULL) UNIQUE PRIMARY INDEX (k)",
    "INS acct (0, 250); INS acct (1, 250); INS acct (2, 250); INS acct (3, 250)",
    "CREATE TABLE fan, QUEUE, SUBSCRIBERS (a, b) (qits TIMESTAMP(6) NOT NULL DEFAULT \
     CURRENT_TIMESTAMP(6), n BIGINT NOT NULL)",
    "CREATE MULTISET TABLE idt (id BIGINT GENERATED ALWAYS AS IDENTITY, n BIGINT NOT NULL)",
];

/// The subscribers of the crash workload's queue with subscribers, `fan`.
pub const SUBSCRIBERS: [&str; 2] = ["a", "b"];

/// The number of attempts after which the crash workload's rows are dead.
pub const MAX_ATTEMPTS: i64 = 3;

/// The sum of all accounts, which every committed transfer keeps.
pub const TOTAL: i64 = 1000;

/// The first two columns of each row of `sql`'s last result, as integers.
///
/// # Panics
/// If the statement fails or a cell is not an integer (a test failure).
pub fn int_pairs(db: &Database, sql: &str) -> Vec<(i64, i64)> {
    let r = db.session().execute(sql).unwrap();
    let rows = r.last().unwrap().rows.as_ref().unwrap();
    rows.to_strings()
        .iter()
        .map(|r| (r[0].parse().unwrap(), r[1].parse().unwrap()))
        .collect()
}

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
