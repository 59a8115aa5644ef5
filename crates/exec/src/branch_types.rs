//! The type of a CASE expression from the types of its THEN and ELSE branches, by Teradata's
//! "Rules for the CASE Expression Result Type" (SQL Functions, Expressions, and Predicates),
//! which COALESCE, NVL, NVL2 and DECODE follow too (they are CASEs):
//!
//! - branches of one type give that type; NULL branches take the others' type;
//! - integers of several sizes give the largest (BYTEINT < SMALLINT < INTEGER < BIGINT);
//! - DECIMALs give a DECIMAL (precision and scale as binary arithmetic has them);
//! - a FLOAT among numbers, or DECIMALs mixed with integers, give FLOAT;
//! - a character branch among numbers gives character: each number becomes the text its
//!   type's default FORMAT writes (the implicit conversion, pads kept);
//! - a DATE, TIME, TIMESTAMP or PERIOD branch needs every other branch of its type, and
//!   BYTE/VARBYTE branches need byte branches: anything else is 3800 ("Datatype Mismatch in
//!   THEN/ELSE expression"; `COALESCE(date_col, '9999-12-31')` is the classic case).
//!
//! Invariant: [`result_type`] is commutative and associative over the branch types, so the
//! order of the branches never changes the result type.

use crate::error::{Error, Result};
use arrow::array::ArrayRef;
use arrow::datatypes::DataType;

/// The rank of an integer type (`None` for other types).
fn int_rank(t: &DataType) -> Option<u8> {
    match t {
        DataType::Int8 => Some(1),
        DataType::Int16 => Some(2),
        DataType::Int32 => Some(3),
        DataType::Int64 => Some(4),
        _ => None,
    }
}

/// Whether a type must meet only its own kind in a CASE (dates, times, periods, bytes).
fn exclusive(t: &DataType) -> bool {
    matches!(
        t,
        DataType::Date32
            | DataType::Time64(_)
            | DataType::Timestamp(..)
            | DataType::FixedSizeBinary(_)
            | DataType::Binary
            | DataType::Interval(_)
    )
}

/// The type two branches' values share.
///
/// # Errors
/// 3800 when a date, time, period or byte branch meets a branch of another type.
pub(crate) fn result_type(a: &DataType, b: &DataType) -> Result<DataType> {
    use DataType::*;
    if a == b {
        return Ok(a.clone());
    }
    let name = crate::types::type_name;
    let mismatch = || Error::BranchTypeMismatch(format!("{} and {}", name(a), name(b)));
    Ok(match (a, b) {
        (Null, t) | (t, Null) => t.clone(),
        _ if exclusive(a) || exclusive(b) => return Err(mismatch()),
        (Utf8, _) | (_, Utf8) => Utf8,
        (Float64, _) | (_, Float64) => Float64,
        (Decimal128(..), Decimal128(..)) => crate::expr::common_type(a, b)?,
        (Decimal128(..), _) | (_, Decimal128(..)) => Float64,
        _ => match (int_rank(a), int_rank(b)) {
            (Some(x), Some(y)) => {
                if x >= y {
                    a.clone()
                } else {
                    b.clone()
                }
            }
            _ => return Err(mismatch()),
        },
    })
}

/// The type of branches of these types.
///
/// # Errors
/// 3800 as [`result_type`].
pub(crate) fn of_all<'a>(types: impl IntoIterator<Item = &'a DataType>) -> Result<DataType> {
    let mut out = DataType::Null;
    for t in types {
        out = result_type(&out, t)?;
    }
    Ok(out)
}

/// A branch's values as the result type `t`: a number becoming text is written by its
/// type's default FORMAT, pads kept (Teradata's implicit conversion); the rest convert as a
/// cast does.
///
/// # Errors
/// The conversion's own (2616 for a value that does not fit).
pub(crate) fn convert(values: &ArrayRef, t: &DataType) -> Result<ArrayRef> {
    if values.data_type() == t {
        return Ok(values.clone());
    }
    if t == &DataType::Utf8 && values.data_type().is_numeric() {
        return crate::format::write_own(
            values,
            tdlite_storage::types::SqlType::VarChar(64000),
            None,
            crate::format::Pads::Keep,
        );
    }
    crate::expr::cast_to_arrow(values, t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::datatypes::TimeUnit;

    #[test]
    fn teradata_rules_for_mixed_branches() {
        use DataType::*;
        let d = |p, s| Decimal128(p, s);
        let ok = |a: &DataType, b: &DataType| result_type(a, b).unwrap();
        assert_eq!(ok(&Int8, &Int16), Int16);
        assert_eq!(ok(&Int64, &Int32), Int64);
        assert_eq!(ok(&Int32, &d(9, 2)), Float64);
        assert_eq!(ok(&d(9, 2), &d(5, 4)), ok(&d(5, 4), &d(9, 2)));
        assert!(matches!(ok(&d(9, 2), &d(5, 4)), Decimal128(..)));
        assert_eq!(ok(&Float64, &Int8), Float64);
        assert_eq!(ok(&Utf8, &Float64), Utf8);
        assert_eq!(ok(&Null, &Date32), Date32);
        let ts = Timestamp(TimeUnit::Microsecond, None);
        for (a, b) in [
            (&Date32, &Utf8),
            (&Date32, &ts),
            (&Int32, &Date32),
            (&Binary, &Utf8),
        ] {
            assert!(matches!(
                result_type(a, b),
                Err(Error::BranchTypeMismatch(_))
            ));
            assert!(matches!(
                result_type(b, a),
                Err(Error::BranchTypeMismatch(_))
            ));
        }
    }
}
