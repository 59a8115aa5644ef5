//! The `tdlite` command: a BTEQ-like REPL (no arguments, a terminal on standard input), or a
//! script runner (`-f FILE`, or a script piped to standard input). The exit status is BTEQ's
//! return code: 0 success, 4 warning, 8 user error, 12 severe.

mod format;
mod repl;
mod runner;
mod script;

use std::io::{IsTerminal, Read};
use std::time::Duration;

const USAGE: &str = "usage: tdlite [-f FILE | --init FILE] [--consume-timeout SECONDS]
  -f FILE      run a script and exit
  --init FILE  run a script, then continue in the REPL with its tables
  (no FILE and a terminal: interactive REPL; a script on standard input runs non-interactively)";

fn main() {
    std::process::exit(real_main());
}

fn real_main() -> i32 {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut file = None;
    let mut timeout = None;
    let mut init = None;
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
                println!("{USAGE}");
                return 0;
            }
            other if other.starts_with('-') => {
                return usage_error(&format!("unknown option {other}"))
            }
            path => {
                eprintln!(
                    " *** Error: tdlite cannot open a database folder ('{path}') yet: on-disk databases are not built. \
                     Run `tdlite` without a path for an in-memory database."
                );
                return 8;
            }
        }
        i += 1;
    }
    let mut runner = runner::Runner::new(tdlite::Database::new());
    runner.session.set_consume_timeout(timeout);
    if let Some(f) = file {
        return match std::fs::read(&f) {
            Ok(bytes) => script::run_script(&mut runner, &bytes),
            Err(e) => {
                eprintln!(" *** Error: cannot read '{f}': {e}");
                8
            }
        };
    }
    if let Some(f) = init {
        match std::fs::read(&f) {
            Ok(bytes) => {
                script::run_script(&mut runner, &bytes);
                runner.echo = false;
                runner.rc = 0;
            }
            Err(e) => {
                eprintln!(" *** Error: cannot read '{f}': {e}");
                return 8;
            }
        }
    }
    if std::io::stdin().is_terminal() {
        return repl::run_repl(&mut runner);
    }
    let mut bytes = Vec::new();
    if let Err(e) = std::io::stdin().read_to_end(&mut bytes) {
        eprintln!(" *** Error: cannot read standard input: {e}");
        return 8;
    }
    script::run_script(&mut runner, &bytes)
}

fn usage_error(msg: &str) -> i32 {
    eprintln!(" *** Error: {msg}\n{USAGE}");
    8
}
