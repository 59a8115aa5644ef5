//! SELECT: read (an index or a scan for one table, `join.rs` for several) → WHERE → GROUP
//! BY/aggregates → HAVING → window functions → QUALIFY → SAMPLE → ORDER BY → select list →
//! DISTINCT → TOP n. Each step is an Arrow kernel over record batches (`filter_record_batch`,
//! `lexsort_to_indices`, `take`); grouping hashes Teradata-normalised keys. The clauses are
//! bound over the rows read (a correlated subquery there runs per row), except where the
//! FROM's columns are known before it is read (a join, a view alone, one base table, a CTE,
//! no FROM) and no clause holds a correlated subquery (nor any subquery, over a join): every
//! clause is then bound before a row is read (`Exec::bind_then_read`; uncorrelated scalar,
//! EXISTS and IN subqueries run once the block is bound, deferred.rs), as a kept plan runs
//! the block.
//!
//! Invariant: a browse never waits and never consumes; it reads the rows visible to the
//! statement's snapshot (committed rows plus the transaction's own changes).

use crate::access::{min_max_targets, MinMaxCall};
use crate::aggregate::aggregate;
use crate::bind::{has_aggregate, Scope};
use crate::clauses::{BlockGroups, Clauses};
use crate::early::{Early, EarlyBound, EarlySource};
use crate::error::{Error, Result};
use crate::exec::Exec;
use crate::expr::Expr;
use crate::inputs::RunCond;
use crate::names::table_scope;
use crate::ops::filter_by;
use crate::ops::project;
use crate::ops::row_keys;
use crate::ops::single_row;
use crate::ops::sort_indices;
use crate::ops::SortKey;
use crate::result::Rows;
use arrow::array::{ArrayRef, UInt64Array};
use arrow::compute::concat_batches;
use arrow::record_batch::RecordBatch;
use sqlparser::ast;
use std::ops::ControlFlow;
use std::sync::Arc;
use tdlite_storage::table::Table;
use tdlite_storage::types::{normalize_for_key, value_at, RowKey, Value};

impl Exec<'_> {
    /// A one-table FROM over a base table, read through an index when the WHERE clause (or a
    /// MIN/MAX select list) allows: the scope and the rows that pass WHERE. `None` when the
    /// relation is not a plain table or WHERE needs the correlated-subquery machinery (the
    /// caller then scans and filters as usual).
    pub(crate) fn indexed_source(
        &mut self,
        tf: &ast::TableFactor,
        selection: Option<&ast::Expr>,
        min_max: Option<&[MinMaxCall]>,
    ) -> Result<Option<(Scope, RecordBatch)>> {
        if selection.is_none() && min_max.is_none() {
            return Ok(None);
        }
        let Some((table, q)) = self.base_table(tf)? else {
            return Ok(None);
        };
        let scope = table_scope(&table, &q);
        let cond = match selection {
            Some(w) => match self.bind_expr(w, &scope, None) {
                Ok(c) => Some(c),
                Err(_) => return Ok(None),
            },
            None => None,
        };
        let batch = self.read_table(&table, &scope, cond.as_ref(), min_max)?;
        Ok(Some((scope, batch)))
    }

    /// The rows of base `table` (columns `scope`) that pass `cond` (all for `None`), read
    /// through the best index for `cond`, or by a MIN/MAX walk where `min_max` (the block's
    /// MIN/MAX select list) allows one, else scanned and filtered; with only the columns the
    /// block names (`Exec::names_read`) copied.
    ///
    /// # Errors
    /// Evaluation errors of `cond`.
    pub(crate) fn read_table(
        &mut self,
        table: &Table,
        scope: &Scope,
        cond: Option<&Expr>,
        min_max: Option<&[MinMaxCall]>,
    ) -> Result<RecordBatch> {
        // the block names every column WHERE and the MIN/MAX calls read
        let keep = self.keep_named(table);
        let keep = keep.as_deref();
        if let Some(calls) = min_max {
            if let Some(targets) = min_max_targets(calls, scope) {
                if let Some((batch, _)) = self.reader().read_min_max(table, cond, &targets, keep)? {
                    return Ok(batch);
                }
            }
        }
        if cond.is_none() && min_max.is_none() {
            return Ok(self.scan_table_keeping(table, keep)?.0);
        }
        let run = cond.map(RunCond::plain);
        self.reader().read_where_rows(table, run.as_ref(), keep)
    }

    /// The columns of `table` the SELECT block whose FROM clause is being read may name (see
    /// `Exec::names_read`), as a keep mask; `None`: every column.
    pub(crate) fn keep_named(&self, table: &Table) -> Option<Vec<bool>> {
        self.names_read
            .as_ref()
            .and_then(|n| crate::names::keep_named(table, n))
    }

    /// Scans a table as one batch of visible rows, with their row ids.
    pub fn scan_table(&self, table: &Table) -> Result<(RecordBatch, UInt64Array)> {
        self.scan_table_keeping(table, None)
    }

    /// [`Exec::scan_table`] copying only the columns `keep` marks (the others NULL, in a
    /// batch of [`Table::nullable_schema`]), or every column for `None`.
    ///
    /// # Errors
    /// 3110 after a cancel, 9920 past the statement timeout.
    pub(crate) fn scan_table_keeping(
        &self,
        table: &Table,
        keep: Option<&[bool]>,
    ) -> Result<(RecordBatch, UInt64Array)> {
        crate::interrupt::check()?;
        let parts = table.scan_keeping(self.snapshot(), keep);
        let batches = parts.iter().map(|p| &p.batch);
        let batch = match keep {
            Some(k) => {
                let parts: Vec<RecordBatch> = batches.cloned().collect();
                tdlite_storage::columns::concat_columns(table.nullable_schema(), &parts, k)?
            }
            None => concat_batches(&table.schema.arrow, batches)?,
        };
        let mut ids = Vec::with_capacity(parts.iter().map(|p| p.row_ids.len()).sum());
        for p in &parts {
            ids.extend_from_slice(p.row_ids.values());
        }
        let ids = UInt64Array::from(ids);
        Ok((batch, ids))
    }

    /// The catalog name of a table as written: an unqualified name is in the session's
    /// default database (`DATABASE x`), if one was set.
    ///
    /// A name qualified by the session's user (`tdlite.t`) is the unqualified one: the user's
    /// own database holds the tables made without a database, as Teradata's logon user
    /// database does.
    pub fn table_name(&self, name: &ast::ObjectName) -> String {
        let n = tdlite_parser::object_name_string(name);
        match (self.database, name.0.len()) {
            (Some(db), 1) => format!("{db}.{n}"),
            (_, 2) => match n.split_once('.') {
                Some((db, bare)) if db.eq_ignore_ascii_case(self.user) => bare.to_string(),
                _ => n,
            },
            _ => n,
        }
    }

    /// Looks up a table; 3807 if it does not exist. An unqualified name is looked for in the
    /// default database first, then among the tables created without one (a tdlite rule:
    /// tables made before `DATABASE x` stay reachable). A global temporary table is this
    /// session's instance of it, materialized now if it is not yet (as a DML request that
    /// names it does in Teradata; not by a run for a query's columns alone, `Exec::shaping`,
    /// which reads the definition); [`Exec::table_definition`] finds the definition.
    pub fn must_get_table(&self, name: &ast::ObjectName) -> Result<Arc<Table>> {
        self.materialized(self.table_definition(name)?)
    }

    /// As [`Exec::must_get_table`], but a global temporary table as its definition (see
    /// [`Exec::object_definition`]).
    pub(crate) fn table_definition(&self, name: &ast::ObjectName) -> Result<Arc<Table>> {
        let t = self.object_definition(name)?;
        if t.schema.macro_def.is_some() {
            return Err(Error::NotATable(t.schema.name.clone()));
        }
        Ok(t)
    }

    /// This session's instance of the global temporary table `t`, made (empty) if it has none
    /// yet; any other table as it is. An instance is a volatile table named as the
    /// definition, with its columns, indexes and ON COMMIT option (catalog.rs,
    /// `TableSchema::global_temporary`); making it is not undone by a rollback, as an empty
    /// instance holds nothing to undo.
    pub(crate) fn materialized(&self, t: Arc<Table>) -> Result<Arc<Table>> {
        let Some(on_commit) = t.schema.global_temporary else {
            return Ok(t);
        };
        let catalog = &self.shared.storage.catalog;
        if let Some(instance) = catalog.get_volatile(self.session, &t.schema.name) {
            match instance.schema.volatile.and_then(|v| v.instance_of) {
                Some(id) if id == t.id => return Ok(instance),
                // an instance of a definition that is gone (a CREATE rolled back, or the
                // table dropped and made again): its rows went with it (left as it is by a
                // run for the columns alone, which changes nothing)
                Some(_) if self.shaping() => return Ok(t),
                Some(_) => catalog.drop_volatile(&instance),
                // a volatile table of this session under the definition's whole name
                None => return Err(Error::AmbiguousTable(t.schema.name.clone())),
            }
        }
        // a run for a query's columns alone (CREATE VIEW, EXPLAIN) reads no row: the
        // definition, which holds none, stands in, and nothing is made
        if self.shaping() {
            return Ok(t);
        }
        let mut schema = t.schema.clone();
        schema.global_temporary = None;
        schema.volatile = Some(tdlite_storage::catalog::Volatile {
            session: self.session,
            on_commit,
            instance_of: Some(t.id),
        });
        Ok(catalog.create_table(schema, 0)?)
    }

    /// Looks up any catalog entry, a macro too, a global temporary table as its definition
    /// (HELP, SHOW, DROP, ALTER and the checks of CREATE VIEW read or change that, and do not
    /// materialize it). An unqualified name (or one qualified by the logon user) is also this
    /// session's volatile table of that name; found both ways (a permanent table of the
    /// default database and a volatile one), it is ambiguous (3806), as in Teradata.
    pub(crate) fn object_definition(&self, name: &ast::ObjectName) -> Result<Arc<Table>> {
        let n = self.table_name(name);
        let catalog = &self.shared.storage.catalog;
        // the common case first: no volatile table anywhere, the name as resolved is there
        // a subscriber's table is reached through its queue only (subscribers.rs)
        let get = |n: &str| {
            catalog
                .get_table(n)
                .filter(|t| t.schema.subscription.is_none())
        };
        if !catalog.has_volatile() {
            if let Some(t) = get(&n) {
                return Ok(t);
            }
        }
        let written = tdlite_parser::object_name_string(name);
        let permanent = get(&n).or_else(|| {
            // unqualified: also among the tables made without a database; qualified by
            // the user: also as stored by tdlite before it read that as unqualified
            (self.database.is_some() || written != n)
                .then(|| get(&written))
                .flatten()
        });
        let volatile = match written.split_once('.') {
            _ if !catalog.has_volatile() => None,
            None => catalog.get_volatile(self.session, &written),
            Some((db, bare)) if db.eq_ignore_ascii_case(self.user) => {
                catalog.get_volatile(self.session, bare)
            }
            Some(_) => None,
        }
        // an instance of a global temporary table is found through its definition
        .filter(|t| t.schema.volatile.is_some_and(|v| !v.is_instance()));
        match (permanent, volatile) {
            (Some(p), Some(_)) => Err(Error::AmbiguousTable(p.schema.name.clone())),
            (None, Some(t)) => {
                self.volatile_uses.set(self.volatile_uses.get() + 1);
                Ok(t)
            }
            (Some(t), None) => Ok(t),
            (None, None) => Err(Error::ObjectNotFound(if name.0.len() == 2 {
                written
            } else {
                n
            })),
        }
    }

    /// The rows of a FROM clause, filtered by the WHERE clause.
    fn source(
        &mut self,
        from: &[ast::TableWithJoins],
        selection: Option<&ast::Expr>,
        min_max: Option<&[crate::access::MinMaxCall]>,
    ) -> Result<(Scope, RecordBatch)> {
        if let Some(w) = selection {
            if has_aggregate(w) {
                return Err(Error::AggregateInWhere);
            }
        }
        if let [one] = from {
            if one.joins.is_empty() {
                if let Some(read) = self.indexed_source(&one.relation, selection, min_max)? {
                    return Ok(read);
                }
                if let Some(read) = self.read_then_correlate(&one.relation, selection)? {
                    return Ok(read);
                }
            }
        }
        let (scope, input) = match from {
            // (no row where only the columns are wanted: its values are never evaluated)
            [] if self.shaping() => (Scope::default(), single_row().slice(0, 0)),
            [] => (Scope::default(), single_row()),
            // (a view bound from its recorded columns is read at its step, as in a join: its
            // WHERE is bound before it is read)
            [one] if one.joins.is_empty() && !self.names_unread_view(&one.relation) => {
                self.relation_under(&one.relation, selection)?
            }
            several => return self.joined_source(several, selection),
        };
        match selection {
            Some(w) => {
                let input = self.filter_correlated(&scope, input, std::slice::from_ref(w))?;
                Ok((scope, input))
            }
            None => Ok((scope, input)),
        }
    }

    /// A base table `tf` under a WHERE whose conjuncts with a subquery (correlated, so the
    /// whole did not bind on its own) run only on the rows its other conjuncts keep: those
    /// read the table (through an index where they allow), then each subquery conjunct filters
    /// what is left, per row (`Exec::filter_correlated`). `None` when WHERE has no such split.
    fn read_then_correlate(
        &mut self,
        tf: &ast::TableFactor,
        selection: Option<&ast::Expr>,
    ) -> Result<Option<(Scope, RecordBatch)>> {
        let Some(w) = selection else {
            return Ok(None);
        };
        let Some((table, q)) = self.base_table(tf)? else {
            return Ok(None);
        };
        let scope = crate::names::table_scope(&table, &q);
        let ty = |c: usize| Some(table.schema.arrow.fields().get(c)?.data_type().clone());
        let mut safe = |p: &ast::Expr| self.binds_safely(p, &scope, &ty);
        let (Some(plain), with) = crate::conjuncts::split_subqueries(w, &mut safe) else {
            return Ok(None);
        };
        if with.is_empty() {
            return Ok(None);
        }
        let Some((scope, rows)) = self.indexed_source(tf, Some(&plain), None)? else {
            return Ok(None);
        };
        let rows = self.tried_early(&scope, rows, &with);
        let rows = self.filter_correlated(&scope, rows, &with)?;
        Ok(Some((scope, rows)))
    }

    /// Runs a query and returns its rows.
    ///
    /// # Errors
    /// Binding errors (3807, 3810, 3822, 3504) and evaluation errors (2616, 2618, …).
    pub fn run_query(&mut self, q: &ast::Query) -> Result<Rows> {
        // (a query inside a query, a derived table's say, continues on a new stack segment
        // when this one runs low: stack.rs)
        crate::stack::deep(|| self.isolated(|ex| ex.run_query_here(q)))
    }

    /// The columns `q` gives, found by running it over no rows: every table it reads is
    /// read through a snapshot that sees none ([`Snapshot::seeing_nothing`]), so it reads
    /// and evaluates nothing of the tables' data (CREATE VIEW and CREATE TABLE … AS … WITH
    /// NO DATA store a query's columns without running it on the rows, as Teradata does).
    /// Its blocks are not kept in a prepared request's plan cache.
    ///
    /// No row is made where the query would make one of its own, and the rows the system
    /// makes look empty too ([`Exec::shaping`]), so no value is evaluated: only the types
    /// are found. A recursive CTE whose anchor gives no row has its step bound (run for its
    /// columns alone, as here) over none of it (cte.rs; in any run).
    ///
    /// # Errors
    /// Binding errors; type errors (found evaluating over no row).
    ///
    /// [`Snapshot::seeing_nothing`]: tdlite_storage::mvcc::Snapshot::seeing_nothing
    pub(crate) fn shape_of(&mut self, q: &ast::Query) -> Result<Rows> {
        self.seeing_nothing(|ex| ex.run_query(q))
    }

    /// `f` run as [`Exec::shape_of`] runs its query: over tables that all look empty, without
    /// the plan cache, its warnings dropped.
    pub(crate) fn seeing_nothing<T>(
        &mut self,
        f: impl FnOnce(&mut Self) -> Result<T>,
    ) -> Result<T> {
        let nothing = std::cell::OnceCell::from(tdlite_storage::mvcc::Snapshot::seeing_nothing());
        let snap = std::mem::replace(&mut self.snap, nothing);
        let plans = self.plans.take();
        let warning = self.warning.take();
        let out = f(self);
        // (a SAMPLE of no rows falls short: not the statement's warning)
        self.warning = warning;
        self.plans = plans;
        self.snap = snap;
        out
    }

    /// Whether this statement runs its query over no rows for its columns alone
    /// ([`Exec::shape_of`]): no row is then made where the query makes one without a table
    /// (no FROM, the one group of an aggregate over no rows, a table function of literals),
    /// the rows the system makes (the calendar, a dictionary view) look empty, and a global
    /// temporary table without an instance is read as its definition (none is made), so no
    /// value is evaluated and only the types are found, as Teradata resolves a view's
    /// columns without running it.
    pub(crate) fn shaping(&self) -> bool {
        self.snap.get().is_some_and(|s| s.sees_nothing())
    }

    /// Runs `f` (a query inside the clause being bound) without the enclosing query's binding
    /// context (correlation batch, window calls, placeholders), which it must neither see
    /// nor lose.
    pub(crate) fn isolated<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        let saved_recording = self.recording.get_mut().take().map(|mut r| {
            r.queries += 1;
            r
        });
        let saved = self.corr.take();
        let saved_agg_input = self.agg_input.take();
        let saved_windows = self.windows.take();
        let saved_placeholders = self.placeholders.take();
        let saved_deferral = self.deferral.take();
        let saved_names = self.names_read.take();
        let saved_sample_ids = std::mem::replace(&mut self.sample_ids, false);
        let result = f(self);
        self.sample_ids = saved_sample_ids;
        self.corr = saved;
        self.agg_input = saved_agg_input;
        self.windows = saved_windows;
        self.placeholders = saved_placeholders;
        self.deferral = saved_deferral;
        self.names_read = saved_names;
        *self.recording.get_mut() = saved_recording;
        result
    }

    fn run_query_here(&mut self, q: &ast::Query) -> Result<Rows> {
        if let Some(with) = &q.with {
            return self.run_with(with, q);
        }
        if q.limit_clause.is_some() || q.fetch.is_some() {
            return Err(Error::Unsupported("LIMIT/FETCH (use TOP n)".into()));
        }
        let order_by: &[ast::OrderByExpr] = match &q.order_by {
            None => &[],
            Some(ast::OrderBy {
                kind: ast::OrderByKind::Expressions(v),
                ..
            }) => v,
            Some(_) => return Err(Error::Unsupported("ORDER BY ALL".into())),
        };
        match q.body.as_ref() {
            ast::SetExpr::Select(s) => self.run_select(s, order_by),
            ast::SetExpr::Query(inner) if q.order_by.is_none() => self.run_query(inner),
            body @ ast::SetExpr::SetOperation { .. } => self.run_set_query(body, order_by),
            other => Err(Error::Unsupported(format!("the query form {other}"))),
        }
    }

    pub(crate) fn run_select(
        &mut self,
        s: &ast::Select,
        order_by: &[ast::OrderByExpr],
    ) -> Result<Rows> {
        self.isolated(|ex| ex.run_select_here(s, order_by))
    }

    fn run_select_here(&mut self, s: &ast::Select, order_by: &[ast::OrderByExpr]) -> Result<Rows> {
        crate::interrupt::check()?;
        if let Some(rows) = self.cached_select(s, order_by)? {
            return Ok(rows);
        }
        // the SAMPLE on the first FROM item samples the block's result (see sample.rs)
        let first = s.from.first().map(|f| crate::sample::of_table(&f.relation));
        let (sample, from) = match first.transpose()?.flatten() {
            Some(sample) => {
                self.random_uses += 1;
                let from = crate::sample::taken_off(&s.from).unwrap_or_else(|| s.from.clone());
                (Some(sample), std::borrow::Cow::Owned(from))
            }
            None => (None, std::borrow::Cow::Borrowed(&s.from)),
        };
        let sampled = sample.is_some();
        // a block over a FROM whose columns are known before it is read binds its clauses
        // before any row is read, as a kept plan does (its uncorrelated subqueries run once
        // it is bound); one whose correlated subqueries need its rows, or whose FROM is
        // read while it binds, reads its FROM first
        let early = match self.binds_before_reading(s, &from, order_by) {
            Some(early) => self.bind_then_read(s, &from, order_by, sample.as_ref(), early)?,
            None => None,
        };
        let (read, groups, bound) = match early {
            Some(Bound::Streamed(rows)) => return Ok(rows),
            Some(Bound::Read(read)) => *read,
            None => self.read_then_bind(s, &from, order_by, sampled)?,
        };
        let BlockRead {
            scope,
            rows: input,
            from_rows,
        } = read;
        let BlockGroups {
            grouping,
            key_exprs,
            sets,
        } = groups;
        // aggregate
        let rows = match &grouping {
            Some(g) => match &sets {
                Some(masks) => {
                    crate::grouping_sets::aggregate_sets(&input, &key_exprs, &g.calls, masks)?
                }
                None => aggregate(&input, &key_exprs, &g.calls)?,
            },
            None => input,
        };
        // where only the columns are wanted, not even the one group of all (no) rows: its
        // values are never evaluated (`COUNT(x) / COUNT(*)` divides by zero over no rows)
        let rows = match grouping.is_some() && self.shaping() {
            true => rows.slice(0, 0),
            false => rows,
        };
        // a grouped query's correlated subqueries run per group: its clauses bound again
        let (bound, rows) = match &grouping {
            Some(g) if bound.placeholders > 0 => {
                // a HAVING without a subquery first: the other clauses' correlated subqueries
                // then run only for the groups it keeps (a scalar one raises no 3669 for a
                // group the query drops)
                let rows = match (&bound.having, &s.having) {
                    (Some(h), Some(written)) if !crate::correlate::has_subquery(written) => {
                        filter_by(&rows, h)?
                    }
                    _ => rows,
                };
                // the aggregates' arguments are bound again too, over the same FROM rows
                let saved = self.begin_aggregate_input(&scope, from_rows);
                let r = self.bind_over_groups(s, order_by, &scope, g, rows);
                self.end_aggregate_input(saved)?;
                r?
            }
            _ => (bound, rows),
        };
        let sample = sample.as_ref().map(|x| (x, &scope, grouping.is_some()));
        self.finish_block(crate::block_tail::block_top(s), rows, bound, sample)
    }

    /// How block `s` (over `from`, its SAMPLE taken off) is bound before any row is read
    /// ([`Exec::bind_then_read`]), where it is: no named window, a FROM whose columns are
    /// known before it is read ([`Exec::early_from`]), and, where WHERE, ON, the select
    /// list, GROUP BY, HAVING, QUALIFY or ORDER BY hold a subquery, a FROM whose binding reads
    /// no rows ([`Exec::binding_reads_no_rows`]). A block with subqueries is tried
    /// ([`Exec::bind_before_read`] binds its uncorrelated ones without running them,
    /// deferred.rs, sets a join's correlated WHERE and ON conjuncts aside to run per joined
    /// row, and gives `None` for any other correlated one, which binds over the FROM's rows:
    /// `read_then_bind`). `None` for any other block.
    pub(crate) fn binds_before_reading(
        &mut self,
        s: &ast::Select,
        from: &[ast::TableWithJoins],
        order_by: &[ast::OrderByExpr],
    ) -> Option<Early> {
        if !s.named_window.is_empty() {
            return None;
        }
        let early = self.early_from(from)?;
        match early {
            // (a FROM bound whole reads its table functions, and views and derived tables
            // made while binding: bound again over the rows where a correlated subquery of
            // the clauses turns out to need them, they would be read twice)
            Early::Whole if crate::bound_select::has_clause_subquery(s, order_by) => {
                self.binding_reads_no_rows(from).then_some(early)
            }
            early => Some(early),
        }
    }

    /// Whether binding FROM `from` whole reads no relation's rows: each item is a base
    /// table, a CTE (its rows made already), a view bound from its recorded columns or a
    /// derived table bound from its query's columns.
    fn binding_reads_no_rows(&mut self, from: &[ast::TableWithJoins]) -> bool {
        crate::pushdown::factors(from).into_iter().all(|tf| {
            self.binds_unread_derived(tf)
                || matches!(tf, ast::TableFactor::Table { args: None, .. })
                    && (self.names_unread_view(tf)
                        || self.cte_scope(tf).is_some()
                        || matches!(self.base_table(tf), Ok(Some(_))))
        })
    }

    /// Whether a FROM binds derived table `tf` from its query's columns, made at its step
    /// (join.rs `Exec::unread_derived`): one with an alias, not LATERAL, without SAMPLE, not
    /// in a run for the columns alone, nor while a FROM is bound again because a relation
    /// made at its step had other types than bound (`Exec::views_read_early`). (Where its columns cannot be had alone, the FROM
    /// makes it while it binds.)
    pub(crate) fn binds_unread_derived(&self, tf: &ast::TableFactor) -> bool {
        !self.shaping()
            && !self.views_read_early
            && matches!(
                tf,
                ast::TableFactor::Derived {
                    lateral: false,
                    alias: Some(_),
                    sample: None,
                    ..
                }
            )
    }

    /// How a block over `from` binds before its FROM is read, judged on the FROM alone (the
    /// choice of scope the query and EXPLAIN's check share; a kept plan makes the same choice
    /// for the blocks it takes, one base table or a join, bound_select.rs): none (one row),
    /// one base table, a CTE (its rows made already), a view or derived table alone bound
    /// unread, or a join bound whole with no outer join beside a comma (a table function in
    /// it is read while the FROM binds). `None` for any other FROM (a table function alone is
    /// read while its block binds; a name that resolves to nothing is the read's 3807).
    pub(crate) fn early_from(&mut self, from: &[ast::TableWithJoins]) -> Option<Early> {
        match from {
            [] => Some(Early::Rows(Scope::default(), None)),
            [one] if one.joins.is_empty() => {
                if self.names_unread_view(&one.relation) || self.binds_unread_derived(&one.relation)
                {
                    return Some(Early::Whole);
                }
                if let Some((scope, schema)) = self.cte_scope(&one.relation) {
                    return Some(Early::Rows(scope, Some(schema)));
                }
                let (table, q) = self.base_table(&one.relation).ok()??;
                let scope = crate::names::table_scope(&table, &q);
                Some(Early::Table(scope, table))
            }
            several => (!crate::join::outer_beside_comma(several)).then_some(Early::Whole),
        }
    }

    /// Block `s` bound, then read: bound whole before a row is read
    /// ([`Exec::bind_before_read`]: WHERE, ON, the select list, GROUP BY, HAVING, QUALIFY,
    /// ORDER BY, over the FROM's scope: [`Exec::bind_joined`]'s for a FROM bound whole, a
    /// base table's or a CTE's columns, or none), then read ([`Exec::read_early`]). So a name
    /// that does not resolve anywhere in the block is found before a row is read, as Teradata
    /// resolves a request before it runs it, and as a kept plan runs the block
    /// (bound_select.rs). `None` when a view's columns are no longer as recorded (the caller
    /// reads the block in the general order).
    ///
    /// # Errors
    /// [`Exec::bind_before_read`]'s, then the read's.
    fn bind_then_read(
        &mut self,
        s: &ast::Select,
        from: &[ast::TableWithJoins],
        order_by: &[ast::OrderByExpr],
        sample: Option<&crate::sample::Sample>,
        early: Early,
    ) -> Result<Option<Bound>> {
        match self.bind_before_read(s, from, order_by, sample, early)? {
            Some(plan) => self.read_early(s, from, order_by, sample.is_some(), plan),
            None => Ok(None),
        }
    }

    /// Block `s` (over `from`, its SAMPLE taken off and given as `sample`) bound before any
    /// row of its FROM is read, as `early` ([`Exec::early_from`]) says: FROM and WHERE
    /// ([`Exec::bind_early_from`]), then the rest ([`Exec::bind_early`]). The one binding of
    /// such a block: the query reads what it gives ([`Exec::bind_then_read`]), EXPLAIN checks
    /// a block with it (`Exec::bind_as_queried`), and a kept plan is made from it
    /// (bound_select.rs). A FROM bound whole that reads a view whose table is gone gives the
    /// view's 3807 before a wrong name in WHERE or ON (`bind_joined`) and before a binding
    /// error of the other clauses (`join::gives_way_to_gone_view`), as reading it first
    /// would. `None` where a clause's correlated subquery needs the block's rows or groups
    /// (deferred.rs `Deferral::needs_rows`; placeholders in a grouped block): the block's
    /// binding is then checked for a wrong name (3810, 3822), the only error it raises,
    /// the correlated subquery bound to a NULL placeholder. `None` too for a FROM bound for
    /// a prepared request's plan whose conjuncts are set aside (a kept plan refuses it,
    /// `BoundFrom::sets_aside`), before its deferred subqueries run.
    ///
    /// The uncorrelated scalar, EXISTS, IN and quantified subqueries of the clauses (for a
    /// FROM bound whole, of its WHERE and ONs too) are bound for their columns alone and run once the
    /// block is bound, their values put in (deferred.rs): not in a run for the columns alone
    /// ([`Exec::shaping`]), where running them in place reads nothing either (and deferring
    /// would bind each nested level twice more).
    ///
    /// # Errors
    /// 3569 (an aggregate in WHERE), 3868 and 3710 for the FROM (`join::check_from`), binding
    /// errors, 9910 (a stratified sample of a grouped block), type errors.
    pub(crate) fn bind_before_read(
        &mut self,
        s: &ast::Select,
        from: &[ast::TableWithJoins],
        order_by: &[ast::OrderByExpr],
        sample: Option<&crate::sample::Sample>,
        early: Early,
    ) -> Result<Option<EarlyBound>> {
        // the block's subqueries bound for their columns alone, run once it is bound
        // (deferred.rs)
        if !crate::bound_select::has_clause_subquery(s, order_by) {
            return self.bind_block_early(s, from, order_by, sample, early);
        }
        // (in a run for the columns alone, its subqueries run in place: that reads nothing
        // either, and deferring would bind each nested level twice more); a correlated
        // subquery: bound over the block's rows, its names resolved first
        let bound =
            self.with_deferral(|ex| ex.bind_block_early(s, from, order_by, sample, early.clone()))?;
        let Some((Some(mut plan), deferral)) = bound else {
            return Ok(None);
        };
        if deferral.is_empty() {
            return Ok(Some(plan));
        }
        // (bound for a prepared request's plan, a FROM with conjuncts set aside is refused
        // (bound_join.rs): its subqueries are left for the general path to run, once)
        if self.recording.get_mut().is_some() && plan.source.sets_aside() {
            return Ok(None);
        }
        let whole = matches!(early, Early::Whole);
        let run = self.run_deferral(deferral, crate::deferred::Nodes::Block(s, order_by));
        let run = match run {
            // (a view whose table is gone: its 3807 first, as reading it first would meet
            // it, and as for the clauses' binding errors)
            Err(e) if whole && crate::join::gives_way_to_gone_view(&e) => {
                Err(self.unread_views_missing(from).unwrap_or(e))
            }
            run => run,
        };
        match run? {
            Some(values) => {
                plan.put(&values)?;
                Ok(Some(plan))
            }
            // (not met: a value typed otherwise than its columns were; bound again, its
            // subqueries run where they bind, a kept plan's recording started afresh)
            None => {
                if let Some(r) = self.recording.get_mut().as_mut() {
                    *r = crate::slots::Recording::default();
                }
                self.bind_block_early(s, from, order_by, sample, early)
            }
        }
    }

    /// [`Exec::bind_before_read`]'s binding, with subqueries run or deferred as it chose.
    fn bind_block_early(
        &mut self,
        s: &ast::Select,
        from: &[ast::TableWithJoins],
        order_by: &[ast::OrderByExpr],
        sample: Option<&crate::sample::Sample>,
        early: Early,
    ) -> Result<Option<EarlyBound>> {
        if let Some(w) = &s.selection {
            if has_aggregate(w) {
                return Err(Error::AggregateInWhere);
            }
        }
        let whole = matches!(early, Early::Whole);
        if whole {
            crate::join::check_from(from)?;
        }
        let (scope, source) = self.bind_early_from(s, from, order_by, early)?;
        match self.bind_early(s, order_by, sample, scope, source) {
            // a view whose table is gone: its 3807 comes before any name or type error of
            // the clauses (reading it first would have met it; `bind_joined` maps WHERE's
            // and ON's wrong names so)
            Err(e) if whole && crate::join::gives_way_to_gone_view(&e) => {
                Err(self.unread_views_missing(from).unwrap_or(e))
            }
            plan => plan,
        }
    }

    /// Block `s`'s FROM (`early`) bound before any row of a table is read, with its WHERE:
    /// its scope and what it reads.
    ///
    /// # Errors
    /// Binding errors of the FROM and WHERE; those of relations read while binding.
    fn bind_early_from(
        &mut self,
        s: &ast::Select,
        from: &[ast::TableWithJoins],
        order_by: &[ast::OrderByExpr],
        early: Early,
    ) -> Result<(Scope, EarlySource)> {
        Ok(match early {
            Early::Whole => {
                let bound_from = self.with_where(s, order_by, |ex, w| ex.bind_joined(from, w))?;
                let scope = bound_from.scope.clone();
                (scope, EarlySource::Joined(Box::new(bound_from)))
            }
            Early::Table(scope, table) => {
                let cond = self.bind_table_where(s, order_by, &scope)?;
                (scope, EarlySource::Table(table, cond))
            }
            // a CTE's rows, made already: WHERE bound first as for a table (to check its
            // types), then bound again where the rows are filtered
            // (in a run for the columns alone, WHERE is bound only where the rows, none, are
            // filtered, which checks its types as well: bound twice, a subquery over a CTE
            // there would bind each nested level twice again)
            Early::Rows(scope, Some(_)) if self.shaping() => (scope, EarlySource::Rows(None)),
            Early::Rows(scope, Some(schema)) => {
                // (its subqueries run where the read binds WHERE again: none kept here)
                let deferred = self.deferral.as_ref().map(|d| d.len());
                let cond = self.bind_table_where(s, order_by, &scope)?;
                if let (Some(d), Some(n)) = (self.deferral.as_mut(), deferred) {
                    d.truncate(n);
                }
                (scope, EarlySource::Rows(cond.map(|c| (c, schema))))
            }
            // (no FROM: WHERE is bound over the one row it makes)
            Early::Rows(scope, None) => (scope, EarlySource::Rows(None)),
        })
    }

    /// Block `s` bound before any row is read ([`Exec::bind_before_read`]), its FROM and WHERE
    /// bound already (`scope`, `source`: [`Exec::bind_early_from`]; WHERE first): the other
    /// clauses, then the SAMPLE's WHEN conditions that hold no subquery (and 9910), then
    /// WHERE's (and ON's) operand types checked over no row (with no FROM, WHERE is bound
    /// where its one row is read). Reads no row of a table. `None` where a clause binds per
    /// group (a correlated subquery in a grouped block).
    ///
    /// # Errors
    /// Binding errors, then type errors.
    fn bind_early(
        &mut self,
        s: &ast::Select,
        order_by: &[ast::OrderByExpr],
        sample: Option<&crate::sample::Sample>,
        scope: Scope,
        source: EarlySource,
    ) -> Result<Option<EarlyBound>> {
        let (groups, bound) = self.bind_grouped_clauses(s, order_by, &scope, sample.is_some())?;
        if let Some(sample) = sample {
            // its WHEN conditions without a subquery too (all are bound again where the
            // sample is taken)
            for w in sample.plain_conditions() {
                self.bind_expr(w, &scope, None)?;
            }
            sample.check_grouping_early(groups.grouping.is_some())?;
        }
        if bound.placeholders > 0 {
            return Ok(None);
        }
        // WHERE's (and ON's) operand types checked before a row is read, as Teradata checks
        // them: evaluated over no row, so a condition over an empty table (or a view's query
        // at CREATE VIEW, `shape_of`), or behind another that settles every row, raises the
        // type error a row would, as the select list does over an empty result
        source.check_types()?;
        Ok(Some(EarlyBound {
            scope,
            source,
            groups,
            clauses: bound,
        }))
    }

    /// Block `s`'s FROM read as `plan` (bound by [`Exec::bind_early`]) says: a join run, a
    /// base table read through its WHERE (an index, a MIN/MAX walk, a filtered scan), or
    /// streamed where the block's end only projects, a CTE's rows or the one row of no FROM
    /// filtered. `None` when a view's columns are no longer as recorded (the caller reads
    /// the block in the general order).
    ///
    /// # Errors
    /// The read's errors.
    fn read_early(
        &mut self,
        s: &ast::Select,
        from: &[ast::TableWithJoins],
        order_by: &[ast::OrderByExpr],
        sampled: bool,
        plan: EarlyBound,
    ) -> Result<Option<Bound>> {
        let EarlyBound {
            scope,
            source,
            groups,
            clauses: bound,
        } = plan;
        let rows = match source {
            EarlySource::Joined(bound_from) => match self.run_from(*bound_from, from) {
                Err(Error::ViewRetyped(_)) => return Ok(None),
                read => read?.1,
            },
            EarlySource::Table(table, cond) => {
                let streams =
                    crate::block_tail::only_projects(s, order_by, &groups, &bound, sampled);
                let min_max = crate::access::min_max_calls(s);
                let read = self.reading_names(s, order_by, |ex| -> Result<ControlFlow<_, _>> {
                    if let Some(limit) = streams {
                        let run = cond.as_ref().map(crate::inputs::RunCond::plain);
                        let (items, precisions) = (&bound.items, &bound.precisions);
                        // (`None`: no segment at all, or an item typed differently in two:
                        // the rows are then read whole)
                        if let Some(rows) = ex.reader().stream_rows(
                            &table,
                            run.as_ref(),
                            items,
                            precisions,
                            limit,
                        )? {
                            return Ok(ControlFlow::Break(rows));
                        }
                    }
                    let rows = ex.read_table(&table, &scope, cond.as_ref(), min_max.as_deref())?;
                    Ok(ControlFlow::Continue(rows))
                })?;
                match read {
                    ControlFlow::Continue(rows) => rows,
                    ControlFlow::Break(streamed) => return Ok(Some(Bound::Streamed(streamed))),
                }
            }
            // no FROM (one row), or a CTE's rows
            EarlySource::Rows(_) => {
                let (read, rows) = self.read_source(s, from, order_by)?;
                if !same_columns(&read, &scope) {
                    return Ok(None); // (not met: a CTE's columns are read as they were known)
                }
                rows
            }
        };
        let read = BlockRead {
            scope,
            from_rows: rows.clone(),
            rows,
        };
        Ok(Some(Bound::Read(Box::new((read, groups, bound)))))
    }

    /// Block `s`'s FROM read and filtered by its WHERE (which may name select-list aliases,
    /// as Teradata allows), with only the columns the block may name copied.
    ///
    /// # Errors
    /// The read's errors: binding WHERE, evaluating it.
    fn read_source(
        &mut self,
        s: &ast::Select,
        from: &[ast::TableWithJoins],
        order_by: &[ast::OrderByExpr],
    ) -> Result<(Scope, RecordBatch)> {
        let min_max = crate::access::min_max_calls(s);
        self.with_where(s, order_by, |ex, w| ex.source(from, w, min_max.as_deref()))
    }

    /// Block `s` read, then bound: its FROM read and filtered by WHERE (which may name
    /// select-list aliases), then the clauses bound over the rows, so a correlated subquery
    /// there runs per row (correlate.rs) or, in a grouped block, per group (placeholders).
    ///
    /// # Errors
    /// The read's errors, then binding errors.
    fn read_then_bind(
        &mut self,
        s: &ast::Select,
        from: &[ast::TableWithJoins],
        order_by: &[ast::OrderByExpr],
        sampled: bool,
    ) -> Result<(BlockRead, BlockGroups, Clauses)> {
        let (scope, input) = self.read_source(s, from, order_by)?;
        let mut groups = self.block_grouping(s, &scope, sampled)?;
        let grouped = groups.grouping.is_some();
        // without GROUP BY the select list and ORDER BY are bound over the filtered rows, so a
        // correlated subquery there can run per row (see `correlate`); with GROUP BY, over the
        // groups once they are known (the caller). Groups are made over the FROM rows: a
        // correlated subquery in an aggregate's argument runs per such row, its column added
        // to them before they are aggregated
        let mut input = input;
        let from_rows = input.clone();
        let corr_saved = (!grouped).then(|| self.begin_correlation(&scope, input.clone()));
        let agg_saved = grouped.then(|| self.begin_aggregate_input(&scope, input.clone()));
        let bound = self.bind_block_clauses(s, order_by, &scope, &mut groups, sampled);
        if let Some(saved) = corr_saved {
            input = self.end_correlation(saved)?;
        }
        if let Some(saved) = agg_saved {
            input = self.end_aggregate_input(saved)?;
        }
        let read = BlockRead {
            scope,
            rows: input,
            from_rows,
        };
        Ok((read, groups, bound?))
    }

    /// The end of a block on its rows (grouped already where it groups), with its clauses
    /// `bound`: HAVING, windows, QUALIFY, the SAMPLE (with the block's scope and whether it
    /// is grouped), ORDER BY (and TOP), the select list, DISTINCT (`only_distinct`), `top`.
    ///
    /// # Errors
    /// Evaluation errors of the clauses.
    pub(crate) fn finish_block(
        &mut self,
        (top, only_distinct): (Option<&ast::Top>, bool),
        mut rows: RecordBatch,
        bound: crate::clauses::Clauses,
        sample: Option<(&crate::sample::Sample, &Scope, bool)>,
    ) -> Result<Rows> {
        let crate::clauses::Clauses {
            items,
            precisions,
            qualify,
            having,
            keys,
            windows,
            ..
        } = bound;
        if let Some(h) = &having {
            rows = filter_by(&rows, h)?;
        }
        if !windows.is_empty() {
            rows = crate::window::append(&rows, &windows)?;
        }
        if let Some(q) = &qualify {
            rows = filter_by(&rows, q)?;
        }
        if let Some((sample, scope, grouped)) = sample {
            rows = self.sample_rows(&rows, sample, scope, grouped)?;
        }
        if !keys.is_empty() {
            // TOP n (no PERCENT, WITH TIES or DISTINCT) needs only the first n in order
            let limit = crate::block_tail::first_rows(top).filter(|_| !only_distinct);
            let idx = sort_indices(&rows, &keys, limit)?;
            rows = crate::expr::take_batch(&rows, &idx)?;
        }
        // project
        let mut out = project(&items, &precisions, &rows)?;
        let schema = out.schema();
        if only_distinct {
            out = distinct(
                &out,
                &items
                    .iter()
                    .map(|i| i.0.case_specific())
                    .collect::<Vec<_>>(),
            )?;
        }
        if let Some(top) = top {
            out = self.apply_top(top, out, &rows, &keys)?;
        }
        Ok(Rows {
            schema,
            batches: vec![out],
        })
    }

    /// The conditions of `sample`'s strata (WHEN) bound over its block's `scope`.
    ///
    /// # Errors
    /// Their binding errors (3810, …), then 9910 for a stratified sample of a `grouped`
    /// block.
    pub(crate) fn bind_sample(
        &mut self,
        sample: &crate::sample::Sample,
        scope: &Scope,
        grouped: bool,
    ) -> Result<Vec<crate::expr::Expr>> {
        let bound = (sample.conditions())
            .map(|w| self.bind_expr(w, scope, None))
            .collect::<Result<Vec<_>>>()?;
        sample.check_grouping(grouped)?;
        Ok(bound)
    }

    /// `rows` (a block's result before ORDER BY, over `scope`) sampled by `sample`, with the
    /// hidden SAMPLEID column added; a count that could not be met leaves warning 7473.
    ///
    /// # Errors
    /// A WHEN condition's binding errors, then 9910 for a stratified sample of a grouped
    /// query, then the conditions' evaluation errors.
    pub(crate) fn sample_rows(
        &mut self,
        rows: &RecordBatch,
        sample: &crate::sample::Sample,
        scope: &crate::bind::Scope,
        grouped: bool,
    ) -> Result<RecordBatch> {
        let mut tests = Vec::new();
        let conditions = self.bind_sample(sample, scope, grouped)?;
        for (when, bound) in sample.conditions().zip(conditions) {
            let value = bound.eval(rows)?;
            tests.push(match arrow::array::AsArray::as_boolean_opt(&value) {
                Some(b) => b.clone(),
                // a NULL condition puts no row in the stratum
                None if value.null_count() == value.len() => {
                    arrow::array::BooleanArray::from(vec![false; value.len()])
                }
                None => {
                    return Err(Error::TypeMismatch(format!(
                        "SAMPLE WHEN {when} is not a condition"
                    )))
                }
            });
        }
        let sampled = crate::sample::apply(rows, sample, &tests)?;
        if sampled.short {
            self.warning = Some(crate::result::Warning {
                code: 7473,
                message: "Requested sample is larger than table rows. All rows returned.".into(),
            });
        }
        crate::ops::with_columns(
            &sampled.rows,
            vec![(crate::expr::SAMPLE_ID_COLUMN.to_string(), sampled.ids)],
        )
    }

    fn apply_top(
        &mut self,
        top: &ast::Top,
        out: RecordBatch,
        sorted_input: &RecordBatch,
        keys: &[SortKey],
    ) -> Result<RecordBatch> {
        let n = match &top.quantity {
            Some(ast::TopQuantity::Constant(n)) => *n as f64,
            Some(ast::TopQuantity::Expr(e)) => {
                let a = self
                    .bind_expr(e, &Scope::default(), None)?
                    .eval(&single_row())?;
                match value_at(a.as_ref(), 0) {
                    Value::Int(i) => i as f64,
                    Value::Decimal(d, s) => d as f64 / 10f64.powi(s as i32),
                    Value::Float(f) => f,
                    _ => return Err(Error::TypeMismatch("TOP needs a number".into())),
                }
            }
            None => return Err(Error::TypeMismatch("TOP needs a number".into())),
        };
        let total = out.num_rows();
        let mut take_n = if top.percent {
            ((n * total as f64) / 100.0).ceil() as usize
        } else {
            n.max(0.0) as usize
        };
        take_n = take_n.min(total);
        if top.with_ties
            && take_n > 0
            && !keys.is_empty()
            && out.num_rows() == sorted_input.num_rows()
        {
            let key_vals: Vec<ArrayRef> = keys
                .iter()
                .map(|k| k.expr.eval(sorted_input))
                .collect::<Result<_>>()?;
            let row_key = |i: usize| {
                RowKey(
                    key_vals
                        .iter()
                        .map(|a| normalize_for_key(&value_at(a.as_ref(), i), false))
                        .collect(),
                )
            };
            let last = row_key(take_n - 1);
            while take_n < total && row_key(take_n) == last {
                take_n += 1;
            }
        }
        Ok(out.slice(0, take_n))
    }
}

fn distinct(batch: &RecordBatch, case_specific: &[bool]) -> Result<RecordBatch> {
    let mut seen = std::collections::HashSet::new();
    let keep: Vec<u32> = row_keys(batch, case_specific)
        .into_iter()
        .enumerate()
        .filter(|(_, k)| seen.insert(k.clone()))
        .map(|(i, _)| i as u32)
        .collect();
    crate::expr::take_batch(batch, &keep)
}

/// A block's FROM as read ([`Exec::bind_then_read`], [`Exec::read_then_bind`]).
struct BlockRead {
    /// The FROM's columns.
    scope: Scope,
    /// The rows WHERE keeps, with the columns a correlated subquery of the clauses added.
    rows: RecordBatch,
    /// The rows WHERE keeps, as read.
    from_rows: RecordBatch,
}

/// What [`Exec::bind_then_read`] gives.
enum Bound {
    /// The FROM's rows, its grouping and its clauses, for the end of the block.
    Read(Box<(BlockRead, BlockGroups, Clauses)>),
    /// The block's result, read segment by segment ([`Reader::stream_rows`](crate::access::Reader::stream_rows)).
    Streamed(Rows),
}

/// Whether scopes `a` and `b` name the same columns, in order.
fn same_columns(a: &Scope, b: &Scope) -> bool {
    let same = |(x, y): (&crate::bind::ScopeColumn, &crate::bind::ScopeColumn)| {
        x.name == y.name && x.qualifier == y.qualifier
    };
    a.columns.len() == b.columns.len() && a.columns.iter().zip(&b.columns).all(same)
}
