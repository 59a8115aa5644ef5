//! `TO_CHAR(number, model)`: a number written by an Oracle-style number format model, as
//! Teradata documents its elements (SQL Data Types and Literals, "format_arg Format Elements"
//! of TO_NUMBER, which TO_CHAR(Numeric) shares): digits `9` and `0`, `,`/`G`, `.`/`D`, `$`,
//! `B`, `S` (leading or trailing), `MI`, `PR`, `L`/`C`/`U` (currency), `V`, `EEEE`, `X`, `RN`,
//! `TM`, and a leading `FM`.
//!
//! Invariants: without `FM` a model gives one width for every value (a place for the sign
//! unless `S`, `MI` or `PR` places it); a value whose integer digits do not fit is that width
//! of `#` ("If the conversion fails, '#' characters are returned"); halves round away from
//! zero; the sign and a leading currency sign float to just left of the first digit written.

use crate::error::{Error, Result};
use tdlite_storage::types::Value;

/// A compiled number model.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct NumberModel {
    fm: bool,
    kind: Kind,
}

#[derive(Debug, Clone, PartialEq)]
enum Kind {
    /// Digits with their separators and signs.
    Fixed(Fixed),
    /// `EEEE` after a digit model: fractional digits of the mantissa.
    Scientific { frac: usize, sign: Sign },
    /// `X…`: hexadecimal of a non-negative integer, this many places (`x`: small letters).
    Hex {
        places: usize,
        zeros: bool,
        lower: bool,
    },
    /// `RN`/`rn`: a roman numeral, 1 to 3999.
    Roman { lower: bool },
    /// `TM`, `TM9`: the shortest text; `TME`: scientific.
    TextMinimum { scientific: bool },
}

#[derive(Debug, Clone, PartialEq)]
struct Fixed {
    /// Integer places, left to right: a digit (`true` for a `0`) or a group separator.
    int: Vec<Place>,
    /// Fractional places (`true` for a `0`), after the radix if there is one.
    frac: Vec<bool>,
    radix: bool,
    /// `V`: in the model (its digits after `V` count among `int`'s), the value multiplied by
    /// 10 for each such digit.
    shift: bool,
    shifted: u32,
    blank_zero: bool,
    currency: Option<(&'static str, bool)>,
    sign: Sign,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Place {
    Digit { zero: bool },
    Group,
}

/// Where the sign goes.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Sign {
    /// A blank or `-` just left of the first digit (the default).
    Floating,
    /// `S…`: `+` or `-` just left of the first digit.
    Leading,
    /// `…S`: `+` or `-` at the end.
    Trailing,
    /// `MI`: `-` or a blank at the end.
    Minus,
    /// `PR`: `<…>` around a negative value, blanks around a positive one.
    Brackets,
}

/// Compiles `model`.
///
/// # Errors
/// 9910 naming what is no number model element, or an element out of its place (`MI` or
/// `PR` not last, two radixes).
pub(crate) fn compile(model: &str) -> Result<NumberModel> {
    let bad = || Error::Unsupported(format!("the number format model '{model}'"));
    let (fm, body) = match model.get(..2) {
        Some(p) if p.eq_ignore_ascii_case("FM") => (true, &model[2..]),
        _ => (false, model),
    };
    let up = body.to_ascii_uppercase();
    if up == "RN" {
        let lower = body == "rn";
        return Ok(NumberModel {
            fm,
            kind: Kind::Roman { lower },
        });
    }
    if matches!(up.as_str(), "TM" | "TM9" | "TME") {
        let scientific = up == "TME";
        return Ok(NumberModel {
            fm,
            kind: Kind::TextMinimum { scientific },
        });
    }
    if !up.is_empty() && up.trim_start_matches('0').chars().all(|c| c == 'X') && up.contains('X') {
        return Ok(NumberModel {
            fm,
            kind: Kind::Hex {
                places: up.len(),
                zeros: up.starts_with('0'),
                lower: body.contains('x'),
            },
        });
    }
    let mut rest = up.as_str();
    let mut fixed = Fixed {
        int: Vec::new(),
        frac: Vec::new(),
        radix: false,
        shift: false,
        shifted: 0,
        blank_zero: false,
        currency: None,
        sign: Sign::Floating,
    };
    let currency = |c: char| match c {
        '$' | 'L' | 'U' => Some("$"),
        'C' => Some("USD"),
        _ => None,
    };
    let mut scientific = false;
    let mut any_digit = false;
    while let Some(c) = rest.chars().next() {
        let after = &rest[c.len_utf8()..];
        let end = after.is_empty();
        match c {
            '9' | '0' => {
                any_digit = true;
                if fixed.radix {
                    fixed.frac.push(c == '0');
                } else {
                    fixed.shifted += u32::from(fixed.shift);
                    fixed.int.push(Place::Digit { zero: c == '0' });
                }
            }
            ',' | 'G' if !fixed.radix && !fixed.shift && any_digit => fixed.int.push(Place::Group),
            '.' | 'D' if !fixed.radix && !fixed.shift => fixed.radix = true,
            'V' if !fixed.radix && !fixed.shift => fixed.shift = true,
            'B' if !any_digit => fixed.blank_zero = true,
            'S' if !any_digit && fixed.sign == Sign::Floating => fixed.sign = Sign::Leading,
            'S' if end && fixed.sign == Sign::Floating => fixed.sign = Sign::Trailing,
            'M' if after == "I" && fixed.sign == Sign::Floating => {
                fixed.sign = Sign::Minus;
                rest = "";
                continue;
            }
            'P' if after == "R" && fixed.sign == Sign::Floating => {
                fixed.sign = Sign::Brackets;
                rest = "";
                continue;
            }
            'E' if after.starts_with("EEE") && any_digit => {
                scientific = true;
                rest = &rest[4..];
                if !rest.is_empty() {
                    return Err(bad());
                }
                continue;
            }
            c if currency(c).is_some() && fixed.currency.is_none() && !fixed.radix => {
                fixed.currency = Some((currency(c).unwrap_or("$"), !any_digit));
            }
            _ => return Err(bad()),
        }
        rest = after;
    }
    if !any_digit {
        return Err(bad());
    }
    if scientific {
        if fixed.currency.is_some() || fixed.shift || fixed.int.contains(&Place::Group) {
            return Err(bad());
        }
        let frac = fixed.frac.len();
        return Ok(NumberModel {
            fm,
            kind: Kind::Scientific {
                frac,
                sign: fixed.sign,
            },
        });
    }
    Ok(NumberModel {
        fm,
        kind: Kind::Fixed(fixed),
    })
}

/// `v` written by `model`; `None` for NULL.
///
/// # Errors
/// 9913 for a value that is no number.
pub(crate) fn render(model: &NumberModel, v: &Value) -> Result<Option<String>> {
    let Some(dec) = Dec::of(v)? else {
        return Ok(None);
    };
    let text = match &model.kind {
        Kind::Fixed(f) => fixed(f, model.fm, &dec),
        Kind::Scientific { frac, sign } => scientific(Some(*frac), *sign, &dec),
        Kind::Hex {
            places,
            zeros,
            lower,
        } => hex(*places, *zeros, *lower, &dec),
        Kind::Roman { lower } => roman(*lower, &dec),
        // TM: the shortest fixed text, scientific past 64 characters (Oracle's TM9)
        Kind::TextMinimum { scientific: false } => match dec.plain() {
            text if text.len() > 64 => {
                scientific(None, Sign::Floating, &dec).map(|s| s.trim().to_string())
            }
            text => Some(text),
        },
        Kind::TextMinimum { scientific: true } => {
            scientific(None, Sign::Floating, &dec).map(|s| s.trim().to_string())
        }
    };
    let text = text.unwrap_or_else(|| overflow(model));
    Ok(Some(if model.fm {
        text.trim().to_string()
    } else {
        text
    }))
}

/// A number exactly as its decimal digits: ±`digits` × 10^`exp` (`digits` without leading
/// zeros, `"0"` for zero). A FLOAT is its shortest round-trip digits (0.1 is `1` × 10^-1),
/// so no binary noise is written and no magnitude is out of reach.
struct Dec {
    negative: bool,
    digits: String,
    exp: i64,
}

impl Dec {
    /// `v` as digits; `None` for NULL.
    ///
    /// # Errors
    /// 9913 for a value that is no number; 2616 for an infinite or NaN FLOAT.
    fn of(v: &Value) -> Result<Option<Dec>> {
        let (negative, digits, exp) = match v {
            Value::Null => return Ok(None),
            Value::Int(i) => (*i < 0, i.unsigned_abs().to_string(), 0),
            Value::Decimal(d, s) => (*d < 0, d.unsigned_abs().to_string(), -i64::from(*s)),
            Value::Float(f) if f.is_finite() => {
                let text = format!("{:e}", f.abs());
                let (mantissa, e) = text.split_once('e').unwrap_or((&text, "0"));
                let e: i64 = e.parse().unwrap_or(0);
                let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
                let point = mantissa.find('.').map_or(0, |at| mantissa.len() - at - 1);
                (*f < 0.0, digits, e - point as i64)
            }
            Value::Float(_) => return Err(Error::Overflow),
            _ => {
                return Err(Error::TypeMismatch(
                    "TO_CHAR with a number model takes a number".into(),
                ))
            }
        };
        let digits = match digits.trim_start_matches('0') {
            "" => "0".to_string(),
            d => d.to_string(),
        };
        let negative = negative && digits != "0";
        Ok(Some(Dec {
            negative,
            digits,
            exp,
        }))
    }

    /// The value × 10^`scale`, rounded half away from zero to a whole number; `None` past 38
    /// digits.
    fn scaled(&self, scale: u32) -> Option<i128> {
        let shift = self.exp + i64::from(scale);
        let len = self.digits.len() as i64;
        let magnitude = if shift >= 0 {
            if len + shift > 38 {
                return None;
            }
            self.digits
                .parse::<i128>()
                .ok()?
                .checked_mul(10i128.checked_pow(u32::try_from(shift).ok()?)?)?
        } else {
            let drop = -shift;
            if drop > len {
                0
            } else {
                let keep = (len - drop) as usize;
                let kept: i128 = match keep {
                    0 => 0,
                    _ => self.digits[..keep].parse().ok()?,
                };
                let up = self.digits.as_bytes()[keep] >= b'5';
                kept + i128::from(up)
            }
        };
        Some(if self.negative { -magnitude } else { magnitude })
    }

    /// The shortest text (TM): `1234.5`, `.1`, `-7`.
    fn plain(&self) -> String {
        let sign = if self.negative { "-" } else { "" };
        let len = self.digits.len() as i64;
        if self.exp >= 0 {
            let zeros = "0".repeat(usize::try_from(self.exp).unwrap_or(0));
            return format!("{sign}{}{zeros}", self.digits);
        }
        let point = len + self.exp;
        let (int, frac) = if point > 0 {
            let at = point as usize;
            (self.digits[..at].to_string(), self.digits[at..].to_string())
        } else {
            let lead = "0".repeat(usize::try_from(-point).unwrap_or(0));
            (String::new(), format!("{lead}{}", self.digits))
        };
        let frac = frac.trim_end_matches('0');
        match frac.is_empty() {
            true if int.is_empty() => "0".to_string(),
            true => format!("{sign}{int}"),
            false => format!("{sign}{int}.{frac}"),
        }
    }
}

/// The `#`s a value that does not fit the model gets: the model's width.
fn overflow(model: &NumberModel) -> String {
    let width = match &model.kind {
        Kind::Fixed(f) => {
            let currency = f.currency.map_or(0, |(c, _)| c.len());
            let sign = match f.sign {
                Sign::Brackets => 2,
                _ => 1,
            };
            f.int.len() + f.frac.len() + usize::from(f.radix) + currency + sign
        }
        Kind::Scientific { frac, .. } => frac + usize::from(*frac > 0) + 6,
        Kind::Hex { places, .. } => places + 1,
        Kind::Roman { .. } => 15,
        Kind::TextMinimum { .. } => 1,
    };
    "#".repeat(width)
}

/// The digits of `|v|`, at least `min` of them (zeros in front).
fn digits(v: i128, min: usize) -> String {
    format!("{:0min$}", v.unsigned_abs())
}

fn fixed(f: &Fixed, fm: bool, dec: &Dec) -> Option<String> {
    let nfrac = f.frac.len() as u32;
    // `V`: times 10 per digit after it
    let v = dec.scaled(nfrac + f.shifted)?;
    let negative = v < 0;
    let all = digits(v, nfrac as usize + 1);
    let (int_digits, frac_digits) = all.split_at(all.len() - nfrac as usize);
    let int_digits: Vec<char> = int_digits.trim_start_matches('0').chars().collect();
    let places = f
        .int
        .iter()
        .filter(|p| matches!(p, Place::Digit { .. }))
        .count();
    if int_digits.len() > places {
        return None;
    }
    // each digit place's character, left to right: the digits right-aligned; before them a 0
    // from the first `0` place on, else a blank; a zero value with nothing after the radix
    // writes one 0 in the last place
    let first_zero = f.int.iter().position(|p| *p == Place::Digit { zero: true });
    let zero_int = int_digits.is_empty();
    let mut digit_k = 0;
    let mut int = String::with_capacity(f.int.len());
    let mut seen = false;
    for (k, p) in f.int.iter().enumerate() {
        match p {
            Place::Digit { .. } => {
                let from_right = places - 1 - digit_k;
                digit_k += 1;
                let c = if from_right < int_digits.len() {
                    int_digits[int_digits.len() - 1 - from_right]
                } else if first_zero.is_some_and(|z| k >= z)
                    || (zero_int && nfrac == 0 && from_right == 0)
                {
                    '0'
                } else {
                    ' '
                };
                seen |= c != ' ';
                int.push(c);
            }
            // a separator is written only after a digit
            Place::Group => int.push(if seen { ',' } else { ' ' }),
        }
    }
    let blank = f.blank_zero && zero_int;
    if blank {
        int = " ".repeat(int.len());
    }
    let mut frac = frac_digits.to_string();
    if fm {
        // under FM a `9` place's trailing zero is not written (a `0` place's is)
        let keep = f
            .frac
            .iter()
            .rposition(|&zero| zero)
            .map_or(0, |z| z + 1)
            .max(frac.trim_end_matches('0').len());
        frac.truncate(keep);
    }
    let tail = if blank && v == 0 {
        " ".repeat(usize::from(f.radix) + f.frac.len())
    } else if f.radix {
        format!(".{frac}")
    } else {
        frac
    };
    let (lead_currency, trail_currency) = match f.currency {
        Some((c, true)) => (c, ""),
        Some((c, false)) => ("", c),
        None => ("", ""),
    };
    let (lead_sign, trail_sign) = match (f.sign, negative) {
        (Sign::Floating, false) => (" ", ""),
        (Sign::Floating | Sign::Leading, true) => ("-", ""),
        (Sign::Leading, false) => ("+", ""),
        (Sign::Trailing, false) => ("", "+"),
        (Sign::Trailing | Sign::Minus, true) => ("", "-"),
        (Sign::Minus, false) => ("", " "),
        (Sign::Brackets, false) => (" ", " "),
        (Sign::Brackets, true) => ("<", ">"),
    };
    // the sign and a leading currency float to just left of the first character written
    let pad = int.len() - int.trim_start_matches(' ').len();
    let (blanks, body) = int.split_at(pad);
    Some(format!(
        "{blanks}{lead_sign}{lead_currency}{body}{tail}{trail_currency}{trail_sign}"
    ))
}

fn scientific(frac: Option<usize>, sign: Sign, dec: &Dec) -> Option<String> {
    let negative = dec.negative;
    let mut exp = dec.exp + dec.digits.len() as i64 - 1;
    // `None`: every significant digit (TME)
    let frac = frac.unwrap_or_else(|| dec.digits.trim_end_matches('0').len().max(1) - 1);
    // the mantissa's digits, rounded half away from zero at frac + 1 of them
    let (m, carried) = crate::numfmt::round_digits(&dec.digits, frac + 1);
    exp += i64::from(carried);
    if dec.digits == "0" {
        exp = 0;
    }
    let text: String = m.iter().map(|d| char::from(b'0' + d)).collect();
    let (int, fraction) = text.split_at(1);
    let point = if frac > 0 { "." } else { "" };
    let e_sign = if exp < 0 { '-' } else { '+' };
    let body = format!("{int}{point}{fraction}E{e_sign}{:02}", exp.abs());
    Some(match (sign, negative) {
        (Sign::Leading, n) => format!("{}{body}", if n { '-' } else { '+' }),
        (Sign::Trailing, n) => format!("{body}{}", if n { '-' } else { '+' }),
        (Sign::Minus, n) => format!("{body}{}", if n { '-' } else { ' ' }),
        (Sign::Brackets, true) => format!("<{body}>"),
        (Sign::Brackets, false) => format!(" {body} "),
        (Sign::Floating, n) => format!("{}{body}", if n { '-' } else { ' ' }),
    })
}

fn hex(places: usize, zeros: bool, lower: bool, dec: &Dec) -> Option<String> {
    let v = dec.scaled(0)?;
    if v < 0 {
        return None;
    }
    let text = if lower {
        format!("{v:x}")
    } else {
        format!("{v:X}")
    };
    if text.len() > places {
        return None;
    }
    let fill = if zeros { '0' } else { ' ' };
    let pad: String = std::iter::repeat_n(fill, places - text.len()).collect();
    Some(format!(" {pad}{text}"))
}

fn roman(lower: bool, dec: &Dec) -> Option<String> {
    let mut v = dec.scaled(0)?;
    if !(1..=3999).contains(&v) {
        return None;
    }
    const TABLE: [(i128, &str); 13] = [
        (1000, "M"),
        (900, "CM"),
        (500, "D"),
        (400, "CD"),
        (100, "C"),
        (90, "XC"),
        (50, "L"),
        (40, "XL"),
        (10, "X"),
        (9, "IX"),
        (5, "V"),
        (4, "IV"),
        (1, "I"),
    ];
    let mut out = String::new();
    for (n, s) in TABLE {
        while v >= n {
            out.push_str(s);
            v -= n;
        }
    }
    if lower {
        out = out.to_lowercase();
    }
    Some(format!("{out:>15}"))
}
