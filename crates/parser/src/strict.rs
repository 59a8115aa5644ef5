//! Strict mode's refusals (docs/queues.md, Strict mode): the text tdlite accepts and Teradata
//! does not, found in a parsed request and refused with 3706 at the first word that is not
//! Teradata's, so a request that passes on tdlite in strict mode parses on Teradata.
//!
//! Two kinds of look: the parsed statements (a consume's `TOP n` and wait clause, tdlite's own
//! statements, `IF EXISTS`, multi-row VALUES), and the request's tokens as written, before the
//! parser's rewrites (`^`, `%`, `!=`, `::`, `TRY_CAST`, the `TEXT` type, SQLite's CREATE INDEX).
//!
//! Invariant: [`check`] refuses only text that the rest of the parser accepts (it runs on a
//! parsed request) and refuses nothing Teradata's manuals document; each refusal is listed in
//! docs/queues.md with its error.

use crate::error::{Location, ParseError};
use crate::statement::{Spanned, Statement};
use sqlparser::ast;
use sqlparser::tokenizer::{Token, TokenWithSpan};

/// Refuses the first tdlite extension in `stmts`, the parsed statements of request `sql`.
///
/// # Errors
/// 3706 naming the extension, at its line and column, in its statement.
pub fn check(sql: &str, stmts: &[Spanned]) -> Result<(), ParseError> {
    let tokens = crate::parser::significant_tokens(sql)?;
    for (n, (st, toks)) in stmts.iter().zip(statements(&tokens)).enumerate() {
        // (and a bare column name where a condition belongs: no column holds one here)
        let refusal = parsed(st, toks)
            .or_else(|| written(sql, toks))
            .or_else(|| crate::conditions::check(&st.statement, st.location, true).err());
        if let Some(e) = refusal {
            return Err(e.in_statement(n + 1));
        }
    }
    Ok(())
}

/// The tokens of each statement: split at `;` outside parentheses, as the parser splits them.
fn statements(tokens: &[TokenWithSpan]) -> Vec<&[TokenWithSpan]> {
    let mut out = Vec::new();
    let (mut start, mut depth) = (0, 0usize);
    for (i, t) in tokens.iter().enumerate() {
        match t.token {
            Token::LParen => depth += 1,
            Token::RParen => depth = depth.saturating_sub(1),
            Token::SemiColon if depth == 0 => {
                if i > start {
                    out.push(&tokens[start..i]);
                }
                start = i + 1;
            }
            _ => {}
        }
    }
    if start < tokens.len() {
        out.push(&tokens[start..]);
    }
    out
}

fn at(t: &TokenWithSpan) -> Location {
    Location::from_sql(t.span.start)
}

/// 3706 for extension `what`, written at `location`.
fn refuse(what: &str, location: Location) -> ParseError {
    ParseError::syntax(
        format!(
            "{what} is a tdlite extension, refused in strict mode (Teradata does not have it)."
        ),
        location,
    )
}

/// The upper-cased text of an unquoted word.
fn word(t: &TokenWithSpan) -> Option<String> {
    match &t.token {
        Token::Word(w) if w.quote_style.is_none() => Some(w.value.to_ascii_uppercase()),
        _ => None,
    }
}

/// The first token of `toks` that is the unquoted word `w`.
fn find_word<'a>(toks: &'a [TokenWithSpan], w: &str) -> Option<&'a TokenWithSpan> {
    toks.iter().find(|t| word(t).as_deref() == Some(w))
}

/// Extensions found in the parsed statement `st` (its tokens `toks`).
fn parsed(st: &Spanned, toks: &[TokenWithSpan]) -> Option<ParseError> {
    let first = toks.first().map(at).unwrap_or(st.location);
    let word_at = |w: &str| find_word(toks, w).map(at).unwrap_or(first);
    match &st.statement {
        Statement::Consume(c) => consume(c),
        Statement::InsertConsume { consume: c, .. } => consume(c),
        Statement::SetConsumeWait(_) => Some(refuse("SET SESSION CONSUME", word_at("CONSUME"))),
        Statement::SetSessionMode { .. } => Some(refuse(
            "SET SESSION TRANSACTION as SQL (BTEQ's .SET SESSION TRANSACTION is Teradata's)",
            word_at("TRANSACTION"),
        )),
        Statement::HelpLocks => Some(refuse("HELP LOCKS", word_at("LOCKS"))),
        Statement::HelpQueue(_) => Some(refuse("HELP QUEUE", word_at("QUEUE"))),
        Statement::EndLease { acknowledge, .. } => Some(refuse(
            if *acknowledge {
                "ACKNOWLEDGE … LEASE"
            } else {
                "RELEASE … LEASE"
            },
            first,
        )),
        Statement::Subscriber { create, .. } => Some(refuse(
            if *create {
                "CREATE SUBSCRIBER"
            } else {
                "DROP SUBSCRIBER"
            },
            word_at("SUBSCRIBER"),
        )),
        Statement::CreateTable(ct) => ct
            .consume_order
            .as_ref()
            .map(|o| refuse("CONSUME ORDER", o.location))
            .or_else(|| {
                ct.deliver_at
                    .as_ref()
                    .map(|(_, at)| refuse("DELIVER AT", *at))
            })
            .or_else(|| {
                ct.subscribers
                    .as_ref()
                    .map(|(_, at)| refuse("SUBSCRIBERS", *at))
            })
            .or_else(|| {
                ct.limits.location().map(|at| {
                    refuse(
                        "ATTEMPTS, MAX ATTEMPTS, RETRY DELAY, EXPIRE AFTER and DEAD LETTER",
                        at,
                    )
                })
            })
            .or_else(|| nullable_key(ct)),
        Statement::Sql(s) => boolean_items(s.as_ref()).or_else(|| match s.as_ref() {
            ast::Statement::Drop {
                if_exists: true, ..
            } => Some(refuse("IF EXISTS", word_at("IF"))),
            ast::Statement::Insert(insert) => match insert.source.as_deref().map(|q| &*q.body) {
                Some(ast::SetExpr::Values(v)) if v.rows.len() > 1 => Some(refuse(
                    "INSERT of several rows in one VALUES clause",
                    word_at("VALUES"),
                )),
                _ => None,
            },
            _ => None,
        }),
        Statement::DropIndex {
            if_exists: true, ..
        } => Some(refuse("IF EXISTS", word_at("IF"))),
        _ => None,
    }
}

/// A select item that is a predicate (`SELECT a = b`, `SELECT x IS NULL`): Teradata has no
/// BOOLEAN values to select and refuses it as a syntax error; tdlite shows TRUE/FALSE outside
/// strict mode. Every query of the statement is looked at, subqueries included.
fn boolean_items(st: &ast::Statement) -> Option<ParseError> {
    use sqlparser::ast::Spanned as _;
    struct Items(Option<ParseError>);
    impl ast::Visitor for Items {
        type Break = ();
        fn pre_visit_query(&mut self, q: &ast::Query) -> std::ops::ControlFlow<()> {
            if let Some(e) = predicate_item(&q.body) {
                let at = Location::from_sql(e.span().start);
                self.0 = Some(refuse(
                    "a condition as a select item (Teradata has no BOOLEAN values)",
                    at,
                ));
                return std::ops::ControlFlow::Break(());
            }
            std::ops::ControlFlow::Continue(())
        }
    }
    let mut items = Items(None);
    let _ = ast::Visit::visit(st, &mut items);
    items.0
}

/// The first select item of `body` (each query of a set operation) that is a condition.
fn predicate_item(body: &ast::SetExpr) -> Option<&ast::Expr> {
    match body {
        ast::SetExpr::Select(s) => s.projection.iter().find_map(|i| match i {
            ast::SelectItem::UnnamedExpr(e) | ast::SelectItem::ExprWithAlias { expr: e, .. }
                if is_predicate(e) =>
            {
                Some(e)
            }
            _ => None,
        }),
        ast::SetExpr::SetOperation { left, right, .. } => {
            predicate_item(left).or_else(|| predicate_item(right))
        }
        _ => None,
    }
}

/// Whether `e` (under parentheses) is a condition: a comparison, AND/OR/NOT, IS [NOT] NULL,
/// LIKE, IN, BETWEEN, EXISTS or a quantified comparison.
fn is_predicate(e: &ast::Expr) -> bool {
    use ast::BinaryOperator as B;
    match e {
        ast::Expr::Nested(x) => is_predicate(x),
        ast::Expr::BinaryOp { op, .. } => matches!(
            op,
            B::Eq | B::NotEq | B::Lt | B::Gt | B::LtEq | B::GtEq | B::And | B::Or | B::Xor
        ),
        ast::Expr::UnaryOp {
            op: ast::UnaryOperator::Not,
            ..
        } => true,
        ast::Expr::IsNull(_)
        | ast::Expr::IsNotNull(_)
        | ast::Expr::IsTrue(_)
        | ast::Expr::IsFalse(_)
        | ast::Expr::IsNotTrue(_)
        | ast::Expr::IsNotFalse(_)
        | ast::Expr::IsUnknown(_)
        | ast::Expr::IsNotUnknown(_)
        | ast::Expr::Like { .. }
        | ast::Expr::ILike { .. }
        | ast::Expr::SimilarTo { .. }
        | ast::Expr::In { .. }
        | ast::Expr::Between { .. }
        | ast::Expr::Exists { .. }
        | ast::Expr::AnyOp { .. }
        | ast::Expr::AllOp { .. } => true,
        _ => false,
    }
}

/// A PRIMARY KEY or UNIQUE constraint (on a column or the table) naming a column without NOT
/// NULL: Teradata refuses it ("Columns listed in a UNIQUE or PRIMARY KEY table constraint must
/// all be defined as NOT NULL", SQL Data Definition Language, CREATE TABLE); tdlite accepts it
/// outside strict mode (a NULL is then a key value, as in a unique index).
fn nullable_key(ct: &crate::statement::CreateTable) -> Option<ParseError> {
    let column = |name: &str| {
        ct.columns
            .iter()
            .find(|c| c.name.eq_ignore_ascii_case(name))
    };
    let nullable = |name: &str| column(name).is_some_and(|c| !c.not_null);
    let at_column = ct
        .columns
        .iter()
        .find(|c| (c.primary_key || c.unique) && !c.not_null)
        .map(|c| (c.name.clone(), c.location));
    let in_table = ct.unique_constraints.iter().find_map(|k| {
        k.columns
            .iter()
            .find(|c| nullable(c))
            .map(|c| (c.clone(), k.location))
    });
    at_column.or(in_table).map(|(name, at)| {
        ParseError::syntax(
            format!(
                "the PRIMARY KEY or UNIQUE column {name} must be NOT NULL (Teradata refuses a \
                 nullable one; refused in strict mode)."
            ),
            at,
        )
    })
}

fn consume(c: &crate::statement::Consume) -> Option<ParseError> {
    if c.top != 1 {
        return Some(ParseError::consume(
            format!("SELECT AND CONSUME allows only TOP 1, not TOP {}.", c.top),
            c.top_location,
        ));
    }
    if let Some((_, at)) = &c.subscriber {
        return Some(refuse("FOR SUBSCRIBER", *at));
    }
    if let Some((_, at)) = &c.filter {
        return Some(ParseError::consume(
            "You cannot specify a WHERE clause in a SELECT AND CONSUME statement.",
            *at,
        ));
    }
    if let Some((_, at)) = &c.lease {
        return Some(refuse("LEASE", *at));
    }

    let (_, location) = c.wait?;
    Some(refuse(
        "A wait clause (WAIT n SECONDS, WAIT FOREVER, NOWAIT) after the queue table",
        location,
    ))
}

/// Extensions found in the statement's tokens as written (`sql` is the request's text).
fn written(sql: &str, toks: &[TokenWithSpan]) -> Option<ParseError> {
    // which construct each open parenthesis belongs to: a CAST's, or another
    let mut parens: Vec<bool> = Vec::new();
    // where column definitions are: a CREATE TABLE's column list (not one made `AS` a query),
    // or an ALTER TABLE's `ADD name type`
    let head: Vec<String> = toks
        .iter()
        .take_while(|t| t.token != Token::LParen)
        .filter_map(word)
        .collect();
    let first = head.first().map(String::as_str);
    let is_create_table = (first == Some("CT")
        || (first == Some("CREATE") && head.iter().any(|w| w == "TABLE")))
        && !head.iter().any(|w| w == "AS");
    let is_alter_table = first == Some("ALTER");
    for (i, t) in toks.iter().enumerate() {
        let next = toks.get(i + 1).map(|t| &t.token);
        let prev = |k: usize| i.checked_sub(k).map(|j| &toks[j]);
        match &t.token {
            Token::LParen => {
                let cast = prev(1)
                    .and_then(word)
                    .is_some_and(|w| matches!(w.as_str(), "CAST" | "TRYCAST" | "TRY_CAST"));
                parens.push(cast);
            }
            Token::RParen => {
                parens.pop();
            }
            // `^=` is Teradata's not-equal; `^` alone is not its exponent (`**` is)
            Token::Caret if next != Some(&Token::Eq) => {
                return Some(refuse("The operator ^ (Teradata's exponent is **)", at(t)))
            }
            Token::Mod => return Some(refuse("The operator % (Teradata's is MOD)", at(t))),
            Token::Neq if char_at(sql, at(t)) == Some('!') => {
                return Some(refuse(
                    "The operator != (Teradata's are <>, ^= and NE)",
                    at(t),
                ))
            }
            Token::DoubleColon => {
                return Some(refuse("The cast x::type (Teradata's is CAST)", at(t)))
            }
            Token::Word(_) => {
                let Some(w) = word(t) else {
                    continue; // a quoted name: no keyword
                };
                match w.as_str() {
                    "TRY_CAST" | "SAFE_CAST" if next == Some(&Token::LParen) => {
                        return Some(refuse(&format!("{w} (Teradata's is TRYCAST)"), at(t)));
                    }
                    "TEXT" => {
                        let after_as = prev(1).and_then(word).as_deref() == Some("AS");
                        let in_cast = parens.last() == Some(&true) && after_as;
                        // a column definition: `(name TEXT` or `, name TEXT` in CREATE
                        // TABLE, `ADD name TEXT` in ALTER TABLE
                        let after_name = prev(1).is_some_and(|p| matches!(p.token, Token::Word(_)));
                        let column_type = after_name
                            && ((is_create_table
                                && prev(2).is_some_and(|p| {
                                    matches!(p.token, Token::LParen | Token::Comma)
                                }))
                                || (is_alter_table
                                    && prev(2).and_then(word).as_deref() == Some("ADD")));
                        if in_cast || column_type {
                            return Some(refuse("The type TEXT", at(t)));
                        }
                    }
                    // tdlite's own dictionary view: an object Teradata does not have
                    "DBC" if next == Some(&Token::Period) => {
                        let view = match toks.get(i + 2).map(|t| &t.token) {
                            Some(Token::Word(v)) => v.value.to_ascii_uppercase(),
                            _ => String::new(),
                        };
                        let base = view
                            .strip_suffix("VX")
                            .or_else(|| view.strip_suffix('V'))
                            .or_else(|| view.strip_suffix('X'))
                            .unwrap_or(&view);
                        if base == "QUEUESTATS" {
                            return Some(ParseError {
                                kind: crate::error::ParseErrorKind::ObjectNotFound(format!(
                                    "DBC.{view}"
                                )),
                                location: at(&toks[i + 2]),
                                statement: 1,
                            });
                        }
                    }
                    // SQLite's `CREATE [UNIQUE] INDEX name ON t (cols)`; Teradata's is
                    // `CREATE INDEX [name] (cols) ON t`
                    "INDEX" if i <= 2 && prev(i).and_then(word).as_deref() == Some("CREATE") => {
                        // the ON right after INDEX, or after its name
                        let on = [i + 1, i + 2].into_iter().find(|&j| {
                            toks.get(j).and_then(word).as_deref() == Some("ON")
                                && (j == i + 1 || matches!(next, Some(Token::Word(_))))
                        });
                        if let Some(j) = on {
                            return Some(refuse(
                                "CREATE INDEX [name] ON table (columns)",
                                at(&toks[j]),
                            ));
                        }
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
    None
}

/// The character of `sql` at `at` (1-based line and column, in characters).
fn char_at(sql: &str, at: Location) -> Option<char> {
    let line = sql
        .split('\n')
        .nth(usize::try_from(at.line).ok()?.checked_sub(1)?)?;
    line.chars()
        .nth(usize::try_from(at.column).ok()?.checked_sub(1)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(sql: &str) -> Option<(String, u64, u64)> {
        let stmts = crate::parse_request(sql).expect("parses");
        check(sql, &stmts)
            .err()
            .map(|e| (e.to_string(), e.location.line, e.location.column))
    }

    #[test]
    fn teradata_text_passes() {
        for sql in [
            "SELECT AND CONSUME TOP 1 * FROM q",
            "INSERT INTO t SELECT AND CONSUME TOP 1 * FROM q",
            "LOCKING TABLE q FOR WRITE NOWAIT SELECT * FROM q",
            "SELECT 2 ** 3, 7 MOD 2 FROM t WHERE a ^= b AND a NE b AND a <> b",
            "SELECT CASE WHEN a = b THEN 1 ELSE 0 END, (a + 1) * 2 FROM t",
            "SELECT CAST(x AS VARCHAR(10)), TRYCAST('1' AS INTEGER) FROM t",
            "SELECT a AS text FROM t",
            "SELECT text FROM t WHERE text LIKE '%a%'",
            "CREATE TABLE t (text VARCHAR(10), b INTEGER)",
            "CREATE INDEX ix (a) ON t",
            "CREATE UNIQUE INDEX (a) ON t",
            "DROP TABLE t",
            "INSERT INTO t VALUES (1, 2)",
            "SET SESSION DATEFORM = ANSIDATE",
            "CREATE TABLE k (a INTEGER NOT NULL PRIMARY KEY, b INTEGER NOT NULL UNIQUE)",
            "SEL * FROM DBC.TablesV WHERE TableName = 'QueueStatsV'",
            "CREATE TABLE t AS (SELECT a, b text FROM s) WITH DATA",
            "SELECT \"text\" FROM t WHERE \"on\" <> 1",
            "ALTER TABLE t ADD text VARCHAR(5)",
            "CREATE INDEX (a) ON t",
        ] {
            assert_eq!(refused(sql), None, "{sql}");
        }
    }

    #[test]
    fn each_extension_is_refused_where_it_is_written() {
        for (sql, line, column, says) in [
            ("SELECT AND CONSUME TOP 5 * FROM q", 1, 24, "not TOP 5"),
            (
                "SEL AND CONSUME TOP 1 * FROM q NOWAIT",
                1,
                32,
                "wait clause",
            ),
            (
                "SEL AND CONSUME TOP 1 * FROM q\n  WAIT 5 SECONDS",
                2,
                3,
                "wait clause",
            ),
            (
                "INS t SEL AND CONSUME TOP 1 * FROM q WAIT FOREVER",
                1,
                38,
                "wait clause",
            ),
            (
                "SEL AND CONSUME TOP 1 * FROM q\nWHERE n = 1 NOWAIT",
                2,
                1,
                "cannot specify a WHERE clause",
            ),
            ("SET SESSION CONSUME NOWAIT", 1, 13, "SET SESSION CONSUME"),
            (
                "SET SESSION TRANSACTION ANSI",
                1,
                13,
                "SET SESSION TRANSACTION",
            ),
            ("HELP LOCKS", 1, 6, "HELP LOCKS"),
            (
                "CREATE TABLE k (a INTEGER PRIMARY KEY, b INTEGER)",
                1,
                17,
                "column a must be NOT NULL",
            ),
            (
                "CREATE TABLE k (a INTEGER NOT NULL, b INTEGER, UNIQUE (b))",
                1,
                48,
                "column b must be NOT NULL",
            ),
            ("DROP TABLE IF EXISTS t", 1, 12, "IF EXISTS"),
            ("SELECT a, a = b FROM t", 1, 11, "a condition as a select item"),
            ("SELECT (x IS NULL) AS n FROM t", 1, 9, "a condition as a select item"),
            (
                "SELECT x FROM t UNION SELECT y LIKE 'a%' FROM u",
                1,
                30,
                "a condition as a select item",
            ),
            (
                "SELECT * FROM t WHERE EXISTS (SELECT a > 1 FROM u)",
                1,
                38,
                "a condition as a select item",
            ),
            ("INSERT INTO t VALUES (1), (2)", 1, 15, "several rows"),
            ("SELECT 2 ^ 3", 1, 10, "^"),
            ("SELECT 7 % 2", 1, 10, "%"),
            ("SELECT 1 FROM t WHERE a != b", 1, 25, "!="),
            ("SELECT a::INTEGER FROM t", 1, 9, "::"),
            ("SELECT TRY_CAST('1' AS INTEGER)", 1, 8, "TRY_CAST"),
            ("SELECT CAST(a AS TEXT) FROM t", 1, 18, "TEXT"),
            ("CREATE TABLE t (a INTEGER,\n b TEXT)", 2, 4, "TEXT"),
            ("CREATE INDEX ix ON t (a)", 1, 17, "CREATE INDEX [name] ON"),
            (
                "CREATE TABLE q, QUEUE, CONSUME ORDER (p DESC) (qits TIMESTAMP(6), p INTEGER)",
                1,
                24,
                "CONSUME ORDER",
            ),
            ("SELECT 1; SELECT 2 ^ 3", 1, 20, "^"),
            ("HELP QUEUE q", 1, 6, "HELP QUEUE"),
            (
                "CREATE TABLE q, QUEUE, DELIVER AT (qits) (qits TIMESTAMP(6))",
                1,
                24,
                "DELIVER AT",
            ),
            (
                "CREATE TABLE q, QUEUE, NO FALLBACK,\n MAX ATTEMPTS 3, ATTEMPTS (a) (qits TIMESTAMP(6))",
                2,
                2,
                "MAX ATTEMPTS",
            ),
            (
                "CT q, QUEUE, DEAD LETTER TO d (qits TIMESTAMP(6))",
                1,
                14,
                "DEAD LETTER",
            ),
            ("SELECT AND CONSUME TOP 1 * FROM q LEASE 9 SECONDS", 1, 35, "LEASE"),
            ("ACKNOWLEDGE q LEASE 1", 1, 1, "ACKNOWLEDGE"),
            ("RELEASE q LEASE 1, 2", 1, 1, "RELEASE"),
            (
                "CREATE TABLE q, QUEUE, SUBSCRIBERS (a, b) (qits TIMESTAMP(6))",
                1,
                24,
                "SUBSCRIBERS",
            ),
            (
                "SELECT AND CONSUME TOP 1 * FROM q FOR SUBSCRIBER a WHERE n = 1",
                1,
                35,
                "FOR SUBSCRIBER",
            ),
            ("CREATE SUBSCRIBER a ON q", 1, 8, "CREATE SUBSCRIBER"),
            ("DROP SUBSCRIBER a ON q", 1, 6, "DROP SUBSCRIBER"),
            ("SELECT \"a\" FROM t WHERE x != 1", 1, 27, "!="),
            ("SELECT \"n\" % 2 FROM t", 1, 12, "%"),
            ("CREATE TABLE \"t\" (a TEXT)", 1, 21, "TEXT"),
            ("CREATE MULTISET VOLATILE TABLE t (a TEXT)", 1, 37, "TEXT"),
            ("ALTER TABLE t ADD b TEXT", 1, 21, "TEXT"),
            ("CREATE INDEX ON t (a)", 1, 14, "CREATE INDEX [name] ON"),
            (
                "SEL * FROM DBC.\"QueueStatsV\"",
                1,
                16,
                "Object 'DBC.QUEUESTATSV'",
            ),
            (
                "SEL * FROM dbc.QueueStatsV",
                1,
                16,
                "Object 'DBC.QUEUESTATSV'",
            ),
        ] {
            let got = refused(sql);
            let Some((message, l, c)) = got else {
                panic!("{sql}: not refused");
            };
            assert_eq!((l, c), (line, column), "{sql}: {message}");
            assert!(message.contains(says), "{sql}: {message}");
        }
    }
}
