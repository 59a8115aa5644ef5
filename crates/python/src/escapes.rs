//! teradatasql's escape functions at the start of a request that tools still send:
//! `{fn teradata_nativesql}` (return the request's text instead of running it),
//! `{fn teradata_autocommit_on}`, `{fn teradata_autocommit_off}` (set the connection's
//! autocommit) and `{fn teradata_autocommit}` (return it as `true`/`false`);
//! `{fn teradata_try_fastload}` and `{fn teradata_require_fastload}` are read past (an INSERT
//! batch then runs as any batch: tdlite has no FastLoad protocol, and needs none). Any other
//! `{fn teradata_…}` is `NotSupportedError`, never sent on as SQL.
//!
//! Invariant: a request without a leading `{fn …}` is returned untouched.

use crate::errors;
use pyo3::prelude::*;

/// What the escapes at the start of a request ask for.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Escapes {
    /// `{fn teradata_nativesql}`: answer with the text, run nothing.
    pub native_sql: bool,
    /// `{fn teradata_autocommit_on|off}`: the new autocommit setting.
    pub set_autocommit: Option<bool>,
    /// `{fn teradata_autocommit}`: answer with the autocommit setting.
    pub get_autocommit: bool,
}

/// The escapes at the start of `sql`, and the text after them.
///
/// # Errors
/// `NotSupportedError` for an escape function tdlite does not have.
pub(crate) fn split(sql: &str) -> PyResult<(Escapes, &str)> {
    let mut found = Escapes::default();
    let mut rest = sql.trim_start();
    while let Some(body) = rest.strip_prefix('{') {
        let Some(end) = body.find('}') else { break };
        let inner = body[..end].trim();
        let Some(name) = inner
            .get(..2)
            .filter(|f| f.eq_ignore_ascii_case("fn"))
            .map(|_| inner[2..].trim().to_ascii_lowercase())
        else {
            break;
        };
        match name.as_str() {
            "teradata_nativesql" => found.native_sql = true,
            "teradata_autocommit_on" => found.set_autocommit = Some(true),
            "teradata_autocommit_off" => found.set_autocommit = Some(false),
            "teradata_autocommit" => found.get_autocommit = true,
            // FastLoad is a bulk protocol to a Teradata system: a batch INSERT is already one
            "teradata_try_fastload" | "teradata_require_fastload" => {}
            other => {
                return Err(errors::not_supported(format!(
                    "the escape function {{fn {other}}} is not supported by tdlite"
                )))
            }
        }
        rest = body[end + 1..].trim_start();
    }
    Ok((found, rest))
}
