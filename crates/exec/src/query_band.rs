//! A session's query bands (`SET QUERY_BAND = 'k=v;…' [UPDATE] FOR SESSION | TRANSACTION`),
//! as `GetQueryBand()` returns them. Teradata uses them to tag requests for workload
//! management, which tdlite does not have: they are kept and shown, never acted on.
//!
//! Invariant: `text` is always the bands as `GetQueryBand()` writes them: `=T> pairs` for the
//! transaction's, then `=S> pairs` for the session's, each pair `name=value;` (empty when
//! there are none).

/// The session's and the open transaction's `name=value` pairs.
#[derive(Debug, Default)]
pub(crate) struct QueryBands {
    session: Vec<(String, String)>,
    transaction: Vec<(String, String)>,
    text: String,
}

/// `k=v; k2 = v2;` as pairs (blank entries skipped; an entry without `=` is a name with an
/// empty value).
fn pairs(text: &str) -> Vec<(String, String)> {
    text.split(';')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|p| match p.split_once('=') {
            Some((k, v)) => (k.trim().to_string(), v.trim().to_string()),
            None => (p.to_string(), String::new()),
        })
        .collect()
}

impl QueryBands {
    /// `SET QUERY_BAND`: `text` None is NONE (removes the bands); `update` keeps the pairs
    /// the new text does not name.
    pub(crate) fn set(&mut self, text: Option<&str>, update: bool, session: bool) {
        let target = if session {
            &mut self.session
        } else {
            &mut self.transaction
        };
        match text {
            None => target.clear(),
            Some(t) if update => {
                for (k, v) in pairs(t) {
                    match target.iter_mut().find(|(n, _)| n.eq_ignore_ascii_case(&k)) {
                        Some(pair) => pair.1 = v,
                        None => target.push((k, v)),
                    }
                }
            }
            Some(t) => *target = pairs(t),
        }
        self.render();
    }

    /// The transaction ended: its bands go.
    pub(crate) fn end_transaction(&mut self) {
        if !self.transaction.is_empty() {
            self.transaction.clear();
            self.render();
        }
    }

    /// What `GetQueryBand()` returns.
    pub(crate) fn text(&self) -> &str {
        &self.text
    }

    fn render(&mut self) {
        let mut text = String::new();
        for (mark, bands) in [("=T>", &self.transaction), ("=S>", &self.session)] {
            if bands.is_empty() {
                continue;
            }
            if !text.is_empty() {
                text.push(' ');
            }
            text.push_str(mark);
            text.push(' ');
            for (k, v) in bands {
                text.push_str(&format!("{k}={v};"));
            }
        }
        self.text = text;
    }
}

#[cfg(test)]
mod tests {
    use super::QueryBands;

    #[test]
    fn bands_set_update_and_end_with_their_transaction() {
        let mut b = QueryBands::default();
        assert_eq!(b.text(), "");
        b.set(Some("org=acme; appname=dbt;"), false, true);
        assert_eq!(b.text(), "=S> org=acme;appname=dbt;");
        b.set(Some("appname=etl;job=7"), true, true);
        assert_eq!(b.text(), "=S> org=acme;appname=etl;job=7;");
        b.set(Some("step=2;"), false, false);
        assert_eq!(b.text(), "=T> step=2; =S> org=acme;appname=etl;job=7;");
        b.end_transaction();
        assert_eq!(b.text(), "=S> org=acme;appname=etl;job=7;");
        b.set(Some("only=1;"), false, true);
        assert_eq!(b.text(), "=S> only=1;");
        b.set(None, false, true);
        assert_eq!(b.text(), "");
    }
}
