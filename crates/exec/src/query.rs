//! SELECT: read (an index or a scan for one table, `join.rs` for several) → WHERE → GROUP
//! BY/aggregates → HAVING → window functions → QUALIFY → SAMPLE → ORDER BY → select list →
//! DISTINCT → TOP n. Each step is an Arrow kernel over record batches (`filter_record_batch`,
//! `lexsort_to_indices`, `take`); grouping hashes Teradata-normalised keys.
//!
//! Invariant: a browse never waits and never consumes; it reads the rows visible to the
//! statement's snapshot (committed rows plus the transaction's own changes).

use crate::bind::{has_aggregate, AggCall, AggFunc, Grouping, Scope, ScopeColumn};
use crate::error::{Error, Result};
use crate::exec::Exec;
use crate::expr::Expr;
use crate::result::Rows;
use arrow::array::{Array, ArrayRef, AsArray, BooleanArray, UInt32Array, UInt64Array};
use arrow::compute::{
    concat_batches, filter_record_batch, lexsort_to_indices, take, SortColumn, SortOptions,
};
use arrow::datatypes::{DataType, Field, Schema};
use arrow::record_batch::{RecordBatch, RecordBatchOptions};
use sqlparser::ast;
use std::collections::HashMap;
use std::sync::Arc;
use tdlite_storage::table::Table;
use tdlite_storage::types::{
    compare_values, normalize_for_key, value_at, values_to_array, RowKey, SqlType, Value,
};

/// Storage type that holds values of an Arrow type (for building arrays from values).
pub fn sql_type_of(dt: &DataType) -> SqlType {
    match dt {
        DataType::Int8 => SqlType::ByteInt,
        DataType::Int16 => SqlType::SmallInt,
        DataType::Int32 | DataType::Null => SqlType::Integer,
        DataType::Int64 => SqlType::BigInt,
        DataType::Decimal128(p, s) => SqlType::Decimal(*p, *s),
        DataType::Float64 => SqlType::Float,
        DataType::Date32 => SqlType::Date,
        DataType::Time64(_) => SqlType::Time(6),
        DataType::Timestamp(..) => SqlType::Timestamp(6),
        DataType::Binary => SqlType::VarByte(u32::MAX),
        _ => SqlType::VarChar(u32::MAX),
    }
}

/// A one-row batch with no columns: the input of `SELECT 1` and of `VALUES` expressions.
pub fn single_row() -> RecordBatch {
    RecordBatch::try_new_with_options(
        Arc::new(Schema::empty()),
        vec![],
        &RecordBatchOptions::new().with_row_count(Some(1)),
    )
    .expect("an empty schema with one row is valid")
}

/// `batch` with `extra` columns (name, values; as many values as it has rows) after its own.
pub(crate) fn with_columns(
    batch: &RecordBatch,
    extra: impl IntoIterator<Item = (String, ArrayRef)>,
) -> Result<RecordBatch> {
    let mut fields: Vec<Field> = batch
        .schema()
        .fields()
        .iter()
        .map(|f| f.as_ref().clone())
        .collect();
    let mut cols = batch.columns().to_vec();
    for (name, a) in extra {
        fields.push(Field::new(name, a.data_type().clone(), true));
        cols.push(a);
    }
    Ok(RecordBatch::try_new_with_options(
        Arc::new(Schema::new(fields)),
        cols,
        &RecordBatchOptions::new().with_row_count(Some(batch.num_rows())),
    )?)
}

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

/// One ORDER BY key.
#[derive(Debug, Clone)]
pub(crate) struct SortKey {
    pub(crate) expr: Expr,
    pub(crate) descending: bool,
    pub(crate) nulls_first: bool,
}

impl Exec<'_> {
    /// Scans a table as one batch of visible rows, with their row ids.
    pub fn scan_table(&self, table: &Table) -> Result<(RecordBatch, UInt64Array)> {
        let parts = table.scan(self.snapshot());
        let batch = concat_batches(&table.schema.arrow, parts.iter().map(|p| &p.batch))?;
        let mut ids = Vec::with_capacity(parts.iter().map(|p| p.row_ids.len()).sum());
        for p in &parts {
            ids.extend_from_slice(p.row_ids.values());
        }
        let ids = UInt64Array::from(ids);
        Ok((batch, ids))
    }

    /// The catalog name of a table as written: an unqualified name is in the session's
    /// default database (`DATABASE x`), if one was set.
    ///
    /// A name qualified by the session's user (`tdlite.t`) is the unqualified one: the user's
    /// own database holds the tables made without a database, as Teradata's logon user
    /// database does.
    pub fn table_name(&self, name: &ast::ObjectName) -> String {
        let n = tdlite_parser::object_name_string(name);
        match (self.database, name.0.len()) {
            (Some(db), 1) => format!("{db}.{n}"),
            (_, 2) => match n.split_once('.') {
                Some((db, bare)) if db.eq_ignore_ascii_case(self.user) => bare.to_string(),
                _ => n,
            },
            _ => n,
        }
    }

    /// Looks up a table; 3807 if it does not exist. An unqualified name is looked for in the
    /// default database first, then among the tables created without one (a tdlite rule:
    /// tables made before `DATABASE x` stay reachable).
    pub fn must_get_table(&self, name: &ast::ObjectName) -> Result<Arc<Table>> {
        let t = self.must_get_object(name)?;
        if t.schema.macro_def.is_some() {
            return Err(Error::NotATable(t.schema.name.clone()));
        }
        Ok(t)
    }

    /// Looks up any catalog entry, a macro too (see [`Exec::must_get_table`]). An unqualified
    /// name (or one qualified by the logon user) is also this session's volatile table of
    /// that name; found both ways (a permanent table of the default database and a volatile
    /// one), it is ambiguous (3806), as in Teradata.
    pub(crate) fn must_get_object(&self, name: &ast::ObjectName) -> Result<Arc<Table>> {
        let n = self.table_name(name);
        let catalog = &self.shared.storage.catalog;
        // the common case first: no volatile table anywhere, the name as resolved is there
        if !catalog.has_volatile() {
            if let Some(t) = catalog.get_table(&n) {
                return Ok(t);
            }
        }
        let written = tdlite_parser::object_name_string(name);
        let permanent = catalog.get_table(&n).or_else(|| {
            // unqualified: also among the tables made without a database; qualified by
            // the user: also as stored by tdlite before it read that as unqualified
            (self.database.is_some() || written != n)
                .then(|| catalog.get_table(&written))
                .flatten()
        });
        let volatile = match written.split_once('.') {
            _ if !catalog.has_volatile() => None,
            None => catalog.get_volatile(self.session, &written),
            Some((db, bare)) if db.eq_ignore_ascii_case(self.user) => {
                catalog.get_volatile(self.session, bare)
            }
            Some(_) => None,
        };
        match (permanent, volatile) {
            (Some(p), Some(_)) => Err(Error::AmbiguousTable(p.schema.name.clone())),
            (None, Some(t)) => {
                self.volatile_uses.set(self.volatile_uses.get() + 1);
                Ok(t)
            }
            (Some(t), None) => Ok(t),
            (None, None) => Err(Error::ObjectNotFound(if name.0.len() == 2 {
                written
            } else {
                n
            })),
        }
    }

    /// The rows of a FROM clause, filtered by the WHERE clause.
    fn source(
        &mut self,
        from: &[ast::TableWithJoins],
        selection: Option<&ast::Expr>,
        min_max: Option<&[crate::access::MinMaxCall]>,
    ) -> Result<(Scope, RecordBatch)> {
        if let Some(w) = selection {
            if has_aggregate(w) {
                return Err(Error::TypeMismatch(
                    "aggregates are not allowed in WHERE".into(),
                ));
            }
        }
        if let [one] = from {
            if one.joins.is_empty() {
                if let Some(read) = self.indexed_source(&one.relation, selection, min_max)? {
                    return Ok(read);
                }
            }
        }
        let (scope, input) = match from {
            [] => (Scope::default(), single_row()),
            [one] if one.joins.is_empty() => self.relation(&one.relation)?,
            several => return self.joined_source(several, selection),
        };
        match selection {
            Some(w) => {
                let input = self.filter_correlated(&scope, input, std::slice::from_ref(w))?;
                Ok((scope, input))
            }
            None => Ok((scope, input)),
        }
    }

    /// Runs a query and returns its rows.
    ///
    /// # Errors
    /// Binding errors (3807, 3810, 3822, 3504) and evaluation errors (2616, 2618, …).
    pub fn run_query(&mut self, q: &ast::Query) -> Result<Rows> {
        self.isolated(|ex| ex.run_query_here(q))
    }

    /// Runs `f` (a query inside the clause being bound) without the enclosing query's binding
    /// context (correlation batch, window calls, placeholders), which it must neither see
    /// nor lose.
    pub(crate) fn isolated<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        let saved_recording = self.recording.get_mut().take().map(|mut r| {
            r.queries += 1;
            r
        });
        let saved = self.corr.take();
        let saved_windows = self.windows.take();
        let saved_placeholders = self.placeholders.take();
        let result = f(self);
        self.corr = saved;
        self.windows = saved_windows;
        self.placeholders = saved_placeholders;
        *self.recording.get_mut() = saved_recording;
        result
    }

    fn run_query_here(&mut self, q: &ast::Query) -> Result<Rows> {
        if let Some(with) = &q.with {
            return self.run_with(with, q);
        }
        if q.limit_clause.is_some() || q.fetch.is_some() {
            return Err(Error::Unsupported("LIMIT/FETCH (use TOP n)".into()));
        }
        let order_by: &[ast::OrderByExpr] = match &q.order_by {
            None => &[],
            Some(ast::OrderBy {
                kind: ast::OrderByKind::Expressions(v),
                ..
            }) => v,
            Some(_) => return Err(Error::Unsupported("ORDER BY ALL".into())),
        };
        match q.body.as_ref() {
            ast::SetExpr::Select(s) => self.run_select(s, order_by),
            ast::SetExpr::Query(inner) if q.order_by.is_none() => self.run_query(inner),
            body @ ast::SetExpr::SetOperation { .. } => self.run_set_query(body, order_by),
            other => Err(Error::Unsupported(format!("the query form {other}"))),
        }
    }

    pub(crate) fn run_select(
        &mut self,
        s: &ast::Select,
        order_by: &[ast::OrderByExpr],
    ) -> Result<Rows> {
        self.isolated(|ex| ex.run_select_here(s, order_by))
    }

    fn run_select_here(&mut self, s: &ast::Select, order_by: &[ast::OrderByExpr]) -> Result<Rows> {
        if order_by.is_empty() {
            if let Some(rows) = self.cached_select(s)? {
                return Ok(rows);
            }
            if let Some(rows) = self.streamed_select(s)? {
                return Ok(rows);
            }
        }
        // SAMPLE on a one-table FROM samples the result (see sample.rs)
        let (sample, from) = match s.from.as_slice() {
            [one] if one.joins.is_empty() => match crate::sample::of_table(&one.relation)? {
                Some(sample) => {
                    self.random_uses += 1;
                    let mut one = one.clone();
                    if let ast::TableFactor::Table { sample, .. }
                    | ast::TableFactor::Derived { sample, .. } = &mut one.relation
                    {
                        *sample = None;
                    }
                    (Some(sample), std::borrow::Cow::Owned(vec![one]))
                }
                None => (None, std::borrow::Cow::Borrowed(&s.from)),
            },
            _ => (None, std::borrow::Cow::Borrowed(&s.from)),
        };
        let min_max = crate::access::min_max_calls(s);
        let (scope, input) = match &s.selection {
            // WHERE may name select-list aliases, as Teradata allows
            Some(w) => resolving_aliases(w, &s.projection, |w| {
                self.source(&from, Some(w), min_max.as_deref())
            })?,
            None => self.source(&from, None, min_max.as_deref())?,
        };
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
                _ => Ok(k.clone()),
            })
            .collect::<Result<Vec<_>>>()?;
        let grouped = !group_keys.is_empty()
            || sets.is_some()
            || s.having.is_some()
            || s.projection.iter().any(|i| match i {
                ast::SelectItem::UnnamedExpr(e)
                | ast::SelectItem::ExprWithAlias { expr: e, .. } => has_aggregate(e),
                _ => false,
            });
        let mut grouping = grouped.then(|| Grouping {
            keys: group_keys.clone(),
            calls: Vec::new(),
            flags: sets.is_some(),
        });
        // without GROUP BY the select list and ORDER BY are bound over the filtered rows, so a
        // correlated subquery there can run per row (see `correlate`); with GROUP BY, over the
        // groups once they are known (below)
        let mut input = input;
        let corr_saved = (!grouped).then(|| self.begin_correlation(&scope, input.clone()));
        let bound = self.bind_clauses(s, order_by, &scope, grouping.as_mut(), grouped);
        if let Some(saved) = corr_saved {
            input = self.end_correlation(saved)?;
        }
        let bound = bound?;
        // aggregate
        let rows = match &grouping {
            Some(g) => {
                let key_exprs = g
                    .keys
                    .iter()
                    .map(|k| self.bind_expr(k, &scope, None))
                    .collect::<Result<Vec<_>>>()?;
                match &sets {
                    Some(masks) => {
                        crate::grouping_sets::aggregate_sets(&input, &key_exprs, &g.calls, masks)?
                    }
                    None => aggregate(&input, &key_exprs, &g.calls)?,
                }
            }
            None => input,
        };
        // a grouped query's correlated subqueries run per group: its clauses bound again
        let (bound, mut rows) = match &grouping {
            Some(g) if bound.placeholders > 0 => {
                self.bind_over_groups(s, order_by, &scope, g, rows)?
            }
            _ => (bound, rows),
        };
        let crate::clauses::Clauses {
            items,
            precisions,
            qualify,
            having,
            keys,
            windows,
            ..
        } = bound;
        if let Some(h) = &having {
            rows = filter_by(&rows, h)?;
        }
        if !windows.is_empty() {
            rows = crate::window::append(&rows, &windows)?;
        }
        if let Some(q) = &qualify {
            rows = filter_by(&rows, q)?;
        }
        if let Some(sample) = sample {
            rows = crate::sample::apply(&rows, &sample)?;
        }
        if !keys.is_empty() {
            // TOP n (no PERCENT, WITH TIES or DISTINCT) needs only the first n in order
            let limit = match (&s.top, &s.distinct) {
                (
                    Some(ast::Top {
                        quantity: Some(ast::TopQuantity::Constant(n)),
                        percent: false,
                        with_ties: false,
                    }),
                    None,
                ) => usize::try_from(*n).ok(),
                _ => None,
            };
            let idx = sort_indices(&rows, &keys, limit)?;
            rows = crate::expr::take_batch(&rows, &idx)?;
        }
        // project
        let mut out = project(&items, &precisions, &rows)?;
        let schema = out.schema();
        if matches!(s.distinct, Some(ast::Distinct::Distinct)) {
            out = distinct(
                &out,
                &items
                    .iter()
                    .map(|i| i.0.case_specific())
                    .collect::<Vec<_>>(),
            )?;
        }
        if let Some(top) = &s.top {
            out = self.apply_top(top, out, &rows, &keys)?;
        }
        Ok(Rows {
            schema,
            batches: vec![out],
        })
    }

    fn apply_top(
        &mut self,
        top: &ast::Top,
        out: RecordBatch,
        sorted_input: &RecordBatch,
        keys: &[SortKey],
    ) -> Result<RecordBatch> {
        let n = match &top.quantity {
            Some(ast::TopQuantity::Constant(n)) => *n as f64,
            Some(ast::TopQuantity::Expr(e)) => {
                let a = self
                    .bind_expr(e, &Scope::default(), None)?
                    .eval(&single_row())?;
                match value_at(a.as_ref(), 0) {
                    Value::Int(i) => i as f64,
                    Value::Decimal(d, s) => d as f64 / 10f64.powi(s as i32),
                    Value::Float(f) => f,
                    _ => return Err(Error::TypeMismatch("TOP needs a number".into())),
                }
            }
            None => return Err(Error::TypeMismatch("TOP needs a number".into())),
        };
        let total = out.num_rows();
        let mut take_n = if top.percent {
            ((n * total as f64) / 100.0).ceil() as usize
        } else {
            n.max(0.0) as usize
        };
        take_n = take_n.min(total);
        if top.with_ties
            && take_n > 0
            && !keys.is_empty()
            && out.num_rows() == sorted_input.num_rows()
        {
            let key_vals: Vec<ArrayRef> = keys
                .iter()
                .map(|k| k.expr.eval(sorted_input))
                .collect::<Result<_>>()?;
            let row_key = |i: usize| {
                RowKey(
                    key_vals
                        .iter()
                        .map(|a| normalize_for_key(&value_at(a.as_ref(), i), false))
                        .collect(),
                )
            };
            let last = row_key(take_n - 1);
            while take_n < total && row_key(take_n) == last {
                take_n += 1;
            }
        }
        Ok(out.slice(0, take_n))
    }
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

/// True for the types whose values have fractional seconds.
fn is_time(t: &DataType) -> bool {
    matches!(t, DataType::Time64(_) | DataType::Timestamp(..))
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

/// The select list `items` (with each TIME/TIMESTAMP item's display precision) evaluated over
/// `rows`: names, TITLEs, CASESPECIFIC and precision go into the fields' metadata.
pub(crate) fn project(
    items: &[crate::clauses::Item],
    precisions: &[Option<u8>],
    rows: &RecordBatch,
) -> Result<RecordBatch> {
    let mut fields = Vec::with_capacity(items.len());
    let mut arrays = Vec::with_capacity(items.len());
    for ((expr, name, title, _), precision) in items.iter().zip(precisions) {
        let a = expr.eval(rows)?;
        let a = if a.data_type() == &DataType::Null {
            arrow::array::new_null_array(&DataType::Int32, a.len())
        } else {
            a
        };
        let mut f = Field::new(name, a.data_type().clone(), true);
        let mut meta = std::collections::HashMap::new();
        if let Some(t) = title {
            meta.insert("title".to_string(), t.clone());
        }
        if expr.case_specific() {
            // a derived table over this query compares the column case-specifically too
            meta.insert("casespecific".to_string(), "Y".to_string());
        }
        if let Some(p) = precision.filter(|_| is_time(a.data_type())) {
            meta.insert("precision".to_string(), p.to_string());
        }
        if !meta.is_empty() {
            f = f.with_metadata(meta);
        }
        fields.push(f);
        arrays.push(a);
    }
    Ok(RecordBatch::try_new_with_options(
        Arc::new(Schema::new(fields)),
        arrays,
        &RecordBatchOptions::new().with_row_count(Some(rows.num_rows())),
    )?)
}

/// Keeps the rows where `cond` is true (NULL counts as false).
pub fn filter_by(batch: &RecordBatch, cond: &Expr) -> Result<RecordBatch> {
    let mask = cond.eval(batch)?;
    let mask = mask
        .as_boolean_opt()
        .ok_or_else(|| Error::TypeMismatch("the condition is not true/false".into()))?;
    if mask.null_count() == 0 && mask.true_count() == mask.len() {
        return Ok(batch.clone()); // every row passes: nothing to copy
    }
    Ok(filter_record_batch(batch, mask)?)
}

/// Row mask of `cond` (NULL → false).
pub fn mask_of(batch: &RecordBatch, cond: &Expr) -> Result<BooleanArray> {
    let mask = cond.eval(batch)?;
    let b = mask
        .as_boolean_opt()
        .ok_or_else(|| Error::TypeMismatch("the condition is not true/false".into()))?;
    Ok(b.iter().map(|v| Some(v == Some(true))).collect())
}

pub(crate) fn sort_batch(batch: &RecordBatch, keys: &[SortKey]) -> Result<RecordBatch> {
    let idx = sort_indices(batch, keys, None)?;
    crate::expr::take_batch(batch, &idx)
}

/// The row order `keys` give (character keys by Teradata's rules), as row indices; with
/// `limit`, only the first `limit` of them.
pub(crate) fn sort_indices(
    batch: &RecordBatch,
    keys: &[SortKey],
    limit: Option<usize>,
) -> Result<Vec<u32>> {
    let mut cols = Vec::with_capacity(keys.len());
    for k in keys {
        let mut v = k.expr.eval(batch)?;
        if v.data_type() == &DataType::Utf8 && !k.expr.case_specific() {
            let s = v.as_string::<i32>();
            v = Arc::new(arrow::array::StringArray::from_iter(
                s.iter()
                    .map(|x| x.map(|x| x.trim_end_matches(' ').to_uppercase())),
            ));
        }
        if v.data_type() == &DataType::Null {
            continue;
        }
        cols.push(SortColumn {
            values: v,
            options: Some(SortOptions {
                descending: k.descending,
                nulls_first: k.nulls_first,
            }),
        });
    }
    if cols.is_empty() {
        let n = limit.map_or(batch.num_rows(), |l| l.min(batch.num_rows()));
        return Ok((0..n as u32).collect());
    }
    Ok(lexsort_to_indices(&cols, limit)?.values().to_vec())
}

/// Each row's comparison key by DISTINCT's rules (trailing blanks ignored, case-blind unless
/// CASESPECIFIC, NULLs equal).
pub(crate) fn row_keys(batch: &RecordBatch, case_specific: &[bool]) -> Vec<RowKey> {
    (0..batch.num_rows())
        .map(|i| {
            RowKey(
                batch
                    .columns()
                    .iter()
                    .zip(case_specific)
                    .map(|(c, cs)| normalize_for_key(&value_at(c.as_ref(), i), *cs))
                    .collect(),
            )
        })
        .collect()
}

fn distinct(batch: &RecordBatch, case_specific: &[bool]) -> Result<RecordBatch> {
    let mut seen = std::collections::HashSet::new();
    let keep: Vec<u32> = row_keys(batch, case_specific)
        .into_iter()
        .enumerate()
        .filter(|(_, k)| seen.insert(k.clone()))
        .map(|(i, _)| i as u32)
        .collect();
    crate::expr::take_batch(batch, &keep)
}

/// GROUP BY: one output row per distinct key (one row in all when there are no keys), with
/// the key columns first and one column per aggregate call.
pub(crate) fn aggregate(
    input: &RecordBatch,
    keys: &[Expr],
    calls: &[AggCall],
) -> Result<RecordBatch> {
    let key_arrays = keys
        .iter()
        .map(|k| k.eval(input))
        .collect::<Result<Vec<_>>>()?;
    let n = input.num_rows();
    // each row's group, numbered in order of first appearance
    let mut group_of: Vec<u32> = Vec::with_capacity(n);
    let mut groups = 0u32;
    let ints = match key_arrays.as_slice() {
        [a] => crate::expr::int_values(a),
        _ => None,
    };
    if keys.is_empty() {
        // no GROUP BY: one group of every row (also of none)
        group_of.resize(n, 0);
        groups = 1;
    } else if let Some(ints) = ints {
        // one integer key: the group of each row by its i64, no key value built
        let mut slot: foldhash::HashMap<Option<i64>, u32> = Default::default();
        for v in ints.iter() {
            let g = *slot.entry(*v).or_insert_with(|| {
                groups += 1;
                groups - 1
            });
            group_of.push(g);
        }
    } else {
        let mut slot: HashMap<RowKey, u32> = HashMap::new();
        for i in 0..n {
            let k = RowKey(
                key_arrays
                    .iter()
                    .zip(keys)
                    .map(|(a, e)| normalize_for_key(&value_at(a.as_ref(), i), e.case_specific()))
                    .collect(),
            );
            let g = *slot.entry(k).or_insert_with(|| {
                groups += 1;
                groups - 1
            });
            group_of.push(g);
        }
    }
    // the rows of each group, in row order, one after another (`rows[start[g]..start[g + 1]]`)
    let mut start = vec![0usize; groups as usize + 1];
    for &g in &group_of {
        start[g as usize + 1] += 1;
    }
    for g in 0..groups as usize {
        start[g + 1] += start[g];
    }
    let mut next = start.clone();
    let mut rows = vec![0u32; n];
    for (i, &g) in group_of.iter().enumerate() {
        rows[next[g as usize]] = i as u32;
        next[g as usize] += 1;
    }
    let group_rows: Vec<&[u32]> = (0..groups as usize)
        .map(|g| &rows[start[g]..start[g + 1]])
        .collect();
    let mut fields = Vec::new();
    let mut arrays: Vec<ArrayRef> = Vec::new();
    for (k, a) in key_arrays.iter().enumerate() {
        let firsts = UInt32Array::from(group_rows.iter().map(|r| r[0]).collect::<Vec<_>>());
        let col = take(a.as_ref(), &firsts, None)?;
        fields.push(Field::new(format!("k{k}"), col.data_type().clone(), true));
        arrays.push(col);
    }
    for (k, call) in calls.iter().enumerate() {
        let arg = call.arg.as_ref().map(|e| e.eval(input)).transpose()?;
        let col = aggregate_call(call, arg.as_ref(), group_rows.iter().copied())?;
        fields.push(Field::new(format!("a{k}"), col.data_type().clone(), true));
        arrays.push(col);
    }
    Ok(RecordBatch::try_new_with_options(
        Arc::new(Schema::new(fields)),
        arrays,
        &RecordBatchOptions::new().with_row_count(Some(group_rows.len())),
    )?)
}

pub(crate) fn aggregate_call<'g>(
    call: &AggCall,
    arg: Option<&ArrayRef>,
    groups: impl Iterator<Item = &'g [u32]>,
) -> Result<ArrayRef> {
    let in_type = arg
        .map(|a| a.data_type().clone())
        .unwrap_or(DataType::Int32);
    let out_type = match (call.func, &in_type) {
        (AggFunc::Count, _) => SqlType::Integer,
        (
            AggFunc::Avg
            | AggFunc::StddevSamp
            | AggFunc::StddevPop
            | AggFunc::VarSamp
            | AggFunc::VarPop,
            _,
        ) => SqlType::Float,
        (AggFunc::Sum, DataType::Decimal128(_, s)) => SqlType::Decimal(38, *s),
        (AggFunc::Sum, DataType::Float64) => SqlType::Float,
        (
            AggFunc::Sum,
            DataType::Int8 | DataType::Int16 | DataType::Int32 | DataType::Int64 | DataType::Null,
        ) => SqlType::BigInt,
        (AggFunc::Sum, t) => return Err(Error::TypeMismatch(format!("SUM of {t}"))),
        (AggFunc::Min | AggFunc::Max, t) => sql_type_of(t),
    };
    let cs = call.arg.as_ref().is_some_and(Expr::case_specific);
    let mut out = Vec::new();
    // COUNT(*): the group sizes
    if arg.is_none() && call.func == AggFunc::Count {
        let counts: Vec<Value> = groups.map(|rows| Value::Int(rows.len() as i64)).collect();
        return Ok(values_to_array(out_type, counts.iter()));
    }
    // an integer argument without DISTINCT: read the array directly, no `Value` per row
    if let (Some(ints), false) = (arg.and_then(crate::expr::int_values), call.distinct) {
        for rows in groups {
            let vals = rows.iter().filter_map(|&i| ints[i as usize]);
            out.push(match call.func {
                AggFunc::Count => Value::Int(vals.count() as i64),
                AggFunc::Sum => {
                    let mut acc: Option<i64> = None;
                    for v in vals {
                        acc = Some(acc.unwrap_or(0).checked_add(v).ok_or(Error::Overflow)?);
                    }
                    acc.map_or(Value::Null, Value::Int)
                }
                AggFunc::Min => vals.min().map_or(Value::Null, Value::Int),
                AggFunc::Max => vals.max().map_or(Value::Null, Value::Int),
                AggFunc::Avg => {
                    let (n, total) = vals.fold((0usize, 0f64), |(n, t), v| (n + 1, t + v as f64));
                    if n == 0 {
                        Value::Null
                    } else {
                        Value::Float(total / n as f64)
                    }
                }
                f => spread(f, &vals.map(|v| v as f64).collect::<Vec<_>>()),
            });
        }
        return Ok(values_to_array(out_type, out.iter()));
    }
    for rows in groups {
        let mut vals: Vec<Value> = match arg {
            None => rows.iter().map(|_| Value::Int(1)).collect(),
            Some(a) => rows
                .iter()
                .map(|&i| value_at(a.as_ref(), i as usize))
                .filter(|v| !v.is_null())
                .collect(),
        };
        if call.distinct {
            let mut seen = HashMap::new();
            vals.retain(|v| {
                seen.insert(RowKey(vec![normalize_for_key(v, false)]), ())
                    .is_none()
            });
        }
        out.push(match call.func {
            AggFunc::Count => Value::Int(vals.len() as i64),
            _ if vals.is_empty() => Value::Null,
            // characters compare by Teradata's rules (trailing blanks, case unless CS); the
            // value returned is the original one
            AggFunc::Min => vals
                .into_iter()
                .min_by(|a, b| compare_values(&normalize_for_key(a, cs), &normalize_for_key(b, cs)))
                .unwrap_or(Value::Null),
            AggFunc::Max => vals
                .into_iter()
                .max_by(|a, b| compare_values(&normalize_for_key(a, cs), &normalize_for_key(b, cs)))
                .unwrap_or(Value::Null),
            AggFunc::Sum => sum(&vals)?,
            AggFunc::Avg => {
                let n = vals.len() as f64;
                let total: f64 = vals.iter().map(as_f64).sum();
                Value::Float(total / n)
            }
            f => spread(f, &vals.iter().map(as_f64).collect::<Vec<_>>()),
        });
    }
    Ok(values_to_array(out_type, out.iter()))
}

/// STDDEV_SAMP, STDDEV_POP, VAR_SAMP or VAR_POP of `vals` (NULLs already left out): two
/// passes, the mean first, so large values with a small spread keep their precision.
fn spread(f: AggFunc, vals: &[f64]) -> Value {
    let n = vals.len() as f64;
    let sample = matches!(f, AggFunc::StddevSamp | AggFunc::VarSamp);
    if vals.is_empty() || sample && vals.len() < 2 {
        return Value::Null;
    }
    let mean = vals.iter().sum::<f64>() / n;
    let squares: f64 = vals.iter().map(|v| (v - mean) * (v - mean)).sum();
    let variance = squares / if sample { n - 1.0 } else { n };
    Value::Float(match f {
        AggFunc::StddevSamp | AggFunc::StddevPop => variance.sqrt(),
        _ => variance,
    })
}

fn as_f64(v: &Value) -> f64 {
    match v {
        Value::Int(i) => *i as f64,
        Value::Decimal(d, s) => *d as f64 / 10f64.powi(*s as i32),
        Value::Float(f) => *f,
        _ => 0.0,
    }
}

fn sum(vals: &[Value]) -> Result<Value> {
    match vals.first() {
        Some(Value::Int(_)) => {
            let mut acc: i64 = 0;
            for v in vals {
                if let Value::Int(i) = v {
                    acc = acc.checked_add(*i).ok_or(Error::Overflow)?;
                }
            }
            Ok(Value::Int(acc))
        }
        Some(Value::Decimal(_, s)) => {
            let mut acc: i128 = 0;
            for v in vals {
                if let Value::Decimal(d, _) = v {
                    acc = acc.checked_add(*d).ok_or(Error::Overflow)?;
                }
            }
            Ok(Value::Decimal(acc, *s))
        }
        _ => Ok(Value::Float(vals.iter().map(as_f64).sum())),
    }
}
