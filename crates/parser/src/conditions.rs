//! Conditions written as values: Teradata has no BOOLEAN type, so where its grammar wants a
//! search condition (WHERE, ON, HAVING, QUALIFY, a searched CASE's WHEN, MERGE's ON and its
//! `WHEN MATCHED AND …`, a selective consume's WHERE, the operands of AND, OR and NOT) a
//! value is a syntax error: `WHERE a = 5 AND b` (b INTEGER) fails 3706 on Teradata whatever
//! the rows, and here too, at the value's line and column, before anything runs.
//!
//! Refused in every mode are the forms that are values whatever their operands: a number or
//! string literal, arithmetic (`**` and the PERIOD-valued `P_INTERSECT`, `P_NORMALIZE`,
//! `LDIFF`, `RDIFF` too) and `||`, a sign, CAST, a value CASE, a function call, EXTRACT,
//! SUBSTRING, TRIM, POSITION, CEIL, FLOOR, AT TIME ZONE, a typed literal, an INTERVAL and a
//! scalar subquery. A bare column name is refused only in strict mode: outside it, tdlite
//! shows a condition as a select item (TRUE/FALSE), so a derived table's column may hold one.
//! NULL, a `?` marker and the PERIOD predicates are left to the binder.
//!
//! Invariant: [`check`] refuses nothing Teradata accepts: its refusals are Teradata's syntax
//! errors (outside strict mode, a function of a derived table's condition column such as
//! `COALESCE(c, c)` is refused, as Teradata refuses it, though tdlite's binder could
//! evaluate it).

use crate::error::{Location, ParseError};
use crate::statement::Statement;
use sqlparser::ast::{self, Spanned as _};
use std::ops::ControlFlow;

/// Whether a statement of tokens `toks` may have a condition to look at: it has a word that
/// starts one or joins them (WHERE, ON, HAVING, QUALIFY, WHEN, AND, OR, NOT). A cheap test
/// first, so a statement without any (an INSERT of values) is not walked.
pub fn may_hold_one(toks: &[sqlparser::tokenizer::TokenWithSpan]) -> bool {
    use sqlparser::keywords::Keyword as K;
    toks.iter().any(|t| {
        matches!(&t.token, sqlparser::tokenizer::Token::Word(w)
            if matches!(w.keyword, K::WHERE | K::ON | K::HAVING | K::QUALIFY | K::WHEN | K::AND | K::OR | K::NOT))
    })
}

/// Refuses the first value written where `st` wants a condition; `at` is where `st` starts
/// (the location of a value whose own position is not known). With `names_too` (strict
/// mode), a bare column name there is refused as well.
///
/// # Errors
/// 3706 at the value.
pub fn check(st: &Statement, at: Location, names_too: bool) -> Result<(), ParseError> {
    let mut finder = Values {
        names_too,
        found: None,
    };
    match st {
        Statement::Sql(s) => {
            let _ = ast::Visit::visit(s.as_ref(), &mut finder);
        }
        Statement::Consume(c) => {
            if let Some((filter, _)) = &c.filter {
                finder.condition(filter);
                let _ = ast::Visit::visit(filter, &mut finder);
            }
        }
        _ => {}
    }
    match finder.found {
        None => Ok(()),
        Some(e) => {
            let span = e.span();
            let location = match span.start.line {
                0 => at,
                _ => Location::from_sql(span.start),
            };
            Err(ParseError::syntax(
                format!(
                    "a condition is expected where the value {e} is written \
                     (Teradata has no BOOLEAN values: compare it, as in {e} <> 0)."
                ),
                location,
            ))
        }
    }
}

/// Finds the first value in a condition's place.
struct Values {
    names_too: bool,
    found: Option<ast::Expr>,
}

impl Values {
    /// Notes `e` if it is written where a condition belongs and is a value by its form.
    fn condition(&mut self, e: &ast::Expr) {
        if self.found.is_none() && is_value(e, self.names_too) {
            self.found = Some(e.clone());
        }
    }

    /// The conditions of a query's SELECT blocks: WHERE, HAVING, QUALIFY and the ONs.
    fn body(&mut self, body: &ast::SetExpr) {
        match body {
            ast::SetExpr::Select(s) => {
                for c in [&s.selection, &s.having, &s.qualify].into_iter().flatten() {
                    self.condition(c);
                }
                for t in &s.from {
                    self.joins(t);
                }
            }
            ast::SetExpr::SetOperation { left, right, .. } => {
                self.body(left);
                self.body(right);
            }
            _ => {}
        }
    }
}

impl Values {
    /// The ONs of a FROM item's joins, those of joins in parentheses included.
    fn joins(&mut self, t: &ast::TableWithJoins) {
        let factors = std::iter::once(&t.relation).chain(t.joins.iter().map(|j| &j.relation));
        for f in factors {
            if let ast::TableFactor::NestedJoin {
                table_with_joins, ..
            } = f
            {
                self.joins(table_with_joins);
            }
        }
        for join in &t.joins {
            if let Some(ast::JoinConstraint::On(on)) = join_constraint(&join.join_operator) {
                self.condition(on);
            }
        }
    }
}

impl ast::Visitor for Values {
    type Break = ();

    fn pre_visit_query(&mut self, q: &ast::Query) -> ControlFlow<()> {
        self.body(&q.body);
        self.done()
    }

    fn pre_visit_statement(&mut self, st: &ast::Statement) -> ControlFlow<()> {
        match st {
            ast::Statement::Update(u) => {
                if let Some(w) = &u.selection {
                    self.condition(w)
                }
            }
            ast::Statement::Delete(d) => {
                if let Some(w) = &d.selection {
                    self.condition(w)
                }
            }
            ast::Statement::Merge(m) => {
                self.condition(&m.on);
                for c in &m.clauses {
                    if let Some(p) = &c.predicate {
                        self.condition(p);
                    }
                }
            }
            _ => {}
        }
        self.done()
    }

    fn pre_visit_expr(&mut self, e: &ast::Expr) -> ControlFlow<()> {
        match e {
            ast::Expr::BinaryOp {
                left,
                op: ast::BinaryOperator::And | ast::BinaryOperator::Or,
                right,
            } => {
                self.condition(left);
                self.condition(right);
            }
            ast::Expr::UnaryOp {
                op: ast::UnaryOperator::Not,
                expr,
            } => self.condition(expr),
            ast::Expr::Case {
                operand: None,
                conditions,
                ..
            } => {
                for w in conditions {
                    self.condition(&w.condition);
                }
            }
            _ => {}
        }
        self.done()
    }
}

impl Values {
    fn done(&self) -> ControlFlow<()> {
        match self.found {
            Some(_) => ControlFlow::Break(()),
            None => ControlFlow::Continue(()),
        }
    }
}

/// The ON or USING of a join: an inner, LEFT, RIGHT or FULL join's (`None` for a comma,
/// CROSS JOIN or another operator).
pub fn join_constraint(op: &ast::JoinOperator) -> Option<&ast::JoinConstraint> {
    use ast::JoinOperator as J;
    match op {
        J::Join(c)
        | J::Inner(c)
        | J::Left(c)
        | J::LeftOuter(c)
        | J::Right(c)
        | J::RightOuter(c)
        | J::FullOuter(c) => Some(c),
        _ => None,
    }
}

/// Whether `e` (under parentheses) is a value by its form (see the module doc); a bare
/// column name only with `names_too`.
fn is_value(e: &ast::Expr, names_too: bool) -> bool {
    use ast::BinaryOperator as B;
    match e {
        ast::Expr::Nested(x) => is_value(x, names_too),
        ast::Expr::Value(v) => !matches!(
            v.value,
            ast::Value::Null | ast::Value::Placeholder(_) | ast::Value::Boolean(_)
        ),
        ast::Expr::BinaryOp { op, .. } => {
            matches!(
                op,
                B::Plus
                    | B::Minus
                    | B::Multiply
                    | B::Divide
                    | B::Modulo
                    | B::StringConcat
                    | B::BitwiseOr
                    | B::BitwiseAnd
                    | B::BitwiseXor
                    | B::PGExp
            ) || matches!(op, B::Custom(words) if crate::period_syntax::PERIOD_VALUED.iter().any(|w| words.eq_ignore_ascii_case(w)))
        }
        ast::Expr::UnaryOp { op, .. } => {
            matches!(op, ast::UnaryOperator::Minus | ast::UnaryOperator::Plus)
        }
        // (a quoted name is one of the parser's own markers: a phrase, a PERIOD literal)
        ast::Expr::Function(f) => !f
            .name
            .0
            .iter()
            .any(|p| p.as_ident().is_some_and(|i| i.quote_style.is_some())),
        ast::Expr::Cast { .. }
        | ast::Expr::Case { .. }
        | ast::Expr::Extract { .. }
        | ast::Expr::Substring { .. }
        | ast::Expr::Trim { .. }
        | ast::Expr::Position { .. }
        | ast::Expr::Ceil { .. }
        | ast::Expr::Floor { .. }
        | ast::Expr::AtTimeZone { .. }
        | ast::Expr::TypedString(_)
        | ast::Expr::Interval(_)
        | ast::Expr::Subquery(_) => true,
        ast::Expr::Identifier(_) | ast::Expr::CompoundIdentifier(_) => names_too,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The error and where, if `sql` is refused: by parse_request (every mode), or by
    /// [`check`] with `names_too` (strict mode's second look).
    fn refused(sql: &str, names_too: bool) -> Option<(u32, Location)> {
        let stmts = match crate::parse_request(sql) {
            Ok(stmts) => stmts,
            Err(e) => return Some((e.code(), e.location)),
        };
        let st = stmts.first()?;
        check(&st.statement, st.location, names_too)
            .err()
            .map(|e| (e.code(), e.location))
    }

    #[test]
    fn values_where_conditions_belong_are_refused_at_their_place() {
        let at = |line, column| Some((3706, Location { line, column }));
        assert_eq!(refused("SEL a FROM t WHERE a = 5 AND 1", false), at(1, 30));
        assert_eq!(refused("SEL a FROM t\nWHERE a + 1", false), at(2, 7));
        assert_eq!(
            refused("SEL a FROM t WHERE NOT (a || 'x')", false),
            at(1, 25)
        );
        assert_eq!(
            refused("SEL CASE WHEN ABS(a) THEN 1 END FROM t", false),
            at(1, 15)
        );
        assert!(refused("SEL a FROM t HAVING COUNT(*)", false).is_some());
        assert!(refused("SEL a FROM t JOIN u ON 1", false).is_some());
        assert!(refused("DEL FROM t WHERE CAST(a AS INTEGER)", false).is_some());
        assert!(refused("UPD t SET a = 1 WHERE (SEL 1)", false).is_some());
        assert!(refused("SEL a FROM t WHERE EXISTS (SEL 1 FROM u WHERE 'x')", false).is_some());
        assert!(refused("SEL a FROM t WHERE a = 1 AND 2 ** a", false).is_some());
        assert!(refused("SEL a FROM t WHERE p P_INTERSECT q", false).is_some());
        assert!(refused("SEL a FROM t WHERE FLOOR(a)", false).is_some());
        assert!(refused("SEL a FROM (t JOIN u ON 1) JOIN w ON w.k = t.k", false).is_some());
        // a bare name only in strict mode
        assert_eq!(refused("SEL a FROM t WHERE a = 5 AND b", false), None);
        assert!(refused("SEL a FROM t WHERE a = 5 AND b", true).is_some());
    }

    #[test]
    fn conditions_and_values_in_their_places_pass() {
        for sql in [
            "SEL a + 1, CASE a WHEN 1 THEN 'x' END FROM t WHERE a = 5 AND (b > 1 OR NOT c IS NULL)",
            "SEL a FROM t WHERE a IN (1, 2) AND b BETWEEN 1 AND 2 AND s LIKE 'a%'",
            "SEL a FROM t WHERE EXISTS (SEL 1 FROM u) AND a = ANY (SEL b FROM u)",
            "SEL a FROM t WHERE NULL",
            "SEL a FROM t WHERE ?",
            "SEL a FROM t QUALIFY ROW_NUMBER() OVER (ORDER BY a) = 1",
            "SEL a FROM t WHERE p CONTAINS DATE '2020-01-01'",
            "SEL a FROM t WHERE (a, b) IN (SEL a, b FROM u)",
        ] {
            assert_eq!(refused(sql, true), None, "{sql}");
        }
    }
}
