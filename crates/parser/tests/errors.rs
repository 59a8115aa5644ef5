//! Error positions, marked in the SQL itself (the style of datafusion's
//! `datafusion/sql/tests/cases/diagnostic.rs`).
//!
//! Each case writes `/*a*/` immediately before the token the error must point at. The test strips
//! the marker, parses the request, and checks that the error's 1-based line and column are the
//! marker's, and that the error has the expected Teradata (or tdlite) code. Positions are
//! request-relative, as `ParseError::location` is.

use tdlite_parser::{parse_request, Location, ParseError};

const MARKER: &str = "/*a*/";

/// Removes the marker and returns the text with the 1-based position where the marker stood.
fn strip_marker(tagged: &str) -> (String, Location) {
    let at = tagged
        .find(MARKER)
        .unwrap_or_else(|| panic!("test SQL has no {MARKER} marker: {tagged}"));
    let before = &tagged[..at];
    let line = before.matches('\n').count() as u64 + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() as u64 + 1;
    let sql = tagged.replace(MARKER, "");
    (sql, Location::new(line, column))
}

/// Parses `tagged` (with its marker removed) and returns the error and the marked position.
#[track_caller]
fn error_at(tagged: &str) -> (ParseError, Location) {
    let (sql, expected) = strip_marker(tagged);
    match parse_request(&sql) {
        Ok(stmts) => panic!(
            "expected an error for {sql:?}, parsed {} statement(s)",
            stmts.len()
        ),
        Err(e) => (e, expected),
    }
}

/// Checks an error in the first (or only) statement of a request.
#[track_caller]
fn check(code: u32, tagged: &str) {
    check_in(code, 1, tagged);
}

/// Checks an error's code, its position, and the 1-based statement it says it is in.
#[track_caller]
fn check_in(code: u32, statement: usize, tagged: &str) {
    let (err, expected) = error_at(tagged);
    assert_eq!(
        (err.code(), err.location, err.statement),
        (code, expected, statement),
        "\nSQL: {tagged}\nerror: {err}"
    );
}

#[test]
fn marker_position_is_one_based_line_and_column() {
    assert_eq!(strip_marker("/*a*/x").1, Location::new(1, 1));
    assert_eq!(strip_marker("ab\ncd /*a*/x").1, Location::new(2, 4));
    assert_eq!(strip_marker("ab\ncd /*a*/x").0, "ab\ncd x");
}

#[test]
fn unknown_statement_word() {
    check(3706, "/*a*/SELEC * FROM t");
}

#[test]
fn unexpected_token_inside_an_expression() {
    check(3706, "SELECT (1 + 2 /*a*/FROM t");
    check(3706, "SELECT a,/*a*/, b FROM t");
}

#[test]
fn trailing_token_after_a_complete_statement() {
    check(3706, "SELECT * FROM t t2 /*a*/t3");
    check(3706, "BT /*a*/WORK");
}

#[test]
fn multi_line_request_points_at_the_right_line() {
    check(3706, "SELECT *\nFROM t\nWHERE a = /*a*/= 1");
    check(
        3706,
        "CREATE TABLE t (\n  a INTEGER,\n  b /*a*/WIDGET,\n  c INTEGER\n) PRIMARY INDEX (a)",
    );
    check_in(
        3706,
        2,
        "INS log (1);\nSELECT AND CONSUME TOP 1 *\n  FROM q\n  /*a*/ORDER BY qits",
    );
}

#[test]
fn second_statement_of_a_request() {
    check_in(3706, 2, "SEL 1; SEL a b /*a*/c FROM t");
    check_in(3706, 3, "SEL 1;\n;\nSEL 2; SEL 'a' b /*a*/c FROM t");
}

#[test]
fn unterminated_string_points_at_its_quote() {
    check(3706, "SEL 1,\n  /*a*/'abc FROM t");
    // the tokenizer fails before statements are parsed; the number still counts the `;`s
    check_in(3706, 3, "SEL 1; SEL 2;\nSEL 3, /*a*/'abc FROM t");
}

#[test]
fn consume_where_clause() {
    // a selective consume's condition (a tdlite extension; strict mode refuses it: strict.rs)
    // reads the queue's row alone, and comes before the wait clause
    check(
        3706,
        "SELECT AND CONSUME TOP 1 * FROM q WHERE /*a*/n IN (SELECT n FROM t)",
    );
    check(
        3706,
        "SELECT AND CONSUME TOP 1 * FROM q WHERE /*a*/MAX(n) > 1",
    );
    check(
        3706,
        "SELECT AND CONSUME TOP 1 * FROM q NOWAIT /*a*/WHERE n = 1",
    );
    check(
        3706,
        "SELECT AND CONSUME TOP 1 * FROM q WHERE n = 1 /*a*/ORDER BY n",
    );
}

#[test]
fn consume_top_other_than_one() {
    check(3706, "SELECT AND CONSUME TOP /*a*/0 * FROM q");
    check(3706, "SELECT AND CONSUME TOP /*a*/2147483648 * FROM q");
    check(3706, "SELECT AND CONSUME TOP 1 /*a*/PERCENT * FROM q");
    check(3706, "SELECT AND CONSUME TOP 1 /*a*/WITH TIES * FROM q");
    check(3706, "SELECT AND CONSUME /*a*/* FROM q");
}

#[test]
fn consume_join() {
    check(3706, "SELECT AND CONSUME TOP 1 * FROM q/*a*/, t");
    check(
        3706,
        "SELECT AND CONSUME TOP 1 * FROM q /*a*/JOIN t ON q.a = t.a",
    );
}

#[test]
fn consume_aggregate_and_distinct() {
    check(3706, "SELECT AND CONSUME TOP 1 /*a*/COUNT(*) FROM q");
    check(3706, "SELECT AND CONSUME TOP 1 /*a*/DISTINCT a FROM q");
    check(3706, "SELECT AND CONSUME TOP 1 a FROM q /*a*/GROUP BY a");
}

#[test]
fn consume_nested_in_subquery_or_set_operation() {
    check(
        3706,
        "SELECT * FROM t WHERE a IN (/*a*/SELECT AND CONSUME TOP 1 a FROM q)",
    );
    check(
        3706,
        "SELECT a FROM t UNION /*a*/SELECT AND CONSUME TOP 1 a FROM q",
    );
    check(
        3706,
        "SELECT AND CONSUME TOP 1 a FROM q /*a*/UNION SELECT a FROM t",
    );
}

#[test]
fn two_consumes_point_at_the_second() {
    check_in(
        9902,
        2,
        "SEL AND CONSUME TOP 1 * FROM q;\n/*a*/SEL AND CONSUME TOP 1 * FROM r;",
    );
}

#[test]
fn ddl_not_last_points_at_the_next_statement() {
    check_in(3932, 2, "CREATE TABLE t (a INTEGER); /*a*/INS t (1);");
    check_in(3932, 3, "BT;\nDROP TABLE t;\n/*a*/SEL 1;\nET;");
    check_in(3932, 4, "BT; DROP TABLE t; ET; /*a*/SEL 1;");
}

#[test]
fn create_table_errors() {
    check(
        3706,
        "CREATE TABLE t (a INTEGER, b INTEGER) PRIMARY INDEX (a) /*a*/PRIMARY INDEX (b)",
    );
    check(3706, "CREATE TABLE t (a /*a*/DECIMAL(39, 2))");
    check(3706, "CREATE TABLE t (a INTEGER /*a*/BOGUS)");
    check(
        3706,
        "CREATE VOLATILE /*a*/GLOBAL TEMPORARY TABLE t (a INTEGER)",
    );
    check(3706, "CREATE GLOBAL TEMPORARY TABLE t AS u WITH /*a*/DATA");
    check(9910, "SEL d, s FROM e /*a*/WITH SUM(s) BY d");
    check(3706, "CREATE TABLE t (a INTEGER) PARTITION BY /*a*/;");
    check(9910, "CREATE TABLE t (a TIME(6) /*a*/WITH TIME ZONE)");
}

#[test]
fn locking_errors() {
    check(3706, "LOCKING TABLE t FOR /*a*/BOGUS SEL * FROM t");
    check(3706, "LOCKING TABLE t /*a*/BOGUS SEL * FROM t");
}

#[test]
fn empty_request() {
    check(9909, "/*a*/;");
}

#[test]
fn errors_at_the_end_of_a_statement_point_at_its_end() {
    check(3706, "SELECT * FROM/*a*/;");
    check(3706, "SELECT * FROM t WHERE/*a*/;");
    check_in(3706, 2, "SEL 1; SEL * FROM/*a*/");
    check(3706, "LOCKING TABLE t FOR ACCESS SEL * FROM/*a*/;");
}

#[test]
fn attempt_options_given_twice_or_out_of_range() {
    check(
        3706,
        "CREATE TABLE q, QUEUE, ATTEMPTS (a), /*a*/ATTEMPTS (b) (qits TIMESTAMP(6), a INTEGER)",
    );
    check(
        3706,
        "CREATE TABLE q, QUEUE, /*a*/MAX ATTEMPTS 0 (qits TIMESTAMP(6), a INTEGER)",
    );
    check(
        3706,
        "CREATE TABLE q, QUEUE, MAX ATTEMPTS /*a*/'3' (qits TIMESTAMP(6), a INTEGER)",
    );
    check(
        3706,
        "CREATE TABLE q, QUEUE, DEAD LETTER /*a*/INTO d (qits TIMESTAMP(6), a INTEGER)",
    );
    check(
        3706,
        "CREATE TABLE q, QUEUE, EXPIRE AFTER 3 /*a*/WEEKS (qits TIMESTAMP(6), a INTEGER)",
    );
    check(
        3706,
        "CREATE TABLE q, QUEUE, /*a*/EXPIRE AFTER 0 SECONDS (qits TIMESTAMP(6), a INTEGER)",
    );
    check(
        3706,
        "CREATE TABLE q, QUEUE, /*a*/EXPIRE AFTER 40000 DAYS (qits TIMESTAMP(6), a INTEGER)",
    );
}

#[test]
fn lease_clause_and_statements() {
    check(
        3706,
        "SELECT AND CONSUME TOP 1 * FROM q LEASE 30 /*a*/WEEKS",
    );
    check(3706, "SELECT AND CONSUME TOP 1 * FROM q /*a*/LEASE 2 DAYS");
    check(
        3706,
        "SELECT AND CONSUME TOP 1 * FROM q /*a*/LEASE 0 SECONDS",
    );
    check(
        3706,
        "SELECT AND CONSUME TOP 1 * FROM q NOWAIT /*a*/LEASE 5 SECONDS",
    );
    check(
        3706,
        "INSERT INTO t SELECT AND CONSUME TOP 1 * FROM q /*a*/LEASE 5 SECONDS",
    );
    check(3706, "ACKNOWLEDGE q LEASE /*a*/x");
    check(3706, "RELEASE q LEASE 1 /*a*/2");
}

#[test]
fn subscriber_clause_and_statements() {
    check(
        3706,
        "SELECT AND CONSUME TOP 1 * FROM q FOR SUBSCRIBER /*a*/7",
    );
    check(3706, "SELECT AND CONSUME TOP 1 * FROM q /*a*/FOR UPDATE");
    check(
        3706,
        "SELECT AND CONSUME TOP 1 * FROM q WHERE n = 1 /*a*/FOR SUBSCRIBER a",
    );
    check(3706, "CREATE SUBSCRIBER a /*a*/q");
    check(3706, "DROP SUBSCRIBER a ON q /*a*/CASCADE");
    check(
        3706,
        "CREATE TABLE q, QUEUE, SUBSCRIBERS (/*a*/) (qits TIMESTAMP(6))",
    );
    check(
        3706,
        "CREATE TABLE q, QUEUE, SUBSCRIBERS (a), /*a*/SUBSCRIBERS (b) (qits TIMESTAMP(6))",
    );
}
