//! Model-based test of attempts, expiry, dead letters and leases (issue 17, docs/queues.md):
//! random sequences of inserts (fresh or long expired), transactional consumes committed or
//! rolled back (session A), leases acknowledged, released or asked for after their end
//! (session B), run against tdlite and a plain reference model. The queue counts attempts in
//! `tries` (`MAX ATTEMPTS 3`), expires rows a day after their QITS, and sends both to `q_dead`.
//! Now and then the sessions end (an open consume and the leases give their rows back,
//! counted) and the database, on disk, is closed and opened again: the counts and dead letters
//! come back from the log. After every step the rows a take returned (in order, with their
//! counts), the lease numbers, the errors, and, from a third session, the whole queue and
//! dead-letter table must match the model.
//!
//! The seed is printed on failure; `TDLITE_LIMITS_SEED` replays one, `TDLITE_LIMITS_CASES` runs
//! more sequences (a soak).

use crate::common::{model_cases, Rng};
use std::collections::BTreeMap;
use tdlite::{Database, Session};

const MAX: i64 = 3;

/// Queue order: expired rows' QITS (2000) before fresh ones' (2100), then the second, then
/// the insertion sequence.
type Key = (bool, u64, u64);

#[derive(Default)]
struct Model {
    /// Committed rows (id, tries), those A holds or B leases among them.
    rows: BTreeMap<Key, (u64, i64)>,
    /// Rows A's open transaction took.
    claimed: Vec<Key>,
    a_open: bool,
    leases: BTreeMap<i64, Vec<Key>>,
    last_lease: i64,
    /// The dead-letter table: (id, tries, reason).
    dead: Vec<(u64, i64, &'static str)>,
    seq: u64,
}

impl Model {
    fn free(&self, k: &Key) -> bool {
        !self.claimed.contains(k) && !self.leases.values().any(|l| l.contains(k))
    }

    /// What a take does first: expired rows no one holds move to the dead-letter table.
    fn expire(&mut self) {
        let expired: Vec<Key> = self
            .rows
            .keys()
            .filter(|k| !k.0 && self.free(k))
            .copied()
            .collect();
        for k in expired {
            let (id, tries) = self.rows.remove(&k).unwrap();
            self.dead.push((id, tries, "EXPIRED"));
        }
    }

    /// Up to `top` rows a take gets, in order.
    fn take(&mut self, top: usize) -> Vec<Key> {
        self.expire();
        self.rows
            .keys()
            .filter(|k| k.0 && self.free(k))
            .take(top)
            .copied()
            .collect()
    }

    /// A row given back after a rollback or a lease's end: one more attempt, dead at MAX.
    fn give_back(&mut self, k: Key) {
        let Some((id, tries)) = self.rows.get_mut(&k) else {
            return;
        };
        *tries += 1;
        if *tries >= MAX {
            let (id, tries) = (*id, *tries);
            self.rows.remove(&k);
            self.dead.push((id, tries, "MAX ATTEMPTS"));
        }
    }

    fn shown(&self, keys: &[Key]) -> Vec<String> {
        keys.iter()
            .map(|k| {
                let (id, tries) = self.rows[k];
                format!("{id}|{tries}")
            })
            .collect()
    }
}

fn strings(s: &mut Session, sql: &str) -> Result<Vec<Vec<String>>, u32> {
    match s.execute(sql) {
        Ok(r) => Ok(r
            .last()
            .and_then(|r| r.rows.as_ref())
            .map(|r| r.to_strings())
            .unwrap_or_default()),
        Err(e) => Err(e.code().number),
    }
}

#[test]
fn attempts_expiry_and_leases_match_the_model() {
    let cases = model_cases("LIMITS", 40, run);
    assert!(cases.iter().sum::<usize>() > 0, "no take returned a row");
}

/// One sequence; how many rows its takes returned.
fn run(seed: u64) -> usize {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    // on disk: the counts and dead letters must come back from the log at a reopen
    let dir = tempfile::tempdir().unwrap();
    let mut db = Database::open(dir.path()).unwrap();
    let mut c = db.session();
    c.execute(
        "CREATE MULTISET TABLE q_dead (qits TIMESTAMP(6), id INTEGER, tries INTEGER, \
         why VARCHAR(20))",
    )
    .unwrap();
    c.execute(&format!(
        "CREATE MULTISET TABLE q, QUEUE, ATTEMPTS (tries), MAX ATTEMPTS {MAX}, EXPIRE AFTER \
         1 DAY, DEAD LETTER TO q_dead (qits TIMESTAMP(6) NOT NULL DEFAULT \
         CURRENT_TIMESTAMP(6), id INTEGER, tries INTEGER NOT NULL)"
    ))
    .unwrap();
    let (mut a, mut b) = (db.session(), db.session());
    let mut m = Model::default();
    let mut taken_rows = 0;
    for step in 0..60 {
        let ctx = format!("seed {seed} step {step}");
        match rng.below(9) {
            0 | 1 => {
                let fresh = rng.below(3) != 0;
                let second = rng.below(4);
                m.seq += 1;
                let id = m.seq;
                let year = if fresh { 2100 } else { 2000 };
                c.execute(&format!(
                    "INS q (TIMESTAMP '{year}-01-01 00:00:0{second}', {id}, 0)"
                ))
                .unwrap();
                m.rows.insert((fresh, second, id), (id, 0));
            }
            2 if !m.a_open => {
                let top = 1 + rng.below(3) as usize;
                let got = strings(
                    &mut a,
                    &format!("BT; SELECT AND CONSUME TOP {top} id, tries FROM q NOWAIT"),
                )
                .unwrap();
                let want = m.take(top);
                let got: Vec<String> = got.iter().map(|r| r.join("|")).collect();
                assert_eq!(got, m.shown(&want), "{ctx}: consume");
                taken_rows += want.len();
                m.claimed = want;
                m.a_open = true;
            }
            3 if m.a_open => {
                a.execute("ET").unwrap();
                for k in std::mem::take(&mut m.claimed) {
                    m.rows.remove(&k);
                }
                m.a_open = false;
            }
            4 if m.a_open => {
                assert_eq!(strings(&mut a, "ROLLBACK"), Err(3514), "{ctx}");
                for k in std::mem::take(&mut m.claimed) {
                    m.give_back(k);
                }
                m.a_open = false;
            }
            5 => {
                let top = 1 + rng.below(3) as usize;
                let got = strings(
                    &mut b,
                    &format!("SELECT AND CONSUME TOP {top} id, tries FROM q LEASE 1 HOUR NOWAIT"),
                )
                .unwrap();
                let want = m.take(top);
                let shown: Vec<String> = got.iter().map(|r| format!("{}|{}", r[0], r[1])).collect();
                assert_eq!(shown, m.shown(&want), "{ctx}: lease");
                if !want.is_empty() {
                    m.last_lease += 1;
                    let ids: Vec<&str> = got.iter().map(|r| r[2].as_str()).collect();
                    assert!(
                        ids.iter().all(|i| *i == m.last_lease.to_string()),
                        "{ctx}: lease numbers {ids:?}, want {}",
                        m.last_lease
                    );
                    taken_rows += want.len();
                    m.leases.insert(m.last_lease, want);
                }
            }
            6 | 7 => {
                // a live lease, or one that is not (any more)
                let id = if !m.leases.is_empty() && rng.below(4) != 0 {
                    let live: Vec<i64> = m.leases.keys().copied().collect();
                    live[rng.below(live.len() as u64) as usize]
                } else {
                    1 + rng.below(m.last_lease as u64 + 1) as i64
                };
                let ack = rng.below(2) == 0;
                let verb = if ack { "ACKNOWLEDGE" } else { "RELEASE" };
                let got = b.execute(&format!("{verb} q LEASE {id}"));
                match m.leases.remove(&id) {
                    None => assert_eq!(
                        got.map(|_| ()).map_err(|e| e.code().number),
                        Err(9922),
                        "{ctx}: {verb} of lease {id} that is not there"
                    ),
                    Some(keys) => {
                        let n =
                            got.unwrap_or_else(|e| panic!("{ctx}: {verb}: {e}"))[0].activity_count;
                        assert_eq!(n, keys.len() as u64, "{ctx}: {verb} count");
                        for k in keys {
                            if ack {
                                m.rows.remove(&k);
                            } else {
                                m.give_back(k);
                            }
                        }
                    }
                }
            }
            8 if rng.below(3) == 0 => {
                // the sessions end (an open consume rolls back and a lease ends: both count
                // an attempt), then the database is closed and opened again
                drop(a);
                if m.a_open {
                    for k in std::mem::take(&mut m.claimed) {
                        m.give_back(k);
                    }
                    m.a_open = false;
                }
                drop(b);
                for (_, keys) in std::mem::take(&mut m.leases) {
                    for k in keys {
                        m.give_back(k);
                    }
                }
                drop(c);
                drop(db);
                db = Database::open(dir.path()).unwrap_or_else(|e| panic!("{ctx}: reopen: {e}"));
                (a, b, c) = (db.session(), db.session(), db.session());
                // lease numbers start again at 1 in each open
                m.last_lease = 0;
            }
            _ => {}
        }
        // the whole state, as a third session sees it
        let mut queued: Vec<String> = strings(&mut c, "SELECT id, tries FROM q")
            .unwrap()
            .iter()
            .map(|r| r.join("|"))
            .collect();
        queued.sort();
        let mut want: Vec<String> = m
            .rows
            .values()
            .map(|(id, tries)| format!("{id}|{tries}"))
            .collect();
        want.sort();
        assert_eq!(queued, want, "{ctx}: the queue");
        let mut dead: Vec<String> = strings(&mut c, "SELECT id, tries, why FROM q_dead")
            .unwrap()
            .iter()
            .map(|r| r.join("|"))
            .collect();
        dead.sort();
        let mut want: Vec<String> = m
            .dead
            .iter()
            .map(|(id, tries, why)| format!("{id}|{tries}|{why}"))
            .collect();
        want.sort();
        assert_eq!(dead, want, "{ctx}: the dead-letter table");
    }
    taken_rows
}
