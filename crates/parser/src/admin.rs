//! Teradata's administrative statements that deployment scripts carry: databases and users
//! (`CREATE|DROP|MODIFY|DELETE DATABASE|USER`), rights (`GRANT`, `REVOKE`), `COMMENT ON`, and
//! `RENAME TABLE`. They are parsed by hand: their Teradata forms (`CREATE DATABASE d FROM dbc AS
//! PERM = 1e9`, `GRANT SEL ON d TO u`) are not sqlparser's.
//!
//! Invariant: [`parse`] returns `None` for a statement that is none of these, and consumes no
//! token then, so the caller's other parsers see the statement whole.

use crate::cursor::Cursor;
use crate::error::ParseError;
use crate::statement::{AdminStatement, Statement};
use sqlparser::ast;
use sqlparser::tokenizer::Token;

/// Parses the statement at `cur` if it is an administrative one.
pub(crate) fn parse(cur: &mut Cursor) -> Option<Result<Statement, ParseError>> {
    let first = cur.word_at(0)?;
    let second = cur.word_at(1);
    let user_or_db = matches!(second.as_deref(), Some("DATABASE") | Some("USER"));
    let parsed = match first.as_str() {
        "CREATE" if user_or_db => database(cur, DbVerb::Create),
        "DROP" if user_or_db => database(cur, DbVerb::Drop),
        "MODIFY" if user_or_db => database(cur, DbVerb::Modify),
        "DELETE" | "DEL" if user_or_db => database(cur, DbVerb::Delete),
        "GRANT" => rights(cur, false),
        "REVOKE" => rights(cur, true),
        "COMMENT" if second.as_deref() == Some("ON") => comment(cur),
        "RENAME" if matches!(second.as_deref(), Some("TABLE") | Some("VIEW")) => rename(cur),
        _ => return None,
    };
    Some(parsed.map(Statement::Admin))
}

#[derive(Clone, Copy)]
enum DbVerb {
    Create,
    Drop,
    Modify,
    Delete,
}

/// `CREATE|DROP|MODIFY|DELETE DATABASE|USER name …`. What follows the name (`FROM dbc AS PERM = …, PASSWORD = …`, `ALL`) is space accounting and
/// credentials, which tdlite does not keep.
fn database(cur: &mut Cursor, verb: DbVerb) -> Result<AdminStatement, ParseError> {
    let user = cur.word_at(1).as_deref() == Some("USER");
    cur.pos += 2;
    let name = cur.dotted_name("a database name")?.join(".");
    let rest_ok = match verb {
        // the options are accounting and credentials; any text is accepted
        DbVerb::Create | DbVerb::Modify => {
            cur.pos = cur.toks.len();
            true
        }
        DbVerb::Delete => {
            cur.eat_word("ALL");
            cur.at_end()
        }
        DbVerb::Drop => cur.at_end(),
    };
    if !rest_ok {
        cur.expect_end()?;
    }
    Ok(match verb {
        DbVerb::Create => AdminStatement::CreateDatabase { name, user },
        DbVerb::Drop => AdminStatement::DropDatabase { name, user },
        DbVerb::Modify => AdminStatement::ModifyDatabase { name },
        DbVerb::Delete => AdminStatement::DeleteDatabase { name },
    })
}

/// The words up to (not including) one of `stop`, joined with blanks, split at commas.
fn words_until(cur: &mut Cursor, stop: &[&str]) -> Vec<String> {
    let mut items = vec![String::new()];
    while let Some(t) = cur.peek() {
        if cur.word_at(0).is_some_and(|w| stop.contains(&w.as_str())) {
            break;
        }
        match t {
            Token::Comma => items.push(String::new()),
            other => {
                let last = items.last_mut().expect("never empty");
                if !last.is_empty() {
                    last.push(' ');
                }
                last.push_str(&other.to_string().to_ascii_uppercase());
            }
        }
        cur.pos += 1;
    }
    items.retain(|i| !i.is_empty());
    items
}

/// `GRANT privileges ON object TO names [WITH GRANT OPTION]`, `REVOKE [GRANT OPTION FOR]
/// privileges ON object FROM|TO names`; also a role grant without `ON` (`GRANT r TO u`).
fn rights(cur: &mut Cursor, revoke: bool) -> Result<AdminStatement, ParseError> {
    cur.pos += 1;
    if revoke {
        cur.eat_words(&["GRANT", "OPTION", "FOR"]);
    }
    let privileges = words_until(cur, &["ON", "TO", "FROM"]);
    if privileges.is_empty() {
        return Err(cur.unexpected("expected the rights to grant or revoke"));
    }
    let object = if cur.eat_word("ON") {
        Some(cur.dotted_name("a database, table or view name")?.join("."))
    } else {
        None
    };
    if !(cur.eat_word("TO") || cur.eat_word("FROM")) {
        return Err(cur.unexpected("expected TO or FROM"));
    }
    let grantees = words_until(cur, &["WITH"]);
    if grantees.is_empty() {
        return Err(cur.unexpected("expected a user or role name"));
    }
    let with_grant_option = cur.eat_words(&["WITH", "GRANT", "OPTION"]);
    cur.expect_end()?;
    Ok(AdminStatement::Rights {
        revoke,
        privileges,
        object,
        grantees,
        with_grant_option,
    })
}

/// `COMMENT ON [TABLE|VIEW|COLUMN|DATABASE|USER|MACRO|PROCEDURE] name [AS|IS] 'text'`.
fn comment(cur: &mut Cursor) -> Result<AdminStatement, ParseError> {
    cur.pos += 2;
    let kinds = [
        "TABLE",
        "VIEW",
        "COLUMN",
        "DATABASE",
        "USER",
        "MACRO",
        "PROCEDURE",
        "FUNCTION",
        "TRIGGER",
        "PROFILE",
        "ROLE",
    ];
    let kind = match cur.word_at(0) {
        Some(k) if kinds.contains(&k.as_str()) => {
            cur.pos += 1;
            k
        }
        _ => "OBJECT".to_string(),
    };
    let object = cur
        .dotted_name("the name of what the comment is on")?
        .join(".");
    let _ = cur.eat_word("AS") || cur.eat_word("IS");
    let text = match cur.peek() {
        Some(Token::SingleQuotedString(s)) => s.clone(),
        _ => return Err(cur.unexpected("expected the comment as a quoted string")),
    };
    cur.pos += 1;
    cur.expect_end()?;
    Ok(AdminStatement::Comment { kind, object, text })
}

/// `RENAME TABLE|VIEW old TO|AS new`.
fn rename(cur: &mut Cursor) -> Result<AdminStatement, ParseError> {
    let view = cur.word_at(1).as_deref() == Some("VIEW");
    cur.pos += 2;
    let from: ast::ObjectName = cur.with_sqlparser(|p| p.parse_object_name(false))?;
    if !(cur.eat_word("TO") || cur.eat_word("AS")) {
        return Err(cur.unexpected("expected TO or AS"));
    }
    let to: ast::ObjectName = cur.with_sqlparser(|p| p.parse_object_name(false))?;
    cur.expect_end()?;
    Ok(AdminStatement::Rename { from, to, view })
}
