//! `ACKNOWLEDGE q LEASE id [, id …]` and `RELEASE q LEASE id [, id …]` (tdlite extensions,
//! docs/queues.md Leases): the end of leases a `SELECT AND CONSUME … LEASE` took. Teradata's
//! own `RELEASE LOCK` and `RELEASE MLOAD` are not these (`LEASE` follows the table's name).

use crate::cursor::Cursor;
use crate::error::ParseError;
use crate::statement::Statement;
use sqlparser::tokenizer::Token;

/// The statement at the cursor, if it is one of these.
pub(crate) fn parse(cur: &mut Cursor) -> Option<Result<Statement, ParseError>> {
    let acknowledge = match cur.word_at(0).as_deref() {
        Some("ACKNOWLEDGE") => true,
        Some("RELEASE") => false,
        _ => return None,
    };
    // `RELEASE [db.]name LEASE …`; Teradata's `RELEASE LOCK …` / `RELEASE MLOAD …` are not
    if !acknowledge {
        let mut ahead = Cursor::new(cur.toks.clone(), cur.end);
        ahead.pos = cur.pos + 1;
        let named = ahead.with_sqlparser(|p| p.parse_object_name(false)).is_ok();
        if !named || !ahead.is_word("LEASE") {
            return None;
        }
    }
    cur.pos += 1;
    Some(parse_rest(cur, acknowledge))
}

fn parse_rest(cur: &mut Cursor, acknowledge: bool) -> Result<Statement, ParseError> {
    let table = cur.with_sqlparser(|p| p.parse_object_name(false))?;
    cur.expect_word("LEASE")?;
    let mut leases = Vec::new();
    loop {
        let at = cur.loc();
        let n = cur.number("a lease number")?;
        let id = n
            .parse::<u64>()
            .map_err(|_| ParseError::syntax(format!("{n} is not a lease number."), at))?;
        leases.push(id);
        if !cur.eat_token(&Token::Comma) {
            break;
        }
    }
    cur.expect_end()?;
    Ok(Statement::EndLease {
        table,
        leases,
        acknowledge,
    })
}
