//! Teradata's DATE as a number (issue 18; Teradata's SQL Data Types and Literals, cited in
//! ../shared/teradata-reference.md [D34]): Teradata stores each DATE as the integer (year − 1900) · 10000 + month · 100 + day, and
//! that integer is what a DATE becomes wherever it meets a number: `CAST(d AS INTEGER)`,
//! `d (INTEGER)`, a comparison with a number; a number assigned or cast to a DATE is read the
//! same way (2000-01-01 is 1000101, 1899-12-31 is −8769, 2020-03-15 is 1200315), and one that
//! is not a date in that encoding is error 2665. DATE ± INTEGER still adds days, and
//! DATE − DATE is a number of days ([`day_numbers`]).
//!
//! Invariant: Arrow keeps DATE as Date32 (days since 1970-01-01); only the conversions here
//! see the encoding.

use crate::error::{Error, Result};
use arrow::array::{Array, ArrayRef, AsArray, Date32Array, Int32Array};
use arrow::datatypes::{DataType, Date32Type, Int64Type};
use chrono::{Datelike, NaiveDate};
use std::sync::Arc;

/// 1970-01-01, day 0 of Date32.
fn epoch() -> NaiveDate {
    NaiveDate::from_ymd_opt(1970, 1, 1).unwrap_or_default()
}

/// A DATE array as Teradata's numbers (INTEGER).
pub(crate) fn to_number(a: &ArrayRef) -> ArrayRef {
    let days = a.as_primitive::<Date32Type>();
    let out: Int32Array = days.unary_opt(|d| {
        let date = epoch().checked_add_signed(chrono::Duration::days(i64::from(d)))?;
        Some((date.year() - 1900) * 10_000 + date.month() as i32 * 100 + date.day() as i32)
    });
    Arc::new(out)
}

/// Teradata's numbers (BIGINT) as a DATE array.
///
/// # Errors
/// 2665 for a number that is not a date in the encoding.
pub(crate) fn from_number(a: &ArrayRef) -> Result<ArrayRef> {
    let n = a.as_primitive::<Int64Type>();
    let mut out = Vec::with_capacity(n.len());
    for v in n.iter() {
        out.push(match v {
            None => None,
            Some(v) => Some(date_of(v).ok_or_else(|| Error::InvalidDate(v.to_string()))?),
        });
    }
    Ok(Arc::new(Date32Array::from(out)))
}

/// The Date32 day of number `v`, if it is a date.
fn date_of(v: i64) -> Option<i32> {
    let year = i32::try_from(v.div_euclid(10_000) + 1900).ok()?;
    let rest = v.rem_euclid(10_000);
    let date = NaiveDate::from_ymd_opt(year, (rest / 100) as u32, (rest % 100) as u32)?;
    if !(1..=9999).contains(&date.year()) {
        return None;
    }
    i32::try_from(date.signed_duration_since(epoch()).num_days()).ok()
}

/// A DATE array's days since 1970-01-01, or an integer array as INTEGER (DATE arithmetic:
/// `DATE ± n` adds days, `DATE − DATE` counts them).
///
/// # Errors
/// As [`crate::expr::cast_to_arrow`] for a number that does not fit.
pub(crate) fn day_numbers(a: &ArrayRef) -> Result<ArrayRef> {
    if a.data_type() == &DataType::Date32 {
        let days = a.as_primitive::<Date32Type>();
        return Ok(Arc::new(
            days.reinterpret_cast::<arrow::datatypes::Int32Type>(),
        ));
    }
    crate::expr::cast_to_arrow(a, &DataType::Int32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_and_their_numbers() {
        for (ymd, n) in [
            ((2000, 1, 1), 1_000_101),
            ((2020, 3, 15), 1_200_315),
            ((1899, 12, 31), -8_769),
            ((1900, 1, 1), 101),
            ((1, 1, 1), -18_989_899),
            ((9999, 12, 31), 80_991_231),
        ] {
            let d = NaiveDate::from_ymd_opt(ymd.0, ymd.1, ymd.2).unwrap();
            let days = d.signed_duration_since(epoch()).num_days() as i32;
            let a: ArrayRef = Arc::new(Date32Array::from(vec![days]));
            let num = to_number(&a);
            assert_eq!(
                num.as_primitive::<arrow::datatypes::Int32Type>().value(0),
                n,
                "{ymd:?}"
            );
            assert_eq!(date_of(i64::from(n)), Some(days), "{n}");
        }
        for bad in [1_201_345, 1_000_230, 1_001_301, 81_000_101, 0] {
            assert_eq!(date_of(bad), None, "{bad}");
        }
    }
}
