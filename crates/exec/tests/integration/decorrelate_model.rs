//! Differential test of decorrelation: each random correlated subquery (scalar, EXISTS, IN, ANY/ALL)
//! runs twice, once as one join over all outer rows (the default) and once per outer row
//! (`Session::set_decorrelation(false)`), over random rows with NULLs, mixed numeric types and
//! character values that differ only in case or trailing blanks. Both must give the same rows,
//! or the same error. The test also checks that the join path really ran.
//!
//! The seed is printed on failure; `TDLITE_DECORRELATE_SEED` replays one,
//! `TDLITE_DECORRELATE_CASES` runs more cases.

use crate::common::{create_tables, fill, pick, sorted_rows as rows, Rng};
use tdlite::Database;

/// A key pair whose types compare: (column of the inner table, column of the outer one).
fn key(rng: &mut Rng) -> (&'static str, &'static str) {
    let pairs = [
        ("a", "a"),
        ("a", "d"),
        ("d", "d"),
        ("d", "a"),
        ("s", "s"),
        ("s", "cs"),
        ("cs", "cs"),
        ("cs", "s"),
        ("k", "a"),
        ("k", "k"),
    ];
    pairs[rng.below(pairs.len() as u64) as usize]
}

/// One random correlated query over outer table t1 and inner table t2.
fn query(rng: &mut Rng) -> String {
    let (y, x) = key(rng);
    let local = pick(
        rng,
        &[
            "",
            " AND t2.k > 3",
            " AND t2.s = 'AB'",
            " AND t2.a IS NOT NULL",
        ],
    );
    let second = match rng.below(4) {
        0 => {
            let (y2, x2) = key(rng);
            format!(" AND t2.{y2} = t1.{x2}")
        }
        _ => String::new(),
    };
    let corr = format!("t2.{y} = t1.{x}{local}{second}");
    match rng.below(11) {
        9 | 10 => {
            // ANY / ALL with another comparison: TRUE, FALSE and UNKNOWN told apart
            let (v, w) = key(rng);
            let op = pick(rng, &["<", "<=", ">", ">=", "<>", "="]);
            let q = pick(rng, &["ANY", "ALL", "SOME"]);
            let sub = format!("(SEL t2.{v} FROM t2 WHERE {corr})");
            format!(
                "SEL t1.k, CASE WHEN t1.{w} {op} {q} {sub} THEN 'T' \
                 WHEN NOT (t1.{w} {op} {q} {sub}) THEN 'F' ELSE 'U' END FROM t1"
            )
        }
        7 | 8 => {
            // IN: TRUE, FALSE and UNKNOWN told apart
            let (v, w) = key(rng);
            let residual = pick(rng, &["", " AND t2.k < t1.k"]);
            let distinct = pick(rng, &["", "DISTINCT "]);
            let sub = format!("(SEL {distinct}t2.{v} FROM t2 WHERE {corr}{residual})");
            format!(
                "SEL t1.k, CASE WHEN t1.{w} IN {sub} THEN 'T' \
                 WHEN t1.{w} NOT IN {sub} THEN 'F' ELSE 'U' END FROM t1"
            )
        }
        0 | 1 => {
            let agg = pick(
                rng,
                &[
                    "MAX(t2.k)",
                    "MIN(t2.d)",
                    "COUNT(*)",
                    "COUNT(t2.a)",
                    "SUM(t2.a)",
                    "COUNT(*) * 2 + 1",
                    "MAX(t2.s)",
                    "AVG(t2.d)",
                    "MAX(t2.a) + t2.k",
                ],
            );
            format!("SEL t1.k, (SEL {agg} FROM t2 WHERE {corr}) FROM t1")
        }
        2 => format!("SEL t1.k FROM t1 WHERE t1.a < (SEL MAX(t2.a) FROM t2 WHERE {corr})"),
        3 => {
            // no aggregate: one row per key (t2.k is unique), or 3669
            let item = pick(rng, &["t2.a", "t2.s", "t2.d + 1"]);
            let corr = match rng.below(2) {
                0 => format!("t2.k = t1.k{local}"),
                _ => corr,
            };
            format!("SEL t1.k, (SEL {item} FROM t2 WHERE {corr}) FROM t1")
        }
        4 | 5 => {
            let not = pick(rng, &["", "NOT "]);
            let residual = pick(
                rng,
                &[
                    "",
                    " AND t2.k < t1.k",
                    " AND (t2.s = t1.cs OR t2.a IS NULL)",
                ],
            );
            let list = pick(rng, &["1", "DISTINCT t2.s", "COUNT(*)", "t2.k / t2.a"]);
            format!(
                "SEL t1.k FROM t1 WHERE {not}EXISTS (SEL {list} FROM t2 WHERE {corr}{residual})"
            )
        }
        _ => {
            let (y, x) = key(rng);
            format!("SEL t1.k FROM t1 WHERE t1.k = (SEL MAX(z.k) FROM t1 z WHERE z.{y} = t1.{x})")
        }
    }
}

fn run_case(seed: u64) -> u64 {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let db = Database::new();
    let mut s = db.session();
    create_tables(&mut s, "");
    let outer = 16 + rng.below(40);
    fill(&mut s, &mut rng, "t1", outer);
    let inner = rng.below(30);
    fill(&mut s, &mut rng, "t2", inner);
    for q in 0..40 {
        let sql = query(&mut rng);
        s.set_decorrelation(true);
        let joined = rows(&mut s, &sql);
        s.set_decorrelation(false);
        let per_row = rows(&mut s, &sql);
        if joined != per_row {
            eprintln!("{:?}", rows(&mut s, "SEL * FROM t1"));
            eprintln!("{:?}", rows(&mut s, "SEL * FROM t2"));
        }
        assert_eq!(joined, per_row, "seed {seed}, query {q}: {sql}");
    }
    s.decorrelated_subqueries()
}

#[test]
fn decorrelated_subqueries_agree_with_per_row_runs() {
    let counts = crate::common::model_cases("DECORRELATE", 30, run_case);
    let (cases, decorrelated) = (counts.len() as u64, counts.iter().sum::<u64>());
    // most queries have the shape: the join path must really have run
    assert!(
        decorrelated > cases * 20,
        "only {decorrelated} subqueries of {} ran as a join",
        cases * 40
    );
}
