//! Set operations: `UNION`, `INTERSECT`, `EXCEPT` / `MINUS`, each `ALL` or distinct (the
//! default), nested and parenthesised, with ORDER BY (positions or the first query's column
//! names) over the result.
//!
//! As in Teradata, the first query decides the result's column names and types; the other
//! side's columns are cast to them. Rows are compared as DISTINCT compares them (trailing blanks
//! ignored, case-blind unless CASESPECIFIC; NULLs equal each other). Invariant: a distinct
//! operation never returns two rows with the same key; an ALL operation keeps multiplicities
//! (INTERSECT ALL: the smaller count; EXCEPT ALL: left count minus right count).

use crate::bind::{Scope, ScopeColumn};
use crate::error::{Error, Result};
use crate::exec::Exec;
use crate::expr::{cast_to_arrow, take_batch, Expr};
use crate::ops::{row_keys, sort_batch, SortKey};
use crate::result::Rows;
use arrow::array::ArrayRef;
use arrow::compute::concat_batches;
use arrow::datatypes::{DataType, Field, Schema};
use arrow::record_batch::RecordBatch;
use sqlparser::ast;
use std::collections::HashMap;
use std::sync::Arc;
use tdlite_storage::types::RowKey;

impl Exec<'_> {
    /// Runs a query whose body is a set operation, then its ORDER BY.
    pub(crate) fn run_set_query(
        &mut self,
        body: &ast::SetExpr,
        order_by: &[ast::OrderByExpr],
    ) -> Result<Rows> {
        let rows = self.set_rows(body)?;
        if order_by.is_empty() {
            return Ok(rows);
        }
        let batch = concat_batches(&rows.schema, &rows.batches)?;
        let scope = Scope {
            columns: rows
                .schema
                .fields()
                .iter()
                .map(|f| ScopeColumn {
                    qualifier: None,
                    name: f.name().clone(),
                    case_specific: f.metadata().contains_key("casespecific"),
                    title: f.metadata().get("title").cloned(),
                    precision: f.metadata().get("precision").and_then(|p| p.parse().ok()),
                })
                .collect(),
        };
        let mut keys = Vec::with_capacity(order_by.len());
        for ob in order_by {
            let expr = match &ob.expr {
                ast::Expr::Value(v) => match &v.value {
                    ast::Value::Number(n, _) => {
                        let pos: usize = n.parse().unwrap_or(0);
                        if pos == 0 || pos > scope.columns.len() {
                            return Err(Error::TypeMismatch(format!(
                                "ORDER BY {n} does not name a result column"
                            )));
                        }
                        Expr::Column {
                            index: pos - 1,
                            case_specific: scope.columns[pos - 1].case_specific,
                        }
                    }
                    _ => self.bind_expr(&ob.expr, &scope, None)?,
                },
                other => self.bind_expr(other, &scope, None)?,
            };
            let descending = matches!(ob.options.sort, Some(ast::OrderBySort::Desc));
            keys.push(SortKey {
                expr,
                descending,
                nulls_first: ob.options.nulls_first.unwrap_or(!descending),
            });
        }
        Ok(Rows {
            schema: rows.schema.clone(),
            batches: vec![sort_batch(&batch, &keys)?],
        })
    }

    fn set_rows(&mut self, body: &ast::SetExpr) -> Result<Rows> {
        match body {
            ast::SetExpr::Select(s) => self.run_select(s, &[]),
            ast::SetExpr::Query(q) => self.run_query(q),
            ast::SetExpr::SetOperation {
                left,
                op,
                set_quantifier,
                right,
            } => {
                let all = match set_quantifier {
                    ast::SetQuantifier::All => true,
                    ast::SetQuantifier::Distinct | ast::SetQuantifier::None => false,
                    other => return Err(Error::Unsupported(format!("{op} {other}"))),
                };
                let l = self.set_rows(left)?;
                let r = self.set_rows(right)?;
                combine(l, r, *op, all)
            }
            other => Err(Error::Unsupported(format!("the query form {other}"))),
        }
    }
}

/// Combines two results by a set operator; the first decides names and types.
pub(crate) fn combine(l: Rows, r: Rows, op: ast::SetOperator, all: bool) -> Result<Rows> {
    // both sides are copied into one result: a UNION ALL of a big table with itself, many
    // times over, stops here
    let size = |rows: &Rows| -> usize {
        let cols = rows.batches.iter().flat_map(|b| b.columns());
        cols.map(|c| crate::limits::value_bytes(c.as_ref())).sum()
    };
    let (lw, rw) = (l.schema.fields().len(), r.schema.fields().len());
    if lw != rw {
        return Err(Error::TypeMismatch(format!(
            "the queries of {op} have {lw} and {rw} columns"
        )));
    }
    crate::interrupt::check_spool(size(&l).saturating_add(size(&r)))?;
    let left = concat_batches(&l.schema, &l.batches)?;
    let right = concat_batches(&r.schema, &r.batches)?;
    // the first query decides names and types (a NULL-only column takes the other side's)
    let mut fields = Vec::with_capacity(left.num_columns());
    let mut lcols: Vec<ArrayRef> = Vec::new();
    let mut rcols: Vec<ArrayRef> = Vec::new();
    for (i, f) in l.schema.fields().iter().enumerate() {
        let (lc, rc) = (left.column(i), right.column(i));
        let ty = match lc.data_type() {
            DataType::Null => rc.data_type().clone(),
            t => t.clone(),
        };
        lcols.push(cast_to_arrow(lc, &ty)?);
        rcols.push(cast_to_arrow(rc, &ty)?);
        fields.push(Field::new(f.name(), ty, true).with_metadata(f.metadata().clone()));
    }
    let schema = Arc::new(Schema::new(fields));
    let left = RecordBatch::try_new_with_options(
        schema.clone(),
        lcols,
        &arrow::record_batch::RecordBatchOptions::new().with_row_count(Some(left.num_rows())),
    )?;
    let right = RecordBatch::try_new_with_options(
        schema.clone(),
        rcols,
        &arrow::record_batch::RecordBatchOptions::new().with_row_count(Some(right.num_rows())),
    )?;
    let both = concat_batches(&schema, [&left, &right])?;
    let cs: Vec<bool> = schema
        .fields()
        .iter()
        .map(|f| f.metadata().contains_key("casespecific"))
        .collect();
    let lkeys = row_keys(&left, &cs);
    let rkeys = row_keys(&right, &cs);
    let mut rcount: HashMap<&RowKey, usize> = HashMap::new();
    for k in &rkeys {
        *rcount.entry(k).or_default() += 1;
    }
    let mut seen: std::collections::HashSet<&RowKey> = std::collections::HashSet::new();
    let mut keep: Vec<u32> = Vec::new();
    match op {
        ast::SetOperator::Union => {
            for (i, k) in lkeys.iter().chain(&rkeys).enumerate() {
                if all || seen.insert(k) {
                    keep.push(i as u32);
                }
            }
        }
        ast::SetOperator::Intersect => {
            for (i, k) in lkeys.iter().enumerate() {
                let c = rcount.get_mut(k);
                match c {
                    Some(c) if *c > 0 && (all || seen.insert(k)) => {
                        if all {
                            *c -= 1;
                        }
                        keep.push(i as u32);
                    }
                    _ => {}
                }
            }
        }
        ast::SetOperator::Except | ast::SetOperator::Minus => {
            for (i, k) in lkeys.iter().enumerate() {
                match rcount.get_mut(k) {
                    Some(c) if *c > 0 => {
                        if all {
                            *c -= 1;
                        }
                    }
                    _ => {
                        if all || seen.insert(k) {
                            keep.push(i as u32);
                        }
                    }
                }
            }
        }
    }
    Ok(Rows {
        schema,
        batches: vec![take_batch(&both, &keep)?],
    })
}
