//! Kill -9: a real `crash_worker` process runs producers, consumers and transfers on ten
//! threads against a database folder (sync=full, frequent checkpoints) and is killed with
//! SIGKILL at a random moment, again and again. After each kill the folder is reopened and:
//! - every acknowledged commit is there: acknowledged inserts not acknowledged as consumed are
//!   in the queue (unless their consume's commit was in flight);
//! - nothing uncommitted is: every row in the queue was inserted by a commit that was
//!   acknowledged or in flight, and no acknowledged consume's row is back;
//! - no row is duplicated; an in-flight insert batch is all there or not at all, and so is
//!   an in-flight batch consume (`SELECT AND CONSUME TOP k`: its rows all back or all gone);
//! - the account total is unchanged (transfers are atomic);
//! - a quarter of the takes are leases, acknowledged (a consume) or released (a rollback);
//!   a lease that was running at the kill is over at reopen, its rows back in the queue;
//! - the keyed queue of the queue's index (selective consume) holds exactly the queue's rows:
//!   a consume through it of each key's rows finds what a browse finds;
//! - attempts are durable: a row's count is at least its count before the run plus the
//!   rollbacks of its consumes the worker saw return, and at most one more (a rollback in
//!   flight); a row is in the queue or in the dead-letter table, never both, and a dead one
//!   has `MAX_ATTEMPTS` attempts. (The walk above is rolled back: one more attempt each.)
//! - a queue with subscribers (`fan`, subscribers a and b) keeps each subscriber's rows as
//!   above (acknowledged inserts there unless that subscriber's consume was acknowledged or in
//!   flight, acknowledged consumes gone, nothing uncommitted, in-flight batches whole), and the
//!   queue holds exactly the rows some subscriber still has (a row left with its last copy,
//!   in the same commit, or not at all).
//! - identity numbers (`idt`) are never handed out twice: the rows' numbers are distinct,
//!   and a number generated after the reopen is above every number the table has shown and
//!   every number an acknowledged commit saw (its rows deleted since or not).
//!
//! `TDLITE_CRASH_CYCLES=n` runs more kill cycles (default 50); `TDLITE_CRASH_SEED` replays one.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;
use tdlite::Database;
use tdlite_system_tests::{int_pairs, ints, MAX_ATTEMPTS, SETUP, SUBSCRIBERS, TOTAL};

/// What one worker run said before it died.
#[derive(Default, Debug)]
struct Said {
    produced: BTreeSet<i64>,
    consumed: BTreeSet<i64>,
    /// Insert batches whose commit was in flight.
    doubtful_batches: Vec<Vec<i64>>,
    /// Consumed ids whose commit was in flight.
    doubtful_consumes: BTreeSet<i64>,
    /// The same, by the consume that took them.
    doubtful_consume_batches: Vec<Vec<i64>>,
    /// Selective consumes that took rows.
    selective: usize,
    /// Consumes that took rows as a lease.
    leases: usize,
    /// Acknowledged rollbacks of consumes, by id taken.
    rolled_back: HashMap<i64, i64>,
    /// What the worker reported as failed (must be nothing).
    failures: Vec<String>,
    /// Acknowledged inserts into `fan`, and batches whose commit was in flight.
    fan_produced: BTreeSet<i64>,
    fan_doubtful_batches: Vec<Vec<i64>>,
    /// Acknowledged consumes of `fan` by subscriber, and those in flight.
    fan_consumed: BTreeMap<String, BTreeSet<i64>>,
    fan_doubtful: BTreeMap<String, BTreeSet<i64>>,
    /// The largest identity number an acknowledged commit into `idt` saw.
    identity_seen: i64,
}

fn parse(lines: &[String]) -> Said {
    let mut said = Said::default();
    let mut try_p: HashMap<String, Vec<i64>> = HashMap::new();
    let mut try_c: HashMap<String, Vec<i64>> = HashMap::new();
    let mut try_f: HashMap<String, Vec<i64>> = HashMap::new();
    let mut try_s: HashMap<String, (String, Vec<i64>)> = HashMap::new();
    let mut try_i: HashMap<String, i64> = HashMap::new();
    let ids_of = |ids: &[&str]| -> Vec<i64> { ids.iter().map(|i| i.parse().unwrap()).collect() };
    for line in lines {
        let w: Vec<&str> = line.split_whitespace().collect();
        match w.as_slice() {
            ["TRYP", t, ids @ ..] => {
                try_p.insert(
                    t.to_string(),
                    ids.iter().map(|i| i.parse().unwrap()).collect(),
                );
            }
            ["OKP", t] => said.produced.extend(try_p.remove(*t).unwrap()),
            ["TRYC", t, ids @ ..] => {
                try_c.insert(
                    t.to_string(),
                    ids.iter().map(|i| i.parse().unwrap()).collect(),
                );
            }
            ["OKC", t] => {
                said.consumed.extend(try_c.remove(*t).unwrap());
            }
            ["RBC", t] => {
                for id in try_c.remove(*t).unwrap() {
                    *said.rolled_back.entry(id).or_default() += 1;
                }
            }
            ["TRYF", t, ids @ ..] => {
                try_f.insert(t.to_string(), ids_of(ids));
            }
            ["OKF", t] => said.fan_produced.extend(try_f.remove(*t).unwrap()),
            ["TRYS", t, s, ids @ ..] => {
                try_s.insert(t.to_string(), (s.to_string(), ids_of(ids)));
            }
            ["OKS", t] => {
                let (s, ids) = try_s.remove(*t).unwrap();
                said.fan_consumed.entry(s).or_default().extend(ids);
            }
            ["RBS", t] => {
                try_s.remove(*t).unwrap();
            }
            ["TRYI", t, id] => {
                try_i.insert(t.to_string(), id.parse().unwrap());
            }
            ["OKI", t] => {
                said.identity_seen = said.identity_seen.max(try_i.remove(*t).unwrap());
            }
            ["SELC", _] => said.selective += 1,
            ["LEAS", _] => said.leases += 1,
            ["FAIL", ..] => said.failures.push(line.clone()),
            _ => {} // READY, or a line cut short by the kill
        }
    }
    said.doubtful_batches = try_p.into_values().collect();
    said.fan_doubtful_batches = try_f.into_values().collect();
    for (s, ids) in try_s.into_values() {
        said.fan_doubtful.entry(s).or_default().extend(ids);
    }
    said.doubtful_consume_batches = try_c.into_values().collect();
    said.doubtful_consumes = said
        .doubtful_consume_batches
        .iter()
        .flatten()
        .copied()
        .collect();
    said
}

fn run_worker(dir: &Path, seed: u64, first_id: i64, rng: &mut SmallRng) -> Vec<String> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_crash_worker"))
        .args([
            dir.to_str().unwrap(),
            &seed.to_string(),
            &first_id.to_string(),
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start crash_worker");
    let stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
            .collect::<Vec<String>>()
    });
    // sometimes during open and recovery, mostly in the middle of the workload
    std::thread::sleep(Duration::from_millis(rng.gen_range(0..200)));
    child.kill().expect("SIGKILL");
    child.wait().unwrap();
    reader.join().unwrap()
}

fn check(
    seed: u64,
    cycle: u32,
    db: &Database,
    before: &BTreeMap<i64, i64>,
    said: &Said,
) -> BTreeMap<i64, i64> {
    let ctx = format!("seed {seed} cycle {cycle}");
    let counts = attempts(db, &ctx);
    let now: BTreeSet<i64> = counts.keys().copied().collect();
    for (id, &count) in &counts {
        let base = before.get(id).copied().unwrap_or(0);
        let acked = said.rolled_back.get(id).copied().unwrap_or(0);
        // each thread's last consume may be in flight, and a rollback that counted may be
        // followed by another thread's consume of the row before the first could say so
        let in_flight = said
            .doubtful_consume_batches
            .iter()
            .filter(|b| b.contains(id))
            .count() as i64;
        assert!(
            base + acked <= count && count <= base + acked + in_flight,
            "{ctx}: row {id} has {count} attempts; before {base}, {acked} rollbacks \
             acknowledged, {in_flight} in flight"
        );
    }
    let before: BTreeSet<i64> = before.keys().copied().collect();
    let doubtful: BTreeSet<i64> = said.doubtful_batches.iter().flatten().copied().collect();
    for id in before.iter().chain(&said.produced) {
        if !said.consumed.contains(id) && !said.doubtful_consumes.contains(id) {
            assert!(now.contains(id), "{ctx}: acknowledged row {id} lost");
        }
    }
    for id in &now {
        assert!(
            !said.consumed.contains(id),
            "{ctx}: consumed row {id} came back"
        );
        assert!(
            before.contains(id) || said.produced.contains(id) || doubtful.contains(id),
            "{ctx}: row {id} was never committed"
        );
    }
    for batch in &said.doubtful_batches {
        let settled: Vec<&i64> = batch
            .iter()
            .filter(|i| !said.consumed.contains(i) && !said.doubtful_consumes.contains(i))
            .collect();
        let present = settled.iter().filter(|i| now.contains(i)).count();
        assert!(
            present == 0 || present == settled.len(),
            "{ctx}: in-flight batch {batch:?} is partly there"
        );
    }
    for (k, batch) in said.doubtful_consume_batches.iter().enumerate() {
        // rows that went back before the kill may have been taken again since, by an
        // acknowledged consume or another one in flight: those say nothing of this one
        let retaken = |i: &i64| {
            said.consumed.contains(i)
                || said
                    .doubtful_consume_batches
                    .iter()
                    .enumerate()
                    .any(|(j, b)| j != k && b.contains(i))
        };
        let settled: Vec<&i64> = batch.iter().filter(|i| !retaken(i)).collect();
        let present = settled.iter().filter(|i| now.contains(i)).count();
        assert!(
            present == 0 || present == settled.len(),
            "{ctx}: in-flight consume of {batch:?} is partly undone: {:?}",
            batch.iter().map(|i| (i, counts.get(i))).collect::<Vec<_>>()
        );
    }
    // the keyed queue of the index on g was rebuilt with the queue: a selective consume
    // through it finds exactly the rows of each g (taken and given back)
    for g in 0..4 {
        let browsed: BTreeSet<i64> = ints(db, &format!("SEL n FROM q WHERE g = {g}"))
            .into_iter()
            .collect();
        let walked: BTreeSet<i64> = ints(
            db,
            &format!("BT; SELECT AND CONSUME TOP 2000000 n FROM q WHERE g = {g} NOWAIT"),
        )
        .into_iter()
        .collect();
        assert_eq!(walked, browsed, "{ctx}: the index walk of g = {g} differs");
    }
    let total: i64 = ints(db, "SEL v FROM acct").iter().sum();
    assert_eq!(total, TOTAL, "{ctx}: a transfer was half applied");
    // the walks were rolled back: their rows counted one more attempt
    attempts(db, &ctx)
}

/// Checks the queue with subscribers `fan` against what was there `before` (each subscriber's
/// rows) and what the worker said; returns each subscriber's rows now.
fn check_fan(
    ctx: &str,
    db: &Database,
    before: &BTreeMap<String, BTreeSet<i64>>,
    said: &Said,
) -> BTreeMap<String, BTreeSet<i64>> {
    let doubtful: BTreeSet<i64> = said
        .fan_doubtful_batches
        .iter()
        .flatten()
        .copied()
        .collect();
    let empty = BTreeSet::new();
    let mut now = BTreeMap::new();
    let mut union = BTreeSet::new();
    for sub in SUBSCRIBERS {
        // every row the subscriber has, by a consume rolled back (no attempts on `fan`)
        let rows = ints(
            db,
            &format!("BT; SELECT AND CONSUME TOP 2000000 n FROM fan FOR SUBSCRIBER {sub} NOWAIT"),
        );
        let mine: BTreeSet<i64> = rows.iter().copied().collect();
        assert_eq!(mine.len(), rows.len(), "{ctx}: {sub} has a row twice");
        let consumed = said.fan_consumed.get(sub).unwrap_or(&empty);
        let in_flight = said.fan_doubtful.get(sub).unwrap_or(&empty);
        let had = before.get(sub).unwrap_or(&empty);
        for id in had.iter().chain(&said.fan_produced) {
            if !consumed.contains(id) && !in_flight.contains(id) {
                assert!(mine.contains(id), "{ctx}: {sub} lost acknowledged row {id}");
            }
        }
        for id in &mine {
            assert!(
                !consumed.contains(id),
                "{ctx}: {sub}'s consumed row {id} came back"
            );
            assert!(
                had.contains(id) || said.fan_produced.contains(id) || doubtful.contains(id),
                "{ctx}: {sub}'s row {id} was never committed"
            );
        }
        for batch in &said.fan_doubtful_batches {
            let settled: Vec<&i64> = batch
                .iter()
                .filter(|i| !consumed.contains(i) && !in_flight.contains(i))
                .collect();
            let present = settled.iter().filter(|i| mine.contains(i)).count();
            assert!(
                present == 0 || present == settled.len(),
                "{ctx}: in-flight batch {batch:?} is partly in {sub}'s rows"
            );
        }
        union.extend(mine.iter().copied());
        now.insert(sub.to_string(), mine);
    }
    let queued = ints(db, "SEL n FROM fan");
    let set: BTreeSet<i64> = queued.iter().copied().collect();
    assert_eq!(set.len(), queued.len(), "{ctx}: fan holds a row twice");
    assert_eq!(
        set, union,
        "{ctx}: fan does not hold exactly the rows some subscriber still has"
    );
    now
}

/// Checks `idt` after a reopen: its numbers are distinct, and a number generated now is above
/// `highest` (every number seen before) and what the worker saw. Returns the new highest.
fn check_identity(ctx: &str, db: &Database, highest: i64, said: &Said) -> i64 {
    let ids = ints(db, "SEL id FROM idt");
    let distinct: BTreeSet<i64> = ids.iter().copied().collect();
    assert_eq!(distinct.len(), ids.len(), "{ctx}: idt holds a number twice");
    let seen = highest
        .max(said.identity_seen)
        .max(distinct.last().copied().unwrap_or(0));
    let mut s = db.session();
    s.execute("INS idt (n) VALUES (-1)").unwrap();
    let new = ints(db, "SEL MAX(id) FROM idt WHERE n = -1")[0];
    assert!(
        new > seen,
        "{ctx}: identity number {new} handed out again (seen up to {seen})"
    );
    new
}

/// Each row's attempts, whether in the queue or dead: a row is in one of them, once, and a
/// dead one has `MAX_ATTEMPTS` attempts and its reason.
fn attempts(db: &Database, ctx: &str) -> BTreeMap<i64, i64> {
    let queued = int_pairs(db, "SEL n, tries FROM q");
    let dead = int_pairs(db, "SEL n, tries FROM q_dead");
    let wrong = ints(
        db,
        &format!("SEL n FROM q_dead WHERE tries <> {MAX_ATTEMPTS} OR why <> 'MAX ATTEMPTS'"),
    );
    assert!(
        wrong.is_empty(),
        "{ctx}: dead rows {wrong:?} without their last attempt"
    );
    let all: BTreeMap<i64, i64> = queued.iter().chain(&dead).copied().collect();
    assert_eq!(
        all.len(),
        queued.len() + dead.len(),
        "{ctx}: a row is duplicated (in the queue and dead, or twice)"
    );
    all
}

#[test]
fn kill_9_loses_no_acknowledged_commit_and_keeps_nothing_uncommitted() {
    let cycles: u32 = std::env::var("TDLITE_CRASH_CYCLES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(50);
    let seed: u64 = std::env::var("TDLITE_CRASH_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| rand::random::<u16>() as u64);
    println!("crash test seed {seed} (TDLITE_CRASH_SEED={seed} replays the kill timing)");
    let mut rng = SmallRng::seed_from_u64(seed);
    let dir = tempfile_dir();
    {
        let db = Database::open(&dir).unwrap();
        for sql in SETUP {
            db.session().execute(sql).unwrap();
        }
    }
    let mut live = BTreeMap::new();
    let mut fan = BTreeMap::new();
    let mut fan_consumed = 0;
    let mut acknowledged = 0;
    let mut selective = 0;
    let mut rollbacks = 0;
    let mut leases = 0;
    let mut highest_id = 0;
    let mut identity_commits = 0;
    for cycle in 0..cycles {
        let lines = run_worker(
            &dir,
            seed + cycle as u64,
            (cycle as i64 + 1) * 1_000_000,
            &mut rng,
        );
        let said = parse(&lines);
        assert!(
            said.failures.is_empty(),
            "seed {seed} cycle {cycle}: {:?}",
            said.failures
        );
        acknowledged += said.produced.len() + said.consumed.len();
        selective += said.selective;
        rollbacks += said.rolled_back.values().sum::<i64>();
        leases += said.leases;
        let db = Database::open(&dir)
            .unwrap_or_else(|e| panic!("seed {seed} cycle {cycle}: reopen failed: {e}"));
        live = check(seed, cycle, &db, &live, &said);
        fan = check_fan(&format!("seed {seed} cycle {cycle}"), &db, &fan, &said);
        fan_consumed += said.fan_consumed.values().map(BTreeSet::len).sum::<usize>();
        identity_commits += usize::from(said.identity_seen > 0);
        highest_id = check_identity(
            &format!("seed {seed} cycle {cycle}"),
            &db,
            highest_id,
            &said,
        );
    }
    let dead = live.values().filter(|&&c| c == MAX_ATTEMPTS).count();
    println!(
        "{cycles} kills, {acknowledged} acknowledged inserts and consumes checked, \
         {selective} selective consumes, {leases} leases, {rollbacks} counted rollbacks, \
         {dead} rows dead"
    );
    assert!(leases > 0, "no lease took a row");
    assert!(acknowledged > 0, "the worker never got to commit anything");
    assert!(selective > 0, "no selective consume took a row");
    assert!(rollbacks > 0 && dead > 0, "no attempt was counted");
    assert!(fan_consumed > 0, "no subscriber consumed a row");
    println!("{fan_consumed} acknowledged consumes by subscribers");
    assert!(identity_commits > 0, "no commit into idt was acknowledged");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A fresh folder under the target directory's temp space (kept on failure for inspection).
fn tempfile_dir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("tdlite-crash-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}
