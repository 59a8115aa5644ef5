//! The streaming path of a SELECT (exec's stream.rs): a one-table query without grouping,
//! ordering or windows returns one batch per storage segment, and its rows, in their order,
//! are those the general path gives (which TOP forces), across segments, the open tail, deleted and
//! updated rows, another session's uncommitted changes and INSERT … SELECT.

use tdlite::{Database, Session};

/// The rows of a query's result, each as one string.
fn lines(s: &mut Session, sql: &str) -> (Vec<String>, usize) {
    let r = s.execute(sql).unwrap();
    let rows = r[0].rows.as_ref().unwrap();
    let lines = rows.to_strings().iter().map(|r| r.join("|")).collect();
    (lines, rows.batches.len())
}

#[test]
fn streamed_queries_give_the_general_paths_rows() {
    let db = Database::new();
    let mut s = db.session();
    s.execute("CREATE MULTISET TABLE t (k INTEGER, v INTEGER, c VARCHAR(8)) NO PRIMARY INDEX")
        .unwrap();
    // 3 sealed segments of 4,096 rows and a tail
    let ins = s.prepare("INS t (?, ?, ?)").unwrap();
    let rows: Vec<Vec<tdlite::Value>> = (0..13_000i64)
        .map(|k| {
            vec![
                tdlite::Value::Int(k),
                tdlite::Value::Int((k * 7919) % 1000),
                tdlite::Value::Str(format!("c{}", k % 13)),
            ]
        })
        .collect();
    s.execute("BT").unwrap();
    s.execute_batch(&ins, rows).unwrap();
    s.execute("ET").unwrap();
    // changes: deletes in the first segment, an update in the second
    s.execute("DEL FROM t WHERE k < 100 OR k BETWEEN 5000 AND 5100")
        .unwrap();
    s.execute("UPD t SET v = v + 1 WHERE k BETWEEN 4090 AND 4200")
        .unwrap();
    // another session's uncommitted rows stay unseen
    let mut other = db.session();
    other.execute("BT").unwrap();
    other.execute("INS t (99999, 1, 'x')").unwrap();
    other.execute("DEL FROM t WHERE k = 200").unwrap();
    let queries = [
        "SEL k, v * 2, c FROM t WHERE v MOD 3 = 0",
        "SEL * FROM t WHERE c = 'C7' AND v > 500",
        "SEL k AS kk, kk + 1 FROM t WHERE kk > 12000",
        "SEL t.k FROM t",
    ];
    for q in queries {
        let (streamed, batches) = lines(&mut s, q);
        // TOP n takes the general path and keeps its row order (row id order, as a scan)
        let general_sql = q.replacen("SEL ", "SEL TOP 1000000 ", 1);
        let (general, general_batches) = lines(&mut s, &general_sql);
        assert_eq!(
            general_batches, 1,
            "{general_sql}: the general path makes one batch"
        );
        assert!(
            streamed == general,
            "{q}: {} rows streamed, {} on the general path",
            streamed.len(),
            general.len()
        );
        assert!(streamed.len() > 10, "{q}: the check needs rows");
        assert!(
            batches > 1,
            "{q}: one batch per segment expected, got {batches}"
        );
    }
    // an INSERT … SELECT copies exactly the rows the query gives
    s.execute("CREATE MULTISET TABLE u (k INTEGER, v INTEGER, c VARCHAR(8)) NO PRIMARY INDEX")
        .unwrap();
    let r = s.execute("INS u SEL * FROM t WHERE v < 900").unwrap();
    let (want, _) = lines(&mut s, "SEL COUNT(*) FROM t WHERE v < 900");
    assert_eq!(r[0].activity_count.to_string(), want[0]);
    let (a, _) = lines(&mut s, "SEL * FROM u ORDER BY k");
    let (b, _) = lines(&mut s, "SEL * FROM t WHERE v < 900 ORDER BY k");
    assert!(
        a == b,
        "INSERT … SELECT copied {} rows of {}",
        a.len(),
        b.len()
    );
    other.execute("ABORT").unwrap_err();
}
