//! Splitting script text into requests by BTEQ's rule: a request ends at a `;` that is the last
//! non-blank character of a line. `a; b;` on one line is therefore one multi-statement request.
//! Semicolons inside string literals, quoted names and comments do not count, and a trailing
//! `-- comment` after the `;` does not hide it.
//!
//! Invariant: every line of the input is in exactly one request or in the returned remainder
//! (blank text between requests aside). Requests come in the order they are complete, so a dot
//! command typed inside an unfinished request comes before that request.

/// One request cut out of a script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestText {
    /// The request's text, including its final `;`.
    pub text: String,
    /// The script line (1-based) the request starts on.
    pub line: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum State {
    #[default]
    Code,
    Str,
    Quoted,
    Block,
}

/// Splits `script` into complete requests and returns them with the unterminated rest (see
/// [`Splitter`] for the rules).
pub fn split_requests(script: &str) -> (Vec<RequestText>, String) {
    let mut splitter = Splitter::default();
    let out = script
        .split_inclusive('\n')
        .filter_map(|line| splitter.push_line(line))
        .collect();
    (out, splitter.pending().to_string())
}

/// Cuts a stream of lines into requests as they complete, one line at a time (for input that
/// arrives while it runs: a pipe, a terminal).
///
/// - A request ends at a line whose last significant character is a `;` outside string
///   literals, quoted names, comments and parentheses (BTEQ's rule: a macro body's `;`s inside
///   `AS ( … )` do not end the request).
/// - A dot command (a line whose first non-blank character is a `.` followed by a letter,
///   outside string literals, quoted names and comments) is complete at once, without a `;`,
///   even in the middle of an unfinished SQL request, which goes on with the next line.
/// - A line starting with `*` where no request is under way is a comment (BTEQ's rule).
#[derive(Debug, Default)]
pub struct Splitter {
    current: String,
    start_line: usize,
    line_no: usize,
    state: State,
    /// Parentheses open in code so far.
    depth: u32,
    /// The request so far has code: more than blanks and comments (which alone start no
    /// request: a `*` line or `= n` after them is still BTEQ's).
    has_code: bool,
    /// The BEGIN … END blocks of a `CREATE|REPLACE PROCEDURE` request, counted as its lines
    /// come (each line's text once).
    procedure: ProcedureCount,
}

/// How far a request's procedure blocks are counted (see [`Splitter::procedure_blocks`]).
#[derive(Debug, Default)]
struct ProcedureCount {
    /// Whether the request is a procedure, once its first two words are known.
    known: Option<bool>,
    /// Bytes of the request counted so far (whole lines, each ending at a `;`).
    counted: usize,
    /// The blocks the counted text leaves open.
    blocks: crate::procedure::Blocks,
    /// The significant token before `counted`, as a word.
    prev: Option<String>,
}

impl Splitter {
    /// Reads one line (with or without its `\n`); returns the request or dot command it
    /// completes, if any.
    pub fn push_line(&mut self, raw_line: &str) -> Option<RequestText> {
        self.line_no += 1;
        let idle = !self.has_code;
        if self.state == State::Code && is_dot_command(raw_line) {
            if idle {
                self.current.clear();
            }
            return Some(RequestText {
                text: raw_line.trim().to_string(),
                line: self.line_no,
            });
        }
        if idle && self.state == State::Code && raw_line.trim_start().starts_with('*') {
            return None;
        }
        if idle && self.state == State::Code && repeat_count(raw_line).is_some() {
            self.current.clear();
            return Some(RequestText {
                text: raw_line.trim().to_string(),
                line: self.line_no,
            });
        }
        if self.current.trim().is_empty() {
            self.start_line = self.line_no;
        }
        let (ends, next_state, code) = line_ends_request(raw_line, self.state, &mut self.depth);
        self.state = next_state;
        self.has_code |= code;
        self.current.push_str(raw_line);
        if !raw_line.ends_with('\n') {
            self.current.push('\n');
        }
        // a procedure's `;`s inside BEGIN … END do not end its request
        if !ends || self.procedure_blocks() > 0 {
            return None;
        }
        let text = self.current.trim().to_string();
        self.current.clear();
        self.depth = 0;
        self.has_code = false;
        self.procedure = ProcedureCount::default();
        Some(RequestText {
            text,
            line: self.start_line,
        })
    }

    /// The unfinished request so far (empty if there is none; comments alone are none).
    pub fn pending(&self) -> &str {
        if self.has_code || self.state != State::Code {
            &self.current
        } else {
            ""
        }
    }

    /// Takes the unfinished request, if any (at the end of input, which BTEQ runs as it is),
    /// and starts afresh.
    pub fn take_pending(&mut self) -> Option<RequestText> {
        let text = self.pending().trim().to_string();
        let line = self.start_line;
        self.current.clear();
        self.state = State::Code;
        self.depth = 0;
        self.has_code = false;
        self.procedure = ProcedureCount::default();
        (!text.is_empty()).then_some(RequestText { text, line })
    }
}

impl Splitter {
    /// How many BEGIN … END blocks the request so far leaves open if it is a `CREATE|REPLACE
    /// PROCEDURE` (0 for any other request, or text that does not tokenize). Only the text
    /// since the last call is tokenized, so a long body costs its length, not its square.
    fn procedure_blocks(&mut self) -> usize {
        use sqlparser::tokenizer::{Token, Tokenizer};
        let count = &mut self.procedure;
        if count.known == Some(false) {
            return 0;
        }
        let Some(chunk) = self.current.get(count.counted..) else {
            return 0;
        };
        // most requests never name a procedure: no tokenizing for them
        if count.known.is_none()
            && !chunk
                .as_bytes()
                .windows(9)
                .any(|w| w.eq_ignore_ascii_case(b"PROCEDURE"))
        {
            return 0;
        }
        let Ok(tokens) =
            Tokenizer::new(&crate::dialect::TdliteDialect, chunk).tokenize_with_location()
        else {
            return 0;
        };
        let mut offsets = crate::parser::Offsets::new(chunk);
        let significant: Vec<(usize, Option<String>)> = tokens
            .iter()
            .filter(|t| !matches!(t.token, Token::Whitespace(_) | Token::EOF))
            .map(|t| {
                let at = offsets.byte_offset(crate::Location::from_sql(t.span.start));
                (at, crate::procedure::block_word(&t.token))
            })
            .collect();
        if count.known.is_none() {
            let head: Vec<String> = significant
                .iter()
                .take(2)
                .filter_map(|(_, w)| w.clone())
                .collect();
            if head.len() < 2 && significant.len() < 2 {
                return 0; // too early to tell
            }
            count.known = Some(crate::procedure::starts_procedure(&head));
            if count.known == Some(false) {
                return 0;
            }
        }
        // the chunk ends at this line's final `;` (it is only read when a line ends so), so
        // every token of it can be fed: what follows a word is in the same chunk
        let words: Vec<Option<String>> = significant.iter().map(|(_, w)| w.clone()).collect();
        for k in 0..words.len() {
            let prev = match k {
                0 => count.prev.clone(),
                _ => words[k - 1].clone(),
            };
            count.blocks.feed(&words, k, prev.as_deref());
        }
        if let Some(last) = words.last() {
            count.prev = last.clone();
        }
        count.counted = self.current.len();
        count.blocks.depth()
    }
}

/// BTEQ's `= [n]` line (repeat the last request n times, once by default): the count, or
/// `None` for any other line.
pub fn repeat_count(line: &str) -> Option<u64> {
    let rest = line.trim().strip_prefix('=')?;
    let rest = rest.trim().trim_end_matches(';').trim();
    if rest.is_empty() {
        Some(1)
    } else {
        rest.parse().ok()
    }
}

/// True if `line` is a BTEQ command line: its first non-blank character is a `.` followed by a
/// letter (`.quit`, `.set width 80`); `.5 * x` is SQL.
pub fn is_dot_command(line: &str) -> bool {
    let mut chars = line.trim_start().chars();
    chars.next() == Some('.') && chars.next().is_some_and(|c| c.is_ascii_alphabetic())
}

/// Scans one line; returns whether its last significant character is a `;` in code outside
/// parentheses (`depth` carries the open parentheses from line to line), the state at its end,
/// and whether it had code (anything but blanks and comments).
fn line_ends_request(line: &str, mut state: State, depth: &mut u32) -> (bool, State, bool) {
    let chars: Vec<char> = line.chars().collect();
    let mut last_significant_is_semicolon = false;
    let mut code = matches!(state, State::Str | State::Quoted);
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        match state {
            State::Code if c.is_whitespace() => {}
            State::Code if c == '-' && next == Some('-') => break,
            State::Code if c == '/' && next == Some('*') => {
                state = State::Block;
                i += 1;
            }
            State::Code => {
                code = true;
                last_significant_is_semicolon = false;
                match c {
                    '\'' => state = State::Str,
                    '"' => state = State::Quoted,
                    ';' => last_significant_is_semicolon = *depth == 0,
                    '(' => *depth += 1,
                    ')' => *depth = depth.saturating_sub(1),
                    _ => {}
                }
            }
            State::Str => {
                if c == '\'' {
                    if next == Some('\'') {
                        i += 1;
                    } else {
                        state = State::Code;
                    }
                }
            }
            State::Quoted => {
                if c == '"' {
                    state = State::Code;
                }
            }
            State::Block => {
                if c == '*' && next == Some('/') {
                    state = State::Code;
                    i += 1;
                }
            }
        }
        i += 1;
    }
    (
        last_significant_is_semicolon && state == State::Code,
        state,
        code,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(s: &str) -> Vec<String> {
        split_requests(s).0.into_iter().map(|r| r.text).collect()
    }

    #[test]
    fn semicolon_at_end_of_line_ends_a_request() {
        assert_eq!(
            texts("INS q(1); INS q(2);\nSEL * FROM q;\n"),
            vec!["INS q(1); INS q(2);", "SEL * FROM q;"]
        );
    }

    #[test]
    fn semicolon_mid_line_does_not_end_a_request() {
        let (reqs, rest) = split_requests("SEL 1; SEL\n2;\n");
        assert_eq!(reqs.len(), 1);
        assert_eq!(reqs[0].text, "SEL 1; SEL\n2;");
        assert_eq!(reqs[0].line, 1);
        assert!(rest.is_empty());
    }

    #[test]
    fn strings_and_comments_hide_semicolons() {
        let (reqs, rest) =
            split_requests("SEL 'a;\nb;' ;\n/* x;\n*/ SEL 1; -- done;\nSEL \"a;\"\n");
        assert_eq!(reqs.len(), 2);
        assert_eq!(reqs[1].text, "/* x;\n*/ SEL 1; -- done;");
        assert_eq!(rest, "SEL \"a;\"\n");
    }

    #[test]
    fn star_lines_between_requests_are_comments_and_star_inside_a_request_is_sql() {
        assert_eq!(
            texts("* a comment; not SQL\nSEL\n* FROM t;\n  *another;\n"),
            vec!["SEL\n* FROM t;"]
        );
    }

    #[test]
    fn a_splitter_completes_requests_line_by_line() {
        let mut s = Splitter::default();
        assert_eq!(s.push_line("SEL 1"), None);
        assert_eq!(s.pending(), "SEL 1\n");
        let r = s.push_line("  ;").expect("complete");
        assert_eq!((r.text.as_str(), r.line), ("SEL 1\n  ;", 1));
        assert_eq!(s.push_line("SEL 'a"), None);
        assert_eq!(s.push_line(".quit"), None, "inside a string: not a command");
        assert_eq!(
            s.take_pending().map(|r| r.text),
            Some("SEL 'a\n.quit".to_string())
        );
        assert_eq!(s.pending(), "");
        assert_eq!(s.push_line(".quit").map(|r| r.line), Some(5));
    }

    #[test]
    fn semicolons_inside_parentheses_do_not_end_a_request() {
        assert_eq!(
            texts("CREATE MACRO m AS (\n  INS t (1);\n  SEL * FROM t;\n);\nSEL (1);\n"),
            vec![
                "CREATE MACRO m AS (\n  INS t (1);\n  SEL * FROM t;\n);",
                "SEL (1);"
            ]
        );
        // a stray ')' does not make the count negative
        assert_eq!(texts("SEL 1);\nSEL 2;\n"), vec!["SEL 1);", "SEL 2;"]);
    }

    #[test]
    fn a_repeat_line_between_requests_is_a_command() {
        assert_eq!(
            texts("INS t (1);\n= 3\n=;\nSEL a\n= 2;\n"),
            vec!["INS t (1);", "= 3", "=;", "SEL a\n= 2;"]
        );
        assert_eq!(repeat_count("="), Some(1));
        assert_eq!(repeat_count(" = 12 ; "), Some(12));
        assert_eq!(repeat_count("= x"), None);
    }

    #[test]
    fn comment_lines_alone_start_no_request() {
        let (reqs, rest) =
            split_requests("-- a note\n/* another */\n* a BTEQ comment\n= 2\nSEL 1;\n-- end\n");
        let texts: Vec<&str> = reqs.iter().map(|r| r.text.as_str()).collect();
        assert_eq!(
            texts,
            vec!["= 2", "SEL 1;"],
            "the * line is a comment and = 2 a command (which drops the comments before it)"
        );
        assert_eq!(rest, "", "a comment after the last request is no request");
    }

    #[test]
    fn dot_commands_stand_alone() {
        assert_eq!(texts(".quit\nSEL 1;\n"), vec![".quit", "SEL 1;"]);
    }

    #[test]
    fn a_dot_command_inside_an_unfinished_request_is_still_a_command() {
        let (reqs, rest) = split_requests("SEL a\n  .timeout 5\nFROM t;\nSEL b\n.quit\n");
        let texts: Vec<(&str, usize)> = reqs.iter().map(|r| (r.text.as_str(), r.line)).collect();
        assert_eq!(
            texts,
            vec![(".timeout 5", 2), ("SEL a\nFROM t;", 1), (".quit", 5)]
        );
        assert_eq!(rest, "SEL b\n");
    }

    #[test]
    fn a_dot_inside_a_string_comment_or_number_is_sql() {
        let (reqs, rest) = split_requests("SEL 'a\n.quit' , 1 +\n.5 /*\n.quit */;\n");
        assert_eq!(reqs.len(), 1);
        assert_eq!(reqs[0].text, "SEL 'a\n.quit' , 1 +\n.5 /*\n.quit */;");
        assert!(rest.is_empty());
        assert!(!is_dot_command(".5"));
        assert!(is_dot_command("  .QUIT"));
    }
}
