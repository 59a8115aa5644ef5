//! The server's text results read back into tdlite's Arrow types (the inverse of the server's
//! type table, docs/server.md):
//!
//! | PostgreSQL (OID) | Arrow |
//! |---|---|
//! | bool (16) | Boolean |
//! | int2 (21), int4 (23), int8 (20) | Int16, Int32, Int64 |
//! | float4 (700), float8 (701) | Float64 |
//! | numeric (1700) | Decimal128(p, s), from the type modifier (38 and the widest scale seen without one) |
//! | bytea (17) | Binary |
//! | date (1082), time (1083), timestamp (1114) | Date32, Time64(µs), Timestamp(µs) |
//! | anything else (varchar, text: CHAR, VARCHAR, PERIOD) | Utf8 |
//!
//! A time's or timestamp's fractional digits below six (its type modifier) become the field's
//! `precision` metadata, as an embedded result has it.
//!
//! Invariant: a value that does not read as its column's type is an error naming the column,
//! never a NULL or a wrong value.

use crate::Error;
use bytes::Bytes;
use fallible_iterator::FallibleIterator;
use postgres_protocol::message::backend::{DataRowBody, RowDescriptionBody};
use std::collections::HashMap;
use std::sync::Arc;
use tdlite::arrow::array::{
    ArrayRef, AsArray, BinaryBuilder, BooleanBuilder, Date32Builder, Decimal128Builder,
    Float64Builder, Int16Builder, Int32Builder, Int64Builder, RecordBatch, StringBuilder,
    Time64MicrosecondBuilder, TimestampMicrosecondBuilder,
};
use tdlite::arrow::datatypes::{DataType, Field, Schema, TimeUnit};
use tdlite::Rows;

/// One column of a row description.
#[derive(Debug, Clone)]
pub struct Column {
    /// Its name.
    pub name: String,
    /// PostgreSQL's type OID.
    pub oid: u32,
    /// The type modifier (-1: none).
    pub modifier: i32,
}

/// The columns of a row description.
///
/// # Errors
/// A malformed message.
pub(crate) fn columns(body: &RowDescriptionBody) -> Result<Vec<Column>, Error> {
    body.fields()
        .map(|f| {
            Ok(Column {
                name: f.name().to_string(),
                oid: f.type_oid(),
                modifier: f.type_modifier(),
            })
        })
        .collect()
        .map_err(|e| Error::Protocol(e.to_string()))
}

/// The values of a data row, NULL as `None`.
///
/// # Errors
/// A malformed message.
pub(crate) fn cells(body: &DataRowBody) -> Result<Vec<Option<Bytes>>, Error> {
    let buffer = body.buffer_bytes();
    body.ranges()
        .map(|r| Ok(r.map(|r| buffer.slice(r))))
        .collect()
        .map_err(|e| Error::Protocol(e.to_string()))
}

/// A command tag as the command and its count: `INSERT 0 3` → (`INSERT`, 3), `CREATE TABLE`
/// → (`CREATE TABLE`, 0).
pub fn tag(tag: &str) -> (String, u64) {
    let mut words: Vec<&str> = tag.split_whitespace().collect();
    let count = match words.last().and_then(|w| w.parse::<u64>().ok()) {
        Some(n) => {
            words.pop();
            // INSERT's oid before its count
            if words.first() == Some(&"INSERT") && words.len() == 2 {
                words.pop();
            }
            n
        }
        None => 0,
    };
    (words.join(" "), count)
}

/// 1970-01-01, Arrow's day 0.
pub(crate) fn epoch() -> chrono::NaiveDate {
    chrono::NaiveDate::from_ymd_opt(1970, 1, 1).unwrap_or_default()
}

/// The Arrow type a column is read as; `rows` gives a numeric without a modifier its scale.
fn arrow_type(c: &Column, rows: &[Vec<Option<Bytes>>], i: usize) -> DataType {
    match c.oid {
        16 => DataType::Boolean,
        21 => DataType::Int16,
        23 => DataType::Int32,
        20 => DataType::Int64,
        700 | 701 => DataType::Float64,
        1700 if c.modifier >= 4 => {
            let m = c.modifier - 4;
            let p = u8::try_from((m >> 16) & 0xffff).unwrap_or(38).clamp(1, 38);
            let s = i8::try_from(m & 0xffff).unwrap_or(0).min(38);
            DataType::Decimal128(p, s)
        }
        1700 => {
            let scale = rows
                .iter()
                .filter_map(|r| r.get(i).cloned().flatten())
                .filter_map(|v| {
                    std::str::from_utf8(&v)
                        .ok()
                        .and_then(|t| t.split_once('.'))
                        .map(|(_, f)| f.len())
                })
                .max()
                .unwrap_or(0);
            DataType::Decimal128(38, i8::try_from(scale.min(38)).unwrap_or(0))
        }
        17 => DataType::Binary,
        1082 => DataType::Date32,
        1083 => DataType::Time64(TimeUnit::Microsecond),
        1114 => DataType::Timestamp(TimeUnit::Microsecond, None),
        _ => DataType::Utf8,
    }
}

/// Rows of text values described by `columns` as one Arrow batch.
///
/// # Errors
/// A value that does not read as its column's type.
pub(crate) fn rows(columns: &[Column], rows: Vec<Vec<Option<Bytes>>>) -> Result<Rows, Error> {
    if let Some(r) = rows.iter().find(|r| r.len() != columns.len()) {
        return Err(Error::Protocol(format!(
            "the server sent a row of {} values for {} columns",
            r.len(),
            columns.len()
        )));
    }
    let mut fields = Vec::with_capacity(columns.len());
    let mut arrays: Vec<ArrayRef> = Vec::with_capacity(columns.len());
    for (i, c) in columns.iter().enumerate() {
        let t = arrow_type(c, &rows, i);
        let values = rows.iter().map(|r| r.get(i).cloned().flatten());
        let array = column(&t, values).map_err(|bad| {
            Error::Protocol(format!("column {} ({t}): the server sent {bad:?}", c.name))
        })?;
        let mut field = Field::new(c.name.clone(), t.clone(), true);
        if matches!(t, DataType::Time64(_) | DataType::Timestamp(..))
            && (0..6).contains(&c.modifier)
        {
            field = field.with_metadata(HashMap::from([(
                "precision".to_string(),
                c.modifier.to_string(),
            )]));
        }
        fields.push(field);
        arrays.push(array);
    }
    let schema = Arc::new(Schema::new(fields));
    let batch = RecordBatch::try_new_with_options(
        schema.clone(),
        arrays,
        &tdlite::arrow::array::RecordBatchOptions::new().with_row_count(Some(rows.len())),
    )
    .map_err(|e| Error::Protocol(e.to_string()))?;
    Ok(Rows {
        schema,
        batches: vec![batch],
    })
}

/// The values of one column as an array of type `t`; the text that did not read, if one.
fn column(t: &DataType, values: impl Iterator<Item = Option<Bytes>>) -> Result<ArrayRef, String> {
    let texts: Vec<Option<String>> = values
        .map(|v| {
            v.map(|b| String::from_utf8(b.to_vec()).map_err(|e| format!("{e}")))
                .transpose()
        })
        .collect::<Result<_, String>>()?;
    let texts = texts.iter().map(Option::as_deref);
    // reads each text with `read`, appending to `builder`
    macro_rules! build {
        ($builder:expr, $read:expr) => {{
            let mut b = $builder;
            for v in texts {
                match v {
                    None => b.append_null(),
                    Some(s) => b.append_value($read(s).ok_or_else(|| s.to_string())?),
                }
            }
            Arc::new(b.finish()) as ArrayRef
        }};
    }
    Ok(match t {
        DataType::Boolean => build!(BooleanBuilder::new(), |s: &str| match s {
            "t" | "true" => Some(true),
            "f" | "false" => Some(false),
            _ => None,
        }),
        DataType::Int16 => build!(Int16Builder::new(), |s: &str| s.parse::<i16>().ok()),
        DataType::Int32 => build!(Int32Builder::new(), |s: &str| s.parse::<i32>().ok()),
        DataType::Int64 => build!(Int64Builder::new(), |s: &str| s.parse::<i64>().ok()),
        DataType::Float64 => build!(Float64Builder::new(), float),
        DataType::Decimal128(p, s) => {
            let scale = *s;
            let b = Decimal128Builder::new()
                .with_precision_and_scale(*p, *s)
                .map_err(|e| e.to_string())?;
            let a = build!(b, |text: &str| scaled(text, scale));
            // a value with more digits than the column's precision is not one of its values
            a.as_primitive::<tdlite::arrow::datatypes::Decimal128Type>()
                .validate_decimal_precision(*p)
                .map_err(|e| e.to_string())?;
            a
        }
        DataType::Binary => build!(BinaryBuilder::new(), bytea),
        DataType::Date32 => build!(Date32Builder::new(), |s: &str| {
            chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d")
                .ok()
                .and_then(|d| i32::try_from((d - epoch()).num_days()).ok())
        }),
        DataType::Time64(_) => build!(Time64MicrosecondBuilder::new(), |s: &str| {
            use chrono::Timelike;
            chrono::NaiveTime::parse_from_str(s, "%H:%M:%S%.f")
                .ok()
                .map(|t| {
                    i64::from(t.num_seconds_from_midnight()) * 1_000_000
                        + i64::from(t.nanosecond() / 1000)
                })
        }),
        DataType::Timestamp(..) => build!(TimestampMicrosecondBuilder::new(), |s: &str| {
            chrono::NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S%.f")
                .ok()
                .map(|t| t.and_utc().timestamp_micros())
        }),
        _ => build!(StringBuilder::new(), |s: &str| Some(s.to_string())),
    })
}

/// A float as PostgreSQL writes one (`Infinity`, `-Infinity`, `NaN` included).
fn float(s: &str) -> Option<f64> {
    match s {
        "Infinity" => Some(f64::INFINITY),
        "-Infinity" => Some(f64::NEG_INFINITY),
        _ => s.parse::<f64>().ok(),
    }
}

/// `-12.5` at scale 2 as -1250; `None` for more fractional digits than the scale, or not a
/// number.
fn scaled(text: &str, scale: i8) -> Option<i128> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
    let scale = usize::try_from(scale).ok()?;
    if frac.len() > scale
        || int.is_empty() && frac.is_empty()
        || !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let mut v: i128 = 0;
    for b in int.bytes().chain(frac.bytes()) {
        v = v.checked_mul(10)?.checked_add(i128::from(b - b'0'))?;
    }
    for _ in frac.len()..scale {
        v = v.checked_mul(10)?;
    }
    Some(if negative { -v } else { v })
}

/// bytea's hex text, `\x00ff`.
fn bytea(s: &str) -> Option<Vec<u8>> {
    let hex = s.strip_prefix("\\x")?;
    if hex.len() % 2 != 0 {
        return None;
    }
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_split_into_command_and_count() {
        assert_eq!(tag("INSERT 0 3"), ("INSERT".to_string(), 3));
        assert_eq!(tag("SELECT 2"), ("SELECT".to_string(), 2));
        assert_eq!(tag("CREATE TABLE"), ("CREATE TABLE".to_string(), 0));
    }

    #[test]
    fn texts_read_as_their_types() {
        assert_eq!(scaled("-12.5", 2), Some(-1250));
        assert_eq!(scaled("0.005", 3), Some(5));
        assert_eq!(scaled("1.234", 2), None);
        assert_eq!(scaled("x", 0), None);
        assert_eq!(bytea("\\x00ff"), Some(vec![0, 255]));
        assert_eq!(bytea("00ff"), None);
        assert_eq!(float("-Infinity"), Some(f64::NEG_INFINITY));
        let a = column(
            &DataType::Int32,
            vec![Some(Bytes::from("7")), None].into_iter(),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(a.null_count(), 1);
        assert!(column(&DataType::Int32, vec![Some(Bytes::from("7x"))].into_iter()).is_err());
    }
}
