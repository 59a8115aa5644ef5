//! `SAMPLE n` and `SAMPLE fraction` (Teradata): a random subset of a query's result.
//!
//! Teradata samples the rows a SELECT produces (after WHERE, GROUP BY, HAVING and QUALIFY,
//! before ORDER BY). sqlparser reads `SAMPLE` as a table sample when it follows the FROM table
//! directly, so tdlite accepts it there, for a FROM of one table, and applies it to the result
//! as Teradata does. `SAMPLE n` with an integer n keeps n rows (all if fewer); a fraction
//! between 0 and 1 keeps that share of the rows, rounded to the nearest row. Several samples
//! in one clause (`SAMPLE 0.5, 0.25`, which Teradata numbers with SAMPLEID), `WITH
//! REPLACEMENT` and `RANDOMIZED ALLOCATION` are 9910.
//!
//! Invariant: the rows kept are distinct rows of the input, in their input order.

use crate::error::{Error, Result};
use crate::expr::take_batch;
use arrow::record_batch::RecordBatch;
use sqlparser::ast;

/// How many rows a sample keeps.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Sample {
    /// `SAMPLE n`
    Rows(usize),
    /// `SAMPLE f`, 0 < f ≤ 1
    Fraction(f64),
}

/// The sample a FROM table carries, if any.
pub(crate) fn of_table(tf: &ast::TableFactor) -> Result<Option<Sample>> {
    let ast::TableFactor::Table {
        sample: Some(kind), ..
    } = tf
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
    let ast::Expr::Value(v) = &q.value else {
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
        Ok(Some(Sample::Fraction(f)))
    } else {
        Ok(Some(Sample::Rows(n.parse().map_err(|_| Error::Overflow)?)))
    }
}

/// Keeps a random subset of `batch`'s rows, in their order.
pub(crate) fn apply(batch: &RecordBatch, sample: Sample) -> Result<RecordBatch> {
    let n = batch.num_rows();
    let k = match sample {
        Sample::Rows(k) => k.min(n),
        Sample::Fraction(f) => ((n as f64) * f).round() as usize,
    };
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
