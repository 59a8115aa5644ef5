//! `SELECT AND CONSUME TOP 1 list FROM queue` and `INSERT INTO t SELECT AND CONSUME …`. Each
//! misuse that Teradata's rules for consuming from a queue table forbid is rejected (3706) by a
//! message that names the rule.
//!
//! tdlite's extensions (docs/queues.md) parse here too: `TOP n` with n > 1 (batch consume),
//! `FOR SUBSCRIBER name` after the table (subscribers), `WHERE condition` after that (selective consume), a wait clause after that (`WAIT s SECONDS`, `WAIT FOREVER`, `NOWAIT`) and `SET SESSION
//! CONSUME` with the same clause; `strict.rs` refuses them in strict mode.
//!
//! Invariant: a consume statement parsed here has `TOP n` with 1 ≤ n ≤ 2,147,483,647, a
//! select list free of aggregates and window functions, one queue table, at most a condition
//! free of subqueries and aggregates and a wait clause after it, and nothing else.

use crate::cursor::Cursor;
use crate::error::ParseError;
use crate::statement::{Consume, ConsumeWait, Statement};
use sqlparser::ast;
use sqlparser::tokenizer::Token;
use std::ops::ControlFlow;

/// True if `SELECT|SEL AND CONSUME` starts at `ahead`.
pub(crate) fn is_consume(cur: &Cursor, ahead: usize) -> bool {
    matches!(cur.word_at(ahead).as_deref(), Some("SELECT") | Some("SEL"))
        && cur.word_at(ahead + 1).as_deref() == Some("AND")
        && cur.word_at(ahead + 2).as_deref() == Some("CONSUME")
}

/// Rejects `SELECT AND CONSUME` anywhere but at the start of a statement.
pub(crate) fn reject_nested_consume(cur: &Cursor) -> Result<(), ParseError> {
    for i in 1..cur.toks.len() {
        if is_consume(cur, i) {
            let mut at = Cursor::new(cur.toks.clone(), cur.end);
            at.pos = i;
            return Err(ParseError::consume(
                "SELECT AND CONSUME cannot appear in a subquery, a search condition, a logical \
                 predicate or a set operation (only INSERT … SELECT AND CONSUME may wrap it).",
                at.loc(),
            ));
        }
    }
    Ok(())
}

/// Parses `SELECT AND CONSUME TOP 1 list FROM queue` at the cursor.
pub(crate) fn parse(cur: &mut Cursor) -> Result<Consume, ParseError> {
    cur.pos += 3; // SELECT AND CONSUME
                  // Teradata's spellings (`MOD`, `NE`, `**`, …) in the select list and the condition
    let mut rest = cur.toks.split_off(cur.pos);
    crate::parser::rewrite_tokens(&mut rest);
    cur.toks.extend(rest);
    let top_at = cur.loc();
    if !cur.eat_word("TOP") {
        return Err(ParseError::consume(
            "SELECT AND CONSUME requires TOP 1 (the mandatory TOP n clause must be TOP 1).",
            top_at,
        ));
    }
    let top_location = cur.loc();
    let n = cur.number("the number of rows after TOP")?;
    let top = match n.parse::<u32>() {
        Ok(top) if (1..=i32::MAX as u32).contains(&top) => top,
        _ => {
            return Err(ParseError::consume(
                format!(
                    "TOP {n} is not a number of rows SELECT AND CONSUME can take (1 to 2147483647)."
                ),
                top_location,
            ))
        }
    };
    if cur.is_word("PERCENT") {
        return Err(ParseError::consume(
            "SELECT AND CONSUME does not support the PERCENT option of TOP n.",
            cur.loc(),
        ));
    }
    if cur.is_word("WITH") && cur.word_at(1).as_deref() == Some("TIES") {
        return Err(ParseError::consume(
            "SELECT AND CONSUME does not support the WITH TIES option of TOP n.",
            cur.loc(),
        ));
    }
    if cur.is_word("DISTINCT") {
        return Err(ParseError::consume(
            "SELECT AND CONSUME does not allow DISTINCT.",
            cur.loc(),
        ));
    }
    let list_at = cur.loc();
    let mut projection = cur.with_sqlparser(|p| p.parse_projection())?;
    crate::phrase::name_items(&mut projection);
    crate::phrase::format_casts_as_phrases(&mut projection);
    check_projection(&projection, list_at)?;
    let from_at = cur.loc();
    if !cur.eat_word("FROM") {
        return Err(ParseError::consume(
            "SELECT AND CONSUME needs FROM followed by the queue table name.",
            from_at,
        ));
    }
    let table_location = cur.loc();
    if cur.peek() == Some(&Token::LParen) {
        return Err(ParseError::consume(
            "SELECT AND CONSUME reads from a queue table, not from a derived table or subquery.",
            table_location,
        ));
    }
    let table = cur.with_sqlparser(|p| p.parse_object_name(false))?;
    let subscriber_at = cur.loc();
    let subscriber = if cur.is_word("FOR") && cur.word_at(1).as_deref() == Some("SUBSCRIBER") {
        cur.pos += 2;
        Some((cur.ident("a subscriber's name")?, subscriber_at))
    } else {
        None
    };
    let where_at = cur.loc();
    let filter = if cur.eat_word("WHERE") {
        let cond_at = cur.loc();
        let cond = cur.with_sqlparser(|p| p.parse_expr())?;
        check_condition(&cond, cond_at)?;
        Some((cond, where_at))
    } else {
        None
    };
    let lease_at = cur.loc();
    let lease = if cur.eat_word("LEASE") {
        let n = cur.number("a number of seconds, minutes or hours after LEASE")?;
        // a lease of a microsecond up to a day
        let time = duration_in_units(cur, &n, 86_400)?.ok_or_else(|| {
            ParseError::syntax("LEASE takes a time from a microsecond to a day.", lease_at)
        })?;
        Some((time, lease_at))
    } else {
        None
    };
    let wait_at = cur.loc();
    let wait = wait_clause(cur)?.map(|w| (w, wait_at));
    reject_trailing_clause(cur)?;
    Ok(Consume {
        top,
        top_location,
        projection,
        table,
        table_location,
        filter,
        lease,
        wait,
        subscriber,
    })
}

/// The longest wait a clause may ask for: a year, in seconds.
const MAX_WAIT_SECONDS: u64 = 31_536_000;

/// `WAIT s [SECOND|SECONDS] | WAIT FOREVER | NOWAIT` at the cursor, if there is one.
fn wait_clause(cur: &mut Cursor) -> Result<Option<ConsumeWait>, ParseError> {
    if cur.eat_word("NOWAIT") {
        return Ok(Some(ConsumeWait::NoWait));
    }
    if !cur.eat_word("WAIT") {
        return Ok(None);
    }
    if cur.eat_word("FOREVER") {
        return Ok(Some(ConsumeWait::Forever));
    }
    let at = cur.loc();
    let n = cur.number("a number of seconds or FOREVER after WAIT")?;
    let Some(wait) = duration(&n, MAX_WAIT_SECONDS) else {
        return Err(ParseError::syntax(
            format!("WAIT {n} is not a number of seconds from 0 to {MAX_WAIT_SECONDS}."),
            at,
        ));
    };
    let _ = cur.eat_word("SECONDS") || cur.eat_word("SECOND");
    Ok(Some(ConsumeWait::For(wait)))
}

/// `n` followed by its unit at the cursor (`SECOND[S]`, `MINUTE[S]`, `HOUR[S]`, `DAY[S]`),
/// as a duration: `None` if it is zero or longer than `max` seconds.
///
/// # Errors
/// 3706 if no unit follows.
pub(crate) fn duration_in_units(
    cur: &mut Cursor,
    n: &str,
    max: u64,
) -> Result<Option<std::time::Duration>, ParseError> {
    let unit: u32 = match cur.word_at(0).as_deref() {
        Some("SECOND" | "SECONDS") => 1,
        Some("MINUTE" | "MINUTES") => 60,
        Some("HOUR" | "HOURS") => 3_600,
        Some("DAY" | "DAYS") => 86_400,
        _ => return Err(cur.unexpected("expected SECONDS, MINUTES, HOURS or DAYS")),
    };
    cur.pos += 1;
    Ok(duration(n, max / u64::from(unit))
        .map(|d| d * unit)
        .filter(|d| !d.is_zero()))
}

/// `n` (digits, with at most one `.`) seconds as a duration of at most `max` seconds, to the
/// microsecond (digits past the sixth decimal are dropped).
pub(crate) fn duration(n: &str, max: u64) -> Option<std::time::Duration> {
    let (whole, frac) = n.split_once('.').unwrap_or((n, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if !digits(whole) || !digits(frac) || (whole.is_empty() && frac.is_empty()) {
        return None;
    }
    let whole: u64 = if whole.is_empty() {
        0
    } else {
        whole.parse().ok()?
    };
    let micros = frac
        .bytes()
        .chain(std::iter::repeat(b'0'))
        .take(6)
        .fold(0u32, |acc, b| acc * 10 + u32::from(b - b'0'));
    if whole > max || (whole == max && micros > 0) {
        return None;
    }
    Some(std::time::Duration::from_secs(whole) + std::time::Duration::from_micros(micros.into()))
}

/// `SET SESSION CONSUME wait` (the cursor past `SET SESSION CONSUME`).
pub(crate) fn parse_set_wait(cur: &mut Cursor) -> Result<Statement, ParseError> {
    let Some(wait) = wait_clause(cur)? else {
        return Err(cur.unexpected("expected WAIT seconds SECONDS, WAIT FOREVER or NOWAIT"));
    };
    cur.expect_end()?;
    Ok(Statement::SetConsumeWait(wait))
}

fn reject_trailing_clause(cur: &Cursor) -> Result<(), ParseError> {
    if cur.at_end() {
        return Ok(());
    }
    let at = cur.loc();
    let rule = match cur.peek() {
        Some(Token::Comma) => {
            "You cannot join queue tables with other tables in a SELECT AND CONSUME statement."
        }
        _ => match cur.word_at(0).as_deref() {
            Some("WHERE") => "In a selective SELECT AND CONSUME, WHERE comes before the wait clause.",
            Some("JOIN" | "INNER" | "LEFT" | "RIGHT" | "FULL" | "CROSS" | "NATURAL") => {
                "You cannot join queue tables with other tables in a SELECT AND CONSUME statement."
            }
            Some("ORDER") => {
                "SELECT AND CONSUME does not allow ORDER BY: rows are consumed in QITS order."
            }
            Some("GROUP" | "HAVING") => {
                "SELECT AND CONSUME does not allow GROUP BY or HAVING."
            }
            Some("QUALIFY" | "SAMPLE") => "SELECT AND CONSUME does not allow QUALIFY or SAMPLE.",
            Some("UNION" | "MINUS" | "EXCEPT" | "INTERSECT") => {
                "SELECT AND CONSUME cannot be part of a set operation (UNION, MINUS, EXCEPT, INTERSECT)."
            }
            _ => {
                return Err(cur.unexpected(
                    "expected the end of the SELECT AND CONSUME statement after the queue table name",
                ))
            }
        },
    };
    Err(ParseError::consume(rule, at))
}

fn check_projection(
    items: &[ast::SelectItem],
    at: crate::error::Location,
) -> Result<(), ParseError> {
    for item in items {
        let expr = match item {
            ast::SelectItem::UnnamedExpr(e) | ast::SelectItem::ExprWithAlias { expr: e, .. } => e,
            _ => continue,
        };
        match forbidden(expr) {
            Some("subquery") => {
                return Err(ParseError::consume(
                    "The select list of SELECT AND CONSUME cannot contain a subquery.",
                    at,
                ))
            }
            Some(_) => {
                return Err(ParseError::consume(
                    "You cannot specify aggregate or ordered analytic functions in a SELECT AND \
                     CONSUME statement.",
                    at,
                ))
            }
            None => {}
        }
    }
    Ok(())
}

/// A selective consume's condition reads the queue's row alone: no subquery, no aggregate.
fn check_condition(cond: &ast::Expr, at: crate::error::Location) -> Result<(), ParseError> {
    match forbidden(cond) {
        Some("subquery") => Err(ParseError::consume(
            "The condition of a selective SELECT AND CONSUME cannot contain a subquery.",
            at,
        )),
        Some(_) => Err(ParseError::consume(
            "The condition of a selective SELECT AND CONSUME cannot contain aggregate or \
             ordered analytic functions.",
            at,
        )),
        None => Ok(()),
    }
}

/// `Some("subquery")` or `Some("aggregate")` if `expr` holds one, else `None`.
fn forbidden(expr: &ast::Expr) -> Option<&'static str> {
    let found = ast::visit_expressions(expr, |e| match e {
        ast::Expr::Function(f) if f.over.is_some() || is_aggregate(&f.name) => {
            ControlFlow::Break("aggregate")
        }
        ast::Expr::Subquery(_)
        | ast::Expr::Exists { .. }
        | ast::Expr::In {
            target: ast::InTarget::Subquery(_),
            ..
        } => ControlFlow::Break("subquery"),
        _ => ControlFlow::Continue(()),
    });
    match found {
        ControlFlow::Break(what) => Some(what),
        ControlFlow::Continue(()) => None,
    }
}

fn is_aggregate(name: &ast::ObjectName) -> bool {
    let n = crate::parser::object_name_string(name).to_ascii_uppercase();
    matches!(
        n.as_str(),
        "COUNT"
            | "SUM"
            | "AVG"
            | "AVERAGE"
            | "MIN"
            | "MAX"
            | "MINIMUM"
            | "MAXIMUM"
            | "STDDEV_POP"
            | "STDDEV_SAMP"
            | "VAR_POP"
            | "VAR_SAMP"
            | "RANK"
            | "ROW_NUMBER"
            | "DENSE_RANK"
            | "CSUM"
            | "MSUM"
            | "MAVG"
    )
}

/// `INSERT|INS [INTO] t [(cols)] SELECT AND CONSUME …`; `Ok(None)` if this is another INSERT.
pub(crate) fn parse_insert_consume(cur: &mut Cursor) -> Result<Option<Statement>, ParseError> {
    let start = cur.pos;
    cur.pos += 1;
    cur.eat_word("INTO");
    let name_at = cur.pos;
    if cur.dotted_name("a table name").is_err() {
        cur.pos = start;
        return Ok(None);
    }
    let name_end = cur.pos;
    let mut columns = Vec::new();
    if cur.peek() == Some(&Token::LParen) {
        let Some(end) = column_list_end(cur).filter(|&e| is_consume(cur, e - cur.pos)) else {
            cur.pos = start;
            return Ok(None);
        };
        debug_assert!(end > cur.pos);
        cur.pos += 1;
        while cur.peek() != Some(&Token::RParen) {
            let at = cur.pos;
            let name = cur.ident("a column name")?;
            let quote_style = match &cur.toks[at].token {
                Token::Word(w) => w.quote_style,
                _ => None,
            };
            columns.push(ast::Ident {
                value: name,
                quote_style,
                span: cur.toks[at].span,
            });
            cur.eat_token(&Token::Comma);
        }
        cur.pos += 1;
    }
    if !is_consume(cur, 0) {
        cur.pos = start;
        return Ok(None);
    }
    let mut name_cur = Cursor::new(cur.toks[name_at..name_end].to_vec(), cur.end);
    let table = name_cur.with_sqlparser(|p| p.parse_object_name(false))?;
    let consume = parse(cur)?;
    if let Some((_, at)) = consume.lease {
        return Err(ParseError::syntax(
            "INSERT … SELECT AND CONSUME cannot take a LEASE: its rows are consumed into the \
             target table.",
            at,
        ));
    }
    Ok(Some(Statement::InsertConsume {
        table,
        columns,
        consume: Box::new(consume),
    }))
}

/// If a `(name, name, …)` column list starts at the cursor's `(`, the index just past its `)`.
fn column_list_end(cur: &Cursor) -> Option<usize> {
    let mut probe = cur.pos + 1;
    while let Some(Token::Word(_)) = cur.toks.get(probe).map(|t| &t.token) {
        probe += 1;
        match cur.toks.get(probe).map(|t| &t.token) {
            Some(Token::Comma) => probe += 1,
            Some(Token::RParen) => return Some(probe + 1),
            _ => return None,
        }
    }
    None
}
