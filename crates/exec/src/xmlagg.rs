//! `XMLAGG(x [ORDER BY k [ASC|DESC] [NULLS FIRST|LAST], …])`: the rows' values of one group
//! as one XML sequence, serialised to text — the aggregate Teradata scripts use to list a
//! group's values in one string (`XMLAGG(TRIM(c) || ',' ORDER BY c) (VARCHAR(1000))`).
//!
//! Teradata's rules (XML Data Type, "XMLAGG" and "XMLCONCAT"): NULLs are left out, the values
//! are taken in the call's ORDER BY (the rows' order without one) and concatenated as XML
//! values; each is an atomic value of the sequence, and a serialised sequence of atomic values
//! has one blank between neighbours (hence the well-known `a, b, c,` of the idiom above).
//! Character data is escaped as XML text: `&` as `&amp;`, `<` as `&lt;`, `>` as `&gt;`. A group
//! with no value gives NULL. tdlite has no XML type: the result is a VARCHAR(64000), which the
//! usual `(VARCHAR(n))` conversion or CAST shortens; values that are not characters are
//! written as CAST to VARCHAR writes them.
//!
//! Invariant: each group's items appear in the order of one sort of all the input rows by the
//! call's keys (Teradata's ORDER BY rules: characters by their comparison form, NULLs first
//! when ascending); equal keys keep the rows' order.

use crate::error::Result;
use crate::ops::{sort_indices, SortKey};
use arrow::array::{Array, ArrayRef, AsArray, StringBuilder};
use arrow::datatypes::DataType;
use arrow::record_batch::RecordBatch;
use std::sync::Arc;
use tdlite_storage::types::SqlType;

/// The result type: text long enough for what a request can hold.
pub(crate) const RESULT_TYPE: SqlType = SqlType::VarChar(64_000);

/// XMLAGG of `arg` (evaluated over `input`) per group, the items of each group ordered by
/// `order` (evaluated over `input`).
///
/// # Errors
/// The conversion of a value to text (none expected for the types tdlite has), or of an
/// ORDER BY key's evaluation.
pub(crate) fn xmlagg<'g>(
    input: &RecordBatch,
    arg: &ArrayRef,
    order: &[SortKey],
    groups: impl Iterator<Item = &'g [u32]>,
) -> Result<ArrayRef> {
    let text = match arg.data_type() {
        DataType::Utf8 => arg.clone(),
        DataType::Null => Arc::new(arrow::array::StringArray::new_null(arg.len())),
        _ => crate::expr::cast_to_sql(arg, RESULT_TYPE)?,
    };
    let text = text.as_string::<i32>();
    // each row's place in the call's order (row order without ORDER BY)
    let rank: Option<Vec<u32>> = match order.is_empty() {
        true => None,
        false => {
            let sorted = sort_indices(input, order, None)?;
            let mut rank = vec![0u32; sorted.len()];
            for (place, &row) in sorted.iter().enumerate() {
                rank[row as usize] = place as u32;
            }
            Some(rank)
        }
    };
    let mut out = StringBuilder::new();
    let mut rows: Vec<u32> = Vec::new();
    for group in groups {
        rows.clear();
        rows.extend(group.iter().copied().filter(|&i| text.is_valid(i as usize)));
        if let Some(rank) = &rank {
            rows.sort_by_key(|&i| rank[i as usize]);
        }
        if rows.is_empty() {
            out.append_null();
            continue;
        }
        let mut s = String::new();
        for (k, &i) in rows.iter().enumerate() {
            if k > 0 {
                s.push(' ');
            }
            escape_into(&mut s, text.value(i as usize));
        }
        out.append_value(s);
    }
    Ok(Arc::new(out.finish()))
}

/// `v` as XML character data: `&`, `<` and `>` as entity references.
fn escape_into(s: &mut String, v: &str) {
    for c in v.chars() {
        match c {
            '&' => s.push_str("&amp;"),
            '<' => s.push_str("&lt;"),
            '>' => s.push_str("&gt;"),
            c => s.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::Expr;
    use arrow::array::{Int32Array, StringArray};
    use arrow::datatypes::{Field, Schema};

    fn batch() -> RecordBatch {
        let schema = Schema::new(vec![
            Field::new("k", DataType::Int32, true),
            Field::new("v", DataType::Utf8, true),
        ]);
        RecordBatch::try_new(
            Arc::new(schema),
            vec![
                Arc::new(Int32Array::from(vec![Some(3), Some(1), None, Some(2)])),
                Arc::new(StringArray::from(vec![
                    Some("c"),
                    Some("a&b"),
                    Some("n"),
                    None,
                ])),
            ],
        )
        .unwrap()
    }

    fn key(descending: bool) -> SortKey {
        SortKey {
            expr: Expr::Column {
                index: 0,
                case_specific: false,
            },
            descending,
            nulls_first: !descending,
        }
    }

    fn run(order: &[SortKey], groups: &[&[u32]]) -> Vec<Option<String>> {
        let b = batch();
        let out = xmlagg(&b, b.column(1), order, groups.iter().copied()).unwrap();
        let s = out.as_string::<i32>();
        (0..s.len())
            .map(|i| s.is_valid(i).then(|| s.value(i).to_string()))
            .collect()
    }

    #[test]
    fn items_are_blank_separated_escaped_and_ordered_with_nulls_first() {
        assert_eq!(
            run(&[key(false)], &[&[0, 1, 2, 3]]),
            vec![Some("n a&amp;b c".to_string())]
        );
        assert_eq!(
            run(&[key(true)], &[&[0, 1, 2, 3]]),
            vec![Some("c a&amp;b n".to_string())]
        );
        // no ORDER BY: the rows' order
        assert_eq!(
            run(&[], &[&[2, 0], &[1]]),
            vec![Some("n c".to_string()), Some("a&amp;b".to_string())]
        );
    }

    #[test]
    fn a_group_of_nulls_or_no_rows_is_null() {
        assert_eq!(run(&[], &[&[3], &[]]), vec![None, None]);
    }
}
