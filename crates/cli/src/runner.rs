//! Runs requests and dot commands against one session and keeps BTEQ's return code (the
//! highest severity seen: 0 ok, 4 warning, 8 user error, 12 severe).

use crate::format;
use std::io::Write;
use std::sync::mpsc;
use std::time::{Duration, Instant};
use tdlite::{Database, Session, SessionMode};

/// How long a request runs before the REPL says that it is waiting for a row to consume.
const WAIT_NOTICE_AFTER: Duration = Duration::from_secs(1);

/// What a dot command asked for.
pub enum Flow {
    /// Keep going.
    Continue,
    /// `.quit` / `.exit` / `.logoff`.
    Quit,
}

/// One session plus the return code so far.
pub struct Runner {
    pub db: Database,
    pub session: Session,
    pub rc: i32,
    pub echo: bool,
    /// A person at a terminal: a consume that waits says so after a second.
    pub interactive: bool,
}

pub const HELP: &str = "\
tdlite: Teradata SQL with queue tables.

End a request with ';' at the end of a line (BTEQ's rule); until then the prompt is '->'.
'a; b;' on one line is one multi-statement request. A line starting with '.' is a dot
command, even in the middle of an unfinished request. Dot commands:
  .help                 this text
  .tables               list tables
  .schema TABLE         the table's DDL (same as SHOW TABLE t;)
  .timeout SECONDS|off  bound SELECT AND CONSUME waits (tdlite extension; default off = wait forever)
  .checkpoint           write a checkpoint now (a database folder; reopening then replays less log)
  .set session transaction ansi|btet
                        session mode for the next transaction (same as the SQL statement
                        SET SESSION TRANSACTION ANSI;); also the --mode flag
  .quit / .exit         leave (Ctrl-D too); an open BT transaction is rolled back
Ctrl-C clears the current input, or cancels a SELECT AND CONSUME that is waiting.
SQL to look around: HELP DATABASE name; HELP TABLE t; SHOW TABLE t; HELP SESSION;
SEL DATABASE; SEL USER; SEL SESSION; SEL DATE; SEL TIME; HELP LOCKS;
";

impl Runner {
    pub fn new(db: Database) -> Self {
        let session = db.session();
        Runner {
            db,
            session,
            rc: 0,
            echo: false,
            interactive: false,
        }
    }

    /// Ends the run (`.quit`, end of input): says so if an open transaction is about to be
    /// rolled back (the session's end rolls it back, as a Teradata logoff does); returns the
    /// return code.
    pub fn leave(&mut self) -> i32 {
        if self.session.has_uncommitted_work() {
            let what = match self.session.mode() {
                SessionMode::Teradata => "the transaction opened by BT (no ET yet)",
                SessionMode::Ansi => "the work since the last COMMIT",
            };
            self.out(&format!(" *** Warning: leaving rolls back {what}.\n"));
        }
        self.rc
    }

    /// Runs `sql`; at a terminal, a watcher thread says after [`WAIT_NOTICE_AFTER`] that the
    /// session waits on an empty queue, and how to stop waiting.
    fn execute(
        &mut self,
        sql: &str,
    ) -> Result<Vec<tdlite::StatementResult>, tdlite::PositionedError> {
        if !self.interactive {
            return self.session.execute(sql);
        }
        let handle = self.session.cancel_handle();
        let (done, finished) = mpsc::channel::<()>();
        std::thread::scope(|scope| {
            scope.spawn(move || {
                let start = Instant::now();
                while let Err(mpsc::RecvTimeoutError::Timeout) =
                    finished.recv_timeout(Duration::from_millis(100))
                {
                    if start.elapsed() >= WAIT_NOTICE_AFTER && handle.is_waiting() {
                        println!(
                            " *** Waiting for a row to consume (the queue is empty). \
                             Ctrl-C cancels; .timeout bounds the wait."
                        );
                        return;
                    }
                }
            });
            let r = self.session.execute(sql);
            drop(done);
            r
        })
    }

    fn out(&self, s: &str) {
        let mut o = std::io::stdout().lock();
        let _ = o.write_all(s.as_bytes());
        let _ = o.flush();
    }

    /// Runs one request or dot command.
    pub fn run(&mut self, text: &str) -> Flow {
        let t = text.trim();
        if t.starts_with('.') {
            return self.dot(t);
        }
        if self.echo {
            self.out(&format!("{t}\n\n"));
        }
        match self.execute(t) {
            Ok(results) => {
                for r in &results {
                    self.out(&format::result(r));
                }
            }
            Err(e) => {
                self.rc = self.rc.max(format::return_code(&e));
                // in ANSI mode a transaction still open after the error lost only the request
                let request_only = self.session.mode() == SessionMode::Ansi
                    && self.session.in_explicit_transaction();
                self.out(&format::failure(&e, t, request_only));
            }
        }
        if self.echo {
            self.out("\n");
        }
        Flow::Continue
    }

    fn dot(&mut self, cmd: &str) -> Flow {
        let mut parts = cmd.trim_end_matches(';').split_whitespace();
        let word = parts.next().unwrap_or("").to_ascii_lowercase();
        match word.as_str() {
            ".quit" | ".exit" | ".logoff" | ".q" => return Flow::Quit,
            ".help" | ".h" => self.out(HELP),
            ".tables" => {
                let names = self.db.table_names();
                if names.is_empty() {
                    self.out("(no tables)\n");
                }
                for n in names {
                    self.out(&format!("{n}\n"));
                }
            }
            ".schema" => match parts.next() {
                Some(t) => {
                    let t = t.to_string();
                    self.run(&format!("SHOW TABLE {t};"));
                }
                None => self.out(" *** Error: .schema needs a table name.\n"),
            },
            ".timeout" => match parts.next() {
                Some(off) if off.eq_ignore_ascii_case("off") => {
                    self.session.set_consume_timeout(None);
                    self.out(" *** Consume timeout off: SELECT AND CONSUME waits for a row.\n");
                }
                Some(s) => match s
                    .parse::<f64>()
                    .ok()
                    .and_then(|x| Duration::try_from_secs_f64(x).ok())
                {
                    Some(d) => {
                        self.session.set_consume_timeout(Some(d));
                        self.out(&format!(
                            " *** Consume timeout set: SELECT AND CONSUME waits at most {} s \
                             for a row (then 9904).\n",
                            d.as_secs_f64()
                        ));
                    }
                    _ => {
                        self.rc = self.rc.max(8);
                        self.out(" *** Error: .timeout takes a number of seconds or 'off'.\n");
                    }
                },
                None => {
                    self.rc = self.rc.max(8);
                    self.out(" *** Error: .timeout takes a number of seconds or 'off'.\n");
                }
            },
            ".set" => {
                let rest: Vec<String> = parts.map(str::to_ascii_uppercase).collect();
                match rest.iter().map(String::as_str).collect::<Vec<_>>()[..] {
                    ["SESSION", "TRANSACTION", m @ ("ANSI" | "BTET" | "TERADATA")] => {
                        self.run(&format!("SET SESSION TRANSACTION {m};"));
                    }
                    _ => {
                        self.rc = self.rc.max(8);
                        self.out(" *** Error: use .set session transaction ansi|btet\n");
                    }
                }
            }
            ".checkpoint" => match self.db.checkpoint() {
                Ok(()) if self.db.path().is_none() => {
                    self.out(" *** In memory: nothing to checkpoint.\n")
                }
                Ok(()) => self.out(" *** Checkpoint written.\n"),
                Err(e) => {
                    self.rc = self.rc.max(12);
                    self.out(&format!(" *** Failure {} {e}\n", e.code().number));
                }
            },
            _ => {
                self.rc = self.rc.max(8);
                self.out(&format!(
                    " *** Error: unknown command '{word}'. Type .help for the list.\n"
                ));
            }
        }
        Flow::Continue
    }
}
