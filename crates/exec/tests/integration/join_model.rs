//! Differential test of hash joins: each random join runs twice, once as written (its leading
//! column equalities are hashed) and once with an always-true condition on both tables in
//! front of its keys (which makes the join a nested loop over every pair), over random rows
//! with NULLs, mixed numeric types, and character values that differ only in case or trailing
//! blanks. Both must give the same rows. Conditions on one table of an inner join are also run as written (an index may fetch
//! their rows) and in a form no index can use.
//!
//! The seed is printed on failure; `TDLITE_JOIN_SEED` replays one, `TDLITE_JOIN_CASES` runs
//! more cases.

use crate::common::{fill, pick, sorted_rows as rows, Rng};
use tdlite::Database;

/// True for every pair of t1 and t2 rows, and not a key equality.
const TRUE12: &str = "(t1.k = t2.k OR 1 = 1)";

/// A key pair whose types compare: (column of the left table, column of the right one).
fn key(rng: &mut Rng) -> (&'static str, &'static str) {
    let pairs = [
        ("a", "a"),
        ("a", "d"),
        ("d", "d"),
        ("d", "a"),
        ("s", "s"),
        ("s", "cs"),
        ("cs", "cs"),
        ("k", "a"),
    ];
    pairs[rng.below(pairs.len() as u64) as usize]
}

fn run_case(seed: u64) {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let db = Database::new();
    let mut s = db.session();
    for t in ["t1", "t2", "t3"] {
        s.execute(&format!(
            "CREATE MULTISET TABLE {t} (k INTEGER, a SMALLINT, d DECIMAL(4,1), s VARCHAR(6), \
             cs VARCHAR(6) CASESPECIFIC)"
        ))
        .unwrap();
        for ix in ["(a)", "(s, k)", "(d)"] {
            s.execute(&format!("CREATE INDEX {ix} ON {t}")).unwrap();
        }
        let n = rng.below(12);
        fill(&mut s, &mut rng, t, n);
    }
    for q in 0..60 {
        let kind = pick(
            &mut rng,
            &["INNER", "LEFT OUTER", "RIGHT OUTER", "FULL OUTER"],
        );
        let (x, y) = key(&mut rng);
        let (x2, y2) = key(&mut rng);
        let extra = match rng.below(4) {
            0 => format!(" AND t1.{x2} = t2.{y2}"),
            1 => " AND t1.k < t2.k".to_string(),
            _ => String::new(),
        };
        let third = match rng.below(3) {
            0 => {
                let (p, r) = key(&mut rng);
                format!(" INNER JOIN t3 ON t2.{p} = t3.{r}")
            }
            _ => String::new(),
        };
        let list = "t1.k, t2.k";
        let list = if third.is_empty() {
            list.to_string()
        } else {
            format!("{list}, t3.k")
        };
        // conditions on one table: an index may read them (the first table's k is its
        // primary index); the `OR 1 = 0` copy is not sargable, so it is read in full
        let own = [
            "",
            " WHERE t1.k > 2",
            " WHERE t2.k IN (1, 3, 5)",
            " WHERE t1.k = 4 AND t2.a IS NULL",
            " WHERE t2.a BETWEEN 0 AND 2 AND t1.s = 'AB'",
        ][rng.below(5) as usize];
        let own_scanned = own
            .replace("t1.k > 2", "(t1.k > 2 OR 1 = 0)")
            .replace("t2.k IN (1, 3, 5)", "(t2.k IN (1, 3, 5) OR 1 = 0)")
            .replace("t1.k = 4", "(t1.k = 4 OR 1 = 0)")
            .replace("t2.a BETWEEN 0 AND 2", "(t2.a BETWEEN 0 AND 2 OR 1 = 0)")
            .replace("t1.s = 'AB'", "(t1.s = 'AB' OR 1 = 0)");
        let hashed =
            format!("SEL {list} FROM t1 {kind} JOIN t2 ON t1.{x} = t2.{y}{extra}{third}{own}");
        let looped = format!(
            "SEL {list} FROM t1 {kind} JOIN t2 ON {TRUE12} AND t1.{x} = t2.{y}{extra}{}{own_scanned}",
            third.replace(" ON ", " ON (t2.k = t3.k OR 1 = 1) AND ")
        );
        let (a, b) = (rows(&mut s, &hashed), rows(&mut s, &looped));
        assert_eq!(a, b, "seed {seed}, query {q}:\n  {hashed}\n  {looped}");
        // comma joins with the keys in WHERE
        let own = own.replace(" WHERE ", " AND ");
        let own_scanned = own_scanned.replace(" WHERE ", " AND ");
        let comma = format!("SEL t1.k, t2.k FROM t1, t2 WHERE t1.{x} = t2.{y}{extra}{own}");
        let comma_loop = format!(
            "SEL t1.k, t2.k FROM t1, t2 WHERE {TRUE12} AND t1.{x} = t2.{y}{extra}{own_scanned}"
        );
        let (a, b) = (rows(&mut s, &comma), rows(&mut s, &comma_loop));
        assert_eq!(a, b, "seed {seed}, query {q}:\n  {comma}\n  {comma_loop}");
    }
}

#[test]
fn hash_joins_agree_with_nested_loops() {
    crate::common::model_cases("JOIN", 30, run_case);
}
