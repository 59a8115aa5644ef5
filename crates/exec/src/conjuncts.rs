//! Conditions as lists of conjuncts: `a AND b AND (c AND d)` is `[a, b, c, d]`. Binding
//! (correlated and decorrelated subqueries), joins and EXPLAIN each look at a WHERE or ON
//! clause one conjunct at a time.
//!
//! Invariant: the conjuncts, ANDed in order, are the condition (parentheses around an AND are
//! looked through; nothing else is rewritten).

use sqlparser::ast;

/// Splits `a AND b AND c` into its conjuncts, appended to `out`.
pub(crate) fn conjuncts(e: &ast::Expr, out: &mut Vec<ast::Expr>) {
    let mut refs = Vec::new();
    conjunct_refs(e, &mut refs);
    out.extend(refs.into_iter().cloned());
}

/// Splits `a AND b AND c` into its conjuncts as [`conjuncts`] does, borrowed: binding one
/// binds the request's own nodes (a subquery bound for its columns runs from where it is
/// written, so a prepared request's plan cache finds its block: deferred.rs).
pub(crate) fn conjunct_refs<'e>(e: &'e ast::Expr, out: &mut Vec<&'e ast::Expr>) {
    match e {
        ast::Expr::BinaryOp {
            left,
            op: ast::BinaryOperator::And,
            right,
        } => {
            conjunct_refs(left, out);
            conjunct_refs(right, out);
        }
        ast::Expr::Nested(inner) => conjunct_refs(inner, out),
        other => out.push(other),
    }
}

/// `a AND b AND …` of `parts` (`None` for none).
pub(crate) fn and_all(parts: Vec<ast::Expr>) -> Option<ast::Expr> {
    parts.into_iter().reduce(|a, b| ast::Expr::BinaryOp {
        left: Box::new(a),
        op: ast::BinaryOperator::And,
        right: Box::new(b),
    })
}

/// The conjuncts of `e` that run first, ANDed (`None` for none), and those that run after
/// them, in the order written: a WHERE whose subqueries are correlated reads its table by
/// the first and runs the others per row of what that keeps. The conjuncts with a subquery
/// run after, and so does every one written after the first of those that `safe` does not
/// call safe (one that could fail: a guard written before it then still guards it). Those
/// that run after are borrowed: their subqueries, run per row, are the WHERE's own nodes
/// (the request's, where the WHERE is), so a prepared request's plan cache keeps their
/// blocks (bound_select.rs).
pub(crate) fn split_subqueries<'e>(
    e: &'e ast::Expr,
    safe: &mut dyn FnMut(&ast::Expr) -> bool,
) -> (Option<ast::Expr>, Vec<&'e ast::Expr>) {
    let mut parts = Vec::new();
    conjunct_refs(e, &mut parts);
    let (mut plain, mut with) = (Vec::new(), Vec::new());
    for p in parts {
        match crate::correlate::has_subquery(p) || (!with.is_empty() && !safe(p)) {
            true => with.push(p),
            false => plain.push(p.clone()),
        }
    }
    (and_all(plain), with)
}
