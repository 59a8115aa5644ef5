//! Bad and unusual input never panics: every statement of the public Teradata corpus and of
//! SQLite's sqllogictest corpus (both kept in the repository, `tests/corpora/`) goes through a
//! session, and each one either runs or fails with a numbered error; the session keeps working
//! afterwards.

use std::path::PathBuf;
use tdlite::Database;

/// The repository's corpora folder (`tests/corpora`).
fn corpora() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpora")
}

fn assert_session_alive(s: &mut tdlite::Session) {
    let r = s
        .execute("SEL 1 AS still_alive")
        .expect("the session still works");
    assert_eq!(r[0].activity_count, 1);
}

#[test]
fn every_teradata_corpus_statement_runs_or_fails_with_a_code() {
    let root = corpora();
    let db = Database::new();
    let mut s = db.session();
    let mut seen = 0;
    for file in ["sqlglot_teradata.sql", "sqlglot_teradata_expressions.sql"] {
        let text = std::fs::read_to_string(root.join("teradata").join(file)).expect("corpus file");
        for block in text.split("\n\n") {
            let body: String = block
                .lines()
                .filter(|l| !l.starts_with("--"))
                .collect::<Vec<_>>()
                .join("\n");
            let body = body.trim();
            if body.is_empty() {
                continue;
            }
            let sql = if file.contains("expressions") {
                format!("SELECT {}", body.trim_end_matches(';'))
            } else {
                body.to_string()
            };
            if let Err(e) = s.execute(&sql) {
                let code = e.code().number;
                assert!((2000..10000).contains(&code), "{sql}: code {code}");
                assert_ne!(code, 9999, "internal error on {sql}: {e}");
            }
            seen += 1;
        }
    }
    // all of them: tdlite-parser's teradata_corpus test pins the same count
    assert_eq!(seen, 93, "the Teradata corpus changed size");
    assert_session_alive(&mut s);
}

#[test]
fn sqllogictest_corpus_statements_never_panic() {
    let root = corpora();
    let db = Database::new();
    let mut s = db.session();
    let mut seen = 0;
    {
        let path = root.join("sqllogictest/test/select1.test");
        let text = std::fs::read_to_string(&path).expect("test file");
        for record in text.split("\n\n") {
            let mut lines = record
                .lines()
                .skip_while(|l| l.starts_with('#') || l.trim().is_empty());
            let Some(head) = lines.next() else { continue };
            if !(head.starts_with("statement") || head.starts_with("query")) {
                continue;
            }
            let sql: Vec<&str> = lines.take_while(|l| *l != "----").collect();
            if let Err(e) = s.execute(&sql.join("\n")) {
                assert_ne!(
                    e.code().number,
                    9999,
                    "internal error on {}: {e}",
                    sql.join(" ")
                );
            }
            seen += 1;
        }
    }
    assert!(seen > 100, "read only {seen} records");
    assert_session_alive(&mut s);
}

#[test]
fn hostile_inputs_get_errors() {
    let db = Database::new();
    let mut s = db.session();
    let deep = format!("SEL {}1{}", "(".repeat(5000), ")".repeat(5000));
    let huge = format!("SEL '{}'", "x".repeat(1 << 20));
    let long_number = format!("SEL {}", "9".repeat(500));
    for sql in [
        deep.as_str(),
        long_number.as_str(),
        "SEL 'unterminated",
        "/* open comment",
        "SEL \u{0}",
        ";;;",
        "SELECT AND CONSUME",
        "BT; BT; ET; ET; ET",
    ] {
        if let Err(e) = s.execute(sql) {
            assert_ne!(e.code().number, 9999, "{sql}");
        }
    }
    assert_eq!(
        s.execute(&huge).expect("a 1 MiB literal is fine")[0].activity_count,
        1
    );
    assert_session_alive(&mut s);
}

#[test]
fn database_and_session_can_move_between_threads() {
    fn send_sync<T: Send + Sync>() {}
    fn send<T: Send>() {}
    send_sync::<Database>();
    send::<tdlite::Session>();
    send_sync::<tdlite::CancelHandle>();
}

/// Random token soup from a SQL-ish vocabulary: every request either runs or fails with a
/// numbered error, never a panic or an internal error. Deterministic (fixed seeds), so a
/// failure names the request that caused it.
#[test]
fn random_token_soup_never_panics() {
    const WORDS: &[&str] = &[
        "SELECT",
        "SEL",
        "AND",
        "CONSUME",
        "TOP",
        "1",
        "2",
        "*",
        "FROM",
        "q",
        "t",
        "WHERE",
        "n",
        "=",
        "(",
        ")",
        ",",
        ";",
        "INSERT",
        "INS",
        "INTO",
        "VALUES",
        "UPDATE",
        "SET",
        "DELETE",
        "DEL",
        "ALL",
        "BT",
        "ET",
        "ABORT",
        "CREATE",
        "TABLE",
        "QUEUE",
        "qits",
        "TIMESTAMP(6)",
        "NOT",
        "NULL",
        "DEFAULT",
        "CURRENT_TIMESTAMP",
        "INTEGER",
        "VARCHAR(5)",
        "'a'",
        "''",
        "1.5",
        "-",
        "+",
        "/",
        "MOD",
        "||",
        "CASE",
        "WHEN",
        "THEN",
        "ELSE",
        "END",
        "GROUP",
        "BY",
        "ORDER",
        "HAVING",
        "COUNT(*)",
        "MIN(n)",
        "MAX",
        "CAST",
        "AS",
        "DATE",
        "'2024-01-01'",
        "INTERVAL",
        "'1'",
        "DAY",
        "LOCKING",
        "ROW",
        "FOR",
        "ACCESS",
        "EQ",
        "NE",
        "^=",
        "IS",
        "IN",
        "BETWEEN",
        "LIKE",
        "DISTINCT",
        "UNION",
        "DROP",
        "HELP",
        "SHOW",
        "PRIMARY",
        "INDEX",
        "UNIQUE",
        "CHECK",
        "'%'",
        "0",
        "99999999999999999999",
    ];
    let db = Database::new();
    let mut s = db.session();
    s.set_consume_timeout(Some(std::time::Duration::ZERO));
    s.execute("CREATE TABLE q, QUEUE (qits TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6), n INTEGER)").unwrap();
    s.execute("CREATE TABLE t (n INTEGER, v VARCHAR(5))")
        .unwrap();
    s.execute("INS q (CURRENT_TIMESTAMP, 1); INS t (1, 'a');")
        .unwrap();
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let (mut ran, mut failed) = (0, 0);
    for _ in 0..20_000 {
        let len = 1 + (next() % 14) as usize;
        let sql: Vec<&str> = (0..len)
            .map(|_| WORDS[(next() % WORDS.len() as u64) as usize])
            .collect();
        let sql = sql.join(" ");
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| s.execute(&sql)));
        match outcome {
            Ok(Ok(_)) => ran += 1,
            Ok(Err(e)) => {
                failed += 1;
                assert_ne!(e.code().number, 9999, "internal error for {sql:?}: {e}")
            }
            Err(_) => panic!("panic for {sql:?}"),
        }
    }
    println!("{ran} requests ran, {failed} failed with a numbered error");
    assert_eq!(ran + failed, 20_000);
    // whatever the soup did, the session still works
    s.execute("ABORT").ok();
    assert_session_alive(&mut s);
}

/// A WHERE clause of 2,000 ORed conditions (as generated queries have) runs on a thread with
/// the default 2 MiB stack: AND/OR chains are bound as balanced trees, not 2,000 levels deep.
#[test]
fn a_long_or_chain_does_not_exhaust_a_threads_stack() {
    let handle = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(|| {
            let db = tdlite::Database::new();
            let mut s = db.session();
            s.execute("CREATE TABLE t (a INTEGER)").unwrap();
            s.execute("INS t (5); INS t (1999); INS t (4000);").unwrap();
            let cond: Vec<String> = (0..2000).map(|i| format!("a = {i}")).collect();
            let sql = format!("SEL COUNT(*) FROM t WHERE {}", cond.join(" OR "));
            let r = s.execute(&sql).unwrap();
            r[0].rows.as_ref().unwrap().to_strings()
        })
        .unwrap();
    assert_eq!(handle.join().unwrap(), vec![vec!["2".to_string()]]);
}

#[test]
fn a_missing_column_or_table_is_located_at_its_name() {
    let db = tdlite::Database::new();
    let mut s = db.session();
    s.execute("CREATE TABLE t (a INTEGER)").unwrap();
    let at = |s: &mut tdlite::Session, sql: &str| {
        let e = s.execute(sql).unwrap_err();
        (e.code().number, e.location.map(|l| (l.line, l.column)))
    };
    assert_eq!(at(&mut s, "SELECT a,\n  nope FROM t"), (3810, Some((2, 3))));
    assert_eq!(at(&mut s, "SELECT t.nope\nFROM t"), (3810, Some((1, 8))));
    assert_eq!(
        at(&mut s, "SELECT a FROM t;\nSELECT a FROM\n    missing"),
        (3807, Some((3, 5)))
    );
    // in a subquery of the second statement
    assert_eq!(
        at(
            &mut s,
            "SELECT 1;\n SELECT * FROM t WHERE a IN (SELECT b FROM t)"
        ),
        (3810, Some((2, 37)))
    );
    // the first in the text, though the CTE's query is put after the select list
    assert_eq!(
        at(&mut s, "WITH x AS (SELECT nope FROM t)\nSELECT nope FROM x"),
        (3810, Some((1, 19)))
    );
}
