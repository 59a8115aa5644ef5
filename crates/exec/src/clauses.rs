//! Binding a SELECT's clauses: the select list (with `*` expanded), QUALIFY, HAVING and
//! ORDER BY, over the scope of its FROM rows and, in a grouped query, its `Grouping` (where
//! aggregates and GROUP BY keys become columns of the aggregated batch); its GROUP BY keys
//! and grouping ([`Exec::block_grouping`], [`Exec::bind_grouped_clauses`]: the one binding
//! the query, a kept plan and EXPLAIN share); and its WHERE, with the select list's aliases
//! ([`Exec::with_where`], [`Exec::bind_table_where`]), with `Exec::names_read` set for the
//! read ([`Exec::reading_names`]).
//!
//! A grouped query's correlated subqueries need the groups, which exist only after its
//! aggregates have run, and which aggregates run is learnt by binding. So such a query is
//! bound twice: first with each correlated subquery as a NULL placeholder (which collects the
//! aggregate calls), then, after aggregation, again over the aggregated batch
//! ([`Exec::bind_over_groups`]), where each correlated subquery runs once per group with that
//! group's key values as its outer row (see `correlate`). Binding is deterministic, so the
//! second pass finds the same aggregate calls, in the same order, as the first; it checks so.
//!
//! Invariant: the second pass replaces every bound expression of the first; nothing bound
//! with a placeholder is ever evaluated.

use crate::bind::{Grouping, Scope, ScopeColumn};
use crate::error::{Error, Result};
use crate::exec::Exec;
use crate::expr::Expr;
use crate::names::{column_heading, own_format, peel_title, resolving_aliases, time_precision};
use crate::ops::SortKey;
use crate::window::WindowCall;
use arrow::record_batch::RecordBatch;
use sqlparser::ast;

pub(crate) use crate::ops::Item;

/// A SELECT's clauses, bound.
pub(crate) struct Clauses {
    /// The select list, `*` expanded.
    pub(crate) items: Vec<Item>,
    /// Fractional digits of each TIME/TIMESTAMP item, as its type says (for display).
    pub(crate) precisions: Vec<crate::ops::Display>,
    pub(crate) qualify: Option<Expr>,
    pub(crate) having: Option<Expr>,
    /// ORDER BY.
    pub(crate) keys: Vec<SortKey>,
    /// The window calls the select list, QUALIFY and ORDER BY make.
    pub(crate) windows: Vec<WindowCall>,
    /// How many correlated subqueries were bound as placeholders (see the module doc).
    pub(crate) placeholders: usize,
}

impl Exec<'_> {
    /// Binds the clauses of `s` over `scope` (and `grouping` in a grouped query). With
    /// `placeholders`, a correlated subquery that cannot run yet binds as a NULL placeholder
    /// and is counted in [`Clauses::placeholders`].
    pub(crate) fn bind_clauses(
        &mut self,
        s: &ast::Select,
        order_by: &[ast::OrderByExpr],
        scope: &Scope,
        grouping: Option<&mut Grouping>,
        placeholders: bool,
    ) -> Result<Clauses> {
        let saved = std::mem::replace(&mut self.placeholders, placeholders.then_some(0));
        let r = self.bind_clauses_here(s, order_by, scope, grouping);
        let n = std::mem::replace(&mut self.placeholders, saved).unwrap_or(0);
        r.map(|c| Clauses {
            placeholders: n,
            ..c
        })
    }

    fn bind_clauses_here(
        &mut self,
        s: &ast::Select,
        order_by: &[ast::OrderByExpr],
        scope: &Scope,
        mut grouping: Option<&mut Grouping>,
    ) -> Result<Clauses> {
        // window functions may appear from here on: select list, QUALIFY, ORDER BY
        self.windows = Some(Vec::new());
        // select list
        // expr, name, title, alias
        let mut items: Vec<(Expr, String, Option<String>, Option<String>)> = Vec::new();
        // fractional digits of each TIME/TIMESTAMP item, as its type says (for display)
        let mut precisions: Vec<crate::ops::Display> = Vec::new();
        for item in &s.projection {
            match item {
                ast::SelectItem::Wildcard(_) | ast::SelectItem::QualifiedWildcard(..) => {
                    let want = match item {
                        ast::SelectItem::QualifiedWildcard(k, _) => {
                            Some(k.to_string().trim_end_matches(".*").to_ascii_uppercase())
                        }
                        _ => None,
                    };
                    for (i, c) in scope.columns.iter().enumerate() {
                        if want.as_ref().is_some_and(|w| {
                            !c.qualifier
                                .as_deref()
                                .is_some_and(|cq| crate::bind::qualifier_matches(cq, w))
                        }) {
                            continue;
                        }
                        let expr = match grouping.as_deref_mut() {
                            None => Expr::Column {
                                index: i,
                                case_specific: c.case_specific,
                            },
                            // grouped: each column must be a GROUP BY key (else 3504)
                            Some(g) => {
                                let name = ast::Ident::new(c.name.clone());
                                let e = match &c.qualifier {
                                    Some(q) => ast::Expr::CompoundIdentifier(vec![
                                        ast::Ident::new(q.clone()),
                                        name,
                                    ]),
                                    None => ast::Expr::Identifier(name),
                                };
                                self.bind_expr(&e, scope, Some(g))?
                            }
                        };
                        items.push((expr, c.name.clone(), c.title.clone(), None));
                        precisions.push(crate::ops::Display {
                            precision: c.precision,
                            format: c.format.clone(),
                            text: c.text,
                        });
                    }
                }
                ast::SelectItem::UnnamedExpr(e) => {
                    let bound = self.bind_item(e, &s.projection, scope, grouping.as_deref_mut())?;
                    let format = own_format(e, scope).or_else(|| self.count_format(e));
                    let (e, phrase_title) = peel_title(e);
                    let (name, title) = column_heading(&e, scope);
                    items.push((bound, name, phrase_title.or(title), None));
                    precisions.push(crate::ops::Display {
                        precision: time_precision(&e, scope),
                        format,
                        text: crate::text_type::text_type(&e, scope),
                    });
                }
                ast::SelectItem::ExprWithAlias { expr, alias } => {
                    let bound =
                        self.bind_item(expr, &s.projection, scope, grouping.as_deref_mut())?;
                    let (e, title) = peel_title(expr);
                    items.push((bound, alias.value.clone(), title, Some(alias.value.clone())));
                    precisions.push(crate::ops::Display {
                        precision: time_precision(&e, scope),
                        format: own_format(expr, scope).or_else(|| self.count_format(expr)),
                        text: crate::text_type::text_type(&e, scope),
                    });
                }
                other => return Err(Error::Unsupported(format!("the select item {other}"))),
            }
        }
        let qualify = match &s.qualify {
            // QUALIFY may name select-list aliases (`… AS rn QUALIFY rn = 1`)
            Some(q) => Some(self.bind_item(q, &s.projection, scope, grouping.as_deref_mut())?),
            None => None,
        };
        let windows = self.windows.take().unwrap_or_default();
        let having = match &s.having {
            // HAVING may name select-list aliases too (`SUM(v) AS total … HAVING total > 5`)
            Some(h) => Some(self.bind_item(h, &s.projection, scope, grouping.as_deref_mut())?),
            None => None,
        };
        let mut keys = Vec::new();
        self.windows = Some(windows);
        for ob in order_by {
            let expr = self.order_key(&ob.expr, &items, scope, grouping.as_deref_mut())?;
            let descending = matches!(ob.options.sort, Some(ast::OrderBySort::Desc));
            keys.push(SortKey {
                expr,
                descending,
                nulls_first: ob.options.nulls_first.unwrap_or(!descending),
            });
        }

        let windows = self.windows.take().unwrap_or_default();
        Ok(Clauses {
            items,
            precisions,
            qualify,
            having,
            keys,
            windows,
            placeholders: 0,
        })
    }

    /// GROUP BY keys `keys` bound over `scope` (the FROM rows), in order: what the rows are
    /// grouped by, and whether each is CASESPECIFIC (`Grouping::key_cs`).
    pub(crate) fn bind_group_keys(
        &mut self,
        keys: &[ast::Expr],
        scope: &Scope,
    ) -> Result<Vec<crate::expr::Expr>> {
        keys.iter()
            .map(|k| self.bind_expr(k, scope, None))
            .collect()
    }

    /// Binds the clauses of grouped query `s` again over `rows`, its aggregated batch, whose
    /// aggregate calls `g` collected: a correlated subquery now runs once per group, with the
    /// group's keys as its outer row. Returns the clauses and `rows` widened by the subqueries'
    /// columns.
    pub(crate) fn bind_over_groups(
        &mut self,
        s: &ast::Select,
        order_by: &[ast::OrderByExpr],
        scope: &Scope,
        g: &Grouping,
        rows: RecordBatch,
    ) -> Result<(Clauses, RecordBatch)> {
        let groups = self.group_scope(g, scope, rows.num_columns())?;
        let mut again = Grouping {
            keys: g.keys.clone(),
            calls: Vec::new(),
            flags: g.flags,
            key_cs: g.key_cs.clone(),
        };
        let (clauses, rows) = self
            .with_correlation(&groups, rows, |ex| {
                ex.bind_clauses(s, order_by, scope, Some(&mut again), false)
            })
            .map_err(|e| match e {
                // a column of the FROM rows that is no GROUP BY key
                Error::ColumnNotFound(n) if self.names_column(&n, scope) => Error::NotInGroup,
                e => e,
            })?;
        if format!("{:?}", again.calls) != format!("{:?}", g.calls) {
            return Err(Error::Internal(
                "a grouped query bound to other aggregates the second time".into(),
            ));
        }
        Ok((clauses, rows))
    }

    /// The scope of an aggregated batch `width` columns wide, as an outer row of a correlated
    /// subquery sees it: each GROUP BY key that is a column keeps that column's name; the
    /// other columns (expression keys, GROUPING flags, aggregates) can be named by no one.
    fn group_scope(&self, g: &Grouping, scope: &Scope, width: usize) -> Result<Scope> {
        let mut columns: Vec<ScopeColumn> = Vec::with_capacity(width);
        let mut named = Vec::new();
        for k in &g.keys {
            let mut k = k;
            while let ast::Expr::Nested(inner) = k {
                k = inner;
            }
            let (qualifier, name) = match k {
                ast::Expr::Identifier(id) => (None, &id.value),
                ast::Expr::CompoundIdentifier(parts) if parts.len() > 1 => {
                    let n = parts.len();
                    let q: Vec<&str> = parts[..n - 1].iter().map(|p| p.value.as_str()).collect();
                    (Some(q.join(".")), &parts[n - 1].value)
                }
                _ => {
                    columns.push(ScopeColumn::unnamed());
                    continue;
                }
            };
            // a column given as two keys (`GROUP BY a, t.a`) is named once
            columns.push(
                match scope.resolve_at(qualifier.as_deref(), name, self.home_database())? {
                    Some(i) if !named.contains(&i) => {
                        named.push(i);
                        scope.columns[i].clone()
                    }
                    _ => ScopeColumn::unnamed(),
                },
            );
        }
        columns.resize_with(width.max(columns.len()), ScopeColumn::unnamed);
        Ok(Scope { columns })
    }

    /// Binds a select item; it may name the list's aliases (`a AS k, k + 1`), as Teradata
    /// allows, where those names are no columns.
    pub(crate) fn bind_item(
        &mut self,
        e: &ast::Expr,
        projection: &[ast::SelectItem],
        scope: &Scope,
        mut grouping: Option<&mut Grouping>,
    ) -> Result<Expr> {
        resolving_aliases(e, projection, |e| {
            // a failed try leaves no aggregate, window or deferred subquery behind
            let calls = grouping.as_deref().map(|g| g.calls.len());
            let windows = self.windows.as_ref().map(Vec::len);
            let deferred = self.deferral.as_ref().map(|d| d.len());
            let r = self.bind_expr(e, scope, grouping.as_deref_mut());
            if r.is_err() {
                if let (Some(g), Some(n)) = (grouping.as_deref_mut(), calls) {
                    g.calls.truncate(n);
                }
                if let (Some(w), Some(n)) = (self.windows.as_mut(), windows) {
                    w.truncate(n);
                }
                if let (Some(d), Some(n)) = (self.deferral.as_mut(), deferred) {
                    d.truncate(n);
                }
            }
            r
        })
    }

    fn order_key(
        &mut self,
        e: &ast::Expr,
        items: &[Item],
        scope: &Scope,
        grouping: Option<&mut Grouping>,
    ) -> Result<Expr> {
        if let ast::Expr::Value(v) = e {
            if let ast::Value::Number(n, _) = &v.value {
                let k: usize = n
                    .parse()
                    .map_err(|_| Error::TypeMismatch(format!("ORDER BY {n}")))?;
                return items
                    .get(k.wrapping_sub(1))
                    .map(|i| i.0.clone())
                    .ok_or_else(|| {
                        Error::TypeMismatch(format!(
                            "ORDER BY position {k} is not in the select list"
                        ))
                    });
            }
        }
        if let ast::Expr::Identifier(id) = e {
            if let Some(i) = items.iter().find(|i| {
                i.3.as_deref()
                    .is_some_and(|a| a.eq_ignore_ascii_case(&id.value))
            }) {
                return Ok(i.0.clone());
            }
        }
        self.bind_expr(e, scope, grouping)
    }

    /// Block `s`'s grouping over `scope`: its GROUP BY keys as written and bound, its grouping
    /// sets, and whether it groups at all (a GROUP BY, a HAVING, an aggregate in the select
    /// list); the clauses are not bound yet.
    ///
    /// # Errors
    /// The keys' binding errors.
    pub(crate) fn block_grouping(
        &mut self,
        s: &ast::Select,
        scope: &Scope,
        sampled: bool,
    ) -> Result<BlockGroups> {
        let (group_keys, sets) = self.block_group_keys(s, scope)?;
        let grouped = !group_keys.is_empty()
            || sets.is_some()
            || s.having.is_some()
            || crate::bind::aggregates_listed(s);
        // SAMPLEID names the sample's number in a sampled block
        let sample_ids = std::mem::replace(&mut self.sample_ids, sampled);
        let key_exprs = match grouped {
            true => self.bind_group_keys(&group_keys, scope),
            false => Ok(Vec::new()),
        };
        self.sample_ids = sample_ids;
        let key_exprs = key_exprs?;
        let grouping = grouped.then(|| Grouping {
            keys: group_keys,
            calls: Vec::new(),
            flags: sets.is_some(),
            key_cs: key_exprs
                .iter()
                .map(crate::expr::Expr::case_specific)
                .collect(),
        });
        Ok(BlockGroups {
            grouping,
            key_exprs,
            sets,
        })
    }

    /// `f` given block `s`'s WHERE (`None` without one), tried again with a select-list alias
    /// put in for a name that resolves to nothing (`names::resolving_aliases`: WHERE may
    /// name aliases, as Teradata allows), with `Exec::names_read` set as
    /// [`Exec::reading_names`] sets it.
    ///
    /// # Errors
    /// `f`'s.
    pub(crate) fn with_where<T>(
        &mut self,
        s: &ast::Select,
        order_by: &[ast::OrderByExpr],
        mut f: impl FnMut(&mut Self, Option<&ast::Expr>) -> Result<T>,
    ) -> Result<T> {
        self.reading_names(s, order_by, |ex| match &s.selection {
            Some(w) => resolving_aliases(w, &s.projection, |w| {
                // (a failed try leaves no deferred subquery behind)
                let deferred = ex.deferral.as_ref().map(|d| d.len());
                let r = f(ex, Some(w));
                if let (true, Some(d), Some(n)) = (r.is_err(), ex.deferral.as_mut(), deferred) {
                    d.truncate(n);
                }
                r
            }),
            None => f(ex, None),
        })
    }

    /// `f` run with `Exec::names_read` set to the names block `s` (with `order_by`) may read,
    /// so its base tables are read with only those columns.
    pub(crate) fn reading_names<T>(
        &mut self,
        s: &ast::Select,
        order_by: &[ast::OrderByExpr],
        f: impl FnOnce(&mut Self) -> T,
    ) -> T {
        let names = crate::names::names_read(s, order_by);
        let saved = std::mem::replace(&mut self.names_read, names);
        let r = f(self);
        self.names_read = saved;
        r
    }

    /// Block `s`'s WHERE (`None` without one) bound over the `scope` of its one base table,
    /// as [`Exec::with_where`] binds it (a select-list alias put in for a name that resolves
    /// to nothing).
    ///
    /// # Errors
    /// Its binding errors.
    pub(crate) fn bind_table_where(
        &mut self,
        s: &ast::Select,
        order_by: &[ast::OrderByExpr],
        scope: &Scope,
    ) -> Result<Option<Expr>> {
        self.with_where(s, order_by, |ex, w| {
            w.map(|w| ex.bind_expr(w, scope, None)).transpose()
        })
    }

    /// Block `s`'s grouping ([`Exec::block_grouping`]) and clauses
    /// ([`Exec::bind_block_clauses`]), bound over `scope` before any row is read: the one
    /// binding of a block's clauses where its FROM's columns are known unread, for the query
    /// (query.rs `bind_before_read`, which kept plans and EXPLAIN bind by too).
    ///
    /// # Errors
    /// Binding errors.
    pub(crate) fn bind_grouped_clauses(
        &mut self,
        s: &ast::Select,
        order_by: &[ast::OrderByExpr],
        scope: &Scope,
        sampled: bool,
    ) -> Result<(BlockGroups, Clauses)> {
        let mut groups = self.block_grouping(s, scope, sampled)?;
        let bound = self.bind_block_clauses(s, order_by, scope, &mut groups, sampled)?;
        Ok((groups, bound))
    }

    /// Block `s`'s clauses bound over `scope`, finding `groups`' aggregate calls; in a
    /// grouped block a correlated subquery is left as a placeholder.
    pub(crate) fn bind_block_clauses(
        &mut self,
        s: &ast::Select,
        order_by: &[ast::OrderByExpr],
        scope: &Scope,
        groups: &mut BlockGroups,
        sampled: bool,
    ) -> Result<Clauses> {
        // SAMPLEID names the sample's number in a sampled block
        let sample_ids = std::mem::replace(&mut self.sample_ids, sampled);
        let grouped = groups.grouping.is_some();
        let bound = self.bind_clauses(s, order_by, scope, groups.grouping.as_mut(), grouped);
        self.sample_ids = sample_ids;
        bound
    }

    /// The GROUP BY keys of block `s` over `scope`, as expressions (`GROUP BY 1` names the first
    /// select-list expression; an alias that is no column, its expression), and the grouping
    /// sets they expand to (`None` for a plain GROUP BY).
    ///
    /// # Errors
    /// 9913 for a position that names no select-list expression; GROUP BY ALL / WITH ROLLUP.
    pub(crate) fn block_group_keys(
        &self,
        s: &ast::Select,
        scope: &Scope,
    ) -> Result<crate::grouping_sets::Expanded> {
        let (group_keys, sets) = match &s.group_by {
            ast::GroupByExpr::Expressions(v, m) if m.is_empty() => crate::grouping_sets::expand(v)?,
            _ => return Err(Error::Unsupported("GROUP BY ALL / WITH ROLLUP".into())),
        };
        // GROUP BY 1 names the first select-list expression, as in Teradata.
        let group_keys = group_keys
            .into_iter()
            .map(|k| match &k {
                ast::Expr::Value(v) => match &v.value {
                    ast::Value::Number(n, _) => {
                        let pos: usize = n.parse().unwrap_or(0);
                        match s.projection.get(pos.wrapping_sub(1)) {
                            Some(ast::SelectItem::UnnamedExpr(e))
                            | Some(ast::SelectItem::ExprWithAlias { expr: e, .. }) => Ok(e.clone()),
                            _ => Err(Error::TypeMismatch(format!(
                                "GROUP BY {n} does not name a select-list expression"
                            ))),
                        }
                    }
                    _ => Ok(k.clone()),
                },
                // a select-list alias that is no column names its expression, as Teradata
                // allows (`SEL EXTRACT(YEAR FROM d) AS y, COUNT(*) FROM t GROUP BY y`)
                ast::Expr::Identifier(id) if matches!(scope.resolve(None, &id.value), Ok(None)) => {
                    Ok(s.projection
                        .iter()
                        .find_map(|item| match item {
                            ast::SelectItem::ExprWithAlias { expr, alias }
                                if alias.value.eq_ignore_ascii_case(&id.value) =>
                            {
                                Some(expr.clone())
                            }
                            _ => None,
                        })
                        .unwrap_or_else(|| k.clone()))
                }
                _ => Ok(k.clone()),
            })
            .collect::<Result<Vec<_>>>()?;
        Ok((group_keys, sets))
    }
}

/// A block's grouping, bound over its FROM's scope ([`Exec::block_grouping`]).
pub(crate) struct BlockGroups {
    /// The grouping of a grouped block: its keys as written, its aggregate calls (found as
    /// the clauses are bound).
    pub(crate) grouping: Option<Grouping>,
    /// The GROUP BY keys as bound.
    pub(crate) key_exprs: Vec<crate::expr::Expr>,
    /// The grouping sets (`None` for a plain GROUP BY).
    pub(crate) sets: Option<Vec<u64>>,
}
