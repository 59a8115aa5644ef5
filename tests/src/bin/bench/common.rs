//! What the workloads share: the queue schema on both engines, SQLite connections, the pop,
//! percentiles and the run-to-run alternation.

use rusqlite::Connection;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use tdlite::{Database, Prepared, Session, Value};

/// tdlite's queue: QITS first, then the producer's sequence number and a payload.
pub const TD_QUEUE: &str = "CREATE MULTISET TABLE q, QUEUE (qits TIMESTAMP(6) NOT NULL \
    DEFAULT CURRENT_TIMESTAMP(6), id BIGINT NOT NULL, payload VARCHAR(100))";

/// The same queue in SQLite: a rowid table ordered by an index on (qits, seq).
pub const SQLITE_QUEUE: &str = "CREATE TABLE IF NOT EXISTS q (seq INTEGER PRIMARY KEY, \
    qits INTEGER NOT NULL, id INTEGER NOT NULL, payload TEXT); \
    CREATE INDEX IF NOT EXISTS q_order ON q (qits, seq);";

/// SQLite's pop: the oldest row, deleted and returned in one statement.
pub const SQLITE_POP: &str =
    "DELETE FROM q WHERE seq = (SELECT seq FROM q ORDER BY qits, seq LIMIT 1) RETURNING id";

/// The payload every enqueued row carries.
pub const PAYLOAD: &str = "payload-payload-payload-payload";

/// Microseconds since the epoch (SQLite's QITS).
pub fn now_us() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_micros() as i64)
}

/// A fresh SQLite database file path in `dir` (old files removed).
pub fn sqlite_path(dir: &Path, name: &str) -> PathBuf {
    let p = dir.join(format!("tdlite-bench-{}-{name}.db", std::process::id()));
    remove_sqlite(&p);
    p
}

/// Removes a SQLite database and its WAL files.
pub fn remove_sqlite(p: &Path) {
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", p.display()));
    }
}

/// A memory-backed folder for SQLite files that must be shared between connections
/// (`/dev/shm` when there is one), so neither engine touches a disk.
pub fn shm_dir() -> PathBuf {
    if Path::new("/dev/shm").is_dir() {
        PathBuf::from("/dev/shm")
    } else {
        std::env::temp_dir()
    }
}

/// A SQLite connection in WAL mode with `synchronous` = `sync`, a 10 s busy timeout and the
/// queue table.
pub fn sqlite(path: &Path, sync: &str) -> Connection {
    let c = Connection::open(path).expect("sqlite open");
    c.busy_timeout(Duration::from_secs(10)).unwrap();
    c.execute_batch(&format!(
        "PRAGMA journal_mode=WAL; PRAGMA synchronous={sync}; {SQLITE_QUEUE}"
    ))
    .unwrap();
    c
}

/// A SQLite `:memory:` connection with the queue table.
pub fn memory_sqlite() -> Connection {
    let c = Connection::open_in_memory().unwrap();
    c.execute_batch(SQLITE_QUEUE).unwrap();
    c
}

/// Pops one row in its own transaction; `None` when the queue is empty.
pub fn sqlite_pop(c: &Connection) -> Option<i64> {
    c.execute_batch("BEGIN IMMEDIATE").unwrap();
    let r = c
        .prepare_cached(SQLITE_POP)
        .unwrap()
        .query_row([], |row| row.get::<_, i64>(0))
        .ok();
    c.execute_batch("COMMIT").unwrap();
    r
}

/// Enqueues ids `ids` in SQLite, `per_txn` rows per transaction.
pub fn sqlite_fill(c: &Connection, ids: std::ops::Range<i64>, per_txn: i64) {
    let mut st = c
        .prepare("INSERT INTO q (qits, id, payload) VALUES (?1, ?2, ?3)")
        .unwrap();
    let mut id = ids.start;
    while id < ids.end {
        c.execute_batch("BEGIN").unwrap();
        let end = (id + per_txn).min(ids.end);
        for i in id..end {
            st.execute((now_us(), i, PAYLOAD)).unwrap();
        }
        c.execute_batch("COMMIT").unwrap();
        id = end;
    }
}

/// tdlite's prepared producer and consumer statements.
pub struct TdQueue {
    /// `INS q (CURRENT_TIMESTAMP, ?, ?)`
    pub insert: Prepared,
    /// `SEL AND CONSUME TOP 1 id FROM q`
    pub consume: Prepared,
}

impl TdQueue {
    /// Creates the queue in `db` (unless it exists) and prepares the statements.
    pub fn new(db: &Database) -> Self {
        let mut s = db.session();
        let _ = s.execute(TD_QUEUE);
        TdQueue {
            insert: s.prepare("INS q (CURRENT_TIMESTAMP, ?, ?)").unwrap(),
            consume: s.prepare("SEL AND CONSUME TOP 1 id FROM q").unwrap(),
        }
    }

    /// Enqueues ids `ids`, `per_txn` rows per transaction.
    pub fn fill(&self, s: &mut Session, ids: std::ops::Range<i64>, per_txn: i64) {
        let mut id = ids.start;
        while id < ids.end {
            s.execute("BT").unwrap();
            let end = (id + per_txn).min(ids.end);
            for i in id..end {
                s.execute_prepared(&self.insert, &[Value::Int(i), Value::Str(PAYLOAD.into())])
                    .unwrap();
            }
            s.execute("ET").unwrap();
            id = end;
        }
    }

    /// Pops one row in its own transaction (waits if the queue is empty, unless the session
    /// has a consume timeout).
    pub fn pop(&self, s: &mut Session) -> Option<i64> {
        first_id(&s.execute_prepared(&self.consume, &[]).ok()?)
    }
}

/// The first column's BIGINT of a request's first row, if it returned one.
pub fn first_id(r: &[tdlite::StatementResult]) -> Option<i64> {
    let rows = r.first()?.rows.as_ref()?;
    let b = rows.batches.iter().find(|b| b.num_rows() > 0)?;
    let a = b
        .column(0)
        .as_any()
        .downcast_ref::<arrow::array::Int64Array>()?;
    Some(a.value(0))
}

/// Sorted copy's `p` quantile (0..=1).
pub fn percentile(v: &[f64], p: f64) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    v.get(((v.len().max(1) - 1) as f64 * p).round() as usize)
        .copied()
        .unwrap_or(f64::NAN)
}

/// Checks that `got` holds each of `0..n` exactly once.
pub fn check_exactly_once(mut got: Vec<i64>, n: i64, who: &str) {
    got.sort_unstable();
    assert!(
        got.iter().copied().eq(0..n),
        "{who}: rows not consumed exactly once"
    );
}

/// Times `f` once.
pub fn timed<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let t = Instant::now();
    let r = f();
    (r, t.elapsed())
}

/// Runs `td` and `lite` alternately `rounds` times and keeps the best (largest) figure of
/// each: the machine is shared, and the best run is the one least disturbed.
pub fn alternate(
    rounds: u32,
    mut td: impl FnMut() -> f64,
    mut lite: impl FnMut() -> f64,
) -> (f64, f64) {
    let (mut a, mut b) = (f64::MIN, f64::MIN);
    for _ in 0..rounds.max(1) {
        a = a.max(td());
        b = b.max(lite());
    }
    (a, b)
}
