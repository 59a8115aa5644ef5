//! Non-interactive runs: a script file (`-f FILE`, `.RUN FILE`) or standard input, read one
//! line at a time and cut into requests by BTEQ's rule as the lines arrive, so each request
//! runs (and its output is flushed) as soon as its last line is read, even on a pipe that
//! stays open. Each request is echoed and followed by its results, as BTEQ does in batch mode.
//!
//! Invariants: a line that is not valid text never stops the run (the request it belongs to
//! fails with 6706, or, with `--charset latin1`, its bytes are read as Latin-1); `.GOTO` only
//! skips forward; a `.RUN` inside a run file ends that file when the run file it names ends
//! (BTEQ chains run files: it does not return to the one that ran another).

use crate::runner::{Flow, Runner, MAX_RUN_DEPTH};
use std::io::BufRead;
use tdlite_parser::Splitter;

/// How the bytes of a script become text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Charset {
    /// UTF-8 (a line that is not UTF-8 makes its request fail with 6706).
    #[default]
    Utf8,
    /// ISO 8859-1: every byte is the character of the same number.
    Latin1,
}

impl std::str::FromStr for Charset {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().replace(['-', '_'], "").as_str() {
            "utf8" => Ok(Charset::Utf8),
            "latin1" | "iso88591" => Ok(Charset::Latin1),
            _ => Err(format!("unknown charset '{s}' (utf8 or latin1)")),
        }
    }
}

/// Feeds lines to a runner: cuts them into requests and commands, skips forward after
/// `.GOTO` and through the branches of `.IF` blocks not taken, and marks requests that hold a
/// line that could not be decoded.
#[derive(Default)]
pub struct Feeder {
    splitter: Splitter,
    /// The label `.GOTO` is skipping to.
    skipping: Option<String>,
    /// The `.IF` blocks (without THEN) open now, innermost last.
    blocks: Vec<Block>,
    /// The first undecodable line of the request being read.
    bad_line: Option<usize>,
    lines: usize,
    /// The text of the last request or command run (the REPL's history takes it).
    completed: Option<String>,
}

impl Feeder {
    /// Reads one line (`undecodable`: its bytes were not valid in the charset) and runs what it
    /// completes.
    pub fn line(&mut self, runner: &mut Runner, line: &str, undecodable: bool) -> Flow {
        self.lines += 1;
        if undecodable && self.bad_line.is_none() {
            self.bad_line = Some(self.lines);
        }
        let Some(piece) = self.splitter.push_line(line) else {
            return Flow::Continue;
        };
        let is_command = crate::dot::is_command(&piece.text);
        let bad = if is_command {
            None
        } else {
            self.bad_line.take()
        };
        let quit = || {
            matches!(
                crate::dot::parse(&piece.text),
                Ok(crate::dot::Command::Quit(_))
            )
        };
        // at a terminal, .QUIT always leaves, even while lines are being skipped
        if runner.interactive && is_command && quit() {
            return runner.run(&piece.text);
        }
        if let Some(label) = &self.skipping {
            if is_command && is_label(&piece.text, label) {
                self.skipping = None;
            } else if is_command {
                // skipped .IF blocks still open and close, so that a .GOTO out of a block
                // leaves no block open and one over a whole block leaves none behind
                match crate::dot::parse(&piece.text) {
                    Ok(crate::dot::Command::IfBlock(_)) => self.blocks.push(Block {
                        outer: false,
                        taken: true,
                        active: false,
                    }),
                    Ok(crate::dot::Command::EndIf) => {
                        self.blocks.pop();
                    }
                    _ => {}
                }
            }
            return Flow::Continue;
        }
        if is_command {
            match crate::dot::parse(&piece.text) {
                Ok(command) if command.is_block() => {
                    runner.echo_command(&piece.text);
                    self.block(runner, &command);
                    return Flow::Continue;
                }
                Err(msg) if opens_or_continues_block(&piece.text) => {
                    // a block .IF or .ELSEIF whose test does not parse: said (where it is
                    // read), and taken as false, so that neither its lines nor an .ELSE after
                    // it run, and the .ENDIF still closes it
                    let outer = self.active();
                    if outer {
                        runner.echo_command(&piece.text);
                        runner.error(&msg);
                    }
                    match self.blocks.last_mut() {
                        Some(b) if first_word(&piece.text) == "ELSEIF" => {
                            b.active = false;
                            b.taken = true;
                        }
                        _ => self.blocks.push(Block {
                            outer,
                            taken: true,
                            active: false,
                        }),
                    }
                    return Flow::Continue;
                }
                _ => {}
            }
        }
        if !self.active() {
            return Flow::Continue;
        }
        let flow = match bad {
            Some(at) => runner.undecodable(&piece.text, at),
            None => runner.run(&piece.text),
        };
        self.completed = Some(piece.text);
        self.follow(flow)
    }

    /// The text of the request or command the last line completed, once.
    pub fn take_completed(&mut self) -> Option<String> {
        self.completed.take()
    }

    /// The end of input: runs an unfinished request as it is (BTEQ does), unless `.GOTO` is
    /// still looking for its label.
    pub fn finish(&mut self, runner: &mut Runner) -> Flow {
        let pending = self.splitter.take_pending();
        if self.skipping.is_some() {
            return Flow::Continue;
        }
        match (pending, self.bad_line.take()) {
            (Some(r), Some(at)) => runner.undecodable(&r.text, at),
            (Some(r), None) => {
                let flow = runner.run(&r.text);
                self.follow(flow)
            }
            (None, _) => Flow::Continue,
        }
    }

    /// True while a request is unfinished.
    pub fn has_pending(&self) -> bool {
        !self.splitter.pending().is_empty()
    }

    /// Drops the unfinished request (the REPL's Ctrl-C).
    pub fn clear(&mut self) {
        self.splitter.take_pending();
        self.bad_line = None;
    }

    fn follow(&mut self, flow: Flow) -> Flow {
        match flow {
            Flow::Goto(label) => {
                self.skipping = Some(label);
                Flow::Continue
            }
            other => other,
        }
    }
}

/// One open `.IF` block.
#[derive(Debug, Clone, Copy)]
struct Block {
    /// The enclosing code runs (else the whole block is skipped).
    outer: bool,
    /// A branch of this block was taken already.
    taken: bool,
    /// The branch being read runs.
    active: bool,
}

impl Feeder {
    /// True if the code being read runs (no `.IF` branch around it was left untaken).
    fn active(&self) -> bool {
        self.blocks.last().is_none_or(|b| b.active)
    }

    /// Handles `.IF` (block form), `.ELSEIF`, `.ELSE` and `.ENDIF` (see `Command::is_block`).
    fn block(&mut self, runner: &mut Runner, command: &crate::dot::Command) {
        use crate::dot::Command;
        match command {
            Command::IfBlock(c) => {
                let outer = self.active();
                let holds = outer && runner.holds(c);
                self.blocks.push(Block {
                    outer,
                    taken: holds,
                    active: holds,
                });
            }
            Command::ElseIf(c) => match self.blocks.last_mut() {
                Some(b) => {
                    b.active = b.outer && !b.taken && runner.holds(c);
                    b.taken |= b.active;
                }
                None => runner.error(".ELSEIF without .IF."),
            },
            Command::Else => match self.blocks.last_mut() {
                Some(b) => {
                    b.active = b.outer && !b.taken;
                    b.taken = true;
                }
                None => runner.error(".ELSE without .IF."),
            },
            Command::EndIf if self.blocks.pop().is_none() => runner.error(".ENDIF without .IF."),
            _ => {}
        }
    }
}

/// The command word of a dot-command line, upper-cased.
fn first_word(line: &str) -> String {
    line.trim()
        .trim_start_matches('.')
        .split(|c: char| !c.is_ascii_alphanumeric())
        .next()
        .unwrap_or("")
        .to_ascii_uppercase()
}

/// True for `.IF` without THEN and for `.ELSEIF`: lines that open or continue a block.
fn opens_or_continues_block(line: &str) -> bool {
    match first_word(line).as_str() {
        "ELSEIF" => true,
        "IF" => !line
            .to_ascii_uppercase()
            .split_whitespace()
            .any(|w| w == "THEN"),
        _ => false,
    }
}

/// True if `command` is `.LABEL label` (labels compare without regard to case).
fn is_label(command: &str, label: &str) -> bool {
    matches!(crate::dot::parse(command), Ok(crate::dot::Command::Label(l)) if l.eq_ignore_ascii_case(label))
}

/// Runs the lines of `input` as they arrive; returns `Flow::Quit` if `.QUIT` (or MAXERROR)
/// ended the run.
pub fn run_reader(runner: &mut Runner, mut input: impl BufRead, charset: Charset) -> Flow {
    let mut feeder = Feeder::default();
    let mut buf = Vec::new();
    let mut first = true;
    loop {
        buf.clear();
        match input.read_until(b'\n', &mut buf) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => {
                runner.error(&format!("cannot read the input: {e}"));
                runner.rc = runner.rc.max(12);
                return Flow::Quit;
            }
        }
        let mut bytes = &buf[..];
        if first {
            // a UTF-8 byte-order mark before the first line is not text
            bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
            first = false;
        }
        let (line, undecodable) = decode(bytes, charset);
        match feeder.line(runner, &line, undecodable) {
            Flow::Quit => return Flow::Quit,
            Flow::EndOfFile => return Flow::Continue,
            Flow::Continue | Flow::Goto(_) => {}
        }
        if runner.interrupted.load(std::sync::atomic::Ordering::SeqCst) {
            runner.out(" *** The script was interrupted (Ctrl-C).\n");
            return Flow::Quit;
        }
    }
    match feeder.finish(runner) {
        Flow::Quit => Flow::Quit,
        _ => Flow::Continue,
    }
}

fn decode(bytes: &[u8], charset: Charset) -> (String, bool) {
    match charset {
        Charset::Latin1 => (bytes.iter().map(|&b| char::from(b)).collect(), false),
        Charset::Utf8 => match std::str::from_utf8(bytes) {
            Ok(s) => (s.to_string(), false),
            Err(_) => (String::from_utf8_lossy(bytes).into_owned(), true),
        },
    }
}

/// `.RUN FILE = path`: runs the file's lines (relative paths from the current directory, as
/// BTEQ does), then goes on with the input that named it.
pub fn run_file(runner: &mut Runner, path: &str) -> Flow {
    if runner.run_depth >= MAX_RUN_DEPTH {
        runner.error(&format!(
            ".RUN files nest more than {MAX_RUN_DEPTH} deep; '{path}' not run."
        ));
        return Flow::Continue;
    }
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) => {
            runner.error(&format!("cannot open the run file '{path}': {e}"));
            return Flow::Continue;
        }
    };
    runner.run_depth += 1;
    let flow = run_reader(runner, std::io::BufReader::new(file), runner.charset);
    runner.run_depth -= 1;
    match flow {
        Flow::Quit => Flow::Quit,
        // a run file that ran another is done (BTEQ chains run files)
        _ if runner.run_depth > 0 => Flow::EndOfFile,
        _ => Flow::Continue,
    }
}
