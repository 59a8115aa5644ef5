//! What a connection talks to: a tdlite session in this process, or one on a `tdlite serve`
//! server (tdlite-client), behind one set of calls, so that the cursor and the connection
//! are the same code for both.
//!
//! A request's results are [`Answer`]s (one per statement: its activity name and count, its
//! rows as Arrow), its failure a [`Failure`] with the Teradata code. A remote session's
//! settings (`tmode`, `database`, `consume_timeout`, `strict`) go to the server at login; the
//! server keeps them for the session.
//!
//! Invariant: many parameter sets (executemany) are one transaction in Teradata mode, local
//! or remote: a failing set leaves none of them.

use tdlite::{Rows, Session, SessionMode, StatementResult, Value};
use tdlite_client::Client;

/// One statement's result.
pub(crate) struct Answer {
    /// Its kind, as teradatasql's `activityname` (`Select`, `Insert`, `CreateTable`, …).
    pub(crate) activity: String,
    /// Rows returned or changed.
    pub(crate) activity_count: u64,
    /// The rows, for a statement that returns some.
    pub(crate) rows: Option<Rows>,
}

impl From<StatementResult> for Answer {
    fn from(r: StatementResult) -> Self {
        Answer {
            activity: format!("{:?}", r.kind),
            activity_count: r.activity_count,
            rows: r.rows,
        }
    }
}

/// Why a request gave no results.
pub(crate) enum Failure {
    /// The connection was closed.
    Closed,
    /// The database's error: the session's number, the Teradata code, the message.
    Database(u64, u32, String),
    /// A remote connection failed (or the server spoke out of turn).
    Connection(String),
    /// A parameter value that cannot go to a server (nothing was sent).
    Value(String),
    /// The thread that ran it panicked (a bug: the engine promises no panics).
    Panicked,
}

/// A session here or on a server.
pub(crate) enum Backend {
    Local(Box<Session>),
    Remote(Box<Remote>),
}

/// A session on a server, and what it was given at login.
pub(crate) struct Remote {
    pub(crate) client: Client,
    /// The mode asked for at login (the server reports a change: `Client::reported_mode`).
    pub(crate) mode: SessionMode,
    pub(crate) strict: bool,
}

impl Remote {
    /// The session's mode: as the server last reported it, else as asked at login.
    fn mode(&self) -> SessionMode {
        match self.client.reported_mode() {
            Some("ANSI") => SessionMode::Ansi,
            Some("TERA") => SessionMode::Teradata,
            _ => self.mode,
        }
    }
}

/// Stops a backend's running request from another thread.
#[derive(Clone)]
pub(crate) enum Canceller {
    Local(tdlite::CancelHandle),
    Remote(tdlite_client::CancelToken),
}

impl Canceller {
    /// Cancels the running request (a waiting consume ends with 9905); true if something was
    /// stopped (remote: if the server was asked).
    pub(crate) fn cancel(&self) -> bool {
        match self {
            Canceller::Local(h) => h.cancel(),
            Canceller::Remote(t) => t.cancel().is_ok(),
        }
    }

    /// Whether a cancel costs a connection to a server (then not repeated often).
    pub(crate) fn is_remote(&self) -> bool {
        matches!(self, Canceller::Remote(_))
    }
}

impl Backend {
    /// The session's number (a remote one's: its server process id).
    pub(crate) fn id(&self) -> u64 {
        match self {
            Backend::Local(s) => s.id(),
            Backend::Remote(r) => u64::try_from(r.client.process_id()).unwrap_or(0),
        }
    }

    pub(crate) fn mode(&self) -> SessionMode {
        match self {
            Backend::Local(s) => s.mode(),
            Backend::Remote(r) => r.mode(),
        }
    }

    /// Inside a BT … ET (Teradata mode) or a transaction (ANSI mode).
    pub(crate) fn in_transaction(&self) -> bool {
        match self {
            Backend::Local(s) => s.in_explicit_transaction(),
            Backend::Remote(r) => r.client.in_transaction(),
        }
    }

    /// Whether COMMIT or ROLLBACK has something to end (a remote ANSI session: always asked,
    /// the server does nothing outside a transaction).
    pub(crate) fn has_open_work(&self) -> bool {
        match self {
            Backend::Local(s) => s.in_explicit_transaction() || s.has_uncommitted_work(),
            Backend::Remote(r) => r.mode() == SessionMode::Ansi || r.client.in_transaction(),
        }
    }

    pub(crate) fn canceller(&self) -> Canceller {
        match self {
            Backend::Local(s) => Canceller::Local(s.cancel_handle()),
            Backend::Remote(r) => Canceller::Remote(r.client.cancel_token()),
        }
    }

    pub(crate) fn is_strict(&self) -> bool {
        match self {
            Backend::Local(s) => s.is_strict(),
            Backend::Remote(r) => r.strict,
        }
    }

    /// Runs `sql` as it is: one answer per statement.
    pub(crate) fn execute(&mut self, sql: &str) -> Result<Vec<Answer>, Failure> {
        match self {
            Backend::Local(s) => {
                let id = s.id();
                s.execute(sql)
                    .map(answers)
                    .map_err(|e| Failure::Database(id, e.code().number, e.to_string()))
            }
            Backend::Remote(r) => {
                let id = u64::try_from(r.client.process_id()).unwrap_or(0);
                let replies = r.client.query(sql).map_err(|e| remote_failure(id, e))?;
                let mode = r.mode();
                Ok(replies
                    .into_iter()
                    .map(|reply| remote_answer(reply, mode))
                    .collect())
            }
        }
    }

    /// Runs `sql` once per parameter set (`sets` not empty), prepared once: the answer of
    /// the last, its count the sum over all. Many sets are one transaction in Teradata mode
    /// (a BT … ET around them, unless one is open).
    pub(crate) fn execute_sets(
        &mut self,
        sql: &str,
        sets: Vec<Vec<Value>>,
    ) -> Result<Vec<Answer>, Failure> {
        let id = self.id();
        if matches!(self, Backend::Remote(_)) && sets.len() == 1 && sets[0].is_empty() {
            // no values: the simple protocol, which answers every statement of the request
            // (the extended one answers with the last)
            return self.execute(sql);
        }
        let many = sets.len() > 1;
        let wrap = many && self.mode() == SessionMode::Teradata && !self.in_transaction();
        if wrap {
            self.execute("BT")?;
        }
        let outcome = match self {
            Backend::Local(s) => local_sets(s, sql, sets),
            Backend::Remote(r) => {
                let mode = r.mode();
                r.client
                    .query_many(sql, &sets)
                    .map_err(|e| remote_failure(id, e))
                    .map(|replies| {
                        let total = replies.iter().map(|r| r.activity_count).sum();
                        replies
                            .into_iter()
                            .last()
                            .map(|last| {
                                let mut a = remote_answer(last, mode);
                                a.activity_count = total;
                                a
                            })
                            .into_iter()
                            .collect()
                    })
            }
        };
        match outcome {
            Ok(answers) => {
                if wrap {
                    self.execute("ET")?;
                }
                Ok(answers)
            }
            Err(e) => {
                // an error that did not end the BT (a set of the wrong size) must not leave it
                if wrap && self.in_transaction() {
                    let _ = self.execute("ROLLBACK");
                }
                Err(e)
            }
        }
    }
}

fn answers(results: Vec<StatementResult>) -> Vec<Answer> {
    results.into_iter().map(Answer::from).collect()
}

/// Sets on a local session: prepared once (kept by the session), one set as a prepared
/// execution, many as a batch (`Session::execute_batch`: an INSERT takes many sets at once).
fn local_sets(s: &mut Session, sql: &str, sets: Vec<Vec<Value>>) -> Result<Vec<Answer>, Failure> {
    let id = s.id();
    let fail = |e: tdlite::PositionedError| Failure::Database(id, e.code().number, e.to_string());
    let prepared = s.prepare_cached(sql).map_err(fail)?;
    let results = match sets.as_slice() {
        [params] => s.execute_prepared(&prepared, params),
        _ => s.execute_batch(&prepared, sets),
    };
    results.map(answers).map_err(fail)
}

/// A server's reply as an answer: the command tag's words as the activity's name
/// (`CREATE TABLE` → `CreateTable`; the transaction words as an embedded session names them).
fn remote_answer(reply: tdlite_client::Reply, mode: SessionMode) -> Answer {
    let activity = match (reply.command.as_str(), mode) {
        ("BEGIN", _) => "BeginTransaction".to_string(),
        ("COMMIT", SessionMode::Teradata) => "EndTransaction".to_string(),
        (command, _) => command
            .split_whitespace()
            .map(|w| {
                let lower = w.to_ascii_lowercase();
                let mut chars = lower.chars();
                chars
                    .next()
                    .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
                    .unwrap_or_default()
            })
            .collect(),
    };
    Answer {
        activity,
        activity_count: reply.activity_count,
        rows: reply.rows,
    }
}

fn remote_failure(id: u64, e: tdlite_client::Error) -> Failure {
    match e {
        tdlite_client::Error::Server { code, message, .. } => Failure::Database(id, code, message),
        tdlite_client::Error::Value(m) => Failure::Value(m),
        other => Failure::Connection(other.to_string()),
    }
}
