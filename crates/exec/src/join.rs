//! FROM clauses: one relation (`relation`: a table, a view, a CTE or a derived table) and
//! joins of several (`joined_source`): comma lists, `CROSS JOIN`, `[INNER] JOIN`,
//! `LEFT`/`RIGHT`/`FULL [OUTER] JOIN` with `ON` or `USING`, and parenthesised joins. The joins
//! of `UPDATE t FROM …`, joined DELETE and MERGE run here too, their target (and MERGE's
//! source rows) given to the binding (`bind_from_with`, `joined_with`), or, beside an outer
//! join and a comma, the whole target joined on WHERE (`join_onto`); decorrelation calls the
//! join step itself (`join_step::inner_join`).
//!
//! The scope of the whole FROM clause (its columns, in order) is known before any row is
//! joined, so the WHERE conjuncts and ON conditions bind once against it, and name errors are
//! the same whatever the join order. With inner joins only, each base table is read at its
//! step, through an index when the conditions that name it alone allow, its own conditions
//! that cannot fail tested as it is read (`read_passing`: a full scan is filtered part
//! by part), or, after few rows, through an index probed with their key values (an index nested-loop
//! join: `join_plan::probe_index`); with an outer join, in full at its step. A view is bound
//! from the columns the catalog records for it and read at its step too, with the conditions
//! that name it alone and cannot fail pushed into its query (pushdown.rs); if its query now
//! gives other types (a table under it made again), the FROM is bound again over its rows.
//! A derived table is bound from its query's columns (its run over no rows) and made at its
//! step, with conditions pushed into it as into a view (`unread_derived`). A CTE's rows are
//! made before the block; table functions (and a derived table in a run for the columns
//! alone) are read while binding (`bind_from`); the binding reads no base table, no view and
//! no derived table.
//!
//! A join step (`join`, in join_step.rs with its row limit) pairs the rows joined so far with
//! one more relation: hashed on leading column equalities, else a nested loop. When every join
//! is an inner join, join_plan.rs plans the order (greedy, from estimated sizes, before any
//! row is read) and the step each condition runs at (as soon as the relations it names are
//! joined, a table's own conditions on its rows; column equalities with the new relation
//! first, hashed; then ON conditions before WHERE conjuncts), so equalities between tables keep
//! intermediate results small. EXPLAIN prints the same plan.
//! With an outer join the written order stands, each comma item is joined on its own
//! (`a, b RIGHT JOIN c` is `a × (b ⟖ c)`), and WHERE runs on the joined rows.
//!
//! Invariants: the joined batch's columns are exactly the scope's columns, in FROM order
//! (whatever the join order); a step's matched pairs come in nested-loop order, hashed or not;
//! a row that an outer join extends has NULL in every column of the missing side. Two FROM
//! items known by the same name are 3868. Unqualified names of `USING` columns stay ambiguous
//! (3822): both copies are kept, qualify them.

use crate::bind::{Scope, ScopeColumn};
use crate::bound_from::{
    local_columns, relations_of, split_and, BoundFrom, FromPlan, FromRel, ROW_ID,
};
use crate::error::{Error, Result};
use crate::exec::Exec;
use crate::expr::{BinOp, Expr};
use crate::join_plan;
use crate::join_step::{join, join_filtered, Kind};
use crate::ops::filter_by;
use arrow::array::{ArrayRef, UInt64Array};
use arrow::compute::concat_batches;
use arrow::record_batch::RecordBatch;
use sqlparser::ast;
use std::sync::Arc;
use tdlite_storage::table::Table;

/// Relations of a FROM the caller gives, by position, with their scopes
/// ([`Exec::bind_from_with`]); an empty list gives none.
pub(crate) type Given = Vec<Option<(Scope, FromRel)>>;

/// The qualifier of a table in FROM: its alias, or its own name without the database part.
///
/// Without an alias it is the name as written (`db.t` or `t`): its columns are then `t.c`
/// and `db.t.c` both (`db` the default database for a table written `t`; see
/// `Scope::resolve_at`), and `other.t.c` is no column of it.
pub(crate) fn qualifier_of(name: &ast::ObjectName, alias: Option<&ast::TableAlias>) -> String {
    match alias {
        Some(a) => a.name.value.clone(),
        None => name
            .0
            .iter()
            .map(|p| match p {
                ast::ObjectNamePart::Identifier(i) => i.value.clone(),
                other => other.to_string(),
            })
            .collect::<Vec<_>>()
            .join("."),
    }
}

fn kind_of(op: &ast::JoinOperator) -> Result<(Kind, Option<&ast::JoinConstraint>)> {
    use ast::JoinOperator as J;
    // a JOIN other than CROSS JOIN needs ON or USING (3706, as in Teradata)
    if let J::Join(c)
    | J::Inner(c)
    | J::Left(c)
    | J::LeftOuter(c)
    | J::Right(c)
    | J::RightOuter(c)
    | J::FullOuter(c) = op
    {
        if matches!(c, ast::JoinConstraint::None) {
            return Err(Error::Parse(tdlite_parser::ParseError::syntax(
                "a JOIN needs ON or USING (CROSS JOIN pairs every row).",
                tdlite_parser::Location::default(),
            )));
        }
    }
    Ok(match op {
        J::Join(c) | J::Inner(c) => (Kind::Inner, Some(c)),
        J::CrossJoin(c) => (Kind::Inner, Some(c)),
        J::Left(c) | J::LeftOuter(c) => (Kind::Left, Some(c)),
        J::Right(c) | J::RightOuter(c) => (Kind::Right, Some(c)),
        J::FullOuter(c) => (Kind::Full, Some(c)),
        other => return Err(Error::Unsupported(format!("the join {other:?}"))),
    })
}

/// The name a FROM item is known by (its alias, or a table's own name), if any.
fn exposed_name(tf: &ast::TableFactor) -> Option<String> {
    match tf {
        ast::TableFactor::Table { name, alias, .. } => {
            Some(qualifier_of(name, alias.as_ref()).to_ascii_uppercase())
        }
        ast::TableFactor::Derived { alias, .. } => {
            alias.as_ref().map(|a| a.name.value.to_ascii_uppercase())
        }
        _ => None,
    }
}

/// 3868: two items of one FROM clause known by the same name (`FROM emp, emp`); give one an
/// alias.
fn check_names(from: &[ast::TableWithJoins]) -> Result<()> {
    let mut seen = std::collections::HashSet::new();
    let items = crate::pushdown::factors(from);
    let mut functions = Vec::new();
    for tf in items {
        if let Some(n) = exposed_name(tf) {
            if !seen.insert(n.clone()) {
                return Err(Error::DuplicateFromName(n));
            }
        }
        if let ast::TableFactor::TableFunction { expr, .. } = tf {
            functions.push(expr);
        }
    }
    // a table function reads the table its arguments' columns name; a qualifier that is
    // another item of this FROM clause (`FROM orders o, TABLE (f(o.id …))`) would be a
    // lateral reference, which tdlite does not make (it would read the table called o)
    for expr in functions {
        let walk = crate::bind::visit_own_level(expr, |e| match e {
            ast::Expr::CompoundIdentifier(p)
                if p.len() > 1 && seen.contains(&p[p.len() - 2].value.to_ascii_uppercase()) =>
            {
                std::ops::ControlFlow::Break(())
            }
            _ => std::ops::ControlFlow::Continue(()),
        });
        if walk.is_break() {
            return Err(Error::Unsupported(
                "a table function over the columns of another item of its FROM clause (name the \
                 table in its arguments and join its result)"
                    .into(),
            ));
        }
    }
    Ok(())
}

/// Whether two qualifiers name the same table (names compare without regard to case).
fn same_name(a: &[ast::Ident], b: &[ast::Ident]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| x.value.eq_ignore_ascii_case(&y.value))
}

/// A derived table's rows, made at its step, as the one batch of its columns as bound
/// (`shape`, its query's run over no rows, named `name`). The same query gives the same
/// types; where a column's differ (a shape kept from a run with other types), the FROM is
/// bound again with its derived tables made while it binds, as for a view whose types
/// changed (`Error::ViewRetyped`, caught by the caller).
fn as_shaped(
    rows: crate::result::Rows,
    shape: &arrow::datatypes::SchemaRef,
    name: &str,
) -> Result<RecordBatch> {
    let batch = concat_batches(&rows.schema, &rows.batches)?;
    let same = batch.num_columns() == shape.fields().len()
        && (batch.schema().fields().iter().zip(shape.fields()))
            .all(|(a, b)| a.data_type() == b.data_type());
    if !same {
        return Err(Error::ViewRetyped(name.to_string()));
    }
    let options =
        arrow::record_batch::RecordBatchOptions::new().with_row_count(Some(batch.num_rows()));
    Ok(RecordBatch::try_new_with_options(
        shape.clone(),
        batch.columns().to_vec(),
        &options,
    )?)
}

/// A derived table's or CTE's rows as a relation: its columns qualified by `q`, renamed by an
/// alias column list, keeping CASESPECIFIC and TITLE (field metadata).
fn derived_relation(
    rows: crate::result::Rows,
    q: Option<String>,
    renamed: Option<&[ast::TableAliasColumnDef]>,
) -> Result<(Scope, RecordBatch)> {
    if let Some(names) = renamed.filter(|n| !n.is_empty()) {
        if names.len() != rows.schema.fields().len() {
            return Err(Error::TypeMismatch(format!(
                "{} names {} columns, its query returns {}",
                q.as_deref().unwrap_or("a derived table"),
                names.len(),
                rows.schema.fields().len()
            )));
        }
    }
    let batch = concat_batches(&rows.schema, &rows.batches)?;
    let columns = rows
        .schema
        .fields()
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let name = renamed
                .and_then(|c| c.get(i))
                .map_or_else(|| f.name().clone(), |c| c.name.value.clone());
            ScopeColumn::of_field(f, q.clone(), name)
        })
        .collect();
    Ok((Scope { columns }, batch))
}

/// Whether `e`, raised binding a block's clauses (after its FROM and WHERE), gives way to the
/// 3807 of a view the block reads whose table is gone (`Exec::unread_views_missing`): a
/// binding error (a wrong name, a column not grouped, a type error, 9910) does, as reading the
/// view first would have met the missing table; a syntax error (3706, found as the clauses
/// bind: an interval qualifier), a cancel, a timeout or a storage error does not.
pub(crate) fn gives_way_to_gone_view(e: &Error) -> bool {
    !matches!(
        e,
        Error::Parse(_) | Error::Cancelled | Error::StatementTimeout(_) | Error::Storage(_)
    )
}

/// The scope and rows of a FROM clause, plus which WHERE conjuncts it already applied.
impl Exec<'_> {
    /// The rows of the CTE `name` is bound to, if it names one (innermost first).
    pub(crate) fn cte(&self, name: &ast::ObjectName) -> Option<crate::result::Rows> {
        if name.0.len() != 1 {
            return None;
        }
        let n = tdlite_parser::object_name_string(name);
        self.ctes
            .iter()
            .rev()
            .find(|(c, _)| c.eq_ignore_ascii_case(&n))
            .map(|(_, r)| r.clone())
    }

    /// Whether `tf` names rows of their own (a CTE, a DBC view, Sys_Calendar), which
    /// [`Exec::named_rows`] would make: told without making them.
    pub(crate) fn names_own_rows(&self, tf: &ast::TableFactor) -> bool {
        match tf {
            ast::TableFactor::Table { name, .. } => self.name_has_own_rows(name),
            _ => false,
        }
    }

    /// [`Exec::names_own_rows`] for a name.
    fn name_has_own_rows(&self, name: &ast::ObjectName) -> bool {
        self.cte(name).is_some() || self.names_system_rows(name)
    }

    /// Whether `name` names rows the system makes (a DBC view, Sys_Calendar): what a view's
    /// query names besides tables and views, since the reader's CTEs are not in scope there.
    fn names_system_rows(&self, name: &ast::ObjectName) -> bool {
        let parts = name_parts(name);
        crate::sys_calendar::names(&parts) || crate::dbc::which(&parts, self.database).is_some()
    }

    /// The rows a FROM name stands for when it is not a table: a CTE in scope, the system
    /// calendar (`Sys_Calendar.Calendar`, sys_calendar.rs), or a DBC dictionary view
    /// (`DBC.TablesV`, see dbc.rs).
    pub(crate) fn named_rows(&self, name: &ast::ObjectName) -> Result<Option<crate::result::Rows>> {
        // a run for a query's columns alone sees no row of these either (Exec::shaping), a
        // CTE's made by the enclosing query included
        let shaped = |rows: crate::result::Rows| match self.shaping() {
            true => crate::result::Rows {
                batches: vec![RecordBatch::new_empty(rows.schema.clone())],
                schema: rows.schema,
            },
            false => rows,
        };
        if let Some(rows) = self.cte(name) {
            return Ok(Some(shaped(rows)));
        }
        let parts = name_parts(name);
        if let Some(rows) = crate::sys_calendar::rows(&parts)? {
            return Ok(Some(shaped(rows)));
        }
        let waiters = &self.shared.waiters;
        let queues = crate::dbc::QueueSource {
            txns: &self.shared.storage.txns,
            waiting: &|table| waiters.count(table),
            now_us: &|| self.now_us(),
        };
        let rows = crate::dbc::view_rows(
            &self.shared.storage.catalog,
            &self.shared.registry,
            self.user,
            self.database,
            &parts,
            &queues,
        )?;
        Ok(rows.map(shaped))
    }

    /// The columns of the CTE FROM item `tf` names, as a read of it gives them, and their
    /// schema; `None` for any other item. Known without reading: its rows are made already.
    pub(crate) fn cte_scope(
        &self,
        tf: &ast::TableFactor,
    ) -> Option<(Scope, arrow::datatypes::SchemaRef)> {
        let (name, alias) = plain_table(tf)?;
        let schema = self.cte(name)?.schema;
        let none = crate::result::Rows {
            schema: schema.clone(),
            batches: Vec::new(),
        };
        let q = qualifier_of(name, alias).to_ascii_uppercase();
        let (scope, _) = derived_relation(none, Some(q), None).ok()?;
        Some((scope, schema))
    }

    /// The base table a FROM item names (not a view, a CTE, a sampled or a derived table),
    /// with its qualifier.
    pub(crate) fn base_table(
        &mut self,
        tf: &ast::TableFactor,
    ) -> Result<Option<(Arc<Table>, String)>> {
        let Some((name, alias)) = plain_table(tf) else {
            return Ok(None);
        };
        // (a CTE's, DBC view's or Sys_Calendar's rows are told apart without being made)
        if self.names_own_rows(tf) {
            return Ok(None);
        }
        let table = self.must_get_table(name)?;
        if table.schema.view.is_some() {
            return Ok(None);
        }
        Ok(Some((table, qualifier_of(name, alias))))
    }

    /// A view or derived table `tf` with the leading conjuncts of `selection` pushed into
    /// its query (pushdown.rs); `None` when `tf` is neither or nothing can be pushed (also
    /// when `tf` names nothing: the plain read raises that).
    pub(crate) fn pushed(&self, tf: &ast::TableFactor, selection: &ast::Expr) -> Option<Pushed> {
        let columns = |n: &ast::ObjectName| self.table_columns(n);
        match tf {
            ast::TableFactor::Table { .. } => {
                let (view, query, qualifier) = self.view_named(tf)?;
                let rel = view_relation(&view, &query, qualifier, self.params);
                let (query, conjuncts) = crate::pushdown::push_into(&rel, selection, &columns)?;
                Some(Pushed {
                    query,
                    conjuncts,
                    qualifier: rel.qualifier,
                    view: Some(view),
                })
            }
            ast::TableFactor::Derived { .. } => {
                let rel = self.derived_rel(tf)?;
                let (query, conjuncts) = crate::pushdown::push_into(&rel, selection, &columns)?;
                Some(Pushed {
                    query,
                    conjuncts,
                    qualifier: rel.qualifier,
                    view: None,
                })
            }
            _ => None,
        }
    }

    /// Derived table `tf` (with an alias, not LATERAL, no SAMPLE) as a relation conditions
    /// may be pushed into (pushdown.rs); `None` for any other relation, or one whose column
    /// names are not known without running it.
    fn derived_rel<'r>(
        &'r self,
        tf: &'r ast::TableFactor,
    ) -> Option<crate::pushdown::Relation<'r>> {
        let ast::TableFactor::Derived {
            lateral: false,
            subquery,
            alias: Some(alias),
            sample: None,
        } = tf
        else {
            return None;
        };
        let columns = |n: &ast::ObjectName| self.table_columns(n);
        let names = match alias.columns.as_slice() {
            [] => crate::pushdown::output_names(subquery, &columns)?,
            listed => listed.iter().map(|c| Some(c.name.value.clone())).collect(),
        };
        Some(crate::pushdown::Relation {
            query: subquery,
            names,
            qualifier: alias.name.value.clone(),
            view: None,
            params: self.params,
        })
    }

    /// [`Exec::relation`] for the one relation of a block whose WHERE is `selection`: a view
    /// or derived table is made with what of `selection` can be pushed into it
    /// ([`Exec::pushed`]); the caller still applies the whole of `selection`.
    pub(crate) fn relation_under(
        &mut self,
        tf: &ast::TableFactor,
        selection: Option<&ast::Expr>,
    ) -> Result<(Scope, RecordBatch)> {
        match selection.and_then(|w| self.pushed(tf, w)) {
            Some(p) => self.read_pushed(tf, p),
            None => self.relation(tf),
        }
    }

    /// The rows of view or derived table `tf` made by its query with conditions pushed in.
    fn read_pushed(&mut self, tf: &ast::TableFactor, p: Pushed) -> Result<(Scope, RecordBatch)> {
        let q = Some(p.qualifier.to_ascii_uppercase());
        match (&p.view, tf) {
            (Some(view), _) => {
                let rows = self.view_rows_of(view, Some(&p.query), false)?;
                derived_relation(rows, q, None)
            }
            (None, ast::TableFactor::Derived { alias, .. }) => {
                let rows = self.run_made_now(&p.query)?;
                derived_relation(rows, q, alias.as_ref().map(|a| a.columns.as_slice()))
            }
            (None, _) => self.relation(tf),
        }
    }

    /// A view or derived table among the relations (`factors`) of a FROM of inner joins, with those of
    /// `conds` (WHERE's and the ONs' conjuncts: [`join_conds`]) that name only its columns
    /// and cannot fail pushed into its query (`pushdown::push_into_join`); `None` when `tf`
    /// is neither a view nor a derived table, or nothing can be pushed. Not when another relation's name ends as its
    /// does (`a.t`, `b.t`: which one `t.c` names is the binder's to say). The one relation
    /// of a FROM takes the leading conjuncts that qualify, as [`Exec::pushed`] gives them
    /// (`pushdown::push_leading`: every row of the view meets the WHERE, so a conjunct that
    /// may fail may go in, ahead of those written after it).
    pub(crate) fn pushed_in_join(
        &self,
        tf: &ast::TableFactor,
        factors: &[&ast::TableFactor],
        conds: &[ast::Expr],
    ) -> Option<Pushed> {
        if conds.is_empty() {
            return None;
        }
        let view = self.view_named(tf);
        let rel = match &view {
            Some((v, query, qualifier)) => view_relation(v, query, qualifier.clone(), self.params),
            None => self.derived_rel(tf)?,
        };
        let qualifier = rel.qualifier.clone();
        let last = |q: &str| q.rsplit('.').next().unwrap_or(q).to_ascii_uppercase();
        let others: Vec<&ast::TableFactor> = (factors.iter().copied())
            .filter(|f| !std::ptr::eq(*f, tf))
            .collect();
        let clash = others.iter().any(|f| {
            let q = match f {
                ast::TableFactor::Table { name, alias, .. } => qualifier_of(name, alias.as_ref()),
                ast::TableFactor::Derived { alias: Some(a), .. } => a.name.value.clone(),
                _ => return false,
            };
            last(&q) == last(&qualifier)
        });
        if clash {
            return None;
        }
        // the column names each other relation may have (`None`: not known unread)
        let other_names: Vec<Option<Vec<String>>> =
            others.iter().map(|f| self.factor_names(f)).collect();
        let shared = |n: &str| {
            (other_names.iter()).any(|o| {
                o.as_ref()
                    .is_none_or(|c| c.iter().any(|c| c.eq_ignore_ascii_case(n)))
            })
        };
        let columns = |n: &ast::ObjectName| self.table_columns(n);
        let (query, conjuncts) = match factors {
            [_] => crate::pushdown::push_leading(&rel, conds.to_vec(), &columns)?,
            _ => crate::pushdown::push_into_join(&rel, conds, &columns, &shared)?,
        };
        Some(Pushed {
            query,
            conjuncts,
            qualifier,
            view: view.map(|(v, ..)| v),
        })
    }

    /// View `tf` (see [`Exec::view_named`]) among the relations (`factors`) of a FROM whose
    /// conditions are `conds` (empty with an outer join), unread: its scope from the columns
    /// the catalog records for it, and the relation that reads it at its step, with what of
    /// `conds` can be pushed into it ([`Exec::pushed_in_join`]). `None` when `tf` is no
    /// view, when a column's recorded type is not the type its query gives (a type the
    /// catalog has no name for, recorded as VARCHAR of the longest length), and while a join
    /// is bound again because a view's types changed ([`Exec::view_batch`]): the caller reads
    /// it now. A view marked stale (`Exec::view_read_early`) is read now too.
    fn unread_view(
        &self,
        tf: &ast::TableFactor,
        factors: &[&ast::TableFactor],
        conds: &[ast::Expr],
    ) -> Option<(Scope, FromRel)> {
        let (view, _, qualifier) = self.view_named(tf)?;
        if !self.binds_unread(&view) {
            return None;
        }
        let scope = crate::view::recorded_scope(&view.schema, &qualifier);
        let query = (self.pushed_in_join(tf, factors, conds)).map(|p| Arc::new(p.query));
        Some((scope, FromRel::View(view, query)))
    }

    /// Runs `q`, a query made for this run alone (a derived table's query with conditions
    /// pushed in, a WITH's body or CTE rewritten at this run, cte.rs): none of its blocks is
    /// kept by a prepared request's plan cache, which finds blocks by address (a copy made
    /// at each run would fill it).
    pub(crate) fn run_made_now(&mut self, q: &ast::Query) -> Result<crate::result::Rows> {
        self.made_now += 1;
        let rows = self.run_query(q);
        self.made_now -= 1;
        rows
    }

    /// Derived table `tf` (with an alias, not LATERAL, no SAMPLE) at position `at` of a FROM
    /// whose relations are `factors` and conditions `conds` (empty with an outer join),
    /// unread: its scope from its query's columns (`Exec::columns_of`, which runs it over no
    /// rows), and the relation that makes it at its step, with what of `conds` can be pushed
    /// into it ([`Exec::pushed_in_join`]). `None` in a run for the columns alone (made now,
    /// over no rows), while a FROM is bound again because a made relation's types changed
    /// (`Exec::binds_unread_derived`), and where its columns cannot be had alone (an error of
    /// its query, or of its alias's column list, which making it now raises): the caller
    /// makes it now.
    fn unread_derived(
        &mut self,
        (tf, at): (&ast::TableFactor, usize),
        factors: &[&ast::TableFactor],
        conds: &[ast::Expr],
    ) -> Option<(Scope, FromRel)> {
        let ast::TableFactor::Derived {
            subquery,
            alias: Some(alias),
            ..
        } = tf
        else {
            return None;
        };
        if !self.binds_unread_derived(tf) {
            return None;
        }
        let shape = self.columns_of(subquery).ok()?;
        let rows = crate::result::Rows {
            schema: shape,
            batches: Vec::new(),
        };
        let q = Some(alias.name.value.to_ascii_uppercase());
        let (scope, none) = derived_relation(rows, q, Some(&alias.columns)).ok()?;
        let query = (self.pushed_in_join(tf, factors, conds)).map(|p| Arc::new(p.query));
        Some((scope, FromRel::Derived(query, at, none.schema())))
    }

    /// The error a view of `from` that a join binds unread ([`Exec::unread_view`]) would
    /// raise first when read for a name its query (or a view's under it) gives that names
    /// nothing now (3807, a table dropped under it), found without running anything; `None`
    /// when every such name resolves. A FROM whose column names fail to bind (3810, 3822)
    /// raises this instead: a view read before its FROM was bound met its missing table
    /// before the FROM's names. (A name the reader's CTEs or a dictionary view have is passed
    /// over; a view is looked into again only where it is met deeper than before.) Views
    /// that read each other, or nest deeper than reading allows, give the 9913 reading them
    /// would.
    pub(crate) fn unread_views_missing(&self, from: &[ast::TableWithJoins]) -> Option<Error> {
        let relations = crate::pushdown::factors(from);
        let mut walk = ViewWalk::default();
        for tf in relations {
            let Some((view, query, _)) = self.view_named(tf) else {
                continue;
            };
            if !self.binds_unread(&view) {
                continue;
            }
            match walk.enter(view.id, &view.schema.name, self.view_depth) {
                Err(e) => return Some(e),
                Ok(false) => continue,
                Ok(true) => {}
            }
            walk.path.push((view.id, view.schema.name.clone()));
            let missing = self.missing_under(&query, &mut walk);
            walk.path.pop();
            if missing.is_some() {
                return missing;
            }
        }
        None
    }

    /// The first table or view name in `query`'s FROM items (and the queries of the views it
    /// names that `walk` has not looked into as deep) that resolves to nothing, as its error;
    /// or the 9913 of a view expanded past the depth reading allows, along `walk`'s path.
    fn missing_under(&self, query: &ast::Query, walk: &mut ViewWalk) -> Option<Error> {
        struct Names<'e, 'a, 's> {
            ex: &'e Exec<'a>,
            ctes: Vec<String>,
            walk: &'s mut ViewWalk,
        }
        impl ast::Visitor for Names<'_, '_, '_> {
            type Break = Error;
            fn pre_visit_table_factor(
                &mut self,
                tf: &ast::TableFactor,
            ) -> std::ops::ControlFlow<Error> {
                let Some((name, _)) = plain_table(tf) else {
                    return std::ops::ControlFlow::Continue(());
                };
                let own_cte = matches!(name.0.as_slice(), [ast::ObjectNamePart::Identifier(i)]
                    if self.ctes.iter().any(|c| c.eq_ignore_ascii_case(&i.value)));
                // (the reader's CTEs are not in scope in a view's query: a view reads without
                // them)
                if own_cte || self.ex.names_system_rows(name) {
                    return std::ops::ControlFlow::Continue(());
                }
                let t = match self.ex.table_definition(name) {
                    Err(e) => return std::ops::ControlFlow::Break(e),
                    Ok(t) if t.schema.view.is_some() => t,
                    Ok(_) => return std::ops::ControlFlow::Continue(()),
                };
                let under = match self.walk.enter(t.id, &t.schema.name, self.ex.view_depth) {
                    Err(e) => return std::ops::ControlFlow::Break(e),
                    Ok(true) => self.ex.view_query(&t).ok(),
                    Ok(false) => None,
                };
                let walk = &mut *self.walk;
                let missing = under.and_then(|q| {
                    walk.path.push((t.id, t.schema.name.clone()));
                    let missing = crate::stack::deep(|| self.ex.missing_under(&q, walk));
                    walk.path.pop();
                    missing
                });
                match missing {
                    Some(e) => std::ops::ControlFlow::Break(e),
                    None => std::ops::ControlFlow::Continue(()),
                }
            }
        }
        let mut ctes = Vec::new();
        crate::view::collect_cte_names(query, &mut ctes);
        let mut names = Names {
            ex: self,
            ctes,
            walk,
        };
        ast::Visit::visit(query, &mut names).break_value()
    }

    /// Whether FROM item `tf` names a view a join binds from its recorded columns
    /// ([`Exec::binds_unread`]).
    pub(crate) fn names_unread_view(&self, tf: &ast::TableFactor) -> bool {
        self.view_named(tf)
            .is_some_and(|(v, ..)| self.binds_unread(&v))
    }

    /// Whether a join binds view `view` from its recorded columns ([`Exec::unread_view`]):
    /// not while a join is bound again over its views' rows, nor when a column's recorded
    /// type is one the catalog has no name for (recorded as VARCHAR of the longest length),
    /// nor once a read found its columns other than recorded (`Exec::view_batch`).
    pub(crate) fn binds_unread(&self, view: &tdlite_storage::table::Table) -> bool {
        let unnamed = tdlite_storage::types::SqlType::VarChar(u32::MAX);
        !self.views_read_early
            && view.schema.columns.iter().all(|c| c.ty != unnamed)
            && !self.view_read_early(view)
    }

    /// The view FROM item `tf` names (not sampled, no CTE or dictionary view of that name),
    /// its query parsed, and its qualifier.
    fn view_named(&self, tf: &ast::TableFactor) -> Option<(Arc<Table>, Arc<ast::Query>, String)> {
        let (name, alias) = plain_table(tf)?;
        if self.names_own_rows(tf) {
            return None;
        }
        let view = self.table_definition(name).ok()?;
        view.schema.view.as_ref()?;
        let query = self.view_query(&view).ok()?;
        Some((view, query, qualifier_of(name, alias)))
    }

    /// The columns of the table or view `n` names, for a `*` over it, with a base table's
    /// types (a view's recorded ones may be stale); `None` for a CTE, a dictionary view, the
    /// calendar, or no such table.
    fn table_columns(
        &self,
        n: &ast::ObjectName,
    ) -> Option<Vec<(String, Option<arrow::datatypes::DataType>)>> {
        if self.name_has_own_rows(n) {
            return None;
        }
        let t = self.table_definition(n).ok()?;
        let base = t.schema.view.is_none();
        Some(
            (t.schema.columns.iter())
                .map(|c| (c.name.clone(), base.then(|| c.ty.arrow_type())))
                .collect(),
        )
    }

    /// The column names a FROM item gives, where known without reading it: a table's, a
    /// view's, a CTE's, a derived table's (its alias columns, or its select items where each
    /// has a name).
    fn factor_names(&self, tf: &ast::TableFactor) -> Option<Vec<String>> {
        match tf {
            ast::TableFactor::Table {
                name, args: None, ..
            } => match self.cte(name) {
                // (EXPLAIN's stand-in for a CTE it does not make has no column: unknown)
                Some(rows) if rows.schema.fields().is_empty() => None,
                Some(rows) => Some(
                    rows.schema
                        .fields()
                        .iter()
                        .map(|f| f.name().clone())
                        .collect(),
                ),
                None => Some(
                    self.table_columns(name)?
                        .into_iter()
                        .map(|(c, _)| c)
                        .collect(),
                ),
            },
            ast::TableFactor::Derived {
                subquery, alias, ..
            } => match alias.as_ref().map(|a| a.columns.as_slice()) {
                Some(listed) if !listed.is_empty() => {
                    Some(listed.iter().map(|c| c.name.value.clone()).collect())
                }
                _ => {
                    let columns = |n: &ast::ObjectName| self.table_columns(n);
                    crate::pushdown::output_names(subquery, &columns)?
                        .into_iter()
                        .collect()
                }
            },
            _ => None,
        }
    }

    /// Reads one relation of a FROM clause: a table or a derived table.
    pub(crate) fn relation(&mut self, tf: &ast::TableFactor) -> Result<(Scope, RecordBatch)> {
        match tf {
            ast::TableFactor::Table {
                sample: Some(_), ..
            } => Err(Error::Unsupported(
                "SAMPLE on a table inside a join (write SAMPLE at the end of the query)".into(),
            )),
            ast::TableFactor::Table {
                name,
                alias,
                args: None,
                ..
            } => self.named_relation(name, alias.as_ref()),
            ast::TableFactor::TableFunction { expr, alias } => {
                self.table_function(expr, alias.as_ref())
            }
            ast::TableFactor::Pivot {
                table,
                aggregate_functions,
                value_column,
                value_source,
                default_on_null,
                alias,
            } => {
                let columns = self.column_names(table)?;
                let q = crate::pivot::pivot_query(
                    table,
                    aggregate_functions,
                    value_column,
                    value_source,
                    default_on_null.as_ref(),
                    &columns,
                )?;
                let rows = self.run_query(&q)?;
                let a = alias.as_ref().map(|a| a.name.value.to_ascii_uppercase());
                derived_relation(rows, a, alias.as_ref().map(|a| a.columns.as_slice()))
            }
            ast::TableFactor::Unpivot {
                table,
                value,
                name,
                columns: listed,
                null_inclusion,
                alias,
            } => {
                let columns = self.column_names(table)?;
                let include = matches!(null_inclusion, Some(ast::NullInclusion::IncludeNulls));
                let q = crate::pivot::unpivot_query(table, value, name, listed, include, &columns)?;
                let rows = self.run_query(&q)?;
                let a = alias.as_ref().map(|a| a.name.value.to_ascii_uppercase());
                derived_relation(rows, a, alias.as_ref().map(|a| a.columns.as_slice()))
            }
            ast::TableFactor::Derived {
                lateral: false,
                subquery,
                alias,
                sample: None,
            } => {
                let rows = self.run_query(subquery)?;
                let q = alias.as_ref().map(|a| a.name.value.to_ascii_uppercase());
                derived_relation(rows, q, alias.as_ref().map(|a| a.columns.as_slice()))
            }
            ast::TableFactor::NestedJoin {
                table_with_joins,
                alias,
            } => {
                let (mut scope, batch) =
                    self.joined_source(std::slice::from_ref(table_with_joins), None)?;
                if let Some(a) = alias {
                    for c in &mut scope.columns {
                        c.qualifier = Some(a.name.value.to_ascii_uppercase());
                    }
                }
                Ok((scope, batch))
            }
            other => Err(Error::Unsupported(format!("FROM {other}"))),
        }
    }

    /// The names of the columns a FROM item gives, with their types where known (a table's
    /// without reading it; a derived table's character columns' declared types).
    fn column_names(
        &mut self,
        tf: &ast::TableFactor,
    ) -> Result<Vec<(String, Option<tdlite_storage::types::SqlType>)>> {
        if let Some((table, _)) = self.base_table(tf)? {
            return Ok((table.schema.columns.iter())
                .map(|c| (c.name.clone(), Some(c.ty)))
                .collect());
        }
        let (scope, _) = self.relation(tf)?;
        Ok(scope
            .columns
            .into_iter()
            .map(|c| (c.name, c.text))
            .collect())
    }

    /// The rows of a table, view, CTE or dictionary view that a FROM item names.
    fn named_relation(
        &mut self,
        name: &ast::ObjectName,
        alias: Option<&ast::TableAlias>,
    ) -> Result<(Scope, RecordBatch)> {
        let q = qualifier_of(name, alias);
        if let Some(rows) = self.named_rows(name)? {
            return derived_relation(rows, Some(q.to_ascii_uppercase()), None);
        }
        let table = self.must_get_table(name)?;
        if table.schema.view.is_some() {
            let rows = self.view_rows(&table)?;
            return derived_relation(rows, Some(q.to_ascii_uppercase()), None);
        }
        let scope = crate::names::table_scope(&table, &q);
        let keep = self.keep_named(&table);
        let (batch, _) = self.scan_table_keeping(&table, keep.as_deref())?;
        Ok((scope, batch))
    }

    /// `TABLE (f(args) RETURNS (…)) AS d` (table_function.rs): the arguments are evaluated
    /// over the rows of the one table their columns name (`t.c`, read as a FROM item of its
    /// own, as Teradata reads it), or once when they name none.
    ///
    /// # Errors
    /// 9910 for a function tdlite does not know or arguments naming two tables; 3807 for a
    /// table that does not exist; the function's errors.
    fn table_function(
        &mut self,
        expr: &ast::Expr,
        alias: Option<&ast::TableAlias>,
    ) -> Result<(Scope, RecordBatch)> {
        use crate::table_function::{returns, run, TableFn};
        let unsupported = || Error::Unsupported(format!("the table function TABLE ({expr})"));
        let ast::Expr::Function(wrap) = expr else {
            return Err(unsupported());
        };
        let (items, _) = Self::function_args(wrap)?;
        let (Some(ast::FunctionArgExpr::Expr(ast::Expr::Function(call))), true) = (
            items.first(),
            tdlite_parser::object_name_string(&wrap.name) == tdlite_parser::RETURNS_CALL,
        ) else {
            return Err(unsupported());
        };
        let name = tdlite_parser::object_name_string(&call.name);
        let f = TableFn::lookup(&name)
            .ok_or_else(|| Error::Unsupported(format!("the table function {name}")))?;
        let defs = items[1..]
            .iter()
            .map(|d| match d {
                ast::FunctionArgExpr::Expr(ast::Expr::Value(v)) => match &v.value {
                    ast::Value::SingleQuotedString(s) => Ok(s.clone()),
                    _ => Err(unsupported()),
                },
                _ => Err(unsupported()),
            })
            .collect::<Result<Vec<_>>>()?;
        let columns = returns(&defs)?;
        let (args, _) = Self::function_args(call)?;
        let args: Vec<&ast::Expr> = args
            .into_iter()
            .map(|a| match a {
                ast::FunctionArgExpr::Expr(x) => Ok(x),
                _ => Err(unsupported()),
            })
            .collect::<Result<_>>()?;
        // the table the arguments' columns name
        let mut source: Option<Vec<ast::Ident>> = None;
        for a in &args {
            let walk = crate::bind::visit_own_level(a, |e| match e {
                ast::Expr::CompoundIdentifier(parts) if parts.len() > 1 => {
                    let q = parts[..parts.len() - 1].to_vec();
                    match &source {
                        Some(s) if !same_name(s, &q) => std::ops::ControlFlow::Break(()),
                        _ => {
                            source = Some(q);
                            std::ops::ControlFlow::Continue(())
                        }
                    }
                }
                _ => std::ops::ControlFlow::Continue(()),
            });
            if walk.is_break() {
                return Err(Error::Unsupported(format!(
                    "{name} over the columns of two tables"
                )));
            }
        }
        let (scope, input) = match source {
            Some(parts) => {
                let table = ast::ObjectName::from(parts);
                self.named_relation(&table, None)?
            }
            None => {
                // (one call of literals; none in a run for the columns alone: Exec::shaping)
                let calls = usize::from(!self.shaping());
                let none = RecordBatch::try_new_with_options(
                    Arc::new(arrow::datatypes::Schema::empty()),
                    Vec::new(),
                    &arrow::record_batch::RecordBatchOptions::new().with_row_count(Some(calls)),
                )?;
                (Scope::default(), none)
            }
        };
        let values = args
            .iter()
            .map(|a| self.bind_expr(a, &scope, None)?.eval(&input))
            .collect::<Result<Vec<_>>>()?;
        let rows = run(f, &values, input.num_rows(), &columns)?;
        let q = alias.map(|a| a.name.value.to_ascii_uppercase());
        derived_relation(rows, q, alias.map(|a| a.columns.as_slice()))
    }

    /// `base` joined with the relations of `from` on `selection` (the WHERE clause): the rows
    /// of a joined UPDATE or DELETE whose FROM the planner does not take (dml.rs
    /// `joined_rows`: its whole target as `base`). The condition runs on chunks of row pairs, so the full cross product
    /// is never built.
    pub(crate) fn join_onto(
        &mut self,
        (base_scope, base): (Scope, RecordBatch),
        from: &[ast::TableWithJoins],
        selection: Option<&ast::Expr>,
    ) -> Result<(Scope, RecordBatch)> {
        let (other_scope, other) = self.joined_source(from, None)?;
        let mut scope = base_scope;
        scope.columns.extend(other_scope.columns);
        let types = batch_types([&base, &other]);
        let ty = |c: usize| types.get(c).cloned();
        let (conds, deferred, _) = match selection {
            Some(w) => self.bind_or_defer(w, &scope, &ty)?,
            None => Default::default(),
        };
        let joined = join(&base, &other, Kind::Inner, &conds)?;
        let joined = self.filter_correlated(&scope, joined, &deferred)?;
        Ok((scope, joined))
    }

    /// Joins the relations of `from` and applies `selection` (the WHERE clause).
    pub(crate) fn joined_source(
        &mut self,
        from: &[ast::TableWithJoins],
        selection: Option<&ast::Expr>,
    ) -> Result<(Scope, RecordBatch)> {
        check_from(from)?;
        if outer_beside_comma(from) {
            // `a, b RIGHT JOIN c` is `a × (b ⟖ c)`: each comma item is joined on its own
            let mut scope = Scope::default();
            let mut acc: Option<RecordBatch> = None;
            for twj in from {
                let (s, b) = self.joined_source(std::slice::from_ref(twj), None)?;
                scope.columns.extend(s.columns);
                acc = Some(match acc {
                    None => b,
                    Some(a) => join(&a, &b, Kind::Inner, &[])?,
                });
            }
            let mut acc = acc.ok_or_else(|| Error::Unsupported("an empty FROM".into()))?;
            if let Some(w) = selection {
                let types = batch_types([&acc]);
                let ty = |c: usize| types.get(c).cloned();
                let (conds, deferred, _) = self.bind_or_defer(w, &scope, &ty)?;
                for cond in &conds {
                    acc = filter_by(&acc, cond)?;
                }
                acc = self.filter_correlated(&scope, acc, &deferred)?;
            }
            return Ok((scope, acc));
        }
        self.bind_and_run(from, selection, Vec::new())
    }

    /// The rows of `from` (checked by [`check_from`], with no outer join beside a comma)
    /// joined under `selection` by the plan `run_from` runs, where the caller gives some
    /// relations itself ([`Exec::bind_from_with`]): a joined UPDATE's or DELETE's target
    /// (`FromRel::Target`, its row ids after its columns), a MERGE's source rows.
    ///
    /// # Errors
    /// As [`Exec::joined_source`].
    pub(crate) fn joined_with(
        &mut self,
        from: &[ast::TableWithJoins],
        selection: Option<&ast::Expr>,
        given: Given,
    ) -> Result<(Scope, RecordBatch)> {
        check_from(from)?;
        self.bind_and_run(from, selection, given)
    }

    /// `from` bound whole with `selection` ([`Exec::bind_from_with`]) and run; bound again
    /// with its views read first where a view's types changed since they were recorded.
    fn bind_and_run(
        &mut self,
        from: &[ast::TableWithJoins],
        selection: Option<&ast::Expr>,
        given: Given,
    ) -> Result<(Scope, RecordBatch)> {
        let bound = self.bind_joined_with(from, selection, given.clone())?;
        match self.run_from(bound, from) {
            // a view's types are no longer those it was bound with: bound again over its rows
            Err(Error::ViewRetyped(_)) if !self.views_read_early => {
                let saved = std::mem::replace(&mut self.views_read_early, true);
                let joined = (self.bind_from_with(from, selection, given))
                    .and_then(|b| self.run_from(b, from));
                self.views_read_early = saved;
                joined
            }
            joined => joined,
        }
    }

    /// [`Exec::bind_from`], where a column name that does not resolve over a view bound
    /// unread gives way to a missing table under the view (reading the view first would
    /// have met it first).
    ///
    /// # Errors
    /// As [`Exec::bind_from`]; 3807 for a view's missing table, as above.
    pub(crate) fn bind_joined(
        &mut self,
        from: &[ast::TableWithJoins],
        selection: Option<&ast::Expr>,
    ) -> Result<BoundFrom> {
        self.bind_joined_with(from, selection, Vec::new())
    }

    /// [`Exec::bind_joined`] with relations the caller gives ([`Exec::bind_from_with`]).
    pub(crate) fn bind_joined_with(
        &mut self,
        from: &[ast::TableWithJoins],
        selection: Option<&ast::Expr>,
        given: Given,
    ) -> Result<BoundFrom> {
        match self.bind_from_with(from, selection, given) {
            Err(e @ (Error::ColumnNotFound(_) | Error::AmbiguousColumn(_))) => {
                Err(self.unread_views_missing(from).unwrap_or(e))
            }
            bound => bound,
        }
    }

    /// The binding stage of a FROM clause (`from`, checked by [`check_from`], with no outer
    /// join beside a comma) and its WHERE clause `selection`: the relations (base tables not
    /// read), the scope, the conditions bound against it.
    ///
    /// # Errors
    /// Binding errors (3807, 3810, 3822, …), and those of the relations read now.
    pub(crate) fn bind_from(
        &mut self,
        from: &[ast::TableWithJoins],
        selection: Option<&ast::Expr>,
    ) -> Result<BoundFrom> {
        self.bind_from_with(from, selection, Vec::new())
    }

    /// [`Exec::bind_from`], where `given[r]`, if any, is relation `r` with its scope, as
    /// the caller made it (the FROM's entry `r` is not looked up): a joined UPDATE's or
    /// DELETE's target (a [`FromRel::Target`], its columns followed by its row ids under a
    /// name no SQL text spells, target_from.rs), a MERGE's source rows read before (with
    /// their positions).
    ///
    /// # Errors
    /// As [`Exec::bind_from`].
    pub(crate) fn bind_from_with(
        &mut self,
        from: &[ast::TableWithJoins],
        selection: Option<&ast::Expr>,
        given: Given,
    ) -> Result<BoundFrom> {
        // (relation, how it joins the ones before it, its constraint), as written
        let mut steps = Vec::new();
        // (whether each step is the first of a comma item)
        let mut item_heads = Vec::new();
        for twj in from {
            item_heads.push(true);
            item_heads.extend(twj.joins.iter().map(|_| false));
            steps.push((&twj.relation, Kind::Inner, None));
            for j in &twj.joins {
                let (kind, c) = kind_of(&j.join_operator)?;
                steps.push((&j.relation, kind, c));
            }
        }
        let inner_only = steps.iter().all(|(_, k, _)| *k == Kind::Inner);
        // A base table is read at its step (with inner joins only, through its own conditions,
        // so an index can fetch just the rows they select), and so are a view and a derived
        // table (with inner joins only, made with the conditions that name it alone and cannot
        // fail: pushdown.rs); other relations are read now.
        let factors: Vec<&ast::TableFactor> = steps.iter().map(|(tf, ..)| *tf).collect();
        let conds = match inner_only {
            true => join_conds(from, selection),
            false => Vec::new(),
        };
        let mut rels = Vec::with_capacity(steps.len());
        let mut scopes = Vec::with_capacity(steps.len());
        let mut given = given;
        let mut counted = Vec::new();
        for (at, (tf, ..)) in steps.iter().enumerate() {
            if let Some((rscope, rel)) = given.get_mut(at).and_then(Option::take) {
                if matches!(rel, FromRel::Rows(_)) {
                    counted.push(at);
                }
                scopes.push(rscope);
                rels.push(rel);
                continue;
            }
            match self.base_table(tf)? {
                Some((table, q)) => {
                    scopes.push(crate::names::table_scope(&table, &q));
                    let keep = self.keep_named(&table);
                    rels.push(FromRel::Table(table, keep));
                }
                None => match (self.unread_view(tf, &factors, &conds))
                    .or_else(|| self.unread_derived((tf, at), &factors, &conds))
                {
                    Some((rscope, rel)) => {
                        scopes.push(rscope);
                        rels.push(rel);
                    }
                    None => {
                        let (rscope, rows) = match self.pushed_in_join(tf, &factors, &conds) {
                            Some(p) => self.read_pushed(tf, p)?,
                            None => self.relation(tf)?,
                        };
                        scopes.push(rscope);
                        rels.push(FromRel::Rows(rows));
                    }
                },
            }
        }
        let mut starts = Vec::with_capacity(rels.len());
        let mut scope = Scope::default();
        // conjuncts with correlated subqueries run last, once per joined row (correlate.rs);
        // of ON conditions only where every join is inner (where that means the same)
        let mut deferred = Vec::new();
        let mut on_deferred = Vec::new();
        // (step, ON conjuncts with correlated subqueries, the scope of the step's pairs)
        let mut on_pairs: Vec<(usize, Vec<ast::Expr>, Scope)> = Vec::new();
        // ON conditions, bound against the relations of their comma item up to them (as written); with inner
        // joins only, an ON's conjuncts (or a USING's equalities) in `on_parts`
        let mut ons: Vec<Option<Expr>> = Vec::with_capacity(rels.len());
        let mut on_parts: Vec<Vec<Expr>> = vec![Vec::new(); rels.len()];
        // the scope's columns' types, for the conjuncts that cannot fail (bind_or_defer)
        let mut types: Vec<arrow::datatypes::DataType> = Vec::new();
        // where the comma item of the step at hand starts: an ON or USING sees the relations
        // of its own item only (`a, b JOIN c ON …` joins b and c, then pairs them with a)
        let mut item_start = 0;
        for ((_, _, constraint), (rscope, rel)) in steps.iter().zip(scopes.iter().zip(&rels)) {
            let left_width = scope.columns.len();
            let step = ons.len();
            if item_heads.get(step).copied().unwrap_or(true) {
                item_start = left_width;
            }
            starts.push(left_width);
            scope.columns.extend(rscope.columns.iter().cloned());
            types.extend(rel.column_types());
            let ty = |c: usize| types.get(c).cloned();
            let seen = match (constraint, item_start) {
                (None | Some(ast::JoinConstraint::None), _) | (_, 0) => None,
                _ => {
                    let mut own = scope.clone();
                    for c in &mut own.columns[..item_start] {
                        *c = ScopeColumn::unnamed();
                    }
                    Some(own)
                }
            };
            let seen = seen.as_ref().unwrap_or(&scope);
            ons.push(match constraint {
                None | Some(ast::JoinConstraint::None) => None,
                Some(ast::JoinConstraint::On(e)) if inner_only => {
                    let (bound, later, _) = self.bind_or_defer(e, seen, &ty)?;
                    // bound later over the relations before it only
                    let sees = item_start..scope.columns.len();
                    on_deferred.extend(later.into_iter().map(|p| (p, sees.clone())));
                    on_parts[step] = bound;
                    None
                }
                Some(ast::JoinConstraint::On(e)) => {
                    // with an outer join, correlated conjuncts run on the step's pairs
                    let (bound, later, _) = self.bind_or_defer(e, seen, &ty)?;
                    if !later.is_empty() {
                        on_pairs.push((step, later, seen.clone()));
                    }
                    bound
                        .into_iter()
                        .reduce(|a, b| Expr::Binary(BinOp::And, Box::new(a), Box::new(b)))
                }
                Some(ast::JoinConstraint::Using(cols)) => {
                    let eq = using(seen, left_width, rscope, cols)?;
                    match inner_only {
                        true => {
                            split_and(eq, &mut on_parts[step]);
                            None
                        }
                        false => Some(eq),
                    }
                }
                Some(other) => {
                    return Err(Error::Unsupported(format!("the join constraint {other:?}")))
                }
            });
        }
        let rels_of = |e: &Expr| relations_of(e, &starts);
        // (condition, the relations it reads, whether it comes from an ON)
        let mut conds: Vec<(Expr, Vec<usize>, bool)> = Vec::new();
        let mut tries = Vec::new();
        if let Some(w) = selection {
            let ty = |c: usize| types.get(c).cloned();
            let (bound, later, tried) = self.bind_or_defer(w, &scope, &ty)?;
            deferred.extend(later);
            // (those that name one relation, tried on its rows as they are read: only among
            // inner joins, where a row a conjunct drops before the join is one it drops after
            // (an outer join would pair its partner with NULLs instead), and not one that
            // calls RANDOM, which would filter twice)
            tries = (tried.into_iter())
                .filter(|e| inner_only && !e.has_random())
                .filter_map(|e| match rels_of(&e).as_slice() {
                    [r] => Some((e, *r)),
                    _ => None,
                })
                .collect();
            for e in bound {
                let r = rels_of(&e);
                conds.push((e, r, false));
            }
        }
        // an inner join's ON conjuncts are conditions like WHERE's, and the order is ours
        // (for each condition, the join whose ON it is)
        let mut on_step: Vec<Option<usize>> = vec![None; conds.len()];
        for (step, parts) in on_parts.into_iter().enumerate() {
            for e in parts {
                let r = rels_of(&e);
                conds.push((e, r, true));
                on_step.push(Some(step));
            }
        }
        Ok(BoundFrom {
            scope,
            starts,
            kinds: steps.iter().map(|s| s.1).collect(),
            rels,
            conds,
            on_step,
            ons,
            on_pairs,
            on_deferred,
            deferred,
            tries,
            counted,
            kept: false,
        })
    }

    /// The run stage of a FROM clause bound by [`Exec::bind_from`]: with inner joins only, the
    /// order planned (join_plan.rs) from the tables' sizes and the conditions' values now,
    /// each base table read at its step; the joined rows, in the scope's column order.
    ///
    /// # Errors
    /// Evaluation errors of the conditions, the join's row limit.
    pub(crate) fn run_from(
        &mut self,
        bound: BoundFrom,
        from: &[ast::TableWithJoins],
    ) -> Result<(Scope, RecordBatch)> {
        let FromPlan {
            steps: plan,
            owns,
            own_counts,
            wholes,
            ..
        } = bound.plan();
        let BoundFrom {
            scope,
            starts,
            kinds,
            rels,
            conds,
            on_step: _,
            ons,
            on_pairs,
            on_deferred,
            deferred,
            tries: early,
            counted: _,
            kept,
        } = bound;
        let width =
            |r: usize| starts.get(r + 1).copied().unwrap_or(scope.columns.len()) - starts[r];
        // where each original column sits in the joined batch
        let mut map = vec![0; scope.columns.len()];
        let mut pos = 0;
        for r in plan.iter().map(|s| s.rel) {
            for c in 0..width(r) {
                map[starts[r] + c] = pos;
                pos += 1;
            }
        }
        // Conditions run at the step the plan gives them, in its order (hash keys first). With
        // outer joins the written order stands and WHERE runs at the end.
        let mut conds: Vec<Option<(Expr, Vec<usize>, bool)>> =
            conds.into_iter().map(Some).collect();
        let mut acc: Option<RecordBatch> = None;
        let mut rels: Vec<Option<FromRel>> = rels.into_iter().map(Some).collect();
        for step in &plan {
            let r = step.rel;
            let first = acc.is_none();
            // (whether the first step's conditions name its relation alone: then they are its
            // own conditions if as many)
            let only_own = first
                && (step.conds.iter())
                    .all(|&i| conds[i].as_ref().is_some_and(|c| c.1.as_slice() == [r]));
            let now: Vec<Expr> = step
                .conds
                .iter()
                .filter_map(|&i| conds[i].take())
                .map(|(e, ..)| e.remap(&map))
                .collect();
            let rel = rels[r]
                .take()
                .ok_or_else(|| Error::Internal("relation joined twice".into()))?;
            // its own conditions that cannot fail, on its rows before the join (join_plan.rs),
            // and on the first step all of the step's conditions (they name it alone): as the
            // rows are read, so the rows that fail are not copied
            let mut own_now: Vec<Expr> = Vec::new();
            if !step.pre.is_empty() {
                let local = local_columns(&starts, r, map.len());
                own_now.extend(
                    (step.pre.iter())
                        .filter_map(|&i| conds[i].take())
                        .map(|(e, ..)| e.remap(&local)),
                );
            }
            let mut now = now;
            if first {
                // (the first relation's columns lead the joined rows: `map` is `local` here)
                own_now.append(&mut now);
            }
            // its own conjuncts that are held back, tried on its rows (as they are read, where
            // none fails on them): one that fails runs at its own step (join_plan.rs
            // `Step::tries`), or with the correlated conjuncts (`BoundFrom::tries`, which run
            // there either way, so `None` for them)
            let local = local_columns(&starts, r, map.len());
            let mut tried: Vec<(Option<usize>, Expr)> = (step.tries.iter())
                .filter_map(|&i| Some((Some(i), conds[i].as_ref()?.0.remap(&local))))
                .chain(
                    (early.iter().filter(|(_, at)| *at == r)).map(|(e, _)| (None, e.remap(&local))),
                )
                .collect();
            let right = match rel {
                FromRel::Rows(rows) => own_now.iter().try_fold(rows, |b, e| filter_by(&b, e))?,
                FromRel::View(view, query) => {
                    let bound = &scope.columns[starts[r]..starts[r] + width(r)];
                    let rows = self.view_batch(&view, query.as_deref(), kept, bound)?;
                    own_now.iter().try_fold(rows, |b, e| filter_by(&b, e))?
                }
                FromRel::Derived(query, at, shape) => {
                    let rows = match (&query, crate::pushdown::factors(from).nth(at)) {
                        // (a kept plan holds its query: its blocks may be kept too)
                        (Some(q), _) if kept => self.run_query(q)?,
                        (Some(q), _) => self.run_made_now(q)?,
                        (None, Some(ast::TableFactor::Derived { subquery, .. })) => {
                            self.run_query(subquery)?
                        }
                        (None, _) => return Err(Error::Internal("a derived table's step".into())),
                    };
                    let name = (scope.columns.get(starts[r]))
                        .and_then(|c| c.qualifier.clone())
                        .unwrap_or_default();
                    let rows = as_shaped(rows, &shape, &name)?;
                    own_now.iter().try_fold(rows, |b, e| filter_by(&b, e))?
                }
                FromRel::Table(..) | FromRel::Target(..) => {
                    // (a target's rows, and their ids after them)
                    let (table, keep, with_ids) = match rel {
                        FromRel::Table(table, keep) => (table, keep, false),
                        FromRel::Target(table, keep) => (table, keep, true),
                        _ => return Err(Error::Internal("a base table's step".into())),
                    };
                    // through its own conditions, or by probing an index with the key values of
                    // the few rows joined so far
                    let (own, own_preds) = &owns[r];
                    let probed = match &acc {
                        Some(left) if step.keys > 0 => {
                            let pairs = join_plan::key_pairs(&now[..step.keys], left.num_columns());
                            let cols: Vec<usize> = pairs.iter().map(|p| p.1).collect();
                            let probe = join_plan::probe_columns(&table.schema, &cols);
                            let pays = join_plan::probes_pay(left.num_rows(), table.row_versions());
                            match pays
                                && join_plan::probe_index(&table.schema, own_preds, &probe)
                                    .is_some()
                            {
                                // the other operands' values (one that fails to compute
                                // probes nothing: the join raises its error if a pair
                                // meets it)
                                true => pairs
                                    .into_iter()
                                    .filter(|p| probe.contains(&p.1))
                                    .map(|(e, c)| e.eval(left).map(|v| (v, c)))
                                    .collect::<Result<Vec<_>>>()
                                    .ok()
                                    .map(|pairs| {
                                        join_plan::probe_preds(&table.schema, own.as_ref(), &pairs)
                                    }),
                                false => None,
                            }
                        }
                        _ => None,
                    };
                    // a first step whose conditions are its own and whole: an index bounding
                    // them reads exactly the rows that pass, none tested (access.rs)
                    let exact = (only_own && wholes[r] && own_now.len() == own_counts[r])
                        .then(|| {
                            self.reader()
                                .read_by_keys(&table, own_preds, keep.as_deref())
                        })
                        .flatten();
                    let (rows, ids) = match exact {
                        Some((rows, ids)) => (rows, with_ids.then_some(ids)),
                        None => {
                            let preds = probed.as_ref().unwrap_or(own_preds);
                            let keep = keep.as_deref();
                            let read = |ex: &mut Exec, conds: &[Expr]| {
                                ex.reader()
                                    .read_passing(&table, preds, keep, conds, with_ids)
                            };
                            match tried.is_empty() {
                                true => read(self, &own_now)?,
                                false => {
                                    let with_tried: Vec<Expr> = (own_now.iter().cloned())
                                        .chain(tried.iter().map(|(_, e)| e.clone()))
                                        .collect();
                                    match read(self, &with_tried) {
                                        Ok(rows) => {
                                            for (i, _) in tried.drain(..) {
                                                if let Some(i) = i {
                                                    conds[i] = None;
                                                }
                                            }
                                            rows
                                        }
                                        // (one that fails: read again without them, tried below)
                                        Err(_) => read(self, &own_now)?,
                                    }
                                }
                            }
                        }
                    };
                    match ids {
                        Some(ids) => {
                            let ids: ArrayRef = Arc::new(UInt64Array::from(ids));
                            crate::ops::with_columns(&rows, [(ROW_ID.to_string(), ids)])?
                        }
                        None => rows,
                    }
                }
            };
            // the tried conjuncts a read did not take, on the rows read
            let mut right = right;
            for (i, e) in tried {
                if let Ok(kept) = filter_by(&right, &e) {
                    right = kept;
                    if let Some(i) = i {
                        conds[i] = None;
                    }
                }
            }
            acc = Some(match acc {
                None => right,
                Some(left) => {
                    let kind = kinds[r];
                    let on = ons[r].iter().map(|e| e.remap(&map));
                    let correlated = on_pairs.iter().find(|(step, ..)| *step == r);
                    if let Some((_, later, pair_scope)) = correlated {
                        // (written order here: the pairs' columns are the ON's scope)
                        let mut on_parts = Vec::new();
                        for e in on {
                            split_and(e, &mut on_parts);
                        }
                        let mut test = |pairs: &RecordBatch| {
                            self.correlated_mask(pair_scope, pairs.clone(), later)
                        };
                        join_filtered(&left, &right, kind, &on_parts, Some(&mut test))?
                    } else if kind == Kind::Inner {
                        // WHERE conjuncts ready now filter the pairs as they are made, after
                        // the ON condition (so they only see pairs it accepts); an ON of a
                        // FROM with outer joins goes as its conjuncts, so its keys are hashed
                        let mut conds = Vec::new();
                        for e in on {
                            split_and(e, &mut conds);
                        }
                        conds.extend(now);
                        join(&left, &right, kind, &conds)?
                    } else {
                        // an outer join first keeps its unmatched rows; WHERE comes after
                        // its ON conjuncts run one after another on the pairs, as an AND
                        // does, so leading key equalities can be hashed
                        let mut on_parts = Vec::new();
                        for e in on {
                            split_and(e, &mut on_parts);
                        }
                        let on = on_parts;
                        let b = join(&left, &right, kind, &on)?;
                        now.iter().try_fold(b, |b, e| filter_by(&b, e))?
                    }
                }
            });
        }
        let mut acc = acc.ok_or_else(|| Error::Unsupported("an empty FROM".into()))?;
        for (e, ..) in conds.into_iter().flatten() {
            acc = filter_by(&acc, &e.remap(&map))?;
        }
        // back to the order the FROM clause gives its columns
        let mut acc = acc.project(&map)?;
        for (p, sees) in &on_deferred {
            let mut visible = scope.clone();
            for (i, c) in visible.columns.iter_mut().enumerate() {
                if !sees.contains(&i) {
                    *c = ScopeColumn::unnamed();
                }
            }
            acc = self.filter_correlated(&visible, acc, std::slice::from_ref(p))?;
        }
        let acc = self.filter_correlated(&scope, acc, &deferred)?;
        Ok((scope, acc))
    }
}

/// The types of the columns of `batches` side by side.
fn batch_types<const N: usize>(batches: [&RecordBatch; N]) -> Vec<arrow::datatypes::DataType> {
    let mut types = Vec::new();
    for b in batches {
        types.extend(b.schema().fields().iter().map(|f| f.data_type().clone()));
    }
    types
}

/// The name and alias of a FROM item that names a table, view or CTE as it is (no table
/// function arguments, no SAMPLE); `None` for anything else.
pub(crate) fn plain_table(
    tf: &ast::TableFactor,
) -> Option<(&ast::ObjectName, Option<&ast::TableAlias>)> {
    match tf {
        ast::TableFactor::Table {
            name,
            alias,
            args: None,
            sample: None,
            ..
        } => Some((name, alias.as_ref())),
        _ => None,
    }
}

/// View `view` (its query parsed: `query`) as a relation conditions are pushed into, its
/// columns named by the catalog.
fn view_relation<'q>(
    view: &'q tdlite_storage::table::Table,
    query: &'q ast::Query,
    qualifier: String,
    params: &'q [tdlite_storage::types::Value],
) -> crate::pushdown::Relation<'q> {
    crate::pushdown::Relation {
        query,
        names: (view.schema.columns.iter())
            .map(|c| Some(c.name.clone()))
            .collect(),
        qualifier,
        view: Some(&view.schema),
        params,
    }
}

/// The conditions of a FROM of inner joins and its WHERE, as conjuncts: WHERE's, then each
/// ON's in FROM order (what [`Exec::pushed_in_join`] may push).
pub(crate) fn join_conds(
    from: &[ast::TableWithJoins],
    selection: Option<&ast::Expr>,
) -> Vec<ast::Expr> {
    let mut out = Vec::new();
    if let Some(w) = selection {
        crate::conjuncts::conjuncts(w, &mut out);
    }
    for j in from.iter().flat_map(|f| &f.joins) {
        if let Some(ast::JoinConstraint::On(e)) = join_constraint(&j.join_operator) {
            crate::conjuncts::conjuncts(e, &mut out);
        }
    }
    out
}

/// A view or derived table with conditions pushed into its query ([`Exec::pushed`]).
pub(crate) struct Pushed {
    /// Its query with the conditions in its WHERE.
    pub query: ast::Query,
    /// The conditions pushed, as the enclosing block wrote them.
    pub conjuncts: Vec<ast::Expr>,
    /// The name that qualifies its columns.
    pub qualifier: String,
    /// The view (`None` for a derived table).
    pub view: Option<Arc<tdlite_storage::table::Table>>,
}

/// The parts of a name as written (`db.t`: `db`, `t`).
fn name_parts(name: &ast::ObjectName) -> Vec<String> {
    name.0
        .iter()
        .map(|p| {
            p.as_ident()
                .map_or_else(|| p.to_string(), |i| i.value.clone())
        })
        .collect()
}

/// The views [`Exec::unread_views_missing`] has looked into, each with the deepest place in
/// a chain of views it was looked into at, and the chain it is in now (each view with its
/// name), outermost first.
#[derive(Default)]
struct ViewWalk {
    deepest: std::collections::HashMap<u64, usize>,
    path: Vec<(u64, String)>,
}

impl ViewWalk {
    /// Whether view `id`, next on the path (where the reader is `depth` views deep already),
    /// is to be looked into: `Err` with the 9913 reading it would meet when it would be
    /// expanded past [`crate::view::MAX_DEPTH`] levels (views that read each other go round
    /// until then, as reading does), `Ok(false)` when it was looked into as deep or deeper
    /// before (what is under it was checked then, nearer the limit).
    fn enter(&mut self, id: u64, name: &str, depth: usize) -> Result<bool> {
        let at = depth + self.path.len();
        if at >= crate::view::MAX_DEPTH {
            return Err(Error::TypeMismatch(format!(
                "view {name} expands into itself (more than {} levels)",
                crate::view::MAX_DEPTH
            )));
        }
        match self.deepest.get(&id) {
            Some(&was) if was >= at => Ok(false),
            _ => {
                self.deepest.insert(id, at);
                Ok(true)
            }
        }
    }
}

/// Whether `from` has an outer join beside a comma: `a, b RIGHT JOIN c` is `a × (b ⟖ c)`,
/// each comma item joined on its own ([`Exec::joined_source`]), not one FROM bound whole.
pub(crate) fn outer_beside_comma(from: &[ast::TableWithJoins]) -> bool {
    let outer = from.iter().flat_map(|t| &t.joins).any(|j| {
        !matches!(
            j.join_operator,
            ast::JoinOperator::Join(_)
                | ast::JoinOperator::Inner(_)
                | ast::JoinOperator::CrossJoin(_)
        )
    });
    outer && from.len() > 1
}

/// Checks a FROM clause's names (no two items known by the same name: 3868) and size.
///
/// # Errors
/// 3868; 3710 past [`MAX_TABLES`] relations.
pub(crate) fn check_from(from: &[ast::TableWithJoins]) -> Result<()> {
    check_names(from)?;
    let named: usize = from.iter().map(|t| 1 + t.joins.len()).sum();
    if named > MAX_TABLES {
        return Err(Error::TooManyTables(named));
    }
    Ok(())
}

/// The most tables and views one FROM clause may name (Teradata's limit per query block).
const MAX_TABLES: usize = 128;

/// `USING (c, …)`: equality of each named column of the left side (which must name it once)
/// and the right side.
fn using(
    scope: &Scope,
    left_width: usize,
    right: &Scope,
    cols: &[ast::ObjectName],
) -> Result<Expr> {
    let mut cond: Option<Expr> = None;
    for c in cols {
        let name = tdlite_parser::object_name_string(c);
        let find = |cols: &[ScopeColumn], base: usize| -> Result<(usize, bool)> {
            let hits: Vec<usize> = cols
                .iter()
                .enumerate()
                .filter(|(_, sc)| sc.name.eq_ignore_ascii_case(&name))
                .map(|(i, _)| i)
                .collect();
            match hits.as_slice() {
                [i] => Ok((base + i, cols[*i].case_specific)),
                [] => Err(Error::ColumnNotFound(name.clone())),
                _ => Err(Error::AmbiguousColumn(name.clone())),
            }
        };
        // on the left, a name several relations share is a column an earlier USING joined:
        // its value is the first non-NULL copy (SQL's coalesced USING column)
        let left_hits: Vec<Expr> = scope.columns[..left_width]
            .iter()
            .enumerate()
            .filter(|(_, sc)| sc.name.eq_ignore_ascii_case(&name))
            .map(|(i, sc)| Expr::Column {
                index: i,
                case_specific: sc.case_specific,
            })
            .collect();
        let left = match left_hits.as_slice() {
            [] => return Err(Error::ColumnNotFound(name.clone())),
            [one] => one.clone(),
            _ => Expr::Func(crate::expr::Func::MergeKeys, left_hits),
        };
        let (r, rcs) = find(&right.columns, left_width)?;
        let eq = Expr::Binary(
            BinOp::Eq,
            Box::new(left),
            Box::new(Expr::Column {
                index: r,
                case_specific: rcs,
            }),
        );
        cond = Some(match cond {
            None => eq,
            Some(prev) => Expr::Binary(BinOp::And, Box::new(prev), Box::new(eq)),
        });
    }
    cond.ok_or_else(|| Error::TypeMismatch("USING needs at least one column".into()))
}

/// The ON or USING of a join (none for a comma, CROSS JOIN or another operator).
pub(crate) use tdlite_parser::conditions::join_constraint;
