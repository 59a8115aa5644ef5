//! Hash matching for equi-joins: when a join step's conditions include equalities between a
//! column of the left rows and a column of the right rows (`e.dept = d.deptno`; the step puts
//! them first, join_step.rs), the right
//! rows are hashed on those columns and each left row meets only the right rows with equal
//! keys, instead of every right row.
//!
//! Keys follow `=` exactly: both sides are brought to their common type (`coerce_pair`),
//! character keys are normalised as comparisons do (trailing blanks dropped, upper-cased unless
//! either side is CASESPECIFIC), and a NULL key matches nothing.
//!
//! Invariant: for each left row, the matching right rows come in ascending order, so the pairs
//! (and the join's output order) are those the nested loop produces; the conditions after the
//! keys still run on every candidate pair.

use crate::error::Result;
use crate::expr::{coerce_pair, BinOp, Expr};
use crate::types::hashable;
use arrow::array::{Array, ArrayRef};
use arrow::datatypes::{DataType, Schema};
use arrow::record_batch::RecordBatch;
use foldhash::HashMap;
use foldhash::HashMapExt;
use tdlite_storage::types::{normalize_for_key, value_at, RowKey, Value};

/// One key column pair: (left column, right column, either side CASESPECIFIC).
type KeyPair = (usize, usize, bool);

/// The key pair `c` is if it is `left column = right column` (in either order) over a pair
/// batch whose first `left_width` columns are the left rows'.
fn key_pair(c: &Expr, left_width: usize) -> Option<KeyPair> {
    let Expr::Binary(BinOp::Eq, a, b) = c else {
        return None;
    };
    let (
        Expr::Column {
            index: x,
            case_specific: xc,
        },
        Expr::Column {
            index: y,
            case_specific: yc,
        },
    ) = (a.as_ref(), b.as_ref())
    else {
        return None;
    };
    match (*x < left_width, *y < left_width) {
        (true, false) => Some((*x, *y - left_width, *xc || *yc)),
        (false, true) => Some((*y, *x - left_width, *xc || *yc)),
        _ => None,
    }
}

/// True if `c` is a key (see [`key_pair`]) whose two columns, of `left` and `right`, compare
/// without a conversion that could fail (`types::same_family`): one the step may hash on
/// wherever it is written.
pub(crate) fn is_hoistable_key(c: &Expr, left: &Schema, right: &Schema) -> bool {
    key_pair(c, left.fields().len()).is_some_and(|(l, r, _)| {
        crate::types::same_family(left.field(l).data_type(), right.field(r).data_type())
    })
}

/// The leading conditions of `conds` that are `left column = right column` (in either order)
/// over columns of `left` and `right` whose types hash together (`types::hashable`).
pub(crate) fn equi_keys(conds: &[Expr], left: &Schema, right: &Schema) -> Vec<KeyPair> {
    conds
        .iter()
        .map_while(|c| {
            key_pair(c, left.fields().len()).filter(|&(l, r, _)| {
                hashable(left.field(l).data_type(), right.field(r).data_type())
            })
        })
        .collect()
}

/// The key of each row, or `None` where a key column is NULL.
fn row_keys(cols: &[ArrayRef], n: usize) -> Vec<Option<RowKey>> {
    (0..n)
        .map(|i| {
            let vals: Vec<Value> = cols
                .iter()
                .map(
                    |a| match normalize_for_key(&value_at(a.as_ref(), i), true) {
                        // floats match by bits, as `=`'s total order compares them (one zero, NaN
                        // equal to NaN)
                        Value::Float(f) if f.is_nan() => {
                            Value::Bytes(f64::NAN.to_bits().to_be_bytes().to_vec())
                        }
                        Value::Float(f) => Value::Bytes(f.to_bits().to_be_bytes().to_vec()),
                        v => v,
                    },
                )
                .collect();
            (!vals.iter().any(Value::is_null)).then_some(RowKey(vals))
        })
        .collect()
}

/// The right rows each left row may join, by key.
pub(crate) enum HashMatch {
    /// One integer key (the common case: no allocation per key): `first` maps a key to its
    /// first right row, `next[j]` chains to the next row with the same key (`u32::MAX` ends).
    Ints {
        left_keys: Vec<Option<i64>>,
        first: HashMap<i64, u32>,
        next: Vec<u32>,
    },
    /// Any keys, as normalised values.
    Rows {
        left_keys: Vec<Option<RowKey>>,
        right: HashMap<RowKey, Vec<u32>>,
    },
}

impl HashMatch {
    /// Hashes `right` on `keys`; `None` when a key pair's types do not hash (the caller
    /// falls back to the nested loop).
    ///
    /// # Errors
    /// Casting errors of the key columns.
    pub(crate) fn build(
        left: &RecordBatch,
        right: &RecordBatch,
        keys: &[KeyPair],
    ) -> Result<Option<HashMatch>> {
        let mut lcols = Vec::with_capacity(keys.len());
        let mut rcols = Vec::with_capacity(keys.len());
        for &(l, r, cs) in keys {
            let (la, ra) = (left.column(l).clone(), right.column(r).clone());
            if !hashable(la.data_type(), ra.data_type()) {
                return Ok(None);
            }
            let (la, ra) = coerce_pair(la, ra)?;
            // after coercion both sides have one type: characters compare normalised
            if la.data_type() == &DataType::Utf8 {
                lcols.push(crate::expr::normalize_chars(&la, cs));
                rcols.push(crate::expr::normalize_chars(&ra, cs));
            } else {
                lcols.push(la);
                rcols.push(ra);
            }
        }
        if let ([l], [r]) = (lcols.as_slice(), rcols.as_slice()) {
            if let (Some(lk), Some(rk)) = (crate::expr::int_values(l), crate::expr::int_values(r)) {
                // chained backwards from the last row, so each chain runs in ascending order
                let mut first: HashMap<i64, u32> = HashMap::with_capacity(rk.len());
                let mut next = vec![u32::MAX; rk.len()];
                for (j, k) in rk.iter().enumerate().rev() {
                    if let Some(k) = k {
                        if let Some(old) = first.insert(*k, j as u32) {
                            next[j] = old;
                        }
                    }
                }
                return Ok(Some(HashMatch::Ints {
                    left_keys: lk,
                    first,
                    next,
                }));
            }
        }
        let mut map: HashMap<RowKey, Vec<u32>> = HashMap::new();
        for (j, k) in row_keys(&rcols, right.num_rows()).into_iter().enumerate() {
            if let Some(k) = k {
                map.entry(k).or_default().push(j as u32);
            }
        }
        Ok(Some(HashMatch::Rows {
            left_keys: row_keys(&lcols, left.num_rows()),
            right: map,
        }))
    }

    /// Every (left, right) pair whose keys are equal, in the nested loop's order, while there
    /// are at most `limit`; `None` when there are more.
    pub(crate) fn pairs(&self, limit: usize) -> Option<(Vec<u32>, Vec<u32>)> {
        let n = match self {
            HashMatch::Ints { left_keys, .. } => left_keys.len(),
            HashMatch::Rows { left_keys, .. } => left_keys.len(),
        };
        let (mut li, mut ri) = (Vec::new(), Vec::new());
        for i in 0..n {
            for j in self.partners(i) {
                if li.len() == limit {
                    return None;
                }
                li.push(i as u32);
                ri.push(j);
            }
        }
        Some((li, ri))
    }

    /// The right rows left row `i` may join, ascending.
    pub(crate) fn partners(&self, i: usize) -> Partners<'_> {
        match self {
            HashMatch::Ints {
                left_keys,
                first,
                next,
            } => Partners::Chain {
                at: left_keys[i]
                    .as_ref()
                    .and_then(|k| first.get(k))
                    .copied()
                    .unwrap_or(u32::MAX),
                next,
            },
            HashMatch::Rows { left_keys, right } => Partners::Slice(
                left_keys[i]
                    .as_ref()
                    .and_then(|k| right.get(k))
                    .map_or(&[][..], Vec::as_slice)
                    .iter(),
            ),
        }
    }
}

/// The right rows one left row may join, ascending.
pub(crate) enum Partners<'a> {
    /// Along an integer key's chain.
    Chain { at: u32, next: &'a [u32] },
    /// From a list.
    Slice(std::slice::Iter<'a, u32>),
}

impl Iterator for Partners<'_> {
    type Item = u32;

    fn next(&mut self) -> Option<u32> {
        match self {
            Partners::Chain { at, next } => {
                let j = *at;
                if j == u32::MAX {
                    return None;
                }
                *at = next[j as usize];
                Some(j)
            }
            Partners::Slice(it) => it.next().copied(),
        }
    }
}
