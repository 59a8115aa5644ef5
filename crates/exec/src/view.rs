//! Views: `CREATE VIEW` / `REPLACE VIEW name [(columns)] AS query`, `DROP VIEW`, and reading a
//! view in FROM.
//!
//! A view is a catalog entry like a table (one namespace, so a view and a table cannot share
//! a name) whose schema carries the query's SQL text (`TableSchema::view`) and no rows; it is
//! logged and checkpointed with the tables. `CREATE VIEW` runs the query once to check it and
//! to learn its columns (types as CREATE TABLE … AS gives them, with CASESPECIFIC, TITLE and
//! FORMAT). In FROM a view is its query,
//! run afresh with the reader's snapshot, as a derived table named by the view (or its alias),
//! its columns renamed by the view's column list; in a join, and alone in a FROM (a join of
//! one relation), it is bound from the columns
//! recorded for it (`recorded_scope`) and run at its step (`Exec::view_batch`, which checks
//! its columns are still as recorded: join.rs binds the join again where not, and marks the
//! view so joins read it while binding from then on); its text is parsed once per definition
//! (`Exec::view_query`, kept in `Shared`). A prepared request keeps the blocks of a view's
//! query in its plan cache where the query is held beyond one read (`Exec::view_rows_of`'s
//! `kept`; see plan_cache.rs). A view's columns are fixed when it is
//! created: a column later added under a `*` of its query is left out (by name; 9913 where
//! names cannot tell).
//!
//! A view's query may not name a queue table (9925), nor hold a subquery with TOP n (the
//! parser's `top_rules::check_view`), as Teradata's CREATE VIEW rules say.
//!
//! INSERT, UPDATE and DELETE through a view that reads one table's columns are rewritten onto
//! that table (view_dml.rs); MERGE and consume naming a view, and DML through any other view,
//! are 3823. Invariant: a view that (through others) names itself fails with 9913 after
//! `MAX_DEPTH` nested expansions instead of recursing forever.

use crate::error::{Error, Result};
use crate::exec::Exec;
use crate::result::Rows;
use crate::types::sql_type_of;
use arrow::datatypes::DataType;
use sqlparser::ast;
use std::sync::Arc;
use tdlite_storage::catalog::{Column, TableKind, TableSchema};
use tdlite_storage::period::PeriodElem;
use tdlite_storage::table::Table;
use tdlite_storage::types::SqlType;

/// How deep views may expand inside each other.
pub(crate) const MAX_DEPTH: usize = 32;

/// How many parsed view queries the database keeps ([`Exec::view_query`]); past it the cache
/// starts again empty.
const VIEW_QUERIES: usize = 1024;

/// Each view's parsed query by table id, with the text it was parsed from (a view replaced
/// under the same id is parsed again), and whether a join found its columns other than the
/// catalog records them (then joins read it while binding: `Exec::binds_unread`).
pub(crate) type ViewQueryCache =
    parking_lot::Mutex<std::collections::HashMap<u64, (String, Arc<ast::Query>, bool)>>;

impl Exec<'_> {
    /// CREATE or REPLACE VIEW. The view's columns are those its query gives run over no
    /// rows ([`Exec::shape_of`]): creating a view reads none of its tables' rows, so a row
    /// its query would fail on (a division by zero) fails a read of the view, not its
    /// creation, as in Teradata.
    ///
    /// # Errors
    /// 3803 if a table or view has the name (CREATE), 3854 if REPLACE names a table, the
    /// query's binding errors and operand type errors (a WHERE or ON evaluated over no row
    /// where its block binds before its read; one on a view's columns waits for a read),
    /// 9913 for a column list of the wrong length or duplicate names.
    pub(crate) fn create_view(
        &mut self,
        name: &ast::ObjectName,
        columns: &[String],
        query: &ast::Query,
        replace: bool,
        text: &str,
    ) -> Result<()> {
        let n = self.new_permanent_name(name)?;
        self.refuse_queue_tables(query)?;
        let before = self.volatile_uses.get();
        let rows = self.shape_of(query)?;
        if self.volatile_uses.get() != before {
            return Err(Error::Unsupported(format!(
                "a view of a volatile table ({n}): a view outlives the session its volatile tables end with"
            )));
        }
        let fields = rows.schema.fields();
        if !columns.is_empty() && columns.len() != fields.len() {
            return Err(Error::TypeMismatch(format!(
                "view {n} lists {} columns, its query returns {}",
                columns.len(),
                fields.len()
            )));
        }
        let mut cols: Vec<Column> = Vec::new();
        for (i, f) in fields.iter().enumerate() {
            let cname = columns.get(i).cloned().unwrap_or_else(|| f.name().clone());
            if cols.iter().any(|c| c.name.eq_ignore_ascii_case(&cname)) {
                return Err(Error::TypeMismatch(format!(
                    "view {n} has two columns named '{cname}'; name them"
                )));
            }
            cols.push(column_of(f, cname));
        }
        if replace {
            if let Some(old) = self.shared.storage.catalog.get_table(&n) {
                if old.schema.view.is_none() {
                    return Err(Error::NotAView(n));
                }
                self.txn.drop_table(&n)?;
            }
        }
        let mut schema = TableSchema::new(
            n,
            cols,
            TableKind::Multiset,
            false,
            None,
            Vec::new(),
            text.to_string(),
        );
        schema.view = Some(self.resolved_names(query).to_string());
        self.txn.create_table(schema)?;
        Ok(())
    }

    /// `query` with each unqualified table or view name written as the object it names now
    /// (`t` in database sales as `sales.t`; one of the user's own as `user.t`): a view's
    /// names are resolved when it is created, in its creator's default database, whatever
    /// database a later reader is in. Names of the query's own WITH clauses, and names that
    /// resolve to nothing now, are kept as written.
    fn resolved_names(&self, query: &ast::Query) -> ast::Query {
        let mut ctes: Vec<String> = Vec::new();
        collect_cte_names(query, &mut ctes);
        let mut q = query.clone();
        let _ = ast::visit_relations_mut(&mut q, |name| {
            let single = match name.0.as_slice() {
                [ast::ObjectNamePart::Identifier(i)] => Some(i.clone()),
                _ => None,
            };
            if let Some(ident) = single {
                let is_cte = ctes.iter().any(|c| c.eq_ignore_ascii_case(&ident.value));
                if let (false, Ok(t)) = (is_cte, self.object_definition(name)) {
                    let (db, bare) = match t.schema.name.rsplit_once('.') {
                        Some((db, bare)) => (db.to_string(), bare.to_string()),
                        None => (self.user.to_string(), t.schema.name.clone()),
                    };
                    let part =
                        |v: String| ast::ObjectNamePart::Identifier(ast::Ident::with_quote('"', v));
                    *name = ast::ObjectName(vec![part(db), part(bare)]);
                }
            }
            std::ops::ControlFlow::<()>::Continue(())
        });
        q
    }

    /// 9925 if `query` names a queue table (SQL Data Definition Language, "Rules and
    /// Restrictions for Creating, Replacing, and Using Views": "You cannot create a view on a
    /// queue table"). Names that are no table (a derived table's alias, a missing table) are
    /// left to the query's own run.
    fn refuse_queue_tables(&self, query: &ast::Query) -> Result<()> {
        let mut found = None;
        let _ = ast::visit_relations(query, |r| {
            match self.table_definition(r) {
                Ok(t) if t.schema.queue => {
                    found = Some(t.schema.name.clone());
                    return std::ops::ControlFlow::Break(());
                }
                _ => {}
            }
            std::ops::ControlFlow::Continue(())
        });
        match found {
            Some(q) => Err(Error::ViewOnQueue(q)),
            None => Ok(()),
        }
    }

    /// DROP VIEW.
    ///
    /// # Errors
    /// 3807 if there is no such object, 3854 if it is a table.
    pub(crate) fn drop_view(&mut self, name: &ast::ObjectName) -> Result<()> {
        let t = self.table_definition(name)?;
        if t.schema.view.is_none() {
            return Err(Error::NotAView(t.schema.name.clone()));
        }
        self.txn.drop_table(&t.schema.name)?;
        Ok(())
    }

    /// The rows of view `t` for a reader.
    ///
    /// # Errors
    /// The view query's errors; 9913 past `MAX_DEPTH` nested views.
    pub(crate) fn view_rows(&mut self, t: &Table) -> Result<Rows> {
        self.view_rows_of(t, None, true)
    }

    /// [`Exec::view_rows`], running `query` (the view's query with conditions pushed into
    /// it: pushdown.rs) instead of the view's own where given. `kept`: whether `query` is
    /// held beyond this read (a kept join holds it: bound_join.rs); the blocks inside it are
    /// then looked up in the plan cache, with copies of themselves (bound_select.rs
    /// `plan_cache`, plan_cache.rs). The view's own query (parsed once per definition, held
    /// by the database's cache of parsed views) is always looked up so.
    pub(crate) fn view_rows_of(
        &mut self,
        t: &Table,
        query: Option<&ast::Query>,
        kept: bool,
    ) -> Result<Rows> {
        let sql = t.schema.view.as_deref().unwrap_or_default();
        crate::stack::for_text(sql, || self.view_rows_here(t, query, kept))
    }

    /// The rows of view `t` as one batch, read at its step of a join that was bound with the
    /// columns the catalog records for it (join.rs `unread_view`, `bound`: the columns as
    /// [`recorded_scope`] gives them), by `query` (its query with conditions pushed in) where
    /// given: each column as the type recorded for it (a column of NULLs only is made that
    /// type).
    ///
    /// # Errors
    /// [`Error::ViewRetyped`] when a column's type is another, or its attributes (CASESPECIFIC,
    /// TITLE, FORMAT, precision, declared character type) are not those it was bound with (a
    /// table under the view changed, or the session's mode makes a literal CASESPECIFIC): the
    /// join is bound again over the rows, and joins read the view while binding from then on;
    /// the view query's errors.
    pub(crate) fn view_batch(
        &mut self,
        t: &Table,
        query: Option<&ast::Query>,
        kept: bool,
        bound: &[crate::bind::ScopeColumn],
    ) -> Result<arrow::record_batch::RecordBatch> {
        let rows = self.view_rows_of(t, query, kept)?;
        let recorded = &t.schema.arrow;
        let mut fields = Vec::with_capacity(recorded.fields().len());
        for ((f, want), b) in rows
            .schema
            .fields()
            .iter()
            .zip(recorded.fields())
            .zip(bound)
        {
            let read = crate::bind::ScopeColumn::of_field(f, None, String::new());
            let field = match f.data_type() {
                _ if !same_attributes(&read, b) => None,
                ty if ty == want.data_type() => Some(f.as_ref().clone()),
                DataType::Null => Some(f.as_ref().clone().with_data_type(want.data_type().clone())),
                _ => None,
            };
            match field {
                Some(field) => fields.push(field),
                None => {
                    self.mark_read_early(t);
                    return Err(Error::ViewRetyped(t.schema.name.clone()));
                }
            }
        }
        let schema = Arc::new(arrow::datatypes::Schema::new(fields));
        let mut batches = Vec::with_capacity(rows.batches.len());
        for b in &rows.batches {
            let columns = (b.columns().iter().zip(schema.fields()))
                .map(|(c, f)| match c.data_type() == f.data_type() {
                    true => c.clone(),
                    false => arrow::array::new_null_array(f.data_type(), c.len()),
                })
                .collect();
            batches.push(arrow::record_batch::RecordBatch::try_new(
                schema.clone(),
                columns,
            )?);
        }
        Ok(arrow::compute::concat_batches(&schema, &batches)?)
    }

    /// The query of view `t`, parsed: from the database's cache, or parsed now and kept
    /// there.
    ///
    /// # Errors
    /// The stored text's parse error (a view's text parsed when it was created).
    pub(crate) fn view_query(&self, t: &Table) -> Result<Arc<ast::Query>> {
        let sql = t.schema.view.as_deref().unwrap_or_default();
        if let Some((text, q, _)) = self.shared.view_queries.lock().get(&t.id) {
            if text.as_str() == sql {
                return Ok(q.clone());
            }
        }
        let q = Arc::new(parse_query(sql)?);
        let mut cache = self.shared.view_queries.lock();
        let old = (cache.len() >= VIEW_QUERIES).then(|| std::mem::take(&mut *cache));
        cache.insert(t.id, (sql.to_string(), q.clone(), false));
        drop(cache);
        // (the queries let go are dropped where the stack holds their depth)
        for (text, q, _) in old.into_iter().flat_map(|m| m.into_values()) {
            crate::stack::for_text(&text, || drop(q));
        }
        Ok(q)
    }

    /// Whether a join found view `t`'s columns other than the catalog records them
    /// ([`Exec::view_batch`]; forgotten when the cache of view queries starts again).
    pub(crate) fn view_read_early(&self, t: &Table) -> bool {
        let sql = t.schema.view.as_deref().unwrap_or_default();
        (self.shared.view_queries.lock().get(&t.id))
            .is_some_and(|(text, _, early)| *early && text.as_str() == sql)
    }

    /// Notes that view `t`'s columns are not as the catalog records them.
    fn mark_read_early(&self, t: &Table) {
        if let Some(entry) = self.shared.view_queries.lock().get_mut(&t.id) {
            entry.2 = true;
        }
    }

    /// [`Exec::view_rows_of`] on a stack deep enough for the view's query.
    fn view_rows_here(
        &mut self,
        t: &Table,
        query: Option<&ast::Query>,
        kept: bool,
    ) -> Result<Rows> {
        if self.view_depth >= MAX_DEPTH {
            return Err(Error::TypeMismatch(format!(
                "view {} expands into itself (more than {MAX_DEPTH} levels)",
                t.schema.name
            )));
        }
        let own;
        let (query, kept) = match query {
            Some(q) => (q, kept),
            None => {
                own = self.view_query(t)?;
                (own.as_ref(), true)
            }
        };
        // the view's query sees tables, not the reader's CTEs, nor the rows of the reader's
        // enclosing queries (a name the view's tables lack is 3810, never an outer column)
        let ctes = std::mem::take(&mut self.ctes);
        let outer = std::mem::take(&mut self.outer);
        self.view_depth += 1;
        let kept_before = std::mem::replace(&mut self.view_kept, kept);
        // (a join being bound again over its views' rows reads this view so; the view's own
        // joins bind their views as usual)
        let early_before = std::mem::replace(&mut self.views_read_early, false);
        let rows = self.run_query(query);
        self.views_read_early = early_before;
        self.view_kept = kept_before;
        self.view_depth -= 1;
        self.outer = outer;
        self.ctes = ctes;
        let rows = rows?;
        let picked = recorded_columns(&rows.schema, &t.schema)?;
        // the view's own column names (its column list, or the names when it was created)
        let fields: Vec<arrow::datatypes::Field> = (picked.iter().zip(&t.schema.columns))
            .map(|(&i, c)| rows.schema.field(i).clone().with_name(c.name.clone()))
            .collect();
        let schema = Arc::new(arrow::datatypes::Schema::new(fields));
        let batches = rows
            .batches
            .into_iter()
            .map(|b| {
                let columns = picked.iter().map(|&i| b.column(i).clone()).collect();
                arrow::record_batch::RecordBatch::try_new(schema.clone(), columns)
            })
            .collect::<std::result::Result<_, _>>()?;
        Ok(Rows { schema, batches })
    }

    /// A table a statement may change: not a view (3823).
    ///
    /// # Errors
    /// 3807 if there is no such table; 3823 for a view.
    pub fn must_get_base_table(&self, name: &ast::ObjectName) -> Result<Arc<Table>> {
        self.materialized(self.base_table_definition(name)?)
    }

    /// As [`Exec::must_get_base_table`], but a global temporary table as its definition
    /// (see `Exec::object_definition`).
    pub(crate) fn base_table_definition(&self, name: &ast::ObjectName) -> Result<Arc<Table>> {
        let t = self.table_definition(name)?;
        if t.schema.view.is_some() {
            return Err(Error::ViewNotUpdatable(t.schema.name.clone()));
        }
        Ok(t)
    }
}

/// The scope of view `view`'s columns as recorded in the catalog, qualified by `qualifier`:
/// as a read of the view gives them (`ScopeColumn::of_field`) where the view has not changed
/// since, a character column of no declared type (recorded as VARCHAR(64000): `column_of`)
/// having none.
pub(crate) fn recorded_scope(view: &TableSchema, qualifier: &str) -> crate::bind::Scope {
    let mut scope = crate::names::schema_scope(view, qualifier);
    for (c, col) in scope.columns.iter_mut().zip(&view.columns) {
        if col.ty == SqlType::VarChar(64000) {
            c.text = None;
        }
    }
    scope
}

/// Whether scope columns `a` and `b` have the same attributes: CASESPECIFIC, TITLE, FORMAT,
/// declared character type, and fractional digits (six, the most, the same as none given:
/// period_text.rs `fraction_digits`).
fn same_attributes(a: &crate::bind::ScopeColumn, b: &crate::bind::ScopeColumn) -> bool {
    let digits = |c: &crate::bind::ScopeColumn| c.precision.filter(|&p| p != 6);
    a.case_specific == b.case_specific
        && a.title == b.title
        && a.format == b.format
        && a.text == b.text
        && digits(a) == digits(b)
}

/// Whether view `view` was created with a column list (`CREATE VIEW v (a, b) AS …`), as its
/// CREATE VIEW text says; true where the text does not parse as one.
pub(crate) fn lists_columns(view: &TableSchema) -> bool {
    let listed = |s: &tdlite_parser::Spanned| match &s.statement {
        tdlite_parser::Statement::CreateView { columns, .. } => !columns.is_empty(),
        _ => true,
    };
    // (parsed, and its tree dropped, where the stack holds the text's depth)
    crate::stack::for_text(&view.ddl, || {
        tdlite_parser::parse_request(&view.ddl).map_or(true, |st| st.first().is_none_or(listed))
    })
}

/// Which columns of a view's query result are the view's: all of them when the counts agree.
/// A view's columns are fixed when it is created (Teradata: "View columns are explicitly
/// enumerated when views are defined. If a table is changed after a view is defined, those
/// changes will not appear if the SELECT * construct is used"), so when a `*` now gives more,
/// each recorded column is the one output of its name, in order.
///
/// # Errors
/// 9913 when the query returns fewer columns, or more and the recorded names do not pick one
/// output each, in order (a new column that repeats a name), or the view has a column list
/// (its names are not the query's).
fn recorded_columns(out: &arrow::datatypes::Schema, view: &TableSchema) -> Result<Vec<usize>> {
    let recorded = &view.columns;
    if out.fields().len() == recorded.len() {
        return Ok((0..recorded.len()).collect());
    }
    let changed = || {
        Error::TypeMismatch(format!(
            "view {} no longer returns its {} columns (a table under it changed); replace the view",
            view.name,
            recorded.len()
        ))
    };
    if out.fields().len() < recorded.len() || lists_columns(view) {
        // (a column list renames by position: its names say nothing of the query's)
        return Err(changed());
    }
    let names: Vec<Option<&str>> = out
        .fields()
        .iter()
        .map(|f| Some(f.name().as_str()))
        .collect();
    picked_by_name(recorded.iter().map(|c| c.name.as_str()), &names).ok_or_else(changed)
}

/// For each of `recorded` (a view's column names, in order), the one of `outputs` (its
/// query's output names now; `None` for an output without one) of that name (any case), in
/// increasing order; `None` if a name has no such output, or several.
pub(crate) fn picked_by_name<'n>(
    recorded: impl Iterator<Item = &'n str>,
    outputs: &[Option<&str>],
) -> Option<Vec<usize>> {
    let mut picked: Vec<usize> = Vec::new();
    for name in recorded {
        let mut named = (outputs.iter().enumerate())
            .filter(|(_, o)| o.is_some_and(|o| o.eq_ignore_ascii_case(name)))
            .map(|(i, _)| i);
        match (named.next(), named.next()) {
            (Some(i), None) if picked.last().is_none_or(|&p| p < i) => picked.push(i),
            _ => return None,
        }
    }
    Some(picked)
}

/// The column a result column becomes in a table or view made from a query: its type (text as
/// the CHAR(n)/VARCHAR(n) the query's column declares (text_type.rs), else VARCHAR(64000),
/// since Arrow keeps no declared length; TIME and TIMESTAMP with the precision
/// the query's column declares), CASESPECIFIC, TITLE and FORMAT; nullable.
pub(crate) fn column_of(f: &arrow::datatypes::Field, name: String) -> Column {
    Column {
        name,
        ty: match (f.data_type(), sql_type_of(f.data_type())) {
            (DataType::Utf8, _) => {
                crate::types::text_type_of_field(f).unwrap_or(SqlType::VarChar(64000))
            }
            (DataType::Null, _) => SqlType::Integer,
            // TIME(n)/TIMESTAMP(n): the precision the query's column carries
            (_, SqlType::Time(p)) => SqlType::Time(precision(f).unwrap_or(p)),
            (_, SqlType::Timestamp(p)) => SqlType::Timestamp(precision(f).unwrap_or(p)),
            (_, SqlType::Period(PeriodElem::Time(p))) => {
                SqlType::Period(PeriodElem::Time(precision(f).unwrap_or(p)))
            }
            (_, SqlType::Period(PeriodElem::Timestamp(p))) => {
                SqlType::Period(PeriodElem::Timestamp(precision(f).unwrap_or(p)))
            }
            (_, t) => t,
        },
        nullable: true,
        default: None,
        case_specific: f.metadata().contains_key("casespecific"),
        uppercase: false,
        title: f.metadata().get("title").cloned(),
        format: f.metadata().get("format").cloned(),
        identity: None,
    }
}

/// The fractional digits a query's TIME or TIMESTAMP column declares (field metadata).
fn precision(f: &arrow::datatypes::Field) -> Option<u8> {
    f.metadata().get("precision").and_then(|p| p.parse().ok())
}

/// The query of a stored view's SQL text, parsed and copied where the stack holds the text's
/// depth (a view's body may be as deep as the parser allows).
pub(crate) fn parse_query(sql: &str) -> Result<sqlparser::ast::Query> {
    crate::stack::for_text(sql, || parse_stored(sql))
}

fn parse_stored(sql: &str) -> Result<sqlparser::ast::Query> {
    let stmts = tdlite_parser::parse_request(sql)?;
    match stmts.first().map(|s| &s.statement) {
        Some(tdlite_parser::Statement::Sql(b)) => match b.as_ref() {
            sqlparser::ast::Statement::Query(q) => Ok(q.as_ref().clone()),
            _ => Err(Error::Internal("a view that is not a query".into())),
        },
        _ => Err(Error::Internal("a view that is not a query".into())),
    }
}

/// The names the WITH clauses of `q` (and of the queries inside it) define.
pub(crate) fn collect_cte_names(q: &ast::Query, out: &mut Vec<String>) {
    struct Ctes<'o>(&'o mut Vec<String>);
    impl ast::Visitor for Ctes<'_> {
        type Break = ();
        fn pre_visit_query(&mut self, q: &ast::Query) -> std::ops::ControlFlow<()> {
            if let Some(w) = &q.with {
                self.0
                    .extend(w.cte_tables.iter().map(|c| c.alias.name.value.clone()));
            }
            std::ops::ControlFlow::Continue(())
        }
    }
    let _ = ast::Visit::visit(q, &mut Ctes(out));
}
