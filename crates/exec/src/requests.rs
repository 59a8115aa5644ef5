//! A session's kept requests, by their text: [`Session::execute`](crate::Session::execute) of a
//! text run before (and [`Session::prepare_cached`](crate::Session::prepare_cached), which the
//! Python package's `cursor.execute` uses) reuses its [`Prepared`], so the request is not
//! parsed again and its SELECT blocks run from the plans its earlier runs kept (plan_cache.rs),
//! as sqlite3's `cached_statements` keeps statements.
//!
//! Invariants: at most [`CAPACITY`] texts are kept, none longer than [`MAX_TEXT`] bytes; a new
//! one beyond that replaces the one used least recently. A text that fails to parse is never
//! kept (each run reports its error). Parsing depends on the text and the session's strict
//! mode alone (a change of that mode forgets every kept text), so a kept request is the one
//! parsing the text again would give; what binding depends on is checked by the plan cache at
//! each run.

use crate::prepared::Prepared;
use std::collections::HashMap;
use std::sync::Arc;

/// How many request texts a session keeps.
pub(crate) const CAPACITY: usize = 128;

/// The longest text kept: a longer one (a generated script, a big multi-row INSERT) is
/// parsed at each run rather than held.
pub(crate) const MAX_TEXT: usize = 16 * 1024;

/// The kept requests of one session (see the module doc).
#[derive(Default)]
pub(crate) struct Requests {
    /// Text → (last use, the prepared request).
    kept: HashMap<String, (u64, Arc<Prepared>)>,
    /// Counts uses, to find the least recently used text.
    clock: u64,
}

impl Requests {
    /// The request kept for `sql`, if any (counted as a use).
    pub(crate) fn get(&mut self, sql: &str) -> Option<Arc<Prepared>> {
        self.clock += 1;
        let (used, p) = self.kept.get_mut(sql)?;
        *used = self.clock;
        Some(p.clone())
    }

    /// Keeps `p` for `sql` (if the text is short enough), dropping the least recently used
    /// text when full.
    pub(crate) fn keep(&mut self, sql: &str, p: Arc<Prepared>) {
        if sql.len() > MAX_TEXT {
            return;
        }
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
        self.clock += 1;
        self.kept.insert(sql.to_string(), (self.clock, p));
    }

    /// Forgets every kept text.
    pub(crate) fn clear(&mut self) {
        self.kept.clear();
    }

    /// How many texts are kept.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.kept.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prepared() -> Arc<Prepared> {
        Arc::new(Prepared::new(Vec::new(), ""))
    }

    #[test]
    fn the_least_recently_used_text_goes_first_and_long_texts_are_not_kept() {
        let mut r = Requests::default();
        for i in 0..CAPACITY {
            r.keep(&format!("q{i}"), prepared());
        }
        // q0 used again: q1 is now the least recently used
        assert!(r.get("q0").is_some());
        r.keep("new", prepared());
        assert_eq!(r.len(), CAPACITY);
        assert!(r.get("q1").is_none() && r.get("q0").is_some() && r.get("new").is_some());
        let long = "x".repeat(MAX_TEXT + 1);
        r.keep(&long, prepared());
        assert!(r.get(&long).is_none());
        assert!(r.get("q2").is_some(), "a text not kept pushes none out");
    }
}
