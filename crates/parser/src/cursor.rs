//! A cursor over the tokens of one statement, with the small look-ahead helpers the Teradata
//! front parser needs, and a bridge that hands the rest of the tokens to sqlparser.
//!
//! Invariant: the token vector holds no whitespace or comments, so positions in it match the
//! positions sqlparser's `Parser::index` reports when handed a suffix of it.

use crate::error::{Location, ParseError};
use sqlparser::parser::Parser;
use sqlparser::tokenizer::{Token, TokenWithSpan};

/// Upper bound on expression nesting, so hostile input cannot overflow the stack.
pub(crate) const RECURSION_LIMIT: usize = 64;

/// Tokens of one statement and a read position.
pub(crate) struct Cursor {
    pub toks: Vec<TokenWithSpan>,
    pub pos: usize,
    /// Location used for errors at the end of the statement.
    pub end: Location,
}

impl Cursor {
    pub fn new(toks: Vec<TokenWithSpan>, end: Location) -> Self {
        Cursor { toks, pos: 0, end }
    }

    pub fn peek(&self) -> Option<&Token> {
        self.toks.get(self.pos).map(|t| &t.token)
    }

    pub fn peek_at(&self, ahead: usize) -> Option<&Token> {
        self.toks.get(self.pos + ahead).map(|t| &t.token)
    }

    pub fn at_end(&self) -> bool {
        self.pos >= self.toks.len()
    }

    /// Location of the current token (or the end of the statement).
    pub fn loc(&self) -> Location {
        self.toks
            .get(self.pos)
            .map(|t| Location::from_sql(t.span.start))
            .unwrap_or(self.end)
    }

    /// The upper-cased word at `ahead`, if that token is an unquoted word.
    pub fn word_at(&self, ahead: usize) -> Option<String> {
        match self.peek_at(ahead) {
            Some(Token::Word(w)) if w.quote_style.is_none() => Some(w.value.to_ascii_uppercase()),
            _ => None,
        }
    }

    /// True if the current token is the unquoted keyword `kw`.
    pub fn is_word(&self, kw: &str) -> bool {
        self.word_at(0).as_deref() == Some(kw)
    }

    /// Consumes the keyword `kw` if it is next.
    pub fn eat_word(&mut self, kw: &str) -> bool {
        if self.is_word(kw) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    /// Consumes the keywords `kws` if they are all next.
    pub fn eat_words(&mut self, kws: &[&str]) -> bool {
        if kws
            .iter()
            .enumerate()
            .all(|(i, kw)| self.word_at(i).as_deref() == Some(*kw))
        {
            self.pos += kws.len();
            true
        } else {
            false
        }
    }

    pub fn expect_word(&mut self, kw: &str) -> Result<(), ParseError> {
        if self.eat_word(kw) {
            Ok(())
        } else {
            Err(self.unexpected(&format!("expected {kw}")))
        }
    }

    pub fn eat_token(&mut self, tok: &Token) -> bool {
        if self.peek() == Some(tok) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    pub fn expect_token(&mut self, tok: &Token, what: &str) -> Result<(), ParseError> {
        if self.eat_token(tok) {
            Ok(())
        } else {
            Err(self.unexpected(&format!("expected {what}")))
        }
    }

    /// An identifier (quoted or not); its name keeps its case.
    pub fn ident(&mut self, what: &str) -> Result<String, ParseError> {
        match self.peek() {
            Some(Token::Word(w)) => {
                let v = w.value.clone();
                self.pos += 1;
                Ok(v)
            }
            _ => Err(self.unexpected(&format!("expected {what}"))),
        }
    }

    /// A possibly qualified name `a.b`.
    pub fn dotted_name(&mut self, what: &str) -> Result<Vec<String>, ParseError> {
        let mut parts = vec![self.ident(what)?];
        while self.peek() == Some(&Token::Period) {
            self.pos += 1;
            parts.push(self.ident(what)?);
        }
        Ok(parts)
    }

    pub fn number(&mut self, what: &str) -> Result<String, ParseError> {
        match self.peek() {
            Some(Token::Number(n, _)) => {
                let n = n.clone();
                self.pos += 1;
                Ok(n)
            }
            _ => Err(self.unexpected(&format!("expected {what}"))),
        }
    }

    pub fn string(&mut self, what: &str) -> Result<String, ParseError> {
        match self.peek() {
            Some(Token::SingleQuotedString(s)) => {
                let s = s.clone();
                self.pos += 1;
                Ok(s)
            }
            _ => Err(self.unexpected(&format!("expected {what}"))),
        }
    }

    /// A 3706 at the current token: "`what`, found 'X'".
    pub fn unexpected(&self, what: &str) -> ParseError {
        let found = match self.peek() {
            Some(t) => format!("'{t}'"),
            None => "the end of the statement".to_string(),
        };
        ParseError::syntax(format!("{what}, found {found}."), self.loc())
    }

    /// Fails unless every token has been read.
    pub fn expect_end(&self) -> Result<(), ParseError> {
        if self.at_end() {
            Ok(())
        } else {
            Err(self.unexpected("expected the end of the statement"))
        }
    }

    /// Runs a sqlparser function on the remaining tokens and advances past what it read.
    pub fn with_sqlparser<T>(
        &mut self,
        f: impl FnOnce(&mut Parser<'_>) -> Result<T, sqlparser::parser::ParserError>,
    ) -> Result<T, ParseError> {
        let dialect = crate::dialect::TdliteDialect;
        let rest = self.toks[self.pos..].to_vec();
        let mut parser = Parser::new(&dialect)
            .with_recursion_limit(RECURSION_LIMIT)
            .with_tokens_with_locations(rest);
        let fallback = self.loc();
        let end = self.end;
        let out = f(&mut parser).map_err(|e| {
            // sqlparser gives no position when it runs out of tokens: point at the end.
            let at_eof = e.to_string().contains("found: EOF");
            ParseError::from_sqlparser(e, if at_eof { end } else { fallback })
        })?;
        self.pos += parser.index();
        Ok(out)
    }

    /// Skips a balanced parenthesised group starting at the current `(`.
    pub fn skip_parens(&mut self) -> Result<(), ParseError> {
        self.expect_token(&Token::LParen, "'('")?;
        let mut depth = 1usize;
        while depth > 0 {
            match self.peek() {
                None => return Err(self.unexpected("expected ')'")),
                Some(Token::LParen) => depth += 1,
                Some(Token::RParen) => depth -= 1,
                Some(_) => {}
            }
            self.pos += 1;
        }
        Ok(())
    }
}
