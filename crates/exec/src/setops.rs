//! Set operations: `UNION`, `INTERSECT`, `EXCEPT` / `MINUS`, each `ALL` or distinct (the
//! default), nested and parenthesised, with ORDER BY (positions or the first query's column
//! names) over the result.
//!
//! Each operation runs as `set_combine::combine` (the first query decides names and types;
//! rows compare as DISTINCT compares them; its module doc has the invariants).

use crate::bind::{Scope, ScopeColumn};
use crate::error::{Error, Result};
use crate::exec::Exec;
use crate::expr::Expr;
use crate::ops::{sort_batch, SortKey};
use crate::result::Rows;
use crate::set_combine::combine;
use arrow::compute::concat_batches;
use sqlparser::ast;

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
                    format: f.metadata().get("format").cloned(),
                    text: crate::types::text_type_of_field(f),
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
