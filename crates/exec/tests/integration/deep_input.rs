//! Long flat chains and deep nesting never overflow the stack (issue 15, "nothing in the new
//! layers recurses without a bound"; issue 16's first crash). A chain up to the parser's limit
//! (`tdlite_parser::limits::MAX_OPERATOR_DEPTH`) runs, or fails with a numbered error of its
//! own, on a thread with a small stack; one operator more is 3710; AND/OR chains have their own,
//! larger limit (`MAX_LOGICAL_DEPTH`); chains far past the limits (200,000 terms) are 3710 too,
//! and the session carries on.

use tdlite::{Database, Session};
use tdlite_parser::limits::{MAX_LOGICAL_DEPTH, MAX_OPERATOR_DEPTH};

/// Runs `f` on a thread with a 512 KiB stack (smaller than any thread a user would give us).
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(512 * 1024)
        .spawn(f)
        .expect("spawn")
        .join()
        .expect("the thread did not panic")
}

fn chain(term: &str, op: &str, n: usize) -> String {
    vec![term; n].join(op)
}

/// The first result's first value as text, or the error number.
fn first(s: &mut Session, sql: &str) -> Result<String, u32> {
    match s.execute(sql) {
        Ok(r) => {
            let rows = r.last().and_then(|r| r.rows.as_ref()).expect("rows");
            let b = rows
                .batches
                .iter()
                .find(|b| b.num_rows() > 0)
                .expect("a row");
            let a = b.column(0);
            Ok(arrow::util::display::array_value_to_string(a, 0).expect("display"))
        }
        Err(e) => Err(e.code().number),
    }
}

#[test]
fn chains_at_the_limit_run_and_longer_ones_are_3710() {
    let results = on_small_stack(|| {
        let db = Database::new();
        let mut s = db.session();
        s.execute("CREATE TABLE t (a INTEGER, b VARCHAR(10))")
            .unwrap();
        s.execute("INS t (1, 'x')").unwrap();
        let n = MAX_OPERATOR_DEPTH + 1; // terms: n - 1 = MAX_OPERATOR_DEPTH operators
        let k = MAX_LOGICAL_DEPTH + 1; // `x = 1 AND …`: k - 1 = MAX_LOGICAL_DEPTH ANDs
        let cases = |n: usize, k: usize| {
            [
                format!("SELECT {}", chain("1", "+", n)),
                format!("SELECT {} FROM t", chain("a", " * ", n)),
                format!("SELECT {} FROM t", chain("b", " || ", n)),
                format!(
                    "SELECT COUNT(*) FROM t WHERE {}",
                    chain("a = 1", " AND ", k)
                ),
                format!("SELECT COUNT(*) FROM t WHERE {}", chain("a = 2", " OR ", k)),
                chain("SELECT a FROM t", " UNION ALL ", n),
                format!(
                    "SELECT CASE WHEN {} THEN 1 ELSE 0 END",
                    chain("1 = 1", " AND ", k)
                ),
            ]
        };
        let mut out = Vec::new();
        for (at_limit, over) in cases(n, k).into_iter().zip(cases(n + 1, k + 1)) {
            let label: String = at_limit.chars().take(40).collect();
            out.push((label, first(&mut s, &at_limit), first(&mut s, &over)));
        }
        assert_eq!(
            first(&mut s, "SELECT 1 + 1"),
            Ok("2".into()),
            "the session carries on"
        );
        out
    });
    let n = MAX_OPERATOR_DEPTH + 1;
    let expect = [
        n.to_string(),
        "1".to_string(),
        "x".repeat(n),
        "1".to_string(),
        "0".to_string(),
        "1".to_string(),
        "1".to_string(),
    ];
    for ((sql, at_limit, over), want) in results.into_iter().zip(expect) {
        assert_eq!(at_limit, Ok(want), "{sql}…");
        assert_eq!(over, Err(3710), "{sql}… with one operator more");
    }
}

#[test]
fn chains_far_past_the_limit_are_3710_even_with_a_syntax_error_after_them() {
    on_small_stack(|| {
        let db = Database::new();
        let mut s = db.session();
        for (term, op) in [("1", "+"), ("'a'", "||"), ("1=1", " AND "), ("1=1", " OR ")] {
            let long = chain(term, op, 200_000);
            assert_eq!(first(&mut s, &format!("SELECT {long}")), Err(3710), "{op}");
            assert_eq!(
                first(&mut s, &format!("SELECT {long} FROM")),
                Err(3710),
                "{op}"
            );
        }
        let unions = chain("SELECT 1", " UNION ALL ", 50_000);
        assert_eq!(first(&mut s, &unions), Err(3710));
        assert_eq!(first(&mut s, "SELECT 2"), Ok("2".into()));
    });
}

#[test]
fn deep_prepared_requests_and_views_run_on_a_small_stack() {
    on_small_stack(|| {
        let db = Database::new();
        let mut s = db.session();
        let n = MAX_OPERATOR_DEPTH; // terms, one operator fewer than the limit
        let p = s
            .prepare(&format!("SELECT {} + ?", chain("1", "+", n - 1)))
            .expect("prepare");
        let r = s
            .execute_prepared(&p, &[tdlite::Value::Int(1)])
            .expect("run");
        let b = &r[0].rows.as_ref().expect("rows").batches[0];
        let v = arrow::util::display::array_value_to_string(b.column(0), 0).unwrap();
        assert_eq!(v, n.to_string());
        drop(p);
        // a view's body is as deep as the limit allows; the query on it is short
        let body = chain("1", "+", n);
        s.execute(&format!("CREATE VIEW v (x) AS SELECT {body}"))
            .expect("create view");
        assert_eq!(first(&mut s, "SELECT x FROM v"), Ok(n.to_string()));
        assert_eq!(
            first(&mut s, "SELECT x + 1 FROM v"),
            Ok((n + 1).to_string())
        );
        // a change through it reads its query too (and refuses it: no base table)
        for change in ["DELETE FROM v", "UPDATE v SET x = 1"] {
            let e = s.execute(change).expect_err(change);
            assert_eq!(e.code().number, 3823, "{change}: {e}");
        }
    });
}
