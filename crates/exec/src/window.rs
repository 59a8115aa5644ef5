//! Window (ordered analytical) functions and the columns they add: ROW_NUMBER, RANK,
//! DENSE_RANK, PERCENT_RANK, and COUNT/SUM/AVG/MIN/MAX `OVER (PARTITION BY … ORDER BY …
//! [ROWS|RANGE frame])`.
//!
//! Binding (`Exec::bind_window`, called from `bind_function` for a call with `OVER`) records a
//! [`WindowCall`] in `Exec::windows` and returns `Expr::WindowRef(k)`. Windows are allowed
//! only where a select list, QUALIFY or ORDER BY is bound (the collector is `Some` then).
//! After WHERE, GROUP BY and HAVING, [`append`] evaluates each call over the rows and adds
//! its result as a hidden column named by [`column_name`]; QUALIFY, ORDER BY and the select
//! list then read it through `WindowRef`.
//!
//! Frames: without ORDER BY the frame is the whole partition. With ORDER BY and no frame,
//! Teradata's default applies: `ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING`
//! (as Teradata documents it; ANSI SQL would make it a running frame). ROWS frames take any
//! bounds; RANGE frames take UNBOUNDED and CURRENT ROW (which includes the row's peers).
//!
//! Cost: a whole-partition frame (the default) is one aggregate per partition; other frames
//! move along the partition (window_frame.rs), O(rows) whatever their size.
//!
//! Invariants: a partition is the rows with equal PARTITION BY values by GROUP BY's rules
//! (NULLs together, trailing blanks ignored, case-blind unless CASESPECIFIC); peers are rows
//! with equal ORDER BY values by the same rules; each result lands on its own row, whatever
//! order the rows are in.

use crate::aggregate::aggregate_call;
use crate::bind::{AggCall, AggFunc};
use crate::error::{Error, Result};
use crate::expr::Expr;
use crate::ops::{sort_indices, SortKey};
use arrow::array::{ArrayRef, Float64Array, Int32Array};
use arrow::record_batch::RecordBatch;
use std::sync::Arc;
use tdlite_storage::types::{normalize_for_key, value_at, RowKey};

/// Which window function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WinFunc {
    /// `ROW_NUMBER()`
    RowNumber,
    /// `RANK()`
    Rank,
    /// `DENSE_RANK()`
    DenseRank,
    /// `PERCENT_RANK()`
    PercentRank,
    /// `CUME_DIST()`
    CumeDist,
    /// `LAG(x [, offset [, default]])`
    Lag,
    /// `LEAD(x [, offset [, default]])`
    Lead,
    /// `FIRST_VALUE(x)`: the frame's first row's value.
    FirstValue,
    /// `LAST_VALUE(x)`: the frame's last row's value.
    LastValue,
    /// An aggregate over the frame.
    Agg(AggFunc),
}

/// One end of a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    /// `UNBOUNDED PRECEDING`
    UnboundedPreceding,
    /// `n PRECEDING`
    Preceding(usize),
    /// `CURRENT ROW`
    CurrentRow,
    /// `n FOLLOWING`
    Following(usize),
    /// `UNBOUNDED FOLLOWING`
    UnboundedFollowing,
}

/// A window frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Frame {
    /// ROWS (true) or RANGE (false).
    pub rows: bool,
    /// Where it starts.
    pub start: Bound,
    /// Where it ends.
    pub end: Bound,
}

impl Frame {
    /// The whole partition.
    pub const WHOLE: Frame = Frame {
        rows: true,
        start: Bound::UnboundedPreceding,
        end: Bound::UnboundedFollowing,
    };
}

/// A bound window function call.
#[derive(Debug, Clone)]
pub(crate) struct WindowCall {
    /// The function.
    pub(crate) func: WinFunc,
    /// Its argument (aggregates and value functions; None for `COUNT(*)` and the ranking
    /// functions).
    pub(crate) arg: Option<Expr>,
    /// LAG/LEAD: how many rows back or ahead (1).
    pub(crate) offset: usize,
    /// LAG/LEAD: the value where there is no such row (NULL without one).
    pub(crate) default: Option<Expr>,
    /// PARTITION BY.
    pub(crate) partition: Vec<Expr>,
    /// ORDER BY.
    pub(crate) order: Vec<SortKey>,
    /// The frame (aggregates, FIRST_VALUE and LAST_VALUE).
    pub(crate) frame: Frame,
    /// FIRST_VALUE/LAST_VALUE `(x IGNORE NULLS)`: the frame's first or last non-NULL value.
    pub(crate) ignore_nulls: bool,
}

/// The hidden column that holds window call `k`'s values.
pub fn column_name(k: usize) -> String {
    crate::expr::window_column(k)
}

/// Equality keys of `exprs` per row, by GROUP BY's rules.
fn keys(batch: &RecordBatch, exprs: &[Expr]) -> Result<Vec<RowKey>> {
    let arrays = exprs
        .iter()
        .map(|e| e.eval(batch))
        .collect::<Result<Vec<_>>>()?;
    Ok((0..batch.num_rows())
        .map(|i| {
            RowKey(
                arrays
                    .iter()
                    .zip(exprs)
                    .map(|(a, e)| normalize_for_key(&value_at(a.as_ref(), i), e.case_specific()))
                    .collect(),
            )
        })
        .collect())
}

/// Adds one column per window call to `rows`.
///
/// # Errors
/// Evaluation errors of the arguments and keys; 2616 for a SUM that overflows.
pub(crate) fn append(rows: &RecordBatch, calls: &[WindowCall]) -> Result<RecordBatch> {
    let mut extra = Vec::with_capacity(calls.len());
    for (k, call) in calls.iter().enumerate() {
        extra.push((column_name(k), evaluate(rows, call)?));
    }
    crate::ops::with_columns(rows, extra)
}

/// The frame's first and last position (inclusive; `lo > hi` when empty) for the row at `i`
/// of a partition of `n` rows whose peers of `i` span `peers`.
pub(crate) fn frame_span(f: Frame, i: usize, n: usize, peers: (usize, usize)) -> (usize, usize) {
    let lo = match f.start {
        Bound::UnboundedPreceding => 0,
        Bound::Preceding(k) => i.saturating_sub(k),
        Bound::CurrentRow if f.rows => i,
        Bound::CurrentRow => peers.0,
        Bound::Following(k) => i.saturating_add(k),
        Bound::UnboundedFollowing => n,
    };
    let hi = match f.end {
        Bound::UnboundedPreceding => 0,
        Bound::Preceding(k) => match i.checked_sub(k) {
            Some(h) => h,
            None => return (1, 0),
        },
        Bound::CurrentRow if f.rows => i,
        Bound::CurrentRow => peers.1,
        Bound::Following(k) => i.saturating_add(k).min(n - 1),
        Bound::UnboundedFollowing => n - 1,
    };
    (lo, hi)
}

fn evaluate(rows: &RecordBatch, call: &WindowCall) -> Result<ArrayRef> {
    crate::interrupt::check()?;
    let n = rows.num_rows();
    let mut sort: Vec<SortKey> = call
        .partition
        .iter()
        .map(|e| SortKey {
            expr: e.clone(),
            descending: false,
            nulls_first: true,
        })
        .collect();
    sort.extend(call.order.iter().cloned());
    let order = sort_indices(rows, &sort, None)?;
    let part_keys = keys(rows, &call.partition)?;
    let order_exprs: Vec<Expr> = call.order.iter().map(|k| k.expr.clone()).collect();
    let peer_keys = keys(rows, &order_exprs)?;
    // partitions as runs of the sorted order
    let mut partitions: Vec<&[u32]> = Vec::new();
    let mut start = 0;
    for i in 1..=order.len() {
        if i == order.len() || part_keys[order[i] as usize] != part_keys[order[start] as usize] {
            partitions.push(&order[start..i]);
            start = i;
        }
    }
    match call.func {
        WinFunc::CumeDist
        | WinFunc::Lag
        | WinFunc::Lead
        | WinFunc::FirstValue
        | WinFunc::LastValue => crate::window_value::evaluate(rows, call, &partitions, &peer_keys),
        WinFunc::Agg(func) => {
            let arg = call.arg.as_ref().map(|e| e.eval(rows)).transpose()?;
            // text summed or averaged is FLOAT (3535 for text that is not a number)
            let arg = match crate::aggregate::numeric_argument(func, arg.as_ref())? {
                Some(n) => Some(n),
                None => arg,
            };
            let agg = AggCall::new(func, call.arg.clone(), false);
            if call.frame == Frame::WHOLE || call.order.is_empty() {
                // one value per partition, copied to its rows (no per-row frames)
                let mut part_of_row = vec![0u32; n];
                for (k, part) in partitions.iter().enumerate() {
                    for &row in *part {
                        part_of_row[row as usize] = k as u32;
                    }
                }
                let per_partition = aggregate_call(&agg, arg.as_ref(), partitions.iter().copied())?;
                return Ok(arrow::compute::take(
                    per_partition.as_ref(),
                    &arrow::array::UInt32Array::from(part_of_row),
                    None,
                )?);
            }
            // each row's frame as a span of its partition, aggregated as the frame moves
            let out_type = crate::aggregate::result_type(func, arg.as_ref())?;
            let cs = call.arg.as_ref().is_some_and(Expr::case_specific);
            let mut out = vec![tdlite_storage::types::Value::Null; n];
            let keys = crate::window_frame::keys(func, arg.as_ref(), cs);
            let mut spans = Vec::new();
            for part in partitions {
                crate::interrupt::check()?;
                let len = part.len();
                spans.clear();
                let mut p = 0;
                while p < len {
                    // the peers of position p: rows with equal ORDER BY values
                    let mut q = p;
                    while q + 1 < len
                        && peer_keys[part[q + 1] as usize] == peer_keys[part[p] as usize]
                    {
                        q += 1;
                    }
                    spans.extend((p..=q).map(|i| frame_span(call.frame, i, len, (p, q))));
                    p = q + 1;
                }
                crate::window_frame::aggregate(func, arg.as_ref(), &keys, part, &spans, &mut out)?;
            }
            let out = crate::aggregate::aggregate_array(out_type, &out)?;
            Ok(out)
        }
        ranking => {
            let mut out_i = vec![0i32; n];
            let mut out_f = vec![0f64; n];
            for part in partitions {
                let len = part.len();
                let (mut rank, mut dense) = (0usize, 0usize);
                for (pos, &row) in part.iter().enumerate() {
                    let new_peer_group =
                        pos == 0 || peer_keys[row as usize] != peer_keys[part[pos - 1] as usize];
                    if new_peer_group {
                        rank = pos + 1;
                        dense += 1;
                    }
                    let v = match ranking {
                        WinFunc::RowNumber => pos + 1,
                        WinFunc::Rank | WinFunc::PercentRank => rank,
                        _ => dense,
                    };
                    out_i[row as usize] = i32::try_from(v).map_err(|_| Error::Overflow)?;
                    out_f[row as usize] = if len > 1 {
                        (rank - 1) as f64 / (len - 1) as f64
                    } else {
                        0.0
                    };
                }
            }
            Ok(if ranking == WinFunc::PercentRank {
                Arc::new(Float64Array::from(out_f))
            } else {
                Arc::new(Int32Array::from(out_i))
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_clip_to_the_partition() {
        let rows3 = Frame {
            rows: true,
            start: Bound::Preceding(1),
            end: Bound::Following(1),
        };
        assert_eq!(frame_span(rows3, 0, 5, (0, 0)), (0, 1));
        assert_eq!(frame_span(rows3, 4, 5, (4, 4)), (3, 4));
        let running_range = Frame {
            rows: false,
            start: Bound::UnboundedPreceding,
            end: Bound::CurrentRow,
        };
        // peers of row 1 are rows 1..=2: a RANGE frame includes them all
        assert_eq!(frame_span(running_range, 1, 5, (1, 2)), (0, 2));
        let before = Frame {
            rows: true,
            start: Bound::UnboundedPreceding,
            end: Bound::Preceding(1),
        };
        let (lo, hi) = frame_span(before, 0, 5, (0, 0));
        assert!(lo > hi, "the first row has nothing before it");
    }
}
