//! Helpers shared by the integration tests.

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
