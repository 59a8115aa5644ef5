//! Teradata's numeric FORMAT masks (`'ZZZ,ZZ9.99'`, `'-(8)9'`, `'$$$,$$9.99'`, `'9(5)'`): how
//! a number is written as text by the `(FORMAT '…')` phrase and `CAST(… AS VARCHAR(n) FORMAT
//! '…')`, and how text written that way is read back as a number.
//!
//! Mask elements (case does not matter; `c(n)` repeats `c` n times):
//! - `9` a digit, always written; `Z` a digit, a blank while only zeros came before it;
//! - `.` (or `D`) the decimal point, `V` an implied one (not written); `,` (or `G`) a group
//!   separator, written only after a written digit;
//! - `$`, `-`, `+` alone: a currency sign, a sign written only for negatives, a sign always
//!   written; `S` a sign always written. Two or more of `$`, `-` or `+` in a row *float*: they
//!   are digit places that stay blank, the sign written just left of the first digit;
//! - `B` a blank; any other character (`%`, `/`, `:`) is itself;
//! - `E` the exponent: the mask before it writes the mantissa (as many integer digits as it
//!   has places, the first of them not zero), the mask after it the power of ten (FLOAT's
//!   default `'-9.99999999999999E-999'` writes 1234.5 as ` 1.23450000000000E 003`). A
//!   negative exponent in a mask without a sign for it is written as asterisks; a FLOAT is
//!   rounded from its shortest decimal form (9.995 is 1.00E01 by `'9.99E99'`).
//!
//! A number that needs more integer digits than the mask has is written as asterisks, as
//! Teradata does; a negative number in a mask without a sign element loses its sign, as
//! Teradata writes it. Fractions round half away from zero.
//!
//! Invariant: the text is always as long as the mask (in characters), whatever the value.

/// One place of a mask.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    /// `9`.
    Digit,
    /// `Z`, or a floating sign's digit place.
    Suppressed,
    /// A floating run's sign: written left of the first digit.
    Floating(char),
    /// `-`: `-` for a negative number, else a blank.
    Minus,
    /// `+` or `S`: always a sign.
    Sign,
    /// `,`.
    Group,
    /// `.`.
    Point,
    /// `V`: an implied decimal point.
    Implied,
    /// Anything else, written as itself.
    Literal(char),
}

/// True if `fmt` is a numeric mask (it has a digit element, `9`, `Z` or a floating sign's
/// run, and no date or time element).
pub(crate) fn is_numeric(fmt: &str) -> bool {
    let up = fmt.to_ascii_uppercase();
    // a floating sign's run is digit places too (DECIMAL(n,0)'s default `--(n).`)
    let floating = ["--", "++", "$$", "-(", "+(", "$("]
        .iter()
        .any(|r| up.contains(r));
    (up.contains(['9', 'Z']) || floating)
        && !["YY", "MM", "DD", "HH", "MI", "SS"]
            .iter()
            .any(|d| up.contains(d))
}

/// The mask's characters with each `c(n)` written out.
fn expand(fmt: &str) -> Option<Vec<char>> {
    let chars: Vec<char> = fmt.to_ascii_uppercase().chars().collect();
    let mut out: Vec<char> = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == '(' {
            let close = chars[i..].iter().position(|&c| c == ')')? + i;
            let n: usize = chars[i + 1..close]
                .iter()
                .collect::<String>()
                .trim()
                .parse()
                .ok()?;
            let c = *out.last()?;
            // the element itself is already there once
            out.extend(std::iter::repeat_n(c, n.min(1000).checked_sub(1)?));
            i = close + 1;
            continue;
        }
        out.push(chars[i]);
        i += 1;
    }
    Some(out)
}

/// The places of a mask.
fn places(fmt: &str) -> Option<Vec<Place>> {
    let chars = expand(fmt)?;
    let mut out = Vec::with_capacity(chars.len());
    // the floating sign, once its run began: its later copies (also past a `,`) are digits
    let mut floating: Option<char> = None;
    for (i, &c) in chars.iter().enumerate() {
        match c {
            '$' | '-' | '+' if floating == Some(c) => out.push(Place::Suppressed),
            '$' | '-' | '+' if floating.is_none() && chars.get(i + 1) == Some(&c) => {
                floating = Some(c);
                out.push(Place::Floating(c));
            }
            '9' => out.push(Place::Digit),
            'Z' => out.push(Place::Suppressed),
            '$' => out.push(Place::Literal('$')),
            '-' => out.push(Place::Minus),
            '+' | 'S' => out.push(Place::Sign),
            ',' | 'G' => out.push(Place::Group),
            '.' | 'D' => out.push(Place::Point),
            'V' => out.push(Place::Implied),
            'B' => out.push(Place::Literal(' ')),
            c if c.is_ascii_alphanumeric() => return None,
            c => out.push(Place::Literal(c)),
        }
    }
    Some(out)
}

/// Where a mask's decimal point is (its length without one), and how many digit places stand
/// before and after it.
fn digit_places(places: &[Place]) -> (usize, usize, usize) {
    let point = places
        .iter()
        .position(|p| matches!(p, Place::Point | Place::Implied))
        .unwrap_or(places.len());
    let is_digit = |p: &&Place| matches!(p, Place::Digit | Place::Suppressed);
    let int_places = places[..point].iter().filter(is_digit).count();
    let frac_places = places[point..].iter().filter(is_digit).count();
    (point, int_places, frac_places)
}

/// The mask split at its exponent element `E`: (mantissa, exponent); `None` without one.
fn split_exponent(fmt: &str) -> Option<(&str, &str)> {
    let at = fmt.find(['E', 'e'])?;
    Some((&fmt[..at], &fmt[at + 1..]))
}

/// True if `fmt` has an exponent element.
pub(crate) fn has_exponent(fmt: &str) -> bool {
    split_exponent(fmt).is_some()
}

/// Writes a FLOAT by a mask with an exponent (its own decimal digits, not a rounded copy);
/// `None` for a mask without one or with an element this module does not know.
pub(crate) fn write_float(f: f64, fmt: &str) -> Option<String> {
    split_exponent(fmt)?;
    if !f.is_finite() {
        return None;
    }
    // `{:e}` is the shortest text that reads back as `f`: `1.2345e3`
    let text = format!("{:e}", f.abs());
    let (mantissa, exp) = text.split_once('e')?;
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let exp: i64 = exp.parse().ok()?;
    let pow = exp - i64::try_from(digits.len()).ok()? + 1;
    scientific(f < 0.0, &digits, pow, fmt)
}

/// The first `wanted` of the decimal `digits` (zeros after them if there are fewer),
/// rounded half away from zero, and whether the rounding carried into a new first digit
/// (9.99 to three digits is 1.00 one place further up: `true`).
pub(crate) fn round_digits(digits: &str, wanted: usize) -> (Vec<u8>, bool) {
    let mut kept: Vec<u8> = digits.bytes().map(|b| b - b'0').collect();
    kept.resize(kept.len().max(wanted + 1), 0);
    let round_up = kept[wanted] >= 5;
    kept.truncate(wanted);
    if round_up {
        for i in (0..wanted).rev() {
            if kept[i] == 9 {
                kept[i] = 0;
            } else {
                kept[i] += 1;
                return (kept, false);
            }
        }
        kept.insert(0, 1);
        kept.truncate(wanted);
        return (kept, true);
    }
    (kept, false)
}

/// Writes `digits × 10^pow` (the sign apart) by a mask with an exponent element.
fn scientific(negative: bool, digits: &str, pow: i64, fmt: &str) -> Option<String> {
    let (mantissa_mask, exp_mask) = split_exponent(fmt)?;
    let (_, int_places, frac_places) = digit_places(&places(mantissa_mask)?);
    let exp_places = places(exp_mask)?;
    let (_, exp_digits, _) = digit_places(&exp_places);
    let wanted = int_places + frac_places;
    if wanted == 0 || exp_digits == 0 || wanted > 38 {
        // a part without digits, or more digits than a DECIMAL holds
        return None;
    }
    let exp_signed = exp_places
        .iter()
        .any(|p| matches!(p, Place::Minus | Place::Sign | Place::Floating('-' | '+')));
    let digits = digits.trim_start_matches('0');
    let (mut kept, lead) = if digits.is_empty() {
        (vec![0u8; wanted], i64::try_from(int_places).ok()? - 1)
    } else {
        // the power of ten of the first digit
        let lead = pow + i64::try_from(digits.len()).ok()? - 1;
        let (kept, carried) = round_digits(digits, wanted);
        (kept, lead + i64::from(carried))
    };
    let exponent = lead - i64::try_from(int_places).ok()? + 1;
    let mut unscaled: i128 = 0;
    for d in kept.drain(..) {
        unscaled = unscaled.checked_mul(10)?.checked_add(i128::from(d))?;
    }
    if negative {
        unscaled = -unscaled;
    }
    let m = write(unscaled, u32::try_from(frac_places).ok()?, mantissa_mask)?;
    let e = write(i128::from(exponent), 0, exp_mask)?;
    let e_char = if fmt.contains('e') { 'e' } else { 'E' };
    // a negative exponent needs a sign element to be written
    if m.starts_with('*') || e.starts_with('*') || exponent < 0 && !exp_signed {
        return Some("*".repeat(m.chars().count() + 1 + e.chars().count()));
    }
    Some(format!("{m}{e_char}{e}"))
}

/// Writes a number, given as its digits and scale (`(12345, 2)` is 123.45) and sign, by `fmt`.
///
/// # Errors
/// `None` for a mask with an element this module does not know (`X`, …).
pub(crate) fn write(unscaled: i128, scale: u32, fmt: &str) -> Option<String> {
    if split_exponent(fmt).is_some() {
        let digits = unscaled.unsigned_abs().to_string();
        return scientific(unscaled < 0, &digits, -i64::from(scale), fmt);
    }
    let places = places(fmt)?;
    let (point, int_places, frac_places) = digit_places(&places);
    let frac_places = u32::try_from(frac_places).ok()?;
    // round to the mask's fraction digits, half away from zero
    let negative = unscaled < 0;
    let magnitude = unscaled.unsigned_abs();
    let value = if frac_places >= scale {
        magnitude.checked_mul(10u128.checked_pow(frac_places - scale)?)?
    } else {
        let div = 10u128.checked_pow(scale - frac_places)?;
        let (q, r) = (magnitude / div, magnitude % div);
        q + u128::from(r * 2 >= div)
    };
    let digits = value.to_string();
    let digits = crate::limits::pad_start(&digits, frac_places as usize + 1, '0');
    let (int_digits, frac_digits) = digits.split_at(digits.len() - frac_places as usize);
    let int_digits = int_digits.trim_start_matches('0');
    if int_digits.len() > int_places {
        return Some("*".repeat(places.len()));
    }
    let int_digits = crate::limits::pad_start(int_digits, int_places, '0');
    let mut int_iter = int_digits.chars();
    let mut frac_iter = frac_digits.chars();
    let sign_char = if negative { '-' } else { '+' };
    let mut out: Vec<char> = Vec::with_capacity(places.len());
    let mut started = false;
    let mut floating: Option<(usize, char)> = None;
    for (i, place) in places.iter().enumerate() {
        let in_int = i < point;
        match *place {
            Place::Digit | Place::Suppressed => {
                let d = if in_int {
                    int_iter.next()
                } else {
                    frac_iter.next()
                }
                .unwrap_or('0');
                if !in_int || *place == Place::Digit || d != '0' || started {
                    if in_int && !started {
                        started = true;
                        // a floating sign goes just left of the first digit
                        if let Some((_, sym)) = floating {
                            if let Some(slot) = out.iter().rposition(|&c| c == ' ') {
                                out[slot] = sym;
                            }
                            floating = Some((usize::MAX, sym));
                        }
                    }
                    out.push(d);
                } else {
                    out.push(' ');
                }
            }
            Place::Floating(c) => {
                let sym = match c {
                    '$' => '$',
                    '-' if negative => '-',
                    '-' => ' ',
                    _ => sign_char,
                };
                floating = Some((i, sym));
                out.push(' ');
            }
            Place::Minus => out.push(if negative { '-' } else { ' ' }),
            Place::Sign => out.push(sign_char),
            Place::Group => out.push(if started { ',' } else { ' ' }),
            Place::Point => {
                // no digit yet: a floating sign still goes before the point
                if let Some((slot, sym)) = floating {
                    if slot != usize::MAX {
                        if let Some(s) = out.iter().rposition(|&c| c == ' ') {
                            out[s] = sym;
                        }
                        floating = Some((usize::MAX, sym));
                    }
                }
                started = true;
                out.push('.');
            }
            Place::Implied => {}
            Place::Literal(c) => out.push(c),
        }
    }
    // a mask with no point and no digit written: the floating sign still shows
    if let Some((slot, sym)) = floating {
        if slot != usize::MAX && sym != ' ' {
            if let Some(s) = out.iter().rposition(|&c| c == ' ') {
                out[s] = sym;
            }
        }
    }
    Some(out.into_iter().collect())
}

/// Reads text a numeric mask wrote: drops currency signs, group separators and blanks, keeps
/// the sign, digits and point (`" $1,234.50-"` is `-1234.50`; `"1.5E-003"` is `1.5E-3`).
/// Text without a digit is returned as it is (`'abc'` stays no number; blanks stay blanks,
/// which read as 0).
pub(crate) fn read(text: &str) -> String {
    if !text.bytes().any(|b| b.is_ascii_digit()) {
        return text.to_string();
    }
    if let Some((m, e)) = text.split_once(['E', 'e']) {
        return format!("{}E{}", read(m), read(e));
    }
    let negative = text.contains('-');
    let digits: String = text
        .chars()
        .filter(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    if negative {
        format!("-{digits}")
    } else {
        digits
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(v: i128, scale: u32, fmt: &str) -> String {
        write(v, scale, fmt).expect("a known mask")
    }

    #[test]
    fn teradata_masks() {
        assert_eq!(w(123456, 3, "ZZZ9.99"), " 123.46");
        assert_eq!(w(5, 1, "ZZZ9.99"), "   0.50");
        assert_eq!(w(5, 0, "9(5)"), "00005");
        assert_eq!(w(-12, 0, "-(8)9"), "      -12");
        assert_eq!(w(12, 0, "-(8)9"), "       12");
        assert_eq!(w(123450, 2, "$$$,$$9.99"), " $1,234.50");
        assert_eq!(w(123450, 2, "ZZZ,ZZ9.99"), "  1,234.50");
        assert_eq!(w(12345, 2, "ZZZ,ZZ9.99"), "    123.45");
        assert_eq!(w(0, 0, "ZZZZ"), "    ");
        assert_eq!(
            w(-5, 0, "ZZ9"),
            "  5",
            "no sign element: the sign is not written"
        );
        assert_eq!(w(-5, 0, "ZZ9-"), "  5-");
        assert_eq!(w(5, 0, "S999"), "+005");
        assert_eq!(w(12345, 2, "999V99"), "12345");
        assert_eq!(w(123456, 0, "ZZ9"), "***", "too many digits");
        assert_eq!(w(-1, 2, "-.99"), "-.01");
        assert_eq!(w(45, 2, "99.9%"), "00.5%");
    }

    #[test]
    fn exponent_masks() {
        let float = "-9.99999999999999E-999";
        assert_eq!(
            write_float(1234.5, float).unwrap(),
            " 1.23450000000000E 003"
        );
        assert_eq!(
            write_float(-0.00015, float).unwrap(),
            "-1.50000000000000E-004"
        );
        assert_eq!(write_float(0.0, float).unwrap(), " 0.00000000000000E 000");
        assert_eq!(write_float(1e300, float).unwrap(), " 1.00000000000000E 300");
        assert_eq!(
            write_float(9.996, "9.99E99").unwrap(),
            "1.00E01",
            "rounding carries"
        );
        assert_eq!(
            write_float(1e100, "9.99E99").unwrap(),
            "*******",
            "exponent too big"
        );
        assert_eq!(w(123450, 2, "99.9E+99"), "12.3E+02", "two integer places");
        assert_eq!(w(-5, 0, "-9.9E-9"), "-5.0E 0");
        assert_eq!(w(1234, 1, ".999E99"), ".123E03");
        assert!(write_float(f64::NAN, float).is_none());
        assert_eq!(
            w(123, 6, "9.99E99"),
            "*******",
            "1.23E-04 has no sign to write"
        );
        assert_eq!(w(5, 0, "ZZ9.99E-99"), "500.00E-02");
        assert_eq!(w(5, 0, "ZZ9.99E99"), "*********");
        assert!(write(5, 0, "9.99E").is_none(), "an exponent without digits");
        assert!(write(5, 0, "$E99").is_none(), "a mantissa without digits");
        assert!(
            write_float(1.0, "9.99").is_none(),
            "no exponent: the caller's path"
        );
    }

    #[test]
    fn masks_and_reading_back() {
        assert!(is_numeric("ZZZ9.99"));
        assert!(is_numeric("-(8)9"));
        assert!(!is_numeric("YYYY-MM-DD"));
        assert!(!is_numeric("X(10)"));
        assert!(write(1, 0, "9X99").is_none());
        assert_eq!(read("-1.50000000000000E-003"), "-1.50000000000000E-003");
        assert_eq!(read(" 1.5E 003"), "1.5E003");
        assert_eq!(read(" $1,234.50"), "1234.50");
        assert_eq!(read("     -12"), "-12");
        for (v, s, f) in [(123450i128, 2u32, "$$$,$$9.99"), (-12, 0, "-(8)9")] {
            let text = w(v, s, f);
            let back = read(&text);
            let expected = if s == 0 {
                v.to_string()
            } else {
                format!("{}.{:02}", v / 100, (v % 100).abs())
            };
            assert_eq!(back, expected);
        }
    }
}
