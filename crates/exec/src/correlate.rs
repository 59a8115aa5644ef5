//! Correlated subqueries: a subquery that names a column of the query around it is run once
//! per row of that query, with the row's values standing in for the outer columns.
//!
//! While a clause is bound over a batch that is already known, `Exec::corr` holds that batch. A
//! subquery that fails to bind on its own with 3810 is then run for each row
//! (`Exec::correlated`): the row is pushed on `Exec::outer`, where `bind_column` looks when a
//! name is not in the subquery's own scope, and the per-row results become one more column of
//! the batch, which the bound expression reads. The batches clauses are bound over:
//! - WHERE of one relation: its rows that the conjuncts without a subquery keep (those read
//!   the table first, through an index where they allow: `read_then_correlate` in query.rs),
//!   and so for the WHERE of UPDATE and DELETE (`matching_rows` in dml.rs);
//! - WHERE of a join, and the ON of a join of inner joins only: the conjuncts that hold a
//!   correlated subquery (one that fails with 3810 on a name the FROM has, or, in a block
//!   bound before its read, binds to a NULL placeholder) are set aside
//!   (`Exec::bind_or_defer`) and run last, over the joined rows (`Exec::filter_correlated`),
//!   once every other condition has filtered them;
//! - the ON of a join step in a FROM with outer joins: the step's pairs that pass its other
//!   conditions (`Exec::correlated_mask`, before unmatched rows are kept);
//! - the select list and ORDER BY of a query without GROUP BY: its filtered rows;
//! - the select list, HAVING, QUALIFY and ORDER BY of a grouped query: its groups (the
//!   aggregated batch, whose GROUP BY key columns keep their names), bound a second time once
//!   the groups exist (see `clauses`); a HAVING without a subquery drops groups first, so the
//!   others run only for the groups it keeps.
//!
//! A name is the nearest block's that has it. While a block's subquery is bound on its own
//! first (`Exec::alone`), the block's scope is noted as *nearer* than the rows on `outer`: a
//! subquery nested in it that names one of the block's columns then fails with 3810 even
//! where a row farther out has that name, so the subquery runs per row of the block, whose
//! row is then the innermost on `outer` (`SELECT … FROM y WHERE EXISTS (SELECT 1 FROM r WHERE
//! r.a = y.a AND EXISTS (SELECT 1 FROM u WHERE b = 5))`: `b` is r's, not y's).
//!
//! Rows that agree on the outer columns a subquery names share one run (`Memo`): the result of
//! a run depends only on those values, the statement's snapshot and the request's parameters,
//! except for RANDOM and SAMPLE, whose subqueries always run per row. With a plan cache (a
//! prepared request, a text run before, or a text's first run for these runs alone), the
//! subquery's block is bound at its first run with the outer columns it names as slots
//! (`Slot::Outer`) and runs from that plan for the other rows (bound_select.rs).
//!
//! Invariant: the columns added to a batch are aligned with its rows, and the caller widens the
//! batch with them before evaluating anything bound while `corr` was set.

use crate::bind::Scope;
use crate::error::{Error, Result};
use crate::exec::Exec;
use crate::expr::Expr;
use crate::ops::filter_by;
use arrow::array::{new_null_array, ArrayRef};
use arrow::compute::concat;
use arrow::datatypes::DataType;
use arrow::record_batch::RecordBatch;
use sqlparser::ast;
use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::ops::ControlFlow;
use std::sync::Arc;
use tdlite_storage::types::{value_at, Value};

/// A condition's conjuncts as [`Exec::bind_or_defer`] splits them: bound, set aside (to run
/// last, over the rows), and those set aside that are bound too, to be tried early.
pub(crate) type Deferred = (Vec<Expr>, Vec<ast::Expr>, Vec<Expr>);

/// One row of an enclosing query, for a subquery run on its behalf.
pub struct OuterRow {
    scope: Arc<Scope>,
    batch: RecordBatch,
    row: usize,
    /// The columns of the row the subquery has named so far.
    used: RefCell<Vec<usize>>,
}

impl OuterRow {
    /// A row of NULLs of a relation whose columns `scope` names and `schema` types: what a
    /// subquery is bound over where the enclosing row is not known (EXPLAIN's check of its
    /// names), as a correlated subquery over no rows is bound over one row of NULLs.
    pub(crate) fn nulls(scope: &Scope, schema: &arrow::datatypes::Schema) -> Result<OuterRow> {
        Ok(OuterRow {
            scope: Arc::new(scope.clone()),
            batch: null_row(schema)?,
            row: 0,
            used: RefCell::new(Vec::new()),
        })
    }
}

/// The batch being bound over, and the per-row columns correlated subqueries added to it.
pub struct Correlation {
    scope: Arc<Scope>,
    batch: RecordBatch,
    extra: Vec<ArrayRef>,
}

impl Correlation {
    /// Binding over `batch`, whose columns `scope` names; no subquery columns yet.
    fn new(scope: &Scope, batch: RecordBatch) -> Self {
        Correlation {
            scope: Arc::new(scope.clone()),
            batch,
            extra: Vec::new(),
        }
    }

    /// The rows bound over, widened by the columns correlated subqueries added.
    fn widened(self) -> Result<RecordBatch> {
        if self.extra.is_empty() {
            return Ok(self.batch);
        }
        let extra = self
            .extra
            .into_iter()
            .enumerate()
            .map(|(i, a)| (format!("__subquery{i}"), a));
        crate::ops::with_columns(&self.batch, extra)
    }

    /// The scope of the rows being bound over.
    pub(crate) fn scope(&self) -> &Arc<Scope> {
        &self.scope
    }

    /// The rows being bound over (without the columns subqueries added).
    pub(crate) fn batch(&self) -> &RecordBatch {
        &self.batch
    }
}

impl Exec<'_> {
    /// Lets correlated subqueries be bound while `batch` (rows of `scope`) is known; returns
    /// `f`'s result and the batch widened by their columns.
    pub(crate) fn with_correlation<T>(
        &mut self,
        scope: &Scope,
        batch: RecordBatch,
        f: impl FnOnce(&mut Self) -> Result<T>,
    ) -> Result<(T, RecordBatch)> {
        let saved = self.begin_correlation(scope, batch);
        let result = f(self);
        let batch = self.end_correlation(saved);
        Ok((result?, batch?))
    }

    /// Starts binding over `batch`; returns the context to restore.
    pub(crate) fn begin_correlation(
        &mut self,
        scope: &Scope,
        batch: RecordBatch,
    ) -> Option<Correlation> {
        self.corr.replace(Correlation::new(scope, batch))
    }

    /// Ends binding over the batch given to `begin_correlation`: restores `saved` and returns
    /// the batch widened by the columns correlated subqueries added.
    pub(crate) fn end_correlation(&mut self, saved: Option<Correlation>) -> Result<RecordBatch> {
        let c = std::mem::replace(&mut self.corr, saved)
            .ok_or_else(|| Error::Internal("correlation context lost".into()))?;
        c.widened()
    }

    /// Lets a correlated subquery in an aggregate's argument run per row of `batch` (the FROM
    /// rows of the grouped query whose clauses are bound next, over `scope`); returns the
    /// context to restore with [`Exec::end_aggregate_input`].
    pub(crate) fn begin_aggregate_input(
        &mut self,
        scope: &Scope,
        batch: RecordBatch,
    ) -> Option<Correlation> {
        self.agg_input.replace(Correlation::new(scope, batch))
    }

    /// Ends [`Exec::begin_aggregate_input`]: restores `saved` and returns the FROM rows
    /// widened by the columns the aggregates' correlated subqueries added, which their bound
    /// arguments read.
    pub(crate) fn end_aggregate_input(
        &mut self,
        saved: Option<Correlation>,
    ) -> Result<RecordBatch> {
        std::mem::replace(&mut self.agg_input, saved)
            .ok_or_else(|| Error::Internal("aggregate input lost".into()))?
            .widened()
    }

    /// Runs `f` (binding an aggregate's argument) over the grouped query's FROM rows, if they
    /// are known, instead of the batch the rest of the clause is bound over.
    pub(crate) fn over_aggregate_input<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        let rows = self.agg_input.take();
        let saved = std::mem::replace(&mut self.corr, rows);
        let r = f(self);
        self.agg_input = std::mem::replace(&mut self.corr, saved);
        r
    }

    /// Binds the conjuncts of `cond` over `scope`, setting aside those whose subquery names a
    /// column of the scope (it fails with 3810 there, or binds to a correlated subquery's
    /// NULL placeholder in a block bound before its read): correlated subqueries whose rows
    /// are not known yet (the WHERE of a join, bound before the join runs). A conjunct written after one set
    /// aside that could fail (`cannot_fail`, the scope's columns typed by `ty`) is set aside
    /// too, so it runs after the ones written before it; it is also returned bound, third, to
    /// be tried early (a filter of rows it fails on none of). The caller filters its result
    /// with [`Exec::filter_correlated`] over those set aside. In a block bound before its
    /// read (deferred.rs), a conjunct set aside for its correlated subquery leaves none of
    /// its subqueries deferred and does not note that the block needs its rows; one set
    /// aside after it keeps its uncorrelated subqueries deferred for its bound form (run
    /// once the block is bound, and again where the conjunct runs, as they ran twice when
    /// they ran where they bound).
    pub(crate) fn bind_or_defer(
        &mut self,
        cond: &ast::Expr,
        scope: &Scope,
        ty: &dyn Fn(usize) -> Option<DataType>,
    ) -> Result<Deferred> {
        let mut parts = Vec::new();
        crate::conjuncts::conjunct_refs(cond, &mut parts);
        let (mut bound, mut deferred, mut tries) = (Vec::new(), Vec::new(), Vec::new());
        for p in parts {
            let mark = self.deferral.as_ref().map(crate::deferred::Deferral::mark);
            match self.bind_expr(p, scope, None) {
                // (bound over a correlated subquery's placeholder, in a block bound before
                // its read: set aside as well)
                Ok(_) if self.correlated_since(mark) => {
                    self.set_aside(mark);
                    deferred.push(p.clone())
                }
                Ok(e) if !deferred.is_empty() && !crate::expr_tree::cannot_fail(&e, ty) => {
                    deferred.push(p.clone());
                    tries.push(e);
                }
                Ok(e) => bound.push(e),
                Err(Error::ColumnNotFound(n))
                    if has_subquery(p) && self.names_column(&n, scope) =>
                {
                    self.set_aside(mark);
                    deferred.push(p.clone())
                }
                // a subquery's name two of the block's relations have: ambiguous (3822), as
                // where the subquery runs per row of the block (the select list's)
                Err(Error::ColumnNotFound(n)) if has_subquery(p) => {
                    return Err(self
                        .ambiguity(&n, scope)
                        .unwrap_or(Error::ColumnNotFound(n)))
                }
                Err(e) => return Err(e),
            }
        }
        Ok((bound, deferred, tries))
    }

    /// Whether conjunct `p` binds over `scope` and cannot fail (`cannot_fail`, the scope's
    /// columns typed by `ty`): it may run before a conjunct written ahead of it.
    pub(crate) fn binds_safely(
        &mut self,
        p: &ast::Expr,
        scope: &Scope,
        ty: &dyn Fn(usize) -> Option<DataType>,
    ) -> bool {
        (self.bind_expr(p, scope, None)).is_ok_and(|e| crate::expr_tree::cannot_fail(&e, ty))
    }

    /// `batch` (rows of `scope`) filtered by each of `conds` without a subquery that binds
    /// and fails on none of its rows, in turn: conjuncts that run after a subquery's (see
    /// `conjuncts::split_subqueries`) tried early, so fewer rows reach the subquery. They
    /// still run in their place after, on the rows left, where they pass again (so one that
    /// calls RANDOM is not tried: it would filter twice).
    pub(crate) fn tried_early<C: std::borrow::Borrow<ast::Expr>>(
        &mut self,
        scope: &Scope,
        mut batch: RecordBatch,
        conds: &[C],
    ) -> RecordBatch {
        for c in conds.iter().map(C::borrow).filter(|c| !has_subquery(c)) {
            let kept = (self.bind_expr(c, scope, None)).and_then(|e| match e.has_random() {
                true => Ok(None),
                false => filter_by(&batch, &e).map(Some),
            });
            if let Ok(Some(kept)) = kept {
                batch = kept;
            }
        }
        batch
    }

    /// `batch` (rows of `scope`) filtered by each of `conds` in turn, each bound over the rows
    /// left, so that its correlated subqueries run once per such row.
    pub(crate) fn filter_correlated<C: std::borrow::Borrow<ast::Expr>>(
        &mut self,
        scope: &Scope,
        mut batch: RecordBatch,
        conds: &[C],
    ) -> Result<RecordBatch> {
        for c in conds.iter().map(C::borrow) {
            let width = batch.num_columns();
            let (cond, wide) =
                self.with_correlation(scope, batch, |ex| ex.bind_expr(c, scope, None))?;
            batch = filter_by(&wide, &cond)?;
            if batch.num_columns() > width {
                // drop the correlated subqueries' columns again
                batch = batch.project(&(0..width).collect::<Vec<_>>())?;
            }
        }
        Ok(batch)
    }

    /// The rows of `batch` (rows of `scope`) for which every one of `conds` is true, each bound
    /// over the batch so that its correlated subqueries run per row.
    pub(crate) fn correlated_mask(
        &mut self,
        scope: &Scope,
        batch: RecordBatch,
        conds: &[ast::Expr],
    ) -> Result<arrow::array::BooleanArray> {
        let mut mask = arrow::array::BooleanArray::from(vec![true; batch.num_rows()]);
        for c in conds {
            let (cond, wide) =
                self.with_correlation(scope, batch.clone(), |ex| ex.bind_expr(c, scope, None))?;
            let m = crate::ops::mask_of(&wide, &cond)?;
            mask = arrow::compute::and(&mask, &m)?;
        }
        Ok(mask)
    }

    /// True if `name` (as a 3810 gives it: `c` or `t.c`) names a column of `scope`: the name
    /// a subquery could not bind on its own is then one of the rows it is correlated with.
    pub(crate) fn names_column(&self, name: &str, scope: &Scope) -> bool {
        matches!(self.resolve_missing(name, scope), Ok(Some(_)))
    }

    /// `name` (as a 3810 gives it: `c` or `t.c`) resolved over `scope`.
    fn resolve_missing(&self, name: &str, scope: &Scope) -> Result<Option<usize>> {
        let (q, c) = match name.rsplit_once('.') {
            Some((q, c)) => (Some(q), c),
            None => (None, name),
        };
        scope.resolve_at(q, c, self.home_database())
    }

    /// The error of `name` (as a 3810 gives it) over `scope` where two of its columns have it
    /// (3822); `None` where it names one column or none.
    fn ambiguity(&self, name: &str, scope: &Scope) -> Option<Error> {
        self.resolve_missing(name, scope).err()
    }

    /// Runs `f`, which binds and runs a subquery of the block whose scope is `scope` on its
    /// own (before any row of the block is known), with that scope among the nearer ones: a
    /// name the subquery (or one nested in it) does not have and the block does is then not
    /// found (3810), even where a row of a query farther out has it, and the subquery runs
    /// per row of the block instead ([`Exec::correlated`]). With no outer row yet there is
    /// no farther row to take a name from, and nothing is noted.
    pub(crate) fn alone<T>(
        &mut self,
        scope: &Scope,
        f: impl FnOnce(&mut Self) -> Result<T>,
    ) -> Result<T> {
        // with no outer row yet, no name can be taken from a farther one: nothing to note
        if self.outer.is_empty() {
            return f(self);
        }
        self.nearer
            .push((Arc::new(scope.clone()), self.outer.len()));
        let result = f(self);
        self.nearer.pop();
        result
    }

    /// Whether a correlated subquery was met since `mark` ([`Deferral::mark`]) in a block
    /// bound before its read (bound to a placeholder: [`Exec::correlated`]).
    fn correlated_since(&self, mark: Option<crate::deferred::Mark>) -> bool {
        matches!((self.deferral.as_ref(), mark), (Some(d), Some(m)) if d.correlated_since(m))
    }

    /// Forgets what binding a conjunct set aside (by [`Exec::bind_or_defer`]) deferred or
    /// noted, back to `mark` ([`Deferral::mark`], deferred.rs): the conjunct binds again
    /// where it runs, per joined row, and its rows are the join's, not the block's.
    fn set_aside(&mut self, mark: Option<crate::deferred::Mark>) {
        if let (Some(d), Some(m)) = (self.deferral.as_mut(), mark) {
            d.back_to(m);
        }
    }

    /// Notes that a correlated subquery of a block being bound before its read needs the
    /// block's rows (deferred.rs).
    fn note_needs_rows(&mut self) {
        if let Some(d) = self.deferral.as_mut() {
            d.note_correlated();
        }
    }

    /// The value of a name in the rows of enclosing queries, innermost first, and whether its
    /// column is CASESPECIFIC. `None` if no row has it, or if a block nearer than the
    /// innermost row that has it names it too (see [`Exec::alone`]).
    pub(crate) fn outer_value(
        &self,
        qualifier: Option<&str>,
        name: &str,
    ) -> Result<Option<(ArrayRef, bool)>> {
        for (depth, o) in self.outer.iter().enumerate().rev() {
            for (scope, _) in self.nearer.iter().rev().filter(|(_, rows)| *rows > depth) {
                // (a name the block has twice, a USING column say, is its too: 3810 now)
                if !matches!(
                    scope.resolve_at(qualifier, name, self.home_database()),
                    Ok(None)
                ) {
                    return Ok(None);
                }
            }
            if let Some(i) = o.scope.resolve_at(qualifier, name, self.home_database())? {
                o.used.borrow_mut().push(i);
                let cs = o.scope.columns[i].case_specific;
                return Ok(Some((o.batch.column(i).slice(o.row, 1), cs)));
            }
        }
        Ok(None)
    }

    /// Runs `each` once per row of the batch being bound (with that row as the outer row and as
    /// a one-row batch), and returns a reference to the column of results. With no batch known
    /// yet: a NULL placeholder in a grouped block's first binding or in a block bound before
    /// its read that defers its subqueries (noting that it needs its rows, deferred.rs), the
    /// name's 3822 where two of the block's columns have it, else `None` (the caller's 3810:
    /// a name the block lacks, or, in a run for the columns alone, one it has, noted so
    /// too). `reads` are the columns of the
    /// one-row batch that `each` reads itself (the left side of an IN), besides those its
    /// subquery names.
    ///
    /// Rows that agree on every column the subquery names and on `reads` share one run (the
    /// result is memoised), unless the subquery binds RANDOM or SAMPLE.
    pub(crate) fn correlated(
        &mut self,
        (missing, scope): (&str, &Scope),
        reads: &[usize],
        mut each: impl FnMut(&mut Self, &RecordBatch) -> Result<ArrayRef>,
    ) -> Result<Option<Expr>> {
        let Some(c) = self.corr.take() else {
            // a grouped query's first binding: a placeholder until the groups exist, for a
            // subquery that names a column of the query (any other name is an error now)
            let ours = self.placeholders.is_some() && self.names_column(missing, scope);
            if let (true, Some(n)) = (ours, self.placeholders.as_mut()) {
                *n += 1;
                return Ok(Some(Expr::lit(new_null_array(&DataType::Null, 1))));
            }
            // a block bound before its read (deferred.rs) binds over its rows instead; its
            // binding goes on over a NULL placeholder, so that a wrong name after the
            // subquery is found before any row is read (`bind_or_defer` sets a join's
            // conjunct aside instead). Not a name the block lacks too (the binding's 3810
            // now, or a farther block's, which that block's binding finds), nor one it has
            // twice (its 3822 now)
            // (in a run for the columns alone, binding stops there, as every subquery after
            // it would run twice: here and where the block binds over its rows)
            match self.resolve_missing(missing, scope) {
                Ok(Some(_)) if self.deferral.as_ref().is_some_and(|d| d.defers()) => {
                    self.note_needs_rows();
                    return Ok(Some(Expr::lit(new_null_array(&DataType::Null, 1))));
                }
                Ok(Some(_)) => {
                    self.note_needs_rows();
                    return Ok(None);
                }
                Err(e) if self.deferral.is_some() => return Err(e),
                _ => return Ok(None),
            }
        };
        let (rows, empty) = match rows_of(&c) {
            Ok(r) => r,
            Err(e) => {
                self.corr = Some(c);
                return Err(e);
            }
        };
        let mut parts: Vec<ArrayRef> = Vec::with_capacity(rows.num_rows());
        let mut failed = None;
        let mut memo = Memo::new(reads, &rows);
        for row in 0..rows.num_rows() {
            crate::interrupt::check()?;
            if let Some(v) = memo.get(&rows, row) {
                parts.push(v);
                continue;
            }
            let random = self.random_uses;
            self.outer.push(OuterRow {
                scope: c.scope.clone(),
                batch: rows.clone(),
                row,
                used: RefCell::new(Vec::new()),
            });
            let r = each(self, &rows.slice(row, 1));
            let used = self.outer.pop().map(|o| o.used.into_inner());
            match r {
                Ok(v) => {
                    if self.random_uses == random {
                        memo.put(&rows, row, used.unwrap_or_default(), &v);
                    }
                    parts.push(v);
                }
                Err(e) => {
                    failed = Some(e);
                    break;
                }
            }
        }
        let column = match failed {
            Some(e) => {
                self.corr = Some(c);
                return Err(e);
            }
            None if empty => parts[0].slice(0, 0),
            None => {
                let refs: Vec<&dyn arrow::array::Array> =
                    parts.iter().map(|a| a.as_ref()).collect();
                match concat(&refs) {
                    Ok(a) => a,
                    Err(e) => {
                        self.corr = Some(c);
                        return Err(e.into());
                    }
                }
            }
        };
        self.corr = Some(c);
        Ok(self.add_correlated_column(column))
    }

    /// Adds `column` (one value per row of the batch being bound) to the batch, and returns
    /// the expression that reads it; `None` when no batch is being bound.
    pub(crate) fn add_correlated_column(&mut self, column: ArrayRef) -> Option<Expr> {
        let c = self.corr.as_mut()?;
        let index = c.batch.num_columns() + c.extra.len();
        c.extra.push(column);
        Some(Expr::Column {
            index,
            case_specific: false,
        })
    }
}

/// The rows a correlated subquery runs for: the batch being bound with the columns earlier
/// subqueries added (which the caller's own expression may read), or one row of NULLs when it
/// is empty (so that the subquery still runs once: its name errors surface and its result
/// type is known); and whether it was empty.
fn rows_of(c: &Correlation) -> Result<(RecordBatch, bool)> {
    let wide = match c.extra.is_empty() {
        true => c.batch.clone(),
        false => {
            let extra = c.extra.iter().enumerate();
            crate::ops::with_columns(
                &c.batch,
                extra.map(|(i, a)| (format!("__subquery{i}"), a.clone())),
            )?
        }
    };
    if wide.num_rows() > 0 {
        return Ok((wide, false));
    }
    Ok((null_row(&wide.schema())?, true))
}

/// One row of NULLs of `schema`'s columns, NOT NULL ones too (its schema says each may be
/// NULL).
fn null_row(schema: &arrow::datatypes::Schema) -> Result<RecordBatch> {
    let fields: Vec<arrow::datatypes::FieldRef> = (schema.fields().iter())
        .map(|f| Arc::new(f.as_ref().clone().with_nullable(true)))
        .collect();
    let nulls = fields
        .iter()
        .map(|f| new_null_array(f.data_type(), 1))
        .collect();
    Ok(RecordBatch::try_new_with_options(
        Arc::new(arrow::datatypes::Schema::new(fields)),
        nulls,
        &arrow::record_batch::RecordBatchOptions::new().with_row_count(Some(1)),
    )?)
}

/// The results of a correlated subquery so far, by the values of the outer row's columns it
/// reads (exact values: `'a'` and `'A'` are different keys even where they compare equal, as
/// the subquery may return them).
struct Memo {
    /// The columns the key is made of, sorted: those the caller reads and those the subquery
    /// named.
    columns: Vec<usize>,
    /// False until the first run (which tells which columns the subquery names), and for
    /// good when the key cannot be made.
    ready: bool,
    results: HashMap<Vec<ExactValue>, ArrayRef>,
}

impl Memo {
    /// A memo for runs over `rows`, whose callers read the columns `reads` of it themselves.
    fn new(reads: &[usize], rows: &RecordBatch) -> Memo {
        let mut columns = reads.to_vec();
        columns.sort_unstable();
        columns.dedup();
        Memo {
            ready: false,
            results: HashMap::new(),
            // a column the batch lacks (one a subquery added) cannot be part of a key
            columns: columns
                .into_iter()
                .map(|c| (c < rows.num_columns()).then_some(c))
                .collect::<Option<Vec<_>>>()
                .unwrap_or_else(|| vec![usize::MAX]),
        }
    }

    fn key(&self, rows: &RecordBatch, row: usize) -> Option<Vec<ExactValue>> {
        self.columns
            .iter()
            .map(|&c| {
                let a = rows.columns().get(c)?;
                Some(ExactValue(value_at(a.as_ref(), row)))
            })
            .collect()
    }

    /// The result for `row`, if a row with the same key has run.
    fn get(&self, rows: &RecordBatch, row: usize) -> Option<ArrayRef> {
        if !self.ready {
            return None;
        }
        self.results.get(&self.key(rows, row)?).cloned()
    }

    /// Keeps `result`, the run for `row`, which named the outer columns `used`. A run that
    /// named a column the key lacks starts the memo again with that column in the key (a
    /// subquery names the same columns every time, so this happens at most once).
    fn put(&mut self, rows: &RecordBatch, row: usize, mut used: Vec<usize>, result: &ArrayRef) {
        used.retain(|c| !self.columns.contains(c));
        if !used.is_empty() {
            self.columns.extend(used);
            self.columns.sort_unstable();
            self.columns.dedup();
            self.results.clear();
        }
        if let Some(key) = self.key(rows, row) {
            self.ready = true;
            self.results.insert(key, result.clone());
        }
    }
}

/// A value compared and hashed exactly: floats by their bits, strings with their case and
/// trailing blanks.
struct ExactValue(Value);

impl PartialEq for ExactValue {
    fn eq(&self, other: &Self) -> bool {
        match (&self.0, &other.0) {
            (Value::Float(a), Value::Float(b)) => a.to_bits() == b.to_bits(),
            (a, b) => a == b,
        }
    }
}

impl Eq for ExactValue {}

impl Hash for ExactValue {
    fn hash<H: Hasher>(&self, state: &mut H) {
        std::mem::discriminant(&self.0).hash(state);
        match &self.0 {
            Value::Null => {}
            Value::Int(i) => i.hash(state),
            Value::Decimal(d, s) => (d, s).hash(state),
            Value::Float(f) => f.to_bits().hash(state),
            Value::Str(s) => s.hash(state),
            Value::Bytes(b) => b.hash(state),
            Value::Date(d) => d.hash(state),
            Value::Time(t) | Value::Timestamp(t) => t.hash(state),
            Value::Period(p) => p.hash(state),
        }
    }
}

/// True if `e` holds a subquery (at any depth).
pub(crate) fn has_subquery(e: &ast::Expr) -> bool {
    struct AnyQuery;
    impl ast::Visitor for AnyQuery {
        type Break = ();
        fn pre_visit_query(&mut self, _q: &ast::Query) -> ControlFlow<()> {
            ControlFlow::Break(())
        }
    }
    ast::Visit::visit(e, &mut AnyQuery).is_break()
}
