//! The interactive REPL: rustyline with multi-line input completed by BTEQ's rule (a `;` at the
//! end of a line), a history file, Ctrl-C to clear the input or cancel a waiting consume, and
//! Ctrl-D to leave.

use crate::runner::{Flow, Runner};
use rustyline::error::ReadlineError;
use rustyline::validate::{ValidationContext, ValidationResult, Validator};
use rustyline::{Completer, Helper, Highlighter, Hinter};
use tdlite_parser::split::{is_complete, split_requests};

#[derive(Completer, Helper, Highlighter, Hinter)]
struct RequestValidator;

impl Validator for RequestValidator {
    fn validate(&self, ctx: &mut ValidationContext<'_>) -> rustyline::Result<ValidationResult> {
        let input = ctx.input();
        let trimmed = input.trim();
        if trimmed.is_empty() || trimmed.starts_with('.') || is_complete(input) {
            Ok(ValidationResult::Valid(None))
        } else {
            Ok(ValidationResult::Incomplete)
        }
    }
}

fn history_path() -> Option<std::path::PathBuf> {
    std::env::var_os("HOME").map(|h| std::path::Path::new(&h).join(".tdlite_history"))
}

/// Runs the REPL until `.quit` or Ctrl-D; returns BTEQ's return code.
pub fn run_repl(runner: &mut Runner) -> i32 {
    let mut rl =
        match rustyline::Editor::<RequestValidator, rustyline::history::DefaultHistory>::new() {
            Ok(rl) => rl,
            Err(e) => {
                eprintln!(" *** Error: cannot start the line editor: {e}");
                return 12;
            }
        };
    rl.set_helper(Some(RequestValidator));
    let history = history_path();
    if let Some(h) = &history {
        let _ = rl.load_history(h);
    }
    let cancel = runner.session.cancel_handle();
    let _ = ctrlc::set_handler(move || {
        cancel.cancel();
    });
    let place = match runner.db.path() {
        Some(p) => format!("database {}", p.display()),
        None => "in memory".to_string(),
    };
    println!(
        "tdlite {} — Teradata SQL with queue tables ({place}). Type .help for help.",
        env!("CARGO_PKG_VERSION")
    );
    loop {
        match rl.readline("tdlite> ") {
            Ok(line) => {
                if line.trim().is_empty() {
                    continue;
                }
                let _ = rl.add_history_entry(line.as_str());
                let (requests, rest) = split_requests(&line);
                for r in requests {
                    if let Flow::Quit = runner.run(&r.text) {
                        save(&mut rl, &history);
                        return runner.rc;
                    }
                }
                if !rest.trim().is_empty() {
                    runner.run(&rest);
                }
            }
            Err(ReadlineError::Interrupted) => continue,
            Err(ReadlineError::Eof) => break,
            Err(e) => {
                eprintln!(" *** Error: {e}");
                break;
            }
        }
    }
    save(&mut rl, &history);
    runner.rc
}

fn save(
    rl: &mut rustyline::Editor<RequestValidator, rustyline::history::DefaultHistory>,
    history: &Option<std::path::PathBuf>,
) {
    if let Some(h) = history {
        let _ = rl.save_history(h);
    }
}
