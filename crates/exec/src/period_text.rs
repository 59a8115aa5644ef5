//! The text of TIME, TIMESTAMP and PERIOD values where they become character: a TIMESTAMP
//! `2005-02-03 10:11:12.000000`, a TIME `10:11:12.000000` (Teradata's default formats
//! `YYYY-MM-DDBHH:MI:SS.S(F)` and `HH:MI:SS.S(F)`, F the type's fractional digits), a PERIOD
//! `('2005-02-03', '2006-02-04')`: both bounds quoted, each in its element type's own text,
//! separated by a comma and a blank (SQL Data Types and Literals, "Period to Character
//! Conversion"). What BTEQ shows, what a cast to character and `||` give, and what the CLI,
//! the test runners and Python (as teradatasql does, a `str`) receive for a period.
//!
//! A period column is an Arrow `FixedSizeBinary` array (`tdlite_storage::period`). tdlite's
//! times carry six fractional digits: they are written with six unless the caller knows the
//! type's precision (a column's, a CAST's).

use arrow::array::{Array, ArrayRef, FixedSizeBinaryArray, StringArray};
use arrow::datatypes::DataType;
use std::sync::Arc;
use tdlite_storage::period::{decode, Period, PeriodKind};

/// The kind of period an Arrow type holds, if it holds periods.
pub fn kind_of(t: &DataType) -> Option<PeriodKind> {
    match t {
        DataType::FixedSizeBinary(w) => PeriodKind::from_width(*w),
        _ => None,
    }
}

/// The fractional digits a result column's TIME, TIMESTAMP or PERIOD values are written with,
/// when its type says fewer than the six they carry (field metadata `precision`: a TIME(0)
/// column shows `10:11:12`).
pub fn fraction_digits(f: &arrow::datatypes::Field) -> Option<usize> {
    f.metadata()
        .get("precision")
        .and_then(|p| p.parse::<usize>().ok())
        .filter(|p| *p < 6)
}

/// One bound as the text of its element type (`2005-02-03`, `10:11:12.000000`,
/// `2005-02-03 10:11:12.000000`), with `digits` fractional digits (six if `None`).
pub fn bound_text(kind: PeriodKind, v: i64, digits: Option<usize>) -> String {
    let full = match kind {
        PeriodKind::Date => {
            return v
                .checked_mul(86_400)
                .and_then(|s| chrono::DateTime::from_timestamp(s, 0))
                .map_or_else(|| v.to_string(), |d| d.format("%Y-%m-%d").to_string())
        }
        PeriodKind::Time => chrono::DateTime::from_timestamp_micros(v.rem_euclid(86_400_000_000))
            .map(|d| d.format("%H:%M:%S%.6f").to_string()),
        PeriodKind::Timestamp => chrono::DateTime::from_timestamp_micros(v)
            .map(|d| d.format("%Y-%m-%d %H:%M:%S%.6f").to_string()),
    };
    let full = full.unwrap_or_else(|| v.to_string());
    match (digits, full.rfind('.')) {
        (Some(0), Some(dot)) => full[..dot].to_string(),
        (Some(d), Some(dot)) if d < 6 => full[..dot + 1 + d].to_string(),
        _ => full,
    }
}

/// A period's text, as BTEQ shows it: `('2005-02-03', '2006-02-04')`.
pub fn text(p: &Period, digits: Option<usize>) -> String {
    format!(
        "('{}', '{}')",
        bound_text(p.kind, p.begin, digits),
        bound_text(p.kind, p.end, digits)
    )
}

/// A TIME or TIMESTAMP array's values as text with `digits` fractional digits (six if
/// `None`); `None` for an array of another type.
pub fn time_text(a: &ArrayRef, digits: Option<usize>) -> Option<ArrayRef> {
    use arrow::array::AsArray;
    use arrow::datatypes::{Time64MicrosecondType, TimeUnit, TimestampMicrosecondType};
    let (values, kind): (Vec<Option<i64>>, PeriodKind) = match a.data_type() {
        DataType::Timestamp(TimeUnit::Microsecond, _) => (
            a.as_primitive::<TimestampMicrosecondType>()
                .iter()
                .collect(),
            PeriodKind::Timestamp,
        ),
        DataType::Time64(TimeUnit::Microsecond) => (
            a.as_primitive::<Time64MicrosecondType>().iter().collect(),
            PeriodKind::Time,
        ),
        _ => return None,
    };
    Some(Arc::new(StringArray::from_iter(
        values
            .into_iter()
            .map(|v| v.map(|v| bound_text(kind, v, digits))),
    )))
}

/// The fractional digits of each column of `schema` ([`fraction_digits`]).
pub fn schema_digits(schema: &arrow::datatypes::Schema) -> Vec<Option<usize>> {
    schema.fields().iter().map(|f| fraction_digits(f)).collect()
}

/// `batch`'s columns with each PERIOD column as its text ([`display`]), the others as they
/// are; `digits` from [`schema_digits`].
pub fn periods_as_text(
    batch: &arrow::array::RecordBatch,
    digits: &[Option<usize>],
) -> Vec<ArrayRef> {
    batch
        .columns()
        .iter()
        .zip(digits)
        .map(|(c, d)| display(c, *d).unwrap_or_else(|| c.clone()))
        .collect()
}

/// A period column's values as text (`None` for an array of another type): what the CLI, the
/// test runners and the Python values show. `digits` is the column's fractional-second
/// precision when it has fewer than six.
pub fn display(a: &ArrayRef, digits: Option<usize>) -> Option<ArrayRef> {
    kind_of(a.data_type())?;
    let b = a.as_any().downcast_ref::<FixedSizeBinaryArray>()?;
    Some(Arc::new(StringArray::from_iter(
        b.iter()
            .map(|v| v.and_then(decode).map(|p| text(&p, digits))),
    )))
}
