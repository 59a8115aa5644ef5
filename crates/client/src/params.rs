//! Parameter values on the wire: every value in text format, each parameter declared with the
//! PostgreSQL type of its values (the server reads a value by its declared type, docs/server.md).
//!
//! A parameter whose values are of one kind in every set is declared as that kind's type
//! (INTEGER values as int8, DECIMAL as numeric, …); one that mixes kinds of numbers as the
//! one that holds them all (numeric, or float8 with a float among them); bytes never mix with
//! other kinds (refused); any other mix, or only NULLs, is declared unknown and its values go
//! as character data, which tdlite converts where the statement needs another type (as it
//! converts a character literal). Every set is checked before anything is sent.
//!
//! Invariant: a value's text reads back on the server as the same value (floats in Rust's
//! shortest round-trip form, timestamps with all six fractional digits).

use crate::Error;
use bytes::{BufMut, BytesMut};
use postgres_protocol::message::frontend;
use postgres_protocol::IsNull;
use tdlite::Value;

/// PostgreSQL's type OIDs for the kinds of values.
const UNKNOWN: u32 = 0;
const INT8: u32 = 20;
const FLOAT8: u32 = 701;
const NUMERIC: u32 = 1700;
const VARCHAR: u32 = 1043;
const BYTEA: u32 = 17;
const DATE: u32 = 1082;
const TIME: u32 = 1083;
const TIMESTAMP: u32 = 1114;

/// The type a value of this kind is declared as (NULL: none).
fn kind(v: &Value) -> Option<u32> {
    Some(match v {
        Value::Null => return None,
        Value::Int(_) => INT8,
        Value::Decimal(..) => NUMERIC,
        Value::Float(_) => FLOAT8,
        Value::Str(_) | Value::Period(_) => VARCHAR,
        Value::Bytes(_) => BYTEA,
        Value::Date(_) => DATE,
        Value::Time(_) => TIME,
        Value::Timestamp(_) => TIMESTAMP,
    })
}

/// One parameter set's values as text (`None`: NULL).
pub(crate) type SetTexts = Vec<Option<String>>;

/// The declared type of a parameter whose values have the kinds `kinds` (see the module).
fn declared(kinds: &[u32]) -> Result<u32, Error> {
    let Some(&first) = kinds.first() else {
        return Ok(UNKNOWN);
    };
    if kinds.iter().all(|&k| k == first) {
        return Ok(first);
    }
    if kinds.contains(&BYTEA) {
        return Err(Error::Value(
            "a parameter has bytes in one set and another kind of value in another".into(),
        ));
    }
    // numbers of several kinds: the one that holds them all
    if kinds.iter().all(|k| [INT8, NUMERIC, FLOAT8].contains(k)) {
        return Ok(if kinds.contains(&FLOAT8) {
            FLOAT8
        } else {
            NUMERIC
        });
    }
    Ok(UNKNOWN)
}

/// The declared types of the parameters of `sets` and each set's values as text (`None`:
/// NULL), every value checked.
///
/// # Errors
/// [`Error::Value`]: sets of different widths, a PERIOD, bytes mixed with other kinds.
pub(crate) fn texts(sets: &[Vec<Value>]) -> Result<(Vec<u32>, Vec<SetTexts>), Error> {
    let width = sets.first().map_or(0, Vec::len);
    if let Some((i, s)) = sets.iter().enumerate().find(|(_, s)| s.len() != width) {
        return Err(Error::Value(format!(
            "parameter set {} has {} values, the first has {width}",
            i + 1,
            s.len()
        )));
    }
    let types = (0..width)
        .map(|i| {
            let kinds: Vec<u32> = sets.iter().filter_map(|s| kind(&s[i])).collect();
            declared(&kinds)
        })
        .collect::<Result<Vec<u32>, Error>>()?;
    let texts = sets
        .iter()
        .map(|set| set.iter().map(text).collect::<Result<Vec<_>, Error>>())
        .collect::<Result<Vec<_>, Error>>()?;
    Ok((types, texts))
}

/// A Bind of the unnamed statement to the unnamed portal with a set's texts; results asked
/// for in text.
///
/// # Errors
/// Only if the message cannot be written (more than 32,767 values: the count is an i16).
pub(crate) fn bind(texts: Vec<Option<String>>, out: &mut BytesMut) -> Result<(), Error> {
    frontend::bind(
        "",
        "",
        std::iter::empty(),
        texts,
        |t: Option<String>, buf: &mut BytesMut| {
            Ok(match t {
                Some(t) => {
                    buf.put_slice(t.as_bytes());
                    IsNull::No
                }
                None => IsNull::Yes,
            })
        },
        std::iter::empty(),
        out,
    )
    .map_err(|e| match e {
        frontend::BindError::Conversion(e) => Error::Value(e.to_string()),
        frontend::BindError::Serialization(e) => Error::Value(e.to_string()),
    })
}

/// A value's text (`None`: NULL).
fn text(v: &Value) -> Result<Option<String>, Error> {
    Ok(Some(match v {
        Value::Null => return Ok(None),
        Value::Int(i) => i.to_string(),
        Value::Decimal(unscaled, scale) => decimal(*unscaled, *scale),
        Value::Float(f) => float(*f),
        Value::Str(s) => s.clone(),
        // bytes are declared bytea (never mixed with other kinds: `declared`)
        Value::Bytes(b) => {
            let mut t = String::with_capacity(2 + 2 * b.len());
            t.push_str("\\x");
            for byte in b {
                t.push_str(&format!("{byte:02x}"));
            }
            t
        }
        Value::Date(days) => crate::convert::epoch()
            .checked_add_signed(chrono::Duration::days(i64::from(*days)))
            .map(|d| d.format("%Y-%m-%d").to_string())
            .ok_or_else(|| Error::Value(format!("day {days} is not a date")))?,
        Value::Time(us) => chrono::NaiveTime::from_num_seconds_from_midnight_opt(
            u32::try_from(us.div_euclid(1_000_000)).unwrap_or(u32::MAX),
            u32::try_from(us.rem_euclid(1_000_000) * 1000).unwrap_or(0),
        )
        .map(|t| t.format("%H:%M:%S%.6f").to_string())
        .ok_or_else(|| Error::Value(format!("{us} µs is not a time of day")))?,
        Value::Timestamp(us) => chrono::DateTime::from_timestamp_micros(*us)
            .map(|t| t.naive_utc().format("%Y-%m-%d %H:%M:%S%.6f").to_string())
            .ok_or_else(|| Error::Value(format!("{us} µs is not a timestamp")))?,
        Value::Period(_) => {
            return Err(Error::Value(
                "a PERIOD cannot be a parameter over the wire; send its bounds".into(),
            ))
        }
    }))
}

/// `-12.50` for unscaled -1250 at scale 2 (a negative scale multiplies).
fn decimal(unscaled: i128, scale: i8) -> String {
    if scale <= 0 {
        let zeros = "0".repeat(usize::from(scale.unsigned_abs()));
        return if unscaled == 0 {
            "0".to_string()
        } else {
            format!("{unscaled}{zeros}")
        };
    }
    let scale = usize::from(scale.unsigned_abs());
    let digits = format!("{:0>width$}", unscaled.unsigned_abs(), width = scale + 1);
    let (int, frac) = digits.split_at(digits.len() - scale);
    let sign = if unscaled < 0 { "-" } else { "" };
    format!("{sign}{int}.{frac}")
}

/// A float's shortest text that reads back as the same float (`NaN`, `inf`, `-inf` too).
fn float(f: f64) -> String {
    format!("{f:?}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declared_types_follow_the_values() {
        let sets = vec![
            vec![
                Value::Int(1),
                Value::Null,
                Value::Str("a".into()),
                Value::Null,
                Value::Int(1),
                Value::Int(1),
            ],
            vec![
                Value::Int(2),
                Value::Float(1.5),
                Value::Int(3),
                Value::Null,
                Value::Decimal(15, 1),
                Value::Float(0.5),
            ],
        ];
        let (types, texts) = texts(&sets).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(types, vec![INT8, FLOAT8, UNKNOWN, UNKNOWN, NUMERIC, FLOAT8]);
        assert_eq!(texts[1][4].as_deref(), Some("1.5"));
        let refused = |sets: Vec<Vec<Value>>| matches!(super::texts(&sets), Err(Error::Value(_)));
        assert!(refused(vec![
            vec![Value::Bytes(vec![1])],
            vec![Value::Str("a".into())]
        ]));
        assert!(refused(vec![vec![Value::Int(1)], vec![]]));
        assert!(refused(vec![vec![Value::Time(-1)]]));
    }

    #[test]
    fn texts_read_back() {
        assert_eq!(decimal(-1250, 2), "-12.50");
        assert_eq!(decimal(5, 3), "0.005");
        assert_eq!(decimal(12, -2), "1200");
        assert_eq!(float(0.1), "0.1");
        assert_eq!(float(1e300).parse::<f64>().ok(), Some(1e300));
        assert_eq!(
            float(f64::NEG_INFINITY).parse::<f64>().ok(),
            Some(f64::NEG_INFINITY)
        );
        let t = |v: Value, _: u32| text(&v).ok().flatten().unwrap_or_default();
        assert_eq!(t(Value::Bytes(vec![0, 255]), BYTEA), "\\x00ff");
        assert_eq!(t(Value::Date(0), DATE), "1970-01-01");
        assert_eq!(t(Value::Time(3_723_000_001), TIME), "01:02:03.000001");
        assert_eq!(
            t(Value::Timestamp(-1), TIMESTAMP),
            "1969-12-31 23:59:59.999999"
        );
    }
}
