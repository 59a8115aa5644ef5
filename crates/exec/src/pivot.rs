//! PIVOT and UNPIVOT in FROM (SQL Functions, Expressions, and Predicates, "PIVOT" and
//! "UNPIVOT"), written as the queries the manual gives as their meaning, which the FROM
//! clause then runs as a derived table (join.rs):
//!
//! - `src PIVOT (agg(x) [AS a], … FOR c IN (v [AS n], …))` groups by the source's other columns
//!   (those neither an aggregate nor the FOR clause names) and gives, per value and aggregate,
//!   `agg(CASE WHEN c = v THEN x END)` named `n` (the value itself where it has no alias: 'Jan'
//!   names the column Jan), or `n_a` where the aggregate has an alias. `FOR (c1, c2) IN ((v1,
//!   v2) AS n, …)` compares each column.
//! - `src UNPIVOT [INCLUDE|EXCLUDE NULLS] (m FOR c IN (x [AS 'n'], …))` gives, per source row
//!   and listed column, the other columns, c (the alias, or the column's name) and m (its
//!   value); rows whose values are all NULL are left out unless INCLUDE NULLS. `(m1, m2) FOR c
//!   IN ((x1, x2) AS 'n', …)` unpivots several columns at once.
//!
//! Invariant: the source is the FROM item as written, read once per query built here; its
//! columns' names (from `columns`) decide which columns are carried through.

use crate::error::{Error, Result};
use sqlparser::ast;
use tdlite_storage::types::SqlType;

/// The query a PIVOT means, over a source whose columns are `columns`.
///
/// # Errors
/// 9910 for a dynamic IN list (ANY, a subquery) or DEFAULT ON NULL; 9913 for two output
/// columns of one name (several aggregates without aliases).
pub(crate) fn pivot_query(
    source: &ast::TableFactor,
    aggregates: &[ast::ExprWithAlias],
    value_column: &[ast::Expr],
    values: &ast::PivotValueSource,
    default_on_null: Option<&ast::Expr>,
    columns: &[(String, Option<SqlType>)],
) -> Result<ast::Query> {
    let ast::PivotValueSource::List(values) = values else {
        return Err(Error::Unsupported("PIVOT … IN (ANY | a subquery)".into()));
    };
    if default_on_null.is_some() {
        return Err(Error::Unsupported("PIVOT … DEFAULT ON NULL".into()));
    }
    let mut named: Vec<String> = Vec::new();
    for e in aggregates.iter().map(|a| &a.expr).chain(value_column) {
        named.extend(names_in(e));
    }
    let group: Vec<String> = carried(columns, &named);
    let mut items: Vec<String> = group.iter().map(|g| quoted(g)).collect();
    // the new columns' names must differ from each other and from the carried ones
    let mut out_names: Vec<String> = group.clone();
    for v in values {
        let v_name = v
            .alias
            .as_ref()
            .map_or_else(|| value_name(&v.expr), |a| a.value.clone());
        let v_items: Vec<&ast::Expr> = match (&v.expr, value_column.len()) {
            (ast::Expr::Tuple(items), n) if n > 1 => items.iter().collect(),
            (e, _) => vec![e],
        };
        if v_items.len() != value_column.len() {
            return Err(Error::TypeMismatch(format!(
                "PIVOT: {} has {} values for {} columns",
                v.expr,
                v_items.len(),
                value_column.len()
            )));
        }
        let cond: Vec<String> = value_column
            .iter()
            .zip(&v_items)
            .map(|(c, x)| format!("({c}) = ({x})"))
            .collect();
        let cond = cond.join(" AND ");
        for a in aggregates {
            let ast::Expr::Function(f) = &a.expr else {
                return Err(Error::TypeMismatch(format!(
                    "PIVOT takes aggregate calls, not {}",
                    a.expr
                )));
            };
            let (arg, distinct) = match &f.args {
                ast::FunctionArguments::List(l) => match l.args.as_slice() {
                    [ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Wildcard)] => {
                        ("1".to_string(), false)
                    }
                    [ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(x))] => (
                        x.to_string(),
                        matches!(
                            l.duplicate_treatment,
                            Some(ast::DuplicateTreatment::Distinct)
                        ),
                    ),
                    _ => {
                        return Err(Error::TypeMismatch(format!(
                            "PIVOT: {} takes one argument",
                            f.name
                        )))
                    }
                },
                _ => {
                    return Err(Error::TypeMismatch(format!(
                        "PIVOT takes aggregate calls, not {}",
                        a.expr
                    )))
                }
            };
            let name = match &a.alias {
                Some(al) => format!("{v_name}_{}", al.value),
                None => v_name.clone(),
            };
            if out_names.iter().any(|n| n.eq_ignore_ascii_case(&name)) {
                return Err(Error::TypeMismatch(format!(
                    "PIVOT makes two columns named {name}: give the values or aggregates other aliases"
                )));
            }
            items.push(format!(
                "{}({}CASE WHEN {cond} THEN {arg} END) AS {}",
                f.name,
                if distinct { "DISTINCT " } else { "" },
                quoted(&name)
            ));
            out_names.push(name);
        }
    }
    let group_by = match group.is_empty() {
        true => String::new(),
        false => format!(
            " GROUP BY {}",
            group
                .iter()
                .map(|g| quoted(g))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    query_over(
        &format!("SELECT {} FROM {SOURCE}{group_by}", items.join(", ")),
        source,
    )
}

/// The query an UNPIVOT means, over a source whose columns are `columns`.
///
/// # Errors
/// 9913 for an IN item with another number of columns than the measures.
pub(crate) fn unpivot_query(
    source: &ast::TableFactor,
    value: &ast::Expr,
    name: &ast::Ident,
    listed: &[ast::ExprWithAlias],
    include_nulls: bool,
    columns: &[(String, Option<SqlType>)],
) -> Result<ast::Query> {
    let measures: Vec<&ast::Expr> = match value {
        ast::Expr::Tuple(items) => items.iter().collect(),
        e => vec![e],
    };
    let mut named: Vec<String> = Vec::new();
    for c in listed {
        named.extend(names_in(&c.expr));
    }
    let carried = carried(columns, &named);
    // the new columns' names differ from the carried ones
    for n in measures
        .iter()
        .map(|m| value_name(m))
        .chain([name.value.clone()])
    {
        if carried.iter().any(|c| c.eq_ignore_ascii_case(&n)) {
            return Err(Error::TypeMismatch(format!(
                "UNPIVOT's column {n} has the name of a column of its source"
            )));
        }
    }
    let mut rows: Vec<(String, Vec<&ast::Expr>)> = Vec::new();
    for c in listed {
        let sources: Vec<&ast::Expr> = match &c.expr {
            ast::Expr::Tuple(items) => items.iter().collect(),
            e => vec![e],
        };
        if sources.len() != measures.len() {
            return Err(Error::TypeMismatch(format!(
                "UNPIVOT: {} has {} columns for {} measures",
                c.expr,
                sources.len(),
                measures.len()
            )));
        }
        let label = match &c.alias {
            Some(a) => a.value.clone(),
            None => sources
                .iter()
                .map(|s| value_name(s))
                .collect::<Vec<_>>()
                .join("_"),
        };
        rows.push((label, sources));
    }
    // every branch gives its label and values one type, wide enough for all of them (the
    // first query of a UNION would otherwise cut the others to its own)
    let label_len = (rows.iter().map(|(l, _)| l.chars().count()))
        .max()
        .unwrap_or(1)
        .max(1);
    let measure_types: Vec<Option<String>> = (0..measures.len())
        .map(|k| common_text_type(rows.iter().map(|(_, s)| s[k]), columns))
        .collect();
    let mut branches = Vec::new();
    for (label, sources) in &rows {
        let mut items: Vec<String> = carried.iter().map(|g| quoted(g)).collect();
        items.push(format!(
            "CAST('{}' AS VARCHAR({label_len})) AS {}",
            label.replace('\'', "''"),
            quoted(&name.value)
        ));
        for ((m, s), ty) in measures.iter().zip(sources).zip(&measure_types) {
            let value = match ty {
                Some(t) => format!("CAST(({s}) AS {t})"),
                None => s.to_string(),
            };
            items.push(format!("{value} AS {}", quoted(&value_name(m))));
        }
        let filter = match include_nulls {
            true => String::new(),
            false => format!(
                " WHERE {}",
                sources
                    .iter()
                    .map(|s| format!("({s}) IS NOT NULL"))
                    .collect::<Vec<_>>()
                    .join(" OR ")
            ),
        };
        branches.push(format!("SELECT {} FROM {SOURCE}{filter}", items.join(", ")));
    }
    query_over(&branches.join(" UNION ALL "), source)
}

/// The placeholder the queries built here read from, replaced by the source.
const SOURCE: &str = "\"tdlite pivot source\"";

/// `sql` parsed, every FROM item named [`SOURCE`] replaced by `source`.
fn query_over(sql: &str, source: &ast::TableFactor) -> Result<ast::Query> {
    let stmts = tdlite_parser::parse_request(sql)?;
    let Some(tdlite_parser::Statement::Sql(s)) = stmts.into_iter().next().map(|s| s.statement)
    else {
        return Err(Error::Internal("PIVOT's query".into()));
    };
    let ast::Statement::Query(mut q) = *s else {
        return Err(Error::Internal("PIVOT's query".into()));
    };
    replace_source(q.body.as_mut(), source);
    Ok(*q)
}

/// Puts `source` where the placeholder is, in each query of a set operation.
fn replace_source(body: &mut ast::SetExpr, source: &ast::TableFactor) {
    match body {
        ast::SetExpr::Select(s) => {
            for t in &mut s.from {
                t.relation = source.clone();
            }
        }
        ast::SetExpr::SetOperation { left, right, .. } => {
            replace_source(left, source);
            replace_source(right, source);
        }
        _ => {}
    }
}

/// The source's columns that are not in `named` (compared case-insensitively).
fn carried(columns: &[(String, Option<SqlType>)], named: &[String]) -> Vec<String> {
    columns
        .iter()
        .filter(|(c, _)| !named.iter().any(|n| n.eq_ignore_ascii_case(c)))
        .map(|(c, _)| c.clone())
        .collect()
}

/// The VARCHAR that holds the values of all `sources` where one is character data: as long as
/// the longest declared one, or VARCHAR(64000) where one's length is not known; `None` where
/// none is character data (numbers keep the first query's type, as a UNION gives it).
fn common_text_type<'e>(
    sources: impl Iterator<Item = &'e ast::Expr>,
    columns: &[(String, Option<SqlType>)],
) -> Option<String> {
    let mut text = false;
    let mut longest = Some(1u32);
    for s in sources {
        let declared = match s {
            ast::Expr::Identifier(_) | ast::Expr::CompoundIdentifier(_) => {
                let n = value_name(s);
                columns
                    .iter()
                    .find(|(c, _)| c.eq_ignore_ascii_case(&n))
                    .and_then(|(_, t)| *t)
            }
            _ => None,
        };
        match declared {
            Some(SqlType::Char(n) | SqlType::VarChar(n)) => {
                text = true;
                longest = longest.map(|l| l.max(n));
            }
            Some(_) => {}
            None => longest = None,
        }
    }
    text.then(|| format!("VARCHAR({})", longest.unwrap_or(64_000)))
}

/// The column names an expression reads (a qualified name's last part).
fn names_in(e: &ast::Expr) -> Vec<String> {
    let mut out = Vec::new();
    let _ = ast::visit_expressions(e, |x| {
        match x {
            ast::Expr::Identifier(i) => out.push(i.value.clone()),
            ast::Expr::CompoundIdentifier(p) => out.extend(p.last().map(|i| i.value.clone())),
            _ => {}
        }
        std::ops::ControlFlow::<()>::Continue(())
    });
    out
}

/// The name a value gives a column where it has no alias: a string's text, else the value as
/// written.
fn value_name(e: &ast::Expr) -> String {
    match e {
        ast::Expr::Value(v) => match &v.value {
            ast::Value::SingleQuotedString(s) => s.clone(),
            other => other.to_string(),
        },
        ast::Expr::Identifier(i) => i.value.clone(),
        ast::Expr::CompoundIdentifier(p) => {
            p.last().map_or_else(|| e.to_string(), |i| i.value.clone())
        }
        other => other.to_string(),
    }
}

/// `name` as a quoted identifier.
fn quoted(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}
