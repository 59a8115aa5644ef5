//! INSERT, UPDATE and DELETE through a view (SQL Data Manipulation Language, INSERT,
//! "Inserting Rows through Views", and SQL Data Definition Language, CREATE VIEW, "Updatable
//! Views"): a view whose query reads one table and selects plain columns of it is rewritten
//! into the same statement on that table, its columns renamed to the table's and its WHERE
//! added to the statement's (UPDATE and DELETE change only rows the view shows).
//!
//! A view is updatable when its query is `SELECT columns FROM one_table [alias] [WHERE …]`:
//! no join, DISTINCT, GROUP BY, HAVING, QUALIFY, TOP, SAMPLE, set operator or WITH, and every
//! select item a column of the table (`*` too), each at most once. Any other view is 3823, so
//! is one made WITH CHECK OPTION (whose check tdlite does not make), and UPDATE … FROM and
//! joined DELETE of a view. The table may itself be a view: the rewritten statement goes
//! through it in turn.
//!
//! Invariant: the rewritten statement names no column of the view: every column name in its
//! SET values and WHERE (unqualified, or qualified by the view's name or alias) is renamed to
//! the table's column the view shows, qualified by the name the view's query gives the table,
//! under which the table is then read; a name the view lacks is 3810 (so columns the view
//! hides stay hidden), and a statement with a subquery is 9910 (its names would need the
//! subquery's own scopes).

use crate::error::{Error, Result};
use sqlparser::ast::{self, VisitMut, VisitorMut};
use std::ops::ControlFlow;
use tdlite_storage::catalog::TableSchema;

/// An updatable view: what its statements are rewritten against.
pub(crate) struct Updatable {
    /// The table (or view) the view reads.
    pub base: ast::ObjectName,
    /// The name the view's query gives it (its alias, or its own name).
    pub qualifier: String,
    /// Each view column's name and the base column it shows.
    pub columns: Vec<(String, String)>,
    /// The view's WHERE, over the base table as the view's query names it.
    pub filter: Option<ast::Expr>,
}

/// `schema`'s view as an updatable view; `base_columns` gives a table's column names (for a
/// `*` in the view's query).
///
/// # Errors
/// 3823 for a view that is not updatable.
pub(crate) fn updatable(
    schema: &TableSchema,
    base_columns: impl Fn(&ast::ObjectName) -> Result<Vec<String>>,
) -> Result<Updatable> {
    let refuse = || Error::ViewNotUpdatable(schema.name.clone());
    let Some(sql) = &schema.view else {
        return Err(refuse());
    };
    if tdlite_parser::ends_with_check_option(&schema.ddl) {
        return Err(refuse());
    }
    // (read, and its tree dropped, where the stack holds the text's depth)
    crate::stack::for_text(sql, || updatable_query(schema, sql, base_columns))
}

/// [`updatable`] for view `schema` whose query's text is `sql`.
fn updatable_query(
    schema: &TableSchema,
    sql: &str,
    base_columns: impl Fn(&ast::ObjectName) -> Result<Vec<String>>,
) -> Result<Updatable> {
    let refuse = || Error::ViewNotUpdatable(schema.name.clone());
    let query = crate::view::parse_query(sql)?;
    if query.with.is_some()
        || query.order_by.is_some()
        || query.limit_clause.is_some()
        || query.fetch.is_some()
    {
        return Err(refuse());
    }
    let ast::SetExpr::Select(select) = query.body.as_ref() else {
        return Err(refuse());
    };
    let plain = select.distinct.is_none()
        && select.top.is_none()
        && select.having.is_none()
        && select.qualify.is_none()
        && select.named_window.is_empty()
        && matches!(&select.group_by, ast::GroupByExpr::Expressions(e, m) if e.is_empty() && m.is_empty());
    let [from] = select.from.as_slice() else {
        return Err(refuse());
    };
    let ast::TableFactor::Table {
        name,
        alias,
        args: None,
        sample: None,
        ..
    } = &from.relation
    else {
        return Err(refuse());
    };
    if !plain || !from.joins.is_empty() {
        return Err(refuse());
    }
    let qualifier = crate::join::qualifier_of(name, alias.as_ref());
    let mut shown: Vec<String> = Vec::new();
    for item in &select.projection {
        match item {
            ast::SelectItem::UnnamedExpr(e) | ast::SelectItem::ExprWithAlias { expr: e, .. } => {
                shown.push(column_name(e).ok_or_else(refuse)?)
            }
            ast::SelectItem::Wildcard(_) | ast::SelectItem::QualifiedWildcard(..) => {
                shown.extend(base_columns(name)?)
            }
            _ => return Err(refuse()),
        }
    }
    if shown.len() != schema.columns.len() {
        return Err(refuse());
    }
    for (i, c) in shown.iter().enumerate() {
        if shown[..i].iter().any(|d| d.eq_ignore_ascii_case(c)) {
            return Err(refuse());
        }
    }
    let columns = schema
        .columns
        .iter()
        .map(|c| c.name.clone())
        .zip(shown)
        .collect();
    Ok(Updatable {
        base: name.clone(),
        qualifier,
        columns,
        filter: select.selection.clone(),
    })
}

/// The column a select item names, if it is a plain column reference.
fn column_name(e: &ast::Expr) -> Option<String> {
    match e {
        ast::Expr::Identifier(i) => Some(i.value.clone()),
        ast::Expr::CompoundIdentifier(parts) => parts.last().map(|i| i.value.clone()),
        ast::Expr::Nested(inner) => column_name(inner),
        _ => None,
    }
}

impl Updatable {
    /// The base column view column `name` shows (3810 for a name the view lacks).
    fn base_column(&self, name: &str) -> Result<String> {
        self.columns
            .iter()
            .find(|(v, _)| v.eq_ignore_ascii_case(name))
            .map(|(_, b)| b.clone())
            .ok_or_else(|| Error::ColumnNotFound(name.to_string()))
    }

    /// The table as the rewritten UPDATE or DELETE names it, under the view query's name:
    /// `written` (the statement's table factor naming the view) with its name and alias
    /// replaced.
    fn target(&self, written: &ast::TableFactor) -> ast::TableFactor {
        let mut t = written.clone();
        if let ast::TableFactor::Table { name, alias, .. } = &mut t {
            *name = self.base.clone();
            *alias = Some(ast::TableAlias {
                explicit: true,
                name: ast::Ident::new(self.qualifier.clone()),
                columns: Vec::new(),
                at: None,
            });
        }
        t
    }

    /// `e` with the view's columns renamed to the table's (`names`: what the statement calls
    /// the view: its name and any alias).
    fn rename(&self, e: &mut ast::Expr, names: &[String]) -> Result<()> {
        let mut r = Renamer {
            view: self,
            names,
            error: None,
        };
        let _ = e.visit(&mut r);
        match r.error {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// `selection AND the view's WHERE`.
    fn restricted(&self, selection: Option<ast::Expr>) -> Option<ast::Expr> {
        let nest = |e: ast::Expr| ast::Expr::Nested(Box::new(e));
        match (selection, self.filter.clone()) {
            (Some(s), Some(f)) => Some(ast::Expr::BinaryOp {
                left: Box::new(nest(s)),
                op: ast::BinaryOperator::And,
                right: Box::new(nest(f)),
            }),
            (s, f) => s.or(f),
        }
    }
}

/// Renames view columns in an expression (see [`Updatable::rename`]).
struct Renamer<'a> {
    view: &'a Updatable,
    names: &'a [String],
    error: Option<Error>,
}

impl VisitorMut for Renamer<'_> {
    type Break = ();

    fn pre_visit_query(&mut self, _: &mut ast::Query) -> ControlFlow<()> {
        // a subquery would need its own scopes (a name there may be its tables' or the
        // view's): not done yet, never a guess
        self.error = Some(Error::Unsupported(
            "a subquery in an INSERT, UPDATE or DELETE through a view".into(),
        ));
        ControlFlow::Break(())
    }

    fn pre_visit_expr(&mut self, e: &mut ast::Expr) -> ControlFlow<()> {
        let named = |q: &[ast::Ident]| {
            let written: Vec<&str> = q.iter().map(|i| i.value.as_str()).collect();
            let written = written.join(".");
            self.names.iter().any(|n| n.eq_ignore_ascii_case(&written))
        };
        let renamed = match e {
            // the session's values (USER, DATE, …) and DEFAULT are no columns
            ast::Expr::Identifier(i)
                if i.quote_style.is_none()
                    && (crate::bind::is_request_value(&i.value.to_ascii_uppercase())
                        || i.value.eq_ignore_ascii_case("DEFAULT")) =>
            {
                return ControlFlow::Continue(())
            }
            // every other name is the view's: one it lacks is 3810, as in a SELECT from it
            ast::Expr::Identifier(i) => self.view.base_column(&i.value),
            ast::Expr::CompoundIdentifier(parts)
                if parts.len() >= 2 && named(&parts[..parts.len() - 1]) =>
            {
                self.view.base_column(&parts[parts.len() - 1].value)
            }
            _ => return ControlFlow::Continue(()),
        };
        match renamed {
            Ok(c) => {
                *e = ast::Expr::CompoundIdentifier(vec![
                    ast::Ident::new(self.view.qualifier.clone()),
                    ast::Ident::new(c),
                ]);
                ControlFlow::Continue(())
            }
            Err(err) => {
                self.error = Some(err);
                ControlFlow::Break(())
            }
        }
    }
}

/// The names a statement gives the view: its own (last part) and its alias.
fn view_names(name: &ast::ObjectName, alias: Option<&ast::TableAlias>) -> Vec<String> {
    // as written (`db.v` or `v`), and its last part
    let mut names = vec![crate::join::qualifier_of(name, None)];
    if let Some(last) = name.0.last().and_then(|p| p.as_ident()) {
        names.push(last.value.clone());
    }
    if let Some(a) = alias {
        names.push(a.name.value.clone());
    }
    names
}

/// `INSERT INTO view [(columns)] …` as an INSERT into the view's table.
///
/// # Errors
/// 3810 for a column the view lacks.
pub(crate) fn insert(ins: &ast::Insert, view: &Updatable) -> Result<ast::Insert> {
    let mut out = ins.clone();
    out.table = ast::TableObject::TableName(view.base.clone());
    let named: Vec<String> = match ins.columns.is_empty() {
        true => view.columns.iter().map(|(v, _)| v.clone()).collect(),
        false => ins
            .columns
            .iter()
            .map(tdlite_parser::object_name_string)
            .collect(),
    };
    out.columns = named
        .iter()
        .map(|c| {
            let b = view.base_column(c)?;
            Ok(ast::ObjectName::from(vec![ast::Ident::new(b)]))
        })
        .collect::<Result<_>>()?;
    // `DEFAULT(c)` in VALUES names a view column: the table's column it shows
    if let Some(source) = &mut out.source {
        if let ast::SetExpr::Values(values) = source.body.as_mut() {
            for row in &mut values.rows {
                for cell in &mut row.content {
                    if let Some(crate::default_cells::DefaultOf::Column(c)) =
                        crate::default_cells::default_of(cell)
                    {
                        let b = view.base_column(&c)?;
                        *cell = crate::default_cells::default_of_column(&b);
                    }
                }
            }
        }
    }
    Ok(out)
}

/// `UPDATE view [alias] SET … [WHERE …]` as an UPDATE of the view's table, of the rows the
/// view shows.
///
/// # Errors
/// 3823 for UPDATE … FROM; 3810 for a column the view lacks.
pub(crate) fn update(u: &ast::Update, view: &Updatable, view_name: &str) -> Result<ast::Update> {
    let ast::TableFactor::Table { name, alias, .. } = &u.table.relation else {
        return Err(Error::ViewNotUpdatable(view_name.to_string()));
    };
    if u.from.is_some() || !u.table.joins.is_empty() {
        return Err(Error::ViewNotUpdatable(view_name.to_string()));
    }
    let names = view_names(name, alias.as_ref());
    let mut out = u.clone();
    out.table.relation = view.target(&u.table.relation);
    for a in &mut out.assignments {
        if let ast::AssignmentTarget::ColumnName(c) = &mut a.target {
            let written = tdlite_parser::object_name_string(c);
            let col = written.rsplit('.').next().unwrap_or(&written);
            *c = ast::ObjectName::from(vec![ast::Ident::new(view.base_column(col)?)]);
        }
        view.rename(&mut a.value, &names)?;
    }
    if let Some(w) = &mut out.selection {
        view.rename(w, &names)?;
    }
    out.selection = view.restricted(out.selection.take());
    Ok(out)
}

/// `DELETE FROM view [alias] [WHERE …]` as a DELETE of the view's rows from its table.
///
/// # Errors
/// 3823 for a joined DELETE; 3810 for a column the view lacks.
pub(crate) fn delete(d: &ast::Delete, view: &Updatable, view_name: &str) -> Result<ast::Delete> {
    let refuse = || Error::ViewNotUpdatable(view_name.to_string());
    let from = match &d.from {
        ast::FromTable::WithFromKeyword(v) | ast::FromTable::WithoutKeyword(v) => v,
    };
    let [t] = from.as_slice() else {
        return Err(refuse());
    };
    let ast::TableFactor::Table { name, alias, .. } = &t.relation else {
        return Err(refuse());
    };
    if !d.tables.is_empty() || d.using.is_some() || !t.joins.is_empty() {
        return Err(refuse());
    }
    let names = view_names(name, alias.as_ref());
    let mut out = d.clone();
    let target = ast::TableWithJoins {
        relation: view.target(&t.relation),
        joins: Vec::new(),
    };
    out.from = match &d.from {
        ast::FromTable::WithFromKeyword(_) => ast::FromTable::WithFromKeyword(vec![target]),
        ast::FromTable::WithoutKeyword(_) => ast::FromTable::WithoutKeyword(vec![target]),
    };
    if let Some(w) = &mut out.selection {
        view.rename(w, &names)?;
    }
    out.selection = view.restricted(out.selection.take());
    Ok(out)
}
