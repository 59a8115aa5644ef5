//! PostgreSQL's numbered parameters (`$1`, `$2`, …) as tdlite's positional `?` markers, and
//! the values a client binds to them as tdlite values.
//!
//! A request's text is read once: each `$n` outside string literals, quoted names and
//! comments becomes `?`, and the order of the `$n` is kept, so `$2 … $1 … $2` takes the
//! bound values 2, 1, 2. A client that writes `?` itself is served as well.
//!
//! Values: integers, floats and booleans (1/0) as numbers; text as character data, which
//! tdlite converts where the statement needs another type (`'2024-05-01'` for a DATE, `'12.5'`
//! for a DECIMAL); `bytea` as bytes; `date`, `time`, `timestamp` as those; `numeric` sent as
//! text becomes a DECIMAL.

use pgwire::api::portal::Portal;
use pgwire::api::Type;
use pgwire::error::{PgWireError, PgWireResult};
use tdlite::Value;

/// A request's text with `?` for each `$n`, and the parameter each `?` takes (0-based).
#[derive(Debug, Clone)]
pub struct Numbered {
    /// The text tdlite runs.
    pub text: String,
    /// For each `?` of `text`, in order, the index of the bound value it takes.
    pub order: Vec<usize>,
    /// How many values the client binds (the highest `$n`, or the count of `?`).
    pub count: usize,
    /// Whether the text has Teradata's own `?` markers (then it takes exactly `count`
    /// values, as an embedded prepared request does).
    pub questions: bool,
    /// Whether the text has PostgreSQL's `$n` markers.
    pub dollars: bool,
}

/// `sql` with its `$n` markers made `?` (see the module).
pub fn number(sql: &str) -> Numbered {
    let mut text = String::with_capacity(sql.len());
    let mut order = Vec::new();
    let mut questions = 0usize;
    let mut chars = sql.char_indices().peekable();
    while let Some((_, c)) = chars.next() {
        match c {
            '\'' | '"' => {
                // a literal or quoted name, doubled quotes inside
                text.push(c);
                while let Some((_, d)) = chars.next() {
                    text.push(d);
                    if d == c {
                        if chars.peek().map(|&(_, n)| n) == Some(c) {
                            if let Some((_, n)) = chars.next() {
                                text.push(n);
                            }
                        } else {
                            break;
                        }
                    }
                }
            }
            '-' if chars.peek().map(|&(_, n)| n) == Some('-') => {
                text.push(c);
                for (_, d) in chars.by_ref() {
                    text.push(d);
                    if d == '\n' {
                        break;
                    }
                }
            }
            '/' if chars.peek().map(|&(_, n)| n) == Some('*') => {
                text.push(c);
                let mut star = false;
                for (_, d) in chars.by_ref() {
                    text.push(d);
                    if star && d == '/' {
                        break;
                    }
                    star = d == '*';
                }
            }
            // `$n`, not inside a name (`a$1` is a name in Teradata)
            '$' if chars.peek().is_some_and(|&(_, n)| n.is_ascii_digit())
                && !text
                    .chars()
                    .next_back()
                    .is_some_and(|p| p.is_alphanumeric() || p == '_' || p == '$' || p == '#') =>
            {
                let mut n = 0usize;
                while let Some(&(_, d)) = chars.peek() {
                    match d.to_digit(10) {
                        Some(v) => {
                            // past PostgreSQL's limit it stays past it (refused by `check`)
                            n = n.saturating_mul(10).saturating_add(v as usize).min(MAX + 1);
                            chars.next();
                        }
                        None => break,
                    }
                }
                text.push('?');
                // `$0` numbers nothing: past the limit, so `check` refuses it
                order.push(if n == 0 { MAX } else { n - 1 });
            }
            '?' => {
                text.push(c);
                order.push(questions);
                questions += 1;
            }
            _ => text.push(c),
        }
    }
    let count = order.iter().map(|&i| i + 1).max().unwrap_or(0);
    let dollars = order.len() > questions;
    Numbered {
        text,
        order,
        count,
        questions: questions > 0,
        dollars,
    }
}

/// The most parameters a request may number (PostgreSQL's limit, 65,535).
pub const MAX: usize = 65_535;

impl Numbered {
    /// Whether every marker is `$1` … `$65535`.
    ///
    /// # Errors
    /// The message for a `$0` or a number past the limit.
    pub fn check(&self) -> Result<(), String> {
        if self.questions && self.dollars {
            return Err(
                "a request numbers its parameters ($1, $2, …) or marks them with ?, \
                        not both"
                    .into(),
            );
        }
        if self.count > MAX {
            return Err(format!("a request may number at most {MAX} parameters"));
        }
        Ok(())
    }
}

/// The values bound in `portal`, in the order of `numbered`'s `?` markers; `types` are the
/// parameter types the statement was described with.
///
/// # Errors
/// A value that cannot be read as its type, or too few values.
pub fn values(
    portal: &Portal<crate::handler::Statement>,
    numbered: &Numbered,
    types: &[Type],
) -> PgWireResult<Vec<Value>> {
    // as many values as markers; with `$n` markers (or none) also as many as the statement
    // declared types for (PostgreSQL takes values for declared parameters the text does not
    // use); with `?` markers exactly as many (an embedded prepared request's rule)
    let given = portal.parameter_len();
    let most = if numbered.questions {
        numbered.count
    } else {
        numbered.count.max(types.len())
    };
    if given < numbered.count || given > most {
        // as an embedded prepared request refuses it (PostgreSQL refuses it too)
        let e = tdlite::PositionedError {
            error: tdlite::Error::ParameterCount {
                expected: numbered.count,
                given: portal.parameter_len(),
            },
            location: None,
            statement: 1,
        };
        return Err(PgWireError::UserError(Box::new(
            crate::handler::error_response(&e),
        )));
    }
    let bound = (0..portal.parameter_len())
        .map(|i| value(portal, i, types.get(i).unwrap_or(&Type::UNKNOWN)))
        .collect::<PgWireResult<Vec<Value>>>()?;
    numbered
        .order
        .iter()
        .map(|&i| {
            bound
                .get(i)
                .cloned()
                .ok_or(PgWireError::ParameterIndexOutOfBound(i))
        })
        .collect()
}

fn value(portal: &Portal<crate::handler::Statement>, i: usize, t: &Type) -> PgWireResult<Value> {
    let v = match *t {
        Type::BOOL => portal
            .parameter::<bool>(i, t)?
            .map(|b| Value::Int(i64::from(b))),
        Type::INT2 => portal.parameter::<i16>(i, t)?.map(|v| Value::Int(v.into())),
        Type::INT4 => portal.parameter::<i32>(i, t)?.map(|v| Value::Int(v.into())),
        Type::INT8 => portal.parameter::<i64>(i, t)?.map(Value::Int),
        Type::FLOAT4 => portal
            .parameter::<f32>(i, t)?
            .map(|v| Value::Float(v.into())),
        Type::FLOAT8 => portal.parameter::<f64>(i, t)?.map(Value::Float),
        Type::BYTEA => portal.parameter::<Vec<u8>>(i, t)?.map(Value::Bytes),
        Type::DATE => portal
            .parameter::<chrono::NaiveDate>(i, t)?
            .map(|d| Value::Date(days(d))),
        Type::TIME => portal.parameter::<chrono::NaiveTime>(i, t)?.map(|v| {
            use chrono::Timelike;
            Value::Time(
                i64::from(v.num_seconds_from_midnight()) * 1_000_000
                    + i64::from(v.nanosecond() / 1000),
            )
        }),
        Type::TIMESTAMP => portal
            .parameter::<chrono::NaiveDateTime>(i, t)?
            .map(|v| Value::Timestamp(v.and_utc().timestamp_micros())),
        Type::NUMERIC if portal.parameter_format.is_binary(i) => portal
            .parameters
            .get(i)
            .ok_or(PgWireError::ParameterIndexOutOfBound(i))?
            .as_ref()
            .map(|b| {
                binary_numeric(b).ok_or_else(|| {
                    PgWireError::FailedToParseParameter(
                        format!("parameter {} is not a numeric tdlite can hold", i + 1).into(),
                    )
                })
            })
            .transpose()?,
        Type::NUMERIC => text(portal, i)?.map(|text| decimal(&text).unwrap_or(Value::Str(text))),
        _ => text(portal, i)?.map(Value::Str),
    };
    Ok(v.unwrap_or(Value::Null))
}

/// Parameter `i` as character data, exactly as sent (text or binary format alike: UTF-8).
/// Not pgwire's text reading, which takes `''` inside a value for a quote (a literal's
/// escape, which a bound value does not have).
fn text(portal: &Portal<crate::handler::Statement>, i: usize) -> PgWireResult<Option<String>> {
    let raw = portal
        .parameters
        .get(i)
        .ok_or(PgWireError::ParameterIndexOutOfBound(i))?;
    raw.as_ref()
        .map(|bytes| {
            String::from_utf8(bytes.to_vec())
                .map_err(|e| PgWireError::FailedToParseParameter(Box::new(e)))
        })
        .transpose()
}

/// Days since 1970-01-01.
fn days(d: chrono::NaiveDate) -> i32 {
    let epoch = chrono::NaiveDate::from_ymd_opt(1970, 1, 1).unwrap_or_default();
    i32::try_from((d - epoch).num_days()).unwrap_or(i32::MAX)
}

/// PostgreSQL's binary numeric (digit count, weight of the first base-10000 digit, sign,
/// display scale, the digits) as a DECIMAL; `None` for NaN, infinities, or beyond 38 digits.
fn binary_numeric(b: &[u8]) -> Option<Value> {
    let word = |i: usize| {
        b.get(i * 2..i * 2 + 2)
            .map(|w| u16::from_be_bytes([w[0], w[1]]))
    };
    let count = usize::from(word(0)?);
    let weight = i32::from(i16::from_be_bytes(word(1)?.to_be_bytes()));
    if count > 64 {
        // more base-10000 digits than any 38-digit value with its scale has
        return None;
    }
    let sign = match word(2)? {
        0 => "",
        0x4000 => "-",
        _ => return None,
    };
    let scale = usize::from(word(3)?);
    let mut digits: Vec<u16> = (0..count).map(|i| word(4 + i)).collect::<Option<_>>()?;
    // leading zero digits say nothing (they only shift the weight)
    let mut weight = weight;
    while digits.first() == Some(&0) {
        digits.remove(0);
        weight -= 1;
    }
    // 38 digits at most: an integer part of ten or more base-10000 digits (40 decimal
    // digits) cannot be a DECIMAL, so nothing that long is ever written out
    if digits.iter().any(|d| *d > 9999) || scale > 38 || (weight >= 10 && !digits.is_empty()) {
        return None;
    }
    let weight = if digits.is_empty() { 0 } else { weight };
    // the base-10000 digit of power `p` (10000^p)
    let group = |p: i32| {
        usize::try_from(weight - p)
            .ok()
            .and_then(|i| digits.get(i).copied())
            .unwrap_or(0)
    };
    let int: String = (0..=weight.max(0))
        .rev()
        .map(|p| format!("{:04}", group(p)))
        .collect();
    let int = int.trim_start_matches('0');
    let groups = i32::try_from(scale.div_ceil(4)).ok()?;
    let frac: String = (1..=groups).map(|p| format!("{:04}", group(-p))).collect();
    let frac = frac.get(..scale)?;
    let int = if int.is_empty() { "0" } else { int };
    decimal(&format!("{sign}{int}.{frac}"))
}

/// `-12.50` as a DECIMAL (`None` for anything else, or beyond 38 digits).
fn decimal(text: &str) -> Option<Value> {
    let t = text.trim();
    let (negative, t) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let (int, frac) = t.split_once('.').unwrap_or((t, ""));
    // leading zeros are no digits of the value (0.1234… may have 38 after the point)
    let digits = format!("{int}{frac}").trim_start_matches('0').to_string();
    let digits = if digits.is_empty() {
        "0".to_string()
    } else {
        digits
    };
    if !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit())
        || (int.is_empty() && frac.is_empty())
    {
        return None;
    }
    if digits.len() > 38 || frac.len() > 38 {
        return None;
    }
    let unscaled: i128 = digits.parse().ok()?;
    Some(Value::Decimal(
        if negative { -unscaled } else { unscaled },
        i8::try_from(frac.len()).ok()?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbered_markers_become_question_marks_in_order() {
        let n = number("SELECT $2, '$1', \"$1\", $1 -- $3\n FROM t WHERE a = $2 /* $4 */");
        assert_eq!(
            n.text,
            "SELECT ?, '$1', \"$1\", ? -- $3\n FROM t WHERE a = ? /* $4 */"
        );
        assert_eq!(n.order, [1, 0, 1]);
        assert_eq!(n.count, 2);
    }

    #[test]
    fn quotes_doubled_inside_literals_do_not_end_them() {
        let n = number("SELECT 'it''s $1', $1");
        assert_eq!(n.text, "SELECT 'it''s $1', ?");
        assert_eq!(n.order, [0]);
    }

    #[test]
    fn names_with_dollars_and_huge_numbers() {
        let n = number("SEL a$1, $1 FROM t");
        assert_eq!(n.text, "SEL a$1, ? FROM t");
        assert!(number("SEL $99999999999999999999").check().is_err());
        assert!(number("SEL $0").check().is_err());
        assert!(number("SEL $65535").check().is_ok());
        assert!(number("SEL $1, ?").check().is_err());
        assert!(number("SEL '?', $1").check().is_ok());
    }

    #[test]
    fn question_marks_count_in_order() {
        let n = number("INS t (?, ?)");
        assert_eq!(n.order, [0, 1]);
        assert_eq!(n.count, 2);
    }

    #[test]
    fn binary_numerics_read_as_decimals() {
        // 12.50: one integer digit 12 (weight 0), one fraction digit 5000, scale 2
        let n = |bytes: &[u8]| binary_numeric(bytes);
        assert_eq!(
            n(&[0, 2, 0, 0, 0, 0, 0, 2, 0, 12, 0x13, 0x88]),
            Some(Value::Decimal(1250, 2))
        );
        // -10000: digit 1 at weight 1
        assert_eq!(
            n(&[0, 1, 0, 1, 0x40, 0, 0, 0, 0, 1]),
            Some(Value::Decimal(-10000, 0))
        );
        // 0.0001: digit 1 at weight -1, scale 4
        assert_eq!(
            n(&[0, 1, 0xff, 0xff, 0, 0, 0, 4, 0, 1]),
            Some(Value::Decimal(1, 4))
        );
        // zero with scale 2; NaN; a truncated message
        assert_eq!(n(&[0, 0, 0, 0, 0, 0, 0, 2]), Some(Value::Decimal(0, 2)));
        assert_eq!(n(&[0, 0, 0, 0, 0xc0, 0, 0, 0]), None);
        assert_eq!(n(&[0, 1, 0, 4]), None);
        // an integer part far beyond 38 digits is refused without being written out
        assert_eq!(n(&[0, 1, 0x7f, 0xff, 0, 0, 0, 0, 0, 1]), None);
        // leading zero digits only shift the weight
        assert_eq!(
            n(&[0, 2, 0, 1, 0, 0, 0, 0, 0, 0, 0, 7]),
            Some(Value::Decimal(7, 0))
        );
    }

    #[test]
    fn decimals_keep_their_scale() {
        assert_eq!(decimal("-12.50"), Some(Value::Decimal(-1250, 2)));
        assert_eq!(decimal("7"), Some(Value::Decimal(7, 0)));
        assert_eq!(decimal("1e5"), None);
        // 38 digits after the point fit DECIMAL(38,38); leading zeros are no digits
        let d = decimal("0.12345678901234567890123456789012345678");
        assert!(matches!(d, Some(Value::Decimal(_, 38))), "{d:?}");
        assert_eq!(decimal("0007.5"), Some(Value::Decimal(75, 1)));
        assert_eq!(decimal("."), None);
    }
}
