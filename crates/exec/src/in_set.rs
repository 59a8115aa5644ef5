//! Membership by hashing: `x [NOT] IN (list)` over a long list of constants (an IN
//! subquery's values, a long literal list), instead of one `=` per item over every row.
//!
//! The answer is SQL's, as the comparisons ORed would give it: TRUE where some item equals
//! the row's value; otherwise UNKNOWN where a comparison is UNKNOWN (the value is NULL, or
//! an item is), FALSE where none is; FALSE for an empty list. Keys follow `=` exactly
//! (hash_join.rs `key_pair`: the common type, characters normalised, one zero), so a row
//! found by its key is a row one of the comparisons finds.
//!
//! Where the items are not all constants of one type, or their type does not hash with the
//! value's, [`hashed`] answers `None` and the caller compares item by item: the two paths
//! give the same values and the same errors (a conversion of the value or an item that
//! fails fails either way), which the tests below check on random lists.
//!
//! [`Members`] is the set itself, over rows of one or more columns, so that a row value's
//! IN can use it too: a row with a NULL among its values is UNKNOWN where an item matches
//! it on its other values.
//!
//! The set is made once per expression, at its first evaluation, and kept in the
//! expression's [`Memo`] for the next ones: each part of a table a read filters, and, for an
//! IN list of constants in a kept block (inputs.rs `Inputs::put` keeps such a list as it
//! is), each row a correlated subquery runs for. A list of 60,000 values over a table read
//! in parts no longer makes its set per part. A row value IN's set is the subquery's rows,
//! new at each run of its block, so its memo serves one run. A memo holds one set, made for
//! probes of given types and case-specificity; a probe of others makes its own set without
//! keeping it.

use crate::error::Result;
use crate::expr::{BinOp, Expr};
use crate::expr_tree::balanced;
use crate::hash_join::{key_pair, key_value, row_keys};
use arrow::array::{Array, ArrayRef, AsArray, BooleanArray};
use arrow::datatypes::DataType;
use arrow::record_batch::RecordBatch;
use foldhash::HashSet;
use foldhash::HashSetExt;
use std::sync::{Arc, OnceLock};
use tdlite_storage::types::{RowKey, Value};

/// The fewest items hashed: a shorter list is compared item by item, which costs less than
/// making a set.
const MIN_ITEMS: usize = 8;

/// The set an IN list or a row value IN's set was hashed into at its first evaluation, kept
/// for the next ones (each part of a table read, each row a correlated subquery runs for)
/// where the values probed have the same types and compare as case-specifically; the
/// expression's clones share it (expr.rs `InItems`, `Expr::InRows`).
#[derive(Clone, Default)]
pub(crate) struct Memo(Arc<OnceLock<Hashed>>);

/// The same text whether a set is kept or not: an expression's text does not change when it
/// is evaluated (clauses.rs compares two bindings' aggregate calls by their text).
impl std::fmt::Debug for Memo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Memo")
    }
}

/// A set made for probes of `probe_types` compared case-specifically where
/// `case_specific`, from columns of `set_types`.
struct Hashed {
    probe_types: Vec<DataType>,
    case_specific: Vec<bool>,
    set_types: Vec<DataType>,
    members: Members,
}

impl Memo {
    /// The kept set and `probe`'s key columns for it, if one was kept for probes of these
    /// types compared so (`None`: make it afresh).
    ///
    /// # Errors
    /// A conversion of a probe column to its common type that fails.
    fn probe_keys(
        &self,
        probe: &[ArrayRef],
        case_specific: &[bool],
    ) -> Result<Option<(&Members, Vec<ArrayRef>)>> {
        let Some(h) = self.0.get() else {
            return Ok(None);
        };
        let types = probe.iter().map(|p| p.data_type());
        if !types.eq(h.probe_types.iter()) || h.case_specific != case_specific {
            return Ok(None);
        }
        let mut keys = Vec::with_capacity(probe.len());
        for ((p, t), &cs) in probe.iter().zip(&h.set_types).zip(case_specific) {
            let empty = arrow::array::new_empty_array(t);
            let Some((k, _)) = key_pair(p.clone(), empty, cs)? else {
                return Ok(None);
            };
            keys.push(k);
        }
        Ok(Some((&h.members, keys)))
    }

    /// Keeps `members`, made for `probe` (its columns as evaluated) and a set of
    /// `set_types` (the first set made is kept), and answers `keys` (`probe`'s key
    /// columns) by it.
    fn keep(
        &self,
        (probe, keys): (&[ArrayRef], &[ArrayRef]),
        set_types: Vec<DataType>,
        case_specific: Vec<bool>,
        members: Members,
    ) -> BooleanArray {
        let out = members.probe(keys);
        let _ = self.0.set(Hashed {
            probe_types: probe.iter().map(|p| p.data_type().clone()).collect(),
            case_specific,
            set_types,
            members,
        });
        out
    }
}

/// `v IN (items)` by hashing, where the items are constants of one type that hashes with
/// `v`'s; `None` otherwise (or for no rows). `case_specific`: whether the comparison is;
/// `memo`: the list's (made at the first call, used at the next).
///
/// # Errors
/// A conversion of `v` or of an item to their common type that fails.
pub(crate) fn hashed(
    v: &ArrayRef,
    items: &[Expr],
    memo: &Memo,
    case_specific: bool,
) -> Result<Option<BooleanArray>> {
    if items.len() < MIN_ITEMS || v.is_empty() {
        return Ok(None);
    }
    let probe = std::slice::from_ref(v);
    if let Some((members, keys)) = memo.probe_keys(probe, &[case_specific])? {
        return Ok(Some(members.probe(&keys)));
    }
    let mut values: Vec<&dyn Array> = Vec::with_capacity(items.len());
    let mut null_item = false;
    for item in items {
        let a = match item {
            Expr::Literal(a) => a,
            Expr::CaseSpecific(x) | Expr::NotCaseSpecific(x) => match x.as_ref() {
                Expr::Literal(a) => a,
                _ => return Ok(None),
            },
            _ => return Ok(None),
        };
        if a.len() != 1 {
            return Ok(None);
        }
        match a.data_type() {
            DataType::Null => null_item = true,
            t if values.first().is_some_and(|f| f.data_type() != t) => return Ok(None),
            _ => values.push(a.as_ref()),
        }
    }
    if values.is_empty() {
        return Ok(None);
    }
    let list_type = values[0].data_type().clone();
    let list = arrow::compute::concat(&values)?;
    let Some((key, list)) = key_pair(v.clone(), list, case_specific)? else {
        return Ok(None);
    };
    let mut members = Members::new(&[list]);
    if null_item {
        members.with_null.push(vec![Value::Null]);
        members.len += 1;
    }
    let keys = [key];
    Ok(Some(memo.keep(
        (probe, &keys),
        vec![list_type],
        vec![case_specific],
        members,
    )))
}

/// `(row…) IN set`, a row value against a set of rows (a struct array whose fields are
/// the set's columns, each compared case-specifically where it or the row's value is
/// CASESPECIFIC), over `batch`: by the comparisons, `=` ANDed over the columns and ORed over
/// the set's rows ([`by_comparisons`]), answered by hashing where that gives the same: each
/// column's pair of types hashes, and computing the row's values over every row and
/// bringing them to the common types raises nothing. The comparisons compute a column's
/// value only on the rows the columns before it leave open, so where the hashing path
/// meets an error the comparisons decide whether it is raised. FALSE for an empty set;
/// over no rows, each column's comparison is checked for its types.
///
/// # Errors
/// The comparisons' errors; an internal error where `set` is not a struct array of the
/// row's width.
pub(crate) fn in_rows(
    row: &[Expr],
    (set, memo): (&ArrayRef, &Memo),
    batch: &RecordBatch,
) -> Result<BooleanArray> {
    let Some(set) = set.as_struct_opt().filter(|s| s.num_columns() == row.len()) else {
        return Err(crate::error::Error::Internal("a row value's IN set".into()));
    };
    let n = batch.num_rows();
    if set.is_empty() {
        return Ok(BooleanArray::from(vec![false; n]));
    }
    let cs = |c: usize| row[c].case_specific() || crate::types::case_specific(&set.fields()[c]);
    if n == 0 {
        // (as the comparisons over no rows: each column's `=` with the set's first row)
        for c in 0..row.len() {
            comparison(row, set, &cs, (0, c)).eval(batch)?;
        }
        return Ok(BooleanArray::from(Vec::<bool>::new()));
    }
    if !row.iter().any(Expr::has_random) {
        if let Ok(Some(found)) = hashed_rows(row, (set, memo), &cs, batch) {
            return Ok(found);
        }
    }
    by_comparisons(row, set, &cs, batch)
}

/// [`in_rows`] by hashing (the set kept in `memo`); `None` where a pair's types do not
/// hash.
///
/// # Errors
/// The row's values' errors over every row of `batch`; a conversion to a common type that
/// fails.
fn hashed_rows(
    row: &[Expr],
    (set, memo): (&arrow::array::StructArray, &Memo),
    cs: &dyn Fn(usize) -> bool,
    batch: &RecordBatch,
) -> Result<Option<BooleanArray>> {
    let values = row
        .iter()
        .map(|e| e.eval(batch))
        .collect::<Result<Vec<_>>>()?;
    let flags: Vec<bool> = (0..row.len()).map(cs).collect();
    if let Some((members, keys)) = memo.probe_keys(&values, &flags)? {
        return Ok(Some(members.probe(&keys)));
    }
    let mut keys = Vec::with_capacity(row.len());
    let mut set_keys = Vec::with_capacity(row.len());
    for (c, v) in values.iter().enumerate() {
        let Some((k, s)) = key_pair(v.clone(), set.column(c).clone(), flags[c])? else {
            return Ok(None);
        };
        keys.push(k);
        set_keys.push(s);
    }
    let set_types = set
        .columns()
        .iter()
        .map(|c| c.data_type().clone())
        .collect();
    let members = Members::new(&set_keys);
    Ok(Some(memo.keep((&values, &keys), set_types, flags, members)))
}

/// Column `c` of the row `=` the value of column `c` of the set's row `i`.
fn comparison(
    row: &[Expr],
    set: &arrow::array::StructArray,
    cs: &dyn Fn(usize) -> bool,
    (i, c): (usize, usize),
) -> Expr {
    let item = Expr::Literal(set.column(c).slice(i, 1));
    let item = match cs(c) {
        true => Expr::CaseSpecific(Box::new(item)),
        false => item,
    };
    Expr::Binary(BinOp::Eq, Box::new(row[c].clone()), Box::new(item))
}

/// [`in_rows`] by the comparisons.
fn by_comparisons(
    row: &[Expr],
    set: &arrow::array::StructArray,
    cs: &dyn Fn(usize) -> bool,
    batch: &RecordBatch,
) -> Result<BooleanArray> {
    let each = (0..set.len()).map(|i| {
        let eq = (0..row.len()).map(|c| comparison(row, set, cs, (i, c)));
        balanced(BinOp::And, eq.collect())
    });
    let any = balanced(BinOp::Or, each.collect()).eval(batch)?;
    any.as_boolean_opt()
        .cloned()
        .ok_or_else(|| crate::error::Error::Internal("a row value's IN".into()))
}

/// A set of rows (their columns made by hash_join.rs `key_pair`), to probe rows with.
pub(crate) struct Members {
    whole: Keys,
    /// The rows with a NULL, as key values (`Value::Null` for it).
    with_null: Vec<Vec<Value>>,
    /// The set's key columns, for [`Members::every`].
    cols: Vec<ArrayRef>,
    /// Every row as key values, made when a probe of two columns or more has a NULL among
    /// its values (UNKNOWN where a row matches its other values).
    every: OnceLock<Vec<Vec<Value>>>,
    /// How many rows.
    len: usize,
}

/// The rows without a NULL.
enum Keys {
    /// One integer column (no allocation per key).
    Ints(HashSet<i64>),
    /// Two integer columns (a row value's IN of two keys; no allocation per key).
    IntPairs(HashSet<(i64, i64)>),
    Rows(HashSet<RowKey>),
}

impl Members {
    /// The set of the rows of `cols` (one array per column, all of one length).
    pub(crate) fn new(cols: &[ArrayRef]) -> Members {
        let n = cols.first().map_or(0, |c| c.len());
        let with_null = (0..n)
            .filter(|&i| cols.iter().any(|c| c.is_null(i)))
            .map(|i| key_values(cols, i))
            .collect();
        Members {
            whole: keys(cols, n),
            with_null,
            cols: cols.to_vec(),
            every: OnceLock::new(),
            len: n,
        }
    }

    /// Every row of the set as key values.
    fn every(&self) -> &[Vec<Value>] {
        self.every
            .get_or_init(|| (0..self.len).map(|i| key_values(&self.cols, i)).collect())
    }

    /// For each row of `probe` (its columns made by `key_pair` with this set's): whether the
    /// set holds it, by SQL's rule for `IN`.
    pub(crate) fn probe(&self, probe: &[ArrayRef]) -> BooleanArray {
        let n = probe.first().map_or(0, |c| c.len());
        if self.len == 0 {
            return BooleanArray::from(vec![false; n]);
        }
        let found: Vec<bool> = match (&self.whole, probe) {
            (Keys::Ints(set), [p]) => match crate::expr::int_values(p) {
                Some(ks) => ks
                    .iter()
                    .map(|k| k.is_some_and(|k| set.contains(&k)))
                    .collect(),
                None => vec![false; n],
            },
            (Keys::IntPairs(set), [a, b]) => {
                match (crate::expr::int_values(a), crate::expr::int_values(b)) {
                    (Some(x), Some(y)) => (x.iter().zip(&y))
                        .map(|(x, y)| x.zip(*y).is_some_and(|k| set.contains(&k)))
                        .collect(),
                    _ => vec![false; n],
                }
            }
            (Keys::Ints(_) | Keys::IntPairs(_), _) => vec![false; n],
            (Keys::Rows(set), _) => row_keys(probe, n)
                .iter()
                .map(|k| k.as_ref().is_some_and(|k| set.contains(k)))
                .collect(),
        };
        (0..n)
            .map(|i| match found[i] {
                true => Some(true),
                false => (!self.may_match(probe, i)).then_some(false),
            })
            .collect()
    }

    /// Whether row `i` of `probe`, which no row of the set equals, may equal one where a
    /// NULL stands: a row of the set that agrees with it wherever neither is NULL.
    fn may_match(&self, probe: &[ArrayRef], i: usize) -> bool {
        let has_null = probe.iter().any(|c| c.is_null(i));
        if has_null && probe.len() == 1 {
            return true; // a NULL compared with any item
        }
        let rows = match has_null {
            true => self.every(),
            false => &self.with_null,
        };
        if rows.is_empty() {
            return false;
        }
        let mine = key_values(probe, i);
        rows.iter().any(|r| {
            r.iter()
                .zip(&mine)
                .all(|(a, b)| a.is_null() || b.is_null() || a == b)
        })
    }
}

/// Row `i` of key columns `cols` as key values.
fn key_values(cols: &[ArrayRef], i: usize) -> Vec<Value> {
    cols.iter().map(|c| key_value(c.as_ref(), i)).collect()
}

/// The rows of `cols` without a NULL, by key.
fn keys(cols: &[ArrayRef], n: usize) -> Keys {
    if let [c] = cols {
        if let Some(ks) = crate::expr::int_values(c) {
            return Keys::Ints(ks.into_iter().flatten().collect());
        }
    }
    if let [a, b] = cols {
        if let (Some(x), Some(y)) = (crate::expr::int_values(a), crate::expr::int_values(b)) {
            let pairs = x.into_iter().zip(y).filter_map(|(x, y)| x.zip(y));
            return Keys::IntPairs(pairs.collect());
        }
    }
    let mut set = HashSet::with_capacity(n);
    set.extend(row_keys(cols, n).into_iter().flatten());
    Keys::Rows(set)
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{
        Date32Array, Decimal128Array, Float64Array, Int16Array, Int32Array, Int64Array, StringArray,
    };
    use arrow::datatypes::{Field, Schema};
    use arrow::record_batch::RecordBatch;
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};
    use std::sync::Arc;

    /// A generator seeded from `TDLITE_IN_SET_SEED`, or `default`, and its seed, which is
    /// printed (and named in failures) so that a failure can be replayed.
    fn seeded_rng(default: u64) -> (SmallRng, u64) {
        let seed = std::env::var("TDLITE_IN_SET_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(default);
        println!("seed {seed}");
        (SmallRng::seed_from_u64(seed), seed)
    }

    /// `n` random values of type number `ty` (few distinct ones, so that items match rows),
    /// about one in eight NULL.
    fn values(rng: &mut SmallRng, ty: usize, n: usize) -> ArrayRef {
        let pick = |rng: &mut SmallRng| -> Option<i64> {
            (rng.gen_range(0..8) != 0).then(|| rng.gen_range(-6..6))
        };
        let ints: Vec<Option<i64>> = (0..n).map(|_| pick(rng)).collect();
        let words = ["a", "A", "a ", "b", "B  ", "", " ", "12", "-3", "x y"];
        match ty {
            0 => Arc::new(Int32Array::from_iter(
                ints.iter().map(|v| v.map(|v| v as i32)),
            )),
            1 => Arc::new(Int64Array::from_iter(ints.iter().copied())),
            2 => Arc::new(Int16Array::from_iter(
                ints.iter().map(|v| v.map(|v| v as i16)),
            )),
            3 => Arc::new(
                Decimal128Array::from_iter(ints.iter().map(|v| v.map(|v| v as i128 * 50)))
                    .with_precision_and_scale(9, 2)
                    .unwrap(),
            ),
            4 => Arc::new(Float64Array::from_iter(ints.iter().map(|v| {
                v.map(|v| {
                    if v == 0 && rng.gen_bool(0.5) {
                        -0.0
                    } else {
                        v as f64 / 2.0
                    }
                })
            }))),
            5 => Arc::new(Date32Array::from_iter(
                ints.iter().map(|v| v.map(|v| v as i32 + 19000)),
            )),
            _ => {
                Arc::new(StringArray::from_iter(ints.iter().map(|v| {
                    v.map(|v| words[v.unsigned_abs() as usize % words.len()])
                })))
            }
        }
    }

    /// Hashing answers what the comparisons ORed answer (values and errors), over random
    /// lists of every hashed type beside columns of the same and other types (those that do
    /// not hash together are left to the comparisons), NULL items and values, -0.0,
    /// characters differing in case and trailing blanks.
    #[test]
    fn hashing_answers_as_the_comparisons_do() {
        let (mut rng, seed) = seeded_rng(7);
        let mut hashed_cases = 0;
        for case in 0..3000 {
            let (vt, it) = (rng.gen_range(0..7), rng.gen_range(0..7));
            let rows = rng.gen_range(0..40);
            let v = values(&mut rng, vt, rows);
            let nitems = rng.gen_range(0..20);
            let item_values = values(&mut rng, it, nitems);
            let mut items: Vec<Expr> = (0..nitems)
                .map(|i| Expr::lit(item_values.slice(i, 1)))
                .collect();
            if rng.gen_bool(0.1) {
                items.push(Expr::lit(arrow::array::new_null_array(&DataType::Null, 1)));
            }
            let cs = rng.gen_bool(0.3);
            let schema = Arc::new(Schema::new(vec![Field::new(
                "v",
                v.data_type().clone(),
                true,
            )]));
            let batch = RecordBatch::try_new(schema, vec![v.clone()]).unwrap();
            let each = crate::expr::in_list_each(&v, &items, &batch, cs);
            // (twice with one memo: the set made at the first call, kept for the second)
            let memo = Memo::default();
            let first = hashed(&v, &items, &memo, cs);
            let hashed = hashed(&v, &items, &memo, cs);
            assert_eq!(format!("{first:?}"), format!("{hashed:?}"), "case {case}");
            let hashed = match hashed {
                Ok(None) => continue,
                Ok(Some(h)) => Ok(h),
                Err(e) => Err(e),
            };
            hashed_cases += 1;
            match (&each, &hashed) {
                (Ok(a), Ok(b)) => assert_eq!(
                    a, b,
                    "case {case} (seed {seed}): {v:?} in {items:?}, cs {cs}"
                ),
                (Err(a), Err(b)) => assert_eq!(format!("{a:?}"), format!("{b:?}"), "case {case}"),
                _ => panic!(
                    "case {case} (seed {seed}): {each:?} against {hashed:?} for {v:?} in {items:?}"
                ),
            }
            // other values of the same type, probed through the kept set
            let n = rng.gen_range(1..40);
            let other = values(&mut rng, vt, n);
            let schema = Arc::new(Schema::new(vec![Field::new(
                "v",
                other.data_type().clone(),
                true,
            )]));
            let batch = RecordBatch::try_new(schema, vec![other.clone()]).unwrap();
            let each = crate::expr::in_list_each(&other, &items, &batch, cs);
            let kept = super::hashed(&other, &items, &memo, cs).map(|h| h.expect("hashed"));
            assert_eq!(
                format!("{each:?}"),
                format!("{kept:?}"),
                "case {case} (seed {seed}), again"
            );
        }
        println!("{hashed_cases} cases hashed");
        assert!(hashed_cases > 700, "only {hashed_cases} cases were hashed");
    }

    /// A row value's IN answers as the comparisons do (`=` ANDed over the columns, ORed
    /// over the set's rows), values and errors, over random rows of two or three columns of
    /// random types, NULLs in the row and in the set, CASESPECIFIC set columns, values
    /// computed with a division that fails on some rows, and no rows.
    #[test]
    fn rows_hashed_answer_as_the_comparisons_do() {
        let (mut rng, seed) = seeded_rng(11);
        let (mut hashed_cases, mut errors) = (0, 0);
        for case in 0..2000 {
            let width = rng.gen_range(2..4);
            let rows = rng.gen_range(0..30);
            let set_rows = rng.gen_range(0..25);
            let (mut cols, mut fields, mut set_cols, mut row) = (vec![], vec![], vec![], vec![]);
            for c in 0..width {
                let (vt, st) = (rng.gen_range(0..7), rng.gen_range(0..7));
                let v = values(&mut rng, vt, rows);
                fields.push(Field::new(format!("v{c}"), v.data_type().clone(), true));
                cols.push(v);
                let column = Expr::Column {
                    index: c,
                    case_specific: false,
                };
                // (an integer column as `10 / v`: 2618 on a zero, raised where the
                // comparisons compute it)
                row.push(match vt < 3 && rng.gen_bool(0.3) {
                    true => {
                        let ten = Expr::lit(Arc::new(Int32Array::from(vec![10])));
                        Expr::Binary(BinOp::Div, Box::new(ten), Box::new(column))
                    }
                    false => column,
                });
                let s = values(&mut rng, st, set_rows);
                let mut f = Field::new(format!("s{c}"), s.data_type().clone(), true);
                if rng.gen_bool(0.3) {
                    f = f.with_metadata(std::collections::HashMap::from([(
                        "casespecific".to_string(),
                        "Y".to_string(),
                    )]));
                }
                set_cols.push((Arc::new(f), s));
            }
            let set: ArrayRef = Arc::new(arrow::array::StructArray::from(set_cols));
            let batch = RecordBatch::try_new(Arc::new(Schema::new(fields)), cols).unwrap();
            // (twice with one memo: the set made at the first call, kept for the second)
            let memo = Memo::default();
            let first = in_rows(&row, (&set, &memo), &batch);
            let hashed = in_rows(&row, (&set, &memo), &batch);
            assert_eq!(format!("{first:?}"), format!("{hashed:?}"), "case {case}");
            let s = set.as_struct();
            let cs = |c: usize| crate::types::case_specific(&s.fields()[c]);
            let each = match set_rows {
                0 => Ok(BooleanArray::from(vec![false; rows])),
                _ => by_comparisons(&row, s, &cs, &batch),
            };
            errors += usize::from(each.is_err());
            let all_hash = (0..width).all(|c| {
                crate::types::hashable(batch.column(c).data_type(), s.column(c).data_type())
            });
            hashed_cases += usize::from(all_hash && set_rows > 0);
            match (&each, &hashed) {
                (Ok(a), Ok(b)) => {
                    assert_eq!(a, b, "case {case} (seed {seed}): {batch:?} in {set:?}")
                }
                (Err(a), Err(b)) => assert_eq!(format!("{a:?}"), format!("{b:?}"), "case {case}"),
                _ => panic!("case {case} (seed {seed}): {each:?} against {hashed:?}"),
            }
        }
        println!("{hashed_cases} cases hashed, {errors} errors");
        assert!(hashed_cases > 100, "only {hashed_cases} cases were hashed");
        assert!(errors > 20, "only {errors} cases raised an error");
    }

    /// A row value with a NULL is UNKNOWN where a row of the set agrees with it elsewhere,
    /// FALSE where none does; a row of the set with a NULL makes a row it agrees with
    /// elsewhere UNKNOWN.
    #[test]
    fn rows_with_nulls_are_unknown_where_they_may_match() {
        let col = |v: Vec<Option<i64>>| -> ArrayRef { Arc::new(Int64Array::from(v)) };
        let set = Members::new(&[
            col(vec![Some(1), Some(2), None]),
            col(vec![Some(10), None, Some(30)]),
        ]);
        let probe = [
            col(vec![
                Some(1),
                Some(1),
                None,
                None,
                Some(2),
                Some(2),
                Some(3),
                Some(3),
            ]),
            col(vec![
                Some(10),
                Some(11),
                Some(10),
                Some(99),
                Some(5),
                None,
                Some(30),
                Some(31),
            ]),
        ];
        let got: Vec<Option<bool>> = set.probe(&probe).iter().collect();
        // (1,10) found; (1,11) no row agrees; (NULL,10) agrees with (1,10); (NULL,99) with
        // (2,NULL); (2,5) and (2,NULL) with (2,NULL); (3,30) with (NULL,30); (3,31) with none
        assert_eq!(
            got,
            vec![
                Some(true),
                Some(false),
                None,
                None,
                None,
                None,
                None,
                Some(false)
            ]
        );
        let empty = Members::new(&[col(vec![]), col(vec![])]);
        let got: Vec<Option<bool>> = empty
            .probe(&[col(vec![None]), col(vec![None])])
            .iter()
            .collect();
        assert_eq!(got, vec![Some(false)]);
    }
}
