//! Differential test of hash joins: each random join runs twice, once as written (its key
//! equalities are hashed) and once with each key equality written as `CASE WHEN x = y THEN 1
//! ELSE 0 END = 1`, which reads both tables in one operand and so is never a key (the join is
//! then a nested loop over every pair), over random rows with NULLs, mixed numeric types, and
//! character values that differ only in case or trailing blanks. The keys are columns or
//! expressions of one table (`t1.k + 1 = t2.a`, `TRIM(t1.s) = t2.cs`). Both must give the same
//! rows. Conditions on one table of an inner join are also run as written (an index may fetch
//! their rows) and in a form no index can use.
//!
//! The seed is printed on failure; `TDLITE_JOIN_SEED` replays one, `TDLITE_JOIN_CASES` runs
//! more cases.

use crate::common::{fill, pick, sorted_rows as rows, Rng};
use tdlite::Database;

/// A key pair whose types compare: (operand of the left table, operand of the right one),
/// `@` standing for the table's name. None of them can fail on the rows `fill` makes.
fn key(rng: &mut Rng) -> (&'static str, &'static str) {
    let pairs = [
        ("@.a", "@.a"),
        ("@.a", "@.d"),
        ("@.d", "@.d"),
        ("@.d", "@.a"),
        ("@.s", "@.s"),
        ("@.s", "@.cs"),
        ("@.cs", "@.cs"),
        ("@.k", "@.a"),
        ("@.k + 1", "@.a"),
        ("@.a", "@.k - 2"),
        ("@.d * 2", "@.a"),
        ("TRIM(@.s)", "@.cs"),
        ("UPPER(@.s)", "@.s"),
        ("@.s || 'x'", "@.cs || 'x'"),
        ("@.k MOD 3", "@.a"),
        ("COALESCE(@.a, 0)", "@.k"),
        ("CAST(@.a AS VARCHAR(6))", "@.s"),
        ("@.a + @.k", "@.a"),
    ];
    pairs[rng.below(pairs.len() as u64) as usize]
}

/// `l = r` of tables `t` and `u`, and the same as a condition that is never a key.
fn equality((l, r): (&str, &str), t: &str, u: &str) -> (String, String) {
    let eq = format!("{} = {}", l.replace('@', t), r.replace('@', u));
    let looped = format!("(CASE WHEN {eq} THEN 1 ELSE 0 END) = 1");
    (eq, looped)
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
        let (on, on_looped) = equality(key(&mut rng), "t1", "t2");
        let (extra, extra_looped) = match rng.below(4) {
            0 => {
                let (e, l) = equality(key(&mut rng), "t1", "t2");
                (format!(" AND {e}"), format!(" AND {l}"))
            }
            1 => (
                " AND t1.k < t2.k".to_string(),
                " AND t1.k < t2.k".to_string(),
            ),
            _ => (String::new(), String::new()),
        };
        let (third, third_looped) = match rng.below(3) {
            0 => {
                let (e, l) = equality(key(&mut rng), "t2", "t3");
                (
                    format!(" INNER JOIN t3 ON {e}"),
                    format!(" INNER JOIN t3 ON {l}"),
                )
            }
            _ => (String::new(), String::new()),
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
        let hashed = format!("SEL {list} FROM t1 {kind} JOIN t2 ON {on}{extra}{third}{own}");
        let looped = format!(
            "SEL {list} FROM t1 {kind} JOIN t2 ON {on_looped}{extra_looped}{third_looped}{own_scanned}"
        );
        let (a, b) = (rows(&mut s, &hashed), rows(&mut s, &looped));
        assert_eq!(a, b, "seed {seed}, query {q}:\n  {hashed}\n  {looped}");
        // comma joins with the keys in WHERE
        let own = own.replace(" WHERE ", " AND ");
        let own_scanned = own_scanned.replace(" WHERE ", " AND ");
        let comma = format!("SEL t1.k, t2.k FROM t1, t2 WHERE {on}{extra}{own}");
        let comma_loop =
            format!("SEL t1.k, t2.k FROM t1, t2 WHERE {on_looped}{extra_looped}{own_scanned}");
        let (a, b) = (rows(&mut s, &comma), rows(&mut s, &comma_loop));
        assert_eq!(a, b, "seed {seed}, query {q}:\n  {comma}\n  {comma_loop}");
    }
}

#[test]
fn hash_joins_agree_with_nested_loops() {
    crate::common::model_cases("JOIN", 30, run_case);
}
