//! Helpers shared by the integration tests.

use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use tdlite::{Database, Session};

/// Each row of the last result of `sql` (run in a new session) as one string, cells joined
/// by `|`.
pub fn rows(db: &Database, sql: &str) -> Vec<String> {
    let r = db.session().execute(sql).unwrap();
    let rows = r.last().unwrap().rows.as_ref().unwrap();
    rows.to_strings().iter().map(|r| r.join("|")).collect()
}

/// The integers in the first column of `sql`'s rows.
pub fn ints(db: &Database, sql: &str) -> Vec<i64> {
    rows(db, sql)
        .iter()
        .map(|r| r.split('|').next().unwrap().parse().unwrap())
        .collect()
}

/// The seed in environment variable `var`, or one from the clock (odd, never 0).
pub fn seed_from_env(var: &str) -> u64 {
    std::env::var(var)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64)
                | 1
        })
}

/// xorshift64*, so a seed replays a random sequence exactly.
pub struct Rng(pub u64);

impl Rng {
    /// A number in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n
    }
}

/// The rows of `sql`'s first result, sorted (a multiset to compare), or its error number.
pub fn sorted_rows(s: &mut Session, sql: &str) -> Result<Vec<Vec<String>>, u32> {
    match s.execute(sql) {
        Ok(r) => {
            let mut v = r[0]
                .rows
                .as_ref()
                .map(|r| r.to_strings())
                .unwrap_or_default();
            v.sort();
            Ok(v)
        }
        Err(e) => Err(e.code().number),
    }
}

/// Character values that differ only in case or trailing blanks, and NULL.
const STRINGS: &[&str] = &["NULL", "'ab'", "'AB'", "'ab  '", "'b'", "'B '"];

/// One of `items`, at random.
pub fn pick<'a>(rng: &mut Rng, items: &[&'a str]) -> &'a str {
    items[rng.below(items.len() as u64) as usize]
}

/// A small integer or NULL, as SQL text.
fn int(rng: &mut Rng) -> String {
    match rng.below(6) {
        0 => "NULL".into(),
        n => (n as i64 - 2).to_string(),
    }
}

/// Creates the model tests' tables t1 and t2 `(k, a, d, s, cs)` (see [`fill`]), each
/// followed by `options` (a primary index, say).
pub fn create_tables(s: &mut Session, options: &str) {
    for t in ["t1", "t2"] {
        s.execute(&format!(
            "CREATE MULTISET TABLE {t} (k INTEGER, a SMALLINT, d DECIMAL(4,1), s VARCHAR(6), \
             cs VARCHAR(6) CASESPECIFIC){options}"
        ))
        .unwrap();
    }
}

/// `rows` random rows `(k, a, d, s, cs)` into `table` (k numbers them from 0): a SMALLINT,
/// a DECIMAL(4,1) and two strings, each sometimes NULL.
pub fn fill(s: &mut Session, rng: &mut Rng, table: &str, rows: u64) {
    for k in 0..rows {
        let d = match rng.below(5) {
            0 => "NULL".to_string(),
            n => format!("{}.{}", n as i64 - 2, rng.below(2) * 5),
        };
        s.execute(&format!(
            "INS {table} ({k}, {}, {d}, {}, {})",
            int(rng),
            pick(rng, STRINGS),
            pick(rng, STRINGS)
        ))
        .unwrap();
    }
}

/// Runs a model test's cases: the one seed in `TDLITE_<NAME>_SEED` if it is set, else seeds
/// 0.. up to `TDLITE_<NAME>_CASES` (default `cases`), each caught so that a failure names the
/// seed that replays it. Returns each case's result.
pub fn model_cases<T>(name: &str, cases: u64, run: impl Fn(u64) -> T) -> Vec<T> {
    let var = |what: &str| std::env::var(format!("TDLITE_{name}_{what}")).ok();
    if let Some(seed) = var("SEED") {
        return vec![run(seed.parse().expect("the seed is a number"))];
    }
    let cases = var("CASES").and_then(|v| v.parse().ok()).unwrap_or(cases);
    (0..cases)
        .map(|seed| {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(seed))).unwrap_or_else(
                |_| panic!("model test failed: replay with TDLITE_{name}_SEED={seed}"),
            )
        })
        .collect()
}

/// `COUNT(*)` of queue `q`, seen by session `s`.
pub fn depth(s: &mut Session) -> i64 {
    let r = s.execute("SELECT COUNT(*) FROM q").unwrap();
    r[0].rows.as_ref().unwrap().to_strings()[0][0]
        .parse()
        .unwrap()
}

/// `producers` threads that each insert ids `p * 1,000,000 + 0..rows` into queue `q` in
/// transactions of 1 to `most` rows (the INSERT of one row is `insert(rng, id)`), one in five
/// rolled back; the ids of the committed ones go to `produced`.
pub fn spawn_producers(
    db: &Database,
    (seed, producers, rows, most): (u64, u64, u64, u64),
    insert: fn(&mut Rng, i64) -> String,
    produced: &Arc<Mutex<Vec<i64>>>,
) -> Vec<JoinHandle<()>> {
    (0..producers)
        .map(|p| {
            let (db, produced) = (db.clone(), produced.clone());
            std::thread::spawn(move || {
                let mut rng = Rng(seed ^ (p + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
                let mut s = db.session();
                let mut next = 0;
                while next < rows {
                    let mut sql = String::from("BT;");
                    let mut ids = Vec::new();
                    for _ in 0..(1 + rng.below(most)).min(rows - next) {
                        let id = (p * 1_000_000 + next) as i64;
                        next += 1;
                        sql.push_str(&insert(&mut rng, id));
                        ids.push(id);
                    }
                    s.execute(&sql).unwrap();
                    if rng.below(5) == 0 {
                        assert_eq!(s.execute("ROLLBACK").unwrap_err().code().number, 3514);
                    } else {
                        s.execute("ET").unwrap();
                        produced.lock().unwrap().extend(ids);
                    }
                }
            })
        })
        .collect()
}

/// Checks that `consumed` holds every id of `produced` once and nothing else; the count.
pub fn assert_exactly_once(produced: &[i64], consumed: &[i64]) -> usize {
    let produced: std::collections::HashSet<i64> = produced.iter().copied().collect();
    let unique: std::collections::HashSet<i64> = consumed.iter().copied().collect();
    assert_eq!(unique.len(), consumed.len(), "a row was consumed twice");
    assert_eq!(unique, produced, "consumed rows differ from committed rows");
    assert!(!produced.is_empty(), "the producers committed nothing");
    produced.len()
}

/// A thread that runs `sql` (a consume that waits) in a new session and returns its first
/// row, cells joined by `|`.
pub fn spawn_take(db: &Database, sql: &'static str) -> JoinHandle<String> {
    let db = db.clone();
    std::thread::spawn(move || {
        let r = db.session().execute(sql).unwrap();
        r[0].rows.as_ref().unwrap().to_strings()[0].join("|")
    })
}

/// Waits until `n` consumers wait on `table`.
pub fn until_waiting(db: &Database, table: &str, n: usize) {
    while db.waiting_consumers(table) != n {
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}
