//! Names in a query: the scope a table's columns make, select-list aliases (WHERE, QUALIFY
//! and the select list may name them, as Teradata allows; a column of the same name wins),
//! each output column's heading, TITLE and TIME/TIMESTAMP display precision, and the column
//! names a block may read (so that its tables' other columns need not be copied).

use crate::bind::{Scope, ScopeColumn};
use crate::error::{Error, Result};
use crate::expr::Expr;
use sqlparser::ast::{self, Visit, Visitor};
use std::collections::HashSet;
use std::ops::ControlFlow;
use tdlite_storage::period::PeriodElem;
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
                    SqlType::Time(p)
                    | SqlType::Timestamp(p)
                    | SqlType::Period(PeriodElem::Time(p) | PeriodElem::Timestamp(p)) => Some(p),
                    _ => None,
                },
                format: c.format.clone(),
                text: matches!(c.ty, SqlType::Char(_) | SqlType::VarChar(_)).then_some(c.ty),
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
        if let Some((x, _)) = tdlite_parser::phrase::format_phrase(e) {
            return title(x);
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
            _ if tdlite_parser::phrase::format_phrase(e).is_some() => {
                match tdlite_parser::phrase::format_phrase(e).map(|(x, _)| x) {
                    // `DATE (FORMAT …)` reached sqlparser as `(DATE) (FORMAT …)`
                    Some(ast::Expr::Nested(x)) if matches!(**x, ast::Expr::Identifier(_)) => {
                        (**x).clone()
                    }
                    Some(x) => heading(x),
                    None => e.clone(),
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
    let mut shown = tdlite_parser::phrase::without_display_phrases(&heading(e));
    // a conversion phrase `x (CHAR(3))` is headed as the CAST it is like
    let _ = ast::visit_expressions_mut(&mut shown, |x| {
        if let ast::Expr::Cast { kind, .. } = x {
            if *kind == ast::CastKind::DoubleColon {
                *kind = ast::CastKind::Cast;
            }
        }
        // a PERIOD literal is headed as written
        if let Some(written) = tdlite_parser::period_literal_as_written(x) {
            *x = written;
        }
        std::ops::ControlFlow::<()>::Continue(())
    });
    (shown, title(e))
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
        // `(d1 - d2) DAY(4)` reads as written wherever it is (the parser made it a call)
        None => (
            tdlite_parser::interval_qualifier::as_written(&expression_heading(e)),
            None,
        ),
    }
}

/// Teradata's heading of an unnamed expression: the session values by their names
/// (`Current TimeStamp(6)`, `Current Date`, `Current Time(0)`, `Date`, `Time`), a CAST by
/// its operand's (dbt-teradata reads `cast(current_timestamp(0) as timestamp(0))` as
/// `Current TimeStamp(0)`), anything else as written.
fn expression_heading(e: &ast::Expr) -> String {
    match e {
        ast::Expr::Cast { expr, .. } => match &**expr {
            ast::Expr::Identifier(id) => id.value.clone(),
            ast::Expr::CompoundIdentifier(p) => p
                .last()
                .map_or_else(|| as_written(expr), |i| i.value.clone()),
            x => expression_heading(x),
        },
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
                // an aggregate's default title names it in words (`Count(*)`, `Average(x)`,
                // `Maximum(x)`), its arguments as written
                name if f.over.is_none() => match aggregate_title(name) {
                    Some(title) => {
                        let text = as_written(e);
                        let args = text.find('(').map_or("", |at| &text[at..]);
                        format!("{title}{args}")
                    }
                    None => as_written(e),
                },
                _ => as_written(e),
            }
        }
        ast::Expr::Identifier(id) if id.quote_style.is_none() => {
            match id.value.to_ascii_uppercase().as_str() {
                "CURRENT_TIMESTAMP" => "Current TimeStamp(6)".to_string(),
                "CURRENT_TIME" => "Current Time(0)".to_string(),
                "CURRENT_DATE" => "Current Date".to_string(),
                "DATE" => "Date".to_string(),
                "TIME" => "Time".to_string(),
                // Teradata's heading of the sample's number
                "SAMPLEID" => "SampleId".to_string(),
                _ => as_written(e),
            }
        }
        _ => as_written(e),
    }
}

/// The text of `e` with Teradata's operators as written: the parser reads `MOD` as `%` and
/// `**` as `^`, which a heading must not show.
fn as_written(e: &ast::Expr) -> String {
    let mut e = e.clone();
    let _ = ast::visit_expressions_mut(&mut e, |x| {
        if let ast::Expr::BinaryOp { op, .. } = x {
            match op {
                ast::BinaryOperator::Modulo => *op = ast::BinaryOperator::Custom("MOD".into()),
                ast::BinaryOperator::PGExp => *op = ast::BinaryOperator::Custom("**".into()),
                _ => {}
            }
        }
        std::ops::ControlFlow::<()>::Continue(())
    });
    e.to_string()
}

/// The word Teradata's default title gives an aggregate (COUNT, SUM, AVG, MIN, MAX and their
/// long names): BTEQ heads `COUNT(*)` as `Count(*)` and `AVG(x)` as `Average(x)`.
fn aggregate_title(name: &str) -> Option<&'static str> {
    Some(match name {
        "COUNT" => "Count",
        "SUM" => "Sum",
        "AVG" | "AVERAGE" | "AVE" => "Average",
        "MIN" | "MINIMUM" => "Minimum",
        "MAX" | "MAXIMUM" => "Maximum",
        _ => return None,
    })
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

/// The FORMAT a value has of its own: a FORMAT phrase's (`x (FORMAT 'f')`, `CAST(x AS
/// FORMAT 'f')`), a conversion's to a type that is not character (`'…' (DATE, FORMAT 'f')`,
/// `CAST(… AS DATE FORMAT 'f')`), or that of the column it is. BTEQ shows a select item's
/// values by it; a conversion to a character type and `||` write a number, date or time by
/// it (as Teradata does).
pub(crate) fn own_format(e: &ast::Expr, scope: &Scope) -> Option<String> {
    if let Some((_, f)) = tdlite_parser::phrase::format_phrase(e) {
        return Some(f.to_string());
    }
    if let Some((x, _)) = tdlite_parser::phrase::title(e) {
        return own_format(x, scope);
    }
    let (qualifier, name) = match e {
        ast::Expr::CompoundIdentifier(p) if p.len() >= 2 => (
            Some(p[p.len() - 2].value.as_str()),
            p[p.len() - 1].value.as_str(),
        ),
        ast::Expr::Identifier(i) => (None, i.value.as_str()),
        ast::Expr::Nested(x)
        | ast::Expr::Named { expr: x, .. }
        | ast::Expr::Collate { expr: x, .. } => return own_format(x, scope),
        // MAX and MIN have their argument's format (MAX "Result Type and Attributes")
        ast::Expr::Function(f)
            if matches!(
                tdlite_parser::object_name_string(&f.name)
                    .to_ascii_uppercase()
                    .as_str(),
                "MAX" | "MIN" | "MAXIMUM" | "MINIMUM"
            ) =>
        {
            return match &f.args {
                ast::FunctionArguments::List(l) => match l.args.as_slice() {
                    [ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(x))] => {
                        own_format(x, scope)
                    }
                    _ => None,
                },
                _ => None,
            };
        }
        ast::Expr::Cast {
            kind,
            data_type,
            format: Some(ast::CastFormat::Value(v)),
            ..
        } if !matches!(kind, ast::CastKind::TryCast) => {
            let ty = crate::types::sql_type_from_name(&data_type.to_string()).ok()?;
            return match &v.value {
                ast::Value::SingleQuotedString(f) if !ty.is_character() => Some(f.clone()),
                _ => None,
            };
        }
        _ => return None,
    };
    match scope.resolve(qualifier, name) {
        Ok(Some(i)) => scope.columns[i].format.clone(),
        _ => None,
    }
}

/// `lit`, a character literal compared with `other`, written in the ANSI form when `other`
/// has a date or time FORMAT of its own that the literal is written in (`WHERE d =
/// '2020/01/02'` for `d DATE FORMAT 'YYYY/MM/DD'`: Teradata's "DATE Comparisons" reads the
/// text by the DATE value's format); `None` otherwise (the literal is compared as it is).
pub(crate) fn literal_by_format(
    lit: &ast::Expr,
    other: &ast::Expr,
    scope: &Scope,
) -> Option<ast::Expr> {
    let ast::Expr::Value(v) = lit else {
        return None;
    };
    let ast::Value::SingleQuotedString(text) = &v.value else {
        return None;
    };
    let fmt = own_format(other, scope)?;
    let ansi = crate::format::ansi_text(text, &fmt)?;
    Some(ast::Expr::value(ast::Value::SingleQuotedString(ansi)))
}

/// `bound`, the bound `e`, as character, where Teradata converts a value implicitly (an
/// operand of `||`, an argument of a string function, the left side of LIKE): see
/// [`text_as`].
pub(crate) fn implicit_text(bound: Expr, e: &ast::Expr, scope: &Scope) -> Expr {
    text_as(bound, e, scope, SqlType::VarChar(64000))
}

/// An operand of `||`: [`implicit_text`], but a byte string stays bytes (two of them
/// concatenate to a VARBYTE).
pub(crate) fn concat_operand(bound: Expr, e: &ast::Expr, scope: &Scope) -> Expr {
    match implicit_text(bound, e, scope) {
        Expr::WriteOwnFormat(x, ty, f, _) => {
            Expr::WriteOwnFormat(x, ty, f, crate::format::Pads::Implicit)
        }
        other => other,
    }
}

/// `bound`, the bound `e`, as the character type `ty` the way implicit conversion and the
/// conversion syntax write it: a number, date or time by its FORMAT (its own, else its type's
/// default, found when it is evaluated: an integer literal has Teradata's type by its value),
/// pads kept; a TIME, TIMESTAMP or PERIOD with its type's fractional digits; text as it is.
pub(crate) fn text_as(bound: Expr, e: &ast::Expr, scope: &Scope, ty: SqlType) -> Expr {
    let format = own_format(e, scope);
    let bound = match format {
        Some(_) => bound,
        None => with_time_digits(bound, e, scope),
    };
    Expr::WriteOwnFormat(Box::new(bound), ty, format, crate::format::Pads::Keep)
}

/// `bound`, the bound `e`, written as text with its type's fractional digits when `e` is a
/// TIME, TIMESTAMP or PERIOD whose precision is known to be below six (a `TIMESTAMP(0)`
/// column becomes `2005-02-03 10:11:12`, not `… 10:11:12.000000`); `bound` itself otherwise.
/// For the places a value becomes text without a FORMAT of its own: CAST to a character
/// type, the conversion syntax, `||`.
pub(crate) fn with_time_digits(bound: Expr, e: &ast::Expr, scope: &Scope) -> Expr {
    match time_precision(e, scope) {
        Some(p) if p < 6 => Expr::Func(crate::expr::Func::TimeText(p), vec![bound]),
        _ => bound,
    }
}

/// The table qualifier (its last part) and the name of a column reference `c`, `t.c` or
/// `db.t.c`; `None` for any other expression.
pub(crate) fn column_parts(e: &ast::Expr) -> Option<(Option<&str>, &str)> {
    match e {
        ast::Expr::CompoundIdentifier(p) if p.len() >= 2 => Some((
            Some(p[p.len() - 2].value.as_str()),
            p[p.len() - 1].value.as_str(),
        )),
        ast::Expr::CompoundIdentifier(p) => Some((None, p.last()?.value.as_str())),
        ast::Expr::Identifier(i) => Some((None, i.value.as_str())),
        _ => None,
    }
}

/// The fractional digits of a TIME, TIMESTAMP or PERIOD select item, where its type says: a
/// column (as declared), a CAST to TIME(n)/TIMESTAMP(n)/PERIOD(…(n)), CURRENT_TIME[(n)] (0
/// unless given) and CURRENT_TIMESTAMP[(n)] (6). `None` elsewhere: the value is shown with
/// six.
pub(crate) fn time_precision(e: &ast::Expr, scope: &Scope) -> Option<u8> {
    match e {
        ast::Expr::Identifier(_) | ast::Expr::CompoundIdentifier(_) => {
            let (qualifier, name) = column_parts(e)?;
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
        // P_INTERSECT, P_NORMALIZE, LDIFF, RDIFF: periods of their operands' element type
        ast::Expr::BinaryOp {
            left,
            op: ast::BinaryOperator::Custom(_),
            right,
        } => time_precision(left, scope).or_else(|| time_precision(right, scope)),
        // a literal has the fractional digits it is written with (Teradata's TIME and
        // TIMESTAMP literals: `TIMESTAMP '2005-01-01 10:00:00'` is a TIMESTAMP(0))
        ast::Expr::TypedString(ts)
            if matches!(
                ts.data_type,
                ast::DataType::Time(..) | ast::DataType::Timestamp(..)
            ) =>
        {
            let text = match &ts.value.value {
                ast::Value::SingleQuotedString(t) => t.as_str(),
                _ => return None,
            };
            let digits = text.rsplit_once('.').map_or(0, |(_, f)| {
                f.chars().take_while(char::is_ascii_digit).count()
            });
            Some(u8::try_from(digits.min(6)).unwrap_or(6))
        }
        ast::Expr::Cast {
            data_type: ast::DataType::Time(p, _) | ast::DataType::Timestamp(p, _),
            ..
        } => Some(p.map_or(6, |p| u8::try_from(p.min(6)).unwrap_or(6))),
        ast::Expr::Cast {
            data_type: data_type @ ast::DataType::Custom(..),
            ..
        } => match crate::types::sql_type_from_name(&data_type.to_string()).ok()? {
            SqlType::Period(PeriodElem::Time(p) | PeriodElem::Timestamp(p)) => Some(p),
            _ => None,
        },
        ast::Expr::Function(f) => {
            match tdlite_parser::object_name_string(&f.name)
                .to_ascii_uppercase()
                .as_str()
            {
                "CURRENT_TIME" => Some(precision_arg(&f.args).unwrap_or(0)),
                "CURRENT_TIMESTAMP" => Some(precision_arg(&f.args).unwrap_or(6)),
                // a period made of a value, or a bound of a period: its element's digits;
                // MAX and MIN: their argument's type
                "PERIOD" | "BEGIN" | "END" | "LAST" | "MAX" | "MIN" | "MAXIMUM" | "MINIMUM" => {
                    match &f.args {
                        ast::FunctionArguments::List(l) => match l.args.first() {
                            Some(ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(x))) => {
                                time_precision(x, scope)
                            }
                            _ => None,
                        },
                        _ => None,
                    }
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// The column names, upper-cased, that SELECT block `s` with its ORDER BY may read from the
/// tables of its FROM clause: every identifier in it, each part of a qualified name, and each
/// function's name (the parser reads `name (CS)` as a call), nested subqueries included (a
/// correlated one names the block's columns). `None` when the block
/// may read columns it does not name: a `*` or `t.*` in its select list, a NATURAL join or
/// USING, or a function given `*` other than `COUNT(*)`.
///
/// Names are compared as the scope resolves them (ASCII case-insensitively), so the set
/// holds every column the binder can resolve for the block; it may hold more (aliases,
/// names of other tables' columns), which only keeps a column that is not needed.
pub(crate) fn names_read(
    s: &ast::Select,
    order_by: &[ast::OrderByExpr],
) -> Option<HashSet<String>> {
    let star = s.projection.iter().any(|i| {
        matches!(
            i,
            ast::SelectItem::Wildcard(_) | ast::SelectItem::QualifiedWildcard(..)
        )
    });
    let implied = implies_columns(&s.from);
    if star || implied {
        return None;
    }
    let mut names = Names::default();
    let stopped = s.visit(&mut names).is_break()
        || order_by.iter().any(|o| o.expr.visit(&mut names).is_break());
    (!stopped).then_some(names.0)
}

/// The names statement `st` (a joined UPDATE or DELETE, a MERGE) may read columns by, as
/// [`names_read`] gathers them for a block: `None` where it may read columns it does not
/// name (a `*`, a NATURAL join or USING, a function given `*` other than `COUNT(*)`).
pub(crate) fn names_in(st: &impl Visit, from: &[ast::TableWithJoins]) -> Option<HashSet<String>> {
    if implies_columns(from) {
        return None;
    }
    let mut names = Names::default();
    (!st.visit(&mut names).is_break()).then_some(names.0)
}

/// Whether a join in `from` (nested joins included) reads columns it does not name: NATURAL,
/// USING, or a join form not listed here.
fn implies_columns(from: &[ast::TableWithJoins]) -> bool {
    use ast::JoinOperator as J;
    let mut stack: Vec<&ast::TableWithJoins> = from.iter().collect();
    while let Some(t) = stack.pop() {
        let factors = std::iter::once(&t.relation).chain(t.joins.iter().map(|j| &j.relation));
        for f in factors {
            if let ast::TableFactor::NestedJoin {
                table_with_joins, ..
            } = f
            {
                stack.push(table_with_joins);
            }
        }
        for j in &t.joins {
            let constraint = match &j.join_operator {
                J::Join(c)
                | J::Inner(c)
                | J::Left(c)
                | J::LeftOuter(c)
                | J::Right(c)
                | J::RightOuter(c)
                | J::FullOuter(c)
                | J::CrossJoin(c)
                | J::Semi(c)
                | J::LeftSemi(c)
                | J::RightSemi(c)
                | J::Anti(c)
                | J::LeftAnti(c)
                | J::RightAnti(c)
                | J::StraightJoin(c) => c,
                _ => return true,
            };
            if matches!(
                constraint,
                ast::JoinConstraint::Natural | ast::JoinConstraint::Using(_)
            ) {
                return true;
            }
        }
    }
    false
}

/// Collects identifiers; stops at a function given `*` (other than COUNT).
#[derive(Default)]
struct Names(HashSet<String>);

impl Visitor for Names {
    type Break = ();

    fn pre_visit_expr(&mut self, e: &ast::Expr) -> ControlFlow<()> {
        match e {
            ast::Expr::Identifier(i) => {
                self.0.insert(i.value.to_ascii_uppercase());
            }
            ast::Expr::CompoundIdentifier(parts) => {
                for i in parts {
                    self.0.insert(i.value.to_ascii_uppercase());
                }
            }
            ast::Expr::Wildcard(_) | ast::Expr::QualifiedWildcard(..) => {
                return ControlFlow::Break(())
            }
            ast::Expr::Function(f) => {
                // a column with a phrase the parser read as a call (`name (CS)`, `x (DATE)`)
                // is named by the call's name
                for part in &f.name.0 {
                    if let Some(i) = part.as_ident() {
                        self.0.insert(i.value.to_ascii_uppercase());
                    }
                }
                let count =
                    tdlite_parser::object_name_string(&f.name).eq_ignore_ascii_case("COUNT");
                let star = match &f.args {
                    ast::FunctionArguments::List(l) => l.args.iter().any(|a| {
                        matches!(
                            a,
                            ast::FunctionArg::Unnamed(
                                ast::FunctionArgExpr::Wildcard
                                    | ast::FunctionArgExpr::QualifiedWildcard(_)
                            )
                        )
                    }),
                    _ => false,
                };
                if star && !count {
                    return ControlFlow::Break(());
                }
            }
            _ => {}
        }
        ControlFlow::Continue(())
    }
}

/// The columns of `table` that `names` (from [`names_read`]) may name, as a keep mask;
/// `None` when every column may be read.
pub(crate) fn keep_named(table: &Table, names: &HashSet<String>) -> Option<Vec<bool>> {
    let keep: Vec<bool> = table
        .schema
        .columns
        .iter()
        .map(|c| names.contains(&c.name.to_ascii_uppercase()))
        .collect();
    (!keep.iter().all(|&k| k)).then_some(keep)
}

/// Whether condition `cond` may read a value binding fixes per request (CURRENT_TIMESTAMP,
/// DATE, TIME, USER, DATABASE, SESSION, RANDOM, …): judged on its text, erring towards yes (a
/// column named `due_date` only costs binding again).
pub(crate) fn reads_request_values(cond: &ast::Expr) -> bool {
    let text = cond.to_string().to_uppercase();
    [
        "CURRENT",
        "DATE",
        "TIME",
        "NOW",
        "USER",
        "DATABASE",
        "SESSION",
        "ACCOUNT",
        "ROLE",
        "PROFILE",
        "QUERY_BAND",
        "QUERYBAND",
        "RANDOM",
    ]
    .iter()
    .any(|w| text.contains(w))
}

/// The column names a stored condition's SQL text mentions (every identifier, last part): a
/// CHECK constraint, a partitioning level. None for text that does not parse.
pub(crate) fn names_in_text(sql: &str) -> Vec<String> {
    let mut out = Vec::new();
    if let Ok(e) = tdlite_parser::parse_expression(sql) {
        let _ = ast::visit_expressions(&e, |x| {
            match x {
                ast::Expr::Identifier(i) => out.push(i.value.clone()),
                ast::Expr::CompoundIdentifier(p) => {
                    out.extend(p.last().map(|i| i.value.clone()));
                }
                _ => {}
            }
            std::ops::ControlFlow::<()>::Continue(())
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `names_read` of the one SELECT block (and ORDER BY) of `sql`.
    fn names(sql: &str) -> Option<Vec<String>> {
        let statements = tdlite_parser::parse_request(sql).unwrap();
        let tdlite_parser::Statement::Sql(st) = &statements[0].statement else {
            panic!("a query")
        };
        let ast::Statement::Query(q) = st.as_ref() else {
            panic!("a query")
        };
        let ast::SetExpr::Select(s) = q.body.as_ref() else {
            panic!("a SELECT")
        };
        let order: &[ast::OrderByExpr] = match q.order_by.as_ref().map(|o| &o.kind) {
            Some(ast::OrderByKind::Expressions(v)) => v,
            _ => &[],
        };
        names_read(s, order).map(|n| {
            let mut v: Vec<String> = n.into_iter().collect();
            v.sort();
            v
        })
    }

    #[test]
    fn a_block_reads_the_names_it_writes_anywhere_in_it() {
        let got = names(
            "SEL a, t.b, COUNT(*) FROM t WHERE c IN (SEL x FROM u WHERE u.y = t.d) \
             GROUP BY a, t.b QUALIFY RANK() OVER (ORDER BY e) = 1 ORDER BY f",
        );
        let want = [
            "A", "B", "C", "COUNT", "D", "E", "F", "RANK", "T", "U", "X", "Y",
        ];
        assert_eq!(got, Some(want.map(String::from).to_vec()));
        // a phrase the parser reads as a call names its column
        assert!(names("SEL note (UC) FROM t")
            .unwrap()
            .contains(&"NOTE".to_string()));
        // quoted names keep their spaces, compared upper-cased
        assert!(names("SEL \"Mixed Case\" FROM t")
            .unwrap()
            .contains(&"MIXED CASE".to_string()));
    }

    #[test]
    fn a_block_that_may_read_unnamed_columns_reads_them_all() {
        assert_eq!(names("SEL * FROM t"), None);
        assert_eq!(names("SEL t.*, u.a FROM t, u"), None);
        assert_eq!(names("SEL a FROM t JOIN u USING (g)"), None);
        assert_eq!(
            names("SEL a FROM (t JOIN u USING (g)) JOIN v ON v.a = t.a"),
            None
        );
        // a wildcard inside a nested query names that query's columns, not the block's
        assert!(names("SEL a FROM t WHERE EXISTS (SEL * FROM u)").is_some());
        assert!(names("SEL COUNT(*) FROM t").is_some());
    }
}
