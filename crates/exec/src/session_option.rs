//! What Teradata's session SET statements do here (`SET SESSION DATEFORM`, `… ISOLATION
//! LEVEL`, `… COLLATION`, `SET TIME ZONE`; the parser's session_set.rs reads them). Each is
//! accepted where tdlite already behaves as the setting asks, and refused (9910) where it
//! would have to behave otherwise:
//!
//! - DATEFORM = ANSIDATE: dates are written and read in ANSI form already; INTEGERDATE is 9910.
//! - ISOLATION LEVEL SERIALIZABLE or READ UNCOMMITTED: accepted. A plain read sees one
//!   committed snapshot and never waits for a writer (what `LOCKING … FOR ACCESS` gives), which
//!   both levels allow (READ UNCOMMITTED permits dirty reads, it does not require them).
//! - COLLATION ASCII, HOST or CHARSET_COLL: accepted (character data compares as tdlite's
//!   rules say, case blind unless CASESPECIFIC); other collations are 9910.
//! - TIME ZONE LOCAL, USER, an offset of zero, or 'UTC'/'GMT': accepted (tdlite's clock is
//!   UTC); any other zone is 9910.
//!
//! Invariant: an accepted setting changes no answer; a setting that would is refused.

use crate::error::{Error, Result};
use crate::result::{StatementKind, StatementResult};
use tdlite_parser::SessionOption;

/// The result of a session SET statement.
///
/// # Errors
/// 9910 for a setting tdlite does not follow.
pub(crate) fn apply(option: &SessionOption) -> Result<StatementResult> {
    let refuse = |what: String| Err(Error::Unsupported(what));
    match option {
        SessionOption::DateForm { ansi: true } | SessionOption::Isolation { .. } => {}
        SessionOption::DateForm { ansi: false } => {
            return refuse("SET SESSION DATEFORM = INTEGERDATE (dates are in ANSI form)".into())
        }
        SessionOption::Collation(c) => {
            if !matches!(c.as_str(), "ASCII" | "HOST" | "CHARSET_COLL") {
                return refuse(format!("SET SESSION COLLATION {c}"));
            }
        }
        SessionOption::TimeZone(z) => {
            // an offset of zero however written (`'+0:00'`, `'00:00'`), or a zone that is UTC
            let zero = |z: &str| {
                z.strip_prefix("INTERVAL '")
                    .and_then(|r| r.split('\'').next())
                    .is_some_and(|o| {
                        o.trim_start_matches(['+', '-'])
                            .split(':')
                            .all(|part| !part.is_empty() && part.bytes().all(|b| b == b'0'))
                    })
            };
            let utc = ["UTC", "GMT", "ETC/UTC", "ETC/GMT", "Z"];
            let named_utc = utc.iter().any(|u| z.eq_ignore_ascii_case(u));
            if !(z == "LOCAL" || z == "USER" || zero(z) || named_utc) {
                return refuse(format!("SET TIME ZONE {z} (the clock is UTC)"));
            }
            return Ok(StatementResult::status(StatementKind::SetTimeZone));
        }
    }
    Ok(StatementResult::status(StatementKind::SetSessionOption))
}
