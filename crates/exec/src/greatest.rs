//! `GREATEST(v1, v2, …)` and `LEAST(v1, v2, …)` (SQL Functions, Expressions, and Predicates,
//! "GREATEST" and "LEAST"): the largest or smallest argument of each row, NULL if any argument
//! is NULL.
//!
//! The result type, by the manual's "Result Type": numbers take the argument type of the
//! highest precedence (BYTEINT < SMALLINT < INTEGER < BIGINT < DECIMAL < FLOAT); DECIMALs
//! (and integers beside them, as DECIMAL(3|5|10|19, 0)) give a DECIMAL with the most integer
//! digits and the most fractional digits of any argument, at most 38 digits, fractional digits
//! given up first; character arguments give a VARCHAR, compared as the bytes of their text
//! (as an embedded services function compares them: case specific, blanks counted); DATE
//! arguments a DATE, TIMESTAMP arguments a TIMESTAMP. Arguments of different kinds are 9913
//! (Teradata's number for it was not found).
//!
//! Invariant: every argument is converted to the result type before any comparison, so the
//! result is one of the arguments' values in that type (rounded where 38 digits cannot hold
//! every argument's digits: the manual's DECIMAL(32,8) and DECIMAL(30,28) give
//! DECIMAL(38,14)).

use crate::error::{Error, Result};
use arrow::array::{new_null_array, Array, ArrayRef};
use arrow::compute::kernels::{boolean, cmp, zip::zip};
use arrow::datatypes::DataType;

/// The integer digits an integer type holds.
fn int_digits(t: &DataType) -> Option<i8> {
    crate::decimal::integer_digits(t).map(|d| d as i8)
}

/// The type the arguments are compared in and the result has.
fn result_type(types: &[&DataType]) -> Result<DataType> {
    use DataType::*;
    let known: Vec<&DataType> = types.iter().copied().filter(|t| **t != Null).collect();
    let Some(first) = known.first() else {
        return Ok(Int32);
    };
    let mismatch = || {
        let names: Vec<String> = known.iter().map(|t| crate::types::type_name(t)).collect();
        Error::TypeMismatch(format!(
            "GREATEST and LEAST take arguments of one kind (numbers, text, dates or \
             timestamps), not {}",
            names.join(", ")
        ))
    };
    if known.iter().all(|t| **t == Utf8) {
        return Ok(Utf8);
    }
    if known.iter().all(|t| t == first) {
        return match first {
            Date32 | Timestamp(..) | Float64 | Decimal128(..) | Int8 | Int16 | Int32 | Int64 => {
                Ok((*first).clone())
            }
            _ => Err(mismatch()),
        };
    }
    if !known.iter().all(|t| t.is_numeric()) {
        return Err(mismatch());
    }
    if known.iter().any(|t| **t == Float64) {
        return Ok(Float64);
    }
    if let Some(widest) = known.iter().copied().max_by_key(|t| int_digits(t)) {
        if known.iter().all(|t| int_digits(t).is_some()) {
            return Ok(widest.clone());
        }
    }
    // DECIMALs (integers among them as DECIMAL(n, 0))
    let (mut int, mut frac) = (0i8, 0i8);
    for t in &known {
        let (i, f) = match t {
            Decimal128(p, s) => ((*p as i8) - *s, *s),
            other => (int_digits(other).ok_or_else(mismatch)?, 0),
        };
        int = int.max(i);
        frac = frac.max(f);
    }
    let int = int.min(38);
    let frac = frac.min(38 - int);
    Ok(Decimal128((int + frac).max(1) as u8, frac))
}

/// GREATEST (`greatest`) or LEAST of `args`, each `n` rows.
///
/// # Errors
/// 9913 for arguments of different kinds or fewer than two, and the conversions' own
/// errors.
pub(crate) fn extreme(args: Vec<ArrayRef>, greatest: bool, n: usize) -> Result<ArrayRef> {
    if args.len() < 2 {
        return Err(Error::TypeMismatch(
            "GREATEST and LEAST take two or more arguments".into(),
        ));
    }
    let types: Vec<&DataType> = args.iter().map(|a| a.data_type()).collect();
    let t = result_type(&types)?;
    let mut out: Option<ArrayRef> = None;
    let mut any_null: Option<arrow::array::BooleanArray> = None;
    for a in &args {
        let a = crate::expr::cast_to_arrow(a, &t)?;
        let nulls = boolean::is_null(&a)?;
        any_null = Some(match any_null {
            None => nulls,
            Some(m) => boolean::or(&m, &nulls)?,
        });
        out = Some(match out {
            None => a,
            Some(acc) => {
                let better = match greatest {
                    true => cmp::gt(&a, &acc)?,
                    false => cmp::lt(&a, &acc)?,
                };
                // a NULL comparison keeps the accumulated value (the row is NULL anyway)
                let better = boolean::and(&better, &boolean::is_not_null(&better)?)?;
                zip(&better, &a, &acc)?
            }
        });
    }
    let out = out.unwrap_or_else(|| new_null_array(&t, n));
    match any_null {
        Some(m) if m.true_count() > 0 => Ok(arrow::compute::nullif(&out, &m)?),
        _ => Ok(out),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{Decimal128Array, Int32Array, Int8Array, StringArray};
    use std::sync::Arc;

    #[test]
    fn numbers_meet_in_the_highest_type_and_decimals_keep_every_digit() {
        use DataType::*;
        assert_eq!(result_type(&[&Int8, &Int32]).unwrap(), Int32);
        assert_eq!(
            result_type(&[&Decimal128(6, 3), &Decimal128(7, 4), &Decimal128(8, 7)]).unwrap(),
            Decimal128(10, 7)
        );
        assert_eq!(
            result_type(&[&Decimal128(32, 8), &Decimal128(30, 28)]).unwrap(),
            Decimal128(38, 14)
        );
        assert_eq!(
            result_type(&[&Int32, &Decimal128(4, 2)]).unwrap(),
            Decimal128(12, 2)
        );
        assert_eq!(result_type(&[&Int32, &Float64]).unwrap(), Float64);
        assert!(result_type(&[&Date32, &Int32]).is_err());
        assert!(result_type(&[&Utf8, &Int32]).is_err());
    }

    #[test]
    fn each_row_takes_its_extreme_and_a_null_argument_makes_the_row_null() {
        let a: ArrayRef = Arc::new(Int32Array::from(vec![Some(1), Some(5), None]));
        let b: ArrayRef = Arc::new(Int8Array::from(vec![Some(3), Some(2), Some(1)]));
        let g = extreme(vec![a.clone(), b.clone()], true, 3).unwrap();
        assert_eq!(
            g.as_any().downcast_ref::<Int32Array>().unwrap(),
            &Int32Array::from(vec![Some(3), Some(5), None])
        );
        let l = extreme(vec![a, b], false, 3).unwrap();
        assert_eq!(
            l.as_any().downcast_ref::<Int32Array>().unwrap(),
            &Int32Array::from(vec![Some(1), Some(2), None])
        );
        let d: ArrayRef = Arc::new(
            Decimal128Array::from(vec![150i128])
                .with_precision_and_scale(4, 2)
                .unwrap(),
        );
        let i: ArrayRef = Arc::new(Int32Array::from(vec![1]));
        let g = extreme(vec![i, d], true, 1).unwrap();
        assert_eq!(g.data_type(), &DataType::Decimal128(12, 2));
        let s: ArrayRef = Arc::new(StringArray::from(vec!["a", "B"]));
        let t: ArrayRef = Arc::new(StringArray::from(vec!["A", "b"]));
        let g = extreme(vec![s, t], true, 2).unwrap();
        assert_eq!(
            g.as_any().downcast_ref::<StringArray>().unwrap(),
            &StringArray::from(vec!["a", "b"])
        );
    }
}
