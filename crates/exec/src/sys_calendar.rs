//! `Sys_Calendar.Calendar` and `Sys_Calendar.CalDates`: Teradata's system calendar, one row per
//! day from 1900-01-01 to 2100-12-31 (73,414 rows), which reporting queries join to for
//! weekdays, week and month numbers. Columns as Teradata's view has them (SQL Date and Time
//! Functions and Expressions, "Sys_Calendar.Calendar"), all INTEGER but `calendar_date`:
//!
//! - `day_of_week` 1 (Sunday) … 7; `day_of_month`; `day_of_year`; `day_of_calendar` (1900-01-01
//!   is 1); `weekday_of_month` (the nth such weekday of the month);
//! - `week_of_month`, `week_of_year`, `week_of_calendar`: the nth full week (Sunday to
//!   Saturday) of the period, the partial week before its first Sunday being week 0, i.e.
//!   `(day_of_period − day_of_week + 7) / 7`;
//! - `month_of_quarter`, `month_of_year`, `month_of_calendar` (1900-01 is 1),
//!   `quarter_of_year`, `quarter_of_calendar` (1900 Q1 is 1), `year_of_calendar` (the year).
//!
//! Invariant: the rows are made once per process and shared (they never change); a reader
//! gets them as any view's rows, so WHERE, joins and aggregates work on them unchanged.

use crate::error::Result;
use crate::result::Rows;
use arrow::array::{ArrayRef, Date32Array, Int32Array};
use arrow::datatypes::{DataType, Field, Schema};
use arrow::record_batch::RecordBatch;
use chrono::{Datelike, NaiveDate};
use std::sync::{Arc, OnceLock};

/// The calendar's columns, in Teradata's order.
const COLUMNS: [&str; 15] = [
    "calendar_date",
    "day_of_week",
    "day_of_month",
    "day_of_year",
    "day_of_calendar",
    "weekday_of_month",
    "week_of_month",
    "week_of_year",
    "week_of_calendar",
    "month_of_quarter",
    "month_of_year",
    "month_of_calendar",
    "quarter_of_year",
    "quarter_of_calendar",
    "year_of_calendar",
];

/// Whether `parts` (a name as written) name something in Sys_Calendar (one of its views, or
/// nothing: `rows` then gives none).
pub(crate) fn names(parts: &[String]) -> bool {
    matches!(parts, [db, _] if db.eq_ignore_ascii_case("SYS_CALENDAR"))
}

/// The rows of the view `parts` names (`["Sys_Calendar", "Calendar"]`, any case), or `None`
/// if it names none of these.
///
/// # Errors
/// Only Arrow errors building the batch (none expected).
pub(crate) fn rows(parts: &[String]) -> Result<Option<Rows>> {
    let [_, view] = parts else {
        return Ok(None);
    };
    if !names(parts) {
        return Ok(None);
    }
    let calendar = match calendar() {
        Ok(c) => c,
        Err(e) => return Err(crate::error::Error::Internal(e.to_string())),
    };
    if view.eq_ignore_ascii_case("CALENDAR") {
        return Ok(Some(calendar.clone()));
    }
    if view.eq_ignore_ascii_case("CALDATES") {
        let field = Field::new("cdate", DataType::Date32, false);
        let schema = Arc::new(Schema::new(vec![field]));
        let dates = calendar.batches[0].column(0).clone();
        let batch = RecordBatch::try_new(schema.clone(), vec![dates])?;
        return Ok(Some(Rows {
            schema,
            batches: vec![batch],
        }));
    }
    Ok(None)
}

/// The whole calendar, made at its first use.
fn calendar() -> std::result::Result<&'static Rows, &'static arrow::error::ArrowError> {
    static CALENDAR: OnceLock<std::result::Result<Rows, arrow::error::ArrowError>> =
        OnceLock::new();
    CALENDAR.get_or_init(build).as_ref()
}

fn build() -> std::result::Result<Rows, arrow::error::ArrowError> {
    let epoch = NaiveDate::from_ymd_opt(1970, 1, 1).unwrap_or_default();
    let first = NaiveDate::from_ymd_opt(1900, 1, 1).unwrap_or_default();
    let last = NaiveDate::from_ymd_opt(2100, 12, 31).unwrap_or_default();
    let mut dates = Vec::new();
    let mut ints: Vec<Vec<i32>> = vec![Vec::new(); COLUMNS.len() - 1];
    for (i, d) in first.iter_days().take_while(|d| *d <= last).enumerate() {
        dates.push((d - epoch).num_days() as i32);
        let dow = d.weekday().num_days_from_sunday() as i32 + 1;
        let (dom, doy, doc) = (d.day() as i32, d.ordinal() as i32, i as i32 + 1);
        let (year, month) = (d.year(), d.month() as i32);
        let quarter = (month - 1) / 3 + 1;
        let week = |day: i32| (day - dow + 7) / 7;
        let row = [
            dow,
            dom,
            doy,
            doc,
            (dom - 1) / 7 + 1,
            week(dom),
            week(doy),
            week(doc),
            (month - 1) % 3 + 1,
            month,
            (year - 1900) * 12 + month,
            quarter,
            (year - 1900) * 4 + quarter,
            year,
        ];
        for (column, v) in ints.iter_mut().zip(row) {
            column.push(v);
        }
    }
    let mut fields = vec![Field::new(COLUMNS[0], DataType::Date32, false)];
    fields.extend(
        COLUMNS[1..]
            .iter()
            .map(|n| Field::new(*n, DataType::Int32, false)),
    );
    let schema = Arc::new(Schema::new(fields));
    let mut arrays: Vec<ArrayRef> = vec![Arc::new(Date32Array::from(dates))];
    arrays.extend(
        ints.into_iter()
            .map(|c| Arc::new(Int32Array::from(c)) as ArrayRef),
    );
    let batch = RecordBatch::try_new(schema.clone(), arrays)?;
    Ok(Rows {
        schema,
        batches: vec![batch],
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::AsArray;

    #[test]
    fn a_day_has_the_numbers_teradatas_calendar_gives_it() {
        let rows = rows(&["sys_calendar".into(), "CALENDAR".into()])
            .unwrap()
            .unwrap();
        let b = &rows.batches[0];
        assert_eq!(b.num_rows(), 73_414);
        // 2013-03-18, a Monday, as a published listing of the view shows it
        let day = (NaiveDate::from_ymd_opt(2013, 3, 18).unwrap()
            - NaiveDate::from_ymd_opt(1900, 1, 1).unwrap())
        .num_days() as usize;
        let got: Vec<i32> = (1..COLUMNS.len())
            .map(|c| {
                b.column(c)
                    .as_primitive::<arrow::datatypes::Int32Type>()
                    .value(day)
            })
            .collect();
        assert_eq!(
            got,
            vec![2, 18, 77, 41350, 3, 3, 11, 5907, 3, 3, 1359, 1, 453, 2013]
        );
        // 1900-01-01 (a Monday) opens week 0 and day 1
        let first: Vec<i32> = (1..COLUMNS.len())
            .map(|c| {
                b.column(c)
                    .as_primitive::<arrow::datatypes::Int32Type>()
                    .value(0)
            })
            .collect();
        assert_eq!(first, vec![2, 1, 1, 1, 1, 0, 0, 0, 1, 1, 1, 1, 1, 1900]);
        assert!(rows_of(&["dbc", "calendar"]).is_none());
    }

    fn rows_of(parts: &[&str]) -> Option<Rows> {
        let parts: Vec<String> = parts.iter().map(|p| p.to_string()).collect();
        rows(&parts).unwrap()
    }
}
