//! Batch operators that every stage of a query uses: a one-row input, columns added to a
//! batch, the select list's projection, filters by a condition, the row order of ORDER BY
//! keys, and DISTINCT's row keys. Each is Arrow kernels over one record batch; none reads a
//! table or binds a name.

use crate::error::{Error, Result};
use crate::expr::Expr;
use arrow::array::{Array, ArrayRef, AsArray, BooleanArray};
use arrow::compute::{filter_record_batch, lexsort_to_indices, SortColumn, SortOptions};
use arrow::datatypes::{DataType, Field, Schema};
use arrow::record_batch::{RecordBatch, RecordBatchOptions};
use std::sync::Arc;
use tdlite_storage::types::{normalize_for_key, value_at, RowKey};

/// A select item bound: its expression, name, title and alias.
pub(crate) type Item = (Expr, String, Option<String>, Option<String>);

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

/// One ORDER BY key.
#[derive(Debug, Clone)]
pub(crate) struct SortKey {
    pub(crate) expr: Expr,
    pub(crate) descending: bool,
    pub(crate) nulls_first: bool,
}

/// True for the types whose values have fractional seconds.
pub(crate) fn is_time(t: &DataType) -> bool {
    matches!(t, DataType::Time64(_) | DataType::Timestamp(..))
        || crate::period_text::kind_of(t)
            .is_some_and(|k| k != tdlite_storage::period::PeriodKind::Date)
}

/// How a select item is shown (field metadata; the values are what they are).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Display {
    /// The fractional digits of a TIME/TIMESTAMP item.
    pub precision: Option<u8>,
    /// The FORMAT of the column the item is (BTEQ shows its values by it).
    pub format: Option<String>,
    /// The item's declared character type, where its syntax says it (text_type.rs).
    pub text: Option<tdlite_storage::types::SqlType>,
}

/// The select list `items` (with how each is shown) evaluated over `rows`: names, TITLEs,
/// CASESPECIFIC, precision and FORMAT go into the fields' metadata.
pub(crate) fn project(
    items: &[Item],
    display: &[Display],
    rows: &RecordBatch,
) -> Result<RecordBatch> {
    let mut fields = Vec::with_capacity(items.len());
    let mut arrays = Vec::with_capacity(items.len());
    // what the computed items take together (an input column is shared, not copied)
    let mut bytes = 0usize;
    for ((expr, name, title, _), shown) in items.iter().zip(display) {
        let a = expr.eval(rows)?;
        if !rows.columns().iter().any(|c| Arc::ptr_eq(c, &a)) {
            bytes = bytes.saturating_add(crate::limits::value_bytes(a.as_ref()));
            crate::interrupt::check_spool(bytes)?;
        }
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
        if let Some(p) = shown.precision.filter(|_| is_time(a.data_type())) {
            meta.insert("precision".to_string(), p.to_string());
        }
        if let Some(f) = &shown.format {
            meta.insert("format".to_string(), f.clone());
        }
        if let Some(t) = shown.text.filter(|_| a.data_type() == &DataType::Utf8) {
            meta.insert(crate::types::TEXT_TYPE_KEY.to_string(), t.to_string());
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
    // NULL (unknown) is not true: the values ANDed with the validity bits, no row by row
    Ok(match b.nulls() {
        Some(_) => arrow::compute::prep_null_mask_filter(b),
        None => b.clone(),
    })
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
