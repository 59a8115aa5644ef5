//! One join step over two batches of rows (`join`, `join_filtered`, `inner_join`): every pair
//! of rows that meets the conditions, then, for an outer join, the rows kept without a
//! partner. A batch operator: it binds and reads nothing (join.rs plans FROM clauses and
//! calls it; decorrelation calls `inner_join`).
//!
//! Equalities between a column of each side that compare without a conversion that could
//! fail go first, wherever written (the conditions are one AND: their order changes no result
//! but where a condition could fail); the right rows are hashed on them and on any equalities
//! leading the rest (hash_join.rs): each left row meets only its equal-keyed partners;
//! otherwise the step is a nested loop over every pair. Candidate pairs go through the
//! remaining conditions a chunk of [`CHUNK_PAIRS`] at a time, evaluated by Arrow kernels. A
//! step that would produce more than [`MAX_JOIN_ROWS`] rows is 2646.
//!
//! Invariants: the result's columns are the left batch's, then the right one's, all
//! nullable; matched pairs come in nested-loop order, hashed or not; a row an outer join
//! keeps without a partner has NULL in every column of the missing side.

use crate::error::{Error, Result};
use crate::expr::Expr;
use crate::ops::mask_of;
use arrow::array::{ArrayRef, UInt32Array};
use arrow::compute::take;
use arrow::datatypes::{FieldRef, Schema};
use arrow::record_batch::{RecordBatch, RecordBatchOptions};
use std::borrow::Cow;
use std::sync::Arc;

/// How a relation joins the ones before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Inner,
    Left,
    Right,
    Full,
}

/// Row pairs examined per chunk when evaluating an ON condition.
const CHUNK_PAIRS: usize = 1 << 16;

/// Rows `li[k]` of `left` beside rows `ri[k]` of `right`; a NULL index gives a NULL row.
fn combine(
    left: &RecordBatch,
    right: &RecordBatch,
    li: &UInt32Array,
    ri: &UInt32Array,
) -> Result<RecordBatch> {
    // the result's size before it is built
    let bytes = crate::limits::taken_bytes(left, li.values())
        .saturating_add(crate::limits::taken_bytes(right, ri.values()));
    crate::interrupt::check_spool(bytes)?;
    // (a field nullable already is shared, not copied)
    let fields: Vec<FieldRef> = left
        .schema()
        .fields()
        .iter()
        .chain(right.schema().fields().iter())
        .map(|f| match f.is_nullable() {
            true => f.clone(),
            false => Arc::new(f.as_ref().clone().with_nullable(true)),
        })
        .collect();
    let mut cols: Vec<ArrayRef> = Vec::with_capacity(fields.len());
    for c in left.columns() {
        cols.push(take(c.as_ref(), li, None)?);
    }
    for c in right.columns() {
        cols.push(take(c.as_ref(), ri, None)?);
    }
    Ok(RecordBatch::try_new_with_options(
        Arc::new(Schema::new(fields)),
        cols,
        &RecordBatchOptions::new().with_row_count(Some(li.len())),
    )?)
}

/// The pairs (`cl[k]`, `cr[k]`) of `left` and `right` rows that `test` keeps.
fn keep_pairs(
    left: &RecordBatch,
    right: &RecordBatch,
    (cl, cr): (Vec<u32>, Vec<u32>),
    test: &mut dyn FnMut(&RecordBatch) -> Result<arrow::array::BooleanArray>,
) -> Result<(Vec<u32>, Vec<u32>)> {
    let pairs = combine(
        left,
        right,
        &UInt32Array::from(cl.clone()),
        &UInt32Array::from(cr.clone()),
    )?;
    let mask = test(&pairs)?;
    let keep: Vec<usize> = (0..cl.len()).filter(|&k| mask.value(k)).collect();
    Ok((
        keep.iter().map(|&k| cl[k]).collect(),
        keep.iter().map(|&k| cr[k]).collect(),
    ))
}

/// The most rows a join step may produce: beyond it the query fails with 2646 rather than
/// exhaust memory (row indices are u32 as well).
pub(crate) const MAX_JOIN_ROWS: usize = 50_000_000;

/// The pairs of rows of `left` and `right` that meet all of `conds` (evaluated over the
/// concatenated columns, chunk by chunk).
pub(crate) fn inner_join(
    left: &RecordBatch,
    right: &RecordBatch,
    conds: &[Expr],
) -> Result<RecordBatch> {
    join(left, right, Kind::Inner, conds)
}

/// One join step: every pair of rows that meets all of `conds` (the hash keys first, then the
/// others one after another, so a later condition only sees pairs the earlier ones accepted;
/// all pairs if there are none),
/// then the rows an outer join keeps without a partner.
pub(crate) fn join(
    left: &RecordBatch,
    right: &RecordBatch,
    kind: Kind,
    conds: &[Expr],
) -> Result<RecordBatch> {
    join_filtered(left, right, kind, conds, None)
}

/// The order a step's `conds` (over `left`'s columns, then `right`'s) run in, if not as
/// written: the equalities between the sides that cannot fail hoisted first (`None` when they
/// lead already).
fn hoisted(conds: &[Expr], left: &Schema, right: &Schema) -> Option<Vec<usize>> {
    let hoist = |c: &Expr| crate::hash_join::is_hoistable_key(c, left, right);
    if !conds.iter().skip_while(|c| hoist(c)).any(hoist) {
        return None;
    }
    let (mut keys, rest): (Vec<usize>, Vec<usize>) =
        (0..conds.len()).partition(|&i| hoist(&conds[i]));
    keys.extend(rest);
    Some(keys)
}

/// How a step of `conds` between rows of `left` and `right` runs them (as [`join`] does): the
/// positions of `conds` in the order they run, and how many of the leading ones are the hash
/// keys (when neither side is empty).
pub(crate) fn key_order(conds: &[Expr], left: &Schema, right: &Schema) -> (Vec<usize>, usize) {
    let order = hoisted(conds, left, right).unwrap_or_else(|| (0..conds.len()).collect());
    let ordered: Vec<Expr> = order.iter().map(|&i| conds[i].clone()).collect();
    let keys = crate::hash_join::equi_keys(&ordered, left, right).len();
    (order, keys)
}

/// A test of pairs of rows (as `combine` lays them out) beyond a join's conditions: the
/// rows it keeps.
pub(crate) type PairTest<'a> =
    &'a mut dyn FnMut(&RecordBatch) -> Result<arrow::array::BooleanArray>;

/// [`join`], with `extra` run on the pairs that pass `conds` (correlated subqueries in an
/// outer join's ON, which need the pairs to be bound over).
pub(crate) fn join_filtered(
    left: &RecordBatch,
    right: &RecordBatch,
    kind: Kind,
    conds: &[Expr],
    mut extra: Option<PairTest<'_>>,
) -> Result<RecordBatch> {
    let (n, m) = (left.num_rows(), right.num_rows());
    if n > MAX_JOIN_ROWS || m > MAX_JOIN_ROWS {
        return Err(Error::SpoolSpace(MAX_JOIN_ROWS));
    }
    let mut li: Vec<Option<u32>> = Vec::new();
    let mut ri: Vec<Option<u32>> = Vec::new();
    let mut left_hit = vec![false; n];
    let mut right_hit = vec![false; m];
    // column equalities between the sides that cannot fail go first, wherever they are
    // written (the conditions are one AND); the right rows are hashed on them and on any
    // equalities leading the rest (see hash_join.rs)
    let (ls, rs) = (left.schema(), right.schema());
    let conds: Cow<'_, [Expr]> = match hoisted(conds, &ls, &rs) {
        None => Cow::Borrowed(conds),
        Some(order) => Cow::Owned(order.into_iter().map(|i| conds[i].clone()).collect()),
    };
    let conds = conds.as_ref();
    let keys = crate::hash_join::equi_keys(conds, &ls, &rs);
    // (an empty side has no pairs: nothing to hash, and no key to convert)
    let hashed = match keys.is_empty() || n == 0 || m == 0 {
        true => None,
        false => crate::hash_join::HashMatch::build(left, right, &keys)?,
    };
    let rest = match hashed {
        Some(_) => &conds[keys.len()..],
        None => conds,
    };
    if let (true, Kind::Inner, Some(h), None) = (rest.is_empty(), kind, &hashed, &extra) {
        // an inner join on keys and nothing else: the hashed pairs are the answer
        if let Some((li, ri)) = h.pairs(MAX_JOIN_ROWS) {
            return combine(left, right, &UInt32Array::from(li), &UInt32Array::from(ri));
        }
    }
    // candidate pairs, in the nested loop's order, at most CHUNK_PAIRS at a time
    let mut pairs: Box<dyn Iterator<Item = (u32, u32)>> = match &hashed {
        None => Box::new((0..n as u32).flat_map(|i| (0..m as u32).map(move |j| (i, j)))),
        Some(h) => Box::new((0..n).flat_map(move |i| h.partners(i).map(move |j| (i as u32, j)))),
    };
    loop {
        crate::interrupt::check()?;
        let (mut cl, mut cr): (Vec<u32>, Vec<u32>) = pairs.by_ref().take(CHUNK_PAIRS).unzip();
        if cl.is_empty() {
            break;
        }
        for cond in rest {
            if cl.is_empty() {
                break;
            }
            (cl, cr) = keep_pairs(left, right, (cl, cr), &mut |pairs| mask_of(pairs, cond))?;
        }
        if let (Some(f), false) = (extra.as_mut(), cl.is_empty()) {
            (cl, cr) = keep_pairs(left, right, (cl, cr), f)?;
        }
        if li.len() + cl.len() > MAX_JOIN_ROWS {
            return Err(Error::SpoolSpace(MAX_JOIN_ROWS));
        }
        for (l, r) in cl.into_iter().zip(cr) {
            left_hit[l as usize] = true;
            right_hit[r as usize] = true;
            li.push(Some(l));
            ri.push(Some(r));
        }
    }
    if matches!(kind, Kind::Left | Kind::Full) {
        for (i, _) in left_hit.iter().enumerate().filter(|(_, hit)| !**hit) {
            li.push(Some(i as u32));
            ri.push(None);
        }
    }
    if matches!(kind, Kind::Right | Kind::Full) {
        for (j, _) in right_hit.iter().enumerate().filter(|(_, hit)| !**hit) {
            li.push(None);
            ri.push(Some(j as u32));
        }
    }
    if li.len() > MAX_JOIN_ROWS {
        return Err(Error::SpoolSpace(MAX_JOIN_ROWS));
    }
    combine(left, right, &UInt32Array::from(li), &UInt32Array::from(ri))
}
