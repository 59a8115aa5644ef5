//! The difference of two DATE, TIME or TIMESTAMP values as an interval of the fields a
//! qualifier names: `(d1 - d2) DAY(4)`, `(d1 - d2) MONTH`, `(ts1 - ts2) DAY(4) TO SECOND`,
//! `(t1 - t2) HOUR TO MINUTE` (TIME only with TIME and a day-time qualifier, else 5407) (SQL Date and
//! Time Functions and Expressions, "ANSI DateTime and Interval Expressions"; the parser makes
//! them the call `"tdlite interval"` (parser/src/interval_qualifier.rs)).
//!
//! tdlite has no INTERVAL type: a one-field interval is its number (an INTEGER; SECOND a
//! DECIMAL with the qualifier's fractional digits), so `CAST((d1 - d2) DAY(4) AS INTEGER)` and
//! arithmetic work; an interval of several fields is its text in Teradata's form (`  1
//! 02:03:04.000000`: a sign place, the leading field right-aligned to its precision).
//!
//! Invariants: year-month intervals count by the date fields (`(DATE '2020-03-01' - DATE
//! '2020-02-29') MONTH` is 1, the days do not matter); day-time intervals by the exact
//! difference, truncated toward zero at the last field; a leading field with more digits
//! than its precision (2 unless written) is 7453, Teradata's famous `(d1 - d2) DAY` past 99
//! days.

use crate::error::{Error, OrOverflow, Result};
use crate::functions::Field as Unit;
use chrono::{Datelike, NaiveDateTime};
use tdlite_storage::types::{SqlType, Value};

/// A qualifier: the leading field and its precision, the last field, and the seconds'
/// fractional digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Qualifier {
    start: Unit,
    precision: u8,
    end: Unit,
    frac: u8,
}

impl Qualifier {
    /// Reads `DAY(4) TO SECOND(6)`, `MONTH`, `SECOND(3,2)` as the parser wrote it.
    ///
    /// # Errors
    /// 3706 for a qualifier Teradata does not have (`MONTH TO DAY`, a precision past 4, …).
    pub fn parse(text: &str) -> Result<Qualifier> {
        let bad = || {
            Error::Parse(tdlite_parser::ParseError::syntax(
                format!("the interval qualifier {text} is not one Teradata has."),
                tdlite_parser::Location::default(),
            ))
        };
        let field = |t: &str| -> Result<(Unit, Vec<u8>)> {
            let (name, args) = match t.split_once('(') {
                Some((n, rest)) => (n, rest.trim_end_matches(')')),
                None => (t, ""),
            };
            let unit = match name.trim() {
                "YEAR" => Unit::Year,
                "MONTH" => Unit::Month,
                "DAY" => Unit::Day,
                "HOUR" => Unit::Hour,
                "MINUTE" => Unit::Minute,
                "SECOND" => Unit::Second,
                _ => return Err(bad()),
            };
            let nums = args
                .split(',')
                .filter(|a| !a.is_empty())
                .map(|a| a.trim().parse::<u8>().map_err(|_| bad()))
                .collect::<Result<Vec<u8>>>()?;
            Ok((unit, nums))
        };
        let (first, last) = match text.split_once(" TO ") {
            Some((a, b)) => (a, Some(b)),
            None => (text, None),
        };
        let (start, nums) = field(first)?;
        let precision = nums.first().copied().unwrap_or(2);
        let mut frac = if start == Unit::Second {
            nums.get(1).copied().unwrap_or(6)
        } else {
            6
        };
        let end = match last {
            None => start,
            Some(l) => {
                let (end, nums) = field(l)?;
                if end == Unit::Second {
                    frac = nums.first().copied().unwrap_or(6);
                } else if !nums.is_empty() {
                    return Err(bad());
                }
                end
            }
        };
        let year_month = |u: Unit| matches!(u, Unit::Year | Unit::Month);
        if end < start
            || (end != start && (year_month(start) != year_month(end)))
            || !(1..=4).contains(&precision)
            || frac > 6
            || (last.is_some() && nums.len() > 1)
        {
            return Err(bad());
        }
        Ok(Qualifier {
            start,
            precision,
            end,
            frac,
        })
    }

    /// The SQL type of the interval's value here.
    pub fn result_type(self) -> SqlType {
        match (self.start, self.end) {
            (Unit::Second, Unit::Second) => {
                SqlType::Decimal(self.precision + self.frac, self.frac as i8)
            }
            (s, e) if s == e => SqlType::Integer,
            _ => SqlType::VarChar(64000),
        }
    }
}

/// `left - right` as the interval `q` (NULL if either is).
///
/// # Errors
/// 7453 when the leading field does not fit its precision; 9913 for values that are no
/// DATE or TIMESTAMP.
pub(crate) fn eval(q: Qualifier, left: &Value, right: &Value) -> Result<Value> {
    // TIME from TIME: a day-time difference within a day (Teradata has no year-month one)
    let times = [left, right]
        .iter()
        .filter(|v| matches!(v, Value::Time(_)))
        .count();
    let others = [left, right]
        .iter()
        .filter(|v| !matches!(v, Value::Time(_) | Value::Null))
        .count();
    if times > 0 && (others > 0 || matches!(q.start, Unit::Year | Unit::Month)) {
        return Err(Error::DateTimeOperation(
            "a TIME difference takes another TIME and a day-time qualifier".into(),
        ));
    }
    let (Some(a), Some(b)) = (moment(left)?, moment(right)?) else {
        return Ok(Value::Null);
    };
    let limit = 10i128.pow(u32::from(q.precision));
    let overflow = |v: i128| Error::IntervalOverflow(v.to_string());
    if matches!(q.start, Unit::Year | Unit::Month) {
        let months = (i128::from(a.year()) - i128::from(b.year())) * 12 + i128::from(a.month())
            - i128::from(b.month());
        let years = i128::from(a.year()) - i128::from(b.year());
        return match (q.start, q.end) {
            (Unit::Year, Unit::Year) if years.abs() >= limit => Err(overflow(years)),
            (Unit::Year, Unit::Year) => Ok(Value::Int(years as i64)),
            (Unit::Month, _) if months.abs() >= limit => Err(overflow(months)),
            (Unit::Month, _) => Ok(Value::Int(months as i64)),
            _ => {
                let (y, m) = (months.abs() / 12, months.abs() % 12);
                if y >= limit {
                    return Err(overflow(y));
                }
                let p = usize::from(q.precision);
                Ok(Value::Str(format!("{}{y:>p$}-{m:02}", sign(months))))
            }
        };
    }
    let micros =
        i128::from(a.and_utc().timestamp_micros()) - i128::from(b.and_utc().timestamp_micros());
    let per = |u: Unit| -> i128 {
        match u {
            Unit::Day => 86_400_000_000,
            Unit::Hour => 3_600_000_000,
            Unit::Minute => 60_000_000,
            _ => 1_000_000,
        }
    };
    let lead = micros / per(q.start);
    if lead.abs() >= limit {
        return Err(overflow(lead));
    }
    let frac_unit = 10i128.pow(6 - u32::from(q.frac));
    if q.start == q.end {
        return Ok(match q.start {
            Unit::Second => Value::Decimal(micros / frac_unit, q.frac as i8),
            _ => Value::Int(lead as i64),
        });
    }
    // the fields after the leading one, each within its unit
    let rest = micros.abs() - lead.abs() * per(q.start);
    let (h, rest_h) = (rest / per(Unit::Hour), rest % per(Unit::Hour));
    let (mi, rest_m) = (rest_h / per(Unit::Minute), rest_h % per(Unit::Minute));
    let secs = |from: i128| {
        let (s, f) = (from / 1_000_000, (from % 1_000_000) / frac_unit);
        match q.frac {
            0 => format!("{s:02}"),
            n => format!("{s:02}.{f:0n$}", n = usize::from(n)),
        }
    };
    let p = usize::from(q.precision);
    let head = format!("{}{:>p$}", sign(micros), lead.abs());
    let text = match (q.start, q.end) {
        (Unit::Day, Unit::Hour) => format!("{head} {h:02}"),
        (Unit::Day, Unit::Minute) => format!("{head} {h:02}:{mi:02}"),
        (Unit::Day, _) => format!("{head} {h:02}:{mi:02}:{}", secs(rest_m)),
        (Unit::Hour, Unit::Minute) => format!("{head}:{mi:02}"),
        (Unit::Hour, _) => format!("{head}:{mi:02}:{}", secs(rest_m)),
        _ => format!("{head}:{}", secs(rest)),
    };
    Ok(Value::Str(text))
}

fn sign(v: i128) -> char {
    if v < 0 {
        '-'
    } else {
        ' '
    }
}

/// A DATE (its midnight) or TIMESTAMP value; `None` for NULL.
fn moment(v: &Value) -> Result<Option<NaiveDateTime>> {
    Ok(match v {
        Value::Null => None,
        Value::Timestamp(us) => Some(
            chrono::DateTime::from_timestamp_micros(*us)
                .or_overflow()?
                .naive_utc(),
        ),
        Value::Date(_) => crate::functions::date_of(v)?.map(|d| d.and_time(Default::default())),
        // a TIME: its moment on one day (only ever compared with another TIME)
        Value::Time(us) => Some(
            chrono::DateTime::from_timestamp_micros(*us)
                .or_overflow()?
                .naive_utc(),
        ),
        _ => {
            return Err(Error::TypeMismatch(
                "an interval qualifier takes a difference of DATE, TIME or TIMESTAMP values".into(),
            ))
        }
    })
}
