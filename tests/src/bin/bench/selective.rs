//! `selective` (issue 17, docs/queues.md Selective consume): consumers that each want one
//! tenant's rows of a shared queue. A queue of N rows in memory, `TENANTS` tenants in turn,
//! except the newest 1% of rows, which all belong to one more, "late", tenant. Two pop
//! patterns, each timed per pop (its own transaction):
//!
//! - *round robin*: tenant 0, 1, 2, … in turn; each tenant's oldest row is near the head;
//! - *late tenant*: the late tenant's oldest row, behind 99% of the queue.
//!
//! tdlite pops with `SELECT AND CONSUME TOP 1 id FROM q WHERE tenant = ?` (prepared), first
//! without an index (the walk tests rows in QITS order), then after `CREATE INDEX (tenant)`
//! (the walk probes the index's key: O(log n) to the first match). SQLite pops with
//! `DELETE … WHERE seq = (SELECT seq FROM q WHERE tenant = ? ORDER BY qits, seq LIMIT 1)
//! RETURNING id`, first with only its (qits, seq) index, then with one on (tenant, qits,
//! seq). Every popped id is checked to be the one the tenant's FIFO order says. A second
//! table gives the time from creating each index to the first pop it serves.

use crate::common::{first_id, memory_sqlite, now_us, PAYLOAD};
use rusqlite::Connection;
use std::time::Instant;
use tdlite::{Database, Session, Value};

/// Tenants sharing the queue in turn.
const TENANTS: i64 = 100;

/// The late tenant's number.
const LATE: i64 = TENANTS;

/// Round-robin pops per figure at depth `n`: 2,000, or fewer if the tenants' rows would not
/// last both figures (whole rounds of the tenants).
fn round_robin_pops(n: i64) -> i64 {
    ((n * 99 / 100 - TENANTS) / 2 / TENANTS * TENANTS).min(2_000)
}

/// The smallest depth the workload runs at (every figure has pops to time).
pub const MIN_DEPTH: i64 = 1_000;

/// The queue, with a tenant column.
const TD_QUEUE: &str = "CREATE MULTISET TABLE q, QUEUE (qits TIMESTAMP(6) NOT NULL \
    DEFAULT CURRENT_TIMESTAMP(6), id BIGINT NOT NULL, tenant INTEGER NOT NULL, \
    payload VARCHAR(100))";

/// SQLite's tenant pop.
const SQLITE_POP: &str = "DELETE FROM q WHERE seq = (SELECT seq FROM q WHERE tenant = ?1 \
    ORDER BY qits, seq LIMIT 1) RETURNING id";

/// The tenant of row `id` in a queue of `n` rows.
fn tenant_of(id: i64, n: i64) -> i64 {
    if id >= n - n / 100 {
        LATE
    } else {
        id % TENANTS
    }
}

/// Which id each tenant's next pop must return: its rows' ids in order, skipping those
/// already popped.
struct Expected {
    n: i64,
    popped: Vec<i64>,
}

impl Expected {
    fn new(n: i64) -> Self {
        Expected {
            n,
            popped: vec![0; LATE as usize + 1],
        }
    }

    /// Checks that `id` is tenant `t`'s next row and counts it.
    fn check(&mut self, t: i64, id: Option<i64>, who: &str) {
        let k = self.popped[t as usize];
        let want = if t == LATE {
            self.n - self.n / 100 + k
        } else {
            t + k * TENANTS
        };
        assert_eq!(
            id,
            Some(want),
            "{who}: tenant {t}'s pop {k} is not its oldest row"
        );
        self.popped[t as usize] += 1;
    }
}

/// Microseconds per pop for `pops` pops of tenant `tenant(i)`, checked against `expected`.
fn per_pop(
    pops: i64,
    tenant: impl Fn(i64) -> i64,
    mut pop: impl FnMut(i64) -> Option<i64>,
    expected: &mut Expected,
    who: &str,
) -> f64 {
    let mut got = Vec::with_capacity(pops as usize);
    let start = Instant::now();
    for i in 0..pops {
        got.push(pop(tenant(i)));
    }
    let us = start.elapsed().as_secs_f64() * 1e6 / pops as f64;
    for (i, id) in got.into_iter().enumerate() {
        expected.check(tenant(i as i64), id, who);
    }
    us
}

/// One engine's figures at one depth: (round robin, late) without and with the index, and
/// the ms from creating the index to a first pop through it (tdlite builds the keyed queue
/// at that first pop, SQLite its index at CREATE INDEX).
struct Figures {
    plain: (f64, f64),
    indexed: (f64, f64),
    index_ms: f64,
}

/// Late-tenant pops without an index: each walks 99% of the queue, so fewer at depth.
fn scan_pops(n: i64) -> i64 {
    (2_000_000 / n).clamp(5, 50).min(n / 200)
}

/// Late-tenant pops through an index (what the scan left of the late tenant's rows, at most
/// 1,000).
fn index_pops(n: i64) -> i64 {
    (n / 100 - scan_pops(n)).min(1_000)
}

fn tdlite(n: i64) -> Figures {
    let db = Database::new();
    let mut s = db.session();
    s.execute(TD_QUEUE).unwrap();
    fill_tdlite(&mut s, n);
    let mut expected = Expected::new(n);
    let run = |s: &mut Session, late_pops: i64, expected: &mut Expected| {
        let pop = s
            .prepare("SEL AND CONSUME TOP 1 id FROM q WHERE tenant = ? NOWAIT")
            .unwrap();
        let mut take = |t: i64| -> Option<i64> {
            first_id(&s.execute_prepared(&pop, &[Value::Int(t)]).unwrap())
        };
        let rr = per_pop(
            round_robin_pops(n),
            |i| i % TENANTS,
            &mut take,
            expected,
            "tdlite",
        );
        let late = per_pop(late_pops, |_| LATE, &mut take, expected, "tdlite");
        (rr, late)
    };
    let plain = run(&mut s, scan_pops(n), &mut expected);
    let start = Instant::now();
    s.execute("CREATE INDEX (tenant) ON q").unwrap();
    // a tenant with no rows: the first probe builds the keyed queue and takes nothing
    let none = "SEL AND CONSUME TOP 1 id FROM q WHERE tenant = -1 NOWAIT";
    assert_eq!(first_id(&s.execute(none).unwrap()), None);
    let index_ms = start.elapsed().as_secs_f64() * 1e3;
    let indexed = run(&mut s, index_pops(n), &mut expected);
    Figures {
        plain,
        indexed,
        index_ms,
    }
}

fn fill_tdlite(s: &mut Session, n: i64) {
    let insert = s.prepare("INS q (CURRENT_TIMESTAMP, ?, ?, ?)").unwrap();
    let mut id = 0;
    while id < n {
        s.execute("BT").unwrap();
        let end = (id + 1_000).min(n);
        for i in id..end {
            let row = [
                Value::Int(i),
                Value::Int(tenant_of(i, n)),
                Value::Str(PAYLOAD.into()),
            ];
            s.execute_prepared(&insert, &row).unwrap();
        }
        s.execute("ET").unwrap();
        id = end;
    }
}

fn sqlite(n: i64) -> Figures {
    let c = memory_sqlite();
    c.execute_batch("ALTER TABLE q ADD COLUMN tenant INTEGER NOT NULL DEFAULT 0")
        .unwrap();
    fill_sqlite(&c, n);
    let mut expected = Expected::new(n);
    let run = |c: &Connection, late_pops: i64, expected: &mut Expected| {
        let take = |t: i64| -> Option<i64> {
            c.execute_batch("BEGIN IMMEDIATE").unwrap();
            let r = c
                .prepare_cached(SQLITE_POP)
                .unwrap()
                .query_row([t], |row| row.get::<_, i64>(0))
                .ok();
            c.execute_batch("COMMIT").unwrap();
            r
        };
        let rr = per_pop(
            round_robin_pops(n),
            |i| i % TENANTS,
            take,
            expected,
            "SQLite",
        );
        let late = per_pop(late_pops, |_| LATE, take, expected, "SQLite");
        (rr, late)
    };
    let plain = run(&c, scan_pops(n), &mut expected);
    let start = Instant::now();
    c.execute_batch("CREATE INDEX q_tenant ON q (tenant, qits, seq)")
        .unwrap();
    let index_ms = start.elapsed().as_secs_f64() * 1e3;
    let indexed = run(&c, index_pops(n), &mut expected);
    Figures {
        plain,
        indexed,
        index_ms,
    }
}

fn fill_sqlite(c: &Connection, n: i64) {
    let mut st = c
        .prepare("INSERT INTO q (qits, id, tenant, payload) VALUES (?1, ?2, ?3, ?4)")
        .unwrap();
    let mut id = 0;
    while id < n {
        c.execute_batch("BEGIN").unwrap();
        let end = (id + 1_000).min(n);
        for i in id..end {
            st.execute((now_us(), i, tenant_of(i, n), PAYLOAD)).unwrap();
        }
        c.execute_batch("COMMIT").unwrap();
        id = end;
    }
}

/// The `selective` workload at each of `depths`.
pub fn run(depths: &[i64]) {
    println!(
        "\n## selective: µs per tenant pop (a transaction each) in memory; {TENANTS} tenants \
         in turn plus a late one owning the newest 1%"
    );
    println!(
        "| rows | pops | tdlite no index | SQLite (qits, seq) index | tdlite INDEX (tenant) \
         | SQLite (tenant, qits, seq) | SQLite µs ÷ tdlite µs, indexed |"
    );
    println!("|---|---|---|---|---|---|---|");
    let mut builds = Vec::new();
    for &n in depths {
        assert!(
            n >= MIN_DEPTH,
            "selective runs at depths of {MIN_DEPTH} rows or more"
        );
        let td = tdlite(n);
        let lite = sqlite(n);
        println!(
            "| {n} | round robin ({}) | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} |",
            round_robin_pops(n),
            td.plain.0,
            lite.plain.0,
            td.indexed.0,
            lite.indexed.0,
            lite.indexed.0 / td.indexed.0
        );
        println!(
            "| {n} | late tenant ({} / {} pops) | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} |",
            scan_pops(n),
            index_pops(n),
            td.plain.1,
            lite.plain.1,
            td.indexed.1,
            lite.indexed.1,
            lite.indexed.1 / td.indexed.1
        );
        builds.push((n, td.index_ms, lite.index_ms));
    }
    println!("\n| rows | tdlite CREATE INDEX + first probe (builds the keyed queue), ms | SQLite CREATE INDEX, ms |");
    println!("|---|---|---|");
    for (n, td, lite) in builds {
        println!("| {n} | {td:.1} | {lite:.1} |");
    }
}
