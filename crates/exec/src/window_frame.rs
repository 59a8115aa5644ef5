//! Aggregates over moving window frames (`SUM(x) OVER (ORDER BY y ROWS UNBOUNDED
//! PRECEDING)`, `AVG(x) OVER (… ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING)`, …) in O(n) per
//! partition, whatever the frame's size.
//!
//! A partition's frames are spans of its sorted rows whose ends only move forward as the row
//! moves forward (window.rs's `frame_span`: fixed offsets, UNBOUNDED, and peer groups all
//! do). The rows of the current frame sit in a queue of two stacks (the "two-stack sliding
//! window"): rows enter at the back, where one running aggregate covers them all; rows leave
//! from the front, whose entries each keep the aggregate of themselves and every front entry
//! behind them, built when the back is moved over. Each row enters and leaves once and is
//! merged a constant number of times, so a frame of any size costs O(1) amortised, and the
//! only memory is the queue (at most the partition). Only merging is needed, never
//! subtracting, so MIN/MAX and floating sums are as exact as a left-to-right pass.
//!
//! Invariant: the aggregate of the queue is `merge(front top, back)`, front rows being the
//! older ones; a frame that goes backwards (an empty frame before a non-empty one, as `ROWS
//! BETWEEN 3 PRECEDING AND 2 PRECEDING` makes for its first rows) restarts the queue, which is
//! empty then.

use crate::bind::AggFunc;
use crate::error::{Error, OrOverflow, Result};
use arrow::array::{Array, ArrayRef};
use std::cmp::Ordering;
use tdlite_storage::types::{compare_values, normalize_for_key, value_at, Value};

/// An aggregate of some rows, in a form two of which merge.
#[derive(Debug, Clone, Copy)]
enum Acc {
    /// COUNT: the rows (or non-NULL values) counted.
    Count(i64),
    /// SUM of integers or decimals (unscaled), exact; `None` before any value.
    Exact(Option<i128>),
    /// SUM of floats; `None` before any value.
    Float(Option<f64>),
    /// AVG: values and their sum.
    Avg(u64, f64),
    /// MIN or MAX: the row holding it.
    Best(Option<u32>),
    /// STDDEV/VAR: values, their mean and the sum of squared differences from it (merged by
    /// Chan's formula, which keeps a small spread of large values precise).
    Spread(u64, f64, f64),
}

/// What is aggregated: the function, its argument, and the keys MIN/MAX compare.
struct Agg<'a> {
    func: AggFunc,
    arg: Option<&'a ArrayRef>,
    /// MIN/MAX: each row's value as Teradata compares it ([`keys`]).
    keys: &'a [Value],
}

/// What MIN/MAX compare: each row's value of `arg` as Teradata compares it (trailing blanks,
/// case unless `case_specific`); empty for other functions. Made once per window call, for
/// all its partitions.
pub(crate) fn keys(func: AggFunc, arg: Option<&ArrayRef>, case_specific: bool) -> Vec<Value> {
    match (func, arg) {
        (AggFunc::Min | AggFunc::Max, Some(a)) => (0..a.len())
            .map(|i| normalize_for_key(&value_at(a.as_ref(), i), case_specific))
            .collect(),
        _ => Vec::new(),
    }
}

impl Agg<'_> {
    fn unit(&self) -> Acc {
        match self.func {
            AggFunc::Count => Acc::Count(0),
            AggFunc::Sum => match self.arg.map(|a| a.data_type()) {
                Some(arrow::datatypes::DataType::Float64) => Acc::Float(None),
                _ => Acc::Exact(None),
            },
            AggFunc::Avg => Acc::Avg(0, 0.0),
            AggFunc::Min | AggFunc::Max => Acc::Best(None),
            _ => Acc::Spread(0, 0.0, 0.0),
        }
    }

    /// The aggregate of one row.
    fn lift(&self, row: u32) -> Acc {
        let Some(a) = self.arg else {
            return Acc::Count(1); // COUNT(*)
        };
        let v = value_at(a.as_ref(), row as usize);
        // (a NullArray has no validity bits: its values say NULL, `is_null` does not)
        if v.is_null() {
            return self.unit();
        }
        let f = match &v {
            Value::Int(i) => *i as f64,
            Value::Decimal(d, s) => *d as f64 / 10f64.powi(i32::from(*s)),
            Value::Float(f) => *f,
            _ => 0.0,
        };
        match (self.func, &v) {
            (AggFunc::Count, _) => Acc::Count(1),
            (AggFunc::Sum, Value::Int(i)) => Acc::Exact(Some(i128::from(*i))),
            (AggFunc::Sum, Value::Decimal(d, _)) => Acc::Exact(Some(*d)),
            (AggFunc::Sum, _) => Acc::Float(Some(f)),
            (AggFunc::Avg, _) => Acc::Avg(1, f),
            (AggFunc::Min | AggFunc::Max, _) => Acc::Best(Some(row)),
            _ => Acc::Spread(1, f, 0.0),
        }
    }

    /// `a` then `b` (a's rows come first).
    fn merge(&self, a: Acc, b: Acc) -> Result<Acc> {
        Ok(match (a, b) {
            (Acc::Count(x), Acc::Count(y)) => Acc::Count(x + y),
            (Acc::Exact(x), Acc::Exact(y)) => Acc::Exact(match (x, y) {
                (Some(x), Some(y)) => Some(x.checked_add(y).or_overflow()?),
                (x, y) => x.or(y),
            }),
            (Acc::Float(x), Acc::Float(y)) => Acc::Float(match (x, y) {
                (Some(x), Some(y)) => Some(x + y),
                (x, y) => x.or(y),
            }),
            (Acc::Avg(n, s), Acc::Avg(m, t)) => Acc::Avg(n + m, s + t),
            (Acc::Best(Some(x)), Acc::Best(Some(y))) => {
                let order = compare_values(&self.keys[y as usize], &self.keys[x as usize]);
                // as Iterator::min_by / max_by: the first least, the last greatest
                let take_b = match self.func {
                    AggFunc::Min => order == Ordering::Less,
                    _ => order != Ordering::Less,
                };
                Acc::Best(Some(if take_b { y } else { x }))
            }
            (Acc::Best(x), Acc::Best(y)) => Acc::Best(x.or(y)),
            (Acc::Spread(0, ..), b @ Acc::Spread(..)) => b,
            (a @ Acc::Spread(..), Acc::Spread(0, ..)) => a,
            (Acc::Spread(n, mean_a, m2_a), Acc::Spread(m, mean_b, m2_b)) => {
                let total = (n + m) as f64;
                let delta = mean_b - mean_a;
                Acc::Spread(
                    n + m,
                    mean_a + delta * m as f64 / total,
                    m2_a + m2_b + delta * delta * n as f64 * m as f64 / total,
                )
            }
            _ => return Err(Error::Internal("window aggregates of two kinds".into())),
        })
    }

    /// The SQL value of an aggregate.
    fn finish(&self, acc: Acc) -> Result<Value> {
        Ok(match acc {
            Acc::Count(n) => Value::Int(n),
            Acc::Exact(None) | Acc::Float(None) | Acc::Best(None) | Acc::Avg(0, _) => Value::Null,
            Acc::Exact(Some(x)) => match self.arg.map(|a| a.data_type()) {
                Some(arrow::datatypes::DataType::Decimal128(_, s)) => Value::Decimal(x, *s),
                _ => Value::Int(i64::try_from(x).map_err(|_| Error::Overflow)?),
            },
            Acc::Float(Some(x)) => Value::Float(x),
            Acc::Avg(n, s) => Value::Float(s / n as f64),
            Acc::Best(Some(row)) => match self.arg {
                Some(a) => value_at(a.as_ref(), row as usize),
                None => Value::Null,
            },
            Acc::Spread(n, _, m2) => {
                let sample = matches!(self.func, AggFunc::StddevSamp | AggFunc::VarSamp);
                if n == 0 || sample && n < 2 {
                    return Ok(Value::Null);
                }
                let variance = m2 / if sample { n - 1 } else { n } as f64;
                Value::Float(match self.func {
                    AggFunc::StddevSamp | AggFunc::StddevPop => variance.sqrt(),
                    _ => variance,
                })
            }
        })
    }
}

/// The rows of the current frame: the two-stack queue of the module docs.
struct Queue {
    /// Older rows, the oldest last, each with the aggregate of itself and the rows below it.
    front: Vec<Acc>,
    /// Newer rows, oldest first.
    back: Vec<u32>,
    /// The aggregate of `back`.
    back_acc: Acc,
}

impl Queue {
    fn new(agg: &Agg) -> Queue {
        Queue {
            front: Vec::new(),
            back: Vec::new(),
            back_acc: agg.unit(),
        }
    }

    fn push(&mut self, agg: &Agg, row: u32) -> Result<()> {
        self.back.push(row);
        self.back_acc = agg.merge(self.back_acc, agg.lift(row))?;
        Ok(())
    }

    fn pop(&mut self, agg: &Agg) -> Result<()> {
        if self.front.is_empty() {
            // the back, newest first, becomes the front: each entry aggregates itself and
            // every newer row
            let mut acc = agg.unit();
            for &row in self.back.iter().rev() {
                acc = agg.merge(agg.lift(row), acc)?;
                self.front.push(acc);
            }
            self.back.clear();
            self.back_acc = agg.unit();
        }
        self.front.pop();
        Ok(())
    }

    fn total(&self, agg: &Agg) -> Result<Acc> {
        match self.front.last() {
            Some(&f) => agg.merge(f, self.back_acc),
            None => Ok(self.back_acc),
        }
    }

    fn clear(&mut self, agg: &Agg) {
        self.front.clear();
        self.back.clear();
        self.back_acc = agg.unit();
    }
}

/// `func(arg)` over each row's frame (`keys`: [`keys`] of the call): `part` is a partition's
/// rows in window order and
/// `spans[i]` the first and last position of row `part[i]`'s frame (inclusive; empty when the
/// first is past the last). Each result goes to `out[row]`.
///
/// # Errors
/// 2616 for a SUM that overflows.
pub(crate) fn aggregate(
    func: AggFunc,
    arg: Option<&ArrayRef>,
    keys: &[Value],
    part: &[u32],
    spans: &[(usize, usize)],
    out: &mut [Value],
) -> Result<()> {
    let agg = Agg { func, arg, keys };
    let mut queue = Queue::new(&agg);
    // the queue holds positions [lo, hi) of `part`
    let (mut lo, mut hi) = (0usize, 0usize);
    for (i, &(first, last)) in spans.iter().enumerate() {
        let want_lo = first.min(part.len());
        let want_hi = last.saturating_add(1).min(part.len()).max(want_lo);
        if want_lo < lo || want_hi < hi || want_lo >= hi {
            // backwards (only after empty frames), or past everything held: start afresh
            queue.clear(&agg);
            (lo, hi) = (want_lo, want_lo);
        }
        while hi < want_hi {
            queue.push(&agg, part[hi])?;
            hi += 1;
        }
        while lo < want_lo {
            queue.pop(&agg)?;
            lo += 1;
        }
        out[part[i] as usize] = agg.finish(queue.total(&agg)?)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bind::AggCall;
    use crate::window::{frame_span, Bound, Frame};
    use arrow::array::{Decimal128Array, Float64Array, Int32Array, StringArray};
    use std::sync::Arc;

    /// A small deterministic generator (xorshift64*).
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    fn bound(r: &mut Rng) -> Bound {
        match r.below(5) {
            0 => Bound::UnboundedPreceding,
            1 => Bound::Preceding(r.below(4) as usize),
            2 => Bound::CurrentRow,
            3 => Bound::Following(r.below(4) as usize),
            _ => Bound::UnboundedFollowing,
        }
    }

    fn same(a: &Value, b: &Value) -> bool {
        match (a, b) {
            (Value::Float(x), Value::Float(y)) => (x - y).abs() <= 1e-9 * x.abs().max(1.0),
            _ => a == b,
        }
    }

    /// The moving frame gives what aggregating each frame's rows on their own gives, for every
    /// function, argument type (NULLs included), frame and peer layout.
    #[test]
    fn moving_frames_agree_with_aggregating_each_frame() {
        let seed = std::env::var("TDLITE_WINDOW_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(0x5EED_0016_u64);
        println!("seed {seed} (TDLITE_WINDOW_SEED)");
        let mut r = Rng(seed | 1);
        let funcs = [
            AggFunc::Count,
            AggFunc::Sum,
            AggFunc::Avg,
            AggFunc::Min,
            AggFunc::Max,
            AggFunc::StddevSamp,
            AggFunc::StddevPop,
            AggFunc::VarSamp,
            AggFunc::VarPop,
        ];
        for case in 0..400 {
            let n = 1 + r.below(40) as usize;
            let null = |r: &mut Rng| r.below(5) == 0;
            let arg: Option<ArrayRef> = match r.below(6) {
                0 => None,
                5 => Some(Arc::new(arrow::array::NullArray::new(n))),
                1 => Some(Arc::new(Int32Array::from_iter(
                    (0..n).map(|_| (!null(&mut r)).then(|| r.below(100) as i32 - 50)),
                ))),
                2 => Some(Arc::new(
                    Decimal128Array::from_iter(
                        (0..n).map(|_| (!null(&mut r)).then(|| r.below(10_000) as i128 - 5000)),
                    )
                    .with_precision_and_scale(10, 2)
                    .unwrap(),
                )),
                3 => {
                    Some(Arc::new(Float64Array::from_iter((0..n).map(|_| {
                        (!null(&mut r)).then(|| r.below(1000) as f64 / 8.0)
                    }))))
                }
                _ => Some(Arc::new(StringArray::from_iter((0..n).map(|_| {
                    (!null(&mut r)).then(|| ["a", "A", "b ", "b", "c"][r.below(5) as usize])
                })))),
            };
            let strings = matches!(
                arg.as_ref().map(|a| a.data_type()),
                Some(arrow::datatypes::DataType::Utf8)
            );
            let func = funcs[r.below(funcs.len() as u64) as usize];
            let func = match (arg.is_none(), strings) {
                (true, _) => AggFunc::Count,
                (_, true) if !matches!(func, AggFunc::Min | AggFunc::Max | AggFunc::Count) => {
                    AggFunc::Max
                }
                _ => func,
            };
            let frame = Frame {
                rows: r.below(3) != 0,
                start: bound(&mut r),
                end: bound(&mut r),
            };
            // peers: runs of equal ORDER BY values
            let mut peers = Vec::new();
            let mut p = 0;
            while p < n {
                let q = (p + r.below(3) as usize).min(n - 1);
                peers.push((p, q));
                p = q + 1;
            }
            let part: Vec<u32> = (0..n as u32).rev().collect();
            let spans: Vec<(usize, usize)> = peers
                .iter()
                .flat_map(|&(p, q)| (p..=q).map(move |i| frame_span(frame, i, n, (p, q))))
                .collect();
            let mut got = vec![Value::Null; n];
            let k = keys(func, arg.as_ref(), false);
            aggregate(func, arg.as_ref(), &k, &part, &spans, &mut got).unwrap();
            let frames: Vec<&[u32]> = spans
                .iter()
                .map(|&(lo, hi)| {
                    if lo <= hi && lo < n {
                        &part[lo..=hi.min(n - 1)]
                    } else {
                        &part[..0]
                    }
                })
                .collect();
            let call = AggCall::new(func, None, false);
            let want =
                crate::aggregate::aggregate_call(&call, arg.as_ref(), frames.into_iter()).unwrap();
            for (i, &row) in part.iter().enumerate() {
                let w = value_at(want.as_ref(), i);
                let g = &got[row as usize];
                assert!(
                    same(g, &w),
                    "case {case} (seed {seed}): {func:?} {frame:?} position {i}: got {g:?}, want {w:?}"
                );
            }
        }
    }
}
