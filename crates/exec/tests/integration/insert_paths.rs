//! The one-row INSERT path (values straight to storage) against the batch path (Arrow
//! conversion of whole columns): for every column type and a spread of parameter values,
//! in both session modes, the same value is stored or the same error is raised.

use tdlite::{Database, Period, PeriodKind, Session, SessionMode, Value};

/// Column types, with the attributes that change what is stored.
const TYPES: &[&str] = &[
    "BYTEINT",
    "SMALLINT",
    "INTEGER",
    "BIGINT",
    "DECIMAL(9,2)",
    "DECIMAL(5,0)",
    "DECIMAL(38,4)",
    "FLOAT",
    "CHAR(5)",
    "CHAR(5) UPPERCASE",
    "VARCHAR(5)",
    "VARCHAR(5) UPPERCASE",
    "DATE",
    "TIME(0)",
    "TIME(6)",
    "TIMESTAMP(6)",
    "TIMESTAMP(2)",
    "VARBYTE(4)",
    "PERIOD(DATE)",
    "PERIOD(TIMESTAMP(2))",
    "INTEGER NOT NULL",
];

fn values() -> Vec<Value> {
    let s = |t: &str| Value::Str(t.to_string());
    vec![
        Value::Null,
        Value::Int(0),
        Value::Int(127),
        Value::Int(128),
        Value::Int(-129),
        Value::Int(40_000),
        Value::Int(3_000_000_000),
        Value::Int(i64::MIN),
        Value::Decimal(12_345, 2),
        Value::Decimal(-5, 0),
        Value::Decimal(123_456_789_012, 2),
        Value::Decimal(15, 1),
        Value::Decimal(99_999, 0),
        Value::Decimal(100_000, 0),
        Value::Decimal(-12_345_678_901, 3),
        Value::Float(1.5),
        Value::Float(-0.0),
        Value::Float(f64::NAN),
        Value::Float(f64::INFINITY),
        Value::Float(1e300),
        s(""),
        s("ab"),
        s("abcde"),
        s("abcdef"),
        s("  12 "),
        s("héllo"),
        s("héllos"),
        s("2020-01-02"),
        s("12:34:56"),
        s("2020-01-02 03:04:05.123456"),
        Value::Bytes(vec![1, 2]),
        Value::Bytes(vec![1, 2, 3, 4, 5]),
        Value::Date(0),
        Value::Date(-1),
        Value::Time(3_723_000_001),
        Value::Timestamp(1_600_000_000_123_456),
        Value::Timestamp(-1),
        s("(2020-01-02, 2020-02-03)"),
        s("('2020-01-02 03:04:05.123456', '2020-01-03 00:00:00')"),
        s("(2020-02-03, 2020-01-02)"),
        Value::Period(Period {
            kind: PeriodKind::Date,
            begin: 18_000,
            end: 18_001,
        }),
        Value::Period(Period {
            kind: PeriodKind::Timestamp,
            begin: 1_600_000_000_123_456,
            end: 1_600_000_001_000_000,
        }),
        Value::Period(Period {
            kind: PeriodKind::Date,
            begin: 18_001,
            end: 18_000,
        }),
    ]
}

/// What a statement did: the value stored (as text) or the error number.
fn outcome(s: &mut Session, r: Result<(), u32>, table: &str, k: usize) -> Result<String, u32> {
    r?;
    let out = s
        .execute(&format!("SELECT v FROM {table} WHERE k = {k}"))
        .map_err(|e| e.code().number)?;
    let rows = out[0]
        .rows
        .as_ref()
        .map(|r| r.to_strings())
        .unwrap_or_default();
    Ok(format!("{rows:?}"))
}

/// Ends an ANSI-mode transaction (a Teradata-mode request has committed already).
fn settle(s: &mut Session, mode: SessionMode) {
    if mode == SessionMode::Ansi {
        s.execute("COMMIT").expect("commit");
    }
}

/// Tables `r{t}` (for the one-row path) and `b{t}` (for the batch path) of `(k, v ty)`.
fn create_pair(s: &mut Session, mode: SessionMode, t: usize, ty: &str) {
    for side in ["r", "b"] {
        s.execute(&format!(
            "CREATE MULTISET TABLE {side}{t} (k INTEGER, v {ty}) NO PRIMARY INDEX"
        ))
        .expect("create");
        settle(s, mode);
    }
}

#[test]
fn one_row_and_batch_paths_store_the_same() {
    let values = values();
    let mut compared = 0;
    for mode in [SessionMode::Teradata, SessionMode::Ansi] {
        let db = Database::new();
        let mut s = db.session_in(mode);
        for (t, ty) in TYPES.iter().enumerate() {
            create_pair(&mut s, mode, t, ty);
            let row = s
                .prepare(&format!("INSERT INTO r{t} VALUES (?, ?)"))
                .expect("prepare");
            let batch = s
                .prepare(&format!("INSERT INTO b{t} VALUES (?, ?)"))
                .expect("prepare");
            for (k, v) in values.iter().enumerate() {
                let set = vec![Value::Int(k as i64), v.clone()];
                let r = s
                    .execute_prepared(&row, &set)
                    .map(drop)
                    .map_err(|e| e.code().number);
                settle(&mut s, mode);
                let one = outcome(&mut s, r, &format!("r{t}"), k);
                let r = s
                    .execute_batch(&batch, vec![set])
                    .map(drop)
                    .map_err(|e| e.code().number);
                settle(&mut s, mode);
                let many = outcome(&mut s, r, &format!("b{t}"), k);
                assert_eq!(one, many, "{mode:?}: {v:?} into {ty}");
                compared += 1;
            }
        }
    }
    assert_eq!(compared, 2 * TYPES.len() * values.len());
}

/// Creates tables `r` and `b` of `columns`, inserts one row (`k` = 1) into `r` by running
/// `insert` (its `{t}` the table) prepared once, and into `b` by `execute_batch`, then
/// returns the rows `select` (its `{t}` the table) gives for each: the clock columns differ
/// between the two requests, so `select` shows only their kind and precision.
fn both_paths(s: &mut Session, columns: &str, insert: &str, select: &str) -> [Vec<Vec<String>>; 2] {
    for t in ["r", "b"] {
        s.execute(&format!("CREATE MULTISET TABLE {t} {columns}"))
            .unwrap();
    }
    let row = s.prepare(&insert.replace("{t}", "r")).unwrap();
    let batch = s.prepare(&insert.replace("{t}", "b")).unwrap();
    s.execute_prepared(&row, &[Value::Int(1)]).unwrap();
    s.execute_batch(&batch, vec![vec![Value::Int(1)]]).unwrap();
    ["r", "b"].map(|t| {
        s.execute(&select.replace("{t}", t)).unwrap()[0]
            .rows
            .as_ref()
            .unwrap()
            .to_strings()
    })
}

#[test]
fn defaults_are_the_same_on_both_paths() {
    let db = Database::new();
    let [one, many] = both_paths(
        &mut db.session(),
        "(k INTEGER, a DECIMAL(5,1) DEFAULT 7, b CHAR(4) DEFAULT 'x', \
         c TIMESTAMP(2) DEFAULT CURRENT_TIMESTAMP, d DATE DEFAULT CURRENT_DATE, \
         e VARCHAR(10) DEFAULT USER, f INTEGER, g TIME(0) DEFAULT CURRENT_TIME, \
         h TIMESTAMP(6) DEFAULT CURRENT_TIMESTAMP)",
        "INSERT INTO {t} (k) VALUES (?)",
        "SELECT k, a, b, EXTRACT(SECOND FROM c) * 100 MOD 1, d = CURRENT_DATE, e, f, \
         EXTRACT(SECOND FROM g) MOD 1, c IS NOT NULL, h IS NOT NULL FROM {t}",
    );
    assert_eq!(one, many);
    assert_eq!(one.len(), 1);
}

/// Literal cells (no parameter): the one-row path takes a literal of a kind a parameter also
/// has as that value, and must store what the batch path (a multi-row VALUES) stores.
#[test]
fn literal_cells_are_the_same_on_both_paths() {
    const LITERALS: &[&str] = &[
        "NULL",
        "0",
        "127",
        "40000",
        "3000000000",
        "-9223372036854775808",
        "1.5",
        "-0.005",
        "123456789.12",
        "1e300",
        "-0e0",
        "''",
        "'ab'",
        "'abcde'",
        "'abcdef'",
        "'héllos'",
        "'  12 '",
        "'2020-01-02'",
        "'12:34:56'",
        "DATE '2020-01-02'",
        "TIME '10:11:12'",
        "TIMESTAMP '2020-01-02 03:04:05.123456'",
        "TIMESTAMP '2020-01-02 03:04:05'",
        "1 + 1",
        "'a' || 'b'",
    ];
    let mut compared = 0;
    for mode in [SessionMode::Teradata, SessionMode::Ansi] {
        let db = Database::new();
        let mut s = db.session_in(mode);
        for (t, ty) in TYPES.iter().enumerate() {
            create_pair(&mut s, mode, t, ty);
            for (k, lit) in LITERALS.iter().enumerate() {
                let run = |s: &mut Session, sql: String| {
                    let r = s.execute(&sql).map(drop).map_err(|e| e.code().number);
                    settle(s, mode);
                    r
                };
                let r = run(&mut s, format!("INSERT INTO r{t} VALUES ({k}, {lit})"));
                let one = outcome(&mut s, r, &format!("r{t}"), k);
                let r = run(
                    &mut s,
                    format!("INSERT INTO b{t} VALUES ({k}, {lit}), (-1, {lit})"),
                );
                let many = outcome(&mut s, r, &format!("b{t}"), k);
                assert_eq!(one, many, "{mode:?}: {lit} into {ty}");
                compared += 1;
            }
        }
    }
    assert_eq!(compared, 2 * TYPES.len() * LITERALS.len());
}

/// Values of the request named in the VALUES row (not defaults) keep their kind and
/// precision on the one-row path.
#[test]
fn values_of_the_request_are_the_same_on_both_paths() {
    let db = Database::new();
    let mut s = db.session();
    let [one, many] = both_paths(
        &mut s,
        "(k INTEGER, c TIMESTAMP(2), d DATE, e VARCHAR(10), g TIME(0), \
         h TIMESTAMP(6), i TIMESTAMP(6), j TIME(6))",
        "INSERT INTO {t} VALUES (?, CURRENT_TIMESTAMP, CURRENT_DATE, USER, CURRENT_TIME, \
         CURRENT_TIMESTAMP, CURRENT_TIMESTAMP(3), CURRENT_TIME(6))",
        "SELECT k, EXTRACT(SECOND FROM c) * 100 MOD 1, d = CURRENT_DATE, e, \
         EXTRACT(SECOND FROM g) MOD 1, h IS NOT NULL, EXTRACT(SECOND FROM i) * 1000 MOD 1, \
         j IS NOT NULL FROM {t}",
    );
    assert_eq!(one, many);
    assert_eq!(one.len(), 1);
    let bad = s.execute("INSERT INTO r (k, h) VALUES (2, CURRENT_TIMESTAMP(7))");
    assert!(bad.is_err(), "a precision over 6 is refused");
}
