//! Teradata FORMAT strings: `CAST(x AS DATE FORMAT 'YYYY/MM/DD')` reads a string by the
//! format, `CAST(d AS VARCHAR(n) FORMAT 'DD.MM.YYYY')` writes a date, time or timestamp by it,
//! and [`write_own`] writes a value by a FORMAT of its own (a `(FORMAT '…')` phrase's, a
//! column's) or by its type's [`default_format`] where it becomes text ([`Pads`]: CAST trims,
//! the conversion syntax and `||` keep them); [`display`] is how BTEQ shows a value by one;
//! [`ansi_text`] turns a literal written in a date FORMAT into the ANSI form for comparisons.
//!
//! Format elements: `YYYY`/`Y4`, `YY` (read as 19yy: Teradata's CenturyBreak default; four
//! digits in the text are the year as written), `MMMM`/`M4` (month name), `MMM`/`M3`
//! (abbreviated), `MM`, `DDD`/`D3` (day of the year), `DD`, `EEEE`/`E4` and `EEE`/`E3` (day
//! name), `HH`, `MI`, `SS`, `S(n)` or `S(F)` (n digits of the fraction of a second, 0 to 6;
//! F is 6), `D` (the radix symbol, `.`), `T` (`AM`/`PM`: the time on the 12-hour
//! clock, `HH` then 01–12), `B` (a blank); punctuation and blanks are themselves (`-`, `/`,
//! `:`, `.`, `,`); any other letter or digit is an element tdlite does not know (9910). As Teradata says, a format without separators reads text
//! without them.
//! Character formats `X(n)` / `XXX` keep the first n characters of text. Numeric masks
//! (`'ZZZ,ZZ9.99'`, `'-(8)9'`, …) are numfmt.rs's.

use crate::error::{Error, OrOverflow, Result};
use crate::functions;
use crate::to_char::{ORACLE_YY, PADDED_DAY, PADDED_MONTH};

/// chrono formats standing for [`PADDED_MONTH`] and [`PADDED_DAY`]: the name, then a mark
/// that `write` replaces with the padded name.
const PAD_MONTH: &str = "%B\u{3}";
const PAD_DAY: &str = "%A\u{4}";
/// Follows six fractional digits and a digit n in a chrono format: keep the first n.
const CUT: char = '\u{5}';
use arrow::array::{Array, ArrayRef, AsArray, StringArray};
use arrow::datatypes::DataType;
use chrono::{Datelike, NaiveDate, NaiveDateTime};
use std::sync::Arc;
use tdlite_storage::types::{value_at, values_to_array, SqlType, Value};

/// A Teradata date/time format translated to a chrono format string.
fn chrono_format(fmt: &str) -> Result<String> {
    let up = fmt.to_ascii_uppercase();
    let b = up.as_bytes();
    let mut out = String::new();
    let mut i = 0;
    let at = |i: usize, s: &str| up[i..].starts_with(s);
    // `T` writes the time of day on the 12-hour clock, so its `HH` is the 12-hour one
    let twelve = twelve_hour(&up);
    while i < b.len() {
        let (piece, len) = if at(i, "YYYY") {
            ("%Y", 4)
        } else if at(i, "Y4") {
            ("%Y", 2)
        } else if at(i, "YY") {
            ("%y", 2)
        } else if at(i, ORACLE_YY) {
            ("%y", ORACLE_YY.len())
        } else if at(i, PADDED_MONTH) {
            (PAD_MONTH, PADDED_MONTH.len())
        } else if at(i, PADDED_DAY) {
            (PAD_DAY, PADDED_DAY.len())
        } else if at(i, "MMMM") {
            ("%B", 4)
        } else if at(i, "M4") {
            ("%B", 2)
        } else if at(i, "MMM") {
            ("%b", 3)
        } else if at(i, "M3") {
            ("%b", 2)
        } else if at(i, "MM") {
            ("%m", 2)
        } else if at(i, "MI") {
            ("%M", 2)
        } else if at(i, "DDD") {
            ("%j", 3)
        } else if at(i, "D3") {
            ("%j", 2)
        } else if at(i, "DD") {
            ("%d", 2)
        } else if at(i, "EEEE") {
            ("%A", 4)
        } else if at(i, "E4") {
            ("%A", 2)
        } else if at(i, "EEE") {
            ("%a", 3)
        } else if at(i, "E3") {
            ("%a", 2)
        } else if at(i, "HH") {
            (if twelve { "%I" } else { "%H" }, 2)
        } else if at(i, "T") {
            // AM or PM
            ("%p", 1)
        } else if at(i, "D") {
            // the radix symbol (a time's fraction follows it)
            (".", 1)
        } else if at(i, "SS") {
            ("%S", 2)
        } else if at(i, "S(") {
            // fractional seconds: chrono writes 3 or 6 digits (the dot is the format's own)
            let close = up[i..]
                .find(')')
                .ok_or_else(|| Error::TypeMismatch(format!("bad FORMAT '{fmt}'")))?;
            let digits: usize = match &up[i + 2..i + close] {
                "F" => 6,
                d => d
                    .parse()
                    .map_err(|_| Error::TypeMismatch(format!("bad FORMAT '{fmt}'")))?,
            };
            // chrono writes fractions in 3, 6 or 9 digits only: another width is six digits
            // and a mark that `write` cuts them at
            match digits {
                0 => {}
                3 => out.push_str("%3f"),
                6 => out.push_str("%6f"),
                1..=5 => {
                    out.push_str("%6f");
                    out.push(CUT);
                    out.push(char::from(b'0' + digits as u8));
                }
                _ => {
                    return Err(Error::TypeMismatch(format!(
                        "bad FORMAT '{fmt}': S(n) has 0 to 6 digits"
                    )))
                }
            }
            i += close + 1;
            continue;
        } else if at(i, "B") {
            (" ", 1)
        } else if b[i].is_ascii_alphanumeric() && !b"-/:.,".contains(&b[i]) {
            if b[i].is_ascii_digit() || matches!(b[i], b'9' | b'Z' | b'$') {
                return Err(Error::Unsupported(format!("the numeric FORMAT '{fmt}'")));
            }
            return Err(Error::Unsupported(format!("the FORMAT element in '{fmt}'")));
        } else {
            let c = fmt[i..].chars().next().unwrap_or(' ');
            out.push_str(if c == '%' { "%%" } else { "" });
            if c != '%' {
                out.push(c);
            }
            i += c.len_utf8();
            continue;
        };
        out.push_str(piece);
        i += len;
    }
    Ok(out)
}

fn has_time(f: &str) -> bool {
    ["%H", "%I", "%M", "%S"].iter().any(|t| f.contains(t))
}

/// True if the (upper-cased) format has the `T` element: no other element has the letter.
fn twelve_hour(up: &str) -> bool {
    up.contains('T')
}

/// Text read by chrono format `cf` as a date and time (midnight for a date; `None` if it does
/// not match). Teradata's two-digit years (`YY`): as its CenturyBreak setting's default (0)
/// has them, every two-digit year is 19yy; four digits where the format has two are the year
/// as written.
fn read_date_time(t: &str, cf: &str, oracle: bool) -> Option<NaiveDateTime> {
    // a padded name reads as the name (blanks after it are skipped by the next blank)
    let mut unpadded = cf.replace(PAD_MONTH, "%B").replace(PAD_DAY, "%A");
    // a fraction of another width than 3 or 6 reads as the digits written
    for n in 1..=5u8 {
        let mark = format!(".%6f{CUT}{}", char::from(b'0' + n));
        unpadded = unpadded.replace(&mark, "%.f");
    }
    let cf = unpadded.as_str();
    let read = |cf: &str| {
        if has_time(cf) {
            NaiveDateTime::parse_from_str(t, cf).ok()
        } else {
            NaiveDate::parse_from_str(t, cf)
                .ok()
                .and_then(|d| d.and_hms_opt(0, 0, 0))
        }
    };
    if !cf.contains("%y") {
        return read(cf);
    }
    match read(cf) {
        // chrono reads 00–68 as 20yy
        Some(dt) if oracle && dt.year() >= 2050 => dt.with_year(dt.year() - 100),
        Some(dt) if oracle && dt.year() < 1950 => dt.with_year(dt.year() + 100),
        Some(dt) if oracle => Some(dt),
        Some(dt) if dt.year() >= 2000 => dt.with_year(dt.year() - 100),
        Some(dt) => Some(dt),
        None => read(&cf.replace("%y", "%Y")),
    }
}

/// The values of `a` as BTEQ shows them under a column's FORMAT `fmt` (field metadata
/// `format`, which the select list gives a column that has one), or `None` where the format
/// does not apply to them (an element tdlite does not know, a value it cannot write): the
/// caller then shows them as usual. The values themselves never change.
pub fn display(a: &ArrayRef, fmt: &str) -> Option<ArrayRef> {
    let text = cast(a, SqlType::VarChar(64000), fmt).ok()?;
    (text.null_count() == a.null_count()).then_some(text)
}

/// `CAST(a AS ty FORMAT fmt)`.
///
/// # Errors
/// 2665 for text that does not match the format; 9910 for FORMAT elements tdlite does not know.
pub(crate) fn cast(a: &ArrayRef, ty: SqlType, fmt: &str) -> Result<ArrayRef> {
    if let Some(fmt) = fmt.strip_prefix(NULL_ON_FAILURE) {
        // each value on its own: NULL where it does not convert (TO_NUMBER)
        let parts = (0..a.len())
            .map(|i| {
                cast(&a.slice(i, 1), ty, fmt)
                    .or_else(|_| Ok(arrow::array::new_null_array(&ty.arrow_type(), 1)))
            })
            .collect::<Result<Vec<ArrayRef>>>()?;
        let refs: Vec<&dyn Array> = parts.iter().map(|p| p.as_ref()).collect();
        return match refs.is_empty() {
            true => Ok(arrow::array::new_empty_array(&ty.arrow_type())),
            false => Ok(arrow::compute::concat(&refs)?),
        };
    }
    if let Some(model) = fmt.strip_prefix(crate::to_char_date::MODEL_MARK) {
        // TO_CHAR: a number by a number model, a date or time by a date model (text by
        // whichever the model is)
        let number = crate::to_char_number::compile(model);
        let numeric = a.data_type().is_numeric()
            || (a.data_type() == &DataType::Utf8
                && number.is_ok()
                && crate::to_char_date::compile(model).is_err());
        let text = if numeric {
            let a = match a.data_type() {
                DataType::Utf8 => crate::expr::to_float_or_number(a)?,
                _ => a.clone(),
            };
            let model = number?;
            let out: Result<StringArray> = (0..a.len())
                .map(|i| crate::to_char_number::render(&model, &value_at(a.as_ref(), i)))
                .collect();
            Arc::new(out?) as ArrayRef
        } else {
            crate::to_char_date::render(a, &crate::to_char_date::compile(model)?)?
        };
        return crate::expr::cast_to_sql(&text, ty);
    }
    if crate::numfmt::is_numeric(fmt) {
        return numeric(a, ty, fmt);
    }
    if a.data_type() == &DataType::Utf8 && !matches!(ty, SqlType::Date | SqlType::Timestamp(_)) {
        return character(a, ty, fmt);
    }
    let cf = chrono_format(fmt)?;
    // a date cast to DATE (or a timestamp to TIMESTAMP) keeps its value: FORMAT only says how
    // it would be written
    if matches!(
        (a.data_type(), ty),
        (DataType::Date32, SqlType::Date) | (DataType::Timestamp(..), SqlType::Timestamp(_))
    ) {
        return crate::expr::cast_to_sql(a, ty);
    }
    match (a.data_type(), ty) {
        // read text by the format
        (DataType::Utf8, SqlType::Date | SqlType::Timestamp(_)) => {
            let s = a.as_string::<i32>();
            let mut out = Vec::with_capacity(s.len());
            for v in s.iter() {
                out.push(match v {
                    None => Value::Null,
                    Some(t) => {
                        let t = t.trim();
                        let dt = read_date_time(t, &cf, fmt.contains(ORACLE_YY))
                            .ok_or_else(|| Error::InvalidDate(t.to_string()))?;
                        match ty {
                            SqlType::Date => Value::Date(functions::days(dt.date())),
                            _ => Value::Timestamp(dt.and_utc().timestamp_micros()),
                        }
                    }
                });
            }
            Ok(values_to_array(ty, out.iter()))
        }
        // write a date/time by the format (as text), then to the target type
        (DataType::Date32 | DataType::Timestamp(..) | DataType::Time64(_), _) => {
            let text = write(a, &cf)?;
            match ty {
                SqlType::Date | SqlType::Timestamp(_) => cast(&text, ty, fmt),
                other => crate::expr::cast_to_sql(&text, other),
            }
        }
        // any other value: the plain conversion (FORMAT does not change it)
        _ => crate::expr::cast_to_sql(a, ty),
    }
}

/// The start of a FORMAT mask whose values convert each on its own, NULL where one does not
/// (TO_NUMBER: "If conversion fails, NULL is returned"): a control character, so no FORMAT a
/// user writes has it.
pub(crate) const NULL_ON_FAILURE: &str = "\u{8}";

/// How a value written by a FORMAT of its own (a phrase's, a column's) keeps the format's pad
/// characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pads {
    /// `CAST(x AS CHAR(n))`: leading and trailing pad characters trimmed (Teradata's CAST).
    Trim,
    /// Teradata's conversion syntax `x (CHAR(n))`: kept.
    Keep,
    /// The implicit conversion of an operand of `||`: kept, and a BYTE or VARBYTE value stays
    /// bytes (`'01'XB || '02'XB` is the VARBYTE `0102`).
    Implicit,
}

/// A DECIMAL or FLOAT array as the text CAST gives it and BTEQ shows: written by the type's
/// default FORMAT, pads trimmed (Teradata's numeric-to-character CAST: 0.50 of a DECIMAL(5,2)
/// is `'.50'`, 123 of a DECIMAL(5,0) `'123.'`, the FLOAT 1.5 `'1.50000000000000E 000'`);
/// `None` for another array, or a precision the mask writer refuses. (An integer's default
/// FORMAT writes what Arrow writes.)
pub fn numeric_text(a: &ArrayRef) -> Option<ArrayRef> {
    if !matches!(a.data_type(), DataType::Decimal128(..) | DataType::Float64) {
        return None;
    }
    let fmt = default_format(a.data_type())?;
    let text = cast(a, SqlType::VarChar(64000), &fmt).ok()?;
    Some(Arc::new(StringArray::from_iter(
        text.as_string::<i32>()
            .iter()
            .map(|v| v.map(|v| v.trim_matches(' '))),
    )))
}

/// Teradata's default FORMAT of a numeric type ("Data Type Default Formats": BYTEINT
/// `-(3)9`, SMALLINT `-(5)9`, INTEGER `-(10)9`, BIGINT `-(19)9`, FLOAT
/// `-9.99999999999999E-999`, DECIMAL(n,m) `--(I).9(F)` with I = n-m and F = m: a floating
/// minus over the integer digits, so 0.50 of a DECIMAL(5,2) is `'    .50'`); `None` for the
/// others (written as they are).
pub(crate) fn default_format(t: &DataType) -> Option<std::borrow::Cow<'static, str>> {
    Some(match t {
        DataType::Int8 => "-(3)9".into(),
        DataType::Int16 => "-(5)9".into(),
        DataType::Int32 => "-(10)9".into(),
        DataType::Int64 => "-(19)9".into(),
        DataType::Float64 => "-9.99999999999999E-999".into(),
        DataType::Decimal128(p, s) => {
            let (int, frac) = (i32::from(*p) - i32::from(*s), i32::from(*s).max(0));
            let sign = if int > 0 {
                format!("--({int})")
            } else {
                "-".to_string()
            };
            if frac == 0 {
                // DECIMAL(n,0): the last place a 9, so zero is written `0.` (a lone `.` would
                // be no number when read back)
                return Some(format!("-({int})9.").into());
            }
            format!("{sign}.9({frac})").into()
        }
        _ => return None,
    })
}

/// Teradata's default FORMAT of a column type ("Data Type Default Formats"): the numeric ones
/// of [`default_format`], `X(n)` for CHAR(n) and VARCHAR(n), `X(2n)` for BYTE(n) and
/// VARBYTE(n) (at most `X(64000)`), `YYYY-MM-DD` for DATE (ANSIDATE mode, tdlite's),
/// `HH:MI:SS.S(n)` and `YYYY-MM-DDBHH:MI:SS.S(n)` for TIME(n) and TIMESTAMP(n) (`S(F)` resolved
/// to the precision; no fraction for 0); `None` for a PERIOD.
pub(crate) fn type_format(ty: &SqlType) -> Option<String> {
    let fraction = |p: u8| {
        if p == 0 {
            String::new()
        } else {
            format!(".S({p})")
        }
    };
    Some(match ty {
        SqlType::Char(n) | SqlType::VarChar(n) => format!("X({n})"),
        SqlType::Byte(n) | SqlType::VarByte(n) => format!("X({})", (2 * u64::from(*n)).min(64_000)),
        SqlType::Date => "YYYY-MM-DD".to_string(),
        SqlType::Time(p) => format!("HH:MI:SS{}", fraction(*p)),
        SqlType::Timestamp(p) => format!("YYYY-MM-DDBHH:MI:SS{}", fraction(*p)),
        SqlType::Period(_) => return None,
        numeric => default_format(&numeric.arrow_type())?.into_owned(),
    })
}

/// `a`, whose values have the FORMAT `fmt` of their own (`None`: their type's
/// [`default_format`]), converted to the character type `ty`: a number, date or time is
/// written by the format first (Teradata's "the format of the original value determines"
/// rule); text goes as it is.
///
/// # Errors
/// As [`cast`] but 9910 (a format tdlite cannot write gives the plain conversion), and the
/// conversion to `ty`.
pub(crate) fn write_own(
    a: &ArrayRef,
    ty: SqlType,
    fmt: Option<&str>,
    pads: Pads,
) -> Result<ArrayRef> {
    if pads == Pads::Implicit && a.data_type() == &DataType::Binary {
        return Ok(a.clone());
    }
    if matches!(
        a.data_type(),
        DataType::Utf8 | DataType::Null | DataType::Binary
    ) {
        return crate::expr::cast_to_sql(a, ty);
    }
    let default = default_format(a.data_type());
    let Some(fmt) = fmt.or(default.as_deref()) else {
        return crate::expr::cast_to_sql(a, ty);
    };
    let text = match cast(a, SqlType::VarChar(64000), fmt) {
        Ok(text) => text,
        // a FORMAT tdlite cannot write (an element it does not know): the plain conversion,
        // as BTEQ's display falls back (see `display`)
        Err(Error::Unsupported(_)) => return crate::expr::cast_to_sql(a, ty),
        Err(e) => return Err(e),
    };
    let text = match pads {
        Pads::Keep | Pads::Implicit => text,
        Pads::Trim => Arc::new(StringArray::from_iter(
            text.as_string::<i32>()
                .iter()
                .map(|v| v.map(|v| v.trim_matches(' '))),
        )),
    };
    crate::expr::cast_to_sql(&text, ty)
}

/// A cast with a numeric mask (numfmt.rs): a number to text is written by the mask; text to a
/// number is read as the mask wrote it (currency and group separators dropped); a number to a
/// number keeps its value (FORMAT only says how it is shown).
fn numeric(a: &ArrayRef, ty: SqlType, fmt: &str) -> Result<ArrayRef> {
    let bad = || Error::Unsupported(format!("the numeric FORMAT '{fmt}'"));
    match (a.data_type(), ty.is_character()) {
        (DataType::Utf8, false) => {
            let s = a.as_string::<i32>();
            let read: ArrayRef = Arc::new(StringArray::from_iter(
                s.iter().map(|v| v.map(crate::numfmt::read)),
            ));
            crate::expr::cast_to_sql(&read, ty)
        }
        (t, true) if t.is_numeric() => {
            let mut out = Vec::with_capacity(a.len());
            for i in 0..a.len() {
                let (unscaled, scale) = match value_at(a, i) {
                    Value::Null => {
                        out.push(Value::Null);
                        continue;
                    }
                    Value::Int(v) => (i128::from(v), 0),
                    Value::Decimal(v, s) => (v, u32::try_from(s).map_err(|_| bad())?),
                    Value::Float(f) if crate::numfmt::has_exponent(fmt) => {
                        if !f.is_finite() {
                            return Err(Error::Overflow);
                        }
                        let text = crate::numfmt::write_float(f, fmt).ok_or_else(bad)?;
                        out.push(Value::Str(text));
                        continue;
                    }
                    Value::Float(f) => {
                        let scaled = (f * 1e9).round();
                        if !scaled.is_finite() || scaled.abs() >= 1e36 {
                            return Err(Error::Overflow);
                        }
                        (scaled as i128, 9)
                    }
                    _ => return Err(bad()),
                };
                let text = crate::numfmt::write(unscaled, scale, fmt).ok_or_else(bad)?;
                out.push(Value::Str(text));
            }
            let text = values_to_array(SqlType::VarChar(64000), out.iter());
            crate::expr::cast_to_sql(&text, ty)
        }
        _ => crate::expr::cast_to_sql(a, ty),
    }
}

/// Text through a character format: `X(n)` or `XX…X` keeps the first n characters.
fn character(a: &ArrayRef, ty: SqlType, fmt: &str) -> Result<ArrayRef> {
    let up = fmt.trim().to_ascii_uppercase();
    let width = if let Some(n) = up.strip_prefix("X(").and_then(|r| r.strip_suffix(')')) {
        n.parse::<usize>()
            .map_err(|_| Error::TypeMismatch(format!("bad FORMAT '{fmt}'")))?
    } else if !up.is_empty() && up.chars().all(|c| c == 'X') {
        up.len()
    } else {
        return Err(Error::Unsupported(format!("the FORMAT '{fmt}' for text")));
    };
    let s = a.as_string::<i32>();
    let cut: ArrayRef = Arc::new(StringArray::from_iter(
        s.iter()
            .map(|v| v.map(|v| v.chars().take(width).collect::<String>())),
    ));
    crate::expr::cast_to_sql(&cut, ty)
}

/// `text` read by the date or time FORMAT `fmt` and written in the ANSI form (`2020-01-02`,
/// `2020-01-02 10:11:12.000000`), or `None` if `fmt` is not a date/time format or the text
/// does not fit it. A character literal compared with a DATE or TIMESTAMP that has a FORMAT
/// may be written in that format (Teradata's "DATE Comparisons"); this turns it into the form
/// every comparison reads.
pub(crate) fn ansi_text(text: &str, fmt: &str) -> Option<String> {
    if crate::numfmt::is_numeric(fmt) {
        return None;
    }
    let cf = chrono_format(fmt).ok()?;
    let dt = read_date_time(text.trim(), &cf, false)?;
    Some(if has_time(&cf) {
        dt.format("%Y-%m-%d %H:%M:%S%.6f").to_string()
    } else {
        dt.format("%Y-%m-%d").to_string()
    })
}

fn write(a: &ArrayRef, cf: &str) -> Result<ArrayRef> {
    let midnight = |d: NaiveDate| d.and_hms_opt(0, 0, 0).or_overflow();
    let mut out: Vec<Option<String>> = Vec::with_capacity(a.len());
    for i in 0..a.len() {
        // a date is written as a timestamp at midnight, so time elements give zeros
        let t: NaiveDateTime = match value_at(a.as_ref(), i) {
            Value::Null => {
                out.push(None);
                continue;
            }
            Value::Date(d) => midnight(functions::date_from_days(d).or_overflow()?)?,
            Value::Timestamp(us) => chrono::DateTime::from_timestamp_micros(us)
                .or_overflow()?
                .naive_utc(),
            Value::Time(us) => {
                midnight(NaiveDate::from_ymd_opt(1970, 1, 1).or_overflow()?)?
                    + chrono::Duration::microseconds(us)
            }
            other => return Err(Error::TypeMismatch(format!("{other:?} has no date FORMAT"))),
        };
        let mut s = String::new();
        use std::fmt::Write;
        // TO_CHAR's padded names, written out before chrono writes the rest
        let padded;
        let cf = if cf.contains(['\u{3}', '\u{4}']) {
            let pad = |spec: &str| format!("{:<9}", t.format(spec)).replace('%', "%%");
            padded = cf
                .replace(PAD_MONTH, &pad("%B"))
                .replace(PAD_DAY, &pad("%A"));
            padded.as_str()
        } else {
            cf
        };
        write!(s, "{}", t.format(cf))
            .map_err(|_| Error::TypeMismatch(format!("the FORMAT cannot write {t}")))?;
        // S(n) of another width: six digits written, the last 6 - n cut
        while let Some(at) = s.find(CUT) {
            let n = s[at + 1..]
                .chars()
                .next()
                .and_then(|c| c.to_digit(10))
                .unwrap_or(6) as usize;
            let start = at.saturating_sub(6);
            let kept: String = s[start..at].chars().take(n).collect();
            s.replace_range(start..at + 2, &kept);
        }
        out.push(Some(s));
    }
    Ok(Arc::new(StringArray::from(out)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn teradata_elements_become_chrono_ones() {
        assert_eq!(chrono_format("YYYY-MM-DD").unwrap(), "%Y-%m-%d");
        assert_eq!(chrono_format("DD/MMM/YY").unwrap(), "%d/%b/%y");
        assert_eq!(chrono_format("YYYYMMDD").unwrap(), "%Y%m%d");
        assert_eq!(chrono_format("HH:MI:SS").unwrap(), "%H:%M:%S");
        assert_eq!(chrono_format("EEEE, MMMM DD").unwrap(), "%A, %B %d");
        assert!(chrono_format("9(5)").is_err());
    }
}
