//! Decorrelation: a correlated subquery of a common shape runs once for all the rows it is
//! correlated with, as a join, instead of once per row (correlate.rs).
//!
//! The shape: one SELECT over base tables (no GROUP BY, HAVING, QUALIFY, TOP, DISTINCT, window
//! or nested subquery of its own), whose WHERE conjuncts either name only its own columns or
//! are `inner expression = outer column` equalities (the join keys; at least one); an EXISTS
//! or IN may also have other conjuncts that name both sides (checked on each joined pair). For
//!
//! ```sql
//! … WHERE a.x = (SELECT MAX(y) FROM b WHERE b.k = a.k AND b.z > 0)
//! ```
//!
//! the subquery runs once as `SELECT b.k, MAX(y) FROM b WHERE b.z > 0 GROUP BY b.k`, and each
//! outer row takes the value of its key (hash-joined on `=`'s rules, hash_join.rs), or the
//! value of the aggregate over no rows where its key has no group. An EXISTS becomes a
//! semi-join (NOT EXISTS its complement), an IN or `op ANY|ALL` a comparison on each joined
//! pair (ANY: TRUE if one is, else UNKNOWN if one is NULL, else FALSE; ALL the dual), a scalar subquery without aggregates a lookup
//! (a key with two rows is left to the per-row runs, which raise 3669).
//!
//! One difference is allowed, as with an index: a condition that would fail (a division by
//! zero, say) only on rows that no key matches is not evaluated on them, so it does not fail.
//!
//! Invariant: otherwise the answer is the per-row answer. Whatever the batch run cannot do as the
//! per-row runs would (an error while running it, RANDOM or SAMPLE, a key matching two groups)
//! makes it give up (`None`), and the subquery runs per row instead; so does a batch of outer
//! rows too small, next to the subquery's tables, for one run over all of them to pay.

use crate::bind::{has_aggregate, Scope, ScopeColumn};
use crate::correlate::has_subquery;
use crate::error::{Error, Result};
use crate::exec::Exec;
use crate::expr::{BinOp, Expr};
use arrow::array::{Array, ArrayRef, BooleanArray, UInt32Array};
use arrow::compute::{concat_batches, interleave, take};
use arrow::record_batch::RecordBatch;
use sqlparser::ast;
use std::ops::ControlFlow;
use std::sync::Arc;

/// What the subquery's result is used as.
#[derive(Clone, Copy)]
pub(crate) enum Shape<'e> {
    /// `[NOT] EXISTS (…)`; true for NOT.
    Exists(bool),
    /// `(SELECT one item …)`.
    Scalar,
    /// `value op ANY|ALL (SELECT one item …)`, `[NOT]` before it: the value bound over the
    /// outer rows. `value IN (…)` is `= ANY`, `NOT IN` its negation.
    Compare {
        value: &'e Expr,
        op: BinOp,
        all: bool,
        negated: bool,
    },
}

impl Shape<'_> {
    /// Whether the subquery's select list is one item the shape uses.
    fn has_item(self) -> bool {
        !matches!(self, Shape::Exists(_))
    }
}

/// Fewest outer rows worth a batch run at all.
const MIN_ROWS: usize = 16;

/// A batch run must not read more stored rows than this many per outer row (a per-row run
/// through an index costs about as much as reading that many rows).
const ROWS_PER_RUN: usize = 256;

/// Where a name of the subquery resolves.
#[derive(Clone, Copy, PartialEq)]
enum Side {
    /// A column of the subquery's own FROM.
    Inner(usize),
    /// A column of the outer batch.
    Outer(usize),
    /// Neither (CURRENT_DATE, USER, or a row further out): bound as it is.
    Other,
}

/// The subquery taken apart.
struct Parts {
    /// (outer column, inner expression) of each key equality.
    keys: Vec<(usize, ast::Expr)>,
    /// Conjuncts that name only the subquery's own columns.
    local: Vec<ast::Expr>,
    /// Conjuncts that name both sides and are no key (EXISTS only).
    residual: Vec<ast::Expr>,
}

impl Exec<'_> {
    /// The column of `q`'s results for every row of the batch being bound, computed by one run
    /// of `q` joined with the rows; `None` when `q` does not have the shape for it (see the
    /// module doc) or the run gives up.
    pub(crate) fn decorrelated(&mut self, q: &ast::Query, shape: Shape) -> Result<Option<Expr>> {
        if !self.decorrelation.0 {
            return Ok(None);
        }
        let Some((outer_scope, rows)) = self
            .corr
            .as_ref()
            .map(|c| (c.scope().clone(), c.batch().clone()))
        else {
            return Ok(None);
        };
        let Some(select) = plain_select(q, shape) else {
            return Ok(None);
        };
        if let Shape::Compare { value: v, .. } = shape {
            // the value must read the outer rows only (not a column a subquery added), and
            // evaluate on all of them as the per-row runs do (a failure is theirs to raise)
            if v.columns().iter().any(|&c| c >= rows.num_columns()) || v.eval(&rows).is_err() {
                return Ok(None);
            }
        }
        // the subquery's own columns, and what reading them costs
        let mut inner = Scope::default();
        let mut stored = 0;
        for twj in &select.from {
            if !twj.joins.is_empty() {
                return Ok(None);
            }
            match self.base_table(&twj.relation) {
                Ok(Some((table, qualifier))) => {
                    stored += table.row_versions();
                    inner
                        .columns
                        .extend(crate::names::table_scope(&table, &qualifier).columns);
                }
                _ => return Ok(None),
            }
        }
        if rows.num_rows() < MIN_ROWS || stored > rows.num_rows().saturating_mul(ROWS_PER_RUN) {
            return Ok(None);
        }
        let Some(parts) = self.split(&select, shape, &inner, &outer_scope) else {
            return Ok(None);
        };
        let random = self.random_uses;
        let column = match self.batch_run(&select, shape, &parts, &inner, (&outer_scope, &rows)) {
            Ok(Some(c)) if self.random_uses == random => c,
            // its errors are the per-row runs' to raise, or not
            _ => return Ok(None),
        };
        self.decorrelation.1.set(self.decorrelation.1.get() + 1);
        Ok(self.add_correlated_column(column))
    }

    /// Where `name` (qualifier, name) resolves: the subquery's own columns first.
    fn side_of(
        &self,
        (q, name): (Option<&str>, &str),
        inner: &Scope,
        outer: &Scope,
    ) -> Option<Side> {
        let home = self.home_database();
        if let Some(i) = inner.resolve_at(q, name, home).ok()? {
            return Some(Side::Inner(i));
        }
        // DATE, USER, …: the request's values come before an outer row's column
        if q.is_none() && crate::bind::is_request_value(&name.to_ascii_uppercase()) {
            return Some(Side::Other);
        }
        Some(match outer.resolve_at(q, name, home).ok()? {
            Some(i) => Side::Outer(i),
            None => Side::Other,
        })
    }

    /// The sides every name of `e` resolves to; `None` if one is ambiguous.
    fn sides(&self, e: &ast::Expr, inner: &Scope, outer: &Scope) -> Option<Vec<Side>> {
        let mut out = Vec::new();
        let walk = crate::bind::visit_own_level(e, |x| {
            // `col (CS)` and the like read a column the names below do not show
            if let ast::Expr::Function(f) = x {
                if crate::bind::phrase_on_column(f).is_some() {
                    return ControlFlow::Break(());
                }
            }
            if let Some(n) = name_of(x) {
                match self.side_of((n.0.as_deref(), n.1), inner, outer) {
                    Some(s) => out.push(s),
                    None => return ControlFlow::Break(()),
                }
            }
            ControlFlow::Continue(())
        });
        (!walk.is_break()).then_some(out)
    }

    /// Splits the WHERE of `s` into keys, local conditions and residual ones.
    fn split(&self, s: &ast::Select, shape: Shape, inner: &Scope, outer: &Scope) -> Option<Parts> {
        let mut parts = Parts {
            keys: Vec::new(),
            local: Vec::new(),
            residual: Vec::new(),
        };
        let mut all = Vec::new();
        if let Some(w) = &s.selection {
            crate::conjuncts::conjuncts(w, &mut all);
        }
        for p in all {
            // (an aggregate or window in WHERE is an error the per-row runs raise)
            if has_subquery(&p) || has_aggregate(&p) || crate::bind::has_window(&p) {
                return None;
            }
            let sides = self.sides(&p, inner, outer)?;
            if !sides.iter().any(|s| matches!(s, Side::Outer(_))) {
                parts.local.push(p);
                continue;
            }
            if let Some(key) = self.key_of(&p, inner, outer) {
                parts.keys.push(key);
            } else if !matches!(shape, Shape::Scalar) {
                parts.residual.push(p);
            } else {
                return None;
            }
        }
        if shape.has_item() {
            let ([ast::SelectItem::UnnamedExpr(e)]
            | [ast::SelectItem::ExprWithAlias { expr: e, .. }]) = s.projection.as_slice()
            else {
                return None;
            };
            let sides = self.sides(e, inner, outer)?;
            if has_subquery(e) || sides.iter().any(|s| matches!(s, Side::Outer(_))) {
                return None;
            }
            // an aggregate's item with a column outside its aggregates is 3504 per row, but
            // legal under the GROUP BY the batch run adds
            if has_aggregate(e) && self.bare_inner_column(e, inner, outer) {
                return None;
            }
        }
        (!parts.keys.is_empty()).then_some(parts)
    }

    /// Whether `e` names a column of the subquery outside every aggregate call.
    fn bare_inner_column(&self, e: &ast::Expr, inner: &Scope, outer: &Scope) -> bool {
        struct Bare<'a, 'b> {
            ex: &'a Exec<'b>,
            inner: &'a Scope,
            outer: &'a Scope,
            in_aggregate: usize,
        }
        impl ast::Visitor for Bare<'_, '_> {
            type Break = ();
            fn pre_visit_expr(&mut self, x: &ast::Expr) -> ControlFlow<()> {
                if is_aggregate_call(x) {
                    self.in_aggregate += 1;
                } else if self.in_aggregate == 0 {
                    if let Some(n) = name_of(x) {
                        let side = self
                            .ex
                            .side_of((n.0.as_deref(), n.1), self.inner, self.outer);
                        if matches!(side, Some(Side::Inner(_)) | None) {
                            return ControlFlow::Break(());
                        }
                    }
                }
                ControlFlow::Continue(())
            }
            fn post_visit_expr(&mut self, x: &ast::Expr) -> ControlFlow<()> {
                if is_aggregate_call(x) {
                    self.in_aggregate -= 1;
                }
                ControlFlow::Continue(())
            }
        }
        let mut v = Bare {
            ex: self,
            inner,
            outer,
            in_aggregate: 0,
        };
        ast::Visit::visit(e, &mut v).is_break()
    }

    /// `inner expression = outer column` (either way round): the outer column and the inner
    /// expression.
    fn key_of(&self, p: &ast::Expr, inner: &Scope, outer: &Scope) -> Option<(usize, ast::Expr)> {
        let ast::Expr::BinaryOp {
            left,
            op: ast::BinaryOperator::Eq,
            right,
        } = p
        else {
            return None;
        };
        for (a, b) in [(left, right), (right, left)] {
            let Some(n) = name_of(a) else { continue };
            let Some(Side::Outer(col)) = self.side_of((n.0.as_deref(), n.1), inner, outer) else {
                continue;
            };
            let sides = self.sides(b, inner, outer)?;
            let only_inner = sides
                .iter()
                .all(|s| matches!(s, Side::Inner(_) | Side::Other));
            if only_inner && sides.iter().any(|s| matches!(s, Side::Inner(_))) {
                return Some((col, b.as_ref().clone()));
            }
        }
        None
    }

    /// Runs the subquery once for all rows and returns its column for them; `None` to give
    /// up.
    fn batch_run(
        &mut self,
        s: &ast::Select,
        shape: Shape,
        parts: &Parts,
        inner: &Scope,
        (outer_scope, rows): (&Scope, &RecordBatch),
    ) -> Result<Option<ArrayRef>> {
        // the inner columns the residual conditions name, in the order first named
        let mut named: Vec<(usize, ast::Expr)> = Vec::new();
        for r in &parts.residual {
            let _ = crate::bind::visit_own_level(r, |x| {
                if let Some(n) = name_of(x) {
                    if let Some(Side::Inner(i)) =
                        self.side_of((n.0.as_deref(), n.1), inner, outer_scope)
                    {
                        if !named.iter().any(|(j, _)| *j == i) {
                            named.push((i, x.clone()));
                        }
                    }
                }
                ControlFlow::Continue(())
            });
        }
        let aggregated = match (shape, s.projection.as_slice()) {
            (Shape::Scalar, [ast::SelectItem::UnnamedExpr(e)])
            | (Shape::Scalar, [ast::SelectItem::ExprWithAlias { expr: e, .. }]) => {
                has_aggregate(e).then_some(e)
            }
            _ => None,
        };
        // Each key's `=` is CASESPECIFIC when either side is. Groups must split rows as that
        // `=` does, so an aggregate's keys must be columns of the subquery (whose case rule is
        // known), grouped CASESPECIFIC where the comparison is.
        let mut key_cs = Vec::with_capacity(parts.keys.len());
        let mut keys: Vec<ast::Expr> = Vec::with_capacity(parts.keys.len());
        for (col, e) in &parts.keys {
            let inner_cs = match name_of(e)
                .and_then(|n| self.side_of((n.0.as_deref(), n.1), inner, outer_scope))
            {
                Some(Side::Inner(i)) => Some(inner.columns[i].case_specific),
                _ => None,
            };
            let cs = outer_scope.columns[*col].case_specific || inner_cs == Some(true);
            match (aggregated.is_some(), inner_cs) {
                (true, None) => return Ok(None),
                (true, Some(_)) if cs => keys.push(ast::Expr::Collate {
                    expr: Box::new(e.clone()),
                    collation: ast::ObjectName::from(vec![ast::Ident::new(
                        tdlite_parser::phrase::CASESPECIFIC,
                    )]),
                }),
                _ => keys.push(e.clone()),
            }
            key_cs.push(cs);
        }
        // SELECT keys…, (the item | the named inner columns) FROM … WHERE local… [GROUP BY keys]
        let mut run = s.clone();
        run.projection = keys
            .iter()
            .map(|e| ast::SelectItem::UnnamedExpr(e.clone()))
            .collect();
        if shape.has_item() {
            run.projection.push(s.projection[0].clone());
        }
        run.projection.extend(
            named
                .iter()
                .map(|(_, e)| ast::SelectItem::UnnamedExpr(e.clone())),
        );
        if !shape.has_item() {
            // an EXISTS's own list is not used, but its errors must still be raised
            run.projection.extend(s.projection.iter().cloned());
            // and DISTINCT cannot change whether a row exists
            run.distinct = None;
        }
        run.selection = parts
            .local
            .iter()
            .cloned()
            .reduce(|a, b| ast::Expr::BinaryOp {
                left: Box::new(a),
                op: ast::BinaryOperator::And,
                right: Box::new(b),
            });
        if aggregated.is_some() {
            run.group_by = ast::GroupByExpr::Expressions(keys, Vec::new());
        }
        let right = match self.run_select(&run, &[]) {
            Ok(r) => concat_batches(&r.schema, &r.batches)?,
            Err(_) => return Ok(None),
        };
        // keys that would convert text to numbers (which can fail) are compared on other
        // rows here than per row: leave those to the per-row runs
        for (i, (col, _)) in parts.keys.iter().enumerate() {
            if !crate::types::hashable(rows.column(*col).data_type(), right.column(i).data_type()) {
                return Ok(None);
            }
        }
        // the outer rows with their numbers, then the subquery's rows
        let n = rows.num_rows();
        let left = with_row_numbers(rows)?;
        let width = left.num_columns();
        let mut conds: Vec<Expr> = parts
            .keys
            .iter()
            .enumerate()
            .map(|(i, (col, _))| {
                let field_cs = right
                    .schema()
                    .field(i)
                    .metadata()
                    .contains_key("casespecific");
                Expr::Binary(
                    BinOp::Eq,
                    Box::new(Expr::Column {
                        index: *col,
                        case_specific: outer_scope.columns[*col].case_specific,
                    }),
                    Box::new(Expr::Column {
                        index: width + i,
                        case_specific: key_cs[i] || field_cs,
                    }),
                )
            })
            .collect();
        if !parts.residual.is_empty() {
            // residual conditions over (outer, row number, keys, named inner columns), each
            // name replaced by a name of its own so the two sides never clash
            let mut scope = Scope::default();
            for (j, c) in outer_scope.columns.iter().enumerate() {
                scope.columns.push(ScopeColumn {
                    name: format!("\0o{j}"),
                    qualifier: None,
                    ..c.clone()
                });
            }
            scope.columns.push(ScopeColumn::unnamed());
            scope
                .columns
                .extend(parts.keys.iter().map(|_| ScopeColumn::unnamed()));
            if shape.has_item() {
                scope.columns.push(ScopeColumn::unnamed());
            }
            for (i, _) in &named {
                scope.columns.push(ScopeColumn {
                    name: format!("\0i{i}"),
                    qualifier: None,
                    ..inner.columns[*i].clone()
                });
            }
            for r in &parts.residual {
                let renamed = self.renamed(r, inner, outer_scope);
                match self.isolated(|ex| ex.bind_expr(&renamed, &scope, None)) {
                    Ok(e) => conds.push(e),
                    Err(_) => return Ok(None),
                }
            }
        }
        let Ok(pairs) = crate::join_step::inner_join(&left, &right, &conds) else {
            return Ok(None);
        };
        let numbers = pairs
            .column(width - 1)
            .as_any()
            .downcast_ref::<UInt32Array>()
            .ok_or_else(|| Error::Internal("row numbers lost in a join".into()))?;
        // each outer row's pair, and how many it has
        let mut pair_of: Vec<Option<u32>> = vec![None; n];
        let mut count = vec![0usize; n];
        for (p, r) in numbers.values().iter().enumerate() {
            let r = *r as usize;
            count[r] += 1;
            pair_of[r].get_or_insert(p as u32);
        }
        Ok(Some(match shape {
            Shape::Exists(negated) => Arc::new(BooleanArray::from(
                count
                    .iter()
                    .map(|&c| (c > 0) != negated)
                    .collect::<Vec<_>>(),
            )),
            Shape::Scalar => {
                if count.iter().any(|&c| c > 1) {
                    // two rows for a key (3669), or a key that met two groups: the per-row
                    // runs raise the error, or answer, as they do
                    return Ok(None);
                }
                let values = pairs.column(width + parts.keys.len());
                let taken = take(values.as_ref(), &UInt32Array::from(pair_of.clone()), None)?;
                match aggregated {
                    Some(_) if pair_of.iter().any(Option::is_none) => {
                        // the aggregate over no rows, for the rows whose key has no group
                        let mut none = s.clone();
                        none.selection = Some(never());
                        let Ok(r) = self.run_select(&none, &[]) else {
                            return Ok(None);
                        };
                        let empty = concat_batches(&r.schema, &r.batches)?;
                        if empty.num_rows() != 1 || empty.column(0).data_type() != taken.data_type()
                        {
                            return Ok(None);
                        }
                        let at: Vec<(usize, usize)> = pair_of
                            .iter()
                            .enumerate()
                            .map(|(i, p)| if p.is_some() { (0, i) } else { (1, 0) })
                            .collect();
                        interleave(&[taken.as_ref(), empty.column(0).as_ref()], &at)?
                    }
                    _ => taken,
                }
            }
            Shape::Compare {
                value: v,
                op,
                all,
                negated,
            } => {
                // `v op item` on each pair; per row, ANY: TRUE if one is, else NULL if one is
                // NULL, else FALSE (no pairs: FALSE); ALL: FALSE if one is, else NULL if one is
                // NULL, else TRUE (no pairs: TRUE); as the comparisons ORed or ANDed are
                let item = width + parts.keys.len();
                let cs = right
                    .schema()
                    .field(parts.keys.len())
                    .metadata()
                    .contains_key("casespecific");
                let eq = Expr::Binary(
                    op,
                    Box::new(v.clone()),
                    Box::new(Expr::Column {
                        index: item,
                        case_specific: cs,
                    }),
                );
                let Ok(eq) = eq.eval(&pairs) else {
                    return Ok(None);
                };
                let Some(eq) = eq.as_any().downcast_ref::<BooleanArray>() else {
                    return Ok(None);
                };
                // `decisive`: a pair whose comparison settles the row (TRUE for ANY, FALSE
                // for ALL)
                let (mut decisive, mut unknown) = (vec![false; n], vec![false; n]);
                for (p, r) in numbers.values().iter().enumerate() {
                    let r = *r as usize;
                    match eq.is_valid(p) {
                        true => decisive[r] |= eq.value(p) != all,
                        false => unknown[r] = true,
                    }
                }
                Arc::new(
                    (0..n)
                        .map(|r| match (decisive[r], unknown[r]) {
                            (true, _) => Some(all == negated),
                            (false, true) => None,
                            (false, false) => Some(all != negated),
                        })
                        .collect::<BooleanArray>(),
                )
            }
        }))
    }

    /// `e` with each name of a column of either side replaced by its name in the residual
    /// scope of `batch_run`.
    fn renamed(&self, e: &ast::Expr, inner: &Scope, outer: &Scope) -> ast::Expr {
        struct Rename<'a, 'b> {
            ex: &'a Exec<'b>,
            inner: &'a Scope,
            outer: &'a Scope,
        }
        impl ast::VisitorMut for Rename<'_, '_> {
            type Break = ();
            fn post_visit_expr(&mut self, x: &mut ast::Expr) -> ControlFlow<()> {
                let to = name_of(x).and_then(|n| {
                    match self
                        .ex
                        .side_of((n.0.as_deref(), n.1), self.inner, self.outer)?
                    {
                        Side::Inner(i) => Some(format!("\0i{i}")),
                        Side::Outer(j) => Some(format!("\0o{j}")),
                        Side::Other => None,
                    }
                });
                if let Some(to) = to {
                    *x = ast::Expr::Identifier(ast::Ident::new(to));
                }
                ControlFlow::Continue(())
            }
        }
        let mut e = e.clone();
        let _ = ast::VisitMut::visit(
            &mut e,
            &mut Rename {
                ex: self,
                inner,
                outer,
            },
        );
        e
    }
}

/// The SELECT of `q` if it is one the batch run can take for `shape`.
fn plain_select(q: &ast::Query, shape: Shape) -> Option<ast::Select> {
    if q.with.is_some() || q.order_by.is_some() || q.limit_clause.is_some() || q.fetch.is_some() {
        return None;
    }
    let ast::SetExpr::Select(s) = q.body.as_ref() else {
        return None;
    };
    let plain = s.top.is_none()
        && s.having.is_none()
        && s.qualify.is_none()
        && s.named_window.is_empty()
        && !s.from.is_empty()
        && matches!(&s.group_by, ast::GroupByExpr::Expressions(v, m) if v.is_empty() && m.is_empty())
        && (s.distinct.is_none() || matches!(shape, Shape::Exists(_)))
        && s.projection.iter().all(|i| match i {
            // (an EXISTS over an aggregate always has its one row)
            ast::SelectItem::UnnamedExpr(e) | ast::SelectItem::ExprWithAlias { expr: e, .. } => {
                !crate::bind::has_window(e) && (shape.has_item() || !has_aggregate(e))
            }
            _ => !shape.has_item(),
        });
    plain.then(|| s.as_ref().clone())
}

/// True if `e` is a call of an aggregate function (not a window).
fn is_aggregate_call(e: &ast::Expr) -> bool {
    matches!(e, ast::Expr::Function(f)
        if f.over.is_none()
            && crate::bind::agg_func(&tdlite_parser::object_name_string(&f.name)).is_some())
}

/// The (qualifier, name) a column reference is written with.
fn name_of(e: &ast::Expr) -> Option<(Option<String>, &str)> {
    match e {
        ast::Expr::Identifier(id) => Some((None, &id.value)),
        ast::Expr::CompoundIdentifier(parts) if parts.len() > 1 => {
            let n = parts.len();
            let q: Vec<&str> = parts[..n - 1].iter().map(|p| p.value.as_str()).collect();
            Some((Some(q.join(".")), &parts[n - 1].value))
        }
        _ => None,
    }
}

/// `1 = 0`.
fn never() -> ast::Expr {
    let one = |n: &str| ast::Expr::value(ast::Value::Number(n.into(), false));
    ast::Expr::BinaryOp {
        left: Box::new(one("1")),
        op: ast::BinaryOperator::Eq,
        right: Box::new(one("0")),
    }
}

/// `rows` with one more column: each row's number (UInt32).
fn with_row_numbers(rows: &RecordBatch) -> Result<RecordBatch> {
    let n = u32::try_from(rows.num_rows()).map_err(|_| Error::SpoolSpace(u32::MAX as usize))?;
    let numbers: ArrayRef = Arc::new(UInt32Array::from_iter_values(0..n));
    crate::ops::with_columns(rows, [("\0row".to_string(), numbers)])
}
