//! The binder: sqlparser expressions → bound [`Expr`]s (`Exec::bind_expr`).
//!
//! Names resolve against a [`Scope`] (3810 unknown, 3822 ambiguous); a name no column has may
//! be a request value (`CURRENT_TIMESTAMP`, `DATE`, `USER`, …) or a column of the enclosing
//! query's current row while a correlated subquery runs. Literals get their SQL types
//! (`number_literal`, `typed_string`, `interval_literal`, a `?` parameter's value); operators,
//! CAST/TRYCAST/FORMAT, TRIM, SUBSTRING, EXTRACT and Teradata's built-ins map to [`Expr`]
//! nodes. With a [`Grouping`], GROUP BY expressions and aggregate calls become columns of the
//! aggregated batch, and a bare column outside GROUP BY is 3504. A call with `OVER` is
//! recorded for `window.rs` (`bind_window`). Uncorrelated scalar, IN, ANY/ALL and EXISTS
//! subqueries run once, here, and become literals; one that fails with 3810 is run once per row
//! instead (`correlate.rs`) when the clause is bound over a known batch.
//!
//! The statement modules (`query`, `join`, `dml`, `ddl`, `merge`, `explain`, …) walk
//! sqlparser's AST for statements and clauses themselves; every expression they evaluate is
//! typed and bound by this module.
//!
//! Invariants: a bound column reference is a position in the scope it was bound against (with
//! a [`Grouping`]: GROUP BY keys first, then aggregate calls); AND/OR chains are bound as
//! balanced trees, so binding and evaluating a long chain needs stack for log2(n) levels only.

use crate::error::{Error, Result};
use crate::exec::Exec;
use crate::expr::{BinOp, Expr, Func};
use crate::expr_tree::balanced;
use crate::result::Rows;
use arrow::array::{
    new_null_array, ArrayRef, Decimal128Array, Float64Array, Int16Array, Int32Array, Int8Array,
    IntervalMonthDayNanoArray, StringArray, TimestampMicrosecondArray,
};
use arrow::datatypes::{DataType, IntervalMonthDayNano};
use sqlparser::ast;
use std::borrow::Cow;
use std::ops::ControlFlow;
use std::sync::Arc;
use tdlite_storage::types::{SqlType, Value};

/// One column visible to expressions.
#[derive(Debug, Clone)]
pub struct ScopeColumn {
    /// Table name or alias that qualifies it (upper-cased).
    pub qualifier: Option<String>,
    /// Column name as written in the table.
    pub name: String,
    /// CASESPECIFIC.
    pub case_specific: bool,
    /// TITLE, if the column has one.
    pub title: Option<String>,
    /// Fractional digits of a TIME(n) or TIMESTAMP(n) column (shown with n digits).
    pub precision: Option<u8>,
    /// The column's FORMAT: how BTEQ shows its values (never what they are).
    pub format: Option<String>,
    /// Its declared character type (CHAR(n) or VARCHAR(n)), where known (text_type.rs).
    pub text: Option<SqlType>,
}

impl ScopeColumn {
    /// The column of a query's result column `f` (its attributes from the field's
    /// metadata), named `name` and qualified by `qualifier`.
    pub(crate) fn of_field(
        f: &arrow::datatypes::Field,
        qualifier: Option<String>,
        name: String,
    ) -> ScopeColumn {
        ScopeColumn {
            qualifier,
            name,
            case_specific: f.metadata().contains_key("casespecific"),
            title: f.metadata().get("title").cloned(),
            precision: f.metadata().get("precision").and_then(|p| p.parse().ok()),
            format: f.metadata().get("format").cloned(),
            text: crate::types::text_type_of_field(f),
        }
    }

    /// A column a statement adds to its rows for itself (a row id), named `name`, which
    /// no SQL text spells: never found by a name nor shown.
    pub(crate) fn hidden(name: &str) -> ScopeColumn {
        ScopeColumn {
            name: name.to_string(),
            ..ScopeColumn::unnamed()
        }
    }

    /// A column no name resolves to (a hidden or computed column of a batch).
    pub(crate) fn unnamed() -> ScopeColumn {
        ScopeColumn {
            qualifier: None,
            name: "\0".into(),
            case_specific: false,
            title: None,
            precision: None,
            format: None,
            text: None,
        }
    }
}

/// The columns an expression may name, in input-batch order.
#[derive(Debug, Clone, Default)]
pub struct Scope {
    /// Columns.
    pub columns: Vec<ScopeColumn>,
}

impl Scope {
    /// [`Scope::resolve`], and then, for `db.t.c` where `db` is `home` (the session's default
    /// database, whose tables a FROM may write without it), a table written `t` exactly.
    pub(crate) fn resolve_at(
        &self,
        qualifier: Option<&str>,
        name: &str,
        home: &str,
    ) -> Result<Option<usize>> {
        if let Some(i) = self.resolve(qualifier, name)? {
            return Ok(Some(i));
        }
        match qualifier.and_then(|q| q.rsplit_once('.')) {
            Some((db, t)) if db.eq_ignore_ascii_case(home) => {
                let mut found = None;
                for (i, c) in self.columns.iter().enumerate() {
                    let exact = c
                        .qualifier
                        .as_deref()
                        .is_some_and(|cq| cq.eq_ignore_ascii_case(t));
                    if exact && c.name.eq_ignore_ascii_case(name) {
                        if found.is_some() {
                            return Err(Error::AmbiguousColumn(name.to_string()));
                        }
                        found = Some(i);
                    }
                }
                Ok(found)
            }
            _ => Ok(None),
        }
    }

    pub(crate) fn resolve(&self, qualifier: Option<&str>, name: &str) -> Result<Option<usize>> {
        let mut found = None;
        for (i, c) in self.columns.iter().enumerate() {
            let q_ok = match qualifier {
                None => true,
                Some(q) => c
                    .qualifier
                    .as_deref()
                    .is_some_and(|cq| qualifier_matches(cq, q)),
            };
            if q_ok && c.name.eq_ignore_ascii_case(name) {
                if found.is_some() {
                    return Err(Error::AmbiguousColumn(name.to_string()));
                }
                found = Some(i);
            }
        }
        Ok(found)
    }
}

/// The one value of a scalar subquery's rows: NULL for no row, 3669 for more than one.
pub(crate) fn scalar_of(rows: &Rows) -> Result<ArrayRef> {
    if rows.schema.fields().len() != 1 {
        return Err(Error::TypeMismatch(
            "a scalar subquery must return one column".into(),
        ));
    }
    let n: usize = rows.batches.iter().map(|b| b.num_rows()).sum();
    if n > 1 {
        return Err(Error::SubqueryTooManyRows);
    }
    Ok(match rows.batches.iter().find(|b| b.num_rows() == 1) {
        Some(b) => b.column(0).clone(),
        None => new_null_array(rows.schema.field(0).data_type(), 1),
    })
}

/// Whether a column of the table known as `cq` in the scope (an alias, `t` or `db.t`) is
/// what the qualifier `q` written before it names: the same name, or `t` for a table written
/// `db.t` (Teradata accepts `t.c` and `db.t.c` for it). `db.t.c` for a table written `t` is
/// [`Scope::resolve_at`]'s: only the session's default database may be left out.
pub(crate) fn qualifier_matches(cq: &str, q: &str) -> bool {
    if cq.eq_ignore_ascii_case(q) {
        return true;
    }
    match (cq.rsplit_once('.'), q.contains('.')) {
        (Some((_, t)), false) => t.eq_ignore_ascii_case(q),
        _ => false,
    }
}

/// An aggregate call collected while binding a grouped query.
#[derive(Debug, Clone)]
pub struct AggCall {
    /// Which aggregate.
    pub func: AggFunc,
    /// Its argument (None for `COUNT(*)`).
    pub arg: Option<Expr>,
    /// `DISTINCT`.
    pub distinct: bool,
    /// The call's own ORDER BY (`XMLAGG(x ORDER BY k)`; empty for the others).
    pub(crate) order: Vec<crate::ops::SortKey>,
}

impl AggCall {
    /// A call without an ORDER BY of its own.
    pub(crate) fn new(func: AggFunc, arg: Option<Expr>, distinct: bool) -> AggCall {
        AggCall {
            func,
            arg,
            distinct,
            order: Vec::new(),
        }
    }

    /// The bound expressions the call reads: its argument and its ORDER BY keys.
    pub(crate) fn exprs(&self) -> impl Iterator<Item = &Expr> {
        self.arg.iter().chain(self.order.iter().map(|k| &k.expr))
    }
}

/// Aggregate functions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AggFunc {
    /// `COUNT`
    Count,
    /// `SUM`
    Sum,
    /// `AVG` / `AVERAGE`
    Avg,
    /// `MIN` / `MINIMUM`
    Min,
    /// `MAX` / `MAXIMUM`
    Max,
    /// `STDDEV_SAMP`: the sample standard deviation (NULL for fewer than two values).
    StddevSamp,
    /// `STDDEV_POP`: the population standard deviation.
    StddevPop,
    /// `VAR_SAMP`: the sample variance (NULL for fewer than two values).
    VarSamp,
    /// `VAR_POP`: the population variance.
    VarPop,
    /// `SKEW`: the sample skewness (NULL for fewer than three values or no spread).
    Skew,
    /// `KURTOSIS`: the sample excess kurtosis (NULL for fewer than four values or no spread).
    Kurtosis,
    /// `PERCENTILE_CONT(p)` / `PERCENTILE_DISC(p) WITHIN GROUP (ORDER BY x [DESC])` and
    /// `MEDIAN(x)` (PERCENTILE_CONT(0.5)): see aggregate.rs `percentile`.
    Percentile {
        /// CONT (interpolated) rather than DISC (a value of the group).
        cont: bool,
        /// p, as the bits of an f64 (0 to 1).
        fraction: u64,
        /// `ORDER BY x DESC`.
        descending: bool,
    },
    /// `XMLAGG(x [ORDER BY …])`: the values as one text (xmlagg.rs).
    XmlAgg,
}

impl AggFunc {
    /// The function's name, as messages give it.
    pub fn name(self) -> &'static str {
        match self {
            AggFunc::Count => "COUNT",
            AggFunc::Sum => "SUM",
            AggFunc::Avg => "AVG",
            AggFunc::Min => "MIN",
            AggFunc::Max => "MAX",
            AggFunc::StddevSamp => "STDDEV_SAMP",
            AggFunc::StddevPop => "STDDEV_POP",
            AggFunc::VarSamp => "VAR_SAMP",
            AggFunc::VarPop => "VAR_POP",
            AggFunc::Skew => "SKEW",
            AggFunc::Kurtosis => "KURTOSIS",
            AggFunc::Percentile { cont: true, .. } => "PERCENTILE_CONT",
            AggFunc::Percentile { cont: false, .. } => "PERCENTILE_DISC",
            AggFunc::XmlAgg => "XMLAGG",
        }
    }
}

/// Grouping context: expressions in GROUP BY become columns 0..g of the aggregated batch,
/// then (with ROLLUP, CUBE or GROUPING SETS) g GROUPING flags, then the aggregate calls.
#[derive(Debug, Default)]
pub struct Grouping {
    /// GROUP BY expressions as written.
    pub keys: Vec<ast::Expr>,
    /// Aggregates found so far.
    pub calls: Vec<AggCall>,
    /// Whether the batch has GROUPING flags (grouping sets; see grouping_sets.rs).
    pub flags: bool,
    /// Whether each key, as bound, is CASESPECIFIC: a reference to it compares as the key
    /// does (empty until the keys are bound: none is).
    pub key_cs: Vec<bool>,
}

impl Grouping {
    /// The column of the aggregated batch that holds aggregate call `k`.
    pub fn call_column(&self, k: usize) -> usize {
        self.keys.len() * if self.flags { 2 } else { 1 } + k
    }
}

/// `x LIKE ANY|SOME|ALL ('a%', 'b%')` as one LIKE per pattern, joined by OR (ANY, SOME) or
/// AND (ALL); NOT applies to each LIKE, as Teradata defines it. (Apart from `bind_expr`, to
/// keep its stack frame small: it recurses once per level of an expression.)
#[inline(never)]
fn quantified_like(e: &ast::Expr) -> Result<ast::Expr> {
    let ast::Expr::Like {
        negated,
        expr,
        pattern,
        escape_char,
        any,
    } = e
    else {
        return Err(Error::Internal("not a LIKE".into()));
    };
    let (all, patterns) =
        like_list(*any, pattern).ok_or_else(|| Error::Internal("not a quantified LIKE".into()))?;
    let one = |p: &ast::Expr| ast::Expr::Like {
        negated: *negated,
        any: false,
        expr: expr.clone(),
        pattern: Box::new(p.clone()),
        escape_char: escape_char.clone(),
    };
    let op = if all {
        ast::BinaryOperator::And
    } else {
        ast::BinaryOperator::Or
    };
    patterns
        .iter()
        .map(one)
        .reduce(|l, r| ast::Expr::BinaryOp {
            left: Box::new(l),
            op: op.clone(),
            right: Box::new(r),
        })
        .ok_or_else(|| Error::TypeMismatch("LIKE ANY needs a pattern".into()))
}

/// `x op ANY (items)` (OR of the comparisons) or `x op ALL (items)` (AND), as `IN` / `NOT IN`
/// for `= ANY` and `<> ALL`; no items: true for ALL, false for ANY.
pub(crate) fn quantified(x: Expr, op: BinOp, all: bool, items: Vec<Expr>) -> Expr {
    let boolean = |v: bool| Expr::lit(Arc::new(arrow::array::BooleanArray::from(vec![v])));
    match (op, all) {
        (BinOp::Eq, false) => Expr::InList(Box::new(x), items.into(), false),
        (BinOp::NotEq, true) => Expr::InList(Box::new(x), items.into(), true),
        _ if items.is_empty() => boolean(all),
        _ => balanced(
            if all { BinOp::And } else { BinOp::Or },
            items
                .into_iter()
                .map(|v| Expr::Binary(op, Box::new(x.clone()), Box::new(v)))
                .collect(),
        ),
    }
}

/// `x [NOT] LIKE ANY|SOME|ALL (subquery)` (SQL Functions, Expressions, and Predicates, LIKE,
/// "ANY/ALL/SOME Quantifiers"): the patterns are the subquery's rows. ANY is `EXISTS (SELECT 1
/// FROM (subquery) q (p) WHERE x [NOT] LIKE q.p)`; ALL is `NOT EXISTS (… WHERE CASE WHEN x
/// [NOT] LIKE q.p THEN 0 ELSE 1 END = 1)`, a row whose LIKE is not true (false or unknown)
/// failing it. So an empty subquery is false for ANY and true for ALL, as the manual says;
/// where no pattern matches and one is NULL, ANY is false rather than unknown (the same in a
/// WHERE clause). `None` for any other LIKE. (Apart from `bind_expr`, to keep its stack frame
/// small.)
#[inline(never)]
fn like_over_subquery(e: &ast::Expr) -> Option<Result<ast::Expr>> {
    let ast::Expr::Like {
        negated,
        expr,
        pattern,
        escape_char,
        any,
    } = e
    else {
        return None;
    };
    let unnested = match pattern.as_ref() {
        ast::Expr::Nested(x) => x.as_ref(),
        x => x,
    };
    let (all, q) = match unnested {
        ast::Expr::Subquery(q) if *any => (false, q),
        // `LIKE ALL (SELECT …)` and `LIKE SOME (…)` reach here as a call of ALL or SOME
        ast::Expr::Function(f) if !*any => {
            let q = match &f.args {
                ast::FunctionArguments::Subquery(q) => q,
                ast::FunctionArguments::List(l) => match l.args.as_slice() {
                    [ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(ast::Expr::Subquery(
                        q,
                    )))] => q,
                    _ => return None,
                },
                ast::FunctionArguments::None => return None,
            };
            match tdlite_parser::object_name_string(&f.name)
                .to_ascii_uppercase()
                .as_str()
            {
                "ALL" => (true, q),
                "SOME" | "ANY" => (false, q),
                _ => return None,
            }
        }
        _ => return None,
    };
    let template = match all {
        false => {
            "EXISTS (SELECT 1 FROM (SELECT 1) AS \"tdlite q\" (\"tdlite p\") \
                  WHERE 1 LIKE \"tdlite q\".\"tdlite p\")"
        }
        true => {
            "NOT EXISTS (SELECT 1 FROM (SELECT 1) AS \"tdlite q\" (\"tdlite p\") \
                 WHERE CASE WHEN 1 LIKE \"tdlite q\".\"tdlite p\" THEN 0 ELSE 1 END = 1)"
        }
    };
    let mut out = match tdlite_parser::parse_expression(template) {
        Ok(t) => t,
        Err(err) => return Some(Err(err.into())),
    };
    let ast::Expr::Exists { subquery, .. } = &mut out else {
        return Some(Err(Error::Internal("quantified LIKE template".into())));
    };
    let ast::SetExpr::Select(select) = subquery.body.as_mut() else {
        return Some(Err(Error::Internal("quantified LIKE template".into())));
    };
    if let Some(ast::TableFactor::Derived { subquery: from, .. }) =
        select.from.first_mut().map(|t| &mut t.relation)
    {
        *from = q.clone();
    }
    let like = match select.selection.as_mut() {
        Some(ast::Expr::BinaryOp { left, .. }) => match left.as_mut() {
            ast::Expr::Case { conditions, .. } => conditions.first_mut().map(|w| &mut w.condition),
            _ => None,
        },
        other => other,
    };
    if let Some(ast::Expr::Like {
        negated: n,
        expr: x,
        escape_char: esc,
        ..
    }) = like
    {
        *n = *negated;
        *x = expr.clone();
        *esc = escape_char.clone();
        return Some(Ok(out));
    }
    Some(Err(Error::Internal("quantified LIKE template".into())))
}

/// The patterns of `LIKE ANY (…)` (`any`), `LIKE SOME (…)` or `LIKE ALL (…)` (the last two
/// reach here as a call of SOME or ALL), and whether all must match; `None` for a plain LIKE.
#[inline(never)]
fn like_list(any: bool, pattern: &ast::Expr) -> Option<(bool, Vec<ast::Expr>)> {
    let items = |e: &ast::Expr| match e {
        ast::Expr::Tuple(items) => items.clone(),
        ast::Expr::Nested(x) => vec![(**x).clone()],
        other => vec![other.clone()],
    };
    if any {
        return Some((false, items(pattern)));
    }
    let ast::Expr::Function(f) = pattern else {
        return None;
    };
    let all = match tdlite_parser::object_name_string(&f.name)
        .to_ascii_uppercase()
        .as_str()
    {
        "ALL" => true,
        "SOME" | "ANY" => false,
        _ => return None,
    };
    let ast::FunctionArguments::List(l) = &f.args else {
        return None;
    };
    let patterns = l
        .args
        .iter()
        .map(|a| match a {
            ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(x)) => Some(x.clone()),
            _ => None,
        })
        .collect::<Option<Vec<_>>>()?;
    Some((all, patterns))
}

/// `GROUPING(k)`: 1 where the row rolled key k up (grouping sets), else 0.
fn grouping_flag(f: &ast::Function, g: &Grouping, scope: &Scope) -> Result<Expr> {
    let arg = match &f.args {
        ast::FunctionArguments::List(l) => match l.args.as_slice() {
            [ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(x))] => x,
            _ => return Err(Error::TypeMismatch("GROUPING takes one expression".into())),
        },
        _ => return Err(Error::TypeMismatch("GROUPING takes one expression".into())),
    };
    let i = g
        .keys
        .iter()
        .position(|k| same_group_key(k, arg, scope))
        .ok_or_else(|| {
            Error::TypeMismatch(format!("GROUPING({arg}) names no GROUP BY expression"))
        })?;
    Ok(if g.flags {
        Expr::Column {
            index: g.keys.len() + i,
            case_specific: false,
        }
    } else {
        one(Arc::new(arrow::array::Int32Array::from(vec![0])))
    })
}

/// Whether a select-list expression is the same as a GROUP BY expression: column references
/// compare by the column they resolve to (names are case-insensitive, qualifiers optional),
/// other expressions by their text, case-insensitively.
fn same_group_key(key: &ast::Expr, e: &ast::Expr, scope: &Scope) -> bool {
    fn column(e: &ast::Expr, scope: &Scope) -> Option<usize> {
        match e {
            ast::Expr::Identifier(id) => scope.resolve(None, &id.value).ok().flatten(),
            ast::Expr::CompoundIdentifier(p) if p.len() >= 2 => {
                let n = p.len();
                scope
                    .resolve(Some(&p[n - 2].value), &p[n - 1].value)
                    .ok()
                    .flatten()
            }
            ast::Expr::Nested(inner) => column(inner, scope),
            _ => None,
        }
    }
    // a TITLE or FORMAT phrase changes the heading or the display, not the value
    let (key, e) = (
        &tdlite_parser::phrase::without_display_phrases(key),
        &tdlite_parser::phrase::without_display_phrases(e),
    );
    match (column(key, scope), column(e, scope)) {
        (Some(a), Some(b)) => a == b,
        (None, None) => key == e || key.to_string().to_uppercase() == e.to_string().to_uppercase(),
        _ => false,
    }
}

/// Name of an aggregate function, if `name` is one (the parser's
/// `tdlite_parser::legacy_olap::AGGREGATES` must list every name taken here: add a new one
/// there too; a test checks that each listed name is bound).
pub fn agg_func(name: &str) -> Option<AggFunc> {
    Some(match name.to_ascii_uppercase().as_str() {
        "COUNT" => AggFunc::Count,
        "SUM" => AggFunc::Sum,
        "AVG" | "AVERAGE" => AggFunc::Avg,
        "MIN" | "MINIMUM" => AggFunc::Min,
        "MAX" | "MAXIMUM" => AggFunc::Max,
        "STDDEV_SAMP" => AggFunc::StddevSamp,
        "STDDEV_POP" => AggFunc::StddevPop,
        "VAR_SAMP" => AggFunc::VarSamp,
        "VAR_POP" => AggFunc::VarPop,
        "SKEW" => AggFunc::Skew,
        "KURTOSIS" => AggFunc::Kurtosis,
        // the fraction and order of PERCENTILE_CONT/DISC are read with the call's arguments
        // (`Exec::bind_percentile`)
        "MEDIAN" | "PERCENTILE_CONT" | "PERCENTILE_DISC" => AggFunc::Percentile {
            cont: !name.eq_ignore_ascii_case("PERCENTILE_DISC"),
            fraction: 0.5f64.to_bits(),
            descending: false,
        },
        "XMLAGG" => AggFunc::XmlAgg,
        _ => return None,
    })
}

/// Calls `f` on `e` and on every expression in it that belongs to the same query level: a
/// subquery expression is visited, the expressions inside its query are not. `f` may stop
/// the walk with `Break`, which the walk returns.
pub(crate) fn visit_own_level(
    e: &ast::Expr,
    f: impl FnMut(&ast::Expr) -> ControlFlow<()>,
) -> ControlFlow<()> {
    struct OwnLevel<F> {
        depth: usize,
        f: F,
    }
    impl<F: FnMut(&ast::Expr) -> ControlFlow<()>> ast::Visitor for OwnLevel<F> {
        type Break = ();
        fn pre_visit_query(&mut self, _q: &ast::Query) -> ControlFlow<()> {
            self.depth += 1;
            ControlFlow::Continue(())
        }
        fn post_visit_query(&mut self, _q: &ast::Query) -> ControlFlow<()> {
            self.depth -= 1;
            ControlFlow::Continue(())
        }
        fn pre_visit_expr(&mut self, e: &ast::Expr) -> ControlFlow<()> {
            if self.depth == 0 {
                (self.f)(e)
            } else {
                ControlFlow::Continue(())
            }
        }
    }
    ast::Visit::visit(e, &mut OwnLevel { depth: 0, f })
}

/// Whether block `s`'s select list holds an aggregate call (of its own level).
pub(crate) fn aggregates_listed(s: &ast::Select) -> bool {
    s.projection.iter().any(|i| match i {
        ast::SelectItem::UnnamedExpr(e) | ast::SelectItem::ExprWithAlias { expr: e, .. } => {
            has_aggregate(e)
        }
        _ => false,
    })
}

/// True if the expression contains an aggregate call of this query level (aggregates inside
/// subqueries belong to the subquery).
pub fn has_aggregate(e: &ast::Expr) -> bool {
    visit_own_level(e, |e| match e {
        ast::Expr::Function(f)
            if f.over.is_none()
                && agg_func(&tdlite_parser::object_name_string(&f.name)).is_some() =>
        {
            ControlFlow::Break(())
        }
        _ => ControlFlow::Continue(()),
    })
    .is_break()
}

/// True if `e` calls a window function at its own level.
pub(crate) fn has_window(e: &ast::Expr) -> bool {
    visit_own_level(e, |x| match x {
        ast::Expr::Function(f) if f.over.is_some() => std::ops::ControlFlow::Break(()),
        _ => std::ops::ControlFlow::Continue(()),
    })
    .is_break()
}

/// The comparison operator `op` names, if it is one.
fn comparison(op: &ast::BinaryOperator) -> Option<BinOp> {
    Some(match op {
        ast::BinaryOperator::Eq => BinOp::Eq,
        ast::BinaryOperator::NotEq => BinOp::NotEq,
        ast::BinaryOperator::Lt => BinOp::Lt,
        ast::BinaryOperator::LtEq => BinOp::LtEq,
        ast::BinaryOperator::Gt => BinOp::Gt,
        ast::BinaryOperator::GtEq => BinOp::GtEq,
        _ => return None,
    })
}

fn one(a: ArrayRef) -> Expr {
    Expr::lit(a)
}

/// A typed literal for a SQL number: BYTEINT, SMALLINT, INTEGER, DECIMAL(p,s) or FLOAT.
pub fn number_literal(s: &str) -> Result<ArrayRef> {
    if s.contains(['e', 'E']) {
        let f: f64 = s.parse().map_err(|_| Error::BadNumber)?;
        if !f.is_finite() {
            return Err(Error::Overflow); // 1e309
        }
        return Ok(Arc::new(Float64Array::from(vec![f])));
    }
    if let Some((int, frac)) = s.split_once('.') {
        let digits = format!("{int}{frac}");
        let v: i128 = digits.parse().map_err(|_| Error::Overflow)?;
        let scale = frac.len() as i8;
        // the sign is no digit
        let unsigned = digits.trim_start_matches('-').trim_start_matches('0');
        let precision = (unsigned.len().max(1) as u8).max(scale as u8).max(1);
        if precision > 38 {
            return Err(Error::Overflow);
        }
        return Ok(Arc::new(
            Decimal128Array::from(vec![v]).with_precision_and_scale(precision, scale)?,
        ));
    }
    // the smallest of BYTEINT, SMALLINT and INTEGER that holds it, else DECIMAL(n,0) of its n
    // digits (SQL Data Types and Literals, "Integer Literals": "Numeric literals are not
    // assigned to the BIGINT type")
    match s.parse::<i64>() {
        Ok(v) if i8::try_from(v).is_ok() => Ok(Arc::new(Int8Array::from(vec![v as i8]))),
        Ok(v) if i16::try_from(v).is_ok() => Ok(Arc::new(Int16Array::from(vec![v as i16]))),
        Ok(v) if i32::try_from(v).is_ok() => Ok(Arc::new(Int32Array::from(vec![v as i32]))),
        _ => {
            let v: i128 = s.parse().map_err(|_| Error::Overflow)?;
            let digits = s.trim_start_matches('-').trim_start_matches('0').len();
            if digits > 38 {
                return Err(Error::Overflow);
            }
            Ok(Arc::new(
                Decimal128Array::from(vec![v]).with_precision_and_scale(digits.max(1) as u8, 0)?,
            ))
        }
    }
}

fn typed_string(ty: SqlType, s: &str) -> Result<ArrayRef> {
    let a: ArrayRef = Arc::new(StringArray::from(vec![s]));
    crate::expr::cast_to_arrow(&a, &ty.arrow_type()).map_err(|_| Error::InvalidDate(s.to_string()))
}

fn interval_literal(iv: &ast::Interval) -> Result<ArrayRef> {
    let text = match iv.value.as_ref() {
        ast::Expr::Value(v) => match &v.value {
            ast::Value::SingleQuotedString(s) | ast::Value::Number(s, _) => s.clone(),
            other => other.to_string(),
        },
        other => return Err(Error::Unsupported(format!("the interval value {other}"))),
    };
    let neg = text.trim().starts_with('-');
    let body = text.trim().strip_prefix('-').unwrap_or(text.trim());
    if let Some(last) = &iv.last_field {
        let leading = iv
            .leading_field
            .clone()
            .unwrap_or(ast::DateTimeField::Second);
        return compound_interval(&text, body, neg, &leading, last, iv.leading_precision);
    }
    // digits, with a fraction: no exponent, no NaN or infinity
    let (whole, fraction) = body.split_once('.').unwrap_or((body, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty() && fraction.is_empty() || !digits(whole) || !digits(fraction) {
        return Err(Error::TypeMismatch(format!(
            "'{text}' is not an interval value"
        )));
    }
    // the leading field has at most its precision's digits (2 unless written, at most 4)
    let precision = match iv.leading_precision.unwrap_or(2) {
        p @ 1..=4 => p as usize,
        p => {
            return Err(Error::TypeMismatch(format!(
                "an interval's precision is 1 to 4, not {p}"
            )))
        }
    };
    if whole.trim_start_matches('0').len() > precision {
        return Err(Error::IntervalOverflow(text.clone()));
    }
    let amount: f64 = body
        .parse()
        .map_err(|_| Error::TypeMismatch(format!("'{text}' is not an interval value")))?;
    let field = iv
        .leading_field
        .clone()
        .unwrap_or(ast::DateTimeField::Second);
    let (months, days, nanos) = match field {
        ast::DateTimeField::Year | ast::DateTimeField::Years => ((amount * 12.0) as i32, 0, 0i64),
        ast::DateTimeField::Month | ast::DateTimeField::Months => (amount as i32, 0, 0),
        ast::DateTimeField::Day | ast::DateTimeField::Days => (0, amount as i32, 0),
        ast::DateTimeField::Hour | ast::DateTimeField::Hours => (0, 0, (amount * 3.6e12) as i64),
        ast::DateTimeField::Minute | ast::DateTimeField::Minutes => (0, 0, (amount * 6e10) as i64),
        ast::DateTimeField::Second | ast::DateTimeField::Seconds => {
            (0, 0, (amount * 1e9).round() as i64)
        }
        other => return Err(Error::Unsupported(format!("INTERVAL … {other}"))),
    };
    let sign = if neg { -1 } else { 1 };
    Ok(Arc::new(IntervalMonthDayNanoArray::from(vec![
        IntervalMonthDayNano::new(sign * months, sign * days, sign as i64 * nanos),
    ])))
}

/// The place of an interval field: YEAR 0, MONTH 1; DAY 2, HOUR 3, MINUTE 4, SECOND 5.
fn field_place(f: &ast::DateTimeField) -> Option<usize> {
    use ast::DateTimeField as F;
    Some(match f {
        F::Year | F::Years => 0,
        F::Month | F::Months => 1,
        F::Day | F::Days => 2,
        F::Hour | F::Hours => 3,
        F::Minute | F::Minutes => 4,
        F::Second | F::Seconds => 5,
        _ => return None,
    })
}

/// An interval of several fields (`INTERVAL '2-06' YEAR TO MONTH`, `'3 04:05' DAY TO MINUTE`,
/// `'1:30' HOUR TO MINUTE`, `'5:30.25' MINUTE TO SECOND`): the fields from `leading` to
/// `last` in order, a blank after the days, `:` between time fields, `-` between years and
/// months; the leading field has at most its precision's digits, the others stay within
/// their unit (months under 12, hours under 24, minutes and seconds under 60).
fn compound_interval(
    text: &str,
    body: &str,
    neg: bool,
    leading: &ast::DateTimeField,
    last: &ast::DateTimeField,
    precision: Option<u64>,
) -> Result<ArrayRef> {
    let bad = || Error::TypeMismatch(format!("'{text}' is not an interval value"));
    let (Some(from), Some(to)) = (field_place(leading), field_place(last)) else {
        return Err(Error::Unsupported(format!(
            "INTERVAL … {leading} TO {last}"
        )));
    };
    // YEAR TO MONTH, or within DAY … SECOND, leading before last
    if from >= to || (from < 2) != (to < 2) {
        return Err(Error::TypeMismatch(format!(
            "INTERVAL {leading} TO {last} is not an interval type"
        )));
    }
    let parts: Vec<&str> = body.split([' ', ':', '-']).collect();
    if parts.len() != to - from + 1 {
        return Err(bad());
    }
    let precision = match precision.unwrap_or(2) {
        p @ 1..=4 => p as usize,
        p => {
            return Err(Error::TypeMismatch(format!(
                "an interval's precision is 1 to 4, not {p}"
            )))
        }
    };
    let mut months = 0i64;
    let mut days = 0i64;
    let mut nanos = 0i64;
    for (k, part) in parts.iter().enumerate() {
        let place = from + k;
        let (whole, fraction) = part.split_once('.').unwrap_or((part, ""));
        let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
        // only the seconds have a fraction
        if whole.is_empty()
            || !digits(whole)
            || !digits(fraction)
            || (place != 5 && part.contains('.'))
        {
            return Err(bad());
        }
        let v: i64 = whole.parse().map_err(|_| bad())?;
        if k == 0 {
            if whole.trim_start_matches('0').len() > precision {
                return Err(Error::IntervalOverflow(text.to_string()));
            }
        } else if v >= [0, 12, 0, 24, 60, 60][place] {
            return Err(Error::IntervalOverflow(text.to_string()));
        }
        match place {
            0 => months += v * 12,
            1 => months += v,
            2 => days += v,
            3 => nanos += v * 3_600_000_000_000,
            4 => nanos += v * 60_000_000_000,
            _ => {
                let frac: f64 = format!("0.{fraction}").parse().unwrap_or(0.0);
                nanos += v * 1_000_000_000 + (frac * 1e9).round() as i64;
            }
        }
    }
    let sign = if neg { -1 } else { 1 };
    let months =
        i32::try_from(sign * months).map_err(|_| Error::IntervalOverflow(text.to_string()))?;
    let days = i32::try_from(sign * days).map_err(|_| Error::IntervalOverflow(text.to_string()))?;
    Ok(Arc::new(IntervalMonthDayNanoArray::from(vec![
        IntervalMonthDayNano::new(months, days, sign * nanos),
    ])))
}

/// Where the `SELECT` of a query with `TOP n` is written (`None` without TOP).
fn top_of(q: &ast::Query) -> Option<sqlparser::tokenizer::Location> {
    match q.body.as_ref() {
        ast::SetExpr::Select(s) if s.top.is_some() => Some(s.select_token.0.span.start),
        _ => None,
    }
}

/// `(s1, t1) OVERLAPS (s2, t2)` as the comparisons that define it (SQL's rule, which Teradata
/// follows; an end written as an INTERVAL literal is start + interval): each period is first put in order (start ≤ end; a NULL start goes to the end),
/// then the periods overlap if one starts inside the other, or both start together. A NULL
/// makes the answer unknown where the rule needs it. The operands are bound from their SQL
/// text, once for each place the rule uses them: an operand with a subquery or RANDOM runs
/// more than once.
///
/// # Errors
/// 9913 unless both operands are pairs.
fn overlaps(left: &ast::Expr, right: &ast::Expr) -> Result<ast::Expr> {
    let pair = |e: &ast::Expr| match e {
        // (start, INTERVAL …): the period ends at start + interval (SQL's rule)
        ast::Expr::Tuple(v) if v.len() == 2 && matches!(v[1], ast::Expr::Interval(_)) => {
            Ok((v[0].to_string(), format!("({}) + {}", v[0], v[1])))
        }
        ast::Expr::Tuple(v) if v.len() == 2 => Ok((v[0].to_string(), v[1].to_string())),
        _ => Err(Error::TypeMismatch(
            "OVERLAPS compares two periods: (start, end) OVERLAPS (start, end)".into(),
        )),
    };
    let ((a, b), (c, d)) = (pair(left)?, pair(right)?);
    // a period whose start is NULL, or whose end comes first, is turned round (SQL's rule)
    let turned = |x: &str, y: &str| format!("({x}) IS NULL OR ({y}) < ({x})");
    let lo = |x: &str, y: &str| format!("(CASE WHEN {} THEN ({y}) ELSE ({x}) END)", turned(x, y));
    let hi = |x: &str, y: &str| format!("(CASE WHEN {} THEN ({x}) ELSE ({y}) END)", turned(x, y));
    let (s1, t1, s2, t2) = (lo(&a, &b), hi(&a, &b), lo(&c, &d), hi(&c, &d));
    let sql = format!(
        "({s1} > {s2} AND NOT ({s1} >= {t2} AND {t1} >= {t2})) \
         OR ({s2} > {s1} AND NOT ({s2} >= {t1} AND {t2} >= {t1})) \
         OR ({s1} = {s2} AND ({t1} <> {t2} OR {t1} = {t2}))"
    );
    Ok(tdlite_parser::parse_expression(&sql)?)
}

impl Exec<'_> {
    /// The request's CURRENT_TIMESTAMP as a literal.
    pub fn now_literal(&self) -> ArrayRef {
        Arc::new(TimestampMicrosecondArray::from(vec![self.now_us()]))
    }

    /// CURRENT_DATE, CURRENT_TIME[(n)], CURRENT_TIMESTAMP[(n)] and the other values of the
    /// request or session; `precision` is n, fractional digits kept (CURRENT_TIME's default
    /// is 0, CURRENT_TIMESTAMP's 6, as Teradata documents).
    fn current(&self, name: &str, precision: Option<u32>) -> Option<ArrayRef> {
        if !is_request_value(name) {
            return None;
        }
        self.note_volatile();
        Some(match name {
            "CURRENT_TIMESTAMP" => Arc::new(TimestampMicrosecondArray::from(vec![
                self.clock(true, precision)
            ])),
            "CURRENT_DATE" | "DATE" => {
                crate::expr::cast_to_arrow(&self.now_literal(), &DataType::Date32).ok()?
            }
            "CURRENT_TIME" | "TIME" => Arc::new(arrow::array::Time64MicrosecondArray::from(vec![
                self.clock(false, precision),
            ])),
            "USER" | "CURRENT_USER" => Arc::new(StringArray::from(vec![self.user.to_string()])),
            "DATABASE" => Arc::new(StringArray::from(vec![self
                .database
                .unwrap_or(self.user)
                .to_string()])),
            "SESSION" => Arc::new(arrow::array::Int32Array::from(vec![i32::try_from(
                self.session,
            )
            .unwrap_or(i32::MAX)])),
            // no accounts, roles or profiles here: NULL, as the DBC views show them (Teradata
            // gives NULL for a session without a role or profile)
            "ACCOUNT" | "ROLE" | "CURRENT_ROLE" | "PROFILE" => {
                Arc::new(StringArray::from(vec![None::<&str>]))
            }
            _ => return None,
        })
    }

    /// A call `f` of `name` (upper case) that is a value of the request or session
    /// (`CURRENT_TIMESTAMP[(p)]`, `CURRENT_TIME[(p)]`, CURRENT_DATE, USER, …: see
    /// [`Exec::current`]) as its one-row array; `None` for any other function.
    ///
    /// # Errors
    /// 9913 (type mismatch) for a precision that is not 0 to 6.
    pub(crate) fn current_call(&self, name: &str, f: &ast::Function) -> Result<Option<ArrayRef>> {
        if !matches!(name, "CURRENT_TIME" | "CURRENT_TIMESTAMP") {
            return Ok(self.current(name, None));
        }
        let precision = Self::clock_precision(name, f)?;
        Ok(self.current(name, precision))
    }

    /// A call `f` of `name` (upper case) that is `CURRENT_TIMESTAMP[(p)]` or
    /// `CURRENT_TIME[(p)]` as its value (what [`Exec::current_call`] gives as an array);
    /// `None` for any other function.
    ///
    /// # Errors
    /// As [`Exec::current_call`].
    pub(crate) fn clock_call(&self, name: &str, f: &ast::Function) -> Result<Option<Value>> {
        let timestamp = match name {
            "CURRENT_TIMESTAMP" => true,
            "CURRENT_TIME" => false,
            _ => return Ok(None),
        };
        let us = self.clock(timestamp, Self::clock_precision(name, f)?);
        Ok(Some(if timestamp {
            Value::Timestamp(us)
        } else {
            Value::Time(us)
        }))
    }

    /// The request's time as CURRENT_TIMESTAMP (`timestamp`) or CURRENT_TIME, in µs, cut to
    /// `precision` fractional digits (CURRENT_TIME's default is 0, CURRENT_TIMESTAMP's 6, as
    /// Teradata documents).
    fn clock(&self, timestamp: bool, precision: Option<u32>) -> i64 {
        let cut = |us: i64, p: u32| us - us.rem_euclid(10i64.pow(6 - p.min(6)));
        if timestamp {
            cut(self.now_us(), precision.unwrap_or(6))
        } else {
            cut(
                self.now_us().rem_euclid(86_400_000_000),
                precision.unwrap_or(0),
            )
        }
    }

    /// The `(p)` of `CURRENT_TIMESTAMP(p)` / `CURRENT_TIME(p)`.
    ///
    /// # Errors
    /// 9913 (type mismatch) for a precision that is not 0 to 6.
    fn clock_precision(name: &str, f: &ast::Function) -> Result<Option<u32>> {
        let bad = || Error::TypeMismatch(format!("{name} takes a precision from 0 to 6"));
        match Self::function_args(f)?.0.as_slice() {
            [] => Ok(None),
            [ast::FunctionArgExpr::Expr(ast::Expr::Value(v))] => match &v.value {
                ast::Value::Number(n, _) => n
                    .parse::<u32>()
                    .ok()
                    .filter(|p| *p <= 6)
                    .ok_or_else(bad)
                    .map(Some),
                _ => Err(bad()),
            },
            _ => Err(bad()),
        }
    }

    /// Binds `e` against `scope`; with `grouping`, aggregates and GROUP BY expressions become
    /// references to the aggregated batch.
    ///
    /// # Errors
    /// 3810 unknown column, 3822 ambiguous, 3504 not in GROUP BY, 9910 unsupported syntax.
    pub fn bind_expr(
        &mut self,
        e: &ast::Expr,
        scope: &Scope,
        grouping: Option<&mut Grouping>,
    ) -> Result<Expr> {
        crate::stack::deep(|| self.bind_expr_level(e, scope, grouping))
    }

    /// One level of [`Exec::bind_expr`] (which reaches the next level through
    /// `crate::stack::deep`).
    fn bind_expr_level(
        &mut self,
        e: &ast::Expr,
        scope: &Scope,
        mut grouping: Option<&mut Grouping>,
    ) -> Result<Expr> {
        if let Some(g) = grouping.as_deref_mut() {
            if let Some(i) = g.keys.iter().position(|k| same_group_key(k, e, scope)) {
                // a grouped character column compares as its key does (CASESPECIFIC kept)
                return Ok(Expr::Column {
                    index: i,
                    case_specific: g.key_cs.get(i).copied().unwrap_or(false),
                });
            }
            if let ast::Expr::Function(f) = e {
                let name = tdlite_parser::object_name_string(&f.name);
                if name.eq_ignore_ascii_case("GROUPING") && f.over.is_none() {
                    return grouping_flag(f, g, scope);
                }
                if let (Some(func), None) = (agg_func(&name), &f.over) {
                    let call = match func {
                        AggFunc::Percentile { .. } => {
                            let (func, arg, distinct) = self.bind_percentile(&name, f, scope)?;
                            AggCall::new(func, arg, distinct)
                        }
                        AggFunc::XmlAgg => self.bind_xmlagg(f, scope)?,
                        _ => {
                            let (arg, distinct) = self.bind_agg_arg(f, scope)?;
                            AggCall::new(func, arg, distinct)
                        }
                    };
                    g.calls.push(call);
                    let index = g.call_column(g.calls.len() - 1);
                    let column = Expr::Column {
                        index,
                        case_specific: false,
                    };
                    return Ok(if func == AggFunc::Count {
                        self.count_type(column)
                    } else {
                        column
                    });
                }
            }
            if matches!(
                e,
                ast::Expr::Identifier(_) | ast::Expr::CompoundIdentifier(_)
            ) {
                // a bare column outside GROUP BY: an error unless it names nothing (then 3810)
                // or a column of an enclosing query's current row (a correlated subquery's
                // HAVING or select list), which is one value for every group
                let bound = self.bind_expr(e, scope, None)?;
                let value = match &bound {
                    Expr::CaseSpecific(x) => &**x,
                    x => x,
                };
                return match value {
                    Expr::Literal(_) => Ok(bound),
                    _ => Err(Error::NotInGroup),
                };
            }
        }
        let mut b =
            |x: &ast::Expr, this: &mut Self| this.bind_expr(x, scope, grouping.as_deref_mut());
        Ok(match e {
            ast::Expr::Identifier(id)
                if self.sample_ids
                    && id.quote_style.is_none()
                    && id.value.eq_ignore_ascii_case("SAMPLEID")
                    && matches!(scope.resolve(None, &id.value), Ok(None)) =>
            {
                Expr::SampleId
            }
            ast::Expr::Identifier(id) => self.bind_column(None, &id.value, scope)?,
            ast::Expr::CompoundIdentifier(parts) => {
                // `t.c`, or `db.t.c`: the qualifier is everything before the column
                let n = parts.len();
                let q = parts[..n.saturating_sub(1)]
                    .iter()
                    .map(|p| p.value.as_str())
                    .collect::<Vec<_>>()
                    .join(".");
                self.bind_column(Some(&q), &parts[n - 1].value, scope)?
            }
            ast::Expr::Nested(x) => b(x, self)?,
            // a NAMED or TITLE phrase away from the select list's top names nothing here
            ast::Expr::Named { expr: x, .. } => b(x, self)?,
            _ if tdlite_parser::phrase::title(e).is_some()
                || tdlite_parser::phrase::format_phrase(e).is_some() =>
            {
                // a TITLE or FORMAT phrase: the select list takes the title or the format (the
                // display), the value is the expression's
                match tdlite_parser::phrase::title(e)
                    .or_else(|| tdlite_parser::phrase::format_phrase(e))
                {
                    Some((x, _)) => b(x, self)?,
                    None => unreachable!("checked by the guard"),
                }
            }
            ast::Expr::Collate { expr: x, collation } => {
                let want = match tdlite_parser::object_name_string(collation).as_str() {
                    tdlite_parser::phrase::CASESPECIFIC => true,
                    tdlite_parser::phrase::NOT_CASESPECIFIC => false,
                    other => return Err(Error::Unsupported(format!("COLLATE {other}"))),
                };
                match b(x, self)? {
                    // `col (NOT CASESPECIFIC)`: comparisons with it follow the phrase
                    Expr::Column { index, .. } => Expr::Column {
                        index,
                        case_specific: want,
                    },
                    e if e.case_specific() == want => e,
                    // `'abc' (CASESPECIFIC)`: comparisons and searches with it are case specific
                    e if want => Expr::CaseSpecific(Box::new(e)),
                    // `'abc' (NOT CASESPECIFIC)` in ANSI mode: the literal as it is
                    Expr::CaseSpecific(inner) if !inner.case_specific() => *inner,
                    // `CAST(cs_col AS …) (NOT CS)`, `a || b (NOT CS)`: compared case blind
                    e => Expr::NotCaseSpecific(Box::new(e)),
                }
            }
            // ANSI mode: a character literal is CASESPECIFIC (SQL Data Types and Literals,
            // "Default Case Specificity"); in Teradata mode NOT CASESPECIFIC
            ast::Expr::Value(v) => match (&v.value, self.ansi) {
                (ast::Value::SingleQuotedString(_), true) => {
                    Expr::CaseSpecific(Box::new(one(self.bind_value(&v.value)?)))
                }
                _ => one(self.bind_value(&v.value)?),
            },
            ast::Expr::TypedString(ts) => {
                let ty = crate::types::sql_type_from_name(&ts.data_type.to_string())?;
                let s = match &ts.value.value {
                    ast::Value::SingleQuotedString(s) => s.clone(),
                    other => other.to_string(),
                };
                one(typed_string(ty, &s)?)
            }
            ast::Expr::Interval(iv) => one(interval_literal(iv)?),
            ast::Expr::BinaryOp {
                op: op @ (ast::BinaryOperator::And | ast::BinaryOperator::Or),
                ..
            } => {
                // `a OR b OR c …` parses left-deep, as deep as it is long: collect the chain
                // without recursion and bind it as a balanced tree, so binding and evaluating a
                // long chain needs little stack (AND and OR are associative in Kleene logic)
                let mut operands = Vec::new();
                let mut rest = e;
                while let ast::Expr::BinaryOp { left, op: o, right } = rest {
                    if o != op {
                        break;
                    }
                    operands.push(right.as_ref());
                    rest = left;
                }
                operands.push(rest);
                operands.reverse();
                let bound = operands
                    .into_iter()
                    .map(|x| b(x, self))
                    .collect::<Result<Vec<_>>>()?;
                let bin = if matches!(op, ast::BinaryOperator::And) {
                    BinOp::And
                } else {
                    BinOp::Or
                };
                balanced(bin, bound)
            }
            ast::Expr::BinaryOp {
                left,
                op: ast::BinaryOperator::PGExp,
                right,
            } => Expr::Func(
                Func::Builtin(crate::functions::Builtin::Power),
                vec![b(left, self)?, b(right, self)?],
            ),
            ast::Expr::BinaryOp {
                left,
                op: ast::BinaryOperator::Overlaps,
                right,
            } if matches!(**left, ast::Expr::Tuple(_))
                || matches!(**right, ast::Expr::Tuple(_)) =>
            {
                let expanded = overlaps(left, right)?;
                b(&expanded, self)?
            }
            ast::Expr::BinaryOp {
                left,
                op: ast::BinaryOperator::Overlaps,
                right,
            } => crate::period_fns::call(
                crate::period_fns::PeriodFn::Overlaps,
                vec![b(left, self)?, b(right, self)?],
            )?,
            ast::Expr::BinaryOp {
                left,
                op: ast::BinaryOperator::Custom(words),
                right,
            } => match crate::period_fns::operator(words) {
                Some(f) => crate::period_fns::call(f, vec![b(left, self)?, b(right, self)?])?,
                None => return Err(Error::Unsupported(format!("the operator {words}"))),
            },
            ast::Expr::AnyOp {
                left,
                compare_op,
                right,
                ..
            } => {
                let x = b(left, self)?;
                self.bind_quantified(x, compare_op, right, false, scope)?
            }
            ast::Expr::AllOp {
                left,
                compare_op,
                right,
            } => {
                let x = b(left, self)?;
                self.bind_quantified(x, compare_op, right, true, scope)?
            }
            ast::Expr::BinaryOp { left, op, right } => {
                let ast_op = op;
                let op = match comparison(op) {
                    Some(c) => c,
                    None => match op {
                        ast::BinaryOperator::Plus => BinOp::Add,
                        ast::BinaryOperator::Minus => BinOp::Sub,
                        ast::BinaryOperator::Multiply => BinOp::Mul,
                        ast::BinaryOperator::Divide => BinOp::Div,
                        ast::BinaryOperator::Modulo => BinOp::Mod,
                        ast::BinaryOperator::And => BinOp::And,
                        ast::BinaryOperator::Or => BinOp::Or,
                        ast::BinaryOperator::StringConcat => BinOp::Concat,
                        other => return Err(Error::Unsupported(format!("the operator {other}"))),
                    },
                };
                // a character literal compared with a DATE or TIMESTAMP that has a FORMAT may
                // be written in that format
                let (left, right) = match comparison(ast_op) {
                    Some(_) => (
                        crate::names::literal_by_format(left, right, scope)
                            .map_or(Cow::Borrowed(&**left), Cow::Owned),
                        crate::names::literal_by_format(right, left, scope)
                            .map_or(Cow::Borrowed(&**right), Cow::Owned),
                    ),
                    None => (Cow::Borrowed(&**left), Cow::Borrowed(&**right)),
                };
                let (left, right) = (left.as_ref(), right.as_ref());
                let (l, r) = (b(left, self)?, b(right, self)?);
                if op == BinOp::Concat {
                    // a number, date or time operand is written by its FORMAT (its own, else
                    // its type's default: Teradata's implicit conversion to text, pads kept)
                    let text =
                        |bound: Expr, x: &ast::Expr| crate::names::concat_operand(bound, x, scope);
                    Expr::Binary(op, Box::new(text(l, left)), Box::new(text(r, right)))
                } else {
                    Expr::Binary(op, Box::new(l), Box::new(r))
                }
            }
            ast::Expr::UnaryOp { op, expr } => match op {
                ast::UnaryOperator::Not => Expr::Not(Box::new(b(expr, self)?)),
                ast::UnaryOperator::Minus => match expr.as_ref() {
                    ast::Expr::Value(v) if matches!(v.value, ast::Value::Number(..)) => {
                        let ast::Value::Number(s, _) = &v.value else {
                            unreachable!("matched above")
                        };
                        one(number_literal(&format!("-{s}"))?)
                    }
                    _ => Expr::Neg(Box::new(b(expr, self)?)),
                },
                ast::UnaryOperator::Plus => b(expr, self)?,
                other => return Err(Error::Unsupported(format!("the operator {other}"))),
            },
            ast::Expr::IsNull(x) => Expr::IsNull(Box::new(b(x, self)?), false),
            ast::Expr::IsNotNull(x) => Expr::IsNull(Box::new(b(x, self)?), true),
            ast::Expr::Between {
                expr,
                negated,
                low,
                high,
            } => {
                let v = b(expr, self)?;
                let (low, high) = (
                    crate::names::literal_by_format(low, expr, scope)
                        .map_or(Cow::Borrowed(&**low), Cow::Owned),
                    crate::names::literal_by_format(high, expr, scope)
                        .map_or(Cow::Borrowed(&**high), Cow::Owned),
                );
                let ge = Expr::Binary(BinOp::GtEq, Box::new(v.clone()), Box::new(b(&low, self)?));
                let le = Expr::Binary(BinOp::LtEq, Box::new(v), Box::new(b(&high, self)?));
                let both = Expr::Binary(BinOp::And, Box::new(ge), Box::new(le));
                if *negated {
                    Expr::Not(Box::new(both))
                } else {
                    both
                }
            }
            ast::Expr::In {
                expr,
                target: ast::InTarget::List(list),
                negated,
                ..
            } => {
                let v = b(expr, self)?;
                let items = list
                    .iter()
                    .map(|x| match crate::names::literal_by_format(x, expr, scope) {
                        Some(ansi) => b(&ansi, self),
                        None => b(x, self),
                    })
                    .collect::<Result<Vec<_>>>()?;
                Expr::InList(Box::new(v), items.into(), *negated)
            }
            ast::Expr::In {
                expr,
                target: ast::InTarget::Subquery(q),
                negated,
                ..
            } if matches!(**expr, ast::Expr::Tuple(_)) => {
                self.bind_tuple_in(expr, q, *negated, scope, grouping)?
            }
            ast::Expr::In {
                expr,
                target: ast::InTarget::Subquery(q),
                negated,
                ..
            } => {
                let v = b(expr, self)?;
                // (bound for its columns alone where the block defers its subqueries)
                let values = |ex: &mut Self| match ex.deferring() {
                    true => ex.set_input(q),
                    false => ex.in_list_values(q),
                };
                match self.alone(scope, values) {
                    Ok(items) => Expr::InList(Box::new(v), items.into(), *negated),
                    Err(Error::ColumnNotFound(c)) => {
                        let shape = crate::decorrelate::Shape::Compare {
                            value: &v,
                            op: BinOp::Eq,
                            all: false,
                            negated: *negated,
                        };
                        match self.decorrelated(q, shape)? {
                            Some(e) => e,
                            None => self
                                .correlated((&c, scope), &v.columns(), |ex, row| {
                                    let items = ex.subquery_values(q)?;
                                    Expr::InList(Box::new(v.clone()), items.into(), *negated)
                                        .eval(row)
                                })?
                                .ok_or(Error::ColumnNotFound(c))?,
                        }
                    }
                    Err(e) => return Err(e),
                }
            }
            ast::Expr::Exists { subquery, negated } => {
                let exists = |ex: &mut Self| -> Result<ArrayRef> {
                    let rows = ex.run_query(subquery)?;
                    Ok(crate::deferred::exists_value(rows.num_rows() > 0, *negated))
                };
                // (bound for its columns alone where the block defers its subqueries)
                let first = |ex: &mut Self| match ex.deferring() {
                    true => ex.exists_input(subquery, *negated),
                    false => exists(ex),
                };
                match self.alone(scope, first) {
                    Ok(a) => one(a),
                    Err(Error::ColumnNotFound(c)) => {
                        let shape = crate::decorrelate::Shape::Exists(*negated);
                        match self.decorrelated(subquery, shape)? {
                            Some(e) => e,
                            None => self
                                .correlated((&c, scope), &[], |ex, _| exists(ex))?
                                .ok_or(Error::ColumnNotFound(c))?,
                        }
                    }
                    Err(e) => return Err(e),
                }
            }
            ast::Expr::Like { .. } if like_over_subquery(e).is_some() => {
                let exists = like_over_subquery(e).unwrap_or_else(|| {
                    Err(Error::Internal("quantified LIKE over a subquery".into()))
                })?;
                b(&exists, self)?
            }
            ast::Expr::Like {
                negated,
                expr,
                pattern,
                escape_char,
                any,
            } if like_list(*any, pattern).is_some() => {
                let joined = quantified_like(e)?;
                b(&joined, self)?
            }
            ast::Expr::Like {
                negated,
                expr,
                pattern,
                escape_char,
                any: false,
            } => {
                let mut args = vec![b(pattern, self)?];
                if let Some(e) = escape_char {
                    args.push(b(e, self)?);
                }
                // a number is matched as the text its FORMAT writes (`n LIKE '1%'` of an
                // INTEGER 12 is false: its text is '         12')
                let text = crate::names::implicit_text(b(expr, self)?, expr, scope);
                Expr::Like(
                    Box::new(text),
                    Box::new(Expr::Func(Func::LikePattern, args)),
                    *negated,
                )
            }
            ast::Expr::Case {
                operand,
                conditions,
                else_result,
                ..
            } => {
                let op = operand.as_ref().map(|o| b(o, self)).transpose()?;
                let mut whens = Vec::new();
                for w in conditions {
                    let c = b(&w.condition, self)?;
                    let c = match &op {
                        Some(o) => Expr::Binary(BinOp::Eq, Box::new(o.clone()), Box::new(c)),
                        None => c,
                    };
                    whens.push((c, b(&w.result, self)?));
                }
                let otherwise = else_result
                    .as_ref()
                    .map(|x| b(x, self))
                    .transpose()?
                    .map(Box::new);
                Expr::Case(whens, otherwise)
            }
            ast::Expr::Cast {
                kind: ast::CastKind::TryCast,
                expr,
                data_type,
                format: None,
            } => {
                // TRYCAST: NULL where the value does not convert (row by row)
                let ty = crate::types::sql_type_from_name(&data_type.to_string())?;
                Expr::Func(
                    Func::Builtin(crate::functions::Builtin::TryCast(ty)),
                    vec![b(expr, self)?],
                )
            }
            ast::Expr::Cast {
                kind,
                expr,
                data_type,
                format: None,
            } => {
                let ty = crate::types::sql_type_from_name(&data_type.to_string())?;
                let conversion_syntax = matches!(kind, ast::CastKind::DoubleColon);
                match crate::names::own_format(expr, scope) {
                    // a number, date or time with a FORMAT of its own becomes text by it:
                    // CAST trims the pad characters, the conversion syntax keeps them
                    Some(f) if ty.is_character() => {
                        let pads = if conversion_syntax {
                            crate::format::Pads::Keep
                        } else {
                            crate::format::Pads::Trim
                        };
                        Expr::WriteOwnFormat(Box::new(b(expr, self)?), ty, Some(f), pads)
                    }
                    // the conversion syntax writes a number by its type's default FORMAT,
                    // pads kept and cut to the length (`5 (CHAR(4))` is '   5')
                    None if ty.is_character() && conversion_syntax => {
                        crate::names::text_as(b(expr, self)?, expr, scope, ty)
                    }
                    // a TIME, TIMESTAMP or PERIOD with its type's fractional digits; a
                    // number whose text would lose more than blanks is 3996, and in ANSI
                    // mode text too
                    None if ty.is_character() => {
                        let mut x = crate::names::with_time_digits(b(expr, self)?, expr, scope);
                        if let SqlType::Char(n) | SqlType::VarChar(n) = ty {
                            x = Expr::Func(Func::NoTruncation(n, self.ansi), vec![x]);
                        }
                        Expr::Cast(Box::new(x), ty)
                    }
                    _ => Expr::Cast(Box::new(b(expr, self)?), ty),
                }
            }
            ast::Expr::Cast {
                expr,
                data_type,
                format: Some(ast::CastFormat::Value(v)),
                ..
            } => {
                let ty = crate::types::sql_type_from_name(&data_type.to_string())?;
                let fmt = match &v.value {
                    ast::Value::SingleQuotedString(f) => f.clone(),
                    other => return Err(Error::Unsupported(format!("FORMAT {other}"))),
                };
                Expr::CastFormat(Box::new(b(expr, self)?), ty, fmt)
            }
            ast::Expr::Trim {
                expr,
                trim_where: None,
                trim_what: None,
                trim_characters: None,
            } => Expr::Func(
                Func::Trim,
                vec![crate::names::implicit_text(b(expr, self)?, expr, scope)],
            ),
            ast::Expr::Trim {
                expr,
                trim_where,
                trim_what,
                trim_characters: None,
            } => {
                use crate::functions::{Builtin, Side};
                let side = match trim_where {
                    Some(ast::TrimWhereField::Leading) => Side::Leading,
                    Some(ast::TrimWhereField::Trailing) => Side::Trailing,
                    _ => Side::Both,
                };
                let mut args = vec![crate::names::implicit_text(b(expr, self)?, expr, scope)];
                if let Some(w) = trim_what {
                    // one character (TRIM "Argument Types and Rules"); LTRIM and RTRIM take
                    // a set of them
                    if let ast::Expr::Value(v) = &**w {
                        if let ast::Value::SingleQuotedString(t) = &v.value {
                            if t.chars().count() != 1 {
                                return Err(Error::BadArgument(format!(
                                    "TRIM: '{t}' is not one character"
                                )));
                            }
                        }
                    }
                    args.push(b(w, self)?);
                }
                Expr::Func(Func::Builtin(Builtin::Trim(side)), args)
            }
            ast::Expr::Substring {
                expr,
                substring_from,
                substring_for,
                ..
            } => {
                let mut args = vec![crate::names::implicit_text(b(expr, self)?, expr, scope)];
                args.push(match substring_from {
                    Some(f) => b(f, self)?,
                    None => one(Arc::new(arrow::array::Int64Array::from(vec![1]))),
                });
                if let Some(l) = substring_for {
                    args.push(b(l, self)?);
                }
                Expr::Func(Func::Builtin(crate::functions::Builtin::Substr), args)
            }
            ast::Expr::Position { expr, r#in } => crate::functions::index_call(vec![
                crate::names::implicit_text(b(r#in, self)?, r#in, scope),
                crate::names::implicit_text(b(expr, self)?, expr, scope),
            ]),
            ast::Expr::Extract { field, expr, .. } => {
                use crate::functions::Field;
                let f = match field {
                    ast::DateTimeField::Year => Field::Year,
                    ast::DateTimeField::Month => Field::Month,
                    ast::DateTimeField::Day => Field::Day,
                    ast::DateTimeField::Hour => Field::Hour,
                    ast::DateTimeField::Minute => Field::Minute,
                    ast::DateTimeField::Second => Field::Second,
                    other => return Err(Error::Unsupported(format!("EXTRACT({other})"))),
                };
                Expr::Func(
                    Func::Builtin(crate::functions::Builtin::Extract(f)),
                    vec![b(expr, self)?],
                )
            }
            ast::Expr::Ceil { expr, field } | ast::Expr::Floor { expr, field } => {
                use crate::functions::Builtin;
                if !matches!(
                    field,
                    ast::CeilFloorKind::DateTimeField(ast::DateTimeField::NoDateTime)
                ) {
                    return Err(Error::Unsupported(format!("the expression '{e}'")));
                }
                let f = if matches!(e, ast::Expr::Ceil { .. }) {
                    Builtin::Ceiling
                } else {
                    Builtin::Floor
                };
                Expr::Func(Func::Builtin(f), vec![b(expr, self)?])
            }
            ast::Expr::Subquery(q) => match self.alone(scope, |ex| match ex.deferring() {
                true => ex.scalar_input(q),
                false => ex.scalar_subquery(q),
            }) {
                Ok(a) => one(a),
                Err(Error::ColumnNotFound(c)) => {
                    // TOP n in a correlated subquery: Teradata's 6916 ("Rules and
                    // Restrictions for the TOP n Operator"; one in a search condition is the
                    // parser's)
                    if let (Some(at), true) = (top_of(q), self.names_column(&c, scope)) {
                        return Err(Error::Parse(tdlite_parser::ParseError {
                            kind: tdlite_parser::ParseErrorKind::TopRule(
                                "a correlated subquery".into(),
                            ),
                            location: tdlite_parser::Location::new(at.line, at.column),
                            statement: 1,
                        }));
                    }
                    match self.decorrelated(q, crate::decorrelate::Shape::Scalar)? {
                        Some(e) => e,
                        None => self
                            .correlated((&c, scope), &[], |ex, _| ex.scalar_subquery(q))?
                            .ok_or(Error::ColumnNotFound(c))?,
                    }
                }
                Err(e) => return Err(e),
            },
            ast::Expr::Function(f) => self.bind_function(f, scope, grouping)?,
            other => return Err(Error::Unsupported(format!("the expression '{other}'"))),
        })
    }

    fn bind_column(&mut self, qualifier: Option<&str>, name: &str, scope: &Scope) -> Result<Expr> {
        if let Some(i) = scope.resolve_at(qualifier, name, self.home_database())? {
            return Ok(Expr::Column {
                index: i,
                case_specific: scope.columns[i].case_specific,
            });
        }
        if qualifier.is_none() {
            let upper = name.to_ascii_uppercase();
            if let Some(a) = self.current(&upper, None) {
                return Ok(one(a));
            }
        }
        // a correlated subquery reads the enclosing query's current row: a slot of a kept
        // plan, read again from the row each run is for
        if let Some((a, case_specific)) = self.outer_value(qualifier, name)? {
            let slot = || {
                let q = qualifier.map(str::to_string);
                crate::slots::Slot::Outer(q, name.into(), case_specific)
            };
            self.note_slot(&a, slot);
            return Ok(match case_specific {
                true => Expr::CaseSpecific(Box::new(one(a))),
                false => one(a),
            });
        }
        Err(Error::ColumnNotFound(match qualifier {
            Some(q) => format!("{q}.{name}"),
            None => name.to_string(),
        }))
    }

    /// The database whose tables a FROM may name without it: the default database, else the
    /// user's.
    pub(crate) fn home_database(&self) -> &str {
        self.database.unwrap_or(self.user)
    }

    fn bind_value(&self, v: &ast::Value) -> Result<ArrayRef> {
        Ok(match v {
            ast::Value::Number(s, _) => number_literal(s)?,
            ast::Value::SingleQuotedString(s) => Arc::new(StringArray::from(vec![s.as_str()])),
            ast::Value::Null => new_null_array(&DataType::Null, 1),
            // X'4142': a byte string (VARBYTE)
            ast::Value::HexStringLiteral(h) => Arc::new(arrow::array::BinaryArray::from(vec![
                crate::functions::hex_bytes(h)?.as_slice(),
            ])),
            ast::Value::Placeholder(p) => {
                let a = crate::params::parameter(p, self.params)?;
                self.note_slot(&a, || crate::slots::Slot::Param(p.clone()));
                a
            }
            other => return Err(Error::Unsupported(format!("the literal {other}"))),
        })
    }

    /// `CONCAT(a, b, …)`: bound as `a || b || …` (NULL if any argument is NULL). Apart from
    /// `bind_function`, whose frame is on every nested call's recursion path.
    #[inline(never)]
    fn bind_concat(
        &mut self,
        f: &ast::Function,
        scope: &Scope,
        grouping: Option<&mut Grouping>,
    ) -> Result<Expr> {
        let exprs: Vec<ast::Expr> = Self::function_args(f)?
            .0
            .iter()
            .map(|a| match a {
                ast::FunctionArgExpr::Expr(e) => Ok(e.clone()),
                other => Err(Error::TypeMismatch(format!("CONCAT of {other}"))),
            })
            .collect::<Result<_>>()?;
        let mut it = exprs.into_iter();
        let (Some(first), Some(second)) = (it.next(), it.next()) else {
            return Err(Error::TypeMismatch(
                "CONCAT takes two or more arguments".into(),
            ));
        };
        let concat = |left, right| ast::Expr::BinaryOp {
            left: Box::new(left),
            op: ast::BinaryOperator::StringConcat,
            right: Box::new(right),
        };
        let chain = it.fold(concat(first, second), concat);
        self.bind_expr(&chain, scope, grouping)
    }

    pub(crate) fn function_args(f: &ast::Function) -> Result<(Vec<&ast::FunctionArgExpr>, bool)> {
        match &f.args {
            ast::FunctionArguments::None => Ok((vec![], false)),
            ast::FunctionArguments::List(l) => {
                let distinct = matches!(
                    l.duplicate_treatment,
                    Some(ast::DuplicateTreatment::Distinct)
                );
                // clauses inside the parentheses (`x IGNORE NULLS`, `ORDER BY …`, …) would change
                // the answer: only RESPECT NULLS, which is the default, may pass
                for c in &l.clauses {
                    if !matches!(
                        c,
                        ast::FunctionArgumentClause::IgnoreOrRespectNulls(
                            ast::NullTreatment::RespectNulls
                        )
                    ) {
                        return Err(Error::Unsupported(format!("{c} in a function's arguments")));
                    }
                }
                let mut out = Vec::new();
                for a in &l.args {
                    match a {
                        ast::FunctionArg::Unnamed(x) => out.push(x),
                        other => return Err(Error::Unsupported(format!("the argument {other}"))),
                    }
                }
                Ok((out, distinct))
            }
            ast::FunctionArguments::Subquery(_) => {
                Err(Error::Unsupported("a subquery as function argument".into()))
            }
        }
    }

    fn bind_agg_arg(&mut self, f: &ast::Function, scope: &Scope) -> Result<(Option<Expr>, bool)> {
        let (args, distinct) = Self::function_args(f)?;
        match args.as_slice() {
            [ast::FunctionArgExpr::Wildcard] => Ok((None, distinct)),
            [ast::FunctionArgExpr::Expr(x)] => {
                if has_aggregate(x) {
                    return Err(Error::TypeMismatch("aggregates cannot be nested".into()));
                }
                // a correlated subquery in an aggregate's argument runs per FROM row, where
                // those are known (correlate.rs); never as a group's placeholder
                let placeholders = self.placeholders.take();
                let arg = self.over_aggregate_input(|ex| ex.bind_expr(x, scope, None));
                self.placeholders = placeholders;
                Ok((Some(arg?), distinct))
            }
            _ => Err(Error::TypeMismatch(format!(
                "{} takes one argument",
                f.name
            ))),
        }
    }

    /// `XMLAGG(x [ORDER BY k [ASC|DESC] [NULLS FIRST|LAST], …])`: x and the keys bound over the
    /// FROM rows (xmlagg.rs).
    ///
    /// # Errors
    /// 9913 for DISTINCT, `*` or more than one value; the binding's errors of x and the keys.
    fn bind_xmlagg(&mut self, f: &ast::Function, scope: &Scope) -> Result<AggCall> {
        let mut plain = f.clone();
        let mut order_by = Vec::new();
        if let ast::FunctionArguments::List(l) = &mut plain.args {
            l.clauses.retain(|c| match c {
                ast::FunctionArgumentClause::OrderBy(o) => {
                    order_by.extend(o.iter().cloned());
                    false
                }
                _ => true,
            });
        }
        let (arg, distinct) = self.bind_agg_arg(&plain, scope)?;
        if distinct || arg.is_none() {
            return Err(Error::TypeMismatch("XMLAGG takes one value".into()));
        }
        let mut order = Vec::with_capacity(order_by.len());
        for ob in &order_by {
            if has_aggregate(&ob.expr) {
                return Err(Error::TypeMismatch("aggregates cannot be nested".into()));
            }
            let descending = matches!(ob.options.sort, Some(ast::OrderBySort::Desc));
            let placeholders = self.placeholders.take();
            let expr = self.over_aggregate_input(|ex| ex.bind_expr(&ob.expr, scope, None));
            self.placeholders = placeholders;
            order.push(crate::ops::SortKey {
                expr: expr?,
                descending,
                nulls_first: ob.options.nulls_first.unwrap_or(!descending),
            });
        }
        Ok(AggCall {
            order,
            ..AggCall::new(AggFunc::XmlAgg, arg, false)
        })
    }

    /// `MEDIAN(x)`, `PERCENTILE_CONT(p) WITHIN GROUP (ORDER BY x [ASC|DESC])` and
    /// PERCENTILE_DISC: the aggregate with its fraction and order, and x bound.
    ///
    /// # Errors
    /// 9919 for a fraction that is no number from 0 to 1; 9913 for a form these lack.
    fn bind_percentile(
        &mut self,
        name: &str,
        f: &ast::Function,
        scope: &Scope,
    ) -> Result<(AggFunc, Option<Expr>, bool)> {
        let upper = name.to_ascii_uppercase();
        if upper == "MEDIAN" {
            let (arg, distinct) = self.bind_agg_arg(f, scope)?;
            if distinct || arg.is_none() {
                return Err(Error::TypeMismatch("MEDIAN takes one value".into()));
            }
            let func = AggFunc::Percentile {
                cont: true,
                fraction: 0.5f64.to_bits(),
                descending: false,
            };
            return Ok((func, arg, false));
        }
        let (args, distinct) = Self::function_args(f)?;
        let fraction = match args.as_slice() {
            [ast::FunctionArgExpr::Expr(ast::Expr::Value(v))] if !distinct => match &v.value {
                ast::Value::Number(n, _) => n.parse::<f64>().ok(),
                _ => None,
            },
            _ => None,
        }
        .filter(|p| (0.0..=1.0).contains(p))
        .ok_or_else(|| {
            Error::BadArgument(format!(
                "{upper}: the fraction must be a number from 0 to 1"
            ))
        })?;
        let [order] = f.within_group.as_slice() else {
            return Err(Error::TypeMismatch(format!(
                "{upper}(p) WITHIN GROUP (ORDER BY one value)"
            )));
        };
        let descending = matches!(order.options.sort, Some(ast::OrderBySort::Desc));
        let x = ast::Function {
            args: ast::FunctionArguments::List(ast::FunctionArgumentList {
                duplicate_treatment: None,
                args: vec![ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(
                    order.expr.clone(),
                ))],
                clauses: Vec::new(),
            }),
            within_group: Vec::new(),
            ..f.clone()
        };
        let (arg, _) = self.bind_agg_arg(&x, scope)?;
        let func = AggFunc::Percentile {
            cont: upper == "PERCENTILE_CONT",
            fraction: fraction.to_bits(),
            descending,
        };
        Ok((func, arg, false))
    }

    /// `PERIOD(b [, e | UNTIL_CHANGED])` and the literal `PERIOD '(b, e)'` (which the parser
    /// made the call `"tdlite period"('(b, e)')`; period_fns.rs).
    fn bind_period(
        &mut self,
        name: &str,
        f: &ast::Function,
        scope: &Scope,
        mut grouping: Option<&mut Grouping>,
    ) -> Result<Expr> {
        use crate::period_fns::{call, literal, PeriodFn};
        let (args, _) = Self::function_args(f)?;
        if name != "PERIOD" {
            return match args.as_slice() {
                [ast::FunctionArgExpr::Expr(ast::Expr::Value(v))] => match &v.value {
                    ast::Value::SingleQuotedString(s) => Ok(one(literal(s)?)),
                    other => Err(Error::TypeMismatch(format!("PERIOD {other}"))),
                },
                _ => Err(Error::TypeMismatch(
                    "a PERIOD literal is PERIOD '(b, e)'".into(),
                )),
            };
        }
        let mut bound = Vec::with_capacity(args.len());
        let mut until_changed = false;
        for (k, a) in args.iter().enumerate() {
            match a {
                ast::FunctionArgExpr::Expr(ast::Expr::Identifier(id))
                    if k == 1
                        && id.quote_style.is_none()
                        && id.value.eq_ignore_ascii_case("UNTIL_CHANGED") =>
                {
                    until_changed = true;
                }
                ast::FunctionArgExpr::Expr(x) => {
                    bound.push(self.bind_expr(x, scope, grouping.as_deref_mut())?)
                }
                other => {
                    return Err(Error::Unsupported(format!(
                        "the argument {other} of PERIOD"
                    )))
                }
            }
        }
        match until_changed {
            true => call(PeriodFn::UntilChanged, bound),
            false => {
                let precision = match args.first() {
                    Some(ast::FunctionArgExpr::Expr(x)) => crate::names::time_precision(x, scope),
                    _ => None,
                };
                let granule = crate::period_fns::granule(precision);
                call(PeriodFn::Make { granule }, bound)
            }
        }
    }

    /// A function call (not a window): kept out of `bind_expr`'s frame, which recurses.
    #[inline(never)]
    fn bind_function(
        &mut self,
        f: &ast::Function,
        scope: &Scope,
        mut grouping: Option<&mut Grouping>,
    ) -> Result<Expr> {
        let name = tdlite_parser::object_name_string(&f.name).to_ascii_uppercase();
        if let Some(over) = &f.over {
            return self.bind_window(&name, f, over, scope, grouping);
        }
        if agg_func(&name).is_some() {
            return Err(Error::TypeMismatch(format!(
                "the aggregate {name} is not allowed here (only in a select list, HAVING or ORDER BY)"
            )));
        }
        if matches!(
            name.as_str(),
            "TO_CHAR" | "TO_DATE" | "TO_TIMESTAMP" | "TO_NUMBER"
        ) {
            return self.bind_to_char(&name, f, scope, grouping);
        }
        if name == "CONCAT" {
            return self.bind_concat(f, scope, grouping);
        }
        if name.eq_ignore_ascii_case(tdlite_parser::interval_qualifier::INTERVAL_FUNCTION) {
            return self.bind_interval_diff(f, scope, grouping);
        }
        if name == "PERIOD" || name.eq_ignore_ascii_case(tdlite_parser::PERIOD_LITERAL_FUNCTION) {
            return self.bind_period(&name, f, scope, grouping);
        }
        if name == "GETQUERYBAND" || name == "SYSLIB.GETQUERYBAND" {
            self.note_volatile();
            if !Self::function_args(f)?.0.is_empty() {
                return Err(Error::TypeMismatch(
                    "GetQueryBand takes no arguments".into(),
                ));
            }
            return Ok(one(Arc::new(StringArray::from(vec![self
                .query_band
                .to_string()]))));
        }
        if let Some(a) = self.current_call(&name, f)? {
            return Ok(one(a));
        }
        let (args, _) = Self::function_args(f)?;
        let mut bound = Vec::new();
        for a in args.iter().copied() {
            match a {
                ast::FunctionArgExpr::Expr(x) => {
                    match self.bind_expr(x, scope, grouping.as_deref_mut()) {
                        Ok(v) => bound.push(v),
                        // `col (CS)`: a phrase the parser took for a call
                        Err(Error::ColumnNotFound(c)) => {
                            return match phrase_on_column(f) {
                                Some(p) => match self.bind_expr(&p, scope, grouping) {
                                    Err(Error::ColumnNotFound(_)) => Err(Error::ColumnNotFound(c)),
                                    other => other,
                                },
                                None => Err(Error::ColumnNotFound(c)),
                            }
                        }
                        Err(e) => return Err(e),
                    }
                }
                other => {
                    return Err(Error::Unsupported(format!(
                        "the argument {other} of {name}"
                    )))
                }
            }
        }
        if let Some(p) = crate::period_fns::lookup(&name) {
            // LAST: END less one granule of the period's element type
            let p = match (p, args.first()) {
                (crate::period_fns::PeriodFn::Last { .. }, Some(ast::FunctionArgExpr::Expr(x))) => {
                    crate::period_fns::PeriodFn::Last {
                        granule: crate::period_fns::granule(crate::names::time_precision(x, scope)),
                    }
                }
                (p, _) => p,
            };
            return crate::period_fns::call(p, bound);
        }
        // a number, date or time where a string function takes text is written by its FORMAT
        let text_args: &[usize] = match crate::functions::lookup(&name) {
            Some(b) => crate::functions::text_args(b),
            None if matches!(
                name.as_str(),
                "UPPER"
                    | "LOWER"
                    | "TRIM"
                    | "CHARACTERS"
                    | "CHARS"
                    | "CHAR_LENGTH"
                    | "CHARACTER_LENGTH"
            ) =>
            {
                &[0]
            }
            None => &[],
        };
        let bound: Vec<Expr> = bound
            .into_iter()
            .enumerate()
            .map(|(k, e)| match (text_args.contains(&k), args.get(k)) {
                (true, Some(ast::FunctionArgExpr::Expr(x))) => {
                    crate::names::implicit_text(e, x, scope)
                }
                _ => e,
            })
            .collect();
        if let Some(b) = crate::functions::lookup(&name) {
            if let Some(most) = crate::functions::most_args(b).filter(|&m| bound.len() > m) {
                return Err(Error::BadArgument(format!(
                    "{name}: at most {most} argument(s), not {}",
                    bound.len()
                )));
            }
            if matches!(b, crate::functions::Builtin::Random) {
                // counted by correlate/decorrelate, which must see it at every execution
                self.random_uses += 1;
                self.note_volatile();
            }
            if name == "INDEX" {
                return Ok(crate::functions::index_call(bound));
            }
            return Ok(Expr::Func(Func::Builtin(b), bound));
        }
        let arity = |n: usize| -> Result<()> {
            if bound.len() == n {
                Ok(())
            } else {
                Err(Error::TypeMismatch(format!("{name} takes {n} arguments")))
            }
        };
        if name == "NVL2" {
            // NVL2(x, a, b): a where x is not NULL, else b
            arity(3)?;
            let mut it = bound.into_iter();
            let (x, a, b) = match (it.next(), it.next(), it.next()) {
                (Some(x), Some(a), Some(b)) => (x, a, b),
                _ => return Err(Error::TypeMismatch("NVL2 takes 3 arguments".into())),
            };
            return Ok(Expr::Case(
                vec![(Expr::IsNull(Box::new(x), true), a)],
                Some(Box::new(b)),
            ));
        }
        if name == "DECODE" {
            return crate::functions::decode(bound);
        }
        if let ("TYPE", [ast::FunctionArgExpr::Expr(x)]) = (name.as_str(), args.as_slice()) {
            // a character value's declared type, where its syntax says it (`CHAR(5)`)
            if let Some(t) = crate::text_type::text_type(x, scope) {
                let text: ArrayRef = Arc::new(arrow::array::StringArray::from(vec![t.to_string()]));
                return Ok(Expr::Literal(text));
            }
        }
        let func = match name.as_str() {
            "COALESCE" => Func::Coalesce,
            // NVL(x, y): COALESCE of two
            "NVL" => {
                arity(2)?;
                Func::Coalesce
            }
            "NULLIF" => Func::NullIf,
            "GREATEST" => Func::Extreme(true),
            "LEAST" => Func::Extreme(false),
            "UPPER" => Func::Upper,
            "LOWER" => Func::Lower,
            "TRIM" => Func::Trim,
            "CHARACTERS" | "CHARS" | "CHAR_LENGTH" | "CHARACTER_LENGTH" => Func::CharLength,
            "OCTET_LENGTH" => {
                arity(1)?;
                Func::OctetLength
            }
            "BYTES" => {
                arity(1)?;
                Func::Bytes
            }
            "ABS" => Func::Abs,
            "ZEROIFNULL" => Func::ZeroIfNull,
            "NULLIFZERO" => Func::NullIfZero,
            "TYPE" => Func::Type(match args.as_slice() {
                [ast::FunctionArgExpr::Expr(x)] => crate::names::time_precision(x, scope),
                _ => None,
            }),
            _ => {
                let unknown = Error::Unsupported(format!("the function {name}"));
                // `col (DATE)`, `col (CS)`: a phrase the parser took for a call
                return match phrase_on_column(f) {
                    Some(cast) => match self.bind_expr(&cast, scope, grouping) {
                        Err(Error::ColumnNotFound(_)) => Err(unknown),
                        other => other,
                    },
                    None => Err(unknown),
                };
            }
        };
        match func {
            Func::Upper
            | Func::Lower
            | Func::CharLength
            | Func::Abs
            | Func::ZeroIfNull
            | Func::NullIfZero
            | Func::Type(_) => arity(1)?,
            Func::NullIf => arity(2)?,
            _ => {}
        }
        Ok(Expr::Func(func, bound))
    }

    /// A call with `OVER (…)`: binds its argument, PARTITION BY, ORDER BY and frame, records
    /// it in `Exec::windows` and returns a reference to the column it will fill.
    #[inline(never)]
    fn bind_window(
        &mut self,
        name: &str,
        f: &ast::Function,
        over: &ast::WindowType,
        scope: &Scope,
        mut grouping: Option<&mut Grouping>,
    ) -> Result<Expr> {
        use crate::window::{Bound, Frame, WinFunc, WindowCall};
        let Some(mut collected) = self.windows.take() else {
            return Err(Error::TypeMismatch(format!(
                "the window function {name} is allowed only in a select list, QUALIFY or ORDER BY"
            )));
        };
        let result = (|| -> Result<WindowCall> {
            let ast::WindowType::WindowSpec(spec) = over else {
                return Err(Error::Unsupported(format!("the named window of {name}")));
            };
            // Teradata's `FIRST_VALUE(x IGNORE NULLS)`: the clause is taken out of the
            // arguments here and kept as the call's (checked below)
            let ignore = |c: &ast::FunctionArgumentClause| {
                matches!(
                    c,
                    ast::FunctionArgumentClause::IgnoreOrRespectNulls(
                        ast::NullTreatment::IgnoreNulls
                    )
                )
            };
            let mut plain = f.clone();
            let mut inside = false;
            if let ast::FunctionArguments::List(l) = &mut plain.args {
                inside = l.clauses.iter().any(ignore);
                l.clauses.retain(|c| !ignore(c));
            }
            let (args, distinct) = Self::function_args(&plain)?;
            if distinct {
                return Err(Error::Unsupported(format!("{name}(DISTINCT …) OVER")));
            }
            let func = match name {
                "ROW_NUMBER" => WinFunc::RowNumber,
                "RANK" => WinFunc::Rank,
                "DENSE_RANK" => WinFunc::DenseRank,
                "PERCENT_RANK" => WinFunc::PercentRank,
                "CUME_DIST" => WinFunc::CumeDist,
                "LAG" => WinFunc::Lag,
                "LEAD" => WinFunc::Lead,
                "FIRST_VALUE" => WinFunc::FirstValue,
                "LAST_VALUE" => WinFunc::LastValue,
                other => match agg_func(other) {
                    Some(
                        AggFunc::Percentile { .. }
                        | AggFunc::Skew
                        | AggFunc::Kurtosis
                        | AggFunc::XmlAgg,
                    ) => return Err(Error::Unsupported(format!("{other} as a window function"))),
                    Some(a) => WinFunc::Agg(a),
                    None => return Err(Error::Unsupported(format!("the window function {other}"))),
                },
            };
            // IGNORE NULLS after the call or inside its parentheses (Teradata's form)
            let ignore_nulls =
                inside || matches!(f.null_treatment, Some(ast::NullTreatment::IgnoreNulls));
            if ignore_nulls
                && !matches!(
                    func,
                    WinFunc::FirstValue | WinFunc::LastValue | WinFunc::Lag | WinFunc::Lead
                )
            {
                return Err(Error::Unsupported(format!("{name} IGNORE NULLS")));
            }
            let value_function = matches!(
                func,
                WinFunc::Lag | WinFunc::Lead | WinFunc::FirstValue | WinFunc::LastValue
            );
            let (mut offset, mut default) = (1usize, None);
            if value_function {
                let lag_lead = matches!(func, WinFunc::Lag | WinFunc::Lead);
                let most = if lag_lead { 3 } else { 1 };
                let exprs: Vec<&ast::Expr> = args
                    .iter()
                    .map(|a| match a {
                        ast::FunctionArgExpr::Expr(x) => Ok(x),
                        _ => Err(Error::TypeMismatch(format!("{name} takes expressions"))),
                    })
                    .collect::<Result<_>>()?;
                if exprs.is_empty() || exprs.len() > most {
                    return Err(Error::TypeMismatch(format!(
                        "{name} takes {} argument{}",
                        if lag_lead { "one to three" } else { "one" },
                        if lag_lead { "s" } else { "" }
                    )));
                }
                if let Some(o) = exprs.get(1) {
                    offset = match o {
                        ast::Expr::Value(v) => match &v.value {
                            ast::Value::Number(n, _) => n.parse().ok(),
                            _ => None,
                        },
                        _ => None,
                    }
                    .ok_or_else(|| {
                        Error::TypeMismatch(format!("{name}'s offset is a whole number"))
                    })?;
                }
                if let Some(d) = exprs.get(2) {
                    default = Some(self.bind_expr(d, scope, grouping.as_deref_mut())?);
                }
            }
            let arg = match (func, args.first()) {
                (_, Some(ast::FunctionArgExpr::Expr(x))) if value_function => {
                    Some(self.bind_expr(x, scope, grouping.as_deref_mut())?)
                }
                (WinFunc::Agg(_), Some(ast::FunctionArgExpr::Expr(x))) => {
                    Some(self.bind_expr(x, scope, grouping.as_deref_mut())?)
                }
                (WinFunc::Agg(AggFunc::Count), Some(ast::FunctionArgExpr::Wildcard) | None) => None,
                (WinFunc::Agg(_), _) => {
                    return Err(Error::TypeMismatch(format!(
                        "{name} OVER needs an argument"
                    )))
                }
                (_, None) => None,
                (_, Some(_)) => {
                    return Err(Error::TypeMismatch(format!("{name}() takes no argument")))
                }
            };
            let partition = spec
                .partition_by
                .iter()
                .map(|e| self.bind_expr(e, scope, grouping.as_deref_mut()))
                .collect::<Result<Vec<_>>>()?;
            let mut order = Vec::new();
            for ob in &spec.order_by {
                let descending = matches!(ob.options.sort, Some(ast::OrderBySort::Desc));
                order.push(crate::ops::SortKey {
                    expr: self.bind_expr(&ob.expr, scope, grouping.as_deref_mut())?,
                    descending,
                    nulls_first: ob.options.nulls_first.unwrap_or(!descending),
                });
            }
            let first_last = matches!(func, WinFunc::FirstValue | WinFunc::LastValue);
            if !matches!(func, WinFunc::Agg(_)) && !first_last && order.is_empty() {
                return Err(Error::TypeMismatch(format!("{name}() OVER needs ORDER BY")));
            }
            let bound = |b: &ast::WindowFrameBound, rows: bool| -> Result<Bound> {
                let n = |e: &Option<Box<ast::Expr>>| -> Result<Option<usize>> {
                    match e.as_deref() {
                        None => Ok(None),
                        Some(ast::Expr::Value(v)) => match &v.value {
                            ast::Value::Number(n, _) if rows => {
                                n.parse().map(Some).map_err(|_| Error::BadNumber)
                            }
                            _ => Err(Error::Unsupported(format!("the frame bound {b}"))),
                        },
                        Some(_) => Err(Error::Unsupported(format!("the frame bound {b}"))),
                    }
                };
                Ok(match b {
                    ast::WindowFrameBound::CurrentRow => Bound::CurrentRow,
                    ast::WindowFrameBound::Preceding(e) => {
                        n(e)?.map_or(Bound::UnboundedPreceding, Bound::Preceding)
                    }
                    ast::WindowFrameBound::Following(e) => {
                        n(e)?.map_or(Bound::UnboundedFollowing, Bound::Following)
                    }
                })
            };
            let frame = match &spec.window_frame {
                // FIRST_VALUE/LAST_VALUE with ORDER BY and no ROWS: from the partition's start
                // to the current row (SQL Functions, Expressions, and Predicates,
                // FIRST_VALUE/LAST_VALUE: "If the ROWS phrase is omitted and there is an ORDER
                // BY phrase, the default ROWS is UNBOUNDED PRECEDING AND CURRENT ROW"); the
                // aggregates' default is the whole partition (Teradata's own rule)
                None if first_last && !order.is_empty() => Frame {
                    rows: true,
                    start: Bound::UnboundedPreceding,
                    end: Bound::CurrentRow,
                },
                None => Frame::WHOLE,
                Some(w) => {
                    let rows = match w.units {
                        ast::WindowFrameUnits::Rows => true,
                        ast::WindowFrameUnits::Range => false,
                        ast::WindowFrameUnits::Groups => {
                            return Err(Error::Unsupported("GROUPS frames".into()))
                        }
                    };
                    Frame {
                        rows,
                        start: bound(&w.start_bound, rows)?,
                        end: match &w.end_bound {
                            Some(e) => bound(e, rows)?,
                            None => Bound::CurrentRow,
                        },
                    }
                }
            };
            Ok(WindowCall {
                func,
                arg,
                offset,
                default,
                partition,
                order,
                frame,
                ignore_nulls,
            })
        })();
        let k = collected.len();
        let count = matches!(&result, Ok(c) if c.func == WinFunc::Agg(AggFunc::Count));
        if let Ok(call) = &result {
            collected.push(call.clone());
        }
        self.windows = Some(collected);
        result.map(|_| {
            if count {
                self.count_type(Expr::WindowRef(k))
            } else {
                Expr::WindowRef(k)
            }
        })
    }

    /// The FORMAT a select item that is a COUNT shows by in ANSI mode: `-(15)9` (COUNT
    /// "Result Type and Attributes"), where its DECIMAL(15,0) type's default would add a
    /// point (`2.`). None otherwise, and in Teradata mode (an INTEGER's default is right).
    pub(crate) fn count_format(&self, e: &ast::Expr) -> Option<String> {
        let e = match tdlite_parser::phrase::title(e) {
            Some((x, _)) => x,
            None => e,
        };
        let mut e = e;
        while let ast::Expr::Nested(x) = e {
            e = x;
        }
        match e {
            ast::Expr::Function(f)
                if self.ansi
                    && tdlite_parser::object_name_string(&f.name).eq_ignore_ascii_case("COUNT") =>
            {
                Some("-(15)9".to_string())
            }
            _ => None,
        }
    }

    /// COUNT's result as the session mode types it: INTEGER in Teradata mode, DECIMAL(15,0)
    /// in ANSI mode (SQL Functions, Expressions, and Predicates, COUNT "Result Type and
    /// Attributes", MaxDecimal 0).
    fn count_type(&self, count: Expr) -> Expr {
        if self.ansi {
            Expr::Cast(Box::new(count), SqlType::Decimal(15, 0))
        } else {
            count
        }
    }

    /// `TO_CHAR(x [, model])`, `TO_DATE(s [, model])`, `TO_TIMESTAMP(s [, model])`,
    /// `TO_NUMBER(s [, model])`: a CAST, with the Oracle model as a Teradata FORMAT (to_char.rs).
    #[inline(never)]
    fn bind_to_char(
        &mut self,
        name: &str,
        f: &ast::Function,
        scope: &Scope,
        grouping: Option<&mut Grouping>,
    ) -> Result<Expr> {
        let (args, _) = Self::function_args(f)?;
        let bad = || Error::TypeMismatch(format!("{name} takes a value and a format model"));
        let (x, model) = match args.as_slice() {
            [ast::FunctionArgExpr::Expr(x)] => (x, None),
            [ast::FunctionArgExpr::Expr(x), ast::FunctionArgExpr::Expr(ast::Expr::Value(v))] => {
                match &v.value {
                    ast::Value::SingleQuotedString(m) => (x, Some(m.clone())),
                    _ => return Err(bad()),
                }
            }
            [_, _] => {
                return Err(Error::Unsupported(format!(
                    "{name} with a model that is not a literal"
                )))
            }
            _ => return Err(bad()),
        };
        let x = self.bind_expr(x, scope, grouping)?;
        let ty = match name {
            "TO_CHAR" => SqlType::VarChar(64000),
            "TO_DATE" => SqlType::Date,
            "TO_TIMESTAMP" => SqlType::Timestamp(6),
            _ => SqlType::Float,
        };
        let Some(model) = model else {
            return Ok(match name {
                // exactly the significant digits (TO_CHAR(Numeric): no FORMAT applies)
                "TO_CHAR" => Expr::Func(Func::PlainText, vec![x]),
                // TO_NUMBER: NULL for text that is no number ("If conversion fails, NULL is
                // returned")
                "TO_NUMBER" => Expr::Func(
                    Func::Builtin(crate::functions::Builtin::TryCast(ty)),
                    vec![x],
                ),
                _ => Expr::Cast(Box::new(x), ty),
            });
        };
        if name == "TO_CHAR" {
            // checked here: a model neither a number's nor a date's is 9910 before any row;
            // which one applies is the value's type's choice (format.rs)
            if crate::to_char_number::compile(&model).is_err() {
                if crate::to_char::is_number_model(&model) {
                    crate::to_char_number::compile(&model)?;
                }
                crate::to_char_date::compile(&model)?;
            }
            let mask = format!("{}{model}", crate::to_char_date::MODEL_MARK);
            return Ok(Expr::CastFormat(Box::new(x), ty, mask));
        }
        // TO_NUMBER reads by a number model (exactly, as a DECIMAL with the model's
        // fractional digits; NULL for text the model does not read), TO_DATE and
        // TO_TIMESTAMP by a date model
        if crate::to_char::is_number_model(&model) {
            let (mask, _) = crate::to_char::number_mask(&model);
            if name == "TO_NUMBER" {
                let ty = SqlType::Decimal(38, crate::to_char::fraction_digits(&model));
                let mask = format!("{}{mask}", crate::format::NULL_ON_FAILURE);
                return Ok(Expr::CastFormat(Box::new(x), ty, mask));
            }
            return Ok(Expr::CastFormat(Box::new(x), ty, mask));
        }
        let mask = crate::to_char::date_mask(&model)?;
        Ok(Expr::CastFormat(Box::new(x), ty, mask))
    }

    /// `(d1 - d2) DAY(4)` (the parser's `"tdlite interval"((d1 - d2), 'DAY(4)')`): the two
    /// operands of the difference, and the qualifier (interval_diff.rs).
    fn bind_interval_diff(
        &mut self,
        f: &ast::Function,
        scope: &Scope,
        mut grouping: Option<&mut Grouping>,
    ) -> Result<Expr> {
        let (args, _) = Self::function_args(f)?;
        let (x, q) = match args.as_slice() {
            [ast::FunctionArgExpr::Expr(x), ast::FunctionArgExpr::Expr(ast::Expr::Value(v))] => {
                match &v.value {
                    ast::Value::SingleQuotedString(q) => (x, q),
                    _ => return Err(Error::Internal("an interval qualifier is text".into())),
                }
            }
            _ => return Err(Error::Internal("an interval call has two arguments".into())),
        };
        let q = crate::interval_diff::Qualifier::parse(q)?;
        let mut inner = x;
        while let ast::Expr::Nested(e) = inner {
            inner = e;
        }
        let ast::Expr::BinaryOp {
            left,
            op: ast::BinaryOperator::Minus,
            right,
        } = inner
        else {
            return Err(Error::Unsupported(format!(
                "an interval qualifier after {x} (tdlite takes it after a difference of DATE or TIMESTAMP values)"
            )));
        };
        let l = self.bind_expr(left, scope, grouping.as_deref_mut())?;
        let r = self.bind_expr(right, scope, grouping)?;
        Ok(Expr::Func(
            Func::Builtin(crate::functions::Builtin::IntervalDiff(q)),
            vec![l, r],
        ))
    }

    /// Runs an uncorrelated scalar subquery once: 0 rows → NULL, 2+ rows → 3669.
    pub(crate) fn scalar_subquery(&mut self, q: &ast::Query) -> Result<ArrayRef> {
        let rows = self.run_query(q)?;
        let a = scalar_of(&rows)?;
        self.note_slot(&a, || crate::slots::Slot::Subquery(Box::new(q.clone())));
        Ok(a)
    }

    /// Whether the block being bound defers its uncorrelated subqueries (deferred.rs).
    pub(crate) fn deferring(&self) -> bool {
        self.deferral.as_ref().is_some_and(|d| d.defers())
    }

    /// Uncorrelated scalar subquery `q` bound for its columns alone, deferred: the
    /// placeholder for its value (deferred.rs).
    ///
    /// # Errors
    /// Its binding and type errors (3810 where it is correlated); 3669's kin for a select
    /// list of two items.
    pub(crate) fn scalar_input(&mut self, q: &ast::Query) -> Result<ArrayRef> {
        Ok(self.deferred_input(q, crate::deferred::Kind::Scalar)?.0)
    }

    /// `[NOT] EXISTS (q)` (`negated`), `q` uncorrelated, bound for its columns alone,
    /// deferred: the placeholder for its value (deferred.rs).
    ///
    /// # Errors
    /// `q`'s binding and type errors (3810 where it is correlated).
    pub(crate) fn exists_input(&mut self, q: &ast::Query, negated: bool) -> Result<ArrayRef> {
        Ok(self
            .deferred_input(q, crate::deferred::Kind::Exists(negated))?
            .0)
    }

    /// `x [NOT] IN (q)`'s list, `q` uncorrelated, bound for its columns alone, deferred:
    /// one placeholder item where its values go (deferred.rs).
    ///
    /// # Errors
    /// `q`'s binding and type errors (3810 where it is correlated); a select list of two
    /// items.
    fn set_input(&mut self, q: &ast::Query) -> Result<Vec<Expr>> {
        self.deferred_item(q, crate::deferred::Kind::Set(false))
    }

    /// `x op ANY|ALL (q)`'s one item (`all` for ALL), `q` uncorrelated, bound for its columns
    /// alone, deferred: a placeholder where its values go, each compared with `x`
    /// (deferred.rs).
    ///
    /// # Errors
    /// `q`'s binding and type errors (3810 where it is correlated); a select list of two
    /// items.
    fn quantified_input(&mut self, q: &ast::Query, all: bool) -> Result<Vec<Expr>> {
        self.deferred_item(q, crate::deferred::Kind::Quantified(false, all))
    }

    /// `(…) [NOT] IN (q)`'s set of rows for a row of `width` values, `q` uncorrelated,
    /// bound for its columns alone, deferred: the placeholder where its rows go
    /// (deferred.rs).
    ///
    /// # Errors
    /// `q`'s binding and type errors (3810 where it is correlated); a select list of another
    /// width.
    fn rows_input(&mut self, q: &ast::Query, width: usize) -> Result<ArrayRef> {
        let (placeholder, _) = self.deferred_input(q, crate::deferred::Kind::Rows)?;
        crate::deferred::check_width(crate::deferred::set_width(&placeholder), width)?;
        Ok(placeholder)
    }

    /// A set's or quantified comparison's subquery `q` deferred as `kind`: its one item, the
    /// placeholder itself (found by its address, deferred.rs), compared case-specifically
    /// where its column is CASESPECIFIC.
    fn deferred_item(&mut self, q: &ast::Query, kind: crate::deferred::Kind) -> Result<Vec<Expr>> {
        let (placeholder, kind) = self.deferred_input(q, kind)?;
        let item = one(placeholder);
        Ok(vec![match kind.case_specific() {
            true => Expr::CaseSpecific(Box::new(item)),
            false => item,
        }])
    }

    /// The columns of query `q`: its run over no rows (`Exec::shape_of`; not counted as a
    /// query a kept plan's binding ran: it bakes no value into the plan), or what a prepared
    /// request's earlier execution kept of it (bound_select.rs).
    ///
    /// # Errors
    /// `q`'s binding and type errors.
    pub(crate) fn columns_of(&mut self, q: &ast::Query) -> Result<arrow::datatypes::SchemaRef> {
        if let Some(schema) = self.kept_shape(q) {
            return Ok(schema);
        }
        let recording = self.recording.get_mut().take();
        let shape = self.shape_of(q);
        *self.recording.get_mut() = recording;
        let schema = shape?.schema;
        self.keep_shape(q, &schema);
        Ok(schema)
    }

    /// `q`'s columns ([`Exec::columns_of`]), then deferred as `kind` (a set's
    /// case-specificity read from its column): the placeholder and the kind deferred.
    fn deferred_input(
        &mut self,
        q: &ast::Query,
        kind: crate::deferred::Kind,
    ) -> Result<(ArrayRef, crate::deferred::Kind)> {
        let shape = Rows {
            schema: self.columns_of(q)?,
            batches: Vec::new(),
        };
        match self.deferral.as_mut() {
            Some(d) => d.defer(q, kind, &shape),
            None => Err(Error::Internal(
                "a subquery deferred outside a block".into(),
            )),
        }
    }

    /// `x op ANY|SOME (subquery)` (`all` false) or `x op ALL (subquery)`: the comparison with
    /// each value of the subquery, OR-ed (ANY: false for no rows) or AND-ed (ALL: true for no
    /// rows) with SQL's NULL rules; `= ANY` is IN and `<> ALL` is NOT IN. An uncorrelated
    /// subquery runs once, a correlated one once per row.
    fn bind_quantified(
        &mut self,
        x: Expr,
        op: &ast::BinaryOperator,
        right: &ast::Expr,
        all: bool,
        scope: &Scope,
    ) -> Result<Expr> {
        let Some(op) = comparison(op) else {
            return Err(Error::Unsupported(format!("the quantified operator {op}")));
        };
        let ast::Expr::Subquery(q) = right else {
            // a list of values (`x > ALL (2, 3)`; the parser made it a tuple) or one value
            let items = match right {
                ast::Expr::Tuple(items) => items.as_slice(),
                one => std::slice::from_ref(one),
            };
            let items = items
                .iter()
                .map(|v| self.bind_expr(v, scope, None))
                .collect::<Result<Vec<_>>>()?;
            return Ok(quantified(x, op, all, items));
        };
        let reads = x.columns();
        let value = x.clone();
        let build = move |items: Vec<Expr>| -> Expr { quantified(x.clone(), op, all, items) };
        // (bound for its columns alone where the block defers its subqueries: `= ANY` and
        // `<> ALL` as IN and NOT IN)
        let values = |ex: &mut Self| match (ex.deferring(), op, all) {
            (true, BinOp::Eq, false) | (true, BinOp::NotEq, true) => ex.set_input(q),
            (true, ..) => ex.quantified_input(q, all),
            (false, ..) => ex.in_list_values(q),
        };
        match self.alone(scope, values) {
            Ok(items) => Ok(build(items)),
            Err(Error::ColumnNotFound(c)) => {
                let shape = crate::decorrelate::Shape::Compare {
                    value: &value,
                    op,
                    all,
                    negated: false,
                };
                if let Some(e) = self.decorrelated(q, shape)? {
                    return Ok(e);
                }
                self.correlated((&c, scope), &reads, |ex, row| {
                    build(ex.subquery_values(q)?).eval(row)
                })?
                .ok_or(Error::ColumnNotFound(c))
            }
            Err(e) => Err(e),
        }
    }

    /// `(a, b) [NOT] IN (SELECT x, y …)`: the row of values against the subquery's rows
    /// (`Expr::InRows`, answered by in_set.rs with SQL's rule). An uncorrelated subquery is
    /// deferred where the block defers its subqueries (deferred.rs), else run where it binds;
    /// a correlated one runs per outer row. (Apart from `bind_expr` to keep its stack frame
    /// small.)
    #[inline(never)]
    fn bind_tuple_in(
        &mut self,
        tuple: &ast::Expr,
        q: &ast::Query,
        negated: bool,
        scope: &Scope,
        mut grouping: Option<&mut Grouping>,
    ) -> Result<Expr> {
        let ast::Expr::Tuple(items) = tuple else {
            return Err(Error::Internal("not a tuple".into()));
        };
        let row = items
            .iter()
            .map(|x| self.bind_expr(x, scope, grouping.as_deref_mut()))
            .collect::<Result<Vec<_>>>()?;
        let width = row.len();
        let set = |ex: &mut Self| match ex.deferring() {
            true => ex.rows_input(q, width),
            false => crate::deferred::rows_of(&ex.run_query(q)?, width),
        };
        match self.alone(scope, set) {
            Ok(set) => Ok(Expr::InRows(row, set, negated, Default::default())),
            Err(Error::ColumnNotFound(c)) => {
                let reads: Vec<usize> = row.iter().flat_map(Expr::columns).collect();
                self.correlated((&c, scope), &reads, |ex, outer| {
                    let set = crate::deferred::rows_of(&ex.run_query(q)?, width)?;
                    Expr::InRows(row.clone(), set, negated, Default::default()).eval(outer)
                })?
                .ok_or(Error::ColumnNotFound(c))
            }
            Err(e) => Err(e),
        }
    }

    /// An uncorrelated `x [NOT] IN (q)`'s list (or `x op ANY|ALL (q)`'s values), run where it
    /// binds ([`Exec::subquery_values`]).
    /// In a run for the columns alone ([`Exec::shaping`]), where it gives no row, the list is
    /// one NULL of its type, so that `x` is compared with its type over no row as a block
    /// that defers its subqueries compares it (deferred.rs): a type error is raised whether
    /// it has rows or not (EXPLAIN's and CREATE VIEW's as the query's). Nothing is evaluated
    /// for a row there, so the NULL changes no value.
    fn in_list_values(&mut self, q: &ast::Query) -> Result<Vec<Expr>> {
        let rows = self.run_query(q)?;
        let typed = (rows.num_rows() == 0 && self.shaping()).then(|| {
            let ty = rows.schema.fields().first().map(|f| f.data_type().clone());
            new_null_array(&ty.unwrap_or(DataType::Null), 1)
        });
        let batches = rows.batches.iter().map(|b| b.column(0).clone());
        in_list(&rows, batches.chain(typed))
    }

    /// Runs an uncorrelated `IN (subquery)` once and returns its values as literals.
    fn subquery_values(&mut self, q: &ast::Query) -> Result<Vec<Expr>> {
        let rows = self.run_query(q)?;
        in_list(&rows, rows.batches.iter().map(|b| b.column(0).clone()))
    }
}

/// Whether `name` (upper case) is a value of the request or session (CURRENT_DATE, USER, …)
/// where a column of that name is not in scope.
pub(crate) fn is_request_value(name: &str) -> bool {
    matches!(
        name,
        "CURRENT_TIMESTAMP"
            | "CURRENT_DATE"
            | "DATE"
            | "CURRENT_TIME"
            | "TIME"
            | "USER"
            | "CURRENT_USER"
            | "DATABASE"
            | "SESSION"
            | "ACCOUNT"
            | "ROLE"
            | "CURRENT_ROLE"
            | "PROFILE"
    )
}

/// Whether `f` is `name(CS)`: a CASESPECIFIC phrase on a column, if `name` is one.
pub(crate) fn is_cs_phrase_call(f: &ast::Function) -> bool {
    matches!(phrase_on_column(f), Some(ast::Expr::Collate { .. }))
}

/// `col(DATE)`, `col(TIME)`, `col(CS)` or `col(UC)` where `col` is no function: Teradata's
/// data attribute phrase on the column `col`, which the parser cannot tell from a call (see
/// `tdlite_parser::phrase`): `CAST(col AS DATE)`, `col COLLATE CASESPECIFIC`, `UPPER(col)`.
pub(crate) fn phrase_on_column(f: &ast::Function) -> Option<ast::Expr> {
    let parts: Option<Vec<ast::Ident>> = f.name.0.iter().map(|p| p.as_ident().cloned()).collect();
    let column = match parts? {
        p if p.len() == 1 => ast::Expr::Identifier(p[0].clone()),
        p => ast::Expr::CompoundIdentifier(p), // `e.hired (DATE)`
    };
    let ast::FunctionArguments::List(list) = &f.args else {
        return None;
    };
    let [ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(ast::Expr::Identifier(arg)))] =
        list.args.as_slice()
    else {
        return None;
    };
    let cast = |data_type| ast::Expr::Cast {
        kind: ast::CastKind::Cast,
        expr: Box::new(column.clone()),
        data_type,
        format: None,
    };
    Some(match arg.value.to_ascii_uppercase().as_str() {
        _ if arg.quote_style.is_some() => return None,
        "DATE" => cast(ast::DataType::Date),
        "TIME" => cast(ast::DataType::Time(None, ast::TimezoneInfo::None)),
        "CS" => ast::Expr::Collate {
            expr: Box::new(column.clone()),
            collation: ast::ObjectName::from(vec![ast::Ident::new(
                tdlite_parser::phrase::CASESPECIFIC,
            )]),
        },
        "UC" => tdlite_parser::phrase::call(ast::Ident::new("UPPER"), vec![column.clone()]),
        _ => return None,
    })
}

/// An IN list of the values of `columns` (the one column of an IN subquery's `rows`, in
/// parts), each a literal, compared case-specifically where the column is CASESPECIFIC.
///
/// # Errors
/// 9913 for a subquery of more than one column.
fn in_list(rows: &Rows, columns: impl Iterator<Item = ArrayRef>) -> Result<Vec<Expr>> {
    let [field] = rows.schema.fields().as_ref() else {
        return Err(crate::deferred::set_of_columns());
    };
    // items of a CASESPECIFIC column compare case-specifically
    let cs = crate::types::case_specific(field);
    let mut out = Vec::new();
    for c in columns {
        out.extend(crate::deferred::list_items(&c, cs));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::agg_func;

    #[test]
    fn the_parser_knows_the_aggregates_the_binder_knows() {
        let listed = tdlite_parser::legacy_olap::AGGREGATES;
        for name in listed {
            assert!(agg_func(name).is_some(), "{name} is listed but not bound");
        }
        assert!(agg_func("PERCENTILE").is_none());
    }
}
