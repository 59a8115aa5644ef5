//! SQL types, single values, and their Arrow mapping: BYTEINT/SMALLINT/INTEGER/BIGINT →
//! Int8/16/32/64, DECIMAL(p,s) → Decimal128(p,s), FLOAT → Float64, CHAR/VARCHAR → Utf8,
//! BYTE/VARBYTE → Binary, DATE → Date32, TIME → Time64(µs), TIMESTAMP → Timestamp(µs),
//! PERIOD(…) → FixedSizeBinary (its bounds, [`crate::period`]).
//!
//! Invariant: [`values_to_array`] and [`value_at`] are inverse for every value that fits its
//! type, so a row read back is the row written.

use crate::period::{Period, PeriodElem};
use arrow::array::{
    Array, ArrayRef, BinaryArray, Date32Array, Decimal128Array, FixedSizeBinaryArray, Float64Array,
    Int16Array, Int32Array, Int64Array, Int8Array, StringArray, Time64MicrosecondArray,
    TimestampMicrosecondArray,
};
use arrow::datatypes::{DataType as ArrowType, TimeUnit};
use std::cmp::Ordering;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// A column type as storage knows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum SqlType {
    /// 1-byte integer.
    ByteInt,
    /// 2-byte integer.
    SmallInt,
    /// 4-byte integer.
    Integer,
    /// 8-byte integer.
    BigInt,
    /// Exact decimal with precision and scale.
    Decimal(u8, i8),
    /// 64-bit float.
    Float,
    /// Fixed-length character string (padded with blanks).
    Char(u32),
    /// Variable-length character string.
    VarChar(u32),
    /// Calendar date.
    Date,
    /// Time of day with fractional precision.
    Time(u8),
    /// Timestamp with fractional precision.
    Timestamp(u8),
    /// Fixed-length byte string.
    Byte(u32),
    /// Variable-length byte string.
    VarByte(u32),
    /// `PERIOD(DATE)`, `PERIOD(TIME(n))`, `PERIOD(TIMESTAMP(n))`.
    Period(PeriodElem),
}

impl SqlType {
    /// BYTEINT, SMALLINT, INTEGER or BIGINT.
    pub fn is_integer(&self) -> bool {
        matches!(
            self,
            SqlType::ByteInt | SqlType::SmallInt | SqlType::Integer | SqlType::BigInt
        )
    }

    /// The largest value of an integer type (`None` for other types).
    pub fn integer_max(&self) -> Option<i64> {
        match self {
            SqlType::ByteInt => Some(i64::from(i8::MAX)),
            SqlType::SmallInt => Some(i64::from(i16::MAX)),
            SqlType::Integer => Some(i64::from(i32::MAX)),
            SqlType::BigInt => Some(i64::MAX),
            _ => None,
        }
    }

    /// The Arrow type that stores this SQL type.
    pub fn arrow_type(&self) -> ArrowType {
        match self {
            SqlType::ByteInt => ArrowType::Int8,
            SqlType::SmallInt => ArrowType::Int16,
            SqlType::Integer => ArrowType::Int32,
            SqlType::BigInt => ArrowType::Int64,
            SqlType::Decimal(p, s) => ArrowType::Decimal128(*p, *s),
            SqlType::Float => ArrowType::Float64,
            SqlType::Char(_) | SqlType::VarChar(_) => ArrowType::Utf8,
            SqlType::Date => ArrowType::Date32,
            SqlType::Time(_) => ArrowType::Time64(TimeUnit::Microsecond),
            SqlType::Timestamp(_) => ArrowType::Timestamp(TimeUnit::Microsecond, None),
            SqlType::Byte(_) | SqlType::VarByte(_) => ArrowType::Binary,
            SqlType::Period(e) => ArrowType::FixedSizeBinary(e.kind().width()),
        }
    }

    /// True for character types.
    pub fn is_character(&self) -> bool {
        matches!(self, SqlType::Char(_) | SqlType::VarChar(_))
    }
}

impl std::fmt::Display for SqlType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SqlType::ByteInt => write!(f, "BYTEINT"),
            SqlType::SmallInt => write!(f, "SMALLINT"),
            SqlType::Integer => write!(f, "INTEGER"),
            SqlType::BigInt => write!(f, "BIGINT"),
            SqlType::Decimal(p, s) => write!(f, "DECIMAL({p},{s})"),
            SqlType::Float => write!(f, "FLOAT"),
            SqlType::Char(n) => write!(f, "CHAR({n})"),
            SqlType::VarChar(n) => write!(f, "VARCHAR({n})"),
            SqlType::Date => write!(f, "DATE"),
            SqlType::Time(p) => write!(f, "TIME({p})"),
            SqlType::Timestamp(p) => write!(f, "TIMESTAMP({p})"),
            SqlType::Byte(n) => write!(f, "BYTE({n})"),
            SqlType::VarByte(n) => write!(f, "VARBYTE({n})"),
            SqlType::Period(PeriodElem::Date) => write!(f, "PERIOD(DATE)"),
            SqlType::Period(PeriodElem::Time(p)) => write!(f, "PERIOD(TIME({p}))"),
            SqlType::Period(PeriodElem::Timestamp(p)) => write!(f, "PERIOD(TIMESTAMP({p}))"),
        }
    }
}

/// One SQL value.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Value {
    /// SQL NULL.
    Null,
    /// Any integer type.
    Int(i64),
    /// A decimal: unscaled value and scale.
    Decimal(i128, i8),
    /// A float.
    Float(f64),
    /// A character string.
    Str(String),
    /// A byte string.
    Bytes(Vec<u8>),
    /// Days since 1970-01-01.
    Date(i32),
    /// Microseconds since midnight.
    Time(i64),
    /// Microseconds since 1970-01-01 00:00:00.
    Timestamp(i64),
    /// A PERIOD: `[begin, end)`.
    Period(Period),
}

impl Value {
    /// True for NULL.
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }
}

/// A row key normalised by Teradata's duplicate rules: trailing blanks ignored, and characters
/// compared case-blind unless the column is CASESPECIFIC.
#[derive(Debug, Clone, PartialEq)]
pub struct RowKey(pub Vec<Value>);

impl Eq for RowKey {}

impl Hash for RowKey {
    fn hash<H: Hasher>(&self, state: &mut H) {
        for v in &self.0 {
            match v {
                Value::Null => 0u8.hash(state),
                Value::Int(i) => (1u8, *i).hash(state),
                Value::Decimal(d, s) => (2u8, *d, *s).hash(state),
                Value::Float(f) => (3u8, f.to_bits()).hash(state),
                Value::Str(s) => (4u8, s).hash(state),
                Value::Bytes(b) => (5u8, b).hash(state),
                Value::Date(d) => (6u8, *d).hash(state),
                Value::Time(t) => (7u8, *t).hash(state),
                Value::Timestamp(t) => (8u8, *t).hash(state),
                Value::Period(p) => (9u8, p).hash(state),
            }
        }
    }
}

/// Normalises one value for duplicate and unique-key checks.
pub fn normalize_for_key(v: &Value, case_specific: bool) -> Value {
    match v {
        Value::Str(s) => {
            let t = s.trim_end_matches(' ');
            Value::Str(if case_specific {
                t.to_string()
            } else {
                t.to_uppercase()
            })
        }
        Value::Float(f) if *f == 0.0 => Value::Float(0.0),
        other => other.clone(),
    }
}

/// Orders two values of the same type, NULL first (the order `crate::key` encodes index
/// keys in; exec's aggregates and sorts use it on values).
pub fn compare_values(a: &Value, b: &Value) -> Ordering {
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => x.cmp(y),
        (Value::Float(x), Value::Float(y)) => x.total_cmp(y),
        (Value::Decimal(x, _), Value::Decimal(y, _)) => x.cmp(y),
        (Value::Str(x), Value::Str(y)) => x.cmp(y),
        (Value::Bytes(x), Value::Bytes(y)) => x.cmp(y),
        (Value::Date(x), Value::Date(y)) => x.cmp(y),
        (Value::Time(x), Value::Time(y)) | (Value::Timestamp(x), Value::Timestamp(y)) => x.cmp(y),
        (Value::Period(x), Value::Period(y)) => (x.begin, x.end).cmp(&(y.begin, y.end)),
        (Value::Null, Value::Null) => Ordering::Equal,
        (Value::Null, _) => Ordering::Less,
        (_, Value::Null) => Ordering::Greater,
        _ => Ordering::Equal,
    }
}

/// Builds an Arrow array of `ty` from values that already fit it (NULL allowed anywhere).
pub fn values_to_array<'a>(ty: SqlType, values: impl Iterator<Item = &'a Value>) -> ArrayRef {
    fn int(v: &Value) -> Option<i64> {
        match v {
            Value::Int(i) => Some(*i),
            _ => None,
        }
    }
    match ty {
        SqlType::ByteInt => Arc::new(Int8Array::from_iter(
            values.map(|v| int(v).map(|i| i as i8)),
        )),
        SqlType::SmallInt => Arc::new(Int16Array::from_iter(
            values.map(|v| int(v).map(|i| i as i16)),
        )),
        SqlType::Integer => Arc::new(Int32Array::from_iter(
            values.map(|v| int(v).map(|i| i as i32)),
        )),
        SqlType::BigInt => Arc::new(Int64Array::from_iter(values.map(int))),
        SqlType::Decimal(p, s) => Arc::new(
            Decimal128Array::from_iter(values.map(|v| match v {
                Value::Decimal(d, _) => Some(*d),
                _ => None,
            }))
            .with_precision_and_scale(p, s)
            .expect("precision and scale were validated at CREATE TABLE"),
        ),
        SqlType::Float => Arc::new(Float64Array::from_iter(values.map(|v| match v {
            Value::Float(f) => Some(*f),
            _ => None,
        }))),
        SqlType::Char(_) | SqlType::VarChar(_) => {
            Arc::new(StringArray::from_iter(values.map(|v| match v {
                Value::Str(s) => Some(s.as_str()),
                _ => None,
            })))
        }
        SqlType::Byte(_) | SqlType::VarByte(_) => {
            Arc::new(BinaryArray::from_iter(values.map(|v| match v {
                Value::Bytes(b) => Some(b.as_slice()),
                _ => None,
            })))
        }
        SqlType::Date => Arc::new(Date32Array::from_iter(values.map(|v| match v {
            Value::Date(d) => Some(*d),
            _ => None,
        }))),
        SqlType::Time(_) => Arc::new(Time64MicrosecondArray::from_iter(values.map(|v| match v {
            Value::Time(t) => Some(*t),
            _ => None,
        }))),
        SqlType::Timestamp(_) => {
            Arc::new(TimestampMicrosecondArray::from_iter(values.map(
                |v| match v {
                    Value::Timestamp(t) => Some(*t),
                    _ => None,
                },
            )))
        }
        SqlType::Period(e) => {
            let width = e.kind().width();
            let encoded: Vec<Option<Vec<u8>>> = values
                .map(|v| match v {
                    Value::Period(p) if p.kind == e.kind() => Some(crate::period::encode(p)),
                    _ => None,
                })
                .collect();
            Arc::new(
                FixedSizeBinaryArray::try_from_sparse_iter_with_size(encoded.into_iter(), width)
                    .expect("every period of one kind encodes to its kind's width"),
            )
        }
    }
}

/// Reads row `i` of an Arrow array produced by [`values_to_array`] (or any array of the
/// Arrow types the module docs list).
pub fn value_at(array: &dyn Array, i: usize) -> Value {
    if array.is_null(i) {
        return Value::Null;
    }
    let any = array.as_any();
    macro_rules! get {
        ($t:ty) => {
            any.downcast_ref::<$t>().map(|a| a.value(i))
        };
    }
    match array.data_type() {
        ArrowType::Int8 => Value::Int(get!(Int8Array).unwrap_or_default() as i64),
        ArrowType::Int16 => Value::Int(get!(Int16Array).unwrap_or_default() as i64),
        ArrowType::Int32 => Value::Int(get!(Int32Array).unwrap_or_default() as i64),
        ArrowType::Int64 => Value::Int(get!(Int64Array).unwrap_or_default()),
        ArrowType::Decimal128(_, s) => {
            Value::Decimal(get!(Decimal128Array).unwrap_or_default(), *s)
        }
        ArrowType::Float64 => Value::Float(get!(Float64Array).unwrap_or_default()),
        ArrowType::Utf8 => Value::Str(get!(StringArray).unwrap_or_default().to_string()),
        ArrowType::Binary => Value::Bytes(get!(BinaryArray).unwrap_or_default().to_vec()),
        ArrowType::Date32 => Value::Date(get!(Date32Array).unwrap_or_default()),
        ArrowType::Time64(TimeUnit::Microsecond) => {
            Value::Time(get!(Time64MicrosecondArray).unwrap_or_default())
        }
        ArrowType::Timestamp(TimeUnit::Microsecond, _) => {
            Value::Timestamp(get!(TimestampMicrosecondArray).unwrap_or_default())
        }
        ArrowType::FixedSizeBinary(_) => get!(FixedSizeBinaryArray)
            .and_then(crate::period::decode)
            .map_or(Value::Null, Value::Period),
        _ => Value::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_round_trip_through_arrow() {
        let cases = [
            (SqlType::ByteInt, Value::Int(-5)),
            (SqlType::BigInt, Value::Int(1 << 40)),
            (SqlType::Decimal(10, 2), Value::Decimal(12345, 2)),
            (SqlType::Float, Value::Float(1.5)),
            (SqlType::VarChar(5), Value::Str("ab".into())),
            (SqlType::VarByte(5), Value::Bytes(vec![1, 2])),
            (SqlType::Date, Value::Date(19000)),
            (SqlType::Time(6), Value::Time(1_000_000)),
            (
                SqlType::Timestamp(6),
                Value::Timestamp(1_700_000_000_000_000),
            ),
            (
                SqlType::Period(PeriodElem::Date),
                Value::Period(Period {
                    kind: crate::period::PeriodKind::Date,
                    begin: 12_000,
                    end: 12_400,
                }),
            ),
            (
                SqlType::Period(PeriodElem::Timestamp(2)),
                Value::Period(Period {
                    kind: crate::period::PeriodKind::Timestamp,
                    begin: 1_700_000_000_000_000,
                    end: 1_700_000_000_000_001,
                }),
            ),
        ];
        for (ty, v) in cases {
            let arr = values_to_array(ty, [v.clone(), Value::Null].iter());
            assert_eq!(value_at(arr.as_ref(), 0), v);
            assert_eq!(value_at(arr.as_ref(), 1), Value::Null);
        }
    }

    #[test]
    fn keys_ignore_trailing_blanks_and_case_unless_case_specific() {
        let a = normalize_for_key(&Value::Str("abc  ".into()), false);
        let b = normalize_for_key(&Value::Str("ABC".into()), false);
        assert_eq!(a, b);
        let c = normalize_for_key(&Value::Str("abc".into()), true);
        assert_ne!(c, b);
    }
}
