//! Stored procedures (Teradata SQL Stored Procedures and Embedded SQL): `CREATE|REPLACE
//! PROCEDURE name ([IN|OUT|INOUT] p type, …) [options] body`, `CALL name(args)`, `DROP
//! PROCEDURE`, `SHOW PROCEDURE`, and the body's statements (SPL), which [`parse_body`] reads
//! into [`SplStmt`]s for the executor to run.
//!
//! SPL read here: a compound statement `[label:] BEGIN [DECLARE …;]… statements END [label]`,
//! `DECLARE v[, w] type [DEFAULT expr]`, `SET v = expr`, `IF … THEN … [ELSEIF …] [ELSE …]
//! END IF`, `[label:] WHILE cond DO … END WHILE`, `[label:] LOOP … END LOOP`, `[label:] REPEAT
//! … UNTIL cond END REPEAT`, `LEAVE label`, `ITERATE label`, `[label:] FOR row AS [c CURSOR
//! FOR] query DO … END FOR`, `CALL p(args)`, `SELECT … INTO v, … FROM …`, and any other SQL
//! statement, kept as its text. Handlers, cursors other than FOR's, SIGNAL and dynamic SQL are
//! 9910 where they are declared or written.
//!
//! Expressions and SQL statements stay text (the executor puts variables' values in and runs
//! them), cut at their token boundaries: a condition ends at THEN or DO outside parentheses
//! and CASE … END, a statement at a `;` outside parentheses.

use crate::cursor::Cursor;
use crate::error::{Location, ParseError};
use crate::statement::Statement;
use sqlparser::tokenizer::{Token, TokenWithSpan, Tokenizer};

/// A parameter's mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamMode {
    /// `IN` (the default): a value given to the procedure.
    In,
    /// `OUT`: a value the procedure gives back.
    Out,
    /// `INOUT`: both.
    InOut,
}

/// One statement of a procedure body.
#[derive(Debug, Clone, PartialEq)]
pub enum SplStmt {
    /// `[label:] BEGIN declarations statements END`.
    Block {
        /// Its label, upper-cased.
        label: Option<String>,
        /// `DECLARE names type [DEFAULT expr]`: (names upper-cased, type text, default).
        declares: Vec<(Vec<String>, String, Option<String>)>,
        /// Its statements.
        body: Vec<SplStmt>,
    },
    /// `SET v = expr`.
    Set {
        /// The variable, upper-cased (`LABEL.V` where its block's label qualifies it).
        var: String,
        /// The expression's text.
        expr: String,
    },
    /// `IF c THEN … ELSEIF c THEN … ELSE … END IF`.
    If {
        /// Each condition's text with its statements.
        arms: Vec<(String, Vec<SplStmt>)>,
        /// The ELSE statements.
        otherwise: Vec<SplStmt>,
    },
    /// A loop: `WHILE c DO … END WHILE` (`cond` before), `REPEAT … UNTIL c END REPEAT`
    /// (`until` after), or `LOOP … END LOOP` (neither).
    Loop {
        /// Its label, upper-cased.
        label: Option<String>,
        /// WHILE's condition.
        cond: Option<String>,
        /// REPEAT's condition.
        until: Option<String>,
        /// Its statements.
        body: Vec<SplStmt>,
    },
    /// `FOR row AS [c CURSOR FOR] query DO … END FOR`: the statements once per row, which
    /// they read as `row.column`.
    For {
        /// Its label, upper-cased.
        label: Option<String>,
        /// The row's name, upper-cased.
        row: String,
        /// The query's text.
        query: String,
        /// Its statements.
        body: Vec<SplStmt>,
    },
    /// `LEAVE label`.
    Leave(String),
    /// `ITERATE label`.
    Iterate(String),
    /// `CALL name(args)`: the procedure's name and each argument's text.
    Call(String, Vec<String>),
    /// `SELECT … INTO v, … FROM …`: the query without its INTO, and the variables.
    SelectInto(String, Vec<String>),
    /// Any other SQL statement, as written.
    Sql(String),
}

/// Parses `CREATE|REPLACE PROCEDURE`, `DROP|SHOW PROCEDURE` and `CALL` at `cur`; `None`,
/// consuming nothing, for any other statement. Texts (the body, the parameters' types,
/// CALL's arguments) come back empty with their spans: the caller fills them in.
pub(crate) fn parse(cur: &mut Cursor) -> Option<Result<Statement, ParseError>> {
    let first = cur.word_at(0)?;
    let is_procedure = cur.word_at(1).as_deref() == Some("PROCEDURE");
    Some(match first.as_str() {
        "CREATE" | "REPLACE" if is_procedure => create(cur, first == "REPLACE"),
        "DROP" if is_procedure => crate::macros::name_only(cur).map(Statement::DropProcedure),
        "SHOW" if is_procedure => crate::macros::name_only(cur).map(Statement::ShowProcedure),
        "CALL" => call(cur),
        _ => return None,
    })
}

fn create(cur: &mut Cursor, replace: bool) -> Result<Statement, ParseError> {
    cur.pos += 2;
    let name = cur.with_sqlparser(|p| p.parse_object_name(false))?;
    let mut params = Vec::new();
    let mut param_spans = Vec::new();
    cur.expect_token(&Token::LParen, "'(' and the parameters")?;
    if !cur.eat_token(&Token::RParen) {
        loop {
            let mode = if cur.eat_word("INOUT") {
                ParamMode::InOut
            } else if cur.eat_word("OUT") {
                ParamMode::Out
            } else {
                cur.eat_word("IN");
                ParamMode::In
            };
            let pname = cur.ident("a parameter name")?;
            param_spans.push(crate::macros::item(
                cur,
                &format!("a type for parameter {pname}"),
            )?);
            params.push((mode, pname, String::new()));
            if cur.eat_token(&Token::RParen) {
                break;
            }
            cur.expect_token(&Token::Comma, "',' or ')'")?;
        }
    }
    // options before the body are read past
    loop {
        if cur.eat_words(&["SQL", "SECURITY"]) {
            if cur.word_at(0).is_none() {
                return Err(cur.unexpected("expected CREATOR, DEFINER, INVOKER or OWNER"));
            }
            cur.pos += 1;
        } else if cur.eat_words(&["DYNAMIC", "RESULT", "SETS"]) {
            cur.number("a number of result sets")?;
        } else {
            break;
        }
    }
    if cur.at_end() {
        return Err(cur.unexpected("expected the procedure's statement"));
    }
    let body_start = cur.loc();
    let last = cur.toks.last().map(|t| t.span.end);
    cur.pos = cur.toks.len();
    let body_end = last.map_or(cur.loc(), Location::from_sql);
    Ok(Statement::CreateProcedure {
        name,
        params,
        param_spans,
        body: String::new(),
        body_span: (body_start, body_end),
        replace,
    })
}

/// `CALL name[(arg, …)]`.
fn call(cur: &mut Cursor) -> Result<Statement, ParseError> {
    cur.pos += 1;
    let name = cur.with_sqlparser(|p| p.parse_object_name(false))?;
    let mut arg_spans = Vec::new();
    if cur.eat_token(&Token::LParen) && !cur.eat_token(&Token::RParen) {
        loop {
            arg_spans.push(crate::macros::item(cur, "an argument")?);
            if cur.eat_token(&Token::RParen) {
                break;
            }
            cur.expect_token(&Token::Comma, "',' or ')'")?;
        }
    }
    cur.expect_end()?;
    Ok(Statement::Call {
        name,
        args: vec![String::new(); arg_spans.len()],
        arg_spans,
    })
}

/// True if the words at the start of `toks` are `CREATE|REPLACE PROCEDURE` (a request whose
/// `;`s inside BEGIN … END do not end it).
pub(crate) fn starts_procedure(words: &[String]) -> bool {
    matches!(
        words,
        [a, b, ..] if (a == "CREATE" || a == "REPLACE") && b == "PROCEDURE"
    )
}

/// The BEGIN … END and CASE … END nesting of a procedure's text, fed one significant token
/// at a time (each as its upper-cased word, `(` as itself, anything else as `None`).
///
/// BEGIN opens a block, except `BEGIN(p)` (the period function) and BEGIN TRANSACTION|REQUEST;
/// CASE always opens one (not the CASE of `END CASE`). END closes the innermost, except END
/// IF|WHILE|LOOP|FOR|REPEAT|TRANSACTION|REQUEST, and except `END(p)`, the period function:
/// an END followed by `(` closes a CASE only when an attribute phrase follows (`CASE … END
/// (INTEGER)`, `END (FORMAT '…')`).
#[derive(Debug, Clone, Default)]
pub(crate) struct Blocks {
    /// The open blocks, innermost last: true for a CASE.
    open: Vec<bool>,
}

/// Whether `word`, after `(`, starts an attribute phrase or a data type (`END (INTEGER)`,
/// `END (FORMAT '…')`), not a period function's argument.
fn starts_phrase(word: &str) -> bool {
    [
        "FORMAT",
        "TITLE",
        "NAMED",
        "CASESPECIFIC",
        "CS",
        "NOT",
        "UPPERCASE",
        "UC",
    ]
    .contains(&word)
        || crate::create_table::TYPE_WORDS.contains(&word)
}

impl Blocks {
    /// How many blocks are open.
    pub(crate) fn depth(&self) -> usize {
        self.open.len()
    }

    /// Feeds token `k` of `words`; `prev` is the token before it (which may lie before
    /// `words`, in text fed earlier).
    pub(crate) fn feed(&mut self, words: &[Option<String>], k: usize, prev: Option<&str>) {
        let Some(word) = words[k].as_deref() else {
            return;
        };
        let next = words.get(k + 1).and_then(|w| w.as_deref());
        let after = words.get(k + 2).and_then(|w| w.as_deref());
        match (word, next) {
            ("BEGIN", Some("(" | "TRANSACTION" | "REQUEST")) => {}
            ("BEGIN", _) => self.open.push(false),
            ("CASE", _) if prev == Some("END") => {}
            ("CASE", _) => self.open.push(true),
            (
                "END",
                Some("IF" | "WHILE" | "LOOP" | "FOR" | "REPEAT" | "TRANSACTION" | "REQUEST"),
            ) => {}
            ("END", Some("(")) => {
                let phrase = after.is_some_and(starts_phrase);
                if phrase && self.open.last() == Some(&true) {
                    self.open.pop();
                }
            }
            ("END", _) => {
                self.open.pop();
            }
            _ => {}
        }
    }
}

/// A token as [`Blocks::feed`] reads it.
pub(crate) fn block_word(t: &Token) -> Option<String> {
    match t {
        Token::LParen => Some("(".to_string()),
        t => crate::parser::unquoted_upper(t),
    }
}

/// The blocks open after each token of a request (whitespace included, so indexes match), or
/// none at all when no token is the word PROCEDURE (most requests: nothing to count).
pub(crate) fn block_depths<T>(tokens: &[T], token: impl Fn(&T) -> &Token) -> Vec<usize> {
    let is_procedure =
        |t: &T| matches!(token(t), Token::Word(w) if w.value.eq_ignore_ascii_case("PROCEDURE"));
    if !tokens.iter().any(is_procedure) {
        return Vec::new();
    }
    let significant: Vec<usize> = (0..tokens.len())
        .filter(|&i| !matches!(token(&tokens[i]), Token::Whitespace(_)))
        .collect();
    let words: Vec<Option<String>> = significant
        .iter()
        .map(|&i| block_word(token(&tokens[i])))
        .collect();
    let mut blocks = Blocks::default();
    let mut out = vec![0; tokens.len()];
    let mut k = 0;
    for (i, slot) in out.iter_mut().enumerate() {
        if significant.get(k) == Some(&i) {
            let prev = k.checked_sub(1).and_then(|p| words[p].as_deref());
            blocks.feed(&words, k, prev);
            k += 1;
        }
        *slot = blocks.depth();
    }
    out
}

/// A procedure body's text as statements.
///
/// # Errors
/// 3706 where it does not read as SPL (locations are within `text`), 9910 for what tdlite
/// does not run yet (handlers, cursors, SIGNAL, dynamic SQL).
pub fn parse_body(text: &str) -> Result<Vec<SplStmt>, ParseError> {
    let toks: Vec<TokenWithSpan> = Tokenizer::new(&crate::dialect::TdliteDialect, text)
        .tokenize_with_location()
        .map_err(|e| ParseError::syntax(e.message, Location::from_sql(e.location)))?
        .into_iter()
        .filter(|t| !matches!(t.token, Token::Whitespace(_) | Token::EOF))
        .collect();
    // each token's byte range, found in one pass (the locations only grow)
    let mut offsets = crate::parser::Offsets::new(text);
    let bytes = toks
        .iter()
        .map(|t| {
            let start = offsets.byte_offset(Location::from_sql(t.span.start));
            let end = offsets.byte_offset(Location::from_sql(t.span.end));
            (start, end.max(start))
        })
        .collect();
    let mut p = Spl {
        nesting: 0,
        text,
        toks,
        bytes,
        pos: 0,
    };
    // a single statement or one compound statement ("CREATE PROCEDURE (SQL Form)")
    let body = p.statement()?;
    p.eat(&Token::SemiColon);
    if p.pos < p.toks.len() {
        return Err(p.error("expected the end of the procedure after its statement"));
    }
    Ok(vec![body])
}

/// How deeply a procedure's compound, IF and loop statements may nest.
const MAX_NESTING: usize = 64;

struct Spl<'a> {
    /// Statements open around the one being read.
    nesting: usize,
    text: &'a str,
    toks: Vec<TokenWithSpan>,
    /// Each token's byte range in `text`.
    bytes: Vec<(usize, usize)>,
    pos: usize,
}

impl Spl<'_> {
    fn word(&self, ahead: usize) -> Option<String> {
        match self.toks.get(self.pos + ahead).map(|t| &t.token) {
            Some(Token::Word(w)) if w.quote_style.is_none() => Some(w.value.to_ascii_uppercase()),
            _ => None,
        }
    }

    fn is(&self, w: &str) -> bool {
        self.word(0).as_deref() == Some(w)
    }

    fn eat(&mut self, t: &Token) -> bool {
        let hit = self.toks.get(self.pos).map(|x| &x.token) == Some(t);
        self.pos += usize::from(hit);
        hit
    }

    fn eat_word(&mut self, w: &str) -> bool {
        let hit = self.is(w);
        self.pos += usize::from(hit);
        hit
    }

    fn loc(&self) -> Location {
        self.toks
            .get(self.pos)
            .map_or(Location::new(1, 1), |t| Location::from_sql(t.span.start))
    }

    fn error(&self, what: &str) -> ParseError {
        let found = match self.toks.get(self.pos) {
            Some(t) => format!("'{}'", t.token),
            None => "the end of the procedure".to_string(),
        };
        ParseError::syntax(format!("{what}, found {found}."), self.loc())
    }

    fn expect_word(&mut self, w: &str) -> Result<(), ParseError> {
        if self.eat_word(w) {
            Ok(())
        } else {
            Err(self.error(&format!("expected {w}")))
        }
    }

    fn name(&mut self, what: &str) -> Result<String, ParseError> {
        match self.toks.get(self.pos).map(|t| &t.token) {
            Some(Token::Word(w)) => {
                self.pos += 1;
                Ok(w.value.to_ascii_uppercase())
            }
            _ => Err(self.error(&format!("expected {what}"))),
        }
    }

    /// The text of tokens `from..to`, as written.
    fn text_of(&self, from: usize, to: usize) -> String {
        if from >= to {
            return String::new();
        }
        let (start, _) = self.bytes[from];
        let (_, end) = self.bytes[to - 1];
        self.text
            .get(start..end.max(start))
            .unwrap_or_default()
            .to_string()
    }

    /// Tokens up to (not including) one of the words `stops` or a `;`, outside parentheses
    /// and CASE … END; their text.
    fn until(&mut self, stops: &[&str], what: &str) -> Result<String, ParseError> {
        let from = self.pos;
        let (mut parens, mut cases) = (0usize, 0usize);
        while let Some(t) = self.toks.get(self.pos) {
            match &t.token {
                Token::LParen => parens += 1,
                Token::RParen => parens = parens.saturating_sub(1),
                Token::SemiColon if parens == 0 => break,
                Token::Word(w) if w.quote_style.is_none() && parens == 0 => {
                    let u = w.value.to_ascii_uppercase();
                    if cases == 0 && stops.contains(&u.as_str()) {
                        break;
                    }
                    // (not END(p), the period function)
                    let period = u == "END"
                        && self.toks.get(self.pos + 1).map(|t| &t.token) == Some(&Token::LParen)
                        && !self.word(2).is_some_and(|a| starts_phrase(&a));
                    match u.as_str() {
                        "CASE" => cases += 1,
                        "END" if !period => cases = cases.saturating_sub(1),
                        _ => {}
                    }
                }
                _ => {}
            }
            self.pos += 1;
        }
        if self.pos == from {
            return Err(self.error(&format!("expected {what}")));
        }
        Ok(self.text_of(from, self.pos))
    }

    /// Statements up to one of the words `stops` (not consumed).
    fn statements(&mut self, stops: &[&str]) -> Result<Vec<SplStmt>, ParseError> {
        let mut out = Vec::new();
        loop {
            if self.pos >= self.toks.len() {
                return Err(self.error(&format!("expected {}", stops.join(" or "))));
            }
            let end_transaction = self.is("END")
                && matches!(self.word(1).as_deref(), Some("TRANSACTION" | "REQUEST"));
            if stops.iter().any(|s| self.is(s)) && !end_transaction {
                return Ok(out);
            }
            out.push(self.statement()?);
            if !self.eat(&Token::SemiColon) {
                return Err(self.error("expected ';' after a statement"));
            }
        }
    }

    /// `END word [label]` closing a `word` statement.
    fn end(&mut self, word: &str, label: &Option<String>) -> Result<(), ParseError> {
        self.expect_word("END")?;
        if !word.is_empty() {
            self.expect_word(word)?;
        }
        if let (Some(l), Some(w)) = (label, self.word(0)) {
            if *l == w {
                self.pos += 1;
            }
        }
        Ok(())
    }

    fn statement(&mut self) -> Result<SplStmt, ParseError> {
        if self.nesting >= MAX_NESTING {
            return Err(ParseError::syntax(
                format!("statements nested more than {MAX_NESTING} deep"),
                self.loc(),
            ));
        }
        self.nesting += 1;
        let s = self.statement_here();
        self.nesting -= 1;
        s
    }

    fn statement_here(&mut self) -> Result<SplStmt, ParseError> {
        // `label:` before BEGIN, WHILE, LOOP, REPEAT or FOR (not `SELECT :v …`)
        let labelled = self.toks.get(self.pos + 1).map(|t| &t.token) == Some(&Token::Colon)
            && matches!(
                self.word(2).as_deref(),
                Some("BEGIN" | "WHILE" | "LOOP" | "REPEAT" | "FOR")
            );
        let label = match self.word(0) {
            Some(l) if labelled => {
                self.pos += 2;
                Some(l)
            }
            _ => None,
        };
        let first = self.word(0).unwrap_or_default();
        let transaction = self.word(1).as_deref() == Some("TRANSACTION");
        match first.as_str() {
            "BEGIN" | "END" if transaction => Ok(SplStmt::Sql(self.until(&[], "a statement")?)),
            // BEGIN REQUEST … END REQUEST: its statements as one multi-statement request
            "BEGIN" if self.word(1).as_deref() == Some("REQUEST") => {
                self.pos += 2;
                let from = self.pos;
                while !(self.is("END") && self.word(1).as_deref() == Some("REQUEST")) {
                    if self.pos >= self.toks.len() {
                        return Err(self.error("expected END REQUEST"));
                    }
                    self.pos += 1;
                }
                let text = self.text_of(from, self.pos);
                self.pos += 2;
                Ok(SplStmt::Sql(text))
            }
            "BEGIN" => {
                self.pos += 1;
                let mut declares = Vec::new();
                while self.eat_word("DECLARE") {
                    declares.push(self.declare()?);
                    if !self.eat(&Token::SemiColon) {
                        return Err(self.error("expected ';' after DECLARE"));
                    }
                }
                let body = self.statements(&["END"])?;
                self.end("", &label)?;
                Ok(SplStmt::Block {
                    label,
                    declares,
                    body,
                })
            }
            "WHILE" => {
                self.pos += 1;
                let cond = self.until(&["DO"], "a condition")?;
                self.expect_word("DO")?;
                let body = self.statements(&["END"])?;
                self.end("WHILE", &label)?;
                Ok(SplStmt::Loop {
                    label,
                    cond: Some(cond),
                    until: None,
                    body,
                })
            }
            "LOOP" => {
                self.pos += 1;
                let body = self.statements(&["END"])?;
                self.end("LOOP", &label)?;
                Ok(SplStmt::Loop {
                    label,
                    cond: None,
                    until: None,
                    body,
                })
            }
            "REPEAT" => {
                self.pos += 1;
                let body = self.statements(&["UNTIL"])?;
                self.expect_word("UNTIL")?;
                let until = self.until(&["END"], "a condition")?;
                self.end("REPEAT", &label)?;
                Ok(SplStmt::Loop {
                    label,
                    cond: None,
                    until: Some(until),
                    body,
                })
            }
            "FOR" => {
                self.pos += 1;
                let row = self.name("the FOR loop's row name")?;
                self.expect_word("AS")?;
                if self.word(1).as_deref() == Some("CURSOR") {
                    self.pos += 2;
                    self.expect_word("FOR")?;
                }
                let query = self.until(&["DO"], "the FOR loop's query")?;
                self.expect_word("DO")?;
                let body = self.statements(&["END"])?;
                self.end("FOR", &label)?;
                Ok(SplStmt::For {
                    label,
                    row,
                    query,
                    body,
                })
            }
            _ if label.is_some() => {
                Err(self.error("expected BEGIN, WHILE, LOOP, REPEAT or FOR after a label"))
            }
            "IF" => {
                self.pos += 1;
                let mut arms = Vec::new();
                let mut otherwise = Vec::new();
                loop {
                    let cond = self.until(&["THEN"], "a condition")?;
                    self.expect_word("THEN")?;
                    let body = self.statements(&["ELSEIF", "ELSE", "END"])?;
                    arms.push((cond, body));
                    if self.eat_word("ELSEIF") {
                        continue;
                    }
                    if self.eat_word("ELSE") {
                        otherwise = self.statements(&["END"])?;
                    }
                    break;
                }
                self.end("IF", &None)?;
                Ok(SplStmt::If { arms, otherwise })
            }
            "SET" => {
                self.pos += 1;
                let mut var = self.name("a variable")?;
                // a variable qualified by its block's label
                if self.eat(&Token::Period) {
                    var = format!("{var}.{}", self.name("a variable")?);
                }
                if !self.eat(&Token::Eq) {
                    return Err(self.error("expected '='"));
                }
                let expr = self.until(&[], "an expression")?;
                Ok(SplStmt::Set { var, expr })
            }
            "LEAVE" | "ITERATE" => {
                self.pos += 1;
                let l = self.name("a label")?;
                Ok(if first == "LEAVE" {
                    SplStmt::Leave(l)
                } else {
                    SplStmt::Iterate(l)
                })
            }
            "DECLARE" => Err(self.error("expected DECLARE only at the start of BEGIN … END")),
            "SIGNAL" | "RESIGNAL" | "OPEN" | "FETCH" | "CLOSE" | "PREPARE" | "EXECUTE" | "CASE" => {
                Err(ParseError::unsupported(
                    format!("{first} in a stored procedure"),
                    self.loc(),
                ))
            }
            "CALL" => {
                let text = self.until(&[], "a CALL")?;
                let (name, args) = call_parts(&text).ok_or_else(|| {
                    ParseError::syntax("expected CALL name(arguments)", self.loc())
                })?;
                Ok(SplStmt::Call(name, args))
            }
            "SEL" | "SELECT" => {
                let from = self.pos;
                let text = self.until(&[], "a statement")?;
                match self.select_into(from) {
                    Some(s) => Ok(s),
                    None => Ok(SplStmt::Sql(text)),
                }
            }
            _ => Ok(SplStmt::Sql(self.until(&[], "a statement")?)),
        }
    }

    /// `DECLARE names type [DEFAULT expr]` after DECLARE.
    fn declare(&mut self) -> Result<(Vec<String>, String, Option<String>), ParseError> {
        if matches!(self.word(0).as_deref(), Some("CONTINUE" | "EXIT"))
            || self.word(1).as_deref() == Some("CURSOR")
        {
            return Err(ParseError::unsupported(
                "handlers and cursors in a stored procedure",
                self.loc(),
            ));
        }
        let mut names = vec![self.name("a variable name")?];
        while self.eat(&Token::Comma) {
            names.push(self.name("a variable name")?);
        }
        let ty = self.until(&["DEFAULT"], "a type")?;
        let default = if self.eat_word("DEFAULT") {
            Some(self.until(&[], "a default")?)
        } else {
            None
        };
        Ok((names, ty, default))
    }

    /// The SELECT from token `from` to here as a SELECT … INTO, if it has an INTO outside
    /// parentheses: the query without it, and the variables.
    fn select_into(&self, from: usize) -> Option<SplStmt> {
        let mut depth = 0usize;
        let mut into = None;
        for i in from..self.pos {
            match &self.toks[i].token {
                Token::LParen => depth += 1,
                Token::RParen => depth = depth.saturating_sub(1),
                Token::Word(w)
                    if depth == 0
                        && w.quote_style.is_none()
                        && w.value.eq_ignore_ascii_case("INTO") =>
                {
                    into = Some(i);
                    break;
                }
                _ => {}
            }
        }
        let into = into?;
        let mut vars = Vec::new();
        let mut i = into + 1;
        while i < self.pos {
            if self.toks[i].token == Token::Colon {
                i += 1;
            }
            match self.toks.get(i).map(|t| &t.token) {
                Some(Token::Word(w)) => vars.push(w.value.to_ascii_uppercase()),
                _ => return None,
            }
            i += 1;
            if self.toks.get(i).map(|t| &t.token) == Some(&Token::Comma) {
                i += 1;
            } else {
                break;
            }
        }
        let query = format!("{} {}", self.text_of(from, into), self.text_of(i, self.pos));
        Some(SplStmt::SelectInto(query, vars))
    }
}

/// `CALL name(arg, …)` as the name and each argument's text.
fn call_parts(text: &str) -> Option<(String, Vec<String>)> {
    let rest = text.trim().get(4..)?.trim_start();
    let open = rest.find('(');
    let name = rest[..open.unwrap_or(rest.len())].trim().to_string();
    if name.is_empty() {
        return None;
    }
    let Some(open) = open else {
        return Some((name, Vec::new()));
    };
    let inner = rest[open + 1..].trim_end().strip_suffix(')')?;
    Some((name, split_arguments(inner)))
}

/// `a, f(b, c), 'x,y'` as its top-level items, trimmed (none for blank text).
fn split_arguments(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let (mut depth, mut quoted, mut start) = (0usize, false, 0usize);
    for (i, c) in text.char_indices() {
        match c {
            '\'' => quoted = !quoted,
            '(' if !quoted => depth += 1,
            ')' if !quoted => depth = depth.saturating_sub(1),
            ',' if !quoted && depth == 0 => {
                out.push(text[start..i].trim().to_string());
                start = i + 1;
            }
            _ => {}
        }
    }
    if !text[start..].trim().is_empty() || !out.is_empty() {
        out.push(text[start..].trim().to_string());
    }
    out
}

/// Checks a parsed body the way Teradata compiles a procedure before it stores it: every
/// variable SET or SELECTed INTO, and every `:v` of a statement, is a parameter or a variable
/// declared in a block around it (`label.v` one of that block); names are declared once (a
/// variable never takes a parameter's name); LEAVE names a block or loop around it and
/// ITERATE a loop; each DECLARE's type is one tdlite knows; and every statement and
/// expression parses, with the variables read as NULL.
///
/// # Errors
/// 3706 (at the start of the body) naming what is wrong.
pub fn check_body(body: &[SplStmt], params: &[String]) -> Result<(), ParseError> {
    let mut names: Vec<String> = Vec::new();
    for p in params {
        let p = p.to_ascii_uppercase();
        if names.contains(&p) {
            return Err(body_error(format!("the parameter {p} is declared twice")));
        }
        names.push(p);
    }
    let mut c = Check {
        scopes: vec![(None, names)],
        labels: Vec::new(),
        rows: Vec::new(),
    };
    c.statements(body)
}

fn body_error(message: String) -> ParseError {
    ParseError::syntax(message, Location::new(1, 1))
}

struct Check {
    /// Each block's label and variables, outermost (the parameters) first.
    scopes: Vec<(Option<String>, Vec<String>)>,
    /// Labels around the statement: (label, whether it is a loop's).
    labels: Vec<(String, bool)>,
    /// FOR loops' row names around the statement.
    rows: Vec<String>,
}

impl Check {
    fn known(&self, parts: &[String]) -> bool {
        let up: Vec<String> = parts.iter().map(|p| p.to_ascii_uppercase()).collect();
        match up.as_slice() {
            [v] => self.scopes.iter().any(|(_, vs)| vs.contains(v)),
            [l, v] => {
                self.rows.contains(l)
                    || self
                        .scopes
                        .iter()
                        .any(|(label, vs)| label.as_ref() == Some(l) && vs.contains(v))
            }
            _ => false,
        }
    }

    fn variable(&self, v: &str) -> Result<(), ParseError> {
        let parts: Vec<String> = v.split('.').map(str::to_string).collect();
        match self.known(&parts) {
            true => Ok(()),
            false => Err(body_error(format!(
                "{v} is no parameter or variable of the procedure"
            ))),
        }
    }

    /// `text` parses as SQL once its variables (and with `bare`, plain names that are
    /// variables) read as NULL; a `:v` that is no variable is an error.
    fn sql(&self, text: &str, bare: bool) -> Result<(), ParseError> {
        let mut unknown = None;
        let filled = crate::replace_variables(text, bare, |parts, _| {
            if self.known(parts) {
                Some("NULL".to_string())
            } else {
                None
            }
        })?;
        // a host variable left is one the procedure does not have
        let _ = crate::replace_host_variables(&filled, |name| {
            unknown.get_or_insert_with(|| name.to_string());
            Some("NULL".to_string())
        });
        if let Some(v) = unknown {
            return Err(body_error(format!(
                ":{v} is no parameter or variable of the procedure"
            )));
        }
        crate::parse_request(&filled).map_err(|mut e| {
            // the statement's own error, placed at the body's start (its place in the text
            // read here is not the body's)
            e.location = Location::new(1, 1);
            e.statement = 1;
            e
        })?;
        Ok(())
    }

    fn expr(&self, text: &str) -> Result<(), ParseError> {
        self.sql(&format!("SELECT {text}"), true)
    }

    fn statements(&mut self, body: &[SplStmt]) -> Result<(), ParseError> {
        body.iter().try_for_each(|s| self.statement(s))
    }

    fn looped(&mut self, label: &Option<String>, body: &[SplStmt]) -> Result<(), ParseError> {
        if let Some(l) = label {
            self.labels.push((l.clone(), true));
        }
        let r = self.statements(body);
        if label.is_some() {
            self.labels.pop();
        }
        r
    }

    fn statement(&mut self, s: &SplStmt) -> Result<(), ParseError> {
        match s {
            SplStmt::Block {
                label,
                declares,
                body,
            } => {
                self.scopes.push((label.clone(), Vec::new()));
                if let Some(l) = label {
                    self.labels.push((l.clone(), false));
                }
                let r = self.block(declares, body);
                if label.is_some() {
                    self.labels.pop();
                }
                self.scopes.pop();
                r
            }
            SplStmt::Set { var, expr } => {
                self.variable(var)?;
                self.expr(expr)
            }
            SplStmt::If { arms, otherwise } => {
                for (cond, body) in arms {
                    self.expr(&format!("CASE WHEN {cond} THEN 1 END"))?;
                    self.statements(body)?;
                }
                self.statements(otherwise)
            }
            SplStmt::Loop {
                label,
                cond,
                until,
                body,
            } => {
                for c in cond.iter().chain(until) {
                    self.expr(&format!("CASE WHEN {c} THEN 1 END"))?;
                }
                self.looped(label, body)
            }
            SplStmt::For {
                label,
                row,
                query,
                body,
            } => {
                self.sql(query, false)?;
                self.rows.push(row.clone());
                let r = self.looped(label, body);
                self.rows.pop();
                r
            }
            SplStmt::Leave(l) | SplStmt::Iterate(l) => {
                let loop_only = matches!(s, SplStmt::Iterate(_));
                match self
                    .labels
                    .iter()
                    .any(|(x, is_loop)| x == l && (*is_loop || !loop_only))
                {
                    true => Ok(()),
                    false => Err(body_error(format!(
                        "{l} is no label of a {} around the statement",
                        if loop_only { "loop" } else { "block or loop" }
                    ))),
                }
            }
            SplStmt::Call(_, args) => args.iter().try_for_each(|a| {
                // an OUT argument is a name: as an expression it reads as a column
                if self.known(&[a.trim().trim_start_matches(':').to_string()]) {
                    Ok(())
                } else {
                    self.expr(a)
                }
            }),
            SplStmt::SelectInto(query, vars) => {
                vars.iter().try_for_each(|v| self.variable(v))?;
                self.sql(query, false)
            }
            SplStmt::Sql(text) => self.sql(text, false),
        }
    }

    fn block(
        &mut self,
        declares: &[(Vec<String>, String, Option<String>)],
        body: &[SplStmt],
    ) -> Result<(), ParseError> {
        for (names, ty, default) in declares {
            crate::parse_data_type(ty)?
                .ok_or_else(|| body_error(format!("'{ty}' is no data type tdlite knows")))?;
            if let Some(d) = default {
                self.expr(d)?;
            }
            for n in names {
                // once per block, and never a parameter's name (an inner block may declare
                // a name an outer one has: `label.v` tells them apart)
                let params = self.scopes.first().is_some_and(|(_, vs)| vs.contains(n));
                let here = self.scopes.last().is_some_and(|(_, vs)| vs.contains(n));
                if params || here {
                    return Err(body_error(format!("{n} is declared twice")));
                }
                if let Some((_, vs)) = self.scopes.last_mut() {
                    vs.push(n.clone());
                }
            }
        }
        self.statements(body)
    }
}
