//! EXPLAIN of a FROM clause of several relations that planned.rs does not take (a CTE,
//! derived table, table function or a view read while binding (`Exec::binds_unread`), a
//! condition with a subquery, a global temporary table
//! with no instance yet: binding such a FROM would read rows, run subqueries or make the
//! instance; a comma beside an outer join; a name of an enclosing query's column), derived
//! from its text, step by step as join.rs runs it: each step
//! with the relation it joins, how it is read, its own conditions that filter it before the
//! join ("filtered first by"), and the conditions that run on the pairs (the hash
//! keys first, as join_step.rs chooses them: hash_join::equi_keys). With inner
//! joins only, the plan is join_plan.rs's, made from the same sizes and conditions join.rs
//! gives it (estimated rows shown). With an outer join, the written order, every relation read
//! in full, each step's ON conditions at that step and WHERE as a filter above the join;
//! comma-separated items of such a FROM are joined each on its own, then multiplied.
//!
//! The conditions are WHERE's conjuncts, then each ON's (a USING as its equalities), in
//! written order. Each is bound as join.rs binds it (an ON over its comma item's relations up to its own,
//! WHERE over all; binding runs nothing without a subquery), which gives the relations it
//! names, whether it is a hash key (`join_plan::key_sides`, `is_hoistable`) and whether
//! it cannot fail (`join_plan::cannot_fail`). A condition that does not bind here is read as
//! written: one naming a view's, CTE's or derived table's column (their columns are known
//! only once they are read) gets its relations from its qualifiers (an unqualified name no
//! table has goes to those relations) and is a hash key where it leads (its table side can
//! still be probed), and it and one with a subquery are taken as ones that could fail. The
//! executor types them by the rows read and binds an uncorrelated subquery into its value,
//! so such a condition that cannot fail may run earlier than shown: a step earlier, or on
//! its relation's rows before the join where EXPLAIN shows it on the pairs, and where such an
//! ON condition is what connects its relation, the order may differ too (every result is the
//! same; which error a query with a failing condition raises may not be). The other way, such
//! a condition that could fail, written after a correlated conjunct, is set aside by the run
//! (join.rs `bind_or_defer`) and may run later than shown. A condition whose subquery names a
//! column of this FROM that the subquery's own FROM does not give is correlated: it runs after
//! the join, per joined row (correlate.rs), as the executor does when such a subquery fails
//! to bind alone.

use super::Explainer;
use crate::bind::{visit_own_level, Scope};
use crate::error::Result;
use crate::expr::{BinOp, Expr};
use crate::join_plan::{self, cannot_fail, is_hoistable, key_sides, table_estimate, Cond};
use crate::names::table_scope;
use crate::plan::{self, Preds};
use arrow::datatypes::DataType;
use sqlparser::ast;
use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::sync::Arc;
use tdlite_storage::table::Table;

/// The column of relation `rel` in hash key `e` (`a = b` bound over the base tables'
/// columns side by side, which `owner` gives the relation of), numbered over all of them.
fn bound_key_column(e: &Expr, rel: usize, owner: &[usize]) -> Option<usize> {
    match e {
        Expr::Binary(BinOp::Eq, a, b) => [&**a, &**b].into_iter().find_map(|x| match x {
            Expr::Column { index, .. } if owner.get(*index) == Some(&rel) => Some(*index),
            _ => None,
        }),
        _ => None,
    }
}

/// Why condition `w` runs after the join: a correlated subquery, or (without a subquery) it
/// could fail and is written after one; join.rs tries such a WHERE conjunct on its table's
/// rows first where it names one table (`BoundFrom::tries`).
fn later_label(w: &Written, rels: &[Relation]) -> &'static str {
    match crate::correlate::has_subquery(&w.expr) {
        true => "correlated",
        false if w.step.is_none() && relations_of(&w.expr, rels).len() == 1 => {
            "could fail, written after a correlated one; tried first on its table's rows"
        }
        false => "could fail, written after a correlated one",
    }
}

/// How a step filters its relation's own rows before the join: ", filtered first by …" for
/// its conditions `pre` that cannot fail, ", tried first by …" for the conjuncts `tries` that
/// wait for ones written before them (join_plan.rs `Step::tries`), or nothing.
pub(super) fn own_filters(pre: &[String], tries: &[String]) -> String {
    let mut out = String::new();
    if !pre.is_empty() {
        out += &format!(", filtered first by {}", pre.join(" AND "));
    }
    if !tries.is_empty() {
        out += &format!(
            ", tried first by {} (each runs after the join if it fails here)",
            tries.join(" AND ")
        );
    }
    out
}

/// The column of base table relation `r` that written hash key `e` (`a = b` that did not
/// bind here: its other side is a view's or derived table's column) names, if one side is a
/// name of `r`'s.
fn written_key_column(e: &ast::Expr, r: &Relation) -> Option<usize> {
    let (left, right) = eq_operands(e)?;
    let (_, scope, _) = r.table.as_ref()?;
    [left, right].into_iter().find_map(|x| {
        let (q, name) = match x {
            ast::Expr::Identifier(id) => (None, id),
            ast::Expr::CompoundIdentifier(ids) => match ids.as_slice() {
                [q, name] => (Some(q.value.as_str()), name),
                _ => return None,
            },
            _ => return None,
        };
        scope.resolve(q, &name.value).ok().flatten()
    })
}

/// What a step's read of table `t` (its own sargable conditions `own`) becomes when few rows
/// are joined before it: the index join.rs probes with their values of the hash keys on its
/// columns `cols`, as `join_plan::probe_index` chooses it; empty if none.
pub(super) fn probes(t: &Table, cols: &[usize], own: &Preds) -> String {
    let cols = join_plan::probe_columns(&t.schema, cols);
    match join_plan::probe_index(&t.schema, own, &cols) {
        Some(a) => format!(
            " (or, when the rows joined before it are at most {} and a quarter of its rows, \
             probes of {} with their keys)",
            join_plan::MAX_PROBE_ROWS,
            super::index_label(&t.schema, a.index)
        ),
        None => String::new(),
    }
}

/// How a join step reads table `t` of `versions` row versions (shown as `label`, an estimated
/// `est` rows): through the
/// index `plan::choose` picks for its own conditions' sargable part `preds` (with the texts of
/// those conditions on each column, `texts`), or in full.
pub(super) fn read_text(
    (t, versions): (&Table, usize),
    label: &str,
    preds: &Preds,
    texts: &BTreeMap<usize, Vec<String>>,
    est: u64,
) -> String {
    let rows = if est == 1 { "row" } else { "rows" };
    let Some(a) = plan::choose(&t.schema, preds, &|| plan::max_probes(versions)) else {
        return format!("Full scan of {label}, an estimated {est} {rows}");
    };
    let spec = t.schema.indexes().nth(a.index);
    let cols = spec.map_or(&[][..], |s| {
        &s.columns[..(a.eq_len + usize::from(a.range)).min(s.columns.len())]
    });
    let used: Vec<String> = cols
        .iter()
        .flat_map(|c| texts.get(c).cloned().unwrap_or_default())
        .collect();
    let unique = spec.is_some_and(|s| s.unique && s.columns.len() == a.eq_len);
    format!(
        "{} of {label} via {}: {}, an estimated {est} {rows}",
        if unique {
            "Unique index lookup"
        } else {
            "Index range scan"
        },
        super::index_label(&t.schema, a.index),
        used.join(" AND ")
    )
}

/// One relation of the FROM clause as EXPLAIN knows it.
struct Relation<'q> {
    factor: &'q ast::TableFactor,
    /// The qualifiers of its columns, upper-cased: its name or alias (for a join in
    /// parentheses, those of the relations in it).
    qualifiers: Vec<String>,
    /// Its name or alias as written (empty for a relation without a name).
    written: String,
    /// The names of its columns where EXPLAIN knows them without binding (a table's; a
    /// derived table's from its column list or select items), upper-cased.
    columns: Option<Vec<String>>,
    /// A table (not a view or CTE): it and the scope of its columns.
    table: Option<(Arc<Table>, Scope, String)>,
}

/// `USING (c)` at step `i` (of the comma item whose first step is `head`) as a condition, as
/// join.rs makes it: `l.c = r.c` with the one relation of its item before `i` that has a
/// column `c` (one whose columns EXPLAIN does not know is taken to have it); with several,
/// their first non-NULL copy is compared (never a hash key), shown with the first.
fn using_equality(c: &ast::ObjectName, (head, i): (usize, usize), rels: &[Relation]) -> Written {
    let name = tdlite_parser::object_name_string(c);
    let has = |r: &Relation| {
        r.columns
            .as_ref()
            .is_none_or(|cols| cols.contains(&name.to_uppercase()))
    };
    let before: Vec<usize> = (head..i).filter(|&j| has(&rels[j])).collect();
    let column = |r: &Relation| {
        let mut parts = Vec::new();
        if !r.written.is_empty() {
            parts.push(ast::Ident::new(r.written.clone()));
        }
        parts.push(ast::Ident::new(name.clone()));
        ast::Expr::CompoundIdentifier(parts)
    };
    let left = before.first().map_or_else(
        || ast::Expr::Identifier(ast::Ident::new(name.clone())),
        |&j| column(&rels[j]),
    );
    let mut named = before.clone();
    named.push(i);
    Written {
        expr: ast::Expr::BinaryOp {
            left: Box::new(left),
            op: ast::BinaryOperator::Eq,
            right: Box::new(column(&rels[i])),
        },
        step: Some(i),
        may_key: before.len() == 1,
        rels: Some(named),
    }
}

/// The output column names of a derived table, where its column list or its select items
/// (an alias, a column name) give them all.
fn derived_columns(subquery: &ast::Query, alias: Option<&ast::TableAlias>) -> Option<Vec<String>> {
    if let Some(a) = alias.filter(|a| !a.columns.is_empty()) {
        return Some(
            a.columns
                .iter()
                .map(|c| c.name.value.to_uppercase())
                .collect(),
        );
    }
    let ast::SetExpr::Select(s) = subquery.body.as_ref() else {
        return None;
    };
    s.projection
        .iter()
        .map(|item| match item {
            ast::SelectItem::ExprWithAlias { alias, .. } => Some(alias.value.to_uppercase()),
            ast::SelectItem::UnnamedExpr(ast::Expr::Identifier(i)) => Some(i.value.to_uppercase()),
            ast::SelectItem::UnnamedExpr(ast::Expr::CompoundIdentifier(v)) => {
                v.last().map(|i| i.value.to_uppercase())
            }
            _ => None,
        })
        .collect()
}

/// The qualifiers of the relations of a join in parentheses (its aliases or names).
fn nested_qualifiers(twj: &ast::TableWithJoins, out: &mut Vec<String>) {
    let mut factors = vec![&twj.relation];
    factors.extend(twj.joins.iter().map(|j| &j.relation));
    for tf in factors {
        match tf {
            ast::TableFactor::Table { name, alias, .. } => out.push(match alias {
                Some(a) => a.name.value.to_uppercase(),
                None => last_name(name).to_uppercase(),
            }),
            ast::TableFactor::Derived { alias: Some(a), .. } => {
                out.push(a.name.value.to_uppercase())
            }
            ast::TableFactor::NestedJoin {
                table_with_joins, ..
            } => nested_qualifiers(table_with_joins, out),
            _ => {}
        }
    }
}

/// The last part of a name (`t` of `db.t`).
pub(super) fn last_name(name: &ast::ObjectName) -> String {
    tdlite_parser::object_name_string(name)
        .rsplit('.')
        .next()
        .unwrap_or_default()
        .to_string()
}

/// The operands of `e` if it is `x = y` as written.
fn eq_operands(e: &ast::Expr) -> Option<(&ast::Expr, &ast::Expr)> {
    match e {
        ast::Expr::BinaryOp {
            left,
            op: ast::BinaryOperator::Eq,
            right,
        } => Some((left, right)),
        _ => None,
    }
}

/// The relation of each side of `e` if it is `column = column` as written (a condition
/// EXPLAIN cannot bind) of two relations of `rels`, taken as a key (`Cond::sides`).
fn plain_sides(e: &ast::Expr, rels: &[Relation]) -> Option<(Vec<usize>, Vec<usize>)> {
    let column = |x: &ast::Expr| {
        matches!(
            x,
            ast::Expr::Identifier(_) | ast::Expr::CompoundIdentifier(_)
        )
    };
    let (left, right) = eq_operands(e)?;
    if !column(left) || !column(right) {
        return None;
    }
    let (a, b) = (relations_of(left, rels), relations_of(right, rels));
    (a.len() == 1 && b.len() == 1 && a != b).then_some((a, b))
}

/// The relations (positions) whose columns `e` names (see the module doc).
fn relations_of(e: &ast::Expr, rels: &[Relation]) -> Vec<usize> {
    let mut found = Vec::new();
    let _ = visit_own_level(e, |x| {
        let (qualifier, name) = match x {
            ast::Expr::Identifier(i) => (None, &i.value),
            ast::Expr::CompoundIdentifier(v) if v.len() >= 2 => (
                Some(v[v.len() - 2].value.to_uppercase()),
                &v[v.len() - 1].value,
            ),
            _ => return ControlFlow::Continue(()),
        };
        let tables: Vec<usize> = rels
            .iter()
            .enumerate()
            .filter(|(_, r)| {
                r.table.as_ref().is_some_and(|(_, scope, _)| {
                    scope
                        .resolve(qualifier.as_deref(), name)
                        .ok()
                        .flatten()
                        .is_some()
                })
            })
            .map(|(i, _)| i)
            .collect();
        if !tables.is_empty() {
            found.extend(tables);
        } else {
            found.extend(
                rels.iter()
                    .enumerate()
                    .filter(|(_, r)| {
                        r.table.is_none()
                            && qualifier.as_ref().is_none_or(|q| r.qualifiers.contains(q))
                    })
                    .map(|(i, _)| i),
            );
        }
        ControlFlow::Continue(())
    });
    found.sort_unstable();
    found.dedup();
    found
}

/// How an outer FROM's step joins its relation.
pub(super) fn kind_label(op: Option<&ast::JoinOperator>) -> &'static str {
    use ast::JoinOperator::*;
    match op {
        Some(Left(_) | LeftOuter(_)) => "Left outer join",
        Some(Right(_) | RightOuter(_)) => "Right outer join",
        Some(FullOuter(_)) => "Full outer join",
        _ => "Inner join",
    }
}

/// A condition of the FROM clause: its text, the step whose ON (or USING) it comes from (none
/// for WHERE), and whether it may be a hash key (a USING column several relations before it
/// share is their first non-NULL copy, never a key).
struct Written {
    expr: ast::Expr,
    step: Option<usize>,
    may_key: bool,
    /// The relations it names, where its text does not say (a USING of several).
    rels: Option<Vec<usize>>,
}

impl Explainer<'_, '_> {
    /// A FROM clause of several relations under WHERE `selection` (of a block with select
    /// list `projection`, whose aliases WHERE may name).
    pub(super) fn joins(
        &mut self,
        from: &[ast::TableWithJoins],
        (selection, projection): (Option<&ast::Expr>, &[ast::SelectItem]),
        depth: usize,
    ) -> Result<()> {
        if self.planned_joins(from, (selection, projection), depth)? {
            return Ok(());
        }
        let factors = super::factors(from);
        let inner_only = factors.iter().all(|(_, op)| super::inner(*op));
        let mut depth = depth;
        if !inner_only {
            // with an outer join, WHERE filters the joined rows
            if let Some(w) = selection {
                let (text, subs) = self.show(w);
                self.line(depth, format!("Filter: {text}"));
                self.list_subqueries(subs, depth + 1)?;
                depth += 1;
            }
            if from.len() > 1 {
                self.line(
                    depth,
                    "Product of the comma-separated items, each joined on its own, in the written order",
                );
                for twj in from {
                    match twj.joins.is_empty() {
                        true => self.relation(&twj.relation, depth + 1)?,
                        false => self.joins(std::slice::from_ref(twj), (None, &[]), depth + 1)?,
                    }
                }
                return Ok(());
            }
        }
        let mut rels = Vec::with_capacity(factors.len());
        for (tf, _) in &factors {
            rels.push(self.relation_of(tf)?);
        }
        let mut written = Vec::new();
        if let (Some(w), true) = (selection, inner_only) {
            let mut parts = Vec::new();
            crate::conjuncts::conjuncts(w, &mut parts);
            written.extend(parts.into_iter().map(|expr| Written {
                expr,
                step: None,
                may_key: true,
                rels: None,
            }));
        }
        // the first step of each step's comma item: an ON or USING sees its item's relations
        // only (join.rs `bind_from_with`)
        let mut head = 0;
        let heads: Vec<usize> = (factors.iter().enumerate())
            .map(|(i, (_, op))| {
                if op.is_none() {
                    head = i;
                }
                head
            })
            .collect();
        for (i, (_, op)) in factors.iter().enumerate() {
            match op.and_then(crate::join::join_constraint) {
                Some(ast::JoinConstraint::On(e)) => {
                    let mut parts = Vec::new();
                    crate::conjuncts::conjuncts(e, &mut parts);
                    written.extend(parts.into_iter().map(|expr| Written {
                        expr,
                        step: Some(i),
                        may_key: true,
                        rels: None,
                    }));
                }
                Some(ast::JoinConstraint::Using(cols)) => {
                    for c in cols {
                        written.push(using_equality(c, (heads[i], i), &rels));
                    }
                }
                _ => {}
            }
        }
        // the tables' columns side by side, with their types and relations, to bind
        // conditions over: an ON over its comma item's relations up to its own (as join.rs
        // binds it), WHERE over all
        let mut all = Scope::default();
        let mut types: Vec<DataType> = Vec::new();
        let mut owner: Vec<usize> = Vec::new();
        for (i, r) in rels.iter().enumerate() {
            if let Some((t, scope, _)) = &r.table {
                all.columns.extend(scope.columns.iter().cloned());
                types.extend(
                    t.schema
                        .arrow
                        .fields()
                        .iter()
                        .map(|f| f.data_type().clone()),
                );
                owner.extend(std::iter::repeat_n(i, scope.columns.len()));
            }
        }
        let ty = |i: usize| types.get(i).cloned();
        // the scope a condition of clause `step` binds over (WHERE's is `None`)
        let clause_scope = |step: Option<usize>| {
            let (first, width) = match step {
                Some(i) => (heads[i], owner.partition_point(|&o| o <= i)),
                None => (0, owner.len()),
            };
            let mut columns = all.columns[..width].to_vec();
            for (c, &o) in columns.iter_mut().zip(&owner) {
                if o < first {
                    *c = crate::bind::ScopeColumn::unnamed();
                }
            }
            Scope { columns }
        };
        // the correlated conditions run after the join (an outer join's ON ones on its pairs),
        // and so does one that could fail written after one of those in its clause (join.rs
        // `bind_or_defer`; binding runs nothing without a subquery)
        let mut later: Vec<Written> = Vec::new();
        let mut kept = Vec::new();
        for w in written {
            let after = later.iter().any(|l| l.step == w.step);
            let goes_later = match self.correlated(&w.expr, &rels)? {
                true => true,
                false if after && !crate::correlate::has_subquery(&w.expr) => {
                    (self.ex.bind_expr(&w.expr, &clause_scope(w.step), None))
                        .is_ok_and(|b| !cannot_fail(&b, &ty))
                }
                false => false,
            };
            match goes_later {
                true => later.push(w),
                false => kept.push(w),
            }
        }
        let written = kept;
        let mut planned = Vec::with_capacity(written.len());
        // each condition as bound (over `all`), if it binds here
        let mut bounds: Vec<Option<Expr>> = Vec::with_capacity(written.len());
        for w in &written {
            // binding runs nothing without a subquery; a condition naming a view, CTE or
            // derived table does not bind here (their columns are known once they are read)
            let scope = clause_scope(w.step);
            let bound = match crate::correlate::has_subquery(&w.expr) {
                false => self.ex.bind_expr(&w.expr, &scope, None).ok(),
                true => None,
            };
            let rs = match (&w.rels, &bound) {
                (Some(rs), _) => rs.clone(),
                (None, Some(b)) => {
                    let mut cols = Vec::new();
                    b.columns_used(&mut cols);
                    let mut rs: Vec<usize> = cols.into_iter().map(|c| owner[c]).collect();
                    rs.sort_unstable();
                    rs.dedup();
                    rs
                }
                (None, None) => relations_of(&w.expr, &rels),
            };
            let (sides, hoist, safe) = match &bound {
                Some(b) => (
                    key_sides(b, &ty, &|c| owner.get(c).copied().unwrap_or(usize::MAX)),
                    is_hoistable(b, &ty),
                    cannot_fail(b, &ty),
                ),
                None => (plain_sides(&w.expr, &rels), false, false),
            };
            bounds.push(bound);
            planned.push(Cond {
                sides: sides.filter(|_| w.may_key),
                hoist: w.may_key && hoist && rs.len() == 2,
                safe,
                waits: Vec::new(),
                rels: rs,
                on: w.step.is_some(),
            });
        }
        join_plan::set_waits(&mut planned, &|i| written[i].step);
        let mut own_preds = vec![Preds::new(); rels.len()];
        let (steps, reads) = match inner_only {
            true => {
                let (sizes, reads, preds) = self.estimates(&rels, &written, &planned);
                own_preds = preds;
                (join_plan::plan(&sizes, &planned), reads)
            }
            false => {
                // the written order; each step's ON conditions, the hash keys first
                let steps = (0..rels.len())
                    .map(|i| {
                        let mine = (0..written.len()).filter(|&c| written[c].step == Some(i));
                        let is_key = |c: usize| {
                            planned[c].key_at(i) && planned[c].rels.iter().all(|&r| r <= i)
                        };
                        // as join_step.rs orders them: keys that cannot fail first, then the
                        // rest as written; with none of those, the first of the rest if a key
                        let (mut keys, rest): (Vec<usize>, Vec<usize>) =
                            mine.partition(|&c| is_key(c) && planned[c].hoist);
                        let n = match keys.len() {
                            0 => usize::from(rest.first().is_some_and(|&c| is_key(c))),
                            n => n,
                        };
                        keys.extend(rest);
                        join_plan::Step {
                            rel: i,
                            pre: Vec::new(),
                            tries: Vec::new(),
                            keys: n,
                            conds: keys,
                        }
                    })
                    .collect();
                let reads = rels
                    .iter()
                    .map(|r| match &r.table {
                        Some((_, _, label)) => format!("Full scan of {label}"),
                        None => String::new(),
                    })
                    .collect();
                (steps, reads)
            }
        };
        self.line(
            depth,
            match inner_only {
                true => "Join: inner joins in the order planned from estimated rows (the smallest filtered relation first, then the smallest connected one)",
                false => "Join: in the written order (the FROM has an outer join)",
            },
        );
        for (n, step) in steps.iter().enumerate() {
            let texts: Vec<String> = step
                .conds
                .iter()
                .map(|&i| super::conjunct_text(&written[i].expr))
                .collect();
            let (keys, rest) = texts.split_at(step.keys);
            let kind = match inner_only {
                true => "",
                false => kind_label(factors[step.rel].1),
            };
            let how = match (n, keys.is_empty(), inner_only) {
                (0, ..) => String::new(),
                (_, true, true) => "Nested-loop join with ".to_string(),
                (_, false, true) => format!("Hash join on {} with ", keys.join(" AND ")),
                (_, true, false) => format!("{kind}, nested loop, with "),
                (_, false, false) => format!("{kind}, hash on {}, with ", keys.join(" AND ")),
            };
            let text = |i: &usize| super::conjunct_text(&written[*i].expr);
            let pre = own_filters(
                &step.pre.iter().map(text).collect::<Vec<_>>(),
                &step.tries.iter().map(text).collect::<Vec<_>>(),
            );
            let then = match rest.is_empty() {
                true => String::new(),
                false => format!("; then {}", rest.join(" AND ")),
            };
            let r = &rels[step.rel];
            if let Some((t, ..)) = &r.table {
                let read = &reads[step.rel];
                let read = match n {
                    0 => read.clone(),
                    _ => read[..1].to_lowercase() + &read[1..],
                };
                // the probed table's columns of the step's keys, bound or as written
                let start = owner.iter().position(|&o| o == step.rel).unwrap_or(0);
                let cols: Vec<usize> = step.conds[..step.keys]
                    .iter()
                    .filter_map(|&i| match &bounds[i] {
                        Some(e) => bound_key_column(e, step.rel, &owner).map(|c| c - start),
                        None => written_key_column(&written[i].expr, r),
                    })
                    .collect();
                // (join.rs probes at an inner join's step, a table of at least 4 rows)
                let probe = match n > 0 && inner_only && self.rows_now(t) >= 4 {
                    true => probes(t, &cols, &own_preds[step.rel]),
                    false => String::new(),
                };
                self.line(
                    depth + 1,
                    format!("Step {}: {how}{read}{probe}{pre}{then}", n + 1),
                );
            } else {
                let what = match n {
                    0 => "Read the relation below",
                    _ => "the relation below",
                };
                self.line(depth + 1, format!("Step {}: {how}{what}{pre}{then}", n + 1));
                // (a view takes the conditions that name it alone and cannot fail: join.rs)
                let conds = match inner_only {
                    true => crate::join::join_conds(from, selection),
                    false => Vec::new(),
                };
                let all: Vec<&ast::TableFactor> = factors.iter().map(|(tf, _)| *tf).collect();
                match self.ex.pushed_in_join(r.factor, &all, &conds) {
                    Some(p) => self.pushed(r.factor, p, depth + 2)?,
                    None => self.relation(r.factor, depth + 2)?,
                }
            }
            for w in later
                .iter()
                .filter(|w| !inner_only && w.step == Some(step.rel))
            {
                let (text, subs) = self.show(&w.expr);
                let what = later_label(w, &rels);
                self.line(depth + 2, format!("Then on each pair ({what}): {text}"));
                self.condition_subqueries(subs, depth + 3, w.step, (&rels, &heads))?;
            }
        }
        for w in later.iter().filter(|w| inner_only || w.step.is_none()) {
            let (text, subs) = self.show(&w.expr);
            let what = later_label(w, &rels);
            self.line(
                depth + 1,
                format!("After the join, per joined row ({what}): {text}"),
            );
            self.condition_subqueries(subs, depth + 2, w.step, (&rels, &heads))?;
        }
        Ok(())
    }

    /// The subqueries `subs` of a condition of the FROM (the ON of step `step`, or WHERE for
    /// `None`), explained over the relations the query binds it over: an ON's over those of
    /// its comma item (each step's first in `heads`) up to its step (the later ones are not
    /// joined yet), as one row of NULLs of them where
    /// EXPLAIN knows all their columns (else a name one of them may have ends the check);
    /// WHERE's over the block's whole FROM.
    fn condition_subqueries(
        &mut self,
        subs: Vec<(usize, ast::Query, &'static str)>,
        depth: usize,
        step: Option<usize>,
        (rels, heads): (&[Relation], &[usize]),
    ) -> Result<()> {
        let (Some(i), Some(block)) = (step, self.outer.len().checked_sub(1)) else {
            return self.list_subqueries(subs, depth);
        };
        let first = heads.get(i).copied().unwrap_or(0);
        let tables = rels.iter().take(i + 1).skip(first).map(|r| {
            (r.table.as_ref()).map(|(t, scope, _)| (scope.clone(), t.schema.arrow.clone()))
        });
        let up_to = super::one_row(tables);
        let whole = std::mem::replace(&mut self.outer[block], up_to);
        let explained = self.list_subqueries(subs, depth);
        self.outer[block] = whole;
        explained
    }

    /// Each relation's estimated rows as join.rs estimates them (a table by its row count and
    /// its own conditions, anything else unknown) and, for a table, its read line.
    fn estimates(
        &mut self,
        rels: &[Relation],
        written: &[Written],
        planned: &[Cond],
    ) -> (Vec<Option<u64>>, Vec<String>, Vec<Preds>) {
        let mut sizes = vec![None; rels.len()];
        let mut reads = vec![String::new(); rels.len()];
        let mut all_preds = vec![Preds::new(); rels.len()];
        for (i, r) in rels.iter().enumerate() {
            let Some((t, scope, label)) = &r.table else {
                continue;
            };
            let own: Vec<&ast::Expr> = written
                .iter()
                .zip(planned)
                .filter(|(_, c)| c.rels == [i])
                .map(|(w, _)| &w.expr)
                .collect();
            let mut preds = Preds::new();
            let mut texts: BTreeMap<usize, Vec<String>> = BTreeMap::new();
            for c in &own {
                let (p, tx) = self.ex.written_preds(c, scope, &t.schema, &[]);
                for (col, pred) in p {
                    let e = preds.entry(col);
                    if e.points.is_none() {
                        e.points = pred.points;
                    }
                    e.lo = e.lo.take().or(pred.lo);
                    e.hi = e.hi.take().or(pred.hi);
                }
                for (col, t) in tx {
                    texts.entry(col).or_default().extend(t);
                }
            }
            // as join.rs reads them: bound as one AND, in this order (binding runs nothing
            // without a subquery)
            if !own.iter().any(|c| crate::correlate::has_subquery(c)) {
                let bound: Option<Vec<Expr>> = own
                    .iter()
                    .map(|c| self.ex.bind_expr(c, scope, None).ok())
                    .collect();
                if let Some(e) = bound.and_then(|v| {
                    v.into_iter()
                        .reduce(|a, b| Expr::Binary(BinOp::And, Box::new(a), Box::new(b)))
                }) {
                    preds = plan::bound_preds(&e, &t.schema);
                }
            }
            let est = table_estimate(self.rows_now(t), &t.schema, &preds, own.len());
            sizes[i] = Some(est);
            reads[i] = read_text((t, self.rows_now(t)), label, &preds, &texts, est);
            all_preds[i] = preds;
        }
        (sizes, reads, all_preds)
    }

    /// The row versions a read of `t` meets: for a global temporary table, this session's
    /// instance's (none if it has none yet; EXPLAIN makes no instance).
    pub(super) fn rows_now(&self, t: &Table) -> usize {
        if t.schema.global_temporary.is_none() {
            return t.row_versions();
        }
        let catalog = &self.ex.shared.storage.catalog;
        catalog
            .get_volatile(self.ex.session, &t.schema.name)
            .filter(|i| i.schema.volatile.and_then(|v| v.instance_of) == Some(t.id))
            .map_or(0, |i| i.row_versions())
    }

    /// The relation `tf` of a join.
    fn relation_of<'q>(&mut self, tf: &'q ast::TableFactor) -> Result<Relation<'q>> {
        Ok(match tf {
            ast::TableFactor::Table { name, alias, .. } => {
                let q = crate::join::qualifier_of(name, alias.as_ref());
                let table = match self.is_cte(name) {
                    true => None,
                    false => self.definition(name)?.and_then(|t| {
                        (t.schema.view.is_none()).then(|| {
                            let label = match alias {
                                Some(a) => format!("{name} AS {}", a.name),
                                None => name.to_string(),
                            };
                            (t.clone(), table_scope(&t, &q), label)
                        })
                    }),
                };
                let written = match alias {
                    Some(a) => a.name.value.clone(),
                    None => last_name(name),
                };
                let columns = table.as_ref().map(|(t, ..)| {
                    t.schema
                        .columns
                        .iter()
                        .map(|c| c.name.to_uppercase())
                        .collect()
                });
                Relation {
                    factor: tf,
                    qualifiers: vec![written.to_uppercase()],
                    written,
                    columns,
                    table,
                }
            }
            ast::TableFactor::Derived {
                subquery, alias, ..
            } => {
                let written = alias
                    .as_ref()
                    .map(|a| a.name.value.clone())
                    .unwrap_or_default();
                Relation {
                    factor: tf,
                    qualifiers: vec![written.to_uppercase()],
                    written,
                    columns: derived_columns(subquery, alias.as_ref()),
                    table: None,
                }
            }
            ast::TableFactor::NestedJoin {
                table_with_joins, ..
            } => {
                let mut qualifiers = Vec::new();
                nested_qualifiers(table_with_joins, &mut qualifiers);
                Relation {
                    factor: tf,
                    qualifiers,
                    written: String::new(),
                    columns: None,
                    table: None,
                }
            }
            _ => Relation {
                factor: tf,
                qualifiers: Vec::new(),
                written: String::new(),
                columns: None,
                table: None,
            },
        })
    }

    /// True if a subquery of `e` names a column of this FROM's relations `rels` that its own
    /// FROM does not give: a name qualified by one of their qualifiers that no relation of
    /// the subquery is known by (its alias, or its name without one), or an unqualified name
    /// no table of the subquery has and a table of `rels` has.
    fn correlated(&mut self, e: &ast::Expr, rels: &[Relation]) -> Result<bool> {
        for (q, _) in super::subqueries(e) {
            let mut own = Vec::new();
            let mut tables = Vec::new();
            let _ = ast::visit_relations(&q, |name| {
                tables.push(name.clone());
                ControlFlow::<()>::Continue(())
            });
            let mut known = true;
            let mut scopes = Vec::new();
            for name in &tables {
                match self.ex.table_definition(name) {
                    Ok(t) if t.schema.view.is_none() => {
                        scopes.push(table_scope(&t, &last_name(name)));
                    }
                    _ => known = false,
                }
            }
            collect_aliases(&q, &mut own);
            let outer_table = |qualifier: Option<&str>, name: &str| {
                rels.iter().any(|r| {
                    r.table.as_ref().is_some_and(|(_, scope, _)| {
                        scope.resolve(qualifier, name).ok().flatten().is_some()
                    })
                })
            };
            let found = ast::visit_expressions(&q, |x| {
                let hit = match x {
                    ast::Expr::CompoundIdentifier(v) if v.len() >= 2 => {
                        let qualifier = v[v.len() - 2].value.to_uppercase();
                        !own.contains(&qualifier)
                            && rels.iter().any(|r| r.qualifiers.contains(&qualifier))
                    }
                    ast::Expr::Identifier(i) => {
                        known
                            && !scopes
                                .iter()
                                .any(|s| s.resolve(None, &i.value).ok().flatten().is_some())
                            && outer_table(None, &i.value)
                    }
                    _ => false,
                };
                match hit {
                    true => ControlFlow::Break(()),
                    false => ControlFlow::Continue(()),
                }
            });
            if found.is_break() {
                return Ok(true);
            }
        }
        Ok(false)
    }
}

/// The names the relations of query `q`'s FROM clauses are known by (aliases, or names
/// without one), upper-cased.
fn collect_aliases(q: &ast::Query, out: &mut Vec<String>) {
    struct Aliases<'o>(&'o mut Vec<String>);
    impl ast::Visitor for Aliases<'_> {
        type Break = ();
        fn pre_visit_table_factor(&mut self, tf: &ast::TableFactor) -> ControlFlow<()> {
            match tf {
                ast::TableFactor::Table { name, alias, .. } => self.0.push(match alias {
                    Some(a) => a.name.value.to_uppercase(),
                    None => last_name(name).to_uppercase(),
                }),
                ast::TableFactor::Derived { alias: Some(a), .. } => {
                    self.0.push(a.name.value.to_uppercase())
                }
                _ => {}
            }
            ControlFlow::Continue(())
        }
    }
    let _ = ast::Visit::visit(q, &mut Aliases(out));
}
