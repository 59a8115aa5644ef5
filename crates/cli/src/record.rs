//! BTEQ's binary record formats, DATA and INDICDATA, for `.EXPORT DATA|INDICDATA` and
//! `.IMPORT DATA|INDICDATA` with `USING`.
//!
//! A record is a two-byte little-endian length, that many bytes of data, and an end-of-record
//! byte `0x0A`, as BTEQ writes records on workstations. INDICDATA starts the data with one
//! indicator bit per field (most significant bit first, `ceil(fields / 8)` bytes; a 1 means
//! NULL); a NULL field still takes its room (zeros, or a zero length). Fields are Teradata's
//! client representations, little-endian:
//!
//! | type | bytes |
//! |---|---|
//! | BYTEINT, SMALLINT, INTEGER, BIGINT | 1, 2, 4, 8 (two's complement) |
//! | FLOAT | 8 (IEEE 754) |
//! | DECIMAL(p, s) | the unscaled value in 1 (p ≤ 2), 2 (≤ 4), 4 (≤ 9), 8 (≤ 18) or 16 bytes |
//! | DATE | 4: `(year - 1900) * 10000 + month * 100 + day` |
//! | CHAR(n), BYTE(n) | n (CHAR blank-padded) |
//! | VARCHAR(n), VARBYTE(n) | a two-byte length, then the bytes |
//! | TIME(p), TIMESTAMP(p) | text, as CHAR(8 or 19, plus `.` and p digits when p > 0) |
//!
//! Character data is UTF-8 (tdlite's session character set). Export writes each column by its
//! Arrow type: text as VARCHAR, or as CHAR(n) where the result column is declared CHAR(n)
//! (`tdlite::fixed_char_length`: a table's CHAR column, a CAST to CHAR(n), …) and every value
//! fits n bytes, so a USING that names the column's own types reads the records back; import
//! reads the types its `USING` names.
//!
//! Invariants: decoding never panics on bad input (a short or overlong record, an unknown
//! type is an error message); encoding a value and decoding it with the matching USING type
//! gives the value back.

use arrow::array::{Array, AsArray};
use arrow::datatypes::{
    DataType, Date32Type, Decimal128Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type,
    TimeUnit,
};
use arrow::util::display::{ArrayFormatter, FormatOptions};
use tdlite::{Rows, Value};

/// The end-of-record byte.
const END: u8 = 0x0A;

/// A field type of a record, from a USING declaration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldType {
    /// A little-endian integer of 1, 2, 4 or 8 bytes.
    Int(usize),
    /// An 8-byte float.
    Float,
    /// DECIMAL(p, s).
    Decimal(u8, i8),
    /// DATE as an integer.
    Date,
    /// CHAR(n) (`text`) or BYTE(n).
    Fixed(usize, bool),
    /// VARCHAR(n) (`text`) or VARBYTE(n).
    Varying(bool),
    /// TIME or TIMESTAMP as text of this many characters.
    Text(usize),
}

/// Bytes of a DECIMAL of precision `p`.
fn decimal_bytes(p: u8) -> usize {
    match p {
        0..=2 => 1,
        3..=4 => 2,
        5..=9 => 4,
        10..=18 => 8,
        _ => 16,
    }
}

/// The two numbers in `NAME(a, b)` (`b` 0 if absent), or `None` if there are none.
fn size_of(ty: &str) -> Option<(u64, i64)> {
    let inner = ty.split_once('(')?.1.split_once(')')?.0;
    let mut parts = inner.split(',').map(|p| p.trim().parse::<i64>());
    let a = parts.next()?.ok()?;
    let b = parts.next().transpose().ok()?.unwrap_or(0);
    Some((u64::try_from(a).ok()?, b))
}

impl FieldType {
    /// Reads a USING type (`VARCHAR(10)`, `DECIMAL(9,2)`, `INTEGER`, …).
    ///
    /// # Errors
    /// A message naming a type that has no record form here.
    pub fn parse(ty: &str) -> Result<FieldType, String> {
        let upper = ty.to_ascii_uppercase();
        let upper = upper
            .split(" DEFAULT")
            .next()
            .unwrap_or("")
            .trim()
            .to_string();
        let word = upper.split(['(', ' ']).next().unwrap_or("");
        let size = size_of(&upper);
        let n = |default: u64| size.map_or(default, |s| s.0) as usize;
        Ok(match word {
            "BYTEINT" => FieldType::Int(1),
            "SMALLINT" => FieldType::Int(2),
            "INTEGER" | "INT" => FieldType::Int(4),
            "BIGINT" => FieldType::Int(8),
            "FLOAT" | "REAL" | "DOUBLE" => FieldType::Float,
            "DECIMAL" | "DEC" | "NUMERIC" => {
                let (p, s) = size.unwrap_or((5, 0));
                if !(1..=38).contains(&p) || s < 0 || s as u64 > p {
                    return Err(format!("{ty}: a DECIMAL needs 1 to 38 digits"));
                }
                FieldType::Decimal(p as u8, s as i8)
            }
            "DATE" => FieldType::Date,
            "CHAR" | "CHARACTER" => FieldType::Fixed(n(1), true),
            "BYTE" => FieldType::Fixed(n(1), false),
            "VARCHAR" => FieldType::Varying(true),
            "VARBYTE" => FieldType::Varying(false),
            "TIME" => FieldType::Text(text_len(8, size.map_or(6, |s| s.0))),
            "TIMESTAMP" => FieldType::Text(text_len(19, size.map_or(6, |s| s.0))),
            _ => return Err(format!("{ty}: no record form for this type")),
        })
    }
}

/// Characters of a TIME (8) or TIMESTAMP (19) with `p` fraction digits.
fn text_len(base: usize, p: u64) -> usize {
    if p == 0 {
        base
    } else {
        base + 1 + p as usize
    }
}

/// Teradata's DATE integer for days since 1970-01-01 (`None` for a date it cannot hold).
fn date_int(days: i32) -> Option<i32> {
    use chrono::Datelike;
    let d = chrono::NaiveDate::from_ymd_opt(1970, 1, 1)?
        .checked_add_signed(chrono::Duration::days(i64::from(days)))?;
    (d.year() - 1900)
        .checked_mul(10000)?
        .checked_add(d.month() as i32 * 100 + d.day() as i32)
}

/// Days since 1970-01-01 for Teradata's DATE integer.
fn date_days(v: i32) -> Option<i32> {
    let (y, m, d) = (
        v.div_euclid(10000) + 1900,
        v.rem_euclid(10000) / 100,
        v.rem_euclid(100),
    );
    let date = chrono::NaiveDate::from_ymd_opt(y, m as u32, d as u32)?;
    let epoch = chrono::NaiveDate::from_ymd_opt(1970, 1, 1)?;
    i32::try_from((date - epoch).num_days()).ok()
}

/// Appends every row of `rows` as a record; `indicators` makes INDICDATA.
///
/// # Errors
/// A message for a column type with no record form, or a record over 65535 bytes.
pub fn encode(rows: &Rows, indicators: bool, out: &mut Vec<u8>) -> Result<(), String> {
    let opts = FormatOptions::new()
        .with_timestamp_format(Some("%Y-%m-%d %H:%M:%S%.6f"))
        .with_time_format(Some("%H:%M:%S%.6f"));
    // one layout for the whole export
    let fixed = fixed_widths(rows);
    // a TIME or TIMESTAMP with fewer than six fractional digits is that much shorter
    // (Data Types and Literals, "External Representation": TIMESTAMP(0) is CHAR(19))
    let digits: Vec<Option<usize>> = rows
        .schema
        .fields()
        .iter()
        .map(|f| tdlite::period_text::fraction_digits(f))
        .collect();
    for b in &rows.batches {
        let cols = b.columns();
        let text: Vec<Option<ArrayFormatter>> = cols
            .iter()
            .map(|c| {
                matches!(c.data_type(), DataType::Time64(_) | DataType::Timestamp(..))
                    .then(|| ArrayFormatter::try_new(c.as_ref(), &opts).ok())
                    .flatten()
            })
            .collect();
        for row in 0..b.num_rows() {
            let mut data = Vec::new();
            if indicators {
                let mut bits = vec![0u8; cols.len().div_ceil(8)];
                for (i, c) in cols.iter().enumerate() {
                    if c.is_null(row) {
                        bits[i / 8] |= 0x80 >> (i % 8);
                    }
                }
                data.extend(bits);
            }
            for (((c, t), n), d) in cols.iter().zip(&text).zip(&fixed).zip(&digits) {
                match n {
                    Some(n) if c.data_type() == &DataType::Utf8 => {
                        fixed_text(c.as_ref(), row, *n, &mut data)?
                    }
                    _ => field(c.as_ref(), row, t.as_ref(), *d, &mut data)?,
                }
            }
            let len = u16::try_from(data.len())
                .map_err(|_| format!("a record of {} bytes is over 65535", data.len()))?;
            out.extend(len.to_le_bytes());
            out.extend(data);
            out.push(END);
        }
    }
    Ok(())
}

/// The n of each column written as CHAR(n): a column declared CHAR(n) whose every value fits
/// n bytes (characters beyond ASCII take more in UTF-8: such a column is written as VARCHAR).
fn fixed_widths(rows: &Rows) -> Vec<Option<usize>> {
    (rows.schema.fields().iter().enumerate())
        .map(|(i, f)| {
            let n = tdlite::fixed_char_length(f)?;
            let fits = rows.batches.iter().all(|b| {
                b.column(i)
                    .as_string_opt::<i32>()
                    .is_some_and(|s| s.iter().flatten().all(|v| v.len() <= n))
            });
            fits.then_some(n)
        })
        .collect()
}

/// Appends a CHAR(n) field of text column `c`: its bytes padded with blanks to n (a NULL as n
/// blanks).
///
/// # Errors
/// A value of more than n bytes (characters beyond ASCII take more than one in UTF-8).
fn fixed_text(c: &dyn Array, row: usize, n: usize, out: &mut Vec<u8>) -> Result<(), String> {
    let v = match c.is_null(row) {
        true => "",
        false => c.as_string::<i32>().value(row),
    };
    if v.len() > n {
        return Err(format!(
            "a CHAR({n}) value of {} bytes has no DATA record form",
            v.len()
        ));
    }
    out.extend(v.as_bytes());
    out.resize(out.len() + (n - v.len()), b' ');
    Ok(())
}

/// Appends one field of column `c` (a NULL as zeros or a zero length); a TIME or TIMESTAMP
/// with `digits` fractional digits (six if `None`).
fn field(
    c: &dyn Array,
    row: usize,
    text: Option<&ArrayFormatter>,
    digits: Option<usize>,
    out: &mut Vec<u8>,
) -> Result<(), String> {
    let null = c.is_null(row);
    macro_rules! le {
        ($t:ty) => {{
            let v = if null {
                Default::default()
            } else {
                c.as_primitive::<$t>().value(row)
            };
            out.extend(v.to_le_bytes());
        }};
    }
    match c.data_type() {
        DataType::Int8 => le!(Int8Type),
        DataType::Int16 => le!(Int16Type),
        DataType::Int32 => le!(Int32Type),
        DataType::Int64 => le!(Int64Type),
        DataType::Float64 => le!(Float64Type),
        DataType::Boolean => out.push(u8::from(!null && c.as_boolean().value(row))),
        DataType::Decimal128(p, _) => {
            let v = if null {
                0
            } else {
                c.as_primitive::<Decimal128Type>().value(row)
            };
            out.extend(&v.to_le_bytes()[..decimal_bytes(*p)]);
        }
        DataType::Date32 => {
            let v = if null {
                0
            } else {
                let days = c.as_primitive::<Date32Type>().value(row);
                date_int(days).ok_or_else(|| format!("day {days} has no DATE record form"))?
            };
            out.extend(v.to_le_bytes());
        }
        DataType::Utf8 | DataType::Binary => {
            let bytes: &[u8] = match (null, c.data_type()) {
                (true, _) => &[],
                (false, DataType::Utf8) => c.as_string::<i32>().value(row).as_bytes(),
                (false, _) => c.as_binary::<i32>().value(row),
            };
            let len = u16::try_from(bytes.len()).map_err(|_| "a value over 65535 bytes")?;
            out.extend(len.to_le_bytes());
            out.extend(bytes);
        }
        DataType::Time64(TimeUnit::Microsecond) | DataType::Timestamp(TimeUnit::Microsecond, _) => {
            let base = if matches!(c.data_type(), DataType::Time64(_)) {
                8
            } else {
                19
            };
            let width = text_len(base, digits.unwrap_or(6) as u64);
            let s = match (null, text) {
                (false, Some(f)) => f.value(row).to_string(),
                _ => String::new(),
            };
            let padded = crate::format::pad(&s, width, crate::format::Side::End);
            out.extend(padded.bytes().take(width));
        }
        other => return Err(format!("a {other} column has no record form")),
    }
    Ok(())
}

/// Reads the next record's data from `input` (without its length and end byte); `None` at
/// the end of the input.
///
/// # Errors
/// A message for a cut record or a missing end-of-record byte.
pub fn read(input: &mut impl std::io::Read) -> Result<Option<Vec<u8>>, String> {
    let mut len = [0u8; 2];
    match input.read_exact(&mut len[..1]) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e.to_string()),
    }
    let mut rest = vec![0u8; 1];
    input
        .read_exact(&mut rest)
        .map_err(|_| "the import ends inside a record length".to_string())?;
    len[1] = rest[0];
    let mut data = vec![0u8; usize::from(u16::from_le_bytes(len)) + 1];
    input
        .read_exact(&mut data)
        .map_err(|_| "the import ends inside a record".to_string())?;
    if data.pop() != Some(END) {
        return Err("a record does not end with its end-of-record byte (0x0A)".to_string());
    }
    Ok(Some(data))
}

/// The values of a record's data laid out as `types` say.
///
/// # Errors
/// A message if the data is shorter or longer than the fields, or not UTF-8 where text is.
pub fn decode(data: &[u8], types: &[FieldType], indicators: bool) -> Result<Vec<Value>, String> {
    let mut at = 0usize;
    let mut take = |n: usize| -> Result<&[u8], String> {
        let bytes = data
            .get(at..at + n)
            .ok_or("a record is shorter than its USING fields")?;
        at += n;
        Ok(bytes)
    };
    let nulls: Vec<bool> = if indicators {
        let bits = take(types.len().div_ceil(8))?.to_vec();
        (0..types.len())
            .map(|i| bits[i / 8] & (0x80 >> (i % 8)) != 0)
            .collect()
    } else {
        vec![false; types.len()]
    };
    let text = |b: &[u8]| {
        std::str::from_utf8(b)
            .map(str::to_string)
            .map_err(|_| "a text field is not UTF-8".to_string())
    };
    let mut values = Vec::with_capacity(types.len());
    for (ty, null) in types.iter().zip(nulls) {
        let v = match *ty {
            FieldType::Int(n) => {
                let b = take(n)?;
                let mut buf = [0u8; 8];
                buf[..n].copy_from_slice(b);
                // sign-extend
                let shift = 64 - 8 * n as u32;
                Value::Int((i64::from_le_bytes(buf) << shift) >> shift)
            }
            FieldType::Float => {
                let mut buf = [0u8; 8];
                buf.copy_from_slice(take(8)?);
                Value::Float(f64::from_le_bytes(buf))
            }
            FieldType::Decimal(p, s) => {
                let n = decimal_bytes(p);
                let mut buf = [0u8; 16];
                buf[..n].copy_from_slice(take(n)?);
                let shift = 128 - 8 * n as u32;
                Value::Decimal((i128::from_le_bytes(buf) << shift) >> shift, s)
            }
            FieldType::Date => {
                let mut buf = [0u8; 4];
                buf.copy_from_slice(take(4)?);
                match date_days(i32::from_le_bytes(buf)) {
                    Some(d) => Value::Date(d),
                    None if null => Value::Null,
                    None => return Err("a DATE field holds no date".to_string()),
                }
            }
            FieldType::Fixed(n, true) => Value::Str(text(take(n)?)?.trim_end().to_string()),
            FieldType::Fixed(n, false) => Value::Bytes(take(n)?.to_vec()),
            FieldType::Varying(is_text) => {
                let mut len = [0u8; 2];
                len.copy_from_slice(take(2)?);
                let b = take(usize::from(u16::from_le_bytes(len)))?;
                if is_text {
                    Value::Str(text(b)?)
                } else {
                    Value::Bytes(b.to_vec())
                }
            }
            FieldType::Text(n) => Value::Str(text(take(n)?)?.trim_end().to_string()),
        };
        values.push(if null { Value::Null } else { v });
    }
    if at != data.len() {
        return Err(format!(
            "a record has {} bytes more than its USING fields",
            data.len() - at
        ));
    }
    Ok(values)
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{
        ArrayRef, Date32Array, Decimal128Array, Int16Array, Int32Array, StringArray,
        TimestampMicrosecondArray,
    };
    use arrow::datatypes::{Field, Schema};
    use arrow::record_batch::RecordBatch;
    use std::sync::Arc;

    fn rows() -> Rows {
        let cols: Vec<ArrayRef> = vec![
            Arc::new(Int32Array::from(vec![Some(-7), None])),
            Arc::new(Int16Array::from(vec![Some(300), Some(-1)])),
            Arc::new(
                Decimal128Array::from(vec![Some(-1050), Some(3)])
                    .with_precision_and_scale(9, 2)
                    .unwrap(),
            ),
            Arc::new(Date32Array::from(vec![Some(19_000), None])),
            Arc::new(StringArray::from(vec![Some("héllo"), None])),
            Arc::new(TimestampMicrosecondArray::from(vec![
                Some(1_700_000_000_123_456),
                None,
            ])),
        ];
        let schema = Arc::new(Schema::new(
            cols.iter()
                .enumerate()
                .map(|(i, c)| Field::new(format!("c{i}"), c.data_type().clone(), true))
                .collect::<Vec<_>>(),
        ));
        Rows {
            schema: schema.clone(),
            batches: vec![RecordBatch::try_new(schema, cols).unwrap()],
        }
    }

    fn types() -> Vec<FieldType> {
        [
            "INTEGER",
            "SMALLINT",
            "DECIMAL(9,2)",
            "DATE",
            "VARCHAR(10)",
            "TIMESTAMP(6)",
        ]
        .iter()
        .map(|t| FieldType::parse(t).unwrap())
        .collect()
    }

    #[test]
    fn indicdata_round_trips_values_and_nulls() {
        let mut bytes = Vec::new();
        encode(&rows(), true, &mut bytes).unwrap();
        let mut input = &bytes[..];
        let first = decode(&read(&mut input).unwrap().unwrap(), &types(), true).unwrap();
        assert_eq!(
            first,
            vec![
                Value::Int(-7),
                Value::Int(300),
                Value::Decimal(-1050, 2),
                Value::Date(19_000),
                Value::Str("héllo".into()),
                Value::Str("2023-11-14 22:13:20.123456".into()),
            ]
        );
        let second = decode(&read(&mut input).unwrap().unwrap(), &types(), true).unwrap();
        assert_eq!(
            second,
            vec![
                Value::Null,
                Value::Int(-1),
                Value::Decimal(3, 2),
                Value::Null,
                Value::Null,
                Value::Null
            ]
        );
        assert_eq!(read(&mut input).unwrap(), None);
    }

    #[test]
    fn the_layout_is_teradatas() {
        let mut bytes = Vec::new();
        encode(&rows(), false, &mut bytes).unwrap();
        // length, INTEGER -7, SMALLINT 300, DECIMAL(9,2) in 4 bytes
        assert_eq!(&bytes[2..6], &(-7i32).to_le_bytes());
        assert_eq!(&bytes[6..8], &300i16.to_le_bytes());
        assert_eq!(&bytes[8..12], &(-1050i32).to_le_bytes());
        // DATE 2022-01-08 (day 19000) is (122 * 10000 + 1 * 100 + 8)
        assert_eq!(&bytes[12..16], &1_220_108i32.to_le_bytes());
        let len = usize::from(u16::from_le_bytes([bytes[0], bytes[1]]));
        assert_eq!(bytes[2 + len], END);
    }

    #[test]
    fn bad_records_are_errors() {
        assert!(read(&mut &[5u8, 0, 1, 2][..]).is_err());
        assert!(read(&mut &[1u8, 0, 9, 9][..]).is_err());
        assert!(decode(&[1, 2], &[FieldType::Int(4)], false).is_err());
        assert!(decode(&[1, 2, 3, 4, 5], &[FieldType::Int(4)], false).is_err());
        assert!(FieldType::parse("CLOB").is_err());
        assert!(FieldType::parse("DECIMAL(40,2)").is_err());
    }
}
