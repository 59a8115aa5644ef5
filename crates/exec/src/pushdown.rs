//! Predicate pushdown into a view or derived table: conditions of the block that reads it,
//! when they name only its columns, are ANDed into the WHERE of the query that makes its rows,
//! written in that query's own terms (each column replaced by the expression that makes it).
//! The query then reads its tables through whatever index those conditions allow, instead of
//! making every row for the block to filter: `SEL * FROM v WHERE k = 5` over a view of `t`
//! reads one row of `t` by its index.
//!
//! Which conditions:
//! - the one relation of a block ([`push_into`]): the leading WHERE conjuncts that qualify;
//! - a view among the relations of inner joins ([`push_into_join`]): any WHERE or ON conjunct
//!   that qualifies and cannot fail (a row the join would drop never met it, so it must raise
//!   no error there), a bare name only where no other relation may have it.
//!
//! A conjunct qualifies when it names only the relation's columns (bare, or qualified by its
//! name), holds no subquery, aggregate, window or RANDOM, and each column it names is a select
//! item with none of those and no TITLE or FORMAT phrase. "Cannot fail" is judged as
//! `join_plan::cannot_fail` judges a bound condition, over the select items' types where they
//! are sure: a base table's column as defined now, or a literal (a view's recorded column
//! types go stale when a table under it is made again); a `?n` marker counts as a literal of
//! its value's type in this request (a kept plan is used only by runs whose values have the
//! types it was bound with; others take the general path, which decides again).
//!
//! Invariant: the pushed query gives exactly the rows of the original query that the pushed
//! conjuncts keep, and the enclosing block still applies every condition, so its result is
//! the one it had; it raises no error the original would not (it may raise fewer: a row the
//! conditions drop is never made). So a query is pushed into only where a filter of its rows
//! before anything else looks at them is a filter of what it gives: one block (no set
//! operation: a branch's values become the first branch's type only after it), no TOP,
//! QUALIFY, window, SAMPLE, WITH or ORDER BY, no aggregate without GROUP BY (one group even of
//! no rows), no grouping sets. Beside the block's own WHERE or HAVING (AND runs its right side
//! where its left is not FALSE, so a condition after them would meet the rows or groups they
//! leave unknown, which they drop) only a condition that cannot fail goes in, over items of
//! sure type. Into a block with GROUP BY or DISTINCT only
//! comparisons, IN lists, BETWEENs and IS NULL tests of key columns that are not characters
//! (a character key groups 'a' with 'A', which a CASESPECIFIC or ANSI comparison tells apart)
//! and literals go: true or false for a whole group alike, they drop whole groups and leave
//! the others as they were (`Shape`). The conjuncts go after the query's own WHERE.
//!
//! Pure syntax: it reads no table; the caller gives the relation's column names and each
//! base table's columns and types (`Columns`).

use crate::conjuncts::{and_all, conjuncts};
use crate::types::same_family;
use arrow::datatypes::DataType;
use sqlparser::ast::{self, Visit, VisitMut, Visitor, VisitorMut};
use std::ops::ControlFlow;

/// A view or derived table as the enclosing block sees it.
pub(crate) struct Relation<'a> {
    /// The query that makes its rows.
    pub query: &'a ast::Query,
    /// Its column names as the block sees them, in order (a view's column list, a derived
    /// table's alias columns or select items); `None` for a column no name reaches.
    pub names: Vec<Option<String>>,
    /// The name that qualifies its columns (the alias, or the view's name).
    pub qualifier: String,
    /// The view it is, if one: a view without a column list whose `*` gives more columns than
    /// it was created with (a table under it grew) has its columns picked from them by name
    /// (view.rs `recorded_columns`).
    pub view: Option<&'a tdlite_storage::catalog::TableSchema>,
    /// The request's parameter values: a `?n` marker is an operand of its value's type.
    pub params: &'a [tdlite_storage::types::Value],
}

/// The columns of a table a query names, with their types where sure (a base table's as
/// defined now; `None` for a view's, whose recorded types a changed table may have made
/// stale); `None`: not known without reading it.
pub(crate) type Columns<'a> =
    &'a dyn Fn(&ast::ObjectName) -> Option<Vec<(String, Option<DataType>)>>;

/// `rel`'s query with the leading conjuncts of `selection` that can be pushed ANDed into its
/// WHERE, and those conjuncts as written; `None` when none can. For the one relation of a
/// block; from the first conjunct that stays outside (a subquery, another name), the rest
/// stay with it, so what goes in keeps its written order before what does not.
pub(crate) fn push_into(
    rel: &Relation<'_>,
    selection: &ast::Expr,
    columns: Columns<'_>,
) -> Option<(ast::Query, Vec<ast::Expr>)> {
    let mut parts = Vec::new();
    conjuncts(selection, &mut parts);
    push_leading(rel, parts, columns)
}

/// [`push_into`] with the WHERE clause given as its conjuncts, in written order.
pub(crate) fn push_leading(
    rel: &Relation<'_>,
    parts: Vec<ast::Expr>,
    columns: Columns<'_>,
) -> Option<(ast::Query, Vec<ast::Expr>)> {
    let b = block(rel, columns)?;
    let mut pushed = Vec::new();
    let mut made = Vec::new();
    for c in parts {
        if !plain(&c) || !names_only(&c, rel, &|_| false) {
            break;
        }
        let Some(m) = b.made(&c, rel, false) else {
            break;
        };
        pushed.push(c);
        made.push(m);
    }
    Some((b.with(rel, made)?, pushed))
}

/// A relation among others in a FROM of inner joins: the conditions (WHERE's and the ONs'
/// conjuncts, `conds`) that name only its columns and cannot fail (see
/// [`cannot_fail`]: a row the join would drop never met them, so they must raise no error
/// for it), its query with them ANDed into its WHERE; `None` when none can be pushed.
/// `shared(n)`: whether another relation of the FROM may have a column `n` (then a bare
/// `n` is not this relation's).
pub(crate) fn push_into_join(
    rel: &Relation<'_>,
    conds: &[ast::Expr],
    columns: Columns<'_>,
    shared: &dyn Fn(&str) -> bool,
) -> Option<(ast::Query, Vec<ast::Expr>)> {
    let b = block(rel, columns)?;
    let (pushed, made): (Vec<ast::Expr>, Vec<ast::Expr>) = (conds.iter())
        .filter(|c| plain(c) && names_only(c, rel, shared))
        .filter_map(|c| Some((c.clone(), b.made(c, rel, true)?)))
        .unzip();
    Some((b.with(rel, made)?, pushed))
}

/// The one block of a relation's query as conditions going into it see it, worked out once
/// per push.
struct Block {
    /// The expression of each output column (`*` expanded).
    items: Vec<ast::Expr>,
    /// Each output column's type where sure ([`item_type`]).
    types: Vec<Option<DataType>>,
    shape: Shape,
    /// Whether the block has its own WHERE or HAVING (which a condition put after it would
    /// not run after: see [`Block::made`]).
    guarded: bool,
}

/// `rel`'s query as a [`Block`]; `None` where it can take no condition (see the module doc).
fn block(rel: &Relation<'_>, columns: Columns<'_>) -> Option<Block> {
    if !filterable(rel.query) {
        return None;
    }
    // (not into a set operation's branches: a branch's values take the first branch's type
    // only after it, so a condition there would test them before that conversion; nor into
    // a query in parentheses)
    let ast::SetExpr::Select(s) = rel.query.body.as_ref() else {
        return None;
    };
    let items = items(s, columns)?;
    let items: Vec<ast::Expr> = match items.len().cmp(&rel.names.len()) {
        std::cmp::Ordering::Equal => items.into_iter().map(|(e, _)| e).collect(),
        // (a view's `*` over a table that grew: its columns by name, as its read picks them)
        std::cmp::Ordering::Greater => {
            let view = rel.view.filter(|v| !crate::view::lists_columns(v))?;
            let outputs: Vec<Option<&str>> = items.iter().map(|(_, n)| n.as_deref()).collect();
            let recorded = view.columns.iter().map(|c| c.name.as_str());
            let picked = crate::view::picked_by_name(recorded, &outputs)?;
            picked.into_iter().map(|i| items[i].0.clone()).collect()
        }
        std::cmp::Ordering::Less => return None,
    };
    let shape = shape(s, &items)?;
    let tables = block_tables(s, columns);
    let types = items.iter().map(|i| item_type(&tables, i)).collect();
    Some(Block {
        items,
        types,
        shape,
        guarded: s.selection.is_some() || s.having.is_some(),
    })
}

impl Block {
    /// Condition `c` (written over the relation's names) with each column replaced by the
    /// select item at its position; `None` if it cannot go in. `safe`: it must be a
    /// condition that cannot fail.
    fn made(&self, c: &ast::Expr, rel: &Relation<'_>, safe: bool) -> Option<ast::Expr> {
        let ty = |i: usize| self.types.get(i).cloned().flatten();
        // beside the block's own WHERE or HAVING, a condition (and the select items it reads)
        // would meet the rows or groups they leave unknown and drop: neither may fail
        if (safe || self.guarded) && !cannot_fail(c, rel, &ty) {
            return None;
        }
        if let Shape::Groups(keys) = &self.shape {
            // a key of characters groups without case or trailing blanks where a comparison
            // may count them (a CASESPECIFIC side, ANSI mode): only other keys
            let exact = |i: usize| {
                keys.contains(&self.items[i])
                    && ty(i).is_some_and(|t| !matches!(t, DataType::Utf8 | DataType::LargeUtf8))
            };
            if !key_comparison(c) || !positions(c, rel).into_iter().all(exact) {
                return None;
            }
        }
        let mut c = c.clone();
        let mut by = ByItem {
            rel,
            items: &self.items,
            bare: self.guarded.then_some(&self.types),
            ok: true,
        };
        let _ = VisitMut::visit(&mut c, &mut by);
        by.ok.then_some(c)
    }

    /// `rel`'s query with `made` (from [`Block::made`]) ANDed after its block's WHERE; `None`
    /// for none.
    fn with(&self, rel: &Relation<'_>, made: Vec<ast::Expr>) -> Option<ast::Query> {
        if made.is_empty() {
            return None;
        }
        let mut query = rel.query.clone();
        let ast::SetExpr::Select(s) = query.body.as_mut() else {
            return None;
        };
        let all = s.selection.take().into_iter().chain(made).map(grouped);
        s.selection = and_all(all.collect());
        Some(query)
    }
}

/// True if condition `c` cannot raise an error on any row: ANDs, ORs and NOTs of
/// comparisons, IN lists, BETWEENs and IS NULL tests of the relation's columns (of sure types:
/// `ty`) and
/// literals (numbers, strings, NULL, DATE), each comparison's operands of one family
/// (`types::same_family`: no conversion that may fail), as `join_plan::cannot_fail` rules on
/// bound conditions.
fn cannot_fail(c: &ast::Expr, rel: &Relation<'_>, ty: &dyn Fn(usize) -> Option<DataType>) -> bool {
    let value = |e: &ast::Expr| operand_literal(e).or_else(|| marker_type(e, rel.params));
    let operand = |e: &ast::Expr| -> Option<DataType> {
        match e {
            ast::Expr::Identifier(_) | ast::Expr::CompoundIdentifier(_) => ty(column(e, rel)?),
            ast::Expr::Nested(x) => value(x),
            other => value(other),
        }
    };
    // (IS NULL of a column: its item is evaluated for the rows either way)
    let tested = |e: &ast::Expr| column(e, rel).is_some() || value(e).is_some();
    let pair = |a: &ast::Expr, b: &ast::Expr| matches!((operand(a), operand(b)), (Some(p), Some(q)) if same_family(&p, &q));
    use ast::BinaryOperator as B;
    match c {
        ast::Expr::BinaryOp {
            left,
            op: B::And | B::Or,
            right,
        } => cannot_fail(left, rel, ty) && cannot_fail(right, rel, ty),
        ast::Expr::BinaryOp {
            left,
            op: B::Eq | B::NotEq | B::Lt | B::LtEq | B::Gt | B::GtEq,
            right,
        } => pair(left, right),
        ast::Expr::UnaryOp {
            op: ast::UnaryOperator::Not,
            expr,
        }
        | ast::Expr::Nested(expr) => cannot_fail(expr, rel, ty),
        ast::Expr::IsNull(x) | ast::Expr::IsNotNull(x) => tested(x),
        ast::Expr::In {
            expr,
            target: ast::InTarget::List(list),
            ..
        } => list.iter().all(|v| pair(expr, v)),
        ast::Expr::Between {
            expr, low, high, ..
        } => pair(expr, low) && pair(expr, high),
        _ => false,
    }
}

/// The type of parameter marker `e` (`?n`) as the binder types it: its value's in this
/// request (params.rs `parameter_array`). A prepared request's kept plan runs only with values
/// of the types it was bound with (its slots; other runs take the general path, which decides
/// again), so a condition pushed for one type never meets another.
fn marker_type(e: &ast::Expr, params: &[tdlite_storage::types::Value]) -> Option<DataType> {
    match e {
        ast::Expr::Value(v) => match &v.value {
            ast::Value::Placeholder(p) => Some(
                crate::params::parameter(p, params)
                    .ok()?
                    .data_type()
                    .clone(),
            ),
            _ => None,
        },
        _ => None,
    }
}

/// The type of a literal operand as the binder types it: a number, a string, NULL, a DATE.
fn operand_literal(e: &ast::Expr) -> Option<DataType> {
    match e {
        ast::Expr::Value(v) => match &v.value {
            ast::Value::Number(n, _) => {
                Some(crate::bind::number_literal(n).ok()?.data_type().clone())
            }
            ast::Value::SingleQuotedString(_) => Some(DataType::Utf8),
            ast::Value::Null => Some(DataType::Null),
            _ => None,
        },
        ast::Expr::TypedString(t) if matches!(t.data_type, ast::DataType::Date) => {
            Some(DataType::Date32)
        }
        _ => None,
    }
}

/// A derived table's column names as its query gives them (its first block's items: an
/// alias, or a column's own name; `None` for an expression without one), `*` expanded over
/// its base tables; `None` when a `*` cannot be expanded.
pub(crate) fn output_names(q: &ast::Query, columns: Columns<'_>) -> Option<Vec<Option<String>>> {
    let mut body = q.body.as_ref();
    let s = loop {
        match body {
            ast::SetExpr::Select(s) => break s,
            ast::SetExpr::Query(q) => body = &q.body,
            ast::SetExpr::SetOperation { left, .. } => body = left,
            _ => return None,
        }
    };
    let mut names = Vec::new();
    for item in &s.projection {
        match item {
            ast::SelectItem::ExprWithAlias { alias, .. } => names.push(Some(alias.value.clone())),
            ast::SelectItem::UnnamedExpr(ast::Expr::Identifier(c)) => {
                names.push(Some(c.value.clone()))
            }
            ast::SelectItem::UnnamedExpr(ast::Expr::CompoundIdentifier(parts)) => {
                names.push(parts.last().map(|c| c.value.clone()))
            }
            ast::SelectItem::UnnamedExpr(_) => names.push(None),
            _ => {
                let mut exprs = Vec::new();
                item_exprs(item, &s.from, columns, &mut exprs)?;
                for e in exprs {
                    let ast::Expr::CompoundIdentifier(parts) = e else {
                        return None;
                    };
                    names.push(parts.last().map(|c| c.value.clone()));
                }
            }
        }
    }
    Some(names)
}

/// The query forms a filter may go into (see the module doc), looked at without its blocks.
fn filterable(q: &ast::Query) -> bool {
    q.with.is_none()
        && q.order_by.is_none()
        && q.limit_clause.is_none()
        && q.fetch.is_none()
        && q.locks.is_empty()
}

/// The relations of a block as [`item_type`] looks at them: a base table's qualifier and
/// columns (`None` where not known: a CTE, a dictionary view, the calendar), each read once;
/// `None` for a relation that is no table (a derived table may have any name).
type Tables = Vec<Option<(String, Option<Vec<(String, Option<DataType>)>>)>>;

/// [`Tables`] of block `s`.
fn block_tables(s: &ast::Select, columns: Columns<'_>) -> Tables {
    factors(&s.from)
        .map(|tf| match tf {
            ast::TableFactor::Table {
                name,
                alias,
                args: None,
                ..
            } => Some((
                crate::join::qualifier_of(name, alias.as_ref()),
                columns(name),
            )),
            _ => None,
        })
        .collect()
}

/// The type of a select item where it is sure: a literal's, or a column's of one of the
/// block's base tables (`tables`) as defined now (found as the binder finds it: the one
/// column of that name among the tables its qualifier allows; a name no table has, such as
/// another item's alias, has none).
fn item_type(tables: &Tables, item: &ast::Expr) -> Option<DataType> {
    let (qualifier, name) = match item {
        ast::Expr::Identifier(n) => (None, n),
        ast::Expr::CompoundIdentifier(parts) => {
            let (n, q) = parts.split_last()?;
            let q: Vec<&str> = q.iter().map(|i| i.value.as_str()).collect();
            (Some(q.join(".")), n)
        }
        other => return operand_literal(other),
    };
    let mut found = None;
    for table in tables {
        // a relation whose columns are not known here may have it
        let (qual, cols) = table.as_ref()?;
        if qualifier
            .as_deref()
            .is_some_and(|q| !crate::bind::qualifier_matches(qual, q))
        {
            continue;
        }
        for (c, t) in cols.as_ref()? {
            if c.eq_ignore_ascii_case(&name.value) {
                if found.is_some() {
                    return None;
                }
                found = Some(t.clone()?);
            }
        }
    }
    found
}

/// The relations of a FROM clause, in order.
pub(crate) fn factors(from: &[ast::TableWithJoins]) -> impl Iterator<Item = &ast::TableFactor> {
    from.iter()
        .flat_map(|f| std::iter::once(&f.relation).chain(f.joins.iter().map(|j| &j.relation)))
}

/// The positions of the relation's columns `e` names.
fn positions(e: &ast::Expr, rel: &Relation<'_>) -> Vec<usize> {
    struct Found<'r, 'a>(&'r Relation<'a>, Vec<usize>);
    impl Visitor for Found<'_, '_> {
        type Break = ();
        fn pre_visit_expr(&mut self, e: &ast::Expr) -> ControlFlow<()> {
            if let Some(i) = column(e, self.0) {
                self.1.push(i);
            }
            ControlFlow::Continue(())
        }
    }
    let mut found = Found(rel, Vec::new());
    let _ = e.visit(&mut found);
    found.1
}

/// How a block's rows reach its output, for a condition put in its WHERE.
enum Shape {
    /// Each row its own output row.
    Rows,
    /// Rows merged into groups by these expressions (GROUP BY, or DISTINCT over every item):
    /// a condition may go in only where it is true or false for a whole group alike.
    Groups(Vec<ast::Expr>),
}

/// `s`'s [`Shape`] (its output columns' expressions are `items`); `None` where a condition in
/// its WHERE would change more than which rows or groups it gives: TOP, QUALIFY, SAMPLE, a
/// window, an aggregate without GROUP BY (one group, even of no rows), grouping sets.
fn shape(s: &ast::Select, items: &[ast::Expr]) -> Option<Shape> {
    let simple = s.top.is_none()
        && s.qualify.is_none()
        && s.into.is_none()
        && !s.from.is_empty()
        && s.named_window.is_empty()
        && !items.iter().any(crate::bind::has_window)
        && s.from.iter().all(|f| {
            std::iter::once(&f.relation)
                .chain(f.joins.iter().map(|j| &j.relation))
                .all(|r| !sampled(r))
        });
    let ast::GroupByExpr::Expressions(keys, modifiers) = &s.group_by else {
        return None;
    };
    if !simple || !modifiers.is_empty() {
        return None;
    }
    let aggregate = items.iter().any(crate::bind::has_aggregate);
    let all = matches!(s.distinct, None | Some(ast::Distinct::All));
    match (keys.is_empty(), all) {
        (true, true) if !aggregate && s.having.is_none() => Some(Shape::Rows),
        (true, false) if !aggregate && s.having.is_none() => {
            matches!(s.distinct, Some(ast::Distinct::Distinct))
                .then(|| Shape::Groups(items.to_vec()))
        }
        (false, true) => keys
            .iter()
            .map(|k| match k {
                // GROUP BY 2: the second select item
                ast::Expr::Value(v) => match &v.value {
                    ast::Value::Number(n, _) => {
                        items.get(n.parse::<usize>().ok()?.checked_sub(1)?).cloned()
                    }
                    _ => None,
                },
                ast::Expr::Rollup(_) | ast::Expr::Cube(_) | ast::Expr::GroupingSets(_) => None,
                other => Some(other.clone()),
            })
            .collect::<Option<Vec<_>>>()
            .map(Shape::Groups),
        _ => None,
    }
}

/// True if `c` is built of comparisons, IN lists, BETWEENs and IS NULL tests of columns and
/// literals only (under AND, OR, NOT): on a group's rows, whose key columns are equal as `=`
/// compares them (case and trailing blanks aside where the column says so), such a condition
/// is true or false alike, so it keeps or drops whole groups.
fn key_comparison(c: &ast::Expr) -> bool {
    let operand = |e: &ast::Expr| {
        matches!(
            e,
            ast::Expr::Identifier(_)
                | ast::Expr::CompoundIdentifier(_)
                | ast::Expr::Value(_)
                | ast::Expr::TypedString(_)
        )
    };
    use ast::BinaryOperator as B;
    match c {
        ast::Expr::BinaryOp {
            left,
            op: B::And | B::Or,
            right,
        } => key_comparison(left) && key_comparison(right),
        ast::Expr::BinaryOp {
            left,
            op: B::Eq | B::NotEq | B::Lt | B::LtEq | B::Gt | B::GtEq,
            right,
        } => operand(left) && operand(right),
        ast::Expr::UnaryOp {
            op: ast::UnaryOperator::Not,
            expr,
        }
        | ast::Expr::Nested(expr) => key_comparison(expr),
        ast::Expr::IsNull(x) | ast::Expr::IsNotNull(x) => operand(x),
        ast::Expr::In {
            expr,
            target: ast::InTarget::List(list),
            ..
        } => operand(expr) && list.iter().all(operand),
        ast::Expr::Between {
            expr, low, high, ..
        } => operand(expr) && operand(low) && operand(high),
        _ => false,
    }
}

/// A condition as one operand of AND: an OR in parentheses (the tree needs none; its text
/// does, for EXPLAIN).
fn grouped(c: ast::Expr) -> ast::Expr {
    match c {
        ast::Expr::BinaryOp {
            op: ast::BinaryOperator::Or,
            ..
        } => ast::Expr::Nested(Box::new(c)),
        c => c,
    }
}

fn sampled(tf: &ast::TableFactor) -> bool {
    matches!(
        tf,
        ast::TableFactor::Table {
            sample: Some(_),
            ..
        } | ast::TableFactor::Derived {
            sample: Some(_),
            ..
        }
    )
}

/// The expression of each of `s`'s output columns, in order, `*` expanded over its base
/// tables; `None` when one is not known (a `*` over a view, derived table or USING join).
fn items(s: &ast::Select, columns: Columns<'_>) -> Option<Vec<(ast::Expr, Option<String>)>> {
    let mut out = Vec::new();
    let mut names = Vec::new();
    for item in &s.projection {
        let from = out.len();
        item_exprs(item, &s.from, columns, &mut out)?;
        match item {
            ast::SelectItem::ExprWithAlias { alias, .. } => names.push(Some(alias.value.clone())),
            _ => names.extend(out[from..].iter().map(output_name)),
        }
    }
    Some(out.into_iter().zip(names).collect())
}

/// The name of an output column whose select item is `e` without an alias: a column's name.
fn output_name(e: &ast::Expr) -> Option<String> {
    match e {
        ast::Expr::Identifier(id) => Some(id.value.clone()),
        ast::Expr::CompoundIdentifier(parts) => parts.last().map(|p| p.value.clone()),
        _ => None,
    }
}

/// The expressions of one select item's output columns (several for a `*`), added to `out`.
fn item_exprs(
    item: &ast::SelectItem,
    from: &[ast::TableWithJoins],
    columns: Columns<'_>,
    out: &mut Vec<ast::Expr>,
) -> Option<()> {
    match item {
        ast::SelectItem::UnnamedExpr(e) | ast::SelectItem::ExprWithAlias { expr: e, .. } => {
            out.push(e.clone())
        }
        ast::SelectItem::Wildcard(opts) => {
            let using = from.iter().flat_map(|f| &f.joins).any(|j| {
                matches!(
                    crate::join::join_constraint(&j.join_operator),
                    Some(ast::JoinConstraint::Using(_) | ast::JoinConstraint::Natural)
                )
            });
            if wildcard_options(opts) || using {
                return None;
            }
            for tf in factors(from) {
                out.extend(expanded(tf, columns)?);
            }
        }
        ast::SelectItem::QualifiedWildcard(
            ast::SelectItemQualifiedWildcardKind::ObjectName(q),
            opts,
        ) if !wildcard_options(opts) => {
            let written = tdlite_parser::object_name_string(q);
            let mut found = factors(from).filter(|tf| match tf {
                ast::TableFactor::Table { name, alias, .. } => crate::bind::qualifier_matches(
                    &crate::join::qualifier_of(name, alias.as_ref()),
                    &written,
                ),
                _ => false,
            });
            let (Some(tf), None) = (found.next(), found.next()) else {
                return None;
            };
            out.extend(expanded(tf, columns)?);
        }
        _ => return None,
    }
    Some(())
}

/// Whether a `*` carries EXCEPT, REPLACE or other options (not expanded here).
fn wildcard_options(o: &ast::WildcardAdditionalOptions) -> bool {
    o.opt_ilike.is_some()
        || o.opt_exclude.is_some()
        || o.opt_except.is_some()
        || o.opt_replace.is_some()
        || o.opt_rename.is_some()
}

/// A base table's columns as `q.c` references, for a `*` that covers it.
fn expanded(tf: &ast::TableFactor, columns: Columns<'_>) -> Option<Vec<ast::Expr>> {
    let ast::TableFactor::Table {
        name,
        alias,
        args: None,
        ..
    } = tf
    else {
        return None;
    };
    let qualifier: Vec<ast::Ident> = match alias {
        Some(a) => vec![a.name.clone()],
        None => name
            .0
            .iter()
            .map(|p| p.as_ident().cloned())
            .collect::<Option<_>>()?,
    };
    let names = columns(name)?;
    Some(
        names
            .into_iter()
            .map(|(c, _)| {
                let mut parts = qualifier.clone();
                parts.push(ast::Ident::new(c));
                ast::Expr::CompoundIdentifier(parts)
            })
            .collect(),
    )
}

/// Whether `e` may be evaluated where the relation's rows are made: no subquery, aggregate,
/// window or RANDOM.
fn plain(e: &ast::Expr) -> bool {
    !crate::correlate::has_subquery(e)
        && !crate::bind::has_aggregate(e)
        && !crate::bind::has_window(e)
        && !has_random(e)
}

/// Whether `e` calls RANDOM anywhere.
pub(crate) fn has_random(e: &ast::Expr) -> bool {
    struct Random;
    impl Visitor for Random {
        type Break = ();
        fn pre_visit_expr(&mut self, e: &ast::Expr) -> ControlFlow<()> {
            match e {
                ast::Expr::Function(f)
                    if tdlite_parser::object_name_string(&f.name)
                        .eq_ignore_ascii_case("RANDOM") =>
                {
                    ControlFlow::Break(())
                }
                _ => ControlFlow::Continue(()),
            }
        }
    }
    e.visit(&mut Random).is_break()
}

/// Whether every name `e` holds is one of the relation's columns (not another relation's, an
/// alias, an enclosing query's column); a bare name another relation may have (`shared`) is
/// not.
fn names_only(e: &ast::Expr, rel: &Relation<'_>, shared: &dyn Fn(&str) -> bool) -> bool {
    struct Names<'r, 'a, 's>(&'r Relation<'a>, &'s dyn Fn(&str) -> bool);
    impl Visitor for Names<'_, '_, '_> {
        type Break = ();
        fn pre_visit_expr(&mut self, e: &ast::Expr) -> ControlFlow<()> {
            let mine = match e {
                ast::Expr::Identifier(n) => !(self.1)(&n.value) && column(e, self.0).is_some(),
                ast::Expr::CompoundIdentifier(_) => column(e, self.0).is_some(),
                _ => true,
            };
            match mine {
                true => ControlFlow::Continue(()),
                false => ControlFlow::Break(()),
            }
        }
    }
    e.visit(&mut Names(rel, shared)).is_continue()
}

/// The relation's column a name `e` (`c` or `q.c`) is, if exactly one.
fn column(e: &ast::Expr, rel: &Relation<'_>) -> Option<usize> {
    let (qualifier, name) = match e {
        ast::Expr::Identifier(c) => (None, c),
        ast::Expr::CompoundIdentifier(parts) => {
            let (c, q) = parts.split_last()?;
            let q: Vec<&str> = q.iter().map(|i| i.value.as_str()).collect();
            (Some(q.join(".")), c)
        }
        _ => return None,
    };
    if let Some(q) = &qualifier {
        if !crate::bind::qualifier_matches(&rel.qualifier, q) {
            return None;
        }
    }
    let mut found = None;
    for (i, n) in rel.names.iter().enumerate() {
        if n.as_deref()
            .is_some_and(|n| n.eq_ignore_ascii_case(&name.value))
        {
            if found.is_some() {
                return None;
            }
            found = Some(i);
        }
    }
    found
}

/// Replaces each of the relation's column names by its select item, in parentheses; clears
/// `ok` where an item may not be evaluated in WHERE.
struct ByItem<'r, 'a> {
    rel: &'r Relation<'a>,
    items: &'r [ast::Expr],
    /// Where set, each column named must be an item of a sure type (a base table's column or
    /// a literal: nothing computed that could fail), these being the items' types.
    bare: Option<&'r Vec<Option<DataType>>>,
    ok: bool,
}

impl VisitorMut for ByItem<'_, '_> {
    type Break = ();
    fn post_visit_expr(&mut self, e: &mut ast::Expr) -> ControlFlow<()> {
        if !matches!(
            e,
            ast::Expr::Identifier(_) | ast::Expr::CompoundIdentifier(_)
        ) {
            return ControlFlow::Continue(());
        }
        let Some((i, item)) = column(e, self.rel).and_then(|i| Some((i, self.items.get(i)?)))
        else {
            self.ok = false;
            return ControlFlow::Break(());
        };
        let sure = |types: &Vec<Option<DataType>>| types.get(i).is_some_and(Option::is_some);
        if !plain(item)
            || tdlite_parser::phrase::without_display_phrases(item) != *item
            || !self.bare.is_none_or(sure)
        {
            self.ok = false;
            return ControlFlow::Break(());
        }
        *e = match item {
            ast::Expr::Identifier(_) | ast::Expr::CompoundIdentifier(_) | ast::Expr::Value(_) => {
                item.clone()
            }
            _ => ast::Expr::Nested(Box::new(item.clone())),
        };
        ControlFlow::Continue(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(sql: &str) -> ast::Query {
        crate::view::parse_query(sql).expect("parses")
    }

    fn condition(sql: &str) -> ast::Expr {
        let q = query(&format!("SEL 1 FROM x WHERE {sql}"));
        match *q.body {
            ast::SetExpr::Select(s) => s.selection.expect("a WHERE"),
            _ => unreachable!("a block"),
        }
    }

    /// The one base table views read here: `t (a INTEGER, b INTEGER, s VARCHAR)`.
    fn table_t(n: &ast::ObjectName) -> Option<Vec<(String, Option<DataType>)>> {
        (n.to_string() == "t").then(|| {
            [
                ("a", DataType::Int32),
                ("b", DataType::Int32),
                ("s", DataType::Utf8),
            ]
            .into_iter()
            .map(|(c, t)| (c.to_string(), Some(t)))
            .collect()
        })
    }

    /// `view`'s WHERE after pushing `cond` into it as the one relation `v` of a block (its
    /// columns `names`), or `None`.
    fn pushed(view: &str, names: &[&str], cond: &str) -> Option<String> {
        let q = query(view);
        let rel = Relation {
            query: &q,
            names: names.iter().map(|n| Some(n.to_string())).collect(),
            qualifier: "v".into(),
            view: None,
            params: &[],
        };
        let (q, _) = push_into(&rel, &condition(cond), &table_t)?;
        match *q.body {
            ast::SetExpr::Select(s) => s.selection.map(|w| w.to_string()),
            _ => None,
        }
    }

    #[test]
    fn columns_become_their_select_items_after_the_blocks_own_where() {
        assert_eq!(
            pushed("SEL a, b * 2 AS c FROM t", &["a", "c"], "v.a = 1 AND c > 4").as_deref(),
            Some("a = 1 AND (b * 2) > 4")
        );
        // beside the view's own WHERE only what cannot fail, over column items
        assert_eq!(
            pushed(
                "SEL a, b * 2 AS c FROM t WHERE b > 0",
                &["a", "c"],
                "a = 1 AND c > 4"
            )
            .as_deref(),
            Some("b > 0 AND a = 1")
        );
        assert_eq!(
            pushed("SEL a, b FROM t WHERE b > 0", &["a", "b"], "a = 'x'"),
            None,
            "INTEGER = a string converts, and may fail"
        );
        // an item naming another item's alias is computed, whatever it looks like
        assert_eq!(
            pushed(
                "SEL 100 / b AS j, j AS jj FROM t WHERE b <> 0",
                &["j", "jj"],
                "jj = 5"
            ),
            None
        );
        // an OR stays one conjunct, in parentheses
        assert_eq!(
            pushed("SEL a FROM t", &["a"], "a = 1 OR a = 2").as_deref(),
            Some("(a = 1 OR a = 2)")
        );
    }

    #[test]
    fn only_leading_conditions_on_the_relations_own_columns_go_in() {
        // an enclosing query's column, another name, a subquery: it stops there
        assert_eq!(pushed("SEL a FROM t", &["a"], "w.a = 1 AND a = 2"), None);
        assert_eq!(
            pushed("SEL a FROM t", &["a"], "a = 2 AND zz = 1 AND a = 3").as_deref(),
            Some("a = 2")
        );
        assert_eq!(
            pushed("SEL a FROM t", &["a"], "EXISTS (SEL 1 FROM u) AND a = 2"),
            None
        );
        assert_eq!(pushed("SEL a FROM t", &["a"], "a = RANDOM(1, 9)"), None);
    }

    #[test]
    fn blocks_that_see_rows_after_where_take_nothing_or_key_comparisons() {
        for view in [
            "SEL TOP 1 a FROM t ORDER BY a",
            "SEL a FROM t QUALIFY ROW_NUMBER() OVER (ORDER BY a) = 1",
            "SEL a, ROW_NUMBER() OVER (ORDER BY a) AS r FROM t",
            "SEL MAX(a) AS a FROM t",
            "SEL a FROM t UNION ALL SEL a FROM u",
            "SEL a, COUNT(*) AS n FROM t GROUP BY ROLLUP (a)",
        ] {
            let names: &[&str] = match view.contains(" AS r ") || view.contains(" AS n ") {
                true => &["a", "r"],
                false => &["a"],
            };
            assert_eq!(pushed(view, names, "a = 1"), None, "{view}");
        }
        assert_eq!(
            pushed(
                "SEL a, COUNT(*) AS n FROM t GROUP BY 1",
                &["a", "n"],
                "a IN (1, 2)"
            )
            .as_deref(),
            Some("a IN (1, 2)")
        );
        // not a comparison with a literal, or an aggregate's column: could split or count
        assert_eq!(
            pushed(
                "SEL a, COUNT(*) AS n FROM t GROUP BY a",
                &["a", "n"],
                "a + 1 = 2"
            ),
            None
        );
        assert_eq!(
            pushed(
                "SEL a, COUNT(*) AS n FROM t GROUP BY a",
                &["a", "n"],
                "n = 2"
            ),
            None
        );
        assert_eq!(
            pushed("SEL DISTINCT a FROM t", &["a"], "a BETWEEN 1 AND 3").as_deref(),
            Some("a BETWEEN 1 AND 3")
        );
        // a key of characters groups 'a' with 'A'; a comparison may tell them apart
        assert_eq!(pushed("SEL DISTINCT s FROM t", &["s"], "s = 'a'"), None);
        // beside HAVING, only what cannot fail: HAVING drops groups the block never tests
        let having = "SEL a, COUNT(*) AS n FROM t GROUP BY a HAVING COUNT(*) > 1";
        assert_eq!(pushed(having, &["a", "n"], "a = 'x'"), None);
        assert_eq!(
            pushed(having, &["a", "n"], "a = 1").as_deref(),
            Some("a = 1")
        );
    }

    /// `q` as the relation `v` of columns a, b and s, in a request with `params`.
    fn abs_view<'a>(q: &'a ast::Query, params: &'a [tdlite_storage::types::Value]) -> Relation<'a> {
        Relation {
            query: q,
            names: ["a", "b", "s"]
                .iter()
                .map(|n| Some(n.to_string()))
                .collect(),
            qualifier: "v".into(),
            view: None,
            params,
        }
    }

    #[test]
    fn among_joins_a_view_takes_what_cannot_fail_and_names_it_alone() {
        let q = query("SEL a, b, s FROM t");
        let rel = abs_view(&q, &[]);
        let conds: Vec<ast::Expr> = [
            "v.a = u.k",       // another relation's column
            "v.a + 1 = 2",     // arithmetic may fail
            "v.s = 5",         // a conversion may fail
            "b = 3",           // a bare name another relation has too
            "v.b > 1",         // taken
            "s IN ('x', 'y')", // taken: only v has s
        ]
        .iter()
        .map(|c| condition(c))
        .collect();
        let shared = |n: &str| n.eq_ignore_ascii_case("b");
        let (_, pushed) = push_into_join(&rel, &conds, &table_t, &shared).expect("pushed");
        let texts: Vec<String> = pushed.iter().map(|c| c.to_string()).collect();
        assert_eq!(texts, ["v.b > 1", "s IN ('x', 'y')"]);
    }

    #[test]
    fn among_joins_a_parameter_is_an_operand_of_its_values_type() {
        use tdlite_storage::types::Value;
        let q = query("SEL a, b, s FROM t");
        let params = [Value::Int(7), Value::Str("7".into()), Value::Null];
        let rel = abs_view(&q, &params);
        let conds: Vec<ast::Expr> = [
            "v.a = ?1",  // a number against a number: taken
            "v.a = ?2",  // a string against a number may fail
            "v.s <> ?2", // taken
            "v.b = ?4",  // no such value: not known, left out
            "v.b = ?3",  // NULL: taken, as the literal is
        ]
        .iter()
        .map(|c| condition(c))
        .collect();
        let (_, pushed) = push_into_join(&rel, &conds, &table_t, &|_| false).expect("pushed");
        let texts: Vec<String> = pushed.iter().map(|c| c.to_string()).collect();
        assert_eq!(texts, ["v.a = ?1", "v.s <> ?2", "v.b = ?3"]);
    }
}
