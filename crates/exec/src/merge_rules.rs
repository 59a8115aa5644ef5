//! Teradata's rules for what a MERGE may say (SQL Data Manipulation Language, MERGE: "Rules
//! for MERGE Request ON Clauses", "Primary Condition in ON Clause Must be Equality Condition",
//! "Restrictions for Primary Condition in the ON clause", "Target Table Primary Index and
//! Partitioning Column", "Single Row MERGE Rules and Limitations"; Messages 5758 and 5977),
//! checked on the statement as written, before it changes a row:
//!
//! - **The primary condition.** For each column of the target's primary index, and each
//!   partitioning column of a partitioned target, ON must AND at its top level an equality
//!   `c = e` (or `e = c`) where `c` is the bare column (no expression on it) and `e` names no
//!   column of the target; otherwise 5758. A target without a primary index
//!   (`NO PRIMARY INDEX`) has no primary condition.
//! - **INSERT gives the same values.** A WHEN NOT MATCHED INSERT gives each of those columns
//!   the expression ON equates it with, written the same way (names compared as the columns
//!   they resolve to, function names without case, parentheses aside); otherwise 5758.
//! - **ON holds no subquery** (5977).
//! - **No UPDATE of those columns** (5977), nor an INSERT into a target whose primary index is
//!   an identity column (5977).
//!
//! A *single-row source* (a derived table without FROM, one VALUES row, or a SELECT from one
//! table, without GROUP BY or HAVING, whose WHERE fixes every column of a unique index to a
//! constant) lifts the last two rules and the INSERT rule: it may update the primary index
//! where ON equates it with a constant, as Teradata's manual shows.
//!
//! Invariant: where a name of ON or of a clause (outside its subqueries) resolves to no column
//! or to two, the rules are not checked and binding raises its error (3810, 3822) instead;
//! the check never rejects what it cannot read.

use crate::bind::Scope;
use crate::error::{Error, Result};
use sqlparser::ast::{self, VisitMut};
use std::ops::ControlFlow;
use tdlite_storage::catalog::TableSchema;

/// Where a name of the MERGE resolves.
#[derive(Clone, Copy, PartialEq)]
enum Side {
    /// A column of the target (its position).
    Target(usize),
    /// A column of the source (its position in the pairs' scope).
    Source(usize),
    /// A value of the request or session (DATE, USER, …), or DEFAULT.
    Request,
}

/// A MERGE's names as the pairs' scope (the target's columns, its row id, then the source's)
/// resolves them.
pub(crate) struct Names<'a> {
    /// The pairs' scope.
    pub scope: &'a Scope,
    /// The target's column count.
    pub width: usize,
    /// The session's default database.
    pub home: &'a str,
}

impl Names<'_> {
    /// Where the column name `e` (an identifier, or a qualified one) resolves; `None` for
    /// another expression, or a name that resolves to nothing or to two columns.
    fn side(&self, e: &ast::Expr) -> Option<Side> {
        let (q, name) = match e {
            ast::Expr::Identifier(id) => (None, id.value.as_str()),
            ast::Expr::CompoundIdentifier(parts) => {
                let (last, before) = parts.split_last()?;
                let q: Vec<&str> = before.iter().map(|p| p.value.as_str()).collect();
                (Some(q.join(".")), last.value.as_str())
            }
            _ => return None,
        };
        match self.scope.resolve_at(q.as_deref(), name, self.home) {
            Ok(Some(i)) if i < self.width => Some(Side::Target(i)),
            Ok(Some(i)) => Some(Side::Source(i)),
            // (DEFAULT: a cell's default, as a request value is no column)
            Ok(None)
                if q.is_none()
                    && (crate::bind::is_request_value(&name.to_ascii_uppercase())
                        || name.eq_ignore_ascii_case("DEFAULT")) =>
            {
                Some(Side::Request)
            }
            _ => None,
        }
    }

    /// The sides of every name of `e` at its own level (not inside a subquery); `None` where
    /// one does not resolve.
    fn sides(&self, e: &ast::Expr) -> Option<Vec<Side>> {
        let mut out = Vec::new();
        let walk = crate::bind::visit_own_level(e, |x| match x {
            ast::Expr::Identifier(_) | ast::Expr::CompoundIdentifier(_) => match self.side(x) {
                Some(s) => {
                    out.push(s);
                    ControlFlow::Continue(())
                }
                None => ControlFlow::Break(()),
            },
            _ => ControlFlow::Continue(()),
        });
        (!walk.is_break()).then_some(out)
    }

    /// `e` with every name written as the column it resolves to, function names in upper
    /// case and parentheses dropped: two expressions are the same where these are equal.
    /// `None` where a name does not resolve.
    fn canonical(&self, e: &ast::Expr) -> Option<ast::Expr> {
        struct Rewrite<'n, 'a>(&'n Names<'a>);
        impl ast::VisitorMut for Rewrite<'_, '_> {
            type Break = ();
            fn post_visit_expr(&mut self, x: &mut ast::Expr) -> ControlFlow<()> {
                let named = |s: String| ast::Expr::Identifier(ast::Ident::new(s));
                match x {
                    ast::Expr::Nested(inner) => *x = (**inner).clone(),
                    // (a function's name as Teradata reads it: without case)
                    ast::Expr::Function(f) => {
                        for part in &mut f.name.0 {
                            if let ast::ObjectNamePart::Identifier(id) = part {
                                if id.quote_style.is_none() {
                                    id.value = id.value.to_ascii_uppercase();
                                }
                            }
                        }
                    }
                    ast::Expr::Identifier(_) | ast::Expr::CompoundIdentifier(_) => {
                        *x = match self.0.side(x) {
                            Some(Side::Target(i)) => named(format!("\u{1}target{i}")),
                            Some(Side::Source(i)) => named(format!("\u{1}source{i}")),
                            Some(Side::Request) => match x {
                                ast::Expr::Identifier(id) => named(id.value.to_ascii_uppercase()),
                                _ => return ControlFlow::Break(()),
                            },
                            None => return ControlFlow::Break(()),
                        }
                    }
                    _ => {}
                }
                ControlFlow::Continue(())
            }
        }
        let mut e = e.clone();
        (!VisitMut::visit(&mut e, &mut Rewrite(self)).is_break()).then_some(e)
    }
}

/// What ON equates each target column with: `(column, expression)` for each top-level
/// conjunct `c = e` or `e = c` whose `c` is a bare target column and whose `e` names no target
/// column. `None` where a name does not resolve.
fn primary_equalities<'m>(on: &'m ast::Expr, names: &Names) -> Option<Vec<(usize, &'m ast::Expr)>> {
    names.sides(on)?;
    let mut out = Vec::new();
    for (col, other) in equalities(on) {
        let Some(Side::Target(i)) = names.side(col) else {
            continue;
        };
        let sides = names.sides(other)?;
        if !sides.iter().any(|s| matches!(s, Side::Target(_))) {
            out.push((i, other));
        }
    }
    Some(out)
}

/// Each top-level conjunct `a = b` of `cond`, both ways round: `(a, b)` and `(b, a)`, the
/// first without its parentheses.
pub(crate) fn equalities(cond: &ast::Expr) -> Vec<(&ast::Expr, &ast::Expr)> {
    let mut conjuncts = Vec::new();
    crate::conjuncts::conjunct_refs(cond, &mut conjuncts);
    let mut out = Vec::new();
    for c in conjuncts {
        if let ast::Expr::BinaryOp {
            left,
            op: ast::BinaryOperator::Eq,
            right,
        } = peel(c)
        {
            out.push((peel(left), &**right));
            out.push((peel(right), &**left));
        }
    }
    out
}

fn peel(mut e: &ast::Expr) -> &ast::Expr {
    while let ast::Expr::Nested(inner) = e {
        e = inner;
    }
    e
}

/// The target columns the primary condition must name: the primary index's, then each of
/// `partitioning` (the columns the table's partitioning reads) not among them; none for a
/// table without a primary index.
pub(crate) fn condition_columns(schema: &TableSchema, partitioning: &[usize]) -> Vec<usize> {
    let Some(pi) = &schema.primary_index else {
        return Vec::new();
    };
    let mut out: Vec<usize> = pi.columns.clone();
    out.extend(partitioning.iter().filter(|c| !pi.columns.contains(c)));
    out
}

/// Checks MERGE `m` into the table of `schema` against Teradata's rules (see the module
/// doc); `partitioning` holds the columns its partitioning reads; `single_row` says whether
/// its source is a single-row source ([`single_row_source`]).
///
/// # Errors
/// 5758 for a primary condition missing or not matched by an INSERT; 5977 for a subquery in
/// ON, an UPDATE of a primary-index or partitioning column, an INSERT into an identity
/// primary index.
pub(crate) fn check(
    m: &ast::Merge,
    (schema, partitioning): (&TableSchema, &[usize]),
    names: &Names,
    single_row: bool,
) -> Result<()> {
    if crate::correlate::has_subquery(&m.on) {
        return Err(Error::InvalidMerge(
            "the ON clause may not contain a subquery".into(),
        ));
    }
    let needed = condition_columns(schema, partitioning);
    if needed.is_empty() {
        return Ok(());
    }
    let Some(equalities) = primary_equalities(&m.on, names) else {
        return Ok(());
    };
    if !clause_exprs(m).all(|e| names.sides(e).is_some()) {
        return Ok(());
    }
    let with = |c: usize| {
        equalities
            .iter()
            .filter(move |(i, _)| *i == c)
            .map(|(_, e)| *e)
    };
    if needed.iter().any(|c| with(*c).next().is_none()) {
        return Err(Error::MergePrimaryCondition);
    }
    for clause in &m.clauses {
        match &clause.action {
            ast::MergeAction::Update(u) => {
                let ast::MergeUpdateKind::Set(assignments) = &u.kind else {
                    continue;
                };
                for a in assignments {
                    let ast::AssignmentTarget::ColumnName(n) = &a.target else {
                        continue;
                    };
                    let Some(name) = n.0.last().and_then(|p| p.as_ident()) else {
                        continue;
                    };
                    let Some(c) = schema.column_index(&name.value) else {
                        continue;
                    };
                    // (a single-row source may set a column ON equates with a constant)
                    let constant = || {
                        with(c).any(|e| {
                            names
                                .sides(e)
                                .is_some_and(|s| s.iter().all(|x| *x == Side::Request))
                        })
                    };
                    if needed.contains(&c) && !(single_row && constant()) {
                        return Err(Error::InvalidMerge(format!(
                            "the primary index or partitioning column {} may not be updated",
                            schema.columns[c].name
                        )));
                    }
                }
            }
            ast::MergeAction::Insert(ins) if !single_row => {
                let mut pi = schema.primary_index.iter().flat_map(|p| p.columns.iter());
                if let Some(&c) = pi.find(|&&c| schema.columns[c].identity.is_some()) {
                    return Err(Error::InvalidMerge(format!(
                        "the primary index column {} is an identity column",
                        schema.columns[c].name
                    )));
                }
                if !inserts_as_on(ins, schema, names, (&needed, &with))? {
                    return Err(Error::MergePrimaryCondition);
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// The expressions of `m`'s WHEN clauses: their AND conditions, SET values and INSERT
/// values.
pub(crate) fn clause_exprs(m: &ast::Merge) -> impl Iterator<Item = &ast::Expr> {
    m.clauses.iter().flat_map(|c| {
        let values: Vec<&ast::Expr> = match &c.action {
            ast::MergeAction::Update(u) => match &u.kind {
                ast::MergeUpdateKind::Set(a) => a.iter().map(|a| &a.value).collect(),
                _ => Vec::new(),
            },
            ast::MergeAction::Insert(ast::MergeInsertExpr {
                kind: ast::MergeInsertKind::Values(v),
                ..
            }) => v.rows.iter().flat_map(|r| r.content.iter()).collect(),
            _ => Vec::new(),
        };
        c.predicate.iter().chain(values)
    })
}

/// Whether INSERT `ins` gives each column of `needed` an expression ON equates it with
/// (`with`); true where it cannot be read (its arity or a name is for binding to refuse).
fn inserts_as_on<'m, I: Iterator<Item = &'m ast::Expr>>(
    ins: &ast::MergeInsertExpr,
    schema: &TableSchema,
    names: &Names,
    (needed, with): (&[usize], &dyn Fn(usize) -> I),
) -> Result<bool> {
    let ast::MergeInsertKind::Values(values) = &ins.kind else {
        return Ok(true);
    };
    let [row] = values.rows.as_slice() else {
        return Ok(true);
    };
    let targets: Vec<Option<usize>> = if ins.columns.is_empty() {
        (0..schema.columns.len()).map(Some).collect()
    } else {
        (ins.columns.iter())
            .map(|n| {
                let name = n.0.last().and_then(|p| p.as_ident())?;
                schema.column_index(&name.value)
            })
            .collect()
    };
    if targets.len() != row.content.len() || targets.contains(&None) {
        return Ok(true);
    }
    for &c in needed {
        // (a column the INSERT leaves out takes its default: no expression of ON)
        let Some(k) = targets.iter().position(|t| *t == Some(c)) else {
            return Ok(false);
        };
        // (ON holds no subquery, so a value that does is none of its expressions)
        if crate::correlate::has_subquery(&row.content[k]) {
            return Ok(false);
        }
        let Some(given) = names.canonical(&row.content[k]) else {
            return Ok(true);
        };
        let same = with(c).any(|e| names.canonical(e).is_some_and(|e| e == given));
        if !same {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Whether `source` is a single-row source: a derived table whose query is one VALUES row,
/// a SELECT without FROM, or a SELECT from one table whose WHERE ANDs an equality of every
/// column of one of the table's unique keys (`unique_keys` gives their column names) with a
/// constant.
pub(crate) fn single_row_source(
    source: &ast::TableFactor,
    unique_keys: &dyn Fn(&ast::ObjectName) -> Vec<Vec<String>>,
) -> bool {
    let ast::TableFactor::Derived { subquery, .. } = source else {
        return false;
    };
    if subquery.with.is_some() {
        return false;
    }
    let select = match &*subquery.body {
        ast::SetExpr::Values(v) => return v.rows.len() == 1,
        ast::SetExpr::Select(s) => s,
        _ => return false,
    };
    if select.group_by != ast::GroupByExpr::Expressions(vec![], vec![]) || select.having.is_some() {
        return false;
    }
    let [from] = select.from.as_slice() else {
        return select.from.is_empty();
    };
    let ast::TableFactor::Table { name, .. } = &from.relation else {
        return false;
    };
    if !from.joins.is_empty() {
        return false;
    }
    let Some(selection) = &select.selection else {
        return false;
    };
    let mut fixed: Vec<String> = Vec::new();
    for (col, other) in equalities(selection) {
        let name = match col {
            ast::Expr::Identifier(id) => &id.value,
            ast::Expr::CompoundIdentifier(p) => match p.last() {
                Some(id) => &id.value,
                None => continue,
            },
            _ => continue,
        };
        if is_constant(other) {
            fixed.push(name.to_ascii_uppercase());
        }
    }
    (unique_keys(name).iter())
        .any(|key| (key.iter()).all(|k| fixed.contains(&k.to_ascii_uppercase())))
}

/// Whether `e` names no column (a literal, a parameter, a function of them, DATE, USER, …)
/// and holds no subquery.
pub(crate) fn is_constant(e: &ast::Expr) -> bool {
    !crate::correlate::has_subquery(e)
        && !ast::visit_expressions(e, |x| match x {
            ast::Expr::Identifier(id)
                if crate::bind::is_request_value(&id.value.to_ascii_uppercase()) =>
            {
                ControlFlow::Continue(())
            }
            ast::Expr::Identifier(_) | ast::Expr::CompoundIdentifier(_) => ControlFlow::Break(()),
            _ => ControlFlow::Continue(()),
        })
        .is_break()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_constant_names_no_column() {
        let e = |s: &str| tdlite_parser::parse_expression(s).unwrap();
        assert!(is_constant(&e("10 + ?")));
        assert!(is_constant(&e("CAST('2020-01-01' AS DATE)")));
        assert!(is_constant(&e("DATE")));
        assert!(!is_constant(&e("x + 1")));
        assert!(!is_constant(&e("s.x")));
        assert!(!is_constant(&e("(SELECT 1)")));
    }
}
