//! The `tdlite` command: a BTEQ-like REPL (no arguments, a terminal on standard input), or a
//! script runner (`-f FILE`, or a script piped to standard input), on an in-memory database or,
//! with `tdlite PATH`, on the database kept in folder PATH. The exit status is BTEQ's return
//! code: 0 success, 4 warning, 8 user error, 12 severe.

mod dot;
mod export;
mod format;
mod page;
mod record;
mod repl;
mod report;
mod runner;
mod script;
mod serve;

use std::io::IsTerminal;
use std::time::Duration;
use tdlite::{Database, Options, SessionMode, SyncMode};

const USAGE: &str = "\
usage: tdlite [PATH] [-f FILE | --init FILE] [--consume-timeout SECONDS] [--sync full|normal|off]
              [--mode teradata|ansi] [--charset utf8|latin1] [--allow-os]
              [--format csv|tsv|json|arrow] [--strict]
       tdlite serve [PATH] [OPTIONS]   (a server for PostgreSQL clients)
       tdlite --help | --version";

const HELP: &str = "\
tdlite: an embedded SQL engine that speaks Teradata, with queue tables.
With a terminal on standard input and no -f: an interactive REPL (like BTEQ; type .help).
A script on standard input, or -f FILE, runs as BTEQ runs it: each request as soon as its
last line arrives. The exit status is BTEQ's return code: 0 ok, 2 SQL without a logon,
4 warning, 8 user error, 12 severe, or what .QUIT n says.
tdlite serve [PATH] shares one database with PostgreSQL clients in other processes (psql,
psycopg, …) that send Teradata SQL; tdlite serve --help lists its options.

  PATH                       keep the database in this folder (created if needed); without
                             it the database is in memory and gone when tdlite exits
  -f, --file FILE            run the script FILE, then exit
  --init FILE                run the script FILE, then go on in the REPL with its tables
                             (not with -f: one script runs, the other would be ignored)
  --consume-timeout SECONDS  bound each SELECT AND CONSUME wait (then error 9904); default:
                             wait until a row comes (the REPL's .timeout changes it)
  --sync full|normal|off     with PATH: full (default) syncs every commit to disk; normal
                             survives a killed process but may lose the latest commits on a
                             power cut; off may lose them on a kill too
  --mode teradata|ansi       session mode: teradata (BTET, default: each request commits
                             unless inside BT ... ET) or ansi (transactions end at COMMIT)
  --charset utf8|latin1      how script bytes are read: utf8 (default; a line that is not
                             UTF-8 fails its request with 6706) or latin1 (ISO 8859-1)
  --allow-os                 let .OS run shell commands (off by default: scripts from
                             elsewhere could run anything)
  --format csv|tsv|json|arrow
                             write the rows of each query to standard output in that format
                             (json: one object per line; arrow: an Arrow IPC stream per
                             query), and everything else to standard error
  --strict                   strict mode: refuse tdlite's extensions to Teradata SQL (batch
                             and bounded consumes, the TEXT type, != ...) and its own dot
                             commands with the errors Teradata and BTEQ give (docs/queues.md)
  -h, --help                 this text
  -V, --version              the version";
fn main() {
    std::process::exit(real_main());
}

fn real_main() -> i32 {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("serve") {
        return serve::main(&args[1..]);
    }
    let mut file = None;
    let mut timeout = None;
    let mut init = None;
    let mut path: Option<String> = None;
    let mut sync = None;
    let mut mode = SessionMode::Teradata;
    let mut charset = script::Charset::default();
    let mut allow_os = false;
    let mut strict = false;
    let mut data_format = None;
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "-f" | "--file" => {
                i += 1;
                match args.get(i) {
                    Some(f) => file = Some(f.clone()),
                    None => return usage_error("-f needs a file name"),
                }
            }
            "--init" => {
                i += 1;
                match args.get(i) {
                    Some(f) => init = Some(f.clone()),
                    None => return usage_error("--init needs a file name"),
                }
            }
            "--consume-timeout" => {
                i += 1;
                match args
                    .get(i)
                    .and_then(|s| s.parse::<f64>().ok())
                    .and_then(|s| Duration::try_from_secs_f64(s).ok())
                {
                    Some(d) => timeout = Some(d),
                    None => return usage_error("--consume-timeout needs a number of seconds"),
                }
            }
            "-h" | "--help" => {
                println!("{USAGE}\n\n{HELP}");
                return 0;
            }
            "-V" | "--version" => {
                println!("tdlite {}", env!("CARGO_PKG_VERSION"));
                return 0;
            }
            "--sync" => {
                i += 1;
                match args.get(i).map(|m| m.parse::<SyncMode>()) {
                    Some(Ok(m)) => sync = Some(m),
                    Some(Err(e)) => return usage_error(&e),
                    None => return usage_error("--sync needs full, normal or off"),
                }
            }
            "--charset" => {
                i += 1;
                match args.get(i).map(|c| c.parse::<script::Charset>()) {
                    Some(Ok(c)) => charset = c,
                    Some(Err(e)) => return usage_error(&e),
                    None => return usage_error("--charset needs utf8 or latin1"),
                }
            }
            "--allow-os" => allow_os = true,
            "--strict" => strict = true,
            "--format" => {
                i += 1;
                match args.get(i).map(|f| f.parse::<export::DataFormat>()) {
                    Some(Ok(f)) => data_format = Some(f),
                    Some(Err(e)) => return usage_error(&e),
                    None => return usage_error("--format needs csv, tsv, json or arrow"),
                }
            }
            "--mode" => {
                i += 1;
                mode = match args.get(i).map(|m| m.to_ascii_lowercase()).as_deref() {
                    Some("ansi") => SessionMode::Ansi,
                    Some("teradata") | Some("btet") => SessionMode::Teradata,
                    _ => return usage_error("--mode needs teradata or ansi"),
                };
            }
            other if other.starts_with('-') => {
                return usage_error(&format!("unknown option {other}"))
            }
            p if path.is_none() => path = Some(p.to_string()),
            extra => return usage_error(&format!("unexpected argument '{extra}'")),
        }
        i += 1;
    }
    if file.is_some() && init.is_some() {
        return usage_error("-f and --init both name a script: use one (-f runs it and exits)");
    }
    if sync.is_some() && path.is_none() {
        return usage_error("--sync needs a database folder (PATH): in memory nothing is synced");
    }
    let db = match open_database(path.as_deref(), sync) {
        Ok(db) => db,
        Err(status) => return status,
    };
    for line in db.recovery_report() {
        eprintln!(" *** Warning: recovery: {line}");
    }
    let mut runner = runner::Runner::new(db);
    runner.set_consume_timeout(timeout);
    runner.charset = charset;
    runner.allow_os = allow_os;
    runner.set_strict(strict);
    runner.data_format = data_format;
    if runner.session.set_mode(mode).is_err() {
        return usage_error("cannot set the session mode");
    }
    let open = |f: &str| {
        std::fs::File::open(f)
            .map(std::io::BufReader::new)
            .map_err(|e| eprintln!(" *** Error: cannot read '{f}': {e}"))
    };
    if let Some(f) = file {
        let Ok(input) = open(&f) else { return 8 };
        stop_script_on_ctrl_c(&runner);
        runner.echo = true;
        script::run_reader(&mut runner, input, charset);
        return runner.leave();
    }
    if let Some(f) = init {
        let Ok(input) = open(&f) else { return 8 };
        runner.echo = true;
        script::run_reader(&mut runner, input, charset);
        runner.echo = false;
        runner.rc = 0;
    }
    if std::io::stdin().is_terminal() {
        return repl::run_repl(&mut runner);
    }
    // a pipe: each request runs as soon as its last line arrives
    stop_script_on_ctrl_c(&runner);
    runner.echo = true;
    script::run_reader(&mut runner, std::io::stdin().lock(), charset);
    runner.leave()
}

/// Ctrl-C while a script runs: the running request is cancelled (it fails, 3110 or a
/// consume's 9905, and is rolled back) and the script stops after it, with the usual logoff
/// lines and return code. Between requests no further request starts: the script stops
/// after the line being read (a pipe's writer gets the same Ctrl-C and closes it). A second
/// Ctrl-C exits at once with 130 (a read that does not end, or one long Arrow kernel, is not
/// stopped by the first).
fn stop_script_on_ctrl_c(runner: &runner::Runner) {
    let cancel = runner.cancel.clone();
    let interrupted = runner.interrupted.clone();
    let _ = ctrlc::set_handler(move || {
        if interrupted.swap(true, std::sync::atomic::Ordering::SeqCst) {
            // a second Ctrl-C: something did not stop (a blocked read, a long kernel); leave
            // now, as an interrupted shell command does (uncommitted work stays uncommitted)
            std::process::exit(130);
        }
        cancel.lock().unwrap_or_else(|e| e.into_inner()).cancel();
    });
}

/// The database in folder `path` (synced as `sync` says), or a new one in memory; on failure,
/// the error printed and the exit status (8 for a folder another process has open, else 12).
pub(crate) fn open_database(path: Option<&str>, sync: Option<SyncMode>) -> Result<Database, i32> {
    let Some(p) = path else {
        return Ok(Database::new());
    };
    let opts = Options {
        sync: sync.unwrap_or(SyncMode::Full),
        ..Options::default()
    };
    Database::open_with(p, opts).map_err(|e| {
        let code = e.code().number;
        eprintln!(" *** Failure {code} {e}");
        if code == 9915 {
            8
        } else {
            12
        }
    })
}

fn usage_error(msg: &str) -> i32 {
    eprintln!(" *** Error: {msg}\n{USAGE}\n(tdlite --help describes each option)");
    8
}
