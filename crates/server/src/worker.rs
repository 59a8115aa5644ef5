//! One connection's tdlite session, on a thread of its own.
//!
//! A request can block for as long as a consume waits for a row (forever, by default), so a
//! session never runs on the async runtime: each connection starts a thread that owns its
//! `Session` and runs the jobs the connection sends it, one at a time, in order, answering
//! each on a oneshot channel. A consume that waits blocks its own connection only.
//!
//! Describing a statement before it is bound (PostgreSQL's Describe of a prepared statement)
//! needs its result columns; a SELECT is then run with NULL parameters in a second session of
//! the same database, so that nothing it does or fails with touches the connection's own
//! transaction (`Job::Describe`).
//!
//! Invariant: the thread ends when the connection's handle is dropped; its sessions are
//! dropped with it, which rolls back a transaction left open.

use crate::settings::Settings;
use std::sync::mpsc;
use std::time::Duration;
use tdlite::{
    CancelHandle, Database, PositionedError, Session, SessionMode, StatementKind, StatementResult,
    Value,
};
use tokio::sync::oneshot;

/// What a connection asks its session to do.
pub enum Job {
    /// Run a request: its text, and the values of its `?` markers (none: run as text).
    Run {
        text: String,
        params: Option<Vec<Value>>,
    },
    /// Run a request in the describing session, for its result columns.
    Describe { text: String, params: Vec<Value> },
    /// Set the session up as its client asked at login.
    Configure(Settings),
}

/// A job's results, and whether the session is inside a transaction afterwards.
pub type Reply = (Result<Vec<StatementResult>, PositionedError>, bool);

/// The longest a Describe runs a SELECT for its columns.
const DESCRIBE_BOUND: Duration = Duration::from_secs(5);

/// A connection's handle on its session thread.
pub struct Worker {
    jobs: mpsc::Sender<(Job, oneshot::Sender<Reply>)>,
    cancel: CancelHandle,
    /// Whether the session is in ANSI mode after its last job.
    ansi: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl Worker {
    /// Starts the session thread of a new connection to `db`, its requests bounded by
    /// `statement_timeout`.
    ///
    /// # Errors
    /// The OS's, if no thread can be started.
    pub fn start(db: &Database, statement_timeout: Option<Duration>) -> std::io::Result<Worker> {
        let (jobs, inbox) = mpsc::channel::<(Job, oneshot::Sender<Reply>)>();
        let (handle_tx, handle_rx) = mpsc::channel();
        let db = db.clone();
        let ansi = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let mode = ansi.clone();
        std::thread::Builder::new()
            .name("tdlite-session".into())
            .spawn(move || {
                let mut session = db.session();
                session.set_statement_timeout(statement_timeout);
                let _ = handle_tx.send(session.cancel_handle());
                let mut describer: Option<Session> = None;
                for (job, answer) in inbox {
                    let reply = match job {
                        Job::Run { text, params } => {
                            // ANSI mode: after a driver's BEGIN the client is in a transaction,
                            // which the session opens with its next statement
                            let begun = session.mode() == SessionMode::Ansi
                                && matches!(control(&text), Some(Control::Begin));
                            let r = run(&mut session, &text, params.as_deref());
                            (r, begun || session.in_explicit_transaction())
                        }
                        Job::Configure(settings) => {
                            let r = settings.apply(&mut session).map(|()| Vec::new());
                            (r, session.in_explicit_transaction())
                        }
                        Job::Describe { text, params } => {
                            // bounded: it may wait for a lock the connection's own session
                            // holds, which no deadlock check sees (another thread's session)
                            let s = describer.get_or_insert_with(|| {
                                let mut s = db.session();
                                s.set_statement_timeout(Some(
                                    statement_timeout
                                        .map_or(DESCRIBE_BOUND, |t| t.min(DESCRIBE_BOUND)),
                                ));
                                s
                            });
                            // the connection's default database, so that names resolve alike
                            let db = session.default_database();
                            // (a database gone since is no reason not to describe: qualified
                            // names still resolve)
                            if s.default_database() != db {
                                let _ =
                                    s.execute(&format!("DATABASE \"{}\"", db.replace('"', "\"\"")));
                            }
                            let r = run(s, &text, Some(&params));
                            if s.in_explicit_transaction() || s.has_uncommitted_work() {
                                let _ = s.execute("ROLLBACK");
                            }
                            (r, session.in_explicit_transaction())
                        }
                    };
                    mode.store(
                        session.mode() == SessionMode::Ansi,
                        std::sync::atomic::Ordering::SeqCst,
                    );
                    // the connection may have gone while the job ran
                    let _ = answer.send(reply);
                }
            })?;
        let cancel = handle_rx
            .recv()
            .map_err(|_| std::io::Error::other("the session thread ended at its start"))?;
        Ok(Worker { jobs, cancel, ansi })
    }

    /// Runs `job` on the session thread and waits (without blocking the runtime) for it.
    ///
    /// # Errors
    /// If the session thread has ended.
    pub async fn run(&self, job: Job) -> std::io::Result<Reply> {
        let (answer, reply) = oneshot::channel();
        self.jobs
            .send((job, answer))
            .map_err(|_| std::io::Error::other("the session has ended"))?;
        reply
            .await
            .map_err(|_| std::io::Error::other("the session has ended"))
    }

    /// Whether the session was in ANSI mode after its last job.
    pub fn ansi(&self) -> bool {
        self.ansi.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Cancels the request the session runs now (a waiting consume ends with 9905); false
    /// (and nothing done) when it runs none.
    pub fn cancel(&self) -> bool {
        self.cancel.cancel()
    }
}

/// The transaction statements PostgreSQL drivers send by themselves, as the session's mode
/// has them: `BEGIN` / `START TRANSACTION` is `BT` in Teradata mode and nothing in ANSI mode
/// (a transaction starts with its first statement); `COMMIT` / `END` is `ET` in Teradata
/// mode (nothing outside a transaction) and `COMMIT` in ANSI mode; `ROLLBACK` / `ABORT`
/// ends the transaction without the 3514 failure Teradata reports to BTEQ, and is nothing
/// outside one (a driver rolls back after any error, when Teradata mode has already done
/// so).
enum Control {
    Begin,
    Commit,
    Rollback,
}

fn control(text: &str) -> Option<Control> {
    let words: Vec<String> = text
        .trim()
        .trim_end_matches(';')
        .split_whitespace()
        .map(str::to_ascii_uppercase)
        .collect();
    match words
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["BEGIN"] | ["BEGIN", "WORK"] | ["START", "TRANSACTION"] => Some(Control::Begin),
        ["COMMIT"] | ["COMMIT", "WORK"] | ["END"] | ["END", "WORK"] => Some(Control::Commit),
        ["ROLLBACK"] | ["ROLLBACK", "WORK"] | ["ABORT"] => Some(Control::Rollback),
        _ => None,
    }
}

fn done(kind: StatementKind) -> Vec<StatementResult> {
    vec![StatementResult {
        kind,
        activity_count: 0,
        rows: None,
        warning: None,
    }]
}

fn run(
    session: &mut Session,
    text: &str,
    params: Option<&[Value]>,
) -> Result<Vec<StatementResult>, PositionedError> {
    let ansi = session.mode() == SessionMode::Ansi;
    let open = session.in_explicit_transaction();
    match control(text) {
        Some(Control::Begin) if ansi => return Ok(done(StatementKind::BeginTransaction)),
        Some(Control::Begin) => return session.execute("BT"),
        Some(Control::Commit) if ansi => return session.execute("COMMIT"),
        Some(Control::Commit) if open => return session.execute("ET"),
        Some(Control::Commit) => return Ok(done(StatementKind::EndTransaction)),
        Some(Control::Rollback) if open => {
            return match session.execute("ROLLBACK") {
                Err(e) if e.code().number == 3514 => Ok(done(StatementKind::Rollback)),
                other => other,
            }
        }
        Some(Control::Rollback) => return Ok(done(StatementKind::Rollback)),
        None => {}
    }
    match params {
        None => session.execute(text),
        Some(values) => {
            let p = session.prepare_cached(text)?;
            session.execute_prepared(&p, values)
        }
    }
}
