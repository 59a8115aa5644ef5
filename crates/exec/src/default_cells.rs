//! Teradata's DEFAULT in a VALUES cell or a SET value (SQL Data Manipulation Language, INSERT,
//! "Example: Simple INSERT Requests Using a DEFAULT Function"; SQL Functions, Expressions, and
//! Predicates, "DEFAULT"): `DEFAULT` stands for the target column's default, `DEFAULT(c)` for
//! column c's, and `INSERT INTO t DEFAULT VALUES` inserts a row of every column's default. A
//! column without a DEFAULT clause has NULL as its default.
//!
//! Invariant: a default cell is the value an INSERT that leaves the column out would store
//! (`Exec::default_cell` in dml.rs: the same `default_array`, CURRENT_TIMESTAMP of the request
//! included), converted to the target column as any other cell is.

use sqlparser::ast;
use tdlite_storage::table::Table;

/// Which column's default a DEFAULT names.
pub(crate) enum DefaultOf {
    /// `DEFAULT`: the target column's.
    Own,
    /// `DEFAULT(c)`: column c's.
    Column(String),
}

/// What `e` is if it is Teradata's DEFAULT (an unquoted `DEFAULT`, or `DEFAULT(c)`).
pub(crate) fn default_of(e: &ast::Expr) -> Option<DefaultOf> {
    let named = |i: &ast::Ident| i.quote_style.is_none() && i.value.eq_ignore_ascii_case("DEFAULT");
    match e {
        ast::Expr::Identifier(i) if named(i) => Some(DefaultOf::Own),
        ast::Expr::Function(f) => {
            let [ast::ObjectNamePart::Identifier(name)] = f.name.0.as_slice() else {
                return None;
            };
            if !named(name) || f.over.is_some() {
                return None;
            }
            let ast::FunctionArguments::List(list) = &f.args else {
                return None;
            };
            match list.args.as_slice() {
                [ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(c))] => match c {
                    ast::Expr::Identifier(i) => Some(DefaultOf::Column(i.value.clone())),
                    ast::Expr::CompoundIdentifier(parts) => {
                        parts.last().map(|i| DefaultOf::Column(i.value.clone()))
                    }
                    _ => None,
                },
                _ => None,
            }
        }
        _ => None,
    }
}

/// `DEFAULT(c)` as a cell.
pub(crate) fn default_of_column(c: &str) -> ast::Expr {
    let f = ast::Function {
        name: ast::ObjectName::from(vec![ast::Ident::new("DEFAULT")]),
        uses_odbc_syntax: false,
        parameters: ast::FunctionArguments::None,
        args: ast::FunctionArguments::List(ast::FunctionArgumentList {
            duplicate_treatment: None,
            args: vec![ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(
                ast::Expr::Identifier(ast::Ident::new(c)),
            ))],
            clauses: Vec::new(),
        }),
        filter: None,
        null_treatment: None,
        over: None,
        within_group: Vec::new(),
    };
    ast::Expr::Function(f)
}

/// True if any of `cells` is a DEFAULT.
pub(crate) fn any_default(cells: &[ast::Expr]) -> bool {
    cells.iter().any(|e| default_of(e).is_some())
}

/// `INSERT INTO t DEFAULT VALUES`: one row, every column DEFAULT.
pub(crate) fn default_row(table: &Table) -> Vec<ast::Expr> {
    let cell = ast::Expr::Identifier(ast::Ident::new("DEFAULT"));
    vec![cell; table.schema.columns.len()]
}
