//! EXPLAIN of a FROM of base tables and views (those a join binds from their recorded
//! columns: `Exec::binds_unread`) whose conditions have no subquery: the FROM is bound by
//! `Exec::bind_from`, the binding the query runs (WHERE through the select list's aliases, as
//! the query binds it), which for such a FROM reads no row and runs nothing; a name that does
//! not bind is the error the query would raise (3810, 3822, …), except in a subquery, where
//! it may be an enclosing query's column (the query binds it per outer row): that FROM is left
//! to joins.rs.
//! With inner joins only, the plan shown is `BoundFrom::plan` (bound_from.rs), the plan
//! `run_from` runs: the order, each step's hash keys, the conditions that filter a table
//! before its join, each table's access path. With an outer join (and no comma), the written
//! order, each step's ON conjuncts in the order `join_step::key_order` gives them, the hash
//! keys first, and WHERE as a filter above the join, as join.rs runs it.
//!
//! A view's step is "the relation below", over the plan of its query with what the run
//! pushes into it (`Exec::pushed_in_join`; nothing with an outer join). A view alone in FROM
//! is run as a join of one relation (query.rs `source`) and shown so: its one step, with no
//! join line (explain.rs leaves the other one-relation FROMs to its own reader).
//!
//! Left to joins.rs, which derives the plan from the text: a CTE, derived table, table
//! function or a view read while binding (their columns are known once read), a condition
//! with a subquery (binding
//! runs an uncorrelated one), a global temporary table this session has no instance of
//! (binding would make the instance), a comma beside an outer join, a WHERE whose alias
//! stands for several conjuncts.
//!
//! What only the run knows is shown as a choice: a step whose table has an index on its hash
//! keys may probe that index with the keys of the rows joined before it, when they are few
//! (join.rs decides from their number).

use super::Explainer;
use crate::bind::Scope;
use crate::bound_from::{relation_at, split_and, BoundFrom, FromPlan, FromRel};
use crate::error::{Error, Result};
use crate::expr::{BinOp, Expr, Func};
use crate::names::resolving_aliases;
use sqlparser::ast;
use std::collections::BTreeMap;
use tdlite_storage::table::Table;

/// The column (numbered over the FROM's scope) of relation `rel` in hash key `e` (`a = b`).
fn key_column(e: &Expr, rel: usize, starts: &[usize]) -> Option<usize> {
    match e {
        Expr::Binary(BinOp::Eq, a, b) => [&**a, &**b].into_iter().find_map(|x| match x {
            Expr::Column { index, .. } if relation_at(starts, *index) == rel => Some(*index),
            _ => None,
        }),
        _ => None,
    }
}

/// Whether WHERE `w` names a select-list alias whose expression holds a subquery (the
/// query binds WHERE with the alias's expression in its place: `names::resolving_aliases`).
fn names_a_subquery_alias(w: &ast::Expr, projection: &[ast::SelectItem]) -> bool {
    let aliases: Vec<&str> = (projection.iter())
        .filter_map(|i| match i {
            ast::SelectItem::ExprWithAlias { expr, alias }
                if crate::correlate::has_subquery(expr) =>
            {
                Some(alias.value.as_str())
            }
            _ => None,
        })
        .collect();
    !aliases.is_empty()
        && ast::visit_expressions(w, |x| match x {
            ast::Expr::Identifier(id)
                if aliases.iter().any(|a| a.eq_ignore_ascii_case(&id.value)) =>
            {
                std::ops::ControlFlow::Break(())
            }
            _ => std::ops::ControlFlow::Continue(()),
        })
        .is_break()
}

/// A FROM item's name as its columns are qualified in text: its alias, or its name without
/// the database part.
fn written_name(tf: &ast::TableFactor) -> String {
    match tf {
        ast::TableFactor::Table { alias: Some(a), .. } => a.name.value.clone(),
        ast::TableFactor::Table { name, .. } => super::joins::last_name(name),
        _ => String::new(),
    }
}

impl Explainer<'_, '_> {
    /// Explains `from` (under WHERE `selection`) through the planner that runs it, if it is
    /// such a FROM (see the module doc): true if it did.
    ///
    /// # Errors
    /// Binding errors (3807, 3810, 3822, 3868, …).
    pub(super) fn planned_joins(
        &mut self,
        from: &[ast::TableWithJoins],
        (selection, projection): (Option<&ast::Expr>, &[ast::SelectItem]),
        depth: usize,
    ) -> Result<bool> {
        let factors = super::factors(from);
        let inner_only = factors.iter().all(|(_, op)| super::inner(*op));
        if !inner_only && from.len() > 1 {
            // (the comma items of a FROM with an outer join are joined each on its own)
            return Ok(false);
        }
        let mut labels = Vec::with_capacity(factors.len());
        let mut names = Vec::with_capacity(factors.len());
        for (tf, _) in &factors {
            let Some((name, alias)) = crate::join::plain_table(tf) else {
                return Ok(false);
            };
            if self.is_cte(name) || self.ex.names_own_rows(tf) {
                return Ok(false);
            }
            match self.definition(name)? {
                Some(t) if t.schema.view.is_none() && !self.no_instance(&t) => {}
                // (a view the join binds from its recorded columns, read at its step)
                Some(t) if t.schema.view.is_some() && self.ex.binds_unread(&t) => {}
                _ => return Ok(false),
            }
            labels.push(match alias {
                Some(a) => format!("{name} AS {}", a.name),
                None => name.to_string(),
            });
            names.push(written_name(tf));
        }
        // the conditions as written: WHERE's conjuncts, and each step's ON conjuncts (a
        // USING's columns by name: their equalities are shown from the bound ones)
        let mut written: Vec<Written> = Vec::new();
        let mut parts = Vec::new();
        if let Some(w) = selection {
            crate::conjuncts::conjuncts(w, &mut parts);
            written.extend(parts.drain(..).map(|e| Written::Expr(Box::new(e))));
        }
        let mut on_written: Vec<Vec<Written>> = Vec::with_capacity(factors.len());
        for (_, op) in &factors {
            on_written.push(match op.and_then(crate::join::join_constraint) {
                Some(ast::JoinConstraint::On(e)) => {
                    crate::conjuncts::conjuncts(e, &mut parts);
                    parts
                        .drain(..)
                        .map(|e| Written::Expr(Box::new(e)))
                        .collect()
                }
                Some(ast::JoinConstraint::Using(cols)) => (cols.iter())
                    .map(|c| Written::Using(tdlite_parser::object_name_string(c)))
                    .collect(),
                _ => Vec::new(),
            });
        }
        let subquery = |w: &Written| match w {
            Written::Expr(e) => crate::correlate::has_subquery(e),
            Written::Using(_) => false,
        };
        if written
            .iter()
            .chain(on_written.iter().flatten())
            .any(subquery)
        {
            return Ok(false);
        }
        if inner_only {
            // in BoundFrom's order: WHERE's, then each ON's
            written.extend(on_written.drain(..).flatten());
        }
        if selection.is_some_and(|w| names_a_subquery_alias(w, projection)) {
            return Ok(false); // (binding would run the subquery)
        }
        // bound as the query binds it: WHERE may name the select list's aliases (the WHERE
        // bound, with them replaced, is what the run pushes into a view)
        let ex = &mut *self.ex;
        let mut resolved: Option<ast::Expr> = None;
        let bound = match selection {
            Some(w) => resolving_aliases(w, projection, |w| {
                resolved = Some(w.clone());
                ex.bind_from(from, Some(w))
            }),
            None => ex.bind_from(from, None),
        };
        let bound = match bound {
            // in a subquery, a name may be an enclosing query's column (correlated): the
            // executor binds it per outer row, EXPLAIN from the text (joins.rs)
            Err(Error::ColumnNotFound(n)) if self.nested > 0 && self.may_be_outer(&n) => {
                return Ok(false)
            }
            // a name that does not bind is the query's error (a view's missing table first,
            // as the query finds it: join.rs `joined_source`)
            Err(e @ (Error::ColumnNotFound(_) | Error::AmbiguousColumn(_))) => {
                return Err(self.ex.unread_views_missing(from).unwrap_or(e))
            }
            Err(e @ (Error::ObjectNotFound(_) | Error::DuplicateFromName(_))) => return Err(e),
            // any other (an alias standing for an aggregate, …): the query raises its own,
            // perhaps another, when it runs; shown from the text
            Err(_) => return Ok(false),
            Ok(b) => b,
        };
        if bound.conds.len() != written.len() {
            // (an alias that stands for several conjuncts: shown from the text)
            return Ok(false);
        }
        let text = |w: &Written, e: &Expr| match w {
            Written::Expr(x) => super::conjunct_text(x),
            Written::Using(name) => using_text(e, name, &bound, &names),
        };
        let texts: Vec<String> = (written.iter().zip(&bound.conds))
            .map(|(w, (e, ..))| text(w, e))
            .collect();
        if !inner_only {
            // each step's ON as join.rs runs it: its bound conjuncts, as written
            let mut steps = Vec::with_capacity(on_written.len());
            for (on, ws) in bound.ons.iter().zip(&on_written) {
                let mut parts = Vec::new();
                if let Some(e) = on {
                    split_and(e.clone(), &mut parts);
                }
                if parts.len() != ws.len() {
                    // (a conjunct bound as several: shown from the text)
                    return Ok(false);
                }
                let texts = ws.iter().zip(&parts).map(|(w, e)| text(w, e)).collect();
                steps.push((parts, texts));
            }
            self.print_outer((&bound, selection), &steps, &labels, &factors, depth)?;
            return Ok(true);
        }
        let plan = bound.plan();
        let tfs: Vec<&ast::TableFactor> = factors.iter().map(|(tf, _)| *tf).collect();
        let shown = Shown {
            written: &written,
            texts: &texts,
            labels: &labels,
            factors: &tfs,
            pushable: &crate::join::join_conds(from, resolved.as_ref()),
        };
        self.print_plan(&bound, &plan, &shown, depth)?;
        Ok(true)
    }

    /// The lines of a FROM with an outer join (`bound`, one relation per written step, each
    /// step's ON conjuncts bound and as text in `steps`): WHERE (`selection`) as a filter
    /// above the join,
    /// the written order, each step's hash keys and other conditions in the order join_step.rs
    /// runs them (`join_step::key_order`).
    fn print_outer(
        &mut self,
        (bound, selection): (&BoundFrom, Option<&ast::Expr>),
        steps: &[(Vec<Expr>, Vec<String>)],
        labels: &[String],
        factors: &[(&ast::TableFactor, Option<&ast::JoinOperator>)],
        mut depth: usize,
    ) -> Result<()> {
        if let Some(w) = selection {
            self.line(depth, format!("Filter: {w}"));
            depth += 1;
        }
        self.line(
            depth,
            "Join: in the written order (the FROM has an outer join)",
        );
        let mut left: Vec<arrow::datatypes::FieldRef> = Vec::new();
        for (n, ((parts, texts), label)) in steps.iter().zip(labels).enumerate() {
            let (t, view) = match &bound.rels[n] {
                FromRel::Table(t, _) | FromRel::Target(t, _) => (t, false),
                FromRel::View(t, _) => (t, true),
                FromRel::Rows(_) | FromRel::Derived(..) => continue,
            };
            let right = t.schema.arrow.clone();
            let ls = arrow::datatypes::Schema::new(left.clone());
            let (order, keys) = crate::join_step::key_order(parts, &ls, &right);
            let ordered: Vec<&str> = order.iter().map(|&i| texts[i].as_str()).collect();
            let (keys, rest) = ordered.split_at(keys);
            let kind = super::joins::kind_label(factors[n].1);
            let how = match (n, keys.is_empty()) {
                (0, _) => String::new(),
                (_, true) => format!("{kind}, nested loop, with "),
                (_, false) => format!("{kind}, hash on {}, with ", keys.join(" AND ")),
            };
            let read = match (n, view) {
                (0, false) => format!("Full scan of {label}"),
                (_, false) => format!("full scan of {label}"),
                (0, true) => "Read the relation below".to_string(),
                (_, true) => "the relation below".to_string(),
            };
            let then = match rest.is_empty() {
                true => String::new(),
                false => format!("; then {}", rest.join(" AND ")),
            };
            self.line(depth + 1, format!("Step {}: {how}{read}{then}", n + 1));
            if view {
                // (with an outer join nothing is pushed into a view: join.rs)
                self.relation(factors[n].0, depth + 2)?;
            }
            left.extend(right.fields().iter().cloned());
        }
        Ok(())
    }

    /// Whether `t` is a global temporary table this session has no instance of.
    pub(super) fn no_instance(&self, t: &Table) -> bool {
        t.schema.global_temporary.is_some()
            && self
                .ex
                .shared
                .storage
                .catalog
                .get_volatile(self.ex.session, &t.schema.name)
                .filter(|i| i.schema.volatile.and_then(|v| v.instance_of) == Some(t.id))
                .is_none()
    }

    /// The lines of `plan`, its conditions and tables as `shown`.
    fn print_plan(
        &mut self,
        bound: &BoundFrom,
        plan: &FromPlan,
        shown: &Shown,
        depth: usize,
    ) -> Result<()> {
        let texts = shown.texts;
        // (a view alone is read as a join of one relation: its one step, with no join line)
        let alone = bound.rels.len() == 1;
        if !alone {
            self.line(
                depth,
                "Join: inner joins in the order planned from estimated rows (the smallest filtered relation first, then the smallest connected one)",
            );
        }
        let step_depth = if alone { depth } else { depth + 1 };
        for (n, step) in plan.steps.iter().enumerate() {
            let r = step.rel;
            let t = match &bound.rels[r] {
                FromRel::Table(t, _) | FromRel::Target(t, _) => Some(t),
                FromRel::View(..) => None,
                FromRel::Rows(_) | FromRel::Derived(..) => continue,
            };
            let conds: Vec<&str> = step.conds.iter().map(|&i| texts[i].as_str()).collect();
            let (keys, rest) = conds.split_at(step.keys.min(conds.len()));
            let how = match (n, keys.is_empty()) {
                (0, _) => String::new(),
                (_, true) => "Nested-loop join with ".to_string(),
                (_, false) => format!("Hash join on {} with ", keys.join(" AND ")),
            };
            let read = match (t, n) {
                (Some(t), 0) => self.read_line(bound, plan, shown, r, t),
                (Some(t), _) => {
                    let read = self.read_line(bound, plan, shown, r, t);
                    read[..1].to_lowercase() + &read[1..]
                }
                (None, 0) => "Read the relation below".to_string(),
                (None, _) => "the relation below".to_string(),
            };
            // the probed table's columns of the step's keys (join.rs probes at a step after
            // the first, a table of at least 4 rows)
            let probe = match t.filter(|t| n > 0 && t.row_versions() >= 4) {
                Some(t) => {
                    let start = bound.starts[r];
                    let cols: Vec<usize> = (step.conds[..step.keys].iter())
                        .filter_map(|&i| key_column(&bound.conds[i].0, r, &bound.starts))
                        .map(|c| c - start)
                        .collect();
                    super::joins::probes(t, &cols, &plan.owns[r].1)
                }
                None => String::new(),
            };
            let pre = super::joins::own_filters(
                &step
                    .pre
                    .iter()
                    .map(|&i| texts[i].clone())
                    .collect::<Vec<_>>(),
                &step
                    .tries
                    .iter()
                    .map(|&i| texts[i].clone())
                    .collect::<Vec<_>>(),
            );
            let then = match rest.is_empty() {
                true => String::new(),
                false => format!("; then {}", rest.join(" AND ")),
            };
            let step_text = format!("{how}{read}{probe}{pre}{then}");
            self.line(
                step_depth,
                match alone {
                    true => step_text,
                    false => format!("Step {}: {step_text}", n + 1),
                },
            );
            if t.is_none() {
                // a view, made with what of the conditions can be pushed into it (join.rs)
                let tf = shown.factors[r];
                match (self.ex).pushed_in_join(tf, shown.factors, shown.pushable) {
                    Some(p) => self.pushed(tf, p, step_depth + 1)?,
                    None => self.relation(tf, step_depth + 1)?,
                }
            }
        }
        Ok(())
    }

    /// How relation `r` (table `t`) is read at its step: through the index `plan::choose`
    /// picks for its own conditions, or in full, with its estimated rows.
    fn read_line(
        &mut self,
        bound: &BoundFrom,
        plan: &FromPlan,
        shown: &Shown,
        r: usize,
        t: &Table,
    ) -> String {
        let label = &shown.labels[r];
        let est = plan.sizes[r].unwrap_or(0);
        let preds = &plan.owns[r].1;
        // the texts of its own conditions on the index's columns used
        let end = bound
            .starts
            .get(r + 1)
            .copied()
            .unwrap_or(bound.scope.columns.len());
        let scope = Scope {
            columns: bound.scope.columns[bound.starts[r]..end].to_vec(),
        };
        let mut by_column: BTreeMap<usize, Vec<String>> = BTreeMap::new();
        for (i, (_, rs, _)) in bound.conds.iter().enumerate() {
            if rs.as_slice() != [r] {
                continue;
            }
            let Some(Written::Expr(e)) = shown.written.get(i) else {
                continue;
            };
            let (_, cols) = self.ex.written_preds(e, &scope, &t.schema, &[]);
            for (c, tx) in cols {
                by_column.entry(c).or_default().extend(tx);
            }
        }
        super::joins::read_text((t, self.rows_now(t)), label, preds, &by_column, est)
    }
}

/// A condition of the FROM as written: a conjunct of WHERE or an ON, or a USING column's name.
enum Written {
    Expr(Box<ast::Expr>),
    Using(String),
}

/// What EXPLAIN shows for a FROM's conditions and tables: each condition as written and as
/// text (in BoundFrom's order), each table's label (its name, `AS` its alias).
struct Shown<'s> {
    written: &'s [Written],
    texts: &'s [String],
    labels: &'s [String],
    /// The FROM items, as written, and the conditions a view may take (`join::join_conds`).
    factors: &'s [&'s ast::TableFactor],
    pushable: &'s [ast::Expr],
}

/// USING column `name`'s bound equality as text: `l.name = r.name` with the relations' written
/// names (with several copies on the left, their first non-NULL copy, shown as the first).
fn using_text(e: &Expr, name: &str, bound: &BoundFrom, names: &[String]) -> String {
    let side = |x: &Expr| -> String {
        let x = match x {
            Expr::Func(Func::MergeKeys, args) => args.first().unwrap_or(x),
            other => other,
        };
        match x {
            Expr::Column { index, .. } => {
                let r = relation_at(&bound.starts, *index);
                match names.get(r).filter(|n| !n.is_empty()) {
                    Some(q) => format!("{q}.{name}"),
                    None => name.to_string(),
                }
            }
            _ => "?".to_string(),
        }
    };
    match e {
        Expr::Binary(BinOp::Eq, a, b) => format!("{} = {}", side(a), side(b)),
        _ => "?".to_string(),
    }
}
