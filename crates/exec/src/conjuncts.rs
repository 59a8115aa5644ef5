//! Conditions as lists of conjuncts: `a AND b AND (c AND d)` is `[a, b, c, d]`. Binding
//! (correlated and decorrelated subqueries), joins and EXPLAIN each look at a WHERE or ON
//! clause one conjunct at a time.
//!
//! Invariant: the conjuncts, ANDed in order, are the condition (parentheses around an AND are
//! looked through; nothing else is rewritten).

use sqlparser::ast;

/// Splits `a AND b AND c` into its conjuncts, appended to `out`.
pub(crate) fn conjuncts(e: &ast::Expr, out: &mut Vec<ast::Expr>) {
    match e {
        ast::Expr::BinaryOp {
            left,
            op: ast::BinaryOperator::And,
            right,
        } => {
            conjuncts(left, out);
            conjuncts(right, out);
        }
        ast::Expr::Nested(inner) => conjuncts(inner, out),
        other => out.push(other.clone()),
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

/// The conjuncts of `e` without a subquery, ANDed (`None` for none), and those with one: a
/// WHERE whose subqueries are correlated reads its table by the first and runs the others
/// per row of what that keeps.
pub(crate) fn split_subqueries(e: &ast::Expr) -> (Option<ast::Expr>, Vec<ast::Expr>) {
    let mut parts = Vec::new();
    conjuncts(e, &mut parts);
    let (with, plain): (Vec<ast::Expr>, Vec<ast::Expr>) =
        parts.into_iter().partition(crate::correlate::has_subquery);
    (and_all(plain), with)
}
