//! Fault injection: a workload runs on the simulated file system, the power is cut at a random
//! I/O operation (the write in flight is torn, unsynced writes are lost), the database is
//! reopened, and its contents must equal the state after some prefix of the commits:
//! - sync=full: every acknowledged commit (plus, possibly, the one whose commit failed);
//! - sync=normal/off: any prefix (they may lose the latest commits on a power cut, never
//!   anything in the middle, and never a torn or partial transaction).
//!
//! Each seed runs several cut-and-reopen cycles with checkpoints forced often, so cuts land in
//! log writes, log rotation, table files, the manifest rename and file cleanup. Seeds are
//! printed on failure; `TDLITE_POWER_SEEDS=n` runs more.

mod common;

use common::ints;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::Arc;
use tdlite::{Database, Options, SimVfs, SyncMode};

#[derive(Clone, Debug, PartialEq, Default)]
struct State {
    queue: BTreeSet<i64>,
    acct: BTreeMap<i64, i64>,
    extra: bool,
}

fn read_state(db: &Database) -> State {
    let acct = common::rows(db, "SEL k, v FROM acct ORDER BY k")
        .iter()
        .map(|r| {
            let (k, v) = r.split_once('|').unwrap();
            (k.parse().unwrap(), v.parse().unwrap())
        })
        .collect();
    State {
        queue: ints(db, "SEL n FROM q").into_iter().collect(),
        acct,
        extra: db.table_names().iter().any(|t| t == "extra"),
    }
}

const SETUP: [&str; 2] = [
    "CREATE TABLE q, QUEUE (qits TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6), \
     n INTEGER NOT NULL, pad VARCHAR(200))",
    "CREATE TABLE acct (k INTEGER NOT NULL, v INTEGER NOT NULL) UNIQUE PRIMARY INDEX (k)",
];

/// Runs random transactions until the power fails; returns the states after each commit
/// (index 0: the state at the start) and whether the last attempted commit is in doubt.
fn workload(
    db: &Database,
    rng: &mut SmallRng,
    start: State,
    next_id: &mut i64,
) -> (Vec<State>, Option<State>) {
    let mut states = vec![start];
    let mut s = db.session();
    for _ in 0..400 {
        let mut next = states.last().unwrap().clone();
        let sql = match rng.gen_range(0..10) {
            0..=3 => {
                let mut sql = String::from("BT;");
                for _ in 0..rng.gen_range(1..4) {
                    *next_id += 1;
                    let pad = "x".repeat(rng.gen_range(0..200));
                    sql += &format!("INS q (n, pad) VALUES ({}, '{pad}');", *next_id);
                    next.queue.insert(*next_id);
                }
                sql + "ET;"
            }
            4..=6 => {
                let Some(&first) = next.queue.first() else {
                    continue;
                };
                // consume inside BT, then commit or roll back
                let got = s.execute("BT; SELECT AND CONSUME TOP 1 n FROM q;");
                let r = match got {
                    Ok(r) => r,
                    Err(_) => return (states, None),
                };
                let cell = r[1].rows.as_ref().unwrap().batches[0].column(0).clone();
                let n = cell
                    .as_any()
                    .downcast_ref::<arrow::array::Int32Array>()
                    .unwrap()
                    .value(0) as i64;
                assert_eq!(n, first, "consume takes the oldest row");
                if rng.gen_bool(0.3) {
                    s.execute("ABORT").unwrap_err();
                    continue;
                }
                next.queue.remove(&n);
                "ET;".to_string()
            }
            7..=8 => {
                let k = rng.gen_range(0..5);
                let v = next.acct.get(&k).copied();
                next.acct.insert(k, v.unwrap_or(0) + 1);
                match v {
                    Some(_) => format!("UPD acct SET v = v + 1 WHERE k = {k}"),
                    None => format!("INS acct (k, v) VALUES ({k}, 1)"),
                }
            }
            _ => {
                next.extra = !next.extra;
                if next.extra {
                    "CREATE TABLE extra (a INTEGER)".to_string()
                } else {
                    "DROP TABLE extra".to_string()
                }
            }
        };
        match s.execute(&sql) {
            Ok(_) => states.push(next),
            Err(e) => {
                assert_eq!(e.error.code().number, 9914, "only the power cut fails: {e}");
                return (states, Some(next));
            }
        }
        if rng.gen_bool(0.03) {
            let _ = db.checkpoint();
        }
    }
    (states, None)
}

fn run_seed(seed: u64, mode: SyncMode) {
    let mut rng = SmallRng::seed_from_u64(seed);
    let sim = SimVfs::new(seed);
    let dir = Path::new("/db");
    let opts = Options {
        sync: mode,
        checkpoint_bytes: rng.gen_range(2_000..20_000),
        vfs: Arc::new(sim.clone()),
    };
    let db = Database::open_with(dir, opts.clone()).unwrap();
    for sql in SETUP {
        db.session().execute(sql).unwrap();
    }
    drop(db);
    let mut state = State::default();
    let mut next_id = 0;
    for cycle in 0..4 {
        let db = Database::open_with(dir, opts.clone())
            .unwrap_or_else(|e| panic!("seed {seed} cycle {cycle}: reopen failed: {e}"));
        let now = read_state(&db);
        assert_eq!(now, state, "seed {seed} cycle {cycle}: reopened state");
        sim.set_tear(rng.gen_bool(0.7));
        sim.fail_after(rng.gen_range(1..300));
        let (states, doubt) = workload(&db, &mut rng, state, &mut next_id);
        if !sim.is_down() {
            sim.power_cut();
        }
        drop(db);
        sim.restart();
        let db = Database::open_with(dir, opts.clone()).unwrap_or_else(|e| {
            if std::env::var("TDLITE_POWER_DUMP").is_ok() {
                for f in tdlite::vfs::Vfs::list(&sim, dir).unwrap() {
                    let bytes = sim.contents(&dir.join(&f)).unwrap();
                    eprintln!(
                        "{f}: {} bytes {:?}",
                        bytes.len(),
                        String::from_utf8_lossy(&bytes)
                    );
                }
            }
            panic!("seed {seed} cycle {cycle}: open after cut failed: {e}")
        });
        let got = read_state(&db);
        let acked = states.last().unwrap();
        let ok = match mode {
            SyncMode::Full => &got == acked || doubt.as_ref() == Some(&got),
            _ => states.contains(&got) || doubt.as_ref() == Some(&got),
        };
        assert!(
            ok,
            "seed {seed} cycle {cycle} ({mode:?}): recovered {got:?}\nlast acknowledged {acked:?}\nin doubt {doubt:?}"
        );
        state = got;
    }
    // the queue index was rebuilt right: everything comes out oldest first
    let db = Database::open_with(dir, opts).unwrap();
    let mut s = db.session();
    s.set_consume_timeout(Some(std::time::Duration::ZERO));
    let mut taken = Vec::new();
    while let Ok(r) = s.execute("SELECT AND CONSUME TOP 1 n FROM q") {
        let b = &r[0].rows.as_ref().unwrap().batches[0];
        let n = b
            .column(0)
            .as_any()
            .downcast_ref::<arrow::array::Int32Array>()
            .unwrap()
            .value(0);
        taken.push(n as i64);
    }
    let expected: Vec<i64> = state.queue.iter().copied().collect();
    assert_eq!(
        taken, expected,
        "seed {seed}: consumption order after recovery"
    );
}

fn seeds() -> u64 {
    std::env::var("TDLITE_POWER_SEEDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(40)
}

#[test]
fn full_sync_keeps_every_acknowledged_commit_through_power_cuts() {
    for seed in 0..seeds() {
        run_seed(seed, SyncMode::Full);
    }
}

#[test]
fn normal_and_off_keep_a_prefix_of_the_commits_through_power_cuts() {
    for seed in 0..seeds() {
        run_seed(1000 + seed, SyncMode::Normal);
        run_seed(2000 + seed, SyncMode::Off);
    }
}
