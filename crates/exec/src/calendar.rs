//! Teradata's calendar functions of a DATE or TIMESTAMP (SQL Date and Time Functions and
//! Expressions, "Business Calendar Functions" and the `td_*` functions of TD_SYSFNLIB): the
//! number of a day, month, quarter or year within a larger period, the first or last day of
//! a period, the day of a given weekday in the date's week, and Oracle's OADD_MONTHS.
//!
//! Invariants: the Teradata calendar's weeks run Sunday to Saturday (`td_day_of_week` of a
//! Sunday is 1); "of calendar" numbers count from 1900-01-01 (day, month and quarter 1); a
//! TIMESTAMP counts by its date. `DayNumber_Of_Week(d, 'ISO')` counts from Monday. Week
//! numbers (which week is week 0 differs by calendar) are not here: 9910.

use crate::error::{Error, OrOverflow, Result};
use chrono::{Datelike, NaiveDate};
use tdlite_storage::types::Value;

/// A period a date belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Period {
    Week,
    Month,
    Quarter,
    Year,
}

/// One calendar function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CalendarFn {
    DayOfWeek,
    DayOfMonth,
    DayOfYear,
    DayOfCalendar,
    /// The weekday's occurrence in the month (the 2nd Tuesday is 2).
    WeekdayOfMonth,
    MonthOfQuarter,
    MonthOfYear,
    MonthOfCalendar,
    QuarterOfYear,
    QuarterOfCalendar,
    YearOfCalendar,
    Begin(Period),
    End(Period),
    /// `td_sunday(d)` … `td_saturday(d)`: that weekday of d's week (0 is Sunday).
    Weekday(u8),
    /// `OADD_MONTHS(d, n)`: ADD_MONTHS, but the last day of a month goes to the last day.
    OAddMonths,
}

impl CalendarFn {
    /// The function a name calls, if it is one of these.
    pub fn lookup(name: &str) -> Option<CalendarFn> {
        use CalendarFn::*;
        Some(match name {
            "TD_DAY_OF_WEEK" | "DAYNUMBER_OF_WEEK" => DayOfWeek,
            "TD_DAY_OF_MONTH" | "DAYNUMBER_OF_MONTH" => DayOfMonth,
            "TD_DAY_OF_YEAR" | "DAYNUMBER_OF_YEAR" => DayOfYear,
            "TD_DAY_OF_CALENDAR" | "DAYNUMBER_OF_CALENDAR" => DayOfCalendar,
            "TD_WEEKDAY_OF_MONTH" | "DAYOCCURRENCE_OF_MONTH" => WeekdayOfMonth,
            "TD_MONTH_OF_QUARTER" | "MONTHNUMBER_OF_QUARTER" => MonthOfQuarter,
            "TD_MONTH_OF_YEAR" | "MONTHNUMBER_OF_YEAR" => MonthOfYear,
            "TD_MONTH_OF_CALENDAR" | "MONTHNUMBER_OF_CALENDAR" => MonthOfCalendar,
            "TD_QUARTER_OF_YEAR" | "QUARTERNUMBER_OF_YEAR" => QuarterOfYear,
            "TD_QUARTER_OF_CALENDAR" | "QUARTERNUMBER_OF_CALENDAR" => QuarterOfCalendar,
            "TD_YEAR_OF_CALENDAR" => YearOfCalendar,
            "TD_WEEK_BEGIN" => Begin(Period::Week),
            "TD_WEEK_END" => End(Period::Week),
            "TD_MONTH_BEGIN" => Begin(Period::Month),
            "TD_MONTH_END" => End(Period::Month),
            "TD_QUARTER_BEGIN" => Begin(Period::Quarter),
            "TD_QUARTER_END" => End(Period::Quarter),
            "TD_YEAR_BEGIN" => Begin(Period::Year),
            "TD_YEAR_END" => End(Period::Year),
            "TD_SUNDAY" => Weekday(0),
            "TD_MONDAY" => Weekday(1),
            "TD_TUESDAY" => Weekday(2),
            "TD_WEDNESDAY" => Weekday(3),
            "TD_THURSDAY" => Weekday(4),
            "TD_FRIDAY" => Weekday(5),
            "TD_SATURDAY" => Weekday(6),
            "OADD_MONTHS" => OAddMonths,
            _ => return None,
        })
    }

    /// Whether the result is a DATE (else an INTEGER).
    pub fn gives_date(self) -> bool {
        matches!(
            self,
            CalendarFn::Begin(_)
                | CalendarFn::End(_)
                | CalendarFn::Weekday(_)
                | CalendarFn::OAddMonths
        )
    }

    /// The fewest arguments it takes.
    pub fn arity(self) -> usize {
        match self {
            CalendarFn::OAddMonths => 2,
            _ => 1,
        }
    }
}

/// `f` of the row's arguments `a` (the date first).
///
/// # Errors
/// 9919 for an unknown calendar name; 2616 past the calendar's range.
pub(crate) fn eval(f: CalendarFn, a: &[Value]) -> Result<Value> {
    let Some(d) = date(a.first().unwrap_or(&Value::Null))? else {
        return Ok(Value::Null);
    };
    let day = |d: NaiveDate| Ok(Value::Date(crate::functions::days(d)));
    let int = |v: i64| Ok(Value::Int(v));
    let quarter = i64::from(d.month0() / 3 + 1);
    let months_from_1900 = (i64::from(d.year()) - 1900) * 12 + i64::from(d.month());
    let epoch = NaiveDate::from_ymd_opt(1900, 1, 1).or_overflow()?;
    match f {
        CalendarFn::DayOfWeek => {
            let iso = match a.get(1) {
                None | Some(Value::Null) => false,
                Some(Value::Str(c)) => match c.trim().to_ascii_uppercase().as_str() {
                    "TERADATA" => false,
                    "ISO" => true,
                    _ => {
                        return Err(Error::BadArgument(format!(
                            "DayNumber_Of_Week: the calendar '{c}' (TERADATA or ISO)"
                        )))
                    }
                },
                Some(_) => return Err(Error::BadArgument("a calendar is a name".into())),
            };
            int(i64::from(match iso {
                true => d.weekday().number_from_monday(),
                false => d.weekday().number_from_sunday(),
            }))
        }
        CalendarFn::DayOfMonth => int(i64::from(d.day())),
        CalendarFn::DayOfYear => int(i64::from(d.ordinal())),
        CalendarFn::DayOfCalendar => int((d - epoch).num_days() + 1),
        CalendarFn::WeekdayOfMonth => int(i64::from(d.day0() / 7 + 1)),
        CalendarFn::MonthOfQuarter => int(i64::from(d.month0() % 3 + 1)),
        CalendarFn::MonthOfYear => int(i64::from(d.month())),
        CalendarFn::MonthOfCalendar => int(months_from_1900),
        CalendarFn::QuarterOfYear => int(quarter),
        CalendarFn::QuarterOfCalendar => int((i64::from(d.year()) - 1900) * 4 + quarter),
        CalendarFn::YearOfCalendar => int(i64::from(d.year())),
        CalendarFn::Begin(p) => day(begin(p, d).or_overflow()?),
        CalendarFn::End(p) => {
            let next = match p {
                Period::Week => begin(p, d).and_then(|b| b.checked_add_days(chrono::Days::new(7))),
                Period::Month => {
                    begin(p, d).and_then(|b| b.checked_add_months(chrono::Months::new(1)))
                }
                Period::Quarter => {
                    begin(p, d).and_then(|b| b.checked_add_months(chrono::Months::new(3)))
                }
                Period::Year => {
                    begin(p, d).and_then(|b| b.checked_add_months(chrono::Months::new(12)))
                }
            };
            day(next.and_then(|n| n.pred_opt()).or_overflow()?)
        }
        CalendarFn::Weekday(w) => {
            let sunday = begin(Period::Week, d).or_overflow()?;
            day(sunday
                .checked_add_days(chrono::Days::new(u64::from(w)))
                .or_overflow()?)
        }
        CalendarFn::OAddMonths => {
            let n = match a.get(1) {
                Some(Value::Int(n)) => *n,
                Some(Value::Null) | None => return Ok(Value::Null),
                Some(Value::Decimal(v, s)) => {
                    let scale = 10i128
                        .checked_pow(u32::try_from(*s).unwrap_or(0))
                        .or_overflow()?;
                    i64::try_from(*v / scale).ok().or_overflow()?
                }
                Some(_) => {
                    return Err(Error::BadArgument(
                        "OADD_MONTHS takes a number of months".into(),
                    ))
                }
            };
            let last = |d: NaiveDate| {
                d.checked_add_days(chrono::Days::new(1))
                    .is_some_and(|next| next.month() != d.month())
            };
            let months = chrono::Months::new(u32::try_from(n.unsigned_abs()).unwrap_or(u32::MAX));
            let moved = if n >= 0 {
                d.checked_add_months(months)
            } else {
                d.checked_sub_months(months)
            }
            .or_overflow()?;
            // the last day of a month goes to the last day of the month it lands in (Oracle)
            let moved = match last(d) {
                true => end_of_month(moved).or_overflow()?,
                false => moved,
            };
            day(moved)
        }
    }
}

/// The date of a DATE or TIMESTAMP value (NULL: `None`).
fn date(v: &Value) -> Result<Option<NaiveDate>> {
    match v {
        Value::Null => Ok(None),
        Value::Timestamp(us) => Ok(Some(
            chrono::DateTime::from_timestamp_micros(*us)
                .or_overflow()?
                .date_naive(),
        )),
        other => crate::functions::date_of(other),
    }
}

/// The first day of `p` holding `d` (a week begins on Sunday).
fn begin(p: Period, d: NaiveDate) -> Option<NaiveDate> {
    match p {
        Period::Week => d.checked_sub_days(chrono::Days::new(u64::from(
            d.weekday().num_days_from_sunday(),
        ))),
        Period::Month => d.with_day(1),
        Period::Quarter => NaiveDate::from_ymd_opt(d.year(), d.month0() / 3 * 3 + 1, 1),
        Period::Year => NaiveDate::from_ymd_opt(d.year(), 1, 1),
    }
}

fn end_of_month(d: NaiveDate) -> Option<NaiveDate> {
    d.with_day(1)?
        .checked_add_months(chrono::Months::new(1))?
        .pred_opt()
}
