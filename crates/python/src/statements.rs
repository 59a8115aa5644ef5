//! The connection's prepared requests, by their text: `cursor.execute(sql, params)` (and
//! `executemany`) with a text run before reuses its `tdlite::Prepared`, so the request is not
//! parsed again and its SELECT blocks run from the plans its earlier executions kept (the
//! engine's plan cache), as sqlite3's `cached_statements` keeps statements.
//!
//! Invariant: at most [`CAPACITY`] texts are kept; a new one beyond that replaces the one used
//! least recently. A text that fails to parse is never kept (each run reports its error).

use std::collections::HashMap;
use std::sync::Arc;
use tdlite::{PositionedError, Prepared, Session};

/// How many request texts a connection keeps prepared.
pub(crate) const CAPACITY: usize = 128;

/// The prepared requests of one connection (see the module doc).
#[derive(Default)]
pub(crate) struct Statements {
    /// Text → (last use, the prepared request).
    kept: HashMap<String, (u64, Arc<Prepared>)>,
    /// Counts uses, to find the least recently used text.
    clock: u64,
}

impl Statements {
    /// `sql` prepared on `session`: the kept request if the text was prepared before.
    ///
    /// # Errors
    /// What `Session::prepare` gives for a text that does not parse.
    pub(crate) fn prepare(
        &mut self,
        session: &mut Session,
        sql: &str,
    ) -> Result<Arc<Prepared>, PositionedError> {
        self.clock += 1;
        if let Some((used, p)) = self.kept.get_mut(sql) {
            *used = self.clock;
            return Ok(p.clone());
        }
        let p = Arc::new(session.prepare(sql)?);
        if self.kept.len() >= CAPACITY {
            let oldest = self
                .kept
                .iter()
                .min_by_key(|(_, (used, _))| *used)
                .map(|(text, _)| text.clone());
            if let Some(text) = oldest {
                self.kept.remove(&text);
            }
        }
        self.kept.insert(sql.to_string(), (self.clock, p.clone()));
        Ok(p)
    }
}
