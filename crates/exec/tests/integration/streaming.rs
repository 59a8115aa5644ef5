//! The streaming path of a SELECT (exec's stream.rs): a one-table query without grouping,
//! ordering or windows returns one batch per storage segment, and its rows, in their order,
//! are those the general path gives (which DISTINCT forces), across segments, the open tail,
//! deleted and updated rows, another session's uncommitted changes and INSERT … SELECT; and
//! full scans with a WHERE, filtered segment by segment (access.rs `scan_filtered`), against a model; a TOP n
//! without ORDER BY reads only until it has n rows.

use tdlite::{Database, Session};

/// The rows of a query's result, each as one string.
fn lines(s: &mut Session, sql: &str) -> (Vec<String>, usize) {
    let r = s.execute(sql).unwrap();
    let rows = r[0].rows.as_ref().unwrap();
    let lines = rows.to_strings().iter().map(|r| r.join("|")).collect();
    (lines, rows.batches.len())
}

/// Makes `t` (k, v, c) with 13,000 rows (3 sealed segments of 4,096 rows and a tail), in
/// one transaction; returns them as (k, v, c), in row order.
fn load(s: &mut Session) -> Vec<(i64, i64, String)> {
    s.execute("CREATE MULTISET TABLE t (k INTEGER, v INTEGER, c VARCHAR(8)) NO PRIMARY INDEX")
        .unwrap();
    let model: Vec<(i64, i64, String)> = (0..13_000i64)
        .map(|k| (k, (k * 7919) % 1000, format!("c{}", k % 13)))
        .collect();
    let ins = s.prepare("INS t (?, ?, ?)").unwrap();
    let rows = (model.iter())
        .map(|(k, v, c)| {
            vec![
                tdlite::Value::Int(*k),
                tdlite::Value::Int(*v),
                tdlite::Value::Str(c.clone()),
            ]
        })
        .collect();
    s.execute("BT").unwrap();
    s.execute_batch(&ins, rows).unwrap();
    s.execute("ET").unwrap();
    model
}

/// A TOP n without ORDER BY streams and stops once it has n rows: its rows are the first n
/// the whole read gives (row id order), for n on either side of a segment's end, with and
/// without WHERE, as text and as a kept plan; a row past them is never projected (its
/// select list would fail), as "any n base table rows" allows.
#[test]
fn top_n_reads_only_until_it_has_n_rows() {
    let db = Database::new();
    let mut s = db.session();
    load(&mut s);
    s.execute("DEL FROM t WHERE k BETWEEN 4000 AND 4200")
        .unwrap();
    for (q, filter) in [
        ("SEL k, v, c FROM t", ""),
        ("SEL k, v, c FROM t WHERE v MOD 3 = 0", " WHERE v MOD 3 = 0"),
    ] {
        let (all, _) = lines(&mut s, &format!("SEL DISTINCT k, v, c FROM t{filter}"));
        assert!(all.len() > 4200, "{q}: the check needs rows past a segment");
        for n in [0usize, 1, 4095, 4096, 4097, 9000, 100_000] {
            let top = q.replacen("SEL ", &format!("SEL TOP {n} "), 1);
            let want = &all[..n.min(all.len())];
            // twice: the second run is the kept plan's
            for run in 0..2 {
                let (got, _) = lines(&mut s, &top);
                assert!(
                    got == want,
                    "{top} (run {run}): {} rows, the first {} of the read expected",
                    got.len(),
                    want.len()
                );
            }
        }
    }
    // k = 12000 divides by zero; the first five rows are read before it
    for run in 0..2 {
        let (got, _) = lines(&mut s, "SEL TOP 5 k, 1 / (k - 12000) FROM t");
        assert_eq!(got.len(), 5, "run {run}");
    }
    assert!(s.execute("SEL k, 1 / (k - 12000) FROM t").is_err());
}

#[test]
fn streamed_queries_give_the_general_paths_rows() {
    let db = Database::new();
    let mut s = db.session();
    // 3 sealed segments of 4,096 rows and a tail
    load(&mut s);
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
        // DISTINCT takes the general path and keeps its row order (row id order, as a scan);
        // each query's rows are distinct already (they hold k)
        let general_sql = q.replacen("SEL ", "SEL DISTINCT ", 1);
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

/// A full scan with a WHERE no index serves is filtered segment by segment (access.rs
/// `scan_filtered`): aggregates, joins' first tables, UPDATE and DELETE see exactly the rows a
/// model of the table says pass, across sealed segments, the tail, deleted and updated rows,
/// and another session's uncommitted changes; a row that raises an error raises it wherever
/// it lies.
#[test]
fn full_scans_filtered_per_segment_give_the_models_rows() {
    let db = Database::new();
    let mut s = db.session();
    s.execute("CREATE TABLE d (v INTEGER, name VARCHAR(8)) UNIQUE PRIMARY INDEX (v)")
        .unwrap();
    for v in [0, 7, 500, 999] {
        s.execute(&format!("INS d ({v}, 'n{v}')")).unwrap();
    }
    // the model: (k, v, c) of each visible row, in row order
    let mut model = load(&mut s);
    s.execute("DEL FROM t WHERE k < 100 OR k BETWEEN 5000 AND 5100")
        .unwrap();
    model.retain(|r| !(r.0 < 100 || (5000..=5100).contains(&r.0)));
    s.execute("UPD t SET v = v + 1 WHERE k BETWEEN 4090 AND 4200 OR k > 12990")
        .unwrap();
    for r in &mut model {
        if (4090..=4200).contains(&r.0) || r.0 > 12990 {
            r.1 += 1;
        }
    }
    let mut other = db.session();
    other.execute("BT").unwrap();
    other.execute("INS t (99999, 7, 'c1')").unwrap();
    other.execute("DEL FROM t WHERE k = 200").unwrap();
    let one = |s: &mut Session, sql: &str| -> Vec<String> {
        let r = s.execute(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
        r[0].rows.as_ref().unwrap().to_strings()[0].clone()
    };
    let count_sum = |model: &[(i64, i64, String)], keep: &dyn Fn(&(i64, i64, String)) -> bool| {
        let kept: Vec<_> = model.iter().filter(|r| keep(r)).collect();
        let sum: i64 = kept.iter().map(|r| r.1).sum();
        vec![kept.len().to_string(), sum.to_string()]
    };
    assert_eq!(
        one(&mut s, "SEL COUNT(*), SUM(v) FROM t WHERE v MOD 3 = 0"),
        count_sum(&model, &|r| r.1 % 3 == 0)
    );
    assert_eq!(
        one(
            &mut s,
            "SEL COUNT(*), SUM(v) FROM t WHERE c = 'c7' AND v > 500"
        ),
        count_sum(&model, &|r| r.2 == "c7" && r.1 > 500)
    );
    // the first relation of a join filtered as it is read
    let joined = model
        .iter()
        .filter(|r| r.0 > 12000 && [0, 7, 500, 999].contains(&r.1));
    let expected = vec![
        joined.clone().count().to_string(),
        joined.map(|r| r.0).sum::<i64>().to_string(),
    ];
    assert_eq!(
        one(
            &mut s,
            "SEL COUNT(*), SUM(t.k) FROM t JOIN d ON d.v = t.v WHERE t.k > 12000"
        ),
        expected
    );
    // the first rows of the result in row order: a segment's, then the tail's
    let r = s
        .execute("SEL TOP 3 k FROM t WHERE k MOD 4000 = 1 OR k = 12999")
        .unwrap();
    assert_eq!(
        r[0].rows.as_ref().unwrap().to_strings(),
        [["4001"], ["8001"], ["12001"]]
    );
    // UPDATE and DELETE through the filtered scan
    let r = s.execute("UPD t SET c = 'x' WHERE v = 7").unwrap();
    let sevens = model.iter().filter(|r| r.1 == 7).count();
    assert_eq!(r[0].activity_count as usize, sevens);
    let r = s.execute("DEL FROM t WHERE c = 'x' AND k > 6000").unwrap();
    let gone = model.iter().filter(|r| r.1 == 7 && r.0 > 6000).count();
    assert_eq!(r[0].activity_count as usize, gone);
    model.retain(|r| !(r.1 == 7 && r.0 > 6000));
    assert_eq!(
        one(&mut s, "SEL COUNT(*), SUM(v) FROM t WHERE c <> 'zz'"),
        count_sum(&model, &|_| true)
    );
    // a row that fails fails the query, in a sealed segment and in the tail
    for k in [6000, 12500] {
        let e = s
            .execute(&format!("SEL COUNT(*) FROM t WHERE 10 / (k - {k}) > 0"))
            .unwrap_err();
        assert_eq!(e.code().number, 2618, "k = {k}");
    }
    other.execute("ET").unwrap();
}

/// A sealed segment with most rows deleted is a smaller part of the scan than its neighbours: a
/// filtered scan still gives the rows in row order (the general path, forced by TOP, and the
/// streaming path alike), and UPDATE's rows are those in that order.
#[test]
fn a_segment_with_most_rows_deleted_keeps_its_place_in_a_filtered_scan() {
    let db = Database::new();
    let mut s = db.session();
    load(&mut s);
    // (segment 0 keeps 596 rows visible: fewer than a part filtered alone)
    s.execute("DEL FROM t WHERE k BETWEEN 1 AND 3500").unwrap();
    let ks = |s: &mut Session, sql: &str| -> Vec<i64> {
        let (lines, _) = lines(s, sql);
        lines.iter().map(|l| l.parse().unwrap()).collect()
    };
    let expected: Vec<i64> = (0..13_000).filter(|k| !(1..=3500).contains(k)).collect();
    assert_eq!(
        ks(&mut s, "SEL TOP 1000000 k FROM t WHERE v >= 0"),
        expected
    );
    assert_eq!(ks(&mut s, "SEL k FROM t WHERE v >= 0"), expected);
    // the first rows UPDATE meets are the first segment's
    s.execute("UPD t SET c = 'first' WHERE v >= 0 AND k < 3503")
        .unwrap();
    assert_eq!(
        ks(&mut s, "SEL TOP 1000000 k FROM t WHERE c = 'first'"),
        [0, 3501, 3502]
    );
}
