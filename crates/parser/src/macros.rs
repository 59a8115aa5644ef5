//! Teradata macros: `CREATE|REPLACE MACRO name [(p type [DEFAULT v], …)] AS (statements;)`,
//! `EXEC|EXECUTE name [(args)]`, `DROP MACRO name`, `SHOW MACRO name`.
//!
//! The body is kept as the text between `AS (` and its `)`, and parameters as names and types;
//! `EXEC` puts each argument's text where the body says `:name` (see
//! [`crate::replace_host_variables`]) and runs the result as one request.
//!
//! Invariant: [`parse`] returns `None`, consuming nothing, for any other statement.

use crate::cursor::Cursor;
use crate::error::{Location, ParseError};
use crate::statement::Statement;
use sqlparser::tokenizer::Token;

/// Parses the statement at `cur` if it is about a macro. The body of CREATE MACRO comes back
/// empty, with its span in `body_span`: the caller, who has the text, fills it in.
pub(crate) fn parse(cur: &mut Cursor) -> Option<Result<Statement, ParseError>> {
    let first = cur.word_at(0)?;
    let second = cur.word_at(1);
    let is_macro = second.as_deref() == Some("MACRO");
    Some(match first.as_str() {
        "CREATE" | "REPLACE" if is_macro => create(cur, first == "REPLACE"),
        "EXEC" | "EXECUTE" => exec(cur),
        "DROP" if is_macro => name_only(cur).map(Statement::DropMacro),
        "SHOW" if is_macro => name_only(cur).map(Statement::ShowMacro),
        _ => return None,
    })
}

/// `VERB OBJECT name` (DROP or SHOW of a macro or a procedure): the name.
pub(crate) fn name_only(cur: &mut Cursor) -> Result<sqlparser::ast::ObjectName, ParseError> {
    cur.pos += 2;
    let name = cur.with_sqlparser(|p| p.parse_object_name(false))?;
    cur.expect_end()?;
    Ok(name)
}

fn create(cur: &mut Cursor, replace: bool) -> Result<Statement, ParseError> {
    cur.pos += 2;
    let name = cur.with_sqlparser(|p| p.parse_object_name(false))?;
    let mut params = Vec::new();
    let mut param_spans = Vec::new();
    if cur.eat_token(&Token::LParen) {
        loop {
            let pname = cur.ident("a parameter name")?;
            param_spans.push(item(cur, &format!("a type for parameter {pname}"))?);
            params.push((pname, String::new()));
            if cur.eat_token(&Token::RParen) {
                break;
            }
            cur.expect_token(&Token::Comma, "',' or ')'")?;
        }
    }
    cur.expect_word("AS")?;
    let open = cur.loc();
    cur.expect_token(&Token::LParen, "'(' before the macro's statements")?;
    let body_start = cur.loc();
    let mut depth = 1usize;
    let body_end = loop {
        match cur.peek() {
            None => return Err(cur.unexpected("expected ')' to end the macro's statements")),
            Some(Token::LParen) => depth += 1,
            Some(Token::RParen) => {
                depth -= 1;
                if depth == 0 {
                    break cur.loc();
                }
            }
            Some(_) => {}
        }
        cur.pos += 1;
    };
    cur.pos += 1;
    cur.expect_end()?;
    if body_start == body_end {
        return Err(ParseError::syntax("a macro needs statements", open));
    }
    Ok(Statement::CreateMacro {
        name,
        params,
        body: String::new(),
        body_span: (body_start, body_end),
        param_spans,
        replace,
    })
}

/// Reads one list item (a parameter's type, an EXEC or CALL argument) up to the `,` or `)`
/// that ends it outside nested parentheses; its span, whose text the caller fills in as
/// written (3706 naming `what` if the item is empty).
pub(crate) fn item(cur: &mut Cursor, what: &str) -> Result<(Location, Location), ParseError> {
    let start = cur.loc();
    let mut depth = 0usize;
    while let Some(t) = cur.peek() {
        match t {
            Token::Comma | Token::RParen if depth == 0 => break,
            Token::LParen => depth += 1,
            Token::RParen => depth -= 1,
            _ => {}
        }
        cur.pos += 1;
    }
    if start == cur.loc() {
        return Err(cur.unexpected(&format!("expected {what}")));
    }
    Ok((start, cur.loc()))
}

/// `EXEC name [( [p =] arg, … )]`: the arguments as text, with their names when given.
fn exec(cur: &mut Cursor) -> Result<Statement, ParseError> {
    cur.pos += 1;
    let name = cur.with_sqlparser(|p| p.parse_object_name(false))?;
    let mut args = Vec::new();
    let mut arg_spans = Vec::new();
    if cur.eat_token(&Token::LParen) && !cur.eat_token(&Token::RParen) {
        loop {
            let named = match (cur.peek(), cur.peek_at(1)) {
                (Some(Token::Word(w)), Some(Token::Eq)) => {
                    let n = w.value.clone();
                    cur.pos += 2;
                    Some(n)
                }
                _ => None,
            };
            arg_spans.push(item(cur, "an argument")?);
            args.push((named, String::new()));
            if cur.eat_token(&Token::RParen) {
                break;
            }
            cur.expect_token(&Token::Comma, "',' or ')'")?;
        }
    }
    cur.expect_end()?;
    Ok(Statement::ExecMacro {
        name,
        args,
        arg_spans,
    })
}

/// Puts the text as written (not the tokens' text: `'it''s'` stays as it is) into a macro
/// statement: the body, the parameter types and the EXEC arguments.
pub(crate) fn fill_text(statement: &mut Statement, sql: &str) {
    match statement {
        Statement::CreateMacro {
            body,
            body_span,
            params,
            param_spans,
            ..
        } => {
            *body = body_text(sql, *body_span);
            for ((_, ty), span) in params.iter_mut().zip(param_spans.iter()) {
                *ty = body_text(sql, *span);
            }
        }
        Statement::ExecMacro {
            args, arg_spans, ..
        } => {
            for ((_, text), span) in args.iter_mut().zip(arg_spans.iter()) {
                *text = body_text(sql, *span);
            }
        }
        Statement::CreateProcedure {
            params,
            param_spans,
            body,
            body_span,
            ..
        } => {
            *body = body_text(sql, *body_span);
            for ((_, _, ty), span) in params.iter_mut().zip(param_spans.iter()) {
                *ty = body_text(sql, *span);
            }
        }
        Statement::Call {
            args, arg_spans, ..
        } => {
            for (text, span) in args.iter_mut().zip(arg_spans.iter()) {
                *text = body_text(sql, *span);
            }
        }
        _ => {}
    }
}

/// The text between two locations of `sql`, trimmed.
fn body_text(sql: &str, span: (Location, Location)) -> String {
    let start = crate::parser::Offsets::byte_of(sql, span.0);
    let end = crate::parser::Offsets::byte_of(sql, span.1).max(start);
    sql[start..end].trim().to_string()
}
