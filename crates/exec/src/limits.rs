//! The limits every value keeps, checked where values are made (casts, arithmetic, function
//! results, concatenation, aggregate and window results), so that no value outside them is
//! ever computed further, stored or printed.
//!
//! - A character value has at most [`MAX_CHARS`] characters (Teradata's limit for CHAR and
//!   VARCHAR); a longer result is 3577, never a string that grows without bound.
//! - A DATE is within 0001-01-01 … 9999-12-31, a TIMESTAMP within 0001-01-01 00:00:00 …
//!   9999-12-31 23:59:59.999999 and a TIME within a day (Teradata's ranges); a value outside is
//!   2665 (Invalid date), never a day count that chrono cannot turn into a date.
//! - A FLOAT is finite: `1e308 * 10` is 2616, never infinity.
//! - A DECIMAL(p, s) has at most p digits (a function result rounded up past them is 2616).
//!
//! docs/limits.md lists these with every other limit.

use crate::error::{Error, Result};
use arrow::array::{Array, ArrayRef, AsArray};
use arrow::datatypes::TimestampMicrosecondType;
use arrow::datatypes::{DataType, Date32Type, Time64MicrosecondType, TimeUnit};

/// The most characters a CHAR or VARCHAR value (or type) may have.
pub const MAX_CHARS: usize = 64_000;

/// The most bytes a value of [`MAX_CHARS`] characters can take in UTF-8.
pub const MAX_CHAR_BYTES: usize = 4 * MAX_CHARS;

/// DATE '0001-01-01' and DATE '9999-12-31' as days since 1970-01-01.
const DAYS: (i32, i32) = (-719_162, 2_932_896);

/// TIMESTAMP '0001-01-01 00:00:00' and '9999-12-31 23:59:59.999999' as µs since the epoch.
const MICROS: (i64, i64) = (-62_135_596_800_000_000, 253_402_300_799_999_999);

/// µs in a day: a TIME is below it.
const DAY_MICROS: i64 = 86_400_000_000;

/// Checks that every value of `a` is within its type's limits (see the module docs).
///
/// # Errors
/// 3577 for a character value over [`MAX_CHARS`]; 2665 for a date, time or timestamp out of
/// its range; 2616 for a DECIMAL with more digits than its precision or a FLOAT that is not
/// finite.
pub fn check(a: &ArrayRef) -> Result<()> {
    use arrow::compute::{max, min};
    let out_of_range = |what: &str| Err(Error::InvalidDate(format!("a {what} out of range")));
    match a.data_type() {
        DataType::Utf8 => check_chars(a),
        DataType::Float64 => {
            let f = a.as_primitive::<arrow::datatypes::Float64Type>();
            match f.values().iter().all(|v| v.is_finite()) {
                true => Ok(()),
                // a NULL slot may hold anything: look again at the valid ones only
                false if f.iter().flatten().all(f64::is_finite) => Ok(()),
                false => Err(Error::Overflow),
            }
        }
        DataType::Decimal128(p, _) => a
            .as_primitive::<arrow::datatypes::Decimal128Type>()
            .validate_decimal_precision(*p)
            .map_err(|_| Error::Overflow),
        DataType::Date32 => {
            let d = a.as_primitive::<Date32Type>();
            match (min(d), max(d)) {
                (Some(lo), Some(hi)) if lo < DAYS.0 || hi > DAYS.1 => out_of_range("DATE"),
                _ => Ok(()),
            }
        }
        DataType::Time64(TimeUnit::Microsecond) => {
            let t = a.as_primitive::<Time64MicrosecondType>();
            match (min(t), max(t)) {
                (Some(lo), Some(hi)) if lo < 0 || hi >= DAY_MICROS => out_of_range("TIME"),
                _ => Ok(()),
            }
        }
        DataType::Timestamp(TimeUnit::Microsecond, _) => {
            let t = a.as_primitive::<TimestampMicrosecondType>();
            match (min(t), max(t)) {
                (Some(lo), Some(hi)) if lo < MICROS.0 || hi > MICROS.1 => out_of_range("TIMESTAMP"),
                _ => Ok(()),
            }
        }
        _ => Ok(()),
    }
}

/// Checks that no string of `a` (a Utf8 array) has more than [`MAX_CHARS`] characters.
///
/// # Errors
/// 3577 for the first one that has.
pub fn check_chars(a: &ArrayRef) -> Result<()> {
    let Some(s) = a.as_string_opt::<i32>() else {
        return Ok(());
    };
    // a string of at most MAX_CHARS bytes has at most MAX_CHARS characters: count only longer
    let offsets = s.value_offsets();
    if offsets.last().copied().unwrap_or(0) - offsets.first().copied().unwrap_or(0)
        <= MAX_CHARS as i32
    {
        return Ok(());
    }
    for i in 0..s.len() {
        if s.is_valid(i) {
            check_str(s.value(i))?;
        }
    }
    Ok(())
}

/// Checks one string against [`MAX_CHARS`].
///
/// # Errors
/// 3577 if it has more characters.
pub fn check_str(v: &str) -> Result<()> {
    if v.len() > MAX_CHARS && v.chars().count() > MAX_CHARS {
        return Err(too_long());
    }
    Ok(())
}

/// The error for a character value over [`MAX_CHARS`].
pub fn too_long() -> Error {
    Error::SizeLimit(format!(
        "a character value is over the limit of {MAX_CHARS} characters"
    ))
}

/// About the bytes `take(batch, rows)` would make: each character or byte value's own length
/// for the rows taken (a few long values among short ones count as what they are), the
/// value width of fixed-width columns, the average width for the other columns.
pub fn taken_bytes(batch: &arrow::record_batch::RecordBatch, rows: &[u32]) -> usize {
    fn lengths<O: arrow::array::OffsetSizeTrait>(offsets: &[O], rows: &[u32]) -> usize {
        let len = |i: usize| match (offsets.get(i), offsets.get(i + 1)) {
            (Some(a), Some(b)) => (*b - *a).as_usize(),
            _ => 0,
        };
        rows.iter().map(|&i| len(i as usize) + 4).sum()
    }
    let n = batch.num_rows().max(1);
    batch
        .columns()
        .iter()
        .map(|c| match c.data_type() {
            DataType::Utf8 => lengths(c.as_string::<i32>().value_offsets(), rows),
            DataType::Binary => lengths(c.as_binary::<i32>().value_offsets(), rows),
            t => match t.primitive_width() {
                // (no copy of the array's data made to measure it)
                Some(width) => width * rows.len(),
                None => c.to_data().get_slice_memory_size().unwrap_or(0) / n * rows.len(),
            },
        })
        .sum()
}

/// About the bytes an array's values take: a character or byte array's value bytes (of the
/// rows it holds, not of a buffer it shares), the buffers' size for the others. What a step
/// that copies or repeats the array checks against the spool space.
pub fn value_bytes(a: &dyn Array) -> usize {
    fn span<O: arrow::array::OffsetSizeTrait>(offsets: &[O]) -> usize {
        match (offsets.first(), offsets.last()) {
            (Some(a), Some(b)) => (*b - *a).as_usize() + 4 * offsets.len(),
            _ => 0,
        }
    }
    match a.data_type() {
        DataType::Utf8 => span(a.as_string::<i32>().value_offsets()),
        DataType::Binary => span(a.as_binary::<i32>().value_offsets()),
        t => match t.primitive_width() {
            Some(width) => width * a.len(),
            None => a.to_data().get_slice_memory_size().unwrap_or(0),
        },
    }
}

/// `s` padded at its end with blanks to `width` characters. `format!`'s width panics above
/// 65,535; values here reach 64,000 characters and masks longer.
pub fn pad_end(s: &str, width: usize) -> String {
    let len = s.chars().count();
    let mut out = String::with_capacity(s.len() + width.saturating_sub(len));
    out.push_str(s);
    out.extend(std::iter::repeat_n(' ', width.saturating_sub(len)));
    out
}

/// `s` padded at its start with `fill` to `width` characters (see [`pad_end`]).
pub fn pad_start(s: &str, width: usize, fill: char) -> String {
    let len = s.chars().count();
    let mut out = String::with_capacity(s.len() + width.saturating_sub(len));
    out.extend(std::iter::repeat_n(fill, width.saturating_sub(len)));
    out.push_str(s);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::TimestampMicrosecondArray;
    use arrow::array::{Date32Array, StringArray, Time64MicrosecondArray};
    use std::sync::Arc;

    fn code(r: Result<()>) -> Option<u32> {
        r.err().map(|e| e.code().number)
    }

    #[test]
    fn dates_times_and_timestamps_stay_in_their_ranges() {
        let date =
            |d: i32| -> ArrayRef { Arc::new(Date32Array::from(vec![Some(0), Some(d), None])) };
        assert_eq!(code(check(&date(DAYS.0))), None);
        assert_eq!(code(check(&date(DAYS.1))), None);
        assert_eq!(code(check(&date(DAYS.0 - 1))), Some(2665));
        assert_eq!(code(check(&date(DAYS.1 + 1))), Some(2665));
        let time = |t: i64| -> ArrayRef { Arc::new(Time64MicrosecondArray::from(vec![t])) };
        assert_eq!(code(check(&time(DAY_MICROS - 1))), None);
        assert_eq!(code(check(&time(DAY_MICROS))), Some(2665));
        assert_eq!(code(check(&time(-1))), Some(2665));
        let ts = |t: i64| -> ArrayRef { Arc::new(TimestampMicrosecondArray::from(vec![t])) };
        assert_eq!(code(check(&ts(MICROS.1))), None);
        assert_eq!(code(check(&ts(MICROS.1 + 1))), Some(2665));
        assert_eq!(code(check(&ts(MICROS.0 - 1))), Some(2665));
    }

    #[test]
    fn padding_reaches_past_what_format_can() {
        assert_eq!(pad_end("ab", 4), "ab  ");
        assert_eq!(pad_start("7", 3, '0'), "007");
        assert_eq!(pad_end("abc", 2), "abc");
        assert_eq!(pad_end("", 70_000).len(), 70_000);
        assert_eq!(pad_start("x", 70_000, '0').chars().count(), 70_000);
    }

    #[test]
    fn a_string_over_the_character_limit_is_3577() {
        let s = |n: usize, c: &str| -> ArrayRef { Arc::new(StringArray::from(vec![c.repeat(n)])) };
        assert_eq!(code(check(&s(MAX_CHARS, "a"))), None);
        // 64,000 characters of two bytes each: long in bytes, not in characters
        assert_eq!(code(check(&s(MAX_CHARS, "é"))), None);
        assert_eq!(code(check(&s(MAX_CHARS + 1, "a"))), Some(3577));
        assert_eq!(code(check(&s(MAX_CHARS + 1, "é"))), Some(3577));
    }
}
