//! The SQL type that holds the values of an Arrow type: the type a computed column's values
//! take when they are made into values, compared, or stored.

use arrow::datatypes::DataType;
use tdlite_storage::types::SqlType;

/// Storage type that holds values of an Arrow type (for building arrays from values).
pub fn sql_type_of(dt: &DataType) -> SqlType {
    match dt {
        DataType::Int8 => SqlType::ByteInt,
        DataType::Int16 => SqlType::SmallInt,
        DataType::Int32 | DataType::Null => SqlType::Integer,
        DataType::Int64 => SqlType::BigInt,
        DataType::Decimal128(p, s) => SqlType::Decimal(*p, *s),
        DataType::Float64 => SqlType::Float,
        DataType::Date32 => SqlType::Date,
        DataType::Time64(_) => SqlType::Time(6),
        DataType::Timestamp(..) => SqlType::Timestamp(6),
        DataType::Binary => SqlType::VarByte(u32::MAX),
        _ => SqlType::VarChar(u32::MAX),
    }
}
