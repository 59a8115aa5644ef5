//! Helpers shared by the durability tests.
#![allow(dead_code)]

use arrow::util::display::{ArrayFormatter, FormatOptions};
use tdlite::Database;

/// Each row of the last result of `sql` (run in a new session) as one string, cells joined
/// by `|`.
pub fn rows(db: &Database, sql: &str) -> Vec<String> {
    let r = db.session().execute(sql).unwrap();
    let rows = r.last().unwrap().rows.as_ref().unwrap();
    let mut out = Vec::new();
    for b in &rows.batches {
        let fmt: Vec<_> = b
            .columns()
            .iter()
            .map(|c| ArrayFormatter::try_new(c.as_ref(), &FormatOptions::default()).unwrap())
            .collect();
        for i in 0..b.num_rows() {
            let cells: Vec<String> = fmt.iter().map(|f| f.value(i).to_string()).collect();
            out.push(cells.join("|"));
        }
    }
    out
}

/// The integers in the first column of `sql`'s rows.
pub fn ints(db: &Database, sql: &str) -> Vec<i64> {
    rows(db, sql)
        .iter()
        .map(|r| r.split('|').next().unwrap().parse().unwrap())
        .collect()
}
