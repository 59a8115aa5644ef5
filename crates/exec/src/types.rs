//! SQL types: the one mapping from tdlite's type syntax (CREATE TABLE columns, CAST, typed
//! literals) to [`SqlType`], and the SQL type that holds the values of an Arrow type (the
//! type a computed column's values take when they are made into values, compared, or stored);
//! and which pairs of Arrow types a hash join may compare as keys (`hashable`) and which compare
//! without a conversion that could fail (`same_family`).

use crate::error::{Error, Result};
use arrow::datatypes::DataType;
use tdlite_parser::{DataType as PType, PeriodOf};
use tdlite_storage::period::{PeriodElem, PeriodKind};
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
        DataType::FixedSizeBinary(w) => match PeriodKind::from_width(*w) {
            Some(k) => SqlType::Period(k.elem()),
            None => SqlType::VarByte(u32::MAX),
        },
        _ => SqlType::VarChar(u32::MAX),
    }
}

/// A value's type as a message names it: its SQL type ([`sql_type_of`]) without what a
/// value's array does not carry (a length, a TIME's or TIMESTAMP's digits: `VARBYTE`,
/// `TIMESTAMP`, not `VARBYTE(4294967295)`, `TIMESTAMP(6)`), and the kinds that type does
/// not name (an INTERVAL, a condition's truth value, a row of values, NULL).
pub fn type_name(dt: &DataType) -> String {
    match dt {
        DataType::Null => "NULL".into(),
        DataType::Boolean => "a truth value".into(),
        DataType::Interval(_) | DataType::Duration(_) => "INTERVAL".into(),
        DataType::Struct(_) => "a row of values".into(),
        DataType::Time32(_) | DataType::Time64(_) => "TIME".into(),
        DataType::Timestamp(_, Some(_)) => "TIMESTAMP WITH TIME ZONE".into(),
        DataType::Timestamp(_, None) => "TIMESTAMP".into(),
        DataType::Binary | DataType::LargeBinary => "VARBYTE".into(),
        DataType::Utf8 | DataType::LargeUtf8 => "VARCHAR".into(),
        _ => match sql_type_of(dt) {
            SqlType::VarByte(_) => "VARBYTE".into(),
            SqlType::VarChar(_) => "VARCHAR".into(),
            t => t.to_string(),
        },
    }
}

/// The storage type of a parsed type: the one mapping from tdlite's type syntax to
/// [`SqlType`] (CREATE TABLE columns, CAST, typed literals).
pub(crate) fn storage_type(t: &PType) -> Result<SqlType> {
    Ok(match *t {
        PType::ByteInt => SqlType::ByteInt,
        PType::SmallInt => SqlType::SmallInt,
        PType::Integer => SqlType::Integer,
        PType::BigInt => SqlType::BigInt,
        PType::Decimal(p, s) => SqlType::Decimal(p, s),
        PType::Float => SqlType::Float,
        PType::Char(n) => SqlType::Char(n.max(1)),
        PType::VarChar(n) => SqlType::VarChar(n),
        PType::Date => SqlType::Date,
        PType::Time(p) => SqlType::Time(p),
        PType::Timestamp { precision, .. } => SqlType::Timestamp(precision),
        PType::Byte(n) => SqlType::Byte(n),
        PType::VarByte(n) => SqlType::VarByte(n),
        PType::Period(of) => SqlType::Period(match of {
            PeriodOf::Date => PeriodElem::Date,
            PeriodOf::Time(p) => PeriodElem::Time(p),
            PeriodOf::Timestamp(p) => PeriodElem::Timestamp(p),
        }),
        PType::Unsupported(l) => return Err(Error::Unsupported(format!("the {l:?} data type"))),
    })
}

/// The storage type of a type as written in a CAST or a typed literal (`DECIMAL(10,2)`,
/// `VARCHAR(20)`, sqlparser's `Display` of its `DataType`): read by the parser's one type
/// grammar, the one CREATE TABLE reads column types with, and mapped as CREATE TABLE maps
/// them ([`storage_type`]), so a type means the same everywhere.
///
/// # Errors
/// 9910 for a type name tdlite does not know; the grammar's 3706 for a malformed one.
pub fn sql_type_from_name(text: &str) -> Result<SqlType> {
    match tdlite_parser::parse_data_type(text)? {
        Some(t) => storage_type(&t),
        None => Err(Error::Unsupported(format!("the data type {text}"))),
    }
}

/// Whether two key types compare without converting text to numbers (which can fail, and
/// must fail only for the pairs the nested loop would have compared).
pub(crate) fn hashable(l: &DataType, r: &DataType) -> bool {
    let class = |t: &DataType| match t {
        DataType::Int8
        | DataType::Int16
        | DataType::Int32
        | DataType::Int64
        | DataType::Decimal128(..)
        | DataType::Float64 => 1,
        DataType::Utf8 => 2,
        DataType::Date32 => 3,
        DataType::Timestamp(..) => 4,
        DataType::Time64(_) => 5,
        DataType::Binary => 6,
        DataType::FixedSizeBinary(_) => 7,
        _ => 0,
    };
    class(l) != 0 && class(l) == class(r) && (class(l) != 7 || l == r)
}

/// Whether the values of a result column `field` compare case-specifically (a CASESPECIFIC
/// column's: an IN subquery's values, a row value IN's set).
pub(crate) fn case_specific(field: &arrow::datatypes::Field) -> bool {
    field.metadata().contains_key("casespecific")
}

/// The field-metadata key holding a result column's declared character type (`CHAR(5)`;
/// text_type.rs says where it is known).
pub(crate) const TEXT_TYPE_KEY: &str = "texttype";

/// The length of a character type; `None` for other types.
pub(crate) fn text_length(t: SqlType) -> Option<u32> {
    match t {
        SqlType::Char(n) | SqlType::VarChar(n) => Some(n),
        _ => None,
    }
}

/// The n of a result column declared CHAR(n) (its field's metadata; text_type.rs says where
/// that is known): BTEQ writes such a column as n characters in its DATA records.
pub fn fixed_char_length(f: &arrow::datatypes::Field) -> Option<usize> {
    match text_type_of_field(f)? {
        SqlType::Char(n) => usize::try_from(n).ok(),
        _ => None,
    }
}

/// The declared character type a result field carries in its metadata ([`TEXT_TYPE_KEY`]).
pub(crate) fn text_type_of_field(f: &arrow::datatypes::Field) -> Option<SqlType> {
    let t = sql_type_from_name(f.metadata().get(TEXT_TYPE_KEY)?).ok()?;
    text_length(t).map(|_| t)
}

/// True if values of types `a` and `b` compare (and hash as keys) without a conversion that
/// could fail: a pair [`hashable`] allows whose common type keeps every digit of both (two
/// DECIMALs, or a DECIMAL and an integer, fit 38 digits: `DECIMAL(38,0)` against
/// `DECIMAL(38,10)` or the literal `5.5` would overflow), or a NULL.
pub(crate) fn same_family(a: &DataType, b: &DataType) -> bool {
    if *a == DataType::Null || *b == DataType::Null {
        return true;
    }
    // (integer digits, fractional digits) of an exact number
    let digits = |t: &DataType| match t {
        DataType::Int8 => Some((3, 0)),
        DataType::Int16 => Some((5, 0)),
        DataType::Int32 => Some((10, 0)),
        DataType::Int64 => Some((19, 0)),
        DataType::Decimal128(p, s) => Some((i16::from(*p) - i16::from(*s), i16::from(*s))),
        _ => None,
    };
    hashable(a, b)
        && match (digits(a), digits(b)) {
            (Some((ia, sa)), Some((ib, sb))) => ia.max(ib) + sa.max(sb) <= 38,
            _ => true,
        }
}
