//! PERIOD values in the executor: their text (what BTEQ shows and what a cast to or from
//! character gives), conversions, and the checks every made period passes.
//!
//! A period column is an Arrow `FixedSizeBinary` array whose width names the element type
//! (`tdlite_storage::period`); Arrow's comparison and sort kernels order such arrays as
//! Teradata orders periods (by beginning, then ending bound), so comparisons, ORDER BY, GROUP
//! BY, DISTINCT and joins need nothing here. Their text is `period_text.rs`'s, the period
//! functions and operators are in `period_fns.rs`.
//!
//! Teradata's rules kept here (SQL Data Types and Literals, "Period Data Types"):
//! - a period is closed-open, `[begin, end)`, and its beginning bound is before its ending
//!   bound: anything else is error 9103 ("Invalid Period value constructor", [`check`]); text
//!   that is no period of the type, or whose bounds are out of order, is 9102 ("Invalid
//!   CAST") when cast to a period or written as a PERIOD literal;
//! - its text is `('2005-02-03', '2006-02-04')`: both bounds quoted, in the element type's
//!   own text; a character value cast to a period is read in that form, or in the literal's
//!   `(2005-02-03, 2006-02-04)` without quotes;
//! - the element type of a literal is the one its bounds' text has (a date, a time of day, or
//!   a timestamp).

use crate::error::{Error, Result};
use crate::period_text::{kind_of, text};
use arrow::array::{Array, ArrayRef, StringArray};
use arrow::datatypes::DataType;
use std::sync::Arc;
use tdlite_storage::period::{Period, PeriodElem, PeriodKind};
use tdlite_storage::types::{value_at, values_to_array, SqlType, Value};

/// Refuses a period whose beginning bound is not before its ending bound, or whose bounds are
/// outside its element type (years 1 to 9999, a time of day): 9103.
pub(crate) fn check(p: Period) -> Result<Period> {
    const DAY: i64 = 86_400_000_000;
    let (first, last) = match p.kind {
        PeriodKind::Date => (FIRST_DAY, LAST_DAY),
        PeriodKind::Time => (0, DAY - 1),
        PeriodKind::Timestamp => (FIRST_DAY * DAY, (LAST_DAY + 1) * DAY - 1),
    };
    let inside = |v: i64| (first..=last).contains(&v);
    if p.begin < p.end && inside(p.begin) && inside(p.end) {
        Ok(p)
    } else {
        Err(Error::InvalidPeriod(text(&p, None)))
    }
}

/// 0001-01-01 in days since 1970-01-01.
const FIRST_DAY: i64 = -719_162;
/// 9999-12-31 in days since 1970-01-01.
pub(crate) const LAST_DAY: i64 = 2_932_896;

/// The kind of value a bound's text is: a timestamp has a date and a time, a time of day
/// only a time.
fn kind_of_text(bound: &str) -> PeriodKind {
    match (bound.contains('-'), bound.contains(':')) {
        (true, true) => PeriodKind::Timestamp,
        (false, true) => PeriodKind::Time,
        _ => PeriodKind::Date,
    }
}

/// The two bounds written in a period's text (`(b, e)` or `('b', 'e')`), unquoted.
fn bounds(s: &str) -> Option<(String, String)> {
    let inner = s.trim().strip_prefix('(')?.strip_suffix(')')?;
    let (b, e) = inner.split_once(',')?;
    let unquote = |x: &str| {
        let x = x.trim();
        x.strip_prefix('\'')
            .and_then(|x| x.strip_suffix('\''))
            .unwrap_or(x)
            .trim()
            .to_string()
    };
    Some((unquote(b), unquote(e)))
}

/// Reads one bound's text as a value of `kind` (the element type's own conversion: 2665 when
/// it is no such value).
fn read_bound(kind: PeriodKind, t: &str) -> Result<i64> {
    let target = match kind {
        PeriodKind::Date => SqlType::Date,
        PeriodKind::Time => SqlType::Time(6),
        PeriodKind::Timestamp => SqlType::Timestamp(6),
    };
    let a: ArrayRef = Arc::new(StringArray::from(vec![t]));
    match value_at(crate::expr::cast_to_sql(&a, target)?.as_ref(), 0) {
        Value::Date(d) => Ok(i64::from(d)),
        Value::Time(v) | Value::Timestamp(v) => Ok(v),
        _ => Err(Error::InvalidDate(t.to_string())),
    }
}

/// A period's text read as a period of `kind` (the kind its bounds' text has if `None`).
///
/// # Errors
/// 9102 for text that is no period of the kind: no `(b, e)`, bounds that are no values of
/// the kind, or a beginning not before the end.
pub(crate) fn parse(s: &str, kind: Option<PeriodKind>) -> Result<Period> {
    let bad = || Error::InvalidPeriodText(s.to_string());
    let (b, e) = bounds(s).ok_or_else(bad)?;
    let kind = kind.unwrap_or_else(|| kind_of_text(&b));
    let p = Period {
        kind,
        begin: read_bound(kind, &b).map_err(|_| bad())?,
        end: read_bound(kind, &e).map_err(|_| bad())?,
    };
    check(p).map_err(|_| bad())
}

/// A bound moved from one kind to another: a DATE becomes the TIMESTAMP at its midnight, a
/// TIMESTAMP its DATE (as CAST does to the values).
fn convert_bound(v: i64, from: PeriodKind, to: PeriodKind) -> Result<i64> {
    const DAY: i64 = 86_400_000_000;
    match (from, to) {
        _ if from == to => Ok(v),
        (PeriodKind::Date, PeriodKind::Timestamp) => v.checked_mul(DAY).ok_or(Error::Overflow),
        (PeriodKind::Timestamp, PeriodKind::Date) => Ok(v.div_euclid(DAY)),
        (PeriodKind::Timestamp, PeriodKind::Time) => Ok(v.rem_euclid(DAY)),
        _ => Err(Error::TypeMismatch(format!(
            "a PERIOD of {from:?} does not convert to a PERIOD of {to:?}"
        ))),
    }
}

/// Converts a period array to `target` (text, or another kind of period), or an array of
/// text to periods of the kind `target` holds. `None` when neither side is a period.
///
/// # Errors
/// 9102 for text that is no period; 9103 for a conversion whose bounds come out of order;
/// 9913 for a conversion Teradata has none of.
pub(crate) fn cast(a: &ArrayRef, target: &DataType) -> Option<Result<ArrayRef>> {
    let from = kind_of(a.data_type());
    let to = kind_of(target);
    if from.is_none() && to.is_none() {
        return None;
    }
    Some(cast_periods(a, from, to, target))
}

fn cast_periods(
    a: &ArrayRef,
    from: Option<PeriodKind>,
    to: Option<PeriodKind>,
    target: &DataType,
) -> Result<ArrayRef> {
    match (from, to) {
        (Some(_), None) if matches!(target, DataType::Utf8) => crate::period_text::display(a, None)
            .ok_or_else(|| Error::Internal("a period array is no period".into())),
        (Some(f), Some(t)) => {
            let mut out = Vec::with_capacity(a.len());
            for i in 0..a.len() {
                out.push(match value_at(a.as_ref(), i) {
                    Value::Period(p) => {
                        let begin = convert_bound(p.begin, f, t)?;
                        let end = convert_bound(p.end, f, t)?;
                        Value::Period(check(Period {
                            kind: t,
                            begin,
                            end,
                        })?)
                    }
                    _ => Value::Null,
                });
            }
            Ok(values_to_array(SqlType::Period(t.elem()), out.iter()))
        }
        (None, Some(t)) if matches!(a.data_type(), DataType::Utf8 | DataType::Null) => {
            let mut out = Vec::with_capacity(a.len());
            let s = crate::expr::cast_to_arrow(a, &DataType::Utf8)?;
            let s = s
                .as_any()
                .downcast_ref::<StringArray>()
                .ok_or_else(|| Error::Internal("text is no StringArray".into()))?;
            for v in s.iter() {
                out.push(match v {
                    Some(v) => Value::Period(parse(v, Some(t))?),
                    None => Value::Null,
                });
            }
            Ok(values_to_array(SqlType::Period(t.elem()), out.iter()))
        }
        _ => Err(Error::TypeMismatch(format!(
            "{} does not convert to {}",
            crate::types::type_name(a.data_type()),
            crate::types::type_name(target)
        ))),
    }
}

/// Periods made fit for `elem`: bounds cut to its fractional-second precision (a cast to, or
/// a column of, `PERIOD(TIMESTAMP(p))` keeps p digits, as TIMESTAMP(p) does), and every
/// period checked ([`check`]: a parameter's period arrives unchecked).
///
/// # Errors
/// 9103 for a period whose bounds are out of order or out of range.
pub(crate) fn conform(a: ArrayRef, elem: PeriodElem) -> Result<ArrayRef> {
    let unit = match elem {
        PeriodElem::Time(p) | PeriodElem::Timestamp(p) if p < 6 => 10i64.pow(6 - u32::from(p)),
        _ => 1,
    };
    let cut = |v: i64| v.saturating_sub(v.rem_euclid(unit));
    let mut out = Vec::with_capacity(a.len());
    for i in 0..a.len() {
        out.push(match value_at(a.as_ref(), i) {
            Value::Period(q) => Value::Period(check(Period {
                begin: cut(q.begin),
                end: cut(q.end),
                ..q
            })?),
            _ => Value::Null,
        });
    }
    Ok(values_to_array(SqlType::Period(elem), out.iter()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_reads_back_in_both_forms_and_bounds_must_ascend() {
        let p = parse("(2005-02-03, 2006-02-04)", None).unwrap();
        assert_eq!(p.kind, PeriodKind::Date);
        assert_eq!(text(&p, None), "('2005-02-03', '2006-02-04')");
        assert_eq!(parse(&text(&p, None), None).unwrap(), p);
        let t = parse("('2005-02-03 10:00:00', '2005-02-03 11:30:00.5')", None).unwrap();
        assert_eq!(t.kind, PeriodKind::Timestamp);
        assert_eq!(
            text(&t, Some(1)),
            "('2005-02-03 10:00:00.0', '2005-02-03 11:30:00.5')"
        );
        assert_eq!(
            parse("(10:00:00, 11:00:00)", None).unwrap().kind,
            PeriodKind::Time
        );
        for bad in [
            "(2006-02-04, 2005-02-03)",
            "(2005-02-03, 2005-02-03)",
            "2005-02-03",
            "(2005-02-30, 2006-01-01)",
        ] {
            assert!(
                matches!(parse(bad, None), Err(Error::InvalidPeriodText(_))),
                "{bad}"
            );
        }
        assert!(matches!(
            check(Period {
                kind: PeriodKind::Date,
                begin: 3,
                end: 3
            }),
            Err(Error::InvalidPeriod(_))
        ));
    }
}
