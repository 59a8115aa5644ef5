//! Prepared requests with `?` parameters (`Session::prepare`, `Session::execute_prepared`).

use tdlite::{Database, Value};

fn strings(r: &[tdlite::StatementResult]) -> Vec<Vec<String>> {
    r.last()
        .and_then(|r| r.rows.as_ref())
        .map(|r| r.to_strings())
        .unwrap_or_default()
}

#[test]
fn parameters_bind_in_textual_order_with_their_types() {
    let db = Database::new();
    let mut s = db.session();
    s.execute(
        "CREATE TABLE t (k INTEGER NOT NULL, name VARCHAR(10), amount DECIMAL(8,2), d DATE) \
         UNIQUE PRIMARY INDEX (k)",
    )
    .unwrap();
    let ins = s.prepare("INS t (?, ?, ?, ?)").unwrap();
    assert_eq!(ins.parameter_count(), 4);
    for k in 1..=5 {
        let r = s
            .execute_prepared(
                &ins,
                &[
                    Value::Int(k),
                    Value::Str(format!("n{k}")),
                    Value::Decimal(1234 * i128::from(k), 2),
                    Value::Date(19_000 + k as i32),
                ],
            )
            .unwrap();
        assert_eq!(r[0].activity_count, 1);
    }
    s.execute_prepared(
        &ins,
        &[Value::Int(6), Value::Null, Value::Null, Value::Null],
    )
    .unwrap();
    // a parameter in WHERE (an index probe), in a comparison with a character column
    // (NOT CASESPECIFIC), and in arithmetic
    let q = s
        .prepare("SEL k, name, amount * ? FROM t WHERE k = ? OR name = ? ORDER BY k")
        .unwrap();
    let r = s
        .execute_prepared(&q, &[Value::Int(2), Value::Int(3), Value::Str("N5".into())])
        .unwrap();
    assert_eq!(
        strings(&r),
        vec![vec!["3", "n3", "74.04"], vec!["5", "n5", "123.40"]]
    );
    let r = s
        .execute_prepared(&q, &[Value::Int(1), Value::Int(6), Value::Null])
        .unwrap();
    assert_eq!(strings(&r), vec![vec!["6", "?", "?"]]);
}

#[test]
fn wrong_parameter_counts_are_3939() {
    let db = Database::new();
    let mut s = db.session();
    s.execute("CREATE TABLE t (k INTEGER)").unwrap();
    let ins = s.prepare("INS t (?); INS t (? + 1)").unwrap();
    assert_eq!((ins.parameter_count(), ins.statement_count()), (2, 2));
    let e = s.execute_prepared(&ins, &[Value::Int(1)]).unwrap_err();
    assert_eq!(e.code().number, 3939);
    // a marker in a request run without values
    let e = s.execute("INS t (?)").unwrap_err();
    assert_eq!(e.code().number, 3939);
    s.execute_prepared(&ins, &[Value::Int(1), Value::Int(1)])
        .unwrap();
    let r = s.execute("SEL k FROM t ORDER BY k").unwrap();
    assert_eq!(strings(&r), vec![vec!["1"], vec!["2"]]);
    let e = s.prepare("SEL FROM WHERE").unwrap_err();
    assert_eq!(e.code().number, 3706);
    let e = s.prepare("  ").unwrap_err();
    assert_eq!(e.code().number, 3706);
}

#[test]
fn a_prepared_request_runs_in_any_session_and_finds_tables_again() {
    let db = Database::new();
    let mut a = db.session();
    let mut b = db.session();
    a.execute(
        "CREATE TABLE q, QUEUE (qits TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6), \
         n INTEGER)",
    )
    .unwrap();
    let produce = a.prepare("INS q (CURRENT_TIMESTAMP, ?)").unwrap();
    let consume = a.prepare("SEL AND CONSUME TOP 1 n FROM q").unwrap();
    for n in 0..3 {
        b.execute_prepared(&produce, &[Value::Int(n)]).unwrap();
    }
    let got: Vec<String> = (0..3)
        .map(|_| strings(&a.execute_prepared(&consume, &[]).unwrap())[0][0].clone())
        .collect();
    assert_eq!(got, vec!["0", "1", "2"]);
    // DROP and CREATE again: the prepared request names the table, not a handle to it
    a.execute("DROP TABLE q").unwrap();
    a.execute(
        "CREATE TABLE q, QUEUE (qits TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6), \
         n INTEGER)",
    )
    .unwrap();
    b.execute_prepared(&produce, &[Value::Int(7)]).unwrap();
    assert_eq!(
        strings(&a.execute_prepared(&consume, &[]).unwrap()),
        vec![vec!["7"]]
    );
}

/// A prepared INSERT, UPDATE or DELETE resolves its table's name once per context (plan
/// cache): another default database, another session, or a volatile table of the same name
/// must each resolve it afresh.
#[test]
fn a_prepared_change_resolves_its_table_in_each_database_and_session() {
    let db = Database::new();
    let mut a = db.session();
    let mut b = db.session();
    for d in ["d1", "d2"] {
        a.execute(&format!("CREATE DATABASE {d} AS PERM = 1000000"))
            .unwrap();
        a.execute(&format!("CREATE TABLE {d}.t (n INTEGER)"))
            .unwrap();
    }
    let ins = a.prepare("INS t (?)").unwrap();
    let upd = a.prepare("UPD t SET n = n + 100 WHERE n = ?").unwrap();
    let del = a.prepare("DEL FROM t WHERE n = ?").unwrap();
    let rows = |s: &mut tdlite::Session, d: &str| {
        strings(&s.execute(&format!("SEL n FROM {d}.t ORDER BY n")).unwrap())
    };
    for (d, n) in [("d1", 1), ("d2", 2), ("d1", 3)] {
        a.execute(&format!("DATABASE {d}")).unwrap();
        a.execute_prepared(&ins, &[Value::Int(n)]).unwrap();
        a.execute_prepared(&ins, &[Value::Int(n + 10)]).unwrap();
        a.execute_prepared(&upd, &[Value::Int(n)]).unwrap();
        a.execute_prepared(&del, &[Value::Int(n + 10)]).unwrap();
    }
    assert_eq!(rows(&mut a, "d1"), vec![vec!["101"], vec!["103"]]);
    assert_eq!(rows(&mut a, "d2"), vec![vec!["102"]]);
    // session b's default database is its user's: no table t there
    let e = b.execute_prepared(&ins, &[Value::Int(4)]).unwrap_err();
    assert_eq!(e.code().number, 3807, "{e}");
    // a volatile table of a's session is found by a, and not by b (in the same database)
    b.execute("DATABASE d1").unwrap();
    let vol = a.prepare("INS v (?)").unwrap();
    a.execute("CREATE VOLATILE TABLE v (n INTEGER) ON COMMIT PRESERVE ROWS")
        .unwrap();
    a.execute_prepared(&vol, &[Value::Int(5)]).unwrap();
    let e = b.execute_prepared(&vol, &[Value::Int(6)]).unwrap_err();
    assert_eq!(e.code().number, 3807, "{e}");
    a.execute_prepared(&vol, &[Value::Int(7)]).unwrap();
    assert_eq!(
        strings(&a.execute("SEL n FROM v ORDER BY n").unwrap()),
        vec![vec!["5"], vec!["7"]]
    );
}

#[test]
fn a_prepared_exec_passes_its_values_to_the_macro() {
    let db = Database::new();
    let mut s = db.session();
    s.execute("CREATE TABLE t (n INTEGER, note VARCHAR(20), d DATE)")
        .unwrap();
    s.execute(
        "CREATE MACRO add_t (n INTEGER, note VARCHAR(20), d DATE) AS (INS t (:n, :note, :d);)",
    )
    .unwrap();
    let exec = s.prepare("EXEC add_t (?, ?, ?)").unwrap();
    assert_eq!(exec.parameter_count(), 3);
    s.execute_prepared(
        &exec,
        &[
            Value::Int(1),
            Value::Str("it's".into()),
            Value::Date(19_000),
        ],
    )
    .unwrap();
    s.execute_prepared(&exec, &[Value::Int(2), Value::Null, Value::Null])
        .unwrap();
    let r = s
        .execute("SEL n, note, d FROM t ORDER BY n")
        .unwrap()
        .remove(0);
    let rows = r.rows.unwrap().to_strings();
    assert_eq!(rows[0], ["1", "it's", "2022-01-08"]);
    assert_eq!(rows[1], ["2", "?", "?"]);
}

#[test]
fn execute_batch_inserts_many_sets_in_few_requests_and_runs_other_requests_per_set() {
    let db = Database::new();
    let mut s = db.session();
    s.execute("CREATE MULTISET TABLE t (id INTEGER, v VARCHAR(10), d DECIMAL(9,2))")
        .unwrap();
    let ins = s.prepare("INSERT INTO t VALUES (?, ?, ?)").unwrap();
    // 2,500 sets in one batched request: a column of mixed kinds (Int and Decimal) converts
    // kind by kind, a column of one kind (NULLs aside) at once
    let sets: Vec<Vec<Value>> = (0..2500)
        .map(|i| {
            vec![
                Value::Int(i),
                if i % 3 == 0 {
                    Value::Null
                } else {
                    Value::Str(format!("v{i}"))
                },
                if i % 2 == 0 {
                    Value::Int(i % 100)
                } else {
                    Value::Decimal(i128::from(i % 100 * 100 + 25), 2)
                },
            ]
        })
        .collect();
    let r = s.execute_batch(&ins, sets).unwrap();
    assert_eq!(r.last().unwrap().activity_count, 2500);
    let got = strings(&s.execute("SEL COUNT(*), COUNT(v), SUM(d) FROM t").unwrap());
    let total: i64 = (0..2500)
        .map(|i| {
            if i % 2 == 0 {
                (i % 100) * 100
            } else {
                (i % 100) * 100 + 25
            }
        })
        .sum();
    assert_eq!(
        got,
        vec![vec![
            "2500".to_string(),
            (2500 - (0..2500).filter(|i| i % 3 == 0).count()).to_string(),
            format!("{}.{:02}", total / 100, total % 100)
        ]]
    );
    // columns of one kind each (NULLs aside): 25,000 sets in three requests of up to 10,000,
    // each column converted at once, the same rows as set by set
    s.execute("CREATE MULTISET TABLE u (id INTEGER, v VARCHAR(10), d DECIMAL(9,2))")
        .unwrap();
    let ins_u = s.prepare("INSERT INTO u VALUES (?, ?, ?)").unwrap();
    let sets: Vec<Vec<Value>> = (0..25_000)
        .map(|i| {
            vec![
                Value::Int(i),
                if i % 3 == 0 {
                    Value::Null
                } else {
                    Value::Str(format!("v{i}"))
                },
                Value::Decimal(i128::from(i % 100 * 100 + 25), 2),
            ]
        })
        .collect();
    let r = s.execute_batch(&ins_u, sets).unwrap();
    assert_eq!(r.last().unwrap().activity_count, 25_000);
    let got = strings(
        &s.execute("SEL COUNT(*), COUNT(v), SUM(d), MAX(v), SUM(id) FROM u")
            .unwrap(),
    );
    let sum_d: i64 = (0..25_000).map(|i| (i % 100) * 100 + 25).sum();
    assert_eq!(
        got,
        vec![vec![
            "25000".to_string(),
            (25_000 - (0..25_000).filter(|i| i % 3 == 0).count()).to_string(),
            format!("{}.{:02}", sum_d / 100, sum_d % 100),
            "v9998".to_string(),
            (0..25_000i64).sum::<i64>().to_string(),
        ]]
    );
    // a value that does not fit its column fails the request it is in, as INSERT would
    let err = s
        .execute_batch(
            &ins_u,
            vec![vec![Value::Int(i64::MAX), Value::Null, Value::Null]],
        )
        .unwrap_err();
    assert_eq!(err.code().number, 2616, "{err}");
    // mixed kinds into a character column: each value as it would convert alone
    s.execute("CREATE MULTISET TABLE m (k INTEGER, v VARCHAR(20))")
        .unwrap();
    let ins_m = s.prepare("INSERT INTO m VALUES (?, ?)").unwrap();
    let mixed = vec![
        vec![Value::Int(1), Value::Int(5)],
        vec![Value::Int(2), Value::Decimal(500, 2)],
        vec![Value::Int(3), Value::Str("x".into())],
        vec![Value::Int(4), Value::Null],
        vec![Value::Int(5), Value::Decimal(5, 0)],
    ];
    s.execute_batch(&ins_m, mixed.clone()).unwrap();
    let batched = strings(&s.execute("SEL k, v FROM m ORDER BY k").unwrap());
    s.execute("DELETE FROM m").unwrap();
    for set in &mixed {
        s.execute_prepared(&ins_m, set).unwrap();
    }
    let alone = strings(&s.execute("SEL k, v FROM m ORDER BY k").unwrap());
    assert_eq!(batched, alone);
    assert_eq!(batched[1][1], "5.00");
    assert_eq!(batched[0][1], "5");
    // not an INSERT of markers: once per set
    let upd = s.prepare("UPDATE t SET v = ? WHERE id = ?").unwrap();
    let r = s
        .execute_batch(
            &upd,
            vec![
                vec![Value::Str("a".into()), Value::Int(1)],
                vec![Value::Str("b".into()), Value::Int(2)],
            ],
        )
        .unwrap();
    assert_eq!(r.last().unwrap().activity_count, 2);
    // a set of the wrong size: 3939 before anything runs
    let err = s
        .execute_batch(&ins, vec![vec![Value::Int(1)]])
        .unwrap_err();
    assert_eq!(err.code().number, 3939);
}

#[test]
fn execute_batch_evaluates_fixed_cells_once_and_varying_ones_per_set() {
    let db = Database::new();
    let mut s = db.session();
    s.execute(
        "CREATE MULTISET TABLE q, QUEUE (qits TIMESTAMP(6) NOT NULL DEFAULT \
         CURRENT_TIMESTAMP(6), id INTEGER, tag VARCHAR(10))",
    )
    .unwrap();
    // CURRENT_TIMESTAMP and a literal beside the markers: one request, one QITS for every row,
    // and the queue still gives the rows back in the order they were sent
    let ins = s.prepare("INS q (CURRENT_TIMESTAMP, ?, 'fixed')").unwrap();
    let sets: Vec<Vec<Value>> = (0..3000).map(|i| vec![Value::Int(i)]).collect();
    let r = s.execute_batch(&ins, sets).unwrap();
    assert_eq!(r.last().unwrap().activity_count, 3000);
    let got = strings(
        &s.execute("SEL COUNT(DISTINCT qits), COUNT(*), MIN(tag), MAX(tag) FROM q")
            .unwrap(),
    );
    assert_eq!(got, vec![vec!["1", "3000", "fixed", "fixed"]]);
    for want in 0..5 {
        let got = strings(&s.execute("SEL AND CONSUME TOP 1 id FROM q").unwrap());
        assert_eq!(got, vec![vec![want.to_string()]]);
    }
    // a subquery may read the rows the sets before inserted: each set runs on its own
    s.execute("CREATE MULTISET TABLE t (k INTEGER, n INTEGER)")
        .unwrap();
    let ins = s
        .prepare("INSERT INTO t VALUES (?, (SELECT COUNT(*) FROM t))")
        .unwrap();
    let sets: Vec<Vec<Value>> = (0..4).map(|i| vec![Value::Int(i)]).collect();
    s.execute_batch(&ins, sets).unwrap();
    let got = strings(&s.execute("SEL k, n FROM t ORDER BY k").unwrap());
    let want: Vec<Vec<String>> = (0..4).map(|i| vec![i.to_string(), i.to_string()]).collect();
    assert_eq!(got, want);
    // RANDOM differs per set: each set runs on its own and draws its own number
    s.execute("CREATE MULTISET TABLE r (k INTEGER, n INTEGER)")
        .unwrap();
    let ins = s
        .prepare("INSERT INTO r VALUES (?, RANDOM(1, 1000000000))")
        .unwrap();
    let sets: Vec<Vec<Value>> = (0..40).map(|i| vec![Value::Int(i)]).collect();
    s.execute_batch(&ins, sets).unwrap();
    let got = strings(&s.execute("SEL COUNT(DISTINCT n) FROM r").unwrap());
    assert_ne!(got, vec![vec!["1".to_string()]], "40 draws of one number");
}

#[test]
fn parameters_reach_correlated_subqueries_after_a_join_and_per_group() {
    let db = Database::new();
    let mut s = db.session();
    for sql in [
        "CREATE TABLE t (a INTEGER, g INTEGER)",
        "CREATE TABLE u (a INTEGER, c INTEGER)",
        "INS t (1, 1); INS t (2, 1); INS t (3, 2); INS u (1, 5); INS u (2, 50); INS u (3, 7)",
    ] {
        s.execute(sql).unwrap();
    }
    // the correlated conjunct runs last, over the joined rows, with the parameter's value
    let joined = s
        .prepare(
            "SEL x.a, y.a FROM t x, t y WHERE x.g = y.g AND x.a < y.a \
             AND EXISTS (SEL 1 FROM u WHERE u.a = y.a AND u.c > ?) ORDER BY 1, 2",
        )
        .unwrap();
    let r = s.execute_prepared(&joined, &[Value::Int(10)]).unwrap();
    assert_eq!(strings(&r), vec![vec!["1", "2"]]);
    let r = s.execute_prepared(&joined, &[Value::Int(100)]).unwrap();
    assert!(strings(&r).is_empty());
    // per group, in HAVING
    let grouped = s
        .prepare(
            "SEL g, COUNT(*) FROM t GROUP BY g \
             HAVING (SEL MAX(c) FROM u, t z WHERE u.a = z.a AND z.g = t.g) > ? ORDER BY 1",
        )
        .unwrap();
    let r = s.execute_prepared(&grouped, &[Value::Int(6)]).unwrap();
    assert_eq!(strings(&r), vec![vec!["1", "2"], vec!["2", "1"]]);
    let r = s.execute_prepared(&grouped, &[Value::Int(7)]).unwrap();
    assert_eq!(strings(&r), vec![vec!["1", "2"]]);
}

/// A prepared UPDATE whose SET value is a correlated scalar subquery: not kept (it needs the
/// rows), bound per execution, with each run's parameter values inside the subquery.
#[test]
fn a_prepared_update_sets_a_correlated_subquerys_value_per_row() {
    let db = Database::new();
    let mut s = db.session();
    for sql in [
        "CREATE TABLE t (a INTEGER, b INTEGER)",
        "CREATE TABLE u (a INTEGER, c INTEGER)",
        "INS t (1, 0); INS t (2, 0); INS t (3, 0); INS u (1, 5); INS u (1, 50); INS u (2, 7)",
    ] {
        s.execute(sql).unwrap();
    }
    let up = s
        .prepare("UPDATE t SET b = (SEL COUNT(*) FROM u WHERE u.a = t.a AND u.c > ?) WHERE a < ?")
        .unwrap();
    let r = s
        .execute_prepared(&up, &[Value::Int(6), Value::Int(3)])
        .unwrap();
    assert_eq!(r[0].activity_count, 2);
    let all = "SEL a, b FROM t ORDER BY a";
    assert_eq!(
        strings(&s.execute(all).unwrap()),
        vec![vec!["1", "1"], vec!["2", "1"], vec!["3", "0"]]
    );
    s.execute_prepared(&up, &[Value::Int(0), Value::Int(9)])
        .unwrap();
    assert_eq!(
        strings(&s.execute(all).unwrap()),
        vec![vec!["1", "2"], vec!["2", "1"], vec!["3", "0"]]
    );
}

/// A prepared request's kept binding is made in one session mode: run after the mode
/// changes, its literals follow the new mode (ANSI: CASESPECIFIC), and so does a selective
/// consume's kept filter.
#[test]
fn a_prepared_request_binds_again_after_the_session_mode_changes() {
    let db = Database::new();
    let mut s = db.session();
    s.execute("CREATE MULTISET TABLE t (k INTEGER, s VARCHAR(5) NOT CASESPECIFIC)")
        .unwrap();
    s.execute("INS t (1, 'abc')").unwrap();
    s.execute(
        "CREATE TABLE q, QUEUE (qits TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6), \
         s VARCHAR(5) NOT CASESPECIFIC)",
    )
    .unwrap();
    s.execute("INS q (CURRENT_TIMESTAMP, 'abc')").unwrap();
    let count = s.prepare("SEL COUNT(*) FROM t WHERE s = 'ABC'").unwrap();
    let take = "SELECT AND CONSUME TOP 1 s FROM q WHERE s = 'ABC' NOWAIT";
    for _ in 0..2 {
        // Teradata mode: the literal is NOT CASESPECIFIC, the comparison case blind
        assert_eq!(
            strings(&s.execute_prepared(&count, &[]).unwrap()),
            vec![vec!["1"]]
        );
        assert_eq!(
            strings(&s.execute(&format!("BT; {take}")).unwrap())[0],
            vec!["abc"]
        );
        s.execute("ABORT").unwrap_err();
    }
    s.set_mode(tdlite::SessionMode::Ansi).unwrap();
    assert_eq!(
        strings(&s.execute_prepared(&count, &[]).unwrap()),
        vec![vec!["0"]]
    );
    assert!(
        strings(&s.execute(take).unwrap()).is_empty(),
        "the kept filter was rebound"
    );
    s.execute("ROLLBACK").unwrap();
}

#[test]
fn a_parameter_pushed_into_a_view_takes_each_executions_value() {
    // `SEL … FROM v WHERE k = ?` ANDs `k = ?` into the view's query (pushdown.rs): the
    // parameter must read each execution's value there, and EXPLAIN must show the pushed form
    let db = Database::new();
    let mut s = db.session();
    s.execute("CREATE TABLE t (k INTEGER NOT NULL, x INTEGER) UNIQUE PRIMARY INDEX (k)")
        .unwrap();
    s.execute("INS t (1, 10); INS t (2, 20); INS t (3, 30)")
        .unwrap();
    s.execute("CREATE VIEW v (kk, doubled) AS SELECT k, x * 2 FROM t")
        .unwrap();
    let q = s
        .prepare("SEL kk, doubled FROM v WHERE kk = ? AND doubled > ?")
        .unwrap();
    for (k, min, want) in [(2, 0, vec![vec!["2", "40"]]), (3, 0, vec![vec!["3", "60"]])] {
        let r = s
            .execute_prepared(&q, &[Value::Int(k), Value::Int(min)])
            .unwrap();
        assert_eq!(strings(&r), want);
    }
    let r = s
        .execute_prepared(&q, &[Value::Int(3), Value::Int(60)])
        .unwrap();
    assert!(strings(&r).is_empty());
    let r = s
        .execute_prepared(&q, &[Value::Int(4), Value::Int(0)])
        .unwrap();
    assert!(strings(&r).is_empty());
    let plan = strings(&s.execute("EXPLAIN SEL kk FROM v WHERE kk = 2").unwrap()).concat();
    assert!(
        plan.iter()
            .any(|l| l.contains("View v, made with kk = 2 inside"))
            && plan.iter().any(|l| l.contains("Unique index lookup")),
        "{plan:?}"
    );
}

/// In a join, a `?` compared with a view's column goes into the view's query (pushdown.rs)
/// only where its value's type cannot fail against the column: a number against VARCHAR
/// stays after the join, which drops the row it would fail on ('x'), and a run whose value
/// has another type than the kept plan's does not use that plan.
#[test]
fn a_parameter_goes_into_a_joined_view_only_where_it_cannot_fail() {
    let db = Database::new();
    let mut s = db.session();
    for sql in [
        "CREATE TABLE t (k INTEGER NOT NULL, s VARCHAR(5)) UNIQUE PRIMARY INDEX (k)",
        "INS t (1, '5')",
        "INS t (2, 'x')",
        "CREATE TABLE u (k INTEGER)",
        "INS u (1)",
        "CREATE VIEW v AS SELECT k, s FROM t",
    ] {
        s.execute(sql).unwrap();
    }
    let by_text = s
        .prepare("SEL v.k FROM v JOIN u ON v.k = u.k WHERE v.s = ?")
        .unwrap();
    let by_key = s
        .prepare("SEL v.s FROM v JOIN u ON v.k = u.k WHERE v.k = ?")
        .unwrap();
    for _ in 0..3 {
        let r = s.execute_prepared(&by_text, &[Value::Int(5)]).unwrap();
        assert_eq!(strings(&r), vec![vec!["1"]]);
        let r = s
            .execute_prepared(&by_text, &[Value::Str("5".into())])
            .unwrap();
        assert_eq!(strings(&r), vec![vec!["1"]]);
        let r = s.execute_prepared(&by_key, &[Value::Int(1)]).unwrap();
        assert_eq!(strings(&r), vec![vec!["5"]]);
        let r = s.execute_prepared(&by_key, &[Value::Int(2)]).unwrap();
        assert!(strings(&r).is_empty());
    }
    // the same request as text, with the number written in: the same rows
    let r = s
        .execute("SEL v.k FROM v JOIN u ON v.k = u.k WHERE v.s = 5")
        .unwrap();
    assert_eq!(strings(&r), vec![vec!["1"]]);
}

/// An operand's type error in WHERE is found before a row is read, at every execution of a
/// prepared request (its first, and those that run its kept plan), on a table with no row
/// and with rows alike; a parameter of a type that compares is no error.
#[test]
fn a_prepared_requests_type_error_comes_before_any_row_at_every_execution() {
    let db = Database::new();
    let mut s = db.session();
    s.execute("CREATE TABLE t (k INTEGER, b BYTE(2)) PRIMARY INDEX (k)")
        .unwrap();
    let bad = s.prepare("SEL k FROM t WHERE b = ? + 1").unwrap();
    let good = s.prepare("SEL k FROM t WHERE k = ?").unwrap();
    for round in 0..3 {
        if round == 2 {
            s.execute("INS t (1, '0102'XB)").unwrap();
        }
        for _ in 0..2 {
            let e = s.execute_prepared(&bad, &[Value::Int(1)]).unwrap_err();
            assert_eq!(e.code().number, 9913, "round {round}: {e}");
            let r = s.execute_prepared(&good, &[Value::Int(1)]).unwrap();
            let want: Vec<Vec<String>> = match round {
                2 => vec![vec!["1".into()]],
                _ => vec![],
            };
            assert_eq!(strings(&r), want, "round {round}");
        }
    }
}

/// A kept plan whose key is a constant expression of a parameter (`k = ? + 1`) probes with
/// each execution's value, not the first one's: SELECT, UPDATE and DELETE, several runs.
#[test]
fn a_key_computed_from_a_parameter_probes_with_each_runs_value() {
    let db = Database::new();
    let mut s = db.session();
    s.execute("CREATE TABLE t (k INTEGER NOT NULL, v INTEGER) UNIQUE PRIMARY INDEX (k)")
        .unwrap();
    s.execute(
        "INS t SEL day_of_calendar, 0 FROM sys_calendar.calendar WHERE day_of_calendar <= 20",
    )
    .unwrap();
    let sel = s.prepare("SEL k FROM t WHERE k = ? + 1").unwrap();
    let upd = s.prepare("UPD t SET v = v + 1 WHERE k = ? * 2").unwrap();
    let del = s.prepare("DEL FROM t WHERE k IN (? - 1, ? + 1)").unwrap();
    for p in [1_i64, 4, 9, 4, 30] {
        let got = strings(&s.execute_prepared(&sel, &[Value::Int(p)]).unwrap());
        let want: Vec<Vec<String>> = match p + 1 {
            k @ 1..=20 => vec![vec![k.to_string()]],
            _ => Vec::new(),
        };
        assert_eq!(got, want, "SEL with {p}");
        let r = s.execute_prepared(&upd, &[Value::Int(p)]).unwrap();
        assert_eq!(r[0].activity_count, u64::from(p * 2 <= 20), "UPD with {p}");
    }
    // k = 8 was updated twice (p = 4 twice), 2 and 18 once
    let updated = strings(&s.execute("SEL k, v FROM t WHERE v > 0 ORDER BY k").unwrap());
    assert_eq!(updated, [["2", "1"], ["8", "2"], ["18", "1"]]);
    let r = s
        .execute_prepared(&del, &[Value::Int(3), Value::Int(3)])
        .unwrap();
    assert_eq!(r[0].activity_count, 2);
    let r = s
        .execute_prepared(&del, &[Value::Int(10), Value::Int(15)])
        .unwrap();
    assert_eq!(r[0].activity_count, 2);
    let left = strings(
        &s.execute("SEL COUNT(*) FROM t WHERE k IN (2, 4, 9, 16)")
            .unwrap(),
    );
    assert_eq!(left, [["0"]]);
}

/// A kept MIN/MAX walk makes its key ranges once for the same inputs (access.rs
/// `KeptWalks`): a run with other values reads with those, and every run reads the rows the
/// table holds then.
#[test]
fn a_kept_min_max_walk_reads_with_each_runs_values_and_the_rows_of_the_time() {
    let db = Database::new();
    let mut s = db.session();
    s.execute("CREATE TABLE t (g INTEGER, k INTEGER, done INTEGER) PRIMARY INDEX (k)")
        .unwrap();
    s.execute("CREATE INDEX (g, done, k) ON t").unwrap();
    s.execute(
        "INS t SEL day_of_calendar MOD 3, day_of_calendar, 0 FROM sys_calendar.calendar \
         WHERE day_of_calendar <= 30",
    )
    .unwrap();
    // the inner MAX has no inputs; the outer MIN's input is the inner MAX's value
    let claim = s
        .prepare(
            "UPD t SET done = 1 WHERE k = (SEL MIN(k) FROM t z WHERE z.done = 0 AND z.g = \
             (SEL MAX(g) FROM t y WHERE y.done = 0))",
        )
        .unwrap();
    let by_group = s
        .prepare("SEL MAX(k) FROM t WHERE g = ? AND done = 0")
        .unwrap();
    let max_of = |s: &mut tdlite::Session, g: i64| {
        strings(&s.execute_prepared(&by_group, &[Value::Int(g)]).unwrap())
    };
    assert_eq!(max_of(&mut s, 1), [["28"]]);
    assert_eq!(max_of(&mut s, 1), [["28"]]);
    assert_eq!(max_of(&mut s, 0), [["30"]]);
    // claims take group 2's rows in order, then group 1's, then group 0's
    let mut claimed = Vec::new();
    for _ in 0..12 {
        let r = s.execute_prepared(&claim, &[]).unwrap();
        assert_eq!(r[0].activity_count, 1);
    }
    for r in strings(&s.execute("SEL k FROM t WHERE done = 1 ORDER BY k").unwrap()) {
        claimed.push(r[0].parse::<i64>().unwrap());
    }
    let mut want: Vec<i64> = (1..=30).filter(|k| k % 3 == 2).collect();
    want.extend([1, 4]);
    want.sort_unstable();
    assert_eq!(claimed, want);
    // the same inputs over other rows: a row inserted and one claimed since
    assert_eq!(max_of(&mut s, 1), [["28"]]);
    s.execute("INS t (1, 31, 0)").unwrap();
    assert_eq!(max_of(&mut s, 1), [["31"]]);
    s.execute("INS t (5, 32, 0)").unwrap();
    let r = s.execute_prepared(&claim, &[]).unwrap();
    assert_eq!(r[0].activity_count, 1);
    assert_eq!(
        strings(&s.execute("SEL done FROM t WHERE k = 32").unwrap()),
        [["1"]]
    );
    assert_eq!(max_of(&mut s, 2), [["?"]]);
}

/// A prepared UPDATE's or DELETE's target scope is made once per catalog version
/// (`Exec::target_with_scope`): its alias names its columns at every run, and a column added
/// since is found.
#[test]
fn a_prepared_change_keeps_its_targets_scope_until_the_table_changes() {
    let db = Database::new();
    let mut s = db.session();
    s.execute("CREATE TABLE t (k INTEGER NOT NULL, v INTEGER) UNIQUE PRIMARY INDEX (k)")
        .unwrap();
    s.execute("INS t SEL day_of_calendar, 0 FROM sys_calendar.calendar WHERE day_of_calendar <= 5")
        .unwrap();
    let upd = s
        .prepare("UPD t AS x SET v = x.v + 1 WHERE x.k <= ?")
        .unwrap();
    let del = s.prepare("DEL FROM t AS y WHERE y.k = ?").unwrap();
    for p in [2_i64, 3, 3] {
        let r = s.execute_prepared(&upd, &[Value::Int(p)]).unwrap();
        assert_eq!(r[0].activity_count, p as u64);
    }
    let r = s.execute_prepared(&del, &[Value::Int(1)]).unwrap();
    assert_eq!(r[0].activity_count, 1);
    assert_eq!(
        strings(&s.execute("SEL k, v FROM t ORDER BY k").unwrap()),
        [["2", "3"], ["3", "2"], ["4", "0"], ["5", "0"]]
    );
    // prepared (and run) before the column existed, it finds it after
    let set_w = s.prepare("UPD t AS x SET w = x.v WHERE x.k = ?").unwrap();
    let err = s.execute_prepared(&set_w, &[Value::Int(2)]).unwrap_err();
    assert_eq!(err.code().number, 3810, "{err}");
    s.execute("ALTER TABLE t ADD w INTEGER").unwrap();
    let r = s.execute_prepared(&set_w, &[Value::Int(2)]).unwrap();
    assert_eq!(r[0].activity_count, 1);
    let r = s.execute_prepared(&upd, &[Value::Int(9)]).unwrap();
    assert_eq!(r[0].activity_count, 4);
    assert_eq!(
        strings(&s.execute("SEL k, v, w FROM t ORDER BY k").unwrap()),
        [
            ["2", "4", "3"],
            ["3", "3", "?"],
            ["4", "1", "?"],
            ["5", "1", "?"]
        ]
    );
}

/// A prepared one-row upsert runs from the MERGE plan its request keeps from its second
/// execution on (two cache hits a run: the MERGE's plan and its source's block, `SEL ? AS
/// k, …`, kept as the one row it makes), with each run's values, and gives what the text
/// gives; the plan gives way to binding afresh where a value's type changes, and after the
/// target is dropped and made again.
#[test]
fn a_prepared_merge_runs_from_its_kept_plan_with_each_runs_values() {
    let db = Database::new();
    let mut s = db.session();
    let create = "CREATE TABLE t (k INTEGER NOT NULL, n INTEGER, f VARCHAR(5)) \
                  UNIQUE PRIMARY INDEX (k)";
    s.execute(create).unwrap();
    s.execute("INS t (1, 10, 'a')").unwrap();
    let upsert = s
        .prepare(
            "MERGE INTO t USING (SEL ? AS k, ? AS d) s ON t.k = s.k \
             WHEN MATCHED AND s.d > 0 THEN UPDATE SET n = t.n + s.d \
             WHEN NOT MATCHED THEN INSERT (k, n, f) VALUES (s.k, s.d, ?)",
        )
        .unwrap();
    let run = |s: &mut tdlite::Session, k: i64, d: Value| {
        let params = [Value::Int(k), d, Value::Str("new".into())];
        s.execute_prepared(&upsert, &params).unwrap()[0].activity_count
    };
    // inserted, updated, matched but not updated (the AND condition), inserted
    assert_eq!(run(&mut s, 2, Value::Int(5)), 1);
    assert_eq!(run(&mut s, 1, Value::Int(3)), 1);
    assert_eq!(run(&mut s, 2, Value::Int(-1)), 0);
    assert_eq!(run(&mut s, 3, Value::Int(7)), 1);
    assert_eq!(
        upsert.plan_cache_hits(),
        6,
        "runs 2 to 4 from the kept plan"
    );
    // a value of another type: bound afresh, the same result as the text's
    assert_eq!(run(&mut s, 3, Value::Decimal(25, 1)), 1);
    assert_eq!(upsert.plan_cache_hits(), 6);
    let rows = s.execute("SEL k, n, f FROM t ORDER BY k").unwrap();
    assert_eq!(
        strings(&rows),
        [["1", "13", "a"], ["2", "5", "new"], ["3", "9", "new"]]
    );
    // the table made again: the plan is not used with the old one
    s.execute("DROP TABLE t").unwrap();
    s.execute(create).unwrap();
    assert_eq!(run(&mut s, 1, Value::Int(4)), 1);
    assert_eq!(run(&mut s, 1, Value::Int(4)), 1);
    let rows = s.execute("SEL k, n, f FROM t").unwrap();
    assert_eq!(strings(&rows), [["1", "8", "new"]]);
}

/// A prepared MERGE with one source row reads the target rows ON pairs it with as a WHERE
/// with the row's values put in: a CASESPECIFIC source column stays so there, so `t.s =
/// s.cs` compares case by case as the join does (the same counts and rows as binding afresh).
#[test]
fn a_prepared_one_row_merge_compares_a_casespecific_source_column_case_by_case() {
    let (a, b) = (Database::new(), Database::new());
    let (mut kept, mut fresh) = (a.session(), b.session());
    fresh.set_plan_cache(false);
    let sql = "MERGE INTO t USING (SEL cs FROM src WHERE id = ?) s ON t.s = s.cs \
               WHEN MATCHED THEN UPDATE SET n = t.n + 1 \
               WHEN NOT MATCHED THEN INSERT (k, s, n) VALUES (9, s.cs, 0)";
    let mut counts = Vec::new();
    for s in [&mut kept, &mut fresh] {
        s.execute("CREATE TABLE t (k INTEGER, s VARCHAR(5), n INTEGER) PRIMARY INDEX (s)")
            .unwrap();
        s.execute("CREATE TABLE src (id INTEGER, cs VARCHAR(5) CASESPECIFIC)")
            .unwrap();
        s.execute("INS t (1, 'abc', 0)").unwrap();
        s.execute("INS src (1, 'ABC'); INS src (2, 'abc')").unwrap();
        let p = s.prepare(sql).unwrap();
        let mut run =
            |id: i64| s.execute_prepared(&p, &[Value::Int(id)]).unwrap()[0].activity_count;
        counts.push([run(2), run(1), run(2), run(1)]);
        let rows = s.execute("SEL k, s, n FROM t ORDER BY k").unwrap();
        assert_eq!(strings(&rows), [["1", "abc", "2"], ["9", "ABC", "1"]]);
        counts.push([p.plan_cache_hits(), 0, 0, 0]);
    }
    // 'abc' matches 'abc' only; 'ABC' matches nothing first (inserted), then its own row
    assert_eq!(counts[0], [1, 1, 1, 1]);
    assert_eq!(counts[0], counts[2]);
    assert_eq!(
        counts[1][0], 6,
        "runs 2 to 4 from the kept plan (MERGE and source)"
    );
    assert_eq!(counts[3][0], 0);
}

/// A prepared MERGE with one source row that pairs with many target rows is held to the
/// spool space as the join is (2646 both ways), though it builds its pairs without a join:
/// the pairs' size is the source row's, repeated, and the target rows' together (each side
/// alone fits).
#[test]
fn a_prepared_one_row_merge_is_held_to_the_spool_space_as_its_join_is() {
    let (a, b) = (Database::new(), Database::new());
    let (mut kept, mut fresh) = (a.session(), b.session());
    fresh.set_plan_cache(false);
    let sql = "MERGE INTO t USING (SEL ? AS g, ? AS f) s ON t.g = s.g \
               WHEN MATCHED THEN UPDATE SET n = t.n + 1, f = t.f";
    let mut results = Vec::new();
    for s in [&mut kept, &mut fresh] {
        s.execute(
            "CREATE TABLE t (k INTEGER, g INTEGER, n INTEGER, f VARCHAR(2000)) PRIMARY INDEX (g)",
        )
        .unwrap();
        let ins = s.prepare("INSERT INTO t VALUES (?, 1, 0, ?)").unwrap();
        for k in 0..400 {
            let f = Value::Str("t".repeat(1_500));
            s.execute_prepared(&ins, &[Value::Int(k), f]).unwrap();
        }
        // (400 pairs: 600,000 bytes of the source's value and as many of the targets')
        s.set_spool_space(1 << 20);
        let p = s.prepare(sql).unwrap();
        let big = Value::Str("s".repeat(1_500));
        let mut runs = Vec::new();
        for g in [2, 2, 1, 1] {
            let r = s.execute_prepared(&p, &[Value::Int(g), big.clone()]);
            runs.push(r.map(|r| r[0].activity_count).map_err(|e| e.code().number));
        }
        results.push(runs);
    }
    assert_eq!(results[0], [Ok(0), Ok(0), Err(2646), Err(2646)]);
    assert_eq!(results[0], results[1]);
}

/// A prepared joined UPDATE and DELETE (`UPDATE t FROM s …`, `DELETE t FROM t, s …`) run
/// from the plans they keep from their second execution, with each run's values: the rows
/// are the text's; a source table made again is bound afresh (the catalog changed).
#[test]
fn a_prepared_joined_update_and_delete_run_from_their_kept_plans() {
    let db = Database::new();
    let mut s = db.session();
    s.execute("CREATE TABLE t (k INTEGER, n INTEGER) UNIQUE PRIMARY INDEX (k)")
        .unwrap();
    s.execute("CREATE TABLE s (k INTEGER, d INTEGER) PRIMARY INDEX (k)")
        .unwrap();
    for k in 1..=4 {
        s.execute(&format!("INS t ({k}, 0); INS s ({k}, {k})"))
            .unwrap();
    }
    let update = s
        .prepare("UPDATE t FROM s SET n = t.n + s.d * ? WHERE t.k = s.k AND s.k <= ?")
        .unwrap();
    let run = |s: &mut tdlite::Session, p: &tdlite::Prepared, params: &[i64]| {
        let params: Vec<Value> = params.iter().map(|&v| Value::Int(v)).collect();
        s.execute_prepared(p, &params).unwrap()[0].activity_count
    };
    assert_eq!(run(&mut s, &update, &[1, 2]), 2);
    assert_eq!(run(&mut s, &update, &[10, 3]), 3);
    assert_eq!(run(&mut s, &update, &[100, 0]), 0);
    assert_eq!(run(&mut s, &update, &[100, 1]), 1);
    assert_eq!(
        update.plan_cache_hits(),
        3,
        "runs 2 to 4 from the kept plan"
    );
    let rows = s.execute("SEL k, n FROM t ORDER BY k").unwrap();
    assert_eq!(
        strings(&rows),
        [["1", "111"], ["2", "22"], ["3", "30"], ["4", "0"]]
    );
    let delete = s
        .prepare("DELETE t FROM t, s WHERE t.k = s.k AND s.d = ?")
        .unwrap();
    assert_eq!(run(&mut s, &delete, &[4]), 1);
    assert_eq!(run(&mut s, &delete, &[9]), 0);
    assert_eq!(run(&mut s, &delete, &[1]), 1);
    assert_eq!(
        delete.plan_cache_hits(),
        2,
        "runs 2 and 3 from the kept plan"
    );
    // the source made again (one row, k = 2, d = 7): bound afresh, then kept again
    s.execute("DROP TABLE s").unwrap();
    s.execute("CREATE TABLE s (k INTEGER, d INTEGER) PRIMARY INDEX (k)")
        .unwrap();
    s.execute("INS s (2, 7)").unwrap();
    assert_eq!(run(&mut s, &update, &[1, 5]), 1);
    assert_eq!(run(&mut s, &update, &[1, 5]), 1);
    assert_eq!(update.plan_cache_hits(), 4);
    let rows = s.execute("SEL k, n FROM t ORDER BY k").unwrap();
    assert_eq!(strings(&rows), [["2", "36"], ["3", "30"]]);
}

/// A prepared joined UPDATE whose SET value has a type error raises it as its text does,
/// before any value is computed (a division by zero in the value's first operand is not
/// met first): the kept plan checks the value's types over no row, as the general path does.
#[test]
fn a_prepared_joined_update_raises_a_set_values_type_error_before_its_values_errors() {
    let db = Database::new();
    let mut s = db.session();
    s.execute("CREATE TABLE t (k INTEGER, n INTEGER) PRIMARY INDEX (k)")
        .unwrap();
    s.execute("CREATE TABLE s (k INTEGER, ts TIMESTAMP(0)) PRIMARY INDEX (k)")
        .unwrap();
    s.execute("INS t (1, 0); INS s (1, TIMESTAMP '2026-01-01 00:00:00')")
        .unwrap();
    let sql = "UPDATE t FROM s SET n = s.k / ? + (s.ts + s.k) WHERE t.k = s.k";
    let text = s.execute(&sql.replace('?', "0")).unwrap_err().code().number;
    assert_ne!(text, 2618, "the type error, not the division's");
    let p = s.prepare(sql).unwrap();
    for _ in 0..3 {
        let err = s.execute_prepared(&p, &[Value::Int(0)]).unwrap_err();
        assert_eq!(err.code().number, text);
    }
}

/// A prepared MERGE whose source is named as its target is 3868 at every execution, as its
/// text is (the kept plan checks the FROM's names as the general path does).
#[test]
fn a_prepared_merge_with_a_source_named_as_its_target_is_3868() {
    let db = Database::new();
    let mut s = db.session();
    s.execute("CREATE TABLE t1 (k INTEGER, a INTEGER) PRIMARY INDEX (k)")
        .unwrap();
    let sql = "MERGE INTO t1 USING (SEL ? AS k2, ? AS a2) AS t1 ON k = k2 \
               WHEN MATCHED THEN UPDATE SET a = a2 \
               WHEN NOT MATCHED THEN INSERT (k, a) VALUES (k2, a2)";
    let text = sql.replace('?', "1");
    let err = s.execute(&text).unwrap_err();
    assert_eq!(err.code().number, 3868);
    let p = s.prepare(sql).unwrap();
    for _ in 0..3 {
        let err = s
            .execute_prepared(&p, &[Value::Int(1), Value::Int(2)])
            .unwrap_err();
        assert_eq!(err.code().number, 3868);
    }
    let rows = s.execute("SEL COUNT(*) FROM t1").unwrap();
    assert_eq!(strings(&rows), [["0"]]);
}

/// A prepared atomic upsert compares the values its `?` markers get at each run: the
/// INSERT's key must be the WHERE's (upsert_rules.rs, 5562 otherwise), run by run.
#[test]
fn a_prepared_upsert_checks_each_runs_key_values() {
    let db = Database::new();
    let mut s = db.session();
    s.execute("CREATE TABLE t (k INTEGER, n INTEGER) UNIQUE PRIMARY INDEX (k)")
        .unwrap();
    let p = s
        .prepare("UPDATE t SET n = n + ? WHERE k = ? ELSE INSERT INTO t VALUES (?, ?)")
        .unwrap();
    let mut run = |amount: i64, key: i64, inserted: i64| {
        let params = [amount, key, inserted, amount].map(Value::Int);
        (s.execute_prepared(&p, &params))
            .map(|r| r[0].activity_count)
            .map_err(|e| e.code().number)
    };
    assert_eq!(run(5, 1, 1), Ok(1));
    assert_eq!(run(2, 1, 1), Ok(1));
    assert_eq!(run(3, 2, 7), Err(5562));
    assert_eq!(run(3, 2, 2), Ok(1));
    let rows = s.execute("SEL k, n FROM t ORDER BY k").unwrap();
    assert_eq!(strings(&rows), [["1", "7"], ["2", "3"]]);
}

/// A prepared MERGE against Teradata's rules (merge_rules.rs) is refused at every
/// execution, as its text is: its plan is never kept, so no run skips the check. The same
/// MERGE made valid runs from a kept plan.
#[test]
fn a_prepared_merge_against_the_primary_index_rules_is_refused_at_every_run() {
    let db = Database::new();
    let mut s = db.session();
    s.execute("CREATE TABLE t (k INTEGER, a INTEGER) PRIMARY INDEX (k)")
        .unwrap();
    s.execute("INS t (1, 10)").unwrap();
    let cases = [
        // ON does not equate the primary index with the source
        (
            "ON t.a = s.a WHEN MATCHED THEN UPDATE SET a = s.a + 1",
            5758,
        ),
        // INSERT gives the primary index another value than ON
        (
            "ON t.k = s.k WHEN NOT MATCHED THEN INSERT VALUES (s.k + 1, s.a)",
            5758,
        ),
        // an UPDATE of the primary index
        (
            "ON t.k = s.k WHEN MATCHED THEN UPDATE SET k = s.k + 1",
            5977,
        ),
    ];
    for (rest, code) in cases {
        let sql = format!("MERGE INTO t USING (SEL k + ? AS k, a FROM t) s {rest}");
        let text = sql.replace('?', "0");
        assert_eq!(s.execute(&text).unwrap_err().code().number, code, "{text}");
        let p = s.prepare(&sql).unwrap();
        for _ in 0..3 {
            let err = s.execute_prepared(&p, &[Value::Int(0)]).unwrap_err();
            assert_eq!(err.code().number, code, "{sql}");
        }
    }
    let rows = s.execute("SEL k, a FROM t").unwrap();
    assert_eq!(strings(&rows), [["1", "10"]]);
    let p = s
        .prepare(
            "MERGE INTO t USING (SEL k + ? AS k, a FROM t) s ON t.k = s.k \
             WHEN MATCHED THEN UPDATE SET a = s.a + 1",
        )
        .unwrap();
    for _ in 0..3 {
        let r = s.execute_prepared(&p, &[Value::Int(0)]).unwrap();
        assert_eq!(r[0].activity_count, 1);
    }
    assert!(
        p.plan_cache_hits() > 0,
        "the valid MERGE runs from its kept plan"
    );
    let rows = s.execute("SEL k, a FROM t").unwrap();
    assert_eq!(strings(&rows), [["1", "13"]]);
}

/// A prepared query first run with a NULL parameter (or one of another type than later
/// runs) still runs from a kept plan once its runs have parameters of one type: a run whose
/// parameters' types a block's plan does not take (a `?` of the block's own) binds the
/// block again and keeps that plan in the old one's place (before, the first run's plan
/// stayed, and every later run took the general path). The rows are the text's either way.
/// (A `?` only inside a scalar subquery whose plan its block holds is not bound again:
/// that subquery runs as a query then.)
#[test]
fn a_prepared_query_first_run_with_null_is_kept_for_later_runs() {
    let db = Database::new();
    let mut s = db.session();
    s.execute("CREATE TABLE t (k INTEGER, a INTEGER) PRIMARY INDEX (k)")
        .unwrap();
    s.execute("INS t (1, 10)").unwrap();
    s.execute("INS t (2, 20)").unwrap();
    for sql in [
        "SEL a FROM t WHERE k = ?",
        "SEL t.a FROM t JOIN t u ON t.k = u.k WHERE u.k = ?",
        "SEL ? + 1",
    ] {
        let p = s.prepare(sql).unwrap();
        let text =
            |s: &mut tdlite::Session, v: &str| strings(&s.execute(&sql.replace('?', v)).unwrap());
        let null = text(&mut s, "NULL");
        assert_eq!(
            strings(&s.execute_prepared(&p, &[Value::Null]).unwrap()),
            null
        );
        let two = text(&mut s, "2");
        for _ in 0..4 {
            let r = s.execute_prepared(&p, &[Value::Int(2)]).unwrap();
            assert_eq!(strings(&r), two, "{sql}");
        }
        // (bound again at the first run with an integer, then three runs from its plan)
        assert_eq!(p.plan_cache_hits(), 3, "{sql}");
        // and back: a NULL again is bound again too, the rows the text's
        let r = s.execute_prepared(&p, &[Value::Null]).unwrap();
        assert_eq!(strings(&r), null, "{sql}");
    }
}

#[test]
fn a_prepared_query_with_ctes_gives_each_runs_rows_whether_a_cte_is_put_in_or_made_first() {
    let db = Database::new();
    let mut s = db.session();
    s.execute("CREATE TABLE t (k INTEGER NOT NULL, v VARCHAR(10)) UNIQUE PRIMARY INDEX (k)")
        .unwrap();
    s.execute(
        "INS t SEL day_of_calendar, 'v' || TRIM(day_of_calendar) FROM Sys_Calendar.Calendar \
         WHERE day_of_calendar <= 300",
    )
    .unwrap();
    // named once (put in as a derived table when the request is parsed, the run's key pushed
    // into it, cte_inline.rs), and named twice (made first, the request's own CTE)
    let once = s
        .prepare("WITH x AS (SEL k, v FROM t) SEL v FROM x WHERE k = ?")
        .unwrap();
    let twice = s
        .prepare(
            "WITH x AS (SEL k, v FROM t WHERE k > ?) \
             SEL COUNT(*) FROM x a, x b WHERE a.k = b.k",
        )
        .unwrap();
    for k in [5, 17, 300, 301, 5] {
        let r = s.execute_prepared(&once, &[Value::Int(k)]).unwrap();
        let expected: Vec<Vec<String>> = if k <= 300 {
            vec![vec![format!("v{k}")]]
        } else {
            vec![]
        };
        assert_eq!(strings(&r), expected, "k = {k}");
        let r = s.execute_prepared(&twice, &[Value::Int(k)]).unwrap();
        assert_eq!(
            strings(&r),
            vec![vec![(300 - k.min(300)).to_string()]],
            "k > {k}"
        );
    }
    // the CTE made first is the request's own (not a copy made at each run): its block's
    // plan is kept at the first run and used at the other four
    assert_eq!(twice.plan_cache_hits(), 4);
}
