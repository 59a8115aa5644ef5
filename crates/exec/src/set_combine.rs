//! Two results combined by a set operator (`UNION`, `INTERSECT`, `EXCEPT` / `MINUS`, each
//! `ALL` or distinct): a batch operator, used by set queries (setops.rs) and by recursive
//! CTEs combining their rounds (cte.rs).
//!
//! As in Teradata, the first result decides the column names and types; the other side's
//! columns are cast to them. Rows are compared as DISTINCT compares them (trailing blanks
//! ignored, case-blind unless CASESPECIFIC; NULLs equal each other). Invariant: a distinct
//! operation never returns two rows with the same key; an ALL operation keeps multiplicities
//! (INTERSECT ALL: the smaller count; EXCEPT ALL: left count minus right count).

use crate::error::{Error, Result};
use crate::expr::{cast_to_arrow, take_batch};
use crate::ops::row_keys;
use crate::result::Rows;
use arrow::array::ArrayRef;
use arrow::compute::concat_batches;
use arrow::datatypes::{DataType, Field, Schema};
use arrow::record_batch::RecordBatch;
use sqlparser::ast;
use std::collections::HashMap;
use std::sync::Arc;
use tdlite_storage::types::RowKey;

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
        return Err(Error::SetOpArity);
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
        rcols.push(match crate::types::text_type_of_field(f) {
            // the first query's declared character type: the other query's text takes it
            // (cut to its length, padded to a CHAR's), as Teradata converts it
            Some(t) if rc.data_type() == &DataType::Utf8 => crate::expr::cast_to_sql(rc, t)?,
            _ => cast_to_arrow(rc, &ty)?,
        });
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
