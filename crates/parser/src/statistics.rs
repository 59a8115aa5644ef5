//! `COLLECT STATISTICS` and `DROP STATISTICS` in their Teradata forms: the table, and the
//! column sets named by `COLUMN x`, `COLUMN (x, y)` and `INDEX (x, y)`.
//!
//! ```text
//! {COLLECT | DROP} [SUMMARY] {STATISTICS | STATS | STAT} [USING options]
//!     { group [, group]… ON [TEMPORARY] table | ON [TEMPORARY] table [group [, group]…] }
//!     [FROM source]
//! group := {COLUMN | COLUMNS} {name | (name, …) | PARTITION} [AS stat_name]
//!        | INDEX {index_name | (name, …)} [AS stat_name]
//! ```
//!
//! `USING` options (`SAMPLE n PERCENT`, `MAXVALUELENGTH n`, …) and a `FROM` source tune how
//! Teradata samples; they are read past. `COLUMN PARTITION` and an index named rather than
//! listed name no column set here and are left out of [`Statement::Statistics`]'s groups.

use crate::cursor::Cursor;
use crate::error::ParseError;
use crate::statement::Statement;
use sqlparser::tokenizer::Token;

/// Parses the statement after `COLLECT` or `DROP` (the cursor on `SUMMARY` or `STATISTICS`).
pub(crate) fn parse(cur: &mut Cursor, drop: bool) -> Result<Statement, ParseError> {
    cur.eat_word("SUMMARY");
    if !cur.eat_word("STATISTICS") && !cur.eat_word("STATS") && !cur.eat_word("STAT") {
        return Err(cur.unexpected("expected STATISTICS"));
    }
    if cur.eat_word("USING") {
        // sampling options, up to the first group or ON
        while cur.peek().is_some()
            && !matches!(
                cur.word_at(0).as_deref(),
                Some("COLUMN" | "COLUMNS" | "INDEX" | "ON")
            )
        {
            cur.pos += 1;
        }
    }
    let mut groups = Vec::new();
    let on_first = cur.eat_word("ON");
    if !on_first {
        groups = group_list(cur)?;
        if !cur.eat_word("ON") {
            return Err(cur.unexpected("expected ON and the table"));
        }
    }
    cur.eat_word("TEMPORARY");
    let table = cur.with_sqlparser(|p| p.parse_object_name(false))?;
    if on_first
        && matches!(
            cur.word_at(0).as_deref(),
            Some("COLUMN" | "COLUMNS" | "INDEX")
        )
    {
        groups = group_list(cur)?;
    }
    if cur.eat_word("FROM") {
        // the source whose statistics are copied: read past
        cur.pos = cur.toks.len();
    }
    cur.expect_end()?;
    Ok(Statement::Statistics {
        drop,
        table,
        groups: groups.into_iter().flatten().collect(),
    })
}

/// `group [, group]…`: each group's columns, `None` for one that names no column set.
fn group_list(cur: &mut Cursor) -> Result<Vec<Option<Vec<String>>>, ParseError> {
    let mut groups = vec![group(cur)?];
    while cur.eat_token(&Token::Comma) {
        groups.push(group(cur)?);
    }
    Ok(groups)
}

fn group(cur: &mut Cursor) -> Result<Option<Vec<String>>, ParseError> {
    let index = if cur.eat_word("INDEX") {
        true
    } else if cur.eat_word("COLUMN") || cur.eat_word("COLUMNS") {
        false
    } else {
        return Err(cur.unexpected("expected COLUMN or INDEX"));
    };
    let columns = if cur.eat_token(&Token::LParen) {
        let mut names = vec![cur.ident("a column name")?];
        while cur.eat_token(&Token::Comma) {
            names.push(cur.ident("a column name")?);
        }
        cur.expect_token(&Token::RParen, "')'")?;
        Some(names)
    } else if !index && cur.eat_word("PARTITION") {
        None
    } else {
        let name = cur.ident(if index {
            "an index name"
        } else {
            "a column name"
        })?;
        (!index).then(|| vec![name])
    };
    if cur.eat_word("AS") {
        cur.ident("a statistics name")?;
    }
    Ok(columns)
}
