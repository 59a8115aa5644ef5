//! PERIOD values through the paths SQL text does not take: parameters (a `Value::Period`
//! arrives unchecked, so the bind must check it) and storage (the log and a checkpoint both
//! bring every kind of period back on reopen, bounds and order intact).

use tdlite::{Database, Period, PeriodKind, Value};

use crate::common::rows;

const TABLE: &str = "CREATE TABLE p (k INTEGER, d PERIOD(DATE), t PERIOD(TIME(0)), \
                     s PERIOD(TIMESTAMP(3)))";

const ROWS: &str = "INS p (1, PERIOD '(0001-01-01, 9999-12-31)', PERIOD '(00:00:00, 23:59:59)', \
                    PERIOD '(1969-12-31 23:59:59.999, 1970-01-01 00:00:00.001)'); \
                    INS p (2, PERIOD '(2005-02-03, 2006-02-04)', NULL, \
                    PERIOD '(2005-02-03 10:00:00.1234, 2005-02-03 11:00:00)'); \
                    INS p (3, NULL, NULL, NULL)";

const SELECT: &str = "SEL k, d, t, s, BEGIN(s) FROM p ORDER BY k";

#[test]
fn a_period_parameter_is_checked_and_stored() {
    let db = Database::new();
    let mut s = db.session();
    s.execute("CREATE TABLE p (k INTEGER, d PERIOD(DATE))")
        .unwrap();
    let ins = s.prepare("INS p (?, ?)").unwrap();
    let day = |begin, end| {
        Value::Period(Period {
            kind: PeriodKind::Date,
            begin,
            end,
        })
    };
    s.execute_prepared(&ins, &[Value::Int(1), day(0, 31)])
        .unwrap();
    for bad in [day(31, 0), day(5, 5), day(0, 3_000_000)] {
        let err = s
            .execute_prepared(&ins, &[Value::Int(2), bad.clone()])
            .expect_err("a period out of order or range is refused");
        assert_eq!(err.code().number, 9103, "{bad:?}");
        let err = s
            .execute_batch(&ins, vec![vec![Value::Int(2), bad.clone()]])
            .expect_err("the batch path refuses it too");
        assert_eq!(err.code().number, 9103, "{bad:?}");
    }
    assert_eq!(
        rows(&db, "SEL k, d FROM p"),
        vec!["1|('1970-01-01', '1970-02-01')"]
    );
    // one batch of periods of two element types: each converted, none lost
    let stamp = Value::Period(Period {
        kind: PeriodKind::Timestamp,
        begin: 86_400_000_000 * 40,
        end: 86_400_000_000 * 41,
    });
    s.execute_batch(
        &ins,
        vec![
            vec![Value::Int(3), day(10, 20)],
            vec![Value::Int(4), stamp],
            vec![Value::Int(5), Value::Str("(1970-03-01, 1970-04-01)".into())],
        ],
    )
    .unwrap();
    assert_eq!(
        rows(&db, "SEL k, d FROM p WHERE k > 1 ORDER BY k"),
        vec![
            "3|('1970-01-11', '1970-01-21')",
            "4|('1970-02-10', '1970-02-11')",
            "5|('1970-03-01', '1970-04-01')"
        ]
    );
}

#[test]
fn periods_come_back_from_the_log_and_from_a_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let want = {
        let db = Database::open(dir.path()).unwrap();
        db.session().execute(TABLE).unwrap();
        db.session().execute(ROWS).unwrap();
        rows(&db, SELECT)
    };
    // fractions beyond TIMESTAMP(3) were cut on the way in; bounds either side of 1970 kept
    assert_eq!(
        want[0],
        "1|('0001-01-01', '9999-12-31')|('00:00:00.000000', '23:59:59.000000')\
         |('1969-12-31 23:59:59.999000', '1970-01-01 00:00:00.001000')|1969-12-31T23:59:59.999"
    );
    assert_eq!(want.len(), 3);
    {
        let db = Database::open(dir.path()).unwrap();
        assert_eq!(rows(&db, SELECT), want, "replayed from the log");
        db.checkpoint().unwrap();
    }
    let db = Database::open(dir.path()).unwrap();
    assert!(db.recovery_report().is_empty());
    assert_eq!(rows(&db, SELECT), want, "read from the checkpoint");
    assert_eq!(
        rows(
            &db,
            "SEL k FROM p WHERE d CONTAINS DATE '2005-06-01' ORDER BY k"
        ),
        vec!["1", "2"]
    );
}
