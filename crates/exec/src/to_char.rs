//! `TO_CHAR`, `TO_DATE`, `TO_TIMESTAMP` and `TO_NUMBER`: the Oracle-style conversions Teradata
//! has had since 14.0, with Oracle's format models (`'YYYY-MM-DD HH24:MI:SS'`, `'FM999,990.00'`).
//!
//! The models TO_NUMBER, TO_DATE and TO_TIMESTAMP read by are translated into the Teradata
//! FORMAT mask that means the same (`MON` → `MMM`, `HH24` → `HH`, `FF3` → `S(3)`, `0` → `9`,
//! …), and the call becomes a CAST with that FORMAT, so both spellings share one
//! implementation (format.rs, numfmt.rs). TO_CHAR writes element by element instead
//! (to_char_date.rs, to_char_number.rs: its models have elements no mask has).
//!
//! Invariant: a model element tdlite cannot translate is an error (9910) naming it, never
//! silently written as text. `FM` (no padding) trims a number's text.

use crate::error::{Error, Result};

/// The two-digit year of TO_DATE's Oracle models (`YY`, `RR`) in a mask: read as Oracle's `RR`
/// (00–49 → 20yy, 50–99 → 19yy), not by Teradata's CenturyBreak. A control character starts
/// it, so no FORMAT a user writes has it.
pub(crate) const ORACLE_YY: &str = "\u{1}YY";

/// Oracle's `MONTH` and `DAY` in a mask: the full name padded with blanks to the longest one's
/// width (nine: September, Wednesday), as Oracle's and Teradata's TO_CHAR write them. A
/// control character starts each, so no FORMAT a user writes has them.
pub(crate) const PADDED_MONTH: &str = "\u{1}MMMM";
pub(crate) const PADDED_DAY: &str = "\u{1}EEEE";

/// Date and time elements, longest first so that `MONTH` is not read as `MON` + `TH`. Oracle's
/// two-digit years (`YY`, `RR`) read as Oracle's `RR` does ([`ORACLE_YY`]); `AM`/`PM`
/// is Teradata's `T`, which makes the mask's `HH` the 12-hour one.
const DATE_ELEMENTS: [(&str, &str); 19] = [
    ("MONTH", PADDED_MONTH),
    ("YYYY", "YYYY"),
    ("HH24", "HH"),
    ("HH12", "HH"),
    ("DDD", "DDD"),
    ("DAY", PADDED_DAY),
    ("MON", "MMM"),
    ("YY", ORACLE_YY),
    ("HH", "HH"),
    ("AM", "T"),
    ("PM", "T"),
    ("MM", "MM"),
    ("DD", "DD"),
    ("DY", "EEE"),
    ("MI", "MI"),
    ("SS", "SS"),
    ("FF", "S(6)"),
    ("RR", ORACLE_YY),
    ("Y", "Y"),
];

/// True if `model` is a number model (digit places and separators, no date element).
pub(crate) fn is_number_model(model: &str) -> bool {
    let up = model.to_ascii_uppercase();
    let body = up.trim_start_matches("FM");
    // at least one digit place: `D` alone is the day of the week, not a radix
    body.contains(['9', '0'])
        && body
            .chars()
            .all(|c| matches!(c, '9' | '0' | ',' | '.' | 'D' | 'G' | '$' | 'S' | '-' | 'B'))
}

/// The Teradata FORMAT mask for an Oracle date/time model.
///
/// # Errors
/// 9910 for an element with no Teradata counterpart: the 12-hour clock without `AM`/`PM`
/// (Teradata's mask writes it only beside its `T`), quoted text (its letters would read as
/// mask elements), `J`, `Q`, `D`, `CC`, `WW`, ….
pub(crate) fn date_mask(model: &str) -> Result<String> {
    let up = model.to_ascii_uppercase();
    let twelve = up.replace("HH24", "").contains("HH");
    if twelve && !(up.contains("AM") || up.contains("PM")) {
        return Err(Error::Unsupported(format!(
            "the 12-hour clock without AM or PM in '{model}'"
        )));
    }
    let chars: Vec<char> = up.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    'outer: while i < chars.len() {
        let c = chars[i];
        if matches!(c, '-' | '/' | ':' | ',' | '.' | ';' | ' ') {
            out.push(if c == ' ' { 'B' } else { c });
            i += 1;
            continue;
        }
        let rest: String = chars[i..].iter().collect();
        if let Some(n) = rest
            .strip_prefix("FF")
            .and_then(|r| r.chars().next())
            .and_then(|d| d.to_digit(10))
        {
            out.push_str(&format!("S({})", n.clamp(1, 6)));
            i += 3;
            continue;
        }
        for (element, mask) in DATE_ELEMENTS {
            if rest.starts_with(element) {
                out.push_str(mask);
                i += element.len();
                continue 'outer;
            }
        }
        return Err(Error::Unsupported(format!(
            "the format model element at '{rest}' in '{model}'"
        )));
    }
    Ok(out)
}

/// The digits after the radix (`.` or `D`) of a number model: TO_NUMBER's DECIMAL scale.
pub(crate) fn fraction_digits(model: &str) -> i8 {
    let up = model.to_ascii_uppercase();
    let n = up.find(['.', 'D']).map_or(0, |at| {
        up[at + 1..]
            .chars()
            .filter(|c| matches!(c, '9' | '0'))
            .count()
    });
    n.min(37) as i8
}

/// The Teradata numeric mask for an Oracle number model, and whether `FM` asks for no padding.
///
/// Oracle writes a `9` before the first `0` of the integer part as a blank while no digit came
/// yet, keeps a place for the sign, and writes the sign just left of the first digit: in
/// Teradata's mask that is a floating `-` run (`'999'` → `'---9'`: 12 is `"  12"`, -12
/// `" -12"`). The last integer place is always a digit (0 is `"   0"`, as in Oracle).
pub(crate) fn number_mask(model: &str) -> (String, bool) {
    let up = model.to_ascii_uppercase();
    let (body, fm) = match up.strip_prefix("FM") {
        Some(b) => (b, true),
        None => (up.as_str(), false),
    };
    let signed = body.contains(['S', '-']);
    let point = body.find(['.', 'D']).unwrap_or(body.len());
    let int_digits: Vec<usize> = body[..point]
        .char_indices()
        .filter(|(_, c)| matches!(c, '9' | '0'))
        .map(|(i, _)| i)
        .collect();
    // integer places from here on are written even when zero
    let forced = body[..point]
        .find('0')
        .or(int_digits.last().copied())
        .unwrap_or(point);
    let mut mask = String::with_capacity(body.len() + 1);
    if !signed {
        mask.push('-');
    }
    for (i, c) in body.char_indices() {
        mask.push(match c {
            '9' | '0' if i < forced && !signed => '-',
            '9' | '0' if i < forced => 'Z',
            '0' => '9',
            'D' => '.',
            'G' => ',',
            other => other,
        });
    }
    (mask, fm)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn date_models_become_teradata_masks() {
        assert_eq!(date_mask("YYYY-MM-DD").unwrap(), "YYYY-MM-DD");
        assert_eq!(date_mask("DD-MON-YY").unwrap(), "DD-MMM-\u{1}YY");
        assert_eq!(
            date_mask("yyyy-mm-dd hh24:mi:ss").unwrap(),
            "YYYY-MM-DDBHH:MI:SS"
        );
        assert_eq!(date_mask("Month DD, YYYY").unwrap(), "\u{1}MMMMBDD,BYYYY");
        assert_eq!(date_mask("HH24:MI:SS.FF3").unwrap(), "HH:MI:SS.S(3)");
        assert_eq!(date_mask("DY DAY").unwrap(), "EEEB\u{1}EEEE");
        assert_eq!(date_mask("HH:MI AM").unwrap(), "HH:MIBT");
        assert_eq!(date_mask("HH12:MI:SS PM").unwrap(), "HH:MI:SSBT");
        assert_eq!(date_mask("DD-MON-RR").unwrap(), "DD-MMM-\u{1}YY");
        assert!(date_mask("HH12:MI").is_err(), "a 12-hour clock needs AM/PM");
        assert!(date_mask("HH:MI").is_err());
        assert!(date_mask("YYYY\"year\"").is_err());
        assert!(date_mask("Q").is_err());
    }

    #[test]
    fn number_models_become_teradata_masks() {
        assert!(is_number_model("999,990.00"));
        assert!(is_number_model("FM9999"));
        assert!(!is_number_model("YYYY"));
        assert_eq!(
            number_mask("999,990.00"),
            ("----,--9.99".to_string(), false)
        );
        assert_eq!(number_mask("FM9999"), ("----9".to_string(), true));
        assert_eq!(number_mask("S0009"), ("S9999".to_string(), false));
        assert_eq!(number_mask("999"), ("---9".to_string(), false));
    }
}
