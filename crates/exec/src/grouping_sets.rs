//! `GROUP BY ROLLUP (…)`, `CUBE (…)` and `GROUPING SETS (…)`: one aggregation per grouping
//! set, their rows one after another, and `GROUPING(k)` telling which keys a row rolled up.
//!
//! The GROUP BY items expand to grouping sets (`ROLLUP (a, b)` is `(a, b), (a), ()`; `CUBE
//! (a, b)` every subset; several items combine by cross product, `GROUP BY a, ROLLUP (b)` is
//! `(a, b), (a)`), each a bit mask over the distinct key expressions. The aggregated batch then
//! has the keys (NULL where a set leaves a key out), one GROUPING flag per key (1 where it was
//! left out), then the aggregates, so the select list, HAVING, window functions and ORDER BY
//! bind to it as to a plain GROUP BY (`Grouping::call_column` says where the aggregates start).
//!
//! Invariant: a row of set s has, for every key k, `GROUPING(k) = 1` exactly when s leaves k
//! out, and then the key's value is NULL.

use crate::aggregate::aggregate;
use crate::error::{Error, Result};
use crate::expr::Expr;
use arrow::array::{new_null_array, ArrayRef, Int32Array, RecordBatch};
use arrow::datatypes::{DataType, Field, Schema};
use sqlparser::ast;
use std::sync::Arc;

/// At most this many grouping sets (a CUBE of 12 keys has 4,096).
const MAX_SETS: usize = 4096;

/// The distinct key expressions of a GROUP BY and, if it has ROLLUP, CUBE or GROUPING SETS,
/// the grouping sets as bit masks over them (bit i: key i is grouped on).
pub(crate) type Expanded = (Vec<ast::Expr>, Option<Vec<u64>>);

/// Expands GROUP BY items into keys and grouping sets.
///
/// # Errors
/// 9910 for more than 64 keys or more than [`MAX_SETS`] sets.
pub(crate) fn expand(items: &[ast::Expr]) -> Result<Expanded> {
    let is_set = |e: &ast::Expr| {
        matches!(
            e,
            ast::Expr::Rollup(_) | ast::Expr::Cube(_) | ast::Expr::GroupingSets(_)
        )
    };
    if !items.iter().any(is_set) {
        return Ok((items.to_vec(), None));
    }
    // how many sets, before building any
    let mut count: usize = 1;
    for item in items {
        let n = match item {
            ast::Expr::Rollup(lists) => lists.len().checked_add(1),
            ast::Expr::Cube(lists) => (lists.len() <= 12).then(|| 1usize << lists.len()),
            ast::Expr::GroupingSets(lists) => Some(lists.len()),
            _ => Some(1),
        };
        count = n
            .and_then(|n| count.checked_mul(n))
            .filter(|c| *c <= MAX_SETS)
            .ok_or_else(too_many)?;
    }
    // each distinct key expression gets a bit, in the order written
    let mut keys: Vec<ast::Expr> = Vec::new();
    let mut bits = |list: &[ast::Expr]| -> Result<u64> {
        let mut mask = 0u64;
        for e in list {
            let text = e.to_string().to_uppercase();
            let i = match keys
                .iter()
                .position(|k| k.to_string().to_uppercase() == text)
            {
                Some(i) => i,
                None if keys.len() < 64 => {
                    keys.push(e.clone());
                    keys.len() - 1
                }
                None => return Err(too_many()),
            };
            mask |= 1 << i;
        }
        Ok(mask)
    };
    let mut product: Vec<u64> = vec![0];
    for item in items {
        let masks: Vec<u64> = match item {
            ast::Expr::Rollup(lists) => {
                let parts = lists.iter().map(|l| bits(l)).collect::<Result<Vec<_>>>()?;
                (0..=parts.len())
                    .rev()
                    .map(|n| parts[..n].iter().fold(0, |m, p| m | p))
                    .collect()
            }
            ast::Expr::Cube(lists) => {
                let parts = lists.iter().map(|l| bits(l)).collect::<Result<Vec<_>>>()?;
                let n = parts.len();
                (0..1usize << n)
                    .rev()
                    .map(|set| {
                        (0..n)
                            .filter(|i| set & (1 << (n - 1 - i)) != 0)
                            .fold(0, |m, i| m | parts[i])
                    })
                    .collect()
            }
            ast::Expr::GroupingSets(lists) => {
                lists.iter().map(|l| bits(l)).collect::<Result<Vec<_>>>()?
            }
            plain => vec![bits(std::slice::from_ref(plain))?],
        };
        product = product
            .iter()
            .flat_map(|p| masks.iter().map(move |m| p | m))
            .collect();
    }
    Ok((keys, Some(product)))
}

fn too_many() -> Error {
    Error::Unsupported(format!(
        "GROUP BY with more than 64 keys or {MAX_SETS} grouping sets"
    ))
}

/// Aggregates `input` once per grouping set: keys (NULL where the set leaves them out), one
/// GROUPING flag per key, then the aggregate calls.
///
/// # Errors
/// Those of evaluating the keys and aggregates.
pub(crate) fn aggregate_sets(
    input: &RecordBatch,
    keys: &[Expr],
    calls: &[crate::bind::AggCall],
    masks: &[u64],
) -> Result<RecordBatch> {
    let empty = input.slice(0, 0);
    let key_types: Vec<DataType> = keys
        .iter()
        .map(|k| k.eval(&empty).map(|a| a.data_type().clone()))
        .collect::<Result<_>>()?;
    let mut batches = Vec::with_capacity(masks.len());
    let mut schema = None;
    // the sets built so far (CUBE of 12 keys is 4,096 sets), and at the end their
    // concatenation beside them, twice as much: checked as each set is added
    let mut bytes = 0usize;
    for &mask in masks {
        let grouped: Vec<usize> = (0..keys.len()).filter(|i| mask & (1 << i) != 0).collect();
        let subset: Vec<Expr> = grouped.iter().map(|&i| keys[i].clone()).collect();
        let part = aggregate(input, &subset, calls)?;
        let rows = part.num_rows();
        let mut columns: Vec<ArrayRef> = Vec::with_capacity(2 * keys.len() + calls.len());
        for (i, ty) in key_types.iter().enumerate() {
            columns.push(match grouped.iter().position(|&g| g == i) {
                Some(p) => part.column(p).clone(),
                None => new_null_array(ty, rows),
            });
        }
        for i in 0..keys.len() {
            let flag = i32::from(mask & (1 << i) == 0);
            columns.push(Arc::new(Int32Array::from(vec![flag; rows])));
        }
        columns.extend(part.columns()[grouped.len()..].iter().cloned());
        let size = columns
            .iter()
            .map(|c| crate::limits::value_bytes(c.as_ref()));
        bytes = bytes.saturating_add(size.sum());
        crate::interrupt::check_spool(bytes.saturating_mul(2))?;
        let schema = schema
            .get_or_insert_with(|| {
                let fields: Vec<Field> = columns
                    .iter()
                    .enumerate()
                    .map(|(n, c)| Field::new(format!("c{n}"), c.data_type().clone(), true))
                    .collect();
                Arc::new(Schema::new(fields))
            })
            .clone();
        // a set with no key and no aggregate still has its rows (GROUPING SETS (()))
        batches.push(RecordBatch::try_new_with_options(
            schema,
            columns,
            &arrow::record_batch::RecordBatchOptions::new().with_row_count(Some(rows)),
        )?);
    }
    let schema = schema.ok_or_else(|| Error::Internal("no grouping sets".into()))?;
    Ok(arrow::compute::concat_batches(&schema, &batches)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exprs(sql: &str) -> Vec<ast::Expr> {
        let q = format!("SELECT 1 FROM t GROUP BY {sql}");
        let stmts = tdlite_parser::parse_request(&q).expect("parses");
        let tdlite_parser::Statement::Sql(stmt) = &stmts[0].statement else {
            panic!("a query")
        };
        let ast::Statement::Query(q) = stmt.as_ref() else {
            panic!("a query")
        };
        let ast::SetExpr::Select(s) = q.body.as_ref() else {
            panic!("a select")
        };
        match &s.group_by {
            ast::GroupByExpr::Expressions(v, _) => v.clone(),
            _ => panic!("expressions"),
        }
    }

    fn masks(sql: &str) -> (Vec<String>, Vec<u64>) {
        let (keys, masks) = expand(&exprs(sql)).expect("expands");
        (
            keys.iter().map(ToString::to_string).collect(),
            masks.expect("grouping sets"),
        )
    }

    #[test]
    fn rollup_cube_and_grouping_sets_expand() {
        assert_eq!(
            masks("ROLLUP (a, b)"),
            (vec!["a".into(), "b".into()], vec![3, 1, 0])
        );
        assert_eq!(masks("CUBE (a, b)").1, vec![3, 1, 2, 0]);
        assert_eq!(masks("GROUPING SETS ((a), (b), ())").1, vec![1, 2, 0]);
        // items combine by cross product; a key named twice is one key
        assert_eq!(
            masks("a, ROLLUP (b)"),
            (vec!["a".into(), "b".into()], vec![3, 1])
        );
        assert_eq!(masks("ROLLUP ((a, b), c)").1, vec![7, 3, 0]);
        assert!(expand(&exprs("a, b")).expect("plain").1.is_none());
        // limits are checked before anything is built
        let many = format!("ROLLUP ({})", vec!["a"; 5000].join(", "));
        assert!(expand(&exprs(&many)).is_err(), "5001 sets");
        let keys: Vec<String> = (0..65).map(|i| format!("c{i}")).collect();
        let wide = format!("GROUPING SETS (({}))", keys.join(", "));
        assert!(expand(&exprs(&wide)).is_err(), "65 keys");
        assert!(expand(&exprs("CUBE (a, b, c, d, e, f, g, h, i, j, k, l, m)")).is_err());
    }
}
