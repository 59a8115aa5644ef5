//! Teradata's session SET statements that deployment scripts start with (SQL Data Definition
//! Language, "SET SESSION", "SET TIME ZONE"):
//!
//! ```text
//! SET SESSION DATEFORM = ANSIDATE | INTEGERDATE
//! SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL READ UNCOMMITTED | SERIALIZABLE
//! SET SESSION ISOLATION LEVEL RU | SR | READ UNCOMMITTED | SERIALIZABLE
//! SET SESSION DATABASE name                      (as DATABASE name)
//! SET SESSION COLLATION name
//! SET TIME ZONE LOCAL | USER | INTERVAL 'hh:mi' HOUR TO MINUTE | 'zone'
//! ```
//!
//! (`SET SESSION TRANSACTION` and `SET SESSION CONSUME` are parsed beside these, in parser.rs
//! and consume.rs.) What each does is the session's choice (exec); the parser only reads them.

use crate::cursor::Cursor;
use crate::error::ParseError;
use crate::statement::{SessionOption, Statement};
use sqlparser::tokenizer::Token;

/// True if the cursor (at `SET`) starts one of these statements.
pub(crate) fn is_session_set(cur: &Cursor) -> bool {
    match (cur.word_at(1).as_deref(), cur.word_at(2).as_deref()) {
        (Some("SESSION"), Some(w)) => matches!(
            w,
            "DATEFORM" | "CHARACTERISTICS" | "ISOLATION" | "DATABASE" | "COLLATION"
        ),
        (Some("TIME"), Some("ZONE")) => true,
        _ => false,
    }
}

/// Parses one of these statements (the cursor at `SET`).
///
/// # Errors
/// 3706 for a form none of these has.
pub(crate) fn parse(cur: &mut Cursor) -> Result<Statement, ParseError> {
    cur.pos += 1;
    if cur.eat_words(&["TIME", "ZONE"]) {
        let zone = if cur.eat_word("LOCAL") {
            "LOCAL".to_string()
        } else if cur.eat_word("USER") {
            "USER".to_string()
        } else if cur.eat_word("INTERVAL") {
            let text = cur.string("an interval such as '+00:00'")?;
            cur.expect_word("HOUR")?;
            cur.expect_word("TO")?;
            cur.expect_word("MINUTE")?;
            format!("INTERVAL '{text}' HOUR TO MINUTE")
        } else {
            cur.string("LOCAL, USER, INTERVAL '…' HOUR TO MINUTE or a zone's name")?
        };
        cur.expect_end()?;
        return Ok(Statement::SessionOption(SessionOption::TimeZone(zone)));
    }
    cur.expect_word("SESSION")?;
    let option = match cur.word_at(0).as_deref() {
        Some("DATEFORM") => {
            cur.pos += 1;
            cur.expect_token(&Token::Eq, "'=' after DATEFORM")?;
            let ansi = if cur.eat_word("ANSIDATE") {
                true
            } else if cur.eat_word("INTEGERDATE") {
                false
            } else {
                return Err(cur.unexpected("expected ANSIDATE or INTEGERDATE"));
            };
            SessionOption::DateForm { ansi }
        }
        Some("CHARACTERISTICS") => {
            cur.pos += 1;
            for w in ["AS", "TRANSACTION"] {
                cur.expect_word(w)?;
            }
            isolation(cur)?
        }
        Some("ISOLATION") => isolation(cur)?,
        Some("DATABASE") => {
            cur.pos += 1;
            let name = cur.dotted_name("a database name")?.join(".");
            cur.expect_end()?;
            return Ok(Statement::Database(name));
        }
        Some("COLLATION") => {
            cur.pos += 1;
            SessionOption::Collation(cur.ident("a collation name")?.to_ascii_uppercase())
        }
        _ => return Err(cur.unexpected("expected a session option")),
    };
    cur.expect_end()?;
    Ok(Statement::SessionOption(option))
}

/// `ISOLATION LEVEL RU | SR | READ UNCOMMITTED | SERIALIZABLE`.
fn isolation(cur: &mut Cursor) -> Result<SessionOption, ParseError> {
    cur.expect_word("ISOLATION")?;
    cur.expect_word("LEVEL")?;
    let read_uncommitted = if cur.eat_word("RU") || cur.eat_words(&["READ", "UNCOMMITTED"]) {
        true
    } else if cur.eat_word("SR") || cur.eat_word("SERIALIZABLE") {
        false
    } else {
        return Err(cur.unexpected("expected READ UNCOMMITTED, SERIALIZABLE, RU or SR"));
    };
    Ok(SessionOption::Isolation { read_uncommitted })
}
