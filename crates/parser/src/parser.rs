//! The Teradata front parser: tokenizes a request with sqlparser's `TeradataDialect`, splits it
//! into statements at `;`, handles the forms sqlparser cannot express, rewrites Teradata
//! shorthands (`SEL`, `INS`, `DEL t ALL`, `EQ`, `MOD`, …) into tokens sqlparser understands, and
//! hands everything else to sqlparser.
//!
//! Invariants: every error carries a position inside the request text; no input makes this
//! module panic (nesting is bounded by [`crate::cursor::RECURSION_LIMIT`]).

use crate::consume;
use crate::create_table;
use crate::cursor::Cursor;
use crate::error::{Location, ParseError, ParseErrorKind};
use crate::statement::{LockMode, LockObject, Locking, Spanned, Statement};
use sqlparser::ast;
use sqlparser::dialect::TeradataDialect;
use sqlparser::tokenizer::{Token, TokenWithSpan, Tokenizer};

/// Parses one request (one or more statements separated by `;`).
///
/// # Errors
/// 3706 for syntax errors and consume misuse, 9902 for two consumes in one request, 3932 for a
/// DDL statement that is not last, 9909 for a request with no statement.
pub fn parse_request(sql: &str) -> Result<Vec<Spanned>, ParseError> {
    let tokens = Tokenizer::new(&TeradataDialect, sql)
        .tokenize_with_location()
        .map_err(|e| {
            let at = Location::from_sql(e.location);
            ParseError::syntax(e.message, at).in_statement(statement_number_at(sql, at))
        })?;
    let end = end_location(sql);
    let mut offsets = Offsets::new(sql);
    let mut statements = Vec::new();
    let mut current: Vec<TokenWithSpan> = Vec::new();
    let mut parameters = 0;
    // a `;` inside parentheses (a macro body) does not end a statement, nor one inside a
    // procedure's BEGIN … END (`blocks`, counted once the statement reads CREATE|REPLACE
    // PROCEDURE)
    let mut depth = 0usize;
    // blocks open before the procedure's statement, if the statement is one
    let mut procedure: Option<usize> = None;
    let blocks = crate::procedure::block_depths(&tokens, |t| &t.token);
    let open = |i: usize| blocks.get(i).copied().unwrap_or(0);
    for (i, mut tok) in tokens.into_iter().enumerate() {
        // parameter markers are numbered in textual order across the request: ?1, ?2, …
        if tok.token == Token::Placeholder("?".into()) {
            parameters += 1;
            tok.token = Token::Placeholder(format!("?{parameters}"));
        }
        match tok.token {
            Token::Whitespace(_) | Token::EOF => {}
            Token::LParen => {
                depth += 1;
                current.push(tok);
            }
            Token::RParen => {
                depth = depth.saturating_sub(1);
                current.push(tok);
            }
            Token::SemiColon if depth > 0 || procedure.is_some_and(|base| open(i) > base) => {
                current.push(tok)
            }
            Token::SemiColon => {
                procedure = None;
                if !current.is_empty() {
                    let end_here = Location::from_sql(tok.span.start);
                    let n = statements.len() + 1;
                    // described only if the statement fails where its tokens ran out
                    let last = current.last().cloned();
                    statements.push(
                        parse_tokens(std::mem::take(&mut current), &mut offsets, end_here)
                            .map_err(|e| e.at_statement_end(end_here, last.as_ref(), "';'"))
                            .map_err(|e| e.in_statement(n))?,
                    );
                }
            }
            _ => current.push(tok),
        }
        if current.len() == 2 && procedure.is_none() {
            let lead: Vec<String> = current
                .iter()
                .filter_map(|t| unquoted_upper(&t.token))
                .collect();
            if crate::procedure::starts_procedure(&lead) {
                procedure = Some(open(i));
            }
        }
    }
    if !current.is_empty() {
        let n = statements.len() + 1;
        let last = current.last().cloned();
        statements.push(
            parse_tokens(current, &mut offsets, end)
                .map_err(|e| e.at_statement_end(end, last.as_ref(), "the end of the request"))
                .map_err(|e| e.in_statement(n))?,
        );
    }
    if statements.is_empty() {
        return Err(ParseError {
            kind: ParseErrorKind::EmptyRequest,
            location: Location::new(1, 1),
            statement: 1,
        });
    }
    check_request_rules(&statements)?;
    Ok(statements)
}

/// The 1-based number of the statement that `at` is in: one more than the statements that
/// `;`s end before it (1 if the text before `at` does not tokenize either).
fn statement_number_at(sql: &str, at: Location) -> usize {
    let before = &sql[..Offsets::new(sql).byte_offset(at)];
    let Ok(tokens) = Tokenizer::new(&TeradataDialect, before).tokenize() else {
        return 1;
    };
    let (mut ended, mut open) = (0, false);
    for t in tokens {
        match t {
            Token::SemiColon if open => (ended, open) = (ended + 1, false),
            Token::SemiColon | Token::Whitespace(_) | Token::EOF => {}
            _ => open = true,
        }
    }
    ended + 1
}

/// How many `?` parameter markers a request has (0 if it does not tokenize).
pub fn parameter_count(sql: &str) -> usize {
    Tokenizer::new(&TeradataDialect, sql)
        .tokenize()
        .map_or(0, |toks| {
            toks.iter()
                .filter(|t| **t == Token::Placeholder("?".into()))
                .count()
        })
}

/// True if a CREATE VIEW text ends with `WITH CHECK OPTION` (comments, blanks and a final
/// `;` aside; false if it does not tokenize). The view's stored query leaves the clause out.
pub fn ends_with_check_option(sql: &str) -> bool {
    let Ok(tokens) = Tokenizer::new(&TeradataDialect, sql).tokenize() else {
        return false;
    };
    let words: Vec<Option<String>> = tokens
        .iter()
        .filter(|t| !matches!(t, Token::Whitespace(_) | Token::SemiColon | Token::EOF))
        .map(unquoted_upper)
        .collect();
    let n = words.len();
    n >= 3
        && ["WITH", "CHECK", "OPTION"]
            .iter()
            .zip(&words[n - 3..])
            .all(|(w, t)| t.as_deref() == Some(*w))
}

/// Rules that look at the request as a whole.
fn check_request_rules(statements: &[Spanned]) -> Result<(), ParseError> {
    let mut consumes = statements.iter().enumerate().filter(|(_, s)| {
        matches!(
            s.statement,
            Statement::Consume(_) | Statement::InsertConsume { .. }
        )
    });
    if let (Some(_), Some((i, second))) = (consumes.next(), consumes.next()) {
        return Err(ParseError {
            kind: ParseErrorKind::TwoConsumesInRequest,
            location: second.location,
            statement: i + 1,
        });
    }
    let n = statements.len();
    for (i, s) in statements.iter().enumerate() {
        let followed_only_by_et = statements[i + 1..].iter().all(|t| {
            matches!(
                t.statement,
                Statement::EndTransaction | Statement::Commit | Statement::Rollback { .. }
            )
        });
        if s.statement.is_ddl() && i + 1 < n && !followed_only_by_et {
            let (at, offender) = statements[i + 1..]
                .iter()
                .enumerate()
                .find(|(_, t)| {
                    !matches!(
                        t.statement,
                        Statement::EndTransaction | Statement::Commit | Statement::Rollback { .. }
                    )
                })
                .map_or((0, statements[i + 1].location), |(j, t)| (j, t.location));
            return Err(ParseError {
                kind: ParseErrorKind::DdlNotLast,
                location: offender,
                statement: i + 2 + at,
            });
        }
    }
    Ok(())
}

pub(crate) fn end_location(sql: &str) -> Location {
    let line = sql.lines().count().max(1) as u64;
    let last = sql.lines().last().unwrap_or("");
    let column = if sql.ends_with('\n') {
        1
    } else {
        last.chars().count() as u64 + 1
    };
    let line = if sql.ends_with('\n') { line + 1 } else { line };
    Location::new(line, column)
}

/// Turns locations (line, column in characters) into byte offsets, walking forward only: the
/// statements of a request ask in increasing order, so a whole request costs one pass over its
/// text (a fresh walk per statement made a 1,000-statement request quadratic).
pub(crate) struct Offsets<'a> {
    sql: &'a str,
    byte: usize,
    line: u64,
    col: u64,
}

impl<'a> Offsets<'a> {
    pub(crate) fn new(sql: &'a str) -> Self {
        Offsets {
            sql,
            byte: 0,
            line: 1,
            col: 1,
        }
    }

    /// The byte offset of `loc` in `sql`.
    pub(crate) fn byte_of(sql: &str, loc: Location) -> usize {
        Offsets::new(sql).byte_offset(loc)
    }

    pub(crate) fn byte_offset(&mut self, loc: Location) -> usize {
        if (loc.line, loc.column) < (self.line, self.col) {
            *self = Offsets::new(self.sql); // never happens for well-ordered callers
        }
        for ch in self.sql[self.byte..].chars() {
            if (self.line, self.col) >= (loc.line, loc.column) {
                return self.byte;
            }
            self.byte += ch.len_utf8();
            if ch == '\n' {
                self.line += 1;
                self.col = 1;
            } else {
                self.col += 1;
            }
        }
        self.sql.len()
    }
}

fn parse_tokens(
    toks: Vec<TokenWithSpan>,
    offsets: &mut Offsets,
    end: Location,
) -> Result<Spanned, ParseError> {
    let start = Location::from_sql(toks[0].span.start);
    crate::limits::check_operator_depth(&toks)?;
    let conditions = crate::conditions::may_hold_one(&toks);
    let mut cur = Cursor::new(toks, end);
    let locking = parse_locking(&mut cur)?;
    // the statement's own text, without its LOCKING modifiers
    let text_start = offsets.byte_offset(cur.loc());
    let text_end = offsets.byte_offset(end).max(text_start);
    let text = offsets.sql[text_start..text_end].trim().to_string();
    let mut statement = if cur.at_end() {
        if locking.is_empty() {
            return Err(cur.unexpected("expected a statement"));
        }
        Statement::LockOnly
    } else {
        parse_statement(cur)?
    };
    if conditions {
        crate::conditions::check(&statement, start, false)?;
    }
    crate::macros::fill_text(&mut statement, offsets.sql);
    Ok(Spanned {
        statement,
        locking,
        location: start,
        text,
    })
}

/// `LOCKING|LOCK [DATABASE|TABLE|VIEW|ROW] [name] [FOR|IN] mode [MODE] [NOWAIT]`, repeated.
fn parse_locking(cur: &mut Cursor) -> Result<Vec<Locking>, ParseError> {
    let mut out = Vec::new();
    while cur.eat_word("LOCKING") || cur.eat_word("LOCK") {
        let object = if cur.eat_word("ROW") {
            LockObject::Row
        } else if cur.eat_word("DATABASE") {
            LockObject::Database(cur.dotted_name("a database name")?.join("."))
        } else if cur.eat_word("VIEW") {
            LockObject::View(cur.dotted_name("a view name")?.join("."))
        } else {
            cur.eat_word("TABLE");
            if cur.is_word("FOR") || cur.is_word("IN") {
                return Err(cur.unexpected("expected a table name"));
            }
            LockObject::Table(cur.dotted_name("a table name")?.join("."))
        };
        // FOR / IN may be left out (`LOCKING ROW ACCESS`)
        let _ = cur.eat_word("FOR") || cur.eat_word("IN");
        let mode = match cur.word_at(0).as_deref() {
            Some("ACCESS") => LockMode::Access,
            Some("READ") | Some("SHARE") => LockMode::Read,
            Some("WRITE") => LockMode::Write,
            Some("EXCLUSIVE") | Some("EXCL") => LockMode::Exclusive,
            _ => {
                return Err(cur
                    .unexpected("expected a lock type (ACCESS, READ, SHARE, WRITE or EXCLUSIVE)"))
            }
        };
        cur.pos += 1;
        cur.eat_word("OVERRIDE");
        cur.eat_word("MODE");
        let nowait = cur.eat_word("NOWAIT");
        out.push(Locking {
            object,
            mode,
            nowait,
        });
    }
    Ok(out)
}

fn parse_statement(mut cur: Cursor) -> Result<Statement, ParseError> {
    if let Some(admin) = crate::admin::parse(&mut cur) {
        return admin;
    }
    if let Some(p) = crate::procedure::parse(&mut cur) {
        return p;
    }
    if let Some(m) = crate::macros::parse(&mut cur) {
        return m;
    }
    if let Some(l) = crate::lease::parse(&mut cur) {
        return l;
    }
    if let Some(s) = crate::subscriber::parse(&mut cur) {
        return s;
    }
    let first = cur.word_at(0).unwrap_or_default();
    if matches!(first.as_str(), "UPDATE" | "UPD") {
        if let Some(at) = upsert_else(&cur) {
            return upsert(cur, at);
        }
    }
    match first.as_str() {
        "EXPLAIN" => {
            cur.pos += 1;
            // a LOCKING modifier changes nothing in the plan
            parse_locking(&mut cur)?;
            if cur.at_end() {
                return Err(cur.unexpected("expected a statement after EXPLAIN"));
            }
            Ok(Statement::Explain(Box::new(parse_statement(cur)?)))
        }
        "BT" => {
            cur.pos += 1;
            cur.expect_end()?;
            Ok(Statement::BeginTransaction)
        }
        "ET" => {
            cur.pos += 1;
            cur.expect_end()?;
            Ok(Statement::EndTransaction)
        }
        "BEGIN" if cur.word_at(1).as_deref() == Some("TRANSACTION") => {
            cur.pos += 2;
            cur.expect_end()?;
            Ok(Statement::BeginTransaction)
        }
        "END" if cur.word_at(1).as_deref() == Some("TRANSACTION") => {
            cur.pos += 2;
            cur.expect_end()?;
            Ok(Statement::EndTransaction)
        }
        "COMMIT" => {
            cur.pos += 1;
            cur.eat_word("WORK");
            cur.eat_word("RELEASE");
            cur.expect_end()?;
            Ok(Statement::Commit)
        }
        "ROLLBACK" | "ABORT" => {
            cur.pos += 1;
            cur.eat_word("WORK");
            let message = match cur.peek() {
                Some(Token::SingleQuotedString(m)) => {
                    let m = m.clone();
                    cur.pos += 1;
                    Some(m)
                }
                _ => None,
            };
            let condition = match cur.word_at(0).as_deref() {
                Some("FROM" | "WHERE") => Some(Box::new(rollback_condition(&mut cur)?)),
                _ => None,
            };
            cur.expect_end()?;
            Ok(Statement::Rollback {
                abort: first == "ABORT",
                message,
                condition,
            })
        }
        // `CV` is Teradata's abbreviation of CREATE VIEW
        "CREATE" | "REPLACE" | "CV"
            if first == "CV" || cur.word_at(1).as_deref() == Some("VIEW") =>
        {
            let replace = first == "REPLACE";
            cur.pos += if first == "CV" { 1 } else { 2 };
            let name = cur.with_sqlparser(|p| p.parse_object_name(false))?;
            let mut columns = Vec::new();
            if cur.peek() == Some(&Token::LParen) {
                cur.pos += 1;
                loop {
                    columns.push(cur.ident("a column name")?);
                    if cur.eat_token(&Token::Comma) {
                        continue;
                    }
                    cur.expect_token(&Token::RParen, "',' or ')' after a view column")?;
                    break;
                }
            }
            cur.expect_word("AS")?;
            // a LOCKING modifier in a view (`LOCKING ROW FOR ACCESS`) is accepted: tdlite's
            // reads take no locks
            parse_locking(&mut cur)?;
            let mut rest = cur.toks[cur.pos..].to_vec();
            // `WITH CHECK OPTION` stays in the CREATE text (the view's DDL), where DML through
            // the view finds it (exec's view_dml.rs refuses such a view: it makes no check)
            let n = rest.len();
            if n >= 3
                && ["WITH", "CHECK", "OPTION"]
                    .iter()
                    .zip(&rest[n - 3..])
                    .all(|(w, t)| unquoted_upper(&t.token).as_deref() == Some(*w))
            {
                rest.truncate(n - 3);
            }
            rewrite_tokens(&mut rest);
            let mut sub = Cursor::new(rest, cur.end);
            let mut query = sub.with_sqlparser(|p| p.parse_query())?;
            crate::phrase::name_select_items(&mut query);
            sub.expect_end()?;
            crate::implicit_from::query(&mut query, &[]);
            crate::top_rules::check_view(&query)?;
            Ok(Statement::CreateView {
                name,
                columns,
                query,
                replace,
            })
        }
        "CREATE"
            if cur.word_at(1).as_deref() == Some("INDEX")
                || (cur.word_at(1).as_deref() == Some("UNIQUE")
                    && cur.word_at(2).as_deref() == Some("INDEX")) =>
        {
            cur.pos += 1;
            let unique = cur.eat_word("UNIQUE");
            cur.expect_word("INDEX")?;
            let name = if cur.peek() != Some(&Token::LParen) && !cur.is_word("ON") {
                Some(cur.ident("an index name")?)
            } else {
                None
            };
            let cols = |cur: &mut Cursor| create_table::column_list_with(cur, true);
            // Teradata: `INDEX name (cols) ON t`; also `INDEX name ON t (cols)`
            let (columns, table) = if cur.peek() == Some(&Token::LParen) {
                let c = cols(&mut cur)?;
                cur.expect_word("ON")?;
                (c, cur.with_sqlparser(|p| p.parse_object_name(false))?)
            } else {
                cur.expect_word("ON")?;
                let t = cur.with_sqlparser(|p| p.parse_object_name(false))?;
                (cols(&mut cur)?, t)
            };
            cur.expect_end()?;
            Ok(Statement::CreateIndex {
                name,
                unique,
                columns,
                table,
            })
        }
        // `DROP TEMPORARY TABLE t`, `DROP TABLE t ALL` (global temporary tables)
        "DROP"
            if cur.word_at(1).as_deref() == Some("TEMPORARY")
                || (cur.word_at(1).as_deref() == Some("TABLE")
                    && matches!(cur.toks.last().map(|t| &t.token),
                        Some(Token::Word(w)) if w.quote_style.is_none()
                            && w.value.eq_ignore_ascii_case("ALL"))) =>
        {
            cur.pos += 1;
            let temporary = cur.eat_word("TEMPORARY");
            cur.expect_word("TABLE")?;
            let name = cur.with_sqlparser(|p| p.parse_object_name(false))?;
            let all = !temporary && cur.eat_word("ALL");
            cur.expect_end()?;
            Ok(Statement::DropTemporary { name, all })
        }
        "DROP" if cur.word_at(1).as_deref() == Some("INDEX") => {
            cur.pos += 2;
            let if_exists = cur.eat_words(&["IF", "EXISTS"]);
            let mut name = None;
            let mut columns = Vec::new();
            if cur.peek() == Some(&Token::LParen) {
                columns = create_table::column_list_with(&mut cur, false)?;
            } else {
                name = Some(cur.ident("an index name")?);
            }
            let table = if cur.eat_word("ON") {
                Some(cur.with_sqlparser(|p| p.parse_object_name(false))?)
            } else {
                None
            };
            if name.is_none() && table.is_none() {
                return Err(cur.unexpected("expected ON and the table"));
            }
            cur.expect_end()?;
            Ok(Statement::DropIndex {
                name,
                columns,
                table,
                if_exists,
            })
        }
        "ALTER" if cur.word_at(1).as_deref() == Some("TABLE") => {
            cur.pos += 2;
            let name = cur.with_sqlparser(|p| p.parse_object_name(false))?;
            let mut actions = Vec::new();
            loop {
                if cur.eat_word("ADD") {
                    cur.eat_word("COLUMN");
                    actions.push(crate::statement::AlterAction::Add(
                        create_table::parse_column(&mut cur)?,
                    ));
                } else if cur.eat_word("DROP") {
                    cur.eat_word("COLUMN");
                    actions.push(crate::statement::AlterAction::Drop(
                        cur.ident("a column name")?,
                    ));
                } else if cur.eat_word("RENAME") {
                    cur.eat_word("COLUMN");
                    let from = cur.ident("a column name")?;
                    if !cur.eat_word("TO") && !cur.eat_word("AS") {
                        return Err(cur.unexpected("expected TO or AS"));
                    }
                    let to = cur.ident("the new column name")?;
                    actions.push(crate::statement::AlterAction::Rename(from, to));
                } else {
                    return Err(cur.unexpected("expected ADD, DROP or RENAME"));
                }
                if !cur.eat_token(&Token::Comma) {
                    break;
                }
            }
            cur.expect_end()?;
            Ok(Statement::AlterTable { name, actions })
        }
        "DATABASE" => {
            cur.pos += 1;
            let name = cur.dotted_name("a database name")?.join(".");
            cur.expect_end()?;
            Ok(Statement::Database(name))
        }
        "SET" if cur.word_at(1).as_deref() == Some("QUERY_BAND") => {
            cur.pos += 2;
            if cur.peek() != Some(&Token::Eq) {
                return Err(cur.unexpected("expected '=' after QUERY_BAND"));
            }
            cur.pos += 1;
            let text = if let Some(Token::SingleQuotedString(s)) = cur.peek() {
                let s = s.clone();
                cur.pos += 1;
                Some(s)
            } else if cur.eat_word("NONE") {
                None
            } else {
                return Err(cur.unexpected("expected a quoted query band or NONE"));
            };
            let update = cur.eat_word("UPDATE");
            if !cur.eat_word("FOR") {
                return Err(cur.unexpected("expected FOR SESSION or FOR TRANSACTION"));
            }
            let session = if cur.eat_word("SESSION") {
                cur.eat_word("VOLATILE");
                true
            } else if cur.eat_word("TRANSACTION") {
                false
            } else {
                return Err(cur.unexpected("expected SESSION or TRANSACTION"));
            };
            cur.expect_end()?;
            Ok(Statement::QueryBand {
                text,
                update,
                session,
            })
        }
        "DIAGNOSTIC" => {
            // `DIAGNOSTIC name [NOT] ON FOR SESSION|REQUEST`: optimizer switches (HELPSTATS,
            // NOPRODJOIN, VERBOSEEXPLAIN, "validate index" …), which change no answer
            cur.pos += 1;
            let name = match cur.peek() {
                Some(Token::Word(w)) => w.value.to_uppercase(),
                _ => return Err(cur.unexpected("expected the name of a diagnostic")),
            };
            cur.pos += 1;
            cur.eat_word("NOT");
            if !cur.eat_word("ON") {
                return Err(cur.unexpected("expected ON or NOT ON"));
            }
            if !cur.eat_word("FOR") {
                return Err(cur.unexpected("expected FOR SESSION or FOR REQUEST"));
            }
            if !cur.eat_word("SESSION") && !cur.eat_word("REQUEST") {
                return Err(cur.unexpected("expected SESSION or REQUEST"));
            }
            cur.expect_end()?;
            Ok(Statement::Diagnostic(name))
        }
        "COLLECT" | "DROP"
            if matches!(
                cur.word_at(1).as_deref(),
                Some("STATISTICS" | "STATS" | "STAT" | "SUMMARY")
            ) =>
        {
            let drop = first == "DROP";
            cur.pos += 1;
            crate::statistics::parse(&mut cur, drop)
        }
        "HELP"
            if matches!(
                cur.word_at(1).as_deref(),
                Some("STATISTICS") | Some("STATS") | Some("STAT")
            ) =>
        {
            cur.pos += 2;
            let name = cur.with_sqlparser(|p| p.parse_object_name(false))?;
            if cur.eat_word("FROM") {
                cur.dotted_name("a QCD name")?;
            }
            cur.expect_end()?;
            Ok(Statement::HelpStatistics(name))
        }
        "HELP" if cur.word_at(1).as_deref() == Some("QUEUE") => {
            cur.pos += 2;
            let name = cur.with_sqlparser(|p| p.parse_object_name(false))?;
            cur.expect_end()?;
            Ok(Statement::HelpQueue(name))
        }
        "HELP" if cur.word_at(1).as_deref() == Some("LOCKS") => {
            cur.pos += 2;
            cur.expect_end()?;
            Ok(Statement::HelpLocks)
        }
        "HELP"
            if cur.word_at(1).as_deref() == Some("VOLATILE")
                && cur.word_at(2).as_deref() == Some("TABLE") =>
        {
            cur.pos += 3;
            cur.expect_end()?;
            Ok(Statement::HelpVolatileTable)
        }
        "HELP" if cur.word_at(1).as_deref() == Some("SESSION") => {
            cur.pos += 2;
            cur.expect_end()?;
            Ok(Statement::HelpSession)
        }
        "HELP" if matches!(cur.word_at(1).as_deref(), Some("DATABASE") | Some("USER")) => {
            cur.pos += 2;
            let name = cur.dotted_name("a database name")?.join(".");
            cur.expect_end()?;
            Ok(Statement::HelpDatabase(name))
        }
        "SET" if crate::session_set::is_session_set(&cur) => crate::session_set::parse(&mut cur),
        "SET"
            if cur.word_at(1).as_deref() == Some("SESSION")
                && cur.word_at(2).as_deref() == Some("CONSUME") =>
        {
            cur.pos += 3;
            crate::consume::parse_set_wait(&mut cur)
        }
        "SET"
            if cur.word_at(1).as_deref() == Some("SESSION")
                && cur.word_at(2).as_deref() == Some("TRANSACTION") =>
        {
            cur.pos += 3;
            let ansi = match cur.word_at(0).as_deref() {
                Some("ANSI") => true,
                Some("BTET") | Some("TERADATA") => false,
                _ => return Err(cur.unexpected("expected ANSI or BTET")),
            };
            cur.pos += 1;
            cur.expect_end()?;
            Ok(Statement::SetSessionMode { ansi })
        }
        "HELP" if cur.word_at(1).as_deref() == Some("INDEX") => {
            cur.pos += 2;
            let name = cur.with_sqlparser(|p| p.parse_object_name(false))?;
            cur.expect_end()?;
            Ok(Statement::HelpIndex(name))
        }
        "HELP" if cur.word_at(1).as_deref() == Some("MACRO") => {
            cur.pos += 2;
            let name = cur.with_sqlparser(|p| p.parse_object_name(false))?;
            cur.expect_end()?;
            Ok(Statement::HelpMacro(name))
        }
        "HELP" if cur.word_at(1).as_deref() == Some("COLUMN") => {
            cur.pos += 2;
            help_column(&mut cur)
        }
        "HELP" | "SHOW" if matches!(cur.word_at(1).as_deref(), Some("TABLE") | Some("VIEW")) => {
            cur.pos += 2;
            let name = cur.with_sqlparser(|p| p.parse_object_name(false))?;
            cur.expect_end()?;
            Ok(if first == "HELP" {
                Statement::HelpTable(name)
            } else {
                Statement::ShowTable(name)
            })
        }
        "CT" => create_table::parse(&mut cur).map(|c| Statement::CreateTable(Box::new(c))),
        "CREATE" if create_table::is_create_table(&cur) => {
            create_table::parse(&mut cur).map(|c| Statement::CreateTable(Box::new(c)))
        }
        "SEL" | "SELECT" if consume::is_consume(&cur, 0) => {
            consume::parse(&mut cur).map(|c| Statement::Consume(Box::new(c)))
        }
        "INS" | "INSERT" => {
            if let Some(stmt) = consume::parse_insert_consume(&mut cur)? {
                return Ok(stmt);
            }
            sql_statement(cur)
        }
        _ => sql_statement(cur),
    }
}

/// Where the `ELSE` of Teradata's atomic upsert (`UPDATE … ELSE INSERT …`) is: outside
/// parentheses and directly before INSERT or INS (a CASE's ELSE is followed by a value).
fn upsert_else(cur: &Cursor) -> Option<usize> {
    let mut depth = 0usize;
    for (i, t) in cur.toks.iter().enumerate().skip(cur.pos) {
        match &t.token {
            Token::LParen => depth += 1,
            Token::RParen => depth = depth.saturating_sub(1),
            _ if depth == 0
                && unquoted_upper(&t.token).as_deref() == Some("ELSE")
                && matches!(
                    cur.toks
                        .get(i + 1)
                        .and_then(|n| unquoted_upper(&n.token))
                        .as_deref(),
                    Some("INSERT" | "INS")
                ) =>
            {
                return Some(i)
            }
            _ => {}
        }
    }
    None
}

/// `UPDATE t … ELSE INSERT [INTO] t …`: both statements, which must name the same table.
fn upsert(cur: Cursor, at: usize) -> Result<Statement, ParseError> {
    let else_loc = Location::from_sql(cur.toks[at].span.start);
    let update = sql_statement(Cursor::new(cur.toks[cur.pos..at].to_vec(), else_loc))?;
    let insert = sql_statement(Cursor::new(cur.toks[at + 1..].to_vec(), cur.end))?;
    let (Statement::Sql(update), Statement::Sql(insert)) = (update, insert) else {
        return Err(ParseError::syntax(
            "an atomic upsert is UPDATE … ELSE INSERT ….".to_string(),
            else_loc,
        ));
    };
    let table = |s: &ast::Statement| match s {
        ast::Statement::Update(u) => match &u.table.relation {
            ast::TableFactor::Table { name, .. } => Some(object_name_string(name)),
            _ => None,
        },
        ast::Statement::Insert(i) => Some(i.table.to_string()),
        _ => None,
    };
    match (table(&update), table(&insert)) {
        (Some(u), Some(i))
            if matches!(*update, ast::Statement::Update(_))
                && matches!(*insert, ast::Statement::Insert(_))
                && u.eq_ignore_ascii_case(&i) =>
        {
            Ok(Statement::Upsert { update, insert })
        }
        _ => Err(ParseError::syntax(
            "an atomic upsert's UPDATE and INSERT must name the same table.".to_string(),
            else_loc,
        )),
    }
}

/// Rewrites Teradata shorthands and parses the statement with sqlparser.
fn sql_statement(cur: Cursor) -> Result<Statement, ParseError> {
    // only the statement itself, without the LOCKING modifiers already read
    let mut cur = Cursor::new(cur.toks[cur.pos..].to_vec(), cur.end);
    consume::reject_nested_consume(&cur)?;
    rewrite_tokens(&mut cur.toks);
    let mut stmt = cur.with_sqlparser(|p| p.parse_statement())?;
    if matches!(stmt, ast::Statement::Query(_)) && cur.is_word("WITH") {
        // Teradata's summary lines, `SEL … WITH SUM(x) [BY y]`
        return Err(ParseError::unsupported(
            "WITH … BY summary lines",
            cur.loc(),
        ));
    }
    cur.expect_end()?;
    crate::phrase::name_select_items(&mut stmt);
    crate::implicit_from::add_tables(&mut stmt);
    crate::top_rules::check(&stmt)?;
    Ok(Statement::Sql(Box::new(stmt)))
}

fn keyword(word: &str, like: &TokenWithSpan) -> TokenWithSpan {
    TokenWithSpan {
        token: Token::make_keyword(word),
        span: like.span,
    }
}

pub(crate) fn unquoted_upper(tok: &Token) -> Option<String> {
    match tok {
        Token::Word(w) if w.quote_style.is_none() => Some(w.value.to_ascii_uppercase()),
        _ => None,
    }
}

/// Whether `FORMAT 'string' )` follows token `i` (`CAST(x AS FORMAT 'f')`).
fn format_string_follows(toks: &[TokenWithSpan], i: usize) -> bool {
    toks.get(i + 1)
        .and_then(|t| unquoted_upper(&t.token))
        .as_deref()
        == Some("FORMAT")
        && matches!(
            toks.get(i + 2).map(|t| &t.token),
            Some(Token::SingleQuotedString(_))
        )
        && toks.get(i + 3).map(|t| &t.token) == Some(&Token::RParen)
}

/// `ABORT`'s `[FROM …] WHERE condition` as the query `SELECT 1 [FROM …] WHERE condition`.
fn rollback_condition(cur: &mut Cursor) -> Result<ast::Query, ParseError> {
    let span = cur.toks[cur.pos].span;
    let at = |token| TokenWithSpan { token, span };
    let mut toks = vec![
        at(Token::make_keyword("SELECT")),
        at(Token::Number("1".into(), false)),
    ];
    toks.extend(cur.toks[cur.pos..].iter().cloned());
    rewrite_tokens(&mut toks);
    let mut sub = Cursor::new(toks, cur.end);
    let q = sub.with_sqlparser(|p| p.parse_query())?;
    sub.expect_end()?;
    cur.pos = cur.toks.len();
    Ok(*q)
}

/// The hex digits of `'…'XB`, `'…'XBV` or `'…'XBF` at `i` (the suffix written right after the
/// closing quote), padded to whole bytes.
fn byte_literal(toks: &[TokenWithSpan], i: usize) -> Option<String> {
    let Token::SingleQuotedString(digits) = &toks[i].token else {
        return None;
    };
    let next = toks.get(i + 1)?;
    let suffix = unquoted_upper(&next.token)?;
    if !matches!(suffix.as_str(), "XB" | "XBV" | "XBF") || next.span.start != toks[i].span.end {
        return None;
    }
    let mut hex = digits.clone();
    if hex.len() % 2 == 1 {
        hex.push('0');
    }
    Some(hex)
}

/// The tokens a hexadecimal character or integer literal at `i` stands for (the suffix
/// written right after the closing quote; SQL Data Types and Literals, "Hexadecimal Character
/// Literals" and "Hexadecimal Integer Literals"): `'41'XC` (XCV, XCF) is the string `'A'`,
/// each byte one LATIN character; `'FF'XI1`, `'00FF'XI2`, `'FF'XI`/`XI4`, `XI8` are a BYTEINT,
/// SMALLINT, INTEGER or BIGINT whose two's-complement bytes the digits are (`'FFFF'XI2` is
/// -1), written as `CAST(n AS type)`. `None` for anything else (digits that are no hex, too
/// many for the size, an odd count for characters).
fn hex_literal(toks: &[TokenWithSpan], i: usize) -> Option<Vec<Token>> {
    let Token::SingleQuotedString(digits) = &toks[i].token else {
        return None;
    };
    let next = toks.get(i + 1)?;
    let suffix = unquoted_upper(&next.token)?;
    if next.span.start != toks[i].span.end
        || digits.is_empty()
        || !digits.bytes().all(|b| b.is_ascii_hexdigit())
    {
        return None;
    }
    if matches!(suffix.as_str(), "XC" | "XCV" | "XCF") {
        if digits.len() % 2 == 1 {
            return None;
        }
        let text: String = (0..digits.len())
            .step_by(2)
            .filter_map(|k| u8::from_str_radix(&digits[k..k + 2], 16).ok())
            .map(char::from)
            .collect();
        return Some(vec![Token::SingleQuotedString(text)]);
    }
    let (bytes, ty) = match suffix.as_str() {
        "XI1" => (1, "BYTEINT"),
        "XI2" => (2, "SMALLINT"),
        "XI" | "XI4" => (4, "INTEGER"),
        "XI8" => (8, "BIGINT"),
        _ => return None,
    };
    if digits.len() > 2 * bytes {
        return None;
    }
    let raw = u64::from_str_radix(digits, 16).ok()?;
    // the digits are the value's bytes: the top bit of the size is the sign
    let bits = 8 * bytes as u32;
    let value = if bits < 64 && raw >= 1 << (bits - 1) {
        raw as i64 - (1i64 << bits)
    } else {
        raw as i64
    };
    let mut out = vec![Token::make_keyword("CAST"), Token::LParen];
    if value < 0 {
        out.push(Token::Minus);
    }
    out.extend([
        Token::Number(value.unsigned_abs().to_string(), false),
        Token::make_keyword("AS"),
        Token::make_keyword(ty),
        Token::RParen,
    ]);
    Some(out)
}

/// `NUMBER(*)` and `NUMBER(*, s)` (Teradata's NUMBER of any precision) in a CAST or any type
/// sqlparser reads: `NUMBER` and `NUMBER(38, s)`, as CREATE TABLE reads them.
fn number_star(toks: &mut Vec<TokenWithSpan>) {
    let mut i = 0;
    while i + 3 < toks.len() {
        let number = unquoted_upper(&toks[i].token).as_deref() == Some("NUMBER")
            && toks[i + 1].token == Token::LParen
            && toks[i + 2].token == Token::Mul;
        if number {
            if toks[i + 3].token == Token::RParen {
                toks.drain(i + 1..i + 4);
            } else if toks[i + 3].token == Token::Comma {
                toks[i + 2].token = Token::Number("38".into(), false);
            }
        }
        i += 1;
    }
}

/// `x > ALL (2, 3)`, `x = ANY ('a', 'b')` (SQL Functions, Expressions, and Predicates,
/// "ANY/ALL/SOME Quantifiers and Literal Syntax"): a comparison quantified over a list of
/// values. sqlparser reads one expression in the parentheses, so a list gets a second pair
/// around it and arrives as a tuple, which the binder compares item by item.
fn quantified_lists(toks: &mut Vec<TokenWithSpan>) {
    let mut i = 1;
    while i + 1 < toks.len() {
        let compared = matches!(
            toks[i - 1].token,
            Token::Eq | Token::Neq | Token::Lt | Token::Gt | Token::LtEq | Token::GtEq
        ) || matches!(
            unquoted_upper(&toks[i - 1].token).as_deref(),
            Some("EQ" | "NE" | "LT" | "GT" | "LE" | "GE")
        );
        let quantified = compared
            && matches!(
                unquoted_upper(&toks[i].token).as_deref(),
                Some("ANY" | "ALL" | "SOME")
            )
            && toks[i + 1].token == Token::LParen;
        let query = matches!(
            toks.get(i + 2)
                .and_then(|t| unquoted_upper(&t.token))
                .as_deref(),
            Some("SELECT" | "SEL" | "WITH")
        );
        if quantified && !query {
            if let Some(close) = matching_paren(toks, i + 1) {
                let mut depth = 0usize;
                let listed = toks[i + 2..close].iter().any(|t| match t.token {
                    Token::LParen => {
                        depth += 1;
                        false
                    }
                    Token::RParen => {
                        depth = depth.saturating_sub(1);
                        false
                    }
                    Token::Comma => depth == 0,
                    _ => false,
                });
                if listed {
                    let (open_span, close_span) = (toks[i + 1].span, toks[close].span);
                    toks.insert(
                        close,
                        TokenWithSpan {
                            token: Token::RParen,
                            span: close_span,
                        },
                    );
                    toks.insert(
                        i + 2,
                        TokenWithSpan {
                            token: Token::LParen,
                            span: open_span,
                        },
                    );
                }
            }
        }
        i += 1;
    }
}

/// `TD_SYSFNLIB.f(…)`: a call of a function of Teradata's system library, named with the
/// database that holds it (as generated SQL often writes it), is the call `f(…)`.
fn system_library_calls(toks: &mut Vec<TokenWithSpan>) {
    let mut i = 0;
    while i + 3 < toks.len() {
        let library = matches!(&toks[i].token, Token::Word(w) if w.value.eq_ignore_ascii_case("TD_SYSFNLIB"))
            && toks[i + 1].token == Token::Period
            && matches!(toks[i + 2].token, Token::Word(_))
            && toks[i + 3].token == Token::LParen
            && (i == 0 || toks[i - 1].token != Token::Period);
        if library {
            toks.drain(i..i + 2);
        }
        i += 1;
    }
}

/// MERGE's `WHEN NOT MATCHED THEN INSERT (s.a, s.b)` without VALUES (Teradata's INSERT may
/// leave it out): a parenthesized list that ends the statement or is followed by WHEN is the
/// values, not a column list.
fn merge_insert_values(toks: &mut Vec<TokenWithSpan>) {
    let mut i = 1;
    while i + 1 < toks.len() {
        let insert = unquoted_upper(&toks[i].token).as_deref() == Some("INSERT")
            && unquoted_upper(&toks[i - 1].token).as_deref() == Some("THEN")
            && toks[i + 1].token == Token::LParen;
        if insert {
            if let Some(close) = matching_paren(toks, i + 1) {
                let next = toks.get(close + 1).and_then(|t| unquoted_upper(&t.token));
                let ends = close + 1 == toks.len()
                    || toks[close + 1].token == Token::SemiColon
                    || next.as_deref() == Some("WHEN");
                if ends {
                    let values = keyword("VALUES", &toks[i + 1]);
                    toks.insert(i + 1, values);
                }
            }
        }
        i += 1;
    }
}

/// The unquoted word after token `i`, in capitals.
fn next_word(toks: &[TokenWithSpan], i: usize) -> Option<String> {
    toks.get(i + 1).and_then(|t| unquoted_upper(&t.token))
}

/// `LEADING`, `TRAILING` or `BOTH` right after `TRIM(` and right before `FROM`.
fn trim_side_without_characters(toks: &[TokenWithSpan], i: usize) -> bool {
    let word = |k: usize| toks.get(k).and_then(|t| unquoted_upper(&t.token));
    i >= 2
        && matches!(word(i).as_deref(), Some("LEADING" | "TRAILING" | "BOTH"))
        && word(i + 1).as_deref() == Some("FROM")
        && toks[i - 1].token == Token::LParen
        && word(i - 2).as_deref() == Some("TRIM")
}

/// Teradata spellings → tokens sqlparser parses.
pub(crate) fn rewrite_tokens(toks: &mut Vec<TokenWithSpan>) {
    crate::sample_clause::move_sample_clauses(toks);
    // PERIOD literals and a cast's PERIOD(TIMESTAMP(n)) (period_syntax.rs)
    crate::period_syntax::rewrite(toks);
    // CSUM, MSUM, MAVG, MDIFF, RANK(x), QUANTILE as ANSI window functions
    crate::legacy_olap::rewrite(toks);
    // CAST(x AS type NAMED n TITLE 't'): the attributes as a phrase after the call
    crate::cast_attributes::rewrite(toks);
    // (d1 - d2) DAY(4): the difference as an interval of those fields
    crate::interval_qualifier::rewrite(toks);
    // TRANSLATE(x USING LATIN_TO_UNICODE): a call of two arguments
    crate::translate_using::rewrite(toks);
    // TABLE (f(…) RETURNS (c type, …)): the declared columns as strings after the call
    crate::table_function::rewrite(toks);
    number_star(toks);
    system_library_calls(toks);
    quantified_lists(toks);
    // `!!`: Teradata's other spelling of the concatenation operator
    for t in toks.iter_mut() {
        if t.token == Token::DoubleExclamationMark {
            t.token = Token::StringConcat;
        }
    }
    // Operators and SEL anywhere in the statement.
    let merge = toks
        .first()
        .and_then(|t| unquoted_upper(&t.token))
        .as_deref()
        == Some("MERGE");
    let mut i = 0;
    while i < toks.len() {
        let after_period = i > 0 && toks[i - 1].token == Token::Period;
        let after_then = i > 0 && unquoted_upper(&toks[i - 1].token).as_deref() == Some("THEN");
        let replacement = match unquoted_upper(&toks[i].token).as_deref() {
            _ if after_period => None,
            Some("SEL") => Some(Token::make_keyword("SELECT")),
            // MERGE's `WHEN MATCHED THEN UPD SET …`, `… THEN INS (…)|VALUES`, `… THEN DEL`
            // (a column named so, after a CASE's THEN, is followed by none of these)
            Some("UPD") if merge && after_then && next_word(toks, i).as_deref() == Some("SET") => {
                Some(Token::make_keyword("UPDATE"))
            }
            Some("INS")
                if merge
                    && after_then
                    && (toks.get(i + 1).map(|t| &t.token) == Some(&Token::LParen)
                        || next_word(toks, i).as_deref() == Some("VALUES")) =>
            {
                Some(Token::make_keyword("INSERT"))
            }
            Some("DEL")
                if merge
                    && after_then
                    && (i + 1 == toks.len()
                        || toks[i + 1].token == Token::SemiColon
                        || next_word(toks, i).as_deref() == Some("WHEN")) =>
            {
                Some(Token::make_keyword("DELETE"))
            }
            Some("EQ") => Some(Token::Eq),
            Some("NE") => Some(Token::Neq),
            Some("LT") => Some(Token::Lt),
            Some("LE") => Some(Token::LtEq),
            Some("GT") => Some(Token::Gt),
            Some("GE") => Some(Token::GtEq),
            Some("MOD") => Some(Token::Mod),
            // Teradata's TRYCAST is sqlparser's TRY_CAST
            Some("TRYCAST") => Some(Token::make_keyword("TRY_CAST")),
            _ => None,
        };
        if let Some(t) = replacement {
            toks[i].token = t;
        } else if unquoted_upper(&toks[i].token).as_deref() == Some("AS")
            && format_string_follows(toks, i)
        {
            // `CAST(x AS FORMAT 'f')`: the FORMAT phrase without a type, as `x (FORMAT 'f')`;
            // a cast to the type `"tdlite format"` until `phrase::name_select_items` makes it
            // the phrase's call
            let span = toks[i + 1].span;
            toks.insert(
                i + 1,
                TokenWithSpan {
                    token: Token::Word(sqlparser::tokenizer::Word {
                        value: crate::phrase::FORMAT_FUNCTION.to_string(),
                        quote_style: Some('"'),
                        keyword: sqlparser::keywords::Keyword::NoKeyword,
                    }),
                    span,
                },
            );
        } else if let Some(hex) = byte_literal(toks, i) {
            // `'0102'XB` (also XBV, XBF): Teradata's byte literal, as sqlparser's X'0102'; an
            // odd number of digits is padded with a zero on the right, as Teradata pads it
            toks[i].token = Token::HexStringLiteral(hex);
            toks.remove(i + 1);
        } else if let Some(tokens) = hex_literal(toks, i) {
            // `'41'XC`, `'FF'XI2`: a string or an integer of the given size
            let span = toks[i].span;
            let n = tokens.len();
            toks.splice(
                i..i + 2,
                tokens
                    .into_iter()
                    .map(|token| TokenWithSpan { token, span }),
            );
            i += n - 1;
        } else if trim_side_without_characters(toks, i) {
            // `TRIM(LEADING FROM s)`: the characters default to blanks (sqlparser wants them)
            let span = toks[i].span;
            toks.insert(
                i + 1,
                TokenWithSpan {
                    token: Token::SingleQuotedString(" ".into()),
                    span,
                },
            );
        } else if unquoted_upper(&toks[i].token).as_deref() == Some("LONG")
            && toks
                .get(i + 1)
                .and_then(|t| unquoted_upper(&t.token))
                .as_deref()
                == Some("VARCHAR")
        {
            // `LONG VARCHAR` (CAST, CREATE … AS): sqlparser's `VARCHAR(64000)`, what it is
            let span = toks[i].span;
            let at = |token| TokenWithSpan { token, span };
            toks.splice(
                i..i + 2,
                [
                    at(Token::make_keyword("VARCHAR")),
                    at(Token::LParen),
                    at(Token::Number("64000".into(), false)),
                    at(Token::RParen),
                ],
            );
        } else if toks[i].token == Token::LParen
            && matching_paren(toks, i).is_some_and(|close| crate::phrase::is_phrase(toks, i, close))
        {
            // Teradata's `expr (FORMAT 'f', TITLE 't', NAMED n, type)` phrases (see phrase.rs)
            toks[i].token = Token::Placeholder(crate::phrase::MARKER.to_string());
            if matches!(
                unquoted_upper(&toks[i - 1].token).as_deref(),
                Some("DATE" | "TIME")
            ) {
                // `DATE (FORMAT …)`: sqlparser would read `DATE <marker>` as a typed literal
                let span = toks[i - 1].span;
                toks.insert(
                    i,
                    TokenWithSpan {
                        token: Token::RParen,
                        span,
                    },
                );
                toks.insert(
                    i - 1,
                    TokenWithSpan {
                        token: Token::LParen,
                        span,
                    },
                );
                i += 2;
            }
        } else if toks[i].token == Token::Mul
            && toks
                .get(i + 1)
                .is_some_and(|n| n.token == Token::Mul && n.span.start == toks[i].span.end)
        {
            // Teradata's exponent operator `**` (see dialect.rs)
            toks[i].token = Token::Caret;
            toks.remove(i + 1);
        } else if (toks[i].token == Token::Caret
            || unquoted_upper(&toks[i].token).as_deref() == Some("NOT"))
            && toks.get(i + 1).map(|t| &t.token) == Some(&Token::Eq)
        {
            toks[i].token = Token::Neq;
            toks.remove(i + 1);
        }
        i += 1;
    }
    if merge {
        merge_insert_values(toks);
    }
    let Some(first) = toks.first().and_then(|t| unquoted_upper(&t.token)) else {
        return;
    };
    match first.as_str() {
        "INS" | "INSERT" => {
            toks[0] = keyword("INSERT", &toks[0]);
            if toks
                .get(1)
                .and_then(|t| unquoted_upper(&t.token))
                .as_deref()
                != Some("INTO")
            {
                let into = keyword("INTO", &toks[0]);
                toks.insert(1, into);
            }
            // INSERT INTO t (1, 'a') without VALUES: a parenthesised list that ends the statement.
            // skip the table name: word (. word)*
            let mut j = 3;
            while j + 1 < toks.len()
                && toks[j].token == Token::Period
                && matches!(toks[j + 1].token, Token::Word(_))
            {
                j += 2;
            }
            if toks.get(j).map(|t| &t.token) == Some(&Token::LParen) {
                if let Some(close) = matching_paren(toks, j) {
                    if close + 1 == toks.len() {
                        let values = keyword("VALUES", &toks[j]);
                        toks.insert(j, values);
                    }
                }
            }
        }
        "UPD" => toks[0] = keyword("UPDATE", &toks[0]),
        "DEL" | "DELETE" => {
            toks[0] = keyword("DELETE", &toks[0]);
            // `DELETE t FROM t, s WHERE …` (a joined delete) keeps its own FROM
            let joined = toks
                .iter()
                .skip(2)
                .take_while(|t| t.token != Token::LParen)
                .any(|t| unquoted_upper(&t.token).as_deref() == Some("FROM"))
                && !matches!(
                    toks.get(1)
                        .and_then(|t| unquoted_upper(&t.token))
                        .as_deref(),
                    Some("FROM")
                );
            if !joined
                && toks
                    .get(1)
                    .and_then(|t| unquoted_upper(&t.token))
                    .as_deref()
                    != Some("FROM")
            {
                let from = keyword("FROM", &toks[0]);
                toks.insert(1, from);
            }
            if toks.len() > 3
                && toks
                    .last()
                    .and_then(|t| unquoted_upper(&t.token))
                    .as_deref()
                    == Some("ALL")
            {
                toks.pop();
            }
        }
        _ => {}
    }
}

pub(crate) fn matching_paren(toks: &[TokenWithSpan], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (k, t) in toks.iter().enumerate().skip(open) {
        match &t.token {
            // a phrase's `(` was replaced by its marker; its `)` is still there
            Token::LParen => depth += 1,
            Token::Placeholder(p) if p == crate::phrase::MARKER => depth += 1,
            Token::RParen => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Some(k);
                }
            }
            _ => {}
        }
    }
    None
}

/// Parses a request that must hold exactly one statement.
///
/// # Errors
/// As [`parse_request`], plus 3706 when there is more than one statement.
pub fn parse_statement_text(sql: &str) -> Result<Spanned, ParseError> {
    let mut stmts = parse_request(sql)?;
    if stmts.len() != 1 {
        return Err(ParseError::syntax(
            "expected exactly one statement",
            stmts[1].location,
        ));
    }
    Ok(stmts.remove(0))
}

/// Parses a standalone expression (a stored CHECK constraint, for example).
///
/// # Errors
/// 3706 if the text is not one expression.
pub fn parse_expression(sql: &str) -> Result<ast::Expr, ParseError> {
    let toks = significant_tokens(sql)?;
    let mut cur = Cursor::new(toks, end_location(sql));
    rewrite_tokens(&mut cur.toks);
    let mut e = cur.with_sqlparser(|p| p.parse_expr())?;
    cur.expect_end()?;
    crate::phrase::format_casts_as_phrases(&mut e);
    Ok(e)
}

/// `sql`'s tokens without whitespace and the end marker.
pub(crate) fn significant_tokens(sql: &str) -> Result<Vec<TokenWithSpan>, ParseError> {
    let tokens = Tokenizer::new(&TeradataDialect, sql)
        .tokenize_with_location()
        .map_err(|e| {
            let at = Location::from_sql(e.location);
            ParseError::syntax(e.message, at).in_statement(statement_number_at(sql, at))
        })?;
    Ok(tokens
        .into_iter()
        .filter(|t| !matches!(t.token, Token::Whitespace(_) | Token::EOF))
        .collect())
}

/// The object name of a sqlparser statement target, for callers that need one.
pub fn object_name_string(name: &ast::ObjectName) -> String {
    if let [ast::ObjectNamePart::Identifier(i)] = name.0.as_slice() {
        return i.value.clone(); // the usual one-part name
    }
    name.0
        .iter()
        .map(|p| match p {
            ast::ObjectNamePart::Identifier(i) => i.value.clone(),
            other => other.to_string(),
        })
        .collect::<Vec<_>>()
        .join(".")
}

/// `HELP COLUMN t.c [, t.d]…`, `HELP COLUMN [db.]t.*`, `HELP COLUMN c [, d]… FROM t` and
/// `HELP COLUMN * FROM t` (the cursor after COLUMN).
fn help_column(cur: &mut Cursor) -> Result<Statement, ParseError> {
    // each item: names joined by '.', the last of them maybe `*`
    let mut items: Vec<(Vec<ast::Ident>, bool)> = Vec::new();
    loop {
        let mut parts = Vec::new();
        let mut star = false;
        loop {
            match cur.peek() {
                Some(Token::Mul) => {
                    cur.pos += 1;
                    star = true;
                    break;
                }
                Some(Token::Word(w)) => {
                    parts.push(match w.quote_style {
                        Some(q) => ast::Ident::with_quote(q, w.value.clone()),
                        None => ast::Ident::new(w.value.clone()),
                    });
                    cur.pos += 1;
                }
                _ => return Err(cur.unexpected("expected a column name or *")),
            }
            if !cur.eat_token(&Token::Period) {
                break;
            }
        }
        items.push((parts, star));
        if !cur.eat_token(&Token::Comma) {
            break;
        }
    }
    let from = if cur.eat_word("FROM") {
        Some(cur.with_sqlparser(|p| p.parse_object_name(false))?)
    } else {
        None
    };
    cur.expect_end()?;
    let bad = |what: &str| ParseError::syntax(format!("HELP COLUMN {what}."), cur.loc());
    let mut table: Option<ast::ObjectName> = from.clone();
    let mut columns: Option<Vec<String>> = Some(Vec::new());
    for (mut parts, star) in items {
        let column = if star {
            None
        } else {
            parts.pop().map(|i| i.value)
        };
        if from.is_some() != parts.is_empty() {
            // with FROM the items are bare names; without it each names its table
            return Err(bad("names one table: t.column, t.* or column FROM t"));
        }
        if !parts.is_empty() {
            let named = ast::ObjectName::from(parts);
            match &table {
                Some(t)
                    if !object_name_string(t).eq_ignore_ascii_case(&object_name_string(&named)) =>
                {
                    return Err(bad("lists the columns of one table"));
                }
                Some(_) => {}
                None => table = Some(named),
            }
        }
        match column {
            Some(c) => {
                if let Some(list) = columns.as_mut() {
                    list.push(c);
                }
            }
            None => columns = None,
        }
    }
    let table = table.ok_or_else(|| bad("names one table: t.column, t.* or column FROM t"))?;
    Ok(Statement::HelpColumn { table, columns })
}
