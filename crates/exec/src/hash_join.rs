//! Hash matching for equi-joins: when a join step's conditions include equalities between an
//! operand of the left rows and one of the right rows (`e.dept = d.deptno`, `a.k = b.k + 3`,
//! `TRIM(a.code) = b.code`; the step puts them first, join_step.rs), the right rows are hashed
//! on their operands' values and each left row meets only the right rows with equal keys,
//! instead of every right row.
//!
//! Keys follow `=` exactly: both sides are brought to their common type (`coerce_pair`),
//! character keys are normalised as comparisons do (trailing blanks dropped, upper-cased unless
//! either side is CASESPECIFIC), and a NULL key matches nothing. An operand other than a column
//! is computed once per row of its side, where the nested loop computes it once per pair: the
//! same values, and the same errors as long as every pair meets the key ([`equi_keys`] takes
//! such a key only where it runs first).
//!
//! Invariant: for each left row, the matching right rows come in ascending order, so the pairs
//! (and the join's output order) are those the nested loop produces; the conditions after the
//! keys still run on every candidate pair.

use crate::error::Result;
use crate::expr::{coerce_pair, BinOp, Expr};
use crate::types::hashable;
use arrow::array::{Array, ArrayRef};
use arrow::datatypes::{DataType, Field, Schema};
use arrow::record_batch::RecordBatch;
use foldhash::HashMap;
use foldhash::HashMapExt;
use std::sync::Arc;
use tdlite_storage::types::{normalize_for_key, value_at, RowKey, Value};

/// One hash key: the expression over the left rows, the one over the right rows (its
/// columns numbered from 0 there), and whether either side is CASESPECIFIC.
pub(crate) struct Key {
    left: Expr,
    right: Expr,
    case_specific: bool,
}

/// The two operands of `c` if it is `x = y` where each operand reads at least one column, all
/// of one group by `group` (a column's relation, or its side of a join), the two groups
/// differing: the operand of the lower group first, then the other. Neither
/// may hold RANDOM, whose value an operand computed once per row would not share with the
/// pairs it is part of.
pub(crate) fn eq_sides<'e>(
    c: &'e Expr,
    group: &dyn Fn(usize) -> usize,
) -> Option<(&'e Expr, &'e Expr)> {
    let Expr::Binary(BinOp::Eq, a, b) = c else {
        return None;
    };
    let one_group = |e: &Expr| -> Option<usize> {
        if let Expr::Column { index, .. } = e {
            return Some(group(*index)); // (the common key: no walk of the tree)
        }
        let mut groups = e.columns().into_iter().map(group);
        let first = groups.next()?;
        (groups.all(|g| g == first) && !e.has_random()).then_some(first)
    };
    let (ga, gb) = (one_group(a)?, one_group(b)?);
    match ga.cmp(&gb) {
        std::cmp::Ordering::Less => Some((a, b)),
        std::cmp::Ordering::Greater => Some((b, a)),
        std::cmp::Ordering::Equal => None,
    }
}

/// The type an operand `e` gives over rows whose column `c` has type `ty(c)` (`None` where a
/// column it reads has none, or where it cannot be found without rows): a column's own type;
/// otherwise the type it evaluates to over no rows.
pub(crate) fn side_type(e: &Expr, ty: &dyn Fn(usize) -> Option<DataType>) -> Option<DataType> {
    match e {
        Expr::Column { index, .. } => return ty(*index),
        Expr::CaseSpecific(x) | Expr::NotCaseSpecific(x) => return side_type(x, ty),
        _ => {}
    }
    let cols = e.columns();
    let width = cols.iter().max()? + 1;
    let mut fields = vec![Field::new("", DataType::Null, true); width];
    for c in cols {
        fields[c] = Field::new("", ty(c)?, true);
    }
    let empty = RecordBatch::new_empty(Arc::new(Schema::new(fields)));
    e.eval(&empty).ok().map(|a| a.data_type().clone())
}

/// The key `c` is over a pair batch whose first `left_width` of `width` columns are the left
/// rows', typed by `ty`: an equality between an operand of the left rows and one of the right
/// rows ([`eq_sides`]) whose types hash together (`types::hashable`).
fn key_of(
    c: &Expr,
    (left_width, width): (usize, usize),
    ty: &dyn Fn(usize) -> Option<DataType>,
) -> Option<Key> {
    let (l, r) = eq_sides(c, &|col| usize::from(col >= left_width))?;
    let (lt, rt) = (side_type(l, ty)?, side_type(r, ty)?);
    if !hashable(&lt, &rt) {
        return None;
    }
    // the right operand over the right rows alone
    let right = match r {
        Expr::Column {
            index,
            case_specific,
        } => Expr::Column {
            index: index - left_width,
            case_specific: *case_specific,
        },
        _ => r.remap(
            &(0..width)
                .map(|c| c.saturating_sub(left_width))
                .collect::<Vec<_>>(),
        ),
    };
    Some(Key {
        left: l.clone(),
        right,
        case_specific: l.case_specific() || r.case_specific(),
    })
}

/// True if `c` is `left column = right column` (in either order) whose two columns, of `left`
/// and `right`, hash together and compare without a conversion that could fail
/// (`types::same_family`): a key the step may hash on wherever it is written.
pub(crate) fn is_hoistable_key(c: &Expr, left: &Schema, right: &Schema) -> bool {
    let lw = left.fields().len();
    let column = |e: &Expr| match e {
        Expr::Column { index, .. } => Some(*index),
        _ => None,
    };
    let ty = |c: usize| match c < lw {
        true => left.fields().get(c),
        false => right.fields().get(c - lw),
    };
    eq_sides(c, &|col| usize::from(col >= lw)).is_some_and(|(l, r)| {
        match (column(l).and_then(ty), column(r).and_then(ty)) {
            (Some(x), Some(y)) => {
                // (a NULL-typed column is of every family but hashes with none)
                let (x, y) = (x.data_type(), y.data_type());
                hashable(x, y) && crate::types::same_family(x, y)
            }
            _ => false,
        }
    })
}

/// The hash keys of a step whose conditions, in the order they run, are `conds` (over the
/// columns of `left`, then `right`'s): the leading ones a step may hash on wherever they are
/// written ([`is_hoistable_key`]); if none leads, the first condition if it is a key whose
/// operands may fail (a conversion, arithmetic): every pair would meet it, so computing each
/// operand over every row of its side raises the errors the pairs would. A later one of those
/// waits for the pairs the conditions before it accept.
pub(crate) fn equi_keys(conds: &[Expr], left: &Schema, right: &Schema) -> Vec<Key> {
    let lw = left.fields().len();
    let width = lw + right.fields().len();
    let ty = |c: usize| {
        match c < lw {
            true => left.fields().get(c),
            false => right.fields().get(c - lw),
        }
        .map(|f| f.data_type().clone())
    };
    let hoisted = conds
        .iter()
        .take_while(|c| is_hoistable_key(c, left, right))
        .count();
    let n = match (hoisted, conds.first()) {
        (0, Some(_)) => 1,
        (h, _) => h,
    };
    conds[..n]
        .iter()
        .map_while(|c| key_of(c, (lw, width), &ty))
        .collect()
}

/// Two operands of `=` brought to the form their keys are made of: their common type
/// (`coerce_pair`), characters normalised as comparisons do (trailing blanks dropped,
/// upper-cased unless `case_specific`); `None` when their types do not hash together
/// (`types::hashable`).
///
/// # Errors
/// A conversion to the common type that fails, as `=` would raise it.
pub(crate) fn key_pair(
    l: ArrayRef,
    r: ArrayRef,
    case_specific: bool,
) -> Result<Option<(ArrayRef, ArrayRef)>> {
    if !hashable(l.data_type(), r.data_type()) {
        return Ok(None);
    }
    let (l, r) = coerce_pair(l, r)?;
    // after coercion both sides have one type: characters compare normalised
    Ok(Some(if l.data_type() == &DataType::Utf8 {
        (
            crate::expr::normalize_chars(&l, case_specific),
            crate::expr::normalize_chars(&r, case_specific),
        )
    } else {
        (l, r)
    }))
}

/// The key of each row of `cols` (made by [`key_pair`]), or `None` where a key column is
/// NULL.
pub(crate) fn row_keys(cols: &[ArrayRef], n: usize) -> Vec<Option<RowKey>> {
    (0..n)
        .map(|i| {
            let vals: Vec<Value> = cols.iter().map(|a| key_value(a.as_ref(), i)).collect();
            (!vals.iter().any(Value::is_null)).then_some(RowKey(vals))
        })
        .collect()
}

/// Row `i` of a key column (made by [`key_pair`]) as a value that is equal to another
/// exactly where `=` finds them equal (`Value::Null` for NULL).
pub(crate) fn key_value(a: &dyn Array, i: usize) -> Value {
    match normalize_for_key(&value_at(a, i), true) {
        // floats match by bits, as `=`'s total order compares them (one zero, NaN equal to
        // NaN)
        Value::Float(f) if f.is_nan() => Value::Bytes(f64::NAN.to_bits().to_be_bytes().to_vec()),
        Value::Float(f) => Value::Bytes(f.to_bits().to_be_bytes().to_vec()),
        v => v,
    }
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
        keys: &[Key],
    ) -> Result<Option<HashMatch>> {
        let mut lcols = Vec::with_capacity(keys.len());
        let mut rcols = Vec::with_capacity(keys.len());
        for key in keys {
            let (la, ra) = (key.left.eval(left)?, key.right.eval(right)?);
            let Some((la, ra)) = key_pair(la, ra, key.case_specific)? else {
                return Ok(None);
            };
            lcols.push(la);
            rcols.push(ra);
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
