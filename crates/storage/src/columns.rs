//! Batches that carry only the columns a reader needs.
//!
//! A reader names the columns it reads with a *keep* mask (one flag per column of the
//! table). Where a batch has to be copied anyway (rows filtered out, parts concatenated), only
//! the kept columns are copied; the others become NULL columns of their type, and the batch
//! takes the table's schema with every column nullable. A select list that reads two columns
//! of a table of 2 KB rows then copies those two columns of each row, not the row.
//!
//! Invariant: a kept column holds exactly what a full copy would hold. A filter that keeps
//! every row returns the batch as it is, every column and its own schema included; a filter
//! that keeps every column is a plain filter, in the batch's own schema.

use arrow::array::{new_null_array, ArrayRef, BooleanArray};
use arrow::compute::{concat, filter_record_batch, FilterBuilder};
use arrow::datatypes::SchemaRef;
use arrow::error::ArrowError;
use arrow::record_batch::{RecordBatch, RecordBatchOptions};

/// Whether column `c` is kept (a mask too short keeps the rest).
fn kept(keep: &[bool], c: usize) -> bool {
    keep.get(c).copied().unwrap_or(true)
}

/// The rows of `batch` that `mask` keeps (it must have no NULLs), with only the columns
/// `keep` marks copied and the others NULL, in a batch of `nullable` (`batch`'s schema with
/// every column nullable); see the module doc for the two cases that copy nothing more.
///
/// # Errors
/// Arrow's, for a mask whose length is not the batch's.
pub fn filter_columns(
    batch: &RecordBatch,
    mask: &BooleanArray,
    keep: &[bool],
    nullable: &SchemaRef,
) -> Result<RecordBatch, ArrowError> {
    if mask.true_count() == mask.len() && mask.len() == batch.num_rows() {
        return Ok(batch.clone()); // every row passes: nothing to copy
    }
    if (0..batch.num_columns()).all(|c| kept(keep, c)) {
        return filter_record_batch(batch, mask);
    }
    let predicate = FilterBuilder::new(mask).optimize().build();
    let rows = predicate.count();
    let columns = batch
        .columns()
        .iter()
        .enumerate()
        .map(|(c, a)| match kept(keep, c) {
            true => predicate.filter(a.as_ref()),
            false => Ok(new_null_array(a.data_type(), rows)),
        })
        .collect::<Result<Vec<ArrayRef>, ArrowError>>()?;
    batch_of(nullable, columns, rows)
}

/// `batches` (each with `nullable`'s columns, nullable or not) as one batch of `nullable`,
/// with only the columns `keep` marks copied and the others NULL.
///
/// # Errors
/// Arrow's, for batches whose columns do not match the schema.
pub fn concat_columns(
    nullable: &SchemaRef,
    batches: &[RecordBatch],
    keep: &[bool],
) -> Result<RecordBatch, ArrowError> {
    let rows: usize = batches.iter().map(RecordBatch::num_rows).sum();
    let columns = nullable
        .fields()
        .iter()
        .enumerate()
        .map(|(c, f)| match kept(keep, c) {
            true => {
                let parts: Vec<&dyn arrow::array::Array> =
                    batches.iter().map(|b| b.column(c).as_ref()).collect();
                match parts.as_slice() {
                    [] => Ok(new_null_array(f.data_type(), 0)),
                    [one] => Ok(arrow::array::make_array(one.to_data())),
                    _ => concat(&parts),
                }
            }
            false => Ok(new_null_array(f.data_type(), rows)),
        })
        .collect::<Result<Vec<ArrayRef>, ArrowError>>()?;
    batch_of(nullable, columns, rows)
}

/// `columns` (`rows` long) as a batch of `nullable`.
fn batch_of(
    nullable: &SchemaRef,
    columns: Vec<ArrayRef>,
    rows: usize,
) -> Result<RecordBatch, ArrowError> {
    RecordBatch::try_new_with_options(
        nullable.clone(),
        columns,
        &RecordBatchOptions::new().with_row_count(Some(rows)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{Array, AsArray, Int32Array, StringArray};
    use arrow::datatypes::{DataType, Field, Int32Type, Schema};
    use std::sync::Arc;

    fn schemas() -> (SchemaRef, SchemaRef) {
        let fields = |nullable: bool| {
            vec![
                Field::new("a", DataType::Int32, nullable),
                Field::new("b", DataType::Utf8, nullable),
                Field::new("c", DataType::Utf8, true),
            ]
        };
        (
            Arc::new(Schema::new(fields(false))),
            Arc::new(Schema::new(fields(true))),
        )
    }

    fn batch(a: Vec<i32>, b: Vec<&str>, c: Vec<Option<&str>>) -> RecordBatch {
        let columns: Vec<ArrayRef> = vec![
            Arc::new(Int32Array::from(a)),
            Arc::new(StringArray::from(b)),
            Arc::new(StringArray::from(c)),
        ];
        RecordBatch::try_new(schemas().0, columns).unwrap()
    }

    #[test]
    fn a_filter_copies_only_the_kept_columns() {
        let (_, nullable) = schemas();
        let b = batch(
            vec![1, 2, 3],
            vec!["x", "y", "z"],
            vec![Some("p"), None, Some("r")],
        );
        let mask = BooleanArray::from(vec![true, false, true]);
        let out = filter_columns(&b, &mask, &[true, false, true], &nullable).unwrap();
        assert_eq!(out.num_rows(), 2);
        assert_eq!(out.column(0).as_primitive::<Int32Type>().values(), &[1, 3]);
        assert_eq!(out.column(1).null_count(), 2, "a column not kept is NULL");
        assert_eq!(out.column(1).data_type(), &DataType::Utf8);
        let c = out.column(2).as_string::<i32>();
        assert_eq!((c.value(0), c.value(1)), ("p", "r"));
        // every column kept: what a plain filter gives
        let all = filter_columns(&b, &mask, &[true, true, true], &nullable).unwrap();
        assert_eq!(all, filter_record_batch(&b, &mask).unwrap());
        // every row kept: the batch itself, nothing copied
        let every = BooleanArray::from(vec![true, true, true]);
        let same = filter_columns(&b, &every, &[false, false, false], &nullable).unwrap();
        assert!(Arc::ptr_eq(same.column(1), b.column(1)));
    }

    #[test]
    fn a_concatenation_copies_only_the_kept_columns() {
        let (_, nullable) = schemas();
        let one = batch(vec![1, 2], vec!["x", "y"], vec![Some("p"), None]);
        let two = batch(vec![3], vec!["z"], vec![Some("r")]);
        let out = concat_columns(&nullable, &[one, two], &[true, false, true]).unwrap();
        assert_eq!(out.num_rows(), 3);
        assert_eq!(
            out.column(0).as_primitive::<Int32Type>().values(),
            &[1, 2, 3]
        );
        assert_eq!(out.column(1).null_count(), 3);
        let c = out.column(2).as_string::<i32>();
        assert_eq!((c.value(0), c.is_null(1), c.value(2)), ("p", true, "r"));
        let none = concat_columns(&nullable, &[], &[true, true, true]).unwrap();
        assert_eq!(none.num_rows(), 0);
    }
}
