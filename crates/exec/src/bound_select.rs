//! A one-table SELECT block bound once and run many times: the form a prepared request keeps
//! in its plan cache (plan_cache.rs). A block over a join of base tables is kept here too,
//! as a [`KeptJoin`] (its binding and run: `bind_join_block`, `run_join`; its form:
//! bound_join.rs).
//!
//! The blocks taken: one base table in FROM (no join, view, CTE, derived table or SAMPLE), no
//! QUALIFY, window or grouping sets. (A block with no FROM and no WHERE, `SELECT ? AS k`, is
//! kept as a [`KeptJoin`] of no relation: `bind_row_block`.) With no GROUP BY, HAVING, ORDER BY, TOP or DISTINCT,
//! either no aggregate (the rows are read as the streaming path reads them: stream.rs) or
//! only aggregates over the whole table (read through a MIN/MAX index walk where one applies,
//! as the general path does, then aggregated); a block of rows with a TOP n alone is streamed
//! until it has n rows, as the general path streams it; with any other of them, the rows are
//! read whole (or walked, as the general path walks them) and the block ends as the general
//! path ends it (block_tail.rs, `Exec::finish_block`). Binding happens once (the query's own
//! binding before its read, `Exec::bind_before_read`), with the binder recording the block's
//! slots (its `?` parameters, uncorrelated scalar subqueries, EXISTS and IN, and the columns
//! of an enclosing row a correlated subquery's block names); each later run
//! computes the slots' values (the run right after binding uses binding's own, and runs
//! the IN subqueries binding left for it; a subquery
//! whose own block is kept runs from the plan its parent holds, `KeptSlots`), plans the read
//! on those
//! values (the WHERE's sargable conditions from its `plan::CondTemplate`, made at binding and
//! read through the values, inputs.rs, or, for a WHERE holding an IN slot, read from it with
//! the values put in; then `plan::choose`), and reads; the expressions
//! get the values put where the recorded arrays are only where rows are tested or made
//! (`inputs::RunCond`, the select list and aggregate calls). MIN/MAX walks are planned once
//! per shape of the conditions (which columns the values fix or bound, not the values:
//! `plan::plan_min_max`) and kept with the block (`access::KeptWalks`); the ranges walked
//! are made from each run's values, and kept with them for a run with the same values (in a
//! block that reads no enclosing row). Asked
//! for a scalar subquery's value, a walked `SELECT MIN(c)`/`MAX(c)` gives the found row's
//! `c` without building rows (`BoundSelect::walked_value`).
//!
//! Invariant: a run gives what the general path gives for the block with the same inputs:
//! the same rows in the same order and the same schema. Anything the binder did that the
//! slots do not capture refuses the block (see plan_cache.rs); a block whose binding fails
//! is not kept, and the general path raises the error.

use crate::access::KeptWalks;
use crate::aggregate::aggregate;
use crate::bind::Scope;
use crate::bind::{has_aggregate, has_window, AggCall, AggFunc};
use crate::block_tail::Tail;
use crate::bound_join::{joined_block, BoundJoin, NotKept};
use crate::clauses::Item;
use crate::early::{Early, EarlyBound, EarlySource};
use crate::error::Result;
use crate::exec::Exec;
use crate::expr::Expr;
use crate::inputs::{Inputs, RunCond};
use crate::names::table_scope;
use crate::ops::project;
use crate::plan::CondTemplate;
use crate::plan_cache::{Block, Context, Found, Plan, PlanCache};
use crate::result::Rows;
use crate::slots::{Recording, Slot};
use crate::types::sql_type_of;
use arrow::array::{Array, ArrayRef};
use arrow::record_batch::RecordBatch;
use sqlparser::ast;
use std::borrow::Cow;
use std::sync::{Arc, OnceLock, Weak};
use tdlite_storage::catalog::TableSchema;
use tdlite_storage::table::{RowId, Table};

/// A MIN/MAX call's column and whether it is MAX.
type MinMaxTarget = (usize, bool);

/// A bound block (see the module doc).
pub(crate) struct BoundSelect {
    /// Weak: a kept plan never keeps a dropped table's rows alive (a drop changes the
    /// catalog's version, so the plan is not used again).
    table: Weak<Table>,
    cond: Option<Expr>,
    items: Vec<Item>,
    precisions: Vec<crate::ops::Display>,
    /// The aggregate calls, and the MIN/MAX targets a walk may read: `None` for a block of
    /// rows.
    aggregate: Option<(Vec<AggCall>, Option<Vec<MinMaxTarget>>)>,
    /// The columns the aggregate calls read: the only ones a MIN/MAX walk fetches.
    reads: Vec<bool>,
    /// The MIN/MAX walks planned for the last shape of conditions this block met, and the
    /// last run's ranges with its values.
    walks: KeptWalks,
    /// `cond`'s sargable conditions with the slots as inputs.
    template: Option<CondTemplate>,
    /// Each slot's array as bound, where its value comes from, and its subquery's plan.
    slots: KeptSlots,
    /// GROUP BY, HAVING, ORDER BY, TOP, DISTINCT; when it has any, the rows are read whole
    /// (`tail_reads`: the columns any expression of the block reads) and the block ends as
    /// the general path ends it.
    tail: Tail,
    tail_reads: Vec<bool>,
}

/// A kept plan's slots (each one's array as bound, and where its value comes from), and for
/// each scalar subquery among them its own kept plan once a run has found it in the cache:
/// the plan holds its subqueries' plans, so later runs take them from here without a cache
/// lookup (which compares a subquery's syntax tree, a copy the slot owns, with the entry's).
/// A child plan is valid whenever its parent is: the parent was found under the same cache
/// context (catalog version, session, user, database) the child was kept under.
pub(crate) struct KeptSlots {
    pub(crate) slots: Vec<(ArrayRef, Slot)>,
    /// Per slot: unset until a run looks (a parameter's stays unset), then the subquery's
    /// kept plan, or `None` for a subquery the cache does not keep (it runs as a query
    /// each time).
    plans: Box<[OnceLock<Option<Arc<BoundSelect>>>]>,
}

impl KeptSlots {
    pub(crate) fn new(slots: Vec<(ArrayRef, Slot)>) -> Self {
        let plans = slots.iter().map(|_| OnceLock::new()).collect();
        KeptSlots { slots, plans }
    }
}

/// A grouped block's GROUP BY keys and aggregate calls, bound.
type Grouped = (Vec<Expr>, Vec<AggCall>);

/// A block bound for the cache (`Exec::bind_kept`): its scope, what it reads, its grouping,
/// its clauses, and the recording of its slots.
type KeptBinding = (
    Scope,
    EarlySource,
    Option<Grouped>,
    crate::clauses::Clauses,
    Recording,
);

/// A join block bound once (bound_join.rs), with its slots.
pub(crate) struct KeptJoin {
    join: BoundJoin,
    slots: KeptSlots,
    /// The `?` markers of its derived tables' queries (as written), with the types their
    /// values had when it was bound: a derived table's columns may take their types, so a
    /// run whose values have others binds afresh before running anything, as a slot's would.
    shaped_by: Vec<(String, arrow::datatypes::DataType)>,
}

impl KeptJoin {
    /// Whether a `?` of its derived tables has another type at this execution than when it
    /// was bound ([`KeptJoin::shaped_by`]).
    ///
    /// # Errors
    /// 3939 (a parameter missing).
    fn reshaped(&self, params: &[tdlite_storage::types::Value]) -> Result<bool> {
        for (name, ty) in &self.shaped_by {
            if crate::params::parameter(name, params)?.data_type() != ty {
                return Ok(true);
            }
        }
        Ok(false)
    }
}

/// What binding a block for the cache gave.
enum Bound {
    Kept(Box<BoundSelect>),
    Join(Box<KeptJoin>),
    /// Bound, but it depends on more than its slots.
    Refused,
    /// Not a block this module takes.
    Not,
    /// Binding failed (the general path raises the error): not tried again, since it would
    /// run the block's subqueries twice at every execution.
    Failed,
    /// A name not found (3810): it may be an enclosing query's column that this binding did
    /// not have (a correlated subquery bound alone before it runs per row): kept as
    /// `Plan::NeedsRows`, bound again only for a row.
    NotNow,
}

impl<'a> Exec<'a> {
    /// The rows of `s` (with its query's `order_by`) through the prepared request's plan
    /// cache; `None` when there is no cache, or `s` is not a block it keeps (the caller runs
    /// it as usual).
    ///
    /// # Errors
    /// Errors of the slots' subqueries, the read and the evaluation.
    pub(crate) fn cached_select(
        &mut self,
        s: &ast::Select,
        order_by: &[ast::OrderByExpr],
    ) -> Result<Option<Rows>> {
        let Some((cache, context)) = self.plan_cache() else {
            return Ok(None);
        };
        let block = Block::Select(s);
        let (plan, kept) = match cache.get(block, &context) {
            Found::Refused => return Ok(None),
            // (a block runs with its own query's ORDER BY, always the same one)
            Found::Kept(p @ (Plan::Select(_) | Plan::Join(_))) => match bound_order_by(&p) {
                Some(o) if o == order_by => (p, true),
                _ => return Ok(None),
            },
            // (a correlated subquery's block where it was bound alone before: it is again)
            Found::Kept(Plan::NeedsRows(depth)) if self.outer.len() <= depth => return Ok(None),
            Found::Kept(
                Plan::Condition(_)
                | Plan::Table(..)
                | Plan::Shape(_)
                | Plan::NeedsRows(_)
                | Plan::Merge(_)
                | Plan::Joined(_),
            )
            | Found::Missing => {
                // inside a correlated subquery's runs, only the request's own blocks: one
                // made while running (a decorrelated subquery's, a copy of a block with an
                // alias put in) would be new at every row and fill the cache, and a copy may
                // stand where other enclosing columns are named
                if !self.outer.is_empty() && !cache.owns(block) {
                    return Ok(None);
                }
                let Some(p) = self.bind_and_keep(s, order_by, block, &context) else {
                    return Ok(None);
                };
                (p, false)
            }
        };
        let rows = self.run_plan(&plan, kept, block, &context)?;
        if kept && rows.is_some() {
            cache.hit();
        }
        if kept && rows.is_none() && self.parameters_differ(&plan)? {
            // a parameter of another type than the plan's (a first run with NULL, say): bound
            // again with this run's, and kept in its place where it may be
            return self.rebound_select(s, order_by, block, &context);
        }
        Ok(rows)
    }

    /// Block `s` bound for the cache and what the cache keeps for it then, in place of what
    /// it kept: its plan (returned), that it is refused (`None`: not tried again, since
    /// binding would run its subqueries twice at every execution), or `Plan::NeedsRows`.
    fn bind_and_keep(
        &mut self,
        s: &ast::Select,
        order_by: &[ast::OrderByExpr],
        block: Block<'_>,
        context: &Context<'_>,
    ) -> Option<Plan> {
        let (cache, _) = self.plan_cache()?;
        let p = match self.bind_block(s, order_by) {
            Bound::Kept(b) => Plan::Select(Arc::from(b)),
            Bound::Join(j) => Plan::Join(Arc::from(j)),
            Bound::Refused | Bound::Failed => {
                cache.put(block, context, None);
                return None;
            }
            Bound::NotNow => {
                let depth = self.outer.len();
                cache.put(block, context, Some(Plan::NeedsRows(depth)));
                return None;
            }
            Bound::Not => return None,
        };
        cache.put(block, context, Some(p.clone()));
        Some(p)
    }

    /// Whether a `?` slot of `plan` has another type at this execution than when it was
    /// bound.
    ///
    /// # Errors
    /// 3939 (a parameter missing).
    fn parameters_differ(&self, plan: &Plan) -> Result<bool> {
        let slots = match plan {
            Plan::Select(b) => &b.slots,
            Plan::Join(j) if j.reshaped(self.params)? => return Ok(true),
            Plan::Join(j) => &j.slots,
            _ => return Ok(false),
        };
        for (array, slot) in &slots.slots {
            if let Slot::Param(name) = slot {
                let v = crate::params::parameter(name, self.params)?;
                if v.data_type() != array.data_type() {
                    return Ok(true);
                }
            }
        }
        Ok(false)
    }

    /// Block `s` bound again for the cache at an execution whose parameters' types its kept
    /// plan does not take, the new plan kept in the old one's place and run; `None` where it
    /// is not kept this way (refused from now on, as at a first binding): the general path
    /// runs it.
    ///
    /// # Errors
    /// As [`Exec::cached_select`].
    fn rebound_select(
        &mut self,
        s: &ast::Select,
        order_by: &[ast::OrderByExpr],
        block: Block<'_>,
        context: &Context<'_>,
    ) -> Result<Option<Rows>> {
        let Some((cache, _)) = self.plan_cache() else {
            return Ok(None);
        };
        // (inside a correlated subquery's runs, only the request's own blocks, as at a first
        // binding)
        if !self.outer.is_empty() && !cache.owns(block) {
            return Ok(None);
        }
        match self.bind_and_keep(s, order_by, block, context) {
            Some(plan) => self.run_plan(&plan, false, block, context),
            None => Ok(None),
        }
    }

    /// The rows of kept block plan `plan` (`kept`: found in the cache, not bound by this
    /// execution); `None` where it declines (the general path runs the block).
    ///
    /// # Errors
    /// As [`Exec::cached_select`].
    fn run_plan(
        &mut self,
        plan: &Plan,
        kept: bool,
        block: Block<'_>,
        context: &Context<'_>,
    ) -> Result<Option<Rows>> {
        Ok(match plan {
            Plan::Select(b) => match self.run_bound(b, kept, false)? {
                Some(Ran::Rows(rows)) => Some(rows),
                Some(Ran::Value(_)) | None => None, // (no value without asking for one)
            },
            Plan::Join(j) => match self.run_join(j, kept, block) {
                // a view's columns are not as recorded: the general path binds the FROM again
                // (reading the view while binding from now on), and so does every later run
                Err(crate::error::Error::ViewRetyped(_)) => {
                    if let Some((cache, _)) = self.plan_cache() {
                        cache.put(block, context, None);
                    }
                    None
                }
                run => run?,
            },
            Plan::Condition(_)
            | Plan::Table(..)
            | Plan::Shape(_)
            | Plan::NeedsRows(_)
            | Plan::Merge(_)
            | Plan::Joined(_) => None,
        })
    }

    /// The base table `name` (a name in the request's statements, the target of an INSERT,
    /// UPDATE or DELETE) resolves to, through the plan cache: resolved once for the cache's
    /// context (the catalog's version, the session, user and default database), as
    /// [`Exec::must_get_base_table`] resolves it.
    ///
    /// # Errors
    /// As [`Exec::must_get_base_table`].
    pub(crate) fn target_table(&self, name: &ast::ObjectName) -> Result<Arc<Table>> {
        let Some((cache, context)) = self.plan_cache() else {
            return self.must_get_base_table(name);
        };
        let block = Block::Target(name);
        if let Found::Kept(Plan::Table(t, _)) = cache.get(block, &context) {
            if let Some(t) = t.upgrade().filter(|t| !t.is_dropped()) {
                self.count_volatile_use(&t);
                return Ok(t);
            }
        }
        let t = self.must_get_base_table(name)?;
        cache.put(block, &context, Some(Plan::Table(Arc::downgrade(&t), None)));
        Ok(t)
    }

    /// [`Exec::target_table`] with the table's scope qualified by `q` (an UPDATE's or
    /// DELETE's alias, or its name: fixed for the name's place in the statement), made once
    /// and kept with the table the name resolved to.
    ///
    /// # Errors
    /// As [`Exec::must_get_base_table`].
    pub(crate) fn target_with_scope(
        &self,
        name: &ast::ObjectName,
        q: &str,
    ) -> Result<(Arc<Table>, Arc<Scope>)> {
        let made = |t: &Table| Arc::new(table_scope(t, q));
        let Some((cache, context)) = self.plan_cache() else {
            let t = self.must_get_base_table(name)?;
            let scope = made(&t);
            return Ok((t, scope));
        };
        let block = Block::Target(name);
        let kept = match cache.get(block, &context) {
            Found::Kept(Plan::Table(t, scope)) => {
                t.upgrade().filter(|t| !t.is_dropped()).map(|t| (t, scope))
            }
            _ => None,
        };
        // (qualified as asked: the name's place fixes the alias, checked all the same)
        let same = |s: &Scope| {
            (s.columns.first()).is_none_or(|c| {
                c.qualifier
                    .as_deref()
                    .is_some_and(|x| x.eq_ignore_ascii_case(q))
            })
        };
        if let Some((t, Some(scope))) = kept
            .as_ref()
            .filter(|(_, s)| s.as_deref().is_some_and(same))
        {
            self.count_volatile_use(t);
            return Ok((t.clone(), scope.clone()));
        }
        let t = match kept {
            Some((t, _)) => {
                self.count_volatile_use(&t);
                t
            }
            _ => self.must_get_base_table(name)?,
        };
        let scope = made(&t);
        let plan = Plan::Table(Arc::downgrade(&t), Some(scope.clone()));
        cache.put(block, &context, Some(plan));
        Ok((t, scope))
    }

    /// The columns subquery `q` gives, as kept by the prepared request running from an earlier
    /// execution's run of it over no rows (deferred.rs); `None` where none is kept.
    pub(crate) fn kept_shape(&self, q: &ast::Query) -> Option<arrow::datatypes::SchemaRef> {
        let (cache, context) = self.plan_cache()?;
        match cache.get(Block::Shape(q), &context) {
            Found::Kept(Plan::Shape(schema)) => Some(schema),
            _ => None,
        }
    }

    /// Keeps `schema`, the columns subquery `q` gave run over no rows, for the prepared
    /// request's later executions. Not kept: while a block is bound for the cache (a block
    /// kept is not bound again; one refused keeps them at its next binding), for a
    /// subquery with a `?` parameter (whose columns' types may change with its values), or
    /// for one not of the request's own statements (a WHERE that names a select-list alias
    /// is bound as a copy made anew at each binding).
    pub(crate) fn keep_shape(&self, q: &ast::Query, schema: &arrow::datatypes::SchemaRef) {
        if self.recording.borrow().is_some() || crate::params::has_placeholder(q) {
            return;
        }
        if let Some((cache, context)) = self.plan_cache() {
            cache.put_own(Block::Shape(q), &context, Plan::Shape(schema.clone()));
        }
    }

    /// The plan a prepared request's cache keeps for a statement kept whole (`block`: a
    /// MERGE, a joined UPDATE or DELETE) where this run fits it (`fits`, and its parameters'
    /// types), else the statement bound now (`bind`) and kept in its place (or its refusal
    /// for good, `NotKept::Never`); with this run's slot values and, where the plan was
    /// kept (not bound now), the cache that counts its use (`PlanCache::hit`, once the run
    /// uses it). `None` without a plan cache, for a statement the cache refuses or does not own
    /// (a rewritten one), or one not kept with this run's values: the general path runs it.
    ///
    /// # Errors
    /// The slots' errors (3939).
    pub(crate) fn statement_plan<T: KeptStatement>(
        &mut self,
        block: Block<'_>,
        fits: impl Fn(&T) -> bool,
        bind: impl FnOnce(&mut Self) -> std::result::Result<T, NotKept>,
    ) -> Result<Option<StatementPlan<'a, T>>> {
        let Some((cache, context)) = self.plan_cache() else {
            return Ok(None);
        };
        let kept = match cache.get(block, &context) {
            Found::Kept(plan) => match T::of(plan) {
                Some(k) => Some(k),
                None => return Ok(None),
            },
            Found::Missing if cache.owns(block) => None,
            Found::Refused | Found::Missing => return Ok(None),
        };
        if let Some(k) = kept.filter(|k| fits(k)) {
            if let Some(values) = self.slot_values(k.slots(), false)? {
                return Ok(Some((k, values, Some(cache))));
            }
        }
        // else bound again with this run's (and kept for the runs like it)
        match bind(self) {
            Ok(k) => {
                let k = Arc::new(k);
                cache.put(block, &context, Some(T::plan(k.clone())));
                let values = self.slot_values(k.slots(), true)?;
                Ok(values.map(|v| (k, v, None)))
            }
            Err(NotKept::Never) => {
                cache.put(block, &context, None);
                Ok(None)
            }
            Err(NotKept::NotNow) => Ok(None),
        }
    }

    /// The plan cache of the prepared request running, and the context its entries must
    /// have; `None` without one, where names may resolve to more than the catalog (a CTE),
    /// outside a correlated subquery's runs on a text's first run (which keeps only the
    /// plans of blocks run per row of an enclosing query), or inside a view's query made for
    /// this read only (conditions pushed into it outside a kept plan: its blocks are new at each
    /// read; see plan_cache.rs), or inside any other query made for this run alone
    /// (`Exec::made_now`: a derived table's pushed query, a WITH rewritten at this run). A view's names were resolved when it was created (or, naming
    /// nothing then, resolve in the reader's default database), so the request's context
    /// holds for them too.
    pub(crate) fn plan_cache(&self) -> Option<(&'a PlanCache, Context<'a>)> {
        let cache = self.plans?;
        let view_made_now = self.view_depth > 0 && !self.view_kept || self.made_now > 0;
        let rows_only = self.plans_for_rows_only && self.outer.is_empty();
        if !self.ctes.is_empty() || view_made_now || rows_only {
            return None;
        }
        let context = Context {
            version: self.shared.storage.catalog.version(),
            session: self.session,
            user: self.user,
            database: self.database,
            ansi: self.ansi,
        };
        Some((cache, context))
    }

    /// `w`, an expression over the rows of `table` (whose rows `scope` names: the WHERE
    /// clause of an UPDATE or DELETE, or a SET value of an UPDATE), bound through the plan
    /// cache with this execution's slot values; `None` without a cache, or when `w` does not
    /// bind on its own (a correlated subquery, a binding error, a type error over no row, a
    /// subquery's run-time error: the caller binds it as usual and raises the error). The
    /// first execution's binding is used as it is, an IN subquery's values put in. `also`
    /// are the statement's expressions bound after `w` (a WHERE's SET values), bound for
    /// their errors alone before `w`'s subqueries run (`Exec::bind_deferring`).
    ///
    /// # Errors
    /// 3939 (a parameter missing); a kept binding's slot subquery that fails gives `None`
    /// (the caller binds afresh and meets its error).
    pub(crate) fn cached_expr(
        &mut self,
        table: &Arc<Table>,
        scope: &Scope,
        (w, also): (&ast::Expr, &[&ast::Expr]),
    ) -> Result<Option<CachedExpr>> {
        let Some((cache, context)) = self.plan_cache() else {
            return Ok(None);
        };
        let block = Block::Condition(w);
        match cache.get(block, &context) {
            Found::Refused => return Ok(None),
            Found::Kept(Plan::Condition(b)) => {
                if !b.table.upgrade().is_some_and(|t| Arc::ptr_eq(&t, table)) {
                    return Ok(None);
                }
                let Some(values) = self.slot_values(&b.slots, false)? else {
                    return Ok(None);
                };
                cache.hit();
                return Ok(Some(CachedExpr::Kept(b, values)));
            }
            Found::Kept(
                Plan::Select(_)
                | Plan::Join(_)
                | Plan::Table(..)
                | Plan::Shape(_)
                | Plan::NeedsRows(_)
                | Plan::Merge(_)
                | Plan::Joined(_),
            )
            | Found::Missing => {}
        }
        // (its uncorrelated subqueries deferred, run once its names and types are resolved;
        // its operand types checked over no row: one whose types fail is not kept, the
        // caller raises that error at every execution, as it checks them before its read)
        let schema = &table.schema.arrow;
        let (bound, recording) = self.recorded(|ex| ex.bind_deferring(&[w], also, scope, schema));
        let cond = match bound {
            Ok(Some(mut c)) => c.pop(),
            // (an error that may be another expression's of `also`, a `?` of another type
            // in a SET value, say: not kept as refused, so that a later run may keep it)
            Err(_) if !also.is_empty() => return Ok(None),
            Ok(None) | Err(_) => None,
        };
        let Some(cond) = cond else {
            cache.put(block, &context, None);
            return Ok(None);
        };
        let plan = kept_slots(&recording, &[&cond]).then(|| {
            Arc::new(BoundCondition {
                table: Arc::downgrade(table),
                template: OnceLock::new(),
                cond: cond.clone(),
                slots: KeptSlots::new(recording.slots.clone()),
            })
        });
        cache.put(block, &context, plan.clone().map(Plan::Condition));
        // an IN's subquery bound for a plan was not run: its placeholder is in `cond`, and
        // its values are put in as at any run of the plan
        let sets = recording.slots.iter().any(|(_, s)| s.many());
        match (sets, plan) {
            (false, _) => Ok(Some(CachedExpr::Bound(cond))),
            (true, Some(b)) => match self.slot_values(&b.slots, true)? {
                Some(values) => Ok(Some(CachedExpr::Kept(b, values))),
                // (a subquery that fails: the caller binds afresh and meets its error)
                None => Ok(None),
            },
            // (not kept: bound again by the caller, the IN's subquery run where it is put in)
            (true, None) => Ok(None),
        }
    }

    /// This execution's values of `slots`: parameters read, subqueries run; `None` if one has
    /// another type than when it was bound, or a subquery fails (binding afresh then meets
    /// the error where the general path meets it). Right after binding (`after_binding`),
    /// only IN slots are run (binding left their placeholders, deferred.rs); every other
    /// slot's value is its array, which binding made in this execution.
    ///
    /// # Errors
    /// 3939 (a parameter missing).
    pub(crate) fn slot_values(
        &mut self,
        kept: &KeptSlots,
        after_binding: bool,
    ) -> Result<Option<Vec<ArrayRef>>> {
        // the parameters and the enclosing row's columns first: one of another type (or an
        // enclosing column not found, or compared otherwise) means binding afresh, with no
        // subquery run for nothing
        let mut params = Vec::new();
        for (array, slot) in kept.slots.iter().filter(|_| !after_binding) {
            let v = match slot {
                Slot::Param(name) => crate::params::parameter(name, self.params)?,
                Slot::Outer(qualifier, name, cs) => {
                    match self.outer_value(qualifier.as_deref(), name) {
                        Ok(Some((v, c))) if c == *cs => v,
                        _ => return Ok(None),
                    }
                }
                _ => continue,
            };
            if v.data_type() != array.data_type() {
                return Ok(None);
            }
            params.push(v);
        }
        let mut params = params.into_iter();
        let mut values = Vec::with_capacity(kept.slots.len());
        for ((array, slot), plan) in kept.slots.iter().zip(&kept.plans) {
            if after_binding && !slot.many() {
                values.push(array.clone());
                continue;
            }
            let v = match slot {
                Slot::Param(_) | Slot::Outer(..) => params
                    .next()
                    .ok_or_else(|| crate::error::Error::Internal("a parameter slot".into()))?,
                Slot::Subquery(q) => match self.slot_subquery(q, plan) {
                    Ok(v) => v,
                    // the general path raises its error, or the one it meets first (a WHERE
                    // runs its plain conjuncts before those with a subquery)
                    Err(_) => return Ok(None),
                },
                Slot::Exists(q, negated) => match self.slot_rows(q, plan) {
                    Ok(rows) => crate::deferred::exists_value(rows.num_rows() > 0, *negated),
                    Err(_) => return Ok(None),
                },
                Slot::Set(q) => {
                    match self
                        .slot_rows(q, plan)
                        .and_then(|r| crate::deferred::column_of(&r))
                    {
                        Ok(values) => values,
                        Err(_) => return Ok(None),
                    }
                }
                Slot::Rows(q) => {
                    let width = crate::deferred::set_width(array);
                    match self
                        .slot_rows(q, plan)
                        .and_then(|r| crate::deferred::rows_of(&r, width))
                    {
                        Ok(rows) => rows,
                        Err(_) => return Ok(None),
                    }
                }
            };
            if v.data_type() != array.data_type() {
                return Ok(None);
            }
            values.push(v);
        }
        Ok(Some(values))
    }

    /// The value of slot subquery `q` at this run: through the kept plan `plan` holds (found
    /// at the first run that looks), else run as a query.
    ///
    /// # Errors
    /// The subquery's errors (3669 for more than one row, …).
    fn slot_subquery(
        &mut self,
        q: &ast::Query,
        plan: &OnceLock<Option<Arc<BoundSelect>>>,
    ) -> Result<ArrayRef> {
        match plan.get() {
            Some(Some(child)) => match self.run_child(child)? {
                Some(v) => Ok(v),
                None => {
                    // the kept plan declined (a value of another type): run the query bound
                    // afresh, not through that plan again
                    let plans = self.plans.take();
                    let v = self.scalar_subquery(q);
                    self.plans = plans;
                    v
                }
            },
            Some(None) => self.scalar_subquery(q),
            None => {
                let v = self.scalar_subquery(q)?;
                self.find_child(q, plan);
                Ok(v)
            }
        }
    }

    /// The rows of EXISTS or IN slot subquery `q` at this run: through the kept plan `plan`
    /// holds (found at the first run that looks, as for a scalar slot), else run as a query.
    ///
    /// # Errors
    /// The subquery's errors.
    fn slot_rows(
        &mut self,
        q: &ast::Query,
        plan: &OnceLock<Option<Arc<BoundSelect>>>,
    ) -> Result<crate::result::Rows> {
        if let Some(Some(child)) = plan.get() {
            crate::interrupt::check()?;
            if let Some(ran) = self.isolated(|ex| ex.run_bound(child, true, false))? {
                if let Some(cache) = self.plans {
                    cache.hit();
                }
                return match ran {
                    Ran::Rows(rows) => Ok(rows),
                    // (not met: a value only where one is asked for)
                    Ran::Value(_) => Err(crate::error::Error::Internal(
                        "a value where rows were asked for".into(),
                    )),
                };
            }
            // the kept plan declined (a value of another type): bound afresh, not through
            // that plan again
            let plans = self.plans.take();
            let rows = self.run_query(q);
            self.plans = plans;
            return rows;
        }
        let rows = self.run_query(q)?;
        if plan.get().is_none() {
            self.find_child(q, plan);
        }
        Ok(rows)
    }

    /// The value of a slot's subquery from its kept plan, as `scalar_subquery` would give it
    /// through the cache; `None` when the plan declines (the caller runs the subquery).
    fn run_child(&mut self, child: &BoundSelect) -> Result<Option<ArrayRef>> {
        crate::interrupt::check()?;
        let Some(ran) = self.isolated(|ex| ex.run_bound(child, true, true))? else {
            return Ok(None);
        };
        if let Some(cache) = self.plans {
            cache.hit();
        }
        match ran {
            Ran::Rows(rows) => crate::bind::scalar_of(&rows).map(Some),
            Ran::Value(v) => Ok(Some(v)),
        }
    }

    /// After a slot's subquery `q` ran through the cache: its kept plan, or that it has
    /// none, into `cell`.
    fn find_child(&self, q: &ast::Query, cell: &OnceLock<Option<Arc<BoundSelect>>>) {
        let plain = q.with.is_none()
            && q.order_by.is_none()
            && q.limit_clause.is_none()
            && q.fetch.is_none();
        let found = match (q.body.as_ref(), self.plan_cache()) {
            (ast::SetExpr::Select(s), Some((cache, context))) if plain => {
                match cache.get(Block::Select(s), &context) {
                    Found::Kept(Plan::Select(b)) => Some(b),
                    _ => None,
                }
            }
            _ => None,
        };
        let _ = cell.set(found);
    }

    /// Binds block `s` once for the cache.
    fn bind_block(&mut self, s: &ast::Select, order_by: &[ast::OrderByExpr]) -> Bound {
        if s.selection.as_ref().is_some_and(has_aggregate)
            || block_exprs(s, order_by).any(has_window)
        {
            // the general path raises WHERE's errors; a window is never kept (known before
            // binding, so a block with one is not bound twice)
            return Bound::Not;
        }
        if s.from.is_empty() {
            return self.bind_row_block(s, order_by);
        }
        let Some(one) = one_table(s) else {
            return self.bind_join_block(s, order_by);
        };
        if self.names_unread_view(&one.relation) || self.binds_unread_derived(&one.relation) {
            // read (or made) at its step, as in a join (query.rs `source`)
            return self.bind_join_block(s, order_by);
        }
        let (table, qualifier) = match self.base_relation(&one.relation) {
            Ok(t) => t,
            Err(bound) => return bound,
        };
        if block_exprs(s, order_by).any(no_slot_holds) {
            // binding would run the subquery, then refuse the block (its rows are not a
            // slot), and the general path would run it again (an uncorrelated EXISTS or IN is
            // a slot: deferred.rs; where the block is refused after binding, for a value of
            // the session or grouping sets, say, its first run runs the EXISTS twice)
            return Bound::Refused;
        }
        let early = Early::Table(table_scope(&table, &qualifier), table.clone());
        let (scope, source, grouping, mut clauses, recording) =
            match self.bind_kept(s, order_by, early) {
                Ok(bound) => bound,
                Err(bound) => return bound,
            };
        let EarlySource::Table(_, cond) = source else {
            return Bound::Refused; // (not met: a table's block reads the table)
        };
        let (group_keys, calls) = grouping.unzip();
        let tail = Tail::new(s, order_by, group_keys, &mut clauses);
        let aggregate = calls.map(|calls| {
            // (as the general path walks: `min_max_calls` takes no GROUP BY or HAVING)
            let targets = crate::access::min_max_calls(s)
                .and_then(|calls| crate::access::min_max_targets(&calls, &scope));
            (calls, targets)
        });
        let mut reads = vec![false; table.schema.columns.len()];
        for c in aggregate.iter().flat_map(|(calls, _)| calls) {
            c.exprs().for_each(|a| a.mark_columns(&mut reads));
        }
        let slots = recording.slots.clone();
        let mut b = BoundSelect {
            reads,
            walks: KeptWalks::new(!slots.iter().any(|(_, s)| matches!(s, Slot::Outer(..)))),
            template: cond
                .as_ref()
                .and_then(|c| template(c, &table.schema, &slots)),
            table: Arc::downgrade(&table),
            cond,
            items: clauses.items,
            precisions: clauses.precisions,
            aggregate,
            slots: KeptSlots::new(slots),
            tail,
            tail_reads: Vec::new(),
        };
        let mut tail_reads = vec![false; table.schema.columns.len()];
        b.exprs().for_each(|e| e.mark_columns(&mut tail_reads));
        b.tail_reads = tail_reads;
        let exprs: Vec<&Expr> = b.exprs().collect();
        match kept_slots(&recording, &exprs) {
            true => Bound::Kept(Box::new(b)),
            false => Bound::Refused,
        }
    }

    /// Binds block `s` (with `order_by`, then its `sample`'s WHEN conditions; `s` is given
    /// without its SAMPLE) as the query binds it before reading (`Exec::bind_before_read`,
    /// over the scope `Exec::early_from` chooses) and keeps nothing: EXPLAIN's check that the
    /// block's names and operand types are as the query finds them. Binds nothing where
    /// binding would read or run something: a subquery in the clauses, a FROM item other
    /// than a base table or a view bound from its recorded columns (a CTE, derived table,
    /// table function, dictionary view, a view read while binding), or a block the query
    /// reads before binding (`Exec::binds_before_reading`: a named window, an outer join
    /// beside a comma). The caller must also have ruled out a global temporary table with no
    /// instance, which binding would make. Reads no row. The block as bound, where it was,
    /// and whether its binding read nothing that differs when it runs (an enclosing query's
    /// row, a value of the request or session): only then are its conditions' values the
    /// run's.
    ///
    /// # Errors
    /// As `Exec::bind_before_read` (3868, 3810, 3822, 3504, 3807, 9910, type errors, …).
    pub(crate) fn bind_as_queried(
        &mut self,
        s: &ast::Select,
        order_by: &[ast::OrderByExpr],
        sample: Option<&crate::sample::Sample>,
    ) -> Result<Option<(EarlyBound, bool)>> {
        for tf in crate::pushdown::factors(&s.from) {
            let plain = matches!(tf, ast::TableFactor::Table { args: None, .. });
            if !plain || !(self.names_unread_view(tf) || self.base_relation(tf).is_ok()) {
                return Ok(None);
            }
        }
        // (a block with a subquery: its uncorrelated ones would run to be put in, deferred.rs)
        if has_clause_subquery(s, order_by) {
            return Ok(None);
        }
        let Some(early) = self.binds_before_reading(s, &s.from, order_by) else {
            return Ok(None);
        };
        let (bound, recording) =
            self.recorded(|ex| ex.bind_before_read(s, &s.from, order_by, sample, early));
        // (bound over an enclosing row of NULLs, or a value of the session: not as it runs)
        let as_run = !recording.volatile && !recording.reads_outer_rows();
        Ok(bound?.map(|b| (b, as_run)))
    }

    /// The base table `tf` names and its qualifier; else what binding a block reading it
    /// gives: refused for a name of rows of their own or a view (known without making their
    /// rows; kept as refused, so a later run does not look again), not taken for any other
    /// relation or a name that does not resolve (the general path raises the error).
    fn base_relation(
        &mut self,
        tf: &ast::TableFactor,
    ) -> std::result::Result<(Arc<Table>, String), Bound> {
        if self.names_own_rows(tf) {
            return Err(Bound::Refused);
        }
        match self.base_table(tf) {
            Ok(Some(t)) => Ok(t),
            Ok(None) if matches!(tf, ast::TableFactor::Table { .. }) => Err(Bound::Refused),
            Ok(None) | Err(_) => Err(Bound::Not),
        }
    }

    /// Counts a use of `t` that skipped its catalog lookup, as the lookup counts it: a
    /// volatile table's (a view may not use one).
    fn count_volatile_use(&self, t: &Table) {
        if t.schema.volatile.is_some_and(|v| !v.is_instance()) {
            self.volatile_uses.set(self.volatile_uses.get() + 1);
        }
    }

    /// Runs `f` (binding a block for the cache) with a fresh recording of its slots and no
    /// enclosing window calls; its result and the recording.
    pub(crate) fn recorded<T>(
        &mut self,
        f: impl FnOnce(&mut Self) -> Result<T>,
    ) -> (Result<T>, Recording) {
        let saved = self.recording.replace(Some(Recording::default()));
        let windows = self.windows.take();
        let bound = f(self);
        self.windows = windows;
        (bound, self.recording.replace(saved).unwrap_or_default())
    }

    /// Binds block `s` (with `order_by`, no SAMPLE) for the cache with the query's own binding
    /// before its read (`Exec::bind_before_read` over `early`), recording its slots: its
    /// scope, what it reads, its GROUP BY keys and aggregate calls where it groups, its
    /// clauses, and the recording. Else what the cache keeps instead: `NotNow` for a name not
    /// found (an enclosing row's, perhaps: bound again for a row, `Plan::NeedsRows`),
    /// `Failed` for any other binding error or a type error over no row (the general path
    /// raises it; the block is not bound again at every run), `Refused` for clauses a kept
    /// plan does not take (grouping sets, per-group subqueries, `kept_clauses`), a
    /// correlated subquery that needs the block's rows, or a join's conjunct set aside.
    fn bind_kept(
        &mut self,
        s: &ast::Select,
        order_by: &[ast::OrderByExpr],
        early: Early,
    ) -> std::result::Result<KeptBinding, Bound> {
        let (bound, recording) =
            self.recorded(|ex| ex.bind_before_read(s, &s.from, order_by, None, early));
        let plan = match bound {
            Ok(Some(plan)) => plan,
            Ok(None) => return Err(Bound::Refused),
            // a name of an enclosing query's row, not known here (the subquery is bound
            // alone first): bound for the cache again where it runs for a row
            Err(crate::error::Error::ColumnNotFound(_)) => return Err(Bound::NotNow),
            Err(_) => return Err(Bound::Failed),
        };
        let EarlyBound {
            scope,
            source,
            groups,
            clauses,
        } = plan;
        if groups.sets.is_some() || !kept_clauses(&clauses) {
            return Err(Bound::Refused);
        }
        let grouping = groups.grouping.map(|g| (groups.key_exprs, g.calls));
        Ok((scope, source, grouping, clauses, recording))
    }

    /// The slot values of one run of a kept plan: this execution's (`kept`), or, right after
    /// binding, none (the bound expressions hold this execution's values) unless an IN slot
    /// needs its values put in (binding left its placeholder); `None` when a value's type
    /// differs from the one it was bound with.
    fn run_values(&mut self, slots: &KeptSlots, kept: bool) -> Result<Option<Vec<ArrayRef>>> {
        let sets = slots.slots.iter().any(|(_, s)| s.many());
        match (kept, sets) {
            (true, _) => self.slot_values(slots, false),
            (false, true) => self.slot_values(slots, true),
            (false, false) => Ok(Some(Vec::new())),
        }
    }

    /// Binds join block `s` once for the cache (bound_join.rs), or a block of one view read at
    /// its step or one derived table made at its step (as a join of one relation);
    /// `bind_block` has refused a WHERE with an aggregate and any window.
    fn bind_join_block(&mut self, s: &ast::Select, order_by: &[ast::OrderByExpr]) -> Bound {
        let unread = |ex: &Self, tf: &ast::TableFactor| {
            ex.names_unread_view(tf) || ex.binds_unread_derived(tf)
        };
        let one_unread = matches!(s.from.as_slice(), [one] if one.joins.is_empty()
            && crate::bound_join::plain_clauses(s)
            && unread(self, &one.relation));
        if !(joined_block(s) || one_unread) || crate::join::check_from(&s.from).is_err() {
            return Bound::Not; // (the general path raises the errors)
        }
        if block_exprs(s, order_by)
            .chain(on_exprs(s))
            .any(no_slot_holds)
        {
            // (binding would run the subquery, its rows no slot; an uncorrelated EXISTS or
            // IN is one, as in a one-table block)
            return Bound::Refused;
        }
        // (refused before binding where binding would read rows: a CTE, a view read while
        // binding; a derived table made while binding is not taken now, nor one inside a
        // correlated subquery's runs: its query may name the enclosing row, which its columns'
        // binding does not record as a slot, so the plan would run where its binding fails)
        let relations = crate::pushdown::factors(&s.from);
        for tf in relations {
            let derived = matches!(tf, ast::TableFactor::Derived { .. });
            if derived && !self.outer.is_empty() {
                return Bound::Refused;
            }
            if unread(self, tf) {
                continue;
            }
            if let Err(bound) = self.base_relation(tf) {
                return bound;
            }
        }
        // (the tables are read with only the columns the block may name, as the general path
        // reads them)
        let (_, source, grouping, mut clauses, recording) =
            match self.bind_kept(s, order_by, Early::Whole) {
                Ok(bound) => bound,
                Err(bound) => return bound,
            };
        let EarlySource::Joined(from) = source else {
            return Bound::Refused; // (not met: a FROM bound whole)
        };
        let from = *from;
        let (group_keys, calls) = grouping.unzip();
        let tail = Tail::new(s, order_by, group_keys, &mut clauses);
        let list = (clauses.items, clauses.precisions);
        let Some(join) = BoundJoin::new(from, list, calls, tail) else {
            return Bound::Refused;
        };
        let mut shaped_by = Vec::new();
        for tf in crate::pushdown::factors(&s.from) {
            if let ast::TableFactor::Derived { subquery, .. } = tf {
                for name in crate::params::markers(subquery) {
                    let Ok(value) = crate::params::parameter(&name, self.params) else {
                        return Bound::Not;
                    };
                    shaped_by.push((name, value.data_type().clone()));
                }
            }
        }
        kept_join(join, &recording, shaped_by)
    }

    /// Binds block `s` with no FROM and no WHERE (`SELECT ? AS k, ? AS v`, a MERGE's or
    /// INSERT's one-row source) once for the cache, as a join of no relation whose rows are
    /// the one row the general path makes (query.rs `source`); with a WHERE it is not kept.
    fn bind_row_block(&mut self, s: &ast::Select, order_by: &[ast::OrderByExpr]) -> Bound {
        if s.selection.is_some() || !crate::bound_join::plain_clauses(s) {
            return Bound::Not;
        }
        if block_exprs(s, order_by).any(no_slot_holds) {
            return Bound::Refused;
        }
        let early = Early::Rows(Scope::default(), None);
        let (_, source, grouping, mut clauses, recording) = match self.bind_kept(s, order_by, early)
        {
            Ok(bound) => bound,
            Err(bound) => return bound,
        };
        let EarlySource::Rows(None) = source else {
            return Bound::Refused; // (not met: no FROM binds no condition)
        };
        let (group_keys, calls) = grouping.unzip();
        let tail = Tail::new(s, order_by, group_keys, &mut clauses);
        let list = (clauses.items, clauses.precisions);
        let join = BoundJoin::without_from(list, calls, tail);
        kept_join(join, &recording, Vec::new())
    }

    /// Runs a bound join block with this execution's slot values, as [`Exec::run_bound`]
    /// runs a one-table block; `None` when a table is gone or a value's type differs from
    /// the one it was bound with (the caller runs the block as usual).
    ///
    /// # Errors
    /// As the general path; `Error::ViewRetyped` when a view's or derived table's columns
    /// are not as recorded (the caller drops the plan and runs the block as usual).
    fn run_join(&mut self, k: &KeptJoin, kept: bool, block: Block<'_>) -> Result<Option<Rows>> {
        if k.reshaped(self.params)? {
            return Ok(None);
        }
        let Some(values) = self.run_values(&k.slots, kept)? else {
            return Ok(None);
        };
        let inputs = Inputs::new(&k.slots.slots, &values);
        let put = |e: &Expr| inputs.put(e);
        let Some((from, tables)) = k.join.from(put) else {
            return Ok(None);
        };
        tables.iter().for_each(|t| self.count_volatile_use(t));
        // (the block's FROM as written, where a derived table's own query is found; with no
        // FROM, the one row, as query.rs `source` makes it)
        let written = match block {
            Block::Select(s) => s.from.as_slice(),
            _ => &[],
        };
        let rows = match k.join.has_no_from() {
            true => crate::ops::single_row(),
            false => self.run_from(from, written)?.1,
        };
        let items = put_items(&k.join.items, &put);
        let tail = &k.join.tail;
        self.finish_kept(
            rows,
            k.join.aggregate.as_deref(),
            tail,
            items,
            &k.join.precisions,
            &put,
        )
        .map(Some)
    }

    /// The end of a kept block on its rows with a run's values (`put`): grouped by the
    /// tail's keys where it has aggregate `calls`, then ended as the general path ends a
    /// block (`Exec::finish_block`).
    ///
    /// # Errors
    /// Evaluation errors of the clauses.
    fn finish_kept(
        &mut self,
        rows: RecordBatch,
        calls: Option<&[AggCall]>,
        tail: &Tail,
        items: Vec<Item>,
        precisions: &[crate::ops::Display],
        put: &impl Fn(&Expr) -> Expr,
    ) -> Result<Rows> {
        let rows = match calls {
            Some(calls) => aggregate(&rows, &tail.group_keys(put), &put_calls(calls, put))?,
            None => rows,
        };
        let clauses = tail.clauses(items, precisions, put);
        self.finish_block(tail.top(), rows, clauses, None)
    }

    /// Runs a bound block with this execution's slot values; `None` when a value's type
    /// differs from the one it was bound with, or the rows path declines (the caller then
    /// runs the block as usual).
    ///
    /// Right after binding (`kept` false) the slots' values are the arrays binding just made
    /// in this execution: the subqueries are not run again (an IN slot's, which binding
    /// does not run, runs now). Asked for a scalar subquery's
    /// value (`scalar`), a block whose one item is MIN or MAX of a column gives the value of
    /// the row its index walk found, with no batch, aggregation or projection around it
    /// (what those would give: the column's one-row array, [`BoundSelect::walked_value`]).
    fn run_bound(&mut self, b: &BoundSelect, kept: bool, scalar: bool) -> Result<Option<Ran>> {
        let Some(table) = b.table.upgrade() else {
            return Ok(None);
        };
        let Some(values) = self.run_values(&b.slots, kept)? else {
            return Ok(None);
        };
        // with no values to put in, the bound expressions serve as they are
        let inputs = Inputs::new(&b.slots.slots, &values);
        let put = |e: &Expr| inputs.put(e);
        let cond = b
            .cond
            .as_ref()
            .map(|c| RunCond::new(c, inputs, b.template.as_ref()));
        let cond = cond.as_ref();
        // the select list with this run's values, made only where rows are made
        let items = || -> Cow<'_, [Item]> {
            match values.is_empty() {
                true => Cow::Borrowed(&b.items),
                false => Cow::Owned(put_items(&b.items, &put)),
            }
        };
        self.count_volatile_use(&table);
        // a MIN/MAX walk where the general path walks (it tests WHERE on the rows it visits
        // only, so it must be taken here too: a row it skips may make WHERE fail)
        let walked = match b.aggregate.as_ref().and_then(|(_, t)| t.as_ref()) {
            Some(t) => self
                .reader()
                .walk_min_max(&table, cond, t, Some(&b.walks))?,
            None => None,
        };
        // a block of rows cut by a TOP n alone: read only until it has them, as the general
        // path streams it
        if let (None, Some(n)) = (&b.aggregate, b.tail.only_top()) {
            // (`None`: no segment at all; the rows are then read whole below, as before)
            if let Some(rows) =
                self.reader()
                    .stream_rows(&table, cond, &items(), &b.precisions, Some(n))?
            {
                return Ok(Some(Ran::Rows(rows)));
            }
        }
        if b.tail.any() {
            // the rows (whole, or those the walk found), then grouped, ordered, cut as the
            // general path does
            let rows = match &walked {
                Some(rids) => table.fetch_columns(rids, Some(&b.tail_reads)),
                None => self
                    .reader()
                    .read_where_rows(&table, cond, Some(&b.tail_reads))?,
            };
            let calls = b.aggregate.as_ref().map(|(calls, _)| calls.as_slice());
            let items = items().into_owned();
            let rows = self.finish_kept(rows, calls, &b.tail, items, &b.precisions, &put)?;
            return Ok(Some(Ran::Rows(rows)));
        }
        let Some((calls, _)) = &b.aggregate else {
            return Ok(self
                .reader()
                .stream_rows(&table, cond, &items(), &b.precisions, None)?
                .map(Ran::Rows));
        };
        if let Some(v) = walked
            .as_deref()
            .filter(|_| scalar)
            .and_then(|rids| b.walked_value(&table, rids))
        {
            return Ok(Some(Ran::Value(v)));
        }
        let calls: Cow<'_, [AggCall]> = match values.is_empty() {
            true => Cow::Borrowed(calls),
            false => Cow::Owned(put_calls(calls, &put)),
        };
        let input = match walked {
            Some(rids) => table.fetch_columns(&rids, Some(&b.reads)),
            None => {
                // the aggregates' columns and the condition's: no other is copied
                let mut fetched = b.reads.clone();
                cond.iter()
                    .for_each(|c| c.bound().mark_columns(&mut fetched));
                self.reader()
                    .read_where_rows(&table, cond, Some(&fetched))?
            }
        };
        let rows = aggregate(&input, &[], &calls)?;
        let out = project(&items(), &b.precisions, &rows)?;
        Ok(Some(Ran::Rows(Rows {
            schema: out.schema(),
            batches: vec![out],
        })))
    }
}

/// What a run of a bound block gives (see [`Exec::run_bound`]).
enum Ran {
    Rows(Rows),
    /// A scalar subquery's value, asked for and found without building rows.
    Value(ArrayRef),
}

impl BoundSelect {
    /// For a block `SELECT MIN(c)` or `SELECT MAX(c)` whose index walk found the one row
    /// `rids` (no other item, no DISTINCT): that row's `c` as a one-row array, which is what
    /// aggregating the fetched row and projecting the item give (`aggregate`'s one-row
    /// MIN/MAX takes the argument's array as it is, and the item is the call's column).
    /// `None` for any other block, an empty walk (its NULL is the general path's to type),
    /// or a column whose array type is not its SQL type's (the general path decides).
    fn walked_value(&self, table: &Table, rids: &[RowId]) -> Option<ArrayRef> {
        let (calls, _) = self.aggregate.as_ref()?;
        let ([(Expr::Column { index: 0, .. }, ..)], [call], [rid]) =
            (self.items.as_slice(), calls.as_slice(), rids)
        else {
            return None;
        };
        let (AggFunc::Min | AggFunc::Max, false, Some(Expr::Column { index: c, .. })) =
            (call.func, call.distinct, &call.arg)
        else {
            return None;
        };
        let v = table.row_arrays(*rid, &[*c]).pop()?;
        (sql_type_of(v.data_type()).arrow_type() == *v.data_type()).then_some(v)
    }

    /// The block's bound expressions: WHERE, the select list, the aggregate calls' arguments.
    fn exprs(&self) -> impl Iterator<Item = &Expr> {
        let args = self
            .aggregate
            .iter()
            .flat_map(|(calls, _)| calls.iter().flat_map(AggCall::exprs));
        self.cond
            .iter()
            .chain(self.items.iter().map(|i| &i.0))
            .chain(args)
            .chain(self.tail.exprs())
    }
}

/// The ORDER BY a kept block's plan was bound from (`None`: not a block's plan).
fn bound_order_by(p: &Plan) -> Option<&[ast::OrderByExpr]> {
    match p {
        Plan::Select(b) => Some(&b.tail.order_by),
        Plan::Join(j) => Some(&j.join.tail.order_by),
        Plan::Condition(_)
        | Plan::Table(..)
        | Plan::Shape(_)
        | Plan::NeedsRows(_)
        | Plan::Merge(_)
        | Plan::Joined(_) => None,
    }
}

/// Whether bound clauses can be kept: no window, QUALIFY or correlated subquery (which
/// need the block's rows to bind).
fn kept_clauses(c: &crate::clauses::Clauses) -> bool {
    c.windows.is_empty() && c.placeholders == 0 && c.qualify.is_none()
}

/// The one FROM item of `s` when it is a block that may be kept on one table: no join,
/// QUALIFY or named window, and a plain GROUP BY if any.
fn one_table(s: &ast::Select) -> Option<&ast::TableWithJoins> {
    let [one] = s.from.as_slice() else {
        return None;
    };
    (one.joins.is_empty() && crate::bound_join::plain_clauses(s)).then_some(one)
}

/// The ON conditions of block `s`'s joins.
pub(crate) fn on_exprs(s: &ast::Select) -> impl Iterator<Item = &ast::Expr> {
    s.from.iter().flat_map(|t| &t.joins).filter_map(|j| {
        match crate::join::join_constraint(&j.join_operator) {
            Some(ast::JoinConstraint::On(e)) => Some(e),
            _ => None,
        }
    })
}

/// The expressions written in block `s` and its `order_by` outside FROM: WHERE, the select
/// list, GROUP BY, HAVING, ORDER BY.
pub(crate) fn block_exprs<'s>(
    s: &'s ast::Select,
    order_by: &'s [ast::OrderByExpr],
) -> impl Iterator<Item = &'s ast::Expr> {
    let group: &[ast::Expr] = match &s.group_by {
        ast::GroupByExpr::Expressions(v, _) => v,
        ast::GroupByExpr::All(_) => &[],
    };
    let items = s.projection.iter().filter_map(|i| match i {
        ast::SelectItem::UnnamedExpr(e) | ast::SelectItem::ExprWithAlias { expr: e, .. } => Some(e),
        _ => None,
    });
    s.selection
        .iter()
        .chain(items)
        .chain(group)
        .chain(&s.having)
        .chain(order_by.iter().map(|o| &o.expr))
}

/// A select list with a run's values put in by `put`.
fn put_items(items: &[Item], put: &impl Fn(&Expr) -> Expr) -> Vec<Item> {
    (items.iter())
        .map(|(e, name, title, alias)| (put(e), name.clone(), title.clone(), alias.clone()))
        .collect()
}

/// Aggregate calls with a run's values put in by `put`.
fn put_calls(calls: &[AggCall], put: &impl Fn(&Expr) -> Expr) -> Vec<AggCall> {
    calls
        .iter()
        .map(|c| AggCall {
            arg: c.arg.as_ref().map(put),
            order: (c.order.iter())
                .map(|k| crate::ops::SortKey {
                    expr: put(&k.expr),
                    ..k.clone()
                })
                .collect(),
            ..c.clone()
        })
        .collect()
}

/// True if a binding noted in `recording` depends on nothing but its slots, and each slot's
/// array is still in `exprs` as itself (a binder that derived a value from it would leave it
/// out).
/// Bound join block `join` kept, where its recording holds only slots its expressions
/// still have (`kept_slots`); else refused.
fn kept_join(
    join: BoundJoin,
    recording: &Recording,
    shaped_by: Vec<(String, arrow::datatypes::DataType)>,
) -> Bound {
    let exprs: Vec<&Expr> = join.exprs().collect();
    match kept_slots(recording, &exprs) {
        true => Bound::Join(Box::new(KeptJoin {
            join,
            slots: KeptSlots::new(recording.slots.clone()),
            shaped_by,
        })),
        false => Bound::Refused,
    }
}

/// A kept statement's plan at one run ([`Exec::statement_plan`]): the plan, the run's slot
/// values, and the cache that counts its use where it was kept before this run.
pub(crate) type StatementPlan<'a, T> = (Arc<T>, Vec<ArrayRef>, Option<&'a PlanCache>);

/// A statement a prepared request's plan cache keeps whole ([`Exec::statement_plan`]): a
/// MERGE (bound_merge.rs), a joined UPDATE or DELETE (bound_joined.rs).
pub(crate) trait KeptStatement: Sized {
    /// Its plan, if `plan` is one of its kind.
    fn of(plan: Plan) -> Option<Arc<Self>>;
    /// It as the cache keeps it.
    fn plan(kept: Arc<Self>) -> Plan;
    /// The `?` parameters bound into it.
    fn slots(&self) -> &KeptSlots;
}

/// Whether a statement kept whole (a MERGE, a joined UPDATE or DELETE) may be kept, by what
/// its binding recorded and its bound expressions `exprs`: never with a slot other than a
/// `?` parameter or with a value of the request or session; not now with a parameter the
/// binder folded (its slot is in no expression: [`kept_slots`]).
pub(crate) fn statement_slots(
    recording: &Recording,
    exprs: &[&Expr],
) -> std::result::Result<(), NotKept> {
    let params = (recording.slots.iter()).all(|(_, s)| matches!(s, Slot::Param(_)));
    if !params || !recording.only_slots() {
        return Err(NotKept::Never);
    }
    match kept_slots(recording, exprs) {
        true => Ok(()),
        false => Err(NotKept::NotNow),
    }
}

pub(crate) fn kept_slots(recording: &Recording, exprs: &[&Expr]) -> bool {
    let mut seen = vec![false; recording.slots.len()];
    for e in exprs {
        e.visit_literals(&mut |a| {
            if let Some(i) = recording.slots.iter().position(|(t, _)| Arc::ptr_eq(t, a)) {
                seen[i] = true;
            }
        });
    }
    recording.only_slots() && seen.iter().all(|&s| s)
}

/// The sargable-condition template of `cond`, a condition on `schema`'s rows holding the
/// arrays of `slots`; `None` where it holds an IN slot's placeholder (a template reads one
/// value per slot, a set has many: each run's sargable conditions are read from the
/// condition with its values put in).
fn template(cond: &Expr, schema: &TableSchema, slots: &[(ArrayRef, Slot)]) -> Option<CondTemplate> {
    let mut set = false;
    cond.visit_literals(&mut |a| set |= (slots.iter()).any(|(t, s)| s.many() && Arc::ptr_eq(t, a)));
    let is_slot = |a: &ArrayRef| slots.iter().any(|(t, _)| Arc::ptr_eq(t, a));
    (!set).then(|| CondTemplate::new(cond, schema, &is_slot))
}

/// An UPDATE's or DELETE's WHERE clause, or an UPDATE's SET value, bound once (see
/// [`Exec::cached_expr`]).
pub(crate) struct BoundCondition {
    /// The table it was bound for (weak, as [`BoundSelect`]'s).
    table: Weak<Table>,
    cond: Expr,
    /// `cond`'s sargable conditions with the slots as inputs, made the first time it is
    /// used as a WHERE clause (a SET value never is).
    template: OnceLock<Option<CondTemplate>>,
    slots: KeptSlots,
}

/// An expression from [`Exec::cached_expr`].
pub(crate) enum CachedExpr {
    /// Bound in this execution (the first), holding its values.
    Bound(Expr),
    /// A kept binding, and this execution's slot values.
    Kept(Arc<BoundCondition>, Vec<ArrayRef>),
}

impl CachedExpr {
    /// The expression with this execution's values.
    pub(crate) fn into_expr(self) -> Expr {
        match self {
            CachedExpr::Bound(e) => e,
            CachedExpr::Kept(b, values) => Inputs::new(&b.slots.slots, &values).put(&b.cond),
        }
    }

    /// The expression as a WHERE condition on `schema`'s rows (the table it was bound for) at
    /// this execution: for a kept binding, made with the values only if rows are tested
    /// against it.
    pub(crate) fn as_cond(&self, schema: &TableSchema) -> RunCond<'_> {
        match self {
            CachedExpr::Bound(e) => RunCond::plain(e),
            CachedExpr::Kept(b, values) => {
                let t = b
                    .template
                    .get_or_init(|| template(&b.cond, schema, &b.slots.slots));
                RunCond::new(&b.cond, Inputs::new(&b.slots.slots, values), t.as_ref())
            }
        }
    }
}

/// True if `e` has, at its own level, a subquery whose values no slot of a kept plan holds:
/// a quantified comparison other than `= ANY` and `<> ALL` (deferred, but its values run at
/// binding, deferred.rs); a one-value IN's are an IN slot (`Slot::Set`), and so are
/// `= ANY`'s and `<> ALL`'s (bound as IN and NOT IN); a row value IN's rows are a
/// `Slot::Rows`.
fn no_slot_holds(e: &ast::Expr) -> bool {
    use ast::BinaryOperator::{Eq, NotEq};
    crate::bind::visit_own_level(e, |x| match x {
        ast::Expr::AnyOp { compare_op, .. } if *compare_op != Eq => {
            std::ops::ControlFlow::Break(())
        }
        ast::Expr::AllOp { compare_op, .. } if *compare_op != NotEq => {
            std::ops::ControlFlow::Break(())
        }
        _ => std::ops::ControlFlow::Continue(()),
    })
    .is_break()
}

/// Whether a clause of block `s` (WHERE, ON, the select list, GROUP BY, HAVING, QUALIFY,
/// ORDER BY) holds a subquery.
pub(crate) fn has_clause_subquery(s: &ast::Select, order_by: &[ast::OrderByExpr]) -> bool {
    block_exprs(s, order_by)
        .chain(&s.qualify)
        .chain(on_exprs(s))
        .any(crate::correlate::has_subquery)
}
