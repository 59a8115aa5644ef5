//! `TRUNC(date_value [, fmt])` and `ROUND(date_value [, fmt])` of a DATE or TIMESTAMP (SQL
//! Date and Time Functions and Expressions, "TRUNC (Date)" and "ROUND (Date)"): the date
//! truncated or rounded to the unit `fmt` names. The result is a DATE, also for a TIMESTAMP
//! (Teradata's default; the TruncRoundReturnTimestamp DBS Control field is not modelled).
//!
//! Units (case does not matter): CC, SCC (century, from year xx01; ROUND goes up from
//! January 1 of xx50); SYYYY, YYYY, YEAR, SYEAR, YYY, YY, Y (year, up from July 1); IYYY,
//! IYY, IY, I (ISO year, from the Monday of the week holding January 4; up from July 1);
//! Q (quarter, up from the 16th day of its second month); MONTH, MON, MM, RM (month, up from
//! the 16th); WW, IW, W, DAY, DY, D (a week starting on the weekday of January 1, on Monday,
//! on the weekday of the month's first day, on Sunday; up from half a week); DDD, DD, J
//! (day, up from noon); HH, HH12, HH24 (hour, up from 30 minutes); MI (minute, up from 30
//! seconds). Without `fmt` the unit is the day. Another `fmt` is 9919.
//!
//! Invariant: TRUNC never moves a value forward and ROUND moves it to the nearer of the
//! unit's start and the next unit's start, both as dates of the day they fall on.

use crate::error::{Error, Result};
use chrono::{Datelike, Duration, NaiveDate, NaiveDateTime, Timelike, Weekday};
use tdlite_storage::types::Value;

/// A unit a date is truncated or rounded to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unit {
    Century,
    Year,
    IsoYear,
    Quarter,
    Month,
    /// A week starting on the weekday of the year's first day.
    YearWeek,
    /// A week starting on Monday.
    IsoWeek,
    /// A week starting on the weekday of the month's first day.
    MonthWeek,
    /// A week starting on Sunday.
    Week,
    Day,
    Hour,
    Minute,
}

fn unit(fmt: &str) -> Option<Unit> {
    use Unit::*;
    Some(match fmt.trim().to_ascii_uppercase().as_str() {
        "CC" | "SCC" => Century,
        "SYYYY" | "YYYY" | "YEAR" | "SYEAR" | "YYY" | "YY" | "Y" => Year,
        "IYYY" | "IYY" | "IY" | "I" => IsoYear,
        "Q" => Quarter,
        "MONTH" | "MON" | "MM" | "RM" => Month,
        "WW" => YearWeek,
        "IW" => IsoWeek,
        "W" => MonthWeek,
        "DAY" | "DY" | "D" => Week,
        "DDD" | "DD" | "J" => Day,
        "HH" | "HH12" | "HH24" => Hour,
        "MI" => Minute,
        _ => return None,
    })
}

/// TRUNC (`truncate`) or ROUND of a DATE or TIMESTAMP value to `fmt`'s unit, as a DATE.
///
/// # Errors
/// 9919 for a `fmt` that names no unit; 2665 for a result past 9999-12-31.
pub(crate) fn round_date(v: &Value, fmt: &str, truncate: bool) -> Result<Value> {
    let at = match v {
        Value::Null => return Ok(Value::Null),
        Value::Date(d) => crate::functions::date_from_days(*d)
            .ok_or_else(out_of_range)?
            .and_time(chrono::NaiveTime::MIN),
        Value::Timestamp(us) => chrono::DateTime::from_timestamp_micros(*us)
            .ok_or_else(|| Error::InvalidDate(format!("{us}")))?
            .naive_utc(),
        other => return Err(Error::BadArgument(format!("TRUNC/ROUND of {other:?}"))),
    };
    let u = unit(fmt).ok_or_else(|| {
        Error::BadArgument(format!("TRUNC/ROUND: '{fmt}' is no date format element"))
    })?;
    let start = unit_start(at, u).ok_or_else(out_of_range)?;
    let day = if truncate {
        start
    } else {
        let next = next_start(start, u).ok_or_else(out_of_range)?;
        if at >= midpoint(start, next, u).ok_or_else(out_of_range)? {
            next
        } else {
            start
        }
    };
    if !(1..=9999).contains(&day.year()) {
        return Err(out_of_range());
    }
    Ok(Value::Date(crate::functions::days(day.date())))
}

fn out_of_range() -> Error {
    Error::InvalidDate("a DATE out of range".into())
}

/// The first day of the week holding `d` that starts on `first`.
fn week_start(d: NaiveDate, first: Weekday) -> NaiveDate {
    let back = (7 + d.weekday().num_days_from_sunday() - first.num_days_from_sunday()) % 7;
    d - Duration::days(i64::from(back))
}

/// The first day of ISO year `y` (the Monday of the week holding January 4).
fn iso_year_start(y: i32) -> Option<NaiveDate> {
    NaiveDate::from_isoywd_opt(y, 1, Weekday::Mon)
}

fn date(y: i32, m: u32, d: u32) -> Option<NaiveDateTime> {
    NaiveDate::from_ymd_opt(y, m, d).map(|d| d.and_time(chrono::NaiveTime::MIN))
}

/// The start of the unit `at` falls in.
fn unit_start(at: NaiveDateTime, u: Unit) -> Option<NaiveDateTime> {
    let d = at.date();
    let midnight = |d: NaiveDate| Some(d.and_time(chrono::NaiveTime::MIN));
    match u {
        Unit::Century => date((d.year() - 1).div_euclid(100) * 100 + 1, 1, 1),
        Unit::Year => date(d.year(), 1, 1),
        Unit::IsoYear => midnight(iso_year_start(d.iso_week().year())?),
        Unit::Quarter => date(d.year(), (d.month0() / 3) * 3 + 1, 1),
        Unit::Month => date(d.year(), d.month(), 1),
        Unit::YearWeek => midnight(week_start(
            d,
            NaiveDate::from_ymd_opt(d.year(), 1, 1)?.weekday(),
        )),
        Unit::IsoWeek => midnight(week_start(d, Weekday::Mon)),
        Unit::MonthWeek => midnight(week_start(d, d.with_day(1)?.weekday())),
        Unit::Week => midnight(week_start(d, Weekday::Sun)),
        Unit::Day => midnight(d),
        Unit::Hour => at.date().and_hms_opt(at.hour(), 0, 0),
        Unit::Minute => at.date().and_hms_opt(at.hour(), at.minute(), 0),
    }
}

/// The start of the unit after the one starting at `start`.
fn next_start(start: NaiveDateTime, u: Unit) -> Option<NaiveDateTime> {
    let d = start.date();
    match u {
        Unit::Century => date(d.year() + 100, 1, 1),
        Unit::Year => date(d.year() + 1, 1, 1),
        Unit::IsoYear => {
            Some(iso_year_start(d.iso_week().year() + 1)?.and_time(chrono::NaiveTime::MIN))
        }
        // (the start is a 1st, and so is the same day some months later)
        Unit::Quarter | Unit::Month => {
            let months = if u == Unit::Quarter { 3 } else { 1 };
            start.checked_add_months(chrono::Months::new(months))
        }
        Unit::YearWeek | Unit::IsoWeek | Unit::MonthWeek | Unit::Week => {
            start.checked_add_signed(Duration::days(7))
        }
        Unit::Day => start.checked_add_signed(Duration::days(1)),
        Unit::Hour => start.checked_add_signed(Duration::hours(1)),
        Unit::Minute => start.checked_add_signed(Duration::minutes(1)),
    }
}

/// Where ROUND starts going to `next`: the documented day for calendar units, else half way.
fn midpoint(start: NaiveDateTime, next: NaiveDateTime, u: Unit) -> Option<NaiveDateTime> {
    let d = start.date();
    match u {
        Unit::Century => date(d.year() + 49, 1, 1),
        Unit::Year => date(d.year(), 7, 1),
        // the ISO year numbered like the Gregorian year its July 1 falls in
        Unit::IsoYear => date(d.year() + i32::from(d.month() == 12), 7, 1),
        Unit::Quarter => date(d.year(), d.month() + 1, 16),
        Unit::Month => date(d.year(), d.month(), 16),
        _ => Some(start + (next - start) / 2),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn on(y: i32, m: u32, d: u32) -> Value {
        Value::Date(crate::functions::days(
            NaiveDate::from_ymd_opt(y, m, d).unwrap(),
        ))
    }

    fn at(text: &str) -> Value {
        let t = NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M:%S").unwrap();
        Value::Timestamp(t.and_utc().timestamp_micros())
    }

    #[test]
    fn truncation_matches_the_documented_examples() {
        let t = |v: &Value, f: &str| round_date(v, f, true).unwrap();
        assert_eq!(t(&at("1983-03-06 12:34:56"), "cc"), on(1901, 1, 1));
        assert_eq!(t(&at("1983-03-06 15:59:31"), "Y"), on(1983, 1, 1));
        assert_eq!(t(&on(2015, 3, 6), "i"), on(2014, 12, 29));
        assert_eq!(t(&on(1983, 3, 6), "q"), on(1983, 1, 1));
        assert_eq!(t(&on(1983, 3, 6), "mm"), on(1983, 3, 1));
        assert_eq!(t(&on(2015, 4, 3), "ww"), on(2015, 4, 2));
        assert_eq!(t(&on(2015, 4, 3), "iw"), on(2015, 3, 30));
        assert_eq!(t(&on(2015, 4, 3), "w"), on(2015, 4, 1));
        assert_eq!(t(&on(2015, 4, 3), "d"), on(2015, 3, 29));
        assert_eq!(t(&at("2015-04-03 23:59:59"), "dd"), on(2015, 4, 3));
        assert_eq!(t(&at("2015-04-03 23:59:59"), "HH"), on(2015, 4, 3));
        assert_eq!(t(&on(2000, 6, 1), "CC"), on(1901, 1, 1));
    }

    #[test]
    fn rounding_goes_up_from_the_documented_day() {
        let r = |v: &Value, f: &str| round_date(v, f, false).unwrap();
        assert_eq!(r(&on(2003, 9, 15), "MONTH"), on(2003, 9, 1));
        assert_eq!(r(&on(2003, 9, 17), "RM"), on(2003, 10, 1));
        assert_eq!(r(&on(2003, 9, 16), "MM"), on(2003, 10, 1));
        assert_eq!(r(&on(2003, 12, 16), "MM"), on(2004, 1, 1));
        assert_eq!(r(&on(2003, 6, 30), "YYYY"), on(2003, 1, 1));
        assert_eq!(r(&on(2003, 7, 1), "YYYY"), on(2004, 1, 1));
        assert_eq!(r(&on(2003, 5, 15), "Q"), on(2003, 4, 1));
        assert_eq!(r(&on(2003, 5, 16), "Q"), on(2003, 7, 1));
        assert_eq!(r(&on(2003, 11, 16), "Q"), on(2004, 1, 1));
        assert_eq!(r(&on(2049, 12, 31), "CC"), on(2001, 1, 1));
        assert_eq!(r(&on(2050, 1, 1), "CC"), on(2101, 1, 1));
        // a week from Sunday: Wednesday stays, Thursday goes to the next Sunday
        assert_eq!(r(&on(2015, 4, 1), "D"), on(2015, 3, 29));
        assert_eq!(r(&on(2015, 4, 2), "D"), on(2015, 4, 5));
        assert_eq!(r(&at("2015-04-03 11:59:59"), "DD"), on(2015, 4, 3));
        assert_eq!(r(&at("2015-04-03 12:00:00"), "DD"), on(2015, 4, 4));
        assert_eq!(r(&at("2015-04-03 23:30:00"), "HH"), on(2015, 4, 4));
        assert_eq!(r(&at("2015-04-03 23:29:59"), "HH"), on(2015, 4, 3));
        assert_eq!(r(&on(2015, 4, 3), "DD"), on(2015, 4, 3));
        assert_eq!(r(&on(2014, 12, 30), "IYYY"), on(2014, 12, 29));
        assert_eq!(r(&on(2015, 7, 1), "IYYY"), on(2016, 1, 4));
    }

    #[test]
    fn a_format_that_names_no_unit_is_9919_and_the_last_day_cannot_round_up() {
        let e = round_date(&on(2015, 4, 3), "XX", true).unwrap_err();
        assert_eq!(e.code().number, 9919);
        let e = round_date(&on(9999, 12, 31), "YYYY", false).unwrap_err();
        assert_eq!(e.code().number, 2665);
        assert_eq!(
            round_date(&on(9999, 12, 31), "YYYY", true).unwrap(),
            on(9999, 1, 1)
        );
    }
}
