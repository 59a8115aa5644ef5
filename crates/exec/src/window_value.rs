//! The window functions that pick a row's value from another row of its partition: `LAG` and
//! `LEAD` (the row `offset` before or after, else the default or NULL), `FIRST_VALUE` and
//! `LAST_VALUE` (the first or last row of the frame), and `CUME_DIST` (the share of the
//! partition's rows that sort before the row or with it).
//!
//! window.rs sorts the rows and splits them into partitions; this module works on those runs.
//! Invariant: a value is always one the argument has in the same partition (or the default),
//! never one from another partition.

use crate::error::Result;
use crate::expr::Expr;
use crate::window::{frame_span, WinFunc, WindowCall};
use arrow::array::{Array, ArrayRef, BooleanArray, Float64Array, RecordBatch, UInt32Array};
use std::sync::Arc;
use tdlite_storage::types::RowKey;

/// The peer groups of a sorted partition: (first, last) positions of rows with equal ORDER BY
/// keys.
fn peer_groups(part: &[u32], peer_keys: &[RowKey]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut p = 0;
    while p < part.len() {
        let mut q = p;
        while q + 1 < part.len() && peer_keys[part[q + 1] as usize] == peer_keys[part[p] as usize] {
            q += 1;
        }
        out.push((p, q));
        p = q + 1;
    }
    out
}

/// Evaluates a LAG, LEAD, FIRST_VALUE, LAST_VALUE or CUME_DIST call over `rows`, whose
/// partitions (row indices in window order) and ORDER BY keys window.rs computed.
///
/// # Errors
/// Evaluation errors of the argument and default; 3996-class errors when the default does
/// not convert to the argument's type.
pub(crate) fn evaluate(
    rows: &RecordBatch,
    call: &WindowCall,
    partitions: &[&[u32]],
    peer_keys: &[RowKey],
) -> Result<ArrayRef> {
    let n = rows.num_rows();
    if call.func == WinFunc::CumeDist {
        let mut out = vec![0f64; n];
        for part in partitions {
            for (p, q) in peer_groups(part, peer_keys) {
                for &row in &part[p..=q] {
                    out[row as usize] = (q + 1) as f64 / part.len() as f64;
                }
            }
        }
        return Ok(Arc::new(Float64Array::from(out)));
    }
    let Some(arg) = &call.arg else {
        return Err(crate::error::Error::Internal(
            "a value window function without its argument".into(),
        ));
    };
    let values = arg.eval(rows)?;
    // the row each row takes its value from; None: NULL (or the default)
    let mut source: Vec<Option<u32>> = vec![None; n];
    for part in partitions {
        let len = part.len();
        match call.func {
            WinFunc::Lag | WinFunc::Lead if call.ignore_nulls => {
                // the offset counts only rows whose value is not NULL
                let valued: Vec<usize> = (0..len)
                    .filter(|&p| values.is_valid(part[p] as usize))
                    .collect();
                for (p, &row) in part.iter().enumerate() {
                    if call.offset == 0 {
                        source[row as usize] = Some(row);
                        continue;
                    }
                    let from = if call.func == WinFunc::Lag {
                        let before = valued.partition_point(|&v| v < p);
                        before.checked_sub(call.offset)
                    } else {
                        let after = valued.partition_point(|&v| v <= p);
                        after
                            .checked_add(call.offset)
                            .and_then(|k| k.checked_sub(1))
                            .filter(|k| *k < valued.len())
                    };
                    source[row as usize] = from.map(|k| part[valued[k]]);
                }
            }
            WinFunc::Lag | WinFunc::Lead => {
                for (p, &row) in part.iter().enumerate() {
                    let from = if call.func == WinFunc::Lag {
                        p.checked_sub(call.offset)
                    } else {
                        p.checked_add(call.offset).filter(|s| *s < len)
                    };
                    source[row as usize] = from.map(|s| part[s]);
                }
            }
            _ => {
                let first = call.func == WinFunc::FirstValue;
                // IGNORE NULLS: the first or last row of the frame whose value is not NULL
                let usable = |at: usize| !call.ignore_nulls || values.is_valid(part[at] as usize);
                for (p, q) in peer_groups(part, peer_keys) {
                    for i in p..=q {
                        let (lo, hi) = frame_span(call.frame, i, len, (p, q));
                        if lo <= hi && lo < len {
                            let hi = hi.min(len - 1);
                            let at = match first {
                                true => (lo..=hi).find(|&a| usable(a)),
                                false => (lo..=hi).rev().find(|&a| usable(a)),
                            };
                            source[part[i] as usize] = at.map(|a| part[a]);
                        }
                    }
                }
            }
        }
    }
    let taken = arrow::compute::take(values.as_ref(), &UInt32Array::from(source.clone()), None)?;
    match (&call.default, call.func) {
        (Some(default), WinFunc::Lag | WinFunc::Lead) => {
            let default = default_values(default, rows, taken.data_type())?;
            let inside = BooleanArray::from(source.iter().map(Option::is_some).collect::<Vec<_>>());
            Ok(arrow::compute::kernels::zip::zip(
                &inside, &taken, &default,
            )?)
        }
        _ => Ok(taken),
    }
}

/// LAG/LEAD's default, one per row, in the argument's type.
fn default_values(
    default: &Expr,
    rows: &RecordBatch,
    ty: &arrow::datatypes::DataType,
) -> Result<ArrayRef> {
    let d = default.eval(rows)?;
    if d.data_type() == ty {
        return Ok(d);
    }
    crate::expr::cast_to_arrow(&d, ty)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tdlite_storage::types::Value;

    #[test]
    fn peers_are_runs_of_equal_keys() {
        let keys: Vec<RowKey> = [1, 1, 2, 3, 3, 3]
            .iter()
            .map(|v| RowKey(vec![Value::Int(*v)]))
            .collect();
        let part: Vec<u32> = (0..6).collect();
        assert_eq!(peer_groups(&part, &keys), vec![(0, 1), (2, 2), (3, 5)]);
        assert!(peer_groups(&[], &keys).is_empty());
    }
}
