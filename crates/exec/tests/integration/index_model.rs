//! Differential test of index access: two tables with the same rows, one with a unique
//! primary index and secondary indexes (`ti`), one with no index at all (`tn`, always a full
//! scan). Random inserts, updates and deletes go to both, in transactions that commit or roll
//! back, while a second session keeps changes of its own open; random queries with sargable
//! and unsargable conditions, and MIN/MAX, must give the same answer on both tables.
//!
//! The seed is printed on failure; `TDLITE_INDEX_SEED` replays one, `TDLITE_INDEX_CASES` runs
//! more cases (a soak).

use tdlite::{Database, Session};

use crate::common::{sorted_rows as rows, Rng};

/// Picks one of `items`.
trait Pick {
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str;
}

impl Pick for Rng {
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }
}

const COLUMNS: &str = "(k INTEGER NOT NULL, a INTEGER, b SMALLINT, s VARCHAR(8), \
    cs VARCHAR(8) CASESPECIFIC, d DECIMAL(4,1), f FLOAT, dt DATE)";

const STRINGS: &[&str] = &["NULL", "'ab'", "'AB'", "'ab  '", "'b'", "'B '", "'c'", "''"];
const DECIMALS: &[&str] = &["NULL", "-1.5", "0", "0.5", "2", "2.5", "10.0"];
/// Floats around zero (both zeros), below and above one, and large.
const FLOATS: &[&str] = &[
    "NULL", "-2.5E0", "-0E0", "0E0", "0.5E0", "2E0", "1E10", "-1E10",
];
/// Dates before and after 1970 (negative and positive day numbers).
const DATES: &[&str] = &[
    "NULL",
    "DATE '1960-05-01'",
    "DATE '1969-12-31'",
    "DATE '1970-01-01'",
    "DATE '2000-02-29'",
    "DATE '2024-12-31'",
];

fn small(rng: &mut Rng) -> String {
    match rng.below(8) {
        0 => "NULL".into(),
        n => (n as i64 - 3).to_string(),
    }
}

fn row(rng: &mut Rng, k: u64) -> String {
    format!(
        "({k}, {}, {}, {}, {}, {}, {}, {})",
        small(rng),
        small(rng),
        rng.pick(STRINGS),
        rng.pick(STRINGS),
        rng.pick(DECIMALS),
        rng.pick(FLOATS),
        rng.pick(DATES)
    )
}

/// A random value for column `c` (sometimes of another type: 2.0, 2.5, a string).
fn value(rng: &mut Rng, c: &str) -> String {
    match c {
        "s" | "cs" => rng.pick(&STRINGS[1..]).to_string(),
        "d" => rng.pick(&DECIMALS[1..]).to_string(),
        "f" => match rng.below(4) {
            0 => (rng.below(5) as i64 - 2).to_string(),
            _ => rng.pick(&FLOATS[1..]).to_string(),
        },
        "dt" => rng.pick(&DATES[1..]).to_string(),
        _ => match rng.below(10) {
            0 => "2.0".into(),
            1 => "2.5".into(),
            _ => (rng.below(9) as i64 - 3).to_string(),
        },
    }
}

fn condition(rng: &mut Rng) -> String {
    let c = rng.pick(&["k", "a", "b", "s", "cs", "d", "f", "dt"]);
    match rng.below(9) {
        0 => format!("{c} IS NULL"),
        1 => format!("{c} IS NOT NULL"),
        2 => format!(
            "{c} IN ({}, {}, {})",
            value(rng, c),
            value(rng, c),
            value(rng, c)
        ),
        3 => format!("{c} BETWEEN {} AND {}", value(rng, c), value(rng, c)),
        4 => format!("{} < {c}", value(rng, c)),
        n => {
            let op = ["=", "<", "<=", ">", ">=", "<>"][n as usize % 6];
            format!("{c} {op} {}", value(rng, c))
        }
    }
}

fn query(rng: &mut Rng, table: &str, conds: &[String]) -> (String, String) {
    let filter = if conds.is_empty() {
        String::new()
    } else {
        format!(" WHERE {}", conds.join(" AND "))
    };
    let list = match rng.below(4) {
        0 => {
            let c = rng.pick(&["k", "a", "b", "d", "f", "dt"]);
            let f = rng.pick(&["MIN", "MAX"]);
            format!(
                "{f}({c}), {}({})",
                rng.pick(&["MIN", "MAX"]),
                rng.pick(&["k", "a"])
            )
        }
        _ => "k, a, b, s, cs, d, f, dt".into(),
    };
    let sql = |t: &str| format!("SEL {list} FROM {t}{filter}");
    (sql(table), sql("tn"))
}

fn both(s: &mut Session, sql: &str) {
    for t in ["ti", "tn"] {
        let text = sql.replace("{t}", t);
        s.execute(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
    }
}

fn run_case(seed: u64) {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let db = Database::new();
    let mut s = db.session();
    let mut other = db.session();
    s.execute(&format!(
        "CREATE MULTISET TABLE ti {COLUMNS} UNIQUE PRIMARY INDEX (k)"
    ))
    .unwrap();
    s.execute(&format!(
        "CREATE MULTISET TABLE tn {COLUMNS} NO PRIMARY INDEX"
    ))
    .unwrap();
    for ix in [
        "(a, b)",
        "(s)",
        "(cs, k)",
        "(d)",
        "(b, a, k)",
        "(f, k)",
        "(dt)",
    ] {
        s.execute(&format!("CREATE INDEX {ix} ON ti")).unwrap();
    }
    let mut next_k = 1;
    for _ in 0..40 {
        let r = row(&mut rng, next_k);
        next_k += 1;
        both(&mut s, &format!("INS {{t}} {r}"));
    }
    // the other session's open changes: invisible to `s`, and in the way of nothing it reads
    other.execute("BT").unwrap();
    for t in ["ti", "tn"] {
        other
            .execute(&format!(
                "INS {t} (1000, 1, 1, 'ab', 'ab', 1, 0E0, DATE '1970-01-01')"
            ))
            .unwrap();
    }
    let mut in_txn = false;
    for step in 0..300 {
        match rng.below(10) {
            0 if !in_txn => {
                s.execute("BT").unwrap();
                in_txn = true;
            }
            1 if in_txn => {
                let end = if rng.below(2) == 0 { "ET" } else { "ROLLBACK" };
                // ROLLBACK reports 3514 by design in Teradata mode
                let _ = s.execute(end);
                in_txn = false;
            }
            2 => {
                let r = row(&mut rng, next_k);
                next_k += 1;
                both(&mut s, &format!("INS {{t}} {r}"));
            }
            3 => {
                let c = condition(&mut rng);
                let set = format!("a = {}, s = {}", small(&mut rng), rng.pick(STRINGS));
                both(&mut s, &format!("UPD {{t}} SET {set} WHERE {c}"));
            }
            4 => {
                let c = condition(&mut rng);
                both(&mut s, &format!("DEL {{t}} WHERE {c} AND k MOD 3 = 0"));
            }
            _ => {
                let n = rng.below(4) as usize;
                let conds: Vec<String> = (0..n).map(|_| condition(&mut rng)).collect();
                let (qi, qn) = query(&mut rng, "ti", &conds);
                let (a, b) = (rows(&mut s, &qi), rows(&mut s, &qn));
                assert_eq!(
                    a, b,
                    "seed {seed}, step {step}: index and full scan disagree\n  {qi}\n  {qn}"
                );
            }
        }
    }
}

#[test]
fn index_reads_agree_with_full_scans() {
    crate::common::model_cases("INDEX", 40, run_case);
}

#[test]
fn a_min_max_walk_on_the_keys_goes_on_past_its_step_and_past_dead_entries() {
    // The walk tests keys under the table's mutex at most 4,096 entries at a time: here the
    // first passing entry comes after 10,000 that fail, and after rows deleted (one by a
    // transaction still open in another session, which this one still sees).
    let db = Database::new();
    let mut s = db.session();
    s.execute("CREATE TABLE t (g INTEGER, k INTEGER, r INTEGER) PRIMARY INDEX (k)")
        .unwrap();
    s.execute("CREATE INDEX (g, k, r) ON t").unwrap();
    let rows: Vec<String> = (0..10_010)
        .map(|k| format!("INS t (1, {k}, {});", if k < 10_000 { 50 } else { 5 }))
        .collect();
    s.execute(&format!("BT; {} ET;", rows.concat())).unwrap();
    s.execute("DEL FROM t WHERE k = 10000").unwrap();
    let mut other = db.session();
    other.execute("BT").unwrap();
    other.execute("DEL FROM t WHERE k = 10001").unwrap();
    let min = "SEL MIN(k) FROM t WHERE g = 1 AND r < 10";
    let plan = rows_of(&mut s, &format!("EXPLAIN {min}"))
        .concat()
        .join(" ");
    assert!(plan.contains("Index walk for MIN(k)"), "{plan}");
    assert_eq!(rows_of(&mut s, min), vec![vec!["10001"]]);
    other.execute("ET").unwrap();
    assert_eq!(rows_of(&mut s, min), vec![vec!["10002"]]);
    let max = "SEL MAX(k) FROM t WHERE g = 1 AND r > 10";
    assert_eq!(rows_of(&mut s, max), vec![vec!["9999"]]);
    assert_eq!(
        rows_of(&mut s, "SEL MIN(k) FROM t WHERE g = 1 AND r = 7"),
        vec![vec!["?"]]
    );
}

fn rows_of(s: &mut Session, sql: &str) -> Vec<Vec<String>> {
    rows(s, sql).unwrap()
}
