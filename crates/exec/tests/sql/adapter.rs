//! What the `.slt` runner and the corpus runner share: running one request on a session as
//! sqllogictest expects (`SqlError` with the Teradata code first, the last statement's rows or
//! count), and turning rows into text cells with one set of display options (NULL as `NULL`,
//! timestamps with six fractional digits, dates as `YYYY-MM-DD`). Each runner says only how a
//! cell's text is finished (`.slt`: `(empty)` for an empty string; the corpus: by the record's
//! I/T/R letter).

use arrow::array::ArrayRef;
use arrow::util::display::{ArrayFormatter, FormatOptions};
use tdlite::{Rows, Session};

/// A failed request, as the runners match it: `[3807] Object 'x' does not exist.`
#[derive(Debug)]
pub struct SqlError(pub String);

impl std::fmt::Display for SqlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SqlError {}

/// What a request gave: the last statement's rows, or its activity count.
pub enum Outcome {
    Rows(Rows),
    Count(u64),
}

/// Runs `sql` on `session`.
pub fn run(session: &mut Session, sql: &str) -> Result<Outcome, SqlError> {
    let mut results = session
        .execute(sql)
        .map_err(|e| SqlError(format!("[{}] {}", e.code().number, e.error)))?;
    Ok(match results.pop() {
        None => Outcome::Count(0),
        Some(last) => match last.rows {
            Some(rows) => Outcome::Rows(rows),
            None => Outcome::Count(last.activity_count),
        },
    })
}

/// Every row of `rows` as text cells: `finish(column number, column, row, display text)`
/// makes each cell from Arrow's display of it.
pub fn cells(
    rows: &Rows,
    mut finish: impl FnMut(usize, &ArrayRef, usize, String) -> String,
) -> Result<Vec<Vec<String>>, SqlError> {
    let opts = FormatOptions::new()
        .with_null("NULL")
        .with_timestamp_format(Some("%Y-%m-%d %H:%M:%S%.6f"))
        .with_date_format(Some("%Y-%m-%d"));
    let mut out = Vec::new();
    for b in &rows.batches {
        // a PERIOD as Teradata writes it: ('2005-02-03', '2006-02-04')
        let shown: Vec<ArrayRef> = b
            .columns()
            .iter()
            .map(|c| tdlite::period_text::display(c, None).unwrap_or_else(|| c.clone()))
            .collect();
        let fmts: Vec<_> = shown
            .iter()
            .map(|c| ArrayFormatter::try_new(c.as_ref(), &opts))
            .collect::<Result<_, _>>()
            .map_err(|e| SqlError(e.to_string()))?;
        for i in 0..b.num_rows() {
            out.push(
                fmts.iter()
                    .zip(b.columns())
                    .enumerate()
                    .map(|(c, (f, col))| finish(c, col, i, f.value(i).to_string()))
                    .collect(),
            );
        }
    }
    Ok(out)
}
