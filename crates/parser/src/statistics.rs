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
//! Teradata samples; they are read past. `COLUMN PARTITION` is the column set of Teradata's
//! PARTITION column; `INDEX name` the columns of that index (the executor looks them up).

use crate::cursor::Cursor;
use crate::error::ParseError;
use crate::statement::{Statement, StatsGroup};
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
        groups,
    })
}

/// `group [, group]…`.
fn group_list(cur: &mut Cursor) -> Result<Vec<StatsGroup>, ParseError> {
    let mut groups = vec![group(cur)?];
    while cur.eat_token(&Token::Comma) {
        groups.push(group(cur)?);
    }
    Ok(groups)
}

fn group(cur: &mut Cursor) -> Result<StatsGroup, ParseError> {
    let index = if cur.eat_word("INDEX") {
        true
    } else if cur.eat_word("COLUMN") || cur.eat_word("COLUMNS") {
        false
    } else {
        return Err(cur.unexpected("expected COLUMN or INDEX"));
    };
    let group = if cur.eat_token(&Token::LParen) {
        // `COLUMN (PARTITION)` names the PARTITION column like any other
        let mut names = vec![cur.ident("a column name")?];
        while cur.eat_token(&Token::Comma) {
            names.push(cur.ident("a column name")?);
        }
        cur.expect_token(&Token::RParen, "')'")?;
        StatsGroup::Columns(names)
    } else if index {
        StatsGroup::Index(cur.ident("an index name")?)
    } else {
        StatsGroup::Columns(vec![cur.ident("a column name")?])
    };
    if cur.eat_word("AS") {
        cur.ident("a statistics name")?;
    }
    Ok(group)
}
