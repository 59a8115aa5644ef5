//! Model-based test of subscribers (issue 17, docs/queues.md Subscribers): random sequences of
//! inserts (alone or a few in a transaction, committed or rolled back), consumes of `TOP k`
//! as a random subscriber by two sessions whose transactions commit or roll back, DELETEs,
//! subscribers created and dropped, and reopens of the database (on disk), run against tdlite and a plain
//! reference model. The queue counts attempts (`MAX ATTEMPTS 3`, a dead-letter table): each
//! subscriber's copy counts its own rolled-back consumes. After every step the rows each take
//! returned (in order, with their counts), and, from a third session, the queue's rows, each
//! subscriber's depth and the dead letters must match the model.
//!
//! The seed is printed on failure; `TDLITE_SUBSCRIBERS_MODEL_SEED` replays one,
//! `TDLITE_SUBSCRIBERS_MODEL_CASES` runs more sequences (a soak).

use crate::common::{model_cases, Rng};
use std::collections::{BTreeMap, BTreeSet};
use tdlite::{Database, Session};

/// Queue order: the QITS's second, then the insertion sequence.
type Key = (u64, u64);

#[derive(Default)]
struct Model {
    /// Rows in the queue: id and the subscribers that have still to consume it, with the
    /// attempts each has made at it.
    rows: BTreeMap<Key, (u64, BTreeMap<String, u64>)>,
    /// The dead-letter table: (id, attempts).
    dead: Vec<(u64, u64)>,
    subscribers: BTreeSet<String>,
    /// Each consumer session's open transaction, if any: the (subscriber, row) it took.
    open: [Option<Vec<(String, Key)>>; 2],
    seq: u64,
    next_id: u64,
}

impl Model {
    fn held(&self, sub: &str, k: &Key) -> bool {
        self.open
            .iter()
            .flatten()
            .any(|t| t.iter().any(|(s, x)| s == sub && x == k))
    }

    /// The rows subscriber `sub` may take now, in order.
    fn available(&self, sub: &str) -> Vec<Key> {
        self.rows
            .iter()
            .filter(|(k, (_, pending))| pending.contains_key(sub) && !self.held(sub, k))
            .map(|(k, _)| *k)
            .collect()
    }

    /// `sub` consumed row `k` for good.
    fn consumed(&mut self, sub: &str, k: &Key) {
        if let Some((_, pending)) = self.rows.get_mut(k) {
            pending.remove(sub);
            if pending.is_empty() {
                self.rows.remove(k);
            }
        }
    }

    /// A consume of `k` by `sub` rolled back: one more attempt, dead at [`MAX`].
    fn failed(&mut self, sub: &str, k: &Key) {
        let Some((id, pending)) = self.rows.get_mut(k) else {
            return;
        };
        let Some(tries) = pending.get_mut(sub) else {
            return;
        };
        *tries += 1;
        if *tries >= MAX {
            let id = *id;
            self.dead.push((id, MAX));
            self.consumed(sub, k);
        }
    }

    fn any_open(&self) -> bool {
        self.open.iter().any(Option::is_some)
    }
}

const SUBSCRIBERS: [&str; 4] = ["s0", "s1", "s2", "s3"];

/// A subscriber's copy goes to the dead-letter table at its third failed consume.
const MAX: u64 = 3;

/// The rows of `sql`'s last result, cells joined by `|`.
fn lines(s: &mut Session, sql: &str) -> Vec<String> {
    let r = s.execute(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    r.last()
        .unwrap()
        .rows
        .as_ref()
        .unwrap()
        .to_strings()
        .iter()
        .map(|r| r.join("|"))
        .collect()
}

fn check(db: &Database, m: &Model, step: &str) {
    let mut s = db.session();
    let mut want: Vec<u64> = m.rows.values().map(|(id, _)| *id).collect();
    want.sort_unstable();
    let want: Vec<String> = want.iter().map(u64::to_string).collect();
    let got = lines(&mut s, "SELECT id FROM q ORDER BY id");
    assert_eq!(got, want, "queue after {step}");
    let got = lines(
        &mut s,
        "SELECT Subscriber, Depth FROM DBC.QueueStatsV WHERE TableName = 'q' AND Subscriber IS \
         NOT NULL ORDER BY 1",
    );
    let want: Vec<String> = m
        .subscribers
        .iter()
        .map(|sub| format!("{sub}|{}", m.available(sub).len()))
        .collect();
    assert_eq!(got, want, "subscribers' depths after {step}");
    let got = lines(&mut s, "SELECT id, tries FROM q_dead ORDER BY 1, 2");
    let mut want: Vec<(u64, u64)> = m.dead.clone();
    want.sort_unstable();
    let want: Vec<String> = want.iter().map(|(id, t)| format!("{id}|{t}")).collect();
    assert_eq!(got, want, "dead letters after {step}");
}

fn run(seed: u64) {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let dir = tempfile::tempdir().unwrap();
    let mut db = Database::open(dir.path()).unwrap();
    let mut setup = db.session();
    setup
        .execute(
            "CREATE MULTISET TABLE q_dead (qits TIMESTAMP(6), id INTEGER, tries INTEGER, why \
             VARCHAR(20))",
        )
        .unwrap();
    setup
        .execute(&format!(
            "CREATE TABLE q, QUEUE, SUBSCRIBERS (s0, s1), ATTEMPTS (tries), MAX ATTEMPTS {MAX}, \
             DEAD LETTER TO q_dead (qits TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6), \
             id INTEGER NOT NULL, tries INTEGER NOT NULL DEFAULT 0)"
        ))
        .unwrap();
    drop(setup);
    let mut m = Model {
        subscribers: ["s0", "s1"].iter().map(|s| s.to_string()).collect(),
        ..Model::default()
    };
    let mut consumers = [db.session(), db.session()];
    for step in 0..60 {
        let what = rng.below(100);
        let label;
        if what < 30 {
            // a few rows in one transaction, committed or not
            let n = 1 + rng.below(3);
            let commit = rng.below(4) != 0;
            let mut sql = String::from("BT;");
            let mut new = Vec::new();
            for _ in 0..n {
                let second = rng.below(5);
                m.next_id += 1;
                sql.push_str(&format!(
                    "INS q (TIMESTAMP '2024-01-01 10:00:0{second}', {}, 0);",
                    m.next_id
                ));
                new.push((second, m.next_id));
            }
            let mut p = db.session();
            let inserted = p.execute(&sql);
            if m.subscribers.is_empty() {
                assert_eq!(inserted.unwrap_err().code().number, 9924);
                label = "an insert with no subscriber".to_string();
            } else {
                inserted.unwrap();
                if commit {
                    p.execute("ET").unwrap();
                    for (second, id) in new {
                        m.seq += 1;
                        let pending = m.subscribers.iter().map(|s| (s.clone(), 0)).collect();
                        m.rows.insert((second, m.seq), (id, pending));
                    }
                } else {
                    assert_eq!(p.execute("ROLLBACK").unwrap_err().code().number, 3514);
                    m.seq += n;
                }
                label = format!("an insert of {n} (commit {commit})");
            }
        } else if what < 65 && !m.subscribers.is_empty() {
            let c = rng.below(2) as usize;
            let subs: Vec<String> = m.subscribers.iter().cloned().collect();
            let sub = subs[rng.below(subs.len() as u64) as usize].clone();
            let top = 1 + rng.below(3) as usize;
            let got = lines(
                &mut consumers[c],
                &format!(
                    "SELECT AND CONSUME TOP {top} id, tries FROM q FOR SUBSCRIBER {sub} NOWAIT"
                ),
            );
            let taken: Vec<Key> = m.available(&sub).into_iter().take(top).collect();
            let want: Vec<String> = taken
                .iter()
                .map(|k| format!("{}|{}", m.rows[k].0, m.rows[k].1[&sub]))
                .collect();
            assert_eq!(got, want, "seed {seed} step {step}: {sub} by consumer {c}");
            match &mut m.open[c] {
                Some(t) => t.extend(taken.into_iter().map(|k| (sub.clone(), k))),
                None => {
                    for k in taken {
                        m.consumed(&sub, &k);
                    }
                }
            }
            label = format!("consumer {c} took {want:?} for {sub}");
        } else if what < 80 {
            let c = rng.below(2) as usize;
            match m.open[c].take() {
                None => {
                    consumers[c].execute("BT").unwrap();
                    m.open[c] = Some(Vec::new());
                    label = format!("consumer {c} began");
                }
                Some(t) if rng.below(2) == 0 => {
                    consumers[c].execute("ET").unwrap();
                    for (sub, k) in t {
                        m.consumed(&sub, &k);
                    }
                    label = format!("consumer {c} committed");
                }
                Some(t) => {
                    let e = consumers[c].execute("ROLLBACK").unwrap_err();
                    assert_eq!(e.code().number, 3514);
                    for (sub, k) in t {
                        m.failed(&sub, &k);
                    }
                    label = format!("consumer {c} rolled back");
                }
            }
        } else if what < 84 && !m.any_open() {
            // a DELETE of one row (by id) or of all: the rows and every copy go
            let ids: Vec<u64> = m.rows.values().map(|(id, _)| *id).collect();
            let mut s = db.session();
            if ids.is_empty() || rng.below(4) == 0 {
                s.execute("DELETE FROM q").unwrap();
                m.rows.clear();
                label = "deleted all".to_string();
            } else {
                let id = ids[rng.below(ids.len() as u64) as usize];
                s.execute(&format!("DELETE FROM q WHERE id = {id}"))
                    .unwrap();
                m.rows.retain(|_, (x, _)| *x != id);
                label = format!("deleted {id}");
            }
        } else if what < 90 && !m.any_open() {
            let sub = SUBSCRIBERS[rng.below(4) as usize];
            let mut s = db.session();
            if m.subscribers.contains(sub) {
                s.execute(&format!("DROP SUBSCRIBER {sub} ON q")).unwrap();
                m.subscribers.remove(sub);
                let keys: Vec<Key> = m.rows.keys().copied().collect();
                for k in keys {
                    m.consumed(sub, &k);
                }
                label = format!("dropped {sub}");
            } else {
                s.execute(&format!("CREATE SUBSCRIBER {sub} ON q")).unwrap();
                m.subscribers.insert(sub.to_string());
                label = format!("created {sub}");
            }
        } else if !m.any_open() {
            drop(consumers);
            drop(db);
            db = Database::open(dir.path()).unwrap();
            consumers = [db.session(), db.session()];
            label = "reopened".to_string();
        } else {
            continue;
        }
        check(&db, &m, &format!("seed {seed} step {step}: {label}"));
    }
}

#[test]
fn subscribers_match_the_model() {
    model_cases("SUBSCRIBERS_MODEL", 40, run);
}
