//! The process tests/crash.rs kills: it opens a database folder and runs producers, consumers
//! and account transfers on several threads, forever, printing to stdout before and after each
//! commit so the test knows what was acknowledged:
//!
//! ```text
//!   READY                       the database is open
//!   TRYP <t> <id> <id> …        thread t is about to commit inserts of these ids
//!   OKP <t>                     … and the commit returned
//!   TRYC <t> <id> <id> …        thread t consumed these ids (a batch consume, `TOP k`, takes
//!                               up to k; a selective one, `WHERE …`, only matching rows) and
//!                               is about to commit, or leased them (`LEASE`) and is about to
//!                               acknowledge or release the lease
//!   OKC <t> | RBC <t>           … the commit (acknowledgement) returned | it rolled back
//!                               instead (the lease was released or had ended)
//!   SELC <t>                    (before TRYC) the consume was selective
//!   LEAS <t>                    (before TRYC) the consume took a lease
//!   FAIL <t> <what>             a consume failed unexpectedly or took a row its WHERE
//!                               does not match (the test fails)
//!   TRYF <t> <id> …  / OKF <t>  as TRYP/OKP, into `fan` (a queue with subscribers)
//!   TRYS <t> <sub> <id> …       thread t consumed these ids of `fan` for subscriber sub and
//!                               is about to commit
//!   OKS <t> | RBS <t>           … the commit returned | it rolled back instead
//!   TRYI <t> <id>               thread t inserted rows into `idt` (an identity column), the
//!                               largest number it sees is id (then maybe deleted it), and it
//!                               is about to commit
//!   OKI <t>                     … the commit returned
//! ```
//!
//! Usage: `crash_worker DIR SEED FIRST_ID`.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::io::Write;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tdlite::{Database, Options};

fn say(line: String) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// One to three fresh ids for an insert batch.
fn new_ids(rng: &mut SmallRng, next_id: &AtomicI64) -> Vec<i64> {
    let n = rng.gen_range(1..4);
    (0..n)
        .map(|_| next_id.fetch_add(1, Ordering::Relaxed))
        .collect()
}

fn worker(db: Database, t: usize, seed: u64, next_id: Arc<AtomicI64>) {
    let mut rng = SmallRng::seed_from_u64(seed ^ (t as u64) << 32);
    let mut s = db.session();
    s.set_consume_timeout(Some(Duration::from_millis(20)));
    loop {
        match rng.gen_range(0..13) {
            12 => {
                // identity numbers: never handed out again, even once their rows are deleted
                let k = rng.gen_range(1..4);
                let mut sql = String::from("BT;");
                for _ in 0..k {
                    sql += &format!("INS idt (n) VALUES ({t});");
                }
                s.execute(&sql).expect("inserts into idt");
                let r = s.execute("SEL MAX(id) FROM idt").expect("max id");
                let max = r[0].rows.as_ref().unwrap().to_strings()[0][0].clone();
                if rng.gen_bool(0.5) {
                    s.execute(&format!("DEL FROM idt WHERE id = {max}"))
                        .expect("delete the largest");
                }
                say(format!("TRYI {t} {max}"));
                s.execute("ET").expect("commit");
                say(format!("OKI {t}"));
            }
            10 => {
                let ids = new_ids(&mut rng, &next_id);
                let mut sql = String::from("BT;");
                for id in &ids {
                    sql += &format!("INS fan (n) VALUES ({id});");
                }
                s.execute(&sql).expect("inserts into fan");
                let list: Vec<String> = ids.iter().map(i64::to_string).collect();
                say(format!("TRYF {t} {}", list.join(" ")));
                s.execute("ET").expect("commit");
                say(format!("OKF {t}"));
            }
            11 => {
                let sub = tdlite_system_tests::SUBSCRIBERS[rng.gen_range(0..2)];
                let k = rng.gen_range(1..4);
                let sql = format!(
                    "BT; SELECT AND CONSUME TOP {k} n FROM fan FOR SUBSCRIBER {sub} NOWAIT"
                );
                let r = match s.execute(&sql) {
                    Ok(r) => r,
                    Err(e) => {
                        say(format!("FAIL {t} {sql}: {e}"));
                        let _ = s.execute("ABORT");
                        continue;
                    }
                };
                let taken = r.last().unwrap().rows.as_ref().unwrap().to_strings();
                if taken.is_empty() {
                    s.execute("ET").expect("commit");
                    continue;
                }
                let ids: Vec<String> = taken.iter().map(|row| row[0].clone()).collect();
                say(format!("TRYS {t} {sub} {}", ids.join(" ")));
                if rng.gen_bool(0.25) {
                    let _ = s.execute("ABORT");
                    say(format!("RBS {t}"));
                } else {
                    s.execute("ET").expect("commit");
                    say(format!("OKS {t}"));
                }
            }
            0..=4 => {
                let ids = new_ids(&mut rng, &next_id);
                let mut sql = String::from("BT;");
                for id in &ids {
                    let pad = "p".repeat(rng.gen_range(0..300));
                    sql += &format!("INS q (n, g, pad) VALUES ({id}, {}, '{pad}');", id % 4);
                }
                s.execute(&sql).expect("inserts");
                let list: Vec<String> = ids.iter().map(i64::to_string).collect();
                say(format!("TRYP {t} {}", list.join(" ")));
                s.execute("ET").expect("commit");
                say(format!("OKP {t}"));
            }
            5..=7 => {
                // one row or a batch (issue 17), waiting (20 ms) or not, of every row or
                // selective: through the index on g, or testing each row
                let k = if rng.gen_bool(0.5) {
                    1
                } else {
                    rng.gen_range(2..6)
                };
                let (filter, matches): (String, Box<dyn Fn(i64) -> bool>) =
                    match rng.gen_range(0..4) {
                        0 => {
                            let g = rng.gen_range(0..4);
                            (format!(" WHERE g = {g}"), Box::new(move |n| n % 4 == g))
                        }
                        1 => {
                            let r = rng.gen_range(0..3);
                            (
                                format!(" WHERE n MOD 3 = {r}"),
                                Box::new(move |n| n % 3 == r),
                            )
                        }
                        _ => (String::new(), Box::new(|_| true)),
                    };
                let wait = if rng.gen_bool(0.3) { " NOWAIT" } else { "" };
                // a quarter of the takes are leases (no transaction; acknowledged or released)
                let lease = rng.gen_bool(0.25);
                let sql = if lease {
                    // (5 s: longer than a run. A lease that runs out makes its counted return
                    // durable through another thread, possibly before this one could say it
                    // took the rows; leases that run out are stressed in memory, attempts.rs)
                    format!("SELECT AND CONSUME TOP {k} n FROM q{filter} LEASE 5 SECONDS{wait}")
                } else {
                    format!("BT; SELECT AND CONSUME TOP {k} n FROM q{filter}{wait}")
                };
                let r = match s.execute(&sql) {
                    Ok(r) => r,
                    // empty queue: timed out, rolled back
                    Err(e) if e.code().number == 9904 => continue,
                    Err(e) => {
                        say(format!("FAIL {t} {sql}: {e}"));
                        continue;
                    }
                };
                let taken = r.last().unwrap().rows.as_ref().unwrap().to_strings();
                let ids: Vec<String> = taken.iter().map(|row| row[0].clone()).collect();
                if ids.is_empty() {
                    // NOWAIT on an empty queue: nothing taken
                    if !lease {
                        s.execute("ET").expect("commit");
                    }
                    continue;
                }
                if let Some(bad) = ids.iter().find(|n| !n.parse().is_ok_and(&matches)) {
                    say(format!("FAIL {t} {sql}: row {bad} does not match"));
                }
                if !filter.is_empty() {
                    say(format!("SELC {t}"));
                }
                if lease {
                    say(format!("LEAS {t}"));
                }
                say(format!("TRYC {t} {}", ids.join(" ")));
                if lease {
                    // acknowledged: consumed; released (or ended meanwhile): back, counted
                    let id = &taken[0][1];
                    let release = rng.gen_bool(0.25);
                    let verb = if release { "RELEASE" } else { "ACKNOWLEDGE" };
                    match s.execute(&format!("{verb} q LEASE {id}")) {
                        Ok(_) if !release => say(format!("OKC {t}")),
                        Ok(_) => say(format!("RBC {t}")),
                        Err(e) if e.code().number == 9922 => say(format!("RBC {t}")),
                        Err(e) => say(format!("FAIL {t} {verb} q LEASE {id}: {e}")),
                    }
                } else if rng.gen_bool(0.25) {
                    let _ = s.execute("ABORT");
                    say(format!("RBC {t}"));
                } else {
                    s.execute("ET").expect("commit");
                    say(format!("OKC {t}"));
                }
            }
            _ => {
                let (a, b) = (rng.gen_range(0..4), rng.gen_range(0..4));
                let x = rng.gen_range(1..50);
                // a deadlock with another thread's transfer fails with 2631: nothing changed
                let _ = s.execute(&format!(
                    "BT; UPD acct SET v = v - {x} WHERE k = {a}; UPD acct SET v = v + {x} WHERE k = {b}; ET"
                ));
            }
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (dir, seed, first): (&str, u64, i64) = match &args[..] {
        [_, d, s, f] => (d, s.parse().expect("SEED"), f.parse().expect("FIRST_ID")),
        _ => {
            eprintln!("usage: crash_worker DIR SEED FIRST_ID");
            std::process::exit(2);
        }
    };
    let opts = Options {
        checkpoint_bytes: 32 << 10, // checkpoints often, so kills land in them too
        ..Options::default()
    };
    let db = Database::open_with(dir, opts).unwrap_or_else(|e| {
        eprintln!("open failed: {e}");
        std::process::exit(1);
    });
    say("READY".into());
    let next_id = Arc::new(AtomicI64::new(first));
    // ten threads (issue 17's stress: 2 producers and 8 consumers, here each thread choosing
    // its next step at random)
    let threads: Vec<_> = (0..10)
        .map(|t| {
            let (db, next_id) = (db.clone(), next_id.clone());
            std::thread::spawn(move || worker(db, t, seed, next_id))
        })
        .collect();
    for t in threads {
        let _ = t.join();
    }
}
