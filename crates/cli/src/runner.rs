//! Runs requests and dot commands against one session, with BTEQ's state: the session (logged
//! on or off), the variables `.IF` tests (ERRORCODE, ACTIVITYCOUNT, ERRORLEVEL, SQLSTATE), error
//! severities and the return code (the highest severity seen: 0 ok, 4 warning, 8 user error,
//! 12 severe, unless `.QUIT n` says otherwise), and the report settings.
//!
//! Invariant: a request or command never ends the process; it returns a [`Flow`], and only the
//! caller (script, REPL) stops reading input.

use crate::dot::{
    self, ColumnControl, Command, Condition, Echo, ExitCode, ExportKind, Operand, SetOption, Test,
    Variable,
};
use crate::export::{self, DataFormat};
use crate::format::{self, Report};
use crate::page;
use std::collections::HashMap;
use std::io::Write;
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};
use tdlite::{Database, Session, SessionMode};

/// How long a request runs before the REPL says that it is waiting for a row to consume.
const WAIT_NOTICE_AFTER: Duration = Duration::from_secs(1);

/// How deeply `.RUN FILE` may nest.
pub const MAX_RUN_DEPTH: usize = 16;

/// What the caller does next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Flow {
    /// Keep going.
    Continue,
    /// Stop reading input: `.QUIT`, `.EXIT`, or `.SET MAXERROR` reached (`Runner::rc` holds the
    /// code).
    Quit,
    /// Skip input up to `.LABEL name` (`.GOTO name`).
    Goto(String),
    /// Stop reading this run file: it ran another, which BTEQ does not come back from.
    EndOfFile,
}

/// The session, BTEQ's variables and settings, and the return code so far.
pub struct Runner {
    pub db: Database,
    pub session: Session,
    /// The return code: the highest severity so far, or what `.QUIT n` set.
    pub rc: i32,
    /// Batch mode: each request is echoed before its results (`.SET ECHOREQ`).
    pub echo: bool,
    /// `.SET ECHOREQ ERRORONLY`: commands are echoed, and a request only when it fails, after
    /// its error and to standard error (as BTEQ does).
    echo_errors: bool,
    /// The request to echo if it fails (while `echo_errors`).
    pending_echo: Option<String>,
    /// A person at a terminal: a consume that waits says so after a second.
    pub interactive: bool,
    /// `--allow-os`: `.OS` runs shell commands.
    pub allow_os: bool,
    /// How deeply `.RUN FILE` nests now.
    pub run_depth: usize,
    /// How script bytes become text (`--charset`).
    pub charset: crate::script::Charset,
    /// `--format`: query rows go to standard output in this format, and everything else
    /// (echo, status lines, errors) to standard error.
    pub data_format: Option<DataFormat>,
    /// The session's cancel handle, where the Ctrl-C handler finds it after a new `.LOGON`.
    pub cancel: Arc<Mutex<tdlite::CancelHandle>>,
    /// Set by Ctrl-C while a script runs: the script stops after the request it cancelled.
    pub interrupted: Arc<std::sync::atomic::AtomicBool>,
    logged_on: bool,
    /// Logged on by `.LOGON` (not only the session tdlite starts with): BTEQ's settings that
    /// need a logged-off BTEQ (`.SET SESSION TRANSACTION`) are then refused with its warning.
    logged_on_by_command: bool,
    consume_timeout: Option<Duration>,
    /// Strict mode (`--strict`): see [`Runner::set_strict`].
    strict: bool,
    quiet: bool,
    report: Report,
    vars: Vars,
    severities: HashMap<u32, i32>,
    unknown_severity: Option<i32>,
    errorlevel_on: bool,
    maxerror: Option<i32>,
    export: Option<Export>,
    /// The last SQL request, for `=`.
    last_sql: Option<String>,
    /// `.SET RECORDMODE` (ON unless set OFF): OFF turns a DATA export into rows of text.
    record_mode: bool,
    /// The open `.IMPORT`.
    import: Option<Importing>,
    /// `.REPEAT`: how often the next request runs (`Some(None)`: until the import runs out).
    repeat: Option<Option<u64>>,
}

/// Why an import record gave no values.
enum RecordError {
    /// This record is wrong (its fields); the import goes on.
    Skip(String),
    /// The file cannot be read on; the import ends.
    Stop(String),
}

/// An open `.IMPORT VARTEXT` file.
struct Importing {
    path: String,
    source: Source,
}

/// What an import reads.
enum Source {
    /// VARTEXT: delimited lines.
    Text {
        delimiter: String,
        lines: std::io::Lines<std::io::BufReader<std::fs::File>>,
    },
    /// DATA or INDICDATA records (record.rs).
    Records {
        indicators: bool,
        reader: std::io::BufReader<std::fs::File>,
    },
    /// REPORT: what `.EXPORT REPORT` wrote (report.rs).
    Report(crate::report::ReportReader<std::io::Lines<std::io::BufReader<std::fs::File>>>),
}

/// An open `.EXPORT` file.
struct Export {
    kind: ExportKind,
    path: String,
    file: std::io::BufWriter<std::fs::File>,
}

/// What `.IF` tests: the outcome of the last request.
#[derive(Debug, Clone, Default)]
struct Vars {
    errorcode: u32,
    activitycount: u64,
    errorlevel: i32,
    /// Rows the last request's INSERTs, UPDATEs and DELETEs changed (BTEQ 16.20's
    /// INSERTCOUNT, UPDATECOUNT, DELETECOUNT).
    counts: [u64; 3],
    /// The last request's warning code (0: none).
    warningcode: u32,
}

pub const HELP: &str = "\
tdlite: Teradata SQL with queue tables.

End a request with ';' at the end of a line (BTEQ's rule); until then the prompt is '->'.
'a; b;' on one line is one multi-statement request. A line starting with '.' and a letter is a
dot command, even in the middle of an unfinished request (so a continued SQL line cannot start
with '.name'). Lines starting with '*' between requests are comments. docs/bteq.md describes
every command. Commands (case does not matter; a final ';' is optional):
  .LOGON [tdpid/]user[,password]   start a session (credentials are ignored); .LOGOFF ends it
  .QUIT [n|ERRORCODE|ERRORLEVEL]   leave with that return code (.EXIT too; Ctrl-D)
  .IF ERRORCODE|ACTIVITYCOUNT|ERRORLEVEL|SQLSTATE|INSERTCOUNT|… op value THEN command-or-SQL
  .LABEL name / .GOTO name         skip forward to the label
  .RUN FILE = path                 run another script here
  .REMARK 'text'                   print the text
  .SET ERRORLEVEL codes SEVERITY n, MAXERROR n, ECHOREQ, QUIET, NULL, SEPARATOR, TITLEDASHES,
       RETLIMIT, WIDTH, SESSION TRANSACTION ANSI|BTET, FORMAT ON with HEADING, FOOTING,
       PAGELENGTH, SKIPLINE, SUPPRESS (more in docs/bteq.md)
  .SHOW CONTROLS                   the settings in force
  .OS command                      a shell command (only with tdlite --allow-os)
  .tables, .schema TABLE           list tables, show a table's DDL (tdlite)
  .timeout SECONDS|off             bound SELECT AND CONSUME waits (tdlite; default off)
  .checkpoint                      write a checkpoint now (a database folder)
Ctrl-C clears the current input, or cancels the running request (a waiting SELECT AND
CONSUME too); the request fails and is rolled back, and the REPL goes on.
SQL to look around: HELP DATABASE name; HELP TABLE t; SHOW TABLE t; HELP SESSION;
SEL DATABASE; SEL USER; SEL SESSION; SEL DATE; SEL TIME; HELP LOCKS;
";

impl Runner {
    pub fn new(db: Database) -> Self {
        let session = db.session();
        let cancel = Arc::new(Mutex::new(session.cancel_handle()));
        Runner {
            db,
            session,
            rc: 0,
            echo: false,
            echo_errors: false,
            pending_echo: None,
            interactive: false,
            allow_os: false,
            run_depth: 0,
            charset: crate::script::Charset::default(),
            data_format: None,
            cancel,
            interrupted: Default::default(),
            logged_on: true,
            logged_on_by_command: false,
            consume_timeout: None,
            strict: false,
            quiet: false,
            report: Report::default(),
            vars: Vars::default(),
            severities: HashMap::new(),
            unknown_severity: None,
            errorlevel_on: true,
            maxerror: None,
            export: None,
            last_sql: None,
            record_mode: true,
            import: None,
            repeat: None,
        }
    }

    /// Strict mode (`--strict`) in this and every later session: tdlite's SQL extensions are
    /// refused (docs/queues.md), and so are its own dot commands (`.tables`, `.schema`,
    /// `.timeout`, `.checkpoint`), with BTEQ's answer to a command it does not know.
    pub fn set_strict(&mut self, on: bool) {
        self.strict = on;
        self.session.set_strict(on);
    }

    /// Bounds consume waits in this and every later session (`--consume-timeout`, `.timeout`).
    pub fn set_consume_timeout(&mut self, timeout: Option<Duration>) {
        self.consume_timeout = timeout;
        self.session.set_consume_timeout(timeout);
    }

    /// Messages: to standard output, or to standard error while `--format` gives standard
    /// output to the rows.
    pub(crate) fn out(&self, s: &str) {
        if self.data_format.is_some() {
            let mut o = std::io::stderr().lock();
            let _ = o.write_all(s.as_bytes());
        } else {
            let mut o = std::io::stdout().lock();
            let _ = o.write_all(s.as_bytes());
            let _ = o.flush();
        }
    }

    /// Where a statement's rows go: an `.EXPORT` file, standard output in `--format`, or the
    /// screen's report (returned as text for `out`).
    fn rows_out(&mut self, r: &tdlite::StatementResult) -> Option<String> {
        let rows = r.rows.as_ref().filter(|_| {
            !matches!(
                r.kind,
                tdlite::StatementKind::Show | tdlite::StatementKind::Explain
            )
        });
        let written = match (rows, &mut self.export, self.data_format) {
            (Some(rows), Some(e), _) => match e.kind {
                ExportKind::Report => e
                    .file
                    .write_all(format::table(rows, &self.report).as_bytes())
                    .and_then(|()| e.file.flush())
                    .map_err(|err| err.to_string()),
                ExportKind::Data(f) => export::write_rows(f, rows, &mut e.file),
                // BTEQ's "backdoor" export: DATA with RECORDMODE OFF writes the rows as text
                ExportKind::Records(_) if !self.record_mode => {
                    let report = Report {
                        headings: false,
                        ..self.report.clone()
                    };
                    e.file
                        .write_all(format::table(rows, &report).as_bytes())
                        .and_then(|()| e.file.flush())
                        .map_err(|err| err.to_string())
                }
                ExportKind::Records(indicators) => {
                    let mut bytes = Vec::new();
                    crate::record::encode(rows, indicators, &mut bytes)
                        .and_then(|()| e.file.write_all(&bytes).map_err(|err| err.to_string()))
                        .and_then(|()| e.file.flush().map_err(|err| err.to_string()))
                }
            }
            .map_err(|err| format!("cannot write the export file '{}': {err}", e.path)),
            (Some(rows), None, Some(f)) => {
                let mut stdout = std::io::stdout().lock();
                // flushed per query: a reader on a pipe sees each result as it comes
                export::write_rows(f, rows, &mut stdout)
                    .and_then(|()| stdout.flush().map_err(|e| e.to_string()))
                    .map_err(|err| format!("cannot write the rows: {err}"))
            }
            _ => return Some(format::result(r, &self.report)),
        };
        if let Err(msg) = written {
            self.error(&msg);
        }
        Some(format!("{}\n", format::status_line(r)))
    }

    /// A tdlite (not a database) error: said, and counted with severity 8.
    pub fn error(&mut self, msg: &str) {
        self.rc = self.rc.max(8);
        self.out(&format!(" *** Error: {msg}\n"));
    }

    /// Ends the run (`.quit`, end of input): says so if an open transaction is about to be
    /// rolled back (the session's end rolls it back, as a Teradata logoff does), then logs off
    /// and says goodbye with the return code, in BTEQ's words; returns the return code.
    pub fn leave(&mut self) -> i32 {
        if self.logged_on {
            if self.session.has_uncommitted_work() {
                let what = match self.session.mode() {
                    SessionMode::Teradata => "the transaction opened by BT (no ET yet)",
                    SessionMode::Ansi => "the work since the last COMMIT",
                };
                self.out(&format!(" *** Warning: leaving rolls back {what}.\n"));
            }
            self.out(" *** You are now logged off from the DBC.\n");
        }
        self.out(&format!(
            " *** Exiting BTEQ...\n *** RC (return code) = {}\n",
            self.rc
        ));
        self.rc
    }

    /// Runs `sql`; at a terminal, a watcher thread says after [`WAIT_NOTICE_AFTER`] that the
    /// session waits on an empty queue, and how to stop waiting.
    fn execute(
        &mut self,
        sql: &str,
    ) -> Result<Vec<tdlite::StatementResult>, tdlite::PositionedError> {
        if !self.interactive {
            if self.interrupted.load(std::sync::atomic::Ordering::SeqCst) {
                // Ctrl-C came as the request was read: it does not start
                return Err(tdlite::PositionedError {
                    error: tdlite::Error::Cancelled,
                    location: None,
                    statement: 1,
                });
            }
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

    /// Echoes a command line the caller handles itself (the `.IF` block commands).
    pub fn echo_command(&self, line: &str) {
        if self.echo || self.echo_errors {
            self.out(&format!("{}\n\n", line.trim()));
        }
    }

    /// Runs one request or dot command (or BTEQ's `= n`, which runs the last SQL request n
    /// more times).
    pub fn run(&mut self, text: &str) -> Flow {
        self.run_echoed(text, true)
    }

    /// [`Runner::run`], echoing `text` as ECHOREQ says only if `echo` (an `.IF` action is not
    /// echoed: its `.IF` line was); what `text` runs in turn (a run file) follows the settings.
    fn run_echoed(&mut self, text: &str, echo: bool) -> Flow {
        let t = text.trim();
        if let Some(times) = tdlite_parser::split::repeat_count(t) {
            let Some(last) = self.last_sql.clone() else {
                self.error("= repeats the last request, and there is none yet.");
                return Flow::Continue;
            };
            for _ in 0..times {
                match self.run(&last) {
                    Flow::Continue => {}
                    other => return other,
                }
            }
            return Flow::Continue;
        }
        if dot::is_command(t) {
            // ERRORONLY echoes commands as ON does
            let echo = echo && (self.echo || self.echo_errors);
            if echo {
                self.out(&format!("{}\n", echo_form(t)));
            }
            let flow = self.dot(t);
            if echo {
                self.out("\n");
            }
            return flow;
        }
        if echo && self.echo {
            self.out(&format!("{t}\n\n"));
        } else if echo && self.echo_errors {
            self.pending_echo = Some(t.to_string());
        }
        let flow = self.sql(t);
        self.pending_echo = None;
        if echo && self.echo {
            self.out("\n");
        }
        flow
    }

    /// A request whose text could not be decoded: BTEQ's failure for untranslatable text.
    pub fn undecodable(&mut self, text: &str, line: usize) -> Flow {
        if self.echo {
            self.out(&format!("{}\n\n", text.trim()));
        } else if self.echo_errors {
            self.pending_echo = Some(text.trim().to_string());
        }
        self.failure_out(&format!(
            " *** Failure 6706 The string contains an untranslatable character (line {line} \
             is not UTF-8; --charset latin1 reads Latin-1 scripts).\n\n"
        ));
        self.record_error(6706, 8)
    }

    fn sql(&mut self, t: &str) -> Flow {
        if !self.logged_on {
            // BTEQ's return code 2: a request with no session to send it to
            self.out(" *** Warning: You must LOGON before sending SQL requests.\n");
            self.rc = self.rc.max(2);
            self.repeat = None;
            return Flow::Continue;
        }
        self.last_sql = Some(t.to_string());
        match tdlite_parser::parse_using(t) {
            Ok(Some(using)) => return self.using(t, &using),
            Ok(None) => {}
            Err(e) => {
                self.repeat = None;
                let e = tdlite::PositionedError {
                    error: e.into(),
                    location: None,
                    statement: 1,
                };
                self.failure_out(&format::failure(&e, t, false));
                let severity = self.severity(3706, format::return_code(&e));
                return self.record_error(3706, severity);
            }
        }
        if let Some(times) = self.repeat.take() {
            // .REPEAT without USING: the request itself, n times
            for _ in 0..times.unwrap_or(1) {
                if let Flow::Quit = self.request(t) {
                    return Flow::Quit;
                }
            }
            return Flow::Continue;
        }
        self.request(t)
    }

    /// A request with a USING modifier: runs its statement once per imported record (as many
    /// records as `.REPEAT` says, one without it), the record's fields as the `:name` values.
    fn using(&mut self, text: &str, using: &tdlite_parser::Using) -> Flow {
        if self.import.is_none() {
            self.repeat = None;
            self.error("USING needs data: start an import with .IMPORT first.");
            return Flow::Continue;
        }
        let prepared = match self.session.prepare(&using.statement) {
            Ok(p) => p,
            Err(e) => {
                self.repeat = None;
                self.failure_out(&format::failure(&e, text, false));
                let code = e.code().number;
                let severity = self.severity(code, format::return_code(&e));
                return self.record_error(code, severity);
            }
        };
        let times = self.repeat.take().unwrap_or(Some(1));
        let mut done = 0u64;
        while times.is_none_or(|n| done < n) {
            let Some(record) = self.next_record(&using.fields) else {
                self.out(" *** Warning: Out of data.\n");
                break;
            };
            done += 1;
            let fields = match record {
                Ok(r) => r,
                // this record is wrong; the next may be right
                Err(RecordError::Skip(msg)) => {
                    self.error(&msg);
                    continue;
                }
                // the file cannot be read on: the import ends
                Err(RecordError::Stop(msg)) => {
                    self.error(&msg);
                    self.import = None;
                    break;
                }
            };
            let values: Vec<tdlite::Value> =
                using.params.iter().map(|&f| fields[f].clone()).collect();
            let outcome = self.session.execute_prepared(&prepared, &values);
            if let Flow::Quit = self.report(outcome, text) {
                return Flow::Quit;
            }
        }
        Flow::Continue
    }

    /// The values of the import's next record, one per USING field; `None` at the end.
    /// VARTEXT fields are text (an empty one is NULL, as BTEQ reads them); DATA and INDICDATA
    /// records are laid out as the USING types say.
    fn next_record(
        &mut self,
        fields: &[(String, String)],
    ) -> Option<Result<Vec<tdlite::Value>, RecordError>> {
        let import = self.import.as_mut()?;
        let path = import.path.clone();
        let cannot = move |e: String| format!("the import file '{path}': {e}");
        match &mut import.source {
            Source::Text { delimiter, lines } => {
                let line = match lines.next()? {
                    Ok(l) => l,
                    Err(e) => return Some(Err(RecordError::Stop(cannot(e.to_string())))),
                };
                let line = line.strip_suffix('\r').unwrap_or(&line);
                let values: Vec<tdlite::Value> = line
                    .split(delimiter.as_str())
                    .map(|v| match v {
                        "" => tdlite::Value::Null,
                        v => tdlite::Value::Str(v.to_string()),
                    })
                    .collect();
                if values.len() != fields.len() {
                    return Some(Err(RecordError::Skip(format!(
                        "an import record has {} fields; USING names {}.",
                        values.len(),
                        fields.len()
                    ))));
                }
                Some(Ok(values))
            }
            Source::Report(reader) => {
                let values = match reader.next_row()? {
                    Ok(v) => v,
                    Err(e) => return Some(Err(RecordError::Stop(cannot(e)))),
                };
                if values.len() != fields.len() {
                    return Some(Err(RecordError::Skip(format!(
                        "an import row has {} columns; USING names {}.",
                        values.len(),
                        fields.len()
                    ))));
                }
                Some(Ok(values))
            }
            Source::Records { indicators, reader } => {
                let data = match crate::record::read(reader) {
                    Ok(Some(d)) => d,
                    Ok(None) => return None,
                    Err(e) => return Some(Err(RecordError::Stop(cannot(e)))),
                };
                let types: Result<Vec<_>, String> = fields
                    .iter()
                    .map(|(_, ty)| crate::record::FieldType::parse(ty))
                    .collect();
                Some(
                    types
                        .and_then(|t| crate::record::decode(&data, &t, *indicators))
                        .map_err(|e| RecordError::Skip(cannot(e))),
                )
            }
        }
    }

    /// Runs one request and reports its outcome.
    fn request(&mut self, t: &str) -> Flow {
        let outcome = self.execute(t);
        self.report(outcome, t)
    }

    /// Prints a request's results or its failure and records BTEQ's variables.
    fn report(
        &mut self,
        outcome: Result<Vec<tdlite::StatementResult>, tdlite::PositionedError>,
        t: &str,
    ) -> Flow {
        match outcome {
            Ok(results) => {
                let count = |kind: tdlite::StatementKind| {
                    results
                        .iter()
                        .filter(|r| r.kind == kind)
                        .map(|r| r.activity_count)
                        .sum()
                };
                self.vars = Vars {
                    errorcode: 0,
                    activitycount: results.last().map_or(0, |r| r.activity_count),
                    errorlevel: self.vars.errorlevel,
                    counts: [
                        count(tdlite::StatementKind::Insert),
                        count(tdlite::StatementKind::Update),
                        count(tdlite::StatementKind::Delete),
                    ],
                    warningcode: results
                        .iter()
                        .rev()
                        .find_map(|r| r.warning.as_ref().map(|w| w.code))
                        .unwrap_or(0),
                };
                for r in &results {
                    if self.quiet {
                        // QUIET ON: the status lines only, no rows
                        self.out(&format!("{}\n", format::status_line(r)));
                    } else if let Some(text) = self.rows_out(r) {
                        self.out(&text);
                    }
                }
                Flow::Continue
            }
            Err(e) => {
                // in ANSI mode a transaction still open after the error lost only the request
                let request_only = self.session.mode() == SessionMode::Ansi
                    && self.session.in_explicit_transaction();
                self.failure_out(&format::failure(&e, t, request_only));
                let code = e.code().number;
                let severity = self.severity(code, format::return_code(&e));
                self.record_error(code, severity)
            }
        }
    }

    /// The severity of error `code`: `.SET ERRORLEVEL`'s, else `default`.
    fn severity(&self, code: u32, default: i32) -> i32 {
        if !self.errorlevel_on {
            return default;
        }
        self.severities
            .get(&code)
            .copied()
            .or(self.unknown_severity)
            .unwrap_or(default)
    }

    /// Records a failed request: the variables (ERRORLEVEL is the highest severity so far),
    /// the return code, and `.SET MAXERROR` (exceeded: the run ends).
    fn record_error(&mut self, code: u32, severity: i32) -> Flow {
        self.vars = Vars {
            errorcode: code,
            errorlevel: self.vars.errorlevel.max(severity),
            ..Vars::default()
        };
        self.rc = self.rc.max(severity);
        match self.maxerror {
            Some(max) if severity > max => {
                self.out(&format!(
                    " *** Exiting: an error of severity {severity} is above MAXERROR {max}.\n"
                ));
                Flow::Quit
            }
            _ => Flow::Continue,
        }
    }

    fn dot(&mut self, line: &str) -> Flow {
        let command = match dot::parse(line) {
            Ok(c) if self.strict && c.is_tdlite_only() => Err(dot::unrecognized(line)),
            other => other,
        };
        let command = match command {
            Ok(c) => c,
            Err(msg) => {
                self.error(&format!("{msg}. Type .help for the list."));
                return Flow::Continue;
            }
        };
        match command {
            Command::Logon { user } => self.logon(&user),
            Command::Logoff => {
                self.end_session();
                self.out(" *** You are now logged off from the DBC.\n");
            }
            Command::LogMech => {}
            Command::Quit(code) => {
                self.rc = match code {
                    None => self.rc,
                    Some(ExitCode::Number(n)) => n,
                    Some(ExitCode::ErrorCode) => self.vars.errorcode as i32,
                    Some(ExitCode::ErrorLevel) => self.vars.errorlevel,
                    Some(ExitCode::ActivityCount) => {
                        i32::try_from(self.vars.activitycount).unwrap_or(i32::MAX)
                    }
                };
                return Flow::Quit;
            }
            Command::Set(option) => self.set(option),
            Command::If { condition, then } => {
                if self.holds(&condition) {
                    // the .IF line was echoed; its action is not echoed again
                    return self.run_echoed(&then, false);
                }
            }
            Command::Label(_) => {}
            Command::IfBlock(_) | Command::ElseIf(_) | Command::Else | Command::EndIf => {
                self.error(".IF blocks (.ELSEIF, .ELSE, .ENDIF) need lines of their own.");
            }
            Command::Goto(label) => return Flow::Goto(label),
            Command::Run(path) => return crate::script::run_file(self, &path),
            Command::Remark(text) => self.out(&format!("{text}\n")),
            Command::Os(cmd) => self.os(&cmd),
            Command::ShowControls => self.out(&self.controls()),
            Command::ShowErrorMap => {
                let mut codes: Vec<u32> = format::SPECIAL_SEVERITIES.to_vec();
                codes.extend(self.severities.keys());
                codes.sort_unstable();
                codes.dedup();
                let mut text = String::from(" Error code severities (.SET ERRORLEVEL):\n");
                for code in codes {
                    let severity = self.severity(code, format::default_severity(code));
                    text.push_str(&format!("   {code:>5}  {severity}\n"));
                }
                text.push_str(&format!(
                    "   other  {}\n",
                    self.severity(0, format::default_severity(0))
                ));
                self.out(&text);
            }
            Command::ShowVersion => self.out(&format!(
                " tdlite {} (BTEQ's commands and Teradata 17.20's SQL)\n",
                env!("CARGO_PKG_VERSION")
            )),
            Command::Hang(seconds) => std::thread::sleep(Duration::from_secs_f64(seconds)),
            Command::Help => self.out(HELP),
            Command::Tables => {
                let names = self.db.table_names();
                if names.is_empty() {
                    self.out("(no tables)\n");
                }
                for n in names {
                    self.out(&format!("{n}\n"));
                }
            }
            Command::Schema(t) => return self.sql(&format!("SHOW TABLE {t};")),
            Command::Timeout(secs) => {
                let timeout = secs.and_then(|s| Duration::try_from_secs_f64(s).ok());
                self.set_consume_timeout(timeout);
                match timeout {
                    None => {
                        self.out(" *** Consume timeout off: SELECT AND CONSUME waits for a row.\n")
                    }
                    Some(d) => self.out(&format!(
                        " *** Consume timeout set: SELECT AND CONSUME waits at most {} s for \
                         a row (then 9904).\n",
                        d.as_secs_f64()
                    )),
                }
            }
            Command::Checkpoint => match self.db.checkpoint() {
                Ok(()) if self.db.path().is_none() => {
                    self.out(" *** In memory: nothing to checkpoint.\n")
                }
                Ok(()) => self.out(" *** Checkpoint written.\n"),
                Err(e) => {
                    self.rc = self.rc.max(12);
                    self.out(&format!(" *** Failure {} {e}\n", e.code().number));
                }
            },
            Command::Export(None) => match self.export.take() {
                Some(mut e) => {
                    let _ = e.file.flush();
                    self.out(" *** Output returned to console.\n");
                }
                None => self.error(".EXPORT RESET: no export is open."),
            },
            Command::Export(Some((kind, path))) => match std::fs::File::create(&path) {
                Ok(f) => {
                    self.export = Some(Export {
                        kind,
                        path,
                        file: std::io::BufWriter::new(f),
                    });
                    self.out(" *** To reset export, type .EXPORT RESET\n");
                }
                Err(e) => self.error(&format!("cannot create the export file '{path}': {e}")),
            },
            Command::Import(None) => {
                if self.import.take().is_none() {
                    self.error(".IMPORT RESET: no import is open.");
                }
            }
            Command::Import(Some(import)) => match std::fs::File::open(&import.path).and_then(|f| {
                if f.metadata()?.is_file() {
                    Ok(f)
                } else {
                    Err(std::io::Error::other("not a file"))
                }
            }) {
                Ok(f) => {
                    use std::io::BufRead;
                    let reader = std::io::BufReader::new(f);
                    let source = match import.format {
                        dot::ImportFormat::Report => {
                            let mut reader =
                                crate::report::ReportReader::new(reader.lines(), &self.report.null);
                            for _ in 0..import.skip {
                                if !matches!(reader.next_row(), Some(Ok(_))) {
                                    break;
                                }
                            }
                            Source::Report(reader)
                        }
                        dot::ImportFormat::VarText(delimiter) => {
                            let mut lines = reader.lines();
                            // stops at the end of the file, however large SKIP is
                            for _ in 0..import.skip {
                                if !matches!(lines.next(), Some(Ok(_))) {
                                    break;
                                }
                            }
                            Source::Text { delimiter, lines }
                        }
                        dot::ImportFormat::Records(indicators) => {
                            let mut reader = reader;
                            for _ in 0..import.skip {
                                if !matches!(crate::record::read(&mut reader), Ok(Some(_))) {
                                    break;
                                }
                            }
                            Source::Records { indicators, reader }
                        }
                    };
                    self.import = Some(Importing {
                        path: import.path,
                        source,
                    });
                }
                Err(e) => self.error(&format!(
                    "cannot open the import file '{}': {e}",
                    import.path
                )),
            },
            Command::Repeat(times) => self.repeat = Some(times),
            Command::NotYet(word) => self.error(&format!(
                ".{word} is not supported by tdlite yet (docs/bteq.md)."
            )),
        }
        Flow::Continue
    }

    /// `.LOGON`: a new session, as BTEQ does (a session already open is logged off first and
    /// its open transaction rolled back); the new one keeps the settings (mode, consume
    /// timeout). Credentials are ignored: the session's user is TDLITE.
    fn logon(&mut self, _user: &str) {
        if self.logged_on && self.session.has_uncommitted_work() {
            self.out(" *** Warning: the new logon rolls back the open transaction.\n");
        }
        self.end_session();
        self.logged_on = true;
        self.logged_on_by_command = true;
        self.out(" *** Logon successfully completed.\n");
    }

    /// Ends the session (an open transaction rolls back) and makes the next one, in the same
    /// session mode and with the same consume timeout; logged off until `.LOGON`.
    fn end_session(&mut self) {
        let mode = self.session.mode();
        let mut fresh = self.db.session();
        let _ = fresh.set_mode(mode);
        fresh.set_consume_timeout(self.consume_timeout);
        fresh.set_strict(self.strict);
        *self.cancel.lock().unwrap_or_else(|e| e.into_inner()) = fresh.cancel_handle();
        // dropping the old session rolls its transaction back
        self.session = fresh;
        self.logged_on = false;
    }

    /// True if `.IF`'s test holds now.
    pub fn holds(&self, t: &Test) -> bool {
        match t {
            Test::Check(c) => self.check(c),
            Test::Not(t) => !self.holds(t),
            Test::And(a, b) => self.holds(a) && self.holds(b),
            Test::Or(a, b) => self.holds(a) || self.holds(b),
        }
    }

    /// True if one check holds now.
    fn check(&self, c: &Condition) -> bool {
        let number = match c.variable {
            Variable::ErrorCode => self.vars.errorcode as i64,
            Variable::ActivityCount => self.vars.activitycount as i64,
            Variable::ErrorLevel => self.vars.errorlevel as i64,
            Variable::InsertCount => self.vars.counts[0] as i64,
            Variable::UpdateCount => self.vars.counts[1] as i64,
            Variable::DeleteCount => self.vars.counts[2] as i64,
            Variable::WarningCode => i64::from(self.vars.warningcode),
            Variable::ReturnCode => i64::from(self.rc),
            Variable::SqlState => {
                let state = sqlstate(self.vars.errorcode);
                return match &c.value {
                    Operand::Text(t) => c.op.holds(&state.as_str(), &t.as_str()),
                    Operand::Number(n) => c.op.holds(&state, &format!("{n:05}")),
                };
            }
        };
        match &c.value {
            Operand::Number(n) => c.op.holds(&number, n),
            Operand::Text(t) => t.parse::<i64>().is_ok_and(|n| c.op.holds(&number, &n)),
        }
    }

    fn set(&mut self, option: SetOption) {
        match option {
            SetOption::Severities(items) => {
                for (codes, severity) in items {
                    match codes {
                        Some(codes) => {
                            for c in codes {
                                self.severities.insert(c, severity);
                            }
                        }
                        None => self.unknown_severity = Some(severity),
                    }
                }
            }
            SetOption::ErrorLevel(on) => self.errorlevel_on = on,
            SetOption::MaxError(n) => self.maxerror = Some(n),
            SetOption::EchoReq(mode) => {
                if !self.interactive {
                    self.echo = mode == Echo::On;
                    self.echo_errors = mode == Echo::ErrorOnly;
                }
            }
            SetOption::Quiet(on) => self.quiet = on,
            SetOption::Null(text) => self.report.null = text,
            SetOption::Separator(text) => self.report.separator = text,
            SetOption::TitleDashes(on) => self.report.titledashes = on,
            SetOption::RetLimit(n) => self.report.retlimit = n,
            SetOption::Width(n) => self.report.width = Some(n),
            SetOption::SideTitles(on) => self.report.sidetitles = on,
            SetOption::RecordMode(on) => self.record_mode = on,
            SetOption::FoldLine(fold) => self.report.foldline = fold,
            SetOption::Format(on) => self.report.page.on = on,
            SetOption::Title { rtitle, text } => {
                self.report.page.title = text.map(|t| {
                    if rtitle {
                        page::Title::RTitle(t)
                    } else {
                        page::Title::Heading(t)
                    }
                });
            }
            SetOption::Footing(text) => self.report.page.footing = text,
            SetOption::PageLength(n) => self.report.page.length = n,
            SetOption::FormChar(c) => self.report.page.formchar = c,
            SetOption::Columns(control, on, cols) => {
                let p = &mut self.report.page;
                let columns = match control {
                    ColumnControl::SkipLine => &mut p.skipline,
                    ColumnControl::SkipDouble => &mut p.skipdouble,
                    ColumnControl::Suppress => &mut p.suppress,
                    ColumnControl::PageBreak => &mut p.pagebreak,
                };
                columns.set(on, cols.as_deref());
            }
            SetOption::SessionTransaction { ansi } => {
                let mode = if ansi {
                    SessionMode::Ansi
                } else {
                    SessionMode::Teradata
                };
                // BTEQ's place for it is before .LOGON: while a .LOGON's session is open it
                // keeps the mode and warns, as BTEQ does (SESSION TRANSACTION: "all database
                // user sessions must be logged off"); the session tdlite starts with (a script
                // without .LOGON) takes it
                if self.logged_on && self.logged_on_by_command {
                    self.out(concat!(
                        " *** Warning: You must not be logged on to change the SQLFLAG or ",
                        "TRANSACTION settings.\n"
                    ));
                    return;
                }
                match self.session.set_mode(mode) {
                    Ok(()) => self.out(" *** Session mode set.\n"),
                    Err(e) => self.error(&format!(
                        ".SET SESSION TRANSACTION: {e} (end the transaction first)"
                    )),
                }
            }
            SetOption::Accepted(_) => {}
        }
    }

    fn os(&mut self, cmd: &str) {
        if !self.allow_os {
            self.error(".OS is off: start tdlite with --allow-os to run shell commands.");
            return;
        }
        match std::process::Command::new("sh").arg("-c").arg(cmd).output() {
            Ok(o) => {
                self.out(&String::from_utf8_lossy(&o.stdout));
                self.out(&String::from_utf8_lossy(&o.stderr));
            }
            Err(e) => self.error(&format!(".OS: cannot run a shell: {e}")),
        }
    }

    /// A request's error message, followed on standard error by the request's text if ECHOREQ
    /// ERRORONLY held it back (once per request, however many times `.REPEAT` runs it).
    fn failure_out(&mut self, message: &str) {
        self.out(message);
        if let Some(text) = self.pending_echo.take() {
            let mut e = std::io::stderr().lock();
            let _ = writeln!(e, "{text}\n");
        }
    }

    fn controls(&self) -> String {
        let r = &self.report;
        let p = &r.page;
        let on = |b: bool| if b { "ON" } else { "OFF" };
        let text = |t: Option<&String>| t.map_or("NULL".to_string(), |t| format!("'{t}'"));
        let columns = |c: &page::Columns| match (c.all, c.listed.is_empty()) {
            (true, _) => "ON ALL".to_string(),
            (false, true) => "OFF".to_string(),
            (false, false) => {
                let cols: Vec<String> = c.listed.iter().map(usize::to_string).collect();
                format!("ON {}", cols.join(", "))
            }
        };
        let heading = match &p.title {
            Some(page::Title::Heading(h)) => (Some(h), None),
            Some(page::Title::RTitle(t)) => (None, Some(t)),
            None => (None, None),
        };
        let settings: Vec<(&str, String)> = vec![
            (
                "ECHOREQ",
                match (self.echo, self.echo_errors) {
                    (true, _) => "ON",
                    (false, true) => "ERRORONLY",
                    (false, false) => "OFF",
                }
                .into(),
            ),
            ("ERRORLEVEL", on(self.errorlevel_on).into()),
            ("FOOTING", text(p.footing.as_ref())),
            ("FORMAT", on(p.on).into()),
            ("FORMCHAR", on(p.formchar.is_some()).into()),
            ("HEADING", text(heading.0)),
            (
                "MAXERROR",
                self.maxerror.map_or("NONE".into(), |m| m.to_string()),
            ),
            ("NULL", r.null.clone()),
            ("PAGEBREAK", columns(&p.pagebreak)),
            ("PAGELENGTH", p.length.to_string()),
            ("QUIET", on(self.quiet).into()),
            (
                "RETLIMIT",
                if r.retlimit == 0 {
                    "ALL".to_string()
                } else {
                    r.retlimit.to_string()
                },
            ),
            ("RTITLE", text(heading.1)),
            ("SEPARATOR", format!("'{}'", r.separator)),
            (
                "SESSION TRANSACTION",
                match self.session.mode() {
                    SessionMode::Teradata => "BTET",
                    SessionMode::Ansi => "ANSI",
                }
                .into(),
            ),
            ("SKIPDOUBLE", columns(&p.skipdouble)),
            ("SKIPLINE", columns(&p.skipline)),
            ("SUPPRESS", columns(&p.suppress)),
            ("TITLEDASHES", on(r.titledashes).into()),
        ];
        let mut out = String::new();
        for (name, value) in settings {
            out.push_str(&format!(" [SET] {name:<13} = {value}\n"));
        }
        out.push_str(&format!(
            " [SET] {:<13} = {}\n",
            "WIDTH",
            r.width.map_or("no limit".into(), |w| w.to_string())
        ));
        out
    }
}

/// How a command line is shown (echo, history): a `.LOGON` anywhere in it (also as an `.IF`
/// action) loses what follows the user name, the password.
pub fn echo_form(line: &str) -> String {
    let upper = line.to_ascii_uppercase();
    if let Some(at) = upper.find(".LOGON") {
        if let Some(comma) = line[at..].find(',') {
            return line[..at + comma + 1].to_string();
        }
    }
    line.to_string()
}

/// The SQLSTATE of error `code`: `00000` after success, else Teradata's `T` + the code.
fn sqlstate(code: u32) -> String {
    if code == 0 {
        "00000".to_string()
    } else {
        format!("T{code:04}")
    }
}
