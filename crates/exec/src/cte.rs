//! `WITH` and `WITH RECURSIVE`: common table expressions.
//!
//! A CTE named once, in a FROM outside every subquery, runs as a derived table where it is
//! named (cte_inline.rs). Each other CTE of a `WITH` clause is run once, in order, and its
//! rows are bound under its name (`Exec::ctes`, a stack) while the rest of the query runs; a later CTE and every subquery of
//! the body see the earlier ones. A name in FROM matches a CTE before a table. A CTE's column
//! list renames its columns.
//!
//! A recursive CTE is `anchor UNION [ALL] step`, where only `step` names the CTE. The anchor
//! runs once; then `step` runs again and again with the CTE bound to the rows the previous
//! round produced, until a round produces no new rows. With `UNION` (not ALL) a row already
//! produced is not produced again, so a cycle ends; with `UNION ALL` a cycle runs until
//! `MAX_ROUNDS` rounds or `MAX_ROWS` rows (then 2646, as for a runaway join). The anchor's
//! columns decide the names and types; the step's rows are cast to them. A recursive CTE of
//! another form is 9910.
//!
//! Invariant: the CTE stack is restored when the query ends, whether it succeeds or fails.

use crate::error::{Error, Result};
use crate::exec::Exec;
use crate::expr::take_batch;
use crate::limits::value_bytes;
use crate::ops::row_keys;
use crate::result::Rows;
use crate::set_combine::combine;
use arrow::compute::concat_batches;
use arrow::datatypes::{Field, Schema};
use arrow::record_batch::RecordBatch;
use sqlparser::ast;
use std::collections::HashSet;
use std::sync::Arc;
use tdlite_storage::types::RowKey;

/// Rounds a recursive CTE may take before tdlite calls it runaway (2646).
const MAX_ROUNDS: usize = 100_000;

/// Rows a recursive CTE may produce in all (as many as one join step may).
const MAX_ROWS: usize = 50_000_000;

/// True if `q` mentions a table named `name` anywhere.
fn mentions(q: &ast::SetExpr, name: &str) -> bool {
    let mut found = false;
    let _ = ast::visit_relations(q, |r| {
        if tdlite_parser::object_name_string(r).eq_ignore_ascii_case(name) {
            found = true;
            return std::ops::ControlFlow::Break(());
        }
        std::ops::ControlFlow::Continue(())
    });
    found
}

/// `rows` with its columns renamed (a CTE's column list).
fn renamed(rows: Rows, names: &[ast::TableAliasColumnDef], cte: &str) -> Result<Rows> {
    if names.is_empty() {
        return Ok(rows);
    }
    if names.len() != rows.schema.fields().len() {
        return Err(Error::TypeMismatch(format!(
            "the WITH list of {cte} names {} columns, its query returns {}",
            names.len(),
            rows.schema.fields().len()
        )));
    }
    let fields: Vec<Field> = rows
        .schema
        .fields()
        .iter()
        .zip(names)
        .map(|(f, n)| f.as_ref().clone().with_name(n.name.value.clone()))
        .collect();
    let schema = Arc::new(Schema::new(fields));
    let batches = rows
        .batches
        .into_iter()
        .map(|b| RecordBatch::try_new(schema.clone(), b.columns().to_vec()))
        .collect::<std::result::Result<_, _>>()?;
    Ok(Rows { schema, batches })
}

impl Exec<'_> {
    /// Runs `q`, whose `WITH` clause is `with`: binds each CTE, runs the body, unbinds.
    /// The CTEs named once go where they are named, as derived tables (cte_inline.rs); the
    /// others are made first.
    ///
    /// The body is a copy made at each run (a request's SELECT had its CTEs put in when
    /// parsed; an UPDATE's, a view's or a CTAS's query has them put in here): with no CTE
    /// left to make first, it runs as a query made for this run alone (`Exec::run_made_now`),
    /// so no prepared request's plan cache keeps its blocks, which would be new at each run
    /// and fill the cache. (With CTEs made first, no cache is used for it anyway.) So does a
    /// CTE made first whose query had another put into it (a copy too); one unchanged is
    /// the request's own, and the first one's blocks may be kept.
    pub(crate) fn run_with(&mut self, with: &ast::With, q: &ast::Query) -> Result<Rows> {
        let (ctes, body) = crate::cte_inline::inlined(with, q);
        let depth = self.ctes.len();
        let result =
            (self.bind_ctes(with.recursive, &ctes)).and_then(|()| self.run_made_now(&body));
        self.ctes.truncate(depth);
        result
    }

    fn bind_ctes(&mut self, recursive: bool, ctes: &[std::borrow::Cow<ast::Cte>]) -> Result<()> {
        for cte in ctes {
            let name = cte.alias.name.value.to_ascii_uppercase();
            let rows = if recursive && mentions(&cte.query.body, &name) {
                self.recursive(&name, &cte.query, &cte.alias.columns)?
            } else {
                let rows = match cte {
                    std::borrow::Cow::Owned(copy) => self.run_made_now(&copy.query)?,
                    std::borrow::Cow::Borrowed(own) => self.run_query(&own.query)?,
                };
                renamed(rows, &cte.alias.columns, &name)?
            };
            self.ctes.push((name, rows));
        }
        Ok(())
    }

    fn recursive(
        &mut self,
        name: &str,
        q: &ast::Query,
        columns: &[ast::TableAliasColumnDef],
    ) -> Result<Rows> {
        let ast::SetExpr::SetOperation {
            op: ast::SetOperator::Union,
            set_quantifier,
            left,
            right,
        } = q.body.as_ref()
        else {
            return Err(Error::Unsupported(format!(
                "WITH RECURSIVE {name} that is not anchor UNION [ALL] step"
            )));
        };
        if mentions(left, name) {
            return Err(Error::Unsupported(format!(
                "WITH RECURSIVE {name} whose first query names {name}"
            )));
        }
        let all = matches!(set_quantifier, ast::SetQuantifier::All);
        let anchor = renamed(self.run_query(&query_of(left))?, columns, name)?;
        // a NULL-only anchor column gets a type the step's values can be cast to
        let anchor = untyped_nulls_as_integers(anchor)?;
        let schema = anchor.schema.clone();
        let cs: Vec<bool> = schema
            .fields()
            .iter()
            .map(|f| f.metadata().contains_key("casespecific"))
            .collect();
        let mut seen: HashSet<RowKey> = HashSet::new();
        let mut batches: Vec<RecordBatch> = Vec::new();
        let (mut total, mut bytes) = (0usize, 0usize);
        // keeps the rows of `rows` (cast to the anchor's columns) not produced before
        let mut admit = |rows: Rows, batches: &mut Vec<RecordBatch>| -> Result<Option<Rows>> {
            let rows = combine(empty(&schema), rows, ast::SetOperator::Union, true)?;
            let batch = concat_batches(&rows.schema, &rows.batches)?;
            let batch = if all {
                batch
            } else {
                let keep: Vec<u32> = row_keys(&batch, &cs)
                    .into_iter()
                    .enumerate()
                    .filter(|(_, k)| seen.insert(k.clone()))
                    .map(|(i, _)| i as u32)
                    .collect();
                take_batch(&batch, &keep)?
            };
            if batch.num_rows() == 0 {
                return Ok(None);
            }
            total += batch.num_rows();
            if total > MAX_ROWS {
                return Err(Error::RecursionLimit(format!(
                    "produced more than {MAX_ROWS} rows"
                )));
            }
            // the rows of every round are kept to the end: together, they are one result
            let size = batch.columns().iter().map(|c| value_bytes(c.as_ref()));
            bytes = bytes.saturating_add(size.sum());
            crate::interrupt::check_spool(bytes)?;
            batches.push(batch.clone());
            Ok(Some(Rows {
                schema: schema.clone(),
                batches: vec![batch],
            }))
        };
        let mut working = admit(anchor, &mut batches)?;
        let step = query_of(right);
        if working.is_none() {
            // an anchor with no row (over empty tables, or in a run for the columns alone):
            // the step is still bound, and its columns cast to the anchor's, over no row of it
            // nor of any table (a run for its columns alone, `Exec::shape_of`: nothing of it
            // is evaluated or kept), as Teradata resolves the whole request before it runs it
            self.ctes.push((name.to_string(), empty(&schema)));
            let produced = self.shape_of(&step);
            self.ctes.pop();
            combine(empty(&schema), produced?, ast::SetOperator::Union, true)?;
        }
        let mut rounds = 0;
        while let Some(w) = working {
            if rounds == MAX_ROUNDS {
                return Err(Error::RecursionLimit(format!(
                    "ran more than {MAX_ROUNDS} rounds"
                )));
            }
            rounds += 1;
            self.ctes.push((name.to_string(), w));
            let produced = self.run_query(&step);
            self.ctes.pop();
            working = admit(produced?, &mut batches)?;
        }
        Ok(Rows {
            schema: schema.clone(),
            batches,
        })
    }
}

/// `rows` with every NULL-typed column made INTEGER.
fn untyped_nulls_as_integers(rows: Rows) -> Result<Rows> {
    use arrow::datatypes::DataType;
    if !rows
        .schema
        .fields()
        .iter()
        .any(|f| f.data_type() == &DataType::Null)
    {
        return Ok(rows);
    }
    let fields: Vec<Field> = rows
        .schema
        .fields()
        .iter()
        .map(|f| match f.data_type() {
            DataType::Null => f.as_ref().clone().with_data_type(DataType::Int32),
            _ => f.as_ref().clone(),
        })
        .collect();
    let schema = Arc::new(Schema::new(fields));
    let mut batches = Vec::new();
    for b in rows.batches {
        let cols = b
            .columns()
            .iter()
            .zip(schema.fields())
            .map(|(c, f)| crate::expr::cast_to_arrow(c, f.data_type()))
            .collect::<Result<Vec<_>>>()?;
        batches.push(RecordBatch::try_new_with_options(
            schema.clone(),
            cols,
            &arrow::record_batch::RecordBatchOptions::new().with_row_count(Some(b.num_rows())),
        )?);
    }
    Ok(Rows { schema, batches })
}

/// An empty result with these columns.
fn empty(schema: &arrow::datatypes::SchemaRef) -> Rows {
    Rows {
        schema: schema.clone(),
        batches: vec![RecordBatch::new_empty(schema.clone())],
    }
}

/// A query of one set-expression (no ORDER BY, no WITH).
fn query_of(body: &ast::SetExpr) -> ast::Query {
    ast::Query {
        with: None,
        body: Box::new(body.clone()),
        order_by: None,
        limit_clause: None,
        fetch: None,
        locks: vec![],
        for_clause: None,
        settings: None,
        format_clause: None,
        pipe_operators: vec![],
    }
}
