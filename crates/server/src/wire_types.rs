//! tdlite's result types as PostgreSQL types, and result rows as PostgreSQL data rows.
//!
//! | tdlite | Arrow | PostgreSQL (OID) |
//! |---|---|---|
//! | BYTEINT, SMALLINT | Int8, Int16 | int2 (21) |
//! | INTEGER | Int32 | int4 (23) |
//! | BIGINT | Int64 | int8 (20) |
//! | DECIMAL(p,s), NUMBER | Decimal128 | numeric (1700) |
//! | FLOAT, REAL, DOUBLE PRECISION | Float64 | float8 (701) |
//! | CHAR, VARCHAR | Utf8 | varchar (1043) |
//! | BYTE, VARBYTE | Binary | bytea (17) |
//! | DATE | Date32 | date (1082) |
//! | TIME(n) | Time64 | time (1083) |
//! | TIMESTAMP(n) | Timestamp | timestamp (1114) |
//! | PERIOD(…) | FixedSizeBinary | text (25), as `('b', 'e')` |
//! | a column of NULLs only | Null | text (25) |
//!
//! The row description carries PostgreSQL's type modifier where it has one: a numeric's
//! precision and scale, a time's or timestamp's fractional digits.
//!
//! Values go out in the format the client asked for (text or binary), through postgres-types'
//! and pgwire's encoders; a DECIMAL is written by [`Numeric`] (all 38 digits, its scale kept).
//!
//! Invariant: every value of a result reaches the client unchanged in meaning; a type this
//! module has no mapping for is sent as its text.

use bytes::{BufMut, BytesMut};
use pgwire::api::results::{DataRowEncoder, FieldFormat, FieldInfo};
use pgwire::api::Type;
use pgwire::error::PgWireResult;
use pgwire::messages::data::DataRow;
use pgwire::types::format::FormatOptions;
use pgwire::types::ToSqlText;
use postgres_types::{to_sql_checked, IsNull, ToSql};
use std::error::Error;
use std::sync::Arc;
use tdlite::arrow::array::{Array, ArrayRef, AsArray};
use tdlite::arrow::datatypes::{
    DataType, Date32Type, Decimal128Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type,
    Time64MicrosecondType, TimeUnit, TimestampMicrosecondType,
};
use tdlite::Rows;

/// The PostgreSQL type a result column of Arrow type `t` is sent as.
pub fn pg_type(t: &DataType) -> Type {
    match t {
        DataType::Boolean => Type::BOOL,
        DataType::Int8 | DataType::Int16 => Type::INT2,
        DataType::Int32 => Type::INT4,
        DataType::Int64 => Type::INT8,
        DataType::Float64 => Type::FLOAT8,
        DataType::Decimal128(..) => Type::NUMERIC,
        DataType::Utf8 => Type::VARCHAR,
        DataType::Binary => Type::BYTEA,
        DataType::Date32 => Type::DATE,
        DataType::Time64(_) => Type::TIME,
        DataType::Timestamp(..) => Type::TIMESTAMP,
        _ => Type::TEXT,
    }
}

/// The row description of `rows`, each column in `format(i)`.
pub fn fields(rows: &Rows, format: impl Fn(usize) -> FieldFormat) -> Vec<FieldInfo> {
    rows.schema
        .fields()
        .iter()
        .enumerate()
        .map(|(i, f)| {
            FieldInfo::new(
                f.name().clone(),
                None,
                None,
                pg_type(f.data_type()),
                format(i),
            )
            .with_type_modifier(type_modifier(f))
        })
        .collect()
}

/// PostgreSQL's type modifier for a column (`atttypmod`): a numeric's precision and scale
/// (`(p << 16 | s) + 4`), a time's or timestamp's fractional digits; -1 for the others.
pub fn type_modifier(f: &tdlite::arrow::datatypes::Field) -> i32 {
    match f.data_type() {
        DataType::Decimal128(p, s) => {
            (i32::from(*p) << 16 | i32::from(u8::try_from(*s).unwrap_or(0))) + 4
        }
        DataType::Time64(_) | DataType::Timestamp(..) => {
            tdlite::period_text::fraction_digits(f).map_or(6, |d| i32::try_from(d).unwrap_or(6))
        }
        _ => -1,
    }
}

/// `rows` as data rows described by `fields`.
///
/// # Errors
/// An encoder's error (a value its PostgreSQL type cannot hold).
pub fn data_rows(rows: &Rows, fields: &Arc<Vec<FieldInfo>>) -> PgWireResult<Vec<DataRow>> {
    let digits = tdlite::period_text::schema_digits(&rows.schema);
    let mut out = Vec::new();
    let mut encoder = DataRowEncoder::new(fields.clone());
    for batch in &rows.batches {
        // periods become text column by column, not per value
        let columns = tdlite::period_text::periods_as_text(batch, &digits);
        for row in 0..batch.num_rows() {
            for a in &columns {
                encode(&mut encoder, a, row)?;
            }
            out.push(encoder.take_row());
        }
    }
    Ok(out)
}

/// Encodes the value at `row` of `a` as the encoder's next field.
fn encode(encoder: &mut DataRowEncoder, a: &ArrayRef, row: usize) -> PgWireResult<()> {
    if a.is_null(row) {
        return encoder.encode_field(&None::<i32>);
    }
    match a.data_type() {
        DataType::Boolean => encoder.encode_field(&a.as_boolean().value(row)),
        DataType::Int8 => encoder.encode_field(&i16::from(a.as_primitive::<Int8Type>().value(row))),
        DataType::Int16 => encoder.encode_field(&a.as_primitive::<Int16Type>().value(row)),
        DataType::Int32 => encoder.encode_field(&a.as_primitive::<Int32Type>().value(row)),
        DataType::Int64 => encoder.encode_field(&a.as_primitive::<Int64Type>().value(row)),
        DataType::Float64 => encoder.encode_field(&a.as_primitive::<Float64Type>().value(row)),
        DataType::Decimal128(_, s) => encoder.encode_field(&Numeric {
            unscaled: a.as_primitive::<Decimal128Type>().value(row),
            scale: u16::try_from(*s).unwrap_or(0),
        }),
        DataType::Utf8 => encoder.encode_field(&a.as_string::<i32>().value(row)),
        DataType::Binary => encoder.encode_field(&a.as_binary::<i32>().value(row)),
        DataType::Date32 => {
            let days = a.as_primitive::<Date32Type>().value(row);
            encoder.encode_field(&epoch().checked_add_signed(chrono::Duration::days(days.into())))
        }
        DataType::Time64(TimeUnit::Microsecond) => {
            let us = a.as_primitive::<Time64MicrosecondType>().value(row);
            let secs = u32::try_from(us.div_euclid(1_000_000)).unwrap_or(0);
            let micros = u32::try_from(us.rem_euclid(1_000_000)).unwrap_or(0);
            encoder.encode_field(&chrono::NaiveTime::from_num_seconds_from_midnight_opt(
                secs,
                micros * 1000,
            ))
        }
        DataType::Timestamp(TimeUnit::Microsecond, _) => {
            let us = a.as_primitive::<TimestampMicrosecondType>().value(row);
            encoder
                .encode_field(&chrono::DateTime::from_timestamp_micros(us).map(|t| t.naive_utc()))
        }
        _ => {
            let text =
                tdlite::arrow::util::display::array_value_to_string(a, row).unwrap_or_default();
            encoder.encode_field(&text)
        }
    }
}

/// 1970-01-01, day 0 of Arrow's Date32.
fn epoch() -> chrono::NaiveDate {
    chrono::NaiveDate::from_ymd_opt(1970, 1, 1).unwrap_or_default()
}

/// A DECIMAL value for PostgreSQL's `numeric`: the unscaled integer and its scale.
#[derive(Debug, Clone, Copy)]
pub struct Numeric {
    /// The value times 10^scale.
    pub unscaled: i128,
    /// Digits after the decimal point.
    pub scale: u16,
}

impl Numeric {
    /// The value's digits with the point, `-12.50` (as PostgreSQL writes a numeric).
    fn text(&self) -> String {
        let digits = self.unscaled.unsigned_abs().to_string();
        let scale = usize::from(self.scale);
        let sign = if self.unscaled < 0 { "-" } else { "" };
        if scale == 0 {
            return format!("{sign}{digits}");
        }
        let padded = format!("{digits:0>width$}", width = scale + 1);
        let (int, frac) = padded.split_at(padded.len() - scale);
        format!("{sign}{int}.{frac}")
    }
}

impl ToSql for Numeric {
    /// PostgreSQL's binary numeric: digit count, weight (of the first base-10000 digit),
    /// sign, display scale, then the base-10000 digits, leading and trailing zero digits left
    /// out.
    fn to_sql(&self, _: &Type, out: &mut BytesMut) -> Result<IsNull, Box<dyn Error + Sync + Send>> {
        let digits = self.unscaled.unsigned_abs().to_string();
        let scale = usize::from(self.scale);
        let padded = format!("{digits:0>width$}", width = scale + 1);
        let (int, frac) = padded.split_at(padded.len() - scale);
        // the integer part in groups of four from the point leftwards, the fraction rightwards
        let int = format!("{int:0>width$}", width = int.len().div_ceil(4) * 4);
        let frac = format!("{frac:0<width$}", width = frac.len().div_ceil(4) * 4);
        let mut groups: Vec<i16> = int
            .as_bytes()
            .chunks(4)
            .chain(frac.as_bytes().chunks(4))
            .map(|c| c.iter().fold(0i16, |acc, d| acc * 10 + i16::from(d - b'0')))
            .collect();
        let mut weight = i16::try_from(int.len() / 4).unwrap_or(0) - 1;
        while groups.first() == Some(&0) {
            groups.remove(0);
            weight -= 1;
        }
        while groups.last() == Some(&0) {
            groups.pop();
        }
        if groups.is_empty() {
            weight = 0;
        }
        out.put_i16(i16::try_from(groups.len())?);
        out.put_i16(weight);
        out.put_u16(if self.unscaled < 0 { 0x4000 } else { 0 });
        out.put_u16(self.scale);
        for g in groups {
            out.put_i16(g);
        }
        Ok(IsNull::No)
    }

    fn accepts(ty: &Type) -> bool {
        *ty == Type::NUMERIC
    }

    to_sql_checked!();
}

impl ToSqlText for Numeric {
    fn to_sql_text(
        &self,
        _: &Type,
        out: &mut BytesMut,
        _: &FormatOptions,
    ) -> Result<IsNull, Box<dyn Error + Sync + Send>> {
        out.put_slice(self.text().as_bytes());
        Ok(IsNull::No)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn binary(unscaled: i128, scale: u16) -> Vec<u8> {
        let mut out = BytesMut::new();
        Numeric { unscaled, scale }
            .to_sql(&Type::NUMERIC, &mut out)
            .map(|_| ())
            .unwrap_or_else(|e| panic!("encoding failed: {e}"));
        out.to_vec()
    }

    #[test]
    fn numeric_text_keeps_the_scale() {
        let t = |u, s| {
            Numeric {
                unscaled: u,
                scale: s,
            }
            .text()
        };
        assert_eq!(t(1250, 2), "12.50");
        assert_eq!(t(-5, 3), "-0.005");
        assert_eq!(t(0, 2), "0.00");
        assert_eq!(t(123, 0), "123");
    }

    #[test]
    fn numeric_binary_is_postgresql_s() {
        // 12.50: one integer digit 12 (weight 0), one fraction digit 5000, scale 2
        assert_eq!(binary(1250, 2), [0, 2, 0, 0, 0, 0, 0, 2, 0, 12, 0x13, 0x88]);
        // -10000: digits [1] with weight 1 (1 × 10000), negative
        assert_eq!(binary(-10000, 0), [0, 1, 0, 1, 0x40, 0, 0, 0, 0, 1]);
        // 0.0001: one digit 1 at weight -1
        assert_eq!(binary(1, 4), [0, 1, 0xff, 0xff, 0, 0, 0, 4, 0, 1]);
        // zero: no digits
        assert_eq!(binary(0, 2), [0, 0, 0, 0, 0, 0, 0, 2]);
    }
}
