//! Correlated subqueries: a subquery that names a column of the query around it is run once
//! per row of that query, with the row's values standing in for the outer columns.
//!
//! While a clause is bound over a batch that is already known, `Exec::corr` holds that batch. A
//! subquery that fails to bind on its own with 3810 is then run for each row
//! (`Exec::correlated`): the row is pushed on `Exec::outer`, where `bind_column` looks when a
//! name is not in the subquery's own scope, and the per-row results become one more column of
//! the batch, which the bound expression reads. The batches clauses are bound over:
//! - WHERE of one relation: its rows;
//! - WHERE of a join, and the ON of a join of inner joins only: the conjuncts that hold a
//!   subquery and fail with 3810 are set aside (`Exec::bind_or_defer`) and run last, over the
//!   joined rows (`Exec::filter_correlated`), once every other condition has filtered them;
//! - the select list and ORDER BY of a query without GROUP BY: its filtered rows;
//! - the select list, HAVING, QUALIFY and ORDER BY of a grouped query: its groups (the
//!   aggregated batch, whose GROUP BY key columns keep their names), bound a second time once
//!   the groups exist (see `clauses`).
//!
//! Invariant: the columns added to a batch are aligned with its rows, and the caller widens the
//! batch with them before evaluating anything bound while `corr` was set.

use crate::bind::Scope;
use crate::error::{Error, Result};
use crate::exec::Exec;
use crate::expr::Expr;
use crate::query::filter_by;
use arrow::array::{new_null_array, ArrayRef};
use arrow::compute::concat;
use arrow::datatypes::{DataType, Field};
use arrow::record_batch::RecordBatch;
use sqlparser::ast;
use std::ops::ControlFlow;
use std::sync::Arc;

/// One row of an enclosing query, for a subquery run on its behalf.
pub struct OuterRow {
    scope: Arc<Scope>,
    batch: RecordBatch,
    row: usize,
}

/// The batch being bound over, and the per-row columns correlated subqueries added to it.
pub struct Correlation {
    scope: Arc<Scope>,
    batch: RecordBatch,
    extra: Vec<ArrayRef>,
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
        self.corr.replace(Correlation {
            scope: Arc::new(scope.clone()),
            batch,
            extra: Vec::new(),
        })
    }

    /// Ends binding over the batch given to `begin_correlation`: restores `saved` and returns
    /// the batch widened by the columns correlated subqueries added.
    pub(crate) fn end_correlation(&mut self, saved: Option<Correlation>) -> Result<RecordBatch> {
        let c = std::mem::replace(&mut self.corr, saved)
            .ok_or_else(|| Error::Internal("correlation context lost".into()))?;
        if c.extra.is_empty() {
            return Ok(c.batch);
        }
        let mut fields: Vec<Field> = c
            .batch
            .schema()
            .fields()
            .iter()
            .map(|f| f.as_ref().clone())
            .collect();
        let mut cols = c.batch.columns().to_vec();
        for (i, a) in c.extra.into_iter().enumerate() {
            fields.push(Field::new(
                format!("__subquery{i}"),
                a.data_type().clone(),
                true,
            ));
            cols.push(a);
        }
        Ok(RecordBatch::try_new_with_options(
            Arc::new(arrow::datatypes::Schema::new(fields)),
            cols,
            &arrow::record_batch::RecordBatchOptions::new()
                .with_row_count(Some(c.batch.num_rows())),
        )?)
    }

    /// Binds the conjuncts of `cond` over `scope`, setting aside those that name a column the
    /// scope lacks and hold a subquery: correlated subqueries whose rows are not known yet
    /// (the WHERE of a join, bound before the join runs). The caller filters its result with
    /// [`Exec::filter_correlated`] over them.
    pub(crate) fn bind_or_defer(
        &mut self,
        cond: &ast::Expr,
        scope: &Scope,
    ) -> Result<(Vec<Expr>, Vec<ast::Expr>)> {
        let mut parts = Vec::new();
        crate::join::conjuncts(cond, &mut parts);
        let (mut bound, mut deferred) = (Vec::new(), Vec::new());
        for p in parts {
            match self.bind_expr(&p, scope, None) {
                Ok(e) => bound.push(e),
                Err(Error::ColumnNotFound(_)) if has_subquery(&p) => deferred.push(p),
                Err(e) => return Err(e),
            }
        }
        Ok((bound, deferred))
    }

    /// `batch` (rows of `scope`) filtered by each of `conds` in turn, each bound over the rows
    /// left, so that its correlated subqueries run once per such row.
    pub(crate) fn filter_correlated(
        &mut self,
        scope: &Scope,
        mut batch: RecordBatch,
        conds: &[ast::Expr],
    ) -> Result<RecordBatch> {
        for c in conds {
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

    /// The value of a name in the rows of enclosing queries, innermost first.
    pub(crate) fn outer_value(
        &self,
        qualifier: Option<&str>,
        name: &str,
    ) -> Result<Option<ArrayRef>> {
        for o in self.outer.iter().rev() {
            if let Some(i) = o.scope.resolve_at(qualifier, name, self.home_database())? {
                return Ok(Some(o.batch.column(i).slice(o.row, 1)));
            }
        }
        Ok(None)
    }

    /// Runs `each` once per row of the batch being bound (with that row as the outer row and as
    /// a one-row batch), and returns a reference to the column of results; `None` when no batch
    /// is known (the subquery then cannot be correlated here).
    pub(crate) fn correlated(
        &mut self,
        mut each: impl FnMut(&mut Self, &RecordBatch) -> Result<ArrayRef>,
    ) -> Result<Option<Expr>> {
        let Some(mut c) = self.corr.take() else {
            // a grouped query's first binding: a placeholder until the groups exist
            if let Some(n) = self.placeholders.as_mut() {
                *n += 1;
                return Ok(Some(Expr::lit(new_null_array(&DataType::Null, 1))));
            }
            return Ok(None);
        };
        // With no rows the subquery still runs once, over a row of NULLs: its name errors
        // surface and its result type is known (the empty column must have it).
        let empty = c.batch.num_rows() == 0;
        let rows = if empty {
            let nulls = c
                .batch
                .columns()
                .iter()
                .map(|a| new_null_array(a.data_type(), 1))
                .collect();
            RecordBatch::try_new_with_options(
                c.batch.schema(),
                nulls,
                &arrow::record_batch::RecordBatchOptions::new().with_row_count(Some(1)),
            )?
        } else {
            c.batch.clone()
        };
        let mut parts: Vec<ArrayRef> = Vec::with_capacity(rows.num_rows());
        let mut failed = None;
        for row in 0..rows.num_rows() {
            self.outer.push(OuterRow {
                scope: c.scope.clone(),
                batch: rows.clone(),
                row,
            });
            let r = each(self, &rows.slice(row, 1));
            self.outer.pop();
            match r {
                Ok(v) => parts.push(v),
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
        let index = c.batch.num_columns() + c.extra.len();
        c.extra.push(column);
        self.corr = Some(c);
        Ok(Some(Expr::Column {
            index,
            case_specific: false,
        }))
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
