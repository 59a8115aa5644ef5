//! Subqueries bound without running them: a block bound before its read
//! (`Exec::bind_before_read`, query.rs) binds each uncorrelated scalar subquery,
//! `[NOT] EXISTS`, `[NOT] IN` and quantified comparison (`x > ANY (SELECT …)`) for its
//! columns alone (`Exec::shape_of`, which reads no row), and puts a one-row *placeholder*
//! array of the subquery's type where its value goes. Once every clause of the block is
//! bound, the subqueries run ([`Deferral::run`]) and their values replace the placeholders
//! (`EarlyBound::put`, early.rs), before the block plans its read. So the binder runs no
//! query for them, and a name or type error anywhere in the block comes before a
//! subquery's run-time error (Teradata resolves a whole request before it runs it). An
//! UPDATE's or DELETE's WHERE and an UPDATE's SET values bind the same way
//! (deferred_run.rs `Exec::bind_deferring`), each subquery run as the node of those
//! expressions it was bound from ([`Nodes::Exprs`]).
//!
//! An IN's list is one placeholder item until the subquery's values are put in its place
//! ([`Values::put`]); a quantified comparison is the one comparison `x > placeholder` until
//! each value is compared with `x` (`= ANY` and `<> ALL` are IN and NOT IN). A row value's
//! IN (`(a, b) IN (SELECT …)`) is an `Expr::InRows` whose set of rows is the placeholder
//! (a one-row struct array of the subquery's columns) until its rows are put in.
//!
//! A subquery that names a column of the block is correlated and runs per row of the block.
//! Binding it before the read gives a NULL placeholder (made by `Exec::correlated`, not
//! here), so the block's other names are resolved, and a wrong one raised, before any row
//! is read; the deferral notes that the block needs its rows ([`Deferral::needs_rows`]),
//! and the block is then bound over its rows instead (`read_then_bind`). A name neither the
//! subquery nor the block has is not taken for a correlated one: it is the binding's 3810,
//! before any row is read. A join's correlated WHERE or ON conjunct is set aside instead,
//! to run per joined row as it always has, and what binding it deferred or noted is
//! forgotten (`Exec::bind_or_defer`, [`Deferral::back_to`]).
//!
//! In a run for a query's columns alone (`Exec::shaping`) every subquery runs where it
//! binds (over no rows, that reads nothing either; deferring there would bind each nested
//! level twice again, a cost that doubles per level), and binding stops at a correlated one,
//! which is noted (going on would run every subquery after it twice, for the same reason). A
//! prepared request keeps a subquery's columns (its run over no rows) in its plan cache
//! (`Exec::kept_shape`, bound_select.rs), so its later executions skip that run.
//!
//! Invariant: a placeholder array is made here and nowhere else (the NULL a correlated
//! subquery binds to is not one: a block holding it is never read, but bound again over its
//! rows, and a join's conjunct holding it is set aside), is a fresh allocation (an `Arc` no
//! other expression shares), and is never evaluated for a row: before `EarlyBound::put` the
//! block's expressions are evaluated only over no row, for their types
//! (`EarlySource::check_types`). The one expression that keeps placeholders after it is a
//! CTE's WHERE, which is bound early for its types alone and bound again (its subqueries run
//! there) where the CTE's rows are filtered: its inputs are dropped from the deferral
//! (`Deferral::truncate`). (A join's ON conjunct set aside after a correlated one is bound
//! too, and its bound form dropped unevaluated: its subqueries run, their values put
//! nowhere.) An IN's placeholder item stays in a block bound for a prepared request's plan
//! (a `Slot::Set`, slots.rs), and so does a row value IN's placeholder set (a
//! `Slot::Rows`): each run of that plan puts its values (its rows) in before anything
//! evaluates it (inputs.rs `Inputs::put`). A data change's expressions bound so
//! (deferred_run.rs `Exec::bind_deferring`) get their values by [`Values::put`] before any
//! row is evaluated; those bound there for their errors alone (`resolve_only`) are
//! evaluated over no row and dropped, their inputs forgotten ([`Deferral::back_to`]); a
//! kept WHERE or SET value (bound_select.rs `BoundCondition`) keeps an IN's placeholder as
//! a slot, put in at each run (`CachedExpr::as_cond`, `CachedExpr::into_expr`). EXPLAIN binds no block with a subquery
//! this way.

use crate::error::{Error, Result};
use crate::expr::Expr;
use crate::result::Rows;
use arrow::array::{Array, ArrayRef, BooleanArray};
use sqlparser::ast::{self, Visit};
use std::cell::Cell;
use std::ops::ControlFlow;
use std::sync::Arc;

/// What a deferred subquery gives.
#[derive(Clone, Copy)]
pub(crate) enum Kind {
    /// `(SELECT …)`: its one value, NULL for no row (3669 for two).
    Scalar,
    /// `EXISTS (…)`, or `NOT EXISTS` (true).
    Exists(bool),
    /// `x [NOT] IN (SELECT …)`: its values, each an item of the IN list; whether they compare
    /// case-specifically (a CASESPECIFIC column's: `types::case_specific`, set by
    /// [`Deferral::defer`]).
    Set(bool),
    /// `x op ANY|ALL (SELECT …)` (op not `= ANY` or `<> ALL`, which are IN and NOT IN):
    /// its values, each compared with `x`; case-specifically as for a set, and whether ALL.
    /// Its placeholder is the right side of the one comparison `x op placeholder`.
    Quantified(bool, bool),
    /// `(x, y) [NOT] IN (SELECT …)`: its rows, a struct array whose fields are its columns
    /// (in_set.rs); its placeholder is the set of an `Expr::InRows`.
    Rows,
}

/// Where a deferral's subqueries were bound, so that each runs as the node it was bound from
/// ([`Deferral::run`]).
#[derive(Clone, Copy)]
pub(crate) enum Nodes<'a> {
    /// A block: its SELECT and its ORDER BY.
    Block(&'a ast::Select, &'a [ast::OrderByExpr]),
    /// A statement's expressions: an UPDATE's or DELETE's WHERE, an UPDATE's SET values.
    Exprs(&'a [&'a ast::Expr]),
}

/// One subquery bound for its columns alone, and the placeholder where its value goes.
struct Input {
    placeholder: ArrayRef,
    /// Where the subquery bound is (to run that node, not the copy: a prepared request's
    /// plan cache finds a request's own blocks by address), and a copy of it (run where
    /// binding bound a node made for the purpose, which is gone by then).
    addr: usize,
    query: Box<ast::Query>,
    kind: Kind,
}

/// The subqueries a block being bound before its read deferred, in the order bound.
#[derive(Default)]
pub(crate) struct Deferral {
    inputs: Vec<Input>,
    /// The subqueries run where they bind (a run for the columns alone); only a correlated
    /// one is noted.
    in_place: bool,
    /// How many correlated subqueries were met (outside a conjunct `Exec::bind_or_defer`
    /// set aside, which [`Deferral::back_to`] forgets): with one, the block binds over its
    /// rows instead ([`Deferral::needs_rows`]).
    correlated: usize,
}

/// Where a deferral stood before something was bound ([`Deferral::mark`]).
#[derive(Clone, Copy)]
pub(crate) struct Mark {
    deferred: usize,
    correlated: usize,
}

/// The values of a block's deferred subqueries, each with its placeholder.
pub(crate) struct Values {
    inputs: Vec<(Input, ArrayRef)>,
}

impl Kind {
    /// Whether its values compare case-specifically (a set's or quantified comparison's of a
    /// CASESPECIFIC column).
    pub(crate) fn case_specific(self) -> bool {
        matches!(self, Kind::Set(true) | Kind::Quantified(true, _))
    }
}

impl Deferral {
    /// A deferral for a block about to bind; with `in_place`, its subqueries run where they
    /// bind and only a correlated one is noted.
    pub(crate) fn new(in_place: bool) -> Self {
        Deferral {
            in_place,
            ..Deferral::default()
        }
    }

    /// Whether the block's uncorrelated subqueries are deferred.
    pub(crate) fn defers(&self) -> bool {
        !self.in_place
    }

    /// Notes a correlated subquery met: the block needs its rows.
    pub(crate) fn note_correlated(&mut self) {
        self.correlated += 1;
    }

    /// Whether a correlated subquery was met: the block binds over its rows instead.
    pub(crate) fn needs_rows(&self) -> bool {
        self.correlated > 0
    }

    /// How many subqueries were deferred so far.
    pub(crate) fn len(&self) -> usize {
        self.inputs.len()
    }

    /// Forgets the subqueries deferred after the first `n` (bound again where they run);
    /// not the correlated ones met: a failed try at a select-list alias (clauses.rs) truncates, since in
    /// a run for the columns alone its failure may be a correlated subquery's own 3810, whose
    /// note must stand (a correlated one that noted it in a failed try costs a read first,
    /// not a wrong result).
    pub(crate) fn truncate(&mut self, n: usize) {
        self.inputs.truncate(n);
    }

    /// Where it stands now: to see what binding something met since
    /// ([`Deferral::correlated_since`]), or to forget it ([`Deferral::back_to`]).
    pub(crate) fn mark(&self) -> Mark {
        Mark {
            deferred: self.inputs.len(),
            correlated: self.correlated,
        }
    }

    /// Whether a correlated subquery was met since `mark`.
    pub(crate) fn correlated_since(&self, mark: Mark) -> bool {
        self.correlated > mark.correlated
    }

    /// Back where it stood at `mark`: what was deferred or noted since is forgotten (bound
    /// again where it runs).
    pub(crate) fn back_to(&mut self, mark: Mark) {
        self.inputs.truncate(mark.deferred);
        self.correlated = mark.correlated;
    }

    /// Whether nothing was deferred.
    pub(crate) fn is_empty(&self) -> bool {
        self.inputs.is_empty()
    }

    /// Defers subquery `q` of `kind`, whose columns `shape` gives (its run over no rows):
    /// the placeholder for its value (for a set, the one item of its IN list), and the kind
    /// deferred (a set's case-specificity read from its column).
    ///
    /// # Errors
    /// A scalar or IN subquery's select list of more than one item.
    pub(crate) fn defer(
        &mut self,
        q: &ast::Query,
        mut kind: Kind,
        shape: &Rows,
    ) -> Result<(ArrayRef, Kind)> {
        let placeholder: ArrayRef = match kind {
            // (over no row: NULL of its type, made afresh)
            Kind::Scalar => {
                let typed = crate::bind::scalar_of(shape)?;
                arrow::array::new_null_array(typed.data_type(), 1)
            }
            Kind::Exists(_) => Arc::new(BooleanArray::from(vec![None::<bool>])),
            Kind::Rows => {
                let fields = shape.schema.fields().clone();
                arrow::array::new_null_array(&arrow::datatypes::DataType::Struct(fields), 1)
            }
            Kind::Set(_) | Kind::Quantified(..) => match shape.schema.fields().as_ref() {
                [one] => {
                    let cs = crate::types::case_specific(one);
                    kind = match kind {
                        Kind::Quantified(_, all) => Kind::Quantified(cs, all),
                        _ => Kind::Set(cs),
                    };
                    arrow::array::new_null_array(one.data_type(), 1)
                }
                _ => return Err(set_of_columns()),
            },
        };
        self.inputs.push(Input {
            placeholder: placeholder.clone(),
            addr: q as *const ast::Query as usize,
            query: Box::new(q.clone()),
            kind,
        });
        Ok((placeholder, kind))
    }

    /// Runs the deferred subqueries of `nodes` (a block's SELECT and ORDER BY, or a
    /// statement's expressions, as bound) through `value` (given the query, its kind and its placeholder: a scalar one's value,
    /// whether an EXISTS's subquery gives a row, an IN's values, [`column_of`], a row value
    /// IN's rows, [`rows_of`], or, for an IN (a row value's too) kept as a slot of a
    /// prepared request's plan, its placeholder itself, left in place for each run to put
    /// its values in), in the order they were bound: each the node of `nodes`
    /// it was bound from, or its copy where binding bound a node of its own making (a WHERE
    /// that names a select-list alias). `None` where a value's type is not its placeholder's
    /// (the caller binds the block again with its subqueries run in place).
    ///
    /// # Errors
    /// The subqueries' run-time errors (3669 for a scalar one of two rows, 2618, …).
    pub(crate) fn run<F>(self, nodes: Nodes<'_>, mut value: F) -> Result<Option<Values>>
    where
        F: FnMut(&ast::Query, Kind, &ArrayRef) -> Result<ArrayRef>,
    {
        let mut inputs = Vec::with_capacity(self.inputs.len());
        for input in self.inputs {
            let v = match run_in_block(nodes, &input, &mut value) {
                Some(v) => v?,
                None => value(&input.query, input.kind, &input.placeholder)?,
            };
            let many = matches!(input.kind, Kind::Set(_) | Kind::Quantified(..) | Kind::Rows);
            let one = many || v.len() == 1;
            if v.data_type() != input.placeholder.data_type() || !one {
                return Ok(None);
            }
            inputs.push((input, v));
        }
        Ok(Some(Values { inputs }))
    }
}

impl Values {
    /// Whether `e` holds a placeholder (else [`Values::put`] would give it back as it is).
    pub(crate) fn holds(&self, e: &Expr) -> bool {
        let mut found = false;
        e.visit_literals(&mut |a| found |= self.find(a).is_some());
        found
    }

    /// `e` with each placeholder's value put in: a scalar or EXISTS value where its
    /// placeholder is, an IN list of one placeholder item made the list of the set's values
    /// (left as it is where the set is kept as a plan's slot, [`Deferral::run`]), a
    /// quantified `x op placeholder` made the OR (ANY) or AND (ALL) of `x op value` over the
    /// values, a row value IN's placeholder set made its rows ([`rows_of`]; left as it is
    /// where it is kept as a plan's slot).
    ///
    /// # Errors
    /// An internal error for a set's or quantified placeholder met outside its IN list or
    /// comparison.
    pub(crate) fn put(&self, e: &Expr) -> Result<Expr> {
        let stray = Cell::new(false);
        let out = e.rebuild(&mut |x| self.put_here(x, &stray));
        match stray.get() {
            true => Err(left_in("an IN list")),
            false => Ok(out),
        }
    }

    fn put_here(&self, x: &Expr, stray: &Cell<bool>) -> Option<Expr> {
        match x {
            Expr::Literal(a) => {
                let (input, v) = self.find(a)?;
                match input.kind {
                    Kind::Set(_) | Kind::Quantified(..) | Kind::Rows => {
                        stray.set(true);
                        None
                    }
                    Kind::Scalar | Kind::Exists(_) => Some(Expr::Literal(v.clone())),
                }
            }
            Expr::InList(operand, items, negated) => {
                let (input, v) = self.find(set_item(items)?)?;
                let Kind::Set(cs) = input.kind else {
                    return None;
                };
                let operand = operand.rebuild(&mut |y| self.put_here(y, stray));
                Some(match Arc::ptr_eq(v, &input.placeholder) {
                    // (kept as a plan's slot: each run puts its values in, inputs.rs)
                    true => Expr::InList(Box::new(operand), items.clone(), *negated),
                    false => in_list_of(operand, v, cs, *negated),
                })
            }
            Expr::InRows(row, set, negated, _) => {
                let (_, v) = self.find(set)?;
                let row = row
                    .iter()
                    .map(|y| y.rebuild(&mut |z| self.put_here(z, stray)));
                Some(Expr::InRows(
                    row.collect(),
                    v.clone(),
                    *negated,
                    Default::default(),
                ))
            }
            Expr::Binary(op, x, item) => {
                let (input, v) = self.find(set_item(std::slice::from_ref(&**item))?)?;
                let Kind::Quantified(cs, all) = input.kind else {
                    return None;
                };
                let x = x.rebuild(&mut |y| self.put_here(y, stray));
                Some(crate::bind::quantified(x, *op, all, list_items(v, cs)))
            }
            _ => None,
        }
    }

    fn find(&self, a: &ArrayRef) -> Option<&(Input, ArrayRef)> {
        self.inputs
            .iter()
            .find(|(i, _)| Arc::ptr_eq(&i.placeholder, a))
    }
}

/// `value` of `input`'s subquery as the node of `nodes` it was bound from (the same
/// address, and equal to its copy); `None` if `nodes` have no such node.
fn run_in_block<F>(nodes: Nodes<'_>, input: &Input, value: &mut F) -> Option<Result<ArrayRef>>
where
    F: FnMut(&ast::Query, Kind, &ArrayRef) -> Result<ArrayRef>,
{
    struct Find<'f, F> {
        input: &'f Input,
        value: &'f mut F,
        out: Option<Result<ArrayRef>>,
    }
    impl<F: FnMut(&ast::Query, Kind, &ArrayRef) -> Result<ArrayRef>> ast::Visitor for Find<'_, F> {
        type Break = ();
        fn pre_visit_query(&mut self, q: &ast::Query) -> ControlFlow<()> {
            let at = q as *const ast::Query as usize;
            if at == self.input.addr && *q == *self.input.query {
                self.out = Some((self.value)(q, self.input.kind, &self.input.placeholder));
                return ControlFlow::Break(());
            }
            ControlFlow::Continue(())
        }
    }
    let mut find = Find {
        input,
        value,
        out: None,
    };
    let _found = match nodes {
        Nodes::Block(s, order_by) => {
            s.visit(&mut find).is_break() || order_by.iter().any(|o| o.visit(&mut find).is_break())
        }
        Nodes::Exprs(exprs) => exprs.iter().any(|e| e.visit(&mut find).is_break()),
    };
    find.out
}

/// The array of a one-item list that is a literal (CASESPECIFIC or not): a deferred set's
/// placeholder item (`[NOT] IN (SELECT …)` bound for its columns alone, or a `Slot::Set`),
/// the right side of a quantified comparison, or a parameter's (`x IN (?)`: the caller
/// tells them apart by the array); `None` for any other list.
pub(crate) fn set_item(items: &[Expr]) -> Option<&ArrayRef> {
    let [item] = items else {
        return None;
    };
    let lit = match item {
        Expr::CaseSpecific(inner) => &**inner,
        other => other,
    };
    match lit {
        Expr::Literal(a) => Some(a),
        _ => None,
    }
}

/// `operand [NOT] IN (…)` (`negated`) over a set's `values`, each an item of the list,
/// compared case-specifically where `cs` (a CASESPECIFIC column's).
pub(crate) fn in_list_of(operand: Expr, values: &ArrayRef, cs: bool, negated: bool) -> Expr {
    Expr::InList(Box::new(operand), list_items(values, cs).into(), negated)
}

/// Each of `values` as an item of an IN list or a quantified comparison, compared
/// case-specifically where `cs`.
pub(crate) fn list_items(values: &ArrayRef, cs: bool) -> Vec<Expr> {
    (0..values.len())
        .map(|i| {
            let item = Expr::Literal(values.slice(i, 1));
            match cs {
                true => Expr::CaseSpecific(Box::new(item)),
                false => item,
            }
        })
        .collect()
}

/// A deferred IN or quantified subquery's values, or an IN slot's at one run (its rows' one
/// column, `rows`), in one array.
///
/// # Errors
/// A select list of more than one item; Arrow's concatenation errors.
pub(crate) fn column_of(rows: &Rows) -> Result<ArrayRef> {
    if rows.schema.fields().len() != 1 {
        return Err(set_of_columns());
    }
    concat_column(rows, 0)
}

/// Column `c` of `rows` over all its batches, as one array.
fn concat_column(rows: &Rows, c: usize) -> Result<ArrayRef> {
    match rows.batches.as_slice() {
        [] => Ok(arrow::array::new_empty_array(
            rows.schema.field(c).data_type(),
        )),
        [one] => Ok(one.column(c).clone()),
        many => {
            let parts: Vec<&dyn Array> = many.iter().map(|b| b.column(c).as_ref()).collect();
            Ok(arrow::compute::concat(&parts)?)
        }
    }
}

/// A row value IN's subquery's rows (`rows`) for a row of `width` values, as the set of an
/// `Expr::InRows`: a struct array whose fields are its columns.
///
/// # Errors
/// A select list of another width; Arrow's concatenation errors.
pub(crate) fn rows_of(rows: &Rows, width: usize) -> Result<ArrayRef> {
    let fields = rows.schema.fields().clone();
    check_width(fields.len(), width)?;
    let columns = (0..width)
        .map(|c| concat_column(rows, c))
        .collect::<Result<Vec<_>>>()?;
    Ok(Arc::new(arrow::array::StructArray::try_new(
        fields, columns, None,
    )?))
}

/// How many columns a row value IN's set (or its placeholder) has: its struct's fields.
pub(crate) fn set_width(set: &ArrayRef) -> usize {
    match set.data_type() {
        arrow::datatypes::DataType::Struct(fields) => fields.len(),
        _ => 0,
    }
}

/// A row value IN's subquery of `columns` columns for a row of `width` values: 9913's kin
/// where they differ.
///
/// # Errors
/// The mismatch.
pub(crate) fn check_width(columns: usize, width: usize) -> Result<()> {
    match columns == width {
        true => Ok(()),
        false => Err(Error::TypeMismatch(format!(
            "the IN subquery returns {columns} columns for {width} values"
        ))),
    }
}

/// An IN subquery's select list of more than one item (`x IN (SELECT a, b …)`).
pub(crate) fn set_of_columns() -> Error {
    Error::TypeMismatch("an IN subquery must return one column".into())
}

/// `[NOT] EXISTS`'s value (`negated` for NOT) where its subquery gives rows (`any`).
pub(crate) fn exists_value(any: bool, negated: bool) -> ArrayRef {
    Arc::new(BooleanArray::from(vec![any != negated]))
}

/// An internal error for a placeholder left in a bound block that cannot take its value.
pub(crate) fn left_in(what: &str) -> Error {
    Error::Internal(format!("a deferred subquery's value left out of {what}"))
}
