//! A FROM clause between binding and running: [`BoundFrom`] (made by `Exec::bind_from`,
//! join.rs) holds its relations, scope and bound conditions; [`BoundFrom::plan`] plans it
//! ([`FromPlan`]: the join order, the step each condition runs at, each base table's own
//! conditions and their sargable part) from the catalog's row counts and the conditions'
//! values, reading no row. `Exec::run_from` runs that plan; EXPLAIN prints it (explain/planned.rs),
//! so the plan shown is the plan that runs.
//!
//! Invariants: `plan` reads no table data (row counts only) and runs nothing; with inner
//! joins only, its steps name every relation once (join_plan.rs); with an outer join they are
//! the written order and no condition is planned (an outer FROM's conditions are its ONs and
//! WHERE, run as join.rs runs them).

use crate::bind::Scope;
use crate::expr::{BinOp, Expr};
use crate::join_plan::{self, cannot_fail, is_hoistable, key_sides, table_estimate, Cond, Step};
use crate::join_step::Kind;
use crate::plan::Preds;
use arrow::datatypes::{DataType, SchemaRef};
use arrow::record_batch::RecordBatch;
use sqlparser::ast;
use std::sync::Arc;
use tdlite_storage::table::Table;

/// A FROM clause bound by [`Exec::bind_from`], to be run by [`Exec::run_from`] (bound once,
/// it may run many times: a prepared request keeps it, bound_join.rs).
///
/// Invariants: `scope` holds each relation's columns in FROM order, relation `r`'s from
/// `starts[r]`; each condition's relation list is the relations its columns belong to, sorted;
/// `on_step` has one entry per condition, `Some` for an ON's (or USING's) conjunct of an
/// inner-only FROM; `ons` holds ON conditions only when a join is outer.
pub(crate) struct BoundFrom {
    pub scope: Scope,
    pub starts: Vec<usize>,
    /// How each relation joins the ones before it.
    pub kinds: Vec<Kind>,
    pub rels: Vec<FromRel>,
    /// (condition, the relations it reads, whether it comes from an ON): WHERE's conjuncts,
    /// then, with inner joins only, the ON conjuncts.
    pub conds: Vec<(Expr, Vec<usize>, bool)>,
    pub on_step: Vec<Option<usize>>,
    pub ons: Vec<Option<Expr>>,
    /// (step, ON conjuncts with correlated subqueries, the scope of the step's pairs).
    pub on_pairs: Vec<(usize, Vec<ast::Expr>, Scope)>,
    /// ON conjuncts of an inner-only FROM with correlated subqueries, and the columns of the
    /// relations they see (their comma item's, up to their join).
    pub on_deferred: Vec<(ast::Expr, std::ops::Range<usize>)>,
    /// WHERE conjuncts with correlated subqueries (run per joined row, last), and the ones
    /// written after the first of those that could fail (`Exec::bind_or_defer`).
    pub deferred: Vec<ast::Expr>,
    /// Of the latter, those that name one relation, bound, with the relation: each is tried
    /// on the relation's rows as they are read, filtering them if it fails on none (it still
    /// runs with `deferred`, on fewer rows).
    pub tries: Vec<(Expr, usize)>,
    /// The relations a caller gave as rows read before (a MERGE's source:
    /// `Exec::bind_from_with`), planned with their number of rows; other rows read while
    /// binding (a CTE's, a table function's) count as unknown, as EXPLAIN counts them.
    pub counted: Vec<usize>,
    /// Whether a prepared request's kept plan made it (bound_join.rs): each view's or
    /// derived table's query given then stays at its address while the plan lives, so the
    /// blocks inside it may be kept too (`Exec::view_rows_of`; a derived table's pushed
    /// query runs through `run_query`, not `Exec::run_made_now`).
    pub kept: bool,
}

/// A relation of a [`BoundFrom`].
#[derive(Clone)]
pub(crate) enum FromRel {
    /// A base table, read at its step, with the columns to keep (`None`: all).
    Table(Arc<Table>, Option<Vec<bool>>),
    /// The base table an `UPDATE … FROM`, a joined DELETE or a MERGE changes, read at its
    /// step like any base table, with the columns to keep (`None`: all; the others NULL) and
    /// its row ids as one hidden last column (`UInt64`, named [`ROW_ID`]): the statement's
    /// rows to change.
    Target(Arc<Table>, Option<Vec<bool>>),
    /// A view, bound from the columns the catalog records for it and read at its step by
    /// its query, or by the query given (its query with conditions pushed in: pushdown.rs).
    View(Arc<Table>, Option<Arc<ast::Query>>),
    /// A derived table, bound from its query's columns (its run over no rows,
    /// `Exec::columns_of`) and made at its step: by the query given (its query with
    /// conditions pushed in), else by its own query, the relation at this position of the
    /// FROM (run as the FROM's node: the request's, so that a prepared request keeps the
    /// blocks inside it, unless the block was copied to take its SAMPLE off); its rows must
    /// have the columns' types of `shape` (`Exec::unread_derived`; else the FROM is bound
    /// again, its derived tables made while it binds).
    Derived(Option<Arc<ast::Query>>, usize, SchemaRef),
    /// Rows read while binding (a CTE, table function, a join in parentheses, a derived
    /// table in a run for the columns alone or whose columns cannot be had alone, a view
    /// whose recorded types cannot be trusted: `Exec::unread_view`).
    Rows(RecordBatch),
}

/// The name of a [`FromRel::Target`]'s hidden row-id column (no SQL name can spell it).
pub(crate) const ROW_ID: &str = "\u{1}rowid";

impl FromRel {
    /// Its columns' types, in order.
    pub(crate) fn column_types(&self) -> Vec<DataType> {
        let fields = match self {
            FromRel::Table(table, _) | FromRel::View(table, _) | FromRel::Target(table, _) => {
                table.schema.arrow.fields().clone()
            }
            FromRel::Derived(_, _, shape) => shape.fields().clone(),
            FromRel::Rows(rows) => rows.schema().fields().clone(),
        };
        let ids = matches!(self, FromRel::Target(..)).then_some(DataType::UInt64);
        (fields.iter().map(|f| f.data_type().clone()))
            .chain(ids)
            .collect()
    }

    /// A joined UPDATE's, DELETE's or MERGE's target `table`, known in the statement as
    /// `q`, read with the columns `keep` marks (`None`: all), with its scope: the table's
    /// columns, then its row ids (hidden).
    pub(crate) fn target(table: Arc<Table>, q: &str, keep: Option<Vec<bool>>) -> (Scope, FromRel) {
        let mut scope = crate::names::table_scope(&table, q);
        scope.columns.push(crate::bind::ScopeColumn::hidden(ROW_ID));
        (scope, FromRel::Target(table, keep))
    }

    /// The base table it reads at its step, if it is one (a target included).
    pub(crate) fn base(&self) -> Option<&Arc<Table>> {
        match self {
            FromRel::Table(table, _) | FromRel::Target(table, _) => Some(table),
            _ => None,
        }
    }
}

impl BoundFrom {
    /// Whether conjuncts of its WHERE or ONs are set aside to run per joined row (a
    /// correlated subquery: `Exec::bind_or_defer`).
    pub(crate) fn sets_aside(&self) -> bool {
        !self.deferred.is_empty() || !self.on_deferred.is_empty() || !self.on_pairs.is_empty()
    }

    /// Its bound conditions: WHERE's and the ONs', those bound to be tried early included
    /// (not those set aside, which bind again where they run).
    pub(crate) fn exprs_mut(&mut self) -> impl Iterator<Item = &mut Expr> {
        let conds = self.conds.iter_mut().map(|c| &mut c.0);
        let tries = self.tries.iter_mut().map(|t| &mut t.0);
        conds.chain(self.ons.iter_mut().flatten()).chain(tries)
    }

    /// Evaluates its bound conditions (WHERE's and the ONs') over no row of its relations'
    /// columns, reading nothing: an operand's type error (comparing BYTE with INTEGER) is
    /// raised before any row is read, as Teradata checks types before it runs a request,
    /// and over relations with no row at all, which would evaluate no condition. Not a
    /// condition that reads a view's columns: their recorded types may be out of date (the
    /// run then reads the view, `Error::ViewRetyped`), or its table gone (its 3807).
    ///
    /// # Errors
    /// The conditions' type errors.
    pub(crate) fn check_types(&self) -> crate::error::Result<()> {
        let fields: Vec<arrow::datatypes::Field> = (self.rels.iter())
            .flat_map(FromRel::column_types)
            .enumerate()
            .map(|(i, t)| arrow::datatypes::Field::new(format!("c{i}"), t, true))
            .collect();
        if fields.len() != self.scope.columns.len() {
            return Ok(()); // (not met: the scope is the relations' columns in order)
        }
        let schema = Arc::new(arrow::datatypes::Schema::new(fields));
        let viewed = |rels: &[usize]| {
            (rels.iter()).any(|&r| matches!(self.rels.get(r), Some(FromRel::View(..))))
        };
        for (c, rels, _) in &self.conds {
            if !viewed(rels) {
                c.check_types(&schema)?;
            }
        }
        for on in self.ons.iter().flatten() {
            // each conjunct on its own: those that read no view's column are checked
            let mut conjuncts = Vec::new();
            split_and(on.clone(), &mut conjuncts);
            for c in conjuncts {
                if !viewed(&relations_of(&c, &self.starts)) {
                    c.check_types(&schema)?;
                }
            }
        }
        Ok(())
    }
}

/// Splits a bound `a AND b AND c` into its conjuncts.
pub(crate) fn split_and(e: Expr, out: &mut Vec<Expr>) {
    match e {
        Expr::Binary(BinOp::And, l, r) => {
            split_and(*l, out);
            split_and(*r, out);
        }
        other => out.push(other),
    }
}

/// The plan of a [`BoundFrom`].
pub(crate) struct FromPlan {
    /// The steps in the order they run.
    pub steps: Vec<Step>,
    /// Each base table's own conditions (over its own columns) as one AND, and their sargable
    /// part: it is read through them at its step (empty with an outer join).
    pub owns: Vec<(Option<Expr>, Preds)>,
    /// Each base table's estimated rows, and the number of rows a caller gave (`counted`);
    /// `None` for a view, a derived table and other rows read while binding, and with an
    /// outer join.
    pub sizes: Vec<Option<u64>>,
    /// Per base table, how many conditions name it alone (its own), and whether their sargable
    /// part is the whole of them (`plan::whole_preds`: a read through index ranges that bound
    /// every column they name returns exactly the rows that pass them).
    pub own_counts: Vec<usize>,
    pub wholes: Vec<bool>,
}

impl BoundFrom {
    /// Whether every relation joins the ones before it by an inner join (or a comma).
    pub(crate) fn inner_only(&self) -> bool {
        self.kinds.iter().all(|k| *k == Kind::Inner)
    }

    /// The type of column `col` of the scope, from its table's schema or the rows read.
    pub(crate) fn column_type(&self, col: usize) -> Option<DataType> {
        let r = relation_at(&self.starts, col);
        let at = col - self.starts[r];
        Some(match self.rels.get(r)? {
            FromRel::Table(table, _) | FromRel::View(table, _) => {
                table.schema.arrow.fields().get(at)?.data_type().clone()
            }
            FromRel::Target(table, _) => match table.schema.arrow.fields().get(at) {
                Some(f) => f.data_type().clone(),
                None => DataType::UInt64, // (its row ids)
            },
            FromRel::Derived(_, _, shape) => shape.fields().get(at)?.data_type().clone(),
            FromRel::Rows(rows) => rows.schema().fields().get(at)?.data_type().clone(),
        })
    }

    /// Plans the FROM (see the module doc): with inner joins only, each base table's size
    /// estimated from the conditions on it alone, the order and each condition's step from
    /// the estimates (join_plan.rs); with an outer join, the written order.
    pub(crate) fn plan(&self) -> FromPlan {
        let n = self.rels.len();
        let mut owns: Vec<(Option<Expr>, Preds)> = vec![Default::default(); n];
        let mut sizes = vec![None; n];
        let mut own_counts = vec![0; n];
        let mut wholes = vec![false; n];
        if !self.inner_only() {
            let steps = (0..n)
                .map(|rel| Step {
                    rel,
                    pre: Vec::new(),
                    tries: Vec::new(),
                    conds: Vec::new(),
                    keys: 0,
                })
                .collect();
            return FromPlan {
                steps,
                owns,
                sizes,
                own_counts,
                wholes,
            };
        }
        let width = self.scope.columns.len();
        for (r, rel) in self.rels.iter().enumerate() {
            let table = match rel {
                // rows a caller read before (a MERGE's source): their number
                FromRel::Rows(rows) if self.counted.contains(&r) => {
                    sizes[r] = Some(rows.num_rows() as u64);
                    continue;
                }
                rel => match rel.base() {
                    Some(table) => table,
                    None => continue,
                },
            };
            let local = local_columns(&self.starts, r, width);
            let own: Vec<Expr> = (self.conds.iter())
                .filter(|(_, rs, _)| rs.as_slice() == [r])
                .map(|(e, ..)| e.remap(&local))
                .collect();
            let count = own.len();
            // its own conditions as one AND, so bounds on a column combine
            let own = own
                .into_iter()
                .reduce(|a, b| Expr::Binary(BinOp::And, Box::new(a), Box::new(b)));
            let (preds, whole) = own
                .as_ref()
                .map(|e| crate::plan::whole_preds(e, &table.schema))
                .unwrap_or_default();
            own_counts[r] = count;
            wholes[r] = whole;
            sizes[r] = Some(table_estimate(
                table.row_versions(),
                &table.schema,
                &preds,
                count,
            ));
            owns[r] = (own, preds);
        }
        // each column's type, for the conditions that cannot fail (join_plan.rs)
        let ty = |col: usize| self.column_type(col);
        let mut planned: Vec<Cond> = (self.conds.iter())
            .map(|(e, rs, on)| Cond {
                rels: rs.clone(),
                on: *on,
                sides: key_sides(e, &ty, &|c| relation_at(&self.starts, c)),
                hoist: is_hoistable(e, &ty),
                safe: cannot_fail(e, &ty),
                waits: Vec::new(),
            })
            .collect();
        join_plan::set_waits(&mut planned, &|i| self.on_step.get(i).copied().flatten());
        FromPlan {
            steps: join_plan::plan(&sizes, &planned),
            owns,
            sizes,
            own_counts,
            wholes,
        }
    }
}

/// The relation (numbered as written, relation `r`'s columns from `starts[r]`) column `col`
/// belongs to.
pub(crate) fn relation_at(starts: &[usize], col: usize) -> usize {
    starts.partition_point(|&s| s <= col) - 1
}

/// The relations (numbered as written, relation `r`'s columns from `starts[r]`) whose
/// columns `e` reads, sorted, each once.
pub(crate) fn relations_of(e: &Expr, starts: &[usize]) -> Vec<usize> {
    let mut cols = Vec::new();
    e.columns_used(&mut cols);
    let mut r: Vec<usize> = cols
        .into_iter()
        .map(|col| relation_at(starts, col))
        .collect();
    r.sort_unstable();
    r.dedup();
    r
}

/// For each of `width` columns of a FROM, numbered as written (relation `r`'s start at
/// `starts[r]`), its position among relation `r`'s own columns (0 for other relations').
pub(crate) fn local_columns(starts: &[usize], r: usize, width: usize) -> Vec<usize> {
    let mut local = vec![0; width];
    for (c, slot) in local.iter_mut().enumerate().skip(starts[r]) {
        *slot = c - starts[r];
    }
    local
}
