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
