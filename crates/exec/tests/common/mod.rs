//! Helpers shared by the durability tests.
#![allow(dead_code)]

use tdlite::Database;

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
