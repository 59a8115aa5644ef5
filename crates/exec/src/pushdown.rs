//! Predicate pushdown into a view or derived table: conditions of the block that reads it,
//! when they name only its columns, are ANDed into the WHERE of the query that makes its rows
//! (each branch of a UNION ALL), written in that query's own terms (each column replaced by
//! the expression that makes it). The query then reads its tables through whatever index
//! those conditions allow, instead of making every row for the block to filter: `SEL * FROM v
//! WHERE k = 5` over a view of `t` reads one row of `t` by its index.
//!
//! Which conditions:
//! - the one relation of a block ([`push_into`]): the leading WHERE conjuncts that qualify
//!   (WHERE's conjuncts filter in turn, so none sees a row an earlier one dropped, pushed or
//!   not);
//! - a view among the relations of inner joins ([`push_into_join`]): any WHERE or ON conjunct
//!   that qualifies and cannot fail (a row the join would drop never met it, so it must raise
//!   no error there), a bare name only where no other relation may have it.
//!
//! A conjunct qualifies when it names only the relation's columns (bare, or qualified by its
//! name), holds no subquery, aggregate, window or RANDOM, and each column it names is a select
//! item with none of those and no TITLE or FORMAT phrase.
//!
//! Invariant: the pushed query gives exactly the rows of the original query that the pushed
//! conjuncts keep, and the enclosing block still applies every condition, so its result is
//! the one it had. Only a query whose blocks filter rows before anything else looks at them is
//! pushed into: no DISTINCT, TOP, GROUP BY, HAVING, QUALIFY, aggregate, window, SAMPLE, WITH,
//! ORDER BY, and only UNION ALL between blocks (a filter of a UNION ALL is the UNION ALL of the
//! filtered branches); the conjuncts go after the query's own WHERE.
//!
//! Pure syntax: it reads no table; the caller gives the relation's column names (and types)
//! and each base table's columns for `*`.

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
}

/// The columns of a table a query names, for `*` (`None`: not known without reading it).
pub(crate) type Columns<'a> = &'a dyn Fn(&ast::ObjectName) -> Option<Vec<String>>;

/// `rel`'s query with the leading conjuncts of `selection` that can be pushed ANDed into its
/// WHERE, and those conjuncts as written; `None` when none can. For the one relation of a
/// block: WHERE's conjuncts filter in turn, so pushing a prefix keeps each one from seeing
/// a row an earlier one dropped.
pub(crate) fn push_into(
    rel: &Relation<'_>,
    selection: &ast::Expr,
    columns: Columns<'_>,
) -> Option<(ast::Query, Vec<ast::Expr>)> {
    let mut parts = Vec::new();
    conjuncts(selection, &mut parts);
    let mut pushed = Vec::new();
    for c in parts {
        if !plain(&c) || !names_only(&c, rel, &|_| false) {
            break;
        }
        pushed.push(c);
    }
    let query = push_conjuncts(rel, &pushed, columns)?;
    Some((query, pushed))
}

/// A relation among others in a FROM of inner joins: the conditions (WHERE's and the ONs'
/// conjuncts, `conds`) that name only its columns and cannot fail (see
/// [`cannot_fail`]: a row the join would drop never met them, so they must raise no error
/// for it), its query with them ANDed into its WHERE; `None` when none can be pushed.
/// `shared(n)`: whether another relation of the FROM may have a column `n` (then a bare
/// `n` is not this relation's); `ty(i)`: the type of the relation's column `i`, if known.
pub(crate) fn push_into_join(
    rel: &Relation<'_>,
    conds: &[ast::Expr],
    columns: Columns<'_>,
    shared: &dyn Fn(&str) -> bool,
    ty: &dyn Fn(usize) -> Option<DataType>,
) -> Option<(ast::Query, Vec<ast::Expr>)> {
    let pushed: Vec<ast::Expr> = (conds.iter())
        .filter(|c| plain(c) && names_only(c, rel, shared) && cannot_fail(c, rel, ty))
        .cloned()
        .collect();
    let query = push_conjuncts(rel, &pushed, columns)?;
    Some((query, pushed))
}

/// `rel`'s query with `pushed` (written over the relation's names) ANDed into the WHERE of
/// each of its blocks; `None` for no conjuncts or a query that cannot take them.
fn push_conjuncts(
    rel: &Relation<'_>,
    pushed: &[ast::Expr],
    columns: Columns<'_>,
) -> Option<ast::Query> {
    if pushed.is_empty() {
        return None;
    }
    let mut query = rel.query.clone();
    if !filterable(&query) || !push_body(&mut query.body, pushed, rel, columns) {
        return None;
    }
    Some(query)
}

/// True if condition `c` cannot raise an error on any row: ANDs, ORs and NOTs of
/// comparisons, IN lists and IS NULL tests of the relation's columns (of known types) and
/// literals (numbers, strings, NULL, DATE), each comparison's operands of one family
/// (`types::same_family`: no conversion that may fail), as `join_plan::cannot_fail` rules on
/// bound conditions.
fn cannot_fail(c: &ast::Expr, rel: &Relation<'_>, ty: &dyn Fn(usize) -> Option<DataType>) -> bool {
    let operand = |e: &ast::Expr| -> Option<DataType> {
        match e {
            ast::Expr::Identifier(_) | ast::Expr::CompoundIdentifier(_) => ty(column(e, rel)?),
            ast::Expr::Nested(x) => operand_literal(x),
            other => operand_literal(other),
        }
    };
    let pair = |a: &ast::Expr, b: &ast::Expr| {
        matches!((operand(a), operand(b)), (Some(p), Some(q)) if same_family(&p, &q))
    };
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
        ast::Expr::IsNull(x) | ast::Expr::IsNotNull(x) => operand(x).is_some(),
        ast::Expr::In {
            expr,
            target: ast::InTarget::List(list),
            ..
        } => list.iter().all(|v| pair(expr, v)),
        _ => false,
    }
}

/// The type of a literal operand as the binder types it: a number, a string, NULL, a DATE.
fn operand_literal(e: &ast::Expr) -> Option<DataType> {
    match e {
        ast::Expr::Value(v) => match &v.value {
            ast::Value::Number(n, _) => Some(crate::bind::number_literal(n).ok()?.data_type().clone()),
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

/// Puts `pushed` (written over the relation's names) into each block of `body`; false if a
/// block cannot take it.
fn push_body(
    body: &mut ast::SetExpr,
    pushed: &[ast::Expr],
    rel: &Relation<'_>,
    columns: Columns<'_>,
) -> bool {
    match body {
        ast::SetExpr::Select(s) => push_block(s, pushed, rel, columns),
        ast::SetExpr::Query(q) => filterable(q) && push_body(&mut q.body, pushed, rel, columns),
        ast::SetExpr::SetOperation {
            op: ast::SetOperator::Union,
            set_quantifier: ast::SetQuantifier::All,
            left,
            right,
        } => {
            push_body(left, pushed, rel, columns) && push_body(right, pushed, rel, columns)
        }
        _ => false,
    }
}

/// ANDs `pushed`, each column replaced by the select item at its position, into `s`'s WHERE.
fn push_block(
    s: &mut ast::Select,
    pushed: &[ast::Expr],
    rel: &Relation<'_>,
    columns: Columns<'_>,
) -> bool {
    let plain_block = s.distinct.is_none()
        && s.top.is_none()
        && matches!(&s.group_by, ast::GroupByExpr::Expressions(v, m) if v.is_empty() && m.is_empty())
        && s.having.is_none()
        && s.qualify.is_none()
        && s.into.is_none()
        && !s.from.is_empty()
        && s.named_window.is_empty()
        && s.projection.iter().all(|i| match i {
            ast::SelectItem::UnnamedExpr(e) | ast::SelectItem::ExprWithAlias { expr: e, .. } => {
                !crate::bind::has_aggregate(e) && !crate::bind::has_window(e)
            }
            _ => true,
        })
        && s.from.iter().all(|f| {
            std::iter::once(&f.relation)
                .chain(f.joins.iter().map(|j| &j.relation))
                .all(|r| !sampled(r))
        });
    if !plain_block {
        return false;
    }
    let Some(items) = items(s, columns) else {
        return false;
    };
    if items.len() != rel.names.len() {
        return false;
    }
    let mut made = Vec::with_capacity(pushed.len());
    for c in pushed {
        let mut c = c.clone();
        let mut by = ByItem {
            rel,
            items: &items,
            ok: true,
        };
        let _ = VisitMut::visit(&mut c, &mut by);
        if !by.ok {
            return false;
        }
        made.push(c);
    }
    let all = s.selection.take().into_iter().chain(made).map(grouped);
    s.selection = and_all(all.collect());
    true
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
fn items(s: &ast::Select, columns: Columns<'_>) -> Option<Vec<ast::Expr>> {
    let mut out = Vec::new();
    for item in &s.projection {
        item_exprs(item, &s.from, columns, &mut out)?;
    }
    Some(out)
}

/// The expressions of one select item's output columns (several for a `*`), added to `out`.
fn item_exprs(
    item: &ast::SelectItem,
    from: &[ast::TableWithJoins],
    columns: Columns<'_>,
    out: &mut Vec<ast::Expr>,
) -> Option<()> {
    let factors = || {
        from.iter()
            .flat_map(|f| std::iter::once(&f.relation).chain(f.joins.iter().map(|j| &j.relation)))
    };
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
            for tf in factors() {
                out.extend(expanded(tf, columns)?);
            }
        }
        ast::SelectItem::QualifiedWildcard(ast::SelectItemQualifiedWildcardKind::ObjectName(q), opts)
            if !wildcard_options(opts) =>
        {
            let written = tdlite_parser::object_name_string(q);
            let mut found = factors().filter(|tf| match tf {
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
            .map(|c| {
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

fn has_random(e: &ast::Expr) -> bool {
    struct Random;
    impl Visitor for Random {
        type Break = ();
        fn pre_visit_expr(&mut self, e: &ast::Expr) -> ControlFlow<()> {
            match e {
                ast::Expr::Function(f)
                    if tdlite_parser::object_name_string(&f.name).eq_ignore_ascii_case("RANDOM") =>
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
        if n.as_deref().is_some_and(|n| n.eq_ignore_ascii_case(&name.value)) {
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
    ok: bool,
}

impl VisitorMut for ByItem<'_, '_> {
    type Break = ();
    fn post_visit_expr(&mut self, e: &mut ast::Expr) -> ControlFlow<()> {
        if !matches!(e, ast::Expr::Identifier(_) | ast::Expr::CompoundIdentifier(_)) {
            return ControlFlow::Continue(());
        }
        let Some(item) = column(e, self.rel).and_then(|i| self.items.get(i)) else {
            self.ok = false;
            return ControlFlow::Break(());
        };
        if !plain(item) || tdlite_parser::phrase::without_display_phrases(item) != *item {
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
