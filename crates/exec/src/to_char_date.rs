//! `TO_CHAR(datetime, model)`: a DATE, TIMESTAMP or TIME written by an Oracle-style format
//! model, element by element, as Teradata documents them (SQL Data Types and Literals,
//! "format_arg Format Elements"): every element TO_CHAR takes, including those no Teradata
//! FORMAT mask has (`D`, `Q`, `CC`, `WW`, `W`, `J`, `IW`, `RM`, `SSSSS`, `DL`, `DS`, quoted
//! text) and `FM` toggled on and off within a model.
//!
//! A model is compiled once, when the call is bound ([`compile`]: an element TO_CHAR does not
//! take is 9910 there, naming it), and written per value ([`render`]).
//!
//! Invariants: names follow the case the element is written in (`MONTH` → MARCH, `Month` →
//! March, `month` → march); without `FM` a number element has its full width (zeros in front)
//! and `MONTH`/`DAY` are padded to nine, `RM` to four; under `FM` neither.

use crate::error::{Error, Result};
use arrow::array::{Array, ArrayRef, AsArray, StringArray};
use arrow::datatypes::{DataType, Date32Type, Time64MicrosecondType, TimestampMicrosecondType};
use chrono::{Datelike, NaiveDate, NaiveDateTime, Timelike};
use std::sync::Arc;

/// How a name element is written, by the case of the element as the model has it.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Case {
    Upper,
    Capital,
    Lower,
}

/// One element of a compiled model.
#[derive(Clone, Debug, PartialEq)]
enum Element {
    /// Punctuation or quoted text, written as it is.
    Text(String),
    /// `FM`: padding off (or on again).
    FillMode,
    /// A number element and its width (digits written with zeros in front unless `FM`).
    Number(Num, usize),
    /// A name element.
    Name(Name, Case),
    /// `FF1`…`FF9` (`FF`: 6): fractional digits (six carry data; more are zeros).
    Fraction(usize),
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Num {
    Year,
    IsoYear,
    Century,
    Quarter,
    Month,
    WeekOfYear,
    WeekOfMonth,
    IsoWeek,
    DayOfYear,
    DayOfMonth,
    DayOfWeek,
    Julian,
    Hour12,
    Hour24,
    Minute,
    Second,
    SecondOfDay,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Name {
    Month,
    MonthShort,
    Day,
    DayShort,
    RomanMonth,
    Meridian {
        dots: bool,
    },
    Era {
        dots: bool,
    },
    /// `Y,YYY`: the year with a group separator.
    CommaYear,
}

/// The start of a FORMAT mask that is an Oracle date model for TO_CHAR ([`render`] writes
/// by it): a control character, so no FORMAT a user writes has it.
pub(crate) const MODEL_MARK: &str = "\u{6}";

/// A compiled model.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Model {
    elements: Vec<Element>,
}

/// Elements by their spelling, longest first where one starts another (`MONTH` before `MON`,
/// `SSSSS` before `SS`, `DDD` before `DD` before `D`).
const ELEMENTS: [(&str, Kind); 46] = [
    ("SYYYY", Kind::Num(Num::Year, 4)),
    ("Y,YYY", Kind::Name(Name::CommaYear)),
    ("YYYY", Kind::Num(Num::Year, 4)),
    ("YYY", Kind::Num(Num::Year, 3)),
    ("YY", Kind::Num(Num::Year, 2)),
    ("IYYY", Kind::Num(Num::IsoYear, 4)),
    ("IYY", Kind::Num(Num::IsoYear, 3)),
    ("IW", Kind::Num(Num::IsoWeek, 2)),
    ("IY", Kind::Num(Num::IsoYear, 2)),
    ("RRRR", Kind::Num(Num::Year, 4)),
    ("RR", Kind::Num(Num::Year, 2)),
    ("SCC", Kind::Num(Num::Century, 2)),
    ("CC", Kind::Num(Num::Century, 2)),
    ("MONTH", Kind::Name(Name::Month)),
    ("MON", Kind::Name(Name::MonthShort)),
    ("MM", Kind::Num(Num::Month, 2)),
    ("MI", Kind::Num(Num::Minute, 2)),
    ("RM", Kind::Name(Name::RomanMonth)),
    ("WW", Kind::Num(Num::WeekOfYear, 2)),
    ("DDD", Kind::Num(Num::DayOfYear, 3)),
    ("DD", Kind::Num(Num::DayOfMonth, 2)),
    ("DAY", Kind::Name(Name::Day)),
    ("DY", Kind::Name(Name::DayShort)),
    ("DL", Kind::Expand("FMDay, Month FMDD, YYYY")),
    ("DS", Kind::Expand("FMMM/DD/YYYYFM")),
    ("HH24", Kind::Num(Num::Hour24, 2)),
    ("HH12", Kind::Num(Num::Hour12, 2)),
    ("HH", Kind::Num(Num::Hour12, 2)),
    ("SSSSS", Kind::Num(Num::SecondOfDay, 5)),
    ("SS", Kind::Num(Num::Second, 2)),
    ("A.M.", Kind::Name(Name::Meridian { dots: true })),
    ("P.M.", Kind::Name(Name::Meridian { dots: true })),
    ("AM", Kind::Name(Name::Meridian { dots: false })),
    ("PM", Kind::Name(Name::Meridian { dots: false })),
    ("A.D.", Kind::Name(Name::Era { dots: true })),
    ("B.C.", Kind::Name(Name::Era { dots: true })),
    ("AD", Kind::Name(Name::Era { dots: false })),
    ("BC", Kind::Name(Name::Era { dots: false })),
    ("FM", Kind::FillMode),
    ("FF", Kind::Fraction),
    ("Q", Kind::Num(Num::Quarter, 1)),
    ("W", Kind::Num(Num::WeekOfMonth, 1)),
    ("D", Kind::Num(Num::DayOfWeek, 1)),
    ("J", Kind::Num(Num::Julian, 7)),
    ("X", Kind::Radix),
    ("Y", Kind::Num(Num::Year, 1)),
];

/// What an element's spelling stands for.
#[derive(Clone, Copy)]
enum Kind {
    Num(Num, usize),
    Name(Name),
    Expand(&'static str),
    FillMode,
    Fraction,
    Radix,
}

/// Spellings Oracle has and TO_CHAR does not write here: matched before the elements they
/// start with (`YEAR` before `Y`), so that they are refused by name.
const REFUSED: [&str; 6] = ["SYEAR", "YEAR", "TZH", "TZM", "TZR", "TZD"];

/// Compiles `model`.
///
/// # Errors
/// 9910 naming the first element TO_CHAR does not write (a spelled year, time zones, the
/// `TH`/`SP` suffixes, a letter that is no element) or an unclosed quote.
pub(crate) fn compile(model: &str) -> Result<Model> {
    let mut elements = Vec::new();
    compile_into(model, model, &mut elements)?;
    Ok(Model { elements })
}

fn compile_into(model: &str, whole: &str, out: &mut Vec<Element>) -> Result<()> {
    let bad =
        |at: &str| Error::Unsupported(format!("the TO_CHAR format element at '{at}' in '{whole}'"));
    let mut rest = model;
    while let Some(c) = rest.chars().next() {
        if matches!(c, '-' | '/' | ',' | '.' | ';' | ':' | ' ') {
            out.push(Element::Text(c.to_string()));
            rest = &rest[1..];
            continue;
        }
        if c == '"' {
            let body = &rest[1..];
            let end = body.find('"').ok_or_else(|| bad(rest))?;
            out.push(Element::Text(body[..end].to_string()));
            rest = &body[end + 1..];
            continue;
        }
        let upper = rest.to_ascii_uppercase();
        if REFUSED.iter().any(|r| upper.starts_with(r)) {
            return Err(bad(rest));
        }
        let Some((spelling, kind)) = ELEMENTS.iter().find(|(s, _)| upper.starts_with(s)) else {
            return Err(bad(rest));
        };
        let written = &rest[..spelling.len()];
        rest = &rest[spelling.len()..];
        match *kind {
            Kind::Num(n, width) => out.push(Element::Number(n, width)),
            Kind::Name(n) => out.push(Element::Name(n, case_of(written))),
            Kind::Expand(m) => compile_into(m, whole, out)?,
            Kind::FillMode => out.push(Element::FillMode),
            Kind::Radix => out.push(Element::Text(".".into())),
            Kind::Fraction => {
                let digits = rest.chars().next().and_then(|d| d.to_digit(10));
                match digits {
                    Some(d @ 1..=9) => {
                        out.push(Element::Fraction(d as usize));
                        rest = &rest[1..];
                    }
                    _ => out.push(Element::Fraction(6)),
                }
            }
        }
    }
    Ok(())
}

/// The case a name element is written in: by its first two letters, as Oracle reads it.
fn case_of(written: &str) -> Case {
    let mut letters = written.chars().filter(char::is_ascii_alphabetic);
    match (letters.next(), letters.next()) {
        (Some(a), _) if a.is_ascii_lowercase() => Case::Lower,
        (Some(_), Some(b)) if b.is_ascii_lowercase() => Case::Capital,
        _ => Case::Upper,
    }
}

/// Whether a model writes anything of the date (a TIME has none to give).
fn reads_date(m: &Model) -> bool {
    m.elements.iter().any(|e| match e {
        Element::Number(n, _) => !matches!(
            n,
            Num::Hour12 | Num::Hour24 | Num::Minute | Num::Second | Num::SecondOfDay
        ),
        Element::Name(n, _) => !matches!(n, Name::Meridian { .. }),
        _ => false,
    })
}

/// `a` (DATE, TIMESTAMP or TIME values) written by `model`.
///
/// # Errors
/// 9910 for a date element given a TIME, or a value of another type.
pub(crate) fn render(a: &ArrayRef, model: &Model) -> Result<ArrayRef> {
    let stamps: Vec<Option<(NaiveDateTime, u32)>> = match a.data_type() {
        DataType::Date32 => a
            .as_primitive::<Date32Type>()
            .iter()
            .map(|v| {
                v.and_then(crate::functions::date_from_days)
                    .map(|d| (d.and_time(Default::default()), 0))
            })
            .collect(),
        DataType::Timestamp(..) => a
            .as_primitive::<TimestampMicrosecondType>()
            .iter()
            .map(|v| v.and_then(stamp))
            .collect(),
        DataType::Time64(_) => {
            if reads_date(model) {
                return Err(Error::Unsupported(
                    "a TO_CHAR date element for a TIME value".into(),
                ));
            }
            let day = NaiveDate::default().and_time(Default::default());
            a.as_primitive::<Time64MicrosecondType>()
                .iter()
                .map(|v| v.and_then(|t| stamp(day.and_utc().timestamp_micros() + t)))
                .collect()
        }
        DataType::Null => vec![None; a.len()],
        // text is read as a TIMESTAMP first
        DataType::Utf8 => {
            let t = crate::expr::cast_to_sql(a, tdlite_storage::types::SqlType::Timestamp(6))?;
            return render(&t, model);
        }
        other => {
            return Err(Error::TypeMismatch(format!(
                "TO_CHAR with a date format model takes a DATE, TIME or TIMESTAMP, not {other}"
            )))
        }
    };
    let out: StringArray = stamps
        .into_iter()
        .map(|v| v.map(|(t, micros)| write(model, &t, micros)))
        .collect();
    Ok(Arc::new(out))
}

/// A timestamp's date and time, and its microseconds.
fn stamp(us: i64) -> Option<(NaiveDateTime, u32)> {
    let t = chrono::DateTime::from_timestamp_micros(us)?.naive_utc();
    Some((t, (us.rem_euclid(1_000_000)) as u32))
}

fn write(model: &Model, t: &NaiveDateTime, micros: u32) -> String {
    let mut out = String::new();
    let mut fill = true;
    for e in &model.elements {
        match e {
            Element::Text(s) => out.push_str(s),
            Element::FillMode => fill = !fill,
            Element::Number(n, width) => {
                let v = match n {
                    // YYY, YY, Y: the year's last digits
                    Num::Year | Num::IsoYear => number(*n, t).rem_euclid(10i64.pow(*width as u32)),
                    _ => number(*n, t),
                };
                if fill {
                    out.push_str(&format!("{:0width$}", v, width = *width));
                } else {
                    out.push_str(&v.to_string());
                }
            }
            Element::Fraction(n) => {
                // six digits carry data; FF7 to FF9 write zeros after them
                let digits = format!("{micros:06}000");
                out.push_str(&digits[..(*n).min(9)]);
            }
            Element::Name(n, case) => {
                let (text, pad) = name(*n, t);
                let text = match case {
                    Case::Upper => text.to_uppercase(),
                    Case::Lower => text.to_lowercase(),
                    Case::Capital => text,
                };
                if fill && pad > 0 {
                    out.push_str(&format!("{text:<pad$}"));
                } else {
                    out.push_str(&text);
                }
            }
        }
    }
    out
}

/// A number element's value (its last digits, for the short years).
fn number(n: Num, t: &NaiveDateTime) -> i64 {
    let year = i64::from(t.year());
    match n {
        Num::Year => year,
        Num::IsoYear => i64::from(t.iso_week().year()),
        // 2000 is of the 20th century, 2001 of the 21st
        Num::Century => (year + 99) / 100,
        Num::Quarter => i64::from(t.month0() / 3 + 1),
        Num::Month => i64::from(t.month()),
        Num::WeekOfYear => i64::from(t.ordinal0() / 7 + 1),
        Num::WeekOfMonth => i64::from(t.day0() / 7 + 1),
        Num::IsoWeek => i64::from(t.iso_week().week()),
        Num::DayOfYear => i64::from(t.ordinal()),
        Num::DayOfMonth => i64::from(t.day()),
        // Sunday is 1, as Teradata's calendar numbers the days of the week
        Num::DayOfWeek => i64::from(t.weekday().number_from_sunday()),
        // days since 4713-01-01 BC (Julian calendar), day 1 being that date
        Num::Julian => i64::from(t.num_days_from_ce()) + 1_721_425,
        Num::Hour12 => i64::from(t.hour12().1),
        Num::Hour24 => i64::from(t.hour()),
        Num::Minute => i64::from(t.minute()),
        Num::Second => i64::from(t.second()),
        Num::SecondOfDay => i64::from(t.num_seconds_from_midnight()),
    }
}

/// A name element's text (capitalized) and the width it is padded to without `FM`.
fn name(n: Name, t: &NaiveDateTime) -> (String, usize) {
    const ROMAN: [&str; 12] = [
        "I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII",
    ];
    match n {
        Name::Month => (t.format("%B").to_string(), 9),
        Name::MonthShort => (t.format("%b").to_string(), 0),
        Name::Day => (t.format("%A").to_string(), 9),
        Name::DayShort => (t.format("%a").to_string(), 0),
        Name::RomanMonth => (ROMAN[t.month0() as usize].to_string(), 4),
        Name::Meridian { dots } => {
            let pm = t.hour12().0;
            let text = match (pm, dots) {
                (false, false) => "AM",
                (true, false) => "PM",
                (false, true) => "A.M.",
                (true, true) => "P.M.",
            };
            (text.to_string(), 0)
        }
        Name::Era { dots } => {
            let text = match (t.year() > 0, dots) {
                (true, false) => "AD",
                (false, false) => "BC",
                (true, true) => "A.D.",
                (false, true) => "B.C.",
            };
            (text.to_string(), 0)
        }
        Name::CommaYear => {
            let y = t.year().rem_euclid(10_000);
            (format!("{},{:03}", y / 1000, y % 1000), 0)
        }
    }
}
