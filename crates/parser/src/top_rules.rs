//! Teradata's restrictions on `TOP n` (SQL Data Manipulation Language, "Rules and
//! Restrictions for the TOP n Operator"), checked after a statement parses:
//!
//! - a SELECT with TOP n takes no DISTINCT, QUALIFY or SAMPLE, and no ORDER BY on an ordered
//!   analytical (window) function;
//! - no subselect of a set operation (UNION, INTERSECT, EXCEPT/MINUS) has TOP n;
//! - no subquery in a search condition (EXISTS, IN, ANY/ALL/SOME, a scalar subquery compared
//!   with `=`, `<`, …) has TOP n.
//!
//! Each is error 6916 (`TOP N Syntax error: Top N option is not supported with …`), at the
//! SELECT that has the TOP; so is TOP n in a recursive query's seed or recursive statement.
//! Not checked: TOP n in a correlated subquery outside a search condition (correlation is
//! known only when binding).
//!
//! CREATE VIEW's query gets the same walk and its own rules: ORDER BY only with TOP n, 3706;
//! no TOP n in a subquery, 6916 (`check_view`).
//!
//! Also here, as it is the same walk: Teradata's rules for QUALIFY (an ordered analytical
//! function in the select list, GROUP BY or QUALIFY; no OR with a subquery in it), 3706; SAMPLE in a subquery of a search condition is 3706
//! (SQL Data Definition Language, CREATE VIEW's search_condition: "You cannot specify a SAMPLE
//! clause within a subquery predicate within a WHERE clause"); ORDER BY in a derived table or a subquery without TOP n
//! (SQL Data Manipulation Language, "Rules and Restrictions for Derived Tables": "You cannot
//! specify … ORDER BY"; with TOP n it picks the rows) is 3706, "ORDER BY is not allowed in
//! subqueries".

use crate::error::{Location, ParseError, ParseErrorKind};
use sqlparser::ast::{
    BinaryOperator, Expr, InTarget, Query, Select, SetExpr, TableFactor, Visit, Visitor,
};
use std::ops::ControlFlow;

/// Checks `stmt` (see the module).
///
/// # Errors
/// 6916 (TOP n) or 3706 (QUALIFY, SAMPLE, ORDER BY) at the first rule a query breaks.
pub(crate) fn check(stmt: &sqlparser::ast::Statement) -> Result<(), ParseError> {
    match stmt.visit(&mut TopRules) {
        ControlFlow::Break(e) => Err(e),
        ControlFlow::Continue(()) => Ok(()),
    }
}

/// [`check`]'s rules for a view's query, and CREATE VIEW's own: ORDER BY only with TOP n
/// (SQL Data Definition Language, CREATE VIEW order_by_specification: "You can only specify
/// an ORDER BY clause for a view definition if you also specify either the TOP n or the TOP m
/// PERCENT operators"), 3706.
///
/// # Errors
/// 3706 or 6916 at the first rule the query breaks.
pub(crate) fn check_view(q: &Query) -> Result<(), ParseError> {
    if let Some(at) = order_without_top(q) {
        return Err(ParseError::syntax(
            "ORDER BY is not allowed in a view definition without TOP n.",
            at,
        ));
    }
    if let ControlFlow::Break(e) = q.visit(&mut ViewRules) {
        return Err(e);
    }
    match q.visit(&mut TopRules) {
        ControlFlow::Break(e) => Err(e),
        ControlFlow::Continue(()) => Ok(()),
    }
}

/// CREATE VIEW's own rule on its query (SQL Data Definition Language, CREATE VIEW's TOP: "a
/// subquery within a view definition cannot contain a TOP operator", 6916). A derived table
/// is no subquery here: TOP n in one picks its rows, as anywhere. A WITH clause is allowed:
/// the 17.05 syntax of CREATE VIEW has one (an older rules page refuses it, but dbt-teradata
/// builds views with WITH on Teradata 17.20).
struct ViewRules;

impl Visitor for ViewRules {
    type Break = ParseError;

    fn pre_visit_expr(&mut self, e: &Expr) -> ControlFlow<ParseError> {
        match subquery_of(e).and_then(top_select) {
            Some(s) => refuse(s, "subqueries in a view definition"),
            None => ControlFlow::Continue(()),
        }
    }
}

/// The query of a subquery expression (EXISTS, IN, a scalar subquery), if `e` is one.
fn subquery_of(e: &Expr) -> Option<&Query> {
    match e {
        Expr::Exists { subquery, .. }
        | Expr::In {
            target: InTarget::Subquery(subquery),
            ..
        }
        | Expr::Subquery(subquery) => Some(subquery),
        _ => None,
    }
}

struct TopRules;

fn refuse(s: &Select, what: &str) -> ControlFlow<ParseError> {
    ControlFlow::Break(ParseError {
        kind: ParseErrorKind::TopRule(what.to_string()),
        location: Location::from_sql(s.select_token.0.span.start),
        statement: 1,
    })
}

/// The SELECT of a query body, if it is one (a parenthesised query's too).
fn select_of(body: &SetExpr) -> Option<&Select> {
    match body {
        SetExpr::Select(s) => Some(s),
        SetExpr::Query(q) => select_of(&q.body),
        _ => None,
    }
}

/// The SELECT of a subquery that has TOP n, if any.
fn top_select(q: &Query) -> Option<&Select> {
    select_of(&q.body).filter(|s| s.top.is_some())
}

/// Each SELECT that is an operand of a set operation in `body`, with TOP n.
fn set_operand_with_top(body: &SetExpr) -> Option<&Select> {
    match body {
        SetExpr::SetOperation { left, right, .. } => {
            [left, right]
                .into_iter()
                .find_map(|side| match side.as_ref() {
                    SetExpr::SetOperation { .. } => set_operand_with_top(side),
                    other => select_of(other).filter(|s| s.top.is_some()),
                })
        }
        SetExpr::Query(q) => set_operand_with_top(&q.body),
        _ => None,
    }
}

/// Whether a common table expression reads itself (a recursive one).
fn names_itself(cte: &sqlparser::ast::Cte) -> bool {
    struct Finder<'a>(&'a str);
    impl Visitor for Finder<'_> {
        type Break = ();
        fn pre_visit_relation(&mut self, r: &sqlparser::ast::ObjectName) -> ControlFlow<()> {
            match r.0.as_slice() {
                [one]
                    if one
                        .as_ident()
                        .is_some_and(|i| i.value.eq_ignore_ascii_case(self.0)) =>
                {
                    ControlFlow::Break(())
                }
                _ => ControlFlow::Continue(()),
            }
        }
    }
    cte.query
        .visit(&mut Finder(&cte.alias.name.value))
        .is_break()
}

/// The first SELECT of `body` (a set operation's operands included) that has TOP n.
fn selects_with_top(body: &SetExpr) -> Option<&Select> {
    match body {
        SetExpr::SetOperation { left, right, .. } => {
            selects_with_top(left).or_else(|| selects_with_top(right))
        }
        SetExpr::Query(q) => selects_with_top(&q.body),
        SetExpr::Select(s) => s.top.is_some().then_some(&**s),
        _ => None,
    }
}

fn has_window(e: &Expr) -> bool {
    struct Finder;
    impl Visitor for Finder {
        type Break = ();
        fn pre_visit_expr(&mut self, e: &Expr) -> ControlFlow<()> {
            match e {
                Expr::Function(f) if f.over.is_some() => ControlFlow::Break(()),
                _ => ControlFlow::Continue(()),
            }
        }
    }
    e.visit(&mut Finder).is_break()
}

impl Visitor for TopRules {
    type Break = ParseError;

    fn pre_visit_query(&mut self, q: &Query) -> ControlFlow<ParseError> {
        qualify_rules(&q.body)?;
        // no TOP n in a recursive query's seed or recursive statement (a CTE of WITH
        // RECURSIVE that names itself)
        if let Some(with) = q.with.as_ref().filter(|w| w.recursive) {
            for cte in with.cte_tables.iter().filter(|c| names_itself(c)) {
                if let Some(s) = selects_with_top(&cte.query.body) {
                    return refuse(s, "recursive queries");
                }
            }
        }
        if let Some(s) = set_operand_with_top(&q.body) {
            return refuse(s, "set operations");
        }
        let Some(s) = top_select(q) else {
            return ControlFlow::Continue(());
        };
        if s.distinct.is_some() {
            return refuse(s, "DISTINCT");
        }
        if s.qualify.is_some() {
            return refuse(s, "QUALIFY clause");
        }
        if sampled(s) {
            return refuse(s, "SAMPLE clause");
        }
        let by_window = q.order_by.as_ref().is_some_and(|o| match &o.kind {
            sqlparser::ast::OrderByKind::Expressions(list) => {
                list.iter().any(|e| has_window(&e.expr))
            }
            sqlparser::ast::OrderByKind::All(_) => false,
        });
        if by_window {
            return refuse(s, "ordered analytical functions in ORDER BY");
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_table_factor(&mut self, t: &TableFactor) -> ControlFlow<ParseError> {
        match t {
            TableFactor::Derived { subquery, .. } => ordered_without_top(subquery),
            _ => ControlFlow::Continue(()),
        }
    }

    fn pre_visit_expr(&mut self, e: &Expr) -> ControlFlow<ParseError> {
        if let Some(q) = subquery_of(e) {
            ordered_without_top(q)?;
        }
        let sub = match e {
            Expr::Exists { subquery, .. }
            | Expr::In {
                target: InTarget::Subquery(subquery),
                ..
            } => Some(subquery),
            Expr::AnyOp { right, .. } | Expr::AllOp { right, .. } => match right.as_ref() {
                Expr::Subquery(q) => Some(q),
                _ => None,
            },
            Expr::BinaryOp { left, op, right } if is_comparison(op) => {
                match (left.as_ref(), right.as_ref()) {
                    (Expr::Subquery(q), _) | (_, Expr::Subquery(q)) => Some(q),
                    _ => None,
                }
            }
            _ => None,
        };
        if let Some(s) = sub.and_then(|q| select_of(&q.body)).filter(|s| sampled(s)) {
            return ControlFlow::Break(ParseError::syntax(
                "SAMPLE is not allowed in a subquery of a search condition.",
                Location::from_sql(s.select_token.0.span.start),
            ));
        }
        match sub.and_then(|q| top_select(q)) {
            Some(s) => refuse(s, "subqueries in a search condition"),
            None => ControlFlow::Continue(()),
        }
    }
}

/// Teradata's "Rules and Restrictions for the QUALIFY Clause" (SQL Data Manipulation
/// Language), for each SELECT of `body` that has QUALIFY: an ordered analytical function in
/// its select list, GROUP BY or QUALIFY; no OR joined with a subquery in the condition. Each
/// is 3706 at the SELECT.
fn qualify_rules(body: &SetExpr) -> ControlFlow<ParseError> {
    match body {
        SetExpr::SetOperation { left, right, .. } => {
            qualify_rules(left)?;
            qualify_rules(right)
        }
        SetExpr::Query(q) => qualify_rules(&q.body),
        SetExpr::Select(s) => {
            let Some(cond) = &s.qualify else {
                return ControlFlow::Continue(());
            };
            let at = Location::from_sql(s.select_token.0.span.start);
            let listed = s.projection.iter().any(|item| match item {
                sqlparser::ast::SelectItem::UnnamedExpr(e)
                | sqlparser::ast::SelectItem::ExprWithAlias { expr: e, .. } => own_window(e),
                _ => false,
            });
            let grouped = match &s.group_by {
                sqlparser::ast::GroupByExpr::Expressions(keys, _) => keys.iter().any(own_window),
                sqlparser::ast::GroupByExpr::All(_) => false,
            };
            if !(listed || grouped || own_window(cond)) {
                return ControlFlow::Break(ParseError::syntax(
                    "QUALIFY needs an ordered analytical function in the select list, the GROUP BY or the QUALIFY condition.",
                    at,
                ));
            }
            if or_with_subquery(cond) {
                return ControlFlow::Break(ParseError::syntax(
                    "QUALIFY does not allow OR with a subquery.",
                    at,
                ));
            }
            ControlFlow::Continue(())
        }
        _ => ControlFlow::Continue(()),
    }
}

/// Whether `e` calls an ordered analytical function of its own (not one inside a subquery).
fn own_window(e: &Expr) -> bool {
    struct Finder(usize);
    impl Visitor for Finder {
        type Break = ();
        fn pre_visit_query(&mut self, _: &Query) -> ControlFlow<()> {
            self.0 += 1;
            ControlFlow::Continue(())
        }
        fn post_visit_query(&mut self, _: &Query) -> ControlFlow<()> {
            self.0 -= 1;
            ControlFlow::Continue(())
        }
        fn pre_visit_expr(&mut self, e: &Expr) -> ControlFlow<()> {
            match e {
                Expr::Function(f) if f.over.is_some() && self.0 == 0 => ControlFlow::Break(()),
                _ => ControlFlow::Continue(()),
            }
        }
    }
    e.visit(&mut Finder(0)).is_break()
}

/// Whether the condition `e` joins a subquery with OR (in its own AND/OR/NOT structure, not
/// inside a subquery).
fn or_with_subquery(e: &Expr) -> bool {
    fn has_subquery(e: &Expr) -> bool {
        struct Finder;
        impl Visitor for Finder {
            type Break = ();
            fn pre_visit_query(&mut self, _: &Query) -> ControlFlow<()> {
                ControlFlow::Break(())
            }
        }
        e.visit(&mut Finder).is_break()
    }
    match e {
        Expr::BinaryOp {
            left,
            op: BinaryOperator::Or,
            right,
        } => {
            has_subquery(left)
                || has_subquery(right)
                || or_with_subquery(left)
                || or_with_subquery(right)
        }
        Expr::BinaryOp {
            left,
            op: BinaryOperator::And,
            right,
        } => or_with_subquery(left) || or_with_subquery(right),
        Expr::Nested(x) => or_with_subquery(x),
        Expr::UnaryOp { expr, .. } => or_with_subquery(expr),
        _ => false,
    }
}

/// Whether a SELECT has a SAMPLE clause (on its FROM items, where the parser puts it).
fn sampled(s: &Select) -> bool {
    s.from.iter().any(|t| {
        matches!(
            &t.relation,
            TableFactor::Table {
                sample: Some(_),
                ..
            } | TableFactor::Derived {
                sample: Some(_),
                ..
            }
        )
    })
}

/// 3706 if `q` (a derived table's or a subquery's) has ORDER BY but no TOP n.
fn ordered_without_top(q: &Query) -> ControlFlow<ParseError> {
    match order_without_top(q) {
        Some(at) => ControlFlow::Break(ParseError::syntax(
            "ORDER BY is not allowed in subqueries.",
            at,
        )),
        None => ControlFlow::Continue(()),
    }
}

/// Where `q`'s ORDER BY starts, if it has one but no TOP n.
fn order_without_top(q: &Query) -> Option<Location> {
    let order = q.order_by.as_ref()?;
    if top_select(q).is_some() {
        return None;
    }
    Some(match &order.kind {
        sqlparser::ast::OrderByKind::Expressions(list) => list
            .first()
            .and_then(|e| expr_start(&e.expr))
            .unwrap_or(Location::new(1, 1)),
        sqlparser::ast::OrderByKind::All(_) => Location::new(1, 1),
    })
}

/// Where an expression starts, if sqlparser knows.
fn expr_start(e: &Expr) -> Option<Location> {
    use sqlparser::ast::Spanned;
    let span = e.span();
    (span.start.line > 0).then(|| Location::from_sql(span.start))
}

fn is_comparison(op: &BinaryOperator) -> bool {
    matches!(
        op,
        BinaryOperator::Eq
            | BinaryOperator::NotEq
            | BinaryOperator::Lt
            | BinaryOperator::LtEq
            | BinaryOperator::Gt
            | BinaryOperator::GtEq
    )
}

#[cfg(test)]
mod tests {
    use crate::parse_request;

    fn code(sql: &str) -> Option<u32> {
        parse_request(sql).err().map(|e| e.code())
    }

    #[test]
    fn top_n_is_refused_where_teradata_refuses_it() {
        for sql in [
            "SEL TOP 1 DISTINCT a FROM t",
            "SEL TOP 1 a FROM t QUALIFY ROW_NUMBER() OVER (ORDER BY a) = 1",
            "SEL TOP 1 a FROM t SAMPLE 1",
            "SEL TOP 1 a FROM t ORDER BY RANK() OVER (ORDER BY a)",
            "SEL TOP 1 a FROM t UNION SEL a FROM t",
            "SEL a FROM t UNION ALL SEL b FROM u EXCEPT SEL TOP 2 c FROM v",
            "SEL a FROM t WHERE a IN (SEL TOP 1 a FROM t)",
            "SEL a FROM t x WHERE EXISTS (SEL TOP 1 * FROM t y WHERE y.a = x.a)",
            "SEL a FROM t WHERE a = (SEL TOP 1 a FROM t ORDER BY a)",
            "SEL a FROM t WHERE a > ANY (SEL TOP 3 a FROM t)",
            "DELETE FROM t WHERE a IN (SEL TOP 1 a FROM t)",
            "WITH RECURSIVE r (n) AS (SEL TOP 1 a FROM t UNION ALL SEL n + 1 FROM r WHERE n < 5) SEL n FROM r",
        ] {
            assert_eq!(code(sql), Some(6916), "{sql}");
        }
        for sql in [
            "SEL a FROM (SEL a FROM t ORDER BY a) d",
            "SEL a FROM t WHERE a IN (SEL a FROM t ORDER BY 1)",
            "SEL (SEL MAX(a) FROM t ORDER BY 1), b FROM u",
            "SEL a FROM t WHERE a IN (SEL a FROM t SAMPLE 2)",
            "SEL a FROM t x WHERE EXISTS (SEL 1 FROM t y WHERE y.a = x.a SAMPLE 0.5)",
            "SEL a FROM t QUALIFY a > 1",
            "SEL a, b FROM t GROUP BY a, b QUALIFY SUM(b) > 1",
            "SEL RANK() OVER (ORDER BY a) FROM t QUALIFY a IN (SEL a FROM u) OR a = 1",
            "SEL a FROM t UNION SEL a FROM u QUALIFY a = 1",
            "SEL a FROM t QUALIFY a IN (SEL a FROM u QUALIFY ROW_NUMBER() OVER (ORDER BY a) = 1)",
        ] {
            assert_eq!(code(sql), Some(3706), "{sql}");
        }
        for sql in [
            "SEL TOP 1 a FROM t ORDER BY a",
            "SEL TOP 10 PERCENT WITH TIES a FROM t ORDER BY a",
            "SEL a FROM (SEL TOP 1 a FROM t ORDER BY a) d",
            "SEL (SEL TOP 1 a FROM t ORDER BY a), b FROM u",
            "SEL a FROM t ORDER BY a",
            "SEL a FROM (SEL a FROM t) d ORDER BY a",
            "WITH c AS (SEL a FROM t) SEL TOP 1 a FROM c ORDER BY a",
            "SEL DISTINCT a FROM t UNION SEL a FROM (SEL TOP 1 a FROM t) d",
            "INSERT INTO u SEL TOP 5 a FROM t ORDER BY a",
            "SEL a FROM (SEL a FROM t SAMPLE 2) d WHERE a IN (SEL a FROM t)",
            "SEL (SEL a FROM t SAMPLE 1), b FROM u",
            "SEL a FROM t QUALIFY ROW_NUMBER() OVER (ORDER BY a) = 1",
            "SEL a, ROW_NUMBER() OVER (ORDER BY a) AS rn FROM t QUALIFY rn = 1",
            "SEL a FROM t QUALIFY RANK(a) <= 2",
            "SEL RANK() OVER (ORDER BY a) FROM t QUALIFY a IN (SEL a FROM u) AND a = 1",
            "SEL a, RANK() OVER (ORDER BY b) r FROM t QUALIFY a IN (SEL x FROM u WHERE y = 1 OR y IN (SEL z FROM v))",
            "WITH RECURSIVE a AS (SEL TOP 5 x FROM t), r (n) AS (SEL x FROM a UNION ALL SEL n + 1 FROM r WHERE n < 9) SEL * FROM r",
        ] {
            assert_eq!(code(sql), None, "{sql}");
        }
    }
}
