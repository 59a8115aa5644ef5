//! A row waiting in the open tail (tail.rs) before its run becomes Arrow: its values, or, for
//! a new version of a sealed row (an UPDATE), that row's place in its segment and the columns
//! that changed.
//!
//! A derived row copies nothing of the columns it keeps: an UPDATE that sets one column of a
//! 2 KB row waits as a reference to the segment and one value, and its kept columns are
//! copied once, when its run of rows becomes an Arrow chunk ([`values_batch`]).
//!
//! Invariants: a derived row's segment is a sealed segment of the same table, with the
//! table's Arrow schema (so its columns are the table's, in order, of the table's types);
//! segments are never changed or dropped while the table lives, so holding one keeps no
//! memory alive that the table does not hold anyway. `changes` has at most one entry per
//! column, sorted by column, every column below the table's width.

use crate::catalog::{Column, TableSchema};
use crate::types::{value_at, values_to_array, Value};
use arrow::array::{new_null_array, Array, ArrayRef};
use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;
use std::sync::Arc;

/// A row waiting in the tail (see the module doc).
#[derive(Debug)]
pub(crate) enum Waiting {
    /// Every column's value.
    Values(Vec<Value>),
    /// A sealed row with some columns changed (boxed: most waiting rows are values, and
    /// this keeps them small).
    Derived(Box<Derived>),
}

/// Row `row` of sealed `segment`, but for the columns in `changes`.
#[derive(Debug)]
pub(crate) struct Derived {
    segment: RecordBatch,
    row: usize,
    changes: Vec<(usize, Value)>,
}

/// One column of a waiting row, where it is.
enum Cell<'a> {
    Value(&'a Value),
    At(&'a ArrayRef, usize),
}

impl Waiting {
    /// Row `row` of `segment` with `changes` (column, new value) applied: later changes of a
    /// column win, columns past the segment's are ignored.
    pub(crate) fn derived(
        segment: RecordBatch,
        row: usize,
        changes: impl IntoIterator<Item = (usize, Value)>,
    ) -> Self {
        let width = segment.num_columns();
        let mut changes: Vec<(usize, Value)> =
            changes.into_iter().filter(|(c, _)| *c < width).collect();
        // stable: of a column's changes, the last stays last, and dedup keeps the first of a
        // run, so reverse first
        changes.reverse();
        changes.sort_by_key(|(c, _)| *c);
        changes.dedup_by_key(|(c, _)| *c);
        Waiting::Derived(Box::new(Derived {
            segment,
            row,
            changes,
        }))
    }

    /// This row with `changes` applied (see [`Waiting::derived`]); a derived row stays
    /// derived from its segment.
    pub(crate) fn changed(&self, changes: impl IntoIterator<Item = (usize, Value)>) -> Self {
        match self {
            Waiting::Values(v) => {
                let mut v = v.clone();
                for (c, x) in changes {
                    if let Some(slot) = v.get_mut(c) {
                        *slot = x;
                    }
                }
                Waiting::Values(v)
            }
            Waiting::Derived(d) => Waiting::derived(
                d.segment.clone(),
                d.row,
                d.changes.iter().cloned().chain(changes),
            ),
        }
    }

    fn cell(&self, col: usize) -> Option<Cell<'_>> {
        match self {
            Waiting::Values(v) => v.get(col).map(Cell::Value),
            Waiting::Derived(d) => match d.changes.binary_search_by_key(&col, |(c, _)| *c) {
                Ok(i) => Some(Cell::Value(&d.changes[i].1)),
                Err(_) => {
                    (col < d.segment.num_columns()).then(|| Cell::At(d.segment.column(col), d.row))
                }
            },
        }
    }

    /// Number of columns.
    pub(crate) fn width(&self) -> usize {
        match self {
            Waiting::Values(v) => v.len(),
            Waiting::Derived(d) => d.segment.num_columns(),
        }
    }

    /// Column `col`'s value (NULL past the row's width).
    pub(crate) fn value(&self, col: usize) -> Value {
        match self.cell(col) {
            Some(Cell::Value(v)) => v.clone(),
            Some(Cell::At(a, r)) => value_at(a.as_ref(), r),
            None => Value::Null,
        }
    }

    /// True if column `col` is NULL (or past the row's width).
    pub(crate) fn is_null(&self, col: usize) -> bool {
        match self.cell(col) {
            Some(Cell::Value(v)) => v.is_null(),
            Some(Cell::At(a, r)) => a.is_null(r),
            None => true,
        }
    }

    /// Every column's value.
    pub(crate) fn values(&self) -> Vec<Value> {
        match self {
            Waiting::Values(v) => v.clone(),
            Waiting::Derived { .. } => (0..self.width()).map(|c| self.value(c)).collect(),
        }
    }

    /// The values of the columns `wanted` marks, the others NULL (a row to compute keys
    /// from); borrowed when the row is values.
    pub(crate) fn probe(&self, wanted: impl Fn(usize) -> bool) -> std::borrow::Cow<'_, [Value]> {
        match self {
            Waiting::Values(v) => std::borrow::Cow::Borrowed(v),
            Waiting::Derived { .. } => (0..self.width())
                .map(|c| match wanted(c) {
                    true => self.value(c),
                    false => Value::Null,
                })
                .collect(),
        }
    }
}

impl From<Vec<Value>> for Waiting {
    fn from(v: Vec<Value>) -> Self {
        Waiting::Values(v)
    }
}

/// A cell's value when it is given as one (a column past the row's width is NULL), `None`
/// when it is kept in a segment.
fn given_value<'a>(x: &Option<Cell<'a>>) -> Option<&'a Value> {
    static NULL: Value = Value::Null;
    match x {
        Some(Cell::Value(v)) => Some(*v),
        Some(Cell::At(..)) => None,
        None => Some(&NULL),
    }
}

/// The columns a reader keeps and the schema of a batch with the others NULL (every field
/// nullable); `None`: every column, in the table's schema.
pub(crate) type Keep<'a> = Option<(&'a [bool], &'a SchemaRef)>;

/// Waiting rows as one batch of the table's schema (or, for a reader that keeps only some
/// columns, `keep`'s schema with the others NULL: nothing of them is built). A column every
/// row holds as a value is built from the values; one that some rows keep in their segment
/// is gathered from those segments' arrays and an array of the values (`interleave`).
pub(crate) fn values_batch(
    schema: &TableSchema,
    rows: &[Arc<Waiting>],
    keep: Keep<'_>,
) -> RecordBatch {
    let wanted = |c: usize| keep.is_none_or(|(k, _)| k.get(c).copied().unwrap_or(true));
    // the common case: every row given as values
    let all_values: Option<Vec<&Vec<Value>>> = rows
        .iter()
        .map(|r| match &**r {
            Waiting::Values(v) => Some(v),
            Waiting::Derived(_) => None,
        })
        .collect();
    let arrays: Vec<ArrayRef> = schema
        .columns
        .iter()
        .enumerate()
        .map(|(c, col)| match (wanted(c), &all_values) {
            (false, _) => new_null_array(&col.ty.arrow_type(), rows.len()),
            (true, Some(values)) => values_to_array(col.ty, values.iter().map(|r| &r[c])),
            (true, None) => mixed_column(rows, c, col),
        })
        .collect();
    let out = match keep {
        Some((_, nullable)) => nullable.clone(),
        None => schema.arrow.clone(),
    };
    RecordBatch::try_new(out, arrays).expect("tail rows match the schema")
}

/// Column `c` of waiting rows some of which keep it in their segment.
fn mixed_column(rows: &[Arc<Waiting>], c: usize, col: &Column) -> ArrayRef {
    let cells: Vec<Option<Cell<'_>>> = rows.iter().map(|r| r.cell(c)).collect();
    let kept = cells.iter().any(|x| matches!(x, Some(Cell::At(..))));
    if !kept {
        return values_to_array(col.ty, cells.iter().filter_map(given_value));
    }
    // source 0: the values, in row order; then each distinct array kept rows are in
    let given = values_to_array(col.ty, cells.iter().filter_map(given_value));
    let mut sources: Vec<&ArrayRef> = vec![&given];
    let mut next_value = 0;
    let at: Vec<(usize, usize)> = cells
        .iter()
        .map(|x| match x {
            Some(Cell::At(a, r)) => {
                let s = match sources.iter().position(|s| Arc::ptr_eq(s, a)) {
                    Some(s) => s,
                    None => {
                        sources.push(a);
                        sources.len() - 1
                    }
                };
                (s, *r)
            }
            _ => {
                next_value += 1;
                (0, next_value - 1)
            }
        })
        .collect();
    let parts: Vec<&dyn Array> = sources.iter().map(|s| s.as_ref()).collect();
    // a segment holds the table's types (module invariant); were one to differ, the
    // values are read out one by one instead of failing
    arrow::compute::interleave(&parts, &at).unwrap_or_else(|_| {
        let all: Vec<Value> = rows.iter().map(|r| r.value(c)).collect();
        values_to_array(col.ty, all.iter())
    })
}

/// A small table and its rows, for this module's and tail.rs's tests.
#[cfg(test)]
pub(crate) mod fixtures {
    use crate::catalog::{Column, TableKind, TableSchema};
    use crate::types::{SqlType, Value};

    pub(crate) fn schema() -> TableSchema {
        let col = |name: &str, ty| Column::plain(name, ty, true);
        TableSchema::new(
            "t".into(),
            vec![
                col("a", SqlType::BigInt),
                col("s", SqlType::VarChar(20)),
                col("f", SqlType::Float),
            ],
            TableKind::Multiset,
            false,
            None,
            Vec::new(),
            String::new(),
        )
    }

    pub(crate) fn row(i: i64) -> Vec<Value> {
        let s = match i % 3 {
            0 => Value::Null,
            _ => Value::Str(format!("r{i}")),
        };
        vec![Value::Int(i), s, Value::Float(i as f64 / 2.0)]
    }
}

#[cfg(test)]
mod tests {
    use super::fixtures::{row, schema};
    use super::*;

    /// A "segment" of rows `from..to`, built from values.
    fn segment(schema: &TableSchema, from: i64, to: i64) -> RecordBatch {
        let rows: Vec<Arc<Waiting>> = (from..to).map(|i| Arc::new(row(i).into())).collect();
        values_batch(schema, &rows, None)
    }

    #[test]
    fn a_derived_row_reads_its_changes_and_keeps_the_rest_of_its_segment_row() {
        let schema = schema();
        let seg = segment(&schema, 0, 10);
        // the later change of a column wins; a column past the width is ignored
        let w = Waiting::derived(
            seg.clone(),
            4,
            [
                (1, Value::Str("x".into())),
                (5, Value::Int(9)),
                (1, Value::Null),
            ],
        );
        assert_eq!(
            w.values(),
            vec![Value::Int(4), Value::Null, Value::Float(2.0)]
        );
        assert!(w.is_null(1) && !w.is_null(0) && w.is_null(7));
        // changed again: still derived from the segment, the newest change on top
        let w2 = w.changed([(0, Value::Int(40)), (1, Value::Str("y".into()))]);
        assert!(matches!(w2, Waiting::Derived(_)));
        assert_eq!(
            w2.values(),
            vec![Value::Int(40), Value::Str("y".into()), Value::Float(2.0)]
        );
        // a row of values changed stays values
        let v = Waiting::from(row(5)).changed([(2, Value::Null)]);
        assert_eq!(
            v.values(),
            vec![Value::Int(5), Value::Str("r5".into()), Value::Null]
        );
        // only the wanted columns are read out for keys
        assert_eq!(
            &*w2.probe(|c| c == 0),
            &[Value::Int(40), Value::Null, Value::Null]
        );
    }

    #[test]
    fn a_run_of_values_and_derived_rows_becomes_the_rows_they_stand_for() {
        let schema = schema();
        let (a, b) = (segment(&schema, 0, 10), segment(&schema, 100, 110));
        let rows: Vec<Arc<Waiting>> = vec![
            Arc::new(row(50).into()),
            Arc::new(Waiting::derived(
                a.clone(),
                3,
                [(1, Value::Str("c".into()))],
            )),
            Arc::new(Waiting::derived(b.clone(), 2, [])),
            Arc::new(Waiting::derived(a.clone(), 7, [(2, Value::Null)])),
            Arc::new(row(51).into()),
        ];
        let want: Vec<Vec<Value>> = rows.iter().map(|r| r.values()).collect();
        assert_eq!(
            want[1],
            vec![Value::Int(3), Value::Str("c".into()), Value::Float(1.5)]
        );
        assert_eq!(want[2], row(102));
        assert_eq!(
            want[3],
            vec![Value::Int(7), Value::Str("r7".into()), Value::Null]
        );
        let batch = values_batch(&schema, &rows, None);
        assert_eq!(batch.schema(), schema.arrow);
        for (r, w) in want.iter().enumerate() {
            let got: Vec<Value> = batch.columns().iter().map(|c| value_at(c, r)).collect();
            assert_eq!(&got, w, "row {r}");
        }
        // a reader keeping columns 0 and 2: column 1 comes back NULL, the others as above
        let nullable = crate::table::all_nullable(&schema.arrow);
        for rows in [&rows[..], &rows[..1]] {
            let keep = [true, false, true];
            let part = values_batch(&schema, rows, Some((&keep, &nullable)));
            assert_eq!(part.schema(), nullable);
            assert_eq!(part.column(1).null_count(), rows.len());
            for (r, w) in want.iter().enumerate().take(rows.len()) {
                assert_eq!(value_at(part.column(0), r), w[0]);
                assert_eq!(value_at(part.column(2), r), w[2]);
            }
        }
    }
}
