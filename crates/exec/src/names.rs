//! Names in a query: the scope a table's columns make, select-list aliases (WHERE, QUALIFY
//! and the select list may name them, as Teradata allows; a column of the same name wins),
//! and each output column's heading, TITLE and TIME/TIMESTAMP display precision.

use crate::bind::{Scope, ScopeColumn};
use crate::error::{Error, Result};
use sqlparser::ast;
use tdlite_storage::table::Table;
use tdlite_storage::types::SqlType;

/// Scope for a table's columns, qualified by `qualifier`.
pub fn table_scope(table: &Table, qualifier: &str) -> Scope {
    schema_scope(&table.schema, qualifier)
}

/// Scope for a table definition's columns, qualified by `qualifier`.
pub fn schema_scope(schema: &tdlite_storage::catalog::TableSchema, qualifier: &str) -> Scope {
    Scope {
        columns: schema
            .columns
            .iter()
            .map(|c| ScopeColumn {
                qualifier: Some(qualifier.to_ascii_uppercase()),
                name: c.name.clone(),
                case_specific: c.case_specific,
                title: c.title.clone(),
                precision: match c.ty {
                    SqlType::Time(p) | SqlType::Timestamp(p) => Some(p),
                    _ => None,
                },
            })
            .collect(),
    }
}

/// The select-list expression aliased `name`, if any.
fn aliased<'a>(name: &str, projection: &'a [ast::SelectItem]) -> Option<&'a ast::Expr> {
    projection.iter().find_map(|i| match i {
        ast::SelectItem::ExprWithAlias { expr, alias }
            if alias.value.eq_ignore_ascii_case(name) =>
        {
            Some(expr)
        }
        _ => None,
    })
}

/// `e` with the bare name `name` replaced by `by`, outside subqueries (a subquery's names are
/// its own).
fn with_alias(e: &ast::Expr, name: &str, by: &ast::Expr) -> ast::Expr {
    struct Substitute<'a> {
        name: &'a str,
        by: &'a ast::Expr,
        depth: usize,
    }
    impl ast::VisitorMut for Substitute<'_> {
        type Break = ();
        fn pre_visit_query(&mut self, _: &mut ast::Query) -> std::ops::ControlFlow<()> {
            self.depth += 1;
            std::ops::ControlFlow::Continue(())
        }
        fn post_visit_query(&mut self, _: &mut ast::Query) -> std::ops::ControlFlow<()> {
            self.depth -= 1;
            std::ops::ControlFlow::Continue(())
        }
        fn post_visit_expr(&mut self, x: &mut ast::Expr) -> std::ops::ControlFlow<()> {
            if let ast::Expr::Identifier(id) = x {
                if self.depth == 0 && id.value.eq_ignore_ascii_case(self.name) {
                    *x = ast::Expr::Nested(Box::new(self.by.clone()));
                }
            }
            std::ops::ControlFlow::Continue(())
        }
    }
    let mut e = e.clone();
    let _ = ast::VisitMut::visit(&mut e, &mut Substitute { name, by, depth: 0 });
    e
}

/// Runs `attempt` on `e`; while it fails on a name that no column has but a select-list alias
/// does, puts the aliased expression in that name's place and tries again. So WHERE, QUALIFY
/// and the select list may name aliases, as Teradata allows, and a column of the same name
/// wins (it never fails).
pub(crate) fn resolving_aliases<T>(
    e: &ast::Expr,
    projection: &[ast::SelectItem],
    mut attempt: impl FnMut(&ast::Expr) -> Result<T>,
) -> Result<T> {
    let mut e = std::borrow::Cow::Borrowed(e);
    // each round replaces a name not replaced before (an alias defined by its own name, or
    // two by each other, fails instead of growing)
    let mut replaced: Vec<String> = Vec::new();
    for _ in 0..=projection.len() {
        match attempt(&e) {
            Err(Error::ColumnNotFound(n)) => {
                let Some(by) = aliased(&n, projection) else {
                    return Err(Error::ColumnNotFound(n));
                };
                if replaced.iter().any(|r| r.eq_ignore_ascii_case(&n)) {
                    return Err(Error::ColumnNotFound(n));
                }
                replaced.push(n.clone());
                let next = with_alias(&e, &n, by);
                if next == *e {
                    return Err(Error::ColumnNotFound(n));
                }
                e = std::borrow::Cow::Owned(next);
            }
            other => return other,
        }
    }
    attempt(&e)
}

/// The expression a select item's heading comes from, and its TITLE phrase: Teradata's
/// attribute phrases (TITLE, NAMED, [NOT] CASESPECIFIC, FORMAT) leave the heading as it was;
/// the outermost TITLE written anywhere among the item's phrases (or after its last operand)
/// is its title.
pub(crate) fn peel_title(e: &ast::Expr) -> (ast::Expr, Option<String>) {
    fn title(e: &ast::Expr) -> Option<String> {
        if let Some((_, t)) = tdlite_parser::phrase::title(e) {
            return Some(t.to_string());
        }
        match e {
            ast::Expr::Named { expr, .. }
            | ast::Expr::Collate { expr, .. }
            | ast::Expr::Cast { expr, .. } => title(expr),
            // `a || b (TITLE 't')`: the phrase follows the last operand, and a title can only
            // be the item's (BTEQ's `(TITLE '')` idiom for a report without a heading)
            ast::Expr::BinaryOp { right, .. } => title(right),
            _ => None,
        }
    }
    fn heading(e: &ast::Expr) -> ast::Expr {
        if let Some((inner, _)) = tdlite_parser::phrase::title(e) {
            return heading(inner);
        }
        match e {
            ast::Expr::Named { expr, .. } | ast::Expr::Collate { expr, .. } => heading(expr),
            ast::Expr::Cast { expr, .. } if tdlite_parser::phrase::is_format_phrase(e) => {
                match &**expr {
                    // `DATE (FORMAT …)` reached sqlparser as `(DATE) (FORMAT …)`
                    ast::Expr::Nested(x) if matches!(**x, ast::Expr::Identifier(_)) => {
                        (**x).clone()
                    }
                    x => heading(x),
                }
            }
            // `name (CS)`, which the parser read as a call: the column's heading
            ast::Expr::Function(f) if crate::bind::is_cs_phrase_call(f) => {
                ast::Expr::CompoundIdentifier(
                    f.name
                        .0
                        .iter()
                        .filter_map(|p| p.as_ident().cloned())
                        .collect(),
                )
            }
            _ => e.clone(),
        }
    }
    (tdlite_parser::phrase::without_titles(&heading(e)), title(e))
}

pub(crate) fn column_heading(e: &ast::Expr, scope: &Scope) -> (String, Option<String>) {
    let col = match e {
        ast::Expr::Identifier(id) => Some(id.value.clone()),
        ast::Expr::CompoundIdentifier(p) => p.last().map(|i| i.value.clone()),
        _ => None,
    };
    match col {
        Some(c) => {
            let title = scope
                .columns
                .iter()
                .find(|sc| sc.name.eq_ignore_ascii_case(&c))
                .and_then(|sc| sc.title.clone());
            let name = scope
                .columns
                .iter()
                .find(|sc| sc.name.eq_ignore_ascii_case(&c))
                .map(|sc| sc.name.clone())
                // not a column: DATE, TIME, CURRENT_DATE… have Teradata's headings
                .unwrap_or_else(|| match e {
                    ast::Expr::Identifier(_) => expression_heading(e),
                    _ => c,
                });
            (name, title)
        }
        None => (expression_heading(e), None),
    }
}

/// Teradata's heading of an unnamed expression: the session values by their names
/// (`Current TimeStamp(6)`, `Current Date`, `Current Time(0)`, `Date`, `Time`), a CAST by
/// its operand's (dbt-teradata reads `cast(current_timestamp(0) as timestamp(0))` as
/// `Current TimeStamp(0)`), anything else as written.
fn expression_heading(e: &ast::Expr) -> String {
    match e {
        ast::Expr::Cast { expr, .. } if !tdlite_parser::phrase::is_format_phrase(e) => {
            match &**expr {
                ast::Expr::Identifier(id) => id.value.clone(),
                ast::Expr::CompoundIdentifier(p) => p
                    .last()
                    .map_or_else(|| expr.to_string(), |i| i.value.clone()),
                x => expression_heading(x),
            }
        }
        ast::Expr::Function(f) => {
            match tdlite_parser::object_name_string(&f.name)
                .to_ascii_uppercase()
                .as_str()
            {
                "CURRENT_TIMESTAMP" => {
                    format!("Current TimeStamp({})", precision_arg(&f.args).unwrap_or(6))
                }
                "CURRENT_TIME" => {
                    format!("Current Time({})", precision_arg(&f.args).unwrap_or(0))
                }
                "CURRENT_DATE" => "Current Date".to_string(),
                _ => e.to_string(),
            }
        }
        ast::Expr::Identifier(id) if id.quote_style.is_none() => {
            match id.value.to_ascii_uppercase().as_str() {
                "CURRENT_TIMESTAMP" => "Current TimeStamp(6)".to_string(),
                "CURRENT_TIME" => "Current Time(0)".to_string(),
                "CURRENT_DATE" => "Current Date".to_string(),
                "DATE" => "Date".to_string(),
                "TIME" => "Time".to_string(),
                _ => e.to_string(),
            }
        }
        _ => e.to_string(),
    }
}

/// The precision written as the one argument of `CURRENT_TIME(n)` / `CURRENT_TIMESTAMP(n)`.
fn precision_arg(args: &ast::FunctionArguments) -> Option<u8> {
    match args {
        ast::FunctionArguments::List(l) => match l.args.as_slice() {
            [ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(ast::Expr::Value(v)))] => {
                match &v.value {
                    ast::Value::Number(n, _) => n.parse::<u8>().ok(),
                    _ => None,
                }
            }
            _ => None,
        },
        _ => None,
    }
}

/// The fractional digits of a TIME or TIMESTAMP select item, where its type says: a column (as
/// declared), a CAST to TIME(n)/TIMESTAMP(n), CURRENT_TIME[(n)] (0 unless given) and
/// CURRENT_TIMESTAMP[(n)] (6). `None` elsewhere: the value is shown with six.
pub(crate) fn time_precision(e: &ast::Expr, scope: &Scope) -> Option<u8> {
    match e {
        ast::Expr::Identifier(_) | ast::Expr::CompoundIdentifier(_) => {
            let (qualifier, name) = match e {
                ast::Expr::CompoundIdentifier(p) if p.len() >= 2 => (
                    Some(p[p.len() - 2].value.as_str()),
                    p[p.len() - 1].value.as_str(),
                ),
                ast::Expr::CompoundIdentifier(p) => (None, p.last()?.value.as_str()),
                ast::Expr::Identifier(i) => (None, i.value.as_str()),
                _ => return None,
            };
            match scope.resolve(qualifier, name) {
                Ok(Some(i)) => scope.columns[i].precision,
                _ if qualifier.is_none() => match name.to_ascii_uppercase().as_str() {
                    "CURRENT_TIME" | "TIME" => Some(0),
                    "CURRENT_TIMESTAMP" => Some(6),
                    _ => None,
                },
                _ => None,
            }
        }
        ast::Expr::Nested(x) => time_precision(x, scope),
        ast::Expr::Cast {
            data_type: ast::DataType::Time(p, _) | ast::DataType::Timestamp(p, _),
            ..
        } => Some(p.map_or(6, |p| u8::try_from(p.min(6)).unwrap_or(6))),
        ast::Expr::Function(f) => {
            match tdlite_parser::object_name_string(&f.name)
                .to_ascii_uppercase()
                .as_str()
            {
                "CURRENT_TIME" => Some(precision_arg(&f.args).unwrap_or(0)),
                "CURRENT_TIMESTAMP" => Some(precision_arg(&f.args).unwrap_or(6)),
                _ => None,
            }
        }
        _ => None,
    }
}
