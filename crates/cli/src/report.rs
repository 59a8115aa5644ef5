//! Reading BTEQ's REPORT format back (`.IMPORT REPORT`): the text `.EXPORT REPORT` writes, a
//! heading line, a rule of dashes, then one line per row with columns at the rule's positions.
//!
//! The rule gives the columns: each run of `-` is one column's place, so a value is the text
//! in that place, trimmed. A heading (a line followed by a rule) starts a new set of columns, so
//! a file with several results reads as one stream of rows. Blank lines and status lines
//! (` *** …`) are skipped; a cell that is the NULL text (`?` unless given) is NULL.
//!
//! Invariant: a row is never cut in the middle of a character (columns are counted in
//! characters, as the report laid them out).

use tdlite::Value;

/// The places of the columns a rule of dashes marks: (first character, character after).
fn columns(rule: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in rule.chars().chain(std::iter::once(' ')).enumerate() {
        match (c == '-', start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push((s, i));
                start = None;
            }
            _ => {}
        }
    }
    out
}

/// True if `line` is a rule: dashes, and what separates columns (no letters or digits; a row
/// whose values are all dashes would read as one).
fn is_rule(line: &str) -> bool {
    line.contains('-') && !line.chars().any(char::is_alphanumeric)
}

/// Reads rows of a report from lines.
pub struct ReportReader<I: Iterator<Item = std::io::Result<String>>> {
    lines: std::iter::Peekable<I>,
    columns: Vec<(usize, usize)>,
    null: String,
}

impl<I: Iterator<Item = std::io::Result<String>>> ReportReader<I> {
    /// A reader of `lines`; `null` is the text that stands for NULL.
    pub fn new(lines: I, null: &str) -> Self {
        ReportReader {
            lines: lines.peekable(),
            columns: Vec::new(),
            null: null.to_string(),
        }
    }

    /// The next row's cells; `None` at the end.
    ///
    /// # Errors
    /// A message for an I/O error, or a row before any heading and rule.
    pub fn next_row(&mut self) -> Option<Result<Vec<Value>, String>> {
        loop {
            let line = match self.lines.next()? {
                Ok(l) => l,
                Err(e) => return Some(Err(e.to_string())),
            };
            let line = line.strip_suffix('\r').unwrap_or(&line).to_string();
            if line.trim().is_empty() || line.starts_with(" *** ") {
                continue;
            }
            if is_rule(&line) {
                self.columns = columns(&line);
                continue;
            }
            // a heading: the line before a rule
            if matches!(self.lines.peek(), Some(Ok(next)) if is_rule(next)) {
                continue;
            }
            if self.columns.is_empty() {
                return Some(Err(
                    "a row before any heading and rule of dashes (write the file with \
                     .EXPORT REPORT and TITLEDASHES ON)"
                        .to_string(),
                ));
            }
            let chars: Vec<char> = line.chars().collect();
            let cell = |(s, e): (usize, usize)| -> String {
                let end = e.min(chars.len());
                let start = s.min(end);
                chars[start..end]
                    .iter()
                    .collect::<String>()
                    .trim()
                    .to_string()
            };
            let row = self
                .columns
                .iter()
                .map(|&place| match cell(place) {
                    v if v == self.null => Value::Null,
                    v => Value::Str(v),
                })
                .collect();
            return Some(Ok(row));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(text: &str) -> Vec<Result<Vec<Value>, String>> {
        let lines = text.lines().map(|l| Ok(l.to_string()));
        let mut r = ReportReader::new(lines, "?");
        std::iter::from_fn(|| r.next_row()).collect()
    }

    #[test]
    fn columns_are_where_the_rule_puts_them() {
        let got = rows("id  name\n--  ------------\n 1  Ada Lovelace\n12  ?\n\nn\n-\n7\n");
        let s = |v: &str| Value::Str(v.to_string());
        assert_eq!(
            got,
            vec![
                Ok(vec![s("1"), s("Ada Lovelace")]),
                Ok(vec![s("12"), Value::Null]),
                Ok(vec![s("7")]),
            ]
        );
    }

    #[test]
    fn a_row_without_a_heading_is_an_error() {
        assert!(rows("1  x\n")[0].is_err());
    }
}
