//! Query results with their Arrow types, pinned by insta snapshots: what an embedding
//! application gets back from `Session::execute`.

use arrow::util::pretty::pretty_format_batches;
use tdlite::{Database, Session};

fn fixture() -> Session {
    let db = Database::new();
    let mut s = db.session();
    for sql in [
        "CREATE MULTISET TABLE q, QUEUE (qits TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6), id INTEGER NOT NULL, amount DECIMAL(9,2), tag CHAR(4), note VARCHAR(20) CASESPECIFIC, d DATE) PRIMARY INDEX (id)",
        "INS q (TIMESTAMP '2024-03-01 09:00:00', 1, 10.50, 'ab', 'First', DATE '2024-03-01')",
        "INS q (TIMESTAMP '2024-03-01 09:00:00', 2, 2.25, 'AB', 'second', DATE '2024-03-02')",
        "INS q (TIMESTAMP '2024-02-29 23:59:59.999999', 3, NULL, 'cd', NULL, NULL)",
    ] {
        s.execute(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    s
}

fn render(s: &mut Session, sql: &str) -> String {
    match s.execute(sql) {
        Ok(results) => {
            let r = results.last().expect("one result");
            match &r.rows {
                Some(rows) => {
                    let types: Vec<String> = rows
                        .schema
                        .fields()
                        .iter()
                        .map(|f| format!("{}: {}", f.name(), f.data_type()))
                        .collect();
                    format!(
                        "{sql}\n{}\n{}",
                        types.join(", "),
                        pretty_format_batches(&rows.batches).expect("printable")
                    )
                }
                None => format!("{sql}\n{:?}: {} rows", r.kind, r.activity_count),
            }
        }
        Err(e) => format!("{sql}\nerror {}: {}", e.code().number, e.error),
    }
}

#[test]
fn browse_results_keep_their_types() {
    let mut s = fixture();
    insta::assert_snapshot!(render(&mut s, "SEL * FROM q ORDER BY qits, id"));
    insta::assert_snapshot!(render(&mut s, "SEL tag, COUNT(*) AS n, SUM(amount) AS total, AVG(amount) AS mean, MIN(d) FROM q GROUP BY tag ORDER BY 1"));
    insta::assert_snapshot!(render(&mut s, "SEL id, amount * 2, amount + 1, id / 2, id MOD 2, d + 1, qits + INTERVAL '1' HOUR FROM q WHERE id LE 2 ORDER BY id"));
    insta::assert_snapshot!(render(
        &mut s,
        "SEL TOP 1 WITH TIES id FROM q ORDER BY qits DESC"
    ));
    insta::assert_snapshot!(render(
        &mut s,
        "SEL id FROM q WHERE note = 'first' OR note = 'second' ORDER BY id"
    ));
}

#[test]
fn consume_returns_one_row_with_the_queue_types() {
    let mut s = fixture();
    insta::assert_snapshot!(render(&mut s, "SELECT AND CONSUME TOP 1 * FROM q"));
    insta::assert_snapshot!(render(
        &mut s,
        "SELECT AND CONSUME TOP 1 id, amount, qits FROM q"
    ));
    insta::assert_snapshot!(render(&mut s, "SEL COUNT(*) FROM q"));
}
