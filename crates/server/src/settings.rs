//! A connection's session settings, from the parameters of its startup message.
//!
//! A client may set, as startup parameters of their own or as `-c name=value` items of the
//! `options` parameter (how psql and psycopg pass them: `options='-c tmode=ANSI'`):
//! `tmode` (`TERA`, `ANSI` or `DEFAULT`), `default_database` (the session's default
//! database, as `DATABASE x`; not PostgreSQL's `database` parameter, which libpq fills with
//! the user's name when none is given, and which tdlite ignores),
//! `consume_timeout` (seconds a consume waits on an empty queue before 9904) and `strict`
//! (`true`/`false`, `on`/`off`, `1`/`0`: refuse tdlite's extensions). Other names (the
//! `application_name`, `client_encoding` … that drivers send) are left alone.
//!
//! Invariant: a value that cannot be read refuses the login (a startup error naming it);
//! nothing of a refused setting reaches the session. On a server with users the settings are
//! applied only after the password is proved (at the first request), so that a client
//! without one learns nothing of the database (not even whether a database exists).

use std::collections::BTreeMap;
use std::time::Duration;
use tdlite::{PositionedError, Session, SessionMode};

/// What a client asked its session to be.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Settings {
    /// The session mode (`tmode`); Teradata mode when not given.
    pub mode: Option<SessionMode>,
    /// The default database (`DATABASE x`).
    pub database: Option<String>,
    /// How long a consume waits on an empty queue.
    pub consume_timeout: Option<Duration>,
    /// Strict mode.
    pub strict: Option<bool>,
}

impl Settings {
    /// The settings among a startup message's `parameters`.
    ///
    /// # Errors
    /// A message naming the parameter whose value cannot be read.
    pub fn from_startup(parameters: &BTreeMap<String, String>) -> Result<Settings, String> {
        let mut named: Vec<(String, String)> = parameters
            .iter()
            .map(|(k, v)| (k.to_ascii_lowercase(), v.clone()))
            .collect();
        if let Some(options) = parameters.get("options") {
            named.extend(options_items(options));
        }
        let mut s = Settings::default();
        for (name, value) in named {
            let value = value.trim();
            match name.as_str() {
                "tmode" => {
                    s.mode = Some(match value.to_ascii_uppercase().as_str() {
                        "TERA" | "DEFAULT" | "BTET" => SessionMode::Teradata,
                        "ANSI" => SessionMode::Ansi,
                        _ => return Err(format!("tmode is TERA, ANSI or DEFAULT, not {value}")),
                    });
                }
                "default_database" if !value.is_empty() => s.database = Some(value.to_string()),
                "consume_timeout" => {
                    let secs = value
                        .parse::<f64>()
                        .ok()
                        .filter(|t| t.is_finite() && (0.0..=1e9).contains(t))
                        .ok_or_else(|| {
                            format!("consume_timeout is a number of seconds, not {value}")
                        })?;
                    s.consume_timeout = Some(Duration::from_secs_f64(secs));
                }
                "strict" => {
                    s.strict = Some(match value.to_ascii_lowercase().as_str() {
                        "true" | "on" | "1" | "yes" => true,
                        "false" | "off" | "0" | "no" => false,
                        _ => return Err(format!("strict is true or false, not {value}")),
                    });
                }
                _ => {}
            }
        }
        Ok(s)
    }

    /// True when nothing was asked for.
    pub fn is_empty(&self) -> bool {
        *self == Settings::default()
    }

    /// Sets `session` up as asked.
    ///
    /// # Errors
    /// The engine's, for a default database that does not exist (3802).
    pub fn apply(&self, session: &mut Session) -> Result<(), PositionedError> {
        // the default database first: in ANSI mode the statement would open a transaction
        if let Some(db) = &self.database {
            session.execute(&format!("DATABASE \"{}\"", db.replace('"', "\"\"")))?;
        }
        if let Some(mode) = self.mode {
            session.set_mode(mode).map_err(|error| PositionedError {
                error,
                location: None,
                statement: 1,
            })?;
        }
        if let Some(t) = self.consume_timeout {
            session.set_consume_timeout(Some(t));
        }
        if let Some(on) = self.strict {
            session.set_strict(on);
        }
        Ok(())
    }
}

/// The `name=value` items of an `options` parameter: `-c name=value`, `-cname=value` or
/// `--name=value`, separated by blanks (a `\ ` is a blank inside a value, as libpq has it).
fn options_items(options: &str) -> Vec<(String, String)> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut chars = options.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => word.extend(chars.next()),
            c if c.is_whitespace() => {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
            }
            c => word.push(c),
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    let mut out = Vec::new();
    let mut items = words.into_iter();
    while let Some(w) = items.next() {
        let item = if w == "-c" {
            items.next()
        } else {
            w.strip_prefix("--")
                .or_else(|| w.strip_prefix("-c"))
                .map(str::to_string)
        };
        if let Some((name, value)) = item.as_deref().and_then(|i| i.split_once('=')) {
            out.push((
                name.trim().replace('-', "_").to_ascii_lowercase(),
                value.to_string(),
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn startup(pairs: &[(&str, &str)]) -> Result<Settings, String> {
        let map = pairs
            .iter()
            .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
            .collect();
        Settings::from_startup(&map)
    }

    #[test]
    fn parameters_and_options_are_read() {
        let s = startup(&[
            ("user", "me"),
            ("tmode", "ansi"),
            // libpq's database name (the user's by default): not tdlite's default database
            ("database", "me"),
            (
                "options",
                "-c consume_timeout=2.5 --strict=on -cdefault_database=my\\ db",
            ),
        ])
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(s.mode, Some(SessionMode::Ansi));
        assert_eq!(s.consume_timeout, Some(Duration::from_millis(2500)));
        assert_eq!(s.strict, Some(true));
        assert_eq!(s.database.as_deref(), Some("my db"));
        assert!(startup(&[("application_name", "psql")])
            .unwrap_or_else(|e| panic!("{e}"))
            .is_empty());
    }

    #[test]
    fn bad_values_are_refused_by_name() {
        for (k, v) in [
            ("tmode", "X"),
            ("consume_timeout", "-1"),
            ("consume_timeout", "soon"),
            ("strict", "maybe"),
        ] {
            let e = startup(&[(k, v)]).err().unwrap_or_default();
            assert!(e.contains(k), "{k}={v}: {e}");
        }
        let e = startup(&[("options", "-c tmode=X")])
            .err()
            .unwrap_or_default();
        assert!(e.contains("tmode"), "{e}");
    }
}
