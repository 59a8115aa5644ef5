//! The interactive REPL: rustyline reads one line at a time; lines gather into a request until
//! BTEQ's rule completes it (a `;` at the end of a line), with a continuation prompt meanwhile.
//! A dot command on any line, even in the middle of an unfinished request, runs at once (the
//! request goes on after it). A history file keeps whole requests; Ctrl-C clears the unfinished
//! input or cancels a waiting consume, and Ctrl-D or `.quit` leaves.

use crate::runner::{Flow, Runner};
use crate::script::Feeder;
use rustyline::error::ReadlineError;
use rustyline::history::DefaultHistory;

/// The prompt for a new request.
pub const PROMPT: &str = "tdlite> ";
/// The prompt while a request is unfinished (no `;` has ended a line yet).
pub const CONTINUATION: &str = "     -> ";

type Editor = rustyline::Editor<(), DefaultHistory>;

fn history_path() -> Option<std::path::PathBuf> {
    std::env::var_os("HOME").map(|h| std::path::Path::new(&h).join(".tdlite_history"))
}

/// Runs the REPL until `.quit` or Ctrl-D; returns BTEQ's return code.
pub fn run_repl(runner: &mut Runner) -> i32 {
    let mut rl = match Editor::new() {
        Ok(rl) => rl,
        Err(e) => {
            eprintln!(" *** Error: cannot start the line editor: {e}");
            return 12;
        }
    };
    let history = history_path();
    if let Some(h) = &history {
        let _ = rl.load_history(h);
    }
    // the handler finds the session's cancel handle in the runner's slot (a .LOGON replaces it)
    let cancel = runner.cancel.clone();
    let _ = ctrlc::set_handler(move || {
        cancel.lock().unwrap_or_else(|e| e.into_inner()).cancel();
    });
    runner.interactive = true;
    let place = match runner.db.path() {
        Some(p) => format!("database {}", p.display()),
        None => "in memory".to_string(),
    };
    println!(
        "tdlite {} — Teradata SQL with queue tables ({place}). Type .help for help.",
        env!("CARGO_PKG_VERSION")
    );
    let mut feeder = Feeder::default();
    loop {
        let prompt = if feeder.has_pending() {
            CONTINUATION
        } else {
            PROMPT
        };
        match rl.readline(prompt) {
            Ok(line) => {
                let flow = feeder.line(runner, &line, false);
                if let Some(done) = feeder.take_completed() {
                    // never a password in the history file
                    let _ = rl.add_history_entry(crate::runner::echo_form(&done).as_str());
                }
                if flow == Flow::Quit {
                    save(&mut rl, &history);
                    return runner.leave();
                }
            }
            Err(ReadlineError::Interrupted) => {
                if feeder.has_pending() {
                    feeder.clear();
                    println!(" *** Input buffer reset. Type '.quit' to exit.");
                }
            }
            Err(ReadlineError::Eof) => {
                if feeder.has_pending() {
                    println!(" *** Unfinished request not run: no ';' ended a line.");
                }
                break;
            }
            Err(e) => {
                eprintln!(" *** Error: {e}");
                break;
            }
        }
    }
    save(&mut rl, &history);
    runner.leave()
}

fn save(rl: &mut Editor, history: &Option<std::path::PathBuf>) {
    if let Some(h) = history {
        let _ = rl.save_history(h);
    }
}
