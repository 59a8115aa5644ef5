//! `SAMPLE n` and `SAMPLE fraction` (Teradata): a random subset of a query's result.
//!
//! Teradata samples the rows a SELECT produces (after WHERE, GROUP BY, HAVING and QUALIFY,
//! before ORDER BY). sqlparser reads `SAMPLE` as a table sample when it follows the FROM table
//! directly; the parser moves a SAMPLE written where Teradata writes it (after WHERE, GROUP
//! BY, HAVING, QUALIFY) there, for a FROM of one table or derived table, and tdlite applies it
//! to the result as Teradata does. `SAMPLE n` with an integer n keeps n rows (all if fewer); a fraction
//! between 0 and 1 keeps that share of the rows, rounded to the nearest row. Several sizes in
//! one clause (`SAMPLE 0.5, 0.25`, all counts or all fractions adding up to at most 1) draw
//! disjoint samples and return their union; Teradata's SAMPLEID column that numbers them is
//! not provided (3810). `WITH REPLACEMENT` and `RANDOMIZED ALLOCATION` are 9910.
//!
//! Invariant: the rows kept are distinct rows of the input, in their input order.

use crate::error::{Error, Result};
use crate::expr::take_batch;
use arrow::record_batch::RecordBatch;
use sqlparser::ast;

/// How many rows one sample keeps.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Part {
    /// `SAMPLE n`
    Rows(usize),
    /// `SAMPLE f`, 0 < f ≤ 1
    Fraction(f64),
}

/// The samples of one SAMPLE clause (`SAMPLE a, b, …` asks for several disjoint samples).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Sample(Vec<Part>);

/// One sample size: an integer count or a fraction in (0, 1].
fn part(e: &ast::Expr) -> Result<Part> {
    let unsupported = || Error::Unsupported(format!("the sample size {e}"));
    let ast::Expr::Value(v) = e else {
        return Err(unsupported());
    };
    let ast::Value::Number(n, _) = &v.value else {
        return Err(unsupported());
    };
    if n.contains('.') {
        let f: f64 = n.parse().map_err(|_| Error::BadNumber)?;
        if !(f > 0.0 && f <= 1.0) {
            return Err(Error::TypeMismatch(format!(
                "a SAMPLE fraction must be above 0 and at most 1, not {n}"
            )));
        }
        Ok(Part::Fraction(f))
    } else {
        Ok(Part::Rows(n.parse().map_err(|_| Error::Overflow)?))
    }
}

/// The sample a FROM table (or derived table) carries, if any.
pub(crate) fn of_table(tf: &ast::TableFactor) -> Result<Option<Sample>> {
    let (ast::TableFactor::Table {
        sample: Some(kind), ..
    }
    | ast::TableFactor::Derived {
        sample: Some(kind), ..
    }) = tf
    else {
        return Ok(None);
    };
    let s = match kind {
        ast::TableSampleKind::BeforeTableAlias(s) | ast::TableSampleKind::AfterTableAlias(s) => s,
    };
    let unsupported = || Error::Unsupported(format!("the sample {s}"));
    if s.name.is_some() || s.seed.is_some() || s.bucket.is_some() || s.offset.is_some() {
        return Err(unsupported());
    }
    let Some(q) = &s.quantity else {
        return Err(unsupported());
    };
    if q.unit.is_some() {
        return Err(unsupported());
    }
    // several sizes arrive as one tuple (the parser's rewrite of `SAMPLE a, b, …`)
    let parts = match &q.value {
        ast::Expr::Tuple(list) => list.iter().map(part).collect::<Result<Vec<_>>>()?,
        one => vec![part(one)?],
    };
    let fractions = parts
        .iter()
        .filter(|p| matches!(p, Part::Fraction(_)))
        .count();
    if fractions != 0 && fractions != parts.len() {
        return Err(Error::TypeMismatch(
            "a SAMPLE clause gives either row counts or fractions, not both".into(),
        ));
    }
    let total: f64 = parts
        .iter()
        .map(|p| match p {
            Part::Fraction(f) => *f,
            Part::Rows(_) => 0.0,
        })
        .sum();
    if total > 1.0 + 1e-9 {
        return Err(Error::TypeMismatch(format!(
            "the SAMPLE fractions add up to {total}, more than 1"
        )));
    }
    Ok(Some(Sample(parts)))
}

/// Keeps a random subset of `batch`'s rows, in their order: the union of the clause's
/// samples, which are disjoint (a row is in at most one).
pub(crate) fn apply(batch: &RecordBatch, sample: &Sample) -> Result<RecordBatch> {
    let n = batch.num_rows();
    let mut k = 0usize;
    for p in &sample.0 {
        let want = match *p {
            Part::Rows(r) => r,
            Part::Fraction(f) => ((n as f64) * f).round() as usize,
        };
        k = k.saturating_add(want).min(n);
    }
    let mut idx: Vec<u32> = (0..n as u32).collect();
    let mut rng = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0x9E37_79B9, |d| d.as_nanos() as u64)
        | 1;
    // partial Fisher–Yates: the first k places get a uniform random choice of rows
    for i in 0..k {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        let j = i + (rng % (n - i) as u64) as usize;
        idx.swap(i, j);
    }
    let mut keep = idx[..k].to_vec();
    keep.sort_unstable();
    take_batch(batch, &keep)
}
