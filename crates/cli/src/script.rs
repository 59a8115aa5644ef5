//! Non-interactive runs: a script file (`-f FILE`) or standard input, split into requests by
//! BTEQ's rule, each echoed and followed by its results, as BTEQ does in batch mode.

use crate::runner::{Flow, Runner};
use tdlite_parser::split_requests;

/// Runs a whole script (up to its `.quit`, if any); returns BTEQ's return code. The caller
/// decides what comes next: the end of the run (`Runner::leave`), or the REPL after `--init`.
pub fn run_script(runner: &mut Runner, bytes: &[u8]) -> i32 {
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            println!(
                " *** Error: the script is not valid UTF-8 (first bad byte at offset {}).",
                e.valid_up_to()
            );
            runner.rc = runner.rc.max(8);
            return runner.rc;
        }
    };
    runner.echo = true;
    let (requests, rest) = split_requests(text);
    for r in requests {
        if let Flow::Quit = runner.run(&r.text) {
            return runner.rc;
        }
    }
    if !rest.trim().is_empty() {
        // BTEQ runs a final request even without its ';' at end of input.
        runner.run(&rest);
    }
    runner.rc
}
