//! Python values to tdlite's and back.
//!
//! Parameters: `None`, `bool` (as 1/0), `int`, `float`, `decimal.Decimal`, `str`, `bytes`,
//! `datetime.date`, `datetime.time` and `datetime.datetime` (an aware one in UTC). Results:
//! INTEGER types as `int`, DECIMAL as `decimal.Decimal` (its scale kept), FLOAT as `float`,
//! CHAR/VARCHAR as `str`, BYTE/VARBYTE as `bytes`, DATE, TIME and TIMESTAMP as `datetime`
//! objects, NULL as `None` — the types teradatasql returns.
//!
//! Invariant: a value is never silently changed on the way: an `int` beyond BIGINT becomes a
//! DECIMAL, and one beyond 38 digits, or a type this module does not know, is an error.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{
    PyBool, PyByteArray, PyBytes, PyDate, PyDateAccess, PyDateTime, PyFloat, PyInt, PyString,
    PyTime, PyTimeAccess, PyType, PyTzInfoAccess,
};
use tdlite::arrow::array::{Array, ArrayRef, AsArray};
use tdlite::arrow::datatypes::{
    DataType, Date32Type, Decimal128Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type,
    Time64MicrosecondType, TimeUnit, TimestampMicrosecondType,
};
use tdlite::Value;

const MICROS_PER_DAY: i64 = 86_400_000_000;

/// The epoch tdlite counts days and microseconds from.
fn epoch() -> chrono::NaiveDate {
    chrono::NaiveDate::from_ymd_opt(1970, 1, 1).unwrap_or_default()
}

/// A Python parameter as a tdlite value.
///
/// # Errors
/// `TypeError` for a type with no SQL counterpart, or a number beyond DECIMAL(38).
pub(crate) fn to_value(obj: &Bound<'_, PyAny>) -> PyResult<Value> {
    if obj.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(Value::Int(i64::from(b.is_true())));
    }
    if obj.cast::<PyInt>().is_ok() {
        return match obj.extract::<i64>() {
            Ok(i) => Ok(Value::Int(i)),
            Err(_) => decimal_value(&obj.str()?.to_string_lossy()),
        };
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        return Ok(Value::Float(f.value()));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Value::Str(s.to_str()?.to_string()));
    }
    if obj.is_instance(decimal_type(obj.py())?)? {
        // str(d): C's digits, with an exponent when Python writes one
        return decimal_value(&obj.str()?.to_string_lossy());
    }
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(Value::Bytes(b.as_bytes().to_vec()));
    }
    if let Ok(b) = obj.cast::<PyByteArray>() {
        return Ok(Value::Bytes(b.to_vec()));
    }
    // datetime before date: a datetime is a date too
    if let Ok(dt) = obj.cast::<PyDateTime>() {
        let mut naive = date_of(dt.get_year(), dt.get_month(), dt.get_day())?
            .and_hms_micro_opt(
                u32::from(dt.get_hour()),
                u32::from(dt.get_minute()),
                u32::from(dt.get_second()),
                dt.get_microsecond(),
            )
            .ok_or_else(|| PyTypeError::new_err("not a valid datetime"))?;
        if dt.get_tzinfo().is_some() {
            // an aware datetime: its UTC time
            let offset = dt.call_method0("utcoffset")?;
            if !offset.is_none() {
                let seconds: f64 = offset.call_method0("total_seconds")?.extract()?;
                naive -= chrono::Duration::microseconds((seconds * 1e6).round() as i64);
            }
        }
        return Ok(Value::Timestamp(naive.and_utc().timestamp_micros()));
    }
    if let Ok(d) = obj.cast::<PyDate>() {
        let day = date_of(d.get_year(), d.get_month(), d.get_day())?;
        let days = (day - epoch()).num_days();
        return Ok(Value::Date(
            i32::try_from(days).map_err(|_| PyTypeError::new_err("the date is out of range"))?,
        ));
    }
    if let Ok(t) = obj.cast::<PyTime>() {
        if t.get_tzinfo().is_some() {
            return Err(PyTypeError::new_err(
                "a time with a time zone has no SQL type in tdlite (TIME WITH TIME ZONE is not supported)",
            ));
        }
        let micros = ((i64::from(t.get_hour()) * 60 + i64::from(t.get_minute())) * 60
            + i64::from(t.get_second()))
            * 1_000_000
            + i64::from(t.get_microsecond());
        return Ok(Value::Time(micros));
    }
    let type_name = obj.get_type().name()?.to_string();
    Err(PyTypeError::new_err(format!(
        "a parameter of type {type_name} has no SQL type (int, float, Decimal, str, bytes, date, time, datetime or None)"
    )))
}

fn date_of(y: i32, m: u8, d: u8) -> PyResult<chrono::NaiveDate> {
    chrono::NaiveDate::from_ymd_opt(y, u32::from(m), u32::from(d))
        .ok_or_else(|| PyTypeError::new_err("not a valid date"))
}

/// `decimal.Decimal`, imported once.
fn decimal_type(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    static DECIMAL: PyOnceLock<Py<PyType>> = PyOnceLock::new();
    DECIMAL.import(py, "decimal", "Decimal")
}

/// `-123.4500`, `1E+3` or `1.5E-7` (Python's `str` of an int or a Decimal) as a DECIMAL
/// (unscaled digits and scale): at most 38 significant digits, a scale from 0 to 38 (a
/// positive exponent is written out as zeros; trailing fractional zeros that do not fit are
/// dropped, they change no value). A zero keeps at most scale 38 (`0E-40` is 0 at scale 38).
fn decimal_value(text: &str) -> PyResult<Value> {
    let text = text.trim();
    let bad = || PyTypeError::new_err(format!("{text} is not a number of at most 38 digits"));
    let (negative, rest) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let (mantissa, exponent) = match rest.split_once(['E', 'e']) {
        // an exponent beyond i64 is far beyond any DECIMAL
        Some((m, e)) => (m, e.parse::<i64>().map_err(|_| bad())?),
        None => (rest, 0),
    };
    let (int_part, frac_part) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits: String = format!("{int_part}{frac_part}");
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        // NaN, Infinity, sNaN
        return Err(bad());
    }
    let frac_len = i64::try_from(frac_part.len()).map_err(|_| bad())?;
    let mut scale = frac_len.checked_sub(exponent).ok_or_else(bad)?;
    let mut significant = digits.trim_start_matches('0').to_string();
    if significant.is_empty() {
        return Ok(Value::Decimal(
            0,
            i8::try_from(scale.clamp(0, 38)).map_err(|_| bad())?,
        ));
    }
    // fractional zeros after the last significant digit change nothing: dropped while the
    // scale or the digits are beyond DECIMAL(38)
    while (scale > 38 || significant.len() > 38) && scale > 0 && significant.ends_with('0') {
        significant.pop();
        scale -= 1;
    }
    // a negative scale is that many zeros more: refused before they are written out
    let zeros = usize::try_from((-scale).max(0)).map_err(|_| bad())?;
    if scale > 38 || significant.len().saturating_add(zeros) > 38 {
        return Err(bad());
    }
    significant.extend(std::iter::repeat_n('0', zeros));
    let unscaled: i128 = significant.parse().map_err(|_| bad())?;
    Ok(Value::Decimal(
        if negative { -unscaled } else { unscaled },
        i8::try_from(scale.max(0)).map_err(|_| bad())?,
    ))
}

/// The value at row `i` of a result column, as Python sees it; `digits` is the column's
/// fractional-second precision (`tdlite::period_text::fraction_digits`).
///
/// # Errors
/// A Python error building the object (a date out of Python's range, say).
pub(crate) fn to_py(
    py: Python<'_>,
    a: &ArrayRef,
    i: usize,
    digits: Option<usize>,
) -> PyResult<Py<PyAny>> {
    if a.is_null(i) {
        return Ok(py.None());
    }
    Ok(match a.data_type() {
        DataType::Boolean => PyBool::new(py, a.as_boolean().value(i))
            .to_owned()
            .into_any()
            .unbind(),
        DataType::Int8 => a
            .as_primitive::<Int8Type>()
            .value(i)
            .into_pyobject(py)?
            .into_any()
            .unbind(),
        DataType::Int16 => a
            .as_primitive::<Int16Type>()
            .value(i)
            .into_pyobject(py)?
            .into_any()
            .unbind(),
        DataType::Int32 => a
            .as_primitive::<Int32Type>()
            .value(i)
            .into_pyobject(py)?
            .into_any()
            .unbind(),
        DataType::Int64 => a
            .as_primitive::<Int64Type>()
            .value(i)
            .into_pyobject(py)?
            .into_any()
            .unbind(),
        DataType::Float64 => a
            .as_primitive::<Float64Type>()
            .value(i)
            .into_pyobject(py)?
            .into_any()
            .unbind(),
        DataType::Decimal128(..) => {
            // Arrow writes it with its scale (`1.50`)
            let text = a.as_primitive::<Decimal128Type>().value_as_string(i);
            py.import("decimal")?
                .getattr("Decimal")?
                .call1((text,))?
                .unbind()
        }
        DataType::Utf8 => a
            .as_string::<i32>()
            .value(i)
            .into_pyobject(py)?
            .into_any()
            .unbind(),
        DataType::Binary => PyBytes::new(py, a.as_binary::<i32>().value(i))
            .into_any()
            .unbind(),
        DataType::Date32 => {
            let days = a.as_primitive::<Date32Type>().value(i);
            let d = epoch()
                .checked_add_signed(chrono::Duration::days(i64::from(days)))
                .ok_or_else(|| crate::errors::data("the date is out of range"))?;
            date(py, d)?.into_any().unbind()
        }
        DataType::Time64(TimeUnit::Microsecond) => {
            let us = a
                .as_primitive::<Time64MicrosecondType>()
                .value(i)
                .rem_euclid(MICROS_PER_DAY);
            time(py, us)?.into_any().unbind()
        }
        DataType::Timestamp(TimeUnit::Microsecond, _) => {
            let us = a.as_primitive::<TimestampMicrosecondType>().value(i);
            let t = chrono::DateTime::from_timestamp_micros(us)
                .ok_or_else(|| PyTypeError::new_err("the timestamp is out of range"))?
                .naive_utc();
            datetime(py, t)?.into_any().unbind()
        }
        // a PERIOD is its text, `('2005-02-03', '2006-02-04')`, as teradatasql gives it
        DataType::FixedSizeBinary(_) => {
            match tdlite::period_text::display(&a.slice(i, 1), digits) {
                Some(t) => t
                    .as_string::<i32>()
                    .value(0)
                    .into_pyobject(py)?
                    .into_any()
                    .unbind(),
                None => return Err(PyTypeError::new_err("tdlite has no Python value for it")),
            }
        }
        other => {
            return Err(PyTypeError::new_err(format!(
                "tdlite has no Python value for {other}"
            )))
        }
    })
}

fn date<'py>(py: Python<'py>, d: chrono::NaiveDate) -> PyResult<Bound<'py, PyDate>> {
    use chrono::Datelike;
    PyDate::new(py, d.year(), d.month() as u8, d.day() as u8)
}

fn time(py: Python<'_>, us: i64) -> PyResult<Bound<'_, PyTime>> {
    let secs = us / 1_000_000;
    PyTime::new(
        py,
        (secs / 3600) as u8,
        (secs / 60 % 60) as u8,
        (secs % 60) as u8,
        (us % 1_000_000) as u32,
        None,
    )
}

fn datetime(py: Python<'_>, t: chrono::NaiveDateTime) -> PyResult<Bound<'_, PyDateTime>> {
    use chrono::{Datelike, Timelike};
    PyDateTime::new(
        py,
        t.year(),
        t.month() as u8,
        t.day() as u8,
        t.hour() as u8,
        t.minute() as u8,
        t.second() as u8,
        t.nanosecond() / 1000,
        None,
    )
}

/// The Python type of a result column's values, for `Cursor.description` (teradatasql gives
/// the Python type object).
pub(crate) fn type_code<'py>(py: Python<'py>, t: &DataType) -> PyResult<Bound<'py, PyAny>> {
    let builtins = py.import("builtins")?;
    Ok(match t {
        DataType::Boolean => builtins.getattr("bool")?,
        DataType::Int8 | DataType::Int16 | DataType::Int32 | DataType::Int64 | DataType::Null => {
            builtins.getattr("int")?
        }
        DataType::Float64 => builtins.getattr("float")?,
        DataType::Decimal128(..) => py.import("decimal")?.getattr("Decimal")?,
        DataType::Binary => builtins.getattr("bytes")?,
        DataType::Date32 => py.import("datetime")?.getattr("date")?,
        DataType::Time64(_) => py.import("datetime")?.getattr("time")?,
        DataType::Timestamp(..) => py.import("datetime")?.getattr("datetime")?,
        _ => builtins.getattr("str")?,
    })
}
