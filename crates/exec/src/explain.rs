//! EXPLAIN: a statement's plan as an indented tree, one line per step, without reading a row.
//!
//! ```text
//! Update t_myqueue
//!   Filter: order_of_arrival = (subquery 1)
//!     Unique index lookup of t_myqueue via UNIQUE PRIMARY INDEX (order_of_arrival): order_of_arrival = (subquery 1)
//!     Subquery 1, scalar: runs once before the read
//!       Select …
//! ```
//!
//! A query is first run over no rows (`run_over_no_rows`, `Exec::shape_of`: every table and
//! every row the system makes looks empty), so its errors of binding and typing are the
//! query's, in its order. Each block EXPLAIN explains is then bound as the query binds it
//! before its read, where that reads and runs nothing (`check_binding`,
//! `Exec::bind_as_queried`). The access-path lines come from the same chooser the executor
//! uses (`plan::choose`, `plan::choose_min_max`) over the same conditions: for a one-table
//! block bound so, its WHERE as the query bound it (`plan::bound_preds`, select-list aliases
//! resolved); otherwise each conjunct without a subquery is bound (binding it runs nothing)
//! and read by `plan::bound_preds`, and one with a subquery, or naming an enclosing query's
//! column, is read as written, the value the executor learns only while running (the
//! subquery's result, the outer row's column) assumed to convert. Subqueries are numbered in
//! the order they appear; a subquery that names a
//! column of an enclosing query (correlated) runs once per distinct outer value it reads, or
//! once as a hash join with the outer rows where decorrelate.rs can (decided while running,
//! from the number of rows: EXPLAIN does not show which).
//!
//! Invariant: EXPLAIN reads definitions only: no rows, no locks, no instance of a global
//! temporary table made. A query is run once over no rows (`Exec::shape_of`) for its
//! errors; its subqueries run only there, over no rows.

mod joins;
mod planned;

use crate::access::min_max_calls;
use crate::bind::{visit_own_level, Scope};
use crate::early::{EarlyBound, EarlySource};
use crate::error::{Error, Result};
use crate::exec::Exec;
use crate::names::table_scope;
use crate::plan::{self, ColumnPred, IndexAccess, Preds};
use crate::result::Rows;
use arrow::array::StringArray;
use arrow::datatypes::{DataType, Field, Schema};
use arrow::record_batch::RecordBatch;
use sqlparser::ast;
use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::sync::Arc;
use tdlite_parser::Statement;
use tdlite_storage::catalog::TableSchema;
use tdlite_storage::types::{value_at, Value};

/// Builds the lines of one EXPLAIN.
struct Explainer<'e, 'a> {
    ex: &'e mut Exec<'a>,
    lines: Vec<String>,
    subqueries: usize,
    /// Names of the common table expressions in scope.
    ctes: Vec<String>,
    /// How many subqueries the block being explained is nested in (its names may be an
    /// enclosing query's columns).
    nested: usize,
    /// The columns of the FROM of each block being explained, outermost first, and their
    /// types, as one row per block (`None` for a block with a relation whose columns EXPLAIN
    /// does not know without reading it).
    outer: Vec<Option<(Scope, arrow::datatypes::SchemaRef)>>,
}

impl Exec<'_> {
    /// `EXPLAIN statement`: the plan, one row per line, in the column `Explanation`.
    ///
    /// # Errors
    /// 3807 for unknown tables, 3810 for unknown columns in conditions.
    pub fn explain(&mut self, st: &Statement) -> Result<Rows> {
        let mut e = Explainer {
            ex: self,
            lines: Vec::new(),
            subqueries: 0,
            ctes: Vec::new(),
            nested: 0,
            outer: Vec::new(),
        };
        e.statement(st, 0)?;
        let schema = Arc::new(Schema::new(vec![Field::new(
            "Explanation",
            DataType::Utf8,
            false,
        )]));
        let batch =
            RecordBatch::try_new(schema.clone(), vec![Arc::new(StringArray::from(e.lines))])?;
        Ok(Rows {
            schema,
            batches: vec![batch],
        })
    }
}

/// The relations of a FROM clause in written order, each with the operator that joins it to
/// the ones before (none for a comma item).
fn factors(from: &[ast::TableWithJoins]) -> Vec<(&ast::TableFactor, Option<&ast::JoinOperator>)> {
    let mut items = Vec::new();
    for twj in from {
        items.push((&twj.relation, None));
        items.extend(
            twj.joins
                .iter()
                .map(|j| (&j.relation, Some(&j.join_operator))),
        );
    }
    items
}

/// True for a comma item, `[INNER] JOIN` and `CROSS JOIN`.
fn inner(op: Option<&ast::JoinOperator>) -> bool {
    matches!(
        op,
        None | Some(
            ast::JoinOperator::Join(_)
                | ast::JoinOperator::Inner(_)
                | ast::JoinOperator::CrossJoin(_)
        )
    )
}

/// A conjunct of a condition as text beside others joined by AND: an OR in parentheses (as
/// it was written: splitting the AND dropped them).
pub(super) fn conjunct_text(e: &ast::Expr) -> String {
    match e {
        ast::Expr::BinaryOp {
            op: ast::BinaryOperator::Or,
            ..
        } => format!("({e})"),
        _ => e.to_string(),
    }
}

/// What the query's own binding of a one-table block says of its read (`Explainer::read`).
struct BoundRead<'b> {
    /// Its WHERE, bound (`None` too where its values are not the run's).
    cond: Option<&'b crate::expr::Expr>,
    /// Whether the binding's values are the run's: else the access path is chosen from the
    /// conditions as written.
    as_run: bool,
    /// The n of a TOP n the read stops at (the block streams: block_tail.rs `only_projects`).
    first_rows: Option<usize>,
}

/// The columns of several relations (each `None` where EXPLAIN does not know them) as one
/// row's, in order: `None` if one is unknown.
fn one_row(
    relations: impl IntoIterator<Item = Option<(Scope, arrow::datatypes::SchemaRef)>>,
) -> Option<(Scope, arrow::datatypes::SchemaRef)> {
    let mut columns = Vec::new();
    let mut fields = Vec::new();
    for r in relations {
        let (scope, schema) = r?;
        columns.extend(scope.columns);
        fields.extend(schema.fields().iter().cloned());
    }
    Some((Scope { columns }, Arc::new(Schema::new(fields))))
}

/// The subqueries of `e` at its own level (not those nested in them).
fn subqueries(e: &ast::Expr) -> Vec<(ast::Query, &'static str)> {
    let mut found = Vec::new();
    let _ = visit_own_level(e, |e| {
        match e {
            ast::Expr::Subquery(q) => found.push(((**q).clone(), "scalar")),
            ast::Expr::In {
                target: ast::InTarget::Subquery(subquery),
                ..
            } => found.push(((**subquery).clone(), "IN")),
            ast::Expr::Exists { subquery, .. } => found.push(((**subquery).clone(), "EXISTS")),
            _ => {}
        }
        ControlFlow::Continue(())
    });
    found
}

/// True if `e` names a column of `scope` outside its subqueries.
fn names_scope(e: &ast::Expr, scope: &Scope) -> bool {
    visit_own_level(e, |e| match column_of(e, scope) {
        Some(_) => ControlFlow::Break(()),
        None => ControlFlow::Continue(()),
    })
    .is_break()
}

/// The column of `scope` that `e` names, if `e` is a (qualified) column name.
fn column_of(e: &ast::Expr, scope: &Scope) -> Option<usize> {
    match e {
        ast::Expr::Identifier(i) => scope.resolve(None, &i.value).ok().flatten(),
        ast::Expr::CompoundIdentifier(v) if v.len() == 2 => {
            scope.resolve(Some(&v[0].value), &v[1].value).ok().flatten()
        }
        ast::Expr::Nested(inner) => column_of(inner, scope),
        _ => None,
    }
}

/// A label for index `ix` of `schema`: its name, or its kind, with its columns.
fn index_label(schema: &TableSchema, ix: usize) -> String {
    let Some(spec) = schema.indexes().nth(ix) else {
        return "?".into();
    };
    let cols: Vec<&str> = spec
        .columns
        .iter()
        .filter_map(|&c| schema.columns.get(c).map(|c| c.name.as_str()))
        .collect();
    let primary = ix == 0 && schema.primary_index.is_some();
    let kind = match (primary, spec.unique) {
        (true, true) => "UNIQUE PRIMARY INDEX",
        (true, false) => "PRIMARY INDEX",
        (false, true) => "UNIQUE INDEX",
        (false, false) => "INDEX",
    };
    match &spec.name {
        Some(n) => format!("{kind} {n} ({})", cols.join(", ")),
        None => format!("{kind} ({})", cols.join(", ")),
    }
}

impl Explainer<'_, '_> {
    fn line(&mut self, depth: usize, text: impl AsRef<str>) {
        self.lines
            .push(format!("{}{}", "  ".repeat(depth), text.as_ref()));
    }

    /// `e` as text, its subqueries shown as `subquery N`; the subqueries to list after.
    fn show(&mut self, e: &ast::Expr) -> (String, Vec<(usize, ast::Query, &'static str)>) {
        let mut text = e.to_string();
        let mut subs = Vec::new();
        for (q, kind) in subqueries(e) {
            self.subqueries += 1;
            let n = self.subqueries;
            text = text.replacen(&q.to_string(), &format!("subquery {n}"), 1);
            subs.push((n, q, kind));
        }
        (text, subs)
    }

    fn list_subqueries(
        &mut self,
        subs: Vec<(usize, ast::Query, &'static str)>,
        depth: usize,
    ) -> Result<()> {
        for (n, q, kind) in subs {
            self.line(depth, format!("Subquery {n} ({kind})"));
            self.nested += 1;
            let explained = self.query(&q, depth + 1);
            self.nested -= 1;
            explained?;
        }
        Ok(())
    }

    /// Runs query `q` over no rows (`Exec::shape_of`: every table read looks empty, and no
    /// row is made where the query would make one of its own), so each of its blocks is
    /// bound, and its operands typed, by the query's own code in the query's own order, a
    /// block with subqueries, a derived table or a CTE included: an error there is the
    /// query's error (a block whose binding depends on rows, a correlated subquery's, is
    /// bound over one row of NULLs, as the query binds it over an empty FROM). A `?` with no
    /// value leaves the check to the blocks EXPLAIN binds itself (`check_binding`).
    ///
    /// # Errors
    /// The query's binding and type errors.
    fn run_over_no_rows(&mut self, q: &ast::Query) -> Result<()> {
        match self.ex.shape_of(q) {
            Ok(_) | Err(Error::ParameterCount { .. }) => Ok(()),
            Err(e) => Err(e),
        }
    }

    fn statement(&mut self, st: &Statement, depth: usize) -> Result<()> {
        match st {
            Statement::Sql(s) => match s.as_ref() {
                ast::Statement::Query(q) => {
                    self.run_over_no_rows(q)?;
                    self.query(q, depth)
                }
                ast::Statement::Insert(i) => {
                    self.line(depth, format!("Insert into {}", i.table));
                    match i.source.as_deref() {
                        Some(q) if !matches!(q.body.as_ref(), ast::SetExpr::Values(_)) => {
                            self.query(q, depth + 1)
                        }
                        _ => {
                            self.line(depth + 1, "Values");
                            Ok(())
                        }
                    }
                }
                ast::Statement::Update(u) => {
                    let from = match &u.from {
                        Some(
                            ast::UpdateTableFromKind::BeforeSet(f)
                            | ast::UpdateTableFromKind::AfterSet(f),
                        ) => Some(f),
                        None => None,
                    };
                    if let Some(f) = from {
                        let target = crate::target_from::update_target(&u.table, f);
                        self.line(depth, format!("Update {}", target.relation));
                        let q = crate::target_from::known_as(&target.relation);
                        let q = q.unwrap_or_default();
                        let sel = u.selection.as_ref();
                        return self.joined_change((&target.relation, &q), f, sel, depth + 1);
                    }
                    self.line(depth, format!("Update {}", u.table.relation));
                    self.targeting(&u.table.relation, |ex| {
                        ex.read(
                            &u.table.relation,
                            (u.selection.as_ref(), &[]),
                            None,
                            None,
                            depth + 1,
                        )
                    })
                }
                ast::Statement::Delete(d) => {
                    let from = match &d.from {
                        ast::FromTable::WithFromKeyword(v) | ast::FromTable::WithoutKeyword(v) => v,
                    };
                    match from.as_slice() {
                        [one]
                            if one.joins.is_empty() && d.using.is_none() && d.tables.is_empty() =>
                        {
                            self.line(depth, format!("Delete from {}", one.relation));
                            self.targeting(&one.relation, |ex| {
                                ex.read(
                                    &one.relation,
                                    (d.selection.as_ref(), &[]),
                                    None,
                                    None,
                                    depth + 1,
                                )
                            })
                        }
                        _ => match d.tables.as_slice() {
                            [target] if d.using.is_none() => {
                                let q = tdlite_parser::object_name_string(target);
                                let plain;
                                let entry = match crate::target_from::delete_entry(target, from) {
                                    Some(e) => e,
                                    None => {
                                        plain = crate::target_from::plain_factor(target);
                                        &plain
                                    }
                                };
                                self.line(depth, format!("Delete from {entry}"));
                                let sel = d.selection.as_ref();
                                self.joined_change((entry, &q), from, sel, depth + 1)
                            }
                            _ => {
                                self.line(depth, "Delete with a join");
                                Ok(())
                            }
                        },
                    }
                }
                ast::Statement::Merge(m) => {
                    // (a MERGE Teradata refuses has no plan: merge_rules.rs; a text with `?`
                    // markers and no values is explained as written, unchecked)
                    match self.ex.check_merge_statement(m) {
                        Ok(()) | Err(Error::ParameterCount { .. }) => {}
                        Err(e) => return Err(e),
                    }
                    // the source's rows read first, then paired with the target on ON by
                    // the join planner with their number known (merge.rs): which goes first
                    // depends on that number, which EXPLAIN does not read
                    self.line(depth, format!("Merge into {}", m.table));
                    self.line(
                        depth + 1,
                        format!(
                            "Join on {}: the source's rows read first; {} paired with them in \
                             the order their sizes give, hash-joined, or probed through an \
                             index with their keys when they are few",
                            m.on, m.table
                        ),
                    );
                    self.relation(&m.source, depth + 2)
                }
                _ => {
                    self.line(depth, "No rows are read (definition or control statement)");
                    Ok(())
                }
            },
            Statement::Consume(c) => {
                let line = self.consume_line(c)?;
                self.line(depth, line);
                Ok(())
            }
            Statement::InsertConsume { table, consume, .. } => {
                self.line(depth, format!("Insert into {table}"));
                let line = self.consume_line(consume)?;
                self.line(depth + 1, line);
                Ok(())
            }
            Statement::Explain(inner) => self.statement(inner, depth),
            _ => {
                self.line(depth, "No rows are read (definition or control statement)");
                Ok(())
            }
        }
    }

    fn query(&mut self, q: &ast::Query, depth: usize) -> Result<()> {
        let mut depth = depth;
        let recursive = q.with.as_ref().is_some_and(|w| w.recursive);
        let scoped = self.ctes.len();
        let ex_scoped = self.ex.ctes.len();
        // the query as it runs: the CTEs named once are derived tables (cte_inline.rs)
        let inlined = q.with.as_ref().map(|w| crate::cte_inline::inlined(w, q));
        let q = inlined.as_ref().map_or(q, |(_, body)| body);
        if let Some((ctes, _)) = &inlined {
            for cte in ctes {
                // a CTE's query sees the CTEs before it, and (a recursive one) itself
                let name = cte.alias.name.value.to_uppercase();
                if recursive {
                    self.ctes.push(name.clone());
                }
                self.line(
                    depth,
                    format!(
                        "With {}{}",
                        if recursive { "recursive " } else { "" },
                        cte.alias.name
                    ),
                );
                if let Err(e) = self.query(&cte.query, depth + 1) {
                    self.ctes.truncate(scoped);
                    self.ex.ctes.truncate(ex_scoped);
                    return Err(e);
                }
                if !recursive {
                    self.ctes.push(name);
                }
                // the executor's name lookups (`Exec::cte`: pushdown's, say) see the name as a
                // CTE from here on, as they will when the query runs: rows of no column
                let none = crate::result::Rows {
                    schema: Arc::new(arrow::datatypes::Schema::empty()),
                    batches: Vec::new(),
                };
                (self.ex.ctes).push((cte.alias.name.value.clone(), none));
            }
        }
        let sort = q
            .order_by
            .as_ref()
            .map(|ob| format!("Sort: {}", ob.to_string().trim_start_matches("ORDER BY ")));
        let result = match (q.body.as_ref(), sort) {
            (ast::SetExpr::Select(s), sort) => {
                let order_by: &[ast::OrderByExpr] = match q.order_by.as_ref().map(|o| &o.kind) {
                    Some(ast::OrderByKind::Expressions(v)) => v,
                    _ => &[],
                };
                self.select(s, (sort, order_by), depth)
            }
            (body, Some(sort)) => {
                self.line(depth, sort);
                depth += 1;
                self.set_expr(body, depth)
            }
            (body, None) => self.set_expr(body, depth),
        };
        self.ctes.truncate(scoped);
        self.ex.ctes.truncate(ex_scoped);
        result
    }

    fn set_expr(&mut self, body: &ast::SetExpr, depth: usize) -> Result<()> {
        match body {
            ast::SetExpr::Select(s) => self.select(s, (None, &[]), depth),
            ast::SetExpr::Query(q) => self.query(q, depth),
            ast::SetExpr::SetOperation {
                op,
                set_quantifier,
                left,
                right,
            } => {
                let all = if matches!(set_quantifier, ast::SetQuantifier::All) {
                    " ALL"
                } else {
                    ""
                };
                self.line(depth, format!("{op}{all}"));
                self.set_expr(left, depth + 1)?;
                self.set_expr(right, depth + 1)
            }
            ast::SetExpr::Values(_) => {
                self.line(depth, "Values");
                Ok(())
            }
            other => Err(Error::Unsupported(format!("EXPLAIN of {other}"))),
        }
    }

    /// Explains block `s`, sorted as `sort` says by its query's `order_by`.
    fn select(
        &mut self,
        s: &ast::Select,
        (sort, order_by): (Option<String>, &[ast::OrderByExpr]),
        depth: usize,
    ) -> Result<()> {
        // a block with a SAMPLE binds as the run binds it: the SAMPLE's own errors first, its
        // names over the FROM without it, SAMPLEID known
        let sample = match s.from.first() {
            Some(first) => crate::sample::of_table(&first.relation)?,
            None => None,
        };
        let sampled = sample.is_some();
        // an aggregate in WHERE: the query's first error, before any name
        if s.selection.as_ref().is_some_and(crate::bind::has_aggregate) {
            return Err(Error::AggregateInWhere);
        }
        let unsampled = (sampled.then(|| crate::sample::taken_off(&s.from)).flatten())
            .map(|from| ast::Select { from, ..s.clone() });
        // its relations' columns, which its subqueries may name
        let known = self.outer.len();
        let block = unsampled.as_ref().unwrap_or(s);
        if !block.from.is_empty() {
            let columns = self.block_columns(&block.from);
            self.outer.push(columns);
        }
        let checked = self.check_binding(block, order_by, sample.as_ref(), known);
        let explained =
            checked.and_then(|bound| self.select_block(s, (sort, order_by), depth, bound));
        self.outer.truncate(known);
        explained
    }

    /// Binds block `s` (with its query's `order_by`, then its `sample`'s WHEN conditions;
    /// `s` is given without its SAMPLE) as the query binds it before its read, where binding
    /// reads and runs nothing (`Exec::bind_as_queried`: base tables and views bound from their
    /// recorded columns, no subquery in the clauses; not a global temporary table with no
    /// instance, which binding would make): an error there is the query's error. In a
    /// subquery, each enclosing block (`self.outer[..enclosing]`) is bound over as one row of
    /// NULLs of its whole FROM, as the query binds a correlated subquery over one row of it,
    /// where EXPLAIN knows all their columns; otherwise a name one of them may have ends the
    /// check. The block as bound, where it was, and whether its values are the run's
    /// (`Exec::bind_as_queried`).
    ///
    /// # Errors
    /// 3868 and 3710 for its FROM (`join::check_from`), then the binding's errors, as the
    /// query raises them: 3810, 3822, 3807, 3504, 9910, operand type errors, a 3706 found
    /// while binding, ….
    fn check_binding(
        &mut self,
        s: &ast::Select,
        order_by: &[ast::OrderByExpr],
        sample: Option<&crate::sample::Sample>,
        enclosing: usize,
    ) -> Result<Option<(EarlyBound, bool)>> {
        // a FROM naming one relation twice (3868) or too many: found before any name
        if factors(&s.from).len() > 1 {
            crate::join::check_from(&s.from)?;
        }
        for (tf, _) in factors(&s.from) {
            if let ast::TableFactor::Table { name, .. } = tf {
                if self.is_cte(name) {
                    return Ok(None);
                }
                match self.ex.table_definition(name) {
                    Ok(t) if self.no_instance(&t) => return Ok(None),
                    _ => {}
                }
            }
        }
        let rows: Option<Vec<_>> = self.outer[..enclosing]
            .iter()
            .map(|o| {
                o.as_ref()
                    .and_then(|(sc, ty)| crate::correlate::OuterRow::nulls(sc, ty).ok())
            })
            .collect();
        // (with an enclosing relation unknown, none is bound over)
        let base = self.ex.outer.len();
        self.ex.outer.extend(rows.unwrap_or_default());
        let bound = self.ex.bind_as_queried(s, order_by, sample);
        self.ex.outer.truncate(base);
        match bound {
            Ok(bound) => Ok(bound),
            Err(Error::ColumnNotFound(n)) if self.nested > 0 && self.may_be_outer(&n) => Ok(None),
            // (a `?` with no value: EXPLAIN of a request's text, explained as written)
            Err(Error::ParameterCount { .. }) => Ok(None),
            // the query's own binding of the block: its error is the query's
            Err(e) => Err(e),
        }
    }

    /// A joined UPDATE's or DELETE's read: its FROM `from` with the target (entry `target`,
    /// known as `q`) first, as the statement runs it (dml.rs `joined_rows`): the join's plan,
    /// or the target's own read where the FROM names the target alone.
    ///
    /// # Errors
    /// 3807 for a missing table; binding errors, as the statement's.
    fn joined_change(
        &mut self,
        (target, q): (&ast::TableFactor, &str),
        from: &[ast::TableWithJoins],
        selection: Option<&ast::Expr>,
        depth: usize,
    ) -> Result<()> {
        let table_name = match target {
            ast::TableFactor::Table { name, .. } => (self.definition(name)?)
                .map(|t| t.schema.name.clone())
                .unwrap_or_default(),
            _ => String::new(),
        };
        let full = crate::target_from::target_first(target, (q, &table_name), from);
        match full.as_slice() {
            [one] => self.targeting(&one.relation, |ex| {
                ex.read(&one.relation, (selection, &[]), None, None, depth)
            }),
            several => self.joins(several, (selection, &[]), depth),
        }
    }

    /// Runs `f` (which explains an UPDATE's or DELETE's read of its target `tf`) with the
    /// target's columns known to the subqueries it explains, which may name them.
    fn targeting(
        &mut self,
        tf: &ast::TableFactor,
        f: impl FnOnce(&mut Self) -> Result<()>,
    ) -> Result<()> {
        let known = self.outer.len();
        let scope = self.known_columns(tf);
        self.outer.push(scope);
        let explained = f(self);
        self.outer.truncate(known);
        explained
    }

    /// The columns of a block's FROM `from` and their types, as one row (a correlated
    /// subquery of the block is bound over one row of the whole FROM, so a name two of its
    /// tables have is ambiguous there, as in the query); `None` where EXPLAIN does not know
    /// one relation's columns without reading it ([`Explainer::known_columns`]).
    fn block_columns(
        &mut self,
        from: &[ast::TableWithJoins],
    ) -> Option<(Scope, arrow::datatypes::SchemaRef)> {
        let relations: Vec<_> = factors(from).into_iter().map(|(tf, _)| tf).collect();
        let known: Vec<_> = relations.iter().map(|tf| self.known_columns(tf)).collect();
        one_row(known)
    }

    /// The columns of FROM item `tf` and their types where EXPLAIN knows them without reading
    /// it: a table's.
    fn known_columns(
        &mut self,
        tf: &ast::TableFactor,
    ) -> Option<(Scope, arrow::datatypes::SchemaRef)> {
        let ast::TableFactor::Table { name, alias, .. } = tf else {
            return None;
        };
        if self.is_cte(name) {
            return None;
        }
        let t = self.ex.table_definition(name).ok()?;
        let q = crate::join::qualifier_of(name, alias.as_ref());
        (t.schema.view.is_none()).then(|| (table_scope(&t, &q), t.schema.arrow.clone()))
    }

    /// Whether the column named `n` (`q.c` or `c`, as a 3810 names it) may be one of an
    /// enclosing block's relations: one of their tables has it, or one of them is a relation
    /// whose columns EXPLAIN does not know.
    fn may_be_outer(&self, n: &str) -> bool {
        let (q, c) = match n.rsplit_once('.') {
            Some((q, c)) => (Some(q), c),
            None => (None, n),
        };
        // (`db.t.c` names t's column where db is the session's home database)
        let home = self.ex.home_database();
        self.outer.iter().any(|scope| match scope {
            None => true,
            Some((scope, _)) => !matches!(scope.resolve_at(q, c, home), Ok(None)),
        })
    }

    fn select_block(
        &mut self,
        s: &ast::Select,
        (sort, order_by): (Option<String>, &[ast::OrderByExpr]),
        depth: usize,
        bound: Option<(EarlyBound, bool)>,
    ) -> Result<()> {
        let mut head = String::from("Select");
        if s.distinct.is_some() {
            head.push_str(" DISTINCT");
        }
        if let Some(top) = &s.top {
            head.push_str(&format!(" {top}"));
        }
        self.line(depth, head);
        let mut depth = depth + 1;
        if let Some(sort) = sort {
            self.line(depth, sort);
            depth += 1;
        }
        // the SAMPLE on the first FROM item samples the block's result, after QUALIFY and
        // before ORDER BY; the FROM is read as without it (query.rs)
        let sample = match s.from.first() {
            Some(first) => crate::sample::of_table(&first.relation)?,
            None => None,
        };
        let taken = sample
            .as_ref()
            .and_then(|_| crate::sample::taken_off(&s.from));
        let from: &[ast::TableWithJoins] = taken.as_deref().unwrap_or(&s.from);
        if let Some(sample) = &sample {
            self.line(depth, format!("Sample: {sample}"));
            depth += 1;
        }
        if let Some(q) = &s.qualify {
            let (text, subs) = self.show(q);
            self.line(depth, format!("Qualify: {text}"));
            self.list_subqueries(subs, depth + 1)?;
            depth += 1;
        }
        let min_max = min_max_calls(s);
        let grouped = match &s.group_by {
            ast::GroupByExpr::Expressions(v, _) if !v.is_empty() => {
                let keys: Vec<String> = v.iter().map(|e| e.to_string()).collect();
                Some(format!("Aggregate by {}", keys.join(", ")))
            }
            _ => s
                .projection
                .iter()
                .any(|i| match i {
                    ast::SelectItem::UnnamedExpr(e)
                    | ast::SelectItem::ExprWithAlias { expr: e, .. } => {
                        crate::bind::has_aggregate(e)
                    }
                    _ => false,
                })
                .then(|| "Aggregate (one group)".to_string()),
        };
        if let Some(h) = &s.having {
            let (text, subs) = self.show(h);
            self.line(depth, format!("Having: {text}"));
            self.list_subqueries(subs, depth + 1)?;
            depth += 1;
        }
        if let Some(g) = grouped {
            self.line(depth, g);
            depth += 1;
        }
        match from {
            [] => self.line(depth, "One row, no table"),
            // a view read at its step, as a join of one relation (query.rs `source`)
            [one]
                if one.joins.is_empty()
                    && self.ex.names_unread_view(&one.relation)
                    && self.planned_joins(
                        from,
                        (s.selection.as_ref(), &s.projection),
                        depth,
                    )? => {}
            [one] if one.joins.is_empty() => {
                // the WHERE of a one-table block as the query bound it, where EXPLAIN bound it,
                // and the TOP n its read stops at where it streams (block_tail.rs `only_projects`)
                let as_bound = match &bound {
                    Some((
                        EarlyBound {
                            source: EarlySource::Table(_, cond),
                            groups,
                            clauses,
                            ..
                        },
                        as_run,
                    )) => Some(BoundRead {
                        // (where its values are the run's: else its conditions as written)
                        cond: cond.as_ref().filter(|_| *as_run),
                        as_run: *as_run,
                        first_rows: crate::block_tail::only_projects(
                            s,
                            order_by,
                            groups,
                            clauses,
                            sample.is_some(),
                        )
                        .flatten(),
                    }),
                    _ => None,
                };
                let block = (s.selection.as_ref(), s.projection.as_slice());
                self.read(&one.relation, block, as_bound, min_max.as_deref(), depth)?
            }
            several => self.joins(several, (s.selection.as_ref(), &s.projection), depth)?,
        }
        for item in &s.projection {
            if let ast::SelectItem::UnnamedExpr(e)
            | ast::SelectItem::ExprWithAlias { expr: e, .. } = item
            {
                let (_, subs) = self.show(e);
                self.list_subqueries(subs, depth)?;
            }
        }
        Ok(())
    }

    /// A relation of a join: read in full.
    fn relation(&mut self, tf: &ast::TableFactor, depth: usize) -> Result<()> {
        match tf {
            ast::TableFactor::Derived {
                subquery, alias, ..
            } => {
                let name = alias
                    .as_ref()
                    .map_or(String::new(), |a| format!(" {}", a.name));
                self.line(depth, format!("Derived table{name}"));
                self.query(subquery, depth + 1)
            }
            ast::TableFactor::NestedJoin {
                table_with_joins, ..
            } => {
                self.line(depth, "Nested join");
                self.relation(&table_with_joins.relation, depth + 1)?;
                for j in &table_with_joins.joins {
                    self.relation(&j.relation, depth + 1)?;
                }
                Ok(())
            }
            ast::TableFactor::Table { name, alias, .. } => {
                let what = self.table_kind(name)?;
                let alias = alias
                    .as_ref()
                    .map_or(String::new(), |a| format!(" AS {}", a.name));
                self.line(depth, format!("Full scan of {what}{alias}"));
                Ok(())
            }
            other => {
                self.line(depth, format!("Read {other}"));
                Ok(())
            }
        }
    }

    /// A view or derived table made with the block's leading conditions inside its query
    /// (`Exec::pushed`): the conditions, then the query that runs. A view's query sees
    /// neither the reader's CTEs nor its enclosing queries.
    pub(super) fn pushed(
        &mut self,
        tf: &ast::TableFactor,
        p: crate::join::Pushed,
        depth: usize,
    ) -> Result<()> {
        let conds: Vec<String> = p.conjuncts.iter().map(conjunct_text).collect();
        let what = match (tf, &p.view) {
            (ast::TableFactor::Table { name, .. }, Some(_)) => format!("View {name}"),
            _ => format!("Derived table {}", p.qualifier),
        };
        self.line(
            depth,
            format!("{what}, made with {} inside", conds.join(" AND ")),
        );
        if p.view.is_none() {
            return self.query(&p.query, depth + 1);
        }
        if self.ex.view_depth >= crate::view::MAX_DEPTH {
            return Err(crate::error::Error::TypeMismatch(format!(
                "{what} expands into itself (more than {} levels)",
                crate::view::MAX_DEPTH
            )));
        }
        let ctes = std::mem::take(&mut self.ctes);
        let ex_ctes = std::mem::take(&mut self.ex.ctes);
        let outer = std::mem::take(&mut self.outer);
        let nested = std::mem::replace(&mut self.nested, 0);
        self.ex.view_depth += 1;
        let r = self.query(&p.query, depth + 1);
        self.ex.view_depth -= 1;
        self.ex.ctes = ex_ctes;
        self.ctes = ctes;
        self.outer = outer;
        self.nested = nested;
        r
    }

    fn is_cte(&self, name: &ast::ObjectName) -> bool {
        name.0.len() == 1
            && self
                .ctes
                .contains(&tdlite_parser::object_name_string(name).to_uppercase())
    }

    /// "view v", "common table expression c" or "t".
    fn table_kind(&mut self, name: &ast::ObjectName) -> Result<String> {
        if self.is_cte(name) {
            return Ok(format!("common table expression {name}"));
        }
        Ok(match self.definition(name)? {
            Some(t) if t.schema.view.is_some() => format!("view {name}"),
            Some(_) => name.to_string(),
            None => format!("system view {name}"),
        })
    }

    /// The table or view `name` names, or `None` for the system calendar or a dictionary view
    /// (rows the executor makes when it reads them, `Exec::named_rows`).
    fn definition(
        &mut self,
        name: &ast::ObjectName,
    ) -> Result<Option<Arc<tdlite_storage::table::Table>>> {
        match self.ex.table_definition(name) {
            Ok(t) => Ok(Some(t)),
            Err(e) => match self.ex.named_rows(name) {
                Ok(Some(_)) => Ok(None),
                _ => Err(e),
            },
        }
    }

    /// A one-table read of a block with WHERE `selection` and select list `projection`
    /// (whose aliases WHERE may name): the access path, and the filter after it. The path is
    /// chosen from `as_bound`'s WHERE as the query bound it where EXPLAIN bound the block
    /// (`check_binding`): the same conditions the run plans its read on; else from the
    /// conditions as written. A read that stops at a TOP n says so.
    fn read(
        &mut self,
        tf: &ast::TableFactor,
        (selection, projection): (Option<&ast::Expr>, &[ast::SelectItem]),
        as_bound: Option<BoundRead<'_>>,
        min_max: Option<&[crate::access::MinMaxCall]>,
        depth: usize,
    ) -> Result<()> {
        let mut depth = depth;
        let mut subs = Vec::new();
        if let Some(w) = selection {
            let (text, s) = self.show(w);
            self.line(depth, format!("Filter: {text}"));
            subs = s;
            depth += 1;
        }
        if let Some(p) = selection.and_then(|w| self.ex.pushed(tf, w)) {
            self.pushed(tf, p, depth)?;
            return self.list_subqueries(subs, depth);
        }
        let ast::TableFactor::Table { name, alias, .. } = tf else {
            self.relation(tf, depth)?;
            return self.list_subqueries(subs, depth);
        };
        let table = (!self.is_cte(name))
            .then(|| self.definition(name))
            .transpose()?
            .flatten()
            .filter(|t| t.schema.view.is_none());
        let Some(table) = table else {
            self.relation(tf, depth)?;
            return self.list_subqueries(subs, depth);
        };
        let label = match alias {
            Some(a) => format!("{name} AS {}", a.name),
            None => name.to_string(),
        };
        let scope = table_scope(&table, &crate::join::qualifier_of(name, alias.as_ref()));
        let (written, mut texts) = match selection {
            Some(w) => self.ex.written_preds(w, &scope, &table.schema, projection),
            None => (Preds::new(), BTreeMap::new()),
        };
        let preds = match &as_bound {
            Some(b) if b.as_run => {
                (b.cond).map_or_else(Preds::new, |c| plan::bound_preds(c, &table.schema))
            }
            _ => written,
        };
        let first_rows = as_bound.and_then(|b| b.first_rows);
        // conditions show their subqueries by the numbers the Filter line gave them
        for t in texts.values_mut().flatten() {
            for (n, q, _) in &subs {
                *t = t.replacen(&q.to_string(), &format!("subquery {n}"), 1);
            }
        }
        let used = |a: &IndexAccess, upto: usize| -> String {
            let spec = table.schema.indexes().nth(a.index);
            let cols = spec.map_or(&[][..], |s| &s.columns[..upto.min(s.columns.len())]);
            let parts: Vec<String> = cols
                .iter()
                .flat_map(|c| texts.get(c).cloned().unwrap_or_default())
                .collect();
            parts.join(" AND ")
        };
        let mut access = None;
        if let Some(calls) = min_max {
            let targets = crate::access::min_max_targets(calls, &scope);
            let walks: Option<Vec<String>> = targets.and_then(|ts| {
                ts.iter()
                    .zip(calls)
                    .map(|(&(c, max), (_, n, _))| {
                        plan::choose_min_max(&table.schema, &preds, c).map(|a| {
                            let conds = used(&a, a.eq_len + usize::from(a.range));
                            let skip = a.target.is_some_and(|t| t > a.eq_len);
                            format!(
                                "Index walk for {}({n}) on {label} via {}{}{}: the first row that passes the filter{}",
                                if max { "MAX" } else { "MIN" },
                                index_label(&table.schema, a.index),
                                if conds.is_empty() { "" } else { " within " },
                                conds,
                                if skip { ", per value of the column before it" } else { "" },
                            )
                        })
                    })
                    .collect()
            });
            access = walks;
        }
        match access {
            Some(walks) => {
                for w in walks {
                    self.line(depth, w);
                }
            }
            None => match plan::choose(&table.schema, &preds, &|| {
                plan::max_probes(self.rows_now(&table))
            }) {
                Some(a) => {
                    let spec_len = table
                        .schema
                        .indexes()
                        .nth(a.index)
                        .map_or(0, |s| s.columns.len());
                    let unique = table
                        .schema
                        .indexes()
                        .nth(a.index)
                        .is_some_and(|s| s.unique);
                    let kind = if unique && a.eq_len == spec_len {
                        "Unique index lookup"
                    } else {
                        "Index range scan"
                    };
                    let conds = used(&a, a.eq_len + usize::from(a.range));
                    // (a unique lookup of one value per column finds one row at most: nothing
                    // to cut; one of several values, an IN list, may find more)
                    let one_key = kind == "Unique index lookup"
                        && (table.schema.indexes().nth(a.index)).is_some_and(|spec| {
                            spec.columns.iter().all(|c| {
                                let points = preds.get(c).and_then(|p| p.points.as_ref());
                                points.is_some_and(|v| v.len() == 1)
                            })
                        });
                    let first = match first_rows.filter(|&n| !one_key || n == 0) {
                        None => String::new(),
                        Some(1) => "; the first row it finds kept".to_string(),
                        Some(n) => format!("; the first {n} rows it finds kept"),
                    };
                    self.line(
                        depth,
                        format!(
                            "{kind} of {label} via {}: {conds}{first}",
                            index_label(&table.schema, a.index)
                        ),
                    );
                }
                None => match first_rows {
                    Some(n) => self.line(
                        depth,
                        format!(
                            "Full scan of {label}, segment by segment, stopping after {n} row{}",
                            if n == 1 { "" } else { "s" }
                        ),
                    ),
                    None => self.line(depth, format!("Full scan of {label}")),
                },
            },
        }
        self.list_subqueries(subs, depth)
    }
}

impl Exec<'_> {
    /// The sargable conditions of a WHERE clause as written (values the executor only learns
    /// while running stand in as NULL; a name of a select-list alias in `projection` bound as
    /// the aliased expression, as the query binds WHERE), with each column's conditions as
    /// text.
    fn written_preds(
        &mut self,
        w: &ast::Expr,
        scope: &Scope,
        schema: &TableSchema,
        projection: &[ast::SelectItem],
    ) -> (Preds, BTreeMap<usize, Vec<String>>) {
        let mut preds = Preds::new();
        let mut texts: BTreeMap<usize, Vec<String>> = BTreeMap::new();
        let mut parts = Vec::new();
        crate::conjuncts::conjuncts(w, &mut parts);
        for p in &parts {
            let Some((col, pred)) = self.written_pred(p, scope, schema, projection) else {
                continue;
            };
            texts.entry(col).or_default().push(p.to_string());
            let e = preds.entry(col);
            if e.points.is_none() {
                e.points = pred.points;
            }
            e.lo = e.lo.take().or(pred.lo);
            e.hi = e.hi.take().or(pred.hi);
        }
        (preds, texts)
    }

    /// One conjunct as a condition on one column, if it is sargable.
    fn written_pred(
        &mut self,
        e: &ast::Expr,
        scope: &Scope,
        schema: &TableSchema,
        projection: &[ast::SelectItem],
    ) -> Option<(usize, ColumnPred)> {
        // without a subquery, binding runs nothing: the conjunct is then read as the executor
        // reads it (plan::bound_preds); with one, or naming an enclosing query's column (which
        // binds only while running), as written
        if !crate::correlate::has_subquery(e) {
            let bound =
                crate::names::resolving_aliases(e, projection, |e| self.bind_expr(e, scope, None));
            if let Ok(bound) = bound {
                return plan::bound_preds(&bound, schema).into_iter().next();
            }
        }
        // a value: a literal must convert exactly (as when executing); anything else that
        // does not read this table's row is known before the read
        let value = |ex: &mut Self, v: &ast::Expr, col: usize| -> Option<Value> {
            if names_scope(v, scope) {
                return None;
            }
            let literal = matches!(v, ast::Expr::Value(_))
                || matches!(v, ast::Expr::UnaryOp { expr, .. } if matches!(**expr, ast::Expr::Value(_)));
            // (as the executor, which evaluates a value that reads no row before the read:
            // not one that calls RANDOM)
            if !literal {
                return (!crate::pushdown::has_random(v)).then_some(Value::Null);
            }
            let c = schema.columns.get(col)?;
            let bound = ex.bind_expr(v, &Scope::default(), None).ok()?;
            let a = bound.eval(&crate::ops::single_row()).ok()?;
            plan::probe_value(&value_at(a.as_ref(), 0), c.ty, c.case_specific)
        };
        let ph = |v: Value| (v, true);
        match e {
            ast::Expr::BinaryOp { left, op, right } => {
                use ast::BinaryOperator::*;
                let (col, other, op) = match (column_of(left, scope), column_of(right, scope)) {
                    (Some(c), None) => (c, right, op.clone()),
                    (None, Some(c)) => (
                        c,
                        left,
                        match op {
                            Lt => Gt,
                            LtEq => GtEq,
                            Gt => Lt,
                            GtEq => LtEq,
                            o => o.clone(),
                        },
                    ),
                    _ => return None,
                };
                let v = value(self, other, col)?;
                let mut p = ColumnPred::default();
                match op {
                    Eq => p.points = Some(vec![v]),
                    Gt | GtEq => p.lo = Some(ph(v)),
                    Lt | LtEq => p.hi = Some(ph(v)),
                    _ => return None,
                }
                Some((col, p))
            }
            ast::Expr::IsNull(inner) => {
                let col = column_of(inner, scope)?;
                Some((
                    col,
                    ColumnPred {
                        points: Some(vec![Value::Null]),
                        ..Default::default()
                    },
                ))
            }
            ast::Expr::In {
                expr,
                target: ast::InTarget::List(list),
                negated: false,
                ..
            } => {
                let col = column_of(expr, scope)?;
                let points: Option<Vec<Value>> = list.iter().map(|v| value(self, v, col)).collect();
                Some((
                    col,
                    ColumnPred {
                        points: Some(points?),
                        ..Default::default()
                    },
                ))
            }
            // (a row value's: its first plain column, the one plan.rs probes)
            ast::Expr::In {
                expr,
                target: ast::InTarget::Subquery(_),
                negated: false,
                ..
            } => Some((
                match expr.as_ref() {
                    ast::Expr::Tuple(items) => items.iter().find_map(|x| column_of(x, scope))?,
                    one => column_of(one, scope)?,
                },
                ColumnPred {
                    points: Some(vec![Value::Null]),
                    ..Default::default()
                },
            )),
            ast::Expr::Between {
                expr,
                negated: false,
                low,
                high,
            } => {
                let col = column_of(expr, scope)?;
                Some((
                    col,
                    ColumnPred {
                        points: None,
                        lo: Some(ph(value(self, low, col)?)),
                        hi: Some(ph(value(self, high, col)?)),
                    },
                ))
            }
            _ => None,
        }
    }
}

impl Explainer<'_, '_> {
    /// What a consume does: the rows it pops, where it finds them, and how it waits.
    fn consume_line(&mut self, c: &tdlite_parser::Consume) -> Result<String> {
        let rows = match c.top {
            1 => "the first row".to_string(),
            // a selective walk lets other consumers in between its chunks
            n if c.filter.is_some() => format!("up to {n} rows"),
            n => format!("up to {n} rows, in one step,"),
        };
        let wait = match c.wait.map(|(w, _)| w) {
            None => "waits while the queue is empty, as the session's setting says".to_string(),
            Some(tdlite_parser::ConsumeWait::NoWait) => {
                "no rows if the queue is empty (NOWAIT)".to_string()
            }
            Some(tdlite_parser::ConsumeWait::Forever) => {
                "waits while the queue is empty (WAIT FOREVER)".to_string()
            }
            Some(tdlite_parser::ConsumeWait::For(d)) => format!(
                "waits at most {} s while the queue is empty",
                d.as_secs_f64()
            ),
        };
        let name = tdlite_parser::object_name_string(&c.table);
        let Some((cond, _)) = &c.filter else {
            return Ok(format!(
                "Consume from queue table {name}: pop {rows} in consume order (its CONSUME ORDER if declared, then the oldest QITS) from the queue index ({wait})"
            ));
        };
        let table = self.ex.base_table_definition(&c.table)?;
        let filter = self.ex.bind_consume_filter(&table, cond)?;
        let walk = match filter.index().and_then(|ix| table.schema.indexes().nth(ix)) {
            Some(spec) => {
                let cols: Vec<&str> = spec
                    .columns
                    .iter()
                    .map(|&i| table.schema.columns[i].name.as_str())
                    .collect();
                format!(
                    "the rows of one key of the index on ({}), in consume order, by way of that index",
                    cols.join(", ")
                )
            }
            None => "the queue index in consume order, testing each row".to_string(),
        };
        let mut wait = wait.replace("the queue is empty", "no row matches");
        if !matches!(c.wait, Some((tdlite_parser::ConsumeWait::NoWait, _))) {
            wait.push_str(", woken only by a committed row that matches");
        }
        Ok(format!(
            "Consume from queue table {name}: take {rows} for which {cond} is true, walking {walk}, skipping rows other transactions hold ({wait})"
        ))
    }
}
