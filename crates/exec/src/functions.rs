//! Teradata's built-in scalar functions beyond the handful in `expr.rs`: numeric (ROUND,
//! TRUNC, CEILING, FLOOR, SQRT, LN, LOG, EXP, POWER and `**`, SIGN, RANDOM), character
//! (SUBSTR/SUBSTRING, INDEX/POSITION, OREPLACE, OTRANSLATE, LPAD, RPAD, LTRIM, RTRIM, TRIM with
//! a character and a side, STRTOK), date (ADD_MONTHS, LAST_DAY, MONTHS_BETWEEN, NEXT_DAY,
//! EXTRACT), TRYCAST, and the
//! hash functions (HASHROW, HASHBUCKET, HASHAMP/HASHBAKAMP, for one AMP).
//!
//! They run row by row over storage [`Value`]s, so each is a few lines of plain Rust. Invariants:
//! NULL in any argument gives NULL (except OREPLACE's documented rules, and the hash functions,
//! which hash NULL as a value); an argument outside a
//! function's domain (SQRT of a negative, LN of zero, a SUBSTR length below zero, …) is error
//! 9919, never a NaN or a panic; numeric results keep the argument's type where Teradata does
//! (ROUND/TRUNC/CEILING/FLOOR of a DECIMAL stay DECIMAL of the same precision and scale) and
//! are FLOAT for the transcendental functions.

use crate::error::{Error, OrOverflow, Result};
use crate::expr::{BinOp, Expr, Func};
use crate::types::sql_type_of;
use arrow::array::ArrayRef;
use arrow::datatypes::DataType;
use chrono::{Datelike, NaiveDate, Timelike};
use tdlite_storage::types::{value_at, values_to_array, SqlType, Value};

/// Which side `TRIM` takes characters from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// Both ends.
    Both,
    /// The start.
    Leading,
    /// The end.
    Trailing,
}

/// A date/time field for `EXTRACT`, and of an interval (interval_diff.rs), in the order of
/// their size, largest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Field {
    /// YEAR
    Year,
    /// MONTH
    Month,
    /// DAY
    Day,
    /// HOUR
    Hour,
    /// MINUTE
    Minute,
    /// SECOND (with its fraction)
    Second,
}

/// A built-in function of this module.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Builtin {
    /// `ROUND(x [, n])`, half away from zero.
    Round,
    /// `TRUNC(x [, n])`.
    Trunc,
    /// `CEILING(x)` / `CEIL(x)`.
    Ceiling,
    /// `FLOOR(x)`.
    Floor,
    /// `SQRT(x)`.
    Sqrt,
    /// `LN(x)`.
    Ln,
    /// `LOG(x)`: base 10.
    Log,
    /// `EXP(x)`.
    Exp,
    /// `POWER(x, y)` and `x ** y`.
    Power,
    /// `SIGN(x)`: -1, 0 or 1.
    Sign,
    /// `RANDOM(low, high)`: an integer in [low, high].
    Random,
    /// `SUBSTR(s, start [, length])`, `SUBSTRING(s FROM start [FOR length])`.
    Substr,
    /// `INDEX(s, t)` / `POSITION(t IN s)`: 1-based position of t in s, 0 if absent (case
    /// specific: an argument is CASESPECIFIC; `INSTR` always).
    Index,
    /// `INSTR(s, t [, position [, occurrence]])`: the 1-based position of the occurrence-th
    /// t in s from position on (a negative position counts from the end and searches
    /// backwards; occurrences may overlap), 0 if there is none; case specific (SQL Functions,
    /// Expressions, and Predicates, INSTR).
    InStr,
    /// [`Builtin::Index`] of two NOT CASESPECIFIC arguments: simple Latin letters compared in
    /// upper case ([`index_call`]).
    IndexCaseBlind,
    /// `OREPLACE(s, search [, replace])`.
    OReplace,
    /// `OTRANSLATE(s, from, to)`: per character; characters of `from` beyond `to` are removed.
    OTranslate,
    /// `LPAD(s, n [, pad])`.
    LPad,
    /// `RPAD(s, n [, pad])`.
    RPad,
    /// `TRIM([side] [c] FROM s)`, `LTRIM(s [, c])`, `RTRIM(s [, c])`: args (s, c).
    Trim(Side),
    /// `STRTOK(s, delimiters, n)`: the n-th token.
    StrTok,
    /// `ADD_MONTHS(d, n)`: the day is clamped to the month's end.
    AddMonths,
    /// `LAST_DAY(d)`.
    LastDay,
    /// `EXTRACT(field FROM d)`.
    Extract(Field),
    /// `TRYCAST(x AS type)`: the conversion, or NULL where it fails.
    TryCast(SqlType),
    /// `MONTHS_BETWEEN(d1, d2)`: months from d2 to d1, with a fraction of 31-day months unless
    /// the days of the month are equal or both are month ends (Oracle's rule, Teradata's too).
    /// Of a TIMESTAMP only the date counts (Teradata adds the time to the fraction).
    MonthsBetween,
    /// `NEXT_DAY(d, 'MONDAY')`: the first such weekday after d.
    NextDay,
    /// `HASHROW(x, …)`: a BYTE(4) hash of the values (NULL hashes too, as in Teradata).
    HashRow,
    /// `HASHBUCKET(h)`: the hash bucket (the top 20 bits); without an argument the highest.
    HashBucket,
    /// `HASHAMP(b)`, `HASHBAKAMP(b)`: the AMP a bucket lives on; tdlite is one AMP, number 0.
    HashAmp,
    /// `REGEXP_SUBSTR`, `REGEXP_REPLACE`, `REGEXP_INSTR`, `REGEXP_SIMILAR` (`crate::regexp`).
    Regexp(crate::regexp::Regexp),
    /// `CHAR2HEXINT(s)`: each character's UTF-16 code unit(s) as four hex digits (tdlite's
    /// characters are UNICODE: `CHAR2HEXINT('A')` is `0041`).
    Char2HexInt,
    /// `INITCAP(s)`: each word's first letter upper case, its other letters lower case (a
    /// word is a run of letters and digits).
    InitCap,
    /// `CHR(n)`: the character with the LATIN code n (n modulo 256 beyond 255), as CHAR(1).
    Chr,
    /// `ASCII(s)`: the code of the first character of s (NULL for an empty string).
    Ascii,
    /// `TRANSLATE(s USING source_TO_target [WITH ERROR])` (the parser's two-argument form):
    /// the text itself (tdlite's characters are Unicode), but to LATIN a character beyond
    /// U+00FF is 6706, or with `WITH ERROR` the error character U+001A.
    Translate,
    /// `SOUNDEX(s)`: the Soundex code of a name (text_distance.rs).
    Soundex,
    /// `EDITDISTANCE(a, b [, insert, delete, substitute, transpose])`: the edit distance
    /// (text_distance.rs).
    EditDistance,
    /// `td_day_of_week(d)`, `td_month_begin(d)`, `OADD_MONTHS(d, n)`, … (`crate::calendar`).
    Calendar(crate::calendar::CalendarFn),
    /// `(d1 - d2) DAY(4)`: the difference as an interval of those fields
    /// (`crate::interval_diff`).
    IntervalDiff(crate::interval_diff::Qualifier),
}

/// `INDEX(s, t)` / `POSITION(t IN s)` over bound arguments `[s, t]`: case specific if either
/// argument is CASESPECIFIC, else case blind (simple Latin letters compared in upper case;
/// SQL Functions, Expressions, and Predicates, "INDEX: Rules for Character Type Arguments").
pub(crate) fn index_call(args: Vec<Expr>) -> Expr {
    let b = match args.iter().any(Expr::case_specific) {
        true => Builtin::Index,
        false => Builtin::IndexCaseBlind,
    };
    Expr::Func(Func::Builtin(b), args)
}

/// The positions of `f`'s character arguments: a number, date or time given there becomes the
/// text its FORMAT writes (Teradata's implicit conversion: `SUBSTR(12345, 1, 2)` of an INTEGER
/// takes the first two characters of `'      12345'`, two blanks).
pub(crate) fn text_args(f: Builtin) -> &'static [usize] {
    match f {
        Builtin::Substr
        | Builtin::Char2HexInt
        | Builtin::Regexp(_)
        | Builtin::InitCap
        | Builtin::Translate
        | Builtin::Soundex
        | Builtin::Ascii => &[0],
        Builtin::Index
        | Builtin::IndexCaseBlind
        | Builtin::InStr
        | Builtin::Trim(_)
        | Builtin::StrTok
        | Builtin::EditDistance => &[0, 1],
        Builtin::OReplace | Builtin::OTranslate => &[0, 1, 2],
        Builtin::LPad | Builtin::RPad => &[0, 2],
        _ => &[],
    }
}

/// The most arguments a call of `f` may have (`None`: no limit here; the REGEXP functions
/// and the calendar functions check their own).
pub(crate) fn most_args(f: Builtin) -> Option<usize> {
    Some(match f {
        Builtin::Char2HexInt
        | Builtin::InitCap
        | Builtin::Chr
        | Builtin::Ascii
        | Builtin::Ceiling
        | Builtin::Floor
        | Builtin::Sqrt
        | Builtin::Ln
        | Builtin::Log
        | Builtin::Exp
        | Builtin::Sign
        | Builtin::LastDay
        | Builtin::HashBucket
        | Builtin::HashAmp
        | Builtin::Extract(_)
        | Builtin::Soundex
        | Builtin::TryCast(_) => 1,
        Builtin::Round
        | Builtin::Trunc
        | Builtin::Power
        | Builtin::Random
        | Builtin::Index
        | Builtin::IndexCaseBlind
        | Builtin::Trim(_)
        | Builtin::AddMonths
        | Builtin::MonthsBetween
        | Builtin::NextDay
        | Builtin::Translate
        | Builtin::IntervalDiff(_) => 2,
        Builtin::Substr
        | Builtin::OReplace
        | Builtin::OTranslate
        | Builtin::LPad
        | Builtin::RPad
        | Builtin::StrTok => 3,
        Builtin::InStr => 4,
        Builtin::EditDistance => 6,
        Builtin::HashRow | Builtin::Regexp(_) | Builtin::Calendar(_) => return None,
    })
}

/// The built-in a function name calls, if it is one of this module's.
pub fn lookup(name: &str) -> Option<Builtin> {
    if let Some(r) = crate::regexp::Regexp::lookup(name) {
        return Some(Builtin::Regexp(r));
    }
    if let Some(c) = crate::calendar::CalendarFn::lookup(name) {
        return Some(Builtin::Calendar(c));
    }
    Some(match name {
        "CHAR2HEXINT" => Builtin::Char2HexInt,
        "INITCAP" => Builtin::InitCap,
        "SOUNDEX" => Builtin::Soundex,
        "EDITDISTANCE" => Builtin::EditDistance,
        "CHR" => Builtin::Chr,
        "ASCII" => Builtin::Ascii,
        "TRANSLATE" => Builtin::Translate,
        "ROUND" => Builtin::Round,
        "TRUNC" | "TRUNCATE" => Builtin::Trunc,
        "CEILING" | "CEIL" => Builtin::Ceiling,
        "FLOOR" => Builtin::Floor,
        "SQRT" => Builtin::Sqrt,
        "LN" => Builtin::Ln,
        "LOG" => Builtin::Log,
        "EXP" => Builtin::Exp,
        "POWER" | "POW" => Builtin::Power,
        "SIGN" => Builtin::Sign,
        "RANDOM" => Builtin::Random,
        "SUBSTR" | "SUBSTRING" => Builtin::Substr,
        "INDEX" => Builtin::Index,
        "INSTR" => Builtin::InStr,
        "OREPLACE" => Builtin::OReplace,
        "OTRANSLATE" => Builtin::OTranslate,
        "LPAD" => Builtin::LPad,
        "RPAD" => Builtin::RPad,
        "LTRIM" => Builtin::Trim(Side::Leading),
        "RTRIM" => Builtin::Trim(Side::Trailing),
        "STRTOK" => Builtin::StrTok,
        "ADD_MONTHS" => Builtin::AddMonths,
        "LAST_DAY" => Builtin::LastDay,
        "MONTHS_BETWEEN" => Builtin::MonthsBetween,
        "NEXT_DAY" => Builtin::NextDay,
        "HASHROW" => Builtin::HashRow,
        "HASHBUCKET" => Builtin::HashBucket,
        "HASHAMP" | "HASHBAKAMP" => Builtin::HashAmp,
        _ => return None,
    })
}

fn bad(f: Builtin, why: &str) -> Error {
    Error::BadArgument(format!("{f:?}: {why}"))
}

/// [`Builtin::Translate`] of `s` by `how` (`LATIN_TO_UNICODE`, `UNICODE_TO_LATIN WITH
/// ERROR`, …).
///
/// # Errors
/// 9919 for a conversion that is no `source_TO_target`; 6706 for a character the target
/// lacks without `WITH ERROR`.
fn translate(s: &str, how: &str) -> Result<String> {
    let (name, with_error) = match how.strip_suffix(" WITH ERROR") {
        Some(n) => (n, true),
        None => (how, false),
    };
    let Some((_, target)) = name.split_once("_TO_") else {
        return Err(bad(
            Builtin::Translate,
            "expected source_TO_target after USING",
        ));
    };
    if !target.starts_with("LATIN") {
        return Ok(s.to_string());
    }
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match (u32::from(c) <= 0xFF, with_error) {
            (true, _) => out.push(c),
            (false, true) => out.push('\u{1A}'),
            (false, false) => return Err(Error::Untranslatable),
        }
    }
    Ok(out)
}

/// [`Builtin::InitCap`]: a letter after a letter or digit in lower case, any other in upper.
fn init_cap(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut in_word = false;
    for c in s.chars() {
        if in_word {
            out.extend(c.to_lowercase());
        } else {
            out.extend(c.to_uppercase());
        }
        in_word = c.is_alphanumeric();
    }
    out
}

/// [`Builtin::InStr`] of `s`, `t` from `position` (not 0), its `occurrence`-th (1 or more).
fn instr(s: &str, t: &str, position: i64, occurrence: i64) -> i64 {
    let s: Vec<char> = s.chars().collect();
    let t: Vec<char> = t.chars().collect();
    let len = s.len() as i64;
    if t.is_empty() || t.len() > s.len() {
        return 0;
    }
    let last = len - t.len() as i64;
    let at = |i: i64| s[i as usize..].starts_with(&t);
    let starts: Box<dyn Iterator<Item = i64>> = if position > 0 {
        Box::new(position - 1..=last)
    } else {
        Box::new((0..=(len + position).min(last)).rev())
    };
    starts
        .filter(|&i| at(i))
        .nth(usize::try_from(occurrence - 1).unwrap_or(usize::MAX))
        .map_or(0, |i| i + 1)
}

/// A numeric view of a value (strings convert, as Teradata converts them to FLOAT).
fn float(v: &Value) -> Result<Option<f64>> {
    Ok(match v {
        Value::Null => None,
        Value::Int(i) => Some(*i as f64),
        Value::Decimal(d, s) => Some(*d as f64 / 10f64.powi(i32::from(*s))),
        Value::Float(f) => Some(*f),
        Value::Str(s) if s.trim().is_empty() => Some(0.0),
        Value::Str(s) => Some(s.trim().parse::<f64>().map_err(|_| Error::BadNumber)?),
        _ => return Err(Error::TypeMismatch(format!("{v:?} is not a number"))),
    })
}

/// A value as a whole number (text and fractions as Teradata converts them); `None` for NULL.
///
/// # Errors
/// 2616 past BIGINT; the conversion errors of a value that is not a number.
pub(crate) fn int(v: &Value) -> Result<Option<i64>> {
    Ok(match v {
        Value::Int(i) => Some(*i),
        other => match float(other)? {
            None => None,
            Some(f) if f.is_finite() && f.abs() < 9.2e18 => Some(f.trunc() as i64),
            Some(_) => return Err(Error::Overflow),
        },
    })
}

/// A value as character text, as CAST to VARCHAR writes it; `None` for NULL.
pub(crate) fn text(v: &Value) -> Option<String> {
    Some(match v {
        Value::Null => return None,
        Value::Str(s) => s.clone(),
        Value::Int(i) => i.to_string(),
        Value::Float(f) => f.to_string(),
        Value::Decimal(d, s) => {
            let s = *s as usize;
            let digits = d.unsigned_abs().to_string();
            let digits = format!("{digits:0>width$}", width = s + 1);
            let (int, frac) = digits.split_at(digits.len() - s);
            let sign = if *d < 0 { "-" } else { "" };
            if s == 0 {
                format!("{sign}{int}")
            } else {
                format!("{sign}{int}.{frac}")
            }
        }
        Value::Date(d) => date_from_days(*d)?.format("%Y-%m-%d").to_string(),
        Value::Period(p) => crate::period_text::text(p, None),
        Value::Timestamp(us) => chrono::DateTime::from_timestamp_micros(*us)?
            .naive_utc()
            .format("%Y-%m-%d %H:%M:%S%.6f")
            .to_string(),
        Value::Time(us) => {
            let t = NaiveDate::from_ymd_opt(1970, 1, 1)?.and_hms_opt(0, 0, 0)?
                + chrono::Duration::microseconds(*us);
            t.format("%H:%M:%S%.6f").to_string()
        }
        Value::Bytes(b) => b.iter().map(|x| format!("{x:02X}")).collect(),
    })
}

/// The date of days-since-1970 `d`.
pub(crate) fn date_from_days(d: i32) -> Option<NaiveDate> {
    NaiveDate::from_ymd_opt(1970, 1, 1)?.checked_add_signed(chrono::Duration::days(i64::from(d)))
}

pub(crate) fn date_of(v: &Value) -> Result<Option<NaiveDate>> {
    let epoch = NaiveDate::from_ymd_opt(1970, 1, 1).expect("a valid date");
    Ok(match v {
        Value::Null => None,
        Value::Date(d) => epoch.checked_add_signed(chrono::Duration::days(i64::from(*d))),
        Value::Timestamp(us) => {
            chrono::DateTime::from_timestamp_micros(*us).map(|t| t.date_naive())
        }
        Value::Str(s) => Some(
            NaiveDate::parse_from_str(s.trim(), "%Y-%m-%d")
                .map_err(|_| Error::InvalidDate(s.clone()))?,
        ),
        other => return Err(Error::TypeMismatch(format!("{other:?} is not a date"))),
    })
}

/// Days since 1970-01-01 (DATE's storage).
pub(crate) fn days(d: NaiveDate) -> i32 {
    let epoch = NaiveDate::from_ymd_opt(1970, 1, 1).expect("a valid date");
    (d - epoch).num_days() as i32
}

/// Rounds (or truncates) an unscaled integer at `drop` decimal digits.
fn round_unscaled(v: i128, drop: u32, truncate: bool, ceil_floor: Option<bool>) -> Result<i128> {
    let factor = 10i128.checked_pow(drop).or_overflow()?;
    let (q, r) = (v / factor, v % factor);
    let q = match ceil_floor {
        Some(true) if r > 0 => q + 1,
        Some(false) if r < 0 => q - 1,
        Some(_) => q,
        None if truncate => q,
        // |r| < 10^38: twice it fits a u128, not an i128
        None if r.unsigned_abs() * 2 >= factor.unsigned_abs() => q + v.signum(),
        None => q,
    };
    q.checked_mul(factor).or_overflow()
}

/// `Some(true)` for CEILING, `Some(false)` for FLOOR (the direction a remainder goes).
fn ceil_floor(f: Builtin) -> Option<bool> {
    match f {
        Builtin::Ceiling => Some(true),
        Builtin::Floor => Some(false),
        _ => None,
    }
}

/// ROUND, TRUNC, CEILING, FLOOR on one value, keeping its type.
fn round_like(f: Builtin, v: &Value, places: i64) -> Result<Value> {
    let truncate = f == Builtin::Trunc;
    let cf = ceil_floor(f);
    Ok(match v {
        Value::Null => Value::Null,
        Value::Int(i) if places >= 0 => Value::Int(*i),
        Value::Int(i) => {
            let r = round_unscaled(i128::from(*i), (-places).min(38) as u32, truncate, cf)?;
            Value::Int(i64::try_from(r).map_err(|_| Error::Overflow)?)
        }
        Value::Decimal(d, s) => {
            let drop = i64::from(*s) - places;
            if drop <= 0 {
                v.clone()
            } else {
                Value::Decimal(round_unscaled(*d, drop.min(38) as u32, truncate, cf)?, *s)
            }
        }
        other => {
            let x = float(other)?.unwrap_or(0.0);
            let m = 10f64.powi(places.clamp(-300, 300) as i32);
            let y = match (cf, truncate) {
                (Some(true), _) => x.ceil(),
                (Some(false), _) => x.floor(),
                (None, true) => (x * m).trunc() / m,
                (None, false) => (x * m).round() / m,
            };
            Value::Float(y)
        }
    })
}

fn transcendental(f: Builtin, x: f64, y: f64) -> Result<f64> {
    let r = match f {
        Builtin::Sqrt if x < 0.0 => return Err(bad(f, "negative argument")),
        Builtin::Sqrt => x.sqrt(),
        Builtin::Ln | Builtin::Log if x <= 0.0 => return Err(bad(f, "argument not above zero")),
        Builtin::Ln => x.ln(),
        Builtin::Log => x.log10(),
        Builtin::Exp => x.exp(),
        _ => x.powf(y),
    };
    if r.is_finite() {
        Ok(r)
    } else if r.is_nan() {
        Err(bad(f, "no real result"))
    } else {
        Err(Error::Overflow)
    }
}

fn add_months(d: NaiveDate, n: i64) -> Result<NaiveDate> {
    let total = (i64::from(d.year()) * 12 + i64::from(d.month0()))
        .checked_add(n)
        .or_overflow()?;
    let (y, m0) = (total.div_euclid(12), total.rem_euclid(12));
    let y = i32::try_from(y).map_err(|_| Error::Overflow)?;
    let last = last_day(y, m0 as u32 + 1).or_overflow()?;
    NaiveDate::from_ymd_opt(y, m0 as u32 + 1, d.day().min(last.day())).or_overflow()
}

fn last_day(y: i32, m: u32) -> Option<NaiveDate> {
    let (ny, nm) = if m == 12 { (y + 1, 1) } else { (y, m + 1) };
    NaiveDate::from_ymd_opt(ny, nm, 1)?.pred_opt()
}

fn pad(f: Builtin, s: &str, n: i64, with: &str) -> Result<String> {
    if n < 0 {
        return Err(bad(f, "negative length"));
    }
    if n > 64000 {
        return Err(bad(f, "a length above 64000"));
    }
    let n = n as usize;
    let len = s.chars().count();
    if len >= n {
        return Ok(s.chars().take(n).collect());
    }
    if with.is_empty() {
        return Ok(s.to_string());
    }
    let fill: String = with.chars().cycle().take(n - len).collect();
    Ok(if f == Builtin::LPad {
        fill + s
    } else {
        s.to_string() + &fill
    })
}

/// One row.
fn row(f: Builtin, a: &[Value], rng: &mut u64) -> Result<Value> {
    let arg = |i: usize| a.get(i).cloned().unwrap_or(Value::Null);
    let need = |k: usize| -> Result<()> {
        if a.len() < k {
            Err(bad(f, &format!("needs {k} argument(s)")))
        } else {
            Ok(())
        }
    };
    need(match f {
        Builtin::Power
        | Builtin::Random
        | Builtin::Substr
        | Builtin::Index
        | Builtin::IndexCaseBlind
        | Builtin::InStr => 2,
        Builtin::OReplace | Builtin::LPad | Builtin::RPad | Builtin::AddMonths => 2,
        Builtin::EditDistance => 2,
        Builtin::MonthsBetween | Builtin::NextDay => 2,
        Builtin::OTranslate | Builtin::StrTok => 3,
        Builtin::HashRow | Builtin::HashBucket | Builtin::HashAmp => 0,
        Builtin::Calendar(c) => c.arity(),
        Builtin::IntervalDiff(_) => 2,
        _ => 1,
    })?;
    // the hash functions take NULL as a value
    match f {
        Builtin::HashRow => return Ok(Value::Bytes(row_hash(a).to_be_bytes().to_vec())),
        Builtin::HashBucket => {
            return Ok(match a.first() {
                None => Value::Int(BUCKETS - 1),
                Some(Value::Null) => Value::Null,
                Some(Value::Bytes(h)) if h.len() == 4 => {
                    let h = u32::from_be_bytes([h[0], h[1], h[2], h[3]]);
                    Value::Int(i64::from(h >> 12))
                }
                Some(_) => return Err(bad(f, "takes a HASHROW value")),
            })
        }
        Builtin::HashAmp => {
            return Ok(match a.first() {
                Some(Value::Null) => Value::Null,
                Some(v) if int(v)?.is_some_and(|b| !(0..BUCKETS).contains(&b)) => {
                    return Err(bad(f, "takes a bucket number"))
                }
                _ => Value::Int(0),
            })
        }
        _ => {}
    }
    // OREPLACE's own NULL rules; everything else is NULL in, NULL out
    if f == Builtin::OReplace {
        let Some(s) = text(&arg(0)) else {
            return Ok(Value::Null);
        };
        let Some(search) = text(&arg(1)).filter(|t| !t.is_empty()) else {
            return Ok(Value::Str(s));
        };
        let with = text(&arg(2)).unwrap_or_default();
        if with.len() > search.len() {
            // the result's size is known before it is made: never build one over the limit
            let grows = (with.len() - search.len()) * s.matches(&search).count();
            if s.len() + grows > crate::limits::MAX_CHAR_BYTES {
                return Err(crate::limits::too_long());
            }
        }
        return Ok(Value::Str(s.replace(&search, &with)));
    }
    if a.iter().any(Value::is_null) {
        return Ok(Value::Null);
    }
    Ok(match f {
        Builtin::Round | Builtin::Trunc
            if matches!(arg(0), Value::Date(_) | Value::Timestamp(_)) =>
        {
            let fmt = match a.get(1) {
                Some(_) => text(&arg(1)).unwrap_or_default(),
                None => "DD".to_string(),
            };
            crate::date_round::round_date(&arg(0), &fmt, f == Builtin::Trunc)?
        }
        Builtin::Round | Builtin::Trunc => {
            let places = if a.len() > 1 {
                int(&arg(1))?.unwrap_or(0)
            } else {
                0
            };
            round_like(f, &arg(0), places.clamp(-40, 40))?
        }
        Builtin::Ceiling | Builtin::Floor => round_like(f, &arg(0), 0)?,
        Builtin::InitCap => Value::Str(init_cap(&text(&arg(0)).unwrap_or_default())),
        Builtin::Soundex => Value::Str(crate::text_distance::soundex(
            &text(&arg(0)).unwrap_or_default(),
        )),
        Builtin::EditDistance => {
            let cost = |i: usize| -> Result<i64> {
                // an INTEGER of 0 or more (so no sum of costs overflows)
                match int(&arg(i))? {
                    Some(c) if (0..=i64::from(i32::MAX)).contains(&c) => Ok(c),
                    Some(_) => Err(bad(f, "a cost is an INTEGER of 0 or more")),
                    None => Ok(1),
                }
            };
            let costs = crate::text_distance::Costs {
                insert: cost(2)?,
                delete: cost(3)?,
                substitute: cost(4)?,
                transpose: cost(5)?,
            };
            let (a, b) = (
                text(&arg(0)).unwrap_or_default(),
                text(&arg(1)).unwrap_or_default(),
            );
            let cells = a.chars().count().saturating_mul(b.chars().count());
            if cells > crate::text_distance::MAX_CELLS {
                return Err(bad(
                    f,
                    "strings too long to compare (5,000 characters each at most)",
                ));
            }
            Value::Int(crate::text_distance::edit_distance(&a, &b, costs))
        }
        Builtin::Translate => Value::Str(translate(
            &text(&arg(0)).unwrap_or_default(),
            &text(&arg(1)).unwrap_or_default(),
        )?),
        Builtin::Chr => {
            let n = int(&arg(0))?.unwrap_or(0);
            if n < 0 {
                return Err(bad(f, "a negative character code"));
            }
            // LATIN is ISO 8859-1: code n is the Unicode character n
            Value::Str(char::from((n % 256) as u8).to_string())
        }
        Builtin::Ascii => match text(&arg(0)).unwrap_or_default().chars().next() {
            Some(c) => Value::Int(i64::from(u32::from(c))),
            None => Value::Null,
        },
        Builtin::Sqrt | Builtin::Ln | Builtin::Log | Builtin::Exp | Builtin::Power => {
            let x = float(&arg(0))?.unwrap_or(0.0);
            let y = if f == Builtin::Power {
                float(&arg(1))?.unwrap_or(0.0)
            } else {
                0.0
            };
            Value::Float(transcendental(f, x, y)?)
        }
        Builtin::Sign => Value::Int(match float(&arg(0))?.unwrap_or(0.0) {
            x if x > 0.0 => 1,
            x if x < 0.0 => -1,
            _ => 0,
        }),
        Builtin::Random => {
            let (lo, hi) = (int(&arg(0))?.unwrap_or(0), int(&arg(1))?.unwrap_or(0));
            if lo > hi {
                return Err(bad(f, "the lower bound is above the upper bound"));
            }
            *rng ^= *rng << 13;
            *rng ^= *rng >> 7;
            *rng ^= *rng << 17;
            let span = (hi as i128 - lo as i128 + 1) as u128;
            Value::Int((lo as i128 + (u128::from(*rng) % span) as i128) as i64)
        }
        Builtin::Substr => {
            let s: Vec<char> = text(&arg(0)).unwrap_or_default().chars().collect();
            let start = int(&arg(1))?.unwrap_or(1);
            // Teradata: positions before 1 count against the length
            let end = if a.len() > 2 {
                let len = int(&arg(2))?.unwrap_or(0);
                if len < 0 {
                    return Err(bad(f, "negative length"));
                }
                start.saturating_add(len)
            } else {
                i64::MAX
            };
            let from = start.max(1) as usize - 1;
            let to = (end.max(1) as usize - 1).min(s.len());
            Value::Str(if from < to {
                s[from..to].iter().collect()
            } else {
                String::new()
            })
        }
        Builtin::Index | Builtin::IndexCaseBlind => {
            let (mut s, mut t) = (
                text(&arg(0)).unwrap_or_default(),
                text(&arg(1)).unwrap_or_default(),
            );
            if f == Builtin::IndexCaseBlind {
                // only simple Latin letters: every character keeps its place
                s.make_ascii_uppercase();
                t.make_ascii_uppercase();
            }
            Value::Int(match s.find(&t) {
                Some(b) => s[..b].chars().count() as i64 + 1,
                None => 0,
            })
        }
        Builtin::InStr => {
            let position = if a.len() > 2 { int(&arg(2))? } else { Some(1) };
            let occurrence = if a.len() > 3 { int(&arg(3))? } else { Some(1) };
            match (text(&arg(0)), text(&arg(1)), position, occurrence) {
                (Some(s), Some(t), Some(p), Some(n)) => {
                    if p == 0 {
                        return Err(bad(f, "the position cannot be 0"));
                    }
                    if n < 1 {
                        return Err(bad(f, "the occurrence must be 1 or more"));
                    }
                    Value::Int(instr(&s, &t, p, n))
                }
                _ => Value::Null,
            }
        }
        Builtin::Char2HexInt => {
            let s = text(&arg(0)).unwrap_or_default();
            let mut hex = String::with_capacity(s.len() * 4);
            for unit in s.encode_utf16() {
                hex.push_str(&format!("{unit:04X}"));
            }
            Value::Str(hex)
        }
        Builtin::OTranslate => {
            let s = text(&arg(0)).unwrap_or_default();
            let from: Vec<char> = text(&arg(1)).unwrap_or_default().chars().collect();
            let to: Vec<char> = text(&arg(2)).unwrap_or_default().chars().collect();
            Value::Str(
                s.chars()
                    .filter_map(|c| match from.iter().position(|x| *x == c) {
                        Some(i) => to.get(i).copied(),
                        None => Some(c),
                    })
                    .collect(),
            )
        }
        Builtin::LPad | Builtin::RPad => {
            let with = if a.len() > 2 {
                text(&arg(2)).unwrap_or_default()
            } else {
                " ".into()
            };
            Value::Str(pad(
                f,
                &text(&arg(0)).unwrap_or_default(),
                int(&arg(1))?.unwrap_or(0),
                &with,
            )?)
        }
        Builtin::Trim(side) => {
            let s = text(&arg(0)).unwrap_or_default();
            let c: Vec<char> = if a.len() > 1 {
                text(&arg(1)).unwrap_or_default().chars().collect()
            } else {
                vec![' ']
            };
            let hit = |x: char| c.contains(&x);
            Value::Str(match side {
                Side::Both => s.trim_matches(hit).to_string(),
                Side::Leading => s.trim_start_matches(hit).to_string(),
                Side::Trailing => s.trim_end_matches(hit).to_string(),
            })
        }
        Builtin::StrTok => {
            let s = text(&arg(0)).unwrap_or_default();
            let delims: Vec<char> = text(&arg(1)).unwrap_or_default().chars().collect();
            let n = int(&arg(2))?.unwrap_or(0);
            if n < 1 {
                return Err(bad(f, "the token number must be 1 or more"));
            }
            match s
                .split(|c| delims.contains(&c))
                .filter(|t| !t.is_empty())
                .nth(n as usize - 1)
            {
                Some(t) => Value::Str(t.to_string()),
                None => Value::Null,
            }
        }
        Builtin::AddMonths => {
            let n = int(&arg(1))?.unwrap_or(0);
            match arg(0) {
                Value::Timestamp(us) => {
                    let t = chrono::DateTime::from_timestamp_micros(us).or_overflow()?;
                    let d = add_months(t.date_naive(), n)?;
                    let moved = d.and_time(t.time()).and_utc().timestamp_micros();
                    Value::Timestamp(moved)
                }
                other => {
                    let d = date_of(&other)?.or_overflow()?;
                    Value::Date(days(add_months(d, n)?))
                }
            }
        }
        Builtin::LastDay => {
            let d = date_of(&arg(0))?.or_overflow()?;
            Value::Date(days(last_day(d.year(), d.month()).or_overflow()?))
        }
        Builtin::MonthsBetween => {
            let a = date_of(&arg(0))?.or_overflow()?;
            let b = date_of(&arg(1))?.or_overflow()?;
            let months = (i64::from(a.year()) - i64::from(b.year())) * 12 + i64::from(a.month())
                - i64::from(b.month());
            let month_end = |d: NaiveDate| last_day(d.year(), d.month()) == Some(d);
            let whole = a.day() == b.day() || month_end(a) && month_end(b);
            let fraction = if whole {
                0.0
            } else {
                (f64::from(a.day()) - f64::from(b.day())) / 31.0
            };
            Value::Float(months as f64 + fraction)
        }
        Builtin::NextDay => {
            let d = date_of(&arg(0))?.or_overflow()?;
            let name = text(&arg(1))
                .unwrap_or_default()
                .trim()
                .to_ascii_uppercase();
            let target = [
                "SUNDAY",
                "MONDAY",
                "TUESDAY",
                "WEDNESDAY",
                "THURSDAY",
                "FRIDAY",
                "SATURDAY",
            ]
            .iter()
            .position(|day| name.len() >= 2 && day.starts_with(&name))
            .ok_or_else(|| bad(f, "takes the name of a day of the week"))?;
            let from = d.weekday().num_days_from_sunday() as usize;
            let ahead = (target + 7 - from - 1) % 7 + 1;
            Value::Date(days(
                d.checked_add_days(chrono::Days::new(ahead as u64))
                    .or_overflow()?,
            ))
        }
        Builtin::Extract(field) => extract(field, &arg(0))?,
        Builtin::Calendar(c) => crate::calendar::eval(c, a)?,
        Builtin::IntervalDiff(q) => crate::interval_diff::eval(q, &arg(0), &arg(1))?,
        Builtin::OReplace
        | Builtin::TryCast(_)
        | Builtin::Regexp(_)
        | Builtin::HashRow
        | Builtin::HashBucket
        | Builtin::HashAmp => return Err(Error::Internal(format!("{f:?} is evaluated elsewhere"))),
    })
}

/// How many hash buckets there are (Teradata's 20-bit buckets).
const BUCKETS: i64 = 1 << 20;

/// HASHROW's hash: FNV-1a over the values as Teradata compares them (trailing blanks dropped,
/// case folded), NULL included, so equal rows hash alike.
fn row_hash(values: &[Value]) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    let mut eat = |bytes: &[u8]| {
        for b in bytes {
            h ^= u32::from(*b);
            h = h.wrapping_mul(0x0100_0193);
        }
    };
    for v in values {
        match tdlite_storage::types::normalize_for_key(v, false) {
            Value::Null => eat(&[0]),
            Value::Int(i) => eat(&i.to_le_bytes()),
            Value::Decimal(d, s) => {
                eat(&d.to_le_bytes());
                eat(&s.to_le_bytes());
            }
            Value::Float(f) => eat(&f.to_bits().to_le_bytes()),
            Value::Str(t) => eat(t.as_bytes()),
            Value::Bytes(b) => eat(&b),
            Value::Date(d) => eat(&d.to_le_bytes()),
            Value::Time(t) | Value::Timestamp(t) => eat(&t.to_le_bytes()),
            Value::Period(p) => {
                eat(&p.begin.to_le_bytes());
                eat(&p.end.to_le_bytes());
            }
        }
        eat(&[0xff]);
    }
    h
}

fn extract(field: Field, v: &Value) -> Result<Value> {
    let t = match v {
        Value::Timestamp(us) => chrono::DateTime::from_timestamp_micros(*us)
            .or_overflow()?
            .naive_utc(),
        Value::Time(us) => {
            let base = NaiveDate::from_ymd_opt(1970, 1, 1).expect("a valid date");
            base.and_hms_opt(0, 0, 0).expect("midnight") + chrono::Duration::microseconds(*us)
        }
        other => match date_of(other)? {
            Some(d) => d.and_hms_opt(0, 0, 0).expect("midnight"),
            None => return Ok(Value::Null),
        },
    };
    if matches!(v, Value::Date(_) | Value::Str(_))
        && matches!(field, Field::Hour | Field::Minute | Field::Second)
    {
        return Err(Error::TypeMismatch(format!(
            "EXTRACT({field:?}) needs a TIME or TIMESTAMP"
        )));
    }
    Ok(match field {
        Field::Year => Value::Int(i64::from(t.year())),
        Field::Month => Value::Int(i64::from(t.month())),
        Field::Day => Value::Int(i64::from(t.day())),
        Field::Hour => Value::Int(i64::from(t.hour())),
        Field::Minute => Value::Int(i64::from(t.minute())),
        Field::Second => Value::Decimal(
            i128::from(t.second()) * 1_000_000 + i128::from(t.nanosecond() / 1000),
            6,
        ),
    })
}

/// TRYCAST: each value converted on its own, NULL where it fails.
fn try_cast(a: Option<&ArrayRef>, ty: SqlType, n: usize) -> Result<ArrayRef> {
    let Some(a) = a else {
        return Err(Error::TypeMismatch("TRYCAST needs a value".into()));
    };
    if let Ok(all) = crate::expr::cast_to_sql(a, ty) {
        return Ok(all);
    }
    let mut out = Vec::with_capacity(n);
    for i in 0..a.len() {
        let one = a.slice(i, 1);
        out.push(match crate::expr::cast_to_sql(&one, ty) {
            Ok(c) => value_at(c.as_ref(), 0),
            Err(_) => Value::Null,
        });
    }
    Ok(values_to_array(ty, out.iter()))
}

/// The result type of `f` over arguments of these Arrow types.
fn result_type(f: Builtin, types: &[DataType]) -> SqlType {
    let first = types.first().map(sql_type_of).unwrap_or(SqlType::Integer);
    match f {
        // the argument's type ("Result Type": "the same type as that of the numeric_value
        // argument"), a DECIMAL with one more digit for a carry (CEILING(9.99) of a
        // DECIMAL(3,2) is a DECIMAL(4,2) 10.00); at 38 digits, one fractional digit fewer
        // instead (a DECIMAL(38,36) 99.999999999 rounds to a DECIMAL(38,35) 100.00)
        Builtin::Round | Builtin::Trunc | Builtin::Ceiling | Builtin::Floor => match first {
            t @ (SqlType::ByteInt | SqlType::SmallInt | SqlType::Integer | SqlType::BigInt) => t,
            SqlType::Decimal(38, s) => SqlType::Decimal(38, (s - 1).max(0)),
            SqlType::Decimal(p, s) => SqlType::Decimal(p + 1, s),
            // TRUNC(date, fmt) and ROUND(date, fmt): a DATE (date_round.rs)
            SqlType::Date | SqlType::Timestamp(_)
                if matches!(f, Builtin::Round | Builtin::Trunc) =>
            {
                SqlType::Date
            }
            _ => SqlType::Float,
        },
        Builtin::Sqrt | Builtin::Ln | Builtin::Log | Builtin::Exp | Builtin::Power => {
            SqlType::Float
        }
        Builtin::Sign | Builtin::Index | Builtin::IndexCaseBlind | Builtin::InStr => {
            SqlType::Integer
        }
        Builtin::InitCap | Builtin::Translate => SqlType::VarChar(64000),
        Builtin::Chr => SqlType::Char(1),
        Builtin::Soundex => SqlType::VarChar(4),
        Builtin::EditDistance => SqlType::Integer,
        Builtin::Ascii => SqlType::Integer,
        Builtin::Random => SqlType::Integer,
        Builtin::AddMonths => match first {
            SqlType::Timestamp(p) => SqlType::Timestamp(p),
            _ => SqlType::Date,
        },
        Builtin::LastDay => SqlType::Date,
        Builtin::Calendar(c) if c.gives_date() => SqlType::Date,
        Builtin::Calendar(_) => SqlType::Integer,
        Builtin::IntervalDiff(q) => q.result_type(),
        Builtin::HashRow => SqlType::Byte(4),
        Builtin::MonthsBetween => SqlType::Float,
        Builtin::NextDay => SqlType::Date,
        Builtin::HashBucket | Builtin::HashAmp => SqlType::Integer,
        Builtin::Regexp(r) if r.is_integer() => SqlType::Integer,
        Builtin::Extract(Field::Second) => SqlType::Decimal(8, 6),
        Builtin::Extract(_) => SqlType::Integer,
        _ => SqlType::VarChar(64000),
    }
}

/// Evaluates `f` over `n` rows of `args`.
///
/// # Errors
/// 9919 for arguments outside the function's domain; 2616, 2665, 3535 as the values dictate.
pub(crate) fn eval(f: Builtin, args: &[ArrayRef], n: usize) -> Result<ArrayRef> {
    if let Builtin::TryCast(ty) = f {
        return try_cast(args.first(), ty, n);
    }
    if let Builtin::Regexp(r) = f {
        return crate::regexp::eval(r, args, n);
    }
    let types: Vec<DataType> = args.iter().map(|a| a.data_type().clone()).collect();
    let ty = result_type(f, &types);
    let mut rng = 0x9E37_79B9_7F4A_7C15u64
        ^ std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64);
    let mut out = Vec::with_capacity(n);
    let mut vals = Vec::with_capacity(args.len());
    // the result's character and byte values so far, checked against the spool space as
    // they grow (LPAD to 64,000 characters on each of a million rows)
    let (mut bytes, mut checked) = (0usize, 0usize);
    for i in 0..n {
        if i % 4096 == 4095 {
            crate::interrupt::check()?;
        }
        vals.clear();
        vals.extend(args.iter().map(|a| value_at(a.as_ref(), i)));
        let v = row(f, &vals, &mut rng)?;
        if let Value::Str(s) = &v {
            bytes += s.len();
        } else if let Value::Bytes(b) = &v {
            bytes += b.len();
        }
        if bytes - checked > 1 << 20 {
            crate::interrupt::check_spool(bytes)?;
            checked = bytes;
        }
        out.push(v);
    }
    // a result past its integer type's range (ROUND(120 of a BYTEINT, -1))
    let fits: Option<fn(i64) -> bool> = match ty {
        SqlType::ByteInt => Some(|i| i8::try_from(i).is_ok()),
        SqlType::SmallInt => Some(|i| i16::try_from(i).is_ok()),
        SqlType::Integer => Some(|i| i32::try_from(i).is_ok()),
        _ => None,
    };
    if let Some(fits) = fits {
        if out.iter().any(|v| matches!(v, Value::Int(i) if !fits(*i))) {
            return Err(Error::Overflow);
        }
    }
    // a DECIMAL(38, s) rounded into one fractional digit fewer (see `result_type`)
    if let SqlType::Decimal(_, to) = ty {
        for v in &mut out {
            if let Value::Decimal(d, s) = *v {
                if s > to {
                    let drop = u32::try_from(s - to).unwrap_or(0);
                    let r = round_unscaled(d, drop, f == Builtin::Trunc, ceil_floor(f))?;
                    *v = Value::Decimal(r / 10i128.pow(drop), to);
                }
            }
        }
    }
    let out = values_to_array(ty, out.iter());
    crate::limits::check(&out)?;
    Ok(out)
}

/// `DECODE(x, s1, r1, …, [default])` (SQL Functions, Expressions, and Predicates, DECODE): the
/// first `ri` whose `si` equals `x`, a NULL `si` matching a NULL `x`; else the default, else
/// NULL. As a CASE.
///
/// # Errors
/// 9913 for fewer than three arguments.
pub(crate) fn decode(args: Vec<Expr>) -> Result<Expr> {
    if args.len() < 3 {
        return Err(Error::TypeMismatch(
            "DECODE takes an expression, then search and result pairs".into(),
        ));
    }
    let mut it = args.into_iter();
    let Some(x) = it.next() else {
        return Err(Error::Internal("DECODE lost its first argument".into()));
    };
    let mut rest: Vec<Expr> = it.collect();
    let otherwise = (rest.len() % 2 == 1).then(|| rest.pop()).flatten();
    let mut whens = Vec::with_capacity(rest.len() / 2);
    let mut pairs = rest.into_iter();
    while let (Some(search), Some(result)) = (pairs.next(), pairs.next()) {
        let equal = Expr::Binary(BinOp::Eq, Box::new(x.clone()), Box::new(search.clone()));
        let both_null = Expr::Binary(
            BinOp::And,
            Box::new(Expr::IsNull(Box::new(x.clone()), false)),
            Box::new(Expr::IsNull(Box::new(search), false)),
        );
        whens.push((
            Expr::Binary(BinOp::Or, Box::new(equal), Box::new(both_null)),
            result,
        ));
    }
    Ok(Expr::Case(whens, otherwise.map(Box::new)))
}

/// The bytes a hex literal's digits spell.
///
/// # Errors
/// 9913 for an odd number of digits or a character that is not one.
pub(crate) fn hex_bytes(h: &str) -> Result<Vec<u8>> {
    let digits: Vec<u32> = h
        .chars()
        .map(|c| c.to_digit(16))
        .collect::<Option<_>>()
        .ok_or_else(|| {
            Error::TypeMismatch(format!("X'{h}' has a character that is not a hex digit"))
        })?;
    if digits.len() % 2 == 1 {
        return Err(Error::TypeMismatch(format!(
            "X'{h}' has an odd number of hex digits"
        )));
    }
    Ok(digits.chunks(2).map(|p| (p[0] * 16 + p[1]) as u8).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_is_half_away_from_zero_and_exact_on_decimals() {
        assert_eq!(round_unscaled(125, 1, false, None).unwrap(), 130);
        assert_eq!(round_unscaled(-125, 1, false, None).unwrap(), -130);
        assert_eq!(round_unscaled(-125, 1, true, None).unwrap(), -120);
        assert_eq!(round_unscaled(-121, 1, false, Some(false)).unwrap(), -130);
        assert_eq!(round_unscaled(121, 1, false, Some(true)).unwrap(), 130);
    }

    #[test]
    fn add_months_clamps_to_the_month_end() {
        let d = |y, m, dd| NaiveDate::from_ymd_opt(y, m, dd).unwrap();
        assert_eq!(add_months(d(1995, 12, 31), 2).unwrap(), d(1996, 2, 29));
        assert_eq!(add_months(d(1999, 2, 28), 1).unwrap(), d(1999, 3, 28));
        assert_eq!(add_months(d(2000, 1, 31), -2).unwrap(), d(1999, 11, 30));
    }
}
