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

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Code,
    Str,
    Quoted,
    Block,
}

/// Splits `script` into complete requests and returns them with the unterminated rest.
///
/// Dot commands (lines whose first non-blank character is a `.` followed by a letter, outside
/// string literals, quoted names and comments) are returned as requests of their own, without
/// needing a `;`, as soon as their line is read, even in the middle of an unfinished SQL request:
/// that request goes on with the next line and comes after the command in the result.
pub fn split_requests(script: &str) -> (Vec<RequestText>, String) {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut start_line = 1usize;
    let mut state = State::Code;
    for (idx, raw_line) in script.split_inclusive('\n').enumerate() {
        let line_no = idx + 1;
        if state == State::Code && is_dot_command(raw_line) {
            // BTEQ's rule: a command line is a command even inside an unfinished request,
            // which goes on after it
            out.push(RequestText {
                text: raw_line.trim().to_string(),
                line: line_no,
            });
            if current.trim().is_empty() {
                current.clear();
            }
            continue;
        }
        if current.trim().is_empty() {
            start_line = line_no;
        }
        let (ends, next_state) = line_ends_request(raw_line, state);
        state = next_state;
        current.push_str(raw_line);
        if ends {
            out.push(RequestText {
                text: current.trim().to_string(),
                line: start_line,
            });
            current.clear();
        }
    }
    if current.trim().is_empty() {
        current.clear();
    }
    (out, current)
}

/// True if `line` is a BTEQ command line: its first non-blank character is a `.` followed by a
/// letter (`.quit`, `.set width 80`); `.5 * x` is SQL.
pub fn is_dot_command(line: &str) -> bool {
    let mut chars = line.trim_start().chars();
    chars.next() == Some('.') && chars.next().is_some_and(|c| c.is_ascii_alphabetic())
}

/// Scans one line; returns whether its last significant character is a `;` in code.
fn line_ends_request(line: &str, mut state: State) -> (bool, State) {
    let chars: Vec<char> = line.chars().collect();
    let mut last_significant_is_semicolon = false;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        match state {
            State::Code => match c {
                '\'' => {
                    state = State::Str;
                    last_significant_is_semicolon = false;
                }
                '"' => {
                    state = State::Quoted;
                    last_significant_is_semicolon = false;
                }
                '-' if next == Some('-') => break,
                '/' if next == Some('*') => {
                    state = State::Block;
                    i += 1;
                }
                ';' => last_significant_is_semicolon = true,
                c if c.is_whitespace() => {}
                _ => last_significant_is_semicolon = false,
            },
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
    (last_significant_is_semicolon && state == State::Code, state)
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
