//! `CREATE SUBSCRIBER name ON q` and `DROP SUBSCRIBER name ON q` (tdlite extensions,
//! docs/queues.md Subscribers). Not `ALTER TABLE q ADD SUBSCRIBER name`: that already means
//! adding a column named SUBSCRIBER of type `name`.

use crate::cursor::Cursor;
use crate::error::ParseError;
use crate::statement::Statement;

/// The statement at the cursor, if it is one of these.
pub(crate) fn parse(cur: &mut Cursor) -> Option<Result<Statement, ParseError>> {
    let create = match cur.word_at(0).as_deref() {
        Some("CREATE") => true,
        Some("DROP") => false,
        _ => return None,
    };
    if cur.word_at(1).as_deref() != Some("SUBSCRIBER") {
        return None;
    }
    cur.pos += 2;
    Some(parse_rest(cur, create))
}

fn parse_rest(cur: &mut Cursor, create: bool) -> Result<Statement, ParseError> {
    let name = cur.ident("a subscriber's name")?;
    cur.expect_word("ON")?;
    let queue = cur.with_sqlparser(|p| p.parse_object_name(false))?;
    cur.expect_end()?;
    Ok(Statement::Subscriber {
        name,
        queue,
        create,
    })
}
