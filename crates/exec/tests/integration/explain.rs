//! EXPLAIN output, pinned by insta snapshots: which access path each read takes (index lookup,
//! range scan, MIN/MAX walk, full scan) and how subqueries nest.

use tdlite::{Database, Session};

fn fixture() -> Session {
    let db = Database::new();
    let mut s = db.session();
    for sql in [
        "CREATE TABLE t_myqueue (order_of_arrival INTEGER NOT NULL PRIMARY KEY, priority INTEGER NOT NULL, \
         retrycount INTEGER DEFAULT 0 NOT NULL, queue_tag VARCHAR(1000) DEFAULT '*' NOT NULL, \
         id VARCHAR(64), filler1 VARCHAR(1000), filler2 VARCHAR(1000))",
        "CREATE INDEX idx_t_myqueue_1 (queue_tag, id, priority, retrycount, order_of_arrival) ON t_myqueue",
        "CREATE TABLE emp (empno INTEGER NOT NULL, dept INTEGER, name VARCHAR(20)) UNIQUE PRIMARY INDEX (empno)",
        "CREATE INDEX (dept) ON emp",
        "CREATE TABLE dept (deptno INTEGER NOT NULL, dname VARCHAR(20)) PRIMARY INDEX (deptno)",
        "CREATE MULTISET TABLE q, QUEUE (qits TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6), n INTEGER)",
        "CREATE VIEW v AS SEL empno FROM emp",
    ] {
        s.execute(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    s
}

fn explain(s: &mut Session, sql: &str) -> String {
    let r = s
        .execute(&format!("EXPLAIN {sql}"))
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
    let rows = r[0].rows.as_ref().expect("EXPLAIN returns rows");
    let lines: Vec<String> = rows
        .to_strings()
        .into_iter()
        .map(|r| r[0].clone())
        .collect();
    format!("{sql}\n{}", lines.join("\n"))
}

/// The rows of query `sql`, as text.
fn rows(s: &mut Session, sql: &str) -> Vec<Vec<String>> {
    let r = s.execute(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    r[0].rows.as_ref().expect("rows").to_strings()
}

#[test]
fn the_priority_queue_update_uses_indexes_only() {
    let mut s = fixture();
    insta::assert_snapshot!(explain(
        &mut s,
        "UPDATE t_myqueue SET id = 'x' WHERE order_of_arrival = (SELECT MIN(order_of_arrival) \
         FROM t_myqueue q2 WHERE q2.queue_tag = '*' AND q2.id IS NULL AND q2.retrycount < 10 \
         AND q2.priority = (SELECT MAX(priority) FROM t_myqueue q3 WHERE q3.queue_tag = '*' \
         AND q3.id IS NULL AND q3.retrycount < 10))"
    ));
}

#[test]
fn equality_range_and_min_max_paths() {
    let mut s = fixture();
    insta::assert_snapshot!(explain(&mut s, "SEL * FROM emp WHERE empno = 7"));
    insta::assert_snapshot!(explain(&mut s, "SEL * FROM emp WHERE empno IN (1, 2, 3)"));
    insta::assert_snapshot!(explain(
        &mut s,
        "SEL name FROM emp WHERE dept BETWEEN 10 AND 20 ORDER BY name"
    ));
    insta::assert_snapshot!(explain(&mut s, "SEL MAX(empno), MIN(empno) FROM emp"));
    insta::assert_snapshot!(explain(
        &mut s,
        "SEL MIN(empno) FROM emp WHERE dept = 10 AND name LIKE 'A%'"
    ));
}

#[test]
fn one_table_paths_come_from_the_where_as_the_query_binds_it() {
    let mut s = fixture();
    // WHERE naming a select-list alias: bound as the aliased column, so the index serves it
    insta::assert_snapshot!(explain(&mut s, "SEL empno AS e FROM emp WHERE e = 7"));
    insta::assert_snapshot!(explain(
        &mut s,
        "SEL empno AS e, dept AS d FROM emp WHERE d = 10 AND name > 'A'"
    ));
    // the same text's rows: the read the plan names
    s.execute("INS emp (7, 10, 'Ann')").unwrap();
    s.execute("INS emp (8, 10, 'Bob')").unwrap();
    assert_eq!(
        rows(&mut s, "SEL empno AS e FROM emp WHERE e = 7"),
        vec![vec!["7".to_string()]]
    );
}

#[test]
fn a_top_n_without_order_by_stops_its_read() {
    let mut s = fixture();
    // streamed: a scan stops after n rows; an index read keeps the first n it finds
    insta::assert_snapshot!(explain(&mut s, "SEL TOP 10 * FROM emp"));
    insta::assert_snapshot!(explain(&mut s, "SEL TOP 3 name FROM emp WHERE dept = 10"));
    // not streamed: sorted, a percentage, grouped
    insta::assert_snapshot!(explain(&mut s, "SEL TOP 10 * FROM emp ORDER BY name"));
    insta::assert_snapshot!(explain(&mut s, "SEL TOP 10 PERCENT * FROM emp"));
    insta::assert_snapshot!(explain(&mut s, "SEL TOP 1 COUNT(*) FROM emp"));
    // a unique lookup of one key finds one row: no cut shown; of several keys it may find
    // more, and keeps the first
    insta::assert_snapshot!(explain(&mut s, "SEL TOP 2 * FROM emp WHERE empno = 7"));
    insta::assert_snapshot!(explain(
        &mut s,
        "SEL TOP 1 * FROM emp WHERE empno IN (1, 2, 3)"
    ));
    // a value of the request: the stop is the run's all the same
    insta::assert_snapshot!(explain(&mut s, "SEL TOP 2 empno, CURRENT_DATE FROM emp"));
}

/// A value computed from literals, parameters, CURRENT_DATE or an enclosing row is known
/// before the read, so it probes an index as a literal does; one that reads the table's own
/// row, or calls RANDOM, does not.
#[test]
fn constant_expressions_probe_indexes() {
    let mut s = fixture();
    insta::assert_snapshot!(explain(&mut s, "SEL * FROM emp WHERE empno = 5 + 1"));
    insta::assert_snapshot!(explain(
        &mut s,
        "SEL * FROM emp WHERE dept IN (2 * 5, 40 / 2)"
    ));
    insta::assert_snapshot!(explain(
        &mut s,
        "SEL * FROM emp WHERE dept >= EXTRACT(YEAR FROM CURRENT_DATE) - 2000"
    ));
    insta::assert_snapshot!(explain(
        &mut s,
        "SEL name FROM emp e WHERE EXISTS (SEL 1 FROM emp f WHERE f.empno = e.empno + 1)"
    ));
    insta::assert_snapshot!(explain(&mut s, "SEL * FROM emp WHERE empno = dept + 1"));
    insta::assert_snapshot!(explain(&mut s, "SEL * FROM emp WHERE empno = RANDOM(1, 3)"));
    insta::assert_snapshot!(explain(
        &mut s,
        "SEL name FROM emp e WHERE EXISTS (SEL 1 FROM emp f WHERE f.empno = e.empno + RANDOM(0, 1))"
    ));
}

#[test]
fn a_row_value_in_probes_its_first_columns_index() {
    // (a, b) IN (SEL …) keeps only rows whose a is a value of the subquery's first column:
    // an index on a is probed with those values, and the whole IN still filters the rows
    let mut s = fixture();
    insta::assert_snapshot!(explain(
        &mut s,
        "SEL * FROM emp WHERE (empno, dept) IN (SEL empno, dept FROM emp WHERE dept = 10)"
    ));
    // the first plain column is the one probed, indexed or not; NOT IN probes nothing
    insta::assert_snapshot!(explain(
        &mut s,
        "SEL * FROM emp WHERE (name, empno) IN (SEL name, empno FROM emp)"
    ));
    insta::assert_snapshot!(explain(
        &mut s,
        "SEL * FROM emp WHERE (empno, dept) NOT IN (SEL empno, dept FROM emp)"
    ));
}

#[test]
fn full_scans_when_no_index_helps() {
    let mut s = fixture();
    // an inexact literal, a condition on an unindexed column, an OR, a grouped query
    insta::assert_snapshot!(explain(&mut s, "SEL * FROM emp WHERE empno = 2.5"));
    insta::assert_snapshot!(explain(&mut s, "SEL * FROM emp WHERE name = 'Ann'"));
    insta::assert_snapshot!(explain(
        &mut s,
        "SEL * FROM emp WHERE empno = 1 OR dept = 2"
    ));
    insta::assert_snapshot!(explain(
        &mut s,
        "SEL dept, COUNT(*) FROM emp WHERE dept > 0 GROUP BY dept HAVING COUNT(*) > 1"
    ));
}

#[test]
fn joins_subqueries_and_other_statements() {
    let mut s = fixture();
    insta::assert_snapshot!(explain(
        &mut s,
        "SEL e.name, d.dname FROM emp e INNER JOIN dept d ON e.dept = d.deptno WHERE d.deptno = 10"
    ));
    insta::assert_snapshot!(explain(
        &mut s,
        "SEL e.name, d.dname FROM emp e LEFT JOIN dept d ON e.dept = d.deptno AND d.dname = 'x'"
    ));
    insta::assert_snapshot!(explain(
        &mut s,
        "SEL e.name FROM emp e, dept d, (SEL 1 AS one) x WHERE e.empno IN (1, 2) AND e.name > d.dname"
    ));
    insta::assert_snapshot!(explain(
        &mut s,
        "SEL name FROM emp e WHERE EXISTS (SEL 1 FROM dept d WHERE d.deptno = e.dept) \
         UNION SEL dname FROM dept"
    ));
    insta::assert_snapshot!(explain(
        &mut s,
        "WITH RECURSIVE r (n) AS (SEL 1 FROM dept UNION ALL SEL n + 1 FROM r WHERE n < 3) SEL * FROM r"
    ));
    insta::assert_snapshot!(explain(&mut s, "SEL * FROM v WHERE empno = 1"));
    insta::assert_snapshot!(explain(
        &mut s,
        "DELETE FROM emp WHERE dept IN (SEL deptno FROM dept)"
    ));
    insta::assert_snapshot!(explain(
        &mut s,
        "INS emp SEL deptno, deptno, dname FROM dept"
    ));
    insta::assert_snapshot!(explain(&mut s, "SELECT AND CONSUME TOP 1 * FROM q"));
    insta::assert_snapshot!(explain(&mut s, "CREATE TABLE x (a INTEGER)"));
}

#[test]
fn a_batch_consume_says_how_many_rows_and_how_it_waits() {
    let mut s = fixture();
    let batch = explain(&mut s, "SELECT AND CONSUME TOP 10 * FROM q NOWAIT");
    assert!(batch.contains("pop up to 10 rows, in one step,"), "{batch}");
    assert!(
        batch.contains("no rows if the queue is empty (NOWAIT)"),
        "{batch}"
    );
    let bounded = explain(
        &mut s,
        "INS q SELECT AND CONSUME TOP 1 * FROM q WAIT 2.5 SECONDS",
    );
    assert!(bounded.contains("pop the first row"), "{bounded}");
    assert!(bounded.contains("waits at most 2.5 s"), "{bounded}");
}

#[test]
fn explain_checks_names_and_runs_nothing() {
    let mut s = fixture();
    let e = s
        .execute("EXPLAIN SEL * FROM nosuch WHERE a = 1")
        .unwrap_err();
    assert_eq!(e.code().number, 3807);
    let e = s.execute("EXPLAIN").unwrap_err();
    assert_eq!(e.code().number, 3706);
    // EXPLAIN of a DELETE deletes nothing, and of a consume waits for nothing
    s.execute("INS emp (1, 10, 'Ann')").unwrap();
    s.execute("EXPLAIN DEL emp WHERE empno = 1").unwrap();
    s.execute("EXPLAIN SELECT AND CONSUME TOP 1 * FROM q")
        .unwrap();
    let r = s.execute("SEL COUNT(*) FROM emp").unwrap();
    assert_eq!(r[0].rows.as_ref().unwrap().to_strings(), vec![vec!["1"]]);
}

/// `big` (200 rows, k 1..=200, v = k % 3) and `small` (3 rows, v 2, 0, 1 with their names).
fn big_and_small(s: &mut Session) {
    s.execute("CREATE TABLE big (k INTEGER, v INTEGER) PRIMARY INDEX (k)")
        .unwrap();
    s.execute("CREATE TABLE small (v INTEGER, name VARCHAR(5)) PRIMARY INDEX (v)")
        .unwrap();
    for k in 1..=200 {
        s.execute(&format!("INSERT INTO big VALUES ({k}, {})", k % 3))
            .unwrap();
    }
    for (v, name) in [(2, "two"), (0, "zero"), (1, "one")] {
        s.execute(&format!("INSERT INTO small VALUES ({v}, '{name}')"))
            .unwrap();
    }
}

/// The join order EXPLAIN shows is the one that runs: with no ORDER BY, a join's rows come in
/// the order of the relation joined first (a hash join keeps the left rows' order).
#[test]
fn explain_shows_the_join_order_that_runs() {
    let db = Database::new();
    let mut s = db.session();
    big_and_small(&mut s);
    // no filter: the smaller table first, so the rows come by small's order
    let sql = "SEL small.name, big.k FROM big JOIN small ON big.v = small.v";
    let plan = explain(&mut s, sql);
    assert!(
        plan.contains("Step 1: Full scan of small")
            && plan.contains("Hash join on big.v = small.v"),
        "{plan}"
    );
    let names: Vec<String> = rows(&mut s, sql)
        .into_iter()
        .map(|r| r[0].clone())
        .collect();
    assert_eq!(names.len(), 200);
    let first_of = |n: &str| names.iter().position(|x| x == n).unwrap();
    let last_of = |n: &str| names.iter().rposition(|x| x == n).unwrap();
    assert!(
        last_of("two") < first_of("zero") && last_of("zero") < first_of("one"),
        "rows grouped in small's order: {names:?}"
    );
    // a filter on big: big first, by its index, and the rows come in big's order
    let sql = "SEL big.k, small.name FROM small, big WHERE big.v = small.v AND big.k IN (7, 3, 5)";
    let plan = explain(&mut s, sql);
    insta::assert_snapshot!(plan);
    assert!(plan.contains("Step 1: Index range scan of big"), "{plan}");
    let got = rows(&mut s, sql);
    let ks: Vec<&str> = got.iter().map(|r| r[0].as_str()).collect();
    let mut sorted = ks.clone();
    sorted.sort_unstable();
    assert_eq!(ks.len(), 3);
    assert_eq!(ks, sorted, "big's rows in its order: {got:?}");
    let pairs: Vec<(String, String)> = got
        .into_iter()
        .map(|r| (r[0].clone(), r[1].clone()))
        .collect();
    assert_eq!(
        pairs,
        [("3", "zero"), ("5", "two"), ("7", "one")].map(|(a, b)| (a.to_string(), b.to_string()))
    );
    // both filtered: the table joined second is filtered by its own condition before the join
    let sql = "SEL big.k, small.name FROM big JOIN small ON big.v = small.v \
               WHERE big.k = 7 AND big.v = 1 AND small.name <> 'two'";
    let plan = explain(&mut s, sql);
    assert!(
        plan.contains("Step 1: Index range scan of big")
            && plan.lines().any(|l| l.trim()
                == "Step 2: Hash join on big.v = small.v with full scan of small, an estimated 2 \
                    rows, filtered first by small.name <> 'two'"),
        "{plan}"
    );
    assert_eq!(rows(&mut s, sql), [["7", "one"]]);
}

/// A WHERE conjunct that could fail waits for the conjuncts written before it, but is tried on
/// its table's rows as they are read: the table is still filtered before the join, and the
/// conjunct runs after it only where it fails on those rows (a guard it needs).
#[test]
fn a_conjunct_that_could_fail_is_tried_before_the_join() {
    let db = Database::new();
    let mut s = db.session();
    big_and_small(&mut s);
    let sql = "SEL big.k, small.name FROM small, big WHERE big.v = small.v AND 100 / big.k = 14";
    let plan = explain(&mut s, sql);
    assert!(
        plan.lines().any(|l| l.trim()
            == "Step 1: Full scan of big, an estimated 100 rows, tried first by 100 / big.k = 14 \
                (each runs after the join if it fails here)"),
        "{plan}"
    );
    assert_eq!(rows(&mut s, sql), [["7", "one"]]);
    // where it fails on the rows read (k = 0 divides by zero), the rows the conjuncts
    // written before it keep are the ones it runs on: no small row has v = 3
    s.execute("INSERT INTO big VALUES (0, 3)").unwrap();
    assert_eq!(rows(&mut s, sql), [["7", "one"]]);
    let e = s
        .execute("SEL big.k FROM small, big WHERE 100 / big.k = 14 AND big.v = small.v")
        .unwrap_err();
    assert_eq!(e.code().number, 2618, "{e}");
    // written after a correlated subquery, it runs after it, per joined row (tried first)
    let sql = "SEL big.k FROM small, big WHERE big.v = small.v \
               AND NOT EXISTS (SEL 1 FROM small s2 WHERE s2.v = big.k) AND 100 / big.k = 14";
    let plan = explain(&mut s, sql);
    assert!(
        plan.contains(
            "After the join, per joined row (could fail, written after a correlated one; tried \
             first on its table's rows): 100 / big.k = 14"
        ) && !plan.contains("; then 100 / big.k"),
        "{plan}"
    );
    assert_eq!(rows(&mut s, sql), [["7"]]);
}

/// A step after few rows reads the new table by probing its index with their keys.
#[test]
fn few_joined_rows_probe_an_index() {
    let db = Database::new();
    let mut s = db.session();
    big_and_small(&mut s);
    let sql =
        "SEL big.k, small.name FROM small JOIN big ON big.k = small.v WHERE small.name = 'one'";
    let plan = explain(&mut s, sql);
    assert!(
        plan.contains("Step 1: Full scan of small")
            && plan.contains(
                "Step 2: Hash join on big.k = small.v with full scan of big, an estimated 200 rows \
                 (or, when the rows joined before it are at most 1024 and a quarter of its rows, \
                 probes of PRIMARY INDEX (k) with their keys)"
            ),
        "{plan}"
    );
    assert_eq!(rows(&mut s, sql), [["1", "one"]]);
    // a key whose other side is a view's column (which EXPLAIN does not bind) probes too
    s.execute("CREATE VIEW sv AS SELECT v, name FROM small")
        .unwrap();
    let sql = "SEL COUNT(*) FROM small JOIN sv ON sv.v = small.v JOIN big ON big.k = sv.v";
    let plan = explain(&mut s, sql);
    assert!(
        plan.contains("Step 3: Hash join on big.k = sv.v with full scan of big")
            && plan.contains("probes of PRIMARY INDEX (k) with their keys"),
        "{plan}"
    );
    assert_eq!(rows(&mut s, sql), [["2"]]);
}

/// An equality between an expression of each side is a hash key where it runs first (no key
/// that cannot fail goes before it), and probes the new table's index when its side there is
/// a column; an operand that reads both sides is no key.
#[test]
fn an_equality_of_expressions_is_a_hash_key() {
    let db = Database::new();
    let mut s = db.session();
    big_and_small(&mut s);
    let step2 = |plan: &str| {
        plan.lines()
            .find(|l| l.trim().starts_with("Step 2:"))
            .map(|l| l.trim().to_string())
            .unwrap_or_else(|| panic!("{plan}"))
    };
    let sql =
        "SEL big.k, small.name FROM small JOIN big ON big.k = small.v + 10 WHERE small.name = 'one'";
    assert_eq!(
        step2(&explain(&mut s, sql)),
        "Step 2: Hash join on big.k = small.v + 10 with full scan of big, an estimated 200 rows \
         (or, when the rows joined before it are at most 1024 and a quarter of its rows, probes \
         of PRIMARY INDEX (k) with their keys)"
    );
    assert_eq!(rows(&mut s, sql), [["11", "one"]]);
    // the new table's side an expression: hashed, no probe
    let sql = "SEL big.k FROM small JOIN big ON big.k - 10 = small.v WHERE small.name = 'one'";
    assert_eq!(
        step2(&explain(&mut s, sql)),
        "Step 2: Hash join on big.k - 10 = small.v with full scan of big, an estimated 200 rows"
    );
    assert_eq!(rows(&mut s, sql), [["11"]]);
    // after a column key that cannot fail, the expression runs on the pairs it accepts
    let sql = "SEL COUNT(*) FROM small JOIN big ON big.k = small.v + 10 AND big.v = small.v";
    assert!(
        step2(&explain(&mut s, sql)).starts_with("Step 2: Hash join on big.v = small.v with ")
            && step2(&explain(&mut s, sql)).ends_with("; then big.k = small.v + 10"),
        "{}",
        explain(&mut s, sql)
    );
    assert_eq!(rows(&mut s, sql), [["0"]]);
    // an operand reading both tables
    let sql = "SEL COUNT(*) FROM small JOIN big ON big.v = small.v + big.k - big.k";
    assert!(
        step2(&explain(&mut s, sql)).starts_with("Step 2: Nested-loop join with "),
        "{}",
        explain(&mut s, sql)
    );
    assert_eq!(rows(&mut s, sql), [["200"]]);
    // a conjunct that is an OR is shown in its parentheses
    let sql =
        "SEL COUNT(*) FROM small JOIN big ON (big.k = small.v OR big.v > 2) AND big.v = small.v";
    assert!(
        step2(&explain(&mut s, sql)).ends_with("; then (big.k = small.v OR big.v > 2)"),
        "{}",
        explain(&mut s, sql)
    );
    // an operand reading two relations joined before: a key at the third step
    let sql = "SEL COUNT(*) FROM small JOIN big ON big.v = small.v \
               JOIN small s2 ON s2.v = big.k + small.v - big.k";
    let plan = explain(&mut s, sql);
    assert!(
        plan.contains("Step 3: Hash join on s2.v = big.k + small.v - big.k with"),
        "{plan}"
    );
    assert_eq!(rows(&mut s, sql), [["200"]]);
    // an outer join explained from its text (a subquery in WHERE): the same keys
    let sql = "SEL COUNT(*) FROM small LEFT JOIN big ON big.v = small.v AND big.k + 0 = small.v \
               WHERE small.name IN (SEL name FROM small)";
    let plan = explain(&mut s, sql);
    assert!(
        plan.contains("hash on big.v = small.v, with")
            && plan.contains("; then big.k + 0 = small.v"),
        "{plan}"
    );
    assert_eq!(rows(&mut s, sql), [["3"]]);
}

#[test]
fn outer_joins_using_and_correlated_conditions_by_step() {
    let mut s = fixture();
    // ON conjuncts hashed wherever they are written; an inner join inside an outer FROM too
    insta::assert_snapshot!(explain(
        &mut s,
        "SEL * FROM emp e LEFT JOIN dept d ON d.dname > e.name AND e.dept = d.deptno \
         JOIN emp e2 ON e2.empno = e.empno AND e2.name <> 'x'"
    ));
    // USING: a column one relation before has is a key; one two share is a key too (an
    // expression of both: the first non-NULL of their copies, hashed where it runs first)
    insta::assert_snapshot!(explain(
        &mut s,
        "SEL * FROM emp a JOIN emp b USING (empno) JOIN emp c USING (empno)"
    ));
    // comma items of an outer FROM, and a correlated ON conjunct on each pair
    insta::assert_snapshot!(explain(
        &mut s,
        "SEL * FROM emp e LEFT JOIN dept d ON e.dept = d.deptno \
         AND EXISTS (SEL 1 FROM emp x WHERE x.dept = d.deptno), dept d2 WHERE d2.deptno = e.dept"
    ));
}

/// An ON binds over the relations up to its own, as the executor binds it: `y` is b's there,
/// though c has a `y` too, so it is b's own condition and b is read first.
#[test]
fn an_on_condition_names_what_its_join_can_see() {
    let db = Database::new();
    let mut s = db.session();
    for sql in [
        "CREATE TABLE a (id INTEGER, x INTEGER)",
        "CREATE TABLE b (id INTEGER, y INTEGER)",
        "CREATE TABLE c (id INTEGER, y INTEGER)",
        "INSERT INTO a VALUES (1, 1)",
        "INSERT INTO a VALUES (2, 2)",
        "INSERT INTO b VALUES (2, 7)",
        "INSERT INTO b VALUES (1, 7)",
        "INSERT INTO c VALUES (1, 0)",
        "INSERT INTO c VALUES (2, 0)",
    ] {
        s.execute(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    let sql = "SEL a.id FROM a JOIN b ON a.id = b.id AND y > 5 JOIN c ON c.id = a.id";
    let plan = explain(&mut s, sql);
    assert!(plan.contains("Step 1: Full scan of b"), "{plan}");
    assert!(plan.contains("then y > 5\n"), "{plan}");
    let ids: Vec<String> = rows(&mut s, sql)
        .into_iter()
        .map(|r| r[0].clone())
        .collect();
    assert_eq!(ids, ["2", "1"], "b's order: b ran first");
}

#[test]
fn system_views_are_relations_the_executor_makes() {
    let mut s = fixture();
    insta::assert_snapshot!(explain(
        &mut s,
        "SEL TableName FROM DBC.TablesV WHERE DatabaseName = 'x'"
    ));
    insta::assert_snapshot!(explain(
        &mut s,
        "SEL e.name FROM emp e JOIN Sys_Calendar.Calendar c ON c.day_of_month = e.dept"
    ));
}

/// EXPLAIN resolves every name of a block of base tables as the query does (its WHERE, select
/// list, GROUP BY, HAVING and ORDER BY; `Exec::bind_as_queried`; a subquery over a row of
/// NULLs of the enclosing query's tables), so it fails where the query would fail to bind,
/// with the same error, and completes where the query binds, reading and running nothing.
#[test]
fn explain_resolves_every_name_of_a_block() {
    let mut s = fixture();
    s.execute("CREATE GLOBAL TEMPORARY TABLE stage (k INTEGER, w INTEGER) ON COMMIT PRESERVE ROWS")
        .unwrap();
    s.execute("INS emp (1, 10, 'Ann')").unwrap();
    for sql in [
        "SEL nosuch FROM emp",
        "SEL empno FROM emp WHERE nosuch = 1",
        "SEL dept, COUNT(*) FROM emp GROUP BY nosuch",
        "SEL dept FROM emp GROUP BY dept HAVING MAX(nosuch) > 1",
        "SEL empno FROM emp ORDER BY nosuch",
        "SEL e.nosuch FROM emp e",
        "SEL name, COUNT(*) FROM emp",
        "SEL dept, name FROM emp GROUP BY dept",
        "SEL e.empno, d.nosuch FROM emp e JOIN dept d ON e.dept = d.deptno",
        "SEL dept FROM emp e JOIN emp f ON e.empno = f.empno",
        "SEL e.empno FROM emp e, dept d WHERE e.dept = d.deptno ORDER BY nosuch",
        "SEL * FROM emp o WHERE EXISTS (SEL 1 FROM dept d WHERE d.nosuch = 1)",
        // a correlated subquery: bound over a row of NULLs of the enclosing query's tables
        "SEL * FROM emp o WHERE EXISTS (SEL 1 FROM dept d WHERE d.deptno = o.dept AND d.nosuch = 1)",
        "SEL * FROM emp o WHERE o.dept IN (SEL d.deptno FROM dept d WHERE d.dname = o.nosuch)",
        "SEL * FROM emp o WHERE o.dept = (SEL MAX(d.deptno) FROM dept d WHERE d.dname = o.name \
         GROUP BY d.nosuch)",
        "SEL (SEL MAX(nosuch) FROM dept) FROM emp",
        // a FROM naming a table twice: that before any name
        "SEL 1 FROM dept JOIN dept ON dname > 'a'",
        "SEL 1 FROM dept x, emp x WHERE nosuch > 1",
    ] {
        let run = s.execute(sql).unwrap_err().code().number;
        let explained = s.execute(&format!("EXPLAIN {sql}")).map(|_| ()).map_err(|e| e.code().number);
        assert_eq!((sql, explained), (sql, Err(run)));
        assert!([3504, 3809, 3810, 3822, 3868].contains(&run), "{sql}: {run}");
    }
    // names the query resolves in other ways: select-list aliases, positions, system values,
    // a phrase on a column, a table named only by a qualifier (Teradata's implicit FROM), an
    // enclosing query's column, a global temporary table with no instance (left unbound:
    // binding would make one)
    for sql in [
        "SEL empno AS n FROM emp WHERE n = 1 ORDER BY n",
        "SEL dept AS d, COUNT(*) AS c FROM emp GROUP BY d HAVING c > 0 ORDER BY 2",
        "SEL dept, COUNT(*) FROM emp GROUP BY 1",
        "SEL DATE, USER, CURRENT_DATE, empno FROM emp",
        "SEL empno (FORMAT '999'), name (TITLE 'who') FROM emp",
        "SEL emp.name, dept.dname FROM emp WHERE emp.dept = dept.deptno",
        "SEL * FROM emp o WHERE EXISTS (SEL d.dname FROM dept d WHERE d.deptno = o.dept)",
        "SEL * FROM emp o WHERE o.dept IN (SEL d.deptno FROM dept d WHERE d.dname = o.name)",
        // an enclosing table's column named with the home database, in a join's condition
        "SEL empno FROM emp WHERE EXISTS (SEL 1 FROM dept d, emp e2 \
         WHERE d.deptno = tdlite.emp.dept AND e2.empno = d.deptno)",
    ] {
        let before = rows(&mut s, sql);
        explain(&mut s, sql);
        assert_eq!(rows(&mut s, sql), before, "{sql}");
    }
    // an UPDATE's or DELETE's subquery names the target's columns
    for sql in [
        "DEL FROM emp WHERE EXISTS (SEL 1 FROM dept d WHERE d.deptno = emp.dept)",
        "UPDATE emp SET name = 'x' WHERE EXISTS (SEL 1 FROM dept d WHERE d.deptno = emp.dept)",
    ] {
        explain(&mut s, sql);
    }
    let sql = "DEL FROM emp WHERE EXISTS (SEL 1 FROM dept d WHERE d.deptno = emp.nosuch)";
    let run = s.execute(sql).unwrap_err().code().number;
    let explained = s
        .execute(&format!("EXPLAIN {sql}"))
        .unwrap_err()
        .code()
        .number;
    assert_eq!((run, explained), (3810, 3810));
    explain(&mut s, "SEL k, w AS x FROM stage WHERE x = 1 ORDER BY k");
    // WHERE naming an alias of a subquery over the table: left unbound (binding would run it)
    explain(
        &mut s,
        "SEL (SEL stage.k FROM stage) AS c1 FROM emp, dept WHERE emp.empno > c1",
    );
    let e = s.execute("DROP TEMPORARY TABLE stage").unwrap_err();
    assert_eq!(e.code().number, 3807, "EXPLAIN made no instance");
}

/// A FROM of base tables whose conditions have no subquery (an outer join's too) is bound by
/// the executor's own binding (explain/planned.rs): a name that does not bind is the query's
/// error, not a condition shown as written; a global temporary table with no instance is
/// explained from its definition, and EXPLAIN makes no instance.
#[test]
fn a_join_of_tables_is_bound_as_the_query_binds_it() {
    let mut s = fixture();
    s.execute("CREATE GLOBAL TEMPORARY TABLE stage (k INTEGER, w INTEGER) ON COMMIT PRESERVE ROWS")
        .unwrap();
    for sql in [
        "SEL * FROM emp e JOIN dept d ON e.nope = d.deptno",
        "SEL * FROM emp e, dept d WHERE e.dept = d.deptno AND d.nope = 1",
        "SEL * FROM emp e JOIN dept d ON e.dept = d.deptno WHERE x.empno = 1",
        "SEL * FROM emp e JOIN dept d ON d.deptno = e.dept JOIN emp e2 ON e2.empno = z.deptno",
        "SEL * FROM emp e JOIN emp f ON empno = 1",
        "SEL * FROM emp JOIN dept USING (nope)",
        "SEL * FROM emp e LEFT JOIN dept d ON e.nope = d.deptno",
        "SEL * FROM emp e FULL JOIN dept d ON e.dept = d.deptno WHERE d.nope IS NULL",
        // in a subquery: a name no enclosing relation has either
        "SEL * FROM emp o WHERE EXISTS (SEL 1 FROM emp e JOIN dept d ON e.dept = d.deptno \
         WHERE e.nosuch = o.empno)",
        "SEL * FROM emp o WHERE EXISTS (SEL 1 FROM emp e JOIN dept d ON e.dept = d.deptno \
         WHERE e.empno = o.nosuch)",
    ] {
        let run = s.execute(sql).unwrap_err().code().number;
        let explained = s
            .execute(&format!("EXPLAIN {sql}"))
            .unwrap_err()
            .code()
            .number;
        assert_eq!((sql, explained), (sql, run));
        assert!([3807, 3809, 3810, 3822].contains(&run), "{sql}: {run}");
    }
    // WHERE naming a select-list alias binds as the query binds it; a join inside a
    // correlated subquery names the enclosing query's columns (bound per outer row when run)
    for sql in [
        "SEL e.empno + d.deptno AS s FROM emp e JOIN dept d ON e.dept = d.deptno WHERE s > 10",
        "SEL * FROM emp o WHERE EXISTS (SEL 1 FROM emp e JOIN dept d ON e.dept = d.deptno \
         WHERE e.empno = o.empno)",
    ] {
        s.execute(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
        let plan = explain(&mut s, sql);
        assert!(plan.contains("Hash join on e.dept = d.deptno"), "{plan}");
    }
    let plan = explain(&mut s, "SEL * FROM emp JOIN stage ON stage.k = emp.empno");
    assert!(
        plan.contains("Step 2: Hash join on stage.k = emp.empno"),
        "{plan}"
    );
    let e = s.execute("DROP TEMPORARY TABLE stage").unwrap_err();
    assert_eq!(e.code().number, 3807, "EXPLAIN made no instance");
    s.execute("INS stage (1, 2)").unwrap();
    s.execute("INS emp (1, 10, 'Ann')").unwrap();
    let plan = explain(&mut s, "SEL * FROM emp JOIN stage ON stage.k = emp.empno");
    assert!(
        plan.contains("Step 1: Full scan of stage, an estimated 1 row")
            || plan.contains("Step 1: Full scan of emp, an estimated 1 row"),
        "{plan}"
    );
    assert_eq!(
        rows(
            &mut s,
            "SEL emp.name, stage.w FROM emp JOIN stage ON stage.k = emp.empno"
        ),
        [["Ann", "2"]]
    );
}

/// An IN list of more values than 256 probes an index when the table is large enough: a
/// probe per 32 rows (plan.rs `max_probes`), so 400 values over 20,000 rows are probed, and
/// over 2,000 rows the table is scanned. Either way the rows are those a scan finds
/// (`k + 0` is no column: it never probes).
#[test]
fn a_long_in_list_probes_an_index_when_the_table_is_large_enough() {
    let db = Database::new();
    let mut s = db.session();
    for sql in [
        "CREATE TABLE big (k INTEGER NOT NULL, x INTEGER) UNIQUE PRIMARY INDEX (k)",
        "CREATE TABLE small (k INTEGER NOT NULL, x INTEGER) UNIQUE PRIMARY INDEX (k)",
        "INS big SEL day_of_calendar, day_of_calendar MOD 7 FROM sys_calendar.calendar \
         WHERE day_of_calendar <= 20000",
        "INS small SEL k, x FROM big WHERE k <= 2000",
    ] {
        s.execute(sql).unwrap();
    }
    let list: Vec<String> = (1..=400).map(|i| (i * 37).to_string()).collect();
    let list = list.join(", ");
    let first_step = |s: &mut Session, table: &str, operand: &str| {
        let text = explain(
            s,
            &format!("SEL COUNT(*) FROM {table} WHERE {operand} IN ({list})"),
        );
        let read = text
            .lines()
            .find(|l| l.contains(table) && !l.starts_with("SEL"));
        read.map(|l| l.trim().to_string()).unwrap_or_default()
    };
    assert!(
        first_step(&mut s, "big", "k").contains("index"),
        "{}",
        first_step(&mut s, "big", "k")
    );
    assert!(first_step(&mut s, "big", "k + 0").starts_with("Full scan"));
    assert!(
        first_step(&mut s, "small", "k").starts_with("Full scan"),
        "{}",
        first_step(&mut s, "small", "k")
    );
    for table in ["big", "small"] {
        let count = |s: &mut Session, operand: &str, not: &str| {
            let sql =
                format!("SEL COUNT(*), SUM(x) FROM {table} WHERE {operand} {not} IN ({list})");
            let r = s.execute(&sql).unwrap();
            r[0].rows.as_ref().unwrap().to_strings()
        };
        let expected = match table {
            "big" => vec![vec![
                "400".to_string(),
                count(&mut s, "k + 0", "")[0][1].clone(),
            ]],
            _ => vec![vec![
                "54".to_string(),
                count(&mut s, "k + 0", "")[0][1].clone(),
            ]],
        };
        assert_eq!(count(&mut s, "k", ""), expected, "{table}");
        assert_eq!(
            count(&mut s, "k", "NOT"),
            count(&mut s, "k + 0", "NOT"),
            "{table}"
        );
    }
}

#[test]
fn a_joined_update_or_delete_shows_the_join_it_runs() {
    let mut s = fixture();
    big_and_small(&mut s);
    // the target is one relation of the planned join: here the smaller source first, the
    // target hash-joined or probed by its index after it
    insta::assert_snapshot!(explain(
        &mut s,
        "UPDATE big FROM small SET v = small.v WHERE big.k = small.v + 1"
    ));
    // its own condition through its index, the source's on the source
    insta::assert_snapshot!(explain(
        &mut s,
        "DEL b FROM big b, small s WHERE b.k = 7 AND b.v = s.v AND s.name = 'one'"
    ));
    // the target alone in its FROM: its own read
    insta::assert_snapshot!(explain(
        &mut s,
        "UPDATE big FROM big SET v = 0 WHERE big.k = 5"
    ));
    // the target left out of a DELETE's FROM stands first on its own
    insta::assert_snapshot!(explain(
        &mut s,
        "DELETE big FROM small WHERE small.v = 2 AND small.name = 'two'"
    ));
    // a MERGE reads its source first, then pairs the target with its rows
    insta::assert_snapshot!(explain(
        &mut s,
        "MERGE INTO big USING (SEL 5 AS k) s ON big.k = s.k WHEN MATCHED THEN UPDATE SET v = 0"
    ));
    // and the statements change the rows the plans find
    s.execute("UPDATE big FROM small SET v = small.v + 10 WHERE big.k = small.v + 1")
        .unwrap();
    let changed = rows(&mut s, "SEL k, v FROM big WHERE v >= 10 ORDER BY k");
    assert_eq!(changed, [["1", "10"], ["2", "11"], ["3", "12"]]);
    let r = s
        .execute("DEL b FROM big b, small s WHERE b.k = 7 AND b.v = s.v AND s.name = 'one'")
        .unwrap();
    assert_eq!(r[0].activity_count, 1);
    assert_eq!(rows(&mut s, "SEL COUNT(*) FROM big"), [["199"]]);
}
