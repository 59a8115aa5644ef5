//! The declared character type (CHAR(n) or VARCHAR(n)) of a select item, where the item's
//! syntax says it: Arrow keeps no string length, so a query's result column would otherwise
//! be "some text". Used by CREATE TABLE … AS (query) (the new table's column types), by
//! TYPE(), and carried through derived tables and views in the fields' metadata
//! (`types::TEXT_TYPE_KEY`, read back by `types::text_type_of_field`).
//!
//! Teradata's rules (SQL Data Types and Literals; SQL Functions, Expressions, and Predicates):
//! a column has its declared type; a character literal `'abc'` is VARCHAR(3); CAST (and the
//! `x (VARCHAR(n))` conversion) to a character type is that type; `a || b` of two CHARs is
//! CHAR(n + m), else VARCHAR(n + m); TRIM and SUBSTR/SUBSTRING of a character value are a
//! VARCHAR of its length; UPPER/LOWER keep the type. Anything else is unknown (`None`), and
//! its users keep their former choice (VARCHAR(64000)).
//!
//! Invariant: a type given is never shorter than a value the expression can produce.

use crate::bind::Scope;
use crate::types::text_length as length;
use sqlparser::ast;
use tdlite_storage::types::SqlType;

/// The longest character type.
const MAX_CHARS: u32 = 64_000;

/// The declared character type of `e` over `scope`, where its syntax says it.
pub(crate) fn text_type(e: &ast::Expr, scope: &Scope) -> Option<SqlType> {
    crate::stack::deep(|| text_type_level(e, scope))
}

fn text_type_level(e: &ast::Expr, scope: &Scope) -> Option<SqlType> {
    let t = match e {
        ast::Expr::Identifier(_) | ast::Expr::CompoundIdentifier(_) => {
            let (qualifier, name) = crate::names::column_parts(e)?;
            let i = scope.resolve(qualifier, name).ok()??;
            scope.columns[i].text
        }
        ast::Expr::Nested(x) => text_type(x, scope),
        ast::Expr::Value(v) => match &v.value {
            ast::Value::SingleQuotedString(s) => {
                Some(SqlType::VarChar(u32::try_from(s.chars().count()).ok()?))
            }
            _ => None,
        },
        ast::Expr::Cast {
            data_type,
            format: None,
            ..
        } => crate::types::sql_type_from_name(&data_type.to_string()).ok(),
        ast::Expr::BinaryOp {
            left,
            op: ast::BinaryOperator::StringConcat,
            right,
        } => {
            let (l, r) = (text_type(left, scope)?, text_type(right, scope)?);
            let n = length(l)?.saturating_add(length(r)?).min(MAX_CHARS);
            match (l, r) {
                (SqlType::Char(_), SqlType::Char(_)) => Some(SqlType::Char(n)),
                _ => Some(SqlType::VarChar(n)),
            }
        }
        ast::Expr::Trim { expr, .. } | ast::Expr::Substring { expr, .. } => {
            Some(SqlType::VarChar(length(text_type(expr, scope)?)?))
        }
        ast::Expr::Function(f) => {
            let name = tdlite_parser::object_name_string(&f.name).to_ascii_uppercase();
            let first = match &f.args {
                ast::FunctionArguments::List(l) => match l.args.first() {
                    Some(ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(x))) => x,
                    _ => return None,
                },
                _ => return None,
            };
            let of_first = text_type(first, scope);
            match name.as_str() {
                // MAX and MIN have their argument's type (MAX "Result Type and Attributes")
                "UPPER" | "LOWER" | "MAX" | "MIN" | "MAXIMUM" | "MINIMUM" => of_first,
                "TRIM" | "LTRIM" | "RTRIM" | "SUBSTR" | "SUBSTRING" => {
                    Some(SqlType::VarChar(length(of_first?)?))
                }
                _ => None,
            }
        }
        _ => None,
    };
    t.filter(|t| length(*t).is_some())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bind::ScopeColumn;

    fn scope() -> Scope {
        let col = |name: &str, text| ScopeColumn {
            qualifier: Some("T".into()),
            name: name.into(),
            text,
            ..ScopeColumn::unnamed()
        };
        Scope {
            columns: vec![
                col("c5", Some(SqlType::Char(5))),
                col("v20", Some(SqlType::VarChar(20))),
                col("n", None),
            ],
        }
    }

    fn of(sql: &str) -> Option<SqlType> {
        let e = tdlite_parser::parse_expression(sql).unwrap();
        text_type(&e, &scope())
    }

    #[test]
    fn types_follow_teradata_rules() {
        assert_eq!(of("c5"), Some(SqlType::Char(5)));
        assert_eq!(of("t.v20"), Some(SqlType::VarChar(20)));
        assert_eq!(of("'abc'"), Some(SqlType::VarChar(3)));
        assert_eq!(of("c5 || c5"), Some(SqlType::Char(10)));
        assert_eq!(of("c5 || 'x'"), Some(SqlType::VarChar(6)));
        assert_eq!(of("TRIM(c5)"), Some(SqlType::VarChar(5)));
        assert_eq!(of("SUBSTR(v20, 2, 3)"), Some(SqlType::VarChar(20)));
        assert_eq!(of("UPPER(c5)"), Some(SqlType::Char(5)));
        assert_eq!(of("CAST(n AS CHAR(7))"), Some(SqlType::Char(7)));
        assert_eq!(of("(c5)"), Some(SqlType::Char(5)));
    }

    #[test]
    fn unknown_where_the_syntax_does_not_say() {
        assert_eq!(of("n"), None);
        assert_eq!(of("c5 || n"), None);
        assert_eq!(of("CAST(c5 AS INTEGER)"), None);
        assert_eq!(of("COALESCE(c5, 'x')"), None);
        assert_eq!(of("1"), None);
    }
}
