//! Selective consume under concurrency (issue 17, docs/queues.md Selective consume): 2
//! producers, 8 consumers and an updater on a queue with `INDEX (tenant)`. Each consume is, at
//! random, plain, through the index (`WHERE tenant = t`), through the index with a residual
//! test (`… AND id MOD 2 = r`) or a tested walk (`WHERE id MOD 3 = r`), `TOP 1` to `TOP 20`,
//! `NOWAIT` or a bounded `WAIT`, committed or rolled back; the updater moves rows between
//! tenants (an UPDATE committed while a consume tests the row keeps the row's queue key: the
//! race a review found). Invariants: every committed row is consumed exactly once, every row a
//! consume returns satisfies its condition, each batch comes out in QITS order, and the
//! keyed queue still finds rows after the drain. The seed is printed; `TDLITE_SELECTIVE_SEED`
//! replays one, `TDLITE_SELECTIVE_ROWS` (rows per producer) makes a longer soak.

use crate::common::{assert_exactly_once, depth, seed_from_env, spawn_producers, Rng};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use tdlite::{Database, Session};

const QUEUE: &str = "CREATE MULTISET TABLE q, QUEUE (qits TIMESTAMP(6) NOT NULL DEFAULT \
                     CURRENT_TIMESTAMP(6), id BIGINT NOT NULL, tenant INTEGER NOT NULL) \
                     INDEX (tenant)";

/// Tenants rows are spread over.
const TENANTS: u64 = 4;

/// A consume's condition.
#[derive(Clone, Copy, Debug)]
enum Cond {
    All,
    Tenant(i64),
    TenantParity(i64, i64),
    IdMod3(i64),
}

impl Cond {
    fn pick(rng: &mut Rng) -> Cond {
        let t = rng.below(TENANTS) as i64;
        match rng.below(4) {
            0 => Cond::All,
            1 => Cond::Tenant(t),
            2 => Cond::TenantParity(t, rng.below(2) as i64),
            _ => Cond::IdMod3(rng.below(3) as i64),
        }
    }

    fn sql(self) -> String {
        match self {
            Cond::All => String::new(),
            Cond::Tenant(t) => format!("WHERE tenant = {t}"),
            Cond::TenantParity(t, r) => format!("WHERE tenant = {t} AND id MOD 2 = {r}"),
            Cond::IdMod3(r) => format!("WHERE id MOD 3 = {r}"),
        }
    }

    fn holds(self, id: i64, tenant: i64) -> bool {
        match self {
            Cond::All => true,
            Cond::Tenant(t) => tenant == t,
            Cond::TenantParity(t, r) => tenant == t && id % 2 == r,
            Cond::IdMod3(r) => id % 3 == r,
        }
    }
}

#[test]
fn selective_consumes_are_exactly_once_and_match_under_eight_consumers_and_an_updater() {
    let seed = seed_from_env("TDLITE_SELECTIVE_SEED");
    let rows: u64 = std::env::var("TDLITE_SELECTIVE_ROWS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    println!("selective stress seed = {seed} (replay with TDLITE_SELECTIVE_SEED={seed})");
    let result = std::panic::catch_unwind(|| run(seed, rows));
    if let Err(e) = result {
        eprintln!("selective stress test failed with seed {seed}");
        std::panic::resume_unwind(e);
    }
}

/// One consume's rows: (QITS as text, id, tenant), in the order they came.
fn take(s: &mut Session, sql: &str) -> Result<Vec<(String, i64, i64)>, u32> {
    let r = s.execute(sql).map_err(|e| e.code().number)?;
    let rows = r[0].rows.as_ref().expect("a consume returns rows");
    Ok(rows
        .to_strings()
        .into_iter()
        .map(|row| {
            let id = row[1].parse().expect("an id");
            (row[0].clone(), id, row[2].parse().expect("a tenant"))
        })
        .collect())
}

fn run(seed: u64, rows_per_producer: u64) {
    const PRODUCERS: u64 = 2;
    const CONSUMERS: u64 = 8;
    let db = Database::new();
    db.session().execute(QUEUE).unwrap();
    let produced = Arc::new(Mutex::new(Vec::new()));
    let consumed = Arc::new(Mutex::new(Vec::new()));
    let done = Arc::new(AtomicBool::new(false));
    let producers = spawn_producers(
        &db,
        (seed, PRODUCERS, rows_per_producer, 30),
        |rng, id| {
            let tenant = rng.below(TENANTS);
            format!("INS q (CURRENT_TIMESTAMP, {id}, {tenant});")
        },
        &produced,
    );
    let updater = {
        let (db, produced, done) = (db.clone(), produced.clone(), done.clone());
        thread::spawn(move || {
            let mut rng = Rng(seed ^ 0xA11C_E5E1);
            let mut s = db.session();
            let mut outcomes: BTreeMap<Option<u32>, u64> = BTreeMap::new();
            while !done.load(Ordering::Acquire) {
                let id = {
                    let p = produced.lock().unwrap();
                    if p.is_empty() {
                        drop(p);
                        thread::yield_now();
                        continue;
                    }
                    // the newest rows are the likeliest still queued
                    let from = p.len().saturating_sub(200) as u64;
                    p[(from + rng.below(p.len() as u64 - from)) as usize]
                };
                let sql =
                    format!("UPDATE q SET tenant = (tenant + 1) MOD {TENANTS} WHERE id = {id}");
                let aborted = rng.below(4) == 0;
                let r = if aborted {
                    s.execute("BT").unwrap();
                    let r = s.execute(&sql).map(|_| ()).map_err(|e| e.code().number);
                    if r.is_ok() {
                        assert_eq!(s.execute("ABORT").unwrap_err().code().number, 3514);
                    }
                    r
                } else {
                    s.execute(&sql).map(|_| ()).map_err(|e| e.code().number)
                };
                *outcomes.entry(r.err()).or_default() += 1;
            }
            outcomes
        })
    };
    let consumers: Vec<_> = (0..CONSUMERS)
        .map(|c| {
            let (db, consumed, done) = (db.clone(), consumed.clone(), done.clone());
            thread::spawn(move || {
                let mut rng = Rng(seed ^ (c + 101).wrapping_mul(0xD1B5_4A32_D192_ED03));
                let mut s = db.session();
                // takes in a row that found nothing while the queue still had rows, after
                // the producers stopped: many mean rows no consume can find (lost from the
                // queue index), which must fail the test, not hang it
                let mut stuck = 0u32;
                loop {
                    let k = 1 + rng.below(20);
                    let cond = Cond::pick(&mut rng);
                    let wait = match rng.below(3) {
                        0 => "NOWAIT".to_string(),
                        _ => format!("WAIT 0.{:03} SECONDS", rng.below(20)),
                    };
                    let sql = format!(
                        "SELECT AND CONSUME TOP {k} CAST(qits AS VARCHAR(30)), id, tenant \
                         FROM q {} {wait}",
                        cond.sql()
                    );
                    s.execute("BT").unwrap();
                    let took = match take(&mut s, &sql) {
                        Ok(took) => took,
                        // a WAIT that ran out fails the transaction (Teradata mode)
                        Err(9904) => Vec::new(),
                        Err(e) => panic!("unexpected error {e} from {sql}"),
                    };
                    assert!(took.len() <= k as usize, "{} rows for TOP {k}", took.len());
                    for (_, id, tenant) in &took {
                        assert!(
                            cond.holds(*id, *tenant),
                            "row {id} (tenant {tenant}) does not satisfy {cond:?}"
                        );
                    }
                    for pair in took.windows(2) {
                        assert!(pair[0].0 <= pair[1].0, "a batch out of order: {took:?}");
                    }
                    if took.is_empty() {
                        let _ = s.execute("ET");
                        if done.load(Ordering::Acquire) {
                            let left = depth(&mut s);
                            if left == 0 {
                                break;
                            }
                            stuck += 1;
                            assert!(
                                stuck < 2_000,
                                "{left} rows stay in the queue that no consume takes"
                            );
                        }
                        continue;
                    }
                    stuck = 0;
                    if rng.below(4) == 0 {
                        assert_eq!(s.execute("ABORT").unwrap_err().code().number, 3514);
                    } else {
                        s.execute("ET").unwrap();
                        consumed
                            .lock()
                            .unwrap()
                            .extend(took.into_iter().map(|(_, id, _)| id));
                    }
                }
            })
        })
        .collect();
    for p in producers {
        p.join().unwrap();
    }
    done.store(true, Ordering::Release);
    let outcomes = updater.join().unwrap();
    for c in consumers {
        c.join().unwrap();
    }
    let n = assert_exactly_once(&produced.lock().unwrap(), &consumed.lock().unwrap());
    // an UPDATE of a row a consumer holds or took fails with 2631 (retryable), nothing else
    for code in outcomes.keys().flatten() {
        assert_eq!(*code, 2631, "the updater got {code}: {outcomes:?}");
    }
    let updated = outcomes.get(&None).copied().unwrap_or(0);
    assert!(updated > 0, "the updater changed no row: {outcomes:?}");
    println!("{n} rows produced and consumed exactly once; updater outcomes {outcomes:?}");
    // the keyed queue still finds a new row after the drain
    let mut s = db.session();
    s.execute("INS q (CURRENT_TIMESTAMP, -1, 2)").unwrap();
    let got = take(
        &mut s,
        "SELECT AND CONSUME TOP 1 CAST(qits AS VARCHAR(30)), id, tenant FROM q \
         WHERE tenant = 2 NOWAIT",
    )
    .unwrap();
    assert_eq!(got.len(), 1, "the index walk finds the new row");
    assert_eq!(got[0].1, -1);
}
