//! A SELECT block over a join of base tables, bound once and run many times: the form a
//! prepared request keeps in its plan cache (plan_cache.rs) for such a block, beside
//! bound_select.rs's one-table blocks.
//!
//! The blocks taken ([`joined_block`]): a FROM of two or more base tables, views or derived
//! tables joined by inner joins, commas, CROSS JOIN or outer joins, or of one view read at
//! its step or one derived table made at its step (bound_select.rs `bind_join_block`) (not
//! a comma beside an outer join; no CTE, table function or SAMPLE; a derived table only
//! where a join binds it from its query's columns, `Exec::binds_unread_derived`, and makes
//! it at its step by its query, held by the plan where conditions were pushed into it, so
//! that its blocks are kept too; a view only where a join binds it from its
//! recorded columns, `Exec::binds_unread`, and reads it at its step by its query, with what
//! of the conditions was pushed into it when the block was bound: among joins those that
//! cannot fail, such as comparisons with literals and `?` markers of the type their values
//! had then, and for a view alone the leading conjuncts `pushdown::push_leading` takes; a
//! run whose values have another type takes the general path, bound_select.rs
//! `slot_values`); no QUALIFY, window or
//! grouping sets (GROUP BY,
//! HAVING, ORDER BY, TOP and DISTINCT are kept bound: block_tail.rs). Binding
//! (`Exec::bind_from`, then the select list) happens once, with the binder recording the
//! block's slots, as for a one-table block (its `?` parameters and uncorrelated scalar,
//! EXISTS and IN subqueries (a row value's IN too), each run at every execution; binding runs the scalar and
//! EXISTS ones once it is bound, deferred.rs, and leaves the IN ones to the run; a block
//! with a quantified subquery other than `= ANY` and `<> ALL` is not
//! taken); it reads no row (the tables are read at their steps). Each run puts the slots'
//! values into the bound conditions and runs the FROM as the general path runs it (`Exec::run_from`): the join order and each table's access path
//! are planned again from the tables' sizes and the values of this run, so a key given by a
//! parameter still reads one row and probes the next table. The joined rows are grouped
//! and the block ended as the general path ends it (`Exec::finish_block`).
//!
//! Invariant: a run gives what the general path gives for the block with the same inputs
//! (the same rows in the same order, the same schema): it runs the same stage on the same
//! bound conditions. A block whose binding read rows (a name that turned out to be a CTE or
//! a view read while binding), set a correlated conjunct aside (`BoundFrom::sets_aside`:
//! refused in `Exec::bind_before_read` before its deferred subqueries run), or depended on
//! more than its slots is refused. A run that finds a view's columns changed (`Error::ViewRetyped`) gives
//! way to the general path, which binds the FROM again over the view's rows, and the plan is
//! dropped (bound_select.rs `cached_select`); so does a run that finds a derived table's
//! columns of other types than it was bound with (a kept shape that no longer holds): the
//! block is refused from then on (bound_select.rs `run_plan`).

use crate::bind::{AggCall, Scope};
use crate::block_tail::Tail;
use crate::bound_from::{BoundFrom, FromRel};
use crate::clauses::Item;
use crate::expr::Expr;
use crate::join_step::Kind;
use crate::ops::Display;
use sqlparser::ast;
use std::sync::{Arc, Weak};
use tdlite_storage::table::Table;

/// A bound join block (see the module doc). The slots are kept beside it by the caller
/// (bound_select.rs), as for a one-table block.
pub(crate) struct BoundJoin {
    /// The relations (weak: a kept plan never keeps a dropped table's rows alive).
    rels: Vec<KeptRel>,
    scope: Scope,
    starts: Vec<usize>,
    conds: Vec<(Expr, Vec<usize>, bool)>,
    on_step: Vec<Option<usize>>,
    /// How each table joins the ones before it, and (with an outer join) each step's ON.
    kinds: Vec<Kind>,
    ons: Vec<Option<Expr>>,
    /// The relations given as rows, planned with their number of rows (a MERGE's source).
    counted: Vec<usize>,
    pub(crate) items: Vec<Item>,
    pub(crate) precisions: Vec<Display>,
    /// The aggregate calls of a grouped block.
    pub(crate) aggregate: Option<Vec<AggCall>>,
    pub(crate) tail: Tail,
}

/// Why a statement is not kept by a prepared request's plan cache (a MERGE, merge.rs
/// `Exec::bind_merge`; a joined UPDATE or DELETE, dml.rs `Exec::bind_joined_dml`).
pub(crate) enum NotKept {
    /// Never, whatever the values: the cache keeps that it is refused.
    Never,
    /// Not with this run's values (another run may keep it).
    NotNow,
}

impl NotKept {
    /// What a binding error says: a name that resolves to no column, table or view, or to
    /// two, or two FROM entries known by one name, do so whatever the values (never);
    /// any other may not with other values (not now).
    pub(crate) fn of(e: &crate::error::Error) -> NotKept {
        use crate::error::Error;
        match e {
            Error::ColumnNotFound(_)
            | Error::AmbiguousColumn(_)
            | Error::ObjectNotFound(_)
            | Error::DuplicateFromName(_) => NotKept::Never,
            _ => NotKept::NotNow,
        }
    }
}

/// A relation of a [`BoundJoin`].
enum KeptRel {
    /// A base table, with the columns the block reads (`None`: all).
    Table(Weak<Table>, Option<Vec<bool>>),
    /// A view, with the query it is read by where conditions were pushed into it.
    View(Weak<Table>, Option<Arc<ast::Query>>),
    /// The table a MERGE, a joined UPDATE or a joined DELETE changes, with the columns it
    /// reads (`FromRel::Target`).
    Target(Weak<Table>, Option<Vec<bool>>),
    /// Rows each run gives (a MERGE's source rows, `FromRel::Rows`).
    Given,
    /// A derived table, made at its step, with what was pushed into its query (`None`: its
    /// query as written, which the block's FROM holds), its position in the FROM and its
    /// columns as bound (`FromRel::Derived`). The plan or the request holds the query run, so
    /// the plan cache keeps its blocks too.
    Derived(Option<Arc<ast::Query>>, usize, arrow::datatypes::SchemaRef),
}

impl BoundJoin {
    /// The kept form of `from`, with the select list (`items`, their precisions), the
    /// aggregate calls and the block's end bound over its scope; `None` when `from` read rows
    /// while binding or sets a correlated conjunct aside (a block not kept; a guard:
    /// `Exec::bind_before_read` refuses such a FROM first).
    pub(crate) fn new(
        from: BoundFrom,
        list: (Vec<Item>, Vec<Display>),
        aggregate: Option<Vec<AggCall>>,
        tail: Tail,
    ) -> Option<Self> {
        Self::with_given(from, list, aggregate, tail, false)
    }

    /// [`BoundJoin::new`], where `given` says rows a caller gives at each run
    /// ([`BoundJoin::given_from`]) and a statement's target may stand among the relations
    /// (a MERGE's source rows and target, a joined UPDATE's or DELETE's target); without
    /// it, such a FROM is not kept.
    pub(crate) fn with_given(
        from: BoundFrom,
        (items, precisions): (Vec<Item>, Vec<Display>),
        aggregate: Option<Vec<AggCall>>,
        tail: Tail,
        given: bool,
    ) -> Option<Self> {
        if from.sets_aside() {
            return None;
        }
        let mut rels = Vec::with_capacity(from.rels.len());
        for rel in from.rels {
            rels.push(match rel {
                FromRel::Table(t, keep) => KeptRel::Table(Arc::downgrade(&t), keep),
                FromRel::View(v, query) => KeptRel::View(Arc::downgrade(&v), query),
                FromRel::Target(t, keep) if given => KeptRel::Target(Arc::downgrade(&t), keep),
                FromRel::Rows(_) if given => KeptRel::Given,
                // (not where a caller gives rows: its run has no FROM to find the query in)
                FromRel::Derived(query, at, shape) if !given => KeptRel::Derived(query, at, shape),
                FromRel::Rows(_) | FromRel::Derived(..) | FromRel::Target(..) => return None,
            });
        }
        Some(BoundJoin {
            rels,
            scope: from.scope,
            starts: from.starts,
            conds: from.conds,
            on_step: from.on_step,
            kinds: from.kinds,
            ons: from.ons,
            counted: from.counted,
            items,
            precisions,
            aggregate,
            tail,
        })
    }

    /// A block with no FROM (its one row), with its select list (`items`, their precisions),
    /// the aggregate calls and the block's end bound: no relation, no condition.
    pub(crate) fn without_from(
        (items, precisions): (Vec<Item>, Vec<Display>),
        aggregate: Option<Vec<AggCall>>,
        tail: Tail,
    ) -> Self {
        BoundJoin {
            rels: Vec::new(),
            scope: Scope::default(),
            starts: Vec::new(),
            conds: Vec::new(),
            on_step: Vec::new(),
            kinds: Vec::new(),
            ons: Vec::new(),
            counted: Vec::new(),
            items,
            precisions,
            aggregate,
            tail,
        }
    }

    /// Whether it is a block with no FROM ([`BoundJoin::without_from`]).
    pub(crate) fn has_no_from(&self) -> bool {
        self.rels.is_empty()
    }

    /// The block's bound expressions: the conditions, the select list, the aggregate calls'
    /// arguments.
    pub(crate) fn exprs(&self) -> impl Iterator<Item = &Expr> {
        let args = self
            .aggregate
            .iter()
            .flat_map(|calls| calls.iter().flat_map(AggCall::exprs));
        self.conds
            .iter()
            .map(|c| &c.0)
            .chain(self.ons.iter().flatten())
            .chain(self.items.iter().map(|i| &i.0))
            .chain(args)
            .chain(self.tail.exprs())
    }

    /// The FROM clause to run with `put` giving each condition this run's values; `None`
    /// when a table or view is gone. The tables and views are returned too, for the caller's
    /// bookkeeping.
    pub(crate) fn from(&self, put: impl Fn(&Expr) -> Expr) -> Option<(BoundFrom, Vec<Arc<Table>>)> {
        self.given_from(put, Vec::new())
    }

    /// [`BoundJoin::from`] (its FROM to run), with `given` the rows of each [`KeptRel::Given`] relation, in
    /// order (`None` also when one is missing); a target is among the tables returned.
    pub(crate) fn given_from(
        &self,
        put: impl Fn(&Expr) -> Expr,
        given: Vec<arrow::record_batch::RecordBatch>,
    ) -> Option<(BoundFrom, Vec<Arc<Table>>)> {
        let mut tables = Vec::with_capacity(self.rels.len());
        let mut rels = Vec::with_capacity(self.rels.len());
        let mut given = given.into_iter();
        for rel in &self.rels {
            let (t, rel) = match rel {
                KeptRel::Given => {
                    rels.push(FromRel::Rows(given.next()?));
                    continue;
                }
                KeptRel::Target(t, keep) => {
                    let t = t.upgrade()?;
                    (t.clone(), FromRel::Target(t, keep.clone()))
                }
                KeptRel::Table(t, keep) => {
                    let t = t.upgrade()?;
                    (t.clone(), FromRel::Table(t, keep.clone()))
                }
                KeptRel::View(v, query) => {
                    let v = v.upgrade()?;
                    (v.clone(), FromRel::View(v, query.clone()))
                }
                KeptRel::Derived(query, at, shape) => {
                    rels.push(FromRel::Derived(query.clone(), *at, shape.clone()));
                    continue;
                }
            };
            tables.push(t);
            rels.push(rel);
        }
        let from = BoundFrom {
            scope: self.scope.clone(),
            starts: self.starts.clone(),
            kinds: self.kinds.clone(),
            rels,
            conds: (self.conds.iter())
                .map(|(e, rels, on)| (put(e), rels.clone(), *on))
                .collect(),
            on_step: self.on_step.clone(),
            ons: (self.ons.iter()).map(|on| on.as_ref().map(&put)).collect(),
            on_pairs: Vec::new(),
            on_deferred: Vec::new(),
            deferred: Vec::new(),
            tries: Vec::new(),
            counted: self.counted.clone(),
            kept: true,
        };
        Some((from, tables))
    }
}

/// Whether `s` is a block this module takes, judged on its syntax (see the module doc; a
/// name may still turn out to be a view, which binding finds).
pub(crate) fn joined_block(s: &ast::Select) -> bool {
    let plain = plain_clauses(s);
    let relations: usize = s.from.iter().map(|t| 1 + t.joins.len()).sum();
    let table = |tf: &ast::TableFactor| {
        matches!(
            tf,
            ast::TableFactor::Table {
                args: None,
                sample: None,
                ..
            } | ast::TableFactor::Derived {
                lateral: false,
                alias: Some(_),
                sample: None,
                ..
            }
        )
    };
    let inner = |j: &ast::Join| {
        matches!(
            j.join_operator,
            ast::JoinOperator::Join(_)
                | ast::JoinOperator::Inner(_)
                | ast::JoinOperator::CrossJoin(_)
        )
    };
    let joins = || s.from.iter().flat_map(|t| &t.joins);
    // (a comma beside an outer join joins each comma item on its own: join.rs)
    let commas_inner = s.from.len() == 1 || joins().all(inner);
    plain
        && relations >= 2
        && commas_inner
        && s.from
            .iter()
            .all(|t| table(&t.relation) && t.joins.iter().all(|j| table(&j.relation)))
}

/// Whether block `s`'s clauses are ones a kept block may have: no QUALIFY or named window,
/// and a GROUP BY (if any) of plain expressions, no ROLLUP, CUBE or GROUPING SETS modifier
/// (the expressions themselves are checked when bound).
pub(crate) fn plain_clauses(s: &ast::Select) -> bool {
    s.qualify.is_none()
        && s.named_window.is_empty()
        && matches!(&s.group_by, ast::GroupByExpr::Expressions(_, m) if m.is_empty())
}
