//! Access paths: which index, if any, a read of one table uses, decided from the conditions of
//! its WHERE clause on single columns.
//!
//! A conjunct is *sargable* when it compares a column with a value known before the read:
//! `c = v`, `c IS NULL`, `c IN (v, …)`, `c < v` (`<=`, `>`, `>=`, `BETWEEN`), where `v` is a
//! literal, a parameter of the request, an uncorrelated subquery (run once, at binding), a
//! column of an enclosing query's current row, or any expression of those that reads no row
//! and calls no RANDOM (`CURRENT_DATE - 7`, `? + 1`, `a.k + 1` in a correlated subquery),
//! evaluated here, once per read rather than per row (one that fails to evaluate is left to
//! the filter, which raises it). For each index the planner takes the longest prefix of its
//! columns fixed by equalities (IN lists expand into several probes), plus a range on the
//! next column; the best index fixes a unique key entirely, else has the longest
//! prefix, else a range. MIN/MAX of a column walk an index in which the column follows the
//! fixed prefix (see `access`).
//!
//! Invariant: an access path only narrows the rows read; the whole WHERE clause still filters
//! them, so a plan can never change a result, only its cost. The one exception is a read
//! whose index ranges are exactly the condition ([`whole_preds`]: every conjunct sargable,
//! exact, and bounded by the index), which skips the filter: its rows are the ones that pass.
//! A value that does not convert exactly to the column's type makes its conjunct unsargable
//! instead of approximate.

use crate::expr::{BinOp, Expr};
use arrow::array::{Array, ArrayRef};
use std::borrow::Cow;
use tdlite_storage::catalog::{Column, IndexSpec, TableSchema};
use tdlite_storage::index::{indexable, KeyRange};
use tdlite_storage::key::PartTest;
use tdlite_storage::types::{normalize_for_key, value_at, SqlType, Value};

/// The most probes an IN list (or several) may expand into on any table, and in a MIN/MAX
/// walk; a larger table allows more ([`max_probes`]).
const MAX_PROBES: usize = 256;

/// A table allows a probe per this many of its rows, if that is more than [`MAX_PROBES`]: a
/// probe (an index lookup, its rows fetched by id) costs about what testing a few dozen rows
/// of a scan costs (`bench scan`'s IN of 1,000 values).
const ROWS_PER_PROBE: usize = 32;

/// The most probes on any table.
const MAX_SCALED_PROBES: usize = 1 << 16;

/// The most rows of a row value IN's set whose first column's values are made probe points
/// (a larger set reads every row; so does one whose distinct values are more probes than
/// its table allows).
const MAX_SET_POINTS: usize = 1 << 14;

/// What the WHERE clause fixes about one column.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ColumnPred {
    /// `c = v` (one point) or `c IN (…)` (several); NULL for `c IS NULL`.
    pub points: Option<Vec<Value>>,
    /// Lower bound and whether it is inclusive.
    pub lo: Option<(Value, bool)>,
    /// Upper bound and whether it is inclusive.
    pub hi: Option<(Value, bool)>,
}

/// Sargable conditions by column position, in column order: a few entries in one `Vec`
/// (a `BTreeMap` allocated a 1.4 KB node for the first one, on every execution).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Preds(Vec<(usize, ColumnPred)>);

impl Preds {
    /// No conditions.
    pub fn new() -> Self {
        Preds(Vec::new())
    }

    /// The conditions on column `col`.
    pub fn get(&self, col: &usize) -> Option<&ColumnPred> {
        self.0
            .binary_search_by_key(col, |e| e.0)
            .ok()
            .map(|i| &self.0[i].1)
    }

    /// The conditions on column `col`, an empty entry made if there is none.
    pub fn entry(&mut self, col: usize) -> &mut ColumnPred {
        let i = match self.0.binary_search_by_key(&col, |e| e.0) {
            Ok(i) => i,
            Err(i) => {
                self.0.insert(i, (col, ColumnPred::default()));
                i
            }
        };
        &mut self.0[i].1
    }

    /// (column, conditions) in column order.
    pub fn iter(&self) -> impl Iterator<Item = (&usize, &ColumnPred)> {
        self.0.iter().map(|(c, p)| (c, p))
    }

    /// How many columns have conditions.
    pub fn len(&self) -> usize {
        self.0.len()
    }
}

impl IntoIterator for Preds {
    type Item = (usize, ColumnPred);
    type IntoIter = std::vec::IntoIter<(usize, ColumnPred)>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<const N: usize> From<[(usize, ColumnPred); N]> for Preds {
    fn from(entries: [(usize, ColumnPred); N]) -> Self {
        let mut preds = Preds::new();
        for (c, p) in entries {
            *preds.entry(c) = p;
        }
        preds
    }
}

/// An index chosen for a read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexAccess {
    /// Position in [`TableSchema::indexes`].
    pub index: usize,
    /// How many leading index columns equalities fix.
    pub eq_len: usize,
    /// Whether the next index column has a range.
    pub range: bool,
    /// For MIN/MAX: the position of the aggregated column in the index.
    pub target: Option<usize>,
}

impl IndexAccess {
    /// The key ranges to read: one per combination of the fixed prefix's points (none when
    /// a list of points is empty: an IN subquery without rows). `None` when the access does
    /// not fit `preds` (a fixed column without points, or no such index): the caller reads
    /// another way.
    pub fn ranges(&self, schema: &TableSchema, preds: &Preds) -> Option<Vec<KeyRange>> {
        let spec = schema.indexes().nth(self.index)?;
        let fixed = spec.columns.get(..self.eq_len)?;
        if !fixed
            .iter()
            .all(|c| preds.get(c).is_some_and(|p| p.points.is_some()))
        {
            return None;
        }
        let points = |c: &usize| {
            preds
                .get(c)
                .and_then(|p| p.points.as_deref())
                .unwrap_or_default()
        };
        // (a ranged column without its range, from a plan kept for other conditions, reads
        // more entries, never fewer: the condition still filters them)
        let ranged = self.range.then(|| spec.columns.get(self.eq_len)).flatten();
        // a range never holds NULL: it starts above NULL when it has no lower bound
        let above_null = (Value::Null, false);
        let (lo, hi) = match ranged.and_then(|c| preds.get(c)) {
            Some(p) => (Some(p.lo.as_ref().unwrap_or(&above_null)), p.hi.as_ref()),
            None => (None, None),
        };
        let width = spec.columns.len();
        // one range per combination of the fixed columns' points, in key order (each
        // column's points are sorted and distinct), its keys written from the points
        let lists: Vec<&[Value]> = fixed.iter().map(points).collect();
        combinations(&lists, |probe| Some(KeyRange::new(probe, lo, hi, width)))
    }
}

/// `f` of each combination of one value from each of `lists`, in order (the first list's
/// values varying slowest: key order when each list is sorted); `None` as soon as one `f`
/// gives `None`. No combination when a list is empty.
pub(crate) fn combinations<'v, T>(
    lists: &[&'v [Value]],
    mut f: impl FnMut(&[&'v Value]) -> Option<T>,
) -> Option<Vec<T>> {
    let count: usize = lists.iter().map(|l| l.len()).product();
    let mut combination: Vec<&Value> = Vec::with_capacity(lists.len());
    let mut out = Vec::with_capacity(count);
    for i in 0..count {
        combination.clear();
        let (mut rest, mut stride) = (i, count);
        for l in lists {
            stride /= l.len();
            combination.push(&l[rest / stride]);
            rest %= stride;
        }
        out.push(f(&combination)?);
    }
    Some(out)
}

/// The sargable conditions among the conjuncts of `cond`, a condition on `schema`'s rows.
pub fn bound_preds(cond: &Expr, schema: &TableSchema) -> Preds {
    whole_preds(cond, schema).0
}

/// [`bound_preds`], and whether they are the whole of `cond`: every conjunct recorded, none a
/// comparison that could overflow (which WHERE must raise on the rows), and a point (`=`, IN,
/// IS NULL) alone on its column (bounds on one column are their intersection). Then a row
/// passes `cond` exactly when its columns satisfy their entries (keys hold values as `=`
/// compares them, probes convert exactly: see [`key_tests`]), so a read through index ranges
/// that bound every entry's column needs no filter.
pub fn whole_preds(cond: &Expr, schema: &TableSchema) -> (Preds, bool) {
    collect(
        conjuncts(cond)
            .into_iter()
            .map(|e| (effect(e, schema, &own_array), may_overflow(e, schema))),
    )
}

/// The conjuncts of `cond` (its operands of AND), in the order [`whole_preds`] records them.
fn conjuncts(cond: &Expr) -> Vec<&Expr> {
    let mut out = Vec::new();
    let mut stack = vec![cond];
    while let Some(e) = stack.pop() {
        match e {
            Expr::Binary(BinOp::And, l, r) => {
                stack.push(l);
                stack.push(r);
            }
            e => out.push(e),
        }
    }
    out
}

/// Preds from each conjunct's effect (`None`: not sargable) and whether it may overflow, in
/// order, and whether they are the whole condition (see [`whole_preds`]).
fn collect(items: impl Iterator<Item = (Option<(usize, Effect)>, bool)>) -> (Preds, bool) {
    let mut preds = Preds::new();
    let mut whole = true;
    // the columns conjuncts recorded a condition on, once per conjunct
    let mut named: Vec<usize> = Vec::new();
    for (effect, overflow) in items {
        match effect.and_then(|e| apply(&mut preds, e)) {
            Some(c) if !overflow => named.push(c),
            _ => whole = false,
        }
    }
    // a column's entry is its conjuncts' intersection when it is one conjunct's, or bounds
    // alone (the tighter of two is kept); not when a point has another condition beside it
    // (the point's probe would leave that one unchecked)
    whole = whole
        && preds
            .iter()
            .all(|(c, p)| p.points.is_none() || named.iter().filter(|&&x| x == *c).count() == 1);
    (preds, whole)
}

/// A condition's sargable conditions with its slots (the arrays a kept plan's bound
/// expressions hold for `?` parameters, scalar subqueries and EXISTS) as inputs, made once per kept
/// plan: [`CondTemplate::preds`] gives what [`whole_preds`] gives for the condition with one
/// run's values put in, without making that condition. A conjunct without a slot is read
/// once, here; one with a slot is read at each run, through the run's values.
pub struct CondTemplate {
    /// Each conjunct in [`whole_preds`]' order, and whether it may overflow (which reads the
    /// value's type alone: a run's value has its slot's type, or the plan is not used).
    conjuncts: Vec<(Conjunct, bool)>,
    /// The whole answer when no conjunct holds a slot.
    fixed: Option<(Preds, bool)>,
}

/// One conjunct of a [`CondTemplate`].
enum Conjunct {
    /// Holds no slot: what it records.
    Fixed(Option<(usize, Effect)>),
    /// Holds a slot: the conjunct, read at each run.
    Slotted(Expr),
}

impl CondTemplate {
    /// The template of `cond`, on `schema`'s rows, whose slot arrays are those `is_slot`
    /// picks.
    pub fn new(cond: &Expr, schema: &TableSchema, is_slot: &dyn Fn(&ArrayRef) -> bool) -> Self {
        let conjuncts: Vec<(Conjunct, bool)> = conjuncts(cond)
            .into_iter()
            .map(|e| {
                let mut slotted = false;
                e.visit_literals(&mut |a| slotted |= is_slot(a));
                let c = match slotted {
                    true => Conjunct::Slotted(e.clone()),
                    false => Conjunct::Fixed(effect(e, schema, &own_array)),
                };
                (c, may_overflow(e, schema))
            })
            .collect();
        let fixed = conjuncts
            .iter()
            .all(|(c, _)| matches!(c, Conjunct::Fixed(_)))
            .then(|| collect(conjuncts.iter().map(|(c, o)| (c.fixed(), *o))));
        CondTemplate { conjuncts, fixed }
    }

    /// [`whole_preds`] of the condition with each literal's array given by `lit` (for a
    /// slot's array, the run's value; for another literal, its own).
    pub fn preds(&self, schema: &TableSchema, lit: Lit<'_>) -> Cow<'_, (Preds, bool)> {
        if let Some(f) = &self.fixed {
            return Cow::Borrowed(f);
        }
        Cow::Owned(collect(self.conjuncts.iter().map(|(c, o)| {
            let e = match c {
                Conjunct::Fixed(e) => e.clone(),
                Conjunct::Slotted(e) => effect(e, schema, lit),
            };
            (e, *o)
        })))
    }
}

impl Conjunct {
    fn fixed(&self) -> Option<(usize, Effect)> {
        match self {
            Conjunct::Fixed(e) => e.clone(),
            Conjunct::Slotted(_) => None,
        }
    }
}

/// `cond` as tests on the entries of access `a`'s index, so that rows need not be fetched to
/// test it: (position in the key, the column tested) for each conjunct, when every conjunct
/// is sargable on a column of the index and no two name the same column; `None` otherwise.
/// What a column must satisfy is then its entry in the condition's [`Preds`] (its one
/// conjunct's). Keys hold values as `=` and the index's ranges compare them, and probes
/// convert exactly, so an entry passes its tests exactly when its row passes `cond`.
pub fn key_tests(
    cond: &Expr,
    schema: &TableSchema,
    a: &IndexAccess,
) -> Option<Vec<(usize, usize)>> {
    let spec = schema.indexes().nth(a.index)?;
    let mut tests: Vec<(usize, usize)> = Vec::new();
    let mut seen = Vec::new();
    let mut stack = vec![cond];
    while let Some(e) = stack.pop() {
        if let Expr::Binary(BinOp::And, l, r) = e {
            stack.push(l);
            stack.push(r);
            continue;
        }
        // a conjunct whose comparison could overflow is no test (it must raise that on the
        // rows, as WHERE does), nor one that records nothing (`c <> v`)
        if may_overflow(e, schema) {
            return None;
        }
        let mut one = Preds::new();
        add_conjunct(e, schema, &mut one)?;
        let (col, pred) = one.into_iter().next()?;
        if seen.contains(&col) || pred == ColumnPred::default() {
            return None;
        }
        seen.push(col);
        tests.push((spec.columns.iter().position(|&c| c == col)?, col));
    }
    Some(tests)
}

/// How a MIN/MAX walk reads one target column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MinMaxWalk {
    /// The index walked ([`choose_min_max`]).
    pub access: IndexAccess,
    /// The condition as tests on the index's keys ([`key_tests`]; empty for no condition), or
    /// `None`: each row met is fetched and the condition evaluated on it.
    pub keys: Option<Vec<(usize, usize)>>,
}

/// The walks for MIN/MAX of `targets` (column, is MAX) over the rows passing `cond` (whose
/// sargable conditions are `preds`); `None` when a target has no index to walk.
///
/// The plan depends on `preds` only through their [`same_shape`]: which columns have points
/// (and how many), a lower bound or an upper bound, not the values. A kept plan serves again
/// for conditions of the same shape: `cond`'s conjuncts are fixed by binding, the index
/// choice reads the shape alone, and key tests exist only when each conjunct records its own
/// column alone, so that a conjunct whose value stops (or starts) converting exactly to its
/// column's type removes (adds) that column and changes the shape. (Where two conjuncts name
/// one column, a failing one may leave the shape as it was; such a condition never has key
/// tests, with either value.)
pub fn plan_min_max(
    cond: Option<&Expr>,
    schema: &TableSchema,
    preds: &Preds,
    targets: &[(usize, bool)],
) -> Option<Vec<MinMaxWalk>> {
    targets
        .iter()
        .map(|&(col, _)| {
            let access = choose_min_max(schema, preds, col)?;
            let keys = match cond {
                Some(c) => key_tests(c, schema, &access),
                None => Some(Vec::new()),
            };
            Some(MinMaxWalk { access, keys })
        })
        .collect()
}

/// What the access-path choice reads of one column's [`ColumnPred`]: (column, number of
/// points, has a lower bound, has an upper bound).
pub type PredShape = (usize, Option<usize>, bool, bool);

/// The shape of `preds` (see [`plan_min_max`]).
pub fn pred_shape(preds: &Preds) -> Vec<PredShape> {
    preds.iter().map(shape_of).collect()
}

fn shape_of((col, p): (&usize, &ColumnPred)) -> PredShape {
    (
        *col,
        p.points.as_ref().map(Vec::len),
        p.lo.is_some(),
        p.hi.is_some(),
    )
}

/// Whether `preds` have the shape `shape` (allocates nothing).
pub fn same_shape(preds: &Preds, shape: &[PredShape]) -> bool {
    preds.len() == shape.len() && preds.iter().map(shape_of).eq(shape.iter().copied())
}

/// Whether comparing the conjunct's numeric column with its value may overflow: a DECIMAL
/// literal needing more than 38 digits beside the column (the common type is capped there,
/// and a value that does not fit is an error), or any value that is not a bare literal (a
/// computed one, whose type is known only once it is evaluated). True too for a row value's
/// IN, whose index probe ([`effect`]) is implied by it, not all of it: either way the
/// conjunct still runs on the rows read.
fn may_overflow(e: &Expr, schema: &TableSchema) -> bool {
    if matches!(e, Expr::InRows(..)) {
        return true;
    }
    use arrow::datatypes::DataType;
    let mut out = false;
    let mut check = |col: usize, v: &Expr| {
        let Some(c) = schema.columns.get(col) else {
            return;
        };
        let (int_c, scale_c) = match c.ty {
            SqlType::ByteInt => (3, 0),
            SqlType::SmallInt => (5, 0),
            SqlType::Integer => (10, 0),
            SqlType::BigInt => (19, 0),
            SqlType::Decimal(p, s) => (i32::from(p) - i32::from(s), i32::from(s)),
            _ => return,
        };
        let a = match v {
            Expr::Literal(a) => a,
            // (a constant expression's type is known once it is evaluated: taken to be one
            // that may overflow, so the filter still runs)
            _ => {
                out = true;
                return;
            }
        };
        let (int_v, scale_v) = match a.data_type() {
            DataType::Decimal128(p, s) => (i32::from(*p) - i32::from(*s), i32::from(*s)),
            DataType::Int64 => (19, 0),
            DataType::Int32 => (10, 0),
            DataType::Int16 => (5, 0),
            DataType::Int8 => (3, 0),
            _ => return,
        };
        out |= int_c.max(int_v) + scale_c.max(scale_v) > 38;
    };
    match e {
        Expr::Binary(_, l, r) => match (l.as_ref(), r.as_ref()) {
            (Expr::Column { index, .. }, v) | (v, Expr::Column { index, .. }) => check(*index, v),
            _ => {}
        },
        Expr::InList(c, list, _) => {
            if let Expr::Column { index, .. } = c.as_ref() {
                for v in list {
                    check(*index, v);
                }
            }
        }
        _ => {}
    }
    out
}

/// `pred` as a test on an index entry's key part (its bytes): the values in `pred` are
/// already as the index stores them (`probe_value`), so comparing the encoded bytes is
/// comparing the values; NULL passes only `IS NULL`.
pub fn part_test(pred: &ColumnPred) -> PartTest {
    PartTest::new(pred.points.as_deref(), pred.lo.as_ref(), pred.hi.as_ref())
}

/// A literal's value: a one-row array's one value.
pub fn literal_value(a: &ArrayRef) -> Option<Value> {
    (a.len() == 1).then(|| value_at(a.as_ref(), 0))
}

/// The array a literal's array stands for in one run (see [`effect`]): a slot's is the run's
/// value, any other literal's its own ([`own_array`]).
pub type Lit<'a> = &'a dyn Fn(&ArrayRef) -> ArrayRef;

/// The [`Lit`] of a condition without slots: each literal is itself.
fn own_array(a: &ArrayRef) -> ArrayRef {
    a.clone()
}

/// The value compared with a column, known before the read: a literal's, or a constant
/// expression's (`CURRENT_DATE - 7`, `? + 1`, `5 * 2`, an enclosing row's `a.k + 1`:
/// [`folded`]). Not one that is CASESPECIFIC unless `case_specific` allows it: where the
/// column is CASESPECIFIC too, or not of a character type (the comparison is then the
/// column's own); a case-specific comparison with a case-blind column's index is no probe.
fn value_for(e: &Expr, case_specific: bool, lit: Lit<'_>) -> Option<Value> {
    match e {
        _ if !case_specific && e.case_specific() => None,
        Expr::Literal(a) => literal_value(&lit(a)),
        Expr::CaseSpecific(inner) => match inner.as_ref() {
            Expr::Literal(a) => literal_value(&lit(a)),
            _ => folded(e, lit),
        },
        _ => folded(e, lit),
    }
}

/// The value of `e` if it is a constant expression: no column, no hidden column, no RANDOM,
/// its literals read through `lit`; evaluated once, here, as a filter would evaluate it for
/// each row (to the same value: nothing in it reads the row). `None` if it is not constant
/// or its evaluation fails (the filter then raises the error on the rows, if there are any).
fn folded(e: &Expr, lit: Lit<'_>) -> Option<Value> {
    if !e.is_constant() {
        return None;
    }
    let put = e.rebuild(&mut |x| match x {
        Expr::Literal(a) => Some(Expr::Literal(lit(a))),
        _ => None,
    });
    literal_value(&put.eval(&crate::ops::single_row()).ok()?)
}

/// What one conjunct records about its column (see [`effect`]).
#[derive(Debug, Clone)]
enum Effect {
    /// `c = v`: the column's points, unless it has some.
    Eq(Value),
    /// `c IN (…)`: the column's points (sorted, distinct), unless it has some.
    In(Vec<Value>),
    /// `c IS NULL`: the column's points become NULL.
    Null,
    /// A lower bound and whether it is inclusive (the tighter of two is kept).
    Lo(Value, bool),
    /// An upper bound and whether it is inclusive.
    Hi(Value, bool),
    /// A comparison of the column with a value that records nothing (`c <> v`): the
    /// column's entry is made, empty.
    Touch,
}

/// Records `e`'s condition on a column in `preds`: that column, or `None` for a conjunct
/// that is not sargable (`c <> v`, say), which records nothing.
fn add_conjunct(e: &Expr, schema: &TableSchema, preds: &mut Preds) -> Option<usize> {
    effect(e, schema, &own_array).and_then(|x| apply(preds, x))
}

/// Records an effect on its column: the column, or `None` for [`Effect::Touch`].
fn apply(preds: &mut Preds, (col, effect): (usize, Effect)) -> Option<usize> {
    let p = preds.entry(col);
    match effect {
        Effect::Eq(v) => {
            p.points.get_or_insert_with(|| vec![v]);
        }
        Effect::In(values) => {
            p.points.get_or_insert(values);
        }
        Effect::Null => p.points = Some(vec![Value::Null]),
        Effect::Lo(v, inclusive) => tighten(&mut p.lo, v, inclusive, true),
        Effect::Hi(v, inclusive) => tighten(&mut p.hi, v, inclusive, false),
        Effect::Touch => return None,
    }
    Some(col)
}

/// What conjunct `e` records about a column, its literals read through `lit`: `None` when it
/// names no column as a sargable condition would, or its value does not convert exactly.
fn effect(e: &Expr, schema: &TableSchema, lit: Lit<'_>) -> Option<(usize, Effect)> {
    // a column compared as written (not under a [NOT] CASESPECIFIC phrase that changes it)
    let column = |e: &Expr| match e {
        Expr::Column {
            index,
            case_specific,
        } => schema
            .columns
            .get(*index)
            .filter(|c| c.case_specific == *case_specific)
            .map(|c| (*index, c)),
        _ => None,
    };
    match e {
        Expr::Binary(op, l, r) => {
            let (c, v, op) = match (column(l), column(r)) {
                (Some(c), None) => (c, r, *op),
                (None, Some(c)) => (c, l, flip(*op)),
                _ => return None,
            };
            let v = value_for(v, c.1.case_specific || !c.1.ty.is_character(), lit)
                .and_then(|v| probe_value(&v, c.1.ty, c.1.case_specific))?;
            let effect = match op {
                BinOp::Eq => Effect::Eq(v),
                BinOp::Gt | BinOp::GtEq => Effect::Lo(v, op == BinOp::GtEq),
                BinOp::Lt | BinOp::LtEq => Effect::Hi(v, op == BinOp::LtEq),
                _ => Effect::Touch,
            };
            Some((c.0, effect))
        }
        Expr::IsNull(inner, false) => Some((column(inner)?.0, Effect::Null)),
        Expr::InList(inner, list, false) => {
            let (i, c) = column(inner)?;
            let values = list
                .iter()
                .map(|e| value_for(e, c.case_specific || !c.ty.is_character(), lit));
            Some((i, in_points(c, values)?))
        }
        // `(a, b) IN (SELECT x, y …)` keeps only rows whose first plain column `a` equals a
        // value of `x`: that IN (not the whole condition: [`may_overflow`] says so, and the
        // filter runs on the rows it reads). Its set is the subquery's rows, put in before a
        // read is planned (a deferred subquery's placeholder, one NULL row, would probe
        // nothing); one of more than [`MAX_SET_POINTS`] rows is no probe.
        Expr::InRows(row, set, false, _) => {
            let at = row.iter().position(|x| column(x).is_some())?;
            let set = lit(set);
            let set = arrow::array::AsArray::as_struct_opt(&set)?;
            if set.len() > MAX_SET_POINTS {
                return None;
            }
            let (i, c) = column(&row[at])?;
            // as the values of `value_for` would be had the set been an IN list of its
            // column's values: a case-specific value is no probe of a case-blind column
            if crate::types::case_specific(set.fields().get(at)?)
                && !c.case_specific
                && c.ty.is_character()
            {
                return None;
            }
            let values = set.column(at);
            let values = (0..values.len()).map(|r| Some(value_at(values.as_ref(), r)));
            Some((i, in_points(c, values)?))
        }
        _ => None,
    }
}

/// An IN's points on column `c`, from its items' values (`None` where an item is not a
/// constant): `None` (no probe) where a value does not convert exactly. A NULL equals no
/// row, so it adds no point, and an empty list (an IN subquery without rows) is no point at
/// all: nothing matches.
fn in_points(c: &Column, values: impl Iterator<Item = Option<Value>>) -> Option<Effect> {
    let values: Option<Vec<Value>> = values
        .filter_map(|v| match v {
            Some(Value::Null) => None,
            v => Some(v.and_then(|v| probe_value(&v, c.ty, c.case_specific))),
        })
        .collect();
    let mut values = values?;
    values.sort_by(tdlite_storage::types::compare_values);
    values.dedup();
    Some(Effect::In(values))
}

fn flip(op: BinOp) -> BinOp {
    match op {
        BinOp::Lt => BinOp::Gt,
        BinOp::LtEq => BinOp::GtEq,
        BinOp::Gt => BinOp::Lt,
        BinOp::GtEq => BinOp::LtEq,
        other => other,
    }
}

/// Keeps the tighter of two bounds (the larger lower bound, the smaller upper bound).
fn tighten(bound: &mut Option<(Value, bool)>, v: Value, inclusive: bool, lower: bool) {
    use std::cmp::Ordering::*;
    let replace = match bound {
        None => true,
        Some((old, old_inc)) => match (tdlite_storage::types::compare_values(&v, old), lower) {
            (Greater, true) | (Less, false) => true,
            (Equal, _) => *old_inc && !inclusive,
            _ => false,
        },
    };
    if replace {
        *bound = Some((v, inclusive));
    }
}

/// `v` as the index stores a value of a column of type `ty`, if it converts exactly (a
/// comparison with anything else is left to the filter).
pub fn probe_value(v: &Value, ty: SqlType, case_specific: bool) -> Option<Value> {
    use SqlType::*;
    let int = matches!(ty, ByteInt | SmallInt | Integer | BigInt);
    Some(match (ty, v) {
        (_, Value::Null) => return None,
        (_, Value::Int(i)) if int => Value::Int(*i),
        (_, Value::Decimal(u, s)) if int => {
            let p = 10i128.checked_pow(u32::try_from(*s).ok()?)?;
            if u % p != 0 {
                return None;
            }
            Value::Int(i64::try_from(u / p).ok()?)
        }
        (Decimal(_, s), Value::Int(i)) => {
            let p = 10i128.checked_pow(u32::try_from(s).ok()?)?;
            Value::Decimal(i128::from(*i).checked_mul(p)?, s)
        }
        (Decimal(_, s), Value::Decimal(u, s2)) => {
            let (s, s2) = (i32::from(s), i32::from(*s2));
            let u = if s >= s2 {
                u.checked_mul(10i128.checked_pow((s - s2) as u32)?)?
            } else {
                let p = 10i128.checked_pow((s2 - s) as u32)?;
                if u % p != 0 {
                    return None;
                }
                u / p
            };
            Value::Decimal(u, s as i8)
        }
        (Float, Value::Int(i)) if i.unsigned_abs() < 1 << 53 => Value::Float(*i as f64),
        (Float, Value::Float(f)) if !f.is_nan() => normalize_for_key(v, false),
        (Char(_) | VarChar(_), Value::Str(_)) => normalize_for_key(v, case_specific),
        (Date, Value::Date(_))
        | (Time(_), Value::Time(_))
        | (Timestamp(_), Value::Timestamp(_)) => v.clone(),
        _ => return None,
    })
}

/// Whether MIN/MAX by index order equals MIN/MAX by value for a column of this type
/// (character columns compare normalised in the index, so they are left out).
pub fn ordered_like_values(ty: SqlType) -> bool {
    use SqlType::*;
    matches!(
        ty,
        ByteInt | SmallInt | Integer | BigInt | Decimal(..) | Float | Date | Time(_) | Timestamp(_)
    )
}

/// The most probes a read of a table of `rows` row versions may make: [`MAX_PROBES`], or
/// one per [`ROWS_PER_PROBE`] rows of a larger table, at most [`MAX_SCALED_PROBES`].
pub fn max_probes(rows: usize) -> usize {
    (rows / ROWS_PER_PROBE).clamp(MAX_PROBES, MAX_SCALED_PROBES)
}

/// The most probes a read may make, asked only when an IN list's points are more than
/// [`MAX_PROBES`] ([`max_probes`] of the table's rows, which its lock gives).
pub type MaxProbes<'a> = &'a dyn Fn() -> usize;

/// [`MaxProbes`] of every table: [`MAX_PROBES`].
pub fn fixed_probes() -> usize {
    MAX_PROBES
}

/// How many leading columns of `spec` equalities fix (stopping before the probes would
/// exceed `max`).
fn eq_prefix(spec: &IndexSpec, preds: &Preds, max: MaxProbes<'_>) -> usize {
    let mut probes = 1usize;
    let mut n = 0;
    for c in &spec.columns {
        let Some(points) = preds.get(c).and_then(|p| p.points.as_ref()) else {
            break;
        };
        probes = probes.saturating_mul(points.len());
        if probes > MAX_PROBES && probes > max() {
            break;
        }
        n += 1;
    }
    n
}

fn has_range(spec: &IndexSpec, at: usize, preds: &Preds) -> bool {
    spec.columns
        .get(at)
        .and_then(|c| preds.get(c))
        .is_some_and(|p| p.lo.is_some() || p.hi.is_some())
}

/// The index for reading the rows `preds` select, if any index helps; equalities that fix
/// more than `max` probes are not probed ([`max_probes`] of the table's rows; a MIN/MAX walk
/// and a join's probe of its keys' values allow [`MAX_PROBES`]).
pub fn choose(schema: &TableSchema, preds: &Preds, max: MaxProbes<'_>) -> Option<IndexAccess> {
    // (fixes a unique key, equality prefix, range after it, narrower index)
    type Score = (bool, usize, bool, std::cmp::Reverse<usize>);
    let mut best: Option<(Score, IndexAccess)> = None;
    for (ix, spec) in schema.indexes().enumerate() {
        if !indexable(schema, spec) {
            continue;
        }
        let eq_len = eq_prefix(spec, preds, max);
        let range = has_range(spec, eq_len, preds);
        if eq_len == 0 && !range {
            continue;
        }
        let full_unique = spec.unique && eq_len == spec.columns.len();
        let score = (
            full_unique,
            eq_len,
            range,
            std::cmp::Reverse(spec.columns.len()),
        );
        if best.as_ref().is_none_or(|(b, _)| score > *b) {
            best = Some((
                score,
                IndexAccess {
                    index: ix,
                    eq_len,
                    range,
                    target: None,
                },
            ));
        }
    }
    best.map(|(_, a)| a)
}

/// The index to walk for MIN/MAX of column `col`: one that holds it right after (or in) the
/// prefix equalities fix, or one column later when a range narrows that column; of those,
/// the one whose conditions narrow the walk most.
pub fn choose_min_max(schema: &TableSchema, preds: &Preds, col: usize) -> Option<IndexAccess> {
    if !schema
        .columns
        .get(col)
        .is_some_and(|c| ordered_like_values(c.ty))
    {
        return None;
    }
    let mut best: Option<((usize, std::cmp::Reverse<usize>), IndexAccess)> = None;
    for (ix, spec) in schema.indexes().enumerate() {
        if !indexable(schema, spec) {
            continue;
        }
        let Some(target) = spec.columns.iter().position(|&c| c == col) else {
            continue;
        };
        let eq_len = eq_prefix(spec, preds, &fixed_probes);
        let gap = target.saturating_sub(eq_len);
        // columns between the prefix and the target are skipped over group by group: only
        // worth it for one column that a range narrows
        if gap > 1 || gap == 1 && !has_range(spec, eq_len, preds) {
            continue;
        }
        // the index whose prefix the conditions narrow most, then the fewest skipped columns
        let narrowed = eq_len + usize::from(has_range(spec, eq_len, preds));
        let score = (narrowed, std::cmp::Reverse(gap));
        if best.as_ref().is_none_or(|(b, _)| score > *b) {
            best = Some((
                score,
                IndexAccess {
                    index: ix,
                    eq_len,
                    range: has_range(spec, eq_len, preds),
                    target: Some(target),
                },
            ));
        }
    }
    match best {
        // a walk the conditions do not narrow filters row after row until one passes: when
        // an index can fetch the qualifying rows instead, that is the safer plan
        Some(((0, _), _)) if choose(schema, preds, &fixed_probes).is_some() => None,
        b => b.map(|(_, a)| a),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::ops::Bound;
    use tdlite_storage::catalog::{Column, TableKind};
    use tdlite_storage::key::KeyPart;

    /// A table of INTEGER columns a, b, c with one index on (a, b, c).
    pub(crate) fn schema() -> TableSchema {
        let col = |name: &str| Column {
            name: name.into(),
            ty: SqlType::Integer,
            nullable: true,
            default: None,
            case_specific: false,
            uppercase: false,
            title: None,
            format: None,
            identity: None,
        };
        let index = IndexSpec {
            name: None,
            columns: vec![0, 1, 2],
            unique: false,
        };
        let columns = vec![col("a"), col("b"), col("c")];
        TableSchema::new(
            "t".into(),
            columns,
            TableKind::Multiset,
            false,
            Some(index),
            vec![],
            String::new(),
        )
    }

    /// Input column `i` (not CASESPECIFIC).
    fn col(i: usize) -> Expr {
        Expr::Column {
            index: i,
            case_specific: false,
        }
    }

    /// `l op r`.
    fn bin(op: BinOp, l: Expr, r: Expr) -> Expr {
        Expr::Binary(op, Box::new(l), Box::new(r))
    }

    fn points(values: &[i64]) -> ColumnPred {
        ColumnPred {
            points: Some(values.iter().map(|&v| Value::Int(v)).collect()),
            ..ColumnPred::default()
        }
    }

    /// The first two key parts of a range's lower bound.
    fn prefix(r: &KeyRange) -> (Value, Value) {
        let Bound::Included((k, _)) = &r.lo else {
            panic!("an inclusive lower bound")
        };
        let val = |i| match k.part(i) {
            Some(KeyPart::Val(v)) => v,
            _ => panic!("a value"),
        };
        (val(0), val(1))
    }

    #[test]
    fn ranges_are_every_combination_of_the_points_in_key_order() {
        let s = schema();
        let a = IndexAccess {
            index: 0,
            eq_len: 2,
            range: false,
            target: None,
        };
        let preds = Preds::from([(0, points(&[1, 2])), (1, points(&[5, 6, 7]))]);
        let got: Vec<(Value, Value)> = a.ranges(&s, &preds).unwrap().iter().map(prefix).collect();
        let want: Vec<(Value, Value)> = [(1, 5), (1, 6), (1, 7), (2, 5), (2, 6), (2, 7)]
            .into_iter()
            .map(|(x, y)| (Value::Int(x), Value::Int(y)))
            .collect();
        assert_eq!(got, want);
        // an empty list of points (an IN subquery without rows) reads nothing
        let none = Preds::from([(0, points(&[])), (1, points(&[5]))]);
        assert_eq!(a.ranges(&s, &none), Some(Vec::new()));
        // a fixed column without points does not fit the access: no ranges at all
        let missing = Preds::from([(0, points(&[1]))]);
        assert_eq!(a.ranges(&s, &missing), None);
    }

    #[test]
    fn a_walk_plan_is_kept_for_conditions_of_the_same_shape_only() {
        let preds = Preds::from([(0, points(&[1])), (1, points(&[2, 3]))]);
        let shape = pred_shape(&preds);
        let other_values = Preds::from([(0, points(&[9])), (1, points(&[4, 8]))]);
        assert!(same_shape(&other_values, &shape));
        let fewer_points = Preds::from([(0, points(&[9])), (1, points(&[4]))]);
        assert!(!same_shape(&fewer_points, &shape));
        let bounded = ColumnPred {
            lo: Some((Value::Int(1), true)),
            ..ColumnPred::default()
        };
        let ranged = Preds::from([(0, points(&[1])), (1, bounded)]);
        assert!(!same_shape(&ranged, &shape));
        let one_column = Preds::from([(0, points(&[1]))]);
        assert!(!same_shape(&one_column, &shape));
    }

    /// A constant expression compared with a column is evaluated into the column's entry; an
    /// expression that reads a column, calls RANDOM or fails to evaluate is not sargable, and
    /// a folded DECIMAL comparison is not taken to be the whole condition (it may overflow).
    #[test]
    fn constant_expressions_are_folded_into_probes() {
        use crate::expr::Func;
        use crate::functions::Builtin;
        use arrow::array::Int64Array;
        use std::sync::Arc;
        let s = schema();
        let int = |v: i64| Expr::Literal(Arc::new(Int64Array::from(vec![v])));
        let (preds, whole) =
            whole_preds(&bin(BinOp::Eq, col(0), bin(BinOp::Add, int(5), int(1))), &s);
        assert_eq!(preds, Preds::from([(0, points(&[6]))]));
        assert!(!whole);
        let (preds, _) = whole_preds(&bin(BinOp::Lt, bin(BinOp::Mul, int(2), int(3)), col(1)), &s);
        assert_eq!(
            preds.get(&1).and_then(|p| p.lo.clone()),
            Some((Value::Int(6), false))
        );
        let list = Expr::InList(
            Box::new(col(2)),
            vec![bin(BinOp::Sub, int(9), int(2)), int(3)].into(),
            false,
        );
        assert_eq!(
            whole_preds(&list, &s).0,
            Preds::from([(2, points(&[3, 7]))])
        );
        let random = Expr::Func(Func::Builtin(Builtin::Random), vec![int(1), int(2)]);
        for unsargable in [
            bin(BinOp::Eq, col(0), bin(BinOp::Add, col(1), int(1))),
            bin(BinOp::Eq, col(0), bin(BinOp::Div, int(1), int(0))),
            bin(BinOp::Eq, col(0), random),
        ] {
            assert_eq!(whole_preds(&unsargable, &s).0.len(), 0, "{unsargable:?}");
        }
    }

    /// A template read through slot values gives what `whole_preds` gives for the condition
    /// with those values put in: over every condition of up to three conjuncts from a list
    /// (points, bounds either way round, IN lists, IS NULL, `<>`, conjuncts that are not
    /// sargable, two on one column, constant expressions with a slot or without) and values
    /// that convert exactly, do not, or are NULL.
    #[test]
    fn a_template_gives_the_preds_of_its_condition_with_each_runs_values() {
        use arrow::array::{Decimal128Array, Int64Array};
        use std::sync::Arc;
        let s = schema();
        let int = |v: Option<i64>| -> ArrayRef { Arc::new(Int64Array::from(vec![v])) };
        let dec = |v: Option<i128>| -> ArrayRef {
            Arc::new(
                Decimal128Array::from(vec![v])
                    .with_precision_and_scale(10, 1)
                    .unwrap(),
            )
        };
        let lit = |a: &ArrayRef| Expr::Literal(a.clone());
        let (s1, s2) = (int(Some(1)), dec(Some(20)));
        let conjuncts = [
            bin(BinOp::Eq, col(0), lit(&s1)),
            bin(BinOp::Gt, col(1), lit(&s1)),
            bin(BinOp::LtEq, col(1), lit(&s2)),
            bin(BinOp::Lt, lit(&s2), col(2)),
            Expr::InList(
                Box::new(col(2)),
                vec![lit(&s1), lit(&int(Some(3)))].into(),
                false,
            ),
            bin(BinOp::NotEq, col(0), lit(&s1)),
            Expr::IsNull(Box::new(col(2)), false),
            bin(BinOp::Eq, col(0), lit(&int(Some(5)))),
            bin(BinOp::Eq, col(0), col(1)),
            bin(BinOp::Eq, bin(BinOp::Add, col(0), lit(&s1)), lit(&s2)),
            // constant expressions, with a slot and without
            bin(
                BinOp::Eq,
                col(0),
                bin(BinOp::Add, lit(&s1), lit(&int(Some(1)))),
            ),
            bin(
                BinOp::Gt,
                bin(BinOp::Mul, lit(&int(Some(5))), lit(&s2)),
                col(1),
            ),
            bin(BinOp::LtEq, col(2), Expr::Neg(Box::new(lit(&int(Some(4)))))),
        ];
        let values = [
            (int(Some(2)), dec(Some(30))),
            (int(Some(7)), dec(Some(25))), // 2.5: not an INTEGER
            (int(None), dec(None)),
        ];
        let is_slot = |a: &ArrayRef| Arc::ptr_eq(a, &s1) || Arc::ptr_eq(a, &s2);
        let mut conds = Vec::new();
        for (i, x) in conjuncts.iter().enumerate() {
            conds.push(x.clone());
            for (j, y) in conjuncts.iter().enumerate() {
                conds.push(bin(BinOp::And, x.clone(), y.clone()));
                let z = &conjuncts[(i + j) % conjuncts.len()];
                conds.push(bin(
                    BinOp::And,
                    bin(BinOp::And, x.clone(), y.clone()),
                    z.clone(),
                ));
            }
        }
        let mut checked = 0;
        for cond in &conds {
            let t = CondTemplate::new(cond, &s, &is_slot);
            for (v1, v2) in &values {
                let value = |a: &ArrayRef| match a {
                    a if Arc::ptr_eq(a, &s1) => v1.clone(),
                    a if Arc::ptr_eq(a, &s2) => v2.clone(),
                    a => a.clone(),
                };
                let put = cond.rebuild(&mut |e| match e {
                    Expr::Literal(a) => Some(Expr::Literal(value(a))),
                    _ => None,
                });
                let got = t.preds(&s, &value);
                assert_eq!(*got, whole_preds(&put, &s), "{cond:?} with {v1:?}, {v2:?}");
                checked += 1;
            }
        }
        assert_eq!(checked, 3 * (13 + 169 + 169));
    }
}
