//! Parse errors: every one carries a Teradata error number and a 1-based line and column.
//!
//! Invariant: sqlparser's `ParserError` text is turned into a position in exactly one place,
//! [`location_from_sqlparser_message`], so a change in sqlparser's wording breaks one tested
//! function, not every caller.

use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, TokenWithSpan};
use std::fmt;

/// A 1-based position in the SQL text of a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Location {
    /// Line number, starting at 1.
    pub line: u64,
    /// Column number, starting at 1.
    pub column: u64,
}

impl Location {
    /// A location at `line`, `column` (both 1-based).
    pub fn new(line: u64, column: u64) -> Self {
        Location { line, column }
    }

    pub(crate) fn from_sql(loc: sqlparser::tokenizer::Location) -> Self {
        Location {
            line: loc.line.max(1),
            column: loc.column.max(1),
        }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, column {}", self.line, self.column)
    }
}

/// What went wrong while parsing.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ParseErrorKind {
    /// The text is not valid SQL (Teradata 3706).
    Syntax(String),
    /// A rule of `SELECT AND CONSUME` was broken (Teradata 3706, naming the rule).
    ConsumeMisuse(String),
    /// More than one `SELECT AND CONSUME` in one request (tdlite 9902).
    TwoConsumesInRequest,
    /// A DDL statement that is not the last statement of a request (Teradata 3932).
    DdlNotLast,
    /// The request text is empty (tdlite 9909).
    EmptyRequest,
    /// Valid Teradata syntax that tdlite does not support (tdlite 9910).
    Unsupported(String),
    /// A name that only tdlite knows, refused in strict mode as Teradata refuses an unknown
    /// object (3807; docs/queues.md).
    ObjectNotFound(String),
    /// A statement over a size limit of the parser (Teradata 3710), saying which.
    TooComplex(String),
    /// `TOP n` where Teradata does not allow it (Teradata 6916), saying with what.
    TopRule(String),
}

/// A parse error with its position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// What went wrong.
    pub kind: ParseErrorKind,
    /// Where, in the request text.
    pub location: Location,
    /// 1-based number of the statement the error is in (statements are counted at the `;`s
    /// of the request); `parse_request` sets it, every other constructor says 1.
    pub statement: usize,
}

impl ParseError {
    /// This error with its location, which is within a text that starts at `at` of the
    /// request (a procedure's body), as a location in the request.
    pub fn shifted_to(mut self, at: Location) -> Self {
        if self.location.line == 1 {
            self.location.column += at.column.saturating_sub(1);
        }
        self.location.line += at.line.saturating_sub(1);
        self
    }

    /// A syntax error (3706) at `location`.
    pub fn syntax(message: impl Into<String>, location: Location) -> Self {
        ParseError {
            kind: ParseErrorKind::Syntax(message.into()),
            location,
            statement: 1,
        }
    }

    /// A feature tdlite does not support (9910) at `location`.
    pub fn unsupported(what: impl Into<String>, location: Location) -> Self {
        ParseError {
            kind: ParseErrorKind::Unsupported(what.into()),
            location,
            statement: 1,
        }
    }

    /// A consume-misuse error (3706) at `location`.
    pub fn consume(rule: impl Into<String>, location: Location) -> Self {
        ParseError {
            kind: ParseErrorKind::ConsumeMisuse(rule.into()),
            location,
            statement: 1,
        }
    }

    /// The same error, said to be in statement `n` (1-based) of its request.
    pub(crate) fn in_statement(mut self, n: usize) -> Self {
        self.statement = n;
        self
    }

    /// A syntax error found where the statement's tokens ran out, reworded the way Teradata
    /// says it: "expected X between `last` and `terminator`", where `last` is the statement's
    /// final token (described as Teradata names tokens) and `terminator` the `;` or the end of
    /// the request that follows it. Other errors are returned unchanged.
    pub(crate) fn at_statement_end(
        self,
        end: Location,
        last: Option<&TokenWithSpan>,
        terminator: &str,
    ) -> Self {
        let ParseErrorKind::Syntax(m) = &self.kind else {
            return self;
        };
        if self.location != end {
            return self;
        }
        // sqlparser: "Expected: X, found: EOF"; tdlite: "expected X, found the end of the statement."
        let wanted = if let Some(x) = m.strip_prefix("Expected: ") {
            x.strip_suffix(", found: EOF")
        } else {
            m.strip_suffix(", found the end of the statement.")
                .map(|x| x.strip_prefix("expected ").unwrap_or(x))
        };
        match wanted {
            Some(x) => ParseError {
                kind: ParseErrorKind::Syntax(format!(
                    "expected {x} between {} and {terminator}.",
                    describe_token(last)
                )),
                ..self
            },
            None => self,
        }
    }

    /// The Teradata (or tdlite) error number.
    pub fn code(&self) -> u32 {
        match self.kind {
            ParseErrorKind::Syntax(_) | ParseErrorKind::ConsumeMisuse(_) => 3706,
            ParseErrorKind::TwoConsumesInRequest => 9902,
            ParseErrorKind::DdlNotLast => 3932,
            ParseErrorKind::EmptyRequest => 9909,
            ParseErrorKind::Unsupported(_) => 9910,
            ParseErrorKind::ObjectNotFound(_) => 3807,
            ParseErrorKind::TooComplex(_) => 3710,
            ParseErrorKind::TopRule(_) => 6916,
        }
    }

    /// Builds a 3706 from sqlparser's error, taking the position from its message when present.
    pub(crate) fn from_sqlparser(err: sqlparser::parser::ParserError, fallback: Location) -> Self {
        let text = match err {
            sqlparser::parser::ParserError::TokenizerError(s)
            | sqlparser::parser::ParserError::ParserError(s) => s,
            sqlparser::parser::ParserError::RecursionLimitExceeded => {
                "the request nests too deeply".to_string()
            }
        };
        let (message, location) = match location_from_sqlparser_message(&text) {
            Some((msg, loc)) => (msg.to_string(), loc),
            None => (text.clone(), fallback),
        };
        ParseError::syntax(message, location)
    }
}

/// A token as Teradata's syntax errors name it: `the 'FROM' keyword`, `the word 'x'`,
/// `the string 'abc'`, `the number 5`, `'('`.
fn describe_token(tok: Option<&TokenWithSpan>) -> String {
    match tok.map(|t| &t.token) {
        None => "the beginning of the request".to_string(),
        Some(Token::Word(w)) if w.quote_style.is_none() && w.keyword != Keyword::NoKeyword => {
            format!("the '{}' keyword", w.value.to_ascii_uppercase())
        }
        Some(Token::Word(w)) => format!("the word '{}'", w.value),
        Some(Token::SingleQuotedString(v)) => format!("the string '{v}'"),
        Some(Token::Number(n, _)) => format!("the number {n}"),
        Some(t) => format!("'{t}'"),
    }
}

/// Splits sqlparser's `"... at Line: N, Column: M"` suffix off a message.
pub fn location_from_sqlparser_message(text: &str) -> Option<(&str, Location)> {
    let at = text.rfind(" at Line: ")?;
    let rest = &text[at + " at Line: ".len()..];
    let (line, col) = rest.split_once(", Column: ")?;
    let line: u64 = line.trim().parse().ok()?;
    let column: u64 = col.trim().parse().ok()?;
    if line == 0 {
        return None;
    }
    Some((&text[..at], Location::new(line, column)))
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ParseErrorKind::Syntax(m) => write!(f, "Syntax error: {m}"),
            ParseErrorKind::ConsumeMisuse(m) => write!(f, "Syntax error: {m}"),
            ParseErrorKind::TwoConsumesInRequest => write!(
                f,
                "Only one SELECT AND CONSUME statement can appear in a multistatement request."
            ),
            ParseErrorKind::DdlNotLast => {
                write!(
                    f,
                    "Only an ET or null statement is legal after a DDL Statement."
                )
            }
            ParseErrorKind::EmptyRequest => write!(f, "The request contains no statement."),
            ParseErrorKind::Unsupported(m) => write!(f, "{m} is not supported by tdlite yet."),
            ParseErrorKind::ObjectNotFound(name) => write!(f, "Object '{name}' does not exist."),
            ParseErrorKind::TooComplex(m) => write!(
                f,
                "Insufficient memory to parse this request, during Parser phase: {m}."
            ),
            ParseErrorKind::TopRule(with) => write!(
                f,
                "TOP N Syntax error: Top N option is not supported with {with}."
            ),
        }
    }
}

impl std::error::Error for ParseError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sqlparser_suffix_is_split_off() {
        let (msg, loc) = location_from_sqlparser_message(
            "Expected: an expression, found: ) at Line: 3, Column: 14",
        )
        .expect("suffix");
        assert_eq!(msg, "Expected: an expression, found: )");
        assert_eq!(loc, Location::new(3, 14));
        assert!(location_from_sqlparser_message("no position here").is_none());
    }
}
