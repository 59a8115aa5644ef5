//! EXPLAIN of a FROM clause of several relations. With inner joins only, the plan that runs:
//! join_plan.rs plans it from the same sizes and conditions join.rs gives it, and each step is
//! shown with the relation it joins, how it is read, its estimated rows, and the conditions
//! that run there (the hash keys first). With an outer join, the written order.
//!
//! The conditions are WHERE's conjuncts, then each ON's, in written order, each with the
//! relations it names: a table's by its columns; a view's, CTE's or derived table's by its
//! name qualifying a column, or by an unqualified name no table has. A condition whose subquery
//! names a relation of this FROM that the subquery does not read itself is correlated: it runs
//! after the join, per joined row (correlate.rs), as the executor does when such a subquery
//! fails to bind alone. Whether a column equality is a hash key is decided by binding it (it
//! must compare the columns without a conversion); an equality with a view's, CTE's or derived
//! table's column is taken as one.

use super::Explainer;
use crate::bind::{visit_own_level, Scope};
use crate::error::Result;
use crate::join_plan::{self, is_column_equality, table_estimate, Cond};
use crate::names::table_scope;
use crate::plan::{self, Preds};
use sqlparser::ast;
use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::sync::Arc;
use tdlite_storage::table::Table;

/// One relation of the FROM clause as EXPLAIN knows it.
struct Relation<'q> {
    factor: &'q ast::TableFactor,
    /// Its name or alias as a column's qualifier, upper-cased.
    qualifier: String,
    /// A table (not a view or CTE): it and the scope of its columns.
    table: Option<(Arc<Table>, Scope, String)>,
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
                        r.table.is_none() && qualifier.as_ref().is_none_or(|q| *q == r.qualifier)
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

/// True if a subquery of `e` names one of `qualifiers` that its own FROM does not read.
fn correlated(e: &ast::Expr, qualifiers: &[String]) -> bool {
    super::subqueries(e).iter().any(|(q, _)| {
        let mut own = Vec::new();
        let _ = ast::visit_relations(q, |r| {
            if let Some(ast::ObjectNamePart::Identifier(i)) = r.0.last() {
                own.push(i.value.to_uppercase());
            }
            ControlFlow::<()>::Continue(())
        });
        ast::visit_expressions(q, |x| match x {
            ast::Expr::CompoundIdentifier(v) if v.len() >= 2 => {
                let q = v[v.len() - 2].value.to_uppercase();
                match qualifiers.contains(&q) && !own.contains(&q) {
                    true => ControlFlow::Break(()),
                    false => ControlFlow::Continue(()),
                }
            }
            _ => ControlFlow::Continue(()),
        })
        .is_break()
    })
}

impl Explainer<'_, '_> {
    /// A FROM clause of several relations under WHERE `selection`.
    pub(super) fn joins(
        &mut self,
        from: &[ast::TableWithJoins],
        selection: Option<&ast::Expr>,
        depth: usize,
    ) -> Result<()> {
        let factors = super::factors(from);
        let inner_only = factors.iter().all(|(_, op)| super::inner(*op));
        let using = factors.iter().any(|(_, op)| {
            matches!(
                op,
                Some(
                    ast::JoinOperator::Join(ast::JoinConstraint::Using(_))
                        | ast::JoinOperator::Inner(ast::JoinConstraint::Using(_))
                )
            )
        });
        if !inner_only || using {
            let mut d = depth;
            if let Some(w) = selection {
                let (text, subs) = self.show(w);
                self.line(d, format!("Filter: {text}"));
                self.list_subqueries(subs, d + 1)?;
                d += 1;
            }
            return self.join(from, selection, d);
        }
        let mut rels = Vec::with_capacity(factors.len());
        for (tf, _) in &factors {
            rels.push(self.relation_of(tf)?);
        }
        // WHERE's conjuncts, then each ON's; the correlated ones run after the join
        let mut conds: Vec<(ast::Expr, bool)> = Vec::new();
        if let Some(w) = selection {
            let mut parts = Vec::new();
            crate::conjuncts::conjuncts(w, &mut parts);
            conds.extend(parts.into_iter().map(|p| (p, false)));
        }
        for (_, op) in &factors {
            if let Some(
                ast::JoinOperator::Join(ast::JoinConstraint::On(e))
                | ast::JoinOperator::Inner(ast::JoinConstraint::On(e)),
            ) = op
            {
                let mut parts = Vec::new();
                crate::conjuncts::conjuncts(e, &mut parts);
                conds.extend(parts.into_iter().map(|p| (p, true)));
            }
        }
        let qualifiers: Vec<String> = rels.iter().map(|r| r.qualifier.clone()).collect();
        let (after, conds): (Vec<_>, Vec<_>) = conds
            .into_iter()
            .partition(|(e, _)| correlated(e, &qualifiers));
        // the tables' columns side by side, to bind equalities over
        let mut all = Scope::default();
        for r in &rels {
            if let Some((_, scope, _)) = &r.table {
                all.columns.extend(scope.columns.iter().cloned());
            }
        }
        let mut planned = Vec::with_capacity(conds.len());
        for (e, on) in &conds {
            let rs = relations_of(e, &rels);
            planned.push(Cond {
                equality: rs.len() == 2 && self.is_key_equality(e, &rs, &rels, &all),
                rels: rs,
                on: *on,
            });
        }
        // sizes as join.rs estimates them: a table by its own conditions
        let mut sizes = vec![None; rels.len()];
        let mut reads = vec![String::new(); rels.len()];
        for (i, r) in rels.iter().enumerate() {
            let Some((t, scope, label)) = &r.table else {
                continue;
            };
            let own: Vec<&ast::Expr> = conds
                .iter()
                .zip(&planned)
                .filter(|(_, c)| c.rels == [i])
                .map(|((e, _), _)| e)
                .collect();
            let mut preds = Preds::new();
            let mut texts: BTreeMap<usize, Vec<String>> = BTreeMap::new();
            for c in &own {
                let (p, tx) = self.ex.written_preds(c, scope, &t.schema);
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
            let est = table_estimate(t.row_versions(), &t.schema, &preds, own.len());
            sizes[i] = Some(est);
            let rows = if est == 1 { "row" } else { "rows" };
            reads[i] = match plan::choose(&t.schema, &preds) {
                Some(a) => {
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
                None => format!("Full scan of {label}, an estimated {est} {rows}"),
            };
        }
        let steps = join_plan::plan(&sizes, &planned);
        self.line(
            depth,
            "Join: inner joins in the order planned from estimated rows (the smallest filtered relation first, then the smallest connected one)",
        );
        for (n, step) in steps.iter().enumerate() {
            let texts: Vec<String> = step.conds.iter().map(|&i| conds[i].0.to_string()).collect();
            let (keys, rest) = texts.split_at(step.keys);
            let how = if n == 0 {
                String::new()
            } else if keys.is_empty() {
                "Nested-loop join with ".to_string()
            } else {
                format!("Hash join on {} with ", keys.join(" AND "))
            };
            let then = match rest.is_empty() {
                true => String::new(),
                false => format!("; then {}", rest.join(" AND ")),
            };
            let r = &rels[step.rel];
            if r.table.is_some() {
                let read = &reads[step.rel];
                let read = match n {
                    0 => read.clone(),
                    _ => read[..1].to_lowercase() + &read[1..],
                };
                self.line(depth + 1, format!("Step {}: {how}{read}{then}", n + 1));
            } else {
                let what = match n {
                    0 => "Rows of",
                    _ => "the rows of",
                };
                self.line(depth + 1, format!("Step {}: {how}{what}{then}", n + 1));
                self.relation(r.factor, depth + 2)?;
            }
        }
        for (e, _) in after {
            let (text, subs) = self.show(&e);
            self.line(
                depth + 1,
                format!("After the join, per joined row (correlated): {text}"),
            );
            self.list_subqueries(subs, depth + 2)?;
        }
        Ok(())
    }

    /// The relation `tf` of a join.
    fn relation_of<'q>(&mut self, tf: &'q ast::TableFactor) -> Result<Relation<'q>> {
        let alias_name = |a: &Option<ast::TableAlias>| a.as_ref().map(|a| a.name.value.clone());
        Ok(match tf {
            ast::TableFactor::Table { name, alias, .. } => {
                let q = crate::join::qualifier_of(name, alias.as_ref());
                let table = match self.is_cte(name) {
                    true => None,
                    false => {
                        let t = self.ex.table_definition(name)?;
                        (t.schema.view.is_none()).then(|| {
                            let label = match alias {
                                Some(a) => format!("{name} AS {}", a.name),
                                None => name.to_string(),
                            };
                            (t.clone(), table_scope(&t, &q), label)
                        })
                    }
                };
                let qualifier = match alias {
                    Some(a) => a.name.value.to_uppercase(),
                    None => tdlite_parser::object_name_string(name)
                        .rsplit('.')
                        .next()
                        .unwrap_or_default()
                        .to_uppercase(),
                };
                Relation {
                    factor: tf,
                    qualifier,
                    table,
                }
            }
            ast::TableFactor::Derived { alias, .. } => Relation {
                factor: tf,
                qualifier: alias_name(alias).unwrap_or_default().to_uppercase(),
                table: None,
            },
            _ => Relation {
                factor: tf,
                qualifier: String::new(),
                table: None,
            },
        })
    }

    /// True if `e` (naming the two relations `rs`) is an equality the join step hashes on.
    fn is_key_equality(
        &mut self,
        e: &ast::Expr,
        rs: &[usize],
        rels: &[Relation],
        all: &Scope,
    ) -> bool {
        let ast::Expr::BinaryOp {
            left,
            op: ast::BinaryOperator::Eq,
            right,
        } = e
        else {
            return false;
        };
        let column = |x: &ast::Expr| {
            matches!(
                x,
                ast::Expr::Identifier(_) | ast::Expr::CompoundIdentifier(_)
            )
        };
        if !column(left) || !column(right) {
            return false;
        }
        if rs.iter().any(|&r| rels[r].table.is_none()) {
            return true;
        }
        self.ex
            .bind_expr(e, all, None)
            .is_ok_and(|b| is_column_equality(&b))
    }
}
