//! The interactive REPL: rustyline reads one line at a time; lines gather into a request until
//! BTEQ's rule completes it (a `;` at the end of a line), with a continuation prompt meanwhile.
//! A dot command on any line, even in the middle of an unfinished request, runs at once (the
//! request goes on after it). A history file keeps whole requests; Ctrl-C clears the unfinished
//! input or cancels a waiting consume, and Ctrl-D or `.quit` leaves.

use crate::runner::{Flow, Runner};
use rustyline::error::ReadlineError;
use rustyline::history::DefaultHistory;
use tdlite_parser::split_requests;

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
    let cancel = runner.session.cancel_handle();
    let _ = ctrlc::set_handler(move || {
        cancel.cancel();
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
    let mut pending = String::new();
    loop {
        let prompt = if pending.is_empty() {
            PROMPT
        } else {
            CONTINUATION
        };
        match rl.readline(prompt) {
            Ok(line) => {
                pending.push_str(&line);
                pending.push('\n');
                let (requests, rest) = split_requests(&pending);
                pending = rest;
                for r in requests {
                    let _ = rl.add_history_entry(r.text.as_str());
                    if let Flow::Quit = runner.run(&r.text) {
                        save(&mut rl, &history);
                        return runner.leave();
                    }
                }
            }
            Err(ReadlineError::Interrupted) => {
                if !pending.is_empty() {
                    pending.clear();
                    println!(" *** Input buffer reset. Type '.quit' to exit.");
                }
            }
            Err(ReadlineError::Eof) => {
                if !pending.trim().is_empty() {
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
