//! Query results with their Arrow types, pinned by insta snapshots: what an embedding
//! application gets back from `Session::execute`.

use arrow::record_batch::RecordBatch;
use arrow::util::display::{ArrayFormatter, FormatOptions};
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

/// The batches as a bordered text table (the layout of arrow's `pretty_format_batches`, which
/// needs a feature the engine does not build): a header of column names, then one line per
/// row, cells left-aligned, NULL as an empty cell.
fn table(batches: &[RecordBatch]) -> String {
    let Some(first) = batches.first() else {
        return String::new();
    };
    let mut grid: Vec<Vec<String>> = vec![first
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .collect()];
    for b in batches {
        let cols: Vec<ArrayFormatter> = b
            .columns()
            .iter()
            .map(|c| ArrayFormatter::try_new(c.as_ref(), &FormatOptions::default()).unwrap())
            .collect();
        for row in 0..b.num_rows() {
            grid.push(cols.iter().map(|c| c.value(row).to_string()).collect());
        }
    }
    let widths: Vec<usize> = (0..grid[0].len())
        .map(|c| grid.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    let rule: String = widths
        .iter()
        .fold("+".into(), |acc, w| format!("{acc}{}+", "-".repeat(w + 2)));
    let line = |r: &Vec<String>| {
        r.iter()
            .zip(&widths)
            .fold("|".to_string(), |acc, (cell, w)| {
                format!("{acc} {cell:<w$} |")
            })
    };
    let mut out = vec![rule.clone(), line(&grid[0]), rule.clone()];
    out.extend(grid[1..].iter().map(line));
    out.push(rule);
    out.join("\n")
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
                    format!("{sql}\n{}\n{}", types.join(", "), table(&rows.batches))
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
